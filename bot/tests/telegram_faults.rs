//! The Telegram adapter against what goes wrong: malformed updates, a
//! backlog that waited while the bot was down, answers owed at a crash.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::telegram_api::{self, unix_now, user};
use kibitz_bot::core::{Core, CoreConfig, Incoming, User};
use kibitz_bot::relay::Relay;
use kibitz_bot::{adapter, telegram};
use kibitz_storage::{ChannelKey, Store, Timestamp};
use serde_json::json;

const TOKEN: &str = "777:faults-token";
const GROUP: i64 = -100_555;
const HOUR: u64 = 3_600_000;

fn core(dir: &std::path::Path) -> Arc<Core> {
    let config = CoreConfig { hint_time: Duration::from_millis(20), board_size: 120, ..CoreConfig::default() };
    Arc::new(Core::new(Store::open(dir).unwrap(), config))
}

fn said(core: &Core, who: &str, text: &str, at: Timestamp, id: Option<&str>) -> Vec<String> {
    let msg = Incoming {
        platform: "telegram".into(),
        channel: GROUP.to_string(),
        sender: User { id: who.into(), name: who.into() },
        text: text.into(),
        message_id: id.map(str::to_string),
        at,
        private: false,
        manages: None,
    };
    core.handle(&msg).into_iter().map(|r| r.text).collect()
}

/// Defect: one malformed update killed the adapter, and since it was never
/// confirmed, every restart died on it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_updates_do_not_take_the_adapter_down() {
    let _ = tracing_subscriber::fmt().with_test_writer().with_env_filter("kibitz_bot=debug").try_init();
    let (server, addr) = telegram_api::start(TOKEN).await;
    let dir = tempfile::tempdir().unwrap();
    let alice = user(11, "alice");
    let next_id = std::sync::atomic::AtomicI64::new(10);
    let message = |text: &str, entities: serde_json::Value| {
        let id = next_id.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        json!({"message": {"message_id": id, "date": unix_now(), "from": alice,
            "chat": {"id": GROUP, "type": "supergroup", "title": "club"}, "text": text, "entities": entities}})
    };
    server.push(message("😀 hello", json!([{"type": "bold", "offset": 1, "length": 2}])));
    server.push(message(
        "hi",
        json!([{"type": "text_mention", "offset": 0, "length": 50,
            "user": {"id": 42, "is_bot": false, "first_name": "Zoë"}}]),
    ));
    server.push(json!({"message": {"message_id": 2, "date": "yesterday", "chat": {"id": GROUP}}}));
    server.push(json!({"edited_channel_post": {"nonsense": true}}));
    server.push(message("/variants", json!([{"type": "bot_command", "offset": 0, "length": 9}])));

    let (stop, shutdown) = adapter::shutdown_channel();
    let run = tokio::spawn(telegram::run(core(dir.path()), TOKEN.into(), Some(format!("http://{addr}")), shutdown));
    let answered =
        server.until(Duration::from_secs(20), |s| s.texts(GROUP).iter().any(|t| t.starts_with("Games I play"))).await;
    assert!(answered, "the adapter stopped answering: {:?}", server.sent());
    assert!(server.until(Duration::from_secs(10), |s| s.unconfirmed() == 0).await, "updates left unconfirmed");
    stop.send(true).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(30), run).await.expect("run stops");
    assert_eq!(ended.unwrap(), Ok(()));
}

