//! What the bot owes its platforms: which chat messages it has handled, the
//! replies and notices it has still to send, and how far it has read each
//! channel.
//!
//! A message is handled once: [`Store::complete`] records, in one
//! transaction, that the message was handled, the replies it caused (the
//! outbox) and the reading position it reached. Only then does an adapter
//! confirm the message to its platform, so a crash at any moment either
//! leaves the message unconfirmed (the platform delivers it again, and it
//! is handled again: every change it made is recognised by its message id)
//! or leaves its replies in the outbox, which is sent after the restart. An
//! entry leaves the outbox when the platform has accepted it
//! ([`Store::delivered`]); a reply of several parts (a text, then a photo)
//! remembers how many were sent ([`Store::set_progress`]).
//!
//! The payload of an entry is opaque bytes: the store does not know what a
//! reply looks like.

use serde::{Deserialize, Serialize};
use sled::Transactional;

use super::{SledStore, settled};
use crate::db::Journal;
use crate::keys::{self, join, prefix};
use crate::store::{Completion, Owed};
use crate::{Result, StoreError, Timestamp};

/// The stored header of an outbox entry; the payload follows it.
#[derive(Serialize, Deserialize)]
struct Header {
    channel: String,
    progress: u32,
    at: u64,
}

fn encode_entry(channel: &str, progress: u32, at: Timestamp, payload: &[u8]) -> Result<Vec<u8>> {
    let header = serde_json::to_vec(&Header { channel: channel.to_owned(), progress, at: at.0 })
        .map_err(|e| StoreError::Encode { record: format!("a reply for {channel}"), reason: e.to_string() })?;
    let mut out = Vec::with_capacity(4 + header.len() + payload.len());
    out.extend_from_slice(&(header.len() as u32).to_be_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(payload);
    Ok(out)
}

pub(crate) fn decode_entry(seq: u64, raw: &[u8]) -> Result<Owed> {
    let damaged = |reason: &str| StoreError::Corrupt { record: format!("owed reply {seq}"), reason: reason.into() };
    let len = raw.get(..4).ok_or_else(|| damaged("too short"))?;
    let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
    let header = raw.get(4..4 + len).ok_or_else(|| damaged("header cut short"))?;
    let header: Header = serde_json::from_slice(header).map_err(|e| damaged(&e.to_string()))?;
    Ok(Owed {
        seq,
        channel: header.channel,
        payload: raw[4 + len..].to_vec(),
        progress: header.progress,
        at: Timestamp(header.at),
    })
}

/// The replies owed that cannot be read.
pub(super) fn verify(t: &crate::db::Trees) -> Result<Vec<StoreError>> {
    let mut problems = Vec::new();
    for entry in t.tree(b"outbox")?.iter() {
        let (key, raw) = entry?;
        let seq = key.len().checked_sub(8).map_or(0, |at| crate::db::be_u64(&key[at..]));
        if let Err(e) = decode_entry(seq, &raw) {
            problems.push(e);
        }
    }
    Ok(problems)
}

fn outbox_key(platform: &str, seq: u64) -> Result<Vec<u8>> {
    let mut key = prefix(&[("platform", platform)])?;
    key.extend_from_slice(&seq.to_be_bytes());
    Ok(key)
}

fn handled_key(platform: &str, message_id: &str) -> Result<Vec<u8>> {
    join(&[("platform", platform), ("message id", message_id)])
}

fn cursor_key(platform: &str, name: &str) -> Result<Vec<u8>> {
    join(&[("platform", platform), ("cursor", name)])
}

impl SledStore {
    /// Whether the message `message_id` of `platform` was handled (its
    /// [`Completion`] stored).
    pub fn is_handled(&self, platform: &str, message_id: &str) -> Result<bool> {
        let open = self.db()?;
        Ok(open.trees()?.tree(b"handled")?.contains_key(handled_key(platform, message_id)?)?)
    }

    /// Records what handling a message left: the message marked handled, the
    /// cursor moved, the replies put in the outbox, all at once and durably.
    /// Returns the entries as stored, in order.
    ///
    /// A message already marked handled is refused with
    /// [`StoreError::AlreadyHandled`] and changes nothing.
    pub fn complete(&self, done: &Completion) -> Result<Vec<Owed>> {
        prefix(&[("platform", &done.platform)])?;
        for (channel, _) in &done.owed {
            join(&[("channel", channel)])?;
        }
        if let Some((_, value)) = &done.cursor {
            join(&[("cursor value", value)])?;
        }
        let marker = done.message_id.as_deref().map(|m| handled_key(&done.platform, m)).transpose()?;
        let cursor = match &done.cursor {
            Some((name, value)) => Some((cursor_key(&done.platform, name)?, value.clone())),
            None => None,
        };
        let open = self.db()?;
        let t = open.trees()?;
        let (handled, outbox, cursors) = (t.tree(b"handled")?, t.tree(b"outbox")?, t.tree(b"cursors")?);
        let mut entries = Vec::with_capacity(done.owed.len());
        for (channel, payload) in &done.owed {
            let seq = t.db.generate_id()?;
            let raw = encode_entry(channel, 0, done.at, payload)?;
            entries.push((outbox_key(&done.platform, seq)?, raw, seq));
        }
        let journal = Journal::default();
        let result = (&handled, &outbox, &cursors, &t.meta).transaction(|(handled, outbox, cursors, meta)| {
            journal.restart();
            if let Some(marker) = &marker {
                if handled.get(marker)?.is_some() {
                    return Err(sled::transaction::ConflictableTransactionError::Abort(StoreError::AlreadyHandled(
                        done.message_id.clone().unwrap_or_default(),
                    )));
                }
                journal.insert(handled, "handled", marker, &done.at.0.to_be_bytes()[..])?;
            }
            if let Some((key, value)) = &cursor {
                journal.insert(cursors, "cursors", key, value.as_bytes())?;
            }
            for (key, raw, _) in &entries {
                journal.insert(outbox, "outbox", key, raw.as_slice())?;
            }
            journal.count(meta)?;
            Ok(())
        });
        self.settle(open, journal, settled(result))?;
        if let Ok(mut claimed) = self.shared.claimed.lock() {
            claimed.extend(entries.iter().map(|(_, _, seq)| (done.platform.clone(), *seq)));
        }
        Ok(entries
            .into_iter()
            .zip(&done.owed)
            .map(|((_, _, seq), (channel, payload))| Owed {
                seq,
                channel: channel.clone(),
                payload: payload.clone(),
                progress: 0,
                at: done.at,
            })
            .collect())
    }

    /// Every reply `platform` still owes, oldest first. Damaged entries are
    /// reported beside the others.
    pub fn owed(&self, platform: &str) -> Result<Vec<Result<Owed>>> {
        let start = prefix(&[("platform", platform)])?;
        let open = self.db()?;
        let mut found = Vec::new();
        for entry in open.trees()?.tree(b"outbox")?.scan_prefix(&start) {
            let (key, raw) = entry?;
            let Some(seq) = key.get(start.len()..).and_then(|s| <[u8; 8]>::try_from(s).ok()) else { continue };
            found.push(decode_entry(u64::from_be_bytes(seq), &raw));
        }
        Ok(found)
    }

    /// The replies owed that this process is not sending yet, now its own.
    pub fn claim_owed(&self, platform: &str) -> Result<Vec<Result<Owed>>> {
        let all = self.owed(platform)?;
        let mut claimed = self.shared.claimed.lock().map_err(|_| super::closed())?;
        Ok(all
            .into_iter()
            .filter(|entry| match entry {
                Ok(owed) => claimed.insert((platform.to_owned(), owed.seq)),
                Err(_) => true,
            })
            .collect())
    }

    /// Nothing to tell: no other process shares an embedded store.
    pub fn heartbeat(&self) -> Result<()> {
        Ok(())
    }

    /// Changes one outbox entry (`None` removes it) as one durable change.
    fn change_owed(&self, platform: &str, seq: u64, value: impl Fn(&[u8]) -> Result<Option<Vec<u8>>>) -> Result<()> {
        let key = outbox_key(platform, seq)?;
        let open = self.db()?;
        let t = open.trees()?;
        let outbox = t.tree(b"outbox")?;
        let journal = Journal::default();
        let result = (&outbox, &t.meta).transaction(|(outbox, meta)| {
            journal.restart();
            let Some(raw) = outbox.get(&key)? else { return Ok(()) };
            match value(&raw) {
                Ok(Some(new)) => journal.insert(outbox, "outbox", &key, new)?,
                Ok(None) => journal.remove(outbox, "outbox", &key)?,
                Err(e) => return Err(sled::transaction::ConflictableTransactionError::Abort(e)),
            }
            journal.count(meta)?;
            Ok(())
        });
        self.settle(open, journal, settled(result))
    }

    /// The platform accepted the whole entry `seq`: it leaves the outbox.
    pub fn delivered(&self, platform: &str, seq: u64) -> Result<()> {
        self.change_owed(platform, seq, |_| Ok(None))?;
        if let Ok(mut claimed) = self.shared.claimed.lock() {
            claimed.remove(&(platform.to_owned(), seq));
        }
        Ok(())
    }

    /// The platform accepted the first `progress` parts of entry `seq`.
    pub fn set_progress(&self, platform: &str, seq: u64, progress: u32) -> Result<()> {
        self.change_owed(platform, seq, |raw| {
            let owed = decode_entry(seq, raw)?;
            encode_entry(&owed.channel, progress, owed.at, &owed.payload).map(Some)
        })
    }

    /// The reading position `name` of `platform`, if one was recorded.
    pub fn cursor(&self, platform: &str, name: &str) -> Result<Option<String>> {
        let open = self.db()?;
        Ok(open.trees()?.tree(b"cursors")?.get(cursor_key(platform, name)?)?.map(|v| keys::text(&v)))
    }

    /// Every reading position of `platform`: (`name`, `value`), in the
    /// order of their names.
    pub fn cursors(&self, platform: &str) -> Result<Vec<(String, String)>> {
        let start = prefix(&[("platform", platform)])?;
        let open = self.db()?;
        let mut found = Vec::new();
        for entry in open.trees()?.tree(b"cursors")?.scan_prefix(&start) {
            let (key, value) = entry?;
            let Some(name) = key.get(start.len()..) else { continue };
            found.push((keys::text(name), keys::text(&value)));
        }
        Ok(found)
    }

    /// Forgets which messages of `platform` were handled before `before`
    /// (platforms deliver again only for a day or so); returns how many.
    pub fn forget_handled(&self, platform: &str, before: Timestamp) -> Result<usize> {
        let start = prefix(&[("platform", platform)])?;
        let old: Vec<sled::IVec> = {
            let open = self.db()?;
            let handled = open.trees()?.tree(b"handled")?;
            let mut old = Vec::new();
            for entry in handled.scan_prefix(&start) {
                let (key, at) = entry?;
                let at = <[u8; 8]>::try_from(at.as_ref()).map(u64::from_be_bytes).unwrap_or(0);
                if at < before.0 {
                    old.push(key);
                }
            }
            old
        };
        if old.is_empty() {
            return Ok(0);
        }
        let open = self.db()?;
        let t = open.trees()?;
        let handled = t.tree(b"handled")?;
        let journal = Journal::default();
        let result = (&handled, &t.meta).transaction(|(handled, meta)| {
            journal.restart();
            for key in &old {
                journal.remove(handled, "handled", key)?;
            }
            journal.count(meta)?;
            Ok(())
        });
        self.settle(open, journal, settled(result))?;
        Ok(old.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_are_listed_by_platform() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path()).unwrap();
        assert!(store.cursors("discord").unwrap().is_empty());
        let done = |platform: &str, id: &str, channel: &str, value: &str| Completion {
            platform: platform.into(),
            message_id: Some(id.into()),
            cursor: Some((channel.into(), value.into())),
            owed: Vec::new(),
            at: Timestamp(1),
        };
        store.complete(&done("discord", "m1", "500", "10")).unwrap();
        store.complete(&done("discord", "m2", "42", "11")).unwrap();
        store.complete(&done("discord", "m3", "500", "12")).unwrap();
        store.complete(&done("discordx", "m4", "7", "13")).unwrap();
        let found = store.cursors("discord").unwrap();
        assert_eq!(found, [("42".to_string(), "11".to_string()), ("500".to_string(), "12".to_string())]);
        assert_eq!(store.cursor("discord", "500").unwrap().as_deref(), Some("12"));
        assert_eq!(store.cursors("discordx").unwrap(), [("7".to_string(), "13".to_string())]);
    }
}
