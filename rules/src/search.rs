//! A short search that finds good moves: the source of hints.
//!
//! Iterative deepening of a plain alpha-beta over [`Position`] with a
//! material evaluation, captures first. It is deliberately small; the bot's
//! real engine (transposition table, quiescence, per-variant evaluation)
//! replaces it later. Whatever it finds is one of the position's legal moves.

use std::time::{Duration, Instant};

use crate::moves::{Move, MoveList};
use crate::piece::Powers;
use crate::position::Position;
use crate::types::Color;
use crate::variant::Goal;

/// Score of a won position, minus the plies to reach it.
pub const MATE: i32 = 1_000_000;

/// What the search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The best move (always legal in the searched position).
    pub best: Move,
    /// Its score in centipawns for the side to move (±[`MATE`] minus plies
    /// for forced wins and losses).
    pub score: i32,
    /// The deepest depth completed.
    pub depth: u32,
    /// Positions visited.
    pub nodes: u64,
}

impl Found {
    /// Moves to mate, if the score says the side to move mates.
    pub fn mate_in(&self) -> Option<u32> {
        (self.score > MATE - 1000).then(|| (MATE - self.score + 1) as u32 / 2)
    }
}

/// Searches `pos` for at most `limit` time and `max_depth` plies. `None` if
/// the position has no legal move.
pub fn best_move(pos: &Position, limit: Duration, max_depth: u32) -> Option<Found> {
    let root = pos.legal_moves();
    let first = *root.first()?;
    let mut s = Searcher { deadline: Instant::now() + limit, nodes: 0, stopped: false };
    let mut found = Found { best: first, score: 0, depth: 0, nodes: 0 };
    let mut order: Vec<Move> = ordered(pos, &root);
    for depth in 1..=max_depth.max(1) {
        let mut best: Option<(Move, i32)> = None;
        let mut alpha = -MATE - 1;
        for &m in &order {
            let mut next = pos.clone();
            next.play_unchecked(m);
            let score = -s.negamax(&next, depth - 1, 1, -MATE - 1, -alpha);
            if s.stopped {
                break;
            }
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((m, score));
                alpha = alpha.max(score);
            }
        }
        if s.stopped {
            break;
        }
        if let Some((m, score)) = best {
            found = Found { best: m, score, depth, nodes: s.nodes };
            // Search the best move first next time.
            order.retain(|x| *x != m);
            order.insert(0, m);
            if score.abs() > MATE - 1000 {
                break;
            }
        }
    }
    found.nodes = s.nodes;
    Some(found)
}

struct Searcher {
    deadline: Instant,
    nodes: u64,
    stopped: bool,
}

impl Searcher {
    fn negamax(&mut self, pos: &Position, depth: u32, ply: i32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(1024) && Instant::now() >= self.deadline {
            self.stopped = true;
            return 0;
        }
        if let Some(outcome) = pos.outcome() {
            return match outcome.winner {
                None => 0,
                Some(w) if w == pos.turn() => MATE - ply,
                Some(_) => -(MATE - ply),
            };
        }
        if depth == 0 {
            return evaluate(pos);
        }
        let moves = pos.legal_moves();
        let mut best = -MATE - 1;
        for m in ordered(pos, &moves) {
            let mut next = pos.clone();
            next.play_unchecked(m);
            let score = -self.negamax(&next, depth - 1, ply + 1, -beta, -alpha);
            if self.stopped {
                return 0;
            }
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// Captures (most valuable victim first) and promotions before quiet moves.
fn ordered(pos: &Position, moves: &MoveList) -> Vec<Move> {
    let mut scored: Vec<(i32, Move)> = moves
        .iter()
        .map(|&m| {
            let victim = match m {
                Move::Normal { to, .. } => pos.piece_at(to).map_or(0, |p| value(pos, p.powers)),
                Move::EnPassant { .. } => 100,
                _ => 0,
            };
            let promotes = matches!(m, Move::Normal { promote, .. } if promote != crate::moves::Promote::No);
            (victim + if promotes { 800 } else { 0 }, m)
        })
        .collect();
    scored.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
    scored.into_iter().map(|(_, m)| m).collect()
}

/// Centipawn value of a set of powers (a compound is the sum of its parts).
fn value(pos: &Position, powers: Powers) -> i32 {
    let race = pos.variant().goal == Goal::PawnRace;
    powers
        .singles()
        .map(|p| match p {
            p if p == Powers::PAWN => {
                if race {
                    300
                } else {
                    100
                }
            }
            p if p == Powers::KNIGHT => 300,
            p if p == Powers::BISHOP => 320,
            p if p == Powers::ROOK => 500,
            p if p == Powers::SILVER => 350,
            p if p == Powers::GOLD => 400,
            p if p == Powers::KING => 250,
            _ => 0,
        })
        .sum()
}

/// Material (hands at nine tenths), plus Alapawn's race: advanced pawns.
fn evaluate(pos: &Position) -> i32 {
    let v = pos.variant();
    let mut score = [0i32; 2];
    for sq in pos.occupied() {
        let Some(p) = pos.piece_at(sq) else { continue };
        let side = p.color.index();
        if !p.royal {
            score[side] += value(pos, pos.moves_of(p));
        }
        if v.goal == Goal::PawnRace && p.powers == Powers::PAWN {
            let advance = if p.color == Color::White { sq.rank() } else { v.height - 1 - sq.rank() } as i32;
            score[side] += advance * advance * 12;
        }
    }
    for c in Color::ALL {
        for (i, pt) in v.pieces.iter().enumerate() {
            score[c.index()] += pos.hand(c, i as u8) as i32 * value(pos, pt.powers) * 9 / 10;
        }
    }
    let us = pos.turn().index();
    score[us] - score[1 - us]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::Variant;

    fn search(variant: &str, fen: &str, depth: u32) -> Found {
        let pos = Position::from_fen(Variant::by_id(variant).unwrap(), fen).unwrap();
        best_move(&pos, Duration::from_secs(5), depth).unwrap()
    }

    #[test]
    fn finds_mate_in_one() {
        // Scholar's mate.
        let f = search("chess", "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3", 3);
        let pos = Position::from_fen(
            Variant::by_id("chess").unwrap(),
            "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3",
        )
        .unwrap();
        assert_eq!(pos.canonical(&f.best), "f3f7");
        assert_eq!(f.mate_in(), Some(1));
    }

    #[test]
    fn takes_a_free_queen() {
        let f = search("chess", "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", 2);
        let pos = Position::from_fen(Variant::by_id("chess").unwrap(), "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(pos.canonical(&f.best), "e4d5");
    }

    #[test]
    fn alapawn_wins_the_race() {
        let fen = "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1";
        let f = search("alapawn", fen, 2);
        assert!(f.mate_in().is_some(), "{f:?}");
    }
}
