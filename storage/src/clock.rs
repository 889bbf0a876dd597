//! Chat clocks (`10+5`): the settings agreed in a challenge and the clock
//! as it stands in a game, as plain values with their arithmetic.
//!
//! The clock of the side to move runs from the moment its turn started. A
//! move is charged from then to when it was sent, and the increment is
//! added after it; then the other side's clock runs. The store keeps the
//! time each side had left when its clock last stopped, whose clock runs
//! and since when: the time left now is computed, never ticked down.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::record::{Colour, Timestamp};

/// The most minutes a chat clock may give, and the most seconds it may add per move.
pub const CLOCK_MAX: u32 = 180;

/// How long after a flag fell the clock's tick calls it (ms): a move sent
/// before may still be on its way, and is judged by when it was sent.
pub const FLAG_GRACE_MS: u64 = 3_000;

/// A chat clock's settings: minutes for the game, seconds added after each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChatClock {
    /// Minutes each player has for the whole game (1 to [`CLOCK_MAX`]).
    pub minutes: u32,
    /// Seconds added to a player's clock after each of their moves (0 to [`CLOCK_MAX`]).
    pub increment: u32,
}

impl ChatClock {
    /// Each player's time at the start, in milliseconds.
    pub fn base_ms(self) -> u64 {
        u64::from(self.minutes) * 60_000
    }

    /// The increment, in milliseconds.
    pub fn increment_ms(self) -> u64 {
        u64::from(self.increment) * 1000
    }

    /// Below this much time left (a tenth of the base time) a player is
    /// reminded, once.
    pub fn reminder_ms(self) -> u64 {
        self.base_ms() / 10
    }
}

impl fmt::Display for ChatClock {
    /// `10+5`, as players write it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.minutes, self.increment)
    }
}

/// A chat clock as it stands in a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockState {
    /// White's time left when White's clock last stopped (ms).
    pub white_ms: u64,
    /// Black's time left when Black's clock last stopped (ms).
    pub black_ms: u64,
    /// Whose clock runs: the side to move.
    pub running: Colour,
    /// When it started running (the start of the game, or the move before).
    pub since: Timestamp,
    /// The sides reminded that their time is short (each is reminded once a game).
    #[serde(default)]
    pub reminded: Vec<Colour>,
}

impl ClockState {
    /// The clock of a game starting at `at`: both sides have the base
    /// time, and White's clock runs.
    pub fn start(clock: ChatClock, at: Timestamp) -> ClockState {
        ClockState {
            white_ms: clock.base_ms(),
            black_ms: clock.base_ms(),
            running: Colour::White,
            since: at,
            reminded: Vec::new(),
        }
    }

    /// The time `colour` had left when its clock last stopped (or started).
    pub fn stored(&self, colour: Colour) -> u64 {
        match colour {
            Colour::White => self.white_ms,
            Colour::Black => self.black_ms,
        }
    }

    fn stored_mut(&mut self, colour: Colour) -> &mut u64 {
        match colour {
            Colour::White => &mut self.white_ms,
            Colour::Black => &mut self.black_ms,
        }
    }

    /// The time `colour` has left at `now`: the running side's stored time
    /// less what has run since its turn started.
    pub fn left_at(&self, colour: Colour, now: Timestamp) -> u64 {
        let stored = self.stored(colour);
        if colour == self.running { stored.saturating_sub(now.0.saturating_sub(self.since.0)) } else { stored }
    }

    /// When the running side's flag falls if it does not move.
    pub fn flag_at(&self) -> Timestamp {
        Timestamp(self.since.0.saturating_add(self.stored(self.running)))
    }

    /// When the running side is to be reminded that its time is short
    /// (`None` if it was reminded already in this game): as its time left
    /// goes under a tenth of the base time, or at once if it is under it.
    pub fn reminder_at(&self, clock: ChatClock) -> Option<Timestamp> {
        if self.reminded.contains(&self.running) {
            return None;
        }
        let before_flag = self.stored(self.running).saturating_sub(clock.reminder_ms());
        Some(Timestamp(self.since.0.saturating_add(before_flag)))
    }

    /// When the store's clock index must next look at the game: the earlier
    /// of the reminder and the flag (with [`FLAG_GRACE_MS`]).
    pub fn due(&self, clock: ChatClock) -> Timestamp {
        let flag = Timestamp(self.flag_at().0.saturating_add(FLAG_GRACE_MS));
        self.reminder_at(clock).map_or(flag, |r| r.min(flag))
    }

