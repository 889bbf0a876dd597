//! The shared store: PostgreSQL, for several processes serving one bot.
//!
//! The schema is in `storage/migrations/` (applied at connect by
//! `refinery`, under an advisory lock so that processes starting together
//! do not race). Records are the embedded store's versioned envelopes, kept
//! as `jsonb` (a text holding U+0000, which `jsonb` cannot, is marked
//! instead: see [`nul`]); the columns beside them are what queries look for
//! (a game by channel, by player, by clock deadline; an archive by player
//! and time).
//!
//! Every change is one transaction at READ COMMITTED: a game change locks
//! the game's row (`SELECT ... FOR UPDATE`), checks the message id and the
//! version, and writes; a racing change waits and then sees the new
//! version ([`StoreError::Conflict`]). Transactions that deadlock or fail to
//! serialise run again. A change is durable when its commit returns.
//!
//! Work that any process could do is claimed: due games for a while
//! (`claimed_until`), owed replies by their `owner`, the process that made
//! or claimed them, for as long as it keeps its heartbeat in `workers`.
//! Claims use `FOR UPDATE SKIP LOCKED`, so two processes never take the same
//! row.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use postgres::error::SqlState;
use postgres::{NoTls, Row};
use r2d2::{Pool, PooledConnection};

use crate::codec::{self, Record};
use crate::embedded::{
    challenge_key, describe_challenge, describe_rating, due_of, game_of_challenge, player_key, rating_key, set_result,
};
use crate::keys::join;
use crate::rating::rate;
use crate::store::{GameEnd, GameListing};
use crate::{
    Challenge, ChannelKey, ChannelSettings, GameId, GameKey, GameRecord, NewGame, Outcome, Rating, RatingChange,
    Result, StoreError, Timestamp,
};

mod client;
mod directory;
mod outbox;
mod reviews;

use client::Manager;
pub(crate) use client::{Db, Tx};

mod schema {
    refinery::embed_migrations!("migrations");
}

type Conn = PooledConnection<Manager>;

/// How long a due game stays claimed by the process whose clock took it.
const DUE_CLAIM: Duration = Duration::from_secs(30);
/// How long a process counts as alive after its last heartbeat.
pub(crate) const DEFAULT_LEASE: Duration = Duration::from_secs(150);
/// How many connections one process keeps at most.
const POOL_SIZE: u32 = 12;
/// How often a transaction that deadlocked or failed to serialise is tried.
const TRIES: usize = 8;

/// The shared store: a connection pool and this process's name in claims.
#[derive(Clone)]
pub(crate) struct PgStore {
    pool: Pool<Manager>,
    /// This process's name in the `workers` table and the outbox's `owner`.
    pub(crate) owner: Arc<str>,
    lease: Duration,
}

impl fmt::Debug for PgStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // No address: it may hold a password.
        f.debug_struct("PgStore").field("owner", &self.owner).finish_non_exhaustive()
    }
}

/// `name` as an SQL identifier.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The lock that keeps processes from migrating the schema at once.
const MIGRATION_LOCK: i64 = 0x6b69_6269_747a;

impl PgStore {
    /// Connects, makes `schema` if it is given and missing, and brings the schema up to date.
    pub(crate) fn connect(url: &str, schema: Option<&str>) -> Result<PgStore> {
        let config: postgres::Config =
            url.parse().map_err(|e: postgres::Error| StoreError::Unreachable(format!("not a PostgreSQL URL: {e}")))?;
        if let Some(schema) = schema {
            let mut client = config.connect(NoTls).map_err(|e| StoreError::Unreachable(e.to_string()))?;
            client.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {}", quote_ident(schema)))?;
        }
        let manager = Manager { config, schema: schema.map(str::to_owned) };
        let pool = Pool::builder()
            .max_size(POOL_SIZE)
            .min_idle(Some(1))
            // A query on a dead connection fails and the connection is then
            // dropped (`has_broken`); testing each checkout would cost every
            // query a round trip more.
            .test_on_check_out(false)
            .connection_timeout(Duration::from_secs(10))
            .build(manager)
            .map_err(|e| StoreError::Unreachable(e.to_string()))?;
        let store = PgStore { pool, owner: format!("{:016x}", fastrand::u64(..)).into(), lease: DEFAULT_LEASE };
        store.migrate()?;
        store.heartbeat()?;
        Ok(store)
    }

