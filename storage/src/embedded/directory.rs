//! Who is who: the user directory, the move of records a legacy username
//! keyed to the user's id, and the move of a chat's records to a new chat id.
//!
//! Players are keyed by the platform's immutable user id. A username is a
//! display name that can change hands; the directory maps it to the id that
//! holds it now, so that a typed `@name` can be read as that user.

use sled::Transactional;

use super::{
    OrAbort, TxResult, archive_index_key, challenge_key, decode_game, describe_challenge, describe_rating, due_of,
    encode, encode_game, player_key, rating_key, set_due, settled,
};
use crate::codec;
use crate::db::Journal;
use crate::embedded::SledStore;
use crate::keys::{self, join, prefix};
use crate::store::{ChannelMove, Migration, SEEN_EVERY, UserRecord};
use crate::{Challenge, ChannelKey, GameId, GameRecord, Rating, Result, Timestamp};

pub(crate) fn describe_user(platform: &str, id: &str) -> String {
    format!("the user {id} on {platform}")
}

/// A username as the directory keys it: Telegram usernames ignore case.
pub(crate) fn folded(username: &str) -> String {
    username.trim_start_matches('@').to_lowercase()
}

/// Renames player `old` to `new` everywhere in a game.
pub(crate) fn rename_in(game: &mut GameRecord, old: &str, new: &str) {
    let swap = |s: &mut String| {
        if s == old {
            new.clone_into(s);
        }
    };
    swap(&mut game.white);
    swap(&mut game.black);
    game.moves.iter_mut().for_each(|m| swap(&mut m.by));
    game.offers.iter_mut().for_each(|o| swap(&mut o.by));
    if let Some(clash) = &mut game.clash {
        clash.sealed_bids.iter_mut().for_each(|b| swap(&mut b.player));
        clash.rounds.iter_mut().flat_map(|r| r.bids.iter_mut()).for_each(|b| swap(&mut b.player));
        if let Some(gold) = clash.gold.remove(old) {
            clash.gold.insert(new.to_owned(), gold);
        }
        if let Some(army) = clash.armies.remove(old) {
            clash.armies.insert(new.to_owned(), army);
        }
    }
}

impl SledStore {
    /// The directory's record of user `id` on `platform`, if they were ever seen.
    pub fn user(&self, platform: &str, id: &str) -> Result<Option<UserRecord>> {
        let open = self.db()?;
        match open.trees()?.tree(b"users")?.get(join(&[("platform", platform), ("user id", id)])?)? {
            Some(raw) => codec::decode(|| describe_user(platform, id), &raw).map(Some),
            None => Ok(None),
        }
    }

    /// The id of the user who holds `username` on `platform` now (letter case
    /// ignored, a leading `@` too), if the directory knows it.
    pub fn user_by_username(&self, platform: &str, username: &str) -> Result<Option<String>> {
        let key = join(&[("platform", platform), ("username", &folded(username))])?;
        let open = self.db()?;
        Ok(open.trees()?.tree(b"usernames")?.get(key)?.map(|id| keys::text(&id)))
    }

