//! `kibitz uci`: scripted sessions over the Universal Chess Interface, and a
//! session driven by a UCI client library (python-chess).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kibitz_rules::{Position, VARIANTS, Variant};

const KIBITZ: &str = env!("CARGO_BIN_EXE_kibitz");

/// A running `kibitz uci` and the lines it has written.
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Session {
    fn start() -> Session {
        let mut child = Command::new(KIBITZ)
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("kibitz uci starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Session { child, stdin, lines }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The lines up to and including the first that `last` accepts.
    fn until(&mut self, timeout: Duration, last: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = last(&line);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("no expected line within {timeout:?} ({e}); got {seen:#?}"),
            }
        }
    }

    /// Everything written within `wait`.
    fn quiet_for(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            seen.push(line);
        }
        seen
    }

    /// The lines of a search up to its `bestmove`.
    fn search(&mut self, go: &str) -> Vec<String> {
        self.send(go);
        self.until(Duration::from_secs(20), |l| l.starts_with("bestmove"))
    }

    fn ready(&mut self) {
        self.send("isready");
        self.until(Duration::from_secs(10), |l| l == "readyok");
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bestmove(lines: &[String]) -> String {
    let last = lines.last().expect("a bestmove line");
    last.split_whitespace().nth(1).expect("bestmove has a move").to_string()
}

fn infos(lines: &[String]) -> Vec<&String> {
    lines.iter().filter(|l| l.starts_with("info depth")).collect()
}

/// The words after `key` in an info line, up to the next keyword.
fn field<'a>(line: &'a str, key: &str) -> Vec<&'a str> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(i) = words.iter().position(|w| *w == key) else { return Vec::new() };
    let keys = ["depth", "seldepth", "score", "nodes", "nps", "time", "pv"];
    words[i + 1..].iter().copied().take_while(|w| !keys.contains(w)).collect()
}

fn position_after(v: &'static Variant, fen: &str, moves: &[&str]) -> Position {
    let mut pos = Position::from_fen(v, fen).unwrap();
    for text in moves {
        let m = pos.legal_moves().iter().copied().find(|m| pos.canonical(m) == *text).expect("a legal move");
        pos.play_unchecked(m);
    }
    pos
}

fn is_legal(pos: &Position, text: &str) -> bool {
    pos.legal_moves().iter().any(|m| pos.canonical(m) == text)
}

const CHESS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn handshake_lists_the_options_and_every_variant() {
    let mut s = Session::start();
    s.send("uci");
    let lines = s.until(Duration::from_secs(10), |l| l == "uciok");
    assert!(lines[0].starts_with("id name Kibitz "), "{lines:?}");
    assert!(lines.contains(&"id author The Kibitz developers".to_string()));
    let vars: Vec<String> = VARIANTS.iter().map(|v| format!("var {}", v.id)).collect();
    let expected = [
        "option name Hash type spin default 16 min 1 max 1024".to_string(),
        "option name Threads type spin default 1 min 1 max 1".to_string(),
        format!("option name UCI_Variant type combo default chess {}", vars.join(" ")),
        "option name Move Overhead type spin default 30 min 0 max 5000".to_string(),
    ];
    for e in &expected {
        assert!(lines.contains(e), "missing {e:?} in {lines:#?}");
    }
    assert!(VARIANTS.len() >= 8 && lines.iter().any(|l| l.ends_with("var construction-split var clash")));
    s.ready();
    s.send("setoption name hash value 8");
    s.send("setoption name move overhead value 50");
    s.ready();
    assert!(s.quiet_for(Duration::from_millis(100)).is_empty(), "good options are set silently");
}

