//! Copying an embedded store (sled) into a shared one (PostgreSQL): what
//! `kibitz migrate --from DIR --to URL` does ([`migrate`]).
//!
//! The sled store is opened as the bot opens it, so it is refused while a
//! bot has it ([`StoreError::InUse`]) and stays closed to a bot until the
//! copy is done. The PostgreSQL database is connected to, and its schema
//! brought up to date, as [`Store::connect`](crate::Store::connect) does.
//! The target must hold no records yet: a copy never mixes two stores
//! ([`StoreError::TargetNotEmpty`], nothing written). Every record is then
//! written in one transaction, with the tables locked against writers, so
//! a copy that fails half way leaves the target as empty as it was.
//!
//! Records keep their stored envelopes (`{"v":2,"record":{...}}`) as they
//! are: an older version is upgraded when the shared store reads it, as the
//! embedded one would. The columns beside them come from the records and
//! from sled's indexes: a game's version and clock deadline (as the store computes it) and
//! its players (the `games_by_player` index); an archived game's end time
//! (from the `archive_by_player` index, else its result) and its players.
//! Replies owed keep their order, progress and time, and belong to no
//! process, so the first process that looks claims them. The change counter
//! and the clock index are sled's own bookkeeping and are not copied.
//!
//! A record that cannot be read (damaged, or written by a newer Kibitz) or
//! an index entry that names nothing is left out and reported in
//! [`CopyReport::skipped`]; the copy goes on without it.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

use postgres::types::ToSql;
use sled::Tree;

use crate::codec::{self, Record};
use crate::embedded::{SledStore, closed, decode_entry, describe_challenge, describe_rating, describe_user, due_of};
use crate::keys;
use crate::pg::{Db, PgStore, Tx, ms};
use crate::store::UserRecord;
use crate::{Challenge, ChannelKey, ChannelSettings, GameId, GameKey, GameRecord, Rating, Result, StoreError};

/// The tables that hold records: a target with a row in any of them is not empty.
const TABLES: [&str; 15] = [
    "games",
    "game_players",
    "archive",
    "archive_players",
    "challenges",
    "ratings",
    "channel_settings",
    "handled",
    "outbox",
    "cursors",
    "users",
    "usernames",
    "legacy_usernames",
    "review_jobs",
    "reviews",
];

/// What [`migrate`] copied, by kind of record, and what it left out.
#[derive(Debug, Default)]
pub struct CopyReport {
    /// Active games.
    pub games: usize,
    /// Entries of the active games' player index (two per game, one for a game against oneself).
    pub game_players: usize,
    /// Finished games in the archive.
    pub archived: usize,
    /// Entries of the archive's player index.
    pub archive_players: usize,
    /// Pending challenges.
    pub challenges: usize,
    /// Ratings (one per player and variant).
    pub ratings: usize,
    /// Channels with settings of their own.
    pub channel_settings: usize,
    /// Chat messages marked handled.
    pub handled: usize,
    /// Replies still owed.
    pub owed: usize,
    /// Reading positions.
    pub cursors: usize,
    /// Users in the directory.
    pub users: usize,
    /// Usernames in the directory.
    pub usernames: usize,
    /// Usernames whose old records were moved to an id.
    pub legacy_usernames: usize,
    /// Reviews owed (none is taken by any process after the copy).
    pub review_jobs: usize,
    /// Finished reviews kept.
    pub reviews: usize,
    /// What could not be read and was left out, each with why.
    pub skipped: Vec<StoreError>,
}

