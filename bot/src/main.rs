//! `kibitz`: the chat bot's binary and its command-line tools.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use std::sync::Arc;

mod cli_bench;
mod cli_match;
mod cli_position;
mod cli_review;
mod uci;

use cli_bench::BenchTarget;
use cli_position::{position, run_analyse, run_moves, run_perft, run_play, run_render, variant, write_picture};
use kibitz_bot::config::{Config, StoreLocation};
use kibitz_bot::core::{Core, CoreConfig};
use kibitz_bot::{adapter, secrets};
use kibitz_render::Renderer;
use kibitz_storage::{Store, StoreError, request_backup};

/// Kibitz: chess variants with friends, by chat.
#[derive(Parser)]
#[command(name = "kibitz", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// A local chat in the terminal: `NAME: MESSAGE` per line (the default).
    Console {
        /// The database folder.
        #[arg(long, default_value = "./kibitz-data")]
        db: PathBuf,
        /// Where board pictures are written.
        #[arg(long, default_value = "./kibitz-out")]
        out: PathBuf,
        /// Start even if the store is damaged or lost changes (what is left is kept as it is).
        #[arg(long)]
        accept_damage: bool,
    },
    /// Start the adapters a configuration file sets up.
    Run {
        /// The configuration file (see config.example.toml).
        #[arg(long)]
        config: PathBuf,
        /// Start even if the store is damaged or lost changes (what is left is kept as it is).
        #[arg(long)]
        accept_damage: bool,
    },
    /// Write a backup of the store to FILE; works while the bot runs (the bot writes it).
    Backup {
        /// The database folder.
        #[arg(long, default_value = "./kibitz-data")]
        db: PathBuf,
        /// The backup file to write.
        file: PathBuf,
    },
    /// Bring a store back from a backup FILE (a store already there is moved aside, never deleted).
    Restore {
        /// The database folder to restore into; refused while a bot uses it.
        #[arg(long, default_value = "./kibitz-data")]
        db: PathBuf,
        /// The backup file.
        file: PathBuf,
    },
    /// Copy every record of an embedded store into an empty PostgreSQL database (stop the bot first).
    Migrate {
        /// The database folder to copy from (the embedded store).
        #[arg(long)]
        from: PathBuf,
        /// The PostgreSQL database to copy into: postgres://USER@HOST:PORT/DATABASE.
        #[arg(long)]
        to: String,
    },
    /// Count the leaf nodes of the legal-move tree. The last line is the count.
    Perft {
        /// Variant id: chess, olympic, alapawn, alapawn-balanced.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// Start from this position instead of the variant's start.
        #[arg(long)]
        fen: Option<String>,
        /// PA7 handicaps, Power Absorption only: "white plain", "black nopawn noqueen", "white plain black nopawn".
        #[arg(long)]
        handicap: Option<String>,
        /// Print the count below each legal move first.
        #[arg(long)]
        divide: bool,
        /// Plies to search.
        depth: u32,
    },
    /// List the legal moves in canonical notation, one per line, sorted.
    Moves {
        /// Variant id.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// Position (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// PA7 handicaps, Power Absorption only: "white plain", "black nopawn noqueen", "white plain black nopawn".
        #[arg(long)]
        handicap: Option<String>,
    },
    /// Play moves (SAN or canonical); print the resulting FEN and outcome.
    Play {
        /// Variant id.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// Position to start from (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// PA7 handicaps, Power Absorption only: "white plain", "black nopawn noqueen", "white plain black nopawn".
        #[arg(long)]
        handicap: Option<String>,
        /// Moves in order.
        #[arg(allow_hyphen_values = true)]
        moves: Vec<String>,
    },
    /// Draw the board as a picture (PNG, or SVG if FILE ends in .svg).
    Render {
        /// Variant id.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// Position (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// Show the board from Black's side.
        #[arg(long)]
        flip: bool,
        /// Highlight the last move (`e2e4`, or a drop `P@c3`).
        #[arg(long)]
        last: Option<String>,
        /// Width of the board's squares together, in pixels.
        #[arg(long, default_value_t = kibitz_render::DEFAULT_SIZE)]
        size: u32,
        /// Where to write the picture.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// Draw a game's replay as an animated GIF: one frame per position, the
    /// last move highlighted.
    Gif {
        /// Variant id.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// Start position (default: the variant's start position).
        #[arg(long)]
        fen: Option<String>,
        /// Show the board from Black's side.
        #[arg(long)]
        flip: bool,
        /// Width of the board's squares together, in pixels.
        #[arg(long, default_value_t = kibitz_render::DEFAULT_SIZE)]
        size: u32,
        /// Where to write the GIF.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// The moves, canonical or SAN.
        moves: Vec<String>,
    },
    /// Draw the legend of a variant's pieces (PNG, or SVG if FILE ends in .svg).
    Legend {
        /// Variant id.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// Where to write the picture.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// Draw where one piece moves and captures from the centre of an empty board.
    Diagram {
        /// Variant id.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// The piece: its letter or name (N, knight, S, silver, ...).
        piece: String,
        /// Where to write the picture.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// Search a position: the best move, its score and the expected line.
    Analyse {
        /// Variant id.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// Position (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// PA7 handicaps, Power Absorption only: "white plain", "black nopawn noqueen", "white plain black nopawn".
        #[arg(long)]
        handicap: Option<String>,
        /// Thinking time in milliseconds.
        #[arg(long, default_value_t = 1000)]
        time: u64,
    },
    /// Review a game: every position searched, each player's inaccuracies,
    /// mistakes and blunders with the better move, and the evaluation graph.
    Review {
        /// Variant id.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// Position the game started from (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// Search time per position in milliseconds.
        #[arg(long, default_value_t = 300)]
        time: u64,
        /// Deepest search per position (default: as deep as the time allows).
        #[arg(long)]
        depth: Option<u32>,
        /// Where to write the graph (PNG, or SVG if the name ends in `.svg`).
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// Where to write the game as PGN with the review's evaluations and symbols.
        #[arg(long)]
        pgn: Option<PathBuf>,
        /// The moves (SAN or canonical).
        #[arg(required = true)]
        moves: Vec<String>,
    },
    /// Engine against engine: many games, alternating colours; reports the score and the Elo difference.
    Match {
        /// Variant id.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// The first player: `level1` .. `level8`, `greedy`, `random`, or `uci:PATH` (a UCI engine).
        #[arg(long, default_value = "level8")]
        first: String,
        /// The second player.
        #[arg(long, default_value = "random")]
        second: String,
        /// Games to play.
        #[arg(long, default_value_t = 20)]
        games: u32,
        /// Milliseconds per move for every player.
        #[arg(long, default_value_t = 100)]
        time: u64,
        /// `NAME=VALUE`: an option sent to every UCI engine (repeatable, sent in order).
        #[arg(long = "uci-option", value_name = "NAME=VALUE")]
        uci_options: Vec<String>,
        /// Seed of the random openings: each pair of games plays one, colours swapped.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Random plies of each opening.
        #[arg(long, default_value_t = 4)]
        opening_plies: u32,
        /// Games played at once, each thread with its own engines.
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
        /// Where to write every game as PGN (in the games' order, each as it ends).
        #[arg(long)]
        pgn: Option<PathBuf>,
    },
    /// Speak the Universal Chess Interface on stdin and stdout (for GUIs and match tools).
    Uci,
    /// Measure speed.
    Bench {
        #[command(subcommand)]
        what: BenchTarget,
    },
}

impl Command {
    /// Whether the command prints a listing someone may cut short
    /// (`kibitz moves | head`): it then stops quietly when its reader goes.
    fn prints_a_listing(&self) -> bool {
        matches!(
            self,
            Command::Perft { .. }
                | Command::Moves { .. }
                | Command::Play { .. }
                | Command::Analyse { .. }
                | Command::Review { .. }
                | Command::Bench {
                    what: BenchTarget::Search
                        | BenchTarget::Perft
                        | BenchTarget::Review
                        | BenchTarget::Render
                        | BenchTarget::Gif { .. }
                }
        )
    }
}

/// A write to a pipe whose reader has gone ends the process quietly, as it
/// does for other command-line tools, instead of failing the print (Rust
/// ignores SIGPIPE, and `println!` then panics). Only for the listing
/// commands: the bot itself keeps handling a closed connection as an error.
fn stop_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring the default action of a signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.command.as_ref().is_some_and(Command::prints_a_listing) {
        stop_quietly_on_a_closed_pipe();
    }
    let result = match cli.command {
        None => console(
            &StoreLocation::from_env_or(Path::new("./kibitz-data")),
            Path::new("./kibitz-out"),
            CoreConfig::default(),
            false,
        ),
        Some(Command::Console { db, out, accept_damage }) => {
            console(&StoreLocation::from_env_or(&db), &out, CoreConfig::default(), accept_damage)
        }
        Some(Command::Run { config, accept_damage }) => run(&config, accept_damage),
        Some(Command::Backup { db, file }) => backup(&db, &file),
        Some(Command::Restore { db, file }) => restore(&db, &file),
        Some(Command::Migrate { from, to }) => migrate(&from, &to),
        Some(Command::Perft { variant, fen, handicap, divide: per_move, depth }) => {
            run_perft(&variant, fen.as_deref(), handicap.as_deref(), per_move, depth)
        }
        Some(Command::Moves { variant, fen, handicap }) => run_moves(&variant, fen.as_deref(), handicap.as_deref()),
        Some(Command::Play { variant, fen, handicap, moves }) => {
            run_play(&variant, fen.as_deref(), handicap.as_deref(), &moves)
        }
        Some(Command::Render { variant, fen, flip, last, size, output }) => {
            run_render(&variant, fen.as_deref(), flip, last.as_deref(), size, &output)
        }
        Some(Command::Gif { variant, fen, flip, size, output, moves }) => position(&variant, fen.as_deref())
            .and_then(|start| kibitz_bot::replay::gif_of(start, &moves, flip, Some(size)))
            .and_then(|gif| std::fs::write(&output, gif).map_err(|e| format!("cannot write {}: {e}", output.display())))
            .map(|()| println!("{}", output.display())),
        Some(Command::Legend { variant: id, output }) => variant(&id).and_then(|v| {
            let svg = kibitz_render::legend_svg(Renderer::shared(), v);
            write_picture(&svg, &output)
        }),
        Some(Command::Diagram { variant: id, piece, output }) => variant(&id).and_then(|v| {
            let index = v
                .pieces
                .iter()
                .position(|p| p.name.eq_ignore_ascii_case(&piece) || p.letter.to_string().eq_ignore_ascii_case(&piece))
                .ok_or_else(|| format!("{} has no piece called '{piece}'", v.name))?;
            let svg = kibitz_render::diagram_svg(Renderer::shared(), v, index as u8).ok_or("no diagram")?;
            write_picture(&svg, &output)
        }),
        Some(Command::Analyse { variant, fen, handicap, time }) => {
            run_analyse(&variant, fen.as_deref(), handicap.as_deref(), time)
        }
        Some(Command::Match {
            variant: id,
            first,
            second,
            games,
            time,
            uci_options,
            seed,
            opening_plies,
            concurrency,
            pgn,
        }) => variant(&id).and_then(|v| {
            cli_match::run_match(&cli_match::MatchArgs {
                variant: v,
                first: &first,
                second: &second,
                games,
                time: Duration::from_millis(time.clamp(1, 3_600_000)),
                uci_options: &uci_options,
                seed,
                opening_plies,
                concurrency,
                pgn: pgn.as_deref(),
            })
        }),
        Some(Command::Uci) => uci::run(),
        Some(Command::Review { variant, fen, time, depth, output, pgn, moves }) => {
            cli_review::run_review(&cli_review::ReviewArgs {
                variant: &variant,
                fen: fen.as_deref(),
                time_ms: time,
                depth,
                output: output.as_deref(),
                pgn: pgn.as_deref(),
                moves: &moves,
            })
        }
        Some(Command::Bench { what }) => cli_bench::run(what),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            // No token in any output: errors pass through the same redaction as the log.
            eprintln!("kibitz: {}", secrets::redact(&msg));
            ExitCode::FAILURE
        }
    }
}

