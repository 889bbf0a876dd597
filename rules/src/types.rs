//! Small value types: colours, squares and bitboards.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A side. White starts on rank 1 and moves first (G1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Color {
    /// The side that moves first.
    White = 0,
    /// The side that moves second.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    #[inline]
    pub fn opposite(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `0` for White, `1` for Black.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The colour's name in lower case.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.opposite()
    }
}

/// A square of an 8x8 grid, `a1` = 0, `b1` = 1, ..., `h8` = 63.
///
/// Smaller boards use the lower-left part of the grid: on Olympic's 5x5 board
/// the squares run from `a1` to `e5`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Square(u8);

impl Square {
    /// The square with the given index (0..64).
    ///
    /// # Panics
    /// If `index >= 64`.
    #[inline]
    pub const fn new(index: u8) -> Square {
        assert!(index < 64);
        Square(index)
    }

    /// The square on `file` (0 = a) and `rank` (0 = 1), if both are below 8.
    #[inline]
    pub fn from_coords(file: u8, rank: u8) -> Option<Square> {
        (file < 8 && rank < 8).then(|| Square(rank * 8 + file))
    }

    /// Index 0..64.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// File, 0 = a.
    #[inline]
    pub fn file(self) -> u8 {
        self.0 & 7
    }

    /// Rank, 0 = rank 1.
    #[inline]
    pub fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The bitboard holding just this square.
    #[inline]
    pub fn bb(self) -> Bitboard {
        Bitboard(1 << self.0)
    }

    /// The square `dr` ranks and `df` files away, if still on the 8x8 grid.
    pub fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        ((0..8).contains(&f) && (0..8).contains(&r)).then(|| Square((r * 8 + f) as u8))
    }

    /// Parses `e4` (file letter, rank digit). Case-insensitive file letter.
    pub fn parse(text: &str) -> Option<Square> {
        let b = text.as_bytes();
        if b.len() != 2 {
            return None;
        }
        Square::from_bytes(b[0], b[1])
    }

    pub(crate) fn from_bytes(file: u8, rank: u8) -> Option<Square> {
        let f = file.to_ascii_lowercase().checked_sub(b'a')?;
        let r = rank.checked_sub(b'1')?;
        Square::from_coords(f, r)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, (b'1' + self.rank()) as char)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A set of squares, one bit per square.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// Every square of the 8x8 grid.
    pub const FULL: Bitboard = Bitboard(!0);

    /// The squares of a `width` x `height` board in the lower-left corner.
    pub fn board(width: u8, height: u8) -> Bitboard {
        let row = (1u64 << width) - 1;
        Bitboard((0..height).fold(0, |acc, r| acc | row << (8 * r)))
    }

    /// Every square of one rank of the 8x8 grid.
    #[inline]
    pub fn rank(rank: u8) -> Bitboard {
        Bitboard(0xff << (8 * rank))
    }

    /// Every square of one file.
    #[inline]
    pub fn file(file: u8) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << file)
    }

    /// True if no square is set.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if any square is set.
    #[inline]
    pub fn any(self) -> bool {
        self.0 != 0
    }

    /// True if `sq` is in the set.
    #[inline]
    pub fn has(self, sq: Square) -> bool {
        self.0 >> sq.0 & 1 != 0
    }

    /// Number of squares.
    #[inline]
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True if more than one square is set.
    #[inline]
    pub fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[inline]
    pub fn first(self) -> Option<Square> {
        (self.0 != 0).then(|| Square(self.0.trailing_zeros() as u8))
    }

    /// The set shifted `files` files to the east (negative: west). Squares
    /// that cross the a/h edge wrap to the next rank: mask them first.
    #[inline]
    pub fn shift(self, files: i8) -> Bitboard {
        if files >= 0 { Bitboard(self.0 << files) } else { Bitboard(self.0 >> -files) }
    }

    /// The set shifted one rank towards `color`'s opponent.
    #[inline]
    pub fn forward(self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard(self.0 << 8),
            Color::Black => Bitboard(self.0 >> 8),
        }
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square(self.0.trailing_zeros() as u8);
        self.0 &= self.0 - 1;
        Some(sq)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

macro_rules! bitops {
    ($($tr:ident $f:ident $atr:ident $af:ident $op:tt),*) => {$(
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard { Bitboard(self.0 $op rhs.0) }
        }
        impl $atr for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: Bitboard) { self.0 = self.0 $op rhs.0; }
        }
    )*};
}
bitops!(BitAnd bitand BitAndAssign bitand_assign &, BitOr bitor BitOrAssign bitor_assign |,
        BitXor bitxor BitXorAssign bitxor_assign ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in (0..8).rev() {
            for file in 0..8 {
                let c = if self.has(Square(r * 8 + file)) { 'x' } else { '.' };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
