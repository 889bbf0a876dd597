//! Moves.

use arrayvec::ArrayVec;

use crate::types::Square;

/// What happens to the moving piece when it arrives.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Promote {
    /// Nothing.
    No,
    /// Becomes the variant's piece type with this index (chess: `e7e8q`).
    To(u8),
    /// Flips to its promoted side (Olympic: `c4c5+`, O3).
    Flip,
}

/// A move (or a whole turn that is not a plain move) in a position.
///
/// Moves are only meaningful in the position they were generated for; use
/// [`crate::Position::legal_moves`] or the notation parsers to get them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A piece moves, capturing whatever stands on `to`.
    Normal {
        /// Origin.
        from: Square,
        /// Destination.
        to: Square,
        /// Promotion on arrival.
        promote: Promote,
        /// PA3: the captor declines to absorb its victim's powers (`b5c6-`).
        keep: bool,
    },
    /// A pawn captures en passant; the victim stands beside `from`.
    EnPassant {
        /// Origin.
        from: Square,
        /// Destination (the square the victim passed).
        to: Square,
        /// PA3: the captor declines to absorb its victim's powers.
        keep: bool,
    },
    /// King and rook castle. Written as the king's move (`e1g1`).
    Castle {
        /// Where the king stands.
        king: Square,
        /// Where the rook stands.
        rook: Square,
    },
    /// A piece from hand is put on an empty square (`P@c3`).
    Drop {
        /// Index of the piece type in the variant.
        piece: u8,
        /// Destination.
        to: Square,
    },
    /// C2: one reserve power (index of its piece type) is given to the piece
    /// on `to` (`R>e2`).
    Grant {
        /// Index of the power's piece type in the variant.
        piece: u8,
        /// The piece that receives it.
        to: Square,
    },
    /// C6: the holder of the Castling power swaps squares with its King
    /// (`a1e1`: the holder's square, then the King's).
    Swap {
        /// The holder.
        from: Square,
        /// The King.
        king: Square,
    },
    /// CA2: a Rabbit's chain of jumps. Jump `i` is bits `2i..2i+2` of
    /// `dirs`: its direction (0 up, 1 down, 2 right, 3 left, from White's
    /// side); how far the jumped piece stands follows from the board. `meta`
    /// holds the number of jumps (at most [`MAX_CHAIN`]) and, in bit 7,
    /// whether the last jump leaves the board with its victim.
    Chain {
        /// The Rabbit's square.
        from: Square,
        /// Where it lands last (for a chain that leaves the board: the
        /// square of the last piece it jumped).
        to: Square,
        /// The jumps' directions, packed.
        dirs: u32,
        /// Jump count, and bit 7 for leaving the board.
        meta: u8,
    },
    /// CA4: the War Machine on `from` shoots the piece on `target`.
    Shoot {
        /// The shooter, which stays.
        from: Square,
        /// The piece removed.
        target: Square,
    },
    /// CA8: the Shielderer on `square` raises its shield (`D`).
    Shield {
        /// The Shielderer.
        square: Square,
    },
    /// A6: two non-capturing pawn steps in one turn, `first` then `second`,
    /// each as (from, to). One pawn twice has `second.0 == first.1`.
    PawnPair {
        /// The first step.
        first: (Square, Square),
        /// The second step.
        second: (Square, Square),
    },
}

impl Move {
    /// The destination square of the move (of its last step).
    pub fn to(&self) -> Square {
        match *self {
            Move::Normal { to, .. } | Move::EnPassant { to, .. } | Move::Drop { to, .. } | Move::Grant { to, .. } => to,
            Move::Swap { king, .. } => king,
            Move::Chain { to, .. } => to,
            Move::Shoot { target, .. } => target,
            Move::Shield { square } => square,
            Move::Castle { king, rook } => castle_squares(king, rook).0,
            Move::PawnPair { second, .. } => second.1,
        }
    }

    /// A number that stands for the move: two moves are equal exactly when
    /// their codes are. The search compares each move of a node with a few
    /// remembered ones, and one comparison of numbers is cheaper than the
    /// variant-by-variant comparison of moves.
    #[inline]
    pub(crate) fn code(&self) -> u64 {
        #[inline]
        fn pack(kind: u64, a: u8, b: u8, c: u16, d: u32) -> u64 {
            kind | u64::from(a) << 4 | u64::from(b) << 12 | u64::from(c) << 20 | u64::from(d) << 30
        }
        let promote = |p: Promote| match p {
            Promote::No => 0,
            Promote::Flip => 1,
            Promote::To(i) => 2 + u16::from(i),
        };
        match *self {
            Move::Normal { from, to, promote: p, keep } => {
                pack(0, from.index() as u8, to.index() as u8, promote(p), u32::from(keep))
            }
            Move::EnPassant { from, to, keep } => pack(1, from.index() as u8, to.index() as u8, 0, u32::from(keep)),
            Move::Castle { king, rook } => pack(2, king.index() as u8, rook.index() as u8, 0, 0),
            Move::Drop { piece, to } => pack(3, piece, to.index() as u8, 0, 0),
            Move::Grant { piece, to } => pack(4, piece, to.index() as u8, 0, 0),
            Move::Swap { from, king } => pack(5, from.index() as u8, king.index() as u8, 0, 0),
            Move::Chain { from, to, dirs, meta } => {
                pack(6, from.index() as u8, to.index() as u8, u16::from(meta), dirs)
            }
            Move::Shoot { from, target } => pack(7, from.index() as u8, target.index() as u8, 0, 0),
            Move::Shield { square } => pack(8, square.index() as u8, 0, 0, 0),
            Move::PawnPair { first, second } => {
                pack(9, first.0.index() as u8, first.1.index() as u8, second.0.index() as u16, second.1.index() as u32)
            }
        }
    }

