//! Records on disk: an older version still loads, and a damaged or unknown record
//! is an error for that record alone.
//!
//! These tests write raw bytes with sled under the keys documented in the crate
//! docs, so they also pin the on-disk layout.

mod common;

use std::path::Path;

use common::{game, mv};
use kibitz_storage::{ChannelKey, GameId, Rating, Store, StoreError};

/// Writes raw `(tree, key, value)` entries into the store at `dir` (which must not be open).
fn write_raw(dir: &Path, entries: &[(&str, &[u8], &[u8])]) {
    let db = open_raw(dir);
    for (tree, key, value) in entries {
        db.open_tree(tree).unwrap().insert(key, *value).unwrap();
    }
    db.flush().unwrap();
}

/// Opens the database behind the store's back, waiting for a store closed a
/// moment ago to let go of its lock.
fn open_raw(dir: &Path) -> sled::Db {
    for _ in 0..200 {
        match sled::open(dir) {
            Ok(db) => return db,
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
        }
    }
    sled::open(dir).unwrap()
}

fn read_raw(dir: &Path, tree: &str, key: &[u8]) -> Vec<u8> {
    let db = open_raw(dir);
    db.open_tree(tree).unwrap().get(key).unwrap().unwrap().to_vec()
}

/// A game as version 1 wrote it: moves as bare text, seconds, `hints`, `days_per_move` 0 for none.
const GAME_V1: &str = r#"{"v":1,"record":{"platform":"discord","channel":"old","id":"abcd","version":3,
    "variant":"chess","white":"ann","black":"bob","hints":true,"days_per_move":0,
    "start_fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "fen":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    "moves":["e2e4","e7e5"],"started_at":1700000000}}"#;

#[test]
fn a_version_1_game_loads_and_is_upgraded_on_its_next_change() {
    let dir = tempfile::tempdir().unwrap();
    write_raw(
        dir.path(),
        &[
            ("games", b"discord\0old\0abcd", GAME_V1.as_bytes()),
            ("games_by_player", b"discord\0ann\0old", b"abcd"),
            ("games_by_player", b"discord\0bob\0old", b"abcd"),
        ],
    );
    let store = Store::open(dir.path()).unwrap();
    let channel = ChannelKey::new("discord", "old");
    let key = channel.game(GameId::parse("abcd").unwrap());
    let g = store.game(&key).unwrap();
    assert_eq!(g.key, key);
    assert_eq!(g.version, 3);
    assert_eq!((g.white.as_str(), g.black.as_str(), g.variant.as_str()), ("ann", "bob", "chess"));
    assert!(g.settings.hints_allowed);
    assert_eq!(g.settings.days_per_move, None);
    assert_eq!(g.started_at.0, 1_700_000_000_000);
    let moves: Vec<_> = g.moves.iter().map(|m| (m.text.as_str(), m.by.as_str(), m.message_id.is_none())).collect();
    assert_eq!(moves, [("e2e4", "ann", true), ("e7e5", "bob", true)]);
    assert_eq!(store.player_game_in_channel(&channel, "bob").unwrap().unwrap(), g);
    assert!(store.verify().unwrap().is_empty());

    let g = store.apply_move(&key, 3, mv("g1f3", "ann", "m1"), "after Nf3").unwrap();
    assert_eq!(g.moves.len(), 3);
    drop(store);
    let raw = read_raw(dir.path(), "games", b"discord\0old\0abcd");
    assert!(raw.starts_with(br#"{"v":2,"record":{"#), "{}", String::from_utf8_lossy(&raw));
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.game(&key).unwrap(), g);
}

#[test]
fn a_damaged_game_is_an_error_for_that_game_alone() {
    let dir = tempfile::tempdir().unwrap();
    let channel = ChannelKey::new("discord", "c");
    let (good, garbage, future, hollow) = {
        let store = Store::open(dir.path()).unwrap();
        let games = (
            game(&store, &channel, "ann", "bob"),
            game(&store, &channel, "cid", "ann2"),
            game(&store, &channel, "dan", "eve"),
            game(&store, &channel, "fay", "gus"),
        );
        store.record_result("discord", "chess", "ann", "bob", kibitz_storage::Outcome::Draw).unwrap();
        games
    };
    let raw_key = |g: &kibitz_storage::GameRecord| format!("discord\0c\0{}", g.key.id).into_bytes();
    write_raw(
        dir.path(),
        &[
            ("games", &raw_key(&garbage), &[0xff, 0x00, 0x13, 0x37, b'{', 0x80]),
            ("games", &raw_key(&future), br#"{"v":99,"record":{"hologram":true}}"#),
            ("games", &raw_key(&hollow), br#"{"v":2,"record":{"version":1}}"#),
            ("ratings", b"discord\0bob\0chess", b"not json"),
            ("challenges", b"discord\0c\0zed", b"\x00\x01"),
            ("channels", b"discord\0c", br#"{"v":0,"record":{}}"#),
        ],
    );

    let store = Store::open(dir.path()).unwrap();
    let listed = store.games_in_channel(&channel).unwrap();
    assert_eq!(listed.len(), 4);
    for (key, result) in &listed {
        match result {
            Ok(g) => assert_eq!(g, &good),
            Err(e) => {
                let text = e.to_string();
                assert!(text.contains(&format!("game `{}` in discord/c", key.id)), "{text}");
                assert!(text.ends_with("nothing else is affected"), "{text}");
                if *key == future.key {
                    assert!(matches!(e, StoreError::UnknownVersion { version: 99, supported: 2, .. }), "{e:?}");
                    assert!(text.contains("newer version of Kibitz"), "{text}");
                } else {
                    assert!(matches!(e, StoreError::Corrupt { .. }), "{e:?}");
                }
            }
        }
    }
    assert_eq!(listed.iter().filter(|(_, g)| g.is_ok()).count(), 1);

    // Lookups of the damaged game say so; nothing else is affected.
    assert!(matches!(store.game(&garbage.key), Err(StoreError::Corrupt { .. })));
    assert!(matches!(store.apply_move(&garbage.key, 1, mv("e2e4", "cid", "m"), "f"), Err(StoreError::Corrupt { .. })));
    assert!(matches!(store.player_game_in_channel(&channel, "cid"), Err(StoreError::Corrupt { .. })));
    let ann = store.games_of("discord", "ann").unwrap();
    assert_eq!(ann.len(), 1);
    assert_eq!(ann[0].1.as_ref().unwrap(), &good);
    let g = store.apply_move(&good.key, good.version, mv("e2e4", "ann", "m"), "f").unwrap();
    assert_eq!(g.moves.len(), 1);
    game(&store, &ChannelKey::new("discord", "elsewhere"), "cid", "dan");

    // Other kinds of record: the damaged one errs, its neighbours read.
    assert!(matches!(store.rating("discord", "bob", "chess"), Err(StoreError::Corrupt { .. })));
    assert_eq!(store.rating("discord", "ann", "chess").unwrap().games, 1);
    assert_eq!(store.rating("discord", "bob", "olympic").unwrap(), Rating::default());
    let challenges = store.challenges(&channel).unwrap();
    assert_eq!(challenges.len(), 1);
    assert!(challenges[0].1.is_err());
    let settings = store.channel_settings(&channel).unwrap_err();
    assert!(settings.to_string().contains("no record version 0"), "{settings}");

    // The check names every damaged record, and only those.
    let problems = store.verify().unwrap();
    assert_eq!(problems.len(), 6, "{problems:#?}");
}
