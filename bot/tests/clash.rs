//! Clash of the Armies matches through the chat core: who may act when, the
//! limits of an army, sealed bids, the ultimate round's rules, the ends of
//! rounds and of the match.

mod common;

use kibitz_bot::core::{Action, Core, CoreConfig, Incoming, Reply, User};
use kibitz_rules::army::{Match, Phase, PieceKind, ULTIMATE_ROUND};
use kibitz_rules::{Color, Square};
use kibitz_storage::{ChannelKey, ClashMatch, GameRecord, GameSettings, NewGame, Outcome, Store, Timestamp};

const HOUR: u64 = 3_600_000;

fn core(dir: &std::path::Path) -> Core {
    Core::new(Store::open(dir).unwrap(), CoreConfig { board_size: 160, ..CoreConfig::default() })
}

fn send(core: &Core, who: &str, channel: &str, private: bool, text: &str, at: u64, id: Option<&str>) -> Vec<Reply> {
    core.handle(&Incoming {
        platform: "test".into(),
        channel: channel.into(),
        sender: User { id: who.into(), name: who.into() },
        text: text.into(),
        message_id: id.map(str::to_string),
        at: Timestamp(at),
        private,
        manages: None,
    })
}

/// In the match's channel.
fn say(core: &Core, who: &str, text: &str) -> String {
    texts(&send(core, who, "c1", false, text, 1, None))
}

/// In the sender's private chat with the bot.
fn whisper(core: &Core, who: &str, text: &str) -> String {
    texts(&send(core, who, &format!("dm-{who}"), true, text, 1, None))
}

fn texts(replies: &[Reply]) -> String {
    replies.iter().map(|r| r.text.as_str()).collect::<Vec<_>>().join("\n")
}

fn record(core: &Core) -> GameRecord {
    let channel = ChannelKey::new("test", "c1");
    core.store().player_game_in_channel(&channel, "alice").unwrap().expect("alice plays in c1")
}

fn state(core: &Core) -> Match {
    let r = record(core);
    match r.clash.unwrap().state {
        Some(v) => serde_json::from_value(v).unwrap(),
        None => Match::new(),
    }
}

/// alice (White) and bob (Black) start a match.
fn start(core: &Core, extra: &str) {
    say(core, "alice", &format!("/challenge @bob clash white {extra}"));
    let accepted = say(core, "bob", "/accept");
    assert!(accepted.contains("a match of Clash of the Armies"), "{accepted}");
}

/// Both armies: a King and a Pawn on e2/e7 each; the round begins.
fn armies(core: &Core) {
    for line in ["/buy king", "/buy pawn e2", "/ready"] {
        say(core, "alice", line);
    }
    for line in ["/buy king", "/buy pawn e7"] {
        say(core, "bob", line);
    }
    let begun = say(core, "bob", "/ready");
    assert!(begun.contains("begins"), "{begun}");
}

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

/// A match stored directly in its ultimate round, being played: White a
/// King and a Rook, Black a King; Black has draw odds.
fn ultimate(core: &Core) -> GameRecord {
    let mut m = Match::new();
    m.armies[0].add(PieceKind::King, None).unwrap();
    m.armies[0].add(PieceKind::Rook, Some(sq("a1"))).unwrap();
    m.armies[1].add(PieceKind::King, None).unwrap();
    m.round = ULTIMATE_ROUND;
    m.half_points = [2, 2];
    m.phase = Phase::Playing { round: ULTIMATE_ROUND };
    m.draw_odds = Some(Color::Black);
    stored_match(core, &m, "bob", &m.start_fen())
}

/// Stores the match `m` in c1 from `start_fen`, alice White against
/// `black` (against the bot, at level 8).
fn stored_match(core: &Core, m: &Match, black: &str, start_fen: &str) -> GameRecord {
    let clash =
        ClashMatch { state: Some(serde_json::to_value(m).unwrap()), round: m.round.into(), ..ClashMatch::default() };
    let settings = if black == "kibitz" {
        GameSettings { bot_level: Some(8), rated: false, ..GameSettings::default() }
    } else {
        GameSettings::default()
    };
    let new = NewGame {
        variant: "clash".into(),
        white: "alice".into(),
        black: black.into(),
        settings,
        start_fen: start_fen.into(),
        at: Timestamp(1),
        clash: Some(clash),
        bot: None,
    };
    core.store().create_game(&ChannelKey::new("test", "c1"), &new).unwrap()
}

/// Round 1 of a match between alice and bob under way from `fen`: each army
/// a King on its e-file square and the one piece given (the round's start
/// as bought, the board a few moves on).
fn in_round_one(core: &Core, white: (PieceKind, &str), black: (PieceKind, &str), fen: &str) -> GameRecord {
    let mut m = Match::new();
    m.armies[0].add(PieceKind::King, Some(sq("e1"))).unwrap();
    m.armies[0].add(white.0, Some(sq(white.1))).unwrap();
    m.armies[1].add(PieceKind::King, Some(sq("e8"))).unwrap();
    m.armies[1].add(black.0, Some(sq(black.1))).unwrap();
    m.phase = Phase::Playing { round: 1 };
    stored_match(core, &m, "bob", fen)
}

