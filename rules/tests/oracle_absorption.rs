//! Differential tests for Power Absorption Chess (`absorption`).
//!
//! [`Oracle`] is a second, deliberately naive move generator written from the
//! rule texts (`shared/variants/power-absorption-chess.txt`, RULINGS sections
//! G and PA, and this crate's `POWERS.md`). It shares no code with the crate:
//! a plain array board, its own FEN reader and writer, ray-walking move
//! generation and make-and-test legality. The crate is driven only through its
//! public API. At every position the sorted canonical move tokens of both must
//! be equal, and after every move both must write the same FEN.
//!
//! With absorption switched off the oracle plays standard chess; the first
//! test checks the oracle itself against the crate's `chess`.

mod common;

use std::collections::BTreeSet;

use kibitz_rules::{Position, Variant, perft};

// ------------------------------------------------------------------ powers

/// PA2: a piece is a set of powers.
const KING: u8 = 1;
const ROOK: u8 = 2;
const BISHOP: u8 = 4;
const KNIGHT: u8 = 8;
const PAWN: u8 = 16;
const QUEEN: u8 = ROOK | BISHOP;

/// PA5: promotion choices, in token letter and the power they give.
const CHOICES: [(char, u8); 4] = [('q', QUEEN), ('r', ROOK), ('b', BISHOP), ('n', KNIGHT)];

const ORTHOGONAL: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_JUMPS: [(i32, i32); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const KING_STEPS: [(i32, i32); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// ----------------------------------------------------------------- squares

/// `rank * 8 + file`: a1 = 0, h1 = 7, a8 = 56, h8 = 63.
type Sq = usize;

fn file(sq: Sq) -> i32 {
    (sq % 8) as i32
}

fn rank(sq: Sq) -> i32 {
    (sq / 8) as i32
}

fn offset(sq: Sq, df: i32, dr: i32) -> Option<Sq> {
    let (f, r) = (file(sq) + df, rank(sq) + dr);
    ((0..8).contains(&f) && (0..8).contains(&r)).then(|| (r * 8 + f) as Sq)
}

fn square_name(sq: Sq) -> String {
    format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1)
}

fn parse_square(text: &str) -> Option<Sq> {
    match text.as_bytes() {
        &[f @ b'a'..=b'h', r @ b'1'..=b'8'] => Some(((r - b'1') * 8 + (f - b'a')) as Sq),
        _ => None,
    }
}

/// Rank direction of a side's pawn moves.
fn forward(white: bool) -> i32 {
    if white { 1 } else { -1 }
}

/// The rank a side's Pawn power double-steps from (PA4).
fn second_rank(white: bool) -> i32 {
    if white { 1 } else { 6 }
}

/// The side's last rank, which is the enemy's back rank (PA5).
fn last_rank(white: bool) -> i32 {
    if white { 7 } else { 0 }
}

// ------------------------------------------------------------------ pieces

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct OPiece {
    white: bool,
    powers: u8,
}

impl OPiece {
    fn has(self, power: u8) -> bool {
        self.powers & power != 0
    }

    /// Only the King holds the King power (POWERS.md).
    fn royal(self) -> bool {
        self.has(KING)
    }

    /// POWERS.md: the named letter, or the power letters in parentheses in the
    /// order K Q R B N P, `Q` standing for Rook + Bishop.
    fn text(self) -> String {
        let p = self.powers;
        let s = match p {
            KING => "K".to_string(),
            QUEEN => "Q".to_string(),
            ROOK => "R".to_string(),
            BISHOP => "B".to_string(),
            KNIGHT => "N".to_string(),
            PAWN => "P".to_string(),
            _ => {
                let mut s = String::from("(");
                if p & KING != 0 {
                    s.push('K');
                }
                if p & QUEEN == QUEEN {
                    s.push('Q');
                } else if p & ROOK != 0 {
                    s.push('R');
                } else if p & BISHOP != 0 {
                    s.push('B');
                }
                if p & KNIGHT != 0 {
                    s.push('N');
                }
                if p & PAWN != 0 {
                    s.push('P');
                }
                s.push(')');
                s
            }
        };
        if self.white { s } else { s.to_ascii_lowercase() }
    }

    /// Reads a single letter or the letters of a parenthesised group.
    fn parse(letters: &str) -> Result<OPiece, String> {
        let white = letters.chars().all(|c| c.is_ascii_uppercase());
        let black = letters.chars().all(|c| c.is_ascii_lowercase());
        if letters.is_empty() || white == black {
            return Err(format!("bad piece {letters:?}"));
        }
        let mut powers = 0;
        for c in letters.chars() {
            powers |= match c.to_ascii_uppercase() {
                'K' => KING,
                'Q' => QUEEN,
                'R' => ROOK,
                'B' => BISHOP,
                'N' => KNIGHT,
                'P' => PAWN,
                _ => return Err(format!("bad piece {letters:?}")),
            };
        }
        Ok(OPiece { white, powers })
    }
}

// ------------------------------------------------------------------- moves

#[derive(Clone, Copy, Debug)]
enum Kind {
    Normal,
    /// The double-stepped piece on `victim` is removed (PA4).
    EnPassant {
        victim: Sq,
    },
    Castle {
        rook_from: Sq,
        rook_to: Sq,
    },
}

#[derive(Clone, Debug)]
struct OMove {
    from: Sq,
    to: Sq,
    kind: Kind,
    /// Powers of the moving piece once the move is made (after absorbing, PA3,
    /// and promoting, PA5).
    result: u8,
    capture: bool,
    /// Made by the Pawn power (PA4): resets the halfmove clock.
    pawn_move: bool,
    /// A Pawn-power two-step: sets the en passant square.
    double_step: bool,
    /// Canonical token (POWERS.md, G2).
    token: String,
}

/// How Kings' attacks count when asking whether a square is attacked (PA6).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kings {
    /// A King's sliding attacks run to the first occupied square, like any
    /// slider's: for the squares a sliding King passes over.
    Unrestricted,
    /// Kings attack nothing: for the squares that shield a King from a
    /// sliding King's check ("an enemy piece other than that King").
    Ignored,
    /// The square holds the other side's King: a sliding King's line attack on
    /// it stops at squares between that the King's side attacks with pieces
    /// other than the King itself.
    Check,
}

