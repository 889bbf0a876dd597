//! `migrate`: an embedded store copied into PostgreSQL answers every
//! question as the embedded one did, and play goes on there.
//!
//! The tests that need a PostgreSQL server are skipped without one (outside CI).

mod common;

use std::path::Path;

use kibitz_storage::testing::TestSchema;
use kibitz_storage::{
    Challenge, ChannelKey, ChannelSettings, ClashMatch, ClashRound, ColourChoice, Completion, GameEnd, GameId, GameKey,
    GameListing, GameRecord, GameSettings, MoveRecord, NewGame, Offer, OfferKind, Outcome, Rating, SealedBid, Store,
    StoreError, Timestamp, UserRecord, migrate_into_schema,
};

/// A moment in the games' past, in milliseconds.
const T0: u64 = 1_760_000_000_000;
const DAY: u64 = 86_400_000;

fn at(minutes: u64) -> Timestamp {
    Timestamp(T0 + minutes * 60_000)
}

fn mv(text: &str, by: &str, minutes: u64, message: &str) -> MoveRecord {
    MoveRecord { text: text.into(), by: by.into(), at: at(minutes), message_id: Some(message.into()) }
}

fn new_game(variant: &str, white: &str, black: &str, fen: &str, settings: GameSettings) -> NewGame {
    NewGame {
        variant: variant.into(),
        white: white.into(),
        black: black.into(),
        settings,
        start_fen: fen.into(),
        at: at(0),
        clash: (variant == "clash").then(ClashMatch::default),
        bot: None,
    }
}

/// Plays `moves` (text, player, position after) in game `game`, one chat message each.
fn play(store: &Store, mut game: GameRecord, moves: &[(&str, &str, &str)]) -> GameRecord {
    for (i, (text, by, fen)) in moves.iter().enumerate() {
        let message = format!("{}-{}", game.key.id, i);
        game = store.apply_move(&game.key, game.version, mv(text, by, 10 + i as u64, &message), fen).unwrap();
    }
    game
}

const CHESS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const ALAPAWN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
const BALANCED: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 1 - 0 1";
const OLYMPIC: &str = "rbsgk/4p/5/P4/KGSBR[] w - - 0 1";
const CONSTRUCTION: &str = "4k3/8/8/8/8/8/8/4K3[S15R3B3N2P8C2s15r3b3n2p8c2] w - - 0 1";
const CLASH: &str = "4s3/8/8/8/8/8/8/4K3 w d - 0 1";

/// What the test store holds, to ask about.
struct Fixture {
    channels: Vec<ChannelKey>,
    games: Vec<GameKey>,
    finished: Vec<GameKey>,
    players: Vec<(&'static str, &'static str)>,
    chess: GameKey,
    clash: GameKey,
}

