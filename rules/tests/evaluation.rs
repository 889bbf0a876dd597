//! The evaluation sees both sides alike: a position and its twin with the
//! colours exchanged (the board turned over, hands and rights swapped, the
//! other side to move) score the same for the side to move. This holds the
//! fitted tables (read from White's side, turned for Black) to the same
//! standard as the hand-set terms.

use kibitz_rules::search::evaluate;
use kibitz_rules::{Position, Variant};

/// The FEN of `fen` with the colours exchanged.
fn exchanged(fen: &str) -> String {
    let swap = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
            .collect()
    };
    let mut fields = fen.split_whitespace();
    let placement = fields.next().unwrap();
    let (board, hands) = match placement.split_once('[') {
        Some((b, h)) => (b, format!("[{}", swap(h))),
        None => (placement, String::new()),
    };
    let board: Vec<String> = board.split('/').rev().map(swap).collect();
    let turn = if fields.next() == Some("w") { "b" } else { "w" };
    let rights = fields.next().unwrap_or("-");
    let rights = if rights == "-" {
        "-".to_string()
    } else {
        let swapped = swap(rights);
        let (mut upper, mut lower): (Vec<char>, Vec<char>) = swapped.chars().partition(|c| c.is_ascii_uppercase());
        upper.sort();
        lower.sort();
        upper.into_iter().chain(lower).collect()
    };
    let ep = fields.next().unwrap_or("-");
    let ranks = board.len() as u8;
    let ep = match ep.as_bytes() {
        [file, rank] => format!("{}{}", *file as char, (b'0' + ranks + 1 - (rank - b'0')) as char),
        _ => "-".to_string(),
    };
    let rest: Vec<&str> = fields.collect();
    format!("{}{} {} {} {} {}", board.join("/"), hands, turn, rights, ep, rest.join(" "))
}

#[test]
fn both_colours_are_evaluated_alike() {
    let mut rng = fastrand::Rng::with_seed(18);
    let mut compared = 0;
    for id in ["chess", "olympic", "alapawn"] {
        let variant = Variant::by_id(id).unwrap();
        for _ in 0..40 {
            let mut pos = Position::new(variant);
            for _ in 0..rng.usize(4..80) {
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.outcome().is_some() {
                    break;
                }
                pos.play_unchecked(moves[rng.usize(..moves.len())]);
            }
            let twin_fen = exchanged(&pos.fen());
            let twin = Position::from_fen(variant, &twin_fen).unwrap_or_else(|e| panic!("{id} {twin_fen}: {e}"));
            assert_eq!(evaluate(&pos), evaluate(&twin), "{id}: {} and {twin_fen}", pos.fen());
            compared += 1;
        }
    }
    assert_eq!(compared, 120);
}
