//! The evaluation: what a position is worth to the side to move, and the
//! values of pieces (sets of powers) that move ordering also uses.

use std::sync::LazyLock;

use crate::moves::{Move, Promote};
use crate::piece::Powers;
use crate::position::Position;
use crate::types::{Bitboard, Color, Square};
use crate::variant::Goal;

mod alapawn;
mod chess;
mod kinds;
mod olympic;
mod pawns;

pub(super) use kinds::{BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK, WORTH, chess_kinds};
use pawns::PawnTable;

pub(super) fn promotes(m: &Move) -> bool {
    matches!(m, Move::Normal { promote, .. } if *promote != Promote::No)
}

pub(super) fn victim_value(pos: &Position, m: &Move, values: &mut Values) -> Option<i32> {
    match *m {
        Move::Normal { to, .. } => pos.piece_at(to).map(|p| values.of(pos, pos.moves_of(p)).max(1)),
        Move::EnPassant { .. } => Some(100),
        _ => None,
    }
}

/// Captures, promotions, and in Alapawn the pawn steps that reach the last
/// rank: the moves the quiescence search looks at.
pub(super) fn is_noisy(pos: &Position, m: &Move) -> bool {
    let captures = match *m {
        Move::Normal { to, .. } => pos.piece_at(to).is_some(),
        Move::EnPassant { .. } => true,
        _ => false,
    };
    if captures || promotes(m) {
        return true;
    }
    if pos.variant().goal == Goal::PawnRace {
        let last = pos.last_rank(pos.turn());
        return match *m {
            Move::Normal { to, .. } => last.has(to),
            Move::PawnPair { second, .. } => last.has(second.1),
            _ => false,
        };
    }
    false
}

/// Centipawn value of a set of powers: a compound is the sum of its parts
/// and a little more (it combines them in one piece). A half (CS1) is worth
/// half its full power when it captures and 45% when it only moves (it
/// neither takes nor guards nor checks); both halves are the full power.
pub(super) fn value(pos: &Position, powers: Powers) -> i32 {
    let powers = powers.joined();
    let v = pos.variant();
    let race = v.goal == Goal::PawnRace;
    let small = v.width <= 5;
    if powers.is_empty() {
        // Construction's static piece: a blocker, and a body for powers.
        return 40;
    }
    if v.armies
        && let Some(i) = v.piece_index_of(powers, false)
        && let Some(kind) = crate::army::PieceKind::from_letter(v.pieces[i as usize].letter)
    {
        // Clash: the pieces' costs in gold (CA, CLASH.md), in centipawns; the
        // auctioned Amazon at the 14 gold its author suggests.
        return kind.cost_quarters().map_or(1400, |q| q as i32 * 25);
    }
    let full = |p: Powers| value(pos, p.whole());
    let sum: i32 = powers
        .singles()
        .map(|p| match p {
            p if p.has_halves() && p.capturing().is_empty() => full(p) * 9 / 20,
            p if p.has_halves() => full(p) / 2,
            p if p == Powers::PAWN => {
                if race {
                    250
                } else {
                    100
                }
            }
            p if p == Powers::KNIGHT => 310,
            p if p == Powers::BISHOP => {
                if small {
                    420
                } else {
                    330
                }
            }
            p if p == Powers::ROOK => {
                if small {
                    520
                } else {
                    500
                }
            }
            p if p == Powers::SILVER => 330,
            p if p == Powers::GOLD => 380,
            p if p == Powers::KING => 250,
            // C6: one swap with the King.
            p if p == Powers::CASTLE => 40,
            _ => 0,
        })
        .sum();
    if powers.count() > 1 { sum + sum / 10 } else { sum }
}

/// Distance from the centre of the board, in half squares (0 in the middle).
fn off_centre(pos: &Position, sq: Square) -> i32 {
    let v = pos.variant();
    off_centre_of(sq, v.width, v.height)
}

/// [`off_centre`] on a board `width` by `height`.
fn off_centre_of(sq: Square, width: u8, height: u8) -> i32 {
    let fd = (2 * sq.file() as i32 - (width as i32 - 1)).abs();
    let rd = (2 * sq.rank() as i32 - (height as i32 - 1)).abs();
    fd.max(rd)
}

