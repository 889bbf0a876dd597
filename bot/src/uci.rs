//! `kibitz uci`: the search behind the Universal Chess Interface, on stdin
//! and stdout, with variants chosen as Fairy-Stockfish does (`UCI_Variant`).
//!
//! Positions and moves are written as the rules crate writes them, which for
//! chess, Olympic and Alapawn is exactly Fairy-Stockfish's FEN and move
//! notation (drops `P@c3`, Olympic promotions `d4d5+`).
//!
//! The search runs on a worker thread that owns the engine while it thinks,
//! so `stop`, `isready` and `quit` are answered at once.

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use kibitz_rules::search::{Engine, Found, Limits, Visit};
use kibitz_rules::{Color, Move, Position, VARIANTS, Variant};

const DEFAULT_HASH_MB: usize = 16;
const MAX_HASH_MB: usize = 1024;
const DEFAULT_OVERHEAD_MS: u64 = 30;
const MAX_OVERHEAD_MS: u64 = 5000;
/// Deeper than any search goes: "no depth limit".
const NO_DEPTH_LIMIT: u32 = 1000;
/// "No time limit" (the engine caps it further).
const NO_TIME_LIMIT: Duration = Duration::from_secs(86_400 * 365);

/// Where the protocol's lines go: stdout, one line at a time, flushed.
#[derive(Clone)]
struct Out(Arc<Mutex<()>>);

impl Out {
    fn line(&self, text: &str) {
        // The lock keeps the worker's lines and the main thread's apart.
        let _guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let mut stdout = std::io::stdout().lock();
        // A reader that went away is noticed by stdin's end, not here.
        let _ = writeln!(stdout, "{text}");
        let _ = stdout.flush();
    }

    fn error(&self, text: &str) {
        self.line(&format!("info string {text}"));
    }
}

/// The limits a `go` command gives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Go {
    movetime: Option<u64>,
    wtime: Option<u64>,
    btime: Option<u64>,
    winc: Option<u64>,
    binc: Option<u64>,
    movestogo: Option<u64>,
    depth: Option<u32>,
    nodes: Option<u64>,
    infinite: bool,
    ponder: bool,
}

impl Go {
    /// Reads the words after `go`; unknown words are errors.
    fn parse(words: &[&str]) -> Result<Go, String> {
        let mut go = Go::default();
        let mut i = 0;
        while i < words.len() {
            let key = words[i].to_ascii_lowercase();
            match key.as_str() {
                "infinite" => go.infinite = true,
                "ponder" => go.ponder = true,
                "movetime" | "wtime" | "btime" | "winc" | "binc" | "movestogo" | "depth" | "nodes" | "mate" => {
                    let Some(text) = words.get(i + 1) else {
                        return Err(format!("go: {key} wants a number"));
                    };
                    // Clocks may run below zero in some interfaces: read as 0.
                    let value: u64 = match text.parse::<i64>() {
                        Ok(v) => v.max(0) as u64,
                        Err(_) => return Err(format!("go: {key} wants a number, not '{text}'")),
                    };
                    match key.as_str() {
                        "movetime" => go.movetime = Some(value),
                        "wtime" => go.wtime = Some(value),
                        "btime" => go.btime = Some(value),
                        "winc" => go.winc = Some(value),
                        "binc" => go.binc = Some(value),
                        "movestogo" => go.movestogo = Some(value),
                        "depth" => go.depth = Some(value.min(u64::from(NO_DEPTH_LIMIT)) as u32),
                        "nodes" => go.nodes = Some(value),
                        // A mate search: as deep as a mate in that many moves.
                        _ => go.depth = Some(value.saturating_mul(2).min(u64::from(NO_DEPTH_LIMIT)) as u32),
                    }
                    i += 1;
                }
                "searchmoves" => return Err("go: searchmoves is not supported".into()),
                _ => return Err(format!("go: unknown word '{}'", words[i])),
            }
            i += 1;
        }
        Ok(go)
    }

    /// Whether the search's end waits for `stop` before `bestmove`.
    fn held(&self) -> bool {
        self.infinite || self.ponder
    }

