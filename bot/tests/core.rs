//! The chat core under pressure: racing moves, retried deliveries, the
//! correspondence clock, and arbitrary text.

use std::sync::Arc;

use kibitz_bot::core::{Core, CoreConfig, Incoming, Reply, User};
use kibitz_storage::{ChannelKey, Store, Timestamp};
use proptest::prelude::*;

const HOUR: u64 = 3_600_000;

fn core(dir: &std::path::Path) -> Core {
    let config =
        CoreConfig { hint_time: std::time::Duration::from_millis(50), board_size: 160, ..CoreConfig::default() };
    Core::new(Store::open(dir).unwrap(), config)
}

fn say(core: &Core, who: &str, text: &str, at: u64, id: Option<&str>) -> Vec<Reply> {
    let msg = Incoming {
        platform: "test".into(),
        channel: "c1".into(),
        sender: User { id: who.into(), name: who.into() },
        text: text.into(),
        message_id: id.map(str::to_string),
        at: Timestamp(at),
        private: false,
        manages: None,
    };
    core.handle(&msg)
}

fn start(core: &Core, extra: &str, at: u64) {
    say(core, "alice", &format!("/challenge @bob white {extra}"), at, None);
    let r = say(core, "bob", "/accept", at, None);
    assert!(r[0].text.contains("moves first"), "{r:?}");
}

fn moves_played(core: &Core) -> usize {
    let channel = ChannelKey::new("test", "c1");
    core.store().player_game_in_channel(&channel, "alice").unwrap().map_or(0, |g| g.moves.len())
}

#[test]
fn racing_moves_never_both_apply() {
    let dir = tempfile::tempdir().unwrap();
    let core = Arc::new(core(dir.path()));
    start(&core, "", 0);
    // Two different moves by the player to move, at the same time.
    let threads: Vec<_> = [("e4", "m1"), ("d4", "m2")]
        .into_iter()
        .map(|(mv, id)| {
            let core = core.clone();
            std::thread::spawn(move || say(&core, "alice", mv, 1, Some(id)))
        })
        .collect();
    let answers: Vec<Vec<Reply>> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(moves_played(&core), 1, "{answers:?}");
    let played = answers.iter().filter(|a| a.iter().any(|r| r.text.contains("played"))).count();
    assert_eq!(played, 1, "{answers:?}");
}

#[test]
fn a_retried_delivery_applies_once() {
    let dir = tempfile::tempdir().unwrap();
    let core = Arc::new(core(dir.path()));
    start(&core, "", 0);
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let core = core.clone();
            std::thread::spawn(move || say(&core, "alice", "/move e4", 1, Some("same-message")))
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(moves_played(&core), 1);
    // Delivered again later: still once, and answered with what it did (as
    // a second process that took the same delivery answers: its answer may
    // be the one stored), not with a refusal.
    let again = say(&core, "alice", "/move e4", 2, Some("same-message"));
    assert_eq!(again.len(), 1, "{again:?}");
    assert!(again[0].text.starts_with("Game ") && again[0].text.contains("<@alice> played e4."), "{again:?}");
    assert_eq!(moves_played(&core), 1);
}

#[test]
fn correspondence_clock_reminds_once_then_ends_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "days 1", 0);
    assert!(core.tick(Timestamp(12 * HOUR), "test").is_empty());
    let reminder = core.tick(Timestamp(19 * HOUR), "test");
    assert_eq!(reminder.len(), 1);
    assert!(reminder[0].1.text.contains("<@alice>, it is your move"), "{reminder:?}");
    assert!(reminder[0].1.text.contains("5 hours left"), "{reminder:?}");
    assert!(core.tick(Timestamp(20 * HOUR), "test").is_empty(), "reminded once only");
    // A move restarts the clock for the other side.
    say(&core, "alice", "e4", 20 * HOUR, None);
    assert!(core.tick(Timestamp(30 * HOUR), "test").is_empty());
    let reminder = core.tick(Timestamp(40 * HOUR), "test");
    assert!(reminder[0].1.text.contains("<@bob>"), "{reminder:?}");
    let end = core.tick(Timestamp(44 * HOUR + 1), "test");
    // The loss, then what follows every game's end: its replay and the
    // Rematch button.
    assert!(end[0].1.text.contains("<@bob> ran out of time"), "{end:?}");
    assert!(end[1..].iter().any(|(_, r)| r.picture.as_ref().is_some_and(|p| p.is_animation())), "{end:?}");
    assert!(end[1..].iter().any(|(_, r)| r.buttons.iter().any(|b| b.label == "Rematch")), "{end:?}");
    assert!(end[1..].iter().all(|(_, r)| !r.text.contains("ran out of time")), "one loss: {end:?}");
    assert!(end[0].1.text.contains("1-0"), "{end:?}");
    assert_eq!(moves_played(&core), 0, "the game is over and archived");
}