#[test]
fn no_moves_before_the_armies_are_ready() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    let own_phase = "Round 1 has not begun: this is your army phase. /buy PIECE [SQUARE], /sell SQUARE and /place \
                     PIECE SQUARE, then /ready; /army shows your army.";
    assert_eq!(say(&core, "alice", "/move e4"), own_phase);
    assert_eq!(say(&core, "alice", "/moves"), own_phase);
    // A bare move is not played, and is answered: the round waits for the armies.
    assert_eq!(say(&core, "alice", "e4"), own_phase);
    let waiting = "Round 1 has not begun: <@alice> is setting up an army. /army shows the armies.";
    assert_eq!(say(&core, "bob", "e5"), waiting);
    assert_eq!(say(&core, "bob", "/moves"), waiting);
    // Chat is chat, and a spectator's move-like words are not answered.
    assert_eq!(say(&core, "alice", "good luck"), "");
    assert_eq!(say(&core, "carol", "e4"), "");
    assert!(say(&core, "alice", "/fen").contains("No round is being played"));
    assert!(say(&core, "bob", "/draw").contains("No round is being played"));
    assert!(record(&core).moves.is_empty());
}

#[test]
fn only_the_player_whose_army_phase_it_is_may_change_their_army() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    assert_eq!(say(&core, "bob", "/buy king"), "White sets up first: you can buy and place after White confirms.");
    assert_eq!(say(&core, "bob", "/ready"), "White sets up first: you can buy and place after White confirms.");
    assert!(say(&core, "carol", "/buy king").contains("You have no Clash of the Armies match here"));
    assert!(say(&core, "alice", "/buy king").contains("buys a King on e1 for 5.00 gold"));
    say(&core, "alice", "/ready");
    assert_eq!(say(&core, "alice", "/buy pawn"), "You have already confirmed your army for this round.");
    assert_eq!(say(&core, "alice", "/sell e1"), "You have already confirmed your army for this round.");
    assert!(say(&core, "bob", "/buy shielderer").contains("buys a Shielderer on e8"));
    let m = state(&core);
    assert_eq!(m.army(Color::White).len(), 1);
    assert_eq!(m.army(Color::Black).leader(), Some(PieceKind::Shielderer));
    // Army commands are for matches only.
    say(&core, "dan", "/challenge @erin white");
    let send_in = |who: &str, text: &str| texts(&send(&core, who, "c1", false, text, 1, None));
    send_in("erin", "/accept");
    assert!(send_in("dan", "/buy knight").contains("not a Clash of the Armies match"));
}

#[test]
fn an_army_stays_within_its_limits() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    say(&core, "alice", "/buy queen");
    assert_eq!(say(&core, "alice", "/buy chancellor"), "You already have 1 Jewel (the most an army may hold).");
    say(&core, "alice", "/buy knight");
    say(&core, "alice", "/buy knight");
    assert_eq!(
        say(&core, "alice", "/buy knight"),
        "You already have 2 Knights (at most 2 of one kind of Light piece)."
    );
    assert!(say(&core, "alice", "/buy rook d1").contains("A Heavy piece stands on a corner of your back rank"));
    assert_eq!(say(&core, "alice", "/buy bishop c1"), "c1 is already taken by your Knight.");
    assert!(say(&core, "alice", "/sell c1").contains("sells the Knight on c1 for 3.50 gold"));
    assert!(say(&core, "alice", "/buy bishop c1").contains("buys a Bishop on c1"));
    assert!(say(&core, "alice", "/buy bishop g1").contains("squares of opposite colours"), "c1 and g1 are dark");
    assert!(say(&core, "alice", "/buy bishop f1").contains("buys a Bishop on f1"));
    assert!(say(&core, "alice", "/place f1 g1").contains("squares of opposite colours"));
    for _ in 0..8 {
        say(&core, "alice", "/buy pawn");
    }
    assert!(say(&core, "alice", "/buy omnipawn").contains("8 Peasants"));
    // 40 - 10.50 (Queen) - 3.50 (Knight) - 7.00 (Bishops) - 8.00 (Pawns) = 11.00: no General (7.00) after a
    // King (5.00) and a Rook (5.50).
    say(&core, "alice", "/buy king");
    say(&core, "alice", "/buy rook");
    assert_eq!(say(&core, "alice", "/buy general"), "That costs 7.00 gold and you have 0.50.");
    assert_eq!(
        say(&core, "alice", "/buy dragon"),
        "There is no piece called \"dragon\" in Clash of the Armies. /prices lists them."
    );
    // A slip of the keys, and a square that is none, are pointed out.
    assert_eq!(
        say(&core, "alice", "/buy war machin"),
        "There is no piece called \"war machin\" in Clash of the Armies. Did you mean War Machine?"
    );
    assert_eq!(say(&core, "alice", "/buy pawn z9"), "'z9' is not a square (try b1).");
    assert_eq!(state(&core).gold(Color::White), 2);
}

#[test]
fn a_retried_army_change_applies_once() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    let first = send(&core, "alice", "c1", false, "/buy queen", 1, Some("m1"));
    assert!(texts(&first).contains("buys a Queen"));
    assert!(send(&core, "alice", "c1", false, "/buy queen", 1, Some("m1")).is_empty());
    assert_eq!(state(&core).gold(Color::White), 160 - 42);
}