    fn migrate(&self) -> Result<()> {
        let mut conn = self.conn()?;
        conn.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])?;
        let ran = schema::migrations::runner().run(conn.raw()).map(drop).map_err(|e| StoreError::Schema(e.to_string()));
        conn.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])?;
        ran
    }

    /// How long this process counts as alive after a heartbeat (tests shorten it).
    pub(crate) fn set_lease(&mut self, lease: Duration) {
        self.lease = lease;
    }

    pub(crate) fn lease(&self) -> Duration {
        self.lease
    }

    pub(crate) fn conn(&self) -> Result<Conn> {
        self.pool.get().map_err(|e| StoreError::Unreachable(e.to_string()))
    }

    /// Runs `body` in a transaction, again if it deadlocked or could not be
    /// serialised; commits if it returns `Ok`.
    pub(crate) fn tx<T>(&self, mut body: impl FnMut(&mut Tx<'_>) -> Result<T>) -> Result<T> {
        let mut conn = self.conn()?;
        let mut tries = 0;
        loop {
            tries += 1;
            let mut t = conn.transaction()?;
            let outcome = body(&mut t).and_then(|value| t.commit().map(|()| value).map_err(StoreError::from));
            match outcome {
                Err(StoreError::Shared(e)) if tries < TRIES && retryable(&e) => {
                    std::thread::sleep(Duration::from_millis(fastrand::u64(1..10 * tries as u64)));
                }
                other => return other,
            }
        }
    }

    pub(crate) fn flush(&self) -> Result<()> {
        // Every change is durable when its commit returns.
        Ok(())
    }

    // ---- challenges ----

    pub(crate) fn create_challenge(&self, channel: &ChannelKey, challenge: &Challenge) -> Result<()> {
        challenge_key(channel, &challenge.challenger)?;
        let value = record_text(|| describe_challenge(channel, &challenge.challenger), challenge)?;
        let (platform, chan) = (&channel.platform, &channel.channel);
        self.tx(|t| {
            for player in [Some(&challenge.challenger), challenge.challenged.as_ref()].into_iter().flatten() {
                if let Some(game) = busy(t, platform, player, chan)? {
                    return Err(StoreError::PlayerBusy { player: player.clone(), game });
                }
            }
            t.execute(
                "INSERT INTO challenges (platform, channel, challenger, record) VALUES ($1, $2, $3, $4::text::jsonb)
                 ON CONFLICT (platform, channel, challenger) DO UPDATE SET record = excluded.record",
                &[platform, chan, &challenge.challenger, &value],
            )?;
            Ok(())
        })
    }

    pub(crate) fn challenge(&self, channel: &ChannelKey, challenger: &str) -> Result<Option<Challenge>> {
        challenge_key(channel, challenger)?;
        let row = self.conn()?.query_opt(
            "SELECT record::text FROM challenges WHERE platform = $1 AND channel = $2 AND challenger = $3",
            &[&channel.platform, &channel.channel, &challenger],
        )?;
        row.map(|r| decode(|| describe_challenge(channel, challenger), &r, 0)).transpose()
    }

    pub(crate) fn challenges(&self, channel: &ChannelKey) -> Result<Vec<(String, Result<Challenge>)>> {
        channel.encode()?;
        let rows = self.conn()?.query(
            "SELECT challenger, record::text FROM challenges WHERE platform = $1 AND channel = $2
             ORDER BY challenger COLLATE \"C\"",
            &[&channel.platform, &channel.channel],
        )?;
        Ok(rows
            .iter()
            .map(|r| {
                let challenger: String = r.get(0);
                let challenge = decode(|| describe_challenge(channel, &challenger), r, 1);
                (challenger, challenge)
            })
            .collect())
    }

    pub(crate) fn withdraw_challenge(&self, channel: &ChannelKey, challenger: &str) -> Result<()> {
        challenge_key(channel, challenger)?;
        let gone = self.conn()?.execute(
            "DELETE FROM challenges WHERE platform = $1 AND channel = $2 AND challenger = $3",
            &[&channel.platform, &channel.channel, &challenger],
        )?;
        if gone == 0 {
            return Err(StoreError::NoSuchChallenge { challenger: challenger.to_owned() });
        }
        Ok(())
    }

    pub(crate) fn accept_challenge(
        &self,
        channel: &ChannelKey,
        challenger: &str,
        accepter: &str,
        start_fen: &str,
        at: Timestamp,
    ) -> Result<GameRecord> {
        if challenger == accepter {
            return Err(StoreError::OwnChallenge);
        }
        challenge_key(channel, challenger)?;
        challenge_key(channel, accepter)?;
        let (platform, chan) = (&channel.platform, &channel.channel);
        self.tx(|t| {
            let Some(row) = t.query_opt(
                "SELECT record::text FROM challenges WHERE platform = $1 AND channel = $2 AND challenger = $3
                 FOR UPDATE",
                &[platform, chan, &challenger],
            )?
            else {
                return Err(StoreError::NoSuchChallenge { challenger: challenger.to_owned() });
            };
            let challenge: Challenge = decode(|| describe_challenge(channel, challenger), &row, 0)?;
            let new = game_of_challenge(challenge, challenger, accepter, start_fen, at)?;
            let game = insert_game(t, channel, &new)?;
            t.execute(
                "DELETE FROM challenges WHERE platform = $1 AND channel = $2 AND challenger IN ($3, $4)",
                &[platform, chan, &challenger, &accepter],
            )?;
            Ok(game)
        })
    }

    // ---- games ----

    pub(crate) fn create_game(&self, channel: &ChannelKey, new: &NewGame) -> Result<GameRecord> {
        channel.encode()?;
        self.tx(|t| insert_game(t, channel, new))
    }

    pub(crate) fn game(&self, key: &GameKey) -> Result<GameRecord> {
        key.encode()?;
        unlocked_game(&mut *self.conn()?, key, None)
    }

    pub(crate) fn games_in_channel(&self, channel: &ChannelKey) -> Result<GameListing> {
        channel.encode()?;
        let rows = self.conn()?.query(
            "SELECT platform, channel, id, record::text FROM games WHERE platform = $1 AND channel = $2
             ORDER BY id COLLATE \"C\"",
            &[&channel.platform, &channel.channel],
        )?;
        Ok(listing(&rows))
    }

    pub(crate) fn active_games(&self) -> Result<GameListing> {
        let rows = self.conn()?.query(
            "SELECT platform, channel, id, record::text FROM games
             ORDER BY platform COLLATE \"C\", channel COLLATE \"C\", id COLLATE \"C\"",
            &[],
        )?;
        Ok(listing(&rows))
    }

    pub(crate) fn due_games(&self, now: Timestamp) -> Result<GameListing> {
        let rows = self.conn()?.query(
            "SELECT platform, channel, id, record::text FROM games WHERE due_at <= $1
             ORDER BY platform COLLATE \"C\", channel COLLATE \"C\", id COLLATE \"C\"",
            &[&ms(now)],
        )?;
        Ok(listing(&rows))
    }

    pub(crate) fn claim_due_games(&self, now: Timestamp, platform: &str) -> Result<GameListing> {
        let wall = ms(Timestamp::now());
        let until = wall.saturating_add(DUE_CLAIM.as_millis() as i64);
        let rows = self.tx(|t| {
            Ok(t.query(
                "UPDATE games g SET claimed_until = $2
                 FROM (SELECT platform, channel, id FROM games
                       WHERE due_at <= $1 AND platform = $4 AND (claimed_until IS NULL OR claimed_until <= $3)
                       ORDER BY due_at LIMIT 1000 FOR UPDATE SKIP LOCKED) d
                 WHERE g.platform = d.platform AND g.channel = d.channel AND g.id = d.id
                 RETURNING g.platform, g.channel, g.id, g.record::text",
                &[&ms(now), &until, &wall, &platform],
            )?)
        })?;
        let mut found = listing(&rows);
        found.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(found)
    }

    pub(crate) fn player_game_in_channel(&self, channel: &ChannelKey, player: &str) -> Result<Option<GameRecord>> {
        player_key(&channel.platform, player, &channel.channel)?;
        let row = self.conn()?.query_opt(
            "SELECT g.platform, g.channel, g.id, g.record::text FROM game_players p
             JOIN games g ON g.platform = p.platform AND g.channel = p.channel AND g.id = p.id
             WHERE p.platform = $1 AND p.player = $2 AND p.channel = $3",
            &[&channel.platform, &player, &channel.channel],
        )?;
        row.map(|r| decode_game(&key_of(&r), &r, 3)).transpose()
    }

    pub(crate) fn games_of(&self, platform: &str, player: &str) -> Result<GameListing> {
        join(&[("platform", platform), ("player", player)])?;
        let rows = self.conn()?.query(
            "SELECT g.platform, g.channel, g.id, g.record::text FROM game_players p
             JOIN games g ON g.platform = p.platform AND g.channel = p.channel AND g.id = p.id
             WHERE p.platform = $1 AND p.player = $2 ORDER BY p.channel COLLATE \"C\"",
            &[&platform, &player],
        )?;
        Ok(listing(&rows))
    }

    pub(crate) fn update_game(
        &self,
        key: &GameKey,
        expected_version: u64,
        message_id: Option<&str>,
        mut change: impl FnMut(&mut GameRecord) -> Result<()>,
    ) -> Result<GameRecord> {
        key.encode()?;
        if let Some(m) = message_id {
            join(&[("message id", m)])?;
        }
        // Optimistic: read, change, and write only if the version is still
        // the one read (the row's `version` column is the record's). Two
        // statements, no transaction held open while `change` runs.
        let mut conn = self.conn()?;
        let mut game = unlocked_game(&mut *conn, key, message_id)?;
        if game.version != expected_version {
            return Err(StoreError::Conflict { key: key.clone(), expected: expected_version, actual: game.version });
        }
        change(&mut game)?;
        game.key = key.clone();
        game.version = expected_version + 1;
        if let Some(id) = message_id {
            game.applied_messages.push(id.to_owned());
        }
        let written = conn.execute(
            "UPDATE games SET version = $4, record = $5::text::jsonb, due_at = $6, claimed_until = NULL
             WHERE platform = $1 AND channel = $2 AND id = $3 AND version = $7",
            &[
                &key.channel.platform,
                &key.channel.channel,
                &key.id.as_str(),
                &(game.version as i64),
                &game_text(&game)?,
                &due_of(&game).map(ms),
                &(expected_version as i64),
            ],
        )?;
        if written == 0 {
            // Changed (or ended) since it was read: say what happened.
            let now = unlocked_game(&mut *conn, key, message_id)?;
            return Err(StoreError::Conflict { key: key.clone(), expected: expected_version, actual: now.version });
        }
        Ok(game)
    }

    pub(crate) fn finish_game_with(
        &self,
        key: &GameKey,
        expected_version: u64,
        end: &GameEnd,
        change: impl Fn(&mut GameRecord) -> Result<()>,
    ) -> Result<GameRecord> {
        key.encode()?;
        if let Some(m) = &end.message_id {
            join(&[("message id", m)])?;
        }
        let (platform, chan, id) = (&key.channel.platform, &key.channel.channel, key.id.as_str());
        self.tx(|t| {
            let mut game = match locked_game(t, key, end.message_id.as_deref()) {
                Err(StoreError::GameOver(_)) => {
                    // A retried delivery of the message that ended it is recognised.
                    let row = t.query_one(
                        "SELECT record::text FROM archive WHERE platform = $1 AND channel = $2 AND id = $3",
                        &[platform, chan, &id],
                    )?;
                    let game = decode_game(key, &row, 0)?;
                    if let Some(m) = &end.message_id
                        && game.applied_messages.contains(m)
                    {
                        return Err(StoreError::AlreadyApplied { key: key.clone(), version: game.version });
                    }
                    return Err(StoreError::GameOver(key.clone()));
                }
                other => other?,
            };
            if game.version != expected_version {
                return Err(StoreError::Conflict { key: key.clone(), expected: expected_version, actual: game.version });
            }
            change(&mut game)?;
            let changes = if game.counts_for_rating() {
                rate_in(t, platform, &game.variant, &game.white, &game.black, end.outcome)?
            } else {
                None
            };
            set_result(&mut game, end, changes);
            // The player rows go with the game.
            t.execute("DELETE FROM games WHERE platform = $1 AND channel = $2 AND id = $3", &[platform, chan, &id])?;
            t.execute(
                "INSERT INTO archive (platform, channel, id, record, finished_at) VALUES ($1, $2, $3, $4::text::jsonb, $5)",
                &[platform, chan, &id, &game_text(&game)?, &ms(end.at)],
            )?;
            for player in [&game.white, &game.black] {
                t.execute(
                    "INSERT INTO archive_players (platform, player, finished_at, channel, id) VALUES ($1, $2, $3, $4, $5)
                     ON CONFLICT DO NOTHING",
                    &[platform, player, &ms(end.at), chan, &id],
                )?;
            }
            Ok(game)
        })
    }

    // ---- archive ----

    pub(crate) fn archived_game(&self, key: &GameKey) -> Result<GameRecord> {
        key.encode()?;
        let row = self.conn()?.query_opt(
            "SELECT record::text FROM archive WHERE platform = $1 AND channel = $2 AND id = $3",
            &[&key.channel.platform, &key.channel.channel, &key.id.as_str()],
        )?;
        match row {
            Some(row) => decode_game(key, &row, 0),
            None => Err(StoreError::NoSuchGame(key.clone())),
        }
    }

    pub(crate) fn archived_games_of(&self, platform: &str, player: &str, limit: usize) -> Result<GameListing> {
        join(&[("platform", platform), ("player", player)])?;
        let rows = self.conn()?.query(
            "SELECT a.platform, a.channel, a.id, a.record::text FROM archive_players p
             JOIN archive a ON a.platform = p.platform AND a.channel = p.channel AND a.id = p.id
             WHERE p.platform = $1 AND p.player = $2
             ORDER BY p.finished_at DESC, p.channel COLLATE \"C\" DESC, p.id COLLATE \"C\" DESC LIMIT $3",
            &[&platform, &player, &(limit.min(i64::MAX as usize) as i64)],
        )?;
        Ok(listing(&rows))
    }

    // ---- ratings ----

    pub(crate) fn rating(&self, platform: &str, player: &str, variant: &str) -> Result<Rating> {
        rating_key(platform, player, variant)?;
        let row = self.conn()?.query_opt(
            "SELECT record::text FROM ratings WHERE platform = $1 AND player = $2 AND variant = $3",
            &[&platform, &player, &variant],
        )?;
        match row {
            Some(row) => decode(|| describe_rating(platform, player, variant), &row, 0),
            None => Ok(Rating::default()),
        }
    }

    pub(crate) fn leaderboard(&self, platform: &str, variant: &str, limit: usize) -> Result<Vec<(String, Rating)>> {
        join(&[("platform", platform), ("variant", variant)])?;
        let rows = self.conn()?.query(
            "SELECT player, record::text FROM ratings WHERE platform = $1 AND variant = $2 AND games > 0
             ORDER BY rating DESC, player COLLATE \"C\"",
            &[&platform, &variant],
        )?;
        let mut found = Vec::new();
        for row in &rows {
            let player: String = row.get(0);
            // Damaged records are left out.
            if let Ok(rating) = decode::<Rating>(|| describe_rating(platform, &player, variant), row, 1)
                && rating.games > 0
            {
                found.push((player, rating));
            }
        }
        found.sort_by(|a, b| b.1.rating.total_cmp(&a.1.rating).then_with(|| a.0.cmp(&b.0)));
        found.truncate(limit);
        Ok(found)
    }

    pub(crate) fn ratings_of(&self, platform: &str, player: &str) -> Result<Vec<(String, Result<Rating>)>> {
        join(&[("platform", platform), ("player", player)])?;
        let rows = self.conn()?.query(
            "SELECT variant, record::text FROM ratings WHERE platform = $1 AND player = $2 ORDER BY variant COLLATE \"C\"",
            &[&platform, &player],
        )?;
        Ok(rows
            .iter()
            .map(|r| {
                let variant: String = r.get(0);
                let rating = decode(|| describe_rating(platform, player, &variant), r, 1);
                (variant, rating)
            })
            .collect())
    }

    pub(crate) fn record_result(
        &self,
        platform: &str,
        variant: &str,
        white: &str,
        black: &str,
        outcome: Outcome,
    ) -> Result<Option<(RatingChange, RatingChange)>> {
        if white == black {
            return Ok(None);
        }
        rating_key(platform, white, variant)?;
        rating_key(platform, black, variant)?;
        self.tx(|t| rate_in(t, platform, variant, white, black, outcome))
    }

    // ---- channel settings ----

    pub(crate) fn channel_settings(&self, channel: &ChannelKey) -> Result<ChannelSettings> {
        channel.encode()?;
        let row = self.conn()?.query_opt(
            "SELECT record::text FROM channel_settings WHERE platform = $1 AND channel = $2",
            &[&channel.platform, &channel.channel],
        )?;
        match row {
            Some(row) => decode(|| format!("the settings of {channel}"), &row, 0),
            None => Ok(ChannelSettings::default()),
        }
    }

    pub(crate) fn set_channel_settings(&self, channel: &ChannelKey, settings: &ChannelSettings) -> Result<()> {
        channel.encode()?;
        let value = record_text(|| format!("the settings of {channel}"), settings)?;
        self.conn()?.execute(
            "INSERT INTO channel_settings (platform, channel, record) VALUES ($1, $2, $3::text::jsonb)
             ON CONFLICT (platform, channel) DO UPDATE SET record = excluded.record",
            &[&channel.platform, &channel.channel, &value],
        )?;
        Ok(())
    }

    // ---- checking ----

    pub(crate) fn verify(&self) -> Result<Vec<StoreError>> {
        self.verify_with(true)
    }

    /// [`PgStore::verify`] of what a process works on, before it starts: active games,
    /// challenges and settings, not the archive, ratings and users, which
    /// grow without bound (each is reported alone when read).
    pub(crate) fn verify_for_start(&self) -> Result<Vec<StoreError>> {
        self.verify_with(false)
    }

    fn verify_with(&self, everything: bool) -> Result<Vec<StoreError>> {
        let mut conn = self.conn()?;
        let mut problems = Vec::new();
        let damaged = |record: String, reason: &str| StoreError::Corrupt { record, reason: reason.to_owned() };
        for row in conn.query("SELECT platform, channel, id, record::text, due_at FROM games", &[])? {
            let key = key_of(&row);
            match decode_game(&key, &row, 3) {
                Ok(game) if game.key != key => problems.push(damaged(key.describe(), "stored under another key")),
                Ok(game) => {
                    let due: Option<i64> = row.get(4);
                    if due_of(&game).map(ms) != due {
                        problems.push(damaged(key.describe(), "in the clock's index at the wrong time"));
                    }
                    for player in game.indexed_players() {
                        let id: Option<String> = conn
                            .query_opt(
                                "SELECT id FROM game_players WHERE platform = $1 AND player = $2 AND channel = $3",
                                &[&key.channel.platform, player, &key.channel.channel],
                            )?
                            .map(|r| r.get(0));
                        if id.as_deref() != Some(key.id.as_str()) {
                            problems.push(damaged(key.describe(), "missing from its player's index"));
                        }
                    }
                }
                Err(e) => problems.push(e),
            }
        }
        for row in rows_if(everything, &mut *conn, "SELECT platform, channel, id, record::text FROM archive")? {
            let key = key_of(&row);
            match decode_game(&key, &row, 3) {
                Ok(game) if game.key != key => problems.push(damaged(key.describe(), "stored under another key")),
                Ok(_) => {}
                Err(e) => problems.push(e),
            }
        }
        for row in conn.query("SELECT platform, channel, challenger, record::text FROM challenges", &[])? {
            let what = || {
                let channel = ChannelKey::new(row.get::<_, String>(0), row.get::<_, String>(1));
                describe_challenge(&channel, row.get(2))
            };
            if let Err(e) = decode::<Challenge>(what, &row, 3) {
                problems.push(e);
            }
        }
        for row in rows_if(everything, &mut *conn, "SELECT platform, player, variant, record::text FROM ratings")? {
            let what = || describe_rating(row.get(0), row.get(1), row.get(2));
            if let Err(e) = decode::<Rating>(what, &row, 3) {
                problems.push(e);
            }
        }
        for row in conn.query("SELECT platform, channel, record::text FROM channel_settings", &[])? {
            let what = || format!("the settings of {}/{}", row.get::<_, &str>(0), row.get::<_, &str>(1));
            if let Err(e) = decode::<ChannelSettings>(what, &row, 2) {
                problems.push(e);
            }
        }
        for row in rows_if(everything, &mut *conn, "SELECT platform, id, record::text FROM users")? {
            let what = || crate::embedded::describe_user(row.get(0), row.get(1));
            if let Err(e) = decode::<crate::UserRecord>(what, &row, 2) {
                problems.push(e);
            }
        }
        Ok(problems)
    }
}