#[test]
fn hints_are_legal_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "hints on", 0);
    let hint = say(&core, "alice", "/hint", 1, None);
    let text = &hint[0].text;
    let canonical = text.split('(').nth(1).and_then(|s| s.split(')').next()).unwrap();
    let played = say(&core, "alice", &format!("/move {canonical}"), 2, None);
    assert!(played[0].text.contains("played"), "{text} then {played:?}");
    let pgn = say(&core, "bob", "/pgn", 3, None);
    assert!(pgn[0].text.contains("{hint}"), "{pgn:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Nothing a user types panics the bot or changes the game wrongly.
    #[test]
    fn any_text_is_answered_safely(texts in proptest::collection::vec(
        prop_oneof![
            "\\PC{0,40}",
            "/[a-z]{1,10}( [a-zA-Z0-9@+#=]{0,8}){0,3}",
            "!(move|moves|board|draw|takeback|resign|abort|pgn|fen) [a-h1-8@A-Z]{0,6}",
            "[a-hKQRBNOSGP][1-8x@a-h=+#-]{1,6}",
        ],
        1..12,
    )) {
        let dir = tempfile::tempdir().unwrap();
        let core = core(dir.path());
        start(&core, "", 0);
        for (i, t) in texts.iter().enumerate() {
            let who = if i % 2 == 0 { "alice" } else { "bob" };
            say(&core, who, t, i as u64 + 1, None);
        }
        // Whatever happened, the stored game is still readable and consistent.
        let channel = ChannelKey::new("test", "c1");
        if let Some(g) = core.store().player_game_in_channel(&channel, "alice").unwrap() {
            let r = say(&core, "carol", &format!("/fen {}", g.key.id.as_str()), 99, None);
            prop_assert_eq!(&r[0].text, &g.fen);
        }
    }
}

#[test]
fn the_bot_answers_to_its_platform_name() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    // A Discord bot is mentioned by its user id, a Telegram bot by its username.
    core.set_bot_id("test", "4242");
    let r = say(&core, "alice", "/challenge @4242 chess black level 1", 0, None);
    assert!(r[0].text.contains("<@4242> (White) vs <@alice> (Black)"), "{r:?}");
    assert!(r[0].text.contains("<@4242> played"), "the bot moves first: {r:?}");
    let legal = say(&core, "alice", "/moves", 1, None);
    let first = legal[0].text.lines().nth(1).and_then(|l| l.split(": ").nth(1)).and_then(|m| m.split(' ').next());
    let answer = say(&core, "alice", first.unwrap(), 2, None);
    assert!(answer[0].text.contains("<@4242> played"), "the bot answers: {answer:?}");
}

#[test]
fn a_bot_stopped_before_its_move_moves_on_the_clock_tick() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    say(&core, "alice", "/challenge @kibitz chess white level 3", 0, None);
    // alice's move is stored, but the bot was stopped before it answered.
    let channel = ChannelKey::new("test", "c1");
    let r = core.store().player_game_in_channel(&channel, "alice").unwrap().unwrap();
    let mv =
        kibitz_storage::MoveRecord { text: "e2e4".into(), by: "alice".into(), at: Timestamp(1_000), message_id: None };
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    core.store().apply_move(&r.key, r.version, mv, fen).unwrap();
    assert!(core.tick(Timestamp(20_000), "test").is_empty(), "within a minute the bot may be answering still");
    let notices = core.tick(Timestamp(HOUR), "test");
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].1.text.contains("<@kibitz> played"), "{:?}", notices[0].1.text);
    assert!(notices[0].1.text.contains("<@alice>, your move"), "{:?}", notices[0].1.text);
    assert_eq!(moves_played(&core), 2);
    assert!(core.tick(Timestamp(2 * HOUR), "test").is_empty());
}

#[test]
fn a_move_refused_by_a_full_disk_is_not_played_and_works_later() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    let fen = |core: &Core| say(core, "bob", "/fen", 2, None).iter().map(|r| r.text.clone()).collect::<String>();
    let before = fen(&core);
    assert!(before.contains("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"), "{before}");
    core.store().fail_next_sync();
    let refused = say(&core, "alice", "e4", 1, Some("full-1"));
    let text: String = refused.iter().map(|r| r.text.clone()).collect();
    assert!(text.contains("storage is full; nothing was changed, try again later"), "{text}");
    assert!(!text.contains("Os {") && !text.contains("code"), "{text}");
    // The game is as stored: no e4, in /fen or in the store.
    assert_eq!(fen(&core), before);
    assert_eq!(moves_played(&core), 0);
    // Room again: the same move is played.
    let played = say(&core, "alice", "e4", 3, Some("full-2"));
    assert!(played.iter().any(|r| r.text.contains("played")), "{played:?}");
    assert_eq!(moves_played(&core), 1);
    assert!(fen(&core).contains("4P3"), "{}", fen(&core));
}