    /// The engine's limits for the side `turn` with `overhead` kept back
    /// from the clock.
    fn limits(&self, turn: Color, overhead: Duration) -> Limits {
        let depth = self.depth.unwrap_or(NO_DEPTH_LIMIT);
        let mut limits = Limits::new(NO_TIME_LIMIT, depth);
        limits.nodes = self.nodes;
        if self.held() {
            return limits;
        }
        let (time, inc) = match turn {
            Color::White => (self.wtime, self.winc),
            Color::Black => (self.btime, self.binc),
        };
        // A clock for the other side only: none left for this one.
        let on_clock = self.wtime.is_some() || self.btime.is_some();
        let time = time.or(on_clock.then_some(0));
        if let Some(ms) = self.movetime {
            limits.time = Duration::from_millis(ms.max(1));
        } else if let Some(ms) = time {
            let (target, hard) = clock_budget(
                Duration::from_millis(ms),
                Duration::from_millis(inc.unwrap_or(0)),
                self.movestogo.filter(|&n| n > 0).unwrap_or(30),
                overhead,
            );
            limits.time = hard;
            limits.target = Some(target);
        }
        limits
    }
}

/// The time to aim for and the most to use on a clock with `remaining`
/// time, `inc` a move and `moves_to_go` moves to the next time control.
fn clock_budget(remaining: Duration, inc: Duration, moves_to_go: u64, overhead: Duration) -> (Duration, Duration) {
    let moves = u32::try_from(moves_to_go.max(1)).unwrap_or(u32::MAX);
    let target = remaining / moves + inc * 3 / 4;
    let hard = (remaining / 4).min(target * 4);
    let floor = Duration::from_millis(1);
    let hard = hard.saturating_sub(overhead).max(floor);
    let target = target.saturating_sub(overhead).max(floor).min(hard);
    (target, hard)
}

/// A search under way on the worker thread.
struct Running {
    handle: JoinHandle<Engine>,
    /// For a held search: `true` prints its `bestmove`, `false` drops it.
    release: mpsc::Sender<bool>,
    held: bool,
    /// A pondering search's `go`, searched for real on `ponderhit`.
    ponder: Option<Go>,
    /// Which search this is (its [`Event::Done`] names it).
    number: u64,
}

/// How [`Uci::finish_search`] ends a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// At once, with its `bestmove`.
    Stop,
    /// At once, without its `bestmove` (a ponder search on `ponderhit`).
    Silent,
    /// When its limits end it (a held search is stopped instead).
    Wait,
}

/// The engine's state between commands.
struct Uci {
    out: Out,
    variant: &'static Variant,
    /// The position to search and the game's earlier positions.
    position: Option<(Position, Vec<Visit>)>,
    hash_mb: usize,
    overhead: Duration,
    /// The engine while no search runs.
    engine: Option<Engine>,
    cancel: Arc<AtomicBool>,
    running: Option<Running>,
    /// Searches started so far.
    searches: u64,
    /// Where the worker says that its search ended.
    events: mpsc::Sender<Event>,
}

/// What the main loop waits for.
enum Event {
    /// A line of input.
    Line(String),
    /// The input ended (or could not be read: the message).
    End(Option<String>),
    /// The search with this number ended and printed its `bestmove`.
    Done(u64),
}

/// Commands that need the engine to themselves: while a search runs they
/// wait for it to end, and so does every command after them.
fn waits_for_the_search(word: &str) -> bool {
    matches!(word, "go" | "ucinewgame" | "setoption")
}

