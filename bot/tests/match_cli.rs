//! `kibitz match`: the bot's players against each other and against UCI
//! engines (`kibitz uci` itself, and fake engines that misbehave).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const KIBITZ: &str = env!("CARGO_BIN_EXE_kibitz");

fn kibitz(args: &[&str]) -> Output {
    Command::new(KIBITZ).args(args).output().expect("kibitz runs")
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "kibitz failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// An executable shell script in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Wins, draws and losses of the summary, checked against the game lines.
fn summary(text: &str, games: u32, variant: &str, first: &str, second: &str) -> (u32, u32, u32) {
    let lines: Vec<&str> = text.lines().collect();
    let game_lines: Vec<&&str> = lines.iter().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(game_lines.len(), games as usize, "{text}");
    for (i, line) in game_lines.iter().enumerate() {
        assert!(line.starts_with(&format!("game {}/{games}: ", i + 1)), "{line}");
        assert!(line.contains(" (White) ") && line.contains(" moves, "), "{line}");
    }
    let n = lines.len();
    assert!(n >= 2, "{text}");
    let head = format!("{games} games of {variant}: {first} +");
    let rest = lines[n - 2].strip_prefix(&head).unwrap_or_else(|| panic!("{:?} is not {head:?}...", lines[n - 2]));
    let (counts, against) = rest.split_once(" against ").unwrap();
    assert_eq!(against, second);
    let counts: Vec<u32> = counts.split(' ').map(|c| c.trim_start_matches(['+', '=', '-']).parse().unwrap()).collect();
    let (w, d, l) = (counts[0], counts[1], counts[2]);
    assert_eq!(w + d + l, games, "{text}");
    let score = lines[n - 1];
    assert!(score.starts_with("score ") && score.contains("Elo difference"), "{score}");
    (w, d, l)
}

#[test]
fn level1_against_random() {
    let out = stdout(&kibitz(&["match", "--first", "level1", "--second", "random", "--games", "2", "--time", "20"]));
    summary(&out, 2, "Chess", "level1", "random");
}

#[test]
fn kibitz_uci_plays_level2_in_chess_and_olympic() {
    let dir = tempfile::tempdir().unwrap();
    let wrapper = script(dir.path(), "kibitz-uci", &format!("exec '{KIBITZ}' uci\n"));
    let engine = format!("uci:{}", wrapper.display());
    for (variant, name, threads) in [("chess", "Chess", "1"), ("olympic", "Olympic Chess", "2")] {
        let out = stdout(&kibitz(&[
            "match",
            "--variant",
            variant,
            "--first",
            "level2",
            "--second",
            &engine,
            "--games",
            "2",
            "--time",
            "50",
            "--concurrency",
            threads,
        ]));
        summary(&out, 2, name, "level2", &engine);
    }
}

#[test]
fn a_missing_engine_is_a_clear_error() {
    let out = kibitz(&["match", "--second", "uci:/no/such/engine", "--games", "2"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot start the engine uci:/no/such/engine"), "{err}");
    let out = kibitz(&["match", "--second", "uci:", "--games", "2"]);
    assert!(!out.status.success());
    let out = kibitz(&["match", "--second", "random", "--uci-option", "Hash", "--games", "2"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--uci-option wants NAME=VALUE"));
}

/// Answers the handshake like an engine; `on_go` is what it does on `go`.
fn fake_engine(on_go: &str) -> String {
    format!(
        "while read line; do\n  case \"$line\" in\n    uci) echo 'id name Fake'; echo 'option name UCI_Variant type \
         combo default chess var chess'; echo uciok ;;\n    isready) echo readyok ;;\n    go*) {on_go} ;;\n    quit) \
         exit 0 ;;\n  esac\ndone\n"
    )
}

#[test]
fn an_engine_that_answers_an_illegal_move_loses_and_the_match_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let fake = script(dir.path(), "illegal", &fake_engine("echo 'info depth 1'; echo 'bestmove e2e5'"));
    let engine = format!("uci:{}", fake.display());
    let out = kibitz(&["match", "--first", "level1", "--second", &engine, "--games", "2", "--time", "20"]);
    let text = stdout(&out);
    assert_eq!(summary(&text, 2, "Chess", "level1", &engine), (2, 0, 0));
    assert!(text.contains("answered the illegal move 'e2e5'"), "{text}");
    let warnings = String::from_utf8_lossy(&out.stderr);
    assert_eq!(warnings.matches("warning").count(), 2, "{warnings}");
    assert!(warnings.contains(&engine), "{warnings}");
}

#[test]
fn an_engine_that_dies_loses_and_is_started_again() {
    let dir = tempfile::tempdir().unwrap();
    let fake = script(dir.path(), "dies", &fake_engine("exit 1"));
    let engine = format!("uci:{}", fake.display());
    let out = kibitz(&["match", "--first", &engine, "--second", "greedy", "--games", "3", "--time", "20"]);
    let text = stdout(&out);
    assert_eq!(summary(&text, 3, "Chess", &engine, "greedy"), (0, 0, 3));
    assert_eq!(text.matches("exited during the game").count(), 3, "{text}");
}

#[test]
fn the_results_do_not_depend_on_the_threads() {
    let run = |threads: &str| {
        stdout(&kibitz(&[
            "match",
            "--variant",
            "olympic",
            "--first",
            "greedy",
            "--second",
            "random",
            "--games",
            "6",
            "--seed",
            "9",
            "--opening-plies",
            "2",
            "--concurrency",
            threads,
        ]))
    };
    let one = run("1");
    summary(&one, 6, "Olympic Chess", "greedy", "random");
    assert_eq!(one, run("3"));
}

#[test]
fn an_engine_that_does_not_answer_loses_on_time_and_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    // Stuck for good on `go`: it has to be killed.
    let fake = script(dir.path(), "stuck", &fake_engine("exec sleep 60"));
    let engine = format!("uci:{}", fake.display());
    let started = std::time::Instant::now();
    let out = kibitz(&["match", "--first", "random", "--second", &engine, "--games", "1", "--time", "1"]);
    let text = stdout(&out);
    assert_eq!(summary(&text, 1, "Chess", "random", &engine), (1, 0, 0));
    assert!(text.contains("did not answer within 5010 ms"), "{text}");
    // Ten times the move time and 5 s, then it is killed, not waited for.
    assert!(started.elapsed() < std::time::Duration::from_secs(8), "{:?}", started.elapsed());
}

/// The games of a PGN file: each game's tags and its movetext.
fn pgn_games(text: &str) -> Vec<(Vec<(String, String)>, String)> {
    let mut games = Vec::new();
    let (mut tags, mut moves) = (Vec::new(), String::new());
    for line in text.lines() {
        if let Some(tag) = line.strip_prefix('[') {
            if !moves.is_empty() {
                games.push((std::mem::take(&mut tags), std::mem::take(&mut moves)));
            }
            let (name, value) = tag.trim_end_matches(']').split_once(' ').unwrap();
            tags.push((name.to_string(), value.trim_matches('"').to_string()));
        } else if !line.trim().is_empty() {
            moves.push_str(line);
            moves.push(' ');
        }
    }
    if !tags.is_empty() {
        games.push((tags, moves));
    }
    games
}

#[test]
fn games_are_written_as_pgn_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.pgn");
    let out = stdout(&kibitz(&[
        "match",
        "--variant",
        "olympic",
        "--first",
        "level1",
        "--second",
        "random",
        "--games",
        "4",
        "--time",
        "10",
        "--concurrency",
        "2",
        "--pgn",
        path.to_str().unwrap(),
    ]));
    summary(&out, 4, "Olympic Chess", "level1", "random");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("game ")).collect();
    let games = pgn_games(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(games.len(), 4);
    let olympic = kibitz_rules::Variant::by_id("olympic").unwrap();
    for (i, (tags, movetext)) in games.iter().enumerate() {
        let tag = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str()).unwrap_or("");
        assert_eq!(tag("Round"), (i + 1).to_string());
        assert_eq!(tag("Variant"), "Olympic Chess");
        // The first player has White in the even games (counted from 0).
        let (white, black) = if i % 2 == 0 { ("level1", "random") } else { ("random", "level1") };
        assert_eq!((tag("White"), tag("Black")), (white, black));
        let line = lines[i];
        assert!(line.contains(&format!(" (White) {} ", tag("Result"))), "{line} against {tags:?}");
        assert!(line.ends_with(tag("Termination")), "{line} against {tags:?}");
        // The moves replay by the rules from the start, to the result given.
        assert!(movetext.contains("{end of the random opening}"), "{movetext}");
        let mut game = kibitz_rules::Game::new(olympic);
        let mut tokens: Vec<&str> = Vec::new();
        let mut in_comment = false;
        for t in movetext.split_whitespace() {
            if t.starts_with('{') || in_comment {
                in_comment = !t.ends_with('}');
                continue;
            }
            tokens.push(t);
        }
        assert_eq!(tokens.pop(), Some(tag("Result")));
        for t in tokens.into_iter().filter(|t| !t.ends_with('.')) {
            let m = game.position().parse_move(t).unwrap_or_else(|e| panic!("{t} in game {}: {e}", i + 1));
            game.play(m).unwrap();
        }
        let plies = line.split(", ").nth(1).unwrap().trim_end_matches(" moves").parse::<usize>().unwrap();
        assert_eq!(game.moves().len().div_ceil(2), plies, "{line}");
        if let Some(outcome) = game.outcome() {
            assert_eq!(outcome.score(), tag("Result"));
        }
    }
}

#[test]
fn an_unwritable_pgn_path_fails_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("games.pgn");
    let out = kibitz(&["match", "--games", "2", "--time", "10", "--pgn", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("game 1/2"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot write the games to") && stderr.contains("games.pgn"), "{stderr}");
}
