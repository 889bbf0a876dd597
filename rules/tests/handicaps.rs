//! PA7: Power Absorption's handicaps, scenario by scenario from the ruling's
//! text ("`nopawn`: never the Pawn power; `noqueen`: nothing from a captured
//! piece that holds both Rook and Bishop powers; `plain`: nothing at all
//! ... A declining move exists only where absorbing was possible").

mod common;

use common::{after, legal_from, pos, set, sq};
use kibitz_rules::{Color, Game, Handicap, Handicaps, Position};

fn pa(fen: &str) -> Position {
    pos("absorption", fen)
}

/// The piece on `at`, as FEN writes it (`B`, `(BN)`, `q`).
fn piece(p: &Position, at: &str) -> String {
    p.piece_code(p.piece_at(sq(at)).unwrap_or_else(|| panic!("nothing on {at} in {p:?}")))
}

#[test]
fn pa7_plain_bishop_taking_a_knight_stays_a_bishop_without_declining_move() {
    let p = pa("4k3/8/2n5/8/4B3/8/8/4K3 w - - 0 1 h:W=plain");
    assert!(legal_from(&p, "e4").contains("e4c6"));
    assert!(!legal_from(&p, "e4").contains("e4c6-"), "PA7: nothing to decline");
    assert_eq!(piece(&after(&p, "e4c6"), "c6"), "B");
    // The same capture without the handicap: two moves (PA3).
    let free = pa("4k3/8/2n5/8/4B3/8/8/4K3 w - - 0 1");
    assert!(legal_from(&free, "e4").is_superset(&set(&["e4c6", "e4c6-"])));
    assert_eq!(piece(&after(&free, "e4c6"), "c6"), "(BN)");
    // Typing the declining form where there is no such move is refused,
    // with the reason.
    for text in ["Bxc6-", "Bxc6 keep", "e4c6-"] {
        let said = p.parse_move(text).unwrap_err().to_string();
        assert!(
            said.contains(
                "nothing to decline (White plays plain and absorbs nothing here): the capture is written Bxc6"
            ),
            "{text}: {said}"
        );
    }
    // PA3 without a handicap: a pawn taking a pawn has nothing to decline.
    let p = pa("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
    let said = p.parse_move("exd5-").unwrap_err().to_string();
    assert!(said.contains("there is nothing to decline: the capture is written exd5"), "{said}");
}

#[test]
fn pa7_plain_side_king_and_pawns_absorb_nothing() {
    // "ordinary chess pieces, its King included".
    let p = pa("4k3/8/8/8/8/8/3n4/4K3 w - - 0 1 h:W=plain");
    // (f1 is attacked by the knight.)
    assert_eq!(legal_from(&p, "e1"), set(&["e1d1", "e1d2", "e1e2", "e1f2"]));
    assert_eq!(piece(&after(&p, "e1d2"), "d2"), "K");
    // A pawn taking a rook while promoting to a knight: one move, a knight.
    let p = pa("4k2r/6P1/8/8/8/8/8/4K3 w - - 0 1 h:W=plain");
    let takes: Vec<String> = legal_from(&p, "g7").into_iter().filter(|t| t.starts_with("g7h8")).collect();
    assert_eq!(takes, ["g7h8b", "g7h8n", "g7h8q", "g7h8r"]);
    assert_eq!(piece(&after(&p, "g7h8n"), "h8"), "N");
}

#[test]
fn pa7_nopawn_knight_taking_a_pawn_stays_a_knight() {
    let p = pa("4k3/8/3p4/8/4N3/8/8/4K3 w - - 0 1 h:W=nopawn");
    assert!(legal_from(&p, "e4").contains("e4d6"));
    assert!(!legal_from(&p, "e4").contains("e4d6-"));
    assert_eq!(piece(&after(&p, "e4d6"), "d6"), "N");
    // A knight-pawn victim gives only its Knight power: a bishop becomes a
    // bishop-knight (and may decline), a knight absorbs nothing.
    let p = pa("4k3/8/2(np)5/8/4B3/8/8/4K3 w - - 0 1 h:W=nopawn");
    assert!(legal_from(&p, "e4").is_superset(&set(&["e4c6", "e4c6-"])));
    assert_eq!(piece(&after(&p, "e4c6"), "c6"), "(BN)");
    let p = pa("4k3/8/3(np)4/8/4N3/8/8/4K3 w - - 0 1 h:W=nopawn");
    assert!(!legal_from(&p, "e4").contains("e4d6-"));
    assert_eq!(piece(&after(&p, "e4d6"), "d6"), "N");
    // A pawn taking a rook while promoting to a knight still absorbs the
    // Rook power: a rook-knight, or a knight declining.
    let p = pa("4k2r/6P1/8/8/8/8/8/4K3 w - - 0 1 h:W=nopawn");
    assert!(legal_from(&p, "g7").is_superset(&set(&["g7h8n", "g7h8n-"])));
    assert_eq!(piece(&after(&p, "g7h8n"), "h8"), "(RN)");
}

#[test]
fn pa7_noqueen_rook_taking_a_queen_absorbs_nothing_taking_a_bishop_does() {
    let p = pa("4k3/8/8/8/q6R/8/8/4K3 w - - 0 1 h:W=noqueen");
    assert!(legal_from(&p, "h4").contains("h4a4"));
    assert!(!legal_from(&p, "h4").contains("h4a4-"));
    assert_eq!(piece(&after(&p, "h4a4"), "a4"), "R");
    let p = pa("4k3/8/8/8/b6R/8/8/4K3 w - - 0 1 h:W=noqueen");
    assert!(legal_from(&p, "h4").is_superset(&set(&["h4a4", "h4a4-"])));
    assert_eq!(piece(&after(&p, "h4a4"), "a4"), "Q");
    // A queen-knight holds both Rook and Bishop powers: nothing from it,
    // not even the Knight power.
    let p = pa("4k3/8/8/8/(qn)6R/8/8/4K3 w - - 0 1 h:W=noqueen");
    assert!(!legal_from(&p, "h4").contains("h4a4-"));
    assert_eq!(piece(&after(&p, "h4a4"), "a4"), "R");
}

#[test]
fn pa7_nopawn_and_noqueen_combine() {
    let h = "h:W=nopawn+noqueen";
    // A rook taking a bishop-pawn: the Bishop power, not the Pawn power.
    let p = pa(&format!("4k3/8/8/8/(bp)6R/8/8/4K3 w - - 0 1 {h}"));
    assert_eq!(piece(&after(&p, "h4a4"), "a4"), "Q");
    // A rook taking a queen-pawn: nothing.
    let p = pa(&format!("4k3/8/8/8/(qp)6R/8/8/4K3 w - - 0 1 {h}"));
    assert!(!legal_from(&p, "h4").contains("h4a4-"));
    assert_eq!(piece(&after(&p, "h4a4"), "a4"), "R");
    // PA7: plain covers both (words given together read as plain).
    let both = Handicaps::parse("white nopawn noqueen plain").unwrap();
    assert_eq!(both.white, Handicap::PLAIN);
}

#[test]
fn pa7_handicap_limits_only_its_own_side() {
    // White plain; Black's bishop still absorbs White's knight.
    let p = pa("4k3/8/2b5/8/4N3/8/8/4K3 b - - 0 1 h:W=plain");
    assert!(legal_from(&p, "c6").is_superset(&set(&["c6e4", "c6e4-"])));
    assert_eq!(piece(&after(&p, "c6e4"), "e4"), "(bn)");
    // Black nopawn: Black's knight stays a knight, White's absorbs.
    let p = pa("4k3/8/3n4/4P3/8/8/8/4K3 b - - 0 1 h:B=nopawn");
    assert_eq!(piece(&after(&p, "d6e4"), "e4"), "n");
    let p = pa("4k3/8/8/4p3/8/3N4/8/4K3 w - - 0 1 h:B=nopawn");
    assert_eq!(piece(&after(&p, "d3e5"), "e5"), "(NP)");
}

#[test]
fn pa7_en_passant_under_nopawn_has_no_declining_twin() {
    // The bishop-pawn on e4 takes the pawn that just double-stepped to d4.
    let p = pa("4k3/8/8/8/3P(bp)3/8/8/4K3 b - d3 0 1 h:B=nopawn");
    let from_e4 = legal_from(&p, "e4");
    assert!(from_e4.contains("e4d3") && !from_e4.contains("e4d3-"), "{from_e4:?}");
    assert_eq!(piece(&after(&p, "e4d3"), "d3"), "(bp)");
    // Without the handicap the same capture can decline... nothing either:
    // the bishop-pawn already holds the Pawn power (PA3).
    let free = pa("4k3/8/8/8/3P(bp)3/8/8/4K3 b - d3 0 1");
    assert!(!legal_from(&free, "e4").contains("e4d3-"));
    // A knight-pawn taking en passant under Black plain: nothing to decline.
    let p = pa("4k3/8/8/8/3P(np)3/8/8/4K3 b - d3 0 1 h:B=plain");
    assert!(!legal_from(&p, "e4").contains("e4d3-"));
}

#[test]
fn pa7_fen_field_round_trips_and_old_fens_still_read() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for field in ["h:W=plain", "h:B=nopawn+noqueen", "h:W=noqueen,B=plain"] {
        let fen = format!("{start} {field}");
        assert_eq!(pa(&fen).fen(), fen);
    }
    // Words in another order are written canonically; plain covers all.
    assert_eq!(pa(&format!("{start} h:B=noqueen+nopawn")).fen(), format!("{start} h:B=nopawn+noqueen"));
    assert_eq!(pa(&format!("{start} h:W=nopawn+plain")).fen(), format!("{start} h:W=plain"));
    // Without the field: no handicap, and the FEN is unchanged.
    let old = pa(start);
    assert!(old.handicaps().is_none());
    assert_eq!(old.fen(), start);
    // The move-number fields may still be left out.
    assert_eq!(pa("4k3/8/8/8/8/8/8/4K3 w - - h:W=plain").fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1 h:W=plain");
    // A handicap changes the position (and its hash).
    assert_ne!(pa(&format!("{start} h:W=plain")).hash(), old.hash());
    // Bad fields and other games are refused with a reason.
    for bad in ["h:", "h:W=", "h:W=plain,W=nopawn", "h:X=plain", "h:W=plan"] {
        let e = Position::from_fen(common::variant("absorption"), &format!("{start} {bad}")).unwrap_err();
        assert!(e.to_string().contains("handicap"), "{bad}: {e}");
    }
    let e = Position::from_fen(common::variant("chess"), &format!("{start} h:W=plain")).unwrap_err();
    assert!(e.to_string().contains("Power Absorption"), "{e}");
    assert!(Position::new(common::variant("chess")).with_handicaps(Handicaps::parse("white plain").unwrap()).is_err());
}

#[test]
fn pa7_game_reports_no_absorption_for_a_plain_capture() {
    let start = pa("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 h:W=plain");
    let mut g = Game::from_position(start);
    for m in ["e4", "d5", "Bb5+", "c6"] {
        g.play_text(m).unwrap();
    }
    let played = g.play_text("Bxc6+").unwrap();
    assert!(played.absorbed.is_none());
    let played = g.play_text("Nxc6").unwrap();
    assert!(played.absorbed.is_some(), "Black is not handicapped: its knight absorbs the bishop");
    assert_eq!(g.position().handicaps().of(Color::White), Handicap::PLAIN);
    assert!(g.position().fen().ends_with(" h:W=plain"));
}
