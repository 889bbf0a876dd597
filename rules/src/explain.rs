//! Why a move that reads well is not legal: the facts, as data, for a reply
//! in the player's words (which piece stands where, why castling fails,
//! which promotion pieces are possible, which piece pins).

use std::fmt;

use crate::attacks::tables;
use crate::moves::{Move, MoveList, Promote, castle_squares};
use crate::piece::{Piece, Power, Powers};
use crate::position::Position;
use crate::types::{Color, Square};
use crate::variant::{Goal, Promotion};

/// A piece as a player names it: `"knight"`, `"knight-pawn"`, on a square.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// What it is, in lower case: `"bishop"`, `"knight-pawn"`, `"promoted silver"`.
    pub name: String,
    /// Where it stands.
    pub square: Square,
}

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {} on {}", self.name, self.square)
    }
}

/// Why no shield can be raised (`D`, CA8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShieldWhy {
    /// The side's Leader is no Shielderer.
    NoShielderer,
    /// The shield is up now.
    Up,
    /// The shield was raised earlier in the game and has dropped.
    Used,
    /// The Shielderer is in check, and raising the shield is no answer.
    InCheck,
}

impl fmt::Display for ShieldWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShieldWhy::NoShielderer => "only a Shielderer raises a shield (D, CA8), and your Leader is no Shielderer",
            ShieldWhy::Up => "your shield is up already (CA8)",
            ShieldWhy::Used => "a shield is raised once a game (CA8), and yours has been",
            ShieldWhy::InCheck => "your Shielderer is in check, and raising the shield does not answer it (CA8)",
        })
    }
}

/// Why a piece may not swap squares with its King (C6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SwapWhy {
    /// Nothing stands on the square.
    Empty(Square),
    /// The piece there is the opponent's.
    NotYours(Named),
    /// The square holds the King itself.
    King(Square),
    /// The piece holds no Castling power (never given one, or it is used up).
    NoPower(Named),
    /// The King is in check.
    InCheck,
    /// The piece on this square is attacked.
    Attacked(Square),
}

impl fmt::Display for SwapWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SwapWhy::Empty(sq) => write!(f, "there is no piece on {sq} to swap with your King (C6)"),
            SwapWhy::NotYours(p) => write!(f, "{p} is not yours"),
            SwapWhy::King(sq) => write!(f, "your King stands on {sq}: a swap names the piece that swaps with it (C6)"),
            SwapWhy::NoPower(p) => write!(f, "{p} holds no Castling power, which a swap needs (C6)"),
            SwapWhy::InCheck => f.write_str("your King is in check, and a swap is only made out of check (C6)"),
            SwapWhy::Attacked(sq) => {
                write!(f, "your piece on {sq} is attacked, and an attacked piece may not swap (C6)")
            }
        }
    }
}

/// Why castling is not possible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CastleWhy {
    /// The variant has no castling.
    NotInVariant(&'static str),
    /// The variant has no castling, but a Castling power's swap (C6).
    SwapInstead(&'static str),
    /// The King has moved (it no longer stands on its first square).
    KingMoved,
    /// The rook of that side has moved or is gone.
    RookMoved,
    /// No castling right is left although the King stands on its first
    /// square: it has moved and come back, or both rooks have moved.
    RightsLost,
    /// The King is in check.
    InCheck,
    /// Pieces stand on these squares between King and rook or where they land.
    PiecesBetween(Vec<Square>),
    /// The King would pass or land on this attacked square.
    Attacked(Square, Option<Named>),
}

/// Why a move that reads well is not legal here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// No piece of the mover answers to the letter (with the disambiguation given).
    NoSuchPiece {
        /// The piece's name, `"knight"`, or the letter typed when it names none.
        name: String,
        /// The letter names no piece of the variant.
        unknown: bool,
        /// Where it was said to stand: `"on the b-file"`, `"on rank 1"`, `"on b1"`.
        place: Option<String>,
        /// The game's pieces by letter, `"K (King), R (Rook)"`, told when
        /// the letter names none of them.
        pieces: String,
    },
    /// A piece of several powers written as a group (`(BN)b4`, PA2) that
    /// the mover has none of.
    NoCompound {
        /// The group as the game writes it: `(BN)`.
        group: String,
        /// Moves there by the mover's pieces that hold those powers and
        /// more (`(BNP)b4`), or by those powers in another order.
        instead: Vec<String>,
    },
    /// Nothing stands on the square a canonical move starts from.
    Empty(Square),
    /// The piece on the starting square belongs to the opponent.
    NotYours(Named),
    /// The mover's own piece stands on the target.
    OwnPiece(Named),
    /// CA2: landing squares written as a Rabbit's chain (`Td5f5`) that no
    /// chain of the mover's Rabbits makes.
    NoChain {
        /// `"rabbit"`, or `"rabbits"` for several.
        piece: String,
        /// The one Rabbit's square, when the mover has one.
        from: Option<Square>,
        /// The squares written, in order.
        landings: Vec<Square>,
        /// Legal moves of the Rabbit(s), SAN, nearest the last landing first.
        instead: Vec<String>,
    },
    /// No piece of the kind meant can get to the target.
    Unreachable {
        /// What was meant: `"knight"`, or the one piece when a square was given.
        piece: String,
        /// The one piece's square, when a single piece was meant.
        from: Option<Square>,
        /// The target.
        to: Square,
        /// Legal moves of the same piece(s), SAN, best first.
        instead: Vec<String>,
        /// O5: the legal drop of such a piece from the hand onto the target,
        /// when there is one (`R@c3`).
        drop: Option<String>,
    },
    /// A piece stands between the one piece meant and its target.
    Blocked {
        /// The piece meant.
        piece: Named,
        /// The target.
        to: Square,
        /// The nearest piece in the way.
        by: Named,
    },
    /// The move would leave or put the mover's royal piece in check.
    KingInCheck {
        /// The royal piece itself moves (onto an attacked square).
        king_moves: bool,
        /// The mover is in check now and the move does not answer it.
        in_check: bool,
        /// A piece that would attack the royal piece afterwards.
        by: Option<Named>,
        /// The moving piece is pinned to its King by `by`.
        pinned: bool,
        /// The royal piece's name: `"king"`, or Clash's `"shielderer"` (CA8).
        royal: String,
    },
    /// Castling is not possible.
    Castle(CastleWhy),
    /// A pawn reaching the last rank must say what it becomes.
    NeedsPromotion {
        /// Origin.
        from: Square,
        /// Target.
        to: Square,
        /// The legal choices in SAN (`gxh8=Q`, `gxh8=R`, ...).
        choices: Vec<String>,
        /// What was asked for that is no choice here (`King`, or the letter
        /// typed where it names no piece of the game).
        asked: Option<String>,
        /// Construction's promotion adds a reward to the reserve: the
        /// ruling that says which (`C5`, `CS5`), the choices then named.
        reward: Option<&'static str>,
    },
    /// The move is marked as a capture, but nothing is taken there.
    NothingToCapture {
        /// The target.
        to: Square,
        /// The quiet move written in SAN.
        quiet: String,
    },
    /// A capture (or a War Machine's shot, CA4) aimed at an empty square,
    /// where no quiet move of the piece goes either.
    NothingThere {
        /// The target.
        to: Square,
        /// A shot rather than a capture.
        shot: bool,
    },
    /// CA4: a shot at one of the mover's own pieces.
    OwnShot(Named),
    /// CA4: a shot at a piece that none of the mover's War Machines could
    /// capture (or, with none, no War Machine to shoot with).
    OutOfShot {
        /// The mover's War Machines.
        machines: Vec<Named>,
        /// The piece aimed at.
        victim: Named,
    },
    /// A move from a square to the same square.
    SameSquare(Square),
    /// A move that captures nothing written as declining (`Bb5-`, PA3):
    /// only a capture absorbs.
    DeclineWithoutCapture {
        /// The move as it is written: `Bb5`.
        plain: String,
    },
    /// PA3, PA7: the capture absorbs nothing, so it has no declining form.
    NothingToDecline {
        /// The capture in SAN.
        capture: String,
        /// The mover's handicap that makes it so (`White plays plain`), if any.
        handicap: Option<String>,
    },
    /// A6: White's first pawn turn must be a single step of one pawn.
    FirstTurnSingleStep,
    /// O3: a Silver move that may promote or not: the player must say which.
    PromoteOrNot {
        /// The promoting move in SAN.
        promote: String,
        /// The move staying unpromoted, in SAN.
        stay: String,
    },
    /// A promotion piece named in a game where nothing promotes (A3: a pawn
    /// on the last rank wins there instead).
    NoPromotion {
        /// The game.
        game: &'static str,
        /// The move without the piece, in SAN.
        play: String,
    },
    /// O3: a promotion to a piece other than Gold; what the piece may do.
    OnlyGold {
        /// Whether the piece is a Pawn (which must become Gold), not a
        /// Silver (which may).
        pawn: bool,
        /// The choices in SAN: the Gold promotion, and for a Silver the
        /// move without it.
        choices: Vec<String>,
    },
    /// C2: a power written as a drop (`R@e2`): only static pieces are
    /// dropped; powers are given to pieces on the board.
    PowerDropped {
        /// The power's letter, where the reserve holds that power (not a
        /// whole power of split Construction, CS1).
        letter: Option<char>,
        /// The square named.
        to: Square,
    },
    /// C3: a Queen asked for as one power: it is a Rook and a Bishop power
    /// on one piece (CS2: all four of their halves).
    NoQueenPower {
        /// The square named.
        to: String,
        /// Split powers (CS2).
        halves: bool,
    },
    /// A6: one pawn twice through a square an enemy piece attacks.
    PassAttacked {
        /// The square passed.
        pass: Square,
        /// A piece that attacks it.
        by: Option<Named>,
    },
    /// CS1: a whole power's letter where only a half of it makes the move.
    ByHalf {
        /// The whole power, `"Rook"`.
        power: String,
        /// The moves a half makes there, SAN.
        moves: Vec<String>,
    },
    /// CS1, CS2: a whole power asked for, where powers come in halves.
    HalvesOnly {
        /// The power, `"Bishop"`.
        power: String,
        /// Its moving half's letter.
        moving: char,
        /// Its capturing half's letter.
        capturing: char,
        /// The square named.
        to: Square,
    },
    /// CA2: a Rabbit's exit (`Tb8x`) that no chain makes: no enemy piece
    /// stands at the edge there for it to leave the board with.
    NoExit(Option<Square>),
    /// A drop of a piece that is not in hand.
    NotInHand(String),
    /// A kind of turn the game does not have: `drops` in chess (`P@d3`),
    /// `power grants` (`R>d2`) or `swaps` (`a1<>e1`) outside Construction,
    /// `shots` (`M^h5`) outside Clash.
    NotInGame {
        /// The game's name.
        game: &'static str,
        /// The kind of turn, plural.
        what: &'static str,
        /// Whether the game castles (said after a swap).
        castling: bool,
    },
    /// A drop onto an occupied square.
    DropOccupied(Named),
    /// O5: a Pawn may not be dropped on its last rank.
    PawnDropLastRank,
    /// C2: static pieces are dropped on the own first ranks only.
    DropZone(u8),
    /// C2: a power given to a piece that is not the mover's.
    GrantNotOwn(Square),
    /// C2: a power that is not in the reserve (or is not a single power).
    NotInReserve(String),
    /// A grant in words naming no power of the game (`give wings d2`): the
    /// powers a reserve holds.
    NoSuchPower {
        /// The name as typed.
        name: String,
        /// The game's powers by name, `rook, bishop, knight, pawn or castling powers`.
        powers: String,
    },
    /// C3: the piece already holds that power.
    AlreadyHolds(Named, String),
    /// C4: no Pawn power for a piece on its last rank.
    PawnPowerLastRank {
        /// In Construction with split powers: a Pawn half (CS3).
        half: bool,
    },
    /// C6: the piece on this square may not swap with the King now.
    Swap(SwapWhy),
    /// CA6, CA8, CA9: the piece on the target cannot be captured now.
    Invulnerable {
        /// The piece that would be captured.
        target: Named,
        /// Shielded (CA8) rather than a Rogue after its quiet move (CA6).
        shielded: bool,
    },
    /// CA7: a Leader may not capture the Phoenix.
    LeaderTakesPhoenix(Named),
    /// CA8: why no shield can be raised (`D`).
    Shield(ShieldWhy),
    /// The move names a square beyond the board's edge (`Nf9`; `e6` on
    /// Olympic Chess's 5x5 board).
    OffBoard {
        /// The square as typed.
        square: String,
        /// The board's far corner (`h8`, `e5`).
        corner: Square,
    },
}

