//! What players send, as the core's command text: channel messages with
//! Discord's mentions turned into the core's, the slash commands (their
//! table, as Discord registers them and as text written back from their
//! options), the buttons' custom ids, which come back untrusted, and the
//! moves offered while a player types a `/move`.

use kibitz_rules::{Color, Game, Position, Variant};
use kibitz_storage::{ChannelKey, Colour, GameRecord, Store};
use serenity::all::{CommandDataOptionValue, CommandOptionType, InteractionContext};
use serenity::builder::{CreateCommand, CreateCommandOption};

use super::PLATFORM;
use super::outgoing::MAX_CUSTOM_ID;

/// The most choices Discord shows for an autocompleted option.
const MAX_CHOICES: usize = 25;

/// Discord's user mentions (`<@123>`, `<@!123>`) as the core's `@123`.
/// Role and channel mentions stay as they are.
pub(super) fn mentions_to_core(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("<@") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let digits = after.strip_prefix('!').unwrap_or(after);
        let len = digits.bytes().take_while(u8::is_ascii_digit).count();
        if len > 0 && digits[len..].starts_with('>') {
            out.push('@');
            out.push_str(&digits[..len]);
            rest = &digits[len + 1..];
        } else {
            out.push_str("<@");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Whether a channel message may be for the bot: a command, or one word that
/// could be a move. Everything else is conversation and is not even read.
pub(super) fn worth_asking(text: &str) -> bool {
    let text = text.trim();
    text.starts_with('/')
        || text.starts_with('!')
        || (!text.is_empty() && text.chars().count() <= 12 && !text.contains(char::is_whitespace))
}

/// What the core's buttons send, and nothing else: a custom id comes back
/// from Discord and is treated as untrusted input.
pub(super) fn button_command(custom_id: &str) -> Option<String> {
    if custom_id.len() > MAX_CUSTOM_ID {
        return None;
    }
    let body = custom_id.strip_prefix('/')?;
    let words: Vec<&str> = body.split_whitespace().collect();
    match words.as_slice() {
        [word] if ["accept", "decline", "resign", "draw", "hint", "takeback"].contains(word) => {
            Some(format!("/{word}"))
        }
        ["decline", what @ ("draw" | "takeback")] => Some(format!("/decline {what}")),
        ["resign", answer @ ("yes" | "no")] => Some(format!("/resign {answer}")),
        [word @ ("accept" | "decline"), who] => {
            let id = who.strip_prefix('@')?;
            let valid = !id.is_empty() && id.len() <= 20 && id.bytes().all(|b| b.is_ascii_digit());
            valid.then(|| format!("/{word} @{id}"))
        }
        _ => None,
    }
}

/// A slash command option's value, as the translation needs it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Arg {
    User(String),
    Text(String),
    Flag(bool),
    Number(i64),
}

pub(super) fn arg_of(value: &CommandDataOptionValue) -> Option<Arg> {
    Some(match value {
        CommandDataOptionValue::User(id) => Arg::User(id.to_string()),
        CommandDataOptionValue::String(s) => Arg::Text(s.clone()),
        CommandDataOptionValue::Autocomplete { value, .. } => Arg::Text(value.clone()),
        CommandDataOptionValue::Boolean(b) => Arg::Flag(*b),
        CommandDataOptionValue::Integer(n) => Arg::Number(*n),
        _ => return None,
    })
}

/// What an option holds, which decides how it is registered and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A player: `@ID`.
    Player,
    /// Free text, written as given.
    Text,
    /// A variant id, offered as choices.
    Variant,
    /// white, black or random.
    Side,
    /// A yes/no written `NAME on|off`.
    OnOff,
    /// A number of days, written `days N`.
    Days,
    /// Free text written after the option's name (`days off`).
    Keyed,
    /// A variant id, offered as choices, written after the option's name
    /// (`game olympic`).
    KeyedVariant,
}

struct Opt {
    name: &'static str,
    description: &'static str,
    kind: Kind,
    required: bool,
    autocomplete: bool,
}

