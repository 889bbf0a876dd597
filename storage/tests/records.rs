//! Records on disk: an older version still loads, and a damaged or unknown record
//! is an error for that record alone.
//!
//! The embedded store's tests write raw bytes with sled under the keys
//! documented in the crate docs, so they also pin the on-disk layout; the
//! shared store's write rows straight into its tables (in a schema of their
//! own on the test server) and must be answered the same way.

mod common;

use std::path::Path;

use common::{game, mv};
use kibitz_storage::testing::TestSchema;
use kibitz_storage::{ChannelKey, GameEnd, GameId, GameRecord, Outcome, Rating, Store, StoreError, Timestamp};

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
    // PA7: records from before handicaps have none.
    assert_eq!(g.settings.handicap, None);
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
            ("users", b"discord\0ann", br#"{"v":1,"record":{"name":7}}"#),
        ],
    );

    let store = Store::open(dir.path()).unwrap();
    each_damaged_record_errs_alone(&store, &channel, [&good, &garbage, &future, &hollow]);
}

/// Version 1 records in the shared store (a database filled from an old
/// embedded store) load, and are rewritten in today's layout on their next change.
#[test]
fn a_version_1_game_in_postgresql_loads_and_is_upgraded_on_its_next_change() {
    let Some(schema) = TestSchema::new("v1game") else { return };
    drop(schema.store().unwrap());
    schema
        .execute(&format!(
            "INSERT INTO games (platform, channel, id, version, record) VALUES ('discord', 'old', 'abcd', 3, '{GAME_V1}');
             INSERT INTO game_players (platform, player, channel, id) VALUES
                 ('discord', 'ann', 'old', 'abcd'), ('discord', 'bob', 'old', 'abcd');"
        ))
        .unwrap();
    let store = schema.store().unwrap();
    let channel = ChannelKey::new("discord", "old");
    let key = channel.game(GameId::parse("abcd").unwrap());
    let g = store.game(&key).unwrap();
    assert_eq!((g.key.clone(), g.version, g.white.as_str(), g.black.as_str()), (key.clone(), 3, "ann", "bob"));
    assert!(g.settings.hints_allowed);
    assert_eq!(g.settings.days_per_move, None);
    assert_eq!(g.started_at.0, 1_700_000_000_000);
    let moves: Vec<_> = g.moves.iter().map(|m| (m.text.as_str(), m.by.as_str(), m.message_id.is_none())).collect();
    assert_eq!(moves, [("e2e4", "ann", true), ("e7e5", "bob", true)]);
    assert_eq!(store.player_game_in_channel(&channel, "bob").unwrap().unwrap(), g);
    assert!(store.verify().unwrap().is_empty(), "{:?}", store.verify());

    let g = store.apply_move(&key, 3, mv("g1f3", "ann", "m1"), "after Nf3").unwrap();
    assert_eq!(g.moves.len(), 3);
    let mut client = postgres::Client::connect(schema.server(), postgres::NoTls).unwrap();
    let query = format!("SELECT (record->>'v')::int, version FROM {}.games WHERE id = 'abcd'", schema.name());
    let row = client.query_one(&query, &[]).unwrap();
    assert_eq!((row.get::<_, i32>(0), row.get::<_, i64>(1)), (2, 4));
    assert_eq!(schema.store().unwrap().game(&key).unwrap(), g);
}