// ------------------------------------------------------------------ oracle

#[derive(Clone)]
struct Oracle {
    board: [Option<OPiece>; 64],
    white_to_move: bool,
    /// White short, White long, Black short, Black long.
    castling: [bool; 4],
    /// The square passed by the last Pawn-power two-step, whether or not
    /// anyone can take there.
    ep: Option<Sq>,
    halfmove: u32,
    fullmove: u32,
    /// Captures absorb (PA3). Off, the oracle plays standard chess.
    absorb: bool,
    /// PA7: White's and Black's handicaps.
    handicap: [OHandicap; 2],
}

/// PA7, read word by word: "`nopawn`: never the Pawn power; `noqueen`:
/// nothing from a captured piece that holds both Rook and Bishop powers;
/// `plain`: nothing at all ... `nopawn` and `noqueen` combine; `plain` covers
/// both."
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct OHandicap {
    nopawn: bool,
    noqueen: bool,
    plain: bool,
}

impl OHandicap {
    /// What a capture by a side with this handicap takes from `victim`.
    fn absorbs(self, victim: u8) -> u8 {
        if self.plain {
            return 0;
        }
        if self.noqueen && victim & QUEEN == QUEEN {
            return 0;
        }
        if self.nopawn { victim & !PAWN } else { victim }
    }

    /// POWERS.md's words for one side, joined by `+`: `plain` alone, else
    /// `nopawn`, `noqueen` or `nopawn+noqueen`.
    fn fen_words(self) -> Option<String> {
        if self.plain {
            return Some("plain".into());
        }
        match (self.nopawn, self.noqueen) {
            (false, false) => None,
            (true, false) => Some("nopawn".into()),
            (false, true) => Some("noqueen".into()),
            (true, true) => Some("nopawn+noqueen".into()),
        }
    }

    fn from_fen_words(words: &str) -> Result<OHandicap, String> {
        let mut h = OHandicap::default();
        for w in words.split('+') {
            match w {
                "nopawn" => h.nopawn = true,
                "noqueen" => h.noqueen = true,
                "plain" => h.plain = true,
                _ => return Err(format!("bad handicap {w:?}")),
            }
        }
        if h.plain {
            h = OHandicap { plain: true, ..OHandicap::default() };
        }
        Ok(h)
    }
}

/// POWERS.md: the handicap field, `h:W=plain,B=nopawn+noqueen`.
fn parse_handicap_field(field: &str) -> Result<[OHandicap; 2], String> {
    let body = field.strip_prefix("h:").ok_or_else(|| format!("bad handicap field {field:?}"))?;
    let mut sides = [OHandicap::default(); 2];
    for side in body.split(',') {
        match side.split_once('=') {
            Some(("W", words)) => sides[0] = OHandicap::from_fen_words(words)?,
            Some(("B", words)) => sides[1] = OHandicap::from_fen_words(words)?,
            _ => return Err(format!("bad handicap field {field:?}")),
        }
    }
    Ok(sides)
}

