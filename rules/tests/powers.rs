//! Scenario tests for Power Absorption Chess (`absorption`, rulings PA1-PA6)
//! and Construction Chess (`construction`, rulings C1-C7), with the G rulings
//! they lean on and the notation of `POWERS.md`. Each test names the ruling it
//! checks; expected move sets are worked out by hand from the ruling texts
//! and the variant texts in `shared/variants/`.

mod common;

use std::collections::BTreeSet;

use kibitz_rules::{Color, EndReason, Game, Move, MoveError, Position, Powers, Promote, Why, perft};

/// A Power Absorption position.
use common::{after, draw, legal, legal_from, play_all, pos, set, sq, variant, win};

fn pa(fen: &str) -> Position {
    pos("absorption", fen)
}

/// A Construction position.
fn co(fen: &str) -> Position {
    pos("construction", fen)
}

/// Canonical tokens of the legal grants (`R>e2`).
fn grants(p: &Position) -> BTreeSet<String> {
    legal(p).into_iter().filter(|t| t.contains('>')).collect()
}

/// Canonical tokens of the legal drops (`S@d2`).
fn drops(p: &Position) -> BTreeSet<String> {
    legal(p).into_iter().filter(|t| t.contains('@')).collect()
}

/// The powers of the piece on `at`.
fn powers(p: &Position, at: &str) -> Powers {
    p.piece_at(sq(at)).unwrap_or_else(|| panic!("no piece on {at} in {p:?}")).powers
}

/// Squares named in a space-separated list, each prefixed with `from`.
fn moves_to(from: &str, targets: &str) -> Vec<String> {
    targets.split_whitespace().map(|t| format!("{from}{t}")).collect()
}

fn strings(v: Vec<String>) -> BTreeSet<String> {
    v.into_iter().collect()
}

/// Construction's reserve slot (piece-type index) of a letter.
fn slot(letter: char) -> u8 {
    variant("construction").piece_index(letter).unwrap_or_else(|| panic!("no construction piece {letter}"))
}

const BN: Powers = Powers::BISHOP.with(Powers::KNIGHT);
const RN: Powers = Powers::ROOK.with(Powers::KNIGHT);
const QN: Powers = Powers::QUEEN.with(Powers::KNIGHT);
const RP: Powers = Powers::ROOK.with(Powers::PAWN);
const KQ: Powers = Powers::KING.with(Powers::QUEEN);

const CONSTRUCTION_START: &str = "4k3/8/8/8/8/8/8/4K3[S15R3B3N2P8C2s15r3b3n2p8c2] w - - 0 1";

// ================================================================ PA1

/// PA1: FIDE setup; the first moves are chess's twenty, and no capture is
/// possible in the first two plies (perft 2 = 400 as in chess).
#[test]
fn pa1_fide_setup_and_first_moves() {
    let p = Position::new(variant("absorption"));
    assert_eq!(p.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let mut expected: Vec<String> = Vec::new();
    for f in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        expected.push(format!("{f}2{f}3"));
        expected.push(format!("{f}2{f}4"));
    }
    expected.extend(["b1a3", "b1c3", "g1f3", "g1h3"].map(String::from));
    assert_eq!(legal(&p), strings(expected));
    let king = p.piece_at(sq("e1")).unwrap();
    assert!(king.royal);
    assert_eq!(king.powers, Powers::KING);
    assert_eq!(powers(&p, "d1"), Powers::QUEEN, "PA2: the queen is Rook + Bishop");
    assert_eq!(powers(&p, "g8"), Powers::KNIGHT);
    assert_eq!(p.piece_at(sq("g8")).unwrap().color, Color::Black);
    assert_eq!(perft(&p, 2), 400);
}

