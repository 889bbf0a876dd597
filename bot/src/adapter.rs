//! What the chat adapters share: running the (blocking) core from async
//! code, the shutdown signal, and the correspondence clock loop.

use std::sync::Arc;
use std::time::Duration;

use kibitz_storage::{ChannelKey, Timestamp};
use tokio::sync::watch;

use crate::core::{Core, Incoming, Reply};

/// Becomes `true` when the bot should stop (Ctrl-C, SIGTERM).
pub type Shutdown = watch::Receiver<bool>;

/// A shutdown signal and its trigger.
pub fn shutdown_channel() -> (watch::Sender<bool>, Shutdown) {
    watch::channel(false)
}

/// Answers a message on a blocking thread: the core touches the disk and
/// draws pictures, which must not stall the async runtime.
pub async fn handle(core: &Arc<Core>, msg: Incoming) -> Vec<Reply> {
    let core = core.clone();
    match tokio::task::spawn_blocking(move || core.handle(&msg)).await {
        Ok(replies) => replies,
        Err(e) => {
            tracing::error!("the core failed on a message: {e}");
            vec![Reply {
                text: "Sorry, something went wrong with that; nothing was changed.".into(),
                ..Reply::default()
            }]
        }
    }
}

/// Runs the correspondence clocks every `every` until shutdown, passing the
/// notices of `platform` to `post`.
pub async fn clock_loop<F, Fut>(
    core: Arc<Core>,
    platform: &'static str,
    every: Duration,
    mut shutdown: Shutdown,
    post: F,
) where
    F: Fn(ChannelKey, Reply) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut interval = tokio::time::interval(every);
    loop {
        tokio::select! {
            _ = interval.tick() => {}
            _ = shutdown.changed() => return,
        }
        let c = core.clone();
        let notices = tokio::task::spawn_blocking(move || c.tick(Timestamp::now(), platform)).await.unwrap_or_default();
        for (channel, reply) in notices {
            post(channel, reply).await;
        }
    }
}