impl Oracle {
    fn from_fen(fen: &str, absorb: bool) -> Result<Oracle, String> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let (&[placement, side, castling, ep, halfmove, fullmove], handicap) = match fields.as_slice() {
            [six @ .., last] if six.len() == 6 => (<&[&str; 6]>::try_from(six).unwrap(), parse_handicap_field(last)?),
            six => (
                <&[&str; 6]>::try_from(six).map_err(|_| format!("expected 6 or 7 fields in {fen:?}"))?,
                [OHandicap::default(); 2],
            ),
        };
        let mut board = [None; 64];
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 8 {
            return Err(format!("expected 8 ranks in {fen:?}"));
        }
        for (i, text) in ranks.iter().enumerate() {
            let r = 7 - i;
            let mut f = 0;
            let mut chars = text.chars();
            while let Some(c) = chars.next() {
                if let Some(d) = c.to_digit(10) {
                    f += d as usize;
                    continue;
                }
                let letters: String =
                    if c == '(' { chars.by_ref().take_while(|&c| c != ')').collect() } else { c.into() };
                if f >= 8 {
                    return Err(format!("rank {} too long in {fen:?}", r + 1));
                }
                board[r * 8 + f] = Some(OPiece::parse(&letters)?);
                f += 1;
            }
            if f != 8 {
                return Err(format!("rank {} has {f} files in {fen:?}", r + 1));
            }
        }
        let white_to_move = match side {
            "w" => true,
            "b" => false,
            _ => return Err(format!("bad side {side:?}")),
        };
        let mut rights = [false; 4];
        if castling != "-" {
            for c in castling.chars() {
                let i = "KQkq".find(c).ok_or_else(|| format!("bad castling {castling:?}"))?;
                rights[i] = true;
            }
        }
        let ep = if ep == "-" { None } else { Some(parse_square(ep).ok_or_else(|| format!("bad ep {ep:?}"))?) };
        Ok(Oracle {
            board,
            white_to_move,
            castling: rights,
            ep,
            halfmove: halfmove.parse().map_err(|_| format!("bad halfmove {halfmove:?}"))?,
            fullmove: fullmove.parse().map_err(|_| format!("bad fullmove {fullmove:?}"))?,
            absorb,
            handicap,
        })
    }

    fn fen(&self) -> String {
        let mut s = common::placement(|sq| self.board[sq].map(|p| p.text()));
        s += if self.white_to_move { " w " } else { " b " };
        let rights: String = "KQkq".chars().zip(self.castling).filter(|&(_, on)| on).map(|(c, _)| c).collect();
        s += if rights.is_empty() { "-" } else { &rights };
        // POWERS.md: the ep square is written only when an enemy non-royal
        // piece holding the Pawn power could capture there (even if pinned).
        match self.ep.filter(|&ep| self.en_passant_victim(ep).is_some() && self.ep_capturers(ep).next().is_some()) {
            Some(ep) => s += &format!(" {}", square_name(ep)),
            None => s += " -",
        }
        s += &format!(" {} {}", self.halfmove, self.fullmove);
        let sides: Vec<String> =
            ["W", "B"].iter().zip(self.handicap).filter_map(|(c, h)| Some(format!("{c}={}", h.fen_words()?))).collect();
        if !sides.is_empty() {
            s += &format!(" h:{}", sides.join(","));
        }
        s
    }

    fn king_square(&self, white: bool) -> Option<Sq> {
        self.board.iter().position(|p| p.is_some_and(|p| p.white == white && p.royal()))
    }

    /// The double-stepped enemy piece that an en passant capture to `ep`
    /// removes: it stands one step beyond `ep`, seen from the side to move.
    fn en_passant_victim(&self, ep: Sq) -> Option<Sq> {
        let us = self.white_to_move;
        offset(ep, 0, -forward(us)).filter(|&v| self.board[v].is_some_and(|p| p.white != us && !p.royal()))
    }

    /// Squares of the side to move's non-royal Pawn-power pieces standing
    /// where a pawn would capture on `ep` from (PA4).
    fn ep_capturers(&self, ep: Sq) -> impl Iterator<Item = Sq> + '_ {
        let us = self.white_to_move;
        [-1, 1]
            .into_iter()
            .filter_map(move |df| offset(ep, df, -forward(us)))
            .filter(move |&s| self.board[s].is_some_and(|p| p.white == us && !p.royal() && p.has(PAWN)))
    }

    /// Whether a piece of colour `by` attacks `sq`. The Pawn power attacks
    /// only on non-royal pieces (PA4: a King gets no pawn moves).
    fn attacked(&self, sq: Sq, by: bool, kings: Kings) -> bool {
        let holds = |t: Sq, power: u8| {
            self.board[t].is_some_and(|p| p.white == by && p.has(power) && (!p.royal() || kings != Kings::Ignored))
        };
        if KNIGHT_JUMPS.iter().any(|&(df, dr)| offset(sq, df, dr).is_some_and(|t| holds(t, KNIGHT))) {
            return true;
        }
        if KING_STEPS.iter().any(|&(df, dr)| offset(sq, df, dr).is_some_and(|t| holds(t, KING))) {
            return true;
        }
        for df in [-1, 1] {
            if let Some(t) = offset(sq, df, -forward(by))
                && self.board[t].is_some_and(|p| p.white == by && !p.royal() && p.has(PAWN))
            {
                return true;
            }
        }
        for (power, dirs) in [(ROOK, ORTHOGONAL), (BISHOP, DIAGONAL)] {
            for (df, dr) in dirs {
                let mut distance = 0;
                let mut t = sq;
                while let Some(next) = offset(t, df, dr) {
                    t = next;
                    distance += 1;
                    let Some(p) = self.board[t] else { continue };
                    if p.white == by && p.has(power) {
                        let hit = match (p.royal(), kings) {
                            (false, _) | (true, Kings::Unrestricted) => true,
                            (true, Kings::Ignored) => false,
                            // PA6: the squares between shield the King on `sq`
                            // when its side attacks them with another piece.
                            (true, Kings::Check) => (1..distance)
                                .filter_map(|k| offset(sq, df * k, dr * k))
                                .all(|s| !self.attacked(s, !by, Kings::Ignored)),
                        };
                        if hit {
                            return true;
                        }
                    }
                    break;
                }
            }
        }
        false
    }

    /// PA6 decides check for sliding Kings; everything else is chess.
    fn in_check(&self, white: bool) -> bool {
        self.king_square(white).is_some_and(|k| self.attacked(k, !white, Kings::Check))
    }

    fn legal_moves(&self) -> Vec<OMove> {
        let us = self.white_to_move;
        self.pseudo_moves()
            .into_iter()
            .filter(|m| {
                let mut next = self.clone();
                next.play(m);
                !next.in_check(us)
            })
            .collect()
    }

    fn pseudo_moves(&self) -> Vec<OMove> {
        let mut out = Vec::new();
        for (from, cell) in self.board.iter().enumerate() {
            match *cell {
                Some(p) if p.white == self.white_to_move && p.royal() => self.king_moves(from, p, &mut out),
                Some(p) if p.white == self.white_to_move => self.piece_moves(from, p, &mut out),
                _ => {}
            }
        }
        self.castling_moves(&mut out);
        out
    }

    /// Moves of a non-royal piece. PA2: moves to one square by several powers
    /// are one move; PA4 says which of them is a pawn move.
    fn piece_moves(&self, from: Sq, piece: OPiece, out: &mut Vec<OMove>) {
        #[derive(Clone, Copy, Default)]
        struct Reach {
            /// By the Rook, Bishop or Knight power.
            other: bool,
            /// A Pawn-power step onto an empty square.
            step: bool,
            /// A Pawn-power diagonal capture.
            capture: bool,
        }
        let us = piece.white;
        let mut reach = [Reach::default(); 64];
        for (power, dirs) in [(ROOK, ORTHOGONAL), (BISHOP, DIAGONAL)] {
            if !piece.has(power) {
                continue;
            }
            for (df, dr) in dirs {
                let mut sq = from;
                while let Some(next) = offset(sq, df, dr) {
                    sq = next;
                    match self.board[sq] {
                        None => reach[sq].other = true,
                        Some(p) => {
                            reach[sq].other |= p.white != us;
                            break;
                        }
                    }
                }
            }
        }
        if piece.has(KNIGHT) {
            for (df, dr) in KNIGHT_JUMPS {
                if let Some(t) = offset(from, df, dr)
                    && self.board[t].is_none_or(|p| p.white != us)
                {
                    reach[t].other = true;
                }
            }
        }
        let mut double = None;
        if piece.has(PAWN) {
            let fwd = forward(us);
            if let Some(one) = offset(from, 0, fwd)
                && self.board[one].is_none()
            {
                reach[one].step = true;
                if rank(from) == second_rank(us)
                    && let Some(two) = offset(one, 0, fwd)
                    && self.board[two].is_none()
                {
                    reach[two].step = true;
                    double = Some(two);
                }
            }
            for df in [-1, 1] {
                if let Some(t) = offset(from, df, fwd)
                    && self.board[t].is_some_and(|p| p.white != us)
                {
                    reach[t].capture = true;
                }
            }
        }
        // PA4: a piece that can capture en passant does so whenever it goes to
        // the en passant square, by whichever power.
        let en_passant = self
            .ep
            .filter(|&ep| self.ep_capturers(ep).any(|s| s == from) && self.board[ep].is_none())
            .and_then(|ep| Some((ep, self.en_passant_victim(ep)?)));

        for (to, r) in reach.iter().enumerate() {
            let base = OMove {
                from,
                to,
                kind: Kind::Normal,
                result: piece.powers,
                capture: false,
                pawn_move: false,
                double_step: false,
                token: String::new(),
            };
            if let Some((ep, victim)) = en_passant
                && ep == to
            {
                let kind = Kind::EnPassant { victim };
                let victim = self.board[victim].map(|p| p.powers);
                self.emit(out, OMove { kind, capture: true, pawn_move: true, ..base }, victim, false);
                continue;
            }
            match self.board[to] {
                // Kings are never captured.
                Some(target) if target.royal() => {}
                Some(target) if r.other || r.capture => {
                    // PA4/PA5: onto the last rank the pawn capture promotes,
                    // and the other power's capture is a move of its own
                    // that does not.
                    let last = rank(to) == last_rank(us);
                    if r.capture && last {
                        let m = OMove { capture: true, pawn_move: true, ..base.clone() };
                        self.emit(out, m, Some(target.powers), true);
                        if r.other {
                            self.emit(out, OMove { capture: true, ..base }, Some(target.powers), false);
                        }
                    } else {
                        let m = OMove { capture: true, pawn_move: r.capture, ..base };
                        self.emit(out, m, Some(target.powers), false);
                    }
                }
                None if r.other || r.step => {
                    // PA4: a step the Pawn power also makes is a pawn move,
                    // except onto the last rank, where the pawn step promotes
                    // and the other power's step is a move of its own.
                    let last = rank(to) == last_rank(us);
                    if r.step && last {
                        self.emit(out, OMove { pawn_move: true, ..base.clone() }, None, true);
                        if r.other {
                            self.emit(out, base, None, false);
                        }
                    } else {
                        let m = OMove { pawn_move: r.step, double_step: double == Some(to), ..base };
                        self.emit(out, m, None, false);
                    }
                }
                _ => {}
            }
        }
    }

    /// Moves of the King: one step, and its Knight, Rook and Bishop powers
    /// (never pawn moves, PA4).
    fn king_moves(&self, from: Sq, piece: OPiece, out: &mut Vec<OMove>) {
        let us = piece.white;
        let mut reach = [false; 64];
        let open = |t: Sq| self.board[t].is_none_or(|p| p.white != us && !p.royal());
        for (df, dr) in KING_STEPS {
            if let Some(t) = offset(from, df, dr).filter(|&t| open(t)) {
                reach[t] = true;
            }
        }
        if piece.has(KNIGHT) {
            for (df, dr) in KNIGHT_JUMPS {
                if let Some(t) = offset(from, df, dr).filter(|&t| open(t)) {
                    reach[t] = true;
                }
            }
        }
        for (power, dirs) in [(ROOK, ORTHOGONAL), (BISHOP, DIAGONAL)] {
            if !piece.has(power) {
                continue;
            }
            for (df, dr) in dirs {
                let mut sq = from;
                while let Some(next) = offset(sq, df, dr) {
                    sq = next;
                    reach[sq] |= open(sq);
                    // PA6: the slide may not pass over an occupied square nor
                    // one the enemy attacks before the move (the enemy King's
                    // sliding attacks counted unrestricted).
                    if self.board[sq].is_some() || self.attacked(sq, !us, Kings::Unrestricted) {
                        break;
                    }
                }
            }
        }
        for (to, _) in reach.iter().enumerate().filter(|&(_, &r)| r) {
            let victim = self.board[to].map(|p| p.powers);
            let m = OMove {
                from,
                to,
                kind: Kind::Normal,
                result: piece.powers,
                capture: victim.is_some(),
                pawn_move: false,
                double_step: false,
                token: String::new(),
            };
            self.emit(out, m, victim, false);
        }
    }

    /// PA1: chess castling with a King and a rook that never moved, not out of,
    /// through or into check (POWERS.md). "Through": the King standing alone
    /// on the square it passes would not be in check. "Into": the ordinary
    /// legality test after the whole move, so the rook on its new square may
    /// shield the King from a sliding King's line (PA6).
    fn castling_moves(&self, out: &mut Vec<OMove>) {
        let us = self.white_to_move;
        let (home, short, long) = if us { (0, 0, 1) } else { (56, 2, 3) };
        let king = home + 4;
        let Some(king_piece) = self.board[king].filter(|p| p.white == us && p.royal()) else { return };
        if self.in_check(us) {
            return;
        }
        let sides: [(usize, Sq, Sq, Sq, &[Sq]); 2] = [
            (short, home + 7, home + 6, home + 5, &[home + 5, home + 6]),
            (long, home, home + 2, home + 3, &[home + 1, home + 2, home + 3]),
        ];
        for (right, rook_from, king_to, rook_to, empty) in sides {
            let rook_ok = self.board[rook_from] == Some(OPiece { white: us, powers: ROOK });
            if !self.castling[right] || !rook_ok || empty.iter().any(|&s| self.board[s].is_some()) {
                continue;
            }
            // FIDE 3.8.2 (PA1): the squares the King passes and lands on are
            // judged before the move, the rook still in its corner; the
            // position after castling is tested like every move's.
            let attacked_before = [rook_to, king_to].iter().any(|&sq| {
                let mut probe = self.clone();
                probe.board[sq] = probe.board[king].take();
                probe.in_check(us)
            });
            if attacked_before {
                continue;
            }
            out.push(OMove {
                from: king,
                to: king_to,
                kind: Kind::Castle { rook_from, rook_to },
                result: king_piece.powers,
                capture: false,
                pawn_move: false,
                double_step: false,
                token: format!("{}{}", square_name(king), square_name(king_to)),
            });
        }
    }

    /// Pushes the versions of one move: absorbing or declining a capture
    /// (PA3) and the four promotion choices (PA5). `base.result` holds the
    /// mover's powers before the move, `victim` the captured piece's.
    fn emit(&self, out: &mut Vec<OMove>, base: OMove, victim: Option<u8>, pawn_promotion: bool) {
        let mover = base.result;
        let back_rank = rank(base.to) == last_rank(self.white_to_move);
        // PA5: a pawn move onto the last rank, or a King that holds the Pawn
        // power after the move (absorbing first) ending on the enemy's back
        // rank, has the Pawn power replaced by the chosen power.
        let finish = |set: u8| -> Vec<(Option<char>, u8)> {
            let king_promotes = set & KING != 0 && set & PAWN != 0 && back_rank;
            if pawn_promotion || king_promotes {
                CHOICES.iter().map(|&(c, power)| (Some(c), (set & !PAWN) | power)).collect()
            } else {
                vec![(None, set)]
            }
        };
        let push = |out: &mut Vec<OMove>, (choice, result): (Option<char>, u8), decline: bool| {
            let mut token = format!("{}{}", square_name(base.from), square_name(base.to));
            token.extend(choice);
            if decline {
                token.push('-');
            }
            out.push(OMove { result, token, ..base.clone() });
        };
        // PA7: the mover's side's handicap limits what it takes.
        let handicap = self.handicap[usize::from(!self.white_to_move)];
        let absorbing = finish(match victim {
            Some(v) if self.absorb => mover | handicap.absorbs(v),
            _ => mover,
        });
        for &a in &absorbing {
            push(out, a, false);
        }
        // PA7: "A declining move exists only where absorbing was possible."
        if !self.absorb || victim.is_none_or(|v| handicap.absorbs(v) == 0) {
            return;
        }
        // PA3 / POWERS.md: declining is a move of its own only where it leaves
        // a different piece (compared choice by choice when promoting).
        let declining = finish(mover);
        if declining.len() == absorbing.len() {
            for (&d, a) in declining.iter().zip(&absorbing) {
                if d.1 != a.1 {
                    push(out, d, true);
                }
            }
        } else {
            // A King gaining the Pawn power by a capture on the back rank:
            // absorbing promotes, declining does not, so they always differ.
            for d in declining {
                push(out, d, true);
            }
        }
    }

    fn play(&mut self, m: &OMove) {
        let piece = self.board[m.from].take().expect("a piece on the origin square");
        match m.kind {
            Kind::Normal => {}
            Kind::EnPassant { victim } => self.board[victim] = None,
            Kind::Castle { rook_from, rook_to } => self.board[rook_to] = self.board[rook_from].take(),
        }
        self.board[m.to] = Some(OPiece { white: piece.white, powers: m.result });
        // PA1: rights go when the King or the rook leaves home, or something
        // lands on the rook's square.
        for sq in [m.from, m.to] {
            match sq {
                4 => self.castling[..2].fill(false),
                7 => self.castling[0] = false,
                0 => self.castling[1] = false,
                60 => self.castling[2..].fill(false),
                63 => self.castling[2] = false,
                56 => self.castling[3] = false,
                _ => {}
            }
        }
        self.ep = if m.double_step { offset(m.to, 0, -forward(piece.white)) } else { None };
        self.halfmove = if m.capture || m.pawn_move { 0 } else { self.halfmove + 1 };
        if !self.white_to_move {
            self.fullmove += 1;
        }
        self.white_to_move = !self.white_to_move;
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.legal_moves()
            .iter()
            .map(|m| {
                let mut next = self.clone();
                next.play(m);
                next.perft(depth - 1)
            })
            .sum()
    }
}

