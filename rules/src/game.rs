//! Games: a position with its history, and how games end.

use std::fmt;

use crate::moves::{Move, MoveList, Touched};
use crate::notation::MoveError;
use crate::piece::{Piece, Power};
use crate::position::Position;
use crate::types::{Color, Square};
use crate::variant::{Goal, Repetition, Variant};

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The royal piece is attacked and cannot escape.
    Checkmate,
    /// No legal move and not in check.
    Stalemate,
    /// A4: a player with no legal move loses.
    NoMoves,
    /// A3: a pawn reached the last rank.
    PawnPromoted,
    /// A3: the last enemy pawn was captured.
    LastPawnCaptured,
    /// A5: the removal rule left a side without pawns.
    Removal,
    /// A position occurred for the third time (G4 draw, or O6).
    Repetition,
    /// O6: the third occurrence came while Black checked on every move.
    PerpetualCheck,
    /// Fifty moves by each side without capture or pawn move (G4).
    FiftyMoves,
    /// Neither side can checkmate (chess, G4).
    InsufficientMaterial,
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::NoMoves => "no legal move",
            EndReason::PawnPromoted => "a pawn reached the last rank",
            EndReason::LastPawnCaptured => "the last pawn was captured",
            EndReason::Removal => "the removal rule left no pawns",
            EndReason::Repetition => "threefold repetition",
            EndReason::PerpetualCheck => "perpetual check",
            EndReason::FiftyMoves => "the fifty-move rule",
            EndReason::InsufficientMaterial => "insufficient material",
        })
    }
}

/// The result of a finished game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    fn win(c: Color, reason: EndReason) -> Outcome {
        Outcome { winner: Some(c), reason }
    }
    fn draw(reason: EndReason) -> Outcome {
        Outcome { winner: None, reason }
    }

    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn score(&self) -> &'static str {
        Outcome::score_of(self.winner)
    }

    /// The score of a game `winner` won (`None`: drawn), as PGN writes it.
    pub fn score_of(winner: Option<Color>) -> &'static str {
        match winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            // "by checkmate", but "(a pawn reached the last rank)".
            Some(c) => {
                let side = if c == Color::White { "White" } else { "Black" };
                match self.reason {
                    EndReason::Checkmate | EndReason::Stalemate => {
                        write!(f, "{} {side} wins by {}", self.score(), self.reason)
                    }
                    reason => write!(f, "{} {side} wins ({reason})", self.score()),
                }
            }
            None => write!(f, "{} draw ({})", self.score(), self.reason),
        }
    }
}

impl Position {
    /// How the game stands on this position alone: checkmate, stalemate,
    /// Alapawn's race (A3, A4), the fifty-move rule and insufficient material
    /// (G4). Repetition needs the history: see [`Game`].
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(w) = self.race_decided() {
            let pawns = self.power(Power::Pawn) & self.by_color[(!w).index()];
            let reason = if pawns.is_empty() { EndReason::LastPawnCaptured } else { EndReason::PawnPromoted };
            return Some(Outcome::win(w, reason));
        }
        if self.legal_moves().is_empty() {
            return Some(match self.variant.goal {
                Goal::PawnRace => Outcome::win(!self.turn, EndReason::NoMoves),
                Goal::Checkmate if self.is_check() => Outcome::win(!self.turn, EndReason::Checkmate),
                Goal::Checkmate => Outcome::draw(EndReason::Stalemate),
            });
        }
        self.draw_on_board().map(Outcome::draw)
    }

    /// G4 draws that the position alone shows.
    fn draw_on_board(&self) -> Option<EndReason> {
        if self.variant.repetition == Repetition::Draw && self.halfmoves >= 100 {
            return Some(EndReason::FiftyMoves);
        }
        if self.variant.insufficient_material && self.is_insufficient_material() {
            return Some(EndReason::InsufficientMaterial);
        }
        None
    }

    /// FIDE's dead positions that are recognised by material: bare kings,
    /// a single minor piece, or bishops all on squares of one colour.
    pub fn is_insufficient_material(&self) -> bool {
        let heavy = self.power(Power::Pawn) | self.power(Power::Rook);
        if heavy.any() {
            return false;
        }
        let minors = self.occupied() & !self.royal;
        if minors.count() <= 1 {
            return true;
        }
        let knights = self.power(Power::Knight);
        if (minors & knights).any() {
            return false;
        }
        const DARK: u64 = 0xaa55_aa55_aa55_aa55;
        let bishops = minors.0;
        bishops & DARK == 0 || bishops & !DARK == 0
    }
}