/// Piece values by powers, remembered: a game asks for the same few sets
/// of powers over and over. And chess's pawn structures ([`pawns`]).
pub(super) struct Values {
    variant: usize,
    slots: Vec<(u32, i32)>,
    pawns: PawnTable,
}

impl Values {
    const SLOTS: usize = 512;

    pub(super) fn new() -> Values {
        Values { variant: 0, slots: vec![(u32::MAX, 0); Self::SLOTS], pawns: PawnTable::new() }
    }

    /// [`value`] of `powers` in `pos`'s variant.
    #[inline]
    pub(super) fn of(&mut self, pos: &Position, powers: Powers) -> i32 {
        let variant = pos.variant() as *const _ as usize;
        if variant != self.variant {
            self.slots.iter_mut().for_each(|s| *s = (u32::MAX, 0));
            self.variant = variant;
        }
        let key = powers.bits();
        let i = (key.wrapping_mul(0x9E37_79B1) >> 23) as usize % Self::SLOTS;
        if self.slots[i].0 == key {
            return self.slots[i].1;
        }
        let worth = value(pos, powers);
        self.slots[i] = (key, worth);
        worth
    }
}

/// Bonus for a passed pawn (no enemy pawn ahead of it on its file or the
/// files beside it) by the share of the way it has gone, in eighths.
const PASSED: [i32; 9] = [0, 5, 10, 18, 30, 50, 80, 120, 120];

/// The evaluation, for the side to move: material (hands at full value,
/// since a drop goes anywhere), centralisation and mobility of pieces, pawn
/// advance (Alapawn's race above all) and passed pawns, and the safety of a
/// royal piece.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, &mut Values::new())
}

/// [`evaluate`] with remembered piece values.
#[inline]
pub(super) fn evaluate_with(pos: &Position, values: &mut Values) -> i32 {
    let v = pos.variant();
    if std::ptr::eq(v, &crate::variant::CHESS) {
        chess::evaluate(pos, &mut values.pawns)
    } else if std::ptr::eq(v, &crate::variant::OLYMPIC) {
        olympic::evaluate(pos)
    } else if std::ptr::eq(v, &crate::variant::ALAPAWN) {
        alapawn::evaluate(pos)
    } else {
        evaluate_any(pos, values)
    }
}

/// What [`evaluate_within`] found: the evaluation, or a bound on it that
/// settles the search's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lazy {
    Exact(i32),
    /// At least this, which is at or above beta.
    AtLeast(i32),
}

impl Lazy {
    /// The evaluation or the bound.
    #[inline]
    pub(super) fn value(self) -> i32 {
        match self {
            Lazy::Exact(score) | Lazy::AtLeast(score) => score,
        }
    }
}

/// [`evaluate_with`], where all that matters is whether the position holds
/// `beta` (if given): where a cheap part of the sum puts it far above (chess
/// only), a lower bound instead ([`chess::LAZY`]).
#[inline]
pub(super) fn evaluate_within(pos: &Position, values: &mut Values, beta: Option<i32>) -> Lazy {
    if std::ptr::eq(pos.variant(), &crate::variant::CHESS) {
        chess::evaluate_within(pos, &mut values.pawns, beta)
    } else {
        Lazy::Exact(evaluate_with(pos, values))
    }
}

