//! Fitted chess terms beyond squares and mobility: threats, the danger to
//! each King (safe checks, weak squares around it, pawn storms, open files),
//! passed pawns by how free their way is, pawn structure, outposts and
//! space. Each is a count per side, weighed for the middlegame and the
//! ending by tools/tune/terms.py against Fairy-Stockfish's classical
//! evaluation, and blended by the same phase as the fitted tables.

use crate::attacks::tables;
use crate::position::Position;
use crate::types::{Bitboard, Color, Square};
use crate::variant::Variant;

/// Kinds as in [`super::tuned::Tuned::kinds`] for chess.
pub(super) const PAWN: usize = 0;
const KNIGHT: usize = 1;
const BISHOP: usize = 2;
const ROOK: usize = 3;
const QUEEN: usize = 4;
pub(super) const KING: usize = 5;

/// The terms, in the order of [`WEIGHTS`] and of tools/tune/terms.py.
mod term {
    pub const TEMPO: usize = 0;
    /// Passed pawns by rank (1-6 from their side), then those whose next
    /// square is empty, then those whose next square is also unattacked.
    pub const PASSED: usize = 1;
    pub const FREE: usize = 7;
    pub const SAFE: usize = 13;
    /// Pawns guarded by a pawn or beside one, by rank.
    pub const CONNECTED: usize = 19;
    pub const BACKWARD: usize = 25;
    /// Enemy pawns attacked and unguarded.
    pub const WEAK_PAWN: usize = 26;
    /// Enemy knights, bishops, rooks, queens attacked by a knight or bishop.
    pub const MINOR_ON: usize = 27;
    pub const ROOK_ON_QUEEN: usize = 31;
    /// Enemy pieces (not pawns) attacked and unguarded, and those the King
    /// attacks among them.
    pub const HANGING: usize = 32;
    pub const KING_ON: usize = 33;
    /// Squares around the enemy King attacked, and those weakly guarded.
    pub const ZONE: usize = 34;
    pub const ZONE_WEAK: usize = 35;
    /// A safe check is there for a knight, bishop, rook, queen.
    pub const SAFE_CHECK: usize = 36;
    /// Own pawns near the enemy King's files, by ranks away from it (0-3).
    pub const STORM: usize = 40;
    /// Files at or beside the own King with no own pawn in front of it.
    pub const OPEN_FILE: usize = 44;
    pub const ROOK_SEVENTH: usize = 45;
    /// Knights and bishops on an outpost.
    pub const OUTPOST: usize = 46;
    /// Own pawns on the colour of each own bishop.
    pub const BISHOP_PAWNS: usize = 48;
    /// Safe central squares behind the pawns, times the own pieces.
    pub const SPACE: usize = 49;
    pub const COUNT: usize = 50;
}

/// Middlegame and ending weights of the terms, in centipawns (space in
/// sixteenths).
static WEIGHTS: [[i16; 2]; term::COUNT] = include!("threats_weights.rs");

/// Whether counted terms apply to `v`: these in chess, those of
/// [`super::drop_threats`] in Olympic (each fitted there).
#[inline]
pub(super) fn apply_to(v: &Variant) -> bool {
    std::ptr::eq(v, &crate::variant::CHESS) || std::ptr::eq(v, &crate::variant::OLYMPIC)
}

/// The weighed sum of the terms counted so far, middlegame and ending.
#[derive(Default)]
struct Sum([i32; 2]);

impl Sum {
    /// `n` more of `term`.
    #[inline]
    fn add(&mut self, term: usize, n: i32) {
        self.0[0] += n * i32::from(WEIGHTS[term][0]);
        self.0[1] += n * i32::from(WEIGHTS[term][1]);
    }
}

/// What the evaluation's pass over the board gathers for the terms.
#[derive(Default)]
pub(super) struct Reach {
    /// The squares each side attacks, those it attacks twice or more, and
    /// those each kind attacks.
    pub(super) all: [Bitboard; 2],
    pub(super) twice: [Bitboard; 2],
    pub(super) by_kind: [[Bitboard; 6]; 2],
    /// Where each kind stands.
    pub(super) placed: [[Bitboard; 6]; 2],
}

