//! A Discord on 127.0.0.1 that behaves as Discord does where a crash is
//! concerned: its REST API (reached through serenity's proxy setting, as
//! `PROXY/api/v10/...`) and its gateway WebSocket.
//!
//! Every message posted is kept in its channel's history, which
//! `GET /channels/{id}/messages?after=ID&limit=N` reads as Discord does
//! (newest first, at most 100). A message is dispatched (MESSAGE_CREATE)
//! only to a session that is ready at that moment: what is posted while the
//! bot is away, or was on its way when it died, is only in the history.
//! A message created with `enforce_nonce` and a nonce the bot used before
//! is not created again: the earlier one is returned.
//!
//! It shards as Discord does: `GET /gateway/bot` recommends a number of
//! shards ([`Discord::recommend_shards`]), each IDENTIFY names its shard
//! (`[id, total]`, kept in [`Discord::identified`]) and its READY says so
//! and lists the guilds of that shard. A message in a guild's channel is
//! dispatched to the session whose shard is `(guild_id >> 22) % total`, one
//! in a direct message (no `guild_id`) to shard 0's. A channel is in
//! [`GUILD`] unless [`Discord::put`] places it in another guild or makes it
//! a direct message; `GET /channels/{id}` describes it.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::ws::{CloseFrame, Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The bot's application and user id.
pub const APP: &str = "1000";
pub const GUILD: &str = "900";
const GUILD_ID: u64 = 900;

/// A message in a channel's history.
#[derive(Debug, Clone)]
pub struct Posted {
    pub id: u64,
    pub author: String,
    pub content: String,
    pub json: Value,
}

#[derive(Default)]
struct State_ {
    /// Channel id → its messages by id.
    channels: HashMap<u64, BTreeMap<u64, Posted>>,
    /// (channel, nonce) → the message the nonce created.
    nonces: HashMap<(u64, String), u64>,
    /// The ready sessions: their number, their shard `(id, total)` and
    /// where their events go.
    sessions: Vec<(u64, (u64, u64), mpsc::UnboundedSender<Value>)>,
    /// The guild of each channel placed with [`Discord::put`] (`None`: a
    /// direct message); the others are in [`GUILD`].
    guilds: HashMap<u64, Option<u64>>,
}

impl State_ {
    fn guild_of(&self, channel: u64) -> Option<u64> {
        self.guilds.get(&channel).copied().unwrap_or(Some(GUILD_ID))
    }
}

/// The shard of a guild's events (`None`: a direct message), as Discord
/// decides it.
pub fn shard_of(guild: Option<u64>, total: u64) -> u64 {
    guild.map_or(0, |g| (g >> 22) % total.max(1))
}

pub struct Discord {
    pub port: u16,
    state: Mutex<State_>,
    next_id: AtomicU64,
    sessions: AtomicU64,
    /// IDENTIFYs: one per start (or new session) of the bot.
    identifies: AtomicU64,
    /// Creations refused as repeats of a nonce.
    repeats: AtomicU64,
    /// History pages served.
    pages: AtomicU64,
    /// Edits of interaction responses: (token, content).
    edits: Mutex<Vec<(String, String)>>,
    /// Interaction tokens no longer accepted.
    expired: Mutex<Vec<String>>,
    /// Messages deleted by the bot: (channel, message).
    deleted: Mutex<Vec<(u64, u64)>>,
    /// Deletions refused (403, Missing Permissions): (channel, message).
    denied: Mutex<Vec<(u64, u64)>>,
    /// Whether the bot lacks Manage Messages: deletions are refused.
    pub no_manage_messages: std::sync::atomic::AtomicBool,
    /// The shards `GET /gateway/bot` recommends.
    recommended: AtomicU64,
    /// The shard of each IDENTIFY: (id, total).
    identified: Mutex<Vec<(u64, u64)>>,
    /// The channels whose history was asked for, a page at a time.
    reads: Mutex<Vec<u64>>,
    /// Registrations of the slash commands (global or in a guild).
    registrations: AtomicU64,
    /// The channels described by `GET /channels/{id}`, in order.
    described: Mutex<Vec<u64>>,
    /// Channels that `GET /channels/{id}` does not know (deleted).
    gone: Mutex<Vec<u64>>,
}

pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// `ms` since the epoch as Discord writes times (ISO 8601, UTC).
pub fn iso(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil-from-days.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}000+00:00",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        ms % 1000
    )
}

