//! The command grammar, one for every platform.
//!
//! A command starts with `/` (or `!` where a platform reserves `/`), may
//! carry the bot's name after the command word (`/move@kibitz_bot e4`, as
//! Telegram groups send it), and is followed by its arguments. Reading never
//! fails in a way that panics: anything unexpected becomes a [`ParseError`]
//! with a sentence for the player.

use std::fmt;

use crate::core::{excerpt, sentence_end};

pub mod meant;

/// Which colour the challenger wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColourWish {
    /// Play White.
    White,
    /// Play Black.
    Black,
    /// Let chance decide.
    Random,
}

/// What a challenge asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChallengeSpec {
    /// The challenged player (a mention), or nobody for an open challenge.
    pub opponent: Option<String>,
    /// Variant id, or the channel's default.
    pub variant: Option<String>,
    /// Colour wish.
    pub colour: Option<ColourWish>,
    /// Hints allowed.
    pub hints: Option<bool>,
    /// Days per move (correspondence).
    pub days: Option<u32>,
    /// `days off`: no days per move, whatever the channel's default.
    pub days_off: bool,
    /// `rated on|off`, over the channel's default.
    pub rated: Option<bool>,
    /// A chat clock: minutes for the game and seconds added per move (`10+5`).
    pub clock: Option<(u32, u32)>,
    /// The bot's level, when challenging the bot.
    pub level: Option<u8>,
    /// A player named without `@` (`/challenge bob`), still to be found.
    pub named: Option<String>,
    /// Power Absorption's handicaps (PA7): `handicap white plain`.
    pub handicap: Option<kibitz_rules::Handicaps>,
}

/// A command, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// What the bot can do.
    Help,
    /// One command explained, or a topic (`notation VARIANT`).
    HelpOn(String),
    /// Clash of the Armies: the price list.
    Prices,
    /// The games it plays.
    Variants,
    /// A variant's rules summary and legend.
    Rules(Option<String>),
    /// A piece's movement diagram.
    Piece(String),
    /// Challenge someone, or anyone.
    Challenge(ChallengeSpec),
    /// Accept a challenge (from this player, if named).
    Accept(Option<String>),
    /// Accept the challenge of a player named without `@` (`/accept alice`).
    AcceptNamed(String),
    /// `/accept draw`, `/accept takeback`: the opponent's offer of that kind.
    AcceptOffer(OfferChoice),
    /// Decline the challenge of a player named without `@`.
    DeclineNamed(String),
    /// Decline a challenge (from this player, if named), or the one draw or
    /// takeback offer made to the sender.
    Decline(Option<String>),
    /// Decline the opponent's pending draw or takeback offer, by its kind.
    DeclineOffer(OfferChoice),
    /// Withdraw one's own challenge.
    Cancel,
    /// `/cancel draw`, `/cancel takeback`: withdraws the sender's own offer.
    CancelOffer(OfferChoice),
    /// Play a move.
    Move(String),
    /// Show a board (of this game, if named).
    Board(Option<String>),
    /// The legal moves, or one piece's targets.
    Moves(Option<String>),
    /// Ask for a hint.
    Hint,
    /// Resign: asks for a confirmation first.
    Resign,
    /// `/resign yes` (resign now) or `/resign no` (play on).
    ResignConfirm(bool),
    /// Offer or accept a draw.
    Draw,
    /// Ask for or accept a takeback.
    Takeback,
    /// Abort a game before both sides have moved.
    Abort,
    /// My games.
    Games,
    /// The last finished game here (or this one) again, colours swapped.
    Rematch(Option<String>),
    /// Export as PGN.
    Pgn(Option<String>),
    /// Export as FEN.
    Fen(Option<String>),
    /// The game's replay, an animated GIF.
    Gif(Option<String>),
    /// The review of a finished game (the sender's last one here without an id).
    Review(Option<String>),
    /// A player's ratings and results.
    Stats(Option<String>),
    /// A player's ratings and results, the player named without `@`
    /// (`/stats bob`): the core finds who it is, as for a challenge.
    StatsNamed(String),
    /// The best players.
    Leaderboard(Option<String>),
    /// Clash of the Armies: one's army, gold and the match.
    Army,
    /// Clash: buy a piece, on a square or the first free one of its class.
    Buy {
        /// The piece's name or letter, as written.
        piece: String,
        /// The square, if one was given.
        square: Option<String>,
    },
    /// Clash: sell a piece, named by its square or its name.
    Sell(String),
    /// Clash: move a piece of one's army to another square.
    Place {
        /// The piece: its square or its name, as written.
        piece: String,
        /// Where it goes.
        square: String,
    },
    /// Clash: confirm one's army.
    Ready,
    /// Clash: the sealed bid for the Amazon, sent privately (and the match,
    /// if the sender has several).
    Bid {
        /// The amount, as written.
        amount: String,
        /// A game id, if given.
        game: Option<String>,
    },
    /// Clash: raise the bid by 0.5 after equal bids.
    Raise,
    /// Clash: pass, and lose the auction.
    Pass,
    /// The channel's settings: shown, or changed by one who manages it.
    Settings(SettingsChange),
}

/// Changes to a channel's settings (`/settings game olympic hints on`):
/// each `None` is left as it is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SettingsChange {
    /// The game a challenge that names none plays (a variant id, or a slip
    /// of one for the core to answer).
    pub game: Option<String>,
    /// Whether games are rated.
    pub rated: Option<bool>,
    /// Whether hints are allowed.
    pub hints: Option<bool>,
    /// Days per move: `Some(None)` for none.
    pub days: Option<Option<u32>>,
}

impl SettingsChange {
    /// Whether it changes nothing (plain `/settings`, which shows them).
    pub fn is_empty(&self) -> bool {
        *self == SettingsChange::default()
    }
}

/// Which kind of offer a command means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferChoice {
    /// A draw offer.
    Draw,
    /// A takeback request.
    Takeback,
}

/// Why a message could not be read as a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The message is not a command at all (no prefix).
    NotACommand,
    /// A slash and nothing after it.
    Empty,
    /// An unknown command word.
    Unknown {
        /// The word as written (its first 24 characters).
        word: String,
        /// The command it most likely meant, with the words that followed
        /// it, to suggest (never to act on).
        meant: Option<String>,
    },
    /// A command missing something or with something extra.
    Usage {
        /// The command.
        command: &'static str,
        /// What it takes.
        usage: &'static str,
        /// What was wrong.
        problem: String,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::NotACommand => write!(f, "that is not a command"),
            ParseError::Empty => write!(f, "A command's word goes right after the slash: /help lists them all."),
            ParseError::Unknown { word, meant: None } => write!(f, "I don't know the command /{word}. Try /help."),
            ParseError::Unknown { word, meant: Some(meant) } => {
                write!(f, "I don't know the command /{word}. Did you mean /{meant}? /help lists every command.")
            }
            ParseError::Usage { usage, problem, .. } => {
                write!(f, "{problem}{} Usage: /{usage}", sentence_end(problem))
            }
        }
    }
}