// ----------------------------------------------------------------- harness

fn variant(id: &str) -> &'static Variant {
    Variant::by_id(id).unwrap_or_else(|| panic!("variant {id:?} is not defined (yet)"))
}

/// Loads `fen` into both; both must write it back unchanged (FENs given
/// here are in canonical form).
fn load(v: &'static Variant, fen: &str, absorb: bool) -> (Position, Oracle) {
    let pos = Position::from_fen(v, fen).unwrap_or_else(|e| panic!("engine rejects {fen}: {e:?}"));
    let oracle = Oracle::from_fen(fen, absorb).unwrap_or_else(|e| panic!("oracle rejects {fen}: {e}"));
    assert_eq!(pos.fen(), fen, "engine writes the FEN back differently");
    assert_eq!(oracle.fen(), fen, "oracle writes the FEN back differently");
    let side = oracle.white_to_move;
    assert!(oracle.king_square(true).is_some() && oracle.king_square(false).is_some(), "{fen}: a King is missing");
    assert!(!oracle.in_check(!side), "{fen}: the side not to move is in check");
    (pos, oracle)
}

fn engine_tokens(pos: &Position) -> Vec<String> {
    let mut tokens: Vec<String> = pos.legal_moves().iter().map(|m| pos.canonical(m)).collect();
    tokens.sort();
    tokens
}