/// Defect: after downtime the clock ran before the backlog, and a move sent
/// in time was lost on time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backlog_is_handled_before_the_clock() {
    let dir = tempfile::tempdir().unwrap();
    let now = Timestamp::now().0;
    let (alice, bob) = (user(11, "alice"), user(22, "bob"));
    {
        // A `days 1` game: White moved 26 hours ago.
        let core = core(dir.path());
        let started = Timestamp(now - 26 * HOUR);
        said(&core, "11", "/challenge @22 chess white days 1", started, None);
        said(&core, "22", "/accept", started, None);
        let e4 = said(&core, "11", "e4", started, None);
        assert!(e4[0].contains("played e4"), "{e4:?}");
    }
    let (server, addr) = telegram_api::start(TOKEN).await;
    // Black answered 3 hours ago, in time, while the bot was down.
    server.message_at(GROUP, bob, "e5", unix_now() - 3 * 3600);
    let _ = alice;
    let core = core(dir.path());
    let (stop, shutdown) = adapter::shutdown_channel();
    let run = tokio::spawn(telegram::run(core.clone(), TOKEN.into(), Some(format!("http://{addr}")), shutdown));
    let played =
        server.until(Duration::from_secs(20), |s| s.texts(GROUP).iter().any(|t| t.contains("played e5"))).await;
    // Give the clock its first tick.
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.send(true).unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(30), run).await.expect("run stops");
    assert!(played, "Black's move was not answered: {:?}", server.sent());
    assert!(
        !server.texts(GROUP).iter().any(|t| t.contains("ran out of time")),
        "lost on time: {:?}",
        server.texts(GROUP)
    );
    let channel = ChannelKey::new("telegram", GROUP.to_string());
    let (_, game) = core.store().games_in_channel(&channel).unwrap().into_iter().next().expect("the game goes on");
    let game = game.unwrap();
    assert_eq!(game.moves.len(), 2);
    assert!(game.moves[1].at.0 <= now - 2 * HOUR, "the move keeps the time it was sent");
}

/// Defect: a move stored but not yet announced when the process died was
/// never announced; its redelivery counted as already applied.
#[test]
fn a_move_stored_but_not_answered_is_answered_when_it_comes_again() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let at = Timestamp::now();
    said(&core, "11", "/challenge @22 chess white", at, Some("c1"));
    said(&core, "22", "/accept", at, Some("c2"));
    // The move is stored; the process dies before its answer is kept.
    let first = said(&core, "11", "Nf3", at, Some("m3"));
    assert!(first[0].contains("played Nf3"));
    // Telegram delivers it again after the restart.
    let relay = Relay::new(core.clone(), "telegram");
    let msg = Incoming {
        platform: "telegram".into(),
        channel: GROUP.to_string(),
        sender: User { id: "11".into(), name: "alice".into() },
        text: "Nf3".into(),
        message_id: Some("m3".into()),
        at,
        private: false,
        manages: None,
    };
    let owed = relay.handle_blocking(&msg, None).unwrap();
    assert_eq!(owed.len(), 1, "{owed:?}");
    let text = &owed[0].reply.text;
    assert!(text.contains("<@11> played Nf3.") && text.contains("<@22>, your move."), "{text}");
    assert!(owed[0].reply.picture.is_some(), "the board comes with it");
    assert_eq!(core.store().owed("telegram").unwrap().len(), 1, "kept in the outbox until sent");
    // The move applied once; a third delivery is known as handled.
    let channel = ChannelKey::new("telegram", GROUP.to_string());
    let (_, game) = core.store().games_in_channel(&channel).unwrap().into_iter().next().unwrap();
    assert_eq!(game.unwrap().moves.len(), 1);
    assert!(relay.handle_blocking(&msg, None).unwrap().is_empty());
    // A message never seen before is answered as usual, once.
    let next = Incoming {
        sender: User { id: "22".into(), name: "bob".into() },
        text: "d5".into(),
        message_id: Some("m4".into()),
        ..msg
    };
    let owed = relay.handle_blocking(&next, None).unwrap();
    assert!(owed[0].reply.text.contains("played d5"), "{owed:?}");
    assert!(relay.handle_blocking(&next, None).unwrap().is_empty());
}

