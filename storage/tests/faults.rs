//! Faults: a write refused by a full disk changes nothing, in memory or on
//! disk, and writes work again once there is room; a damaged or truncated
//! log is reported at open; a backup brings everything back.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{START, game, mv};
use kibitz_storage::{
    Challenge, ChannelKey, ChannelSettings, ClashMatch, ColourChoice, GameEnd, GameSettings, NewGame, Offer, OfferKind,
    Outcome, SealedBid, Store, StoreError, Timestamp,
};

/// The whole store as bytes: a backup of it.
fn dump(store: &Store, dir: &Path) -> Vec<u8> {
    let file = dir.join("dump");
    store.backup(&file).unwrap();
    std::fs::read(file).unwrap()
}

fn assert_friendly_full(e: &StoreError) {
    assert!(e.is_storage_full(), "{e:?}");
    let text = e.to_string();
    assert_eq!(text, "the bot's storage is full; nothing was changed, try again later");
    assert!(e.detail().contains("No space left on device"), "{}", e.detail());
}

fn new_game(white: &str, black: &str, settings: GameSettings, clash: bool) -> NewGame {
    NewGame {
        variant: if clash { "clash" } else { "chess" }.into(),
        white: white.into(),
        black: black.into(),
        settings,
        start_fen: START.into(),
        at: Timestamp(1_000),
        clash: clash.then(ClashMatch::default),
        bot: None,
    }
}

#[test]
fn every_change_refused_by_a_failed_sync_is_undone() {
    let scratch = tempfile::tempdir().unwrap();
    let (_dir, store) = common::store();
    let channel = ChannelKey::new("discord", "c");
    let g = game(&store, &channel, "ann", "bob");
    let g = store.apply_move(&g.key, g.version, mv("e2e4", "ann", "m1"), "fen 1").unwrap();
    let clash = store.create_game(&channel, &new_game("cat", "dan", GameSettings::default(), true)).unwrap();
    let challenge = Challenge {
        challenger: "eve".into(),
        challenged: Some("fay".into()),
        variant: "chess".into(),
        colour: ColourChoice::White,
        settings: GameSettings::default(),
        clash: false,
        at: Timestamp(5),
    };
    store.create_challenge(&channel, &challenge).unwrap();
    let offer = Offer { kind: OfferKind::Draw, by: "ann".into(), at: Timestamp(6) };
    let g = store.make_offer(&g.key, g.version, &offer, None).unwrap();
    let end = GameEnd { outcome: Outcome::WhiteWins, reason: "resignation".into(), at: Timestamp(9), message_id: None };
    let bid = SealedBid { player: "cat".into(), round: 1, bid: "3".into(), at: Timestamp(7) };

    type Change<'a> = Box<dyn Fn() -> Result<(), StoreError> + 'a>;
    let changes: Vec<(&str, Change)> = vec![
        ("move", Box::new(|| store.apply_move(&g.key, g.version, mv("e7e5", "bob", "m2"), "fen 2").map(drop))),
        ("takeback", Box::new(|| store.take_back(&g.key, g.version, 1, START, Timestamp(8), None).map(drop))),
        ("offer", Box::new(|| store.make_offer(&g.key, g.version, &offer, Some("o")).map(drop))),
        ("clear offer", Box::new(|| store.clear_offer(&g.key, g.version, OfferKind::Draw, None).map(drop))),
        ("bid", Box::new(|| store.seal_bid(&clash.key, clash.version, &bid, None).map(drop))),
        ("finish", Box::new(|| store.finish_game(&g.key, g.version, &end).map(drop))),
        (
            "challenge",
            Box::new(|| store.create_challenge(&channel, &Challenge { challenger: "gus".into(), ..challenge.clone() })),
        ),
        ("withdraw", Box::new(|| store.withdraw_challenge(&channel, "eve"))),
        ("accept", Box::new(|| store.accept_challenge(&channel, "eve", "fay", START, Timestamp(9)).map(drop))),
        (
            "create",
            Box::new(|| store.create_game(&channel, &new_game("hal", "ivy", GameSettings::default(), false)).map(drop)),
        ),
        ("rate", Box::new(|| store.record_result("discord", "chess", "ann", "bob", Outcome::Draw).map(drop))),
        (
            "settings",
            Box::new(|| {
                store.set_channel_settings(&channel, &ChannelSettings { rated: false, ..ChannelSettings::default() })
            }),
        ),
    ];
    for (name, change) in &changes {
        let before = dump(&store, scratch.path());
        store.fail_next_sync();
        let refused = change().expect_err(name);
        assert_friendly_full(&refused);
        assert!(before == dump(&store, scratch.path()), "{name}: the refused change is still visible");
        assert_eq!(store.verify().unwrap().len(), 0, "{name}");
    }
    // Nothing was changed on disk either, and every change works afterwards.
    let before = dump(&store, scratch.path());
    let path = store.path().unwrap().to_owned();
    drop(changes);
    drop(store);
    let store = Store::open(&path).unwrap();
    assert!(before == dump(&store, scratch.path()), "the refused changes reached the disk");
    let after = store.apply_move(&g.key, g.version, mv("e7e5", "bob", "m2"), "fen 2").unwrap();
    assert_eq!(after.moves.len(), 2);
    store.finish_game(&after.key, after.version, &end).unwrap();
    assert!(store.rating("discord", "ann", "chess").unwrap().games > 0);
}