impl Reach {
    /// A piece of `kind` on `sq` of side `side` attacks `attacks`.
    #[inline]
    pub(super) fn add(&mut self, side: usize, kind: usize, sq: Square, attacks: Bitboard) {
        self.add_all(side, kind, sq.bb(), attacks);
    }

    /// Pieces of `kind` on `placed` attack `attacks` between them, none
    /// of those squares twice.
    #[inline]
    pub(super) fn add_all(&mut self, side: usize, kind: usize, placed: Bitboard, attacks: Bitboard) {
        self.twice[side] |= self.all[side] & attacks;
        self.all[side] |= attacks;
        self.by_kind[side][kind] |= attacks;
        self.placed[side][kind] |= placed;
    }
}

/// Rank of `sq` from `color`'s side.
#[inline]
fn relative_rank(sq: Square, color: Color) -> usize {
    usize::from(if color == Color::White { sq.rank() } else { 7 - sq.rank() })
}

/// The ranks at or behind rank `rank` (absolute) for `color`.
#[inline]
fn at_or_behind(rank: u8, color: Color) -> Bitboard {
    let below = |r: u8| if r >= 8 { Bitboard::FULL } else { Bitboard((1u64 << (8 * r)) - 1) };
    match color {
        Color::White => below(rank + 1),
        Color::Black => !below(rank),
    }
}

/// Ranks 2-7 (1-6 counted from 0), from either side.
const MIDDLE_RANKS: Bitboard = Bitboard(0x00FF_FFFF_FFFF_FF00);

/// The squares beside those of `b` on their ranks.
#[inline]
fn sideways(b: Bitboard) -> Bitboard {
    (b & !Bitboard::file(7)).shift(1) | (b & !Bitboard::file(0)).shift(-1)
}

/// `b` and every square ahead of its squares for `color`.
#[inline]
fn fill(b: Bitboard, color: Color) -> Bitboard {
    let mut x = b.0;
    match color {
        Color::White => {
            x |= x << 8;
            x |= x << 16;
            x |= x << 32;
        }
        Color::Black => {
            x |= x >> 8;
            x |= x >> 16;
            x |= x >> 32;
        }
    }
    Bitboard(x)
}

/// The files beside `f`.
#[inline]
fn beside(f: u8) -> Bitboard {
    const FILE_A: u64 = 0x0101_0101_0101_0101;
    const BESIDE: [Bitboard; 8] = {
        let mut table = [Bitboard(0); 8];
        let mut f = 0;
        while f < 8 {
            let left = if f > 0 { FILE_A << (f - 1) } else { 0 };
            let right = if f < 7 { FILE_A << (f + 1) } else { 0 };
            table[f] = Bitboard(left | right);
            f += 1;
        }
        table
    };
    BESIDE[usize::from(f & 7)]
}

const LIGHT: Bitboard = Bitboard(0x55AA_55AA_55AA_55AA);
/// Ranks 2-4 from White's side, and from Black's.
const WHITE_SPACE: Bitboard = Bitboard(0x0000_0000_FFFF_FF00);
const BLACK_SPACE: Bitboard = Bitboard(0x00FF_FFFF_0000_0000);
/// Files c-f.
const CENTRE_FILES: Bitboard = Bitboard(0x3C3C_3C3C_3C3C_3C3C);

/// The terms' middlegame and ending sums for each side. `reach` must hold
/// every piece, the Kings included.
pub(super) fn terms(pos: &Position, reach: &Reach, zone: &[Bitboard; 2]) -> [[i32; 2]; 2] {
    let pawns = [reach.placed[0][PAWN], reach.placed[1][PAWN]];
    let guards = [reach.by_kind[0][PAWN], reach.by_kind[1][PAWN]];
    let (mut out, passed) = pawn_terms(&pawns, &guards);
    let rest = piece_terms(pos, reach, zone, &passed);
    for side in 0..2 {
        out[side][0] += rest[side][0];
        out[side][1] += rest[side][1];
    }
    out
}

