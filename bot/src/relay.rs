//! Between the platforms and the core: every message handled exactly once,
//! every reply kept until its platform has it.
//!
//! An adapter gives each message to [`Relay::handle`]. A message handled
//! before (its result stored) is skipped. Otherwise the core answers it, and
//! the answer, with the notices for other channels it caused, is stored in
//! the outbox in the same transaction that marks the message handled (see
//! `kibitz_storage::Completion`). Only after that does the adapter confirm the
//! message to its platform; and only after the platform has accepted a reply
//! does the reply leave the outbox. A crash at any moment therefore loses
//! nothing: an unconfirmed message comes again and is handled (the core
//! recognises the changes it already made by the message id and answers
//! with what they did), and owed replies are sent after the restart.
//!
//! A panic in the core is caught: the message is answered with an apology
//! and counted as handled, so one bad message cannot stop an adapter.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use kibitz_storage::{ChannelKey, Completion, Owed, StoreError, Timestamp};
use serde::{Deserialize, Serialize};

use crate::core::{Action, Button, Core, Incoming, Picture, Reply};

/// A reply the bot owes a channel, as the outbox keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// Its number in the outbox.
    pub seq: u64,
    /// The channel to post it in.
    pub channel: String,
    /// The reply.
    pub reply: Reply,
    /// How many of its parts the platform has accepted already.
    pub progress: u32,
    /// An action to take in the channel instead of posting (`reply` is then
    /// empty): deleting a sealed bid typed in public.
    pub action: Option<Action>,
}

/// The stored form of a reply: this header (JSON), then the picture's bytes.
/// An action is stored the same way, with its own field set.
#[derive(Serialize, Deserialize)]
struct Header {
    text: String,
    buttons: Vec<(String, String)>,
    picture: Option<String>,
    /// A message to delete: its id (if any) and its author.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    delete: Option<(Option<String>, String)>,
}

/// A reply as outbox bytes.
pub fn encode(reply: &Reply) -> Vec<u8> {
    let header = Header {
        text: reply.text.clone(),
        buttons: reply.buttons.iter().map(|b| (b.label.clone(), b.command.clone())).collect(),
        picture: reply.picture.as_ref().map(|p| p.name.clone()),
        delete: None,
    };
    frame(&header, reply.picture.as_ref().map_or(&[][..], |p| &p.bytes[..]))
}

/// An action as outbox bytes: a header with nothing to post.
pub fn encode_action(action: &Action) -> Vec<u8> {
    let Action::Delete { message_id, author } = action;
    let header = Header {
        text: String::new(),
        buttons: Vec::new(),
        picture: None,
        delete: Some((message_id.clone(), author.clone())),
    };
    frame(&header, &[])
}

