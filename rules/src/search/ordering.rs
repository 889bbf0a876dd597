//! The order in which a node tries its moves, and the stages it generates
//! them in.
//!
//! A node of the main search tries the table's move first, then the
//! captures and promotions that gain, then its killers, and only then
//! generates and scores every move: most nodes are cut by one of the
//! first (in chess about three in five of those the table's move did not
//! settle), and those never generate their quiet moves or look up their
//! histories. The moves come in the order of the scores that scoring every
//! move at once gives ([`Engine::score_moves`]; moves of equal scores may
//! swap, and the histories of the quiet moves are read once the captures'
//! lines have been searched): the stages only put off the work.

use arrayvec::ArrayVec;

use super::{Engine, code_of, history, is_noisy, promotes};
use crate::moves::{MAX_MOVES, Move, MoveList};
use crate::position::Position;

/// A node's moves with their ordering scores, kept apart so that finding
/// the best score left reads one run of numbers.
#[derive(Default)]
pub(super) struct MoveScores {
    scores: ArrayVec<i32, MAX_MOVES>,
    moves: ArrayVec<Move, MAX_MOVES>,
}

impl MoveScores {
    #[inline]
    pub(super) fn push(&mut self, score: i32, m: Move) {
        self.scores.push(score);
        self.moves.push(m);
    }

    #[inline]
    pub(super) fn clear(&mut self) {
        self.scores.clear();
        self.moves.clear();
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.moves.len()
    }

    /// The score of the move at `i`.
    #[inline]
    pub(super) fn score(&self, i: usize) -> i32 {
        self.scores[i]
    }

    /// Moves the best-scored move from `i` on to `i` (the first of equals)
    /// and returns it: a selection sort one step at a time, since most
    /// nodes are cut after a move or two.
    #[inline]
    pub(super) fn pick(&mut self, i: usize) -> Move {
        // One pass, the first of the best kept without a branch to
        // mispredict.
        let mut best = i;
        let mut top = self.scores[i];
        for (j, &s) in self.scores.iter().enumerate().skip(i + 1) {
            let better = s > top;
            top = if better { s } else { top };
            best = if better { j } else { best };
        }
        self.scores.swap(i, best);
        self.moves.swap(i, best);
        self.moves[i]
    }
}

/// The bands of the move ordering's scores ([`Engine::score_moves`]): a
/// capture's adds its victim's worth less a little of its taker's (at most
/// a few tens of thousands), a quiet move's is its history (less than the
/// killers' band). Every capture that loses material scores below
/// [`order::PROMOTION`], every other above it.
pub(super) mod order {
    /// The moves a node gave before generating every move, in their order
    /// ([`super::Engine::next_move`]).
    pub const TRIED: i32 = (1 << 30) + (1 << 20);
    pub const TABLE_MOVE: i32 = 1 << 30;
    pub const CAPTURE: i32 = 1 << 24;
    pub const PROMOTION: i32 = 1 << 23;
    pub const KILLER: i32 = 1 << 22;
    /// Where pieces drop, losing captures come before the quiet moves (see
    /// the reduction without a table move in [`super::Engine::negamax`]);
    /// elsewhere after them.
    pub const LOSING_DROPPING: i32 = 1 << 20;
    pub const LOSING: i32 = -(1 << 20);
}

/// A node's move lists: tens of kilobytes, so they live on the heap, one
/// set per ply, rather than on the stack of a deep recursion.
pub(super) struct Frame {
    pub(super) moves: MoveList,
    pub(super) scored: MoveScores,
    /// The moves a node of the main search gave before generating every
    /// move ([`Engine::next_move`]).
    pub(super) tried: ArrayVec<Move, MAX_MOVES>,
}

impl Frame {
    pub(super) fn boxed() -> Box<Frame> {
        Box::new(Frame { moves: MoveList::new(), scored: MoveScores::default(), tried: ArrayVec::new() })
    }
}

/// Where a node's move loop stands ([`Engine::next_move`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stage {
    /// The table's move, known legal without generating the others.
    Table,
    /// The captures and promotions are to be generated and scored.
    FindGains,
    /// Those of them that do not lose material, best first.
    Gains,
    /// The killer of this index (0 or 1), if it is a legal quiet move here.
    Killer(usize),
    /// Every move is to be generated and scored.
    FindRest,
    /// The moves not tried yet, best first.
    Rest,
}

/// The state of a node's move loop.
pub(super) struct Picker {
    stage: Stage,
    /// The table's move, if the node tries it before generating any other.
    first: Option<Move>,
    /// The table's move's code, if it is tried first.
    table_code: u64,
    /// The next move's index in the frame's scored list.
    next: usize,
    /// Whether the captures and promotions come before the other moves are
    /// generated.
    staged: bool,
}

