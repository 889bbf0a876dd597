//! The embedded store: sled trees, and every operation as one atomic, durable step.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

use sled::transaction::{ConflictableTransactionError, TransactionError, Transactional, TransactionalTree};
use sled::{IVec, Tree};

use crate::codec::{self, Record};
use crate::db::{Journal, LAYOUT, LAYOUT_VERSION, Manifest, Trees, Written, be_u64, ensure_reserve, release_reserve};
use crate::keys::{self, join, prefix};
use crate::rating::rate;
use crate::store::{GameEnd, GameListing, UserRecord};
use crate::{
    Challenge, ChannelKey, ChannelSettings, ClashMatch, ClockState, ColourChoice, GameId, GameKey, GameRecord,
    GameResult, NewGame, Outcome, Rating, RatingChange, Result, StoreError, Timestamp,
};

mod directory;
mod outbox;
mod pace;
mod ratings;
mod reviews;
mod verify;

use ratings::rate_in;

pub(crate) use directory::{describe_user, folded, rename_in};
pub(crate) use outbox::decode_entry;
pub(crate) use pace::take_slot;
pub(crate) use reviews::read_reviews;

/// The game store: one sled database holding every platform's channels.
///
/// Cheap to clone (the clones share the database) and safe to use from many
/// threads. Every method that changes something returns only after the
/// change is on disk; a change that cannot be made durable (a full disk) is
/// undone, in memory too, and the database is opened afresh on the next use
/// if sled gave up after the failure, so that writes work again as soon as
/// there is room.
#[derive(Clone)]
pub struct SledStore {
    pub(crate) shared: Arc<Shared>,
    durable: bool,
}

pub(crate) struct Shared {
    path: PathBuf,
    /// The open database; `None` while it is being (or could not be) opened again.
    ///
    /// Every use holds the read lock for its whole length, a change until it
    /// is on disk; the write lock is for reopening and for a backup, which
    /// thus sees one moment.
    pub(crate) trees: RwLock<Option<Trees>>,
    /// A change was refused: the next use opens the database again and undoes it.
    broken: AtomicBool,
    /// The writes of refused changes, to undo.
    undo: Mutex<Vec<Written>>,
    manifest: Mutex<Manifest>,
    /// Test hook: the next sync fails as if the disk were full.
    fail_next_sync: AtomicBool,
    /// Outbox entries this process is sending (`platform`, `seq`): one
    /// process has the store, so claims need not outlive it.
    pub(crate) claimed: Mutex<std::collections::HashSet<(String, u64)>>,
    /// The send slots of each chat (see `pace`): one process has the store.
    pub(crate) send_slots: Mutex<pace::Slots>,
    /// The reviews owed that this process has taken, each until its lease
    /// ends (see `reviews`): one process has the store.
    pub(crate) review_claims: Mutex<std::collections::HashMap<Vec<u8>, u64>>,
    /// The reserve file was given up to recover from a full disk; it is made
    /// again after the next change that is on disk.
    reserve_missing: AtomicBool,
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Ok(manifest) = self.manifest.get_mut() {
            // Closing: nothing is left to report a failure to; the next open checks the manifest anyway.
            let _ = manifest.sync();
        }
    }
}

/// The open database, for the length of one use of the store.
struct Open<'a>(RwLockReadGuard<'a, Option<Trees>>);

impl Open<'_> {
    fn trees(&self) -> Result<&Trees> {
        self.0.as_ref().ok_or_else(closed)
    }
}

pub(crate) fn closed() -> StoreError {
    sled::Error::Io(std::io::Error::other("the database is not open (it could not be opened again)")).into()
}

impl fmt::Debug for SledStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.shared.path).field("durable", &self.durable).finish_non_exhaustive()
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

pub(crate) fn player_key(platform: &str, player: &str, channel: &str) -> Result<Vec<u8>> {
    join(&[("platform", platform), ("player", player), ("channel", channel)])
}