impl CopyReport {
    /// Every count, with its name as [`CopyReport`]'s `Display` shows it.
    pub fn counts(&self) -> [(&'static str, usize); 15] {
        [
            ("active games", self.games),
            ("active game players", self.game_players),
            ("archived games", self.archived),
            ("archived game players", self.archive_players),
            ("challenges", self.challenges),
            ("ratings", self.ratings),
            ("channel settings", self.channel_settings),
            ("handled messages", self.handled),
            ("owed replies", self.owed),
            ("cursors", self.cursors),
            ("users", self.users),
            ("usernames", self.usernames),
            ("legacy usernames", self.legacy_usernames),
            ("reviews owed", self.review_jobs),
            ("reviews", self.reviews),
        ]
    }
}

impl fmt::Display for CopyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, count) in self.counts() {
            writeln!(f, "{name}: {count}")?;
        }
        write!(f, "damaged, left out: {}", self.skipped.len())?;
        for problem in self.skipped.iter().take(50) {
            write!(f, "\n  {problem}")?;
        }
        if self.skipped.len() > 50 {
            write!(f, "\n  ... and {} more", self.skipped.len() - 50)?;
        }
        Ok(())
    }
}

/// Copies every record of the embedded store in the directory `from` into
/// the empty PostgreSQL database at `to` (`postgres://user@host:port/db`),
/// in one transaction. Records keep their stored envelopes; a record that
/// cannot be read is left out and listed in [`CopyReport::skipped`]; replies
/// owed belong to no process, so any process of the bot may send them.
///
/// Refused, with nothing written: a directory without a store
/// ([`StoreError::NoStore`]), a store a bot has open ([`StoreError::InUse`])
/// or that lost changes ([`StoreError::LostChanges`]), and a target that
/// holds records already ([`StoreError::TargetNotEmpty`]).
pub fn migrate(from: &Path, to: &str) -> Result<CopyReport> {
    copy(from, to, None)
}

/// [`migrate`] into the schema `schema` of the database at `url` (made if
/// missing), as [`Store::connect_in_schema`](crate::Store::connect_in_schema) uses it.
pub fn migrate_into_schema(from: &Path, url: &str, schema: &str) -> Result<CopyReport> {
    copy(from, url, Some(schema))
}

fn copy(from: &Path, url: &str, schema: Option<&str>) -> Result<CopyReport> {
    // Opening would make a new, empty store: a missing one is a mistake here.
    if !from.join("db").is_file() {
        return Err(StoreError::NoStore { path: from.to_owned() });
    }
    // Kept open to the end: no bot can start on the store meanwhile.
    let source = SledStore::open(from)?;
    let rows = read(&source)?;
    reachable(url)?;
    let target = PgStore::connect(url, schema)?;
    let copied = target.tx(|t| write(t, &rows));
    // This process is no worker of the bot: its heartbeat row goes.
    if let Ok(mut conn) = target.conn() {
        let owner: &str = &target.owner;
        let _ = conn.execute("DELETE FROM workers WHERE owner = $1", &[&owner]);
    }
    let mut report = copied?;
    report.skipped = rows.skipped;
    Ok(report)
}

/// Connects once, to say plainly why a target cannot be reached (the
/// connection pool waits, then reports only that it could not connect).
fn reachable(url: &str) -> Result<()> {
    let config: postgres::Config =
        url.parse().map_err(|e: postgres::Error| StoreError::Unreachable(format!("not a PostgreSQL URL: {e}")))?;
    let client = config.connect(postgres::NoTls).map_err(|e| {
        let mut why = match e.as_db_error() {
            Some(db) => db.message().to_owned(),
            None => e.to_string(),
        };
        let mut cause = std::error::Error::source(&e);
        while let Some(c) = cause {
            if e.as_db_error().is_none() {
                why = format!("{why}: {c}");
            }
            cause = c.source();
        }
        StoreError::Unreachable(why)
    })?;
    drop(client);
    Ok(())
}

