//! `kibitz bench ...`: the speed of each part, measured on fixed work.

use std::time::{Duration, Instant};

use clap::Subcommand;
use kibitz_render::{BoardOptions, Caption, Renderer};
use kibitz_rules::{Position, Square, Variant, perft, search};

use crate::cli_position::variant;

#[derive(Subcommand)]
pub(crate) enum BenchTarget {
    /// Perft speed: chess (start depth 6, Kiwipete depth 5), Olympic (start depth 7),
    /// Power Absorption and Construction (start depth 6).
    Perft,
    /// Board picture speed and size: a 640-pixel 8x8 board with 32 pieces.
    Render,
    /// Replay GIF speed and size: a 90-ply chess game, a long Olympic game and a
    /// long Power Absorption game.
    Gif {
        /// Timed runs of each.
        #[arg(long, default_value_t = 20)]
        runs: usize,
    },
    /// Storage speed: a durable move commit, and opening and listing 10,000 games.
    Storage,
    /// Search speed: nodes per second in each variant.
    Search,
    /// Game review speed: a 60-ply chess game reviewed at the default 300 ms a position.
    Review,
    /// The whole bot: concurrent games through the core, storage and pictures.
    Bot {
        /// Games played at once (shared among the processes).
        #[arg(long, default_value_t = 64)]
        games: usize,
        /// Games stored besides.
        #[arg(long, default_value_t = 10_000)]
        stored: usize,
        /// Seconds to run.
        #[arg(long, default_value_t = 10)]
        seconds: u64,
        /// The store: `sled` (a temporary folder) or `postgres` (a schema of
        /// its own on the server of --url, dropped afterwards).
        #[arg(long, default_value = "sled")]
        store: String,
        /// Bot processes playing at once on the one store (PostgreSQL only beyond 1);
        /// the two playing threads are shared among them (at least one each).
        #[arg(long, default_value_t = 1)]
        processes: usize,
        /// The PostgreSQL server (default: KIBITZ_POSTGRES_URL, else postgres://postgres@127.0.0.1:5432/test).
        #[arg(long)]
        url: Option<String>,
    },
    /// One process of `bench bot --processes N` (started by it).
    #[command(hide = true)]
    BotWorker {
        /// The shared store, schema included.
        #[arg(long)]
        url: String,
        /// The first of this process's games.
        #[arg(long)]
        first: usize,
        /// How many games it plays.
        #[arg(long)]
        count: usize,
        /// Threads playing them.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// When to start, in ms since 1970 (all processes start together).
        #[arg(long)]
        start_at: u64,
        /// Seconds to run.
        #[arg(long)]
        seconds: u64,
    },
    /// The correspondence clock: one tick over many games of which none is due.
    Tick {
        /// Correspondence games stored (3 days a move, none due).
        #[arg(long, default_value_t = 300)]
        games: usize,
        /// Games against the bot stored, waiting for the player.
        #[arg(long, default_value_t = 100)]
        bot_games: usize,
    },
}

/// Nodes per second of the best of `runs` timings.
fn time_perft(pos: &Position, depth: u32, runs: u32) -> (u64, Duration) {
    let mut best = Duration::MAX;
    let mut nodes = 0;
    for _ in 0..runs {
        let t = Instant::now();
        nodes = perft(pos, depth);
        best = best.min(t.elapsed());
    }
    (nodes, best)
}

fn bench_perft() {
    const OLYMPIC_TARGET: f64 = 20e6;
    let chess = variant("chess").expect("chess exists");
    let olympic = variant("olympic").expect("olympic exists");
    let absorption = variant("absorption").expect("absorption exists");
    let construction = variant("construction").expect("construction exists");
    let split = variant("construction-split").expect("construction-split exists");
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let rows = [
        ("chess start, depth 6", Position::new(chess), 6),
        ("chess Kiwipete, depth 5", Position::from_fen(chess, kiwipete).expect("Kiwipete is valid"), 5),
        ("olympic start, depth 7", Position::new(olympic), 7),
        ("absorption start, depth 6", Position::new(absorption), 6),
        ("construction start, depth 6", Position::new(construction), 6),
        ("construction-split start, depth 6", Position::new(split), 6),
    ];
    let mut nps_of = std::collections::HashMap::new();
    for (name, pos, depth) in rows {
        let (nodes, time) = time_perft(&pos, depth, 3);
        let nps = nodes as f64 / time.as_secs_f64();
        println!("{name:<34} {nodes:>11} nodes  {:>8.3} s  {:>7.1} M nodes/s", time.as_secs_f64(), nps / 1e6);
        if name.contains("start") {
            nps_of.insert(name.split(' ').next().unwrap_or(name), nps);
        }
    }
    let chess_nps = nps_of["chess"];
    println!("olympic / 20 M nodes/s target: {:.2}", nps_of["olympic"] / OLYMPIC_TARGET);
    for v in ["absorption", "construction"] {
        println!("{v} / chess start, per node: {:.2} (target at least 0.50)", nps_of[v] / chess_nps);
    }
    // CS: at least half of Construction's speed per node.
    let split_share = nps_of["construction-split"] / nps_of["construction"];
    println!("construction-split / construction start, per node: {split_share:.2} (target at least 0.50)");
    println!("(the side-by-side comparison with shakmaty: cargo bench -p kibitz-rules --bench perft)");
}

