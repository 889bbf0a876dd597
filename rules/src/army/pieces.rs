//! The pieces of Clash of the Armies: their five classes and the squares
//! each class may stand on (CA12), the 21 kinds with their letters, prices
//! and powers, and how a player names one of an army's pieces.

use std::fmt;

use super::ArmyError;
use crate::types::{Color, Square};

/// The five classes of pieces (the variant text; CA12 places and limits them).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceClass {
    /// Pawn, Omnipawn: the second rank, at most 8.
    Peasant,
    /// Knight, Bishop, Rabbit, Elephant, Waffle: b, c, f, g of the back rank,
    /// at most 4 and at most 2 of a kind.
    Light,
    /// Rook, Hawk, General, Kite, War Machine: the back rank's corners, at most 2.
    Heavy,
    /// Queen, Chancellor, Archbishop, Jester, Rogue, Phoenix, Amazon: the d
    /// file, at most 1.
    Jewel,
    /// King, Shielderer: the e file, exactly 1 to confirm.
    Leader,
}

impl PieceClass {
    /// All classes, from the Peasants up.
    pub const ALL: [PieceClass; 5] =
        [PieceClass::Peasant, PieceClass::Light, PieceClass::Heavy, PieceClass::Jewel, PieceClass::Leader];

    /// `"Peasant"`, `"Light"`, `"Heavy"`, `"Jewel"`, `"Leader"`.
    pub fn name(self) -> &'static str {
        match self {
            PieceClass::Peasant => "Peasant",
            PieceClass::Light => "Light",
            PieceClass::Heavy => "Heavy",
            PieceClass::Jewel => "Jewel",
            PieceClass::Leader => "Leader",
        }
    }

    /// How many pieces of this class an army may hold (CA12).
    pub fn limit(self) -> usize {
        match self {
            PieceClass::Peasant => 8,
            PieceClass::Light => 4,
            PieceClass::Heavy => 2,
            PieceClass::Jewel | PieceClass::Leader => 1,
        }
    }

    /// The squares where `color` places pieces of this class (CA12), in the
    /// order in which a bought piece without a square takes the first free one.
    pub fn squares(self, color: Color) -> Vec<Square> {
        let back = back_rank(color);
        let files: &[u8] = match self {
            PieceClass::Peasant => {
                return (0..8).filter_map(|f| Square::from_coords(f, peasant_rank(color))).collect();
            }
            PieceClass::Light => &[1, 2, 5, 6],
            PieceClass::Heavy => &[0, 7],
            PieceClass::Jewel => &[3],
            PieceClass::Leader => &[4],
        };
        files.iter().filter_map(|&f| Square::from_coords(f, back)).collect()
    }

    /// "2 Heavy pieces", "1 Jewel", "3 Peasants".
    pub(super) fn counted(self, n: usize) -> String {
        let name = match self {
            PieceClass::Light | PieceClass::Heavy => format!("{} piece", self.name()),
            _ => self.name().to_string(),
        };
        if n == 1 { format!("1 {name}") } else { format!("{n} {name}s") }
    }
}

impl fmt::Display for PieceClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The back rank of `color`: 0 (rank 1) for White, 7 (rank 8) for Black.
pub(super) fn back_rank(color: Color) -> u8 {
    match color {
        Color::White => 0,
        Color::Black => 7,
    }
}

/// The Peasants' rank of `color`: rank 2 for White, rank 7 for Black.
pub(super) fn peasant_rank(color: Color) -> u8 {
    match color {
        Color::White => 1,
        Color::Black => 6,
    }
}

/// `true` for a dark square (a1 is dark).
pub(super) fn is_dark(sq: Square) -> bool {
    (sq.file() + sq.rank()).is_multiple_of(2)
}

pub(super) fn shade(sq: Square) -> &'static str {
    if is_dark(sq) { "dark" } else { "light" }
}

