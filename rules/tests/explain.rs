//! Refusals that explain (G2): a move that reads well but is not legal is
//! refused with the reason, in SAN and the player's words.

use kibitz_rules::{CastleWhy, Game, MoveError, Position, Variant, Why};

fn pos(id: &str, fen: &str) -> Position {
    Position::from_fen(Variant::by_id(id).unwrap(), fen).unwrap()
}

fn start(id: &str) -> Position {
    Position::new(Variant::by_id(id).unwrap())
}

/// The game after `moves` (SAN), played one by one.
fn after(id: &str, moves: &str) -> Position {
    let mut g = Game::new(Variant::by_id(id).unwrap());
    for m in moves.split_whitespace() {
        let m = m.replace('_', " ");
        g.play_text(&m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    g.position().clone()
}

fn said(p: &Position, text: &str) -> String {
    match p.parse_move(text) {
        Err(e) => e.to_string(),
        Ok(m) => panic!("{text} was read as {}", p.canonical(&m)),
    }
}

fn why(p: &Position, text: &str) -> Why {
    match p.parse_move(text) {
        Err(MoveError::Refused { why, .. }) => why,
        other => panic!("{text}: expected a reason, got {other:?}"),
    }
}

#[test]
fn own_piece_on_the_target() {
    let p = start("chess");
    assert_eq!(said(&p, "Ke2"), "Ke2 is not possible: your pawn stands on e2");
    assert_eq!(said(&p, "e1e2"), "e1e2 is not possible: your pawn stands on e2");
}

#[test]
fn unreachable_with_moves_of_the_same_piece() {
    let p = start("chess");
    assert_eq!(
        said(&p, "Nf4"),
        "Nf4 is not possible: no knight of yours can reach f4 (your knights can play Nf3, Nh3 or Nc3)"
    );
    assert_eq!(said(&p, "e5"), "e5 is not possible: no pawn of yours can reach e5 (your pawns can play e4, d4 or e3)");
    assert_eq!(said(&p, "e2e5"), "e2e5 is not possible: your pawn on e2 cannot reach e5 (it can play e4 or e3)");
    assert_eq!(said(&p, "Bb5"), "Bb5 is not possible: the pawn on e2 stands between your bishop on f1 and b5");
    assert_eq!(said(&p, "e7e5"), "e7e5 is not possible: the pawn on e7 is not yours");
    assert_eq!(said(&p, "e4e5"), "e4e5 is not possible: there is no piece on e4");
    assert_eq!(said(&p, "Nbd4"), "Nbd4 is not possible: your knight on b1 cannot reach d4 (it can play Nc3 or Na3)");
}

#[test]
fn a_piece_in_the_way() {
    let p = after("chess", "e4 e5 Nf3 Nc6");
    assert_eq!(said(&p, "Qh5#"), "Qh5# is not possible: the knight on f3 stands between your queen on d1 and h5");
}

#[test]
fn a_pawn_in_the_way() {
    let p = after("chess", "e4 e5");
    assert_eq!(
        said(&p, "e5"),
        "e5 is not possible: your pawn on e4 cannot move onto e5: the pawn on e5 stands there (pawns capture diagonally)"
    );
    let p = after("chess", "Nf3 e5");
    assert_eq!(said(&p, "f4"), "f4 is not possible: the knight on f3 stands between your pawn on f2 and f4");
}

#[test]
fn no_such_piece() {
    let p = pos("chess", "4k3/8/8/8/8/8/8/4K2R w - - 0 1");
    assert_eq!(said(&p, "Nf3"), "Nf3 is not possible: you have no knight");
    assert_eq!(said(&p, "Rah1"), "Rah1 is not possible: you have no rook on the a-file");
}

#[test]
fn castling_reasons() {
    // The king has moved (FIDE 3.8.2.1: a king that has moved may not castle).
    let p = after("chess", "e4 e5 Ke2 Ke7 Nf3 Nf6");
    assert_eq!(why(&p, "O-O"), Why::Castle(CastleWhy::KingMoved));
    assert_eq!(said(&p, "O-O"), "O-O is not possible: you cannot castle: your king has moved");
    // It went and came back: the rights are gone although it stands on e1,
    // as they would be had both rooks moved.
    let p = after("chess", "e4 e5 Ke2 Ke7 Ke1 Ke8 Nf3 Nf6 Bc4 Bc5");
    assert_eq!(why(&p, "O-O"), Why::Castle(CastleWhy::RightsLost));
    assert_eq!(
        said(&p, "O-O"),
        "O-O is not possible: you cannot castle: your king or both your rooks have moved earlier in the game"
    );
    // Pieces stand between.
    let p = start("chess");
    assert_eq!(said(&p, "O-O"), "O-O is not possible: you cannot castle: pieces stand between (f1, g1)");
    // The f1 square is attacked by the bishop on c4.
    let p = pos("chess", "4k3/8/8/8/2b5/8/8/4K2R w K - 0 1");
    assert_eq!(
        said(&p, "O-O"),
        "O-O is not possible: you cannot castle: the f1 square is attacked by the bishop on c4"
    );
    // In check.
    let p = pos("chess", "4k3/8/8/b7/8/8/8/4K2R w K - 0 1");
    assert_eq!(said(&p, "0-0"), "0-0 is not possible: you cannot castle: your king is in check");
    // The rook of that side has moved.
    let p = pos("chess", "4k3/8/8/8/8/8/8/R3K2R w K - 0 1");
    assert_eq!(why(&p, "O-O-O"), Why::Castle(CastleWhy::RookMoved));
    assert_eq!(said(&start("alapawn"), "O-O"), "O-O is not possible: there is no castling in Alapawn");
}

#[test]
fn promotion_needs_a_piece() {
    let p = pos("chess", "r3k2r/6P1/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(said(&p, "gxh8"), "gxh8: g7 to h8 needs a promotion piece: gxh8=Q, =R, =B or =N");
    assert_eq!(said(&p, "g8"), "g8: g7 to g8 needs a promotion piece: g8=Q, =R, =B or =N");
    assert_eq!(said(&p, "g7g8"), "g7g8: g7 to g8 needs a promotion piece: g8=Q, =R, =B or =N");
}

#[test]
fn king_left_in_check() {
    // The knight on d2 is pinned by the bishop on b4.
    let p = pos("chess", "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1");
    assert_eq!(
        said(&p, "Nf3"),
        "Nf3 is not possible: that would leave your king in check (pinned by the bishop on b4)"
    );
    // The king steps into an attack.
    let p = pos("chess", "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1");
    assert_eq!(said(&p, "Kd1"), "Kd1 is not possible: your king would be in check there from the rook on d2");
    // In check, a move that does not answer it.
    let p = pos("chess", "4k3/8/8/8/7q/8/3P4/4K1N1 w - - 0 1");
    assert_eq!(
        said(&p, "Nf3"),
        "Nf3 is not possible: your king is in check from the queen on h4 and that move does not answer it"
    );
}

#[test]
fn ambiguity_names_the_pieces() {
    let p = pos("chess", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
    assert_eq!(said(&p, "Nd2"), "Nd2: the knight on b1 or the knight on f1? Write Nbd2 or Nfd2");
}

#[test]
fn capture_mark_onto_an_empty_square() {
    // A2: Alapawn's pawn steps diagonally onto an empty square, but `dxe5` says it captures.
    let p = after("alapawn", "d3 a6 d4 a5");
    assert_eq!(
        said(&p, "dxe5"),
        "dxe5 is not possible: there is nothing to capture on e5 (a step there without capturing is written de5)"
    );
    assert_eq!(p.canonical(&p.parse_move("de5").unwrap()), "d4e5");
    // Nor in chess.
    let p = start("chess");
    assert!(matches!(why(&p, "Nxf3"), Why::NothingToCapture { .. }));
}

#[test]
fn alapawn_balanced_first_turn() {
    let p = start("alapawn-balanced");
    // A6: the pair spellings, and `a4` (one pawn twice, written as a
    // chess double step) are all refused for the same reason.
    for text in ["a3,b3", "a2a3a4", "a3,a4", "a4", "h4"] {
        assert_eq!(why(&p, text), Why::FirstTurnSingleStep, "{text}");
    }
    // Black's first turn has no such limit; a step onto a piece is another reason.
    let later = after("alapawn-balanced", "a3");
    assert_ne!(why(&later, "a5"), Why::FirstTurnSingleStep);
    assert_eq!(
        said(&p, "a3,b3"),
        "a3,b3 is not possible: White's first pawn turn must be a single one-square step of one pawn (A6)"
    );
}

#[test]
fn variants_without_check_never_speak_of_check() {
    let p = start("alapawn");
    for text in ["Ke2", "Nf4", "e5", "Qh5", "e2e5"] {
        let s = said(&p, text);
        assert!(!s.contains("check"), "{text}: {s}");
    }
}

/// O3: a Silver whose move starts or ends in the zone may promote or not:
/// the player is asked, `=G` promotes and `=S` stays.
#[test]
fn olympic_optional_promotion_asks() {
    let p = pos("olympic", "rb1gk/2S1p/5/5/4K[] w - - 0 1");
    assert_eq!(said(&p, "Sxb5"), "Sxb5: promote or not? Write Sxb5=G or Sxb5=S");
    assert_eq!(p.canonical(&p.parse_move("Sxb5=G").unwrap()), "c4b5+");
    assert_eq!(p.canonical(&p.parse_move("Sxb5=S").unwrap()), "c4b5");
    assert_eq!(p.canonical(&p.parse_move("c4b5").unwrap()), "c4b5");
    // Named by the promoted piece, as FEN writes it (O3: `+S`, `+P`).
    assert_eq!(p.canonical(&p.parse_move("Sxb5+S").unwrap()), "c4b5+");
    assert_eq!(p.canonical(&p.parse_move("Sxb5=+S").unwrap()), "c4b5+");
    // A drop of what is not in hand, onto a taken square.
    assert_eq!(said(&p, "P@c3"), "P@c3 is not possible: you have no pawn in hand");
    assert_eq!(said(&p, "drop c3"), "drop c3 is not possible: you have no piece in hand");
    // O3: a Silver becomes Gold or stays; nothing else.
    assert_eq!(
        said(&p, "Sxb5=Q"),
        "Sxb5=Q is not possible: a silver promotes only to Gold, or stays a silver (O3); write Sxb5=G or Sxb5=S"
    );
}

/// O3: a Pawn onto the last rank becomes Gold, and nothing else.
#[test]
fn o3_a_pawn_becomes_gold_only() {
    let p = pos("olympic", "rbsgk/P3p/5/1K3/1GSBR[] w - - 0 1");
    for text in ["axb5=P", "axb5=Q", "axb5=S"] {
        assert_eq!(
            said(&p, text),
            format!(
                "{text} is not possible: a pawn reaching the last rank becomes Gold and nothing else (O3); write axb5=G"
            )
        );
    }
    assert_eq!(p.canonical(&p.parse_move("axb5=G").unwrap()), "a4b5+");
}

/// Turns of kinds a game has not are told so, not guessed at: drops
/// outside Olympic and Construction, grants and swaps outside
/// Construction, shots outside Clash.
#[test]
fn turns_a_game_has_not() {
    let chess = start("chess");
    assert_eq!(
        said(&chess, "P@d3"),
        "P@d3 is not possible: there are no drops in Chess: a captured piece leaves the game"
    );
    assert_eq!(
        said(&chess, "drop d3"),
        "drop d3 is not possible: there are no drops in Chess: a captured piece leaves the game"
    );
    assert_eq!(said(&chess, "R>d2"), "R>d2 is not possible: there are no power grants in Chess");
    assert_eq!(said(&chess, "give rook d2"), "give rook d2 is not possible: there are no power grants in Chess");
    let absorption = start("absorption");
    assert_eq!(
        said(&absorption, "swap a1"),
        "swap a1 is not possible: there are no swaps in Power Absorption Chess; castling is written O-O or O-O-O"
    );
    assert_eq!(said(&start("alapawn"), "a1<>e1"), "a1<>e1 is not possible: there are no swaps in Alapawn");
    assert_eq!(said(&start("olympic"), "R^c3"), "R^c3 is not possible: there are no shots in Olympic Chess");
    assert_eq!(said(&start("olympic"), "shoot c3"), "shoot c3 is not possible: there are no shots in Olympic Chess");
}

#[test]
fn olympic_drops() {
    let p = pos("olympic", "rbsgk/4p/5/P4/KGSBR[Pp] w - - 0 1");
    assert_eq!(said(&p, "P@a2"), "P@a2 is not possible: a2 is taken: the pawn on a2 stands there");
    assert_eq!(said(&p, "P@b5"), "P@b5 is not possible: b5 is taken: the bishop on b5 stands there");
    assert_eq!(said(&p, "S@c3"), "S@c3 is not possible: you have no silver in hand");
    // A pawn's move its pawn cannot make, where a pawn in hand could drop.
    assert_eq!(
        said(&p, "e3"),
        "e3 is not possible: your pawn on a2 cannot reach e3 (it can play a3); P@e3 drops the pawn in hand there"
    );
}

/// PA3: a piece that holds the Knight power answers to `N`; with two such
/// pieces able to go there, the player is asked which.
#[test]
fn compound_answers_to_its_power_letters() {
    // The game: the knight took on e5 and holds the Pawn power too.
    let p = after("absorption", "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6 dxc6_keep Nxe5 Qd4");
    assert_eq!(p.canonical(&p.parse_move("Nf3").unwrap()), "e5f3");
    assert_eq!(p.canonical(&p.parse_move("(NP)f3").unwrap()), "e5f3");
    // The pawn power's own moves answer to `P`.
    assert_eq!(p.canonical(&p.parse_move("Pe6").unwrap()), "e5e6");
    let p = pos("absorption", "4k3/8/8/4(NP)3/8/8/8/4K1N1 w - - 0 1");
    assert_eq!(said(&p, "Nf3"), "Nf3: the knight on g1 or the knight-pawn on e5? Write Ngf3 or (NP)f3");
    assert_eq!(p.canonical(&p.parse_move("Ngf3").unwrap()), "g1f3");
    assert_eq!(p.canonical(&p.parse_move("Nef3").unwrap()), "e5f3");
    // A decline needs a capture (PA3).
    let p = after("absorption", "e4 a6 e5 a5 Nc3 h6");
    let plain = "only a capture absorbs, so only a capture can decline (PA3): this move takes nothing and is written";
    assert_eq!(said(&p, "Bb5-"), format!("Bb5- is not possible: {plain} Bb5"));
    assert_eq!(said(&p, "Qh5 keep"), format!("Qh5 keep is not possible: {plain} Qh5"));
    // The King is the King whatever it absorbed (PA2, PA3): `K` moves the
    // king-pawn, and `P` is no move of it (PA4: a King gets no pawn moves).
    let p = after("absorption", "e3 f5 Ke2 f4 Kf3 fxe3 Kxe3 e5");
    assert_eq!(p.canonical(&p.parse_move("Kd3").unwrap()), "e3d3");
    assert_eq!(p.canonical(&p.parse_move("Pd3").unwrap()), "d2d3");
    // A compound answers to a letter only for the moves that power makes:
    // the queen-pawn on a2 takes on a6 up the file, as a rook, so `Bxa6`
    // is the bishop's, and is written so.
    let p = after("absorption", "e4 d5 exd5 Qxd5 Nc3 Qa5 Bc4 Qxa2 Rxa2 a6");
    assert_eq!(p.canonical(&p.parse_move("Bxa6").unwrap()), "c4a6");
    assert_eq!(p.canonical(&p.parse_move("Rxa6").unwrap()), "a2a6");
    let bxa6 = p.parse_move("c4a6").unwrap();
    assert_eq!(p.san(&bxa6), "Bxa6");
    // A group nobody holds: the pieces holding those powers and more, in
    // whatever order or case the group was written (PA2).
    let p = pos("absorption", "4k3/8/8/8/8/2(BNP)5/8/4K3 w - - 0 1");
    let more = "you have no (BN); your piece with those powers and more can: (BNP)b5+";
    assert_eq!(said(&p, "(BN)b5"), format!("(BN)b5 is not possible: {more}"));
    assert_eq!(said(&p, "(nb)b5"), format!("(BN)b5 is not possible: {more}"));
    assert_eq!(said(&p, "(QN)b5"), "(QN)b5 is not possible: you have no (QN)");
    assert!(said(&p, "(XY)b5").starts_with("(XY)b5 is not possible: no piece in this game is written (XY)"));
    // A named compound (the Queen) does not answer to R or B.
    let p = pos("absorption", "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1");
    assert!(matches!(p.parse_move("Ra4"), Err(MoveError::Refused { .. })));
}

/// C2, C6: a grant in words names the castling power as players do
/// (`give castle d2`), and a name that is no power is answered with the
/// powers there are.
#[test]
fn grants_in_words_name_the_powers() {
    let p = after("construction", "S@d2 S@d7");
    assert_eq!(p.canonical(&p.parse_move("give castle d2").unwrap()), "C>d2");
    assert_eq!(p.canonical(&p.parse_move("Give Castles d2").unwrap()), "C>d2");
    // The words people put around the power.
    assert_eq!(p.canonical(&p.parse_move("give bishop to d2").unwrap()), "B>d2");
    assert_eq!(p.canonical(&p.parse_move("give the Knight power to d2").unwrap()), "N>d2");
    assert_eq!(
        said(&p, "give bishop to e4"),
        "give bishop e4 is not possible: powers are given to your own pieces, and e4 holds none of yours"
    );
    assert_eq!(
        said(&p, "give wings d2"),
        "give wings d2 is not possible: there is no wings power in this game (a reserve gives rook, bishop, knight, \
         pawn or castling powers)"
    );
    let p = after("construction-split", "S@d2 S@d7");
    assert_eq!(p.canonical(&p.parse_move("give castle d2").unwrap()), "C>d2");
    assert!(said(&p, "give wings d2").ends_with(
        "(a reserve gives the moving or capturing half of a rook, bishop, knight or pawn power, or a castling power)"
    ));
}

/// C2, C6, O5: moves said as players say them: a drop with its filler
/// words, a grant with the square first, a swap by its two squares.
#[test]
fn drops_grants_and_swaps_said_otherwise() {
    let p = start("construction");
    for text in ["drop static d2", "drop a static piece on d2", "Drop static piece D2"] {
        assert_eq!(p.canonical(&p.parse_move(text).unwrap()), "S@d2", "{text}");
    }
    assert_eq!(
        said(&p, "drop static d5"),
        "drop d5 is not possible: static pieces are dropped on your own first 2 ranks (C2)"
    );
    // C6: `<>` is a swap, whatever stands where it starts.
    assert_eq!(said(&p, "a1<>e1"), "a1<>e1 is not possible: there is no piece on a1 to swap with your King (C6)");
    let p = after("construction", "S@d2 S@d7");
    assert_eq!(p.canonical(&p.parse_move("give d2 rook").unwrap()), "R>d2");
    assert_eq!(p.canonical(&p.parse_move("give d2 the castling power").unwrap()), "C>d2");
    assert!(matches!(p.parse_move("give e1 rook"), Err(MoveError::GrantToKing(_))));
    let p = after("construction", "S@d2 S@d7 C>d2 C>d7");
    assert_eq!(p.canonical(&p.parse_move("d2<>e1").unwrap()), "d2e1");
    // O5: a drop with its filler words, in the game that drops pieces.
    let p = pos("olympic", "rsgsk/ppppp/5/PPPPP/RSGSK[R] w - - 0 1");
    assert_eq!(p.canonical(&p.parse_move("drop a rook on c3").unwrap()), "R@c3");
}

/// CS5: a promotion's reward is one half or a static piece, each choice
/// named; a whole power, by its letter or by its halves' group, is none.
#[test]
fn cs5_rewards_are_named() {
    let p = pos("construction-split", "2s1k3/1(FG)6/8/8/8/8/8/4K3[S14s14] w - - 0 1");
    let whole = said(&p, "bxc8=(TU)");
    assert!(
        whole.starts_with(
            "bxc8=(TU) is not possible: b7 to c8 cannot take a whole rook power as its reward (CS5); the choices: \
             bxc8=S (a static piece), =T (a rook moving half), =U (a rook capturing half)"
        ),
        "{whole}"
    );
    assert!(said(&p, "bxc8=R").contains("cannot take a whole rook power as its reward (CS5)"));
    assert!(
        said(&p, "bxc8").starts_with("bxc8: b7 to c8 needs a reward for the reserve (CS5): bxc8=S (a static piece)")
    );
    // A group of one half is that half, check mark and all.
    assert_eq!(p.canonical(&p.parse_move("bxc8=(G)+").unwrap()), "b7c8g");
}

/// C2-C4: drops outside the own first ranks and powers that cannot be given.
#[test]
fn construction_reasons() {
    let p = start("construction");
    assert_eq!(said(&p, "S@d4"), "S@d4 is not possible: static pieces are dropped on your own first 2 ranks (C2)");
    assert_eq!(
        said(&p, "N>e7"),
        "N>e7 is not possible: powers are given to your own pieces, and e7 holds none of yours"
    );
    let p = after("construction", "S@b1 S@e7");
    assert!(matches!(why(&p, "Q>b1"), Why::NoQueenPower { .. }), "{}", said(&p, "Q>b1"));
    let p = after("construction", "S@b1 S@e7 N>b1 S@d7");
    assert_eq!(said(&p, "N>b1"), "N>b1 is not possible: the knight on b1 already holds the Knight power (C3)");
    // The same reasons for a grant in words.
    assert_eq!(
        said(&p, "give knight b1"),
        "give knight b1 is not possible: the knight on b1 already holds the Knight power (C3)"
    );
    assert_eq!(
        said(&start("construction"), "give rook e2"),
        "give rook e2 is not possible: powers are given to your own pieces, and e2 holds none of yours"
    );
    assert!(said(&p, "grant Q b1").starts_with("grant Q b1 is not possible: there is no Queen power"));
    assert_eq!(
        said(&p, "give dragon b1"),
        "give dragon b1 is not possible: there is no dragon power in this game (a reserve gives rook, bishop, knight, \
         pawn or castling powers)"
    );
}

/// The generic reasons hold in Clash too (CA2's Rabbit, its King in check).
#[test]
fn clash_reasons() {
    let p = pos("clash", "4k3/8/3p4/8/3P4/3T4/8/K7 w - - 0 1");
    assert_eq!(said(&p, "Td4"), "Td4 is not possible: your pawn stands on d4");
    assert_eq!(said(&p, "Nf3"), "Nf3 is not possible: you have no knight");
    let p = pos("clash", "r3k3/8/8/8/8/3T4/8/K7 w - - 0 1");
    assert!(said(&p, "Td5").contains("your king is in check from the rook on a8"), "{}", said(&p, "Td5"));
}

/// C3: in Construction a piece given several powers answers to each letter.
#[test]
fn construction_compound_answers_to_its_power_letters() {
    let p = after("construction", "S@b1 S@e7 N>b1 S@d7 R>b1 S@c7");
    assert_eq!(p.canonical(&p.parse_move("Nc3").unwrap()), "b1c3");
    assert_eq!(p.canonical(&p.parse_move("Rb4").unwrap()), "b1b4");
    assert_eq!(p.san(&p.parse_move("Rb4").unwrap()), "(RN)b4");
}

#[test]
fn squares_beyond_the_board_are_named() {
    let chess = start("chess");
    assert_eq!(said(&chess, "Nf9"), "Nf9 is not possible: there is no f9 square (the board runs from a1 to h8)");
    for (text, square) in [("e9", "e9"), ("exd9", "d9"), ("Qi4", "i4"), ("e2e0", "e0"), ("Ra10", "a10"), ("g1z3", "z3")]
    {
        assert!(
            matches!(why(&chess, text), Why::OffBoard { square: s, .. } if s == square),
            "{text}: {}",
            said(&chess, text)
        );
    }
    // Olympic Chess's board is 5x5: e6 and f1 lie beyond it, though they
    // are squares of a chess board.
    let olympic = start("olympic");
    assert_eq!(said(&olympic, "e6"), "e6 is not possible: there is no e6 square (the board runs from a1 to e5)");
    assert!(matches!(why(&olympic, "Kf1"), Why::OffBoard { square, .. } if square == "f1"));
    // Squares on the board keep their own reasons, and legal moves play.
    assert!(matches!(why(&olympic, "e4"), Why::Unreachable { .. }));
    assert!(chess.parse_move("Nf3").is_ok() && olympic.parse_move("a3").is_ok());
}

/// C2, C6: a drop and a swap in words get the reasons their notation gets;
/// castling, which Construction has not, points to the swap.
#[test]
fn construction_words_and_swaps() {
    let p = start("construction");
    assert_eq!(
        said(&p, "drop d4"),
        "drop d4 is not possible: static pieces are dropped on your own first 2 ranks (C2)"
    );
    assert_eq!(said(&p, "swap a1"), "swap a1 is not possible: there is no piece on a1 to swap with your King (C6)");
    assert_eq!(
        said(&p, "swap e1"),
        "swap e1 is not possible: your King stands on e1: a swap names the piece that swaps with it (C6)"
    );
    assert!(matches!(why(&p, "O-O-O"), Why::Castle(CastleWhy::SwapInstead(_))), "{}", said(&p, "O-O-O"));
    let p = after("construction", "S@d2 S@d7");
    assert_eq!(
        said(&p, "swap d2"),
        "swap d2 is not possible: the static piece on d2 holds no Castling power, which a swap needs (C6)"
    );
    assert_eq!(said(&p, "swap d7"), "swap d7 is not possible: the static piece on d7 is not yours");
    // A holder attacked by the rook on d8, and a King in check.
    let p = pos("construction", "3rk3/8/8/8/8/8/3C4/4K3 w - - 0 1");
    assert_eq!(
        said(&p, "swap d2"),
        "swap d2 is not possible: your piece on d2 is attacked, and an attacked piece may not swap (C6)"
    );
    let p = pos("construction", "4k3/8/8/8/8/8/3C4/r3K3 w - - 0 1");
    assert_eq!(
        said(&p, "swap d2"),
        "swap d2 is not possible: your King is in check, and a swap is only made out of check (C6)"
    );
}

#[test]
fn clash_captures_the_target_forbids() {
    // CA6, CA9: a Rogue after its quiet move cannot be captured until its
    // side's next turn.
    let p = pos("clash", "4s3/4p2r/3V*4/8/8/8/8/4K3 b d1 - 5 3");
    assert!(matches!(why(&p, "exd6"), Why::Invulnerable { shielded: false, .. }), "{}", said(&p, "exd6"));
    assert_eq!(
        said(&p, "exd6"),
        "exd6 is not possible: the rogue on d6 moved without capturing and cannot be captured until its side's next \
         turn (CA6, CA9)"
    );
    // CA8, CA9: the Shielderer and its orthogonal neighbours under its shield.
    let p = pos("clash", "4s3/4p2r/8/8/8/4R3/8/4K3 w d2 - 0 1");
    assert!(matches!(why(&p, "Rxe7"), Why::Invulnerable { shielded: true, .. }), "{}", said(&p, "Rxe7"));
    // CA7: a Leader may not capture a Phoenix, though it stands next to it.
    let p = pos("clash", "4k3/8/8/8/P7/8/3f4/4K3 w - - 1 3");
    assert!(matches!(why(&p, "Kxd2"), Why::LeaderTakesPhoenix(_)), "{}", said(&p, "Kxd2"));
    assert_eq!(
        said(&p, "Kxd2"),
        "Kxd2 is not possible: a Leader may not capture a Phoenix (CA7), and the phoenix on d2 is one"
    );
}

#[test]
fn clash_shield_refused_with_its_reason() {
    use kibitz_rules::ShieldWhy;
    let reason = |fen: &str| match why(&pos("clash", fen), "D") {
        Why::Shield(w) => w,
        other => panic!("{fen}: {other:?}"),
    };
    // CA8: only a Shielderer has one, once a game.
    assert_eq!(reason("4s3/4p2r/8/3V4/8/8/8/4K3 w d2 - 4 3"), ShieldWhy::NoShielderer);
    assert_eq!(reason("4s2r/4p3/8/3V*4/8/8/8/4K3 b d2 - 3 2"), ShieldWhy::Up);
    assert_eq!(reason("4s3/4p2r/8/8/8/8/8/4K3 b - - 0 1"), ShieldWhy::Used);
    // It may still be raised: `D` is played.
    let p = pos("clash", "4s3/4p2r/8/8/8/8/8/4K3 b d - 0 1");
    assert!(p.parse_move("D").is_ok());
}

#[test]
fn a_move_number_before_the_move_is_read_past() {
    let p = start("chess");
    let e4 = p.parse_move("e4").unwrap();
    for text in ["1.e4", "1. e4", "1...e4"] {
        assert_eq!(p.parse_move(text), Ok(e4), "{text}");
    }
    // Only a number with its dots is a move number.
    assert!(p.parse_move("1 . e4").is_err());
    let p = after("chess", "e4");
    assert_eq!(p.parse_move("1... e5"), p.parse_move("e5"));
    // A refusal names the move without its number.
    assert_eq!(said(&p, "1... Ke7"), "Ke7 is not possible: your pawn stands on e7");
    // A number alone is no move.
    assert!(p.parse_move("12").is_err() && p.parse_move("1.").is_err());
}

#[test]
fn a_piece_with_the_pawn_power_answers_to_a_pawns_move() {
    // PA4: the knight on d5 took a pawn and moves as one too: `d6` is its
    // step, since no pawn of White's reaches d6.
    let p = after("absorption", "Nc3 d5 Nxd5 e6");
    let m = p.parse_move("d6").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.canonical(&m), "d5d6");
    assert!(p.san(&m).starts_with("(NP)d6"), "{}", p.san(&m));
    // A real pawn's move is still the pawn's.
    let e3 = p.parse_move("e3").unwrap();
    assert_eq!(p.canonical(&e3), "e2e3");
}

#[test]
fn a_promotion_to_no_choice_is_told_so() {
    let p = pos("chess", "7r/6P1/8/8/8/8/8/K6k w - - 0 1");
    assert_eq!(
        said(&p, "gxh8=K"),
        "gxh8=K is not possible: g7 to h8 cannot promote to a King here; the choices: gxh8=Q, =R, =B or =N"
    );
    assert_eq!(
        said(&p, "gxh8=P"),
        "gxh8=P is not possible: g7 to h8 cannot promote to a Pawn here; the choices: gxh8=Q, =R, =B or =N"
    );
    // Without a letter, the choices are asked for.
    assert_eq!(said(&p, "gxh8"), "gxh8: g7 to h8 needs a promotion piece: gxh8=Q, =R, =B or =N");
}

#[test]
fn captures_and_shots_at_nothing_and_moves_that_stay() {
    let p = start("chess");
    assert_eq!(said(&p, "bxc3"), "bxc3 is not possible: there is nothing to capture on c3");
    assert_eq!(
        said(&p, "e2e2"),
        "e2e2 is not possible: a move must leave its square, and this one starts and ends on e2"
    );
    // CA4: a War Machine shoots only at a piece.
    let p = pos("clash", "4k3/8/8/8/8/8/8/M3K3 w - - 0 1");
    assert_eq!(said(&p, "M^a5"), "M^a5 is not possible: there is nothing on a5 to shoot (CA4)");
    // CA4: it shoots only what it could capture: one or two squares straight, one diagonally.
    let p = pos("clash", "4k3/p7/8/8/8/8/8/M3K3 w - - 0 1");
    assert_eq!(
        said(&p, "M^a7"),
        "M^a7 is not possible: the war machine on a1 cannot shoot the pawn on a7: it shoots only a piece it could \
         capture, one or two squares straight or one diagonally away (CA4)"
    );
    let p = pos("clash", "4k3/p7/8/8/8/8/8/M3K2M w - - 0 1");
    assert_eq!(
        said(&p, "shoot a7"),
        "shoot a7 is not possible: none of your war machines (a1, h1) can shoot the pawn on a7: each shoots only a \
         piece it could capture, one or two squares straight or one diagonally away (CA4)"
    );
    let p = pos("clash", "4k3/p7/8/8/8/8/8/R3K3 w - - 0 1");
    assert_eq!(said(&p, "M^a7"), "M^a7 is not possible: you have no war machine to shoot with (CA4)");
    // A piece between: that is the reason; one's own piece is none to shoot.
    let p = pos("clash", "4k3/8/8/8/8/p7/P7/M3K3 w - - 0 1");
    assert_eq!(said(&p, "M^a3"), "M^a3 is not possible: the pawn on a2 stands between your war machine on a1 and a3");
    assert_eq!(
        said(&p, "M^a2"),
        "M^a2 is not possible: the pawn on a2 is yours: a war machine shoots only enemy pieces (CA4)"
    );
    // In range, the shot is legal.
    let p = pos("clash", "4k3/8/8/8/8/p7/8/M3K3 w - - 0 1");
    assert!(p.parse_move("M^a3").is_ok());
}

#[test]
fn a_piece_written_as_a_figurine_or_a_word_is_read_as_its_letter() {
    let p = start("chess");
    let nf3 = p.parse_move("Nf3").unwrap();
    for text in ["♘f3", "♞f3", "N f3", "knight f3", "Knight g1-f3", "N g1f3"] {
        assert_eq!(p.parse_move(text), Ok(nf3), "{text}");
    }
    // SAN writes no pawn letter: the pawn's name goes.
    assert_eq!(p.parse_move("pawn e4"), p.parse_move("e4"));
    assert_eq!(p.parse_move("♙e4"), p.parse_move("e4"));
    // The refusal names the move as the notation writes it.
    assert_eq!(said(&p, "bishop c4"), "Bc4 is not possible: the pawn on e2 stands between your bishop on f1 and c4");
    assert_eq!(said(&p, "♕h5"), "Qh5 is not possible: the pawn on e2 stands between your queen on d1 and h5");
    // A word that names no piece of the game stays what it was.
    assert!(p.parse_move("silver c3").is_err());
    // O5: a drop in words, in Olympic Chess.
    let p = after("olympic", "Rxe4 Gxe4");
    let drop = p.legal_moves().into_iter().find(|m| matches!(m, kibitz_rules::Move::Drop { .. })).unwrap();
    let (letter, square) = p.canonical(&drop).split_once('@').map(|(l, s)| (l.to_string(), s.to_string())).unwrap();
    let name = p.variant().pieces.iter().find(|t| t.letter.to_string() == letter).unwrap().name;
    assert_eq!(p.parse_move(&format!("drop {name} {square}")), Ok(drop));
    assert_eq!(p.parse_move(&format!("drop {letter} {square}")), Ok(drop));
    assert_eq!(said(&p, "drop rook c3"), "R@c3 is not possible: you have no rook in hand");
    // As shogi writes a drop, and in lower case.
    assert_eq!(p.parse_move(&format!("{letter}*{square}")), Ok(drop));
    assert_eq!(p.parse_move(&format!("{}@{square}", letter.to_lowercase())), Ok(drop));
}

#[test]
fn a_move_from_square_to_square_in_words_is_read() {
    let p = start("chess");
    let e4 = p.parse_move("e2e4").unwrap();
    for text in ["e2 e4", "E2 E4", "e2 to e4"] {
        assert_eq!(p.parse_move(text), Ok(e4), "{text}");
    }
    assert_eq!(said(&p, "e2 e5"), "e2e5 is not possible: your pawn on e2 cannot reach e5 (it can play e4 or e3)");
    // A6: in Balanced Alapawn two squares are a pair's two targets.
    let p = after("alapawn-balanced", "a3");
    assert!(p.parse_move("a6,h6").is_ok());
    assert_eq!(p.parse_move("a6 h6"), p.parse_move("a6,h6"));
    // Long algebraic with every square: one pawn twice, two pawns once each.
    let p = after("alapawn-balanced", "e3");
    assert_eq!(p.canonical(&p.parse_move("c7-c6-b5").unwrap()), "c7c6b5");
    assert_eq!(p.canonical(&p.parse_move("a7-a6-b7-b6").unwrap()), "a7a6b7b6");
}

#[test]
fn a_promotion_in_brackets_is_read() {
    let p = Position::from_fen(Variant::by_id("chess").unwrap(), "3r3k/2P5/8/8/8/8/8/K7 w - - 0 1").unwrap();
    let queen = p.parse_move("cxd8=Q").unwrap();
    assert_eq!(p.parse_move("cxd8(Q)"), Ok(queen));
    assert_eq!(p.parse_move("c8(N)"), p.parse_move("c8=N"));
}

#[test]
fn the_en_passant_mark_after_a_capture_is_read_past() {
    let p = after("chess", "e4 a6 e5 d5");
    let ep = p.parse_move("exd6").unwrap();
    assert_eq!(p.canonical(&ep), "e5d6");
    for text in ["exd6 e.p.", "exd6e.p.", "exd6 ep", "exd6 E.P.", "e5xd6 e.p."] {
        assert_eq!(p.parse_move(text), Ok(ep), "{text}");
    }
}

#[test]
fn o5_a_letter_with_such_a_piece_on_the_board_is_its_move_not_a_drop() {
    // Black holds a rook in hand and has one on the board: `Rc3` is the
    // board rook's move (refused, with the drop named), `R@c3` the drop, and
    // a capture is never read as a drop.
    let p = after("olympic", "Rxe4 Gxe4 P@b3");
    assert!(p.parse_move("R@c3").is_ok());
    let rook = p.piece_at(kibitz_rules::Square::parse("a5").unwrap()).unwrap();
    assert_eq!(p.piece_name(rook), "rook");
    assert_eq!(
        said(&p, "Rc3"),
        "Rc3 is not possible: your rook on a5 cannot reach c3 (it can play Ra3, Ra4 or Rxa2+); R@c3 drops the rook in \
         hand there"
    );
    assert!(
        said(&p, "Rxb3").starts_with("Rxb3 is not possible: your rook on a5 cannot reach b3"),
        "{}",
        said(&p, "Rxb3")
    );
    // Without such a piece on the board, the letter and square are the
    // drop: White holds a Gold in hand and has none on the board; with one
    // on b1 the same words are that Gold's move.
    let p = Position::from_fen(Variant::by_id("olympic").unwrap(), "rbsgk/4p/5/P4/K1SBR[G] w - - 0 1").unwrap();
    let drop = p.parse_move("G@c3").unwrap();
    assert_eq!(p.parse_move("Gc3"), Ok(drop));
    let p = Position::from_fen(Variant::by_id("olympic").unwrap(), "rbsgk/4p/5/P4/KGSBR[G] w - - 0 1").unwrap();
    assert!(said(&p, "Gc3").starts_with("Gc3 is not possible: your gold on b1 cannot reach c3"), "{}", said(&p, "Gc3"));
}

#[test]
fn a3_a_promotion_piece_in_alapawn_is_told_that_reaching_the_last_rank_wins() {
    let p =
        Position::from_fen(Variant::by_id("alapawn").unwrap(), "rnbqkbnr/ppppppP1/8/8/8/8/PPPPPP1P/RNBQKBNR w - - 0 1")
            .unwrap();
    assert!(p.parse_move("gxh8").is_ok());
    for text in ["gxh8=Q", "gxh8Q", "gxf8=N", "g7h8q"] {
        let said = said(&p, text);
        assert!(
            said.contains("pawns do not promote in Alapawn: a pawn reaching the last rank wins (A3); write g"),
            "{said}"
        );
    }
}

#[test]
fn c2_c3_a_power_written_as_a_drop_and_a_queen_asked_for_as_one_power() {
    let p = start("construction");
    assert_eq!(
        said(&p, "R@e2"),
        "R@e2 is not possible: only static pieces are dropped (S@e2, C2); a power is given to a piece of yours on the \
         board: R>SQUARE"
    );
    let queen = "there is no Queen power: a piece holding the Rook and the Bishop power moves as a Queen (C3); give \
                 them one turn at a time (R>d2, then B>d2)";
    let p = after("construction", "S@d2 S@d7");
    for text in ["give queen d2", "give Q d2", "Q>d2"] {
        assert_eq!(said(&p, text), format!("{text} is not possible: {queen}"), "{text}");
    }
    // CS1, CS2: halves, in split Construction.
    let p = after("construction-split", "S@d2 S@d7");
    assert!(said(&p, "give queen d2").contains("all four Rook and Bishop halves moves as a Queen (CS2)"));
    assert!(said(&p, "R@e2").ends_with("a half at a time (CS2): give rook moving half SQUARE"), "{}", said(&p, "R@e2"));
}

#[test]
fn a6_one_pawn_twice_through_an_attacked_square_is_told_so() {
    // After 1. d3 the c1 bishop sees h6: Black's h-pawn may not pass it.
    let p = after("alapawn-balanced", "d3");
    for text in ["h6,h5", "h7h6h5", "h6 h5"] {
        assert_eq!(
            said(&p, text),
            format!(
                "{} is not possible: a pawn moving twice may not pass an attacked square, and h6 is attacked by the \
                 bishop on c1 (A6)",
                text
            ),
            "{text}"
        );
    }
    // Through a square nobody attacks it goes.
    assert!(p.parse_move("a6,a5").is_ok());
    // A2: a step may be diagonal, before or after the square passed.
    let p = pos("alapawn-balanced", "4k3/p7/8/8/1N6/8/P7/4K3 b - - 0 5");
    for text in ["a6,ab5", "a6,b5", "a7a6b5", "a6 ab5"] {
        assert!(
            said(&p, text).ends_with(
                "a pawn moving twice may not pass an attacked square, and a6 is attacked by the knight on b4 (A6)"
            ),
            "{text}: {}",
            said(&p, text)
        );
    }
    assert!(p.parse_move("ab6,b5").is_ok());
    // The first pawn turn, not the first turn, is the single step's.
    let p = after("alapawn-balanced", "Nf3 Nf6");
    assert_eq!(
        said(&p, "a3,b3"),
        "a3,b3 is not possible: White's first pawn turn must be a single one-square step of one pawn (A6)"
    );
}

#[test]
fn pa5_c4_a_pawn_style_move_onto_the_last_rank_is_the_promoting_one() {
    // PA5: the bishop-pawn on g7 takes on h8 as a pawn (promoting) or as a
    // bishop (not): `gxh8` asks for the piece; `Bxh8` is the bishop's.
    let p = after("absorption", "b3 a6 Bb2 a5 Bxg7 a4");
    assert!(said(&p, "gxh8").starts_with("gxh8: g7 to h8 needs a promotion piece: (BP)xh8=Q"), "{}", said(&p, "gxh8"));
    let queen = p.parse_move("gxh8=Q").unwrap();
    assert!(matches!(queen, kibitz_rules::Move::Normal { promote: kibitz_rules::Promote::To(_), .. }));
    let bishop = p.parse_move("Bxh8").unwrap();
    assert!(matches!(bishop, kibitz_rules::Move::Normal { promote: kibitz_rules::Promote::No, .. }));
    // C4, C5: the rook-pawn on a7: `a8` promotes, `Ra8` is the rook's step.
    let p = after("construction", "drop_a2 drop_h7 give_rook_a2 give_rook_h7 give_pawn_a2 Rh6 Ra7 Rh5");
    assert!(
        said(&p, "a8").starts_with("a8: a7 to a8 needs a reward for the reserve (C5): (RP)a8=S (a static piece)"),
        "{}",
        said(&p, "a8")
    );
    assert!(said(&p, "a8=Q").contains("cannot take a queen power as its reward (C5)"), "{}", said(&p, "a8=Q"));
    assert_eq!(p.canonical(&p.parse_move("a8=R").unwrap()), "a7a8r");
    assert_eq!(p.canonical(&p.parse_move("Ra8").unwrap()), "a7a8");
    // CS3: a piece holding only the Pawn moving half steps as a pawn.
    let p = after("construction-split", "drop_a1 drop_h8 give_F_a1 drop_g8");
    assert_eq!(p.canonical(&p.parse_move("a3").unwrap()), "a1a3");
}

#[test]
fn cs1_a_whole_powers_letter_where_a_half_makes_the_move_names_the_half() {
    let p = after("construction-split", "drop_d2 drop_d7 give_T_d2 give_U_d7 Td5");
    assert_eq!(
        said(&p, "Rxd5"),
        "Rxd5 is not possible: no piece of yours holds the whole Rook power; a half of it makes this move, written \
         Uxd5 (CS1)"
    );
    assert!(p.parse_move("Uxd5").is_ok());
}

#[test]
fn cs2_halves_in_words_in_any_order_and_a_whole_power_asked_for() {
    let p = after("construction-split", "drop_d2 drop_d7");
    let moving = p.parse_move("give bishop moving half d2").unwrap();
    for text in ["give moving bishop d2", "give bishop moving d2", "give moving half bishop d2", "D>d2"] {
        assert_eq!(p.parse_move(text), Ok(moving), "{text}");
    }
    assert_eq!(p.parse_move("give capturing knight d2"), p.parse_move("give knight capturing half d2"));
    let halves = "here the Bishop power comes in halves, given one at a time (CS2): D>d2 gives the moving half, E>d2 \
                  the capturing half";
    for text in ["give bishop d2", "B>d2"] {
        assert_eq!(said(&p, text), format!("{text} is not possible: {halves}"));
    }
}

#[test]
fn c6_a_swap_written_as_a_token_or_as_its_san_gets_the_swaps_reason() {
    // The Castling piece on d1 is attacked by the rook on d7.
    let p = after("construction", "drop_d1 drop_d7 give_castling_d1 give_rook_d7");
    let reason = "your piece on d1 is attacked, and an attacked piece may not swap (C6)";
    for text in ["swap d1", "d1e1", "Cd1<>e1"] {
        assert_eq!(said(&p, text), format!("{text} is not possible: {reason}"), "{text}");
    }
}

/// A piece with no legal move says why: pinned, or not answering a check;
/// hemmed in by its own pieces, it has no reason to give.
#[test]
fn a_stuck_piece_says_why() {
    let sq = |s: &str| kibitz_rules::Square::parse(s).unwrap();
    let checked = after("chess", "e4 d5 Bb5+");
    match checked.why_stuck(sq("g8")) {
        Some(Why::KingInCheck { in_check: true, pinned: false, by: Some(by), .. }) => {
            assert_eq!(by.to_string(), "the bishop on b5")
        }
        other => panic!("{other:?}"),
    }
    assert!(checked.why_stuck(sq("a8")).is_none(), "hemmed in");
    assert!(checked.why_stuck(sq("c7")).is_none(), "c6 answers the check");
    let pinned = after("chess", "e4 d5 Bb5+ Nd7 d3");
    match pinned.why_stuck(sq("d7")) {
        Some(Why::KingInCheck { pinned: true, by: Some(by), .. }) => assert_eq!(by.to_string(), "the bishop on b5"),
        other => panic!("{other:?}"),
    }
    // Olympic (O2): the King must not be left in check there either.
    let olympic = pos("olympic", "k4/b4/5/5/R3K[] b - - 0 1");
    assert!(matches!(olympic.why_stuck(sq("a4")), Some(Why::KingInCheck { pinned: true, .. })));
}