fn bench_render() -> Result<(), String> {
    const RUNS: usize = 200;
    let chess = variant("chess")?;
    // 32 pieces, a last move, a caption: what a player sees after 1.e4.
    let pos = Position::from_fen(chess, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
        .map_err(|e| e.to_string())?;
    let opts = BoardOptions {
        size: Some(640),
        last_move: Some((Square::parse("e2"), Square::parse("e4").ok_or("e4")?)),
        caption: Some(Caption {
            white: "alice".into(),
            black: "bob".into(),
            status: "Black to move".into(),
            ..Caption::default()
        }),
        ..BoardOptions::default()
    };
    let renderer = Renderer::new(Default::default());
    let t = Instant::now();
    let png = renderer.board_png(&pos, &opts).map_err(|e| e.to_string())?;
    let cold = t.elapsed();
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            let _ = renderer.board_png(&pos, &opts);
            t.elapsed()
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("board 640 px, 32 pieces, PNG: first {:.2} ms (fills the caches)", ms(cold));
    println!("median {:.2} ms, p90 {:.2} ms over {RUNS} pictures", ms(times[RUNS / 2]), ms(times[RUNS * 9 / 10]));
    println!("size {} bytes ({:.1} KB)", png.len(), png.len() as f64 / 1024.0);
    Ok(())
}

fn bench_search() {
    let positions = [
        ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        ("olympic", "rbsgk/4p/5/P4/KGSBR[] w - - 0 1"),
        ("alapawn", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
        ("alapawn-balanced", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 1 - 0 1"),
        ("absorption", "r1b1k2r/pp(np)2ppp/2n5/3(QP)4/1(bn)6/2N5/PPP2PPP/R1B1K2R w KQkq - 0 10"),
        ("construction", "(rc)3k2r/pp(bp)2(qn)pp/8/8/8/8/PP(BP)2(QN)PP/(RC)3K2R[Bb] w - - 5 15"),
        ("construction-split", "(uc)3k2r/gf(eg)2(qi)pp/8/8/8/8/PF(DG)2(QH)GF/(TC)3K2R[Ue] w - - 5 15"),
        ("clash", "rtbqkbtr/pppppppp/8/8/8/8/OOOOOOOO/MWNJSNEH w Dkq - 0 1"),
    ];
    for (id, fen) in positions {
        let Some(v) = Variant::by_id(id) else { continue };
        let Ok(pos) = Position::from_fen(v, fen) else { continue };
        let mut engine = search::Engine::new(64);
        let limits = search::Limits::new(Duration::from_secs(2), 64);
        if let Some(f) = engine.search(&pos, limits) {
            let nps = f.nodes as f64 / f.elapsed.as_secs_f64().max(1e-9);
            println!(
                "{id:<18} depth {:>2}  {:>9} nodes in {:>5} ms  {:>6.2} M nodes/s",
                f.depth,
                f.nodes,
                f.elapsed.as_millis(),
                nps / 1e6
            );
        }
    }
}

/// Runs the bench `what` names and prints its figures.
pub(crate) fn run(what: BenchTarget) -> Result<(), String> {
    match what {
        BenchTarget::Review => crate::cli_review::bench_review(),
        BenchTarget::Search => {
            bench_search();
            Ok(())
        }
        BenchTarget::Perft => {
            bench_perft();
            Ok(())
        }
        BenchTarget::Render => bench_render(),
        BenchTarget::Gif { runs } => kibitz_bot::replay::bench(runs).map(|all| {
            for b in all {
                println!("{b}");
            }
        }),
        BenchTarget::Storage => {
            let dir = tempfile::tempdir().map_err(|e| e.to_string());
            dir.and_then(|d| kibitz_storage::bench(d.path()).map_err(|e| e.to_string())).map(|r| println!("{r}"))
        }
        BenchTarget::Bot { games, stored, seconds, store, processes, url } => {
            let length = Duration::from_secs(seconds.clamp(1, 600));
            match store.as_str() {
                "sled" if processes <= 1 => {
                    let dir = tempfile::tempdir().map_err(|e| e.to_string());
                    dir.and_then(|d| kibitz_bot::bench::run(d.path(), stored, games, 2, length))
                        .map(|r| println!("{r}"))
                }
                "sled" => Err("several processes need a shared store: --store postgres".into()),
                "postgres" => {
                    let url = url
                        .or_else(kibitz_bot::config::postgres_from_env)
                        .unwrap_or_else(kibitz_storage::testing::server_url);
                    kibitz_bot::bench::run_processes(&url, processes.clamp(1, 64), stored, games, length)
                        .map(|r| println!("{r}"))
                }
                other => Err(format!("unknown store '{other}': sled or postgres")),
            }
        }
        BenchTarget::BotWorker { url, first, count, threads, start_at, seconds } => {
            kibitz_bot::bench::worker_process(&url, first, count, threads, start_at, Duration::from_secs(seconds))
        }
        BenchTarget::Tick { games, bot_games } => {
            let dir = tempfile::tempdir().map_err(|e| e.to_string());
            dir.and_then(|d| kibitz_bot::bench::tick(d.path(), games, bot_games)).map(|r| println!("{r}"))
        }
    }
}