/// The rows to write, table by table, as read from sled.
#[derive(Default)]
struct Rows {
    /// platform, channel, id, version, record, due_at
    games: Vec<(String, String, String, i64, String, Option<i64>)>,
    /// platform, player, channel, id
    game_players: Vec<[String; 4]>,
    /// platform, channel, id, record, finished_at
    archive: Vec<(String, String, String, String, i64)>,
    /// platform, player, finished_at, channel, id
    archive_players: Vec<(String, String, i64, String, String)>,
    /// platform, channel, challenger, record
    challenges: Vec<[String; 4]>,
    /// platform, player, variant, record, rating, games
    ratings: Vec<(String, String, String, String, f64, i64)>,
    /// platform, channel, record
    channel_settings: Vec<[String; 3]>,
    /// platform, message id, at
    handled: Vec<(String, String, i64)>,
    /// platform, channel, payload, progress, at
    outbox: Vec<(String, String, Vec<u8>, i32, i64)>,
    /// platform, name, value
    cursors: Vec<[String; 3]>,
    /// platform, id, record
    users: Vec<[String; 3]>,
    /// platform, username, id
    usernames: Vec<[String; 3]>,
    /// platform, username, id
    legacy_usernames: Vec<[String; 3]>,
    /// platform, channel, id, round, record, queued_at
    review_jobs: Vec<(String, String, String, i32, String, i64)>,
    /// platform, channel, id, round, review
    reviews: Vec<(String, String, String, i32, String)>,
    skipped: Vec<StoreError>,
}

impl Rows {
    fn malformed(&mut self, tree: &str, key: &[u8]) {
        self.skipped.push(StoreError::Corrupt {
            record: format!("the entry `{}` of {tree}", keys::text(key).replace('\0', "/")),
            reason: "its key is malformed".to_owned(),
        });
    }
}

/// A key of exactly `N` NUL-separated parts, as text.
fn parts<const N: usize>(key: &[u8]) -> Option<[String; N]> {
    let parts = keys::split(key);
    if parts.len() != N {
        return None;
    }
    Some(std::array::from_fn(|i| keys::text(parts[i])))
}

/// A record decoded (to check it and read its columns) beside its stored
/// envelope, as the text that goes into the `jsonb` column.
fn envelope<T: Record>(what: impl Fn() -> String, raw: &[u8]) -> Result<(T, String)> {
    let record = codec::decode(&what, raw)?;
    let text =
        std::str::from_utf8(raw).map_err(|e| StoreError::Corrupt { record: what(), reason: e.to_string() })?.to_owned();
    // A NUL in a text is kept as the shared store keeps it (`jsonb` holds no NUL).
    Ok((record, crate::pg::nul::escape(text)))
}

/// 8 big-endian bytes as a number.
fn be(bytes: &[u8]) -> Option<u64> {
    <[u8; 8]>::try_from(bytes).ok().map(u64::from_be_bytes)
}

/// An `archive_by_player` key: `platform\0player\0` end time (8 bytes) `channel\0id`.
fn archive_index_entry(key: &[u8]) -> Option<(String, String, u64, String, String)> {
    let first = key.iter().position(|&b| b == 0)?;
    let rest = &key[first + 1..];
    let second = rest.iter().position(|&b| b == 0)?;
    let (player, rest) = (&rest[..second], &rest[second + 1..]);
    let at = be(rest.get(..8)?)?;
    let [channel, id] = parts::<2>(&rest[8..])?;
    Some((keys::text(&key[..first]), keys::text(player), at, channel, id))
}

type Place = (String, String, String);

