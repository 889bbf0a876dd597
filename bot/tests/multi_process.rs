//! Two and three `kibitz run` processes on one PostgreSQL store (a schema
//! of the test server; skipped without one outside CI):
//!
//! - against the fake Discord, with the shards split between them: games in
//!   guilds of every shard are played to a result, every message answered
//!   once by one process, a sealed Clash bid by direct message (served by
//!   shard 0's process) counts for a match in a guild of shard 2, and
//!   `/games` anywhere lists the games the other processes stored;
//! - behind a fake load balancer in front of their Telegram webhooks: a game
//!   is played with its moves going to one process after another, and moves
//!   racing for the same turn through different processes never both apply;
//! - killed (SIGKILL) one at a time at random moments and started again
//!   while games go on: no acknowledged move is lost, none applied twice,
//!   every reply owed is sent (a survivor takes over a killed process's),
//!   and the others keep answering.
//!
//! Any process can answer for any game: all state is in the store.

mod common;

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use common::crash::{announced, random_game, stored_sans};
use common::discord_api::{self, Discord};
use common::multi::{Balancer, Proc, SharedStore, free_port, listening, tails};
use common::telegram_api::{self, Server, user};
use kibitz_bot::core::{Core, CoreConfig, Incoming, User};
use kibitz_rules::army::{Match, Phase, ULTIMATE_ROUND};
use kibitz_rules::{Color, Game, Variant};
use kibitz_storage::{ChannelKey, GameRecord, Store, Timestamp};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(40);

// ---------------------------------------------------------------- Discord

const DISCORD_TOKEN: &str = "multi-process-discord-token-ZXCVBNMLKJHG";
const ALICE: (&str, &str) = ("11", "alice");
const BOB: (&str, &str) = ("22", "bob");
const CAROL: (&str, &str) = ("33", "carol");
const DAVE: (&str, &str) = ("44", "dave");
/// A channel in a guild of each of the four shards.
const CHANNELS: [u64; 4] = [7100, 7101, 7102, 7103];
/// The Clash match's channel, in a guild of shard 2.
const ARENA: u64 = 7112;
/// Carol's and Dave's direct messages with the bot.
const CAROL_DM: u64 = 7233;
const DAVE_DM: u64 = 7244;
const FOOLS_MATE: [&str; 4] = ["f3", "e5", "g4", "Qh4#"];

/// A guild whose events go to `shard` of 4.
fn guild(shard: u64) -> u64 {
    ((40 + shard) << 22) | 0x2a_0017
}

async fn sharded_discord() -> Arc<Discord> {
    let discord = discord_api::start(1 << 40).await;
    discord.recommend_shards(4);
    for (shard, &channel) in CHANNELS.iter().enumerate() {
        discord.put(channel, Some(guild(shard as u64)));
    }
    discord.put(ARENA, Some(guild(2)));
    assert_eq!(discord_api::shard_of(Some(guild(2)), 4), 2);
    discord.put(CAROL_DM, None);
    discord.put(DAVE_DM, None);
    discord
}

fn discord_config(dir: &std::path::Path, discord: &Discord, store: &str, shards: &str) -> String {
    format!(
        "[bot]\ndatabase = {:?}\npictures = {:?}\nboard_size = 120\nhint_time_ms = 20\n\n\
         [storage]\npostgres = {store:?}\nworker_lease_seconds = 2\n\n\
         [discord]\ntoken = {DISCORD_TOKEN:?}\nproxy = {:?}\nshards = {shards:?}\ntotal_shards = 4\n",
        dir.join("db").display().to_string(),
        dir.join("out").display().to_string(),
        discord.url(),
    )
}

fn running_game(store: &Store, platform: &str, channel: &str) -> Option<GameRecord> {
    let games = store.games_in_channel(&ChannelKey::new(platform, channel)).unwrap();
    games.into_iter().find_map(|(_, r)| r.ok())
}

/// How many of `texts` contain `what`.
fn count(texts: &[String], what: &str) -> usize {
    texts.iter().filter(|t| t.contains(what)).count()
}