/// A clock judges a move by when the player sent it: one sent after the
/// time ran out loses on time, whenever it is handled.
#[test]
fn a_move_sent_after_the_time_ran_out_loses_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let t0 = Timestamp::now().0 - 30 * HOUR;
    said(&core, "11", "/challenge @22 chess white days 1", Timestamp(t0), None);
    said(&core, "22", "/accept", Timestamp(t0), None);
    said(&core, "11", "e4", Timestamp(t0), Some("a"));
    // Sent 25 hours after White's move: an hour late.
    let late = said(&core, "22", "e5", Timestamp(t0 + 25 * HOUR), Some("b"));
    assert!(late[0].contains("your move came after your time ran out") && late[0].contains("1-0"), "{late:?}");
    let channel = ChannelKey::new("telegram", GROUP.to_string());
    assert!(core.store().games_in_channel(&channel).unwrap().is_empty(), "the game is over");
    let (_, done) = core.store().archived_games_of("telegram", "22", 1).unwrap().into_iter().next().unwrap();
    let done = done.unwrap();
    assert_eq!(done.moves.len(), 1, "the late move is not played");
    let result = done.result.unwrap();
    assert_eq!((result.reason.as_str(), result.at), ("time", Timestamp(t0 + 24 * HOUR)));
    // Sent in time (23 hours after), in another game, it is played.
    said(&core, "11", "/challenge @22 chess white days 1", Timestamp(t0), None);
    said(&core, "22", "/accept", Timestamp(t0), None);
    said(&core, "11", "d4", Timestamp(t0), Some("c"));
    let in_time = said(&core, "22", "d5", Timestamp(t0 + 23 * HOUR), Some("d"));
    assert!(in_time[0].contains("played d5"), "{in_time:?}");
}

/// A PGN too long for one message goes whole, as a document.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_pgn_goes_as_a_document() {
    use kibitz_rules::{Game, Variant};
    let dir = tempfile::tempdir().unwrap();
    let at = Timestamp::now();
    let mut game = Game::new(Variant::by_id("chess").unwrap());
    {
        // A long game, its moves drawn by a seeded generator, played while
        // the bot was not connected.
        let core = core(dir.path());
        said(&core, "11", "/challenge @22 chess white", at, None);
        said(&core, "22", "/accept", at, None);
        let mut seed: u64 = 11;
        while game.outcome().is_none() && game.moves().len() < 300 {
            let legal = game.legal_moves();
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let m = legal[(seed >> 33) as usize % legal.len()];
            let who = if game.moves().len().is_multiple_of(2) { "11" } else { "22" };
            let answer = said(&core, who, &game.position().canonical(&m), at, None);
            assert!(answer.iter().any(|t| t.contains("played")), "{answer:?}");
            game.play(m).unwrap();
        }
    }
    let (server, addr) = telegram_api::start(TOKEN).await;
    server.say(GROUP, user(11, "alice"), "/pgn");
    let core = core(dir.path());
    let (stop, shutdown) = adapter::shutdown_channel();
    let run = tokio::spawn(telegram::run(core, TOKEN.into(), Some(format!("http://{addr}")), shutdown));
    let sent = server.until(Duration::from_secs(20), |s| !s.documents.lock().unwrap().is_empty()).await;
    assert!(sent, "no document was sent: {:?}", server.sent());
    let (chat, name, pgn) = server.documents.lock().unwrap()[0].clone();
    assert_eq!(chat, GROUP);
    assert!(name.ends_with(".pgn"), "{name}");
    let caption = server.sent().into_iter().find(|(m, _, _)| m == "sendDocument").unwrap().2;
    assert!(caption.contains("too long for one message") && caption.contains(&name), "{caption}");
    assert!(pgn.chars().count() > kibitz_bot::core::REPLY_LIMIT, "{name}: {pgn:?}");
    // All of it, to the last move and the result.
    let last = {
        let mut before = Game::new(Variant::by_id("chess").unwrap());
        for m in &game.moves()[..game.moves().len() - 1] {
            before.play(*m).unwrap();
        }
        before.position().san(game.moves().last().unwrap())
    };
    let result = if game.outcome().is_some() { game.outcome().unwrap().score() } else { "*" };
    assert!(pgn.trim_end().ends_with(&format!("{last} {result}")), "{pgn}");
    stop.send(true).unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(30), run).await.expect("run stops");
}