fn finished(core: &Core) -> bool {
    let channel = ChannelKey::new("test", "c1");
    core.store().player_game_in_channel(&channel, "alice").unwrap().is_none()
}

#[test]
fn a_resignation_waits_for_its_confirmation() {
    const MINUTE: u64 = 60_000;
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    say(&core, "alice", "e4", MINUTE, None);
    // A second /resign after the two minutes have passed asks again.
    let asked = say(&core, "bob", "/resign", 2 * MINUTE, None);
    assert!(asked[0].text.contains("Confirm with /resign yes"), "{asked:?}");
    let commands: Vec<&str> = asked[0].buttons.iter().map(|b| b.command.as_str()).collect();
    assert_eq!(commands, ["/resign yes", "/resign no"]);
    let again = say(&core, "bob", "/resign", 4 * MINUTE + 1, None);
    assert!(again[0].text.contains("Confirm with /resign yes") && !finished(&core), "{}", again[0].text);
    // A takeback in between withdraws the question, even when the same
    // moves are played again.
    say(&core, "bob", "e5", 5 * MINUTE, None);
    say(&core, "bob", "/resign", 5 * MINUTE + 1, None);
    say(&core, "alice", "/takeback", 5 * MINUTE + 2, None);
    let back = say(&core, "bob", "/takeback", 5 * MINUTE + 3, None);
    assert!(back[0].text.contains("2 moves taken back"), "{}", back[0].text);
    say(&core, "alice", "e4", 5 * MINUTE + 4, None);
    say(&core, "bob", "e5", 5 * MINUTE + 5, None);
    let asked = say(&core, "bob", "/resign", 5 * MINUTE + 6, None);
    assert!(asked[0].text.contains("Confirm with /resign yes") && !finished(&core), "{}", asked[0].text);
    // Within the two minutes, on the same position, the second one counts.
    let done = say(&core, "bob", "/resign", 6 * MINUTE, None);
    assert!(done[0].text.contains("1-0: <@alice> wins (resignation)") && finished(&core), "{}", done[0].text);
}

/// The question a `/resign` asks is kept with the game: after a restart the
/// second `/resign` still confirms it and `/resign no` still withdraws it,
/// and a retried delivery of the first is asked again, not taken for the
/// confirmation.
#[test]
fn a_resignation_question_survives_a_restart_and_a_redelivery() {
    let dir = tempfile::tempdir().unwrap();
    {
        let core = core(dir.path());
        start(&core, "", 0);
        say(&core, "alice", "e4", 1, None);
        let asked = say(&core, "bob", "/resign", 2, Some("r1"));
        assert!(asked[0].text.contains("Confirm with /resign yes"), "{asked:?}");
        let again = say(&core, "bob", "/resign", 3, Some("r1"));
        assert_eq!(again[0].text, asked[0].text);
        assert!(!finished(&core));
        // Withdrawn, and the withdrawal delivered twice.
        assert_eq!(say(&core, "bob", "/resign no", 4, Some("n1"))[0].text, "<@bob> plays on.");
        assert_eq!(say(&core, "bob", "/resign no", 5, Some("n1"))[0].text, "<@bob> plays on.");
        let nothing = say(&core, "bob", "/resign no", 6, Some("n2"));
        assert!(nothing[0].text.starts_with("You have not asked to resign this position"), "{}", nothing[0].text);
        say(&core, "bob", "/resign", 7, Some("r2"));
    }
    // The bot restarts: the question still stands.
    let core = core(dir.path());
    let channel = ChannelKey::new("test", "c1");
    let game = core.store().player_game_in_channel(&channel, "bob").unwrap().unwrap();
    assert_eq!(game.resign_asks.len(), 1);
    let done = say(&core, "bob", "/resign", 8, Some("r3"));
    assert!(done[0].text.contains("1-0: <@alice> wins (resignation)") && finished(&core), "{}", done[0].text);
}

/// The confirmation's buttons are on every screen: the opponent pressing
/// "Yes, resign" (sending `/resign yes`) resigns nothing, and the question
/// stays the asker's to answer.
#[test]
fn the_opponent_answering_a_resignation_question_resigns_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    say(&core, "alice", "e4", 1, None);
    let asked = say(&core, "alice", "/resign", 2, None);
    assert!(asked[0].text.contains("Confirm with /resign yes"), "{asked:?}");
    let pressed = say(&core, "bob", "/resign yes", 3, None);
    assert_eq!(
        pressed[0].text,
        "That question was <@alice>'s, not yours: your game goes on. To resign yourself, send /resign."
    );
    assert!(!finished(&core));
    let done = say(&core, "alice", "/resign yes", 4, None);
    assert!(done[0].text.contains("0-1: <@bob> wins (resignation)") && finished(&core), "{}", done[0].text);
}