/// The evaluation of a position of any game, piece by piece; chess's,
/// Olympic's and Alapawn's are worked out faster by kinds of pieces
/// ([`chess::evaluate`], [`olympic::evaluate`], [`alapawn::evaluate`]), to
/// the same sums.
fn evaluate_any(pos: &Position, values: &mut Values) -> i32 {
    let v = pos.variant();
    let race = v.goal == Goal::PawnRace;
    let chess_like = !race && !v.drops;
    let occ = pos.occupied();
    let mut score = [0i32; 2];
    let royal = [pos.royal_square(Color::White), pos.royal_square(Color::Black)];
    let pure = pos.pure_pawns();
    let pawns = [pure & pos.pieces_of(Color::White), pure & pos.pieces_of(Color::Black)];
    // The squares around each royal piece, and how hard each side presses on
    // the other's.
    let zone = royal.map(|k| k.map_or(Bitboard::EMPTY, |k| pos.attacks(k, Powers::KING, Color::White, occ) | k.bb()));
    let mut pressure = [0i32; 2];
    // For the chess-like terms: pieces besides pawns and royals, bishops, rooks.
    let mut census = Census::default();
    let spans = spans();
    let tuned = super::tuned::of(v);
    // The fitted terms, by side, middlegame and ending, and the phase.
    let mut fitted = [[0i32; 2]; 2];
    let mut material = 0;
    let threats = super::threats::apply_to(v);
    let mut reach = super::threats::Reach::default();
    for sq in occ {
        let Some(p) = pos.piece_at(sq) else { continue };
        let side = p.color.index();
        let moves = pos.moves_of(p);
        let advance = if p.color == Color::White { sq.rank() } else { v.height - 1 - sq.rank() } as i32;
        let joined = moves.joined();
        let kind = tuned.and_then(|t| {
            let kind = t.kind(p.royal, joined)?;
            let at = t.oriented(sq, side, v.width, v.height);
            fitted[side][0] += i32::from(t.pst[kind][0][at]);
            fitted[side][1] += i32::from(t.pst[kind][1][at]);
            material += t.phase_weight(kind);
            Some(kind)
        });
        if p.royal {
            if threats {
                reach.add(side, super::threats::KING, sq, zone[side] & !sq.bb());
            }
            // PA3: a King that absorbed powers is stronger, though PA6 keeps
            // its slides short.
            let extra = moves.without(Powers::KING);
            if !extra.is_empty() {
                score[side] += values.of(pos, extra) * 3 / 5;
            }
            continue;
        }
        if chess_like && !pure.has(sq) {
            census.count(sq, side, joined);
        }
        score[side] += values.of(pos, moves);
        if joined == Powers::PAWN {
            if chess_like || threats {
                let attacks = if moves == Powers::PAWN {
                    pos.pawn_attacks(sq, p.color)
                } else {
                    pos.attacks(sq, moves, p.color, occ)
                };
                if chess_like {
                    census.pawn_guard(side, attacks);
                }
                if threats {
                    reach.add(side, super::threats::PAWN, sq, attacks);
                }
            }
            score[side] += if race { advance * advance * 14 } else { advance * 6 };
            if (spans[side][sq.index()] & pawns[1 - side]).is_empty() {
                let eighths = (advance * 8 / (v.height as i32 - 1).max(1)) as usize;
                score[side] += PASSED[eighths.min(8)] * if race { 3 } else { 1 };
            }
            continue;
        }
        if moves.is_empty() {
            continue;
        }
        if moves.intersects(Powers::PAWN_ANY) {
            // A compound still heading for promotion (PA5, C5, CS5).
            score[side] += advance * 4;
        }
        // Pieces like the centre, and room to move.
        score[side] += (v.width as i32 - off_centre(pos, sq)) * 4;
        let attacks = pos.attacks(sq, moves, p.color, occ);
        let free = attacks & !pos.pieces_of(p.color);
        score[side] += free.count() as i32 * 3;
        if let (true, Some(kind)) = (threats, kind) {
            reach.add(side, kind, sq, attacks);
        }
        if let (Some(t), Some(kind @ 1..=4)) = (tuned, kind) {
            let count = (free.count() as usize).min(27);
            fitted[side][0] += i32::from(t.mobility[kind - 1][0][count]);
            fitted[side][1] += i32::from(t.mobility[kind - 1][1][count]);
        }
        let pressed = (attacks & zone[1 - side]).count() as i32;
        pressure[side] += pressed;
        if chess_like && pressed > 0 {
            // Heavier pieces weigh more in an attack on the royal piece.
            let weight = (values.of(pos, moves) / 250).clamp(1, 4);
            census.attack(side, weight * pressed);
        }
        // Pieces near the enemy royal piece press on it.
        if let Some(k) = royal[1 - side] {
            let d = sq.file().abs_diff(k.file()).max(sq.rank().abs_diff(k.rank()));
            if d <= 2 {
                score[side] += 12;
            }
        }
    }
    hand_terms(pos, values, &mut score, &mut pressure);
    // What pressure on the enemy royal piece is worth, where pieces drop.
    let mut pressing = [0i32; 2];
    if v.drops {
        for side in 0..2 {
            if royal[1 - side].is_some() {
                let units = pressure[side];
                pressing[side] = (units * units * 4).min(900);
                score[side] += pressing[side];
            }
        }
    }
    if chess_like {
        board_game_terms(pos, &pawns, royal, &census, &mut score);
        for side in 0..2 {
            score[side] += pawn_structure(pawns[side]);
        }
    }
    if let Some(t) = tuned {
        // Pieces in hand by side and kind.
        let mut in_hand = [[0i32; 5]; 2];
        for c in Color::ALL {
            for (i, pt) in v.pieces.iter().enumerate() {
                let held = i32::from(pos.hand(c, i as u8));
                if let Some(kind @ 0..5) = (held > 0).then(|| t.kind(false, pt.powers)).flatten() {
                    fitted[c.index()][0] += held * i32::from(t.hand[kind]);
                    fitted[c.index()][1] += held * i32::from(t.hand[kind]);
                    in_hand[c.index()][kind] += held;
                }
            }
        }
        if threats {
            let terms = if v.drops {
                super::drop_threats::terms(pos, &reach, &zone, &in_hand, pressing).map(|t| [t, t])
            } else {
                super::threats::terms(pos, &reach, &zone)
            };
            for side in 0..2 {
                fitted[side][0] += terms[side][0];
                fitted[side][1] += terms[side][1];
            }
        }
        let phase = if t.phased { material.min(24) } else { 24 };
        for side in 0..2 {
            score[side] += (fitted[side][0] * phase + fitted[side][1] * (24 - phase)) / 24;
        }
    }
    let us = pos.turn().index();
    score[us] - score[1 - us]
}

