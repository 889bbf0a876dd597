//! The user directory, the move of records kept under a legacy username to
//! the user's id, and the move of a channel to a new id.

mod common;

use std::collections::BTreeMap;

use common::{Backing, START, both_moved, game};
use kibitz_storage::{
    Challenge, ChannelKey, ClashMatch, ColourChoice, GameEnd, GameId, GameSettings, NewGame, Offer, OfferKind, Outcome,
    SealedBid, Timestamp,
};

const TG: &str = "telegram";

/// A game as version 1 wrote it, between two players keyed by username.
const GAME_V1: &str = r#"{"v":1,"record":{"platform":"telegram","channel":"-300","id":"k7qz","version":3,
    "variant":"chess","white":"bob_t","black":"ann","hints":false,"days_per_move":0,
    "start_fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "fen":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    "moves":["e2e4","e7e5"],"started_at":1700000000}}"#;

/// Writes [`GAME_V1`] and its players' index entries as an older Kibitz
/// left them, behind the store's back (the store must not be open).
fn write_v1(backing: &Backing) {
    match backing {
        Backing::Sled(dir) => {
            let db = sled::open(dir.path()).unwrap();
            db.open_tree("games").unwrap().insert(b"telegram\0-300\0k7qz", GAME_V1.as_bytes()).unwrap();
            let players = db.open_tree("games_by_player").unwrap();
            players.insert(b"telegram\0bob_t\0-300", b"k7qz").unwrap();
            players.insert(b"telegram\0ann\0-300", b"k7qz").unwrap();
            db.flush().unwrap();
        }
        Backing::Postgres(schema) => {
            // Connecting once makes the tables.
            drop(schema.store().unwrap());
            schema
                .execute(&format!(
                    "INSERT INTO games (platform, channel, id, version, record) VALUES ('telegram', '-300', 'k7qz', 3, '{}');
                     INSERT INTO game_players (platform, player, channel, id) VALUES
                         ('telegram', 'bob_t', '-300', 'k7qz'), ('telegram', 'ann', '-300', 'k7qz');",
                    GAME_V1.replace('\'', "''")
                ))
                .unwrap();
        }
    }
}

fn end(outcome: Outcome, at: u64) -> GameEnd {
    GameEnd { outcome, reason: "resignation".into(), at: Timestamp(at), message_id: None }
}

