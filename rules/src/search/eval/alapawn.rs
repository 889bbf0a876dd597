//! Alapawn's evaluation worked out by kinds of pieces: the same sum as
//! [`super::evaluate_any`] makes for an Alapawn position, term for term,
//! from the position's boards by power and tables made once (see
//! [`super::chess`]). No piece is royal (A1), so nothing presses on a King,
//! and the pawns' race is the hand-set evaluation's main term.

use std::sync::LazyLock;

use super::kinds::{KING, KNIGHT, PAWN, PHASE, blend, chess_attacks, chess_kinds};
use super::{PASSED, off_centre_of, spans};
use crate::position::Position;
use crate::search::tuned;
use crate::types::{Color, Square};

/// The hand-set terms that depend only on a piece's kind and square, by
/// square seen from its own side: a piece's worth and its centralisation,
/// a pawn's worth and its advance in the race; and a passed pawn's bonus.
struct Fixed {
    base: [[i32; 64]; 6],
    passed: [i32; 64],
}

fn fixed() -> &'static Fixed {
    static FIXED: LazyLock<Fixed> = LazyLock::new(|| {
        // A pawn is worth more in the race; the King is an ordinary piece.
        let worth = [250, 310, 330, 500, (330 + 500) * 11 / 10, 250];
        let base = std::array::from_fn(|kind| {
            std::array::from_fn(|i| {
                let sq = Square::new(i as u8);
                let advance = i32::from(sq.rank());
                if kind == PAWN {
                    worth[PAWN] + advance * advance * 14
                } else {
                    worth[kind] + (8 - off_centre_of(sq, 8, 8)) * 4
                }
            })
        });
        let passed = std::array::from_fn(|i| {
            let advance = usize::from(Square::new(i as u8).rank());
            PASSED[(advance * 8 / 7).min(8)] * 3
        });
        Fixed { base, passed }
    });
    &FIXED
}

/// The evaluation of an Alapawn position for the side to move.
pub(super) fn evaluate(pos: &Position) -> i32 {
    let fixed = fixed();
    let t = &tuned::ALAPAWN;
    let spans = spans();
    let occ = pos.occupied();
    let kinds = chess_kinds(pos);
    let sides = [pos.pieces_of(Color::White), pos.pieces_of(Color::Black)];
    let pawns = [kinds[PAWN] & sides[0], kinds[PAWN] & sides[1]];
    let mut score = [0i32; 2];
    let mut fitted = [[0i32; 2]; 2];
    let mut material = 0;
    for side in 0..2 {
        let them = 1 - side;
        let own = sides[side];
        // Squares seen from the side's own end of the board.
        let flip = if side == 0 { 0 } else { 56 };
        // A piece's worth, place and fitted table by kind and square.
        let placed = |kind: usize, sq: Square| {
            let i = sq.index() ^ flip;
            (fixed.base[kind][i], t.pst[kind][0][i], t.pst[kind][1][i])
        };
        let mut sum = 0;
        let [mut mg, mut eg] = [0i32; 2];
        for sq in pawns[side] {
            let (base, m, e) = placed(PAWN, sq);
            sum += base;
            (mg, eg) = (mg + i32::from(m), eg + i32::from(e));
            if (spans[side][sq.index()] & pawns[them]).is_empty() {
                sum += fixed.passed[sq.index() ^ flip];
            }
        }
        for kind in KNIGHT..=KING {
            let on = kinds[kind] & own;
            material += PHASE[kind] * on.count() as i32;
            for sq in on {
                let (base, m, e) = placed(kind, sq);
                sum += base;
                (mg, eg) = (mg + i32::from(m), eg + i32::from(e));
                let attacks = chess_attacks(kind, sq, occ);
                let free = (attacks & !own).count() as usize;
                sum += free as i32 * 3;
                if kind != KING {
                    let mobility = &t.mobility[kind - 1];
                    mg += i32::from(mobility[0][free.min(27)]);
                    eg += i32::from(mobility[1][free.min(27)]);
                }
            }
        }
        score[side] = sum;
        fitted[side] = [mg, eg];
    }
    blend(pos, score, fitted, material.min(24))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::ALAPAWN;

    #[test]
    fn the_same_sum_as_the_general_evaluation() {
        // Random games to their ends (a pawn home or no move), with open
        // boards and lone pieces along the way.
        let checked = super::super::kinds::check_same_sums(&ALAPAWN, &[ALAPAWN.start_fen], 200, 200, evaluate);
        assert!(checked > 10_000, "{checked}");
    }
}
