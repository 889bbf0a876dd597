//! The correspondence clock's view of the store, and the listings: which
//! games are due when, what a claim of them gives, the active games, the
//! leaderboard, the archive's order. On both backends.

mod common;

use common::{START, mv};
use kibitz_storage::{
    ChannelKey, ChatClock, Colour, FLAG_GRACE_MS, GameEnd, GameSettings, NewGame, Outcome, Timestamp,
};

fn new_game(white: &str, black: &str, settings: GameSettings) -> NewGame {
    NewGame {
        variant: "chess".into(),
        white: white.into(),
        black: black.into(),
        settings,
        start_fen: START.into(),
        at: Timestamp(1_000),
        clash: None,
        bot: None,
    }
}

const DAY: u64 = 86_400_000;

on_both_backends! {
    fn due_games_are_those_the_clock_must_look_at(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("discord", "clock");
        let days = |d| GameSettings { days_per_move: Some(d), ..GameSettings::default() };
        let two = store.create_game(&channel, &new_game("a", "b", days(2))).unwrap();
        let one = store.create_game(&channel, &new_game("c", "d", days(1))).unwrap();
        store.create_game(&channel, &new_game("e", "f", GameSettings::default())).unwrap();
        let bot = GameSettings { bot_level: Some(3), ..GameSettings::default() };
        let against_bot = store.create_game(&channel, &new_game("g", "kibitz", bot)).unwrap();
        let keys = |now: u64| -> Vec<String> {
            store.due_games(Timestamp(now)).unwrap().into_iter().map(|(k, _)| k.id.to_string()).collect()
        };
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        assert!(keys(1_000).is_empty());
        // A minute on, the game against the bot; at 3/4 of a day, the one-day game's reminder.
        assert_eq!(keys(61_000), [against_bot.key.id.to_string()]);
        let due = 1_000 + DAY / 4 * 3;
        assert_eq!(keys(due - 1).len(), 1);
        assert_eq!(sorted(keys(due)), sorted(vec![one.key.id.to_string(), against_bot.key.id.to_string()]));
        // Reminded: due again at the loss; a move restarts the clock.
        store
            .update_game(&one.key, one.version, None, |g| {
                g.reminded_at = Some(Timestamp(due));
                Ok(())
            })
            .unwrap();
        assert!(!keys(due).contains(&one.key.id.to_string()));
        assert!(keys(1_000 + DAY).contains(&one.key.id.to_string()));
        let moved = store.apply_move(&two.key, two.version, mv("e2e4", "a", "x"), "fen").unwrap();
        assert!(!keys(1_500 + 2 * DAY / 4 * 3).contains(&moved.key.id.to_string()));
        assert!(keys(2_000 + 2 * DAY / 4 * 3).contains(&moved.key.id.to_string()));
        // Finished: never due again.
        let end = GameEnd { outcome: Outcome::Draw, reason: "agreed".into(), at: Timestamp(3), message_id: None };
        store.finish_game(&moved.key, moved.version, &end).unwrap();
        assert!(!keys(u64::MAX).contains(&moved.key.id.to_string()));
        assert_eq!(store.verify().unwrap().len(), 0);
    }

    /// A claim gives what is due, in key order. The embedded store has one
    /// process, whose claims give what is due every time; the shared store
    /// gives a claimed game to no one again until the game changes or the
    /// claim lapses.
    fn a_claim_gives_the_due_games_and_a_change_frees_them(backing) {
        let store = backing.open();
        let days = GameSettings { days_per_move: Some(1), ..GameSettings::default() };
        let mut made: Vec<_> = (0..5)
            .map(|i| store.create_game(&ChannelKey::new("telegram", format!("-{i}")), &new_game("a", "b", days.clone())).unwrap())
            .collect();
        made.sort_by(|a, b| a.key.cmp(&b.key));
        store.create_game(&ChannelKey::new("telegram", "-9"), &new_game("a", "b", GameSettings::default())).unwrap();
        let due = Timestamp(1_000 + DAY / 4 * 3);
        assert!(store.claim_due_games(Timestamp(due.0 - 1), "telegram").unwrap().is_empty());
        let claimed = store.claim_due_games(due, "telegram").unwrap();
        let keys: Vec<_> = claimed.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(keys, made.iter().map(|g| g.key.clone()).collect::<Vec<_>>());
        assert!(claimed.iter().zip(&made).all(|((_, g), m)| g.as_ref().unwrap() == m));

        let again = store.claim_due_games(due, "telegram").unwrap();
        if backing.is_postgres() {
            assert!(again.is_empty(), "{again:?}");
        } else {
            assert_eq!(again.len(), 5);
        }
        // The clock reminds the first game's player: it is due again at the loss of the game, to anyone.
        let g = &made[0];
        store
            .update_game(&g.key, g.version, None, |g| {
                g.reminded_at = Some(due);
                Ok(())
            })
            .unwrap();
        let at_loss = store.claim_due_games(Timestamp(1_000 + DAY), "telegram").unwrap();
        assert!(at_loss.iter().any(|(k, _)| *k == g.key), "{at_loss:?}");
        assert_eq!(at_loss.len(), if backing.is_postgres() { 1 } else { 5 });
    }

    /// A chat clock game is due when the player to move is to be reminded
    /// (a tenth of the base time left), then when their flag falls; a move
    /// with the clock charged moves both on.
    fn a_chat_clock_game_is_due_at_the_reminder_then_at_the_flag(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("discord", "blitz");
        let clock = ChatClock { minutes: 10, increment: 5 };
        let settings = GameSettings { clock: Some(clock), ..GameSettings::default() };
        let g = store.create_game(&channel, &new_game("a", "b", settings)).unwrap();
        let state = g.clock.clone().unwrap();
        assert_eq!((state.white_ms, state.black_ms, state.running, state.since), (600_000, 600_000, Colour::White, Timestamp(1_000)));
        let due = |now: u64| store.due_games(Timestamp(now)).unwrap().iter().any(|(k, _)| *k == g.key);
        // 540 s in, White has a tenth of 10 minutes left.
        assert!(!due(540_999));
        assert!(due(541_000));
        // White moves 20 s in: 585 s left; Black is reminded at 540 s of theirs.
        let next = state.after_move(clock, Timestamp(21_000), true);
        assert_eq!(next.white_ms, 585_000);
        let moved = store.apply_timed_move(&g.key, g.version, mv("e2e4", "a", "x"), "fen", Some(next)).unwrap();
        assert_eq!(moved.clock.as_ref().map(|c| (c.running, c.since)), Some((Colour::Black, Timestamp(21_000))));
        assert!(!due(560_999));
        assert!(due(561_000));
        // Reminded: due at the flag.
        let reminded = store
            .update_game(&g.key, moved.version, None, |g| {
                g.clock.as_mut().unwrap().reminded.push(Colour::Black);
                Ok(())
            })
            .unwrap();
        assert!(!due(620_999 + FLAG_GRACE_MS));
        assert!(due(621_000 + FLAG_GRACE_MS));
        // A takeback gives back nothing: White to move again, with 585 s, from now.
        let back = store.take_back(&g.key, reminded.version, 1, START, Timestamp(31_000), None).unwrap();
        let state = back.clock.unwrap();
        assert_eq!((state.white_ms, state.black_ms, state.running), (585_000, 590_000, Colour::White));
        assert!(due(31_000 + 585_000 - 60_000));
        assert_eq!(store.verify().unwrap().len(), 0);
    }

    fn active_games_are_every_platforms_in_key_order(backing) {
        let store = backing.open();
        let places = [("telegram", "-2"), ("discord", "9"), ("discord", "10"), ("console", "here")];
        let mut made: Vec<_> = places
            .iter()
            .map(|(p, c)| store.create_game(&ChannelKey::new(*p, *c), &new_game("a", "b", GameSettings::default())).unwrap())
            .collect();
        let over = made.pop().unwrap();
        let end = GameEnd { outcome: Outcome::Draw, reason: "agreed".into(), at: Timestamp(5), message_id: None };
        store.finish_game(&over.key, over.version, &end).unwrap();
        made.sort_by(|a, b| a.key.cmp(&b.key));
        let active: Vec<_> = store.active_games().unwrap().into_iter().map(|(k, g)| (k, g.unwrap())).collect();
        assert_eq!(active.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(), made.iter().map(|g| g.key.clone()).collect::<Vec<_>>());
        assert!(active.iter().all(|(k, g)| *k == g.key));
    }

    fn the_leaderboard_ranks_rated_players_of_a_variant_on_a_platform(backing) {
        let store = backing.open();
        // ann beats everyone, bob beats cid, cid loses; dan plays olympic only; eve plays on telegram.
        for (white, black) in [("ann", "bob"), ("ann", "cid"), ("bob", "cid"), ("ann", "cid")] {
            store.record_result("discord", "chess", white, black, Outcome::WhiteWins).unwrap();
        }
        store.record_result("discord", "olympic", "dan", "ann", Outcome::WhiteWins).unwrap();
        store.record_result("telegram", "chess", "eve", "fay", Outcome::WhiteWins).unwrap();
        let board = store.leaderboard("discord", "chess", 10).unwrap();
        let names: Vec<_> = board.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["ann", "bob", "cid"]);
        assert!(board.windows(2).all(|w| w[0].1.rating > w[1].1.rating));
        assert_eq!(board[0].1, store.rating("discord", "ann", "chess").unwrap());
        assert_eq!(board[0].1.games, 3);
        assert_eq!(store.leaderboard("discord", "chess", 2).unwrap().len(), 2);
        let olympic: Vec<_> = store.leaderboard("discord", "olympic", 10).unwrap().into_iter().map(|(p, _)| p).collect();
        assert_eq!(olympic, ["dan", "ann"]);
        assert!(store.leaderboard("discord", "alapawn", 10).unwrap().is_empty());
        let elsewhere: Vec<_> = store.leaderboard("telegram", "chess", 10).unwrap().into_iter().map(|(p, _)| p).collect();
        assert_eq!(elsewhere, ["eve", "fay"]);
        let ratings: Vec<_> = store.ratings_of("discord", "ann").unwrap().into_iter().map(|(v, r)| (v, r.unwrap().games)).collect();
        assert_eq!(ratings, [("chess".to_owned(), 3), ("olympic".to_owned(), 1)]);
    }

    /// Newest first; games that ended at the same moment by channel, then
    /// id, from the last; the limit counts from the newest.
    fn the_archive_lists_a_players_games_newest_first(backing) {
        let store = backing.open();
        for (channel, at) in [("a", 10), ("c", 30), ("b", 30), ("d", 20), ("a2", 30)] {
            let g = store.create_game(&ChannelKey::new("discord", channel), &new_game("ann", "bob", GameSettings::default())).unwrap();
            let end = GameEnd { outcome: Outcome::Draw, reason: "agreed".into(), at: Timestamp(at), message_id: None };
            store.finish_game(&g.key, g.version, &end).unwrap();
        }
        let listed = |player: &str, limit: usize| -> Vec<String> {
            store.archived_games_of("discord", player, limit).unwrap().into_iter().map(|(k, _)| k.channel.channel).collect()
        };
        assert_eq!(listed("ann", 10), ["c", "b", "a2", "d", "a"]);
        assert_eq!(listed("bob", 10), listed("ann", 10));
        assert_eq!(listed("ann", 2), ["c", "b"]);
        assert!(listed("cid", 10).is_empty());
        assert!(store.archived_games_of("telegram", "ann", 10).unwrap().is_empty());
    }
}
