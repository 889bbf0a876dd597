//! How far the static evaluation has been missing, by pawn structure: after
//! a node is searched, the gap between its score and its evaluation is
//! averaged into an entry for the side to move and the pawns on the board,
//! and later evaluations of positions with those pawns are moved by it. An
//! evaluation that misjudges a structure (a weak King's cover, a blocked
//! centre) is so mended for the rest of the game, and pruning that goes by
//! the evaluation errs less.

use crate::position::Position;
use crate::types::Color;

/// Entries per side (a power of two).
const SIZE: usize = 1 << 14;
/// An entry's units per centipawn.
const GRAIN: i32 = 128;
/// The largest correction, in centipawns.
const LIMIT: i32 = 128;
/// The largest gap one search moves an entry towards.
const GAP: i32 = 256;

pub(super) struct Correction {
    /// By side to move, then by the pawns' key.
    table: Vec<i16>,
}

impl Correction {
    pub(super) fn new() -> Correction {
        Correction { table: vec![0; 2 * SIZE] }
    }

    /// Forgets everything (a new game).
    pub(super) fn clear(&mut self) {
        self.table.fill(0);
    }

    /// How many entries hold a correction.
    #[cfg(test)]
    pub(super) fn learnt(&self) -> usize {
        self.table.iter().filter(|&&e| e != 0).count()
    }

    /// The entry of `pos`'s side to move and pawns.
    #[inline]
    fn index(pos: &Position) -> usize {
        let pawns = pos.pure_pawns();
        let white = pawns & pos.pieces_of(Color::White);
        let black = pawns & !white;
        let mixed = white.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ black.0.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        pos.turn().index() * SIZE + (mixed >> (64 - SIZE.trailing_zeros())) as usize
    }

    /// What to add to `pos`'s evaluation, in centipawns.
    #[inline]
    pub(super) fn of(&self, pos: &Position) -> i32 {
        i32::from(self.table[Self::index(pos)]) / GRAIN
    }

    /// Moves `pos`'s entry towards `gap` (the searched score less the
    /// uncorrected evaluation), the more the deeper the search was.
    pub(super) fn learn(&mut self, pos: &Position, depth: i32, gap: i32) {
        let entry = &mut self.table[Self::index(pos)];
        let weight = (depth + 1).clamp(1, 16);
        let target = gap.clamp(-GAP, GAP) * GRAIN;
        let moved = (i32::from(*entry) * (256 - weight) + target * weight) / 256;
        *entry = moved.clamp(-LIMIT * GRAIN, LIMIT * GRAIN) as i16;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::Variant;

    fn chess(fen: &str) -> Position {
        Position::from_fen(Variant::by_id("chess").unwrap(), fen).unwrap()
    }

    #[test]
    fn a_structure_learns_its_gap_and_others_keep_theirs() {
        let mut c = Correction::new();
        let start = chess("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        // Same pawns, other pieces placed elsewhere: the same entry.
        let moved = chess("r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 3");
        let other = chess("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1");
        let black = chess("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        for _ in 0..200 {
            c.learn(&start, 12, 60);
        }
        assert!((55..=60).contains(&c.of(&start)), "{}", c.of(&start));
        assert_eq!(c.of(&moved), c.of(&start));
        assert_eq!(c.of(&other), 0);
        assert_eq!(c.of(&black), 0);
        // A huge gap moves it at most to the limit.
        for _ in 0..500 {
            c.learn(&start, 20, -10_000);
        }
        assert_eq!(c.of(&start), -LIMIT);
        c.clear();
        assert_eq!(c.of(&start), 0);
    }

    #[test]
    fn shallow_searches_move_it_less_than_deep_ones() {
        let pos = chess("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let (mut shallow, mut deep) = (Correction::new(), Correction::new());
        shallow.learn(&pos, 3, 100);
        deep.learn(&pos, 15, 100);
        assert!(0 < shallow.of(&pos) && shallow.of(&pos) < deep.of(&pos));
    }
}
