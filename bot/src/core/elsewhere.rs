//! Games from anywhere: `/games` with what each game waits for, and a game
//! named by its id (`/board ID`, `/move ID e4`, `/moves ID`, `/pgn ID`,
//! `/fen ID`) from any channel of the platform or a private chat with the
//! bot. A move played from elsewhere is announced in the game's own channel
//! (through the outbox, [`Core::take_notices`]); the sender gets a short
//! confirmation where they are.

use kibitz_storage::GameKey;

use super::bounds::units;
use super::*;

/// A command that may name a game by its id.
pub(super) enum Routed<'a> {
    /// `/move [GAME] MOVE`.
    Move(&'a str),
    /// `/board [GAME]`.
    Board(Option<&'a str>),
    /// `/moves [GAME] [SQUARE | PAGE | more]`.
    Moves(Option<&'a str>),
    /// `/pgn [GAME]`.
    Pgn(Option<&'a str>),
    /// `/fen [GAME]`.
    Fen(Option<&'a str>),
    /// `/gif [GAME]`.
    Gif(Option<&'a str>),
}

/// Whether `word` reads as a game id rather than a page number of `/moves`.
pub(super) fn is_game_id(word: &str) -> bool {
    GameId::parse(word).is_ok() && !word.chars().all(|c| c.is_ascii_digit())
}

/// Whether `word` ends in a square's name (`Kxe2`, `Nbd2`), as a move to
/// it does.
fn ends_in_square(word: &str) -> bool {
    let tail: Vec<char> = word.chars().rev().take(2).collect();
    matches!(tail.as_slice(), [rank, file] if rank.is_ascii_digit() && file.is_ascii_alphabetic())
}

/// `msg` as if it had been sent in `channel` (not privately).
fn relayed(msg: &Incoming, channel: &ChannelKey) -> Incoming {
    Incoming { channel: channel.channel.clone(), private: false, ..msg.clone() }
}

/// Where a game is, as seen from the message's channel: a private chat
/// with the bot is named as such, not by its id.
fn place(msg: &Incoming, channel: &ChannelKey, private: bool) -> String {
    if channel.channel == msg.channel {
        "here".to_string()
    } else if private {
        "in our private chat".to_string()
    } else {
        format!("in channel {}", channel.channel)
    }
}

/// `3 days 4 hours`, `5 hours` (a started hour counts whole), `no time`.
fn time_words(ms: u64) -> String {
    let hours = ms.div_ceil(3_600_000);
    match (hours / 24, hours % 24) {
        (0, 0) => "no time".to_string(),
        (0, h) => count(h as usize, "hour"),
        (d, 0) => count(d as usize, "day"),
        (d, h) => format!("{} {}", count(d as usize, "day"), count(h as usize, "hour")),
    }
}

impl Core {
    /// Runs a command that may name a game: in the game's channel when the
    /// game is the sender's elsewhere, or the sender's only game when asked
    /// in a private chat without one there.
    pub(super) fn routed(&self, msg: &Incoming, cmd: Routed<'_>) -> Answer {
        // The first word, when it is the id of one of the sender's running games.
        // `/moves ID ...` of a game here, the sender's or not.
        let mut moves_id: Option<String> = None;
        let (named, rest): (Option<GameKey>, Option<String>) = match cmd {
            Routed::Move(text) => match text.trim().split_once(char::is_whitespace) {
                Some((first, rest)) => match self.own_running_game(msg, first) {
                    Some(key) => (Some(key), Some(rest.trim().to_string())),
                    // `/move zzzz e4`: a game id of no game of the sender's.
                    None if is_game_id(first)
                        && !shape::move_shaped(text)
                        && shape::move_shaped(rest.trim())
                        && !self.game_here(msg, first) =>
                    {
                        let (first, rest) = (excerpt(first), excerpt(rest.trim()));
                        return refuse(format!(
                            "You have no game '{first}' running (/games lists yours); to play {rest} in your game \
                             here, send /move {rest}."
                        ));
                    }
                    None => (None, Some(text.to_string())),
                },
                None => (None, Some(text.to_string())),
            },
            Routed::Moves(Some(text)) => {
                let mut words = text.split_whitespace();
                // `/moves swap a1`, `/moves give rook d2`: a move in words, not a game's id.
                let verb = |w: &str| {
                    super::shape::VERBS.iter().chain(super::shape::GRANTS.iter()).any(|v| w.eq_ignore_ascii_case(v))
                };
                match words.next().filter(|w| is_game_id(w) && !verb(w) && !super::moves::is_listing_word(w)) {
                    Some(id) => {
                        let rest: Vec<&str> = words.collect();
                        let named = self.own_running_game(msg, id);
                        if rest.is_empty() && named.is_none() && ends_in_square(id) && !self.game_here(msg, id) {
                            // `/moves Kxe2`: shaped like a game id and like a move, and no game has it.
                            (None, Some(text.to_string()))
                        } else {
                            moves_id = Some(id.to_string());
                            (named, (!rest.is_empty()).then(|| rest.join(" ")))
                        }
                    }
                    None => (None, Some(text.to_string())),
                }
            }
            Routed::Board(id) | Routed::Pgn(id) | Routed::Fen(id) | Routed::Gif(id) | Routed::Moves(id) => {
                (id.and_then(|id| self.own_running_game(msg, id)), id.map(str::to_string))
            }
        };
        let rest = rest.as_deref();
        let here = Self::channel(msg);
        let key = match &named {
            Some(key) => Some(key.clone()),
            // In private, without a game there: the sender's only game.
            None if msg.private
                && !matches!(
                    cmd,
                    Routed::Board(Some(_)) | Routed::Pgn(Some(_)) | Routed::Fen(Some(_)) | Routed::Gif(Some(_))
                ) =>
            {
                self.only_game_elsewhere(msg)?
            }
            None => None,
        };
        let Some(key) = key.filter(|k| k.channel != here) else {
            // The game is here, or none is named: as the command always went.
            return match cmd {
                Routed::Move(_) => self.play(msg, rest.unwrap_or_default()),
                Routed::Board(id) => self.board(msg, named.as_ref().map(|k| k.id.as_str()).or(id)),
                Routed::Moves(_) => self.moves(msg, moves_id.as_deref(), rest),
                Routed::Pgn(id) => self.pgn(msg, named.as_ref().map(|k| k.id.as_str()).or(id)),
                Routed::Fen(id) => self.fen(msg, named.as_ref().map(|k| k.id.as_str()).or(id)),
                Routed::Gif(id) => self.gif(msg, named.as_ref().map(|k| k.id.as_str()).or(id)),
            };
        };
        let there = relayed(msg, &key.channel);
        let id = Some(key.id.as_str());
        match cmd {
            Routed::Move(_) => {
                let replies = self.play(&there, rest.unwrap_or_default())?;
                let Some(first) = replies.first() else { return Ok(Vec::new()) };
                // "@alice played e4 (e2e4)." as the confirmation.
                let said = match first.text.find(". ") {
                    Some(i) => first.text[..=i].to_string(),
                    None => first.text.clone(),
                };
                for reply in replies {
                    self.notify(key.channel.clone(), reply);
                }
                let private = self.store.game(&key).is_ok_and(|r| r.settings.private);
                Ok(vec![Reply::text(format!(
                    "Game {}: {said} Announced {}.",
                    key.id.as_str(),
                    place(msg, &key.channel, private)
                ))])
            }
            Routed::Board(_) => {
                // The game's buttons act in its own channel, not here.
                let mut replies = self.board(&there, id)?;
                replies.iter_mut().for_each(|r| r.buttons.clear());
                Ok(replies)
            }
            Routed::Moves(_) => {
                // Asked from elsewhere, the listing names its game.
                let mut replies = self.moves(&there, id, rest)?;
                if let Some(first) = replies.first_mut().filter(|r| !r.text.starts_with("Game ")) {
                    // `Game k7qz: your 20 legal moves`, as a sentence goes on.
                    let text = match first.text.strip_prefix("Your ") {
                        Some(rest) => format!("your {rest}"),
                        None => first.text.clone(),
                    };
                    first.text = format!("Game {}: {text}", key.id.as_str());
                }
                Ok(replies)
            }
            Routed::Pgn(_) => self.pgn(&there, id),
            Routed::Fen(_) => self.fen(&there, id),
            Routed::Gif(_) => self.gif(&there, id),
        }
    }

    /// Whether a game, running or finished, has the id `word` in the message's channel.
    fn game_here(&self, msg: &Incoming, word: &str) -> bool {
        let Ok(id) = GameId::parse(word) else { return false };
        let key = Self::channel(msg).game(id);
        !matches!(self.store.game(&key), Err(StoreError::NoSuchGame(_)))
    }

    /// The key of the sender's running game `word`, if `word` is the id of one.
    fn own_running_game(&self, msg: &Incoming, word: &str) -> Option<GameKey> {
        let id = GameId::parse(word).ok()?;
        let games = self.store.games_of(&msg.platform, &msg.sender.id).ok()?;
        let mut keys: Vec<GameKey> = games.into_iter().map(|(k, _)| k).filter(|k| k.id == id).collect();
        // The one here first, should ids meet in two channels.
        keys.sort_by_key(|k| k.channel != Self::channel(msg));
        keys.into_iter().next()
    }

    /// In a private chat with no game of its own: the sender's only running
    /// game; a refusal naming them when there are several.
    fn only_game_elsewhere(&self, msg: &Incoming) -> Result<Option<GameKey>, Refusal> {
        if self.store.player_game_in_channel(&Self::channel(msg), &msg.sender.id)?.is_some() {
            return Ok(None);
        }
        let games = self.store.games_of(&msg.platform, &msg.sender.id)?;
        match games.as_slice() {
            [] => Ok(None),
            [(key, _)] => Ok(Some(key.clone())),
            many => {
                let ids: Vec<&str> = many.iter().map(|(k, _)| k.id.as_str()).collect();
                refuse(format!(
                    "You have several games; name one by its id, as in /board {} (your games: {}; /games tells more).",
                    ids[0],
                    ids.join(", ")
                ))
            }
        }
    }

    /// `/games`: each running game of the sender's with its variant,
    /// opponent, channel, what it waits for and the time left on its clock.
    pub(super) fn games(&self, msg: &Incoming) -> Answer {
        let list = self.store.games_of(&msg.platform, &msg.sender.id)?;
        if list.is_empty() {
            return Ok(vec![Reply::text("You have no games running. /challenge @friend to start one.")]);
        }
        let mut lines = Vec::new();
        for (key, record) in list {
            lines.push(match record.ok().and_then(|r| self.load(r).ok()) {
                Some(l) => self.game_entry(msg, &l),
                None => format!("{}: cannot be read", key.id.as_str()),
            });
        }
        let more = |n: usize| format!("… ({n} more; /board GAME shows one)");
        let mut text = listing("Your games:", &lines, REPLY_LIMIT, more);
        if lines.iter().any(|l| !l.contains(", here:")) {
            let tail = "\nUse a game's id from anywhere: /board ID, /move ID e4, /moves ID.";
            if units(&text) + units(tail) <= REPLY_LIMIT {
                text.push_str(tail);
            }
        }
        Ok(vec![Reply::text(text)])
    }

    /// "vuaf: Chess vs @bob, here: your move, 2 days 5 hours left".
    fn game_entry(&self, msg: &Incoming, l: &Loaded) -> String {
        let r = &l.record;
        let me = &msg.sender.id;
        let variant = Variant::by_id(&r.variant).map_or(r.variant.as_str(), |v| v.name);
        let opponent = other_player(r, me);
        let mine = |c: Color| r.player(colour_of(c)) == me;
        let who = |c: Color| if mine(c) { "you".to_string() } else { mention(r.player(colour_of(c))) };
        let (state, waits_for) = match l.clash.as_ref().filter(|_| clash::between_rounds(l)) {
            Some(m) => {
                use kibitz_rules::army::Phase;
                match m.phase {
                    Phase::Army { color } => {
                        let whose = if mine(color) { "your".to_string() } else { format!("{}'s", who(color)) };
                        (format!("round {}, {whose} army phase", m.round), Some(color))
                    }
                    Phase::Raising { to_move } => {
                        let does = if mine(to_move) { "you raise or pass" } else { "they raise or pass" };
                        (format!("round {}, {does}", m.round), Some(to_move))
                    }
                    _ => (format!("round {}, sealed bids for the Amazon", m.round), None),
                }
            }
            None => {
                let turn = l.game.position().turn();
                let mut s = if mine(turn) { "your move".to_string() } else { format!("{}'s move", who(turn)) };
                if l.game.position().is_check() {
                    s.push_str(" (in check)");
                }
                if let Some(m) = l.clash.as_ref() {
                    s = format!("round {}, {s}", m.round);
                }
                (s, Some(turn))
            }
        };
        // PA7: a handicap is part of what the game is.
        let variant = match challenges::handicap_of(l) {
            Some(h) => format!("{variant} (handicap {h})"),
            None => variant.to_string(),
        };
        let mut entry = format!(
            "{}: {variant} vs {}, {}: {state}",
            r.key.id.as_str(),
            mention(&opponent),
            place(msg, &r.key.channel, r.settings.private)
        );
        if let (Some(days), Some(_), None) = (r.settings.days_per_move, waits_for, r.settings.bot_level) {
            // As the clock's tick counts it.
            let start = if r.clash.is_some() { r.updated_at } else { r.started_at };
            let since = if clash::between_rounds(l) { r.updated_at } else { r.moves.last().map_or(start, |m| m.at) };
            let allowed = u64::from(days) * 86_400_000;
            let left = allowed.saturating_sub(msg.at.0.saturating_sub(since.0));
            let _ = write!(entry, ", {} left ({} a move", time_words(left), count(days as usize, "day"));
            if let Some(until) = clock::deadline(r).filter(|_| r.clash.is_none()) {
                let _ = write!(
                    entry,
                    "; {} has until {}",
                    self.name(&r.key.channel.platform, r.player(colour_of(l.game.position().turn()))),
                    clock::deadline_words(until, msg.at)
                );
            }
            entry.push(')');
        }
        if let (Some(line), Some(c)) = (self.clock_line(r, msg.at), r.settings.clock) {
            let _ = write!(entry, " ({c}: {line})");
        }
        entry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_said_in_days_and_hours() {
        const HOUR: u64 = 3_600_000;
        assert_eq!(time_words(0), "no time");
        assert_eq!(time_words(1), "1 hour");
        assert_eq!(time_words(HOUR), "1 hour");
        assert_eq!(time_words(5 * HOUR + 59 * 60_000), "6 hours");
        assert_eq!(time_words(72 * HOUR - 1), "3 days");
        assert_eq!(time_words(24 * HOUR), "1 day");
        assert_eq!(time_words(53 * HOUR), "2 days 5 hours");
    }
}