pub fn user(id: &str, name: &str) -> Value {
    json!({"id": id, "username": name, "discriminator": "0", "global_name": null, "avatar": null})
}

pub fn bot_user() -> Value {
    json!({"id": APP, "username": "kibitz", "discriminator": "0", "global_name": null, "avatar": null, "bot": true})
}

fn message_json(id: u64, channel: u64, guild: Option<u64>, author: Value, content: &str, at_ms: u64) -> Value {
    let mut json = json!({
        "id": id.to_string(),
        "channel_id": channel.to_string(),
        "author": author,
        "content": content,
        "timestamp": iso(at_ms),
        "edited_timestamp": null,
        "tts": false,
        "mention_everyone": false,
        "mentions": [],
        "mention_roles": [],
        "attachments": [],
        "embeds": [],
        "pinned": false,
        "type": 0,
    });
    if let Some(guild) = guild {
        json["guild_id"] = json!(guild.to_string());
    }
    json
}

impl Discord {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn post(&self, channel: u64, author: Value, content: &str, at_ms: u64, nonce: Option<String>) -> (Value, bool) {
        let mut state = self.state.lock().unwrap();
        if let Some(nonce) = &nonce
            && let Some(id) = state.nonces.get(&(channel, nonce.clone()))
            && let Some(m) = state.channels.get(&channel).and_then(|c| c.get(id))
        {
            self.repeats.fetch_add(1, Ordering::SeqCst);
            return (m.json.clone(), false);
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let author_id = author["id"].as_str().unwrap_or_default().to_string();
        let guild = state.guild_of(channel);
        let json = message_json(id, channel, guild, author, content, at_ms);
        state
            .channels
            .entry(channel)
            .or_default()
            .insert(id, Posted { id, author: author_id, content: content.to_string(), json: json.clone() });
        if let Some(nonce) = nonce {
            state.nonces.insert((channel, nonce), id);
        }
        for (_, (shard, total), events) in &state.sessions {
            if shard_of(guild, *total) == *shard {
                let _ = events.send(json!({"t": "MESSAGE_CREATE", "d": json}));
            }
        }
        (json, true)
    }

    /// The bot's message, as if it had posted it (before a crash) with `nonce`.
    pub fn posted_by_the_bot(&self, channel: u64, content: &str, nonce: &str) -> u64 {
        let (json, _) = self.post(channel, bot_user(), content, now_ms(), Some(nonce.to_string()));
        json["id"].as_str().unwrap().parse().unwrap()
    }

    /// From now on, editing the response of the interaction `token` is
    /// refused as Discord refuses an expired token.
    pub fn expire(&self, token: &str) {
        self.expired.lock().unwrap().push(token.to_string());
    }

    /// A player posts `content` in `channel`, dated `at_ms`; returns its id.
    pub fn say_at(&self, channel: u64, who: (&str, &str), content: &str, at_ms: u64) -> u64 {
        let (json, _) = self.post(channel, user(who.0, who.1), content, at_ms, None);
        json["id"].as_str().unwrap().parse().unwrap()
    }

    /// A player posts `content` in `channel` now.
    pub fn say(&self, channel: u64, who: (&str, &str), content: &str) -> u64 {
        self.say_at(channel, who, content, now_ms())
    }

    /// Messages the bot deleted: (channel, message).
    pub fn deleted(&self) -> Vec<(u64, u64)> {
        self.deleted.lock().unwrap().clone()
    }

    /// Deletions refused for want of Manage Messages: (channel, message).
    pub fn denied(&self) -> Vec<(u64, u64)> {
        self.denied.lock().unwrap().clone()
    }

    /// The history of `channel`, oldest first.
    pub fn history(&self, channel: u64) -> Vec<Posted> {
        self.state.lock().unwrap().channels.get(&channel).map(|c| c.values().cloned().collect()).unwrap_or_default()
    }

    /// What the bot posted in `channel`, oldest first.
    pub fn texts(&self, channel: u64) -> Vec<String> {
        self.history(channel).into_iter().filter(|p| p.author == APP).map(|p| p.content).collect()
    }

    pub fn edits(&self) -> Vec<(String, String)> {
        self.edits.lock().unwrap().clone()
    }

    pub fn identifies(&self) -> u64 {
        self.identifies.load(Ordering::SeqCst)
    }

    pub fn repeats(&self) -> u64 {
        self.repeats.load(Ordering::SeqCst)
    }

