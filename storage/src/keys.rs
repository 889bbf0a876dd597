//! Names of channels and games, and the sled keys made from them.
//!
//! A key joins its parts with NUL bytes (`discord\0channel\0k7qz`); parts
//! may not contain NUL, so keys are unambiguous and a prefix ending in NUL
//! (`discord\0channel\0`) selects exactly one channel.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{Result, StoreError};

const SEP: u8 = 0;

/// The letters of game ids: digits and lower-case letters without `0`, `1`,
/// `i`, `l`, `o`, which are easily confused when read aloud or from a picture.
pub const GAME_ID_ALPHABET: &str = "23456789abcdefghjkmnpqrstuvwxyz";

/// The length of a game id (31⁴ ≈ 920,000 ids per channel).
pub const GAME_ID_LEN: usize = 4;

/// A channel on a platform: the place where challenges are made and games played.
///
/// The platform is a plain name (`"discord"`, `"telegram"`, `"console"`); the
/// store gives it no meaning.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ChannelKey {
    /// The platform, e.g. `"discord"`.
    pub platform: String,
    /// The platform's id of the channel (or chat).
    pub channel: String,
}

impl ChannelKey {
    /// The channel `channel` on `platform`.
    pub fn new(platform: impl Into<String>, channel: impl Into<String>) -> Self {
        ChannelKey { platform: platform.into(), channel: channel.into() }
    }

    /// The game `id` in this channel.
    pub fn game(&self, id: GameId) -> GameKey {
        GameKey { channel: self.clone(), id }
    }

    pub(crate) fn encode(&self) -> Result<Vec<u8>> {
        join(&[("platform", &self.platform), ("channel", &self.channel)])
    }

    /// The prefix of every key under this channel.
    pub(crate) fn prefix(&self) -> Result<Vec<u8>> {
        let mut key = self.encode()?;
        key.push(SEP);
        Ok(key)
    }
}

impl fmt::Display for ChannelKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.platform, self.channel)
    }
}

/// The short id of a game, unique in its channel: what players type to name it (`k7qz`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct GameId(String);

impl GameId {
    /// Reads a game id as a player typed it: surrounding spaces and letter case are ignored.
    pub fn parse(text: &str) -> Result<GameId> {
        let id = text.trim().to_ascii_lowercase();
        if id.len() == GAME_ID_LEN && id.chars().all(|c| GAME_ID_ALPHABET.contains(c)) {
            Ok(GameId(id))
        } else {
            Err(StoreError::InvalidGameId(text.trim().to_owned()))
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub(crate) fn random() -> GameId {
        let letters = GAME_ID_ALPHABET.as_bytes();
        GameId((0..GAME_ID_LEN).map(|_| letters[fastrand::usize(..letters.len())] as char).collect())
    }

    /// An id read back from a key: taken as stored, so that even a damaged id can be named.
    pub(crate) fn stored(bytes: &[u8]) -> GameId {
        GameId(String::from_utf8_lossy(bytes).into_owned())
    }
}

impl FromStr for GameId {
    type Err = StoreError;

    fn from_str(text: &str) -> Result<GameId> {
        GameId::parse(text)
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A game: its channel and its id there.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GameKey {
    /// The channel the game is played in.
    pub channel: ChannelKey,
    /// The game's short id.
    pub id: GameId,
}

impl GameKey {
    /// The game `id` in `channel`.
    pub fn new(channel: ChannelKey, id: GameId) -> Self {
        GameKey { channel, id }
    }

    pub(crate) fn encode(&self) -> Result<Vec<u8>> {
        let mut key = self.channel.prefix()?;
        push_part(&mut key, "game id", self.id.as_str())?;
        Ok(key)
    }

    /// A description for error messages.
    pub(crate) fn describe(&self) -> String {
        format!("game `{}` in {}", self.id, self.channel)
    }
}

impl fmt::Display for GameKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.channel, self.id)
    }
}

fn push_part(key: &mut Vec<u8>, what: &'static str, part: &str) -> Result<()> {
    if part.as_bytes().contains(&SEP) {
        return Err(StoreError::InvalidName { what, name: part.replace('\0', "\\0") });
    }
    key.extend_from_slice(part.as_bytes());
    Ok(())
}

/// Joins named parts into a key, refusing parts that contain NUL.
pub(crate) fn join(parts: &[(&'static str, &str)]) -> Result<Vec<u8>> {
    let mut key = Vec::with_capacity(parts.iter().map(|(_, p)| p.len() + 1).sum());
    for (i, (what, part)) in parts.iter().enumerate() {
        if i > 0 {
            key.push(SEP);
        }
        push_part(&mut key, what, part)?;
    }
    Ok(key)
}

/// [`join`] with a trailing NUL: the prefix of every key that extends these parts.
pub(crate) fn prefix(parts: &[(&'static str, &str)]) -> Result<Vec<u8>> {
    let mut key = join(parts)?;
    key.push(SEP);
    Ok(key)
}

/// Splits the rest of a key (after a known prefix) at NUL bytes.
pub(crate) fn split(rest: &[u8]) -> Vec<&[u8]> {
    rest.split(|&b| b == SEP).collect()
}

/// Reads a key part as text, replacing damaged bytes rather than failing.
pub(crate) fn text(part: &[u8]) -> String {
    String::from_utf8_lossy(part).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ids_read_forgivingly() {
        assert_eq!(GameId::parse(" K7QZ ").unwrap().as_str(), "k7qz");
        for bad in ["k7q", "k7qzz", "k7q0", "kilo", ""] {
            assert!(GameId::parse(bad).is_err(), "{bad}");
        }
        for _ in 0..100 {
            let id = GameId::random();
            assert_eq!(GameId::parse(id.as_str()).unwrap(), id);
        }
    }

    #[test]
    fn keys_are_unambiguous() {
        let a = ChannelKey::new("discord", "ab").prefix().unwrap();
        let b = ChannelKey::new("discord", "a").prefix().unwrap();
        assert!(!a.starts_with(&b));
        assert!(ChannelKey::new("discord", "a\0b").encode().is_err());
    }
}