impl fmt::Display for CastleWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CastleWhy::NotInVariant(name) => write!(f, "there is no castling in {name}"),
            CastleWhy::SwapInstead(name) => write!(
                f,
                "there is no castling in {name}; a piece holding a Castling power swaps squares with the King instead (swap SQUARE, C6)"
            ),
            CastleWhy::KingMoved => f.write_str("you cannot castle: your king has moved"),
            CastleWhy::RookMoved => f.write_str("you cannot castle on that side: that rook has moved"),
            CastleWhy::RightsLost => {
                f.write_str("you cannot castle: your king or both your rooks have moved earlier in the game")
            }
            CastleWhy::InCheck => f.write_str("you cannot castle: your king is in check"),
            CastleWhy::PiecesBetween(squares) => {
                write!(f, "you cannot castle: pieces stand between ({})", list(squares))
            }
            CastleWhy::Attacked(sq, by) => {
                write!(f, "you cannot castle: the {sq} square is attacked")?;
                if let Some(by) = by {
                    write!(f, " by {by}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::NoSuchPiece { name, unknown: true, pieces, .. } => {
                write!(f, "no piece in this game is written {name} (its pieces: {pieces})")
            }
            Why::NoSuchPiece { name, place, .. } => {
                write!(f, "you have no {name}")?;
                if let Some(place) = place {
                    write!(f, " {place}")?;
                }
                Ok(())
            }
            Why::NoCompound { group, instead } => {
                write!(f, "you have no {group}")?;
                match instead.as_slice() {
                    [] => Ok(()),
                    [one] => write!(f, "; your piece with those powers and more can: {one}"),
                    many => write!(f, "; your pieces with those powers and more can: {}", or_list(many)),
                }
            }
            Why::Empty(sq) => write!(f, "there is no piece on {sq}"),
            Why::NotYours(p) => write!(f, "{p} is not yours"),
            Why::OwnPiece(p) => write!(f, "your {} stands on {}", p.name, p.square),
            Why::NoChain { piece, from, landings, instead } => {
                let squares: Vec<String> = landings.iter().map(Square::to_string).collect();
                let squares = match squares.as_slice() {
                    [rest @ .., last] if !rest.is_empty() => format!("{} and then {last}", rest.join(", ")),
                    _ => squares.join(""),
                };
                match from {
                    Some(sq) => write!(f, "your {piece} on {sq} has no chain landing on {squares}")?,
                    None => write!(f, "none of your {piece} has a chain landing on {squares}")?,
                }
                write!(f, " (each jump goes over one piece to the empty square just beyond it, CA2)")?;
                if !instead.is_empty() {
                    match from {
                        Some(_) => write!(f, "; it can play {}", or_list(instead))?,
                        None => write!(f, "; they can play {}", or_list(instead))?,
                    }
                }
                Ok(())
            }
            Why::Unreachable { piece, from, to, instead, drop } => {
                match from {
                    Some(sq) => write!(f, "your {piece} on {sq} cannot reach {to}")?,
                    None => write!(f, "no {piece} of yours can reach {to}")?,
                }
                if !instead.is_empty() {
                    match from {
                        Some(_) => write!(f, " (it can play {})", or_list(instead))?,
                        None => write!(f, " (your {piece}s can play {})", or_list(instead))?,
                    }
                }
                if let Some(drop) = drop {
                    write!(f, "; {drop} drops the {piece} in hand there")?;
                }
                Ok(())
            }
            Why::Blocked { piece, to, by } if by.square == *to => write!(
                f,
                "your {} on {} cannot move onto {to}: {by} stands there (pawns capture diagonally)",
                piece.name, piece.square
            ),
            Why::Blocked { piece, to, by } => {
                write!(f, "{by} stands between your {} on {} and {to}", piece.name, piece.square)
            }
            Why::KingInCheck { king_moves: true, by, royal, .. } => {
                write!(f, "your {royal} would be in check there")?;
                if let Some(by) = by {
                    write!(f, " from {by}")?;
                }
                Ok(())
            }
            Why::KingInCheck { in_check: true, pinned: false, by, royal, .. } => {
                write!(f, "your {royal} is in check")?;
                if let Some(by) = by {
                    write!(f, " from {by}")?;
                }
                f.write_str(" and that move does not answer it")
            }
            Why::KingInCheck { by, pinned, royal, .. } => {
                write!(f, "that would leave your {royal} in check")?;
                match by {
                    Some(by) if *pinned => write!(f, " (pinned by {by})"),
                    Some(by) => write!(f, " (from {by})"),
                    None => Ok(()),
                }
            }
            Why::Castle(c) => c.fmt(f),
            Why::Swap(w) => w.fmt(f),
            Why::Invulnerable { target, shielded: false } => write!(
                f,
                "{target} moved without capturing and cannot be captured until its side's next turn (CA6, CA9)"
            ),
            Why::Invulnerable { target, shielded: true } => {
                write!(f, "{target} is under its side's shield and cannot be captured while it is up (CA8, CA9)")
            }
            Why::LeaderTakesPhoenix(phoenix) => {
                write!(f, "a Leader may not capture a Phoenix (CA7), and {phoenix} is one")
            }
            Why::Shield(w) => w.fmt(f),
            Why::NeedsPromotion { from, to, choices, asked, reward } => {
                match (asked, reward) {
                    (Some(what), Some(rule)) => {
                        write!(f, "{from} to {to} cannot take {what} as its reward ({rule}); the choices: ")?
                    }
                    (None, Some(rule)) => write!(f, "{from} to {to} needs a reward for the reserve ({rule}): ")?,
                    (Some(what), None) => write!(f, "{from} to {to} cannot promote to {what} here; the choices: ")?,
                    (None, None) => write!(f, "{from} to {to} needs a promotion piece: ")?,
                }
                let first = choices.first().cloned().unwrap_or_default();
                let stem = first.split('=').next().unwrap_or_default().to_string();
                let rest: Vec<String> = choices
                    .iter()
                    .skip(1)
                    .map(|c| c.strip_prefix(&stem).map_or_else(|| c.clone(), str::to_string))
                    .collect();
                let mut all = vec![first];
                all.extend(rest);
                f.write_str(&or_list(&all))
            }
            Why::NothingToCapture { to, quiet } => {
                write!(f, "there is nothing to capture on {to} (a step there without capturing is written {quiet})")
            }
            Why::NothingThere { to, shot: false } => write!(f, "there is nothing to capture on {to}"),
            Why::NothingThere { to, shot: true } => write!(f, "there is nothing on {to} to shoot (CA4)"),
            Why::OwnShot(p) => write!(f, "{p} is yours: a war machine shoots only enemy pieces (CA4)"),
            Why::OutOfShot { machines, victim } => match machines.as_slice() {
                [] => write!(f, "you have no war machine to shoot with (CA4)"),
                [one] => write!(
                    f,
                    "{one} cannot shoot {victim}: it shoots only a piece it could capture, one or two squares \
                     straight or one diagonally away (CA4)"
                ),
                many => {
                    let squares: Vec<String> = many.iter().map(|m| m.square.to_string()).collect();
                    write!(
                        f,
                        "none of your war machines ({}) can shoot {victim}: each shoots only a piece it could \
                         capture, one or two squares straight or one diagonally away (CA4)",
                        squares.join(", ")
                    )
                }
            },
            Why::SameSquare(sq) => write!(f, "a move must leave its square, and this one starts and ends on {sq}"),
            Why::DeclineWithoutCapture { plain } => write!(
                f,
                "only a capture absorbs, so only a capture can decline (PA3): this move takes nothing and is written \
                 {plain}"
            ),
            Why::NothingToDecline { capture, handicap } => {
                f.write_str("there is nothing to decline")?;
                if let Some(h) = handicap {
                    write!(f, " ({h} and absorbs nothing here)")?;
                }
                write!(f, ": the capture is written {capture}")
            }
            Why::FirstTurnSingleStep => {
                f.write_str("White's first pawn turn must be a single one-square step of one pawn (A6)")
            }
            Why::HalvesOnly { power, moving, capturing, to } => write!(
                f,
                "here the {power} power comes in halves, given one at a time (CS2): {moving}>{to} gives the moving \
                 half, {capturing}>{to} the capturing half"
            ),
            Why::NoExit(at) => {
                f.write_str("a trailing x is a Rabbit leaving the board with the enemy piece it jumps at the edge")?;
                match at {
                    Some(sq) => write!(f, ", and no Rabbit of yours can jump a piece on {sq} off the board (CA2)"),
                    None => f.write_str(", and no Rabbit of yours can do that here (CA2)"),
                }
            }
            Why::ByHalf { power, moves } => write!(
                f,
                "no piece of yours holds the whole {power} power; a half of it makes this move, written {} (CS1)",
                or_list(moves)
            ),
            Why::PassAttacked { pass, by } => {
                write!(f, "a pawn moving twice may not pass an attacked square, and {pass} is attacked")?;
                if let Some(by) = by {
                    write!(f, " by {by}")?;
                }
                f.write_str(" (A6)")
            }
            Why::NoPromotion { game, play } => {
                write!(f, "pawns do not promote in {game}: a pawn reaching the last rank wins (A3); write {play}")
            }
            Why::OnlyGold { pawn: true, choices } => {
                write!(
                    f,
                    "a pawn reaching the last rank becomes Gold and nothing else (O3); write {}",
                    or_list(choices)
                )
            }
            Why::OnlyGold { pawn: false, choices } => {
                write!(f, "a silver promotes only to Gold, or stays a silver (O3); write {}", or_list(choices))
            }
            Why::PromoteOrNot { promote, stay } => write!(f, "promote or not? Write {promote} or {stay}"),
            Why::NotInHand(name) => write!(f, "you have no {name} in hand"),
            Why::NotInGame { game, what, castling } => {
                write!(f, "there are no {what} in {game}")?;
                match *what {
                    "drops" => f.write_str(": a captured piece leaves the game"),
                    "swaps" if *castling => f.write_str("; castling is written O-O or O-O-O"),
                    _ => Ok(()),
                }
            }
            Why::DropOccupied(p) => write!(f, "{} is taken: {p} stands there", p.square),
            Why::PawnDropLastRank => f.write_str("a pawn may not be dropped on its last rank (O5)"),
            Why::DropZone(n) => write!(f, "static pieces are dropped on your own first {n} ranks (C2)"),
            Why::GrantNotOwn(sq) => write!(f, "powers are given to your own pieces, and {sq} holds none of yours"),
            Why::NotInReserve(name) => write!(f, "you have no {name} power in your reserve"),
            Why::NoSuchPower { name, powers } => {
                write!(f, "there is no {name} power in this game (a reserve gives {powers})")
            }
            Why::PowerDropped { letter: Some(letter), to } => write!(
                f,
                "only static pieces are dropped (S@{to}, C2); a power is given to a piece of yours on the board: \
                 {letter}>SQUARE"
            ),
            Why::PowerDropped { letter: None, to } => write!(
                f,
                "only static pieces are dropped (S@{to}, C2); powers go to your pieces on the board, a half at a \
                 time (CS2): give rook moving half SQUARE"
            ),
            Why::NoQueenPower { to, halves: false } => write!(
                f,
                "there is no Queen power: a piece holding the Rook and the Bishop power moves as a Queen (C3); give \
                 them one turn at a time (R>{to}, then B>{to})"
            ),
            Why::NoQueenPower { halves: true, .. } => write!(
                f,
                "there is no Queen power: a piece holding all four Rook and Bishop halves moves as a Queen (CS2); \
                 give them one turn at a time"
            ),
            Why::AlreadyHolds(p, name) => write!(f, "{p} already holds the {name} power (C3)"),
            Why::PawnPowerLastRank { half: false } => {
                f.write_str("a piece on its last rank may not be given the Pawn power (C4)")
            }
            Why::PawnPowerLastRank { half: true } => {
                f.write_str("a piece on its last rank may not be given a Pawn half (CS3)")
            }
            Why::OffBoard { square, corner } => {
                write!(f, "there is no {square} square (the board runs from a1 to {corner})")
            }
        }
    }
}