/// Usage lines, shown by `/help` and in errors.
pub const USAGE: &[(&str, &str)] = &[
    ("help", "help [COMMAND | notation VARIANT | RULING]"),
    ("variants", "variants"),
    ("rules", "rules [VARIANT]"),
    ("piece", "piece [VARIANT] NAME"),
    (
        "challenge",
        "challenge [@user] [VARIANT] [white|black|random] [hints on|off] [rated on|off] [days N|off | M+S] [level \
         1-8] [handicap COLOUR plain|nopawn|noqueen]",
    ),
    ("accept", "accept [@user|draw|takeback]"),
    ("decline", "decline [@user|draw|takeback]"),
    ("cancel", "cancel [draw|takeback]"),
    ("move", "move [GAME] MOVE"),
    ("board", "board [GAME|white|black|flip]"),
    ("moves", "moves [GAME] [SQUARE|PIECE|PAGE|next]"),
    ("hint", "hint"),
    ("resign", "resign [yes|no|GAME]"),
    ("draw", "draw [accept|decline|cancel]"),
    ("takeback", "takeback [accept|decline|cancel]"),
    ("abort", "abort"),
    ("games", "games"),
    ("rematch", "rematch [GAME]"),
    ("pgn", "pgn [GAME]"),
    ("fen", "fen [GAME]"),
    ("gif", "gif [GAME]"),
    ("review", "review [GAME]"),
    ("stats", "stats [@user]"),
    ("leaderboard", "leaderboard [VARIANT]"),
    ("prices", "prices"),
    ("army", "army"),
    ("buy", "buy PIECE [SQUARE]"),
    ("sell", "sell SQUARE|PIECE"),
    ("place", "place PIECE|FROM SQUARE"),
    ("ready", "ready"),
    ("bid", "bid AMOUNT [GAME]"),
    ("raise", "raise"),
    ("pass", "pass"),
    ("settings", "settings [game VARIANT] [rated on|off] [hints on|off] [days N|off]"),
];

