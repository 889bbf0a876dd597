//! What the bot owes its platforms, in the shared store: handled messages,
//! the outbox and its claims, reading positions (see the embedded store's
//! `outbox` module for what each means).
//!
//! An outbox row belongs to the process that wrote it (`owner`) while that
//! process keeps its heartbeat; then any process may claim it.

use postgres::Row;

use super::{Db, PgStore, ms};
use crate::embedded::take_slot;
use crate::keys::join;
use crate::store::{Completion, Owed};
use crate::{Result, StoreError, Timestamp};

fn owed_of(row: &Row) -> Owed {
    Owed {
        seq: row.get::<_, i64>(0) as u64,
        channel: row.get(1),
        payload: row.get(2),
        progress: row.get::<_, i32>(3).max(0) as u32,
        at: Timestamp(row.get::<_, i64>(4).max(0) as u64),
    }
}

impl PgStore {
    pub(crate) fn is_handled(&self, platform: &str, message_id: &str) -> Result<bool> {
        join(&[("platform", platform), ("message id", message_id)])?;
        let row = self
            .conn()?
            .query_opt("SELECT 1 FROM handled WHERE platform = $1 AND message_id = $2", &[&platform, &message_id])?;
        Ok(row.is_some())
    }

    pub(crate) fn complete(&self, done: &Completion) -> Result<Vec<Owed>> {
        let platform = &done.platform;
        join(&[("platform", platform)])?;
        if let Some(m) = &done.message_id {
            join(&[("message id", m)])?;
        }
        if let Some((name, value)) = &done.cursor {
            join(&[("cursor", name), ("cursor value", value)])?;
        }
        for (channel, _) in &done.owed {
            join(&[("channel", channel)])?;
        }
        let owner: &str = &self.owner;
        self.tx(|t| {
            if let Some(m) = &done.message_id {
                let marked = t.execute(
                    "INSERT INTO handled (platform, message_id, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                    &[platform, m, &ms(done.at)],
                )?;
                if marked == 0 {
                    return Err(StoreError::AlreadyHandled(m.clone()));
                }
            }
            if let Some((name, value)) = &done.cursor {
                t.execute(
                    "INSERT INTO cursors (platform, name, value) VALUES ($1, $2, $3)
                     ON CONFLICT (platform, name) DO UPDATE SET value = excluded.value",
                    &[platform, name, value],
                )?;
            }
            let mut entries = Vec::with_capacity(done.owed.len());
            for (channel, payload) in &done.owed {
                let row = t.query_one(
                    "INSERT INTO outbox (platform, channel, payload, progress, at, owner) VALUES ($1, $2, $3, 0, $4, $5)
                     RETURNING seq",
                    &[platform, channel, payload, &ms(done.at), &owner],
                )?;
                entries.push(Owed {
                    seq: row.get::<_, i64>(0) as u64,
                    channel: channel.clone(),
                    payload: payload.clone(),
                    progress: 0,
                    at: done.at,
                });
            }
            Ok(entries)
        })
    }

    pub(crate) fn owed(&self, platform: &str) -> Result<Vec<Result<Owed>>> {
        join(&[("platform", platform)])?;
        let rows = self.conn()?.query(
            "SELECT seq, channel, payload, progress, at FROM outbox WHERE platform = $1 ORDER BY seq",
            &[&platform],
        )?;
        Ok(rows.iter().map(|r| Ok(owed_of(r))).collect())
    }

    pub(crate) fn claim_owed(&self, platform: &str) -> Result<Vec<Result<Owed>>> {
        join(&[("platform", platform)])?;
        let owner: &str = &self.owner;
        let now = ms(Timestamp::now());
        let rows = self.tx(|t| {
            Ok(t.query(
                "UPDATE outbox o SET owner = $2
                 FROM (SELECT x.seq FROM outbox x
                       WHERE x.platform = $1 AND (x.owner IS NULL OR (x.owner <> $2 AND NOT EXISTS
                           (SELECT 1 FROM workers w WHERE w.owner = x.owner AND w.alive_until > $3)))
                       ORDER BY x.seq FOR UPDATE SKIP LOCKED) c
                 WHERE o.seq = c.seq
                 RETURNING o.seq, o.channel, o.payload, o.progress, o.at",
                &[&platform, &owner, &now],
            )?)
        })?;
        let mut found: Vec<Owed> = rows.iter().map(owed_of).collect();
        found.sort_by_key(|o| o.seq);
        Ok(found.into_iter().map(Ok).collect())
    }