/// Runs the protocol on stdin and stdout until `quit` or the end of input.
pub fn run() -> Result<(), String> {
    let (events, received) = mpsc::channel();
    let input = events.clone();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut reader = stdin.lock();
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            let event = match reader.read_until(b'\n', &mut bytes) {
                Ok(0) => Event::End(None),
                Ok(_) => Event::Line(String::from_utf8_lossy(&bytes).trim().to_string()),
                Err(e) => Event::End(Some(format!("cannot read the input: {e}"))),
            };
            let last = matches!(event, Event::End(_));
            if input.send(event).is_err() || last {
                break;
            }
        }
    });
    let mut uci = Uci::new(events);
    // Commands waiting for the search under way to end, in order.
    let mut waiting: VecDeque<String> = VecDeque::new();
    let mut result = Ok(());
    while let Ok(event) = received.recv() {
        match event {
            Event::Line(line) => {
                let word = line.split_whitespace().next().unwrap_or("");
                // Answered at once, even during a search.
                let at_once =
                    matches!(word, "stop" | "quit" | "ponderhit") || (word == "isready" && waiting.is_empty());
                if uci.running.is_some() && !at_once && (!waiting.is_empty() || waits_for_the_search(word)) {
                    waiting.push_back(line);
                    continue;
                }
                if !uci.command(&line) {
                    break;
                }
            }
            Event::End(error) => {
                result = error.map_or(Ok(()), Err);
                break;
            }
            Event::Done(number) => {
                if uci.running.as_ref().is_some_and(|r| r.number == number) {
                    uci.finish_search(End::Wait);
                }
            }
        }
        // The waiting commands run, up to one that must wait for a search
        // one of them started.
        while let Some(line) = waiting.pop_front() {
            let word = line.split_whitespace().next().unwrap_or("");
            if uci.running.is_some() && waits_for_the_search(word) {
                waiting.push_front(line);
                break;
            }
            if !uci.command(&line) {
                return finish(uci, Ok(()));
            }
        }
    }
    finish(uci, result)
}

/// Stops the search under way, if any, and ends.
fn finish(mut uci: Uci, result: Result<(), String>) -> Result<(), String> {
    uci.finish_search(End::Stop);
    result
}

impl Uci {
    fn new(events: mpsc::Sender<Event>) -> Uci {
        let engine = Engine::new(DEFAULT_HASH_MB);
        let cancel = engine.cancel_flag();
        Uci {
            out: Out(Arc::new(Mutex::new(()))),
            variant: VARIANTS[0],
            position: None,
            hash_mb: DEFAULT_HASH_MB,
            overhead: Duration::from_millis(DEFAULT_OVERHEAD_MS),
            engine: Some(engine),
            cancel,
            running: None,
            searches: 0,
            events,
        }
    }

