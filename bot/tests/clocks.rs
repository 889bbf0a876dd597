//! Chat clocks (`/challenge @bob chess 10+5`) and the deadlines of
//! correspondence games, with explicit timestamps: a move is charged from
//! the start of its turn to when it was sent and gets the increment; a
//! move sent in time is played however late it arrives, one sent late
//! loses; the tick reminds once under a tenth of the base time and calls a
//! flag; the clocks show after every move, in /games and in the caption.

use kibitz_bot::core::{Core, CoreConfig, Incoming, Reply, User};
use kibitz_storage::{ChannelKey, Colour, FLAG_GRACE_MS, GameRecord, Outcome, Store, Timestamp};

/// Friday 2 January 2026, 12:00:00 UTC.
const T0: u64 = 1_767_355_200_000;
const SECOND: u64 = 1000;
const MINUTE: u64 = 60 * SECOND;

fn core(dir: &std::path::Path) -> Core {
    let config =
        CoreConfig { hint_time: std::time::Duration::from_millis(50), board_size: 160, ..CoreConfig::default() };
    Core::new(Store::open(dir).unwrap(), config)
}

fn say(core: &Core, who: &str, text: &str, at: u64) -> Vec<Reply> {
    let msg = Incoming {
        platform: "test".into(),
        channel: "c1".into(),
        sender: User { id: who.into(), name: who.into() },
        text: text.into(),
        message_id: Some(format!("{who}-{at}-{text}")),
        at: Timestamp(at),
        private: false,
        manages: None,
    };
    core.handle(&msg)
}

fn texts(replies: &[Reply]) -> String {
    replies.iter().map(|r| r.text.as_str()).collect::<Vec<_>>().join("\n")
}

fn tick(core: &Core, at: u64) -> String {
    core.tick(Timestamp(at), "test").into_iter().map(|(_, r)| r.text).collect::<Vec<_>>().join("\n")
}

/// alice (White) against bob with a chat clock, started at `T0`.
fn start(core: &Core, clock: &str) -> GameRecord {
    let asked = texts(&say(core, "alice", &format!("/challenge @bob white {clock}"), T0));
    assert!(asked.contains(&format!("to Chess (playing White, {clock})")), "{asked}");
    let started = texts(&say(core, "bob", "/accept", T0));
    assert!(started.contains(&format!("Chess, {clock}. <@alice> moves first.")), "{started}");
    game(core).unwrap()
}

fn game(core: &Core) -> Option<GameRecord> {
    core.store().player_game_in_channel(&ChannelKey::new("test", "c1"), "alice").unwrap()
}

fn last_finished(core: &Core) -> GameRecord {
    let (_, g) = core.store().archived_games_of("test", "alice", 1).unwrap().into_iter().next().unwrap();
    g.unwrap()
}

#[test]
fn a_move_is_charged_from_its_turn_to_its_sending_and_gets_the_increment() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "10+5");
    // alice thinks 20 s: 10:00 - 0:20 + 0:05 = 9:45.
    let said = texts(&say(&core, "alice", "e4", T0 + 20 * SECOND));
    assert!(said.contains("<@bob>, your move. alice 9:45 — bob 10:00."), "{said}");
    let g = game(&core).unwrap();
    let c = g.clock.as_ref().unwrap();
    assert_eq!((c.white_ms, c.black_ms, c.running), (585_000, 600_000, Colour::Black));
    // bob thinks 30.5 s: 10:00 - 0:30.5 + 0:05 = 9:34.5, shown 9:34.
    let said = texts(&say(&core, "bob", "e5", T0 + 50_500));
    assert!(said.contains("alice 9:45 — bob 9:34."), "{said}");
    assert_eq!(game(&core).unwrap().clock.unwrap().black_ms, 574_500);
}

#[test]
fn a_move_sent_just_in_time_and_delivered_late_is_played() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "1+0");
    say(&core, "alice", "e4", T0 + SECOND);
    let flag = T0 + SECOND + MINUTE;
    // The tick runs after bob's flag fell, while his move is on its way:
    // within the grace it waits.
    assert!(!tick(&core, flag + FLAG_GRACE_MS - 1).contains("ran out of time"));
    // The move was sent a millisecond before the flag fell, and arrives now.
    let said = texts(&say(&core, "bob", "e5", flag - 1));
    assert!(said.contains("<@bob> played e5") && said.contains("alice 0:59 — bob 0:00."), "{said}");
    let g = game(&core).unwrap();
    assert_eq!((g.moves.len(), g.result.is_none()), (2, true));
    assert_eq!(g.clock.unwrap().black_ms, 1);
}

