//! The review of a finished game: analysed in the background, posted when done.

use kibitz_storage::ClashRound;

use super::*;

impl Core {
    /// Starts the review of `finished`.
    pub(super) fn start_review(&self, finished: &GameRecord) {
        let _ = finished;
    }

    /// Starts the review of `round` of the Clash match `record`.
    pub(super) fn start_round_review(&self, record: &GameRecord, round: &ClashRound) {
        let _ = (record, round);
    }
}