    pub fn pages(&self) -> u64 {
        self.pages.load(Ordering::SeqCst)
    }

    /// Whether a session is connected and ready.
    pub fn connected(&self) -> bool {
        self.state.lock().unwrap().sessions.iter().any(|(_, _, tx)| !tx.is_closed())
    }

    /// The shards of the sessions connected and ready, (id, total), in order.
    pub fn connected_shards(&self) -> Vec<(u64, u64)> {
        let state = self.state.lock().unwrap();
        let mut shards: Vec<(u64, u64)> =
            state.sessions.iter().filter(|(_, _, tx)| !tx.is_closed()).map(|(_, shard, _)| *shard).collect();
        shards.sort_unstable();
        shards
    }

    /// Places `channel` in `guild`, or makes it a direct message (`None`).
    pub fn put(&self, channel: u64, guild: Option<u64>) {
        self.state.lock().unwrap().guilds.insert(channel, guild);
    }

    /// From now on `GET /gateway/bot` recommends `shards` shards.
    pub fn recommend_shards(&self, shards: u64) {
        self.recommended.store(shards, Ordering::SeqCst);
    }

    /// The shard `[id, total]` of every IDENTIFY so far, in order.
    pub fn identified(&self) -> Vec<(u64, u64)> {
        self.identified.lock().unwrap().clone()
    }

    /// The channels `GET /channels/{id}` was asked about, in order.
    pub fn described(&self) -> Vec<u64> {
        self.described.lock().unwrap().clone()
    }

    /// From now on `channel` is deleted: `GET /channels/{id}` does not know it.
    pub fn delete_channel(&self, channel: u64) {
        self.gone.lock().unwrap().push(channel);
    }

    /// How often the slash commands were registered.
    pub fn registrations(&self) -> u64 {
        self.registrations.load(Ordering::SeqCst)
    }

    /// The channels whose history was read, a page at a time, in order.
    pub fn reads(&self) -> Vec<u64> {
        self.reads.lock().unwrap().clone()
    }

    /// The guilds of the channels placed, and [`GUILD`], of `shard` of `total`.
    fn guilds_of(&self, shard: u64, total: u64) -> Vec<u64> {
        let state = self.state.lock().unwrap();
        let mut guilds: Vec<u64> = state.guilds.values().flatten().copied().chain([GUILD_ID]).collect();
        guilds.sort_unstable();
        guilds.dedup();
        guilds.retain(|&g| shard_of(Some(g), total) == shard);
        guilds
    }

    /// A channel as `GET /channels/{id}` describes it.
    fn channel_json(&self, channel: u64) -> Value {
        match self.state.lock().unwrap().guild_of(channel) {
            Some(guild) => json!({
                "id": channel.to_string(), "type": 0, "guild_id": guild.to_string(), "name": format!("c{channel}"),
                "position": 0, "permission_overwrites": [], "nsfw": false,
            }),
            None => json!({"id": channel.to_string(), "type": 1, "recipients": [user("11", "alice")]}),
        }
    }

    /// Waits up to `limit` for `what` to hold.
    pub async fn until(&self, limit: Duration, what: impl Fn(&Discord) -> bool) -> bool {
        super::crash::until(self, limit, what).await
    }