/// The same damage in the shared store. Its records are `jsonb`, so a
/// damaged one there is JSON that is no record this Kibitz can read: not an
/// envelope at all, an envelope from a newer version, a hollow record.
#[test]
fn a_damaged_record_in_postgresql_is_an_error_for_that_record_alone() {
    let Some(schema) = TestSchema::new("damaged") else { return };
    let channel = ChannelKey::new("discord", "c");
    let (good, garbage, future, hollow) = {
        let store = schema.store().unwrap();
        let games = (
            game(&store, &channel, "ann", "bob"),
            game(&store, &channel, "cid", "ann2"),
            game(&store, &channel, "dan", "eve"),
            game(&store, &channel, "fay", "gus"),
        );
        store.record_result("discord", "chess", "ann", "bob", Outcome::Draw).unwrap();
        games
    };
    let set_game = |g: &GameRecord, record: &str| {
        format!(
            "UPDATE games SET record = '{record}' WHERE platform = 'discord' AND channel = 'c' AND id = '{}';",
            g.key.id
        )
    };
    schema
        .execute(
            &[
                set_game(&garbage, "[1, 2]"),
                set_game(&future, r#"{"v":99,"record":{"hologram":true}}"#),
                set_game(&hollow, r#"{"v":2,"record":{"version":1}}"#),
                r#"UPDATE ratings SET record = '{"v":1,"record":{"rating":"high"}}'
               WHERE platform = 'discord' AND player = 'bob' AND variant = 'chess';
               INSERT INTO challenges (platform, channel, challenger, record) VALUES ('discord', 'c', 'zed', '"zed"');
               INSERT INTO channel_settings (platform, channel, record) VALUES ('discord', 'c', '{"v":0,"record":{}}');
               INSERT INTO users (platform, id, record) VALUES ('discord', 'ann', '{"v":1,"record":{"name":7}}');"#
                    .to_owned(),
            ]
            .concat(),
        )
        .unwrap();

    // Another process connecting sees the same.
    let store = schema.store().unwrap();
    each_damaged_record_errs_alone(&store, &channel, [&good, &garbage, &future, &hollow]);
    // The leaderboard leaves the damaged rating out.
    assert_eq!(
        store.leaderboard("discord", "chess", 10).unwrap().iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        ["ann"]
    );
}

/// What a store with four games in `channel` (`good`, then three damaged:
/// not a record at all, from a future version, and a hollow one), ann's and
/// bob's chess ratings (bob's damaged), a damaged challenge from zed,
/// damaged settings in the channel and a damaged directory entry for ann
/// must say: each damaged record errs, alone, and `verify` names the seven.
fn each_damaged_record_errs_alone(store: &Store, channel: &ChannelKey, games: [&GameRecord; 4]) {
    let [good, garbage, future, hollow] = games;
    let listed = store.games_in_channel(channel).unwrap();
    assert_eq!(listed.len(), 4);
    for (key, result) in &listed {
        match result {
            Ok(g) => assert_eq!(g, good),
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
    assert!(matches!(store.player_game_in_channel(channel, "cid"), Err(StoreError::Corrupt { .. })));
    let ann = store.games_of("discord", "ann").unwrap();
    assert_eq!(ann.len(), 1);
    assert_eq!(ann[0].1.as_ref().unwrap(), good);
    let g = store.apply_move(&good.key, good.version, mv("e2e4", "ann", "m"), "f").unwrap();
    assert_eq!(g.moves.len(), 1);
    // Both sides move, so that its end would be rated.
    let g = store.apply_move(&g.key, g.version, mv("e7e5", &g.black, "m-black"), "f").unwrap();
    game(store, &ChannelKey::new("discord", "elsewhere"), "cid", "dan");

    // Other kinds of record: the damaged one errs, its neighbours read.
    assert!(matches!(store.rating("discord", "bob", "chess"), Err(StoreError::Corrupt { .. })));
    assert_eq!(store.rating("discord", "ann", "chess").unwrap().games, 1);
    assert_eq!(store.rating("discord", "bob", "olympic").unwrap(), Rating::default());
    let challenges = store.challenges(channel).unwrap();
    assert_eq!(challenges.len(), 1);
    assert!(challenges[0].1.is_err());
    let settings = store.channel_settings(channel).unwrap_err();
    assert!(settings.to_string().contains("no record version 0"), "{settings}");
    assert!(matches!(store.user("discord", "ann"), Err(StoreError::Corrupt { .. })));
    assert_eq!(store.user_by_username("discord", "ann").unwrap(), None);

    // A rated game whose player's rating cannot be read does not end half-way.
    let end =
        GameEnd { outcome: Outcome::WhiteWins, reason: "resignation".into(), at: Timestamp(3_000), message_id: None };
    assert!(matches!(store.finish_game(&g.key, g.version, &end), Err(StoreError::Corrupt { .. })));
    assert_eq!(store.game(&g.key).unwrap(), g);
    assert!(store.archived_games_of("discord", "ann", 5).unwrap().is_empty());
    assert_eq!(store.rating("discord", "ann", "chess").unwrap().games, 1);

    // The check names every damaged record, and only those, as their lookups do.
    let problems = store.verify().unwrap();
    assert_eq!(problems.len(), 7, "{problems:#?}");
    let mut named: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    named.sort();
    let mut expected: Vec<String> = [
        store.game(&garbage.key).unwrap_err(),
        store.game(&future.key).unwrap_err(),
        store.game(&hollow.key).unwrap_err(),
        store.rating("discord", "bob", "chess").unwrap_err(),
        store.challenges(channel).unwrap().remove(0).1.unwrap_err(),
        store.channel_settings(channel).unwrap_err(),
        store.user("discord", "ann").unwrap_err(),
    ]
    .iter()
    .map(|e| e.to_string())
    .collect();
    expected.sort();
    assert_eq!(named, expected);
}

/// A version 2 game as written before chat clocks: no `clock` in its
/// settings nor beside them.
const GAME_V2_BEFORE_CLOCKS: &str = r#"{"v":2,"record":{"key":{"channel":{"platform":"discord","channel":"old"},"id":"abcd"},
    "version":2,"variant":"chess","white":"ann","black":"bob",
    "settings":{"rated":true,"hints_allowed":false,"days_per_move":3,"bot_level":null},
    "start_fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "fen":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    "moves":[{"text":"e2e4","by":"ann","at":1700000000000,"message_id":"m0"}],
    "started_at":1699999000000,"updated_at":1700000000000}}"#;

fn check_game_before_clocks(store: &Store) {
    let key = ChannelKey::new("discord", "old").game(GameId::parse("abcd").unwrap());
    let g = store.game(&key).unwrap();
    assert_eq!((g.settings.days_per_move, g.settings.clock, g.clock.clone()), (Some(3), None, None));
    assert_eq!(g.moves.len(), 1);
    // It plays on, still without a chat clock.
    let g = store.apply_move(&key, 2, mv("e7e5", "bob", "m1"), "after e5").unwrap();
    assert_eq!((g.version, g.clock), (3, None));
}

#[test]
fn a_game_written_before_chat_clocks_loads_without_one() {
    let dir = tempfile::tempdir().unwrap();
    write_raw(
        dir.path(),
        &[
            ("games", b"discord\0old\0abcd", GAME_V2_BEFORE_CLOCKS.as_bytes()),
            ("games_by_player", b"discord\0ann\0old", b"abcd"),
            ("games_by_player", b"discord\0bob\0old", b"abcd"),
        ],
    );
    check_game_before_clocks(&Store::open(dir.path()).unwrap());
}

#[test]
fn a_game_written_before_chat_clocks_in_postgresql_loads_without_one() {
    let Some(schema) = TestSchema::new("noclock") else { return };
    drop(schema.store().unwrap());
    schema
        .execute(&format!(
            "INSERT INTO games (platform, channel, id, version, record) VALUES ('discord', 'old', 'abcd', 2, '{GAME_V2_BEFORE_CLOCKS}');
             INSERT INTO game_players (platform, player, channel, id) VALUES
                 ('discord', 'ann', 'old', 'abcd'), ('discord', 'bob', 'old', 'abcd');"
        ))
        .unwrap();
    check_game_before_clocks(&schema.store().unwrap());
}
