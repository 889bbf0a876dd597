//! The chat core: a message in, replies out, in plain values that every
//! adapter shares.
//!
//! The core reads the command, checks it against the rules and the stored
//! game, changes the store in one atomic step, and answers. Mentions in reply
//! texts are written `<@ID>`; each adapter turns them into its platform's
//! mentions (the console prints `@ID`).
//!
//! Most answers go to the channel of the message. A few concern another
//! channel (a sealed bid sent privately is announced in its match's
//! channel): those wait in an outbox, [`Core::take_notices`], which the
//! adapters empty after each message and [`Core::tick`] empties too.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::time::Duration;

use kibitz_render::{BoardOptions, Caption, Renderer};
use kibitz_rules::{Color, Game, Move, Position, Square, Variant, search};
use kibitz_storage::{
    Challenge, ChannelKey, Colour, ColourChoice, GameEnd, GameId, GameRecord, GameSettings, MoveRecord, NewGame, Offer,
    OfferKind, Outcome, Store, StoreError, Timestamp,
};

use crate::command::{self, ChallengeSpec, ColourWish, Command, ParseError};

mod bounds;
mod clash;

pub use bounds::{CAPTION_LIMIT, CUT_NOTE, EXCERPT, REPLY_LIMIT, cut, excerpt, units};
use bounds::{listing, quoting};

/// Someone who writes to the bot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct User {
    /// The platform's stable id.
    pub id: String,
    /// A name to show.
    pub name: String,
}

/// A message the bot received.
#[derive(Debug, Clone)]
pub struct Incoming {
    /// `discord`, `telegram`, `console`.
    pub platform: String,
    /// The channel or chat id.
    pub channel: String,
    /// Who wrote it.
    pub sender: User,
    /// The text, with mentions written `@ID`.
    pub text: String,
    /// The platform's message id: a retried delivery applies once.
    pub message_id: Option<String>,
    /// When it was sent.
    pub at: Timestamp,
    /// Whether the channel is a private chat between the sender and the bot
    /// (a Telegram private chat, a Discord DM). Sealed bids come this way.
    pub private: bool,
}

/// A picture to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// A file name for it (`board-k3x9.png`).
    pub name: String,
    /// PNG bytes.
    pub png: Vec<u8>,
}

/// A button under a reply; pressing it sends `command` as its presser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Button {
    /// What the button says.
    pub label: String,
    /// The command it sends.
    pub command: String,
}

/// One answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The text; mentions are `<@ID>`.
    pub text: String,
    /// A picture, if any.
    pub picture: Option<Picture>,
    /// Buttons, if any.
    pub buttons: Vec<Button>,
}

impl Reply {
    fn text(text: impl Into<String>) -> Reply {
        Reply { text: text.into(), ..Reply::default() }
    }
}

/// Settings of the core.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    /// The bot's own name (for `/command@name` and challenges to the bot).
    pub bot_name: String,
    /// How long a hint may think.
    pub hint_time: Duration,
    /// How deep a hint may think (plies); the time limit usually comes first.
    pub hint_depth: u32,
    /// The variant of a challenge that names none, unless the channel says otherwise.
    pub default_variant: String,
    /// Width of the board's squares together in pictures.
    pub board_size: u32,
}

impl Default for CoreConfig {
    fn default() -> CoreConfig {
        CoreConfig {
            bot_name: "kibitz".into(),
            hint_time: Duration::from_millis(1000),
            hint_depth: 64,
            default_variant: "chess".into(),
            board_size: kibitz_render::DEFAULT_SIZE,
        }
    }
}

/// A refusal: the friendly sentence the player gets.
struct Refusal(String);

impl From<StoreError> for Refusal {
    fn from(e: StoreError) -> Refusal {
        if let StoreError::Database(_) = e {
            // The player's text names no system detail; the host's log has it.
            tracing::error!("the game store failed: {}", e.detail());
        }
        // The store's messages are lower-case clauses; make them sentences.
        let text = e.to_string();
        let mut chars = text.chars();
        let first = chars.next().map(|c| c.to_uppercase().collect::<String>()).unwrap_or_default();
        let stop = if text.ends_with(['.', '?', '!']) { "" } else { "." };
        Refusal(format!("{first}{}{stop}", chars.as_str()))
    }
}

type Answer = Result<Vec<Reply>, Refusal>;

/// The result of a store change, with a retried delivery of a message that
/// was applied already as `None`: it gets no second answer.
fn applied<T>(result: Result<T, StoreError>) -> Result<Option<T>, Refusal> {
    match result {
        Ok(v) => Ok(Some(v)),
        Err(StoreError::AlreadyApplied { .. }) => Ok(None),
        Err(StoreError::Conflict { .. }) => {
            refuse("The game changed while your message was on its way; look at /board and try again.")
        }
        Err(e) => Err(e.into()),
    }
}

/// `1 move`, `2 moves`.
fn count(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn refuse<T>(text: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal(text.into()))
}

fn mention(id: &str) -> String {
    format!("<@{id}>")
}

fn colour_of(c: Color) -> Colour {
    match c {
        Color::White => Colour::White,
        Color::Black => Colour::Black,
    }
}

/// The bot's user id on a platform whose adapter does not give one (the
/// console, tests): see [`Core::set_bot_id`].
pub const LOCAL_BOT_ID: &str = "kibitz";

/// The chat core.
pub struct Core {
    store: Store,
    config: CoreConfig,
    renderer: &'static Renderer,
    /// Names seen, by platform and id, for captions.
    names: Mutex<HashMap<(String, String), String>>,
    /// The bot's own user id on each platform, as its adapter said.
    bot_ids: Mutex<HashMap<String, String>>,
    /// Answers for other channels than the message's, until an adapter posts them.
    notices: Mutex<Vec<(ChannelKey, Reply)>>,
}

/// A stored game with its rules state rebuilt.
struct Loaded {
    record: GameRecord,
    /// The round being played; for a Clash match between rounds, the last
    /// round played (or the variant's start before the first): see `clash`.
    game: Game,
    /// The match, for a Clash of the Armies match.
    clash: Option<kibitz_rules::army::Match>,
}

impl Core {
    /// A core over a store.
    pub fn new(store: Store, config: CoreConfig) -> Core {
        Core {
            store,
            config,
            renderer: Renderer::shared(),
            names: Mutex::default(),
            bot_ids: Mutex::default(),
            notices: Mutex::default(),
        }
    }

    /// Takes the answers waiting for other channels of `platform` than the
    /// messages' own (an auction's result, announced in the match's channel
    /// when the last sealed bid came privately). Adapters post them after
    /// each message; [`Core::tick`] returns them too.
    pub fn take_notices(&self, platform: &str) -> Vec<(ChannelKey, Reply)> {
        let Ok(mut notices) = self.notices.lock() else { return Vec::new() };
        let (mine, others): (Vec<_>, Vec<_>) = notices.drain(..).partition(|(k, _)| k.platform == platform);
        *notices = others;
        bounded_notices(mine)
    }

    fn notify(&self, channel: ChannelKey, reply: Reply) {
        if let Ok(mut notices) = self.notices.lock() {
            notices.push((channel, reply));
        }
    }

    /// Tells the core the bot's own user id on `platform`: a challenge to
    /// that id is a game against the bot, and a player of that id is the
    /// bot. Adapters call this with the id the platform gave the bot (its
    /// Telegram user id, its Discord snowflake) once they know it. A
    /// platform whose adapter says nothing (the console, tests) knows the
    /// bot as [`LOCAL_BOT_ID`].
    pub fn set_bot_id(&self, platform: &str, id: &str) {
        if let Ok(mut ids) = self.bot_ids.lock() {
            ids.insert(platform.to_string(), id.to_string());
        }
    }

