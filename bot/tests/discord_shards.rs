//! Discord's shards against a fake Discord that shards as Discord does (a
//! guild's messages reach only the session of its shard, direct messages
//! only shard 0's): a process runs the range of shards it is given, answers
//! the guilds of those shards and reads back only their channels; two
//! processes with ranges side by side answer every guild, and only the one
//! holding shard 0 answers direct messages and registers the commands; the
//! clocks run for the games of the process's shards.
//! Mistakes in the settings are refused by `kibitz run` with what is wrong.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::crash::{log_of, start_bot, terminate};
use common::discord_api::{self, Discord};
use kibitz_bot::core::{Core, CoreConfig, Incoming, Reply, User};
use kibitz_bot::shards::Shards;
use kibitz_bot::{adapter, discord};
use kibitz_storage::{ChannelKey, Completion, Store, Timestamp};

const TOKEN: &str = "shards-test-token-QWERTYUIOPASDFGH";
const ALICE: (&str, &str) = ("11", "alice");
const WAIT: Duration = Duration::from_secs(40);
/// How long a message that is not to be answered is given to be answered.
const GRACE: Duration = Duration::from_millis(1500);
/// A channel in the guild of each of the four shards, and a direct message.
const CHANNELS: [u64; 4] = [7100, 7101, 7102, 7103];
const DM: u64 = 7200;
const ANSWER: &str = "Games I play";

/// A guild whose events go to `shard` of 4 (the low 22 bits do not count).
fn guild(shard: u64) -> u64 {
    ((40 + shard) << 22) | 0x2a_0017
}

fn core(dir: &std::path::Path) -> Arc<Core> {
    Arc::new(Core::new(Store::open(dir).unwrap(), CoreConfig { board_size: 120, ..CoreConfig::default() }))
}

/// A fake Discord recommending four shards, with a channel in a guild of
/// each and a direct message.
async fn sharded_discord() -> Arc<Discord> {
    let discord = discord_api::start(1 << 40).await;
    discord.recommend_shards(4);
    for (shard, &channel) in CHANNELS.iter().enumerate() {
        discord.put(channel, Some(guild(shard as u64)));
        assert_eq!(discord_api::shard_of(Some(guild(shard as u64)), 4), shard as u64);
    }
    discord.put(DM, None);
    discord
}

fn answers(discord: &Discord, channel: u64) -> usize {
    discord.texts(channel).iter().filter(|t| t.starts_with(ANSWER)).count()
}

