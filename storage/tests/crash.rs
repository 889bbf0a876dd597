//! A writer killed with SIGKILL at random moments loses nothing it acknowledged.
//!
//! The writer is this test binary itself, run again with `crash_writer` as its
//! only test and the store's directory in an environment variable. It plays
//! games in three threads and prints `ACK channel id ply move` after each move
//! returns (that is, after the durable commit), and `FIN channel id` after each
//! finished game. The parent kills it at a random moment, reopens the store,
//! and checks every acknowledged move and result, and every record.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use common::{game, mv};
use kibitz_storage::{ChannelKey, GameEnd, GameId, Outcome, Store, StoreError, Timestamp};

const WRITER_DIR: &str = "KIBITZ_STORAGE_CRASH_WRITER_DIR";
const WRITER_ROUND: &str = "KIBITZ_STORAGE_CRASH_WRITER_ROUND";
const ROUNDS: u32 = 8;
const WRITERS: usize = 3;

/// The writer's body; does nothing unless started by the test below.
#[test]
fn crash_writer() {
    let Some(dir) = std::env::var_os(WRITER_DIR) else { return };
    let round: u32 = std::env::var(WRITER_ROUND).unwrap().parse().unwrap();
    let store = Store::open(dir).unwrap();
    let writers: Vec<_> = (0..WRITERS)
        .map(|t| {
            let store = store.clone();
            thread::spawn(move || write_until_killed(&store, round, t))
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
}

fn write_until_killed(store: &Store, round: u32, thread: usize) {
    let channel = ChannelKey::new("crash", format!("r{round}t{thread}"));
    let (white, black) = (format!("w{thread}"), format!("b{thread}"));
    for n in 0.. {
        let mut g = game(store, &channel, &white, &black);
        for ply in 0..24 {
            let text = format!("m{ply}");
            let by = if ply % 2 == 0 { &white } else { &black };
            let message = format!("{round}/{thread}/{n}/{ply}");
            g = store.apply_move(&g.key, g.version, mv(&text, by, &message), &format!("fen {ply}")).unwrap();
            println!("ACK {} {} {ply} {text}", channel.channel, g.key.id);
        }
        let end = GameEnd {
            outcome: Outcome::WhiteWins,
            reason: "resignation".into(),
            at: Timestamp::now(),
            message_id: None,
        };
        store.finish_game(&g.key, g.version, &end).unwrap();
        println!("FIN {} {}", channel.channel, g.key.id);
    }
}

#[test]
fn acknowledged_moves_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let seed = fastrand::u64(..);
    let mut rng = fastrand::Rng::with_seed(seed);
    let started = Instant::now();
    let mut acks: Vec<String> = Vec::new();
    for round in 0..ROUNDS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["crash_writer", "--exact", "--nocapture", "--test-threads=1"])
            .env(WRITER_DIR, dir.path())
            .env(WRITER_ROUND, round.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (lines, received) = mpsc::channel();
        let reader = thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if line.starts_with("ACK ") || line.starts_with("FIN ") {
                    let _ = lines.send(line);
                }
            }
        });
        // Most rounds die mid-game; some die early, perhaps while the store is opening.
        let mut round_acks = Vec::new();
        if rng.u32(0..4) > 0 {
            round_acks.extend(received.recv_timeout(Duration::from_secs(10)).ok());
        }
        thread::sleep(Duration::from_millis(rng.u64(0..250)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        reader.join().unwrap();
        round_acks.extend(received.try_iter());
        println!("round {round}: {} acknowledgements before the kill", round_acks.len());
        acks.extend(round_acks);

        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.verify().unwrap().len(), 0, "seed {seed}, round {round}: {:?}", store.verify());
        for ack in &acks {
            check(&store, ack).unwrap_or_else(|e| panic!("seed {seed}, round {round}: {ack}: {e}"));
        }
    }
    println!("seed {seed}: {} acknowledgements checked in {:?}", acks.len(), started.elapsed());
    assert!(acks.len() > 100, "seed {seed}: only {} acknowledgements", acks.len());
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
}

/// Checks one acknowledged line against the reopened store.
fn check(store: &Store, ack: &str) -> Result<(), String> {
    let parts: Vec<&str> = ack.split(' ').collect();
    let key = ChannelKey::new("crash", parts[1]).game(GameId::parse(parts[2]).map_err(|e| e.to_string())?);
    let game = match store.game(&key) {
        Err(StoreError::GameOver(_)) => store.archived_game(&key),
        other => other,
    }
    .map_err(|e| e.to_string())?;
    match parts[..] {
        ["ACK", _, _, ply, text] => {
            let ply: usize = ply.parse().unwrap();
            match game.moves.get(ply) {
                Some(m) if m.text == text => Ok(()),
                found => Err(format!("move {ply} is {found:?}")),
            }
        }
        ["FIN", ..] if game.result.is_some() => Ok(()),
        _ => Err(format!("no result at version {}", game.version)),
    }
}
