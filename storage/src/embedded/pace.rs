//! The pace of sending to a chat, shared by every process that sends for one
//! bot: each message asks for a slot, and the slots of a chat keep a gap
//! between them and a limit a minute (Telegram: a message a second, twenty
//! a minute in a group).
//!
//! An embedded store serves one process only, so its slots are kept in memory,
//! and only as long as they matter: a minute, and the last one of a chat
//! for its gap.

use std::collections::{HashMap, VecDeque};

use super::SledStore;
use crate::{Result, Timestamp};

/// A minute, in milliseconds.
const MINUTE: u64 = 60_000;

/// With more chats than this remembered, the chats with no slot in the last
/// minute are forgotten.
const SWEEP_ABOVE: usize = 1024;

/// The reserved slots of each (platform, chat), oldest first, in
/// milliseconds since the epoch.
pub(crate) type Slots = HashMap<(String, String), VecDeque<u64>>;

/// The earliest slot at or after `now`, `gap` after the last of `slots`,
/// with fewer than `per_minute` (none: 0) of `slots` in the minute before it.
fn next_slot(slots: &VecDeque<u64>, now: u64, gap: u64, per_minute: usize) -> u64 {
    let mut at = now;
    if let Some(&last) = slots.back() {
        at = at.max(last.saturating_add(gap));
    }
    if per_minute > 0 && slots.len() >= per_minute {
        // Slots only grow: the `per_minute`-th last must be a minute before.
        let nth = slots[slots.len() - per_minute];
        at = at.max(nth.saturating_add(MINUTE));
    }
    at
}

/// Takes the next slot ([`next_slot`]) into `slots`, and forgets those that
/// can no longer limit a later one: all but the last `per_minute`, and those
/// a minute older than now (later slots are at `now` at the earliest); the
/// last stays for the gap.
pub(crate) fn take_slot(slots: &mut VecDeque<u64>, now: u64, gap: u64, per_minute: usize) -> u64 {
    let slot = next_slot(slots, now, gap, per_minute);
    slots.push_back(slot);
    while slots.len() > per_minute.max(1) {
        slots.pop_front();
    }
    while slots.len() > 1 && slots.front().is_some_and(|&s| s.saturating_add(MINUTE) <= now) {
        slots.pop_front();
    }
    slot
}

impl SledStore {
    /// Reserves the next moment a message may be sent to `chat` of
    /// `platform`, and returns it: the earliest moment at or after `now`
    /// that is at least `gap_ms` after the chat's last reserved slot, and
    /// such that no 60-second window holds more than `per_minute` of the
    /// chat's slots (`per_minute` 0: no limit a minute). The slot is
    /// recorded: whoever asks next for the chat gets a later one, so that
    /// senders that share the store keep one pace.
    ///
    /// The limits are the caller's; every caller for a chat is expected to
    /// give the same.
    pub fn reserve_send_slot(
        &self,
        platform: &str,
        chat: &str,
        now: Timestamp,
        gap_ms: u64,
        per_minute: usize,
    ) -> Result<Timestamp> {
        let mut all = self.shared.send_slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if all.len() > SWEEP_ABOVE {
            let keep_for = MINUTE.max(gap_ms);
            all.retain(|_, slots| slots.back().is_some_and(|&last| last.saturating_add(keep_for) > now.0));
        }
        let slots = all.entry((platform.to_string(), chat.to_string())).or_default();
        let slot = take_slot(slots, now.0, gap_ms, per_minute);
        Ok(Timestamp(slot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_slot_keeps_the_gap_and_the_limit() {
        let mut slots = VecDeque::new();
        assert_eq!(next_slot(&slots, 5_000, 1_000, 3), 5_000);
        slots.extend([5_000, 6_000, 7_000]);
        assert_eq!(next_slot(&slots, 7_000, 1_000, 0), 8_000);
        assert_eq!(next_slot(&slots, 7_000, 1_000, 3), 65_000);
        assert_eq!(next_slot(&slots, 90_000, 1_000, 3), 90_000);
        assert_eq!(next_slot(&slots, 0, u64::MAX, 3), u64::MAX, "no overflow");
    }
}
