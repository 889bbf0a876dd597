//! Clash of the Armies (CA1-CA9; notation in `CLASH.md`): the pieces that
//! are not sliders, steppers or leapers of the usual kind (the Rabbit's
//! chains, the Jester's paths, the War Machine's shots), invulnerability,
//! the Phoenix and the shield.
//!
//! Moves are generated pseudo-legally and each is played on a copy: it is
//! kept if the mover's leader cannot be captured afterwards (CA9: an
//! invulnerable leader is never in check). Rabbit chains and Jester paths
//! make pins and checks of shapes no line test knows, so testing is the
//! simple way to be right.

use std::sync::LazyLock;

use arrayvec::ArrayVec;

use crate::attacks::tables;
use crate::moves::{MAX_CHAIN, Move, MoveList, Promote};
use crate::piece::{Piece, Power, Powers};
use crate::position::Position;
use crate::types::{Bitboard, Color, Square};
use crate::variant::Promotion;

const ORTHOGONAL: [(i8, i8); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAGONAL: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// The square `n` steps from `sq` in direction `d`, if on the board.
fn step(sq: Square, d: (i8, i8), n: i8) -> Option<Square> {
    let (f, r) = (sq.file() as i8 + d.0 * n, sq.rank() as i8 + d.1 * n);
    if (0..8).contains(&f) && (0..8).contains(&r) { Square::from_coords(f as u8, r as u8) } else { None }
}

/// Squares reached by leaps of the given distances in the given directions.
fn leaps(sq: Square, dirs: &[(i8, i8)], dists: &[i8]) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    for &d in dirs {
        for &n in dists {
            if let Some(s) = step(sq, d, n) {
                b |= s.bb();
            }
        }
    }
    b
}

/// Squares within `n` (at most 4) king steps of `sq`, from a table built once.
fn within(sq: Square, n: u8) -> Bitboard {
    static TABLE: LazyLock<[[Bitboard; 5]; 64]> = LazyLock::new(|| {
        std::array::from_fn(|from| {
            std::array::from_fn(|n| {
                let from = Square::new(from as u8);
                (0..64u8).map(Square::new).fold(Bitboard::EMPTY, |b, s| {
                    let d = s.file().abs_diff(from.file()).max(s.rank().abs_diff(from.rank()));
                    if d as usize <= n { b | s.bb() } else { b }
                })
            })
        })
    });
    TABLE[sq.index()][n.min(4) as usize]
}

/// A Rabbit chain being built: its jumps' directions so far.
#[derive(Clone, Copy)]
struct Chain {
    dirs: u32,
    len: u8,
}

impl Position {
    /// The pieces that cannot be captured now (CA6, CA8, CA9): Rogues after
    /// their quiet move, and while a shield is up its Shielderer and the
    /// friendly pieces orthogonally next to it.
    pub fn invulnerable(&self) -> Bitboard {
        let mut inv = self.guard;
        for c in Color::ALL {
            if (1..=3).contains(&self.shield[c.index()]) {
                let ours = self.by_color[c.index()];
                for s in self.power(Power::Shield) & ours {
                    inv |= s.bb() | (leaps(s, &ORTHOGONAL, &[1]) & ours);
                }
            }
        }
        inv
    }

    /// The state of `color`'s shield (CA8): `None` if it has none left to
    /// raise or up, `Some(0)` if it may still be raised, `Some(n)` while up,
    /// with `n` (1-3) of its owner's turns still to begin before it drops.
    pub fn shield(&self, color: Color) -> Option<u8> {
        match self.shield[color.index()] {
            0 => None,
            4 => Some(0),
            n => Some(n),
        }
    }

