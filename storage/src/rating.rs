//! Glicko-2 ratings, one per player, platform and variant.
//!
//! The arithmetic is the `skillratings` crate's; the store keeps its own
//! record so that the file format does not follow that crate's types.

use serde::{Deserialize, Serialize};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

use crate::{Outcome, RatingChange};

/// A Glicko-2 rating.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The rating, 1500 to start.
    pub rating: f64,
    /// The rating deviation (uncertainty), 350 to start.
    pub deviation: f64,
    /// The volatility, 0.06 to start.
    pub volatility: f64,
    /// Rated games played.
    pub games: u32,
}

impl Default for Rating {
    fn default() -> Self {
        let start = Glicko2Rating::new();
        Rating { rating: start.rating, deviation: start.deviation, volatility: start.volatility, games: 0 }
    }
}

impl Rating {
    /// Whether the rating is still uncertain (deviation above 110, as lichess counts it).
    pub fn provisional(&self) -> bool {
        self.deviation > 110.0
    }

    fn glicko(self) -> Glicko2Rating {
        Glicko2Rating { rating: self.rating, deviation: self.deviation, volatility: self.volatility }
    }

    fn after(self, new: Glicko2Rating) -> Rating {
        Rating { rating: new.rating, deviation: new.deviation, volatility: new.volatility, games: self.games + 1 }
    }
}

impl std::fmt::Display for Rating {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.0}{}", self.rating, if self.provisional() { "?" } else { "" })
    }
}

/// White's and Black's new ratings after a game; `None` for an aborted game, which is not rated.
pub(crate) fn rate(white: Rating, black: Rating, outcome: Outcome) -> Option<(RatingChange, RatingChange)> {
    let outcome = match outcome {
        Outcome::WhiteWins => Outcomes::WIN,
        Outcome::BlackWins => Outcomes::LOSS,
        Outcome::Draw => Outcomes::DRAW,
        Outcome::Aborted => return None,
    };
    let (w, b) = glicko2(&white.glicko(), &black.glicko(), &outcome, &Glicko2Config::new());
    Some((RatingChange { before: white, after: white.after(w) }, RatingChange { before: black, after: black.after(b) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_win_moves_ratings_apart_and_a_draw_between_equals_keeps_them() {
        let (w, b) = rate(Rating::default(), Rating::default(), Outcome::WhiteWins).unwrap();
        assert!(w.after.rating > 1500.0 && b.after.rating < 1500.0);
        assert!(w.after.deviation < 350.0);
        assert_eq!((w.after.games, b.after.games), (1, 1));
        let (w, b) = rate(Rating::default(), Rating::default(), Outcome::Draw).unwrap();
        assert!((w.after.rating - 1500.0).abs() < 1e-6 && (b.after.rating - 1500.0).abs() < 1e-6);
        assert!(rate(Rating::default(), Rating::default(), Outcome::Aborted).is_none());
    }
}