fn oracle_tokens(moves: &[OMove]) -> Vec<String> {
    let mut tokens: Vec<String> = moves.iter().map(|m| m.token.clone()).collect();
    tokens.sort();
    tokens
}

/// Panics with the FEN and both set differences unless the lists are equal.
fn assert_same_moves(context: &str, fen: &str, oracle: &[String], engine: &[String]) {
    if oracle == engine {
        return;
    }
    let o: BTreeSet<&String> = oracle.iter().collect();
    let e: BTreeSet<&String> = engine.iter().collect();
    let only_oracle: Vec<&&String> = o.difference(&e).collect();
    let only_engine: Vec<&&String> = e.difference(&o).collect();
    panic!(
        "{context}: legal moves differ\n  fen: {fen}\n  only in the oracle: {only_oracle:?}\n  only in the engine: \
         {only_engine:?}\n  (oracle {} moves, engine {} moves; equal sets mean a duplicated token)",
        oracle.len(),
        engine.len()
    );
}

/// Plays the oracle's move `m` in both, and compares the FENs afterwards.
fn play_both(pos: &mut Position, oracle: &mut Oracle, m: &OMove, context: &str) {
    let before = oracle.fen();
    let engine_move = pos
        .legal_moves()
        .into_iter()
        .find(|em| pos.canonical(em) == m.token)
        .unwrap_or_else(|| panic!("{context}: engine has no move {} in {before}", m.token));
    pos.play_unchecked(engine_move);
    oracle.play(m);
    let (o, e) = (oracle.fen(), pos.fen());
    assert_eq!(o, e, "{context}: FENs differ after {} from {before}\n  oracle: {o}\n  engine: {e}", m.token);
}

