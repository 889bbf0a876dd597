//! The match of Clash of the Armies (`kibitz_rules::army`): rounds, points,
//! gold, armies, survivors and the ultimate round's auction. Each test names
//! the ruling of `RULINGS.md` it checks (CA10-CA14); gold and points are
//! worked out by hand in the comments.

use kibitz_rules::army::{
    Army, ArmyError, Match, Phase, PieceClass, PieceKind, PieceRef, RoundEnd, RoundResult, gold_text, parse_bid,
    parse_gold, points_text,
};
use kibitz_rules::{Color, Square};

use Color::{Black, White};
use PieceKind::*;

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap_or_else(|| panic!("bad square {name}"))
}

/// Gold in quarters.
fn g(gold: f64) -> u32 {
    (gold * 4.0) as u32
}

fn board(pieces: &[(&str, Color, char)]) -> Vec<(Square, Color, char)> {
    pieces.iter().map(|&(s, c, l)| (sq(s), c, l)).collect()
}

/// Both armies as they stand: `(square, kind)` lists, placed pieces only.
fn placed(m: &Match, c: Color) -> Vec<(Square, PieceKind)> {
    m.army(c).placed().collect()
}

/// Both players confirm armies that already hold a Leader, or buy a King
/// first if they have none.
fn setup_kings(m: &mut Match) {
    for c in Color::ALL {
        if m.army(c).leader().is_none() {
            m.buy(c, King, None).unwrap();
        }
        m.ready(c).unwrap();
    }
}

/// Kings only on e1 and e8 (what the final board shows for two bare armies).
fn bare_board() -> Vec<(Square, Color, char)> {
    board(&[("e1", White, 'K'), ("e8", Black, 'K')])
}

fn round(m: &mut Match, result: RoundResult) {
    setup_kings(m);
    m.end_round(result, &bare_board()).unwrap();
}

/// Rounds 1 and 2 won by White (checkmate) and Black (time): 1-1, the
/// ultimate round's auction opens. Gold: White 40-5 = 35, +40 = 75 (its King
/// survived), +40+10 = 125; Black 40-5 = 35, +40-5 (new King) = 70, +40+10 =
/// 120.
fn one_all() -> Match {
    let mut m = Match::new();
    round(&mut m, RoundResult::win(White, RoundEnd::Checkmate));
    round(&mut m, RoundResult::win(Black, RoundEnd::Time));
    assert_eq!(m.phase(), Phase::Bidding);
    assert_eq!(m.gold, [g(125.0), g(120.0)]);
    m
}

// ---------------------------------------------------------------------------
// Pieces

/// CA12 / CLASH.md: the 21 letters, names, classes and costs.
#[test]
fn pieces_letters_names_costs() {
    assert_eq!(PieceKind::ALL.len(), 21);
    let letters: String = PieceKind::ALL.iter().map(|k| k.letter()).collect();
    assert_eq!(letters, "PONBTEWRHGYMQCAJVFZKS");
    for k in PieceKind::ALL {
        assert_eq!(PieceKind::from_letter(k.letter()), Some(k));
        assert_eq!(PieceKind::from_letter(k.letter().to_ascii_lowercase()), Some(k));
        assert_eq!(PieceKind::from_name(k.name()), Some(k));
        assert_eq!(PieceKind::from_name(&k.name().to_uppercase()), Some(k));
    }
    assert_eq!(PieceKind::from_name("war machine"), Some(WarMachine));
    assert_eq!(PieceKind::from_name("warmachine"), Some(WarMachine));
    assert_eq!(PieceKind::from_name("War-Machine"), Some(WarMachine));
    assert_eq!(PieceKind::from_name("M"), Some(WarMachine));
    assert_eq!(PieceKind::from_name("t"), Some(Rabbit));
    assert_eq!(PieceKind::from_name("dragon"), None);
    assert_eq!(
        PieceKind::parse("dragon").unwrap_err().to_string(),
        "There is no piece called \"dragon\" in Clash of the Armies."
    );
    assert_eq!(PieceKind::from_letter('X'), None);

    assert_eq!(Pawn.cost_quarters(), Some(4));
    assert_eq!(Omnipawn.cost_quarters(), Some(8));
    assert_eq!(Waffle.cost_quarters(), Some(13)); // 3.25
    assert_eq!(Rabbit.cost_quarters(), Some(18)); // 4.50
    assert_eq!(Kite.cost_quarters(), Some(22)); // 5.50
    assert_eq!(General.cost_quarters(), Some(28)); // 7.00
    assert_eq!(Queen.cost_quarters(), Some(42)); // 10.50
    assert_eq!(Jester.cost_quarters(), Some(34)); // 8.50
    assert_eq!(Phoenix.cost_quarters(), Some(44)); // 11.00
    assert_eq!(Shielderer.cost_quarters(), Some(20)); // 5.00
    assert_eq!(Amazon.cost_quarters(), None);

    assert_eq!(Omnipawn.class(), PieceClass::Peasant);
    assert_eq!(Elephant.class(), PieceClass::Light);
    assert_eq!(WarMachine.class(), PieceClass::Heavy);
    assert_eq!(Rogue.class(), PieceClass::Jewel);
    assert_eq!(Amazon.class(), PieceClass::Jewel);
    assert_eq!(Shielderer.class(), PieceClass::Leader);

    assert_eq!(PieceRef::parse("b1").unwrap(), PieceRef::Square(sq("b1")));
    assert_eq!(PieceRef::parse("war machine").unwrap(), PieceRef::Kind(WarMachine));
}