impl Picker {
    /// The moves of a node whose table move is `table`, tried before any
    /// other is generated if it is `first` (known legal quickly). A table
    /// move that is not (its legality takes the generator, or a singular
    /// extension's probe leaves it out) comes first once every move is
    /// generated, and the stages wait for that too. Where the captures and
    /// promotions cannot be generated apart from the others, `pos`'s moves
    /// are all generated at once. `tried` (the node's frame's) is emptied.
    pub(super) fn new(
        pos: &Position,
        first: Option<Move>,
        table: Option<Move>,
        tried: &mut ArrayVec<Move, MAX_MOVES>,
    ) -> Picker {
        tried.clear();
        let stage = match (first, table) {
            (None, Some(_)) => Stage::FindRest,
            _ => Stage::Table,
        };
        let staged = pos.forcing_moves_apart();
        Picker { stage, first, table_code: code_of(table), next: 0, staged }
    }
}

impl Engine {
    /// The node's next move, or `None` once every legal move has been
    /// given; `frame` is the node's own, the one whose `tried` list
    /// [`Picker::new`] emptied. The moves given before every move was generated are kept in
    /// `tried`: once the others are generated, they take the first places
    /// in their order, so that each move keeps its index in the node's
    /// list (late moves are reduced and pruned by it).
    pub(super) fn next_move(
        &mut self,
        pos: &Position,
        picker: &mut Picker,
        frame: &mut Frame,
        tt_move: Option<Move>,
        ply: usize,
    ) -> Option<Move> {
        let Frame { moves, scored, tried } = frame;
        loop {
            match picker.stage {
                Stage::Table => {
                    picker.stage = if picker.staged { Stage::FindGains } else { Stage::FindRest };
                    if let Some(m) = picker.first {
                        tried.push(m);
                        return Some(m);
                    }
                }
                Stage::FindGains => {
                    moves.clear();
                    pos.generate_forcing(moves);
                    let table = picker.table_code;
                    moves.retain(|m| m.code() != table && is_noisy(pos, m));
                    scored.clear();
                    self.score_moves(pos, moves, None, ply, scored, true);
                    picker.next = 0;
                    picker.stage = Stage::Gains;
                }
                Stage::Gains => {
                    let i = picker.next;
                    if i < scored.len() {
                        let m = scored.pick(i);
                        if scored.score(i) >= order::PROMOTION {
                            picker.next += 1;
                            tried.push(m);
                            return Some(m);
                        }
                    }
                    picker.stage = Stage::Killer(0);
                }
                Stage::Killer(n) => {
                    let killer = self.killers.get(ply).and_then(|k| k.get(n).copied().flatten());
                    let Some(k) = killer.filter(|k| k.code() != picker.table_code) else {
                        picker.stage = if n == 0 { Stage::Killer(1) } else { Stage::FindRest };
                        continue;
                    };
                    // A killer that captures here was among the captures; one
                    // whose legality takes the generator waits for it, and so
                    // does the second killer then, to keep their order.
                    let legal = if is_noisy(pos, &k) { Some(false) } else { pos.is_legal_quickly(&k) };
                    picker.stage = match (legal, n) {
                        (None, _) | (_, 1) => Stage::FindRest,
                        (Some(_), _) => Stage::Killer(1),
                    };
                    if legal == Some(true) {
                        tried.push(k);
                        return Some(k);
                    }
                }
                Stage::FindRest => {
                    moves.clear();
                    pos.legal_moves_into(moves);
                    scored.clear();
                    self.score_moves(pos, moves, tt_move, ply, scored, true);
                    // The moves already tried come first, in their order.
                    let mut placed = 0;
                    for (t, done) in tried.iter().enumerate() {
                        let code = done.code();
                        if let Some(j) = scored.moves.iter().position(|m| m.code() == code) {
                            scored.scores[j] = order::TRIED + (tried.len() - t) as i32;
                            placed += 1;
                        }
                    }
                    debug_assert_eq!(placed, tried.len(), "every move tried is legal");
                    for i in 0..placed {
                        scored.pick(i);
                    }
                    picker.next = placed;
                    picker.stage = Stage::Rest;
                }
                Stage::Rest => {
                    let i = picker.next;
                    if i == scored.len() {
                        return None;
                    }
                    picker.next += 1;
                    return Some(scored.pick(i));
                }
            }
        }
    }

