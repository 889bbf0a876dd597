//! The match of Clash of the Armies (`clash`): rounds, points, gold, armies,
//! survivors and the ultimate round's auction (rulings CA10-CA14).
//!
//! This module is the state machine around the rounds; the rounds themselves
//! are played by the rules engine from [`Match::start_fen`]. Everything here
//! is plain data (pub fields, `Debug + Clone + PartialEq + Eq`) so that a
//! storage layer can wrap it; nothing does I/O.
//!
//! Gold is kept in quarter units (CA11): `160` is 40 gold, `13` is 3.25.
//! Points are kept in half points (CA10): a win is `2`, a draw `1`.
//!
//! ```
//! use kibitz_rules::Color;
//! use kibitz_rules::army::{Match, Phase, PieceKind};
//!
//! let mut m = Match::new();
//! m.buy(Color::White, PieceKind::King, None).unwrap();
//! m.ready(Color::White).unwrap();
//! m.buy(Color::Black, PieceKind::Shielderer, None).unwrap();
//! m.ready(Color::Black).unwrap();
//! assert_eq!(m.phase(), Phase::Playing { round: 1 });
//! assert_eq!(m.start_fen(), "4s3/8/8/8/8/8/8/4K3 w d - 0 1");
//! ```

pub mod plan;

use std::fmt;

use thiserror::Error;

use crate::piece::Piece;
use crate::position::Position;
use crate::types::{Color, Square};

/// Gold each player gets before every round (CA11): 40 gold, in quarters.
pub const ROUND_GOLD: u32 = 160;
/// Gold per point added before the ultimate round (CA11): 10 gold per point,
/// in quarters per half point.
pub const ULTIMATE_GOLD_PER_HALF_POINT: u32 = 20;
/// The number of the ultimate round (CA10).
pub const ULTIMATE_ROUND: u8 = 3;
/// Half points that end the match at once (CA10): 2 points.
pub const WINNING_HALF_POINTS: u32 = 4;
/// A bid is a multiple of this many quarters (0.5 gold, CA14), and a raise adds it.
pub const BID_STEP: u32 = 2;

/// Writes quarters of gold with two decimals: `51` → `"12.75"`.
pub fn gold_text(quarters: u32) -> String {
    format!("{}.{:02}", quarters / 4, (quarters % 4) * 25)
}

/// Writes half points as points: `3` → `"1.5"`, `2` → `"1"`.
pub fn points_text(half_points: u32) -> String {
    if half_points.is_multiple_of(2) { format!("{}", half_points / 2) } else { format!("{}.5", half_points / 2) }
}

/// Reads an amount of gold written as a decimal number (`12`, `12.5`,
/// `12.75`, `12,5`) into quarters. Amounts that are not whole quarters are
/// refused.
pub fn parse_gold(text: &str) -> Result<u32, ArmyError> {
    let hundredths = parse_amount(text)?.ok_or_else(|| ArmyError::NotQuarters { text: text.trim().to_string() })?;
    if !hundredths.is_multiple_of(25) {
        return Err(ArmyError::NotQuarters { text: text.trim().to_string() });
    }
    Ok(hundredths / 25)
}

/// Reads a bid for the Amazon (CA14) into quarters: it must be a multiple of
/// 0.5, so `11.07` and `9.25` are refused.
pub fn parse_bid(text: &str) -> Result<u32, ArmyError> {
    let hundredths = parse_amount(text)?.ok_or_else(|| ArmyError::BidNotHalf { text: text.trim().to_string() })?;
    if !hundredths.is_multiple_of(50) {
        return Err(ArmyError::BidNotHalf { text: text.trim().to_string() });
    }
    Ok(hundredths / 25)
}

/// `"12.75"` → `Some(1275)` hundredths; `None` for a number finer than
/// hundredths (`11.071`); an error for what is not a number.
fn parse_amount(text: &str) -> Result<Option<u32>, ArmyError> {
    let bad = || ArmyError::BadAmount { text: text.trim().to_string() };
    let clean = text.trim().replace(',', ".");
    let (whole, frac) = clean.split_once('.').unwrap_or((clean.as_str(), ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && frac.is_empty()) || !digits(whole) || !digits(frac) || whole.len() > 6 {
        return Err(bad());
    }
    let whole: u32 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| bad())? };
    let frac = frac.trim_end_matches('0');
    if frac.len() > 2 {
        return Ok(None);
    }
    let cents: u32 = format!("{frac:0<2}").parse().map_err(|_| bad())?;
    Ok(Some(whole * 100 + cents))
}