#[test]
fn a_move_sent_after_the_flag_fell_loses_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "1+2");
    say(&core, "alice", "e4", T0 + SECOND);
    // bob's flag falls 60 s after his turn started; his move is sent at it.
    let flag = T0 + SECOND + MINUTE;
    let said = texts(&say(&core, "bob", "e5", flag));
    assert!(said.contains("your move was sent after your time ran out"), "{said}");
    assert!(said.contains("1-0: <@alice> wins (time)."), "{said}");
    assert!(game(&core).is_none());
    let done = last_finished(&core);
    let res = done.result.unwrap();
    assert_eq!((res.outcome, res.reason.as_str(), res.at), (Outcome::WhiteWins, "time", Timestamp(flag)));
    assert_eq!(done.moves.len(), 1);
    assert_eq!(done.clock.unwrap().black_ms, 0);
}

#[test]
fn the_tick_calls_a_fallen_flag_and_a_late_move_is_answered_kindly() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "3+0");
    say(&core, "alice", "e4", T0 + 10 * SECOND);
    // bob uses 10 s of his 3 minutes, then lets the rest run out.
    say(&core, "bob", "e5", T0 + 20 * SECOND);
    say(&core, "alice", "Nf3", T0 + 30 * SECOND);
    let flag = T0 + 30 * SECOND + 3 * MINUTE - 10 * SECOND;
    let said = tick(&core, flag + FLAG_GRACE_MS);
    assert!(said.contains("<@bob> ran out of time. 1-0: <@alice> wins (time)."), "{said}");
    // Rated as usual: both sides moved.
    assert!(said.contains("<@alice> 1") && said.contains("(+"), "{said}");
    assert!(game(&core).is_none());
    assert_eq!(last_finished(&core).result.unwrap().at, Timestamp(flag));
    // bob's move, sent after his flag fell, arrives after the tick.
    let said = texts(&say(&core, "bob", "Nc6", flag + 4 * SECOND));
    assert!(said.contains("is over: your time ran out before this move was sent"), "{said}");
    // Nothing more to call.
    assert!(tick(&core, flag + MINUTE).is_empty());
}

/// A game whose second player never moved is not rated, however it ends:
/// it was never really played.
#[test]
fn a_flag_that_falls_before_both_sides_moved_changes_no_rating() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "3+0");
    say(&core, "alice", "e4", T0 + 10 * SECOND);
    let flag = T0 + 10 * SECOND + 3 * MINUTE;
    let said = tick(&core, flag + FLAG_GRACE_MS);
    assert!(said.contains("<@bob> ran out of time. 1-0: <@alice> wins (time)."), "{said}");
    assert!(said.contains("Not rated: the game ended before both sides had moved."), "{said}");
    assert!(!said.contains("(+"), "{said}");
    let res = last_finished(&core).result.unwrap();
    assert!(res.white_rating.is_none() && res.black_rating.is_none());
}

#[test]
fn a_player_is_reminded_once_under_a_tenth_of_the_base_time() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "10+0");
    // White's clock runs from the start: a tenth of 10 minutes is left at 9:00.
    assert!(tick(&core, T0 + 9 * MINUTE - 1).is_empty());
    let said = tick(&core, T0 + 9 * MINUTE + 2 * SECOND);
    assert!(said.contains("<@alice>, 0:58 left on your clock (game"), "{said}");
    assert!(tick(&core, T0 + 9 * MINUTE + 10 * SECOND).is_empty());
    // alice moves with 30 s left; bob is reminded in his turn, alice never again.
    say(&core, "alice", "e4", T0 + 9 * MINUTE + 30 * SECOND);
    let bob_turn = T0 + 9 * MINUTE + 30 * SECOND;
    assert!(tick(&core, bob_turn + 9 * MINUTE - 1).is_empty());
    assert!(tick(&core, bob_turn + 9 * MINUTE).contains("<@bob>, 1:00 left on your clock"));
    say(&core, "bob", "e5", bob_turn + 9 * MINUTE + SECOND);
    assert_eq!(tick(&core, bob_turn + 9 * MINUTE + 2 * SECOND), "");
    let c = game(&core).unwrap().clock.unwrap();
    assert_eq!((c.white_ms, c.reminded.len()), (30_000, 2));
}

