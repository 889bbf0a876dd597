//! `kibitz bench bot`: many games played at once through the core, with
//! storage and pictures, over a database holding thousands of other games.

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kibitz_rules::{Position, Variant};
use kibitz_storage::{ChannelKey, GameSettings, NewGame, Store, Timestamp};

use crate::core::{Core, CoreConfig, Incoming, User};

/// What the bench measured.
#[derive(Debug, Clone)]
pub struct BotBench {
    /// Games stored besides the ones being played.
    pub stored_games: usize,
    /// Games played at once.
    pub concurrent_games: usize,
    /// Moves played.
    pub moves: usize,
    /// Moves per second over the run.
    pub moves_per_second: f64,
    /// Median latency of a move (command in, reply with picture out).
    pub median: Duration,
    /// 99th percentile latency.
    pub p99: Duration,
    /// Resident memory at the end, in bytes (Linux; 0 elsewhere).
    pub resident: u64,
}

impl fmt::Display for BotBench {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} moves in {} concurrent games over {} stored games",
            self.moves, self.concurrent_games, self.stored_games
        )?;
        writeln!(
            f,
            "{:.0} moves/s, latency median {:.2} ms, p99 {:.2} ms",
            self.moves_per_second,
            self.median.as_secs_f64() * 1e3,
            self.p99.as_secs_f64() * 1e3
        )?;
        write!(f, "resident memory {:.1} MB", self.resident as f64 / 1048576.0)
    }
}

fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kb| kb * 1024)
}

/// Runs the bench in `dir` for about `length`, with `threads` workers.
pub fn run(
    dir: &Path,
    stored_games: usize,
    concurrent: usize,
    threads: usize,
    length: Duration,
) -> Result<BotBench, String> {
    let store = Store::open(dir).map_err(|e| e.to_string())?;
    fill(&store, stored_games)?;
    let core = Arc::new(Core::new(store, CoreConfig::default()));
    let started = Instant::now();
    let mut latencies = play(&core, 0, concurrent, threads, length)?;
    let elapsed = started.elapsed();
    latencies.sort();
    let pick = |q: f64| latencies.get(((latencies.len() as f64 - 1.0) * q) as usize).copied().unwrap_or_default();
    Ok(BotBench {
        stored_games,
        concurrent_games: concurrent,
        moves: latencies.len(),
        moves_per_second: latencies.len() as f64 / elapsed.as_secs_f64(),
        median: pick(0.5),
        p99: pick(0.99),
        resident: resident_bytes(),
    })
}

/// What [`run_processes`] measured: the bot bench with several processes on one PostgreSQL store.
#[derive(Debug, Clone)]
pub struct SharedBench {
    /// Processes that played.
    pub processes: usize,
    /// The figures over all of them (`resident` is the largest process's).
    pub all: BotBench,
    /// Each process's resident memory, in bytes.
    pub resident: Vec<u64>,
    /// The database at the end: bytes on disk, games (active and finished), moves of active games.
    pub database: (u64, u64, u64),
}

impl fmt::Display for SharedBench {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} process(es) on one PostgreSQL store", self.processes)?;
        writeln!(
            f,
            "{} moves in {} concurrent games over {} stored games",
            self.all.moves, self.all.concurrent_games, self.all.stored_games
        )?;
        writeln!(
            f,
            "{:.0} moves/s, latency median {:.2} ms, p99 {:.2} ms",
            self.all.moves_per_second,
            self.all.median.as_secs_f64() * 1e3,
            self.all.p99.as_secs_f64() * 1e3
        )?;
        let each: Vec<String> = self.resident.iter().map(|r| format!("{:.1}", *r as f64 / 1048576.0)).collect();
        writeln!(f, "resident memory per process (MB): {}", each.join(", "))?;
        let (bytes, games, moves) = self.database;
        write!(
            f,
            "database at the end: {:.1} MB for {games} games and {moves} moves ({:.1} KB a game)",
            bytes as f64 / 1048576.0,
            bytes as f64 / 1024.0 / games.max(1) as f64
        )
    }
}

