//! Ratings: each player's rating per variant, the leaderboards, and the
//! rating of a finished game, written in the game's own transaction.

use super::*;

impl SledStore {
    /// The rating of `player` on `platform` in `variant` (the starting rating if they have none).
    pub fn rating(&self, platform: &str, player: &str, variant: &str) -> Result<Rating> {
        let open = self.db()?;
        match open.trees()?.ratings.get(rating_key(platform, player, variant)?)? {
            Some(raw) => codec::decode(|| describe_rating(platform, player, variant), &raw),
            None => Ok(Rating::default()),
        }
    }

    /// The best `limit` rated players of `variant` on `platform`, highest
    /// rating first. Damaged rating records are skipped.
    pub fn leaderboard(&self, platform: &str, variant: &str, limit: usize) -> Result<Vec<(String, Rating)>> {
        let prefix = prefix(&[("platform", platform)])?;
        join(&[("variant", variant)])?;
        let mut found = Vec::new();
        let open = self.db()?;
        for entry in open.trees()?.ratings.scan_prefix(&prefix) {
            let (key, raw) = entry?;
            let rest = &key[prefix.len()..];
            let Some(split) = rest.iter().position(|&b| b == 0) else { continue };
            if keys::text(&rest[split + 1..]) != variant {
                continue;
            }
            let player = keys::text(&rest[..split]);
            if let Ok(rating) = codec::decode::<Rating>(|| describe_rating(platform, &player, variant), &raw)
                && rating.games > 0
            {
                found.push((player, rating));
            }
        }
        found.sort_by(|a, b| b.1.rating.total_cmp(&a.1.rating).then_with(|| a.0.cmp(&b.0)));
        found.truncate(limit);
        Ok(found)
    }

    /// Every rating of `player` on `platform`, by variant.
    pub fn ratings_of(&self, platform: &str, player: &str) -> Result<Vec<(String, Result<Rating>)>> {
        let prefix = prefix(&[("platform", platform), ("player", player)])?;
        let mut found = Vec::new();
        let open = self.db()?;
        for entry in open.trees()?.ratings.scan_prefix(&prefix) {
            let (key, raw) = entry?;
            let variant = keys::text(&key[prefix.len()..]);
            let rating = codec::decode(|| describe_rating(platform, player, &variant), &raw);
            found.push((variant, rating));
        }
        Ok(found)
    }

    /// Rates a game played outside the store (an imported result): both
    /// ratings change at once. `None` for an aborted game or a player against themselves.
    ///
    /// Games ended with [`Store::finish_game`] are rated there; do not rate them again.
    pub fn record_result(
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
        let open = self.db()?;
        let t = open.trees()?;
        let journal = Journal::default();
        let result = (&t.ratings, &t.meta).transaction(|(ratings, meta)| {
            journal.restart();
            let changes = rate_in(&journal, ratings, platform, variant, white, black, outcome)?;
            if changes.is_some() {
                journal.count(meta)?;
            }
            Ok(changes)
        });
        self.settle(open, journal, settled(result))
    }
}

/// Rates a game inside a transaction on the ratings tree.
pub(super) fn rate_in(
    journal: &Journal,
    ratings: &TransactionalTree,
    platform: &str,
    variant: &str,
    white: &str,
    black: &str,
    outcome: Outcome,
) -> TxResult<Option<(RatingChange, RatingChange)>> {
    let read = |player: &str| -> TxResult<(Vec<u8>, Rating)> {
        let key = rating_key(platform, player, variant).or_abort()?;
        let rating = match ratings.get(&key)? {
            Some(raw) => codec::decode(|| describe_rating(platform, player, variant), &raw).or_abort()?,
            None => Rating::default(),
        };
        Ok((key, rating))
    };
    let (white_key, white_rating) = read(white)?;
    let (black_key, black_rating) = read(black)?;
    let Some((w, b)) = rate(white_rating, black_rating, outcome) else { return Ok(None) };
    let white_value = encode(|| describe_rating(platform, white, variant), &w.after).or_abort()?;
    journal.insert(ratings, "ratings", white_key, white_value)?;
    let black_value = encode(|| describe_rating(platform, black, variant), &b.after).or_abort()?;
    journal.insert(ratings, "ratings", black_key, black_value)?;
    Ok(Some((w, b)))
}
