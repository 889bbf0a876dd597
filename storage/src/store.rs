//! The store: sled trees, and every operation as one atomic, durable step.

use std::fmt;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sled::Tree;
use sled::transaction::{ConflictableTransactionError, TransactionError, Transactional, TransactionalTree};

use crate::codec::{self, Record};
use crate::keys::{self, join, prefix};
use crate::rating::rate;
use crate::{
    Challenge, ChannelKey, ChannelSettings, ClashMatch, ColourChoice, GameId, GameKey, GameRecord, GameResult,
    MoveRecord, NewGame, Offer, OfferKind, Outcome, Rating, RatingChange, Result, SealedBid, StoreError, Timestamp,
};

mod directory;

pub use directory::{ChannelMove, Migration, UserRecord};

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

/// Opens the database, waiting up to two seconds for the lock: a store
/// closed a moment ago (a restart in the same process) lets go of its lock
/// only when sled's background thread has finished.
fn open_db(path: &Path) -> Result<sled::Db> {
    let mut wait = Duration::from_millis(5);
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    loop {
        match sled::Config::new().path(path).cache_capacity(64 << 20).open() {
            Err(sled::Error::Io(e)) if e.kind() == std::io::ErrorKind::WouldBlock || e.to_string().contains("lock") => {
                if std::time::Instant::now() >= deadline {
                    return Err(sled::Error::Io(e).into());
                }
                std::thread::sleep(wait);
                wait = (wait * 2).min(Duration::from_millis(100));
            }
            other => return Ok(other?),
        }
    }
}

/// The game store: one sled database holding every platform's channels.
///
/// Cheap to clone (the clones share the database) and safe to use from many
/// threads. Every method that changes something returns only after the
/// change is on disk.
#[derive(Clone)]
pub struct Store {
    db: sled::Db,
    /// `platform\0channel\0id` → active [`GameRecord`].
    games: Tree,
    /// `platform\0player\0channel` → id of the player's active game there.
    players: Tree,
    /// `platform\0channel\0challenger` → [`Challenge`].
    challenges: Tree,
    /// `platform\0channel\0id` → finished [`GameRecord`].
    archive: Tree,
    /// `platform\0player\0` + end time (8 bytes, big-endian ms) + `channel\0id` → nothing.
    archive_index: Tree,
    /// `platform\0player\0variant` → [`Rating`].
    ratings: Tree,
    /// `platform\0channel` → [`ChannelSettings`].
    channels: Tree,
    /// sled's log file, opened again to fsync it (see [`Store::sync`]).
    log: Arc<File>,
    durable: bool,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("durable", &self.durable).finish_non_exhaustive()
    }
}

type TxResult<T> = std::result::Result<T, ConflictableTransactionError<StoreError>>;

fn abort<T>(error: StoreError) -> TxResult<T> {
    Err(ConflictableTransactionError::Abort(error))
}

trait OrAbort<T> {
    fn or_abort(self) -> TxResult<T>;
}

impl<T> OrAbort<T> for Result<T> {
    fn or_abort(self) -> TxResult<T> {
        self.map_err(ConflictableTransactionError::Abort)
    }
}

pub(crate) fn settled<T>(result: std::result::Result<T, TransactionError<StoreError>>) -> Result<T> {
    result.map_err(|e| match e {
        TransactionError::Abort(e) => e,
        TransactionError::Storage(e) => e.into(),
    })
}

fn player_key(platform: &str, player: &str, channel: &str) -> Result<Vec<u8>> {
    join(&[("platform", platform), ("player", player), ("channel", channel)])
}

fn challenge_key(channel: &ChannelKey, challenger: &str) -> Result<Vec<u8>> {
    join(&[("platform", &channel.platform), ("channel", &channel.channel), ("player", challenger)])
}

fn rating_key(platform: &str, player: &str, variant: &str) -> Result<Vec<u8>> {
    join(&[("platform", platform), ("player", player), ("variant", variant)])
}