#[test]
fn a_bid_is_sent_privately_and_sealed_until_both_are_in() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    // No auction before the ultimate round.
    assert_eq!(
        whisper(&core, "alice", "/bid 5"),
        "There is no bid to send now: the auction is held only before the ultimate round."
    );
    // Straight to the auction.
    common::auction::to_the_auction(&core, "test", "c1", "alice");

    // In the channel the bid does not count, nothing of it is kept, and
    // the message is to be deleted.
    let public = say(&core, "alice", "/bid 12.5");
    assert!(public.starts_with("<@alice>, that bid was typed in public, so it does not count"), "{public}");
    assert_eq!(state(&core).auction.unwrap().bids, [None, None]);
    let actions = core.take_actions("test");
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0].0, ChannelKey::new("test", "c1"));
    assert!(matches!(&actions[0].1, Action::Delete { author, .. } if author == "alice"), "{actions:?}");
    assert!(whisper(&core, "alice", "/bid 12.25").contains("multiple of 0.5"));
    assert_eq!(
        say(&core, "bob", "e5"),
        "Round 3 has not begun: the Amazon is up for sealed bids. Send me yours in a private message: /bid AMOUNT."
    );
    assert!(whisper(&core, "alice", "/bid 41").contains("You cannot bid 41.00 gold: you have 40.00."));
    assert!(whisper(&core, "carol", "/bid 3").contains("You have no Clash of the Armies match."));
    let sealed = whisper(&core, "alice", "/bid 12.5");
    assert!(sealed.contains("Your sealed bid of 12.50 gold"), "{sealed}");
    // The match's channel hears that a bid came, not how much.
    let notices = core.take_notices("test");
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].0, ChannelKey::new("test", "c1"));
    assert!(notices[0].1.text.contains("<@alice> has sent a sealed bid"), "{notices:?}");
    assert!(!notices[0].1.text.contains("12"), "{notices:?}");
    // Nor does anything said in the channel show it, to either player.
    for who in ["alice", "bob"] {
        let army = say(&core, who, "/army");
        assert!(!army.contains("12.50"), "{army}");
    }
    assert!(say(&core, "alice", "/army").contains("Auction: your sealed bid is in"));
    assert!(whisper(&core, "alice", "/army").contains("Auction: you bid 12.50"));
    assert_eq!(whisper(&core, "alice", "/bid 13"), "You have already sent your bid; wait for your opponent's.");
    assert_eq!(
        say(&core, "alice", "e4"),
        "Round 3 has not begun: your sealed bid is in; the auction waits for <@bob>'s."
    );

    // The second bid reveals both, privately and in the channel.
    let both = whisper(&core, "bob", "/bid 10");
    assert!(both.contains("<@alice> bid 12.50, <@bob> bid 10.00"), "{both}");
    assert!(both.contains("<@alice> takes the Amazon for 12.50 gold"), "{both}");
    let notices = core.take_notices("test");
    assert_eq!(notices.len(), 1);
    assert!(notices[0].1.text.contains("<@bob> has draw odds"), "{notices:?}");
    let m = state(&core);
    assert_eq!(m.phase, Phase::Army { color: Color::White });
    assert_eq!(m.army(Color::White).jewel(), Some(PieceKind::Amazon));
    assert_eq!(m.draw_odds, Some(Color::Black));
    assert_eq!(record(&core).clash.unwrap().sealed_bids.len(), 2);
    // The auction decided, another bid is told so (CA14).
    assert_eq!(
        whisper(&core, "alice", "/bid 3"),
        "The Amazon's auction is over: the sealed bids come once, before the ultimate round, and both are in."
    );
}

#[test]
fn equal_bids_are_raised_in_turn_until_one_passes() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    let r = record(&core);
    let mut m = Match::new();
    m.round = ULTIMATE_ROUND;
    m.phase = Phase::Bidding;
    m.auction = Some(Default::default());
    m.gold = [23, 40];
    core.store()
        .update_game(&r.key, r.version, None, |g| {
            g.clash.as_mut().unwrap().state = Some(serde_json::to_value(&m).unwrap());
            Ok(())
        })
        .unwrap();
    whisper(&core, "alice", "/bid 5");
    assert!(whisper(&core, "bob", "/bid 5").contains("<@alice> (White) must raise first (CA14), to 5.50"));
    assert_eq!(
        whisper(&core, "bob", "/bid 6"),
        "The sealed bids are in, and equal: <@alice> raises or passes now, with /raise or /pass in the match's channel."
    );
    // Said to the player whose turn it is, the turn is theirs.
    assert_eq!(
        whisper(&core, "alice", "/bid 6"),
        "The sealed bids are in, and equal: it is your turn to raise or pass, with /raise or /pass in the match's \
         channel."
    );
    assert_eq!(say(&core, "bob", "/raise"), "It is <@alice> (White)'s turn to raise or pass; yours comes after.");
    // A move now is answered with the auction's turn (CA14).
    assert_eq!(
        say(&core, "bob", "e5"),
        "Round 3 has not begun: the Amazon's auction waits for <@alice> to raise or pass."
    );
    assert_eq!(
        say(&core, "alice", "e4"),
        "Round 3 has not begun: the Amazon's auction waits for you. /raise: after equal bids White raises first."
    );
    // CA14: White raises first; a pass now is refused and changes nothing.
    assert_eq!(
        say(&core, "alice", "/pass"),
        "After equal bids White, you, must raise first (CA14): /raise. Passing is possible from the next turn on."
    );
    assert!(say(&core, "alice", "/raise").contains("raises the bid to 5.50 gold"));
    // Bob raises to 6.00; Alice, with 5.75 gold, cannot go to 6.50 and so passes (CA14).
    let raised = say(&core, "bob", "/raise");
    assert!(raised.contains("raises the bid to 6.00 gold"), "{raised}");
    assert!(raised.contains("<@alice> cannot afford to raise to 6.50 gold and so passes"), "{raised}");
    assert!(raised.contains("<@bob> takes the Amazon for 6.00 gold"), "{raised}");
    assert!(raised.contains("<@alice> has draw odds"), "{raised}");
    assert_eq!(state(&core).gold(Color::Black), 40 - 24);
    assert_eq!(say(&core, "alice", "/pass"), "Nobody is raising the bid now.");
}

