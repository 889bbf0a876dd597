//! Webhook mode: Telegram posts each update to the bot instead of the bot
//! asking for them, so that several processes behind a load balancer can
//! serve one token.
//!
//! At start the bot tells Telegram where to post (`setWebhook`, with the
//! secret Telegram then sends with every update); every process calls it
//! with the same address. Each request must carry the secret in its
//! `X-Telegram-Bot-Api-Secret-Token` header (compared in constant time), or
//! it is refused with 401 and nothing is done. A body that is no update is
//! logged and answered 200, so that Telegram does not post it forever. An
//! update goes through the same per-chat lanes as a polled one (see
//! `Chats` in `telegram.rs`), and is answered 200 only once it is handled and its
//! replies are in the outbox; if they could not be stored, 500, and
//! Telegram posts it again later. An update posted twice is recognised by
//! its message's id (see [`crate::relay`]) and handled once.
//!
//! On shutdown no request is taken any more, and those being handled are
//! finished and answered.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode};
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::AllowedUpdate;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};

use super::{Chats, DRAIN_LIMIT, retrying};
use crate::adapter::Shutdown;
use crate::config::Secret;

/// The header Telegram sends the secret in.
pub const SECRET_HEADER: &str = "x-telegram-bot-api-secret-token";

/// How often, and how many times, the pending updates are counted at start
/// before the clocks run anyway.
const BACKLOG_CHECK: Duration = Duration::from_secs(1);
const BACKLOG_CHECKS: u32 = 30;

/// Webhook mode's settings (`[telegram] webhook_listen`, `webhook_url`,
/// `secret_token`).
#[derive(Debug, Clone)]
pub struct Webhook {
    /// Where to listen for Telegram's requests.
    pub listen: SocketAddr,
    /// The public URL Telegram posts to (it reaches `listen`).
    pub url: String,
    /// The secret every request must carry.
    pub secret: Secret,
}

/// Whether `given` is `secret`, taking as long whatever `given` holds (for
/// a `given` of any length, the time depends on the secret's length only).
pub fn same_secret(given: &[u8], secret: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != secret.len());
    for (i, &s) in secret.iter().enumerate() {
        let g = given.get(i).copied().unwrap_or(!s);
        diff |= g ^ s;
    }
    std::hint::black_box(diff) == 0
}

/// Listens on the webhook's address; an error says which, and why not.
pub(super) async fn bind(hook: &Webhook) -> Result<TcpListener, String> {
    TcpListener::bind(hook.listen).await.map_err(|e| {
        format!("cannot listen on {} for Telegram's webhook ([telegram] webhook_listen): {e}", hook.listen)
    })
}

/// Tells Telegram to post updates to the webhook. A refusal is an error; a
/// network failure is logged (another process may have set it already).
pub(super) async fn register(bot: &Bot, hook: &Webhook) -> Result<(), String> {
    let url: url::Url = hook.url.parse().map_err(|e| format!("[telegram] webhook_url is not a URL: {e}"))?;
    let set = retrying("setWebhook", || {
        bot.set_webhook(url.clone())
            .secret_token(hook.secret.expose())
            .allowed_updates([AllowedUpdate::Message, AllowedUpdate::CallbackQuery])
            .drop_pending_updates(false)
            .send()
    })
    .await;
    match set {
        Ok(_) => {
            tracing::info!(listen = %hook.listen, "Telegram posts updates to the webhook");
            Ok(())
        }
        Err(RequestError::Api(e)) => {
            Err(format!("Telegram refused the webhook (setWebhook, [telegram] webhook_url): {e}"))
        }
        Err(e) => {
            tracing::warn!("could not set the webhook ({e}); serving it anyway, as it may be set already");
            Ok(())
        }
    }
}

/// What the request handler shares.
struct Hook {
    chats: Arc<Chats>,
    username: String,
    secret: Secret,
}