fn list(squares: &[Square]) -> String {
    squares.iter().map(Square::to_string).collect::<Vec<_>>().join(", ")
}

/// `a`, `a or b`, `a, b or c`: the words the refusals list choices in.
pub fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// What a typed move says, read without the position.
#[derive(Debug, Default)]
struct Intent {
    /// The piece letter or `(..)` group, upper case; `None` for a pawn.
    letter: Option<String>,
    from_file: Option<u8>,
    from_rank: Option<u8>,
    to: Option<Square>,
    capture: bool,
    /// The letter after `=` (upper case), or a group of them, `(TU)`.
    promote: Option<String>,
    drop: bool,
    /// Both squares given, as in a canonical move.
    canonical: bool,
    castle: Option<bool>,
}

/// The square a move starts from, where the text gives it whole.
fn from_square(intent: &Intent) -> Option<Square> {
    Square::from_coords(intent.from_file?, intent.from_rank?)
}

fn read_intent(text: &str) -> Option<Intent> {
    let t = text.trim().trim_end_matches(['+', '#', '!', '?']);
    let upper = t.to_ascii_uppercase().replace('0', "O");
    match upper.as_str() {
        "O-O" | "OO" => return Some(Intent { castle: Some(false), ..Intent::default() }),
        "O-O-O" | "OOO" => return Some(Intent { castle: Some(true), ..Intent::default() }),
        _ => {}
    }
    if t.contains([',', ' ', '>', '^', '<']) {
        return None;
    }
    let b = t.as_bytes();
    let mut i = 0;
    let mut intent = Intent::default();
    if b.first() == Some(&b'(') {
        let end = t.find(')')?;
        intent.letter = Some(t[..=end].to_ascii_uppercase());
        i = end + 1;
    } else if let Some(&c) = b.first()
        && c.is_ascii_uppercase()
        && c != b'X'
    {
        intent.letter = Some((c as char).to_string());
        i = 1;
    }
    let rest = &t[i..];
    if let Some(sq) = rest.strip_prefix('@') {
        intent.drop = true;
        intent.to = Some(Square::parse(sq)?);
        return Some(intent);
    }
    // The squares and files in the rest, with a promotion at the end.
    let rb = rest.as_bytes();
    let mut squares = Vec::new();
    let mut j = 0;
    while j < rb.len() {
        let c = rb[j];
        if j + 1 < rb.len()
            && let Some(sq) = Square::from_bytes(c, rb[j + 1])
        {
            squares.push(sq);
            j += 2;
            continue;
        }
        match c {
            b'x' | b'X' | b':' => intent.capture = true,
            b'-' => {}
            b'=' if rb.get(j + 1) == Some(&b'(') => {
                let end = rest[j..].find(')')? + j;
                intent.promote = Some(rest[j + 1..=end].to_ascii_uppercase());
                j = end;
            }
            b'=' => {
                intent.promote = rb.get(j + 1).map(|&p| (p as char).to_ascii_uppercase().to_string());
                j += 1;
            }
            b'a'..=b'h' if squares.is_empty() => intent.from_file = Some(c - b'a'),
            b'1'..=b'8' if squares.is_empty() => intent.from_rank = Some(c - b'1'),
            c if c.is_ascii_alphabetic() && !squares.is_empty() && j + 1 == rb.len() => {
                intent.promote = Some((c as char).to_ascii_uppercase().to_string());
            }
            _ => return None,
        }
        j += 1;
    }
    match squares.as_slice() {
        [to] => intent.to = Some(*to),
        [from, to] => {
            intent.from_file = Some(from.file());
            intent.from_rank = Some(from.rank());
            intent.to = Some(*to);
            intent.canonical = intent.letter.is_none();
        }
        _ => return None,
    }
    Some(intent)
}

