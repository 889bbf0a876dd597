//! Differential tests for one round of Chess: The Clash of the Armies (`clash`).
//!
//! [`Oracle`] is a second, deliberately simple move generator written only
//! from the rule texts (`shared/variants/clash-of-the-armies.txt`, RULINGS
//! sections G and CA1-CA9) and this crate's `CLASH.md` (letters, FEN, move
//! tokens, decisions). It shares no code with the crate: a plain 8x8 array of
//! pieces, its own FEN reader and writer, naive ray walking for every piece,
//! Rabbit chains by depth-first search, and legality by make-and-test (after
//! the move the mover's leader must not be capturable by any enemy move,
//! chains and shots included, unless it is invulnerable). The engine is driven
//! only through its public API (`Variant::by_id`, `Position::from_fen`,
//! `legal_moves`, `canonical`, `play_unchecked`, `fen`).
//!
//! Points that neither the rulings nor CLASH.md settle, decided here so that a
//! difference shows up as a failing test to be ruled on, not as a silent
//! guess:
//!
//! - CA2: the square a Rabbit started from is empty once it has left, so a
//!   chain may land there once and end where it began; jumped pieces stay
//!   (and block) until the move ends.
//! - A chain may not jump an invulnerable enemy piece (CA9: jumping would
//!   capture it), not even off the board.
//! - An Omnipawn's diagonal step onto the en passant square is the en passant
//!   capture: one move, one token.
//! - The en passant square is written when an enemy Pawn or Omnipawn stands
//!   where it would capture from (even if pinned) and the double-stepped
//!   peasant is not invulnerable.
//! - A peasant promoting to a Rogue is not marked invulnerable: the move was
//!   not a Rogue's.
//! - Castling: the square the King passes and the square it lands on are
//!   probed with the King standing there and the Heavy piece still in its
//!   corner (FIDE 3.8.2), then the position after castling is tested like any
//!   other.
//! - The castling field is written side by side: `K`, `Q`, White's shield,
//!   `k`, `q`, Black's shield (CLASH.md's example `Dk`).

mod common;

use std::collections::BTreeSet;
use std::time::Instant;

use kibitz_rules::{Position, Variant, perft};

// ------------------------------------------------------------------ squares

/// `rank * 8 + file`: a1 = 0, h1 = 7, a8 = 56, h8 = 63.
type Sq = usize;

const ORTHOGONAL: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const EIGHT: [(i32, i32); 8] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_LEAPS: [(i32, i32); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];

/// CA1: a peasant promotes to any Light, Heavy or Jewel piece but the Amazon.
const PROMOTIONS: &str = "NBTEWRHGYMQCAJVF";
const LIGHT: &str = "NBTEW";
const HEAVY: &str = "RHGYM";
const JEWELS: &str = "QCAJVFZ";

/// The longest chain CLASH.md allows, in jumps.
const MAX_JUMPS: usize = 16;

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

fn bit(sq: Sq) -> u64 {
    1 << sq
}

fn squares(mut mask: u64) -> impl Iterator<Item = Sq> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let sq = mask.trailing_zeros() as Sq;
            mask &= mask - 1;
            sq
        })
    })
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

fn forward(white: bool) -> i32 {
    if white { 1 } else { -1 }
}

fn side(white: bool) -> usize {
    if white { 0 } else { 1 }
}

// ------------------------------------------------------------------- pieces

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct OPiece {
    /// CLASH.md's uppercase letter.
    kind: char,
    white: bool,
    /// CA6: a Rogue invulnerable after its quiet move (`V*`).
    marked: bool,
}

impl OPiece {
    fn is_leader(self) -> bool {
        matches!(self.kind, 'K' | 'S')
    }

    fn is_peasant(self) -> bool {
        matches!(self.kind, 'P' | 'O')
    }

    fn is_heavy(self) -> bool {
        HEAVY.contains(self.kind)
    }

    fn text(self) -> String {
        let letter = if self.white { self.kind } else { self.kind.to_ascii_lowercase() };
        if self.marked { format!("{letter}*") } else { letter.to_string() }
    }
}

/// CA8 / CLASH.md: a Shielderer's shield.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shield {
    /// Still to be used (`D`).
    Ready,
    /// Up; how many times its owner's turn will still begin before it drops.
    Up(u8),
    /// Used, or no Shielderer.
    Gone,
}

// -------------------------------------------------------------------- moves

#[derive(Clone, Debug)]
enum Act {
    /// A move or capture by landing; en passant names the victim's square.
    Step { from: Sq, to: Sq, promote: Option<char>, en_passant: Option<Sq> },
    /// CA8: the King and a Heavy piece from its corner.
    Castle { from: Sq, to: Sq, heavy_from: Sq, heavy_to: Sq },
    /// CA2: landing squares in order, the pieces jumped (either colour), and
    /// the edge victim when the Rabbit leaves the board.
    Chain { from: Sq, landings: Vec<Sq>, jumped: Vec<Sq>, exit: Option<Sq> },
    /// CA4: the War Machine removes `target` without moving.
    Shot { from: Sq, target: Sq },
    /// CA8: `D`.
    Shield,
}

#[derive(Clone, Debug)]
struct OMove {
    act: Act,
    token: String,
}

// ------------------------------------------------------------------- oracle

#[derive(Clone)]
struct Oracle {
    board: [Option<OPiece>; 64],
    white_to_move: bool,
    /// White short (`K`), White long (`Q`), Black short, Black long.
    castling: [bool; 4],
    /// White's, Black's.
    shield: [Shield; 2],
    /// Only set when written (see the module doc).
    ep: Option<Sq>,
    halfmove: u32,
    fullmove: u32,
}

