//! Legal move generation.
//!
//! For variants with a royal piece that steps like a king (chess, Olympic)
//! moves are generated legal directly: the checkers give a mask of squares
//! that resolve a single check, the enemy sliders give the pinned pieces and
//! their lines, the royal piece is tested against the enemy's attacks with
//! itself lifted off the board, and en passant (rare) is played out and
//! tested. Variants without a royal piece (Alapawn) have no such filter.

use crate::attacks::tables;
use crate::moves::{Move, MoveList, Promote, castle_squares};
use crate::piece::{Piece, Power, Powers};
use crate::position::Position;
use crate::types::{Bitboard, Color, Square};
use crate::variant::Promotion;

/// Which of the legal moves to generate.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    All,
    /// All but A6's pair turns.
    Single,
    /// A superset of the captures and promotions (see
    /// [`Position::generate_forcing`]).
    Forcing,
}

/// The part of the position that restricts which moves are legal.
#[derive(Clone, Copy)]
struct Restriction {
    /// Squares a non-royal move must end on (resolving a single check).
    target: Bitboard,
    /// Pieces pinned to the royal piece.
    pinned: Bitboard,
    /// The royal piece of the side to move.
    king: Option<Square>,
    /// More than one checker: only the royal piece may move.
    double_check: bool,
    in_check: bool,
}