#[test]
fn a_depth_search_reports_its_line_and_a_legal_move() {
    let mut s = Session::start();
    s.send("uci");
    s.until(Duration::from_secs(10), |l| l == "uciok");
    s.send("ucinewgame");
    s.send("position startpos moves e2e4 e7e5");
    let lines = s.search("go depth 4");
    let best = bestmove(&lines);
    let pos = position_after(Variant::by_id("chess").unwrap(), CHESS_START, &["e2e4", "e7e5"]);
    assert!(is_legal(&pos, &best), "{best} in {lines:#?}");
    let infos = infos(&lines);
    assert!(!infos.is_empty());
    let last = infos.last().unwrap();
    assert_eq!(field(last, "depth"), ["4"], "{last}");
    assert_eq!(field(last, "pv").first(), Some(&best.as_str()), "{last}");
    for info in &infos {
        for key in ["seldepth", "nodes", "nps", "time"] {
            assert!(field(info, key).first().is_some_and(|n| n.parse::<u64>().is_ok()), "{key} in {info}");
        }
        let score = field(info, "score");
        assert!(score.len() == 2 && ["cp", "mate"].contains(&score[0]), "{info}");
        // The whole line is legal, move after move.
        let pv = field(info, "pv");
        let mut p = pos.clone();
        for text in pv {
            let m = p.legal_moves().iter().copied().find(|m| p.canonical(m) == text);
            let m = m.unwrap_or_else(|| panic!("{text} is illegal in the pv of {info}"));
            p.play_unchecked(m);
        }
    }
}

#[test]
fn timed_searches_answer_in_time() {
    let mut s = Session::start();
    s.send("position startpos");
    let t = Instant::now();
    let lines = s.search("go movetime 200");
    assert!(t.elapsed() < Duration::from_millis(1500), "{:?}", t.elapsed());
    assert!(is_legal(&Position::new(Variant::by_id("chess").unwrap()), &bestmove(&lines)));

    s.send("position startpos moves d2d4");
    let t = Instant::now();
    let lines = s.search("go wtime 1000 btime 1000 winc 0 binc 0");
    // A quarter of the clock at most; well under a second.
    assert!(t.elapsed() < Duration::from_millis(700), "{:?}", t.elapsed());
    let pos = position_after(Variant::by_id("chess").unwrap(), CHESS_START, &["d2d4"]);
    assert!(is_legal(&pos, &bestmove(&lines)));

    let lines = s.search("go nodes 5000");
    assert!(is_legal(&pos, &bestmove(&lines)));
    for info in infos(&lines) {
        let nodes: u64 = field(info, "nodes")[0].parse().unwrap();
        assert!(nodes <= 5000, "{info}");
    }
}

#[test]
fn an_infinite_search_answers_only_after_stop() {
    let mut s = Session::start();
    s.send("position startpos moves e2e4");
    s.send("go infinite");
    let early = s.quiet_for(Duration::from_millis(400));
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "{early:#?}");
    // Answered during the search.
    s.send("isready");
    s.until(Duration::from_millis(500), |l| l == "readyok");
    let t = Instant::now();
    s.send("stop");
    let lines = s.until(Duration::from_secs(2), |l| l.starts_with("bestmove"));
    assert!(t.elapsed() < Duration::from_millis(500), "{:?}", t.elapsed());
    let pos = position_after(Variant::by_id("chess").unwrap(), CHESS_START, &["e2e4"]);
    assert!(is_legal(&pos, &bestmove(&lines)));
    // A ponder search too, and then a normal search of the clock on ponderhit.
    s.send("go ponder wtime 2000 btime 2000");
    let early = s.quiet_for(Duration::from_millis(200));
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "{early:#?}");
    s.send("ponderhit");
    let lines = s.until(Duration::from_secs(3), |l| l.starts_with("bestmove"));
    assert!(is_legal(&pos, &bestmove(&lines)));
}

#[test]
fn chess_mate_in_one_is_scored_as_mate() {
    let mut s = Session::start();
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    let lines = s.search("go depth 5");
    assert_eq!(bestmove(&lines), "a1a8");
    let last = infos(&lines).last().cloned().unwrap();
    assert_eq!(field(last, "score"), ["mate", "1"], "{last}");
    s.send("position fen 7k/8/8/8/8/8/5PPP/r1r3K1 w - - 0 1");
    let lines = s.search("go depth 3");
    assert!(lines.last().unwrap().starts_with("bestmove (none)"), "{lines:?}");
    // The side to move is mated next move, whatever it plays: a negative mate.
    s.send("position fen 8/8/8/8/7P/1k6/3q4/K7 w - - 0 1");
    let lines = s.search("go depth 5");
    let last = infos(&lines).last().cloned().unwrap();
    assert_eq!(field(last, "score"), ["mate", "-1"], "{last}");
}

