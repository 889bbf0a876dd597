//! Who is who, in the shared store: the user directory, the move of a
//! legacy username's records to the user's id, and the move of a chat's
//! records to a new chat id (see the embedded store's `directory` module).

use super::{Db, PgStore, Tx, decode, decode_game, game_text, record_text};
use crate::embedded::{challenge_key, describe_challenge, describe_rating, describe_user, folded, rename_in};
use crate::keys::join;
use crate::store::{ChannelMove, Migration, SEEN_EVERY, UserRecord};
use crate::{Challenge, ChannelKey, GameId, Rating, Result, Timestamp};

/// The user record of `id`, if there is one that reads (a damaged one is replaced when written).
fn user_in(t: &mut impl Db, platform: &str, id: &str) -> Result<Option<UserRecord>> {
    let row = t.query_opt("SELECT record::text FROM users WHERE platform = $1 AND id = $2", &[&platform, &id])?;
    Ok(row.and_then(|r| decode::<UserRecord>(String::new, &r, 0).ok()))
}

fn put_user(t: &mut Tx<'_>, platform: &str, id: &str, record: &UserRecord) -> Result<()> {
    t.execute(
        "INSERT INTO users (platform, id, record) VALUES ($1, $2, $3::text::jsonb)
         ON CONFLICT (platform, id) DO UPDATE SET record = excluded.record",
        &[&platform, &id, &record_text(|| describe_user(platform, id), record)?],
    )?;
    Ok(())
}

impl PgStore {
    pub(crate) fn user(&self, platform: &str, id: &str) -> Result<Option<UserRecord>> {
        join(&[("platform", platform), ("user id", id)])?;
        let row = self
            .conn()?
            .query_opt("SELECT record::text FROM users WHERE platform = $1 AND id = $2", &[&platform, &id])?;
        row.map(|r| decode(|| describe_user(platform, id), &r, 0)).transpose()
    }

    pub(crate) fn user_by_username(&self, platform: &str, username: &str) -> Result<Option<String>> {
        let username = folded(username);
        join(&[("platform", platform), ("username", &username)])?;
        let row = self
            .conn()?
            .query_opt("SELECT id FROM usernames WHERE platform = $1 AND username = $2", &[&platform, &username])?;
        Ok(row.map(|r| r.get(0)))
    }

    pub(crate) fn is_migrated(&self, platform: &str, username: &str) -> Result<bool> {
        join(&[("platform", platform), ("username", username)])?;
        let done = self.conn()?.query_opt(
            "SELECT 1 FROM legacy_usernames WHERE platform = $1 AND username = $2",
            &[&platform, &username],
        )?;
        Ok(done.is_some())
    }

    pub(crate) fn note_user(
        &self,
        platform: &str,
        id: &str,
        name: &str,
        username: Option<&str>,
        at: Timestamp,
    ) -> Result<()> {
        join(&[("platform", platform), ("user id", id)])?;
        let username = username.filter(|u| !u.is_empty());
        let key = username.map(folded);
        if let Some(k) = &key {
            join(&[("platform", platform), ("username", k)])?;
        }
        // Most sightings change nothing: look before writing.
        {
            let mut conn = self.conn()?;
            let old = user_in(&mut *conn, platform, id)?;
            let holder: Option<String> = match &key {
                Some(k) => conn
                    .query_opt("SELECT id FROM usernames WHERE platform = $1 AND username = $2", &[&platform, k])?
                    .map(|r| r.get(0)),
                None => None,
            };
            let fresh = old.as_ref().is_some_and(|o| {
                o.name == name && o.username.as_deref() == username && at.0.saturating_sub(o.seen.0) < SEEN_EVERY
            });
            if fresh && (username.is_none() || holder.as_deref() == Some(id)) {
                return Ok(());
            }
        }
        self.tx(|t| {
            let old = user_in(t, platform, id)?;
            // The username this user had before no longer names them.
            if let Some(before) = old.as_ref().and_then(|o| o.username.as_deref())
                && key.as_deref() != Some(folded(before).as_str())
            {
                t.execute(
                    "DELETE FROM usernames WHERE platform = $1 AND username = $2 AND id = $3",
                    &[&platform, &folded(before), &id],
                )?;
            }
            if let Some(k) = &key {
                let previous: Option<String> = t
                    .query_opt(
                        "SELECT id FROM usernames WHERE platform = $1 AND username = $2 FOR UPDATE",
                        &[&platform, k],
                    )?
                    .map(|r| r.get(0));
                if let Some(previous) = previous.filter(|p| p != id)
                    && let Some(mut former) = user_in(t, platform, &previous)?
                    && former.username.as_deref().is_some_and(|f| folded(f) == *k)
                {
                    // The name changed hands: its former holder has it no more.
                    former.username = None;
                    put_user(t, platform, &previous, &former)?;
                }
                t.execute(
                    "INSERT INTO usernames (platform, username, id) VALUES ($1, $2, $3)
                     ON CONFLICT (platform, username) DO UPDATE SET id = excluded.id",
                    &[&platform, k, &id],
                )?;
            }
            let record = UserRecord { name: name.to_owned(), username: username.map(str::to_owned), seen: at };
            put_user(t, platform, id, &record)
        })
    }

