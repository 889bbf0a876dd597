//! The Discord adapter against a fake Discord on 127.0.0.1: its REST API
//! (reached through serenity's proxy setting, as `PROXY/api/v10/...`) and
//! its gateway WebSocket (hello, identify, ready, heartbeats, then the
//! message and interaction events the test pushes). A whole game is played
//! through slash commands, buttons, autocomplete, text commands and bare
//! moves, and what the fake received is checked.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ws::{CloseFrame, Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use kibitz_bot::core::{Core, CoreConfig};
use kibitz_bot::{adapter, discord};
use kibitz_storage::Store;
use serde_json::{Value, json};
use tokio::sync::mpsc;

const TOKEN: &str = "fake-token-never-logged";
const APP: &str = "1000";
const GUILD: &str = "900";
const CHANNEL: &str = "500";
const ALICE: &str = "111";
const BOB: &str = "222";
const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
const WAIT: Duration = Duration::from_secs(15);

/// One request the fake received (the gateway's IDENTIFY is recorded too,
/// as method `GATEWAY`).
#[derive(Debug, Clone)]
struct Req {
    method: String,
    path: String,
    authorization: Option<String>,
    /// The JSON body, or a multipart request's `payload_json`.
    json: Value,
    /// Multipart files: (field, file name, bytes).
    files: Vec<(String, String, Vec<u8>)>,
    /// What the fake answered.
    status: u16,
}

struct Inner {
    port: u16,
    log: Mutex<Vec<Req>>,
    events: tokio::sync::Mutex<mpsc::UnboundedReceiver<(String, Value)>>,
    /// Channel messages still to refuse with 429.
    rate_limits: AtomicUsize,
    /// Close the gateway with 4004 (authentication failed) on IDENTIFY.
    refuse_token: AtomicBool,
    next_id: AtomicU64,
}

#[derive(Clone)]
struct Fake(Arc<Inner>);

impl Fake {
    async fn start() -> (Fake, mpsc::UnboundedSender<(String, Value)>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (tx, rx) = mpsc::unbounded_channel();
        let fake = Fake(Arc::new(Inner {
            port,
            log: Mutex::default(),
            events: tokio::sync::Mutex::new(rx),
            rate_limits: AtomicUsize::new(0),
            refuse_token: AtomicBool::new(false),
            next_id: AtomicU64::new(50_000),
        }));
        let app = Router::new().route("/ws", get(gateway)).fallback(rest).with_state(fake.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (fake, tx)
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.0.port)
    }

    fn record(&self, req: Req) {
        self.0.log.lock().unwrap().push(req);
    }

    fn len(&self) -> usize {
        self.0.log.lock().unwrap().len()
    }

    fn log(&self) -> Vec<Req> {
        self.0.log.lock().unwrap().clone()
    }