fn archive_index_key(key: &GameKey, player: &str, at: Timestamp) -> Result<Vec<u8>> {
    let mut index = prefix(&[("platform", &key.channel.platform), ("player", player)])?;
    index.extend_from_slice(&at.0.to_be_bytes());
    index.extend_from_slice(&join(&[("channel", &key.channel.channel), ("game id", key.id.as_str())])?);
    Ok(index)
}

fn describe_challenge(channel: &ChannelKey, challenger: &str) -> String {
    format!("the challenge from {challenger} in {channel}")
}

fn describe_rating(platform: &str, player: &str, variant: &str) -> String {
    format!("the {variant} rating of {player} on {platform}")
}

fn decode_game(key: &GameKey, bytes: &[u8]) -> Result<GameRecord> {
    codec::decode(|| key.describe(), bytes)
}

fn encode_game(game: &GameRecord) -> Result<Vec<u8>> {
    codec::encode(|| game.key.describe(), game)
}

fn encode<T: Record>(what: impl FnOnce() -> String, record: &T) -> Result<Vec<u8>> {
    codec::encode(what, record)
}

impl Store {
    /// Opens (or creates) the store in the directory `path`.
    ///
    /// Only one process may have a store open; a second gets
    /// [`StoreError::Database`].
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        let db = open_db(path)?;
        let log = File::options().read(true).write(true).open(path.join("db")).map_err(sled::Error::Io)?;
        // The log's directory entry must be durable too, once.
        File::open(path).and_then(|dir| dir.sync_all()).map_err(sled::Error::Io)?;
        Ok(Store {
            games: db.open_tree("games")?,
            players: db.open_tree("games_by_player")?,
            challenges: db.open_tree("challenges")?,
            archive: db.open_tree("archive")?,
            archive_index: db.open_tree("archive_by_player")?,
            ratings: db.open_tree("ratings")?,
            channels: db.open_tree("channels")?,
            db,
            log: Arc::new(log),
            durable: true,
        })
    }

    /// Turns the flush after each change off, for filling a store in bulk
    /// (the bench). [`Store::flush`] then makes everything durable at once.
    pub(crate) fn set_durable(&mut self, durable: bool) {
        self.durable = durable;
    }

    /// Writes everything to disk now (every change already does this before returning).
    pub fn flush(&self) -> Result<()> {
        // sled 0.34's flush writes its log and waits with `sync_file_range`,
        // which survives a killed process but not a power cut (it leaves the
        // drive's cache and the file's size unsynced); its own fsync runs
        // only every half second. An fdatasync of the log file closes that gap.
        self.db.flush()?;
        self.log.sync_data().map_err(sled::Error::Io)?;
        Ok(())
    }

    /// A tree of the database by name (opened on first use).
    pub(crate) fn tree(&self, name: &str) -> Result<Tree> {
        Ok(self.db.open_tree(name)?)
    }

    /// A number never handed out before by this database, rising.
    pub(crate) fn next_id(&self) -> Result<u64> {
        Ok(self.db.generate_id()?)
    }

    fn sync(&self) -> Result<()> {
        if self.durable { self.flush() } else { Ok(()) }
    }

    /// Flushes before reporting a retried message, so that "already applied" is as durable as the first answer.
    fn settle<T>(&self, result: Result<T>) -> Result<T> {
        match result {
            Ok(value) => {
                self.sync()?;
                Ok(value)
            }
            Err(e @ StoreError::AlreadyApplied { .. }) => {
                self.sync()?;
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    // ---- challenges ----

    /// Records a challenge, replacing the challenger's earlier one in this channel.
    ///
    /// Refused with [`StoreError::PlayerBusy`] if the challenger, or the
    /// player challenged, is already in a game in this channel.
    pub fn create_challenge(&self, channel: &ChannelKey, challenge: &Challenge) -> Result<()> {
        let key = challenge_key(channel, &challenge.challenger)?;
        let value = encode(|| describe_challenge(channel, &challenge.challenger), challenge)?;
        let mut busy = vec![player_key(&channel.platform, &challenge.challenger, &channel.channel)?];
        if let Some(challenged) = &challenge.challenged {
            busy.push(player_key(&channel.platform, challenged, &channel.channel)?);
        }
        let result = (&self.challenges, &self.players).transaction(|(challenges, players)| {
            for (player_key, player) in busy.iter().zip([Some(&challenge.challenger), challenge.challenged.as_ref()]) {
                if let Some(id) = players.get(player_key)? {
                    let player = player.cloned().unwrap_or_default();
                    return abort(StoreError::PlayerBusy { player, game: GameId::stored(&id) });
                }
            }
            challenges.insert(key.as_slice(), value.as_slice())?;
            Ok(())
        });
        self.settle(settled(result))
    }

    /// The pending challenge from `challenger` in this channel, if any.
    pub fn challenge(&self, channel: &ChannelKey, challenger: &str) -> Result<Option<Challenge>> {
        let key = challenge_key(channel, challenger)?;
        match self.challenges.get(key)? {
            Some(raw) => codec::decode(|| describe_challenge(channel, challenger), &raw).map(Some),
            None => Ok(None),
        }
    }

    /// Every pending challenge in this channel, by challenger.
    pub fn challenges(&self, channel: &ChannelKey) -> Result<Vec<(String, Result<Challenge>)>> {
        let prefix = channel.prefix()?;
        let mut found = Vec::new();
        for entry in self.challenges.scan_prefix(&prefix) {
            let (key, raw) = entry?;
            let challenger = keys::text(&key[prefix.len()..]);
            let challenge = codec::decode(|| describe_challenge(channel, &challenger), &raw);
            found.push((challenger, challenge));
        }
        Ok(found)
    }

    /// Withdraws the challenge from `challenger` in this channel.
    pub fn withdraw_challenge(&self, channel: &ChannelKey, challenger: &str) -> Result<()> {
        let key = challenge_key(channel, challenger)?;
        match self.challenges.remove(key)? {
            Some(_) => self.sync(),
            None => Err(StoreError::NoSuchChallenge { challenger: challenger.to_owned() }),
        }
    }

    /// Accepts the challenge from `challenger`: the game starts from
    /// `start_fen` (which the caller reads from the variant), the challenge and
    /// any challenge by the accepter in this channel are removed, all at once.
    ///
    /// A random colour choice is drawn here.
    pub fn accept_challenge(
        &self,
        channel: &ChannelKey,
        challenger: &str,
        accepter: &str,
        start_fen: &str,
        at: Timestamp,
    ) -> Result<GameRecord> {
        if challenger == accepter {
            return Err(StoreError::OwnChallenge);
        }
        let key = challenge_key(channel, challenger)?;
        let accepters_own = challenge_key(channel, accepter)?;
        let result = (&self.challenges, &self.games, &self.players, &self.archive).transaction(
            |(challenges, games, players, archive)| {
                let Some(raw) = challenges.get(&key)? else {
                    return abort(StoreError::NoSuchChallenge { challenger: challenger.to_owned() });
                };
                let challenge: Challenge =
                    codec::decode(|| describe_challenge(channel, challenger), &raw).or_abort()?;
                if let Some(challenged) = &challenge.challenged
                    && challenged != accepter
                {
                    return abort(StoreError::NotYourChallenge {
                        challenger: challenger.to_owned(),
                        challenged: challenged.clone(),
                    });
                }
                let challenger_white = match challenge.colour {
                    ColourChoice::White => true,
                    ColourChoice::Black => false,
                    ColourChoice::Random => fastrand::bool(),
                };
                let (white, black) = if challenger_white { (challenger, accepter) } else { (accepter, challenger) };
                let new = NewGame {
                    variant: challenge.variant,
                    white: white.to_owned(),
                    black: black.to_owned(),
                    settings: challenge.settings,
                    start_fen: start_fen.to_owned(),
                    at,
                    clash: challenge.clash.then(ClashMatch::default),
                };
                let game = insert_game(games, players, archive, channel, &new)?;
                challenges.remove(key.as_slice())?;
                challenges.remove(accepters_own.as_slice())?;
                Ok(game)
            },
        );
        self.settle(settled(result))
    }

    // ---- games ----

    /// Starts a game directly, without a challenge (a rematch, a game against the bot).
    ///
    /// Refused with [`StoreError::PlayerBusy`] if either player is already in
    /// a game in this channel. The game gets a fresh id and version 1.
    pub fn create_game(&self, channel: &ChannelKey, new: &NewGame) -> Result<GameRecord> {
        channel.encode()?;
        let result = (&self.games, &self.players, &self.archive)
            .transaction(|(games, players, archive)| insert_game(games, players, archive, channel, new));
        self.settle(settled(result))
    }

    /// The active game `key`.
    ///
    /// [`StoreError::GameOver`] if it has finished (see [`Store::archived_game`]),
    /// [`StoreError::NoSuchGame`] if there never was one.
    pub fn game(&self, key: &GameKey) -> Result<GameRecord> {
        let bytes = key.encode()?;
        match self.games.get(&bytes)? {
            Some(raw) => decode_game(key, &raw),
            None => Err(self.missing(key, &bytes)?),
        }
    }

    fn missing(&self, key: &GameKey, bytes: &[u8]) -> Result<StoreError> {
        Ok(if self.archive.contains_key(bytes)? {
            StoreError::GameOver(key.clone())
        } else {
            StoreError::NoSuchGame(key.clone())
        })
    }

    /// Every active game in this channel, in id order.
    pub fn games_in_channel(&self, channel: &ChannelKey) -> Result<GameListing> {
        let prefix = channel.prefix()?;
        let mut found = Vec::new();
        for entry in self.games.scan_prefix(&prefix) {
            let (key, raw) = entry?;
            let key = channel.game(GameId::stored(&key[prefix.len()..]));
            let game = decode_game(&key, &raw);
            found.push((key, game));
        }
        Ok(found)
    }

    /// Every active game on every platform (for the correspondence clocks).
    pub fn active_games(&self) -> Result<GameListing> {
        let mut found = Vec::new();
        for entry in self.games.iter() {
            let (key, raw) = entry?;
            let mut parts = key.splitn(3, |&b| b == 0);
            let (Some(platform), Some(channel), Some(id)) = (parts.next(), parts.next(), parts.next()) else {
                continue;
            };
            let key = ChannelKey::new(keys::text(platform), keys::text(channel)).game(GameId::stored(id));
            let game = decode_game(&key, &raw);
            found.push((key, game));
        }
        Ok(found)
    }

    /// The active game of `player` in this channel, if any.
    pub fn player_game_in_channel(&self, channel: &ChannelKey, player: &str) -> Result<Option<GameRecord>> {
        let Some(id) = self.players.get(player_key(&channel.platform, player, &channel.channel)?)? else {
            return Ok(None);
        };
        match self.game(&channel.game(GameId::stored(&id))) {
            Ok(game) => Ok(Some(game)),
            // Finished between the two reads.
            Err(StoreError::NoSuchGame(_) | StoreError::GameOver(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Every active game of `player` on `platform`, one per channel, in channel order.
    pub fn games_of(&self, platform: &str, player: &str) -> Result<GameListing> {
        let prefix = prefix(&[("platform", platform), ("player", player)])?;
        let mut found = Vec::new();
        for entry in self.players.scan_prefix(&prefix) {
            let (key, id) = entry?;
            let channel = ChannelKey::new(platform, keys::text(&key[prefix.len()..]));
            let key = channel.game(GameId::stored(&id));
            match self.games.get(key.encode()?)? {
                Some(raw) => {
                    let game = decode_game(&key, &raw);
                    found.push((key, game));
                }
                // Finished between the two reads.
                None => continue,
            }
        }
        Ok(found)
    }

    /// Changes game `key` in one compare-and-swap: `change` runs on the game as
    /// stored, and the result is written only if the game is still at
    /// `expected_version`. This is the primitive under every game change below.
    ///
    /// - [`StoreError::AlreadyApplied`] if `message_id` was applied before
    ///   (checked first, so a retried delivery is recognised even though its
    ///   expected version is stale);
    /// - [`StoreError::Conflict`] if the game is at another version;
    /// - any error `change` returns, with nothing written.
    ///
    /// The store keeps the key, sets the version to `expected_version + 1`, and
    /// records `message_id`; use [`Store::finish_game`] to end a game.
    pub fn update_game(
        &self,
        key: &GameKey,
        expected_version: u64,
        message_id: Option<&str>,
        mut change: impl FnMut(&mut GameRecord) -> Result<()>,
    ) -> Result<GameRecord> {
        let bytes = key.encode()?;
        let result = loop {
            let Some(old) = self.games.get(&bytes)? else {
                break Err(self.missing(key, &bytes)?);
            };
            let mut game = decode_game(key, &old)?;
            if let Some(id) = message_id
                && game.applied_messages.iter().any(|m| m == id)
            {
                break Err(StoreError::AlreadyApplied { key: key.clone(), version: game.version });
            }
            if game.version != expected_version {
                break Err(StoreError::Conflict { key: key.clone(), expected: expected_version, actual: game.version });
            }
            change(&mut game)?;
            game.key = key.clone();
            game.version = expected_version + 1;
            if let Some(id) = message_id {
                game.applied_messages.push(id.to_owned());
            }
            let new = encode_game(&game)?;
            match self.games.compare_and_swap(&bytes, Some(old), Some(new))? {
                Ok(()) => break Ok(game),
                // Someone else wrote first: read again, and the checks above say what happened.
                Err(_) => continue,
            }
        };
        self.settle(result)
    }

    /// Plays a move: appends `mv`, sets the position to `fen` (which the caller
    /// computed with the rules), and lets pending offers lapse.
    ///
    /// Two moves racing on one game never both apply: the second gets
    /// [`StoreError::Conflict`]. A retried delivery of the same message gets
    /// [`StoreError::AlreadyApplied`]. When this returns `Ok` the move is on disk.
    pub fn apply_move(&self, key: &GameKey, expected_version: u64, mv: MoveRecord, fen: &str) -> Result<GameRecord> {
        let message_id = mv.message_id.clone();
        self.update_game(key, expected_version, message_id.as_deref(), |game| {
            game.updated_at = mv.at;
            game.moves.push(mv.clone());
            fen.clone_into(&mut game.fen);
            game.offers.clear();
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
            game.moves.truncate(available - plies);
            fen.clone_into(&mut game.fen);
            game.offers.clear();
            game.updated_at = at;
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

    /// [`Store::finish_game`], with a last change to the game made in the
    /// same step (a Clash match writes its final state): `change` runs on
    /// the game as stored, before the result is set; an error it returns
    /// leaves everything as it was. `change` may run more than once (a
    /// transaction that has to start again), always on the stored game.
    pub fn finish_game_with(
        &self,
        key: &GameKey,
        expected_version: u64,
        end: &GameEnd,
        change: impl Fn(&mut GameRecord) -> Result<()>,
    ) -> Result<GameRecord> {
        let bytes = key.encode()?;
        let trees = (&self.games, &self.players, &self.archive, &self.archive_index, &self.ratings);
        let result = trees.transaction(|(games, players, archive, archive_index, ratings)| {
            let Some(raw) = games.get(&bytes)? else {
                if let Some(raw) = archive.get(&bytes)? {
                    let game = decode_game(key, &raw).or_abort()?;
                    if let Some(id) = &end.message_id
                        && game.applied_messages.contains(id)
                    {
                        return abort(StoreError::AlreadyApplied { key: key.clone(), version: game.version });
                    }
                    return abort(StoreError::GameOver(key.clone()));
                }
                return abort(StoreError::NoSuchGame(key.clone()));
            };
            let mut game = decode_game(key, &raw).or_abort()?;
            if let Some(id) = &end.message_id
                && game.applied_messages.contains(id)
            {
                return abort(StoreError::AlreadyApplied { key: key.clone(), version: game.version });
            }
            if game.version != expected_version {
                return abort(StoreError::Conflict {
                    key: key.clone(),
                    expected: expected_version,
                    actual: game.version,
                });
            }
            change(&mut game).or_abort()?;
            let changes = if game.settings.rated && game.white != game.black {
                rate_in(ratings, &key.channel.platform, &game.variant, &game.white, &game.black, end.outcome)?
            } else {
                None
            };
            game.version += 1;
            game.updated_at = end.at;
            game.offers.clear();
            game.result = Some(GameResult {
                outcome: end.outcome,
                reason: end.reason.clone(),
                at: end.at,
                white_rating: changes.map(|(w, _)| w),
                black_rating: changes.map(|(_, b)| b),
            });
            if let Some(id) = &end.message_id {
                game.applied_messages.push(id.clone());
            }
            games.remove(bytes.as_slice())?;
            archive.insert(bytes.as_slice(), encode_game(&game).or_abort()?)?;
            for player in [&game.white, &game.black] {
                let pk = player_key(&key.channel.platform, player, &key.channel.channel).or_abort()?;
                if players.get(&pk)?.is_some_and(|id| *id == *key.id.as_str().as_bytes()) {
                    players.remove(pk)?;
                }
                archive_index.insert(archive_index_key(key, player, end.at).or_abort()?, &[])?;
            }
            Ok(game)
        });
        self.settle(settled(result))
    }

    // ---- archive ----

    /// A finished game.
    pub fn archived_game(&self, key: &GameKey) -> Result<GameRecord> {
        match self.archive.get(key.encode()?)? {
            Some(raw) => decode_game(key, &raw),
            None => Err(StoreError::NoSuchGame(key.clone())),
        }
    }

    /// The finished games of `player` on `platform`, newest first, at most `limit`.
    pub fn archived_games_of(&self, platform: &str, player: &str, limit: usize) -> Result<GameListing> {
        let prefix = prefix(&[("platform", platform), ("player", player)])?;
        let mut found = Vec::new();
        for entry in self.archive_index.scan_prefix(&prefix).rev() {
            if found.len() >= limit {
                break;
            }
            let (index, _) = entry?;
            let Some(rest) = index.get(prefix.len() + 8..) else { continue };
            let [channel, id] = keys::split(rest)[..] else { continue };
            let key = ChannelKey::new(platform, keys::text(channel)).game(GameId::stored(id));
            let game = match self.archive.get(key.encode()?)? {
                Some(raw) => decode_game(&key, &raw),
                None => Err(StoreError::Corrupt {
                    record: key.describe(),
                    reason: "listed in the archive index but missing from the archive".into(),
                }),
            };
            found.push((key, game));
        }
        Ok(found)
    }

    // ---- ratings ----

    /// The rating of `player` on `platform` in `variant` (the starting rating if they have none).
    pub fn rating(&self, platform: &str, player: &str, variant: &str) -> Result<Rating> {
        match self.ratings.get(rating_key(platform, player, variant)?)? {
            Some(raw) => codec::decode(|| describe_rating(platform, player, variant), &raw),
            None => Ok(Rating::default()),
        }
    }

    /// The best `limit` rated players of `variant` on `platform`, highest
    /// rating first. Damaged rating records are skipped.
    pub fn leaderboard(&self, platform: &str, variant: &str, limit: usize) -> Result<Vec<(String, Rating)>> {
        let prefix = prefix(&[("platform", platform)])?;
        let mut found = Vec::new();
        for entry in self.ratings.scan_prefix(&prefix) {
            let (key, raw) = entry?;
            let rest = &key[prefix.len()..];
            let Some(split) = rest.iter().position(|&b| b == 0) else { continue };
            if keys::text(&rest[split + 1..]) != variant {
                continue;
            }
            let player = keys::text(&rest[..split]);
            if let Ok(rating) = codec::decode::<Rating>(|| describe_rating(platform, &player, variant), &raw)
                && rating.games > 0
            {
                found.push((player, rating));
            }
        }
        found.sort_by(|a, b| b.1.rating.total_cmp(&a.1.rating).then_with(|| a.0.cmp(&b.0)));
        found.truncate(limit);
        Ok(found)
    }

    /// Every rating of `player` on `platform`, by variant.
    pub fn ratings_of(&self, platform: &str, player: &str) -> Result<Vec<(String, Result<Rating>)>> {
        let prefix = prefix(&[("platform", platform), ("player", player)])?;
        let mut found = Vec::new();
        for entry in self.ratings.scan_prefix(&prefix) {
            let (key, raw) = entry?;
            let variant = keys::text(&key[prefix.len()..]);
            let rating = codec::decode(|| describe_rating(platform, player, &variant), &raw);
            found.push((variant, rating));
        }
        Ok(found)
    }

    /// Rates a game played outside the store (an imported result): both
    /// ratings change at once. `None` for an aborted game or a player against themselves.
    ///
    /// Games ended with [`Store::finish_game`] are rated there; do not rate them again.
    pub fn record_result(
        &self,
        platform: &str,
        variant: &str,
        white: &str,
        black: &str,
        outcome: Outcome,
    ) -> Result<Option<(RatingChange, RatingChange)>> {
        if white == black {
            return Ok(None);
        }
        let result = self.ratings.transaction(|ratings| rate_in(ratings, platform, variant, white, black, outcome));
        self.settle(settled(result))
    }

    // ---- channel settings ----

    /// The settings of this channel (the defaults if never set).
    pub fn channel_settings(&self, channel: &ChannelKey) -> Result<ChannelSettings> {
        match self.channels.get(channel.encode()?)? {
            Some(raw) => codec::decode(|| format!("the settings of {channel}"), &raw),
            None => Ok(ChannelSettings::default()),
        }
    }

    /// Replaces the settings of this channel.
    pub fn set_channel_settings(&self, channel: &ChannelKey, settings: &ChannelSettings) -> Result<()> {
        let value = encode(|| format!("the settings of {channel}"), settings)?;
        self.channels.insert(channel.encode()?, value)?;
        self.sync()
    }

    // ---- checking ----

    /// Reads every record and index entry, and lists what cannot be read or
    /// does not fit together. An empty list means the store is whole.
    pub fn verify(&self) -> Result<Vec<StoreError>> {
        let mut problems = Vec::new();
        let damaged = |record: String, reason: &str| StoreError::Corrupt { record, reason: reason.to_owned() };
        for (tree, archived) in [(&self.games, false), (&self.archive, true)] {
            for entry in tree.iter() {
                let (raw_key, raw) = entry?;
                let key = game_key_of(&raw_key);
                match decode_game(&key, &raw) {
                    Ok(game) if game.key != key => problems.push(damaged(key.describe(), "stored under another key")),
                    Ok(game) if !archived => {
                        for player in [&game.white, &game.black] {
                            let pk = player_key(&key.channel.platform, player, &key.channel.channel)?;
                            if self.players.get(pk)?.is_none_or(|id| *id != *key.id.as_str().as_bytes()) {
                                problems.push(damaged(key.describe(), "missing from its player's index"));
                            }
                        }
                    }
                    Ok(_) => {}
                    Err(e) => problems.push(e),
                }
            }
        }
        for entry in self.players.iter() {
            let (raw_key, id) = entry?;
            let parts = keys::split(&raw_key);
            if let [platform, _, channel] = parts[..] {
                let key = ChannelKey::new(keys::text(platform), keys::text(channel)).game(GameId::stored(&id));
                if !self.games.contains_key(key.encode()?)? {
                    problems.push(damaged(key.describe(), "in the player index but not among the active games"));
                }
            } else {
                problems.push(damaged(keys::text(&raw_key), "malformed player index key"));
            }
        }
        for entry in self.archive_index.iter() {
            let (raw_key, _) = entry?;
            let parts = keys::split(&raw_key);
            let whole = parts.len() >= 2 && raw_key.len() >= parts[0].len() + parts[1].len() + 2 + 8;
            let target = whole.then(|| {
                let rest = &raw_key[parts[0].len() + parts[1].len() + 2 + 8..];
                match keys::split(rest)[..] {
                    [channel, id] => {
                        Some(ChannelKey::new(keys::text(parts[0]), keys::text(channel)).game(GameId::stored(id)))
                    }
                    _ => None,
                }
            });
            match target.flatten() {
                Some(key) if !self.archive.contains_key(key.encode()?)? => {
                    problems.push(damaged(key.describe(), "in the archive index but not in the archive"));
                }
                Some(_) => {}
                None => problems.push(damaged(keys::text(&raw_key), "malformed archive index key")),
            }
        }
        for entry in self.challenges.iter() {
            let (key, raw) = entry?;
            if let Err(e) = codec::decode::<Challenge>(|| format!("the challenge {}", keys::text(&key)), &raw) {
                problems.push(e);
            }
        }
        for entry in self.ratings.iter() {
            let (key, raw) = entry?;
            if let Err(e) = codec::decode::<Rating>(|| format!("the rating {}", keys::text(&key)), &raw) {
                problems.push(e);
            }
        }
        for entry in self.channels.iter() {
            let (key, raw) = entry?;
            if let Err(e) = codec::decode::<ChannelSettings>(|| format!("the settings {}", keys::text(&key)), &raw) {
                problems.push(e);
            }
        }
        Ok(problems)
    }
}

/// The game key a raw `platform\0channel\0id` key names, read leniently so that a damaged key can still be reported.
fn game_key_of(raw: &[u8]) -> GameKey {
    let parts = keys::split(raw);
    let part = |i: usize| parts.get(i).map(|p| keys::text(p)).unwrap_or_default();
    ChannelKey::new(part(0), part(1)).game(GameId::stored(parts.get(2).copied().unwrap_or_default()))
}

/// Inserts a new game under a fresh id, inside a transaction.
fn insert_game(
    games: &TransactionalTree,
    players: &TransactionalTree,
    archive: &TransactionalTree,
    channel: &ChannelKey,
    new: &NewGame,
) -> TxResult<GameRecord> {
    let mut player_keys = Vec::with_capacity(2);
    for player in [&new.white, &new.black] {
        let key = player_key(&channel.platform, player, &channel.channel).or_abort()?;
        if let Some(id) = players.get(&key)? {
            return abort(StoreError::PlayerBusy { player: player.clone(), game: GameId::stored(&id) });
        }
        player_keys.push(key);
    }
    let mut tries = 0;
    let (key, bytes) = loop {
        let key = channel.game(GameId::random());
        let bytes = key.encode().or_abort()?;
        if games.get(&bytes)?.is_none() && archive.get(&bytes)?.is_none() {
            break (key, bytes);
        }
        tries += 1;
        if tries >= 256 {
            return abort(StoreError::NoFreeId);
        }
    };
    let game = GameRecord {
        key,
        version: 1,
        variant: new.variant.clone(),
        white: new.white.clone(),
        black: new.black.clone(),
        settings: new.settings.clone(),
        start_fen: new.start_fen.clone(),
        fen: new.start_fen.clone(),
        moves: Vec::new(),
        started_at: new.at,
        updated_at: new.at,
        offers: Vec::new(),
        clash: new.clash.clone(),
        result: None,
        applied_messages: Vec::new(),
        hints: Vec::new(),
        reminded_at: None,
    };
    games.insert(bytes, encode_game(&game).or_abort()?)?;
    for key in player_keys {
        players.insert(key, game.key.id.as_str().as_bytes())?;
    }
    Ok(game)
}

/// Rates a game inside a transaction on the ratings tree.
fn rate_in(
    ratings: &TransactionalTree,
    platform: &str,
    variant: &str,
    white: &str,
    black: &str,
    outcome: Outcome,
) -> TxResult<Option<(RatingChange, RatingChange)>> {
    let read = |player: &str| -> TxResult<(Vec<u8>, Rating)> {
        let key = rating_key(platform, player, variant).or_abort()?;
        let rating = match ratings.get(&key)? {
            Some(raw) => codec::decode(|| describe_rating(platform, player, variant), &raw).or_abort()?,
            None => Rating::default(),
        };
        Ok((key, rating))
    };
    let (white_key, white_rating) = read(white)?;
    let (black_key, black_rating) = read(black)?;
    let Some((w, b)) = rate(white_rating, black_rating, outcome) else { return Ok(None) };
    ratings.insert(white_key, encode(|| describe_rating(platform, white, variant), &w.after).or_abort()?)?;
    ratings.insert(black_key, encode(|| describe_rating(platform, black, variant), &b.after).or_abort()?)?;
    Ok(Some((w, b)))
}