#[test]
fn no_draw_is_offered_in_the_ultimate_round() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    ultimate(&core);
    let refused = say(&core, "alice", "/draw");
    assert_eq!(refused, "No draw may be agreed in the ultimate round. Play on, or /resign.");
    assert_eq!(say(&core, "bob", "/draw"), refused);
    assert!(record(&core).offers.is_empty());
    // Nor is one offered by a button.
    let board = send(&core, "alice", "c1", false, "/board", 1, None);
    assert!(board[0].buttons.iter().all(|b| b.command != "/draw"), "{board:?}");
    // The round is played: a rook move.
    assert!(say(&core, "alice", "Ra8").contains("Check!"));
}

#[test]
fn a_drawn_ultimate_round_is_won_by_the_draw_odds() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    ultimate(&core);
    let mut last = String::new();
    for (i, mv) in ["Ra2", "Kd8", "Ra1", "Ke8", "Ra2", "Kd8", "Ra1", "Ke8", "Ra2"].into_iter().enumerate() {
        last = say(&core, if i % 2 == 0 { "alice" } else { "bob" }, mv);
    }
    assert!(last.contains("Round 3 is drawn (repetition). With the draw odds it counts as <@bob>'s win."), "{last}");
    assert!(last.contains("The match is over: 0-1: <@bob> wins (match 2-1)"), "{last}");
    let archived = core.store().archived_games_of("test", "bob", 1).unwrap();
    assert_eq!(archived[0].1.as_ref().unwrap().moves.len(), 9);
    // The round's review judges the draw as bob's win: the move that drew
    // it was White's blunder.
    core.run_reviews("test");
    let reviews: Vec<String> = core
        .take_notices("test")
        .into_iter()
        .map(|(_, r)| r.text)
        .filter(|t| t.starts_with("Review of round 3"))
        .collect();
    assert_eq!(reviews.len(), 1, "{reviews:?}");
    assert!(
        reviews[0].contains("bob had draw odds (CA14): a draw counts as their win, and is judged so."),
        "{}",
        reviews[0]
    );
    assert!(reviews[0].contains("Ra2??"), "{}", reviews[0]);
}

#[test]
fn resigning_the_ultimate_round_ends_the_match() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    ultimate(&core);
    // White resigns: Black wins the round and the match 2-1.
    let over = say(&core, "alice", "/resign yes");
    assert!(over.contains("The match is over: 0-1: <@bob> wins (match 2-1)"), "{over}");
    let channel = ChannelKey::new("test", "c1");
    assert!(core.store().player_game_in_channel(&channel, "alice").unwrap().is_none());
    let archived = core.store().archived_games_of("test", "alice", 1).unwrap();
    let done = archived[0].1.as_ref().unwrap();
    assert_eq!(done.result.as_ref().unwrap().outcome, Outcome::BlackWins);
    let m: Match = serde_json::from_value(done.clash.clone().unwrap().state.unwrap()).unwrap();
    assert_eq!(m.phase, Phase::Over { winner: Color::Black });
    assert_eq!(done.clash.as_ref().unwrap().rounds.len(), 1);
}

#[test]
fn an_agreed_draw_ends_a_round_and_the_match_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    armies(&core);
    assert!(say(&core, "alice", "/draw").contains("offers a draw"));
    let drawn = say(&core, "bob", "/draw");
    assert!(drawn.contains("Round 1 is drawn (agreement)"), "{drawn}");
    assert!(drawn.contains("Match score: <@alice> 0.5, <@bob> 0.5"), "{drawn}");
    let m = state(&core);
    assert_eq!((m.round, m.phase), (2, Phase::Army { color: Color::White }));
    // Both keep their armies; a new round gives 40 gold more.
    assert_eq!(m.army(Color::White).len(), 2);
    assert_eq!(m.gold(Color::White), 160 - 20 - 4 + 160);
    assert!(say(&core, "alice", "/games").contains("here: round 2, your army phase"));
    // The same armies start round 2.
    say(&core, "alice", "/ready");
    assert!(say(&core, "bob", "/ready").contains("Round 2 begins"));
    let r = record(&core);
    assert_eq!(r.start_fen, "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1");
    assert!(r.moves.is_empty());
}

#[test]
fn between_rounds_resigning_gives_up_the_match_and_before_any_round_it_may_be_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    say(&core, "alice", "/buy king");
    let aborted = say(&core, "bob", "/abort");
    assert!(aborted.contains("aborted by <@bob>, without a result"), "{aborted}");

    start(&core, "");
    armies(&core);
    let resigned = say(&core, "bob", "/resign yes");
    assert!(resigned.contains("<@bob> loses the whole army"), "{resigned}");
    assert_eq!(state(&core).army(Color::Black).len(), 0);
    assert!(say(&core, "bob", "/abort").contains("can no longer be aborted"));
    let given_up = say(&core, "bob", "/resign yes");
    assert!(given_up.contains("1-0: <@alice> wins (resignation)"), "{given_up}");
}

