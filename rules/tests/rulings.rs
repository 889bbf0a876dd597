//! Scenario tests, one or more per ruling of `RULINGS.md` (sections G, O and
//! A). Each test names the ruling it checks; expected move sets are worked
//! out by hand from the ruling texts.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use kibitz_rules::{
    Color, EndReason, Game, Move, MoveError, Piece, Position, Powers, Promote, Square, VARIANTS, Why, perft,
};

use common::{after, draw, legal, legal_from, play_all, pos, set, sq, variant, win};

fn game(id: &str, fen: &str) -> Game {
    Game::from_position(pos(id, fen))
}

fn normal(from: &str, to: &str, promote: Promote) -> Move {
    Move::Normal { from: sq(from), to: sq(to), promote, keep: false }
}

fn piece(color: Color, powers: Powers, promoted: bool) -> Piece {
    Piece { color, powers, royal: false, promoted }
}

// Olympic piece-type indices, in the variant's order K R B G S P.
const O_ROOK: u8 = 1;
const O_BISHOP: u8 = 2;
const O_SILVER: u8 = 4;
const O_PAWN: u8 = 5;

// ---------------------------------------------------------------- G1

/// G1: files `a`.., ranks `1`..; White starts on rank 1 and moves first.
#[test]
fn g1_squares_and_white_starts_on_rank_one() {
    assert_eq!(sq("a1").index(), 0);
    assert_eq!(sq("h8").index(), 63);
    assert_eq!((sq("e4").file(), sq("e4").rank()), (4, 3));
    assert_eq!(sq("c2").to_string(), "c2");
    for v in VARIANTS {
        let p = Position::new(v);
        assert_eq!(p.turn(), Color::White, "{}", v.id);
        for s in p.pieces_of(Color::White) {
            assert!(s.rank() < v.height / 2, "{}: white piece on {s}", v.id);
        }
        for s in p.pieces_of(Color::Black) {
            assert!(s.rank() >= v.height / 2, "{}: black piece on {s}", v.id);
        }
        // C1: Construction starts with the Kings alone.
        let corner = if v.grants { "e1" } else { "a1" };
        let a1 = p.piece_at(sq(corner)).expect("a corner piece");
        assert_eq!(a1.color, Color::White, "{}", v.id);
    }
}

// ---------------------------------------------------------------- G2

/// G2: a normal move is written and read as `e2e4`.
#[test]
fn g2_canonical_normal_move() {
    let p = Position::new(variant("chess"));
    let m = p.parse_move("e2e4").unwrap();
    assert_eq!(m, normal("e2", "e4", Promote::No));
    assert_eq!(p.canonical(&m), "e2e4");
    assert!(legal(&p).contains("e2e4"));
    assert_eq!(p.parse_move("E2E4"), Ok(m), "any letter case");
}

/// G2: a chess promotion is written and read as `e7e8q`; SAN `e8=Q` works too.
#[test]
fn g2_canonical_promotion() {
    let p = pos("chess", "8/4P3/8/8/8/8/8/k3K3 w - - 0 1");
    assert_eq!(legal_from(&p, "e7"), set(&["e7e8q", "e7e8r", "e7e8b", "e7e8n"]));
    let q = p.parse_move("e7e8q").unwrap();
    assert_eq!(q, normal("e7", "e8", Promote::To(1)));
    assert_eq!(p.canonical(&q), "e7e8q");
    assert_eq!(p.parse_move("e8=Q"), Ok(q));
    assert_eq!(p.parse_move("e8Q"), Ok(q));
    assert_eq!(p.parse_move("e8=Q+"), Ok(q));
    let n = p.parse_move("e8=N").unwrap();
    assert_eq!(p.canonical(&n), "e7e8n");
    let next = after(&p, "e7e8q");
    assert_eq!(next.fen(), "4Q3/8/8/8/8/8/8/k3K3 b - - 0 1");
}

/// G2: a shogi-style optional promotion is written `c4c5+`; `c4c5` is the
/// move without promotion.
#[test]
fn g2_canonical_flip_promotion() {
    let p = pos("olympic", "k4/2S2/5/5/K4[] w - - 0 1");
    let flip = p.parse_move("c4c5+").unwrap();
    assert_eq!(flip, normal("c4", "c5", Promote::Flip));
    assert_eq!(p.canonical(&flip), "c4c5+");
    let plain = p.parse_move("c4c5").unwrap();
    assert_eq!(plain, normal("c4", "c5", Promote::No));
    assert_eq!(p.canonical(&plain), "c4c5");
    assert_eq!(p.parse_move("Sc5=G"), Ok(flip));
    // O3: SAN that says neither is asked about; `=S` stays a Silver.
    assert!(matches!(p.parse_move("Sc5"), Err(MoveError::Refused { why: Why::PromoteOrNot { .. }, .. })));
    assert_eq!(p.parse_move("Sc5=S"), Ok(plain));
}

/// G2: a drop is written `P@c3`, the letter upper-case for both sides.
#[test]
fn g2_canonical_drop() {
    let white = pos("olympic", "k4/5/5/5/K4[P] w - - 0 1");
    let m = white.parse_move("P@c3").unwrap();
    assert_eq!(m, Move::Drop { piece: O_PAWN, to: sq("c3") });
    assert_eq!(white.canonical(&m), "P@c3");

    let black = pos("olympic", "k4/5/5/5/K4[p] b - - 0 1");
    let m = black.parse_move("P@c3").unwrap();
    assert_eq!(m, Move::Drop { piece: O_PAWN, to: sq("c3") });
    assert_eq!(black.canonical(&m), "P@c3");
    assert_eq!(black.parse_move("p@c3"), Ok(m), "any letter case");
    assert_eq!(black.san(&m), "P@c3");
}

