//! Chess's pawn structures, remembered. What the pawns alone are worth
//! (their squares, passed pawns, doubled, isolated, connected and backward
//! ones) depends on nothing but the squares of each side's pawns, and a
//! search meets the same few structures in most of its positions: most
//! moves are not pawn moves.

use crate::types::Bitboard;
use crate::variant::Variant;

/// What one pawn structure is worth to each side.
#[derive(Clone, Copy)]
pub(in crate::search) struct PawnEntry {
    /// Each side's pawns (the key).
    pawns: [Bitboard; 2],
    /// The hand-set terms, by side.
    pub(super) score: [i32; 2],
    /// The fitted terms, by side, middlegame and ending.
    pub(super) fitted: [[i32; 2]; 2],
    /// Each side's passed pawns (of ranks 2-7 from its side), which the
    /// rest of the evaluation weighs by how free their way is.
    pub(super) passed: [Bitboard; 2],
}

impl PawnEntry {
    /// The worth of `pawns` as worked out.
    pub(super) fn new(
        pawns: [Bitboard; 2],
        score: [i32; 2],
        fitted: [[i32; 2]; 2],
        passed: [Bitboard; 2],
    ) -> PawnEntry {
        PawnEntry { pawns, score, fitted, passed }
    }
}

/// Pawn structures by their squares, one slot each, the latest kept. Empty
/// until the first evaluation that asks (most [`super::Values`] made for a
/// single evaluation never do), and emptied when the variant changes.
pub(in crate::search) struct PawnTable {
    variant: usize,
    slots: Vec<PawnEntry>,
}

impl PawnTable {
    /// 8,192 structures, about half a megabyte: within a core's second-level
    /// cache on most machines.
    const BITS: u32 = 13;

    pub(in crate::search) fn new() -> PawnTable {
        PawnTable { variant: 0, slots: Vec::new() }
    }

    /// The entry of `pawns` in `variant`, worked out by `work_out` unless
    /// the table holds it.
    #[inline]
    pub(super) fn entry(
        &mut self,
        variant: &'static Variant,
        pawns: [Bitboard; 2],
        work_out: impl FnOnce([Bitboard; 2]) -> PawnEntry,
    ) -> &PawnEntry {
        let id = variant as *const Variant as usize;
        if id != self.variant || self.slots.is_empty() {
            // No structure has every square under a pawn of each side: the
            // empty slots match none.
            let empty = PawnEntry::new([Bitboard::FULL; 2], [0; 2], [[0; 2]; 2], [Bitboard::EMPTY; 2]);
            self.slots.clear();
            self.slots.resize(1 << Self::BITS, empty);
            self.variant = id;
        }
        let mixed = (pawns[0].0 ^ pawns[1].0.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let i = (mixed >> (64 - Self::BITS)) as usize;
        if self.slots[i].pawns != pawns {
            self.slots[i] = work_out(pawns);
        }
        &self.slots[i]
    }
}
