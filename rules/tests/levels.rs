//! The bot's levels (issue #18): levels 3 to 7 never leave a piece where a
//! single capture wins it, the weakest levels vary their play, and level 8
//! plays the search's best move.

use std::time::Duration;

use kibitz_rules::search::{self, Engine, hangs_a_piece, level_move};
use kibitz_rules::{Game, Position, Variant};

fn pos(variant: &str, fen: &str) -> Position {
    Position::from_fen(Variant::by_id(variant).unwrap(), fen).unwrap()
}

#[test]
fn a_knight_put_where_a_pawn_takes_it_hangs() {
    // 1.e3 e5: ...Nd4?? exd4 (the blunder level 5 used to play).
    let p = pos("chess", "r1bqkbnr/pppp1ppp/2n5/4p3/8/4P3/PPPP1PPP/RNBQKBNR b KQkq - 0 3");
    let nd4 = p.legal_moves().into_iter().find(|m| p.canonical(m) == "c6d4").unwrap();
    assert!(hangs_a_piece(&p, &nd4));
    // A knight defended and attacked only by a knight is not hanging.
    let nf6 = p.legal_moves().into_iter().find(|m| p.canonical(m) == "g8f6").unwrap();
    assert!(!hangs_a_piece(&p, &nf6));
    // A pawn left to a capture is not a piece.
    let a5 = p.legal_moves().into_iter().find(|m| p.canonical(m) == "a7a5").unwrap();
    assert!(!hangs_a_piece(&p, &a5));
}

#[test]
fn an_even_trade_is_not_hanging() {
    // Bxf7+ Kxf7 gives a bishop for a pawn; Bxc6 dxc6 trades evenly.
    let p = pos("chess", "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 3");
    let bxc6 = p.legal_moves().into_iter().find(|m| p.canonical(m) == "b5c6").unwrap();
    assert!(!hangs_a_piece(&p, &bxc6));
    let p = pos("chess", "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 3");
    let bxf7 = p.legal_moves().into_iter().find(|m| p.canonical(m) == "c4f7").unwrap();
    assert!(hangs_a_piece(&p, &bxf7));
}

/// Positions from seeded random games of `variant`, after 6 to 30 plies.
fn positions(variant: &str, games: u64) -> Vec<Position> {
    let v = Variant::by_id(variant).unwrap();
    let mut out = Vec::new();
    for seed in 0..games {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut game = Game::new(v);
        let plies = rng.usize(6..30);
        for _ in 0..plies {
            let moves = game.legal_moves();
            if moves.is_empty() || game.outcome().is_some() {
                break;
            }
            game.play(moves[rng.usize(..moves.len())]).unwrap();
        }
        if game.outcome().is_none() && !game.legal_moves().is_empty() {
            out.push(game.position().clone());
        }
    }
    out
}

fn never_hangs(variant: &str, games: u64) {
    let mut engine = Engine::new(8);
    let mut checked = 0;
    for p in positions(variant, games) {
        let moves = p.legal_moves();
        if moves.iter().all(|m| hangs_a_piece(&p, m)) {
            continue;
        }
        for level in 3..=7 {
            for seed in 0..3 {
                let m = level_move(&mut engine, &p, level, Duration::from_secs(20), seed).unwrap();
                assert!(
                    !hangs_a_piece(&p, &m),
                    "level {level} (seed {seed}) hangs a piece with {} in {variant} {}",
                    p.canonical(&m),
                    p.fen()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} choices checked");
}

#[test]
fn levels_3_to_7_never_hang_a_piece_in_chess() {
    never_hangs("chess", 24);
}

#[test]
fn levels_3_to_7_never_hang_a_piece_in_olympic() {
    never_hangs("olympic", 24);
}

#[test]
fn levels_3_to_7_never_hang_a_piece_in_absorption() {
    never_hangs("absorption", 16);
}

#[test]
fn the_weakest_levels_vary_and_level_8_does_not() {
    let p = Position::new(Variant::by_id("chess").unwrap());
    let mut engine = Engine::new(8);
    let choices = |engine: &mut Engine, level| {
        let mut seen: Vec<String> = (0..24)
            .map(|seed| p.canonical(&level_move(engine, &p, level, Duration::from_secs(20), seed).unwrap()))
            .collect();
        seen.sort();
        seen.dedup();
        seen
    };
    assert!(choices(&mut engine, 1).len() >= 4, "level 1 always plays the same few moves");
    assert!(choices(&mut engine, 3).len() >= 2);
    // Level 8 plays the search's move whatever the seed: with time for a
    // fixed depth it settles on one move.
    let s = search::style(8);
    assert_eq!((s.slack, s.best_share, s.overlook), (0, 100, 0));
    let middle = Position::from_fen(
        Variant::by_id("chess").unwrap(),
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    )
    .unwrap();
    let mut fixed = Engine::new(8);
    let searched = fixed.search(&middle, search::Limits::new(Duration::from_secs(60), 6)).unwrap().best;
    for seed in 0..6 {
        let mut engine = Engine::new(8);
        let chosen =
            search::level_move_limited(&mut engine, &middle, 8, search::Limits::new(Duration::from_secs(60), 6), seed);
        assert_eq!(chosen, Some(searched), "seed {seed}");
    }
}

#[test]
fn ratings_rise_with_the_level() {
    let ratings: Vec<u32> = (1..=8).map(search::level_rating).collect();
    assert!(ratings.windows(2).all(|w| w[0] < w[1]), "{ratings:?}");
}