const fn opt(name: &'static str, kind: Kind, description: &'static str) -> Opt {
    Opt { name, description, kind, required: false, autocomplete: false }
}

pub(super) struct Slash {
    pub(super) name: &'static str,
    description: &'static str,
    options: &'static [Opt],
}

/// The slash commands: every command of the core, with the same words.
pub(super) const SLASH: &[Slash] = &[
    Slash {
        name: "help",
        description: "What Kibitz can do",
        options: &[opt("topic", Kind::Text, "A command (move), or notation and a game (notation clash)")],
    },
    Slash { name: "variants", description: "The games Kibitz plays", options: &[] },
    Slash {
        name: "rules",
        description: "A variant's rules and its pieces",
        options: &[opt("variant", Kind::Variant, "Which game (the channel's default if left out)")],
    },
    Slash {
        name: "piece",
        description: "How a piece moves",
        options: &[Opt { required: true, ..opt("name", Kind::Text, "The piece's name or letter") }],
    },
    Slash {
        name: "challenge",
        description: "Challenge a player (or anyone) to a game",
        options: &[
            opt("opponent", Kind::Player, "Who (leave out for an open challenge)"),
            opt("variant", Kind::Variant, "Which game"),
            opt("side", Kind::Side, "Your side"),
            opt("hints", Kind::OnOff, "Allow hints"),
            opt("rated", Kind::OnOff, "Rated (the channel's default if left out)"),
            opt("days", Kind::Days, "Days per move (correspondence)"),
            opt("clock", Kind::Text, "A chat clock instead: minutes+seconds per move, such as 10+5"),
        ],
    },
    Slash {
        name: "accept",
        description: "Accept a challenge",
        options: &[opt("challenger", Kind::Player, "Whose challenge (if several)")],
    },
    Slash {
        name: "decline",
        description: "Decline a challenge, or your opponent's draw or takeback offer",
        options: &[
            opt("challenger", Kind::Player, "Whose challenge (if several)"),
            opt("offer", Kind::Text, "draw or takeback: which offer to decline"),
        ],
    },
    Slash { name: "cancel", description: "Withdraw your challenge", options: &[] },
    Slash {
        name: "rematch",
        description: "Your last game here again, colours swapped",
        options: &[opt("game", Kind::Text, "Game id (an earlier game here)")],
    },
    Slash {
        name: "move",
        description: "Play a move",
        options: &[Opt {
            required: true,
            autocomplete: true,
            ..opt("move", Kind::Text, "The move: e4, Nf3, e2e4, P@c3")
        }],
    },
    Slash {
        name: "board",
        description: "Show the board",
        options: &[opt("game", Kind::Text, "Game id (if several run here)")],
    },
    Slash {
        name: "moves",
        description: "The legal moves, or one piece's",
        options: &[opt("square", Kind::Text, "The piece's square, such as e2")],
    },
    Slash { name: "hint", description: "A hint for your move (if the game allows)", options: &[] },
    Slash {
        name: "resign",
        description: "Resign your game (asks for a confirmation)",
        options: &[opt("confirm", Kind::Text, "yes to resign now, no to play on")],
    },
    Slash { name: "draw", description: "Offer a draw, or accept one", options: &[] },
    Slash { name: "takeback", description: "Ask to take back a move, or accept", options: &[] },
    Slash { name: "abort", description: "Abort a game before both sides have moved", options: &[] },
    Slash { name: "games", description: "Your games", options: &[] },
    Slash {
        name: "pgn",
        description: "The game as PGN",
        options: &[opt("game", Kind::Text, "Game id (if several run here)")],
    },
    Slash {
        name: "gif",
        description: "The game's replay, animated",
        options: &[opt("game", Kind::Text, "Game id (if several run here)")],
    },
    Slash {
        name: "fen",
        description: "The position as FEN",
        options: &[opt("game", Kind::Text, "Game id (if several run here)")],
    },
    Slash {
        name: "review",
        description: "The review of a finished game",
        options: &[opt("game", Kind::Text, "Game id (your last game here if left out)")],
    },
    Slash {
        name: "stats",
        description: "A player's ratings and results",
        options: &[opt("player", Kind::Player, "Whose (yours if left out)")],
    },
    Slash {
        name: "leaderboard",
        description: "The best players",
        options: &[opt("variant", Kind::Variant, "Of which game")],
    },
    Slash { name: "prices", description: "Clash of the Armies: what each piece costs", options: &[] },
    Slash { name: "army", description: "Clash of the Armies: your army, gold and match", options: &[] },
    Slash {
        name: "buy",
        description: "Clash of the Armies: buy a piece for your army",
        options: &[
            Opt { required: true, ..opt("piece", Kind::Text, "The piece's name or letter: Knight, war machine, N") },
            opt("square", Kind::Text, "Where it stands (the first free square of its class if left out)"),
        ],
    },
    Slash {
        name: "sell",
        description: "Clash of the Armies: sell a piece of your army at its price",
        options: &[Opt { required: true, ..opt("piece", Kind::Text, "Its square (b1) or its name") }],
    },
    Slash {
        name: "place",
        description: "Clash of the Armies: move a piece of your army to another square",
        options: &[
            Opt { required: true, ..opt("piece", Kind::Text, "Its square (b1) or its name") },
            Opt { required: true, ..opt("square", Kind::Text, "Where it goes") },
        ],
    },
    Slash { name: "ready", description: "Clash of the Armies: confirm your army", options: &[] },
    Slash {
        name: "bid",
        description: "Clash of the Armies: your sealed bid for the Amazon (in a DM with the bot)",
        options: &[
            Opt { required: true, ..opt("amount", Kind::Text, "Gold, a multiple of 0.5: 12 or 12.5") },
            opt("game", Kind::Text, "Game id (if several matches wait for a bid)"),
        ],
    },
    Slash { name: "raise", description: "Clash of the Armies: raise the bid by 0.5 after equal bids", options: &[] },
    Slash { name: "pass", description: "Clash of the Armies: pass, and lose the Amazon auction", options: &[] },
    Slash {
        name: "settings",
        description: "This channel's defaults for new games (those who manage the channel change them)",
        options: &[
            opt("game", Kind::KeyedVariant, "The game a challenge plays when it names none"),
            opt("rated", Kind::OnOff, "Whether games are rated"),
            opt("hints", Kind::OnOff, "Whether hints are allowed"),
            opt("days", Kind::Keyed, "Days per move: a number from 1 to 30, or off"),
        ],
    },
];

