//! `kibitz match`: games between the bot's levels, simple players and UCI
//! engines, with seeded openings played twice (colours swapped), on one or
//! more threads, and the score with its Elo difference and error margin.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kibitz_rules::{Color, Game, Move, Outcome, Position, Variant, search};

/// A game still running after this many plies is drawn (adjudicated).
const MAX_PLIES: usize = 400;
/// How long an engine may take to start, to answer `uci` and `isready`.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// What `kibitz match` was asked for.
pub struct MatchArgs<'a> {
    pub variant: &'static Variant,
    pub first: &'a str,
    pub second: &'a str,
    pub games: u32,
    /// Per move, for every player.
    pub time: Duration,
    /// `NAME=VALUE`, sent to every UCI engine in this order.
    pub uci_options: &'a [String],
    pub seed: u64,
    pub opening_plies: u32,
    pub concurrency: usize,
    /// Where to write every game as PGN, in the games' order.
    pub pgn: Option<&'a Path>,
}

/// A match player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Player {
    Level(u8),
    Greedy,
    Random,
    /// A UCI engine: the program to start.
    Uci(PathBuf),
}

impl Player {
    pub fn parse(text: &str) -> Result<Player, String> {
        let wanted = || format!("a player is level1 .. level8, greedy, random or uci:PATH, not '{text}'");
        match text {
            "greedy" => Ok(Player::Greedy),
            "random" => Ok(Player::Random),
            _ if text.starts_with("uci:") => {
                let path = &text["uci:".len()..];
                if path.trim().is_empty() { Err(wanted()) } else { Ok(Player::Uci(PathBuf::from(path))) }
            }
            _ => text
                .strip_prefix("level")
                .and_then(|l| l.parse::<u8>().ok())
                .filter(|l| (1..=8).contains(l))
                .map(Player::Level)
                .ok_or_else(wanted),
        }
    }
}

/// Reads `--uci-option NAME=VALUE`.
fn parse_option(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), value.trim().to_string())),
        _ => Err(format!("--uci-option wants NAME=VALUE, not '{text}'")),
    }
}

/// How a UCI engine failed to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Silence {
    Died,
    TimedOut,
}

/// A UCI engine running as a child process.
struct UciEngine {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl UciEngine {
    /// Starts the engine and sets it up: `uci`, the options, the variant,
    /// `isready`.
    fn start(path: &Path, options: &[(String, String)], variant: &Variant) -> Result<UciEngine, String> {
        let shown = path.display();
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start the engine uci:{shown}: {e}"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("cannot talk to the engine uci:{shown}"));
        };
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut bytes = Vec::new();
            loop {
                bytes.clear();
                match reader.read_until(b'\n', &mut bytes) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if send.send(String::from_utf8_lossy(&bytes).trim().to_string()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut engine = UciEngine { child, stdin, lines };
        let fail = |what: &str, why: Silence| {
            let why = match why {
                Silence::Died => "it exited",
                Silence::TimedOut => "no answer in 10 s",
            };
            format!("the engine uci:{shown} did not {what}: {why}")
        };
        engine.send("uci");
        let mut names = Vec::new();
        engine
            .wait_for(HANDSHAKE_TIMEOUT, |line| {
                if let Some(rest) = line.strip_prefix("option name ") {
                    let name = rest.split(" type ").next().unwrap_or(rest);
                    names.push(name.trim().to_ascii_lowercase());
                }
                line == "uciok"
            })
            .map_err(|e| fail("answer uci with uciok", e))?;
        for (name, value) in options {
            engine.send(&format!("setoption name {name} value {value}"));
        }
        let variant_set = options.iter().any(|(n, _)| n.eq_ignore_ascii_case("UCI_Variant"));
        if names.iter().any(|n| n == "uci_variant") && !variant_set {
            engine.send(&format!("setoption name UCI_Variant value {}", variant.id));
        }
        engine.ready().map_err(|e| fail("answer isready with readyok", e))?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) {
        // A dead engine is noticed when its answer does not come.
        let _ = writeln!(self.stdin, "{line}");
        let _ = self.stdin.flush();
    }

    /// Reads lines until `done` accepts one, which it returns.
    fn wait_for(&mut self, timeout: Duration, mut done: impl FnMut(&str) -> bool) -> Result<String, Silence> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if done(&line) => return Ok(line),
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => return Err(Silence::TimedOut),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(Silence::Died),
            }
        }
    }

    fn ready(&mut self) -> Result<(), Silence> {
        self.send("isready");
        self.wait_for(HANDSHAKE_TIMEOUT, |l| l == "readyok").map(|_| ())
    }

    fn new_game(&mut self) -> Result<(), Silence> {
        self.send("ucinewgame");
        self.ready()
    }

    /// The engine's move text after `moves` from `start_fen`.
    fn best_move(&mut self, start_fen: &str, moves: &[String], time: Duration) -> Result<String, Silence> {
        let mut position = format!("position fen {start_fen}");
        if !moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&moves.join(" "));
        }
        self.send(&position);
        self.send(&format!("go movetime {}", time.as_millis().max(1)));
        let line =
            self.wait_for(time * 10 + Duration::from_secs(5), |l| l.split_whitespace().next() == Some("bestmove"))?;
        Ok(line.split_whitespace().nth(1).unwrap_or("").to_string())
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A player at the board of one thread: its engine, if it has one.
struct Seat {
    player: Player,
    name: String,
    engine: Option<search::Engine>,
    uci: Option<UciEngine>,
}