    /// The bot's user id on `platform`.
    pub fn bot_id(&self, platform: &str) -> String {
        self.bot_ids.lock().ok().and_then(|ids| ids.get(platform).cloned()).unwrap_or_else(|| LOCAL_BOT_ID.to_string())
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Answers one message. Never panics on any input; a message that is
    /// neither a command nor a move of the sender's game gets no answer.
    /// Every reply fits one message: its text is within [`REPLY_LIMIT`]
    /// units, or [`CAPTION_LIMIT`] with a picture.
    pub fn handle(&self, msg: &Incoming) -> Vec<Reply> {
        self.remember(&msg.platform, &msg.sender, msg.at);
        let answer = match command::parse(&msg.text, &self.config.bot_name) {
            Err(ParseError::NotACommand) => self.bare_move(msg),
            Err(e) => vec![Reply::text(e.to_string())],
            Ok(cmd) => self.run(msg, cmd).unwrap_or_else(|Refusal(text)| vec![Reply::text(text)]),
        };
        answer.into_iter().flat_map(bounds::bounded).collect()
    }

    /// Answers a message that may have been handled before without its
    /// answer reaching anyone: the bot stopped after the change was stored
    /// and before its replies were. Such a message is answered with what it
    /// did and the game as it stands ([`Core::recap`]); any other message as
    /// [`Core::handle`] answers it.
    pub fn handle_once(&self, msg: &Incoming) -> Vec<Reply> {
        self.recap(msg).unwrap_or_else(|| self.handle(msg))
    }

    /// What the message `msg` did, found in the game it changed: the moves
    /// it (and the bot after it) played, and the game as it stands. `None`
    /// when no game here records a change by it.
    pub fn recap(&self, msg: &Incoming) -> Option<Vec<Reply>> {
        let id = msg.message_id.as_deref()?;
        let channel = Self::channel(msg);
        let ours = |m: &str| m == id || m.strip_prefix(id).is_some_and(|rest| rest.starts_with(':'));
        let mut records: Vec<GameRecord> =
            self.store.games_in_channel(&channel).unwrap_or_default().into_iter().filter_map(|(_, g)| g.ok()).collect();
        if let Ok(done) = self.store.archived_games_of(&msg.platform, &msg.sender.id, 5) {
            records.extend(done.into_iter().filter(|(k, _)| k.channel == channel).filter_map(|(_, g)| g.ok()));
        }
        let record = records.into_iter().find(|g| g.applied_messages.iter().any(|m| ours(m)))?;
        let Ok(loaded) = self.load(record) else { return Some(Vec::new()) };
        let mut said = Vec::new();
        if let Some(v) = Variant::by_id(&loaded.record.variant)
            && let Ok(start) = Position::from_fen(v, &loaded.record.start_fen)
        {
            let mut game = Game::from_position(start);
            for m in &loaded.record.moves {
                let Some(mv) = game.legal_moves().into_iter().find(|x| game.position().canonical(x) == m.text) else {
                    break;
                };
                let Ok(played) = game.play(mv) else { break };
                if m.message_id.as_deref().is_some_and(ours) {
                    said.push(format!("{} played {}.", mention(&m.by), played.san));
                }
            }
        }
        let r = &loaded.record;
        let mut text = format!("Game {}: ", r.key.id.as_str());
        if !said.is_empty() {
            text.push_str(&said.join(" "));
            text.push(' ');
        }
        if let Some(res) = &r.result {
            let winner = match res.outcome {
                Outcome::WhiteWins => Some(Color::White),
                Outcome::BlackWins => Some(Color::Black),
                _ => None,
            };
            text.push_str(&result_words(r, winner, &res.reason));
        } else {
            text.push_str(&game_line(&loaded));
            text.push('.');
            if !clash::between_rounds(&loaded) && loaded.game.outcome().is_none() {
                let next = r.player(colour_of(loaded.game.position().turn())).to_string();
                if !self.is_bot(&msg.platform, &next) {
                    let _ = write!(text, " {}, your move.", mention(&next));
                }
            }
        }
        let view = match r.colour_of(&msg.sender.id) {
            Some(Colour::Black) => Color::Black,
            _ => Color::White,
        };
        Some(vec![self.shown(&loaded, view, text)])
    }

    /// Runs the correspondence clocks of `platform`'s games at time `now`: a
    /// player who has used three quarters of their days is reminded once; one
    /// who has used all of them loses on time. Returns the notices to post, by
    /// channel. Each adapter ticks its own platform, so no notice is lost.
    ///
    /// Only the games the store's clock index says are due are read
    /// ([`Store::due_games`]), so a tick costs what is due, not every game.
    pub fn tick(&self, now: Timestamp, platform: &str) -> Vec<(ChannelKey, Reply)> {
        let mut notices = self.take_notices(platform);
        let Ok(games) = self.store.due_games(now) else { return notices };
        for (key, record) in games.into_iter().filter(|(k, _)| k.channel.platform == platform) {
            let Ok(record) = record else { continue };
            if let Some(bot) = self.bot_color(&record) {
                if self.waits_for_player(&record, bot) {
                    continue;
                }
                // A game against the bot that waits for it (the bot was
                // stopped before it answered): it takes its turn now.
                if let Some(reply) = self.bot_catches_up(now, record) {
                    notices.push((key.channel.clone(), reply));
                }
                continue;
            }
            let Some(days) = record.settings.days_per_move else { continue };
            // A Clash round's clock starts with the round.
            let start = if record.clash.is_some() { record.updated_at } else { record.started_at };
            let since = record.moves.last().map_or(start, |m| m.at);
            let allowed = u64::from(days) * 86_400_000;
            let used = now.0.saturating_sub(since.0);
            let Ok(loaded) = self.load(record) else { continue };
            if clash::between_rounds(&loaded) {
                // Between rounds the clock runs for the player the match waits for.
                if let Some(text) = self.clock_between_rounds(now, &loaded, allowed) {
                    notices.push((key.channel.clone(), Reply::text(text)));
                }
                continue;
            }
            let turn = loaded.game.position().turn();
            let player = loaded.record.player(colour_of(turn)).to_string();
            if used >= allowed && loaded.clash.is_some() {
                let result = kibitz_rules::army::RoundResult::win(!turn, kibitz_rules::army::RoundEnd::Time);
                if let Ok(Some((_, words))) = self.end_round(now, None, &loaded, None, result) {
                    let text = format!("Game {}: {} ran out of time. {words}", key.id.as_str(), mention(&player));
                    notices.push((key.channel.clone(), Reply::text(text)));
                }
            } else if used >= allowed {
                let outcome = if turn == Color::White { Outcome::BlackWins } else { Outcome::WhiteWins };
                let end = GameEnd { outcome, reason: "time".into(), at: now, message_id: None };
                if let Ok(r) = self.store.finish_game(&key, loaded.record.version, &end) {
                    let words = result_words(&r, Some(!turn), "time");
                    let text = format!("Game {}: {} ran out of time. {words}", key.id.as_str(), mention(&player));
                    notices.push((key.channel.clone(), Reply::text(text)));
                }
            } else if used >= allowed / 4 * 3 && loaded.record.reminded_at.is_none() {
                let reminded = self.store.update_game(&key, loaded.record.version, None, |g| {
                    g.reminded_at = Some(now);
                    Ok(())
                });
                if reminded.is_ok() {
                    let hours = (allowed - used).div_ceil(3_600_000);
                    let text = format!(
                        "{}, it is your move in game {}: {} left before you lose on time.",
                        mention(&player),
                        key.id.as_str(),
                        count(hours as usize, "hour")
                    );
                    notices.push((key.channel.clone(), Reply::text(text)));
                }
            }
        }
        bounded_notices(notices)
    }

    fn remember(&self, platform: &str, user: &User, at: Timestamp) {
        if let Ok(mut names) = self.names.lock() {
            names.insert((platform.to_string(), user.id.clone()), user.name.clone());
        }
        // In the directory too, for captions after a restart; a failure
        // to write it costs a caption its name, nothing else.
        if let Err(e) = self.store.note_name(platform, &user.id, &user.name, at) {
            tracing::warn!("could not note the name of {} on {platform}: {e}", user.id);
        }
    }

    /// The name to show for player `id`: from the directory, else as seen
    /// since the start, else the id.
    fn name(&self, platform: &str, id: &str) -> String {
        if let Ok(Some(user)) = self.store.user(platform, id) {
            return user.name;
        }
        self.names
            .lock()
            .ok()
            .and_then(|n| n.get(&(platform.to_string(), id.to_string())).cloned())
            .unwrap_or_else(|| id.to_string())
    }

    fn run(&self, msg: &Incoming, cmd: Command) -> Answer {
        match cmd {
            Command::Help => Ok(vec![Reply::text(help())]),
            Command::Variants => Ok(vec![Reply::text(variants())]),
            Command::Rules(v) => self.rules(msg, v.as_deref()),
            Command::Piece(name) => self.piece(msg, &name),
            Command::Challenge(spec) => self.challenge(msg, spec),
            Command::Accept(who) => self.accept(msg, who.as_deref()),
            Command::Decline(who) => self.decline(msg, who.as_deref()),
            Command::Cancel => self.cancel(msg),
            Command::Move(text) => self.play(msg, &text),
            Command::Board(id) => self.board(msg, id.as_deref()),
            Command::Moves(square) => self.moves(msg, square.as_deref()),
            Command::Hint => self.hint(msg),
            Command::Resign => self.resign(msg),
            Command::Draw => self.draw(msg),
            Command::Takeback => self.takeback(msg),
            Command::Abort => self.abort(msg),
            Command::Games => self.games(msg),
            Command::Pgn(id) => self.pgn(msg, id.as_deref()),
            Command::Fen(id) => self.fen(msg, id.as_deref()),
            Command::Stats(who) => self.stats(msg, who.as_deref()),
            Command::Leaderboard(v) => self.leaderboard(msg, v.as_deref()),
            Command::Army => self.army(msg),
            Command::Buy { piece, square } => self.buy(msg, &piece, square.as_deref()),
            Command::Sell(what) => self.sell(msg, &what),
            Command::Place { piece, square } => self.place(msg, &piece, &square),
            Command::Ready => self.ready(msg),
            Command::Bid { amount, game } => self.bid(msg, &amount, game.as_deref()),
            Command::Raise => self.raise(msg),
            Command::Pass => self.pass(msg),
        }
    }

    fn channel(msg: &Incoming) -> ChannelKey {
        ChannelKey::new(msg.platform.clone(), msg.channel.clone())
    }

    // ---- looking things up ----

    fn variant(&self, id: &str) -> Result<&'static Variant, Refusal> {
        Variant::by_id(id).ok_or_else(|| {
            let ids: Vec<&str> = kibitz_rules::VARIANTS.iter().map(|v| v.id).collect();
            Refusal(format!("I don't play '{}'. I play {}.", excerpt(id), ids.join(", ")))
        })
    }