/// Commands only offered in a DM with the bot: a sealed bid typed in a
/// server channel would be seen there.
const DM_ONLY: &[&str] = &["bid"];

/// The slash commands as Discord registers them.
pub(super) fn slash_commands() -> Vec<CreateCommand> {
    SLASH
        .iter()
        .map(|s| {
            let options = s.options.iter().map(|o| {
                let kind = match o.kind {
                    Kind::Player => CommandOptionType::User,
                    Kind::Text | Kind::Variant | Kind::Side | Kind::Keyed | Kind::KeyedVariant => {
                        CommandOptionType::String
                    }
                    Kind::OnOff => CommandOptionType::Boolean,
                    Kind::Days => CommandOptionType::Integer,
                };
                let mut option = CreateCommandOption::new(kind, o.name, o.description).required(o.required);
                if o.autocomplete {
                    option = option.set_autocomplete(true);
                }
                match o.kind {
                    Kind::Variant | Kind::KeyedVariant => {
                        for v in kibitz_rules::VARIANTS {
                            option = option.add_string_choice(v.name, v.id);
                        }
                    }
                    Kind::Side => {
                        for side in ["white", "black", "random"] {
                            option = option.add_string_choice(side, side);
                        }
                    }
                    Kind::Days => option = option.min_int_value(1).max_int_value(30),
                    _ => {}
                }
                option
            });
            let command = CreateCommand::new(s.name).description(s.description).set_options(options.collect());
            if DM_ONLY.contains(&s.name) { command.contexts(vec![InteractionContext::BotDm]) } else { command }
        })
        .collect()
}

