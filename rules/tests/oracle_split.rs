//! Construction with split powers (`construction-split`) checked against an
//! independent oracle.
//!
//! The oracle is a second, naive implementation written only from
//! `shared/RULINGS.md` (C1-C7 and CS1-CS5) and `rules/POWERS.md` (letters of
//! the halves, FEN, move tokens, decisions). It shares no code with the
//! crate: an 8x8 array of pieces, each a set of half flags, ray walking,
//! pseudo-legal turns kept when the own King is not attacked afterwards,
//! and its own FEN reader and writer. The engine is used only through its
//! public API. At every ply of many random games both sides' sorted
//! canonical tokens must agree, and after the same move both FENs.

mod common;

use std::collections::BTreeSet;

use kibitz_rules::{Position, Variant, perft};

// ---------------------------------------------------------------------------
// Pieces: sets of halves (CS1). The full Rook is both Rook halves (CS2).

const KING: u16 = 1;
const ROOK_M: u16 = 1 << 1;
const ROOK_C: u16 = 1 << 2;
const BISHOP_M: u16 = 1 << 3;
const BISHOP_C: u16 = 1 << 4;
const KNIGHT_M: u16 = 1 << 5;
const KNIGHT_C: u16 = 1 << 6;
const PAWN_M: u16 = 1 << 7;
const PAWN_C: u16 = 1 << 8;
const CASTLE: u16 = 1 << 9;

const ROOK: u16 = ROOK_M | ROOK_C;
const BISHOP: u16 = BISHOP_M | BISHOP_C;
const KNIGHT: u16 = KNIGHT_M | KNIGHT_C;
const PAWN: u16 = PAWN_M | PAWN_C;
/// CS2: all four Rook and Bishop halves move and capture as a Queen.
const QUEEN: u16 = ROOK | BISHOP;

/// Reserve slots in FEN order (POWERS.md): statics, the eight halves, Castling.
const SLOT_LETTERS: [char; 10] = ['S', 'T', 'U', 'D', 'E', 'H', 'I', 'F', 'G', 'C'];
const SLOT_POWERS: [u16; 10] = [0, ROOK_M, ROOK_C, BISHOP_M, BISHOP_C, KNIGHT_M, KNIGHT_C, PAWN_M, PAWN_C, CASTLE];
const STATIC: usize = 0;
/// CS5: the reward is a static piece or any one half.
const REWARDS: [usize; 9] = [0, 1, 2, 3, 4, 5, 6, 7, 8];

const ORTHOGONAL: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KING_STEPS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_JUMPS: [(i32, i32); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];

/// CS1: C1's counts for each half.
const START_FEN: &str = "4k3/8/8/8/8/8/8/4K3[S15T3U3D3E3H2I2F8G8C2s15t3u3d3e3h2i2f8g8c2] w - - 0 1";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Piece {
    white: bool,
    powers: u16,
}

