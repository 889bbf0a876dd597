//! The store's speed targets, measured: a durable move commit, and opening a
//! store of 10,000 games to list one player's games.

use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::embedded::SledStore;
use crate::{ChannelKey, GameSettings, MoveRecord, NewGame, Result, Timestamp};

const GAMES: usize = 10_000;
const CHANNELS: usize = 100;
const PLAYERS: usize = 2_000;
const MOVES_PER_GAME: usize = 40;
const COMMITS: usize = 300;
const OPENS: usize = 5;
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// What [`bench()`] measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchReport {
    /// Games in the store.
    pub games: usize,
    /// Time to fill the store (not durable per game; one flush at the end).
    pub fill: Duration,
    /// Durable move commits timed.
    pub commits: usize,
    /// Median time of one durable move commit (target: at most 1 ms).
    pub commit_median: Duration,
    /// 90th percentile of the same.
    pub commit_p90: Duration,
    /// Slowest of the same.
    pub commit_max: Duration,
    /// Opening the store, in the median run of open-and-list.
    pub open: Duration,
    /// Listing the player's games (read and decoded), in that run.
    pub list: Duration,
    /// Games the player has.
    pub listed: usize,
}

impl BenchReport {
    /// Opening the store and listing the player's games, in the median run (target: under 50 ms).
    pub fn open_and_list(&self) -> Duration {
        self.open + self.list
    }

    /// Whether both targets are met.
    pub fn meets_targets(&self) -> bool {
        self.commit_median <= Duration::from_millis(1) && self.open_and_list() < Duration::from_millis(50)
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "durable move commit: median {:.3} ms, p90 {:.3} ms, max {:.3} ms over {} commits (target: median at most 1 ms)",
            ms(self.commit_median),
            ms(self.commit_p90),
            ms(self.commit_max),
            self.commits
        )?;
        writeln!(
            f,
            "open {} games and list a player's {} games: {:.1} ms (open {:.1} ms, list {:.2} ms; median of {OPENS}; target: under 50 ms)",
            self.games,
            self.listed,
            ms(self.open_and_list()),
            ms(self.open),
            ms(self.list)
        )?;
        write!(f, "(filling the store took {:.1} s)", self.fill.as_secs_f64())
    }
}

/// Measures the store in a fresh database under `dir` (in a `kibitz-storage-bench`
/// folder, replaced if it exists, removed at the end).
///
/// Fills a store with 10,000 games of 40 moves each in 100 channels, times
/// 300 durable move commits on one game, then opens the store afresh five
/// times and lists one player's games (10 of them), reading every record.
pub fn bench(dir: &Path) -> Result<BenchReport> {
    let path = dir.join("kibitz-storage-bench");
    // A leftover from an interrupted run; absent is fine.
    let _ = std::fs::remove_dir_all(&path);
    let report = run(&path);
    let _ = std::fs::remove_dir_all(&path);
    report
}

fn run(path: &Path) -> Result<BenchReport> {
    let started = Instant::now();
    let mut store = SledStore::open(path)?;
    store.set_durable(false);
    let moves: Vec<MoveRecord> = (0..MOVES_PER_GAME)
        .map(|i| MoveRecord {
            text: ["e2e4", "e7e5", "g1f3", "b8c6"][i % 4].to_owned(),
            by: format!("player {}", i % 2),
            at: Timestamp(1_700_000_000_000 + i as u64 * 60_000),
            message_id: Some(format!("message {i}")),
        })
        .collect();
    for g in 0..GAMES {
        let c = g % CHANNELS;
        let i = g / CHANNELS;
        let channel = ChannelKey::new("discord", format!("channel {c}"));
        let seat = c * 2 * (GAMES / CHANNELS) + 2 * i;
        let game = store.create_game(
            &channel,
            &NewGame {
                variant: "chess".into(),
                white: format!("p{}", seat % PLAYERS),
                black: format!("p{}", (seat + 1) % PLAYERS),
                settings: GameSettings::default(),
                start_fen: START.into(),
                at: Timestamp(1_700_000_000_000),
                clash: None,
                bot: None,
            },
        )?;
        store.update_game(&game.key, game.version, None, |game| {
            game.moves.extend(moves.iter().cloned());
            for m in &mut game.moves {
                m.by = if m.by == "player 0" { game.white.clone() } else { game.black.clone() };
            }
            Ok(())
        })?;
    }
    store.flush()?;
    let fill = started.elapsed();

    store.set_durable(true);
    let store = crate::Store::from(store);
    let channel = ChannelKey::new("discord", "bench");
    let mut game = store.create_game(
        &channel,
        &NewGame {
            variant: "chess".into(),
            white: "ann".into(),
            black: "bob".into(),
            settings: GameSettings::default(),
            start_fen: START.into(),
            at: Timestamp::now(),
            clash: None,
            bot: None,
        },
    )?;
    let mut times = Vec::with_capacity(COMMITS);
    for i in 0..COMMITS {
        let mv = MoveRecord {
            text: moves[i % MOVES_PER_GAME].text.clone(),
            by: if i % 2 == 0 { "ann" } else { "bob" }.into(),
            at: Timestamp::now(),
            message_id: Some(format!("commit {i}")),
        };
        let t = Instant::now();
        game = store.apply_move(&game.key, game.version, mv, START)?;
        times.push(t.elapsed());
    }
    times.sort();
    drop(store);

    let mut runs = Vec::with_capacity(OPENS);
    for _ in 0..OPENS {
        let t = Instant::now();
        let store = SledStore::open(path)?;
        let open = t.elapsed();
        let t = Instant::now();
        let listing = store.games_of("discord", "p0")?;
        let listed = listing.into_iter().filter(|(_, g)| g.is_ok()).count();
        let list = t.elapsed();
        runs.push((open + list, open, list, listed));
    }
    runs.sort();
    let (_, open, list, listed) = runs[OPENS / 2];
    Ok(BenchReport {
        games: GAMES,
        fill,
        commits: COMMITS,
        commit_median: times[COMMITS / 2],
        commit_p90: times[COMMITS * 9 / 10],
        commit_max: times[COMMITS - 1],
        open,
        list,
        listed,
    })
}
