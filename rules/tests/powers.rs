use kibitz_rules::{Position, Variant};
#[test]
fn explore() {
    let input = std::fs::read_to_string("/tmp/scratch/fens.txt").unwrap();
    for line in input.lines().filter(|l| !l.trim().is_empty()) {
        let (id, fen) = line.split_once(' ').unwrap();
        let v = Variant::by_id(id).unwrap();
        match Position::from_fen(v, fen) {
            Err(e) => println!("{fen}: ERR {e}"),
            Ok(p) => {
                let mut t: Vec<String> =
                    p.legal_moves().iter().map(|m| format!("{}({})", p.canonical(m), p.san(m))).collect();
                t.sort();
                println!("{fen}\n  fen-out {}\n  check {} n={} {}", p.fen(), p.is_check(), t.len(), t.join(" "));
            }
        }
    }
}