/// One entry of a game's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    hash: u64,
    /// The side that moved into this position (`None` for the start).
    mover: Option<Color>,
    /// The side to move is in check here.
    check: bool,
}

/// What playing a move did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// The move.
    pub mv: Move,
    /// Its canonical token.
    pub canonical: String,
    /// Its SAN.
    pub san: String,
    /// A5: pieces the removal rule took off the board.
    pub removed: Vec<(Square, Piece)>,
    /// A5: what set the removal off, a third repetition
    /// ([`EndReason::Repetition`]) or fifty quiet moves
    /// ([`EndReason::FiftyMoves`]); `None` when nothing was removed.
    pub removal: Option<EndReason>,
    /// The result, if the move ended the game.
    pub outcome: Option<Outcome>,
    /// The opponent's pieces the move took, with the squares they stood on
    /// (a Rabbit's chain and a shot take pieces away from where it lands).
    pub taken: Vec<(Square, Piece)>,
    /// PA3: the moving piece as it stands after absorbing its victim's
    /// powers, with what it was before; `None` when nothing was absorbed.
    pub absorbed: Option<(Piece, Piece)>,
    /// The mover's own piece the move took off the board, with the square
    /// it moved from: a Rabbit leaving with its edge victim (CA2), a piece
    /// that took a Phoenix (CA7).
    pub lost: Option<(Square, Piece)>,
}

/// A game in progress: the position, the moves so far and the history that
/// repetition rules need.
#[derive(Debug, Clone)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// Positions since the last reset of the repetition history (A5 resets).
    history: Vec<Entry>,
    /// A5: the square of each side's most recently moved piece, while it
    /// stands there.
    last_moved: [Option<Square>; 2],
    /// Every square the last move touched, read before it was played.
    last_touched: Touched,
    outcome: Option<Outcome>,
}

impl Game {
    /// A new game of `variant` from its start position.
    pub fn new(variant: &'static Variant) -> Game {
        Game::from_position(Position::new(variant))
    }

