//! Attack tables: leapers by lookup, sliders by magic multiplication.
//!
//! All tables are for the 8x8 grid. Smaller boards mask the result with their
//! own squares and treat the squares beyond their edge as occupied, so a
//! slider stops at the edge exactly as it would on a board of that size.

use std::sync::LazyLock;

use crate::types::{Bitboard, Color, Square};

include!(concat!(env!("OUT_DIR"), "/magics.rs"));

const KING_STEPS: [(i8, i8); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_JUMPS: [(i8, i8); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
/// Silver, for White: one step diagonally or straight forward (O2).
const SILVER_STEPS: [(i8, i8); 5] = [(1, 1), (-1, 1), (1, -1), (-1, -1), (0, 1)];
/// Gold, for White: one step orthogonally or diagonally forward (O2).
const GOLD_STEPS: [(i8, i8); 6] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1)];
const PAWN_CAPTURES: [(i8, i8); 2] = [(1, 1), (-1, 1)];
const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

pub(crate) struct Tables {
    king: [Bitboard; 64],
    knight: [Bitboard; 64],
    /// Indexed by colour: the squares a pawn of that colour captures on.
    pawn: [[Bitboard; 64]; 2],
    silver: [[Bitboard; 64]; 2],
    gold: [[Bitboard; 64]; 2],
    rook: Vec<Magic>,
    bishop: Vec<Magic>,
    slides: Vec<Bitboard>,
    /// Squares strictly between two squares on a line, else empty.
    between: Vec<Bitboard>,
    /// The whole line through two squares (edge to edge), else empty.
    line: Vec<Bitboard>,
}

fn leaper(sq: Square, steps: &[(i8, i8)], color: Color) -> Bitboard {
    let sign = if color == Color::White { 1 } else { -1 };
    steps.iter().filter_map(|&(df, dr)| sq.offset(df, dr * sign)).fold(Bitboard::EMPTY, |acc, s| acc | s.bb())
}

fn slide(sq: Square, occ: u64, dirs: &[(i8, i8); 4]) -> Bitboard {
    let mut att = Bitboard::EMPTY;
    for &(df, dr) in dirs {
        let mut cur = sq;
        while let Some(next) = cur.offset(df, dr) {
            att |= next.bb();
            if occ & next.bb().0 != 0 {
                break;
            }
            cur = next;
        }
    }
    att
}

fn relevant(sq: Square, dirs: &[(i8, i8); 4]) -> u64 {
    let mut mask = 0;
    for &(df, dr) in dirs {
        let mut cur = sq;
        while let Some(next) = cur.offset(df, dr) {
            if next.offset(df, dr).is_none() {
                break;
            }
            mask |= next.bb().0;
            cur = next;
        }
    }
    mask
}

fn build_magics(dirs: &[(i8, i8); 4], magics: &[u64; 64], slides: &mut Vec<Bitboard>) -> Vec<Magic> {
    (0..64u8)
        .map(|i| {
            let sq = Square::new(i);
            let mask = relevant(sq, dirs);
            let bits = mask.count_ones();
            let offset = slides.len();
            slides.resize(offset + (1 << bits), Bitboard::EMPTY);
            let mut sub = 0u64;
            loop {
                let idx = (sub.wrapping_mul(magics[i as usize]) >> (64 - bits)) as usize;
                slides[offset + idx] = slide(sq, sub, dirs);
                sub = sub.wrapping_sub(mask) & mask;
                if sub == 0 {
                    break;
                }
            }
            Magic { mask, magic: magics[i as usize], shift: 64 - bits, offset }
        })
        .collect()
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let per_square = |steps: &[(i8, i8)], c: Color| std::array::from_fn(|i| leaper(Square::new(i as u8), steps, c));
    let per_color = |steps: &[(i8, i8)]| [per_square(steps, Color::White), per_square(steps, Color::Black)];
    let mut slides = Vec::new();
    let rook = build_magics(&ROOK_DIRS, &ROOK_MAGICS, &mut slides);
    let bishop = build_magics(&BISHOP_DIRS, &BISHOP_MAGICS, &mut slides);
    let mut between = vec![Bitboard::EMPTY; 64 * 64];
    let mut line = vec![Bitboard::EMPTY; 64 * 64];
    for a in 0..64u8 {
        let sa = Square::new(a);
        for dirs in [&ROOK_DIRS, &BISHOP_DIRS] {
            let from_a = slide(sa, 0, dirs);
            for b in from_a {
                let i = a as usize * 64 + b.index();
                // Rays from both ends intersect exactly on the squares between.
                between[i] = slide(sa, b.bb().0, dirs) & slide(b, sa.bb().0, dirs);
                line[i] = (from_a & slide(b, 0, dirs)) | sa.bb() | b.bb();
            }
        }
    }
    Tables {
        king: per_square(&KING_STEPS, Color::White),
        knight: per_square(&KNIGHT_JUMPS, Color::White),
        pawn: per_color(&PAWN_CAPTURES),
        silver: per_color(&SILVER_STEPS),
        gold: per_color(&GOLD_STEPS),
        rook,
        bishop,
        slides,
        between,
        line,
    }
});