    /// The first request at or after `from` that matches, waiting for it.
    async fn wait(&self, from: usize, what: &str, matches: impl Fn(&Req) -> bool) -> (usize, Req) {
        let start = Instant::now();
        loop {
            if let Some((i, r)) = self.log().into_iter().enumerate().skip(from).find(|(_, r)| matches(r)) {
                return (i, r);
            }
            if start.elapsed() > WAIT {
                let seen: Vec<String> =
                    self.log().iter().skip(from).map(|r| format!("{} {} {}", r.method, r.path, r.json)).collect();
                panic!("the fake never received {what}; it received:\n{}\nlogs:\n{}", seen.join("\n"), logs_tail());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// An interaction's deferred response, then the edit of it: the edit.
    async fn deferred_then_edited(&self, from: usize, id: &str, token: &str) -> Req {
        let callback = format!("/api/v10/interactions/{id}/{token}/callback");
        let (i, deferred) = self.wait(from, "the deferral", |r| r.method == "POST" && r.path == callback).await;
        assert_eq!(deferred.json["type"], 5, "deferred with a message to come: {deferred:?}");
        let edit = format!("/api/v10/webhooks/{APP}/{token}/messages/@original");
        self.wait(i + 1, "the edit of the deferred response", |r| r.method == "PATCH" && r.path == edit).await.1
    }
}

fn message_json(id: u64, channel: &str, author: Value, content: &str) -> Value {
    json!({
        "id": id.to_string(),
        "channel_id": channel,
        "author": author,
        "content": content,
        "timestamp": "2024-05-01T12:00:00.000000+00:00",
        "edited_timestamp": null,
        "tts": false,
        "mention_everyone": false,
        "mentions": [],
        "mention_roles": [],
        "attachments": [],
        "embeds": [],
        "pinned": false,
        "type": 0,
    })
}

fn user(id: &str, name: &str) -> Value {
    json!({"id": id, "username": name, "discriminator": "0", "global_name": name.to_uppercase(), "avatar": null})
}

fn bot_user() -> Value {
    json!({"id": APP, "username": "kibitz", "discriminator": "0", "global_name": null, "avatar": null, "bot": true})
}

fn member(id: &str, name: &str) -> Value {
    json!({
        "user": user(id, name),
        "nick": null,
        "roles": [],
        "joined_at": "2024-01-01T00:00:00.000000+00:00",
        "deaf": false,
        "mute": false,
        "flags": 0,
        // In an interaction Discord gives the member's permissions in the
        // channel: here none of note (sending messages, reading them).
        "permissions": "3072",
    })
}

/// The fake REST API: records every request, answers what serenity expects.
async fn rest(State(fake): State<Fake>, req: Request) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let authorization = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_string);
    let multipart = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("multipart/form-data"));
    let mut json = Value::Null;
    let mut files = Vec::new();
    if multipart {
        let mut form = Multipart::from_request(req, &()).await.unwrap();
        while let Some(field) = form.next_field().await.unwrap() {
            let name = field.name().unwrap_or_default().to_string();
            let file_name = field.file_name().map(str::to_string);
            let bytes = field.bytes().await.unwrap().to_vec();
            match file_name {
                Some(f) => files.push((name, f, bytes)),
                None if name == "payload_json" => json = serde_json::from_slice(&bytes).unwrap(),
                None => {}
            }
        }
    } else {
        let bytes = axum::body::to_bytes(req.into_body(), 1 << 24).await.unwrap();
        json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    }
    let segments: Vec<&str> = path.trim_start_matches("/api/v10/").split('/').collect();
    let new_id = fake.0.next_id.fetch_add(1, Ordering::Relaxed);
    let content = json["content"].as_str().unwrap_or_default().to_string();
    let (status, body) = match (&method, segments.as_slice()) {
        (&Method::GET, ["gateway"]) => (200, json!({"url": format!("ws://127.0.0.1:{}/ws", fake.0.port)})),
        (&Method::GET, ["gateway", "bot"]) => (
            200,
            json!({
                "url": format!("ws://127.0.0.1:{}/ws", fake.0.port),
                "shards": 1,
                "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1},
            }),
        ),
        (&Method::GET, ["users", "@me"]) => (200, bot_user()),
        (&Method::PUT, ["applications", _, "commands"])
        | (&Method::PUT, ["applications", _, "guilds", _, "commands"]) => (200, json!([])),
        (&Method::POST, ["channels", channel, "messages"]) => {
            let limited = fake.0.rate_limits.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
            if limited.is_ok() {
                (429, json!({"message": "You are being rate limited.", "retry_after": 0.1, "global": false}))
            } else {
                (200, message_json(new_id, channel, bot_user(), &content))
            }
        }
        // No history here: a message is handled as the gateway brought it.
        (&Method::GET, ["channels", _, "messages"]) => (200, json!([])),
        (&Method::POST, ["interactions", _, _, "callback"]) => (204, Value::Null),
        (&Method::PATCH, ["webhooks", _, _, "messages", _]) | (&Method::POST, ["webhooks", _, _]) => {
            (200, message_json(new_id, CHANNEL, bot_user(), &content))
        }
        (&Method::DELETE, ["webhooks", _, _, "messages", _]) => (204, Value::Null),
        _ => (404, json!({"message": "Unknown route", "code": 0})),
    };
    fake.record(Req { method: method.to_string(), path, authorization, json, files, status });
    let status = StatusCode::from_u16(status).unwrap();
    if body.is_null() { status.into_response() } else { (status, axum::Json(body)).into_response() }
}

