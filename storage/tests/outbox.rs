//! The outbox: what handling a message leaves, kept until the platform has it.

mod common;

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use kibitz_storage::{Completion, Owed, StoreError, Timestamp};

fn done(message: Option<&str>, owed: &[(&str, &[u8])]) -> Completion {
    Completion {
        platform: "telegram".into(),
        message_id: message.map(str::to_string),
        cursor: message.map(|m| ("-5".to_string(), m.to_string())),
        owed: owed.iter().map(|(c, p)| (c.to_string(), p.to_vec())).collect(),
        at: Timestamp(1_000),
    }
}

on_both_backends! {
    fn a_message_is_handled_once_and_its_replies_kept_until_delivered(backing) {
        let store = backing.open();
        assert!(!store.is_handled("telegram", "-5:1").unwrap());
        let stored = store.complete(&done(Some("-5:1"), &[("-5", b"first"), ("-9", b"notice")])).unwrap();
        assert_eq!(stored.len(), 2);
        assert!(stored[0].seq < stored[1].seq, "in order");
        assert!(store.is_handled("telegram", "-5:1").unwrap());
        assert_eq!(store.cursor("telegram", "-5").unwrap().as_deref(), Some("-5:1"));
        // Handled again: refused, nothing added.
        let again = store.complete(&done(Some("-5:1"), &[("-5", b"second answer")]));
        assert!(matches!(again, Err(StoreError::AlreadyHandled(_))), "{again:?}");
        // Another platform owes nothing.
        assert!(store.owed("discord").unwrap().is_empty());
        store.set_progress("telegram", stored[0].seq, 1).unwrap();
        drop(store);

        // After a restart the replies are still owed, with their progress.
        let store = backing.open();
        let owed: Vec<_> = store.owed("telegram").unwrap().into_iter().map(Result::unwrap).collect();
        assert_eq!(owed.len(), 2);
        assert_eq!((owed[0].channel.as_str(), owed[0].payload.as_slice(), owed[0].progress), ("-5", &b"first"[..], 1));
        assert_eq!((owed[1].channel.as_str(), owed[1].payload.as_slice(), owed[1].progress), ("-9", &b"notice"[..], 0));
        store.delivered("telegram", owed[0].seq).unwrap();
        store.delivered("telegram", owed[1].seq).unwrap();
        assert!(store.owed("telegram").unwrap().is_empty());
        assert!(store.verify().unwrap().is_empty());

        // Marks older than a day are forgotten; newer ones kept.
        store.complete(&Completion { at: Timestamp(90_000_000), ..done(Some("-5:2"), &[]) }).unwrap();
        assert_eq!(store.forget_handled("telegram", Timestamp(86_400_000)).unwrap(), 1);
        assert!(!store.is_handled("telegram", "-5:1").unwrap());
        assert!(store.is_handled("telegram", "-5:2").unwrap());
    }

    fn clock_notices_need_no_message(backing) {
        let store = backing.open();
        let a = store.complete(&done(None, &[("-5", b"reminder")])).unwrap();
        let b = store.complete(&done(None, &[("-5", b"reminder")])).unwrap();
        assert_ne!(a[0].seq, b[0].seq, "each notice is its own entry");
        assert_eq!(store.owed("telegram").unwrap().len(), 2);
    }
}

on_both_backends! {
    /// The replies a process made are its own to send: claiming finds none of
    /// them. A process started afresh (on the shared store: once the old
    /// one's lease has lapsed) takes over everything still owed, each entry
    /// once however many of its threads claim.
    fn claims_give_each_reply_once_and_a_restart_takes_over_the_rest(backing) {
        let lease = Duration::from_millis(500);
        let made = {
            let mut store = backing.open();
            store.set_worker_lease(lease);
            store.heartbeat().unwrap();
            let made = store.complete(&done(Some("-5:1"), &[("-5", b"one"), ("-5", b"two"), ("-9", b"three")])).unwrap();
            assert!(store.claim_owed("telegram").unwrap().is_empty(), "made here: this process's already");
            store.delivered("telegram", made[1].seq).unwrap();
            store.set_progress("telegram", made[2].seq, 1).unwrap();
            assert!(store.claim_owed("telegram").unwrap().is_empty());
            assert_eq!(store.owed("telegram").unwrap().len(), 2);
            made
        };
        if backing.is_postgres() {
            // The old process is silent from now on.
            thread::sleep(lease + Duration::from_millis(300));
        }

        let store = backing.open();
        let barrier = Arc::new(Barrier::new(2));
        let claimed: Vec<Vec<Owed>> = (0..2)
            .map(|_| {
                let (store, barrier) = (store.clone(), barrier.clone());
                thread::spawn(move || {
                    barrier.wait();
                    store.claim_owed("telegram").unwrap().into_iter().map(Result::unwrap).collect()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        let mut all: Vec<Owed> = claimed.into_iter().flatten().collect();
        all.sort_by_key(|o| o.seq);
        let seen: Vec<_> = all.iter().map(|o| (o.seq, o.channel.as_str(), o.payload.as_slice(), o.progress)).collect();
        assert_eq!(seen, [(made[0].seq, "-5", &b"one"[..], 0), (made[2].seq, "-9", &b"three"[..], 1)]);
        assert!(store.claim_owed("telegram").unwrap().is_empty(), "claimed once");
        assert!(store.claim_owed("discord").unwrap().is_empty());

        // Delivered entries are gone for good.
        store.delivered("telegram", made[0].seq).unwrap();
        store.delivered("telegram", made[2].seq).unwrap();
        assert!(store.owed("telegram").unwrap().is_empty());
        // New replies after the restart are this process's own too.
        let later = store.complete(&done(Some("-5:2"), &[("-5", b"four")])).unwrap();
        assert!(later[0].seq > made[2].seq);
        assert!(store.claim_owed("telegram").unwrap().is_empty());
        assert_eq!(store.owed("telegram").unwrap().len(), 1);
    }
}