    pub(crate) fn heartbeat(&self) -> Result<()> {
        let now = ms(Timestamp::now());
        let until = now.saturating_add(self.lease().as_millis() as i64);
        let mut conn = self.conn()?;
        let owner: &str = &self.owner;
        conn.execute(
            "INSERT INTO workers (owner, alive_until) VALUES ($1, $2)
             ON CONFLICT (owner) DO UPDATE SET alive_until = excluded.alive_until",
            &[&owner, &until],
        )?;
        // Processes gone for a day are forgotten (their rows are claimable already).
        conn.execute("DELETE FROM workers WHERE alive_until < $1", &[&now.saturating_sub(86_400_000)])?;
        Ok(())
    }

    pub(crate) fn delivered(&self, platform: &str, seq: u64) -> Result<()> {
        join(&[("platform", platform)])?;
        self.conn()?.execute("DELETE FROM outbox WHERE platform = $1 AND seq = $2", &[&platform, &(seq as i64)])?;
        Ok(())
    }

    pub(crate) fn set_progress(&self, platform: &str, seq: u64, progress: u32) -> Result<()> {
        join(&[("platform", platform)])?;
        self.conn()?.execute(
            "UPDATE outbox SET progress = $3 WHERE platform = $1 AND seq = $2",
            &[&platform, &(seq as i64), &(progress.min(i32::MAX as u32) as i32)],
        )?;
        Ok(())
    }

    pub(crate) fn cursor(&self, platform: &str, name: &str) -> Result<Option<String>> {
        join(&[("platform", platform), ("cursor", name)])?;
        let row = self
            .conn()?
            .query_opt("SELECT value FROM cursors WHERE platform = $1 AND name = $2", &[&platform, &name])?;
        Ok(row.map(|r| r.get(0)))
    }

    pub(crate) fn cursors(&self, platform: &str) -> Result<Vec<(String, String)>> {
        join(&[("platform", platform)])?;
        let rows = self
            .conn()?
            .query("SELECT name, value FROM cursors WHERE platform = $1 ORDER BY name COLLATE \"C\"", &[&platform])?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    pub(crate) fn forget_handled(&self, platform: &str, before: Timestamp) -> Result<usize> {
        join(&[("platform", platform)])?;
        let gone =
            self.conn()?.execute("DELETE FROM handled WHERE platform = $1 AND at < $2", &[&platform, &ms(before)])?;
        Ok(gone as usize)
    }
}

impl PgStore {
    pub(crate) fn reserve_send_slot(
        &self,
        platform: &str,
        chat: &str,
        now: Timestamp,
        gap_ms: u64,
        per_minute: usize,
    ) -> Result<Timestamp> {
        join(&[("platform", platform), ("chat", chat)])?;
        self.tx(|t| {
            t.execute(
                "INSERT INTO send_slots (platform, chat, slots) VALUES ($1, $2, '{}') ON CONFLICT DO NOTHING",
                &[&platform, &chat],
            )?;
            let row = t.query_one(
                "SELECT slots FROM send_slots WHERE platform = $1 AND chat = $2 FOR UPDATE",
                &[&platform, &chat],
            )?;
            let stored: Vec<i64> = row.get(0);
            let mut slots: std::collections::VecDeque<u64> = stored.into_iter().map(|s| s.max(0) as u64).collect();
            let slot = take_slot(&mut slots, now.0, gap_ms, per_minute);
            let kept: Vec<i64> = slots.iter().map(|&s| s.min(i64::MAX as u64) as i64).collect();
            t.execute(
                "UPDATE send_slots SET slots = $3 WHERE platform = $1 AND chat = $2",
                &[&platform, &chat, &kept],
            )?;
            Ok(Timestamp(slot))
        })
    }
}
