//! Construction Chess (`construction`) checked against an independent oracle.
//!
//! The oracle below is a second, deliberately naive implementation of the
//! rules, written only from `shared/variants/construction-chess.txt`,
//! `shared/RULINGS.md` (sections G and C) and `rules/POWERS.md` (FEN, move
//! tokens, decisions). It shares no code with the crate: a plain 8x8 array,
//! ray walking, pseudo-legal generation followed by make-and-test legality,
//! and its own FEN reader and writer. The engine is driven only through its
//! public API (`Variant::by_id`, `Position::from_fen`, `legal_moves`,
//! `canonical`, `play_unchecked`, `fen`).
//!
//! The differential tests compare, at every ply of many random games, the
//! sorted canonical tokens of both generators, play the same move in both and
//! compare the FENs exactly.

mod common;

use std::collections::BTreeSet;

use kibitz_rules::{Position, Variant, perft};

// ---------------------------------------------------------------------------
// The oracle: pieces, reserves, positions.

/// Power flags. A piece is a colour plus a set of these (C3: at most one of
/// each kind).
const KING: u8 = 1;
const ROOK: u8 = 2;
const BISHOP: u8 = 4;
const KNIGHT: u8 = 8;
const PAWN: u8 = 16;
const CASTLE: u8 = 32;
/// Rook + Bishop moves as a Queen (C3) and is written `Q` (POWERS.md).
const QUEEN: u8 = ROOK | BISHOP;

/// Reserve slots in FEN order (POWERS.md): static pieces, then the powers.
const SLOT_LETTERS: [char; 6] = ['S', 'R', 'B', 'N', 'P', 'C'];
const SLOT_POWERS: [u8; 6] = [0, ROOK, BISHOP, KNIGHT, PAWN, CASTLE];
const STATIC: usize = 0;
/// C5: a promotion adds a static piece or a Rook, Bishop, Knight or Pawn
/// power (slots 0..5) to the reserve.
const REWARDS: [usize; 5] = [0, 1, 2, 3, 4];

const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KING_STEPS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_JUMPS: [(i32, i32); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];

const START_FEN: &str = "4k3/8/8/8/8/8/8/4K3[S15R3B3N2P8C2s15r3b3n2p8c2] w - - 0 1";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Piece {
    white: bool,
    powers: u8,
}

impl Piece {
    fn has(self, power: u8) -> bool {
        self.powers & power != 0
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
struct Board {
    /// Indexed `rank * 8 + file`; rank 0 is rank 1, White's first (G1).
    squares: [Option<Piece>; 64],
    /// Reserve counts, `[white, black]`, slots as in `SLOT_LETTERS`.
    reserve: [[u32; 6]; 2],
    white_to_move: bool,
    halfmove: u32,
    fullmove: u32,
}

/// One turn (C2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum OMove {
    /// A static piece from the reserve onto an empty square: `S@d2`.
    Drop { to: usize },
    /// A reserve power given to one's own non-royal piece: `R>e2`.
    Grant { slot: usize, to: usize },
    /// A piece moves or captures (C3, C4). `pawn`: the Pawn power makes this
    /// step (it resets the clock); `reward`: the C5 promotion choice.
    Go { from: usize, to: usize, pawn: bool, reward: Option<usize> },
    /// C6: the holder of the Castling power swaps with its King: `a1e1`.
    Swap { holder: usize, king: usize },
}

fn side(white: bool) -> usize {
    if white { 0 } else { 1 }
}

fn square(file: i32, rank: i32) -> Option<usize> {
    ((0..8).contains(&file) && (0..8).contains(&rank)).then(|| (rank * 8 + file) as usize)
}

fn square_name(sq: usize) -> String {
    format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1)
}

/// The rank (0-based) a side's Pawn power promotes on.
fn last_rank(white: bool) -> usize {
    if white { 7 } else { 0 }
}

impl OMove {
    /// The canonical token (G2, POWERS.md).
    fn token(self) -> String {
        match self {
            OMove::Drop { to } => format!("S@{}", square_name(to)),
            OMove::Grant { slot, to } => format!("{}>{}", SLOT_LETTERS[slot], square_name(to)),
            OMove::Go { from, to, reward, .. } => {
                let mut t = format!("{}{}", square_name(from), square_name(to));
                if let Some(slot) = reward {
                    t.push(SLOT_LETTERS[slot].to_ascii_lowercase());
                }
                t
            }
            OMove::Swap { holder, king } => format!("{}{}", square_name(holder), square_name(king)),
        }
    }
}