// ---------------------------------------------------------------------------
// Pieces

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
    fn counted(self, n: usize) -> String {
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
fn back_rank(color: Color) -> u8 {
    match color {
        Color::White => 0,
        Color::Black => 7,
    }
}

/// The Peasants' rank of `color`: rank 2 for White, rank 7 for Black.
fn peasant_rank(color: Color) -> u8 {
    match color {
        Color::White => 1,
        Color::Black => 6,
    }
}

/// `true` for a dark square (a1 is dark).
fn is_dark(sq: Square) -> bool {
    (sq.file() + sq.rank()).is_multiple_of(2)
}

fn shade(sq: Square) -> &'static str {
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

// ---------------------------------------------------------------------------
// Errors

/// Why an action was refused. The `Display` text is a sentence for the player.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ArmyError {
    /// The army already holds as many pieces of this class as allowed (CA12).
    #[error("{}", class_full_text(*.class, *.count))]
    ClassFull {
        /// The class.
        class: PieceClass,
        /// How many the army holds.
        count: usize,
    },
    /// The army already holds 2 of this Light piece (CA12).
    #[error("You already have {count} {} (at most 2 of one kind of Light piece).", .kind.plural())]
    KindFull {
        /// The piece.
        kind: PieceKind,
        /// How many the army holds.
        count: usize,
    },
    /// The square is not one of the piece's class (CA12).
    #[error("{}", wrong_square_text(*.class, *.color, *.square))]
    WrongSquare {
        /// The class of the piece.
        class: PieceClass,
        /// Whose army.
        color: Color,
        /// The refused square.
        square: Square,
    },
    /// Another piece of the army stands there.
    #[error("{square} is already taken by your {kind}.")]
    SquareTaken {
        /// The square.
        square: Square,
        /// The piece on it.
        kind: PieceKind,
    },
    /// Two Bishops on squares of one colour (CA12).
    #[error(
        "Your two Bishops must stand on squares of opposite colours: {other} and {square} are both {} squares.",
        shade(*.square)
    )]
    BishopsSameColour {
        /// The refused square.
        square: Square,
        /// The other Bishop's square.
        other: Square,
    },
    /// No square of the class is free (or none suits a second Bishop).
    #[error("{}", no_free_square_text(*.kind, *.color))]
    NoFreeSquare {
        /// The piece.
        kind: PieceKind,
        /// Whose army.
        color: Color,
    },
    /// Not enough gold (CA11).
    #[error("That costs {} gold and you have {}.", gold_text(*.cost), gold_text(*.gold))]
    NotEnoughGold {
        /// The price, in quarters.
        cost: u32,
        /// The player's gold, in quarters.
        gold: u32,
    },
    /// The Amazon is only won at the auction (CA14).
    #[error("The Amazon is not for sale: it goes to the higher bidder in the ultimate round's auction.")]
    AmazonNotForSale,
    /// The Amazon won at the auction stays (CA14).
    #[error("The Amazon you won at the auction cannot be sold.")]
    AmazonNotSold,
    /// Nothing of the army on that square.
    #[error("You have no piece on {square}.")]
    NoPieceOn {
        /// The square.
        square: Square,
    },
    /// No piece of that kind in the army.
    #[error("You have no {kind}.")]
    NoPieceOfKind {
        /// The piece.
        kind: PieceKind,
    },
    /// Several pieces of that kind, all placed: a square is needed.
    #[error("You have more than one {kind} ({}): say which square.", squares_text(.squares))]
    AmbiguousKind {
        /// The piece.
        kind: PieceKind,
        /// Where they stand.
        squares: Vec<Square>,
    },
    /// An army needs its Leader to confirm (CA12).
    #[error("You need a Leader (a King or a Shielderer) before you can confirm.")]
    NoLeader,
    /// Survivors left the army over a class limit (CA13).
    #[error(
        "You have {} but an army may hold at most {}: sell {} before confirming.",
        .class.counted(*.count), .class.limit(), .count - .class.limit()
    )]
    OverClassLimit {
        /// The class.
        class: PieceClass,
        /// How many the army holds.
        count: usize,
    },
    /// Survivors left the army with 3 or more of a Light piece (CA13).
    #[error(
        "You have {count} {} but an army may hold at most 2 of one kind of Light piece: sell {} before confirming.",
        .kind.plural(), .count - 2
    )]
    OverKindLimit {
        /// The piece.
        kind: PieceKind,
        /// How many the army holds.
        count: usize,
    },
    /// A piece of the army has no square (CA13 survivors beyond the squares).
    #[error("Your {kind} has no square yet: place it or sell it before confirming.")]
    Unplaced {
        /// The piece.
        kind: PieceKind,
    },
    /// Black acts after White confirms (CA12).
    #[error("White sets up first: you can buy and place after White confirms.")]
    WaitForWhite,
    /// This player has confirmed already (CA12).
    #[error("You have already confirmed your army for this round.")]
    AlreadyConfirmed,
    /// The ultimate round's auction comes before the armies (CA14).
    #[error("The auction for the Amazon comes first.")]
    AuctionFirst,
    /// A round is being played.
    #[error("Round {round} is being played: armies change only between rounds.")]
    RoundInPlay {
        /// The round.
        round: u8,
    },
    /// The match is over.
    #[error("The match is over.")]
    MatchOver,
    /// There is no sealed bid to send now (CA14).
    #[error("There is no bid to send now: the auction is held only before the ultimate round.")]
    NotBidding,
    /// Each player sends one sealed bid (CA14).
    #[error("You have already sent your bid; wait for your opponent's.")]
    AlreadyBid,
    /// A bid must be a multiple of 0.5 (CA14).
    #[error("A bid must be a multiple of 0.5 (like 11 or 11.5), not {text}.")]
    BidNotHalf {
        /// The refused amount as given.
        text: String,
    },
    /// A bid above the bidder's gold (CA14).
    #[error("You cannot bid {} gold: you have {}.", gold_text(*.bid), gold_text(*.gold))]
    BidOverGold {
        /// The bid, in quarters.
        bid: u32,
        /// The bidder's gold, in quarters.
        gold: u32,
    },
    /// Not a number.
    #[error("\"{text}\" is not an amount of gold.")]
    BadAmount {
        /// The text.
        text: String,
    },
    /// Gold is counted in quarters.
    #[error("Gold comes in quarters (like 3.25 or 3.5), not {text}.")]
    NotQuarters {
        /// The text.
        text: String,
    },
    /// Nobody is raising (CA14).
    #[error("Nobody is raising the bid now.")]
    NotRaising,
    /// The other player raises or passes now (CA14).
    #[error("It is {}'s turn to raise or pass.", color_name(*.to_move))]
    NotYourRaise {
        /// Who raises or passes now.
        to_move: Color,
    },
    /// White passes before raising once after equal bids (CA14).
    #[error("After equal bids White must raise first (CA14): /raise.")]
    MustRaiseFirst,
    /// A raise beyond the raiser's gold (CA14).
    #[error("Raising to {} would cost more than your {} gold: you can only pass.", gold_text(*.to), gold_text(*.gold))]
    RaiseOverGold {
        /// The bid the raise would make, in quarters.
        to: u32,
        /// The raiser's gold, in quarters.
        gold: u32,
    },
    /// `end_round` outside a round.
    #[error("No round is being played.")]
    NoRoundInPlay,
    /// No draw by agreement in the ultimate round (CA14).
    #[error("No draw may be agreed in the ultimate round.")]
    DrawNotAllowed,
    /// A result whose winner does not fit its reason.
    #[error("{}", result_mismatch_text(*.reason, *.winner))]
    ResultMismatch {
        /// The reason given.
        reason: RoundEnd,
        /// The winner given.
        winner: Option<Color>,
    },
    /// A final board letter that names no Clash piece.
    #[error("'{letter}' is not a Clash of the Armies piece letter.")]
    UnknownLetter {
        /// The letter.
        letter: char,
    },
    /// A name that names no Clash piece.
    #[error("There is no piece called \"{name}\" in Clash of the Armies.")]
    UnknownPiece {
        /// The name.
        name: String,
    },
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn class_full_text(class: PieceClass, count: usize) -> String {
    if count > class.limit() {
        format!("You already have {} (an army may hold at most {}).", class.counted(count), class.limit())
    } else {
        format!("You already have {} (the most an army may hold).", class.counted(count))
    }
}

