//! The search against independent truth: mates whose distance an exhaustive
//! AND-OR search confirms, and legality over thousands of random positions.

use std::time::Duration;

use kibitz_rules::search::{Engine, Limits, best_move};
use kibitz_rules::{Game, Position, Variant};

/// Exhaustive: can the side to move force a win within `moves` of its moves?
/// (Checkmate, or Alapawn's race: anything `Position::outcome` calls a win.)
fn forced_win(pos: &Position, moves: u32) -> bool {
    let me = pos.turn();
    moves > 0
        && pos.legal_moves().iter().any(|m| {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            match next.outcome() {
                Some(o) => o.winner == Some(me),
                None => {
                    moves > 1
                        && next.legal_moves().iter().all(|r| {
                            let mut after = next.clone();
                            after.play_unchecked(*r);
                            match after.outcome() {
                                Some(o) => o.winner == Some(me),
                                None => forced_win(&after, moves - 1),
                            }
                        })
                }
            }
        })
}

/// The shortest forced win, by exhaustive search, up to `max` moves.
fn distance(pos: &Position, max: u32) -> Option<u32> {
    (1..=max).find(|&n| forced_win(pos, n))
}

fn check_mate(variant: &str, fen: &str, n: u32) {
    let pos = Position::from_fen(Variant::by_id(variant).unwrap(), fen).unwrap();
    assert_eq!(distance(&pos, n), Some(n), "{variant} {fen}: the exhaustive search disagrees with the table");
    let found = best_move(&pos, Duration::from_secs(1), 64).unwrap();
    assert_eq!(found.mate_in(), Some(n), "{variant} {fen}: {found:?}");
    // The move it found keeps the win on schedule.
    let mut next = pos.clone();
    next.play_unchecked(found.best);
    let done = next.outcome().is_some_and(|o| o.winner == Some(pos.turn()));
    assert!(done || n > 1, "{fen}");
}

#[test]
fn chess_mates_in_one() {
    // Scholar's mate, a back-rank mate, a smothered mate.
    check_mate("chess", "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3", 1);
    check_mate("chess", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1);
    check_mate("chess", "6rk/6pp/7N/8/8/8/8/6K1 w - - 0 1", 1);
}

#[test]
fn chess_mates_in_two() {
    // Morphy's problem: 1.Ra6! bxa6 2.b7#.
    check_mate("chess", "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", 2);
    // Queen and king against king: 1.Kg6+ Kg8 2.Qg7#.
    check_mate("chess", "7k/8/5K2/8/8/8/8/Q7 w - - 0 1", 2);
}

#[test]
fn chess_mates_in_three() {
    // Two rooks roll the king up the board.
    check_mate("chess", "3k4/8/8/8/8/8/R7/1R4K1 w - - 0 1", 3);
}

#[test]
fn olympic_mates() {
    // The end of the game in tests/transcripts/olympic-game.txt: Gb3#.
    check_mate("olympic", "1bsg1/2k1p/5/GKSR1/3BR[P] w - - 1 5", 1);
    // A rook from hand: R@a5# (O5).
    check_mate("olympic", "3k1/5/3K1/5/5[R] w - - 0 1", 1);
    // Drops and captures: R@b5+ Rc5 Rxc5+ Kd4 R@c4#.
    check_mate("olympic", "4k/5/1pr2/RSpK1/4G[R] w - - 0 1", 3);
}

#[test]
fn alapawn_wins() {
    check_mate("alapawn", "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1", 1);
    check_mate("alapawn", "4k3/7p/1P6/8/8/8/8/4K3 w - - 0 1", 2);
    check_mate("alapawn-balanced", "4k3/8/1P6/8/8/8/6p1/4K3 w - - 0 1", 1);
}

#[test]
fn never_an_illegal_move() {
    let mut seed = 99u64;
    let mut next = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let mut engine = Engine::new(4);
    let mut searched = 0;
    for v in kibitz_rules::VARIANTS {
        for _ in 0..12 {
            let mut game = Game::new(v);
            for _ in 0..60 {
                let moves = game.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // A6's pair turns make hundreds of moves a ply: one ply there.
                let depth = if v.pawn_pairs { 1 } else { 2 };
                if let Some(f) = engine.search(game.position(), Limits::new(Duration::from_secs(5), depth)) {
                    assert!(game.position().is_legal(&f.best), "{} {}", v.id, game.position().fen());
                    let mut p = game.position().clone();
                    for m in &f.pv {
                        assert!(p.is_legal(m), "pv of {}", game.position().fen());
                        p.play_unchecked(*m);
                    }
                    searched += 1;
                }
                let m = moves[next() % moves.len()];
                game.play(m).unwrap();
            }
        }
    }
    assert!(searched > 2000, "{searched}");
}

