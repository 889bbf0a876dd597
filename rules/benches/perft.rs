//! Perft speed, side by side with shakmaty on the same machine and run.
//!
//! `cargo bench -p kibitz-rules --bench perft` prints nodes per second for
//! both move generators on the chess start position (depth 6) and Kiwipete
//! (depth 5), their ratio, and Olympic's start position (depth 7).

use std::hint::black_box;
use std::time::{Duration, Instant};

use kibitz_rules::{Position, Variant};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const RUNS: u32 = 5;

/// Best time of `RUNS` runs and the node count.
fn best(mut f: impl FnMut() -> u64) -> (u64, Duration) {
    let mut nodes = 0;
    let mut best = Duration::MAX;
    for _ in 0..RUNS {
        let t = Instant::now();
        nodes = black_box(f());
        best = best.min(t.elapsed());
    }
    (nodes, best)
}

fn mnps(nodes: u64, t: Duration) -> f64 {
    nodes as f64 / t.as_secs_f64() / 1e6
}

fn main() {
    // `cargo test --benches` runs this with `--test`: keep that quick.
    if std::env::args().any(|a| a == "--test") {
        return;
    }
    let chess = Variant::by_id("chess").expect("chess");
    println!("{:<22} {:>12} {:>12} {:>12} {:>7}", "position", "nodes", "kibitz M/s", "shakmaty M/s", "ratio");
    for (name, fen, depth) in [("chess start d6", None, 6), ("kiwipete d5", Some(KIWIPETE), 5)] {
        let ours = match fen {
            Some(f) => Position::from_fen(chess, f).expect("valid FEN"),
            None => Position::new(chess),
        };
        let theirs: Chess = match fen {
            Some(f) => f.parse::<Fen>().expect("fen").into_position(CastlingMode::Standard).expect("position"),
            None => Chess::default(),
        };
        let (n1, t1) = best(|| kibitz_rules::perft(black_box(&ours), depth));
        let (n2, t2) = best(|| shakmaty::perft(black_box(&theirs), depth));
        assert_eq!(n1, n2, "the two generators disagree on {name}");
        let (a, b) = (mnps(n1, t1), mnps(n2, t2));
        println!("{name:<22} {n1:>12} {a:>12.1} {b:>12.1} {:>7.2}", a / b);
    }
    let olympic = Position::new(Variant::by_id("olympic").expect("olympic"));
    let (n, t) = best(|| kibitz_rules::perft(black_box(&olympic), 7));
    println!("{:<22} {n:>12} {:>12.1} {:>12} {:>7}", "olympic start d7", mnps(n, t), "-", "-");
}
