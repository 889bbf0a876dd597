//! The `kibitz` binary killed (SIGKILL) at random moments while players send
//! bursts of moves through a Bot API server that behaves like Telegram's
//! (it hands out unconfirmed updates again, and never confirmed ones): no
//! move is lost, none applied twice, every move announced.

mod common;

use common::crash::{announced, announced_twice, log_of, random_game, start_bot, stored_sans, terminate};

use std::time::Duration;

use common::telegram_api::{self, user};
use kibitz_storage::{ChannelKey, Store};

const TOKEN: &str = "424242:crash-test-token-ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const GROUPS: usize = 10;
const KILLS: usize = 50;
/// The Clash match's group.
const CLASH: i64 = -2000;
/// A Clash match's first round as its players type it: armies bought and
/// confirmed (CA10-CA12), then moves. (`true`: Alice speaks.)
const CLASH_SCRIPT: &[(bool, &str)] = &[
    (true, "/buy king"),
    (true, "/buy queen"),
    (true, "/buy pawn d2"),
    (true, "/buy pawn e2"),
    (true, "/ready"),
    (false, "/buy king"),
    (false, "/buy queen"),
    (false, "/buy pawn d7"),
    (false, "/buy pawn e7"),
    (false, "/ready"),
    (true, "e3"),
    (false, "e6"),
    (true, "d3"),
    (false, "d6"),
    (true, "Ke2"),
    (false, "Ke7"),
    (true, "Kf3"),
    (false, "Kf6"),
    (true, "Kg3"),
    (false, "Kg6"),
    (true, "Kh3"),
    (false, "Kh6"),
    (true, "Qe2"),
    (false, "Qe7"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_bursts_of_moves_loses_nothing() {
    let (server, addr) = telegram_api::start(TOKEN).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[bot]\ndatabase = {:?}\npictures = {:?}\nboard_size = 120\nhint_time_ms = 20\n\n[telegram]\ntoken = {TOKEN:?}\napi_url = \"http://{addr}\"\n",
            db.display().to_string(),
            dir.path().join("out").display().to_string(),
        ),
    )
    .unwrap();
    let alice = user(11, "alice");
    let bob = user(22, "bob");
    let groups: Vec<i64> = (0..GROUPS as i64).map(|i| -1000 - i).collect();

    let mut bot = start_bot(&config);
    // Every group gets a game.
    for &g in &groups {
        server.say(g, bob.clone(), "hello");
        server.say(g, alice.clone(), "/challenge @bob chess white");
        server.say(g, bob.clone(), "/accept");
    }
    server.say(CLASH, bob.clone(), "hello");
    server.say(CLASH, alice.clone(), "/challenge @bob clash white");
    server.say(CLASH, bob.clone(), "/accept");
    let started = server
        .until(Duration::from_secs(60), |s| {
            groups.iter().all(|&g| s.texts(g).iter().any(|t| t.contains("@alice moves first")))
                && s.texts(CLASH).iter().any(|t| t.contains("sets up first"))
        })
        .await;
    assert!(started, "the games did not start: {:#?}\nbot: {:?}\n{}", server.sent(), bot.0.try_wait(), log_of(&config));

    let games: Vec<Vec<String>> = (0..GROUPS).map(|i| random_game(1000 + i as u64 * 7919, 40)).collect();
    let mut next = [0usize; GROUPS];
    let mut rng = fastrand::Rng::with_seed(14);
    let players = [alice.clone(), bob.clone()];
    let mut clash_sent = 0;
    for round in 0..KILLS {
        // The match goes on too, a command a burst.
        if let Some(&(by_alice, text)) = CLASH_SCRIPT.get(clash_sent) {
            server.say(CLASH, if by_alice { alice.clone() } else { bob.clone() }, text);
            clash_sent += 1;
        }
        // A burst: three games get two moves each, a little apart.
        for k in 0..3 {
            let i = (round * 3 + k) % GROUPS;
            for _ in 0..2 {
                if next[i] < games[i].len() {
                    let san = &games[i][next[i]];
                    server.say(groups[i], players[next[i] % 2].clone(), san);
                    next[i] += 1;
                }
                tokio::time::sleep(Duration::from_millis(rng.u64(20..150))).await;
            }
        }
        // Killed at a random moment while the burst is being handled.
        tokio::time::sleep(Duration::from_millis(rng.u64(0..1200))).await;
        bot.0.kill().unwrap();
        bot.0.wait().unwrap();
        let starts = server.starts();
        bot = start_bot(&config);
        assert!(server.until(Duration::from_secs(20), |s| s.starts() > starts).await, "the bot did not come back");
    }

    // SIGTERM with a backlog of 26 moves: the bot stops only after it has
    // handled and confirmed what it received (the replies it still owes
    // wait in the outbox for the next start).
    let mut rng = fastrand::Rng::with_seed(26);
    for k in 0..26 {
        let i = k % GROUPS;
        if next[i] < games[i].len() {
            server.say(groups[i], players[next[i] % 2].clone(), &games[i][next[i]]);
            next[i] += 1;
        }
        tokio::time::sleep(Duration::from_millis(rng.u64(10..40))).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    terminate(&mut bot.0);
    let status = bot.0.wait().unwrap();
    assert!(status.success(), "the bot ended with {status}");
    assert_eq!(server.unconfirmed(), 0, "SIGTERM left updates unconfirmed");
    {
        let store = Store::open(&db).unwrap();
        for (i, &g) in groups.iter().enumerate() {
            let channel = ChannelKey::new("telegram", g.to_string());
            let (_, record) = store.games_in_channel(&channel).unwrap().into_iter().next().expect("the game");
            assert_eq!(record.unwrap().moves.len(), next[i], "group {g}: a move received before SIGTERM is missing");
        }
    }
    let starts = server.starts();
    bot = start_bot(&config);
    assert!(server.until(Duration::from_secs(20), |s| s.starts() > starts).await, "the bot did not come back");

    // Everything settles: every update confirmed, every move announced.
    let expected: usize = next.iter().sum();
    let clash_moves: Vec<&str> =
        CLASH_SCRIPT[..clash_sent].iter().map(|&(_, t)| t).filter(|t| !t.starts_with('/')).collect();
    let settled = server
        .until(Duration::from_secs(240), |s| {
            s.unconfirmed() == 0
                && groups.iter().enumerate().all(|(i, &g)| {
                    let seen = announced(&s.texts(g));
                    games[i][..next[i]].iter().all(|san| seen.contains_key(san))
                })
                && clash_moves.iter().all(|m| announced(&s.texts(CLASH)).contains_key(*m))
        })
        .await;
    terminate(&mut bot.0);
    let status = bot.0.wait().unwrap();
    assert!(status.success(), "the bot ended with {status}");
    assert!(settled, "not everything was answered: {} unconfirmed\n{}", server.unconfirmed(), log_of(&config));

    let store = Store::open(&db).unwrap();
    let mut lost = 0;
    let mut doubled = 0;
    let mut sent_twice = 0;
    let mut recaps = 0;
    for (i, &g) in groups.iter().enumerate() {
        let channel = ChannelKey::new("telegram", g.to_string());
        let (_, record) = store.games_in_channel(&channel).unwrap().into_iter().next().expect("the game");
        let record = record.unwrap();
        let stored = stored_sans(&record);
        let sent = &games[i][..next[i]];
        lost += sent.len().saturating_sub(stored.len());
        doubled += stored.len().saturating_sub(sent.len());
        assert_eq!(stored, sent, "group {g}: the moves stored are not the moves sent, in order");
        let texts = server.texts(g);
        recaps += texts.iter().filter(|t| t.starts_with("Game ") && t.contains(" played ")).count();
        sent_twice += announced_twice(&format!("group {g}"), sent, &texts);
    }
    // The Clash match: every command applied once, in order.
    let clash_texts = server.texts(CLASH);
    for bad in ["not your turn", "You already", "not ready", "Sorry"] {
        assert!(!clash_texts.iter().any(|t| t.contains(bad)), "{bad}: {clash_texts:#?}");
    }
    // Every purchase answered: by its own reply, or, where the bot died
    // after storing it and before storing the reply, by the recap that
    // answers its redelivery (the match as it stands).
    let bought = clash_texts.iter().filter(|t| t.contains(" buys a")).count();
    let recapped = clash_texts.iter().filter(|t| t.starts_with("Game ") && t.ends_with("army phase.")).count();
    assert!(bought + recapped >= 8, "not every purchase was answered: {clash_texts:#?}");
    let channel = ChannelKey::new("telegram", CLASH.to_string());
    let (_, record) = store.games_in_channel(&channel).unwrap().into_iter().next().expect("the match");
    let record = record.unwrap();
    // Each purchase applied once: round 1 starts from exactly the armies bought.
    assert!(record.start_fen.starts_with("3qk3/3pp3/8/8/8/8/3PP3/3QK3 "), "{}", record.start_fen);
    assert_eq!(record.moves.len(), clash_moves.len(), "the match's moves, once each");
    println!(
        "{KILLS} SIGKILLs, {expected} moves in {GROUPS} games: {lost} lost, {doubled} applied twice, \
         {sent_twice} announcements sent twice, {recaps} moves announced after a restart from the stored game; \
         a Clash match's {} commands applied once each",
        CLASH_SCRIPT.len()
    );
    assert_eq!((lost, doubled), (0, 0));
    assert_eq!(store.owed("telegram").unwrap().len(), 0, "replies still owed after a clean stop");
}