/// A tmpfs of `size` mounted on a fresh folder, unmounted when dropped.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().ok()?;
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?;
        status.success().then_some(SmallDisk { dir })
    }

    fn path(&self) -> PathBuf {
        self.dir.path().to_owned()
    }

    /// Fills the disk up with a file; returns it.
    fn fill(&self) -> PathBuf {
        use std::io::Write;
        let filler = self.dir.path().join("filler");
        let mut file = std::fs::File::create(&filler).unwrap();
        let block = vec![0xA5u8; 4096];
        while file.write_all(&block).is_ok() {}
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn a_full_disk_refuses_the_move_and_it_works_again_when_there_is_room() {
    let Some(disk) = SmallDisk::mount("8m") else {
        eprintln!("SKIPPED: cannot mount a small tmpfs here (needs root); the disk-full test did not run");
        return;
    };
    let db = disk.path().join("db");
    let store = Store::open(&db).unwrap();
    let channel = ChannelKey::new("discord", "full");
    let mut g = game(&store, &channel, "ann", "bob");
    let filler = disk.fill();
    let mut refused = None;
    for ply in 0..5_000 {
        let by = if ply % 2 == 0 { "ann" } else { "bob" };
        // Long message ids: each move takes room.
        let message = format!("{ply}-{}", "x".repeat(2_000));
        match store.apply_move(&g.key, g.version, mv(&format!("m{ply}"), by, &message), &format!("fen {ply}")) {
            Ok(after) => g = after,
            Err(e) => {
                refused = Some((e, ply, message));
                break;
            }
        }
    }
    let (error, ply, message) = refused.expect("the disk never filled up");
    assert_friendly_full(&error);
    // The game is as stored: the refused move is not there, in memory either.
    let now = store.game(&g.key).unwrap();
    assert_eq!(now, g);
    // Room again: the same move works, without reopening anything.
    std::fs::remove_file(filler).unwrap();
    let by = if ply % 2 == 0 { "ann" } else { "bob" };
    let after = store.apply_move(&g.key, g.version, mv(&format!("m{ply}"), by, &message), "after").unwrap();
    assert_eq!(after.moves.len(), g.moves.len() + 1);
    drop(store);
    let store = Store::open(&db).unwrap();
    assert_eq!(store.game(&g.key).unwrap(), after);
    assert_eq!(store.verify().unwrap().len(), 0);
}

/// A store with `n` games of a few moves each, written one change at a time; returns its folder.
fn filled(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let store = Store::open(&path).unwrap();
    for i in 0..n {
        let channel = ChannelKey::new("discord", format!("c{i}"));
        let g = game(&store, &channel, "ann", "bob");
        store.apply_move(&g.key, g.version, mv("e2e4", "ann", &format!("m{i}")), "fen").unwrap();
    }
    drop(store);
    (dir, path)
}

fn open_error(path: &Path) -> String {
    match Store::open(path) {
        Err(e) => e.to_string(),
        Ok(store) => match store.verify() {
            Ok(problems) if problems.is_empty() => panic!("the damage went unnoticed"),
            Ok(problems) => problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
            Err(e) => e.to_string(),
        },
    }
}

#[test]
fn a_truncated_log_is_reported_at_open() {
    let (_dir, path) = filled(200);
    let log = path.join("db");
    let len = std::fs::metadata(&log).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&log).unwrap().set_len(len / 2).unwrap();
    let error = open_error(&path);
    assert!(error.contains("lost changes") || error.contains("damaged"), "{error}");
}