    /// Handles one line; `false` once the engine should quit.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&first) = words.first() else { return true };
        let rest = &words[1..];
        match first {
            "uci" => self.identify(),
            "isready" => self.out.line("readyok"),
            "debug" => {}
            "ucinewgame" => {
                self.finish_search(End::Wait);
                if let Some(engine) = self.engine.as_mut() {
                    engine.clear();
                }
            }
            "setoption" => self.set_option(rest),
            "position" => self.set_position(rest),
            "go" => self.go(rest),
            "stop" => self.finish_search(End::Stop),
            "ponderhit" => self.ponderhit(),
            "eval" => self.static_evaluation(),
            "quit" => return false,
            _ => {
                let shown: String = line.chars().take(80).collect();
                self.out.error(&format!("unknown command: {shown}"));
            }
        }
        true
    }

    fn identify(&self) {
        let out = &self.out;
        out.line(&format!("id name Kibitz {}", env!("CARGO_PKG_VERSION")));
        out.line("id author The Kibitz developers");
        out.line(&format!("option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"));
        out.line("option name Threads type spin default 1 min 1 max 1");
        let vars: Vec<String> = VARIANTS.iter().map(|v| format!("var {}", v.id)).collect();
        out.line(&format!("option name UCI_Variant type combo default {} {}", VARIANTS[0].id, vars.join(" ")));
        out.line(&format!(
            "option name Move Overhead type spin default {DEFAULT_OVERHEAD_MS} min 0 max {MAX_OVERHEAD_MS}"
        ));
        out.line("uciok");
    }

    /// `setoption name NAME [value VALUE]`.
    fn set_option(&mut self, words: &[&str]) {
        if !words.first().is_some_and(|w| w.eq_ignore_ascii_case("name")) {
            self.out.error("setoption wants: setoption name NAME value VALUE");
            return;
        }
        let words = &words[1..];
        let split = words.iter().position(|w| w.eq_ignore_ascii_case("value"));
        let (name, value) = match split {
            Some(i) => (words[..i].join(" "), Some(words[i + 1..].join(" "))),
            None => (words.join(" "), None),
        };
        let value = value.unwrap_or_default();
        let spin = |min: u64, max: u64| -> Result<u64, String> {
            match value.parse::<u64>() {
                Ok(v) if (min..=max).contains(&v) => Ok(v),
                _ => Err(format!("{name} wants a whole number from {min} to {max}, not '{value}'")),
            }
        };
        let result = match name.to_ascii_lowercase().as_str() {
            "hash" => spin(1, MAX_HASH_MB as u64).map(|mb| {
                self.finish_search(End::Wait);
                self.hash_mb = mb as usize;
                let engine = Engine::new(self.hash_mb);
                self.cancel = engine.cancel_flag();
                self.engine = Some(engine);
            }),
            "threads" => spin(1, 1).map(|_| ()),
            "move overhead" => spin(0, MAX_OVERHEAD_MS).map(|ms| self.overhead = Duration::from_millis(ms)),
            "uci_variant" => match Variant::by_id(&value) {
                Some(v) => {
                    self.variant = v;
                    self.position = None;
                    self.out.line(&format!("info string variant {} startpos {}", v.id, v.start_fen));
                    Ok(())
                }
                None => {
                    let known: Vec<&str> = VARIANTS.iter().map(|v| v.id).collect();
                    Err(format!("unknown variant '{value}' (known: {})", known.join(", ")))
                }
            },
            "" => Err("setoption wants an option name".into()),
            _ => Err(format!("unknown option: {name}")),
        };
        if let Err(e) = result {
            self.out.error(&e);
        }
    }

    /// `position startpos|fen FEN [moves ...]`: on any error the position
    /// stays as it was.
    fn set_position(&mut self, words: &[&str]) {
        match read_position(self.variant, words) {
            Ok(found) => self.position = Some(found),
            Err(e) => self.out.error(&e),
        }
    }

    /// The position to search: the last one set, or the variant's start.
    fn current(&self) -> Result<(Position, Vec<Visit>), String> {
        match &self.position {
            Some(p) => Ok(p.clone()),
            None => start_position(self.variant).map(|p| (p, Vec::new())),
        }
    }

    /// `eval`: the search's static evaluation of the current position (no
    /// search), in centipawns from White's side, as tuning tools want it.
    fn static_evaluation(&self) {
        match self.current() {
            Ok((pos, _)) => {
                let cp = kibitz_rules::search::evaluate(&pos);
                let white = if pos.turn() == Color::White { cp } else { -cp };
                self.out.line(&format!("info string evaluation {white} cp from White's side"));
            }
            Err(e) => self.out.error(&e),
        }
    }

    fn go(&mut self, words: &[&str]) {
        let go = match Go::parse(words) {
            Ok(go) => go,
            Err(e) => {
                self.out.error(&e);
                return;
            }
        };
        // The main loop holds a `go` back while a search runs; this is a safeguard.
        self.finish_search(End::Wait);
        let (pos, history) = match self.current() {
            Ok(p) => p,
            Err(e) => {
                self.out.error(&e);
                self.out.line("bestmove (none)");
                return;
            }
        };
        let engine = match self.engine.take() {
            Some(engine) => engine,
            None => {
                let engine = Engine::new(self.hash_mb);
                self.cancel = engine.cancel_flag();
                engine
            }
        };
        self.start_search(engine, pos, history, go);
    }

    fn start_search(&mut self, mut engine: Engine, pos: Position, history: Vec<Visit>, go: Go) {
        let limits = go.limits(pos.turn(), self.overhead);
        let held = go.held();
        self.cancel.store(false, Ordering::SeqCst);
        engine.set_history(&history);
        let (release, released) = mpsc::channel::<bool>();
        let out = self.out.clone();
        self.searches += 1;
        let number = self.searches;
        let events = self.events.clone();
        let spawned = std::thread::Builder::new().name("search".into()).spawn(move || {
            let found = engine.search_reporting(&pos, limits, &mut |f| out.line(&info_line(&pos, f)));
            // An infinite or pondering search answers only when told to.
            let print = !held || released.recv().unwrap_or(false);
            if print {
                out.line(&bestmove_line(&pos, found.as_ref()));
            }
            // The main loop may have ended already.
            let _ = events.send(Event::Done(number));
            engine
        });
        match spawned {
            Ok(handle) => {
                let ponder = go.ponder.then_some(Go { ponder: false, ..go });
                self.running = Some(Running { handle, release, held, ponder, number });
            }
            Err(e) => {
                self.out.error(&format!("cannot start the search: {e}"));
                self.out.line("bestmove (none)");
            }
        }
    }

    /// Ends the search under way, if any, and takes the engine back.
    fn finish_search(&mut self, end: End) {
        let Some(running) = self.running.take() else { return };
        // A held search never ends by itself: it is stopped whatever `end` says.
        if end != End::Wait || running.held {
            self.cancel.store(true, Ordering::SeqCst);
        }
        if running.held {
            let _ = running.release.send(end != End::Silent);
        }
        match running.handle.join() {
            Ok(engine) => self.engine = Some(engine),
            Err(_) => {
                self.out.error("the search failed; starting a fresh engine");
                let engine = Engine::new(self.hash_mb);
                self.cancel = engine.cancel_flag();
                self.engine = Some(engine);
            }
        }
        self.cancel.store(false, Ordering::SeqCst);
    }

    /// The move pondered on was played: search it for real, on the clock.
    fn ponderhit(&mut self) {
        let Some(go) = self.running.as_mut().and_then(|r| r.ponder.take()) else {
            self.out.error("ponderhit without a ponder search");
            return;
        };
        self.finish_search(End::Silent);
        let engine = self.engine.take().unwrap_or_else(|| Engine::new(self.hash_mb));
        self.cancel = engine.cancel_flag();
        match self.current() {
            Ok((pos, history)) => self.start_search(engine, pos, history, go),
            Err(e) => {
                self.engine = Some(engine);
                self.out.error(&e);
                self.out.line("bestmove (none)");
            }
        }
    }
}