/// `/accept draw` and `/accept takeback` take the opponent's offer of that
/// kind (as `/decline draw` declines it); without one they say so and offer
/// nothing.
#[test]
fn accept_draw_takes_the_offer_and_makes_none() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    say(&core, "alice", "e4", 1, None);
    let none = say(&core, "bob", "/accept draw", 2, None);
    assert_eq!(none[0].text, "There is no draw offer to accept.");
    let channel = ChannelKey::new("test", "c1");
    assert!(core.store().player_game_in_channel(&channel, "alice").unwrap().unwrap().offers.is_empty());
    say(&core, "alice", "/draw", 3, None);
    let own = say(&core, "alice", "/accept draw", 4, None);
    assert!(own[0].text.starts_with("That draw offer is your own"), "{}", own[0].text);
    let taken = say(&core, "bob", "/accept draw", 5, None);
    assert!(taken[0].text.contains("1/2-1/2: draw (agreement)"), "{}", taken[0].text);
    assert!(finished(&core));
}

#[test]
fn declining_an_offer_changes_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    say(&core, "alice", "e4", 1, None);
    say(&core, "alice", "/draw", 2, None);
    let declined = say(&core, "bob", "/decline", 3, Some("d1"));
    assert_eq!(declined[0].text, "<@bob> declines the draw offer of <@alice>. Play goes on.");
    let channel = ChannelKey::new("test", "c1");
    let game = core.store().player_game_in_channel(&channel, "alice").unwrap().unwrap();
    assert!(game.offers.is_empty() && game.moves.len() == 1 && game.result.is_none());
    // The offer can be made again, and accepted.
    say(&core, "alice", "/draw", 4, None);
    let drawn = say(&core, "bob", "/draw", 5, None);
    assert!(drawn[0].text.contains("1/2-1/2"), "{}", drawn[0].text);
}

#[test]
fn a_long_games_pgn_comes_whole_as_a_file() {
    use kibitz_rules::{Game, Variant};
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    // A long game, its moves drawn by a seeded generator, played through
    // the core as the players would type them.
    let mut game = Game::new(Variant::by_id("chess").unwrap());
    let mut seed: u64 = 7;
    let mut sans = Vec::new();
    while game.outcome().is_none() && sans.len() < 400 {
        let legal = game.legal_moves();
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let m = legal[(seed >> 33) as usize % legal.len()];
        let san = game.position().san(&m);
        let who = if sans.len().is_multiple_of(2) { "alice" } else { "bob" };
        let answer = say(&core, who, &san, 1_000 + sans.len() as u64, None);
        assert!(answer.iter().any(|r| r.text.contains("played")), "{san}: {answer:?}");
        game.play(m).unwrap();
        sans.push(san);
    }
    let replies = say(&core, "alice", "/pgn", 5_000, None);
    assert_eq!(replies.len(), 1, "{replies:?}");
    let reply = &replies[0];
    let file = reply.picture.as_ref().expect("the PGN as a file");
    assert!(file.is_document() && file.name.ends_with(".pgn"), "{}", file.name);
    assert!(reply.text.contains("too long for one message") && reply.text.contains(&file.name), "{}", reply.text);
    let pgn = String::from_utf8(file.bytes.clone()).unwrap();
    assert!(pgn.len() > kibitz_bot::core::REPLY_LIMIT, "the game is too short to test this: {} plies", sans.len());
    // All of it: every move in order, and the result the tag gives last.
    let movetext: Vec<&str> = pgn
        .lines()
        .filter(|l| !l.starts_with('['))
        .flat_map(str::split_whitespace)
        .filter(|w| !w.ends_with('.') && !w.starts_with('{') && !w.ends_with('}'))
        .collect();
    let (result, played) = movetext.split_last().unwrap();
    assert_eq!(played, &sans.iter().map(String::as_str).collect::<Vec<_>>()[..]);
    let tag = pgn.lines().find_map(|l| l.strip_prefix("[Result \"")).unwrap().trim_end_matches("\"]");
    assert_eq!(*result, tag);
    assert_eq!(game.outcome().is_some(), tag != "*");
    // A short game's PGN is still the message itself.
    let dir = tempfile::tempdir().unwrap();
    let core = self::core(dir.path());
    start(&core, "", 0);
    say(&core, "alice", "e4", 1, None);
    let short = say(&core, "alice", "/pgn", 2, None);
    assert!(short[0].picture.is_none() && short[0].text.contains("1. e4 *"), "{short:?}");
}