fn read(source: &SledStore) -> Result<Rows> {
    let open = source.shared.trees.read().map_err(|_| closed())?;
    let t = open.as_ref().ok_or_else(closed)?;
    let mut rows = Rows::default();

    // Active games, then their player index.
    let mut games: HashSet<Place> = HashSet::new();
    for entry in t.games.iter() {
        let (key, raw) = entry?;
        let Some([platform, channel, id]) = parts::<3>(&key) else {
            rows.malformed("the active games", &key);
            continue;
        };
        let game_key = game_key(&platform, &channel, &id);
        match envelope::<GameRecord>(|| game_key.describe(), &raw) {
            Ok((game, text)) => {
                let version = game.version.min(i64::MAX as u64) as i64;
                let due = due_of(&game).map(ms);
                rows.games.push((platform.clone(), channel.clone(), id.clone(), version, text, due));
                games.insert((platform, channel, id));
            }
            Err(e) => rows.skipped.push(e),
        }
    }
    for entry in t.players.iter() {
        let (key, value) = entry?;
        let Some([platform, player, channel]) = parts::<3>(&key) else {
            rows.malformed("the active games' player index", &key);
            continue;
        };
        let id = keys::text(&value);
        let place = (platform, channel, id);
        if games.contains(&place) {
            let (platform, channel, id) = place;
            rows.game_players.push([platform, player, channel, id]);
        } else if !in_tree(&t.games, &place)? {
            // (One naming a damaged game goes with it, reported already.)
            rows.skipped.push(dangling(&place, &player, "the active games"));
        }
    }

    // The archive: the index first, for the end times.
    let mut index = Vec::new();
    let mut ended: HashMap<Place, u64> = HashMap::new();
    for entry in t.archive_index.iter() {
        let (key, _) = entry?;
        match archive_index_entry(&key) {
            Some((platform, player, at, channel, id)) => {
                ended.entry((platform.clone(), channel.clone(), id.clone())).or_insert(at);
                index.push((platform, player, at, channel, id));
            }
            None => rows.malformed("the archive's player index", &key),
        }
    }
    let mut archived: HashSet<Place> = HashSet::new();
    for entry in t.archive.iter() {
        let (key, raw) = entry?;
        let Some([platform, channel, id]) = parts::<3>(&key) else {
            rows.malformed("the archive", &key);
            continue;
        };
        let game_key = game_key(&platform, &channel, &id);
        match envelope::<GameRecord>(|| game_key.describe(), &raw) {
            Ok((game, text)) => {
                let place = (platform, channel, id);
                let at = ended
                    .get(&place)
                    .copied()
                    .or(game.result.as_ref().map(|r| r.at.0))
                    .unwrap_or(game.updated_at.0)
                    .min(i64::MAX as u64) as i64;
                rows.archive.push((place.0.clone(), place.1.clone(), place.2.clone(), text, at));
                archived.insert(place);
            }
            Err(e) => rows.skipped.push(e),
        }
    }
    for (platform, player, at, channel, id) in index {
        let place = (platform, channel, id);
        if archived.contains(&place) {
            let (platform, channel, id) = place;
            rows.archive_players.push((platform, player, at.min(i64::MAX as u64) as i64, channel, id));
        } else if !in_tree(&t.archive, &place)? {
            rows.skipped.push(dangling(&place, &player, "the archive"));
        }
    }

    for entry in t.challenges.iter() {
        let (key, raw) = entry?;
        let Some([platform, channel, challenger]) = parts::<3>(&key) else {
            rows.malformed("the challenges", &key);
            continue;
        };
        let place = ChannelKey::new(platform, channel);
        match envelope::<Challenge>(|| describe_challenge(&place, &challenger), &raw) {
            Ok((_, text)) => rows.challenges.push([place.platform, place.channel, challenger, text]),
            Err(e) => rows.skipped.push(e),
        }
    }

    for entry in t.ratings.iter() {
        let (key, raw) = entry?;
        let Some([platform, player, variant]) = parts::<3>(&key) else {
            rows.malformed("the ratings", &key);
            continue;
        };
        match envelope::<Rating>(|| describe_rating(&platform, &player, &variant), &raw) {
            Ok((rating, text)) => {
                rows.ratings.push((platform, player, variant, text, rating.rating, i64::from(rating.games)));
            }
            Err(e) => rows.skipped.push(e),
        }
    }

    for entry in t.channels.iter() {
        let (key, raw) = entry?;
        let Some([platform, channel]) = parts::<2>(&key) else {
            rows.malformed("the channel settings", &key);
            continue;
        };
        match envelope::<ChannelSettings>(|| format!("the settings of {platform}/{channel}"), &raw) {
            Ok((_, text)) => rows.channel_settings.push([platform, channel, text]),
            Err(e) => rows.skipped.push(e),
        }
    }

    for entry in t.tree(b"handled")?.iter() {
        let (key, value) = entry?;
        let Some([platform, message]) = parts::<2>(&key) else {
            rows.malformed("the handled messages", &key);
            continue;
        };
        match be(&value) {
            Some(at) => rows.handled.push((platform, message, at.min(i64::MAX as u64) as i64)),
            None => rows.skipped.push(StoreError::Corrupt {
                record: format!("the mark of message {message} on {platform} as handled"),
                reason: "its time is not 8 bytes".to_owned(),
            }),
        }
    }

    for entry in t.tree(b"outbox")?.iter() {
        let (key, raw) = entry?;
        let platform_end = key.iter().position(|&b| b == 0);
        let Some((platform, seq)) = platform_end.and_then(|end| Some((keys::text(&key[..end]), be(&key[end + 1..])?)))
        else {
            rows.malformed("the outbox", &key);
            continue;
        };
        match decode_entry(seq, &raw) {
            Ok(owed) => rows.outbox.push((
                platform,
                owed.channel,
                owed.payload,
                owed.progress.min(i32::MAX as u32) as i32,
                ms(owed.at),
            )),
            Err(e) => rows.skipped.push(e),
        }
    }

    for entry in t.tree(b"cursors")?.iter() {
        let (key, value) = entry?;
        match parts::<2>(&key) {
            Some([platform, name]) => rows.cursors.push([platform, name, keys::text(&value)]),
            None => rows.malformed("the cursors", &key),
        }
    }

    for entry in t.tree(b"users")?.iter() {
        let (key, raw) = entry?;
        let Some([platform, id]) = parts::<2>(&key) else {
            rows.malformed("the users", &key);
            continue;
        };
        match envelope::<UserRecord>(|| describe_user(&platform, &id), &raw) {
            Ok((_, text)) => rows.users.push([platform, id, text]),
            Err(e) => rows.skipped.push(e),
        }
    }

    for (tree, list, what) in [
        (&b"usernames"[..], &mut rows.usernames, "the usernames"),
        (&b"legacy_usernames"[..], &mut rows.legacy_usernames, "the legacy usernames"),
    ] {
        for entry in t.tree(tree)?.iter() {
            let (key, value) = entry?;
            match parts::<2>(&key) {
                Some([platform, username]) => list.push([platform, username, keys::text(&value)]),
                None => rows.skipped.push(StoreError::Corrupt {
                    record: format!("the entry `{}` of {what}", keys::text(&key).replace('\0', "/")),
                    reason: "its key is malformed".to_owned(),
                }),
            }
        }
    }
    crate::embedded::read_reviews(t, &mut rows.review_jobs, &mut rows.reviews, &mut rows.skipped)?;
    Ok(rows)
}