    fn load(&self, record: GameRecord) -> Result<Loaded, Refusal> {
        let broken = || Refusal(format!("Game {} cannot be read back; it is kept as it is.", record.key.id.as_str()));
        let variant = Variant::by_id(&record.variant).ok_or_else(broken)?;
        let start = Position::from_fen(variant, &record.start_fen).map_err(|_| broken())?;
        let mut game = Game::from_position(start);
        for m in &record.moves {
            let mv = game.legal_moves().into_iter().find(|x| game.position().canonical(x) == m.text);
            game.play(mv.ok_or_else(broken)?).map_err(|_| broken())?;
        }
        let clash = clash::match_of(&record).map_err(|_| broken())?;
        Ok(Loaded { record, game, clash })
    }

    /// The sender's game here, or the named one, or the only one here.
    fn find_game(&self, msg: &Incoming, id: Option<&str>) -> Result<Loaded, Refusal> {
        let channel = Self::channel(msg);
        if let Some(id) = id {
            let gid = GameId::parse(id).map_err(|_| Refusal(format!("'{}' is not a game id.", excerpt(id))))?;
            let key = channel.game(gid);
            let record = match self.store.game(&key) {
                Err(StoreError::GameOver(_)) => self.store.archived_game(&key)?,
                other => other?,
            };
            return self.load(record);
        }
        if let Some(record) = self.store.player_game_in_channel(&channel, &msg.sender.id)? {
            return self.load(record);
        }
        let here: Vec<GameRecord> =
            self.store.games_in_channel(&channel)?.into_iter().filter_map(|(_, g)| g.ok()).collect();
        match here.as_slice() {
            // The sender's last game here, just finished, can still be shown.
            [] => match self.store.archived_games_of(&msg.platform, &msg.sender.id, 1)?.into_iter().next() {
                Some((key, Ok(record))) if key.channel == channel => self.load(record),
                _ => refuse("There is no game here. Start one with /challenge @friend."),
            },
            [only] => self.load(only.clone()),
            many => {
                let ids: Vec<String> = many.iter().map(|g| g.key.id.as_str().to_string()).collect();
                refuse(format!("Several games run here; name one: {}.", ids.join(", ")))
            }
        }
    }

    /// The sender's own game here.
    fn own_game(&self, msg: &Incoming) -> Result<Loaded, Refusal> {
        match self.store.player_game_in_channel(&Self::channel(msg), &msg.sender.id)? {
            Some(record) => self.load(record),
            None => refuse("You have no game here. Start one with /challenge @friend."),
        }
    }

    // ---- pictures ----

    fn picture(&self, loaded: &Loaded, from: Color, extra: impl FnOnce(&mut BoardOptions)) -> Option<Picture> {
        let pos = loaded.game.position();
        let r = &loaded.record;
        let last = loaded.game.moves().last().map(|m| (m.from(), m.to()));
        let platform = &r.key.channel.platform;
        let status = status_line(loaded);
        let mut opts = BoardOptions {
            size: Some(self.config.board_size),
            flip: from == Color::Black,
            last_move: last,
            caption: Some(Caption {
                white: self.name(platform, &r.white),
                black: self.name(platform, &r.black),
                status,
            }),
            ..BoardOptions::default()
        };
        extra(&mut opts);
        let png = self.renderer.board_png(pos, &opts).ok()?;
        Some(Picture { name: format!("board-{}-{}.png", r.key.id.as_str(), r.moves.len()), png })
    }

    fn game_buttons(&self, loaded: &Loaded) -> Vec<Button> {
        if loaded.game.outcome().is_some() || loaded.record.result.is_some() || clash::between_rounds(loaded) {
            return Vec::new();
        }
        let mut b = vec![Button { label: "Resign".into(), command: "/resign".into() }];
        // CA14: no draw offers in a Clash match's ultimate round.
        if loaded.clash.as_ref().is_none_or(|m| m.draw_allowed()) {
            b.push(Button { label: "Offer draw".into(), command: "/draw".into() });
        }
        if loaded.record.settings.hints_allowed {
            b.push(Button { label: "Hint".into(), command: "/hint".into() });
        }
        b
    }

    // ---- commands ----

    fn rules(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        let id = match id {
            Some(id) => id.to_string(),
            None => self
                .store
                .channel_settings(&Self::channel(msg))?
                .default_variant
                .unwrap_or(self.config.default_variant.clone()),
        };
        let v = self.variant(&id)?;
        let legend = self.renderer.legend_png(v).ok().map(|png| Picture { name: format!("legend-{}.png", v.id), png });
        Ok(vec![Reply { text: format!("{}: {}", v.name, summary(v)), picture: legend, buttons: Vec::new() }])
    }

    fn piece(&self, msg: &Incoming, text: &str) -> Answer {
        // `piece [VARIANT] NAME`; without a variant, the sender's game's, then any.
        let words: Vec<&str> = text.split_whitespace().collect();
        let (variants, name): (Vec<&'static Variant>, String) = match words.as_slice() {
            [v, rest @ ..] if !rest.is_empty() && Variant::by_id(v).is_some() => {
                (vec![Variant::by_id(v).unwrap_or(&kibitz_rules::CHESS)], rest.join(" "))
            }
            _ => {
                let mut list = Vec::new();
                if let Ok(Some(r)) = self.store.player_game_in_channel(&Self::channel(msg), &msg.sender.id)
                    && let Some(v) = Variant::by_id(&r.variant)
                {
                    list.push(v);
                }
                list.extend(kibitz_rules::VARIANTS.iter().copied());
                (list, text.to_string())
            }
        };
        for v in variants {
            let found = v.pieces.iter().position(|p| {
                p.name.eq_ignore_ascii_case(&name)
                    || (name.len() == 1 && p.letter.to_string().eq_ignore_ascii_case(&name))
            });
            if let Some(i) = found {
                let pt = v.pieces[i];
                let png = self.renderer.diagram_png(v, i as u8).and_then(Result::ok);
                let picture =
                    png.map(|png| Picture { name: format!("piece-{}-{}.png", v.id, pt.name.to_lowercase()), png });
                return Ok(vec![Reply {
                    text: format!("{} ({}, {}): {}", pt.name, pt.letter, v.name, piece_words(v, pt.name)),
                    picture,
                    buttons: Vec::new(),
                }]);
            }
        }
        refuse(format!("I know no piece called '{}'. Try /rules VARIANT to see the pieces.", excerpt(&name)))
    }