fn shards(first: u32, last: u32, total: u32) -> Shards {
    Shards { first, last, total }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_answers_and_reads_back_only_the_guilds_of_its_shards() {
    let discord = sharded_discord().await;
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    // Before the start every channel has a reading position (as when the
    // shards were split otherwise before), and a command came after it.
    let mut commands = Vec::new();
    // A channel deleted since: Discord does not know it any more.
    const GONE: u64 = 7104;
    discord.delete_channel(GONE);
    for channel in CHANNELS.into_iter().chain([DM, GONE]) {
        let seen = discord.say(channel, ALICE, "hello");
        let done = Completion {
            platform: "discord".into(),
            cursor: Some((channel.to_string(), seen.to_string())),
            at: Timestamp::now(),
            ..Completion::default()
        };
        core.store().complete(&done).unwrap();
        commands.push(discord.say(channel, ALICE, "!variants"));
    }

    let (stop, shutdown) = adapter::shutdown_channel();
    let bot =
        tokio::spawn(discord::run_shards(core.clone(), TOKEN.into(), Some(discord.url()), shards(0, 1, 4), shutdown));
    let both = discord.until(WAIT, |d| d.connected_shards() == [(0, 4), (1, 4)]).await;
    assert!(both, "shards 0 and 1 did not both connect: {:?}", discord.identified());

    // Read back: the channels of shards 0 and 1, and the direct message.
    for channel in [CHANNELS[0], CHANNELS[1], DM] {
        let read = discord.until(WAIT, |d| answers(d, channel) == 1).await;
        assert!(read, "channel {channel} was not read back: {:?}", discord.texts(channel));
    }
    // Live: the guilds of shards 0 and 1 only.
    for channel in CHANNELS {
        discord.say(channel, ALICE, "!variants");
    }
    for channel in [CHANNELS[0], CHANNELS[1]] {
        let live = discord.until(WAIT, |d| answers(d, channel) == 2).await;
        assert!(live, "channel {channel}: {:?}", discord.texts(channel));
    }
    tokio::time::sleep(GRACE).await;
    for channel in [CHANNELS[2], CHANNELS[3]] {
        assert_eq!(discord.texts(channel), Vec::<String>::new(), "channel {channel} is another process's");
        assert!(!discord.reads().contains(&channel), "channel {channel}'s history was read: {:?}", discord.reads());
        let id = commands[CHANNELS.iter().position(|&c| c == channel).unwrap()].to_string();
        assert!(!core.store().is_handled("discord", &id).unwrap());
    }
    assert!(!discord.reads().contains(&GONE));
    assert_eq!(discord.identified(), [(0, 4), (1, 4)], "one IDENTIFY for each shard of the range");
    assert_eq!(discord.registrations(), 1, "the process holding shard 0 registers the commands");
    // Discord was asked once about each channel of the store: the answers
    // serve both shards (a deleted channel is not asked about again).
    let mut described = discord.described();
    described.sort_unstable();
    assert_eq!(described, [7100, 7101, 7102, 7103, 7104, DM]);

    stop.send(true).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(30), bot).await.expect("run stops");
    assert_eq!(ended.unwrap(), Ok(()));
    // The guilds that Discord was asked about are remembered for the next start.
    for (shard, &channel) in CHANNELS.iter().enumerate() {
        let noted = core.store().cursor("discord", &format!("guild/{channel}")).unwrap();
        assert_eq!(noted, Some(guild(shard as u64).to_string()), "channel {channel}");
    }
    assert_eq!(core.store().cursor("discord", &format!("guild/{DM}")).unwrap().as_deref(), Some("dm"));

    // Commands come in two guilds while the process is away; after a restart
    // it knows the channels' guilds and reads back its own guild's channel.
    let asked = discord.described().len();
    discord.say(CHANNELS[0], ALICE, "!variants");
    discord.say(CHANNELS[2], ALICE, "!variants");
    let (stop, shutdown) = adapter::shutdown_channel();
    let bot =
        tokio::spawn(discord::run_shards(core.clone(), TOKEN.into(), Some(discord.url()), shards(0, 1, 4), shutdown));
    let read = discord.until(WAIT, |d| answers(d, CHANNELS[0]) == 3).await;
    assert!(read, "not read back after the restart: {:?}", discord.texts(CHANNELS[0]));
    tokio::time::sleep(GRACE).await;
    assert!(discord.texts(CHANNELS[2]).is_empty(), "{:?}", discord.texts(CHANNELS[2]));
    assert_eq!(discord.described()[asked..], [GONE], "only the deleted channel is asked about again");
    stop.send(true).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(30), bot).await.expect("run stops");
    assert_eq!(ended.unwrap(), Ok(()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_answer_every_guild_and_only_shard_zero_answers_direct_messages() {
    let discord = sharded_discord().await;
    let (low_dir, high_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // A store each: every game lives in one guild's channel.
    let (low, high) = (core(low_dir.path()), core(high_dir.path()));
    let (stop, shutdown) = adapter::shutdown_channel();
    let url = Some(discord.url());
    let low_run =
        tokio::spawn(discord::run_shards(low.clone(), TOKEN.into(), url.clone(), shards(0, 1, 4), shutdown.clone()));
    let high_run = tokio::spawn(discord::run_shards(high.clone(), TOKEN.into(), url, shards(2, 3, 4), shutdown));
    let all = discord.until(WAIT, |d| d.connected_shards() == [(0, 4), (1, 4), (2, 4), (3, 4)]).await;
    assert!(all, "not every shard connected: {:?}", discord.identified());
    let mut identified = discord.identified();
    identified.sort_unstable();
    assert_eq!(identified, [(0, 4), (1, 4), (2, 4), (3, 4)]);

    let said: Vec<u64> = CHANNELS.iter().map(|&c| discord.say(c, ALICE, "!variants")).collect();
    let bid = discord.say(DM, ALICE, "/bid 12");
    let answered = discord.until(WAIT, |d| CHANNELS.iter().all(|&c| answers(d, c) == 1)).await;
    assert!(answered, "{:?}", CHANNELS.map(|c| discord.texts(c)));
    let private = discord.until(WAIT, |d| d.texts(DM).iter().any(|t| t.contains("no Clash of the Armies match"))).await;
    assert!(private, "the private bid was not answered: {:?}", discord.texts(DM));
    tokio::time::sleep(GRACE).await;
    for &channel in &CHANNELS {
        assert_eq!(answers(&discord, channel), 1, "channel {channel} answered once: {:?}", discord.texts(channel));
    }
    assert_eq!(discord.texts(DM).len(), 1, "the bid answered once: {:?}", discord.texts(DM));
    // Who answered: the process of the guild's shard, and shard 0's for the DM.
    for (i, id) in said.iter().enumerate() {
        let id = id.to_string();
        let (mine, other) = if i < 2 { (&low, &high) } else { (&high, &low) };
        assert!(mine.store().is_handled("discord", &id).unwrap(), "channel {} by its shard's process", CHANNELS[i]);
        assert!(!other.store().is_handled("discord", &id).unwrap(), "channel {} by the other", CHANNELS[i]);
    }
    assert!(low.store().is_handled("discord", &bid.to_string()).unwrap());
    assert!(!high.store().is_handled("discord", &bid.to_string()).unwrap());
    assert_eq!(discord.registrations(), 1, "the commands are registered once, by shard 0's process");

    stop.send(true).unwrap();
    for run in [low_run, high_run] {
        let ended = tokio::time::timeout(Duration::from_secs(30), run).await.expect("run stops");
        assert_eq!(ended.unwrap(), Ok(()));
    }
    // Each process noted the guilds of the channels its messages came from.
    let noted = |core: &Core, channel: u64| core.store().cursor("discord", &format!("guild/{channel}")).unwrap();
    assert_eq!(noted(&high, CHANNELS[2]), Some(guild(2).to_string()));
    assert_eq!(noted(&low, CHANNELS[1]), Some(guild(1).to_string()));
    assert_eq!(noted(&low, DM).as_deref(), Some("dm"));
    assert_eq!(noted(&high, CHANNELS[1]), None);
    assert!(discord.described().is_empty(), "no channel needed describing: {:?}", discord.described());
}

/// `who` says `text` in `channel` at `at`, straight to the core (as the
/// bot did before it stopped).
fn said(core: &Core, channel: u64, who: (&str, &str), text: &str, id: u64, at: u64) -> Vec<Reply> {
    core.handle(&Incoming {
        platform: "discord".into(),
        channel: channel.to_string(),
        sender: User { id: who.0.into(), name: who.1.into() },
        text: text.into(),
        message_id: Some(id.to_string()),
        at: Timestamp(at),
        private: false,
        manages: None,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clocks_run_the_games_of_the_shards_here_only() {
    const HOUR: u64 = 3_600_000;
    let discord = sharded_discord().await;
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    // Games of a day a move in the guilds of shards 0 and 2, whose day ran
    // out an hour ago (a store the shards were split otherwise for).
    let then = discord_api::now_ms() - 25 * HOUR;
    for (i, channel) in [CHANNELS[0], CHANNELS[2]].into_iter().enumerate() {
        let id = 1000 * (i as u64 + 1);
        said(&core, channel, ALICE, "/challenge @22 chess white days 1", id, then);
        said(&core, channel, ("22", "bob"), "/accept", id + 1, then);
        let replies = said(&core, channel, ALICE, "e4", id + 2, then);
        assert!(replies.iter().any(|r| r.text.contains("played e4")), "{replies:?}");
    }
    let (stop, shutdown) = adapter::shutdown_channel();
    let bot =
        tokio::spawn(discord::run_shards(core.clone(), TOKEN.into(), Some(discord.url()), shards(0, 1, 4), shutdown));
    let timed_out = discord.until(WAIT, |d| d.texts(CHANNELS[0]).iter().any(|t| t.contains("ran out of time"))).await;
    assert!(timed_out, "the clock of shard 0's game did not run: {:?}", discord.texts(CHANNELS[0]));
    tokio::time::sleep(GRACE).await;
    assert!(
        discord.texts(CHANNELS[2]).is_empty(),
        "shard 2's game is not this process's: {:?}",
        discord.texts(CHANNELS[2])
    );
    let running = |channel: u64| {
        let key = ChannelKey::new("discord", channel.to_string());
        let games = core.store().games_in_channel(&key).unwrap();
        games.into_iter().any(|(_, record)| record.is_ok_and(|r| r.result.is_none()))
    };
    assert!(!running(CHANNELS[0]) && running(CHANNELS[2]));
    stop.send(true).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(30), bot).await.expect("run stops");
    assert_eq!(ended.unwrap(), Ok(()));
}

fn config_with(dir: &std::path::Path, discord: &Discord, settings: &str) -> std::path::PathBuf {
    let config = dir.join("config.toml");
    let text = format!(
        "[bot]\ndatabase = {:?}\npictures = {:?}\nboard_size = 120\n\n[discord]\ntoken = {TOKEN:?}\nproxy = {:?}\n{settings}",
        dir.join("db").display().to_string(),
        dir.join("out").display().to_string(),
        discord.url(),
    );
    std::fs::write(&config, text).unwrap();
    config
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kibitz_run_runs_the_shards_of_its_configuration() {
    let discord = sharded_discord().await;
    discord.recommend_shards(6);
    let dir = tempfile::tempdir().unwrap();
    let config = config_with(dir.path(), &discord, "shards = \"1-2\"\ntotal_shards = 4\n");
    let mut bot = start_bot(&config);
    let up = discord.until(WAIT, |d| d.connected_shards() == [(1, 4), (2, 4)]).await;
    assert!(up, "shards 1 and 2 did not connect: {:?}\n{}", discord.identified(), log_of(&config));
    for channel in CHANNELS.into_iter().chain([DM]) {
        discord.say(channel, ALICE, "!variants");
    }
    for channel in [CHANNELS[1], CHANNELS[2]] {
        let answered = discord.until(WAIT, |d| answers(d, channel) == 1).await;
        assert!(answered, "channel {channel}: {:?}\n{}", discord.texts(channel), log_of(&config));
    }
    tokio::time::sleep(GRACE).await;
    for channel in [CHANNELS[0], CHANNELS[3], DM] {
        assert!(discord.texts(channel).is_empty(), "channel {channel}: {:?}", discord.texts(channel));
    }
    assert_eq!(discord.identified(), [(1, 4), (2, 4)]);
    assert_eq!(discord.registrations(), 0, "without shard 0 the commands are left to the process holding it");
    terminate(&mut bot.0);
    let status = bot.0.wait().unwrap();
    assert!(status.success(), "the bot ended with {status}\n{}", log_of(&config));
    let log = log_of(&config);
    assert!(!log.contains(TOKEN), "the token is never logged");
    assert!(log.contains("Discord recommends 6 shards for this bot; total_shards is 4"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kibitz_run_refuses_shard_settings_that_make_no_sense() {
    let discord = discord_api::start(1 << 40).await;
    for (settings, expected) in [
        ("shards = \"0-3\"\n", "[discord] shards needs total_shards too"),
        ("shards = \"0-8\"\ntotal_shards = 8\n", "is beyond total_shards = 8: the shards are numbered 0 to 7"),
        ("shards = \"3-1\"\ntotal_shards = 8\n", "the first shard comes first, as in \"1-3\""),
        ("shards = \"zero\"\ntotal_shards = 8\n", "is not a shard or a range of shards"),
        ("total_shards = 0\n", "[discord] total_shards must be 1 or more, not 0"),
        ("shards = 2\ntotal_shards = 8\n", "line 9: invalid type"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let config = config_with(dir.path(), &discord, settings);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kibitz"))
            .args(["run", "--config"])
            .arg(&config)
            .env_remove("KIBITZ_DISCORD_TOKEN")
            .env_remove("KIBITZ_TELEGRAM_TOKEN")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{settings:?} was accepted");
        assert!(stderr.starts_with("kibitz: ") && stderr.contains(expected), "{settings:?}: {stderr}");
        assert!(!stderr.contains(TOKEN) && !String::from_utf8_lossy(&out.stdout).contains(TOKEN));
        assert!(!dir.path().join("db").exists(), "{settings:?}: nothing was started");
    }
    assert_eq!(discord.identifies(), 0, "no process connected");
}
