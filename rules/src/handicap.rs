//! Power Absorption's handicaps (PA7): what one side's captures may not
//! absorb, how they are read from words and how they are written.

use std::fmt;

use thiserror::Error;

use crate::piece::Powers;
use crate::types::Color;

/// What one side's captures may not absorb (PA7). `nopawn` and `noqueen`
/// combine; `plain` covers both and more: that side absorbs nothing at all.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct Handicap(u8);

impl Handicap {
    /// No handicap: PA3 as it stands.
    pub const NONE: Handicap = Handicap(0);
    /// `nopawn`: never the Pawn power.
    pub const NOPAWN: Handicap = Handicap(1);
    /// `noqueen`: nothing from a captured piece that holds both Rook and
    /// Bishop powers.
    pub const NOQUEEN: Handicap = Handicap(2);
    /// `plain`: nothing at all (ordinary chess pieces, the King included).
    pub const PLAIN: Handicap = Handicap(4);

    /// The words, in the order they are written.
    const WORDS: [(Handicap, &'static str); 3] =
        [(Handicap::NOPAWN, "nopawn"), (Handicap::NOQUEEN, "noqueen"), (Handicap::PLAIN, "plain")];

    /// The handicap a word names (`nopawn`, `noqueen`, `plain`, any case).
    pub fn word(text: &str) -> Option<Handicap> {
        Handicap::WORDS.iter().find(|(_, w)| w.eq_ignore_ascii_case(text)).map(|&(h, _)| h)
    }

    /// Both handicaps together; `plain` covers the others.
    pub const fn with(self, other: Handicap) -> Handicap {
        if (self.0 | other.0) & Handicap::PLAIN.0 != 0 { Handicap::PLAIN } else { Handicap(self.0 | other.0) }
    }

    /// True if there is no handicap.
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    /// True if every limit of `other` is part of `self`.
    pub const fn contains(self, other: Handicap) -> bool {
        self.0 & other.0 == other.0
    }

    /// The powers a capture by this side takes from a victim holding `victim`.
    pub fn absorbable(self, victim: Powers) -> Powers {
        if self.contains(Handicap::PLAIN) || (self.contains(Handicap::NOQUEEN) && victim.contains(Powers::QUEEN)) {
            Powers::NONE
        } else if self.contains(Handicap::NOPAWN) {
            victim.without(Powers::PAWN)
        } else {
            victim
        }
    }

    /// The words of the handicap, in the order `nopawn noqueen` (or `plain`).
    pub fn words(self) -> Vec<&'static str> {
        Handicap::WORDS.iter().filter(|&&(h, _)| self.contains(h) && !h.is_none()).map(|&(_, w)| w).collect()
    }

    /// The bits, for hashing (0-7).
    pub(crate) fn bits(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Handicap {
    /// `plain`, `nopawn noqueen`; nothing for no handicap.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words().join(" "))
    }
}

/// Why handicap words were not understood.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HandicapError {
    /// No colour with a handicap was named.
    #[error("a handicap names a colour and what it may not absorb, e.g. white plain or black nopawn noqueen")]
    Missing,
    /// A colour was named twice (`white nopawn white plain`).
    #[error("{0}'s handicap is named twice: name each side once, e.g. white plain black nopawn")]
    Twice(&'static str),
    /// A colour was followed by a word that is no handicap.
    #[error("'{0}' is not a handicap: nopawn, noqueen or plain")]
    Unknown(String),
    /// Words were left over after the handicaps.
    #[error("'{0}' is not part of a handicap")]
    Trailing(String),
}

/// Both sides' handicaps (PA7).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct Handicaps {
    /// White's handicap.
    pub white: Handicap,
    /// Black's handicap.
    pub black: Handicap,
}

impl Handicaps {
    /// No handicap for either side.
    pub const NONE: Handicaps = Handicaps { white: Handicap::NONE, black: Handicap::NONE };

