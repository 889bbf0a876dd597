//! Evaluation terms fitted to positions rather than set by hand: piece-square
//! tables (blended between the middlegame and the ending where the game has
//! one), mobility curves, and the worth of pieces in hand. They add to the
//! hand-set evaluation, which stays as it is; the fit (tools/tune) chose them
//! to bring that evaluation close to a strong engine's on quiet positions of
//! that engine's own games.

use crate::piece::Powers;
use crate::types::Square;
use crate::variant::Variant;

/// Fitted terms for one variant.
pub(super) struct Tuned {
    /// The kinds of pieces besides the King, by the powers they move with;
    /// the King (royal or not) is kind 5.
    pub(super) kinds: [Powers; 5],
    /// Whether the game has a middlegame and an ending to blend between
    /// (else only the middlegame tables count).
    pub(super) phased: bool,
    /// Whether Black's squares are seen from White's side turned half round
    /// (Olympic, whose armies face each other that way, O1) rather than
    /// reflected rank for rank (chess, Alapawn).
    pub(super) turned: bool,
    /// By kind, middlegame then ending, by square (`rank * 8 + file`) from
    /// White's side.
    pub(super) pst: [[[i16; 64]; 2]; 6],
    /// By kinds 1-4, middlegame then ending, by the number of squares the
    /// piece reaches (at most 27).
    pub(super) mobility: [[[i16; 28]; 2]; 4],
    /// A piece in hand, by kind.
    pub(super) hand: [i16; 5],
}

const QUEEN: Powers = Powers::ROOK.with(Powers::BISHOP);

include!("tuned_chess.rs");
include!("tuned_olympic.rs");
include!("tuned_alapawn.rs");

/// The fitted terms of `v`, if it has any: chess, Olympic and Alapawn, whose
/// pieces never change their powers except by promotion. (Balanced Alapawn's
/// two-step turn changes what a square is worth too much to share
/// Alapawn's.)
#[inline]
pub(super) fn of(v: &Variant) -> Option<&'static Tuned> {
    if std::ptr::eq(v, &crate::variant::CHESS) {
        Some(&CHESS)
    } else if std::ptr::eq(v, &crate::variant::OLYMPIC) {
        Some(&OLYMPIC)
    } else if std::ptr::eq(v, &crate::variant::ALAPAWN) {
        Some(&ALAPAWN)
    } else {
        None
    }
}

impl Tuned {
    /// The kind of a piece: its index in `kinds`, 5 if royal or a King
    /// (Alapawn's is not royal, A1).
    #[inline]
    pub(super) fn kind(&self, royal: bool, powers: Powers) -> Option<usize> {
        if royal || powers == Powers::KING { Some(5) } else { self.kinds.iter().position(|&k| k == powers) }
    }

    /// How much a piece of `kind` counts towards the middlegame (24 in all
    /// at the start of chess).
    #[inline]
    pub(super) fn phase_weight(&self, kind: usize) -> i32 {
        const WEIGHTS: [i32; 6] = [0, 1, 1, 2, 4, 0];
        WEIGHTS[kind]
    }

    /// `sq` seen from White's side for a piece of the side `side` (0 White)
    /// on a board `width` by `height`.
    #[inline]
    pub(super) fn oriented(&self, sq: Square, side: usize, width: u8, height: u8) -> usize {
        let file = if side == 1 && self.turned { width - 1 - sq.file() } else { sq.file() };
        let rank = if side == 1 { height - 1 - sq.rank() } else { sq.rank() };
        usize::from(rank) * 8 + usize::from(file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{ALAPAWN, ALAPAWN_BALANCED, CHESS, CLASH, OLYMPIC};

    #[test]
    fn kings_royal_or_not_share_a_kind() {
        let alapawn = of(&ALAPAWN).expect("Alapawn has fitted terms");
        // A1: Alapawn's King is an ordinary piece, with the King's powers.
        assert_eq!(alapawn.kind(false, Powers::KING), Some(5));
        assert_eq!(alapawn.kind(false, Powers::PAWN), Some(0));
        assert_eq!(alapawn.kind(false, QUEEN), Some(4));
        assert_eq!(of(&CHESS).unwrap().kind(true, Powers::KING), Some(5));
        assert_eq!(of(&OLYMPIC).unwrap().kind(false, Powers::GOLD), Some(2));
        assert!(of(&ALAPAWN_BALANCED).is_none() && of(&CLASH).is_none());
    }

    #[test]
    fn alapawn_tables_are_fitted() {
        // Not the zeros of a table never fitted: pawns and knights differ by square.
        let t = of(&ALAPAWN).unwrap();
        for kind in [0, 1] {
            let table = &t.pst[kind][0];
            assert!(table.iter().any(|&v| v != table[8]), "kind {kind}");
        }
    }
}