fn wrong_square_text(class: PieceClass, color: Color, square: Square) -> String {
    let sq = |f| Square::from_coords(f, back_rank(color)).map(|s| s.to_string()).unwrap_or_default();
    match class {
        PieceClass::Peasant => {
            format!("A Peasant stands on your second rank (rank {}), not on {square}.", peasant_rank(color) + 1)
        }
        PieceClass::Light => format!("A Light piece stands on b, c, f or g of your back rank, not on {square}."),
        PieceClass::Heavy => {
            format!("A Heavy piece stands on a corner of your back rank ({} or {}), not on {square}.", sq(0), sq(7))
        }
        PieceClass::Jewel => format!("The Jewel stands on {}, not on {square}.", sq(3)),
        PieceClass::Leader => format!("The Leader stands on {}, not on {square}.", sq(4)),
    }
}

fn no_free_square_text(kind: PieceKind, color: Color) -> String {
    let squares = squares_text(&kind.class().squares(color));
    if kind == PieceKind::Bishop {
        format!(
            "There is no free square for the Bishop: of {squares}, none is free and of the other colour from your Bishop."
        )
    } else {
        format!("There is no free square for the {kind}: {squares} are taken.")
    }
}

fn squares_text(squares: &[Square]) -> String {
    squares.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
}

fn result_mismatch_text(reason: RoundEnd, winner: Option<Color>) -> String {
    match winner {
        None => format!("A round ended by {reason} has a winner."),
        Some(_) => format!("A round ended by {reason} is a draw."),
    }
}

// ---------------------------------------------------------------------------
// Armies

/// One piece of an army: its kind and its square, if it has one (survivors
/// beyond their class's squares have none until the player sells, CA13).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArmyPiece {
    /// The piece.
    pub kind: PieceKind,
    /// Its square on the board (White on ranks 1-2, Black on ranks 8-7).
    pub square: Option<Square>,
}

/// A player's army between rounds (CA12, CA13).
///
/// Squares are board squares: White's pieces on ranks 1 and 2, Black's on
/// ranks 8 and 7. `pieces` is kept sorted: placed pieces by square, then the
/// pieces without a square by kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Army {
    /// Whose army.
    pub color: Color,
    /// The pieces.
    pub pieces: Vec<ArmyPiece>,
}

impl Army {
    /// An empty army.
    pub fn new(color: Color) -> Army {
        Army { color, pieces: Vec::new() }
    }

    /// Number of pieces.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// No pieces at all.
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// The piece on `square`.
    pub fn kind_at(&self, square: Square) -> Option<PieceKind> {
        self.pieces.iter().find(|p| p.square == Some(square)).map(|p| p.kind)
    }