#[test]
fn absorption_mates() {
    // Compounds (PA2): a rook-knight and a queen-knight on the back rank.
    check_mate("absorption", "6k1/5ppp/8/8/8/8/8/(RN)5K1 w - - 0 1", 1);
    check_mate("absorption", "6k1/5ppp/8/8/8/8/5PPP/3(QN)2K1 w - - 0 1", 1);
}

#[test]
fn construction_mates() {
    check_mate("construction", "7k/8/6K1/8/8/8/8/R7[] w - - 0 1", 1);
    // A grant first (C2): R>a1 Kg8 Ra8#.
    check_mate("construction", "7k/8/6K1/8/8/8/8/S7[R] w - - 0 1", 2);
    // A drop, a grant, a mate: S@e1 Kf8 R>e1 Kg8 Re8#.
    check_mate("construction", "6k1/8/6K1/8/8/8/8/8[SR] w - - 0 1", 3);
}

#[test]
fn construction_split_mates() {
    // CS1: the capturing Rook half takes onto the back rank and mates; the
    // same half without a piece to take on a8 has no mate in one.
    check_mate("construction-split", "s6k/8/6K1/8/8/8/8/U7[] w - - 0 1", 1);
    // The moving half cannot give check (CS4): the capturing half comes
    // first, U>a1 Kg8 Ra8#.
    check_mate("construction-split", "7k/8/6K1/8/8/8/8/T7[U] w - - 0 1", 2);
}

#[test]
fn clash_mates() {
    // A Chancellor (rook + knight, CA3) on the back rank.
    check_mate("clash", "6k1/5ppp/8/8/8/8/8/C5K1 w - - 0 1", 1);
    // A War Machine's shot (CA4) removes the blocker: the rook mates at once.
    check_mate("clash", "R3n2k/6pp/4M3/8/8/8/8/6K1 w - - 0 1", 1);
}

/// O6: a repetition loses for White. Black, able to repeat the start
/// position a third time, does so and scores it as a win; told nothing of
/// the game's history, the same search sees no such thing.
#[test]
fn black_repeats_in_olympic_because_white_loses_o6() {
    let v = Variant::by_id("olympic").unwrap();
    let mut game = Game::new(v);
    for m in ["d1e2", "b5a4", "e2d1", "a4b5", "d1e2", "b5a4", "e2d1"] {
        game.play_text(m).unwrap();
    }
    let pos = game.position().clone();
    let mut engine = Engine::new(8);
    engine.set_history(&game.earlier_visits());
    let found = engine.search(&pos, Limits::new(Duration::from_secs(20), 4)).unwrap();
    assert_eq!(pos.canonical(&found.best), "a4b5", "{found:?}");
    assert!(found.mate_in().is_some(), "the repetition is a win for Black: {found:?}");
    // The game agrees: a4b5 ends it, White losing.
    game.play_text("a4b5").unwrap();
    assert_eq!(game.outcome().and_then(|o| o.winner), Some(kibitz_rules::Color::Black));

    let mut fresh = Engine::new(8);
    let found = fresh.search(&pos, Limits::new(Duration::from_secs(20), 4)).unwrap();
    assert!(found.mate_in().is_none(), "{found:?}");
}

/// CA14: where a draw counts as a win for one side (draw odds), the search
/// scores every draw it sees so. Black, able to repeat the start position a
/// third time, does so with the odds and scores it as a win; with the odds
/// White's, Black steers clear of it.
#[test]
fn draw_odds_make_a_draw_a_win_for_their_holder_ca14() {
    use kibitz_rules::Color;
    use kibitz_rules::search::DRAW_ODDS_SCORE;
    let v = Variant::by_id("chess").unwrap();
    let mut game = Game::new(v);
    for m in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"] {
        game.play_text(m).unwrap();
    }
    let pos = game.position().clone();
    let search = |odds: Option<Color>| {
        let mut engine = Engine::new(8);
        engine.set_draw_odds(odds);
        engine.set_history(&game.earlier_visits());
        engine.search(&pos, Limits::new(Duration::from_secs(20), 5)).unwrap()
    };
    let holder = search(Some(Color::Black));
    assert_eq!(pos.canonical(&holder.best), "f6g8", "{holder:?}");
    assert_eq!(holder.score, DRAW_ODDS_SCORE, "{holder:?}");
    assert!(holder.mate_in().is_none());
    let against = search(Some(Color::White));
    assert_ne!(pos.canonical(&against.best), "f6g8", "{against:?}");
    assert!(against.score.abs() < 500, "an even game without the repetition: {against:?}");
    // The game agrees that f6g8 draws (G4): the odds are the match's, not the game's.
    game.play_text("f6g8").unwrap();
    assert_eq!(game.outcome().map(|o| o.winner), Some(None));
}

