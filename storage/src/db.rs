//! The sled database under the store: its trees, the journal that lets a
//! refused change be undone, the change counter and the manifest beside the
//! database that notices lost changes.

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sled::transaction::{TransactionalTree, UnabortableTransactionError};
use sled::{IVec, Tree};

use crate::{Result, StoreError};

/// The name of the manifest file in the database's directory.
pub(crate) const MANIFEST: &str = "kibitz-changes";
/// The `meta` key of the change counter (8 bytes, big-endian).
pub(crate) const SEQ: &[u8] = b"seq";
/// The `meta` key of the layout version (4 bytes, big-endian).
pub(crate) const LAYOUT: &[u8] = b"layout";
/// The layout written today: 1 added the `meta` tree (the change counter)
/// and the `due` index. A store without it is brought up to date at open.
pub(crate) const LAYOUT_VERSION: u32 = 1;

/// Opens the database, waiting up to two seconds for the lock: a store
/// closed a moment ago (a restart in the same process, or a reopen after a
/// failed write) lets go of its lock only when sled's background thread has
/// finished.
pub(crate) fn open_db(path: &Path) -> Result<sled::Db> {
    let mut wait = Duration::from_millis(5);
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    loop {
        match sled::Config::new().path(path).cache_capacity(64 << 20).open() {
            Err(sled::Error::Io(e)) if is_lock_error(&e) => {
                if std::time::Instant::now() >= deadline {
                    return Err(StoreError::InUse { path: path.to_owned() });
                }
                std::thread::sleep(wait);
                wait = (wait * 2).min(Duration::from_millis(100));
            }
            other => return Ok(other?),
        }
    }
}

/// Whether sled could not lock its files because another store has them open.
pub(crate) fn is_lock_error(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::WouldBlock || e.to_string().contains("lock")
}

/// The trees of one open database. Its field names are the store's trees.
pub(crate) struct Trees {
    pub(crate) db: sled::Db,
    /// `platform\0channel\0id` → active [`GameRecord`](crate::GameRecord).
    pub(crate) games: Tree,
    /// `platform\0player\0channel` → id of the player's active game there.
    pub(crate) players: Tree,
    /// `platform\0channel\0challenger` → [`Challenge`](crate::Challenge).
    pub(crate) challenges: Tree,
    /// `platform\0channel\0id` → finished [`GameRecord`](crate::GameRecord).
    pub(crate) archive: Tree,
    /// `platform\0player\0` + end time (8 bytes, big-endian ms) + `channel\0id` → nothing.
    pub(crate) archive_index: Tree,
    /// `platform\0player\0variant` → [`Rating`](crate::Rating).
    pub(crate) ratings: Tree,
    /// `platform\0channel` → [`ChannelSettings`](crate::ChannelSettings).
    pub(crate) channels: Tree,
    /// due time (8 bytes, big-endian ms) + `platform\0channel\0id` → nothing.
    pub(crate) due: Tree,
    /// `seq` → the change counter; `layout` → the layout version.
    pub(crate) meta: Tree,
    /// sled's log file, opened again to fsync it (see [`Trees::flush`]).
    log: File,
}

impl Trees {
    pub(crate) fn open(path: &Path) -> Result<Trees> {
        let db = open_db(path)?;
        let log = File::options().read(true).write(true).open(path.join("db")).map_err(sled::Error::Io)?;
        // The log's directory entry must be durable too, once.
        File::open(path).and_then(|dir| dir.sync_all()).map_err(sled::Error::Io)?;
        Ok(Trees {
            games: db.open_tree("games")?,
            players: db.open_tree("games_by_player")?,
            challenges: db.open_tree("challenges")?,
            archive: db.open_tree("archive")?,
            archive_index: db.open_tree("archive_by_player")?,
            ratings: db.open_tree("ratings")?,
            channels: db.open_tree("channels")?,
            due: db.open_tree("due")?,
            meta: db.open_tree("meta")?,
            db,
            log,
        })
    }

    /// Writes everything to disk: sled's flush, then an fdatasync of its log.
    pub(crate) fn flush(&self) -> Result<()> {
        // sled 0.34's flush writes its log and waits with `sync_file_range`,
        // which survives a killed process but not a power cut (it leaves the
        // drive's cache and the file's size unsynced); its own fsync runs
        // only every half second. An fdatasync of the log file closes that gap.
        self.db.flush()?;
        self.log.sync_data().map_err(sled::Error::Io)?;
        Ok(())
    }

    /// The change counter: how many changes the store has taken.
    pub(crate) fn seq(&self) -> Result<u64> {
        Ok(self.meta.get(SEQ)?.map_or(0, |v| be_u64(&v)))
    }

    /// The tree called `name` (as sled names it).
    pub(crate) fn tree(&self, name: &[u8]) -> Result<Tree> {
        Ok(self.db.open_tree(name)?)
    }
}

pub(crate) fn be_u64(bytes: &[u8]) -> u64 {
    let mut b = [0; 8];
    let n = bytes.len().min(8);
    b[8 - n..].copy_from_slice(&bytes[bytes.len() - n..]);
    u64::from_be_bytes(b)
}

/// One write of a change: the tree, the key, the value before and after.
#[derive(Clone, Debug)]
pub(crate) struct Written {
    pub(crate) tree: IVec,
    pub(crate) key: IVec,
    pub(crate) before: Option<IVec>,
    pub(crate) after: Option<IVec>,
}