    /// The placed pieces with their squares.
    pub fn placed(&self) -> impl Iterator<Item = (Square, PieceKind)> + '_ {
        self.pieces.iter().filter_map(|p| p.square.map(|s| (s, p.kind)))
    }

    /// The pieces without a square.
    pub fn unplaced(&self) -> impl Iterator<Item = PieceKind> + '_ {
        self.pieces.iter().filter(|p| p.square.is_none()).map(|p| p.kind)
    }

    /// How many pieces of `class` the army holds (placed or not).
    pub fn count_class(&self, class: PieceClass) -> usize {
        self.pieces.iter().filter(|p| p.kind.class() == class).count()
    }

    /// How many pieces of `kind` the army holds (placed or not).
    pub fn count_kind(&self, kind: PieceKind) -> usize {
        self.pieces.iter().filter(|p| p.kind == kind).count()
    }

    /// The Leader, if any.
    pub fn leader(&self) -> Option<PieceKind> {
        self.pieces.iter().map(|p| p.kind).find(|k| k.class() == PieceClass::Leader)
    }

    /// The Jewel, if any.
    pub fn jewel(&self) -> Option<PieceKind> {
        self.pieces.iter().map(|p| p.kind).find(|k| k.class() == PieceClass::Jewel)
    }

    /// What the army would fetch if sold (the Amazon counts nothing).
    pub fn value_quarters(&self) -> u32 {
        self.pieces.iter().filter_map(|p| p.kind.cost_quarters()).sum()
    }

    /// Whether one more `kind` keeps the army within CA12's limits.
    pub fn room_for(&self, kind: PieceKind) -> Result<(), ArmyError> {
        let class = kind.class();
        let count = self.count_class(class);
        if count >= class.limit() {
            return Err(ArmyError::ClassFull { class, count });
        }
        if let Some(limit) = kind.kind_limit() {
            let count = self.count_kind(kind);
            if count >= limit {
                return Err(ArmyError::KindFull { kind, count });
            }
        }
        Ok(())
    }

    /// Whether `kind` may stand on `square` (CA12): a square of its class,
    /// free, and for a Bishop of the other colour from the other Bishop.
    /// `moving_from` is the square the piece leaves, if it is already placed.
    pub fn check_square(&self, kind: PieceKind, square: Square, moving_from: Option<Square>) -> Result<(), ArmyError> {
        let class = kind.class();
        if !class.squares(self.color).contains(&square) {
            return Err(ArmyError::WrongSquare { class, color: self.color, square });
        }
        if Some(square) != moving_from
            && let Some(other) = self.kind_at(square)
        {
            return Err(ArmyError::SquareTaken { square, kind: other });
        }
        if kind == PieceKind::Bishop {
            let clash = self
                .placed()
                .find(|&(s, k)| k == PieceKind::Bishop && Some(s) != moving_from && is_dark(s) == is_dark(square));
            if let Some((other, _)) = clash {
                return Err(ArmyError::BishopsSameColour { square, other });
            }
        }
        Ok(())
    }

    /// The first square where a new `kind` may stand, in the order of
    /// [`PieceClass::squares`].
    pub fn first_free_square(&self, kind: PieceKind) -> Option<Square> {
        kind.class().squares(self.color).into_iter().find(|&s| self.check_square(kind, s, None).is_ok())
    }

    /// Adds a `kind` on `square`, or on the first free square of its class:
    /// refused over the limits or on a wrong square. Returns the square.
    pub fn add(&mut self, kind: PieceKind, square: Option<Square>) -> Result<Square, ArmyError> {
        self.room_for(kind)?;
        let square = match square {
            Some(s) => {
                self.check_square(kind, s, None)?;
                s
            }
            None => self.first_free_square(kind).ok_or(ArmyError::NoFreeSquare { kind, color: self.color })?,
        };
        self.pieces.push(ArmyPiece { kind, square: Some(square) });
        self.normalize();
        Ok(square)
    }

    /// The index of the piece `what` names.
    fn find(&self, what: PieceRef) -> Result<usize, ArmyError> {
        match what {
            PieceRef::Square(square) => {
                self.pieces.iter().position(|p| p.square == Some(square)).ok_or(ArmyError::NoPieceOn { square })
            }
            PieceRef::Kind(kind) => {
                if let Some(i) = self.pieces.iter().position(|p| p.kind == kind && p.square.is_none()) {
                    return Ok(i);
                }
                let all: Vec<usize> = (0..self.pieces.len()).filter(|&i| self.pieces[i].kind == kind).collect();
                match all[..] {
                    [] => Err(ArmyError::NoPieceOfKind { kind }),
                    [i] => Ok(i),
                    _ => Err(ArmyError::AmbiguousKind {
                        kind,
                        squares: all.iter().filter_map(|&i| self.pieces[i].square).collect(),
                    }),
                }
            }
        }
    }

    /// Takes the piece `what` names out of the army.
    pub fn remove(&mut self, what: PieceRef) -> Result<PieceKind, ArmyError> {
        let i = self.find(what)?;
        Ok(self.pieces.remove(i).kind)
    }

    /// Moves the piece `what` names (placed or not) to `to`, a legal free
    /// square of its class.
    pub fn relocate(&mut self, what: PieceRef, to: Square) -> Result<(), ArmyError> {
        let i = self.find(what)?;
        let piece = self.pieces[i];
        self.check_square(piece.kind, to, piece.square)?;
        self.pieces[i].square = Some(to);
        self.normalize();
        Ok(())
    }

    /// Everything that stops the army from being confirmed (CA12, CA13):
    /// classes or kinds over their limits, pieces without a square, two
    /// Bishops on one colour, no Leader. Empty when the army may go.
    pub fn problems(&self) -> Vec<ArmyError> {
        let mut out = Vec::new();
        for class in PieceClass::ALL.into_iter().rev() {
            let count = self.count_class(class);
            if count > class.limit() {
                out.push(ArmyError::OverClassLimit { class, count });
            }
        }
        for kind in PieceKind::ALL {
            if let Some(limit) = kind.kind_limit() {
                let count = self.count_kind(kind);
                if count > limit {
                    out.push(ArmyError::OverKindLimit { kind, count });
                }
            }
        }
        for kind in self.unplaced() {
            out.push(ArmyError::Unplaced { kind });
        }
        let bishops: Vec<Square> = self.placed().filter(|&(_, k)| k == PieceKind::Bishop).map(|(s, _)| s).collect();
        if let [a, b] = bishops[..]
            && is_dark(a) == is_dark(b)
        {
            out.push(ArmyError::BishopsSameColour { square: b, other: a });
        }
        if self.leader().is_none() {
            out.push(ArmyError::NoLeader);
        }
        out
    }

    /// `Ok` if the army may be confirmed, else its first problem.
    pub fn check_ready(&self) -> Result<(), ArmyError> {
        match self.problems().into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The army after a round (CA13): `survivors` are the pieces left on the
    /// board with their final squares (promoted pieces as what they became).
    ///
    /// Each survivor takes back a square its kind had in `previous`, the
    /// nearest to where it ended (by file first: a Pawn that went e2-e4 goes
    /// back to e2). The others (promoted pieces) take the free square of
    /// their class nearest to their file while the army stays within its
    /// limits, and stay without a square otherwise, to be sold (or placed)
    /// before the army can be confirmed.
    pub fn from_survivors(previous: &Army, survivors: &[(Square, PieceKind)]) -> Army {
        let distance =
            |a: Square, b: Square| 8 * a.file().abs_diff(b.file()) as usize + a.rank().abs_diff(b.rank()) as usize;
        let homes: Vec<(Square, PieceKind)> = previous.placed().collect();
        let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
        for (i, &(at, kind)) in survivors.iter().enumerate() {
            for (j, &(home, k)) in homes.iter().enumerate() {
                if k == kind {
                    pairs.push((distance(at, home), i, j));
                }
            }
        }
        pairs.sort_unstable();
        let mut survivor_done = vec![false; survivors.len()];
        let mut home_taken = vec![false; homes.len()];
        let mut army = Army::new(previous.color);
        for (_, i, j) in pairs {
            if !survivor_done[i] && !home_taken[j] {
                survivor_done[i] = true;
                home_taken[j] = true;
                army.pieces.push(ArmyPiece { kind: homes[j].1, square: Some(homes[j].0) });
            }
        }
        let mut rest: Vec<(PieceKind, Square)> =
            survivors.iter().zip(&survivor_done).filter(|(_, done)| !**done).map(|(&(s, k), _)| (k, s)).collect();
        rest.sort_unstable();
        for (kind, at) in rest {
            let mut squares = kind.class().squares(army.color);
            squares.sort_by_key(|s| (s.file().abs_diff(at.file()), s.file()));
            let square = match army.room_for(kind) {
                Ok(()) => squares.into_iter().find(|&s| army.check_square(kind, s, None).is_ok()),
                Err(_) => None,
            };
            army.pieces.push(ArmyPiece { kind, square });
        }
        army.normalize();
        army
    }

    fn normalize(&mut self) {
        self.pieces.sort_by_key(|p| (p.square.map_or(64, |s| s.index()), p.kind));
    }

    /// The army for the player: `"King e1, Rook a1, Knight b1, Pawn e2"`
    /// (back rank first), then the pieces without a square; `"no pieces"`
    /// when empty.
    pub fn describe(&self) -> String {
        if self.pieces.is_empty() {
            return "no pieces".to_string();
        }
        let mut placed: Vec<(Square, PieceKind)> = self.placed().collect();
        let back = back_rank(self.color);
        placed.sort_by_key(|&(s, k)| (s.rank() != back, std::cmp::Reverse(k.class()), s.file()));
        let mut parts: Vec<String> = placed.iter().map(|(s, k)| format!("{k} {s}")).collect();
        parts.extend(self.unplaced().map(|k| format!("{k} (no square)")));
        parts.join(", ")
    }
}