/// CA11: gold is kept in quarters and shown with two decimals.
#[test]
fn gold_amounts() {
    assert_eq!(gold_text(51), "12.75");
    assert_eq!(gold_text(160), "40.00");
    assert_eq!(gold_text(0), "0.00");
    assert_eq!(parse_gold("12.75"), Ok(51));
    assert_eq!(parse_gold("3,5"), Ok(14));
    assert_eq!(parse_gold("7"), Ok(28));
    assert!(matches!(parse_gold("3.1"), Err(ArmyError::NotQuarters { .. })));
    assert!(matches!(parse_gold("x"), Err(ArmyError::BadAmount { .. })));
    assert_eq!(points_text(3), "1.5");
    assert_eq!(points_text(2), "1");
}

// ---------------------------------------------------------------------------
// CA10 rounds and points

/// CA10: two wins make 2 points and end the match after two rounds.
#[test]
fn match_won_two_nil_ends_after_two_rounds() {
    let mut m = Match::new();
    assert_eq!(m.phase(), Phase::Army { color: White });
    round(&mut m, RoundResult::win(White, RoundEnd::Checkmate));
    assert_eq!(m.half_points, [2, 0]);
    assert_eq!(m.round, 2);
    assert_eq!(m.phase(), Phase::Army { color: White });
    round(&mut m, RoundResult::win(White, RoundEnd::Resignation));
    assert_eq!(m.phase(), Phase::Over { winner: White });
    assert_eq!(m.winner(), Some(White));
    assert_eq!(m.history.len(), 2);
    assert_eq!(m.round, 2);
    assert_eq!(m.half_points, [4, 0]);
    // No gold for a third round: White 40-5+40 = 75, Black 40-5+40-5 = 70.
    assert_eq!(m.gold, [g(75.0), g(70.0)]);
    assert_eq!(m.buy(White, Pawn, None), Err(ArmyError::MatchOver));
    assert_eq!(m.end_round(RoundResult::win(White, RoundEnd::Checkmate), &[]), Err(ArmyError::MatchOver));
    assert!(m.summary(Black).contains("The match is over: White won 2-0."), "{}", m.summary(Black));
}

/// CA10, CA11: 1-1 after two rounds goes to the ultimate round, each player
/// getting 40 + 10 × 1 gold on top of what is left.
#[test]
fn one_all_goes_to_ultimate_round_with_points_gold() {
    let m = one_all();
    assert_eq!(m.round, 3);
    assert!(m.is_ultimate());
    assert_eq!(m.half_points, [2, 2]);
    assert_eq!(m.winner(), None);
}

/// CA10: a draw gives 0.5 to each; two draws make 1-1 and the ultimate round.
#[test]
fn draw_is_half_a_point_each() {
    let mut m = Match::new();
    round(&mut m, RoundResult::draw(RoundEnd::Repetition));
    assert_eq!(m.half_points, [1, 1]);
    assert_eq!(points_text(m.half_points(White)), "0.5");
    // A draw takes no Leader: both Kings survive, nobody buys one again.
    assert_eq!(m.army(White).leader(), Some(King));
    assert_eq!(m.army(Black).leader(), Some(King));
    round(&mut m, RoundResult::draw(RoundEnd::Stalemate));
    assert_eq!(m.half_points, [2, 2]);
    // 40-5 = 35, +40 = 75, +40+10 = 125 each.
    assert_eq!(m.gold, [g(125.0), g(125.0)]);
    assert_eq!(m.phase(), Phase::Bidding);
}

/// CA10: 1.5-0.5 after two rounds, the trailer wins the ultimate round:
/// 1.5-1.5, and the ultimate round's winner takes the match.
#[test]
fn ultimate_round_tie_broken_by_its_winner() {
    let mut m = Match::new();
    round(&mut m, RoundResult::win(White, RoundEnd::Checkmate));
    round(&mut m, RoundResult::draw(RoundEnd::FiftyMoves));
    assert_eq!(m.half_points, [3, 1]);
    assert_eq!(m.phase(), Phase::Bidding);
    // White: 35 +40 +40+15 = 130. Black: 35, +40-5 = 70, +40+5 = 115.
    assert_eq!(m.gold, [g(130.0), g(115.0)]);
    m.bid(White, g(10.0)).unwrap();
    m.bid(Black, g(4.0)).unwrap();
    assert_eq!(m.draw_odds, Some(Black));
    round(&mut m, RoundResult::win(Black, RoundEnd::Checkmate));
    assert_eq!(m.half_points, [3, 3]);
    assert_eq!(m.phase(), Phase::Over { winner: Black });
}

/// CA10: after the ultimate round the higher score wins.
#[test]
fn ultimate_round_higher_score_wins() {
    let mut m = Match::new();
    round(&mut m, RoundResult::win(White, RoundEnd::Checkmate));
    round(&mut m, RoundResult::draw(RoundEnd::Agreement));
    m.bid(White, g(10.0)).unwrap();
    m.bid(Black, g(4.0)).unwrap();
    round(&mut m, RoundResult::win(White, RoundEnd::Time));
    assert_eq!(m.half_points, [5, 1]);
    assert_eq!(m.phase(), Phase::Over { winner: White });
}

/// CA14: the auction's loser has draw odds: a drawn ultimate round counts
/// as their win.
#[test]
fn draw_odds_turn_a_draw_into_a_win() {
    let mut m = one_all();
    m.bid(White, g(14.0)).unwrap();
    m.bid(Black, g(12.0)).unwrap();
    assert_eq!(m.draw_odds, Some(Black));
    setup_kings(&mut m);
    assert_eq!(m.phase(), Phase::Playing { round: 3 });
    m.end_round(RoundResult::draw(RoundEnd::Repetition), &bare_board()).unwrap();
    assert_eq!(m.half_points, [2, 4]);
    assert_eq!(m.phase(), Phase::Over { winner: Black });
    let last = m.history.last().unwrap();
    assert_eq!(last.result, RoundResult::draw(RoundEnd::Repetition));
    assert_eq!(last.scored_winner, Some(Black));
}