    /// The clock after the running side moved, its move sent at `at`: it is
    /// charged the time since its turn started (if `charged`; the bot's
    /// clock stands) and gets the increment (if `charged`), and the other
    /// side's clock runs from `at`. A move sent at or after the flag fell
    /// leaves no time; the caller judges it lost before this.
    pub fn after_move(&self, clock: ChatClock, at: Timestamp, charged: bool) -> ClockState {
        let mut next = self.clone();
        let mover = self.running;
        if charged {
            let left = self.left_at(mover, at);
            *next.stored_mut(mover) = left.saturating_add(clock.increment_ms());
        }
        next.running = other(mover);
        next.since = Timestamp(at.0.max(self.since.0));
        next
    }

    /// The clock stopped at `at` (the game ended): the running side is
    /// charged the time it used.
    pub fn stopped(&self, at: Timestamp) -> ClockState {
        self.after_takeback(self.running, at)
    }

    /// The clock after a takeback leaves `to_move` to move at `at`: the
    /// running side is charged the time it used, nothing is given back,
    /// and `to_move`'s clock runs from `at`.
    pub fn after_takeback(&self, to_move: Colour, at: Timestamp) -> ClockState {
        let mut next = self.clone();
        *next.stored_mut(self.running) = self.left_at(self.running, at);
        next.running = to_move;
        next.since = Timestamp(at.0.max(self.since.0));
        next
    }
}

fn other(c: Colour) -> Colour {
    match c {
        Colour::White => Colour::Black,
        Colour::Black => Colour::White,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEN_FIVE: ChatClock = ChatClock { minutes: 10, increment: 5 };

    #[test]
    fn a_move_is_charged_its_time_and_gets_the_increment() {
        let start = ClockState::start(TEN_FIVE, Timestamp(1_000));
        assert_eq!((start.white_ms, start.black_ms, start.running), (600_000, 600_000, Colour::White));
        assert_eq!(start.flag_at(), Timestamp(601_000));
        // White thinks 19 s: 600 - 19 + 5 = 586 s; Black's clock runs.
        let after = start.after_move(TEN_FIVE, Timestamp(20_000), true);
        assert_eq!((after.white_ms, after.running, after.since), (586_000, Colour::Black, Timestamp(20_000)));
        assert_eq!(after.left_at(Colour::Black, Timestamp(80_000)), 540_000);
        assert_eq!(after.left_at(Colour::White, Timestamp(80_000)), 586_000);
        // Uncharged (the bot): no time taken, no increment.
        let bot = after.after_move(TEN_FIVE, Timestamp(90_000), false);
        assert_eq!((bot.black_ms, bot.running), (600_000, Colour::White));
    }

    #[test]
    fn the_reminder_comes_before_the_flag_once() {
        let start = ClockState::start(TEN_FIVE, Timestamp(0));
        // 60 s is a tenth of 10 minutes: reminded at 540 s, flag at 600 s.
        assert_eq!(start.reminder_at(TEN_FIVE), Some(Timestamp(540_000)));
        assert_eq!(start.due(TEN_FIVE), Timestamp(540_000));
        let mut reminded = start.clone();
        reminded.reminded.push(Colour::White);
        assert_eq!(reminded.due(TEN_FIVE), Timestamp(600_000 + FLAG_GRACE_MS));
        // Under a tenth already: reminded at once.
        let short = ClockState { white_ms: 30_000, ..start };
        assert_eq!(short.reminder_at(TEN_FIVE), Some(Timestamp(0)));
    }

    #[test]
    fn a_takeback_gives_back_nothing() {
        let start = ClockState::start(TEN_FIVE, Timestamp(0));
        let after = start.after_move(TEN_FIVE, Timestamp(10_000), true);
        let back = after.after_takeback(Colour::White, Timestamp(40_000));
        assert_eq!((back.white_ms, back.black_ms), (595_000, 570_000));
        assert_eq!((back.running, back.since), (Colour::White, Timestamp(40_000)));
    }

    #[test]
    fn old_records_read_without_reminders() {
        let text = r#"{"white_ms":1,"black_ms":2,"running":"black","since":3}"#;
        let state: ClockState = serde_json::from_str(text).unwrap();
        assert_eq!((state.running, state.reminded.len()), (Colour::Black, 0));
        assert_eq!(TEN_FIVE.to_string(), "10+5");
    }
}
