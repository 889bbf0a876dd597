//! Chess's evaluation worked out by kinds of pieces: the same sum as
//! [`super::evaluate_any`] makes for a chess position, term for term, but
//! from each kind's squares (the position's boards by power) and tables
//! made once, where the general evaluation asks every square for its
//! piece, that piece for its powers and those for their worth. Chess's
//! pieces never change their powers (a promotion makes a new piece), so
//! its kinds are fixed; this is what most nodes of a chess search cost.

use std::sync::LazyLock;

use super::kinds::{BISHOP, KING, KNIGHT, PAWN, PHASE, QUEEN, ROOK, WORTH, blend, chess_attacks, chess_kinds, near};
use super::pawns::{PawnEntry, PawnTable};
use super::{Census, Lazy, PASSED, board_game_terms, off_centre_of, pawn_structure, spans};
use crate::attacks::tables;
use crate::position::Position;
use crate::search::threats::{self, Reach};
use crate::search::tuned;
use crate::types::{Bitboard, Color, Square};

/// How heavily each kind weighs in an attack on the King's surroundings:
/// its worth in quarters of a Rook, 1 to 4 ([`super::evaluate_any`]).
const ATTACK_WEIGHT: [i32; 5] = [0, 1, 1, 2, 3];

/// The hand-set terms that depend only on a piece's kind and square, by
/// square seen from its own side: a piece's worth and its centralisation,
/// a pawn's worth and advance; and a passed pawn's bonus by square.
struct Fixed {
    base: [[i32; 64]; 5],
    passed: [i32; 64],
    /// The squares within two steps of each square (the King's surroundings
    /// where a piece counts as pressing on it).
    near: [Bitboard; 64],
}

fn fixed() -> &'static Fixed {
    static FIXED: LazyLock<Fixed> = LazyLock::new(|| {
        let base = std::array::from_fn(|kind| {
            std::array::from_fn(|i| {
                let sq = Square::new(i as u8);
                if kind == PAWN {
                    WORTH[PAWN] + i32::from(sq.rank()) * 6
                } else {
                    WORTH[kind] + (8 - off_centre_of(sq, 8, 8)) * 4
                }
            })
        });
        let passed = std::array::from_fn(|i| {
            let advance = usize::from(Square::new(i as u8).rank());
            PASSED[(advance * 8 / 7).min(8)]
        });
        Fixed { base, passed, near: near(Bitboard::FULL) }
    });
    &FIXED
}

/// A side's pawns' attacks: those of the pawns towards the a-file and
/// towards the h-file (a square both reach is attacked by two pawns).
#[inline]
fn pawn_attacks(pawns: Bitboard, color: Color) -> (Bitboard, Bitboard) {
    let west = (pawns & !Bitboard::file(0)).forward(color).shift(-1);
    let east = (pawns & !Bitboard::file(7)).forward(color).shift(1);
    (west, east)
}

/// What the pawns alone are worth: their squares, advance and passed
/// pawns, doubled and isolated ones, and the fitted pawn terms
/// ([`threats::pawn_terms`]).
fn pawn_entry(pawns: [Bitboard; 2]) -> PawnEntry {
    let fixed = fixed();
    let t = &tuned::CHESS;
    let spans = spans();
    let mut score = [0i32; 2];
    let mut fitted = [[0i32; 2]; 2];
    let mut guards = [Bitboard::EMPTY; 2];
    for side in 0..2 {
        let them = 1 - side;
        // Squares seen from the side's own end of the board.
        let flip = if side == 0 { 0 } else { 56 };
        for sq in pawns[side] {
            let i = sq.index() ^ flip;
            fitted[side][0] += i32::from(t.pst[PAWN][0][i]);
            fitted[side][1] += i32::from(t.pst[PAWN][1][i]);
            score[side] += fixed.base[PAWN][i];
            if (spans[side][sq.index()] & pawns[them]).is_empty() {
                score[side] += fixed.passed[i];
            }
        }
        score[side] += pawn_structure(pawns[side]);
        let color = if side == 0 { Color::White } else { Color::Black };
        let (west, east) = pawn_attacks(pawns[side], color);
        guards[side] = west | east;
    }
    let (terms, passed) = threats::pawn_terms(&pawns, &guards);
    for side in 0..2 {
        fitted[side][0] += terms[side][0];
        fitted[side][1] += terms[side][1];
    }
    PawnEntry::new(pawns, score, fitted, passed)
}

/// How far above the search's beta the pieces' worth and squares alone must
/// put a position for [`evaluate_within`] to leave the rest of the
/// evaluation out. Of the quiescence-search positions where it does (one in
/// fifteen of them), about one in 1,600 would have come out below beta in
/// full. Not below alpha: the quiescence search still searches captures
/// there, and with only a bound for their pruning it searched a tenth more
/// nodes.
pub(super) const LAZY: i32 = 300;

/// The evaluation of a chess position for the side to move, with the pawn
/// structures `table` remembers.
pub(super) fn evaluate(pos: &Position, table: &mut PawnTable) -> i32 {
    evaluate_within(pos, table, None).value()
}