/// Pieces in hand: their worth, and in drop games their pressure on the
/// enemy royal piece.
fn hand_terms(pos: &Position, values: &mut Values, score: &mut [i32; 2], pressure: &mut [i32; 2]) {
    if pos.hands == [[0; crate::zobrist::HAND_SLOTS]; 2] {
        return;
    }
    let v = pos.variant();
    for c in Color::ALL {
        for (i, pt) in v.pieces.iter().enumerate() {
            let held = pos.hand(c, i as u8) as i32;
            if held == 0 {
                continue;
            }
            // A reserve power still needs a turn and a body (C2): it counts a
            // little less than one on the board.
            let worth = values.of(pos, pt.powers);
            score[c.index()] += held * if v.grants { worth * 4 / 5 } else { worth };
            if v.drops {
                // A piece in hand can land next to the royal piece.
                pressure[c.index()] += 2 * held;
            }
        }
    }
}

/// What [`board_game_terms`] needs to know of the pieces besides pawns and
/// royal pieces, gathered in the evaluation's one pass over the board.
#[derive(Default)]
struct Census {
    pieces: [i32; 2],
    bishops: [i32; 2],
    rooks: [Bitboard; 2],
    /// Pieces attacking squares around the enemy royal piece, and the weight
    /// of their attack.
    attackers: [i32; 2],
    attack: [i32; 2],
    /// Where the pieces besides pawns and royal pieces stand.
    squares: [Bitboard; 2],
    /// The squares each side's pawns attack.
    pawn_attacks: [Bitboard; 2],
}

impl Census {
    #[inline]
    fn pawn_guard(&mut self, side: usize, attacks: Bitboard) {
        self.pawn_attacks[side] |= attacks;
    }

    #[inline]
    fn attack(&mut self, side: usize, weight: i32) {
        self.attackers[side] += 1;
        self.attack[side] += weight;
    }

    /// [`Census::count`] for all of `placed`, which are bishops or
    /// pieces with the Rook's power (rooks and queens) as told.
    #[inline]
    fn count_all(&mut self, side: usize, placed: Bitboard, bishops: bool, rooks: bool) {
        self.pieces[side] += placed.count() as i32;
        self.squares[side] |= placed;
        if bishops {
            self.bishops[side] += placed.count() as i32;
        }
        if rooks {
            self.rooks[side] |= placed;
        }
    }

    #[inline]
    fn count(&mut self, sq: Square, side: usize, moves: Powers) {
        self.count_all(side, sq.bb(), moves == Powers::BISHOP, moves.contains(Powers::ROOK));
    }
}