pub(crate) fn challenge_key(channel: &ChannelKey, challenger: &str) -> Result<Vec<u8>> {
    join(&[("platform", &channel.platform), ("channel", &channel.channel), ("player", challenger)])
}

pub(crate) fn rating_key(platform: &str, player: &str, variant: &str) -> Result<Vec<u8>> {
    join(&[("platform", platform), ("player", player), ("variant", variant)])
}

fn archive_index_key(key: &GameKey, player: &str, at: Timestamp) -> Result<Vec<u8>> {
    let mut index = prefix(&[("platform", &key.channel.platform), ("player", player)])?;
    index.extend_from_slice(&at.0.to_be_bytes());
    index.extend_from_slice(&join(&[("channel", &key.channel.channel), ("game id", key.id.as_str())])?);
    Ok(index)
}

pub(crate) fn describe_challenge(channel: &ChannelKey, challenger: &str) -> String {
    format!("the challenge from {challenger} in {channel}")
}

pub(crate) fn describe_rating(platform: &str, player: &str, variant: &str) -> String {
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

impl SledStore {
    /// Opens (or creates) the store in the directory `path`.
    ///
    /// Only one process may have a store open; a second gets
    /// [`StoreError::InUse`]. A store whose log lost its last changes (a
    /// damaged or truncated log: fewer changes than the manifest beside it
    /// records) is refused with [`StoreError::LostChanges`]; see
    /// [`Store::open_accepting_loss`]. A store written before the `due`
    /// index existed gets it here.
    ///
    /// Opening is cheap and does not read every record: [`Store::verify`] does.
    pub fn open(path: impl AsRef<Path>) -> Result<SledStore> {
        SledStore::open_with(path.as_ref(), false).map(|(store, _)| store)
    }

    /// Opens the store even if it lost changes (see [`Store::open`]): the
    /// loss is returned beside the store, and accepted, so that the next
    /// open does not report it again.
    pub fn open_accepting_loss(path: impl AsRef<Path>) -> Result<(SledStore, Option<StoreError>)> {
        SledStore::open_with(path.as_ref(), true)
    }

    fn open_with(path: &Path, accept_loss: bool) -> Result<(SledStore, Option<StoreError>)> {
        let trees = Trees::open(path)?;
        let io = |e: std::io::Error| StoreError::from(sled::Error::Io(e));
        let (mut manifest, recorded) = Manifest::open(path).map_err(io)?;
        let kept = trees.seq()?;
        let mut loss = None;
        match recorded {
            Some(expected) if expected > kept => {
                let lost = StoreError::LostChanges { kept, expected };
                if !accept_loss {
                    return Err(lost);
                }
                manifest.reset(kept).map_err(io)?;
                loss = Some(lost);
            }
            Some(recorded) if recorded == kept => {}
            // New, or behind the database (stopped between a change and its manifest write).
            _ => manifest.reset(kept).map_err(io)?,
        }
        upgrade_layout(&trees)?;
        let store = SledStore {
            shared: Arc::new(Shared {
                path: path.to_owned(),
                trees: RwLock::new(Some(trees)),
                broken: AtomicBool::new(false),
                undo: Mutex::new(Vec::new()),
                manifest: Mutex::new(manifest),
                fail_next_sync: AtomicBool::new(false),
                claimed: Mutex::default(),
                send_slots: Mutex::default(),
                review_claims: Mutex::default(),
                reserve_missing: AtomicBool::new(!ensure_reserve(path)),
            }),
            durable: true,
        };
        Ok((store, loss))
    }

    /// The directory the store is in.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// Turns the flush after each change off, for filling a store in bulk
    /// (the bench). [`Store::flush`] then makes everything durable at once.
    pub(crate) fn set_durable(&mut self, durable: bool) {
        self.durable = durable;
    }

    /// Test hook: the next time a change is synced, the sync fails as if the
    /// disk were full (after the change did reach the disk, the hardest case
    /// to undo). For tests of the store's recovery; not for use otherwise.
    #[doc(hidden)]
    pub fn fail_next_sync(&self) {
        self.shared.fail_next_sync.store(true, Ordering::SeqCst);
    }

    /// Writes everything to disk now (every change already does this before returning).
    pub fn flush(&self) -> Result<()> {
        let open = self.db()?;
        let t = open.trees()?;
        t.flush()?;
        let seq = t.seq()?;
        drop(open);
        let mut manifest = self.shared.manifest.lock().map_err(|_| closed())?;
        manifest.advance(seq).and_then(|()| manifest.sync()).map_err(sled::Error::Io)?;
        Ok(())
    }

    /// The database, opened again first if a refused change left it so.
    fn db(&self) -> Result<Open<'_>> {
        if self.shared.broken.load(Ordering::SeqCst) {
            self.recover()?;
        }
        Ok(Open(self.shared.trees.read().map_err(|_| closed())?))
    }

    fn sync(&self, t: &Trees) -> Result<()> {
        if !self.durable {
            return Ok(());
        }
        t.flush()?;
        if self.shared.fail_next_sync.swap(false, Ordering::SeqCst) {
            let full = std::io::Error::new(std::io::ErrorKind::StorageFull, "No space left on device (injected)");
            return Err(sled::Error::Io(full).into());
        }
        Ok(())
    }

    /// Ends a change: on disk before it is reported done (a retried message's
    /// "already applied" too, so that it is as durable as the first answer).
    /// A change that cannot be synced is undone, and reported with the error.
    fn settle<T>(&self, open: Open<'_>, journal: Journal, result: Result<T>) -> Result<T> {
        match result {
            Ok(_) | Err(StoreError::AlreadyApplied { .. }) => {}
            Err(e) => return Err(e),
        }
        let synced = open.trees().and_then(|t| self.sync(t));
        drop(open);
        if let Err(e) = synced {
            self.refused(journal.into_writes());
            return Err(e);
        }
        if journal.seq() > 0
            && self.durable
            && let Ok(mut manifest) = self.shared.manifest.lock()
        {
            // The change is on disk; a manifest that falls behind only weakens the next open's check.
            let _ = manifest.advance(journal.seq());
        }
        if self.shared.reserve_missing.load(Ordering::SeqCst) && ensure_reserve(&self.shared.path) {
            self.shared.reserve_missing.store(false, Ordering::SeqCst);
        }
        result
    }

    /// A change whose sync failed: it is undone now if possible, else at the next use.
    fn refused(&self, writes: Vec<Written>) {
        if let Ok(mut undo) = self.shared.undo.lock() {
            undo.extend(writes);
        }
        self.shared.broken.store(true, Ordering::SeqCst);
        // If this fails (the disk is still full) the next use tries again.
        let _ = self.recover();
    }

    /// Opens the database afresh (sled refuses every write after a failed
    /// one) and undoes the refused changes; on failure the store stays
    /// broken and the next use tries again.
    fn recover(&self) -> Result<()> {
        let mut trees = self.shared.trees.write().map_err(|_| closed())?;
        if !self.shared.broken.swap(false, Ordering::SeqCst) {
            return Ok(());
        }
        let writes = self.shared.undo.lock().map(|mut u| std::mem::take(&mut *u)).unwrap_or_default();
        // The old handles must go first: they hold sled's lock on the files.
        *trees = None;
        let reopen = || {
            Trees::open(&self.shared.path).and_then(|fresh| {
                undo(&fresh, &writes)?;
                fresh.flush()?;
                Ok(fresh)
            })
        };
        let reopened = match reopen() {
            // The disk is full: the reserve makes room to open and undo.
            Err(e) if e.is_storage_full() && release_reserve(&self.shared.path) => {
                self.shared.reserve_missing.store(true, Ordering::SeqCst);
                reopen()
            }
            other => other,
        };
        match reopened {
            Ok(fresh) => {
                *trees = Some(fresh);
                Ok(())
            }
            Err(e) => {
                if let Ok(mut undo) = self.shared.undo.lock() {
                    let later = std::mem::replace(&mut *undo, writes);
                    undo.extend(later);
                }
                self.shared.broken.store(true, Ordering::SeqCst);
                Err(e)
            }
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
        let open = self.db()?;
        let t = open.trees()?;
        let journal = Journal::default();
        let result = (&t.challenges, &t.players, &t.meta).transaction(|(challenges, players, meta)| {
            journal.restart();
            for (player_key, player) in busy.iter().zip([Some(&challenge.challenger), challenge.challenged.as_ref()]) {
                if let Some(id) = players.get(player_key)? {
                    let player = player.cloned().unwrap_or_default();
                    return abort(StoreError::PlayerBusy { player, game: GameId::stored(&id) });
                }
            }
            journal.insert(challenges, "challenges", &key, value.as_slice())?;
            journal.count(meta)?;
            Ok(())
        });
        self.settle(open, journal, settled(result))
    }

    /// The pending challenge from `challenger` in this channel, if any.
    pub fn challenge(&self, channel: &ChannelKey, challenger: &str) -> Result<Option<Challenge>> {
        let key = challenge_key(channel, challenger)?;
        let open = self.db()?;
        match open.trees()?.challenges.get(key)? {
            Some(raw) => codec::decode(|| describe_challenge(channel, challenger), &raw).map(Some),
            None => Ok(None),
        }
    }

    /// Every pending challenge in this channel, by challenger.
    pub fn challenges(&self, channel: &ChannelKey) -> Result<Vec<(String, Result<Challenge>)>> {
        let prefix = channel.prefix()?;
        let mut found = Vec::new();
        let open = self.db()?;
        for entry in open.trees()?.challenges.scan_prefix(&prefix) {
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
        let open = self.db()?;
        let t = open.trees()?;
        let journal = Journal::default();
        let result = (&t.challenges, &t.meta).transaction(|(challenges, meta)| {
            journal.restart();
            if challenges.get(&key)?.is_none() {
                return abort(StoreError::NoSuchChallenge { challenger: challenger.to_owned() });
            }
            journal.remove(challenges, "challenges", &key)?;
            journal.count(meta)?;
            Ok(())
        });
        self.settle(open, journal, settled(result))
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
        let open = self.db()?;
        let t = open.trees()?;
        let journal = Journal::default();
        let result = (&t.challenges, &t.games, &t.players, &t.archive, &t.due, &t.meta).transaction(
            |(challenges, games, players, archive, due, meta)| {
                journal.restart();
                let Some(raw) = challenges.get(&key)? else {
                    return abort(StoreError::NoSuchChallenge { challenger: challenger.to_owned() });
                };
                let challenge: Challenge =
                    codec::decode(|| describe_challenge(channel, challenger), &raw).or_abort()?;
                let new = game_of_challenge(challenge, challenger, accepter, start_fen, at).or_abort()?;
                let game = insert_game(&journal, games, players, archive, due, channel, &new)?;
                journal.remove(challenges, "challenges", &key)?;
                if challenges.get(&accepters_own)?.is_some() {
                    journal.remove(challenges, "challenges", &accepters_own)?;
                }
                journal.count(meta)?;
                Ok(game)
            },
        );
        self.settle(open, journal, settled(result))
    }

    // ---- games ----

    /// Starts a game directly, without a challenge (a rematch, a game against the bot).
    ///
    /// Refused with [`StoreError::PlayerBusy`] if either player is already in
    /// a game in this channel. The game gets a fresh id and version 1.
    pub fn create_game(&self, channel: &ChannelKey, new: &NewGame) -> Result<GameRecord> {
        channel.encode()?;
        let open = self.db()?;
        let t = open.trees()?;
        let journal = Journal::default();
        let result =
            (&t.games, &t.players, &t.archive, &t.due, &t.meta).transaction(|(games, players, archive, due, meta)| {
                journal.restart();
                let game = insert_game(&journal, games, players, archive, due, channel, new)?;
                journal.count(meta)?;
                Ok(game)
            });
        self.settle(open, journal, settled(result))
    }

    /// The active game `key`.
    ///
    /// [`StoreError::GameOver`] if it has finished (see [`Store::archived_game`]),
    /// [`StoreError::NoSuchGame`] if there never was one.
    pub fn game(&self, key: &GameKey) -> Result<GameRecord> {
        let bytes = key.encode()?;
        let open = self.db()?;
        let t = open.trees()?;
        match t.games.get(&bytes)? {
            Some(raw) => decode_game(key, &raw),
            None => Err(missing(t, key, &bytes)?),
        }
    }
}

fn missing(t: &Trees, key: &GameKey, bytes: &[u8]) -> Result<StoreError> {
    Ok(if t.archive.contains_key(bytes)? {
        StoreError::GameOver(key.clone())
    } else {
        StoreError::NoSuchGame(key.clone())
    })
}

impl SledStore {
    /// Every active game in this channel, in id order.
    pub fn games_in_channel(&self, channel: &ChannelKey) -> Result<GameListing> {
        let prefix = channel.prefix()?;
        let mut found = Vec::new();
        let open = self.db()?;
        for entry in open.trees()?.games.scan_prefix(&prefix) {
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
        let open = self.db()?;
        for entry in open.trees()?.games.iter() {
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

    /// The active games the correspondence clock must look at by `now`, in
    /// key order (platform, channel, id): those whose reminder or loss on
    /// time is due, and games against the bot (see the `due` tree in the
    /// crate's layout). Reads only those games, however many others there are.
    pub fn due_games(&self, now: Timestamp) -> Result<GameListing> {
        let open = self.db()?;
        let t = open.trees()?;
        let mut found = Vec::new();
        for entry in t.due.range(..due_key(Timestamp(now.0.saturating_add(1)), &[])) {
            let (raw_key, _) = entry?;
            let Some(game_key) = raw_key.get(8..) else { continue };
            let key = game_key_of(game_key);
            match t.games.get(game_key)? {
                Some(raw) => {
                    let game = decode_game(&key, &raw);
                    found.push((key, game));
                }
                // Not expected: the index changes with the game; `verify` reports it.
                None => continue,
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(found)
    }

    /// [`SledStore::due_games`]: one process has the store, so what is due is its own.
    pub fn claim_due_games(&self, now: Timestamp, platform: &str) -> Result<GameListing> {
        let mut due = self.due_games(now)?;
        due.retain(|(key, _)| key.channel.platform == platform);
        Ok(due)
    }

    /// The active game of `player` in this channel, if any.
    pub fn player_game_in_channel(&self, channel: &ChannelKey, player: &str) -> Result<Option<GameRecord>> {
        let open = self.db()?;
        let Some(id) = open.trees()?.players.get(player_key(&channel.platform, player, &channel.channel)?)? else {
            return Ok(None);
        };
        drop(open);
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
        let open = self.db()?;
        let t = open.trees()?;
        for entry in t.players.scan_prefix(&prefix) {
            let (key, id) = entry?;
            let channel = ChannelKey::new(platform, keys::text(&key[prefix.len()..]));
            let key = channel.game(GameId::stored(&id));
            match t.games.get(key.encode()?)? {
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
        change: impl FnMut(&mut GameRecord) -> Result<()>,
    ) -> Result<GameRecord> {
        let bytes = key.encode()?;
        if let Some(m) = message_id {
            join(&[("message id", m)])?;
        }
        let change = std::cell::RefCell::new(change);
        let open = self.db()?;
        let t = open.trees()?;
        let journal = Journal::default();
        // A transaction: if someone else wrote first, it runs again, and the checks say what happened.
        let result = (&t.games, &t.archive, &t.due, &t.meta).transaction(|(games, archive, due, meta)| {
            journal.restart();
            let Some(old) = games.get(&bytes)? else {
                return abort(if archive.get(&bytes)?.is_some() {
                    StoreError::GameOver(key.clone())
                } else {
                    StoreError::NoSuchGame(key.clone())
                });
            };
            let mut game = decode_game(key, &old).or_abort()?;
            if let Some(id) = message_id
                && game.applied_messages.iter().any(|m| m == id)
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
            let was_due = due_of(&game);
            (change.borrow_mut())(&mut game).or_abort()?;
            game.key = key.clone();
            game.version = expected_version + 1;
            if let Some(id) = message_id {
                game.applied_messages.push(id.to_owned());
            }
            journal.insert(games, "games", &bytes, encode_game(&game).or_abort()?)?;
            set_due(&journal, due, &bytes, was_due, due_of(&game))?;
            journal.count(meta)?;
            Ok(game)
        });
        self.settle(open, journal, settled(result))
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
        if let Some(m) = &end.message_id {
            join(&[("message id", m)])?;
        }
        let open = self.db()?;
        let t = open.trees()?;
        let journal = Journal::default();
        let trees = (&t.games, &t.players, &t.archive, &t.archive_index, &t.ratings, &t.due, &t.meta);
        let result = trees.transaction(|(games, players, archive, archive_index, ratings, due, meta)| {
            journal.restart();
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
            let was_due = due_of(&game);
            change(&mut game).or_abort()?;
            let changes = if game.counts_for_rating() {
                rate_in(&journal, ratings, &key.channel.platform, &game.variant, &game.white, &game.black, end.outcome)?
            } else {
                None
            };
            set_result(&mut game, end, changes);
            journal.remove(games, "games", &bytes)?;
            journal.insert(archive, "archive", &bytes, encode_game(&game).or_abort()?)?;
            set_due(&journal, due, &bytes, was_due, None)?;
            for player in [&game.white, &game.black] {
                let pk = player_key(&key.channel.platform, player, &key.channel.channel).or_abort()?;
                // The bot's key, if kept, is this game's only if it names it.
                if players.get(&pk)?.is_some_and(|id| *id == *key.id.as_str().as_bytes()) {
                    journal.remove(players, "games_by_player", &pk)?;
                }
                journal.insert(
                    archive_index,
                    "archive_by_player",
                    archive_index_key(key, player, end.at).or_abort()?,
                    &[][..],
                )?;
            }
            journal.count(meta)?;
            Ok(game)
        });
        self.settle(open, journal, settled(result))
    }

    // ---- archive ----

    /// A finished game.
    pub fn archived_game(&self, key: &GameKey) -> Result<GameRecord> {
        let open = self.db()?;
        match open.trees()?.archive.get(key.encode()?)? {
            Some(raw) => decode_game(key, &raw),
            None => Err(StoreError::NoSuchGame(key.clone())),
        }
    }

    /// The finished games of `player` on `platform`, newest first, at most `limit`.
    pub fn archived_games_of(&self, platform: &str, player: &str, limit: usize) -> Result<GameListing> {
        let prefix = prefix(&[("platform", platform), ("player", player)])?;
        let mut found = Vec::new();
        let open = self.db()?;
        let t = open.trees()?;
        for entry in t.archive_index.scan_prefix(&prefix).rev() {
            if found.len() >= limit {
                break;
            }
            let (index, _) = entry?;
            let Some(rest) = index.get(prefix.len() + 8..) else { continue };
            let [channel, id] = keys::split(rest)[..] else { continue };
            let key = ChannelKey::new(platform, keys::text(channel)).game(GameId::stored(id));
            let game = match t.archive.get(key.encode()?)? {
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

    // ---- channel settings ----

    /// The settings of this channel (the defaults if never set).
    pub fn channel_settings(&self, channel: &ChannelKey) -> Result<ChannelSettings> {
        let open = self.db()?;
        match open.trees()?.channels.get(channel.encode()?)? {
            Some(raw) => codec::decode(|| format!("the settings of {channel}"), &raw),
            None => Ok(ChannelSettings::default()),
        }
    }

    /// Replaces the settings of this channel.
    pub fn set_channel_settings(&self, channel: &ChannelKey, settings: &ChannelSettings) -> Result<()> {
        let value = encode(|| format!("the settings of {channel}"), settings)?;
        let key = channel.encode()?;
        let open = self.db()?;
        let t = open.trees()?;
        let journal = Journal::default();
        let result = (&t.channels, &t.meta).transaction(|(channels, meta)| {
            journal.restart();
            journal.insert(channels, "channels", &key, value.as_slice())?;
            journal.count(meta)?;
            Ok(())
        });
        self.settle(open, journal, settled(result))
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
    journal: &Journal,
    games: &TransactionalTree,
    players: &TransactionalTree,
    archive: &TransactionalTree,
    due: &TransactionalTree,
    channel: &ChannelKey,
    new: &NewGame,
) -> TxResult<GameRecord> {
    let mut player_keys = Vec::with_capacity(2);
    for player in new.indexed_players() {
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
    let game = fresh_game(key, new);
    journal.insert(games, "games", &bytes, encode_game(&game).or_abort()?)?;
    set_due(journal, due, &bytes, None, due_of(&game))?;
    for key in player_keys {
        journal.insert(players, "games_by_player", key, game.key.id.as_str().as_bytes())?;
    }
    Ok(game)
}

/// The game that accepting `challenge` (from `challenger`) by `accepter`
/// starts, a random colour choice drawn here; refused if the challenge is
/// for someone else.
pub(crate) fn game_of_challenge(
    challenge: Challenge,
    challenger: &str,
    accepter: &str,
    start_fen: &str,
    at: Timestamp,
) -> Result<NewGame> {
    if let Some(challenged) = &challenge.challenged
        && challenged != accepter
    {
        return Err(StoreError::NotYourChallenge { challenger: challenger.to_owned(), challenged: challenged.clone() });
    }
    let challenger_white = match challenge.colour {
        ColourChoice::White => true,
        ColourChoice::Black => false,
        ColourChoice::Random => fastrand::bool(),
    };
    let (white, black) = if challenger_white { (challenger, accepter) } else { (accepter, challenger) };
    Ok(NewGame {
        variant: challenge.variant,
        white: white.to_owned(),
        black: black.to_owned(),
        settings: challenge.settings,
        start_fen: start_fen.to_owned(),
        at,
        clash: challenge.clash.then(ClashMatch::default),
        bot: None,
    })
}

/// Ends `game` as `end` says, with the rating `changes` (the store rated it).
pub(crate) fn set_result(game: &mut GameRecord, end: &GameEnd, changes: Option<(RatingChange, RatingChange)>) {
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
}

/// A new game's record under `key`, at version 1.
pub(crate) fn fresh_game(key: GameKey, new: &NewGame) -> GameRecord {
    GameRecord {
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
        resign_asks: Vec::new(),
        clash: new.clash.clone(),
        result: None,
        applied_messages: Vec::new(),
        hints: Vec::new(),
        reminded_at: None,
        clock: new.settings.clock.map(|c| ClockState::start(c, new.at)),
        bot: new.bot,
    }
}

/// When the correspondence clock must next look at `game`, `None` if never:
///
/// - a game with days per move: when the player to move has used three
///   quarters of them (if not yet reminded), else when they have used them
///   all; the clock runs from the last move, or from the start of the game
///   (from the last change, for a Clash match, whose rounds restart it);
/// - a game against the bot (a bot level is set): a minute after its last
///   change, when a bot stopped before it answered takes its turn. The
///   store does not know whose turn it is, so such a game stays due until
///   it ends; the caller sees quickly that it waits for the player.
///
/// - a game with a chat clock: when the player to move is to be reminded
///   (once, under a tenth of the base time), else when their flag falls.
///
/// The earliest of these for a game that is several. Never later than the
/// clock would act: earlier only costs the caller a look.
pub(crate) fn due_of(game: &GameRecord) -> Option<Timestamp> {
    let by_days = game.settings.days_per_move.map(|days| {
        let last = game.moves.last().map(|m| m.at);
        let since = if game.clash.is_some() {
            last.unwrap_or(game.updated_at).min(game.updated_at)
        } else {
            last.unwrap_or(game.started_at)
        };
        let allowed = u64::from(days) * 86_400_000;
        let wait = if game.reminded_at.is_none() { allowed / 4 * 3 } else { allowed };
        Timestamp(since.0.saturating_add(wait))
    });
    let by_bot = game.settings.bot_level.map(|_| Timestamp(game.updated_at.0.saturating_add(60_000)));
    let by_clock = game.settings.clock.zip(game.clock.as_ref()).map(|(c, state)| state.due(c));
    [by_days, by_bot, by_clock].into_iter().flatten().min()
}

/// The `due` index key: the due time (8 bytes, big-endian ms), then the game's key.
fn due_key(at: Timestamp, game: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(8 + game.len());
    key.extend_from_slice(&at.0.to_be_bytes());
    key.extend_from_slice(game);
    key
}

/// Moves game `game` in the `due` index from `was` to `now`, inside a transaction.
pub(crate) fn set_due(
    journal: &Journal,
    due: &TransactionalTree,
    game: &[u8],
    was: Option<Timestamp>,
    now: Option<Timestamp>,
) -> TxResult<()> {
    if was == now {
        return Ok(());
    }
    if let Some(at) = was {
        journal.remove(due, "due", due_key(at, game))?;
    }
    if let Some(at) = now {
        journal.insert(due, "due", due_key(at, game), &[][..])?;
    }
    Ok(())
}

/// Brings a store written by an older Kibitz up to today's layout: the
/// `due` index is built from the active games. Done once; it does not count as a change.
fn upgrade_layout(t: &Trees) -> Result<()> {
    let layout = t.meta.get(LAYOUT)?.map_or(0, |v| be_u64(&v) as u32);
    if layout >= LAYOUT_VERSION {
        return Ok(());
    }
    t.due.clear()?;
    for entry in t.games.iter() {
        let (raw_key, raw) = entry?;
        // A game that cannot be read is left out; `verify` reports it.
        if let Ok(game) = decode_game(&game_key_of(&raw_key), &raw)
            && let Some(at) = due_of(&game)
        {
            t.due.insert(due_key(at, &raw_key), &[])?;
        }
    }
    t.meta.insert(LAYOUT, &LAYOUT_VERSION.to_be_bytes())?;
    t.flush()
}

/// Undoes the writes of refused changes, in one transaction: each write
/// whose value is still the one it wrote gets back the value before it.
/// Passes repeat until nothing changes, so that the order the writes are
/// listed in does not matter; each is undone at most once.
fn undo(t: &Trees, writes: &[Written]) -> Result<()> {
    if writes.is_empty() {
        return Ok(());
    }
    let mut names: Vec<IVec> = writes.iter().map(|w| w.tree.clone()).collect();
    names.sort();
    names.dedup();
    let trees = names.iter().map(|n| t.tree(n)).collect::<Result<Vec<Tree>>>()?;
    let result = trees.as_slice().transaction(|txs| {
        let mut done = vec![false; writes.len()];
        loop {
            let mut changed = false;
            for (i, w) in writes.iter().enumerate().rev() {
                let Ok(at) = names.binary_search(&w.tree) else { continue };
                let tx = &txs[at];
                if done[i] || w.before == w.after || tx.get(&w.key)? != w.after {
                    continue;
                }
                match &w.before {
                    Some(v) => tx.insert(w.key.clone(), v.clone())?,
                    None => tx.remove(w.key.clone())?,
                };
                done[i] = true;
                changed = true;
            }
            if !changed {
                return Ok::<_, ConflictableTransactionError<StoreError>>(());
            }
        }
    });
    settled(result)
}