    /// The handicap of `color`.
    pub fn of(self, color: Color) -> Handicap {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// Adds `handicap` to `color`'s.
    pub fn add(&mut self, color: Color, handicap: Handicap) {
        match color {
            Color::White => self.white = self.white.with(handicap),
            Color::Black => self.black = self.black.with(handicap),
        }
    }

    /// The same handicaps on the other colours: White's now Black's and
    /// Black's White's (a rematch with colours swapped keeps each player's).
    pub fn swapped(self) -> Handicaps {
        Handicaps { white: self.black, black: self.white }
    }

    /// True if neither side has a handicap.
    pub fn is_none(self) -> bool {
        self.white.is_none() && self.black.is_none()
    }

    /// Reads handicaps from the start of `words`: groups of a colour
    /// (`white`, `black`) followed by one or more of `nopawn`, `noqueen`,
    /// `plain` (`white plain`, `black nopawn noqueen`, `white plain black
    /// nopawn`). Stops before a colour that no handicap word follows (it may
    /// be a colour choice) and before any other word; gives the handicaps
    /// and how many words it read. At least one group must be there.
    pub fn read_words(words: &[&str]) -> Result<(Handicaps, usize), HandicapError> {
        let mut handicaps = Handicaps::NONE;
        let mut read = 0;
        let mut named = Vec::new();
        while let Some(color) = words.get(read).and_then(|w| color_word(w)) {
            let mut n = read + 1;
            if named.contains(&color) && words.get(n).and_then(|w| Handicap::word(w)).is_some() {
                return Err(HandicapError::Twice(if color == Color::White { "White" } else { "Black" }));
            }
            named.push(color);
            while let Some(h) = words.get(n).and_then(|w| Handicap::word(w)) {
                handicaps.add(color, h);
                n += 1;
            }
            if n == read + 1 {
                if read == 0 {
                    return Err(match words.get(n) {
                        Some(w) => HandicapError::Unknown(w.chars().take(24).collect()),
                        None => HandicapError::Missing,
                    });
                }
                break;
            }
            read = n;
        }
        if read == 0 {
            return Err(HandicapError::Missing);
        }
        Ok((handicaps, read))
    }

    /// Reads a whole text of handicap words (`"white plain"`, `"white plain
    /// black nopawn"`); the CLI's `--handicap`.
    pub fn parse(text: &str) -> Result<Handicaps, HandicapError> {
        let words: Vec<&str> = text.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect();
        let (handicaps, read) = Handicaps::read_words(&words)?;
        match words.get(read) {
            Some(w) => Err(HandicapError::Trailing(w.chars().take(24).collect())),
            None => Ok(handicaps),
        }
    }

    /// The FEN field (POWERS.md): `h:W=plain`, `h:W=plain,B=nopawn+noqueen`;
    /// `None` without a handicap.
    pub(crate) fn fen_field(self) -> Option<String> {
        let sides: Vec<String> = [(self.white, 'W'), (self.black, 'B')]
            .into_iter()
            .filter(|(h, _)| !h.is_none())
            .map(|(h, c)| format!("{c}={}", h.words().join("+")))
            .collect();
        (!sides.is_empty()).then(|| format!("h:{}", sides.join(",")))
    }

    /// Reads the FEN field written by [`Handicaps::fen_field`] (after `h:`).
    pub(crate) fn from_fen_field(text: &str) -> Option<Handicaps> {
        let mut handicaps = Handicaps::NONE;
        for side in text.split(',') {
            let (color, words) = side.split_once('=')?;
            let color = match color {
                "W" => Color::White,
                "B" => Color::Black,
                _ => return None,
            };
            if !handicaps.of(color).is_none() {
                return None;
            }
            for w in words.split('+') {
                handicaps.add(color, Handicap::word(w)?);
            }
        }
        Some(handicaps)
    }
}

impl fmt::Display for Handicaps {
    /// As the PGN tag and the texts give it (PA7): `White plain`,
    /// `White plain, Black nopawn noqueen`; nothing without a handicap.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sides: Vec<String> = [(self.white, "White"), (self.black, "Black")]
            .into_iter()
            .filter(|(h, _)| !h.is_none())
            .map(|(h, c)| format!("{c} {h}"))
            .collect();
        f.write_str(&sides.join(", "))
    }
}

fn color_word(word: &str) -> Option<Color> {
    if word.eq_ignore_ascii_case("white") {
        Some(Color::White)
    } else if word.eq_ignore_ascii_case("black") {
        Some(Color::Black)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_and_written() {
        let (h, n) = Handicaps::read_words(&["white", "plain", "black", "nopawn", "noqueen", "level", "8"]).unwrap();
        assert_eq!(n, 5);
        assert_eq!(h.to_string(), "White plain, Black nopawn noqueen");
        assert_eq!(h.fen_field().as_deref(), Some("h:W=plain,B=nopawn+noqueen"));
        assert_eq!(Handicaps::from_fen_field("W=plain,B=nopawn+noqueen"), Some(h));
        // A colour that no handicap follows is left for the caller.
        let (h, n) = Handicaps::read_words(&["black", "nopawn", "white"]).unwrap();
        assert_eq!((h.to_string().as_str(), n), ("Black nopawn", 2));
        // PA7: plain covers both.
        assert_eq!(Handicap::NOPAWN.with(Handicap::PLAIN), Handicap::PLAIN);
        assert_eq!(Handicaps::parse("white nopawn plain").unwrap().white, Handicap::PLAIN);
        assert_eq!(Handicaps::parse("white nopwn"), Err(HandicapError::Unknown("nopwn".into())));
        assert_eq!(Handicaps::parse("plain"), Err(HandicapError::Missing));
        assert_eq!(Handicaps::parse("white nopawn white plain"), Err(HandicapError::Twice("White")));
        assert_eq!(Handicaps::parse("white plain soon"), Err(HandicapError::Trailing("soon".into())));
        assert_eq!(Handicaps::from_fen_field("W=plain,W=nopawn"), None);
        assert_eq!(Handicaps::from_fen_field("X=plain"), None);
    }

    #[test]
    fn pa7_absorbable() {
        let q = Powers::QUEEN;
        assert_eq!(Handicap::PLAIN.absorbable(Powers::KNIGHT), Powers::NONE);
        assert_eq!(Handicap::NOPAWN.absorbable(Powers::KNIGHT.with(Powers::PAWN)), Powers::KNIGHT);
        assert_eq!(Handicap::NOQUEEN.absorbable(q.with(Powers::KNIGHT)), Powers::NONE);
        assert_eq!(Handicap::NOQUEEN.absorbable(Powers::BISHOP), Powers::BISHOP);
        let both = Handicap::NOPAWN.with(Handicap::NOQUEEN);
        assert_eq!(both.absorbable(q.with(Powers::PAWN)), Powers::NONE);
        assert_eq!(both.absorbable(Powers::ROOK.with(Powers::PAWN)), Powers::ROOK);
    }
}