impl Seat {
    fn new(player: &Player, name: &str, options: &[(String, String)], v: &Variant) -> Result<Seat, String> {
        let mut seat = Seat { player: player.clone(), name: name.to_string(), engine: None, uci: None };
        match player {
            Player::Level(_) => seat.engine = Some(search::Engine::new(16)),
            Player::Uci(path) => seat.uci = Some(UciEngine::start(path, options, v)?),
            Player::Greedy | Player::Random => {}
        }
        Ok(seat)
    }

    /// Gets ready for a game; a dead engine is started again.
    fn new_game(&mut self, options: &[(String, String)], v: &Variant) -> Result<(), String> {
        if let Some(engine) = self.engine.as_mut() {
            engine.clear();
        }
        let Player::Uci(path) = &self.player else { return Ok(()) };
        if let Some(uci) = self.uci.as_mut() {
            if uci.new_game().is_ok() {
                return Ok(());
            }
            self.uci = None;
        }
        let uci = UciEngine::start(path, options, v).map_err(|e| format!("{e} (restarting it)"))?;
        self.uci = Some(uci);
        Ok(())
    }

    /// The seat's move, or why it has none (and loses).
    fn choose(
        &mut self,
        game: &Game,
        record: &Record,
        time: Duration,
        rng: &mut fastrand::Rng,
    ) -> Result<Move, String> {
        let pos = game.position();
        let name = &self.name;
        let chosen = match &self.player {
            Player::Level(l) => {
                let engine = self.engine.get_or_insert_with(|| search::Engine::new(16));
                // Returning to an earlier position counts as a repetition.
                engine.set_history(&record.hashes);
                search::level_move(engine, pos, *l, time, rng.u64(..))
            }
            Player::Greedy => search::greedy_move(pos),
            Player::Random => {
                let legal = pos.legal_moves();
                (!legal.is_empty()).then(|| legal[rng.usize(..legal.len())])
            }
            Player::Uci(_) => {
                let Some(uci) = self.uci.as_mut() else { return Err(format!("{name} is not running")) };
                let text = match uci.best_move(&record.start_fen, &record.moves, time) {
                    Ok(text) => text,
                    Err(silence) => {
                        // Killed; started again for the next game.
                        self.uci = None;
                        return Err(match silence {
                            Silence::Died => format!("{name} exited during the game"),
                            Silence::TimedOut => {
                                format!("{name} did not answer within {} ms", (time * 10).as_millis() + 5000)
                            }
                        });
                    }
                };
                if text == "(none)" || text.is_empty() {
                    return Err(format!("{name} answered bestmove (none) with legal moves left"));
                }
                let found = pos.legal_moves().iter().copied().find(|m| pos.canonical(m) == text);
                let shown: String = text.chars().take(32).collect();
                return found.ok_or_else(|| format!("{name} answered the illegal move '{shown}'"));
            }
        };
        chosen.ok_or_else(|| format!("{name} found no move"))
    }
}

/// A game's record as the players are told it.
struct Record {
    /// The FEN the game started from (before the opening).
    start_fen: String,
    /// Every move since, canonical.
    moves: Vec<String>,
    /// The positions before the current one.
    hashes: Vec<search::Visit>,
}

/// How one game went.
#[derive(Debug, Clone)]
struct GameResult {
    index: u32,
    /// White's name, Black's name.
    names: [String; 2],
    winner: Option<Color>,
    /// The first player's colour in this game.
    first: Color,
    plies: usize,
    reason: String,
    /// The game as PGN, its random opening marked by a comment.
    pgn: String,
}

