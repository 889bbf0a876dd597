//! Reviews owed and done: queued once, taken by one process for a lease,
//! taken again when the lease ends, kept across a restart.

mod common;

use std::time::Duration;

use kibitz_storage::{ChannelKey, GameId, ReviewJob, Timestamp};

fn job(channel: &str, id: &str, round: Option<u32>, at: u64) -> ReviewJob {
    ReviewJob {
        game: ChannelKey::new("telegram", channel).game(GameId::parse(id).unwrap()),
        round,
        queued_at: Timestamp(at),
    }
}

const LEASE: Duration = Duration::from_secs(60);

on_both_backends! {
    fn a_review_is_queued_once_and_survives_a_restart(backing) {
        let store = backing.open();
        let a = job("-5", "k3x9", None, 1_000);
        assert!(store.queue_review(&a).unwrap());
        // Queued again (a second `/review`): still one job, as first queued.
        assert!(!store.queue_review(&ReviewJob { queued_at: Timestamp(5_000), ..a.clone() }).unwrap());
        let round = job("-5", "k3x9", Some(2), 2_000);
        assert!(store.queue_review(&round).unwrap());
        // Another platform owes nothing.
        assert!(store.reviews_owed("discord").unwrap().is_empty());
        drop(store);

        let store = backing.open();
        let owed: Vec<ReviewJob> = store.reviews_owed("telegram").unwrap().into_iter().map(Result::unwrap).collect();
        assert_eq!(owed, vec![a.clone(), round.clone()]);
        store.drop_review(&a.game, None).unwrap();
        let owed: Vec<ReviewJob> = store.reviews_owed("telegram").unwrap().into_iter().map(Result::unwrap).collect();
        assert_eq!(owed, vec![round], "the round's job is its own");
        // Dropping what is not owed changes nothing.
        store.drop_review(&a.game, None).unwrap();
    }

    fn a_claim_holds_for_its_lease_only(backing) {
        let store = backing.open();
        let (a, b) = (job("-5", "k3x9", None, 1_000), job("-7", "m2p4", None, 2_000));
        store.queue_review(&b).unwrap();
        store.queue_review(&a).unwrap();
        let now = Timestamp(10_000);
        // Oldest first, at most the limit.
        assert_eq!(store.claim_reviews(now, "telegram", LEASE, 1).unwrap(), vec![a.clone()]);
        assert_eq!(store.claim_reviews(now, "telegram", LEASE, 10).unwrap(), vec![b.clone()]);
        assert!(store.claim_reviews(Timestamp(69_999), "telegram", LEASE, 10).unwrap().is_empty(), "both are taken");
        assert!(store.claim_reviews(now, "discord", LEASE, 10).unwrap().is_empty());
        // The lease ended (the process that took them died): taken again.
        let again = store.claim_reviews(Timestamp(70_000), "telegram", LEASE, 10).unwrap();
        assert_eq!(again, vec![a.clone(), b.clone()]);
        // Given back unfinished (its process is stopping): taken again at once.
        store.release_review(&b.game, None).unwrap();
        assert_eq!(store.claim_reviews(Timestamp(70_001), "telegram", LEASE, 10).unwrap(), vec![b.clone()]);
        // Done: dropped, never taken again.
        store.drop_review(&a.game, None).unwrap();
        assert_eq!(store.claim_reviews(Timestamp(200_000), "telegram", LEASE, 10).unwrap(), vec![b]);
    }

    fn a_finished_review_is_kept_by_game_and_round(backing) {
        let store = backing.open();
        let game = job("-5", "k3x9", None, 1_000).game;
        assert_eq!(store.review_of(&game, None).unwrap(), None);
        store.set_review(&game, None, "{\"plies\":[1,2]}").unwrap();
        store.set_review(&game, Some(1), "round one \u{2014} ✓").unwrap();
        drop(store);
        let store = backing.open();
        assert_eq!(store.review_of(&game, None).unwrap().as_deref(), Some("{\"plies\":[1,2]}"));
        assert_eq!(store.review_of(&game, Some(1)).unwrap().as_deref(), Some("round one \u{2014} ✓"));
        assert_eq!(store.review_of(&game, Some(2)).unwrap(), None);
        // Done again: the new one replaces the old.
        store.set_review(&game, None, "again").unwrap();
        assert_eq!(store.review_of(&game, None).unwrap().as_deref(), Some("again"));
        let other = ChannelKey::new("discord", "-5").game(game.id.clone());
        assert_eq!(store.review_of(&other, None).unwrap(), None, "another platform's game is another game");
        assert!(store.verify().unwrap().is_empty());
    }
}

#[test]
fn two_processes_never_take_the_same_review() {
    let Some(schema) = kibitz_storage::testing::TestSchema::new("reviews_two_processes") else { return };
    let (one, two) = (schema.store().unwrap(), schema.store().unwrap());
    for i in 0..20u64 {
        let id: String = ["k3x9", "m2p4", "q7rs", "t8uv"][i as usize % 4].into();
        one.queue_review(&job(&format!("-{i}"), &id, None, i)).unwrap();
    }
    let now = Timestamp(1_000_000);
    let handles: Vec<_> = [one, two]
        .into_iter()
        .map(|s| {
            std::thread::spawn(move || {
                (0..10).flat_map(|_| s.claim_reviews(now, "telegram", LEASE, 3).unwrap()).collect::<Vec<_>>()
            })
        })
        .collect();
    let mut taken: Vec<ReviewJob> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    assert_eq!(taken.len(), 20, "every job is taken once");
    taken.sort_by_key(|j| j.queued_at);
    taken.dedup();
    assert_eq!(taken.len(), 20, "no job is taken twice");
}

#[test]
fn a_copy_to_the_shared_store_keeps_the_reviews_owed_and_done() {
    let Some(schema) = kibitz_storage::testing::TestSchema::new("reviews_copy") else { return };
    let dir = tempfile::tempdir().unwrap();
    let (owed, round) = (job("-5", "k3x9", None, 1_000), job("-7", "m2p4", Some(2), 2_000));
    {
        let store = kibitz_storage::Store::open(dir.path()).unwrap();
        store.queue_review(&owed).unwrap();
        store.queue_review(&round).unwrap();
        store.set_review(&owed.game, None, "{\"plies\":[]}").unwrap();
        store.set_review(&round.game, Some(1), "round one").unwrap();
    }
    let report = kibitz_storage::migrate_into_schema(dir.path(), schema.server(), schema.name()).unwrap();
    assert!(report.skipped.is_empty(), "{report}");
    assert_eq!((report.review_jobs, report.reviews), (2, 2), "{report}");
    let shared = schema.store().unwrap();
    let copied: Vec<ReviewJob> = shared.reviews_owed("telegram").unwrap().into_iter().map(Result::unwrap).collect();
    assert_eq!(copied, vec![owed.clone(), round.clone()]);
    assert_eq!(shared.review_of(&owed.game, None).unwrap().as_deref(), Some("{\"plies\":[]}"));
    assert_eq!(shared.review_of(&round.game, Some(1)).unwrap().as_deref(), Some("round one"));
    // Taken by nobody yet: the first process to look takes them.
    assert_eq!(shared.claim_reviews(Timestamp(3_000), "telegram", LEASE, 10).unwrap(), vec![owed, round]);
}