// ---------------------------------------------------------------------------
// The oracle: FEN (POWERS.md).

/// A piece as FEN writes it: a named letter, else the group `(KQRBNPC)`.
fn piece_text(p: Piece) -> String {
    let named = match p.powers {
        KING => Some('K'),
        QUEEN => Some('Q'),
        ROOK => Some('R'),
        BISHOP => Some('B'),
        KNIGHT => Some('N'),
        PAWN => Some('P'),
        CASTLE => Some('C'),
        0 => Some('S'),
        _ => None,
    };
    let text = match named {
        Some(c) => c.to_string(),
        None => {
            let mut s = String::from("(");
            if p.has(KING) {
                s.push('K');
            }
            if p.powers & QUEEN == QUEEN {
                s.push('Q');
            } else if p.has(ROOK) {
                s.push('R');
            } else if p.has(BISHOP) {
                s.push('B');
            }
            for (power, letter) in [(KNIGHT, 'N'), (PAWN, 'P'), (CASTLE, 'C')] {
                if p.has(power) {
                    s.push(letter);
                }
            }
            s.push(')');
            s
        }
    };
    if p.white { text } else { text.to_lowercase() }
}

/// The power of one letter (upper case); `S` (no power) only stands alone.
fn letter_powers(letter: char, in_group: bool) -> Option<u8> {
    Some(match letter {
        'K' => KING,
        'Q' => QUEEN,
        'R' => ROOK,
        'B' => BISHOP,
        'N' => KNIGHT,
        'P' => PAWN,
        'C' => CASTLE,
        'S' if !in_group => 0,
        _ => return None,
    })
}