/// Picks a random move, a capture with probability `capture_bias` when there
/// is one (so that compound pieces appear early).
fn pick<'a>(rng: &mut fastrand::Rng, moves: &'a [OMove], capture_bias: f64) -> &'a OMove {
    let captures: Vec<&OMove> = moves.iter().filter(|m| m.capture).collect();
    if !captures.is_empty() && rng.f64() < capture_bias {
        captures[rng.usize(..captures.len())]
    } else {
        &moves[rng.usize(..moves.len())]
    }
}

/// Plays one random game from the loaded position, comparing at every ply.
fn random_game(
    (mut pos, mut oracle): (Position, Oracle),
    rng: &mut fastrand::Rng,
    capture_bias: f64,
    max_plies: usize,
    label: &str,
    coverage: &mut Coverage,
) {
    let start = oracle.fen();
    let mut played: Vec<String> = Vec::new();
    for ply in 0..max_plies {
        let context = format!("{label}, ply {ply} (from {start} after [{}])", played.join(" "));
        let moves = oracle.legal_moves();
        assert_same_moves(&context, &oracle.fen(), &oracle_tokens(&moves), &engine_tokens(&pos));
        coverage.add(&oracle, &moves);
        if moves.is_empty() {
            return;
        }
        let m = pick(rng, &moves, capture_bias);
        play_both(&mut pos, &mut oracle, m, &context);
        played.push(m.token.clone());
    }
}

/// Compares every position of the move tree down to `depth` plies.
fn compare_tree(
    pos: &Position,
    oracle: &Oracle,
    depth: u32,
    path: &mut Vec<String>,
    label: &str,
    coverage: &mut Coverage,
) {
    let context = format!("{label}, tree path [{}]", path.join(" "));
    let moves = oracle.legal_moves();
    assert_same_moves(&context, &oracle.fen(), &oracle_tokens(&moves), &engine_tokens(pos));
    coverage.add(oracle, &moves);
    if depth == 0 {
        return;
    }
    for m in &moves {
        let (mut p, mut o) = (pos.clone(), oracle.clone());
        play_both(&mut p, &mut o, m, &context);
        path.push(m.token.clone());
        compare_tree(&p, &o, depth - 1, path, label, coverage);
        path.pop();
    }
}

/// What the compared move lists contained, to show the rare rules were
/// exercised.
#[derive(Default)]
struct Coverage {
    positions: usize,
    moves: usize,
    declines: usize,
    promotions: usize,
    king_promotions: usize,
    en_passant: usize,
    castles: usize,
    king_slides: usize,
    /// Positions where the side to move is in check from the enemy King alone.
    king_checks: usize,
    /// Positions where a sliding King's line to the enemy King is shielded (PA6).
    shielded: usize,
}

impl Coverage {
    fn add(&mut self, oracle: &Oracle, moves: &[OMove]) {
        let us = oracle.white_to_move;
        self.positions += 1;
        self.moves += moves.len();
        if let Some(k) = oracle.king_square(us) {
            let check = oracle.attacked(k, !us, Kings::Check);
            self.king_checks += usize::from(check && !oracle.attacked(k, !us, Kings::Ignored));
            self.shielded += usize::from(!check && oracle.attacked(k, !us, Kings::Unrestricted));
        }
        for m in moves {
            let royal = oracle.board[m.from].is_some_and(|p| p.royal());
            let promotes = m.token[4..].starts_with(['q', 'r', 'b', 'n']);
            self.declines += usize::from(m.token.ends_with('-'));
            self.promotions += usize::from(promotes && !royal);
            self.king_promotions += usize::from(promotes && royal);
            self.en_passant += usize::from(matches!(m.kind, Kind::EnPassant { .. }));
            self.castles += usize::from(matches!(m.kind, Kind::Castle { .. }));
            let (df, dr) = ((file(m.to) - file(m.from)).abs(), (rank(m.to) - rank(m.from)).abs());
            let slide = df.max(dr) > 1 && (df == 0 || dr == 0 || df == dr);
            self.king_slides += usize::from(royal && slide && !matches!(m.kind, Kind::Castle { .. }));
        }
    }
}