/// The writes of one change, kept until it is on disk: if it cannot be made
/// durable they are undone (see `Store::recover`). A transaction that runs
/// again starts a fresh journal ([`Journal::restart`]).
#[derive(Default)]
pub(crate) struct Journal {
    writes: RefCell<Vec<Written>>,
    seq: Cell<u64>,
}

type TxWrite<T> = std::result::Result<T, UnabortableTransactionError>;

impl Journal {
    pub(crate) fn restart(&self) {
        self.writes.borrow_mut().clear();
        self.seq.set(0);
    }

    pub(crate) fn insert(
        &self,
        tree: &TransactionalTree,
        name: &str,
        key: impl AsRef<[u8]>,
        value: impl Into<IVec>,
    ) -> TxWrite<()> {
        let key = IVec::from(key.as_ref());
        let value = value.into();
        let before = tree.insert(key.clone(), value.clone())?;
        self.writes.borrow_mut().push(Written { tree: name.into(), key, before, after: Some(value) });
        Ok(())
    }

    pub(crate) fn remove(&self, tree: &TransactionalTree, name: &str, key: impl AsRef<[u8]>) -> TxWrite<()> {
        let key = IVec::from(key.as_ref());
        let before = tree.remove(key.clone())?;
        self.writes.borrow_mut().push(Written { tree: name.into(), key, before, after: None });
        Ok(())
    }

    /// Counts the change in the `meta` tree: every change transaction calls this once.
    pub(crate) fn count(&self, meta: &TransactionalTree) -> TxWrite<()> {
        let seq = meta.get(SEQ)?.map_or(0, |v| be_u64(&v)) + 1;
        self.insert(meta, "meta", SEQ, &seq.to_be_bytes()[..])?;
        self.seq.set(seq);
        Ok(())
    }

    /// The change counter after this change (0 if it changed nothing).
    pub(crate) fn seq(&self) -> u64 {
        self.seq.get()
    }

    pub(crate) fn into_writes(self) -> Vec<Written> {
        self.writes.into_inner()
    }
}

/// The manifest: a small file beside the database holding the change
/// counter of the last change known to be on disk. A database that opens
/// with a smaller counter has lost changes.
///
/// It is written after each change is on disk (so it never runs ahead of
/// the database, even after a crash between the two), and synced when the
/// store is flushed explicitly and when it closes.
pub(crate) struct Manifest {
    file: File,
    path: PathBuf,
    written: u64,
    dirty: bool,
}

impl Manifest {
    /// Opens the manifest in `dir` (creating it), and reads the counter it holds (`None` if new).
    pub(crate) fn open(dir: &Path) -> io::Result<(Manifest, Option<u64>)> {
        let path = dir.join(MANIFEST);
        let mut file = File::options().read(true).write(true).create(true).truncate(false).open(&path)?;
        let mut text = String::new();
        file.read_to_string(&mut text)?;
        let found = text.trim().parse::<u64>().ok();
        Ok((Manifest { file, path, written: found.unwrap_or(0), dirty: false }, found))
    }

    /// Records `seq` if it is newer than what the manifest holds.
    pub(crate) fn advance(&mut self, seq: u64) -> io::Result<()> {
        if seq > self.written {
            self.write(seq)?;
        }
        Ok(())
    }

    /// Records `seq` even if it is older (after lost changes were accepted, or a restore).
    pub(crate) fn reset(&mut self, seq: u64) -> io::Result<()> {
        self.write(seq)?;
        self.sync()
    }

    fn write(&mut self, seq: u64) -> io::Result<()> {
        // Fixed width, so that a write in place never leaves a longer old tail.
        self.file.write_all_at(format!("{seq:020}\n").as_bytes(), 0)?;
        self.written = seq;
        self.dirty = true;
        Ok(())
    }

    pub(crate) fn sync(&mut self) -> io::Result<()> {
        if self.dirty {
            self.file.sync_data()?;
            if let Some(dir) = self.path.parent() {
                File::open(dir)?.sync_all()?;
            }
            self.dirty = false;
        }
        Ok(())
    }
}

/// The name of the reserve file in the database's directory.
pub(crate) const RESERVE: &str = "kibitz-reserve";
/// Its size: room for sled to open the database again on a full disk.
const RESERVE_BYTES: usize = 2 << 20;

/// Makes sure the reserve file is there: a full disk then still leaves the
/// store room to open again and undo a refused change, once the reserve is
/// given up ([`release_reserve`]). `false` if it could not be made (the disk
/// is too full); a partial one is removed.
pub(crate) fn ensure_reserve(dir: &Path) -> bool {
    let path = dir.join(RESERVE);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == RESERVE_BYTES as u64) {
        return true;
    }
    let made = File::create(&path).and_then(|mut f| {
        use std::io::Write;
        // Written out, not sparse, so that the blocks are really taken.
        f.write_all(&vec![0u8; RESERVE_BYTES])?;
        f.sync_all()
    });
    if made.is_err() {
        let _ = std::fs::remove_file(&path);
    }
    made.is_ok()
}

/// Gives up the reserve file; `true` if there was one.
pub(crate) fn release_reserve(dir: &Path) -> bool {
    std::fs::remove_file(dir.join(RESERVE)).is_ok()
}