    /// A new game from any position.
    pub fn from_position(position: Position) -> Game {
        let entry = Entry { hash: position.repetition_key(), mover: None, check: position.is_check() };
        let outcome = position.outcome();
        Game {
            start: position.clone(),
            position,
            moves: Vec::new(),
            history: vec![entry],
            last_moved: [None; 2],
            last_touched: Touched::new(),
            outcome,
        }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The positions before the current one, oldest first: what a search
    /// needs to see repetitions ([`crate::search::Engine::set_history`]).
    pub fn earlier_visits(&self) -> Vec<crate::search::Visit> {
        let mut p = self.start.clone();
        self.moves
            .iter()
            .map(|m| {
                let v = crate::search::Visit::of(&p);
                p.play_unchecked(*m);
                v
            })
            .collect()
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Every square the last move touched (see
    /// [`Position::touched_squares`]); empty before the first move.
    pub fn last_touched(&self) -> &[Square] {
        &self.last_touched
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// The legal moves; none once the game is over (G5).
    pub fn legal_moves(&self) -> MoveList {
        if self.outcome.is_some() { MoveList::new() } else { self.position.legal_moves() }
    }

    /// Reads and plays a move typed by a person (canonical or SAN).
    pub fn play_text(&mut self, text: &str) -> Result<Played, MoveError> {
        if self.outcome.is_some() {
            return Err(MoveError::GameOver);
        }
        let m = self.position.parse_move(text)?;
        self.play(m)
    }

    /// Plays a move, if it is legal.
    pub fn play(&mut self, m: Move) -> Result<Played, MoveError> {
        if self.outcome.is_some() {
            return Err(MoveError::GameOver);
        }
        if !self.position.is_legal(&m) {
            return Err(MoveError::Illegal { text: self.position.canonical(&m), closest: Vec::new() });
        }
        let mover = self.position.turn();
        let canonical = self.position.canonical(&m);
        let san = self.position.san(&m);
        let before = self.position.clone();
        self.track_last_moved(mover, &m);
        self.last_touched = self.position.touched_squares(&m);
        self.position.play_unchecked(m);
        let mut taken = before.taken_by(&self.position);
        if matches!(m, Move::Chain { .. }) {
            // A chain's victims in the order it jumps them (CA2).
            let path = before.chain_path(&m);
            taken.sort_by_key(|(sq, _)| path.iter().position(|(jumped, _)| jumped == sq).unwrap_or(usize::MAX));
        }
        let lost = before.lost_by(&m, &self.position);
        let absorbed = match m {
            Move::Normal { from, to, .. } | Move::EnPassant { from, to, .. } if self.position.variant().absorption => {
                // PA7: what the mover's side may absorb of its victim.
                let handicap = before.handicaps().of(mover);
                before.piece_at(from).zip(self.position.piece_at(to)).filter(|(was, now)| {
                    now.powers != was.powers
                        && taken.iter().any(|(_, v)| {
                            let gained = handicap.absorbable(v.powers);
                            !gained.is_empty() && now.powers.contains(gained)
                        })
                })
            }
            _ => None,
        };
        self.moves.push(m);
        let entry = Entry { hash: self.position.repetition_key(), mover: Some(mover), check: self.position.is_check() };
        self.history.push(entry);
        let mut removed = Vec::new();
        let mut removal = None;
        self.outcome = self.position.outcome().or_else(|| self.history_outcome(mover, &mut removed, &mut removal));
        Ok(Played { mv: m, canonical, san, removed, removal, outcome: self.outcome, taken, absorbed, lost })
    }

    fn track_last_moved(&mut self, mover: Color, m: &Move) {
        let (captured, dest) = match *m {
            Move::Normal { to, .. } => (Some(to), Some(to)),
            Move::EnPassant { from, to, .. } => (Some(Square::new(from.rank() * 8 + to.file())), Some(to)),
            Move::Castle { king, rook } => (None, Some(crate::moves::castle_squares(king, rook).0)),
            Move::Drop { to, .. } => (None, Some(to)),
            Move::Grant { to, .. } => (None, Some(to)),
            Move::Swap { king, .. } => (None, Some(king)),
            Move::Chain { .. } | Move::Shoot { .. } | Move::Shield { .. } => (None, m.from()),
            // Of two pawns, the second is the most recently moved piece.
            Move::PawnPair { second, .. } => (None, Some(second.1)),
        };
        let them = (!mover).index();
        if captured.is_some() && self.last_moved[them] == captured {
            self.last_moved[them] = None;
        }
        self.last_moved[mover.index()] = dest;
    }

    /// Repetition rules, which need the history.
    fn history_outcome(
        &mut self,
        mover: Color,
        removed: &mut Vec<(Square, Piece)>,
        removal: &mut Option<EndReason>,
    ) -> Option<Outcome> {
        let now = self.history.len() - 1;
        let hash = self.history[now].hash;
        let occurrences: Vec<usize> = (0..=now).filter(|&i| self.history[i].hash == hash).collect();
        match self.position.variant().repetition {
            Repetition::Draw => (occurrences.len() >= 3).then(|| Outcome::draw(EndReason::Repetition)),
            Repetition::WhiteLoses => {
                if occurrences.len() < 3 {
                    return None;
                }
                // O6: did every Black move since the previous occurrence check?
                let previous = occurrences[occurrences.len() - 2];
                let perpetual =
                    self.history[previous + 1..=now].iter().filter(|e| e.mover == Some(Color::Black)).all(|e| e.check);
                Some(if perpetual {
                    Outcome::win(Color::White, EndReason::PerpetualCheck)
                } else {
                    Outcome::win(Color::Black, EndReason::Repetition)
                })
            }
            Repetition::Removal => {
                if occurrences.len() < 3 && self.position.halfmoves() < 100 {
                    return None;
                }
                // A5: remove each side's most recently moved piece.
                *removal = Some(if occurrences.len() >= 3 { EndReason::Repetition } else { EndReason::FiftyMoves });
                for c in Color::ALL {
                    if let Some(sq) = self.last_moved[c.index()].take()
                        && self.position.piece_at(sq).is_some_and(|p| p.color == c)
                        && let Some(p) = self.position.remove(sq)
                    {
                        removed.push((sq, p));
                    }
                }
                let pawns = self.position.power(Power::Pawn);
                let has = |c: Color| (pawns & self.position.pieces_of(c)).any();
                let outcome = match (has(Color::White), has(Color::Black)) {
                    (true, true) => None,
                    (true, false) => Some(Outcome::win(Color::White, EndReason::Removal)),
                    (false, true) => Some(Outcome::win(Color::Black, EndReason::Removal)),
                    (false, false) => Some(Outcome::win(!mover, EndReason::Removal)),
                };
                if outcome.is_none() {
                    // Play goes on with a fresh history and count.
                    self.position.halfmoves = 0;
                    let p = &self.position;
                    self.history = vec![Entry { hash: p.repetition_key(), mover: Some(mover), check: p.is_check() }];
                    if self.position.legal_moves().is_empty() {
                        return self.position.outcome();
                    }
                }
                outcome
            }
        }
    }
}