impl Oracle {
    fn from_fen(fen: &str) -> Result<Oracle, String> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let &[placement, turn, rights, ep, halfmove, fullmove] = fields.as_slice() else {
            return Err(format!("expected 6 fields in {fen:?}"));
        };
        let mut board = [None; 64];
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 8 {
            return Err(format!("expected 8 ranks in {fen:?}"));
        }
        for (i, text) in ranks.iter().enumerate() {
            let r = 7 - i;
            let mut f = 0;
            let mut chars = text.chars().peekable();
            while let Some(c) = chars.next() {
                if let Some(d) = c.to_digit(10) {
                    f += d as usize;
                    continue;
                }
                let kind = c.to_ascii_uppercase();
                if !"PONBTEWRHGYMQCAJVFZKS".contains(kind) || f >= 8 {
                    return Err(format!("bad piece {c:?} or rank {} too long in {fen:?}", r + 1));
                }
                let marked = chars.next_if_eq(&'*').is_some();
                if marked && kind != 'V' {
                    return Err(format!("only a Rogue is marked, in {fen:?}"));
                }
                board[r * 8 + f] = Some(OPiece { kind, white: c.is_ascii_uppercase(), marked });
                f += 1;
            }
            if f != 8 {
                return Err(format!("rank {} has {f} files in {fen:?}", r + 1));
            }
        }
        let white_to_move = match turn {
            "w" => true,
            "b" => false,
            _ => return Err(format!("bad side {turn:?}")),
        };
        let mut castling = [false; 4];
        let mut shield = [Shield::Gone; 2];
        if rights != "-" {
            let mut chars = rights.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    'K' => castling[0] = true,
                    'Q' => castling[1] = true,
                    'k' => castling[2] = true,
                    'q' => castling[3] = true,
                    'D' | 'd' => {
                        let state = match chars.next_if(|d| ('1'..='3').contains(d)) {
                            Some(d) => Shield::Up(d as u8 - b'0'),
                            None => Shield::Ready,
                        };
                        shield[side(c == 'D')] = state;
                    }
                    _ => return Err(format!("bad castling field {rights:?}")),
                }
            }
        }
        let ep = if ep == "-" { None } else { Some(parse_square(ep).ok_or_else(|| format!("bad ep {ep:?}"))?) };
        Ok(Oracle {
            board,
            white_to_move,
            castling,
            shield,
            ep,
            halfmove: halfmove.parse().map_err(|_| format!("bad halfmove {halfmove:?}"))?,
            fullmove: fullmove.parse().map_err(|_| format!("bad fullmove {fullmove:?}"))?,
        })
    }

    fn fen(&self) -> String {
        let mut s = common::placement(|sq| self.board[sq].map(|p| p.text()));
        s += if self.white_to_move { " w " } else { " b " };
        let mut rights = String::new();
        for (white, k, q, d) in [(true, 'K', 'Q', 'D'), (false, 'k', 'q', 'd')] {
            let i = 2 * side(white);
            if self.castling[i] {
                rights.push(k);
            }
            if self.castling[i + 1] {
                rights.push(q);
            }
            match self.shield[side(white)] {
                Shield::Ready => rights.push(d),
                Shield::Up(n) => rights += &format!("{d}{n}"),
                Shield::Gone => {}
            }
        }
        s += if rights.is_empty() { "-" } else { &rights };
        match self.ep {
            Some(ep) => s += &format!(" {}", square_name(ep)),
            None => s += " -",
        }
        s += &format!(" {} {}", self.halfmove, self.fullmove);
        s
    }

    fn occupied(&self, sq: Sq) -> bool {
        self.board[sq].is_some()
    }

    fn find(&self, white: bool, kinds: &str) -> Option<Sq> {
        (0..64).find(|&sq| self.board[sq].is_some_and(|p| p.white == white && kinds.contains(p.kind)))
    }

    fn leader(&self, white: bool) -> Option<Sq> {
        self.find(white, "KS")
    }

    /// CA6, CA8, CA9: a marked Rogue; while the shield is up, the Shielderer
    /// and every friendly piece orthogonally next to it.
    fn invulnerable(&self, sq: Sq) -> bool {
        let Some(p) = self.board[sq] else { return false };
        if p.marked {
            return true;
        }
        if !matches!(self.shield[side(p.white)], Shield::Up(_)) {
            return false;
        }
        let Some(s) = self.find(p.white, "S") else { return false };
        s == sq || ORTHOGONAL.iter().any(|&(df, dr)| offset(sq, df, dr) == Some(s))
    }

    /// Whether `mover` may capture whatever stands on `target` (by landing,
    /// shooting or jumping).
    fn can_capture(&self, mover: OPiece, target: Sq) -> bool {
        self.board[target].is_some_and(|t| {
            t.white != mover.white && !self.invulnerable(target) && !(mover.is_leader() && t.kind == 'F')
        })
    }

    /// Squares a piece (not a peasant, not a Rabbit) moves to or captures on,
    /// by walking its rays: a slide stops on the first occupied square, a leap
    /// ignores what is between.
    fn reach(&self, from: Sq) -> u64 {
        let p = self.board[from].expect("a piece");
        let mut mask = 0;
        let mut leap = |dirs: &[(i32, i32)], distance: i32| {
            for &(df, dr) in dirs {
                if let Some(t) = offset(from, df * distance, dr * distance) {
                    mask |= bit(t);
                }
            }
        };
        match p.kind {
            'N' => leap(&KNIGHT_LEAPS, 1),
            'E' | 'W' | 'S' => leap(&ORTHOGONAL, 1),
            'K' => leap(&EIGHT, 1),
            'G' => {
                leap(&EIGHT, 1);
                leap(&KNIGHT_LEAPS, 1);
            }
            'H' => {
                leap(&EIGHT, 2);
                leap(&EIGHT, 3);
            }
            'Y' => {
                for distance in 1..=3 {
                    leap(&ORTHOGONAL, distance);
                }
            }
            'M' => leap(&DIAGONAL, 1),
            'C' | 'A' | 'Z' => leap(&KNIGHT_LEAPS, 1),
            _ => {}
        }
        if p.kind == 'W' {
            leap(&DIAGONAL, 2);
        }
        let slides: &[(&[(i32, i32)], i32)] = match p.kind {
            'B' | 'E' | 'A' => &[(&DIAGONAL, 7)],
            'R' | 'C' => &[(&ORTHOGONAL, 7)],
            'Q' | 'Z' => &[(&EIGHT, 7)],
            'M' => &[(&ORTHOGONAL, 2)],
            'V' => &[(&EIGHT, 2)],
            'F' => &[(&EIGHT, 4)],
            _ => &[],
        };
        for &(dirs, max) in slides {
            for &(df, dr) in dirs {
                let mut t = from;
                for _ in 0..max {
                    let Some(next) = offset(t, df, dr) else { break };
                    t = next;
                    mask |= bit(t);
                    if self.occupied(t) {
                        break;
                    }
                }
            }
        }
        if p.kind == 'J' {
            mask |= self.jester_reach(from);
        }
        mask
    }

    /// CA5: paths of one to three orthogonal steps, every square passed empty.
    fn jester_reach(&self, from: Sq) -> u64 {
        let (mut frontier, mut passed, mut reach) = (bit(from), 0u64, 0u64);
        for _ in 0..3 {
            let mut next = 0;
            for s in squares(frontier) {
                for (df, dr) in ORTHOGONAL {
                    let Some(t) = offset(s, df, dr) else { continue };
                    if t == from {
                        continue;
                    }
                    if self.occupied(t) {
                        reach |= bit(t);
                    } else if passed & bit(t) == 0 {
                        passed |= bit(t);
                        next |= bit(t);
                    }
                }
            }
            frontier = next;
        }
        reach | passed
    }

    /// CA1: where a peasant captures.
    fn peasant_attacks(&self, from: Sq) -> u64 {
        let p = self.board[from].expect("a peasant");
        let files: &[i32] = if p.kind == 'O' { &[-1, 0, 1] } else { &[-1, 1] };
        files.iter().filter_map(|&df| offset(from, df, forward(p.white))).fold(0, |m, t| m | bit(t))
    }

    /// The piece a Rabbit on `cur` (which started on `origin`) could jump in
    /// direction `(df, dr)`: one or two squares away with nothing between,
    /// not jumped before; with the square beyond it (`None`: off the board).
    fn jump(&self, origin: Sq, cur: Sq, (df, dr): (i32, i32), jumped: &[Sq]) -> Option<(Sq, Option<Sq>)> {
        let occupied = |s: Sq| s != origin && self.occupied(s);
        let s1 = offset(cur, df, dr)?;
        let victim = if occupied(s1) {
            s1
        } else {
            let s2 = offset(s1, df, dr)?;
            if !occupied(s2) {
                return None;
            }
            s2
        };
        (!jumped.contains(&victim)).then(|| (victim, offset(victim, df, dr)))
    }

    /// Whether a chain's Rabbit may land on `sq`.
    fn can_land(&self, origin: Sq, sq: Sq, landings: &[Sq]) -> bool {
        // CA2: the start square is empty once the Rabbit has left it.
        let empty = sq == origin || !self.occupied(sq);
        empty && !landings.contains(&sq)
    }

    /// CA2: every chain from the Rabbit on `origin`, now on `cur`.
    fn rabbit_chains(&self, origin: Sq, cur: Sq, landings: &mut Vec<Sq>, jumped: &mut Vec<Sq>, out: &mut Vec<OMove>) {
        // CLASH.md: a chain has at most 16 jumps.
        if jumped.len() >= MAX_JUMPS {
            return;
        }
        let rabbit = self.board[origin].expect("a Rabbit");
        let path = |landings: &[Sq]| -> String {
            std::iter::once(origin).chain(landings.iter().copied()).map(square_name).collect()
        };
        for dir in ORTHOGONAL {
            let Some((victim, beyond)) = self.jump(origin, cur, dir, jumped) else { continue };
            let enemy = self.board[victim].is_some_and(|v| v.white != rabbit.white);
            if enemy && !self.can_capture(rabbit, victim) {
                continue;
            }
            match beyond {
                None if enemy => {
                    let act = Act::Chain {
                        from: origin,
                        landings: landings.clone(),
                        jumped: jumped.clone(),
                        exit: Some(victim),
                    };
                    out.push(OMove { act, token: format!("{}{}x", path(landings), square_name(victim)) });
                }
                None => {}
                Some(b) if self.can_land(origin, b, landings) => {
                    landings.push(b);
                    jumped.push(victim);
                    let act =
                        Act::Chain { from: origin, landings: landings.clone(), jumped: jumped.clone(), exit: None };
                    out.push(OMove { act, token: path(landings) });
                    self.rabbit_chains(origin, b, landings, jumped, out);
                    landings.pop();
                    jumped.pop();
                }
                Some(_) => {}
            }
        }
    }

    /// CA2: every enemy piece some chain of the Rabbit on `origin` could jump
    /// (and so capture).
    fn rabbit_victims(&self, origin: Sq, cur: Sq, landings: &mut Vec<Sq>, jumped: &mut Vec<Sq>) -> u64 {
        if jumped.len() >= MAX_JUMPS {
            return 0;
        }
        let rabbit = self.board[origin].expect("a Rabbit");
        let mut victims = 0;
        for dir in ORTHOGONAL {
            let Some((victim, beyond)) = self.jump(origin, cur, dir, jumped) else { continue };
            let enemy = self.board[victim].is_some_and(|v| v.white != rabbit.white);
            if enemy && !self.can_capture(rabbit, victim) {
                continue;
            }
            match beyond {
                None if enemy => victims |= bit(victim),
                Some(b) if self.can_land(origin, b, landings) => {
                    if enemy {
                        victims |= bit(victim);
                    }
                    landings.push(b);
                    jumped.push(victim);
                    victims |= self.rabbit_victims(origin, b, landings, jumped);
                    landings.pop();
                    jumped.pop();
                }
                _ => {}
            }
        }
        victims
    }

    /// Squares on which the piece on `from` could capture an enemy piece.
    fn attacks(&self, from: Sq) -> u64 {
        match self.board[from].expect("a piece").kind {
            'P' | 'O' => self.peasant_attacks(from),
            'T' => self.rabbit_victims(from, from, &mut Vec::new(), &mut Vec::new()),
            _ => self.reach(from),
        }
    }

    /// CA9: the leader is capturable by an enemy move and not invulnerable.
    fn in_check(&self, white: bool) -> bool {
        let Some(leader) = self.leader(white) else { return false };
        if self.invulnerable(leader) {
            return false;
        }
        (0..64).any(|sq| self.board[sq].is_some_and(|p| p.white != white) && self.attacks(sq) & bit(leader) != 0)
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
        let us = self.white_to_move;
        let mut out = Vec::new();
        for from in 0..64 {
            let Some(p) = self.board[from].filter(|p| p.white == us) else { continue };
            match p.kind {
                'P' | 'O' => self.peasant_moves(from, p, &mut out),
                'T' => {
                    // CA2: a one- or two-square slide onto empty squares.
                    for (df, dr) in ORTHOGONAL {
                        let mut t = from;
                        for _ in 0..2 {
                            match offset(t, df, dr) {
                                Some(next) if !self.occupied(next) => {
                                    t = next;
                                    self.push_step(&mut out, from, t, None);
                                }
                                _ => break,
                            }
                        }
                    }
                    self.rabbit_chains(from, from, &mut Vec::new(), &mut Vec::new(), &mut out);
                }
                _ => {
                    for t in squares(self.reach(from)) {
                        if !self.occupied(t) {
                            self.push_step(&mut out, from, t, None);
                        } else if self.can_capture(p, t) {
                            self.push_step(&mut out, from, t, None);
                            if p.kind == 'M' {
                                let token = format!("{}^{}", square_name(from), square_name(t));
                                out.push(OMove { act: Act::Shot { from, target: t }, token });
                            }
                        }
                    }
                    if p.kind == 'K' {
                        self.castling_moves(from, &mut out);
                    }
                    if p.kind == 'S' && self.shield[side(us)] == Shield::Ready {
                        out.push(OMove { act: Act::Shield, token: "D".into() });
                    }
                }
            }
        }
        out
    }

    /// Pushes a step, or its promotions when a peasant reaches the last rank.
    fn push_step(&self, out: &mut Vec<OMove>, from: Sq, to: Sq, en_passant: Option<Sq>) {
        let p = self.board[from].expect("a piece");
        let base = format!("{}{}", square_name(from), square_name(to));
        if p.is_peasant() && rank(to) == if p.white { 7 } else { 0 } {
            for c in PROMOTIONS.chars() {
                let act = Act::Step { from, to, promote: Some(c), en_passant };
                out.push(OMove { act, token: format!("{base}{}", c.to_ascii_lowercase()) });
            }
        } else {
            out.push(OMove { act: Act::Step { from, to, promote: None, en_passant }, token: base });
        }
    }

    /// CA1: Pawn and Omnipawn.
    fn peasant_moves(&self, from: Sq, p: OPiece, out: &mut Vec<OMove>) {
        let fwd = forward(p.white);
        for df in -1..=1 {
            let Some(t) = offset(from, df, fwd) else { continue };
            let straight = df == 0;
            if self.occupied(t) {
                if (!straight || p.kind == 'O') && self.can_capture(p, t) {
                    self.push_step(out, from, t, None);
                }
                continue;
            }
            // En passant: the double-stepped peasant beside `from`.
            let victim = offset(from, df, 0).filter(|&v| {
                !straight
                    && self.ep == Some(t)
                    && self.board[v].is_some_and(|q| q.is_peasant() && q.white != p.white)
                    && self.can_capture(p, v)
            });
            if victim.is_some() || straight || p.kind == 'O' {
                self.push_step(out, from, t, victim);
            }
            if straight
                && rank(from) == if p.white { 1 } else { 6 }
                && let Some(t2) = offset(t, 0, fwd).filter(|&t2| !self.occupied(t2))
            {
                self.push_step(out, from, t2, None);
            }
        }
    }

    /// CA8: castling with a Heavy piece on its corner, under FIDE's
    /// conditions.
    fn castling_moves(&self, from: Sq, out: &mut Vec<OMove>) {
        let us = self.white_to_move;
        let home = if us { 0 } else { 56 };
        if from != home + 4 || self.in_check(us) {
            return;
        }
        let sides: [(usize, Sq, Sq, Sq, &[Sq]); 2] = [
            (2 * side(us), home + 7, home + 6, home + 5, &[home + 5, home + 6]),
            (2 * side(us) + 1, home, home + 2, home + 3, &[home + 1, home + 2, home + 3]),
        ];
        for (right, corner, to, heavy_to, between) in sides {
            let heavy = self.board[corner].is_some_and(|p| p.white == us && p.is_heavy());
            if !self.castling[right] || !heavy || between.iter().any(|&s| self.occupied(s)) {
                continue;
            }
            let attacked = [heavy_to, to].iter().any(|&sq| {
                let mut probe = self.clone();
                probe.board[sq] = probe.board[from].take();
                probe.in_check(us)
            });
            if !attacked {
                let token = format!("{}{}", square_name(from), square_name(to));
                out.push(OMove { act: Act::Castle { from, to, heavy_from: corner, heavy_to }, token });
            }
        }
    }

    fn play(&mut self, m: &OMove) {
        let us = self.white_to_move;
        let mut capture = false;
        let mut peasant_move = false;
        let mut passed: Option<Sq> = None;
        let mut moved: Vec<Sq> = Vec::new();
        match &m.act {
            &Act::Step { from, to, promote, en_passant } => {
                let mut piece = self.board[from].take().expect("a piece to move");
                moved.extend([from, to]);
                peasant_move = piece.is_peasant();
                let victim = self.board[en_passant.unwrap_or(to)].take();
                capture = victim.is_some();
                // CA6: a Rogue's move that captures nothing marks it.
                piece.marked = piece.kind == 'V' && !capture;
                if let Some(kind) = promote {
                    piece.kind = kind;
                }
                if peasant_move && (rank(to) - rank(from)).abs() == 2 {
                    passed = offset(from, 0, forward(us));
                }
                // CA7: the Phoenix's captor is removed too.
                if victim.is_none_or(|v| v.kind != 'F') {
                    self.board[to] = Some(piece);
                }
            }
            &Act::Castle { from, to, heavy_from, heavy_to } => {
                let king = self.board[from].take();
                let heavy = self.board[heavy_from].take();
                self.board[to] = king;
                self.board[heavy_to] = heavy;
                moved.extend([from, to, heavy_from, heavy_to]);
            }
            Act::Chain { from, landings, jumped, exit } => {
                let rabbit = self.board[*from].take().expect("a Rabbit");
                moved.push(*from);
                moved.extend(landings);
                let mut phoenix = false;
                // CA2: jumped enemies are captured when the move ends.
                for &v in jumped.iter().chain(exit) {
                    if let Some(victim) = self.board[v].filter(|v| v.white != us) {
                        phoenix |= victim.kind == 'F';
                        self.board[v] = None;
                        capture = true;
                    }
                }
                if exit.is_none() && !phoenix {
                    self.board[*landings.last().expect("a landing")] = Some(rabbit);
                }
            }
            &Act::Shot { from, target } => {
                let victim = self.board[target].take();
                capture = true;
                if victim.is_some_and(|v| v.kind == 'F') {
                    self.board[from] = None;
                }
            }
            Act::Shield => self.shield[side(us)] = Shield::Up(3),
        }
        // CA8: a right needs the unmoved King on e1 (e8) and an unmoved Heavy
        // piece on the corner; a shot is not a move (CA4).
        for (i, (home, corner, white)) in
            [(4, 7, true), (4, 0, true), (60, 63, false), (60, 56, false)].into_iter().enumerate()
        {
            let king = self.board[home].is_some_and(|p| p.kind == 'K' && p.white == white);
            let heavy = self.board[corner].is_some_and(|p| p.is_heavy() && p.white == white);
            if !king || !heavy || moved.contains(&home) || moved.contains(&corner) {
                self.castling[i] = false;
            }
        }
        self.halfmove = if capture || peasant_move { 0 } else { self.halfmove + 1 };
        if !us {
            self.fullmove += 1;
        }
        // The opponent's turn begins: its Rogue marks go, its shield counts
        // down (CLASH.md).
        let them = !us;
        self.white_to_move = them;
        for p in self.board.iter_mut().flatten() {
            if p.white == them {
                p.marked = false;
            }
        }
        self.shield[side(them)] = match self.shield[side(them)] {
            Shield::Up(n) if n > 1 => Shield::Up(n - 1),
            Shield::Up(_) => Shield::Gone,
            s => s,
        };
        self.ep = passed.filter(|&e| {
            let victim = offset(e, 0, forward(us)).expect("the double-stepped peasant");
            !self.invulnerable(victim)
                && [-1, 1].iter().any(|&df| {
                    offset(victim, df, 0).and_then(|s| self.board[s]).is_some_and(|q| q.white == them && q.is_peasant())
                })
        });
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

// -------------------------------------------------------------- self-checks

fn oracle(fen: &str) -> Oracle {
    let o = Oracle::from_fen(fen).unwrap_or_else(|e| panic!("oracle rejects {fen}: {e}"));
    assert_eq!(o.fen(), fen, "the oracle writes {fen} back differently");
    o
}

fn sorted(tokens: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = tokens.into_iter().collect();
    v.sort();
    v
}

/// The oracle's legal tokens starting with `prefix` must be exactly
/// `expected` (space-separated tokens, or with `prefix` a square, the
/// destinations).
fn expect_moves(fen: &str, prefix: &str, expected: &str) {
    let o = oracle(fen);
    let got = sorted(o.legal_moves().into_iter().map(|m| m.token).filter(|t| t.starts_with(prefix)));
    let want = sorted(
        expected
            .split_whitespace()
            .map(|t| if prefix.len() == 2 && t.len() == 2 { format!("{prefix}{t}") } else { t.to_string() }),
    );
    assert_sets(&format!("oracle self-check, moves {prefix:?}"), fen, &want, &got, "expected", "oracle");
}

/// Plays `token` in the oracle and checks the FEN after it.
fn expect_after(fen: &str, token: &str, after: &str) -> Oracle {
    let mut o = oracle(fen);
    let m = o.legal_moves().into_iter().find(|m| m.token == token);
    let m = m.unwrap_or_else(|| panic!("oracle self-check: no legal {token} in {fen}"));
    o.play(&m);
    assert_eq!(o.fen(), after, "oracle self-check: {token} from {fen}");
    o
}

/// Panics with the FEN and both set differences unless the lists are equal.
fn assert_sets(context: &str, fen: &str, a: &[String], b: &[String], a_name: &str, b_name: &str) {
    if a == b {
        return;
    }
    let sa: BTreeSet<&String> = a.iter().collect();
    let sb: BTreeSet<&String> = b.iter().collect();
    let only_a: Vec<&&String> = sa.difference(&sb).collect();
    let only_b: Vec<&&String> = sb.difference(&sa).collect();
    panic!(
        "{context}: legal moves differ\n  fen: {fen}\n  only in the {a_name}: {only_a:?}\n  only in the {b_name}: \
         {only_b:?}\n  ({a_name} {} moves, {b_name} {} moves; equal sets mean a duplicated token)",
        a.len(),
        b.len()
    );
}

const ROOK_D4: &str = "d1 d2 d3 d5 d6 d7 d8 a4 b4 c4 e4 f4 g4 h4";
const BISHOP_D4: &str = "e5 f6 g7 h8 c5 b6 a7 e3 f2 g1 c3 b2 a1";
const KNIGHT_D4: &str = "b3 b5 c2 c6 e2 e6 f3 f5";

#[test]
fn oracle_self_checks() {
    // Each piece alone on d4 (Kings on h2 and b8, out of every piece's way).
    let lone: [(char, String); 17] = [
        ('N', KNIGHT_D4.into()),
        ('B', BISHOP_D4.into()),
        ('E', format!("{BISHOP_D4} d5 d3 c4 e4")),
        ('W', "d5 d3 c4 e4 b2 b6 f2 f6".into()),
        ('T', "d5 d6 d3 d2 c4 b4 e4 f4".into()),
        ('R', ROOK_D4.into()),
        ('H', "b4 f4 d2 d6 a4 g4 d1 d7 b2 f2 b6 f6 a1 g1 a7 g7".into()),
        ('G', format!("c3 c4 c5 d3 d5 e3 e4 e5 {KNIGHT_D4}")),
        ('Y', "d5 d6 d7 d3 d2 d1 c4 b4 a4 e4 f4 g4".into()),
        ('M', "d5 d6 d3 d2 c4 b4 e4 f4 c5 e5 c3 e3".into()),
        ('Q', format!("{ROOK_D4} {BISHOP_D4}")),
        ('C', format!("{ROOK_D4} {KNIGHT_D4}")),
        ('A', format!("{BISHOP_D4} {KNIGHT_D4}")),
        ('Z', format!("{ROOK_D4} {BISHOP_D4} {KNIGHT_D4}")),
        ('J', "d5 d3 c4 e4 d6 d2 b4 f4 c5 e5 c3 e3 d7 d1 a4 g4 c6 e6 c2 e2 b5 f5 b3 f3".into()),
        ('V', "d5 d6 d3 d2 c4 b4 e4 f4 e5 f6 c5 b6 e3 f2 c3 b2".into()),
        ('F', "d5 d6 d7 d8 d3 d2 d1 e4 f4 g4 h4 c4 b4 a4 e5 f6 g7 h8 c5 b6 a7 e3 f2 g1 c3 b2 a1".into()),
    ];
    for (kind, destinations) in &lone {
        expect_moves(&format!("1k6/8/8/8/3{kind}4/8/7K/8 w - - 0 1"), "d4", destinations);
    }

    // Peasants (CA1): steps, the double step, the Omnipawn's forward capture.
    expect_moves("1k6/8/8/8/8/8/3P3K/8 w - - 0 1", "d2", "d3 d4");
    expect_moves("1k6/8/8/8/8/8/3O3K/8 w - - 0 1", "d2", "c3 d3 e3 d4");
    expect_moves("1k6/8/8/8/8/2ppp3/3O3K/8 w - - 0 1", "d2", "c3 d3 e3");
    expect_moves("1k6/8/8/8/8/2ppp3/3P3K/8 w - - 0 1", "d2", "c3 e3");
    // Promotion to any Light, Heavy or Jewel piece but the Amazon, also by
    // capturing.
    let promotions: Vec<String> =
        "nbtewrhgymqcajvf".chars().flat_map(|c| [format!("b7b8{c}"), format!("b7a8{c}")]).collect();
    expect_moves("r6k/1P6/8/8/8/8/8/7K w - - 0 1", "b7", &promotions.join(" "));
    expect_after("r6k/1P6/8/8/8/8/8/7K w - - 0 1", "b7a8t", "T6k/8/8/8/8/8/8/7K b - - 0 1");
    // En passant by an Omnipawn; none written when no one could take.
    let o = expect_after("4k3/3p4/8/4O3/8/8/8/4K3 b - - 0 1", "d7d5", "4k3/8/8/3pO3/8/8/8/4K3 w - d6 0 2");
    expect_moves(&o.fen(), "e5", "d6 e6 f6");
    expect_after(&o.fen(), "e5d6", "4k3/8/3O4/8/8/8/8/4K3 b - - 0 2");
    expect_after("4k3/3p4/8/8/8/8/8/4K3 b - - 0 1", "d7d5", "4k3/8/8/3p4/8/8/8/4K3 w - - 0 2");

    // Kite leaps over a piece; the Jester walks around blockers (CA5).
    expect_moves("1k6/8/3p4/3P4/3Y4/8/7K/8 w - - 0 1", "d4", "d6 d7 d3 d2 d1 c4 b4 a4 e4 f4 g4");
    expect_moves("7k/8/8/3P4/2NJp3/8/8/7K w - - 0 1", "d4", "d3 e4 d2 c3 e3 d1 c2 e2 b3 f3");

    // Rabbit (CA2): slides, a jump, a two-jump chain over a friendly piece,
    // and leaving the board with an edge victim; never back over d5.
    let rabbit = "3n3k/8/5P2/3p4/3T4/8/8/K7 w - - 0 1";
    expect_moves(rabbit, "d4", "d4d3 d4d2 d4c4 d4b4 d4e4 d4f4 d4d6 d4d6g6 d4d6d8x");
    expect_after(rabbit, "d4d6", "3n3k/8/3T1P2/8/8/8/8/K7 b - - 0 1");
    expect_after(rabbit, "d4d6g6", "3n3k/8/5PT1/8/8/8/8/K7 b - - 0 1");
    expect_after(rabbit, "d4d6d8x", "7k/8/5P2/8/8/8/8/K7 b - - 0 1");
    expect_after(rabbit, "d4f4", "3n3k/8/5P2/3p4/5T2/8/8/K7 b - - 1 1");

    // Check by a chain (a1 over a2 to a3, over c3 to d3, then d4): only
    // breaking the chain or stepping off its lines answers it.
    let chain_check = "8/8/8/8/3k4/2p5/P7/T6K b - - 0 1";
    assert!(oracle(chain_check).in_check(false), "a chain of jumps gives check");
    expect_moves(chain_check, "", "c3c2 d4c4 d4c5 d4d3 d4e4 d4e5");

    // War Machine (CA4): moves, captures and shots; shooting is not moving.
    let machine = "7k/8/8/4p3/5n2/3PM3/8/K7 w - - 0 1";
    expect_moves(machine, "e3", "e3e4 e3e5 e3^e5 e3e2 e3e1 e3f3 e3g3 e3d4 e3f4 e3^f4 e3d2 e3f2");
    expect_after(machine, "e3^e5", "7k/8/8/8/5n2/3PM3/8/K7 b - - 0 1");
    expect_after("4k3/8/8/8/8/p7/8/M3K3 w Q - 0 1", "a1^a3", "4k3/8/8/8/8/8/8/M3K3 b Q - 0 1");

    // Phoenix (CA7): the King may not take it, a Rook that does dies too, so
    // does a Rabbit that jumps it and a War Machine that shoots it.
    expect_moves("7k/8/8/8/8/8/R3f3/4K3 w - - 0 1", "", "a2e2");
    expect_after("7k/8/8/8/8/8/R3f3/4K3 w - - 0 1", "a2e2", "7k/8/8/8/8/8/8/4K3 b - - 0 1");
    expect_after("7k/8/8/8/8/8/f7/T6K w - - 0 1", "a1a3", "7k/8/8/8/8/8/8/7K b - - 0 1");
    expect_after("7k/8/8/8/8/f7/8/M6K w - - 0 1", "a1^a3", "7k/8/8/8/8/8/8/7K b - - 0 1");

    // Rogue (CA6): marked after a quiet move, not after a capture; a marked
    // Rogue checks and cannot be taken.
    let rogue = "4k3/8/8/3V4/8/8/8/4K3 w - - 0 1";
    expect_moves(rogue, "d5", "d6 d7 d4 d3 c5 b5 e5 f5 e6 f7 c6 b7 e4 f3 c4 b3");
    let o = expect_after(rogue, "d5d7", "4k3/3V*4/8/8/8/8/8/4K3 b - - 1 1");
    expect_moves(&o.fen(), "", "e8f8");
    expect_after(&o.fen(), "e8f8", "5k2/3V4/8/8/8/8/8/4K3 w - - 2 2");
    expect_after("4k3/8/8/3V4/8/3p4/8/4K3 w - - 0 1", "d5d3", "4k3/8/8/8/8/3V4/8/4K3 b - - 0 1");

    // Shield (CA8, CA9): the Shielderer and its orthogonal neighbours cannot
    // be taken (d4, e5), a diagonal neighbour can (f5).
    for (shield, a4, e8) in [("D3", "", ""), ("D", " d4", " e5")] {
        let fen = format!("4r2k/8/8/4NB2/r2PS3/7b/8/8 b {shield} - 0 1");
        expect_moves(&fen, "a4", &format!("a1 a2 a3 a5 a6 a7 a8 b4 c4{a4}"));
        expect_moves(&fen, "e8", &format!("e7 e6 d8 c8 b8 a8 f8 g8{e8}"));
        expect_moves(&fen, "h3", "g4 f5 g2 f1");
    }
    // Raising it answers a check; it lasts three opponent turns; meanwhile
    // the Shielderer may stand attacked.
    let shielded = "4k3/8/8/8/r3S3/8/8/8 w D - 0 1";
    expect_moves(shielded, "", "D e4e3 e4e5");
    let o = expect_after(shielded, "D", "4k3/8/8/8/r3S3/8/8/8 b D3 - 1 1");
    expect_moves(&o.fen(), "a4", "a1 a2 a3 a5 a6 a7 a8 b4 c4 d4");
    let o = expect_after(&o.fen(), "a4a3", "4k3/8/8/8/4S3/r7/8/8 w D2 - 2 2");
    expect_moves(&o.fen(), "e4", "e5 e3 d4 f4");
    let o = expect_after(&o.fen(), "e4e3", "4k3/8/8/8/8/r3S3/8/8 b D2 - 3 2");
    expect_moves(&o.fen(), "a3", "a1 a2 a4 a5 a6 a7 a8 b3 c3 d3");
    let o = expect_after(&o.fen(), "e8d8", "3k4/8/8/8/8/r3S3/8/8 w D1 - 4 3");
    expect_moves(&o.fen(), "", "e3e4 e3e2 e3d3 e3f3");
    let o = expect_after(&o.fen(), "e3e2", "3k4/8/8/8/8/r7/4S3/8 b D1 - 5 3");
    let o = expect_after(&o.fen(), "d8e8", "4k3/8/8/8/8/r7/4S3/8 w - - 6 4");
    assert!(!o.in_check(true) && o.legal_moves().iter().all(|m| m.token != "D"), "the shield is used up");

    // The variant text's Jester diagram: both Black Rooks next to the King
    // are pinned (each opens a path e6-e7-f7 or e6-f6-f7), so they can only
    // take the Jester.
    expect_moves("8/4rk2/4Jr2/8/8/8/8/K7 b - - 0 1", "", "e7e6 f6e6 f7e6 f7e8 f7f8 f7g6 f7g7 f7g8");

    // Castling with Heavy pieces (CA8): not through an attacked square, not
    // out of check.
    let castle = "4k3/8/8/8/8/8/8/G3K2H w KQ - 0 1";
    expect_moves(castle, "e1", "d1 d2 e2 f2 f1 g1 c1");
    expect_after(castle, "e1c1", "4k3/8/8/8/8/8/8/2KG3H b - - 1 1");
    expect_after(castle, "e1g1", "4k3/8/8/8/8/8/8/G4HK1 b - - 1 1");
    expect_moves("3rk3/8/8/8/8/8/8/G3K2H w KQ - 0 1", "e1", "e2 f2 f1 g1");
    expect_moves("4r2k/8/8/8/8/8/8/G3K2H w KQ - 0 1", "e1", "d1 d2 f1 f2");
}

// ---------------------------------------------------------------- harness

fn variant() -> &'static Variant {
    Variant::by_id("clash").unwrap_or_else(|| panic!("variant \"clash\" is not defined (yet)"))
}

