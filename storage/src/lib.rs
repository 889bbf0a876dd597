//! Durable storage of Kibitz games, challenges, offers, Clash matches, the
//! archive of finished games, ratings, channel settings and the users seen:
//! in [sled] (embedded, one process: [`Store::open`]) or in PostgreSQL
//! (shared by several processes: [`Store::connect`]; its schema is in
//! `storage/migrations/` and its workings in the `pg` module). Both backends
//! keep the guarantees below; the layout described here is sled's, and
//! PostgreSQL keeps the same records, as `jsonb`, in a table per kind.
//!
//! The store knows nothing of chat platforms or of the rules: a platform is
//! a name (`"discord"`), players and channels are the platform's ids, moves
//! and positions are text the `rules` crate wrote. Every change is one
//! atomic step that is on disk when the method returns.
//!
//! ```
//! use kibitz_storage::{Challenge, ChannelKey, ColourChoice, GameSettings, MoveRecord, Store, StoreError, Timestamp};
//!
//! # fn main() -> Result<(), StoreError> {
//! # let dir = tempfile::tempdir().unwrap();
//! let store = Store::open(dir.path())?;
//! let channel = ChannelKey::new("discord", "1234");
//! let challenge = Challenge {
//!     challenger: "ann".into(),
//!     challenged: Some("bob".into()),
//!     variant: "chess".into(),
//!     colour: ColourChoice::White,
//!     settings: GameSettings::default(),
//!     clash: false,
//!     at: Timestamp::now(),
//! };
//! store.create_challenge(&channel, &challenge)?;
//! let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
//! let game = store.accept_challenge(&channel, "ann", "bob", start, Timestamp::now())?;
//!
//! // A move is a compare-and-swap on the game's version...
//! let mv = MoveRecord { text: "e2e4".into(), by: "ann".into(), at: Timestamp::now(), message_id: Some("m1".into()) };
//! let after = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
//! let game = store.apply_move(&game.key, game.version, mv.clone(), after)?;
//! assert_eq!(game.moves.len(), 1);
//!
//! // ...and the same chat message delivered twice applies once.
//! let again = store.apply_move(&game.key, game.version - 1, mv, after);
//! assert!(matches!(again, Err(StoreError::AlreadyApplied { .. })));
//! assert_eq!(store.player_game_in_channel(&channel, "bob")?.unwrap().key.id, game.key.id);
//! # Ok(())
//! # }
//! ```
//!
//! # On disk
//!
//! One sled tree per kind of record; keys join their parts with NUL bytes
//! (parts may not contain NUL):
//!
//! | tree | key | value |
//! |---|---|---|
//! | `games` | `platform\0channel\0id` | active [`GameRecord`] |
//! | `games_by_player` | `platform\0player\0channel` | the id of the player's game there |
//! | `challenges` | `platform\0channel\0challenger` | [`Challenge`] |
//! | `archive` | `platform\0channel\0id` | finished [`GameRecord`] |
//! | `archive_by_player` | `platform\0player\0` end time (8 bytes BE, ms) `channel\0id` | empty |
//! | `ratings` | `platform\0player\0variant` | [`Rating`] |
//! | `channels` | `platform\0channel` | [`ChannelSettings`] |
//! | `handled` | `platform\0message id` | when it was handled (8 bytes BE, ms) |
//! | `outbox` | `platform\0` sequence number (8 bytes BE) | a reply still owed: a JSON header, then the adapter's payload |
//! | `cursors` | `platform\0name` | a reading position (Discord: the last message read in a channel) |
//! | `users` | `platform\0user id` | [`UserRecord`]: display name, username, last seen |
//! | `usernames` | `platform\0lower-cased username` | the id of the user who holds it now |
//! | `legacy_usernames` | `platform\0lower-cased username` | the id its old records moved to |
//! | `review_jobs` | `platform\0channel\0id\0` round (4 bytes BE; 0: the whole game) | a review owed ([`ReviewJob`]) |
//! | `reviews` | the same | a finished review, as the bot wrote it |
//! | `due` | due time (8 bytes BE, ms) `platform\0channel\0id` | empty |
//! | `meta` | `seq`; `layout` | the change counter (8 bytes BE); the layout version (4 bytes BE) |
//!
//! Values are JSON in a versioned envelope, `{"v":2,"record":{...}}`. A
//! record of an older version is upgraded when read (and written back in
//! the current version at its next change); a newer or damaged one gives
//! [`StoreError::UnknownVersion`] or [`StoreError::Corrupt`] for that record
//! alone, and listings report it beside the games that read fine.
//!
//! A game change (move, takeback, offer, bid) is a compare-and-swap of the
//! game's record: it names the version it was made against, and applies
//! only if the game is still there; it records the chat message id, so a
//! retried delivery is recognised. Changes that touch several trees
//! (accepting a challenge, finishing a game with its ratings) are sled
//! transactions. Each change ends with a flush (an fsync) before it returns.
//!
//! Players are the platforms' immutable user ids; usernames are names in
//! the directory ([`Store::see_user`], [`Store::user_by_username`]).
//! Records that older versions kept under a username move to the user's id
//! the first time the directory sees that username
//! ([`Store::migrate_username`]), and a channel's records move to its new id
//! with [`Store::move_channel`].
//! The `due` index lists the active games the correspondence clock must
//! look at, by the time it must ([`Store::due_games`]): the earlier of the
//! reminder (three quarters of the days per move) and the loss on time, and
//! for a game against the bot a minute after its last change. It changes in
//! the same transaction as the game. A store written before it existed (no
//! `layout` in `meta`) gets it built at open.
//!
//! # Faults
//!
//! Every change also counts itself in `meta` (`seq`), in its own
//! transaction. Once it is on disk the count is written to the manifest,
//! the file `kibitz-changes` beside sled's files (synced when the store is
//! flushed and closed). A store that opens with a smaller count than its
//! manifest lost its last changes (sled drops the end of a log that is
//! damaged or cut off, silently): [`Store::open`] refuses it with
//! [`StoreError::LostChanges`], and [`Store::open_accepting_loss`] opens it
//! anyway. Opening reads no records; [`Store::verify`] reads them all (the
//! `kibitz` binary does both before it starts).
//!
//! A change whose flush fails (a full disk) is undone: its writes were
//! journalled with the values before them, the database is opened afresh
//! (sled refuses every write after a failed one), and those values are
//! written back, in memory and on disk, before the error is returned. The
//! file `kibitz-reserve` (2 MiB) holds room for that on a full disk: it is
//! given up to reopen and made again after the next change that succeeds.
//! The error's `Display` is for the player ("the bot's storage is full;
//! nothing was changed, try again later"); [`StoreError::detail`] has the
//! system's words, for logs.
//!
//! [`migrate`] copies every record of an embedded store into an empty
//! PostgreSQL database (`kibitz migrate`), in one transaction.
//!
//! [`Store::backup`] writes every tree to one checksummed file while
//! changes wait; [`Store::restore`] brings it back (never over a store in
//! use; a store already there is moved aside). A running bot takes the
//! backups asked for with [`request_backup`], through a request file in the
//! store's folder ([`Store::serve_backup_request`]).
//!
//! Ratings are Glicko-2, computed by the `skillratings` crate, per platform,
//! player and variant. [`bench()`] measures the speed targets (a durable move
//! commit; opening 10,000 games and listing a player's).