impl Piece {
    fn has(self, power: u16) -> bool {
        self.powers & power == power
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
struct Board {
    squares: [Option<Piece>; 64],
    reserve: [[u32; 10]; 2],
    white_to_move: bool,
    halfmove: u32,
    fullmove: u32,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum OMove {
    Drop {
        to: usize,
    },
    Grant {
        slot: usize,
        to: usize,
    },
    /// `pawn`: a Pawn half makes it (clock, promotion); `reward`: CS5's choice.
    Go {
        from: usize,
        to: usize,
        pawn: bool,
        reward: Option<usize>,
    },
    Swap {
        holder: usize,
        king: usize,
    },
}

fn side(white: bool) -> usize {
    if white { 0 } else { 1 }
}

fn square(file: i32, rank: i32) -> Option<usize> {
    ((0..8).contains(&file) && (0..8).contains(&rank)).then(|| (rank * 8 + file) as usize)
}

fn name(sq: usize) -> String {
    format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1)
}

fn last_rank(white: bool) -> usize {
    if white { 7 } else { 0 }
}

impl OMove {
    fn token(self) -> String {
        match self {
            OMove::Drop { to } => format!("S@{}", name(to)),
            OMove::Grant { slot, to } => format!("{}>{}", SLOT_LETTERS[slot], name(to)),
            OMove::Go { from, to, reward, .. } => {
                let mut t = format!("{}{}", name(from), name(to));
                if let Some(slot) = reward {
                    t.push(SLOT_LETTERS[slot].to_ascii_lowercase());
                }
                t
            }
            OMove::Swap { holder, king } => format!("{}{}", name(holder), name(king)),
        }
    }
}

// ---------------------------------------------------------------------------
// FEN (POWERS.md): named letters K S C R B N P Q and the halves T U D E H I F
// G; other sets in parentheses in the order K Q R B N P T U D E H I F G C.

fn piece_text(p: Piece) -> String {
    let named = [
        (KING, 'K'),
        (0, 'S'),
        (CASTLE, 'C'),
        (ROOK, 'R'),
        (BISHOP, 'B'),
        (KNIGHT, 'N'),
        (PAWN, 'P'),
        (QUEEN, 'Q'),
        (ROOK_M, 'T'),
        (ROOK_C, 'U'),
        (BISHOP_M, 'D'),
        (BISHOP_C, 'E'),
        (KNIGHT_M, 'H'),
        (KNIGHT_C, 'I'),
        (PAWN_M, 'F'),
        (PAWN_C, 'G'),
    ];
    let text = match named.iter().find(|(powers, _)| *powers == p.powers) {
        Some((_, l)) => l.to_string(),
        None => {
            let mut s = String::from("(");
            let mut left = p.powers;
            for (set, letter) in [
                (KING, 'K'),
                (QUEEN, 'Q'),
                (ROOK, 'R'),
                (BISHOP, 'B'),
                (KNIGHT, 'N'),
                (PAWN, 'P'),
                (ROOK_M, 'T'),
                (ROOK_C, 'U'),
                (BISHOP_M, 'D'),
                (BISHOP_C, 'E'),
                (KNIGHT_M, 'H'),
                (KNIGHT_C, 'I'),
                (PAWN_M, 'F'),
                (PAWN_C, 'G'),
                (CASTLE, 'C'),
            ] {
                if left & set == set {
                    s.push(letter);
                    left &= !set;
                }
            }
            s.push(')');
            s
        }
    };
    if p.white { text } else { text.to_lowercase() }
}

fn letter_powers(letter: char, in_group: bool) -> Option<u16> {
    Some(match letter {
        'K' => KING,
        'Q' => QUEEN,
        'R' => ROOK,
        'B' => BISHOP,
        'N' => KNIGHT,
        'P' => PAWN,
        'C' => CASTLE,
        'S' if !in_group => 0,
        _ => SLOT_POWERS[SLOT_LETTERS.iter().position(|&l| l == letter).filter(|&i| i > 0)?],
    })
}

impl Board {
    fn from_fen(fen: &str) -> Result<Board, String> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let [placement, turn, "-", "-", half, full] = fields[..] else {
            return Err(format!("expected 6 fields, castling and en passant `-`: {fen}"));
        };
        let open = placement.find('[').ok_or("no reserve")?;
        let reserve_text = placement[open + 1..].strip_suffix(']').ok_or("bad reserve")?;
        let mut squares = [None; 64];
        let rows: Vec<&str> = placement[..open].split('/').collect();
        if rows.len() != 8 {
            return Err("expected 8 ranks".into());
        }
        for (i, row) in rows.iter().enumerate() {
            let rank = 7 - i;
            let mut file = 0;
            let mut chars = row.chars();
            while let Some(c) = chars.next() {
                if let Some(d) = c.to_digit(10) {
                    file += d as usize;
                    continue;
                }
                let piece = if c == '(' {
                    let group: String = chars.by_ref().take_while(|&c| c != ')').collect();
                    let white = group.chars().all(|c| c.is_ascii_uppercase());
                    if group.is_empty() || (!white && !group.chars().all(|c| c.is_ascii_lowercase())) {
                        return Err(format!("bad group ({group})"));
                    }
                    let mut powers = 0;
                    for l in group.chars() {
                        powers |= letter_powers(l.to_ascii_uppercase(), true).ok_or(format!("bad letter {l}"))?;
                    }
                    Piece { white, powers }
                } else {
                    let powers = letter_powers(c.to_ascii_uppercase(), false).ok_or(format!("bad letter {c}"))?;
                    Piece { white: c.is_ascii_uppercase(), powers }
                };
                if file >= 8 {
                    return Err("rank too long".into());
                }
                squares[rank * 8 + file] = Some(piece);
                file += 1;
            }
            if file != 8 {
                return Err(format!("rank {} has {file} files", rank + 1));
            }
        }
        let mut reserve = [[0u32; 10]; 2];
        let mut chars = reserve_text.chars().peekable();
        while let Some(c) = chars.next() {
            let slot = SLOT_LETTERS.iter().position(|&l| l == c.to_ascii_uppercase()).ok_or(format!("bad {c}"))?;
            let mut digits = String::new();
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                digits.push(d);
            }
            reserve[side(c.is_ascii_uppercase())][slot] += if digits.is_empty() { 1 } else { digits.parse().unwrap() };
        }
        Ok(Board {
            squares,
            reserve,
            white_to_move: match turn {
                "w" => true,
                "b" => false,
                _ => return Err(format!("bad side {turn}")),
            },
            halfmove: half.parse().map_err(|_| "bad halfmove")?,
            fullmove: full.parse().map_err(|_| "bad fullmove")?,
        })
    }

