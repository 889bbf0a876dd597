//! Olympic Chess's evaluation worked out by kinds of pieces: the same sum
//! as [`super::evaluate_any`] makes for an Olympic position, term for term,
//! from the position's boards by power and tables made once (see
//! [`super::chess`]). A promoted Pawn or Silver moves as a Gold (O3) and is
//! filed under the Gold's power, so it counts as a Gold here as there.

use std::sync::LazyLock;

use super::kinds::{blend, near};
use super::{PASSED, off_centre_of, spans};
use crate::attacks::tables;
use crate::piece::Power;
use crate::position::Position;
use crate::search::threats::{self, Reach};
use crate::search::{drop_threats, tuned};
use crate::types::{Bitboard, Color, Square};

/// Kinds in the order of the fitted tables ([`tuned::Tuned::kinds`]).
const PAWN: usize = 0;
const SILVER: usize = 1;
const GOLD: usize = 2;
const BISHOP: usize = 3;
const ROOK: usize = 4;
const KING: usize = 5;

/// The powers of the kinds besides the King.
const POWERS: [Power; 5] = [Power::Pawn, Power::Silver, Power::Gold, Power::Bishop, Power::Rook];

/// The hand-set terms that depend only on a piece's kind and square, by
/// square seen from its own side ([`tuned::Tuned::oriented`]): a piece's
/// worth and its centralisation, a pawn's worth and advance; a passed
/// pawn's bonus; and the squares within two steps of each square.
struct Fixed {
    base: [[i32; 64]; 5],
    passed: [i32; 64],
    near: [Bitboard; 64],
    /// A piece in hand's worth, by kind (the King's too, for a position
    /// set up with one in hand).
    held: [i32; 6],
}

fn fixed() -> &'static Fixed {
    static FIXED: LazyLock<Fixed> = LazyLock::new(|| {
        let worth = [100, 330, 380, 420, 520];
        let on_board = |i: usize| i % 8 < 5 && i / 8 < 5;
        let base = std::array::from_fn(|kind| {
            std::array::from_fn(|i| {
                let sq = Square::new(i as u8);
                match (on_board(i), kind) {
                    (false, _) => 0,
                    (true, PAWN) => worth[PAWN] + i32::from(sq.rank()) * 6,
                    (true, _) => worth[kind] + (5 - off_centre_of(sq, 5, 5)) * 4,
                }
            })
        });
        let passed = std::array::from_fn(|i| {
            let advance = usize::from(Square::new(i as u8).rank());
            PASSED[(advance * 8 / 4).min(8)]
        });
        let near = near(Bitboard::board(5, 5));
        Fixed { base, passed, near, held: [worth[0], worth[1], worth[2], worth[3], worth[4], 250] }
    });
    &FIXED
}

