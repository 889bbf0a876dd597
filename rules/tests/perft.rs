//! Perft tables: every position in `tests/data/*.perft` against its published
//! counts, all depths (about a billion nodes; the crate is optimised even in
//! test builds, so this takes seconds).

use kibitz_rules::{Position, Variant, perft};

struct Case {
    file: &'static str,
    id: String,
    fen: String,
    depth: u32,
    nodes: u64,
}

fn cases(file: &'static str) -> Vec<Case> {
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
                out.push(Case {
                    file,
                    id: id.clone(),
                    fen: fen.clone(),
                    depth: d.parse().unwrap(),
                    nodes: n.parse().unwrap(),
                });
            }
            _ => panic!("{path}: unknown key {key}"),
        }
    }
    assert!(!out.is_empty(), "{path} holds no cases");
    out
}

fn run(file: &'static str, variant: &str) {
    let variant = Variant::by_id(variant).unwrap();
    for case in cases(file) {
        let pos = Position::from_fen(variant, &case.fen).unwrap_or_else(|e| panic!("{} {}: {e}", case.file, case.id));
        assert_eq!(perft(&pos, case.depth), case.nodes, "{} {} depth {}", case.file, case.id, case.depth);
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

#[test]
fn construction() {
    run("construction", "construction");
}

#[test]
fn clash() {
    run("clash", "clash");
}