impl Position {
    /// Every legal move in the position. Empty when the game is over.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// Appends every legal move to `list` (no copy of the list on return:
    /// the form for hot loops).
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        self.generate(list);
    }

    /// True if `m` is legal here.
    pub fn is_legal(&self, m: &Move) -> bool {
        self.legal_moves().contains(m)
    }

    /// Whether `m` is legal here, told without generating every move where
    /// that is quick: the plain moves of chess (the search asks it of the
    /// move its table remembers for a position, to try that move before
    /// generating the others). `None` where it is not: other games,
    /// castling, en passant; [`Position::is_legal`] tells those.
    pub(crate) fn is_legal_quickly(&self, m: &Move) -> Option<bool> {
        if !std::ptr::eq(self.variant, &crate::variant::CHESS) {
            return None;
        }
        let Move::Normal { from, to, promote, keep } = *m else { return None };
        let us = self.turn;
        let them = self.by_color[(!us).index()];
        let Some(piece) = self.piece_at(from) else { return Some(false) };
        if keep || piece.color != us || !self.mask.has(to) || self.by_color[us.index()].has(to) {
            return Some(false);
        }
        let t = tables();
        let occ = self.occupied();
        if piece.royal {
            let safe = self.attackers(to, !us, them, occ ^ from.bb()).is_empty();
            return Some(promote == Promote::No && t.king(from).has(to) && safe);
        }
        let powers = self.moves_of(piece);
        let reaches = if powers == Powers::PAWN {
            let last = self.last_rank(us).has(to);
            let promotion = match (promote, self.variant.promotion) {
                (Promote::No, _) => !last,
                (Promote::To(k), Promotion::Choice(kinds) | Promotion::Reserve(kinds)) => last && kinds.contains(&k),
                _ => false,
            };
            let step = if them.has(to) {
                t.pawn(us, from).has(to)
            } else {
                self.pawn_steps(from, us, !occ & self.mask).has(to)
            };
            promotion && step
        } else {
            promote == Promote::No && self.attacks(from, powers, us, occ).has(to)
        };
        if !reaches {
            return Some(false);
        }
        // Legal unless it leaves the King attacked.
        let Some(k) = self.royal_square(us) else { return Some(true) };
        let after = (occ ^ from.bb()) | to.bb();
        Some(self.attackers(k, !us, them & !to.bb(), after).is_empty())
    }

    fn restriction(&self) -> Restriction {
        let us = self.turn;
        let Some(k) = self.royal_square(us) else {
            return Restriction {
                target: Bitboard::FULL,
                pinned: Bitboard::EMPTY,
                king: None,
                double_check: false,
                in_check: false,
            };
        };
        let t = tables();
        let them_bb = self.by_color[(!us).index()];
        let occ = self.occupied();
        let checkers = self.attackers(k, !us, them_bb, occ);
        let target = match checkers.first() {
            None => Bitboard::FULL,
            Some(c) => t.between(k, c) | c.bb(),
        };
        let snipers = ((t.rook(k, Bitboard::EMPTY) & self.power(Power::Rook))
            | (t.bishop(k, Bitboard::EMPTY) & self.power(Power::Bishop)))
            & them_bb;
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let blockers = t.between(k, s) & occ;
            if !blockers.more_than_one() {
                pinned |= blockers & self.by_color[us.index()];
            }
        }
        Restriction { target, pinned, king: Some(k), double_check: checkers.more_than_one(), in_check: checkers.any() }
    }

    pub(crate) fn generate(&self, list: &mut MoveList) {
        self.generate_with(list, Scope::All);
    }

    /// Legal moves without A6's pair turns (none of them captures): what a
    /// search looking only for captures needs, without generating hundreds
    /// of pairs.
    pub(crate) fn generate_single(&self, list: &mut MoveList) {
        self.generate_with(list, Scope::Single);
    }

    /// Legal moves that include every capture, promotion and move onto the
    /// last rank, and few others: no drops, castling, reserve turns or pair
    /// turns, and pieces only towards enemy pieces or the last rank. The
    /// quiescence search's candidates, which it filters further; cheaper
    /// than all moves because most quiet ones are never made. Clash and a
    /// royal piece with absorbed powers (PA6) have generators of their own,
    /// which give every move.
    pub(crate) fn generate_forcing(&self, list: &mut MoveList) {
        self.generate_with(list, Scope::Forcing);
    }

    /// Whether [`Position::generate_forcing`] gives fewer moves than all:
    /// not in Clash, nor where a royal piece holds absorbed powers, whose
    /// generators give every move.
    pub(crate) fn forcing_moves_apart(&self) -> bool {
        !(self.variant.armies || (self.variant.absorption && self.royals_with_powers()))
    }

    fn generate_with(&self, list: &mut MoveList, scope: Scope) {
        if self.race_decided().is_some() {
            return;
        }
        if !self.forcing_moves_apart() {
            if self.variant.armies {
                self.generate_clash(list);
            } else {
                self.generate_by_testing(list);
            }
            return;
        }
        let forcing = scope == Scope::Forcing;
        let full = self.restriction();
        let us = self.turn;
        let zone = self.last_rank(us);
        // Where forcing moves end: on an enemy piece or the last rank.
        let dest = if forcing { self.by_color[(!us).index()] | zone } else { Bitboard::FULL };
        let r = Restriction { target: full.target & dest, ..full };
        let ours = self.by_color[us.index()];
        let occ = self.occupied();
        let t = tables();

        if let Some(k) = r.king {
            // The direct generator handles a royal piece that steps like a
            // king; royal pieces with other powers (PA6) went to
            // `generate_by_testing` above.
            debug_assert!(self.piece_at(k).is_some_and(|p| self.moves_of(p) == Powers::KING));
            let them = self.by_color[(!us).index()];
            let lifted = occ & !k.bb();
            for to in t.king(k) & self.mask & !ours & dest {
                if self.attackers(to, !us, them, lifted).is_empty() {
                    if self.variant.absorption {
                        self.push_move(k, to, false, list);
                    } else {
                        list.push(Move::Normal { from: k, to, promote: Promote::No, keep: false });
                    }
                }
            }
            if r.double_check {
                return;
            }
            if self.variant.castling && !r.in_check && !forcing {
                self.castling_moves(k, list);
            }
        }

        let pawns = self.pure_pawns();
        let movers = ours & !r.king.map_or(Bitboard::EMPTY, Square::bb);
        for from in movers & !pawns {
            let Some(piece) = self.piece_at(from) else {
                continue;
            };
            let powers = self.moves_of(piece);
            if powers.has_halves() {
                // CS1: moving and capturing halves.
                let mut line = r.target;
                if r.pinned.has(from) {
                    line &= t.line(r.king.unwrap_or(from), from);
                }
                self.split_moves(from, powers, line, list);
                continue;
            }
            if powers.contains(Powers::PAWN) {
                // A compound holding the Pawn power (PA4, C4).
                let mut line = r.target;
                if r.pinned.has(from) {
                    line &= t.line(r.king.unwrap_or(from), from);
                }
                self.compound_pawn_moves(from, piece, line, list);
                continue;
            }
            let may_flip = match self.variant.promotion {
                Promotion::Flip { optional, .. } => !piece.promoted && piece.powers.intersects(optional),
                _ => false,
            };
            // A piece leaving the promotion zone may promote on any square.
            let allowed = if may_flip && zone.has(from) { full.target } else { r.target };
            let mut targets = self.attacks(from, powers, us, occ) & !ours & allowed;
            if r.pinned.has(from) {
                targets &= t.line(r.king.unwrap_or(from), from);
            }
            if self.variant.absorption {
                for to in targets {
                    self.push_move(from, to, false, list);
                }
                continue;
            }
            for to in targets {
                if may_flip && (zone.has(from) || zone.has(to)) {
                    list.push(Move::Normal { from, to, promote: Promote::Flip, keep: false });
                }
                list.push(Move::Normal { from, to, promote: Promote::No, keep: false });
            }
        }
        self.pawn_moves(movers & pawns, &r, list);
        if forcing {
            return;
        }
        if self.variant.drops {
            self.drops(&r, list);
        }
        if self.variant.grants {
            self.reserve_moves(&r, list);
        }
        if scope == Scope::All && self.variant.pawn_pairs && !(us == Color::White && self.first_pawn_turn) {
            self.pawn_pairs(movers & pawns, list);
        }
    }

    /// Squares a pawn on `from` may step to without capturing.
    #[inline]
    pub(crate) fn pawn_steps(&self, from: Square, us: Color, empty: Bitboard) -> Bitboard {
        let t = tables();
        let ahead = from.bb().forward(us) & self.mask;
        let mut steps = ahead & empty;
        if self.variant.double_step && steps.any() && self.double_step_rank(us).has(from) {
            steps |= steps.forward(us) & empty & self.mask;
        }
        if self.variant.pawn_diagonal_steps {
            steps |= t.pawn(us, from) & empty & self.mask;
        }
        steps
    }

    fn pawn_moves(&self, pawns: Bitboard, r: &Restriction, list: &mut MoveList) {
        let t = tables();
        let us = self.turn;
        let them = self.by_color[(!us).index()];
        let empty = !self.occupied() & self.mask;

        // Unpinned pawns, all at once: each target set is a shift of the
        // pawns, so the origin is the target minus the shift.
        let free = pawns & !r.pinned;
        let fwd: i8 = if us == Color::White { 8 } else { -8 };
        let not_a = !Bitboard::file(0);
        let not_h = !Bitboard::file(7);
        let west = (free & not_a).forward(us).shift(-1) & self.mask;
        let east = (free & not_h).forward(us).shift(1) & self.mask;
        let single = free.forward(us) & empty;
        self.emit_pawn_set(single & r.target, fwd, list);
        if self.variant.double_step {
            let from_home = single & self.double_step_rank(us).forward(us);
            self.emit_pawn_set(from_home.forward(us) & empty & r.target, 2 * fwd, list);
        }
        if self.variant.absorption {
            // Captures may absorb (PA3): each with its own choices.
            for (set, shift) in [(west & them & r.target, fwd - 1), (east & them & r.target, fwd + 1)] {
                for to in set {
                    self.push_move(Square::new((to.index() as i8 - shift) as u8), to, true, list);
                }
            }
        } else {
            self.emit_pawn_set(west & them & r.target, fwd - 1, list);
            self.emit_pawn_set(east & them & r.target, fwd + 1, list);
        }
        if self.variant.pawn_diagonal_steps {
            self.emit_pawn_set(west & empty & r.target, fwd - 1, list);
            self.emit_pawn_set(east & empty & r.target, fwd + 1, list);
        }

        // Pinned pawns may only move along the pin.
        for from in pawns & r.pinned {
            let line = t.line(r.king.unwrap_or(from), from);
            let targets = (self.pawn_steps(from, us, empty) | (t.pawn(us, from) & them & self.mask)) & r.target & line;
            for to in targets {
                self.emit_pawn(from, to, list);
            }
        }

        if let Some(ep) = self.ep {
            // PA4: every non-royal piece holding the Pawn power may capture
            // en passant (royal pieces are not filed under the Pawn power).
            let capturers =
                if self.variant.absorption { self.power(Power::Pawn) & self.by_color[us.index()] } else { pawns };
            for from in t.pawn(!us, ep) & capturers {
                if self.en_passant_is_safe(from, ep) {
                    self.push_en_passant(from, ep, list);
                }
            }
        }
    }

    /// An en passant capture, and its declining twin where that differs (PA3).
    fn push_en_passant(&self, from: Square, to: Square, list: &mut MoveList) {
        list.push(Move::EnPassant { from, to, keep: false });
        if self.variant.absorption {
            let victim = self.piece_at(Square::new(from.rank() * 8 + to.file()));
            // PA7: with a handicap there may be nothing to decline.
            if let (Some(p), Some(v)) = (self.piece_at(from), victim)
                && self.result_powers(p, Some(v), false, Promote::No) != p.powers
            {
                list.push(Move::EnPassant { from, to, keep: true });
            }
        }
    }

    /// Moves of a non-royal piece that holds the Pawn power and others:
    /// the union of its targets, a target its Pawn power reaches being a
    /// pawn move (PA4, C4). `allowed` restricts the targets (check, pins).
    fn compound_pawn_moves(&self, from: Square, piece: Piece, allowed: Bitboard, list: &mut MoveList) {
        let t = tables();
        let us = self.turn;
        let ours = self.by_color[us.index()];
        let them = self.by_color[(!us).index()];
        let occ = self.occupied();
        let empty = !occ & self.mask;
        let powers = self.moves_of(piece);
        let others = self.attacks(from, powers.without(Powers::PAWN), us, occ) & !ours;
        let pawn = self.pawn_steps(from, us, empty) | (t.pawn(us, from) & them & self.mask);
        let mut targets = (others | pawn) & allowed;
        if let Some(ep) = self.ep
            && self.variant.en_passant
            && t.pawn(us, from).has(ep)
        {
            // PA4: going to the en passant square is the en passant capture,
            // generated with the pawns.
            targets &= !ep.bb();
        }
        let zone = self.last_rank(us);
        for to in targets {
            self.push_move(from, to, pawn.has(to), list);
            // PA4, C4: onto the last rank the pawn move promotes, and the
            // other power's move there is a move of its own that does not.
            if pawn.has(to) && zone.has(to) && others.has(to) {
                self.push_move(from, to, false, list);
            }
        }
    }

    /// A move of the piece on `from` to `to` in a variant where captures
    /// absorb or pawn powers sit on compounds: every choice it offers.
    /// `pawn` says the Pawn power makes it (it then promotes on the last
    /// rank, PA5, C5). A royal piece holding the Pawn power promotes on
    /// reaching the last rank by any move (PA5). Declining (PA3) is offered
    /// only where it ends with a different piece.
    pub(crate) fn push_move(&self, from: Square, to: Square, pawn: bool, list: &mut MoveList) {
        let Some(piece) = self.piece_at(from) else {
            return;
        };
        let victim = self.piece_at(to);
        let zone = self.last_rank(self.turn).has(to);
        let kinds: &[u8] = match self.variant.promotion {
            Promotion::Choice(k) | Promotion::Reserve(k) => k,
            _ => &[],
        };
        let promotes = |powers: Powers| {
            zone && !kinds.is_empty() && if piece.royal { powers.contains(Powers::PAWN) } else { pawn }
        };
        let absorbed = self.result_powers(piece, victim, false, Promote::No);
        let absorb_promotes = promotes(absorbed);
        if absorb_promotes {
            for &k in kinds {
                list.push(Move::Normal { from, to, promote: Promote::To(k), keep: false });
            }
        } else {
            list.push(Move::Normal { from, to, promote: Promote::No, keep: false });
        }
        if absorbed == piece.powers {
            return;
        }
        if promotes(piece.powers) {
            for &k in kinds {
                let p = Promote::To(k);
                let differs = !absorb_promotes
                    || self.result_powers(piece, victim, true, p) != self.result_powers(piece, victim, false, p);
                if differs {
                    list.push(Move::Normal { from, to, promote: p, keep: true });
                }
            }
        } else {
            list.push(Move::Normal { from, to, promote: Promote::No, keep: true });
        }
    }

    #[inline]
    fn emit_pawn_set(&self, targets: Bitboard, shift: i8, list: &mut MoveList) {
        let zone = self.last_rank(self.turn);
        for to in targets & !zone {
            let from = Square::new((to.index() as i8 - shift) as u8);
            list.push(Move::Normal { from, to, promote: Promote::No, keep: false });
        }
        for to in targets & zone {
            self.emit_pawn(Square::new((to.index() as i8 - shift) as u8), to, list);
        }
    }

    /// A pawn move, with the promotions the variant asks for on the last rank.
    fn emit_pawn(&self, from: Square, to: Square, list: &mut MoveList) {
        if self.variant.absorption {
            self.push_move(from, to, true, list);
            return;
        }
        if !self.last_rank(self.turn).has(to) {
            list.push(Move::Normal { from, to, promote: Promote::No, keep: false });
            return;
        }
        match self.variant.promotion {
            Promotion::None => list.push(Move::Normal { from, to, promote: Promote::No, keep: false }),
            Promotion::Flip { .. } => list.push(Move::Normal { from, to, promote: Promote::Flip, keep: false }),
            Promotion::Choice(kinds) | Promotion::Reserve(kinds) => {
                for &k in kinds {
                    list.push(Move::Normal { from, to, promote: Promote::To(k), keep: false });
                }
            }
        }
    }

    /// En passant removes two pieces from one line: play it out and look.
    fn en_passant_is_safe(&self, from: Square, to: Square) -> bool {
        let us = self.turn;
        let Some(k) = self.royal_square(us) else {
            return true;
        };
        let victim = Square::new(from.rank() * 8 + to.file());
        let occ = (self.occupied() & !from.bb() & !victim.bb()) | to.bb();
        let them = self.by_color[(!us).index()] & !victim.bb();
        self.attackers(k, !us, them, occ).is_empty()
    }

    fn castling_moves(&self, king: Square, list: &mut MoveList) {
        let us = self.turn;
        let them = self.by_color[(!us).index()];
        let lifted = self.occupied() & !king.bb();
        self.castles(king, list, |sq| self.attackers(sq, !us, them, lifted).is_empty());
    }

    /// Castling moves of the King on `king` whose squares between are empty
    /// and whose every King square (passed or landed on) is `safe`.
    fn castles(&self, king: Square, list: &mut MoveList, safe: impl Fn(Square) -> bool) {
        let us = self.turn;
        let occ = self.occupied();
        let t = tables();
        for rook in self.castling & self.by_color[us.index()] & self.home_rank(us) {
            let (kd, rd) = castle_squares(king, rook);
            let king_path = t.between(king, kd) | kd.bb();
            let must_be_empty =
                (t.between(king, rook) | king_path | t.between(rook, rd) | rd.bb()) & !king.bb() & !rook.bb();
            if (must_be_empty & occ).is_empty() && king_path.into_iter().all(&safe) {
                list.push(Move::Castle { king, rook });
            }
        }
    }

    fn drops(&self, r: &Restriction, list: &mut MoveList) {
        let us = self.turn;
        // In check the target mask is the checker and the squares between;
        // a drop cannot capture, so it can only land between.
        let empty = !self.occupied() & self.mask & r.target;
        for (slot, &count) in self.hands[us.index()].iter().enumerate() {
            if count == 0 {
                continue;
            }
            let mut squares = empty;
            if self.variant.pieces[slot].powers == Powers::PAWN {
                // O5: a pawn may not be dropped on its last rank.
                squares &= !self.last_rank(us);
            }
            for to in squares {
                list.push(Move::Drop { piece: slot as u8, to });
            }
        }
    }

    /// A6: two non-capturing pawn steps (Alapawn has no royal piece, so no
    /// check restriction applies).
    fn pawn_pairs(&self, pawns: Bitboard, list: &mut MoveList) {
        let us = self.turn;
        let zone = self.last_rank(us);
        let empty = !self.occupied() & self.mask;
        for a in pawns {
            // The first step may not reach the last rank: that wins at once.
            let firsts = self.pawn_steps(a, us, empty) & !zone;
            let safe = self.safe_passes(a);
            for mid in firsts {
                let empty_after = (empty | a.bb()) & !mid.bb();
                if safe.has(mid) {
                    for to in self.pawn_steps(mid, us, empty_after) {
                        // Two paths to the same square are the same turn.
                        if self.preferred_pass(a, safe, to) == Some(mid) {
                            list.push(Move::PawnPair { first: (a, mid), second: (mid, to) });
                        }
                    }
                }
                // Two different pawns once each.
                for b in pawns & !a.bb() {
                    for to in self.pawn_steps(b, us, empty_after) {
                        // Both orders give the same turn; when both are
                        // possible keep the one that starts with the lower pawn.
                        let reverse_ok = to != a && !zone.has(to);
                        if !(reverse_ok && b < a) {
                            list.push(Move::PawnPair { first: (a, mid), second: (b, to) });
                        }
                    }
                }
            }
        }
    }

    /// A6: the squares a pawn on `a` may pass through when it steps twice:
    /// first steps short of the last rank that no enemy piece attacks, judged
    /// with the pawn standing on them.
    pub(crate) fn safe_passes(&self, a: Square) -> Bitboard {
        let us = self.turn;
        let them = self.by_color[(!us).index()];
        let empty = !self.occupied() & self.mask;
        let mut safe = Bitboard::EMPTY;
        for mid in self.pawn_steps(a, us, empty) & !self.last_rank(us) {
            let occ_after = (self.occupied() & !a.bb()) | mid.bb();
            if self.attackers(mid, !us, them, occ_after).is_empty() {
                safe |= mid.bb();
            }
        }
        safe
    }

    /// The passed squares (among `safe`) through which a pawn on `a` can
    /// reach `to` with two steps.
    pub(crate) fn passes_to(&self, safe: Bitboard, to: Square) -> Bitboard {
        safe & self.pawn_sources(to, self.turn)
    }

    /// The square a two-step turn from `a` to `to` is written through: the
    /// straight step first where it is safe, else the lowest safe square.
    fn preferred_pass(&self, a: Square, safe: Bitboard, to: Square) -> Option<Square> {
        let through = self.passes_to(safe, to);
        (through & Bitboard::file(a.file())).first().or(through.first())
    }

    /// Construction's turns from the reserve (C2, C6): static drops on the
    /// own first ranks, power grants and Castling-power swaps. Grants and
    /// swaps move nothing that could resolve a check, so they need none.
    fn reserve_moves(&self, r: &Restriction, list: &mut MoveList) {
        let us = self.turn;
        let ours = self.by_color[us.index()];
        let hand = &self.hands[us.index()];
        let h = self.variant.height;
        let zone = (0..self.variant.drop_ranks.min(h))
            .map(|i| Bitboard::rank(if us == Color::White { i } else { h - 1 - i }))
            .fold(Bitboard::EMPTY, |a, b| a | b);
        // Slots past the hand's are named pieces that no reserve holds.
        for (slot, (pt, &count)) in self.variant.pieces.iter().zip(hand.iter()).enumerate() {
            if pt.powers.is_empty() && !pt.royal && count > 0 {
                for to in zone & !self.occupied() & self.mask & r.target {
                    list.push(Move::Drop { piece: slot as u8, to });
                }
            }
        }
        if r.in_check {
            return;
        }
        let last = self.last_rank(us);
        for to in ours & !self.royal {
            let Some(p) = self.piece_at(to) else {
                continue;
            };
            for (slot, (pt, &count)) in self.variant.pieces.iter().zip(hand.iter()).enumerate() {
                let single = pt.powers.count() == 1;
                if count == 0 || !single || pt.royal || p.powers.contains(pt.powers) {
                    continue;
                }
                // C4, CS3: no Pawn power or half for a piece on its last rank.
                if pt.powers.intersects(Powers::PAWN_ANY) && last.has(to) {
                    continue;
                }
                list.push(Move::Grant { piece: slot as u8, to });
            }
        }
        // C6: the holder must not be attacked; the King, not in check now,
        // lands on the holder's square with the same pieces around.
        if let Some(king) = r.king {
            let them = self.by_color[(!us).index()];
            for from in self.power(Power::Castle) & ours & !self.royal {
                if self.attackers(from, !us, them, self.occupied()).is_empty() {
                    list.push(Move::Swap { from, king });
                }
            }
        }
    }

    /// PA6 is in play: some royal piece holds more than the King power.
    #[inline]
    pub(crate) fn royals_with_powers(&self) -> bool {
        (self.royal & (self.power(Power::Rook) | self.power(Power::Bishop) | self.power(Power::Knight))).any()
    }

    /// Power Absorption with Kings that hold other powers (PA6): every
    /// pseudo-legal move, each played on a copy and kept if the own King is
    /// not in check afterwards. Rare, so simple.
    fn generate_by_testing(&self, list: &mut MoveList) {
        let us = self.turn;
        let ours = self.by_color[us.index()];
        let occ = self.occupied();
        let t = tables();
        let mut pseudo = MoveList::new();
        for from in ours {
            let Some(piece) = self.piece_at(from) else {
                continue;
            };
            let powers = self.moves_of(piece);
            if piece.royal {
                let mut targets = Bitboard::EMPTY;
                if powers.contains(Powers::KING) {
                    targets |= t.king(from);
                }
                if powers.contains(Powers::KNIGHT) {
                    targets |= t.knight(from);
                }
                if powers.intersects(Powers::QUEEN) {
                    targets |= self.royal_slides(from, powers);
                }
                for to in targets & self.mask & !ours {
                    self.push_move(from, to, false, &mut pseudo);
                }
            } else if powers.contains(Powers::PAWN) {
                self.compound_pawn_moves(from, piece, Bitboard::FULL, &mut pseudo);
            } else {
                for to in self.attacks(from, powers, us, occ) & !ours {
                    self.push_move(from, to, false, &mut pseudo);
                }
            }
        }
        if let Some(ep) = self.ep {
            for from in t.pawn(!us, ep) & self.power(Power::Pawn) & ours {
                self.push_en_passant(from, ep, &mut pseudo);
            }
        }
        if let Some(k) = self.royal_square(us)
            && self.variant.castling
            && !self.royal_attacked(us)
        {
            self.castling_by_testing(k, &mut pseudo);
        }
        for m in pseudo {
            let mut after = self.clone();
            after.play_unchecked(m);
            if !after.royal_attacked(us) {
                list.push(m);
            }
        }
    }

    /// Castling when the enemy King may slide: every square of the King's
    /// path is tested by standing the King on it (PA1, PA6).
    pub(crate) fn castling_by_testing(&self, king: Square, list: &mut MoveList) {
        let us = self.turn;
        self.castles(king, list, |sq| {
            let mut p = self.clone();
            if let Some(kp) = p.remove(king) {
                p.put(sq, kp);
            }
            !p.royal_attacked(us)
        });
    }

    /// PA6: where a royal piece on `from` may slide with its Rook and Bishop
    /// powers: not past a square that the enemy attacks (judged now, the
    /// enemy's sliding King counted without this restriction). Such a square
    /// ends the ray as a blocker would.
    fn royal_slides(&self, from: Square, powers: Powers) -> Bitboard {
        let t = tables();
        let stops = self.occupied() | self.attacked_squares(!self.turn) | !self.mask;
        let mut out = Bitboard::EMPTY;
        if powers.contains(Powers::ROOK) {
            out |= t.rook(from, stops);
        }
        if powers.contains(Powers::BISHOP) {
            out |= t.bishop(from, stops);
        }
        out
    }

    /// Every square `by` attacks, Kings with all their powers unrestricted.
    pub(crate) fn attacked_squares(&self, by: Color) -> Bitboard {
        let occ = self.occupied();
        let mut a = Bitboard::EMPTY;
        for sq in self.by_color[by.index()] {
            if let Some(p) = self.piece_at(sq) {
                a |= self.attacks(sq, self.moves_of(p), by, occ);
            }
        }
        a
    }

    /// True if `color`'s royal piece is attacked (see [`Position::checkers_of`]).
    pub(crate) fn royal_attacked(&self, color: Color) -> bool {
        let Some(k) = self.royal_square(color) else {
            return false;
        };
        !self.checkers_of(color, k).is_empty()
    }

    /// Whether `m`, a legal move, gives check, worked out without playing
    /// it: for a plain move of a piece to an empty square, the piece's own
    /// attack from there and the lines it opens from its side's sliders to
    /// the enemy royal piece. `None` for every other move, and where the
    /// pieces make check more than that (Clash's, and royal pieces that
    /// absorbed powers): playing the move tells.
    pub(crate) fn quiet_move_checks(&self, m: &Move) -> Option<bool> {
        let Move::Normal { from, to, promote: Promote::No, .. } = *m else { return None };
        if self.variant.armies || self.variant.absorption || self.board[to.index()].is_some() {
            return None;
        }
        let piece = self.board[from.index()]?;
        let Some(k) = self.royal_square(!piece.color) else { return Some(false) };
        let occ = (self.occupied() ^ from.bb()) | to.bb();
        if self.attacks(to, self.moves_of(piece), piece.color, occ).has(k) {
            return Some(true);
        }
        let t = tables();
        let ours = self.by_color[piece.color.index()] & !from.bb();
        let slide_occ = occ | !self.mask;
        let opened =
            (t.rook(k, slide_occ) & self.power(Power::Rook)) | (t.bishop(k, slide_occ) & self.power(Power::Bishop));
        Some((opened & ours).any())
    }

    /// The pieces giving check to `color`'s royal piece on `k`. With PA6,
    /// the line from a sliding King is cut by an occupied square and by a
    /// square that another piece of `color` attacks (the target King never
    /// shields itself). In Clash, any piece that could capture the leader
    /// checks it, unless it is invulnerable (CA9).
    pub(crate) fn checkers_of(&self, color: Color, k: Square) -> Bitboard {
        if self.variant.armies {
            return if self.invulnerable().has(k) { Bitboard::EMPTY } else { self.clash_attackers(k, !color) };
        }
        let them = self.by_color[(!color).index()];
        let occ = self.occupied();
        if !self.variant.absorption || !self.royals_with_powers() {
            return self.attackers(k, !color, them, occ);
        }
        let t = tables();
        let mut found = self.attackers(k, !color, them & !self.royal, occ);
        let Some(e) = (self.royal & them).first() else {
            return found;
        };
        let Some(ep) = self.piece_at(e) else {
            return found;
        };
        let powers = self.moves_of(ep);
        let mut hits = Bitboard::EMPTY;
        if powers.contains(Powers::KING) {
            hits |= t.king(e);
        }
        if powers.contains(Powers::KNIGHT) {
            hits |= t.knight(e);
        }
        if hits.has(k) {
            return found | e.bb();
        }
        let on_line = (powers.contains(Powers::ROOK) && t.rook(e, Bitboard::EMPTY).has(k))
            || (powers.contains(Powers::BISHOP) && t.bishop(e, Bitboard::EMPTY).has(k));
        if on_line {
            let between = t.between(e, k);
            let shields = self.by_color[color.index()] & !self.royal;
            let cut = (between & occ).any()
                || Iterator::any(&mut between.into_iter(), |b| self.attackers(b, color, shields, occ).any());
            if !cut {
                found |= e.bb();
            }
        }
        found
    }

    /// Squares from which a pawn of `us` could step to `to`.
    fn pawn_sources(&self, to: Square, us: Color) -> Bitboard {
        let mut s = to.bb().forward(!us);
        if self.variant.pawn_diagonal_steps {
            s |= tables().pawn(!us, to);
        }
        s & self.mask
    }
}