#[test]
fn a_flipped_bit_in_the_log_is_reported_at_open() {
    let (_dir, path) = filled(200);
    let log = path.join("db");
    let mut bytes = std::fs::read(&log).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
    std::fs::write(&log, bytes).unwrap();
    let error = open_error(&path);
    assert!(error.contains("lost changes") || error.contains("damaged"), "{error}");
}

#[test]
fn lost_changes_name_what_was_lost_and_can_be_accepted() {
    let (_dir, path) = filled(3);
    // The manifest says more changes were made than the store holds.
    std::fs::write(path.join("kibitz-changes"), format!("{:020}\n", 9)).unwrap();
    let error = Store::open(&path).unwrap_err();
    assert!(matches!(error, StoreError::LostChanges { kept: 6, expected: 9 }), "{error:?}");
    assert!(error.to_string().contains("lost changes after change 6"), "{error}");
    let (store, loss) = Store::open_accepting_loss(&path).unwrap();
    assert!(matches!(loss, Some(StoreError::LostChanges { .. })));
    drop(store);
    // Accepted: the next open is clean.
    Store::open(&path).unwrap();
}

#[test]
fn a_store_from_before_the_due_index_gets_it_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let channel = ChannelKey::new("discord", "old");
    let settings = GameSettings { days_per_move: Some(1), ..GameSettings::default() };
    let key = {
        let store = Store::open(dir.path()).unwrap();
        store.create_game(&channel, &new_game("a", "b", settings, false)).unwrap().key
    };
    {
        // As an older Kibitz left it: no index, no layout version.
        let db = sled::open(dir.path()).unwrap();
        db.drop_tree("due").unwrap();
        db.open_tree("meta").unwrap().remove("layout").unwrap();
        db.flush().unwrap();
    }
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.verify().unwrap().len(), 0);
    let due: Vec<_> = store.due_games(Timestamp(u64::MAX)).unwrap().into_iter().map(|(k, _)| k).collect();
    assert_eq!(due, [key]);
}