async fn gateway(ws: WebSocketUpgrade, State(fake): State<Fake>) -> Response {
    ws.on_upgrade(move |socket| session(fake, socket))
}

/// One gateway connection: HELLO, then READY after IDENTIFY, heartbeat ACKs,
/// and the pushed events with increasing sequence numbers.
async fn session(fake: Fake, mut socket: WebSocket) {
    async fn send(socket: &mut WebSocket, v: Value) -> bool {
        socket.send(WsMessage::Text(v.to_string().into())).await.is_ok()
    }
    if !send(&mut socket, json!({"op": 10, "d": {"heartbeat_interval": 41250}, "s": null, "t": null})).await {
        return;
    }
    let mut events = fake.0.events.lock().await;
    let mut seq = 0u64;
    let mut ready = false;
    loop {
        tokio::select! {
            frame = socket.recv() => {
                let text = match frame {
                    Some(Ok(WsMessage::Text(t))) => t.to_string(),
                    Some(Ok(WsMessage::Close(_))) => {
                        // Answer the close, as Discord does.
                        let _ = socket.send(WsMessage::Close(None)).await;
                        return;
                    }
                    Some(Err(_)) | None => return,
                    Some(Ok(_)) => continue,
                };
                let v: Value = serde_json::from_str(&text).unwrap();
                match v["op"].as_u64() {
                    Some(1) => {
                        send(&mut socket, json!({"op": 11, "d": null, "s": null, "t": null})).await;
                    }
                    Some(2) => {
                        fake.record(Req {
                            method: "GATEWAY".into(),
                            path: "identify".into(),
                            authorization: None,
                            json: v["d"].clone(),
                            files: Vec::new(),
                            status: 0,
                        });
                        if fake.0.refuse_token.load(Ordering::SeqCst) {
                            let close = CloseFrame { code: 4004, reason: "Authentication failed.".into() };
                            let _ = socket.send(WsMessage::Close(Some(close))).await;
                            return;
                        }
                        seq += 1;
                        let d = json!({
                            "v": 10,
                            "user": bot_user(),
                            "guilds": [],
                            "session_id": "fake-session",
                            "resume_gateway_url": format!("ws://127.0.0.1:{}/ws", fake.0.port),
                            "application": {"id": APP, "flags": 0},
                        });
                        send(&mut socket, json!({"op": 0, "t": "READY", "s": seq, "d": d})).await;
                        ready = true;
                    }
                    Some(6) => {
                        // No resuming here: start a new session.
                        send(&mut socket, json!({"op": 9, "d": false, "s": null, "t": null})).await;
                    }
                    _ => {}
                }
            }
            event = events.recv(), if ready => {
                let Some((t, d)) = event else { return };
                seq += 1;
                if !send(&mut socket, json!({"op": 0, "t": t, "s": seq, "d": d})).await {
                    return;
                }
            }
        }
    }
}

/// What the test does as the players.
struct Players {
    events: mpsc::UnboundedSender<(String, Value)>,
    next: AtomicU64,
}

impl Players {
    fn id(&self) -> String {
        self.next.fetch_add(1, Ordering::Relaxed).to_string()
    }

    fn interaction(&self, kind: u8, who: (&str, &str), data: Value, extra: Value) -> (String, String) {
        let id = self.id();
        let token = format!("itoken-{id}");
        let d = interaction_json(kind, &id, &token, who, data, extra);
        self.events.send(("INTERACTION_CREATE".into(), d)).unwrap();
        (id, token)
    }

