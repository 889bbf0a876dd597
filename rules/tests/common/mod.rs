//! Helpers shared by the integration tests of `kibitz-rules`: looking up
//! variants and positions, reading legal moves as canonical tokens, playing
//! text, and the perft tables in `tests/data`. Each test binary uses a part.

#![allow(dead_code)]

use std::collections::BTreeSet;

use kibitz_rules::{Color, EndReason, Game, Outcome, Position, Square, Variant};

pub fn variant(id: &str) -> &'static Variant {
    Variant::by_id(id).unwrap_or_else(|| panic!("no variant {id}"))
}

pub fn pos(id: &str, fen: &str) -> Position {
    Position::from_fen(variant(id), fen).unwrap_or_else(|e| panic!("{id} {fen}: {e}"))
}

pub fn sq(name: &str) -> Square {
    Square::parse(name).unwrap_or_else(|| panic!("bad square {name}"))
}

pub fn set(tokens: &[&str]) -> BTreeSet<String> {
    tokens.iter().map(|t| t.to_string()).collect()
}

/// Canonical tokens of every legal move (each token names one move).
pub fn legal(p: &Position) -> BTreeSet<String> {
    let moves = p.legal_moves();
    let tokens: BTreeSet<String> = moves.iter().map(|m| p.canonical(m)).collect();
    assert_eq!(tokens.len(), moves.len(), "two moves share a token in {p:?}");
    tokens
}

/// Canonical tokens of the legal moves that start on `from`.
pub fn legal_from(p: &Position, from: &str) -> BTreeSet<String> {
    let from = sq(from);
    p.legal_moves().iter().filter(|m| m.from() == Some(from)).map(|m| p.canonical(m)).collect()
}

/// The position after the move written `text`.
pub fn after(p: &Position, text: &str) -> Position {
    let m = p.parse_move(text).unwrap_or_else(|e| panic!("{text} in {p:?}: {e}"));
    let mut next = p.clone();
    next.play_unchecked(m);
    next
}

pub fn play_all(g: &mut Game, moves: &[&str]) -> Vec<Option<Outcome>> {
    moves.iter().map(|t| g.play_text(t).unwrap_or_else(|e| panic!("{t} after {:?}: {e}", g.moves())).outcome).collect()
}

pub fn win(c: Color, reason: EndReason) -> Option<Outcome> {
    Some(Outcome { winner: Some(c), reason })
}

pub fn draw(reason: EndReason) -> Option<Outcome> {
    Some(Outcome { winner: None, reason })
}

/// One entry of a perft table.
pub struct PerftCase {
    pub id: String,
    pub fen: String,
    pub depth: u32,
    pub nodes: u64,
}

/// The entries of `tests/data/{file}.perft`: `id NAME`, `epd FEN` and
/// `perft DEPTH NODES` lines; `#` starts a comment.
pub fn perft_table(file: &str) -> Vec<PerftCase> {
    let path = format!("{}/tests/data/{file}.perft", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (mut id, mut fen) = (String::new(), String::new());
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (key, value) = line.split_once(' ').unwrap_or_else(|| panic!("{path}: bad line {line}"));
        match key {
            "id" => id = value.to_string(),
            "epd" => fen = value.to_string(),
            "perft" => {
                let (d, n) = value.split_once(' ').expect("perft DEPTH NODES");
                let (depth, nodes) = (d.parse().expect("depth"), n.parse().expect("nodes"));
                out.push(PerftCase { id: id.clone(), fen: fen.clone(), depth, nodes });
            }
            _ => panic!("{path}: unknown key {key}"),
        }
    }
    assert!(!out.is_empty(), "{path} holds no cases");
    out
}

/// The board field of a FEN from a function giving each square's piece
/// text (square index `rank * 8 + file`), for the test-side generators.
pub fn placement(text_at: impl Fn(usize) -> Option<String>) -> String {
    let mut s = String::new();
    for r in (0..8).rev() {
        let mut gap = 0;
        for f in 0..8 {
            match text_at(r * 8 + f) {
                None => gap += 1,
                Some(t) => {
                    if gap > 0 {
                        s += &gap.to_string();
                        gap = 0;
                    }
                    s += &t;
                }
            }
        }
        if gap > 0 {
            s += &gap.to_string();
        }
        if r > 0 {
            s.push('/');
        }
    }
    s
}