/// G2: castling is written as the king's move, `e1g1`; `O-O`, `0-0` and the
/// king-takes-rook form are read as well.
#[test]
fn g2_canonical_castling() {
    let p = pos("chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let short = Move::Castle { king: sq("e1"), rook: sq("h1") };
    let long = Move::Castle { king: sq("e1"), rook: sq("a1") };
    assert_eq!(p.canonical(&short), "e1g1");
    assert_eq!(p.canonical(&long), "e1c1");
    for text in ["e1g1", "O-O", "0-0", "o-o", "OO", "e1h1"] {
        assert_eq!(p.parse_move(text), Ok(short), "{text}");
    }
    for text in ["e1c1", "O-O-O", "0-0-0"] {
        assert_eq!(p.parse_move(text), Ok(long), "{text}");
    }
    assert_eq!(p.san(&short), "O-O");
    assert_eq!(after(&p, "e1g1").fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
}

/// G2: friendly SAN input (`Nf3`, `exd5`) is accepted and answered with the
/// canonical form.
#[test]
fn g2_san_input_is_answered_canonically() {
    let mut g = Game::new(variant("chess"));
    let played = g.play_text("Nf3").unwrap();
    assert_eq!((played.canonical.as_str(), played.san.as_str()), ("g1f3", "Nf3"));
    let played = g.play_text("d5").unwrap();
    assert_eq!(played.canonical, "d7d5");
    let played = g.play_text("nc3").unwrap();
    assert_eq!(played.canonical, "b1c3", "lower case where unambiguous");
    g.play_text("e6").unwrap();
    let played = g.play_text("E4").unwrap();
    assert_eq!(played.canonical, "e2e4");
    g.play_text("Nf6").unwrap();
    let played = g.play_text("exd5").unwrap();
    assert_eq!((played.canonical.as_str(), played.san.as_str()), ("e4d5", "exd5"));
    let played = g.play_text("Bb4!?").unwrap();
    assert_eq!(played.canonical, "f8b4");
}

/// G2: letter case is only ignored where that leaves one move: `bxc3` is the
/// pawn, `Bxc3` the bishop, `BXC3` could be either.
#[test]
fn g2_letter_case_resolves_bishop_and_b_pawn() {
    let p = pos("chess", "4k3/8/8/4B3/8/2n5/1P6/4K3 w - - 0 1");
    assert_eq!(p.parse_move("bxc3"), Ok(normal("b2", "c3", Promote::No)));
    assert_eq!(p.parse_move("Bxc3"), Ok(normal("e5", "c3", Promote::No)));
    match p.parse_move("BXC3") {
        Err(MoveError::Ambiguous { candidates, .. }) => {
            assert_eq!(
                candidates.iter().map(String::as_str).collect::<BTreeSet<_>>(),
                BTreeSet::from(["Bxc3", "bxc3"])
            );
        }
        other => panic!("expected Ambiguous, got {other:?}"),
    }
}

/// G2: a SAN that fits several legal moves is reported as ambiguous, with the
/// candidates; a disambiguated SAN is read.
#[test]
fn g2_ambiguity_is_reported() {
    let p = pos("chess", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
    match p.parse_move("Nd2") {
        Err(MoveError::Ambiguous { text, candidates, .. }) => {
            assert_eq!(text, "Nd2");
            assert_eq!(
                candidates.iter().map(String::as_str).collect::<BTreeSet<_>>(),
                BTreeSet::from(["Nbd2", "Nfd2"])
            );
        }
        other => panic!("expected Ambiguous, got {other:?}"),
    }
    assert_eq!(p.parse_move("Nbd2"), Ok(normal("b1", "d2", Promote::No)));
    assert_eq!(p.parse_move("Nfd2"), Ok(normal("f1", "d2", Promote::No)));
    assert_eq!(p.parse_move("Nb1d2"), Ok(normal("b1", "d2", Promote::No)));
    assert!(matches!(p.parse_move("N1d2"), Err(MoveError::Ambiguous { .. })));
}

/// G2: a move that reads well but is not legal is refused with the reason
/// and, where useful, legal moves of the same piece in SAN; text that is no
/// move at all is a syntax error.
#[test]
fn g2_illegal_move_lists_closest() {
    let p = Position::new(variant("chess"));
    match p.parse_move("e5") {
        Err(MoveError::Refused { text, why: Why::Unreachable { instead, .. } }) => {
            assert_eq!(text, "e5");
            assert_eq!(instead.first().map(String::as_str), Some("e4"));
            for c in &instead {
                assert!(p.parse_move(c).is_ok(), "suggested move {c} must be legal");
            }
        }
        other => panic!("expected a reason, got {other:?}"),
    }
    for text in ["Ke2", "e2e5", "Qh5", "O-O"] {
        assert!(matches!(p.parse_move(text), Err(MoveError::Refused { .. })), "{text}");
    }
    // A token with one square too many: the moves of the piece on its first
    // square that reach the squares it names come first.
    match p.parse_move("e2e4e5") {
        Err(MoveError::Illegal { closest, .. }) => assert_eq!(closest, ["e4", "e3", "d4"]),
        other => panic!("expected the closest moves, got {other:?}"),
    }
    assert!(matches!(p.parse_move("hello"), Err(MoveError::Syntax(_))));
    assert!(matches!(p.parse_move(""), Err(MoveError::Syntax(_))));
    let mut g = Game::new(variant("chess"));
    assert!(matches!(g.play_text("e2e5"), Err(MoveError::Refused { .. })));
    assert!(g.moves().is_empty());
}

/// G2: SAN names a promoted Olympic piece by what it moves as (`G`) as well
/// as by `+P`; the SAN the engine writes must read back as the same move even
/// when a true Gold can go to the same square.
#[test]
fn g2_san_of_gold_next_to_promoted_pawn_reads_back() {
    let p = pos("olympic", "k4/5/1G1+P1/5/K4[] w - - 0 1");
    let gold = normal("b3", "c4", Promote::No);
    let tokin = normal("d3", "c4", Promote::No);
    assert!(p.is_legal(&gold) && p.is_legal(&tokin));
    assert_eq!(p.parse_move(&p.san(&gold)), Ok(gold), "{}", p.san(&gold));
    assert_eq!(p.parse_move(&p.san(&tokin)), Ok(tokin), "{}", p.san(&tokin));
}

/// G2: with a piece of the same kind in hand, the SAN of a board move
/// (`Re2`) reads back as that move; the drop is `R@e2`.
#[test]
fn g2_san_of_board_move_with_same_piece_in_hand_reads_back() {
    let p = pos("olympic", "k4/5/5/5/K3R[R] w - - 0 1");
    let slide = normal("e1", "e2", Promote::No);
    let drop = Move::Drop { piece: O_ROOK, to: sq("e2") };
    assert_eq!(p.san(&slide), "Re2");
    assert_eq!(p.san(&drop), "R@e2");
    assert_eq!(p.parse_move("R@e2"), Ok(drop));
    assert_eq!(p.parse_move("Re2"), Ok(slide));
}

/// G2: a SAN with a rank disambiguation (`B1b2`: the Bishop on rank 1, as
/// the other Bishop on the c-file also reaches b2) reads back as the Bishop's
/// move, not as the canonical token `b1b2` of the Gold on b1.
#[test]
fn g2_rank_disambiguated_bishop_is_not_read_as_canonical() {
    let p = pos("olympic", "5/4k/2B2/5/KGB2[] w - - 0 1");
    let bishop = normal("c1", "b2", Promote::No);
    let gold = normal("b1", "b2", Promote::No);
    assert!(p.is_legal(&bishop) && p.is_legal(&gold));
    assert_eq!(p.san(&bishop), "B1b2");
    assert_eq!(p.parse_move("B1b2"), Ok(bishop));
    assert_eq!(p.parse_move("b1b2"), Ok(gold));

    let p = pos("chess", "4k3/8/8/8/8/2B5/8/1QB1K3 w - - 0 1");
    let bishop = normal("c1", "b2", Promote::No);
    assert_eq!(p.san(&bishop), "B1b2");
    assert_eq!(p.parse_move("B1b2"), Ok(bishop));
}

// ---------------------------------------------------------------- G3

/// G3: every variant's start position is written back exactly as its FEN.
#[test]
fn g3_start_fens_round_trip() {
    for v in VARIANTS {
        let p = Position::new(v);
        assert_eq!(p.fen(), v.start_fen, "{}", v.id);
        assert_eq!(Position::from_fen(v, &p.fen()).unwrap().hash(), p.hash(), "{}", v.id);
    }
    assert_eq!(Position::new(variant("olympic")).fen(), "rbsgk/4p/5/P4/KGSBR[] w - - 0 1");
}

/// G3: Olympic hands are written in brackets (`[Sb]`, White first) and a
/// promoted piece is prefixed with `+`.
#[test]
fn g3_olympic_hands_and_promoted_pieces() {
    let fen = "rb1gk/4p/2+P2/5/KG1BR[Sb] w - - 4 6";
    let p = pos("olympic", fen);
    assert_eq!(p.fen(), fen);
    assert_eq!(p.hand(Color::White, O_SILVER), 1);
    assert_eq!(p.hand(Color::Black, O_BISHOP), 1);
    assert_eq!(p.hand(Color::White, O_BISHOP), 0);
    assert_eq!(p.piece_at(sq("c3")), Some(piece(Color::White, Powers::PAWN, true)));

    // Hands are written in Fairy-Stockfish's order, P G S R B, whatever the
    // order read (pyffish writes `[PPSSGRBbpgsr]` back as `[PPGSSRBpgsrb]`).
    let fen = "k1+s2/5/5/5/K4[PPRp] b - - 0 12";
    let p = pos("olympic", "k1+s2/5/5/5/K4[RPPp] b - - 0 12");
    assert_eq!(p.fen(), fen);
    assert_eq!(
        pos("olympic", "k4/5/5/1p3/K1B2[PPSSGRBbpgsr] w - - 0 1").fen(),
        "k4/5/5/1p3/K1B2[PPGSSRBpgsrb] w - - 0 1"
    );
    assert_eq!(p.hand(Color::White, O_PAWN), 2);
    assert_eq!(p.hand(Color::White, O_ROOK), 1);
    assert_eq!(p.hand(Color::Black, O_PAWN), 1);
    assert_eq!(p.piece_at(sq("c5")), Some(piece(Color::Black, Powers::SILVER, true)));

    let mixed = pos("olympic", "rb1gk/4p/2+P2/5/KG1BR[bS] w - - 4 6");
    assert_eq!(mixed.fen(), "rb1gk/4p/2+P2/5/KG1BR[Sb] w - - 4 6");
    let dash = pos("olympic", "rbsgk/4p/5/P4/KGSBR[-] w - - 0 1");
    assert_eq!(dash.fen(), "rbsgk/4p/5/P4/KGSBR[] w - - 0 1");

    for bad in [
        "k1+G2/5/5/5/K4[] w - - 0 1",
        "k1+R2/5/5/5/K4[] w - - 0 1",
        "k4/5/5/5/+K4[] w - - 0 1",
        "k4/5/5/5/K4[K] w - - 0 1",
        "k+4/5/5/5/K4[] w - - 0 1",
        "k1P2/5/5/5/K4[] w - - 0 1",
    ] {
        assert!(Position::from_fen(variant("olympic"), bad).is_err(), "{bad} must be rejected");
    }
}

/// G3: chess FENs load and are written unchanged, including castling rights
/// and an en passant square that can be used.
#[test]
fn g3_chess_fens_round_trip() {
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k3/8/8/8/8/8/8/4K2R b Kq - 12 40",
    ] {
        assert_eq!(pos("chess", fen).fen(), fen);
    }
    let p = after(&Position::new(variant("chess")), "e2e4");
    assert_eq!(p.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
}

/// G3: the incrementally kept hash of a position equals the hash of the same
/// position read back from its FEN, also after a double step whose en passant
/// capture is illegal. As Fairy-Stockfish does, the FEN names the square
/// whenever an enemy pawn stands beside the pawn (here pinned along rank 4).
#[test]
fn g3_hash_matches_fen_after_unusable_double_step() {
    let p = pos("chess", "8/8/8/8/R2p3k/8/4P3/4K3 w - - 0 1");
    let next = after(&p, "e2e4");
    assert_eq!(next.fen(), "8/8/8/8/R2pP2k/8/8/4K3 b - e3 0 1");
    assert!(!legal(&next).contains("d4e3"), "the en passant capture is illegal");
    let reread = Position::from_fen(variant("chess"), &next.fen()).unwrap();
    assert_eq!(next.hash(), reread.hash());
}

// ---------------------------------------------------------------- G4

/// G4: threefold repetition ends the game at once as a draw.
#[test]
fn g4_threefold_repetition_draws_at_once() {
    let mut g = Game::new(variant("chess"));
    let outcomes = play_all(&mut g, &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]);
    assert!(outcomes.iter().all(Option::is_none));
    let last = g.play_text("Ng8").unwrap();
    assert_eq!(last.outcome, draw(EndReason::Repetition));
    assert_eq!(g.outcome(), draw(EndReason::Repetition));
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.play_text("Nf3"), Err(MoveError::GameOver));
}

/// G4 (FIDE 9.2.3): positions are the same when the same moves are
/// possible, so a double step whose en passant capture is illegal does not
/// make the position differ from its later repetitions.
#[test]
fn g4_repetition_ignores_unusable_en_passant() {
    let mut g = game("chess", "8/8/8/8/R2p3k/8/4P3/4K3 w - - 0 1");
    let cycle = ["h4h5", "e1e2", "h5h4", "e2e1"];
    g.play_text("e2e4").unwrap();
    let mut outcomes = play_all(&mut g, &cycle);
    outcomes.extend(play_all(&mut g, &cycle[..3]));
    assert!(outcomes.iter().all(Option::is_none));
    let third = g.play_text(cycle[3]).unwrap();
    assert_eq!(third.outcome, draw(EndReason::Repetition));
}

/// G4: the 50-move rule ends the game at once as a draw; a mate on the
/// hundredth half-move still wins, and a capture resets the count.
#[test]
fn g4_fifty_move_rule() {
    let mut g = game("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
    assert_eq!(g.outcome(), None);
    let played = g.play_text("Ra2").unwrap();
    assert_eq!(played.outcome, draw(EndReason::FiftyMoves));
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.play_text("Kd8"), Err(MoveError::GameOver));

    let at_100 = pos("chess", "4k3/8/8/8/8/8/8/R3K3 b - - 100 80");
    assert_eq!(at_100.outcome(), draw(EndReason::FiftyMoves));
    assert_eq!(Game::from_position(at_100).outcome(), draw(EndReason::FiftyMoves));

    let mut g = game("chess", "k7/8/1K6/8/8/8/8/7R w - - 99 80");
    let played = g.play_text("Rh8").unwrap();
    assert_eq!(played.outcome, win(Color::White, EndReason::Checkmate));

    let mut g = game("chess", "4k3/8/8/8/8/8/r7/R3K3 w - - 99 80");
    let played = g.play_text("Rxa2").unwrap();
    assert_eq!(played.outcome, None);
    assert_eq!(g.position().halfmoves(), 0);
}

/// G4: stalemate is a draw.
#[test]
fn g4_stalemate_draws() {
    let p = pos("chess", "k7/8/1Q6/8/8/8/8/K7 b - - 0 1");
    assert!(p.legal_moves().is_empty());
    assert_eq!(p.outcome(), draw(EndReason::Stalemate));
    let mut g = game("chess", "k7/8/8/2Q5/8/8/8/K7 w - - 0 1");
    assert_eq!(g.play_text("Qb6").unwrap().outcome, draw(EndReason::Stalemate));
}

/// G4: in chess, insufficient material draws: K v K, KB v K, KN v K and
/// bishops all on one colour; KNN v K, opposite bishops and KB v KN do not.
#[test]
fn g4_insufficient_material() {
    let dead = [
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/1N2K3 b - - 0 1",
        "4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1",
        "4k3/8/8/8/8/8/1B6/2B1K3 w - - 0 1",
    ];
    for fen in dead {
        let p = pos("chess", fen);
        assert!(p.is_insufficient_material(), "{fen}");
        assert_eq!(p.outcome(), draw(EndReason::InsufficientMaterial), "{fen}");
        assert!(Game::from_position(p).legal_moves().is_empty(), "{fen}");
    }
    let alive = [
        "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1",
        "2b1k3/8/8/8/8/8/8/2B1K3 w - - 0 1",
        "4kn2/8/8/8/8/8/8/2B1K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
    ];
    for fen in alive {
        let p = pos("chess", fen);
        assert!(!p.is_insufficient_material(), "{fen}");
        assert_eq!(p.outcome(), None, "{fen}");
    }
    let mut g = game("chess", "4k3/8/8/8/8/8/8/3rK3 w - - 0 1");
    assert_eq!(g.play_text("Kxd1").unwrap().outcome, draw(EndReason::InsufficientMaterial));
    let olympic_bare = pos("olympic", "k4/5/5/5/K4[] w - - 0 1");
    assert_eq!(olympic_bare.outcome(), None, "insufficient material is for chess");
}

// ---------------------------------------------------------------- G5

/// G5: a checkmated position has no legal moves, so perft counts nothing.
#[test]
fn g5_checkmate_has_no_moves() {
    let p = pos("chess", "k6R/8/1K6/8/8/8/8/8 b - - 1 80");
    assert!(p.legal_moves().is_empty());
    assert_eq!(perft(&p, 1), 0);
    assert_eq!(perft(&p, 3), 0);
    assert_eq!(p.outcome(), win(Color::White, EndReason::Checkmate));
    let fools = after(&after(&after(&after(&Position::new(variant("chess")), "f3"), "e5"), "g4"), "Qh4");
    assert!(fools.legal_moves().is_empty());
    assert_eq!(fools.outcome(), win(Color::Black, EndReason::Checkmate));
}

/// G5: an Alapawn position with a pawn on its last rank, or with one side's
/// pawns all gone, is over and has no legal moves.
#[test]
fn g5_alapawn_finished_positions_have_no_moves() {
    for (id, fen, outcome) in [
        ("alapawn", "P3k3/8/8/8/8/8/p7/4K3 b - - 0 1", win(Color::White, EndReason::PawnPromoted)),
        ("alapawn", "4k3/8/8/8/8/8/P7/4K3 b - - 0 1", win(Color::White, EndReason::LastPawnCaptured)),
        ("alapawn-balanced", "4k3/1p6/8/8/8/8/8/p3K2P w - - 0 9", win(Color::Black, EndReason::PawnPromoted)),
    ] {
        let p = pos(id, fen);
        assert!(p.legal_moves().is_empty(), "{fen}");
        assert_eq!(perft(&p, 2), 0, "{fen}");
        assert_eq!(p.outcome(), outcome, "{fen}");
        let g = Game::from_position(p);
        assert_eq!(g.outcome(), outcome);
        assert!(g.legal_moves().is_empty());
    }
}

/// G5: a game drawn by G4's rules is over too; a `Game` lists no moves.
#[test]
fn g5_drawn_game_has_no_moves() {
    for fen in ["4k3/8/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/8/R3K3 w - - 100 80"] {
        let g = game("chess", fen);
        assert!(g.outcome().is_some(), "{fen}");
        assert!(g.legal_moves().is_empty(), "{fen}");
    }
}

/// G5 and G4 together: draws by rule end the *game* (above), but perft on a
/// position counts through them, as the published chess tables do (see
/// rules/DESIGN.md): the moves are there, the game adjudicates.
#[test]
fn g5_perft_counts_through_draws_by_rule() {
    for (fen, moves) in [("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 5), ("4k3/8/8/8/8/8/8/R3K3 w - - 100 80", 15)] {
        let p = pos("chess", fen);
        assert!(p.outcome().is_some_and(|o| o.winner.is_none()), "{fen}");
        assert_eq!(perft(&p, 1), moves, "{fen}");
    }
}

// ---------------------------------------------------------------- O1

/// O1: Olympic starts from Minishogi's array, `rbsgk/4p/5/P4/KGSBR[]`.
#[test]
fn o1_start_position() {
    let p = Position::new(variant("olympic"));
    assert_eq!(p.fen(), "rbsgk/4p/5/P4/KGSBR[] w - - 0 1");
    let expect = [
        ("a1", Color::White, Powers::KING),
        ("b1", Color::White, Powers::GOLD),
        ("c1", Color::White, Powers::SILVER),
        ("d1", Color::White, Powers::BISHOP),
        ("e1", Color::White, Powers::ROOK),
        ("a2", Color::White, Powers::PAWN),
        ("e5", Color::Black, Powers::KING),
        ("d5", Color::Black, Powers::GOLD),
        ("c5", Color::Black, Powers::SILVER),
        ("b5", Color::Black, Powers::BISHOP),
        ("a5", Color::Black, Powers::ROOK),
        ("e4", Color::Black, Powers::PAWN),
    ];
    for (s, color, powers) in expect {
        let pc = p.piece_at(sq(s)).unwrap_or_else(|| panic!("nothing on {s}"));
        assert_eq!((pc.color, pc.powers, pc.promoted), (color, powers, false), "{s}");
        assert_eq!(pc.royal, powers == Powers::KING, "{s}");
    }
    assert_eq!(p.occupied().count(), 12);
    for c in Color::ALL {
        for i in 0..6 {
            assert_eq!(p.hand(c, i), 0);
        }
    }
    assert_eq!(
        legal(&p),
        set(&[
            "a1b2", "b1b2", "b1c2", "c1b2", "c1c2", "c1d2", "d1c2", "d1b3", "d1a4", "d1e2", "e1e2", "e1e3", "e1e4",
            "a2a3",
        ])
    );
    assert_eq!(perft(&p, 2), 180);
}

// ---------------------------------------------------------------- O2

/// O2: a Silver steps one square diagonally in any direction or straight
/// forward.
#[test]
fn o2_silver_moves() {
    let w = pos("olympic", "k4/5/2S2/5/4K[] w - - 0 1");
    assert_eq!(legal_from(&w, "c3"), set(&["c3c4", "c3b4", "c3d4", "c3b2", "c3d2"]));
    let b = pos("olympic", "k4/5/2s2/5/4K[] b - - 0 1");
    assert_eq!(legal_from(&b, "c3"), set(&["c3c2", "c3b2", "c3d2", "c3b4", "c3d4"]));
}

/// O2: a Gold steps one square orthogonally or diagonally forward; a promoted
/// Pawn or Silver moves exactly as a Gold.
#[test]
fn o2_gold_and_promoted_pieces_move_as_gold() {
    let gold_w = set(&["c3c4", "c3b4", "c3d4", "c3b3", "c3d3", "c3c2"]);
    let gold_b = set(&["c3c2", "c3b2", "c3d2", "c3b3", "c3d3", "c3c4"]);
    for letter in ["G", "+P", "+S"] {
        let w = pos("olympic", &format!("k4/5/2{letter}2/5/4K[] w - - 0 1"));
        assert_eq!(legal_from(&w, "c3"), gold_w, "{letter}");
        let lower = letter.to_ascii_lowercase();
        let b = pos("olympic", &format!("k4/5/2{lower}2/5/4K[] b - - 0 1"));
        assert_eq!(legal_from(&b, "c3"), gold_b, "{lower}");
    }
}

/// O2: a Pawn steps one square forward onto an empty square (no double step)
/// and captures one step diagonally forward.
#[test]
fn o2_pawn_moves() {
    let start = Position::new(variant("olympic"));
    assert_eq!(legal_from(&start, "a2"), set(&["a2a3"]));
    let capture = pos("olympic", "k4/5/1p3/P4/4K[] w - - 0 1");
    assert_eq!(legal_from(&capture, "a2"), set(&["a2a3", "a2b3"]));
    let blocked = pos("olympic", "k4/5/p4/P4/4K[] w - - 0 1");
    assert_eq!(legal_from(&blocked, "a2"), set(&[]));
    let black = pos("olympic", "k4/2p2/5/5/4K[] b - - 0 1");
    assert_eq!(legal_from(&black, "c4"), set(&["c4c3"]));
}

/// O2: King, Rook and Bishop move as in chess, within the 5x5 board.
#[test]
fn o2_rook_bishop_king_on_small_board() {
    let r = pos("olympic", "5/4k/2R2/5/1K3[] w - - 0 1");
    assert_eq!(legal_from(&r, "c3"), set(&["c3c4", "c3c5", "c3c2", "c3c1", "c3b3", "c3a3", "c3d3", "c3e3"]));
    let b = pos("olympic", "5/4k/2B2/5/1K3[] w - - 0 1");
    assert_eq!(legal_from(&b, "c3"), set(&["c3b4", "c3a5", "c3d4", "c3e5", "c3b2", "c3a1", "c3d2", "c3e1"]));
    let k = pos("olympic", "5/4k/5/5/1K3[] w - - 0 1");
    assert_eq!(legal_from(&k, "b1"), set(&["b1a1", "b1c1", "b1a2", "b1b2", "b1c2"]));
}

// ---------------------------------------------------------------- O3

/// O3: a Pawn reaching the last rank must become Gold (`+P`), by step or
/// capture, for both colours.
#[test]
fn o3_pawn_must_promote() {
    let p = pos("olympic", "kr3/2P2/5/5/4K[] w - - 0 1");
    assert_eq!(legal_from(&p, "c4"), set(&["c4c5+", "c4b5+"]));
    let flip = normal("c4", "c5", Promote::Flip);
    assert_eq!(p.parse_move("c4c5"), Ok(flip), "an only promotion may be left unsaid");
    assert_eq!(p.parse_move("c5"), Ok(flip));
    let next = after(&p, "c4c5+");
    assert_eq!(next.piece_at(sq("c5")), Some(piece(Color::White, Powers::PAWN, true)));
    assert_eq!(next.fen(), "kr+P2/5/5/5/4K[] b - - 0 1");

    let b = pos("olympic", "4k/5/5/2p2/K4[] b - - 0 1");
    assert_eq!(legal_from(&b, "c2"), set(&["c2c1+"]));
}

/// O3: a Silver whose move starts or ends on the last rank may promote or
/// not; elsewhere it may not.
#[test]
fn o3_silver_may_promote_on_last_rank() {
    let ends = pos("olympic", "k4/2S2/5/5/K4[] w - - 0 1");
    assert_eq!(legal_from(&ends, "c4"), set(&["c4c5", "c4c5+", "c4b5", "c4b5+", "c4d5", "c4d5+", "c4b3", "c4d3"]));
    let starts = pos("olympic", "k1S2/5/5/5/4K[] w - - 0 1");
    assert_eq!(legal_from(&starts, "c5"), set(&["c5b4", "c5b4+", "c5d4", "c5d4+"]));
    let black = pos("olympic", "4k/5/5/5/K1s2[] b - - 0 1");
    assert_eq!(legal_from(&black, "c1"), set(&["c1b2", "c1b2+", "c1d2", "c1d2+"]));
    let next = after(&starts, "c5d4+");
    assert_eq!(next.piece_at(sq("d4")), Some(piece(Color::White, Powers::SILVER, true)));
}

/// O3: a Gold never promotes, and a promoted piece does not promote again.
#[test]
fn o3_gold_never_promotes() {
    let expect = set(&["c4c5", "c4b5", "c4d5", "c4b4", "c4d4", "c4c3"]);
    for letter in ["G", "+P", "+S"] {
        let p = pos("olympic", &format!("k4/2{letter}2/5/5/4K[] w - - 0 1"));
        assert_eq!(legal_from(&p, "c4"), expect, "{letter}");
    }
    let on_zone = pos("olympic", "k1G2/5/5/5/4K[] w - - 0 1");
    assert!(legal_from(&on_zone, "c5").iter().all(|m| !m.ends_with('+')));
}

// ---------------------------------------------------------------- O4

/// O4: a captured piece changes colour and goes to the captor's hand; a
/// promoted piece returns to its unpromoted form.
#[test]
fn o4_captured_pieces_go_to_hand_unpromoted() {
    let p = pos("olympic", "2r1k/5/5/2+P2/K4[] b - - 0 1");
    let next = after(&p, "c5c2");
    assert_eq!(next.fen(), "4k/5/5/2r2/K4[p] w - - 0 2");
    assert_eq!(next.hand(Color::Black, O_PAWN), 1);
    assert_eq!(next.hand(Color::White, O_PAWN), 0);

    let p = pos("olympic", "k4/5/2+s2/5/2R1K[] w - - 0 1");
    let next = after(&p, "Rxc3");
    assert_eq!(next.fen(), "k4/5/2R2/5/4K[S] b - - 0 1");
    assert_eq!(next.hand(Color::White, O_SILVER), 1);
    let next = after(&next, "a5b5");
    let dropped = after(&next, "S@b4");
    assert_eq!(dropped.piece_at(sq("b4")), Some(piece(Color::White, Powers::SILVER, false)));
    assert_eq!(dropped.fen().split(' ').next(), Some("1k3/1S3/2R2/5/4K[]"));

    let p = pos("olympic", "k4/5/5/1r3/1R2K[] w - - 0 1");
    let next = after(&p, "b1b2");
    assert_eq!(next.fen(), "k4/5/5/1R3/4K[R] b - - 0 1");
}

// ---------------------------------------------------------------- O5

/// O5: a piece in hand may be dropped on any empty square; a Pawn not on its
/// last rank but on its first; a drop never promotes.
#[test]
fn o5_drop_squares() {
    let w = pos("olympic", "k4/5/5/5/K4[P] w - - 0 1");
    let drops: BTreeSet<String> = legal(&w).into_iter().filter(|m| m.starts_with("P@")).collect();
    let mut expect = BTreeSet::new();
    for f in ['a', 'b', 'c', 'd', 'e'] {
        for r in 1..=4 {
            let s = format!("{f}{r}");
            if s != "a1" {
                expect.insert(format!("P@{s}"));
            }
        }
    }
    assert_eq!(drops, expect);
    assert_eq!(drops.len(), 19);
    let on_first = after(&w, "P@b1");
    assert_eq!(on_first.piece_at(sq("b1")), Some(piece(Color::White, Powers::PAWN, false)));
    assert_eq!(on_first.hand(Color::White, O_PAWN), 0);

    let b = pos("olympic", "k4/5/5/5/K4[p] b - - 0 1");
    let drops: BTreeSet<String> = legal(&b).into_iter().filter(|m| m.starts_with("P@")).collect();
    assert_eq!(drops.len(), 19);
    assert!(drops.contains("P@b5"), "black's first rank");
    assert!(!drops.iter().any(|m| m.ends_with('1')), "black's last rank");

    let silver = pos("olympic", "k4/5/5/5/K4[S] w - - 0 1");
    assert_eq!(legal(&silver).iter().filter(|m| m.starts_with("S@")).count(), 23);
    let dropped = after(&silver, "S@c5");
    assert_eq!(dropped.piece_at(sq("c5")), Some(piece(Color::White, Powers::SILVER, false)));
    assert_eq!(dropped.fen().split(' ').next(), Some("k1S2/5/5/5/K4[]"));
    let next = after(&dropped, "a5a4");
    assert!(legal_from(&next, "c5").contains("c5d4+"), "a Silver dropped on the last rank may promote leaving it");
    let gold = pos("olympic", "k4/5/5/5/K4[G] w - - 0 1");
    assert!(legal(&gold).contains("G@c5"));
}

/// O5: a drop may block a check.
#[test]
fn o5_drop_blocks_check() {
    let p = pos("olympic", "k4/5/5/5/K3r[S] w - - 0 1");
    assert!(p.is_check());
    assert_eq!(legal(&p), set(&["a1a2", "a1b2", "S@b1", "S@c1", "S@d1"]));
    let contact = pos("olympic", "k4/5/5/5/Kr3[S] w - - 0 1");
    assert!(legal(&contact).iter().all(|m| !m.contains('@')));
}

/// O5: a Pawn dropped with mate is legal: no other drop restriction.
#[test]
fn o5_pawn_drop_mate_is_legal() {
    let mut g = game("olympic", "kb3/p4/2G2/5/4K[P] w - - 0 1");
    let played = g.play_text("P@b4").unwrap();
    assert_eq!(played.canonical, "P@b4");
    assert_eq!(played.outcome, win(Color::White, EndReason::Checkmate));
    assert!(g.position().legal_moves().is_empty());
}

// ---------------------------------------------------------------- O6

/// O6: when a position occurs for the third time, White loses.
#[test]
fn o6_third_occurrence_white_loses() {
    let mut g = game("olympic", "k4/3r1/5/1R3/4K[] w - - 0 1");
    let cycle = ["b2c2", "d4d3", "c2b2", "d3d4"];
    let mut outcomes = play_all(&mut g, &cycle);
    outcomes.extend(play_all(&mut g, &cycle[..3]));
    assert!(outcomes.iter().all(Option::is_none));
    let third = g.play_text(cycle[3]).unwrap();
    assert_eq!(third.outcome, win(Color::Black, EndReason::Repetition));
    assert!(g.legal_moves().is_empty());
}

/// O6: when every Black move since the previous occurrence gave check, the
/// third occurrence wins for White.
#[test]
fn o6_perpetual_check_white_wins() {
    let mut g = game("olympic", "2k2/5/5/5/K3r[] w - - 0 1");
    assert!(g.position().is_check());
    let cycle = ["a1a2", "e1e2", "a2a1", "e2e1"];
    let mut outcomes = play_all(&mut g, &cycle);
    outcomes.extend(play_all(&mut g, &cycle[..3]));
    assert!(outcomes.iter().all(Option::is_none));
    let third = g.play_text(cycle[3]).unwrap();
    assert_eq!(third.outcome, win(Color::White, EndReason::PerpetualCheck));
}

/// O6: only the Black moves since the previous occurrence count: quiet moves
/// before it do not spoil a perpetual, and quiet moves after it do.
#[test]
fn o6_only_moves_since_previous_occurrence_count() {
    let fen = "2k2/5/5/5/K3r[] w - - 0 1";
    let checks = ["a1a2", "e1e2", "a2a1", "e2e1"];
    let quiet = ["a1b2", "c5c4", "b2a2", "c4c5", "a2b2", "e1e2", "b2a1", "e2e1"];

    let mut g = Game::from_position(pos("olympic", fen));
    let outcomes = play_all(&mut g, &quiet);
    assert!(outcomes.iter().all(Option::is_none));
    let outcomes = play_all(&mut g, &checks);
    assert!(outcomes[..3].iter().all(Option::is_none));
    assert_eq!(outcomes[3], win(Color::White, EndReason::PerpetualCheck));

    let mut g = Game::from_position(pos("olympic", fen));
    let outcomes = play_all(&mut g, &checks);
    assert!(outcomes.iter().all(Option::is_none));
    let outcomes = play_all(&mut g, &quiet);
    assert!(outcomes[..7].iter().all(Option::is_none));
    assert_eq!(outcomes[7], win(Color::Black, EndReason::Repetition));
}

/// O6: the hands are part of the position: a repetition of the board with a
/// different hand is not a repetition.
#[test]
fn o6_hands_are_part_of_the_position() {
    let a = pos("olympic", "k4/3r1/5/1R3/4K[] w - - 0 1");
    let b = pos("olympic", "k4/3r1/5/1R3/4K[P] w - - 0 1");
    let c = pos("olympic", "k4/3r1/5/1R3/4K[p] w - - 0 1");
    assert_ne!(a.hash(), b.hash());
    assert_ne!(a.hash(), c.hash());
    assert_ne!(b.hash(), c.hash());
}

/// O6: no 50-move rule in Olympic; stalemate draws.
#[test]
fn o6_no_fifty_move_rule_and_stalemate_draws() {
    let mut g = game("olympic", "k4/3r1/5/1R3/4K[] w - - 99 80");
    assert_eq!(g.play_text("b2c2").unwrap().outcome, None);
    assert_eq!(g.play_text("d4d3").unwrap().outcome, None);
    assert_eq!(pos("olympic", "k4/3r1/5/1R3/4K[] w - - 150 80").outcome(), None);

    let stale = pos("olympic", "k4/2G2/1K3/5/5[] b - - 0 1");
    assert!(!stale.is_check());
    assert!(stale.legal_moves().is_empty());
    assert_eq!(stale.outcome(), draw(EndReason::Stalemate));
}

// ---------------------------------------------------------------- A1

/// A1: the Alapawn King is an ordinary piece: it may be captured, and play
/// goes on without it.
#[test]
fn a1_king_can_be_captured() {
    let mut g = game("alapawn", "4r3/p7/8/8/8/8/P7/4K3 b - - 0 1");
    let played = g.play_text("Rxe1").unwrap();
    assert_eq!(played.canonical, "e8e1");
    assert_eq!(played.outcome, None);
    assert_eq!(g.outcome(), None);
    assert_eq!(legal(g.position()), set(&["a2a3", "a2b3"]));
}

/// A1: there is no check: the King may move onto attacked squares and other
/// pieces may move while it is attacked.
#[test]
fn a1_king_may_move_into_attack() {
    let p = pos("alapawn", "3rr3/p7/8/8/8/8/P7/4K3 w - - 0 1");
    assert!(!p.is_check());
    assert_eq!(legal(&p), set(&["e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "a2a3", "a2b3"]));
    let pinned = pos("alapawn", "4r3/p7/8/8/8/8/P3N3/4K3 w - - 0 1");
    assert!(legal_from(&pinned, "e2").contains("e2c3"), "no pins");
}

/// A1: no castling.
#[test]
fn a1_no_castling() {
    let p = pos("alapawn", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
    assert_eq!(p.fen(), "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1");
    assert!(!p.legal_moves().iter().any(|m| matches!(m, Move::Castle { .. })));
    assert_eq!(legal_from(&p, "e1"), set(&["e1d1", "e1f1"]));
    assert!(p.parse_move("O-O").is_err());
    assert!(p.parse_move("e1g1").is_err());
}

// ---------------------------------------------------------------- A2

/// A2: a pawn steps one square forward or diagonally forward onto an empty
/// square, captures one step diagonally forward, and never steps twice.
#[test]
fn a2_pawn_steps() {
    let open = pos("alapawn", "4k3/7p/8/8/4P3/8/8/4K3 w - - 0 1");
    assert_eq!(legal_from(&open, "e4"), set(&["e4e5", "e4d5", "e4f5"]));
    let crowded = pos("alapawn", "4k3/7p/8/3nrN2/4P3/8/8/4K3 w - - 0 1");
    assert_eq!(legal_from(&crowded, "e4"), set(&["e4d5"]));
    let start = Position::new(variant("alapawn"));
    assert_eq!(legal_from(&start, "a2"), set(&["a2a3", "a2b3"]));
    assert_eq!(legal_from(&start, "e2"), set(&["e2e3", "e2d3", "e2f3"]));
    assert_eq!(perft(&start, 1), 26);
    let black = pos("alapawn", "4k3/4p3/8/8/8/8/P7/4K3 b - - 0 1");
    assert_eq!(legal_from(&black, "e7"), set(&["e7e6", "e7d6", "e7f6"]));
}

/// A2: no en passant, whatever the FEN says.
#[test]
fn a2_no_en_passant() {
    let p = pos("alapawn", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
    assert!(!p.legal_moves().iter().any(|m| matches!(m, Move::EnPassant { .. })));
    assert_eq!(p.fen(), "4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1");
    let next = after(&p, "e5d6");
    assert_eq!(
        next.piece_at(sq("d5")),
        Some(piece(Color::Black, Powers::PAWN, false)),
        "a quiet diagonal step captures nothing"
    );
}

// ---------------------------------------------------------------- A3

/// A3: a pawn reaching the last rank wins at once and does not promote.
#[test]
fn a3_pawn_reaching_last_rank_wins() {
    let p = pos("alapawn", "k2r4/4P3/8/8/8/8/p7/K7 w - - 0 1");
    assert_eq!(legal_from(&p, "e7"), set(&["e7e8", "e7d8", "e7f8"]));
    for token in ["e7e8", "e7d8", "e7f8"] {
        let mut g = Game::from_position(p.clone());
        let played = g.play_text(token).unwrap();
        assert_eq!(played.outcome, win(Color::White, EndReason::PawnPromoted), "{token}");
        let to = &token[2..];
        assert_eq!(g.position().piece_at(sq(to)), Some(piece(Color::White, Powers::PAWN, false)), "{token}");
        assert!(played.san.ends_with('#'), "{}", played.san);
    }
    let black = pos("alapawn", "k7/4P3/8/8/8/8/p7/1K6 b - - 0 1");
    let mut g = Game::from_position(black);
    assert_eq!(g.play_text("a1").unwrap().outcome, win(Color::Black, EndReason::PawnPromoted));
    assert!(pos("alapawn", "k7/4P3/8/8/8/8/p7/K7 w - - 0 1").parse_move("e8=Q").is_err());
}

/// A3: capturing the opponent's last pawn wins at once.
#[test]
fn a3_capturing_last_pawn_wins() {
    let mut g = game("alapawn", "k7/8/8/3p4/4P3/8/8/K7 w - - 0 1");
    assert_eq!(g.play_text("exd5").unwrap().outcome, win(Color::White, EndReason::LastPawnCaptured));
    let mut g = game("alapawn", "k7/8/8/8/3p4/4P3/8/K7 b - - 0 1");
    assert_eq!(g.play_text("dxe3").unwrap().outcome, win(Color::Black, EndReason::LastPawnCaptured));
    let mut g = game("alapawn", "k7/6p1/8/3p4/4P3/8/8/K7 w - - 0 1");
    assert_eq!(g.play_text("exd5").unwrap().outcome, None);
}

// ---------------------------------------------------------------- A4

/// A4: a player with no legal move loses.
#[test]
fn a4_no_legal_move_loses() {
    let p = pos("alapawn", "nBnBnBnB/P1P1P1P1/8/8/8/7p/8/8 w - - 0 1");
    assert!(p.legal_moves().is_empty());
    assert_eq!(p.outcome(), win(Color::Black, EndReason::NoMoves));
    assert_eq!(Game::from_position(p).outcome(), win(Color::Black, EndReason::NoMoves));
    let mut g = game("alapawn", "nBnBnBnB/P1P1P1P1/8/8/8/7p/8/7r b - - 0 1");
    assert_eq!(g.play_text("h1h2").unwrap().outcome, win(Color::Black, EndReason::NoMoves));
}

// ---------------------------------------------------------------- A5

/// A5: on the third occurrence each side's most recently moved piece is
/// removed; play goes on with a fresh history and count.
#[test]
fn a5_repetition_removes_last_moved_pieces() {
    let mut g = Game::new(variant("alapawn"));
    let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    play_all(&mut g, &cycle);
    play_all(&mut g, &cycle[..3]);
    let played = g.play_text("Ng8").unwrap();
    assert_eq!(played.outcome, None);
    assert_eq!(played.removal, Some(kibitz_rules::EndReason::Repetition));
    assert_eq!(
        played.removed,
        vec![
            (sq("g1"), piece(Color::White, Powers::KNIGHT, false)),
            (sq("g8"), piece(Color::Black, Powers::KNIGHT, false)),
        ]
    );
    assert_eq!(g.position().fen(), "rnbqkb1r/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R w - - 0 5");

    let cycle = ["Nc3", "Nc6", "Nb1", "Nb8"];
    for p in play_all(&mut g, &cycle) {
        assert_eq!(p, None);
    }
    let second = g.play_text("Nc3").unwrap();
    assert!(second.removed.is_empty(), "the position after removal counts once");
    let played = play_all(&mut g, &cycle[1..3]);
    assert!(played.iter().all(Option::is_none));
    let played = g.play_text("Nb8").unwrap();
    assert_eq!(played.outcome, None);
    assert_eq!(
        played.removed,
        vec![
            (sq("b1"), piece(Color::White, Powers::KNIGHT, false)),
            (sq("b8"), piece(Color::Black, Powers::KNIGHT, false)),
        ]
    );
    assert_eq!(g.position().fen(), "r1bqkb1r/pppppppp/8/8/8/8/PPPPPPPP/R1BQKB1R w - - 0 9");
}

/// A5: fifty moves by each side without capture or pawn move trigger the
/// removal too; a pawn move resets the count.
#[test]
fn a5_fifty_moves_trigger_removal() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 98 60";
    let mut g = game("alapawn", start);
    let quiet = g.play_text("Nf3").unwrap();
    assert!(quiet.removed.is_empty() && quiet.removal.is_none());
    let played = g.play_text("Nf6").unwrap();
    assert_eq!(played.outcome, None);
    assert_eq!(played.removal, Some(kibitz_rules::EndReason::FiftyMoves));
    assert_eq!(
        played.removed,
        vec![
            (sq("f3"), piece(Color::White, Powers::KNIGHT, false)),
            (sq("f6"), piece(Color::Black, Powers::KNIGHT, false)),
        ]
    );
    assert_eq!(g.position().fen(), "rnbqkb1r/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R w - - 0 61");

    let mut g = game("alapawn", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 99 60");
    let played = g.play_text("e3").unwrap();
    assert!(played.removed.is_empty());
    assert_eq!(g.position().halfmoves(), 0);

    let mut g = game("alapawn", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 99 60");
    let played = g.play_text("Nf3").unwrap();
    assert_eq!(
        played.removed,
        vec![(sq("f3"), piece(Color::White, Powers::KNIGHT, false))],
        "Black has moved no piece in this game"
    );
}

/// A5 with A4: a removal that leaves the side to move without a legal move
/// loses for it.
#[test]
fn a5_removal_can_leave_no_legal_move() {
    let mut g = game("alapawn", "nBnBnBnB/P1P1P1P1/8/8/8/7p/8/N6k w - - 0 1");
    let cycle = ["a1b3", "h1g1", "b3a1", "g1h1"];
    play_all(&mut g, &cycle);
    let outcomes = play_all(&mut g, &cycle[..3]);
    assert!(outcomes.iter().all(Option::is_none));
    let played = g.play_text("g1h1").unwrap();
    assert_eq!(played.removed.len(), 2);
    assert_eq!(played.outcome, win(Color::Black, EndReason::NoMoves));
}

// ---------------------------------------------------------------- A6

/// Which pawn went where in a turn: the key under which two listed moves
/// would be the same turn.
fn turn_key(p: &Position, m: &Move) -> (String, Vec<(Square, Square)>) {
    let mut next = p.clone();
    next.play_unchecked(*m);
    let mut paths = match *m {
        Move::PawnPair { first, second } if second.0 == first.1 => vec![(first.0, second.1)],
        Move::PawnPair { first, second } => vec![first, second],
        Move::Normal { from, to, .. } => vec![(from, to)],
        _ => Vec::new(),
    };
    paths.sort();
    (next.fen(), paths)
}

/// The listed turn that moves the pawn on `from` twice to `to`, whichever
/// square it passes.
fn pawn_twice(p: &Position, from: &str, to: &str) -> Move {
    let (from, to) = (sq(from), sq(to));
    p.legal_moves()
        .iter()
        .copied()
        .find(|m| {
            matches!(*m, Move::PawnPair { first, second }
                if first.0 == from && second.0 == first.1 && second.1 == to)
        })
        .unwrap_or_else(|| panic!("no turn {from}..{to} in {p:?}"))
}

fn assert_no_duplicate_turns(p: &Position) {
    let mut seen = BTreeMap::new();
    for m in &p.legal_moves() {
        if let Some(other) = seen.insert(turn_key(p, m), p.canonical(m)) {
            panic!("{} and {other} are the same turn in {p:?}", p.canonical(m));
        }
    }
}

/// A6: the pair turn tokens are `a2a3a4` (one pawn twice) and `a2a3b2b3` (two
/// pawns); the same turn is listed once.
#[test]
fn a6_pair_turns_and_tokens() {
    let p = pos("alapawn-balanced", "8/7p/8/8/8/8/P6P/8 w - - 0 1");
    let moves = p.legal_moves();
    assert_eq!(moves.len(), 14);
    assert_no_duplicate_turns(&p);
    let results: BTreeSet<BTreeSet<String>> = moves
        .iter()
        .map(|m| {
            let mut n = p.clone();
            n.play_unchecked(*m);
            n.pieces_of(Color::White).map(|s| s.to_string()).collect()
        })
        .collect();
    let expect: BTreeSet<BTreeSet<String>> = [
        ["a3", "h2"],
        ["b3", "h2"],
        ["a2", "h3"],
        ["a2", "g3"],
        ["a4", "h2"],
        ["b4", "h2"],
        ["c4", "h2"],
        ["a2", "h4"],
        ["a2", "g4"],
        ["a2", "f4"],
        ["a3", "h3"],
        ["a3", "g3"],
        ["b3", "h3"],
        ["b3", "g3"],
    ]
    .iter()
    .map(|pair| pair.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(results, expect);

    let pair = p.parse_move("a2a3a4").unwrap();
    assert_eq!(pair, Move::PawnPair { first: (sq("a2"), sq("a3")), second: (sq("a3"), sq("a4")) });
    assert_eq!(p.canonical(&pair), "a2a3a4");
    let two = p.parse_move("a2a3h2h3").unwrap();
    assert_eq!(two, Move::PawnPair { first: (sq("a2"), sq("a3")), second: (sq("h2"), sq("h3")) });
    assert_eq!(p.canonical(&two), "a2a3h2h3");
    assert_eq!(p.san(&two), "a3,h3");
    assert_eq!(p.parse_move("a3,h3"), Ok(two));
    assert_eq!(p.parse_move("a3 h3"), Ok(two));
    // The two steps may be written in either order.
    assert_eq!(p.parse_move("h3,a3"), Ok(two));
    assert_eq!(p.parse_move("h3, a3"), Ok(two));
    assert_eq!(p.parse_move("h3 a3"), Ok(two));
    assert_eq!(p.parse_move("h2h3a2a3"), Ok(two));
}

/// A6: the same two pawns moved in either order, or one pawn through either
/// of two squares, is one turn.
#[test]
fn a6_duplicates_are_listed_once() {
    let p = pos("alapawn-balanced", "8/7p/8/8/8/8/PP6/8 w - - 0 1");
    assert_eq!(p.legal_moves().len(), 16);
    assert_no_duplicate_turns(&p);
    let mut g = Game::new(variant("alapawn-balanced"));
    play_all(&mut g, &["e3", "e6"]);
    assert_no_duplicate_turns(g.position());
    for (from, to) in [("a2", "a4"), ("a7", "a5")] {
        let m = pawn_twice(g.position(), from, to);
        g.play(m).unwrap();
        assert_no_duplicate_turns(g.position());
    }
}

/// A6: one pawn may step twice only if the square it passes is not attacked
/// by an enemy piece (here a pawn on b4 and a knight on d5).
#[test]
fn a6_passed_square_must_not_be_attacked() {
    let p = pos("alapawn-balanced", "8/8/8/8/1p6/8/P7/8 w - - 0 1");
    assert_eq!(legal(&p), set(&["a2a3", "a2b3", "a2b3a4", "a2b3c4"]));
    let refused = p.parse_move("a2a3a4");
    assert!(
        matches!(&refused, Err(MoveError::Refused { why: kibitz_rules::Why::PassAttacked { pass, .. }, .. }) if pass.to_string() == "a3"),
        "{refused:?}"
    );
    let p = pos("alapawn-balanced", "8/7p/8/3n4/8/8/4P3/8 w - - 0 1");
    let steps = legal_from(&p, "e2");
    assert!(!steps.iter().any(|m| m.starts_with("e2e3") && m.len() > 4));
    assert!(steps.contains("e2e3"));
    assert!(steps.contains("e2f3f4"));
    let pair_ends: BTreeSet<&str> = steps.iter().filter(|m| m.len() == 6).map(|m| &m[4..]).collect();
    assert_eq!(
        pair_ends,
        BTreeSet::from(["c4", "d4", "e4", "f4", "g4"]),
        "every square two steps away is reached through d3 or f3: {steps:?}"
    );
}

/// A6: pair turns never capture.
#[test]
fn a6_pairs_never_capture() {
    let p = pos("alapawn-balanced", "8/7p/8/8/1n6/1n6/P7/8 w - - 0 1");
    assert_eq!(
        legal(&p),
        set(&["a2a3", "a2b3", "a2a3a4"]),
        "a2b3 captures, so no pair goes through b3; a3 to b4 would capture"
    );
}

/// A6: every listed path of one pawn twice can also be typed along any
/// other path through an unattacked square (`h2h3h4`).
#[test]
fn a6_any_safe_path_is_read() {
    let p = pos("alapawn-balanced", "8/7p/8/8/8/8/P6P/8 w - - 0 1");
    for (token, pawns) in
        [("h2h3h4", "8/7p/8/8/7P/8/P7/8"), ("a2b3a4", "8/7p/8/8/P7/8/7P/8"), ("h2h3g4", "8/7p/8/8/6P1/8/P7/8")]
    {
        let m = p.parse_move(token).unwrap_or_else(|e| panic!("{token}: {e}"));
        let mut n = p.clone();
        n.play_unchecked(m);
        assert_eq!(n.fen().split(' ').next(), Some(pawns), "{token}");
    }
    let mut g = Game::new(variant("alapawn-balanced"));
    play_all(&mut g, &["e3", "e6"]);
    let m = pawn_twice(g.position(), "d2", "d4");
    assert_eq!(g.position().parse_move("d2d3d4"), Ok(m));
    let black_flag = pos("alapawn-balanced", "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b 1 - 0 1");
    let m = pawn_twice(&black_flag, "e7", "e5");
    assert_eq!(black_flag.parse_move("e7e6e5"), Ok(m));
}

/// A6: White's first turn that moves a pawn must be a single step; the FEN's
/// castling field holds `1` until it is made. Black may pair at once.
#[test]
fn a6_white_first_pawn_turn_is_single() {
    let start = Position::new(variant("alapawn-balanced"));
    assert_eq!(start.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 1 - 0 1");
    assert!(!start.legal_moves().iter().any(|m| matches!(m, Move::PawnPair { .. })));
    assert_eq!(perft(&start, 1), 26);

    let mut g = Game::new(variant("alapawn-balanced"));
    g.play_text("Nf3").unwrap();
    assert_eq!(g.position().fen(), "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b 1 - 1 1");
    let played = g.play_text("a7a6a5").unwrap();
    assert_eq!(played.canonical, "a7a6a5");
    assert!(
        !g.position().legal_moves().iter().any(|m| matches!(m, Move::PawnPair { .. })),
        "White has still not moved a pawn"
    );
    assert!(matches!(g.play_text("e2e3e4"), Err(MoveError::Refused { why: Why::FirstTurnSingleStep, .. })));
    g.play_text("e3").unwrap();
    assert_eq!(g.position().fen(), "rnbqkbnr/1ppppppp/8/p7/8/4PN2/PPPP1PPP/RNBQKB1R b - - 0 2");
    g.play_text("h7h6").unwrap();
    let played = g.play_text("a2a3a4").unwrap();
    assert_eq!(played.canonical, "a2a3a4");

    let no_flag = pos("alapawn-balanced", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
    assert!(no_flag.parse_move("a2a3a4").is_ok());
    assert_ne!(no_flag.hash(), start.hash());
    let black_flag = pos("alapawn-balanced", "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b 1 - 0 1");
    pawn_twice(&black_flag, "e7", "e5");
}