// ---------------------------------------------------------------------------
// The match

/// How a round ended (the reasons the rules engine reports, G4, CA10).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RoundEnd {
    /// The loser's Leader was checkmated: the loser loses the Leader (CA13).
    Checkmate,
    /// A player ran out of time: the loser loses the Leader (CA13). May also
    /// be a draw when the winner could not have mated (FIDE).
    Time,
    /// The loser resigned and loses the whole army (CA13).
    Resignation,
    /// Draw.
    Stalemate,
    /// Draw by threefold repetition.
    Repetition,
    /// Draw by the fifty-move rule.
    FiftyMoves,
    /// Draw agreed (not in the ultimate round, CA14).
    Agreement,
}

impl fmt::Display for RoundEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RoundEnd::Checkmate => "checkmate",
            RoundEnd::Time => "time",
            RoundEnd::Resignation => "resignation",
            RoundEnd::Stalemate => "stalemate",
            RoundEnd::Repetition => "repetition",
            RoundEnd::FiftyMoves => "the fifty-move rule",
            RoundEnd::Agreement => "agreement",
        })
    }
}

/// The result of one round.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RoundResult {
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    /// Why the round ended.
    pub reason: RoundEnd,
}

impl RoundResult {
    /// `winner` won by `reason`.
    pub fn win(winner: Color, reason: RoundEnd) -> RoundResult {
        RoundResult { winner: Some(winner), reason }
    }

    /// A draw by `reason`.
    pub fn draw(reason: RoundEnd) -> RoundResult {
        RoundResult { winner: None, reason }
    }
}

/// A finished round.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RoundRecord {
    /// 1, 2 or 3.
    pub round: u8,
    /// The result as played.
    pub result: RoundResult,
    /// The winner as scored: for a draw in the ultimate round, the holder of
    /// the draw odds (CA14).
    pub scored_winner: Option<Color>,
}

/// Where the match stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Phase {
    /// Before the ultimate round: both send sealed bids for the Amazon (CA14).
    Bidding,
    /// Equal bids: `to_move` raises by 0.5 or passes (CA14).
    Raising {
        /// Who raises or passes now.
        to_move: Color,
    },
    /// `color` buys, sells and places, then confirms (CA12).
    Army {
        /// Whose army phase.
        color: Color,
    },
    /// The round is being played.
    Playing {
        /// Which round.
        round: u8,
    },
    /// The match is over (CA10).
    Over {
        /// The match's winner.
        winner: Color,
    },
}

/// The ultimate round's auction for the Amazon (CA14).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Auction {
    /// The sealed bids, in quarters, indexed by colour. Secret until both
    /// are in: show only a player's own.
    pub bids: [Option<u32>; 2],
    /// After equal bids: the bid standing, in quarters.
    pub standing: Option<u32>,
    /// After equal bids: the raises made, in order.
    pub raises: Vec<Color>,
    /// Who won the Amazon.
    pub winner: Option<Color>,
    /// What the winner paid, in quarters.
    pub price: u32,
    /// The player who could not afford to raise and so passed (CA14).
    #[cfg_attr(feature = "serde", serde(default))]
    pub unaffordable: Option<Color>,
}

impl Auction {
    /// Whether `color`, to raise or pass now, must raise: after equal bids
    /// White raises first (CA14, "White Must Increase The Bid First").
    pub fn must_raise(&self, color: Color) -> bool {
        color == Color::White && self.standing.is_some() && self.raises.is_empty()
    }
}

/// A match of Clash of the Armies (CA10-CA14).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Match {
    /// The current round (1, 2 or 3 = ultimate), or the last one played
    /// when the match is over.
    pub round: u8,
    /// Where the match stands; see [`Match::phase`].
    pub phase: Phase,
    /// Points in half points, indexed by colour (CA10).
    pub half_points: [u32; 2],
    /// Gold in quarters, indexed by colour (CA11).
    pub gold: [u32; 2],
    /// The armies, indexed by colour.
    pub armies: [Army; 2],
    /// The auction, once the ultimate round is reached (CA14).
    pub auction: Option<Auction>,
    /// Who has draw odds in the ultimate round (CA14).
    pub draw_odds: Option<Color>,
    /// The rounds played.
    pub history: Vec<RoundRecord>,
}

impl Default for Match {
    fn default() -> Match {
        Match::new()
    }
}

impl Match {
    /// A new match: round 1, 40 gold each, empty armies, White's army phase.
    pub fn new() -> Match {
        Match {
            round: 1,
            phase: Phase::Army { color: Color::White },
            half_points: [0, 0],
            gold: [ROUND_GOLD, ROUND_GOLD],
            armies: [Army::new(Color::White), Army::new(Color::Black)],
            auction: None,
            draw_odds: None,
            history: Vec::new(),
        }
    }

