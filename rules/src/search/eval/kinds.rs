//! What the evaluations by kinds of pieces share: chess's kinds (Alapawn
//! has the same) found on the boards by power, their attacks, the squares
//! near each square, and the test that holds each evaluation to the
//! general one.

use crate::attacks::tables;
use crate::piece::Power;
use crate::position::Position;
use crate::types::{Bitboard, Square};

/// Chess's kinds, in the order of its fitted tables
/// ([`crate::search::tuned::Tuned::kinds`]) and of [`chess_kinds`].
pub(in crate::search) const PAWN: usize = 0;
pub(in crate::search) const KNIGHT: usize = 1;
pub(in crate::search) const BISHOP: usize = 2;
pub(in crate::search) const ROOK: usize = 3;
pub(in crate::search) const QUEEN: usize = 4;
pub(in crate::search) const KING: usize = 5;

/// The worth of each of chess's kinds but the King, in centipawns:
/// [`super::value`] of its powers on an 8x8 board.
pub(in crate::search) const WORTH: [i32; 5] = [100, 310, 330, 500, (330 + 500) * 11 / 10];

/// What each of chess's kinds adds to the middlegame phase (24 at the
/// start).
pub(super) const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// The squares of each of chess's kinds, from the boards by power: a Queen
/// is on the Bishop's and the Rook's.
#[inline(always)]
pub(in crate::search) fn chess_kinds(pos: &Position) -> [Bitboard; 6] {
    let diagonal = pos.power(Power::Bishop);
    let straight = pos.power(Power::Rook);
    [
        pos.power(Power::Pawn),
        pos.power(Power::Knight),
        diagonal & !straight,
        straight & !diagonal,
        diagonal & straight,
        pos.power(Power::King),
    ]
}

/// The squares a piece of chess's `kind` (not a pawn) on `sq` attacks on an
/// 8x8 board with `occ` occupied.
#[inline(always)]
pub(super) fn chess_attacks(kind: usize, sq: Square, occ: Bitboard) -> Bitboard {
    let at = tables();
    match kind {
        KNIGHT => at.knight(sq),
        BISHOP => at.bishop(sq, occ),
        ROOK => at.rook(sq, occ),
        QUEEN => at.bishop(sq, occ) | at.rook(sq, occ),
        _ => at.king(sq),
    }
}

/// The evaluation for the side to move from each side's hand-set `score`
/// and fitted middlegame and ending sums, blended by `phase` (0-24, 24 a
/// full middlegame).
#[inline]
pub(super) fn blend(pos: &Position, mut score: [i32; 2], fitted: [[i32; 2]; 2], phase: i32) -> i32 {
    for side in 0..2 {
        score[side] += (fitted[side][0] * phase + fitted[side][1] * (24 - phase)) / 24;
    }
    let us = pos.turn().index();
    score[us] - score[1 - us]
}

/// The squares of `within` at most two steps from each square.
pub(super) fn near(within: Bitboard) -> [Bitboard; 64] {
    std::array::from_fn(|i| {
        let k = Square::new(i as u8);
        within
            .filter(|sq| sq.file().abs_diff(k.file()).max(sq.rank().abs_diff(k.rank())) <= 2)
            .fold(Bitboard::EMPTY, |b, sq| b | sq.bb())
    })
}

/// Plays seeded random games of `variant` from each of `starts` in turn to
/// their ends, captures, promotions and drops chosen more often than
/// chance, and checks at every position that `evaluate` gives the general
/// evaluation's sum; returns how many positions it checked.
#[cfg(test)]
pub(super) fn check_same_sums(
    variant: &'static crate::Variant,
    starts: &[&str],
    games: usize,
    plies: usize,
    mut evaluate: impl FnMut(&Position) -> i32,
) -> usize {
    use super::{Values, evaluate_any, is_noisy};
    use crate::moves::Move;
    let mut dice = crate::search::levels::Dice(0x9E37_79B9_7F4A_7C15);
    let mut next = |n: usize| dice.roll(n as u64) as usize;
    let mut values = Values::new();
    let mut checked = 0;
    for game in 0..games {
        let mut pos = Position::from_fen(variant, starts[game % starts.len()]).expect("a valid start");
        for _ in 0..plies {
            assert_eq!(evaluate(&pos), evaluate_any(&pos, &mut values), "{}", pos.fen());
            checked += 1;
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.race_decided().is_some() {
                break;
            }
            let sharp: Vec<Move> =
                moves.iter().filter(|m| is_noisy(&pos, m) || matches!(m, Move::Drop { .. })).copied().collect();
            let m = if !sharp.is_empty() && next(3) > 0 { sharp[next(sharp.len())] } else { moves[next(moves.len())] };
            pos.play_unchecked(m);
        }
    }
    checked
}
