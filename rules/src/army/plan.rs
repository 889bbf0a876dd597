//! A computer player's decisions between the rounds of a Clash of the Armies
//! match (CA11-CA14): which army to buy and where to place it, what to bid
//! for the Amazon, and whether to raise after equal bids.
//!
//! The rounds themselves are played by the search; this module only spends
//! the gold. Its judgement is a table of what each piece is worth on the
//! board ([`worth`]), which differs from the prices of the variant text: the
//! army bought is the one worth most for the gold the player owns (gold plus
//! what its army would fetch, as pieces sell at full price, CA12). A player
//! of a lower level accepts armies further from the best, chosen by a seed,
//! so that its armies vary.
//!
//! ```
//! use kibitz_rules::Color;
//! use kibitz_rules::army::Match;
//! use kibitz_rules::army::plan::{Style, act};
//!
//! let mut m = Match::new();
//! let style = Style { level: 8, seed: 1 };
//! act(&mut m, Color::White, style).unwrap();
//! act(&mut m, Color::Black, style).unwrap();
//! assert!(m.army(Color::White).leader().is_some());
//! assert_eq!(m.phase(), kibitz_rules::army::Phase::Playing { round: 1 });
//! ```

use super::{ArmyError, ArmyPiece, BID_STEP, Match, Phase, PieceClass, PieceKind, PieceRef};
use crate::types::{Color, Square};

/// How a computer player decides: its level (1-8, as the search's) and a
/// seed for its choices among armies of near-equal worth.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Style {
    /// 1 (weakest) to 8 (strongest).
    pub level: u8,
    /// Varies the choice among armies within the level's tolerance.
    pub seed: u64,
}

impl Style {
    /// How far below the best army's worth, in centipawns, an army may be
    /// and still be chosen: 20 at level 8, up to 440 at level 1.
    fn tolerance(self) -> i32 {
        20 + 60 * (8 - i32::from(self.level.clamp(1, 8)))
    }
}

/// What a computer player did in one phase of the match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Sold its army, bought (and placed) this one and confirmed it.
    Army {
        /// Pieces sold first: the whole army but an Amazon, which cannot be
        /// sold and stays (pieces kept are sold and bought back at the same
        /// price).
        sold: Vec<PieceKind>,
        /// The army confirmed, with squares.
        army: Vec<ArmyPiece>,
    },
    /// Sent this sealed bid for the Amazon, in quarters.
    Bid(u32),
    /// Raised the standing bid by 0.5.
    Raise,
    /// Passed: the other player takes the Amazon.
    Pass,
}

/// Acts for `color` if the match waits for it: its army phase, its sealed
/// bid, or its raise. `Ok(None)` when it is not `color`'s part to act.
///
/// An army is bought in several steps; on an error `m` may be left between
/// them, so act on a copy and keep it only on success.
pub fn act(m: &mut Match, color: Color, style: Style) -> Result<Option<Action>, ArmyError> {
    match m.phase {
        Phase::Army { color: c } if c == color => {
            let target = choose_army(m, color, style);
            let mut sold = Vec::new();
            let sellable: Vec<ArmyPiece> =
                m.army(color).pieces.iter().copied().filter(|p| p.kind.cost_quarters().is_some()).collect();
            for p in sellable {
                let what = p.square.map_or(PieceRef::Kind(p.kind), PieceRef::Square);
                m.sell(color, what)?;
                sold.push(p.kind);
            }
            for p in &target {
                if p.kind == PieceKind::Amazon {
                    continue;
                }
                m.buy(color, p.kind, p.square)?;
            }
            m.ready(color)?;
            Ok(Some(Action::Army { sold, army: target }))
        }
        Phase::Bidding if m.auction.as_ref().is_none_or(|a| a.bids[color.index()].is_none()) => {
            let bid = bid_limit(m, color, style);
            m.bid(color, bid)?;
            Ok(Some(Action::Bid(bid)))
        }
        Phase::Raising { to_move } if to_move == color => {
            let standing = m.auction.as_ref().and_then(|a| a.standing).unwrap_or(0);
            // CA14: after equal bids White raises first, whatever its limit.
            let must = m.auction.as_ref().is_some_and(|a| a.must_raise(color));
            if must || standing + BID_STEP <= bid_limit(m, color, style) && standing + BID_STEP <= m.gold(color) {
                m.raise(color)?;
                Ok(Some(Action::Raise))
            } else {
                m.pass(color)?;
                Ok(Some(Action::Pass))
            }
        }
        _ => Ok(None),
    }
}

