//! The Telegram adapter against a fake Bot API on 127.0.0.1: a whole game
//! played through long polling, buttons and photos, checking what the fake
//! received.

use std::collections::{HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::Router;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::{StatusCode, header};
use axum::routing::post;
use kibitz_bot::core::{Core, CoreConfig};
use kibitz_bot::{adapter, command, telegram};
use kibitz_storage::Store;
use serde_json::{Value, json};
use tokio::sync::Notify;

const TOKEN: &str = "123456:fake-token";
const GROUP: i64 = -100_777;
const METHODS: &[&str] = &[
    "getMe",
    "getUpdates",
    "sendMessage",
    "sendPhoto",
    "sendAnimation",
    "setMyCommands",
    "deleteWebhook",
    "answerCallbackQuery",
    "getChatMember",
];
const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// One request the fake received.
#[derive(Debug, Clone)]
struct Call {
    method: String,
    /// JSON body, or the text fields of a multipart body (`reply_markup`
    /// parsed).
    body: Value,
    /// The uploaded photo's bytes.
    photo: Option<Vec<u8>>,
    /// Answered with a 429.
    refused: bool,
    at: Instant,
}

impl Call {
    fn chat(&self) -> i64 {
        match &self.body["chat_id"] {
            Value::Number(n) => n.as_i64().unwrap_or(0),
            Value::String(s) => s.parse().unwrap_or(0),
            _ => 0,
        }
    }

    fn text(&self) -> &str {
        self.body["text"].as_str().or(self.body["caption"].as_str()).unwrap_or("")
    }

    /// The inline keyboard, as (label, callback data) rows.
    fn buttons(&self) -> Vec<(String, String)> {
        let rows = self.body["reply_markup"]["inline_keyboard"].as_array().cloned().unwrap_or_default();
        rows.iter()
            .flat_map(|row| row.as_array().cloned().unwrap_or_default())
            .map(|b| (b["text"].as_str().unwrap_or("").into(), b["callback_data"].as_str().unwrap_or("").into()))
            .collect()
    }
}

/// A fake Bot API: updates pushed by the test are handed out by
/// `getUpdates`; everything received is recorded.
#[derive(Default)]
struct Fake {
    updates: Mutex<VecDeque<Value>>,
    next_update: AtomicI64,
    next_message: AtomicI64,
    arrived: Notify,
    calls: Mutex<Vec<Call>>,
    refuse_once: Mutex<HashSet<String>>,
    /// (chat, user) pairs `getChatMember` calls an administrator; anyone
    /// else is a member.
    admins: Mutex<HashSet<(i64, i64)>>,
}

fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

fn chat(id: i64) -> Value {
    if id < 0 {
        json!({"id": id, "type": "supergroup", "title": "Chess club"})
    } else {
        json!({"id": id, "type": "private", "first_name": "Someone"})
    }
}

fn bot_user() -> Value {
    json!({"id": 999, "is_bot": true, "first_name": "Kibitz", "username": "KibitzBot"})
}

fn alice() -> Value {
    json!({"id": 11, "is_bot": false, "first_name": "Alice", "username": "Alice"})
}

fn bob() -> Value {
    json!({"id": 22, "is_bot": false, "first_name": "Bob", "username": "bob"})
}

fn carol() -> Value {
    json!({"id": 33, "is_bot": false, "first_name": "Carol"})
}

impl Fake {
    fn push(&self, mut update: Value) -> i64 {
        let id = self.next_update.fetch_add(1, Ordering::SeqCst) + 1;
        update["update_id"] = json!(id);
        self.updates.lock().unwrap().push_back(update);
        self.arrived.notify_waiters();
        id
    }

    fn say(&self, chat_id: i64, from: Value, text: &str) {
        let message_id = self.next_message.fetch_add(1, Ordering::SeqCst) + 1;
        self.push(json!({"message": {
            "message_id": message_id, "date": now_secs(), "chat": chat(chat_id), "from": from, "text": text,
        }}));
    }

    /// Presses a button under `message` (as the fake returned it); returns the query id.
    fn press(&self, from: Value, message: &Value, data: &str) -> String {
        let id = format!("q{}", self.next_update.load(Ordering::SeqCst) + 1);
        self.push(json!({"callback_query": {
            "id": id, "from": from, "message": message, "chat_instance": "ci-1", "data": data,
        }}));
        id
    }

    fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    fn mark(&self) -> usize {
        self.calls.lock().unwrap().len()
    }

    /// Waits for a call after `since` that satisfies `what`.
    async fn wait_for(&self, since: usize, name: &str, what: impl Fn(&Call) -> bool) -> Call {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(c) = self.calls()[since..].iter().find(|c| !c.refused && what(c)) {
                return c.clone();
            }
            assert!(Instant::now() < deadline, "no {name} arrived; the fake received: {:#?}", self.summary());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn summary(&self) -> Vec<String> {
        self.calls().iter().map(|c| format!("{} {} {:?}", c.method, c.chat(), c.text())).collect()
    }

    /// The message the fake answers a send with.
    fn sent_message(&self, call: &Call) -> Value {
        let id = self.next_message.fetch_add(1, Ordering::SeqCst) + 1;
        let mut m = json!({"message_id": id, "date": now_secs(), "chat": chat(call.chat()), "from": bot_user()});
        if call.method == "sendPhoto" {
            m["photo"] = json!([{"file_id": format!("f{id}"), "file_unique_id": format!("u{id}"),
                "width": 160, "height": 160, "file_size": 1000}]);
            if let Some(c) = call.body["caption"].as_str() {
                m["caption"] = json!(c);
            }
        } else if call.method == "sendAnimation" {
            let file = json!({"file_id": format!("a{id}"), "file_unique_id": format!("v{id}"),
                "width": 160, "height": 160, "duration": 8, "file_name": "replay.gif", "mime_type": "image/gif"});
            m["animation"] = file.clone();
            m["document"] = file;
        } else {
            m["text"] = call.body["text"].clone();
        }
        if !call.body["reply_markup"].is_null() {
            m["reply_markup"] = call.body["reply_markup"].clone();
        }
        m
    }

    async fn get_updates(&self, body: &Value) -> Value {
        let offset = body["offset"].as_i64().unwrap_or(0);
        let timeout = body["timeout"].as_u64().unwrap_or(0).min(30);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout);
        loop {
            let notified = self.arrived.notified();
            {
                let mut queue = self.updates.lock().unwrap();
                // An offset confirms every update before it.
                queue.retain(|u| u["update_id"].as_i64().unwrap_or(0) >= offset);
                if !queue.is_empty() {
                    return Value::Array(queue.iter().cloned().collect());
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return json!([]);
            }
        }
    }
}

async fn api(
    State(fake): State<Arc<Fake>>,
    Path((bot, method)): Path<(String, String)>,
    request: Request,
) -> (StatusCode, Json<Value>) {
    if bot != format!("bot{TOKEN}") {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"ok": false, "error_code": 401, "description": "Unauthorized"})),
        );
    }
    let multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let mut photo = None;
    let body = if multipart {
        let mut form = Multipart::from_request(request, &()).await.expect("a multipart body");
        let mut fields = serde_json::Map::new();
        while let Some(field) = form.next_field().await.expect("a multipart field") {
            let name = field.name().unwrap_or("").to_string();
            if field.file_name().is_some() {
                photo = Some(field.bytes().await.expect("file bytes").to_vec());
                fields.insert(name, json!("<file>"));
            } else {
                let text = field.text().await.expect("a text field");
                let value = match name.as_str() {
                    "reply_markup" | "caption_entities" => serde_json::from_str(&text).expect("JSON field"),
                    _ => json!(text),
                };
                fields.insert(name, value);
            }
        }
        Value::Object(fields)
    } else {
        let bytes = axum::body::to_bytes(request.into_body(), 1 << 20).await.expect("a body");
        if bytes.is_empty() { json!({}) } else { serde_json::from_slice(&bytes).expect("a JSON body") }
    };
    // Method names are case-insensitive.
    let method = METHODS.iter().find(|m| m.eq_ignore_ascii_case(&method)).map_or(method, |m| m.to_string());
    let refused = fake.refuse_once.lock().unwrap().remove(&method);
    let call = Call { method: method.clone(), body: body.clone(), photo, refused, at: Instant::now() };
    fake.calls.lock().unwrap().push(call.clone());
    if refused {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            Json(json!({"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 1",
                "parameters": {"retry_after": 1}})),
        );
    }
    let result = match method.as_str() {
        "getMe" => json!({"id": 999, "is_bot": true, "first_name": "Kibitz", "username": "KibitzBot",
            "can_join_groups": true, "can_read_all_group_messages": true, "supports_inline_queries": false,
            "has_main_web_app": false}),
        "getUpdates" => fake.get_updates(&body).await,
        "sendMessage" | "sendPhoto" | "sendAnimation" => fake.sent_message(&call),
        "setMyCommands" | "deleteWebhook" | "answerCallbackQuery" => json!(true),
        "getChatMember" => {
            let number = |v: &Value| v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(0);
            let (chat, id) = (number(&body["chat_id"]), number(&body["user_id"]));
            let who = json!({"id": id, "is_bot": false, "first_name": format!("user {id}")});
            if fake.admins.lock().unwrap().contains(&(chat, id)) {
                // As Telegram describes an administrator: each of its rights said.
                json!({"status": "administrator", "user": who, "can_be_edited": false, "is_anonymous": false,
                    "can_manage_chat": true, "can_delete_messages": true, "can_manage_video_chats": true,
                    "can_restrict_members": true, "can_promote_members": false, "can_change_info": true,
                    "can_invite_users": true, "can_post_stories": false, "can_edit_stories": false,
                    "can_delete_stories": false, "can_pin_messages": true, "can_manage_topics": false})
            } else {
                json!({"status": "member", "user": who, "until_date": 0})
            }
        }
        _ => {
            return (
                StatusCode::NOT_FOUND,
                Json(json!({"ok": false, "error_code": 404, "description": "Not Found: method not found"})),
            );
        }
    };
    (StatusCode::OK, Json(json!({"ok": true, "result": result})))
}