/// The bench with `processes` bot processes (this program, run again as
/// `bench bot-worker`) on a schema of its own on the server at `url`,
/// dropped afterwards: `concurrent` games shared among them, played by two
/// threads in all as the one-process bench has (one each from two processes
/// on: the machine's cores are shared, not added).
pub fn run_processes(
    url: &str,
    processes: usize,
    stored_games: usize,
    concurrent: usize,
    length: Duration,
) -> Result<SharedBench, String> {
    let schema = kibitz_storage::testing::TestSchema::on(url, "bench")
        .map_err(|e| format!("cannot make a schema for the bench: {}", e.detail()))?;
    let store = schema.store().map_err(|e| e.detail())?;
    fill(&store, stored_games)?;
    drop(store);
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let start_at = Timestamp::now().0 + 1_500;
    let share = concurrent.div_ceil(processes.max(1));
    let children: Vec<_> = (0..processes)
        .map(|p| {
            std::process::Command::new(&exe)
                .args(["bench", "bot-worker", "--url", &schema.url()])
                .args(["--first", &(p * share).to_string(), "--count", &share.to_string()])
                .args(["--start-at", &start_at.to_string(), "--seconds", &length.as_secs().to_string()])
                .args(["--threads", &(2 / processes).max(1).to_string()])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .map_err(|e| format!("cannot start a bench process: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let mut latencies = Vec::new();
    let mut resident = Vec::new();
    for child in children {
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err("a bench process failed".into());
        }
        let text = String::from_utf8_lossy(&out.stdout);
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("latencies-us ") {
                latencies.extend(rest.split(',').filter_map(|n| n.parse::<u64>().ok()).map(Duration::from_micros));
            } else if let Some(rest) = line.strip_prefix("resident ") {
                resident.push(rest.trim().parse::<u64>().unwrap_or(0));
            }
        }
    }
    latencies.sort();
    let database = schema.size().map_err(|e| e.detail())?;
    let pick = |q: f64| latencies.get(((latencies.len() as f64 - 1.0) * q) as usize).copied().unwrap_or_default();
    Ok(SharedBench {
        database,
        processes,
        all: BotBench {
            stored_games,
            concurrent_games: share * processes,
            moves: latencies.len(),
            moves_per_second: latencies.len() as f64 / length.as_secs_f64(),
            median: pick(0.5),
            p99: pick(0.99),
            resident: resident.iter().copied().max().unwrap_or(0),
        },
        resident,
    })
}

/// One process of [`run_processes`]: plays games `first..first + count` from
/// `start_at` for `length`, then prints its latencies and memory.
pub fn worker_process(
    url: &str,
    first: usize,
    count: usize,
    threads: usize,
    start_at: u64,
    length: Duration,
) -> Result<(), String> {
    let store = Store::connect(url).map_err(|e| e.detail())?;
    let core = Arc::new(Core::new(store, CoreConfig::default()));
    let wait = start_at.saturating_sub(Timestamp::now().0);
    std::thread::sleep(Duration::from_millis(wait));
    let latencies = play(&core, first, count, threads, length)?;
    let text: Vec<String> = latencies.iter().map(|l| l.as_micros().to_string()).collect();
    println!("latencies-us {}", text.join(","));
    println!("resident {}", resident_bytes());
    Ok(())
}

/// Stores `stored_games` other games: a database as a busy bot would have.
fn fill(store: &Store, stored_games: usize) -> Result<(), String> {
    let chess = Variant::by_id("chess").ok_or("chess")?;
    for i in 0..stored_games {
        let channel = ChannelKey::new("bench", format!("stored-{}", i / 100));
        let new = NewGame {
            variant: "chess".into(),
            white: format!("w{i}"),
            black: format!("b{i}"),
            settings: GameSettings::default(),
            start_fen: chess.start_fen.into(),
            at: Timestamp::now(),
            clash: None,
            bot: None,
        };
        store.create_game(&channel, &new).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Plays games `first..first + count` with `threads` threads for `length`; the latency of each move.
fn play(
    core: &Arc<Core>,
    first: usize,
    count: usize,
    threads: usize,
    length: Duration,
) -> Result<Vec<Duration>, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let threads = threads.max(1);
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (core, stop) = (core.clone(), stop.clone());
            let games: Vec<usize> = (first..first + count).filter(|g| g % threads == t).collect();
            std::thread::spawn(move || worker(&core, &games, &stop))
        })
        .collect();
    std::thread::sleep(length);
    stop.store(true, Ordering::Relaxed);
    let mut latencies: Vec<Duration> = Vec::new();
    for w in workers {
        latencies.extend(w.join().map_err(|_| "a worker failed")??);
    }
    Ok(latencies)
}

fn say(core: &Core, channel: &str, who: &str, text: &str, n: u64) -> Vec<crate::core::Reply> {
    core.handle(&Incoming {
        platform: "bench".into(),
        channel: channel.into(),
        sender: User { id: who.into(), name: who.into() },
        text: text.into(),
        message_id: Some(format!("{channel}-{n}")),
        at: Timestamp::now(),
        private: false,
        manages: None,
    })
}

/// Plays random games in its channels round-robin until told to stop.
fn worker(core: &Core, games: &[usize], stop: &AtomicBool) -> Result<Vec<Duration>, String> {
    let mut latencies = Vec::new();
    let mut rng = fastrand::Rng::with_seed(games.first().copied().unwrap_or(0) as u64);
    let mut n = 0u64;
    let channels: Vec<String> = games.iter().map(|g| format!("live-{g}")).collect();
    let variants = ["chess", "olympic", "alapawn"];
    while !stop.load(Ordering::Relaxed) {
        for (i, channel) in channels.iter().enumerate() {
            n += 1;
            let key = ChannelKey::new("bench", channel.clone());
            let game = core.store().player_game_in_channel(&key, "white").map_err(|e| e.to_string())?;
            let Some(game) = game else {
                let variant = variants[(games[i] + n as usize) % variants.len()];
                say(core, channel, "white", &format!("/challenge @black {variant} white"), n);
                say(core, channel, "black", "/accept", n + 1);
                n += 1;
                continue;
            };
            let variant = Variant::by_id(&game.variant).ok_or("variant")?;
            let pos = Position::from_fen(variant, &game.fen).map_err(|e| e.to_string())?;
            let moves = pos.legal_moves();
            let who = if pos.turn() == kibitz_rules::Color::White { "white" } else { "black" };
            if moves.is_empty() || game.moves.len() > 200 {
                say(core, channel, who, "/resign yes", n);
                continue;
            }
            let m = pos.canonical(&moves[rng.usize(..moves.len())]);
            let t = Instant::now();
            let replies = say(core, channel, who, &m, n);
            latencies.push(t.elapsed());
            if !replies.iter().any(|r| r.picture.is_some()) {
                return Err(format!("move {m} in {channel} was not answered with a picture: {replies:?}"));
            }
        }
    }
    Ok(latencies)
}

/// What [`tick`] measured.
#[derive(Debug, Clone)]
pub struct TickBench {
    /// Correspondence games in the store, none of them due.
    pub games: usize,
    /// Games against the bot in the store, waiting for the player.
    pub bot_games: usize,
    /// Ticks timed.
    pub ticks: usize,
    /// Median time of one clock tick.
    pub median: Duration,
    /// 90th percentile of the same.
    pub p90: Duration,
}

impl fmt::Display for TickBench {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "clock tick over {} correspondence games (none due) and {} games against the bot (waiting for the \
             player): median {:.3} ms, p90 {:.3} ms over {} ticks",
            self.games,
            self.bot_games,
            self.median.as_secs_f64() * 1e3,
            self.p90.as_secs_f64() * 1e3,
            self.ticks
        )
    }
}