impl GameResult {
    fn score(&self) -> &'static str {
        Outcome::score_of(self.winner)
    }

    fn line(&self, games: u32) -> String {
        let score = self.score();
        format!(
            "game {}/{games}: {} (White) {score} {}, {} moves, {}",
            self.index + 1,
            self.names[0],
            self.names[1],
            self.plies.div_ceil(2),
            self.reason
        )
    }
}

/// A well-mixed 64-bit value of `a` and `b` (SplitMix64's finaliser).
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_add(0x9e37_79b9_7f4a_7c15).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The start of game `g` of a match: the variant's start, or for Clash of
/// the Armies a first round between armies the bot buys (`army::plan`, at
/// level 8, a seed per pair of games).
pub fn match_start(v: &'static Variant, g: u32) -> Result<Game, String> {
    if v.id != kibitz_rules::CLASH.id {
        return Ok(Game::new(v));
    }
    use kibitz_rules::army::{Match, plan};
    let mut m = Match::new();
    for color in [Color::White, Color::Black] {
        let style = plan::Style { level: 8, seed: u64::from(g / 2) };
        plan::act(&mut m, color, style).map_err(|e| format!("the armies of game {g}: {e}"))?;
    }
    let pos = Position::from_fen(v, &m.start_fen()).map_err(|e| format!("the armies of game {g}: {e}"))?;
    Ok(Game::from_position(pos))
}

/// Game `g`'s start and opening: the same for both games of a pair, from
/// the seed alone. Returns the game and its moves in canonical notation.
fn opening(v: &'static Variant, seed: u64, g: u32, plies: u32) -> Result<(Game, Vec<String>), String> {
    let mut game = match_start(v, g)?;
    let mut rng = fastrand::Rng::with_seed(mix(seed, u64::from(g / 2)));
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = game.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.usize(..legal.len())];
        match game.play(m) {
            Ok(played) => moves.push(played.canonical),
            Err(e) => return Err(format!("the opening of game {}: {e}", g + 1)),
        }
    }
    Ok((game, moves))
}

/// Plays game `g`; the first player has White in even games.
fn play_game(
    args: &MatchArgs,
    options: &[(String, String)],
    g: u32,
    seats: &mut [Seat; 2],
) -> Result<GameResult, String> {
    let v = args.variant;
    let (mut game, moves) = opening(v, args.seed, g, args.opening_plies)?;
    let opening_plies = moves.len();
    let mut record = Record { start_fen: game.start().fen(), moves, hashes: Vec::new() };
    let mut replay = game.start().clone();
    for m in game.moves() {
        record.hashes.push(search::Visit::of(&replay));
        replay.play_unchecked(*m);
    }
    let first = if g.is_multiple_of(2) { Color::White } else { Color::Black };
    let seat_of = |c: Color| if c == first { 0 } else { 1 };
    let names = [seats[seat_of(Color::White)].name.clone(), seats[seat_of(Color::Black)].name.clone()];
    let mut rng = fastrand::Rng::with_seed(mix(args.seed ^ 0x6b69_6269_747a, u64::from(g)));
    let mut forfeit: Option<(Color, String)> = None;
    for color in [Color::White, Color::Black] {
        if forfeit.is_none()
            && let Err(why) = seats[seat_of(color)].new_game(options, v)
        {
            forfeit = Some((color, why));
        }
    }
    while forfeit.is_none() && game.outcome().is_none() && game.moves().len() < MAX_PLIES {
        let turn = game.position().turn();
        let seat = &mut seats[seat_of(turn)];
        let before = search::Visit::of(game.position());
        match seat.choose(&game, &record, args.time, &mut rng) {
            Ok(m) => match game.play(m) {
                Ok(played) => {
                    record.moves.push(played.canonical);
                    record.hashes.push(before);
                }
                Err(e) => forfeit = Some((turn, format!("{} chose a move the rules refuse: {e}", seat.name))),
            },
            Err(why) => forfeit = Some((turn, why)),
        }
    }
    let plies = game.moves().len();
    let (winner, reason) = match (forfeit, game.outcome()) {
        (Some((loser, why)), _) => {
            let side = if loser == Color::White { "White" } else { "Black" };
            let number = plies / 2 + 1;
            eprintln!("kibitz: warning: game {}, move {number} ({side}): {why}; it loses the game", g + 1);
            (Some(!loser), why)
        }
        (None, Some(outcome)) => (outcome.winner, outcome.reason.to_string()),
        (None, None) => (None, format!("adjudicated a draw after {MAX_PLIES} plies")),
    };
    let pgn = game_pgn(args, &game, g, &names, Outcome::score_of(winner), &reason, opening_plies);
    Ok(GameResult { index: g, names, winner, first, plies, reason, pgn })
}