/// Terms for the chess-like games without drops: the royal piece's shelter
/// while pieces remain and its centralisation as they go, the bishop pair,
/// and rooks on open files (doubled and isolated pawns are
/// [`pawn_structure`]'s).
fn board_game_terms(
    pos: &Position,
    pawns: &[Bitboard; 2],
    royal: [Option<Square>; 2],
    census: &Census,
    score: &mut [i32; 2],
) {
    let v = pos.variant();
    let Census { pieces, bishops, rooks, attackers, attack, squares, pawn_attacks } = census;
    let spans = spans();
    // 14 pieces besides pawns and kings at the start: 0 (an ending) to 1.
    let phase = (pieces[0] + pieces[1]).min(12) * 100 / 12;
    for side in 0..2 {
        let color = if side == 0 { Color::White } else { Color::Black };
        // Threats: pieces a pawn attacks. (A term for pieces attacked and
        // unguarded, with one for the side to move, hid Morphy's mate in two
        // in rules/tests/search.rs at every depth.)
        let enemy = squares[1 - side];
        score[side] += 50 * (enemy & pawn_attacks[side]).count() as i32;
        if attackers[side] >= 2 {
            // An attack by several pieces on the royal piece's surroundings
            // grows faster than the pieces in it.
            let units = attack[side].min(40);
            score[side] += (units * units * 2).min(700) * (phase + 25) / 125;
        }
        if let Some(k) = royal[side] {
            let near = spans[side][k.index()] & zone_ranks(k, color);
            let shelter = (near & pawns[side]).count() as i32 * 12;
            let home = pos.home_rank(color).has(k) && (k.file() <= 2 || k.file() >= v.width - 3);
            let middle = shelter + if home { 25 } else { 0 };
            let ending = (v.width as i32 - off_centre(pos, k)) * 8;
            score[side] += (middle * phase + ending * (100 - phase)) / 100;
        }
        if bishops[side] >= 2 {
            score[side] += 30;
        }
        // By files, as the bits of a rank: a file with a rook and no own
        // pawn is half open or open.
        let own = files_of(pawns[side]);
        let open = files_of(rooks[side]) & !own;
        let theirs = files_of(pawns[1 - side]);
        score[side] += 20 * (open & !theirs).count_ones() as i32 + 10 * (open & theirs).count_ones() as i32;
    }
}

/// What [`board_game_terms`] leaves to the pawns alone: doubled pawns (a
/// pawn beyond the first on its file) and isolated ones (none of its own
/// on the files beside), for `pawns` (one side's).
pub(super) fn pawn_structure(pawns: Bitboard) -> i32 {
    let own = files_of(pawns);
    let isolated = own & !((own << 1) | (own >> 1));
    -12 * (pawns.count() as i32 - own.count_ones() as i32) - 10 * (pawns & spread(isolated)).count() as i32
}

/// The files `b` occupies, as the low bits of a number (file a the lowest).
#[inline]
fn files_of(b: Bitboard) -> u64 {
    let mut x = b.0;
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    x & 0xFF
}

/// The files of `files` ([`files_of`]'s form) as squares.
#[inline]
fn spread(files: u64) -> Bitboard {
    Bitboard(files * 0x0101_0101_0101_0101)
}

/// The two ranks in front of `k` for `color`.
fn zone_ranks(k: Square, color: Color) -> Bitboard {
    let r = k.rank() as i32;
    let (a, b) = if color == Color::White { (r + 1, r + 2) } else { (r - 1, r - 2) };
    [a, b].into_iter().filter(|r| (0..8).contains(r)).fold(Bitboard::EMPTY, |acc, r| acc | Bitboard::rank(r as u8))
}

/// The squares ahead of `sq` (for `color`) on its file and the files
/// beside it: where an enemy pawn would stop or take a pawn on `sq`.
fn front_span(sq: Square, color: Color) -> Bitboard {
    let mut beside = Bitboard::file(sq.file());
    if sq.file() > 0 {
        beside |= Bitboard::file(sq.file() - 1);
    }
    if sq.file() < 7 {
        beside |= Bitboard::file(sq.file() + 1);
    }
    let ahead = match color {
        Color::White => (sq.rank() + 1..8).fold(Bitboard::EMPTY, |b, r| b | Bitboard::rank(r)),
        Color::Black => (0..sq.rank()).fold(Bitboard::EMPTY, |b, r| b | Bitboard::rank(r)),
    };
    beside & ahead
}

/// [`front_span`] of every square, by colour index.
pub(super) fn spans() -> &'static [[Bitboard; 64]; 2] {
    static SPANS: LazyLock<[[Bitboard; 64]; 2]> = LazyLock::new(|| {
        [Color::White, Color::Black].map(|c| std::array::from_fn(|i| front_span(Square::new(i as u8), c)))
    });
    &SPANS
}