    /// Attacks of the powers that are Clash's own; `color` owns the piece.
    pub(crate) fn exotic_attacks(&self, sq: Square, powers: Powers, color: Color, occ: Bitboard) -> Bitboard {
        let t = tables();
        let slide = |o: Bitboard| t.rook(sq, o) | t.bishop(sq, o);
        let mut a = Bitboard::EMPTY;
        if powers.contains(Powers::OMNI) {
            a |= t.pawn(color, sq) | (sq.bb().forward(color) & self.mask);
        }
        if powers.contains(Powers::WAZIR) {
            a |= leaps(sq, &ORTHOGONAL, &[1]);
        }
        if powers.contains(Powers::FERZ) {
            a |= leaps(sq, &DIAGONAL, &[1]);
        }
        if powers.contains(Powers::ALFIL) {
            a |= leaps(sq, &DIAGONAL, &[2]);
        }
        if powers.contains(Powers::HAWK) {
            a |= leaps(sq, &ORTHOGONAL, &[2, 3]) | leaps(sq, &DIAGONAL, &[2, 3]);
        }
        if powers.contains(Powers::KITE) {
            a |= leaps(sq, &ORTHOGONAL, &[1, 2, 3]);
        }
        if powers.contains(Powers::MACHINE) {
            a |= (t.rook(sq, occ) & within(sq, 2)) | leaps(sq, &DIAGONAL, &[1]);
        }
        if powers.contains(Powers::ROGUE) {
            a |= slide(occ) & within(sq, 2);
        }
        if powers.contains(Powers::PHOENIX) {
            a |= slide(occ) & within(sq, 4);
        }
        if powers.contains(Powers::JESTER) {
            a |= self.jester_reach(sq, occ);
        }
        if powers.contains(Powers::RABBIT) {
            a |= self.rabbit_targets(sq, color);
        }
        a & self.mask
    }

    /// CA5: every square a path of one to three orthogonal steps reaches,
    /// passing only empty squares.
    fn jester_reach(&self, from: Square, occ: Bitboard) -> Bitboard {
        let mut reached = Bitboard::EMPTY;
        let mut frontier = from.bb();
        for _ in 0..3 {
            let mut next = Bitboard::EMPTY;
            for s in frontier {
                next |= leaps(s, &ORTHOGONAL, &[1]);
            }
            next &= !from.bb();
            reached |= next;
            // Only empty squares may be passed.
            frontier = next & !occ;
        }
        reached
    }

    /// CA2: the enemy pieces some chain of the Rabbit on `from` could jump.
    fn rabbit_targets(&self, from: Square, color: Color) -> Bitboard {
        let mut hits = Bitboard::EMPTY;
        self.rabbit_search(from, color, &mut |_, captured, _| hits |= captured);
        hits
    }

    /// Every chain of the Rabbit on `from`: calls `found` with the chain (as
    /// a move), the enemies it captures and whether it leaves the board.
    fn rabbit_search(&self, from: Square, color: Color, found: &mut impl FnMut(Move, Bitboard, bool)) {
        let occ = self.occupied() & !from.bb();
        let enemies = self.by_color[(!color).index()] & !self.invulnerable();
        let start = Chain { dirs: 0, len: 0 };
        // CA2: the square the Rabbit left is empty and may be landed on once.
        self.rabbit_dfs(from, from, occ, enemies, Bitboard::EMPTY, Bitboard::EMPTY, start, found);
    }

    #[allow(clippy::too_many_arguments)]
    fn rabbit_dfs(
        &self,
        origin: Square,
        at: Square,
        occ: Bitboard,
        enemies: Bitboard,
        landed: Bitboard,
        jumped: Bitboard,
        chain: Chain,
        found: &mut impl FnMut(Move, Bitboard, bool),
    ) {
        if chain.len as usize >= MAX_CHAIN {
            return;
        }
        let own_side = self.by_color[self.piece_at(origin).map_or(0, |p| p.color.index())];
        for (dir, d) in ORTHOGONAL.iter().enumerate() {
            for far in [false, true] {
                let Some(first) = step(at, *d, 1) else { continue };
                let victim = if far {
                    if occ.has(first) {
                        continue;
                    }
                    match step(at, *d, 2) {
                        Some(v) => v,
                        None => continue,
                    }
                } else {
                    first
                };
                if !occ.has(victim) || jumped.has(victim) {
                    continue;
                }
                // A friendly piece may be jumped; an enemy only if it can be
                // captured (CA9).
                let enemy = enemies.has(victim);
                if !enemy && !own_side.has(victim) {
                    continue;
                }
                let next = Chain { dirs: chain.dirs | (dir as u32) << (2 * chain.len as u32), len: chain.len + 1 };
                let captured = (jumped | victim.bb()) & enemies;
                match step(victim, *d, 1) {
                    None => {
                        // The edge: the Rabbit leaves the board with an enemy.
                        if enemy {
                            let m = Move::Chain { from: origin, to: victim, dirs: next.dirs, meta: next.len | 0x80 };
                            found(m, captured, true);
                        }
                    }
                    Some(land) => {
                        if occ.has(land) || landed.has(land) {
                            continue;
                        }
                        let m = Move::Chain { from: origin, to: land, dirs: next.dirs, meta: next.len };
                        found(m, captured, false);
                        let landed = landed | land.bb();
                        let jumped = jumped | victim.bb();
                        self.rabbit_dfs(origin, land, occ, enemies, landed, jumped, next, found);
                    }
                }
            }
        }
    }