    /// The moves with their ordering scores, into `scored` (an out
    /// parameter: returning so long a list would copy all of it). Without
    /// `exchanges`, captures that promote nothing score as if none lost
    /// material (the caller works that out as it comes to them).
    pub(super) fn score_moves(
        &mut self,
        pos: &Position,
        moves: &MoveList,
        tt_move: Option<Move>,
        ply: usize,
        scored: &mut MoveScores,
        exchanges: bool,
    ) {
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        let (tt_code, killer_codes) = (code_of(tt_move), killers.map(code_of));
        let side = pos.turn().index();
        let before = self.before(ply);
        let mut last = history::Types::NO_LAST;
        for &m in moves {
            let this = m.code();
            let s = if this == tt_code {
                order::TABLE_MOVE
            } else if let Some(v) = self.victim(pos, &m) {
                let attacker = m.from().and_then(|f| pos.piece_at(f));
                let a = attacker.map_or(0, |p| if p.royal { 0 } else { self.values.of(pos, pos.moves_of(p)) });
                // Captures that lose material come after the quiet moves
                // (+35 +- 49 Elo in 100 games of chess), except where pieces
                // drop (see the reduction without a table move).
                let losing = (exchanges || promotes(&m)) && self.losing_capture(pos, &m, v);
                let base = match losing {
                    false => order::CAPTURE,
                    true if pos.variant().drops => order::LOSING_DROPPING,
                    true => order::LOSING,
                };
                base + v * 16 - a / 16
            } else if promotes(&m) {
                order::PROMOTION
            } else if this == killer_codes[0] {
                order::KILLER
            } else if this == killer_codes[1] {
                order::KILLER - 1
            } else {
                self.types.key_in_run(pos, &m, &mut last).map_or(0, |k| self.history.score(side, k, before))
            };
            scored.push(s, m);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;
    use crate::search::{Dice, random_games};
    use crate::variant::VARIANTS;

    /// Over random games of every variant, with table moves and killers
    /// drawn from the legal moves of the positions before (most of them not
    /// legal here: pieces gone, lines blocked, captures that were quiet),
    /// the stages give every legal move once, in the order scoring every
    /// move at once gives: the same scores in the same order (moves of
    /// equal scores may come in another order, as the pick swaps them).
    #[test]
    fn the_stages_give_the_order_of_scoring_every_move_at_once() {
        let ply = 5;
        let mut engine = Engine::new(1);
        let mut frame = Frame::boxed();
        let mut all = Frame::boxed();
        let mut dice = Dice(0x9E37_79B9_7F4A_7C15);
        let (mut nodes, mut staged) = (0, 0);
        for v in VARIANTS {
            let mut earlier: Vec<Move> = Vec::new();
            random_games(v, 8, 70, 0x2545_F491_4F6C_DD1D ^ v.id.len() as u64, |pos| {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    return;
                }
                earlier.extend(legal.iter().copied());
                let keep = earlier.len().saturating_sub(400);
                earlier.drain(..keep);
                let draw = |dice: &mut Dice| match dice.roll(4) {
                    0 => None,
                    1 => Some(legal[dice.roll(legal.len() as u64) as usize]),
                    _ => Some(earlier[dice.roll(earlier.len() as u64) as usize]),
                };
                let tt_move = draw(&mut dice);
                let killers = [draw(&mut dice), draw(&mut dice)];
                engine.killers[ply] = match killers {
                    [Some(a), Some(b)] if a == b => [Some(a), None],
                    k => k,
                };
                let first = tt_move.filter(|m| pos.is_legal_quickly(m) == Some(true));

                // Every move at once, as before the stages.
                let Frame { moves, scored, .. } = &mut *all;
                moves.clear();
                pos.legal_moves_into(moves);
                scored.clear();
                engine.score_moves(pos, moves, tt_move, ply, scored, true);
                let score_of: HashMap<u64, i32> =
                    (0..scored.len()).map(|i| (scored.moves[i].code(), scored.score(i))).collect();
                let mut expected = Vec::new();
                for i in 0..scored.len() {
                    let m = scored.pick(i);
                    expected.push((scored.score(i), m.code()));
                }

                let mut picker = Picker::new(pos, first, tt_move, &mut frame.tried);
                let mut given = Vec::new();
                while let Some(m) = engine.next_move(pos, &mut picker, &mut frame, tt_move, ply) {
                    given.push((score_of.get(&m.code()).copied().unwrap_or(i32::MIN), m.code()));
                }
                let scores = |list: &[(i32, u64)]| list.iter().map(|&(s, _)| s).collect::<Vec<_>>();
                let context = format!("{} {:?}: table {tt_move:?} killers {killers:?}", v.id, pos);
                assert_eq!(scores(&given), scores(&expected), "{context}");
                let codes = |list: &[(i32, u64)]| list.iter().map(|&(_, c)| c).collect::<HashSet<_>>();
                assert_eq!(given.len(), codes(&given).len(), "{context}: a move given twice");
                assert_eq!(codes(&given), codes(&expected), "{context}");
                nodes += 1;
                staged += usize::from(!frame.tried.is_empty());
            });
        }
        assert!(nodes > 3000 && staged > 500, "{nodes} nodes, {staged} with moves given before generating all");
    }
}