fn game_key(platform: &str, channel: &str, id: &str) -> GameKey {
    ChannelKey::new(platform, channel).game(GameId::stored(id.as_bytes()))
}

/// Whether `tree` (keyed `platform\0channel\0id`) has the game at `place`.
fn in_tree(tree: &Tree, place: &Place) -> Result<bool> {
    let key = keys::join(&[("platform", &place.0), ("channel", &place.1), ("game id", &place.2)]);
    Ok(match key {
        Ok(key) => tree.contains_key(key)?,
        Err(_) => false,
    })
}

/// An index entry of `player` naming a game that `tree` does not hold.
fn dangling(place: &Place, player: &str, tree: &str) -> StoreError {
    StoreError::Corrupt {
        record: format!("the index entry of {player} for {}", game_key(&place.0, &place.1, &place.2).describe()),
        reason: format!("the game is not in {tree}"),
    }
}

/// Writes every row, in the caller's transaction; refused if the target holds records.
fn write(t: &mut Tx<'_>, rows: &Rows) -> Result<CopyReport> {
    // Writers wait until the copy is in (and a second copy sees it).
    t.batch_execute(&format!("LOCK TABLE {} IN SHARE ROW EXCLUSIVE MODE", TABLES.join(", ")))?;
    let mut holds = Vec::new();
    for table in TABLES {
        if t.query_one(&format!("SELECT EXISTS (SELECT 1 FROM {table})"), &[])?.get::<_, bool>(0) {
            holds.push(table);
        }
    }
    if !holds.is_empty() {
        return Err(StoreError::TargetNotEmpty { holds: holds.join(", ") });
    }
    let mut insert = |sql: &str, all: &mut dyn Iterator<Item = Vec<&(dyn ToSql + Sync)>>| -> Result<usize> {
        let mut made = 0;
        for params in all {
            made += t.execute(sql, &params)? as usize;
        }
        Ok(made)
    };
    Ok(CopyReport {
        games: insert(
            "INSERT INTO games (platform, channel, id, version, record, due_at)
         VALUES ($1, $2, $3, $4, $5::text::jsonb, $6) ON CONFLICT DO NOTHING",
            &mut rows.games.iter().map(|(p, c, i, v, r, d)| vec![p as _, c as _, i as _, v as _, r as _, d as _]),
        )?,
        game_players: insert(
            "INSERT INTO game_players (platform, player, channel, id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            &mut rows.game_players.iter().map(|r| r.iter().map(|v| v as _).collect()),
        )?,
        archived: insert(
            "INSERT INTO archive (platform, channel, id, record, finished_at)
         VALUES ($1, $2, $3, $4::text::jsonb, $5) ON CONFLICT DO NOTHING",
            &mut rows.archive.iter().map(|(p, c, i, r, at)| vec![p as _, c as _, i as _, r as _, at as _]),
        )?,
        archive_players: insert(
            "INSERT INTO archive_players (platform, player, finished_at, channel, id)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
            &mut rows.archive_players.iter().map(|(p, pl, at, c, i)| vec![p as _, pl as _, at as _, c as _, i as _]),
        )?,
        challenges: insert(
            "INSERT INTO challenges (platform, channel, challenger, record)
         VALUES ($1, $2, $3, $4::text::jsonb) ON CONFLICT DO NOTHING",
            &mut rows.challenges.iter().map(|r| r.iter().map(|v| v as _).collect()),
        )?,
        ratings: insert(
            "INSERT INTO ratings (platform, player, variant, record, rating, games)
         VALUES ($1, $2, $3, $4::text::jsonb, $5, $6) ON CONFLICT DO NOTHING",
            &mut rows.ratings.iter().map(|(p, pl, v, r, x, g)| vec![p as _, pl as _, v as _, r as _, x as _, g as _]),
        )?,
        channel_settings: insert(
            "INSERT INTO channel_settings (platform, channel, record) VALUES ($1, $2, $3::text::jsonb)
         ON CONFLICT DO NOTHING",
            &mut rows.channel_settings.iter().map(|r| r.iter().map(|v| v as _).collect()),
        )?,
        handled: insert(
            "INSERT INTO handled (platform, message_id, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &mut rows.handled.iter().map(|(p, m, at)| vec![p as _, m as _, at as _]),
        )?,
        // In sled's order, so the new sequence numbers keep each platform's order; no owner: anyone may send them.
        owed: insert(
            "INSERT INTO outbox (platform, channel, payload, progress, at, owner) VALUES ($1, $2, $3, $4, $5, NULL)",
            &mut rows.outbox.iter().map(|(p, c, pay, pr, at)| vec![p as _, c as _, pay as _, pr as _, at as _]),
        )?,
        cursors: insert(
            "INSERT INTO cursors (platform, name, value) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &mut rows.cursors.iter().map(|r| r.iter().map(|v| v as _).collect()),
        )?,
        users: insert(
            "INSERT INTO users (platform, id, record) VALUES ($1, $2, $3::text::jsonb) ON CONFLICT DO NOTHING",
            &mut rows.users.iter().map(|r| r.iter().map(|v| v as _).collect()),
        )?,
        usernames: insert(
            "INSERT INTO usernames (platform, username, id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &mut rows.usernames.iter().map(|r| r.iter().map(|v| v as _).collect()),
        )?,
        legacy_usernames: insert(
            "INSERT INTO legacy_usernames (platform, username, id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &mut rows.legacy_usernames.iter().map(|r| r.iter().map(|v| v as _).collect()),
        )?,
        review_jobs: insert(
            "INSERT INTO review_jobs (platform, channel, id, round, record, queued_at)
         VALUES ($1, $2, $3, $4, $5::text::jsonb, $6) ON CONFLICT DO NOTHING",
            &mut rows
                .review_jobs
                .iter()
                .map(|(p, c, i, r, rec, at)| vec![p as _, c as _, i as _, r as _, rec as _, at as _]),
        )?,
        reviews: insert(
            "INSERT INTO reviews (platform, channel, id, round, review) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
            &mut rows.reviews.iter().map(|(p, c, i, r, text)| vec![p as _, c as _, i as _, r as _, text as _]),
        )?,
        skipped: Vec::new(),
    })
}

