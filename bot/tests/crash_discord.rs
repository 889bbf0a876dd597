//! The `kibitz` binary killed (SIGKILL) at random moments while players send
//! bursts of moves through a Discord that behaves like Discord's (messages
//! posted while the bot is away are only in the channel's history; a nonce
//! used before creates no second message): no move is lost, none applied
//! twice, every move announced, none announced twice.

mod common;

use common::crash::{announced, announced_twice, log_of, random_game, start_bot, stored_sans, terminate};

use std::time::Duration;

use common::discord_api;
use kibitz_storage::{ChannelKey, Store};

const TOKEN: &str = "crash-test-discord-token-ABCDEFGHIJKLMNOP";
const CHANNELS: usize = 8;
const KILLS: usize = 50;
const ALICE: (&str, &str) = ("11", "alice");
const BOB: (&str, &str) = ("22", "bob");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_bursts_of_moves_on_discord_loses_nothing() {
    let discord = discord_api::start(1 << 40).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[bot]\ndatabase = {:?}\npictures = {:?}\nboard_size = 120\nhint_time_ms = 20\n\n[discord]\ntoken = {TOKEN:?}\nproxy = {:?}\n",
            db.display().to_string(),
            dir.path().join("out").display().to_string(),
            discord.url(),
        ),
    )
    .unwrap();
    let channels: Vec<u64> = (0..CHANNELS as u64).map(|i| 7000 + i).collect();

    let mut bot = start_bot(&config);
    assert!(discord.until(Duration::from_secs(30), |d| d.connected()).await, "no connection\n{}", log_of(&config));
    // Every channel gets a game.
    for &c in &channels {
        discord.say(c, ALICE, &format!("/challenge <@{}> chess white", BOB.0));
        discord.say(c, BOB, "/accept");
    }
    let started = discord
        .until(Duration::from_secs(60), |d| {
            channels.iter().all(|&c| d.texts(c).iter().any(|t| t.contains(&format!("<@{}> moves first", ALICE.0))))
        })
        .await;
    assert!(
        started,
        "the games did not start: {:?}\n{}",
        channels.iter().map(|&c| (c, discord.texts(c))).collect::<Vec<_>>(),
        log_of(&config)
    );

    let games: Vec<Vec<String>> = (0..CHANNELS).map(|i| random_game(2000 + i as u64 * 7919, 40)).collect();
    let mut next = [0usize; CHANNELS];
    let mut rng = fastrand::Rng::with_seed(23);
    let players = [ALICE, BOB];
    let mut while_away = 0;
    for round in 0..KILLS {
        // A burst: three games get two moves each, a little apart.
        for k in 0..3 {
            let i = (round * 3 + k) % CHANNELS;
            for _ in 0..2 {
                if next[i] < games[i].len() {
                    if !discord.connected() {
                        while_away += 1;
                    }
                    discord.say(channels[i], players[next[i] % 2], &games[i][next[i]]);
                    next[i] += 1;
                }
                tokio::time::sleep(Duration::from_millis(rng.u64(10..120))).await;
            }
        }
        // Killed at a random moment while the burst is being handled.
        tokio::time::sleep(Duration::from_millis(rng.u64(0..900))).await;
        bot.0.kill().unwrap();
        bot.0.wait().unwrap();
        let starts = discord.identifies();
        // Sometimes a move comes while the bot is down: only the history has it.
        if rng.bool() {
            let i = rng.usize(..CHANNELS);
            if next[i] < games[i].len() {
                discord.say(channels[i], players[next[i] % 2], &games[i][next[i]]);
                next[i] += 1;
                while_away += 1;
            }
        }
        bot = start_bot(&config);
        let back = discord.until(Duration::from_secs(20), |d| d.identifies() > starts).await;
        assert!(back, "the bot did not come back\n{}", log_of(&config));
    }

    // Everything settles: every move announced.
    let expected: usize = next.iter().sum();
    let settled = discord
        .until(Duration::from_secs(120), |d| {
            channels.iter().enumerate().all(|(i, &c)| {
                let seen = announced(&d.texts(c));
                games[i][..next[i]].iter().all(|san| seen.contains_key(san))
            })
        })
        .await;
    terminate(&mut bot.0);
    let status = bot.0.wait().unwrap();
    assert!(status.success(), "the bot ended with {status}");
    assert!(settled, "not every move was announced\n{}", log_of(&config));

    let store = Store::open(&db).unwrap();
    let mut lost = 0;
    let mut doubled = 0;
    let mut sent_twice = 0;
    for (i, &c) in channels.iter().enumerate() {
        let channel = ChannelKey::new("discord", c.to_string());
        let (_, record) = store.games_in_channel(&channel).unwrap().into_iter().next().expect("the game");
        let record = record.unwrap();
        let stored = stored_sans(&record);
        let sent = &games[i][..next[i]];
        lost += sent.len().saturating_sub(stored.len());
        doubled += stored.len().saturating_sub(sent.len());
        assert_eq!(stored, sent, "channel {c}: the moves stored are not the moves sent, in order");
        sent_twice += announced_twice(&format!("channel {c}"), sent, &discord.texts(c));
        // The reading position is the channel's last message handled.
        let cursor = store.cursor("discord", &c.to_string()).unwrap().expect("a reading position");
        let last_player_message = discord.history(c).into_iter().rev().find(|p| p.author != discord_api::APP);
        assert_eq!(Some(cursor), last_player_message.map(|p| p.id.to_string()), "channel {c}");
    }
    println!(
        "{KILLS} SIGKILLs, {expected} moves in {CHANNELS} games ({while_away} posted while the bot was away): \
         {lost} lost, {doubled} applied twice, {sent_twice} announcements shown twice, \
         {} replies sent again and recognised by their nonce, {} history pages read",
        discord.repeats(),
        discord.pages()
    );
    assert_eq!((lost, doubled, sent_twice), (0, 0, 0));
    assert_eq!(store.owed("discord").unwrap().len(), 0, "replies still owed after a clean stop");
}