    /// The origin square, if a piece on the board moves.
    pub fn from(&self) -> Option<Square> {
        match *self {
            Move::Normal { from, .. }
            | Move::EnPassant { from, .. }
            | Move::Swap { from, .. }
            | Move::Chain { from, .. }
            | Move::Shoot { from, .. } => Some(from),
            Move::Shield { square } => Some(square),
            Move::Castle { king, .. } => Some(king),
            Move::PawnPair { first, .. } => Some(first.0),
            Move::Drop { .. } | Move::Grant { .. } => None,
        }
    }
}

/// Most jumps in one Rabbit chain (CA2; CLASH.md).
pub const MAX_CHAIN: usize = 16;

impl Move {
    /// For a Rabbit chain: its number of jumps and whether it leaves the board.
    pub fn chain_shape(&self) -> Option<(usize, bool)> {
        match *self {
            Move::Chain { meta, .. } => Some(((meta & 0x7f) as usize, meta & 0x80 != 0)),
            _ => None,
        }
    }
}

/// Most squares one turn touches: a Rabbit chain's start, and each jump's
/// jumped square and landing.
pub const MAX_TOUCHED: usize = 2 * MAX_CHAIN + 1;

/// The squares one turn touched, in the order the turn touched them, each
/// once.
pub type Touched = ArrayVec<Square, MAX_TOUCHED>;

impl crate::position::Position {
    /// Every square `m` touches, read on this position (the one before `m`
    /// is played), to highlight the last turn: origin and destination of a
    /// move; the square of a drop, and of the piece a power is granted to
    /// (C2); both squares of a swap (C6); the shooter and its target (CA4);
    /// the Shielderer (CA8); a Rabbit's start and every square of its chain,
    /// jumped and landed on (CA2); both steps of a pawn pair (A6). Castling
    /// is the king's move, as it is written.
    pub fn touched_squares(&self, m: &Move) -> Touched {
        let mut out = Touched::new();
        let mut add = |s: Square| {
            if !out.contains(&s) && !out.is_full() {
                out.push(s);
            }
        };
        match *m {
            Move::Chain { from, .. } => {
                add(from);
                for (jumped, land) in self.chain_path(m) {
                    add(jumped);
                    add(land);
                }
            }
            Move::PawnPair { first, second } => {
                for s in [first.0, first.1, second.0, second.1] {
                    add(s);
                }
            }
            _ => {
                if let Some(from) = m.from() {
                    add(from);
                }
                add(m.to());
            }
        }
        out
    }
}

/// Where king and rook end up when castling: (king, rook) destinations.
pub(crate) fn castle_squares(king: Square, rook: Square) -> (Square, Square) {
    let rank = king.rank();
    let (kf, rf) = if rook.file() > king.file() { (6, 5) } else { (2, 3) };
    (Square::new(rank * 8 + kf), Square::new(rank * 8 + rf))
}

/// Upper bound on legal moves in any position the FEN parser accepts.
pub const MAX_MOVES: usize = 2048;

/// A list of moves that lives on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::VARIANTS;

    #[test]
    fn codes_are_equal_exactly_when_moves_are() {
        // Every legal move along random games of every variant, compared
        // with every other move of its position and of the positions before.
        let mut compared = 0;
        for v in VARIANTS {
            let mut seen: Vec<Move> = Vec::new();
            crate::search::random_games(v, 4, 60, 0x2545_F491_4F6C_DD1D, |pos| {
                let moves = pos.legal_moves();
                seen.extend(moves.iter().copied());
                seen.sort_by_key(Move::code);
                seen.dedup();
                for a in &moves {
                    for b in &seen {
                        assert_eq!(a == b, a.code() == b.code(), "{a:?} {b:?}");
                        compared += 1;
                    }
                }
            });
        }
        assert!(compared > 100_000, "{compared}");
        // Moves that differ in one field only.
        let sq = Square::new;
        let variants = [
            Move::Normal { from: sq(1), to: sq(2), promote: Promote::No, keep: false },
            Move::Normal { from: sq(1), to: sq(2), promote: Promote::No, keep: true },
            Move::Normal { from: sq(1), to: sq(2), promote: Promote::Flip, keep: false },
            Move::Normal { from: sq(1), to: sq(2), promote: Promote::To(0), keep: false },
            Move::Normal { from: sq(1), to: sq(2), promote: Promote::To(255), keep: false },
            Move::EnPassant { from: sq(1), to: sq(2), keep: false },
            Move::Chain { from: sq(1), to: sq(2), dirs: u32::MAX, meta: 0x8F },
            Move::Chain { from: sq(1), to: sq(2), dirs: u32::MAX - 1, meta: 0x8F },
            Move::PawnPair { first: (sq(1), sq(2)), second: (sq(3), sq(63)) },
            Move::PawnPair { first: (sq(1), sq(2)), second: (sq(3), sq(62)) },
            Move::Drop { piece: 1, to: sq(2) },
            Move::Grant { piece: 1, to: sq(2) },
        ];
        for a in &variants {
            for b in &variants {
                assert_eq!(a == b, a.code() == b.code(), "{a:?} {b:?}");
            }
        }
    }
}
