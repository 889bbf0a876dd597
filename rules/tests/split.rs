//! Construction with split powers: scenarios for the rulings CS1-CS5
//! (`shared/RULINGS.md`) and the notation of `rules/POWERS.md`.

mod common;

use common::{after, legal, legal_from, pos, set};
use kibitz_rules::{Color, Game, Position, Variant};

const ID: &str = "construction-split";

fn p(fen: &str) -> Position {
    pos(ID, fen)
}

#[test]
fn cs1_start_and_reserves() {
    let v = Variant::by_id(ID).expect("registered");
    let start = Position::new(v);
    assert_eq!(start.fen(), "4k3/8/8/8/8/8/8/4K3[S15T3U3D3E3H2I2F8G8C2s15t3u3d3e3h2i2f8g8c2] w - - 0 1");
    // C1's counts for each half, per side (slots 1-10: S, the halves, C).
    let counts: Vec<u8> = (1..=10).map(|slot| start.hand(Color::White, slot)).collect();
    assert_eq!(counts, [15, 3, 3, 3, 3, 2, 2, 8, 8, 2]);
    assert_eq!(counts, (1..=10).map(|slot| start.hand(Color::Black, slot)).collect::<Vec<_>>());
    // POWERS.md's example.
    let mut g = Game::new(v);
    for m in ["S@d2", "S@d7", "T>d2"] {
        g.play_text(m).unwrap();
    }
    assert_eq!(g.position().fen(), "4k3/3s4/8/8/8/8/3T4/4K3[S14T2U3D3E3H2I2F8G8C2s14t3u3d3e3h2i2f8g8c2] b - - 3 2");
}

#[test]
fn cs1_cs4_moving_rook_half_neither_captures_nor_checks() {
    // The moving Rook half on e1 looks up the file at the Black King and
    // along the rank at a Black rook: no check, no capture of the rook.
    let pos = p("4k3/8/8/8/8/8/7K/r3T3[] w - - 0 1");
    assert!(!pos.is_check());
    let rook = legal_from(&pos, "e1");
    assert!(!rook.contains("e1a1") && !rook.contains("e1e8"), "{rook:?}");
    assert!(rook.contains("e1b1") && rook.contains("e1e7"), "{rook:?}");
    // Nor does it pin: a Black piece between it and the Black King may
    // leave the file.
    let pin = p("4k3/4r3/8/8/8/8/8/K3T3[] b - - 0 1");
    assert!(legal_from(&pin, "e7").contains("e7a7"));
    // With the capturing half it does both.
    let full = p("4k3/4r3/8/8/8/8/8/K3R3[] b - - 0 1");
    assert!(!legal_from(&full, "e7").contains("e7a7"));
    assert!(p("4k3/8/8/8/8/8/8/K3U3[] b - - 0 1").is_check());
}

#[test]
fn cs1_cs4_capturing_knight_half_checks_but_cannot_move() {
    let pos = p("4k3/8/3I4/8/8/8/8/K7[] b - - 0 1");
    assert!(pos.is_check(), "CS4: the capturing Knight half gives check");
    // The Black King may not step onto a square the half attacks (f7).
    assert!(!legal(&pos).contains("e8f7"));
    // White's capturing half takes on b7 but steps nowhere.
    let white = p("7k/1r6/3I4/8/8/8/8/K7[] w - - 0 1");
    assert_eq!(legal_from(&white, "d6"), set(&["d6b7"]));
    // The moving half steps to the empty squares only.
    let mover = p("7k/1r6/3H4/8/8/8/8/K7[] w - - 0 1");
    assert_eq!(legal_from(&mover, "d6"), set(&["d6b5", "d6c4", "d6c8", "d6e4", "d6e8", "d6f5", "d6f7"]));
}

#[test]
fn cs3_pawn_halves() {
    // Moving half on its first rank: one or two steps, no capture.
    let pos = p("4k3/8/8/8/8/8/2r5/3FK3[] w - - 0 1");
    assert_eq!(legal_from(&pos, "d1"), set(&["d1d2", "d1d3"]));
    // Capturing half: diagonally forward onto enemy pieces only.
    let pos = p("4k3/8/8/8/8/8/2r5/3GK3[] w - - 0 1");
    assert_eq!(legal_from(&pos, "d1"), set(&["d1c2"]));
    // Black's move forward is down the board.
    let pos = p("3fk3/8/8/8/8/8/8/4K3[] b - - 5 9");
    assert_eq!(legal_from(&pos, "d8"), set(&["d8d7", "d8d6"]));
    // A moving-half step resets the clock, a plain move of another half does not.
    assert_eq!(after(&pos, "d8d6").halfmoves(), 0);
    // No en passant: the Pawn capturing half beside a double step gets nothing.
    let pos = p("4k3/8/8/8/8/4g3/8/3FK3[] w - - 0 1");
    let next = after(&pos, "d1d3");
    assert!(!legal_from(&next, "e3").contains("e3d2"), "no en passant (CS3)");
    assert!(next.fen().ends_with("b - - 0 1"));
}

