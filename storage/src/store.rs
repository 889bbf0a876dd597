//! The store every part of Kibitz uses: one interface, two backends.
//!
//! - **Embedded** ([`Store::open`]): a sled database in a directory, for one
//!   process. The default: nothing to install.
//! - **Shared** ([`Store::connect`]): a PostgreSQL database, for as many
//!   processes as serve the bot. Its schema is made and upgraded by the
//!   versioned migrations embedded in the crate (`storage/migrations/`),
//!   which run when a process connects.
//!
//! Both keep every guarantee the rest of the bot relies on (one test suite
//! runs against each): a game change is a compare-and-swap on the game's
//! version and names the chat message it came from, so a retried delivery
//! applies once; replies owed are kept in a durable outbox; finished games
//! are archived by player; ratings are Glicko-2; a damaged record is
//! reported alone. With several processes, a due game ([`Store::claim_due_games`])
//! and an owed reply ([`Store::claim_owed`]) are each taken by one process only.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::codec::Record;

use crate::embedded::SledStore;
use crate::pg::PgStore;
use crate::{
    BackupSummary, Challenge, ChannelKey, ChannelSettings, ClockState, GameKey, GameRecord, MoveRecord, NewGame, Offer,
    OfferKind, Outcome, Rating, RatingChange, ResignAsk, Result, ReviewJob, SealedBid, StoreError, Timestamp,
};

/// Games found by a listing: each with its key, and the game or the error that
/// keeps it from being read (the other games are unaffected).
pub type GameListing = Vec<(GameKey, Result<GameRecord>)>;

/// How a game ends, for [`Store::finish_game`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// Who won.
    pub outcome: Outcome,
    /// Why, in words: "checkmate", "resignation", "draw agreed".
    pub reason: String,
    /// When.
    pub at: Timestamp,
    /// The chat message that ended it, if any: a retried delivery applies once.
    pub message_id: Option<String>,
}

/// One message the bot owes a channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owed {
    /// Its place in the platform's outbox: entries go out in this order.
    pub seq: u64,
    /// The channel (chat) to post it in.
    pub channel: String,
    /// The reply, as the adapter wrote it.
    pub payload: Vec<u8>,
    /// How many of its parts the platform has accepted already.
    pub progress: u32,
    /// When it was owed.
    pub at: Timestamp,
}

/// What handling one message (or one clock tick) leaves behind.
#[derive(Clone, Debug, Default)]
pub struct Completion {
    /// The platform.
    pub platform: String,
    /// The message handled, if it was one: it is marked handled.
    pub message_id: Option<String>,
    /// A reading position to record (`name`, `value`): Discord's last message
    /// read in a channel.
    pub cursor: Option<(String, String)>,
    /// The replies owed, by channel, in the order they are to be sent.
    pub owed: Vec<(String, Vec<u8>)>,
    /// When.
    pub at: Timestamp,
}

/// How long a user's "last seen" may lag before a message from them writes it again.
pub(crate) const SEEN_EVERY: u64 = 24 * 3_600_000;

/// A user as last seen, in the directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserRecord {
    /// The name to show (a Telegram user's first and last name).
    pub name: String,
    /// The user's @username as they write it, if they have one.
    #[serde(default)]
    pub username: Option<String>,
    /// When the user was last seen.
    pub seen: Timestamp,
}

impl Record for UserRecord {
    const VERSION: u32 = 1;
}

/// What the move of a legacy username's records to a user id moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Migration {
    /// Active games.
    pub games: usize,
    /// Pending challenges (made or received).
    pub challenges: usize,
    /// Finished games in the archive.
    pub archived: usize,
    /// Ratings (one per variant).
    pub ratings: usize,
}

impl Migration {
    /// Whether nothing was moved.
    pub fn is_empty(&self) -> bool {
        *self == Migration::default()
    }
}

/// What the move of a chat to a new chat id moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChannelMove {
    /// Active games.
    pub games: usize,
    /// Pending challenges.
    pub challenges: usize,
    /// Finished games in the archive.
    pub archived: usize,
    /// Whether the channel's settings moved.
    pub settings: bool,
}

/// The game store. Cheap to clone (clones share the database) and safe to
/// use from many threads. Every method that changes something returns only
/// after the change is durable. Methods block: call them from a blocking
/// thread (`tokio::task::spawn_blocking`) in async code.
#[derive(Clone, Debug)]
pub struct Store {
    backend: Backend,
}