/// The evaluation of an Olympic position for the side to move.
pub(super) fn evaluate(pos: &Position) -> i32 {
    let fixed = fixed();
    let t = &tuned::OLYMPIC;
    let at = tables();
    let spans = spans();
    let occ = pos.occupied();
    let mask = pos.mask;
    let slide_occ = occ | !mask;
    let royal = [pos.royal_square(Color::White), pos.royal_square(Color::Black)];
    let sides = [pos.pieces_of(Color::White), pos.pieces_of(Color::Black)];
    let pawn_power = pos.power(Power::Pawn);
    let pawns = [pawn_power & sides[0], pawn_power & sides[1]];
    let zone = royal.map(|k| k.map_or(Bitboard::EMPTY, |k| (at.king(k) & mask) | k.bb()));
    let mut score = [0i32; 2];
    let mut fitted = [0i32; 2];
    let mut pressure = [0i32; 2];
    let mut held = [[0i32; 5]; 2];
    let mut reach = Reach::default();
    for side in 0..2 {
        let them = 1 - side;
        let color = if side == 0 { Color::White } else { Color::Black };
        let own = sides[side];
        // Black's squares seen from White's side turned half round (O1).
        let oriented =
            |sq: Square| if side == 0 { sq.index() } else { (4 - sq.rank()) as usize * 8 + (4 - sq.file()) as usize };
        let near_king = royal[them].map_or(Bitboard::EMPTY, |k| fixed.near[k.index()]);

        for sq in pawns[side] {
            let i = oriented(sq);
            fitted[side] += i32::from(t.pst[PAWN][0][i]);
            let advance = usize::from(if side == 0 { sq.rank() } else { 4 - sq.rank() });
            score[side] += fixed.base[PAWN][advance * 8];
            if (spans[side][sq.index()] & pawns[them]).is_empty() {
                score[side] += fixed.passed[advance * 8];
            }
            reach.add(side, threats::PAWN, sq, at.pawn(color, sq) & mask);
        }
        if let Some(k) = royal[side] {
            fitted[side] += i32::from(t.pst[KING][0][oriented(k)]);
            reach.add(side, threats::KING, k, zone[side] & !k.bb());
        }
        for (kind, &power) in POWERS.iter().enumerate().skip(SILVER) {
            let placed = pos.power(power) & own;
            score[side] += 12 * (placed & near_king).count() as i32;
            for sq in placed {
                let i = oriented(sq);
                fitted[side] += i32::from(t.pst[kind][0][i]);
                score[side] += fixed.base[kind][i];
                let attacks = mask
                    & match kind {
                        SILVER => at.silver(color, sq),
                        GOLD => at.gold(color, sq),
                        BISHOP => at.bishop(sq, slide_occ),
                        _ => at.rook(sq, slide_occ),
                    };
                let free = (attacks & !own).count() as usize;
                score[side] += free as i32 * 3;
                reach.add(side, kind, sq, attacks);
                fitted[side] += i32::from(t.mobility[kind - 1][0][free.min(27)]);
                pressure[side] += (attacks & zone[them]).count() as i32;
            }
        }

        // Pieces in hand, by the variant's order of types (K R B G S P).
        for (slot, kind) in [KING, ROOK, BISHOP, GOLD, SILVER, PAWN].into_iter().enumerate() {
            let n = i32::from(pos.hand(color, slot as u8));
            if n == 0 {
                continue;
            }
            score[side] += n * fixed.held[kind];
            pressure[side] += 2 * n;
            if kind != KING {
                fitted[side] += n * i32::from(t.hand[kind]);
                held[side][kind] += n;
            }
        }
    }
    // What pressure on the enemy royal piece is worth.
    let mut pressing = [0i32; 2];
    for side in 0..2 {
        if royal[1 - side].is_some() {
            pressing[side] = (pressure[side] * pressure[side] * 4).min(900);
            score[side] += pressing[side];
        }
    }
    let terms = drop_threats::terms(pos, &reach, &zone, &held, pressing);
    // Olympic's tables have no ending to blend towards: all middlegame.
    let fitted = [0, 1].map(|side| [fitted[side] + terms[side], 0]);
    blend(pos, score, fitted, 24)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::OLYMPIC;

    #[test]
    fn the_same_sum_as_the_general_evaluation() {
        // Random games to their ends, with full hands, promoted pieces and
        // bare Kings along the way.
        let checked = super::super::kinds::check_same_sums(&OLYMPIC, &[OLYMPIC.start_fen], 200, 200, evaluate);
        assert!(checked > 10_000, "{checked}");
    }

    /// `fen` turned half round with the colours swapped: Olympic's armies
    /// face each other that way (O1), so the position is the same to the
    /// side to move.
    fn turned(fen: &str) -> String {
        let f: Vec<&str> = fen.split_whitespace().collect();
        let (board, hand) = f[0].split_once('[').unwrap_or((f[0], "]"));
        let mut cells: Vec<String> = Vec::new();
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut chars = board.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '/' => rows.push(std::mem::take(&mut cells)),
                '1'..='9' => cells.extend((0..c.to_digit(10).unwrap()).map(|_| "1".to_string())),
                '+' => cells.push(format!("+{}", chars.next().unwrap())),
                _ => cells.push(c.to_string()),
            }
        }
        rows.push(cells);
        let swap = |t: &str| -> String {
            t.chars()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect()
        };
        let row = |cells: &Vec<String>| {
            let mut out = String::new();
            let mut empty = 0;
            for c in cells.iter().rev() {
                if c == "1" {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    out += &empty.to_string();
                    empty = 0;
                }
                out += &swap(c);
            }
            if empty > 0 {
                out += &empty.to_string();
            }
            out
        };
        let board: Vec<String> = rows.iter().rev().map(row).collect();
        let turn = if f[1] == "w" { "b" } else { "w" };
        format!("{}[{} {turn} {} {} {} {}", board.join("/"), swap(hand), f[2], f[3], f[4], f[5])
    }

    #[test]
    fn both_armies_are_seen_alike() {
        // A position and the same one turned half round with the colours
        // swapped are worth the same to the side to move, over random games.
        let mut checked = 0;
        crate::search::random_games(&OLYMPIC, 100, 80, 0x2545_F491_4F6C_DD1D, |pos| {
            let fen = pos.fen();
            let other = Position::from_fen(&OLYMPIC, &turned(&fen)).unwrap();
            assert_eq!(evaluate(pos), evaluate(&other), "{fen} against {}", turned(&fen));
            checked += 1;
        });
        assert!(checked > 1000);
    }
}
