//! The Discord adapter after a restart, against a Discord that does not
//! deliver again what was posted while the bot was away: the channels are
//! read back from where they were left before the clocks run, owed replies
//! go first and are shown once, and an interaction's answer whose token has
//! expired is posted in its channel.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::discord_api::{self, now_ms};
use kibitz_bot::core::{Core, CoreConfig, Incoming, Reply, User};
use kibitz_bot::{adapter, discord, relay};
use kibitz_storage::{ChannelKey, Completion, Store, Timestamp};

const TOKEN: &str = "recovery-test-token";
const ALICE: (&str, &str) = ("111", "alice");
const BOB: (&str, &str) = ("222", "bob");
const HOUR: u64 = 3_600_000;
const WAIT: Duration = Duration::from_secs(20);

fn core_in(dir: &std::path::Path) -> Arc<Core> {
    Arc::new(Core::new(Store::open(dir).unwrap(), CoreConfig { board_size: 120, ..CoreConfig::default() }))
}

/// `who` says `text` in `channel` at `at`, straight to the core (as the bot
/// did before it stopped).
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

/// A one-day game in `channel`: 1. e4 e5 played at `at`, an hour apart.
fn game_with_a_day_per_move(core: &Core, channel: u64, first_id: u64, at: u64) {
    said(core, channel, ALICE, &format!("/challenge @{} chess white days 1", BOB.0), first_id, at);
    said(core, channel, BOB, "/accept", first_id + 1, at);
    said(core, channel, ALICE, "e4", first_id + 2, at);
    let replies = said(core, channel, BOB, "e5", first_id + 3, at + HOUR);
    assert!(replies.iter().any(|r| r.text.contains("played e5")), "{replies:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_sent_while_the_bot_was_down_is_handled_before_the_clock() {
    let fake = discord_api::start(1 << 40).await;
    let dir = tempfile::tempdir().unwrap();
    let core = core_in(dir.path());
    let now = now_ms();
    // Two games whose last move was 25 hours ago: White's day is over...
    game_with_a_day_per_move(&core, 500, 1000, now - 26 * HOUR);
    game_with_a_day_per_move(&core, 501, 2000, now - 26 * HOUR);
    // ...but in channel 500 White moved in time, while the bot was down,
    // after much chat: the move is only in the channel's history.
    for i in 0..150 {
        fake.say_at(500, BOB, &format!("so, what do you think of move {i}?"), now - 3 * HOUR);
    }
    fake.say_at(500, ALICE, "Nf3", now - 2 * HOUR);
    fake.say_at(500, BOB, "anyone there?", now - HOUR);

    let (stop, shutdown) = adapter::shutdown_channel();
    let bot = tokio::spawn(discord::run(core.clone(), TOKEN.into(), Some(fake.url()), shutdown));

    // The clocks ran: the game in 501 is lost on time...
    let timed_out = fake.until(WAIT, |d| d.texts(501).iter().any(|t| t.contains("ran out of time"))).await;
    assert!(timed_out, "the clocks did not run: {:?}", fake.texts(501));
    // ...and the move in 500 was handled first, at the time it was sent.
    let texts = fake.texts(500);
    assert!(texts.iter().any(|t| t.contains(&format!("<@{}> played Nf3", ALICE.0))), "{texts:?}");
    assert!(!texts.iter().any(|t| t.contains("ran out of time")), "{texts:?}");
    let channel = ChannelKey::new("discord", "500");
    let (_, record) = core.store().games_in_channel(&channel).unwrap().into_iter().next().unwrap();
    let record = record.unwrap();
    assert!(record.result.is_none(), "the game goes on");
    assert_eq!(record.moves.len(), 3);
    let moved_at = record.moves[2].at.0;
    assert!(moved_at.abs_diff(now - 2 * HOUR) < 1000, "dated by its message: {moved_at} vs {}", now - 2 * HOUR);
    assert!(fake.pages() >= 2, "the history was read a page at a time: {} pages", fake.pages());

    stop.send(true).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(30), bot).await.expect("run returns after shutdown");
    assert_eq!(result.unwrap(), Ok(()));
    // The reading position is the last message handled in the channel.
    let nf3 = fake.history(500).into_iter().find(|p| p.content == "Nf3").unwrap();
    assert_eq!(core.store().cursor("discord", "500").unwrap(), Some(nf3.id.to_string()));

    // Posted while the bot is away again: read from that position at the next start.
    fake.say(500, BOB, "Nc6");
    let (stop, shutdown) = adapter::shutdown_channel();
    let bot = tokio::spawn(discord::run(core.clone(), TOKEN.into(), Some(fake.url()), shutdown));
    let answered = fake.until(WAIT, |d| d.texts(500).iter().any(|t| t.contains("played Nc6"))).await;
    assert!(answered, "{:?}", fake.texts(500));
    let nf3_announced = fake.texts(500).iter().filter(|t| t.contains("played Nf3")).count();
    assert_eq!(nf3_announced, 1, "a message handled before is not handled again");
    stop.send(true).unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(30), bot).await.expect("run returns after shutdown");
}

