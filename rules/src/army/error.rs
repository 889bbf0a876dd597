//! Why an action of a match was refused, in a sentence for the player.

use thiserror::Error;

use super::pieces::{back_rank, peasant_rank, shade};
use super::{PieceClass, PieceKind, RoundEnd, gold_text};
use crate::types::{Color, Square};

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
    /// The auction of the ultimate round is decided (CA14).
    #[error("The Amazon's auction is over: the sealed bids come once, before the ultimate round, and both are in.")]
    AuctionOver,
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

pub(super) fn color_name(c: Color) -> &'static str {
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
