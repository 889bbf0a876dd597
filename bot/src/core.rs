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
use kibitz_rules::{Color, Game, Position, Square, Variant, search};
use kibitz_storage::{
    Challenge, ChannelKey, Colour, ColourChoice, GameEnd, GameId, GameRecord, GameSettings, MoveRecord, NewGame, Offer,
    OfferKind, Outcome, ResignAsk, Store, StoreError, Timestamp,
};

use crate::command::{self, ChallengeSpec, ColourWish, Command, ParseError, meant};

mod after;
mod bounds;
mod challenges;
mod clash;
mod clock;
mod elsewhere;
mod guide;
mod info;
mod moves;
mod offers;
mod opponent;
mod pieces;
mod play;
mod rematch;
mod replay;
mod review;
mod rulings;
mod sealed;
mod settings;
mod shape;

use info::{help, variants};
pub use review::{REVIEW_LEASE, Reviewed};
pub use sealed::private_route;

pub use bounds::{CAPTION_LIMIT, CUT_NOTE, EXCERPT, REPLY_LIMIT, cut, excerpt, sentence_end, units};
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
    /// Whether the sender may manage the channel (change its settings), as
    /// the platform says: `None` where the adapter did not ask (it asks
    /// only for a command that changes settings, [`crate::command::changes_settings`])
    /// or could not tell. The sender of a private chat manages it.
    pub manages: Option<bool>,
}

/// A file sent with a reply: a picture most often, an animated replay, or
/// a document (a game's PGN too long for one message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// A file name for it (`board-k3x9.png`, `replay-k3x9.gif`,
    /// `game-k3x9.pgn`).
    pub name: String,
    /// The file: PNG bytes, an animated GIF's or a document's (see
    /// [`Picture::is_animation`] and [`Picture::is_document`]).
    pub bytes: Vec<u8>,
}

impl Picture {
    /// Whether the picture is an animation (a GIF), to be sent as one.
    pub fn is_animation(&self) -> bool {
        self.bytes.starts_with(b"GIF8")
    }

    /// Whether the file is no picture at all but a document (a PGN file),
    /// to be sent as a file to download rather than shown: its name ends
    /// in neither `.png` nor `.gif`.
    pub fn is_document(&self) -> bool {
        let name = self.name.to_ascii_lowercase();
        !name.ends_with(".png") && !name.ends_with(".gif")
    }
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

/// Something an adapter does besides posting replies, asked for by the
/// core while it handled a message: see [`Core::take_actions`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Delete a message (a sealed bid typed in public). The platform may not
    /// let the bot (Discord without Manage Messages, a Telegram group where
    /// the bot is no admin): the adapter then logs it and goes on.
    Delete {
        /// The platform's id of the message, as in [`Incoming::message_id`]
        /// (none on the console).
        message_id: Option<String>,
        /// Who wrote it.
        author: String,
    },
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
    /// Whether a game that ends is reviewed by itself (`/review` works either way).
    pub review_at_end: bool,
    /// How long a review searches each position.
    pub review_time: Duration,
    /// How deep a review may search each position (plies): a small depth
    /// makes reviews the same on every machine (the console's transcripts).
    pub review_depth: u32,
}