#[test]
fn olympic_through_uci_variant_finds_a_mating_drop() {
    let mut s = Session::start();
    s.send("setoption name UCI_Variant value olympic");
    let olympic = Variant::by_id("olympic").unwrap();
    let lines = s.until(Duration::from_secs(5), |l| l.starts_with("info string variant"));
    assert_eq!(lines.last().unwrap(), &format!("info string variant olympic startpos {}", olympic.start_fen));
    // No position: the variant's start.
    let lines = s.search("go depth 3");
    assert!(is_legal(&Position::new(olympic), &bestmove(&lines)));
    // A Gold in hand mates at a4 or b4 next to the White king.
    let fen = "k4/5/1K3/5/5[G] w - - 0 1";
    s.send(&format!("position fen {fen}"));
    let lines = s.search("go depth 4");
    let best = bestmove(&lines);
    assert!(best.starts_with("G@"), "{lines:#?}");
    let mut pos = Position::from_fen(olympic, fen).unwrap();
    let m = pos.legal_moves().iter().copied().find(|m| pos.canonical(m) == best).unwrap();
    pos.play_unchecked(m);
    assert!(pos.is_check() && pos.legal_moves().is_empty(), "{best} does not mate");
    let last = infos(&lines).last().cloned().unwrap();
    assert_eq!(field(last, "score"), ["mate", "1"], "{last}");
}

#[test]
fn history_makes_a_repetition_a_draw() {
    let mut s = Session::start();
    // Black, a queen down, returns to the first position a second time.
    let fen = "6k1/8/8/8/8/2K5/8/3Q4 w - - 0 1";
    s.send(&format!("position fen {fen} moves d1d2 g8h8 d2d1 h8g8 d1d2 g8h8 d2d1"));
    let lines = s.search("go depth 6");
    assert_eq!(bestmove(&lines), "h8g8");
    assert_eq!(field(infos(&lines).last().unwrap(), "score"), ["cp", "0"]);
    // The same position without its history is simply lost.
    let pos = position_after(Variant::by_id("chess").unwrap(), fen, &["d1d2", "g8h8", "d2d1"]);
    s.send(&format!("position fen {}", pos.fen()));
    let lines = s.search("go depth 6");
    let cp: i32 = field(infos(&lines).last().unwrap(), "score")[1].parse().unwrap();
    assert!(cp < -500, "{lines:#?}");
}

/// `eval` answers the static evaluation from White's side whoever is to
/// move: White a queen up is far ahead in both cases.
#[test]
fn eval_gives_the_static_evaluation_from_whites_side() {
    let mut s = Session::start();
    let mut seen = Vec::new();
    for fen in ["4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "4k3/8/8/8/8/8/8/3QK3 b - - 0 1", "3qk3/8/8/8/8/8/8/4K3 w - - 0 1"] {
        s.send(&format!("position fen {fen}"));
        s.send("eval");
        let lines = s.until(Duration::from_secs(5), |l| l.starts_with("info string evaluation"));
        let cp: i32 = lines.last().unwrap().split_whitespace().nth(3).unwrap().parse().unwrap();
        seen.push(cp);
    }
    assert!(seen[0] > 700 && seen[1] > 700 && seen[2] < -700, "{seen:?}");
}

