//! Send slots: every sender of a chat asks the store, and the slots keep the
//! chat's gap and its limit a minute, whoever asks.

use std::sync::Arc;

mod common;

use kibitz_storage::Timestamp;

const GAP: u64 = 1_000;
const GROUP: usize = 20;

/// Fails unless consecutive `slots` (sorted) are `gap` apart and no 60-second
/// window holds more than `per_minute` of them.
fn assert_paced(slots: &[u64], gap: u64, per_minute: usize) {
    let mut sorted = slots.to_vec();
    sorted.sort_unstable();
    for pair in sorted.windows(2) {
        assert!(pair[1] - pair[0] >= gap, "slots {} and {} are closer than {gap} ms", pair[0], pair[1]);
    }
    for (i, &start) in sorted.iter().enumerate() {
        let within = sorted[i..].iter().take_while(|&&s| s < start + 60_000).count();
        assert!(within <= per_minute, "{within} slots in the minute from {start}");
    }
}

on_both_backends! {
    fn slots_keep_a_gap_and_twenty_a_minute_in_a_group(backing) {
        let store = backing.open();
        let t0 = 1_000_000;
        // Asked all at once: a second apart, then the minute's limit.
        let slots: Vec<u64> =
            (0..25).map(|_| store.reserve_send_slot("telegram", "-5", Timestamp(t0), GAP, GROUP).unwrap().0).collect();
        for (i, &s) in slots.iter().take(GROUP).enumerate() {
            assert_eq!(s, t0 + i as u64 * GAP);
        }
        assert_eq!(slots[GROUP], t0 + 60_000, "the 21st waits until the first is a minute old");
        assert_eq!(slots[GROUP + 1], t0 + 61_000);
        assert_paced(&slots, GAP, GROUP);
        // Asked later than the gap: at once.
        let later = Timestamp(slots[24] + 5_000);
        assert_eq!(store.reserve_send_slot("telegram", "-5", later, GAP, GROUP).unwrap(), later);
    }

    fn a_private_chat_has_only_the_gap(backing) {
        let store = backing.open();
        let t0 = 50_000;
        let slots: Vec<u64> =
            (0..70).map(|_| store.reserve_send_slot("telegram", "42", Timestamp(t0), GAP, 0).unwrap().0).collect();
        assert_eq!(slots, (0..70).map(|i| t0 + i * GAP).collect::<Vec<_>>());
        // No gap, no limit: now, every time.
        for _ in 0..3 {
            assert_eq!(store.reserve_send_slot("telegram", "43", Timestamp(t0), 0, 0).unwrap(), Timestamp(t0));
        }
    }

    fn chats_and_platforms_keep_their_own_pace(backing) {
        let store = backing.open();
        let now = Timestamp(7_000);
        assert_eq!(store.reserve_send_slot("telegram", "-5", now, GAP, GROUP).unwrap(), now);
        assert_eq!(store.reserve_send_slot("telegram", "-6", now, GAP, GROUP).unwrap(), now);
        assert_eq!(store.reserve_send_slot("discord", "-5", now, GAP, GROUP).unwrap(), now);
        assert_eq!(store.reserve_send_slot("telegram", "-5", now, GAP, GROUP).unwrap(), Timestamp(8_000));
    }

    fn old_slots_are_forgotten_and_a_clock_going_back_gets_no_earlier_slot(backing) {
        let store = backing.open();
        for _ in 0..GROUP {
            store.reserve_send_slot("telegram", "-5", Timestamp(0), GAP, GROUP).unwrap();
        }
        // Two minutes on, the chat is free again.
        assert_eq!(store.reserve_send_slot("telegram", "-5", Timestamp(200_000), GAP, GROUP).unwrap(), Timestamp(200_000));
        // The clock went back: the slot is still after the last one.
        assert_eq!(store.reserve_send_slot("telegram", "-5", Timestamp(100_000), GAP, GROUP).unwrap(), Timestamp(201_000));
        // Many chats: the store keeps working (and forgets the idle ones).
        for i in 0..3_000 {
            let at = Timestamp(300_000 + i * 100);
            assert_eq!(store.reserve_send_slot("telegram", &format!("c{i}"), at, GAP, GROUP).unwrap(), at);
        }
        assert_eq!(store.reserve_send_slot("telegram", "-5", Timestamp(900_000), GAP, GROUP).unwrap(), Timestamp(900_000));
    }

    fn two_senders_on_one_chat_never_get_slots_too_close(backing) {
        let store = Arc::new(backing.open());
        let t0 = Timestamp::now().0;
        let senders: Vec<_> = (0..2)
            .map(|k| {
                let store = store.clone();
                std::thread::spawn(move || {
                    let mut mine = Vec::new();
                    for i in 0..30u64 {
                        // Each sender's own clock moves on a little as it goes.
                        let now = Timestamp(t0 + i * 300 + k * 7);
                        mine.push(store.reserve_send_slot("telegram", "-100", now, GAP, GROUP).unwrap().0);
                        std::thread::yield_now();
                    }
                    mine
                })
            })
            .collect();
        let all: Vec<u64> = senders.into_iter().flat_map(|s| s.join().unwrap()).collect();
        assert_eq!(all.len(), 60);
        assert_paced(&all, GAP, GROUP);
        // Sixty slots at twenty a minute: the last is more than two minutes on.
        assert!(all.iter().max().unwrap() - t0 >= 120_000);
    }
}