/// A slash command as the command text the core reads, or `None` for a
/// command that is not ours.
pub(super) fn slash_text(name: &str, args: &[(String, Arg)]) -> Option<String> {
    let slash = SLASH.iter().find(|s| s.name == name)?;
    let mut text = format!("/{}", slash.name);
    for o in slash.options {
        let Some((_, arg)) = args.iter().find(|(n, _)| n == o.name) else { continue };
        let word = match (o.kind, arg) {
            (Kind::Player, Arg::User(id)) => format!("@{id}"),
            (Kind::Player | Kind::Text | Kind::Variant | Kind::Side, Arg::Text(s)) => {
                mentions_to_core(s).split_whitespace().collect::<Vec<_>>().join(" ")
            }
            (Kind::OnOff, Arg::Flag(on)) => format!("{} {}", o.name, if *on { "on" } else { "off" }),
            (Kind::Days, Arg::Number(n)) => format!("days {n}"),
            (Kind::Keyed | Kind::KeyedVariant, Arg::Text(s)) => {
                let value = mentions_to_core(s).split_whitespace().collect::<Vec<_>>().join(" ");
                if value.is_empty() { String::new() } else { format!("{} {value}", o.name) }
            }
            _ => continue,
        };
        if !word.is_empty() {
            text.push(' ');
            text.push_str(&word);
        }
    }
    Some(text)
}

/// The legal moves of `player`'s game in `channel` that start with what was
/// typed (in SAN or canonical form, any case, `x`, `+`, `=`, `-`, `#` left
/// out), at most 25, as (what to show, what to send). None when it is not
/// the player's turn.
pub(super) fn suggest_moves(store: &Store, channel: &str, player: &str, typed: &str) -> Vec<(String, String)> {
    let key = ChannelKey::new(PLATFORM, channel);
    let Ok(Some(record)) = store.player_game_in_channel(&key, player) else { return Vec::new() };
    if crate::core::clash_between_rounds(&record) {
        return Vec::new();
    }
    let Some(game) = replay(&record) else { return Vec::new() };
    let pos = game.position();
    let turn = match pos.turn() {
        Color::White => Colour::White,
        Color::Black => Colour::Black,
    };
    if record.player(turn) != player {
        return Vec::new();
    }
    let wanted = loose(typed);
    let mut found = Vec::new();
    for m in game.legal_moves() {
        let (san, canonical) = (pos.san(&m), pos.canonical(&m));
        if loose(&san).starts_with(&wanted) || loose(&canonical).starts_with(&wanted) {
            let shown = if san == canonical { san } else { format!("{san} ({canonical})") };
            found.push((shown, canonical));
            if found.len() == MAX_CHOICES {
                break;
            }
        }
    }
    found
}

fn loose(text: &str) -> String {
    text.chars().filter(|c| !"x+=-#!? ".contains(*c)).flat_map(char::to_lowercase).collect()
}

/// A stored game's rules state, its moves played again from the start (the
/// history decides some variants' moves, not only the position).
fn replay(record: &GameRecord) -> Option<Game> {
    let variant = Variant::by_id(&record.variant)?;
    let mut game = Game::from_position(Position::from_fen(variant, &record.start_fen).ok()?);
    for played in &record.moves {
        let m = game.legal_moves().into_iter().find(|m| game.position().canonical(m) == played.text)?;
        game.play(m).ok()?;
    }
    Some(game)
}

#[cfg(test)]
mod tests {
    use kibitz_storage::Timestamp;

    use super::*;
    use crate::core::{Core, CoreConfig, Incoming, User};