impl Board {
    fn from_fen(fen: &str) -> Result<Board, String> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let [placement, turn, castling, ep, half, full] = fields[..] else {
            return Err(format!("expected 6 fields: {fen}"));
        };
        let open = placement.find('[').ok_or("no reserve bracket")?;
        let reserve_text =
            placement[open..].strip_prefix('[').and_then(|s| s.strip_suffix(']')).ok_or("bad reserve")?;

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
                let piece = if let Some(d) = c.to_digit(10) {
                    file += d as usize;
                    continue;
                } else if c == '(' {
                    let group: String = chars.by_ref().take_while(|&c| c != ')').collect();
                    let white = group.chars().all(|c| c.is_ascii_uppercase());
                    let black = group.chars().all(|c| c.is_ascii_lowercase());
                    if group.is_empty() || white == black {
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
                    return Err(format!("rank {} too long", rank + 1));
                }
                squares[rank * 8 + file] = Some(piece);
                file += 1;
            }
            if file != 8 {
                return Err(format!("rank {} has {file} files", rank + 1));
            }
        }

        // Reserve: a letter, then its count when more than one; letters may
        // also repeat (`[SSRb]`).
        let mut reserve = [[0u32; 6]; 2];
        let mut chars = reserve_text.chars().peekable();
        while let Some(c) = chars.next() {
            let slot =
                SLOT_LETTERS.iter().position(|&l| l == c.to_ascii_uppercase()).ok_or(format!("bad reserve {c}"))?;
            let mut digits = String::new();
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                digits.push(d);
            }
            let count = if digits.is_empty() { 1 } else { digits.parse().map_err(|_| "bad count")? };
            reserve[side(c.is_ascii_uppercase())][slot] += count;
        }

        let white_to_move = match turn {
            "w" => true,
            "b" => false,
            _ => return Err(format!("bad side {turn}")),
        };
        if castling != "-" || ep != "-" {
            return Err("castling and en passant are always `-`".into());
        }
        Ok(Board {
            squares,
            reserve,
            white_to_move,
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

    // -----------------------------------------------------------------------
    // The oracle: attacks and moves.

    fn at(&self, file: i32, rank: i32) -> Option<Piece> {
        square(file, rank).and_then(|sq| self.squares[sq])
    }

    /// Is `target` attacked by a piece of colour `by_white`? Walks outwards
    /// from the target. Static pieces and the Castling power attack nothing.
    fn attacked(&self, target: usize, by_white: bool) -> bool {
        let (f, r) = ((target % 8) as i32, (target / 8) as i32);
        let enemy_with = |p: Option<Piece>, power: u8| p.is_some_and(|p| p.white == by_white && p.has(power));
        if KNIGHT_JUMPS.iter().any(|&(df, dr)| enemy_with(self.at(f + df, r + dr), KNIGHT)) {
            return true;
        }
        if KING_STEPS.iter().any(|&(df, dr)| enemy_with(self.at(f + df, r + dr), KING)) {
            return true;
        }
        // C4: the Pawn power captures diagonally forward, so its holder stands
        // one rank behind the target (as seen from its side).
        let behind = if by_white { -1 } else { 1 };
        if [-1, 1].iter().any(|&df| enemy_with(self.at(f + df, r + behind), PAWN)) {
            return true;
        }
        for (dirs, power) in [(ROOK_DIRS, ROOK), (BISHOP_DIRS, BISHOP)] {
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

    /// Is the King of colour `white` attacked?
    fn king_attacked(&self, white: bool) -> bool {
        self.king_square(white).is_some_and(|k| self.attacked(k, !white))
    }

    fn in_check(&self) -> bool {
        self.king_attacked(self.white_to_move)
    }

    /// The moves of the piece on `from`, each destination once (C4: a step
    /// several powers make is one move).
    fn piece_moves(&self, from: usize, p: Piece, out: &mut Vec<OMove>) {
        let (f, r) = ((from % 8) as i32, (from / 8) as i32);
        let mut by_pawn = [false; 64];
        let mut by_other = [false; 64];
        let can_land = |sq: usize| self.squares[sq].is_none_or(|q| q.white != p.white);

        let mut leap = |steps: &[(i32, i32)]| {
            for (df, dr) in steps {
                if let Some(to) = square(f + df, r + dr)
                    && can_land(to)
                {
                    by_other[to] = true;
                }
            }
        };
        if p.has(KING) {
            leap(&KING_STEPS);
        }
        if p.has(KNIGHT) {
            leap(&KNIGHT_JUMPS);
        }
        for (dirs, power) in [(ROOK_DIRS, ROOK), (BISHOP_DIRS, BISHOP)] {
            if !p.has(power) {
                continue;
            }
            for (df, dr) in dirs {
                let (mut x, mut y) = (f + df, r + dr);
                while let Some(to) = square(x, y) {
                    if can_land(to) {
                        by_other[to] = true;
                    }
                    if self.squares[to].is_some() {
                        break;
                    }
                    x += df;
                    y += dr;
                }
            }
        }
        if p.has(PAWN) {
            let fwd = if p.white { 1 } else { -1 };
            let first = if p.white { 0 } else { 7 };
            if let Some(one) = square(f, r + fwd)
                && self.squares[one].is_none()
            {
                by_pawn[one] = true;
                // C4: two steps only from the side's FIRST rank, through an
                // empty square onto an empty one.
                if r == first
                    && let Some(two) = square(f, r + 2 * fwd)
                    && self.squares[two].is_none()
                {
                    by_pawn[two] = true;
                }
            }
            // C4: diagonal captures forward; no en passant.
            for df in [-1, 1] {
                if let Some(to) = square(f + df, r + fwd)
                    && self.squares[to].is_some_and(|q| q.white != p.white)
                {
                    by_pawn[to] = true;
                }
            }
        }

        for (to, (&pawn, &other)) in by_pawn.iter().zip(&by_other).enumerate() {
            if pawn && to / 8 == last_rank(p.white) {
                // C4, C5: onto the last rank the pawn move promotes, and a
                // step another power also makes is a move of its own that
                // does not.
                out.extend(REWARDS.iter().map(|&slot| OMove::Go { from, to, pawn: true, reward: Some(slot) }));
                if other {
                    out.push(OMove::Go { from, to, pawn: false, reward: None });
                }
            } else if pawn || other {
                out.push(OMove::Go { from, to, pawn, reward: None });
            }
        }
    }

    /// Every turn (C2) before the check test.
    fn pseudo_moves(&self) -> Vec<OMove> {
        let us = self.white_to_move;
        let reserve = self.reserve[side(us)];
        let mut out = Vec::new();

        // C2: drop a static piece onto an empty square of one's first two ranks.
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

        // C2, C3: give a reserve power to an own non-royal piece that lacks it;
        // C4: never the Pawn power to a piece on its last rank.
        for slot in 1..6 {
            let power = SLOT_POWERS[slot];
            if reserve[slot] == 0 {
                continue;
            }
            for &(to, p) in &own {
                let refused = p.has(KING) || p.has(power) || (power == PAWN && to / 8 == last_rank(us));
                if !refused {
                    out.push(OMove::Grant { slot, to });
                }
            }
        }

        // C3: a piece moves with any of its powers; static pieces cannot.
        for &(from, p) in &own {
            self.piece_moves(from, p, &mut out);
        }

        // C6: swap with the King if the King is not in check and the holder is
        // not attacked, both judged before the move.
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
        let reserve = &mut b.reserve[side(us)];
        // C7: drops and grants count for the fifty-move rule.
        b.halfmove += 1;
        match m {
            OMove::Drop { to } => {
                reserve[STATIC] -= 1;
                b.squares[to] = Some(Piece { white: us, powers: 0 });
            }
            OMove::Grant { slot, to } => {
                reserve[slot] -= 1;
                b.squares[to].as_mut().expect("a piece to grant to").powers |= SLOT_POWERS[slot];
            }
            OMove::Go { from, to, pawn, reward } => {
                let mut piece = b.squares[from].take().expect("a piece to move");
                // C3: a captured piece simply leaves the game with its powers.
                let capture = b.squares[to].is_some();
                if let Some(slot) = reward {
                    // C5: the Pawn power goes; the reward joins the reserve.
                    piece.powers &= !PAWN;
                    reserve[slot] += 1;
                }
                b.squares[to] = Some(piece);
                if capture || pawn {
                    b.halfmove = 0;
                }
            }
            OMove::Swap { holder, king } => {
                // C6: the holder keeps its other powers, loses the Castling power.
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

    /// Legal turns: own King not attacked afterwards. Empty when the side to
    /// move is mated or stalemated (C7).
    fn legal_moves(&self) -> Vec<OMove> {
        let us = self.white_to_move;
        self.pseudo_moves().into_iter().filter(|&m| !self.play(m).king_attacked(us)).collect()
    }

    fn has_legal_move(&self) -> bool {
        let us = self.white_to_move;
        self.pseudo_moves().into_iter().any(|m| !self.play(m).king_attacked(us))
    }

    fn tokens(&self) -> Vec<String> {
        let mut t: Vec<String> = self.legal_moves().into_iter().map(OMove::token).collect();
        t.sort();
        t
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.into_iter().map(|m| self.play(m).perft(depth - 1)).sum()
    }

    fn find(&self, token: &str) -> OMove {
        self.legal_moves()
            .into_iter()
            .find(|m| m.token() == token)
            .unwrap_or_else(|| panic!("oracle: no legal {token} in {}", self.fen()))
    }
}

// ---------------------------------------------------------------------------
// The engine side.

fn construction() -> &'static Variant {
    Variant::by_id("construction").expect("the `construction` variant is not registered")
}

fn engine_tokens(pos: &Position) -> Vec<String> {
    let mut t: Vec<String> = pos.legal_moves().iter().map(|m| pos.canonical(m)).collect();
    t.sort();
    t
}

/// Panics with the differences if the two sorted token lists differ.
fn compare_tokens(context: &str, fen: &str, oracle: &[String], engine: &[String]) {
    if oracle == engine {
        return;
    }
    let o: BTreeSet<&String> = oracle.iter().collect();
    let e: BTreeSet<&String> = engine.iter().collect();
    let only_oracle: Vec<&&String> = o.difference(&e).collect();
    let only_engine: Vec<&&String> = e.difference(&o).collect();
    panic!(
        "move lists differ ({context})\n  fen: {fen}\n  only in oracle: {only_oracle:?}\n  only in engine: \
         {only_engine:?}\n  counts: oracle {}, engine {} (duplicates show as equal sets)",
        oracle.len(),
        engine.len()
    );
}

// ---------------------------------------------------------------------------
// Random games.

#[derive(Default, Debug)]
struct Stats {
    games: u32,
    plies: u32,
    drops: u32,
    grants: u32,
    captures: u32,
    swaps: u32,
    promotions: u32,
    mates: u32,
    stalemates: u32,
}

/// Picks a move. While `building`, drops and grants are preferred (build an
/// army); afterwards mates in one (mostly), promotions, swaps, checks and
/// captures are, so that the sample reaches C5, C6 and C7.
fn choose(rng: &mut fastrand::Rng, board: &Board, moves: &[OMove], building: bool) -> OMove {
    if !building && rng.u32(0..10) < 8 {
        let mate = moves.iter().find(|&&m| {
            let next = board.play(m);
            next.in_check() && !next.has_legal_move()
        });
        if let Some(&m) = mate {
            return m;
        }
    }
    let weights: Vec<u32> = moves
        .iter()
        .map(|&m| match m {
            OMove::Drop { .. } => {
                if building {
                    4
                } else {
                    1
                }
            }
            OMove::Grant { .. } => {
                if building {
                    6
                } else {
                    1
                }
            }
            OMove::Swap { .. } => 20,
            OMove::Go { reward: Some(_), .. } => 30,
            OMove::Go { to, pawn, .. } => {
                if building {
                    if pawn { 2 } else { 1 }
                } else if board.play(m).in_check() || board.squares[to].is_some() {
                    8
                } else if pawn {
                    4
                } else {
                    2
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
    unreachable!("the pick is below the total weight")
}

/// Plays `games` random games from the given FENs (in turn), each of at most
/// `max_plies` plies, with a building phase of a random length below
/// `max_build`. With an engine variant, compares move lists and FENs at every
/// ply; without, exercises the oracle alone.
fn random_games(
    engine: Option<&'static Variant>,
    fens: &[&str],
    games: u32,
    max_plies: u32,
    max_build: u32,
    seed: u64,
) -> Stats {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut stats = Stats::default();
    for game in 0..games {
        let start = fens[game as usize % fens.len()];
        let mut board = Board::from_fen(start).unwrap_or_else(|e| panic!("oracle cannot read {start}: {e}"));
        assert_eq!(board.fen(), start, "oracle FEN round trip");
        let mut pos = engine.map(|v| {
            let pos = Position::from_fen(v, start).unwrap_or_else(|e| panic!("engine cannot read {start}: {e:?}"));
            assert_eq!(pos.fen(), start, "engine FEN round trip");
            pos
        });
        let build = rng.u32(0..max_build.max(1));
        let mut history: Vec<String> = Vec::new();
        for ply in 0..=max_plies {
            let moves = board.legal_moves();
            if let Some(pos) = &pos {
                let mut oracle: Vec<String> = moves.iter().map(|m| m.token()).collect();
                oracle.sort();
                let context = format!("game {game}, ply {ply}, from {start}, moves {}", history.join(" "));
                compare_tokens(&context, &board.fen(), &oracle, &engine_tokens(pos));
            }
            if moves.is_empty() {
                if board.in_check() {
                    stats.mates += 1;
                } else {
                    stats.stalemates += 1;
                }
                break;
            }
            if ply == max_plies {
                break;
            }
            let m = choose(&mut rng, &board, &moves, ply < build);
            match m {
                OMove::Drop { .. } => stats.drops += 1,
                OMove::Grant { .. } => stats.grants += 1,
                OMove::Swap { .. } => stats.swaps += 1,
                OMove::Go { to, reward, .. } => {
                    stats.captures += u32::from(board.squares[to].is_some());
                    stats.promotions += u32::from(reward.is_some());
                }
            }
            let token = m.token();
            let before = board.fen();
            board = board.play(m);
            if let Some(pos) = &mut pos {
                let em = pos.legal_moves().into_iter().find(|e| pos.canonical(e) == token);
                let em = em.unwrap_or_else(|| panic!("engine has no {token} in {before}"));
                pos.play_unchecked(em);
                assert_eq!(
                    pos.fen(),
                    board.fen(),
                    "FEN after {token} differs (engine left, oracle right)\n  game {game}, ply {ply}, before: \
                     {before}\n  moves: {}",
                    history.join(" ")
                );
            }
            history.push(token);
            stats.plies += 1;
        }
        stats.games += 1;
    }
    stats
}

/// The position must be legal: the side not to move is not in check.
fn assert_legal(fen: &str) {
    let board = Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(board.fen(), fen, "round trip");
    assert!(!board.king_attacked(!board.white_to_move), "side not to move is in check: {fen}");
    assert!(board.king_square(true).is_some() && board.king_square(false).is_some(), "{fen}: a King is missing");
}

/// Hand-made positions: compound pieces, Pawn-power pieces near promotion and
/// on their first rank (double step), Castling-power holders, reserves partly
/// used or empty.
const MIDGAMES: [&str; 5] = [
    "r3k2(rc)/1(np)2p3/2s1(bp)3/8/3(QN)4/2(BP)5/P(RP)3S2/(RC)3K2C[S8BNP5s9rb2np5c] w - - 12 20",
    "2(pc)1k3/1(NP)6/8/4(bn)3/8/8/6(rp)1/2P(RP)K3[S12R2B3NP5C2s12r2b2np6c] b - - 0 31",
    "(rc)3k2r/pp(bp)2(qn)pp/8/8/8/8/PP(BP)2(QN)PP/(RC)3K2R[Bb] w - - 5 15",
    "4k3/8/8/8/8/8/3S4/(PC)(NP)P1K(QC)BP[S8R2BNP4s15r3b3n2p8c2] w - - 7 9",
    "3k4/8/3(QN)4/8/8/8/8/R3K3[S5Bs2r] b - - 3 40",
];

// ---------------------------------------------------------------------------
// Tests.

fn sorted(tokens: &[&str]) -> Vec<String> {
    let mut t: Vec<String> = tokens.iter().map(|s| s.to_string()).collect();
    t.sort();
    t
}

fn oracle_tokens(fen: &str) -> Vec<String> {
    let board = Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(board.fen(), fen, "round trip");
    board.tokens()
}

#[test]
fn oracle_self_checks() {
    // C1, C2: King moves d1 f1 d2 e2 f2, drops on ranks 1-2 but e1, no grants.
    let start = Board::from_fen(START_FEN).unwrap();
    assert_eq!(start.fen(), START_FEN);
    let mut expected = vec!["e1d1", "e1f1", "e1d2", "e1e2", "e1f2"].into_iter().map(String::from).collect::<Vec<_>>();
    for sq in (0..16).filter(|&sq| sq != 4) {
        expected.push(format!("S@{}", square_name(sq)));
    }
    expected.sort();
    assert_eq!(start.tokens(), expected);
    // Black has the same 20 whatever White did; depth 3 by hand: after a King
    // move 15 drops + 5 or 8 King moves (109 in all), after a drop 14 drops +
    // 5 grants + 4 or 5 King moves (355 in all): 20 * (109 + 355).
    assert_eq!(start.perft(1), 20);
    assert_eq!(start.perft(2), 400);
    assert_eq!(start.perft(3), 9280);

    // POWERS.md's examples, by play and by round trip.
    let after_drop = start.play(start.find("S@d2"));
    assert_eq!(after_drop.fen(), "4k3/8/8/8/8/8/3S4/4K3[S14R3B3N2P8C2s15r3b3n2p8c2] b - - 1 1");
    let after_drop = after_drop.play(after_drop.find("S@d7"));
    let granted = after_drop.play(after_drop.find("P>d2"));
    assert_eq!(granted.fen(), "4k3/3s4/8/8/8/8/3P4/4K3[S14R3B3N2P7C2s14r3b3n2p8c2] b - - 3 2");
    for fen in [
        "4k3/8/8/8/8/8/8/(RC)3K3[] w - - 0 1",
        "4k3/3(np)4/8/2(QN)(BN)4/8/8/(RNP)(QC)(BC)(NPC)4/4K3[S2RBNPC2sc] b - - 17 33",
    ]
    .into_iter()
    .chain(MIDGAMES)
    {
        assert_eq!(Board::from_fen(fen).unwrap().fen(), fen);
    }
    // The letter-by-letter reserve is read too, and written with counts.
    let loose = Board::from_fen("4k3/8/8/8/8/8/8/4K3[SSRb] w - - 0 1").unwrap();
    assert_eq!(loose.fen(), "4k3/8/8/8/8/8/8/4K3[S2Rb] w - - 0 1");
    for fen in MIDGAMES {
        assert_legal(fen);
    }

    // C6: the swap. Rook+Castling on a1: 5 King moves, 10 rook moves, a1e1.
    let swap = "4k3/8/8/8/8/8/8/(RC)3K3[] w - - 0 1";
    let tokens = oracle_tokens(swap);
    assert_eq!(tokens.len(), 16);
    assert!(tokens.contains(&"a1e1".to_string()));
    let board = Board::from_fen(swap).unwrap();
    assert_eq!(board.play(board.find("a1e1")).fen(), "4k3/8/8/8/8/8/8/K3R3[] b - - 1 1");
    // Not when the holder is attacked, nor when the King is in check.
    assert!(!oracle_tokens("r3k3/8/8/8/8/8/8/(RC)3K3[] w - - 0 1").contains(&"a1e1".to_string()));
    assert!(!oracle_tokens("4k3/8/8/4r3/8/8/8/(RC)3K3[] w - - 0 1").contains(&"a1e1".to_string()));
    // A Castling-only piece becomes static; an adjacent Queen holder swaps too.
    let board = Board::from_fen("4k3/8/8/8/8/8/8/C3K(QC)2[] w - - 4 9").unwrap();
    let board = board.play(board.find("a1e1"));
    let board = board.play(board.find("e8d8"));
    assert_eq!(board.fen(), "3k4/8/8/8/8/8/8/K3S(QC)2[] w - - 6 10");
    assert_eq!(board.play(board.find("f1a1")).fen(), "3k4/8/8/8/8/8/8/Q3SK2[] b - - 7 10");

    // C4, C5: a Pawn power on e7 has exactly the 5 promotions onto e8.
    assert_eq!(
        oracle_tokens("7k/4P3/8/8/8/8/8/K7[] w - - 0 1"),
        sorted(&["a1a2", "a1b1", "a1b2", "e7e8b", "e7e8n", "e7e8p", "e7e8r", "e7e8s"])
    );
    let board = Board::from_fen("7k/4P3/8/8/8/8/8/K7[] w - - 9 1").unwrap();
    assert_eq!(board.play(board.find("e7e8s")).fen(), "4S2k/8/8/8/8/8/8/K7[S] b - - 0 1");
    // Rook+Pawn (C4): the step onto e8 is the 5 promotions and the Rook's
    // own step, which promotes nothing (3 King + 5 + 1 + e6..e1 + a7..d7 +
    // f7..h7 = 22); a Rook move onto the last rank from further away
    // promotes nothing and keeps the Pawn power.
    let tokens = oracle_tokens("7k/4(RP)3/8/8/8/8/8/K7[] w - - 0 1");
    assert_eq!(tokens.len(), 22);
    assert!(tokens.contains(&"e7e8".to_string()) && tokens.contains(&"e7e8r".to_string()));
    let board = Board::from_fen("7k/4(RP)3/8/8/8/8/8/K7[] w - - 5 1").unwrap();
    assert_eq!(board.play(board.find("e7e8")).fen(), "4(RP)2k/8/8/8/8/8/8/K7[] b - - 6 1");
    let board = Board::from_fen("7k/8/4(RP)3/8/8/8/8/K7[] w - - 0 1").unwrap();
    assert_eq!(board.play(board.find("e6e8")).fen(), "4(RP)2k/8/8/8/8/8/8/K7[] b - - 1 1");
    // Capture promotion with a Knight+Pawn: loses the Pawn power only.
    let board = Board::from_fen("3r3k/4(NP)3/8/8/8/8/8/K7[] w - - 3 1").unwrap();
    assert_eq!(board.play(board.find("e7d8n")).fen(), "3N3k/8/8/8/8/8/8/K7[N] b - - 0 1");

    // C4: the double step from the first rank only, through an empty square.
    assert_eq!(
        oracle_tokens("4k3/8/8/8/8/8/8/3PK3[] w - - 0 1"),
        sorted(&["d1d2", "d1d3", "e1d2", "e1e2", "e1f1", "e1f2"])
    );
    assert_eq!(oracle_tokens("4k3/8/8/8/8/8/3S4/3PK3[] w - - 0 1"), sorted(&["e1e2", "e1f1", "e1f2"]));
    assert!(!oracle_tokens("4k3/8/8/8/8/8/3P4/4K3[] w - - 0 1").contains(&"d2d4".to_string()));
    let board = Board::from_fen("3pk3/8/8/8/8/8/8/4K3[] b - - 5 7").unwrap();
    assert_eq!(board.play(board.find("d8d6")).fen(), "4k3/8/3p4/8/8/8/8/4K3[] w - - 0 8");
    // C2, C4: no Pawn power to a piece on its last rank; no power twice.
    assert_eq!(oracle_tokens("4S2k/8/8/8/8/8/8/K7[RP] w - - 0 1"), sorted(&["R>e8", "a1a2", "a1b1", "a1b2"]));
    assert_eq!(
        oracle_tokens("7k/8/8/8/8/8/8/(RC)6K[RBC] w - - 0 1").iter().filter(|t| t.contains('>')).collect::<Vec<_>>(),
        vec!["B>a1"]
    );

    // C7: in check from the a1 rook, every flight square covered: only drops
    // that block help; a grant never does, and without statics it is mate.
    assert_eq!(oracle_tokens("4k3/8/8/8/8/8/r6S/r3K3[SR] w - - 0 1"), sorted(&["S@b1", "S@c1", "S@d1"]));
    let mate = Board::from_fen("4k3/8/8/8/8/8/r6S/r3K3[R] w - - 0 1").unwrap();
    assert!(mate.in_check() && mate.legal_moves().is_empty());
    // Midgame 5: only the drop on d7 blocks the (QN)'s check.
    assert_eq!(oracle_tokens(MIDGAMES[4]), vec!["S@d7".to_string()]);

    // The random mover is not vacuous on the oracle alone.
    let stats = random_games(None, &[START_FEN], 60, 150, 40, 7);
    eprintln!("oracle alone: {stats:?}");
    assert!(stats.swaps > 0 && stats.promotions > 0 && stats.mates > 0, "{stats:?}");
}

#[test]
fn construction_random_games() {
    let v = construction();
    assert_eq!(Position::new(v).fen(), START_FEN, "start position (C1)");
    let stats = random_games(Some(v), &[START_FEN], 500, 150, 40, 0xC0_2024);
    eprintln!(
        "construction random games: {} games, {} plies, {} swaps, {} promotions, {} mates ({stats:?})",
        stats.games, stats.plies, stats.swaps, stats.promotions, stats.mates
    );
    assert!(stats.swaps > 0 && stats.promotions > 0 && stats.mates > 0, "the sample is vacuous: {stats:?}");
}

#[test]
fn construction_random_games_from_midgames() {
    let v = construction();
    for fen in MIDGAMES {
        assert_legal(fen);
    }
    let stats = random_games(Some(v), &MIDGAMES, 250, 100, 8, 0x5EED);
    eprintln!("construction midgames: {stats:?}");
    assert!(stats.plies > 0 && stats.promotions > 0, "{stats:?}");
}

#[test]
fn oracle_perft_small() {
    let v = construction();
    let board = Board::from_fen(START_FEN).unwrap();
    let pos = Position::new(v);
    for depth in 1..=3 {
        let (oracle, engine) = (board.perft(depth), perft(&pos, depth));
        if oracle != engine {
            // Break it down by first move to name the culprit.
            let per_move: Vec<String> = board
                .legal_moves()
                .into_iter()
                .filter_map(|m| {
                    let token = m.token();
                    let em = pos.legal_moves().into_iter().find(|e| pos.canonical(e) == token)?;
                    let mut next = pos.clone();
                    next.play_unchecked(em);
                    let (o, e) = (board.play(m).perft(depth - 1), perft(&next, depth - 1));
                    (o != e).then(|| format!("{token}: oracle {o}, engine {e}"))
                })
                .collect();
            panic!("perft({depth}) from {START_FEN}: oracle {oracle}, engine {engine}; differing: {per_move:?}");
        }
    }
}

/// The perft table in `tests/data/construction.perft` (counted by the engine): every
/// entry up to 300,000 nodes recounted by this generator.
#[test]
fn oracle_confirms_perft_table() {
    let mut checked = 0;
    for case in common::perft_table("construction").iter().filter(|c| c.nodes <= 300_000) {
        let oracle = Board::from_fen(&case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.fen));
        assert_eq!(oracle.perft(case.depth), case.nodes, "{} depth {}", case.fen, case.depth);
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} entries checked");
}
