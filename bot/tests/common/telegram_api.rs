//! A Bot API server on 127.0.0.1 that behaves as Telegram's does where a
//! crash is concerned: `getUpdates` hands out every update not yet
//! confirmed, an offset confirms (and forgets) every update below it, and
//! nothing confirmed is ever delivered again. Sent messages are recorded.
//!
//! For webhook mode it records `setWebhook` calls, and [`WebhookSender`]
//! posts updates to the bot as Telegram does: with the secret header, and
//! again after a request that fails or is not answered 2xx.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::Router;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::{StatusCode, header};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// What the server saw and holds.
#[derive(Default)]
pub struct Server {
    pub token: String,
    queue: Mutex<VecDeque<Value>>,
    last_update: Mutex<i64>,
    last_message: Mutex<i64>,
    /// The highest offset any `getUpdates` confirmed with.
    confirmed: Mutex<i64>,
    arrived: Notify,
    /// Messages the bot sent: (method, chat, text or caption).
    pub sent: Mutex<Vec<(String, i64, String)>>,
    /// Calls of `getMe`: one per start of the bot.
    pub starts: Mutex<usize>,
    /// `deleteMessage` calls: (chat, message), whether refused or not.
    pub deletions: Mutex<Vec<(i64, i64)>>,
    /// Whether the bot is no admin: `deleteMessage` is refused, as Telegram
    /// refuses it in a group where the bot may not delete others' messages.
    pub not_admin: std::sync::atomic::AtomicBool,
    /// When each message the bot sent arrived: (chat, milliseconds since
    /// the epoch).
    pub sent_at: Mutex<Vec<(i64, u64)>>,
    /// The bodies of `setWebhook` calls.
    pub webhooks: Mutex<Vec<Value>>,
    /// Files sent with `sendDocument`: (chat, file name, contents as text).
    pub documents: Mutex<Vec<(i64, String, String)>>,
}

pub fn unix_now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

pub fn user(id: i64, name: &str) -> Value {
    json!({"id": id, "is_bot": false, "first_name": name, "username": name})
}

fn chat(id: i64) -> Value {
    if id < 0 {
        json!({"id": id, "type": "supergroup", "title": format!("club {id}")})
    } else {
        json!({"id": id, "type": "private", "first_name": "Someone"})
    }
}

impl Server {
    /// Queues an update; returns its id.
    pub fn push(&self, mut update: Value) -> i64 {
        let id = {
            let mut last = self.last_update.lock().unwrap();
            *last += 1;
            *last
        };
        update["update_id"] = json!(id);
        self.queue.lock().unwrap().push_back(update);
        self.arrived.notify_waiters();
        id
    }

    /// A text message from `from` in `chat`, dated `date` (Unix seconds).
    pub fn message_at(&self, chat_id: i64, from: Value, text: &str, date: i64) -> i64 {
        let message_id = {
            let mut last = self.last_message.lock().unwrap();
            *last += 1;
            *last
        };
        self.push(json!({"message": {
            "message_id": message_id, "date": date, "chat": chat(chat_id), "from": from, "text": text,
        }}))
    }

    /// A text message sent now; returns the message's id (not the update's).
    pub fn post(&self, chat_id: i64, from: Value, text: &str) -> i64 {
        let message_id = {
            let mut last = self.last_message.lock().unwrap();
            *last += 1;
            *last
        };
        self.push(json!({"message": {
            "message_id": message_id, "date": unix_now(), "chat": chat(chat_id), "from": from, "text": text,
        }}));
        message_id
    }

    /// A new update (fresh update and message ids) with a text message from
    /// `from` in `chat`, sent now, as Telegram would post it to a webhook;
    /// it is not queued for `getUpdates`.
    pub fn update(&self, chat_id: i64, from: Value, text: &str) -> Value {
        let update_id = {
            let mut last = self.last_update.lock().unwrap();
            *last += 1;
            *last
        };
        let message_id = {
            let mut last = self.last_message.lock().unwrap();
            *last += 1;
            *last
        };
        json!({"update_id": update_id, "message": {
            "message_id": message_id, "date": unix_now(), "chat": chat(chat_id), "from": from, "text": text,
        }})
    }

    /// `setWebhook` calls: (url, secret token).
    pub fn webhooks(&self) -> Vec<(String, String)> {
        let calls = self.webhooks.lock().unwrap();
        let text = |v: &Value| v.as_str().unwrap_or("").to_string();
        calls.iter().map(|c| (text(&c["url"]), text(&c["secret_token"]))).collect()
    }

    /// A text message sent now.
    pub fn say(&self, chat_id: i64, from: Value, text: &str) -> i64 {
        self.message_at(chat_id, from, text, unix_now())
    }