#[test]
fn bad_input_is_answered_and_the_engine_goes_on() {
    let mut s = Session::start();
    s.send("position startpos moves e2e4");
    s.send("");
    s.send("flip the board");
    let lines = s.until(Duration::from_secs(5), |l| l.starts_with("info string"));
    assert_eq!(lines.last().unwrap(), "info string unknown command: flip the board");
    // An illegal move: the position stays 1.e4.
    s.send("position startpos moves e2e4 e7e5 e1e3");
    let lines = s.until(Duration::from_secs(5), |l| l.starts_with("info string"));
    assert!(lines.last().unwrap().contains("illegal move 3 (e1e3)"), "{lines:?}");
    s.send("position fen rnbqkbnr/pppppppp/9/8/8/8 w - - 0 1");
    let lines = s.until(Duration::from_secs(5), |l| l.starts_with("info string"));
    assert!(lines.last().unwrap().contains("bad FEN"), "{lines:?}");
    s.send("position sideways");
    s.until(Duration::from_secs(5), |l| l.starts_with("info string position wants"));
    for (command, answer) in [
        ("setoption name Ponder Harder value true", "info string unknown option: Ponder Harder"),
        ("setoption name Hash value lots", "info string Hash wants a whole number from 1 to 1024, not 'lots'"),
        ("setoption name Threads value 4", "info string Threads wants a whole number from 1 to 1, not '4'"),
        ("setoption name UCI_Variant value shogi", "info string unknown variant 'shogi'"),
        ("go depth", "info string go: depth wants a number"),
    ] {
        s.send(command);
        let lines = s.until(Duration::from_secs(5), |l| l.starts_with("info string"));
        assert!(lines.last().unwrap().starts_with(answer), "{command}: {lines:?}");
    }
    s.ready();
    let lines = s.search("go depth 3");
    let pos = position_after(Variant::by_id("chess").unwrap(), CHESS_START, &["e2e4"]);
    assert!(is_legal(&pos, &bestmove(&lines)), "{lines:?}");
    // A long game record is read whole: 40 plies of knight moves.
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"].repeat(10).join(" ");
    s.send(&format!("position startpos moves {shuffle} e2e4"));
    let lines = s.search("go depth 3");
    assert!(is_legal(&pos, &bestmove(&lines)), "{lines:?}");
    // Clash of the Armies starts from its chess-like army.
    s.send("setoption name UCI_Variant value clash");
    s.send("position startpos moves e2e4");
    let lines = s.search("go depth 2");
    assert!(bestmove(&lines) != "(none)", "{lines:?}");
}

#[test]
fn commands_sent_during_a_search_wait_their_turn() {
    let mut s = Session::start();
    // All at once, as a script would: the second search waits for the
    // first, and the position between them applies to the second only.
    s.send("position startpos\ngo depth 4\nposition startpos moves e2e4\ngo depth 4\nisready");
    let first = s.until(Duration::from_secs(20), |l| l.starts_with("bestmove"));
    // Answered once the second search has started, during it.
    let mut second = s.until(Duration::from_secs(20), |l| l == "readyok");
    if !second.iter().any(|l| l.starts_with("bestmove")) {
        second.extend(s.until(Duration::from_secs(20), |l| l.starts_with("bestmove")));
    }
    second.retain(|l| l != "readyok");
    let chess = Variant::by_id("chess").unwrap();
    assert!(is_legal(&Position::new(chess), &bestmove(&first)), "{first:#?}");
    assert!(is_legal(&position_after(chess, CHESS_START, &["e2e4"]), &bestmove(&second)), "{second:#?}");
    assert_eq!(infos(&second).last().map(|l| field(l, "depth")), Some(vec!["4"]));
    assert!(s.quiet_for(Duration::from_millis(200)).is_empty());
}

#[test]
fn the_end_of_input_quits() {
    let mut child = Command::new(KIBITZ)
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("kibitz uci starts");
    child.stdin.take().unwrap().write_all(b"uci\nisready\n\xff\xfe garbage\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("uciok\nreadyok\ninfo string unknown command:"), "{text}");
}

/// python-chess drives `kibitz uci` through a few moves of a game.
#[test]
fn a_uci_client_library_plays_through_it() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/uci/client.py");
    let out = Command::new("python3").arg(script).arg(KIBITZ).output();
    let missing = match &out {
        Err(e) => Some(format!("python3 cannot run: {e}")),
        Ok(o) if o.status.code() == Some(3) => Some(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        Ok(_) => None,
    };
    if let Some(why) = missing {
        let note = format!("{why}: pip install -r tests/fsf/requirements.txt");
        assert!(std::env::var_os("CI").is_none(), "{note}");
        eprintln!("skipped: {note}");
        return;
    }
    let out = out.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.lines().any(|l| l.starts_with("played ")), "{stdout}");
}