    /// Where the match stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the current round is the ultimate one.
    pub fn is_ultimate(&self) -> bool {
        self.round == ULTIMATE_ROUND
    }

    /// `color`'s gold in quarters.
    pub fn gold(&self, color: Color) -> u32 {
        self.gold[color.index()]
    }

    /// `color`'s points in half points.
    pub fn half_points(&self, color: Color) -> u32 {
        self.half_points[color.index()]
    }

    /// `color`'s army.
    pub fn army(&self, color: Color) -> &Army {
        &self.armies[color.index()]
    }

    /// The match's winner, once it is over.
    pub fn winner(&self) -> Option<Color> {
        match self.phase {
            Phase::Over { winner } => Some(winner),
            _ => None,
        }
    }

    /// Whether the players may agree a draw now: while a round other than
    /// the ultimate one is played (CA14).
    pub fn draw_allowed(&self) -> bool {
        matches!(self.phase, Phase::Playing { round } if round != ULTIMATE_ROUND)
    }

    /// Refuses army actions by `color` outside its army phase (CA12).
    fn army_turn(&self, color: Color) -> Result<(), ArmyError> {
        match self.phase {
            Phase::Army { color: c } if c == color => Ok(()),
            Phase::Army { color: Color::White } => Err(ArmyError::WaitForWhite),
            Phase::Army { color: Color::Black } => Err(ArmyError::AlreadyConfirmed),
            Phase::Bidding | Phase::Raising { .. } => Err(ArmyError::AuctionFirst),
            Phase::Playing { round } => Err(ArmyError::RoundInPlay { round }),
            Phase::Over { .. } => Err(ArmyError::MatchOver),
        }
    }

    /// `color` buys a `kind` (CA12) and places it on `square`, or on the
    /// first free square of its class when `None`. Returns the square.
    pub fn buy(&mut self, color: Color, kind: PieceKind, square: Option<Square>) -> Result<Square, ArmyError> {
        self.army_turn(color)?;
        let cost = kind.cost_quarters().ok_or(ArmyError::AmazonNotForSale)?;
        let army = &self.armies[color.index()];
        army.room_for(kind)?;
        match square {
            Some(s) => army.check_square(kind, s, None)?,
            None => {
                army.first_free_square(kind).ok_or(ArmyError::NoFreeSquare { kind, color })?;
            }
        }
        let gold = self.gold[color.index()];
        if cost > gold {
            return Err(ArmyError::NotEnoughGold { cost, gold });
        }
        let square = self.armies[color.index()].add(kind, square)?;
        self.gold[color.index()] -= cost;
        Ok(square)
    }

    /// `color` sells a piece at its full price (CA12); returns the refund in
    /// quarters. `what` is a square or a kind (a kind sells the piece of that
    /// kind without a square first).
    pub fn sell(&mut self, color: Color, what: impl Into<PieceRef>) -> Result<u32, ArmyError> {
        self.army_turn(color)?;
        let army = &mut self.armies[color.index()];
        let i = army.find(what.into())?;
        let refund = army.pieces[i].kind.cost_quarters().ok_or(ArmyError::AmazonNotSold)?;
        army.pieces.remove(i);
        self.gold[color.index()] += refund;
        Ok(refund)
    }

    /// `color` moves a piece of its army (named by square or kind) to
    /// another free square of its class (CA12).
    pub fn place(&mut self, color: Color, what: impl Into<PieceRef>, to: Square) -> Result<(), ArmyError> {
        self.army_turn(color)?;
        self.armies[color.index()].relocate(what.into(), to)
    }

    /// `color` confirms its army (CA12): White hands over to Black, Black's
    /// confirmation starts the round. Refused while the army has a problem
    /// (no Leader, over its limits, a piece without a square).
    pub fn ready(&mut self, color: Color) -> Result<(), ArmyError> {
        self.army_turn(color)?;
        self.armies[color.index()].check_ready()?;
        self.phase = match color {
            Color::White => Phase::Army { color: Color::Black },
            Color::Black => Phase::Playing { round: self.round },
        };
        Ok(())
    }

    /// `color` sends a sealed bid for the Amazon (CA14), in quarters: a
    /// multiple of 2 (0.5 gold), at most the bidder's gold. When both bids
    /// are in, the higher bidder pays and takes the Amazon; equal bids start
    /// the raising, White first.
    pub fn bid(&mut self, color: Color, quarters: u32) -> Result<(), ArmyError> {
        if self.phase != Phase::Bidding {
            return Err(match self.phase {
                Phase::Over { .. } => ArmyError::MatchOver,
                _ => ArmyError::NotBidding,
            });
        }
        let auction = self.auction.get_or_insert_with(Auction::default);
        if auction.bids[color.index()].is_some() {
            return Err(ArmyError::AlreadyBid);
        }
        if !quarters.is_multiple_of(BID_STEP) {
            return Err(ArmyError::BidNotHalf { text: gold_text(quarters) });
        }
        let gold = self.gold[color.index()];
        if quarters > gold {
            return Err(ArmyError::BidOverGold { bid: quarters, gold });
        }
        auction.bids[color.index()] = Some(quarters);
        if let [Some(w), Some(b)] = auction.bids {
            match w.cmp(&b) {
                std::cmp::Ordering::Greater => self.award(Color::White, w),
                std::cmp::Ordering::Less => self.award(Color::Black, b),
                std::cmp::Ordering::Equal => {
                    auction.standing = Some(w);
                    self.raising(Color::White, w);
                }
            }
        }
        Ok(())
    }

    fn raising_turn(&self, color: Color) -> Result<u32, ArmyError> {
        match self.phase {
            Phase::Raising { to_move } if to_move == color => {
                Ok(self.auction.as_ref().and_then(|a| a.standing).unwrap_or(0))
            }
            Phase::Raising { to_move } => Err(ArmyError::NotYourRaise { to_move }),
            Phase::Over { .. } => Err(ArmyError::MatchOver),
            _ => Err(ArmyError::NotRaising),
        }
    }

