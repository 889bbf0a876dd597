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
    /// The kinds of pieces besides the royal one, by the powers they move
    /// with; the royal piece is kind 5.
    pub(super) kinds: [Powers; 5],
    /// Whether the game has a middlegame and an ending to blend between
    /// (else only the middlegame tables count).
    pub(super) phased: bool,
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

/// The fitted terms of `v`, if it has any: chess and Olympic, whose pieces
/// never change their powers except by promotion.
#[inline]
pub(super) fn of(v: &Variant) -> Option<&'static Tuned> {
    if std::ptr::eq(v, &crate::variant::CHESS) {
        Some(&CHESS)
    } else if std::ptr::eq(v, &crate::variant::OLYMPIC) {
        Some(&OLYMPIC)
    } else {
        None
    }
}

impl Tuned {
    /// The kind of a piece: its index in `kinds`, 5 if royal.
    #[inline]
    pub(super) fn kind(&self, royal: bool, powers: Powers) -> Option<usize> {
        if royal { Some(5) } else { self.kinds.iter().position(|&k| k == powers) }
    }

    /// How much a piece of `kind` counts towards the middlegame (24 in all
    /// at the start of chess).
    #[inline]
    pub(super) fn phase_weight(&self, kind: usize) -> i32 {
        [0, 1, 1, 2, 4, 0][kind]
    }
}

/// `sq` seen from White's side for a piece of the side `side` (0 White).
#[inline]
pub(super) fn oriented(sq: Square, side: usize, height: u8) -> usize {
    if side == 0 { sq.index() } else { usize::from(height - 1 - sq.rank()) * 8 + usize::from(sq.file()) }
}