    fn fen(&self) -> String {
        let mut out = common::placement(|sq| self.squares[sq].map(piece_text));
        out.push('[');
        for white in [true, false] {
            for (slot, letter) in SLOT_LETTERS.iter().enumerate() {
                let count = self.reserve[side(white)][slot];
                if count > 0 {
                    out.push(if white { *letter } else { letter.to_ascii_lowercase() });
                }
                if count > 1 {
                    out += &count.to_string();
                }
            }
        }
        out.push(']');
        let turn = if self.white_to_move { "w" } else { "b" };
        format!("{out} {turn} - - {} {}", self.halfmove, self.fullmove)
    }

    fn at(&self, file: i32, rank: i32) -> Option<Piece> {
        square(file, rank).and_then(|sq| self.squares[sq])
    }

    /// CS4: only capturing halves (and the King) attack.
    fn attacked(&self, target: usize, by_white: bool) -> bool {
        let (f, r) = ((target % 8) as i32, (target / 8) as i32);
        let enemy = |p: Option<Piece>, power: u16| p.is_some_and(|p| p.white == by_white && p.has(power));
        if KNIGHT_JUMPS.iter().any(|&(df, dr)| enemy(self.at(f + df, r + dr), KNIGHT_C))
            || KING_STEPS.iter().any(|&(df, dr)| enemy(self.at(f + df, r + dr), KING))
        {
            return true;
        }
        let behind = if by_white { -1 } else { 1 };
        if [-1, 1].iter().any(|&df| enemy(self.at(f + df, r + behind), PAWN_C)) {
            return true;
        }
        for (dirs, power) in [(ORTHOGONAL, ROOK_C), (DIAGONAL, BISHOP_C)] {
            for (df, dr) in dirs {
                let (mut x, mut y) = (f + df, r + dr);
                while let Some(sq) = square(x, y) {
                    if let Some(p) = self.squares[sq] {
                        if p.white == by_white && p.has(power) {
                            return true;
                        }
                        break;
                    }
                    x += df;
                    y += dr;
                }
            }
        }
        false
    }

    fn king_square(&self, white: bool) -> Option<usize> {
        (0..64).find(|&sq| self.squares[sq].is_some_and(|p| p.white == white && p.has(KING)))
    }

    fn king_attacked(&self, white: bool) -> bool {
        self.king_square(white).is_some_and(|k| self.attacked(k, !white))
    }

    fn in_check(&self) -> bool {
        self.king_attacked(self.white_to_move)
    }