/// Between rounds the clock runs for the player the match waits for; each
/// of their steps starts it again. Running out loses the match (there is no
/// round to lose; giving up between rounds does the same).
#[test]
fn running_out_of_time_between_rounds_loses_the_match() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "days 1");
    let reminded = core.tick(Timestamp(18 * HOUR + 1), "test");
    assert_eq!(reminded.len(), 1, "{reminded:?}");
    assert!(
        reminded[0].1.text.contains("<@alice>, game") && reminded[0].1.text.contains("(the army phase): 6 hours left"),
        "{}",
        reminded[0].1.text
    );
    assert!(core.tick(Timestamp(19 * HOUR), "test").is_empty(), "one reminder");
    // alice buys at hour 20: her clock starts again.
    send(&core, "alice", "c1", false, "/buy king", 20 * HOUR, None);
    assert!(core.tick(Timestamp(30 * HOUR), "test").is_empty());
    let end = core.tick(Timestamp(44 * HOUR + 1), "test");
    // The loss, then what follows a match's end: the Rematch button.
    assert_eq!(end.len(), 2, "{end:?}");
    assert!(end[1].1.buttons.iter().any(|b| b.label == "Rematch"), "{end:?}");
    let text = &end[0].1.text;
    assert!(
        text.contains("<@alice> ran out of time for the army phase and loses the match. 0-1: <@bob> wins (time)"),
        "{text}"
    );
    let channel = ChannelKey::new("test", "c1");
    assert!(core.store().player_game_in_channel(&channel, "alice").unwrap().is_none());
}

#[test]
fn running_out_of_time_loses_the_round_and_the_leader() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "days 1");
    assert!(core.tick(Timestamp(10 * HOUR), "test").is_empty());
    for line in ["/buy king", "/buy pawn e2", "/ready"] {
        say(&core, "alice", line);
    }
    say(&core, "bob", "/buy king");
    // The round starts at hour 20: its clock starts then.
    let begun = texts(&send(&core, "bob", "c1", false, "/ready", 20 * HOUR, None));
    assert!(begun.contains("Round 1 begins"), "{begun}");
    assert!(core.tick(Timestamp(30 * HOUR), "test").is_empty());
    let end = core.tick(Timestamp(44 * HOUR + 1), "test");
    // The round had no move: no replay follows it, and the match goes on.
    assert_eq!(end.len(), 1, "{end:?}");
    let text = &end[0].1.text;
    assert!(text.contains("<@alice> ran out of time"), "{text}");
    assert!(text.contains("Round 1 to <@bob> (time). <@alice> loses the King."), "{text}");
    let m = state(&core);
    assert_eq!(m.army(Color::White).leader(), None);
    assert_eq!(m.half_points(Color::Black), 2);
}

#[test]
fn checkmate_ends_the_round_in_one_step_with_its_move() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    for line in ["/buy king", "/buy queen", "/buy bishop f1", "/buy pawn d2", "/buy pawn e2", "/buy pawn f2"] {
        say(&core, "alice", line);
    }
    say(&core, "alice", "/buy pawn g2");
    say(&core, "alice", "/ready");
    for line in ["/buy king", "/buy queen", "/buy pawn e7", "/ready"] {
        say(&core, "bob", line);
    }
    say(&core, "alice", "f3");
    say(&core, "bob", "e5");
    say(&core, "alice", "g4");
    let mate = send(&core, "bob", "c1", false, "Qh4", 1, Some("mate"));
    let text = texts(&mate);
    assert!(text.contains("Qh4#") && text.contains("<@alice> loses the King"), "{text}");
    assert!(mate[0].picture.is_some());
    let r = record(&core);
    assert_eq!(r.moves.len(), 4, "the mating move is kept with the round");
    assert_eq!(r.clash.as_ref().unwrap().rounds.len(), 1);
    // Delivered again: nothing more happens.
    assert!(send(&core, "bob", "c1", false, "Qh4", 1, Some("mate")).is_empty());
    let m = state(&core);
    assert_eq!((m.round, m.half_points), (2, [0, 2]));
    // The Queen went back to d8, the Pawn to e7.
    assert_eq!(m.army(Color::Black).describe(), "King e8, Queen d8, Pawn e7");
}

#[test]
fn the_bot_sets_up_first_as_white_and_opens_the_round() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let started = say(&core, "alice", "/challenge @kibitz clash black level 8");
    let m = state(&core);
    assert_eq!(m.phase, Phase::Army { color: Color::Black }, "{started}");
    let bot = m.army(Color::White);
    assert_eq!(bot.leader(), Some(PieceKind::King));
    assert!(bot.check_ready().is_ok());
    assert!(started.contains("<@kibitz> sets up first: King e1"), "{started}");
    assert!(started.contains("<@alice>, your army phase"), "{started}");
    for line in ["/buy king", "/buy pawn e7"] {
        say(&core, "alice", line);
    }
    let begun = say(&core, "alice", "/ready");
    assert!(begun.contains("Round 1 begins") && begun.contains("<@kibitz> played"), "{begun}");
    let r = record(&core);
    assert_eq!(r.moves.len(), 1, "{begun}");
    assert_eq!(r.moves[0].by, "kibitz");
}

/// A match against the bot stored in its second round, being played:
/// alice (White) won the first; the bot has Black.
fn second_round_against_the_bot(core: &Core) -> GameRecord {
    let mut m = Match::new();
    m.armies[0].add(PieceKind::King, None).unwrap();
    m.armies[0].add(PieceKind::Rook, Some(sq("a1"))).unwrap();
    m.armies[1].add(PieceKind::King, None).unwrap();
    m.armies[1].add(PieceKind::Queen, None).unwrap();
    m.round = 2;
    m.half_points = [2, 0];
    m.gold = [100, 60];
    m.phase = Phase::Playing { round: 2 };
    stored_match(core, &m, "kibitz", &m.start_fen())
}