impl Default for CoreConfig {
    fn default() -> CoreConfig {
        CoreConfig {
            bot_name: "kibitz".into(),
            hint_time: Duration::from_millis(1000),
            hint_depth: 64,
            default_variant: "chess".into(),
            board_size: kibitz_render::DEFAULT_SIZE,
            review_at_end: true,
            review_time: Duration::from_millis(300),
            review_depth: 64,
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
        if let StoreError::PlayerBusy { player, game } = &e {
            // The store knows the player by id: named here as a mention.
            return Refusal(format!(
                "{} is already playing game {} in this channel, and a player plays one game at a time in a channel.",
                mention(player),
                game.as_str()
            ));
        }
        // The store's messages are lower-case clauses; make them sentences.
        let mut text = e.to_string();
        if let StoreError::NoSuchGame(_) = e {
            text.push_str("; /games lists yours");
        }
        let mut chars = text.chars();
        let first = chars.next().map(|c| c.to_uppercase().collect::<String>()).unwrap_or_default();
        Refusal(format!("{first}{}{}", chars.as_str(), sentence_end(&text)))
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

/// A game id that cannot be one (ids are short words of letters and
/// digits), and where to find the real ones.
fn not_a_game_id(id: &str) -> Refusal {
    Refusal(format!("'{}' is not a game id; /games lists yours.", excerpt(id)))
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

/// The rules' side of a stored colour.
fn color_of(c: Colour) -> Color {
    match c {
        Colour::White => Color::White,
        Colour::Black => Color::Black,
    }
}

/// The bot's user id on a platform whose adapter does not give one (the
/// console, tests): see [`Core::set_bot_id`].
pub const LOCAL_BOT_ID: &str = "kibitz";

/// How long a name noted in the directory is not noted again (ms): the
/// directory keeps its own day between sightings of an unchanged name.
const NAME_NOTED_FOR: u64 = 3_600_000;

/// The chat core.
pub struct Core {
    store: Store,
    config: CoreConfig,
    renderer: &'static Renderer,
    /// Names seen, by platform and id, for captions, with when each was
    /// last noted in the store's directory.
    names: Mutex<HashMap<(String, String), (String, Timestamp)>>,
    /// The bot's own user id on each platform, as its adapter said.
    bot_ids: Mutex<HashMap<String, String>>,
    /// Answers for other channels than the message's, until an adapter posts them.
    notices: Mutex<Vec<(ChannelKey, Reply)>>,
    /// Actions for the adapters, until they take them.
    actions: Mutex<Vec<(ChannelKey, Action)>>,
    /// The page of `/moves` each asker saw last, by platform, channel and
    /// user, for `/moves more`.
    pages: Mutex<HashMap<(String, String, String), usize>>,
    /// The review jobs whose replies wait with the notices (see `review`).
    review_marks: Mutex<review::ReviewMarks>,
    /// Wakes the reviewer when a review is queued.
    review_wake: review::ReviewWake,
    /// Counts the notices left outside of any message (a finished review),
    /// so that an idle adapter posts them at once.
    notices_waiting: tokio::sync::watch::Sender<u64>,
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
            actions: Mutex::default(),
            pages: Mutex::default(),
            review_marks: Mutex::default(),
            review_wake: review::ReviewWake::default(),
            notices_waiting: tokio::sync::watch::Sender::new(0),
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
        self.review_notices_taken(platform);
        bounded_notices(mine)
    }

    /// Takes the actions the messages of `platform` asked for (deleting a
    /// sealed bid typed in public). The relay stores them in the outbox with
    /// the message's replies, so that a crash loses none; the console
    /// performs them at once.
    pub fn take_actions(&self, platform: &str) -> Vec<(ChannelKey, Action)> {
        let Ok(mut actions) = self.actions.lock() else { return Vec::new() };
        let (mine, others): (Vec<_>, Vec<_>) = actions.drain(..).partition(|(k, _)| k.platform == platform);
        *actions = others;
        mine
    }

    fn act(&self, channel: ChannelKey, action: Action) {
        if let Ok(mut actions) = self.actions.lock() {
            actions.push((channel, action));
        }
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
    /// neither a command nor a move of the sender's game gets no answer in
    /// a channel, and in a private chat (where every message is to the bot)
    /// a word on what the bot reads there.
    /// Every reply fits one message: its text is within [`REPLY_LIMIT`]
    /// units, or [`CAPTION_LIMIT`] with a picture.
    pub fn handle(&self, msg: &Incoming) -> Vec<Reply> {
        self.remember(&msg.platform, &msg.sender, msg.at);
        let answer = match command::parse(&msg.text, &self.config.bot_name) {
            Err(ParseError::NotACommand) => match self.bare_move(msg) {
                none if none.is_empty() && msg.private => vec![Reply::text(self.private_chat_words(msg))],
                replies => replies,
            },
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
        if said.is_empty() {
            // A command that changed the game without a move (Clash's
            // `/buy`, `/place`, `/ready`; `/resign yes`): said as sent.
            let _ = write!(text, "{}'s {} is done. ", mention(&msg.sender.id), bounds::excerpt(&msg.text));
        } else {
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

    /// Runs the clocks of `platform`'s games at time `now`: a player who has
    /// used three quarters of their days is reminded once; one who has used
    /// all of them loses on time; chat clocks likewise (see `core/clock.rs`). Returns the notices to post, by
    /// channel. Each adapter ticks its own platform, so no notice is lost.
    ///
    /// Only the games the store's clock index says are due are read
    /// ([`Store::claim_due_games`]), so a tick costs what is due, not every game;
    /// with several processes on one store, each due game is looked at by one.
    pub fn tick(&self, now: Timestamp, platform: &str) -> Vec<(ChannelKey, Reply)> {
        self.tick_where(now, platform, &|_| true)
    }

    /// [`Core::tick`] for the games whose channel `serves` accepts: a
    /// process that serves part of a platform (some of Discord's shards)
    /// runs the clocks of that part only.
    pub fn tick_where(
        &self,
        now: Timestamp,
        platform: &str,
        serves: &dyn Fn(&ChannelKey) -> bool,
    ) -> Vec<(ChannelKey, Reply)> {
        let mut notices = self.take_notices(platform);
        let Ok(games) = self.store.claim_due_games(now, platform) else { return notices };
        self.tick_games(now, serves, games, &mut notices);
        // What the games' ends left for their channels (the replay after a
        // round or game the clock ended), after the words that ended them.
        notices.extend(self.take_notices(platform));
        bounded_notices(notices)
    }

    fn tick_games(
        &self,
        now: Timestamp,
        serves: &dyn Fn(&ChannelKey) -> bool,
        games: Vec<(kibitz_storage::GameKey, Result<GameRecord, StoreError>)>,
        notices: &mut Vec<(ChannelKey, Reply)>,
    ) {
        for (key, record) in games.into_iter().filter(|(k, _)| serves(&k.channel)) {
            let Ok(record) = record else { continue };
            if record.clock.is_some() {
                self.tick_chat_clock(now, &record, notices);
            }
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
                    notices.extend(self.game_over(&r).into_iter().map(|reply| (key.channel.clone(), reply)));
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
    }

    fn remember(&self, platform: &str, user: &User, at: Timestamp) {
        let key = (platform.to_string(), user.id.clone());
        // Noted in the directory a moment ago under this name: nothing to write.
        let fresh = self.names.lock().ok().is_some_and(|names| {
            names
                .get(&key)
                .is_some_and(|(name, noted)| *name == user.name && at.0.saturating_sub(noted.0) < NAME_NOTED_FOR)
        });
        if fresh {
            return;
        }
        // In the directory, for captions after a restart and in the other
        // processes; a failure to write it costs a caption its name, nothing else.
        if let Err(e) = self.store.note_name(platform, &user.id, &user.name, at) {
            tracing::warn!("could not note the name of {} on {platform}: {e}", user.id);
        }
        if let Ok(mut names) = self.names.lock() {
            names.insert(key, (user.name.clone(), at));
        }
    }

    /// The name to show for player `id`: as seen lately (by this process),
    /// else from the directory, else the id.
    fn name(&self, platform: &str, id: &str) -> String {
        let seen = self.names.lock().ok().and_then(|n| n.get(&(platform.to_string(), id.to_string())).cloned());
        if let Some((name, _)) = seen {
            return name;
        }
        match self.store.user(platform, id) {
            Ok(Some(user)) => user.name,
            _ => id.to_string(),
        }
    }

    fn run(&self, msg: &Incoming, cmd: Command) -> Answer {
        match cmd {
            Command::Help => Ok(vec![Reply::text(help())]),
            Command::HelpOn(topic) => self.help_on(&topic),
            Command::Prices => Ok(vec![Reply::text(info::prices())]),
            Command::Variants => Ok(vec![Reply::text(variants())]),
            Command::Rules(v) => self.rules(msg, v.as_deref()),
            Command::Piece(name) => self.piece(msg, &name),
            Command::Challenge(spec) => self.challenge(msg, spec),
            Command::Accept(who) => self.accept(msg, who.as_deref()),
            Command::AcceptOffer(choice) => self.accept_offer(msg, choice),
            Command::Decline(who) => self.decline(msg, who.as_deref()),
            Command::AcceptNamed(name) => {
                self.named_challenger(msg, &name, "accept").and_then(|who| self.accept(msg, Some(&who)))
            }
            Command::DeclineNamed(name) => {
                self.named_challenger(msg, &name, "decline").and_then(|who| self.decline(msg, Some(&who)))
            }
            Command::DeclineOffer(which) => self.decline_offer(msg, which),
            Command::Cancel => self.cancel(msg),
            Command::CancelOffer(choice) => self.withdraw_offer(msg, Some(choice)),
            Command::Move(text) => self.routed(msg, elsewhere::Routed::Move(&text)),
            Command::Board(id) => self.routed(msg, elsewhere::Routed::Board(id.as_deref())),
            Command::Moves(what) => self.routed(msg, elsewhere::Routed::Moves(what.as_deref())),
            Command::Hint => self.hint(msg),
            Command::Resign => self.resign(msg),
            Command::ResignConfirm(yes) => self.resign_confirm(msg, yes),
            Command::Draw => self.draw(msg),
            Command::Takeback => self.takeback(msg),
            Command::Abort => self.abort(msg),
            Command::Games => self.games(msg),
            Command::Rematch(id) => self.rematch(msg, id.as_deref()),
            Command::Pgn(id) => self.routed(msg, elsewhere::Routed::Pgn(id.as_deref())),
            Command::Fen(id) => self.routed(msg, elsewhere::Routed::Fen(id.as_deref())),
            Command::Gif(id) => self.routed(msg, elsewhere::Routed::Gif(id.as_deref())),
            Command::Review(id) => self.review(msg, id.as_deref()),
            Command::Stats(who) => self.stats(msg, who.as_deref()),
            Command::StatsNamed(name) => self.stats_named(msg, &name),
            Command::Leaderboard(v) => self.leaderboard(msg, v.as_deref()),
            Command::Army => self.army(msg),
            Command::Buy { piece, square } => self.buy(msg, &piece, square.as_deref()),
            Command::Sell(what) => self.sell(msg, &what),
            Command::Place { piece, square } => self.place(msg, &piece, &square),
            Command::Ready => self.ready(msg),
            Command::Bid { amount, game } => self.bid(msg, &amount, game.as_deref()),
            Command::Raise => self.raise(msg),
            Command::Pass => self.pass(msg),
            Command::Settings(change) => self.settings(msg, change),
        }
    }

    fn channel(msg: &Incoming) -> ChannelKey {
        ChannelKey::new(msg.platform.clone(), msg.channel.clone())
    }

    // ---- looking things up ----

    fn variant(&self, id: &str) -> Result<&'static Variant, Refusal> {
        Variant::by_id(id).ok_or_else(|| {
            let ids: Vec<&str> = kibitz_rules::VARIANTS.iter().map(|v| v.id).collect();
            match meant::game(id) {
                Some(meant) => Refusal(format!("I don't play '{}'. Did you mean {meant}?", excerpt(id))),
                None => Refusal(format!("I don't play '{}'. I play {}.", excerpt(id), ids.join(", "))),
            }
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
            let gid = GameId::parse(id).map_err(|_| not_a_game_id(id))?;
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
                // The sender's own games elsewhere are named.
                _ if !self.store.games_of(&msg.platform, &msg.sender.id)?.is_empty() => refuse(self.no_game_here(msg)),
                _ => refuse(
                    "There is no game running here. Start one with /challenge @friend; a finished game is shown by \
                     the id its last message gave (/pgn k7qz, /gif k7qz).",
                ),
            },
            [only] => self.load(only.clone()),
            many => {
                let ids: Vec<String> = many.iter().map(|g| g.key.id.as_str().to_string()).collect();
                refuse(format!("Several games run here; name one: {}.", ids.join(", ")))
            }
        }
    }

    /// What a private chat with the bot is for, said to a message there
    /// that is neither a command nor a move.
    fn private_chat_words(&self, msg: &Incoming) -> String {
        let playing = matches!(self.store.player_game_in_channel(&Self::channel(msg), &msg.sender.id), Ok(Some(_)));
        if playing {
            return "Here I read moves (e4, Nf3) and commands; /help lists the commands.".to_string();
        }
        // A move for a game elsewhere goes with its game's id.
        let text = msg.text.trim();
        if shape::move_shaped(text) {
            let games = self.store.games_of(&msg.platform, &msg.sender.id).unwrap_or_default();
            let shown = excerpt(text);
            match games.as_slice() {
                [] => {}
                [(key, _)] => {
                    let id = key.id.as_str();
                    return format!("To play {shown} in game {id} from here, name the game: /move {id} {shown}.");
                }
                _ => {
                    return format!(
                        "To play {shown} from here, name the game: /move GAME {shown} (/games lists yours)."
                    );
                }
            }
        }
        "Here it is just you and me: /challenge plays me (a game and a level if you like: /challenge olympic \
         level 3), and /help lists the commands. To play a friend, challenge them in a channel or group you share."
            .to_string()
    }

    /// The sender's own game here.
    fn own_game(&self, msg: &Incoming) -> Result<Loaded, Refusal> {
        match self.store.player_game_in_channel(&Self::channel(msg), &msg.sender.id)? {
            Some(record) => self.load(record),
            None => refuse(self.no_game_here(msg)),
        }
    }

    /// "Your game X here is over (1-0 by checkmate)": the sender's last
    /// game, if it ended in this chat within `within` milliseconds.
    fn ended_here(&self, msg: &Incoming, within: u64) -> Option<String> {
        let here = Self::channel(msg);
        let (key, record) = self.store.archived_games_of(&msg.platform, &msg.sender.id, 1).ok()?.into_iter().next()?;
        let r = record.ok().filter(|_| key.channel == here)?;
        let end = r.result.as_ref().filter(|end| msg.at.0.saturating_sub(end.at.0) < within)?;
        // An aborted game has no rematch: it was never played.
        if end.outcome == Outcome::Aborted {
            return Some(format!(
                "Your game {} here is over (it was aborted). /challenge @friend starts another.",
                r.key.id.as_str()
            ));
        }
        Some(format!(
            "Your game {} here is over ({} by {}). /rematch plays it again, /challenge @friend starts another.",
            r.key.id.as_str(),
            end.outcome.pgn_result(),
            end.reason
        ))
    }

    /// Why a command for the sender's game finds none here, and where to
    /// go instead: the game that just ended here, or the running one
    /// elsewhere.
    fn no_game_here(&self, msg: &Incoming) -> String {
        // A game that ended here within the day.
        if let Some(over) = self.ended_here(msg, 86_400_000) {
            return over;
        }
        let elsewhere: Vec<String> = self
            .store
            .games_of(&msg.platform, &msg.sender.id)
            .map(|games| games.into_iter().filter(|(_, g)| g.is_ok()).map(|(k, _)| k.id.as_str().to_string()).collect())
            .unwrap_or_default();
        match elsewhere.as_slice() {
            [] => {
                // Others' games here: the sender only watches them.
                let watched: Vec<String> = self
                    .store
                    .games_in_channel(&Self::channel(msg))
                    .map(|games| {
                        games
                            .into_iter()
                            .filter_map(|(k, g)| g.ok().map(|g| (k, g)))
                            .map(|(k, g)| {
                                // By name: a watcher's slip pings nobody.
                                let (w, b) = (self.name(&msg.platform, &g.white), self.name(&msg.platform, &g.black));
                                format!("{} is {w} vs {b}", k.id.as_str())
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                if watched.is_empty() {
                    "You have no game here. Start one with /challenge @friend.".to_string()
                } else {
                    format!(
                        "You are not playing here (game {}): only a game's players move, make offers and ask for \
                         hints in it. /challenge @friend starts a game of your own.",
                        watched.join("; game ")
                    )
                }
            }
            // Offers, resigning and the like are made in the game's own chat;
            // moves and the board may name the game from anywhere.
            [one] if !named_from_anywhere(&msg.text) => format!(
                "You have no game here; your game {one} is played in another chat, and {} is said there. From here, \
                 /board {one} shows it and /move {one} MOVE plays in it.",
                command_word(&msg.text).map_or("that".to_string(), |w| format!("/{w}"))
            ),
            [one] => format!(
                "You have no game here; your game {one} is elsewhere: name it to play it from here (/move {one} MOVE, \
                 /board {one})."
            ),
            _ if !named_from_anywhere(&msg.text) => format!(
                "You have no game here; your games ({}) are played in other chats, and {} is said in the game's own. \
                 /games lists them.",
                elsewhere.join(", "),
                command_word(&msg.text).map_or("that".to_string(), |w| format!("/{w}"))
            ),
            _ => format!(
                "You have no game here; your games elsewhere ({}) are played from here by naming them (/move ID MOVE); \
                 /games lists them.",
                elsewhere.join(", ")
            ),
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
            touched: loaded.game.last_touched().to_vec(),
            caption: Some(Caption {
                white: self.name(platform, &r.white),
                black: self.name(platform, &r.black),
                status,
                ..Caption::default()
            }),
            ..BoardOptions::default()
        };
        if let (Some(m), Some(c)) = (&loaded.clash, opts.caption.as_mut()) {
            c.note = self.standing_note(r, m, false);
        }
        if let (Some(line), Some(c)) = (self.clock_line(r, r.updated_at), opts.caption.as_mut()) {
            c.note = line;
        }
        extra(&mut opts);
        let png = self.renderer.board_png(pos, &opts).ok()?;
        Some(Picture { name: format!("board-{}-{}.png", r.key.id.as_str(), r.moves.len()), bytes: png })
    }

    fn game_buttons(&self, loaded: &Loaded) -> Vec<Button> {
        if loaded.game.outcome().is_some() || loaded.record.result.is_some() || clash::between_rounds(loaded) {
            return Vec::new();
        }
        let mut b = vec![Button { label: "Resign".into(), command: "/resign".into() }];
        // CA14: no draw offers in a Clash match's ultimate round; none to
        // the bot, which never agrees to one.
        if loaded.clash.as_ref().is_none_or(|m| m.draw_allowed()) && loaded.record.settings.bot_level.is_none() {
            // A standing offer (its maker moved since) is the opponent's to take.
            let offered = loaded.record.offers.iter().any(|o| o.kind == OfferKind::Draw);
            let label = if offered { "Accept draw" } else { "Offer draw" };
            b.push(Button { label: label.into(), command: "/draw".into() });
        }
        if loaded.record.settings.hints_allowed {
            b.push(Button { label: "Hint".into(), command: "/hint".into() });
        }
        b
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

/// The command word of a message (`resign` of `/resign yes`), lower case;
/// `None` for a message that is not a command.
fn command_word(text: &str) -> Option<String> {
    let body = text.trim().strip_prefix(['/', '!'])?;
    let word = body.split_whitespace().next()?;
    let word = word.split_once('@').map_or(word, |(w, _)| w);
    (!word.is_empty() && word.chars().all(|c| c.is_ascii_alphabetic())).then(|| word.to_ascii_lowercase())
}

/// Whether the message is one that may name a game played elsewhere (a
/// move, bare or `/move`, the board, the legal moves, the PGN and FEN, the
/// GIF): the others are said in the game's own chat.
fn named_from_anywhere(text: &str) -> bool {
    command_word(text).is_none_or(|w| matches!(w.as_str(), "move" | "board" | "moves" | "pgn" | "fen" | "gif"))
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
        // A rated game that ended before both sides moved changes no rating.
        if res.outcome != Outcome::Aborted && r.settings.counts_for_rating() && r.white != r.black && !r.was_played() {
            s.push_str(" Not rated: the game ended before both sides had moved.");
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
