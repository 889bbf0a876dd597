//! The search: hints, analysis and a bot to play against.
//!
//! Iterative deepening of a principal-variation alpha-beta search with a
//! transposition table keyed by the Zobrist hash, a quiescence search over
//! captures (and, in Alapawn, pawn steps onto the last rank), and move
//! ordering by the table's move, captures (most valuable victim, least
//! valuable attacker), killer moves and history. The clock is checked every
//! few thousand nodes, so a time limit is kept to within a millisecond or
//! two. Whatever it finds is one of the position's legal moves.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::moves::{Move, MoveList, Promote};
use crate::piece::Powers;
use crate::position::Position;
use crate::types::{Color, Square};
use crate::variant::Goal;

/// Score of a won position, minus the plies to reach it.
pub const MATE: i32 = 1_000_000;
const INF: i32 = MATE + 1;
const MAX_PLY: usize = 128;

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
    /// The principal variation, starting with `best`.
    pub pv: Vec<Move>,
    /// Time spent.
    pub elapsed: Duration,
}

impl Found {
    /// Moves to mate, if the side to move mates by force.
    pub fn mate_in(&self) -> Option<u32> {
        (self.score > MATE - 1000).then(|| (MATE - self.score + 1) as u32 / 2)
    }

    /// Moves to being mated, if the side to move is mated by force.
    pub fn mated_in(&self) -> Option<u32> {
        (self.score < -(MATE - 1000)).then(|| (MATE + self.score) as u32 / 2)
    }
}

/// How long and how deep to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time.
    pub time: Duration,
    /// Deepest iteration.
    pub depth: u32,
}

