//! `kibitz review` and `kibitz bench review`: a game reviewed on the command
//! line, and the time a review of a 60-ply chess game takes.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use kibitz_render::{eval_graph_png, eval_graph_svg};
use kibitz_rules::review::{GameReview, PlyReview, ReviewOptions, review_game};
use kibitz_rules::{Color, Game, Variant, search};

/// What `kibitz review` was asked.
pub struct ReviewArgs<'a> {
    pub variant: &'a str,
    pub fen: Option<&'a str>,
    pub time_ms: u64,
    pub depth: Option<u32>,
    pub output: Option<&'a Path>,
    pub pgn: Option<&'a Path>,
    pub moves: &'a [String],
}

/// Reviews the moves and prints a summary per player and one line per
/// flagged move; writes the graph (and the annotated PGN) if asked.
pub fn run_review(args: &ReviewArgs) -> Result<(), String> {
    let start = crate::cli_position::position(args.variant, args.fen)?;
    let mut game = Game::from_position(start);
    for (i, text) in args.moves.iter().enumerate() {
        game.play_text(text).map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
    }
    let defaults = ReviewOptions::default();
    let options = ReviewOptions {
        time_per_position: Duration::from_millis(args.time_ms.clamp(1, 600_000)),
        max_depth: args.depth.unwrap_or(defaults.max_depth).clamp(1, 64),
        ..defaults
    };
    let review = review_game(game.start(), game.moves(), &options, &AtomicBool::new(false), &mut |_, _| {})
        .ok_or("the review was stopped")?;
    for c in Color::ALL {
        println!("{}", summary(&review, c));
    }
    for p in review.plies.iter().filter(|p| p.judgement.is_some()) {
        println!("{}", flagged_line(p));
    }
    let result = game.outcome().map_or_else(|| "* game in progress".to_string(), |o| o.to_string());
    let title = format!("{} \u{2022} {result}", game.start().variant().name);
    if let Some(out) = args.output {
        let bytes = if out.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg")) {
            eval_graph_svg(&review, &title).into_bytes()
        } else {
            eval_graph_png(&review, &title).map_err(|e| e.to_string())?
        };
        std::fs::write(out, bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        println!("graph written to {}", out.display());
    }
    if let Some(out) = args.pgn {
        let pgn = game.pgn_reviewed(&[("Event", "Kibitz review")], &[], &review);
        std::fs::write(out, pgn).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        println!("PGN written to {}", out.display());
    }
    Ok(())
}

/// `White: 1 inaccuracy, 0 mistakes, 2 blunders, accuracy 71.3%`
fn summary(review: &GameReview, c: Color) -> String {
    let s = review.side(c);
    let count = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{}: {}, {}, {}, accuracy {:.1}%",
        if c == Color::White { "White" } else { "Black" },
        count(s.inaccuracies, "inaccuracy", "inaccuracies"),
        count(s.mistakes, "mistake", "mistakes"),
        count(s.blunders, "blunder", "blunders"),
        s.accuracy
    )
}

/// `2... Qg5?? (Blunder, +0.17 -> +9.27) best Nc6: Nc6 d4 exd4`
fn flagged_line(p: &PlyReview) -> String {
    let name = p.judgement.map_or("", |j| j.name());
    let mut line = format!("{} ({name}, {} -> {})", p.label(), p.before.describe(), p.after.describe());
    if let Some(best) = &p.best_san {
        line.push_str(&format!(" best {best}: {}", p.best_line.join(" ")));
    }
    line
}

/// A 60-ply chess game played by the engine at a small fixed depth (the
/// same game on every machine), then reviewed at the default budget.
pub fn bench_review() -> Result<(), String> {
    let chess = Variant::by_id("chess").ok_or("no chess")?;
    let mut game = Game::new(chess);
    let mut engine = search::Engine::new(16);
    while game.moves().len() < 60 && game.outcome().is_none() {
        let limits = search::Limits::new(Duration::from_secs(60), 4);
        let Some(found) = engine.search(game.position(), limits) else { break };
        game.play(found.best).map_err(|e| e.to_string())?;
    }
    let options = ReviewOptions::default();
    let started = Instant::now();
    let review = review_game(game.start(), game.moves(), &options, &AtomicBool::new(false), &mut |_, _| {})
        .ok_or("the review was stopped")?;
    let elapsed = started.elapsed().as_secs_f64();
    let flagged = review.plies.iter().filter(|p| p.judgement.is_some()).count();
    println!(
        "review of a {}-ply chess game at {} ms a position: {elapsed:.1} s ({:.0} ms a position, {flagged} moves flagged)",
        review.plies.len(),
        options.time_per_position.as_millis(),
        elapsed * 1000.0 / (review.plies.len() + 1) as f64
    );
    Ok(())
}