    /// After equal bids, `color` raises the bid by 0.5 (CA14); refused
    /// beyond its gold.
    pub fn raise(&mut self, color: Color) -> Result<(), ArmyError> {
        let to = self.raising_turn(color)? + BID_STEP;
        let gold = self.gold[color.index()];
        if to > gold {
            return Err(ArmyError::RaiseOverGold { to, gold });
        }
        let auction = self.auction.get_or_insert_with(Auction::default);
        auction.standing = Some(to);
        auction.raises.push(color);
        self.raising(!color, to);
        Ok(())
    }

    /// After equal bids, `color` passes and loses the auction (CA14): the
    /// other player pays the standing bid and takes the Amazon. White may
    /// not pass before its first raise.
    pub fn pass(&mut self, color: Color) -> Result<(), ArmyError> {
        let standing = self.raising_turn(color)?;
        if self.auction.as_ref().is_some_and(|a| a.must_raise(color)) {
            return Err(ArmyError::MustRaiseFirst);
        }
        self.award(!color, standing);
        Ok(())
    }

    /// `to_move` is to raise the `standing` bid or pass (CA14); one who
    /// cannot afford a raise passes at once, and the other takes the Amazon.
    fn raising(&mut self, to_move: Color, standing: u32) {
        if standing + BID_STEP > self.gold[to_move.index()] {
            self.auction.get_or_insert_with(Auction::default).unaffordable = Some(to_move);
            self.award(!to_move, standing);
        } else {
            self.phase = Phase::Raising { to_move };
        }
    }

    /// `winner` pays `price` and takes the Amazon as Jewel, with any Jewel
    /// it owned refunded; the other gets draw odds (CA14).
    fn award(&mut self, winner: Color, price: u32) {
        let i = winner.index();
        self.gold[i] -= price;
        let army = &mut self.armies[i];
        let refund: u32 = army
            .pieces
            .iter()
            .filter(|p| p.kind.class() == PieceClass::Jewel)
            .filter_map(|p| p.kind.cost_quarters())
            .sum();
        army.pieces.retain(|p| p.kind.class() != PieceClass::Jewel);
        let square = PieceClass::Jewel.squares(winner)[0];
        army.pieces.push(ArmyPiece { kind: PieceKind::Amazon, square: Some(square) });
        army.normalize();
        self.gold[i] += refund;
        let auction = self.auction.get_or_insert_with(Auction::default);
        auction.winner = Some(winner);
        auction.price = price;
        self.draw_odds = Some(!winner);
        self.phase = Phase::Army { color: Color::White };
    }