/// The variant's start, if it has one.
fn start_position(v: &'static Variant) -> Result<Position, String> {
    if v.start_fen.trim().is_empty() {
        return Err(format!("{} has no fixed start position: use position fen", v.name));
    }
    Position::from_fen(v, v.start_fen).map_err(|e| format!("the start position of {}: {e}", v.name))
}

/// Reads `startpos|fen FEN [moves ...]`: the position reached and the
/// positions before it, oldest first.
fn read_position(v: &'static Variant, words: &[&str]) -> Result<(Position, Vec<Visit>), String> {
    let moves_at = words.iter().position(|w| w.eq_ignore_ascii_case("moves"));
    let (setup, moves) = match moves_at {
        Some(i) => (&words[..i], &words[i + 1..]),
        None => (words, &[][..]),
    };
    let mut pos = match setup.split_first() {
        Some((w, [])) if w.eq_ignore_ascii_case("startpos") => start_position(v)?,
        Some((w, fen)) if w.eq_ignore_ascii_case("fen") && !fen.is_empty() => {
            let text = fen.join(" ");
            Position::from_fen(v, &text).map_err(|e| format!("bad FEN '{text}': {e}"))?
        }
        _ => return Err("position wants: position startpos|fen FEN [moves MOVE ...]".into()),
    };
    let mut history = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let Some(m) = find_move(&pos, text) else {
            let shown: String = text.chars().take(32).collect();
            return Err(format!("illegal move {} ({shown}) in position {}", i + 1, pos.fen()));
        };
        history.push(Visit::of(&pos));
        pos.play_unchecked(m);
    }
    Ok((pos, history))
}

/// The legal move written `text` in canonical notation.
fn find_move(pos: &Position, text: &str) -> Option<Move> {
    pos.legal_moves().iter().copied().find(|m| pos.canonical(m) == text)
}