/// Searches `pos` for at most `limit` time and `max_depth` plies with a
/// fresh engine. `None` if the position has no legal move.
pub fn best_move(pos: &Position, limit: Duration, max_depth: u32) -> Option<Found> {
    Engine::new(16).search(pos, Limits { time: limit, depth: max_depth })
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    best: Option<Move>,
    score: i32,
    depth: i8,
    bound: Bound,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

/// A search engine with its transposition table, reusable across searches.
pub struct Engine {
    table: Vec<Entry>,
    deadline: Instant,
    stopped: bool,
    nodes: u64,
    killers: [[Option<Move>; 2]; MAX_PLY],
    history: Vec<i32>,
    path: Vec<u64>,
    cancel: Arc<AtomicBool>,
}

impl Engine {
    /// An engine whose table takes about `megabytes` of memory.
    pub fn new(megabytes: usize) -> Engine {
        let entries = (megabytes.max(1) << 20) / std::mem::size_of::<Entry>();
        Engine {
            table: vec![Entry::default(); entries.next_power_of_two() / 2],
            deadline: Instant::now(),
            stopped: false,
            nodes: 0,
            killers: [[None; 2]; MAX_PLY],
            history: vec![0; 64 * 64],
            path: Vec::with_capacity(MAX_PLY),
            cancel: Arc::new(AtomicBool::new(false)),
        }
    }

    /// A flag that, once set, ends the running search and every later one
    /// within a few thousand nodes, as if their time were up.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }

    /// Searches `pos` within `limits`. `None` if there is no legal move.
    pub fn search(&mut self, pos: &Position, limits: Limits) -> Option<Found> {
        let start = Instant::now();
        let root = pos.legal_moves();
        let first = *root.first()?;
        self.deadline = start + limits.time;
        self.stopped = false;
        self.nodes = 0;
        self.killers = [[None; 2]; MAX_PLY];
        self.history.iter_mut().for_each(|h| *h /= 8);
        self.path.clear();
        let mut found = Found { best: first, score: 0, depth: 0, nodes: 0, pv: vec![first], elapsed: Duration::ZERO };
        if root.len() == 1 {
            found.score = evaluate(pos);
            return Some(found);
        }
        for depth in 1..=limits.depth.clamp(1, MAX_PLY as u32 - 8) {
            let score = self.negamax(pos, depth as i32, 0, -INF, INF);
            if self.stopped {
                break;
            }
            let pv = self.principal_variation(pos, depth as usize);
            if let Some(&best) = pv.first() {
                found = Found { best, score, depth, nodes: self.nodes, pv, elapsed: start.elapsed() };
            }
            if score.abs() > MATE - 1000 && depth as i32 >= MATE - score.abs() {
                break;
            }
            // Another iteration would not finish in time.
            if start.elapsed() * 2 > limits.time {
                break;
            }
        }
        found.nodes = self.nodes;
        found.elapsed = start.elapsed();
        Some(found)
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.table.len() - 1)
    }

    fn principal_variation(&self, pos: &Position, max: usize) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut p = pos.clone();
        let mut seen = Vec::new();
        while pv.len() < max {
            let e = self.table[self.slot(p.hash())];
            let Some(m) = e.best.filter(|_| e.key == p.hash()) else { break };
            if !p.is_legal(&m) || seen.contains(&p.hash()) {
                break;
            }
            seen.push(p.hash());
            pv.push(m);
            p.play_unchecked(m);
        }
        pv
    }

    fn out_of_time(&mut self) -> bool {
        if self.nodes & 2047 == 0 && (Instant::now() >= self.deadline || self.cancel.load(Ordering::Relaxed)) {
            self.stopped = true;
        }
        self.stopped
    }

    /// Counts the node; a score at once if time is up or the race is decided.
    fn enter(&mut self, pos: &Position, ply: i32) -> Option<i32> {
        self.nodes += 1;
        if self.out_of_time() {
            return Some(0);
        }
        pos.race_decided().map(|w| won_or_lost(w == pos.turn(), ply))
    }

    fn negamax(&mut self, pos: &Position, mut depth: i32, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        let ply_score = ply as i32;
        if let Some(score) = self.enter(pos, ply_score) {
            return score;
        }
        let hash = pos.hash();
        if ply > 0 && self.path.contains(&hash) {
            return 0;
        }
        if ply >= MAX_PLY - 2 {
            return evaluate(pos);
        }
        let in_check = pos.is_check();
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiesce(pos, ply, alpha, beta, 0);
        }
        let slot = self.slot(hash);
        let entry = self.table[slot];
        let mut tt_move = None;
        if entry.key == hash {
            tt_move = entry.best;
            if ply > 0 && entry.depth as i32 >= depth {
                let s = from_table(entry.score, ply_score);
                match entry.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            return no_moves(pos, in_check, ply_score);
        }
        let ordered = self.order(pos, &moves, tt_move, ply);
        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_move = ordered[0];
        self.path.push(hash);
        for (i, &m) in ordered.iter().enumerate() {
            let mut next = pos.clone();
            next.play_unchecked(m);
            let score = if i == 0 {
                -self.negamax(&next, depth - 1, ply + 1, -beta, -alpha)
            } else {
                let s = -self.negamax(&next, depth - 1, ply + 1, -alpha - 1, -alpha);
                if s > alpha && s < beta { -self.negamax(&next, depth - 1, ply + 1, -beta, -alpha) } else { s }
            };
            if self.stopped {
                self.path.pop();
                return 0;
            }
            if score > best {
                best = score;
                best_move = m;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if !is_noisy(pos, &m) {
                    let k = &mut self.killers[ply];
                    if k[0] != Some(m) {
                        k[1] = k[0];
                        k[0] = Some(m);
                    }
                    if let (Some(f), t) = (m.from(), m.to()) {
                        self.history[f.index() * 64 + t.index()] += depth * depth;
                    }
                }
                break;
            }
        }
        self.path.pop();
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table[slot] = Entry {
            key: hash,
            best: Some(best_move),
            score: to_table(best, ply_score),
            depth: depth.min(127) as i8,
            bound,
        };
        best
    }

    fn quiesce(&mut self, pos: &Position, ply: usize, mut alpha: i32, beta: i32, qply: u32) -> i32 {
        let ply_score = ply as i32;
        if let Some(score) = self.enter(pos, ply_score) {
            return score;
        }
        let in_check = pos.is_check();
        let mut moves = MoveList::new();
        // Pair turns (A6) never capture; a pair that wins is found by the
        // main search.
        pos.generate_single(&mut moves);
        if moves.is_empty() && !pos.variant().pawn_pairs {
            return no_moves(pos, in_check, ply_score);
        }
        let stand = evaluate(pos);
        if !in_check {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
        }
        if qply > 8 || ply >= MAX_PLY - 2 {
            return stand;
        }
        let mut best = if in_check { -INF } else { stand };
        let candidates: Vec<Move> = if in_check {
            self.order(pos, &moves, None, ply)
        } else {
            let noisy: MoveList = moves.iter().copied().filter(|m| is_noisy(pos, m)).collect();
            self.order(pos, &noisy, None, ply)
        };
        for m in candidates {
            let mut next = pos.clone();
            next.play_unchecked(m);
            let score = -self.quiesce(&next, ply + 1, -beta, -alpha, qply + 1);
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

    fn order(&self, pos: &Position, moves: &MoveList, tt_move: Option<Move>, ply: usize) -> Vec<Move> {
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        let mut scored: Vec<(i32, Move)> = moves
            .iter()
            .map(|&m| {
                let s = if Some(m) == tt_move {
                    1 << 30
                } else if let Some(v) = victim_value(pos, &m) {
                    let attacker = m.from().and_then(|f| pos.piece_at(f)).map_or(0, |p| value(pos, pos.moves_of(p)));
                    (1 << 24) + v * 16 - attacker / 16
                } else if promotes(&m) {
                    1 << 23
                } else if killers[0] == Some(m) {
                    1 << 22
                } else if killers[1] == Some(m) {
                    (1 << 22) - 1
                } else {
                    m.from().map_or(0, |f| self.history[f.index() * 64 + m.to().index()]).min((1 << 21) - 1)
                };
                (s, m)
            })
            .collect();
        scored.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        scored.into_iter().map(|(_, m)| m).collect()
    }
}

/// A decided game, `ply` plies from the root, for the side to move.
fn won_or_lost(won: bool, ply: i32) -> i32 {
    if won { MATE - ply } else { -(MATE - ply) }
}

/// The score of a position without legal moves: checkmate or, in Alapawn,
/// a loss (A4); stalemate draws.
fn no_moves(pos: &Position, in_check: bool, ply: i32) -> i32 {
    match pos.variant().goal {
        Goal::PawnRace => won_or_lost(false, ply),
        Goal::Checkmate if in_check => won_or_lost(false, ply),
        Goal::Checkmate => 0,
    }
}

fn to_table(score: i32, ply: i32) -> i32 {
    if score > MATE - 1000 {
        score + ply
    } else if score < -(MATE - 1000) {
        score - ply
    } else {
        score
    }
}

fn from_table(score: i32, ply: i32) -> i32 {
    if score > MATE - 1000 {
        score - ply
    } else if score < -(MATE - 1000) {
        score + ply
    } else {
        score
    }
}

fn promotes(m: &Move) -> bool {
    matches!(m, Move::Normal { promote, .. } if *promote != Promote::No)
}

fn victim_value(pos: &Position, m: &Move) -> Option<i32> {
    match *m {
        Move::Normal { to, .. } => pos.piece_at(to).map(|p| value(pos, pos.moves_of(p)).max(1)),
        Move::EnPassant { .. } => Some(100),
        _ => None,
    }
}

/// Captures, promotions, and in Alapawn the pawn steps that reach the last
/// rank: the moves the quiescence search looks at.
fn is_noisy(pos: &Position, m: &Move) -> bool {
    if victim_value(pos, m).is_some() || promotes(m) {
        return true;
    }
    if pos.variant().goal == Goal::PawnRace {
        let last = pos.last_rank(pos.turn());
        return match *m {
            Move::Normal { to, .. } => last.has(to),
            Move::PawnPair { second, .. } => last.has(second.1),
            _ => false,
        };
    }
    false
}

/// Centipawn value of a set of powers: a compound is the sum of its parts
/// and a little more (it combines them in one piece). A half (CS1) is worth
/// half its full power when it captures and 45% when it only moves (it
/// neither takes nor guards nor checks); both halves are the full power.
fn value(pos: &Position, powers: Powers) -> i32 {
    let powers = powers.joined();
    let v = pos.variant();
    let race = v.goal == Goal::PawnRace;
    let small = v.width <= 5;
    if powers.is_empty() {
        // Construction's static piece: a blocker, and a body for powers.
        return 40;
    }
    if v.armies
        && let Some(i) = v.piece_index_of(powers, false)
        && let Some(kind) = crate::army::PieceKind::from_letter(v.pieces[i as usize].letter)
    {
        // Clash: the pieces' costs in gold (CA, CLASH.md), in centipawns; the
        // auctioned Amazon at the 14 gold its author suggests.
        return kind.cost_quarters().map_or(1400, |q| q as i32 * 25);
    }
    let full = |p: Powers| value(pos, p.whole());
    let sum: i32 = powers
        .singles()
        .map(|p| match p {
            p if p.has_halves() && p.capturing().is_empty() => full(p) * 9 / 20,
            p if p.has_halves() => full(p) / 2,
            p if p == Powers::PAWN => {
                if race {
                    250
                } else {
                    100
                }
            }
            p if p == Powers::KNIGHT => 310,
            p if p == Powers::BISHOP => {
                if small {
                    420
                } else {
                    330
                }
            }
            p if p == Powers::ROOK => {
                if small {
                    520
                } else {
                    500
                }
            }
            p if p == Powers::SILVER => 330,
            p if p == Powers::GOLD => 380,
            p if p == Powers::KING => 250,
            // C6: one swap with the King.
            p if p == Powers::CASTLE => 40,
            _ => 0,
        })
        .sum();
    if powers.count() > 1 { sum + sum / 10 } else { sum }
}

/// Distance from the centre of the board, in half squares (0 in the middle).
fn off_centre(pos: &Position, sq: Square) -> i32 {
    let v = pos.variant();
    let fd = (2 * sq.file() as i32 - (v.width as i32 - 1)).abs();
    let rd = (2 * sq.rank() as i32 - (v.height as i32 - 1)).abs();
    fd.max(rd)
}

/// The evaluation, for the side to move: material (hands at full value,
/// since a drop goes anywhere), centralisation and mobility of pieces, pawn
/// advance (Alapawn's race above all), and the safety of a royal piece.
pub fn evaluate(pos: &Position) -> i32 {
    let v = pos.variant();
    let race = v.goal == Goal::PawnRace;
    let occ = pos.occupied();
    let mut score = [0i32; 2];
    let royal = [pos.royal_square(Color::White), pos.royal_square(Color::Black)];
    for sq in occ {
        let Some(p) = pos.piece_at(sq) else { continue };
        let side = p.color.index();
        let moves = pos.moves_of(p);
        let advance = if p.color == Color::White { sq.rank() } else { v.height - 1 - sq.rank() } as i32;
        if p.royal {
            // PA3: a King that absorbed powers is stronger, though PA6 keeps
            // its slides short.
            let extra = moves.without(Powers::KING);
            if !extra.is_empty() {
                score[side] += value(pos, extra) * 3 / 5;
            }
            continue;
        }
        score[side] += value(pos, moves);
        if moves.joined() == Powers::PAWN {
            score[side] += if race { advance * advance * 14 } else { advance * 6 };
            continue;
        }
        if moves.is_empty() {
            continue;
        }
        if moves.intersects(Powers::PAWN_ANY) {
            // A compound still heading for promotion (PA5, C5, CS5).
            score[side] += advance * 4;
        }
        // Pieces like the centre, and room to move.
        score[side] += (v.width as i32 - off_centre(pos, sq)) * 4;
        let reach = pos.attacks(sq, moves, p.color, occ) & !pos.pieces_of(p.color);
        score[side] += reach.count() as i32 * 3;
        // Pieces near the enemy royal piece press on it.
        if let Some(k) = royal[1 - side] {
            let d = sq.file().abs_diff(k.file()).max(sq.rank().abs_diff(k.rank()));
            if d <= 2 {
                score[side] += 12;
            }
        }
    }
    for c in Color::ALL {
        for (i, pt) in v.pieces.iter().enumerate() {
            let held = pos.hand(c, i as u8) as i32;
            if held > 0 {
                // A reserve power still needs a turn and a body (C2): it
                // counts a little less than one on the board.
                let worth = value(pos, pt.powers);
                score[c.index()] += held * if v.grants { worth * 4 / 5 } else { worth };
            }
        }
    }
    let us = pos.turn().index();
    score[us] - score[1 - us]
}

/// How the bot plays at a level from 1 (a beginner) to 8 (its best): the
/// depth it may reach and the share of its time it uses. Levels below 8 also
/// pick, now and then, a move a little worse than the best.
pub fn level_limits(level: u8, time: Duration) -> (Limits, u32) {
    let level = level.clamp(1, 8);
    let depth = if level == 8 { 64 } else { u32::from(level) };
    // Centipawns a weaker level may give away to vary its play.
    let slack = [0, 300, 200, 120, 80, 50, 30, 10, 0][level as usize];
    (Limits { time, depth }, slack)
}

/// The bot's move at `level`, using at most `time`. `seed` varies the
/// choices of the weaker levels.
pub fn level_move(engine: &mut Engine, pos: &Position, level: u8, time: Duration, seed: u64) -> Option<Move> {
    let (limits, slack) = level_limits(level, time);
    let found = engine.search(pos, limits)?;
    if slack == 0 || found.score.abs() > MATE - 1000 {
        return Some(found.best);
    }
    // Weaker levels: any move whose one-ply score is within `slack` of the
    // best one-ply score, chosen by the seed.
    let moves = pos.legal_moves();
    let scored: Vec<(i32, Move)> = moves
        .iter()
        .map(|m| {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            (-evaluate(&next), *m)
        })
        .collect();
    let top = scored.iter().map(|s| s.0).max()?;
    let close: Vec<Move> = scored.iter().filter(|s| s.0 >= top - slack as i32).map(|s| s.1).collect();
    let mut pick = close.get((seed as usize) % close.len().max(1)).copied();
    if seed.is_multiple_of(3) {
        pick = Some(found.best);
    }
    pick.or(Some(found.best))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::Variant;

    fn search(variant: &str, fen: &str, ms: u64) -> (Position, Found) {
        let pos = Position::from_fen(Variant::by_id(variant).unwrap(), fen).unwrap();
        let f = best_move(&pos, Duration::from_millis(ms), 64).unwrap();
        (pos, f)
    }

    #[test]
    fn finds_mate_in_one() {
        let (pos, f) = search("chess", "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3", 500);
        assert_eq!(pos.canonical(&f.best), "f3f7");
        assert_eq!(f.mate_in(), Some(1));
    }

    #[test]
    fn takes_a_free_queen() {
        let (pos, f) = search("chess", "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", 300);
        assert_eq!(pos.canonical(&f.best), "e4d5");
    }

    #[test]
    fn alapawn_wins_the_race() {
        let (_, f) = search("alapawn", "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1", 300);
        assert!(f.mate_in().is_some(), "{f:?}");
    }

    #[test]
    fn principal_variation_is_legal() {
        let (pos, f) = search("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 300);
        assert_eq!(f.pv.first(), Some(&f.best));
        let mut p = pos;
        for m in &f.pv {
            assert!(p.is_legal(m));
            p.play_unchecked(*m);
        }
    }
}