    pub(crate) fn note_name(&self, platform: &str, id: &str, name: &str, at: Timestamp) -> Result<()> {
        join(&[("platform", platform), ("user id", id)])?;
        let known = user_in(&mut *self.conn()?, platform, id)?;
        if known.is_some_and(|o| o.name == name && at.0.saturating_sub(o.seen.0) < SEEN_EVERY) {
            return Ok(());
        }
        self.tx(|t| {
            t.execute("SELECT 1 FROM users WHERE platform = $1 AND id = $2 FOR UPDATE", &[&platform, &id])?;
            let old = user_in(t, platform, id)?;
            if old.as_ref().is_some_and(|o| o.name == name && at.0.saturating_sub(o.seen.0) < SEEN_EVERY) {
                return Ok(());
            }
            // The username the directory knows is kept.
            let record = UserRecord { name: name.to_owned(), username: old.and_then(|o| o.username), seen: at };
            put_user(t, platform, id, &record)
        })
    }

    pub(crate) fn migrate_username(&self, platform: &str, old: &str, new: &str) -> Result<Migration> {
        join(&[("platform", platform), ("player", old)])?;
        join(&[("platform", platform), ("player", new)])?;
        self.tx(|t| {
            let mut moved = Migration::default();
            let active = t.query(
                "SELECT channel, id FROM game_players WHERE platform = $1 AND player = $2 FOR UPDATE",
                &[&platform, &old],
            )?;
            for row in &active {
                let (channel, id): (String, String) = (row.get(0), row.get(1));
                let key = ChannelKey::new(platform, channel.as_str()).game(GameId::stored(id.as_bytes()));
                let Some(found) = t.query_opt(
                    "SELECT record::text FROM games WHERE platform = $1 AND channel = $2 AND id = $3 FOR UPDATE",
                    &[&platform, &channel, &id],
                )?
                else {
                    continue;
                };
                let mut game = decode_game(&key, &found, 0)?;
                rename_in(&mut game, old, new);
                game.version += 1;
                t.execute(
                    "UPDATE games SET record = $4::text::jsonb, version = $5 WHERE platform = $1 AND channel = $2 AND id = $3",
                    &[&platform, &channel, &id, &game_text(&game)?, &(game.version as i64)],
                )?;
                t.execute(
                    "DELETE FROM game_players WHERE platform = $1 AND player = $2 AND channel = $3",
                    &[&platform, &old, &channel],
                )?;
                t.execute(
                    "INSERT INTO game_players (platform, player, channel, id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                    &[&platform, &new, &channel, &id],
                )?;
                moved.games += 1;
            }
            let archived = t.query(
                "SELECT finished_at, channel, id FROM archive_players WHERE platform = $1 AND player = $2",
                &[&platform, &old],
            )?;
            for row in &archived {
                let (at, channel, id): (i64, String, String) = (row.get(0), row.get(1), row.get(2));
                t.execute(
                    "DELETE FROM archive_players WHERE platform = $1 AND player = $2 AND finished_at = $3
                     AND channel = $4 AND id = $5",
                    &[&platform, &old, &at, &channel, &id],
                )?;
                t.execute(
                    "INSERT INTO archive_players (platform, player, finished_at, channel, id) VALUES ($1, $2, $3, $4, $5)
                     ON CONFLICT DO NOTHING",
                    &[&platform, &new, &at, &channel, &id],
                )?;
                let key = ChannelKey::new(platform, channel.as_str()).game(GameId::stored(id.as_bytes()));
                let Some(found) = t.query_opt(
                    "SELECT record::text FROM archive WHERE platform = $1 AND channel = $2 AND id = $3 FOR UPDATE",
                    &[&platform, &channel, &id],
                )?
                else {
                    continue;
                };
                let mut game = decode_game(&key, &found, 0)?;
                rename_in(&mut game, old, new);
                t.execute(
                    "UPDATE archive SET record = $4::text::jsonb WHERE platform = $1 AND channel = $2 AND id = $3",
                    &[&platform, &channel, &id, &game_text(&game)?],
                )?;
                moved.archived += 1;
            }
            let challenges = t.query(
                "SELECT channel, challenger, record::text FROM challenges WHERE platform = $1 FOR UPDATE",
                &[&platform],
            )?;
            for row in &challenges {
                let (channel, challenger): (String, String) = (row.get(0), row.get(1));
                let Ok(mut c) = decode::<Challenge>(String::new, row, 2) else { continue };
                if c.challenger != old && c.challenged.as_deref() != Some(old) {
                    continue;
                }
                let chan = ChannelKey::new(platform, channel.as_str());
                let target = if c.challenger == old {
                    c.challenger = new.to_owned();
                    new.to_owned()
                } else {
                    challenger.clone()
                };
                if c.challenged.as_deref() == Some(old) {
                    c.challenged = Some(new.to_owned());
                }
                challenge_key(&chan, &target)?;
                t.execute(
                    "DELETE FROM challenges WHERE platform = $1 AND channel = $2 AND challenger = $3",
                    &[&platform, &channel, &challenger],
                )?;
                // The user's own newer challenge there stays.
                t.execute(
                    "INSERT INTO challenges (platform, channel, challenger, record) VALUES ($1, $2, $3, $4::text::jsonb)
                     ON CONFLICT DO NOTHING",
                    &[&platform, &channel, &target, &record_text(|| describe_challenge(&chan, &c.challenger), &c)?],
                )?;
                moved.challenges += 1;
            }
            let ratings = t.query(
                "SELECT variant, record::text FROM ratings WHERE platform = $1 AND player = $2 FOR UPDATE",
                &[&platform, &old],
            )?;
            for row in &ratings {
                let variant: String = row.get(0);
                let theirs: Rating = decode(|| describe_rating(platform, old, &variant), row, 1)?;
                let mine = t.query_opt(
                    "SELECT record::text FROM ratings WHERE platform = $1 AND player = $2 AND variant = $3 FOR UPDATE",
                    &[&platform, &new, &variant],
                )?;
                let keep = match mine.map(|r| decode::<Rating>(|| describe_rating(platform, new, &variant), &r, 0)) {
                    Some(Ok(mine)) if mine.games >= theirs.games => mine,
                    _ => theirs,
                };
                t.execute(
                    "DELETE FROM ratings WHERE platform = $1 AND player = $2 AND variant = $3",
                    &[&platform, &old, &variant],
                )?;
                t.execute(
                    "INSERT INTO ratings (platform, player, variant, record, rating, games)
                     VALUES ($1, $2, $3, $4::text::jsonb, $5, $6)
                     ON CONFLICT (platform, player, variant) DO UPDATE
                     SET record = excluded.record, rating = excluded.rating, games = excluded.games",
                    &[
                        &platform,
                        &new,
                        &variant,
                        &record_text(|| describe_rating(platform, new, &variant), &keep)?,
                        &keep.rating,
                        &i64::from(keep.games),
                    ],
                )?;
                moved.ratings += 1;
            }
            t.execute(
                "INSERT INTO legacy_usernames (platform, username, id) VALUES ($1, $2, $3)
                 ON CONFLICT (platform, username) DO UPDATE SET id = excluded.id",
                &[&platform, &old, &new],
            )?;
            Ok(moved)
        })
    }