    /// Updates handed out and not yet confirmed.
    pub fn unconfirmed(&self) -> usize {
        self.queue.lock().unwrap().len()
    }

    pub fn sent(&self) -> Vec<(String, i64, String)> {
        self.sent.lock().unwrap().clone()
    }

    /// Texts sent to `chat`.
    pub fn texts(&self, chat_id: i64) -> Vec<String> {
        self.sent().into_iter().filter(|(_, c, _)| *c == chat_id).map(|(_, _, t)| t).collect()
    }

    /// `deleteMessage` calls: (chat, message).
    pub fn deletions(&self) -> Vec<(i64, i64)> {
        self.deletions.lock().unwrap().clone()
    }

    pub fn starts(&self) -> usize {
        *self.starts.lock().unwrap()
    }

    /// Waits up to `limit` for `what` to hold.
    pub async fn until(&self, limit: Duration, what: impl Fn(&Server) -> bool) -> bool {
        super::crash::until(self, limit, what).await
    }

    async fn updates(&self, body: &Value) -> Value {
        let offset = body["offset"].as_i64().unwrap_or(0);
        let wait = body["timeout"].as_u64().unwrap_or(0).min(30);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(wait);
        {
            let mut confirmed = self.confirmed.lock().unwrap();
            *confirmed = (*confirmed).max(offset);
        }
        loop {
            let arrived = self.arrived.notified();
            {
                let mut queue = self.queue.lock().unwrap();
                queue.retain(|u| u["update_id"].as_i64().unwrap_or(0) >= offset);
                if !queue.is_empty() {
                    let limit = body["limit"].as_u64().unwrap_or(100).clamp(1, 100) as usize;
                    return Value::Array(queue.iter().take(limit).cloned().collect());
                }
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return json!([]);
            }
        }
    }

    fn answer_send(&self, method: &str, body: &Value) -> Value {
        let chat_id = match &body["chat_id"] {
            Value::Number(n) => n.as_i64().unwrap_or(0),
            Value::String(s) => s.parse().unwrap_or(0),
            _ => 0,
        };
        let text = body["text"].as_str().or(body["caption"].as_str()).unwrap_or("").to_string();
        self.sent.lock().unwrap().push((method.to_string(), chat_id, text.clone()));
        let millis = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        self.sent_at.lock().unwrap().push((chat_id, millis));
        let id = {
            let mut last = self.last_message.lock().unwrap();
            *last += 1;
            *last
        };
        let bot = json!({"id": 999, "is_bot": true, "first_name": "Kibitz", "username": "KibitzBot"});
        let mut m = json!({"message_id": id, "date": unix_now(), "chat": chat(chat_id), "from": bot});
        if method == "sendPhoto" {
            m["photo"] = json!([{"file_id": format!("f{id}"), "file_unique_id": format!("u{id}"),
                "width": 160, "height": 160}]);
            m["caption"] = json!(text);
        } else if method == "sendAnimation" {
            let file = json!({"file_id": format!("a{id}"), "file_unique_id": format!("v{id}"),
                "width": 160, "height": 160, "duration": 8, "file_name": "replay.gif", "mime_type": "image/gif"});
            m["animation"] = file.clone();
            m["document"] = file;
            m["caption"] = json!(text);
        } else if method == "sendDocument" {
            // The file goes as `attach://` a part of its own.
            let file = body.as_object().and_then(|o| o.iter().find(|(k, _)| k.ends_with("_file"))).map(|(_, v)| v);
            let name = file.and_then(|f| f["name"].as_str()).unwrap_or("").to_string();
            let contents = file.and_then(|f| f["text"].as_str()).unwrap_or("").to_string();
            self.documents.lock().unwrap().push((chat_id, name.clone(), contents));
            m["document"] = json!({"file_id": format!("d{id}"), "file_unique_id": format!("w{id}"),
                "file_name": name, "mime_type": "application/octet-stream"});
            m["caption"] = json!(text);
        } else {
            m["text"] = json!(text);
        }
        m
    }
}

async fn body_of(request: Request) -> Value {
    let multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    if multipart {
        let mut fields = serde_json::Map::new();
        let Ok(mut form) = Multipart::from_request(request, &()).await else { return json!({}) };
        while let Ok(Some(field)) = form.next_field().await {
            let name = field.name().unwrap_or("").to_string();
            if let Some(file) = field.file_name().map(str::to_string) {
                // A file is kept by its name, and as text where it is some.
                let text = field.bytes().await.ok().and_then(|b| String::from_utf8(b.to_vec()).ok());
                fields.insert(format!("{name}_file"), json!({"name": file, "text": text}));
            } else if let Ok(text) = field.text().await {
                fields.insert(name, json!(text));
            }
        }
        Value::Object(fields)
    } else {
        let bytes = axum::body::to_bytes(request.into_body(), 1 << 20).await.unwrap_or_default();
        serde_json::from_slice(&bytes).unwrap_or(json!({}))
    }
}

