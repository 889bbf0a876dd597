//! The position tools: `kibitz perft`, `moves`, `play`, `render` and
//! `analyse`, and how they read a variant, a FEN and a handicap.

use std::path::Path;
use std::time::Duration;

use kibitz_render::{BoardOptions, Renderer};
use kibitz_rules::{Color, Game, Handicaps, Position, Square, Variant, divide, perft, search};

pub(crate) fn variant(id: &str) -> Result<&'static Variant, String> {
    Variant::by_id(id).ok_or_else(|| {
        let known: Vec<&str> = kibitz_rules::VARIANTS.iter().map(|v| v.id).collect();
        format!("unknown variant '{id}' (known: {})", known.join(", "))
    })
}

pub(crate) fn position(id: &str, fen: Option<&str>) -> Result<Position, String> {
    let v = variant(id)?;
    match fen {
        None => Ok(Position::new(v)),
        Some(f) => Position::from_fen(v, f).map_err(|e| e.to_string()),
    }
}

/// The position with `--handicap` (PA7) added to any the FEN gives.
pub(crate) fn handicapped(id: &str, fen: Option<&str>, handicap: Option<&str>) -> Result<Position, String> {
    let pos = position(id, fen)?;
    let Some(text) = handicap else { return Ok(pos) };
    let mut h = Handicaps::parse(text).map_err(|e| format!("--handicap: {e}"))?;
    for c in [Color::White, Color::Black] {
        h.add(c, pos.handicaps().of(c));
    }
    pos.with_handicaps(h).map_err(|e| format!("--handicap: {e}"))
}

pub(crate) fn run_perft(
    id: &str,
    fen: Option<&str>,
    handicap: Option<&str>,
    per_move: bool,
    depth: u32,
) -> Result<(), String> {
    let pos = handicapped(id, fen, handicap)?;
    if per_move {
        let mut rows: Vec<(String, u64)> =
            divide(&pos, depth).into_iter().map(|(m, n)| (pos.canonical(&m), n)).collect();
        rows.sort();
        for (m, n) in &rows {
            println!("{m}: {n}");
        }
        println!();
        println!("{}", rows.iter().map(|r| r.1).sum::<u64>() + u64::from(depth == 0));
    } else {
        println!("{}", perft(&pos, depth));
    }
    Ok(())
}

pub(crate) fn run_moves(id: &str, fen: Option<&str>, handicap: Option<&str>) -> Result<(), String> {
    let game = Game::from_position(handicapped(id, fen, handicap)?);
    let mut moves: Vec<String> = game.legal_moves().iter().map(|m| game.position().canonical(m)).collect();
    moves.sort();
    for m in moves {
        println!("{m}");
    }
    Ok(())
}

pub(crate) fn run_play(id: &str, fen: Option<&str>, handicap: Option<&str>, moves: &[String]) -> Result<(), String> {
    let mut game = Game::from_position(handicapped(id, fen, handicap)?);
    for (i, text) in moves.iter().enumerate() {
        game.play_text(text).map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
    }
    println!("{}", game.position().fen());
    match game.outcome() {
        Some(o) => println!("{o}"),
        None => println!("* game in progress"),
    }
    Ok(())
}

/// Reads `e2e4` or `P@c3` as the squares to highlight.
fn last_move_squares(text: &str) -> Result<(Option<Square>, Square), String> {
    let bad = || format!("--last wants a move such as e2e4 or P@c3, not '{text}'");
    if let Some((_, to)) = text.split_once('@') {
        return Ok((None, Square::parse(to).ok_or_else(bad)?));
    }
    let from = text.get(0..2).and_then(Square::parse).ok_or_else(bad)?;
    let to = text.get(2..4).and_then(Square::parse).ok_or_else(bad)?;
    Ok((Some(from), to))
}

pub(crate) fn run_render(
    id: &str,
    fen: Option<&str>,
    flip: bool,
    last: Option<&str>,
    size: u32,
    out: &Path,
) -> Result<(), String> {
    let pos = position(id, fen)?;
    let opts = BoardOptions {
        size: Some(size),
        flip,
        last_move: last.map(last_move_squares).transpose()?,
        ..BoardOptions::default()
    };
    let renderer = Renderer::shared();
    if out.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg")) {
        return write_picture(&renderer.board_svg(&pos, &opts), out);
    }
    // The PNG the bot sends: drawn from the cached background and pieces.
    let png = renderer.board_png(&pos, &opts).map_err(|e| e.to_string())?;
    std::fs::write(out, png).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!("{}", out.display());
    Ok(())
}

/// Writes an SVG picture as SVG or, unless the file name ends in `.svg`, PNG.
pub(crate) fn write_picture(svg: &str, out: &Path) -> Result<(), String> {
    let bytes = if out.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg")) {
        svg.as_bytes().to_vec()
    } else {
        Renderer::shared().svg_png(svg).map_err(|e| e.to_string())?
    };
    std::fs::write(out, bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!("{}", out.display());
    Ok(())
}

pub(crate) fn run_analyse(id: &str, fen: Option<&str>, handicap: Option<&str>, ms: u64) -> Result<(), String> {
    let pos = handicapped(id, fen, handicap)?;
    let mut engine = search::Engine::new(64);
    let limits = search::Limits::new(Duration::from_millis(ms.clamp(1, 600_000)), 64);
    let Some(found) = engine.search(&pos, limits) else {
        println!("no legal move");
        return Ok(());
    };
    let mut line = Vec::new();
    let mut p = pos.clone();
    for m in &found.pv {
        line.push(p.san(m));
        p.play_unchecked(*m);
    }
    let score = match (found.mate_in(), found.mated_in()) {
        (Some(n), _) => format!("mate in {n}"),
        (_, Some(n)) => format!("mated in {n}"),
        _ => format!("{:+.2}", found.score as f64 / 100.0),
    };
    println!("best {} ({})", pos.san(&found.best), pos.canonical(&found.best));
    println!("score {score}");
    println!("pv {}", line.join(" "));
    println!(
        "depth {} nodes {} time {} ms ({:.0} k nodes/s)",
        found.depth,
        found.nodes,
        found.elapsed.as_millis(),
        found.nodes as f64 / found.elapsed.as_secs_f64().max(1e-9) / 1e3
    );
    Ok(())
}
