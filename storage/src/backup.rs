//! Backups: a consistent snapshot of the whole store in one file, and the
//! store brought back from it.
//!
//! A store is open in one process only (sled locks its files), so a backup
//! of a running bot is taken by the bot itself: `kibitz backup` leaves a
//! request file in the store's directory ([`request_backup`]), the running
//! bot notices it within a second ([`Store::serve_backup_request`]), writes
//! the snapshot and answers in another file. The snapshot is taken while no
//! change is being made (changes wait a moment), so it shows one moment.
//!
//! The file holds every sled tree of the store, by name, with every key and
//! value as stored, the change counter, and a checksum over all of it:
//!
//! ```text
//! "KIBITZ-BACKUP\n" version (u32) changes (u64) trees (u32)
//! per tree: name length (u32) name entries (u64), per entry: key length (u32) key value length (u32) value
//! FNV-1a 64 checksum of everything before (u64)          all integers big-endian
//! ```

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::db::{Manifest, Trees};
use crate::embedded::SledStore;
use crate::{Result, StoreError, Timestamp};

const MAGIC: &[u8] = b"KIBITZ-BACKUP\n";
const VERSION: u32 = 1;
/// The request file a running bot watches for, in the store's directory.
pub const BACKUP_REQUEST: &str = "kibitz-backup-request";
/// The running bot's answer to a request, in the store's directory.
pub const BACKUP_ANSWER: &str = "kibitz-backup-answer";

/// What a backup or a restore copied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackupSummary {
    /// The backup file.
    pub file: PathBuf,
    /// Trees copied.
    pub trees: usize,
    /// Records (keys) copied.
    pub records: u64,
    /// The store's change counter at the snapshot.
    pub changes: u64,
    /// For a restore: where the store that was there before was moved.
    pub moved_aside: Option<PathBuf>,
}

impl std::fmt::Display for BackupSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} records in {} trees, {} changes",
            self.file.display(),
            self.records,
            self.trees,
            self.changes
        )?;
        if let Some(old) = &self.moved_aside {
            write!(f, "; the store that was there is kept in {}", old.display())?;
        }
        Ok(())
    }
}

struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

fn io_error(e: io::Error) -> StoreError {
    sled::Error::Io(e).into()
}