/// What a piece is worth on the board, in centipawns: a strong player's
/// estimate from how the piece moves, not its price. The prices of the
/// variant text are doubtful for the new pieces (it says so); these values
/// make the computer prefer the pieces that are cheap for what they do.
pub fn worth(kind: PieceKind) -> i32 {
    match kind {
        PieceKind::Pawn => 100,
        // Moves and captures straight and diagonally forward: twice a pawn's
        // threats, and hard to blockade.
        PieceKind::Omnipawn => 170,
        PieceKind::Knight => 305,
        PieceKind::Bishop => 325,
        // Captures only by jumping, onto an empty square behind.
        PieceKind::Rabbit => 300,
        // A Bishop that also steps orthogonally: not bound to one colour.
        PieceKind::Elephant => 430,
        // A Wazir and an Alfil: short-ranged.
        PieceKind::Waffle => 260,
        PieceKind::Rook => 500,
        // Sixteen leaps that cannot be blocked, but nothing near it.
        PieceKind::Hawk => 470,
        // King plus Knight (the Centaur): strong in every phase.
        PieceKind::General => 700,
        // Twelve orthogonal leaps.
        PieceKind::Kite => 380,
        PieceKind::WarMachine => 430,
        PieceKind::Queen => 950,
        PieceKind::Chancellor => 900,
        PieceKind::Archbishop => 850,
        PieceKind::Jester => 600,
        // A short Queen that cannot be taken after its quiet moves.
        PieceKind::Rogue => 650,
        // A four-square Queen whose captor dies with it.
        PieceKind::Phoenix => 820,
        PieceKind::Amazon => 1250,
        // Leaders are bought anyway; the King's step in eight directions and
        // castling make it the safer one.
        PieceKind::King => 0,
        PieceKind::Shielderer => -50,
    }
}

/// Unspent gold carries over (CA11), but wins are scored now: a quarter of
/// gold kept is worth this many centipawns.
const KEPT_QUARTER: i32 = 5;

/// Bonus for two Bishops (they cover both colours).
const BISHOP_PAIR: i32 = 40;

/// Bonus for each Peasant, beyond its own worth: each one closes a file
/// (before the King, in front of the pieces) that the other side's Rooks
/// and Queens would otherwise use.
const FILE_CLOSED: i32 = 20;

/// The pieces of `class` that may be bought (not the auctioned Amazon).
fn for_sale(class: PieceClass) -> Vec<PieceKind> {
    PieceKind::ALL.into_iter().filter(|k| k.class() == class && k.cost_quarters().is_some()).collect()
}

fn cost(kind: PieceKind) -> u32 {
    kind.cost_quarters().unwrap_or(0)
}

/// One army the search considers, without squares.
#[derive(Clone, Debug, Default)]
struct Candidate {
    jewel: Option<PieceKind>,
    heavies: Vec<PieceKind>,
    lights: Vec<PieceKind>,
    pawns: usize,
    omnipawns: usize,
}

/// An army met in the enumeration, with its score.
struct Seen<'a> {
    jewel: Option<PieceKind>,
    heavies: &'a [PieceKind],
    lights: &'a [PieceKind],
    pawns: usize,
    omnipawns: usize,
    score: i32,
}

/// Every multiset of at most `max` pieces from `kinds`, at most `per_kind`
/// of each.
fn multisets(kinds: &[PieceKind], max: usize, per_kind: usize) -> Vec<Vec<PieceKind>> {
    let mut out = vec![Vec::new()];
    for &k in kinds {
        let mut next = Vec::new();
        for set in &out {
            for n in 0..=per_kind {
                if set.len() + n > max {
                    break;
                }
                let mut s = set.clone();
                s.extend(std::iter::repeat_n(k, n));
                next.push(s);
            }
        }
        out = next;
    }
    out
}