impl Position {
    /// The name of the side to move's royal piece: `"king"`, or the
    /// Shielderer leading a Clash army (CA8).
    fn royal_name(&self) -> String {
        if !self.variant.armies {
            return "king".to_string();
        }
        self.royal_square(self.turn).and_then(|k| self.named(k)).map_or_else(|| "king".to_string(), |n| n.name)
    }

    /// The variant's pieces by letter: `K (King), R (Rook), ...`.
    fn piece_letters(&self) -> String {
        let named: Vec<String> =
            self.variant.pieces.iter().map(|p| format!("{} ({})", p.letter, p.name.to_ascii_lowercase())).collect();
        named.join(", ")
    }
}

impl Position {
    /// The name a player uses for a piece: `"knight"`, `"knight-pawn"` for
    /// a set of powers no named piece has, `"promoted silver"`.
    pub fn piece_name(&self, p: Piece) -> String {
        let v = self.variant;
        let base = match v.piece_index_of(p.powers, p.royal) {
            Some(i) => v.pieces[i as usize].name.to_ascii_lowercase(),
            None => {
                let parts: Vec<String> = crate::fen::group_letters(p.powers)
                    .chars()
                    .filter_map(|c| v.piece_index(c).map(|i| v.pieces[i as usize].name.to_ascii_lowercase()))
                    .collect();
                if parts.is_empty() { self.piece_code(p).to_ascii_uppercase() } else { parts.join("-") }
            }
        };
        if p.promoted { format!("promoted {base}") } else { base }
    }

    /// The name of a piece made of several powers as the legends write it:
    /// `"Bishop+Knight"`, `"Queen"`.
    pub fn powers_name(&self, p: Piece) -> String {
        let plain = Piece { promoted: false, ..p };
        self.piece_name(plain)
            .split('-')
            .map(|w| {
                let mut c = w.chars();
                c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
            })
            .collect::<Vec<_>>()
            .join("+")
    }

    /// The opponent's pieces that stood here and are gone in `after` (the
    /// position after the side to move played).
    pub(crate) fn taken_by(&self, after: &Position) -> Vec<(Square, Piece)> {
        let them = !self.turn;
        self.pieces_of(them)
            .into_iter()
            .filter_map(|sq| {
                let p = self.piece_at(sq)?;
                (after.piece_at(sq) != Some(p)).then_some((sq, p))
            })
            .collect()
    }

    /// The mover's piece that `m` (played, giving `after`) took off the
    /// board with what it captured (CA2, CA7): found as the mover's pieces
    /// on the board growing fewer, which no other move does.
    pub(crate) fn lost_by(&self, m: &Move, after: &Position) -> Option<(Square, Piece)> {
        let from = m.from()?;
        let piece = self.piece_at(from)?;
        (after.pieces_of(self.turn).count() < self.pieces_of(self.turn).count()).then_some((from, piece))
    }

    /// The piece on `sq`, named.
    pub(crate) fn named(&self, sq: Square) -> Option<Named> {
        self.piece_at(sq).map(|p| Named { name: self.piece_name(p), square: sq })
    }

    /// The letters a piece answers to in SAN besides its own code: for a set
    /// of powers no named piece has (`(NP)`), the letter of every named piece
    /// whose powers it holds (`N`, `P`).
    pub(crate) fn power_letters(&self, p: Piece) -> Vec<char> {
        let v = self.variant;
        if p.promoted || v.piece_index_of(p.powers, p.royal).is_some() {
            return Vec::new();
        }
        v.pieces
            .iter()
            // The royal piece is the King whatever it absorbed (PA2, PA3).
            .filter(|t| if t.royal { p.royal } else { !t.powers.is_empty() && p.powers.contains(t.powers) })
            .map(|t| t.letter)
            .collect()
    }

    /// Whether `letter`, one of [`Position::power_letters`] of `p` on
    /// `from`, names its move to `to`: the royal letter any move of the
    /// royal piece, another letter the moves its power makes (`Bxa6` is not
    /// the queen-pawn's move up the file; `Pe6` is its pawn step).
    pub(crate) fn letter_makes(&self, p: Piece, letter: char, from: Square, to: Square) -> bool {
        let Some(t) = self.variant.pieces.iter().find(|t| t.letter == letter) else { return false };
        if t.royal {
            return p.royal;
        }
        if self.attacks(from, t.powers, p.color, self.occupied()).has(to) {
            return true;
        }
        let ahead = if p.color == Color::White { 1 } else { -1 };
        let steps = i32::from(to.rank()) - i32::from(from.rank());
        t.powers.whole().contains(Powers::PAWN) && from.file() == to.file() && (steps == ahead || steps == 2 * ahead)
    }

    /// Every move of the side to move as if its royal piece could be left
    /// attacked (A6's pairs and castling left out).
    fn unrestricted_moves(&self) -> MoveList {
        let mut p = self.clone();
        p.royal &= !p.by_color[p.turn.index()];
        let mut list = MoveList::new();
        p.generate_single(&mut list);
        list
    }

    /// Why `D` raises no shield here (CA8); `None` where the variant has no
    /// shields or one can be raised.
    pub(crate) fn why_no_shield(&self, legal: &MoveList) -> Option<Why> {
        if !self.variant.pieces.iter().any(|p| p.powers.contains(Powers::SHIELD)) {
            return None;
        }
        if legal.iter().any(|m| matches!(m, Move::Shield { .. })) {
            return None;
        }
        let us = self.turn;
        let why = if !(self.power(Power::Shield) & self.pieces_of(us)).any() {
            ShieldWhy::NoShielderer
        } else {
            match self.shield(us) {
                Some(0) if self.is_check() => ShieldWhy::InCheck,
                Some(0) => return None,
                Some(_) => ShieldWhy::Up,
                None => ShieldWhy::Used,
            }
        };
        Some(Why::Shield(why))
    }

    /// CA6, CA7, CA9: a capture that the target's state or kind forbids,
    /// though one of the pieces `meant` reaches it.
    fn why_not_capturable(&self, meant: &[Square], to: Square) -> Option<Why> {
        let us = self.turn;
        let target = self.piece_at(to).filter(|p| p.color != us)?;
        let reaching: Vec<Square> = meant
            .iter()
            .copied()
            .filter(|&f| self.piece_at(f).is_some_and(|p| self.attacks(f, p.powers, us, self.occupied()).has(to)))
            .collect();
        if reaching.is_empty() {
            return None;
        }
        let named = self.named(to)?;
        if self.invulnerable().has(to) {
            return Some(Why::Invulnerable { target: named, shielded: !self.guard.has(to) });
        }
        let leaders_only = reaching.iter().all(|&f| self.piece_at(f).is_some_and(|p| p.royal));
        if leaders_only && target.powers.contains(Powers::PHOENIX) {
            return Some(Why::LeaderTakesPhoenix(named));
        }
        None
    }

    /// Why the piece on `from` may not swap squares with its King (C6);
    /// `None` when no reason can be told.
    fn why_not_swap(&self, from: Square) -> Option<SwapWhy> {
        let us = self.turn;
        let Some(p) = self.piece_at(from) else { return Some(SwapWhy::Empty(from)) };
        let named = self.named(from)?;
        if p.color != us {
            return Some(SwapWhy::NotYours(named));
        }
        if p.royal {
            return Some(SwapWhy::King(from));
        }
        if !self.power(Power::Castle).has(from) {
            return Some(SwapWhy::NoPower(named));
        }
        if self.is_check() {
            return Some(SwapWhy::InCheck);
        }
        let them = self.pieces_of(!us);
        if self.attackers(from, !us, them, self.occupied()).any() {
            return Some(SwapWhy::Attacked(from));
        }
        None
    }

