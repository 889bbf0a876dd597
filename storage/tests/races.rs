//! Two writers on one game: a move is a compare-and-swap, and a chat message applies once.

mod common;

use std::sync::{Arc, Barrier};
use std::thread;

use common::{game, mv};
use kibitz_storage::{ChannelKey, StoreError};

on_both_backends! {
    fn two_moves_racing_on_one_game_never_both_apply(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("discord", "race");
        let mut g = game(&store, &channel, "ann", "bob");
        for round in 0..100 {
            let barrier = Arc::new(Barrier::new(2));
            let results: Vec<_> = ["ann", "bob"]
                .into_iter()
                .map(|player| {
                    let (store, key, barrier) = (store.clone(), g.key.clone(), barrier.clone());
                    let version = g.version;
                    thread::spawn(move || {
                        barrier.wait();
                        store.apply_move(
                            &key,
                            version,
                            mv(&format!("{player}{round}"), player, &format!("{player}/{round}")),
                            "f",
                        )
                    })
                })
                .collect::<Vec<_>>()
                .into_iter()
                .map(|t| t.join().unwrap())
                .collect();
            let won: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
            assert_eq!(won.len(), 1, "round {round}: {results:?}");
            let lost = results.iter().find_map(|r| r.as_ref().err()).unwrap();
            assert!(matches!(lost, StoreError::Conflict { expected, actual, .. } if actual == &(expected + 1)), "{lost:?}");
            g = won[0].clone();
        }
        let stored = store.game(&g.key).unwrap();
        assert_eq!(stored.moves.len(), 100);
        assert_eq!(stored.version, 101);
        assert_eq!(stored, g);
    }

    fn a_retried_message_applies_once(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("telegram", "retry");
        let g = game(&store, &channel, "ann", "bob");
        let after = store.apply_move(&g.key, g.version, mv("e2e4", "ann", "msg-17"), "f1").unwrap();
        // The platform delivers the same message again, with the version the bot saw then.
        let again = store.apply_move(&g.key, g.version, mv("e2e4", "ann", "msg-17"), "f1");
        match again {
            Err(e @ StoreError::AlreadyApplied { version: 2, .. }) => {
                assert_eq!(e.to_string(), format!("this message was already applied to game {}", g.key.id));
            }
            other => panic!("{other:?}"),
        }
        // Even at the current version, the same message is not a second move.
        assert!(matches!(
            store.apply_move(&g.key, after.version, mv("e2e4", "ann", "msg-17"), "f1"),
            Err(StoreError::AlreadyApplied { .. })
        ));
        let stored = store.game(&g.key).unwrap();
        assert_eq!(stored.moves.len(), 1);
        assert_eq!(stored.version, 2);
        // A move without a message id (the console) is not deduplicated.
        let mut console = mv("e7e5", "bob", "");
        console.message_id = None;
        store.apply_move(&g.key, 2, console, "f2").unwrap();
    }

    fn the_same_message_delivered_twice_at_once_applies_once(backing) {
        let store = backing.open();
        let channel = ChannelKey::new("discord", "dup");
        let mut g = game(&store, &channel, "ann", "bob");
        for round in 0..50 {
            let barrier = Arc::new(Barrier::new(2));
            let results: Vec<_> = (0..2)
                .map(|_| {
                    let (store, key, barrier) = (store.clone(), g.key.clone(), barrier.clone());
                    let version = g.version;
                    thread::spawn(move || {
                        barrier.wait();
                        store.apply_move(&key, version, mv("e2e4", "ann", &format!("message {round}")), "f")
                    })
                })
                .collect::<Vec<_>>()
                .into_iter()
                .map(|t| t.join().unwrap())
                .collect();
            let won: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
            assert_eq!(won.len(), 1, "round {round}: {results:?}");
            assert!(results.iter().any(|r| matches!(r, Err(StoreError::AlreadyApplied { .. }))), "{results:?}");
            g = won[0].clone();
        }
        assert_eq!(store.game(&g.key).unwrap().moves.len(), 50);
    }
}