impl SledStore {
    /// Writes a snapshot of the whole store to the file `to` (replaced if it
    /// exists; written beside it first, then renamed, so a failed backup
    /// leaves no half file). Changes wait while it is taken.
    pub fn backup(&self, to: &Path) -> Result<BackupSummary> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_be_bytes());
        let (trees, records, changes) = {
            // The write lock: no change is under way while the trees are read.
            let guard = self.shared.trees.write().map_err(|_| closed_error())?;
            let t = guard.as_ref().ok_or_else(closed_error)?;
            let changes = t.seq()?;
            bytes.extend_from_slice(&changes.to_be_bytes());
            let mut names = t.db.tree_names();
            names.sort();
            bytes.extend_from_slice(&(names.len() as u32).to_be_bytes());
            let mut records = 0;
            for name in &names {
                let tree = t.tree(name)?;
                bytes.extend_from_slice(&(name.len() as u32).to_be_bytes());
                bytes.extend_from_slice(name);
                bytes.extend_from_slice(&(tree.len() as u64).to_be_bytes());
                let mut count = 0u64;
                for entry in tree.iter() {
                    let (key, value) = entry?;
                    for part in [&key, &value] {
                        bytes.extend_from_slice(&(part.len() as u32).to_be_bytes());
                        bytes.extend_from_slice(part);
                    }
                    count += 1;
                }
                if count != tree.len() as u64 {
                    // sled's count and its iteration disagree: not a snapshot to trust.
                    return Err(StoreError::Corrupt {
                        record: format!("the tree {}", String::from_utf8_lossy(name)),
                        reason: "it changed while it was copied".into(),
                    });
                }
                records += count;
            }
            (names.len(), records, changes)
        };
        let mut sum = Fnv::new();
        sum.feed(&bytes);
        bytes.extend_from_slice(&sum.0.to_be_bytes());
        write_durably(to, &bytes).map_err(io_error)?;
        Ok(BackupSummary { file: to.to_owned(), trees, records, changes, moved_aside: None })
    }

    /// Restores the backup file `from` as the store in the directory `into`.
    ///
    /// Refused with [`StoreError::InUse`] if a running bot has the store
    /// there open. A store already there is not deleted: it is moved aside
    /// (to `INTO.before-restore-TIME`, named in the summary). The backup is
    /// checked whole before anything is touched.
    pub fn restore(from: &Path, into: &Path) -> Result<BackupSummary> {
        let bad = |reason: &str| StoreError::BadBackup { path: from.display().to_string(), reason: reason.into() };
        let bytes = fs::read(from).map_err(|e| bad(&e.to_string()))?;
        let backup = parse(&bytes).map_err(|reason| bad(&reason))?;
        let name = into.file_name().ok_or_else(|| bad("the store's folder has no name"))?.to_string_lossy();
        let building = into.with_file_name(format!("{name}.restoring"));
        let _ = fs::remove_dir_all(&building);
        let mut moved_aside = None;
        if into.exists() && fs::read_dir(into).map_err(io_error)?.next().is_some() {
            // Opening it proves that no running bot has it; a store too damaged to open is not in use either.
            match Trees::open(into) {
                Ok(old) => drop(old),
                Err(e @ StoreError::InUse { .. }) => return Err(e),
                Err(_) => {}
            }
            let aside = into.with_file_name(format!("{name}.before-restore-{}", Timestamp::now().0));
            fs::rename(into, &aside).map_err(io_error)?;
            moved_aside = Some(aside);
        }
        {
            let t = Trees::open(&building)?;
            let mut records = 0;
            for (tree_name, entries) in &backup.trees {
                let tree = t.tree(tree_name)?;
                let mut batch = sled::Batch::default();
                for (key, value) in entries {
                    batch.insert(*key, *value);
                    records += 1;
                }
                tree.apply_batch(batch)?;
            }
            t.flush()?;
            let (mut manifest, _) = Manifest::open(&building).map_err(io_error)?;
            manifest.reset(t.seq()?).map_err(io_error)?;
            if records != backup.records || t.seq()? != backup.changes {
                return Err(bad("it did not read back whole"));
            }
        }
        if into.exists() {
            // An empty folder.
            fs::remove_dir(into).map_err(io_error)?;
        }
        fs::rename(&building, into).map_err(io_error)?;
        if let Some(parent) = into.parent().filter(|p| !p.as_os_str().is_empty()) {
            File::open(parent).and_then(|d| d.sync_all()).map_err(io_error)?;
        }
        // The store opens as any other (and so is checked like one).
        drop(SledStore::open(into)?);
        Ok(BackupSummary {
            file: from.to_owned(),
            trees: backup.trees.len(),
            records: backup.records,
            changes: backup.changes,
            moved_aside,
        })
    }

    /// Answers a backup request left by [`request_backup`] in the store's
    /// directory, if there is one: the running bot calls this every second
    /// or so. `None` if there was no request; else the backup's summary or
    /// error, which the requester is told too.
    pub fn serve_backup_request(&self) -> Option<Result<BackupSummary>> {
        let request = self.path().join(BACKUP_REQUEST);
        let target = fs::read_to_string(&request).ok()?;
        let _ = fs::remove_file(&request);
        let target = PathBuf::from(target.trim_end_matches('\n'));
        let result = self.backup(&target);
        let answer = match &result {
            Ok(summary) => format!("ok\n{summary}\n"),
            Err(e) => format!("error\n{}\n", e.detail()),
        };
        if let Err(e) = write_durably(&self.path().join(BACKUP_ANSWER), answer.as_bytes()) {
            return Some(Err(io_error(e)));
        }
        Some(result)
    }
}