/// CA14: no draw may be agreed in the ultimate round; earlier it may.
#[test]
fn no_agreed_draw_in_ultimate_round() {
    let mut m = Match::new();
    setup_kings(&mut m);
    assert!(m.draw_allowed());
    m.end_round(RoundResult::win(White, RoundEnd::Checkmate), &bare_board()).unwrap();
    assert!(!m.draw_allowed(), "no round in play");
    round(&mut m, RoundResult::win(Black, RoundEnd::Checkmate));
    m.bid(White, 0).unwrap();
    m.bid(Black, 2).unwrap();
    setup_kings(&mut m);
    assert_eq!(m.phase(), Phase::Playing { round: 3 });
    assert!(!m.draw_allowed());
    let err = m.end_round(RoundResult::draw(RoundEnd::Agreement), &bare_board()).unwrap_err();
    assert_eq!(err, ArmyError::DrawNotAllowed);
    assert_eq!(err.to_string(), "No draw may be agreed in the ultimate round.");
    assert_eq!(m.phase(), Phase::Playing { round: 3 }, "nothing changed");
    // A result whose winner does not fit its reason is refused too.
    assert!(matches!(
        m.end_round(RoundResult { winner: None, reason: RoundEnd::Checkmate }, &[]),
        Err(ArmyError::ResultMismatch { .. })
    ));
    assert!(matches!(
        m.end_round(RoundResult { winner: Some(White), reason: RoundEnd::Stalemate }, &[]),
        Err(ArmyError::ResultMismatch { .. })
    ));
}

// ---------------------------------------------------------------------------
// CA11 gold

/// CA11: unspent gold carries over; 40 more before each round.
#[test]
fn gold_carries_over() {
    let mut m = Match::new();
    assert_eq!(m.gold, [g(40.0), g(40.0)]);
    m.buy(White, King, None).unwrap();
    m.buy(White, Rook, None).unwrap();
    // 40 - 5 - 5.50 = 29.50
    assert_eq!(m.gold(White), g(29.5));
    m.ready(White).unwrap();
    m.buy(Black, Shielderer, None).unwrap();
    m.buy(Black, Waffle, None).unwrap();
    // 40 - 5 - 3.25 = 31.75
    assert_eq!(m.gold(Black), g(31.75));
    m.ready(Black).unwrap();
    m.end_round(
        RoundResult::draw(RoundEnd::Stalemate),
        &board(&[("e1", White, 'K'), ("a1", White, 'R'), ("e8", Black, 'S'), ("b8", Black, 'W')]),
    )
    .unwrap();
    assert_eq!(m.gold, [g(69.5), g(71.75)]);
    assert!(m.summary(White).contains("Gold: 69.50."), "{}", m.summary(White));
    assert!(m.summary(Black).contains("Gold: 71.75."), "{}", m.summary(Black));
}

/// CA11: a purchase above one's gold is refused.
#[test]
fn purchase_over_gold_refused() {
    let mut m = Match::new();
    m.buy(White, Phoenix, None).unwrap(); // 40 - 11 = 29
    m.buy(White, General, None).unwrap(); // 22
    m.buy(White, Hawk, None).unwrap(); // 16
    m.buy(White, Rabbit, None).unwrap(); // 11.50
    m.buy(White, Elephant, None).unwrap(); // 7
    m.buy(White, Bishop, None).unwrap(); // 3.50
    for _ in 0..3 {
        m.buy(White, Pawn, None).unwrap(); // 0.50 after the third
    }
    assert_eq!(m.gold(White), g(0.5));
    let err = m.buy(White, King, None).unwrap_err();
    assert_eq!(err, ArmyError::NotEnoughGold { cost: 20, gold: 2 });
    assert_eq!(err.to_string(), "That costs 5.00 gold and you have 0.50.");
    m.sell(White, sq("h1")).unwrap(); // the Hawk: 6.50
    assert_eq!(m.buy(White, Rook, Some(sq("h1"))), Ok(sq("h1"))); // 1.00
    let err = m.buy(White, Omnipawn, None).unwrap_err();
    assert_eq!(err.to_string(), "That costs 2.00 gold and you have 1.00.");
}

// ---------------------------------------------------------------------------
// CA12 army phase

/// CA12: at most 2 Heavy, 4 Light with 2 of a kind, 1 Jewel, 1 Leader, 8
/// Peasants.
#[test]
fn buying_over_limits_refused() {
    let mut m = Match::new();
    m.buy(White, Rook, None).unwrap();
    m.buy(White, Kite, None).unwrap();
    let err = m.buy(White, General, None).unwrap_err();
    assert_eq!(err, ArmyError::ClassFull { class: PieceClass::Heavy, count: 2 });
    assert_eq!(err.to_string(), "You already have 2 Heavy pieces (the most an army may hold).");
    assert_eq!(m.gold(White), g(40.0 - 5.5 - 5.5), "nothing paid for the refused piece");

    m.buy(White, Knight, None).unwrap();
    m.buy(White, Knight, None).unwrap();
    let err = m.buy(White, Knight, None).unwrap_err();
    assert_eq!(err, ArmyError::KindFull { kind: Knight, count: 2 });
    assert_eq!(err.to_string(), "You already have 2 Knights (at most 2 of one kind of Light piece).");

    let mut a = Army::new(White);
    for k in [Knight, Knight, Waffle, Elephant] {
        a.add(k, None).unwrap();
    }
    assert_eq!(a.count_class(PieceClass::Light), 4);
    assert_eq!(a.count_kind(Knight), 2);
    assert_eq!(a.add(Bishop, None), Err(ArmyError::ClassFull { class: PieceClass::Light, count: 4 }));
    a.add(Queen, None).unwrap();
    let err = a.add(Chancellor, None).unwrap_err();
    assert_eq!(err.to_string(), "You already have 1 Jewel (the most an army may hold).");
    a.add(King, None).unwrap();
    assert_eq!(a.add(Shielderer, None), Err(ArmyError::ClassFull { class: PieceClass::Leader, count: 1 }));
    for _ in 0..4 {
        a.add(Pawn, None).unwrap();
        a.add(Omnipawn, None).unwrap();
    }
    let err = a.add(Pawn, None).unwrap_err();
    assert_eq!(err.to_string(), "You already have 8 Peasants (the most an army may hold).");
    // Peasants fill the second rank from a to h.
    let peasants: Vec<String> = a
        .placed()
        .filter(|(_, k)| k.class() == PieceClass::Peasant)
        .map(|(s, k)| format!("{}{s}", k.letter()))
        .collect();
    assert_eq!(peasants.join(" "), "Pa2 Ob2 Pc2 Od2 Pe2 Of2 Pg2 Oh2");
    // The Amazon is only for the auction's winner (CA14).
    assert_eq!(m.buy(White, Amazon, None), Err(ArmyError::AmazonNotForSale));
}