/// PA1: castling as in chess, only with a King and a rook that have never
/// moved: a King that went and came back has lost both rights, a rook that
/// did has lost its own.
#[test]
fn pa1_castling_only_with_unmoved_king_and_rook() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let p = pa(fen);
    assert_eq!(legal_from(&p, "e1"), set(&["e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "e1g1", "e1c1"]));
    let castled = after(&p, "O-O");
    assert_eq!(castled.fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    assert_eq!(powers(&castled, "f1"), Powers::ROOK, "castling is chess castling: the rook stays a rook");
    assert_eq!(powers(&castled, "g1"), Powers::KING);

    let mut g = Game::from_position(pa(fen));
    play_all(&mut g, &["e1e2", "e8e7", "e2e1", "e7e8"]);
    assert_eq!(g.position().fen(), "r3k2r/8/8/8/8/8/8/R3K2R w - - 4 3");
    assert_eq!(legal_from(g.position(), "e1"), set(&["e1d1", "e1d2", "e1e2", "e1f1", "e1f2"]));

    let mut g = Game::from_position(pa(fen));
    play_all(&mut g, &["h1h2", "h8h7", "h2h1", "h7h8"]);
    assert_eq!(g.position().fen(), "r3k2r/8/8/8/8/8/8/R3K2R w Qq - 4 3");
    assert!(legal_from(g.position(), "e1").contains("e1c1"));
    assert!(!legal_from(g.position(), "e1").contains("e1g1"));

    // A rook taken on its corner takes its right with it (the bishop that
    // takes it becomes a queen and checks along the first rank).
    let taken = after(&pa("4k3/8/8/8/8/8/6b1/R3K2R b KQ - 0 1"), "g2h1");
    assert_eq!(taken.fen(), "4k3/8/8/8/8/8/8/R3K2q w Q - 0 2");
    assert!(taken.is_check());

    // A compound on h1 has captured, so it has moved: no right goes with it.
    assert_eq!(pa("r3k2r/8/8/8/8/8/8/R3K2(RN) w KQkq - 0 1").fen(), "r3k2r/8/8/8/8/8/8/R3K2(RN) w Qkq - 0 1");
}

/// PA1, G4: the fifty-move rule ends the game at once; a capture resets the
/// count; a checkmate on the last move still wins.
#[test]
fn pa1_fifty_move_rule_draws() {
    let mut g = Game::from_position(pa("4k3/8/8/8/8/8/8/R3K3 w - - 99 80"));
    assert_eq!(g.outcome(), None);
    assert_eq!(play_all(&mut g, &["a1a2"]), vec![draw(EndReason::FiftyMoves)]);
    assert!(g.legal_moves().is_empty(), "G5: a finished game has no legal moves");

    let mut g = Game::from_position(pa("4k3/8/8/8/8/8/p7/R3K3 w - - 99 80"));
    assert_eq!(play_all(&mut g, &["a1a2"]), vec![None]);
    assert_eq!(g.position().halfmoves(), 0);

    // A mate on the hundredth half-move is a mate.
    let mut g = Game::from_position(pa("k7/8/1K6/8/8/8/8/7R w - - 99 80"));
    assert_eq!(play_all(&mut g, &["Rh8"]), vec![win(Color::White, EndReason::Checkmate)]);
}

/// PA1, G4: threefold repetition draws at once; stalemate draws; there is no
/// insufficient-material draw outside `chess`.
#[test]
fn pa1_repetition_stalemate_and_no_material_draw() {
    let mut g = Game::from_position(pa("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"));
    let outcomes = play_all(&mut g, &["a1a2", "e8d8", "a2a1", "d8e8", "a1a2", "e8d8", "a2a1", "d8e8"]);
    assert!(outcomes[..7].iter().all(Option::is_none), "{outcomes:?}");
    assert_eq!(outcomes[7], draw(EndReason::Repetition));

    let g = Game::from_position(pa("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"));
    assert_eq!(g.outcome(), draw(EndReason::Stalemate));

    let g = Game::from_position(pa("4k3/8/8/8/8/8/8/4K3 w - - 0 1"));
    assert_eq!(g.outcome(), None, "G4: insufficient material is a draw only in chess");
}

/// PA1: checkmate ends the game as in chess: the fool's mate is mate here
/// too (nothing can take the queen, block on g3 or f2, or flee).
#[test]
fn pa1_checkmate_ends_the_game() {
    let mut g = Game::new(variant("absorption"));
    let outcomes = play_all(&mut g, &["f3", "e5", "g4"]);
    assert!(outcomes.iter().all(Option::is_none));
    let played = g.play_text("Qh4").unwrap();
    assert_eq!((played.canonical.as_str(), played.san.as_str()), ("d8h4", "Qh4#"));
    assert_eq!(played.outcome, win(Color::Black, EndReason::Checkmate));
    assert_eq!(g.outcome(), win(Color::Black, EndReason::Checkmate));
}

// ================================================================ PA2

/// PA2: a piece moves with any of its powers: a bishop-knight has exactly
/// the bishop's moves and the knight's.
#[test]
fn pa2_compound_moves_with_every_power() {
    let p = pa("4k3/8/8/8/3(BN)4/8/8/K7 w - - 0 1");
    let mut expected = moves_to("d4", "c3 b2 e5 f6 g7 h8 c5 b6 a7 e3 f2 g1");
    expected.extend(moves_to("d4", "b3 b5 c2 c6 e2 e6 f3 f5"));
    assert_eq!(legal_from(&p, "d4"), strings(expected));
    assert_eq!(legal_from(&p, "a1"), set(&["a1a2", "a1b1", "a1b2"]));
}

/// PA2: Queen is Rook plus Bishop: a rook taking a bishop becomes a queen,
/// written `Q`, with exactly a chess queen's moves.
#[test]
fn pa2_rook_taking_bishop_is_a_queen() {
    let p = pa("4k3/8/8/8/8/8/8/Rb2K3 w - - 0 1");
    assert_eq!(legal_from(&p, "a1"), strings(moves_to("a1", "b1 b1- a2 a3 a4 a5 a6 a7 a8")));
    let q = after(&p, "a1b1");
    assert_eq!(powers(&q, "b1"), Powers::QUEEN);
    assert_eq!(q.fen(), "4k3/8/8/8/8/8/8/1Q2K3 b - - 0 1");
    assert_eq!(powers(&after(&p, "a1b1-"), "b1"), Powers::ROOK);

    let fen = "4k3/8/8/8/8/8/8/1Q2K3 w - - 0 1";
    let queen = legal_from(&pa(fen), "b1");
    assert_eq!(queen.len(), 17, "3 along the rank, 7 up the file, 7 on the diagonals");
    assert_eq!(queen, legal_from(&pos("chess", fen), "b1"));
}

/// PA2, PA3: "a rook capturing a queen becomes queen!"; declining keeps the rook.
#[test]
fn pa2_rook_taking_queen_becomes_queen() {
    // The queen on b1 checks along the first rank: only its capture or three
    // King steps answer it.
    let p = pa("4k3/8/8/8/8/8/8/Rq2K3 w - - 0 1");
    assert!(p.is_check());
    assert_eq!(legal(&p), set(&["a1b1", "a1b1-", "e1d2", "e1e2", "e1f2"]));
    assert_eq!(powers(&after(&p, "a1b1"), "b1"), Powers::QUEEN);
    assert_eq!(powers(&after(&p, "a1b1-"), "b1"), Powers::ROOK);
}

// ================================================================ PA3

/// PA3: the captor adds its victim's powers: 1.e4 e5 2.Bb5 Nc6 3.Bxc6 makes
/// the bishop-knight of POWERS.md's example; `b5c6-` declines and keeps the
/// bishop.
#[test]
fn pa3_capturing_piece_absorbs_the_victim() {
    let mut g = Game::new(variant("absorption"));
    play_all(&mut g, &["e4", "e5", "Bb5", "Nc6"]);
    let p = g.position().clone();
    assert_eq!(p.fen(), "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3");
    assert_eq!(legal_from(&p, "b5"), set(&["b5a6", "b5a4", "b5c4", "b5d3", "b5e2", "b5f1", "b5c6", "b5c6-"]));
    let played = g.play_text("Bxc6").unwrap();
    assert_eq!(played.canonical, "b5c6");
    assert_eq!(g.position().fen(), "r1bqkbnr/pppp1ppp/2(BN)5/4p3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 0 3");
    assert_eq!(powers(g.position(), "c6"), BN);

    let kept = after(&p, "b5c6-");
    assert_eq!(kept.fen(), "r1bqkbnr/pppp1ppp/2B5/4p3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 0 3");
    assert_eq!(powers(&kept, "c6"), Powers::BISHOP);
}

/// PA3: declining is a move of its own only where it ends with a different
/// piece: a pawn taking a pawn is one move, a bishop taking a knight two, a
/// rook taking a rook, a queen taking a bishop and a bishop-knight taking a
/// knight one each.
#[test]
fn pa3_declining_is_a_move_only_where_it_differs() {
    let p = pa("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
    assert_eq!(legal_from(&p, "e4"), set(&["e4e5", "e4d5"]));

    let p = pa("r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3");
    let to_c6: BTreeSet<String> = legal(&p).into_iter().filter(|t| t.starts_with("b5c6")).collect();
    assert_eq!(to_c6, set(&["b5c6", "b5c6-"]));

    let p = pa("4k3/8/8/8/8/8/7r/4K2R w - - 0 1");
    assert_eq!(legal_from(&p, "h1"), set(&["h1h2", "h1g1", "h1f1"]));

    let p = pa("4k3/8/8/8/8/8/6b1/4K2Q w - - 0 1");
    assert_eq!(legal_from(&p, "h1"), strings(moves_to("h1", "g1 f1 h2 h3 h4 h5 h6 h7 h8 g2")));

    let p = pa("4k3/8/8/8/8/2n5/8/(BN)3K3 w - - 0 1");
    assert_eq!(legal_from(&p, "a1"), set(&["a1b2", "a1c3", "a1b3", "a1c2"]));
    // The group may be typed in any order or case (SAN writes `(BN)`).
    for text in ["(BN)xc3", "(NB)xc3", "(nb)xc3", "(bn)b3"] {
        assert!(p.parse_move(text).is_ok(), "{text}");
    }
}

/// PA3 with PA5: a pawn taking a rook while promoting to a queen is one move
/// (Queen either way), to a rook one, to a bishop two (Queen or Bishop), to
/// a knight two (`g7h8n` a rook-knight, `g7h8n-` a knight).
#[test]
fn pa3_pawn_taking_rook_while_promoting() {
    let p = pa("4k2r/6P1/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        legal_from(&p, "g7"),
        set(&["g7g8q", "g7g8r", "g7g8b", "g7g8n", "g7h8q", "g7h8r", "g7h8b", "g7h8b-", "g7h8n", "g7h8n-"])
    );
    for (token, expected) in [
        ("g7h8q", Powers::QUEEN),
        ("g7h8r", Powers::ROOK),
        ("g7h8b", Powers::QUEEN),
        ("g7h8b-", Powers::BISHOP),
        ("g7h8n", RN),
        ("g7h8n-", Powers::KNIGHT),
    ] {
        assert_eq!(powers(&after(&p, token), "h8"), expected, "{token}");
    }
    assert_eq!(after(&p, "g7h8n").fen(), "4k2(RN)/8/8/8/8/8/8/4K3 b - - 0 1");
}

/// PA3: the King may absorb (a King taking a knight becomes a King-Knight,
/// written `(KN)`), or decline.
#[test]
fn pa3_king_absorbs() {
    let p = pa("4k3/8/8/8/8/8/3n4/4K3 w - - 0 1");
    // f1 is covered by the knight.
    assert_eq!(legal_from(&p, "e1"), set(&["e1d1", "e1d2", "e1d2-", "e1e2", "e1f2"]));
    let kn = after(&p, "e1d2");
    let king = kn.piece_at(sq("d2")).unwrap();
    assert!(king.royal);
    assert_eq!(king.powers, Powers::KING.with(Powers::KNIGHT));
    assert_eq!(kn.fen(), "4k3/8/8/8/8/8/3(KN)4/8 b - - 0 1");
    assert_eq!(powers(&after(&p, "e1d2-"), "d2"), Powers::KING);
}

/// PA3, PA6: a King taking a queen becomes a King-Queen and, with nothing of
/// Black's guarding the e-file, checks the Black King at once.
#[test]
fn pa3_king_taking_queen_checks_at_once() {
    let p = pa("4k3/8/8/8/8/8/4q3/4K3 w - - 0 1");
    assert!(p.is_check());
    assert_eq!(legal(&p), set(&["e1e2", "e1e2-"]));
    let kq = after(&p, "e1e2");
    assert_eq!(kq.fen(), "4k3/8/8/8/8/8/4(KQ)3/8 b - - 0 1");
    assert!(kq.is_check());
    assert!(!after(&p, "e1e2-").is_check());
}

/// PA3: the King is never captured. Here a knight covers a4 and a6, so the
/// King-Rook's file is cut (PA6): Black is not in check and no White move
/// lands on a8. Without the knight the same line is check, and a position
/// with the side not to move in check is refused.
#[test]
fn pa3_king_is_never_captured() {
    let p = pa("k7/8/8/2n5/8/8/8/(KR)7 w - - 0 1");
    assert!(!p.is_check());
    assert_eq!(legal_from(&p, "a1"), strings(moves_to("a1", "a2 a3 b2 b1 c1 d1 e1 f1 g1 h1")));
    assert!(p.legal_moves().iter().all(|m| m.to() != sq("a8")));
    assert!(Position::from_fen(variant("absorption"), "k7/8/8/8/8/8/8/(KR)7 w - - 0 1").is_err());
}

// ================================================================ PA4

/// PA4: a bishop-pawn steps one forward, two from its second rank, and
/// slides as a bishop. The diagonal step `c2d3` is the Bishop power's
/// alone, no pawn move, so it does not reset the fifty-move count; the pawn
/// steps do.
#[test]
fn pa4_compound_pawn_steps_and_double_step() {
    let p = pa("4k3/8/8/8/8/8/2(BP)5/4K3 w - - 7 20");
    assert_eq!(legal_from(&p, "c2"), strings(moves_to("c2", "c3 c4 b1 d1 b3 a4 d3 e4 f5 g6 h7")));
    assert_eq!(after(&p, "c2d3").halfmoves(), 8);
    assert_eq!(after(&p, "c2c3").halfmoves(), 0);
    assert_eq!(after(&p, "c2c4").fen(), "4k3/8/8/8/2(BP)5/8/8/4K3 b - - 0 20");

    let p = pa("4k3/8/8/8/8/2(BP)5/8/4K3 w - - 0 1");
    assert!(legal_from(&p, "c3").contains("c3c4"));
    assert!(!legal_from(&p, "c3").contains("c3c5"), "two steps only from the second rank");
}

/// PA4: the rook-pawn's `a2a4` is one move (Rook and Pawn power both make
/// it) and a pawn move: it resets the count and allows en passant, which the
/// b4 pawn takes, absorbing or declining the Rook power.
#[test]
fn pa4_en_passant_against_a_compound_that_double_stepped() {
    let p = pa("4k3/8/8/8/1p6/8/(RP)7/4K3 w - - 5 10");
    let tokens: Vec<String> = p.legal_moves().iter().map(|m| p.canonical(m)).filter(|t| t == "a2a4").collect();
    assert_eq!(tokens.len(), 1, "a shared step is one move");
    let q = after(&p, "a2a4");
    assert_eq!(q.fen(), "4k3/8/8/8/(RP)p6/8/8/4K3 b - a3 0 10");
    assert_eq!(legal_from(&q, "b4"), set(&["b4b3", "b4a3", "b4a3-"]));
    assert!(matches!(q.parse_move("b4a3"), Ok(Move::EnPassant { .. })));
    assert_eq!(after(&q, "b4a3").fen(), "4k3/8/8/8/8/(rp)7/8/4K3 w - - 0 11");
    assert_eq!(after(&q, "b4a3-").fen(), "4k3/8/8/8/8/p7/8/4K3 w - - 0 11");
    assert_eq!(after(&p, "a2a3").halfmoves(), 0, "a shared single step is a pawn move too");

    // A plain rook's a2a4 is no pawn move: no en passant, the count goes on.
    let r = after(&pa("4k3/8/8/8/1p6/8/R7/4K3 w - - 5 10"), "a2a4");
    assert_eq!(r.fen(), "4k3/8/8/8/Rp6/8/8/4K3 b - - 6 10");
    assert_eq!(legal_from(&r, "b4"), set(&["b4b3"]));

    // Two squares from the third rank is the Rook power alone.
    let r = after(&pa("4k3/8/8/1p6/8/(RP)7/8/4K3 w - - 5 10"), "a3a5");
    assert_eq!(r.fen(), "4k3/8/8/(RP)p6/8/8/8/4K3 b - - 6 10");
}

/// PA4: a bishop-pawn beside the passed square takes en passant; its bishop
/// move to e3 is that same capture (one move), and absorbing a pawn it
/// already has offers no declining twin.
#[test]
fn pa4_en_passant_by_a_bishop_pawn_is_one_move() {
    let p = after(&pa("4k3/8/8/8/3(bp)4/8/4P3/4K3 w - - 0 1"), "e2e4");
    assert_eq!(p.fen(), "4k3/8/8/8/3(bp)P3/8/8/4K3 b - e3 0 1");
    assert_eq!(legal_from(&p, "d4"), strings(moves_to("d4", "c3 b2 a1 e3 f2 g1 c5 b6 a7 e5 f6 g7 h8 d3")));
    assert!(matches!(p.parse_move("d4e3"), Ok(Move::EnPassant { keep: false, .. })));
    assert_eq!(after(&p, "d4e3").fen(), "4k3/8/8/8/8/4(bp)3/8/4K3 w - - 0 2");
}

/// PA4 (POWERS.md): a piece without the Pawn power that goes to the en
/// passant square makes an ordinary move; the pawn beside takes en passant.
#[test]
fn pa4_other_pieces_on_the_en_passant_square_move_ordinarily() {
    let p = after(&pa("4k3/8/8/2b5/5p2/8/4P3/4K3 w - - 0 1"), "e2e4");
    assert_eq!(p.fen(), "4k3/8/8/2b5/4Pp2/8/8/4K3 b - e3 0 1");
    assert_eq!(after(&p, "c5e3").fen(), "4k3/8/8/8/4Pp2/4b3/8/4K3 w - - 1 2");
    assert_eq!(after(&p, "f4e3").fen(), "4k3/8/8/2b5/8/4p3/8/4K3 w - - 0 2");
}

/// PA4: a King holding the Pawn power gets no pawn moves: no double step,
/// its steps are King moves (the count goes on), no en passant, and no en
/// passant square is written for it.
#[test]
fn pa4_king_with_pawn_power_gets_no_pawn_moves() {
    let p = pa("4k3/8/8/8/8/8/4(KP)3/8 w - - 3 5");
    assert_eq!(legal_from(&p, "e2"), strings(moves_to("e2", "d1 d2 d3 e1 e3 f1 f2 f3")));
    assert_eq!(after(&p, "e2e3").halfmoves(), 4);

    let p = after(&pa("4k3/4p3/8/3(KP)4/8/8/8/8 b - - 0 1"), "e7e5");
    assert_eq!(p.fen(), "4k3/8/8/3(KP)p3/8/8/8/8 w - - 0 2");
    // d4 is covered by the e5 pawn; e5 is taken once (a pawn adds nothing).
    assert_eq!(legal(&p), strings(moves_to("d5", "c4 c5 c6 d6 e4 e5 e6")));
    let q = after(&p, "d5e6");
    assert_eq!(q.piece_at(sq("e5")).map(|x| (x.color, x.powers)), Some((Color::Black, Powers::PAWN)));
}

/// PA4, PA5: "except onto the last rank: there the pawn move promotes (PA5)
/// and the other power's move (`e7e8`) does not": the rook-pawn's step onto
/// e8 is the four promoting pawn moves and, as a move of its own, the Rook's
/// `e7e8`, which keeps the Pawn power and is no pawn move (the count goes
/// on). Reaching the last rank by the Rook power alone (`e6e8`) promotes
/// nothing either.
#[test]
fn pa4_shared_step_onto_last_rank_promotes_or_not() {
    let p = pa("7k/4(RP)3/8/8/8/8/8/K7 w - - 3 1");
    let mut expected = moves_to("e7", "a7 b7 c7 d7 f7 g7 h7 e6 e5 e4 e3 e2 e1 e8");
    expected.extend(moves_to("e7", "e8q e8r e8b e8n"));
    assert_eq!(legal_from(&p, "e7"), strings(expected));
    assert_eq!(powers(&after(&p, "e7e8n"), "e8"), RN);
    assert_eq!(after(&p, "e7e8").fen(), "4(RP)2k/8/8/8/8/8/8/K7 b - - 4 1");

    // A bishop-pawn's capture on d8 is a pawn capture, promoting, and a
    // bishop capture, not promoting (each declinable where that differs,
    // PA3); f8, reached by the Bishop power alone, promotes nothing.
    let p = pa("3r3k/4(BP)3/8/8/8/8/8/K7 w - - 0 1");
    let expected = moves_to("e7", "d8 d8- d8q d8r d8b d8b- d8n d8n- e8q e8r e8b e8n f8 d6 c5 b4 a3 f6 g5 h4");
    assert_eq!(legal_from(&p, "e7"), strings(expected));
    assert_eq!(powers(&after(&p, "e7f8"), "f8"), Powers::BISHOP.with(Powers::PAWN));
    assert_eq!(powers(&after(&p, "e7d8n"), "d8"), QN);
    assert_eq!(powers(&after(&p, "e7d8n-"), "d8"), BN);

    let p = pa("7k/8/4(RP)3/8/8/8/8/K7 w - - 0 1");
    let q = after(&p, "e6e8");
    assert_eq!(powers(&q, "e8"), RP);
    assert_eq!(q.fen(), "4(RP)2k/8/8/8/8/8/8/K7 b - - 1 1");
}

// ================================================================ PA5

/// PA5: promotion replaces the Pawn power: a knight-pawn becomes a
/// queen-knight, rook-knight, bishop-knight or knight.
#[test]
fn pa5_promotion_replaces_the_pawn_power() {
    let p = pa("k7/4(NP)3/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(legal_from(&p, "e7"), strings(moves_to("e7", "c8 g8 c6 g6 d5 f5 e8q e8r e8b e8n")));
    for (token, expected) in [("e7e8q", QN), ("e7e8r", RN), ("e7e8b", BN), ("e7e8n", Powers::KNIGHT)] {
        assert_eq!(powers(&after(&p, token), "e8"), expected, "{token}");
    }
    assert_eq!(after(&p, "e7e8q").fen(), "k3(QN)3/8/8/8/8/8/8/4K3 b - - 0 1");
}

/// PA5: the four choices are four moves even where they make the same piece
/// (a queen-pawn promoting to Q, R or B is a Queen each time); the Bishop
/// power's move onto b8 promotes nothing and keeps the Pawn power.
#[test]
fn pa5_four_choices_are_four_moves() {
    let p = pa("8/(QP)7/8/7k/8/8/8/7K w - - 0 1");
    let from_a7 = legal_from(&p, "a7");
    for t in ["a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8"] {
        assert!(from_a7.contains(t), "{t}");
    }
    // PA4: the Queen power's own step onto a8 is a fifth move, no promotion.
    assert!(from_a7.contains("a7a8"));
    assert_eq!(powers(&after(&p, "a7a8"), "a8"), Powers::QUEEN.with(Powers::PAWN));
    for (token, expected) in
        [("a7a8q", Powers::QUEEN), ("a7a8r", Powers::QUEEN), ("a7a8b", Powers::QUEEN), ("a7a8n", QN)]
    {
        assert_eq!(powers(&after(&p, token), "a8"), expected, "{token}");
    }
    let b8 = after(&p, "a7b8");
    assert_eq!(powers(&b8, "b8"), Powers::QUEEN.with(Powers::PAWN));
    assert_eq!(b8.fen(), "1(QP)6/8/8/7k/8/8/8/7K b - - 1 1");
}

/// PA5: absorption happens first, so the result never keeps the Pawn power:
/// a pawn taking a knight-pawn on the last rank while promoting to Q makes a
/// queen-knight (`g7h8q`) or, declining, a queen (`g7h8q-`); to N it makes a
/// knight either way (one move).
#[test]
fn pa5_absorption_happens_before_promotion() {
    let p = pa("4k2(np)/6P1/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        legal_from(&p, "g7"),
        set(&["g7g8q", "g7g8r", "g7g8b", "g7g8n", "g7h8q", "g7h8q-", "g7h8r", "g7h8r-", "g7h8b", "g7h8b-", "g7h8n"])
    );
    for (token, expected) in [
        ("g7h8q", QN),
        ("g7h8q-", Powers::QUEEN),
        ("g7h8r", RN),
        ("g7h8r-", Powers::ROOK),
        ("g7h8b", BN),
        ("g7h8b-", Powers::BISHOP),
        ("g7h8n", Powers::KNIGHT),
    ] {
        let result = powers(&after(&p, token), "h8");
        assert_eq!(result, expected, "{token}");
        assert!(!result.contains(Powers::PAWN), "{token}");
    }
}

/// PA5: a rook taking a bishop-pawn on the last rank absorbs the Pawn power
/// but does not promote: it did not get there by a pawn move.
#[test]
fn pa5_other_powers_reaching_the_last_rank_promote_nothing() {
    let p = pa("(bp)3k3/R7/8/8/8/8/8/4K3 w - - 0 1");
    let to_a8: BTreeSet<String> = legal(&p).into_iter().filter(|t| t.starts_with("a7a8")).collect();
    assert_eq!(to_a8, set(&["a7a8", "a7a8-"]));
    assert_eq!(powers(&after(&p, "a7a8"), "a8"), Powers::QUEEN.with(Powers::PAWN));
    assert_eq!(after(&p, "a7a8").fen(), "(QP)3k3/8/8/8/8/8/8/4K3 b - - 0 1");
}

/// PA5: a King-Pawn reaching the enemy's back rank has the Pawn power
/// replaced by a chosen power: four moves to each back-rank square.
#[test]
fn pa5_king_pawn_promotes_on_the_back_rank() {
    let p = pa("8/3(KP)4/8/7k/8/8/8/8 w - - 0 1");
    let mut expected = moves_to("d7", "c6 d6 e6 c7 e7");
    for to in ["c8", "d8", "e8"] {
        for c in ["q", "r", "b", "n"] {
            expected.push(format!("d7{to}{c}"));
        }
    }
    assert_eq!(legal(&p), strings(expected));
    let q = after(&p, "d7d8q");
    assert!(q.piece_at(sq("d8")).unwrap().royal);
    assert_eq!(powers(&q, "d8"), KQ);
    assert!(q.fen().starts_with("3(KQ)4/8/8/7k/8/8/8/8 b - - "), "{}", q.fen());
    assert_eq!(powers(&after(&p, "d7d8n"), "d8"), Powers::KING.with(Powers::KNIGHT));
}

/// PA5 (POWERS.md): a King holding the Pawn power promotes on any move that
/// ends on the enemy's back rank, along it too, and not on a move leaving it;
/// Black's on rank 1.
#[test]
fn pa5_king_pawn_promotes_by_any_move_onto_the_back_rank() {
    let p = pa("3(KP)4/8/8/7k/8/8/8/8 w - - 0 1");
    assert_eq!(legal(&p), strings(moves_to("d8", "c7 d7 e7 c8q c8r c8b c8n e8q e8r e8b e8n")));
    let p = pa("8/8/8/7K/8/8/3(kp)4/8 b - - 0 1");
    let from_d2 = legal_from(&p, "d2");
    assert_eq!(from_d2.len(), 5 + 3 * 4);
    for t in ["d2d1q", "d2d1r", "d2d1b", "d2d1n", "d2c1q", "d2e1n", "d2d3"] {
        assert!(from_d2.contains(t), "{t}");
    }
    assert!(!from_d2.contains("d2d1"));
    assert_eq!(powers(&after(&p, "d2d1r"), "d1"), Powers::KING.with(Powers::ROOK));
}

/// PA5 with PA3: a King taking a bishop-pawn on the back rank absorbs first
/// and so promotes (four moves); declining leaves a plain King, which does
/// not promote (one move).
#[test]
fn pa5_king_absorbing_pawn_power_on_the_back_rank() {
    // The bishop-pawn on d8 checks the King on e7 (as a pawn and as a bishop).
    let p = pa("3(bp)4/4K3/8/8/8/8/8/k7 w - - 0 1");
    assert!(p.is_check());
    assert_eq!(legal_from(&p, "e7"), strings(moves_to("e7", "d6 d7 e6 e8 f7 f8 d8q d8r d8b d8n d8-")));
    for (token, expected) in [
        ("e7d8q", KQ),
        ("e7d8r", KQ),
        ("e7d8b", Powers::KING.with(Powers::BISHOP)),
        ("e7d8n", Powers::KING.with(BN)),
        ("e7d8-", Powers::KING),
    ] {
        assert_eq!(powers(&after(&p, token), "d8"), expected, "{token}");
    }
}

// ================================================================ PA6

/// PA6: a King-Rook may not slide past a square the enemy attacks: the c8
/// rook stops it on rank 1 at c1 (where it would be in check), so d1-h1 are
/// out of reach though no enemy attacks them; a8 is in check too.
#[test]
fn pa6_sliding_king_cannot_pass_attacked_squares() {
    let p = pa("2r4k/8/8/8/8/8/8/(KR)7 w - - 0 1");
    assert_eq!(legal_from(&p, "a1"), strings(moves_to("a1", "a2 a3 a4 a5 a6 a7 b1 b2")));
    let free = pa("7k/8/8/8/8/8/8/(KR)7 w - - 0 1");
    assert_eq!(legal_from(&free, "a1"), strings(moves_to("a1", "a2 a3 a4 a5 a6 a7 a8 b1 b2 c1 d1 e1 f1 g1 h1")));
}

/// PA6: a King-Rook cannot even take an undefended rook two squares up its
/// file: the rook attacks the square between. In check from it, the King
/// steps or slides off the file instead.
#[test]
fn pa6_sliding_king_cannot_take_along_the_attackers_line() {
    let p = pa("4k3/8/8/8/8/r7/8/(KR)7 w - - 0 1");
    assert!(p.is_check());
    assert_eq!(legal(&p), strings(moves_to("a1", "b1 c1 d1 e1 f1 g1 h1 b2")));
}

/// PA6: a sliding King does not pin: the knight leaving a5 attacks a5 (and
/// more of the a-file) from wherever it lands, so the King-Rook's line stays
/// cut. A plain rook on a1 does pin it.
#[test]
fn pa6_a_sliding_king_does_not_pin_a_knight() {
    let p = pa("k7/8/8/n7/8/8/8/(KR)7 b - - 0 1");
    assert_eq!(legal(&p), set(&["a8a7", "a8b7", "a8b8", "a5b7", "a5b3", "a5c6", "a5c4"]));
    let p = pa("k7/8/8/n7/8/8/8/R6K b - - 0 1");
    assert_eq!(legal(&p), set(&["a8a7", "a8b7", "a8b8"]));
}

/// PA6: a sliding King's check is cut by a square between that another
/// enemy piece attacks (the f5 knight covers e3 and e7), and the King-Queen
/// cannot slide past e3 either; a knight elsewhere does not cut it.
#[test]
fn pa6_check_blocked_by_square_attacked_by_another_piece() {
    assert!(!pa("4k3/8/8/5n2/8/8/8/4(KQ)3 b - - 0 1").is_check());
    assert!(pa("4k3/8/8/n7/8/8/8/4(KQ)3 b - - 0 1").is_check());
    let up_the_file: BTreeSet<String> =
        legal_from(&pa("4k3/8/8/5n2/8/8/8/4(KQ)3 w - - 0 1"), "e1").into_iter().filter(|t| &t[2..3] == "e").collect();
    assert_eq!(up_the_file, set(&["e1e2"]));
}

/// PA6: the enemy King never shields itself: e7, which only the Black King
/// attacks, does not cut the King-Queen's check along the e-file.
#[test]
fn pa6_enemy_king_never_shields_itself() {
    assert!(pa("4k3/8/8/8/8/8/8/4(KQ)3 b - - 0 1").is_check());
    assert!(pa("4(kb)3/8/8/8/8/8/8/4(KQ)3 b - - 0 1").is_check());
}

/// PA6, the variant text's example: a King-Queen can check a King-Bishop
/// along a file (`a1e1`), but not along a diagonal: on a4 it would itself be
/// in check from the King-Bishop, so `a1a4` is illegal.
#[test]
fn pa6_king_queen_checks_king_bishop_on_a_file_not_a_diagonal() {
    let p = pa("4(kb)3/8/8/8/8/8/8/(KQ)7 w - - 0 1");
    assert!(!p.is_check());
    assert_eq!(
        legal(&p),
        strings(moves_to("a1", "a2 a3 b1 c1 d1 e1 f1 g1 h1 b2 c3 d4 e5 f6 g7 h8")),
        "a4 is on the King-Bishop's diagonal and stops the slide up the a-file"
    );
    let checking: BTreeSet<String> =
        p.legal_moves().iter().filter(|m| after(&p, &p.canonical(m)).is_check()).map(|m| p.canonical(m)).collect();
    assert_eq!(checking, set(&["a1e1", "a1e5", "a1h8"]));
    assert!(p.parse_move("a1a4").is_err());
}

/// PA6: "it is impossible for a KING-Q to check another KING-Q": every
/// square from which the King-Queen would check is one where it is checked.
#[test]
fn pa6_king_queen_cannot_check_king_queen() {
    let p = pa("4(kq)3/8/8/8/8/8/8/(KQ)7 w - - 0 1");
    assert_eq!(legal(&p), strings(moves_to("a1", "a2 a3 b1 c1 d1 b2 c3 d4")));
    for m in p.legal_moves() {
        assert!(!after(&p, &p.canonical(&m)).is_check(), "{}", p.canonical(&m));
    }
}

/// PA6: for the slide rule the enemy King's own sliding attacks count
/// without the restriction: the h2 King-Rook attacks a2 along rank 2 even
/// though the White King covers b2, so the White King-Rook cannot go up the
/// a-file at all.
#[test]
fn pa6_enemy_king_sliding_attacks_count_unrestricted() {
    let p = pa("8/8/8/8/8/8/7(kr)/(KR)7 w - - 0 1");
    assert!(!p.is_check());
    assert_eq!(legal(&p), strings(moves_to("a1", "b1 c1 d1 e1 f1")));
}

/// PA6: the Knight power is not affected: the King-Knight jumps to c3 over
/// covered squares, and checks by a leap whatever the enemy covers.
#[test]
fn pa6_knight_power_is_not_affected() {
    let p = pa("7k/8/8/8/8/8/r7/1(KN)6 w - - 0 1");
    assert_eq!(legal_from(&p, "b1"), set(&["b1c1", "b1a2", "b1a2-", "b1c3"]));
    assert_eq!(powers(&after(&p, "b1a2"), "a2"), Powers::KING.with(RN));
    assert!(pa("4k3/6r1/5(KN)2/8/8/8/8/8 b - - 0 1").is_check());
}

/// PA1, PA6 (POWERS.md): castling is judged before the move with the rook in
/// its corner: g1 is on the King-Bishop's diagonal, so `e1g1` is illegal,
/// though after castling the f1 rook would cover f2 and cut that line.
#[test]
fn pa6_castling_is_judged_before_the_move() {
    let p = pa("8/8/1(kb)6/8/8/8/8/4K2R w K - 0 1");
    assert_eq!(legal_from(&p, "e1"), set(&["e1d1", "e1d2", "e1e2", "e1f1"]));
    // After castling White would not be in check: the FEN loads (a position
    // whose side not to move is in check is refused).
    assert!(Position::from_fen(variant("absorption"), "8/8/1(kb)6/8/8/8/8/5RK1 b - - 1 1").is_ok());
    assert!(Position::from_fen(variant("absorption"), "8/8/1(kb)6/8/8/8/8/6KR b - - 1 1").is_err());
}

// ================================================================ C1

/// C1: Kings alone on e1 and e8; reserves of 15 static pieces, 3 Rook,
/// 3 Bishop, 2 Knight, 8 Pawn and 2 Castling powers; White's 20 first moves
/// are 15 drops and 5 King steps, and so are Black's.
#[test]
fn c1_start_position() {
    let p = Position::new(variant("construction"));
    assert_eq!(p.fen(), CONSTRUCTION_START);
    assert_eq!(p.occupied().count(), 2);
    assert!(p.piece_at(sq("e1")).unwrap().royal);
    assert!(p.piece_at(sq("e8")).unwrap().royal);
    for c in [Color::White, Color::Black] {
        for (letter, n) in [('S', 15), ('R', 3), ('B', 3), ('N', 2), ('P', 8), ('C', 2)] {
            assert_eq!(p.hand(c, slot(letter)), n, "{c:?} {letter}");
        }
    }
    let mut expected: Vec<String> = ["a", "b", "c", "d", "f", "g", "h"].iter().map(|f| format!("S@{f}1")).collect();
    expected.extend(["a", "b", "c", "d", "e", "f", "g", "h"].iter().map(|f| format!("S@{f}2")));
    expected.extend(moves_to("e1", "d1 d2 e2 f1 f2"));
    assert_eq!(legal(&p), strings(expected));
    assert_eq!(p.legal_moves().len(), 20);

    let b = after(&p, "e1e2");
    let mut expected: Vec<String> = ["a", "b", "c", "d", "f", "g", "h"].iter().map(|f| format!("S@{f}8")).collect();
    expected.extend(["a", "b", "c", "d", "e", "f", "g", "h"].iter().map(|f| format!("S@{f}7")));
    expected.extend(moves_to("e8", "d8 d7 e7 f8 f7"));
    assert_eq!(legal(&b), strings(expected));
}

// ================================================================ C2

/// C2: a turn is one drop, one move or one grant; POWERS.md's example
/// positions after `S@d2` and after `1.S@d2 S@d7 2.P>d2`.
#[test]
fn c2_a_turn_is_a_drop_a_move_or_a_grant() {
    let mut g = Game::new(variant("construction"));
    play_all(&mut g, &["S@d2"]);
    assert_eq!(g.position().fen(), "4k3/8/8/8/8/8/3S4/4K3[S14R3B3N2P8C2s15r3b3n2p8c2] b - - 1 1");
    play_all(&mut g, &["S@d7", "P>d2"]);
    assert_eq!(g.position().fen(), "4k3/3s4/8/8/8/8/3P4/4K3[S14R3B3N2P7C2s14r3b3n2p8c2] b - - 3 2");
    assert_eq!(powers(g.position(), "d2"), Powers::PAWN);

    // With a static piece on d2: 14 drops, 5 grants to it, 4 King steps.
    let p = co("4k3/8/8/8/8/8/3S4/4K3[S14R3B3N2P8C2s15r3b3n2p8c2] w - - 1 1");
    let mut expected: Vec<String> = ["a", "b", "c", "d", "f", "g", "h"].iter().map(|f| format!("S@{f}1")).collect();
    expected.extend(["a", "b", "c", "e", "f", "g", "h"].iter().map(|f| format!("S@{f}2")));
    expected.extend(["R>d2", "B>d2", "N>d2", "P>d2", "C>d2"].map(String::from));
    expected.extend(moves_to("e1", "d1 e2 f1 f2"));
    assert_eq!(legal(&p), strings(expected));
}

/// C2: drops only onto empty squares of the own first two ranks, for either
/// side; powers go only to one's own non-royal pieces.
#[test]
fn c2_drops_on_own_first_two_ranks_grants_to_own_pieces() {
    let p = co("4k3/8/8/8/8/8/8/4K3[s3] b - - 0 1");
    for t in drops(&p) {
        let rank = &t[3..4];
        assert!(rank == "7" || rank == "8", "{t}");
    }
    assert_eq!(drops(&p).len(), 15);
    let p = co(CONSTRUCTION_START);
    assert!(p.parse_move("S@d3").is_err());
    assert!(p.parse_move("S@d7").is_err());
    assert!(after(&p, "e1e2").parse_move("S@d2").is_err());

    // Nothing to give a power to: not the King, not Black's static piece.
    let p = co("4k3/4s3/8/8/8/8/8/4K3[R] w - - 0 1");
    assert_eq!(legal(&p), strings(moves_to("e1", "d1 d2 e2 f1 f2")));
    // Trying says why, in either spelling; so does a grant to Black's piece.
    for text in ["R>e1", "give rook e1", "Give Rook E1"] {
        assert_eq!(p.parse_move(text), Err(MoveError::GrantToKing(sq("e1"))), "{text}");
    }
    assert!(matches!(p.parse_move("R>e7"), Err(MoveError::Refused { why: Why::GrantNotOwn(_), .. })));
    let said = MoveError::GrantToKing(sq("e1")).to_string();
    assert_eq!(said, "The King on e1 cannot be given powers (C2): give them to another of your pieces");
}

// ================================================================ C3

/// C3: a piece holds each power at most once: a Rook-Castling piece may
/// only be given the Bishop power.
#[test]
fn c3_no_power_twice() {
    let p = co("4k3/8/8/8/8/8/8/(RC)3K3[RBC] w - - 0 1");
    assert_eq!(grants(&p), set(&["B>a1"]));
}

/// C3: a static piece cannot move; Rook plus Bishop moves as a Queen and is
/// written `Q`.
#[test]
fn c3_static_piece_cannot_move_and_rook_plus_bishop_is_a_queen() {
    let mut g = Game::from_position(co("4k3/8/8/8/8/8/3S4/4K3[RB] w - - 0 1"));
    assert!(legal_from(g.position(), "d2").is_empty());
    play_all(&mut g, &["R>d2", "e8f8", "B>d2"]);
    assert_eq!(powers(g.position(), "d2"), Powers::QUEEN);
    assert_eq!(g.position().fen(), "5k2/8/8/8/8/8/3Q4/4K3[] b - - 3 2");
}

/// C3: a static piece can be captured; captured pieces leave the game with
/// their powers (nothing is absorbed, no reserve changes).
#[test]
fn c3_captured_pieces_vanish() {
    let p = co("4k3/8/8/8/3r4/8/3S4/4K3[Rs] b - - 0 1");
    assert!(legal_from(&p, "d4").contains("d4d2"));
    assert!(!legal_from(&p, "d4").contains("d4d2-"));
    assert_eq!(after(&p, "d4d2").fen(), "4k3/8/8/8/8/8/3r4/4K3[Rs] w - - 0 2");

    let p = co("4k3/8/8/8/3r4/8/3(QN)4/4K3[] b - - 5 9");
    let q = after(&p, "d4d2");
    assert_eq!(q.fen(), "4k3/8/8/8/8/8/3r4/4K3[] w - - 0 10");
    assert_eq!(powers(&q, "d2"), Powers::ROOK);
    for letter in ['S', 'R', 'B', 'N', 'P', 'C'] {
        assert_eq!(q.hand(Color::White, slot(letter)), 0);
        assert_eq!(q.hand(Color::Black, slot(letter)), 0);
    }
}

// ================================================================ C4

/// C4: the Pawn power steps two from the side's first rank through an empty
/// square; not from the second rank; Black from the eighth.
#[test]
fn c4_double_step_from_the_first_rank() {
    assert_eq!(legal_from(&co("4k3/8/8/8/8/8/8/3PK3[] w - - 0 1"), "d1"), set(&["d1d2", "d1d3"]));
    assert!(legal_from(&co("4k3/8/8/8/8/8/3S4/3PK3[] w - - 0 1"), "d1").is_empty());
    assert_eq!(legal_from(&co("4k3/8/8/8/8/3S4/8/3PK3[] w - - 0 1"), "d1"), set(&["d1d2"]));
    assert_eq!(legal_from(&co("4k3/8/8/8/8/8/3P4/4K3[] w - - 0 1"), "d2"), set(&["d2d3"]));
    let p = co("3pk3/8/8/8/8/8/8/4K3[] b - - 5 7");
    assert_eq!(legal_from(&p, "d8"), set(&["d8d7", "d8d6"]));
    assert_eq!(after(&p, "d8d6").fen(), "4k3/8/3p4/8/8/8/8/4K3[] w - - 0 8");
}

/// C4: no en passant: after `d1d3` the e3 pawn may not take on d2.
#[test]
fn c4_no_en_passant() {
    let p = after(&co("4k3/8/8/8/8/4p3/8/3P3K[] w - - 0 1"), "d1d3");
    assert_eq!(p.fen(), "4k3/8/8/8/8/3Pp3/8/7K[] b - - 0 1");
    assert_eq!(legal_from(&p, "e3"), set(&["e3e2"]));
}

/// C4: no Pawn power for a piece on its last rank (rank 8 for White, rank 1
/// for Black); a piece on the seventh may have it.
#[test]
fn c4_no_pawn_power_on_the_last_rank() {
    assert_eq!(grants(&co("4S2k/8/8/8/8/8/8/K7[RP] w - - 0 1")), set(&["R>e8"]));
    assert_eq!(grants(&co("7k/4S3/8/8/8/8/8/K7[P] w - - 0 1")), set(&["P>e7"]));
    assert!(grants(&co("4k3/8/8/8/8/8/8/K3s3[p] b - - 0 1")).is_empty());
}

/// C4: a step the Pawn power and the Rook power both make is one move and a
/// pawn move (the count resets), a Rook-only move is not; onto the last rank
/// the pawn step is the five promoting versions and the Rook's step a sixth
/// move that promotes nothing.
#[test]
fn c4_shared_steps() {
    let p = co("4k3/8/8/8/8/8/8/(RP)3K3[] w - - 4 9");
    assert_eq!(legal_from(&p, "a1"), strings(moves_to("a1", "a2 a3 a4 a5 a6 a7 a8 b1 c1 d1")));
    assert_eq!(after(&p, "a1a2").halfmoves(), 0);
    assert_eq!(after(&p, "a1a3").halfmoves(), 0);
    assert_eq!(after(&p, "a1a4").halfmoves(), 5);
    // The Rook power onto the last rank: no promotion, the Pawn power stays.
    assert_eq!(after(&p, "a1a8").fen(), "(RP)3k3/8/8/8/8/8/8/4K3[] b - - 5 9");

    let p = co("7k/4(RP)3/8/8/8/8/8/K7[] w - - 0 1");
    let mut expected = moves_to("e7", "a7 b7 c7 d7 f7 g7 h7 e6 e5 e4 e3 e2 e1 e8");
    expected.extend(moves_to("e7", "e8r e8b e8n e8p e8s"));
    assert_eq!(legal_from(&p, "e7"), strings(expected));
}

// ================================================================ C5

/// C5: a pawn move onto the last rank removes the Pawn power (a pawn alone
/// becomes a static piece) and adds the chosen reward to the reserve: Rook,
/// Bishop, Knight, Pawn power or a static piece.
#[test]
fn c5_promotion_rewards() {
    let p = co("7k/4P3/8/8/8/8/8/K7[] w - - 0 1");
    assert_eq!(legal_from(&p, "e7"), set(&["e7e8r", "e7e8b", "e7e8n", "e7e8p", "e7e8s"]));
    for letter in ['R', 'B', 'N', 'P', 'S'] {
        let token = format!("e7e8{}", letter.to_ascii_lowercase());
        let q = after(&p, &token);
        assert_eq!(powers(&q, "e8"), Powers::NONE, "{token}");
        assert_eq!(q.hand(Color::White, slot(letter)), 1, "{token}");
        assert_eq!(q.fen(), format!("4S2k/8/8/8/8/8/8/K7[{letter}] b - - 0 1"));
    }
}

/// C5: a knight-pawn capturing onto the last rank keeps its Knight power;
/// Black's reward lands in Black's reserve.
#[test]
fn c5_compound_and_black_promotion() {
    let p = co("3r3k/4(NP)3/8/8/8/8/8/K7[] w - - 3 1");
    let mut expected = moves_to("e7", "c8 g8 c6 g6 d5 f5");
    for to in ["e8", "d8"] {
        for c in ["r", "b", "n", "p", "s"] {
            expected.push(format!("e7{to}{c}"));
        }
    }
    assert_eq!(legal_from(&p, "e7"), strings(expected));
    assert_eq!(after(&p, "e7d8n").fen(), "3N3k/8/8/8/8/8/8/K7[N] b - - 0 1");

    let p = co("7k/8/8/8/8/8/3p4/K7[R2] b - - 0 1");
    assert_eq!(after(&p, "d2d1b").fen(), "7k/8/8/8/8/8/8/K2s4[R2b] w - - 0 2");
}

// ================================================================ C6

/// C6: the Castling power's holder swaps squares with its King (`a1e1`, the
/// holder's square then the King's), keeping its other powers; the power is
/// then used up.
#[test]
fn c6_swap_with_the_king() {
    let p = co("4k3/8/8/8/8/8/8/(RC)3K3[] w - - 0 1");
    let mut expected = moves_to("e1", "d1 d2 e2 f1 f2");
    expected.extend(moves_to("a1", "a2 a3 a4 a5 a6 a7 a8 b1 c1 d1 e1"));
    assert_eq!(legal(&p), strings(expected));
    assert_eq!(p.parse_move("a1e1"), Ok(Move::Swap { from: sq("a1"), king: sq("e1") }));
    let q = after(&p, "a1e1");
    assert_eq!(q.fen(), "4k3/8/8/8/8/8/8/K3R3[] b - - 1 1");
    assert_eq!(powers(&q, "e1"), Powers::ROOK);

    // A Castling-only piece becomes static; a second holder swaps from afar,
    // and Black's holder swaps too.
    let mut g = Game::from_position(co("4k3/8/8/8/8/8/8/C3K(QC)2[] w - - 4 9"));
    play_all(&mut g, &["a1e1", "e8d8"]);
    assert_eq!(g.position().fen(), "3k4/8/8/8/8/8/8/K3S(QC)2[] w - - 6 10");
    assert!(legal(g.position()).contains("f1a1"));
    play_all(&mut g, &["f1a1"]);
    assert_eq!(g.position().fen(), "3k4/8/8/8/8/8/8/Q3SK2[] b - - 7 10");
    // Used up: with White to move again, no swap is left.
    for fen in ["3k4/8/8/8/8/8/8/Q3SK2[] w - - 7 10", "3k4/8/8/8/8/8/8/K3R3[] w - - 1 1"] {
        assert!(co(fen).legal_moves().iter().all(|m| !matches!(m, Move::Swap { .. })), "{fen}");
    }

    let p = co("(rc)3k3/8/8/8/8/8/8/4K3[] b - - 0 1");
    let q = after(&p, "a8e8");
    assert_eq!(q.fen(), "k3r3/8/8/8/8/8/8/4K3[] w - - 1 2");
    assert!(q.is_check(), "the rook now on e8 checks down the open file");

    // A piece holding only the Castling power has no other move.
    let p = co("4k3/8/8/8/8/8/8/C3K3[] w - - 0 1");
    assert_eq!(legal_from(&p, "a1"), set(&["a1e1"]));
    assert_eq!(after(&p, "a1e1").fen(), "4k3/8/8/8/8/8/8/K3S3[] b - - 1 1");
}

/// C6: no swap while the King is in check, nor when the holder is attacked
/// (the King would land where it is attacked).
#[test]
fn c6_swap_conditions() {
    assert!(!legal(&co("4k3/8/8/4r3/8/8/8/(RC)3K3[] w - - 0 1")).contains("a1e1"));
    assert!(!legal(&co("r3k3/8/8/8/8/8/8/(RC)3K3[] w - - 0 1")).contains("a1e1"));
    // Next to the enemy King, the holder is attacked by it.
    assert!(!legal(&co("8/8/8/8/8/8/1k6/(RC)3K3[] w - - 0 1")).contains("a1e1"));
    // Attacked squares elsewhere do not matter.
    assert!(legal(&co("1r2k3/8/8/8/8/8/8/(RC)3K3[] w - - 0 1")).contains("a1e1"));

    // Afterwards the King stands where the holder stood, with the same
    // squares occupied, so it is never in check: every allowed swap leaves
    // a position whose side not to move is safe (the FEN loads).
    for fen in [
        "1r2k3/8/8/8/8/8/8/(RC)3K3[] w - - 0 1",
        "3rk3/8/8/b7/8/2C5/8/(RC)3K2C[] w - - 0 1",
        "4k3/8/8/8/8/8/q7/(NC)3K2(BC)[] w - - 0 1",
    ] {
        let p = co(fen);
        let swaps: Vec<Move> = p.legal_moves().into_iter().filter(|m| matches!(m, Move::Swap { .. })).collect();
        for m in swaps {
            let mut q = p.clone();
            q.play_unchecked(m);
            assert!(Position::from_fen(variant("construction"), &q.fen()).is_ok(), "{} in {fen}", p.canonical(&m));
        }
    }
}

// ================================================================ C7

/// C7: in check with every flight square covered, a drop that blocks is a
/// defence: not mate; the three blocking drops are the only moves (grants
/// never resolve a check). Without static pieces in reserve it is mate.
#[test]
fn c7_a_drop_that_blocks_is_a_defence() {
    let p = co("4k3/8/8/8/8/8/r6S/r3K3[SR] w - - 0 1");
    assert!(p.is_check());
    assert_eq!(legal(&p), set(&["S@b1", "S@c1", "S@d1"]));
    assert_eq!(Game::from_position(p).outcome(), None);

    // Out of check the same static piece could be given the Rook power.
    assert!(grants(&co("4k3/8/8/8/8/8/r6S/4K3[SR] w - - 0 1")).contains("R>h2"));

    let mate = co("4k3/8/8/8/8/8/r6S/r3K3[R] w - - 0 1");
    assert!(mate.legal_moves().is_empty());
    assert_eq!(Game::from_position(mate).outcome(), win(Color::Black, EndReason::Checkmate));
}

/// C7: drops into check only help between the checker and the King on the
/// own first two ranks: against the e5 rook only `S@e2`.
#[test]
fn c7_blocking_drops_only_on_own_ranks() {
    let p = co("k7/8/8/4r3/8/8/8/4K3[S] w - - 0 1");
    assert!(p.is_check());
    assert_eq!(legal(&p), set(&["S@e2", "e1d1", "e1d2", "e1f1", "e1f2"]));
}

/// C7: a real mate ends the game, through `Game`, with the right winner;
/// a rook check that Black could block with a drop is not mate.
#[test]
fn c7_checkmate_ends_the_game() {
    let mut g = Game::from_position(co("k7/8/1K6/8/8/8/8/7R[] w - - 0 1"));
    let played = g.play_text("Rh8").unwrap();
    assert_eq!(played.canonical, "h1h8");
    assert_eq!(played.san, "Rh8#");
    assert_eq!(played.outcome, win(Color::White, EndReason::Checkmate));
    assert_eq!(g.outcome(), win(Color::White, EndReason::Checkmate));
    assert!(g.legal_moves().is_empty());

    let mut g = Game::from_position(co("k7/8/1K6/8/8/8/8/7R[s] w - - 0 1"));
    let played = g.play_text("Rh8").unwrap();
    assert_eq!(played.san, "Rh8+");
    assert_eq!(played.outcome, None);
    assert_eq!(legal(g.position()), set(&["S@b8", "S@c8", "S@d8", "S@e8", "S@f8", "S@g8"]));

    let mut g = Game::from_position(co("1r2k3/8/8/8/8/8/r6S/4K3[R] b - - 0 1"));
    assert_eq!(play_all(&mut g, &["b8b1"]), vec![win(Color::Black, EndReason::Checkmate)]);
}

/// C7, G4: drops, grants and swaps count toward the fifty-move rule (they do
/// not reset it); pawn moves and captures do; fifty moves draw.
#[test]
fn c7_drops_and_grants_do_not_reset_the_count() {
    let mut g = Game::new(variant("construction"));
    play_all(&mut g, &["S@d2", "S@d7", "P>d2", "e8e7"]);
    assert_eq!(g.position().halfmoves(), 4);
    play_all(&mut g, &["d2d3"]);
    assert_eq!(g.position().halfmoves(), 0, "a pawn move resets the count");

    let mut g = Game::from_position(co("4k3/8/8/8/8/8/8/4K3[S] w - - 99 70"));
    assert_eq!(play_all(&mut g, &["S@d2"]), vec![draw(EndReason::FiftyMoves)]);
    let mut g = Game::from_position(co("4k3/8/8/8/8/8/3S4/4K3[R] w - - 99 70"));
    assert_eq!(play_all(&mut g, &["R>d2"]), vec![draw(EndReason::FiftyMoves)]);
}

/// C7, G4: threefold repetition draws at once.
#[test]
fn c7_repetition_draws() {
    let mut g = Game::from_position(co("4k3/8/8/8/8/8/8/4K3[] w - - 0 1"));
    let outcomes = play_all(&mut g, &["e1d1", "e8d8", "d1e1", "d8e8", "e1d1", "e8d8", "d1e1", "d8e8"]);
    assert!(outcomes[..7].iter().all(Option::is_none), "{outcomes:?}");
    assert_eq!(outcomes[7], draw(EndReason::Repetition));
}

/// C7, G4: stalemate draws; a static piece to drop is a move, so it is not
/// stalemate then.
#[test]
fn c7_stalemate() {
    let g = Game::from_position(co("k7/8/1Q6/8/8/8/8/4K3[] b - - 0 1"));
    assert_eq!(g.outcome(), draw(EndReason::Stalemate));
    let g = Game::from_position(co("k7/8/1Q6/8/8/8/8/4K3[s] b - - 0 1"));
    assert_eq!(g.outcome(), None);
}

// ================================================================ G2, G3

/// Positions of both variants whose moves the notation tests read back.
const NOTATION_POSITIONS: [(&str, &str); 16] = [
    ("absorption", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("absorption", "r1bqkbnr/pppp1ppp/2(BN)5/4p3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 0 3"),
    ("absorption", "r1bqkb1r/pppp1ppp/2(BN)2n2/4p3/4P3/8/PPPP1PPP/RNBQK1NR w KQkq - 1 4"),
    ("absorption", "4k3/8/8/8/8/8/8/(KQ)7 w - - 0 60"),
    ("absorption", "4k2(np)/6P1/8/8/8/8/8/4K3 w - - 0 1"),
    ("absorption", "3(bp)4/4K3/8/8/8/8/8/k7 w - - 0 1"),
    ("absorption", "4k3/8/8/8/(RP)p6/8/8/4K3 b - a3 0 10"),
    ("absorption", "4k3/8/8/8/3(bp)P3/8/8/4K3 b - e3 0 1"),
    ("absorption", "4(kb)3/8/8/8/8/8/8/(KQ)7 w - - 0 1"),
    ("absorption", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"),
    ("construction", CONSTRUCTION_START),
    ("construction", "4k3/3s4/8/8/8/8/3P4/4K3[S14R3B3N2P7C2s14r3b3n2p8c2] b - - 3 2"),
    ("construction", "4k3/8/8/8/8/8/3S4/4K3[S14R3B3N2P8C2s15r3b3n2p8c2] w - - 1 1"),
    ("construction", "3r3k/4(NP)3/8/8/8/8/8/(RC)3K3[RBNPC] w - - 3 1"),
    ("construction", "4k3/8/8/8/8/8/r6S/r3K3[SR] w - - 0 1"),
    ("construction", "(rc)3k3/p7/8/8/8/8/8/4K3[SRBNPCsrbnpc] b - - 0 1"),
];

/// G2: every legal move's canonical token reads back as that move, and so
/// does its SAN, in positions of both variants.
#[test]
fn g2_tokens_and_san_read_back() {
    for (id, fen) in NOTATION_POSITIONS {
        let p = pos(id, fen);
        let moves = p.legal_moves();
        assert!(!moves.is_empty(), "{fen}");
        let tokens = legal(&p);
        assert_eq!(tokens.len(), moves.len());
        for m in &moves {
            let token = p.canonical(m);
            assert_eq!(p.parse_move(&token), Ok(*m), "{token} in {fen}");
            let san = p.san(m);
            assert_eq!(p.parse_move(&san), Ok(*m), "SAN {san} ({token}) in {fen}");
        }
    }
}

/// G2, POWERS.md: the canonical tokens of the special actions: declining
/// `b5c6-`, promotion `e7e8q`, declining promotion `e7d8n-`, drop `S@d2`,
/// grant `R>e2`, reward `e7e8r`, swap `a1e1`.
#[test]
fn g2_canonical_tokens_of_special_actions() {
    let p = pa("r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3");
    assert_eq!(
        p.parse_move("b5c6-"),
        Ok(Move::Normal { from: sq("b5"), to: sq("c6"), promote: Promote::No, keep: true })
    );
    let p = pa("3r3k/4P3/8/8/8/8/8/K7 w - - 0 1");
    assert_eq!(
        legal_from(&p, "e7"),
        set(&["e7e8q", "e7e8r", "e7e8b", "e7e8n", "e7d8q", "e7d8r", "e7d8b", "e7d8b-", "e7d8n", "e7d8n-"])
    );
    let n = variant("absorption").piece_index('N').unwrap();
    assert_eq!(
        p.parse_move("e7d8n-"),
        Ok(Move::Normal { from: sq("e7"), to: sq("d8"), promote: Promote::To(n), keep: true })
    );

    let p = co(CONSTRUCTION_START);
    assert_eq!(p.parse_move("S@d2"), Ok(Move::Drop { piece: slot('S'), to: sq("d2") }));
    let p = co("4k3/8/8/8/8/8/4S3/3K4[R] w - - 0 1");
    assert_eq!(p.parse_move("R>e2"), Ok(Move::Grant { piece: slot('R'), to: sq("e2") }));
    let p = co("7k/4P3/8/8/8/8/8/K7[] w - - 0 1");
    assert_eq!(
        p.parse_move("e7e8r"),
        Ok(Move::Normal { from: sq("e7"), to: sq("e8"), promote: Promote::To(slot('R')), keep: false })
    );
}

/// G2, POWERS.md: friendly input resolves to the right moves: `Bxc6`
/// absorbs; `Bxc6-`, `Bxc6 keep`, `b5c6 decline` decline; `exd8=N keep`;
/// `e8=Q`; `O-O`, `0-0`.
#[test]
fn g2_friendly_input_absorption() {
    let p = pa("r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3");
    let canon = |text: &str| p.canonical(&p.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}")));
    assert_eq!(canon("Bxc6"), "b5c6");
    assert_eq!(canon("Bc6"), "b5c6");
    assert_eq!(canon("Bxc6-"), "b5c6-");
    assert_eq!(canon("Bxc6 keep"), "b5c6-");
    assert_eq!(canon("b5c6 decline"), "b5c6-");
    assert_eq!(canon("Bxc6 absorb"), "b5c6");

    let p = pa("3r3k/4P3/8/8/8/8/8/K7 w - - 0 1");
    let canon = |text: &str| p.canonical(&p.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}")));
    assert_eq!(canon("exd8=N keep"), "e7d8n-");
    assert_eq!(canon("exd8=N"), "e7d8n");
    assert_eq!(canon("e8=Q"), "e7e8q");
    assert_eq!(canon("e8Q"), "e7e8q");
    // Declining a queen promotion changes nothing, so there is no such move.
    assert!(p.parse_move("exd8=Q keep").is_err());

    let p = pa("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    for text in ["O-O", "0-0", "e1g1"] {
        assert_eq!(p.parse_move(text), Ok(Move::Castle { king: sq("e1"), rook: sq("h1") }), "{text}");
    }
}

/// G2, POWERS.md: friendly input for Construction: `give rook e2`,
/// `give R e2`, `R>e2`; `drop d2`; `swap a1`, `O-O`; `e8=R`, `e8=static`.
#[test]
fn g2_friendly_input_construction() {
    let p = co("4k3/8/8/8/8/8/4S3/3K4[R] w - - 0 1");
    let grant = Move::Grant { piece: slot('R'), to: sq("e2") };
    for text in ["give rook e2", "give R e2", "R>e2"] {
        assert_eq!(p.parse_move(text), Ok(grant), "{text}");
    }
    assert_eq!(co(CONSTRUCTION_START).parse_move("drop d2"), Ok(Move::Drop { piece: slot('S'), to: sq("d2") }));

    let p = co("4k3/8/8/8/8/8/8/(RC)3K3[] w - - 0 1");
    let swap = Move::Swap { from: sq("a1"), king: sq("e1") };
    assert_eq!(p.parse_move("swap a1"), Ok(swap));
    // C6: with one piece to swap with, either castling word is that swap.
    assert_eq!(p.parse_move("O-O"), Ok(swap));
    assert_eq!(p.parse_move("O-O-O"), Ok(swap));
    // With one on each side of the King, the word names the side.
    let p = co("4k3/8/8/8/8/8/8/(RC)3K2(RC)[] w - - 0 1");
    assert_eq!(p.parse_move("O-O"), Ok(Move::Swap { from: sq("h1"), king: sq("e1") }));
    assert_eq!(p.parse_move("0-0-0"), Ok(Move::Swap { from: sq("a1"), king: sq("e1") }));

    let p = co("7k/4P3/8/8/8/8/8/K7[] w - - 0 1");
    let canon = |text: &str| p.canonical(&p.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}")));
    assert_eq!(canon("e8=R"), "e7e8r");
    assert_eq!(canon("e8=static"), "e7e8s");
    assert_eq!(canon("e8=S"), "e7e8s");
    assert_eq!(canon("e8=P"), "e7e8p");
}

/// G2, POWERS.md: SAN writes a compound with its group as the FEN does
/// (`(BN)d4`, `(BN)xd8-`, `(KQ)e1+`), a grant `R>e2`, a swap
/// `(RC)a1<>e1`, a drop `S@d2`, a reward `e8=R`.
#[test]
fn g2_san_shows_compound_groups() {
    let mut g = Game::from_position(pa("r1bqkbnr/pppp1ppp/2(BN)5/4p3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 0 3"));
    let played = g.play_text("Nf6").unwrap();
    assert_eq!(played.canonical, "g8f6");
    let p = g.position().clone();
    assert_eq!(p.fen(), "r1bqkb1r/pppp1ppp/2(BN)2n2/4p3/4P3/8/PPPP1PPP/RNBQK1NR w KQkq - 1 4");
    let san = |token: &str| p.san(&p.parse_move(token).unwrap());
    assert_eq!(san("c6d4"), "(BN)d4");
    assert_eq!(san("c6d8"), "(BN)xd8+", "the queen-knight on d8 checks");
    assert_eq!(san("c6d8-"), "(BN)xd8-");
    assert_eq!(p.parse_move("(BN)xd8-").map(|m| p.canonical(&m)), Ok("c6d8-".to_string()));
    assert_eq!(p.parse_move("(BN)d4").map(|m| p.canonical(&m)), Ok("c6d4".to_string()));
    let played = g.play_text("(BN)xd8").unwrap();
    assert_eq!(played.canonical, "c6d8");
    assert_eq!(powers(g.position(), "d8"), QN);
    assert!(g.position().fen().starts_with("r1b(QN)kb1r/"), "{}", g.position().fen());

    let p = pa("4k3/8/8/8/8/8/8/(KQ)7 w - - 0 60");
    assert_eq!(p.san(&p.parse_move("a1e1").unwrap()), "(KQ)e1+");

    let p = co("k7/8/8/8/8/8/4S3/3K4[R] w - - 0 1");
    assert_eq!(p.san(&p.parse_move("R>e2").unwrap()), "R>e2");
    // A grant can give check: the new rook on e2 sees the King on e8.
    let p = co("4k3/8/8/8/8/8/4S3/3K4[R] w - - 0 1");
    assert_eq!(p.san(&p.parse_move("R>e2").unwrap()), "R>e2+");
    let p = co("3k4/8/8/8/8/8/8/(RC)3K3[] w - - 0 1");
    assert_eq!(p.san(&p.parse_move("a1e1").unwrap()), "(RC)a1<>e1");
    let p = co("4k3/8/8/8/8/8/8/(RC)3K3[] w - - 0 1");
    assert_eq!(p.san(&p.parse_move("a1e1").unwrap()), "(RC)a1<>e1+", "the rook lands on the King's open file");
    let p = co(CONSTRUCTION_START);
    assert_eq!(p.san(&p.parse_move("S@d2").unwrap()), "S@d2");
    let p = co("7k/4P3/8/8/8/8/8/K7[] w - - 0 1");
    assert_eq!(p.san(&p.parse_move("e7e8r").unwrap()), "e8=R");
}

/// G3, POWERS.md: every example FEN loads and is written back unchanged.
#[test]
fn g3_powers_md_examples_round_trip() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r1bqkbnr/pppp1ppp/2(BN)5/4p3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 0 3",
        "4k3/8/8/8/8/8/8/(KQ)7 w - - 0 60",
    ] {
        assert_eq!(pa(fen).fen(), fen);
    }
    for fen in [
        "4k3/8/8/8/8/8/8/4K3[S15R3B3N2P8C2s15r3b3n2p8c2] w - - 0 1",
        "4k3/8/8/8/8/8/3S4/4K3[S14R3B3N2P8C2s15r3b3n2p8c2] b - - 1 1",
        "4k3/3s4/8/8/8/8/3P4/4K3[S14R3B3N2P7C2s14r3b3n2p8c2] b - - 3 2",
    ] {
        assert_eq!(co(fen).fen(), fen);
    }
    let p = pa("4k3/8/8/8/8/8/8/(KQ)7 w - - 0 60");
    let king = p.piece_at(sq("a1")).unwrap();
    assert!(king.royal);
    assert_eq!(king.powers, KQ);
    let p = co("4k3/8/8/8/8/8/3S4/4K3[S14R3B3N2P8C2s15r3b3n2p8c2] b - - 1 1");
    assert_eq!(p.hand(Color::White, slot('S')), 14);
    assert_eq!(p.hand(Color::Black, slot('S')), 15);
    assert_eq!(powers(&p, "d2"), Powers::NONE);
}

/// G3, POWERS.md: the groups named in the text (`(BN)`, `(QN)`, `(RNP)`,
/// `(KQ)`, `(kbp)`, `(RC)`) read as those powers and are written back; a
/// reserve written letter by letter is read too.
#[test]
fn g3_groups_and_reserves() {
    let p = pa("4(kbp)3/8/8/8/3(RNP)4/2(QN)5/1(BN)6/(KQ)7 w - - 0 1");
    assert_eq!(p.fen(), "4(kbp)3/8/8/8/3(RNP)4/2(QN)5/1(BN)6/(KQ)7 w - - 0 1");
    assert_eq!(powers(&p, "e8"), Powers::KING.with(Powers::BISHOP).with(Powers::PAWN));
    assert_eq!(p.piece_at(sq("e8")).unwrap().color, Color::Black);
    assert_eq!(powers(&p, "d4"), RN.with(Powers::PAWN));
    assert_eq!(powers(&p, "c3"), QN);
    assert_eq!(powers(&p, "b2"), BN);

    let p = co("4k3/8/8/8/8/8/8/(RC)3K3[SSRb] w - - 0 1");
    assert_eq!(powers(&p, "a1"), Powers::ROOK.with(Powers::CASTLE));
    assert_eq!(p.hand(Color::White, slot('S')), 2);
    assert_eq!(p.hand(Color::White, slot('R')), 1);
    assert_eq!(p.hand(Color::Black, slot('B')), 1);
    assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/(RC)3K3[S2Rb] w - - 0 1");
    assert_eq!(co("4k3/8/8/8/8/8/8/C3K3[] w - - 0 1").fen(), "4k3/8/8/8/8/8/8/C3K3[] w - - 0 1");
    assert_eq!(powers(&co("4k3/8/8/8/8/8/8/C3K3[] w - - 0 1"), "a1"), Powers::CASTLE);
}

/// G3, POWERS.md: the en passant square is written after a Pawn-power double
/// step when an enemy non-royal piece holding the Pawn power could take there
/// (here a knight-pawn), not for a King holding it.
#[test]
fn g3_en_passant_square_for_compounds() {
    assert_eq!(
        after(&pa("4k3/8/8/8/3(np)4/8/4P3/4K3 w - - 0 1"), "e2e4").fen(),
        "4k3/8/8/8/3(np)P3/8/8/4K3 b - e3 0 1"
    );
    assert_eq!(after(&pa("8/8/8/8/3(kp)4/8/4P3/4K3 w - - 0 1"), "e2e4").fen(), "8/8/8/8/3(kp)P3/8/8/4K3 b - - 0 1");
    // Read from a FEN, a square only a King could take on is dropped.
    assert_eq!(pa("8/8/8/8/3(kp)P3/8/8/4K3 b - e3 0 1").fen(), "8/8/8/8/3(kp)P3/8/8/4K3 b - - 0 1");
}