    /// The pieces of `by` that could capture on `sq` now (any way: moving,
    /// jumping, shooting). Leaders never capture a Phoenix (CA7).
    pub(crate) fn clash_attackers(&self, sq: Square, by: Color) -> Bitboard {
        let occ = self.occupied();
        let target_is_phoenix = self.piece_at(sq).is_some_and(|p| p.powers.contains(Powers::PHOENIX));
        let mut found = Bitboard::EMPTY;
        for s in self.by_color[by.index()] {
            let Some(p) = self.piece_at(s) else { continue };
            if p.royal && target_is_phoenix {
                continue;
            }
            if self.attacks(s, self.moves_of(p), by, occ).has(sq) {
                found |= s.bb();
            }
        }
        found
    }

    /// Every legal move of Clash of the Armies.
    pub(crate) fn generate_clash(&self, list: &mut MoveList) {
        let us = self.turn;
        let mut pseudo = MoveList::new();
        self.clash_pseudo(&mut pseudo);
        for m in pseudo {
            let mut after = self.clone();
            after.play_unchecked(m);
            if !after.royal_attacked(us) {
                list.push(m);
            }
        }
    }

    fn clash_pseudo(&self, list: &mut MoveList) {
        let us = self.turn;
        let ours = self.by_color[us.index()];
        let them = self.by_color[(!us).index()];
        let occ = self.occupied();
        let empty = !occ & self.mask;
        let inv = self.invulnerable();
        let phoenixes = self.power(Power::Phoenix);
        let t = tables();
        for from in ours {
            let Some(piece) = self.piece_at(from) else { continue };
            let powers = self.moves_of(piece);
            let mut capturable = them & !inv;
            if piece.royal {
                capturable &= !phoenixes;
            }
            if powers.contains(Powers::RABBIT) {
                // CA2: slides onto empty squares, never capturing by landing.
                for to in t.rook(from, occ) & within(from, 2) & empty {
                    list.push(Move::Normal { from, to, promote: Promote::No, keep: false });
                }
                self.rabbit_search(from, us, &mut |m, _, _| list.push(m));
                continue;
            }
            if powers.contains(Powers::PAWN) || powers.contains(Powers::OMNI) {
                self.peasant_moves(from, powers, capturable, list);
                continue;
            }
            let reach = self.attacks(from, powers, us, occ);
            for to in reach & (empty | capturable) {
                list.push(Move::Normal { from, to, promote: Promote::No, keep: false });
            }
            if powers.contains(Powers::MACHINE) {
                // CA4: instead of capturing it may shoot, without moving.
                for target in reach & capturable {
                    list.push(Move::Shoot { from, target });
                }
            }
            if powers.contains(Powers::SHIELD) && self.shield[us.index()] == 4 {
                list.push(Move::Shield { square: from });
            }
        }
        if let Some(k) = self.royal_square(us)
            && self.piece_at(k).is_some_and(|p| p.powers == Powers::KING)
            && !self.royal_attacked(us)
        {
            self.castling_by_testing(k, list);
        }
    }

    /// CA1: a Pawn's or Omnipawn's moves, with promotion and en passant.
    fn peasant_moves(&self, from: Square, powers: Powers, capturable: Bitboard, list: &mut MoveList) {
        let us = self.turn;
        let t = tables();
        let empty = !self.occupied() & self.mask;
        let ahead = from.bb().forward(us) & self.mask;
        let diagonal = t.pawn(us, from);
        let omni = powers.contains(Powers::OMNI);
        let mut targets = ahead & empty;
        if targets.any() && self.double_step_rank(us).has(from) {
            targets |= ahead.forward(us) & empty & self.mask;
        }
        targets |= diagonal & capturable;
        if omni {
            targets |= (ahead & capturable) | (diagonal & empty);
        }
        // The victim must be capturable (CA9).
        let ep = self.ep.filter(|e| {
            let victim = Square::new(from.rank() * 8 + e.file());
            diagonal.has(*e) && capturable.has(victim)
        });
        if let Some(e) = ep {
            // The en passant square is taken en passant, whichever way the
            // peasant could reach it.
            targets &= !e.bb();
            list.push(Move::EnPassant { from, to: e, keep: false });
        }
        let zone = self.last_rank(us);
        let kinds: &[u8] = match self.variant.promotion {
            Promotion::Choice(k) => k,
            _ => &[],
        };
        for to in targets {
            if zone.has(to) && !kinds.is_empty() {
                for &k in kinds {
                    list.push(Move::Normal { from, to, promote: Promote::To(k), keep: false });
                }
            } else {
                list.push(Move::Normal { from, to, promote: Promote::No, keep: false });
            }
        }
    }

