//! Game review: games with a known blunder (a hung queen or rook, a missed
//! or walked-into mate) in every variant. The searches are limited by depth
//! with time to spare, so the verdicts do not depend on the machine's speed.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use kibitz_rules::review::{GameReview, Judgement, ReviewOptions, Score, review_game};
use kibitz_rules::{Color, Game, Move, Position};

use common::{pos, variant};

fn options(depth: u32) -> ReviewOptions {
    ReviewOptions { time_per_position: Duration::from_secs(120), max_depth: depth, draw_odds: None }
}

/// CA14: in a round where a draw counts as one side's win, the move that
/// draws is that side's winning move and the other's blunder. The draw by
/// repetition (the knights back home a third time) judged both ways.
#[test]
fn a_draw_with_draw_odds_is_judged_as_the_holders_win_ca14() {
    let start = Position::new(variant("chess"));
    let ms = moves(&start, &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]);
    let judged = |odds: Option<Color>| {
        let o = ReviewOptions { draw_odds: odds, ..options(4) };
        review_game(&start, &ms, &o, &AtomicBool::new(false), &mut |_, _| {}).unwrap()
    };
    let last = |r: &GameReview| r.plies.last().cloned().unwrap();
    let black = judged(Some(Color::Black));
    assert_eq!(last(&black).after, Score::Won(Color::Black));
    assert_eq!(last(&black).judgement, None, "{:?}", last(&black));
    let white = judged(Some(Color::White));
    assert_eq!(last(&white).after, Score::Won(Color::White));
    assert_eq!(last(&white).judgement, Some(Judgement::Blunder), "{:?}", last(&white));
    // Without odds a draw is a draw.
    assert_eq!(last(&judged(None)).after, Score::Cp(0));
}

/// The moves of `texts` (SAN or canonical) played from `start`.
fn moves(start: &Position, texts: &[&str]) -> Vec<Move> {
    let mut game = Game::from_position(start.clone());
    texts.iter().map(|t| game.play_text(t).unwrap_or_else(|e| panic!("{t}: {e}")).mv).collect()
}

fn review(id: &str, fen: Option<&str>, texts: &[&str], depth: u32) -> GameReview {
    let start = match fen {
        Some(f) => pos(id, f),
        None => Position::new(variant(id)),
    };
    let ms = moves(&start, texts);
    let r = review_game(&start, &ms, &options(depth), &AtomicBool::new(false), &mut |_, _| {}).unwrap();
    check_summaries(&r);
    r
}

fn show(r: &GameReview) -> String {
    r.plies
        .iter()
        .map(|p| {
            format!(
                "{} {} -> {} loss {:.3} best {:?} line {}\n",
                p.label(),
                p.before.describe(),
                p.after.describe(),
                p.loss,
                p.best_san,
                p.best_line.join(" ")
            )
        })
        .collect()
}

/// The counts are those of the flagged plies; accuracies are percentages;
/// each ply's "after" is the next ply's "before".
fn check_summaries(r: &GameReview) {
    for c in Color::ALL {
        let s = r.side(c);
        let count = |j| r.plies.iter().filter(|p| p.mover == c && p.judgement == Some(j)).count() as u32;
        assert_eq!(s.inaccuracies, count(Judgement::Inaccuracy), "{}", show(r));
        assert_eq!(s.mistakes, count(Judgement::Mistake), "{}", show(r));
        assert_eq!(s.blunders, count(Judgement::Blunder), "{}", show(r));
        assert!((0.0..=100.0).contains(&s.accuracy), "{}", s.accuracy);
    }
    for (i, p) in r.plies.iter().enumerate() {
        assert_eq!(p.ply, i);
        assert!(p.loss >= 0.0);
        assert_eq!(p.best_line.first(), p.best_san.as_ref(), "the line starts with the best move");
        if let Some(next) = r.plies.get(i + 1) {
            assert_eq!(p.after, next.before, "one score per position");
            assert_ne!(p.mover, next.mover);
        }
    }
}

/// Ply `ply` is a blunder with a better move named; no other move of the
/// game is.
fn assert_only_blunder(r: &GameReview, ply: usize) {
    let p = &r.plies[ply];
    assert_eq!(p.judgement, Some(Judgement::Blunder), "{}", show(r));
    assert!(p.loss >= 0.3, "{}", show(r));
    let best = p.best_san.as_deref().expect("a better move");
    assert_ne!(best, p.san, "{}", show(r));
    for q in r.plies.iter().filter(|q| q.ply != ply) {
        assert_ne!(q.judgement, Some(Judgement::Blunder), "{}", show(r));
    }
    let blunderer = p.mover;
    assert!(r.side(blunderer).accuracy < r.side(!blunderer).accuracy, "{}", show(r));
    assert_eq!(r.worst_of(blunderer, 1)[0].ply, ply);
}