    fn read_history(&self, channel: u64, query: &str) -> Value {
        let mut after = 0u64;
        let mut limit = 50usize;
        for pair in query.split('&') {
            match pair.split_once('=') {
                Some(("after", v)) => after = v.parse().unwrap_or(0),
                Some(("limit", v)) => limit = v.parse::<usize>().unwrap_or(50).clamp(1, 100),
                _ => {}
            }
        }
        self.pages.fetch_add(1, Ordering::SeqCst);
        self.reads.lock().unwrap().push(channel);
        let state = self.state.lock().unwrap();
        let Some(messages) = state.channels.get(&channel) else { return json!([]) };
        // The `limit` messages right after `after`, newest first.
        let mut page: Vec<Value> =
            messages.range(after.saturating_add(1)..).take(limit).map(|(_, m)| m.json.clone()).collect();
        page.reverse();
        Value::Array(page)
    }
}

/// Starts the fake; message ids start at `first_id`.
pub async fn start(first_id: u64) -> Arc<Discord> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let discord = Arc::new(Discord {
        port,
        state: Mutex::default(),
        next_id: AtomicU64::new(first_id),
        sessions: AtomicU64::new(0),
        identifies: AtomicU64::new(0),
        repeats: AtomicU64::new(0),
        pages: AtomicU64::new(0),
        edits: Mutex::default(),
        expired: Mutex::default(),
        deleted: Mutex::default(),
        denied: Mutex::default(),
        no_manage_messages: Default::default(),
        recommended: AtomicU64::new(1),
        identified: Mutex::default(),
        reads: Mutex::default(),
        registrations: AtomicU64::new(0),
        described: Mutex::default(),
        gone: Mutex::default(),
    });
    let app = Router::new().route("/ws", get(gateway)).fallback(rest).with_state(discord.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    discord
}

async fn rest(State(discord): State<Arc<Discord>>, req: Request) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or_default().to_string();
    let multipart = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("multipart/form-data"));
    let mut body = Value::Null;
    if multipart {
        if let Ok(mut form) = Multipart::from_request(req, &()).await {
            while let Ok(Some(field)) = form.next_field().await {
                let is_payload = field.file_name().is_none() && field.name() == Some("payload_json");
                let bytes = field.bytes().await.unwrap_or_default();
                if is_payload {
                    body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                }
            }
        }
    } else {
        let bytes = axum::body::to_bytes(req.into_body(), 1 << 24).await.unwrap_or_default();
        body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    }
    let segments: Vec<&str> = path.trim_start_matches("/api/v10/").split('/').collect();
    let content = body["content"].as_str().unwrap_or_default().to_string();
    let ws = format!("ws://127.0.0.1:{}/ws", discord.port);
    let (status, answer) = match (&method, segments.as_slice()) {
        (&Method::GET, ["gateway"]) => (200, json!({"url": ws})),
        (&Method::GET, ["gateway", "bot"]) => (
            200,
            json!({
                "url": ws, "shards": discord.recommended.load(Ordering::SeqCst),
                "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1},
            }),
        ),
        (&Method::GET, ["channels", channel]) => match channel.parse::<u64>() {
            Ok(channel) => {
                discord.described.lock().unwrap().push(channel);
                if discord.gone.lock().unwrap().contains(&channel) {
                    (404, json!({"message": "Unknown Channel", "code": 10003}))
                } else {
                    (200, discord.channel_json(channel))
                }
            }
            Err(_) => (404, json!({"message": "Unknown Channel", "code": 10003})),
        },
        (&Method::GET, ["users", "@me"]) => (200, bot_user()),
        (&Method::PUT, ["applications", _, "commands"])
        | (&Method::PUT, ["applications", _, "guilds", _, "commands"]) => {
            discord.registrations.fetch_add(1, Ordering::SeqCst);
            (200, json!([]))
        }
        (&Method::GET, ["channels", channel, "messages"]) => match channel.parse::<u64>() {
            Ok(channel) => (200, discord.read_history(channel, &query)),
            Err(_) => (404, json!({"message": "Unknown Channel", "code": 10003})),
        },
        (&Method::POST, ["channels", channel, "messages"]) => match channel.parse::<u64>() {
            Ok(channel) => {
                let nonce = match &body["nonce"] {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                };
                let enforced = body["enforce_nonce"].as_bool().unwrap_or(false);
                let (json, _) = discord.post(channel, bot_user(), &content, now_ms(), nonce.filter(|_| enforced));
                (200, json)
            }
            Err(_) => (404, json!({"message": "Unknown Channel", "code": 10003})),
        },
        (&Method::POST, ["interactions", _, _, "callback"]) => (204, Value::Null),
        (&Method::PATCH, ["webhooks", _, token, "messages", _])
            if discord.expired.lock().unwrap().iter().any(|t| t == token) =>
        {
            (404, json!({"message": "Unknown Webhook", "code": 10015}))
        }
        (&Method::PATCH, ["webhooks", _, token, "messages", _]) => {
            discord.edits.lock().unwrap().push((token.to_string(), content.clone()));
            let id = discord.next_id.fetch_add(1, Ordering::SeqCst);
            (200, message_json(id, 1, Some(GUILD_ID), bot_user(), &content, now_ms()))
        }
        (&Method::DELETE, ["webhooks", _, _, "messages", _]) => (204, Value::Null),
        (&Method::DELETE, ["channels", channel, "messages", message]) => {
            match (channel.parse::<u64>(), message.parse::<u64>()) {
                (Ok(c), Ok(m)) if discord.no_manage_messages.load(Ordering::SeqCst) => {
                    discord.denied.lock().unwrap().push((c, m));
                    (403, json!({"message": "Missing Permissions", "code": 50013}))
                }
                (Ok(c), Ok(m)) => {
                    let removed = discord.state.lock().unwrap().channels.get_mut(&c).and_then(|h| h.remove(&m));
                    match removed {
                        Some(_) => {
                            discord.deleted.lock().unwrap().push((c, m));
                            (204, Value::Null)
                        }
                        None => (404, json!({"message": "Unknown Message", "code": 10008})),
                    }
                }
                _ => (404, json!({"message": "Unknown Message", "code": 10008})),
            }
        }
        _ => (404, json!({"message": "Unknown route", "code": 0})),
    };
    let status = StatusCode::from_u16(status).unwrap();
    if answer.is_null() { status.into_response() } else { (status, axum::Json(answer)).into_response() }
}