async fn start_fake() -> (Arc<Fake>, SocketAddr) {
    let fake = Arc::new(Fake::default());
    let app = Router::new().route("/{bot}/{method}", post(api)).with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (fake, addr)
}

fn test_core(dir: &std::path::Path) -> Arc<Core> {
    let config = CoreConfig { hint_time: Duration::from_millis(50), board_size: 160, ..CoreConfig::default() };
    Arc::new(Core::new(Store::open(dir).unwrap(), config))
}

fn assert_png(call: &Call) {
    let photo = call.photo.as_deref().expect("an uploaded photo");
    assert!(photo.starts_with(PNG_MAGIC), "not a PNG: {:?}", &photo[..photo.len().min(8)]);
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_through_the_bot_api() {
    let _ = tracing_subscriber::fmt().with_test_writer().with_env_filter("kibitz_bot=debug").try_init();
    let (fake, addr) = start_fake().await;
    let dir = tempfile::tempdir().unwrap();
    let (stop, shutdown) = adapter::shutdown_channel();
    let run =
        tokio::spawn(telegram::run(test_core(dir.path()), TOKEN.to_string(), Some(format!("http://{addr}")), shutdown));

    // The command list is registered.
    let commands = fake.wait_for(0, "setMyCommands", |c| c.method == "setMyCommands").await;
    let listed = commands.body["commands"].as_array().unwrap();
    assert_eq!(listed.len(), command::USAGE.len());
    assert!(listed.iter().any(|c| c["command"] == "move" && c["description"].as_str().unwrap().contains("MOVE")));
    assert!(fake.calls().iter().any(|c| c.method == "getMe"));

    // A challenge by command, with a mention typed in another case, once
    // the bot has seen Bob.
    fake.say(GROUP, bob(), "Hi all");
    let m = fake.mark();
    fake.say(GROUP, alice(), "/challenge @Bob chess white hints on");
    let challenge = fake.wait_for(m, "the challenge", |c| c.method == "sendMessage").await;
    assert_eq!(challenge.chat(), GROUP);
    assert_eq!(
        challenge.text(),
        "@Alice challenges @bob to Chess (playing White, hints on). @bob: /accept or /decline."
    );
    assert_eq!(challenge.buttons(), pairs(&[("Accept", "/accept @11"), ("Decline", "/decline @11")]));
    let challenge_message = fake.sent_message(&challenge);

    // Forged callback data is answered but not run.
    let m = fake.mark();
    let forged = fake.press(alice(), &challenge_message, "/move e4");
    let answer = fake.wait_for(m, "the forged press's answer", |c| c.method == "answerCallbackQuery").await;
    assert_eq!(answer.body["callback_query_id"], json!(forged));
    assert!(answer.body["text"].as_str().is_some_and(|t| t.contains("no longer works")), "{answer:?}");

    // Accepted by pressing the button.
    let m = fake.mark();
    let pressed = fake.press(bob(), &challenge_message, "/accept @11");
    let answer = fake.wait_for(m, "the press's answer", |c| c.method == "answerCallbackQuery").await;
    assert_eq!(answer.body["callback_query_id"], json!(pressed));
    assert!(answer.body["text"].is_null());
    let game = fake.wait_for(m, "the first board", |c| c.method == "sendPhoto").await;
    assert_eq!(game.chat(), GROUP);
    assert_png(&game);
    assert!(
        game.text().ends_with(": @Alice (White) vs @bob (Black), Chess, hints on. @Alice moves first."),
        "{game:?}"
    );
    let game_buttons = pairs(&[("Resign", "/resign"), ("Offer draw", "/draw"), ("Hint", "/hint")]);
    assert_eq!(game.buttons(), game_buttons);

    // Moves: by command, bare, and by command addressed to the bot.
    let m = fake.mark();
    fake.say(GROUP, alice(), "/move e4");
    let played = fake.wait_for(m, "e4", |c| c.method == "sendPhoto").await;
    assert_eq!(played.text(), "@Alice played e4 (e2e4). @bob, your move.");
    assert_png(&played);
    assert_eq!(played.buttons(), game_buttons);

    let m = fake.mark();
    fake.say(GROUP, bob(), "e5");
    let played = fake.wait_for(m, "e5", |c| c.method == "sendPhoto").await;
    assert_eq!(played.text(), "@bob played e5 (e7e5). @Alice, your move.");

    let m = fake.mark();
    fake.say(GROUP, alice(), "/move@OtherBot Nc3");
    fake.say(GROUP, alice(), "/move@KibitzBot Nf3");
    let played = fake.wait_for(m, "Nf3", |c| c.method == "sendPhoto").await;
    assert_eq!(played.text(), "@Alice played Nf3 (g1f3). @bob, your move.");
    assert!(fake.calls()[m..].iter().all(|c| !c.text().contains("Nc3")), "a command for another bot was answered");

    // An illegal move is refused with the reason.
    let m = fake.mark();
    fake.say(GROUP, bob(), "/move Ke2");
    let refused = fake.wait_for(m, "the refusal", |c| c.method == "sendMessage").await;
    assert!(refused.text().starts_with("Ke2 is not possible: "), "{refused:?}");
    assert!(refused.text().ends_with('.'), "{refused:?}");
    assert!(refused.buttons().is_empty());

    // A hint, with its arrow on the board.
    let m = fake.mark();
    fake.say(GROUP, bob(), "/hint");
    let hint = fake.wait_for(m, "the hint", |c| c.method == "sendPhoto").await;
    assert!(hint.text().starts_with("Hint for @bob: "), "{hint:?}");
    assert_png(&hint);

    // Resignation, answered through a 429 from Telegram.
    fake.refuse_once.lock().unwrap().insert("sendMessage".into());
    let m = fake.mark();
    fake.say(GROUP, bob(), "/resign yes");
    let result = fake.wait_for(m, "the result", |c| c.method == "sendMessage").await;
    assert!(result.text().contains("1-0: @Alice wins (resignation)."), "{result:?}");
    let attempts = fake.calls()[m..].iter().filter(|c| c.method == "sendMessage").count();
    assert_eq!(attempts, 2, "the refused message is sent again");
    // The game's replay follows, as an animation.
    let replay = fake.wait_for(m, "the replay", |c| c.method == "sendAnimation").await;
    let gif = replay.photo.as_deref().expect("an uploaded animation");
    assert!(gif.starts_with(b"GIF89a"), "not a GIF: {:?}", &gif[..gif.len().min(8)]);

    // A private chat works like a group; a user without a username is
    // mentioned by name, linked to them.
    let m = fake.mark();
    fake.say(33, carol(), "/stats");
    let stats = fake.wait_for(m, "the stats", |c| c.method == "sendMessage").await;
    assert_eq!(stats.chat(), 33);
    assert_eq!(stats.text(), "Carol: no rated games yet.");
    assert_eq!(stats.body["entities"][0]["type"], json!("text_link"));
    assert_eq!(stats.body["entities"][0]["length"], json!(5));

    // The group was never sent two messages within a second.
    let sends: Vec<Instant> = fake
        .calls()
        .iter()
        .filter(|c| !c.refused && c.chat() == GROUP && c.method.starts_with("send"))
        .map(|c| c.at)
        .collect();
    for pair in sends.windows(2) {
        assert!(pair[1] - pair[0] >= Duration::from_millis(950), "sent {:?} apart", pair[1] - pair[0]);
    }

    // Shutdown: `run` returns, and every update is confirmed.
    stop.send(true).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(10), run).await.expect("run stops on shutdown");
    assert_eq!(ended.unwrap(), Ok(()));
    assert!(fake.updates.lock().unwrap().is_empty(), "updates left unconfirmed");
    assert!(fake.calls().iter().any(|c| c.method == "deleteWebhook"));
}