/// The best Peasants for `left` quarters: how many Pawns and Omnipawns, and
/// their worth with the gold kept.
fn peasants(left: u32) -> (usize, usize, i32) {
    let mut best = (0, 0, i32::MIN);
    for omni in 0..=8usize {
        let omni_cost = cost(PieceKind::Omnipawn) * omni as u32;
        if omni_cost > left {
            break;
        }
        let pawns = (8 - omni).min(((left - omni_cost) / cost(PieceKind::Pawn)) as usize);
        let kept = left - omni_cost - cost(PieceKind::Pawn) * pawns as u32;
        let score = (worth(PieceKind::Omnipawn) + FILE_CLOSED) * omni as i32
            + (worth(PieceKind::Pawn) + FILE_CLOSED) * pawns as i32
            + KEPT_QUARTER * kept as i32;
        if score > best.2 {
            best = (pawns, omni, score);
        }
    }
    best
}

/// What the computer thinks an army is worth, in centipawns, with
/// `kept` quarters of gold unspent: the pieces' [`worth`], the Bishop pair,
/// the files the Peasants close, and the gold kept. The army it buys is the
/// one of highest appraisal it can afford (at level 8, within 20).
pub fn appraise(army: &[ArmyPiece], kept: u32) -> i32 {
    let bishops = army.iter().filter(|p| p.kind == PieceKind::Bishop).count();
    let peasants = army.iter().filter(|p| p.kind.class() == PieceClass::Peasant).count();
    army.iter().map(|p| worth(p.kind)).sum::<i32>()
        + if bishops == 2 { BISHOP_PAIR } else { 0 }
        + FILE_CLOSED * peasants as i32
        + KEPT_QUARTER * kept as i32
}

/// A small deterministic generator for the seeded choice.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The army `color` buys in its army phase, placed: a King, and the Jewel,
/// Heavy, Light pieces and Peasants worth most for everything it owns (an
/// Amazon won at the auction is kept: it cannot be sold).
pub fn choose_army(m: &Match, color: Color, style: Style) -> Vec<ArmyPiece> {
    let army = m.army(color);
    let amazon = army.pieces.iter().any(|p| p.kind == PieceKind::Amazon);
    let wealth = m.gold(color) + army.value_quarters();
    let jewels: Vec<Option<PieceKind>> = if amazon {
        vec![Some(PieceKind::Amazon)]
    } else {
        std::iter::once(None).chain(for_sale(PieceClass::Jewel).into_iter().map(Some)).collect()
    };
    let heavies = multisets(&for_sale(PieceClass::Heavy), PieceClass::Heavy.limit(), PieceClass::Heavy.limit());
    let lights = multisets(&for_sale(PieceClass::Light), PieceClass::Light.limit(), 2);
    let leader = cost(PieceKind::King);
    // Calls `f` with every affordable army and its score.
    let each = |f: &mut dyn FnMut(&Seen)| {
        for &jewel in &jewels {
            let jewel_cost = jewel.map_or(0, cost);
            for h in &heavies {
                let heavy_cost: u32 = h.iter().map(|&k| cost(k)).sum();
                for l in &lights {
                    let light_cost: u32 = l.iter().map(|&k| cost(k)).sum();
                    let spent = leader + jewel_cost + heavy_cost + light_cost;
                    if spent > wealth {
                        continue;
                    }
                    let (pawns, omnipawns, peasant_score) = peasants(wealth - spent);
                    let bishops = l.iter().filter(|&&k| k == PieceKind::Bishop).count();
                    let score = jewel.map_or(0, worth)
                        + h.iter().map(|&k| worth(k)).sum::<i32>()
                        + l.iter().map(|&k| worth(k)).sum::<i32>()
                        + if bishops == 2 { BISHOP_PAIR } else { 0 }
                        + peasant_score;
                    f(&Seen { jewel, heavies: h, lights: l, pawns, omnipawns, score });
                }
            }
        }
    };
    let mut best = i32::MIN;
    each(&mut |s| best = best.max(s.score));
    let floor = best.saturating_sub(style.tolerance());
    let mut near = 0u64;
    each(&mut |s| near += u64::from(s.score >= floor));
    // The seed picks one of the armies near the best.
    let mut pick = mix(style.seed ^ (u64::from(m.round) << 56) ^ color.index() as u64) % near.max(1);
    let mut chosen = Candidate::default();
    each(&mut |s| {
        if s.score >= floor {
            if pick == 0 {
                chosen = Candidate {
                    jewel: s.jewel,
                    heavies: s.heavies.to_vec(),
                    lights: s.lights.to_vec(),
                    pawns: s.pawns,
                    omnipawns: s.omnipawns,
                };
            }
            pick = pick.wrapping_sub(1);
        }
    });
    place(color, &chosen)
}