/// Game number `index` (from 0) between `names` (White, Black) as PGN: the
/// moves from the variant's start (or Clash's armies), a comment after the
/// last random move of the opening, and the result (the rules', a
/// forfeit's or an adjudication's) with its reason.
fn game_pgn(
    args: &MatchArgs,
    game: &Game,
    index: u32,
    names: &[String; 2],
    result: &str,
    reason: &str,
    opening_plies: usize,
) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let date = chrono::DateTime::from_timestamp(now as i64, 0)
        .map_or_else(|| "????.??.??".to_string(), |t| t.format("%Y.%m.%d").to_string());
    let round = (index + 1).to_string();
    let time = format!("{} ms a move", args.time.as_millis());
    let tags = [
        ("Event", "kibitz match"),
        ("Date", date.as_str()),
        ("Round", round.as_str()),
        ("White", names[0].as_str()),
        ("Black", names[1].as_str()),
        ("Result", result),
        ("Termination", reason),
        ("MoveTime", time.as_str()),
    ];
    let comments = match opening_plies {
        0 => vec![],
        n => vec![(n - 1, "end of the random opening")],
    };
    game.pgn(&tags, &comments)
}

/// The score of a match and its error margin, as shares of the points and
/// as an Elo difference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// Points over games, 0 to 1.
    pub share: f64,
    /// Half the 95% confidence interval of `share` (trinomial standard error).
    pub margin: f64,
    /// The Elo difference the share means (bounded at ±1200 when the share
    /// is 0 or 1).
    pub elo: f64,
    /// Half the 95% confidence interval of `elo`; `None` when the share is 0
    /// or 1 (then `elo` is only a bound).
    pub elo_margin: Option<f64>,
}

