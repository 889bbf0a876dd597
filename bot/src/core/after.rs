//! After a game: what the bot posts once a game (or a round of a Clash
//! match) has ended, below the words that ended it.
//!
//! Every way a game ends (a move that mates or draws, a resignation, an
//! agreed draw, an abort, a flag fall found by the clock or by a late move,
//! a Clash match decided) calls [`Core::game_over`] once, after the store has
//! the end; every Clash round that ends calls [`Core::round_over`]. Their
//! replies go to the game's channel after the ones that ended it.

use kibitz_storage::ClashRound;

use super::*;

impl Core {
    /// What follows the end of `finished` (archived, with its result).
    pub(super) fn game_over(&self, finished: &GameRecord) -> Vec<Reply> {
        let mut replies: Vec<Reply> = self.replay_of_game(finished).into_iter().collect();
        self.start_review(finished);
        self.offer_rematch(finished, &mut replies);
        replies
    }

    /// What follows the end of `round` of the Clash match `record` (as
    /// stored after the round, whether or not the match goes on).
    pub(super) fn round_over(&self, record: &GameRecord, round: &ClashRound) -> Vec<Reply> {
        let replies: Vec<Reply> = self.replay_of_round(record, round).into_iter().collect();
        self.start_round_review(record, round);
        replies
    }

    /// [`Core::round_over`]'s replies for round number `round` of `record`,
    /// waiting with the notices.
    pub(super) fn notify_round_over(&self, record: &GameRecord, round: u8) {
        let Some(r) = record.clash.as_ref().and_then(|c| c.rounds.iter().find(|r| r.number == u32::from(round))) else {
            return;
        };
        for reply in self.round_over(record, r) {
            self.notify(record.key.channel.clone(), reply);
        }
    }

    /// [`Core::game_over`]'s replies, waiting with the notices: for the
    /// places that end a game inside a longer answer.
    pub(super) fn notify_game_over(&self, finished: &GameRecord) {
        for reply in self.game_over(finished) {
            self.notify(finished.key.channel.clone(), reply);
        }
    }
}
