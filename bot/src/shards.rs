//! Discord's shards: which of them this process runs.
//!
//! Discord splits a bot's gateway into shards once it is in many guilds
//! (from 2,500 on): a guild's events go to shard `(guild_id >> 22) %
//! total`, and direct messages to shard 0 only. Several processes can serve
//! one bot, each running a range of the shards (`[discord] shards = "0-3"`,
//! `total_shards = 8`); the process that holds shard 0 serves the direct
//! messages too. See `config.example.toml` and [`crate::discord`].

use std::fmt;

/// The shards this process runs: `first..=last` of `total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shards {
    /// The first shard run here.
    pub first: u32,
    /// The last shard run here (inclusive).
    pub last: u32,
    /// How many shards the whole bot has.
    pub total: u32,
}

impl Default for Shards {
    /// One shard, which is the whole bot: Discord's default.
    fn default() -> Shards {
        Shards { first: 0, last: 0, total: 1 }
    }
}

impl fmt::Display for Shards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "shard {} of {}", self.first, self.total)
        } else {
            write!(f, "shards {}-{} of {}", self.first, self.last, self.total)
        }
    }
}

/// The shard that receives the events of `guild` when the bot has `total`
/// shards (Discord's rule). `total` 0 is read as 1.
pub fn shard_of(guild: u64, total: u32) -> u32 {
    // The remainder is below `total`, which is a u32.
    ((guild >> 22) % u64::from(total.max(1))) as u32
}

impl Shards {
    /// The shards from the `[discord]` settings `shards` (a shard `"2"` or an
    /// inclusive range `"0-3"`) and `total_shards`. Neither: one shard.
    /// `total_shards` alone: every shard, in this process. The error says
    /// what is wrong in the words of the configuration file.
    pub fn from_settings(shards: Option<&str>, total: Option<i64>) -> Result<Shards, String> {
        let total = match total {
            None if shards.is_some() => {
                return Err("[discord] shards needs total_shards too: the number of shards of the whole bot, \
                            for example total_shards = 8"
                    .into());
            }
            None => return Ok(Shards::default()),
            Some(n) if n < 1 => {
                return Err(format!("[discord] total_shards must be 1 or more, not {n}"));
            }
            Some(n) => u32::try_from(n)
                .ok()
                .filter(|&n| n <= MAX_TOTAL)
                .ok_or_else(|| format!("[discord] total_shards must be at most {MAX_TOTAL}, not {n}"))?,
        };
        let Some(text) = shards else {
            return Ok(Shards { first: 0, last: total - 1, total });
        };
        let shown = text.chars().take(40).collect::<String>();
        let form = || {
            format!(
                "[discord] shards = \"{shown}\" is not a shard or a range of shards: write one shard (\"2\") or \
                 the first and the last shard of this process (\"0-3\")"
            )
        };
        let number = |s: &str| {
            let s = s.trim();
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(form());
            }
            s.parse::<u32>().map_err(|_| form())
        };
        let (first, last) = match text.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(text)?;
                (n, n)
            }
        };
        if first > last {
            return Err(format!(
                "[discord] shards = \"{shown}\": the first shard comes first, as in \"{last}-{first}\""
            ));
        }
        if last >= total {
            return Err(format!(
                "[discord] shards = \"{shown}\" is beyond total_shards = {total}: the shards are numbered 0 to {}",
                total - 1
            ));
        }
        Ok(Shards { first, last, total })
    }

    /// Whether this process runs `shard`.
    pub fn runs(&self, shard: u32) -> bool {
        (self.first..=self.last).contains(&shard)
    }

    /// Whether this process runs every shard of the bot.
    pub fn runs_all(&self) -> bool {
        self.first == 0 && self.last + 1 >= self.total
    }

    /// Whether this process serves the direct messages (it holds shard 0).
    pub fn serves_dms(&self) -> bool {
        self.first == 0
    }

    /// The shard of a channel in `guild`, or of a direct message (`None`).
    pub fn shard_of(&self, guild: Option<u64>) -> u32 {
        guild.map_or(0, |g| shard_of(g, self.total))
    }

    /// Whether this process serves a channel of `guild` (`None`: a direct
    /// message).
    pub fn serves(&self, guild: Option<u64>) -> bool {
        self.runs(self.shard_of(guild))
    }

    /// How many shards this process runs.
    pub fn count(&self) -> u32 {
        self.last - self.first + 1
    }
}