/// Runs `f`, which waits for the database, fit for any thread: on a worker
/// thread of a multi-threaded tokio runtime (the bot's), the worker first
/// hands its other tasks to another thread, as a blocking call must (the
/// PostgreSQL client runs its own small runtime, which may not start inside
/// another's worker). Elsewhere (a blocking thread, a plain thread) it just runs.
pub(crate) fn blocking<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// The rows of `sql` if `wanted`, else none.
fn rows_if(wanted: bool, conn: &mut impl Db, sql: &str) -> Result<Vec<Row>> {
    Ok(if wanted { conn.query(sql, &[])? } else { Vec::new() })
}

/// Whether a transaction that failed with `e` may simply run again.
fn retryable(e: &postgres::Error) -> bool {
    e.code().is_some_and(|c| *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED)
}

/// A time as the schema keeps it.
pub(crate) fn ms(at: Timestamp) -> i64 {
    at.0.min(i64::MAX as u64) as i64
}

/// A record as `jsonb` text: its versioned envelope.
pub(crate) fn record_text<T: Record>(what: impl FnOnce() -> String, record: &T) -> Result<String> {
    let bytes = codec::encode(what, record)?;
    let text =
        String::from_utf8(bytes).map_err(|e| StoreError::Encode { record: String::new(), reason: e.to_string() })?;
    Ok(nul::escape(text))
}