#[test]
fn moves_with_a_move_shows_the_piece_that_makes_it() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    // A legal move: the piece's moves, with the picture marking them.
    let r = say(&core, "alice", "/moves Nf3", 1, None);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].text, "Nf3 is a legal move. Knight g1 (2 moves): Nf3 Nh3");
    assert!(r[0].picture.is_some());
    // One shaped like a game id that names no game is read as a move.
    let r = say(&core, "alice", "/moves Kxe2", 2, None);
    assert_eq!(
        r[0].text,
        "Kxe2 is not possible: your pawn stands on e2. No piece of that kind has a legal move now; /moves lists the \
         moves you have."
    );
    // An illegal move gets its reason; the waiting side's example is its own square.
    let r = say(&core, "bob", "/moves Nf3", 3, None);
    assert!(r[0].text.starts_with("Nf3 is not possible: no knight of yours can reach f3"), "{}", r[0].text);
    assert!(r[0].text.ends_with("/moves b8 shows the moves of the piece on b8."), "{}", r[0].text);
    let r = say(&core, "alice", "/moves N6", 4, None);
    assert_eq!(r[0].text, "'N6' is not a square (try b1).");
    let r = say(&core, "alice", "/moves xyz", 4, None);
    assert_eq!(r[0].text, "'xyz' is not a square or a move. /moves b1 shows the moves of the piece on b1.");
    // Nothing was played.
    assert_eq!(moves_played(&core), 0);
}

#[test]
fn rules_without_a_variant_tell_the_game_played_here() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    // No game here: the default game, and the others by their ids.
    let r = say(&core, "alice", "/rules", 0, None);
    assert!(r[0].text.starts_with("Chess: "), "{}", r[0].text);
    assert!(r[0].text.contains("The other games: olympic, alapawn,") && r[0].text.contains("clash"), "{}", r[0].text);
    start(&core, "olympic", 1);
    // A player and a watcher alike get the rules of the game here.
    for who in ["alice", "carol"] {
        let r = say(&core, who, "/rules", 2, None);
        assert!(r[0].text.starts_with("Olympic Chess: "), "{who}: {}", r[0].text);
        assert!(!r[0].text.contains("The other games"), "{}", r[0].text);
    }
    // Named, the game asked for.
    assert!(say(&core, "alice", "/rules alapawn", 3, None)[0].text.starts_with("Alapawn: "));
}

#[test]
fn a_move_after_the_end_is_told_the_game_is_over() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    for (i, (who, m)) in [("alice", "f3"), ("bob", "e5"), ("alice", "g4"), ("bob", "Qh4#")].into_iter().enumerate() {
        say(&core, who, m, 1 + i as u64, None);
    }
    // The loser's next move, and the winner's: the game is over.
    for who in ["alice", "bob"] {
        let r = say(&core, who, "Kf2", 10, None);
        assert_eq!(r.len(), 1, "{who}: {r:?}");
        assert!(r[0].text.contains("here is over (0-1 by checkmate)"), "{}", r[0].text);
    }
    // Chat stays chat, and a watcher's move-shaped chat gets nothing.
    assert!(say(&core, "alice", "gg", 11, None).is_empty());
    assert!(say(&core, "carol", "e4", 12, None).is_empty());
    // Hours later a move-shaped message is chat again.
    assert!(say(&core, "alice", "Kf2", 10 + 2 * HOUR, None).is_empty());
}

#[test]
fn a5_the_removed_pieces_are_named_by_side_and_kind() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "alapawn", 0);
    let moves = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"];
    for (i, m) in moves.iter().enumerate() {
        let who = if i % 2 == 0 { "alice" } else { "bob" };
        say(&core, who, m, 1 + i as u64, None);
    }
    // The start position a third time: each side's last moved piece goes.
    let r = say(&core, "bob", "Ng8", 20, None);
    assert!(
        r[0].text.contains(
            "The position came a third time, so each side's last moved piece goes (A5): White's knight on g1 and Black's knight on g8 are removed."
        ),
        "{}",
        r[0].text
    );
    let channel = ChannelKey::new("test", "c1");
    let game = core.store().player_game_in_channel(&channel, "alice").unwrap().unwrap();
    let board = game.fen.split(' ').next().unwrap().to_string();
    assert_eq!(board, "rnbqkb1r/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R");
}

