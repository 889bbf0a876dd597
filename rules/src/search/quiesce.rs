//! The quiescence search: where the main search's depth runs out, the
//! forcing moves (captures, promotions, Alapawn's steps onto the last rank,
//! and checks where they are looked at) are played out until the position
//! is quiet, so that no leaf is judged in the middle of an exchange.

use super::*;

impl Engine {
    /// `in_check` where the caller knows it (else it is worked out here,
    /// once the table has not settled the node).
    pub(super) fn quiesce(
        &mut self,
        pos: &Position,
        ply: usize,
        alpha: i32,
        beta: i32,
        qply: u32,
        in_check: Option<bool>,
    ) -> i32 {
        if let Some(score) = self.enter(pos, ply as i32) {
            return score;
        }
        self.quiesce_entered(pos, ply, alpha, beta, qply, in_check)
    }

    /// [`Engine::quiesce`] at a node already counted and checked for time
    /// ([`Engine::enter`]): a main-search node whose depth ran out.
    pub(super) fn quiesce_entered(
        &mut self,
        pos: &Position,
        ply: usize,
        alpha: i32,
        beta: i32,
        qply: u32,
        in_check: Option<bool>,
    ) -> i32 {
        self.seldepth = self.seldepth.max(ply);
        let hash = pos.hash();
        let slot = self.slot(hash);
        let entry = self.table[slot];
        let mut tt_move = None;
        let mut known = None;
        if entry.key == hash {
            tt_move = entry.best;
            if let Some(s) = entry.cutoff(ply, alpha, beta) {
                return s;
            }
            known = entry.eval();
        }
        let in_check = in_check.unwrap_or_else(|| pos.is_check());
        // In check there is no standing pat: the evaluation waits until the
        // depth runs out ([`Engine::quiesce_moves`]).
        // Far above beta a bound on the evaluation is enough to stand pat on;
        // it is not kept as the position's evaluation.
        let correction = if in_check { 0 } else { self.correction_of(pos) };
        let (raw, exact) = match known {
            _ if in_check => (-INF, false),
            Some(eval) => (eval, true),
            None => match self.evaluate_within(pos, Some(beta - correction)) {
                Lazy::Exact(eval) => (eval, true),
                Lazy::AtLeast(bound) => (bound, false),
            },
        };
        let stand = raw + correction;
        let mut frame = self.take_frame(ply);
        let (score, best) = self.quiesce_moves(pos, ply, alpha, beta, qply, tt_move, in_check, stand, &mut frame);
        self.frames[ply] = Some(frame);
        // Kept unless the slot holds a searched position: a quiescence score
        // is worth less than any of those.
        let old = self.table[slot];
        if !self.stopped && old.depth <= 0 {
            let bound = if score >= beta {
                Bound::Lower
            } else if score > alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let best = best.or(tt_move);
            let score = to_table(score, ply as i32);
            let eval = if exact { eval_entry(raw) } else { NO_EVAL };
            self.table[slot] = Entry { key: hash, best, score, eval, depth: 0, bound };
        }
        score
    }

    #[allow(clippy::too_many_arguments)]
    fn quiesce_moves(
        &mut self,
        pos: &Position,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        qply: u32,
        tt_move: Option<Move>,
        in_check: bool,
        stand: i32,
        frame: &mut Frame,
    ) -> (i32, Option<Move>) {
        let Frame { moves, scored, .. } = frame;
        // Where pieces drop, checks decide games: at its first ply the
        // quiescence search tries the quiet moves that check too.
        let with_checks = qply == 0 && pos.variant().drops;
        moves.clear();
        scored.clear();
        if in_check || pos.variant().goal == Goal::PawnRace {
            // Pair turns (A6) never capture; a pair that wins is found by the
            // main search.
            pos.generate_single(moves);
            if moves.is_empty() && !pos.variant().pawn_pairs {
                return (no_moves(pos, in_check, ply as i32, self.draw_score(pos.turn())), None);
            }
        }
        if !in_check {
            if stand >= beta {
                return (stand, None);
            }
            alpha = alpha.max(stand);
        }
        if qply > 8 || ply >= MAX_PLY - 2 {
            return (if in_check { self.evaluate(pos) } else { stand }, None);
        }
        // Out of check the moves are generated only once standing pat and
        // the depth have not settled the node.
        if !in_check && pos.variant().goal != Goal::PawnRace {
            if with_checks {
                pos.legal_moves_into(moves);
                moves.retain(|m| is_noisy(pos, m) || checks_directly(pos, m));
            } else {
                // Only captures and promotions (a stalemate here goes unseen,
                // as in most engines).
                pos.generate_forcing(moves);
            }
        }
        let mut best = if in_check { -INF } else { stand };
        let mut best_move = None;
        if !in_check && !with_checks {
            moves.retain(|m| is_noisy(pos, m));
        }
        // Where only captures and promotions are searched and the losing
        // captures are left out, a capture's exchange is worked out only
        // when its turn comes: most nodes are cut before most captures.
        let lazy = !in_check && !with_checks && pos.variant().goal != Goal::PawnRace;
        self.score_moves(pos, moves, tt_move, ply, scored, !lazy);
        for i in 0..scored.len() {
            let m = scored.pick(i);
            let order = scored.score(i);
            if !in_check && !is_noisy(pos, &m) {
                // A quiet check: worth a look unless it gives material away.
                if self.see(pos, &m).is_some_and(|gain| gain < 0) {
                    continue;
                }
            } else if !in_check && !promotes(&m) && pos.variant().goal != Goal::PawnRace {
                // Captures that cannot lift the score to alpha, and captures
                // of a defended piece by a more valuable one, are left out.
                let victim = self.victim(pos, &m).unwrap_or(0);
                if stand + victim + 200 <= alpha {
                    continue;
                }
                // The ordering worked out whether it loses, unless it is
                // the table's move or the ordering left it to now.
                let losing = if lazy || order == order::TABLE_MOVE {
                    self.losing_capture(pos, &m, victim)
                } else {
                    order < order::PROMOTION
                };
                if losing {
                    continue;
                }
            }
            let guess = pos.hash_after(&m);
            self.prefetch(guess);
            self.played[ply] = self.types.key(pos, &m);
            let mut next = pos.clone();
            next.play_unchecked(m);
            if next.hash() != guess {
                self.prefetch(next.hash());
            }
            let score = -self.quiesce(&next, ply + 1, -beta, -alpha, qply + 1, None);
            if self.stopped {
                return (0, None);
            }
            if score > best {
                best = score;
                best_move = Some(m);
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        (best, best_move)
    }
}

/// Whether `m` puts a piece where it attacks the enemy royal piece (checks
/// uncovered by a move, and promotions, aside): a quick test that keeps the
/// quiescence search from playing every move to find its checks.
fn checks_directly(pos: &Position, m: &Move) -> bool {
    let them = !pos.turn();
    let Some(king) = pos.royal_square(them) else { return false };
    let (to, powers) = match *m {
        Move::Normal { from, to, .. } => match pos.piece_at(from) {
            Some(p) => (to, pos.moves_of(p)),
            None => return false,
        },
        Move::Drop { piece, to } => (to, pos.variant().pieces[piece as usize].powers),
        _ => return false,
    };
    let occ = pos.occupied() | to.bb();
    pos.attacks(to, powers, pos.turn(), occ).has(king)
}
