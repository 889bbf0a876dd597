//! Game review in the chat: a finished game gets its review posted by the
//! background reviewer (an evaluation graph and the players' figures),
//! `/review` answers from the store, live games get none, a review owed
//! survives a restart, and the bot answers promptly while it reviews.

use std::io::Cursor;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kibitz_bot::core::{Core, CoreConfig, Incoming, Reply, User};
use kibitz_bot::reviewer::Reviewer;
use kibitz_rules::{Game, Variant};
use kibitz_storage::{ChannelKey, Store, Timestamp};

const PLATFORM: &str = "test";

fn config(time: Duration, depth: u32) -> CoreConfig {
    CoreConfig { board_size: 160, review_time: time, review_depth: depth, ..CoreConfig::default() }
}

fn say_in(core: &Core, channel: &str, who: &str, text: &str) -> Vec<Reply> {
    let msg = Incoming {
        platform: PLATFORM.into(),
        channel: channel.into(),
        sender: User { id: who.into(), name: who.into() },
        text: text.into(),
        message_id: None,
        at: Timestamp::now(),
        private: false,
        manages: None,
    };
    core.handle(&msg)
}

fn say(core: &Core, who: &str, text: &str) -> Vec<Reply> {
    say_in(core, "c1", who, text)
}

/// Starts a chess game in `channel`, `white` against `black`; its id.
fn start(core: &Core, channel: &str, white: &str, black: &str) -> String {
    say_in(core, channel, white, &format!("/challenge @{black} chess white"));
    let r = say_in(core, channel, black, "/accept");
    assert!(r[0].text.contains("moves first"), "{:?}", texts(&r));
    let (_, rest) = r[0].text.split_once("Game ").unwrap();
    rest[..4].to_string()
}

/// Scholar's mate, `1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6?? 4. Qxf7#`: Black's
/// third move lets White mate at once, a blunder by any measure.
fn scholars_mate(core: &Core) -> String {
    let id = start(core, "c1", "alice", "bob");
    for (who, mv) in [("alice", "e4"), ("bob", "e5"), ("alice", "Qh5"), ("bob", "Nc6"), ("alice", "Bc4")] {
        say(core, who, mv);
    }
    say(core, "bob", "Nf6");
    let r = say(core, "alice", "Qxf7#");
    assert!(r[0].text.contains("1-0"), "{:?}", texts(&r));
    id
}

/// The reviews among notices (a game's end leaves its replay there too).
fn reviews_in(notices: Vec<(ChannelKey, Reply)>) -> Vec<Reply> {
    notices.into_iter().map(|(_, r)| r).filter(|r| r.text.starts_with("Review of ")).collect()
}

/// The texts of replies, to show.
fn texts(replies: &[Reply]) -> Vec<&str> {
    replies.iter().map(|r| r.text.as_str()).collect()
}