fn closed_error() -> StoreError {
    io_error(io::Error::other("the database is not open"))
}

/// Asks the bot running on the store in `db` to write a backup to `to`, and
/// waits up to `timeout` for its answer (see [`Store::serve_backup_request`](crate::Store::serve_backup_request)).
/// Returns the bot's summary line.
pub fn request_backup(db: &Path, to: &Path, timeout: Duration) -> std::result::Result<String, String> {
    let to = std::path::absolute(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let answer = db.join(BACKUP_ANSWER);
    let _ = fs::remove_file(&answer);
    let request = db.join(BACKUP_REQUEST);
    write_durably(&request, format!("{}\n", to.display()).as_bytes())
        .map_err(|e| format!("cannot leave a backup request in {}: {e}", db.display()))?;
    let started = Instant::now();
    while started.elapsed() < timeout {
        if let Ok(text) = fs::read_to_string(&answer) {
            let _ = fs::remove_file(&answer);
            return match text.split_once('\n') {
                Some(("ok", summary)) => Ok(summary.trim().to_string()),
                Some((_, error)) => Err(format!("the running bot could not write the backup: {}", error.trim())),
                None => Err("the running bot's answer was cut short".into()),
            };
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = fs::remove_file(&request);
    Err(format!(
        "the store {} is in use, but the process using it did not answer the backup request within {} s \
         (is it a `kibitz run` or `kibitz console` of this version?)",
        db.display(),
        timeout.as_secs()
    ))
}

/// Writes `bytes` to `path` through a file beside it, synced, then renamed.
fn write_durably(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut name = path.file_name().ok_or_else(|| io::Error::other("no file name"))?.to_owned();
    name.push(".partial");
    let partial = path.with_file_name(name);
    let mut file = File::create(&partial)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&partial, path)?;
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// A tree of a backup: its name and its entries (key, value).
type BackupTree<'a> = (&'a [u8], Vec<(&'a [u8], &'a [u8])>);

struct Parsed<'a> {
    changes: u64,
    records: u64,
    trees: Vec<BackupTree<'a>>,
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> std::result::Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err("it is cut short".into());
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }

    fn number(&mut self, n: usize) -> std::result::Result<u64, String> {
        Ok(self.take(n)?.iter().fold(0u64, |v, &x| v << 8 | u64::from(x)))
    }
}

fn parse(bytes: &[u8]) -> std::result::Result<Parsed<'_>, String> {
    let body_len = bytes.len().checked_sub(8).ok_or("it is cut short")?;
    let (body, sum) = bytes.split_at(body_len);
    let body = body.strip_prefix(MAGIC).ok_or("it does not start as a Kibitz backup does")?;
    let mut check = Fnv::new();
    check.feed(&bytes[..body_len]);
    if check.0.to_be_bytes() != sum {
        return Err("its checksum does not match: the file is damaged or cut short".into());
    }
    let mut r = Reader(body);
    let version = r.number(4)?;
    if version != u64::from(VERSION) {
        return Err(format!("it is backup format {version}; this version reads format {VERSION}"));
    }
    let changes = r.number(8)?;
    let tree_count = r.number(4)?;
    let mut trees = Vec::new();
    let mut records = 0;
    for _ in 0..tree_count {
        let len = r.number(4)? as usize;
        let name = r.take(len)?;
        let count = r.number(8)?;
        let mut entries = Vec::new();
        for _ in 0..count {
            let len = r.number(4)? as usize;
            let key = r.take(len)?;
            let len = r.number(4)? as usize;
            let value = r.take(len)?;
            entries.push((key, value));
        }
        records += count;
        trees.push((name, entries));
    }
    if !r.0.is_empty() {
        return Err("it has bytes after its last tree".into());
    }
    Ok(Parsed { changes, records, trees })
}