/// CA12: each class on its own squares, ranks mirrored for Black; a taken
/// square is refused.
#[test]
fn wrong_squares_refused() {
    let mut m = Match::new();
    let err = m.buy(White, Knight, Some(sq("d1"))).unwrap_err();
    assert_eq!(err.to_string(), "A Light piece stands on b, c, f or g of your back rank, not on d1.");
    let err = m.buy(White, Rook, Some(sq("b1"))).unwrap_err();
    assert_eq!(err.to_string(), "A Heavy piece stands on a corner of your back rank (a1 or h1), not on b1.");
    let err = m.buy(White, Pawn, Some(sq("e3"))).unwrap_err();
    assert_eq!(err.to_string(), "A Peasant stands on your second rank (rank 2), not on e3.");
    let err = m.buy(White, Queen, Some(sq("e1"))).unwrap_err();
    assert_eq!(err.to_string(), "The Jewel stands on d1, not on e1.");
    let err = m.buy(White, King, Some(sq("e8"))).unwrap_err();
    assert_eq!(err.to_string(), "The Leader stands on e1, not on e8.");
    assert_eq!(m.gold(White), g(40.0));

    assert_eq!(m.buy(White, Knight, Some(sq("g1"))), Ok(sq("g1")));
    let err = m.buy(White, Elephant, Some(sq("g1"))).unwrap_err();
    assert_eq!(err.to_string(), "g1 is already taken by your Knight.");
    // Moving a piece: only to a free square of its class.
    assert_eq!(
        m.place(White, sq("g1"), sq("d1")).unwrap_err().to_string(),
        "A Light piece stands on b, c, f or g of your back rank, not on d1."
    );
    m.place(White, Knight, sq("c1")).unwrap();
    assert_eq!(placed(&m, White), vec![(sq("c1"), Knight)]);
    assert_eq!(m.place(White, sq("b1"), sq("f1")), Err(ArmyError::NoPieceOn { square: sq("b1") }));
    m.buy(White, King, None).unwrap();
    m.ready(White).unwrap();

    // Black: back rank 8, Peasants on rank 7.
    let err = m.buy(Black, Pawn, Some(sq("e2"))).unwrap_err();
    assert_eq!(err.to_string(), "A Peasant stands on your second rank (rank 7), not on e2.");
    let err = m.buy(Black, King, Some(sq("e1"))).unwrap_err();
    assert_eq!(err.to_string(), "The Leader stands on e8, not on e1.");
    assert_eq!(m.buy(Black, King, None), Ok(sq("e8")));
    assert_eq!(m.buy(Black, Rook, None), Ok(sq("a8")));
    assert_eq!(m.buy(Black, Hawk, None), Ok(sq("h8")));
    assert_eq!(m.buy(Black, Pawn, None), Ok(sq("a7")));
    assert_eq!(m.buy(Black, Omnipawn, Some(sq("d7"))), Ok(sq("d7")));
    assert_eq!(m.buy(Black, Queen, None), Ok(sq("d8")));
    assert_eq!(m.buy(Black, Rabbit, None), Ok(sq("b8")));
}

/// CA12: two Bishops stand on squares of opposite colours.
#[test]
fn bishops_on_one_colour_refused() {
    let mut m = Match::new();
    // c1 and g1 are both dark.
    m.buy(White, Bishop, Some(sq("c1"))).unwrap();
    let err = m.buy(White, Bishop, Some(sq("g1"))).unwrap_err();
    assert_eq!(err, ArmyError::BishopsSameColour { square: sq("g1"), other: sq("c1") });
    assert_eq!(
        err.to_string(),
        "Your two Bishops must stand on squares of opposite colours: c1 and g1 are both dark squares."
    );
    // Without a square the second Bishop takes the first light one: b1.
    assert_eq!(m.buy(White, Bishop, None), Ok(sq("b1")));
    // Moving one onto the other's colour is refused; within its colour it is fine.
    assert!(matches!(m.place(White, sq("b1"), sq("g1")), Err(ArmyError::BishopsSameColour { .. })));
    m.place(White, sq("b1"), sq("f1")).unwrap();
    m.place(White, sq("c1"), sq("g1")).unwrap();
    assert_eq!(placed(&m, White), vec![(sq("f1"), Bishop), (sq("g1"), Bishop)]);
    assert!(matches!(m.place(White, Bishop, sq("c1")), Err(ArmyError::AmbiguousKind { .. })));

    // Black: b8 dark, c8 light, f8 dark, g8 light.
    let mut a = Army::new(Black);
    a.add(Bishop, Some(sq("c8"))).unwrap();
    assert!(a.add(Bishop, Some(sq("g8"))).is_err());
    assert_eq!(a.add(Bishop, None), Ok(sq("b8")));
}

