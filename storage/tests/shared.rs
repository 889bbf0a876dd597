//! Several processes on one shared store: each test opens two or more
//! stores on the same PostgreSQL schema (each its own connection pool and
//! its own name in claims, as separate processes have) and races them from
//! threads. Whatever the interleaving, a game changes once per version, a
//! chat message applies once, a due game and an owed reply are each taken
//! by exactly one process, a challenge becomes one game and a game's end
//! rates its players once.
//!
//! Skipped (with a message) when there is no server outside CI, as every
//! PostgreSQL test is.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use common::{START, both_moved, game, mv};
use kibitz_storage::testing::TestSchema;
use kibitz_storage::{
    Challenge, ChannelKey, ColourChoice, Completion, GameEnd, GameKey, GameSettings, NewGame, Outcome, Store,
    StoreError, Timestamp,
};

/// A schema of its own and `n` stores on it, as `n` processes would have.
fn processes(label: &str, n: usize) -> Option<(TestSchema, Vec<Store>)> {
    let schema = TestSchema::new(label)?;
    let stores = (0..n).map(|_| schema.store().unwrap()).collect();
    Some((schema, stores))
}

/// Runs `work(i, store)` for every store at once, each on a thread of its
/// own released together, and returns the results in store order.
fn race<T: Send + 'static>(stores: &[Store], work: impl Fn(usize, &Store) -> T + Send + Sync + 'static) -> Vec<T> {
    let barrier = Arc::new(Barrier::new(stores.len()));
    let work = Arc::new(work);
    let threads: Vec<_> = stores
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, store)| {
            let (barrier, work) = (barrier.clone(), work.clone());
            thread::spawn(move || {
                barrier.wait();
                work(i, &store)
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

#[test]
fn moves_racing_through_different_processes_never_both_apply() {
    let Some((_schema, stores)) = processes("cas", 3) else { return };
    let channel = ChannelKey::new("discord", "race");
    let mut g = game(&stores[0], &channel, "ann", "bob");
    for round in 0..50 {
        let (key, version) = (g.key.clone(), g.version);
        let results = race(&stores, move |i, store| {
            store.apply_move(&key, version, mv(&format!("m{round}.{i}"), "ann", &format!("{round}/{i}")), "f")
        });
        let won: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(won.len(), 1, "round {round}: {results:?}");
        for lost in results.iter().filter_map(|r| r.as_ref().err()) {
            assert!(
                matches!(lost, StoreError::Conflict { expected, actual, .. } if *expected == version && *actual == version + 1),
                "round {round}: {lost:?}"
            );
        }
        g = won[0].clone();
    }
    // Every process reads the same game: fifty moves, one per version.
    for store in &stores {
        let stored = store.game(&g.key).unwrap();
        assert_eq!((stored.moves.len(), stored.version), (50, 51));
        assert_eq!(stored, g);
    }
}

#[test]
fn a_message_delivered_to_two_processes_applies_once() {
    let Some((_schema, stores)) = processes("dup", 2) else { return };
    let channel = ChannelKey::new("telegram", "dup");
    let mut g = game(&stores[0], &channel, "ann", "bob");
    for round in 0..30 {
        let (key, version) = (g.key.clone(), g.version);
        // The same message, the same version the bot saw: a delivery retried
        // while the first was still being handled elsewhere.
        let results = race(&stores, move |_, store| {
            store.apply_move(&key, version, mv("e2e4", "ann", &format!("msg {round}")), "f")
        });
        let won: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(won.len(), 1, "round {round}: {results:?}");
        assert!(
            results
                .iter()
                .any(|r| matches!(r, Err(StoreError::AlreadyApplied { version: v, .. }) if *v == version + 1)),
            "round {round}: {results:?}"
        );
        g = won[0].clone();
    }
    assert_eq!(stores[1].game(&g.key).unwrap().moves.len(), 30);

    // Marking the message handled is once too: one process's replies are kept.
    for round in 0..30 {
        let results = race(&stores, move |i, store| {
            store.complete(&Completion {
                platform: "telegram".into(),
                message_id: Some(format!("dup:{round}")),
                cursor: Some(("dup".into(), format!("{round}"))),
                owed: vec![("dup".into(), format!("reply from {i}").into_bytes())],
                at: Timestamp(1_000),
            })
        });
        assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1, "round {round}: {results:?}");
        assert!(results.iter().any(|r| matches!(r, Err(StoreError::AlreadyHandled(_)))), "{results:?}");
    }
    assert_eq!(stores[0].owed("telegram").unwrap().len(), 30);
    assert_eq!(stores[1].cursor("telegram", "dup").unwrap().as_deref(), Some("29"));
}

/// A game whose correspondence clock is running (due three quarters of a day after it starts).
fn clocked_game(store: &Store, channel: &ChannelKey) -> kibitz_storage::GameRecord {
    store
        .create_game(
            channel,
            &NewGame {
                variant: "chess".into(),
                white: "ann".into(),
                black: "bob".into(),
                settings: GameSettings { days_per_move: Some(1), ..GameSettings::default() },
                start_fen: START.into(),
                at: Timestamp(1_000),
                clash: None,
                bot: None,
            },
        )
        .unwrap()
}

#[test]
fn a_due_game_is_claimed_by_exactly_one_process() {
    let Some((_schema, stores)) = processes("due", 3) else { return };
    let due: BTreeSet<GameKey> =
        (0..60).map(|i| clocked_game(&stores[i % 3], &ChannelKey::new("discord", format!("c{i:02}"))).key).collect();
    // A game without a clock is never due.
    let unclocked = game(&stores[0], &ChannelKey::new("discord", "free"), "cid", "dan");
    let now = Timestamp(10 * 86_400_000);
    assert_eq!(stores[2].due_games(now).unwrap().len(), 60);
    assert!(stores[0].claim_due_games(Timestamp(2_000), "discord").unwrap().is_empty(), "nothing is due yet");

    // Three processes, each with two clock threads, claim at once.
    let claimers: Vec<Store> = stores.iter().chain(&stores).cloned().collect();
    let claimed = race(&claimers, move |_, store| {
        let mut mine = Vec::new();
        loop {
            let batch = store.claim_due_games(now, "discord").unwrap();
            if batch.is_empty() {
                return mine;
            }
            for (key, game) in batch {
                assert_eq!(game.unwrap().key, key);
                mine.push(key);
            }
        }
    });
    let all: Vec<&GameKey> = claimed.iter().flatten().collect();
    let distinct: BTreeSet<GameKey> = all.iter().map(|&k| k.clone()).collect();
    assert_eq!(all.len(), distinct.len(), "a game was claimed twice: {claimed:?}");
    assert_eq!(distinct, due, "every due game is claimed");
    assert!(!distinct.contains(&unclocked.key));

    // Claimed games stay taken for a while: nobody gets them again now.
    for store in &stores {
        assert!(store.claim_due_games(now, "discord").unwrap().is_empty());
        // They are still due, for anyone who only looks.
        assert_eq!(store.due_games(now).unwrap().len(), 60);
    }
}

fn owe(store: &Store, message: &str, replies: usize) -> Vec<u64> {
    let done = Completion {
        platform: "discord".into(),
        message_id: Some(message.into()),
        cursor: None,
        owed: (0..replies).map(|i| (format!("chan{i}"), format!("{message}/{i}").into_bytes())).collect(),
        at: Timestamp(5_000),
    };
    store.complete(&done).unwrap().into_iter().map(|o| o.seq).collect()
}

#[test]
fn owed_replies_are_their_makers_until_it_goes_silent_then_one_claimers() {
    let Some((_schema, mut stores)) = processes("owed", 4) else { return };
    let lease = Duration::from_millis(1_000);
    stores[0].set_worker_lease(lease);
    assert_eq!(stores[0].worker_lease(), Some(lease));
    stores[0].heartbeat().unwrap();
    let mut made: BTreeSet<u64> = BTreeSet::new();
    for m in 0..8 {
        made.extend(owe(&stores[0], &format!("m{m}"), 3));
    }
    assert_eq!(made.len(), 24);

    // While the maker keeps its heartbeat, its replies are its own, however
    // long that goes on: past its lease several times over.
    let (maker, others) = stores.split_first().unwrap();
    for _ in 0..6 {
        maker.heartbeat().unwrap();
        for other in others {
            assert!(other.claim_owed("discord").unwrap().is_empty());
        }
        assert!(maker.claim_owed("discord").unwrap().is_empty(), "made by it, already its own");
        thread::sleep(lease / 4);
    }
    // Everyone sees what is owed, claimed or not.
    assert_eq!(others[0].owed("discord").unwrap().len(), 24);

    // The maker goes silent; when its lease lapses, each reply goes to exactly one of the others.
    thread::sleep(lease + Duration::from_millis(300));
    let claimed = race(others, |_, store| {
        store.claim_owed("discord").unwrap().into_iter().map(|o| o.unwrap().seq).collect::<Vec<_>>()
    });
    let all: Vec<u64> = claimed.iter().flatten().copied().collect();
    let distinct: BTreeSet<u64> = all.iter().copied().collect();
    assert_eq!(all.len(), distinct.len(), "a reply was claimed twice: {claimed:?}");
    assert_eq!(distinct, made);
    for taken in &claimed {
        assert!(taken.windows(2).all(|w| w[0] < w[1]), "oldest first: {taken:?}");
    }

    // Taken over for good: the claimers are alive, so neither the old maker
    // (back again) nor another claimer gets them.
    maker.heartbeat().unwrap();
    for store in &stores {
        assert!(store.claim_owed("discord").unwrap().is_empty());
    }
    // The claimer delivers; what it delivered is no longer owed.
    let (first, seqs) = claimed.iter().enumerate().find(|(_, c)| !c.is_empty()).unwrap();
    for seq in seqs {
        others[first].delivered("discord", *seq).unwrap();
    }
    assert_eq!(maker.owed("discord").unwrap().len(), 24 - seqs.len());
    assert!(stores.iter().all(|s| s.verify().unwrap().is_empty()));
}

#[test]
fn a_challenge_accepted_through_two_processes_at_once_makes_one_game() {
    let Some((_schema, stores)) = processes("accept", 2) else { return };
    for round in 0..20 {
        let channel = ChannelKey::new("discord", format!("club{round}"));
        let challenge = Challenge {
            challenger: "ann".into(),
            challenged: None,
            variant: "chess".into(),
            colour: ColourChoice::Random,
            settings: GameSettings::default(),
            clash: false,
            at: Timestamp(500),
        };
        stores[0].create_challenge(&channel, &challenge).unwrap();
        // Even rounds: two players accept at once; odd rounds: the same
        // accepter's command handled by both processes.
        let chan = channel.clone();
        let results = race(&stores, move |i, store| {
            let accepter = if round % 2 == 0 { ["bob", "cid"][i] } else { "bob" };
            store.accept_challenge(&chan, "ann", accepter, START, Timestamp(600))
        });
        let won: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(won.len(), 1, "round {round}: {results:?}");
        assert!(
            results.iter().any(|r| matches!(r, Err(StoreError::NoSuchChallenge { .. }))),
            "round {round}: {results:?}"
        );
        let games = stores[1].games_in_channel(&channel).unwrap();
        assert_eq!(games.len(), 1, "round {round}");
        assert_eq!(games[0].1.as_ref().unwrap(), won[0]);
        assert!(stores[1].challenges(&channel).unwrap().is_empty());
    }
    assert!(stores[0].verify().unwrap().is_empty());
}

#[test]
fn a_game_ended_through_two_processes_at_once_rates_its_players_once() {
    let Some((_schema, stores)) = processes("finish", 3) else { return };
    let rounds = 15;
    for round in 0..rounds {
        // Two games of the same players, in two channels, each ended twice at once.
        let first = game(&stores[0], &ChannelKey::new("discord", format!("a{round}")), "ann", "bob");
        let first = both_moved(&stores[0], first, ["e2e4", "e7e5"]);
        let second = game(&stores[1], &ChannelKey::new("discord", format!("b{round}")), "ann", "bob");
        let second = both_moved(&stores[1], second, ["e2e4", "e7e5"]);
        let games = [first.clone(), first, second.clone(), second];
        let claimers: Vec<Store> = [0, 1, 1, 2].into_iter().map(|i| stores[i].clone()).collect();
        let results = race(&claimers, move |i, store| {
            let g = &games[i];
            // The first game's enders are two different messages, the second's one message delivered twice.
            let message = if i < 2 { format!("resign {round} {i}") } else { format!("mate {round}") };
            let outcome = if i < 2 { Outcome::BlackWins } else { Outcome::WhiteWins };
            let end =
                GameEnd { outcome, reason: "over".into(), at: Timestamp(9_000 + round), message_id: Some(message) };
            store.finish_game(&g.key, g.version, &end)
        });
        for (pair, losing) in [(&results[..2], "GameOver"), (&results[2..], "AlreadyApplied")] {
            assert_eq!(pair.iter().filter(|r| r.is_ok()).count(), 1, "round {round}: {pair:?}");
            let lost = pair.iter().find_map(|r| r.as_ref().err()).unwrap();
            let expected = match losing {
                "GameOver" => matches!(lost, StoreError::GameOver(_)),
                _ => matches!(lost, StoreError::AlreadyApplied { .. }),
            };
            assert!(expected, "round {round}: {lost:?}");
        }
        // Both games rated, each once.
        let played = 2 * (u32::try_from(round).unwrap() + 1);
        for player in ["ann", "bob"] {
            assert_eq!(stores[2].rating("discord", player, "chess").unwrap().games, played, "round {round}");
        }
    }
    let archived = stores[0].archived_games_of("discord", "ann", 100).unwrap();
    assert_eq!(archived.len(), 2 * rounds as usize);
}

/// A process starting on the shared store checks what it works on (active
/// games, challenges, settings), not the archive, which grows without
/// bound: a damaged finished game is reported by the whole check only, and
/// by a read of it.
#[test]
fn the_check_before_a_start_reads_the_active_records_only() {
    let Some((schema, stores)) = processes("verify_start", 1) else { return };
    let store = &stores[0];
    let channel = ChannelKey::new("discord", "v");
    let finished = game(store, &channel, "ann", "bob");
    let end = GameEnd { outcome: Outcome::Draw, reason: "agreed".into(), at: Timestamp(5_000), message_id: None };
    store.finish_game(&finished.key, finished.version, &end).unwrap();
    let active = game(store, &channel, "cid", "dan");
    assert!(store.verify().unwrap().is_empty() && store.verify_for_start().unwrap().is_empty());

    schema
        .execute(&format!(
            "UPDATE archive SET record = '{{\"v\":99,\"record\":{{}}}}' WHERE id = '{}'",
            finished.key.id
        ))
        .unwrap();
    assert_eq!(store.verify().unwrap().len(), 1);
    assert!(store.verify_for_start().unwrap().is_empty());
    assert!(matches!(store.archived_game(&finished.key), Err(StoreError::UnknownVersion { .. })));

    schema.execute(&format!("UPDATE games SET record = '[1,2]' WHERE id = '{}'", active.key.id)).unwrap();
    assert_eq!(store.verify_for_start().unwrap().len(), 1);
    assert_eq!(store.verify().unwrap().len(), 2);
}
