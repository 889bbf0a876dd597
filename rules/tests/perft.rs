//! Perft tables: every position in `tests/data/*.perft` against its published
//! counts, all depths (about a billion nodes; the crate is optimised even in
//! test builds, so this takes seconds).

mod common;

use kibitz_rules::{Position, perft};

fn run(file: &'static str, variant: &str) {
    let variant = common::variant(variant);
    for case in common::perft_table(file) {
        let pos = Position::from_fen(variant, &case.fen).unwrap_or_else(|e| panic!("{file} {}: {e}", case.id));
        assert_eq!(perft(&pos, case.depth), case.nodes, "{file} {} depth {}", case.id, case.depth);
    }
}

#[test]
fn chess() {
    run("chess", "chess");
}

#[test]
fn olympic() {
    run("olympic", "olympic");
}

#[test]
fn alapawn() {
    run("alapawn", "alapawn");
}

#[test]
fn absorption() {
    run("absorption", "absorption");
}

/// PA7: handicapped sides (the FEN's `h:` field).
#[test]
fn absorption_handicap() {
    run("absorption-handicap", "absorption");
}

#[test]
fn construction() {
    run("construction", "construction");
}

#[test]
fn construction_split() {
    run("construction-split", "construction-split");
}

#[test]
fn clash() {
    run("clash", "clash");
}
