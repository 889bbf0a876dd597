//! The search: hints, analysis and a bot to play against.
//!
//! Iterative deepening of a principal-variation alpha-beta search with a
//! transposition table keyed by the Zobrist hash, a quiescence search over
//! captures (and, in Alapawn, pawn steps onto the last rank), and move
//! ordering by the table's move, captures (most valuable victim, least
//! valuable attacker), killer moves and histories (`history.rs`). The
//! clock is checked every few thousand nodes, so a time limit is kept to
//! within a millisecond or two. Whatever it finds is one of the position's
//! legal moves.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod correction;
mod drop_threats;
mod eval;
mod history;
mod levels;
mod ordering;
mod quiesce;
mod see;
mod slots;
mod threats;
mod tuned;

use arrayvec::ArrayVec;
use correction::Correction;
use history::Histories;
use ordering::{Frame, Picker, order};
use slots::Slots;

pub use eval::evaluate;
use eval::{Lazy, Values, is_noisy, promotes, victim_value};
/// The seeded random source of the tests across the crate.
#[cfg(test)]
pub(crate) use levels::Dice;
pub use levels::{Style, greedy_move, hangs_a_piece, level_move, level_move_limited, level_rating, style};

use crate::check_look::CheckLook;
use crate::moves::Move;
use crate::position::Position;
use crate::types::Color;
use crate::variant::{Goal, Repetition};

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
    /// The deepest ply any line reached (quiescence included).
    pub seldepth: u32,
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

/// A position a game or a searched line went through, as repetitions need
/// it: its hash, and whether its side to move was in check (O6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visit {
    /// [`Position::hash`].
    pub hash: u64,
    /// The side to move was in check.
    pub check: bool,
}

impl Visit {
    /// The visit of `pos`.
    pub fn of(pos: &Position) -> Visit {
        Visit { hash: pos.hash(), check: pos.is_check() }
    }
}

/// How long and how deep to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time: the search stops when it is up.
    pub time: Duration,
    /// Deepest iteration.
    pub depth: u32,
    /// Positions to visit at most (`None`: no limit).
    pub nodes: Option<u64>,
    /// The time the search aims to use when it plays on a clock: it starts
    /// no iteration it is unlikely to finish by then, and stops at `time`
    /// at the latest. `None`: aim for `time`.
    pub target: Option<Duration>,
}

impl Limits {
    /// At most `time`, and at most `depth` plies.
    pub fn new(time: Duration, depth: u32) -> Limits {
        Limits { time, depth, nodes: None, target: None }
    }
}

/// Searches `pos` for at most `limit` time and `max_depth` plies with a
/// fresh engine. `None` if the position has no legal move.
pub fn best_move(pos: &Position, limit: Duration, max_depth: u32) -> Option<Found> {
    Engine::new(16).search(pos, Limits::new(limit, max_depth))
}

#[derive(Clone, Copy)]
struct Entry {
    key: u64,
    best: Option<Move>,
    score: i32,
    /// The position's static evaluation, or [`NO_EVAL`] (in check, or too
    /// large for the field): the evaluation costs more than a table probe.
    eval: i16,
    depth: i8,
    bound: Bound,
}

/// [`Entry::eval`] of an entry without an evaluation.
const NO_EVAL: i16 = i16::MIN;

/// `eval` as [`Entry::eval`] keeps it: none for one beyond 16 bits (and for
/// the `-INF` of a node in check).
#[inline]
fn eval_entry(eval: i32) -> i16 {
    i16::try_from(eval).ok().filter(|&e| e != NO_EVAL).unwrap_or(NO_EVAL)
}

impl Default for Entry {
    fn default() -> Entry {
        Entry { key: 0, best: None, score: 0, eval: NO_EVAL, depth: 0, bound: Bound::Exact }
    }
}

impl Entry {
    /// The static evaluation kept with the entry.
    #[inline]
    fn eval(&self) -> Option<i32> {
        (self.eval != NO_EVAL).then_some(i32::from(self.eval))
    }