#[test]
fn cs5_pawn_half_promoting_by_capture_removes_both_halves() {
    let pos = p("3r3k/4P3/8/8/8/8/8/K7[] w - - 4 30");
    let moves = legal_from(&pos, "e7");
    // Step and capture: nine rewards each (a static piece or any half).
    for to in ["e8", "d8"] {
        for reward in ["s", "t", "u", "d", "e", "h", "i", "f", "g"] {
            assert!(moves.contains(&format!("e7{to}{reward}")), "e7{to}{reward} in {moves:?}");
        }
    }
    assert_eq!(moves.len(), 18);
    let next = after(&pos, "e7d8u");
    assert_eq!(next.fen(), "3S3k/8/8/8/8/8/8/K7[U] b - - 0 30");
    // A Knight and a capturing Pawn half: only the Pawn half goes.
    let next = after(&p("3r3k/4(NG)3/8/8/8/8/8/K7[] w - - 0 1"), "e7d8s");
    assert_eq!(next.fen(), "3N3k/8/8/8/8/8/8/K7[S] b - - 0 1");
    // C4 with halves: the moving Rook half's own step onto e8 does not promote.
    let pos = p("7k/4(TF)3/8/8/8/8/8/K7[] w - - 0 1");
    let moves = legal_from(&pos, "e7");
    assert!(moves.contains("e7e8") && moves.contains("e7e8g"));
    assert_eq!(after(&pos, "e7e8").fen(), "4(TF)2k/8/8/8/8/8/8/K7[] b - - 1 1");
}

#[test]
fn cs2_grants_one_half_refused_if_held() {
    // A full Rook (both halves) takes no Rook half; the Bishop half goes.
    let pos = p("7k/8/8/8/8/8/8/K3R3[TUD] w - - 0 1");
    let grants: Vec<String> = legal(&pos).into_iter().filter(|t| t.contains('>')).collect();
    assert_eq!(grants, ["D>e1"]);
    // Halves join: the moving half given to a capturing half makes a Rook.
    let next = after(&p("7k/8/8/8/8/8/8/K3U3[T] w - - 0 1"), "T>e1");
    assert_eq!(next.fen(), "7k/8/8/8/8/8/8/K3R3[] b - - 1 1");
    // CS2: all four Rook and Bishop halves are a Queen.
    let next = after(&p("7k/8/8/8/8/8/8/K3(RD)3[E] w - - 0 1"), "E>e1");
    assert_eq!(next.fen(), "7k/8/8/8/8/8/8/K3Q3[] b - - 1 1");
    // CS3: no Pawn half to a piece on its last rank; others may go there.
    let pos = p("4S2k/8/8/8/8/8/8/K7[TFG] w - - 0 1");
    let grants: Vec<String> = legal(&pos).into_iter().filter(|t| t.contains('>')).collect();
    assert_eq!(grants, ["T>e8"]);
    // Friendly forms of a grant.
    let pos = p("7k/8/8/8/8/8/4S3/K7[TG] w - - 0 1");
    for text in ["T>e2", "give T e2", "give rook moving half e2"] {
        let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(pos.canonical(&m), "T>e2", "{text}");
    }
}

/// CS2: a group typed as its halves, or in another order, is read as SAN
/// writes the piece: `(TU)` is the Rook, `(ET)` the Rook-moving
/// Bishop-capturing piece `(TE)`.
#[test]
fn cs2_a_group_of_halves_is_read_as_the_piece_it_makes() {
    let pos = p("r3k3/8/8/8/2(TE)5/8/8/R3K3[] w - - 0 1");
    for (text, canonical) in [("(TU)a4", "a1a4"), ("(tu)xa8", "a1a8"), ("(UT)a2", "a1a2"), ("(ET)c8", "c4c8")] {
        let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(pos.canonical(&m), canonical, "{text}");
    }
}

#[test]
fn fen_groups_round_trip_and_refuse_halves_elsewhere() {
    for fen in [
        "4k2(fc)/8/8/8/2(TE)5/8/8/(RG)3K3[] w - - 0 1",
        "4k3/8/8/3(QI)4/8/8/8/4K3[S2Tu] w - - 0 1",
        "4k3/8/8/8/8/8/8/(UDHGC)3K3[] w - - 0 1",
    ] {
        assert_eq!(p(fen).fen(), fen);
    }
    // Both halves are written as the full letter.
    assert_eq!(p("4k3/8/8/8/8/8/8/(TU)3K3[] w - - 0 1").fen(), "4k3/8/8/8/8/8/8/R3K3[] w - - 0 1");
    // The halves' letters mean nothing in Construction.
    let construction = Variant::by_id("construction").unwrap();
    assert!(Position::from_fen(construction, "4k3/8/8/8/8/8/8/(TE)3K3[] w - - 0 1").is_err());
    assert!(Position::from_fen(construction, "4k3/8/8/8/8/8/8/4K3[T] w - - 0 1").is_err());
}
