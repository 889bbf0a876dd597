//! A sealed bid typed in public (CA14 wants it secret): the Telegram and
//! Discord adapters delete the message where the platform lets the bot, and
//! go on where it does not; the player is warned either way.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::auction::to_the_auction;
use common::{discord_api, telegram_api};
use kibitz_bot::core::{Core, CoreConfig};
use kibitz_bot::{adapter, discord, telegram};
use kibitz_storage::Store;

const WAIT: Duration = Duration::from_secs(20);

fn core(dir: &std::path::Path) -> Arc<Core> {
    Arc::new(Core::new(Store::open(dir).unwrap(), CoreConfig { board_size: 120, ..CoreConfig::default() }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_deletes_a_bid_typed_in_a_group() {
    const TOKEN: &str = "778:public-bid-token";
    const GROUP: i64 = -100_777;
    let (server, addr) = telegram_api::start(TOKEN).await;
    let dir = tempfile::tempdir().unwrap();
    let (stop, shutdown) = adapter::shutdown_channel();
    let core = core(dir.path());
    let run = tokio::spawn(telegram::run(core.clone(), TOKEN.into(), Some(format!("http://{addr}")), shutdown));

    // Someone in no match has no bid to keep secret: told so, nothing deleted.
    server.say(GROUP, telegram_api::user(33, "carol"), "/bid 3");
    let told = server.until(WAIT, |s| s.texts(GROUP).iter().any(|t| t.contains("no Clash of the Armies match"))).await;
    assert!(told, "{:?}", server.sent());
    // Alice and Bob play a match here.
    server.say(GROUP, telegram_api::user(22, "bob"), "/variants");
    server.say(GROUP, telegram_api::user(11, "alice"), "/challenge @bob clash");
    server.say(GROUP, telegram_api::user(22, "bob"), "/accept");
    let matched = server.until(WAIT, |s| s.texts(GROUP).iter().any(|t| t.contains("a match of Clash"))).await;
    assert!(matched, "{:?}", server.sent());
    // Before the ultimate round there is no bid to keep secret: told so, nothing deleted.
    server.say(GROUP, telegram_api::user(11, "alice"), "/bid 12");
    let told = server.until(WAIT, |s| s.texts(GROUP).iter().any(|t| t.contains("There is no bid to send now"))).await;
    assert!(told, "{:?}", server.sent());
    assert!(server.deletions().is_empty());
    to_the_auction(&core, "telegram", &GROUP.to_string(), "11");

    let bid = server.post(GROUP, telegram_api::user(11, "alice"), "/bid 12");
    let warned = server.until(WAIT, |s| s.texts(GROUP).iter().any(|t| t.contains("does not count"))).await;
    assert!(warned, "no warning: {:?}", server.sent());
    let warning = server.texts(GROUP).into_iter().find(|t| t.contains("does not count")).unwrap();
    assert!(
        warning.starts_with("@alice, that bid was typed in public") && warning.contains("On Telegram"),
        "{warning}"
    );
    assert!(server.until(WAIT, |s| s.deletions() == [(GROUP, bid)]).await, "{:?}", server.deletions());

    // Where the bot is no admin Telegram refuses; the bot goes on.
    server.not_admin.store(true, std::sync::atomic::Ordering::SeqCst);
    let second = server.post(GROUP, telegram_api::user(22, "bob"), "/bid 7");
    assert!(server.until(WAIT, |s| s.deletions().len() == 2).await, "{:?}", server.deletions());
    assert_eq!(server.deletions()[1], (GROUP, second));
    server.say(GROUP, telegram_api::user(22, "bob"), "/variants");
    let answered = server.until(WAIT, |s| s.texts(GROUP).iter().any(|t| t.starts_with("Games I play"))).await;
    assert!(answered, "the bot stopped after a refused deletion: {:?}", server.sent());
    // A bid in a private chat is read, and nothing is deleted.
    server.say(33, telegram_api::user(33, "carol"), "/bid 12");
    let read = server.until(WAIT, |s| s.texts(33).iter().any(|t| t.contains("no Clash of the Armies match"))).await;
    assert!(read, "{:?}", server.sent());
    assert_eq!(server.deletions().len(), 2);
    // In a private chat every message is to the bot: chat gets what it is for.
    server.say(33, telegram_api::user(33, "carol"), "hello there");
    let hinted = server.until(WAIT, |s| s.texts(33).iter().any(|t| t.starts_with("Here it is just you and me"))).await;
    assert!(hinted, "{:?}", server.sent());

    stop.send(true).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(30), run).await.expect("run stops");
    assert_eq!(ended.unwrap(), Ok(()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_deletes_a_bid_typed_in_a_server_channel() {
    const TOKEN: &str = "public-bid-discord-token";
    const CHANNEL: u64 = 600;
    let fake = discord_api::start(1 << 40).await;
    let dir = tempfile::tempdir().unwrap();
    let (stop, shutdown) = adapter::shutdown_channel();
    let core = core(dir.path());
    let bot = tokio::spawn(discord::run(core.clone(), TOKEN.into(), Some(fake.url()), shutdown));
    assert!(fake.until(WAIT, |d| d.connected()).await, "no connection");

    // Someone in no match has no bid to keep secret: told so, nothing deleted.
    fake.say(CHANNEL, ("33", "carol"), "!bid 3");
    let told = fake.until(WAIT, |d| d.texts(CHANNEL).iter().any(|t| t.contains("no Clash of the Armies match"))).await;
    assert!(told, "{:?}", fake.texts(CHANNEL));
    // Alice and Bob play a match here.
    fake.say(CHANNEL, ("11", "alice"), "!challenge <@22> clash");
    fake.say(CHANNEL, ("22", "bob"), "!accept");
    let matched = fake.until(WAIT, |d| d.texts(CHANNEL).iter().any(|t| t.contains("a match of Clash"))).await;
    assert!(matched, "{:?}", fake.texts(CHANNEL));
    // Before the ultimate round there is no bid to keep secret: told so, nothing deleted.
    fake.say(CHANNEL, ("11", "alice"), "!bid 9");
    let told = fake.until(WAIT, |d| d.texts(CHANNEL).iter().any(|t| t.contains("There is no bid to send now"))).await;
    assert!(told, "{:?}", fake.texts(CHANNEL));
    assert!(fake.deleted().is_empty());
    to_the_auction(&core, "discord", &CHANNEL.to_string(), "11");

    let bid = fake.say(CHANNEL, ("11", "alice"), "!bid 12");
    let warned = fake.until(WAIT, |d| d.texts(CHANNEL).iter().any(|t| t.contains("does not count"))).await;
    assert!(warned, "no warning: {:?}", fake.texts(CHANNEL));
    let warning = fake.texts(CHANNEL).into_iter().find(|t| t.contains("does not count")).unwrap();
    assert!(warning.starts_with("<@11>, that bid was typed in public") && warning.contains("On Discord"), "{warning}");
    assert!(fake.until(WAIT, |d| d.deleted() == [(CHANNEL, bid)]).await, "{:?}", fake.deleted());
    assert!(!fake.history(CHANNEL).iter().any(|p| p.content == "!bid 12"), "the bid is gone from the channel");

    // Without Manage Messages Discord answers 403; the bot goes on.
    fake.no_manage_messages.store(true, std::sync::atomic::Ordering::SeqCst);
    let second = fake.say(CHANNEL, ("22", "bob"), "/bid 7");
    assert!(fake.until(WAIT, |d| d.denied() == [(CHANNEL, second)]).await, "{:?}", fake.denied());
    fake.say(CHANNEL, ("22", "bob"), "!variants");
    let answered = fake.until(WAIT, |d| d.texts(CHANNEL).iter().any(|t| t.starts_with("Games I play"))).await;
    assert!(answered, "the bot stopped after a refused deletion: {:?}", fake.texts(CHANNEL));
    assert!(fake.history(CHANNEL).iter().any(|p| p.content == "/bid 7"), "a refused deletion leaves the message");
    // A direct message is read whole, and chat there gets what it is for.
    const DM: u64 = 601;
    fake.put(DM, None);
    fake.say(DM, ("33", "carol"), "hello there, how does this work?");
    let hinted = fake.until(WAIT, |d| d.texts(DM).iter().any(|t| t.starts_with("Here it is just you and me"))).await;
    assert!(hinted, "{:?}", fake.texts(DM));

    stop.send(true).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(30), bot).await.expect("run returns after shutdown");
    assert_eq!(result.unwrap(), Ok(()));
}

#[test]
fn the_deletion_waits_in_the_outbox_with_the_warning() {
    use kibitz_bot::core::{Action, Incoming, User};
    use kibitz_bot::relay::Relay;
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let relay = Relay::new(core.clone(), "telegram");
    // Alice and Bob play a match in the group (the adapter hands the core
    // mentions as user ids).
    let now = kibitz_storage::Timestamp::now();
    let say = |id: &str, name: &str, text: &str| {
        let user = User { id: id.into(), name: name.into() };
        let msg = Incoming {
            platform: "telegram".into(),
            channel: "-100".into(),
            sender: user,
            text: text.into(),
            message_id: None,
            at: now,
            private: false,
            manages: None,
        };
        core.handle(&msg)
    };
    say("11", "alice", "/challenge @22 clash");
    let started = say("22", "bob", "/accept");
    assert!(started.iter().any(|r| r.text.contains("a match of Clash")), "{started:?}");
    to_the_auction(&core, "telegram", "-100", "11");
    let msg = Incoming {
        platform: "telegram".into(),
        channel: "-100".into(),
        sender: User { id: "11".into(), name: "alice".into() },
        text: "/bid 12".into(),
        message_id: Some("-100:5".into()),
        at: kibitz_storage::Timestamp::now(),
        private: false,
        manages: None,
    };
    let owed = relay.handle_blocking(&msg, None).unwrap();
    assert_eq!(owed.len(), 2, "{owed:?}");
    assert!(owed[0].reply.text.contains("does not count") && owed[0].action.is_none());
    let delete = Action::Delete { message_id: Some("-100:5".into()), author: "11".into() };
    assert_eq!(owed[1].action.as_ref(), Some(&delete));
    assert_eq!(owed[1].channel, "-100");
    // After a crash, before the platform had them, both are still owed (to
    // the next run: a store's own replies are its own to send).
    drop((relay, core));
    let again = Relay::new(self::core(dir.path()), "telegram").owed();
    assert_eq!(again.iter().map(|d| d.action.clone()).collect::<Vec<_>>(), [None, Some(delete)]);
}

#[test]
fn the_console_shows_the_deletion_of_a_bid_typed_in_public() {
    let dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let core = Core::new(Store::open(dir.path()).unwrap(), CoreConfig { board_size: 120, ..CoreConfig::default() });
    let mut console = kibitz_bot::console::Console::new(core, out.path());
    console.line("alice: /challenge @bob clash white");
    assert!(console.line("bob: /accept").join("\n").contains("a match of Clash"));
    // Round 1: no bid to keep secret.
    assert_eq!(
        console.line("alice: /bid 12"),
        ["kibitz: There is no bid to send now: the auction is held only before the ultimate round."]
    );
    to_the_auction(console.core(), "console", "local", "alice");
    let said = console.line("alice: /bid 12");
    assert!(said[0].starts_with("kibitz: @alice, that bid was typed in public, so it does not count"), "{said:?}");
    assert!(said[0].contains("On the console, /in @kibitz takes you to your private chat with me."), "{said:?}");
    assert_eq!(said.last().map(String::as_str), Some("  [deleted: the message of alice]"));
}