    /// CS1: a moving half reaches empty squares only, a capturing half enemy
    /// pieces only. Each destination once (C4), except onto the last rank.
    fn piece_moves(&self, from: usize, p: Piece, out: &mut Vec<OMove>) {
        let (f, r) = ((from % 8) as i32, (from / 8) as i32);
        let mut by_pawn = [false; 64];
        let mut by_other = [false; 64];
        let empty = |sq: usize| self.squares[sq].is_none();
        let enemy = |sq: usize| self.squares[sq].is_some_and(|q| q.white != p.white);
        let mut mark = |to: usize, moving: bool, capturing: bool| {
            if (moving && empty(to)) || (capturing && enemy(to)) {
                by_other[to] = true;
            }
        };
        if p.has(KING) {
            for (df, dr) in KING_STEPS {
                if let Some(to) = square(f + df, r + dr) {
                    mark(to, true, true);
                }
            }
        }
        let (nm, nc) = (p.has(KNIGHT_M), p.has(KNIGHT_C));
        for (df, dr) in KNIGHT_JUMPS {
            if let Some(to) = square(f + df, r + dr) {
                mark(to, nm, nc);
            }
        }
        for (dirs, m, c) in [(ORTHOGONAL, ROOK_M, ROOK_C), (DIAGONAL, BISHOP_M, BISHOP_C)] {
            let (moving, capturing) = (p.has(m), p.has(c));
            for (df, dr) in dirs {
                let (mut x, mut y) = (f + df, r + dr);
                while let Some(to) = square(x, y) {
                    mark(to, moving, capturing);
                    if !empty(to) {
                        break;
                    }
                    x += df;
                    y += dr;
                }
            }
        }
        let fwd = if p.white { 1 } else { -1 };
        if p.has(PAWN_M)
            && let Some(one) = square(f, r + fwd)
            && empty(one)
        {
            by_pawn[one] = true;
            // CS3 (C4): two steps from the side's first rank, through an empty square.
            let first = if p.white { 0 } else { 7 };
            if r == first
                && let Some(two) = square(f, r + 2 * fwd)
                && empty(two)
            {
                by_pawn[two] = true;
            }
        }
        if p.has(PAWN_C) {
            for df in [-1, 1] {
                if let Some(to) = square(f + df, r + fwd)
                    && enemy(to)
                {
                    by_pawn[to] = true;
                }
            }
        }
        for to in 0..64 {
            let (pawn, other) = (by_pawn[to], by_other[to]);
            if pawn && to / 8 == last_rank(p.white) {
                out.extend(REWARDS.iter().map(|&slot| OMove::Go { from, to, pawn: true, reward: Some(slot) }));
                if other {
                    out.push(OMove::Go { from, to, pawn: false, reward: None });
                }
            } else if pawn || other {
                out.push(OMove::Go { from, to, pawn, reward: None });
            }
        }
    }

    fn pseudo_moves(&self) -> Vec<OMove> {
        let us = self.white_to_move;
        let reserve = self.reserve[side(us)];
        let mut out = Vec::new();
        if reserve[STATIC] > 0 {
            let home = if us { [0, 1] } else { [6, 7] };
            out.extend(
                (0..64)
                    .filter(|&sq| home.contains(&(sq / 8)) && self.squares[sq].is_none())
                    .map(|to| OMove::Drop { to }),
            );
        }
        let own: Vec<(usize, Piece)> =
            (0..64).filter_map(|sq| self.squares[sq].map(|p| (sq, p))).filter(|(_, p)| p.white == us).collect();
        // CS2: one half a grant, refused if held; CS3: no Pawn half onto the
        // last rank; C2: never to the King.
        for slot in 1..10 {
            let power = SLOT_POWERS[slot];
            if reserve[slot] == 0 {
                continue;
            }
            for &(to, p) in &own {
                let pawn_half = power & PAWN != 0;
                if !(p.has(KING) || p.has(power) || (pawn_half && to / 8 == last_rank(us))) {
                    out.push(OMove::Grant { slot, to });
                }
            }
        }
        for &(from, p) in &own {
            self.piece_moves(from, p, &mut out);
        }
        // C6: judged before the swap: King not in check, holder not attacked.
        if let Some(king) = self.king_square(us)
            && !self.attacked(king, !us)
        {
            for &(holder, p) in &own {
                if p.has(CASTLE) && !p.has(KING) && !self.attacked(holder, !us) {
                    out.push(OMove::Swap { holder, king });
                }
            }
        }
        out
    }