async fn discord_processes_share_one_store(label: &str, ranges: &[&str]) {
    let Some(store) = SharedStore::new(label) else { return };
    let discord = sharded_discord().await;
    let url = store.url();
    let mut procs: Vec<Proc> = ranges
        .iter()
        .map(|range| Proc::new(&format!("shards {range}"), |dir| discord_config(dir, &discord, &url, range)))
        .collect();
    procs[0].start();
    // The first process makes the store's tables; the others find them.
    let first = discord.until(WAIT, |d| !d.connected_shards().is_empty()).await;
    assert!(first, "no shard connected\n{}", tails(&procs));
    procs[1..].iter_mut().for_each(Proc::start);
    let all = discord.until(WAIT, |d| d.connected_shards() == [(0, 4), (1, 4), (2, 4), (3, 4)]).await;
    assert!(all, "not every shard connected: {:?}\n{}", discord.connected_shards(), tails(&procs));
    let mut identified = discord.identified();
    identified.sort_unstable();
    assert_eq!(identified, [(0, 4), (1, 4), (2, 4), (3, 4)], "each shard identified once, by one process");

    // A game in a guild of every shard, each stored by that shard's process.
    for &c in &CHANNELS {
        discord.say(c, ALICE, &format!("/challenge <@{}> chess white", BOB.0));
        discord.say(c, BOB, "/accept");
    }
    let started = discord
        .until(WAIT, |d| CHANNELS.iter().all(|&c| count(&d.texts(c), &format!("<@{}> moves first", ALICE.0)) > 0))
        .await;
    assert!(started, "{:?}\n{}", CHANNELS.map(|c| discord.texts(c)), tails(&procs));
    let ids: Vec<String> = CHANNELS
        .iter()
        .map(|c| running_game(&store, "discord", &c.to_string()).expect("a game").key.id.as_str().to_string())
        .collect();

    // `/games` in any guild lists the games every process stored.
    for &c in &CHANNELS {
        discord.say(c, ALICE, "/games");
    }
    let listed = discord.until(WAIT, |d| CHANNELS.iter().all(|&c| count(&d.texts(c), "Your games:") == 1)).await;
    assert!(listed, "{:?}\n{}", CHANNELS.map(|c| discord.texts(c)), tails(&procs));
    for &c in &CHANNELS {
        let texts = discord.texts(c);
        let listing = texts.iter().find(|t| t.contains("Your games:")).unwrap();
        for id in &ids {
            assert!(listing.contains(id.as_str()), "channel {c}: game {id} is not listed: {listing}");
        }
    }

    // A Clash match in a guild of shard 2, at its auction; the sealed bids
    // come by direct message, which only shard 0's process receives.
    discord.say(ARENA, CAROL, &format!("/challenge <@{}> clash white", DAVE.0));
    discord.say(ARENA, DAVE, "/accept");
    let begun = discord.until(WAIT, |d| count(&d.texts(ARENA), "sets up first") > 0).await;
    assert!(begun, "{:?}\n{}", discord.texts(ARENA), tails(&procs));
    let clash = running_game(&store, "discord", &ARENA.to_string()).expect("the match");
    let mut m = Match::new();
    m.round = ULTIMATE_ROUND;
    m.phase = Phase::Bidding;
    m.auction = Some(Default::default());
    store
        .update_game(&clash.key, clash.version, None, |g| {
            g.clash.as_mut().unwrap().state = Some(serde_json::to_value(&m).unwrap());
            Ok(())
        })
        .unwrap();
    discord.say(CAROL_DM, CAROL, "/bid 12.5");
    let sealed = discord.until(WAIT, |d| count(&d.texts(CAROL_DM), "Your sealed bid of 12.50 gold") == 1).await;
    assert!(sealed, "{:?}\n{}", discord.texts(CAROL_DM), tails(&procs));
    let noticed = discord.until(WAIT, |d| count(&d.texts(ARENA), "<@33> has sent a sealed bid") == 1).await;
    assert!(noticed, "the match's channel did not hear of the bid: {:?}", discord.texts(ARENA));
    assert!(!discord.texts(ARENA).iter().any(|t| t.contains("12.50")), "the bid is sealed: {:?}", discord.texts(ARENA));
    discord.say(DAVE_DM, DAVE, "/bid 10");
    let revealed = discord.until(WAIT, |d| count(&d.texts(DAVE_DM), "<@33> bid 12.50, <@44> bid 10.00") == 1).await;
    assert!(revealed, "{:?}\n{}", discord.texts(DAVE_DM), tails(&procs));
    let odds = discord.until(WAIT, |d| count(&d.texts(ARENA), "<@44> has draw odds") == 1).await;
    assert!(odds, "{:?}", discord.texts(ARENA));
    let clash = running_game(&store, "discord", &ARENA.to_string()).expect("the match");
    let m: Match = serde_json::from_value(clash.clash.as_ref().unwrap().state.clone().unwrap()).unwrap();
    assert_eq!(m.phase, Phase::Army { color: Color::White });
    assert_eq!(m.draw_odds, Some(Color::Black));
    assert_eq!(clash.clash.unwrap().sealed_bids.len(), 2);

    // Every game is played to its end.
    let mut said = Vec::new();
    for (i, san) in FOOLS_MATE.iter().enumerate() {
        for &c in &CHANNELS {
            said.push(discord.say(c, if i % 2 == 0 { ALICE } else { BOB }, san));
        }
    }
    let ended = discord.until(WAIT, |d| CHANNELS.iter().all(|&c| count(&d.texts(c), "played Qh4") > 0)).await;
    assert!(ended, "{:?}\n{}", CHANNELS.map(|c| discord.texts(c)), tails(&procs));
    let settled = discord.until(WAIT, |_| store.owed("discord").unwrap().is_empty()).await;
    assert!(settled, "replies still owed\n{}", tails(&procs));
    // A moment for any second answer to show.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    for id in &said {
        assert!(store.is_handled("discord", &id.to_string()).unwrap(), "message {id} was not handled");
    }
    for &c in CHANNELS.iter().chain(&[ARENA, CAROL_DM, DAVE_DM]) {
        let texts = discord.texts(c);
        let distinct: HashSet<&String> = texts.iter().collect();
        assert_eq!(distinct.len(), texts.len(), "channel {c}: an answer was sent twice: {texts:#?}");
        if CHANNELS.contains(&c) {
            for san in FOOLS_MATE {
                assert_eq!(count(&texts, &format!("played {san}")), 1, "channel {c}: {texts:#?}");
            }
            assert!(running_game(&store, "discord", &c.to_string()).is_none(), "channel {c}: the game goes on");
        }
    }
    let finished = store.archived_games_of("discord", ALICE.0, 10).unwrap();
    assert_eq!(finished.len(), CHANNELS.len());
    for (key, record) in finished {
        let record = record.unwrap();
        assert!(ids.contains(&key.id.as_str().to_string()), "{key:?}");
        assert!(record.result.is_some(), "{key:?} has no result");
        assert_eq!(stored_sans(&record), FOOLS_MATE, "{key:?}: every move once, in order");
    }
    assert_eq!(discord.registrations(), 1, "the commands are registered once, by shard 0's process");

    for p in &mut procs {
        let status = p.stop().await;
        assert!(status.success(), "{} ended with {status}\n{}", p.name, p.tail());
        let log = p.log();
        assert!(!log.contains(DISCORD_TOKEN), "{}: the token is in the log", p.name);
        assert!(!log.contains("panicked"), "{}: {log}", p.name);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_discord_processes_split_the_shards_and_share_the_games() {
    discord_processes_share_one_store("multi discord two", &["0-1", "2-3"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_discord_processes_split_the_shards_and_share_the_games() {
    discord_processes_share_one_store("multi discord three", &["0", "1", "2-3"]).await;
}

// ---------------------------------------------------------------- Telegram

/// Two processes may both take the same message (a delivery posted twice at
/// once) before either has stored its result: the one that finds the move
/// applied by the other answers with what the message did, as a retry is
/// answered, and not with a refusal ("not your turn") that would win the
/// race to be stored and leave the move unannounced.
#[test]
fn a_move_handled_a_second_time_is_answered_with_what_it_did() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let core = Core::new(store.clone(), CoreConfig { board_size: 120, ..CoreConfig::default() });
    let say = |who: &str, text: &str, id: &str| {
        let replies = core.handle(&Incoming {
            platform: "test".into(),
            channel: "c1".into(),
            sender: User { id: who.into(), name: who.into() },
            text: text.into(),
            message_id: Some(id.into()),
            at: Timestamp::now(),
            private: false,
            manages: None,
        });
        replies.iter().map(|r| r.text.clone()).collect::<Vec<_>>().join("\n")
    };
    say("alice", "/challenge @bob chess white", "m1");
    assert!(say("bob", "/accept", "m2").contains("moves first"));
    assert!(say("alice", "e4", "m3").contains("alice> played e4"));
    let again = say("alice", "e4", "m3");
    assert!(again.starts_with("Game ") && again.contains("alice> played e4."), "{again}");
    assert!(again.contains("bob>, your move"), "{again}");
    // Another message is refused as before.
    assert!(say("alice", "d4", "m4").starts_with("It is not your turn"));
    let record = running_game(&store, "test", "c1").unwrap();
    assert_eq!(stored_sans(&record), ["e4"]);
}

const TOKEN: &str = "565656:multi-process-token-ABCDEFGHIJKLMNOPQR";
const SECRET: &str = "Multi_Process-Secret-42";
const HOOK_URL: &str = "https://bot.example.org/kibitz/hook";
const HOOK_PATH: &str = "/kibitz/hook";

/// Telegram webhook processes on one store, and what they talk to.
struct Webhooks {
    server: Arc<Server>,
    procs: Vec<Proc>,
    addrs: Vec<SocketAddr>,
    balancer: Balancer,
    store: SharedStore,
}

impl Webhooks {
    async fn start(label: &str, n: usize) -> Option<Webhooks> {
        let store = SharedStore::new(label)?;
        let (server, api) = telegram_api::start(TOKEN).await;
        let url = store.url();
        let addrs: Vec<SocketAddr> = (0..n).map(|_| free_port()).collect();
        let procs = addrs
            .iter()
            .enumerate()
            .map(|(i, listen)| {
                Proc::new(&format!("process {i}"), |dir| {
                    format!(
                        "[bot]\ndatabase = {:?}\npictures = {:?}\nboard_size = 120\nhint_time_ms = 20\n\n\
                         [storage]\npostgres = {url:?}\nworker_lease_seconds = 2\n\n\
                         [telegram]\ntoken = {TOKEN:?}\napi_url = \"http://{api}\"\nwebhook_listen = \"{listen}\"\n\
                         webhook_url = {HOOK_URL:?}\nsecret_token = {SECRET:?}\n",
                        dir.join("db").display().to_string(),
                        dir.join("out").display().to_string(),
                    )
                })
            })
            .collect();
        let balancer = Balancer::new(&addrs, HOOK_PATH, SECRET);
        let mut hooks = Webhooks { server, procs, addrs, balancer, store };
        for i in 0..n {
            hooks.procs[i].start();
            hooks.wait_listening(i).await;
        }
        // A process may listen a moment before its setWebhook call arrives.
        let deadline = tokio::time::Instant::now() + WAIT;
        while hooks.server.webhooks().len() < n && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(hooks.server.webhooks(), vec![(HOOK_URL.to_string(), SECRET.to_string()); n]);
        Some(hooks)
    }

    async fn wait_listening(&mut self, i: usize) {
        let up = listening(self.addrs[i], WAIT).await;
        let alive = self.procs[i].alive();
        assert!(up && alive, "process {i} does not listen (running: {alive})\n{}", self.procs[i].tail());
    }

    /// `text` from `from` in `chat`, posted first to process `first`;
    /// returns the update once it was answered 2xx.
    async fn say_via(&self, first: usize, chat: i64, from: Value, text: &str) -> Value {
        let update = self.server.update(chat, from, text);
        let done = self.balancer.deliver_from(&update, first, WAIT).await;
        assert!(done.is_ok(), "{text:?} was never acknowledged: {done:?}\n{}", tails(&self.procs));
        update
    }

    fn handled(&self, update: &Value) -> bool {
        let m = &update["message"];
        self.store.is_handled("telegram", &format!("{}:{}", m["chat"]["id"], m["message_id"])).unwrap()
    }

    fn game(&self, chat: i64) -> Option<GameRecord> {
        running_game(&self.store, "telegram", &chat.to_string())
    }

    /// Starts a chess game between alice (White) and bob in `group`,
    /// through processes `first`, `first + 1`, ...
    async fn new_game(&self, group: i64, first: usize) {
        self.say_via(first, group, bob(), "hello").await;
        self.say_via(first + 1, group, alice(), "/challenge @bob chess white").await;
        self.say_via(first + 2, group, bob(), "/accept").await;
        assert!(self.game(group).is_some(), "no game in {group}");
    }

    /// Stops every process and checks their logs.
    async fn stop(mut self) {
        for p in &mut self.procs {
            let status = p.stop().await;
            assert!(status.success(), "{} ended with {status}\n{}", p.name, p.tail());
        }
        self.check_logs();
    }

    fn check_logs(&self) {
        for p in &self.procs {
            let log = p.log();
            assert!(!log.contains(TOKEN) && !log.contains(SECRET), "{}: a secret is in the log", p.name);
            assert!(!log.contains("panicked"), "{}: {}", p.name, p.tail());
        }
    }
}

fn alice() -> Value {
    user(11, "alice")
}

fn bob() -> Value {
    user(22, "bob")
}

fn message_id(update: &Value) -> String {
    let m = &update["message"];
    format!("{}:{}", m["chat"]["id"], m["message_id"])
}

fn chess_game(sans: &[String]) -> Game {
    let mut game = Game::new(Variant::by_id("chess").unwrap());
    for san in sans {
        game.play_text(san).unwrap();
    }
    game
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_goes_through_every_webhook_process_and_racing_moves_never_both_apply() {
    let Some(hooks) = Webhooks::start("multi webhook race", 3).await else { return };

    // A game whose moves go to one process after another.
    const ROUND: i64 = -3000;
    hooks.new_game(ROUND, 0).await;
    for (i, san) in FOOLS_MATE.iter().enumerate() {
        let update = hooks.say_via(i, ROUND, if i % 2 == 0 { alice() } else { bob() }, san).await;
        assert!(hooks.handled(&update), "{san}: acknowledged before it was stored");
    }
    let finished = hooks.store.archived_games_of("telegram", "11", 5).unwrap();
    assert_eq!(finished.len(), 1);
    let record = finished[0].1.as_ref().unwrap();
    assert!(record.result.is_some());
    assert_eq!(stored_sans(record), FOOLS_MATE);

    // Racing: for each turn, at once and each through another process, the
    // player to move sends a move, the same update comes again (Telegram
    // posting it twice), the player sends another move, and the opponent
    // sends a move for the same turn.
    const GROUPS: [i64; 3] = [-3101, -3102, -3103];
    const PLIES: usize = 4;
    for (g, &group) in GROUPS.iter().enumerate() {
        hooks.new_game(group, g).await;
    }
    let hooks = Arc::new(hooks);
    let mut races = Vec::new();
    for (g, &group) in GROUPS.iter().enumerate() {
        let hooks = hooks.clone();
        races.push(tokio::spawn(async move {
            let mut rng = fastrand::Rng::with_seed(77 + g as u64);
            let mut refused = 0;
            for ply in 0..PLIES {
                let before = hooks.game(group).expect("the game");
                let sans = stored_sans(&before);
                assert_eq!(sans.len(), ply, "group {group}: one move a turn");
                let game = chess_game(&sans);
                let moves = game.legal_moves();
                let first = moves[rng.usize(..moves.len())];
                let second = loop {
                    let m = moves[rng.usize(..moves.len())];
                    if m != first {
                        break m;
                    }
                };
                let san = |m| game.clone().play(m).unwrap().san;
                let (a, b) = (san(first), san(second));
                // The opponent's text is no move of theirs whichever move is played.
                let theirs_illegal = |text: &str| {
                    [first, second].iter().all(|&m| {
                        let mut after = game.clone();
                        after.play(m).unwrap();
                        after.position().parse_move(text).is_err()
                    })
                };
                let (mover, opponent) = if ply % 2 == 0 { (alice(), bob()) } else { (bob(), alice()) };
                let one = hooks.server.update(group, mover.clone(), &a);
                let two = hooks.server.update(group, mover, &b);
                let theirs = theirs_illegal(&a).then(|| hooks.server.update(group, opponent, &a));
                let base = rng.usize(..3);
                let balancer = &hooks.balancer;
                let (r1, r2, r3, r4) = tokio::join!(
                    balancer.deliver_from(&one, base, WAIT),
                    balancer.deliver_from(&one, base + 1, WAIT),
                    balancer.deliver_from(&two, base + 2, WAIT),
                    async {
                        match &theirs {
                            Some(u) => Some(balancer.deliver_from(u, base + 1, WAIT).await),
                            None => None,
                        }
                    },
                );
                for r in [r1, r2, r3].into_iter().chain(r4) {
                    assert!(r.is_ok(), "group {group} ply {ply}: {r:?}");
                }
                let after = hooks.game(group).expect("the game");
                assert_eq!(after.moves.len(), ply + 1, "group {group} ply {ply}: {a} or {b}, once: {:?}", after.moves);
                assert_eq!(after.version, before.version + 1, "group {group} ply {ply}: one change");
                let played = after.moves.last().unwrap();
                let which = [message_id(&one), message_id(&two)];
                assert!(
                    played.message_id.as_ref().is_some_and(|id| which.contains(id)),
                    "group {group} ply {ply}: {played:?} is from neither racing move"
                );
                if theirs.is_some() {
                    refused += 1;
                }
            }
            refused
        }));
    }
    let mut refusals = 0;
    for race in races {
        refusals += race.await.expect("the race");
    }
    for &group in &GROUPS {
        let record = hooks.game(group).expect("the game");
        let ids: HashSet<&Option<String>> = record.moves.iter().map(|m| &m.message_id).collect();
        assert_eq!(ids.len(), PLIES, "group {group}: a message applied twice: {:?}", record.moves);
    }
    // Every move announced once; the losing racers refused.
    let announced_all = hooks
        .server
        .until(Duration::from_secs(90), |s| {
            GROUPS.iter().all(|&g| {
                let record = running_game(&hooks.store, "telegram", &g.to_string()).unwrap();
                let seen = announced(&s.texts(g));
                stored_sans(&record).iter().all(|san| seen.contains_key(san))
            })
        })
        .await;
    assert!(
        announced_all,
        "{:#?}\nowed: {:?}\n{}",
        GROUPS.map(|g| hooks.server.texts(g)),
        hooks
            .store
            .owed("telegram")
            .unwrap()
            .iter()
            .map(|o| o.as_ref().map(|o| o.channel.clone()).ok())
            .collect::<Vec<_>>(),
        tails(&hooks.procs)
    );
    let owed = hooks.server.until(WAIT, |_| hooks.store.owed("telegram").unwrap().is_empty()).await;
    assert!(owed, "replies still owed\n{}", tails(&hooks.procs));
    for &g in &GROUPS {
        let record = hooks.game(g).unwrap();
        let seen = announced(&hooks.server.texts(g));
        for san in stored_sans(&record) {
            assert_eq!(seen.get(&san), Some(&1), "group {g}: {san} announced once: {:#?}", hooks.server.texts(g));
        }
        let texts = hooks.server.texts(g);
        assert_eq!(count(&texts, "played "), PLIES, "group {g}: only the winners were played: {texts:#?}");
    }
    println!("{} turns raced over 3 processes, {refusals} with the opponent's move too", GROUPS.len() * PLIES);
    let hooks = Arc::into_inner(hooks).expect("the races are over");
    hooks.stop().await;
}

/// The moves acknowledged in each group: (SAN, message id), in order.
type Acked = HashMap<i64, Vec<(String, String)>>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_of_one_webhook_process_at_a_time_loses_nothing() {
    const KILLS: usize = 20;
    const GROUPS: usize = 6;
    const PLIES: usize = 12;
    let Some(mut hooks) = Webhooks::start("multi webhook sigkill", 3).await else { return };
    let groups: Vec<i64> = (0..GROUPS as i64).map(|i| -4000 - i).collect();
    for (i, &g) in groups.iter().enumerate() {
        hooks.new_game(g, i).await;
    }
    let games: Vec<Vec<String>> = (0..GROUPS).map(|i| random_game(3000 + i as u64 * 7919, PLIES)).collect();

    // Each group's player sends the next move once the last was
    // acknowledged; the balancer posts each to a process at random and
    // again elsewhere while it is not acknowledged.
    let acked: Arc<std::sync::Mutex<Acked>> = Arc::default();
    let (feed, _) = tokio::sync::broadcast::channel::<()>(64);
    let mut players = Vec::new();
    for (i, &g) in groups.iter().enumerate() {
        let (server, balancer, acked, sans) =
            (hooks.server.clone(), hooks.balancer.clone(), acked.clone(), games[i].clone());
        let mut tick = feed.subscribe();
        players.push(tokio::spawn(async move {
            for (ply, san) in sans.iter().enumerate() {
                // A move a round or so, in every group.
                let _ = tick.recv().await;
                let from = if ply % 2 == 0 { alice() } else { bob() };
                let update = server.update(g, from, san);
                let done = balancer.deliver(&update, Duration::from_secs(60)).await;
                assert!(done.is_ok(), "group {g}: {san} never acknowledged: {done:?}");
                acked.lock().unwrap().entry(g).or_default().push((san.clone(), message_id(&update)));
            }
        }));
    }

    let mut rng = fastrand::Rng::with_seed(2026);
    let mut probes = 0;
    for round in 0..KILLS {
        if rng.bool() || round % 3 == 0 {
            let _ = feed.send(());
        }
        // Killed at a random moment while moves are under way.
        tokio::time::sleep(Duration::from_millis(rng.u64(0..900))).await;
        let victim = rng.usize(..hooks.procs.len());
        hooks.procs[victim].kill();
        // The others keep answering while it is down.
        for (i, p) in hooks.procs.iter_mut().enumerate() {
            if i != victim {
                assert!(p.alive(), "{} died\n{}", p.name, p.tail());
            }
        }
        let survivor = (victim + 1 + rng.usize(..2)) % hooks.procs.len();
        let chat = 500 + round as i64;
        let probe = hooks.server.update(chat, user(chat, "probe"), "/variants");
        let status = hooks.balancer.hooks[survivor].post(&serde_json::to_vec(&probe).unwrap()).await;
        assert_eq!(status, Some(200), "round {round}: process {survivor} did not answer\n{}", tails(&hooks.procs));
        let answered = hooks.server.until(WAIT, |s| !s.texts(chat).is_empty()).await;
        assert!(answered, "round {round}: process {survivor}'s answer was not sent\n{}", tails(&hooks.procs));
        probes += 1;
        tokio::time::sleep(Duration::from_millis(rng.u64(0..400))).await;
        hooks.procs[victim].start();
        hooks.wait_listening(victim).await;
    }
    // The rest of the games go on with every process up.
    let mut more = tokio::time::interval(Duration::from_millis(300));
    while players.iter().any(|p| !p.is_finished()) {
        more.tick().await;
        let _ = feed.send(());
    }
    for p in players {
        p.await.expect("a player");
    }

    // Every acknowledged move is stored, once, in order; every one announced.
    let acked = acked.lock().unwrap().clone();
    for (i, &g) in groups.iter().enumerate() {
        let record = hooks.game(g).expect("the game");
        let sent: Vec<String> = acked[&g].iter().map(|(san, _)| san.clone()).collect();
        assert_eq!(sent, games[i], "group {g}: every move acknowledged");
        assert_eq!(stored_sans(&record), sent, "group {g}: the moves stored are the moves acknowledged, once each");
        let ids: Vec<Option<String>> = acked[&g].iter().map(|(_, id)| Some(id.clone())).collect();
        let stored: Vec<Option<String>> = record.moves.iter().map(|m| m.message_id.clone()).collect();
        assert_eq!(stored, ids, "group {g}: each acknowledged message applied once");
    }
    let delivered = hooks
        .server
        .until(Duration::from_secs(90), |s| {
            groups.iter().enumerate().all(|(i, &g)| {
                let seen = announced(&s.texts(g));
                games[i].iter().all(|san| seen.contains_key(san))
            })
        })
        .await;
    let missing: Vec<(i64, Vec<&String>)> = groups
        .iter()
        .enumerate()
        .map(|(i, &g)| {
            let seen = announced(&hooks.server.texts(g));
            (g, games[i].iter().filter(|san| !seen.contains_key(*san)).collect())
        })
        .collect();
    assert!(
        delivered,
        "a reply owed was not sent: {missing:?}, {} owed\n{:#?}\n{}",
        hooks.store.owed("telegram").unwrap().len(),
        groups.iter().map(|&g| hooks.server.texts(g)).collect::<Vec<_>>(),
        tails(&hooks.procs)
    );
    let owed = hooks.server.until(WAIT, |_| hooks.store.owed("telegram").unwrap().is_empty()).await;
    assert!(owed, "replies still owed: {:?}\n{}", hooks.store.owed("telegram").unwrap().len(), tails(&hooks.procs));
    let twice: usize =
        groups.iter().map(|&g| announced(&hooks.server.texts(g)).values().map(|n| n - 1).sum::<usize>()).sum();
    let takeovers: usize = hooks.procs.iter().map(|p| p.log().matches("taking over").count()).sum();
    println!(
        "{KILLS} SIGKILLs over 3 processes, {} moves in {GROUPS} games: none lost, none applied twice; \
         {probes} probes answered by survivors, {twice} announcements sent twice, {takeovers} takeovers of owed replies",
        GROUPS * PLIES
    );
    hooks.stop().await;
}