#![warn(missing_docs)]

mod backup;
mod bench;
mod clock;
mod codec;
mod copy;
mod db;
mod embedded;
mod error;
mod keys;
mod pg;
mod rating;
mod record;
mod review;
mod store;
#[doc(hidden)]
pub mod testing;

pub use backup::{BACKUP_ANSWER, BACKUP_REQUEST, BackupSummary, request_backup};
pub use bench::{BenchReport, bench};
pub use clock::{CLOCK_MAX, FLAG_GRACE_MS};
pub use copy::{CopyReport, hide_password, migrate, migrate_into_schema, url_without_password};
pub use error::{Result, StoreError};
pub use keys::{ChannelKey, GAME_ID_ALPHABET, GAME_ID_LEN, GameId, GameKey};
pub use rating::Rating;
pub use record::{
    Challenge, ChannelSettings, ChatClock, ClashMatch, ClashRound, ClockState, Colour, ColourChoice, GameRecord,
    GameResult, GameSettings, MoveRecord, NewGame, Offer, OfferKind, Outcome, RatingChange, ResignAsk, SealedBid,
    Timestamp,
};
pub use review::ReviewJob;
pub use store::{BackendKind, ChannelMove, Completion, GameEnd, GameListing, Migration, Owed, Store, UserRecord};
