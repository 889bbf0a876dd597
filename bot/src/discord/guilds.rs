//! Which guild each channel belongs to, and so which shard serves it:
//! learnt from messages, asked of Discord where unknown, and kept in the
//! store for the next start.

use super::*;

impl Shared {
    /// The shard of this process that serves `channel`, or `None` when
    /// another process serves it or its guild cannot be told. With one shard
    /// every channel is shard 0's; otherwise the channel's guild is known
    /// from its messages, or asked of Discord (and remembered).
    pub(super) async fn shard_of_channel(&self, channel: ChannelId) -> Option<u32> {
        if self.shards.total == 1 {
            return Some(0);
        }
        let known = lock(&self.guilds).get(&channel.get()).copied();
        let guild = match known {
            Some(guild) => guild,
            None if lock(&self.unknown).contains(&channel.get()) => return None,
            None => {
                let http = self.http()?.clone();
                let route = ApiRoute::Channel { channel_id: channel };
                let asked = with_retry(|| http.fire::<ChannelGuild>(Request::new(route, LightMethod::Get))).await;
                match asked {
                    Ok(found) => {
                        let guild = found.guild_id.as_deref().and_then(snowflake);
                        self.learn(channel, guild);
                        guild
                    }
                    Err(e) => {
                        // Gone, or out of reach: there is nothing to read there.
                        // Otherwise a live message in the channel reads it later.
                        if refused(&e) {
                            lock(&self.unknown).insert(channel.get());
                        }
                        tracing::warn!(%channel, "discord: cannot tell the channel's guild, it is not read back now: {e}");
                        return None;
                    }
                }
            }
        };
        Some(self.shards.shard_of(guild)).filter(|&shard| self.shards.runs(shard))
    }

    /// Whether the clocks of the games in `channel` run here: those of the
    /// channels of this process's shards, and of a channel whose guild is
    /// not known (a game from before the bot was sharded, kept in this
    /// process's store).
    pub(super) fn runs_clocks_of(&self, channel: &ChannelKey) -> bool {
        if self.shards.runs_all() {
            return true;
        }
        let Some(id) = snowflake(&channel.channel) else { return true };
        lock(&self.guilds).get(&id).is_none_or(|&guild| self.shards.serves(guild))
    }

    /// Notes the guild of a channel that a message or interaction came from.
    pub(super) fn learn_guild(&self, channel: ChannelId, guild: Option<GuildId>) {
        self.learn(channel, guild.map(GuildId::get));
    }

    /// Remembers `channel`'s guild (`None`: a direct message), in the store
    /// too, so that a restart knows which shard reads it back.
    pub(super) fn learn(&self, channel: ChannelId, guild: Option<u64>) {
        if lock(&self.guilds).insert(channel.get(), guild) == Some(guild) {
            return;
        }
        let core = self.relay.core().clone();
        let name = format!("{GUILD_CURSOR}{channel}");
        let value = guild.map_or_else(|| DIRECT.to_string(), |g| g.to_string());
        tokio::task::spawn_blocking(move || {
            let note = Completion {
                platform: PLATFORM.into(),
                message_id: None,
                cursor: Some((name, value)),
                owed: Vec::new(),
                at: Timestamp::now(),
            };
            if let Err(e) = core.store().complete(&note) {
                tracing::warn!(%channel, "discord: could not note the channel's guild: {e}");
            }
        });
    }
}

/// The channels' guilds noted in the store (see [`Shared::learn`]).
pub(super) fn known_guilds(store: &Store) -> HashMap<u64, Option<u64>> {
    let cursors = store.cursors(PLATFORM).unwrap_or_else(|e| {
        tracing::warn!("discord: cannot read the channels' guilds: {e}");
        Vec::new()
    });
    cursors
        .into_iter()
        .filter_map(|(name, value)| {
            let channel = snowflake(name.strip_prefix(GUILD_CURSOR)?)?;
            let guild = if value == DIRECT { None } else { Some(snowflake(&value)?) };
            Some((channel, guild))
        })
        .collect()
}

/// The part of a channel Discord describes that tells its shard.
#[derive(serde::Deserialize)]
struct ChannelGuild {
    #[serde(default)]
    guild_id: Option<String>,
}
