//! What the chat adapters share: the shutdown signal, the correspondence
//! clock loop and serial queues by chat (the core runs through
//! [`crate::relay`]).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

/// Becomes `true` when the bot should stop (Ctrl-C, SIGTERM).
pub type Shutdown = watch::Receiver<bool>;

/// A shutdown signal and its trigger.
pub fn shutdown_channel() -> (watch::Sender<bool>, Shutdown) {
    watch::channel(false)
}

/// Exponential backoff: 1 s doubling to 30 s (the number is the tries so far).
#[derive(Default)]
pub struct Backoff(pub u32);

impl Backoff {
    /// How long to wait before the next try.
    pub fn next_wait(&mut self) -> Duration {
        let secs = (1u64 << self.0.min(5)).min(30);
        self.0 += 1;
        Duration::from_secs(secs)
    }
}

/// Runs the correspondence clocks every `every` until shutdown, once
/// `backlog` says that what came while the bot was away is handled (a move
/// sent in time is not lost on time); each notice, stored in the outbox, goes
/// to `deliver`. Notices left outside of any message (a finished review)
/// are stored and delivered as soon as they wait ([`Core::notices_signal`](crate::core::Core::notices_signal)). On a shared store it also keeps this process's heartbeat,
/// from the start, three times per lease, and takes over (and delivers)
/// the replies owed by processes that stopped.
pub async fn clock_loop(
    relay: Arc<crate::relay::Relay>,
    every: Duration,
    backlog: watch::Receiver<bool>,
    shutdown: Shutdown,
    deliver: impl Fn(crate::relay::Delivery),
) {
    clock_loop_where(relay, every, backlog, shutdown, Arc::new(|_| true), deliver).await;
}

/// [`clock_loop`] for the games whose channel `serves` accepts (a process
/// that serves part of a platform).
pub async fn clock_loop_where(
    relay: Arc<crate::relay::Relay>,
    every: Duration,
    mut backlog: watch::Receiver<bool>,
    mut shutdown: Shutdown,
    serves: crate::relay::Serves,
    deliver: impl Fn(crate::relay::Delivery),
) {
    let lease = relay.core().store().worker_lease();
    let beat = lease.map_or(Duration::from_secs(3600), |l| (l / 3).max(Duration::from_millis(200)));
    let mut keepalive = tokio::time::interval_at(tokio::time::Instant::now() + beat, beat);
    keepalive.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut clock = tokio::time::interval(every);
    let mut caught_up = *backlog.borrow();
    // Notices left outside of any message (a finished review) go out at once.
    let mut notices = relay.core().notices_signal();
    notices.mark_changed();
    enum Due {
        CaughtUp(bool),
        Clock,
        Keepalive,
        Notices,
        Stop,
    }
    loop {
        // The futures of `select!` live until it ends: the work is done after it.
        let due = tokio::select! {
            ok = async { backlog.wait_for(|done| *done).await.is_ok() }, if !caught_up => Due::CaughtUp(ok),
            _ = clock.tick(), if caught_up => Due::Clock,
            _ = keepalive.tick(), if lease.is_some() => Due::Keepalive,
            Ok(()) = notices.changed() => Due::Notices,
            _ = shutdown.wait_for(|stop| *stop) => Due::Stop,
        };
        match due {
            Due::CaughtUp(false) | Due::Stop => return,
            Due::CaughtUp(true) => caught_up = true,
            Due::Clock => match relay.tick_where(kibitz_storage::Timestamp::now(), serves.clone()).await {
                Ok(notices) => notices.into_iter().for_each(&deliver),
                Err(e) => tracing::warn!("the clocks could not store their notices: {e}"),
            },
            Due::Notices => match relay.post_notices().await {
                Ok(posted) => posted.into_iter().for_each(&deliver),
                Err(e) => tracing::warn!("the notices could not be stored: {e}"),
            },
            Due::Keepalive => {
                let orphans = relay.keepalive().await;
                if !orphans.is_empty() {
                    tracing::info!("taking over {} replies owed by a process that stopped", orphans.len());
                }
                orphans.into_iter().for_each(&deliver);
            }
        }
    }
}

/// Serial queues by key (a chat): jobs of one key run one after another in
/// the order given, different keys at once. A queue's worker ends after a
/// while without work and starts again with the next job.
pub struct Lanes<J> {
    queues: std::sync::Mutex<std::collections::HashMap<i64, tokio::sync::mpsc::UnboundedSender<J>>>,
    workers: std::sync::Mutex<tokio::task::JoinSet<()>>,
    idle: Duration,
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<J: Send + 'static> Lanes<J> {
    /// Lanes whose workers end after `idle` without work.
    pub fn new(idle: Duration) -> Lanes<J> {
        Lanes { queues: std::sync::Mutex::default(), workers: std::sync::Mutex::default(), idle }
    }

    /// Queues `job` for `key`; `work` does one job (a new worker is started
    /// with it when the key has none).
    pub fn push<W, Fut>(self: &Arc<Self>, key: i64, job: J, work: W)
    where
        W: Fn(J) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let mut queues = lock(&self.queues);
        let job = match queues.get(&key) {
            Some(tx) => match tx.send(job) {
                Ok(()) => return,
                Err(tokio::sync::mpsc::error::SendError(job)) => job, // the worker just went idle
            },
            None => job,
        };
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let _ = tx.send(job);
        queues.insert(key, tx);
        let mut workers = lock(&self.workers);
        while workers.try_join_next().is_some() {}
        let lanes = self.clone();
        workers.spawn(async move {
            loop {
                match tokio::time::timeout(lanes.idle, rx.recv()).await {
                    Ok(Some(job)) => work(job).await,
                    Ok(None) => break,
                    Err(_) => {
                        rx.close();
                        while let Ok(job) = rx.try_recv() {
                            work(job).await;
                        }
                        let mut queues = lock(&lanes.queues);
                        if queues.get(&key).is_some_and(|tx| tx.is_closed()) {
                            queues.remove(&key);
                        }
                        break;
                    }
                }
            }
        });
    }

    /// Takes no more jobs and waits up to `limit` for the queued ones;
    /// `false` if some were still running.
    pub async fn drain(&self, limit: Duration) -> bool {
        lock(&self.queues).clear();
        let mut workers = std::mem::take(&mut *lock(&self.workers));
        let all = async { while workers.join_next().await.is_some() {} };
        tokio::time::timeout(limit, all).await.is_ok()
    }
}
