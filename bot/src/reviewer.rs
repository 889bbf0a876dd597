//! The reviewer: one background thread that analyses finished games.
//!
//! It takes the reviews owed from the store (each for a lease, so that
//! several processes sharing a store never do one twice, and a review whose
//! process died is done by another), one at a time, and runs them with the
//! configured budget ([`Core::review_job`]). The thread runs at a lowered
//! priority: the chat is answered first. A finished review's replies wait
//! with the core's notices, which the adapters post at once
//! ([`Core::notices_signal`]).
//!
//! Stopping the reviewer ends the review under way within one position's
//! search; it stays owed, and is done after the restart.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use kibitz_storage::Timestamp;

use crate::core::{Core, REVIEW_LEASE, Reviewed};

/// How often an idle reviewer looks at the store for reviews owed that no
/// wake-up announced (queued by another process, or whose lease ended).
const LOOK_EVERY: Duration = Duration::from_secs(20);

/// How much the reviewer's thread is niced (Linux: per thread).
const NICENESS: i32 = 10;

/// The running reviewer; stopped when dropped.
pub struct Reviewer {
    core: Arc<Core>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Reviewer {
    /// Starts the reviewer of the reviews owed on `platforms`.
    pub fn start(core: Arc<Core>, platforms: &[&str]) -> Reviewer {
        let stop = Arc::new(AtomicBool::new(false));
        let platforms: Vec<String> = platforms.iter().map(|p| p.to_string()).collect();
        let thread = {
            let (core, stop) = (core.clone(), stop.clone());
            std::thread::Builder::new()
                .name("kibitz-reviewer".into())
                .spawn(move || run(&core, &platforms, &stop))
                .map_err(|e| tracing::error!("cannot start the reviewer, games are not reviewed: {e}"))
                .ok()
        };
        Reviewer { core, stop, thread }
    }

    /// Stops the reviewer and waits for its thread (at most one position's search).
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.core.wake_reviewer();
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the reviewer failed");
        }
    }
}

impl Drop for Reviewer {
    fn drop(&mut self) {
        self.halt();
    }
}

fn run(core: &Core, platforms: &[String], stop: &AtomicBool) {
    lower_priority();
    let mut seen = core.reviews_queued();
    while !stop.load(Ordering::SeqCst) {
        let mut worked = false;
        for platform in platforms {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            let jobs = match core.store().claim_reviews(Timestamp::now(), platform, REVIEW_LEASE, 1) {
                Ok(jobs) => jobs,
                Err(e) => {
                    tracing::warn!("cannot take the reviews owed on {platform}: {}", e.detail());
                    continue;
                }
            };
            for job in jobs {
                // A review that panics is dropped with its game named, not the thread.
                let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| core.review_job(&job, stop)));
                match done {
                    Ok(Reviewed::Stopped) => {
                        // Given back: the next process (or this one after a restart) takes it at once.
                        if let Err(e) = core.store().release_review(&job.game, job.round) {
                            tracing::warn!("could not give back the review of {}: {}", job.game, e.detail());
                        }
                        return;
                    }
                    Ok(_) => worked = true,
                    Err(_) => {
                        tracing::error!("the review of {} failed; it is dropped", job.game);
                        let _ = core.store().drop_review(&job.game, job.round);
                    }
                }
            }
        }
        if !worked {
            seen = core.wait_for_reviews(seen, LOOK_EVERY);
        }
    }
}

/// Lowers the calling thread's priority, so that the chat is answered first.
fn lower_priority() {
    // SAFETY: `nice` changes only the calling thread's scheduling priority
    // (Linux threads each have their own); it reads and writes no memory of ours.
    let niced = unsafe { libc::nice(NICENESS) };
    if niced == -1 {
        tracing::debug!("the reviewer runs at normal priority");
    }
}
