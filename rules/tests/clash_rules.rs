//! Scenario tests for one round of Clash of the Armies, each citing its
//! ruling (CA1-CA9 of `shared/RULINGS.md`; notation in `rules/CLASH.md`).
//! Expected moves are worked out by hand from the rule texts.

mod common;

use std::collections::BTreeSet;

use kibitz_rules::{Move, Position};

use common::{after, legal, legal_from, pos, set};

fn clash(fen: &str) -> Position {
    pos("clash", fen)
}

/// CA1: the Omnipawn moves and captures one step forward or diagonally
/// forward, and steps twice straight forward from its starting rank.
#[test]
fn ca1_omnipawn_moves() {
    let p = clash("4k3/8/8/8/8/8/3O4/4K3 w - - 0 1");
    assert_eq!(legal_from(&p, "d2"), set(&["d2c3", "d2d3", "d2e3", "d2d4"]));
    // It captures straight ahead too, and the double step needs an empty path.
    let p = clash("4k3/8/8/8/8/3p4/3O4/4K3 w - - 0 1");
    assert_eq!(legal_from(&p, "d2"), set(&["d2c3", "d2d3", "d2e3"]));
}

/// CA1: a double step may be taken en passant by an enemy Pawn or Omnipawn.
#[test]
fn ca1_en_passant_by_an_omnipawn() {
    let p = after(&clash("4k3/8/8/8/3o4/8/4P3/4K3 w - - 0 1"), "e2e4");
    assert_eq!(p.fen(), "4k3/8/8/8/3oP3/8/8/4K3 b - e3 0 1");
    let q = after(&p, "d4e3");
    assert_eq!(q.fen(), "4k3/8/8/8/8/4o3/8/4K3 w - - 0 2");
    // And an Omnipawn's double step is taken by a Pawn.
    let p = after(&clash("4k3/8/8/8/3p4/8/4O3/4K3 w - - 0 1"), "e2e4");
    assert!(legal(&p).contains("d4e3"), "{}", p.fen());
}