/// Waits up to `limit` for posted reviews of the test platform; takes the
/// notices and notes them posted, as an adapter does once they are in its
/// outbox.
fn wait_for_reviews(core: &Core, limit: Duration) -> Vec<Reply> {
    let deadline = Instant::now() + limit;
    loop {
        let notices = core.take_notices(PLATFORM);
        core.notices_kept(PLATFORM);
        let reviews = reviews_in(notices);
        if !reviews.is_empty() {
            return reviews;
        }
        assert!(Instant::now() < deadline, "no review came within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The PNG's width and height, decoded.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    let decoder = png::Decoder::new(Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    (info.width, info.height)
}

fn owed(core: &Core) -> usize {
    core.store().reviews_owed(PLATFORM).unwrap().len()
}

#[test]
fn a_finished_game_gets_its_review_posted_and_review_answers_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let core = Arc::new(Core::new(Store::open(dir.path()).unwrap(), config(Duration::from_secs(5), 4)));
    let id = scholars_mate(&core);
    assert_eq!(owed(&core), 1, "the review is owed from the game's end");
    let reviewer = Reviewer::start(core.clone(), &[PLATFORM]);
    let posted = wait_for_reviews(&core, Duration::from_secs(120));
    reviewer.stop();

    assert_eq!(posted.len(), 1, "{:?}", texts(&posted));
    let review = &posted[0];
    let picture = review.picture.as_ref().expect("the evaluation graph");
    let (w, h) = png_size(&picture.bytes);
    assert!(w > 100 && h > 50, "a graph of {w}x{h}");
    let text = &review.text;
    assert!(text.starts_with(&format!("Review of game {id}: alice (White) vs bob (Black), 1-0.")), "{text}");
    // The blunder: 3... Nf6?? allowed mate in one; the review names it and a better move.
    assert!(text.contains("3... Nf6?? (blunder) — better "), "{text}");
    assert!(text.contains("\nbob: ") && text.contains("1 blunder"), "{text}");
    assert!(text.contains("\nalice: ") && text.contains(" 0 mistakes, 0 blunders, accuracy "), "{text}");
    // Posted: no longer owed, and kept.
    assert_eq!(owed(&core), 0);
    let key = ChannelKey::new(PLATFORM, "c1").game(kibitz_storage::GameId::parse(&id).unwrap());
    assert!(core.store().review_of(&key, None).unwrap().is_some());

    // `/review` answers at once from the store, with the same review.
    let started = Instant::now();
    let again = say(&core, "carol", &format!("/review {id}"));
    let took = started.elapsed();
    assert_eq!(again.len(), 1, "{:?}", texts(&again));
    assert_eq!(again[0].text, *text);
    assert!(again[0].picture.is_some());
    assert_eq!(owed(&core), 0, "nothing queued for a kept review");
    eprintln!("/review of a kept review answered in {took:?}");
    // `/review` without an id: the sender's last game here.
    assert_eq!(say(&core, "bob", "/review")[0].text, *text);

    // The PGN carries the review's evaluations and judgements.
    let pgn = say(&core, "alice", &format!("/pgn {id}"));
    assert!(pgn[0].text.contains("[%eval"), "{}", pgn[0].text);
    assert!(pgn[0].text.contains("Nf6??"), "{}", pgn[0].text);
}

#[test]
fn live_games_unknown_ids_and_empty_games_are_refused_kindly() {
    let dir = tempfile::tempdir().unwrap();
    let core = Core::new(Store::open(dir.path()).unwrap(), config(Duration::from_millis(50), 2));
    let id = start(&core, "c1", "alice", "bob");
    say(&core, "alice", "e4");
    for text in [format!("/review {id}"), "/review".to_string()] {
        let r = say(&core, "alice", &text);
        assert!(r[0].text.contains("still being played") && r[0].text.contains("hint"), "{:?}", texts(&r));
    }
    // The other player's and an onlooker's asking by id: the same.
    let r = say(&core, "carol", &format!("/review {id}"));
    assert!(r[0].text.contains(&format!("Game {id} is still being played")), "{:?}", texts(&r));
    assert_eq!(owed(&core), 0, "no review of a live game is queued");

    let r = say(&core, "carol", "/review zzzz");
    assert!(r[0].text.contains("There is no game zzzz"), "{:?}", texts(&r));
    let r = say(&core, "carol", "/review k3x9!");
    assert!(r[0].text.contains("is not a game id"), "{:?}", texts(&r));
    let r = say(&core, "dave", "/review");
    assert!(r[0].text.contains("no finished game here"), "{:?}", texts(&r));

    // An aborted game has nothing to review.
    let other = start(&core, "c2", "erin", "fred");
    say_in(&core, "c2", "erin", "/abort");
    let r = say_in(&core, "c2", "erin", &format!("/review {other}"));
    assert!(r[0].text.contains("aborted"), "{:?}", texts(&r));
    assert_eq!(owed(&core), 0);
}

#[test]
fn review_queues_a_game_that_ended_without_one() {
    let dir = tempfile::tempdir().unwrap();
    let config = CoreConfig { review_at_end: false, ..config(Duration::from_secs(5), 3) };
    let core = Core::new(Store::open(dir.path()).unwrap(), config);
    let id = scholars_mate(&core);
    assert_eq!(owed(&core), 0, "review_at_end = false: none by itself");
    let r = say(&core, "bob", &format!("/review {id}"));
    assert_eq!(r[0].text, format!("Reviewing game {id}; the review follows in a moment."));
    // Asked again before it is done: still one review owed.
    say(&core, "alice", &format!("/review {id}"));
    assert_eq!(owed(&core), 1);
    assert_eq!(core.run_reviews(PLATFORM), 1);
    let posted = wait_for_reviews(&core, Duration::from_secs(1));
    assert!(posted[0].text.contains("Nf6??"), "{:?}", texts(&posted));
    assert_eq!(owed(&core), 0);
}

#[test]
fn a_review_owed_survives_the_death_of_its_process() {
    let dir = tempfile::tempdir().unwrap();
    let id;
    {
        // A slow review (two seconds a position): the process stops in the middle of it.
        let core = Arc::new(Core::new(Store::open(dir.path()).unwrap(), config(Duration::from_secs(2), 64)));
        id = scholars_mate(&core);
        let reviewer = Reviewer::start(core.clone(), &[PLATFORM]);
        std::thread::sleep(Duration::from_millis(700));
        reviewer.stop();
        assert!(reviews_in(core.take_notices(PLATFORM)).is_empty(), "not done yet");
        assert_eq!(owed(&core), 1, "still owed");
    }
    // A new process on the same store finishes it.
    let core = Arc::new(Core::new(Store::open(dir.path()).unwrap(), config(Duration::from_secs(5), 3)));
    let reviewer = Reviewer::start(core.clone(), &[PLATFORM]);
    let posted = wait_for_reviews(&core, Duration::from_secs(120));
    drop(reviewer);
    assert!(posted[0].text.starts_with(&format!("Review of game {id}:")), "{:?}", texts(&posted));
    assert!(posted[0].text.contains("Nf6??"), "{:?}", texts(&posted));
    assert_eq!(owed(&core), 0);
}

/// A 60-ply game of chess, drawn by lot from the legal moves (no game end
/// before it): the canonical moves.
fn sixty_plies() -> Vec<String> {
    let chess = Variant::by_id("chess").unwrap();
    let mut rng = fastrand::Rng::with_seed(17);
    'again: loop {
        let mut game = Game::new(chess);
        let mut moves = Vec::new();
        while moves.len() < 60 {
            let legal = game.legal_moves();
            if legal.is_empty() || game.outcome().is_some() {
                continue 'again;
            }
            let m = legal[rng.usize(..legal.len())];
            moves.push(game.position().canonical(&m));
            game.play(m).unwrap();
        }
        if game.outcome().is_none() {
            return moves;
        }
    }
}

