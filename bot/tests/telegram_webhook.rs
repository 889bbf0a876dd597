//! The Telegram adapter in webhook mode, against a fake Bot API and a fake
//! Telegram that posts updates to the bot: the secret is checked on every
//! request, what is no update is answered 200 and skipped, an update is
//! answered 200 only once its result is stored (500 if it could not be, and
//! Telegram posts it again), and an update posted twice is handled once.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use common::crash::{log_of, start_bot, terminate};
use common::telegram_api::{self, Server, WebhookSender, user};
use kibitz_bot::config::Secret;
use kibitz_bot::core::{Core, CoreConfig};
use kibitz_bot::{adapter, telegram};
use kibitz_storage::{ChannelKey, Store};
use serde_json::{Value, json};

const TOKEN: &str = "777001:webhook-test-token-ABCDEFGHIJKLMNOPQRSTUV";
const SECRET: &str = "Webhook_Secret-0123456789";
const URL: &str = "https://bot.example.org/kibitz/telegram";
const GROUP: i64 = -100_500;
/// Alice's private chat with the bot.
const ALICE_CHAT: i64 = 11;

/// A port on 127.0.0.1 that was free a moment ago.
fn free_port() -> SocketAddr {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    probe.local_addr().unwrap()
}

/// The adapter running in webhook mode on its own store, with the fakes.
struct Running {
    server: Arc<Server>,
    store: Store,
    sender: WebhookSender,
    stop: tokio::sync::watch::Sender<bool>,
    run: tokio::task::JoinHandle<Result<(), String>>,
    _dir: tempfile::TempDir,
}

impl Running {
    async fn start() -> Running {
        let _ = tracing_subscriber::fmt().with_test_writer().with_env_filter("kibitz_bot=info").try_init();
        let (server, api) = telegram_api::start(TOKEN).await;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let config = CoreConfig { hint_time: Duration::from_millis(50), board_size: 160, ..CoreConfig::default() };
        let core = Arc::new(Core::new(store.clone(), config));
        let listen = free_port();
        let hook = telegram::Webhook { listen, url: URL.into(), secret: Secret::new(SECRET) };
        let (stop, shutdown) = adapter::shutdown_channel();
        let run =
            tokio::spawn(telegram::run_with(core, TOKEN.into(), Some(format!("http://{api}")), Some(hook), shutdown));
        // The webhook is set only once its address is listened on.
        assert!(server.until(Duration::from_secs(20), |s| !s.webhooks().is_empty()).await, "no setWebhook");
        let sender = WebhookSender { addr: listen, path: "/kibitz/telegram".into(), secret: Some(SECRET.into()) };
        Running { server, store, sender, stop, run, _dir: dir }
    }

    /// The same sender with another secret (or none).
    fn with_secret(&self, secret: Option<&str>) -> WebhookSender {
        WebhookSender { secret: secret.map(str::to_string), ..self.sender.clone() }
    }

    /// Posts a text message as Telegram does until it is answered 2xx;
    /// returns the update and the statuses seen.
    async fn say(&self, chat: i64, from: Value, text: &str) -> (Value, Vec<Option<u16>>) {
        let update = self.server.update(chat, from, text);
        let statuses = self.sender.deliver(&update).await;
        (update, statuses)
    }

    fn handled(&self, update: &Value) -> bool {
        let m = &update["message"];
        let id = format!("{}:{}", m["chat"]["id"], m["message_id"]);
        self.store.is_handled("telegram", &id).unwrap()
    }

    async fn stop(self) {
        let _ = self.stop.send(true);
        let done = tokio::time::timeout(Duration::from_secs(40), self.run).await;
        assert!(matches!(done, Ok(Ok(Ok(())))), "the adapter did not stop cleanly: {done:?}");
    }
}

fn alice() -> Value {
    user(11, "alice")
}