/// Opens the store for the bot, checked whole: a store that lost changes
/// or has damaged records is refused with what is wrong and the ways
/// forward, unless `accept_damage` (then the damage is printed and kept).
/// A running embedded store answers backup requests (`kibitz backup`) from a thread.
fn open_store(location: &StoreLocation, accept_damage: bool) -> Result<Store, String> {
    let db = match location {
        StoreLocation::Embedded(db) => db,
        StoreLocation::Shared(url) => return open_shared(url, accept_damage),
    };
    let way_forward = |db: &Path| {
        format!(
            "Nothing was started. Bring the store back from a backup with `kibitz restore --db {} BACKUP`, or start \
             with what is left with --accept-damage.",
            db.display()
        )
    };
    let store = match Store::open(db) {
        Ok(store) => store,
        Err(e @ StoreError::LostChanges { .. }) if !accept_damage => {
            return Err(format!("cannot start on the store in {}: {e}.\n{}", db.display(), way_forward(db)));
        }
        Err(StoreError::LostChanges { .. }) => {
            let (store, loss) = Store::open_accepting_loss(db)
                .map_err(|e| format!("cannot open the database {}: {}", db.display(), e.detail()))?;
            if let Some(loss) = loss {
                eprintln!("kibitz: starting with damage accepted: {loss}");
            }
            store
        }
        Err(e) => return Err(format!("cannot open the database {}: {}", db.display(), e.detail())),
    };
    check_whole(&store, &db.display().to_string(), accept_damage, &way_forward(db))?;
    let serving = store.clone();
    std::thread::spawn(move || {
        loop {
            if let Some(Err(e)) = serving.serve_backup_request() {
                eprintln!("kibitz: a backup failed: {}", e.detail());
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    });
    Ok(store)
}

/// Connects to the shared store (its schema brought up to date), checked whole.
fn open_shared(url: &str, accept_damage: bool) -> Result<Store, String> {
    let name = kibitz_storage::url_without_password(url);
    let store = Store::connect(url)
        .map_err(|e| kibitz_storage::hide_password(&format!("cannot open the database {name}: {}", e.detail()), url))?;
    let way_forward = "Nothing was started. Repair the records named (or restore the database from its backup), \
                       or start with what is left with --accept-damage.";
    check_whole(&store, &name, accept_damage, way_forward)?;
    Ok(store)
}

/// Reads every record of `store`; damage refuses the start unless accepted.
fn check_whole(store: &Store, name: &str, accept_damage: bool, way_forward: &str) -> Result<(), String> {
    let problems = store.verify_for_start().map_err(|e| format!("cannot check the database {name}: {}", e.detail()))?;
    if problems.is_empty() {
        return Ok(());
    }
    let mut text = format!("the game store {name} is damaged: {} problem(s):", problems.len());
    for p in problems.iter().take(20) {
        text.push_str("\n  ");
        text.push_str(&p.to_string());
    }
    if problems.len() > 20 {
        text.push_str(&format!("\n  ... and {} more", problems.len() - 20));
    }
    if !accept_damage {
        return Err(format!("{text}\n{way_forward}"));
    }
    eprintln!("kibitz: starting with damage accepted: {text}");
    Ok(())
}

fn console(location: &StoreLocation, out: &Path, config: CoreConfig, accept_damage: bool) -> Result<(), String> {
    let store = open_store(location, accept_damage)?;
    kibitz_bot::console::run_stdio(Core::new(store, config), out).map_err(|e| e.to_string())
}

/// `kibitz backup`: a store no process has open is read here; a running
/// bot's store is backed up by the bot, asked through a request file.
fn backup(db: &Path, file: &Path) -> Result<(), String> {
    if !db.join("db").exists() {
        return Err(format!("there is no game store in {}", db.display()));
    }
    let summary = match Store::open(db) {
        Ok(store) => store.backup(file).map_err(|e| e.detail())?.to_string(),
        Err(StoreError::InUse { .. }) => request_backup(db, file, Duration::from_secs(60))?,
        Err(e) => return Err(format!("cannot open the database {}: {}", db.display(), e.detail())),
    };
    println!("backup written: {summary}");
    Ok(())
}

fn restore(db: &Path, file: &Path) -> Result<(), String> {
    match Store::restore(file, db) {
        Ok(summary) => {
            println!("restored into {} from {summary}", db.display());
            Ok(())
        }
        Err(StoreError::InUse { .. }) => Err(format!(
            "refusing to restore: the store {} is in use (stop the bot first); nothing was changed",
            db.display()
        )),
        Err(e) => Err(format!("cannot restore {}: {}", file.display(), e.detail())),
    }
}

/// `kibitz migrate`: the embedded store copied into PostgreSQL; the URL's password is never shown.
fn migrate(from: &Path, to: &str) -> Result<(), String> {
    if !(to.starts_with("postgres://") || to.starts_with("postgresql://")) {
        // Not echoed: a connection string of another form may hold a password anywhere.
        return Err("--to must be a PostgreSQL URL such as postgres://kibitz@localhost:5432/kibitz".to_owned());
    }
    let shown = kibitz_storage::url_without_password(to);
    let hide = |text: String| kibitz_storage::hide_password(&text, to);
    match kibitz_storage::migrate(from, to) {
        Ok(report) => {
            println!("copied the store {} into {shown}:\n{report}", from.display());
            Ok(())
        }
        Err(e @ (StoreError::NoStore { .. } | StoreError::TargetNotEmpty { .. })) => {
            Err(hide(format!("cannot copy {} into {shown}: {e}", from.display())))
        }
        Err(StoreError::InUse { .. }) => Err(format!(
            "refusing to copy: the store {} is in use (stop the bot first); nothing was copied",
            from.display()
        )),
        Err(e) => Err(hide(format!("cannot copy {} into {shown}: {}; nothing was copied", from.display(), e.detail()))),
    }
}

fn run(path: &Path, accept_damage: bool) -> Result<(), String> {
    let config = Config::load(path)?;
    if config.configured().is_empty() {
        eprintln!("No Discord or Telegram token is configured: opening the console.");
        return console(&config.store_location(), &config.bot.pictures, config.core(), accept_damage);
    }
    // Every log line passes through the redaction of the tokens `Config::load` registered.
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info,serenity=warn".into()),
        )
        .with_writer(secrets::Redacting(std::io::stdout))
        .init();
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    // SIGTERM is caught from here on: one that comes while the store opens
    // stops the bot cleanly once it is open.
    let terminate = {
        let _inside = runtime.enter();
        terminate_signal()
    };
    let mut store = open_store(&config.store_location(), accept_damage)?;
    if let Some(seconds) = config.storage.worker_lease_seconds {
        store.set_worker_lease(Duration::from_secs(seconds));
        // Connecting told the others this process is alive for the default
        // lease: were it killed before its next heartbeat, the replies it
        // owes would wait that long instead of this lease.
        if let Err(e) = store.heartbeat() {
            tracing::warn!("could not tell the other processes this one is alive: {}", e.detail());
        }
    }
    if let Some(lease) = store.worker_lease() {
        tracing::info!("the store is shared (PostgreSQL); this process's heartbeat lease is {} s", lease.as_secs_f32());
    }
    let core = Arc::new(Core::new(store.clone(), config.core()));
    // Finished games are reviewed in the background, for the platforms served here.
    let reviewer = {
        let mut platforms = Vec::new();
        if config.telegram.token.as_deref().is_some_and(|t| !t.is_empty()) {
            platforms.push(kibitz_bot::telegram::PLATFORM);
        }
        if config.discord.token.as_deref().is_some_and(|t| !t.is_empty()) {
            platforms.push(kibitz_bot::discord::PLATFORM);
        }
        kibitz_bot::reviewer::Reviewer::start(core.clone(), &platforms)
    };
    let result = runtime.block_on(async {
        let (stop, shutdown) = adapter::shutdown_channel();
        let mut adapters = tokio::task::JoinSet::new();
        if let Some(token) = config.telegram.token.clone().filter(|t| !t.is_empty()) {
            let (core, api_url, shutdown) = (core.clone(), config.telegram.api_url.clone(), shutdown.clone());
            // Checked by `Config::load` already.
            let webhook = config.telegram_webhook()?;
            adapters.spawn(async move {
                ("Telegram", kibitz_bot::telegram::run_with(core, token, api_url, webhook, shutdown).await)
            });
        }
        if let Some(token) = config.discord.token.clone().filter(|t| !t.is_empty()) {
            let (core, proxy, shutdown) = (core.clone(), config.discord.proxy.clone(), shutdown.clone());
            // Checked when the configuration was read.
            let shards = config.discord_shards()?;
            adapters.spawn(async move {
                ("Discord", kibitz_bot::discord::run_shards(core, token, proxy, shards, shutdown).await)
            });
        }
        // Ctrl-C or SIGTERM: every adapter finishes what it has and stops.
        tokio::spawn(async move {
            wait_for_signal(terminate).await;
            tracing::info!("stopping");
            let _ = stop.send(true);
        });
        let mut failed = Vec::new();
        while let Some(done) = adapters.join_next().await {
            match done {
                Ok((_, Ok(()))) => {}
                Ok((name, Err(e))) => failed.push(format!("{name}: {e}")),
                Err(e) => failed.push(e.to_string()),
            }
        }
        if failed.is_empty() { Ok(()) } else { Err(failed.join("; ")) }
    });
    // A review under way stops within a position's search and stays owed.
    reviewer.stop();
    store.flush().map_err(|e| e.to_string())?;
    result
}

#[cfg(unix)]
type Terminate = Option<tokio::signal::unix::Signal>;
#[cfg(not(unix))]
type Terminate = ();

/// Starts catching SIGTERM (inside a runtime).
fn terminate_signal() -> Terminate {
    #[cfg(unix)]
    {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok()
    }
}

async fn wait_for_signal(terminate: Terminate) {
    #[cfg(unix)]
    {
        let Some(mut term) = terminate else {
            let _ = tokio::signal::ctrl_c().await;
            return;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let () = terminate;
        let _ = tokio::signal::ctrl_c().await;
    }
}