impl crate::variant::Variant {
    /// Where a White piece of type `piece` (index into [`Self::pieces`])
    /// standing alone on `from` may move to, and where it captures: the
    /// squares of a movement diagram. `None` if the index or square is not
    /// of this variant.
    pub fn movement(&'static self, piece: u8, from: Square) -> Option<(Bitboard, Bitboard)> {
        let pt = self.pieces.get(piece as usize)?;
        let mut pos = Position::empty(self);
        if !pos.mask.has(from) {
            return None;
        }
        let p = crate::piece::Piece { color: Color::White, powers: pt.powers, royal: pt.royal, promoted: false };
        pos.put(from, p);
        if pt.powers.has_halves() {
            // CS1: the moving halves' squares, and the capturing halves'.
            let (moving, capturing) = (pt.powers.moving(), pt.powers.capturing());
            let empty = pos.mask & !from.bb();
            let mut moves = pos.attacks(from, moving.without(Powers::PAWN), Color::White, from.bb());
            if moving.contains(Powers::PAWN) {
                moves |= pos.pawn_steps(from, Color::White, empty);
            }
            return Some((moves, pos.attacks(from, capturing, Color::White, from.bb())));
        }
        let attacks = pos.attacks(from, pt.powers, Color::White, from.bb());
        if pt.powers == Powers::RABBIT {
            // CA2: it slides onto empty squares and captures only by jumping,
            // which needs a piece to jump: nothing on an empty board.
            let slides = tables().rook(from, from.bb()) & pos.mask;
            let reach = slides
                .into_iter()
                .filter(|s| s.file().abs_diff(from.file()) + s.rank().abs_diff(from.rank()) <= 2)
                .fold(Bitboard::EMPTY, |b, s| b | s.bb());
            return Some((reach, Bitboard::EMPTY));
        }
        if pt.powers == Powers::OMNI {
            let empty = pos.mask & !from.bb();
            let double = if pos.double_step_rank(Color::White).has(from) {
                from.bb().forward(Color::White).forward(Color::White) & empty
            } else {
                Bitboard::EMPTY
            };
            return Some((attacks | double, attacks));
        }
        if pt.powers == Powers::PAWN {
            let empty = pos.mask & !from.bb();
            Some((pos.pawn_steps(from, Color::White, empty), attacks))
        } else {
            Some((attacks, attacks))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::position::Position;

    #[test]
    fn a_move_is_told_legal_quickly_as_the_generator_tells() {
        // Seeded random chess games, promotions and captures chosen often;
        // at each position every legal move of the positions a few plies
        // around (most of them illegal here: pieces gone, lines blocked,
        // pins, checks), every move of every piece to every square with
        // each promotion, and the quick answer must be the generator's.
        use crate::moves::{Move, Promote};
        use crate::types::Square;
        use crate::variant::CHESS;
        let mut dice = crate::search::Dice(0x2545_F491_4F6C_DD1D);
        let mut next_random = |n: usize| dice.roll(n as u64) as usize;
        let (mut told, mut legal) = (0, 0);
        for _ in 0..40 {
            let mut pos = Position::new(&CHESS);
            let mut recent: Vec<Move> = Vec::new();
            for _ in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let mut asked = recent.clone();
                asked.extend(moves.iter().copied());
                for from in pos.pieces_of(pos.turn()) {
                    for to in 0..64 {
                        for promote in [Promote::No, Promote::To(0), Promote::To(1), Promote::To(4), Promote::To(5)] {
                            asked.push(Move::Normal { from, to: Square::new(to), promote, keep: false });
                        }
                    }
                }
                for m in &asked {
                    let Some(quick) = pos.is_legal_quickly(m) else { continue };
                    let slow = moves.contains(m);
                    assert_eq!(quick, slow, "{m:?} in {}", pos.fen());
                    told += 1;
                    legal += usize::from(quick);
                }
                recent.extend(moves.iter().copied());
                if recent.len() > 300 {
                    recent.drain(..100);
                }
                let sharp: Vec<Move> = moves
                    .iter()
                    .filter(|m| {
                        matches!(m, Move::Normal { to, .. } if pos.piece_at(*to).is_some())
                            || matches!(m, Move::Normal { promote: Promote::To(_), .. })
                    })
                    .copied()
                    .collect();
                let m = if !sharp.is_empty() && next_random(2) == 0 {
                    sharp[next_random(sharp.len())]
                } else {
                    moves[next_random(moves.len())]
                };
                pos.play_unchecked(m);
            }
        }
        assert!(told > 1_000_000 && legal > 50_000, "{told} told, {legal} legal");
    }
}