/// Fills an embedded store with games of every variant (moves, offers, a
/// Clash match with sealed bids and rounds), finished games (rated and
/// not), challenges, settings, users, replies owed, a cursor and handled messages.
fn fill(store: &Store) -> Fixture {
    let lobby = ChannelKey::new("discord", "100");
    let second = ChannelKey::new("discord", "200");
    let arena = ChannelKey::new("discord", "300");
    let done = ChannelKey::new("discord", "400");
    let group = ChannelKey::new("telegram", "-1001");

    let correspondence = GameSettings { days_per_move: Some(3), ..GameSettings::default() };
    let chess = store.create_game(&lobby, &new_game("chess", "ann", "bob", CHESS, correspondence.clone())).unwrap();
    let chess = play(
        store,
        chess,
        &[
            ("e2e4", "ann", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
            ("e7e5", "bob", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
            ("g1f3", "ann", "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"),
        ],
    );
    let draw = Offer { kind: OfferKind::Draw, by: "bob".into(), at: at(20) };
    let chess = store.make_offer(&chess.key, chess.version, &draw, Some("offer-1")).unwrap();

    let olympic =
        store.create_game(&lobby, &new_game("olympic", "cat", "dan", OLYMPIC, GameSettings::default())).unwrap();
    let olympic = play(
        store,
        olympic,
        &[("c1b2", "cat", "rbsgk/4p/5/PS3/KG1BR[] b - - 1 1"), ("e4e3", "dan", "rbsgk/5/4p/PS3/KG1BR[] w - - 0 2")],
    );
    let takeback = Offer { kind: OfferKind::Takeback { plies: 1 }, by: "dan".into(), at: at(30) };
    let olympic = store.make_offer(&olympic.key, olympic.version, &takeback, Some("offer-2")).unwrap();

    let alapawn =
        store.create_game(&second, &new_game("alapawn", "ann", "cat", ALAPAWN, GameSettings::default())).unwrap();
    let alapawn = play(store, alapawn, &[("e2d3", "ann", "rnbqkbnr/pppppppp/8/8/8/3P4/PPPP1PPP/RNBQKBNR b - - 0 1")]);

    let against_bot = GameSettings { rated: false, bot_level: Some(3), ..GameSettings::default() };
    let balanced =
        store.create_game(&group, &new_game("alapawn-balanced", "501", "bot", BALANCED, against_bot)).unwrap();
    let balanced = play(store, balanced, &[("b1c3", "501", "rnbqkbnr/pppppppp/8/8/8/2N5/PPPPPPPP/R1BQKBNR b 1 - 1 1")]);

    let absorption =
        store.create_game(&group, &new_game("absorption", "502", "503", CHESS, GameSettings::default())).unwrap();
    let absorption = play(
        store,
        absorption,
        &[
            ("e2e4", "502", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
            ("d7d5", "503", "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
            ("e4d5", "502", "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2"),
        ],
    );

    let construction = store
        .create_game(&arena, &new_game("construction", "eve", "fay", CONSTRUCTION, GameSettings::default()))
        .unwrap();
    let construction = play(
        store,
        construction,
        &[
            ("S@e2", "eve", "4k3/8/8/8/8/8/4S3/4K3[S14R3B3N2P8C2s15r3b3n2p8c2] b - - 1 1"),
            ("s@e7", "fay", "4k3/4s3/8/8/8/8/4S3/4K3[S14R3B3N2P8C2s14r3b3n2p8c2] w - - 2 2"),
        ],
    );

    // A Clash match in its second round: the first one played, both bids sealed.
    let clash = store.create_game(&arena, &new_game("clash", "ann", "bob", CLASH, GameSettings::default())).unwrap();
    let clash = store
        .update_game(&clash.key, clash.version, Some("clash-1"), |g| {
            let m = g.clash.as_mut().unwrap();
            m.state = Some(serde_json::json!({"round": 2, "phase": {"Bidding": {}}, "score": [1, 0]}));
            m.round = 2;
            m.gold.insert("ann".into(), 57);
            m.gold.insert("bob".into(), 80);
            m.armies.insert("ann".into(), vec!["K@e1".into(), "Q@d1".into()]);
            m.armies.insert("bob".into(), vec!["S@e8".into()]);
            m.rounds.push(ClashRound {
                number: 1,
                bids: vec![
                    SealedBid { player: "ann".into(), round: 1, bid: "12".into(), at: at(40) },
                    SealedBid { player: "bob".into(), round: 1, bid: "9".into(), at: at(41) },
                ],
                outcome: "ann wins round 1 by checkmate".into(),
                start_fen: CLASH.into(),
                moves: vec!["e1e2".into(), "e8d8".into()],
            });
            g.updated_at = at(42);
            Ok(())
        })
        .unwrap();
    let bid = SealedBid { player: "ann".into(), round: 2, bid: "20".into(), at: at(50) };
    let clash = store.seal_bid(&clash.key, clash.version, &bid, Some("bid-ann")).unwrap();
    let bid = SealedBid { player: "bob".into(), round: 2, bid: "15".into(), at: at(51) };
    let clash = store.seal_bid(&clash.key, clash.version, &bid, Some("bid-bob")).unwrap();

    // Finished games: two rated (ratings change), one not; at different times.
    let mut finished = Vec::new();
    for (i, (variant, white, black, fen, rated, outcome)) in [
        ("chess", "ann", "bob", CHESS, true, Outcome::WhiteWins),
        ("olympic", "cat", "ann", OLYMPIC, true, Outcome::Draw),
        ("alapawn", "bob", "dan", ALAPAWN, false, Outcome::BlackWins),
        ("chess", "bob", "ann", CHESS, true, Outcome::BlackWins),
    ]
    .into_iter()
    .enumerate()
    {
        let settings = GameSettings { rated, ..GameSettings::default() };
        let g = store.create_game(&done, &new_game(variant, white, black, fen, settings)).unwrap();
        // A move of each side: the game was played, and is rated where it is rated.
        let moves = match variant {
            "olympic" => ["a2a3", "e4e3"],
            "alapawn" => ["e2e3", "e7e6"],
            _ => ["e2e4", "e7e5"],
        };
        let g = common::both_moved(store, g, moves);
        let end = GameEnd {
            outcome,
            reason: if outcome == Outcome::Draw { "draw agreed" } else { "resignation" }.into(),
            at: Timestamp(T0 + (i as u64 + 1) * DAY),
            message_id: Some(format!("end-{i}")),
        };
        finished.push(store.finish_game(&g.key, g.version, &end).unwrap().key);
    }

    store
        .create_challenge(
            &lobby,
            &Challenge {
                challenger: "gus".into(),
                challenged: None,
                variant: "olympic".into(),
                colour: ColourChoice::Random,
                settings: GameSettings::default(),
                clash: false,
                at: at(60),
            },
        )
        .unwrap();
    store
        .create_challenge(
            &done,
            &Challenge {
                challenger: "bob".into(),
                challenged: Some("dan".into()),
                variant: "clash".into(),
                colour: ColourChoice::Black,
                settings: GameSettings { days_per_move: Some(2), ..GameSettings::default() },
                clash: true,
                at: at(61),
            },
        )
        .unwrap();

    let settings = ChannelSettings {
        default_variant: Some("olympic".into()),
        rated: false,
        hints_allowed: true,
        days_per_move: Some(5),
    };
    store.set_channel_settings(&lobby, &settings).unwrap();

    store.note_user("discord", "ann", "Ann", Some("Annie"), at(70)).unwrap();
    store.note_user("discord", "bob", "Bob", None, at(70)).unwrap();
    // A Telegram user whose records were kept under their username by an older Kibitz.
    store
        .create_challenge(
            &group,
            &Challenge {
                challenger: "zed".into(),
                challenged: None,
                variant: "chess".into(),
                colour: ColourChoice::White,
                settings: GameSettings::default(),
                clash: false,
                at: at(71),
            },
        )
        .unwrap();
    let moved = store.see_user("telegram", "509", "Zed Zeta", Some("Zed"), at(72)).unwrap();
    assert_eq!(moved.challenges, 1);
    store.see_user("telegram", "501", "Una", Some("una"), at(73)).unwrap();

    // Handled messages, replies owed (one half sent), reading positions.
    let owed = store
        .complete(&Completion {
            platform: "discord".into(),
            message_id: Some("9001".into()),
            cursor: Some(("100".into(), "9001".into())),
            owed: vec![("100".into(), b"{\"text\":\"e4 played\"}".to_vec()), ("200".into(), vec![0, 1, 2, 255])],
            at: at(80),
        })
        .unwrap();
    store.set_progress("discord", owed[0].seq, 1).unwrap();
    store
        .complete(&Completion {
            platform: "telegram".into(),
            message_id: Some("-1001:77".into()),
            cursor: None,
            owed: vec![("-1001".into(), b"reply".to_vec())],
            at: at(81),
        })
        .unwrap();
    store
        .complete(&Completion {
            platform: "discord".into(),
            message_id: Some("9002".into()),
            cursor: Some(("200".into(), "9002".into())),
            owed: Vec::new(),
            at: at(82),
        })
        .unwrap();

    Fixture {
        channels: vec![lobby, second, arena, done, group, ChannelKey::new("discord", "never")],
        games: vec![
            chess.key.clone(),
            olympic.key,
            alapawn.key,
            balanced.key,
            absorption.key,
            construction.key,
            clash.key.clone(),
        ],
        finished,
        players: vec![
            ("discord", "ann"),
            ("discord", "bob"),
            ("discord", "cat"),
            ("discord", "dan"),
            ("discord", "eve"),
            ("discord", "fay"),
            ("discord", "gus"),
            ("telegram", "501"),
            ("telegram", "503"),
            ("telegram", "509"),
            ("telegram", "zed"),
        ],
        chess: chess.key,
        clash: clash.key,
    }
}

fn whole(listing: GameListing) -> Vec<(GameKey, GameRecord)> {
    listing.into_iter().map(|(key, game)| (key, game.unwrap())).collect()
}

/// An owed reply without its place in the outbox: channel, payload, progress, time.
type OwedReply = (String, Vec<u8>, u32, Timestamp);

/// Everything the store answers about the fixture, in one comparable value.
#[derive(Debug, PartialEq)]
struct Answers {
    active: Vec<(GameKey, GameRecord)>,
    by_channel: Vec<Vec<(GameKey, GameRecord)>>,
    challenges: Vec<Vec<(String, Challenge)>>,
    settings: Vec<ChannelSettings>,
    games: Vec<GameRecord>,
    archived: Vec<GameRecord>,
    over: Vec<bool>,
    of_player: Vec<Vec<(GameKey, GameRecord)>>,
    archived_of: Vec<Vec<(GameKey, GameRecord)>>,
    in_channel: Vec<Option<GameRecord>>,
    ratings: Vec<Vec<(String, Rating)>>,
    leaderboards: Vec<Vec<(String, Rating)>>,
    users: Vec<Option<UserRecord>>,
    usernames: Vec<Option<String>>,
    owed: Vec<Vec<OwedReply>>,
    cursors: Vec<Vec<(String, String)>>,
    handled: Vec<bool>,
    due_soon: Vec<GameKey>,
    due_later: Vec<GameKey>,
}

fn answers(store: &Store, f: &Fixture) -> Answers {
    let platforms = ["discord", "telegram"];
    Answers {
        active: whole(store.active_games().unwrap()),
        by_channel: f.channels.iter().map(|c| whole(store.games_in_channel(c).unwrap())).collect(),
        challenges: f
            .channels
            .iter()
            .map(|c| store.challenges(c).unwrap().into_iter().map(|(who, ch)| (who, ch.unwrap())).collect())
            .collect(),
        settings: f.channels.iter().map(|c| store.channel_settings(c).unwrap()).collect(),
        games: f.games.iter().map(|k| store.game(k).unwrap()).collect(),
        archived: f.finished.iter().map(|k| store.archived_game(k).unwrap()).collect(),
        over: f.finished.iter().map(|k| matches!(store.game(k), Err(StoreError::GameOver(_)))).collect(),
        of_player: f.players.iter().map(|(p, who)| whole(store.games_of(p, who).unwrap())).collect(),
        archived_of: f.players.iter().map(|(p, who)| whole(store.archived_games_of(p, who, 10).unwrap())).collect(),
        in_channel: f
            .channels
            .iter()
            .flat_map(|c| f.players.iter().map(move |(_, who)| (c, who)))
            .map(|(c, who)| store.player_game_in_channel(c, who).unwrap())
            .collect(),
        ratings: f
            .players
            .iter()
            .map(|(p, who)| store.ratings_of(p, who).unwrap().into_iter().map(|(v, r)| (v, r.unwrap())).collect())
            .collect(),
        leaderboards: ["chess", "olympic", "alapawn"]
            .iter()
            .map(|v| store.leaderboard("discord", v, 10).unwrap())
            .collect(),
        users: [("discord", "ann"), ("discord", "bob"), ("telegram", "509"), ("telegram", "501"), ("telegram", "5")]
            .iter()
            .map(|(p, id)| store.user(p, id).unwrap())
            .collect(),
        usernames: [
            ("discord", "annie"),
            ("discord", "@ANNIE"),
            ("telegram", "zed"),
            ("telegram", "una"),
            ("telegram", "x"),
        ]
        .iter()
        .map(|(p, name)| store.user_by_username(p, name).unwrap())
        .collect(),
        owed: platforms
            .iter()
            .map(|p| {
                let owed = store.owed(p).unwrap().into_iter().map(Result::unwrap);
                owed.map(|o| (o.channel, o.payload, o.progress, o.at)).collect()
            })
            .collect(),
        cursors: platforms.iter().map(|p| store.cursors(p).unwrap()).collect(),
        handled: [("discord", "9001"), ("discord", "9002"), ("telegram", "-1001:77"), ("discord", "9003")]
            .iter()
            .map(|(p, m)| store.is_handled(p, m).unwrap())
            .collect(),
        due_soon: store.due_games(at(24 * 60)).unwrap().into_iter().map(|(k, _)| k).collect(),
        due_later: store.due_games(Timestamp(T0 + 30 * DAY)).unwrap().into_iter().map(|(k, _)| k).collect(),
    }
}

/// Builds the fixture in a sled store in `dir` and returns its answers (the store is closed after).
fn sled_fixture(dir: &Path) -> (Fixture, Answers) {
    let store = Store::open(dir).unwrap();
    let fixture = fill(&store);
    assert!(store.verify().unwrap().is_empty());
    let answers = answers(&store, &fixture);
    (fixture, answers)
}

#[test]
fn every_record_is_copied_and_play_goes_on() {
    let Some(schema) = TestSchema::new("copy_all") else { return };
    let dir = tempfile::tempdir().unwrap();
    let (fixture, before) = sled_fixture(dir.path());
    // The fixture holds what the comparison is about.
    assert_eq!(before.active.len(), 7);
    assert_eq!(before.archived.len(), 4);
    assert!(before.over.iter().all(|&over| over));
    assert_eq!(before.challenges.iter().map(Vec::len).sum::<usize>(), 3, "with the one moved to 509");
    assert_eq!(before.leaderboards[0].len(), 2, "ann and bob are rated at chess");
    assert_eq!(before.archived_of[0].len(), 3, "ann finished three games");
    assert_eq!(before.due_soon, [before.games[3].key.clone()], "the game against the bot is due a minute on");
    assert_eq!(before.due_later.len(), 2, "and the correspondence game when its days are nearly used");
    assert_eq!(before.usernames[2].as_deref(), Some("509"));

    let report = migrate_into_schema(dir.path(), schema.server(), schema.name()).unwrap();
    assert!(report.skipped.is_empty(), "{report}");
    let counts: Vec<(&str, usize)> = report.counts().to_vec();
    assert_eq!(
        counts,
        [
            ("active games", 7),
            ("active game players", 14),
            ("archived games", 4),
            ("archived game players", 8),
            ("challenges", 3),
            // ann, bob and cat at chess and olympic; the unrated game rates nobody.
            ("ratings", 4),
            ("channel settings", 1),
            ("handled messages", 3),
            ("owed replies", 3),
            ("cursors", 2),
            ("users", 4),
            ("usernames", 3),
            ("legacy usernames", 2),
            ("reviews owed", 0),
            ("reviews", 0),
        ]
    );
    let shown = report.to_string();
    assert!(shown.contains("active games: 7\n") && shown.ends_with("damaged, left out: 0"), "{shown}");

    let store = schema.store().unwrap();
    assert!(store.verify().unwrap().is_empty());
    let after = answers(&store, &fixture);
    assert_eq!(after, before);

    // Play goes on from the same version; a message applied before is recognised.
    let chess = store.game(&fixture.chess).unwrap();
    let next = mv("b8c6", "bob", 100, "after-copy");
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let played = store.apply_move(&chess.key, chess.version, next, fen).unwrap();
    // Bob's own draw offer outlives his move (the opponent may still take it).
    assert_eq!((played.version, played.moves.len(), played.offers.len()), (chess.version + 1, 4, 1));
    let again =
        store.apply_move(&chess.key, chess.version - 1, mv("e7e5", "bob", 11, &format!("{}-1", chess.key.id)), fen);
    assert!(matches!(again, Err(StoreError::AlreadyApplied { .. })), "{again:?}");
    let clash = store.game(&fixture.clash).unwrap();
    let bid = SealedBid { player: "ann".into(), round: 2, bid: "21".into(), at: at(101) };
    let twice = store.seal_bid(&clash.key, clash.version, &bid, Some("bid-ann"));
    assert!(matches!(twice, Err(StoreError::AlreadyApplied { .. })), "{twice:?}");
    // A game cannot start under an id the archive holds, nor for a player who is busy.
    let busy =
        store.create_game(&fixture.channels[0], &new_game("chess", "ann", "zoe", CHESS, GameSettings::default()));
    assert!(matches!(busy, Err(StoreError::PlayerBusy { .. })), "{busy:?}");

    // Owed replies belong to no process: the first to look takes them, in order.
    let claimed: Vec<_> = store.claim_owed("discord").unwrap().into_iter().map(Result::unwrap).collect();
    assert_eq!(claimed.iter().map(|o| (o.channel.as_str(), o.progress)).collect::<Vec<_>>(), [("100", 1), ("200", 0)]);
    assert!(claimed[0].seq < claimed[1].seq);
    // A retried delivery of a handled message is refused.
    let retried = store.complete(&Completion {
        platform: "discord".into(),
        message_id: Some("9001".into()),
        cursor: None,
        owed: Vec::new(),
        at: at(110),
    });
    assert!(matches!(retried, Err(StoreError::AlreadyHandled(_))), "{retried:?}");
    // The legacy username's records are not moved a second time.
    let old = Challenge {
        challenger: "zed".into(),
        challenged: None,
        variant: "chess".into(),
        colour: ColourChoice::White,
        settings: GameSettings::default(),
        clash: false,
        at: at(111),
    };
    store.create_challenge(&fixture.channels[4], &old).unwrap();
    assert!(store.see_user("telegram", "509", "Zed", Some("zed"), at(112)).unwrap().is_empty());
    // A finished game's ratings carry on.
    let rated = store.rating("discord", "ann", "chess").unwrap();
    assert_eq!(rated, before.ratings[0].iter().find(|(v, _)| v == "chess").unwrap().1);
    assert_eq!(rated.games, 2);

    // A second copy into the same (no longer empty) database is refused, and changes nothing.
    drop(store);
    let refused = migrate_into_schema(dir.path(), schema.server(), schema.name()).unwrap_err();
    assert!(matches!(refused, StoreError::TargetNotEmpty { .. }), "{refused:?}");
    assert!(refused.to_string().contains("nothing was copied"), "{refused}");
    let store = schema.store().unwrap();
    assert_eq!(store.game(&fixture.chess).unwrap(), played);
    assert_eq!(store.active_games().unwrap().len(), 7);
    assert_eq!(store.owed("telegram").unwrap().len(), 1);
}

#[test]
fn a_store_in_use_or_missing_is_refused_before_connecting() {
    // No server is needed: the address is never reached.
    let nowhere = "postgres://kibitz@127.0.0.1:9/nowhere";
    let dir = tempfile::tempdir().unwrap();
    let refused = migrate_into_schema(dir.path(), nowhere, "x").unwrap_err();
    assert!(matches!(refused, StoreError::NoStore { .. }), "{refused:?}");
    assert!(!dir.path().join("db").exists(), "no store is made where there was none");

    let store = Store::open(dir.path()).unwrap();
    common::game(&store, &ChannelKey::new("discord", "c"), "ann", "bob");
    let refused = migrate_into_schema(dir.path(), nowhere, "x").unwrap_err();
    assert!(matches!(refused, StoreError::InUse { .. }), "{refused:?}");
    drop(store);

    // Closed, it is read; then the unreachable target is reported as such.
    let refused = migrate_into_schema(dir.path(), nowhere, "x").unwrap_err();
    assert!(matches!(refused, StoreError::Unreachable(_)), "{refused:?}");
}

/// Writes raw entries into the closed sled store at `dir`.
fn write_raw(dir: &Path, entries: &[(&str, &[u8], &[u8])]) {
    let mut db = None;
    for _ in 0..200 {
        match sled::open(dir) {
            Ok(opened) => {
                db = Some(opened);
                break;
            }
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
        }
    }
    let db = db.expect("the store lets go of its files");
    for (tree, key, value) in entries {
        db.open_tree(tree).unwrap().insert(key, *value).unwrap();
    }
    db.flush().unwrap();
}

/// A game as Kibitz's first record version wrote it.
const GAME_V1: &str = r#"{"v":1,"record":{"platform":"discord","channel":"old","id":"abcd","version":3,
    "variant":"chess","white":"ann","black":"bob","hints":true,"days_per_move":0,
    "start_fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "fen":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    "moves":["e2e4","e7e5"],"started_at":1700000000}}"#;

#[test]
fn damaged_records_are_left_out_and_reported_old_ones_copied_as_stored() {
    let Some(schema) = TestSchema::new("copy_damaged") else { return };
    let dir = tempfile::tempdir().unwrap();
    let channel = ChannelKey::new("discord", "c");
    let (good, damaged) = {
        let store = Store::open(dir.path()).unwrap();
        (common::game(&store, &channel, "ann", "bob"), common::game(&store, &channel, "cid", "dan"))
    };
    let damaged_key = format!("discord\0c\0{}", damaged.key.id).into_bytes();
    write_raw(
        dir.path(),
        &[
            ("games", &damaged_key, b"{\"v\":2,\"record\":{\"version\":"),
            ("games", b"discord\0old\0abcd", GAME_V1.as_bytes()),
            ("games_by_player", b"discord\0ann\0old", b"abcd"),
            ("games_by_player", b"discord\0bob\0old", b"abcd"),
            // An index entry naming a game nobody has.
            ("games_by_player", b"discord\0gus\0c", b"zzzz"),
            ("ratings", b"discord\0bob\0chess", br#"{"v":99,"record":{}}"#),
            ("users", b"discord\0eve", br#"{"v":1,"record":{"name":"Eve\u0000","seen":5}}"#),
            ("outbox", b"discord\0\0\0\0\0\0\0\0\x07", b"\x00\x00"),
        ],
    );

    let report = migrate_into_schema(dir.path(), schema.server(), schema.name()).unwrap();
    assert_eq!((report.games, report.game_players), (2, 4), "{report}");
    // A NUL in a name is no damage: it is kept as the shared store keeps it.
    assert_eq!((report.ratings, report.users, report.owed), (0, 1, 0), "{report}");
    let skipped: Vec<String> = report.skipped.iter().map(ToString::to_string).collect();
    assert_eq!(skipped.len(), 4, "{skipped:#?}");
    let damaged_name = format!("game `{}` in discord/c", damaged.key.id);
    for expected in [damaged_name.as_str(), "gus", "the chess rating of bob", "owed reply 7"] {
        assert!(skipped.iter().any(|s| s.contains(expected)), "{expected} not in {skipped:#?}");
    }
    assert!(report.to_string().contains("damaged, left out: 4"), "{report}");

    let store = schema.store().unwrap();
    assert_eq!(store.user("discord", "eve").unwrap().unwrap().name, "Eve\0");
    assert_eq!(store.game(&good.key).unwrap(), good);
    assert!(matches!(store.game(&damaged.key), Err(StoreError::NoSuchGame(_))));
    // The old record reads as the embedded store read it, and takes moves.
    let old = ChannelKey::new("discord", "old").game(GameId::parse("abcd").unwrap());
    let g = store.game(&old).unwrap();
    assert_eq!((g.version, g.moves.len(), g.started_at), (3, 2, Timestamp(1_700_000_000_000)));
    assert_eq!(store.player_game_in_channel(&old.channel, "bob").unwrap().unwrap(), g);
    let g = store.apply_move(&old, 3, mv("g1f3", "ann", 1, "m-old"), "after Nf3").unwrap();
    assert_eq!(g.version, 4);
    assert!(store.verify().unwrap().is_empty());
}