    /// Notes user `id` as [`Store::see_user`] does (the username names this
    /// user from now on), but moves no records: for a platform whose
    /// records were always keyed by user id (Discord), where a username
    /// must never claim what another user's records hold.
    pub fn note_user(&self, platform: &str, id: &str, name: &str, username: Option<&str>, at: Timestamp) -> Result<()> {
        let open = self.db()?;
        let t = open.trees()?;
        let users = t.tree(b"users")?;
        let usernames = t.tree(b"usernames")?;
        let user_key = join(&[("platform", platform), ("user id", id)])?;
        let username = username.filter(|u| !u.is_empty());
        let name_key = username.map(|u| join(&[("platform", platform), ("username", &folded(u))])).transpose()?;
        // A damaged record is replaced by what is seen now.
        let old = users.get(&user_key)?.and_then(|raw| codec::decode::<UserRecord>(String::new, &raw).ok());
        let holder = match &name_key {
            Some(k) => usernames.get(k)?.map(|v| keys::text(&v)),
            None => None,
        };
        let fresh = old.as_ref().is_some_and(|o| {
            o.name == name && o.username.as_deref() == username && at.0.saturating_sub(o.seen.0) < SEEN_EVERY
        });
        if !fresh || (username.is_some() && holder.as_deref() != Some(id)) {
            let record = UserRecord { name: name.to_owned(), username: username.map(str::to_owned), seen: at };
            let value = encode(|| describe_user(platform, id), &record)?;
            let journal = Journal::default();
            let result = (&users, &usernames, &t.meta).transaction(|(users, usernames, meta)| {
                journal.restart();
                // The username this user had before no longer names them.
                if let Some(before) = old.as_ref().and_then(|o| o.username.as_deref())
                    && username.is_none_or(|u| folded(u) != folded(before))
                {
                    let k = join(&[("platform", platform), ("username", &folded(before))]).or_abort()?;
                    if usernames.get(&k)?.is_some_and(|v| *v == *id.as_bytes()) {
                        journal.remove(usernames, "usernames", k)?;
                    }
                }
                if let (Some(k), Some(u)) = (&name_key, username) {
                    if let Some(previous) = usernames.get(k)?.map(|v| keys::text(&v))
                        && previous != id
                    {
                        // The name changed hands: its former holder has it no more.
                        let pk = join(&[("platform", platform), ("user id", &previous)]).or_abort()?;
                        if let Some(raw) = users.get(&pk)?
                            && let Ok(mut former) = codec::decode::<UserRecord>(String::new, &raw)
                            && former.username.as_deref().is_some_and(|f| folded(f) == folded(u))
                        {
                            former.username = None;
                            journal.insert(
                                users,
                                "users",
                                pk,
                                encode(|| describe_user(platform, &previous), &former).or_abort()?,
                            )?;
                        }
                    }
                    journal.insert(usernames, "usernames", k.as_slice(), id.as_bytes())?;
                }
                journal.insert(users, "users", user_key.as_slice(), value.as_slice())?;
                journal.count(meta)?;
                Ok(())
            });
            self.settle(open, journal, settled(result))?;
        } else {
            drop(open);
        }
        Ok(())
    }

    /// Notes the display `name` of user `id` on `platform`, keeping the
    /// username the directory knows. Writes only when something changed (or
    /// the last sighting is a day old).
    pub fn note_name(&self, platform: &str, id: &str, name: &str, at: Timestamp) -> Result<()> {
        let key = join(&[("platform", platform), ("user id", id)])?;
        let open = self.db()?;
        let t = open.trees()?;
        let users = t.tree(b"users")?;
        let known = users.get(&key)?.and_then(|r| codec::decode::<UserRecord>(String::new, &r).ok());
        if known.is_some_and(|o| o.name == name && at.0.saturating_sub(o.seen.0) < SEEN_EVERY) {
            return Ok(());
        }
        let journal = Journal::default();
        let result = (&users, &t.meta).transaction(|(users, meta)| {
            journal.restart();
            let raw = users.get(&key)?;
            let old = raw.as_ref().and_then(|r| codec::decode::<UserRecord>(String::new, r).ok());
            if old.as_ref().is_some_and(|o| o.name == name && at.0.saturating_sub(o.seen.0) < SEEN_EVERY) {
                return Ok(false);
            }
            // The username the directory knows is kept.
            let username = old.and_then(|o| o.username);
            let record = UserRecord { name: name.to_owned(), username, seen: at };
            let value = encode(|| describe_user(platform, id), &record).or_abort()?;
            journal.insert(users, "users", &key, value)?;
            journal.count(meta)?;
            Ok(true)
        });
        self.settle(open, journal, settled(result)).map(drop)
    }

