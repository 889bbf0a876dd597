//! Who is who: the user directory, the move of records a legacy username
//! keyed to the user's id, and the move of a chat's records to a new chat id.
//!
//! Players are keyed by the platform's immutable user id. A username is a
//! display name that can change hands; the directory maps it to the id that
//! holds it now, so that a typed `@name` can be read as that user.

use serde::{Deserialize, Serialize};
use sled::Transactional;

use super::{
    OrAbort, TxResult, archive_index_key, challenge_key, decode_game, describe_challenge, describe_rating, encode,
    encode_game, player_key, rating_key, settled,
};
use crate::codec::{self, Record};
use crate::keys::{self, join, prefix};
use crate::{Challenge, ChannelKey, GameId, GameRecord, Rating, Result, Store, Timestamp};

/// How long a user's "last seen" may lag before a message from them writes it again.
const SEEN_EVERY: u64 = 24 * 3_600_000;

/// A user as last seen, in the directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserRecord {
    /// The name to show (a Telegram user's first and last name).
    pub name: String,
    /// The user's @username as they write it, if they have one.
    #[serde(default)]
    pub username: Option<String>,
    /// When the user was last seen.
    pub seen: Timestamp,
}

impl Record for UserRecord {
    const VERSION: u32 = 1;
}

/// What the move of a legacy username's records to a user id moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Migration {
    /// Active games.
    pub games: usize,
    /// Pending challenges (made or received).
    pub challenges: usize,
    /// Finished games in the archive.
    pub archived: usize,
    /// Ratings (one per variant).
    pub ratings: usize,
}

impl Migration {
    /// Whether nothing was moved.
    pub fn is_empty(&self) -> bool {
        *self == Migration::default()
    }
}

/// What the move of a chat to a new chat id moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChannelMove {
    /// Active games.
    pub games: usize,
    /// Pending challenges.
    pub challenges: usize,
    /// Finished games in the archive.
    pub archived: usize,
    /// Whether the channel's settings moved.
    pub settings: bool,
}

fn describe_user(platform: &str, id: &str) -> String {
    format!("the user {id} on {platform}")
}

/// A username as the directory keys it: Telegram usernames ignore case.
fn folded(username: &str) -> String {
    username.trim_start_matches('@').to_lowercase()
}

