//! Reviews owed and done, in the shared store (see the `review` module):
//! a job is claimed with `FOR UPDATE SKIP LOCKED` until its lease ends, so
//! two processes never take the same one.

use postgres::Row;

use super::{Db, PgStore, decode, ms, record_text};
use crate::review::{JobRecord, ReviewJob, describe_job, round_number, round_of};
use crate::{ChannelKey, GameId, GameKey, Result, Timestamp};

fn job_of(row: &Row) -> Result<ReviewJob> {
    let (platform, channel, id): (String, String, String) = (row.get(0), row.get(1), row.get(2));
    let round = round_of(row.get::<_, i32>(3).max(0) as u32);
    let game = ChannelKey::new(platform, channel).game(GameId::parse(&id)?);
    let record: JobRecord = decode(|| describe_job(&game, round), row, 4)?;
    Ok(ReviewJob { game, round, queued_at: record.queued_at })
}

fn round_column(round: Option<u32>) -> i32 {
    round_number(round).min(i32::MAX as u32) as i32
}

impl PgStore {
    pub(crate) fn queue_review(&self, job: &ReviewJob) -> Result<bool> {
        job.game.encode()?;
        let value = record_text(|| describe_job(&job.game, job.round), &JobRecord { queued_at: job.queued_at })?;
        let k = &job.game;
        let id = k.id.as_str().to_owned();
        let added = self.conn()?.execute(
            "INSERT INTO review_jobs (platform, channel, id, round, record, queued_at)
             VALUES ($1, $2, $3, $4, $5::text::jsonb, $6) ON CONFLICT DO NOTHING",
            &[&k.channel.platform, &k.channel.channel, &id, &round_column(job.round), &value, &ms(job.queued_at)],
        )?;
        Ok(added > 0)
    }

    pub(crate) fn reviews_owed(&self, platform: &str) -> Result<Vec<Result<ReviewJob>>> {
        crate::keys::join(&[("platform", platform)])?;
        let rows = self.conn()?.query(
            "SELECT platform, channel, id, round, record::text FROM review_jobs WHERE platform = $1
             ORDER BY channel COLLATE \"C\", id COLLATE \"C\", round",
            &[&platform],
        )?;
        Ok(rows.iter().map(job_of).collect())
    }

    pub(crate) fn claim_reviews(
        &self,
        now: Timestamp,
        platform: &str,
        lease: std::time::Duration,
        limit: usize,
    ) -> Result<Vec<ReviewJob>> {
        crate::keys::join(&[("platform", platform)])?;
        let until = ms(now).saturating_add(lease.as_millis().min(i64::MAX as u128) as i64);
        let limit = limit.min(i64::MAX as usize) as i64;
        let rows = self.tx(|t| {
            Ok(t.query(
                "UPDATE review_jobs j SET claimed_until = $2
                 FROM (SELECT platform, channel, id, round FROM review_jobs
                       WHERE platform = $3 AND (claimed_until IS NULL OR claimed_until <= $1)
                       ORDER BY queued_at LIMIT $4 FOR UPDATE SKIP LOCKED) d
                 WHERE j.platform = d.platform AND j.channel = d.channel AND j.id = d.id AND j.round = d.round
                 RETURNING j.platform, j.channel, j.id, j.round, j.record::text, j.queued_at",
                &[&ms(now), &until, &platform, &limit],
            )?)
        })?;
        let mut found: Vec<(i64, ReviewJob)> =
            rows.iter().filter_map(|r| job_of(r).ok().map(|j| (r.get::<_, i64>(5), j))).collect();
        found.sort_by_key(|(at, _)| *at);
        Ok(found.into_iter().map(|(_, j)| j).collect())
    }

    pub(crate) fn release_review(&self, game: &GameKey, round: Option<u32>) -> Result<()> {
        game.encode()?;
        self.conn()?.execute(
            "UPDATE review_jobs SET claimed_until = NULL WHERE platform = $1 AND channel = $2 AND id = $3 AND round = $4",
            &[&game.channel.platform, &game.channel.channel, &game.id.as_str(), &round_column(round)],
        )?;
        Ok(())
    }

    pub(crate) fn drop_review(&self, game: &GameKey, round: Option<u32>) -> Result<()> {
        game.encode()?;
        self.conn()?.execute(
            "DELETE FROM review_jobs WHERE platform = $1 AND channel = $2 AND id = $3 AND round = $4",
            &[&game.channel.platform, &game.channel.channel, &game.id.as_str(), &round_column(round)],
        )?;
        Ok(())
    }

    pub(crate) fn set_review(&self, game: &GameKey, round: Option<u32>, review: &str) -> Result<()> {
        game.encode()?;
        self.conn()?.execute(
            "INSERT INTO reviews (platform, channel, id, round, review) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (platform, channel, id, round) DO UPDATE SET review = excluded.review",
            &[
                &game.channel.platform,
                &game.channel.channel,
                &game.id.as_str().to_owned(),
                &round_column(round),
                &review,
            ],
        )?;
        Ok(())
    }

    pub(crate) fn review_of(&self, game: &GameKey, round: Option<u32>) -> Result<Option<String>> {
        game.encode()?;
        let row = self.conn()?.query_opt(
            "SELECT review FROM reviews WHERE platform = $1 AND channel = $2 AND id = $3 AND round = $4",
            &[&game.channel.platform, &game.channel.channel, &game.id.as_str(), &round_column(round)],
        )?;
        Ok(row.map(|r| r.get(0)))
    }
}
