//! The evaluation sees both sides alike: a position and its twin with the
//! colours exchanged (the board turned over, hands and rights swapped, the
//! other side to move) score the same for the side to move. This holds the
//! fitted tables (read from White's side, turned for Black) to the same
//! standard as the hand-set terms and the counted ones.

use kibitz_rules::search::evaluate;
use kibitz_rules::{Position, Variant};

/// A FEN rank with its squares in the opposite order.
fn reversed(rank: &str) -> String {
    // Squares left to right: a piece with its promotion mark, or none.
    let mut squares: Vec<Option<String>> = Vec::new();
    let mut mark = String::new();
    for c in rank.chars() {
        match c {
            '1'..='9' => squares.extend((0..c as u8 - b'0').map(|_| None)),
            '+' => mark.push('+'),
            _ => squares.push(Some(format!("{}{c}", std::mem::take(&mut mark)))),
        }
    }
    let mut out = String::new();
    let mut empty = 0;
    for square in squares.into_iter().rev() {
        match square {
            None => empty += 1,
            Some(piece) => {
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                out.push_str(&piece);
            }
        }
    }
    if empty > 0 {
        out.push_str(&empty.to_string());
    }
    out
}

/// The FEN of `fen` with the colours exchanged: the board turned over rank
/// for rank, or with `turned` half round (Olympic, whose armies face each
/// other that way, O1).
fn exchanged(fen: &str, turned: bool) -> String {
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
    let board: Vec<String> =
        board.split('/').rev().map(|r| if turned { reversed(&swap(r)) } else { swap(r) }).collect();
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
fn olympic_turned_half_round_swaps_the_armies() {
    // O1: each army starts in the other's position turned half round.
    let start = Variant::by_id("olympic").unwrap().start_fen;
    assert_eq!(exchanged(start, true), start.replace(" w ", " b "));
    assert_eq!(exchanged("r1+sgk/4p/5/P4/KG+PBR[Sg] w - - 0 1", true), "rb+pgk/4p/5/P4/KG+S1R[sG] b - - 0 1");
}

#[test]
fn both_colours_are_evaluated_alike() {
    let mut rng = fastrand::Rng::with_seed(18);
    let mut compared = 0;
    // Olympic's counted terms (drop checks by kind) need many positions
    // with pieces in hand.
    let mut held = 0;
    for id in ["chess", "olympic", "alapawn"] {
        let variant = Variant::by_id(id).unwrap();
        for _ in 0..400 {
            let mut pos = Position::new(variant);
            for _ in 0..rng.usize(4..80) {
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.outcome().is_some() {
                    break;
                }
                pos.play_unchecked(moves[rng.usize(..moves.len())]);
            }
            let twin_fen = exchanged(&pos.fen(), id == "olympic");
            held += usize::from(id == "olympic" && !pos.fen().contains("[]"));
            let twin = Position::from_fen(variant, &twin_fen).unwrap_or_else(|e| panic!("{id} {twin_fen}: {e}"));
            assert_eq!(evaluate(&pos), evaluate(&twin), "{id}: {} and {twin_fen}", pos.fen());
            compared += 1;
        }
    }
    assert_eq!(compared, 1200);
    assert!(held > 100, "{held} Olympic positions with pieces in hand");
}