/// Times [`Core::tick`] over a store in `dir` holding `games` correspondence
/// games of 3 days a move, each with a few moves played an hour ago (none
/// due), and `bot_games` games against the bot waiting for the player.
pub fn tick(dir: &Path, games: usize, bot_games: usize) -> Result<TickBench, String> {
    const TICKS: usize = 200;
    let store = Store::open(dir).map_err(|e| e.to_string())?;
    let chess = Variant::by_id("chess").ok_or("chess")?;
    let hour_ago = Timestamp(Timestamp::now().0.saturating_sub(3_600_000));
    let mut pos = Position::from_fen(chess, chess.start_fen).map_err(|e| e.to_string())?;
    let mut moves = Vec::new();
    for text in ["e2e4", "e7e5", "g1f3", "b8c6"] {
        let m = pos.legal_moves().into_iter().find(|m| pos.canonical(m) == text).ok_or("a move of the bench")?;
        pos.play_unchecked(m);
        moves.push(text);
    }
    let fen = pos.fen();
    for i in 0..games + bot_games {
        let bot = i >= games;
        // The bot plays one game per channel, as anyone.
        let channel = ChannelKey::new("bench", if bot { format!("tick-bot-{i}") } else { format!("tick-{}", i / 10) });
        let settings = if bot {
            GameSettings { rated: false, bot_level: Some(3), ..GameSettings::default() }
        } else {
            GameSettings { days_per_move: Some(3), ..GameSettings::default() }
        };
        let (white, black) =
            if bot { (format!("p{i}"), "kibitz".to_string()) } else { (format!("w{i}"), format!("b{i}")) };
        let new = NewGame {
            variant: "chess".into(),
            white: white.clone(),
            black: black.clone(),
            settings,
            start_fen: chess.start_fen.into(),
            at: hour_ago,
            clash: None,
            bot: None,
        };
        let game = store.create_game(&channel, &new).map_err(|e| e.to_string())?;
        store
            .update_game(&game.key, game.version, None, |g| {
                for (n, text) in moves.iter().enumerate() {
                    let by = if n % 2 == 0 { white.clone() } else { black.clone() };
                    g.moves.push(kibitz_storage::MoveRecord {
                        text: (*text).into(),
                        by,
                        at: hour_ago,
                        message_id: None,
                    });
                }
                g.fen.clone_from(&fen);
                g.updated_at = hour_ago;
                Ok(())
            })
            .map_err(|e| e.to_string())?;
    }
    let core = Core::new(store, CoreConfig::default());
    let mut times = Vec::with_capacity(TICKS);
    for _ in 0..TICKS {
        let t = Instant::now();
        let notices = core.tick(Timestamp::now(), "bench");
        times.push(t.elapsed());
        if !notices.is_empty() {
            return Err(format!("the tick found something to do: {notices:?}"));
        }
    }
    times.sort();
    Ok(TickBench { games, bot_games, ticks: TICKS, median: times[TICKS / 2], p90: times[TICKS * 9 / 10] })
}