#[derive(Clone, Debug)]
enum Backend {
    Embedded(SledStore),
    Shared(PgStore),
}

impl From<SledStore> for Store {
    fn from(store: SledStore) -> Store {
        Store { backend: Backend::Embedded(store) }
    }
}

/// Which kind of database a store is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// sled, in one process.
    Embedded,
    /// PostgreSQL, shared by several processes.
    Shared,
}

macro_rules! both {
    ($self:ident, $s:ident => $call:expr) => {
        match &$self.backend {
            Backend::Embedded($s) => $call,
            Backend::Shared($s) => crate::pg::blocking(|| $call),
        }
    };
}

macro_rules! delegate {
    ($( $(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)* $(,)?) -> $ret:ty; )*) => {
        impl Store { $(
            $(#[$doc])*
            pub fn $name(&self $(, $arg: $ty)*) -> $ret {
                both!(self, s => s.$name($($arg),*))
            }
        )* }
    };
}

impl Store {
    /// Opens (or creates) the embedded store in the directory `path`.
    ///
    /// Only one process may have it open; a second gets
    /// [`StoreError::InUse`]. A store whose log lost its last changes is
    /// refused with [`StoreError::LostChanges`]; see [`Store::open_accepting_loss`].
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        SledStore::open(path).map(|s| Store { backend: Backend::Embedded(s) })
    }

    /// Opens the embedded store even if it lost changes: the loss is
    /// returned beside the store, and accepted.
    pub fn open_accepting_loss(path: impl AsRef<Path>) -> Result<(Store, Option<StoreError>)> {
        SledStore::open_accepting_loss(path).map(|(s, loss)| (Store { backend: Backend::Embedded(s) }, loss))
    }

    /// Connects to the shared store at `url` (`postgres://user@host:port/db`),
    /// bringing its schema up to date first.
    pub fn connect(url: &str) -> Result<Store> {
        PgStore::connect(url, None).map(|s| Store { backend: Backend::Shared(s) })
    }

    /// [`Store::connect`], with the store's tables in the schema `schema`
    /// (made if missing) instead of the connection's default: for tests,
    /// and for several bots in one database.
    pub fn connect_in_schema(url: &str, schema: &str) -> Result<Store> {
        PgStore::connect(url, Some(schema)).map(|s| Store { backend: Backend::Shared(s) })
    }

    /// How long this process counts as alive after a heartbeat, for a
    /// shared store (150 s unless set): owed replies of a process silent
    /// for longer are taken over by the others. Heartbeat well within it.
    pub fn set_worker_lease(&mut self, lease: std::time::Duration) {
        if let Backend::Shared(s) = &mut self.backend {
            s.set_lease(lease);
        }
    }

    /// The worker lease of a shared store (see [`Store::set_worker_lease`]); `None` for an embedded one.
    pub fn worker_lease(&self) -> Option<std::time::Duration> {
        self.shared().map(PgStore::lease)
    }

    /// Which kind of database this is.
    pub fn kind(&self) -> BackendKind {
        match self.backend {
            Backend::Embedded(_) => BackendKind::Embedded,
            Backend::Shared(_) => BackendKind::Shared,
        }
    }

    /// The directory of an embedded store; `None` for a shared one.
    pub fn path(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Embedded(s) => Some(s.path()),
            Backend::Shared(_) => None,
        }
    }

    /// The embedded store under this one, if it is one (backups, the bench).
    pub(crate) fn embedded(&self) -> Option<&SledStore> {
        match &self.backend {
            Backend::Embedded(s) => Some(s),
            Backend::Shared(_) => None,
        }
    }

    /// The shared store under this one, if it is one.
    pub(crate) fn shared(&self) -> Option<&PgStore> {
        match &self.backend {
            Backend::Embedded(_) => None,
            Backend::Shared(s) => Some(s),
        }
    }

    /// Test hook of the embedded store: the next sync fails as if the disk
    /// were full. Does nothing on a shared store.
    #[doc(hidden)]
    pub fn fail_next_sync(&self) {
        if let Backend::Embedded(s) = &self.backend {
            s.fail_next_sync();
        }
    }

    /// Writes a backup of the embedded store to the file `to`. A shared
    /// store is backed up with PostgreSQL's own tools (`pg_dump`).
    pub fn backup(&self, to: &Path) -> Result<BackupSummary> {
        match &self.backend {
            Backend::Embedded(s) => s.backup(to),
            Backend::Shared(_) => Err(StoreError::Unsupported("backups of a PostgreSQL store are made with pg_dump")),
        }
    }

    /// Restores the backup `from` into the embedded store directory `into`.
    pub fn restore(from: &Path, into: &Path) -> Result<BackupSummary> {
        SledStore::restore(from, into)
    }

    /// Takes a backup a running bot was asked for, if any (embedded stores only).
    pub fn serve_backup_request(&self) -> Option<Result<BackupSummary>> {
        self.embedded().and_then(SledStore::serve_backup_request)
    }

    /// Changes game `key` in one compare-and-swap: `change` runs on the game
    /// as stored, and the result is written only if the game is still at
    /// `expected_version` ([`StoreError::Conflict`] otherwise).
    /// [`StoreError::AlreadyApplied`] if `message_id` was applied before.
    /// The version becomes `expected_version + 1`.
    pub fn update_game(
        &self,
        key: &GameKey,
        expected_version: u64,
        message_id: Option<&str>,
        change: impl FnMut(&mut GameRecord) -> Result<()>,
    ) -> Result<GameRecord> {
        both!(self, s => s.update_game(key, expected_version, message_id, change))
    }

    /// Ends game `key` as [`Store::finish_game`] does, with a last change to
    /// the game made in the same step (`change` may run more than once).
    pub fn finish_game_with(
        &self,
        key: &GameKey,
        expected_version: u64,
        end: &GameEnd,
        change: impl Fn(&mut GameRecord) -> Result<()>,
    ) -> Result<GameRecord> {
        both!(self, s => s.finish_game_with(key, expected_version, end, change))
    }

    /// Notes that user `id` was seen at `at` under the display `name` and
    /// `username` (`None`: they have none now). The username now names this
    /// user; a user who held it before keeps their id and records, and no
    /// longer has a username in the directory.
    ///
    /// The first time a username is seen, records keyed by it (as Kibitz
    /// keyed players by username before it keyed them by id) move to `id`,
    /// all at once: see [`Store::migrate_username`]. Returns what moved.
    pub fn see_user(
        &self,
        platform: &str,
        id: &str,
        name: &str,
        username: Option<&str>,
        at: Timestamp,
    ) -> Result<Migration> {
        let username = username.filter(|u| !u.is_empty());
        self.note_user(platform, id, name, username, at)?;
        let Some(username) = username.map(crate::embedded::folded) else { return Ok(Migration::default()) };
        // A numeric key is a user id already (users without a username were keyed so).
        if username == id || username.chars().all(|c| c.is_ascii_digit()) || self.is_migrated(platform, &username)? {
            return Ok(Migration::default());
        }
        self.migrate_username(platform, &username, id)
    }

    // The game changes below are compare-and-swaps through `update_game`.

    /// Plays a move: appends `mv`, sets the position to `fen` (which the caller
    /// computed with the rules), and lets pending offers lapse.
    ///
    /// Two moves racing on one game never both apply: the second gets
    /// [`StoreError::Conflict`]. A retried delivery of the same message gets
    /// [`StoreError::AlreadyApplied`]. When this returns `Ok` the move is on disk.
    pub fn apply_move(&self, key: &GameKey, expected_version: u64, mv: MoveRecord, fen: &str) -> Result<GameRecord> {
        self.apply_timed_move(key, expected_version, mv, fen, None)
    }

    /// [`Store::apply_move`], setting the game's chat clock to `clock` in the
    /// same step (the caller charged the mover).
    pub fn apply_timed_move(
        &self,
        key: &GameKey,
        expected_version: u64,
        mv: MoveRecord,
        fen: &str,
        clock: Option<ClockState>,
    ) -> Result<GameRecord> {
        let message_id = mv.message_id.clone();
        self.update_game(key, expected_version, message_id.as_deref(), |game| {
            if clock.is_some() {
                game.clock.clone_from(&clock);
            }
            game.updated_at = mv.at;
            game.moves.push(mv.clone());
            fen.clone_into(&mut game.fen);
            // A move declines what the opponent offered and ends the
            // mover's own takeback request; the mover's own draw offer
            // stands until the opponent answers it.
            game.offers.retain(|o| o.by == mv.by && o.kind == OfferKind::Draw);
            // And plays on: no `/resign` waits for its confirmation after it.
            game.resign_asks.clear();
            game.reminded_at = None;
            Ok(())
        })
    }

    /// Takes back the last `plies` moves; `fen` is the position after the moves that remain.
    pub fn take_back(
        &self,
        key: &GameKey,
        expected_version: u64,
        plies: usize,
        fen: &str,
        at: Timestamp,
        message_id: Option<&str>,
    ) -> Result<GameRecord> {
        self.update_game(key, expected_version, message_id, |game| {
            let available = game.moves.len();
            if plies > available {
                return Err(StoreError::TakebackTooLong { key: key.clone(), requested: plies, available });
            }
            // The chat clock gives back nothing: the player to move again
            // (who played the first move taken back) has what is left.
            let to_move = game.moves.get(available - plies).and_then(|m| game.colour_of(&m.by));
            if let (Some(state), Some(to_move)) = (game.clock.as_mut(), to_move) {
                *state = state.after_takeback(to_move, at);
            }
            game.moves.truncate(available - plies);
            fen.clone_into(&mut game.fen);
            game.offers.clear();
            game.resign_asks.clear();
            game.updated_at = at;
            Ok(())
        })
    }

    /// Sets player `by`'s `/resign` waiting for confirmation to `ask`
    /// (replacing one they had), or with `None` withdraws theirs.
    pub fn set_resign_ask(
        &self,
        key: &GameKey,
        expected_version: u64,
        by: &str,
        ask: Option<&ResignAsk>,
        message_id: Option<&str>,
    ) -> Result<GameRecord> {
        self.update_game(key, expected_version, message_id, |game| {
            game.resign_asks.retain(|a| a.by != by);
            game.resign_asks.extend(ask.cloned());
            Ok(())
        })
    }

    /// Records a draw or takeback offer, replacing a pending offer of the same kind.
    pub fn make_offer(
        &self,
        key: &GameKey,
        expected_version: u64,
        offer: &Offer,
        message_id: Option<&str>,
    ) -> Result<GameRecord> {
        self.update_game(key, expected_version, message_id, |game| {
            game.offers.retain(|o| o.kind.name() != offer.kind.name());
            game.offers.push(offer.clone());
            game.updated_at = offer.at;
            Ok(())
        })
    }

    /// Removes the pending offer of this kind (withdrawn or declined).
    ///
    /// To accept, call [`Store::take_back`] or [`Store::finish_game`], which
    /// clear offers themselves.
    pub fn clear_offer(
        &self,
        key: &GameKey,
        expected_version: u64,
        kind: OfferKind,
        message_id: Option<&str>,
    ) -> Result<GameRecord> {
        self.update_game(key, expected_version, message_id, |game| {
            let before = game.offers.len();
            game.offers.retain(|o| o.kind.name() != kind.name());
            if game.offers.len() == before {
                return Err(StoreError::NoOffer { key: key.clone(), kind: kind.name() });
            }
            Ok(())
        })
    }

    /// Seals a player's bid for a round of a Clash match: one bid per player and round.
    pub fn seal_bid(
        &self,
        key: &GameKey,
        expected_version: u64,
        bid: &SealedBid,
        message_id: Option<&str>,
    ) -> Result<GameRecord> {
        self.update_game(key, expected_version, message_id, |game| {
            let clash = game.clash.as_mut().ok_or_else(|| StoreError::NotAClashMatch(key.clone()))?;
            if clash.sealed_bids.iter().any(|b| b.player == bid.player && b.round == bid.round) {
                return Err(StoreError::BidAlreadySealed { player: bid.player.clone(), round: bid.round });
            }
            clash.sealed_bids.push(bid.clone());
            Ok(())
        })
    }

    /// Ends game `key` at `expected_version`, all at once: the result is set,
    /// the game moves to the archive, its players are free in the channel
    /// again, and, for a rated game between two players, both ratings change
    /// (Glicko-2). Returns the archived game, with the rating changes in its result.
    pub fn finish_game(&self, key: &GameKey, expected_version: u64, end: &GameEnd) -> Result<GameRecord> {
        self.finish_game_with(key, expected_version, end, |_| Ok(()))
    }
}