#[test]
fn games_lists_the_clocks_and_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "10+5");
    say(&core, "alice", "e4", T0 + 20 * SECOND);
    // Listed 30 s into bob's turn: bob's clock has run.
    let listed = texts(&say(&core, "alice", "/games", T0 + 50 * SECOND));
    assert!(listed.contains("<@bob>'s move (10+5: alice 9:45 — bob 9:30)"), "{listed}");
    // A correspondence game elsewhere: its deadline.
    let msg = |who: &str, text: &str, at: u64| Incoming {
        platform: "test".into(),
        channel: "c2".into(),
        sender: User { id: who.into(), name: who.into() },
        text: text.into(),
        message_id: None,
        at: Timestamp(at),
        private: false,
        manages: None,
    };
    core.handle(&msg("carol", "/challenge @dave white days 3", T0));
    core.handle(&msg("dave", "/accept", T0));
    let said = texts(&core.handle(&msg("carol", "e4", T0 + 6 * 3_600_000)));
    // 18:00 on Friday plus three days: Monday 18:00 UTC.
    assert!(said.contains("<@dave>, your move: you have until Monday 18:00 UTC."), "{said}");
    let listed = texts(&core.handle(&msg("dave", "/games", T0 + 7 * 3_600_000)));
    assert!(listed.contains("dave has until Monday 18:00 UTC"), "{listed}");
}

#[test]
fn the_bot_plays_on_a_clock_that_stands() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let said = texts(&say(&core, "alice", "/challenge @kibitz white 5+3 level 1", T0));
    assert!(said.contains("Chess, 5+3, me at level 1"), "{said}");
    let said = texts(&say(&core, "alice", "e4", T0 + 10 * SECOND));
    // alice: 5:00 - 0:10 + 0:03; the bot answered at once, charged nothing.
    assert!(said.contains("<@kibitz> played"), "{said}");
    assert!(said.ends_with("alice 4:53 — kibitz 5:00."), "{said}");
    let c = game(&core).unwrap().clock.unwrap();
    assert_eq!(
        (c.white_ms, c.black_ms, c.running, c.since),
        (293_000, 300_000, Colour::White, Timestamp(T0 + 10 * SECOND))
    );
}

#[test]
fn clocks_are_asked_for_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    for (text, says) in [
        ("/challenge @bob 0+0", "A clock gives 1 to 180 minutes for the game, not 0."),
        ("/challenge @bob 200+5", "A clock gives 1 to 180 minutes for the game, not 200."),
        ("/challenge @bob 10+", "'10+' is no clock: write minutes+seconds, like 10+5"),
        ("/challenge @bob days 2 10+5", "days per move or a chat clock, not both"),
        ("/challenge @bob clash 10+5", "Clash of the Armies matches have no chat clock"),
    ] {
        let said = texts(&say(&core, "alice", text, T0));
        assert!(said.contains(says), "{text}: {said}");
    }
    // Nothing was changed: no challenge is open.
    assert!(core.store().challenges(&ChannelKey::new("test", "c1")).unwrap().is_empty());
}

/// The caption of a board with clocks: the players, whose turn, and both
/// clocks on a line of their own. A golden picture, reviewed by eye;
/// `KIBITZ_BLESS=1` rewrites it.
#[test]
fn the_caption_shows_both_clocks() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "10+5");
    let replies = say(&core, "alice", "e4", T0 + 20 * SECOND);
    let png: &[u8] = &replies[0].picture.as_ref().expect("a board").bytes;
    let golden = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/caption-clocks.png");
    if std::env::var_os("KIBITZ_BLESS").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, png).unwrap();
        return;
    }
    let expected = std::fs::read(&golden).unwrap_or_default();
    if expected.as_slice() != png {
        let actual = std::env::temp_dir().join("caption-clocks.png");
        std::fs::write(&actual, png).unwrap();
        panic!("the caption with clocks differs from {}: review {}", golden.display(), actual.display());
    }
}

/// A challenge waits an hour for its answer on a chat clock (its challenger
/// is at the board) and a day otherwise; after that it lapses, goes, and
/// accepting it starts nothing.
#[test]
fn a_challenge_left_unanswered_lapses() {
    const HOUR: u64 = 60 * MINUTE;
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    say(&core, "alice", "/challenge @bob white 5+0", T0);
    let late = texts(&say(&core, "bob", "/accept", T0 + HOUR + SECOND));
    assert_eq!(
        late,
        "<@alice>'s challenge has lapsed: it went unanswered longer than a challenge waits (an hour for a game on a \
         chat clock). <@alice> can challenge again."
    );
    assert!(game(&core).is_none());
    assert!(core.store().challenge(&ChannelKey::new("test", "c1"), "alice").unwrap().is_none(), "it is gone");
    // Without a clock a challenge waits a day, and within it is accepted.
    say(&core, "alice", "/challenge @bob white", T0 + 2 * HOUR);
    let named = texts(&say(&core, "bob", "/accept @alice", T0 + 2 * HOUR + 24 * HOUR + SECOND));
    assert!(named.contains("has lapsed") && named.contains("(a day)"), "{named}");
    say(&core, "alice", "/challenge @bob white", T0 + 30 * HOUR);
    let taken = texts(&say(&core, "bob", "/accept", T0 + 30 * HOUR + 23 * HOUR));
    assert!(taken.contains("moves first"), "{taken}");
}
