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
pub struct Powers(u32);

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
    // Clash of the Armies (CLASH.md).
    Omni = 8,
    Wazir = 9,
    Ferz = 10,
    Alfil = 11,
    Hawk = 12,
    Kite = 13,
    Machine = 14,
    Jester = 15,
    Rabbit = 16,
    Rogue = 17,
    Phoenix = 18,
    Shield = 19,
}

/// Number of distinct powers.
pub(crate) const NUM_POWERS: usize = 20;

impl Powers {
    /// No power at all: a piece that cannot move (Construction's static piece).
    pub const NONE: Powers = Powers(0);
    /// One step in any direction.
    pub const KING: Powers = Powers(1 << Power::King as u32);
    /// Any distance orthogonally.
    pub const ROOK: Powers = Powers(1 << Power::Rook as u32);
    /// Any distance diagonally.
    pub const BISHOP: Powers = Powers(1 << Power::Bishop as u32);
    /// The (1, 2) leap.
    pub const KNIGHT: Powers = Powers(1 << Power::Knight as u32);
    /// Forward steps and diagonal captures; details set by the variant.
    pub const PAWN: Powers = Powers(1 << Power::Pawn as u32);
    /// One step diagonally or straight forward (O2).
    pub const SILVER: Powers = Powers(1 << Power::Silver as u32);
    /// One step orthogonally or diagonally forward (O2).
    pub const GOLD: Powers = Powers(1 << Power::Gold as u32);
    /// Construction's Castling power (C6): swap places with the own King, once.
    pub const CASTLE: Powers = Powers(1 << Power::Castle as u32);
    /// Clash's Omnipawn: one step forward or diagonally forward, moving or
    /// capturing, with a peasant's double step (CA1).
    pub const OMNI: Powers = Powers(1 << Power::Omni as u32);
    /// One step orthogonally.
    pub const WAZIR: Powers = Powers(1 << Power::Wazir as u32);
    /// One step diagonally.
    pub const FERZ: Powers = Powers(1 << Power::Ferz as u32);
    /// The (2, 2) leap.
    pub const ALFIL: Powers = Powers(1 << Power::Alfil as u32);
    /// Clash's Hawk: leaps of exactly 2 or 3 in the eight directions (CA3).
    pub const HAWK: Powers = Powers(1 << Power::Hawk as u32);
    /// Clash's Kite: leaps of 1, 2 or 3 orthogonally (CA3).
    pub const KITE: Powers = Powers(1 << Power::Kite as u32);
    /// Clash's War Machine: 1-2 orthogonal slide, one diagonal step, shots (CA4).
    pub const MACHINE: Powers = Powers(1 << Power::Machine as u32);
    /// Clash's Jester: paths of 1-3 orthogonal steps (CA5).
    pub const JESTER: Powers = Powers(1 << Power::Jester as u32);
    /// Clash's Rabbit: short slides and chains of jumps (CA2).
    pub const RABBIT: Powers = Powers(1 << Power::Rabbit as u32);
    /// Clash's Rogue: 1-2 slide in any direction (CA6).
    pub const ROGUE: Powers = Powers(1 << Power::Rogue as u32);
    /// Clash's Phoenix: 1-4 slide in any direction; its captor dies (CA7).
    pub const PHOENIX: Powers = Powers(1 << Power::Phoenix as u32);
    /// Clash's Shielderer's shield (CA8).
    pub const SHIELD: Powers = Powers(1 << Power::Shield as u32);
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
    pub(crate) fn bits(self) -> u32 {
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
        const NAMES: [&str; NUM_POWERS] = [
            "King", "Rook", "Bishop", "Knight", "Pawn", "Silver", "Gold", "Castle", "Omni", "Wazir", "Ferz", "Alfil",
            "Hawk", "Kite", "Machine", "Jester", "Rabbit", "Rogue", "Phoenix", "Shield",
        ];
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