    /// Whether the records of the legacy player `username` (folded) were
    /// moved to a user id already (or found to be none).
    pub fn is_migrated(&self, platform: &str, username: &str) -> Result<bool> {
        let mark = join(&[("platform", platform), ("username", username)])?;
        let open = self.db()?;
        Ok(open.trees()?.tree(b"legacy_usernames")?.contains_key(&mark)?)
    }

    /// Moves every record keyed by the player `old` (a lower-cased username,
    /// as Kibitz keyed players before it keyed them by id) to the player `new`,
    /// in one transaction: active games (players, moves, offers, Clash
    /// bids, gold and armies) and the player index, challenges made and
    /// received, finished games and their index, and ratings (where both
    /// have a rating in a variant, the one with more games stays). Marks
    /// `old` as migrated, so that a later holder of the username gets
    /// nothing of it. A game is left where it is when `new` already plays
    /// another in its channel; it still moves to `new`.
    pub fn migrate_username(&self, platform: &str, old: &str, new: &str) -> Result<Migration> {
        let open = self.db()?;
        let t = open.trees()?;
        let legacy = t.tree(b"legacy_usernames")?;
        let mark = join(&[("platform", platform), ("username", old)])?;
        let old_prefix = prefix(&[("platform", platform), ("player", old)])?;
        let new_prefix = prefix(&[("platform", platform), ("player", new)])?;
        // What to move, found before the transaction (which cannot scan).
        let mut active = Vec::new();
        for entry in t.players.scan_prefix(&old_prefix) {
            let (key, id) = entry?;
            let channel = ChannelKey::new(platform, keys::text(&key[old_prefix.len()..]));
            active.push((key.to_vec(), channel.game(GameId::stored(&id))));
        }
        let mut archived = Vec::new();
        for entry in t.archive_index.scan_prefix(&old_prefix) {
            let (index, _) = entry?;
            let Some(rest) = index.get(old_prefix.len() + 8..) else { continue };
            let [channel, id] = keys::split(rest)[..] else { continue };
            let key = ChannelKey::new(platform, keys::text(channel)).game(GameId::stored(id));
            let mut renamed = new_prefix.clone();
            renamed.extend_from_slice(&index[old_prefix.len()..]);
            archived.push((index.to_vec(), renamed, key));
        }
        let mut challenges = Vec::new();
        for entry in t.challenges.scan_prefix(prefix(&[("platform", platform)])?) {
            let (key, raw) = entry?;
            let Ok(c) = codec::decode::<Challenge>(String::new, &raw) else { continue };
            if c.challenger == old || c.challenged.as_deref() == Some(old) {
                let parts = keys::split(&key);
                let Some(channel) = parts.get(1) else { continue };
                challenges.push((key.to_vec(), ChannelKey::new(platform, keys::text(channel))));
            }
        }
        let mut ratings = Vec::new();
        for entry in t.ratings.scan_prefix(&old_prefix) {
            let (key, _) = entry?;
            ratings.push(keys::text(&key[old_prefix.len()..]));
        }
        let trees = (&t.games, &t.players, &t.challenges, &t.archive, &t.archive_index, &t.ratings, &legacy, &t.meta);
        let journal = Journal::default();
        let result =
            trees.transaction(|(games, players, challenge_tree, archive, archive_index, rating_tree, legacy, meta)| {
                journal.restart();
                let mut moved = Migration::default();
                for (index, key) in &active {
                    let bytes = key.encode().or_abort()?;
                    let Some(raw) = games.get(&bytes)? else { continue };
                    let mut game = decode_game(key, &raw).or_abort()?;
                    rename_in(&mut game, old, new);
                    game.version += 1;
                    journal.insert(games, "games", bytes, encode_game(&game).or_abort()?)?;
                    journal.remove(players, "games_by_player", index.as_slice())?;
                    let pk = player_key(platform, new, &key.channel.channel).or_abort()?;
                    if players.get(&pk)?.is_none() {
                        journal.insert(players, "games_by_player", pk, key.id.as_str().as_bytes())?;
                    }
                    moved.games += 1;
                }
                for (index, renamed, key) in &archived {
                    journal.remove(archive_index, "archive_by_player", index.as_slice())?;
                    journal.insert(archive_index, "archive_by_player", renamed.as_slice(), &[][..])?;
                    let bytes = key.encode().or_abort()?;
                    let Some(raw) = archive.get(&bytes)? else { continue };
                    let mut game = decode_game(key, &raw).or_abort()?;
                    rename_in(&mut game, old, new);
                    journal.insert(archive, "archive", bytes, encode_game(&game).or_abort()?)?;
                    moved.archived += 1;
                }
                for (key, channel) in &challenges {
                    let Some(raw) = challenge_tree.get(key)? else { continue };
                    let mut c: Challenge = codec::decode(|| keys::text(key), &raw).or_abort()?;
                    let target = if c.challenger == old {
                        c.challenger = new.to_owned();
                        challenge_key(channel, new).or_abort()?
                    } else {
                        key.clone()
                    };
                    if c.challenged.as_deref() == Some(old) {
                        c.challenged = Some(new.to_owned());
                    }
                    journal.remove(challenge_tree, "challenges", key.as_slice())?;
                    // The user's own newer challenge there stays.
                    if target == *key || challenge_tree.get(&target)?.is_none() {
                        let value = encode(|| describe_challenge(channel, &c.challenger), &c).or_abort()?;
                        journal.insert(challenge_tree, "challenges", target, value)?;
                    }
                    moved.challenges += 1;
                }
                for variant in &ratings {
                    let from = rating_key(platform, old, variant).or_abort()?;
                    let Some(raw) = rating_tree.get(&from)? else { continue };
                    let theirs: Rating = codec::decode(|| describe_rating(platform, old, variant), &raw).or_abort()?;
                    let to = rating_key(platform, new, variant).or_abort()?;
                    let keep = match rating_tree.get(&to)? {
                        Some(raw) => match codec::decode::<Rating>(|| describe_rating(platform, new, variant), &raw) {
                            Ok(mine) if mine.games >= theirs.games => mine,
                            _ => theirs,
                        },
                        None => theirs,
                    };
                    journal.remove(rating_tree, "ratings", from)?;
                    journal.insert(
                        rating_tree,
                        "ratings",
                        to,
                        encode(|| describe_rating(platform, new, variant), &keep).or_abort()?,
                    )?;
                    moved.ratings += 1;
                }
                journal.insert(legacy, "legacy_usernames", mark.as_slice(), new.as_bytes())?;
                journal.count(meta)?;
                Ok(moved)
            });
        self.settle(open, journal, settled(result))
    }