/// PA3: a declined absorption is said in words beside the SAN's `-`, and an
/// absorbed one names what the piece became.
#[test]
fn pa3_the_reply_says_whether_the_capture_absorbed_or_declined() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "absorption", 0);
    for (i, m) in ["e4", "d5", "Bb5+", "c6"].iter().enumerate() {
        let who = if i % 2 == 0 { "alice" } else { "bob" };
        say(&core, who, m, 1 + i as u64, None);
    }
    let r = say(&core, "alice", "Bxc6+ keep", 10, None);
    assert!(
        r[0].text.starts_with(
            "<@alice> played Bxc6-+ (b5c6-). The bishop declines the pawn's powers and keeps its own (PA3). Check!"
        ),
        "{}",
        r[0].text
    );
    let r = say(&core, "bob", "Nxc6", 11, None);
    assert!(r[0].text.contains("The knight is now Bishop+Knight."), "{}", r[0].text);
    assert!(!r[0].text.contains("declines"), "{}", r[0].text);
}

#[test]
fn c5_a_promotion_in_construction_tells_what_the_piece_is_now_and_what_the_reserve_got() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "construction", 0);
    let moves =
        ["S@a1", "S@h8", "give pawn a1", "give pawn h8", "a3", "h6", "a4", "h5", "a5", "h4", "a6", "h3", "a7", "h2"];
    for (i, m) in moves.iter().enumerate() {
        let who = if i % 2 == 0 { "alice" } else { "bob" };
        let r = say(&core, who, m, 1 + i as u64, None);
        assert!(r[0].text.contains("played"), "{m}: {r:?}");
    }
    let r = say(&core, "alice", "a8=R", 20, None);
    assert!(
        r[0].text.contains(
            "Its pawn power is used up: the piece on a8 is now static, and a rook power goes to the reserve (C5)."
        ),
        "{}",
        r[0].text
    );
    let r = say(&core, "bob", "h1=static", 21, None);
    assert!(
        r[0].text.contains("the piece on h1 is now static, and a static piece goes to the reserve (C5)."),
        "{}",
        r[0].text
    );
}

#[test]
fn o6_a_repetition_loss_says_it_loses_for_white() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "olympic", 0);
    let cycle = ["Gb2", "Gd4", "Gb1", "Gd5"];
    let mut last = Vec::new();
    for (i, m) in cycle.iter().chain(cycle.iter()).enumerate() {
        let who = if i % 2 == 0 { "alice" } else { "bob" };
        last = say(&core, who, m, 1 + i as u64, None);
    }
    assert!(
        last[0].text.contains("0-1: <@bob> wins (threefold repetition: in Olympic Chess it loses for White, O6)."),
        "{}",
        last[0].text
    );
}

#[test]
fn c2_a_drop_or_grant_begun_without_its_square_is_asked_where() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "construction", 0);
    let ask = |who: &str, text: &str| say(&core, who, text, 1, None).first().map(|r| r.text.clone());
    assert_eq!(
        ask("alice", "drop").as_deref(),
        Some("Where? drop SQUARE drops a static piece on one of your first two ranks (drop d2).")
    );
    assert_eq!(
        ask("alice", "give rook").as_deref(),
        Some("To which piece? give rook SQUARE names the piece that takes it (give rook e2).")
    );
    assert!(ask("alice", "swap").is_some_and(|t| t.contains("(swap a1)")));
    // Chat stays chat, and the player not to move is not asked.
    assert_eq!(ask("alice", "give me a break"), None);
    assert_eq!(ask("alice", "drop it"), None);
    assert_eq!(ask("bob", "drop"), None);
    assert_eq!(moves_played(&core), 0);
}

/// Help answers for the short name of a command and for a command with its
/// argument, as the commands themselves take them.
#[test]
fn help_knows_the_short_move_and_moves_with_a_square() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let m = say(&core, "alice", "/help m", 1, None);
    assert!(m[0].text.starts_with("/m is short for /move.\n/move [GAME] MOVE:"), "{}", m[0].text);
    let moves = say(&core, "alice", "/help moves e2", 2, None);
    assert!(moves[0].text.starts_with("/moves [GAME] [SQUARE|PIECE|PAGE|next]:"), "{}", moves[0].text);
    let notation = say(&core, "alice", "/help moves olympic", 3, None);
    assert!(notation[0].text.starts_with("How Olympic Chess writes moves"), "{}", notation[0].text);
}

/// The rulings messages cite (`(CA4)`, `(C6)`) are a question away: `/help
/// CA4` and `/rules CA4` say what one means, `/rules GAME` names its own.
#[test]
fn a_ruling_cited_in_a_message_is_explained_by_help() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let shot = say(&core, "alice", "/help ca4", 1, None);
    assert!(
        shot[0].text.starts_with("CA4, The War Machine (Clash of the Armies): slides one or two squares"),
        "{}",
        shot[0].text
    );
    assert!(shot[0].text.contains("shoots"), "{}", shot[0].text);
    let same = say(&core, "alice", "/rules (CA4)", 2, None);
    assert_eq!(same[0].text, shot[0].text);
    let olympic = say(&core, "alice", "/rules olympic", 3, None);
    assert!(
        olympic[0].text.contains("\nRulings O1-O6 settle the finer points: /help O1 explains one."),
        "{}",
        olympic[0].text
    );
    let repetition = say(&core, "alice", "/help O6", 4, None);
    assert!(repetition[0].text.contains("third time, White loses"), "{}", repetition[0].text);
    // An id no ruling has: which ids its group has.
    let none = say(&core, "alice", "/help CA15", 5, None);
    assert_eq!(
        none[0].text,
        "No ruling is called CA15. The rulings of Clash of the Armies are CA1-CA14: /help CA1 explains one."
    );
    assert!(say(&core, "alice", "/help", 6, None)[0].text.contains("/help CA4 what a ruling I cite says"));
}

