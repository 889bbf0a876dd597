//! The computer player between the rounds of a Clash of the Armies match
//! (`army::plan`): its armies are always legal and affordable (CA11, CA12),
//! an Amazon it won stays (CA14), its bids follow the standing (CA14), and a
//! random search over armies finds none it would rather have.

use kibitz_rules::army::plan::{Action, Style, act, appraise, bid_limit, choose_army, worth};
use kibitz_rules::army::{
    ArmyPiece, Match, Phase, PieceClass, PieceKind, RoundEnd, RoundResult, ULTIMATE_ROUND, WINNING_HALF_POINTS,
};
use kibitz_rules::{CLASH, Color, Position, Square};

fn cost(kind: PieceKind) -> u32 {
    kind.cost_quarters().unwrap_or(0)
}

/// A random end of a round for `m` (being played): a result, and a final
/// board with some survivors moved, some captured, and now and then a
/// promoted piece.
fn random_round_end(m: &Match, rng: &mut fastrand::Rng) -> (RoundResult, Vec<(Square, Color, char)>) {
    let ultimate = m.round == ULTIMATE_ROUND;
    let result = match rng.u8(0..6) {
        0 => RoundResult::win(Color::White, RoundEnd::Checkmate),
        1 => RoundResult::win(Color::Black, RoundEnd::Checkmate),
        2 => RoundResult::win(if rng.bool() { Color::White } else { Color::Black }, RoundEnd::Resignation),
        3 => RoundResult::win(if rng.bool() { Color::White } else { Color::Black }, RoundEnd::Time),
        4 => RoundResult::draw(RoundEnd::Stalemate),
        _ if ultimate => RoundResult::draw(RoundEnd::FiftyMoves),
        _ => RoundResult::draw(RoundEnd::Agreement),
    };
    let mut free: Vec<Square> = (0..64).filter_map(|i| Square::from_coords(i % 8, i / 8)).collect();
    rng.shuffle(&mut free);
    let mut board = Vec::new();
    for color in [Color::White, Color::Black] {
        for (_, kind) in m.army(color).placed() {
            let mated = result.reason == RoundEnd::Checkmate && result.winner == Some(!color);
            let keep = if kind.class() == PieceClass::Leader { !mated } else { rng.u8(0..10) < 6 };
            if keep && let Some(s) = free.pop() {
                board.push((s, color, letter(kind, color)));
            }
        }
        if rng.u8(0..5) == 0 {
            // A promoted Peasant.
            let kinds: Vec<PieceKind> = PieceKind::ALL
                .into_iter()
                .filter(|k| matches!(k.class(), PieceClass::Light | PieceClass::Heavy | PieceClass::Jewel))
                .filter(|&k| k != PieceKind::Amazon)
                .collect();
            if let Some(s) = free.pop() {
                board.push((s, color, letter(kinds[rng.usize(..kinds.len())], color)));
            }
        }
    }
    (result, board)
}

fn letter(kind: PieceKind, color: Color) -> char {
    if color == Color::White { kind.letter() } else { kind.letter().to_ascii_lowercase() }
}

/// Plays whole matches between two computer players with random round
/// results: every army phase, bid and raise is accepted by the match, every
/// round starts from a legal position, and every match ends.
#[test]
fn computer_players_get_through_whole_matches() {
    let mut rng = fastrand::Rng::with_seed(7);
    let mut rounds = 0;
    let mut auctions = 0;
    let mut amazons_kept = 0;
    for game in 0..300u64 {
        let mut m = Match::new();
        let styles =
            [Style { level: rng.u8(1..=8), seed: game }, Style { level: rng.u8(1..=8), seed: game.wrapping_mul(31) }];
        for _ in 0..40 {
            if let Phase::Over { .. } = m.phase {
                break;
            }
            if let Phase::Playing { round } = m.phase {
                let fen = m.start_fen();
                Position::from_fen(&CLASH, &fen).unwrap_or_else(|e| panic!("round {round} of game {game}: {fen}: {e}"));
                let (result, board) = random_round_end(&m, &mut rng);
                m.end_round(result, &board).unwrap();
                rounds += 1;
                continue;
            }
            let mut acted = false;
            for color in [Color::White, Color::Black] {
                let before = m.clone();
                let gold_before = m.gold(color) + m.army(color).value_quarters();
                let action = act(&mut m, color, styles[color.index()]).unwrap_or_else(|e| {
                    panic!("game {game}, {color:?} in {:?}: {e}\n{:?}", before.phase, before.army(color))
                });
                let Some(action) = action else { continue };
                acted = true;
                if let Action::Army { army, .. } = &action {
                    // Nothing is lost or made in trading: what it owns is what it spent and kept.
                    let spent: u32 = army.iter().map(|p| cost(p.kind)).sum();
                    assert_eq!(spent + m.gold(color), gold_before, "game {game}");
                    assert_eq!(&m.army(color).pieces.len(), &army.len());
                    if before.army(color).pieces.iter().any(|p| p.kind == PieceKind::Amazon) {
                        assert_eq!(m.army(color).jewel(), Some(PieceKind::Amazon), "CA14: the Amazon stays");
                        amazons_kept += 1;
                    }
                }
                if matches!(action, Action::Bid(_)) {
                    auctions += 1;
                }
            }
            assert!(acted, "game {game}: nobody acts in {:?}", m.phase);
        }
        let Phase::Over { winner } = m.phase else { panic!("game {game} did not end: {:?}", m.phase) };
        assert!(m.half_points(winner) >= m.half_points(!winner));
        assert!(m.half_points(winner) >= WINNING_HALF_POINTS || m.round == ULTIMATE_ROUND);
    }
    // The random results reach every part of the match.
    assert!(rounds > 600, "{rounds} rounds");
    assert!(auctions > 100, "{auctions} bids");
    assert!(amazons_kept > 20, "{amazons_kept} armies with an Amazon");
}

