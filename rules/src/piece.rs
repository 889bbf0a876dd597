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
    // Construction with split powers (CS1): the moving halves of Rook,
    // Bishop, Knight and Pawn, then their capturing halves, in the order of
    // the full powers 1-4 (so a half maps to its full power by one shift).
    RookMove = 20,
    BishopMove = 21,
    KnightMove = 22,
    PawnMove = 23,
    RookTake = 24,
    BishopTake = 25,
    KnightTake = 26,
    PawnTake = 27,
}

/// Number of distinct powers.
pub(crate) const NUM_POWERS: usize = 28;
/// Powers before the halves (the Zobrist keys of these come first).
pub(crate) const NUM_WHOLE_POWERS: usize = 20;
/// The bits of Clash's powers (`Position::exotic_attacks`).
pub(crate) const EXOTIC_BITS: u32 = ((1 << NUM_WHOLE_POWERS) - 1) & !((1 << Power::Omni as u32) - 1);
/// First bit of the moving halves, and of the capturing halves.
const MOVE_SHIFT: u32 = Power::RookMove as u32 - Power::Rook as u32;
const TAKE_SHIFT: u32 = Power::RookTake as u32 - Power::Rook as u32;
/// The four full powers that split (Rook, Bishop, Knight, Pawn), as bits.
const SPLITTABLE: u32 = 0b11110;

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
    /// CS1: the Rook's moving half (slides onto empty squares only).
    pub const ROOK_MOVE: Powers = Powers(1 << Power::RookMove as u32);
    /// CS1: the Bishop's moving half.
    pub const BISHOP_MOVE: Powers = Powers(1 << Power::BishopMove as u32);
    /// CS1: the Knight's moving half.
    pub const KNIGHT_MOVE: Powers = Powers(1 << Power::KnightMove as u32);
    /// CS3: the Pawn's moving half (steps forward, twice from the first rank).
    pub const PAWN_MOVE: Powers = Powers(1 << Power::PawnMove as u32);
    /// CS1: the Rook's capturing half (captures along lines only).
    pub const ROOK_TAKE: Powers = Powers(1 << Power::RookTake as u32);
    /// CS1: the Bishop's capturing half.
    pub const BISHOP_TAKE: Powers = Powers(1 << Power::BishopTake as u32);
    /// CS1: the Knight's capturing half.
    pub const KNIGHT_TAKE: Powers = Powers(1 << Power::KnightTake as u32);
    /// CS3: the Pawn's capturing half (one step diagonally forward).
    pub const PAWN_TAKE: Powers = Powers(1 << Power::PawnTake as u32);
    /// Every half, moving and capturing.
    pub const HALVES: Powers = Powers(SPLITTABLE << MOVE_SHIFT | SPLITTABLE << TAKE_SHIFT);
    /// The Pawn power and both its halves: what promotion removes (C5, CS5).
    pub const PAWN_ANY: Powers = Powers(Self::PAWN.0 | Self::PAWN_MOVE.0 | Self::PAWN_TAKE.0);

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

    /// True if the set holds a half power (CS1).
    #[inline]
    pub const fn has_halves(self) -> bool {
        self.0 & Self::HALVES.0 != 0
    }

    /// How the set moves onto empty squares, halves read as their full
    /// powers: the full powers it holds and its moving halves (CS1).
    #[inline]
    pub const fn moving(self) -> Powers {
        Powers((self.0 & !Self::HALVES.0) | (self.0 >> MOVE_SHIFT & SPLITTABLE))
    }

    /// How the set captures and attacks, halves read as their full powers:
    /// the full powers it holds and its capturing halves (CS1, CS4).
    #[inline]
    pub const fn capturing(self) -> Powers {
        Powers((self.0 & !Self::HALVES.0) | (self.0 >> TAKE_SHIFT & SPLITTABLE))
    }

    /// The full power whose half `self` is (`self` itself if it is no half).
    pub const fn whole(self) -> Powers {
        Powers(self.moving().0 | self.capturing().0)
    }

    /// The moving half of each full power in `self` (CS1).
    pub const fn move_halves(self) -> Powers {
        Powers((self.0 & SPLITTABLE) << MOVE_SHIFT)
    }

    /// The capturing half of each full power in `self` (CS1).
    pub const fn take_halves(self) -> Powers {
        Powers((self.0 & SPLITTABLE) << TAKE_SHIFT)
    }

    /// Both halves of each full power in `self`, other powers unchanged:
    /// how `construction-split` holds a full power (CS2).
    pub const fn split(self) -> Powers {
        Powers((self.0 & !SPLITTABLE) | self.move_halves().0 | self.take_halves().0)
    }

    /// The set with each pair of halves of one kind written as the full
    /// power (CS2): the inverse of [`Powers::split`].
    pub const fn joined(self) -> Powers {
        let both = (self.0 >> MOVE_SHIFT) & (self.0 >> TAKE_SHIFT) & SPLITTABLE;
        Powers((self.0 & !(both << MOVE_SHIFT) & !(both << TAKE_SHIFT)) | both)
    }

    /// Number of powers in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline]
    pub(crate) const fn bits(self) -> u32 {
        self.0
    }

    /// The single powers of the set, as indices.
    #[inline]
    pub(crate) fn each(self) -> impl Iterator<Item = usize> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(i)
        })
    }
}

impl fmt::Debug for Powers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [&str; NUM_POWERS] = [
            "King",
            "Rook",
            "Bishop",
            "Knight",
            "Pawn",
            "Silver",
            "Gold",
            "Castle",
            "Omni",
            "Wazir",
            "Ferz",
            "Alfil",
            "Hawk",
            "Kite",
            "Machine",
            "Jester",
            "Rabbit",
            "Rogue",
            "Phoenix",
            "Shield",
            "RookMove",
            "BishopMove",
            "KnightMove",
            "PawnMove",
            "RookTake",
            "BishopTake",
            "KnightTake",
            "PawnTake",
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
