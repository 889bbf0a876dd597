use std::time::Instant;
fn main() {
    let ids: Vec<String> = std::env::args().skip(1).collect();
    for id in ids {
        let v = kibitz_rules::Variant::by_id(&id).unwrap();
        let pos = kibitz_rules::Position::new(v);
        let mut best = f64::MAX;
        let mut n = 0;
        for _ in 0..3 {
            let t = Instant::now();
            n = kibitz_rules::perft(&pos, 6);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!("{id} d6 {n} nodes {best:.3}s {:.1} M/s", n as f64 / best / 1e6);
    }
}