    pub(crate) fn move_channel(&self, from: &ChannelKey, to: &str) -> Result<ChannelMove> {
        let target = ChannelKey::new(from.platform.clone(), to);
        target.encode()?;
        from.encode()?;
        if target == *from {
            return Ok(ChannelMove::default());
        }
        let (platform, old) = (&from.platform, &from.channel);
        self.tx(|t| {
            let mut moved = ChannelMove::default();
            let free = |t: &mut Tx<'_>, id: &str| -> Result<bool> {
                let taken = t.query_opt(
                    "SELECT 1 FROM games WHERE platform = $1 AND channel = $2 AND id = $3
                     UNION ALL SELECT 1 FROM archive WHERE platform = $1 AND channel = $2 AND id = $3",
                    &[platform, &to, &id],
                )?;
                Ok(taken.is_none())
            };
            let active = t.query(
                "SELECT id, record::text FROM games WHERE platform = $1 AND channel = $2 FOR UPDATE",
                &[platform, old],
            )?;
            for row in &active {
                let id: String = row.get(0);
                let Ok(mut game) = decode_game(&from.game(GameId::stored(id.as_bytes())), row, 1) else { continue };
                if !free(t, &id)? {
                    continue;
                }
                game.key = target.game(GameId::stored(id.as_bytes()));
                game.version += 1;
                t.execute(
                    "DELETE FROM game_players WHERE platform = $1 AND channel = $2 AND id = $3",
                    &[platform, old, &id],
                )?;
                t.execute(
                    "UPDATE games SET channel = $4, record = $5::text::jsonb, version = $6
                     WHERE platform = $1 AND channel = $2 AND id = $3",
                    &[platform, old, &id, &to, &game_text(&game)?, &(game.version as i64)],
                )?;
                for player in game.indexed_players() {
                    t.execute(
                        "INSERT INTO game_players (platform, player, channel, id) VALUES ($1, $2, $3, $4)
                         ON CONFLICT DO NOTHING",
                        &[platform, player, &to, &id],
                    )?;
                }
                moved.games += 1;
            }
            let archived = t.query(
                "SELECT id, record::text FROM archive WHERE platform = $1 AND channel = $2 FOR UPDATE",
                &[platform, old],
            )?;
            for row in &archived {
                let id: String = row.get(0);
                let Ok(mut game) = decode_game(&from.game(GameId::stored(id.as_bytes())), row, 1) else { continue };
                if !free(t, &id)? {
                    continue;
                }
                game.key = target.game(GameId::stored(id.as_bytes()));
                // The index rows follow the key (ON UPDATE CASCADE).
                t.execute(
                    "UPDATE archive SET channel = $4, record = $5::text::jsonb WHERE platform = $1 AND channel = $2 AND id = $3",
                    &[platform, old, &id, &to, &game_text(&game)?],
                )?;
                moved.archived += 1;
            }
            let challenges = t.query(
                "DELETE FROM challenges WHERE platform = $1 AND channel = $2 RETURNING challenger, record::text",
                &[platform, old],
            )?;
            for row in &challenges {
                let (challenger, record): (String, String) = (row.get(0), row.get(1));
                let made = t.execute(
                    "INSERT INTO challenges (platform, channel, challenger, record) VALUES ($1, $2, $3, $4::text::jsonb)
                     ON CONFLICT DO NOTHING",
                    &[platform, &to, &challenger, &record],
                )?;
                moved.challenges += made as usize;
            }
            let settings = t.query_opt(
                "DELETE FROM channel_settings WHERE platform = $1 AND channel = $2 RETURNING record::text",
                &[platform, old],
            )?;
            if let Some(row) = settings {
                let record: String = row.get(0);
                let made = t.execute(
                    "INSERT INTO channel_settings (platform, channel, record) VALUES ($1, $2, $3::text::jsonb)
                     ON CONFLICT DO NOTHING",
                    &[platform, &to, &record],
                )?;
                moved.settings = made == 1;
            }
            Ok(moved)
        })
    }
}