    fn play(&self, m: OMove) -> Board {
        let us = self.white_to_move;
        let mut b = self.clone();
        b.halfmove += 1;
        match m {
            OMove::Drop { to } => {
                b.reserve[side(us)][STATIC] -= 1;
                b.squares[to] = Some(Piece { white: us, powers: 0 });
            }
            OMove::Grant { slot, to } => {
                b.reserve[side(us)][slot] -= 1;
                b.squares[to].as_mut().expect("a piece").powers |= SLOT_POWERS[slot];
            }
            OMove::Go { from, to, pawn, reward } => {
                let mut piece = b.squares[from].take().expect("a piece");
                let capture = b.squares[to].is_some();
                if let Some(slot) = reward {
                    // CS5: every Pawn half goes; the reward joins the reserve.
                    piece.powers &= !PAWN;
                    b.reserve[side(us)][slot] += 1;
                }
                b.squares[to] = Some(piece);
                if capture || pawn {
                    b.halfmove = 0;
                }
            }
            OMove::Swap { holder, king } => {
                let mut piece = b.squares[holder].expect("a holder");
                piece.powers &= !CASTLE;
                b.squares[holder] = b.squares[king];
                b.squares[king] = Some(piece);
            }
        }
        if !us {
            b.fullmove += 1;
        }
        b.white_to_move = !us;
        b
    }

    fn legal_moves(&self) -> Vec<OMove> {
        let us = self.white_to_move;
        self.pseudo_moves().into_iter().filter(|&m| !self.play(m).king_attacked(us)).collect()
    }

    fn tokens(&self) -> Vec<String> {
        let mut t: Vec<String> = self.legal_moves().into_iter().map(OMove::token).collect();
        t.sort();
        t
    }

    fn perft(&self, depth: u32) -> u64 {
        let moves = self.legal_moves();
        if depth <= 1 {
            return if depth == 0 { 1 } else { moves.len() as u64 };
        }
        moves.into_iter().map(|m| self.play(m).perft(depth - 1)).sum()
    }
}

// ---------------------------------------------------------------------------
// The engine side and the random games.

fn split() -> &'static Variant {
    Variant::by_id("construction-split").expect("the `construction-split` variant is not registered")
}

fn engine_tokens(pos: &Position) -> Vec<String> {
    let mut t: Vec<String> = pos.legal_moves().iter().map(|m| pos.canonical(m)).collect();
    t.sort();
    t
}

fn compare(context: &str, fen: &str, oracle: &[String], engine: &[String]) {
    if oracle != engine {
        let o: BTreeSet<&String> = oracle.iter().collect();
        let e: BTreeSet<&String> = engine.iter().collect();
        panic!(
            "move lists differ ({context})\n  fen: {fen}\n  only in oracle: {:?}\n  only in engine: {:?}\n  counts: \
             oracle {}, engine {}",
            o.difference(&e).collect::<Vec<_>>(),
            e.difference(&o).collect::<Vec<_>>(),
            oracle.len(),
            engine.len()
        );
    }
}

#[derive(Default, Debug)]
struct Stats {
    games: u32,
    plies: u32,
    grants: u32,
    captures: u32,
    half_captures: u32,
    promotions: u32,
    swaps: u32,
    mates: u32,
}

/// Building first (drops, grants), then captures, promotions, checks and
/// mates in one are preferred, so that the sample reaches CS3-CS5 and C7.
fn choose(rng: &mut fastrand::Rng, board: &Board, moves: &[OMove], building: bool) -> OMove {
    if !building && rng.u32(0..10) < 8 {
        let mate = moves.iter().find(|&&m| {
            let next = board.play(m);
            next.in_check() && next.legal_moves().is_empty()
        });
        if let Some(&m) = mate {
            return m;
        }
    }
    let weights: Vec<u32> = moves
        .iter()
        .map(|&m| match m {
            OMove::Drop { .. } => 1 + 3 * u32::from(building),
            OMove::Grant { .. } => 1 + 7 * u32::from(building),
            OMove::Swap { .. } => 20,
            OMove::Go { reward: Some(_), .. } => 30,
            OMove::Go { to, pawn, .. } => {
                if building {
                    1 + u32::from(pawn)
                } else if board.squares[to].is_some() || board.play(m).in_check() {
                    8
                } else {
                    2 + 2 * u32::from(pawn)
                }
            }
        })
        .collect();
    let mut pick = rng.u32(0..weights.iter().sum::<u32>());
    for (&m, &w) in moves.iter().zip(&weights) {
        if pick < w {
            return m;
        }
        pick -= w;
    }
    unreachable!()
}