/// Serves the webhook on `listener` until shutdown, then lets the requests
/// being handled finish (for a while at most). `backlog` is told once the
/// updates that came while the bot was away are handled.
pub(super) async fn serve(
    listener: TcpListener,
    bot: &Bot,
    chats: &Arc<Chats>,
    username: &str,
    hook: &Webhook,
    shutdown: Shutdown,
    backlog: watch::Sender<bool>,
) {
    let state = Arc::new(Hook { chats: chats.clone(), username: username.to_string(), secret: hook.secret.clone() });
    let app = Router::new().fallback(receive).with_state(state);
    let stop = {
        let mut shutdown = shutdown.clone();
        async move {
            let _ = shutdown.wait_for(|stop| *stop).await;
        }
    };
    let server = tokio::spawn(axum::serve(listener, app).with_graceful_shutdown(stop).into_future());
    let pending = tokio::spawn(backlog_done(bot.clone(), chats.clone(), backlog, shutdown.clone()));
    let mut shutdown = shutdown;
    let mut server = server;
    tokio::select! {
        r = &mut server => {
            if let Ok(Err(e)) = r {
                tracing::error!("the webhook server stopped: {e}");
            }
            pending.abort();
            return;
        }
        _ = shutdown.wait_for(|stop| *stop) => {}
    }
    pending.abort();
    if tokio::time::timeout(DRAIN_LIMIT, &mut server).await.is_err() {
        tracing::warn!("webhook requests still open at shutdown are dropped (Telegram posts them again)");
        server.abort();
    }
}

/// Tells `backlog` once Telegram holds no more updates for the bot (or after
/// a while): the clocks wait for the moves sent while the bot was away.
async fn backlog_done(bot: Bot, chats: Arc<Chats>, backlog: watch::Sender<bool>, shutdown: Shutdown) {
    for _ in 0..BACKLOG_CHECKS {
        if *shutdown.borrow() {
            return;
        }
        match bot.get_webhook_info().send().await {
            Ok(info) if info.pending_update_count == 0 && chats.updates.idle() => break,
            Ok(_) => {}
            Err(e) => tracing::debug!("could not count the pending updates: {e}"),
        }
        tokio::time::sleep(BACKLOG_CHECK).await;
    }
    tracing::info!("the updates that came while the bot was away are handled");
    let _ = backlog.send(true);
}

/// One request from Telegram.
async fn receive(State(hook): State<Arc<Hook>>, method: Method, headers: HeaderMap, body: Bytes) -> StatusCode {
    if method != Method::POST {
        return StatusCode::METHOD_NOT_ALLOWED;
    }
    let given = headers.get(SECRET_HEADER).map(|v| v.as_bytes());
    if !given.is_some_and(|g| same_secret(g, hook.secret.expose().as_bytes())) {
        tracing::warn!("refused a webhook request without the right secret");
        return StatusCode::UNAUTHORIZED;
    }
    let update: Update = match serde_json::from_slice(&body) {
        Ok(update) => update,
        Err(e) => {
            // Answered as done: Telegram would post it again and again.
            tracing::warn!("a webhook request that is no update was skipped ({} bytes): {e}", body.len());
            return StatusCode::OK;
        }
    };
    let id = i64::from(update.id.0);
    let (stored, outcome) = oneshot::channel();
    hook.chats.route(id, update, &hook.username, Some(stored));
    match outcome.await {
        Ok(true) => StatusCode::OK,
        Ok(false) => StatusCode::INTERNAL_SERVER_ERROR,
        // Dropped unhandled (shutdown): Telegram posts it again.
        Err(_) => StatusCode::SERVICE_UNAVAILABLE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_compared_whole() {
        assert!(same_secret(b"s3cret_-X", b"s3cret_-X"));
        assert!(!same_secret(b"s3cret_-Y", b"s3cret_-X"));
        assert!(!same_secret(b"s3cret_-", b"s3cret_-X"));
        assert!(!same_secret(b"s3cret_-XX", b"s3cret_-X"));
        assert!(!same_secret(b"", b"s3cret_-X"));
        assert!(!same_secret(b"\xff", b"\x00"));
    }
}