fn game_text(game: &GameRecord) -> Result<String> {
    record_text(|| game.key.describe(), game)
}

/// Decodes the record in column `at` of `row`.
pub(crate) fn decode<T: Record>(what: impl FnOnce() -> String, row: &Row, at: usize) -> Result<T> {
    let text: &str = row.try_get(at)?;
    codec::decode(what, nul::unescape(text).as_bytes())
}

/// The character U+0000 in a record's texts. The embedded store keeps it
/// like any other, but `jsonb` cannot hold it; the shared store writes it
/// as [`nul::MARK`] followed by `0`, and the mark itself as two marks.
/// Only records that hold either character are rewritten, so every other
/// record is the same envelope in both stores.
pub(crate) mod nul {
    use std::borrow::Cow;

    use serde_json::Value;

    /// A character of the Private Use Area, which no Kibitz text means.
    pub(super) const MARK: char = '\u{E000}';

    /// The record's JSON text, ready for `jsonb`.
    pub(crate) fn escape(json: String) -> String {
        // Serialised JSON writes U+0000 as the escape `\u0000`.
        if !json.contains("\\u0000") && !json.contains(MARK) {
            return json;
        }
        rewrite(&json, escape_str).unwrap_or(json)
    }

    /// The record's JSON text as it was before [`escape`].
    pub(super) fn unescape(json: &str) -> Cow<'_, str> {
        if !json.contains(MARK) {
            return Cow::Borrowed(json);
        }
        rewrite(json, unescape_str).map_or(Cow::Borrowed(json), Cow::Owned)
    }

    /// `json` with every string in it (object keys too) passed through `map`;
    /// `None` if it is not JSON (it is then left for the decoder to report).
    fn rewrite(json: &str, map: fn(&str) -> String) -> Option<String> {
        fn walk(value: Value, map: fn(&str) -> String) -> Value {
            match value {
                Value::String(s) => Value::String(map(&s)),
                Value::Array(items) => Value::Array(items.into_iter().map(|v| walk(v, map)).collect()),
                Value::Object(fields) => {
                    Value::Object(fields.into_iter().map(|(k, v)| (map(&k), walk(v, map))).collect())
                }
                other => other,
            }
        }
        let value: Value = serde_json::from_str(json).ok()?;
        serde_json::to_string(&walk(value, map)).ok()
    }

    fn escape_str(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        for c in s.chars() {
            match c {
                '\0' => out.extend([MARK, '0']),
                MARK => out.extend([MARK, MARK]),
                c => out.push(c),
            }
        }
        out
    }

    fn unescape_str(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek()) {
                (MARK, Some('0')) => {
                    chars.next();
                    out.push('\0');
                }
                (MARK, Some(&MARK)) => {
                    chars.next();
                    out.push(MARK);
                }
                (c, _) => out.push(c),
            }
        }
        out
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn texts_with_nul_or_the_mark_come_back_as_they_were() {
            for text in
                ["plain", "a\0b", "\0", "\u{E000}", "\u{E000}0", "\u{E000}\0\u{E000}\u{E000}x", "back\\u0000slash"]
            {
                let json =
                    serde_json::to_string(&serde_json::json!({"v": 1, "record": {text: [text, 1.5, null]}})).unwrap();
                let stored = escape(json.clone());
                assert!(!stored.contains("\\u0000") || text.contains("\\u0000"), "{stored}");
                let back: Value = serde_json::from_str(&unescape(&stored)).unwrap();
                assert_eq!(back, serde_json::from_str::<Value>(&json).unwrap(), "{text:?}");
            }
            // Records without either character are written as they are.
            let json = r#"{"v":2,"record":{"name":"x"}}"#.to_owned();
            assert_eq!(escape(json.clone()), json);
        }
    }
}

