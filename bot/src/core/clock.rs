//! Clocks players can see: a chat clock (`/challenge @bob chess 10+5`) and
//! the deadline of a correspondence game (`days N`).
//!
//! A chat clock runs for the side to move from the moment its turn started
//! (the start of the game for White). A move is charged from then to when
//! it was *sent* (the platform's time of the message, not when it reached
//! the bot), and the increment is added after it. A move sent after the
//! flag fell loses on time, even if the clock's tick has not seen it yet; a
//! move sent before is played, however late it arrives (the tick calls a
//! flag [`FLAG_GRACE_MS`] after it fell, for such moves). A player is
//! reminded once, when under a tenth of the base time.
//!
//! The bot's clock stands: it answers at once, its moves are dated with
//! the message they answer, and it is charged nothing and given no
//! increment; only its opponent's clock runs. A takeback gives back no
//! time. A flag fall loses the game whatever material is left (there is no
//! insufficient-material rule for correspondence games either). Clash
//! matches have no chat clock: their auctions and army phases take no moves.

use chrono::DateTime;
use kibitz_storage::{ChatClock, ClockState, FLAG_GRACE_MS};

use super::*;

impl Core {
    /// "alice 9:41 — bob 10:05": both players' time at `now`, for a game
    /// with a chat clock.
    pub(super) fn clock_line(&self, r: &GameRecord, now: Timestamp) -> Option<String> {
        let state = r.clock.as_ref()?;
        let at = if r.result.is_some() { state.since } else { now };
        let platform = &r.key.channel.platform;
        Some(format!(
            "{} {} — {} {}",
            self.name(platform, &r.white),
            clock_time(state.left_at(Colour::White, at)),
            self.name(platform, &r.black),
            clock_time(state.left_at(Colour::Black, at))
        ))
    }

    /// The chat clock after the player to move in `r` moved at `at`; `None`
    /// for a game without one. The bot is charged nothing.
    pub(super) fn clock_after_move(&self, r: &GameRecord, at: Timestamp) -> Option<ClockState> {
        let (clock, state) = r.settings.clock.zip(r.clock.as_ref())?;
        let mover = r.player(state.running);
        Some(state.after_move(clock, at, !self.is_bot(&r.key.channel.platform, mover)))
    }

    /// A chat clock move judged by when it was sent: one sent at or after
    /// the mover's flag fell loses on time (the tick may not have called it
    /// yet, or the bot was away).
    pub(super) fn flag_fell(&self, msg: &Incoming, loaded: &Loaded, to_move: Color) -> Answer {
        let r = &loaded.record;
        let Some(state) = r.clock.as_ref() else { return Ok(Vec::new()) };
        let flag = state.flag_at();
        if msg.at < flag {
            return Ok(Vec::new());
        }
        let outcome = if to_move == Color::White { Outcome::BlackWins } else { Outcome::WhiteWins };
        let end = GameEnd { outcome, reason: "time".into(), at: flag, message_id: msg.message_id.clone() };
        let stopped = state.stopped(flag);
        let Some(finished) = applied(self.store.finish_game_with(&r.key, r.version, &end, |g| {
            g.clock = Some(stopped.clone());
            Ok(())
        }))?
        else {
            return Ok(Vec::new());
        };
        let words = result_words(&finished, Some(!to_move), "time");
        let text = format!(
            "Game {}: your move was sent after your time ran out; {} ran out of time. {words}",
            r.key.id.as_str(),
            mention(&msg.sender.id)
        );
        let mut replies = vec![Reply::text(text)];
        replies.extend(self.game_over(&finished));
        Ok(replies)
    }

    /// The kind answer to a move in a game the clock's tick ended on time
    /// before the move arrived: `None` unless the sender's last game here
    /// was lost so, and the move was sent after their flag fell.
    pub(super) fn flagged_before(&self, msg: &Incoming) -> Option<Reply> {
        let (key, record) = self.store.archived_games_of(&msg.platform, &msg.sender.id, 1).ok()?.into_iter().next()?;
        let r = record.ok()?;
        let res = r.result.as_ref()?;
        let lost = match r.colour_of(&msg.sender.id)? {
            Colour::White => res.outcome == Outcome::BlackWins,
            Colour::Black => res.outcome == Outcome::WhiteWins,
        };
        if key.channel != Self::channel(msg) || res.reason != "time" || !lost || r.clock.is_none() || msg.at < res.at {
            return None;
        }
        Some(Reply::text(format!(
            "Game {} is over: your time ran out before this move was sent, and you lost on time. /rematch for another \
             game?",
            r.key.id.as_str()
        )))
    }

