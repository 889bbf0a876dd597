//! A fixed game review for the graph tests: built by hand, so the pictures
//! do not depend on the search.

#![allow(dead_code)]

use kibitz_rules::Color;
use kibitz_rules::review::{GameReview, Judgement, PlyReview, Score};

/// Scores of the positions: an even opening, a blunder by Black at
/// 6...Nxe4 (White well ahead), a mistake (8.Bd2) and an inaccuracy (9.Qh5)
/// by White, another blunder by Black (10...Rf8) and a forced mate for
/// White at the end.
pub const SCORES: [Score; 26] = [
    Score::Cp(20),
    Score::Cp(35),
    Score::Cp(30),
    Score::Cp(45),
    Score::Cp(10),
    Score::Cp(25),
    Score::Cp(-40),
    Score::Cp(-10),
    Score::Cp(-30),
    Score::Cp(-20),
    Score::Cp(40),
    Score::Cp(30),
    Score::Cp(520),
    Score::Cp(480),
    Score::Cp(510),
    Score::Cp(290),
    Score::Cp(300),
    Score::Cp(180),
    Score::Cp(170),
    Score::Cp(160),
    Score::Cp(700),
    Score::Cp(1400),
    Score::Cp(1500),
    Score::Mate(2),
    Score::Mate(1),
    Score::Won(Color::White),
];

const SANS: [&str; 25] = [
    "e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "Ng5", "d5", "exd5", "Na5", "d3", "Nxe4", "dxe4", "h6", "Bd2", "Bc5",
    "Qh5", "Qe7", "Nc3", "Rf8", "Nd5", "Qd8", "Nf6+", "gxf6", "Qxf7#",
];

/// The review: judgements from the losses, as the review engine makes them.
pub fn review() -> GameReview {
    let plies = SANS
        .iter()
        .enumerate()
        .map(|(i, san)| {
            let mover = if i % 2 == 0 { Color::White } else { Color::Black };
            let (before, after) = (SCORES[i], SCORES[i + 1]);
            let loss = (before.chances_of(mover) - after.chances_of(mover)).max(0.0);
            PlyReview {
                ply: i,
                mover,
                san: san.to_string(),
                before,
                after,
                best_san: Some("Nf3".into()),
                best_line: vec!["Nf3".into()],
                judgement: Judgement::of_loss(loss),
                loss,
                number: 1 + i as u32 / 2,
            }
        })
        .collect();
    GameReview::from_plies(plies)
}