/// CA1: on the last rank a peasant promotes to any Light, Heavy or Jewel
/// piece except the Amazon: sixteen moves.
#[test]
fn ca1_promotion_choices() {
    let p = clash("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    let expected: BTreeSet<String> = "nbtewrhgymqcajvf".chars().map(|c| format!("a7a8{c}")).collect();
    assert_eq!(legal_from(&p, "a7"), expected);
}

/// CA2: the Rabbit slides one or two squares orthogonally onto empty
/// squares and jumps a piece one or two squares away, capturing an enemy.
#[test]
fn ca2_rabbit_slides_and_jumps() {
    let p = clash("4k3/8/8/3p4/3T4/8/8/4K3 w - - 0 1");
    assert_eq!(legal_from(&p, "d4"), set(&["d4b4", "d4c4", "d4e4", "d4f4", "d4d3", "d4d2", "d4d6"]));
    let q = after(&p, "d4d6");
    assert_eq!(q.fen(), "4k3/8/3T4/8/8/8/8/4K3 b - - 0 1");
}

/// CA2: jumps chain from each landing square; the jumped enemies go when the
/// move ends; friendly pieces may be jumped and stay.
#[test]
fn ca2_rabbit_chain() {
    // d3 over d4 (own pawn) to d5, over d6 (enemy) to d7.
    let p = clash("4k3/8/3p4/8/3P4/3T4/8/K7 w - - 0 1");
    let moves = legal_from(&p, "d3");
    assert!(moves.contains("d3d5") && moves.contains("d3d5d7"), "{moves:?}");
    let q = after(&p, "d3d5d7");
    assert_eq!(q.fen(), "4k3/3T4/8/8/3P4/8/8/K7 b - - 0 1");
    // SAN marks the jump that captures, as en passant is marked.
    let m = p.parse_move("d3d5d7").unwrap();
    assert_eq!(p.san(&m), "Td5xd7");
    assert_eq!(p.parse_move("Td5xd7"), Ok(m));
    assert_eq!(p.parse_move("Td5d7"), Ok(m));
    let mut g = kibitz_rules::Game::from_position(p.clone());
    let played = g.play(m).unwrap();
    assert_eq!(played.taken.iter().map(|(sq, _)| sq.to_string()).collect::<Vec<_>>(), ["d6"]);
}

/// CA2: landings written as a chain that no chain makes are refused as a
/// chain (`Td5f5` names no Rabbit on d5), with the Rabbit's own moves.
#[test]
fn ca2_a_chain_that_does_not_exist_is_refused_as_a_chain() {
    let p = clash("4k3/8/8/8/3p4/3T4/8/4K3 w - - 0 1");
    let err = p.parse_move("Td5f5").unwrap_err().to_string();
    assert!(err.contains("your rabbit on d3 has no chain landing on d5 and then f5"), "{err}");
    assert!(err.contains("Txd5"), "the jump it has is offered: {err}");
    // With the piece to jump, the same text is the chain.
    let p = clash("4k3/8/8/4p3/3p4/3T4/8/4K3 w - - 0 1");
    assert_eq!(p.parse_move("Td5f5").map(|m| p.canonical(&m)), Ok("d3d5f5".to_string()));
    // A letter that names no Rabbit of the mover's is still "you have none".
    let p = clash("4k3/8/8/8/3p4/8/8/4K3 w - - 0 1");
    let err = p.parse_move("Td5f5").unwrap_err().to_string();
    assert!(err.contains("you have no rabbit"), "{err}");
}

/// CA2: the square the Rabbit started from is empty once it has left, so a
/// chain may land there (once) and end where it began, taking all four
/// knights around it; the chain still never lands twice on one square.
#[test]
fn ca2_chain_ends_where_it_began() {
    let p = clash("k7/8/8/3n4/2n1n3/2Tn4/8/7K w - - 0 1");
    let moves = legal_from(&p, "c3");
    assert!(moves.contains("c3c5e5e3c3") && moves.contains("c3e3e5c5c3"), "{moves:?}");
    assert!(!moves.iter().any(|m| m.len() > 10), "no square is landed on twice: {moves:?}");
    let q = after(&p, "c3c5e5e3c3");
    assert_eq!(q.fen(), "k7/8/8/8/8/2T5/8/7K b - - 0 1");
    let m = p.parse_move("c3c5e5e3c3").unwrap();
    assert_eq!(p.san(&m), "Txc5xe5xe3xc3");
    assert_eq!(p.parse_move(&p.san(&m)), Ok(m), "{}", p.san(&m));
    let mut g = kibitz_rules::Game::from_position(p.clone());
    let played = g.play(m).unwrap();
    let mut taken: Vec<String> = played.taken.iter().map(|(sq, _)| sq.to_string()).collect();
    taken.sort();
    assert_eq!(taken, ["c4", "d3", "d5", "e4"]);
}

/// CA2: at the edge the Rabbit leaves the board with its victim.
#[test]
fn ca2_rabbit_leaves_the_board() {
    let p = clash("4k3/8/8/8/8/8/T7/n3K3 w - - 0 1");
    let q = after(&p, "a2a1x");
    assert_eq!(q.fen(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
}

/// CA2: a chain of jumps gives check: the leader at the chain's end is
/// attacked.
#[test]
fn ca2_check_by_a_chain() {
    let p = clash("3k4/8/3p4/8/3p4/3T4/8/4K3 b - - 0 1");
    assert!(p.is_check(), "d3 over d4 to d5, over d6 to d7, then the king on d8");
    // Moving the d6 pawn away breaks the chain and answers the check.
    assert!(legal(&p).contains("d6d5"));
}

/// CA4: the War Machine moves one or two squares orthogonally or one
/// diagonally, or shoots what it could capture without moving.
#[test]
fn ca4_war_machine() {
    let p = clash("4k3/8/8/3p4/8/3M4/8/4K3 w - - 0 1");
    let expected =
        set(&["d3d4", "d3d5", "d3d2", "d3d1", "d3c3", "d3b3", "d3e3", "d3f3", "d3c2", "d3c4", "d3e2", "d3e4", "d3^d5"]);
    assert_eq!(legal_from(&p, "d3"), expected);
    let q = after(&p, "d3^d5");
    assert_eq!(q.fen(), "4k3/8/8/8/8/3M4/8/4K3 b - - 0 1");
}

/// CA4: shooting is not moving: the King may still castle with the shooter.
#[test]
fn ca4_shooting_keeps_castling() {
    let p = clash("4k3/8/8/8/8/8/p7/M3K3 w Q - 0 1");
    let q = after(&p, "a1^a2");
    assert!(q.fen().contains(" b Q "), "{}", q.fen());
}

/// CA5: the Jester moves along paths of one to three orthogonal steps
/// through empty squares: 24 squares from d4 on an empty board.
#[test]
fn ca5_jester_paths() {
    let p = clash("7k/8/8/8/3J4/8/8/K7 w - - 0 1");
    assert_eq!(legal_from(&p, "d4").len(), 24);
    // Blocked on all four sides it cannot move at all.
    let p = clash("7k/8/8/3P4/2PJP3/3P4/8/K7 w - - 0 1");
    assert!(legal_from(&p, "d4").is_empty());
}

/// CA5 and the variant text's diagram: a Jester next to two pieces beside
/// their leader pins both, since either moving opens a path to the leader.
#[test]
fn ca5_jester_pins_the_diagram() {
    let p = clash("8/4nk2/4Jn2/8/8/8/8/K7 b - - 0 1");
    assert!(!p.is_check());
    assert!(legal_from(&p, "e7").is_empty(), "the knight on e7 is pinned");
    assert!(legal_from(&p, "f6").is_empty(), "the knight on f6 is pinned");
}

/// CA6: after a quiet move the Rogue is invulnerable until its owner's next
/// turn; after a capture it is not.
#[test]
fn ca6_rogue_invulnerable_after_a_quiet_move() {
    let p = clash("3rk3/8/8/8/3V4/8/8/4K3 w - - 0 1");
    let q = after(&p, "d4d6");
    assert_eq!(q.fen(), "3rk3/8/3V*4/8/8/8/8/4K3 b - - 1 1");
    assert!(!legal(&q).contains("d8d6"), "the Rogue cannot be taken");
    let r = after(&q, "e8f7");
    assert_eq!(r.fen(), "3r4/5k2/3V4/8/8/8/8/4K3 w - - 2 2");
}

/// CA7: a piece that captures the Phoenix is removed with it.
#[test]
fn ca7_phoenix_takes_its_captor() {
    let p = clash("4k3/8/8/3f4/8/8/8/3RK3 w - - 0 1");
    let q = after(&p, "d1d5");
    assert_eq!(q.fen(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
}

/// CA7: leaders may not capture the Phoenix, so a Phoenix beside a King
/// checks it and cannot be taken by it.
#[test]
fn ca7_leaders_do_not_capture_the_phoenix() {
    let p = clash("4k3/8/8/8/8/8/4f3/4K3 w - - 0 1");
    assert!(p.is_check());
    assert!(!legal(&p).contains("e1e2"));
}

/// CA8: the King castles with a Heavy piece on its corner.
#[test]
fn ca8_castling_with_heavy_pieces() {
    let p = clash("4k3/8/8/8/8/8/8/H3K2Y w KQ - 0 1");
    let moves = legal(&p);
    assert!(moves.contains("e1g1") && moves.contains("e1c1"), "{moves:?}");
    assert_eq!(after(&p, "e1g1").fen(), "4k3/8/8/8/8/8/8/H4YK1 b - - 1 1");
}

/// CA8: the shield is raised once, as a whole turn (`D`), and stays up
/// until its owner's third turn after it begins.
#[test]
fn ca8_shield_lasts_three_turns() {
    let p = clash("4k3/8/8/8/8/8/8/4S3 w D - 0 1");
    let mut q = after(&p, "D");
    assert!(q.fen().contains(" b D3 "), "{}", q.fen());
    for expected in ["D2", "D1"] {
        q = after(&q, if q.fen().contains("4k3") { "e8d8" } else { "d8e8" });
        assert!(q.fen().contains(&format!(" w {expected} ")), "{}", q.fen());
        q = after(&q, if q.fen().contains("4S3") { "e1d1" } else { "d1e1" });
    }
    let q = after(&q, if q.fen().contains("4k3") { "e8d8" } else { "d8e8" });
    assert!(q.fen().contains(" w - "), "the shield is down: {}", q.fen());
    assert!(!legal(&q).contains("D"), "and it is used up");
}

/// CA8, CA9: while the shield is up, the pieces orthogonally next to the
/// Shielderer cannot be captured; they still block.
#[test]
fn ca9_shielded_pieces_cannot_be_captured() {
    let p = clash("k3r3/8/8/8/8/8/4N3/4S3 b D3 - 0 1");
    let moves = legal_from(&p, "e8");
    assert!(!moves.contains("e8e2") && moves.contains("e8e3"), "{moves:?}");
}

/// CA9: an invulnerable leader that is attacked is not in check.
#[test]
fn ca9_invulnerable_leader_is_not_in_check() {
    let p = clash("4r2k/8/8/8/8/8/8/4S3 w D2 - 0 1");
    assert!(!p.is_check());
    let p = clash("4r2k/8/8/8/8/8/8/4S3 w D - 0 1");
    assert!(p.is_check(), "with the shield not raised the rook checks");
}

/// CA3: leapers from d4 on an open board: the Hawk's 16 leaps of exactly two
/// or three squares, the Kite's 12 orthogonal leaps of one to three, the
/// Waffle's 4 steps and 4 (2,2) leaps, the General's 8 steps and 8 leaps.
#[test]
fn ca3_leapers() {
    for (letter, count) in [('H', 16), ('Y', 12), ('W', 8), ('G', 16)] {
        let p = clash(&format!("k7/8/8/8/3{letter}4/8/8/7K w - - 0 1"));
        assert_eq!(legal_from(&p, "d4").len(), count, "{letter}");
    }
    // Leapers jump over pieces: a Hawk walled in by its own pawns still leaps.
    let p = clash("k7/8/8/2PPP3/2PHP3/2PPP3/8/7K w - - 0 1");
    assert_eq!(legal_from(&p, "d4").len(), 16);
}

/// Every legal move of `p` reads back from its SAN (G2).
fn assert_san_reads_back(p: &Position) {
    for m in p.legal_moves() {
        assert_eq!(p.parse_move(&p.san(&m)), Ok(m), "{}", p.san(&m));
    }
}

/// G2, CA2: every move's SAN reads back, a chain leaving the board (`Td6d8x`)
/// included (a case the property tests found).
#[test]
fn ca2_chain_san_reads_back() {
    let p = clash("2kt3R/B7/5a2/3n3w/2P5/3T4/8/OK1OO1OO w - - 0 1");
    let m = p.parse_move("d3d6d8x").expect("the chain exists");
    // The knight on d5 is taken on the way: `x` before that landing.
    assert_eq!(p.san(&m), "Txd6d8x+");
    assert_san_reads_back(&p);
}

/// G2, CA4: two War Machines that can shoot one target are told apart by
/// their squares (`Mc3^d4`); one alone is not (`M^d4`).
#[test]
fn ca4_shots_at_one_target_are_told_apart() {
    let p = clash("k7/8/8/8/3p4/2M1M3/8/7K w - - 0 1");
    let shot = p.parse_move("c3^d4").expect("the shot exists");
    assert_eq!(p.san(&shot), "Mc3^d4");
    assert_san_reads_back(&p);
    let alone = clash("k7/8/8/8/3p4/2M5/8/7K w - - 0 1");
    assert_eq!(alone.san(&alone.parse_move("c3^d4").expect("the shot exists")), "M^d4");
}

/// G2, CA2: two Rabbits whose chains land alike are told apart by their
/// squares, as other pieces are (another case the property tests found).
#[test]
fn ca2_rabbits_landing_alike_are_told_apart() {
    let p = clash("8/2Z3wJ/1oy2T2/2k2b2/1fT1p2H/J3c3/3P4/6K1 w - a6 6 155");
    let sans: Vec<String> = p.legal_moves().iter().map(|m| p.san(m)).collect();
    assert!(sans.iter().any(|s| s.starts_with("Tc4x")), "{sans:?}");
    assert!(sans.iter().any(|s| s.starts_with("Tf6x")), "{sans:?}");
    // A chain from f1 over f2 and a slide from f2 both end on f3.
    let q = clash("3Om3/k7/5E2/3wW3/8/KPwY4/1Y3T2/3O1TV1 w - - 110 263");
    let chain = q.legal_moves().into_iter().find(|m| matches!(m, Move::Chain { .. }) && m.to().to_string() == "f3");
    assert_eq!(q.san(&chain.expect("the chain exists")), "Tf1f3");
    assert_san_reads_back(&p);
    assert_san_reads_back(&q);
}

/// CA2: a trailing `x` is the Rabbit's exit with its edge victim and nothing
/// else: where no chain leaves the board there, the move is refused, never
/// read as the plain slide to that square.
#[test]
fn ca2_a_trailing_x_is_only_an_exit() {
    let p = clash("2kt3R/B7/5a2/3n3w/2P5/3T4/8/OK1OO1OO w - - 0 1");
    let exit = p.parse_move("d3d6d8x").expect("the chain exists");
    assert_eq!(p.parse_move("Txd6d8x"), Ok(exit));
    // d3 to d4 is a slide; `Td4x` asks for an exit there, which no chain makes.
    assert!(p.parse_move("Td4").is_ok());
    for text in ["Td4x", "d3d4x"] {
        let refused = p.parse_move(text).expect_err(text).to_string();
        assert!(
            refused.ends_with("no Rabbit of yours can jump a piece on d4 off the board (CA2)"),
            "{text}: {refused}"
        );
    }
}

/// CA8: a Shielderer leading the army is named as such when a move leaves
/// it in check, not called a king.
#[test]
fn ca8_a_shielderer_in_check_is_named() {
    // Black's Shielderer on e8 is checked by the bishop on b5 along the diagonal.
    let p = clash("4s3/7p/8/1B6/8/8/8/4K3 b - - 0 1");
    let refused = p.parse_move("h6").expect_err("h6 leaves the check").to_string();
    assert_eq!(
        refused,
        "h6 is not possible: your shielderer is in check from the bishop on b5 and that move does not answer it"
    );
}