/// A random affordable army within the limits of CA12 (without squares).
fn random_army(rng: &mut fastrand::Rng, wealth: u32) -> (Vec<ArmyPiece>, u32) {
    let mut army = vec![ArmyPiece { kind: PieceKind::King, square: None }];
    let mut left = wealth - cost(PieceKind::King);
    let kinds: Vec<PieceKind> =
        PieceKind::ALL.into_iter().filter(|k| k.class() != PieceClass::Leader && *k != PieceKind::Amazon).collect();
    for _ in 0..rng.usize(0..200) {
        let kind = kinds[rng.usize(..kinds.len())];
        let class_count = army.iter().filter(|p| p.kind.class() == kind.class()).count();
        let kind_count = army.iter().filter(|p| p.kind == kind).count();
        if cost(kind) > left
            || class_count >= kind.class().limit()
            || kind.kind_limit().is_some_and(|limit| kind_count >= limit)
        {
            continue;
        }
        left -= cost(kind);
        army.push(ArmyPiece { kind, square: None });
    }
    (army, left)
}

/// The enumeration behind the army is checked by a random search: among
/// 20,000 random affordable armies none is appraised higher than what the
/// level-8 player buys by more than its tolerance.
#[test]
fn no_random_army_is_worth_more_than_the_chosen_one() {
    let mut rng = fastrand::Rng::with_seed(11);
    for (gold, seed) in [(160, 1), (160, 2), (120, 3), (200, 4), (260, 5)] {
        let mut m = Match::new();
        m.gold = [gold, gold];
        let chosen = choose_army(&m, Color::White, Style { level: 8, seed });
        let spent: u32 = chosen.iter().map(|p| cost(p.kind)).sum();
        assert!(spent <= gold);
        let mine = appraise(&chosen, gold - spent);
        for _ in 0..20_000 {
            let (army, left) = random_army(&mut rng, gold);
            let theirs = appraise(&army, left);
            assert!(theirs <= mine + 20, "with {gold} quarters: {army:?} ({theirs}) beats {chosen:?} ({mine})");
        }
    }
}

/// CA12: the army is placed where its classes go, a King on e1, Bishops on
/// both colours, and round 1's 40 gold are nearly all spent.
#[test]
fn the_first_army_is_placed_by_class_and_spends_the_gold() {
    for seed in 0..20 {
        for color in [Color::White, Color::Black] {
            let mut m = Match::new();
            if color == Color::Black {
                act(&mut m, Color::White, Style { level: 8, seed }).unwrap();
            }
            let Some(Action::Army { army, sold }) = act(&mut m, color, Style { level: 8, seed }).unwrap() else {
                panic!("no army");
            };
            assert!(sold.is_empty());
            assert!(m.gold(color) <= 8, "at most 2 gold kept: {}", m.gold(color));
            let back = if color == Color::White { 0 } else { 7 };
            let king = army.iter().find(|p| p.kind == PieceKind::King).and_then(|p| p.square);
            assert_eq!(king, Square::from_coords(4, back));
            for p in &army {
                let s = p.square.expect("placed");
                assert!(p.kind.class().squares(color).contains(&s), "{p:?}");
            }
            assert!(m.army(color).check_ready().is_ok());
        }
    }
}