#[test]
fn the_bot_bids_raises_sets_up_and_plays_the_ultimate_round() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    second_round_against_the_bot(&core);
    // alice resigns round 2: 1-1, the auction; the bot sends its sealed bid at once.
    let resigned = say(&core, "alice", "/resign yes");
    assert!(resigned.contains("Match score: <@alice> 1, <@kibitz> 1."), "{resigned}");
    assert!(resigned.contains("has sent a sealed bid"), "{resigned}");
    let m = state(&core);
    assert_eq!(m.phase, Phase::Bidding);
    let bot_bid = m.auction.as_ref().and_then(|a| a.bids[1]).expect("the bot's bid is in");
    assert!(bot_bid <= m.gold(Color::Black) && bot_bid.is_multiple_of(2), "{bot_bid}");
    // Its bid is sealed: not in the channel.
    let sealed = kibitz_rules::army::gold_text(bot_bid);
    assert!(
        !resigned.contains(&format!("bid {sealed}")) && !resigned.contains(&format!(" {sealed} gold")),
        "{resigned}"
    );
    // alice bids the same: she raises first; the bot goes no higher than its bid, so it passes.
    let bid = whisper(&core, "alice", &format!("/bid {}", kibitz_rules::army::gold_text(bot_bid)));
    assert_eq!(state(&core).phase, Phase::Raising { to_move: Color::White }, "{bid}");
    let raised = say(&core, "alice", "/raise");
    assert!(raised.contains("<@kibitz> passes. <@alice> takes the Amazon"), "{raised}");
    let m = state(&core);
    assert_eq!(m.auction.as_ref().and_then(|a| a.winner), Some(Color::White));
    assert_eq!(m.draw_odds, Some(Color::Black));
    assert_eq!(m.phase, Phase::Army { color: Color::White });
    // alice sets up; the bot sets up at once and the ultimate round begins.
    say(&core, "alice", "/buy king");
    let ready = say(&core, "alice", "/ready");
    let m = state(&core);
    assert_eq!(m.phase, Phase::Playing { round: ULTIMATE_ROUND }, "{ready}");
    assert!(m.army(Color::Black).check_ready().is_ok());
    assert!(m.army(Color::Black).len() > 2, "the bot spends its gold: {}", m.army(Color::Black).describe());
    assert!(ready.contains("Round 3 begins"), "{ready}");
    // alice resigns the ultimate round: the bot wins the match 2-1.
    let over = say(&core, "alice", "/resign yes");
    assert!(over.contains("The match is over: 0-1: <@kibitz> wins (match 2-1)"), "{over}");
    let r = core.store().archived_games_of("test", "alice", 1).unwrap().pop().unwrap().1.unwrap();
    assert_eq!(r.result.unwrap().outcome, Outcome::BlackWins);
}

/// A round against the bot, stored being played, from `fen`: alice White,
/// the bot Black, with these armies.
fn round_against_the_bot(core: &Core, white: &[(PieceKind, &str)], black: &[(PieceKind, &str)], fen: &str) {
    let mut m = Match::new();
    for (i, army) in [white, black].into_iter().enumerate() {
        for &(kind, square) in army {
            m.armies[i].add(kind, Some(sq(square))).unwrap();
        }
    }
    m.phase = Phase::Playing { round: 1 };
    stored_match(core, &m, "kibitz", fen);
}

#[test]
fn the_bots_checkmate_ends_the_round_and_takes_the_leader() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    let white = [(PieceKind::King, "e1"), (PieceKind::Pawn, "b2"), (PieceKind::Pawn, "f2")];
    let black = [(PieceKind::King, "e8"), (PieceKind::Rook, "a8")];
    // The round has gone on: alice's King is boxed in on g1.
    round_against_the_bot(&core, &white, &black, "r3k3/8/8/8/8/8/1P3PPP/6K1 w - - 0 20");
    let replies = send(&core, "alice", "c1", false, "b3", 1, Some("m1"));
    let text = texts(&replies);
    // The round's result, apart from the match's score.
    assert!(
        text.contains("<@kibitz> played Ra1# (a8a1). Round 1 to <@kibitz> (checkmate). <@alice> loses the King."),
        "{text}"
    );
    assert!(text.contains("Match score: <@alice> 0, <@kibitz> 1."), "{text}");
    // The picture is the round's final position.
    assert!(replies[0].picture.as_ref().is_some_and(|p| p.name.starts_with("board-")), "{text}");
    let m = state(&core);
    assert_eq!((m.round, m.half_points, m.phase), (2, [0, 2], Phase::Army { color: Color::White }));
    assert_eq!(m.army(Color::White).leader(), None, "CA13: the mated Leader is lost");
    let r = record(&core);
    assert_eq!(r.moves.last().map(|m| (m.text.as_str(), m.by.as_str())), Some(("a8a1", "kibitz")));
}

#[test]
fn a_bot_stopped_before_its_answer_catches_up_on_the_clock_tick() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    say(&core, "alice", "/challenge @kibitz clash white level 8");
    say(&core, "alice", "/buy king");
    // alice's /ready is stored, but the bot was stopped before it set up.
    let r = record(&core);
    let mut m = state(&core);
    m.ready(Color::White).unwrap();
    core.store()
        .update_game(&r.key, r.version, None, |g| {
            g.clash.as_mut().unwrap().state = Some(serde_json::to_value(&m).unwrap());
            Ok(())
        })
        .unwrap();
    // Within a minute it is left alone: the bot may be answering still.
    assert!(core.tick(Timestamp(30_000), "test").is_empty());
    let notices = core.tick(Timestamp(HOUR), "test");
    let text = texts(&notices.iter().map(|(_, r)| r.clone()).collect::<Vec<_>>());
    assert!(text.contains("<@kibitz> sets up: King e8"), "{text}");
    assert!(text.contains("Round 1 begins"), "{text}");
    assert_eq!(state(&core).phase, Phase::Playing { round: 1 });
    // Nothing more to do: the next tick says nothing.
    assert!(core.tick(Timestamp(2 * HOUR), "test").is_empty());
}