/// The header's length, the header (JSON), then the picture's bytes.
fn frame(header: &Header, png: &[u8]) -> Vec<u8> {
    let json = serde_json::to_vec(header).unwrap_or_default();
    let mut out = Vec::with_capacity(4 + json.len() + png.len());
    out.extend_from_slice(&(json.len() as u32).to_be_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(png);
    out
}

/// The header of outbox bytes and the picture's bytes after it; `None` if
/// they are damaged.
fn unframe(bytes: &[u8]) -> Option<(Header, &[u8])> {
    let len = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let end = 4usize.checked_add(len)?;
    let header: Header = serde_json::from_slice(bytes.get(4..end)?).ok()?;
    Some((header, &bytes[end..]))
}

/// Outbox bytes back as a reply; `None` if they are damaged.
pub fn decode(bytes: &[u8]) -> Option<Reply> {
    Some(reply_of(unframe(bytes)?))
}

fn reply_of((header, png): (Header, &[u8])) -> Reply {
    Reply {
        text: header.text,
        picture: header.picture.map(|name| Picture { name, bytes: png.to_vec() }),
        buttons: header.buttons.into_iter().map(|(label, command)| Button { label, command }).collect(),
    }
}

/// The action in outbox bytes, if they hold one.
pub fn decode_action(bytes: &[u8]) -> Option<Action> {
    let (message_id, author) = unframe(bytes)?.0.delete?;
    Some(Action::Delete { message_id, author })
}

fn delivery(owed: Owed) -> Option<Delivery> {
    let (mut header, png) = unframe(&owed.payload)?;
    let action = header.delete.take().map(|(message_id, author)| Action::Delete { message_id, author });
    let reply = reply_of((header, png));
    Some(Delivery { seq: owed.seq, channel: owed.channel, reply, progress: owed.progress, action })
}

/// Which channels' games a process runs the clocks of (see
/// [`Relay::tick_where`]).
pub type Serves = Arc<dyn Fn(&ChannelKey) -> bool + Send + Sync>;

/// Why a message's result could not be kept: it is to be handled again later
/// (and not confirmed meanwhile).
#[derive(Debug)]
pub struct NotStored(pub String);

impl std::fmt::Display for NotStored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The relay of one platform.
pub struct Relay {
    core: Arc<Core>,
    platform: &'static str,
}

const SORRY: &str = "Sorry, something went wrong with that; nothing was changed.";

impl Relay {
    /// The relay of `platform` over `core`.
    pub fn new(core: Arc<Core>, platform: &'static str) -> Relay {
        Relay { core, platform }
    }

    /// The core.
    pub fn core(&self) -> &Arc<Core> {
        &self.core
    }

    /// Handles `msg` unless it was handled before, and stores what it owes
    /// (with `cursor`, a reading position to record with it). Returns the
    /// replies to send, in order; empty for a message handled before.
    pub async fn handle(
        self: &Arc<Self>,
        msg: Incoming,
        cursor: Option<(String, String)>,
    ) -> Result<Vec<Delivery>, NotStored> {
        let relay = self.clone();
        tokio::task::spawn_blocking(move || relay.handle_blocking(&msg, cursor))
            .await
            .unwrap_or_else(|e| Err(NotStored(format!("the handling task failed: {e}"))))
    }

    /// [`Relay::handle`], with a route for the message's first reply: it is
    /// owed to `route` instead of the message's channel. A route is the
    /// adapter's own channel string for answering in place (Discord: an
    /// interaction to edit, with its channel to fall back on); the relay
    /// does not read it. The other replies and the notices go to their
    /// channels as usual.
    pub async fn handle_routed(
        self: &Arc<Self>,
        msg: Incoming,
        cursor: Option<(String, String)>,
        route: Option<String>,
    ) -> Result<Vec<Delivery>, NotStored> {
        let relay = self.clone();
        tokio::task::spawn_blocking(move || relay.handle_blocking_routed(&msg, cursor, route))
            .await
            .unwrap_or_else(|e| Err(NotStored(format!("the handling task failed: {e}"))))
    }

    /// [`Relay::handle`], on the calling thread.
    pub fn handle_blocking(
        &self,
        msg: &Incoming,
        cursor: Option<(String, String)>,
    ) -> Result<Vec<Delivery>, NotStored> {
        self.handle_blocking_routed(msg, cursor, None)
    }

    /// [`Relay::handle_routed`], on the calling thread.
    pub fn handle_blocking_routed(
        &self,
        msg: &Incoming,
        cursor: Option<(String, String)>,
        route: Option<String>,
    ) -> Result<Vec<Delivery>, NotStored> {
        let store = self.core.store();
        if let Some(id) = &msg.message_id {
            match store.is_handled(self.platform, id) {
                Ok(true) => return Ok(Vec::new()),
                Ok(false) => {}
                Err(e) => return Err(NotStored(e.to_string())),
            }
        }
        let replies = match std::panic::catch_unwind(AssertUnwindSafe(|| self.core.handle_once(msg))) {
            Ok(replies) => replies,
            Err(_) => {
                tracing::error!(channel = %msg.channel, "the core failed on a message; it is answered with an apology");
                vec![Reply { text: SORRY.into(), ..Reply::default() }]
            }
        };
        let mut owed: Vec<(String, Vec<u8>)> = replies.iter().map(|r| (msg.channel.clone(), encode(r))).collect();
        if let (Some(route), Some(first)) = (route, owed.first_mut()) {
            first.0 = route;
        }
        owed.extend(self.core.take_notices(self.platform).into_iter().map(|(k, r)| (k.channel, encode(&r))));
        // Actions wait in the outbox like replies: a deletion asked for is
        // not lost in a crash.
        owed.extend(self.core.take_actions(self.platform).into_iter().map(|(k, a)| (k.channel, encode_action(&a))));
        let done = Completion {
            platform: self.platform.to_string(),
            message_id: msg.message_id.clone(),
            cursor,
            owed,
            at: Timestamp::now(),
        };
        self.complete(&done)
    }

    /// Stores what handling left; what is owed, to send (nothing for a
    /// message handled before). The reviews among the notices it stored are
    /// no longer owed (see [`Core::notices_kept`]).
    fn complete(&self, done: &Completion) -> Result<Vec<Delivery>, NotStored> {
        match self.core.store().complete(done) {
            Ok(entries) => {
                self.core.notices_kept(self.platform);
                Ok(entries.into_iter().filter_map(delivery).collect())
            }
            Err(StoreError::AlreadyHandled(_)) => {
                self.core.notices_lost(self.platform);
                Ok(Vec::new())
            }
            Err(e) => {
                self.core.notices_lost(self.platform);
                Err(NotStored(e.to_string()))
            }
        }
    }

    /// Stores the notices waiting outside of any message (a finished
    /// review); returns them to send. See [`Core::notices_signal`].
    pub async fn post_notices(self: &Arc<Self>) -> Result<Vec<Delivery>, NotStored> {
        let relay = self.clone();
        let run = move || {
            let notices = relay.core.take_notices(relay.platform);
            if notices.is_empty() {
                return Ok(Vec::new());
            }
            let done = Completion {
                platform: relay.platform.to_string(),
                message_id: None,
                cursor: None,
                owed: notices.into_iter().map(|(k, r)| (k.channel, encode(&r))).collect(),
                at: Timestamp::now(),
            };
            relay.complete(&done)
        };
        tokio::task::spawn_blocking(run)
            .await
            .unwrap_or_else(|e| Err(NotStored(format!("the notices task failed: {e}"))))
    }

    /// Stores `reply` as the answer to `msg`, which the core does not see (an
    /// adapter's own refusal), unless `msg` was handled before.
    pub async fn answer(self: &Arc<Self>, msg: Incoming, reply: Reply) -> Result<Vec<Delivery>, NotStored> {
        let relay = self.clone();
        let run = move || {
            let done = Completion {
                platform: relay.platform.to_string(),
                message_id: msg.message_id.clone(),
                cursor: None,
                owed: vec![(msg.channel.clone(), encode(&reply))],
                at: Timestamp::now(),
            };
            relay.complete(&done)
        };
        tokio::task::spawn_blocking(run).await.unwrap_or_else(|e| Err(NotStored(format!("the task failed: {e}"))))
    }

    /// Runs the correspondence clocks at `now` and stores the notices they
    /// give; returns them to send.
    pub async fn tick(self: &Arc<Self>, now: Timestamp) -> Result<Vec<Delivery>, NotStored> {
        self.tick_where(now, Arc::new(|_: &ChannelKey| true)).await
    }

    /// [`Relay::tick`] for the games whose channel `serves` accepts (see
    /// [`Core::tick_where`]).
    pub async fn tick_where(self: &Arc<Self>, now: Timestamp, serves: Serves) -> Result<Vec<Delivery>, NotStored> {
        let relay = self.clone();
        let run = move || {
            let notices =
                std::panic::catch_unwind(AssertUnwindSafe(|| relay.core.tick_where(now, relay.platform, &*serves)))
                    .map_err(|_| NotStored("the clock failed".into()))?;
            if notices.is_empty() {
                return Ok(Vec::new());
            }
            let done = Completion {
                platform: relay.platform.to_string(),
                message_id: None,
                cursor: None,
                owed: notices.into_iter().map(|(k, r)| (k.channel, encode(&r))).collect(),
                at: now,
            };
            relay.complete(&done)
        };
        tokio::task::spawn_blocking(run).await.unwrap_or_else(|e| Err(NotStored(format!("the clock task failed: {e}"))))
    }

    /// Every reply still owed that no other live process is sending (from
    /// before a restart, or of a process that stopped), oldest first: they
    /// are this process's to send now.
    pub fn owed(&self) -> Vec<Delivery> {
        let entries = match self.core.store().claim_owed(self.platform) {
            Ok(entries) => entries,
            Err(e) => {
                tracing::error!("cannot read the replies owed: {e}");
                return Vec::new();
            }
        };
        let mut found = Vec::new();
        for entry in entries {
            match entry.map(|o| (o.seq, delivery(o))) {
                Ok((_, Some(d))) => found.push(d),
                Ok((seq, None)) => {
                    tracing::warn!(seq, "an owed reply is damaged and is dropped");
                    let _ = self.core.store().delivered(self.platform, seq);
                }
                Err(e) => tracing::warn!("an owed reply cannot be read: {e}"),
            }
        }
        found
    }

    /// Tells the processes sharing the store that this one is alive, and
    /// takes over the replies owed by any that is not: returns them to send.
    pub async fn keepalive(self: &Arc<Self>) -> Vec<Delivery> {
        let relay = self.clone();
        let run = move || {
            if let Err(e) = relay.core.store().heartbeat() {
                tracing::warn!("could not tell the other processes this one is alive: {}", e.detail());
                return Vec::new();
            }
            relay.owed()
        };
        tokio::task::spawn_blocking(run).await.unwrap_or_default()
    }

    /// The platform accepted the whole reply `seq`.
    pub async fn delivered(self: &Arc<Self>, seq: u64) {
        let relay = self.clone();
        let done = tokio::task::spawn_blocking(move || relay.core.store().delivered(relay.platform, seq)).await;
        if let Ok(Err(e)) = done {
            tracing::warn!(seq, "could not note a reply as sent (it may be sent again after a restart): {e}");
        }
    }

    /// The platform accepted `parts` parts of reply `seq`.
    pub async fn progress(self: &Arc<Self>, seq: u64, parts: u32) {
        let relay = self.clone();
        let done =
            tokio::task::spawn_blocking(move || relay.core.store().set_progress(relay.platform, seq, parts)).await;
        if let Ok(Err(e)) = done {
            tracing::warn!(seq, "could not note a reply's progress: {e}");
        }
    }

    /// Forgets handled-message marks older than a week (platforms deliver
    /// again for a day at most).
    pub fn forget_old(&self) {
        let week = 7 * 86_400_000;
        let before = Timestamp(Timestamp::now().0.saturating_sub(week));
        if let Err(e) = self.core.store().forget_handled(self.platform, before) {
            tracing::warn!("could not forget old handled messages: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_survive_the_outbox() {
        let reply = Reply {
            text: "<@alice> played e4. <@bob>, your move.".into(),
            picture: Some(Picture { name: "board-k3x9-1.png".into(), bytes: vec![0x89, b'P', b'N', b'G', 0, 1] }),
            buttons: vec![Button { label: "Resign".into(), command: "/resign".into() }],
        };
        assert_eq!(decode(&encode(&reply)), Some(reply));
        let plain = Reply { text: "hello".into(), ..Reply::default() };
        assert_eq!(decode(&encode(&plain)), Some(plain.clone()));
        assert_eq!(decode(b"\0\0\0\x09{}"), None);
        assert_eq!(decode(b""), None);
        assert_eq!(decode(b"\xff\xff\xff\xff"), None);
        // A reply holds no action; an action is no reply to post.
        assert_eq!(decode_action(&encode(&plain)), None);
    }

    #[test]
    fn actions_survive_the_outbox() {
        for action in [
            Action::Delete { message_id: Some("-100:42".into()), author: "7".into() },
            Action::Delete { message_id: None, author: "alice".into() },
        ] {
            let bytes = encode_action(&action);
            assert_eq!(decode_action(&bytes), Some(action));
            let reply = decode(&bytes).expect("an action reads as an empty reply");
            assert!(reply.text.is_empty() && reply.picture.is_none() && reply.buttons.is_empty());
        }
    }
}