impl std::fmt::Display for Coverage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} positions compared, {} moves listed: {} declines, {} promotions, {} King promotions, {} en passant, {} \
             castlings, {} King slides; {} checks by a King, {} shielded King lines",
            self.positions,
            self.moves,
            self.declines,
            self.promotions,
            self.king_promotions,
            self.en_passant,
            self.castles,
            self.king_slides,
            self.king_checks,
            self.shielded
        )
    }
}

// ------------------------------------------------------------------- tests

/// The oracle with absorption off against the crate's chess, to trust the
/// oracle itself; plus well-known chess perft numbers.
#[test]
fn oracle_matches_chess() {
    let chess = variant("chess");
    assert_eq!(Position::new(chess).fen(), START_FEN);
    let known = [
        (START_FEN, 3, 8_902),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2, 2_039),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43_238),
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 9_467),
    ];
    for (fen, depth, leaves) in known {
        assert_eq!(Oracle::from_fen(fen, false).unwrap().perft(depth), leaves, "oracle chess perft({depth}) of {fen}");
    }

    let mut rng = fastrand::Rng::with_seed(0x0A11_CE55);
    let games = 100;
    let mut coverage = Coverage::default();
    for game in 0..games {
        let label = format!("chess game {game}");
        random_game(load(chess, START_FEN, false), &mut rng, 0.4, 150, &label, &mut coverage);
    }
    eprintln!("oracle_matches_chess: {games} games, {coverage}");
}

#[test]
fn absorption_random_games() {
    let absorption = variant("absorption");
    assert_eq!(Position::new(absorption).fen(), START_FEN);
    let mut rng = fastrand::Rng::with_seed(0x00AB_504B);
    let games = 3000;
    let mut coverage = Coverage::default();
    for game in 0..games {
        let label = format!("absorption game {game}");
        random_game(load(absorption, START_FEN, true), &mut rng, 0.6, 200, &label, &mut coverage);
    }
    eprintln!("absorption_random_games: {games} games, {coverage}");
}

/// Hand-made positions for the rare rules; each is legal (the side not to
/// move is not in check) and written canonically.
const COMPOUND_FENS: [&str; 9] = [
    // PA6: a King-Queen facing a King-Bishop on the d-file; the rook on h4
    // and the pawn on c7 shield the file, so Black is not in check.
    "3(kb)4/2p5/8/8/7r/8/1P3N2/3(KQ)4 w - - 0 40",
    // PA6: on the c6-f3 diagonal the Black King-Bishop checks the White
    // King-Queen (nothing White attacks d5 or e4), while the pawn on e6
    // shields d5, so the King-Queen does not check back.
    "7r/8/2(kb)1p3/8/8/5(KQ)2/8/R7 w - - 0 40",
    // PA5: a King-Pawn one step from the back rank with a knight to take
    // there; a Black King-Pawn near rank 1.
    "3n4/4(KP)3/8/8/8/8/2(kp)5/R7 w - - 0 50",
    // PA4: the knight-pawn on d2 and the pawn on f2 can double-step past the
    // bishop-pawn on e4 (en passant, absorbing); the knight-pawn on c7 past
    // the bishop-pawn on d5.
    "4k3/2(np)5/8/3(BP)4/4(bp)3/8/3(NP)1P2/4K3 w - - 0 30",
    // PA4/PA5: a rook-pawn on b7 promotes by stepping to b8 or by taking on
    // a8 or c8 (absorbing or declining); Black may still castle long.
    "r1bnk3/1(RP)6/8/8/8/8/8/4K3 w q - 0 45",
    // PA1/PA6: castling while a Black King-Rook eyes f1 down the f-file; the
    // knight on h3 attacks f2, which shields f1 from it.
    "5(kr)2/8/8/8/8/7N/8/R3K2R w KQ - 0 1",
    // PA1/PA6: Black castling short puts the King on g8, on the White
    // King-Bishop's open diagonal; the rook arriving on f8 attacks f7, which
    // shields g8 from it, so after the move Black is not in check and the
    // oracle allows e8g8 (the destination is judged after the move).
    "r3k2r/8/8/8/8/1(KB)6/8/R7 b kq - 0 27",
    // PA1: castling both ways for both sides in a middle game.
    "r3k2r/pppq1ppp/2n2n2/3p4/1b1P4/2N1BN2/PPPQ1PPP/R3K2R w KQkq - 4 10",
    // Compound pieces everywhere: a queen-pawn, a bishop-knight, a
    // knight-pawn; castling rights on both sides.
    "r1b1k2r/pp(np)2ppp/2n5/3(QP)4/1(bn)6/2N5/PPP2PPP/R1B1K2R w KQkq - 0 10",
];

#[test]
fn absorption_random_games_from_compound_positions() {
    let absorption = variant("absorption");
    let mut rng = fastrand::Rng::with_seed(0x00C0_4B0D);
    let games_per_fen = 250;
    let mut coverage = Coverage::default();
    for (i, fen) in COMPOUND_FENS.iter().enumerate() {
        let (pos, oracle) = load(absorption, fen, true);
        compare_tree(&pos, &oracle, 2, &mut Vec::new(), &format!("position {i}"), &mut coverage);
        for game in 0..games_per_fen {
            let label = format!("position {i}, game {game}");
            random_game(load(absorption, fen, true), &mut rng, 0.5, 60, &label, &mut coverage);
        }
    }
    eprintln!(
        "absorption_random_games_from_compound_positions: {} start positions (trees to depth 2 and {games_per_fen} \
         games each), {coverage}",
        COMPOUND_FENS.len()
    );
}