/// The terms of the pawns alone, by the squares each side's pawns stand on
/// and attack: passed pawns by rank, connected pawns by rank, backward
/// pawns. Their sums for each side, and the passed pawns (of ranks 2-7
/// from their side), which [`piece_terms`] weighs by how free their way is.
pub(super) fn pawn_terms(pawns: &[Bitboard; 2], guards: &[Bitboard; 2]) -> ([[i32; 2]; 2], [Bitboard; 2]) {
    let mut out = [[0i32; 2]; 2];
    let mut passed_by_side = [Bitboard::EMPTY; 2];
    for us in 0..2 {
        let them = 1 - us;
        let color = if us == 0 { Color::White } else { Color::Black };
        let mut f = Sum::default();
        let pawns_here = pawns[us];
        let their_pawns = pawns[them];
        // For the pawns on ranks 1-6 from their side: passed (no enemy pawn
        // ahead on its file or the files beside); connected (guarded by a
        // pawn, or with one beside it); backward (its next square attacked
        // by a pawn, and no own pawn on the files beside that is not ahead
        // of it).
        let back = |b: Bitboard| b.forward(!color);
        let middle = pawns_here & MIDDLE_RANKS;
        let passed = middle & !fill(back(their_pawns | sideways(their_pawns)), !color);
        let connected = middle & (guards[us] | sideways(pawns_here));
        let backward = middle & back(guards[them]) & !fill(sideways(pawns_here), color);
        for sq in passed {
            f.add(term::PASSED + relative_rank(sq, color) - 1, 1);
        }
        for sq in connected {
            f.add(term::CONNECTED + relative_rank(sq, color) - 1, 1);
        }
        f.add(term::BACKWARD, backward.count() as i32);
        out[us] = f.0;
        passed_by_side[us] = passed;
    }
    (out, passed_by_side)
}

