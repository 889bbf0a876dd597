//! Static exchange evaluation: what a move wins or loses on its destination
//! square if both sides then capture there, each with its least valuable
//! piece, and each free to stop when going on would cost it.

use crate::attacks::tables;
use crate::moves::Move;
use crate::position::Position;
use crate::types::{Color, Square};

use super::eval::{BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK, Values, WORTH};

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
    if std::ptr::eq(pos.variant(), &crate::variant::CHESS) {
        return chess_exchange(pos, m);
    }
    exchange_any(pos, m, values)
}

/// [`exchange`] in any variant where it fits, each capturer's attacks
/// looked up anew after every capture.
fn exchange_any(pos: &Position, m: &Move, values: &mut Values) -> i32 {
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
        && let Some(victim) = Square::from_coords(to.file(), from.rank())
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
    settle(&mut gains, d)
}

/// What each of chess's kinds counts for in an exchange, in the order of
/// [`super::eval::chess_kinds`]: its worth, and [`ROYAL`] for the King.
const CHESS_WORTH: [i32; 6] = [WORTH[0], WORTH[1], WORTH[2], WORTH[3], WORTH[4], ROYAL];

/// [`exchange`] in chess, to the same sums as [`exchange_any`]: the pieces
/// that attack the square are found once, and after each capture only the
/// line pieces that capture uncovers behind it are added; the least
/// valuable attacker is found by kinds, cheapest first.
fn chess_exchange(pos: &Position, m: &Move) -> i32 {
    use super::eval::chess_kinds;
    let kinds = chess_kinds(pos);
    let kind_at = |sq: Square| kinds.iter().position(|k| k.has(sq));
    let worth_at = |sq: Square| kind_at(sq).map_or(0, |k| CHESS_WORTH[k]);
    let (from, to, first) = match *m {
        Move::Normal { from, to, .. } => (from, to, pos.piece_at(to).map_or(0, |_| worth_at(to))),
        Move::EnPassant { from, to, .. } => (from, to, 100),
        _ => return 0,
    };
    if pos.piece_at(from).is_none() {
        return 0;
    }
    let t = tables();
    let mut occ = pos.occupied() ^ from.bb();
    if let Move::EnPassant { .. } = *m
        && let Some(victim) = Square::from_coords(to.file(), from.rank())
    {
        occ ^= victim.bb();
    }
    let diagonal = kinds[BISHOP] | kinds[QUEEN];
    let straight = kinds[ROOK] | kinds[QUEEN];
    let white = pos.pieces_of(Color::White);
    let mut attackers = ((t.knight(to) & kinds[KNIGHT])
        | (t.king(to) & kinds[KING])
        | (t.pawn(Color::Black, to) & kinds[PAWN] & white)
        | (t.pawn(Color::White, to) & kinds[PAWN] & !white)
        | (t.bishop(to, occ) & diagonal)
        | (t.rook(to, occ) & straight))
        & occ;
    let mut gains = [0i32; 32];
    gains[0] = first;
    let mut on_square = worth_at(from);
    let mut side = !pos.turn();
    let mut d = 0;
    loop {
        let theirs = attackers & pos.pieces_of(side);
        let Some((kind, sq)) = (0..6).find_map(|k| (theirs & kinds[k]).first().map(|sq| (k, sq))) else {
            break;
        };
        if d + 1 >= gains.len() {
            break;
        }
        let lifted = occ ^ sq.bb();
        if kind == KING {
            // The King may not capture onto a guarded square (a line piece
            // behind it counts).
            let guards = (attackers & !sq.bb())
                | (t.bishop(to, lifted) & diagonal & lifted)
                | (t.rook(to, lifted) & straight & lifted);
            if (guards & pos.pieces_of(!side)).any() {
                break;
            }
        }
        d += 1;
        gains[d] = on_square - gains[d - 1];
        // Neither side can do better by going on.
        if gains[d].max(-gains[d - 1]) < 0 {
            break;
        }
        on_square = CHESS_WORTH[kind];
        occ = lifted;
        attackers &= occ;
        // What stood behind the capturer on its line now attacks.
        if matches!(kind, PAWN | BISHOP | QUEEN) {
            attackers |= t.bishop(to, occ) & diagonal & occ;
        }
        if matches!(kind, ROOK | QUEEN) {
            attackers |= t.rook(to, occ) & straight & occ;
        }
        side = !side;
    }
    settle(&mut gains, d)
}

/// The exchange's outcome from `gains` (what the side making the d-th
/// capture has gained if the exchange stops right after it) up to the
/// `d`-th capture: each side, from the last back, stops where going on
/// would cost it.
fn settle(gains: &mut [i32; 32], mut d: usize) -> i32 {
    while d > 0 {
        gains[d - 1] = -(-gains[d - 1]).max(gains[d]);
        d -= 1;
    }
    gains[0]
}

fn worth(pos: &Position, piece: crate::piece::Piece, values: &mut Values) -> i32 {
    if piece.royal { ROYAL } else { values.of(pos, pos.moves_of(piece)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::CHESS;

    #[test]
    fn chess_exchanges_sum_as_the_general_ones() {
        // Every move (captures, quiet moves onto guarded squares, en passant,
        // promotions, King captures) of the positions of seeded random games.
        let mut values = Values::new();
        let (mut compared, mut long) = (0, 0);
        crate::search::random_games(&CHESS, 60, 120, 0x9E37_79B9_7F4A_7C15, |pos| {
            for m in pos.legal_moves() {
                let general = exchange_any(pos, &m, &mut values);
                assert_eq!(chess_exchange(pos, &m), general, "{} in {}", pos.canonical(&m), pos.fen());
                compared += 1;
                long += usize::from(general != 0 && pos.piece_at(m.to()).is_some());
            }
        });
        assert!(compared > 100_000 && long > 5_000, "{compared} moves, {long} exchanges");
    }
}