/// The 21 pieces of Clash of the Armies, with the letters of `CLASH.md`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PieceKind {
    /// `P`, Peasant, 1.00.
    Pawn,
    /// `O`, Peasant, 2.00.
    Omnipawn,
    /// `N`, Light, 3.50.
    Knight,
    /// `B`, Light, 3.50.
    Bishop,
    /// `T`, Light, 4.50.
    Rabbit,
    /// `E`, Light, 4.50.
    Elephant,
    /// `W`, Light, 3.25.
    Waffle,
    /// `R`, Heavy, 5.50.
    Rook,
    /// `H`, Heavy, 6.00.
    Hawk,
    /// `G`, Heavy, 7.00.
    General,
    /// `Y`, Heavy, 5.50.
    Kite,
    /// `M`, Heavy, 6.00.
    WarMachine,
    /// `Q`, Jewel, 10.50.
    Queen,
    /// `C`, Jewel, 10.00.
    Chancellor,
    /// `A`, Jewel, 9.50.
    Archbishop,
    /// `J`, Jewel, 8.50.
    Jester,
    /// `V`, Jewel, 9.50.
    Rogue,
    /// `F`, Jewel, 11.00.
    Phoenix,
    /// `Z`, Jewel, not for sale: won at the ultimate round's auction (CA14).
    Amazon,
    /// `K`, Leader, 5.00.
    King,
    /// `S`, Leader, 5.00.
    Shielderer,
}

impl PieceKind {
    /// All 21 pieces, by class from the Peasants up.
    pub const ALL: [PieceKind; 21] = [
        PieceKind::Pawn,
        PieceKind::Omnipawn,
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rabbit,
        PieceKind::Elephant,
        PieceKind::Waffle,
        PieceKind::Rook,
        PieceKind::Hawk,
        PieceKind::General,
        PieceKind::Kite,
        PieceKind::WarMachine,
        PieceKind::Queen,
        PieceKind::Chancellor,
        PieceKind::Archbishop,
        PieceKind::Jester,
        PieceKind::Rogue,
        PieceKind::Phoenix,
        PieceKind::Amazon,
        PieceKind::King,
        PieceKind::Shielderer,
    ];

    /// The uppercase FEN letter (`CLASH.md`).
    pub fn letter(self) -> char {
        match self {
            PieceKind::Pawn => 'P',
            PieceKind::Omnipawn => 'O',
            PieceKind::Knight => 'N',
            PieceKind::Bishop => 'B',
            PieceKind::Rabbit => 'T',
            PieceKind::Elephant => 'E',
            PieceKind::Waffle => 'W',
            PieceKind::Rook => 'R',
            PieceKind::Hawk => 'H',
            PieceKind::General => 'G',
            PieceKind::Kite => 'Y',
            PieceKind::WarMachine => 'M',
            PieceKind::Queen => 'Q',
            PieceKind::Chancellor => 'C',
            PieceKind::Archbishop => 'A',
            PieceKind::Jester => 'J',
            PieceKind::Rogue => 'V',
            PieceKind::Phoenix => 'F',
            PieceKind::Amazon => 'Z',
            PieceKind::King => 'K',
            PieceKind::Shielderer => 'S',
        }
    }

