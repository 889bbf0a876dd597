//! What quiet moves did before, for ordering them and for how much a late
//! one is reduced: a history by the side to move and the move, and two
//! continuation histories by the move one and two plies before and the move.
//!
//! A move is known by the kind of piece that makes it and the square it goes
//! to, so a Knight's jump to f3 shares what it learnt whichever Knight makes
//! it, and a drop (a kind of its own for each piece in hand) learns as the
//! board's moves do.

use super::slots::Slots;
use crate::moves::Move;
use crate::piece::Powers;
use crate::position::Position;

/// A move's key: its piece kind (16) and destination (64).
pub(super) type Key = u16;

const KINDS: usize = 16;
const KEYS: usize = KINDS * 64;
/// Entries saturate at this size: each update moves an entry towards it by
/// a share of the distance left.
const LIMIT: i32 = 16_384;

/// The piece types of the moves' keys, remembered by powers: the move
/// ordering asks for the key of nearly every move it sees.
pub(super) struct Types {
    variant: usize,
    /// By a hash of the powers' bits (the top one for a royal piece): the
    /// bits and the type's kind.
    slots: [(u32, u8); 64],
}

impl Default for Types {
    fn default() -> Types {
        Types { variant: 0, slots: [(u32::MAX, 0); 64] }
    }
}

impl Types {
    /// The key of `m` in `pos`, if it has one (Alapawn's pawn pairs do not).
    /// Board moves take the piece's type in the variant (the first seven;
    /// any other, such as a piece of absorbed powers, shares the eighth);
    /// drops and grants take 8 and up by the type they put on the board.
    #[inline]
    pub(super) fn key(&mut self, pos: &Position, m: &Move) -> Option<Key> {
        let kind = match *m {
            Move::Normal { from, .. } | Move::EnPassant { from, .. } | Move::Castle { king: from, .. } => {
                let p = pos.piece_at(from)?;
                self.kind(pos, p.powers, p.royal)
            }
            Move::Drop { piece, .. } | Move::Grant { piece, .. } => 8 + usize::from(piece).min(7),
            _ => return None,
        };
        Some((kind * 64 + m.to().index()) as Key)
    }

    /// [`Types::key`] for a run of moves of one position: `last` remembers
    /// the square the previous move came from and its piece's kind (a
    /// generator lists each piece's moves together). Start it at
    /// [`Types::NO_LAST`].
    #[inline]
    pub(super) fn key_in_run(&mut self, pos: &Position, m: &Move, last: &mut (u8, u8)) -> Option<Key> {
        let from = match *m {
            Move::Normal { from, .. } | Move::EnPassant { from, .. } | Move::Castle { king: from, .. } => from,
            _ => return self.key(pos, m),
        };
        let sq = from.index() as u8;
        if last.0 != sq {
            let p = pos.piece_at(from)?;
            *last = (sq, self.kind(pos, p.powers, p.royal) as u8);
        }
        Some((usize::from(last.1) * 64 + m.to().index()) as Key)
    }

    /// The start of [`Types::key_in_run`]'s memory: no square.
    pub(super) const NO_LAST: (u8, u8) = (u8::MAX, 0);

    #[inline]
    fn kind(&mut self, pos: &Position, powers: Powers, royal: bool) -> usize {
        let bits = powers.bits() | u32::from(royal) << 31;
        let i = (bits.wrapping_mul(0x9E37_79B1) >> 26) as usize;
        let variant = pos.variant() as *const _ as usize;
        if self.slots[i].0 == bits && self.variant == variant {
            return usize::from(self.slots[i].1);
        }
        if self.variant != variant {
            self.slots = [(u32::MAX, 0); 64];
            self.variant = variant;
        }
        let kind = pos.variant().piece_index_of(powers, royal).map_or(7, |i| i.min(7));
        self.slots[i] = (bits, kind);
        usize::from(kind)
    }
}

/// The history tables of one engine.
pub(super) struct Histories {
    /// By side to move, then key.
    main: Vec<i16>,
    /// By the key of the move one ply before (`[0]`) or two (`[1]`), then
    /// the move's key: 2 MiB each, read at random for nearly every quiet
    /// move scored, so in huge pages, and written through once made (a
    /// table left to be zeroed by the kernel on first touch costs its page
    /// faults, 2% of a search's time, in the search).
    continuation: [Slots<i16>; 2],
}