#[inline]
pub(crate) fn tables() -> &'static Tables {
    &TABLES
}

impl Tables {
    #[inline]
    pub(crate) fn king(&self, sq: Square) -> Bitboard {
        self.king[sq.index()]
    }
    #[inline]
    pub(crate) fn knight(&self, sq: Square) -> Bitboard {
        self.knight[sq.index()]
    }
    /// The squares a pawn of `color` on `sq` captures on.
    #[inline]
    pub(crate) fn pawn(&self, color: Color, sq: Square) -> Bitboard {
        self.pawn[color.index()][sq.index()]
    }
    #[inline]
    pub(crate) fn silver(&self, color: Color, sq: Square) -> Bitboard {
        self.silver[color.index()][sq.index()]
    }
    #[inline]
    pub(crate) fn gold(&self, color: Color, sq: Square) -> Bitboard {
        self.gold[color.index()][sq.index()]
    }
    #[inline]
    fn magic(&self, m: &Magic, occ: Bitboard) -> Bitboard {
        let idx = ((occ.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize;
        // SAFETY-free: the index is below 1 << bits by construction.
        self.slides[m.offset + idx]
    }
    /// Rook attacks from `sq` with blockers `occ`.
    #[inline]
    pub(crate) fn rook(&self, sq: Square, occ: Bitboard) -> Bitboard {
        self.magic(&self.rook[sq.index()], occ)
    }
    /// Bishop attacks from `sq` with blockers `occ`.
    #[inline]
    pub(crate) fn bishop(&self, sq: Square, occ: Bitboard) -> Bitboard {
        self.magic(&self.bishop[sq.index()], occ)
    }
    /// Squares strictly between `a` and `b` if they share a line.
    #[inline]
    pub(crate) fn between(&self, a: Square, b: Square) -> Bitboard {
        self.between[a.index() * 64 + b.index()]
    }
    /// The full line through `a` and `b` if they share one, else empty.
    #[inline]
    pub(crate) fn line(&self, a: Square, b: Square) -> Bitboard {
        self.line[a.index() * 64 + b.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magics_agree_with_slow_sliding() {
        let t = tables();
        let mut x = 0x1234_5678_9abc_def1u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = Bitboard(x & x.rotate_left(17));
            for i in 0..64 {
                let sq = Square::new(i);
                assert_eq!(t.rook(sq, occ), slide(sq, occ.0, &ROOK_DIRS));
                assert_eq!(t.bishop(sq, occ), slide(sq, occ.0, &BISHOP_DIRS));
            }
        }
    }

    #[test]
    fn between_and_line() {
        let t = tables();
        let a1 = Square::parse("a1").unwrap();
        let d4 = Square::parse("d4").unwrap();
        let h8 = Square::parse("h8").unwrap();
        let b1 = Square::parse("b1").unwrap();
        assert_eq!(t.between(a1, d4).count(), 2);
        assert!(t.line(b1, d4).is_empty());
        assert_eq!(t.line(a1, d4).count(), 8);
        assert!(t.line(d4, a1).has(h8));
    }
}