/// `info depth ... pv ...` for an iteration.
fn info_line(pos: &Position, f: &Found) -> String {
    let ms = f.elapsed.as_millis() as u64;
    let nps = f.nodes.saturating_mul(1000) / ms.max(1);
    let score = match (f.mate_in(), f.mated_in()) {
        (Some(n), _) => format!("mate {n}"),
        (_, Some(n)) => format!("mate -{n}"),
        _ => format!("cp {}", f.score),
    };
    format!(
        "info depth {} seldepth {} score {score} nodes {} nps {nps} time {ms} pv {}",
        f.depth,
        f.seldepth.max(f.depth),
        f.nodes,
        line_of(pos, &f.pv).join(" ")
    )
}

/// `bestmove M [ponder P]`, or `bestmove (none)` with no legal move.
fn bestmove_line(pos: &Position, found: Option<&Found>) -> String {
    let Some(f) = found else { return "bestmove (none)".into() };
    let mut line = format!("bestmove {}", pos.canonical(&f.best));
    if f.pv.first() == Some(&f.best)
        && let [_, reply, ..] = &line_of(pos, &f.pv)[..]
    {
        line.push_str(" ponder ");
        line.push_str(reply);
    }
    line
}

/// The canonical moves of a line, as far as they are legal.
fn line_of(pos: &Position, moves: &[Move]) -> Vec<String> {
    let mut p = pos.clone();
    let mut out = Vec::with_capacity(moves.len());
    for m in moves {
        if !p.is_legal(m) {
            break;
        }
        out.push(p.canonical(m));
        p.play_unchecked(*m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_budget_aims_for_a_share_and_keeps_the_overhead() {
        let ms = Duration::from_millis;
        // 60 s, no increment, 30 moves: 2 s aimed, 8 s at most, less 30 ms.
        assert_eq!(clock_budget(ms(60_000), ms(0), 30, ms(30)), (ms(1970), ms(7970)));
        // An increment adds three quarters of itself.
        assert_eq!(clock_budget(ms(60_000), ms(1000), 30, ms(0)), (ms(2750), ms(11_000)));
        // A quarter of the clock at most.
        assert_eq!(clock_budget(ms(1000), ms(0), 1, ms(0)), (ms(250), ms(250)));
        // Never below a millisecond.
        assert_eq!(clock_budget(ms(10), ms(0), 30, ms(30)), (ms(1), ms(1)));
    }

    #[test]
    fn go_reads_its_words() {
        let go = Go::parse(&["wtime", "1000", "btime", "-5", "winc", "10", "binc", "0", "movestogo", "5"]).unwrap();
        assert_eq!(go.wtime, Some(1000));
        assert_eq!(go.btime, Some(0));
        assert_eq!(go.movestogo, Some(5));
        assert!(Go::parse(&["depth"]).is_err());
        assert!(Go::parse(&["depth", "x"]).is_err());
        assert!(Go::parse(&["sideways"]).is_err());
        let limits = Go::parse(&["movetime", "200"]).unwrap().limits(Color::White, Duration::from_millis(30));
        assert_eq!(limits.time, Duration::from_millis(200));
        let limits = go.limits(Color::Black, Duration::ZERO);
        assert_eq!(limits.time, Duration::from_millis(1));
        // A clock for White only: Black, to move, has none left.
        let limits = Go::parse(&["wtime", "60000"]).unwrap().limits(Color::Black, Duration::ZERO);
        assert_eq!(limits.time, Duration::from_millis(1));
        let limits = Go::parse(&["wtime", "60000"]).unwrap().limits(Color::White, Duration::ZERO);
        assert_eq!(limits.time, Duration::from_millis(8000));
    }

    #[test]
    fn positions_keep_their_history() {
        let v = Variant::by_id("chess").unwrap();
        let (pos, history) = read_position(v, &["startpos", "moves", "g1f3", "g8f6", "f3g1", "f6g8"]).unwrap();
        assert_eq!(history.len(), 4);
        assert_eq!(history[0].hash, pos.hash());
        assert!(read_position(v, &["startpos", "moves", "e2e5"]).is_err());
        assert!(read_position(v, &["fen", "nonsense"]).is_err());
        assert!(read_position(v, &[]).is_err());
    }
}
