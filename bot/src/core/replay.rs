//! The animated replay of a game (a GIF), posted at its end and on `/gif`.

use kibitz_storage::ClashRound;

use super::*;

impl Core {
    /// The replay posted when `finished` ends.
    pub(super) fn replay_of_game(&self, finished: &GameRecord) -> Option<Reply> {
        let _ = finished;
        None
    }

    /// The replay posted when `round` of the Clash match `record` ends.
    pub(super) fn replay_of_round(&self, record: &GameRecord, round: &ClashRound) -> Option<Reply> {
        let _ = (record, round);
        None
    }
}