/// [`evaluate`], or where `beta` is given and the pieces' worth and squares
/// (the first and cheaper part of the sum) put the position more than
/// [`LAZY`] above it, that estimate less the margin as a lower bound.
pub(super) fn evaluate_within(pos: &Position, table: &mut PawnTable, beta: Option<i32>) -> Lazy {
    let fixed = fixed();
    let t = &tuned::CHESS;
    let kinds = chess_kinds(pos);
    let sides = [pos.pieces_of(Color::White), pos.pieces_of(Color::Black)];
    let pawns = [kinds[PAWN] & sides[0], kinds[PAWN] & sides[1]];
    let entry = *table.entry(pos.variant(), pawns, pawn_entry);
    let mut score = entry.score;
    let mut fitted = entry.fitted;
    let mut material = 0;
    // The pieces' worth and squares.
    for side in 0..2 {
        // Squares seen from the side's own end of the board.
        let flip = if side == 0 { 0 } else { 56 };
        for kind in KNIGHT..=KING {
            for sq in kinds[kind] & sides[side] {
                let i = sq.index() ^ flip;
                fitted[side][0] += i32::from(t.pst[kind][0][i]);
                fitted[side][1] += i32::from(t.pst[kind][1][i]);
                if kind != KING {
                    score[side] += fixed.base[kind][i];
                    material += PHASE[kind];
                }
            }
        }
    }
    let material = material.min(24);
    if let Some(beta) = beta {
        let estimate = blend(pos, score, fitted, material);
        if estimate - LAZY >= beta {
            return Lazy::AtLeast(estimate - LAZY);
        }
    }
    // Their attacks: mobility, pressure on the King, threats.
    let at = tables();
    let occ = pos.occupied();
    let royal = [pos.royal_square(Color::White), pos.royal_square(Color::Black)];
    let zone = royal.map(|k| k.map_or(Bitboard::EMPTY, |k| at.king(k) | k.bb()));
    let mut census = Census::default();
    let mut reach = Reach::default();
    for side in 0..2 {
        let them = 1 - side;
        let own = sides[side];

        // The pawns' attacks all at once.
        let color = if side == 0 { Color::White } else { Color::Black };
        let (west, east) = pawn_attacks(pawns[side], color);
        let pawn_attacks = west | east;
        census.pawn_guard(side, pawn_attacks);
        reach.twice[side] |= west & east;
        reach.add_all(side, threats::PAWN, pawns[side], pawn_attacks);

        // The King.
        if let Some(k) = royal[side] {
            reach.add(side, threats::KING, k, zone[side] & !k.bb());
        }

        // Knights, bishops, rooks and queens.
        let near_king = royal[them].map_or(Bitboard::EMPTY, |k| fixed.near[k.index()]);
        for kind in KNIGHT..=QUEEN {
            let placed = kinds[kind] & own;
            if placed.is_empty() {
                continue;
            }
            census.count_all(side, placed, kind == BISHOP, kind == ROOK || kind == QUEEN);
            score[side] += 12 * (placed & near_king).count() as i32;
            for sq in placed {
                let attacks = chess_attacks(kind, sq, occ);
                let free = (attacks & !own).count() as usize;
                score[side] += free as i32 * 3;
                reach.add(side, kind, sq, attacks);
                let mobility = &t.mobility[kind - 1];
                fitted[side][0] += i32::from(mobility[0][free.min(27)]);
                fitted[side][1] += i32::from(mobility[1][free.min(27)]);
                let pressed = (attacks & zone[them]).count() as i32;
                if pressed > 0 {
                    census.attack(side, ATTACK_WEIGHT[kind] * pressed);
                }
            }
        }
    }
    board_game_terms(pos, &pawns, royal, &census, &mut score);
    let terms = threats::piece_terms(pos, &reach, &zone, &entry.passed);
    for side in 0..2 {
        fitted[side][0] += terms[side][0];
        fitted[side][1] += terms[side][1];
    }
    Lazy::Exact(blend(pos, score, fitted, material))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::CHESS;

    #[test]
    fn the_same_sum_as_the_general_evaluation() {
        // Random games from the start and from a middlegame rich in
        // tactics, with promotions to every piece, extra queens, endings
        // and lone kings along the way.
        let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        // One table for all of them: a remembered structure must be worth
        // what it is worth worked out anew.
        let mut table = PawnTable::new();
        let evaluate = |pos: &Position| evaluate(pos, &mut table);
        let checked = super::super::kinds::check_same_sums(&CHESS, &[CHESS.start_fen, kiwipete], 200, 300, evaluate);
        assert!(checked > 20_000, "{checked}");
    }

    #[test]
    fn the_lazy_bound_holds_beta_where_the_full_evaluation_nearly_always_does() {
        // Positions out of check from random games, each asked against
        // betas from six pawns below its evaluation to three above: a bound is
        // at or above beta, an exact answer is the evaluation, and the full
        // evaluation falls below a beta the bound claimed to hold rarely.
        let mut table = PawnTable::new();
        let (mut asked, mut cuts, mut wrong, mut worst) = (0, 0, 0, 0);
        crate::search::random_games(&CHESS, 200, 100, 11, |pos| {
            if pos.is_check() {
                return;
            }
            let full = evaluate(pos, &mut table);
            assert_eq!(evaluate_within(pos, &mut table, None), Lazy::Exact(full));
            for beta in (full - 300 - LAZY..=full + 300).step_by(25) {
                asked += 1;
                match evaluate_within(pos, &mut table, Some(beta)) {
                    Lazy::Exact(score) => assert_eq!(score, full, "{}", pos.fen()),
                    Lazy::AtLeast(bound) => {
                        assert!(bound >= beta, "{}", pos.fen());
                        cuts += 1;
                        if full < beta {
                            wrong += 1;
                            worst = worst.max(beta - full);
                        }
                    }
                }
            }
        });
        println!("{asked} asked, {cuts} cut, {wrong} wrongly, by {worst} at most");
        assert!(cuts * 5 > asked, "{cuts} of {asked}");
        assert!(wrong * 50 < cuts, "{wrong} of {cuts}");
    }
}