#[test]
fn the_round_starts_on_the_side_of_the_player_to_move() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    for line in ["/buy king", "/buy pawn e2", "/ready"] {
        say(&core, "alice", line);
    }
    for line in ["/buy king", "/buy pawn e7"] {
        say(&core, "bob", line);
    }
    // Black's /ready starts the round; White moves first, so the picture is
    // White's view: the same picture alice's /board shows, not bob's.
    let begun = send(&core, "bob", "c1", false, "/ready", 1, None);
    let picture = |r: &[Reply]| r[0].picture.as_ref().map(|p| p.bytes.clone()).expect("a picture");
    let alices = send(&core, "alice", "c1", false, "/board", 1, None);
    let bobs = send(&core, "bob", "c1", false, "/board", 1, None);
    assert_eq!(picture(&begun), picture(&alices));
    assert_ne!(picture(&begun), picture(&bobs));
}

/// The PGN's games, split at their Event tags.
fn pgn_games(text: &str) -> Vec<String> {
    let mut games: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("[Event ") {
            games.push(String::new());
        }
        if let Some(g) = games.last_mut() {
            g.push_str(line);
            g.push('\n');
        }
    }
    games
}

#[test]
fn a_match_pgn_holds_every_round_with_its_own_result() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    armies(&core);
    // Round 1: drawn by agreement after a move each.
    say(&core, "alice", "e3");
    say(&core, "bob", "e6");
    say(&core, "alice", "/draw");
    let drawn = say(&core, "bob", "/draw");
    assert!(drawn.contains("Round 1 is drawn (agreement). Match score: <@alice> 0.5, <@bob> 0.5."), "{drawn}");
    // During round 2 the PGN has round 1, finished, and round 2 in play.
    say(&core, "alice", "/ready");
    say(&core, "bob", "/ready");
    say(&core, "alice", "e4");
    let during = pgn_games(&say(&core, "alice", "/pgn"));
    assert_eq!(during.len(), 2, "{during:?}");
    assert!(during[1].contains("[Round \"2\"]") && during[1].contains("[Result \"*\"]"), "{}", during[1]);
    assert!(during[1].contains("1. e4 *"), "{}", during[1]);
    // Round 2: bob resigns; alice leads 1.5-0.5.
    let resigned = say(&core, "bob", "/resign yes");
    assert!(resigned.contains("Round 2 to <@alice> (resignation)."), "{resigned}");
    assert!(resigned.contains("Match score: <@alice> 1.5, <@bob> 0.5."), "{resigned}");
    // Round 3, the ultimate: bob takes the Amazon, alice has draw odds.
    whisper(&core, "alice", "/bid 1");
    let bids = whisper(&core, "bob", "/bid 2");
    assert!(bids.contains("takes the Amazon"), "{bids}");
    say(&core, "alice", "/ready");
    say(&core, "bob", "/buy king");
    assert!(say(&core, "bob", "/ready").contains("Round 3 begins"));
    say(&core, "alice", "e3");
    let over = say(&core, "bob", "/resign yes");
    assert!(over.contains("The match is over"), "{over}");

    let text = say(&core, "alice", "/pgn");
    let games = pgn_games(&text);
    assert_eq!(games.len(), 3, "{text}");
    for (i, (result, standing)) in [
        ("1/2-1/2", "round 1 drawn (agreement); match: alice 0.5, bob 0.5"),
        ("1-0", "round 2 to alice by resignation; match: alice 1.5, bob 0.5"),
        ("1-0", "round 3 to alice by resignation; match: alice 2.5, bob 0.5"),
    ]
    .into_iter()
    .enumerate()
    {
        let g = &games[i];
        assert!(g.contains(&format!("[Round \"{}\"]", i + 1)), "{g}");
        assert!(g.contains(&format!("[Result \"{result}\"]")), "{g}");
        assert!(g.contains(&format!("[Match \"{standing}\"]")), "{g}");
        // Each round is set up from its armies, and ends with its result.
        assert!(g.contains("[SetUp \"1\"]") && g.contains("[FEN \""), "{g}");
        assert!(g.trim_end().ends_with(result), "{g}");
    }
    assert!(games[0].contains("1. e3 e6 1/2-1/2"), "{}", games[0]);
    assert!(games[1].contains("1. e4 1-0"), "{}", games[1]);
    // Round 3 was played with bob's Amazon on the board.
    assert!(games[2].contains("[FEN \"") && games[2].to_lowercase().contains('a'), "{}", games[2]);
}

/// CA2: a Rabbit's jump that captures is written with `x` and the move
/// names what it took (the victim is not on the landing square).
#[test]
fn a_rabbits_capture_is_marked_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    in_round_one(&core, (PieceKind::Rabbit, "c1"), (PieceKind::Pawn, "d7"), "4k3/8/8/3p4/8/3T4/8/4K3 w - - 0 1");
    let text = say(&core, "alice", "Td6");
    assert!(text.starts_with("<@alice> played Txd6 (d3d6), taking the pawn on d5."), "{text}");
}

