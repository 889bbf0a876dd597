//! Pieces as sets of powers.
//!
//! A power is one way of moving (a rook's slide, a knight's leap, a pawn's
//! step). A piece is a colour, a set of powers and a few flags. A queen is the
//! union of the rook and bishop powers; Power Absorption's bishop-knight and
//! Construction's rook-pawn are unions in exactly the same way.

use std::fmt;

use crate::types::Color;

/// A set of movement powers.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Powers(u16);

/// One power: an index into the per-power tables of a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Power {
    King = 0,
    Rook = 1,
    Bishop = 2,
    Knight = 3,
    Pawn = 4,
    Silver = 5,
    Gold = 6,
    Castle = 7,
}

/// Number of distinct powers.
pub(crate) const NUM_POWERS: usize = 8;

impl Powers {
    /// No power at all: a piece that cannot move (Construction's static piece).
    pub const NONE: Powers = Powers(0);
    /// One step in any direction.
    pub const KING: Powers = Powers(1 << Power::King as u16);
    /// Any distance orthogonally.
    pub const ROOK: Powers = Powers(1 << Power::Rook as u16);
    /// Any distance diagonally.
    pub const BISHOP: Powers = Powers(1 << Power::Bishop as u16);
    /// The (1, 2) leap.
    pub const KNIGHT: Powers = Powers(1 << Power::Knight as u16);
    /// Forward steps and diagonal captures; details set by the variant.
    pub const PAWN: Powers = Powers(1 << Power::Pawn as u16);
    /// One step diagonally or straight forward (O2).
    pub const SILVER: Powers = Powers(1 << Power::Silver as u16);
    /// One step orthogonally or diagonally forward (O2).
    pub const GOLD: Powers = Powers(1 << Power::Gold as u16);
    /// Construction's Castling power (C6): swap places with the own King, once.
    pub const CASTLE: Powers = Powers(1 << Power::Castle as u16);
    /// Rook plus bishop.
    pub const QUEEN: Powers = Powers(Self::ROOK.0 | Self::BISHOP.0);

    /// The union of two sets.
    #[inline]
    pub const fn with(self, other: Powers) -> Powers {
        Powers(self.0 | other.0)
    }

    /// True if every power of `other` is in `self`.
    #[inline]
    pub const fn contains(self, other: Powers) -> bool {
        self.0 & other.0 == other.0
    }

    /// True if the sets share a power.
    #[inline]
    pub const fn intersects(self, other: Powers) -> bool {
        self.0 & other.0 != 0
    }

    /// True if the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Each power of the set on its own, in a fixed order (King, Rook,
    /// Bishop, Knight, Pawn, Silver, Gold, Castle).
    pub fn singles(self) -> impl Iterator<Item = Powers> {
        self.each().map(|i| Powers(1 << i))
    }

    /// The powers of `self` that `other` does not have.
    #[inline]
    pub const fn without(self, other: Powers) -> Powers {
        Powers(self.0 & !other.0)
    }

    /// Number of powers in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline]
    pub(crate) fn bits(self) -> u16 {
        self.0
    }

    /// The single powers of the set, as indices.
    pub(crate) fn each(self) -> impl Iterator<Item = usize> {
        let bits = self.0;
        (0..NUM_POWERS).filter(move |i| bits >> i & 1 != 0)
    }
}

impl fmt::Debug for Powers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [&str; NUM_POWERS] = ["King", "Rook", "Bishop", "Knight", "Pawn", "Silver", "Gold", "Castle"];
        let names: Vec<_> = self.each().map(|i| NAMES[i]).collect();
        write!(f, "{{{}}}", names.join("+"))
    }
}

/// A piece on the board or in hand.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Whose piece it is.
    pub color: Color,
    /// What it is made of. For a promoted piece these are the powers it had
    /// before promoting (it moves as the variant's promoted form and returns
    /// to these powers when captured, O3/O4).
    pub powers: Powers,
    /// A royal piece may not be left in check and its checkmate ends the game.
    pub royal: bool,
    /// Promoted in the shogi sense (`+P`, `+S` in FEN).
    pub promoted: bool,
}

impl Piece {
    /// A plain, unpromoted, non-royal piece.
    pub const fn new(color: Color, powers: Powers) -> Piece {
        Piece { color, powers, royal: false, promoted: false }
    }
}
