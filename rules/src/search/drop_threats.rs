//! Fitted terms of Olympic Chess, where captured pieces come back as drops:
//! the danger to each King (squares around it attacked, weakly guarded or
//! attacked twice; safe checks by a drop and by a move, by kind; pieces in
//! hand against its weak squares, and a square of all of it, since an
//! attack grows faster than its parts), the King's defenders and flight
//! squares, threats to pieces, and the pieces the side to move holds. Each
//! is a count per side, weighed by tools/tune/drop_terms.py against
//! Fairy-Stockfish's evaluation and by tools/tune/outcome_fit.py against
//! the results of games.

use super::threats::{KING, PAWN, Reach};
use crate::position::Position;
use crate::types::{Bitboard, Color};

/// Kinds as in [`super::tuned::Tuned::kinds`] for Olympic.
const BISHOP: usize = 3;
const ROOK: usize = 4;
const SILVER: usize = 1;
const GOLD: usize = 2;

/// The terms, in the order of [`WEIGHTS`] and of tools/tune/drop_terms.py.
mod term {
    pub const TEMPO: usize = 0;
    /// Squares around the enemy King, its own included, that are attacked;
    /// those of them weakly guarded; those attacked twice.
    pub const ZONE: usize = 1;
    pub const ZONE_WEAK: usize = 2;
    pub const ZONE_TWICE: usize = 3;
    /// A safe check is there by dropping a pawn, silver, gold, bishop,
    /// rook; then by moving one.
    pub const DROP_CHECK: usize = 4;
    pub const MOVE_CHECK: usize = 9;
    /// Pieces in hand times the weak squares around the enemy King.
    pub const HAND_ZONE: usize = 14;
    /// The square of the danger to the enemy King (in sixteenths).
    pub const DANGER2: usize = 15;
    /// Own pieces around the own King, and the squares it can flee to.
    pub const DEFENDERS: usize = 16;
    pub const FLIGHT: usize = 17;
    /// Enemy pieces attacked and unguarded; attacked by a pawn; rooks and
    /// bishops attacked by a silver or gold; attacked at all.
    pub const HANGING: usize = 18;
    pub const PAWN_THREAT: usize = 19;
    pub const MINOR_THREAT: usize = 20;
    pub const ATTACKED: usize = 21;
    /// The hand-set term for pieces pressing on the enemy King
    /// ([`super::super::eval`]), which the fit may scale (in sixteenths).
    pub const PRESSURE: usize = 22;
    /// The pieces the side to move holds, up to three: a move that can
    /// drop one at once (fitted to game results, tools/tune/outcome_fit.py).
    pub const TEMPO_HELD: usize = 23;
    pub const COUNT: usize = 24;
}

/// Rough worth of each kind (pawn, silver, gold, bishop, rook), and of
/// both full armies (O1). Captured pieces come back as drops, so in a game
/// from the start position every piece is always on the board or in a hand
/// (a promoted one counts as a Gold, worth more).
const WORTH: [i32; 5] = [1, 3, 4, 4, 5];
const ARMIES: i32 = {
    let (mut sum, mut kind) = (0, 0);
    while kind < WORTH.len() {
        sum += WORTH[kind];
        kind += 1;
    }
    2 * sum
};

/// The weights of the terms, in centipawns.
static WEIGHTS: [i16; term::COUNT] = include!("drop_threats_weights.rs");

/// The terms' sums for each side. `reach` must hold every piece, the Kings
/// included; `held` is each side's pieces in hand by kind; `pressure` the
/// hand-set evaluation's term for pieces pressing on the enemy King.
pub(super) fn terms(
    pos: &Position,
    reach: &Reach,
    zone: &[Bitboard; 2],
    held: &[[i32; 5]; 2],
    pressure: [i32; 2],
) -> [i32; 2] {
    let mut out = [0i32; 2];
    // The terms were fitted on games, where both armies are always whole:
    // a position set up with less (a bare ending) has less to attack or
    // defend with, and the terms count for that much less.
    let material: i32 = (0..WORTH.len())
        .map(|kind| {
            let placed = (reach.placed[0][kind] | reach.placed[1][kind]).count() as i32;
            WORTH[kind] * (placed + held[0][kind] + held[1][kind])
        })
        .sum();
    let occ = pos.occupied();
    let empty = pos.mask & !occ;
    for us in 0..2 {
        let them = 1 - us;
        let color = if us == 0 { Color::White } else { Color::Black };
        let mut f = [0i32; term::COUNT];
        let own = pos.pieces_of(color);
        let hit = reach.all[us];
        if pos.turn() == color {
            f[term::TEMPO] = 1;
            f[term::TEMPO_HELD] = held[us].iter().sum::<i32>().min(3);
        }
        if let Some(k) = reach.placed[them][KING].first() {
            let near = zone[them];
            let weak = near & hit & !reach.twice[them] & (!reach.all[them] | reach.by_kind[them][KING]);
            f[term::ZONE] = (near & hit).count() as i32;
            f[term::ZONE_WEAK] = weak.count() as i32;
            f[term::ZONE_TWICE] = (near & reach.twice[us]).count() as i32;
            let king_alone = reach.by_kind[them][KING] & !reach.twice[them];
            let safe_drop = !reach.all[them] | (hit & king_alone);
            let safe_move = !own & (!reach.all[them] | (reach.twice[us] & king_alone));
            let mut checks = 0;
            for kind in 0..5 {
                // Where a piece of this kind would give check: the squares
                // one of the King's colour attacks from the King's square.
                let source = pos.attacks(k, super::tuned::OLYMPIC.kinds[kind], !color, occ);
                if held[us][kind] > 0 && (source & empty & safe_drop).any() {
                    f[term::DROP_CHECK + kind] = 1;
                    checks += 1;
                }
                if (source & reach.by_kind[us][kind] & safe_move).any() {
                    f[term::MOVE_CHECK + kind] = 1;
                    checks += 1;
                }
            }
            let in_hand: i32 = held[us].iter().sum();
            f[term::HAND_ZONE] = in_hand * f[term::ZONE_WEAK];
            let danger = f[term::ZONE] + f[term::ZONE_WEAK] + 2 * checks + in_hand;
            f[term::DANGER2] = danger * danger;
            f[term::PRESSURE] = pressure[us];
        }
        if reach.placed[us][KING].any() {
            let mine = own & !reach.placed[us][KING];
            f[term::DEFENDERS] = (mine & zone[us]).count() as i32;
            f[term::FLIGHT] = (reach.by_kind[us][KING] & !own & !reach.all[them]).count() as i32;
        }
        let pieces = pos.pieces_of(!color) & !reach.placed[them][KING];
        f[term::HANGING] = (pieces & hit & !reach.all[them]).count() as i32;
        f[term::PAWN_THREAT] = (pieces & !reach.placed[them][PAWN] & reach.by_kind[us][PAWN]).count() as i32;
        f[term::MINOR_THREAT] = ((reach.placed[them][BISHOP] | reach.placed[them][ROOK])
            & (reach.by_kind[us][SILVER] | reach.by_kind[us][GOLD]))
            .count() as i32;
        f[term::ATTACKED] = (pieces & hit).count() as i32;
        let weighed = |i: usize| f[i] * i32::from(WEIGHTS[i]);
        let sum: i32 = (0..term::COUNT).filter(|&i| i != term::DANGER2 && i != term::PRESSURE).map(weighed).sum();
        out[us] = sum + (weighed(term::DANGER2) + weighed(term::PRESSURE)) / 16;
        if material < ARMIES {
            out[us] = out[us] * material / ARMIES;
        }
    }
    out
}