    #[test]
    fn mentions_become_the_cores() {
        assert_eq!(mentions_to_core("/challenge <@123> olympic"), "/challenge @123 olympic");
        assert_eq!(mentions_to_core("<@!42> and <@7>"), "@42 and @7");
        assert_eq!(mentions_to_core("role <@&9> chan <#5> <@x> <@ <@12"), "role <@&9> chan <#5> <@x> <@ <@12");
        assert_eq!(mentions_to_core("<@<@1>>"), "<@@1>");
        assert_eq!(mentions_to_core("plain e4 ♞"), "plain e4 ♞");
    }

    #[test]
    fn slash_commands_become_command_text() {
        let args = vec![
            ("days".to_string(), Arg::Number(3)),
            ("opponent".to_string(), Arg::User("55".into())),
            ("hints".to_string(), Arg::Flag(true)),
            ("variant".to_string(), Arg::Text("olympic".into())),
            ("side".to_string(), Arg::Text("black".into())),
        ];
        assert_eq!(slash_text("challenge", &args).unwrap(), "/challenge @55 olympic black hints on days 3");
        assert_eq!(slash_text("challenge", &[]).unwrap(), "/challenge");
        assert_eq!(slash_text("move", &[("move".into(), Arg::Text("  Nf3 ".into()))]).unwrap(), "/move Nf3");
        assert_eq!(slash_text("accept", &[("challenger".into(), Arg::User("9".into()))]).unwrap(), "/accept @9");
        assert_eq!(slash_text("stats", &[("player".into(), Arg::Text("<@!8>".into()))]).unwrap(), "/stats @8");
        assert_eq!(slash_text("hint", &[("x".into(), Arg::Text("y".into()))]).unwrap(), "/hint");
        let topic = [("topic".to_string(), Arg::Text("notation clash".into()))];
        assert_eq!(slash_text("help", &topic).unwrap(), "/help notation clash");
        assert_eq!(slash_text("prices", &[]).unwrap(), "/prices");
        // A value of the wrong kind is left out; an unknown command is not ours.
        assert_eq!(slash_text("challenge", &[("hints".into(), Arg::Text("on".into()))]).unwrap(), "/challenge");
        assert_eq!(slash_text("frobnicate", &[]), None);
    }

    #[test]
    fn every_core_command_is_a_slash_command() {
        let names: Vec<&str> = SLASH.iter().map(|s| s.name).collect();
        for (command, _) in crate::command::USAGE {
            assert!(names.contains(command), "/{command} has no slash command");
        }
        assert_eq!(names.len(), crate::command::USAGE.len());
        assert_eq!(slash_commands().len(), SLASH.len());
        for s in SLASH {
            assert!(s.description.len() <= 100 && s.options.iter().all(|o| o.description.len() <= 100));
        }
    }