on_both_backends! {
    fn records_kept_under_a_username_move_to_its_holders_id_once(backing) {
        write_v1(backing);
        let store = backing.open();
        let chat = ChannelKey::new(TG, "-100");
        // A finished rated game, as the old adapter kept it.
        let g = both_moved(&store, game(&store, &chat, "ann", "bob_t"), ["e2e4", "e7e5"]);
        store.finish_game(&g.key, g.version, &end(Outcome::WhiteWins, 10)).unwrap();
        // Bob's id also has a rating of its own (from before he set a username), with fewer games.
        store.record_result(TG, "chess", "22", "zed", Outcome::Draw).unwrap();
        store.record_result(TG, "chess", "bob_t", "zed", Outcome::Draw).unwrap();
        let legacy_rating = store.rating(TG, "bob_t", "chess").unwrap();
        assert_eq!(legacy_rating.games, 2);
        // A Clash match going on, with an offer, a sealed bid, gold and an army.
        let mut clash = ClashMatch { round: 3, ..ClashMatch::default() };
        clash.gold = BTreeMap::from([("bob_t".to_string(), 40), ("ann".to_string(), 30)]);
        clash.armies = BTreeMap::from([("bob_t".to_string(), vec!["King".to_string()])]);
        let new = NewGame {
            variant: "clash".into(),
            white: "bob_t".into(),
            black: "ann".into(),
            settings: GameSettings::default(),
            start_fen: START.into(),
            at: Timestamp(20),
            clash: Some(clash),
            bot: None,
        };
        let m = store.create_game(&chat, &new).unwrap();
        let bid = SealedBid { player: "bob_t".into(), round: 3, bid: "2".into(), at: Timestamp(21) };
        let m = store.seal_bid(&m.key, m.version, &bid, None).unwrap();
        let offer = Offer { kind: OfferKind::Draw, by: "bob_t".into(), at: Timestamp(22) };
        store.make_offer(&m.key, m.version, &offer, None).unwrap();
        // Challenges made and received elsewhere.
        let other = ChannelKey::new(TG, "-400");
        let challenge = |from: &str, to: Option<&str>| Challenge {
            challenger: from.into(),
            challenged: to.map(str::to_string),
            variant: "chess".into(),
            colour: ColourChoice::Random,
            settings: GameSettings::default(),
            clash: false,
            at: Timestamp(30),
        };
        store.create_challenge(&other, &challenge("bob_t", Some("ann"))).unwrap();
        store.create_challenge(&other, &challenge("cy", Some("bob_t"))).unwrap();

        let moved = store.see_user(TG, "22", "Bob", Some("Bob_T"), Timestamp(40)).unwrap();
        assert_eq!((moved.games, moved.archived, moved.challenges, moved.ratings), (2, 1, 2, 1));

        let v1 = store.player_game_in_channel(&ChannelKey::new(TG, "-300"), "22").unwrap().unwrap();
        assert_eq!((v1.white.as_str(), v1.moves[0].by.as_str(), v1.moves[1].by.as_str()), ("22", "22", "ann"));
        assert_eq!(v1.version, 4, "a change like any other");
        let m = store.player_game_in_channel(&chat, "22").unwrap().unwrap();
        let c = m.clash.as_ref().unwrap();
        assert_eq!((m.white.as_str(), m.offers[0].by.as_str(), c.sealed_bids[0].player.as_str()), ("22", "22", "22"));
        assert_eq!(c.gold.get("22"), Some(&40));
        assert!(c.armies.contains_key("22") && !c.armies.contains_key("bob_t") && !c.gold.contains_key("bob_t"));
        assert!(store.player_game_in_channel(&chat, "bob_t").unwrap().is_none());
        let archived = store.archived_games_of(TG, "22", 5).unwrap();
        assert_eq!(archived.len(), 1);
        assert_eq!(archived[0].1.as_ref().unwrap().black, "22");
        assert!(store.archived_games_of(TG, "bob_t", 5).unwrap().is_empty());
        assert_eq!(store.challenge(&other, "22").unwrap().unwrap().challenged.as_deref(), Some("ann"));
        assert_eq!(store.challenge(&other, "cy").unwrap().unwrap().challenged.as_deref(), Some("22"));
        assert!(store.challenge(&other, "bob_t").unwrap().is_none());
        // The rating with more games stays.
        assert_eq!(store.rating(TG, "22", "chess").unwrap(), legacy_rating);
        assert!(store.ratings_of(TG, "bob_t").unwrap().is_empty());
        assert!(store.verify().unwrap().is_empty(), "{:?}", store.verify());

        // Once: a later holder of the name gets nothing, and Bob keeps it all.
        store.see_user(TG, "22", "Bob", Some("bobby"), Timestamp(50)).unwrap();
        assert!(store.see_user(TG, "9999", "Mallory", Some("Bob_T"), Timestamp(51)).unwrap().is_empty());
        assert!(store.games_of(TG, "9999").unwrap().is_empty());
        assert_eq!(store.games_of(TG, "22").unwrap().len(), 2);
        assert_eq!(store.rating(TG, "9999", "chess").unwrap().games, 0);
    }

    fn a_username_follows_its_newest_holder_and_the_former_keeps_their_id(backing) {
        let store = backing.open();
        assert!(store.see_user(TG, "22", "Bob", Some("Bob_T"), Timestamp(1)).unwrap().is_empty());
        assert_eq!(store.user_by_username(TG, "@BOB_T").unwrap().as_deref(), Some("22"));
        let bob = store.user(TG, "22").unwrap().unwrap();
        assert_eq!((bob.name.as_str(), bob.username.as_deref()), ("Bob", Some("Bob_T")));
        // Someone else now holds it.
        store.see_user(TG, "9999", "Mallory", Some("bob_t"), Timestamp(2)).unwrap();
        assert_eq!(store.user_by_username(TG, "bob_t").unwrap().as_deref(), Some("9999"));
        assert_eq!(store.user(TG, "22").unwrap().unwrap().username, None, "Bob no longer shows as @Bob_T");
        // A user who drops their username frees it.
        store.see_user(TG, "9999", "Mallory", None, Timestamp(3)).unwrap();
        assert_eq!(store.user_by_username(TG, "bob_t").unwrap(), None);
        // Names from the core keep the username the adapter saw.
        store.see_user(TG, "33", "Carol", Some("carolk"), Timestamp(4)).unwrap();
        store.note_name(TG, "33", "Carol K.", Timestamp(5)).unwrap();
        let carol = store.user(TG, "33").unwrap().unwrap();
        assert_eq!((carol.name.as_str(), carol.username.as_deref()), ("Carol K.", Some("carolk")));
        // Platforms do not mix.
        assert_eq!(store.user_by_username("discord", "carolk").unwrap(), None);
        assert!(store.see_user(TG, "4\u{0}4", "x", None, Timestamp(6)).is_err(), "a NUL in an id is refused");
    }

    fn a_channel_moves_to_its_new_id_whole(backing) {
        let store = backing.open();
        let old = ChannelKey::new(TG, "-5");
        let g = game(&store, &old, "1", "2");
        let done = game(&store, &old, "3", "4");
        store.finish_game(&done.key, done.version, &end(Outcome::Draw, 7)).unwrap();
        let new = ChannelKey::new(TG, "-1005");
        let moved = store.move_channel(&old, "-1005").unwrap();
        assert_eq!((moved.games, moved.archived, moved.challenges, moved.settings), (1, 1, 0, false));
        let id: GameId = g.key.id.clone();
        let there = store.game(&new.game(id.clone())).unwrap();
        assert_eq!((there.key.channel.channel.as_str(), there.version), ("-1005", g.version + 1));
        assert!(store.game(&old.game(id)).is_err());
        assert_eq!(store.player_game_in_channel(&new, "2").unwrap().unwrap().key, there.key);
        assert!(store.player_game_in_channel(&old, "2").unwrap().is_none());
        let archived = store.archived_games_of(TG, "4", 5).unwrap();
        assert_eq!(archived[0].0.channel, new);
        assert!(store.verify().unwrap().is_empty(), "{:?}", store.verify());
        assert!(store.move_channel(&old, "-1005").unwrap() == Default::default());
        assert!(store.move_channel(&new, "bad\0id").is_err());
    }

    /// Discord keyed players by id always: a username there names its holder
    /// for lookups, but never claims records kept under the same text.
    fn noting_a_user_moves_no_records(backing) {
        let store = backing.open();
        let chat = ChannelKey::new("discord", "500");
        // A player whose id reads like someone's username.
        let g = game(&store, &chat, "bob", "ann");
        store.note_user("discord", "8001", "Bob", Some("bob"), Timestamp(1)).unwrap();
        assert_eq!(store.user_by_username("discord", "BOB").unwrap().as_deref(), Some("8001"));
        let bob = store.user("discord", "8001").unwrap().unwrap();
        assert_eq!((bob.name.as_str(), bob.username.as_deref()), ("Bob", Some("bob")));
        let kept = store.player_game_in_channel(&chat, "bob").unwrap().unwrap();
        assert_eq!((kept.white.as_str(), kept.version), ("bob", g.version), "nothing moved");
        assert!(store.player_game_in_channel(&chat, "8001").unwrap().is_none());
        // The username follows its newest holder, as with see_user.
        store.note_user("discord", "8002", "Robert", Some("bob"), Timestamp(2)).unwrap();
        assert_eq!(store.user_by_username("discord", "bob").unwrap().as_deref(), Some("8002"));
        assert_eq!(store.user("discord", "8001").unwrap().unwrap().username, None);
    }
}
