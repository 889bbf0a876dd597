//! `kibitz gif` (a game's replay as an animated GIF, from the command line)
//! and `kibitz bench gif` (how fast replays are made, and how big).

use std::fmt;
use std::time::{Duration, Instant};

use kibitz_render::{Caption, Renderer, ReplayOptions};
use kibitz_rules::{Color, Game, Position, Variant};

/// Plays `moves` (canonical or SAN) from `start` and draws the replay, the
/// caption naming the sides and the result (or whose turn it is).
pub fn gif_of(start: Position, moves: &[String], flip: bool, size: Option<u32>) -> Result<Vec<u8>, String> {
    let mut game = Game::from_position(start.clone());
    for (i, text) in moves.iter().enumerate() {
        game.play_text(text).map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
    }
    let status = match game.outcome() {
        Some(o) => format!("{} ({})", o.score(), o.reason),
        None if game.position().turn() == Color::White => "White to move".into(),
        None => "Black to move".into(),
    };
    let caption = Caption { white: "White".into(), black: "Black".into(), status, ..Caption::default() };
    let opts = ReplayOptions { size, flip, caption: Some(caption) };
    Renderer::shared().replay_gif(&start, game.moves(), &opts).map_err(|e| e.to_string())
}

/// One measured replay.
#[derive(Debug, Clone)]
pub struct GifBench {
    /// What was replayed.
    pub what: String,
    /// Plies in it.
    pub plies: usize,
    /// Median wall-clock time to make the GIF, caches warm.
    pub median: Duration,
    /// The fastest run, wall clock.
    pub best: Duration,
    /// The slowest run, wall clock.
    pub worst: Duration,
    /// CPU time of the process making the GIF (all its threads: the frames
    /// are compressed on several): the median run.
    pub cpu_median: Duration,
    /// CPU time of the fastest run (the figure a loaded machine distorts
    /// least).
    pub cpu_best: Duration,
    /// Wall-clock time of the first run, filling the renderer's caches.
    pub cold: Duration,
    /// Size of the GIF in bytes.
    pub bytes: usize,
}

impl fmt::Display for GifBench {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(
            f,
            "{}: {} plies, CPU best {:.1} ms, median {:.1} ms; wall best {:.1} ms, median {:.1} ms, worst {:.1} ms (first {:.1} ms, caches cold), {} bytes ({:.0} KB)",
            self.what,
            self.plies,
            ms(self.cpu_best),
            ms(self.cpu_median),
            ms(self.best),
            ms(self.median),
            ms(self.worst),
            ms(self.cold),
            self.bytes,
            self.bytes as f64 / 1024.0
        )
    }
}

/// A game of `plies` moves (fewer if every try ends sooner) played by a
/// seeded random choice among the legal moves, so a bench replays the same
/// game every time.
pub fn sample_game(variant: &'static Variant, plies: usize, seed: u64) -> Game {
    let mut best = Game::new(variant);
    for attempt in 0..200 {
        let mut rng = fastrand::Rng::with_seed(seed.wrapping_add(attempt));
        let mut game = Game::new(variant);
        while game.moves().len() < plies {
            let list = game.legal_moves();
            if list.is_empty() {
                break;
            }
            let m = list[rng.usize(..list.len())];
            if game.play(m).is_err() {
                break;
            }
        }
        if game.moves().len() >= plies {
            return game;
        }
        if game.moves().len() > best.moves().len() {
            best = game;
        }
    }
    best
}

/// Replays of a 90-ply chess game, a long Olympic game and a long Power
/// Absorption game at the bot's picture size (640), seen from White.
pub fn bench(runs: usize) -> Result<Vec<GifBench>, String> {
    let cases = [("chess", 90), ("olympic", 74), ("absorption", 90)];
    let mut out = Vec::new();
    for (id, plies) in cases {
        let v = Variant::by_id(id).ok_or_else(|| format!("no variant {id}"))?;
        let game = sample_game(v, plies, 17);
        let caption = Caption {
            white: "alice".into(),
            black: "bob".into(),
            status: game.outcome().map_or_else(|| "White to move".to_string(), |o| o.score().to_string()),
            ..Caption::default()
        };
        let opts = ReplayOptions { size: Some(640), flip: false, caption: Some(caption) };
        // A renderer of its own, so the first run fills its caches.
        let renderer = Renderer::new(Default::default());
        let timed = || {
            let (t, c) = (Instant::now(), process_cpu_time());
            let gif = renderer.replay_gif(game.start(), game.moves(), &opts).map_err(|e| e.to_string());
            (t.elapsed(), process_cpu_time().saturating_sub(c), gif)
        };
        let (cold, _, gif) = timed();
        let bytes = gif?.len();
        let (mut wall, mut cpu): (Vec<Duration>, Vec<Duration>) =
            (0..runs.max(1)).map(|_| timed()).map(|(w, c, _)| (w, c)).unzip();
        wall.sort();
        cpu.sort();
        out.push(GifBench {
            what: v.name.to_string(),
            plies: game.moves().len(),
            median: wall[wall.len() / 2],
            best: wall[0],
            worst: wall[wall.len() - 1],
            cpu_median: cpu[cpu.len() / 2],
            cpu_best: cpu[0],
            cold,
            bytes,
        });
    }
    Ok(out)
}

/// CPU time the process has spent so far in all its threads (user and
/// system), which a loaded machine does not inflate the way it inflates
/// wall-clock time.
fn process_cpu_time() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec for the call.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
    if !ok {
        return Duration::ZERO;
    }
    Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
}