/// CA12: selling gives back the full price.
#[test]
fn selling_refunds_full_price() {
    let mut m = Match::new();
    m.buy(White, Rook, None).unwrap();
    m.buy(White, Waffle, None).unwrap();
    assert_eq!(m.gold(White), g(40.0 - 5.5 - 3.25));
    assert_eq!(m.sell(White, sq("a1")), Ok(22));
    assert_eq!(m.gold(White), g(40.0 - 3.25));
    assert_eq!(m.sell(White, Waffle), Ok(13));
    assert_eq!(m.gold(White), g(40.0));
    assert!(m.army(White).is_empty());
    let err = m.sell(White, sq("b1")).unwrap_err();
    assert_eq!(err.to_string(), "You have no piece on b1.");
    assert_eq!(m.sell(White, Rook).unwrap_err().to_string(), "You have no Rook.");
}

/// CA12: an army needs its Leader to be confirmed.
#[test]
fn confirming_without_leader_refused() {
    let mut m = Match::new();
    m.buy(White, Rook, None).unwrap();
    let err = m.ready(White).unwrap_err();
    assert_eq!(err, ArmyError::NoLeader);
    assert_eq!(err.to_string(), "You need a Leader (a King or a Shielderer) before you can confirm.");
    assert_eq!(m.phase(), Phase::Army { color: White });
    m.buy(White, Shielderer, None).unwrap();
    m.ready(White).unwrap();
    assert_eq!(m.phase(), Phase::Army { color: Black });
}

/// CA12: White buys and places first; Black acts only after White confirms,
/// and seeing White's army.
#[test]
fn black_acts_only_after_white_confirms() {
    let mut m = Match::new();
    let err = m.buy(Black, King, None).unwrap_err();
    assert_eq!(err, ArmyError::WaitForWhite);
    assert_eq!(err.to_string(), "White sets up first: you can buy and place after White confirms.");
    assert_eq!(m.ready(Black), Err(ArmyError::WaitForWhite));
    assert_eq!(m.gold(Black), g(40.0));
    m.buy(White, King, None).unwrap();
    m.buy(White, General, None).unwrap();
    assert!(!m.summary(Black).contains("General"), "White's army is not shown while White sets up");
    m.ready(White).unwrap();
    assert!(m.summary(Black).contains("White's army: King e1, General a1."), "{}", m.summary(Black));
    assert_eq!(m.buy(White, Pawn, None), Err(ArmyError::AlreadyConfirmed));
    assert_eq!(m.sell(White, sq("a1")), Err(ArmyError::AlreadyConfirmed));
    m.buy(Black, King, None).unwrap();
    m.ready(Black).unwrap();
    assert_eq!(m.phase(), Phase::Playing { round: 1 });
    let err = m.buy(Black, Pawn, None).unwrap_err();
    assert_eq!(err.to_string(), "Round 1 is being played: armies change only between rounds.");
    assert!(matches!(m.bid(White, 0), Err(ArmyError::NotBidding)));
}

// ---------------------------------------------------------------------------
// CA13 survivors

/// CA13: captured pieces are lost, survivors go back to their squares, the
/// checkmated player loses the Leader; no gold for lost pieces.
#[test]
fn survivors_and_lost_leader_after_checkmate() {
    let mut m = Match::new();
    m.buy(White, King, None).unwrap();
    m.buy(White, Rook, None).unwrap(); // a1
    m.buy(White, Knight, None).unwrap(); // b1
    m.buy(White, Pawn, Some(sq("d2"))).unwrap();
    m.buy(White, Pawn, Some(sq("e2"))).unwrap();
    m.ready(White).unwrap();
    m.buy(Black, King, None).unwrap(); // e8
    m.buy(Black, Queen, None).unwrap(); // d8
    m.buy(Black, Bishop, Some(sq("c8"))).unwrap();
    m.buy(Black, Pawn, Some(sq("e7"))).unwrap();
    m.ready(Black).unwrap();
    // White: 40-5-5.5-3.5-1-1 = 24. Black: 40-5-10.5-3.5-1 = 20.
    assert_eq!(m.gold, [g(24.0), g(20.0)]);
    // White's Knight and d-pawn were taken; Black's Queen too. Black is mated.
    let final_board = board(&[
        ("g1", White, 'K'),
        ("a7", White, 'R'),
        ("e4", White, 'P'),
        ("e8", Black, 'k'),
        ("e7", Black, 'p'),
        ("h3", Black, 'b'),
    ]);
    m.end_round(RoundResult::win(White, RoundEnd::Checkmate), &final_board).unwrap();
    assert_eq!(placed(&m, White), vec![(sq("a1"), Rook), (sq("e1"), King), (sq("e2"), Pawn)]);
    assert_eq!(placed(&m, Black), vec![(sq("e7"), Pawn), (sq("c8"), Bishop)]);
    assert_eq!(m.army(Black).leader(), None);
    assert_eq!(m.gold, [g(64.0), g(60.0)]);
    m.ready(White).unwrap();
    assert_eq!(m.ready(Black), Err(ArmyError::NoLeader));
    m.buy(Black, Shielderer, None).unwrap();
    m.ready(Black).unwrap();
    assert_eq!(m.start_fen(), "2b1s3/4p3/8/8/8/8/4P3/R3K3 w Qd - 0 1");
}

/// CA13: a player who loses on time loses the Leader; the winner keeps
/// everything that survived.
#[test]
fn time_loss_loses_leader() {
    let mut m = Match::new();
    setup_kings(&mut m);
    m.end_round(RoundResult::win(Black, RoundEnd::Time), &bare_board()).unwrap();
    assert_eq!(m.army(White).leader(), None);
    assert_eq!(m.army(Black).leader(), Some(King));
}