    /// A turn of a kind this game has not (`P@d3` in chess, `R>d2` outside
    /// Construction, `M^h5` outside Clash).
    fn not_in_game(&self, text: &str) -> Option<Why> {
        let t = text.trim();
        let first = t.split_whitespace().next().unwrap_or_default().to_ascii_lowercase();
        let v = self.variant;
        let said = |words: &[&str]| words.contains(&first.as_str());
        let machines = v.pieces.iter().any(|p| p.powers.contains(Powers::MACHINE));
        let what = if t.contains("<>") || said(&["swap"]) {
            (!v.grants).then_some("swaps")
        } else if t.contains('>') || said(&["give", "grant", "add"]) {
            (!v.grants).then_some("power grants")
        } else if t.contains(['@', '*']) || said(&["drop"]) {
            (!v.drops && !v.grants).then_some("drops")
        } else if t.contains('^') || said(&["shoot"]) {
            (!machines).then_some("shots")
        } else {
            None
        }?;
        Some(Why::NotInGame { game: v.name, what, castling: v.castling })
    }

    /// A6: one pawn twice (`a6,a5`, `a7a6a5`, `a6,ab5`, `a7a6b5`) through
    /// an attacked square; each step straight or diagonally forward (A2).
    fn why_not_twice(&self, text: &str) -> Option<Why> {
        let t = text.trim().to_ascii_lowercase();
        let us = self.turn;
        let dir: i8 = if us == Color::White { 1 } else { -1 };
        // A step as a pair writes it: its target (`a6`), or the file it
        // leaves and its target (`ab5`).
        let step = |w: &str| -> Option<(Option<u8>, Square)> {
            match w.len() {
                2 => Some((None, Square::parse(w)?)),
                3 if (b'a'..=b'h').contains(&w.as_bytes()[0]) => {
                    Some((Some(w.as_bytes()[0] - b'a'), Square::parse(&w[1..])?))
                }
                _ => None,
            }
        };
        let forward = |a: Square, b: Square| {
            a.offset(0, dir).is_some_and(|f| f.rank() == b.rank()) && a.file().abs_diff(b.file()) <= 1
        };
        let (from, pass, to) = if t.contains([',', ' ']) {
            let words: Vec<&str> = t.split([',', ' ']).filter(|w| !w.is_empty()).collect();
            let ((file, pass), (second, to)) = (step(words.first()?)?, step(words.get(1)?)?);
            if words.len() != 2 || second.is_some_and(|f| f != pass.file()) {
                return None;
            }
            // `a6,b5` with a pawn of ours on b6: two pawns meant, not one.
            let behind = to.offset(0, -dir).and_then(|s| self.piece_at(s));
            if second.is_none() && to.file() != pass.file() && behind.is_some_and(|p| p.color == us) {
                return None;
            }
            (Square::from_coords(file.unwrap_or(pass.file()), (pass.rank() as i8 - dir) as u8)?, pass, to)
        } else if t.len() == 6 && t.is_ascii() {
            let squares = (0..3).map(|i| Square::parse(&t[2 * i..2 * i + 2])).collect::<Option<Vec<_>>>()?;
            (squares[0], squares[1], squares[2])
        } else {
            return None;
        };
        let pawn = self.piece_at(from).is_some_and(|p| p.color == us && p.powers.contains(Powers::PAWN));
        if !pawn || !forward(from, pass) || !forward(pass, to) {
            return None;
        }
        if self.piece_at(pass).is_some() || self.piece_at(to).is_some() || self.last_rank(us).has(pass) {
            return None;
        }
        let them = self.pieces_of(!us);
        let after = (self.occupied() & !from.bb()) | pass.bb();
        let by = self.attackers(pass, !us, them, after);
        if by.is_empty() {
            return None;
        }
        Some(Why::PassAttacked { pass, by: by.first().and_then(|s| self.named(s)) })
    }