/// The terms besides [`pawn_terms`], `passed` being the passed pawns it
/// found.
pub(super) fn piece_terms(
    pos: &Position,
    reach: &Reach,
    zone: &[Bitboard; 2],
    passed: &[Bitboard; 2],
) -> [[i32; 2]; 2] {
    debug_assert!(pos.mask == Bitboard::FULL, "the terms are chess's");
    let mut out = [[0i32; 2]; 2];
    let occ = pos.occupied();
    let spans = super::eval::spans();
    for us in 0..2 {
        let them = 1 - us;
        let color = if us == 0 { Color::White } else { Color::Black };
        let mut f = Sum::default();
        let placed = &reach.placed[us];
        let theirs = &reach.placed[them];
        let pawns = placed[PAWN];
        let their_pawns = theirs[PAWN];
        if pos.turn() == color {
            f.add(term::TEMPO, 1);
        }
        // Passed pawns whose next square is empty, and those whose next
        // square is also unattacked.
        let back = |b: Bitboard| b.forward(!color);
        let free = passed[us] & back(!occ);
        let safe = free & back(!reach.all[them]);
        for sq in free {
            f.add(term::FREE + relative_rank(sq, color) - 1, 1);
        }
        for sq in safe {
            f.add(term::SAFE + relative_rank(sq, color) - 1, 1);
        }
        // Threats.
        let hit = reach.all[us];
        let unguarded = !reach.all[them];
        let minors = reach.by_kind[us][KNIGHT] | reach.by_kind[us][BISHOP];
        let mut pieces = Bitboard::EMPTY;
        for (i, &placed) in theirs[KNIGHT..=QUEEN].iter().enumerate() {
            f.add(term::MINOR_ON + i, (placed & minors).count() as i32);
            pieces |= placed;
        }
        f.add(term::ROOK_ON_QUEEN, (theirs[QUEEN] & reach.by_kind[us][ROOK]).count() as i32);
        f.add(term::HANGING, (pieces & hit & unguarded).count() as i32);
        f.add(term::KING_ON, (pieces & reach.by_kind[us][KING] & unguarded).count() as i32);
        f.add(term::WEAK_PAWN, (their_pawns & hit & unguarded).count() as i32);
        // The enemy King.
        if let Some(k) = theirs[KING].first() {
            let near = zone[them];
            f.add(term::ZONE, (near & hit).count() as i32);
            let weak =
                near & hit & !reach.twice[them] & (unguarded | reach.by_kind[them][KING] | reach.by_kind[them][QUEEN]);
            f.add(term::ZONE_WEAK, weak.count() as i32);
            let safe = (unguarded | (weak & reach.twice[us])) & !pos.pieces_of(color);
            // Chess's board is whole: the tables alone tell where a piece
            // checks from.
            let at = tables();
            let (knight, bishop, rook) = (at.knight(k), at.bishop(k, occ), at.rook(k, occ));
            let checks = [(KNIGHT, knight), (BISHOP, bishop), (ROOK, rook), (QUEEN, bishop | rook)];
            for (i, (kind, from)) in checks.into_iter().enumerate() {
                if (reach.by_kind[us][kind] & from & safe).any() {
                    f.add(term::SAFE_CHECK + i, 1);
                }
            }
            for p in pawns & (Bitboard::file(k.file()) | beside(k.file())) {
                let d = usize::from(p.rank().abs_diff(k.rank()));
                if d <= 3 {
                    f.add(term::STORM + d, 1);
                }
            }
        }
        // The own King.
        if let Some(k) = placed[KING].first() {
            let ahead = !at_or_behind(k.rank(), color);
            for file in k.file().saturating_sub(1)..=(k.file() + 1).min(7) {
                if (pawns & Bitboard::file(file) & ahead).is_empty() {
                    f.add(term::OPEN_FILE, 1);
                }
            }
        }
        let seventh = Bitboard::rank(if us == 0 { 6 } else { 1 });
        f.add(term::ROOK_SEVENTH, (placed[ROOK] & seventh).count() as i32);
        for (i, kind) in [KNIGHT, BISHOP].into_iter().enumerate() {
            for sq in placed[kind] {
                let r = relative_rank(sq, color);
                if (3..=5).contains(&r)
                    && reach.by_kind[us][PAWN].has(sq)
                    && (spans[us][sq.index()] & !Bitboard::file(sq.file()) & their_pawns).is_empty()
                {
                    f.add(term::OUTPOST + i, 1);
                }
            }
        }
        for sq in placed[BISHOP] {
            let colour = if LIGHT.has(sq) { LIGHT } else { !LIGHT };
            f.add(term::BISHOP_PAWNS, (pawns & colour).count() as i32);
        }
        let home = if us == 0 { WHITE_SPACE } else { BLACK_SPACE };
        let space = CENTRE_FILES & home & !reach.by_kind[them][PAWN] & !pawns;
        // Space counts in sixteenths.
        let space = space.count() as i32 * pos.pieces_of(color).count() as i32;
        for phase in 0..2 {
            out[us][phase] = f.0[phase] + space * i32::from(WEIGHTS[term::SPACE][phase]) / 16;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::CHESS;

    /// `fen` with the colours swapped and the board turned over.
    fn mirrored(fen: &str) -> String {
        let f: Vec<&str> = fen.split_whitespace().collect();
        let swap = |t: &str| -> String {
            t.chars()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect()
        };
        let board: Vec<String> = f[0].split('/').rev().map(swap).collect();
        let turn = if f[1] == "w" { "b" } else { "w" };
        let mut castling: Vec<char> = swap(f[2]).chars().collect();
        castling.sort_by_key(|c| (c.is_ascii_lowercase(), "KQkq".find(c.to_ascii_uppercase())));
        let castling: String = castling.into_iter().collect();
        let ep = match f[3].as_bytes() {
            [file, rank] => format!("{}{}", *file as char, (b'1' + b'8' - rank) as char),
            _ => "-".into(),
        };
        format!("{} {turn} {castling} {ep} {} {}", board.join("/"), f[4], f[5])
    }

    #[test]
    fn the_evaluation_sees_both_colours_alike() {
        // Every term counts for White as it counts for Black: a position and
        // its mirror image (colours swapped) are worth the same to the side
        // to move. Positions from seeded random games, where the terms'
        // patterns (threats, checks, passed pawns) arise along the way.
        let mut checked = 0;
        super::super::random_games(&CHESS, 40, 60, 0x2545_F491_4F6C_DD1D, |pos| {
            let fen = pos.fen();
            let other = Position::from_fen(&CHESS, &mirrored(&fen)).unwrap();
            assert_eq!(super::super::evaluate(pos), super::super::evaluate(&other), "{fen}");
            checked += 1;
        });
        assert!(checked > 1000);
    }

    #[test]
    fn ranks_behind() {
        assert_eq!(at_or_behind(0, Color::White), Bitboard::rank(0));
        assert_eq!(at_or_behind(7, Color::Black), Bitboard::rank(7));
        assert_eq!(at_or_behind(7, Color::White), Bitboard::FULL);
    }
}