/// CA13: a player who resigns loses the whole army.
#[test]
fn resignation_loses_the_army() {
    let mut m = Match::new();
    m.buy(White, King, None).unwrap();
    m.buy(White, Queen, None).unwrap();
    m.buy(White, Pawn, None).unwrap();
    m.ready(White).unwrap();
    m.buy(Black, Shielderer, None).unwrap();
    m.buy(Black, Hawk, None).unwrap();
    m.ready(Black).unwrap();
    let final_board =
        board(&[("e1", White, 'K'), ("d1", White, 'Q'), ("a2", White, 'P'), ("e8", Black, 'S'), ("h8", Black, 'H')]);
    m.end_round(RoundResult::win(Black, RoundEnd::Resignation), &final_board).unwrap();
    assert!(m.army(White).is_empty());
    // The Hawk, bought without a square, started on a8 and goes back there.
    assert_eq!(placed(&m, Black), vec![(sq("a8"), Hawk), (sq("e8"), Shielderer)]);
    // Gold is untouched by the loss: 40-5-10.5-1 = 23.50, +40.
    assert_eq!(m.gold(White), g(63.5));
    assert!(m.summary(White).contains("Your army: no pieces."), "{}", m.summary(White));
}

/// CA13: survivors over the limits (a promotion giving a third Heavy piece,
/// a third Knight, a second Jewel) must be sold before confirming.
#[test]
fn over_limit_survivors_must_be_sold() {
    let mut m = Match::new();
    m.buy(White, King, None).unwrap();
    m.buy(White, Rook, None).unwrap(); // a1
    m.buy(White, Kite, None).unwrap(); // h1
    m.buy(White, Knight, None).unwrap(); // b1
    m.buy(White, Knight, None).unwrap(); // c1
    m.buy(White, Pawn, Some(sq("b2"))).unwrap();
    m.buy(White, Pawn, Some(sq("c2"))).unwrap();
    m.buy(White, Pawn, Some(sq("g2"))).unwrap();
    m.ready(White).unwrap();
    m.buy(Black, King, None).unwrap();
    m.ready(Black).unwrap();
    // White: 40-5-5.5-5.5-3.5-3.5-1-1-1 = 14.
    assert_eq!(m.gold(White), g(14.0));
    // The b-, c- and g-pawns promoted to a Rook, a Knight and a Queen.
    let final_board = board(&[
        ("e1", White, 'K'),
        ("a1", White, 'R'),
        ("h1", White, 'Y'),
        ("b1", White, 'N'),
        ("c1", White, 'N'),
        ("b8", White, 'R'),
        ("c8", White, 'N'),
        ("g8", White, 'Q'),
        ("e8", Black, 'K'),
    ]);
    m.end_round(RoundResult::draw(RoundEnd::Stalemate), &final_board).unwrap();
    let army = m.army(White);
    assert_eq!(army.count_class(PieceClass::Heavy), 3);
    assert_eq!(army.count_kind(Knight), 3);
    assert_eq!(army.unplaced().collect::<Vec<_>>(), vec![Knight, Rook]);
    // The Queen is the only Jewel: it goes to d1.
    assert_eq!(army.kind_at(sq("d1")), Some(Queen));
    let problems: Vec<String> = army.problems().iter().map(|p| p.to_string()).collect();
    assert_eq!(
        problems,
        vec![
            "You have 3 Heavy pieces but an army may hold at most 2: sell 1 before confirming.",
            "You have 3 Knights but an army may hold at most 2 of one kind of Light piece: sell 1 before confirming.",
            "Your Knight has no square yet: place it or sell it before confirming.",
            "Your Rook has no square yet: place it or sell it before confirming.",
        ]
    );
    let err = m.ready(White).unwrap_err();
    assert_eq!(err, ArmyError::OverClassLimit { class: PieceClass::Heavy, count: 3 });
    let err = m.buy(White, Hawk, None).unwrap_err();
    assert_eq!(err.to_string(), "You already have 3 Heavy pieces (an army may hold at most 2).");
    // Selling by kind sells the piece without a square first. Gold 14 + 40.
    assert_eq!(m.gold(White), g(54.0));
    assert_eq!(m.sell(White, Rook), Ok(22));
    assert_eq!(m.ready(White), Err(ArmyError::OverKindLimit { kind: Knight, count: 3 }));
    // Sell the Knight on b1 instead, and place the one without a square there.
    m.sell(White, sq("b1")).unwrap();
    assert_eq!(m.ready(White), Err(ArmyError::Unplaced { kind: Knight }));
    m.place(White, Knight, sq("b1")).unwrap();
    assert_eq!(m.gold(White), g(54.0 + 5.5 + 3.5));
    m.ready(White).unwrap();
    assert!(m.army(White).problems().is_empty());
}

/// CA13: a promoted Bishop goes to a square of the other colour from the
/// Bishop already there.
#[test]
fn promoted_bishop_keeps_the_colours_apart() {
    let mut prev = Army::new(White);
    prev.add(King, None).unwrap();
    prev.add(Bishop, Some(sq("c1"))).unwrap(); // dark
    // The promoted Bishop ended on g8: g1 is dark, f1 is the nearest light square.
    let next = Army::from_survivors(&prev, &[(sq("e1"), King), (sq("c1"), Bishop), (sq("g8"), Bishop)]);
    assert_eq!(next.placed().collect::<Vec<_>>(), vec![(sq("c1"), Bishop), (sq("e1"), King), (sq("f1"), Bishop)]);
    assert!(next.problems().is_empty());
}

// ---------------------------------------------------------------------------
// CA14 auction