#[test]
fn a_backup_restores_everything() {
    let (_dir, store) = common::store();
    let channel = ChannelKey::new("telegram", "-100");
    for (i, variant) in ["chess", "olympic", "alapawn", "absorption"].iter().enumerate() {
        let mut new = new_game(&format!("p{i}"), &format!("q{i}"), GameSettings::default(), false);
        new.variant = (*variant).into();
        let g = store.create_game(&channel, &new).unwrap();
        store.apply_move(&g.key, g.version, mv("e2e4", &new.white, &format!("b{i}")), "fen").unwrap();
    }
    let clash = store.create_game(&channel, &new_game("x", "y", GameSettings::default(), true)).unwrap();
    let bid = SealedBid { player: "x".into(), round: 1, bid: "4".into(), at: Timestamp(4) };
    store.seal_bid(&clash.key, clash.version, &bid, None).unwrap();
    let done = game(&store, &ChannelKey::new("discord", "d"), "ann", "bob");
    let end = GameEnd { outcome: Outcome::BlackWins, reason: "checkmate".into(), at: Timestamp(8), message_id: None };
    store.finish_game(&done.key, done.version, &end).unwrap();
    store
        .set_channel_settings(&channel, &ChannelSettings { days_per_move: Some(3), ..ChannelSettings::default() })
        .unwrap();

    let scratch = tempfile::tempdir().unwrap();
    let file = scratch.path().join("kibitz.backup");
    let summary = store.backup(&file).unwrap();
    assert!(summary.records > 10, "{summary}");
    let into = scratch.path().join("restored");
    Store::restore(&file, &into).unwrap();
    let restored = Store::open(&into).unwrap();
    assert!(dump(&store, scratch.path()) == dump(&restored, scratch.path()));
    assert_eq!(restored.games_in_channel(&channel).unwrap().len(), 5);
    assert_eq!(restored.game(&clash.key).unwrap().clash.unwrap().sealed_bids, [bid]);
    assert_eq!(restored.archived_games_of("discord", "ann", 10).unwrap().len(), 1);
    assert_eq!(restored.rating("discord", "bob", "chess").unwrap(), store.rating("discord", "bob", "chess").unwrap());
    assert_eq!(restored.channel_settings(&channel).unwrap().days_per_move, Some(3));
    assert_eq!(restored.verify().unwrap().len(), 0);

    // A store in use is not overwritten; a damaged backup is refused whole.
    let in_use = Store::restore(&file, &into).unwrap_err();
    assert!(matches!(in_use, StoreError::InUse { .. }), "{in_use:?}");
    drop(restored);
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 20;
    bytes[last] ^= 1;
    std::fs::write(&file, bytes).unwrap();
    let damaged = Store::restore(&file, &scratch.path().join("other")).unwrap_err();
    assert!(damaged.to_string().contains("checksum"), "{damaged}");
    assert!(!scratch.path().join("other").exists());
}

#[test]
fn a_running_store_answers_a_backup_request() {
    let (dir, store) = common::store();
    game(&store, &ChannelKey::new("discord", "r"), "ann", "bob");
    assert!(store.serve_backup_request().is_none());
    let scratch = tempfile::tempdir().unwrap();
    let file = scratch.path().join("running.backup");
    let server = {
        let store = store.clone();
        std::thread::spawn(move || {
            for _ in 0..200 {
                if let Some(done) = store.serve_backup_request() {
                    return done.map(|s| s.records);
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            panic!("no request came");
        })
    };
    let answer = kibitz_storage::request_backup(dir.path(), &file, std::time::Duration::from_secs(10)).unwrap();
    assert!(server.join().unwrap().unwrap() > 0);
    assert!(answer.contains("records"), "{answer}");
    let into = scratch.path().join("copy");
    Store::restore(&file, &into).unwrap();
    assert_eq!(Store::open(&into).unwrap().games_of("discord", "ann").unwrap().len(), 1);
}

#[test]
fn a_damaged_store_is_replaced_by_its_backup_and_kept_aside() {
    let (dir, path) = filled(200);
    let file = dir.path().join("good.backup");
    Store::open(&path).unwrap().backup(&file).unwrap();
    let log = path.join("db");
    let len = std::fs::metadata(&log).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&log).unwrap().set_len(len / 2).unwrap();
    assert!(Store::open(&path).is_err());
    let summary = Store::restore(&file, &path).unwrap();
    let aside = summary.moved_aside.expect("the damaged store is kept");
    assert!(aside.join("db").exists());
    let store = Store::open(&path).unwrap();
    assert_eq!(store.games_of("discord", "ann").unwrap().len(), 200);
    assert_eq!(store.verify().unwrap().len(), 0);
}