    /// A Rabbit chain's jumps as (jumped square, landing square), read on
    /// this position (before the chain is played); the last landing of a
    /// chain that leaves the board is its jumped square.
    pub fn chain_path(&self, m: &Move) -> ArrayVec<(Square, Square), MAX_CHAIN> {
        let mut out = ArrayVec::new();
        let Move::Chain { from, dirs, .. } = *m else {
            return out;
        };
        let Some((len, off)) = m.chain_shape() else {
            return out;
        };
        let occ = self.occupied() & !from.bb();
        let mut at = from;
        for i in 0..len.min(MAX_CHAIN) {
            let d = ORTHOGONAL[(dirs >> (2 * i) & 3) as usize];
            let Some(first) = step(at, d, 1) else { break };
            // Nothing may stand between: an empty first square means the
            // jumped piece stands two away.
            let victim = if occ.has(first) { Some(first) } else { step(at, d, 2) };
            let Some(victim) = victim else { break };
            match step(victim, d, 1) {
                Some(land) if !(off && i + 1 == len) => {
                    out.push((victim, land));
                    at = land;
                }
                _ => {
                    out.push((victim, victim));
                    break;
                }
            }
        }
        out
    }

    /// Plays a Rabbit chain (CA2): the enemies jumped are removed when it
    /// ends; a chain leaving the board removes the Rabbit too, and so does a
    /// jumped Phoenix (CA7). Returns true if anything was captured.
    pub(crate) fn play_chain(&mut self, m: Move) -> bool {
        let Move::Chain { from, .. } = m else {
            return false;
        };
        let off = m.chain_shape().is_some_and(|(_, off)| off);
        let path = self.chain_path(&m);
        let Some(rabbit) = self.remove(from) else {
            return false;
        };
        self.touch_castling(from, from, rabbit);
        let mut captured = false;
        let mut dies = off;
        for (jumped, _) in &path {
            if let Some(v) = self.piece_at(*jumped).filter(|v| v.color != rabbit.color) {
                captured = true;
                dies |= v.powers.contains(Powers::PHOENIX);
                self.remove(*jumped);
                self.touch_castling(*jumped, *jumped, v);
            }
        }
        if !dies && let Some(&(_, land)) = path.last() {
            self.put(land, rabbit);
        }
        captured
    }

    /// The turn of `color` begins (CA6, CA8): its Rogues' invulnerability
    /// ends and a raised shield counts down.
    pub(crate) fn begin_turn(&mut self, color: Color) {
        let k = crate::zobrist::keys();
        for sq in self.guard & self.by_color[color.index()] {
            self.hash ^= k.guard[sq.index()];
            self.guard &= !sq.bb();
        }
        let s = self.shield[color.index()];
        if (1..=3).contains(&s) {
            self.set_shield(color, s - 1);
        }
    }

    pub(crate) fn set_shield(&mut self, color: Color, value: u8) {
        let k = crate::zobrist::keys();
        let old = self.shield[color.index()];
        if old != 0 {
            self.hash ^= k.shield[color.index()][old.min(4) as usize];
        }
        if value != 0 {
            self.hash ^= k.shield[color.index()][value.min(4) as usize];
        }
        self.shield[color.index()] = value;
    }

    /// CA6: the Rogue now on `sq` is invulnerable until its owner's next turn.
    pub(crate) fn set_guard(&mut self, sq: Square) {
        if !self.guard.has(sq) {
            self.guard |= sq.bb();
            self.hash ^= crate::zobrist::keys().guard[sq.index()];
        }
    }
}

/// Whether a piece is a Rogue (CA6).
pub(crate) fn is_rogue(p: Piece) -> bool {
    p.powers.contains(Powers::ROGUE)
}