fn random_games(fens: &[&str], games: u32, max_plies: u32, max_build: u32, seed: u64) -> Stats {
    let v = split();
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut stats = Stats::default();
    for game in 0..games {
        let start = fens[game as usize % fens.len()];
        let mut board = Board::from_fen(start).unwrap_or_else(|e| panic!("oracle cannot read {start}: {e}"));
        assert_eq!(board.fen(), start, "oracle FEN round trip");
        let mut pos = Position::from_fen(v, start).unwrap_or_else(|e| panic!("engine cannot read {start}: {e}"));
        assert_eq!(pos.fen(), start, "engine FEN round trip");
        let build = rng.u32(0..max_build);
        let mut history = Vec::new();
        for ply in 0..=max_plies {
            let moves = board.legal_moves();
            let mut oracle: Vec<String> = moves.iter().map(|m| m.token()).collect();
            oracle.sort();
            let context = format!("game {game}, ply {ply}, from {start}, moves {}", history.join(" "));
            compare(&context, &board.fen(), &oracle, &engine_tokens(&pos));
            if moves.is_empty() {
                stats.mates += u32::from(board.in_check());
                break;
            }
            if ply == max_plies {
                break;
            }
            let m = choose(&mut rng, &board, &moves, ply < build);
            match m {
                OMove::Grant { .. } => stats.grants += 1,
                OMove::Swap { .. } => stats.swaps += 1,
                OMove::Go { from, to, reward, .. } => {
                    if board.squares[to].is_some() {
                        stats.captures += 1;
                        let mover = board.squares[from].map_or(0, |p| p.powers);
                        // A capture by a piece holding capturing halves only.
                        let moving = ROOK_M | BISHOP_M | KNIGHT_M | PAWN_M | KING;
                        stats.half_captures += u32::from(mover & moving == 0);
                    }
                    stats.promotions += u32::from(reward.is_some());
                }
                OMove::Drop { .. } => {}
            }
            let token = m.token();
            let before = board.fen();
            board = board.play(m);
            let em = pos.legal_moves().into_iter().find(|e| pos.canonical(e) == token);
            pos.play_unchecked(em.unwrap_or_else(|| panic!("engine has no {token} in {before}")));
            assert_eq!(pos.fen(), board.fen(), "FEN after {token} from {before} (engine left, oracle right)");
            history.push(token);
            stats.plies += 1;
        }
        stats.games += 1;
    }
    stats
}

/// Hand-made positions with halves of every kind: lone halves, pieces with
/// one half of two kinds, full powers beside halves, Pawn halves near both
/// last ranks and on the first rank, Castling holders.
const MIDGAMES: [&str; 5] = [
    "r3k1(tc)1/1(hg)2f3/2s1(dg)3/8/3(QI)4/2(BF)5/G(RF)3S2/(UC)3K2C[S8T2EHF5s9tu2ig5c] w - - 12 20",
    "2(fc)1k3/1(NG)6/5(ug)2/4(di)3/8/8/6(tf)1/2P(RG)K3[S12T2D3HF5G2C2s12u2e2hf6g6c] b - - 0 31",
    "(uc)3k2r/gf(eg)2(qi)pp/8/8/8/8/PF(DG)2(QH)GF/(TC)3K2R[Ue] w - - 5 15",
    "4k3/6G1/8/8/8/1f6/3S4/(FC)(HG)P1K(TEC)UF[S8T2UDH2F4s15t3u3d3e3h2i2f8g8c2] w - - 7 9",
    "3k4/8/3(QH)4/8/8/2(TE)5/8/U3K3[S5Is2u] b - - 3 40",
];

// ---------------------------------------------------------------------------
// Tests.

fn oracle_tokens(fen: &str) -> Vec<String> {
    let board = Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(board.fen(), fen, "round trip");
    board.tokens()
}

fn sorted(tokens: &[&str]) -> Vec<String> {
    let mut t: Vec<String> = tokens.iter().map(|s| s.to_string()).collect();
    t.sort();
    t
}