    /// The entry's score at `ply` if its bound settles the window
    /// (`alpha`, `beta`): an exact score, a lower bound at or above beta,
    /// an upper bound at or below alpha.
    #[inline]
    fn cutoff(&self, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
        let s = from_table(self.score, ply as i32);
        match self.bound {
            Bound::Exact => Some(s),
            Bound::Lower if s >= beta => Some(s),
            Bound::Upper if s <= alpha => Some(s),
            _ => None,
        }
    }
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
    table: Slots<Entry>,
    deadline: Instant,
    node_limit: u64,
    stopped: bool,
    nodes: u64,
    seldepth: usize,
    killers: [[Option<Move>; 2]; MAX_PLY],
    /// The static evaluation of each node of the line searched, by ply.
    static_evals: [i32; MAX_PLY],
    history: Histories,
    /// How far evaluations missed, by pawns ([`correction`]).
    correction: Correction,
    /// Whether evaluations are corrected: in chess (elsewhere not measured).
    correcting: bool,
    /// The key of the move played at each ply of the line searched
    /// ([`history::Types::key`]; `None` for a null move or one without a key).
    played: [Option<history::Key>; MAX_PLY],
    /// The game's earlier positions, then those of the line searched.
    path: Vec<Visit>,
    earlier: Vec<Visit>,
    /// The best root move of the iteration under way, and its score: a move
    /// that beat the first one is worth playing even if time runs out.
    root_best: Option<(Move, i32)>,
    values: Values,
    /// The piece types of the history keys.
    types: history::Types,
    /// Evaluations by hash.
    evals: Slots<(u64, i32)>,
    frames: Vec<Option<Box<Frame>>>,
    /// The move lists of singular-extension probes (one at a time: a probe
    /// never starts another).
    probe_frame: Option<Box<Frame>>,
    cancel: Arc<AtomicBool>,
    /// The side for whom a draw counts as a win ([`Engine::set_draw_odds`]).
    draw_odds: Option<Color>,
}

/// What a draw is worth to the side holding draw odds (CA14): more than
/// any evaluation, less than a forced win (outside the mate scores).
pub const DRAW_ODDS_SCORE: i32 = 20_000;

/// Moves searched with the full depth before later ones are reduced.
const FULL_DEPTH_MOVES: usize = 2;

impl Engine {
    /// An engine whose table takes about `megabytes` of memory.
    pub fn new(megabytes: usize) -> Engine {
        let entries = (megabytes.max(1) << 20) / std::mem::size_of::<Entry>();
        Engine {
            table: Slots::new(entries.next_power_of_two() / 2, Entry::default()),
            deadline: Instant::now(),
            node_limit: u64::MAX,
            stopped: false,
            nodes: 0,
            seldepth: 0,
            killers: [[None; 2]; MAX_PLY],
            static_evals: [0; MAX_PLY],
            history: Histories::new(),
            correction: Correction::new(),
            correcting: false,
            played: [None; MAX_PLY],
            path: Vec::with_capacity(MAX_PLY),
            earlier: Vec::new(),
            root_best: None,
            values: Values::new(),
            types: history::Types::default(),
            evals: Slots::new(1 << 17, (0, 0)),
            frames: (0..MAX_PLY).map(|_| None).collect(),
            probe_frame: None,
            cancel: Arc::new(AtomicBool::new(false)),
            draw_odds: None,
        }
    }

    /// Where a draw counts as a win for `side` (Clash's ultimate round after
    /// the Amazon's auction, CA14): the search scores every draw it sees
    /// (repetition, stalemate) as [`DRAW_ODDS_SCORE`] for that side and its
    /// negation for the other. `None`, the default, scores draws 0. Kept
    /// until set again; a change empties the table, whose scores assumed
    /// the other value.
    pub fn set_draw_odds(&mut self, side: Option<Color>) {
        if self.draw_odds != side {
            self.draw_odds = side;
            self.table.fill(Entry::default());
        }
    }

    /// The side for whom a draw counts as a win, if any.
    pub fn draw_odds(&self) -> Option<Color> {
        self.draw_odds
    }

    /// A draw's score for the side to move `turn`.
    fn draw_score(&self, turn: Color) -> i32 {
        match self.draw_odds {
            None => 0,
            Some(side) if side == turn => DRAW_ODDS_SCORE,
            Some(_) => -DRAW_ODDS_SCORE,
        }
    }

    /// A flag that, once set, ends the running search and every later one
    /// within a few thousand nodes, as if their time were up. Clearing it
    /// lets searches run again.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }

    /// Forgets everything learnt in earlier searches (a new game).
    pub fn clear(&mut self) {
        self.table.fill(Entry::default());
        self.history.clear();
        self.correction.clear();
        self.evals.fill((0, 0));
        self.earlier.clear();
    }

    /// The positions the game went through before the one searched next,
    /// oldest first ([`crate::Game::earlier_visits`]): returning to one of
    /// them counts as a repetition. Kept until set again.
    pub fn set_history(&mut self, visits: &[Visit]) {
        self.earlier = visits.to_vec();
    }

    /// Searches `pos` within `limits`. `None` if there is no legal move.
    pub fn search(&mut self, pos: &Position, limits: Limits) -> Option<Found> {
        self.search_reporting(pos, limits, &mut |_| {})
    }