/// Squares for an army (CA12): the King on e, the Jewel on d, the Heavy
/// pieces in the corners; Bishops and Elephants on c and f (Bishops thus on
/// both colours), the other Light pieces on b and g; Omnipawns in the
/// centre, Pawns before the King first.
fn place(color: Color, c: &Candidate) -> Vec<ArmyPiece> {
    let back = if color == Color::White { 0 } else { 7 };
    let second = if color == Color::White { 1 } else { 6 };
    let at = |file: u8, rank: u8| Square::from_coords(file, rank);
    let mut out = vec![ArmyPiece { kind: PieceKind::King, square: at(4, back) }];
    if let Some(j) = c.jewel {
        out.push(ArmyPiece { kind: j, square: at(3, back) });
    }
    for (&k, file) in c.heavies.iter().zip([0, 7]) {
        out.push(ArmyPiece { kind: k, square: at(file, back) });
    }
    let mut free = vec![2u8, 5, 1, 6];
    let mut lights = c.lights.clone();
    // Diagonal pieces first, so that they get the inner squares.
    lights.sort_by_key(|k| match k {
        PieceKind::Bishop => 0,
        PieceKind::Elephant => 1,
        _ => 2,
    });
    for k in lights {
        let outer = !matches!(k, PieceKind::Bishop | PieceKind::Elephant);
        let i = if outer { free.iter().position(|&f| f == 1 || f == 6).unwrap_or(0) } else { 0 };
        let file = free.remove(i.min(free.len() - 1));
        out.push(ArmyPiece { kind: k, square: at(file, back) });
    }
    let files = [4u8, 3, 5, 2, 6, 1, 7, 0];
    let kinds =
        std::iter::repeat_n(PieceKind::Omnipawn, c.omnipawns).chain(std::iter::repeat_n(PieceKind::Pawn, c.pawns));
    for (k, &file) in kinds.zip(files.iter()) {
        out.push(ArmyPiece { kind: k, square: at(file, second) });
    }
    out
}

/// The most `color` would pay for the Amazon, in quarters (CA14): its
/// sealed bid, and how far it raises after equal bids.
///
/// The lower bidder gets draw odds. With equal points (1-1) the Amazon and
/// the draw odds are worth about the same, and the computer bids a few gold.
/// With unequal points both sides want to lose the auction: the leader, as
/// a draw already wins it the match and draw odds for the trailer would
/// turn that draw into the trailer's match; the trailer, as draw odds make
/// a draw enough. Then it bids nothing and passes.
pub fn bid_limit(m: &Match, color: Color, style: Style) -> u32 {
    let mine = m.half_points(color);
    let theirs = m.half_points(!color);
    if mine != theirs {
        return 0;
    }
    // 3 to 6 gold, in half-gold steps, by the seed.
    let steps = (mix(style.seed ^ 0xa5a5) % 7) as u32;
    (12 + steps * BID_STEP).min(m.gold(color) / BID_STEP * BID_STEP)
}
