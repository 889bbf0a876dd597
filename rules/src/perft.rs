//! Perft: counting the leaves of the legal-move tree (G5).

use crate::moves::{Move, MoveList};
use crate::position::Position;

/// Number of leaf nodes `depth` plies below `pos`. The last ply is counted
/// by the length of the move list, as other move generators do.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    pos.legal_moves_into(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for m in &moves {
        let mut next = pos.clone();
        next.play_unchecked(*m);
        nodes += perft(&next, depth - 1);
    }
    nodes
}

/// Perft per root move, in the order of [`Position::legal_moves`].
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|m| {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            (*m, perft(&next, depth - 1))
        })
        .collect()
}