    /// The piece's name: `"War Machine"`.
    pub fn name(self) -> &'static str {
        match self {
            PieceKind::Pawn => "Pawn",
            PieceKind::Omnipawn => "Omnipawn",
            PieceKind::Knight => "Knight",
            PieceKind::Bishop => "Bishop",
            PieceKind::Rabbit => "Rabbit",
            PieceKind::Elephant => "Elephant",
            PieceKind::Waffle => "Waffle",
            PieceKind::Rook => "Rook",
            PieceKind::Hawk => "Hawk",
            PieceKind::General => "General",
            PieceKind::Kite => "Kite",
            PieceKind::WarMachine => "War Machine",
            PieceKind::Queen => "Queen",
            PieceKind::Chancellor => "Chancellor",
            PieceKind::Archbishop => "Archbishop",
            PieceKind::Jester => "Jester",
            PieceKind::Rogue => "Rogue",
            PieceKind::Phoenix => "Phoenix",
            PieceKind::Amazon => "Amazon",
            PieceKind::King => "King",
            PieceKind::Shielderer => "Shielderer",
        }
    }

    /// The plural of [`name`](Self::name).
    pub fn plural(self) -> String {
        match self {
            PieceKind::Phoenix => "Phoenixes".to_string(),
            k => format!("{}s", k.name()),
        }
    }

    /// The piece's class.
    pub fn class(self) -> PieceClass {
        use PieceKind::*;
        match self {
            Pawn | Omnipawn => PieceClass::Peasant,
            Knight | Bishop | Rabbit | Elephant | Waffle => PieceClass::Light,
            Rook | Hawk | General | Kite | WarMachine => PieceClass::Heavy,
            Queen | Chancellor | Archbishop | Jester | Rogue | Phoenix | Amazon => PieceClass::Jewel,
            King | Shielderer => PieceClass::Leader,
        }
    }

    /// The price in quarters of gold (`CLASH.md`); `None` for the Amazon,
    /// which is auctioned (CA14).
    pub fn cost_quarters(self) -> Option<u32> {
        Some(match self {
            PieceKind::Pawn => 4,
            PieceKind::Omnipawn => 8,
            PieceKind::Knight | PieceKind::Bishop => 14,
            PieceKind::Rabbit | PieceKind::Elephant => 18,
            PieceKind::Waffle => 13,
            PieceKind::Rook | PieceKind::Kite => 22,
            PieceKind::Hawk | PieceKind::WarMachine => 24,
            PieceKind::General => 28,
            PieceKind::Queen => 42,
            PieceKind::Chancellor => 40,
            PieceKind::Archbishop | PieceKind::Rogue => 38,
            PieceKind::Jester => 34,
            PieceKind::Phoenix => 44,
            PieceKind::Amazon => return None,
            PieceKind::King | PieceKind::Shielderer => 20,
        })
    }

    /// How many of this very kind an army may hold, if less than its class
    /// allows: 2 for each Light piece (CA12).
    pub fn kind_limit(self) -> Option<usize> {
        (self.class() == PieceClass::Light).then_some(2)
    }

    /// The piece with this letter, either case.
    pub fn from_letter(letter: char) -> Option<PieceKind> {
        let up = letter.to_ascii_uppercase();
        PieceKind::ALL.into_iter().find(|k| k.letter() == up)
    }

    /// The piece with this name or letter, ignoring case, spaces, `-` and
    /// `_`: `"war machine"`, `"WarMachine"`, `"M"`, `"m"`.
    pub fn from_name(text: &str) -> Option<PieceKind> {
        let key: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
            .flat_map(char::to_lowercase)
            .collect();
        let mut chars = key.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return PieceKind::from_letter(c);
        }
        if key == "machine" {
            return Some(PieceKind::WarMachine);
        }
        PieceKind::ALL.into_iter().find(|k| k.name().replace(' ', "").to_lowercase() == key)
    }

    /// [`from_name`](Self::from_name), with an error to show the player.
    pub fn parse(text: &str) -> Result<PieceKind, ArmyError> {
        PieceKind::from_name(text).ok_or_else(|| ArmyError::UnknownPiece { name: text.trim().to_string() })
    }
}

impl fmt::Display for PieceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece of an army named by its square or by its kind (`place`, `sell`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PieceRef {
    /// The piece standing on this square.
    Square(Square),
    /// A piece of this kind: the one without a square if there is one,
    /// otherwise the only one of its kind.
    Kind(PieceKind),
}

impl PieceRef {
    /// A square (`b1`) or a piece name or letter (`Knight`, `war machine`).
    pub fn parse(text: &str) -> Result<PieceRef, ArmyError> {
        if let Some(sq) = Square::parse(text.trim()) {
            return Ok(PieceRef::Square(sq));
        }
        PieceKind::parse(text).map(PieceRef::Kind)
    }
}

impl From<Square> for PieceRef {
    fn from(sq: Square) -> PieceRef {
        PieceRef::Square(sq)
    }
}

impl From<PieceKind> for PieceRef {
    fn from(kind: PieceKind) -> PieceRef {
        PieceRef::Kind(kind)
    }
}