    fn challenge(&self, msg: &Incoming, spec: ChallengeSpec) -> Answer {
        let channel = Self::channel(msg);
        let me = &msg.sender.id;
        if spec.opponent.as_ref() == Some(me) {
            return refuse(
                "You cannot challenge yourself. Challenge a friend, or leave out the name for an open challenge.",
            );
        }
        if spec.level.is_some() && !spec.opponent.as_deref().is_some_and(|o| self.is_bot(&msg.platform, o)) {
            let me = mention(&self.bot_id(&msg.platform));
            return refuse(format!("A level is for games against me: /challenge {me} level 5."));
        }
        if self.store.player_game_in_channel(&channel, me)?.is_some() {
            return refuse("You are already playing here. Finish that game first (/board shows it).");
        }
        let settings_here = self.store.channel_settings(&channel)?;
        let id = spec
            .variant
            .clone()
            .or(settings_here.default_variant.clone())
            .unwrap_or(self.config.default_variant.clone());
        let v = self.variant(&id)?;
        let colour = match spec.colour.unwrap_or(ColourWish::Random) {
            ColourWish::White => ColourChoice::White,
            ColourWish::Black => ColourChoice::Black,
            ColourWish::Random => ColourChoice::Random,
        };
        let settings = GameSettings {
            rated: settings_here.rated,
            hints_allowed: spec.hints.unwrap_or(settings_here.hints_allowed),
            days_per_move: spec.days.or(settings_here.days_per_move),
            bot_level: None,
        };
        let clash = v.id == kibitz_rules::CLASH.id;
        if spec.opponent.as_deref().is_some_and(|o| self.is_bot(&msg.platform, o)) {
            let settings = GameSettings {
                rated: false,
                days_per_move: None,
                bot_level: Some(spec.level.unwrap_or(5)),
                ..settings
            };
            let bot = spec.opponent.clone().unwrap_or_else(|| self.bot_id(&msg.platform));
            return self.play_the_bot(msg, v, colour, settings, bot);
        }
        let challenge = Challenge {
            challenger: me.clone(),
            challenged: spec.opponent.clone(),
            variant: v.id.to_string(),
            colour,
            settings: settings.clone(),
            clash,
            at: msg.at,
        };
        // One open challenge a player per channel: a new one replaces the old.
        let replaced = self.store.challenge(&channel, me)?.map(|old| match old.challenged {
            Some(o) => format!(" (This replaces your challenge to {}.)", mention(&o)),
            None => " (This replaces your open challenge.)".to_string(),
        });
        self.store.create_challenge(&channel, &challenge)?;
        let side = match colour {
            ColourChoice::White => "playing White",
            ColourChoice::Black => "playing Black",
            ColourChoice::Random => "colours by lot",
        };
        let mut extras = Vec::new();
        if settings.hints_allowed {
            extras.push("hints on".to_string());
        }
        if let Some(d) = settings.days_per_move {
            extras.push(format!("{} per move", count(d as usize, "day")));
        }
        let extras = if extras.is_empty() { String::new() } else { format!(", {}", extras.join(", ")) };
        let what = if clash { format!("a match of {}", v.name) } else { v.name.to_string() };
        let (text, accept) = match &spec.opponent {
            Some(o) => (
                format!(
                    "{} challenges {} to {what} ({side}{extras}). {}: /accept or /decline.",
                    mention(me),
                    mention(o),
                    mention(o)
                ),
                format!("/accept @{me}"),
            ),
            None => (
                format!(
                    "{} opens a challenge: {what} ({side}{extras}). Anyone may /accept {}.",
                    mention(me),
                    mention(me)
                ),
                format!("/accept @{me}"),
            ),
        };
        let text = text + replaced.as_deref().unwrap_or("");
        let mut buttons = vec![Button { label: "Accept".into(), command: accept }];
        if spec.opponent.is_some() {
            buttons.push(Button { label: "Decline".into(), command: format!("/decline @{me}") });
        }
        Ok(vec![Reply { text, picture: None, buttons }])
    }

