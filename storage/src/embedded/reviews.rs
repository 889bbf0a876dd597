//! Reviews owed and done, in the embedded store: the `review_jobs` tree
//! holds the jobs, `reviews` the finished reviews, both keyed
//! `platform\0channel\0id\0round` (round 0: the whole game). One process
//! has the store, so a job's claim is kept in memory: after a restart every
//! job is free to take again.

use sled::Transactional;
use sled::transaction::ConflictableTransactionError;

use super::{SledStore, settled};
use crate::codec;
use crate::db::Journal;
use crate::keys::{self, GameId, prefix};
use crate::review::{JobRecord, ReviewJob, describe_job, round_number, round_of};
use crate::{ChannelKey, GameKey, Result, StoreError, Timestamp};

fn review_key(game: &GameKey, round: Option<u32>) -> Result<Vec<u8>> {
    let mut key = game.encode()?;
    key.push(0);
    key.extend_from_slice(&round_number(round).to_be_bytes());
    Ok(key)
}

/// The platform, channel, game id and round number of a `review_jobs` or
/// `reviews` key; `None` if it is no such key.
fn key_parts(key: &[u8]) -> Option<(String, String, String, u32)> {
    let (head, round) = key.split_at(key.len().checked_sub(4)?);
    let round = u32::from_be_bytes(round.try_into().ok()?);
    let head = head.strip_suffix(&[0])?;
    let mut parts = head.split(|b| *b == 0);
    let (platform, channel, id) = (parts.next()?, parts.next()?, parts.next()?);
    parts.next().is_none().then(|| (keys::text(platform), keys::text(channel), keys::text(id), round))
}

/// The job of a `review_jobs` key and value; `None` if the key is no such key.
fn job_of(key: &[u8], raw: &[u8]) -> Option<Result<ReviewJob>> {
    let (platform, channel, id, round) = key_parts(key)?;
    let round = round_of(round);
    let game = ChannelKey::new(platform, channel).game(GameId::parse(&id).ok()?);
    let record = codec::decode::<JobRecord>(|| describe_job(&game, round), raw);
    Some(record.map(|r| ReviewJob { game, round, queued_at: r.queued_at }))
}

impl SledStore {
    /// Queues a review; `false` (and nothing changed) if it is queued already.
    pub fn queue_review(&self, job: &ReviewJob) -> Result<bool> {
        let key = review_key(&job.game, job.round)?;
        let value = super::encode(|| describe_job(&job.game, job.round), &JobRecord { queued_at: job.queued_at })?;
        let open = self.db()?;
        let t = open.trees()?;
        let jobs = t.tree(b"review_jobs")?;
        let journal = Journal::default();
        let result = (&jobs, &t.meta).transaction(|(jobs, meta)| {
            journal.restart();
            if jobs.get(&key)?.is_some() {
                return Ok(false);
            }
            journal.insert(jobs, "review_jobs", &key, value.as_slice())?;
            journal.count(meta)?;
            Ok(true)
        });
        self.settle(open, journal, settled(result))
    }

    /// Every review `platform` owes, in key order; a damaged job is reported alone.
    pub fn reviews_owed(&self, platform: &str) -> Result<Vec<Result<ReviewJob>>> {
        let start = prefix(&[("platform", platform)])?;
        let open = self.db()?;
        let mut found = Vec::new();
        for entry in open.trees()?.tree(b"review_jobs")?.scan_prefix(&start) {
            let (key, raw) = entry?;
            if let Some(job) = job_of(&key, &raw) {
                found.push(job);
            }
        }
        Ok(found)
    }

    /// Takes the reviews `platform` owes that nobody has (or whose lease
    /// ended by `now`), oldest first, at most `limit`, for `lease`.
    pub fn claim_reviews(
        &self,
        now: Timestamp,
        platform: &str,
        lease: std::time::Duration,
        limit: usize,
    ) -> Result<Vec<ReviewJob>> {
        let mut jobs: Vec<ReviewJob> = self.reviews_owed(platform)?.into_iter().filter_map(Result::ok).collect();
        jobs.sort_by_key(|j| j.queued_at);
        let mut claims = self.shared.review_claims.lock().map_err(|_| super::closed())?;
        let until = now.0.saturating_add(lease.as_millis() as u64);
        let mut taken = Vec::new();
        for job in jobs {
            if taken.len() >= limit {
                break;
            }
            let key = review_key(&job.game, job.round)?;
            if claims.get(&key).is_some_and(|held| *held > now.0) {
                continue;
            }
            claims.insert(key, until);
            taken.push(job);
        }
        Ok(taken)
    }