fn decode_game(key: &GameKey, row: &Row, at: usize) -> Result<GameRecord> {
    decode(|| key.describe(), row, at)
}

/// The game key in the first three columns (platform, channel, id).
fn key_of(row: &Row) -> GameKey {
    ChannelKey::new(row.get::<_, String>(0), row.get::<_, String>(1))
        .game(GameId::stored(row.get::<_, &str>(2).as_bytes()))
}

/// Games from rows of (platform, channel, id, record).
fn listing(rows: &[Row]) -> GameListing {
    rows.iter()
        .map(|r| {
            let key = key_of(r);
            let game = decode_game(&key, r, 3);
            (key, game)
        })
        .collect()
}

/// Why game `key` is not among the active games.
fn missing(conn: &mut impl Db, key: &GameKey) -> Result<StoreError> {
    let archived = conn.query_opt(
        "SELECT 1 FROM archive WHERE platform = $1 AND channel = $2 AND id = $3",
        &[&key.channel.platform, &key.channel.channel, &key.id.as_str()],
    )?;
    Ok(if archived.is_some() { StoreError::GameOver(key.clone()) } else { StoreError::NoSuchGame(key.clone()) })
}

/// The active game `key` as it is now;
/// [`StoreError::AlreadyApplied`] if `message_id` was applied to it.
fn unlocked_game(conn: &mut impl Db, key: &GameKey, message_id: Option<&str>) -> Result<GameRecord> {
    read_game(conn, key, message_id, "SELECT record::text FROM games WHERE platform = $1 AND channel = $2 AND id = $3")
}