    /// Like [`Engine::search`], and calls `report` after every completed
    /// iteration with what it has found so far.
    pub fn search_reporting(
        &mut self,
        pos: &Position,
        limits: Limits,
        report: &mut dyn FnMut(&Found),
    ) -> Option<Found> {
        let start = Instant::now();
        let root = pos.legal_moves();
        let first = *root.first()?;
        // Far enough to mean "no limit", near enough not to overflow.
        let time = limits.time.min(Duration::from_secs(86_400 * 365));
        self.deadline = start + time;
        let target = limits.target.map(|t| t.min(time));
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.stopped = false;
        self.nodes = 0;
        self.seldepth = 0;
        self.killers = [[None; 2]; MAX_PLY];
        self.history.age();
        self.correcting = std::ptr::eq(pos.variant(), &crate::variant::CHESS);
        self.path.clear();
        self.path.extend_from_slice(&self.earlier);
        let mut found =
            Found { best: first, score: 0, depth: 0, seldepth: 0, nodes: 0, pv: vec![first], elapsed: Duration::ZERO };
        if root.len() == 1 {
            found.score = self.evaluate(pos);
            found.elapsed = start.elapsed();
            report(&found);
            return Some(found);
        }
        let mut last_score = 0;
        for depth in 1..=limits.depth.clamp(1, MAX_PLY as u32 - 8) {
            self.root_best = None;
            let score = self.aspiration(pos, depth as i32, last_score);
            if self.stopped {
                // Time ran out mid-iteration: a root move that was searched in
                // full and beat the first one is the better choice.
                if let Some((best, score)) = self.root_best
                    && best != found.best
                    && depth > 1
                {
                    found.best = best;
                    found.score = score;
                    found.pv = vec![best];
                }
                break;
            }
            last_score = score;
            let mut pv = self.principal_variation(pos, depth as usize);
            if pv.is_empty()
                && let Some((best, _)) = self.root_best
            {
                pv.push(best);
            }
            if let Some(&best) = pv.first() {
                found = Found {
                    best,
                    score,
                    depth,
                    seldepth: self.seldepth as u32,
                    nodes: self.nodes,
                    pv,
                    elapsed: start.elapsed(),
                };
                report(&found);
            }
            if score.abs() > MATE - 1000 && depth as i32 >= MATE - score.abs() {
                break;
            }
            match target {
                // On a clock: no iteration that would likely end past the target.
                Some(target) if start.elapsed() * 2 > target => break,
                _ => {}
            }
        }
        found.nodes = self.nodes;
        found.elapsed = start.elapsed();
        Some(found)
    }