    /// Why `text`, which reads as a move, is not legal here; `None` when
    /// no single reason can be told.
    pub(crate) fn explain(&self, text: &str, legal: &MoveList) -> Option<Why> {
        if let Some(why) = self.not_in_game(text) {
            return Some(why);
        }
        if self.variant.pawn_pairs && self.turn == Color::White && self.first_pawn_turn {
            let mut later = self.clone();
            later.first_pawn_turn = false;
            if later.parse_move(text).is_ok() {
                return Some(Why::FirstTurnSingleStep);
            }
            // `a4` for a pawn on a2: the one-pawn-twice turn written as a
            // chess double step, which A6 allows only on a later turn.
            if let Some(Intent { letter: None, to: Some(to), capture: false, from_file, .. }) = read_intent(text)
                && to.rank() >= 2
                && from_file.is_none_or(|f| f == to.file())
                && let (Some(mid), Some(from)) =
                    (Square::from_coords(to.file(), to.rank() - 1), Square::from_coords(to.file(), to.rank() - 2))
                && self.piece_at(mid).is_none()
                && self.piece_at(to).is_none()
                && self.piece_at(from).is_some_and(|p| p.color == Color::White && p.powers.contains(Powers::PAWN))
            {
                return Some(Why::FirstTurnSingleStep);
            }
        }
        if self.variant.pawn_pairs
            && let Some(why) = self.why_not_twice(text)
        {
            return Some(why);
        }
        if self.variant.grants
            && !text.contains("<>")
            && let Some((letter, sq)) = text.trim().split_once('>')
        {
            return self.why_not_grant(letter.trim(), sq.trim());
        }
        // `give rook e2`, `grant R e2`: the words of a grant (C2).
        if self.variant.grants
            && let [word, piece @ .., sq] = text.split_whitespace().collect::<Vec<_>>().as_slice()
            && ["give", "grant", "add"].iter().any(|w| word.eq_ignore_ascii_case(w))
            && !piece.is_empty()
        {
            let name = piece.join(" ");
            if name.eq_ignore_ascii_case("queen") || name.eq_ignore_ascii_case("q") {
                return Some(Why::NoQueenPower { to: sq.to_ascii_lowercase(), halves: self.variant.split_powers });
            }
            let letter = match self.variant.pieces.iter().find(|p| p.name.eq_ignore_ascii_case(&name)) {
                Some(pt) => pt.letter.to_string(),
                None if name.chars().count() == 1 => name.clone(),
                None => {
                    let names: Vec<String> = self
                        .variant
                        .pieces
                        .iter()
                        .filter(|p| !p.royal && p.powers.count() == 1)
                        .map(|p| p.name.to_ascii_lowercase())
                        .collect();
                    let powers = if self.variant.split_powers {
                        "the moving or capturing half of a rook, bishop, knight or pawn power, or a castling power"
                            .to_string()
                    } else {
                        format!("{} powers", or_list(&names))
                    };
                    return Some(Why::NoSuchPower { name, powers });
                }
            };
            return self.why_not_grant(&letter, sq);
        }
        // `drop d2` and `swap a1`, the words of a drop and a swap (C2, C6).
        if self.variant.grants
            && let [word, sq] = text.split_whitespace().collect::<Vec<_>>().as_slice()
        {
            if word.eq_ignore_ascii_case("drop")
                && let Some(pt) = self.variant.pieces.iter().find(|p| p.powers.is_empty() && !p.royal)
            {
                return self.explain(&format!("{}@{sq}", pt.letter), legal);
            }
            if word.eq_ignore_ascii_case("swap") {
                return self.why_not_swap(Square::parse(sq)?).map(Why::Swap);
            }
        }
        // O5: `drop d2` with nothing in hand, or onto a piece.
        if self.variant.drops
            && let [word, sq] = text.split_whitespace().collect::<Vec<_>>().as_slice()
            && word.eq_ignore_ascii_case("drop")
            && let Some(to) = Square::parse(&sq.to_ascii_lowercase())
        {
            if (0..self.variant.pieces.len() as u8).all(|i| self.hand(self.turn, i) == 0) {
                return Some(Why::NotInHand("piece".into()));
            }
            if self.piece_at(to).is_some() {
                return self.named(to).map(Why::DropOccupied);
            }
        }
        // C6: a swap as a token (`d1e1`) or as the SAN writes it (`Cd1<>e1`):
        // the holder's square, then its own King's.
        if self.variant.grants
            && let Some(king) = self.royal_square(self.turn)
        {
            let t = text.trim().trim_end_matches(['+', '#']);
            let squares: Option<(Square, Square)> = match t.split_once("<>") {
                Some((a, b)) => {
                    let a = a.trim_start_matches(|c: char| !c.is_ascii_lowercase() || c == 'x');
                    let a = &a[a.len().saturating_sub(2)..];
                    Square::parse(a).zip(Square::parse(b))
                }
                None if t.len() == 4 => Square::parse(&t[..2]).zip(Square::parse(&t[2..])),
                None => None,
            };
            // Written with `<>`, it is a swap whatever stands there; as a
            // token, only where a holder of the power stands.
            let swap = |from: Square| {
                t.contains("<>")
                    || self.piece_at(from).is_some_and(|p| p.color == self.turn && p.powers.contains(Powers::CASTLE))
            };
            if let Some((from, to)) = squares
                && to == king
                && from != king
                && swap(from)
            {
                return self.why_not_swap(from).map(Why::Swap);
            }
        }
        // CA4: a shot at an empty square (`M^b7`, `shoot b7`).
        if self.variant.pieces.iter().any(|p| p.powers.contains(Powers::MACHINE)) {
            let target = match text.trim().split_once('^') {
                Some((_, sq)) => Square::parse(sq.trim_end_matches(['+', '#'])),
                None => match text.split_whitespace().collect::<Vec<_>>().as_slice() {
                    [word, sq] if word.eq_ignore_ascii_case("shoot") => Square::parse(sq),
                    _ => None,
                },
            };
            if let Some(to) = target.filter(|&sq| self.piece_at(sq).is_none()) {
                return Some(Why::NothingThere { to, shot: true });
            }
            // A shot at one's own piece, or at one no War Machine of the
            // mover's reaches (out of its range, or behind a piece).
            if let Some(to) = target
                && let Some(victim) = self.named(to)
            {
                if self.piece_at(to).is_some_and(|p| p.color == self.turn) {
                    return Some(Why::OwnShot(victim));
                }
                let occ = self.occupied();
                let machines: Vec<Square> = self
                    .pieces_of(self.turn)
                    .into_iter()
                    .filter(|&sq| self.piece_at(sq).is_some_and(|p| p.powers.contains(Powers::MACHINE)))
                    .collect();
                let reaches = |m: Square, occ: crate::types::Bitboard| {
                    self.piece_at(m).is_some_and(|p| self.attacks(m, p.powers, self.turn, occ).has(to))
                };
                if !machines.iter().any(|&m| reaches(m, occ)) {
                    // One that would reach it over an empty board: blocked.
                    let blocked = machines.iter().find_map(|&m| {
                        let by = (tables().between(m, to) & occ).into_iter().next()?;
                        reaches(m, m.bb() | to.bb()).then_some((m, by))
                    });
                    if let Some((m, by)) = blocked
                        && let (Some(piece), Some(by)) = (self.named(m), self.named(by))
                    {
                        return Some(Why::Blocked { piece, to, by });
                    }
                    let machines = machines.into_iter().filter_map(|m| self.named(m)).collect();
                    return Some(Why::OutOfShot { machines, victim });
                }
            }
        }
        let intent = read_intent(text)?;
        let us = self.turn;
        if let Some(long) = intent.castle {
            return self.why_not_castle(long).map(Why::Castle);
        }
        let to = intent.to?;
        if intent.canonical && from_square(&intent) == Some(to) {
            return Some(Why::SameSquare(to));
        }
        if intent.drop
            || (self.variant.drops && intent.letter.is_some() && !intent.canonical && self.droppable(&intent))
        {
            return self.why_not_drop(&intent, to);
        }
        // The pieces meant.
        let ours = self.pieces_of(us);
        let from_sq = match (intent.from_file, intent.from_rank) {
            (Some(f), Some(r)) => Square::from_coords(f, r),
            _ => None,
        };
        if intent.canonical
            && let Some(from) = from_sq
        {
            match self.piece_at(from) {
                None => return Some(Why::Empty(from)),
                Some(p) if p.color != us => return self.named(from).map(Why::NotYours),
                _ => {}
            }
        }
        let meant: Vec<Square> = ours
            .into_iter()
            .filter(|&sq| {
                let Some(p) = self.piece_at(sq) else { return false };
                intent.from_file.is_none_or(|f| sq.file() == f)
                    && intent.from_rank.is_none_or(|r| sq.rank() == r)
                    && (intent.canonical || self.answers_to(p, intent.letter.as_deref()))
            })
            .collect();
        if meant.is_empty() {
            let letter = intent.letter.clone().unwrap_or_else(|| "P".to_string());
            let known = letter.chars().nth(0).and_then(|c| self.variant.piece_index(c));
            let place = match (intent.from_file, intent.from_rank) {
                (Some(f), Some(r)) => Square::from_coords(f, r).map(|s| format!("on {s}")),
                (Some(f), None) => Some(format!("on the {}-file", (b'a' + f) as char)),
                (None, Some(r)) => Some(format!("on rank {}", r + 1)),
                (None, None) => None,
            };
            // CA2: `Td5f5` names a chain's landings, not a Rabbit on d5.
            if let Some(i) = known
                && self.variant.pieces[i as usize].powers.contains(Powers::RABBIT)
                && from_sq.is_some()
            {
                let rabbits: Vec<Square> = ours
                    .into_iter()
                    .filter(|&sq| self.piece_at(sq).is_some_and(|p| p.powers.contains(Powers::RABBIT)))
                    .collect();
                if !rabbits.is_empty() {
                    let landings = crate::notation::squares_in(text);
                    let instead = self.suggestions(&rabbits, to, legal);
                    let name = self.variant.pieces[i as usize].name.to_ascii_lowercase();
                    let (piece, from) = match rabbits.as_slice() {
                        [one] => (name, Some(*one)),
                        _ => (format!("{name}s"), None),
                    };
                    return Some(Why::NoChain { piece, from, landings, instead });
                }
            }
            // CS1: `Rxd5` where a piece holds only a half of the Rook power:
            // the moves to the target that the halves make, as written.
            if let (true, Some(i)) = (self.variant.split_powers, known) {
                let whole = self.variant.pieces[i as usize].powers.joined();
                let halves = whole.split().without(whole);
                let by_half: Vec<String> = legal
                    .iter()
                    .filter(|m| m.to() == to)
                    .filter(|m| {
                        m.from().and_then(|f| self.piece_at(f)).is_some_and(|p| {
                            p.powers.intersects(halves)
                                && (if self.piece_at(to).is_some() { p.powers.capturing() } else { p.powers.moving() })
                                    .contains(whole)
                        })
                    })
                    .map(|m| self.san(m))
                    .collect();
                if !halves.is_empty() && !by_half.is_empty() {
                    return Some(Why::ByHalf {
                        power: self.variant.pieces[i as usize].name.to_string(),
                        moves: by_half,
                    });
                }
            }
            return Some(match known {
                Some(i) => Why::NoSuchPiece {
                    name: self.variant.pieces[i as usize].name.to_ascii_lowercase(),
                    unknown: false,
                    place,
                    pieces: String::new(),
                },
                None if letter.starts_with('(') => {
                    let inside = letter.trim_start_matches('(').trim_end_matches(')').to_ascii_uppercase();
                    match crate::fen::parse_group(self.variant, &inside) {
                        Ok(written) => {
                            let wanted = written.powers.joined();
                            let holders: Vec<Square> = ours
                                .into_iter()
                                .filter(|&sq| self.piece_at(sq).is_some_and(|p| p.powers.joined().contains(wanted)))
                                .collect();
                            let instead: Vec<String> = legal
                                .iter()
                                .filter(|m| m.to() == to && m.from().is_some_and(|f| holders.contains(&f)))
                                .filter(|m| {
                                    !matches!(m, Move::Normal { keep: true, .. } | Move::EnPassant { keep: true, .. })
                                })
                                .map(|m| self.san(m))
                                .take(3)
                                .collect();
                            Why::NoCompound { group: format!("({})", crate::fen::group_letters(wanted)), instead }
                        }
                        Err(_) => Why::NoSuchPiece {
                            name: letter.to_ascii_uppercase(),
                            unknown: true,
                            place,
                            pieces: self.piece_letters(),
                        },
                    }
                }
                None => Why::NoSuchPiece { name: letter, unknown: true, place, pieces: self.piece_letters() },
            });
        }
        // A capture marked where nothing stands (and no en passant), by
        // pieces none of which may even step there: nothing to capture.
        if intent.capture
            && self.piece_at(to).is_none()
            && self.ep != Some(to)
            && !legal.iter().any(|m| m.to() == to && m.from().is_some_and(|f| meant.contains(&f)))
        {
            return Some(Why::NothingThere { to, shot: false });
        }
        if let Some(p) = self.piece_at(to)
            && p.color == us
            && !legal.iter().any(|m| m.to() == to)
        {
            return self.named(to).map(Why::OwnPiece);
        }
        let pseudo: Vec<Move> = self
            .unrestricted_moves()
            .into_iter()
            .filter(|m| m.to() == to && m.from().is_some_and(|f| meant.contains(&f)))
            .filter(|m| matches!(m, Move::Normal { .. } | Move::EnPassant { .. }))
            .collect();
        if pseudo.is_empty() {
            if let Some(why) = self.why_not_capturable(&meant, to) {
                return Some(why);
            }
            // One piece that would get there on an empty board: what is in the way.
            let t = tables();
            let sliders: Vec<Square> = meant
                .iter()
                .copied()
                .filter(|&f| {
                    self.piece_at(f).is_some_and(|p| {
                        let empty = crate::types::Bitboard::EMPTY;
                        self.attacks(f, self.moves_of(p).without(Powers::PAWN), us, empty).has(to)
                            && (t.between(f, to) & self.occupied()).any()
                    })
                })
                .collect();
            if let [from] = sliders.as_slice() {
                let mut between: Vec<Square> = (t.between(*from, to) & self.occupied()).into_iter().collect();
                between.sort_by_key(|s| s.file().abs_diff(from.file()).max(s.rank().abs_diff(from.rank())));
                if let (Some(piece), Some(by)) = (self.named(*from), between.first().and_then(|b| self.named(*b))) {
                    return Some(Why::Blocked { piece, to, by });
                }
            }
            // A pawn straight behind the target, with a piece in its way.
            if intent.letter.is_none()
                && !intent.canonical
                && let Some(why) = self.pawn_blocked(&meant, to)
            {
                return Some(why);
            }
            let instead = self.suggestions(&meant, to, legal);
            let (piece, from) = match meant.as_slice() {
                [one] => (self.named(*one).map(|n| n.name).unwrap_or_default(), Some(*one)),
                _ => (self.group_name(&meant), None),
            };
            // A pawn's move is written without a letter (`e3`): its drop is `P@e3`.
            let letter = intent.letter.as_deref().and_then(|l| l.chars().next()).unwrap_or('P');
            let drop = legal
                .iter()
                .find(|m| {
                    matches!(m, Move::Drop { piece: i, to: t } if *t == to
                        && self.variant.pieces[*i as usize].letter == letter)
                })
                .map(|m| self.san(m));
            return Some(Why::Unreachable { piece, from, to, instead, drop });
        }
        let legal_here: Vec<Move> =
            legal.iter().copied().filter(|m| m.to() == to && m.from().is_some_and(|f| meant.contains(&f))).collect();
        let promotions: Vec<Move> =
            legal_here.iter().copied().filter(|m| matches!(m, Move::Normal { promote: Promote::To(_), .. })).collect();
        if !promotions.is_empty() {
            let from = promotions[0].from().unwrap_or(to);
            let same: Vec<Move> = promotions.iter().copied().filter(|m| m.from() == Some(from)).collect();
            // C5, CS5: a reward for the reserve, each choice named.
            let reward = self.variant.grants.then_some(if self.variant.split_powers { "CS5" } else { "C5" });
            let choices = same
                .iter()
                .map(|m| match (m, reward) {
                    (Move::Normal { promote: Promote::To(i), .. }, Some(_)) => {
                        format!("{} ({})", self.san_body(m, legal), self.reward_name(*i))
                    }
                    _ => self.san_body(m, legal),
                })
                .collect();
            // A letter typed that is no choice: named, where the game has
            // such a piece (`=K`: a King; Clash's `=Z`: an Amazon; split
            // Construction's `=R` or `=(TU)`: a whole rook power).
            let asked = intent.promote.as_deref().map(|c| {
                let index = match c.strip_prefix('(').and_then(|g| g.strip_suffix(')')) {
                    Some(group) => crate::fen::parse_group(self.variant, group)
                        .ok()
                        .and_then(|p| self.variant.piece_index_of(p.powers, false)),
                    None => c.chars().next().and_then(|c| self.variant.piece_index(c.to_ascii_uppercase())),
                };
                match index {
                    Some(i) if reward.is_some() => {
                        let whole = self.variant.split_powers && self.variant.pieces[i as usize].powers.count() > 1;
                        let name = self.reward_name(i);
                        if whole { format!("a whole {}", &name[2..]) } else { name }
                    }
                    Some(i) => {
                        let name = self.variant.pieces[i as usize].name;
                        let an = name.starts_with(['A', 'E', 'I', 'O', 'U']);
                        format!("{} {name}", if an { "an" } else { "a" })
                    }
                    None => format!("'{c}'"),
                }
            });
            return Some(Why::NeedsPromotion { from, to, choices, asked, reward });
        }
        if legal_here.is_empty() {
            return Some(self.why_king(pseudo[0]));
        }
        // O3: a promotion named that is not Gold, where Gold is the choice.
        if intent.promote.is_some()
            && let Some(flip) = legal_here.iter().find(|m| matches!(m, Move::Normal { promote: Promote::Flip, .. }))
        {
            let same: Vec<&Move> = legal_here.iter().filter(|m| m.from() == flip.from()).collect();
            let choices = same.iter().map(|m| self.san_body(m, legal)).collect();
            let pawn = flip.from().and_then(|f| self.piece_at(f)).is_some_and(|p| p.powers.contains(Powers::PAWN));
            return Some(Why::OnlyGold { pawn, choices });
        }
        // A3: `gxh8=Q` where a pawn on the last rank wins and nothing promotes.
        if intent.promote.is_some()
            && self.variant.promotion == Promotion::None
            && self.variant.goal == Goal::PawnRace
            && let [m] = legal_here.as_slice()
        {
            return Some(Why::NoPromotion { game: self.variant.name, play: self.san_body(m, legal) });
        }
        None
    }

