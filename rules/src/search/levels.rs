//! The levels the bot plays at, and the simple players matches use.

use std::time::Duration;

use super::{Engine, Limits, MATE, evaluate};
use crate::moves::Move;
use crate::position::Position;

/// How the bot plays at a level from 1 (a beginner) to 8 (its best): the
/// depth it may reach and the share of its time it uses. Levels below 8 also
/// pick, now and then, a move a little worse than the best.
pub fn level_limits(level: u8, time: Duration) -> (Limits, u32) {
    let level = level.clamp(1, 8);
    let depth = if level == 8 { 64 } else { u32::from(level) };
    // Centipawns a weaker level may give away to vary its play.
    let slack = [0, 300, 200, 120, 80, 50, 30, 10, 0][level as usize];
    (Limits::new(time, depth), slack)
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