    /// The challenge a command means: the named challenger's, else the one
    /// addressed to the sender, else the only open one.
    fn challenge_for(&self, msg: &Incoming, who: Option<&str>) -> Result<Challenge, Refusal> {
        let channel = Self::channel(msg);
        if let Some(who) = who {
            return match self.store.challenge(&channel, who)? {
                Some(c) => Ok(c),
                None => refuse(format!("{} has no challenge open here.", mention(who))),
            };
        }
        let all: Vec<Challenge> = self.store.challenges(&channel)?.into_iter().filter_map(|(_, c)| c.ok()).collect();
        let mine: Vec<&Challenge> =
            all.iter().filter(|c| c.challenged.as_deref() == Some(msg.sender.id.as_str())).collect();
        let open: Vec<&Challenge> =
            all.iter().filter(|c| c.challenged.is_none() && c.challenger != msg.sender.id).collect();
        match (mine.as_slice(), open.as_slice()) {
            ([one], _) => Ok((*one).clone()),
            ([], [one]) => Ok((*one).clone()),
            ([], []) => refuse("There is no challenge for you here. Start one with /challenge @friend."),
            (list, _) if !list.is_empty() => refuse(format!(
                "Several players challenge you; name one: {}.",
                list.iter().map(|c| mention(&c.challenger)).collect::<Vec<_>>().join(", ")
            )),
            (_, list) => refuse(format!(
                "Several challenges are open; name one: {}.",
                list.iter().map(|c| mention(&c.challenger)).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// Whether player `id` on `platform` is the bot: by its user id, never
    /// by a name (which a human could take).
    fn is_bot(&self, platform: &str, id: &str) -> bool {
        id == self.bot_id(platform)
    }

    /// A game against the bot starts at once; if the bot has White, it moves.
    /// `bot` is the id the player named the bot by, so that mentions of it
    /// work on the player's platform.
    fn play_the_bot(
        &self,
        msg: &Incoming,
        v: &'static Variant,
        colour: ColourChoice,
        settings: GameSettings,
        bot: String,
    ) -> Answer {
        let me = msg.sender.id.clone();
        let me_white = match colour {
            ColourChoice::White => true,
            ColourChoice::Black => false,
            ColourChoice::Random => fastrand::bool(),
        };
        let (white, black) = if me_white { (me, bot) } else { (bot, me) };
        let level = settings.bot_level.unwrap_or(5);
        let clash = v.id == kibitz_rules::CLASH.id;
        let new = NewGame {
            variant: v.id.to_string(),
            white,
            black,
            settings,
            start_fen: v.start_fen.to_string(),
            at: msg.at,
            clash: clash.then(kibitz_storage::ClashMatch::default),
        };
        let record = self.store.create_game(&Self::channel(msg), &new)?;
        let mut loaded = self.load(record)?;
        let r = &loaded.record;
        let what = if clash { format!("a match of {}", v.name) } else { v.name.to_string() };
        let mut text = format!(
            "Game {}: {} (White) vs {} (Black), {what}, me at level {level}.",
            r.key.id.as_str(),
            mention(&r.white),
            mention(&r.black),
        );
        if clash {
            text.pop();
            let _ = write!(text, ": {}", clash::match_rules_line());
        } else if me_white {
            let _ = write!(text, " {} moves first.", mention(&loaded.record.white));
        }
        loaded = self.with_bot(msg, loaded, &mut text);
        if clash && me_white {
            let _ = write!(text, " {}, you set up first: {}", mention(&loaded.record.white), clash::ARMY_HELP);
        }
        let view = if me_white { Color::White } else { Color::Black };
        Ok(vec![self.shown(&loaded, view, text)])
    }

    /// Whether a game against the bot plainly waits for the player: a
    /// board (not a Clash match) whose position has the player to move.
    /// Read from the position alone, without replaying the game, so that
    /// the clock tick passes over such games cheaply.
    fn waits_for_player(&self, r: &GameRecord, bot: Color) -> bool {
        r.clash.is_none()
            && Variant::by_id(&r.variant)
                .and_then(|v| Position::from_fen(v, &r.fen).ok())
                .is_some_and(|p| p.turn() != bot)
    }

    /// The colour the bot plays in `r`, if it plays there.
    fn bot_color(&self, r: &GameRecord) -> Option<Color> {
        if r.settings.bot_level.is_none() {
            None
        } else if self.is_bot(&r.key.channel.platform, &r.white) {
            Some(Color::White)
        } else if self.is_bot(&r.key.channel.platform, &r.black) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The bot's part in a game against it, for as long as the game waits
    /// for it: its move, and in a Clash match its army phases, its sealed
    /// bid and its raises (and the moves that start the rounds it opens).
    /// Returns the game after it and what it did, one sentence each.
    /// `message_id` is the message that set it going.
    ///
    /// A step that fails (the game changed meanwhile) ends the bot's turns
    /// with a sentence saying so; the clock tick tries again later.
    fn bot_turns(&self, at: Timestamp, message_id: Option<&str>, mut loaded: Loaded) -> (Loaded, Vec<String>) {
        let mut said = Vec::new();
        // Each step moves the game on; one message sets off a handful at most.
        for step in 0..64 {
            let Some(bot) = self.bot_color(&loaded.record) else { break };
            if loaded.record.result.is_some() {
                break;
            }
            let id = message_id.map(|m| if step == 0 { format!("{m}:bot") } else { format!("{m}:bot{step}") });
            let next = if clash::between_rounds(&loaded) {
                self.bot_between_rounds(at, &loaded, bot)
            } else if loaded.game.position().turn() == bot && loaded.game.outcome().is_none() {
                self.bot_moves(at, id.as_deref(), &loaded)
            } else {
                Ok(None)
            };
            match next {
                Ok(Some((after, words))) => {
                    loaded = after;
                    said.push(words);
                }
                Ok(None) => break,
                Err(Refusal(why)) => {
                    said.push(format!("(I could not take my turn just now: {why} I will try again shortly.)"));
                    break;
                }
            }
        }
        (loaded, said)
    }

    /// The bot plays its move in `loaded` (its turn); returns the game after
    /// it and what to say, `None` if it has no move.
    fn bot_moves(
        &self,
        at: Timestamp,
        message_id: Option<&str>,
        loaded: &Loaded,
    ) -> Result<Option<(Loaded, String)>, Refusal> {
        let pos = loaded.game.position();
        let bot = loaded.record.player(colour_of(pos.turn())).to_string();
        let level = loaded.record.settings.bot_level.unwrap_or(5);
        let mut engine = search::Engine::new(8);
        let seed = pos.hash() ^ loaded.record.moves.len() as u64;
        let Some(m) = search::level_move(&mut engine, pos, level, self.config.hint_time, seed) else {
            return Ok(None);
        };
        let mut game = loaded.game.clone();
        let played = game.play(m).map_err(|e| Refusal(format!("{e}.")))?;
        let record = MoveRecord {
            text: played.canonical.clone(),
            by: bot.clone(),
            at,
            message_id: message_id.map(str::to_string),
        };
        if loaded.clash.is_some()
            && let Some(outcome) = played.outcome
        {
            // The bot's move ends a round of the match.
            return self.round_ending_move(at, message_id, &bot, loaded, &game, record, &played, outcome);
        }
        let fen = game.position().fen();
        let Some(stored) = applied(self.store.apply_move(&loaded.record.key, loaded.record.version, record, &fen))?
        else {
            return Ok(None);
        };
        let mut after = Loaded { record: stored, game, clash: loaded.clash.clone() };
        let text = self.after_move(at, message_id, &mut after, &bot, &played);
        Ok(Some((after, text)))
    }

    /// The bot's turns in a game against it that has waited for it a
    /// minute or more, with what it did; `None` when it waits for the player
    /// (or was just changed: the bot is answering the message that changed it).
    fn bot_catches_up(&self, now: Timestamp, record: GameRecord) -> Option<Reply> {
        if now.0.saturating_sub(record.updated_at.0) < 60_000 {
            return None;
        }
        let loaded = self.load(record).ok()?;
        let bot = self.bot_color(&loaded.record)?;
        let (after, words) = self.bot_turns(now, None, loaded);
        if words.is_empty() {
            return None;
        }
        let text = format!("Game {}: {}", after.record.key.id.as_str(), words.join(" "));
        Some(self.shown(&after, !bot, text))
    }

    /// [`Core::bot_turns`] after a player's message, with what the bot did
    /// added to `text`.
    fn with_bot(&self, msg: &Incoming, loaded: Loaded, text: &mut String) -> Loaded {
        let (after, words) = self.bot_turns(msg.at, msg.message_id.as_deref(), loaded);
        for w in words {
            text.push(' ');
            text.push_str(&w);
        }
        after
    }

    /// The answer that shows a game against the bot after the bot's turns:
    /// the board from `view`'s side, or between the rounds of a match the
    /// armies.
    fn shown(&self, loaded: &Loaded, view: Color, text: String) -> Reply {
        if let Some(m) = loaded.clash.as_ref().filter(|_| clash::between_rounds(loaded)) {
            return Reply { text, picture: self.army_picture(&loaded.record, m, view), buttons: Vec::new() };
        }
        Reply { text, picture: self.picture(loaded, view, |_| {}), buttons: self.game_buttons(loaded) }
    }

    fn accept(&self, msg: &Incoming, who: Option<&str>) -> Answer {
        let channel = Self::channel(msg);
        let challenge = self.challenge_for(msg, who)?;
        if challenge.challenger == msg.sender.id {
            return refuse("That is your own challenge; wait for someone to accept it, or /cancel it.");
        }
        if let Some(c) = &challenge.challenged
            && c != &msg.sender.id
        {
            return refuse(format!("That challenge is for {}, not for you.", mention(c)));
        }
        if self.store.player_game_in_channel(&channel, &msg.sender.id)?.is_some() {
            return refuse("You are already playing here. Finish that game first.");
        }
        let v = self.variant(&challenge.variant)?;
        let record =
            self.store.accept_challenge(&channel, &challenge.challenger, &msg.sender.id, v.start_fen, msg.at)?;
        let loaded = self.load(record)?;
        if loaded.clash.is_some() {
            return Ok(vec![Reply::text(clash::match_begins(&loaded.record))]);
        }
        let r = &loaded.record;
        let mut text = format!(
            "Game {}: {} (White) vs {} (Black), {}.",
            r.key.id.as_str(),
            mention(&r.white),
            mention(&r.black),
            v.name
        );
        let _ = write!(text, " {} moves first.", mention(&r.white));
        let picture = self.picture(&loaded, Color::White, |_| {});
        Ok(vec![Reply { text, picture, buttons: self.game_buttons(&loaded) }])
    }

    fn decline(&self, msg: &Incoming, who: Option<&str>) -> Answer {
        let channel = Self::channel(msg);
        let challenge = self.challenge_for(msg, who)?;
        if challenge.challenged.as_deref() != Some(msg.sender.id.as_str()) {
            return refuse("Only the challenged player can decline; an open challenge simply waits.");
        }
        self.store.withdraw_challenge(&channel, &challenge.challenger)?;
        Ok(vec![Reply::text(format!(
            "{} declines the challenge of {}.",
            mention(&msg.sender.id),
            mention(&challenge.challenger)
        ))])
    }

    fn cancel(&self, msg: &Incoming) -> Answer {
        let channel = Self::channel(msg);
        if self.store.challenge(&channel, &msg.sender.id)?.is_none() {
            return refuse("You have no challenge open here.");
        }
        self.store.withdraw_challenge(&channel, &msg.sender.id)?;
        Ok(vec![Reply::text(format!("{} withdraws the challenge.", mention(&msg.sender.id)))])
    }

    /// A message that is not a command: a move, if it is a legal move of the
    /// sender's game here; otherwise nothing.
    fn bare_move(&self, msg: &Incoming) -> Vec<Reply> {
        let text = msg.text.trim();
        // A move is a word or a few (`Bxc6 keep`, `give rook e2`).
        if text.is_empty() || text.len() > 20 || text.split_whitespace().count() > 3 {
            return Vec::new();
        }
        let Ok(loaded) = self.own_game(msg) else { return Vec::new() };
        if clash::between_rounds(&loaded) {
            return Vec::new();
        }
        let my_turn = loaded.record.colour_of(&msg.sender.id) == Some(colour_of(loaded.game.position().turn()));
        if !my_turn || loaded.game.position().parse_move(text).is_err() {
            return Vec::new();
        }
        self.play(msg, text).unwrap_or_else(|Refusal(t)| vec![Reply::text(t)])
    }

    fn play(&self, msg: &Incoming, text: &str) -> Answer {
        let loaded = self.own_game(msg)?;
        clash::check_round(&loaded)?;
        let to_move = loaded.game.position().turn();
        let mover = loaded.record.player(colour_of(to_move)).to_string();
        if mover != msg.sender.id {
            return refuse(format!("It is not your turn: {} is to move.", mention(&mover)));
        }
        if let Some(late) = self.too_late(msg, &loaded, to_move)? {
            return Ok(late);
        }
        let mut game = loaded.game.clone();
        let played = match game.play_text(text) {
            Ok(p) => p,
            Err(e) => return refuse(quoting(&format!("{e}."), text)),
        };
        let record = MoveRecord {
            text: played.canonical.clone(),
            by: msg.sender.id.clone(),
            at: msg.at,
            message_id: msg.message_id.clone(),
        };
        if loaded.clash.is_some()
            && let Some(outcome) = played.outcome
        {
            // The move ends a round of a Clash match: move and round end are one change.
            return self.move_ends_round(msg, &loaded, &game, record, &played, outcome);
        }
        let fen = game.position().fen();
        let Some(stored) = applied(self.store.apply_move(&loaded.record.key, loaded.record.version, record, &fen))?
        else {
            return Ok(Vec::new());
        };
        let mut after = Loaded { record: stored, game, clash: loaded.clash };
        let mut text = self.after_move(msg.at, msg.message_id.as_deref(), &mut after, &msg.sender.id, &played);
        let mut view = after.game.position().turn();
        if after.record.settings.bot_level.is_some() {
            // Against the bot: it answers at once, and the board stays on the player's side.
            view = to_move;
            after = self.with_bot(msg, after, &mut text);
            if clash::between_rounds(&after) {
                // The bot's move ended a round: its final position.
                return Ok(vec![Reply { text, picture: self.round_picture(&after, view), buttons: Vec::new() }]);
            }
        }
        Ok(vec![self.shown(&after, view, text)])
    }

    /// A correspondence move judged by when it was sent: one sent after the
    /// mover's days ran out loses on time, as the clock would have judged it
    /// at the deadline (the bot may have been down then, or the message held
    /// up). Clash rounds are left to the clock's tick.
    fn too_late(&self, msg: &Incoming, loaded: &Loaded, to_move: Color) -> Result<Option<Vec<Reply>>, Refusal> {
        let r = &loaded.record;
        let Some(days) = r.settings.days_per_move.filter(|_| r.clash.is_none()) else { return Ok(None) };
        let since = r.moves.last().map_or(r.started_at, |m| m.at);
        let deadline = Timestamp(since.0.saturating_add(u64::from(days) * 86_400_000));
        if msg.at < deadline {
            return Ok(None);
        }
        let outcome = if to_move == Color::White { Outcome::BlackWins } else { Outcome::WhiteWins };
        let end = GameEnd { outcome, reason: "time".into(), at: deadline, message_id: msg.message_id.clone() };
        let Some(finished) = applied(self.store.finish_game(&r.key, r.version, &end))? else {
            return Ok(Some(Vec::new()));
        };
        let words = result_words(&finished, Some(!to_move), "time");
        let text = format!(
            "Game {}: your move came after your time ran out ({} per move); {} ran out of time. {words}",
            r.key.id.as_str(),
            count(days as usize, "day"),
            mention(&msg.sender.id)
        );
        Ok(Some(vec![Reply::text(text)]))
    }

    /// What to say after `mover` played: the move, removals, and the result
    /// (the game is then finished in the store) or who moves next.
    fn after_move(
        &self,
        at: Timestamp,
        message_id: Option<&str>,
        after: &mut Loaded,
        mover: &str,
        played: &kibitz_rules::Played,
    ) -> String {
        let mut text = if played.san == played.canonical {
            format!("{} played {}.", mention(mover), played.san)
        } else {
            format!("{} played {} ({}).", mention(mover), played.san, played.canonical)
        };
        for (sq, p) in &played.removed {
            let _ = write!(text, " A5: the piece on {sq} ({}) is removed.", after.game.position().letter(*p));
        }
        if let Some(outcome) = played.outcome {
            let end = GameEnd {
                outcome: outcome_of(outcome.winner),
                reason: outcome.reason.to_string(),
                at,
                message_id: message_id.map(|m| format!("{m}:end:{mover}")),
            };
            if let Ok(r) = self.store.finish_game(&after.record.key, after.record.version, &end) {
                after.record = r;
            }
            let _ = write!(text, " {}", result_words(&after.record, outcome.winner, &outcome.reason.to_string()));
        } else {
            let next = after.game.position().turn();
            let next_player = after.record.player(colour_of(next)).to_string();
            if after.game.position().is_check() {
                text.push_str(" Check!");
            }
            if !self.is_bot(&after.record.key.channel.platform, &next_player) {
                let _ = write!(text, " {}, your move.", mention(&next_player));
            }
        }
        text
    }

    fn board(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        let loaded = self.find_game(msg, id)?;
        let view = match loaded.record.colour_of(&msg.sender.id) {
            Some(Colour::Black) => Color::Black,
            _ => Color::White,
        };
        if let Some(m) = loaded.clash.as_ref().filter(|_| clash::between_rounds(&loaded)) {
            // Between rounds the board is the armies as they stand.
            let text = format!("Game {}: {}", loaded.record.key.id.as_str(), status_line(&loaded));
            let picture = self.army_picture(&loaded.record, m, view);
            return Ok(vec![Reply { text, picture, buttons: Vec::new() }]);
        }
        let text = format!("Game {}: {}", loaded.record.key.id.as_str(), game_line(&loaded));
        let picture = self.picture(&loaded, view, |_| {});
        Ok(vec![Reply { text, picture, buttons: self.game_buttons(&loaded) }])
    }

    fn moves(&self, msg: &Incoming, square: Option<&str>) -> Answer {
        let loaded = self.find_game(msg, None)?;
        clash::check_round(&loaded)?;
        let pos = loaded.game.position();
        let legal = loaded.game.legal_moves();
        if legal.is_empty() {
            return refuse("The game is over: there are no moves.");
        }
        let Some(square) = square else {
            // Grouped by the piece that moves.
            let mut groups: Vec<(String, Vec<String>)> = Vec::new();
            for m in &legal {
                let head = match m.from().and_then(|f| pos.piece_at(f).map(|p| (f, p))) {
                    Some((f, p)) => format!("{}{f}", pos.piece_code(p).to_ascii_uppercase()),
                    None if matches!(m, Move::Grant { .. }) => "powers".to_string(),
                    None => "drops".to_string(),
                };
                let san = pos.san(m);
                match groups.iter_mut().find(|(h, _)| *h == head) {
                    Some((_, list)) => list.push(san),
                    None => groups.push((head, vec![san])),
                }
            }
            let heading = format!("{} legal moves:", legal.len());
            let lines: Vec<String> = groups.iter().map(|(head, list)| format!("{head}: {}", list.join(" "))).collect();
            // Too many for one message: the first groups, and how to ask for the rest.
            let more = |n: usize| {
                let left: usize = groups[groups.len() - n..].iter().map(|(_, list)| list.len()).sum();
                format!("… ({left} more; /moves e2 for one piece)")
            };
            return Ok(vec![Reply::text(listing(&heading, &lines, REPLY_LIMIT, more))]);
        };
        let sq =
            Square::parse(square).ok_or_else(|| Refusal(format!("'{}' is not a square (try e2).", excerpt(square))))?;
        if !pos.pieces_of(pos.turn()).has(sq) {
            return refuse(format!("No piece of the side to move stands on {sq}."));
        }
        let from_here: Vec<Move> = legal.iter().copied().filter(|m| m.from() == Some(sq)).collect();
        // C2: powers the piece may be given.
        let grants: Vec<String> =
            legal.iter().filter(|m| matches!(m, Move::Grant { to, .. } if *to == sq)).map(|m| pos.san(m)).collect();
        if from_here.is_empty() && grants.is_empty() {
            return refuse(format!("The piece on {sq} has no legal move."));
        }
        let targets: Vec<Square> = from_here.iter().map(|m| m.to()).collect();
        let mut list: Vec<String> = from_here.iter().map(|m| pos.san(m)).collect();
        if !grants.is_empty() {
            list.push(format!("(powers: {})", grants.join(" ")));
        }
        let view = match loaded.record.colour_of(&msg.sender.id) {
            Some(Colour::Black) => Color::Black,
            _ => Color::White,
        };
        let picture = self.picture(&loaded, view, |o| {
            o.dots = targets.clone();
            o.selected = Some(sq);
        });
        Ok(vec![Reply { text: format!("{sq}: {}", list.join(" ")), picture, buttons: Vec::new() }])
    }

    fn hint(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        if !loaded.record.settings.hints_allowed {
            return refuse("Hints are off in this game. Start a game with /challenge ... hints on to use them.");
        }
        clash::check_round(&loaded)?;
        let pos = loaded.game.position();
        if loaded.record.player(colour_of(pos.turn())) != msg.sender.id {
            return refuse("Hints are for the player to move; wait for your turn.");
        }
        let Some(found) = search::best_move(pos, self.config.hint_time, self.config.hint_depth) else {
            return refuse("The game is over: there is nothing to hint.");
        };
        // Record the hint with the game: it is marked in the PGN.
        let ply = loaded.record.moves.len() as u32;
        let stored =
            self.store.update_game(&loaded.record.key, loaded.record.version, msg.message_id.as_deref(), |g| {
                if !g.hints.contains(&ply) {
                    g.hints.push(ply);
                }
                Ok(())
            });
        if applied(stored)?.is_none() {
            return Ok(Vec::new());
        }
        let san = pos.san(&found.best);
        let why = match (found.mate_in(), found.mated_in()) {
            (Some(n), _) => format!("mate in {n}"),
            (_, Some(n)) => format!("but mate follows in {n}"),
            _ => format!("score {:+.2}", found.score as f64 / 100.0),
        };
        // The expected line of play, in SAN.
        let mut line = Vec::new();
        let mut p = pos.clone();
        for m in found.pv.iter().take(6) {
            line.push(p.san(m));
            p.play_unchecked(*m);
        }
        let arrow = found.best.from().map(|f| (f, found.best.to()));
        let view = pos.turn();
        let picture = self.picture(&loaded, view, |o| o.arrows = arrow.into_iter().collect());
        Ok(vec![Reply {
            text: format!(
                "Hint for {}: {san} ({}), {why}. Expected line: {}.",
                mention(&msg.sender.id),
                pos.canonical(&found.best),
                line.join(" ")
            ),
            picture,
            buttons: Vec::new(),
        }])
    }

    fn finish(&self, msg: &Incoming, loaded: &Loaded, outcome: Outcome, reason: &str) -> Answer {
        let end = GameEnd { outcome, reason: reason.to_string(), at: msg.at, message_id: msg.message_id.clone() };
        let Some(record) = applied(self.store.finish_game(&loaded.record.key, loaded.record.version, &end))? else {
            return Ok(Vec::new());
        };
        let winner = match outcome {
            Outcome::WhiteWins => Some(Color::White),
            Outcome::BlackWins => Some(Color::Black),
            _ => None,
        };
        Ok(vec![Reply::text(format!("Game {}: {}", record.key.id.as_str(), result_words(&record, winner, reason)))])
    }

    fn player_colour(&self, msg: &Incoming, loaded: &Loaded) -> Result<Colour, Refusal> {
        loaded.record.colour_of(&msg.sender.id).ok_or_else(|| Refusal("Only the players can do that.".into()))
    }

    fn resign(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        let colour = self.player_colour(msg, &loaded)?;
        if loaded.clash.is_some() && !clash::between_rounds(&loaded) {
            // CA13: resigning a round loses it, and the whole army.
            return self.resign_round(msg, &loaded, colour);
        }
        // Between the rounds of a Clash match, resigning gives up the match.
        let outcome = match colour {
            Colour::White => Outcome::BlackWins,
            Colour::Black => Outcome::WhiteWins,
        };
        self.finish(msg, &loaded, outcome, "resignation")
    }

    fn draw(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        if self.is_bot(&msg.platform, &other_player(&loaded.record, &msg.sender.id)) {
            return refuse("I play on: I do not agree to draws. You may /resign, or ask for a /takeback.");
        }
        clash::check_draw(&loaded)?;
        match loaded.record.offer(OfferKind::Draw) {
            Some(o) if o.by != msg.sender.id && loaded.clash.is_some() => self.agree_round_draw(msg, &loaded),
            Some(o) if o.by != msg.sender.id => self.finish(msg, &loaded, Outcome::Draw, "agreement"),
            Some(_) => refuse("You have offered a draw already; your opponent may /draw to accept."),
            None => {
                let offer = Offer { kind: OfferKind::Draw, by: msg.sender.id.clone(), at: msg.at };
                if applied(self.store.make_offer(
                    &loaded.record.key,
                    loaded.record.version,
                    &offer,
                    msg.message_id.as_deref(),
                ))?
                .is_none()
                {
                    return Ok(Vec::new());
                }
                let opponent = other_player(&loaded.record, &msg.sender.id);
                Ok(vec![Reply {
                    text: format!(
                        "{} offers a draw. {}: /draw to accept.",
                        mention(&msg.sender.id),
                        mention(&opponent)
                    ),
                    picture: None,
                    buttons: vec![Button { label: "Accept draw".into(), command: "/draw".into() }],
                }])
            }
        }
    }

    fn takeback(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        clash::check_round(&loaded)?;
        let r = &loaded.record;
        let against_bot = self.is_bot(&msg.platform, &other_player(r, &msg.sender.id));
        let accepted = match r.offer(OfferKind::Takeback { plies: 0 }) {
            Some(Offer { kind: OfferKind::Takeback { plies }, by, .. }) if *by != msg.sender.id => {
                Some(*plies as usize)
            }
            _ if against_bot => {
                // The bot always agrees: back to before the player's last move.
                let Some(last_own) = r.moves.iter().rposition(|m| m.by == msg.sender.id) else {
                    return refuse("You have not moved yet: there is nothing to take back.");
                };
                Some(r.moves.len() - last_own)
            }
            _ => None,
        };
        if let Some(plies) = accepted {
            let plies = plies.min(r.moves.len());
            let mut replay = self.load(GameRecord { moves: r.moves[..r.moves.len() - plies].to_vec(), ..r.clone() })?;
            let fen = replay.game.position().fen();
            let taken = self.store.take_back(&r.key, r.version, plies, &fen, msg.at, msg.message_id.as_deref());
            let Some(stored) = applied(taken)? else { return Ok(Vec::new()) };
            replay.record = stored;
            let next = replay.game.position().turn();
            let picture = self.picture(&replay, next, |_| {});
            let text = format!(
                "{} taken back. {}, your move.",
                count(plies, "move"),
                mention(replay.record.player(colour_of(next)))
            );
            return Ok(vec![Reply { text, picture, buttons: self.game_buttons(&replay) }]);
        }
        if r.offer(OfferKind::Takeback { plies: 0 }).is_some() {
            return refuse("You have asked for a takeback already; your opponent may /takeback to accept.");
        }
        // Back to the sender's last move: one ply if they moved last, two if
        // the opponent has answered.
        let Some(last_own) = r.moves.iter().rposition(|m| m.by == msg.sender.id) else {
            return refuse("You have not moved yet: there is nothing to take back.");
        };
        let plies = (r.moves.len() - last_own) as u32;
        let offer = Offer { kind: OfferKind::Takeback { plies }, by: msg.sender.id.clone(), at: msg.at };
        if applied(self.store.make_offer(&r.key, r.version, &offer, msg.message_id.as_deref()))?.is_none() {
            return Ok(Vec::new());
        }
        let opponent = other_player(r, &msg.sender.id);
        Ok(vec![Reply {
            text: format!(
                "{} asks to take back {}. {}: /takeback to accept.",
                mention(&msg.sender.id),
                count(plies as usize, "move"),
                mention(&opponent)
            ),
            picture: None,
            buttons: vec![Button { label: "Accept takeback".into(), command: "/takeback".into() }],
        }])
    }

    fn abort(&self, msg: &Incoming) -> Answer {
        let loaded = self.own_game(msg)?;
        self.player_colour(msg, &loaded)?;
        if loaded.clash.as_ref().is_some_and(|m| !m.history.is_empty()) {
            return refuse("A round has been played: the match can no longer be aborted. You may /resign.");
        }
        if loaded.record.moves.len() >= 2 {
            return refuse("Both sides have moved: the game can no longer be aborted. /resign or offer a /draw.");
        }
        self.finish(msg, &loaded, Outcome::Aborted, "aborted")
    }

    fn games(&self, msg: &Incoming) -> Answer {
        let list = self.store.games_of(&msg.platform, &msg.sender.id)?;
        if list.is_empty() {
            return Ok(vec![Reply::text("You have no games running. /challenge @friend to start one.")]);
        }
        let mut lines = Vec::new();
        for (key, record) in list {
            lines.push(match record.ok().and_then(|r| self.load(r).ok()) {
                Some(l) => {
                    let here = if key.channel.channel == msg.channel { "here" } else { "elsewhere" };
                    format!("{} ({here}): {}", key.id.as_str(), game_line(&l))
                }
                None => format!("{}: cannot be read", key.id.as_str()),
            });
        }
        let more = |n: usize| format!("… ({n} more; /board GAME shows one)");
        Ok(vec![Reply::text(listing("Your games:", &lines, REPLY_LIMIT, more))])
    }

    fn pgn(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        let loaded = self.find_game(msg, id)?;
        clash::check_shown(&loaded)?;
        let r = &loaded.record;
        let date = date_of(r.started_at);
        let site = format!("Kibitz {}", r.key.channel.platform);
        let result = match r.result.as_ref().map(|x| x.outcome) {
            Some(Outcome::WhiteWins) => "1-0",
            Some(Outcome::BlackWins) => "0-1",
            Some(Outcome::Draw) => "1/2-1/2",
            Some(Outcome::Aborted) | None => "*",
        };
        // Players by the names they go by, not their platform ids.
        let (white, black) =
            (self.name(&r.key.channel.platform, &r.white), self.name(&r.key.channel.platform, &r.black));
        let tags = [
            ("Result", result),
            ("Event", "Kibitz game"),
            ("Site", site.as_str()),
            ("Date", date.as_str()),
            ("White", white.as_str()),
            ("Black", black.as_str()),
        ];
        let hint_plies: Vec<(usize, &str)> = r.hints.iter().map(|&p| (p as usize, "hint")).collect();
        // The comment follows the move the hint was asked for.
        let comments: Vec<(usize, &str)> = hint_plies.into_iter().filter(|(p, _)| *p < r.moves.len()).collect();
        let pgn = loaded.game.pgn(&tags, &comments);
        let note = "… (the game is too long for one message; /fen gives the position)";
        Ok(vec![Reply::text(bounds::cut(&pgn, REPLY_LIMIT, note))])
    }

    fn fen(&self, msg: &Incoming, id: Option<&str>) -> Answer {
        let loaded = self.find_game(msg, id)?;
        clash::check_shown(&loaded)?;
        Ok(vec![Reply::text(loaded.game.position().fen())])
    }

    fn stats(&self, msg: &Incoming, who: Option<&str>) -> Answer {
        let who = who.unwrap_or(&msg.sender.id);
        let ratings = self.store.ratings_of(&msg.platform, who)?;
        let mut text = format!("{}:", mention(who));
        let mut any = false;
        for (variant, rating) in ratings {
            if let Ok(r) = rating {
                any = true;
                let name = Variant::by_id(&variant).map_or(variant.as_str(), |v| v.name);
                let _ = write!(text, "\n{name}: {r} ({})", count(r.games as usize, "game"));
            }
        }
        if !any {
            text.push_str(" no rated games yet.");
        }
        Ok(vec![Reply::text(text)])
    }

    fn leaderboard(&self, msg: &Incoming, variant: Option<&str>) -> Answer {
        let id = variant.unwrap_or(&self.config.default_variant).to_string();
        let v = self.variant(&id)?;
        let top = self.store.leaderboard(&msg.platform, v.id, 10)?;
        if top.is_empty() {
            return Ok(vec![Reply::text(format!("No rated {} games yet.", v.name))]);
        }
        let mut text = format!("{} leaderboard:", v.name);
        for (i, (player, r)) in top.iter().enumerate() {
            let _ = write!(text, "\n{}. {} {r} ({})", i + 1, mention(player), count(r.games as usize, "game"));
        }
        Ok(vec![Reply::text(text)])
    }
}

/// Whether `record` is a Clash of the Armies match between rounds (an army
/// phase or the auction), when it takes no moves.
pub fn clash_between_rounds(record: &GameRecord) -> bool {
    record.result.is_none()
        && clash::match_of(record).ok().flatten().is_some_and(|m| {
            use kibitz_rules::army::Phase;
            matches!(m.phase, Phase::Army { .. } | Phase::Bidding | Phase::Raising { .. })
        })
}

/// Notices within the bounds of one message each (see [`bounds::bounded`]).
fn bounded_notices(notices: Vec<(ChannelKey, Reply)>) -> Vec<(ChannelKey, Reply)> {
    notices.into_iter().flat_map(|(k, r)| bounds::bounded(r).into_iter().map(move |r| (k.clone(), r))).collect()
}

fn other_player(r: &GameRecord, me: &str) -> String {
    if r.white == me { r.black.clone() } else { r.white.clone() }
}

fn outcome_of(winner: Option<Color>) -> Outcome {
    match winner {
        Some(Color::White) => Outcome::WhiteWins,
        Some(Color::Black) => Outcome::BlackWins,
        None => Outcome::Draw,
    }
}

/// "1-0: alice wins by checkmate." and the rating changes.
fn result_words(r: &GameRecord, winner: Option<Color>, reason: &str) -> String {
    let mut s = match (winner, reason) {
        (_, "aborted") => "aborted, without a result.".to_string(),
        (Some(c), _) => {
            let (score, who) = if c == Color::White { ("1-0", &r.white) } else { ("0-1", &r.black) };
            format!("{score}: {} wins ({reason}).", mention(who))
        }
        (None, _) => format!("1/2-1/2: draw ({reason})."),
    };
    if let Some(res) = &r.result {
        for (who, change) in [(&r.white, res.white_rating), (&r.black, res.black_rating)] {
            if let Some(c) = change {
                let delta = c.after.rating - c.before.rating;
                let _ = write!(s, " {} {} ({delta:+.0}).", mention(who), c.after);
            }
        }
    }
    s
}

/// Whose turn, check, or the result.
fn status_line(l: &Loaded) -> String {
    let pos = l.game.position();
    if let Some(res) = &l.record.result {
        return match res.outcome {
            Outcome::WhiteWins => format!("1-0 ({})", res.reason),
            Outcome::BlackWins => format!("0-1 ({})", res.reason),
            Outcome::Draw => format!("1/2-1/2 ({})", res.reason),
            Outcome::Aborted => "aborted".into(),
        };
    }
    if let Some(m) = &l.clash
        && clash::between_rounds(l)
    {
        return clash::phase_line(m);
    }
    if let Some(o) = l.game.outcome() {
        return format!("{} ({})", o.score(), o.reason);
    }
    let side = if pos.turn() == Color::White { "White" } else { "Black" };
    if pos.is_check() { format!("{side} to move, in check") } else { format!("{side} to move") }
}

/// [`status_line`], with the round of a Clash match being played (the
/// picture's caption has no room for it).
fn game_line(l: &Loaded) -> String {
    match &l.clash {
        Some(m) if l.record.result.is_none() && matches!(m.phase, kibitz_rules::army::Phase::Playing { .. }) => {
            format!("Round {}: {}", m.round, status_line(l))
        }
        _ => status_line(l),
    }
}

fn date_of(t: Timestamp) -> String {
    // Days since 1970-01-01 to a civil date (proleptic Gregorian).
    let days = (t.0 / 86_400_000) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

fn help() -> String {
    let mut s = String::from("Kibitz plays chess variants with friends. Commands:");
    for (_, usage) in command::USAGE {
        let _ = write!(s, "\n/{usage}");
    }
    s.push_str("\nIn a game you can also just type a move (e4, Nf3, e2e4). /variants lists the games.");
    s.push_str("\n/army to /pass are for Clash of the Armies matches; send /bid to me in a private message.");
    s
}

fn variants() -> String {
    let mut s = String::from("Games I play:");
    for v in kibitz_rules::VARIANTS {
        let _ = write!(s, "\n{}: {}", v.id, v.name);
    }
    s.push_str("\n/rules VARIANT tells more.");
    s
}

fn summary(v: &Variant) -> &'static str {
    match v.id {
        "chess" => {
            "standard chess by FIDE's Laws: checkmate wins; stalemate, threefold repetition, fifty moves and insufficient material draw."
        }
        "olympic" => {
            "5x5 board with King, Rook, Bishop, Silver, Gold and a Pawn each. Captured pieces change colour and go to your hand; instead of moving you may drop one on any empty square (a pawn not on its last rank). Pawns reaching the last rank become Gold; a Silver may. Checkmate wins, stalemate draws; a third repetition loses for White, unless Black gave check on every move since the previous one."
        }
        "alapawn" => {
            "chess pieces but no check: the King is an ordinary piece. Pawns step forward or diagonally forward and capture diagonally. The first pawn to reach the last rank wins, and so does capturing the last enemy pawn; a player with no move loses. On a third repetition or fifty quiet moves each side's last moved piece is removed."
        }
        "alapawn-balanced" => {
            "Alapawn where a turn may instead be two pawn steps without capturing: one pawn twice (the square it passes must not be attacked) or two pawns once each. White's first pawn turn is a single step."
        }
        "absorption" => {
            "chess, except that a capturing piece absorbs the powers of the piece it takes: a bishop taking a knight becomes a bishop-knight, a rook taking a bishop a queen. You may decline (write the capture with a trailing '-': Bxc6-). A piece holding the pawn's power also moves, captures, takes en passant and promotes like a pawn. The King absorbs too, may give check to the other King, and may not slide over squares the enemy attacks. Checkmate wins."
        }
        "construction" => {
            "each side starts with its King alone and a reserve of 15 static pieces, 3 rook, 3 bishop, 2 knight, 8 pawn and 2 castling powers. A turn is one of: drop a static piece on your first two ranks (S@d2), move a piece, or give a power from the reserve to one of your pieces (R>d2, or: give rook d2). A pawn power reaching the last rank is exchanged for a power or static piece of your choice (e8=R). A castling power swaps its piece with the King once. Checkmate wins."
        }
        "clash" => {
            "a match of up to 3 rounds between armies of 21 kinds of piece (Rabbits that chain jumps, War Machines that shoot, Jesters, Rogues, Phoenixes, Shielderers...). Before each round each player gets 40 gold and buys an army (/buy, /sell, /place, then /ready; /army shows it), White first, then Black seeing White's. A round is won by checkmate; a win is 1 point, a draw 0.5, and 2 points win the match. Survivors return for the next round; the checkmated lose their Leader, whoever resigns the whole army. Before the ultimate round both bid for the Amazon by private message to me (/bid AMOUNT); the loser of the auction gets draw odds, and no draw may be agreed then."
        }
        _ => "see /help.",
    }
}

fn piece_words(v: &Variant, name: &str) -> &'static str {
    match (v.id, name) {
        (_, "King") if v.has_royal() => "one step in any direction; must not be left in check.",
        (_, "King") => "one step in any direction; an ordinary piece here, it can be captured.",
        (_, "Queen") => "any distance along ranks, files and diagonals.",
        (_, "Rook") => "any distance along ranks and files.",
        (_, "Bishop") => "any distance along diagonals.",
        (_, "Knight") => "jumps two squares one way and one square across.",
        ("olympic", "Silver") => "one step diagonally in any direction or straight forward.",
        ("olympic", "Gold") => "one step orthogonally or diagonally forward.",
        ("olympic", "Pawn") => "one step forward, captures one step diagonally forward; becomes Gold on the last rank.",
        ("chess", "Pawn") => {
            "one step forward (two from its first square), captures diagonally, en passant, promotes on the last rank."
        }
        ("absorption", "Pawn") => {
            "one step forward (two from its first square), captures diagonally, en passant, promotes on the last rank; any piece that absorbs a pawn gains all of this."
        }
        ("construction", "Pawn") => {
            "the pawn power: one step forward (two from the first rank), captures diagonally forward, no en passant; on the last rank it is exchanged for a power or static piece for the reserve."
        }
        ("construction", "Static piece") => {
            "has no power: it cannot move or capture, but blocks and can be captured. Give it powers from the reserve."
        }
        ("construction", "Castling") => {
            "the castling power: its piece may swap squares with its King once, when neither is attacked."
        }
        (_, "Pawn") => "one step forward or diagonally forward onto an empty square, captures diagonally forward.",
        _ => "",
    }
}