/// An offer a move or a takeback ends is said to end: the opponent's move
/// declines a draw offer, a takeback takes a standing draw offer with it.
#[test]
fn offers_that_a_move_or_a_takeback_ends_are_said_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    say(&core, "alice", "e4", 1, None);
    say(&core, "alice", "/draw", 2, None);
    let moved = say(&core, "bob", "e5", 3, None);
    assert_eq!(moved[0].text, "<@bob> played e5 (e7e5). The move declines <@alice>'s draw offer. <@alice>, your move.");
    say(&core, "alice", "Nf3", 4, None);
    say(&core, "alice", "/draw", 5, None);
    say(&core, "bob", "/takeback", 6, None);
    let back = say(&core, "alice", "/takeback", 7, None);
    assert_eq!(back[0].text, "2 moves taken back. <@alice>'s draw offer lapses with it. <@bob>, your move.");
    let channel = ChannelKey::new("test", "c1");
    assert!(core.store().player_game_in_channel(&channel, "alice").unwrap().unwrap().offers.is_empty());
}

/// A player withdraws their own offer with `/cancel draw` (or plain
/// `/cancel` when it is the one thing of theirs standing); the opponent's
/// offers are not theirs to withdraw.
#[test]
fn an_offer_is_withdrawn_by_the_player_who_made_it() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    say(&core, "alice", "e4", 1, None);
    say(&core, "alice", "/draw", 2, None);
    let theirs = say(&core, "bob", "/cancel draw", 3, None);
    assert_eq!(theirs[0].text, "You have offered no draw: there is nothing to withdraw.");
    let again = say(&core, "alice", "/draw", 4, None);
    assert!(again[0].text.contains("/cancel draw withdraws it"), "{}", again[0].text);
    let gone = say(&core, "alice", "/cancel draw", 5, None);
    assert_eq!(gone[0].text, "<@alice> withdraws the draw offer.");
    let channel = ChannelKey::new("test", "c1");
    assert!(core.store().player_game_in_channel(&channel, "alice").unwrap().unwrap().offers.is_empty());
    let none = say(&core, "bob", "/accept draw", 6, None);
    assert_eq!(none[0].text, "There is no draw offer to accept.");
    // Plain /cancel, with no challenge open: the one offer standing.
    say(&core, "bob", "e5", 7, None);
    say(&core, "bob", "/takeback", 8, None);
    let plain = say(&core, "bob", "/cancel", 9, None);
    assert_eq!(plain[0].text, "<@bob> withdraws the takeback request.");
}

/// Days per move mean nothing against the bot, which answers at once: such
/// a challenge is refused with the reason, not played without them.
#[test]
fn days_per_move_against_the_bot_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let r = say(&core, "alice", "/challenge @kibitz days 3 level 1", 0, None);
    assert!(r[0].text.starts_with("Against me there are no days per move"), "{}", r[0].text);
    let channel = ChannelKey::new("test", "c1");
    assert!(core.store().player_game_in_channel(&channel, "alice").unwrap().is_none());
    // The buttons of a game against the bot offer no draw it would refuse.
    let r = say(&core, "alice", "/challenge @kibitz level 1 white", 1, None);
    let labels: Vec<&str> = r[0].buttons.iter().map(|b| b.label.as_str()).collect();
    assert_eq!(labels, ["Resign"], "{}", r[0].text);
}

/// A spectator's `/board` shows the game without the players' buttons.
#[test]
fn a_spectators_board_has_no_buttons() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    let player = say(&core, "alice", "/board", 1, None);
    assert!(!player[0].buttons.is_empty());
    let spectator = say(&core, "carol", "/board", 2, None);
    assert!(spectator[0].text.contains("White (alice) to move"), "{}", spectator[0].text);
    assert!(spectator[0].buttons.is_empty(), "{:?}", spectator[0].buttons);
}