fn bob() -> Value {
    user(22, "bob")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_played_through_webhook_posts() {
    let bot = Running::start().await;
    // setWebhook: the URL and secret, the updates polling asks for, pending ones kept.
    assert_eq!(bot.server.webhooks(), [(URL.to_string(), SECRET.to_string())]);
    let call = bot.server.webhooks.lock().unwrap()[0].clone();
    // A multipart form's fields are JSON texts.
    let field = |name: &str| match &call[name] {
        Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        other => other.clone(),
    };
    assert_eq!(field("allowed_updates"), json!(["message", "callback_query"]));
    assert_eq!(field("drop_pending_updates"), json!(false));

    bot.say(GROUP, bob(), "hello").await;
    let (challenge, statuses) = bot.say(GROUP, alice(), "/challenge @bob chess white").await;
    assert_eq!(statuses, [Some(200)]);
    assert!(bot.handled(&challenge), "answered 200 before the challenge was stored");
    bot.say(GROUP, bob(), "/accept").await;
    let channel = ChannelKey::new("telegram", GROUP.to_string());
    let moves = ["f3", "e5", "g4", "Qh4#"];
    for (i, san) in moves.iter().enumerate() {
        let player = if i % 2 == 0 { alice() } else { bob() };
        let (update, statuses) = bot.say(GROUP, player, san).await;
        assert_eq!(statuses, [Some(200)], "{san}");
        // Right when the 200 arrives, the move is stored and the update marked handled.
        assert!(bot.handled(&update), "{san}: answered 200 before it was stored");
        let games = bot.store.games_in_channel(&channel).unwrap();
        match games.first() {
            Some((_, Ok(game))) if game.result.is_none() => assert_eq!(game.moves.len(), i + 1, "{san}"),
            _ => assert_eq!(i, moves.len() - 1, "the game ended early, at {san}"),
        }
    }
    // Every reply goes out through the outbox, at the group's pace.
    let announced =
        bot.server.until(Duration::from_secs(30), |s| s.texts(GROUP).iter().any(|t| t.contains("played Qh4"))).await;
    assert!(announced, "{:#?}", bot.server.texts(GROUP));
    let texts = bot.server.texts(GROUP);
    assert!(texts.iter().any(|t| t.contains("@alice moves first")), "{texts:#?}");
    for san in ["f3", "e5", "g4"] {
        assert_eq!(texts.iter().filter(|t| t.contains(&format!("played {san}"))).count(), 1, "{texts:#?}");
    }
    assert!(bot.server.until(Duration::from_secs(10), |_| bot.store.owed("telegram").unwrap().is_empty()).await);
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_the_secret_is_refused_and_changes_nothing() {
    let bot = Running::start().await;
    let update = bot.server.update(ALICE_CHAT, alice(), "/challenge @bob chess");
    let body = serde_json::to_vec(&update).unwrap();
    let wrong_length = format!("{SECRET}x");
    let same_length = format!("{}X", &SECRET[..SECRET.len() - 1]);
    for secret in [None, Some(""), Some("nope"), Some(wrong_length.as_str()), Some(same_length.as_str())] {
        assert_eq!(bot.with_secret(secret).post(&body).await, Some(401), "secret {secret:?}");
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(!bot.handled(&update), "a refused update was handled");
    assert!(bot.server.sent().is_empty(), "a refused update was answered: {:#?}", bot.server.sent());
    assert!(bot.store.user("telegram", "11").unwrap().is_none(), "a refused update's user was noted");
    // With the secret, the same update is handled.
    assert_eq!(bot.sender.deliver(&update).await, [Some(200)]);
    assert!(bot.handled(&update));
    assert!(bot.server.until(Duration::from_secs(10), |s| !s.texts(ALICE_CHAT).is_empty()).await);
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_no_update_is_answered_200_and_the_bot_goes_on() {
    let bot = Running::start().await;
    let bodies: [&[u8]; 7] = [
        b"",
        b"not json at all",
        b"{\"update_id\": ",
        b"[1, 2, 3]",
        b"{\"no_update_id\": true}",
        b"{\"update_id\": 9, \"message\": {\"message_id\": 1, \"date\": \"yesterday\", \"chat\": 7}}",
        b"\xff\xfe\x00garbage",
    ];
    for body in bodies {
        assert_eq!(bot.sender.post(body).await, Some(200), "{}", String::from_utf8_lossy(body));
    }
    // Only POST is served.
    let get = async {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(bot.sender.addr).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).await.unwrap();
        answer
    };
    assert!(get.await.starts_with("HTTP/1.1 405"));
    let (update, statuses) = bot.say(ALICE_CHAT, alice(), "/variants").await;
    assert_eq!(statuses, [Some(200)]);
    assert!(bot.handled(&update));
    let answered = bot.server.until(Duration::from_secs(10), |s| !s.texts(ALICE_CHAT).is_empty()).await;
    assert!(answered, "the bot stopped answering after bad bodies");
    assert!(bot.server.texts(ALICE_CHAT)[0].contains("chess"));
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_posted_twice_is_handled_once() {
    let bot = Running::start().await;
    bot.say(GROUP, bob(), "hello").await;
    let update = bot.server.update(GROUP, alice(), "/challenge @bob chess white");
    // Once after the other, and twice at once (two connections, as from two of Telegram's).
    assert_eq!(bot.sender.deliver(&update).await, [Some(200)]);
    assert_eq!(bot.sender.deliver(&update).await, [Some(200)]);
    let (a, b) = tokio::join!(bot.sender.deliver(&update), bot.sender.deliver(&update));
    assert_eq!((a, b), (vec![Some(200)], vec![Some(200)]));
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let challenges: Vec<String> = bot.server.texts(GROUP).into_iter().filter(|t| t.contains("challenges")).collect();
    assert_eq!(challenges.len(), 1, "{:#?}", bot.server.texts(GROUP));
    assert_eq!(bot.store.owed("telegram").unwrap().len(), 0);
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_whose_result_cannot_be_stored_is_answered_500_and_comes_again() {
    let bot = Running::start().await;
    // Alice is noted first, so that the next write is the update's result.
    bot.say(ALICE_CHAT, alice(), "/help").await;
    assert!(bot.server.until(Duration::from_secs(10), |s| s.texts(ALICE_CHAT).len() == 1).await);
    // The reply leaves the outbox in a write of its own after it is sent:
    // that write must not be the one that fails.
    let sent = bot.server.until(Duration::from_secs(10), |_| bot.store.owed("telegram").unwrap().is_empty()).await;
    assert!(sent, "the reply to /help stays owed");
    bot.store.fail_next_sync();
    let (update, statuses) = bot.say(ALICE_CHAT, alice(), "/variants").await;
    assert_eq!(statuses.first(), Some(&Some(500)), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&Some(200)), "{statuses:?}");
    assert!(bot.handled(&update));
    assert!(bot.server.until(Duration::from_secs(10), |s| s.texts(ALICE_CHAT).len() == 2).await);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(bot.server.texts(ALICE_CHAT).len(), 2, "answered once: {:#?}", bot.server.texts(ALICE_CHAT));
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kibitz_binary_runs_in_webhook_mode_and_keeps_the_secret() {
    let (server, api) = telegram_api::start(TOKEN).await;
    let dir = tempfile::tempdir().unwrap();
    let listen = free_port();
    let config = dir.path().join("config.toml");
    let base = format!(
        "[bot]\ndatabase = {:?}\npictures = {:?}\nboard_size = 120\n\n[telegram]\ntoken = {TOKEN:?}\napi_url = \"http://{api}\"\nwebhook_listen = \"{listen}\"\nwebhook_url = \"{URL}\"\n",
        dir.path().join("db").display().to_string(),
        dir.path().join("out").display().to_string(),
    );

    // Without the secret: a clear refusal, and nothing is started.
    std::fs::write(&config, &base).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .args(["run", "--config"])
        .arg(&config)
        .env_remove("KIBITZ_TELEGRAM_TOKEN")
        .env_remove("KIBITZ_TELEGRAM_SECRET_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("secret_token is needed"), "{err}");
    // The environment's secret counts (and is not shown when it is refused).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .args(["run", "--config"])
        .arg(&config)
        .env_remove("KIBITZ_TELEGRAM_TOKEN")
        .env("KIBITZ_TELEGRAM_SECRET_TOKEN", "not/a:valid*secret")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("secret_token must be 1 to 256 characters"), "{err}");
    assert!(!err.contains("not/a:valid*secret"), "{err}");
    assert!(server.webhooks().is_empty() && server.starts() == 0);

    std::fs::write(&config, format!("{base}secret_token = \"{SECRET}\"\n")).unwrap();
    let mut bot = start_bot(&config);
    let set = server.until(Duration::from_secs(30), |s| !s.webhooks().is_empty()).await;
    assert!(set, "no setWebhook: {:?}\n{}", bot.0.try_wait(), log_of(&config));
    assert_eq!(server.webhooks(), [(URL.to_string(), SECRET.to_string())]);
    let sender = WebhookSender { addr: listen, path: "/".into(), secret: Some(SECRET.into()) };
    let update = server.update(ALICE_CHAT, alice(), "/variants");
    assert_eq!(sender.deliver(&update).await.last(), Some(&Some(200)));
    assert!(server.until(Duration::from_secs(20), |s| !s.texts(ALICE_CHAT).is_empty()).await, "{}", log_of(&config));
    // A wrong secret is refused, and the log says so without the secret.
    let wrong = WebhookSender { secret: Some("guessing-the-secret".into()), ..sender.clone() };
    assert_eq!(wrong.post(b"{}").await, Some(401));

    terminate(&mut bot.0);
    let status = tokio::task::spawn_blocking(move || {
        let status = bot.0.wait();
        (bot, status)
    });
    let (_bot, status) = tokio::time::timeout(Duration::from_secs(40), status).await.unwrap().unwrap();
    assert!(status.unwrap().success(), "{}", log_of(&config));
    let log = std::fs::read_to_string(config.with_file_name("bot.log")).unwrap();
    assert!(log.contains("refused a webhook request without the right secret"), "{log}");
    assert!(!log.contains(SECRET) && !log.contains(TOKEN), "{log}");
    // Stopping leaves the webhook set: other processes may still serve it.
    assert!(server.webhooks().len() == 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_finishes_the_update_in_flight_and_takes_no_more() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let bot = Running::start().await;
    let update = bot.server.update(ALICE_CHAT, alice(), "/variants");
    let body = serde_json::to_vec(&update).unwrap();
    // A request under way: its head and half its body are in when shutdown comes.
    let mut stream = tokio::net::TcpStream::connect(bot.sender.addr).await.unwrap();
    let head = format!(
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         X-Telegram-Bot-Api-Secret-Token: {SECRET}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body[..body.len() / 2]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _ = bot.stop.send(true);
    tokio::time::sleep(Duration::from_millis(300)).await;
    // No new request is taken.
    let late = bot.server.update(ALICE_CHAT, alice(), "/help");
    assert_eq!(bot.sender.post(&serde_json::to_vec(&late).unwrap()).await, None, "a request taken after shutdown");
    // The one under way is handled and answered.
    stream.write_all(&body[body.len() / 2..]).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_string(&mut answer)).await.unwrap().unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(bot.handled(&update));
    assert!(!bot.handled(&late));
    let done = tokio::time::timeout(Duration::from_secs(40), bot.run).await;
    assert!(matches!(done, Ok(Ok(Ok(())))), "the adapter did not stop cleanly: {done:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pace_of_a_chat_is_kept_with_other_senders_of_the_store() {
    let bot = Running::start().await;
    let gap = telegram::Pace::GAP.as_millis() as u64;
    // Another sender of the same store (another process, with a shared
    // store) takes slots in the group while the adapter answers there.
    let other = {
        let store = bot.store.clone();
        std::thread::spawn(move || {
            let mut slots = Vec::new();
            for _ in 0..6 {
                let now = kibitz_storage::Timestamp::now();
                let per_minute = telegram::Pace::per_minute(GROUP);
                slots.push(store.reserve_send_slot("telegram", &GROUP.to_string(), now, gap, per_minute).unwrap().0);
                std::thread::sleep(Duration::from_millis(700));
            }
            slots
        })
    };
    bot.say(GROUP, bob(), "hello").await;
    bot.say(GROUP, alice(), "/challenge @bob chess white").await;
    bot.say(GROUP, bob(), "/accept").await;
    bot.say(GROUP, alice(), "e4").await;
    let theirs = tokio::task::spawn_blocking(move || other.join().unwrap()).await.unwrap();
    assert!(bot.server.until(Duration::from_secs(30), |s| s.texts(GROUP).len() >= 3).await);
    let ours: Vec<u64> =
        bot.server.sent_at.lock().unwrap().iter().filter(|(c, _)| *c == GROUP).map(|(_, t)| *t).collect();
    // A message arrives a moment after its slot: a little less than the gap is allowed.
    let mut all: Vec<u64> = ours.iter().chain(&theirs).copied().collect();
    all.sort_unstable();
    for pair in all.windows(2) {
        assert!(
            pair[1] - pair[0] >= gap - 100,
            "sends {} ms apart: ours {ours:?}, theirs {theirs:?}",
            pair[1] - pair[0]
        );
    }
    bot.stop().await;
}