#[test]
fn oracle_perft_small() {
    let absorption = variant("absorption");
    let pos = Position::new(absorption);
    let oracle = Oracle::from_fen(START_FEN, true).unwrap();
    for depth in 1..=3 {
        assert_eq!(oracle.perft(depth), perft(&pos, depth), "absorption perft({depth}) from the start");
    }
}

/// The perft table in `tests/data/absorption.perft` (counted by the engine): every
/// entry up to 300,000 nodes recounted by this generator.
#[test]
fn oracle_confirms_perft_table() {
    let mut checked = 0;
    for case in common::perft_table("absorption").iter().filter(|c| c.nodes <= 300_000) {
        let oracle = Oracle::from_fen(&case.fen, true).unwrap_or_else(|e| panic!("{}: {e}", case.fen));
        assert_eq!(oracle.perft(case.depth), case.nodes, "{} depth {}", case.fen, case.depth);
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} entries checked");
}

// ---------------------------------------------------------- PA7 handicaps

/// PA7's handicaps as the FEN field writes them, per side and for both.
const HANDICAPS: [&str; 11] = [
    "h:W=plain",
    "h:W=nopawn",
    "h:W=noqueen",
    "h:W=nopawn+noqueen",
    "h:B=plain",
    "h:B=nopawn",
    "h:B=noqueen",
    "h:B=nopawn+noqueen",
    "h:W=plain,B=nopawn",
    "h:W=nopawn+noqueen,B=noqueen",
    "h:W=plain,B=plain",
];

/// Random games from the start under each handicap in `fields`, both
/// generators compared at every ply; afterwards, a side whose handicap is
/// `plain` must have kept ordinary chess pieces all game long, which the
/// comparison of FENs alone would not show if both were wrong alike.
fn handicap_games(fields: &[&str], games: usize, seed: u64) {
    let absorption = variant("absorption");
    let mut rng = fastrand::Rng::with_seed(seed);
    for field in fields {
        let fen = format!("{START_FEN} {field}");
        let mut coverage = Coverage::default();
        for game in 0..games {
            let label = format!("{field} game {game}");
            random_game(load(absorption, &fen, true), &mut rng, 0.6, 200, &label, &mut coverage);
        }
        assert!(coverage.moves > 0);
        eprintln!("PA7 {field}: {games} games, {coverage}");
    }
}

#[test]
fn pa7_white_handicaps_random_games() {
    handicap_games(&HANDICAPS[..4], 1000, 0x0050_A7A1);
}

#[test]
fn pa7_black_handicaps_random_games() {
    handicap_games(&HANDICAPS[4..8], 1000, 0x0050_A7B1);
}

#[test]
fn pa7_both_sides_random_games() {
    handicap_games(&HANDICAPS[8..], 1000, 0x0050_A7C1);
}

/// PA7 from the hand-made compound positions: every handicap, trees to depth
/// 2 and random games, so captures of queen-knights, knight-pawns and
/// promotions with captures meet each handicap.
#[test]
fn pa7_handicaps_from_compound_positions() {
    let absorption = variant("absorption");
    let mut rng = fastrand::Rng::with_seed(0x0050_A7D1);
    let mut coverage = Coverage::default();
    for field in HANDICAPS {
        for (i, fen) in COMPOUND_FENS.iter().enumerate() {
            let fen = format!("{fen} {field}");
            let (pos, oracle) = load(absorption, &fen, true);
            compare_tree(&pos, &oracle, 2, &mut Vec::new(), &format!("{field} position {i}"), &mut coverage);
            for game in 0..40 {
                let label = format!("{field} position {i}, game {game}");
                random_game(load(absorption, &fen, true), &mut rng, 0.5, 60, &label, &mut coverage);
            }
        }
    }
    eprintln!("pa7_handicaps_from_compound_positions: {coverage}");
}

/// A side playing `plain` (PA7) keeps ordinary chess pieces and never has a
/// declining move, in random games of the oracle alone.
#[test]
fn pa7_plain_side_keeps_chess_pieces() {
    let mut rng = fastrand::Rng::with_seed(0x0050_A7E1);
    let chess_sets = [KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN];
    let mut captures = 0;
    for _ in 0..300 {
        let mut o = Oracle::from_fen(&format!("{START_FEN} h:W=plain"), true).unwrap();
        for _ in 0..150 {
            let moves = o.legal_moves();
            if moves.is_empty() {
                break;
            }
            if o.white_to_move {
                assert!(moves.iter().all(|m| !m.token.ends_with('-')), "a plain side declines in {}", o.fen());
            }
            let m = pick(&mut rng, &moves, 0.7).clone();
            captures += usize::from(m.capture && o.white_to_move);
            o.play(&m);
            for p in o.board.iter().flatten().filter(|p| p.white) {
                assert!(chess_sets.contains(&p.powers), "White plain holds {} in {}", p.text(), o.fen());
            }
        }
    }
    assert!(captures > 1000, "only {captures} captures by the plain side");
}

/// Perft tables for PA7 in `tests/data/absorption-handicap.perft` (counted by
/// the engine): every entry up to 300,000 nodes recounted by this generator.
#[test]
fn oracle_confirms_handicap_perft_table() {
    let mut checked = 0;
    for case in common::perft_table("absorption-handicap").iter().filter(|c| c.nodes <= 300_000) {
        let oracle = Oracle::from_fen(&case.fen, true).unwrap_or_else(|e| panic!("{}: {e}", case.fen));
        assert_eq!(oracle.perft(case.depth), case.nodes, "{} depth {}", case.fen, case.depth);
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} entries checked");
}