/// A player plays one game at a time in a channel: starting one against the
/// bot withdraws the challenge they had open there, and says so, rather than
/// leaving it to be accepted into a refusal.
#[test]
fn a_game_against_the_bot_withdraws_the_players_open_challenge() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    say(&core, "alice", "/challenge @bob", 0, None);
    let r = say(&core, "alice", "/challenge @kibitz level 1 white", 1, None);
    assert!(
        r[0].text.ends_with("(Your challenge to <@bob> is withdrawn: a player plays one game at a time in a channel.)"),
        "{}",
        r[0].text
    );
    let channel = ChannelKey::new("test", "c1");
    assert!(core.store().challenge(&channel, "alice").unwrap().is_none());
    let r = say(&core, "bob", "/accept", 2, None);
    assert_eq!(r[0].text, "There is no challenge for you here. Start one with /challenge @friend.");
    // Without a challenge open, nothing is said of one.
    say(&core, "carol", "/challenge", 3, None);
    let r = say(&core, "dave", "/challenge @kibitz level 1 white", 4, None);
    assert!(!r[0].text.contains("withdrawn"), "{}", r[0].text);
    assert!(core.store().challenge(&channel, "carol").unwrap().is_some());
}

/// `/accept` and `/decline` of a challenge that is not the sender's to
/// answer say whose it is and what to do.
#[test]
fn a_challenge_not_the_senders_to_answer_is_said_to_be_whose() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    say(&core, "alice", "/challenge @bob", 0, None);
    let own = "That is your own challenge to <@bob>; wait for them to accept it, or /cancel it.";
    assert_eq!(say(&core, "alice", "/accept", 1, None)[0].text, own);
    assert_eq!(say(&core, "alice", "/accept @alice", 1, None)[0].text, own);
    assert_eq!(say(&core, "alice", "/decline @alice", 1, None)[0].text, own);
    assert_eq!(
        say(&core, "carol", "/decline @alice", 1, None)[0].text,
        "That challenge of <@alice> is for <@bob>, not for you: only they can decline it."
    );
    say(&core, "dave", "/challenge", 2, None);
    assert_eq!(
        say(&core, "dave", "/accept", 3, None)[0].text,
        "That is your own open challenge; wait for someone to accept it, or /cancel it."
    );
    assert_eq!(
        say(&core, "erin", "/decline @dave", 3, None)[0].text,
        "<@dave>'s challenge is open to anyone: there is nothing to decline, it simply waits for a taker (or lapses)."
    );
    // Nothing of either challenge changed.
    let channel = ChannelKey::new("test", "c1");
    assert!(core.store().challenge(&channel, "alice").unwrap().is_some());
    assert!(core.store().challenge(&channel, "dave").unwrap().is_some());
}

/// The bot plays a game with each player who asks, in the same channel at
/// once; each player still plays one game at a time there.
#[test]
fn the_bot_plays_everyone_who_asks_in_a_channel_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let alice = say(&core, "alice", "/challenge @kibitz level 1 white", 0, None);
    assert!(alice[0].text.contains("<@alice> (White) vs <@kibitz> (Black)"), "{}", alice[0].text);
    let bob = say(&core, "bob", "/challenge @kibitz level 1 white", 1, None);
    assert!(bob[0].text.contains("<@bob> (White) vs <@kibitz> (Black)"), "{}", bob[0].text);
    // Each moves in their own game, and the bot answers each.
    let e4 = say(&core, "alice", "e4", 2, None);
    assert!(e4[0].text.starts_with("<@alice> played e4 (e2e4). <@kibitz> played"), "{}", e4[0].text);
    let d4 = say(&core, "bob", "d4", 3, None);
    assert!(d4[0].text.starts_with("<@bob> played d4 (d2d4). <@kibitz> played"), "{}", d4[0].text);
    let channel = ChannelKey::new("test", "c1");
    assert_eq!(core.store().games_in_channel(&channel).unwrap().len(), 2);
    let again = say(&core, "alice", "/challenge @kibitz", 4, None);
    assert!(again[0].text.starts_with("You are already playing here."), "{}", again[0].text);
}

/// `/board black` and `/board flip` draw the board from the side asked for:
/// bob's own board, as Black, is the picture of `/board black`, and
/// `/board flip` from bob is White's view, as a spectator's plain `/board`.
#[test]
fn the_board_is_drawn_from_the_side_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "", 0);
    let png = |who: &str, text: &str| {
        let r = say(&core, who, text, 1, None);
        r[0].picture.as_ref().map(|p| p.bytes.clone()).unwrap_or_else(|| panic!("{r:?}"))
    };
    let black = png("bob", "/board");
    let white = png("carol", "/board");
    assert_ne!(black, white);
    assert_eq!(png("carol", "/board black"), black);
    assert_eq!(png("bob", "/board flip"), white);
    assert_eq!(png("alice", "/board flip"), black);
    assert_eq!(png("bob", "/board White"), white);
}
