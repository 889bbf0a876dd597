//! Reading back: what came while the bot was away (each channel read from
//! its reading position after a restart) and live messages put in
//! Discord's order by reading the channel's history up to them.

use super::*;

impl Shared {
    /// Queues the catch-up of every channel of `shard` with a reading
    /// position or a running game. After the shard's first READY, its live
    /// messages may go; the clocks start once every shard here is caught up.
    pub(super) async fn catch_up(self: &Arc<Self>, shard: u32, first: bool) {
        let relay = self.relay.clone();
        let starts =
            tokio::task::spawn_blocking(move || catch_up_points(relay.core().store())).await.unwrap_or_default();
        let mut mine = Vec::with_capacity(starts.len());
        for (channel, after) in starts {
            if self.shard_of_channel(channel).await == Some(shard) {
                mine.push((channel, after));
            }
        }
        let (done, mut over) = mpsc::channel::<()>(1);
        tracing::info!("discord: shard {shard} reads {} channels from where they were left", mine.len());
        for (channel, after) in mine {
            self.push(channel, Job::CatchUp { channel, after, _done: done.clone() });
        }
        drop(done);
        if first {
            self.queued.send_modify(|queued| {
                queued.insert(shard);
            });
            let shared = self.clone();
            tokio::spawn(async move {
                let _ = over.recv().await;
                let all = {
                    let mut caught_up = lock(&shared.caught_up);
                    caught_up.insert(shard);
                    caught_up.len() >= shared.shards.count() as usize
                };
                if all {
                    tracing::info!("discord: what came while the bot was away is handled");
                    shared.backlog.send_replace(true);
                }
            });
        }
    }

    /// A message that came through the gateway. Serenity hands each event to
    /// its own task, so the messages of a channel can reach its lane out of
    /// order: the message is read from the channel's history instead, with
    /// every message before it not yet read, in Discord's order. If the
    /// history cannot be read, the message is handled as it came.
    pub(super) async fn live(self: &Arc<Self>, channel: ChannelId, id: MessageId, job: Handling) {
        let relay = self.relay.clone();
        let key = id.to_string();
        let handled = tokio::task::spawn_blocking(move || relay.core().store().is_handled(PLATFORM, &key)).await;
        if matches!(handled, Ok(Ok(true))) {
            return;
        }
        let after = self.read_from(channel).await.unwrap_or_else(|| {
            // A channel not read before: the messages of the last moments
            // before this one (a snowflake starts with its time in ms).
            MessageId::new((id.get().saturating_sub(RECENT_MS << 22)).max(1))
        });
        if after >= id || !self.read_history(channel, after, Some(id)).await {
            self.handle(job).await;
        }
    }

    /// Where reading `channel` goes on: after the last message read, or the
    /// last handled (its reading position).
    pub(super) async fn read_from(&self, channel: ChannelId) -> Option<MessageId> {
        if let Some(&read) = lock(&self.read_to).get(&channel.get()) {
            return Some(MessageId::new(read));
        }
        let relay = self.relay.clone();
        let cursor =
            tokio::task::spawn_blocking(move || relay.core().store().cursor(PLATFORM, &channel.get().to_string()))
                .await;
        let found = cursor.ok()?.ok()??;
        snowflake(&found).map(MessageId::new)
    }

    /// Fetches the messages of `channel` after `after`, oldest first, a page
    /// at a time, and handles each (those handled before are skipped).
    /// Whether `wanted` was among them.
    pub(super) async fn read_history(
        self: &Arc<Self>,
        channel: ChannelId,
        mut after: MessageId,
        wanted: Option<MessageId>,
    ) -> bool {
        let Some(http) = self.http().cloned() else { return false };
        let me = self.me.load(Ordering::Relaxed);
        let mut failures = 0;
        let mut seen = false;
        // A live message waits for one more try at most, then goes as it came.
        let attempts = if wanted.is_some() { 1 } else { HISTORY_ATTEMPTS };
        loop {
            if *self.shutdown.borrow() {
                return seen;
            }
            let page =
                with_retry(|| channel.messages(&http, GetMessages::new().after(after).limit(HISTORY_PAGE))).await;
            let mut page = match page {
                Ok(page) => page,
                Err(e) if failures < attempts && !refused(&e) => {
                    failures += 1;
                    tracing::warn!(%channel, "discord: cannot read the channel's history ({e}); trying again");
                    tokio::time::sleep(Backoff(failures).next_wait()).await;
                    continue;
                }
                Err(e) => {
                    // Without Read Message History, or the channel is gone.
                    tracing::warn!(%channel, "discord: cannot read the channel's history: {e}");
                    return seen;
                }
            };
            failures = 0;
            page.sort_by_key(|m| m.id);
            let full = page.len() >= usize::from(HISTORY_PAGE);
            for msg in &page {
                if msg.id <= after {
                    continue;
                }
                let read = std::panic::catch_unwind(AssertUnwindSafe(|| read_message(msg, me)));
                match read {
                    Ok(Some(job)) => {
                        if !self.handle(job).await {
                            return seen;
                        }
                    }
                    Ok(None) => {}
                    Err(_) => tracing::warn!(%channel, "discord: a message that could not be read was skipped"),
                }
                after = msg.id;
                seen |= Some(msg.id) == wanted;
                let mut read_to = lock(&self.read_to);
                let read = read_to.entry(channel.get()).or_insert(0);
                *read = (*read).max(msg.id.get());
            }
            if !full || page.is_empty() {
                return seen;
            }
        }
    }
}

/// Where each channel's catch-up starts: after its reading position, or,
/// for a running game's channel that has none, after the message of the
/// game's last move that came from Discord.
fn catch_up_points(store: &Store) -> Vec<(ChannelId, MessageId)> {
    let mut points: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    match store.cursors(PLATFORM) {
        Ok(cursors) => {
            for (channel, value) in cursors {
                if channel.starts_with(GUILD_CURSOR) {
                    continue;
                }
                match (snowflake(&channel), snowflake(&value)) {
                    (Some(c), Some(v)) => {
                        points.insert(c, v);
                    }
                    _ => tracing::warn!("discord: a reading position that is no Discord message is ignored"),
                }
            }
        }
        Err(e) => tracing::error!("discord: cannot read the reading positions: {e}"),
    }
    match store.active_games() {
        Ok(games) => {
            for (key, record) in games {
                if key.channel.platform != PLATFORM {
                    continue;
                }
                let Some(channel) = snowflake(&key.channel.channel) else { continue };
                if points.contains_key(&channel) {
                    continue;
                }
                let last =
                    record.ok().and_then(|r| r.moves.iter().rev().find_map(|m| snowflake(m.message_id.as_deref()?)));
                match last {
                    Some(after) => {
                        points.insert(channel, after);
                    }
                    None => tracing::info!(
                        channel,
                        "discord: a game's channel without a move from Discord is not read back"
                    ),
                }
            }
        }
        Err(e) => tracing::error!("discord: cannot list the running games: {e}"),
    }
    points.into_iter().map(|(c, m)| (ChannelId::new(c), MessageId::new(m))).collect()
}