    /// A pawn on the target's file, one or two squares behind it, whose
    /// step forward is stopped by a piece (on the target or before it).
    fn pawn_blocked(&self, pawns: &[Square], to: Square) -> Option<Why> {
        let us = self.turn;
        let dir: i8 = if us == Color::White { 1 } else { -1 };
        for &from in pawns {
            let ahead = to.rank() as i8 - from.rank() as i8;
            if from.file() != to.file()
                || !(ahead == dir
                    || (ahead == 2 * dir && self.variant.double_step && self.double_step_rank(us).has(from)))
            {
                continue;
            }
            let first = from.offset(0, dir)?;
            let stop = if self.piece_at(first).is_some() { first } else { to };
            if let (Some(piece), Some(by)) = (self.named(from), self.named(stop)) {
                return Some(Why::Blocked { piece, to, by });
            }
        }
        None
    }

    /// True if the piece answers to `letter` (`None`: a plain pawn).
    fn answers_to(&self, p: Piece, letter: Option<&str>) -> bool {
        let code = self.piece_code(p).to_ascii_uppercase();
        match letter {
            // A piece holding the Pawn power (or a half of it) moves as a
            // pawn too (PA4, C4, CS3).
            None => {
                !p.promoted
                    && !p.royal
                    && (p.powers.joined() == Powers::PAWN || p.powers.whole().contains(Powers::PAWN))
            }
            Some(l) if p.promoted => l == "G" || l == code || format!("+{code}") == l,
            Some(l) => l == code || (l.len() == 1 && self.power_letters(p).iter().any(|c| l.starts_with(*c))),
        }
    }

    /// A Construction reward as the reserve holds it (C5, CS5): `a static
    /// piece`, `a rook power`, `a rook moving half`; `index` is the piece
    /// type's in the variant.
    pub fn reward_name(&self, index: u8) -> String {
        let Some(piece) = self.variant.pieces.get(index as usize) else { return "a reward".to_string() };
        let name = piece.name.to_ascii_lowercase();
        if name.contains("half") || name.contains("static") { format!("a {name}") } else { format!("a {name} power") }
    }

    fn group_name(&self, squares: &[Square]) -> String {
        let names: Vec<String> = squares.iter().filter_map(|s| self.named(*s)).map(|n| n.name).collect();
        match names.first() {
            Some(first) if names.iter().all(|n| n == first) => first.clone(),
            _ => "piece".to_string(),
        }
    }

    /// Legal moves of the pieces meant, nearest the target first (up to 3).
    fn suggestions(&self, meant: &[Square], to: Square, legal: &MoveList) -> Vec<String> {
        let mut near: Vec<(u32, String)> = legal
            .iter()
            .filter(|m| m.from().is_some_and(|f| meant.contains(&f)))
            .filter(|m| !matches!(m, Move::Normal { keep: true, .. } | Move::EnPassant { keep: true, .. }))
            .map(|m| {
                let t = m.to();
                (t.file().abs_diff(to.file()) as u32 + t.rank().abs_diff(to.rank()) as u32, self.san(m))
            })
            .collect();
        near.sort();
        near.dedup_by(|a, b| a.1 == b.1);
        near.into_iter().take(3).map(|(_, s)| s).collect()
    }

    /// Why the piece of the side to move on `from` has no legal move though
    /// it could move if its royal piece could be left attacked: it is pinned,
    /// or its side is in check and none of its moves answers it. `None`
    /// where it has a legal move or would have none anyway (hemmed in).
    pub fn why_stuck(&self, from: Square) -> Option<Why> {
        if self.legal_moves().iter().any(|m| m.from() == Some(from)) {
            return None;
        }
        let pseudo = self.unrestricted_moves();
        let first = pseudo.iter().find(|m| m.from() == Some(from) && matches!(m, Move::Normal { .. }))?;
        Some(self.why_king(*first))
    }

    /// Why a move that its piece could make leaves the royal piece attacked.
    fn why_king(&self, m: Move) -> Why {
        let us = self.turn;
        let mover = m.from().and_then(|f| self.piece_at(f));
        let king_moves = mover.is_some_and(|p| p.royal);
        let in_check = self.is_check();
        let mut after = self.clone();
        after.play_unchecked(m);
        let by = after
            .royal_square(us)
            .map(|k| after.checkers_of(us, k))
            .and_then(|b| b.first())
            .and_then(|sq| after.named(sq));
        let checkers = self.checkers();
        // Pinned: the attacker was there before, does not check now, and the
        // moving piece stood on the line between it and the King.
        let pinned = !king_moves
            && by.as_ref().is_some_and(|b| {
                !checkers.has(b.square)
                    && self.royal_square(us).zip(m.from()).is_some_and(|(k, f)| tables().between(k, b.square).has(f))
            });
        Why::KingInCheck { king_moves, in_check: in_check && !pinned, by, pinned, royal: self.royal_name() }
    }

