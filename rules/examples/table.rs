fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let v = kibitz_rules::Variant::by_id(&a[0]).unwrap();
    let pos = kibitz_rules::Position::from_fen(v, &a[1]).unwrap();
    let max: u32 = a[2].parse().unwrap();
    for d in 1..=max {
        println!("perft {d} {}", kibitz_rules::perft(&pos, d));
    }
}