/// Lower levels vary their armies by the seed; level 8 stays near the best.
#[test]
fn weaker_levels_vary_their_armies() {
    let m = Match::new();
    let armies = |level: u8| {
        let mut seen: Vec<Vec<ArmyPiece>> =
            (0..40).map(|seed| choose_army(&m, Color::White, Style { level, seed })).collect();
        seen.sort_by_key(|a| format!("{a:?}"));
        seen.dedup();
        seen
    };
    assert!(armies(1).len() >= 10, "level 1: {} armies", armies(1).len());
    let best: Vec<i32> =
        armies(8).iter().map(|a| appraise(a, 160 - a.iter().map(|p| cost(p.kind)).sum::<u32>())).collect();
    let top = *best.iter().max().unwrap();
    assert!(best.iter().all(|&b| b >= top - 20), "{best:?}");
}

/// CA14: with equal points the Amazon and the draw odds are worth about the
/// same, and the computer bids a few gold; with unequal points both sides
/// want the draw odds (the leader, as the trailer's draw odds would turn a
/// draw into the trailer's match; the trailer, as a draw is then enough),
/// so it bids nothing and passes.
#[test]
fn bids_follow_the_standing() {
    for seed in 0..30 {
        let style = Style { level: 8, seed };
        let mut m = Match::new();
        m.round = ULTIMATE_ROUND;
        m.phase = Phase::Bidding;
        m.gold = [200, 200];
        m.half_points = [2, 2];
        let limit = bid_limit(&m, Color::White, style);
        assert!((12..=24).contains(&limit) && limit.is_multiple_of(2), "{limit}");
        m.half_points = [3, 1];
        assert_eq!(bid_limit(&m, Color::White, style), 0);
        assert_eq!(bid_limit(&m, Color::Black, style), 0);
        // Equal bids of 0: White must raise first (CA14), to 0.5 past its
        // limit; Black passes and White pays 0.5 for the Amazon.
        act(&mut m, Color::White, style).unwrap();
        act(&mut m, Color::Black, style).unwrap();
        assert_eq!(m.phase, Phase::Raising { to_move: Color::White });
        assert_eq!(act(&mut m, Color::White, style).unwrap(), Some(Action::Raise));
        assert_eq!(act(&mut m, Color::Black, style).unwrap(), Some(Action::Pass));
        assert_eq!(m.auction.as_ref().and_then(|a| a.winner), Some(Color::White));
        assert_eq!(m.auction.as_ref().map(|a| a.price), Some(2));
        assert_eq!(m.draw_odds, Some(Color::Black));
    }
    // Never more than it has.
    let mut m = Match::new();
    m.round = ULTIMATE_ROUND;
    m.phase = Phase::Bidding;
    m.gold = [7, 7];
    m.half_points = [2, 2];
    assert_eq!(bid_limit(&m, Color::White, Style { level: 8, seed: 3 }), 6);
}

/// At equal sealed bids the computer raises up to its limit, then passes.
#[test]
fn raises_stop_at_the_limit() {
    let style = Style { level: 8, seed: 5 };
    let mut m = Match::new();
    m.round = ULTIMATE_ROUND;
    m.phase = Phase::Bidding;
    m.gold = [200, 200];
    m.half_points = [2, 2];
    let limit = bid_limit(&m, Color::Black, style);
    m.bid(Color::White, limit - 4).unwrap();
    m.bid(Color::Black, limit - 4).unwrap();
    // White (a person) raises; the computer (Black) raises back while it can.
    m.raise(Color::White).unwrap();
    assert_eq!(act(&mut m, Color::Black, style).unwrap(), Some(Action::Raise));
    assert_eq!(m.auction.as_ref().and_then(|a| a.standing), Some(limit));
    m.raise(Color::White).unwrap();
    assert_eq!(act(&mut m, Color::Black, style).unwrap(), Some(Action::Pass));
    assert_eq!(m.auction.as_ref().map(|a| (a.winner, a.price)), Some((Some(Color::White), limit + 2)));
}

/// The worth table ranks the pieces as their moves suggest: a compound
/// above its parts, the Amazon above every other Jewel.
#[test]
fn worth_ranks_compounds_above_their_parts() {
    use PieceKind::*;
    assert!(worth(Queen) > worth(Rook) + worth(Bishop) - 100);
    assert!(worth(Chancellor) > worth(Rook) && worth(Archbishop) > worth(Bishop));
    assert!(worth(General) > worth(Knight) + 300);
    assert!(worth(Elephant) > worth(Bishop));
    assert!(worth(Omnipawn) > worth(Pawn));
    for jewel in [Queen, Chancellor, Archbishop, Jester, Rogue, Phoenix] {
        assert!(worth(Amazon) > worth(jewel));
    }
}