    /// A slash command; options are (name, type, value).
    fn slash(&self, who: (&str, &str), name: &str, options: &[(&str, u8, Value)]) -> (String, String) {
        self.interaction(2, who, slash_data(name, options), json!({}))
    }

    fn autocomplete(&self, who: (&str, &str), typed: &str) -> (String, String) {
        self.interaction(4, who, autocomplete_data(typed), json!({}))
    }

    fn press(&self, who: (&str, &str), custom_id: &str) -> (String, String) {
        self.interaction(3, who, button_data(custom_id), button_extra())
    }
    fn say(&self, who: (&str, &str), content: &str) -> String {
        let id = self.id();
        let mut m = message_json(id.parse().unwrap(), CHANNEL, user(who.0, who.1), content);
        m["guild_id"] = json!(GUILD);
        m["member"] =
            json!({"nick": format!("{}-nick", who.1), "roles": [], "joined_at": null, "deaf": false, "mute": false});
        self.events.send(("MESSAGE_CREATE".into(), m)).unwrap();
        id
    }
}

fn interaction_json(kind: u8, id: &str, token: &str, who: (&str, &str), data: Value, extra: Value) -> Value {
    let mut d = json!({
        "id": id,
        "application_id": APP,
        "type": kind,
        "token": token,
        "version": 1,
        "locale": "en-US",
        "entitlements": [],
        "attachment_size_limit": 10_485_760,
        "channel_id": CHANNEL,
        "guild_id": GUILD,
        "member": member(who.0, who.1),
        "data": data,
    });
    if let (Some(d), Some(extra)) = (d.as_object_mut(), extra.as_object()) {
        d.extend(extra.clone());
    }
    d
}

fn slash_data(name: &str, options: &[(&str, u8, Value)]) -> Value {
    let options: Vec<Value> = options.iter().map(|(n, t, v)| json!({"name": n, "type": t, "value": v})).collect();
    let resolved = json!({"users": {BOB: user(BOB, "bob"), ALICE: user(ALICE, "alice")}});
    json!({"id": "1", "name": name, "type": 1, "options": options, "resolved": resolved})
}

fn autocomplete_data(typed: &str) -> Value {
    json!({
        "id": "1", "name": "move", "type": 1,
        "options": [{"name": "move", "type": 3, "value": typed, "focused": true}],
    })
}

fn button_data(custom_id: &str) -> Value {
    json!({"custom_id": custom_id, "component_type": 2})
}

fn button_extra() -> Value {
    json!({"message": message_json(40_000, CHANNEL, bot_user(), "a message of the bot")})
}

const A: (&str, &str) = (ALICE, "alice");
const B: (&str, &str) = (BOB, "bob");

fn text(r: &Req) -> String {
    r.json["content"].as_str().unwrap_or_default().to_string()
}