fn usage(command: &'static str) -> &'static str {
    USAGE.iter().find(|(c, _)| *c == command).map_or(command, |(_, u)| u)
}

fn problem(command: &'static str, problem: impl Into<String>) -> ParseError {
    ParseError::Usage { command, usage: usage(command), problem: problem.into() }
}

/// The longest user id a mention may name, in bytes: Telegram usernames
/// have at most 32 characters and Discord ids are 20 digits at most, so
/// anything longer names nobody.
pub const ID_LIMIT: usize = 64;

/// A mention (`@name`, or a platform's mention already turned into one),
/// as the user it names.
fn mention(word: &str) -> Option<String> {
    // `@bob,` and `@bob!`: the punctuation of the sentence is no part of
    // the name; `@@bob` names nobody.
    let name = word.strip_prefix('@')?.trim_end_matches([',', '.', '!', '?', ';', ':']);
    (!name.is_empty() && name.len() <= ID_LIMIT && !name.contains('@')).then(|| name.to_string())
}

/// Why `word` names no user.
fn not_a_user(command: &'static str, word: &str) -> ParseError {
    let what = if word.starts_with('@') { "is not a user" } else { "is not a @mention" };
    problem(command, format!("'{}' {what}", excerpt(word)))
}

/// Reads a message. `bot_name` is stripped from `/command@bot_name`.
pub fn parse(text: &str, bot_name: &str) -> Result<Command, ParseError> {
    let text = text.trim();
    let body = text.strip_prefix('/').or_else(|| text.strip_prefix('!')).ok_or(ParseError::NotACommand)?;
    let mut words = body.split_whitespace();
    let Some(first) = words.next() else {
        // A slash alone: someone who knows commands start with one.
        return Err(if text.starts_with('/') { ParseError::Empty } else { ParseError::NotACommand });
    };
    // `!!`, `!?`, `!!!`: a chess player's marks of surprise, not commands.
    if text.starts_with('!') && !body.starts_with(|c: char| c.is_alphabetic()) {
        return Err(ParseError::NotACommand);
    }
    let written = match first.split_once('@') {
        Some((w, target)) if target.eq_ignore_ascii_case(bot_name) || bot_name.is_empty() => w,
        Some((w, _)) => w,
        None => first,
    };
    let word = written.to_ascii_lowercase();
    let args: Vec<&str> = words.collect();
    let one = |command: &'static str| -> Result<Option<String>, ParseError> {
        match args.as_slice() {
            [] => Ok(None),
            [a] => Ok(Some(a.to_string())),
            _ => Err(problem(command, "That is one word too many")),
        }
    };
    let none = |command: &'static str, c: Command| -> Result<Command, ParseError> {
        if args.is_empty() { Ok(c) } else { Err(problem(command, format!("/{command} takes nothing more"))) }
    };
    let user = |command: &'static str| -> Result<Option<String>, ParseError> {
        match one(command)? {
            None => Ok(None),
            Some(a) => mention(&a).map(Some).ok_or_else(|| not_a_user(command, &a)),
        }
    };
    match word.as_str() {
        // Telegram's `/start` may carry a deep link's payload: still help.
        "start" => Ok(Command::Help),
        "help" if args.is_empty() => Ok(Command::Help),
        "help" => Ok(Command::HelpOn(args.join(" "))),
        "prices" => none("prices", Command::Prices),
        "variants" => none("variants", Command::Variants),
        "rules" => match meant::spoken_game(&args) {
            // `/rules construction split`, `/rules power absorption`.
            Some((id, n)) if n == args.len() => Ok(Command::Rules(Some(id.to_string()))),
            _ => one("rules").map(Command::Rules),
        },
        "piece" => match args.as_slice() {
            [] => Err(problem("piece", "Which piece?")),
            words => Ok(Command::Piece(words.join(" "))),
        },
        "challenge" => challenge(&args).map(Command::Challenge),
        "accept" => match args.as_slice() {
            [word] if word.eq_ignore_ascii_case("draw") => Ok(Command::AcceptOffer(OfferChoice::Draw)),
            [word] if word.eq_ignore_ascii_case("takeback") => Ok(Command::AcceptOffer(OfferChoice::Takeback)),
            [name] if !name.starts_with('@') && is_name(name) => Ok(Command::AcceptNamed(name.to_string())),
            _ => user("accept").map(Command::Accept),
        },
        "decline" => match args.as_slice() {
            [word] if word.eq_ignore_ascii_case("draw") => Ok(Command::DeclineOffer(OfferChoice::Draw)),
            [word] if word.eq_ignore_ascii_case("takeback") => Ok(Command::DeclineOffer(OfferChoice::Takeback)),
            [name] if !name.starts_with('@') && is_name(name) => Ok(Command::DeclineNamed(name.to_string())),
            [word] if !word.starts_with('@') => {
                Err(problem("decline", format!("'{}' is neither a @mention nor draw or takeback", excerpt(word))))
            }
            _ => user("decline").map(Command::Decline),
        },
        "cancel" => match args.as_slice() {
            [] => Ok(Command::Cancel),
            [word] if word.eq_ignore_ascii_case("draw") => Ok(Command::CancelOffer(OfferChoice::Draw)),
            [word] if word.eq_ignore_ascii_case("takeback") => Ok(Command::CancelOffer(OfferChoice::Takeback)),
            _ => Err(problem(
                "cancel",
                "Say /cancel for your challenge, or /cancel draw or /cancel takeback for your offer",
            )),
        },
        "move" | "m" => match args.as_slice() {
            [] => Err(problem("move", "Which move?")),
            words => Ok(Command::Move(words.join(" "))),
        },
        "board" => one("board").map(Command::Board),
        "moves" => match args.as_slice() {
            [] => Ok(Command::Moves(None)),
            [_] | [_, _] => Ok(Command::Moves(Some(args.join(" ")))),
            // A move in words (`give rook moving half e2`, C2, CS2), after a game's id or not.
            words
                if words.len() <= 6
                    && words
                        .iter()
                        .any(|w| ["give", "drop", "swap", "shoot"].contains(&w.to_ascii_lowercase().as_str())) =>
            {
                Ok(Command::Moves(Some(words.join(" "))))
            }
            _ => Err(problem("moves", "That is one word too many")),
        },
        "hint" => none("hint", Command::Hint),
        "resign" => match args.as_slice() {
            [] => Ok(Command::Resign),
            [word] if ["yes", "y"].iter().any(|w| word.eq_ignore_ascii_case(w)) => Ok(Command::ResignConfirm(true)),
            [word] if ["no", "n"].iter().any(|w| word.eq_ignore_ascii_case(w)) => Ok(Command::ResignConfirm(false)),
            // `/resign GAME`: the game is the sender's own in this chat, and
            // from elsewhere they are told where it is played.
            [word] if kibitz_storage::GameId::parse(word).is_ok() => Ok(Command::Resign),
            _ => Err(problem("resign", "Say /resign yes to resign, or /resign no to play on")),
        },
        "draw" => offer("draw", OfferChoice::Draw, Command::Draw, &args),
        "takeback" => offer("takeback", OfferChoice::Takeback, Command::Takeback, &args),
        "abort" => none("abort", Command::Abort),
        "games" => none("games", Command::Games),
        "rematch" => one("rematch").map(Command::Rematch),
        "pgn" => one("pgn").map(Command::Pgn),
        "fen" => one("fen").map(Command::Fen),
        "gif" => one("gif").map(Command::Gif),
        "review" => one("review").map(Command::Review),
        "stats" => match args.as_slice() {
            [name] if !name.starts_with('@') && is_name(name) && name.len() <= ID_LIMIT => {
                Ok(Command::StatsNamed(name.to_string()))
            }
            _ => user("stats").map(Command::Stats),
        },
        "leaderboard" => one("leaderboard").map(Command::Leaderboard),
        "army" => none("army", Command::Army),
        // `/buy pawn a2 b2`: one at a time.
        "buy" if let Some(e) = several_squares("buy", &args, 1) => Err(e),
        // `/place d1 e1` and `/place bishop d1 e1` move the piece on d1;
        // `/place d1 e1 f1` is several.
        "place" if let Some(e) = several_squares("place", &args, 2) => Err(e),
        "buy" => match args.as_slice() {
            [] => Err(problem("buy", "Which piece?")),
            [rest @ .., last] if !rest.is_empty() && is_square(last) => {
                Ok(Command::Buy { piece: rest.join(" "), square: Some(last.to_ascii_lowercase()) })
            }
            words => Ok(Command::Buy { piece: words.join(" "), square: None }),
        },
        "sell" => match args.as_slice() {
            [] => Err(problem("sell", "Which piece? Name its square or the piece")),
            words => Ok(Command::Sell(words.join(" "))),
        },
        "place" => match args.as_slice() {
            [rest @ .., last] if !rest.is_empty() && is_square(last) => {
                Ok(Command::Place { piece: rest.join(" "), square: last.to_ascii_lowercase() })
            }
            [] => Err(problem("place", "Which piece, and where?")),
            _ => Err(problem("place", "Say where it goes, after the piece")),
        },
        "ready" => none("ready", Command::Ready),
        "bid" => {
            // `/bid 10 gold`: the unit may follow the amount.
            let is_gold = |w: &&str| w.eq_ignore_ascii_case("gold");
            let words: Vec<&str> = match args.as_slice() {
                [amount, unit, rest @ ..] if is_gold(unit) => {
                    [*amount].into_iter().chain(rest.iter().copied()).collect()
                }
                _ => args.clone(),
            };
            match words.as_slice() {
                [] => Err(problem("bid", "How much?")),
                [amount] => Ok(Command::Bid { amount: amount.to_string(), game: None }),
                [amount, game] => Ok(Command::Bid { amount: amount.to_string(), game: Some(game.to_string()) }),
                _ => Err(problem("bid", "That is one word too many")),
            }
        }
        "settings" | "setting" | "config" => settings(&args).map(Command::Settings),
        "raise" => none("raise", Command::Raise),
        "pass" => none("pass", Command::Pass),
        _ => {
            let rest = excerpt(&args.join(" "));
            let meant = if meant::a_move(written) && args.is_empty() {
                // `/e4`: a move typed as a command.
                Some(format!("move {}", excerpt(written)))
            } else {
                meant::meant(&word).map(|ours| {
                    // `/offer draw`, `/offer takeback`: the offer is its own command.
                    let ours = match (word.as_str(), rest.to_ascii_lowercase().as_str()) {
                        ("offer", "draw" | "takeback") => return rest.to_ascii_lowercase(),
                        _ => ours,
                    };
                    // The words after it, if that command takes them (`/mvoe e4`
                    // is `/move e4`, but `/undo 2` is `/takeback` and `/forfeit
                    // now` is `/resign`).
                    let with_rest = format!("{ours} {rest}");
                    if rest.is_empty() || parse(&format!("/{with_rest}"), bot_name).is_err() {
                        ours.to_string()
                    } else {
                        with_rest
                    }
                })
            };
            Err(ParseError::Unknown { word: written.chars().take(24).collect(), meant })
        }
    }
}

/// A word that could be a user's name or id: letters, digits, `_` and `.`,
/// as Telegram usernames, Discord names and ids are written.
fn is_name(word: &str) -> bool {
    !word.is_empty()
        && word.len() <= ID_LIMIT
        && word.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        && !matches!(word.to_ascii_lowercase().as_str(), "on" | "off" | "yes" | "no")
}

/// A square of the 8x8 board, `a1` to `h8`, either case.
fn is_square(word: &str) -> bool {
    matches!(word.as_bytes(), [f, r] if (b'a'..=b'h').contains(&f.to_ascii_lowercase()) && (b'1'..=b'8').contains(r))
}

/// `on`/`yes` or `off`/`no`, any case.
fn switch(word: &str) -> Option<bool> {
    match word.to_ascii_lowercase().as_str() {
        "on" | "yes" => Some(true),
        "off" | "no" => Some(false),
        _ => None,
    }
}

