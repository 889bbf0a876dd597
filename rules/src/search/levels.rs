//! The levels the bot plays at, and the simple players matches use.
//!
//! Level 8 is the engine at full strength. Levels 1 to 7 search less deep,
//! look at the moves a quick look finds good (the weakest levels also
//! overlook some), and now and then play a second-best move; from level 3
//! on they never leave a piece where a single capture wins it.

use std::time::Duration;

use super::{Engine, INF, Limits, MATE, evaluate};
use crate::moves::{Move, MoveList};
use crate::position::Position;

/// How a level plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Deepest iteration of the search.
    pub depth: u32,
    /// Centipawns below the best quick score a move may be and still be
    /// considered.
    pub slack: i32,
    /// Percent of the time the searched best move is played outright.
    pub best_share: u32,
    /// Percent of the other moves it overlooks.
    pub overlook: u32,
    /// Whether it makes sure no piece is left to a winning capture.
    pub safe: bool,
}

/// The style of `level` (1-8).
pub fn style(level: u8) -> Style {
    let level = level.clamp(1, 8);
    let (depth, slack, best_share, overlook) = match level {
        1 => (1, 350, 10, 50),
        2 => (1, 220, 25, 35),
        3 => (2, 150, 35, 25),
        4 => (3, 100, 45, 15),
        5 => (4, 70, 55, 10),
        6 => (5, 45, 70, 5),
        7 => (7, 20, 85, 0),
        _ => (64, 0, 100, 0),
    };
    Style { depth, slack, best_share, overlook, safe: level >= 3 }
}

/// About what rating in chess each level plays at: levels 4-8 from matches
/// against Stockfish 15.1 with `UCI_LimitStrength` at 100 ms a move (on its
/// `UCI_Elo` scale), levels 1-3 each from matches against the next level
/// (README, "Levels"). Levels 4-7 from 120-160 games each against one
/// `UCI_Elo`, good to about 60 points; level 8 from 160 games against two;
/// levels 1 and 2 lie below what a chain of matches between levels
/// resolves.
pub const RATINGS: [u32; 8] = [150, 500, 800, 1200, 1350, 1550, 1700, 2050];

/// A level's approximate chess rating.
pub fn level_rating(level: u8) -> u32 {
    RATINGS[usize::from(level.clamp(1, 8)) - 1]
}

/// A small random source from a seed (xorshift).
pub(crate) struct Dice(pub(crate) u64);

impl Dice {
    /// A number below `below`.
    pub(crate) fn roll(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below.max(1)
    }
}

/// The bot's move at `level`, using at most `time`. `seed` varies the
/// choices of the weaker levels.
pub fn level_move(engine: &mut Engine, pos: &Position, level: u8, time: Duration, seed: u64) -> Option<Move> {
    level_move_limited(engine, pos, level, Limits::new(time, 64), seed)
}

/// [`level_move`] within `limits` (the level's own depth still applies).
pub fn level_move_limited(engine: &mut Engine, pos: &Position, level: u8, limits: Limits, seed: u64) -> Option<Move> {
    let s = style(level);
    let found = engine.search(pos, Limits { depth: limits.depth.min(s.depth), ..limits })?;
    if s.slack == 0 || found.score.abs() > MATE - 1000 {
        return Some(found.best);
    }
    let mut dice = Dice(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    // A shallow search may itself leave a piece to be taken: the careful
    // levels then look for a safe move instead.
    let best_is_safe = !s.safe || !hangs_a_piece(pos, &found.best);
    if best_is_safe && dice.roll(100) < u64::from(s.best_share) {
        return Some(found.best);
    }
    // Every move at a quick look: one ply and the captures that follow.
    let scored = engine.quick_scores(pos);
    let top = scored.iter().map(|s| s.0).max()?;
    let mut candidates: Vec<Move> = scored
        .iter()
        .filter(|(score, m)| *score >= top - s.slack && (*m == found.best || dice.roll(100) >= u64::from(s.overlook)))
        .map(|s| s.1)
        .collect();
    if s.safe {
        candidates.retain(|m| !hangs_a_piece(pos, m));
        if candidates.is_empty() {
            // Every move it liked loses a piece: the best-looking safe move.
            let safe = scored.iter().filter(|(_, m)| !hangs_a_piece(pos, m)).max_by_key(|s| s.0);
            return Some(safe.map_or(found.best, |s| s.1));
        }
    }
    if candidates.is_empty() {
        return Some(found.best);
    }
    Some(candidates[dice.roll(candidates.len() as u64) as usize])
}

/// Centipawns of material a single capture must win to count as winning a
/// piece: more than a pawn.
const HANGING: i32 = 150;

/// Whether after `m` the opponent has a capture that wins a piece: one of
/// `m`'s mover's pieces taken undefended, or taken by something worth
/// clearly less, for more than what `m` itself captured.
pub fn hangs_a_piece(pos: &Position, m: &Move) -> bool {
    let mut values = super::Values::new();
    let taken = super::victim_value(pos, m, &mut values).unwrap_or(0);
    let mut next = pos.clone();
    next.play_unchecked(*m);
    if next.is_check() && next.legal_moves().is_empty() {
        return false;
    }
    let us = pos.turn();
    let mut replies = MoveList::new();
    next.legal_moves_into(&mut replies);
    replies.iter().any(|r| {
        let (Move::Normal { from, to, .. } | Move::EnPassant { from, to, .. }) = *r else { return false };
        let Some(victim) = super::victim_value(&next, r, &mut values) else { return false };
        let Some(attacker) = next.piece_at(from) else { return false };
        let attacker_worth = if attacker.royal { INF } else { values.of(&next, next.moves_of(attacker)) };
        let defended = next.attackers(to, us, next.pieces_of(us), next.occupied() ^ from.bb()).any();
        let gain = if defended { victim - attacker_worth.min(victim) } else { victim };
        gain - taken >= HANGING
    })
}

impl Engine {
    /// Each legal move with its score after one ply and the captures that
    /// follow (a quiescence search): what a quick look sees.
    fn quick_scores(&mut self, pos: &Position) -> Vec<(i32, Move)> {
        let saved = (self.deadline, self.stopped, self.node_limit);
        self.deadline = std::time::Instant::now() + Duration::from_secs(1);
        self.stopped = false;
        self.node_limit = u64::MAX;
        let moves = pos.legal_moves();
        let scored = moves
            .iter()
            .map(|&m| {
                let mut next = pos.clone();
                next.play_unchecked(m);
                let score = -self.quiesce(&next, 1, -INF, INF, 0, None);
                (if self.stopped { -evaluate(&next) } else { score }, m)
            })
            .collect();
        (self.deadline, self.stopped, self.node_limit) = saved;
        scored
    }
}

/// A one-ply greedy player: the move after which the evaluation is best for
/// the mover (a win at once if there is one). For matches.
pub fn greedy_move(pos: &Position) -> Option<Move> {
    let moves = pos.legal_moves();
    moves.iter().copied().max_by_key(|m| {
        let mut next = pos.clone();
        next.play_unchecked(*m);
        if next.race_decided() == Some(pos.turn()) || (next.is_check() && next.legal_moves().is_empty()) {
            return MATE;
        }
        -evaluate(&next)
    })
}