    /// The start position of the round (`CLASH.md`): both armies, White to
    /// move, castling `K`/`Q` for a King on e1 with a Heavy piece on h1/a1
    /// (`k`/`q` for Black), `D`/`d` for a Shielderer (its shield is new each
    /// round), no en passant square, `0 1`.
    pub fn start_fen(&self) -> String {
        let mut board: [Option<(Color, PieceKind)>; 64] = [None; 64];
        for army in &self.armies {
            for (s, k) in army.placed() {
                board[s.index()] = Some((army.color, k));
            }
        }
        let mut rows = Vec::with_capacity(8);
        for rank in (0..8u8).rev() {
            let mut row = String::new();
            let mut empty = 0;
            for file in 0..8u8 {
                match board[usize::from(rank * 8 + file)] {
                    None => empty += 1,
                    Some((c, k)) => {
                        if empty > 0 {
                            row.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        row.push(if c == Color::White { k.letter() } else { k.letter().to_ascii_lowercase() });
                    }
                }
            }
            if empty > 0 {
                row.push(char::from(b'0' + empty));
            }
            rows.push(row);
        }
        let mut rights = String::new();
        for army in &self.armies {
            let back = back_rank(army.color);
            let at = |f| Square::from_coords(f, back).and_then(|s| army.kind_at(s));
            let heavy = |f| at(f).is_some_and(|k: PieceKind| k.class() == PieceClass::Heavy);
            let mut field = String::new();
            if at(4) == Some(PieceKind::King) {
                if heavy(7) {
                    field.push('K');
                }
                if heavy(0) {
                    field.push('Q');
                }
            }
            if army.leader() == Some(PieceKind::Shielderer) {
                field.push('D');
            }
            if army.color == Color::Black {
                field = field.to_ascii_lowercase();
            }
            rights.push_str(&field);
        }
        if rights.is_empty() {
            rights.push('-');
        }
        format!("{} w {rights} - 0 1", rows.join("/"))
    }

    /// The armies on the board as [`start_fen`](Self::start_fen) places
    /// them, for a picture. Unlike [`Position::from_fen`] this checks
    /// nothing, so it also shows armies that cannot start a round yet (a
    /// side without its Leader); it is not meant to be played from.
    pub fn board_position(&self) -> Position {
        let variant = &crate::variant::CLASH;
        let mut pos = Position::empty(variant);
        for army in &self.armies {
            for (square, kind) in army.placed() {
                if let Some(i) = variant.piece_index(kind.letter()) {
                    let pt = variant.pieces[usize::from(i)];
                    let piece = Piece { color: army.color, powers: pt.powers, royal: pt.royal, promoted: false };
                    pos.put(square, piece);
                }
            }
        }
        pos.hash = pos.compute_hash();
        pos
    }

    /// Ends the round being played (CA10, CA13): scores it, keeps the
    /// survivors listed in `final_board` (square, colour, letter as in
    /// `CLASH.md`, promoted pieces by their new letter), takes the Leader of
    /// a player checkmated or out of time and the whole army of a player
    /// who resigned, then ends the match or deals the next round's gold
    /// (CA11) and opens its auction (CA14) or army phase (CA12).
    pub fn end_round(&mut self, result: RoundResult, final_board: &[(Square, Color, char)]) -> Result<(), ArmyError> {
        let round = match self.phase {
            Phase::Playing { round } => round,
            Phase::Over { .. } => return Err(ArmyError::MatchOver),
            _ => return Err(ArmyError::NoRoundInPlay),
        };
        let decisive = matches!(result.reason, RoundEnd::Checkmate | RoundEnd::Resignation);
        let drawn = matches!(
            result.reason,
            RoundEnd::Stalemate | RoundEnd::Repetition | RoundEnd::FiftyMoves | RoundEnd::Agreement
        );
        if (decisive && result.winner.is_none()) || (drawn && result.winner.is_some()) {
            return Err(ArmyError::ResultMismatch { reason: result.reason, winner: result.winner });
        }
        if round == ULTIMATE_ROUND && result.reason == RoundEnd::Agreement {
            return Err(ArmyError::DrawNotAllowed);
        }
        let mut survivors: [Vec<(Square, PieceKind)>; 2] = [Vec::new(), Vec::new()];
        for &(square, color, letter) in final_board {
            let kind = PieceKind::from_letter(letter).ok_or(ArmyError::UnknownLetter { letter })?;
            survivors[color.index()].push((square, kind));
        }

        // CA10 scoring; CA14: in the ultimate round a draw is the odds-holder's win.
        let scored_winner = if round == ULTIMATE_ROUND { result.winner.or(self.draw_odds) } else { result.winner };
        match scored_winner {
            Some(w) => self.half_points[w.index()] += 2,
            None => {
                self.half_points[0] += 1;
                self.half_points[1] += 1;
            }
        }

        // CA13 survivors.
        if let Some(winner) = result.winner {
            let lost = &mut survivors[(!winner).index()];
            match result.reason {
                RoundEnd::Resignation => lost.clear(),
                RoundEnd::Checkmate | RoundEnd::Time => lost.retain(|(_, k)| k.class() != PieceClass::Leader),
                _ => {}
            }
        }
        for color in Color::ALL {
            let next = Army::from_survivors(&self.armies[color.index()], &survivors[color.index()]);
            self.armies[color.index()] = next;
        }
        self.history.push(RoundRecord { round, result, scored_winner });

        // CA10: the match ends at 2 points, or after the ultimate round.
        let [w, b] = self.half_points;
        if w >= WINNING_HALF_POINTS || b >= WINNING_HALF_POINTS || round >= ULTIMATE_ROUND {
            let winner = match w.cmp(&b) {
                std::cmp::Ordering::Greater => Color::White,
                std::cmp::Ordering::Less => Color::Black,
                // Equal after the ultimate round: its (scored) winner, who
                // always exists there since a draw goes to the odds-holder.
                std::cmp::Ordering::Equal => scored_winner.unwrap_or(Color::White),
            };
            self.phase = Phase::Over { winner };
            return Ok(());
        }
        self.round = round + 1;
        for color in Color::ALL {
            let i = color.index();
            self.gold[i] += ROUND_GOLD;
            if self.round == ULTIMATE_ROUND {
                self.gold[i] += ULTIMATE_GOLD_PER_HALF_POINT * self.half_points[i];
            }
        }
        if self.round == ULTIMATE_ROUND {
            self.auction = Some(Auction::default());
            self.phase = Phase::Bidding;
        } else {
            self.phase = Phase::Army { color: Color::White };
        }
        Ok(())
    }

    /// A few lines for `color`: round and score, gold, what to do now, the
    /// army, the auction as far as `color` may know it. The opponent's
    /// sealed bid is never shown before both are in.
    pub fn summary(&self, color: Color) -> String {
        let me = color.index();
        let them = (!color).index();
        let mut lines = Vec::new();
        let round = if self.is_ultimate() {
            format!("Round {} (ultimate)", self.round)
        } else {
            format!("Round {} of up to {ULTIMATE_ROUND}", self.round)
        };
        lines.push(format!(
            "{round}. Score: you {}, {} {}.",
            points_text(self.half_points[me]),
            color_name(!color),
            points_text(self.half_points[them])
        ));
        lines.push(format!("Gold: {}.", gold_text(self.gold[me])));
        let now = match self.phase {
            Phase::Bidding => match self.auction.as_ref().and_then(|a| a.bids[me]) {
                Some(bid) => {
                    format!("Auction: you bid {}; waiting for {}'s sealed bid.", gold_text(bid), color_name(!color))
                }
                None => format!(
                    "Auction: send your sealed bid for the Amazon (a multiple of 0.5, at most {}).",
                    gold_text(self.gold[me])
                ),
            },
            Phase::Raising { to_move } => {
                let standing = self.auction.as_ref().and_then(|a| a.standing).unwrap_or(0);
                if to_move == color {
                    format!("Auction: the bid stands at {}; raise by 0.5 or pass.", gold_text(standing))
                } else {
                    format!(
                        "Auction: the bid stands at {}; {} raises or passes.",
                        gold_text(standing),
                        color_name(to_move)
                    )
                }
            }
            Phase::Army { color: c } if c == color => "Your army phase: buy, sell and place, then confirm.".to_string(),
            Phase::Army { color: c } => format!("{}'s army phase.", color_name(c)),
            Phase::Playing { round } => format!("Round {round} is being played."),
            Phase::Over { winner } => format!(
                "The match is over: {} won {}-{}.",
                if winner == color { "you" } else { color_name(winner) },
                points_text(self.half_points[winner.index()]),
                points_text(self.half_points[(!winner).index()])
            ),
        };
        lines.push(now);
        if let Some(Auction { winner: Some(w), price, .. }) = &self.auction {
            let who = if *w == color { "You" } else { color_name(*w) };
            lines.push(format!("{who} took the Amazon for {} gold.", gold_text(*price)));
        }
        if let Some(odds) = self.draw_odds {
            let text = if odds == color {
                "You have draw odds: a draw in the ultimate round counts as your win."
            } else {
                "Your opponent has draw odds: a draw in the ultimate round counts as their win."
            };
            lines.push(text.to_string());
        }
        lines.push(format!("Your army: {}.", self.armies[me].describe()));
        // The opponent's army, unless the opponent is still setting it up.
        if !matches!(self.phase, Phase::Army { color: c } if c != color) {
            lines.push(format!("{}'s army: {}.", color_name(!color), self.armies[them].describe()));
        }
        if matches!(self.phase, Phase::Army { color: c } if c == color) {
            for p in self.armies[me].problems() {
                lines.push(format!("To do: {p}"));
            }
        }
        lines.join("\n")
    }
}
