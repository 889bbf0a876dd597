//! Construction with split powers (CS1-CS5): the moves of a piece holding
//! moving and capturing halves.
//!
//! A half is read as its full power restricted to empty squares (moving)
//! or to enemy pieces (capturing); a piece holding both halves of a kind
//! moves and captures with it as with the full power (CS2). Attacks (check,
//! pins, the squares a swap or a King step must avoid) count the capturing
//! halves only: those are filed under the full powers' boards (CS4), so the
//! rest of the generator needs nothing of its own.

use crate::attacks::tables;
use crate::moves::{Move, MoveList, Promote};
use crate::piece::Powers;
use crate::position::Position;
use crate::types::{Bitboard, Square};
use crate::variant::Promotion;

impl Position {
    /// Moves of the non-royal piece on `from`, holding `powers` (some of
    /// them halves), to squares in `allowed` (check, pins). A step of the
    /// moving Pawn half or a capture of the capturing one onto the last
    /// rank promotes (CS5), with one move per reward; another half reaching
    /// the same square makes a move of its own that does not (C4).
    pub(crate) fn split_moves(&self, from: Square, powers: Powers, allowed: Bitboard, list: &mut MoveList) {
        let us = self.turn;
        let them = self.by_color[(!us).index()];
        let occ = self.occupied();
        let empty = !occ & self.mask;
        let moving = powers.moving();
        let capturing = powers.capturing();
        let mut pawn = Bitboard::EMPTY;
        if moving.contains(Powers::PAWN) {
            pawn |= self.pawn_steps(from, us, empty);
        }
        if capturing.contains(Powers::PAWN) {
            pawn |= tables().pawn(us, from) & them & self.mask;
        }
        let others = (self.attacks(from, moving.without(Powers::PAWN), us, occ) & empty)
            | (self.attacks(from, capturing.without(Powers::PAWN), us, occ) & them);
        let zone = self.last_rank(us);
        let kinds: &[u8] = match self.variant.promotion {
            Promotion::Reserve(k) => k,
            _ => &[],
        };
        for to in (pawn | others) & allowed {
            if pawn.has(to) && zone.has(to) && !kinds.is_empty() {
                for &k in kinds {
                    list.push(Move::Normal { from, to, promote: Promote::To(k), keep: false });
                }
                if !others.has(to) {
                    continue;
                }
            }
            list.push(Move::Normal { from, to, promote: Promote::No, keep: false });
        }
    }
}