/// CA14: sealed bids stay hidden until both are in; the higher bidder pays
/// and takes the Amazon as Jewel, the other gets draw odds.
#[test]
fn sealed_bids_higher_bidder_takes_the_amazon() {
    let mut m = one_all();
    assert_eq!(m.buy(White, Pawn, None), Err(ArmyError::AuctionFirst));
    m.bid(White, parse_bid("12").unwrap()).unwrap();
    assert_eq!(m.phase(), Phase::Bidding);
    assert!(m.summary(White).contains("you bid 12.00"), "{}", m.summary(White));
    assert!(!m.summary(Black).contains("12.00"), "{}", m.summary(Black));
    assert_eq!(m.bid(White, g(13.0)), Err(ArmyError::AlreadyBid));
    m.bid(Black, parse_bid("13.5").unwrap()).unwrap();
    // Black pays 13.50 of 120.
    assert_eq!(m.gold, [g(125.0), g(106.5)]);
    assert_eq!(m.draw_odds, Some(White));
    assert_eq!(m.army(Black).kind_at(sq("d8")), Some(Amazon));
    let auction = m.auction.as_ref().unwrap();
    assert_eq!((auction.winner, auction.price), (Some(Black), g(13.5)));
    assert_eq!(m.phase(), Phase::Army { color: White });
    assert!(m.summary(White).contains("You have draw odds"), "{}", m.summary(White));
    m.buy(White, King, None).unwrap();
    m.ready(White).unwrap();
    // Black may not sell the Amazon, nor buy a second Jewel.
    assert_eq!(m.sell(Black, sq("d8")), Err(ArmyError::AmazonNotSold));
    assert!(matches!(m.buy(Black, Queen, None), Err(ArmyError::ClassFull { .. })));
    m.ready(Black).unwrap();
    assert_eq!(m.start_fen(), "3zk3/8/8/8/8/8/8/4K3 w - - 0 1");
}

/// CA14: a Jewel already owned by the auction's winner is refunded.
#[test]
fn amazon_refunds_an_owned_jewel() {
    let mut m = Match::new();
    m.buy(White, King, None).unwrap();
    m.ready(White).unwrap();
    m.buy(Black, King, None).unwrap();
    m.buy(Black, Queen, None).unwrap();
    m.ready(Black).unwrap();
    m.end_round(
        RoundResult::win(White, RoundEnd::Checkmate),
        &board(&[("e1", White, 'K'), ("e8", Black, 'K'), ("d4", Black, 'Q')]),
    )
    .unwrap();
    assert_eq!(placed(&m, Black), vec![(sq("d8"), Queen)]);
    setup_kings(&mut m);
    m.end_round(
        RoundResult::win(Black, RoundEnd::Time),
        &board(&[("e1", White, 'K'), ("e8", Black, 'K'), ("a5", Black, 'Q')]),
    )
    .unwrap();
    // Black: 40-5-10.5 = 24.50, +40-5 = 59.50, +40+10 = 109.50.
    assert_eq!(m.gold(Black), g(109.5));
    assert_eq!(m.army(Black).jewel(), Some(Queen));
    m.bid(Black, g(20.0)).unwrap();
    m.bid(White, g(10.0)).unwrap();
    // 109.50 - 20 + 10.50 for the Queen = 100.
    assert_eq!(m.gold(Black), g(100.0));
    assert_eq!(m.army(Black).count_class(PieceClass::Jewel), 1);
    assert_eq!(m.army(Black).kind_at(sq("d8")), Some(Amazon));
    assert_eq!(m.draw_odds, Some(White));
}

/// CA14: on equal bids White must raise first ("White Must Increase The Bid
/// First"); then, Black first, each raises by 0.5 or passes; who passes
/// first loses and the other pays the standing bid.
#[test]
fn equal_bids_raise_from_white_and_pass_loses() {
    let mut m = one_all();
    m.bid(White, g(10.0)).unwrap();
    m.bid(Black, g(10.0)).unwrap();
    assert_eq!(m.phase(), Phase::Raising { to_move: White });
    let err = m.raise(Black).unwrap_err();
    assert_eq!(err, ArmyError::NotYourRaise { to_move: White });
    assert_eq!(err.to_string(), "It is White's turn to raise or pass.");
    assert_eq!(m.pass(Black), Err(ArmyError::NotYourRaise { to_move: White }));
    // CA14: White may not pass before its first raise.
    let err = m.pass(White).unwrap_err();
    assert_eq!(err, ArmyError::MustRaiseFirst);
    assert_eq!(err.to_string(), "After equal bids White must raise first (CA14): /raise.");
    assert_eq!(m.phase(), Phase::Raising { to_move: White }, "the refused pass changes nothing");
    m.raise(White).unwrap();
    assert_eq!(m.phase(), Phase::Raising { to_move: Black });
    assert!(m.summary(Black).contains("the bid stands at 10.50; raise by 0.5 or pass"), "{}", m.summary(Black));
    m.raise(Black).unwrap();
    assert_eq!(m.phase(), Phase::Raising { to_move: White });
    m.pass(White).unwrap();
    // Black pays the standing 11.00 of 120.
    assert_eq!(m.gold, [g(125.0), g(109.0)]);
    assert_eq!(m.army(Black).kind_at(sq("d8")), Some(Amazon));
    assert_eq!(m.draw_odds, Some(White));
    assert_eq!(m.auction.as_ref().unwrap().raises, vec![White, Black]);
    assert_eq!(m.raise(White), Err(ArmyError::NotRaising));

    // After White's forced raise Black may pass at once: White pays 8.
    let mut m = one_all();
    m.bid(White, g(7.5)).unwrap();
    m.bid(Black, g(7.5)).unwrap();
    m.raise(White).unwrap();
    m.pass(Black).unwrap();
    assert_eq!(m.gold, [g(117.0), g(120.0)]);
    assert_eq!(m.draw_odds, Some(Black));
    assert_eq!(m.auction.as_ref().unwrap().unaffordable, None);
}