/// The settings `/settings` changes.
const SETTINGS_WORDS: [&str; 4] = ["game", "rated", "hints", "days"];

/// `/settings [game VARIANT] [rated on|off] [hints on|off] [days N|off]`.
fn settings(args: &[&str]) -> Result<SettingsChange, ParseError> {
    let mut change = SettingsChange::default();
    let on_off = |key: &str, value: Option<&&str>| {
        value.and_then(|v| switch(v)).ok_or_else(|| problem("settings", format!("Say {key} on or {key} off")))
    };
    let twice = |key: &str| problem("settings", format!("Say {key} once"));
    let mut i = 0;
    while i < args.len() {
        let word = args[i];
        let value = args.get(i + 1);
        i += 2;
        match word.to_ascii_lowercase().as_str() {
            "game" | "variant" => {
                // A game by its name in words (`game Olympic Chess`) or its id.
                let game = match meant::spoken_game(&args[i - 1..]) {
                    Some((id, n)) => {
                        i += n - 1;
                        id.to_string()
                    }
                    None => value
                        .ok_or_else(|| problem("settings", "Game takes a game's id (/variants)"))?
                        .to_ascii_lowercase(),
                };
                if change.game.replace(game).is_some() {
                    return Err(twice("game"));
                }
            }
            "rated" => {
                if change.rated.replace(on_off("rated", value)?).is_some() {
                    return Err(twice("rated"));
                }
            }
            "hints" => {
                if change.hints.replace(on_off("hints", value)?).is_some() {
                    return Err(twice("hints"));
                }
            }
            "days" | "day" => {
                let days = match value.map(|v| v.to_ascii_lowercase()).as_deref() {
                    Some("off" | "none" | "no") => None,
                    v => Some(
                        v.and_then(|v| v.parse::<u32>().ok())
                            .filter(|d| (1..=30).contains(d))
                            .ok_or_else(|| problem("settings", "Days take a number from 1 to 30, or off"))?,
                    ),
                };
                if change.days.replace(days).is_some() {
                    return Err(twice("days"));
                }
            }
            other => {
                let near = meant::nearest(other, SETTINGS_WORDS).map(|w| format!(": did you mean {w}?"));
                return Err(problem(
                    "settings",
                    format!("I don't know the setting '{}'{}", excerpt(word), near.unwrap_or_default()),
                ));
            }
        }
    }
    Ok(change)
}

/// Whether `text` is a command that changes a channel's settings: the one
/// for which an adapter asks the platform whether the sender manages the
/// channel ([`crate::core::Incoming::manages`]).
pub fn changes_settings(text: &str, bot_name: &str) -> bool {
    matches!(parse(text, bot_name), Ok(Command::Settings(change)) if !change.is_empty())
}

/// The words a challenge is made of besides mentions, games and clocks.
pub(crate) const CHALLENGE_WORDS: [&str; 8] =
    ["white", "black", "random", "hints", "days", "level", "handicap", "rated"];

fn challenge(args: &[&str]) -> Result<ChallengeSpec, ParseError> {
    let mut spec = ChallengeSpec::default();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        let mut lower = a.to_ascii_lowercase();
        let next = args.get(i + 1).map(|w| w.to_ascii_lowercase());
        // Words a player puts before a colour (`as white`, `colour black`)
        // say nothing more than the colour does.
        if matches!(lower.as_str(), "as" | "playing" | "play" | "colour" | "color" | "side")
            && matches!(next.as_deref(), Some("white" | "black" | "random"))
        {
            i += 1;
            continue;
        }
        // `lvl 5`, `difficulty 5`: the level.
        if matches!(lower.as_str(), "lvl" | "lv" | "levels" | "difficulty" | "strength") {
            lower = "level".to_string();
        }
        if let Some((id, n)) = meant::spoken_game(&args[i..]) {
            // A game by its name in words: `alapawn balanced`, `power absorption`.
            if spec.variant.replace(id.to_string()).is_some() {
                return Err(problem("challenge", "Name one game"));
            }
            i += n;
            continue;
        }
        if let (Ok(n), Some("days" | "day")) = (lower.parse::<u32>(), next.as_deref()) {
            // `3 days`, as `days 3`.
            if !(1..=30).contains(&n) {
                return Err(problem("challenge", "Days take a number from 1 to 30"));
            }
            if spec.days.replace(n).is_some() {
                return Err(problem("challenge", "Days once: say days N"));
            }
            i += 2;
            continue;
        }
        if let (true, Some("+"), Some(seconds)) = (lower.parse::<u32>().is_ok(), next.as_deref(), args.get(i + 2)) {
            // `10 + 5`, as `10+5`.
            once(&mut spec.clock, clock(&format!("{a}+{seconds}"))?, "the clock")?;
            i += 3;
            continue;
        }
        if let Some(user) = mention(a) {
            if spec.opponent.replace(user).is_some() {
                return Err(problem("challenge", "One opponent at a time"));
            }
        } else if a.starts_with('@') {
            return Err(not_a_user("challenge", a));
        } else if let Some(c) = match lower.as_str() {
            "white" => Some(ColourWish::White),
            "black" => Some(ColourWish::Black),
            "random" => Some(ColourWish::Random),
            _ => None,
        } {
            if spec.colour.replace(c).is_some_and(|before| before != c) {
                return Err(problem("challenge", "One colour: white, black or random"));
            }
        } else if lower == "handicap" {
            // PA7: `handicap white plain`, `handicap black nopawn noqueen`,
            // one clause for both sides (`handicap white plain black nopawn`).
            let rest = args.get(i + 1..).unwrap_or_default();
            let (h, read) = kibitz_rules::Handicaps::read_words(rest).map_err(|e| {
                let near = match &e {
                    kibitz_rules::HandicapError::Unknown(w) => {
                        meant::nearest(&w.to_ascii_lowercase(), ["plain", "nopawn", "noqueen"])
                    }
                    kibitz_rules::HandicapError::Missing => rest
                        .first()
                        .and_then(|w| meant::nearest(&w.to_ascii_lowercase(), ["white", "black"]))
                        .filter(|n| !rest[0].eq_ignore_ascii_case(n)),
                    _ => None,
                };
                let mean = near.map(|n| format!(" Did you mean {n}?")).unwrap_or_default();
                problem("challenge", format!("Handicap: {e}.{mean}"))
            })?;
            // A clause per side (`handicap white plain handicap black nopawn`)
            // is one clause for both; a side named twice is refused.
            let mut both = spec.handicap.unwrap_or(kibitz_rules::Handicaps::NONE);
            for color in [kibitz_rules::Color::White, kibitz_rules::Color::Black] {
                if !h.of(color).is_none() {
                    if !both.of(color).is_none() {
                        return Err(problem(
                            "challenge",
                            "Each side's handicap once: handicap white plain black nopawn",
                        ));
                    }
                    both.add(color, h.of(color));
                }
            }
            spec.handicap = Some(both);
            i += read;
        } else if lower == "level" {
            let value = args.get(i + 1).and_then(|v| v.parse::<u8>().ok()).filter(|l| (1..=8).contains(l));
            i += 1;
            let level = value.ok_or_else(|| problem("challenge", "Level takes a number from 1 to 8"))?;
            once(&mut spec.level, level, "the level")?;
        } else if lower == "hints" || lower == "days" || lower == "rated" {
            let value = args.get(i + 1).map(|v| v.to_ascii_lowercase());
            i += 1;
            let on_off = |what: &str| {
                value.as_deref().and_then(switch).ok_or_else(|| problem("challenge", format!("{what} take on or off")))
            };
            if lower == "hints" {
                once(&mut spec.hints, on_off("Hints")?, "hints")?;
            } else if lower == "rated" {
                once(&mut spec.rated, on_off("Rated games")?, "rated")?;
            } else if matches!(value.as_deref(), Some("off" | "none" | "no")) {
                // Over a channel's default of days per move.
                spec.days_off = true;
            } else {
                let days = value.and_then(|v| v.parse::<u32>().ok()).filter(|d| (1..=30).contains(d));
                once(
                    &mut spec.days,
                    days.ok_or_else(|| problem("challenge", "Days take a number from 1 to 30"))?,
                    "days",
                )?;
            }
        } else if a.contains('+') || a.contains('|') {
            // `5|3` as some sites write it: `5+3`.
            once(&mut spec.clock, clock(&a.replace('|', "+"))?, "the clock")?;
        } else if kibitz_rules::Variant::by_id(&lower).is_some() {
            if spec.variant.replace(lower).is_some() {
                return Err(problem("challenge", "Name one game"));
            }
        } else if spec.opponent.is_none() && spec.named.is_none() && is_name(a) {
            // A player named without `@`; the core finds who it is.
            spec.named = Some(a.to_string());
        } else if let Some(word) = meant::nearest(&lower, CHALLENGE_WORDS).filter(|_| meant::game(&lower).is_none()) {
            return Err(problem("challenge", format!("I don't understand '{}': did you mean {word}?", excerpt(a))));
        } else if spec.variant.is_none() {
            spec.variant = Some(lower);
        } else {
            return Err(problem("challenge", format!("I don't understand '{}'", excerpt(a))));
        }
        i += 1;
    }
    if spec.days_off && spec.days.is_some() {
        return Err(problem("challenge", "Days per move or days off, not both"));
    }
    if spec.days.is_some() && spec.clock.is_some() {
        return Err(problem(
            "challenge",
            "A game has days per move or a chat clock, not both: say days N or M+S (like 10+5)",
        ));
    }
    Ok(spec)
}