/// CA2: a chain's victims are named in the order the Rabbit jumps them.
#[test]
fn ca2_a_chains_victims_are_named_in_the_order_jumped() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    in_round_one(&core, (PieceKind::Rabbit, "c1"), (PieceKind::Pawn, "d7"), "4k3/8/8/3T4/3p4/2p5/8/4K3 w - - 0 1");
    let text = say(&core, "alice", "d5d3b3");
    assert!(text.contains("taking the pawn on d4 and the pawn on c3."), "{text}");
}

/// A command redelivered after a crash that had stored its change but not
/// its answer (Telegram sends unconfirmed updates again) is answered with
/// what it did, said as it was sent, and the match as it stands.
#[test]
fn a_redelivered_army_command_is_answered_with_what_it_did() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    let msg = Incoming {
        platform: "test".into(),
        channel: "c1".into(),
        sender: User { id: "alice".into(), name: "alice".into() },
        text: "/buy queen d1".into(),
        message_id: Some("m1".into()),
        at: Timestamp(1),
        private: false,
        manages: None,
    };
    let first = texts(&core.handle_once(&msg));
    assert!(first.contains("buys a Queen on d1"), "{first}");
    let again = texts(&core.handle_once(&msg));
    assert!(again.contains("<@alice>'s /buy queen d1 is done."), "{again}");
    assert!(!again.contains("buys a Queen"), "bought once: {again}");
    let queens = state(&core).armies[0].pieces.iter().filter(|p| p.kind == PieceKind::Queen).count();
    assert_eq!(queens, 1, "the queen was bought once");
}

/// CA7: the piece that takes a Phoenix leaves the board with it, and the
/// reply says so (the board no longer holds the captor).
#[test]
fn ca7_the_reply_says_the_phoenix_took_its_captor_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    in_round_one(&core, (PieceKind::Bishop, "c1"), (PieceKind::Phoenix, "d8"), "4k3/8/8/8/3f4/8/1B6/4K3 w - - 0 1");
    let text = say(&core, "alice", "Bxd4");
    assert!(text.starts_with("<@alice> played Bxd4 (b2d4)."), "{text}");
    assert!(text.contains("The Phoenix on d4 takes the bishop with it: both leave the board (CA7)."), "{text}");
    // Nothing stands on d4 now: the Black King's move there is quiet.
    let text = say(&core, "bob", "Kd7");
    assert!(text.starts_with("<@bob> played Kd7"), "{text}");
    let fen = say(&core, "alice", "/fen");
    assert!(fen.contains("8/3k4/8/8/8/8/8/4K3 w"), "only the Kings are left: {fen}");
}

/// CA2: a Rabbit that jumps an enemy piece standing on the edge leaves the
/// board with it, and the reply says both went.
#[test]
fn ca2_the_reply_says_the_rabbit_left_the_board_with_its_edge_victim() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    in_round_one(&core, (PieceKind::Rabbit, "c1"), (PieceKind::Bishop, "c8"), "1b2k3/8/1T6/8/8/8/8/4K3 w - - 0 1");
    let text = say(&core, "alice", "Tb8x");
    assert!(text.contains("taking the bishop on b8."), "{text}");
    assert!(text.contains("The rabbit leaves the board with it (CA2)."), "{text}");
}

#[test]
fn ca12_a_piece_of_several_of_its_kind_is_named_by_its_square_or_by_kind_and_square() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    start(&core, "");
    say(&core, "alice", "/buy bishop b1");
    say(&core, "alice", "/buy bishop g1");
    // By kind alone: which one? The answer shows how to say it.
    let said = say(&core, "alice", "/place bishop c1");
    assert_eq!(
        said,
        "You have more than one Bishop (b1, g1): name the one you mean by its square, as in /place b1 c1."
    );
    let said = say(&core, "alice", "/sell bishop");
    assert_eq!(said, "You have more than one Bishop (b1, g1): name the one you mean by its square, as in /sell b1.");
    // Kind and square: checked against the piece standing there.
    assert_eq!(say(&core, "alice", "/place knight b1 c1"), "The piece on b1 is your Bishop, not a Knight.");
    assert_eq!(say(&core, "alice", "/place bishop d1 c1"), "You have no piece on d1.");
    let squares = |core: &Core| {
        let mut s: Vec<String> =
            state(core).army(Color::White).pieces.iter().filter_map(|p| p.square).map(|s| s.to_string()).collect();
        s.sort();
        s
    };
    assert_eq!(squares(&core), ["b1", "g1"]);
    assert_eq!(say(&core, "alice", "/place bishop b1 f1"), "<@alice> moves the Bishop from b1 to f1.");
    assert_eq!(squares(&core), ["f1", "g1"]);
    assert!(say(&core, "alice", "/sell Bishop g1").contains("sells the Bishop on g1"));
    assert_eq!(squares(&core), ["f1"]);
}

/// CA4: `shoot` alone, from the player to move, asks what to shoot at
/// rather than passing for chat; the shot then written whole plays.
#[test]
fn ca4_shoot_alone_asks_for_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let core = core(dir.path());
    in_round_one(&core, (PieceKind::WarMachine, "a1"), (PieceKind::Pawn, "d7"), "4k3/8/8/3p4/8/3M4/8/4K3 w - - 0 1");
    let text = say(&core, "alice", "shoot");
    assert!(text.starts_with("At what? shoot SQUARE"), "{text}");
    // From the player not to move it stays chat.
    assert_eq!(say(&core, "bob", "shoot"), "");
    let text = say(&core, "alice", "shoot d5");
    assert!(text.starts_with("<@alice> played "), "{text}");
}