async fn api(
    State(server): State<Arc<Server>>,
    Path((bot, method)): Path<(String, String)>,
    request: Request,
) -> (StatusCode, Json<Value>) {
    if bot != format!("bot{}", server.token) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"ok": false, "error_code": 401, "description": "Unauthorized"})),
        );
    }
    let body = body_of(request).await;
    let result = match method.to_ascii_lowercase().as_str() {
        "getme" => {
            *server.starts.lock().unwrap() += 1;
            json!({"id": 999, "is_bot": true, "first_name": "Kibitz", "username": "KibitzBot",
                "can_join_groups": true, "can_read_all_group_messages": true, "supports_inline_queries": false,
                "has_main_web_app": false})
        }
        "getupdates" => server.updates(&body).await,
        "sendmessage" => server.answer_send("sendMessage", &body),
        "sendphoto" => server.answer_send("sendPhoto", &body),
        "sendanimation" => server.answer_send("sendAnimation", &body),
        "senddocument" => server.answer_send("sendDocument", &body),
        "deletemessage" => {
            let number = |v: &Value| v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(0);
            server.deletions.lock().unwrap().push((number(&body["chat_id"]), number(&body["message_id"])));
            if server.not_admin.load(std::sync::atomic::Ordering::SeqCst) {
                return (
                    StatusCode::BAD_REQUEST,
                    Json(json!({"ok": false, "error_code": 400,
                        "description": "Bad Request: message can't be deleted"})),
                );
            }
            json!(true)
        }
        "setwebhook" => {
            server.webhooks.lock().unwrap().push(body);
            json!(true)
        }
        "getwebhookinfo" => {
            let url = server.webhooks().last().map(|(url, _)| url.clone()).unwrap_or_default();
            json!({"url": url, "has_custom_certificate": false, "pending_update_count": 0})
        }
        "setmycommands" | "deletewebhook" | "answercallbackquery" => json!(true),
        _ => {
            return (
                StatusCode::NOT_FOUND,
                Json(json!({"ok": false, "error_code": 404, "description": "Not Found: method not found"})),
            );
        }
    };
    (StatusCode::OK, Json(json!({"ok": true, "result": result})))
}

/// Starts a server for `token`; returns it and its address.
pub async fn start(token: &str) -> (Arc<Server>, SocketAddr) {
    let server = Arc::new(Server { token: token.to_string(), ..Server::default() });
    let app = Router::new().route("/{bot}/{method}", post(api)).with_state(server.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port on 127.0.0.1");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (server, addr)
}

/// Posts updates to a bot's webhook as Telegram does.
#[derive(Clone)]
pub struct WebhookSender {
    /// Where the bot listens.
    pub addr: SocketAddr,
    /// The path posted to.
    pub path: String,
    /// The secret sent in `X-Telegram-Bot-Api-Secret-Token`, if any.
    pub secret: Option<String>,
}

impl WebhookSender {
    /// One POST of `body`: the answer's status, or `None` if the request
    /// failed (no connection, no answer within 30 s).
    pub async fn post(&self, body: &[u8]) -> Option<u16> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let exchange = async {
            let mut stream = tokio::net::TcpStream::connect(self.addr).await.ok()?;
            let mut head = format!(
                "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
                self.path,
                self.addr,
                body.len()
            );
            if let Some(secret) = &self.secret {
                head.push_str(&format!("X-Telegram-Bot-Api-Secret-Token: {secret}\r\n"));
            }
            head.push_str("Connection: close\r\n\r\n");
            stream.write_all(head.as_bytes()).await.ok()?;
            stream.write_all(body).await.ok()?;
            let mut answer = Vec::new();
            stream.read_to_end(&mut answer).await.ok()?;
            let answer = String::from_utf8_lossy(&answer);
            let status = answer.strip_prefix("HTTP/1.1 ")?.get(..3)?;
            status.parse().ok()
        };
        tokio::time::timeout(Duration::from_secs(30), exchange).await.ok().flatten()
    }

    /// Delivers `update` as Telegram does: posted again (a little later)
    /// while the request fails or is answered other than 2xx, up to 50
    /// times. Returns every answer's status in order (`None`: failed).
    pub async fn deliver(&self, update: &Value) -> Vec<Option<u16>> {
        let body = serde_json::to_vec(update).expect("JSON");
        let mut seen = Vec::new();
        for _ in 0..50 {
            let status = self.post(&body).await;
            seen.push(status);
            if status.is_some_and(|s| (200..300).contains(&s)) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        seen
    }
}