/// Loads `fen` into both; both must write it back unchanged.
fn load(fen: &str) -> (Position, Oracle) {
    let pos = Position::from_fen(variant(), fen).unwrap_or_else(|e| panic!("engine rejects {fen}: {e:?}"));
    let oracle = oracle(fen);
    assert_eq!(pos.fen(), fen, "the engine writes {fen} back differently (left: engine, right: oracle)");
    (pos, oracle)
}

fn engine_tokens(pos: &Position) -> Vec<String> {
    sorted(pos.legal_moves().iter().map(|m| pos.canonical(m)))
}

fn oracle_tokens(moves: &[OMove]) -> Vec<String> {
    sorted(moves.iter().map(|m| m.token.clone()))
}

fn assert_same_moves(context: &str, fen: &str, oracle: &[String], engine: &[String]) {
    assert_sets(context, fen, oracle, engine, "oracle", "engine");
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

/// Compares every position of the move tree down to `depth` plies.
fn compare_tree(pos: &Position, oracle: &Oracle, depth: u32, path: &mut Vec<String>, label: &str) {
    let context = format!("{label}, ply {} after [{}]", path.len(), path.join(" "));
    let moves = oracle.legal_moves();
    assert_same_moves(&context, &oracle.fen(), &oracle_tokens(&moves), &engine_tokens(pos));
    if depth == 0 {
        return;
    }
    for m in &moves {
        let (mut p, mut o) = (pos.clone(), oracle.clone());
        play_both(&mut p, &mut o, m, &context);
        path.push(m.token.clone());
        compare_tree(&p, &o, depth - 1, path, label);
        path.pop();
    }
}

// ------------------------------------------------------------------- armies

/// One side's army, placed by CA12 on files a..h: back rank and peasants.
fn random_army(rng: &mut fastrand::Rng) -> ([Option<char>; 8], [Option<char>; 8]) {
    let mut back = [None; 8];
    let mut peasants = [None; 8];
    let pick = |rng: &mut fastrand::Rng, letters: &str| letters.chars().nth(rng.usize(..letters.len())).unwrap();
    back[4] = Some(if rng.bool() { 'K' } else { 'S' });
    if rng.f64() < 0.9 {
        // The Amazon only in the ultimate round: rarer.
        back[3] = Some(if rng.f64() < 0.1 { 'Z' } else { pick(rng, &JEWELS[..6]) });
    }
    for f in [0, 7] {
        if rng.f64() < 0.85 {
            back[f] = Some(pick(rng, HEAVY));
        }
    }
    // At most two of a kind; two Bishops on opposite colours (b and f are
    // one colour, c and g the other, on either back rank).
    for f in [1, 2, 5, 6] {
        if rng.f64() < 0.15 {
            continue;
        }
        let allowed: Vec<char> = LIGHT
            .chars()
            .filter(|&c| {
                let same: Vec<usize> = (0..8).filter(|&g| back[g] == Some(c)).collect();
                same.len() < 2 && (c != 'B' || same.iter().all(|&g| (g == 1 || g == 5) != (f == 1 || f == 5)))
            })
            .collect();
        back[f] = Some(allowed[rng.usize(..allowed.len())]);
    }
    for p in &mut peasants {
        if rng.f64() < 0.8 {
            *p = Some(if rng.f64() < 0.35 { 'O' } else { 'P' });
        }
    }
    (back, peasants)
}

fn rank_text(pieces: &[Option<char>; 8], white: bool) -> String {
    let mut s = String::new();
    let mut gap = 0;
    for p in pieces {
        match p {
            None => gap += 1,
            Some(c) => {
                if gap > 0 {
                    s += &gap.to_string();
                    gap = 0;
                }
                s.push(if white { *c } else { c.to_ascii_lowercase() });
            }
        }
    }
    if gap > 0 {
        s += &gap.to_string();
    }
    s
}

/// A round's start position from two random armies, in which the side not to
/// move is not in check.
fn random_start(rng: &mut fastrand::Rng) -> String {
    loop {
        let (wb, wp) = random_army(rng);
        let (bb, bp) = random_army(rng);
        let mut rights = String::new();
        for (back, white) in [(&wb, true), (&bb, false)] {
            let heavy = |f: usize| back[f].is_some_and(|c| HEAVY.contains(c));
            let mut r = String::new();
            if back[4] == Some('K') && heavy(7) {
                r.push('K');
            }
            if back[4] == Some('K') && heavy(0) {
                r.push('Q');
            }
            if back[4] == Some('S') {
                r.push('D');
            }
            rights += &if white { r } else { r.to_ascii_lowercase() };
        }
        let fen = format!(
            "{}/{}/8/8/8/8/{}/{} w {} - 0 1",
            rank_text(&bb, false),
            rank_text(&bp, false),
            rank_text(&wp, true),
            rank_text(&wb, true),
            if rights.is_empty() { "-" } else { &rights }
        );
        if !oracle(&fen).in_check(false) {
            return fen;
        }
    }
}

// ----------------------------------------------------------------- coverage

/// What the compared move lists held, to show the rare rules were exercised.
#[derive(Default, Debug)]
struct Seen {
    games: usize,
    positions: usize,
    moves: usize,
    checks: usize,
    invulnerable_positions: usize,
    chains: usize,
    multi_jump_chains: usize,
    edge_exits: usize,
    shots: usize,
    shields: usize,
    phoenix_captures: usize,
    promotions: usize,
    castlings: usize,
    en_passant: usize,
    rogue_marks: usize,
}

impl Seen {
    fn add(&mut self, o: &Oracle, moves: &[OMove]) {
        let us = o.white_to_move;
        self.positions += 1;
        self.moves += moves.len();
        self.checks += usize::from(o.in_check(us));
        self.invulnerable_positions += usize::from((0..64).any(|sq| o.invulnerable(sq)));
        let enemy_phoenix = |sq: Sq| o.board[sq].is_some_and(|p| p.white != us && p.kind == 'F');
        for m in moves {
            match &m.act {
                Act::Step { from, to, promote, en_passant } => {
                    self.promotions += usize::from(promote.is_some());
                    self.en_passant += usize::from(en_passant.is_some());
                    self.phoenix_captures += usize::from(enemy_phoenix(*to));
                    let rogue = o.board[*from].is_some_and(|p| p.kind == 'V');
                    self.rogue_marks += usize::from(rogue && !o.occupied(*to));
                }
                Act::Chain { jumped, exit, .. } => {
                    self.chains += 1;
                    self.multi_jump_chains += usize::from(jumped.len() + usize::from(exit.is_some()) >= 2);
                    self.edge_exits += usize::from(exit.is_some());
                    self.phoenix_captures += usize::from(jumped.iter().chain(exit).any(|&s| enemy_phoenix(s)));
                }
                Act::Shot { target, .. } => {
                    self.shots += 1;
                    self.phoenix_captures += usize::from(enemy_phoenix(*target));
                }
                Act::Shield => self.shields += 1,
                Act::Castle { .. } => self.castlings += 1,
            }
        }
    }
}

/// Special moves first with probability `bias`, so that they get played.
fn pick<'a>(rng: &mut fastrand::Rng, o: &Oracle, moves: &'a [OMove], bias: f64) -> &'a OMove {
    let special: Vec<&OMove> = moves
        .iter()
        .filter(|m| match &m.act {
            Act::Step { to, promote, en_passant, .. } => o.occupied(*to) || promote.is_some() || en_passant.is_some(),
            _ => true,
        })
        .collect();
    if !special.is_empty() && rng.f64() < bias {
        special[rng.usize(..special.len())]
    } else {
        &moves[rng.usize(..moves.len())]
    }
}

