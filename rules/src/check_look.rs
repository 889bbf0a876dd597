//! Which quiet moves give check, for many moves of one position: the
//! squares from which each kind of attack reaches the enemy royal piece and
//! the pieces whose leaving opens a line to it, worked out once, so that
//! each move is a lookup ([`Position::quiet_move_checks`] works one move
//! out on its own).

use crate::attacks::tables;
use crate::moves::{Move, Promote};
use crate::piece::Power;
use crate::position::Position;
use crate::types::{Bitboard, Square};

/// The powers whose reach [`CheckLook`] knows: King, Rook, Bishop, Knight,
/// Pawn, Silver and Gold. A piece with any other goes the slow way.
const KNOWN: u32 = (1 << (Power::Gold as u32 + 1)) - 1;

/// For the side to move of one position: where its plain moves give check.
pub(crate) struct CheckLook {
    /// The enemy royal piece, where the look answers: not in Clash nor in
    /// Power Absorption (whose checks are more than lines and leaps), nor
    /// without one (every move asks the one-move look then).
    king: Option<Square>,
    /// Squares a piece with each power attacks the enemy royal piece from,
    /// by power index (King to Gold), with the board as it stands.
    from: [Bitboard; 7],
    /// Pieces of the side to move that stand alone between one of its
    /// sliders and the enemy royal piece: moving off the line checks.
    discoverers: Bitboard,
}

impl CheckLook {
    /// The look for `pos`'s side to move.
    pub(crate) fn new(pos: &Position) -> CheckLook {
        let v = pos.variant();
        let us = pos.turn();
        let king = if v.armies || v.absorption { None } else { pos.royal_square(!us) };
        let Some(k) = king else {
            return CheckLook { king: None, from: [Bitboard::EMPTY; 7], discoverers: Bitboard::EMPTY };
        };
        let t = tables();
        let occ = pos.occupied();
        let edge = !pos.mask;
        let slide_occ = occ | edge;
        // A piece of ours attacks `k` from `sq` with a power exactly when one
        // of theirs on `k` would attack `sq` with its mirror image: the same
        // for the symmetric powers, the other colour's for the forward ones.
        // A slider's own square blocks nothing it could go to and still check
        // (it would be giving check already).
        let from = [
            t.king(k),
            t.rook(k, slide_occ),
            t.bishop(k, slide_occ),
            t.knight(k),
            t.pawn(!us, k),
            t.silver(!us, k),
            t.gold(!us, k),
        ];
        let ours = pos.pieces_of(us);
        let snipers =
            ((t.rook(k, edge) & pos.power(Power::Rook)) | (t.bishop(k, edge) & pos.power(Power::Bishop))) & ours;
        let mut discoverers = Bitboard::EMPTY;
        for s in snipers {
            let between = t.between(s, k) & occ;
            if between.count() == 1 && (between & ours).any() {
                discoverers |= between;
            }
        }
        CheckLook { king, from, discoverers }
    }

    /// [`Position::quiet_move_checks`] of `m`, a legal move in `pos` (the
    /// position the look was made for).
    #[inline]
    pub(crate) fn quiet_move_checks(&self, pos: &Position, m: &Move) -> Option<bool> {
        let Some(k) = self.king else { return pos.quiet_move_checks(m) };
        let Move::Normal { from, to, promote: Promote::No, .. } = *m else { return None };
        if pos.piece_at(to).is_some() {
            return None;
        }
        let piece = pos.piece_at(from)?;
        let bits = pos.moves_of(piece).bits();
        if bits & !KNOWN != 0 {
            return pos.quiet_move_checks(m);
        }
        if self.discoverers.has(from) && !tables().line(from, k).has(to) {
            return Some(true);
        }
        let mut reach = Bitboard::EMPTY;
        for (i, squares) in self.from.iter().enumerate() {
            if bits >> i & 1 != 0 {
                reach |= *squares;
            }
        }
        Some(reach.has(to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::random_games;
    use crate::variant::VARIANTS;

    #[test]
    fn the_look_answers_as_each_move_alone_and_as_playing_it() {
        // Every move at every position of seeded random games in every
        // variant: the look's answer is the one-move answer, and where they
        // answer, playing the move agrees (own attacks, discovered checks,
        // both at once).
        let (mut answered, mut checks, mut discovered) = (0, 0, 0);
        for v in VARIANTS {
            random_games(v, 30, 80, 0x2545_F491_4F6C_DD1D, |pos| {
                let look = CheckLook::new(pos);
                for m in &pos.legal_moves() {
                    let fast = look.quiet_move_checks(pos, m);
                    let context = format!("{}: {} in {}", v.id, pos.canonical(m), pos.fen());
                    assert_eq!(fast, pos.quiet_move_checks(m), "{context}");
                    let Some(known) = fast else { continue };
                    let mut after = pos.clone();
                    after.play_unchecked(*m);
                    assert_eq!(known, after.is_check(), "{context}");
                    answered += 1;
                    checks += usize::from(known);
                    if let Move::Normal { from, .. } = *m
                        && look.discoverers.has(from)
                        && pos.piece_at(from).is_some_and(|p| pos.moves_of(p).bits() & !KNOWN == 0)
                    {
                        discovered += usize::from(known);
                    }
                }
            });
        }
        assert!(answered > 200_000 && checks > 5_000 && discovered > 200, "{answered} {checks} {discovered}");
    }
}