/// Renames player `old` to `new` everywhere in a game.
fn rename_in(game: &mut GameRecord, old: &str, new: &str) {
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

impl Store {
    /// The directory's record of user `id` on `platform`, if they were ever seen.
    pub fn user(&self, platform: &str, id: &str) -> Result<Option<UserRecord>> {
        match self.tree("users")?.get(join(&[("platform", platform), ("user id", id)])?)? {
            Some(raw) => codec::decode(|| describe_user(platform, id), &raw).map(Some),
            None => Ok(None),
        }
    }

    /// The id of the user who holds `username` on `platform` now (letter case
    /// ignored, a leading `@` too), if the directory knows it.
    pub fn user_by_username(&self, platform: &str, username: &str) -> Result<Option<String>> {
        let key = join(&[("platform", platform), ("username", &folded(username))])?;
        Ok(self.tree("usernames")?.get(key)?.map(|id| keys::text(&id)))
    }

    /// Notes that user `id` was seen at `at` under the display `name` and
    /// `username` (`None`: they have none now). The username now names this
    /// user; a user who held it before keeps their id and records, and no
    /// longer has a username in the directory.
    ///
    /// The first time a username is seen, records keyed by it (as Kibitz
    /// keyed players by username before it keyed them by id) move to `id`,
    /// all at once: see [`Store::migrate_username`]. Returns what moved.
    pub fn see_user(
        &self,
        platform: &str,
        id: &str,
        name: &str,
        username: Option<&str>,
        at: Timestamp,
    ) -> Result<Migration> {
        let users = self.tree("users")?;
        let usernames = self.tree("usernames")?;
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
        let mut changed = false;
        if !fresh || (username.is_some() && holder.as_deref() != Some(id)) {
            let record = UserRecord { name: name.to_owned(), username: username.map(str::to_owned), seen: at };
            let value = encode(|| describe_user(platform, id), &record)?;
            let result = (&users, &usernames).transaction(|(users, usernames)| {
                // The username this user had before no longer names them.
                if let Some(before) = old.as_ref().and_then(|o| o.username.as_deref())
                    && username.is_none_or(|u| folded(u) != folded(before))
                {
                    let k = join(&[("platform", platform), ("username", &folded(before))]).or_abort()?;
                    if usernames.get(&k)?.is_some_and(|v| *v == *id.as_bytes()) {
                        usernames.remove(k)?;
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
                            users.insert(pk, encode(|| describe_user(platform, &previous), &former).or_abort()?)?;
                        }
                    }
                    usernames.insert(k.as_slice(), id.as_bytes())?;
                }
                users.insert(user_key.as_slice(), value.as_slice())?;
                Ok(())
            });
            settled(result)?;
            changed = true;
        }
        let migration = match username {
            Some(u) => self.migrate_once(platform, &folded(u), id)?,
            None => Migration::default(),
        };
        if changed || !migration.is_empty() {
            self.sync()?;
        }
        Ok(migration)
    }

    /// Notes the display `name` of user `id` on `platform`, keeping the
    /// username the directory knows. Writes only when something changed (or
    /// the last sighting is a day old).
    pub fn note_name(&self, platform: &str, id: &str, name: &str, at: Timestamp) -> Result<()> {
        let users = self.tree("users")?;
        let key = join(&[("platform", platform), ("user id", id)])?;
        loop {
            let raw = users.get(&key)?;
            let old = raw.as_ref().and_then(|r| codec::decode::<UserRecord>(String::new, r).ok());
            if old.as_ref().is_some_and(|o| o.name == name && at.0.saturating_sub(o.seen.0) < SEEN_EVERY) {
                return Ok(());
            }
            let username = old.and_then(|o| o.username);
            let record = UserRecord { name: name.to_owned(), username, seen: at };
            let value = encode(|| describe_user(platform, id), &record)?;
            // A username noted meanwhile (by the adapter) is kept: read again.
            if users.compare_and_swap(&key, raw, Some(value))?.is_ok() {
                return self.sync();
            }
        }
    }

    /// [`Store::migrate_username`], unless `username` was migrated (or found
    /// with no records) before.
    fn migrate_once(&self, platform: &str, username: &str, id: &str) -> Result<Migration> {
        // A numeric key is a user id already (users without a username were keyed so).
        if username == id || username.chars().all(|c| c.is_ascii_digit()) {
            return Ok(Migration::default());
        }
        let mark = join(&[("platform", platform), ("username", username)])?;
        if self.tree("legacy_usernames")?.contains_key(&mark)? {
            return Ok(Migration::default());
        }
        self.migrate_username(platform, username, id)
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
        let legacy = self.tree("legacy_usernames")?;
        let mark = join(&[("platform", platform), ("username", old)])?;
        let old_prefix = prefix(&[("platform", platform), ("player", old)])?;
        let new_prefix = prefix(&[("platform", platform), ("player", new)])?;
        // What to move, found before the transaction (which cannot scan).
        let mut active = Vec::new();
        for entry in self.players.scan_prefix(&old_prefix) {
            let (key, id) = entry?;
            let channel = ChannelKey::new(platform, keys::text(&key[old_prefix.len()..]));
            active.push((key.to_vec(), channel.game(GameId::stored(&id))));
        }
        let mut archived = Vec::new();
        for entry in self.archive_index.scan_prefix(&old_prefix) {
            let (index, _) = entry?;
            let Some(rest) = index.get(old_prefix.len() + 8..) else { continue };
            let [channel, id] = keys::split(rest)[..] else { continue };
            let key = ChannelKey::new(platform, keys::text(channel)).game(GameId::stored(id));
            let mut renamed = new_prefix.clone();
            renamed.extend_from_slice(&index[old_prefix.len()..]);
            archived.push((index.to_vec(), renamed, key));
        }
        let mut challenges = Vec::new();
        for entry in self.challenges.scan_prefix(prefix(&[("platform", platform)])?) {
            let (key, raw) = entry?;
            let Ok(c) = codec::decode::<Challenge>(String::new, &raw) else { continue };
            if c.challenger == old || c.challenged.as_deref() == Some(old) {
                let parts = keys::split(&key);
                let Some(channel) = parts.get(1) else { continue };
                challenges.push((key.to_vec(), ChannelKey::new(platform, keys::text(channel))));
            }
        }
        let mut ratings = Vec::new();
        for entry in self.ratings.scan_prefix(&old_prefix) {
            let (key, _) = entry?;
            ratings.push(keys::text(&key[old_prefix.len()..]));
        }
        let trees =
            (&self.games, &self.players, &self.challenges, &self.archive, &self.archive_index, &self.ratings, &legacy);
        let result =
            trees.transaction(|(games, players, challenge_tree, archive, archive_index, rating_tree, legacy)| {
                let mut moved = Migration::default();
                for (index, key) in &active {
                    let bytes = key.encode().or_abort()?;
                    let Some(raw) = games.get(&bytes)? else { continue };
                    let mut game = decode_game(key, &raw).or_abort()?;
                    rename_in(&mut game, old, new);
                    game.version += 1;
                    games.insert(bytes, encode_game(&game).or_abort()?)?;
                    players.remove(index.as_slice())?;
                    let pk = player_key(platform, new, &key.channel.channel).or_abort()?;
                    if players.get(&pk)?.is_none() {
                        players.insert(pk, key.id.as_str().as_bytes())?;
                    }
                    moved.games += 1;
                }
                for (index, renamed, key) in &archived {
                    archive_index.remove(index.as_slice())?;
                    archive_index.insert(renamed.as_slice(), &[])?;
                    let bytes = key.encode().or_abort()?;
                    let Some(raw) = archive.get(&bytes)? else { continue };
                    let mut game = decode_game(key, &raw).or_abort()?;
                    rename_in(&mut game, old, new);
                    archive.insert(bytes, encode_game(&game).or_abort()?)?;
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
                    challenge_tree.remove(key.as_slice())?;
                    // The user's own newer challenge there stays.
                    if target == *key || challenge_tree.get(&target)?.is_none() {
                        let value = encode(|| describe_challenge(channel, &c.challenger), &c).or_abort()?;
                        challenge_tree.insert(target, value)?;
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
                    rating_tree.remove(from)?;
                    rating_tree.insert(to, encode(|| describe_rating(platform, new, variant), &keep).or_abort()?)?;
                    moved.ratings += 1;
                }
                legacy.insert(mark.as_slice(), new.as_bytes())?;
                Ok(moved)
            });
        let moved = settled(result)?;
        self.sync()?;
        Ok(moved)
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
        let ids = |tree: &sled::Tree| -> Result<Vec<GameId>> {
            let mut ids = Vec::new();
            for entry in tree.scan_prefix(&from_prefix) {
                ids.push(GameId::stored(&entry?.0[from_prefix.len()..]));
            }
            Ok(ids)
        };
        let active = ids(&self.games)?;
        let archived = ids(&self.archive)?;
        let mut challengers = Vec::new();
        for entry in self.challenges.scan_prefix(&from_prefix) {
            challengers.push(keys::text(&entry?.0[from_prefix.len()..]));
        }
        let trees = (&self.games, &self.players, &self.challenges, &self.archive, &self.archive_index, &self.channels);
        let result = trees.transaction(|(games, players, challenges, archive, archive_index, channels)| {
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
                game.key = new_key;
                game.version += 1;
                games.remove(old_bytes.as_slice())?;
                games.insert(new_bytes, encode_game(&game).or_abort()?)?;
                for player in [&game.white, &game.black] {
                    let old_pk = player_key(&from.platform, player, &from.channel).or_abort()?;
                    if players.get(&old_pk)?.is_some_and(|v| *v == *id.as_str().as_bytes()) {
                        players.remove(old_pk)?;
                    }
                    let new_pk = player_key(&from.platform, player, to).or_abort()?;
                    if players.get(&new_pk)?.is_none() {
                        players.insert(new_pk, id.as_str().as_bytes())?;
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
                        archive_index.remove(archive_index_key(&old_key, player, at).or_abort()?)?;
                        archive_index.insert(archive_index_key(&new_key, player, at).or_abort()?, &[])?;
                    }
                }
                game.key = new_key;
                archive.remove(old_bytes.as_slice())?;
                archive.insert(new_bytes, encode_game(&game).or_abort()?)?;
                moved.archived += 1;
            }
            for challenger in &challengers {
                let old_key = challenge_key(from, challenger).or_abort()?;
                let new_key = challenge_key(&target, challenger).or_abort()?;
                let Some(raw) = challenges.get(&old_key)? else { continue };
                challenges.remove(old_key)?;
                if challenges.get(&new_key)?.is_none() {
                    challenges.insert(new_key, raw)?;
                    moved.challenges += 1;
                }
            }
            let old_settings = from.encode().or_abort()?;
            if let Some(raw) = channels.get(&old_settings)? {
                let new_settings = target.encode().or_abort()?;
                channels.remove(old_settings)?;
                if channels.get(&new_settings)?.is_none() {
                    channels.insert(new_settings, raw)?;
                    moved.settings = true;
                }
            }
            Ok(moved)
        });
        let moved = settled(result)?;
        self.sync()?;
        Ok(moved)
    }
}