    #[test]
    fn slash_text_is_read_by_the_core_grammar() {
        use crate::command::{ColourWish, Command, parse};
        let args = vec![
            ("opponent".to_string(), Arg::User("55".into())),
            ("side".to_string(), Arg::Text("white".into())),
            ("hints".to_string(), Arg::Flag(false)),
        ];
        match parse(&slash_text("challenge", &args).unwrap(), "kibitz") {
            Ok(Command::Challenge(spec)) => {
                assert_eq!(spec.opponent.as_deref(), Some("55"));
                assert_eq!(spec.colour, Some(ColourWish::White));
                assert_eq!(spec.hints, Some(false));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn settings_options_are_read_by_the_core_grammar() {
        use crate::command::{Command, SettingsChange, parse};
        let args = vec![
            ("days".to_string(), Arg::Text("off".into())),
            ("hints".to_string(), Arg::Flag(true)),
            ("game".to_string(), Arg::Text("olympic".into())),
        ];
        let text = slash_text("settings", &args).unwrap();
        assert_eq!(text, "/settings game olympic hints on days off");
        let change = SettingsChange { game: Some("olympic".into()), hints: Some(true), days: Some(None), rated: None };
        assert_eq!(parse(&text, "kibitz"), Ok(Command::Settings(change)));
        assert_eq!(parse(&slash_text("settings", &[]).unwrap(), "kibitz"), Ok(Command::Settings(Default::default())));
    }

    #[test]
    fn offers_and_resignation_options_are_read_by_the_core_grammar() {
        use crate::command::{Command, OfferChoice, parse};
        let offer = vec![("offer".to_string(), Arg::Text("takeback".into()))];
        let text = slash_text("decline", &offer).unwrap();
        assert_eq!(parse(&text, "kibitz"), Ok(Command::DeclineOffer(OfferChoice::Takeback)));
        let yes = vec![("confirm".to_string(), Arg::Text("yes".into()))];
        assert_eq!(parse(&slash_text("resign", &yes).unwrap(), "kibitz"), Ok(Command::ResignConfirm(true)));
        assert_eq!(parse(&slash_text("resign", &[]).unwrap(), "kibitz"), Ok(Command::Resign));
    }

    #[test]
    fn only_our_buttons_are_pressed() {
        assert_eq!(button_command("/accept @123").as_deref(), Some("/accept @123"));
        assert_eq!(button_command("/decline @123").as_deref(), Some("/decline @123"));
        for plain in [
            "/accept",
            "/resign",
            "/draw",
            "/hint",
            "/takeback",
            "/resign yes",
            "/resign no",
            "/decline draw",
            "/decline takeback",
        ] {
            assert_eq!(button_command(plain).as_deref(), Some(plain));
        }
        for bad in [
            "",
            "resign",
            "/resign now",
            "/resign yes no",
            "/decline everything",
            "/challenge @1",
            "/move e4",
            "/accept alice",
            "/accept @12a",
            "/accept @1 @2",
            "/resign @1",
            "!resign",
            "/accept @",
            &format!("/accept @{}", "1".repeat(200)),
        ] {
            assert_eq!(button_command(bad), None, "{bad}");
        }
    }

    #[test]
    fn chat_is_not_read() {
        assert!(worth_asking("e4"));
        assert!(worth_asking("!move e4"));
        assert!(worth_asking("/board"));
        assert!(!worth_asking("good game everyone"));
        assert!(!worth_asking("   "));
        assert!(!worth_asking("abcdefghijklmnop"));
    }

    #[test]
    fn move_suggestions_follow_the_typing() {
        let dir = tempfile::tempdir().unwrap();
        let core = Core::new(Store::open(dir.path()).unwrap(), CoreConfig { board_size: 160, ..CoreConfig::default() });
        let say = |who: &str, text: &str| {
            core.handle(&Incoming {
                platform: PLATFORM.into(),
                channel: "77".into(),
                sender: User { id: who.into(), name: who.into() },
                text: text.into(),
                message_id: None,
                at: Timestamp(1),
                private: false,
                manages: None,
            })
        };
        say("1", "/challenge @2 white");
        say("2", "/accept");
        let all = suggest_moves(core.store(), "77", "1", "");
        assert_eq!(all.len(), 20);
        assert!(all.contains(&("e4 (e2e4)".to_string(), "e2e4".to_string())));
        let knights = suggest_moves(core.store(), "77", "1", "n");
        assert_eq!(knights.len(), 4, "{knights:?}");
        let e = suggest_moves(core.store(), "77", "1", "E2");
        let mut sent: Vec<&str> = e.iter().map(|(_, v)| v.as_str()).collect();
        sent.sort();
        assert_eq!(sent, ["e2e3", "e2e4"]);
        assert!(suggest_moves(core.store(), "77", "2", "").is_empty(), "not Black's turn");
        assert!(suggest_moves(core.store(), "77", "3", "").is_empty(), "not a player");
        assert!(suggest_moves(core.store(), "78", "1", "").is_empty(), "another channel");
        say("1", "e4");
        let replies = suggest_moves(core.store(), "77", "2", "");
        assert_eq!(replies.len(), 20);
        assert!(suggest_moves(core.store(), "77", "2", "zz").is_empty());
    }
}