/// The custom ids of a message's buttons, in order.
fn buttons(r: &Req) -> Vec<String> {
    let rows = r.json["components"].as_array().cloned().unwrap_or_default();
    rows.iter()
        .flat_map(|row| row["components"].as_array().cloned().unwrap_or_default())
        .map(|b| b["custom_id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The message carries a PNG board, shown by its embed.
fn assert_board(r: &Req) {
    assert_eq!(r.files.len(), 1, "one picture: {r:?}");
    let (field, name, bytes) = &r.files[0];
    assert!(field.starts_with("files["), "{field}");
    assert!(bytes.starts_with(PNG), "a PNG picture");
    assert_eq!(r.json["embeds"][0]["image"]["url"], format!("attachment://{name}"), "{}", r.json);
}

/// The values suggested by an autocomplete answer.
async fn suggestions(fake: &Fake, from: usize, id: &str, token: &str) -> Vec<(String, String)> {
    let callback = format!("/api/v10/interactions/{id}/{token}/callback");
    let (_, r) = fake.wait(from, "the autocomplete answer", |r| r.path == callback).await;
    assert_eq!(r.json["type"], 8, "{r:?}");
    r.json["data"]["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap().to_string(), c["value"].as_str().unwrap().to_string()))
        .collect()
}

static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();

#[derive(Clone)]
struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for LogBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Everything logged, kept to check that the token never appears.
fn capture_logs() -> Arc<Mutex<Vec<u8>>> {
    LOGS.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let writer = LogBuffer(buffer.clone());
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter("info,kibitz_bot=debug,serenity=debug")
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        let _ = tracing::subscriber::set_global_default(subscriber);
        buffer
    })
    .clone()
}

fn logs_tail() -> String {
    let Some(logs) = LOGS.get() else { return String::new() };
    let text = String::from_utf8_lossy(&logs.lock().unwrap()).to_string();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_whole_game_on_a_fake_discord() {
    let logs = capture_logs();
    let started = Instant::now();
    dev_guild();

    let (fake, events) = Fake::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = CoreConfig { hint_time: Duration::from_millis(50), board_size: 160, ..CoreConfig::default() };
    let core = Arc::new(Core::new(Store::open(dir.path()).unwrap(), config));
    let (stop, shutdown) = adapter::shutdown_channel();
    let bot = tokio::spawn(discord::run(core.clone(), TOKEN.into(), Some(fake.url()), shutdown));
    let players = Players { events, next: AtomicU64::new(9_000) };

    // Connected: identified with the intents it needs, commands registered.
    let (_, identify) = fake.wait(0, "IDENTIFY", |r| r.method == "GATEWAY").await;
    assert_eq!(identify.json["token"], format!("Bot {TOKEN}"));
    let intents = identify.json["intents"].as_u64().unwrap();
    assert_eq!(intents, (1 << 9) | (1 << 12) | (1 << 15), "guild messages, direct messages, message content");
    let global = format!("/api/v10/applications/{APP}/commands");
    let (_, commands) = fake.wait(0, "the global commands", |r| r.method == "PUT" && r.path == global).await;
    assert_eq!(commands.authorization.as_deref(), Some(format!("Bot {TOKEN}").as_str()));
    let registered = commands.json.as_array().unwrap();
    let names: Vec<&str> = registered.iter().map(|c| c["name"].as_str().unwrap()).collect();
    for (command, _) in kibitz_bot::command::USAGE {
        assert!(names.contains(command), "/{command} registered: {names:?}");
    }
    let command = |name: &str| registered.iter().find(|c| c["name"] == name).unwrap().clone();
    assert_eq!(command("move")["options"][0]["autocomplete"], true);
    assert_eq!(command("challenge")["options"][0]["type"], 6, "the opponent is a user option");
    let in_guild = format!("/api/v10/applications/{APP}/guilds/{GUILD}/commands");
    let (_, guild) = fake.wait(0, "the guild commands", |r| r.method == "PUT" && r.path == in_guild).await;
    assert_eq!(guild.json, commands.json);
    // The bot is known by its user id, not by its name.
    assert_eq!(core.bot_id("discord"), APP);

    // Alice challenges Bob by slash command, naming him with a user option.
    let mark = fake.len();
    let (id, token) = players.slash(
        A,
        "challenge",
        &[("opponent", 6, json!(BOB)), ("side", 3, json!("white")), ("hints", 5, json!(true))],
    );
    let challenge = fake.deferred_then_edited(mark, &id, &token).await;
    assert!(text(&challenge).contains(&format!("<@{ALICE}> challenges <@{BOB}> to Chess")), "{challenge:?}");
    assert_eq!(buttons(&challenge), [format!("/accept @{ALICE}"), format!("/decline @{ALICE}")]);
    assert_eq!(challenge.json["allowed_mentions"]["parse"], json!(["users"]));

    // Bob accepts with the button.
    let mark = fake.len();
    let (id, token) = players.press(B, &format!("/accept @{ALICE}"));
    let start = fake.deferred_then_edited(mark, &id, &token).await;
    assert!(text(&start).contains(&format!("<@{ALICE}> (White) vs <@{BOB}> (Black)")), "{start:?}");
    assert_board(&start);
    assert_eq!(buttons(&start), ["/resign", "/draw", "/hint"]);

    // Autocomplete of /move: Alice's legal moves, filtered by what she typed.
    let mark = fake.len();
    let (id, token) = players.autocomplete(A, "");
    let all = suggestions(&fake, mark, &id, &token).await;
    assert_eq!(all.len(), 20, "{all:?}");
    let mark = fake.len();
    let (id, token) = players.autocomplete(A, "n");
    let knights = suggestions(&fake, mark, &id, &token).await;
    let values: Vec<&str> = knights.iter().map(|(_, v)| v.as_str()).collect();
    assert_eq!(values.len(), 4, "{knights:?}");
    for v in ["b1a3", "b1c3", "g1f3", "g1h3"] {
        assert!(values.contains(&v), "{knights:?}");
    }
    assert!(knights.iter().all(|(name, _)| name.starts_with('N')), "{knights:?}");
    let mark = fake.len();
    let (id, token) = players.autocomplete(B, "e");
    assert!(suggestions(&fake, mark, &id, &token).await.is_empty(), "not Bob's turn");

    // Alice moves by slash command.
    let mark = fake.len();
    let (id, token) = players.slash(A, "move", &[("move", 3, json!("e4"))]);
    let e4 = fake.deferred_then_edited(mark, &id, &token).await;
    assert_eq!(text(&e4), format!("<@{ALICE}> played e4 (e2e4). <@{BOB}>, your move."));
    assert_board(&e4);

    // Bob answers with a bare move; the first post is refused with 429 and tried again.
    fake.0.rate_limits.store(1, Ordering::SeqCst);
    let mark = fake.len();
    players.say(B, "e5");
    let posted = format!("/api/v10/channels/{CHANNEL}/messages");
    let (i, limited) = fake.wait(mark, "the move's message", |r| r.method == "POST" && r.path == posted).await;
    assert_eq!(limited.status, 429);
    let (_, e5) = fake.wait(i + 1, "the message again", |r| r.method == "POST" && r.path == posted).await;
    assert_eq!(e5.status, 200);
    assert_eq!(text(&e5), format!("<@{BOB}> played e5 (e7e5). <@{ALICE}>, your move."));
    // Sent with its outbox entry's nonce, the same each time, which Discord enforces.
    assert_eq!(e5.json["enforce_nonce"], true, "{}", e5.json);
    assert_eq!(e5.json["nonce"], limited.json["nonce"]);
    assert!(e5.json["nonce"].as_str().is_some_and(|n| n.starts_with("kbz") && n.len() <= 25), "{}", e5.json);
    assert_board(&e5);
    assert_eq!(buttons(&e5), ["/resign", "/draw", "/hint"]);

    // More legal moves than Discord shows: 25 of them.
    let mark = fake.len();
    let (id, token) = players.autocomplete(A, "");
    let many = suggestions(&fake, mark, &id, &token).await;
    assert_eq!(many.len(), 25, "{many:?}");

    // Alice moves by text command, Bob's mention written the old way in chat is ignored.
    let mark = fake.len();
    players.say(A, "good game <@!222>, have fun");
    players.say(A, "!move Nf3");
    let (_, nf3) = fake.wait(mark, "Nf3", |r| r.path == posted && text(r).contains("played Nf3")).await;
    assert_eq!(text(&nf3), format!("<@{ALICE}> played Nf3 (g1f3). <@{BOB}>, your move."));
    assert_board(&nf3);

    // Bob tries an illegal move and is told why.
    let mark = fake.len();
    let (id, token) = players.slash(B, "move", &[("move", 3, json!("Ke6"))]);
    let illegal = fake.deferred_then_edited(mark, &id, &token).await;
    assert!(text(&illegal).starts_with("Ke6 is not possible: "), "{illegal:?}");
    assert!(illegal.files.is_empty() && buttons(&illegal).is_empty());

    // Bob asks for a hint with the button.
    let mark = fake.len();
    let (id, token) = players.press(B, "/hint");
    let hint = fake.deferred_then_edited(mark, &id, &token).await;
    assert!(text(&hint).starts_with(&format!("Hint for <@{BOB}>: ")), "{hint:?}");
    assert_board(&hint);

    // A button the bot never made does nothing but acknowledge.
    let mark = fake.len();
    let (id, token) = players.press(B, "/challenge @333");
    let callback = format!("/api/v10/interactions/{id}/{token}/callback");
    let (_, ack) = fake.wait(mark, "the acknowledgement", |r| r.path == callback).await;
    assert_eq!(ack.json["type"], 6);

    // Alice resigns by slash command.
    let mark = fake.len();
    let (id, token) = players.slash(A, "resign", &[("confirm", 3, json!("yes"))]);
    let resigned = fake.deferred_then_edited(mark, &id, &token).await;
    assert!(text(&resigned).contains(&format!("0-1: <@{BOB}> wins (resignation)")), "{resigned:?}");

    // A mention typed in a text command reaches the core as the player.
    let mark = fake.len();
    players.say(A, "!stats <@!222>");
    let (_, stats) = fake.wait(mark, "the stats", |r| r.path == posted && text(r).starts_with("<@222>")).await;
    assert!(text(&stats).contains("Chess: "), "{stats:?}");

    // A player named by their username, without @: the user whose username
    // it is (the bot has seen Bob write), found by id.
    let mark = fake.len();
    players.say(A, "!challenge bob");
    let (_, named) = fake.wait(mark, "the challenge", |r| r.path == posted && text(r).contains("challenges")).await;
    assert!(text(&named).starts_with(&format!("<@{ALICE}> challenges <@{BOB}> to Chess")), "{named:?}");
    let mark = fake.len();
    players.say(A, "!challenge nobody_seen");
    let (_, unknown) = fake.wait(mark, "the refusal", |r| r.path == posted && text(r).contains("nobody_seen")).await;
    assert!(text(&unknown).contains("Mention the player"), "{unknown:?}");

    // The channel's settings: a member may see them, not change them; one
    // who may manage the channel (as the interaction's permissions say)
    // changes them; a typed change cannot tell and points to the command.
    let mark = fake.len();
    let (id, token) = players.slash(A, "settings", &[("hints", 5, json!(true))]);
    let refused = fake.deferred_then_edited(mark, &id, &token).await;
    assert_eq!(
        text(&refused),
        "Only those who manage this channel (its admins) can change its settings; /settings shows them."
    );
    let mut manager = member(BOB, "bob");
    manager["permissions"] = json!((1u64 << 4 | 3072).to_string());
    let mark = fake.len();
    let (id, token) = players.interaction(
        2,
        B,
        slash_data("settings", &[("game", 3, json!("alapawn")), ("days", 3, json!("3"))]),
        json!({"member": manager}),
    );
    let changed = fake.deferred_then_edited(mark, &id, &token).await;
    assert!(
        text(&changed)
            .starts_with(&format!("<@{BOB}> changes this channel's settings: game Alapawn, 3 days per move.")),
        "{changed:?}"
    );
    let settings = core.store().channel_settings(&kibitz_storage::ChannelKey::new("discord", CHANNEL)).unwrap();
    assert_eq!((settings.default_variant.as_deref(), settings.days_per_move), (Some("alapawn"), Some(3)));
    let mark = fake.len();
    players.say(B, "!settings rated off");
    let (_, typed) = fake.wait(mark, "the refusal", |r| r.path == posted && text(r).contains("slash command")).await;
    assert!(text(&typed).starts_with("From a typed message I cannot tell who manages this channel"), "{typed:?}");
    assert!(core.store().channel_settings(&kibitz_storage::ChannelKey::new("discord", CHANNEL)).unwrap().rated);

    // Nothing went unanswered or wrong; chat was not answered.
    let log = fake.log();
    assert!(log.iter().all(|r| r.status != 404), "unexpected requests: {log:?}");
    assert!(log.iter().all(|r| !text(r).contains("good game")));
    assert!(log.iter().filter(|r| r.method != "GATEWAY").all(|r| r.authorization.is_some()));

    // Shutdown stops the adapter.
    stop.send(true).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(10), bot).await.expect("run returns after shutdown");
    assert_eq!(result.unwrap(), Ok(()));

    let logs = String::from_utf8_lossy(&logs.lock().unwrap()).to_string();
    assert!(logs.contains("discord: ready"), "{logs}");
    assert!(!logs.contains(TOKEN), "the token was logged");
    assert!(started.elapsed() < Duration::from_secs(45), "took {:?}", started.elapsed());
}

/// Names the development guild, once, before any test of this file starts
/// the adapter (which reads it): every such test calls this first.
fn dev_guild() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: the only write to the environment in this test binary, done
    // before any thread of the tests reads it.
    ONCE.call_once(|| unsafe { std::env::set_var(discord::GUILD_VAR, GUILD) });
}

fn quiet_core(dir: &std::path::Path) -> Arc<Core> {
    Arc::new(Core::new(Store::open(dir).unwrap(), CoreConfig { board_size: 160, ..CoreConfig::default() }))
}

#[tokio::test]
async fn a_refused_token_ends_run_with_an_error() {
    let (fake, _events) = Fake::start().await;
    dev_guild();
    fake.0.refuse_token.store(true, Ordering::SeqCst);
    let dir = tempfile::tempdir().unwrap();
    let (_stop, shutdown) = adapter::shutdown_channel();
    let run = discord::run(quiet_core(dir.path()), "wrong".into(), Some(fake.url()), shutdown);
    let result = tokio::time::timeout(Duration::from_secs(20), run).await.expect("run gives up on a refused token");
    assert!(result.is_err(), "{result:?}");
    assert!(fake.log().iter().any(|r| r.method == "GATEWAY"), "it tried");
}

#[tokio::test]
async fn run_returns_at_once_when_already_stopping() {
    dev_guild();
    let (fake, _events) = Fake::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (stop, shutdown) = adapter::shutdown_channel();
    stop.send(true).unwrap();
    let run = discord::run(quiet_core(dir.path()), TOKEN.into(), Some(fake.url()), shutdown);
    assert_eq!(tokio::time::timeout(Duration::from_secs(5), run).await.unwrap(), Ok(()));
}

/// The fake's payloads are what serenity reads from Discord: if a model
/// changes, this says so before the game test times out.
#[test]
fn fake_payloads_read_as_discord_models() {
    use serenity::all::{CommandDataOptionValue, Interaction, Message, Ready};
    let message = message_json(1, CHANNEL, user(ALICE, "alice"), "e4");
    assert_eq!(serde_json::from_value::<Message>(message).unwrap().content, "e4");
    let ready = json!({
        "v": 10, "user": bot_user(), "guilds": [], "session_id": "s",
        "resume_gateway_url": "ws://x", "application": {"id": APP, "flags": 0},
    });
    serde_json::from_value::<Ready>(ready).unwrap();
    let read =
        |kind, data, extra| serde_json::from_value::<Interaction>(interaction_json(kind, "5", "t", B, data, extra));
    match read(3, button_data("/resign"), button_extra()).unwrap() {
        Interaction::Component(c) => assert_eq!(c.user.id.to_string(), BOB),
        other => panic!("{other:?}"),
    }
    match read(2, slash_data("challenge", &[("opponent", 6, json!(ALICE))]), json!({})).unwrap() {
        Interaction::Command(c) => {
            assert_eq!(c.user.id.to_string(), BOB);
            assert!(matches!(c.data.options[0].value, CommandDataOptionValue::User(u) if u.to_string() == ALICE));
        }
        other => panic!("{other:?}"),
    }
    match read(4, autocomplete_data("Nf"), json!({})).unwrap() {
        Interaction::Autocomplete(c) => assert_eq!(c.data.autocomplete().unwrap().value, "Nf"),
        other => panic!("{other:?}"),
    }
}