/// More shards than any bot needs: a value beyond it is a mistake.
const MAX_TOTAL: u32 = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    fn read(shards: Option<&str>, total: Option<i64>) -> Result<Shards, String> {
        Shards::from_settings(shards, total)
    }

    #[test]
    fn ranges_single_shards_and_defaults() {
        assert_eq!(read(None, None), Ok(Shards { first: 0, last: 0, total: 1 }));
        assert_eq!(read(Some("0-3"), Some(8)), Ok(Shards { first: 0, last: 3, total: 8 }));
        assert_eq!(read(Some(" 4 - 7 "), Some(8)), Ok(Shards { first: 4, last: 7, total: 8 }));
        assert_eq!(read(Some("2"), Some(8)), Ok(Shards { first: 2, last: 2, total: 8 }));
        assert_eq!(read(None, Some(4)), Ok(Shards { first: 0, last: 3, total: 4 }));
        assert_eq!(read(Some("0"), Some(1)), Ok(Shards::default()));
        assert_eq!(read(Some("0-3"), Some(8)).unwrap().to_string(), "shards 0-3 of 8");
        assert_eq!(read(Some("5"), Some(8)).unwrap().to_string(), "shard 5 of 8");
    }

    #[test]
    fn mistakes_are_explained() {
        let e = read(Some("0-3"), None).unwrap_err();
        assert!(e.contains("needs total_shards"), "{e}");
        let e = read(None, Some(0)).unwrap_err();
        assert_eq!(e, "[discord] total_shards must be 1 or more, not 0");
        let e = read(Some("0-1"), Some(-3)).unwrap_err();
        assert!(e.contains("1 or more, not -3"), "{e}");
        let e = read(None, Some(1 << 40)).unwrap_err();
        assert!(e.contains("at most 65536"), "{e}");
        let e = read(Some("3-1"), Some(8)).unwrap_err();
        assert!(e.contains("the first shard comes first, as in \"1-3\""), "{e}");
        let e = read(Some("0-8"), Some(8)).unwrap_err();
        assert!(e.contains("beyond total_shards = 8: the shards are numbered 0 to 7"), "{e}");
        let e = read(Some("8"), Some(8)).unwrap_err();
        assert!(e.contains("beyond total_shards"), "{e}");
        for bad in ["", "-", "a-b", "1-", "-2", "1-2-3", "+1", "1,2", "0..3", "99999999999"] {
            let e = read(Some(bad), Some(8)).unwrap_err();
            assert!(e.contains("is not a shard or a range of shards"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn guilds_land_on_shards_as_discord_says() {
        // One shard takes every guild; with more, the id's time part decides.
        let guild = 41_771_983_423_143_937u64;
        assert_eq!(shard_of(guild, 1), 0);
        assert_eq!(shard_of(guild, 8), ((guild >> 22) % 8) as u32);
        assert_eq!(shard_of(5 << 22, 4), 1);
        assert_eq!(shard_of((5 << 22) | 0x3f_ffff, 4), 1, "the low 22 bits do not count");
        let shards = read(Some("0-1"), Some(4)).unwrap();
        assert!(shards.serves(Some(4 << 22)) && shards.serves(Some(5 << 22)));
        assert!(!shards.serves(Some(6 << 22)) && !shards.serves(Some(7 << 22)));
        assert!(shards.serves(None) && shards.serves_dms(), "direct messages come to shard 0");
        let upper = read(Some("2-3"), Some(4)).unwrap();
        assert!(!upper.serves(None) && !upper.serves_dms());
        assert!(upper.serves(Some(6 << 22)) && !upper.serves(Some(4 << 22)));
        assert!(!upper.runs_all() && read(None, Some(4)).unwrap().runs_all() && Shards::default().runs_all());
        assert_eq!(upper.count(), 2);
    }
}