impl Histories {
    pub(super) fn new() -> Histories {
        Histories { main: vec![0; 2 * KEYS], continuation: [Slots::new(KEYS * KEYS, 0), Slots::new(KEYS * KEYS, 0)] }
    }

    /// Forgets everything (a new game).
    pub(super) fn clear(&mut self) {
        self.main.fill(0);
        self.continuation.iter_mut().for_each(|c| c.fill(0));
    }

    /// Between searches of one game: what the main history learnt fades, as
    /// the game moves on; the continuations, which say how to answer a
    /// move, keep theirs.
    pub(super) fn age(&mut self) {
        self.main.iter_mut().for_each(|h| *h /= 8);
    }

    /// The move's worth for ordering: the sum of the three tables.
    #[inline]
    pub(super) fn score(&self, side: usize, key: Key, before: [Option<Key>; 2]) -> i32 {
        let k = usize::from(key);
        let mut s = i32::from(self.main[side * KEYS + k]);
        for (table, prev) in self.continuation.iter().zip(before) {
            if let Some(p) = prev {
                s += i32::from(table[usize::from(p) * KEYS + k]);
            }
        }
        s
    }

    /// Moves the move's entries by `bonus` (negative for a move that failed).
    pub(super) fn update(&mut self, side: usize, key: Key, before: [Option<Key>; 2], bonus: i32) {
        let k = usize::from(key);
        nudge(&mut self.main[side * KEYS + k], bonus);
        for (table, prev) in self.continuation.iter_mut().zip(before) {
            if let Some(p) = prev {
                nudge(&mut table[usize::from(p) * KEYS + k], bonus);
            }
        }
    }
}

/// Adds `bonus` to `entry`, less the more the entry already leans that way,
/// so that it stays within ±[`LIMIT`].
#[inline]
fn nudge(entry: &mut i16, bonus: i32) {
    let h = i32::from(*entry);
    let next = h + bonus - h * bonus.abs() / LIMIT;
    *entry = next.clamp(-LIMIT, LIMIT) as i16;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{CHESS, OLYMPIC};

    #[test]
    fn keys_tell_pieces_and_drops_apart() {
        let pos = Position::new(&CHESS);
        let knight = pos.parse_move("g1f3").unwrap();
        let pawn = pos.parse_move("e2e4").unwrap();
        let (kn, pa) = (Types::default().key(&pos, &knight).unwrap(), Types::default().key(&pos, &pawn).unwrap());
        assert_ne!(kn / 64, pa / 64);
        assert_eq!(usize::from(kn % 64), knight.to().index());
        let olympic = Position::from_fen(&OLYMPIC, "rbgsk/p3p/5/P3P/KSGBR[S] w - - 0 1").unwrap();
        let drop = olympic.legal_moves().into_iter().find(|m| matches!(m, Move::Drop { .. })).unwrap();
        assert!(Types::default().key(&olympic, &drop).unwrap() / 64 >= 8);
    }

    #[test]
    fn remembered_types_follow_the_variant() {
        // One engine plays one game after another: a type remembered in one
        // variant is not taken for another's, whose types are numbered anew.
        let mut types = Types::default();
        for pos in [Position::new(&CHESS), Position::new(&OLYMPIC), Position::new(&CHESS)] {
            for m in pos.legal_moves() {
                let Move::Normal { from, .. } = m else { continue };
                let p = pos.piece_at(from).unwrap();
                let index = pos.variant().piece_index_of(p.powers, p.royal).map_or(7, |i| usize::from(i).min(7));
                assert_eq!(types.key(&pos, &m), Some((index * 64 + m.to().index()) as Key));
            }
        }
    }

    #[test]
    fn entries_stay_within_their_limit() {
        let mut h = Histories::new();
        for _ in 0..1000 {
            h.update(0, 5, [Some(7), None], 12_800);
        }
        let top = h.score(0, 5, [Some(7), None]);
        assert!(top <= 2 * LIMIT && top > LIMIT, "{top}");
        for _ in 0..1000 {
            h.update(0, 5, [Some(7), None], -12_800);
        }
        assert!(h.score(0, 5, [Some(7), None]) >= -2 * LIMIT);
    }
}