/// O6 counts the third occurrence: a position the game went through once
/// before the search may come back a second time, and the game goes on.
/// Black, able to return to the start position for the second time, sees no
/// win in it (a search that scored every return as a third one would).
#[test]
fn a_second_occurrence_decides_nothing_o6() {
    let v = Variant::by_id("olympic").unwrap();
    let mut game = Game::new(v);
    for m in ["d1e2", "b5a4", "e2d1"] {
        game.play_text(m).unwrap();
    }
    let pos = game.position().clone();
    let mut engine = Engine::new(8);
    engine.set_history(&game.earlier_visits());
    let found = engine.search(&pos, Limits::new(Duration::from_secs(20), 4)).unwrap();
    assert!(found.mate_in().is_none(), "a second occurrence wins nothing: {found:?}");
    game.play_text("a4b5").unwrap();
    assert_eq!(game.outcome(), None, "the game agrees");
}

/// O6: a third occurrence after Black checked with every move since the
/// previous one wins for White. White, checked back and forth by a Rook,
/// returns to the position a third time and scores it as a win.
#[test]
fn white_repeats_against_a_perpetual_check_o6() {
    let v = Variant::by_id("olympic").unwrap();
    let start = Position::from_fen(v, "1r2k/5/5/5/K4[] b - - 0 1").unwrap();
    let mut game = Game::from_position(start);
    for m in ["b5a5", "a1b1", "a5b5", "b1a1", "b5a5", "a1b1", "a5b5"] {
        game.play_text(m).unwrap();
    }
    let pos = game.position().clone();
    assert!(pos.is_check());
    let mut engine = Engine::new(8);
    engine.set_history(&game.earlier_visits());
    let found = engine.search(&pos, Limits::new(Duration::from_secs(20), 4)).unwrap();
    assert_eq!(pos.canonical(&found.best), "b1a1", "{found:?}");
    assert!(found.mate_in().is_some(), "the repetition is a win for White: {found:?}");
    game.play_text("b1a1").unwrap();
    assert_eq!(game.outcome().and_then(|o| o.winner), Some(kibitz_rules::Color::White));
}

/// Each position visited counts once: a one-ply search of a position whose
/// moves lead to positions without a capture, a check or a promotion visits
/// the root and one position for each legal move, whose quiescence search
/// stands pat (the node where the depth runs out is not counted again).
/// The first move tried (the King's step to g7, the first generated) is the
/// best, the most central, so no other needs a second, wider search.
#[test]
fn every_position_visited_counts_once() {
    let pos = Position::from_fen(Variant::by_id("chess").unwrap(), "7K/8/8/3p4/3P4/8/8/k7 w - - 0 1").unwrap();
    assert_eq!(pos.legal_moves().len(), 3);
    let found = Engine::new(1).search(&pos, Limits::new(Duration::from_secs(60), 1)).unwrap();
    assert_eq!((found.depth, pos.canonical(&found.best).as_str()), (1, "h8g7"));
    assert_eq!(found.nodes, 1 + 3, "{found:?}");
}

/// A node limit and a depth limit end the search where they say.
#[test]
fn searches_keep_the_node_and_depth_limits() {
    let pos = Position::new(Variant::by_id("chess").unwrap());
    let mut engine = Engine::new(8);
    let limits = Limits { nodes: Some(20_000), ..Limits::new(Duration::from_secs(60), 64) };
    let found = engine.search(&pos, limits).unwrap();
    assert!(found.nodes <= 20_000 + 64, "{found:?}");
    let found = engine.search(&pos, Limits::new(Duration::from_secs(60), 5)).unwrap();
    assert_eq!(found.depth, 5);
    assert!(pos.is_legal(&found.best));
}