/// The password a PostgreSQL URL holds, in the user part or as a
/// `password` parameter, as written and percent-decoded.
fn passwords(url: &str) -> Vec<String> {
    let mut found = Vec::new();
    if let Some(scheme) = url.find("://") {
        let rest = &url[scheme + 3..];
        if let Some(at) = rest.rfind('@')
            && let Some((_, password)) = rest[..at].split_once(':')
        {
            found.push(password.to_owned());
        }
    }
    if let Some((_, query)) = url.split_once('?') {
        for pair in query.split('&') {
            if let Some((name, value)) = pair.split_once('=')
                && name == "password"
            {
                found.push(value.to_owned());
            }
        }
    }
    let decoded: Vec<String> = found.iter().map(|p| percent_decoded(p)).collect();
    found.extend(decoded);
    found.retain(|p| !p.is_empty());
    found.sort_by_key(|p| std::cmp::Reverse(p.len()));
    found.dedup();
    found
}

fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` with the password of the PostgreSQL URL `url` hidden wherever it appears.
pub fn hide_password(text: &str, url: &str) -> String {
    passwords(url).iter().fold(text.to_owned(), |text, password| text.replace(password.as_str(), "***"))
}

/// The PostgreSQL URL `url`, fit to show: without its password.
pub fn url_without_password(url: &str) -> String {
    let mut shown = url.to_owned();
    if let Some(scheme) = url.find("://") {
        let rest = &url[scheme + 3..];
        if let Some(at) = rest.rfind('@')
            && let Some((user, _)) = rest[..at].split_once(':')
        {
            shown = format!("{}{user}{}", &url[..scheme + 3], &rest[at..]);
        }
    }
    hide_password(&shown, url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hidden_in_both_places() {
        let url = "postgres://kibitz:s3cr%40t@db.example:5432/kibitz?password=other&sslmode=disable";
        let shown = url_without_password(url);
        assert_eq!(shown, "postgres://kibitz@db.example:5432/kibitz?password=***&sslmode=disable");
        let said = hide_password("failed for s3cr@t, s3cr%40t and other", url);
        assert_eq!(said, "failed for ***, *** and ***");
        assert_eq!(url_without_password("postgres://kibitz@db/k"), "postgres://kibitz@db/k");
    }

    #[test]
    fn archive_index_keys_are_read_whole() {
        let mut key = b"discord\0ann\0".to_vec();
        key.extend_from_slice(&0x0000_0100_0000_00ffu64.to_be_bytes());
        key.extend_from_slice(b"c1\0k7qz");
        let entry = archive_index_entry(&key).unwrap();
        assert_eq!(entry, ("discord".into(), "ann".into(), 0x0000_0100_0000_00ff, "c1".into(), "k7qz".into()));
        assert_eq!(archive_index_entry(b"discord\0ann\0short"), None);
    }
}