// -------------------------------------------------------------------- tests

#[test]
fn clash_random_games() {
    let mut rng = fastrand::Rng::with_seed(0xC1A5_4A11);
    let mut seen = Seen::default();
    let started = Instant::now();
    for game in 0..500 {
        // Keep the test short on slow machines, but play enough to see the
        // rare moves.
        if game >= 100 && started.elapsed().as_secs() >= 18 {
            break;
        }
        let start = random_start(&mut rng);
        let (mut pos, mut o) = load(&start);
        seen.games += 1;
        let mut played: Vec<String> = Vec::new();
        for ply in 0..150 {
            let context = format!("game {game}, ply {ply} (from {start} after [{}])", played.join(" "));
            let moves = o.legal_moves();
            assert_same_moves(&context, &o.fen(), &oracle_tokens(&moves), &engine_tokens(&pos));
            seen.add(&o, &moves);
            // G4: the 50-move rule ends the game (outside `legal_moves`).
            if moves.is_empty() || o.halfmove >= 100 {
                break;
            }
            let m = pick(&mut rng, &o, &moves, 0.35);
            play_both(&mut pos, &mut o, m, &context);
            played.push(m.token.clone());
        }
    }
    eprintln!("clash random games in {:?}: {seen:#?}", started.elapsed());
    for (name, count) in [
        ("chains", seen.chains),
        ("multi-jump chains", seen.multi_jump_chains),
        ("edge exits", seen.edge_exits),
        ("shots", seen.shots),
        ("shields", seen.shields),
        ("phoenix captures", seen.phoenix_captures),
        ("promotions", seen.promotions),
        ("castlings", seen.castlings),
        ("en passant captures", seen.en_passant),
    ] {
        assert!(count > 0, "no {name} seen in {} games", seen.games);
    }
}