#[test]
fn the_bot_answers_promptly_while_it_reviews_a_long_game() {
    let dir = tempfile::tempdir().unwrap();
    // The default budget: 300 ms a position.
    let core =
        Arc::new(Core::new(Store::open(dir.path()).unwrap(), CoreConfig { board_size: 160, ..CoreConfig::default() }));
    let id = start(&core, "c1", "alice", "bob");
    for (i, mv) in sixty_plies().iter().enumerate() {
        let who = if i % 2 == 0 { "alice" } else { "bob" };
        let r = say(&core, who, mv);
        assert!(r[0].text.contains("played"), "{mv}: {:?}", texts(&r));
    }
    say(&core, "alice", "/resign");
    let r = say(&core, "alice", "/resign yes");
    assert!(r.iter().any(|r| r.text.contains("0-1")), "{:?}", texts(&r));
    // A live game elsewhere to ask about meanwhile.
    start(&core, "c2", "carol", "dave");
    say_in(&core, "c2", "carol", "e4");

    let began = Instant::now();
    let reviewer = Reviewer::start(core.clone(), &[PLATFORM]);
    let mut slowest = Duration::ZERO;
    let mut asked = 0;
    let mut posted = Vec::new();
    while began.elapsed() < Duration::from_secs(120) {
        for text in ["/board", "/moves", "/moves e7", "/games"] {
            let sent = Instant::now();
            let r = say_in(&core, "c2", "dave", text);
            let took = sent.elapsed();
            assert!(!r.is_empty(), "{text} answered");
            slowest = slowest.max(took);
            asked += 1;
        }
        posted.extend(reviews_in(core.take_notices(PLATFORM)));
        if !posted.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let review_took = began.elapsed();
    reviewer.stop();
    eprintln!(
        "review of {id} (60 plies, 300 ms a position) posted after {review_took:?}; \
         {asked} commands answered meanwhile, the slowest in {slowest:?}"
    );
    assert_eq!(posted.len(), 1, "the review was posted: {:?}", texts(&posted));
    assert!(posted[0].text.starts_with(&format!("Review of game {id}:")), "{:?}", posted[0].text);
    assert!(asked >= 20, "commands were sent during the review ({asked})");
    assert!(slowest < Duration::from_millis(500), "a command took {slowest:?} during the review");
}

/// An adapter with nothing coming in still posts a finished review at once:
/// the clock loop is woken for it (its clock runs only every minute here),
/// stores it in the outbox, and delivers it; the review is then no longer owed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_adapter_posts_a_finished_review_through_the_outbox() {
    use kibitz_bot::adapter::{clock_loop, shutdown_channel};
    use kibitz_bot::relay::{Delivery, Relay};

    let dir = tempfile::tempdir().unwrap();
    let core = Arc::new(Core::new(Store::open(dir.path()).unwrap(), config(Duration::from_secs(5), 3)));
    let relay = Arc::new(Relay::new(core.clone(), PLATFORM));
    let (stop, shutdown) = shutdown_channel();
    let (_caught_up, backlog) = tokio::sync::watch::channel(true);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Delivery>();
    let clock = tokio::spawn(clock_loop(relay, Duration::from_secs(60), backlog, shutdown, move |d| {
        let _ = tx.send(d);
    }));
    // The first clock tick comes at once; what it posts is not what this is about.
    tokio::time::sleep(Duration::from_millis(300)).await;
    while rx.try_recv().is_ok() {}

    let id = tokio::task::block_in_place(|| scholars_mate(&core));
    let began = Instant::now();
    let reviewer = Reviewer::start(core.clone(), &[PLATFORM]);
    let review = loop {
        let delivery = tokio::time::timeout(Duration::from_secs(50), rx.recv())
            .await
            .expect("the review is delivered well before the next clock tick")
            .expect("the clock loop runs");
        if delivery.reply.text.starts_with("Review of ") {
            break delivery;
        }
    };
    let took = began.elapsed();
    eprintln!("the review of {id} was delivered {took:?} after the reviewer started");
    assert!(review.reply.text.starts_with(&format!("Review of game {id}:")), "{}", review.reply.text);
    assert!(review.reply.picture.is_some());
    assert_eq!(review.channel, "c1");
    // In the outbox until the platform has it (a crash now loses nothing), and no longer owed.
    let outbox = core.store().owed(PLATFORM).unwrap();
    assert!(outbox.into_iter().any(|o| o.unwrap().seq == review.seq), "the review waits in the outbox");
    assert_eq!(owed(&core), 0);
    tokio::task::block_in_place(|| reviewer.stop());
    let _ = stop.send(true);
    clock.await.unwrap();
}