/// CA14: a player who cannot afford a raise passes: White, bidding all its
/// gold, loses the tie at once; Black, out of gold after White's raise,
/// passes at once.
#[test]
fn equal_bids_a_player_who_cannot_raise_passes() {
    // White bids all of its 125: it cannot raise, so it passes and Black pays 125.
    let mut m = one_all();
    m.gold = [g(125.0), g(125.0)];
    m.bid(White, g(125.0)).unwrap();
    m.bid(Black, g(125.0)).unwrap();
    assert_eq!(m.auction.as_ref().unwrap().winner, Some(Black));
    assert_eq!(m.auction.as_ref().unwrap().unaffordable, Some(White));
    assert_eq!(m.gold, [g(125.0), g(0.0)]);
    assert_eq!(m.draw_odds, Some(White));
    assert_eq!(m.phase(), Phase::Army { color: White });
    // Black bids all of its 120: after White's raise to 120.50 it cannot go on.
    let mut m = one_all();
    m.bid(White, g(120.0)).unwrap();
    m.bid(Black, g(120.0)).unwrap();
    m.raise(White).unwrap();
    assert_eq!(m.auction.as_ref().unwrap().winner, Some(White));
    assert_eq!(m.auction.as_ref().unwrap().unaffordable, Some(Black));
    assert_eq!(m.gold, [g(4.5), g(120.0)]);
    assert_eq!(m.draw_odds, Some(Black));
}

/// CA14: a bid is a multiple of 0.5 and at most the bidder's gold; a raise
/// beyond one's gold is refused.
#[test]
fn bad_bids_and_raises_refused() {
    let err = parse_bid("11.07").unwrap_err();
    assert_eq!(err.to_string(), "A bid must be a multiple of 0.5 (like 11 or 11.5), not 11.07.");
    assert!(matches!(parse_bid("9.54"), Err(ArmyError::BidNotHalf { .. })));
    assert!(matches!(parse_bid("9.25"), Err(ArmyError::BidNotHalf { .. })));
    assert!(matches!(parse_bid("9.501"), Err(ArmyError::BidNotHalf { .. })));
    assert_eq!(parse_bid("9.50"), Ok(38));
    assert_eq!(parse_bid("0"), Ok(0));
    assert!(matches!(parse_bid("-3"), Err(ArmyError::BadAmount { .. })));

    let mut m = one_all();
    assert!(matches!(m.bid(White, g(9.25)), Err(ArmyError::BidNotHalf { .. })));
    let err = m.bid(White, g(126.0)).unwrap_err();
    assert_eq!(err, ArmyError::BidOverGold { bid: g(126.0), gold: g(125.0) });
    assert_eq!(err.to_string(), "You cannot bid 126.00 gold: you have 125.00.");
    assert_eq!(m.auction.as_ref().unwrap().bids, [None, None], "refused bids are not kept");
    // Both bid 119: White raises to 119.50, Black to 120 (all its gold);
    // White raises to 120.50 and Black, who cannot follow, passes (CA14).
    m.bid(White, g(119.0)).unwrap();
    m.bid(Black, g(119.0)).unwrap();
    m.raise(White).unwrap();
    m.raise(Black).unwrap();
    m.raise(White).unwrap();
    assert_eq!(m.raise(Black), Err(ArmyError::NotRaising), "the auction is over");
    // White pays 120.50 of 125.
    assert_eq!(m.gold, [g(4.5), g(120.0)]);
    assert_eq!(m.draw_odds, Some(Black));
    assert_eq!(m.army(White).kind_at(sq("d1")), Some(Amazon));
}

// ---------------------------------------------------------------------------
// Start position

/// CA12, CLASH.md: the round's FEN from both armies; `Q` for a King on e1
/// with a Heavy piece on a1 and none on h1, `d` for Black's Shielderer.
#[test]
fn start_fen_of_a_simple_army_pair() {
    let mut m = Match::new();
    m.buy(White, King, None).unwrap();
    m.buy(White, Rook, None).unwrap();
    m.buy(White, Knight, None).unwrap();
    m.buy(White, Omnipawn, Some(sq("d2"))).unwrap();
    m.buy(White, Pawn, Some(sq("e2"))).unwrap();
    m.ready(White).unwrap();
    m.buy(Black, Shielderer, None).unwrap();
    m.buy(Black, Queen, None).unwrap();
    m.buy(Black, Kite, Some(sq("h8"))).unwrap();
    m.buy(Black, Pawn, Some(sq("e7"))).unwrap();
    m.ready(Black).unwrap();
    assert_eq!(m.start_fen(), "3qs2y/4p3/8/8/8/8/3OP3/RN2K3 w Qd - 0 1");
    // 40-5-5.5-3.5-2-1 = 23; 40-5-10.5-5.5-1 = 18.
    assert_eq!(m.gold, [g(23.0), g(18.0)]);
}

/// CLASH.md: a King with Heavy pieces on both corners castles both ways, a
/// White Shielderer writes `D`.
#[test]
fn start_fen_castling_and_shield() {
    let mut m = Match::new();
    m.buy(White, Shielderer, None).unwrap();
    m.buy(White, WarMachine, None).unwrap();
    m.buy(White, Hawk, None).unwrap();
    m.ready(White).unwrap();
    m.buy(Black, King, None).unwrap();
    m.buy(Black, General, None).unwrap();
    m.buy(Black, Rook, None).unwrap();
    m.buy(Black, Elephant, None).unwrap();
    m.ready(Black).unwrap();
    assert_eq!(m.start_fen(), "ge2k2r/8/8/8/8/8/8/M3S2H w Dkq - 0 1");
}
