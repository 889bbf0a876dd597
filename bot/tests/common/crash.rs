//! What the crash tests share: the `kibitz` binary run as a child process
//! (killed when a test ends early), its log, random games and reading the
//! announcements of moves.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use kibitz_rules::{Game, Variant};
use kibitz_storage::GameRecord;

/// The bot's process; killed if the test ends early.
pub struct Bot(pub Child);

impl Drop for Bot {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn start_bot(config: &Path) -> Bot {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(config.with_file_name("bot.log"))
        .expect("a log file");
    let child = Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .args(["run", "--config"])
        .arg(config)
        .env("RUST_LOG", "info,serenity=warn")
        .env_remove("KIBITZ_TELEGRAM_TOKEN")
        .env_remove("KIBITZ_DISCORD_TOKEN")
        .env_remove("KIBITZ_DISCORD_GUILD")
        .stdout(log.try_clone().expect("a log file"))
        .stderr(log)
        .spawn()
        .expect("kibitz starts");
    Bot(child)
}

pub fn log_of(config: &Path) -> String {
    let log = std::fs::read_to_string(config.with_file_name("bot.log")).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(60)..].join("\n")
}

/// A chess game of `plies` moves in SAN that does not end, from `seed`.
pub fn random_game(seed: u64, plies: usize) -> Vec<String> {
    let chess = Variant::by_id("chess").unwrap();
    for s in seed.. {
        let mut rng = fastrand::Rng::with_seed(s);
        let mut game = Game::new(chess);
        let mut sans = Vec::new();
        while sans.len() < plies && game.outcome().is_none() {
            let moves = game.legal_moves();
            let m = moves[rng.usize(..moves.len())];
            sans.push(game.play(m).unwrap().san);
        }
        if sans.len() == plies && game.outcome().is_none() {
            return sans;
        }
    }
    unreachable!()
}

pub fn terminate(child: &mut Child) {
    let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
}

/// How many times each SAN was announced as played in these texts.
pub fn announced(texts: &[String]) -> HashMap<String, usize> {
    let mut seen = HashMap::new();
    for t in texts {
        let mut rest = t.as_str();
        while let Some(i) = rest.find(" played ") {
            rest = &rest[i + 8..];
            let san: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
            *seen.entry(san.trim_end_matches('.').to_string()).or_insert(0) += 1;
        }
    }
    seen
}

/// Waits up to `limit` for `what` to hold of `state`.
pub async fn until<S>(state: &S, limit: Duration, what: impl Fn(&S) -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < deadline {
        if what(state) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    what(state)
}

/// A stored chess game's moves, in SAN.
pub fn stored_sans(record: &GameRecord) -> Vec<String> {
    let mut replay = Game::new(Variant::by_id("chess").unwrap());
    record
        .moves
        .iter()
        .map(|m| {
            let mv = replay.legal_moves().into_iter().find(|x| replay.position().canonical(x) == m.text).unwrap();
            replay.play(mv).unwrap().san
        })
        .collect()
}

/// How many announcements in `texts` there are beyond one for each move
/// `sent`; fails (naming `place`) if a move was not announced.
pub fn announced_twice(place: &str, sent: &[String], texts: &[String]) -> usize {
    let seen = announced(texts);
    let mut counts: HashMap<&String, usize> = HashMap::new();
    sent.iter().for_each(|s| *counts.entry(s).or_insert(0) += 1);
    let mut extra = 0;
    for (san, n) in counts {
        let got = seen.get(san).copied().unwrap_or(0);
        assert!(got >= n, "{place}: {san} announced {got} times for {n} moves");
        extra += got - n;
    }
    extra
}