/// `/buy pawn a2 b2`: more squares than `command` takes (`most`), refused
/// with the first two said one at a time.
fn several_squares(command: &'static str, args: &[&str], most: usize) -> Option<ParseError> {
    let (squares, piece): (Vec<&str>, Vec<&str>) = args.iter().partition(|a| is_square(a));
    let [first, second, ..] = squares[..] else { return None };
    if squares.len() <= most {
        return None;
    }
    let piece = if piece.is_empty() { "PIECE".to_string() } else { excerpt(&piece.join(" ")) };
    let (first, second) = (first.to_ascii_lowercase(), second.to_ascii_lowercase());
    Some(problem(
        command,
        format!("One square at a time: /{command} {piece} {first}, then /{command} {piece} {second}"),
    ))
}

/// `/draw` and `/takeback` with a word that says what to do with the offer
/// (`/draw accept`, `/takeback no`, `/draw withdraw`), or the game's id
/// (the sender's game in this chat; from elsewhere they are told where it
/// is played).
fn offer(command: &'static str, choice: OfferChoice, plain: Command, args: &[&str]) -> Result<Command, ParseError> {
    let said = |word: &str, list: &[&str]| list.iter().any(|w| word.eq_ignore_ascii_case(w));
    match args {
        [] => Ok(plain),
        [w] if said(w, &["accept", "accepted", "yes", "y", "ok"]) => Ok(Command::AcceptOffer(choice)),
        [w] if said(w, &["decline", "declined", "reject", "refuse", "no", "n"]) => Ok(Command::DeclineOffer(choice)),
        [w] if said(w, &["cancel", "withdraw", "retract"]) => Ok(Command::CancelOffer(choice)),
        [w] if said(w, &["offer", "propose", "please"]) || kibitz_storage::GameId::parse(w).is_ok() => Ok(plain),
        _ => Err(problem(
            command,
            format!("/{command} offers one; /accept {command}, /decline {command} or /cancel {command} answers one"),
        )),
    }
}

/// Sets a challenge's option, said once: `level 3 level 5` is refused
/// rather than read as its last word.
fn once<T>(slot: &mut Option<T>, value: T, what: &str) -> Result<(), ParseError> {
    if slot.replace(value).is_some() {
        return Err(problem("challenge", format!("Say {what} once")));
    }
    Ok(())
}

