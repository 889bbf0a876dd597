//! Static exchange evaluation: what a move wins or loses on its destination
//! square if both sides then capture there, each with its least valuable
//! piece, and each free to stop when going on would cost it.

use crate::moves::Move;
use crate::position::Position;

use super::eval::Values;

/// What a royal piece counts for in an exchange: more than anything it could
/// win, so it captures last and only onto an unguarded square.
const ROYAL: i32 = 50_000;

/// Whether [`exchange`] can be trusted in `pos`'s variant: not where a capture
/// changes the captor's powers (PA3, CS1) or where pieces attack in ways the
/// attack tables do not list (Clash's exotic pieces), nor where reserve powers
/// change pieces (C2).
pub(super) fn fits(pos: &Position) -> bool {
    let v = pos.variant();
    !(v.absorption || v.split_powers || v.armies || v.grants)
}

/// The material the side to move gains by `m` and the exchange it starts on
/// its destination, in centipawns; 0 for castling, grants and pair turns.
/// Promotions count as the piece that moves. Only meaningful where
/// [`fits`] holds.
pub(super) fn exchange(pos: &Position, m: &Move, values: &mut Values) -> i32 {
    let (from, to, moving, first) = match *m {
        Move::Normal { from, to, .. } => {
            let Some(piece) = pos.piece_at(from) else { return 0 };
            let victim = pos.piece_at(to).map_or(0, |p| worth(pos, p, values));
            (Some(from), to, worth(pos, piece, values), victim)
        }
        Move::EnPassant { from, to, .. } => {
            let Some(piece) = pos.piece_at(from) else { return 0 };
            (Some(from), to, worth(pos, piece, values), 100)
        }
        Move::Drop { piece, to } => {
            let powers = pos.variant().pieces[piece as usize].powers;
            (None, to, values.of(pos, powers), 0)
        }
        _ => return 0,
    };
    let mut occ = pos.occupied();
    if let Some(from) = from {
        occ ^= from.bb();
    }
    if let Move::EnPassant { from, to, .. } = *m
        && let Some(victim) = crate::types::Square::from_coords(to.file(), from.rank())
    {
        occ ^= victim.bb();
    }
    // gains[d]: what the side making the d-th capture has gained if the
    // exchange stops right after it.
    let mut gains = [0i32; 32];
    gains[0] = first;
    let mut on_square = moving;
    let mut side = !pos.turn();
    let mut d = 0;
    loop {
        let attackers = pos.attackers(to, side, pos.pieces_of(side) & occ, occ);
        let Some((sq, value)) = attackers
            .into_iter()
            .map(|sq| (sq, pos.piece_at(sq).map_or(ROYAL, |p| worth(pos, p, values))))
            .min_by_key(|&(_, v)| v)
        else {
            break;
        };
        if d + 1 >= gains.len() {
            break;
        }
        if value >= ROYAL && pos.attackers(to, !side, pos.pieces_of(!side) & occ, occ ^ sq.bb()).any() {
            // The royal piece may not capture onto a guarded square.
            break;
        }
        d += 1;
        gains[d] = on_square - gains[d - 1];
        // Neither side can do better by going on.
        if gains[d].max(-gains[d - 1]) < 0 {
            break;
        }
        on_square = value;
        occ ^= sq.bb();
        side = !side;
    }
    while d > 0 {
        gains[d - 1] = -(-gains[d - 1]).max(gains[d]);
        d -= 1;
    }
    gains[0]
}

fn worth(pos: &Position, piece: crate::piece::Piece, values: &mut Values) -> i32 {
    if piece.royal { ROYAL } else { values.of(pos, pos.moves_of(piece)) }
}