#[test]
fn chess_hung_queen() {
    let r = review("chess", None, &["e4", "e5", "Nf3", "Qg5", "Nxg5"], 6);
    assert_only_blunder(&r, 3);
    assert_eq!(r.plies[3].label(), "2... Qg5??");
    assert!(r.plies[3].after.win_chances() > 0.8, "White is winning: {}", show(&r));
    assert_eq!(r.black.blunders, 1);
    assert_eq!(r.white.blunders, 0);
}

#[test]
fn chess_mate_walked_into_and_missed() {
    let r = review("chess", None, &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qf3"], 6);
    // 3...Nf6?? allows 4.Qxf7#, which White does not play.
    let nf6 = &r.plies[5];
    assert_eq!(nf6.judgement, Some(Judgement::Blunder), "{}", show(&r));
    assert_eq!(nf6.after, Score::Mate(1), "White mates in one: {}", show(&r));
    let qf3 = &r.plies[6];
    assert_eq!(qf3.judgement, Some(Judgement::Blunder), "{}", show(&r));
    assert_eq!(qf3.best_san.as_deref(), Some("Qxf7#"));
    assert_eq!(qf3.best_line, ["Qxf7#"]);
    for p in &r.plies[..5] {
        assert_ne!(p.judgement, Some(Judgement::Blunder), "{}", show(&r));
    }
    // The worst first: the two blunders, the bigger loss first (the search
    // may also find 3.Qh5 a little worse than 3.Nf3, an inaccuracy).
    let worst: Vec<usize> = r.worst(3).iter().map(|p| p.ply).collect();
    assert_eq!(worst[..2], [6, 5], "{}", show(&r));
    assert!(r.plies[6].loss >= r.plies[5].loss);
    assert_eq!(r.worst_of(Color::White, 3)[0].ply, 6);
    assert_eq!(r.worst_of(Color::Black, 3)[0].ply, 5);
}

#[test]
fn mate_scores_are_from_whites_side() {
    let r = review("chess", None, &["f3", "e5", "g4", "Qh4#"], 6);
    assert_only_blunder(&r, 2);
    assert_eq!(r.plies[2].after, Score::Mate(-1), "Black mates in one: {}", show(&r));
    assert_eq!(r.plies[3].after, Score::Won(Color::Black));
    assert_eq!(r.plies[3].judgement, None);
    assert_eq!(Score::Mate(-1).win_chances(), -1.0);
}

#[test]
fn olympic_hung_rook() {
    // 3.Re5+?? lets the King take the Rook, which Black then drops (O-rules).
    let r = review("olympic", Some("1r1k1/5/5/5/K3R[] w - - 0 1"), &["Ka2", "Kc4", "Re4+", "Kd5", "Re5+", "Kxe5"], 6);
    assert_only_blunder(&r, 4);
    assert!(r.plies[4].after.win_chances() < -0.8, "{}", show(&r));
}

#[test]
fn alapawn_hung_queen() {
    let r = review("alapawn", None, &["e3", "d6", "Qg4", "Bxg4", "e4"], 5);
    assert_only_blunder(&r, 2);
}

#[test]
fn alapawn_missed_race() {
    // A3: b8 wins at once; after Ke2?? Black's g1 wins instead.
    let r = review("alapawn", Some("4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1"), &["Ke2", "g1"], 5);
    assert_only_blunder(&r, 0);
    assert_eq!(r.plies[0].before, Score::Mate(1));
    assert_eq!(r.plies[0].after, Score::Mate(-1));
    assert_eq!(r.plies[0].best_san.as_deref(), Some("b8#"));
    assert_eq!(r.plies[1].after, Score::Won(Color::Black));
}

#[test]
fn alapawn_balanced_missed_pair() {
    // A6: two steps of the b-pawn in one turn reach the last rank; A3 wins.
    let r = review("alapawn-balanced", Some("4k3/8/1P6/8/8/8/6p1/4K3 w - - 0 1"), &["Ke2", "g1"], 5);
    assert_only_blunder(&r, 0);
    assert_eq!(r.plies[0].before, Score::Mate(1));
    let best = r.plies[0].best_san.clone().unwrap();
    let start = pos("alapawn-balanced", "4k3/8/1P6/8/8/8/6p1/4K3 w - - 0 1");
    let mut game = Game::from_position(start);
    let played = game.play_text(&best).unwrap();
    assert_eq!(played.outcome.and_then(|o| o.winner), Some(Color::White), "{best} wins");
}

#[test]
fn absorption_hung_queen() {
    // PA3: the Knight that takes the Queen absorbs its powers too.
    let r = review("absorption", None, &["e4", "e5", "Nf3", "Qg5", "Nxg5", "Nc6"], 5);
    assert_only_blunder(&r, 3);
}

#[test]
fn construction_hung_compound() {
    let r = review(
        "construction",
        Some("r3k3/3ppppp/8/8/8/8/5PPP/3(QN)K3[] w - - 0 1"),
        &["h2h3", "h7h6", "d1a4", "a8a4", "e1d2"],
        5,
    );
    assert_only_blunder(&r, 2);
    assert!(r.plies[2].after.win_chances() < -0.5, "{}", show(&r));
}

#[test]
fn clash_hung_queen() {
    let r = review("clash", Some("r3k3/5ppp/8/8/8/8/5PPP/3QK3 w - - 0 1"), &["h3", "h6", "Qa4+", "Rxa4", "Kd2"], 5);
    assert_only_blunder(&r, 2);
}

#[test]
fn clash_round_from_its_start() {
    // A round is reviewed from the position its armies were set up in.
    let fen = "rtbqkbtr/pppppppp/8/8/8/8/OOOOOOOO/MWNJSNEH w Dkq - 0 1";
    let r = review("clash", Some(fen), &["e2e4", "e7e5"], 3);
    assert_eq!(r.plies.len(), 2);
    assert_eq!(r.plies[0].mover, Color::White);
}

#[test]
fn stop_is_honoured_and_progress_reported() {
    let start = Position::new(variant("chess"));
    let ms = moves(&start, &["e4", "e5", "Nf3", "Nc6"]);
    let stop = AtomicBool::new(true);
    assert!(review_game(&start, &ms, &options(4), &stop, &mut |_, _| {}).is_none());

    let stop = AtomicBool::new(false);
    let mut seen = Vec::new();
    let r = review_game(&start, &ms, &options(3), &stop, &mut |done, total| {
        seen.push((done, total));
        if done == 2 {
            stop.store(true, Ordering::Relaxed);
        }
    });
    assert!(r.is_none());
    assert_eq!(seen, [(1, 5), (2, 5)]);

    let stop = AtomicBool::new(false);
    let mut seen = Vec::new();
    let r = review_game(&start, &ms, &options(3), &stop, &mut |done, total| seen.push((done, total)));
    assert_eq!(r.unwrap().plies.len(), 4);
    assert_eq!(seen, (1..=5).map(|d| (d, 5)).collect::<Vec<_>>());
}

#[test]
fn moves_after_the_end_are_not_reviewed() {
    let start = Position::new(variant("chess"));
    let mut ms = moves(&start, &["f3", "e5", "g4", "Qh4#"]);
    // Not legal after mate, nor anywhere in this game.
    ms.push(ms[0]);
    let r = review_game(&start, &ms, &options(3), &AtomicBool::new(false), &mut |_, _| {}).unwrap();
    assert_eq!(r.plies.len(), 4);
    let empty = review_game(&start, &[], &options(3), &AtomicBool::new(false), &mut |_, _| {}).unwrap();
    assert!(empty.plies.is_empty());
    assert_eq!(empty.white.accuracy, 100.0);
}

/// A stop in the middle of a long search ends the review promptly (this
/// test measures promptness: two minutes a position, stopped after 0.2 s).
#[test]
fn stop_ends_a_running_search() {
    let start = pos("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let ms = moves(&start, &["Qxh3", "Nxe4"]);
    let stop = AtomicBool::new(false);
    let options = ReviewOptions { time_per_position: Duration::from_secs(120), max_depth: 64, draw_odds: None };
    let began = std::time::Instant::now();
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(200));
            stop.store(true, Ordering::Relaxed);
        });
        review_game(&start, &ms, &options, &stop, &mut |_, _| {})
    });
    assert!(result.is_none());
    assert!(began.elapsed() < Duration::from_secs(20), "{:?}", began.elapsed());
}

/// O6: each position is reviewed knowing the game's positions before it.
/// The Golds step out and back twice; Black's last step brings the start
/// position back a third time, which loses for White, so it is no mistake,
/// and White's step before it, which allowed it, is one.
#[test]
fn olympic_repetition_counts_in_the_review() {
    let cycle = ["b1b2", "d5d4", "b2b1", "d4d5"];
    let texts: Vec<&str> = cycle.iter().chain(cycle.iter()).copied().collect();
    let r = review("olympic", None, &texts, 4);
    let last = r.plies.last().unwrap();
    assert_eq!(last.after, Score::Won(Color::Black), "{}", show(&r));
    assert!(last.judgement.is_none(), "{}", show(&r));
    assert_eq!(last.best_san.as_deref(), Some("Gd5"), "{}", show(&r));
    let allowing = &r.plies[6];
    assert!(allowing.judgement.is_some(), "{}", show(&r));
}