/// A chat clock, `M+S`: 1 to 180 minutes for the game, 0 to 180 seconds
/// added per move.
fn clock(word: &str) -> Result<(u32, u32), ParseError> {
    let max = kibitz_storage::CLOCK_MAX;
    let number = |t: &str| {
        (!t.is_empty() && t.len() <= 6 && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse::<u32>().ok())
            .flatten()
    };
    let Some((minutes, seconds)) = word.split_once('+').and_then(|(m, s)| Some((number(m)?, number(s)?))) else {
        return Err(problem(
            "challenge",
            format!(
                "'{}' is no clock: write minutes+seconds, like 10+5 (10 minutes, 5 seconds added a move)",
                excerpt(word)
            ),
        ));
    };
    if !(1..=max).contains(&minutes) {
        return Err(problem("challenge", format!("A clock gives 1 to {max} minutes for the game, not {minutes}")));
    }
    if seconds > max {
        return Err(problem("challenge", format!("A clock adds 0 to {max} seconds a move, not {seconds}")));
    }
    Ok((minutes, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_read() {
        let read = |text: &str| match parse(text, "k") {
            Ok(Command::Settings(change)) => Ok(change),
            Err(e) => Err(e.to_string()),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(read("/settings"), Ok(SettingsChange::default()));
        assert_eq!(
            read("/settings game Olympic rated off hints on days 3"),
            Ok(SettingsChange {
                game: Some("olympic".into()),
                rated: Some(false),
                hints: Some(true),
                days: Some(Some(3))
            })
        );
        assert_eq!(read("/settings days off"), Ok(SettingsChange { days: Some(None), ..Default::default() }));
        assert_eq!(
            read("/settings hints maybe"),
            Err(
                "Say hints on or hints off. Usage: /settings [game VARIANT] [rated on|off] [hints on|off] [days N|off]"
                    .into()
            )
        );
        assert!(read("/settings days 31").unwrap_err().starts_with("Days take a number from 1 to 30, or off."));
        assert!(read("/settings rated on rated off").unwrap_err().starts_with("Say rated once."));
        assert!(
            read("/settings hint on").unwrap_err().starts_with("I don't know the setting 'hint': did you mean hints?")
        );
        assert!(read("/settings game").is_err());
        assert_eq!(
            read("/settings game Olympic Chess hints off"),
            Ok(SettingsChange { game: Some("olympic".into()), hints: Some(false), ..Default::default() })
        );
        assert_eq!(
            read("/settings game clash of the armies"),
            Ok(SettingsChange { game: Some("clash".into()), ..Default::default() })
        );
        assert!(changes_settings("/settings hints on", "k"));
        assert!(!changes_settings("/settings", "k"));
        assert!(!changes_settings("/settings hints", "k"));
        assert!(!changes_settings("hello", "k"));
    }

    #[test]
    fn offers_with_a_word() {
        assert_eq!(parse("/draw accept", "k"), Ok(Command::AcceptOffer(OfferChoice::Draw)));
        assert_eq!(parse("/draw No", "k"), Ok(Command::DeclineOffer(OfferChoice::Draw)));
        assert_eq!(parse("/takeback yes", "k"), Ok(Command::AcceptOffer(OfferChoice::Takeback)));
        assert_eq!(parse("/takeback withdraw", "k"), Ok(Command::CancelOffer(OfferChoice::Takeback)));
        assert_eq!(parse("/draw offer", "k"), Ok(Command::Draw));
        assert_eq!(parse("/draw vuaf", "k"), Ok(Command::Draw));
        assert_eq!(parse("/resign vuaf", "k"), Ok(Command::Resign));
        let said = parse("/draw maybe", "k").unwrap_err().to_string();
        assert!(
            said.starts_with("/draw offers one; /accept draw, /decline draw or /cancel draw answers one"),
            "{said}"
        );
        let said = parse("/withdraw", "k").unwrap_err().to_string();
        assert!(said.contains("Did you mean /cancel?"), "{said}");
    }

    #[test]
    fn commands() {
        assert_eq!(parse("/help", "kibitz"), Ok(Command::Help));
        assert_eq!(parse("!move e4", "kibitz"), Ok(Command::Move("e4".into())));
        assert_eq!(parse("/move@kibitz_bot Nf3", "kibitz_bot"), Ok(Command::Move("Nf3".into())));
        assert_eq!(parse("/MOVES e2", "k"), Ok(Command::Moves(Some("e2".into()))));
        assert_eq!(parse("/moves vuaf 2", "k"), Ok(Command::Moves(Some("vuaf 2".into()))));
        assert!(matches!(parse("/moves vuaf e2 3", "k"), Err(ParseError::Usage { command: "moves", .. })));
        assert_eq!(parse("/moves give rook d2", "k"), Ok(Command::Moves(Some("give rook d2".into()))));
        assert_eq!(
            parse("/moves vuaf Give rook moving half e2", "k"),
            Ok(Command::Moves(Some("vuaf Give rook moving half e2".into())))
        );
        assert_eq!(parse("/accept @alice", "k"), Ok(Command::Accept(Some("alice".into()))));
        assert_eq!(parse("hello", "k"), Err(ParseError::NotACommand));
        // A slash alone is answered; a chess player's `!!` or `!?` is chat.
        assert_eq!(
            parse(" / ", "k").unwrap_err().to_string(),
            "A command's word goes right after the slash: /help lists them all."
        );
        for chat in ["!", "!!", "!?", "! wow"] {
            assert_eq!(parse(chat, "k"), Err(ParseError::NotACommand), "{chat}");
        }
        assert_eq!(parse("!help", "k"), Ok(Command::Help));
        assert!(matches!(parse("/fly", "k"), Err(ParseError::Unknown { word, meant: None }) if word == "fly"));
        let mistyped = parse("/mvoe e4", "k").unwrap_err();
        assert_eq!(
            mistyped.to_string(),
            "I don't know the command /mvoe. Did you mean /move e4? /help lists every command."
        );
        let elsewhere = parse("/undo", "k").unwrap_err();
        assert_eq!(
            elsewhere.to_string(),
            "I don't know the command /undo. Did you mean /takeback? /help lists every command."
        );
        assert_eq!(parse("/fly", "k").unwrap_err().to_string(), "I don't know the command /fly. Try /help.");
        // The words after an unknown command go with the suggestion only if
        // the command it suggests takes them.
        let suggested = |text: &str| match parse(text, "k") {
            Err(ParseError::Unknown { meant, .. }) => meant,
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(suggested("/offer draw").as_deref(), Some("draw"));
        assert_eq!(suggested("/offer Takeback").as_deref(), Some("takeback"));
        assert_eq!(suggested("/offer").as_deref(), Some("draw"));
        assert_eq!(suggested("/undo 2").as_deref(), Some("takeback"));
        assert_eq!(suggested("/forfeit now").as_deref(), Some("resign"));
        assert_eq!(suggested("/forfeit yes").as_deref(), Some("resign yes"));
        assert_eq!(suggested("/legal e2").as_deref(), Some("moves e2"));
        assert_eq!(suggested("/chalenge @bob olympic").as_deref(), Some("challenge @bob olympic"));
        assert!(matches!(parse("/resign now", "k"), Err(ParseError::Usage { command: "resign", .. })));
        assert_eq!(parse("/resign", "k"), Ok(Command::Resign));
        assert_eq!(parse("/resign YES", "k"), Ok(Command::ResignConfirm(true)));
        assert_eq!(parse("!resign no", "k"), Ok(Command::ResignConfirm(false)));
        assert!(matches!(parse("/resign yes no", "k"), Err(ParseError::Usage { command: "resign", .. })));
        assert_eq!(parse("/accept alice", "k"), Ok(Command::AcceptNamed("alice".into())));
        assert_eq!(parse("/accept draw", "k"), Ok(Command::AcceptOffer(OfferChoice::Draw)));
        assert_eq!(parse("/cancel draw", "k"), Ok(Command::CancelOffer(OfferChoice::Draw)));
        assert_eq!(parse("/cancel", "k"), Ok(Command::Cancel));
        assert!(matches!(parse("/cancel now", "k"), Err(ParseError::Usage { command: "cancel", .. })));
        assert_eq!(parse("/accept Takeback", "k"), Ok(Command::AcceptOffer(OfferChoice::Takeback)));
        assert_eq!(parse("/decline Bob_T", "k"), Ok(Command::DeclineNamed("Bob_T".into())));
        assert_eq!(parse("/decline", "k"), Ok(Command::Decline(None)));
        assert_eq!(parse("/decline @bob", "k"), Ok(Command::Decline(Some("bob".into()))));
        assert_eq!(parse("/decline draw", "k"), Ok(Command::DeclineOffer(OfferChoice::Draw)));
        assert_eq!(parse("/decline Takeback", "k"), Ok(Command::DeclineOffer(OfferChoice::Takeback)));
        assert!(matches!(parse("/decline e-v", "k"), Err(ParseError::Usage { command: "decline", .. })));
        assert!(matches!(parse("/decline draw now", "k"), Err(ParseError::Usage { command: "decline", .. })));
        assert!(matches!(parse("/accept alice bob", "k"), Err(ParseError::Usage { command: "accept", .. })));
    }

    #[test]
    fn clash_commands() {
        assert_eq!(parse("/army", "k"), Ok(Command::Army));
        assert_eq!(parse("!buy knight", "k"), Ok(Command::Buy { piece: "knight".into(), square: None }));
        assert_eq!(parse("/buy N G1", "k"), Ok(Command::Buy { piece: "N".into(), square: Some("g1".into()) }));
        assert_eq!(
            parse("/buy war machine h1", "k"),
            Ok(Command::Buy { piece: "war machine".into(), square: Some("h1".into()) })
        );
        // A one-letter piece is a piece even where it could start a square.
        assert_eq!(parse("/buy b", "k"), Ok(Command::Buy { piece: "b".into(), square: None }));
        assert_eq!(parse("/sell b1", "k"), Ok(Command::Sell("b1".into())));
        assert_eq!(parse("/sell war machine", "k"), Ok(Command::Sell("war machine".into())));
        assert_eq!(parse("/place bishop f1", "k"), Ok(Command::Place { piece: "bishop".into(), square: "f1".into() }));
        assert_eq!(parse("/place c1 f1", "k"), Ok(Command::Place { piece: "c1".into(), square: "f1".into() }));
        assert!(matches!(parse("/place bishop", "k"), Err(ParseError::Usage { command: "place", .. })));
        assert!(matches!(parse("/buy", "k"), Err(ParseError::Usage { command: "buy", .. })));
        assert!(
            parse("/buy pawn a2 b2", "k")
                .unwrap_err()
                .to_string()
                .starts_with("One square at a time: /buy pawn a2, then /buy pawn b2.")
        );
        assert!(parse("/place d1 e1 f1", "k").unwrap_err().to_string().contains("/place PIECE d1"));
        assert!(matches!(parse("/place queen d1 e1", "k"), Ok(Command::Place { .. })));
        assert!(matches!(parse("/place d1 e1", "k"), Ok(Command::Place { .. })));
        assert_eq!(parse("/ready", "k"), Ok(Command::Ready));
        assert_eq!(parse("/bid 12.5", "k"), Ok(Command::Bid { amount: "12.5".into(), game: None }));
        assert_eq!(parse("/bid 12 abcd", "k"), Ok(Command::Bid { amount: "12".into(), game: Some("abcd".into()) }));
        assert_eq!(parse("/bid 10 gold", "k"), Ok(Command::Bid { amount: "10".into(), game: None }));
        assert_eq!(
            parse("/bid 10 Gold abcd", "k"),
            Ok(Command::Bid { amount: "10".into(), game: Some("abcd".into()) })
        );
        assert!(matches!(parse("/bid", "k"), Err(ParseError::Usage { command: "bid", .. })));
        assert_eq!(parse("!raise", "k"), Ok(Command::Raise));
        assert_eq!(parse("/pass", "k"), Ok(Command::Pass));
        assert!(matches!(parse("/ready now", "k"), Err(ParseError::Usage { command: "ready", .. })));
    }

    #[test]
    fn challenges() {
        let c = parse("/challenge @bob olympic black hints on days 3", "k").unwrap();
        assert_eq!(
            c,
            Command::Challenge(ChallengeSpec {
                opponent: Some("bob".into()),
                variant: Some("olympic".into()),
                colour: Some(ColourWish::Black),
                hints: Some(true),
                days: Some(3),
                days_off: false,
                rated: None,
                clock: None,
                level: None,
                named: None,
                handicap: None,
            })
        );
        // A slip in one of a challenge's words is pointed out; a word near
        // no word of ours is taken for a game, which the core looks up.
        let said = parse("/challenge @bob olympic whte", "k").unwrap_err().to_string();
        assert!(said.starts_with("I don't understand 'whte': did you mean white?"), "{said}");
        let said = parse("/challenge @bob hint on", "k").unwrap_err().to_string();
        assert!(said.starts_with("I don't understand 'hint': did you mean hints?"), "{said}");
        let Ok(Command::Challenge(c)) = parse("/challenge @bob olympc", "k") else { panic!() };
        assert_eq!(c.variant.as_deref(), Some("olympc"));
        let Ok(Command::Challenge(c)) = parse("/challenge @bob chess 10+5", "k") else { panic!() };
        assert_eq!((c.clock, c.variant.as_deref()), (Some((10, 5)), Some("chess")));
        let Ok(Command::Challenge(c)) = parse("/challenge 180+0", "k") else { panic!() };
        assert_eq!(c.clock, Some((180, 0)));
        for (bad, says) in [
            ("0+0", "1 to 180 minutes"),
            ("200+5", "1 to 180 minutes"),
            ("10+181", "0 to 180 seconds"),
            ("10+", "is no clock"),
            ("+5", "is no clock"),
            ("1.5+2", "is no clock"),
            ("10+5+1", "is no clock"),
        ] {
            let said = parse(&format!("/challenge @bob {bad}"), "k").unwrap_err().to_string();
            assert!(said.contains(says), "{bad}: {said}");
        }
        let said = parse("/challenge @bob days 3 10+5", "k").unwrap_err().to_string();
        assert!(said.contains("not both"), "{said}");
        assert_eq!(parse("/challenge", "k"), Ok(Command::Challenge(ChallengeSpec::default())));
        assert!(parse("/challenge days 0", "k").is_err());
        // The punctuation of a sentence after a mention is no part of the name.
        for text in ["/challenge @bob, chess", "/challenge @bob! chess", "/challenge @bob. chess"] {
            let Ok(Command::Challenge(c)) = parse(text, "k") else { panic!("{text}") };
            assert_eq!(c.opponent.as_deref(), Some("bob"), "{text}");
        }
        assert!(parse("/challenge @@bob", "k").is_err());
        assert!(parse("/challenge hints maybe", "k").is_err());
        // `lvl 3` is the level; `as black` and `colour white` the colour.
        let Ok(Command::Challenge(c)) = parse("/challenge @kibitz lvl 3", "k") else { panic!() };
        assert_eq!((c.level, c.named), (Some(3), None));
        let Ok(Command::Challenge(c)) = parse("/challenge @bob as black olympic", "k") else { panic!() };
        assert_eq!((c.colour, c.variant.as_deref()), (Some(ColourWish::Black), Some("olympic")));
        let Ok(Command::Challenge(c)) = parse("/challenge colour white", "k") else { panic!() };
        assert_eq!((c.colour, c.named), (Some(ColourWish::White), None));
        assert!(parse("/challenge chess olympic", "k").is_err());
        // A name without `@` is a player to find, unless it is a game.
        let Ok(Command::Challenge(c)) = parse("/challenge bob chess", "k") else { panic!() };
        assert_eq!((c.named.as_deref(), c.variant.as_deref(), c.opponent), (Some("bob"), Some("chess"), None));
        let Ok(Command::Challenge(c)) = parse("/challenge Olympic", "k") else { panic!() };
        assert_eq!((c.named, c.variant.as_deref()), (None, Some("olympic")));
        // PA7: handicaps per side, both in one clause; a colour after them
        // is the colour wish.
        let Ok(Command::Challenge(c)) = parse("/challenge @bob absorption handicap white plain black", "k") else {
            panic!()
        };
        assert_eq!(c.handicap.map(|h| h.to_string()).as_deref(), Some("White plain"));
        assert_eq!(c.colour, Some(ColourWish::Black));
        let text = "/challenge @kibitz absorption handicap white plain black nopawn noqueen level 8";
        let Ok(Command::Challenge(c)) = parse(text, "k") else { panic!() };
        assert_eq!(c.handicap.map(|h| h.to_string()).as_deref(), Some("White plain, Black nopawn noqueen"));
        assert_eq!((c.level, c.colour), (Some(8), None));
        for (text, says) in [
            ("/challenge absorption handicap white plan", "Handicap: 'plan' is not a handicap"),
            (
                "/challenge absorption handicap white plian",
                "Handicap: 'plian' is not a handicap: nopawn, noqueen or plain. Did you mean plain?",
            ),
            (
                "/challenge absorption handicap black noqeen",
                "Handicap: 'noqeen' is not a handicap: nopawn, noqueen or plain. Did you mean noqueen?",
            ),
            (
                "/challenge absorption handicap whte plain",
                "Handicap: a handicap names a colour and what it may not absorb, e.g. white plain or black nopawn noqueen. Did you mean white?",
            ),
            // A colour named with nothing after it is not pointed back to itself.
            (
                "/challenge absorption handicap white",
                "Handicap: a handicap names a colour and what it may not absorb, e.g. white plain or black nopawn noqueen. Usage",
            ),
            ("/challenge absorption handicap white nopawn white plain", "Handicap: White's handicap is named twice"),
            ("/challenge @bob level 3 level 5", "Say the level once"),
            ("/challenge @bob hints on hints off", "Say hints once"),
            ("/challenge @bob rated on rated off", "Say rated once"),
            ("/challenge @bob 10+5 5+3", "Say the clock once"),
            ("/challenge @bob days 3 days 4", "Say days once"),
            ("/challenge @bob chess olympic", "Name one game"),
            ("/challenge absorption handicap", "Handicap: a handicap names a colour"),
            ("/challenge absorption handicap plain", "Handicap: a handicap names a colour"),
            ("/challenge absorption handicap white plain handicap white nopawn", "Each side's handicap once"),
        ] {
            let said = parse(text, "k").unwrap_err().to_string();
            assert!(
                said.starts_with(says) && said.contains("[handicap COLOUR plain|nopawn|noqueen]"),
                "{text}: {said}"
            );
        }
        // A clause per side is one clause for both.
        let text = "/challenge @bob absorption handicap white nopawn handicap black noqueen";
        let Ok(Command::Challenge(c)) = parse(text, "k") else { panic!() };
        assert_eq!(c.handicap.map(|h| h.to_string()).as_deref(), Some("White nopawn, Black noqueen"));
        // Games by their names in words, days and clocks as people write them.
        for (text, variant) in [
            ("/challenge @bob alapawn balanced", "alapawn-balanced"),
            ("/challenge @bob Power Absorption white", "absorption"),
            ("/challenge @bob power absorption chess", "absorption"),
            ("/challenge @bob construction split", "construction-split"),
            ("/challenge @bob clash of the armies", "clash"),
            ("/challenge Olympic Chess", "olympic"),
        ] {
            let Ok(Command::Challenge(c)) = parse(text, "k") else { panic!("{text}") };
            assert_eq!(c.variant.as_deref(), Some(variant), "{text}");
        }
        let Ok(Command::Challenge(c)) = parse("/challenge @bob chess 3 days", "k") else { panic!() };
        assert_eq!(c.days, Some(3));
        // Over the channel's defaults: days off, rated on or off.
        let Ok(Command::Challenge(c)) = parse("/challenge @bob days off rated off", "k") else { panic!() };
        assert_eq!((c.days, c.days_off, c.rated), (None, true, Some(false)));
        let Ok(Command::Challenge(c)) = parse("/challenge @bob Rated ON", "k") else { panic!() };
        assert_eq!(c.rated, Some(true));
        assert!(
            parse("/challenge @bob rated maybe", "k")
                .unwrap_err()
                .to_string()
                .starts_with("Rated games take on or off.")
        );
        assert!(parse("/challenge @bob days off days 3", "k").is_err());
        for text in ["/challenge @bob 10 + 5", "/challenge @bob 10|5", "/challenge @bob 10+5"] {
            let Ok(Command::Challenge(c)) = parse(text, "k") else { panic!("{text}") };
            assert_eq!(c.clock, Some((10, 5)), "{text}");
        }
        assert!(parse("/challenge @bob 40 days", "k").unwrap_err().to_string().starts_with("Days take a number"));
        // Two colours contradict each other; the same one twice is the one.
        let said = parse("/challenge @bob chess white black", "k").unwrap_err().to_string();
        assert!(said.starts_with("One colour: white, black or random"), "{said}");
        let Ok(Command::Challenge(c)) = parse("/challenge @bob white white", "k") else { panic!() };
        assert_eq!(c.colour, Some(ColourWish::White));
        assert_eq!(parse("/rules construction split", "k"), Ok(Command::Rules(Some("construction-split".into()))));
        assert_eq!(parse("/rules Clash of the Armies", "k"), Ok(Command::Rules(Some("clash".into()))));
        assert!(parse("/rules chess olympic", "k").is_err());
        assert_eq!(parse("/help move", "k"), Ok(Command::HelpOn("move".into())));
        assert_eq!(parse("/help notation clash", "k"), Ok(Command::HelpOn("notation clash".into())));
        assert_eq!(parse("/prices", "k"), Ok(Command::Prices));
        assert_eq!(parse("/rematch", "k"), Ok(Command::Rematch(None)));
        assert_eq!(parse("/rematch vuaf", "k"), Ok(Command::Rematch(Some("vuaf".into()))));
        assert!(matches!(parse("/rematch a b", "k"), Err(ParseError::Usage { command: "rematch", .. })));
    }

    #[test]
    fn overlong_names_are_no_users_and_are_quoted_short() {
        let long = "x".repeat(100_000);
        for text in [format!("/challenge @{long}"), format!("/stats @{long}"), format!("/accept @{long}")] {
            let Err(e) = parse(&text, "k") else { panic!("{} was read", &text[..20]) };
            let said = e.to_string();
            assert!(said.contains("is not a user") && said.len() < 300, "{said}");
        }
        assert_eq!(parse("/stats Bob_T", "k"), Ok(Command::StatsNamed("Bob_T".into())));
        assert!(matches!(parse("/stats bob carol", "k"), Err(ParseError::Usage { command: "stats", .. })));
        let longest = format!("@{}", "y".repeat(ID_LIMIT));
        assert_eq!(parse(&format!("/stats {longest}"), "k"), Ok(Command::Stats(Some(longest[1..].to_string()))));
        let said = parse(&format!("/challenge chess {long}"), "k").unwrap_err().to_string();
        assert!(said.starts_with("I don't understand 'xxx") && said.len() < 300, "{said}");
    }
}