/// [`unlocked_game`], its row locked until the transaction ends.
fn locked_game(t: &mut Tx<'_>, key: &GameKey, message_id: Option<&str>) -> Result<GameRecord> {
    let sql = "SELECT record::text FROM games WHERE platform = $1 AND channel = $2 AND id = $3 FOR UPDATE";
    read_game(t, key, message_id, sql)
}

fn read_game(db: &mut impl Db, key: &GameKey, message_id: Option<&str>, sql: &str) -> Result<GameRecord> {
    let row = db.query_opt(sql, &[&key.channel.platform, &key.channel.channel, &key.id.as_str()])?;
    let Some(row) = row else { return Err(missing(db, key)?) };
    let game = decode_game(key, &row, 0)?;
    if let Some(id) = message_id
        && game.applied_messages.iter().any(|m| m == id)
    {
        return Err(StoreError::AlreadyApplied { key: key.clone(), version: game.version });
    }
    Ok(game)
}

/// The game `player` plays in `channel`, if any.
fn busy(t: &mut Tx<'_>, platform: &str, player: &str, channel: &str) -> Result<Option<GameId>> {
    let row = t.query_opt(
        "SELECT id FROM game_players WHERE platform = $1 AND player = $2 AND channel = $3",
        &[&platform, &player, &channel],
    )?;
    Ok(row.map(|r| GameId::stored(r.get::<_, &str>(0).as_bytes())))
}