fn elo_of(share: f64) -> f64 {
    let s = share.clamp(0.001, 0.999);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The score of `wins`, `draws` and `losses`; `None` with no game.
pub fn score(wins: u32, draws: u32, losses: u32) -> Option<Score> {
    let n = f64::from(wins + draws + losses);
    if n == 0.0 {
        return None;
    }
    let (w, d, l) = (f64::from(wins), f64::from(draws), f64::from(losses));
    let share = (w + d / 2.0) / n;
    let variance = (w * (1.0 - share).powi(2) + d * (0.5 - share).powi(2) + l * share.powi(2)) / n;
    let margin = 1.96 * (variance / n).sqrt();
    let decided = wins + draws > 0 && draws + losses > 0;
    let elo_margin = decided.then(|| (elo_of(share + margin) - elo_of(share - margin)) / 2.0);
    Some(Score { share, margin, elo: elo_of(share), elo_margin })
}

/// A share as a percentage to one decimal, halves rounded up (56.25% is
/// 56.3%).
fn percent(share: f64) -> f64 {
    (share * 1000.0).round() / 10.0
}

/// The summary's score line.
fn score_line(wins: u32, draws: u32, losses: u32) -> String {
    let Some(s) = score(wins, draws, losses) else { return "no game was played".into() };
    let games = wins + draws + losses;
    // Rounded first, so that no "-0" is printed.
    let elo = s.elo.round() + 0.0;
    match s.elo_margin {
        Some(m) => format!(
            "score {:.1}% +- {:.1}%, Elo difference {:+.0} +- {m:.0} (95%)",
            percent(s.share),
            percent(s.margin),
            elo
        ),
        None => format!(
            "score {:.1}% ({}/{games}), Elo difference {:+.0} ({})",
            percent(s.share),
            f64::from(wins) + f64::from(draws) / 2.0,
            elo,
            if s.share >= 1.0 { "at least" } else { "at most" }
        ),
    }
}

/// Runs the match and prints a line per game and the summary.
pub fn run_match(args: &MatchArgs) -> Result<(), String> {
    let players = [Player::parse(args.first)?, Player::parse(args.second)?];
    let options = args.uci_options.iter().map(|o| parse_option(o)).collect::<Result<Vec<_>, _>>()?;
    let games = args.games;
    let threads = args.concurrency.clamp(1, games.max(1) as usize);
    // Created before the first game, so that a path that cannot be written
    // fails at once rather than after the match.
    let mut pgn = match args.pgn {
        Some(path) => Some(
            std::fs::File::create(path)
                .map(std::io::BufWriter::new)
                .map_err(|e| format!("cannot write the games to {}: {e}", path.display()))?,
        ),
        None => None,
    };
    // Every thread has its own engines, all started before the first game.
    let mut tables = Vec::with_capacity(threads);
    for _ in 0..threads {
        let first = Seat::new(&players[0], args.first, &options, args.variant)?;
        let second = Seat::new(&players[1], args.second, &options, args.variant)?;
        tables.push([first, second]);
    }
    let next = AtomicU32::new(0);
    let failed = AtomicBool::new(false);
    let (send, results) = mpsc::channel::<Result<GameResult, String>>();
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let mut error = None;
    std::thread::scope(|scope| {
        for mut seats in tables {
            let (send, next, failed, options) = (send.clone(), &next, &failed, &options);
            scope.spawn(move || {
                loop {
                    let g = next.fetch_add(1, Ordering::SeqCst);
                    if g >= games || failed.load(Ordering::SeqCst) {
                        break;
                    }
                    let result = play_game(args, options, g, &mut seats);
                    if result.is_err() {
                        failed.store(true, Ordering::SeqCst);
                    }
                    if send.send(result).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        // Printed in the games' order, whichever thread finishes first.
        let mut waiting = BTreeMap::new();
        let mut printed = 0;
        for result in results {
            match result {
                Ok(r) => {
                    waiting.insert(r.index, r);
                }
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
            while let Some(r) = waiting.remove(&printed) {
                println!("{}", r.line(games));
                if let (Some(file), Some(path)) = (pgn.as_mut(), args.pgn) {
                    // Each game as it ends: a match stopped early keeps those played.
                    if let Err(e) = writeln!(file, "{}", r.pgn).and_then(|()| file.flush()) {
                        error.get_or_insert(format!("cannot write the games to {}: {e}", path.display()));
                        failed.store(true, Ordering::SeqCst);
                    }
                }
                match r.winner {
                    Some(c) if c == r.first => wins += 1,
                    Some(_) => losses += 1,
                    None => draws += 1,
                }
                printed += 1;
            }
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    println!(
        "{} games of {}: {} +{wins} ={draws} -{losses} against {}",
        wins + draws + losses,
        args.variant.name,
        args.first,
        args.second
    );
    println!("{}", score_line(wins, draws, losses));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_are_read() {
        assert_eq!(Player::parse("level3"), Ok(Player::Level(3)));
        assert_eq!(Player::parse("uci:/usr/bin/fsf"), Ok(Player::Uci(PathBuf::from("/usr/bin/fsf"))));
        assert!(Player::parse("level9").is_err());
        assert!(Player::parse("uci:").is_err());
        assert!(Player::parse("stockfish").is_err());
        assert_eq!(parse_option("Hash=64"), Ok(("Hash".into(), "64".into())));
        assert_eq!(parse_option("VariantPath=a=b.ini"), Ok(("VariantPath".into(), "a=b.ini".into())));
        assert!(parse_option("=3").is_err());
        assert!(parse_option("Hash").is_err());
    }

    #[test]
    fn the_score_has_a_trinomial_margin() {
        let s = score(20, 5, 15).unwrap();
        assert!((s.share - 0.5625).abs() < 1e-12);
        // Variance per game 0.21484375; 1.96 * sqrt(0.21484375 / 40).
        assert!((s.margin - 0.143_65).abs() < 1e-4, "{}", s.margin);
        assert!((s.elo - 43.658).abs() < 0.001, "{}", s.elo);
        let m = s.elo_margin.unwrap();
        assert!((m - 104.6).abs() < 0.05, "{m}");
        assert_eq!(score_line(20, 5, 15), "score 56.3% +- 14.4%, Elo difference +44 +- 105 (95%)");
        // All draws: no spread at all.
        assert_eq!(score_line(0, 10, 0), "score 50.0% +- 0.0%, Elo difference +0 +- 0 (95%)");
        // A clean sweep gives only a bound.
        assert_eq!(score_line(10, 0, 0), "score 100.0% (10/10), Elo difference +1200 (at least)");
        assert_eq!(score_line(0, 0, 4), "score 0.0% (0/4), Elo difference -1200 (at most)");
        assert!(score(0, 0, 0).is_none());
    }

    #[test]
    fn pairs_share_their_opening() {
        let v = Variant::by_id("chess").unwrap();
        let (a, ma) = opening(v, 1, 4, 4).unwrap();
        let (b, mb) = opening(v, 1, 5, 4).unwrap();
        let (c, _) = opening(v, 2, 4, 4).unwrap();
        assert_eq!(ma, mb);
        assert_eq!(ma.len(), 4);
        assert_eq!(a.position().fen(), b.position().fen());
        // Another seed, almost surely another opening.
        assert_ne!(a.position().fen(), c.position().fen());
    }
}