    /// One iteration at `depth`, in a window around the last score that
    /// widens until the score falls inside it.
    fn aspiration(&mut self, pos: &Position, depth: i32, last: i32) -> i32 {
        if depth < 5 || last.abs() > MATE - 1000 {
            return self.negamax(pos, depth, 0, -INF, INF, true, pos.is_check());
        }
        let mut delta = 30;
        let (mut alpha, mut beta) = (last - delta, last + delta);
        loop {
            let score = self.negamax(pos, depth, 0, alpha, beta, true, pos.is_check());
            if self.stopped {
                return score;
            }
            if score <= alpha {
                alpha = (score - delta).max(-INF);
            } else if score >= beta {
                beta = (score + delta).min(INF);
            } else {
                return score;
            }
            delta *= 3;
            if delta > 1500 {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    fn evaluate(&mut self, pos: &Position) -> i32 {
        self.evaluate_within(pos, None).value()
    }

    /// [`Engine::evaluate`], or where `beta` is given a lower bound at or
    /// above it where that is quicker to find ([`eval::evaluate_within`]);
    /// only exact evaluations are cached.
    fn evaluate_within(&mut self, pos: &Position, beta: Option<i32>) -> Lazy {
        let hash = pos.hash();
        let slot = (hash as usize) & (self.evals.len() - 1);
        if self.evals[slot].0 == hash {
            return Lazy::Exact(self.evals[slot].1);
        }
        let found = eval::evaluate_within(pos, &mut self.values, beta);
        if let Lazy::Exact(score) = found {
            self.evals[slot] = (hash, score);
        }
        found
    }

    /// What to add to `pos`'s evaluation for what searches found of its
    /// pawns' ([`correction`]).
    #[inline]
    fn correction_of(&self, pos: &Position) -> i32 {
        if self.correcting { self.correction.of(pos) } else { 0 }
    }

    /// Asks the processor to fetch the table entry and the cached
    /// evaluation for `key` while the node is still being prepared: both
    /// tables are far larger than the caches.
    #[inline]
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let entry: *const Entry = &self.table[self.slot(key)];
            let eval: *const (u64, i32) = &self.evals[(key as usize) & (self.evals.len() - 1)];
            // SAFETY: a prefetch is only a hint: it reads nothing the
            // program sees and cannot fault, and both point into their tables.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(entry.cast());
                _mm_prefetch::<_MM_HINT_T0>(eval.cast());
            }
        }
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
        if self.nodes >= self.node_limit
            || (self.nodes & 2047 == 0 && (Instant::now() >= self.deadline || self.cancel.load(Ordering::Relaxed)))
        {
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

    /// The score of `pos` if it repeats a position of the line searched, or
    /// for the third time one the game went through before the search (a
    /// second time the game could still leave it): a draw, or in Olympic
    /// Chess (O6) a loss for White unless every Black move since gave check,
    /// which wins for White. Where captured pieces go to hand and come back,
    /// a capture or a drop does not rule a repetition out, and the look goes
    /// back to the start; elsewhere to the last capture or pawn move.
    fn repetition(&self, pos: &Position, hash: u64, in_check: bool, ply: usize) -> Option<i32> {
        let end = self.path.len();
        let back = if pos.variant().drops { end } else { (pos.halfmoves() as usize).min(end) };
        let mut earlier = (2..=back).step_by(2).filter(|&d| self.path[end - d].hash == hash);
        let d = earlier.next()?;
        // The root (d == ply) is a position of the game, not of the line.
        if d >= ply && earlier.next().is_none() {
            return None;
        }
        Some(match pos.variant().repetition {
            Repetition::WhiteLoses => {
                // The positions after Black's moves since the earlier
                // occurrence: White is to move in them.
                let (latest, first) = if pos.turn() == Color::White { (in_check, 2) } else { (true, 1) };
                let perpetual = latest && (first..d).step_by(2).all(|k| self.path[end - k].check);
                won_or_lost(perpetual == (pos.turn() == Color::White), ply as i32)
            }
            _ => self.draw_score(pos.turn()),
        })
    }

    /// Whether passing the turn is a fair test of the position: not in Clash
    /// (whose turns change shields), and only with a piece besides pawns and
    /// a royal piece (zugzwang is common in bare pawn endings).
    fn null_move_fits(pos: &Position) -> bool {
        let v = pos.variant();
        if v.armies || v.pawn_pairs {
            return false;
        }
        let us = pos.pieces_of(pos.turn());
        (us & !pos.pure_pawns() & !pos.royal).any() || pos.hands[pos.turn().index()].iter().any(|&n| n > 0)
    }

    /// Whether the side to move has a single piece besides pawns and a
    /// royal piece, and none in hand: where it must move, it may have to
    /// give something up.
    fn zugzwang_prone(pos: &Position) -> bool {
        let us = pos.pieces_of(pos.turn());
        (us & !pos.pure_pawns() & !pos.royal).count() <= 1 && pos.hands[pos.turn().index()].iter().all(|&n| n == 0)
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        null_ok: bool,
        in_check: bool,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        if let Some(score) = self.enter(pos, ply as i32) {
            return score;
        }
        self.seldepth = self.seldepth.max(ply);
        let hash = pos.hash();
        if ply > 0 {
            if let Some(score) = self.repetition(pos, hash, in_check, ply) {
                return score;
            }
            // No line from here beats a quicker mate already found.
            alpha = alpha.max(-(MATE - ply as i32));
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        if ply >= MAX_PLY - 2 {
            return self.evaluate(pos);
        }
        // Checks are extended, except off the principal variation where
        // pieces drop: there nearly every move can check by a drop, and
        // extending them all costs more depth than it finds (+35 +- 34 Elo
        // in 400 Olympic games; not extending them even on the principal
        // variation was no better).
        if in_check && (!pos.variant().drops || pv_node) {
            depth += 1;
        }
        if depth <= 0 {
            // The node is counted already: the quiescence search goes on from
            // here.
            return self.quiesce_entered(pos, ply, alpha, beta, 0, Some(in_check));
        }
        let slot = self.slot(hash);
        let entry = self.table[slot];
        let tt = (entry.key == hash).then_some(entry);
        if let Some(e) = tt
            && ply > 0
            && e.depth as i32 >= depth
            && (!pv_node || e.bound == Bound::Exact)
            && let Some(s) = e.cutoff(ply, alpha, beta)
        {
            return s;
        }
        // No table move at a node this deep: nothing searched it before, so
        // a ply less will do, and leaves a move for the next iteration (+31
        // +- 49 Elo in 100 games of chess). Not where pieces drop: in self-play
        // Olympic gained +10 +- 48, but against Fairy-Stockfish it scored
        // 35.5% in 200 games at 200 ms with this and the ordering of losing
        // captures below, 41% in 80 without them.
        if depth >= 4 && !pos.variant().drops && tt.and_then(|e| e.best).is_none() {
            depth -= 1;
        }
        let mut frame = self.take_frame(ply);
        let node = Node { depth, ply, alpha, beta, null_ok, in_check, hash, slot, tt, excluded: None };
        let score = self.expand(pos, node, &mut frame);
        self.frames[ply] = Some(frame);
        score
    }

    /// The moves of a node that the table did not settle: generated into
    /// `frame` (kept per ply, off the stack), pruned, searched.
    fn expand(&mut self, pos: &Position, node: Node, frame: &mut Frame) -> i32 {
        let Node { depth, ply, mut alpha, beta, null_ok, in_check, hash, slot, tt, excluded } = node;
        let tt_move = tt.and_then(|e| e.best);
        let pv_node = beta - alpha > 1;
        let raw_eval = match tt.and_then(|e| e.eval()) {
            _ if in_check => -INF,
            Some(eval) => eval,
            None => self.evaluate(pos),
        };
        let static_eval = if in_check { raw_eval } else { raw_eval + self.correction_of(pos) };
        self.static_evals[ply] = static_eval;
        // Better than two plies ago, when this side was last to move (or no
        // way to tell): lines that are getting worse deserve less effort.
        let improving = !in_check && (ply < 2 || static_eval > self.static_evals[ply - 2]);
        let decided = beta.abs() > MATE - 1000;
        if !pv_node && !in_check && ply > 0 && !decided && excluded.is_none() {
            // Reverse futility: far enough above beta that a shallow search
            // will not bring it down.
            if depth <= 6 && static_eval - 100 * depth + 50 * i32::from(improving) >= beta {
                return static_eval;
            }
            // Null move: if passing still holds beta, a real move would too.
            if null_ok && depth >= 3 && static_eval >= beta && Self::null_move_fits(pos) {
                let r = 3 + depth / 4 + ((static_eval - beta) / 200).min(2);
                let mut next = pos.clone();
                next.play_null();
                self.path.push(Visit { hash, check: false });
                self.played[ply] = None;
                let score = -self.negamax(&next, depth - 1 - r, ply + 1, -beta, -beta + 1, false, false);
                self.path.pop();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    let score = if score > MATE - 1000 { beta } else { score };
                    // Passing is no fair test in a zugzwang, where every move
                    // loses (Morphy's 1.Ra6!): deep nodes, and sides with a
                    // single piece besides pawns, confirm the cut-off with a
                    // search of their own moves as deep as the null move's.
                    if depth < 8 && !Self::zugzwang_prone(pos) {
                        return score;
                    }
                    let verified = self.negamax(pos, (depth - r).max(1), ply, beta - 1, beta, false, false);
                    if self.stopped {
                        return 0;
                    }
                    if verified >= beta {
                        return score;
                    }
                }
            }
        }
        // The moves are generated only for a node the cuts above did not
        // settle (a stalemate such a cut passes over is found a ply later,
        // as in most engines), and in stages ([`ordering`]): where the
        // table's move is known legal without them (chess), it is tried
        // before any other is generated, since it cuts many nodes alone.
        let first = match tt_move {
            Some(m) if excluded.is_none() && pos.is_legal_quickly(&m) == Some(true) => Some(m),
            _ => None,
        };
        // Singular extension: a table move far better than every other move
        // (a search without it at half the depth falls short of its score
        // by a margin) is searched a ply deeper; if even without it the
        // position holds beta, the node is cut at once.
        let mut singular = None;
        if let (Some(e), Some(tm), None) = (tt, tt_move, excluded)
            && ply > 0
            && depth >= 8
            && e.depth as i32 >= depth - 3
            && e.bound != Bound::Upper
        {
            let tt_score = from_table(e.score, ply as i32);
            if tt_score.abs() < MATE - 1000 {
                let bar = tt_score - 2 * depth;
                // The probe's moves need lists of their own: this node's are
                // in `frame`.
                let mut inner = self.probe_frame.take().unwrap_or_else(Frame::boxed);
                let probe = Node {
                    depth: (depth - 1) / 2,
                    alpha: bar - 1,
                    beta: bar,
                    null_ok: false,
                    excluded: Some(tm),
                    ..node
                };
                let s = self.expand(pos, probe, &mut inner);
                self.probe_frame = Some(inner);
                if self.stopped {
                    return 0;
                }
                if s < bar {
                    singular = Some(tm);
                } else if bar >= beta {
                    return bar;
                }
            }
        }
        let mut picker = Picker::new(pos, first, tt_move, &mut frame.tried);
        let mut best_move = None;
        let original_alpha = alpha;
        let mut best = -INF;
        let mut quiets_tried: ArrayVec<history::Key, 64> = ArrayVec::new();
        self.path.push(Visit { hash, check: in_check });
        let mut given = 0;
        // Worked out at the first move that may be pruned, for the rest.
        let mut look = None;
        while let Some(m) = self.next_move(pos, &mut picker, frame, tt_move, ply) {
            let i = given;
            given += 1;
            if Some(m) == excluded {
                continue;
            }
            let quiet = !is_noisy(pos, &m);
            let depth = depth + i32::from(Some(m) == singular);
            // Shallow moves late in the list, far below alpha or giving
            // material away: skipped unless they check, once a move that does
            // not lose is in hand. A plain move is known to check or not
            // before it is played, and one skipped is never played.
            let prunable = !pv_node && !in_check && i > 0 && best > -(MATE - 1000);
            let checks = if prunable {
                look.get_or_insert_with(|| CheckLook::new(pos)).quiet_move_checks(pos, &m)
            } else {
                None
            };
            if checks == Some(false) && self.skips(pos, &m, quiet, i, depth, improving, static_eval, alpha) {
                continue;
            }
            // The child's table entry fetched as early as its hash is known.
            let guess = pos.hash_after(&m);
            self.prefetch(guess);
            let key = self.types.key(pos, &m);
            self.played[ply] = key;
            let mut next = pos.clone();
            next.play_unchecked(m);
            if next.hash() != guess {
                self.prefetch(next.hash());
            }
            let gives_check = checks.unwrap_or_else(|| next.is_check());
            if prunable
                && checks.is_none()
                && !gives_check
                && self.skips(pos, &m, quiet, i, depth, improving, static_eval, alpha)
            {
                continue;
            }
            let score = if i == 0 {
                -self.negamax(&next, depth - 1, ply + 1, -beta, -alpha, true, gives_check)
            } else {
                // Late moves are searched less deep at first: quiet ones
                // most, checks and captures a ply less than those.
                let reduction = if depth >= 2 && i >= FULL_DEPTH_MOVES && !in_check && !promotes(&m) {
                    let history = match key {
                        Some(k) if quiet => self.history.score(pos.turn().index(), k, self.before(ply)),
                        _ => 0,
                    };
                    let r = reduction(depth, i) - i32::from(pv_node) - i32::from(self.is_killer(ply, m))
                        + i32::from(!improving)
                        - i32::from(gives_check)
                        - i32::from(!quiet)
                        - history / 10_000;
                    r.clamp(0, depth - 2)
                } else {
                    0
                };
                let mut s = -self.negamax(&next, depth - 1 - reduction, ply + 1, -alpha - 1, -alpha, true, gives_check);
                if s > alpha && reduction > 0 {
                    s = -self.negamax(&next, depth - 1, ply + 1, -alpha - 1, -alpha, true, gives_check);
                }
                if s > alpha && s < beta {
                    s = -self.negamax(&next, depth - 1, ply + 1, -beta, -alpha, true, gives_check);
                }
                s
            };
            if self.stopped {
                self.path.pop();
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(m);
            }
            if score > alpha {
                alpha = score;
                if ply == 0 {
                    self.root_best = Some((m, score));
                }
            }
            if alpha >= beta {
                if quiet {
                    self.reward(pos, ply, m, key, depth, &quiets_tried);
                }
                break;
            }
            if quiet
                && let Some(k) = key
                && !quiets_tried.is_full()
            {
                quiets_tried.push(k);
            }
        }
        self.path.pop();
        if given == 0 {
            return no_moves(pos, in_check, ply as i32, self.draw_score(pos.turn()));
        }
        if excluded.is_some() {
            // A probe for a singular move: only its score counts.
            return if best == -INF { alpha } else { best };
        }
        if best == -INF {
            // Every move was pruned: the static score stands for them.
            return alpha.max(static_eval.min(beta));
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let old = self.table[slot];
        if old.key != hash || depth >= old.depth as i32 - 1 || bound == Bound::Exact {
            self.table[slot] = Entry {
                key: hash,
                best: best_move,
                score: to_table(best, ply as i32),
                eval: eval_entry(raw_eval),
                depth: depth.min(127) as i8,
                bound,
            };
        }
        // The evaluation learns from a score its bound pins down on the far
        // side of it, found by a quiet move (or none): a capture's gain is
        // the exchange's, not the structure's.
        if self.correcting
            && !in_check
            && best.abs() < MATE - 1000
            && best_move.is_none_or(|m| !is_noisy(pos, &m))
            && !(bound == Bound::Lower && best <= static_eval)
            && !(bound == Bound::Upper && best >= static_eval)
        {
            self.correction.learn(pos, depth, best - raw_eval);
        }
        best
    }

    /// Whether a move that gives no check is skipped at a node where moves
    /// may be ([`Engine::expand`]): a quiet one late in the list or far below
    /// alpha, or one losing more material than the depth allows.
    #[allow(clippy::too_many_arguments)]
    fn skips(
        &mut self,
        pos: &Position,
        m: &Move,
        quiet: bool,
        index: usize,
        depth: i32,
        improving: bool,
        static_eval: i32,
        alpha: i32,
    ) -> bool {
        if quiet {
            if depth <= 4 && index >= late_quiet(depth, improving) {
                return true;
            }
            if depth <= 3 && static_eval + 80 + 80 * depth <= alpha {
                return true;
            }
        }
        // Not for quiet moves in the race: a pawn that runs past a guard is
        // what that game is about.
        if depth <= 6 && !promotes(m) && (!quiet || quiet_exchanges_count(pos)) {
            let margin = if quiet { 25 * depth * depth } else { 90 * depth };
            return self.see(pos, m).is_some_and(|gain| gain < -margin);
        }
        false
    }

    fn victim(&mut self, pos: &Position, m: &Move) -> Option<i32> {
        victim_value(pos, m, &mut self.values)
    }

    fn take_frame(&mut self, ply: usize) -> Box<Frame> {
        self.frames[ply].take().unwrap_or_else(Frame::boxed)
    }

    fn is_killer(&self, ply: usize, m: Move) -> bool {
        self.killers.get(ply).is_some_and(|k| k[0] == Some(m) || k[1] == Some(m))
    }

    /// A quiet move that refuted the position: a killer, and its histories
    /// rise while those of the quiet moves tried before it fall.
    fn reward(
        &mut self,
        pos: &Position,
        ply: usize,
        m: Move,
        key: Option<history::Key>,
        depth: i32,
        tried: &[history::Key],
    ) {
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        let bonus = (depth * depth).min(400) * 32;
        let side = pos.turn().index();
        let before = self.before(ply);
        if let Some(key) = key {
            self.history.update(side, key, before, bonus);
        }
        for &t in tried {
            self.history.update(side, t, before, -bonus);
        }
    }

    /// The keys of the moves one and two plies before `ply`.
    #[inline]
    fn before(&self, ply: usize) -> [Option<history::Key>; 2] {
        [ply.checked_sub(1).and_then(|p| self.played[p]), ply.checked_sub(2).and_then(|p| self.played[p])]
    }

    /// The exchange `m` starts ([`see::exchange`]), where the variant lets it
    /// be worked out.
    fn see(&mut self, pos: &Position, m: &Move) -> Option<i32> {
        see::fits(pos).then(|| see::exchange(pos, m, &mut self.values))
    }

    /// A capture that loses material unless something else happens: by the
    /// exchange on its square where that can be worked out, else a capture by
    /// a piece worth more than its victim of a piece the opponent defends.
    fn losing_capture(&mut self, pos: &Position, m: &Move, victim: i32) -> bool {
        if see::fits(pos) {
            // Taking a piece worth at least the taker cannot lose by the
            // exchange (at worst the taker is taken back), whatever follows:
            // no need to work it out.
            if let Move::Normal { from, .. } = *m
                && let Some(attacker) = pos.piece_at(from)
                && !attacker.royal
                && victim > 1
                && victim >= self.values.of(pos, pos.moves_of(attacker))
            {
                return false;
            }
            return see::exchange(pos, m, &mut self.values) < 0;
        }
        let Move::Normal { from, to, .. } = *m else { return false };
        let Some(attacker) = pos.piece_at(from) else { return false };
        if attacker.royal {
            return false;
        }
        let worth = self.values.of(pos, pos.moves_of(attacker));
        if worth <= victim + 50 {
            return false;
        }
        let them = !pos.turn();
        pos.attackers(to, them, pos.pieces_of(them), pos.occupied() ^ from.bb()).any()
    }
}

/// What [`Engine::expand`] needs to know about its node.
#[derive(Clone, Copy)]
struct Node {
    depth: i32,
    ply: usize,
    alpha: i32,
    beta: i32,
    null_ok: bool,
    in_check: bool,
    hash: u64,
    slot: usize,
    /// The table's entry for the position, if it has one (its move is tried
    /// first).
    tt: Option<Entry>,
    /// A move left out (the probe for a singular move).
    excluded: Option<Move>,
}

/// Whether a quiet move that loses material by the static exchange may be
/// pruned: not in Alapawn's race. (Where pieces drop, a drop or move that
/// gives a piece away without check is pruned like any other.)
fn quiet_exchanges_count(pos: &Position) -> bool {
    let v = pos.variant();
    v.goal != Goal::PawnRace
}

/// The index from which quiet moves that give no check are skipped at
/// `depth` (at most 4) where moves may be ([`Engine::skips`]).
#[inline]
fn late_quiet(depth: i32, improving: bool) -> usize {
    3 + depth as usize * depth as usize * if improving { 2 } else { 1 }
}

/// [`Move::code`] of a move, or of none a number no move has: a node
/// compares each of its moves with a few remembered ones by their codes.
#[inline]
fn code_of(m: Option<Move>) -> u64 {
    m.map_or(u64::MAX, |m| m.code())
}

/// Plies a late quiet move is searched less deep: more for later moves at
/// greater depths. Read from a table made once where both are 1 to 63.
#[inline]
fn reduction(depth: i32, index: usize) -> i32 {
    static TABLE: std::sync::LazyLock<[[u8; 64]; 64]> = std::sync::LazyLock::new(|| {
        std::array::from_fn(|depth| std::array::from_fn(|index| reduction_of(depth as i32, index) as u8))
    });
    match usize::try_from(depth) {
        Ok(d) if (1..64).contains(&d) && (1..64).contains(&index) => i32::from(TABLE[d][index]),
        _ => reduction_of(depth, index),
    }
}

fn reduction_of(depth: i32, index: usize) -> i32 {
    let r = 0.75 + (depth as f64).ln() * (index as f64).ln() / 2.25;
    r as i32
}

/// A decided game, `ply` plies from the root, for the side to move.
fn won_or_lost(won: bool, ply: i32) -> i32 {
    if won { MATE - ply } else { -(MATE - ply) }
}

/// The score of a position without legal moves: checkmate or, in Alapawn,
/// a loss (A4); stalemate draws (scored `draw`).
fn no_moves(pos: &Position, in_check: bool, ply: i32, draw: i32) -> i32 {
    match pos.variant().goal {
        Goal::PawnRace => won_or_lost(false, ply),
        Goal::Checkmate if in_check => won_or_lost(false, ply),
        Goal::Checkmate => draw,
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

/// Plays `games` seeded random games of `variant` from its start, each to
/// its end or `plies` moves, and shows `visit` every position a move
/// reaches (the tests' source of varied positions).
#[cfg(test)]
pub(crate) fn random_games(
    variant: &'static crate::Variant,
    games: usize,
    plies: usize,
    seed: u64,
    mut visit: impl FnMut(&Position),
) {
    let mut dice = levels::Dice(seed);
    for _ in 0..games {
        let mut pos = Position::new(variant);
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[dice.roll(moves.len() as u64) as usize]);
            visit(&pos);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::MoveList;
    use crate::variant::Variant;

    fn search(variant: &str, fen: &str, ms: u64) -> (Position, Found) {
        let pos = Position::from_fen(Variant::by_id(variant).unwrap(), fen).unwrap();
        let f = best_move(&pos, Duration::from_millis(ms), 64).unwrap();
        (pos, f)
    }

    #[test]
    fn the_evaluation_is_corrected_in_chess_only() {
        // A chess search learns corrections for the pawn structures it
        // met, and a new game forgets them; Olympic's search learns none
        // (off there, not measured).
        let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        let mut e = Engine::new(4);
        let pos = Position::from_fen(&crate::variant::CHESS, kiwipete).unwrap();
        e.search(&pos, Limits::new(Duration::from_secs(600), 7)).unwrap();
        let learnt = e.correction.learnt();
        assert!(learnt > 20, "{learnt}");
        e.clear();
        assert_eq!(e.correction.learnt(), 0);
        let olympic = Variant::by_id("olympic").unwrap();
        let pos = Position::from_fen(olympic, olympic.start_fen).unwrap();
        e.search(&pos, Limits::new(Duration::from_secs(600), 6)).unwrap();
        assert_eq!(e.correction.learnt(), 0);
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

    /// The quiescence search's candidates hold every capture, promotion and
    /// last-rank step, and nothing illegal, in positions from random games
    /// of every variant.
    #[test]
    fn forcing_moves_cover_the_noisy_ones() {
        let mut dice = levels::Dice(0x2545_f491_4f6c_dd1d);
        let mut checked = 0;
        for v in crate::variant::VARIANTS {
            for _ in 0..12 {
                let mut pos = Position::new(v);
                for _ in 0..80 {
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    let mut forcing = MoveList::new();
                    pos.generate_forcing(&mut forcing);
                    for m in &forcing {
                        assert!(legal.contains(m), "{} {:?}: {m:?} is not legal", v.id, pos);
                    }
                    // Pair turns (A6) are left to the main search.
                    let noisy = legal.iter().filter(|m| is_noisy(&pos, m) && !matches!(m, Move::PawnPair { .. }));
                    for m in noisy {
                        assert!(forcing.contains(m), "{} {:?}: {m:?} is missing", v.id, pos);
                    }
                    checked += 1;
                    pos.play_unchecked(legal[dice.roll(legal.len() as u64) as usize]);
                }
            }
        }
        assert!(checked > 3000, "{checked}");
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