/// Inserts a new game under a fresh id, inside a transaction.
fn insert_game(t: &mut Tx<'_>, channel: &ChannelKey, new: &NewGame) -> Result<GameRecord> {
    let (platform, chan) = (&channel.platform, &channel.channel);
    for player in new.indexed_players() {
        player_key(platform, player, chan)?;
        if let Some(game) = busy(t, platform, player, chan)? {
            return Err(StoreError::PlayerBusy { player: player.clone(), game });
        }
    }
    let mut tries = 0;
    let game = loop {
        let game = crate::embedded::fresh_game(channel.game(GameId::random()), new);
        let id = game.key.id.as_str();
        let archived = t.query_opt(
            "SELECT 1 FROM archive WHERE platform = $1 AND channel = $2 AND id = $3",
            &[platform, chan, &id],
        )?;
        if archived.is_none() {
            let made = t.execute(
                "INSERT INTO games (platform, channel, id, version, record, due_at) VALUES ($1, $2, $3, 1, $4::text::jsonb, $5)
                 ON CONFLICT DO NOTHING",
                &[platform, chan, &id, &game_text(&game)?, &due_of(&game).map(ms)],
            )?;
            if made == 1 {
                break game;
            }
        }
        tries += 1;
        if tries >= 256 {
            return Err(StoreError::NoFreeId);
        }
    };
    let id = game.key.id.as_str();
    for (i, player) in new.indexed_players().into_iter().enumerate() {
        if i == 1 && new.white == new.black {
            break;
        }
        let made = t.execute(
            "INSERT INTO game_players (platform, player, channel, id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            &[platform, player, chan, &id],
        )?;
        if made == 0 {
            // Another game started for this player meanwhile.
            let game = busy(t, platform, player, chan)?.unwrap_or_else(|| GameId::stored(b"????"));
            return Err(StoreError::PlayerBusy { player: player.clone(), game });
        }
    }
    Ok(game)
}