    /// Gives back a review taken and not finished: free to take again at once.
    pub fn release_review(&self, game: &GameKey, round: Option<u32>) -> Result<()> {
        let key = review_key(game, round)?;
        if let Ok(mut claims) = self.shared.review_claims.lock() {
            claims.remove(&key);
        }
        Ok(())
    }

    /// Drops a review owed (done, or no longer possible).
    pub fn drop_review(&self, game: &GameKey, round: Option<u32>) -> Result<()> {
        let key = review_key(game, round)?;
        self.change_review("review_jobs", &key, None)?;
        if let Ok(mut claims) = self.shared.review_claims.lock() {
            claims.remove(&key);
        }
        Ok(())
    }

    /// Keeps the finished review of a game (or round), replacing one kept before.
    pub fn set_review(&self, game: &GameKey, round: Option<u32>, review: &str) -> Result<()> {
        let key = review_key(game, round)?;
        self.change_review("reviews", &key, Some(review.as_bytes()))
    }

    /// The finished review of a game (or round), if one is kept.
    pub fn review_of(&self, game: &GameKey, round: Option<u32>) -> Result<Option<String>> {
        let key = review_key(game, round)?;
        let open = self.db()?;
        let Some(raw) = open.trees()?.tree(b"reviews")?.get(key)? else { return Ok(None) };
        String::from_utf8(raw.to_vec())
            .map(Some)
            .map_err(|e| StoreError::Corrupt { record: describe_job(game, round), reason: e.to_string() })
    }

    /// Sets (`Some`) or removes (`None`) one entry of `tree` as one durable change.
    fn change_review(&self, tree: &'static str, key: &[u8], value: Option<&[u8]>) -> Result<()> {
        let open = self.db()?;
        let t = open.trees()?;
        let reviews = t.tree(tree.as_bytes())?;
        let journal = Journal::default();
        let result = (&reviews, &t.meta).transaction(|(reviews, meta)| {
            journal.restart();
            match value {
                Some(v) => journal.insert(reviews, tree, key, v)?,
                None if reviews.get(key)?.is_some() => journal.remove(reviews, tree, key)?,
                None => return Ok::<_, ConflictableTransactionError<StoreError>>(()),
            }
            journal.count(meta)?;
            Ok(())
        });
        self.settle(open, journal, settled(result))
    }
}

/// Reads every review owed and kept, for a copy to the shared store: rows
/// of (platform, channel, id, round, record, queued at) and (platform,
/// channel, id, round, review); what cannot be read goes to `skipped`.
#[allow(clippy::type_complexity)]
pub(crate) fn read_reviews(
    t: &crate::db::Trees,
    jobs: &mut Vec<(String, String, String, i32, String, i64)>,
    reviews: &mut Vec<(String, String, String, i32, String)>,
    skipped: &mut Vec<StoreError>,
) -> Result<()> {
    let malformed = |tree: &str, key: &[u8]| StoreError::Corrupt {
        record: format!("the entry `{}` of {tree}", keys::text(key).replace('\0', "/")),
        reason: "its key is malformed".to_owned(),
    };
    for entry in t.tree(b"review_jobs")?.iter() {
        let (key, raw) = entry?;
        let (Some((platform, channel, id, round)), Some(job)) = (key_parts(&key), job_of(&key, &raw)) else {
            skipped.push(malformed("the reviews owed", &key));
            continue;
        };
        let record = job.and_then(|j| {
            let text = super::encode(|| describe_job(&j.game, j.round), &JobRecord { queued_at: j.queued_at })?;
            Ok((String::from_utf8_lossy(&text).into_owned(), j.queued_at))
        });
        match record {
            Ok((text, at)) => {
                jobs.push((platform, channel, id, round.min(i32::MAX as u32) as i32, text, crate::pg::ms(at)))
            }
            Err(e) => skipped.push(e),
        }
    }
    for entry in t.tree(b"reviews")?.iter() {
        let (key, raw) = entry?;
        let Some((platform, channel, id, round)) = key_parts(&key) else {
            skipped.push(malformed("the reviews", &key));
            continue;
        };
        match String::from_utf8(raw.to_vec()) {
            Ok(text) => reviews.push((platform, channel, id, round.min(i32::MAX as u32) as i32, text)),
            Err(e) => {
                skipped.push(StoreError::Corrupt { record: format!("the review of game {id}"), reason: e.to_string() })
            }
        }
    }
    Ok(())
}