#[test]
fn oracle_perft_small() {
    let mut rng = fastrand::Rng::with_seed(0x00C1_A500);
    let mut starts = vec![
        // Rabbits behind peasants, a War Machine, a Jester, a Shielderer
        // against a King with two Heavy pieces.
        "ytbfkewh/pppoppop/8/8/8/8/PPPPPOPP/MTNJSETR w Dkq - 0 1".to_string(),
        // Sparse armies: open lines, castling on both sides, a Phoenix and a
        // Rogue.
        "r2vk1th/p1o2p1p/8/8/8/8/1P1O1P1P/G1TFKB1M w KQkq - 0 1".to_string(),
    ];
    starts.extend((0..3).map(|_| random_start(&mut rng)));
    for start in &starts {
        let (pos, o) = load(start);
        for depth in 1..=3 {
            let (expected, got) = (o.perft(depth), perft(&pos, depth));
            if expected != got {
                // Find the first position where the two disagree.
                compare_tree(&pos, &o, depth - 1, &mut Vec::new(), &format!("perft({depth}) from {start}"));
                panic!("perft({depth}) from {start}: oracle {expected}, engine {got}, yet every move list agrees");
            }
        }
    }
}

/// The perft table in `tests/data/clash.perft` (counted by the engine): every
/// entry up to 300,000 nodes recounted by this generator.
#[test]
fn oracle_confirms_perft_table() {
    let mut checked = 0;
    for case in common::perft_table("clash").iter().filter(|c| c.nodes <= 300_000) {
        let oracle = Oracle::from_fen(&case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.fen));
        assert_eq!(oracle.perft(case.depth), case.nodes, "{} depth {}", case.fen, case.depth);
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} entries checked");
}