/// Rates a game inside a transaction, locking both ratings (in key order, so
/// that two games finishing at once cannot deadlock).
fn rate_in(
    t: &mut Tx<'_>,
    platform: &str,
    variant: &str,
    white: &str,
    black: &str,
    outcome: Outcome,
) -> Result<Option<(RatingChange, RatingChange)>> {
    let mut read = |player: &str| -> Result<Rating> {
        t.execute(
            "INSERT INTO ratings (platform, player, variant, record, rating, games)
             VALUES ($1, $2, $3, $4::text::jsonb, $5, 0) ON CONFLICT DO NOTHING",
            &[
                &platform,
                &player,
                &variant,
                &record_text(|| describe_rating(platform, player, variant), &Rating::default())?,
                &Rating::default().rating,
            ],
        )?;
        let row = t.query_one(
            "SELECT record::text FROM ratings WHERE platform = $1 AND player = $2 AND variant = $3 FOR UPDATE",
            &[&platform, &player, &variant],
        )?;
        decode(|| describe_rating(platform, player, variant), &row, 0)
    };
    let (white_rating, black_rating) = if white <= black {
        let w = read(white)?;
        (w, read(black)?)
    } else {
        let b = read(black)?;
        (read(white)?, b)
    };
    let Some((w, b)) = rate(white_rating, black_rating, outcome) else { return Ok(None) };
    for (player, after) in [(white, &w.after), (black, &b.after)] {
        t.execute(
            "UPDATE ratings SET record = $4::text::jsonb, rating = $5, games = $6
             WHERE platform = $1 AND player = $2 AND variant = $3",
            &[
                &platform,
                &player,
                &variant,
                &record_text(|| describe_rating(platform, player, variant), after)?,
                &after.rating,
                &i64::from(after.games),
            ],
        )?;
    }
    Ok(Some((w, b)))
}