fn owe(store: &Store, message: &str, channel: &str, text: &str) -> u64 {
    let reply = Reply { text: text.into(), ..Reply::default() };
    let done = Completion {
        platform: "discord".into(),
        message_id: Some(message.into()),
        cursor: None,
        owed: vec![(channel.into(), relay::encode(&reply))],
        at: Timestamp::now(),
    };
    store.complete(&done).unwrap()[0].seq
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owed_replies_are_sent_at_start_and_shown_once() {
    let fake = discord_api::start(1 << 40).await;
    let dir = tempfile::tempdir().unwrap();
    {
        // The run before: it stopped owing these (a store's own replies are its to send).
        let before = Store::open(dir.path()).unwrap();
        // Three replies owed when the bot stopped. The first had reached Discord
        // (the crash came before it was noted as sent).
        let sent = owe(&before, "1", "600", "reached Discord before the crash");
        fake.posted_by_the_bot(600, "reached Discord before the crash", &format!("kbz{sent}"));
        owe(&before, "2", "600", "never sent");
        // Answers to interactions: one whose token still works, one expired.
        owe(&before, "3", "601/777/token-live", "an answer in place");
        owe(&before, "4", "601/778/token-old", "an answer too late for its interaction");
        fake.expire("token-old");
    }
    let core = core_in(dir.path());

    let (stop, shutdown) = adapter::shutdown_channel();
    let bot = tokio::spawn(discord::run(core.clone(), TOKEN.into(), Some(fake.url()), shutdown));
    let done = fake
        .until(WAIT, |d| {
            d.texts(600).len() == 2
                && d.repeats() == 1
                && d.edits().iter().any(|(t, _)| t == "token-live")
                && d.texts(601).len() == 1
        })
        .await;
    assert!(done, "600: {:?}, 601: {:?}, edits: {:?}", fake.texts(600), fake.texts(601), fake.edits());
    assert_eq!(fake.texts(600), ["reached Discord before the crash", "never sent"]);
    assert_eq!(fake.edits(), [("token-live".to_string(), "an answer in place".to_string())]);
    assert_eq!(fake.texts(601), ["an answer too late for its interaction"]);
    stop.send(true).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(30), bot).await.expect("run returns after shutdown");
    assert_eq!(result.unwrap(), Ok(()));
    assert!(core.store().owed("discord").unwrap().is_empty(), "nothing is owed any more");
}

/// Serenity runs each gateway event in its own task, so a channel's messages
/// can reach the adapter out of order; they are handled in Discord's order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_channels_messages_are_handled_in_discords_order() {
    let fake = discord_api::start(1 << 40).await;
    let dir = tempfile::tempdir().unwrap();
    let core = core_in(dir.path());
    let (stop, shutdown) = adapter::shutdown_channel();
    let bot = tokio::spawn(discord::run(core.clone(), TOKEN.into(), Some(fake.url()), shutdown));
    assert!(fake.until(WAIT, |d| d.connected()).await, "no connection");
    let channels: Vec<u64> = (800..820).collect();
    for &c in &channels {
        fake.say(c, ALICE, &format!("/challenge <@{}> chess white", BOB.0));
        fake.say(c, BOB, "/accept");
        fake.say(c, ALICE, "e4");
        fake.say(c, BOB, "e5");
    }
    let done = fake.until(WAIT, |d| channels.iter().all(|&c| d.texts(c).len() == 4)).await;
    stop.send(true).unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(30), bot).await.expect("run returns after shutdown");
    assert!(done, "{:?}", channels.iter().map(|&c| fake.texts(c)).collect::<Vec<_>>());
    for &c in &channels {
        let texts = fake.texts(c);
        assert!(texts[0].contains("challenges"), "{c}: {texts:?}");
        assert!(texts[1].contains("moves first"), "{c}: {texts:?}");
        assert!(texts[2].contains("played e4"), "{c}: {texts:?}");
        assert!(texts[3].contains("played e5"), "{c}: {texts:?}");
    }
}