    fn why_not_castle(&self, long: bool) -> Option<CastleWhy> {
        if !self.variant.castling && self.variant.grants {
            return Some(CastleWhy::SwapInstead(self.variant.name));
        }
        if !self.variant.castling {
            return Some(CastleWhy::NotInVariant(self.variant.name));
        }
        let us = self.turn;
        let king = self.royal_square(us)?;
        let rights = self.castling & self.pieces_of(us);
        let rook = rights.into_iter().find(|r| r.rank() == king.rank() && (r.file() < king.file()) == long);
        let Some(rook) = rook else {
            // With no right left on either side: the King has moved when it
            // is off its first square; on it, either it went and came back
            // or both rooks moved, which the position cannot tell apart.
            let first_rank = if us == Color::White { 0 } else { self.variant.height - 1 };
            let home = king.rank() == first_rank && king.file() == self.variant.width / 2;
            return Some(match (rights.is_empty(), home) {
                (false, _) => CastleWhy::RookMoved,
                (true, false) => CastleWhy::KingMoved,
                (true, true) => CastleWhy::RightsLost,
            });
        };
        if self.is_check() {
            return Some(CastleWhy::InCheck);
        }
        let t = tables();
        let (kd, rd) = castle_squares(king, rook);
        let king_path = t.between(king, kd) | kd.bb();
        let must_be_empty =
            (t.between(king, rook) | king_path | t.between(rook, rd) | rd.bb()) & !king.bb() & !rook.bb();
        let standing: Vec<Square> = (must_be_empty & self.occupied()).into_iter().collect();
        if !standing.is_empty() {
            return Some(CastleWhy::PiecesBetween(standing));
        }
        let them = self.pieces_of(!us);
        let lifted = self.occupied() & !king.bb();
        let mut path: Vec<Square> = king_path.into_iter().collect();
        path.sort_by_key(|s| s.file().abs_diff(king.file()));
        for sq in path {
            let by = self.attackers(sq, !us, them, lifted);
            if by.any() {
                return Some(CastleWhy::Attacked(sq, by.first().and_then(|s| self.named(s))));
            }
        }
        None
    }

    /// True if the intent's letter is of a piece type the mover could drop.
    fn droppable(&self, intent: &Intent) -> bool {
        let Some(letter) = intent.letter.as_deref().and_then(|l| l.chars().next()) else { return false };
        let Some(i) = self.variant.piece_index(letter) else { return false };
        // A capture is never a drop (O5: drops go to empty squares), and a
        // letter with a piece of that kind on the board is a move of it:
        // `R@c3` is how a drop is written where both could be meant.
        if intent.capture {
            return false;
        }
        !self.has_on_board(i)
    }

    /// Whether the side to move has a piece of type `i` on the board.
    pub(crate) fn has_on_board(&self, i: u8) -> bool {
        Iterator::any(&mut self.pieces_of(self.turn).into_iter(), |sq| {
            self.piece_at(sq).is_some_and(|p| self.variant.piece_index_of(p.powers, p.royal) == Some(i))
        })
    }

    fn why_not_drop(&self, intent: &Intent, to: Square) -> Option<Why> {
        let letter = intent.letter.as_deref()?.chars().next()?;
        let Some(i) = self.variant.piece_index(letter) else {
            return Some(Why::NoSuchPiece {
                name: letter.to_string(),
                unknown: true,
                place: None,
                pieces: self.piece_letters(),
            });
        };
        let name = self.variant.pieces[i as usize].name.to_ascii_lowercase();
        let pt = self.variant.pieces[i as usize];
        if self.variant.grants && !pt.powers.is_empty() && !pt.royal {
            let letter = (self.hand(self.turn, i) > 0 || !self.variant.split_powers).then_some(pt.letter);
            return Some(Why::PowerDropped { letter, to });
        }
        if self.hand(self.turn, i) == 0 {
            return Some(Why::NotInHand(name));
        }
        if self.piece_at(to).is_some() {
            return self.named(to).map(Why::DropOccupied);
        }
        if self.variant.grants {
            let n = self.variant.drop_ranks;
            let rank = if self.turn == Color::White { to.rank() } else { self.variant.height - 1 - to.rank() };
            if rank >= n {
                return Some(Why::DropZone(n));
            }
        }
        if self.variant.pieces[i as usize].powers == Powers::PAWN && self.last_rank(self.turn).has(to) {
            return Some(Why::PawnDropLastRank);
        }
        if self.is_check() {
            let by = self.checkers().first().and_then(|s| self.named(s));
            return Some(Why::KingInCheck {
                king_moves: false,
                in_check: true,
                by,
                pinned: false,
                royal: self.royal_name(),
            });
        }
        None
    }

    /// C2-C4: why a power cannot be given (`R>e2`).
    fn why_not_grant(&self, letter: &str, sq: &str) -> Option<Why> {
        let to = Square::parse(sq)?;
        let mut chars = letter.chars();
        let (Some(l), None) = (chars.next(), chars.next()) else { return None };
        let queen = match self.variant.piece_index(l.to_ascii_uppercase()) {
            Some(i) => self.variant.pieces[i as usize].powers.joined() == Powers::QUEEN,
            None => l.eq_ignore_ascii_case(&'Q'),
        };
        if queen {
            return Some(Why::NoQueenPower { to: to.to_string(), halves: self.variant.split_powers });
        }
        let i = self.variant.piece_index(l.to_ascii_uppercase())?;
        let pt = self.variant.pieces[i as usize];
        let name = pt.name.to_string();
        // CS1, CS2: a whole power, where the reserve holds its halves.
        if self.variant.split_powers && self.hand(self.turn, i) == 0 {
            let whole = pt.powers.joined();
            let letter_of = |half: Powers| self.variant.pieces.iter().find(|p| p.powers == half).map(|p| p.letter);
            if let (Some(moving), Some(capturing)) = (letter_of(whole.move_halves()), letter_of(whole.take_halves())) {
                return Some(Why::HalvesOnly { power: name, moving, capturing, to });
            }
        }
        if self.hand(self.turn, i) == 0 || pt.powers.count() != 1 || pt.royal {
            return Some(Why::NotInReserve(name));
        }
        let Some(p) = self.piece_at(to).filter(|p| p.color == self.turn) else {
            return Some(Why::GrantNotOwn(to));
        };
        if p.powers.contains(pt.powers) {
            return self.named(to).map(|n| Why::AlreadyHolds(n, name));
        }
        // C4, CS3: neither the Pawn power nor a Pawn half.
        if pt.powers.intersects(Powers::PAWN_ANY) && self.last_rank(self.turn).has(to) {
            return Some(Why::PawnPowerLastRank { half: self.variant.split_powers });
        }
        None
    }

    /// O3: a plain move that could also promote (the Silver's `Sxc1`), read
    /// from text that said neither: the choice to put to the player.
    pub(crate) fn promote_or_not(&self, m: &Move, legal: &MoveList) -> Option<Why> {
        let Move::Normal { from, to, promote: Promote::No, keep } = *m else { return None };
        if !matches!(self.variant.promotion, Promotion::Flip { .. }) {
            return None;
        }
        let flip = Move::Normal { from, to, promote: Promote::Flip, keep };
        if !legal.contains(&flip) {
            return None;
        }
        // SAN says the staying (`Sxb5=S`) where promoting was possible.
        Some(Why::PromoteOrNot { promote: self.san_body(&flip, legal), stay: self.san_body(m, legal) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::Variant;

    #[test]
    fn intent_reads_san_and_canonical() {
        let i = read_intent("Nbxd2").unwrap();
        assert_eq!(
            (i.letter.as_deref(), i.from_file, i.capture, i.to),
            (Some("N"), Some(1), true, Square::parse("d2"))
        );
        let i = read_intent("e2e4").unwrap();
        assert!(i.canonical && i.from_file == Some(4) && i.from_rank == Some(1));
        let i = read_intent("gxh8").unwrap();
        assert_eq!((i.letter, i.from_file, i.promote), (None, Some(6), None));
        assert_eq!(read_intent("e8=Q").unwrap().promote.as_deref(), Some("Q"));
        assert_eq!(read_intent("0-0-0").unwrap().castle, Some(true));
        assert!(read_intent("hello").is_none());
    }

    #[test]
    fn names_of_compounds() {
        let p = Position::new(Variant::by_id("absorption").unwrap());
        let mut piece = Piece::new(Color::White, Powers::KNIGHT.with(Powers::PAWN));
        assert_eq!(p.piece_name(piece), "knight-pawn");
        piece.powers = Powers::BISHOP.with(Powers::KNIGHT);
        assert_eq!(p.piece_name(piece), "bishop-knight");
        assert_eq!(p.power_letters(piece), vec!['B', 'N']);
    }
}