#[test]
fn oracle_self_checks() {
    // CS1: the start is Construction's (20 turns), whatever the halves.
    let start = Board::from_fen(START_FEN).unwrap();
    assert_eq!(start.fen(), START_FEN);
    assert_eq!(start.perft(1), 20);
    assert_eq!(start.perft(2), 400);
    // After a drop, each of the nine kinds of reserve powers (eight halves
    // and Castling) may go to the static piece.
    let after = start.play(OMove::Drop { to: 11 });
    let after = after.play(OMove::Drop { to: 51 });
    let grants = after.tokens().into_iter().filter(|t| t.contains('>')).count();
    assert_eq!(grants, 9);

    // CS1, CS4: a moving Rook half slides onto empty squares but neither
    // captures nor checks along the file.
    let fen = "4k3/8/8/8/8/8/8/K3T3[] w - - 0 1";
    let board = Board::from_fen(fen).unwrap();
    assert!(!board.king_attacked(false));
    let rook: Vec<String> = board.tokens().into_iter().filter(|t| t.starts_with("e1")).collect();
    assert_eq!(
        rook,
        sorted(&["e1b1", "e1c1", "e1d1", "e1e2", "e1e3", "e1e4", "e1e5", "e1e6", "e1e7", "e1f1", "e1g1", "e1h1"])
    );
    // CS1, CS4: a capturing Knight half checks and takes, never steps.
    let board = Board::from_fen("4k3/8/3I4/8/8/8/8/K7[] b - - 0 1").unwrap();
    assert!(board.in_check());
    assert_eq!(
        oracle_tokens("7k/1r6/3I4/8/8/8/8/K7[] w - - 0 1")
            .into_iter()
            .filter(|t| t.starts_with("d6"))
            .collect::<Vec<_>>(),
        vec!["d6b7".to_string()]
    );
    // CS3: Pawn halves; the capture promotes and takes both halves away.
    assert_eq!(
        oracle_tokens("3r3k/4G3/8/8/8/8/8/K7[] w - - 0 1").into_iter().filter(|t| t.starts_with("e7")).count(),
        9
    );
    let board = Board::from_fen("3r3k/4P3/8/8/8/8/8/K7[] w - - 4 1").unwrap();
    let board = board.play(OMove::Go { from: 52, to: 59, pawn: true, reward: Some(2) });
    assert_eq!(board.fen(), "3S3k/8/8/8/8/8/8/K7[U] b - - 0 1");
    // CS2: grants of a half held are refused; a Pawn half never to the last rank.
    let grants = |fen: &str| oracle_tokens(fen).into_iter().filter(|t| t.contains('>')).collect::<Vec<_>>();
    assert_eq!(grants("4S2k/8/8/8/8/8/8/K7[TFG] w - - 0 1"), vec!["T>e8".to_string()]);
    assert_eq!(grants("7k/8/8/8/8/8/8/K3R3[TUD] w - - 0 1"), vec!["D>e1".to_string()]);

    for fen in MIDGAMES {
        let board = Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(board.fen(), fen);
        assert!(!board.king_attacked(!board.white_to_move), "{fen}");
    }
}

#[test]
fn split_random_games() {
    assert_eq!(Position::new(split()).fen(), START_FEN, "start position (CS1)");
    let stats = random_games(&[START_FEN], 400, 150, 50, 0x5_9117);
    eprintln!("construction-split random games: {stats:?}");
    assert!(
        stats.promotions > 0 && stats.mates > 0 && stats.swaps > 0 && stats.half_captures > 0,
        "the sample is vacuous: {stats:?}"
    );
}

#[test]
fn split_random_games_from_midgames() {
    let stats = random_games(&MIDGAMES, 250, 100, 8, 0xC5_2026);
    eprintln!("construction-split midgames: {stats:?}");
    assert!(stats.plies > 0 && stats.promotions > 0 && stats.half_captures > 0, "{stats:?}");
}

#[test]
fn oracle_perft_small() {
    let board = Board::from_fen(START_FEN).unwrap();
    let pos = Position::new(split());
    for depth in 1..=3 {
        assert_eq!(board.perft(depth), perft(&pos, depth), "perft({depth}) from the start");
    }
    for fen in MIDGAMES {
        let board = Board::from_fen(fen).unwrap();
        let pos = Position::from_fen(split(), fen).unwrap();
        for depth in 1..=2 {
            assert_eq!(board.perft(depth), perft(&pos, depth), "perft({depth}) of {fen}");
        }
    }
}

/// `tests/data/construction-split.perft` (counted by the engine): every
/// entry up to 300,000 nodes recounted by this generator.
#[test]
fn oracle_confirms_perft_table() {
    let mut checked = 0;
    for case in common::perft_table("construction-split").iter().filter(|c| c.nodes <= 300_000) {
        let oracle = Board::from_fen(&case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.fen));
        assert_eq!(oracle.perft(case.depth), case.nodes, "{} depth {}", case.fen, case.depth);
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} entries checked");
}
