//! Reviews owed and reviews done: the analysis of a finished game (or of
//! one round of a Clash match) that the bot runs in the background.
//!
//! A review owed is a job in the store from the moment the game ends, so
//! that a crash or restart does not lose it. A process takes jobs with
//! [`Store::claim_reviews`](crate::Store::claim_reviews) for a lease: while
//! it lasts no other process (nor the same one) takes them again; a job
//! whose process died before it finished is taken again when its lease
//! ends. The finished review is kept ([`Store::set_review`](crate::Store::set_review))
//! as the bot's own text (the store does not read it), and the job dropped.

use serde::{Deserialize, Serialize};

use crate::codec::Record;
use crate::{GameKey, Timestamp};

/// One review owed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewJob {
    /// The game (finished, in the archive; or the Clash match, for a round).
    pub game: GameKey,
    /// The round of a Clash match; `None` for the whole game.
    pub round: Option<u32>,
    /// When it was queued.
    pub queued_at: Timestamp,
}

/// The stored part of a job besides its key.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct JobRecord {
    pub(crate) queued_at: Timestamp,
}

impl Record for JobRecord {
    const VERSION: u32 = 1;
}

/// A round as the store keys it: 0 is the whole game (Clash rounds count from 1).
pub(crate) fn round_number(round: Option<u32>) -> u32 {
    round.unwrap_or(0)
}

/// The round of a stored round number.
pub(crate) fn round_of(number: u32) -> Option<u32> {
    (number > 0).then_some(number)
}

pub(crate) fn describe_job(game: &GameKey, round: Option<u32>) -> String {
    match round {
        Some(r) => format!("the review of round {r} of {}", game.describe()),
        None => format!("the review of {}", game.describe()),
    }
}