    /// Moves channel `from`'s records to the channel `to` on the same
    /// platform (a Telegram group that became a supergroup gets a new chat
    /// id): active games and the player index, challenges, finished games
    /// and their index, and the settings, in one transaction. A game whose
    /// id is taken in `to` already, and a record that cannot be read, stay
    /// where they are; settings `to` has already are kept. Moving again
    /// moves nothing.
    pub fn move_channel(&self, from: &ChannelKey, to: &str) -> Result<ChannelMove> {
        let target = ChannelKey::new(from.platform.clone(), to);
        target.encode()?;
        if target == *from {
            return Ok(ChannelMove::default());
        }
        let from_prefix = from.prefix()?;
        let open = self.db()?;
        let t = open.trees()?;
        let ids = |tree: &sled::Tree| -> Result<Vec<GameId>> {
            let mut ids = Vec::new();
            for entry in tree.scan_prefix(&from_prefix) {
                ids.push(GameId::stored(&entry?.0[from_prefix.len()..]));
            }
            Ok(ids)
        };
        let active = ids(&t.games)?;
        let archived = ids(&t.archive)?;
        let mut challengers = Vec::new();
        for entry in t.challenges.scan_prefix(&from_prefix) {
            challengers.push(keys::text(&entry?.0[from_prefix.len()..]));
        }
        let trees = (&t.games, &t.players, &t.challenges, &t.archive, &t.archive_index, &t.channels, &t.due, &t.meta);
        let journal = Journal::default();
        let result = trees.transaction(|(games, players, challenges, archive, archive_index, channels, due, meta)| {
            journal.restart();
            let mut moved = ChannelMove::default();
            let free =
                |bytes: &[u8]| -> TxResult<bool> { Ok(games.get(bytes)?.is_none() && archive.get(bytes)?.is_none()) };
            for id in &active {
                let (old_key, new_key) = (from.game(id.clone()), target.game(id.clone()));
                let (old_bytes, new_bytes) = (old_key.encode().or_abort()?, new_key.encode().or_abort()?);
                let Some(raw) = games.get(&old_bytes)? else { continue };
                let Ok(mut game) = decode_game(&old_key, &raw) else { continue };
                if !free(&new_bytes)? {
                    continue;
                }
                // The clock's index names the game by its key.
                set_due(&journal, due, &old_bytes, due_of(&game), None)?;
                set_due(&journal, due, &new_bytes, None, due_of(&game))?;
                game.key = new_key;
                game.version += 1;
                journal.remove(games, "games", old_bytes.as_slice())?;
                journal.insert(games, "games", new_bytes, encode_game(&game).or_abort()?)?;
                for player in game.indexed_players() {
                    let old_pk = player_key(&from.platform, player, &from.channel).or_abort()?;
                    if players.get(&old_pk)?.is_some_and(|v| *v == *id.as_str().as_bytes()) {
                        journal.remove(players, "games_by_player", old_pk)?;
                    }
                    let new_pk = player_key(&from.platform, player, to).or_abort()?;
                    if players.get(&new_pk)?.is_none() {
                        journal.insert(players, "games_by_player", new_pk, id.as_str().as_bytes())?;
                    }
                }
                moved.games += 1;
            }
            for id in &archived {
                let (old_key, new_key) = (from.game(id.clone()), target.game(id.clone()));
                let (old_bytes, new_bytes) = (old_key.encode().or_abort()?, new_key.encode().or_abort()?);
                let Some(raw) = archive.get(&old_bytes)? else { continue };
                let Ok(mut game) = decode_game(&old_key, &raw) else { continue };
                if !free(&new_bytes)? {
                    continue;
                }
                if let Some(at) = game.result.as_ref().map(|r| r.at) {
                    for player in [&game.white, &game.black] {
                        journal.remove(
                            archive_index,
                            "archive_by_player",
                            archive_index_key(&old_key, player, at).or_abort()?,
                        )?;
                        journal.insert(
                            archive_index,
                            "archive_by_player",
                            archive_index_key(&new_key, player, at).or_abort()?,
                            &[][..],
                        )?;
                    }
                }
                game.key = new_key;
                journal.remove(archive, "archive", old_bytes.as_slice())?;
                journal.insert(archive, "archive", new_bytes, encode_game(&game).or_abort()?)?;
                moved.archived += 1;
            }
            for challenger in &challengers {
                let old_key = challenge_key(from, challenger).or_abort()?;
                let new_key = challenge_key(&target, challenger).or_abort()?;
                let Some(raw) = challenges.get(&old_key)? else { continue };
                journal.remove(challenges, "challenges", old_key)?;
                if challenges.get(&new_key)?.is_none() {
                    journal.insert(challenges, "challenges", new_key, raw)?;
                    moved.challenges += 1;
                }
            }
            let old_settings = from.encode().or_abort()?;
            if let Some(raw) = channels.get(&old_settings)? {
                let new_settings = target.encode().or_abort()?;
                journal.remove(channels, "channels", old_settings)?;
                if channels.get(&new_settings)?.is_none() {
                    journal.insert(channels, "channels", new_settings, raw)?;
                    moved.settings = true;
                }
            }
            journal.count(meta)?;
            Ok(moved)
        });
        self.settle(open, journal, settled(result))
    }
}
