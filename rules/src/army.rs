//! The match of Clash of the Armies (`clash`): rounds, points, gold, armies,
//! survivors and the ultimate round's auction (rulings CA10-CA14).
//!
//! This module is the state machine around the rounds; the rounds themselves
//! are played by the rules engine from [`Match::start_fen`]. The pieces and
//! their classes are in `army/pieces.rs`, an army's buying, selling and
//! placing in `army/forces.rs`, the refusals' sentences in `army/error.rs`,
//! and the computer player's choices in [`plan`]. Everything here
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

mod error;
mod forces;
mod pieces;
pub mod plan;

use std::fmt;

use error::color_name;
use pieces::back_rank;

pub use error::ArmyError;
pub use forces::{Army, ArmyPiece};
pub use pieces::{PieceClass, PieceKind, PieceRef};

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
                // Past the auction, in the ultimate round.
                _ if self.round == ULTIMATE_ROUND => ArmyError::AuctionOver,
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
                let must = self.auction.as_ref().is_some_and(|a| a.must_raise(to_move));
                if to_move == color && must {
                    format!(
                        "Auction: the bid stands at {}; raise by 0.5 (after equal bids White raises first, CA14).",
                        gold_text(standing)
                    )
                } else if to_move == color {
                    format!("Auction: the bid stands at {}; raise by 0.5 or pass.", gold_text(standing))
                } else if must {
                    format!(
                        "Auction: the bid stands at {}; {} raises first (CA14).",
                        gold_text(standing),
                        color_name(to_move)
                    )
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