#[tokio::test]
async fn a_refused_token_is_an_error() {
    let (_fake, addr) = start_fake().await;
    let dir = tempfile::tempdir().unwrap();
    let (_stop, shutdown) = adapter::shutdown_channel();
    let run = telegram::run(test_core(dir.path()), "1:wrong".into(), Some(format!("http://{addr}/")), shutdown);
    let ended = tokio::time::timeout(Duration::from_secs(10), run).await.expect("run gives up");
    let error = ended.unwrap_err();
    assert!(error.contains("getMe"), "{error}");
    assert!(!error.contains("wrong"), "the token leaked into: {error}");
}

fn user(id: i64, first_name: &str, username: Option<&str>) -> Value {
    let mut u = json!({"id": id, "is_bot": false, "first_name": first_name});
    if let Some(name) = username {
        u["username"] = json!(name);
    }
    u
}

/// Players are their Telegram ids: typed names are read through the user
/// directory, a username that changes hands hands over nothing, records
/// kept under a username by older versions move to its holder, a group
/// that becomes a supergroup keeps its games, and a human named like the
/// bot is not the bot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_are_their_ids_through_the_bot_api() {
    let _ = tracing_subscriber::fmt().with_test_writer().with_env_filter("kibitz_bot=debug").try_init();
    const OLD_GROUP: i64 = -501;
    const SUPERGROUP: i64 = -100_502;
    const CLUB: i64 = -100_503;
    let dir = tempfile::tempdir().unwrap();
    // A game kept as the old adapter kept it: players by lower-cased username.
    {
        let old = test_core(dir.path());
        let say = |who: &str, text: &str| {
            old.handle(&kibitz_bot::core::Incoming {
                platform: "telegram".into(),
                channel: OLD_GROUP.to_string(),
                sender: kibitz_bot::core::User { id: who.into(), name: who.into() },
                text: text.into(),
                message_id: None,
                at: kibitz_storage::Timestamp::now(),
                private: false,
                manages: None,
            })
        };
        say("erin", "/challenge @dave white");
        say("dave", "/accept");
        assert!(say("erin", "e4")[0].text.contains("<@erin> played e4"));
    }
    let (fake, addr) = start_fake().await;
    let (stop, shutdown) = adapter::shutdown_channel();
    let core = test_core(dir.path());
    let run = tokio::spawn(telegram::run(core.clone(), TOKEN.to_string(), Some(format!("http://{addr}")), shutdown));
    fake.wait_for(0, "setMyCommands", |c| c.method == "setMyCommands").await;
    let old_group = json!({"id": OLD_GROUP, "type": "group", "title": "Old club"});
    let say_in_group = |from: Value, text: &str| {
        let message_id = fake.next_message.fetch_add(1, Ordering::SeqCst) + 1;
        fake.push(json!({"message": {
            "message_id": message_id, "date": now_secs(), "chat": old_group, "from": from, "text": text,
        }}));
    };
    let dave = || user(44, "Dave", Some("Dave"));

    // Nobody here is called @ghost: answered, and nothing changes.
    let m = fake.mark();
    fake.say(CLUB, alice(), "/challenge @Ghost chess");
    let unknown = fake.wait_for(m, "the unknown name", |c| c.method == "sendMessage").await;
    assert!(unknown.text().starts_with("I don't know @ghost yet: ask them to write something here"), "{unknown:?}");
    let club = kibitz_storage::ChannelKey::new("telegram", CLUB.to_string());
    assert!(core.store().challenges(&club).unwrap().is_empty());

    // Dave's first message: the game kept under "dave" is his id's.
    let m = fake.mark();
    say_in_group(dave(), "/board");
    let board = fake.wait_for(m, "Dave's board", |c| c.method == "sendPhoto").await;
    assert!(board.text().contains("Black (Dave) to move"), "{board:?}");
    let m = fake.mark();
    say_in_group(dave(), "e5");
    let played = fake.wait_for(m, "e5", |c| c.method == "sendPhoto").await;
    assert_eq!(played.text(), "@Dave played e5 (e7e5). @erin, your move.");

    // Dave takes another username; user 9999 takes "Dave" and cannot resign his game.
    say_in_group(user(44, "Dave", Some("dave_new")), "back soon");
    let m = fake.mark();
    say_in_group(user(9999, "Mallory", Some("Dave")), "/resign");
    let refused = fake.wait_for(m, "the impostor's refusal", |c| c.method == "sendMessage").await;
    assert!(refused.text().starts_with("You are not playing here"), "{refused:?}");
    let old = kibitz_storage::ChannelKey::new("telegram", OLD_GROUP.to_string());
    assert!(core.store().player_game_in_channel(&old, "44").unwrap().is_some_and(|g| g.result.is_none()));

    // The group becomes a supergroup: its game goes along.
    let message_id = fake.next_message.fetch_add(1, Ordering::SeqCst) + 1;
    fake.push(json!({"message": {"message_id": message_id, "date": now_secs(), "chat": old_group,
        "from": alice(), "migrate_to_chat_id": SUPERGROUP}}));
    let m = fake.mark();
    fake.say(SUPERGROUP, user(44, "Dave", Some("dave_new")), "/resign yes");
    let result = fake.wait_for(m, "the resignation", |c| c.method == "sendMessage").await;
    assert_eq!(result.chat(), SUPERGROUP);
    assert!(result.text().contains("1-0: @erin wins (resignation)."), "{result:?}");
    assert!(core.store().games_in_channel(&old).unwrap().is_empty());

    // A human whose username is the bot's configured name is not the bot.
    fake.say(CLUB, user(5555, "Not a bot", Some("kibitz")), "hello");
    let m = fake.mark();
    fake.say(CLUB, alice(), "/challenge @kibitz level 2");
    let refused = fake.wait_for(m, "the level's refusal", |c| c.method == "sendMessage").await;
    assert_eq!(refused.text(), "A level is for games against me: /challenge @KibitzBot level 2.");
    // The bot is its id, named by its username.
    let m = fake.mark();
    fake.say(CLUB, alice(), "/challenge @KibitzBot chess black level 1");
    let game = fake.wait_for(m, "the game against the bot", |c| c.method == "sendPhoto").await;
    assert!(game.text().contains("@KibitzBot (White) vs @Alice (Black)"), "{game:?}");
    assert!(game.text().contains("@KibitzBot played"), "{game:?}");
    let against = core.store().player_game_in_channel(&club, "11").unwrap().unwrap();
    assert_eq!(against.white, "999");

    stop.send(true).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(10), run).await.expect("run stops on shutdown");
    assert_eq!(ended.unwrap(), Ok(()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_100_kb_message_gets_one_short_answer() {
    let (fake, addr) = start_fake().await;
    let dir = tempfile::tempdir().unwrap();
    let (stop, shutdown) = adapter::shutdown_channel();
    let run =
        tokio::spawn(telegram::run(test_core(dir.path()), TOKEN.to_string(), Some(format!("http://{addr}")), shutdown));
    fake.wait_for(0, "setMyCommands", |c| c.method == "setMyCommands").await;

    let m = fake.mark();
    fake.say(GROUP, alice(), &format!("/piece {}", "lorem ipsum ".repeat(100 * 1024 / 12)));
    // The chat's answers go in order: once /variants is answered, all of /piece's have gone.
    fake.say(GROUP, alice(), "/variants");
    fake.wait_for(m, "the answer to /variants", |c| c.text().starts_with("Games I play:")).await;
    let sent: Vec<Call> = fake.calls()[m..].iter().filter(|c| c.method.starts_with("send")).cloned().collect();
    assert_eq!(sent.len(), 2, "one message each: {:#?}", fake.summary());
    assert!(sent[0].text().starts_with("I know no piece called 'lorem ipsum"), "{:?}", sent[0].text());
    assert!(sent[0].text().len() < 200, "{:?}", sent[0].text());

    stop.send(true).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(10), run).await.expect("run stops on shutdown");
    assert_eq!(ended.unwrap(), Ok(()));
}

/// A group's settings are changed by its administrators only, as Telegram's
/// `getChatMember` tells; anyone may see them, and nothing changes on a
/// refusal. In a private chat the user's own settings need no asking.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_groups_admins_change_its_settings() {
    let (fake, addr) = start_fake().await;
    fake.admins.lock().unwrap().insert((GROUP, 22));
    let dir = tempfile::tempdir().unwrap();
    let core = test_core(dir.path());
    let (stop, shutdown) = adapter::shutdown_channel();
    let run = tokio::spawn(telegram::run(core.clone(), TOKEN.to_string(), Some(format!("http://{addr}")), shutdown));
    fake.wait_for(0, "setMyCommands", |c| c.method == "setMyCommands").await;
    let channel = kibitz_storage::ChannelKey::new("telegram", GROUP.to_string());

    // Alice is a member: refused, after asking Telegram.
    let m = fake.mark();
    fake.say(GROUP, alice(), "/settings@KibitzBot game olympic");
    let refused = fake.wait_for(m, "the refusal", |c| c.method == "sendMessage").await;
    assert_eq!(
        refused.text(),
        "Only those who manage this channel (its admins) can change its settings; /settings shows them."
    );
    let asked = fake.calls()[m..].iter().find(|c| c.method == "getChatMember").cloned().expect("getChatMember");
    assert_eq!(asked.body["user_id"].as_i64().or_else(|| asked.body["user_id"].as_str()?.parse().ok()), Some(11));
    assert_eq!(core.store().channel_settings(&channel).unwrap(), Default::default());

    // Bob is an administrator: changed.
    let m = fake.mark();
    fake.say(GROUP, bob(), "/settings game olympic hints on");
    let changed = fake.wait_for(m, "the change", |c| c.method == "sendMessage").await;
    assert!(
        changed.text().starts_with("@bob changes this channel's settings: game Olympic Chess, hints on."),
        "{}",
        changed.text()
    );
    let settings = core.store().channel_settings(&channel).unwrap();
    assert_eq!((settings.default_variant.as_deref(), settings.hints_allowed), (Some("olympic"), true));

    // Showing them asks nobody; a challenge now plays the channel's game.
    let m = fake.mark();
    fake.say(GROUP, alice(), "/settings");
    let shown = fake.wait_for(m, "the settings", |c| c.method == "sendMessage").await;
    assert!(
        shown.text().starts_with("New challenges here, unless they say otherwise: Olympic Chess"),
        "{}",
        shown.text()
    );
    fake.say(GROUP, alice(), "/challenge @bob");
    let challenge = fake.wait_for(m, "the challenge", |c| c.text().contains("challenges")).await;
    assert!(challenge.text().contains("Olympic Chess"), "{}", challenge.text());
    assert!(!fake.calls()[m..].iter().any(|c| c.method == "getChatMember"), "{:#?}", fake.summary());

    // In her private chat Alice sets her own, without asking Telegram.
    let m = fake.mark();
    fake.say(11, alice(), "/settings hints on");
    let own = fake.wait_for(m, "the private change", |c| c.method == "sendMessage").await;
    assert_eq!(own.text(), "Done: hints on. Our games here, unless a challenge says otherwise: Chess, hints on.");
    assert!(!fake.calls()[m..].iter().any(|c| c.method == "getChatMember"));

    stop.send(true).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(10), run).await.expect("run stops on shutdown");
    assert_eq!(ended.unwrap(), Ok(()));
}