delegate! {
    /// Makes everything durable now (every change already is when it returns).
    fn flush(&self) -> Result<()>;

    /// Records a challenge, replacing the challenger's earlier one in this
    /// channel; [`StoreError::PlayerBusy`] if either player is in a game there.
    fn create_challenge(&self, channel: &ChannelKey, challenge: &Challenge) -> Result<()>;
    /// The pending challenge from `challenger` in this channel, if any.
    fn challenge(&self, channel: &ChannelKey, challenger: &str) -> Result<Option<Challenge>>;
    /// Every pending challenge in this channel, by challenger.
    fn challenges(&self, channel: &ChannelKey) -> Result<Vec<(String, Result<Challenge>)>>;
    /// Withdraws the challenge from `challenger` in this channel.
    fn withdraw_challenge(&self, channel: &ChannelKey, challenger: &str) -> Result<()>;
    /// Accepts the challenge from `challenger`: the game starts from
    /// `start_fen`, the challenge and the accepter's own are removed, at once.
    fn accept_challenge(&self, channel: &ChannelKey, challenger: &str, accepter: &str, start_fen: &str, at: Timestamp) -> Result<GameRecord>;

    /// Starts a game directly (a game against the bot); [`StoreError::PlayerBusy`]
    /// if either player is in a game in this channel.
    fn create_game(&self, channel: &ChannelKey, new: &NewGame) -> Result<GameRecord>;
    /// The active game `key`: [`StoreError::GameOver`] if it has finished,
    /// [`StoreError::NoSuchGame`] if there never was one.
    fn game(&self, key: &GameKey) -> Result<GameRecord>;
    /// Every active game in this channel, in id order.
    fn games_in_channel(&self, channel: &ChannelKey) -> Result<GameListing>;
    /// Every active game on every platform.
    fn active_games(&self) -> Result<GameListing>;
    /// The active games the correspondence clock must look at by `now`, in
    /// key order (reading only those).
    fn due_games(&self, now: Timestamp) -> Result<GameListing>;
    /// [`Store::due_games`] of `platform`, each taken for this process for a
    /// while (30 s, or until the game changes): another process sharing the
    /// store does not get the same games meanwhile.
    fn claim_due_games(&self, now: Timestamp, platform: &str) -> Result<GameListing>;
    /// The active game of `player` in this channel, if any.
    fn player_game_in_channel(&self, channel: &ChannelKey, player: &str) -> Result<Option<GameRecord>>;
    /// Every active game of `player` on `platform`, in channel order.
    fn games_of(&self, platform: &str, player: &str) -> Result<GameListing>;

    /// A finished game.
    fn archived_game(&self, key: &GameKey) -> Result<GameRecord>;
    /// The finished games of `player` on `platform`, newest first, at most `limit`.
    fn archived_games_of(&self, platform: &str, player: &str, limit: usize) -> Result<GameListing>;

    /// The rating of `player` in `variant` (the starting rating if none).
    fn rating(&self, platform: &str, player: &str, variant: &str) -> Result<Rating>;
    /// The best `limit` rated players of `variant`, highest first.
    fn leaderboard(&self, platform: &str, variant: &str, limit: usize) -> Result<Vec<(String, Rating)>>;
    /// Every rating of `player` on `platform`, by variant.
    fn ratings_of(&self, platform: &str, player: &str) -> Result<Vec<(String, Result<Rating>)>>;
    /// Rates a game played outside the store; `None` if not rated.
    fn record_result(&self, platform: &str, variant: &str, white: &str, black: &str, outcome: Outcome) -> Result<Option<(RatingChange, RatingChange)>>;

    /// The settings of this channel (the defaults if never set).
    fn channel_settings(&self, channel: &ChannelKey) -> Result<ChannelSettings>;
    /// Replaces the settings of this channel.
    fn set_channel_settings(&self, channel: &ChannelKey, settings: &ChannelSettings) -> Result<()>;

    /// Reads every record and index entry and lists what cannot be read or
    /// does not fit together; empty when the store is whole.
    fn verify(&self) -> Result<Vec<StoreError>>;
    /// What a process checks before it starts: [`Store::verify`] of the
    /// embedded store; of a shared one, the active games, challenges and
    /// settings only (its archive, ratings and users grow without bound, and
    /// a damaged one is reported alone when read).
    fn verify_for_start(&self) -> Result<Vec<StoreError>>;

    /// The directory's record of user `id`, if ever seen.
    fn user(&self, platform: &str, id: &str) -> Result<Option<UserRecord>>;
    /// The id of the user who holds `username` now, if known.
    fn user_by_username(&self, platform: &str, username: &str) -> Result<Option<String>>;
    /// Notes user `id` as [`Store::see_user`] does, moving no records.
    fn note_user(&self, platform: &str, id: &str, name: &str, username: Option<&str>, at: Timestamp) -> Result<()>;
    /// Notes the display `name` of user `id`, keeping the username known.
    fn note_name(&self, platform: &str, id: &str, name: &str, at: Timestamp) -> Result<()>;
    /// Whether the records of the legacy player `username` (lower-cased)
    /// were moved to a user id already, or found to be none.
    fn is_migrated(&self, platform: &str, username: &str) -> Result<bool>;
    /// Moves every record keyed by player `old` to player `new`, at once.
    fn migrate_username(&self, platform: &str, old: &str, new: &str) -> Result<Migration>;
    /// Moves channel `from`'s records to channel `to` on the same platform.
    fn move_channel(&self, from: &ChannelKey, to: &str) -> Result<ChannelMove>;

    /// Whether message `message_id` of `platform` was handled.
    fn is_handled(&self, platform: &str, message_id: &str) -> Result<bool>;
    /// Records, at once, that a message was handled, the replies it owes
    /// and the reading position it reached; [`StoreError::AlreadyHandled`]
    /// if it was handled before. The replies are this process's to send.
    fn complete(&self, done: &Completion) -> Result<Vec<Owed>>;
    /// Every reply `platform` still owes, oldest first.
    fn owed(&self, platform: &str) -> Result<Vec<Result<Owed>>>;
    /// The replies `platform` owes that no live process is sending, taken
    /// for this one, oldest first.
    fn claim_owed(&self, platform: &str) -> Result<Vec<Result<Owed>>>;
    /// Tells the other processes this one is alive (its owed replies stay its own).
    fn heartbeat(&self) -> Result<()>;
    /// The platform accepted the whole entry `seq`: it leaves the outbox.
    fn delivered(&self, platform: &str, seq: u64) -> Result<()>;
    /// The platform accepted the first `progress` parts of entry `seq`.
    fn set_progress(&self, platform: &str, seq: u64, progress: u32) -> Result<()>;
    /// The reading position `name` of `platform`, if recorded.
    fn cursor(&self, platform: &str, name: &str) -> Result<Option<String>>;
    /// Every reading position of `platform`, by name.
    fn cursors(&self, platform: &str) -> Result<Vec<(String, String)>>;
    /// Forgets which messages were handled before `before`; returns how many.
    fn forget_handled(&self, platform: &str, before: Timestamp) -> Result<usize>;

    /// Reserves the next moment a message may be sent to `chat`: the
    /// earliest at or after `now` that is `gap_ms` after the chat's last
    /// slot, with at most `per_minute` slots (0: no limit) in any minute.
    /// Every process sending for the bot keeps the one pace.
    fn reserve_send_slot(&self, platform: &str, chat: &str, now: Timestamp, gap_ms: u64, per_minute: usize) -> Result<Timestamp>;

    /// Queues the review of a finished game or of a Clash round (see
    /// [`ReviewJob`]); `false`, changing nothing, if it is queued already.
    fn queue_review(&self, job: &ReviewJob) -> Result<bool>;
    /// Every review `platform` owes, taken or not; a damaged job is reported alone.
    fn reviews_owed(&self, platform: &str) -> Result<Vec<Result<ReviewJob>>>;
    /// Takes, for `lease` from `now`, at most `limit` of the reviews
    /// `platform` owes that no process has (or whose lease has ended),
    /// oldest first: another process (or this one) does not get them until
    /// the lease ends, so a job whose process died is taken again then.
    fn claim_reviews(&self, now: Timestamp, platform: &str, lease: std::time::Duration, limit: usize) -> Result<Vec<ReviewJob>>;
    /// Gives back a review this process took and did not finish (it is
    /// stopping): any process may take it again at once.
    fn release_review(&self, game: &GameKey, round: Option<u32>) -> Result<()>;
    /// Drops a review owed: it was done (or cannot be).
    fn drop_review(&self, game: &GameKey, round: Option<u32>) -> Result<()>;
    /// Keeps the finished review of game `game` (of its round `round`), as
    /// the bot wrote it, replacing one kept before.
    fn set_review(&self, game: &GameKey, round: Option<u32>, review: &str) -> Result<()>;
    /// The finished review of game `game` (of its round `round`), if kept.
    fn review_of(&self, game: &GameKey, round: Option<u32>) -> Result<Option<String>>;
}