async fn gateway(ws: WebSocketUpgrade, State(discord): State<Arc<Discord>>) -> Response {
    ws.on_upgrade(move |socket| session(discord, socket))
}

/// One gateway connection: HELLO; READY after IDENTIFY (with the shard it
/// names and that shard's guilds), from when on the messages posted for its
/// shard are dispatched to it; heartbeat ACKs; no resuming.
async fn session(discord: Arc<Discord>, mut socket: WebSocket) {
    async fn send(socket: &mut WebSocket, v: Value) -> bool {
        socket.send(WsMessage::Text(v.to_string().into())).await.is_ok()
    }
    if !send(&mut socket, json!({"op": 10, "d": {"heartbeat_interval": 41250}, "s": null, "t": null})).await {
        return;
    }
    let number = discord.sessions.fetch_add(1, Ordering::SeqCst);
    let (tx, mut events) = mpsc::unbounded_channel::<Value>();
    let mut seq = 0u64;
    loop {
        tokio::select! {
            frame = socket.recv() => {
                let text = match frame {
                    Some(Ok(WsMessage::Text(t))) => t.to_string(),
                    Some(Ok(WsMessage::Close(_))) => {
                        let _ = socket.send(WsMessage::Close(None)).await;
                        break;
                    }
                    Some(Err(_)) | None => break,
                    Some(Ok(_)) => continue,
                };
                let Ok(v) = serde_json::from_str::<Value>(&text) else { continue };
                match v["op"].as_u64() {
                    Some(1) => {
                        send(&mut socket, json!({"op": 11, "d": null, "s": null, "t": null})).await;
                    }
                    Some(2) => {
                        discord.identifies.fetch_add(1, Ordering::SeqCst);
                        let shard = &v["d"]["shard"];
                        let shard = match (shard[0].as_u64(), shard[1].as_u64()) {
                            (Some(id), Some(total)) if id < total => (id, total),
                            (None, None) => (0, 1),
                            _ => {
                                // Discord closes a session that names an impossible shard.
                                let close = CloseFrame { code: 4010, reason: "Invalid shard".into() };
                                let _ = socket.send(WsMessage::Close(Some(close))).await;
                                break;
                            }
                        };
                        discord.identified.lock().unwrap().push(shard);
                        let guilds: Vec<Value> = discord
                            .guilds_of(shard.0, shard.1)
                            .into_iter()
                            .map(|g| json!({"id": g.to_string(), "unavailable": true}))
                            .collect();
                        let d = json!({
                            "v": 10, "user": bot_user(), "guilds": guilds, "session_id": format!("s{number}"),
                            "resume_gateway_url": format!("ws://127.0.0.1:{}/ws", discord.port),
                            "application": {"id": APP, "flags": 0}, "shard": [shard.0, shard.1],
                        });
                        // Dispatching starts with READY: what is posted from now on reaches this session.
                        {
                            let mut state = discord.state.lock().unwrap();
                            state.sessions.retain(|(n, _, _)| *n != number);
                            state.sessions.push((number, shard, tx.clone()));
                            let _ = tx.send(json!({"t": "READY", "d": d}));
                        }
                    }
                    Some(6) => {
                        send(&mut socket, json!({"op": 9, "d": false, "s": null, "t": null})).await;
                    }
                    _ => {}
                }
            }
            event = events.recv() => {
                let Some(event) = event else { break };
                seq += 1;
                let frame = json!({"op": 0, "t": event["t"], "s": seq, "d": event["d"]});
                if !send(&mut socket, frame).await {
                    break;
                }
            }
        }
    }
    discord.state.lock().unwrap().sessions.retain(|(n, _, _)| *n != number);
}