    /// The chat clock of a due game at `now`: a flag fallen
    /// [`FLAG_GRACE_MS`] ago loses the game; a player under a tenth of the
    /// base time is reminded, once. The bot's clock stands.
    pub(super) fn tick_chat_clock(&self, now: Timestamp, record: &GameRecord, notices: &mut Vec<(ChannelKey, Reply)>) {
        let (Some(clock), Some(state)) = (record.settings.clock, record.clock.as_ref()) else { return };
        let key = &record.key;
        let player = record.player(state.running).to_string();
        if self.is_bot(&key.channel.platform, &player) || record.result.is_some() {
            return;
        }
        let flag = state.flag_at();
        if now.0 >= flag.0.saturating_add(FLAG_GRACE_MS) {
            let outcome = if state.running == Colour::White { Outcome::BlackWins } else { Outcome::WhiteWins };
            let end = GameEnd { outcome, reason: "time".into(), at: flag, message_id: None };
            let stopped = state.stopped(flag);
            let finished = self.store.finish_game_with(key, record.version, &end, |g| {
                g.clock = Some(stopped.clone());
                Ok(())
            });
            if let Ok(r) = finished {
                let winner = if state.running == Colour::White { Color::Black } else { Color::White };
                let words = result_words(&r, Some(winner), "time");
                let text = format!("Game {}: {} ran out of time. {words}", key.id.as_str(), mention(&player));
                notices.push((key.channel.clone(), Reply::text(text)));
                notices.extend(self.game_over(&r).into_iter().map(|reply| (key.channel.clone(), reply)));
            }
            return;
        }
        if state.reminder_at(clock).is_some_and(|at| now >= at) {
            let running = state.running;
            let reminded = self.store.update_game(key, record.version, None, |g| {
                if let Some(c) = g.clock.as_mut()
                    && !c.reminded.contains(&running)
                {
                    c.reminded.push(running);
                }
                Ok(())
            });
            if reminded.is_ok() {
                let text = format!(
                    "{}, {} left on your clock (game {}).",
                    mention(&player),
                    clock_time(state.left_at(running, now)),
                    key.id.as_str()
                );
                notices.push((key.channel.clone(), Reply::text(text)));
            }
        }
    }
}

/// The chat clock a challenge asks for, as stored.
pub(super) fn chat_clock(spec: Option<(u32, u32)>) -> Option<ChatClock> {
    spec.map(|(minutes, increment)| ChatClock { minutes, increment })
}

/// "9:41", "1:02:05": time left, in whole seconds (rounded down, as a
/// flag falls at zero).
pub(super) fn clock_time(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// When the player to move in a correspondence game must have moved: the
/// last move (or the start) plus the days per move; `None` without days.
pub(super) fn deadline(r: &GameRecord) -> Option<Timestamp> {
    let days = r.settings.days_per_move?;
    let since = r.moves.last().map_or(r.started_at, |m| m.at);
    Some(Timestamp(since.0.saturating_add(u64::from(days) * 86_400_000)))
}

/// "Friday 18:00 UTC" for a moment within six days of `now`, with the
/// date beyond ("Friday 16 January 18:00 UTC").
pub(super) fn deadline_words(at: Timestamp, now: Timestamp) -> String {
    let Some(when) = DateTime::from_timestamp_millis(at.0.min(i64::MAX as u64) as i64) else {
        return "a moment too far to say".to_string();
    };
    if at.0.saturating_sub(now.0) < 6 * 86_400_000 {
        when.format("%A %H:%M UTC").to_string()
    } else {
        when.format("%A %-d %B %H:%M UTC").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_shown_as_a_clock_shows_them() {
        assert_eq!(clock_time(0), "0:00");
        assert_eq!(clock_time(999), "0:00");
        assert_eq!(clock_time(58_700), "0:58");
        assert_eq!(clock_time(581_000), "9:41");
        assert_eq!(clock_time(600_000), "10:00");
        assert_eq!(clock_time(3_725_000), "1:02:05");
        assert_eq!(clock_time(180 * 60_000), "3:00:00");
    }

    #[test]
    fn deadlines_name_the_day_and_beyond_a_week_the_date() {
        // 2026-01-02 was a Friday; 18:00 UTC that day.
        let friday = Timestamp(1_767_376_800_000);
        assert_eq!(deadline_words(friday, Timestamp(friday.0 - 3 * 86_400_000)), "Friday 18:00 UTC");
        let later = Timestamp(friday.0 + 14 * 86_400_000);
        assert_eq!(deadline_words(later, friday), "Friday 16 January 18:00 UTC");
    }
}
