//! The position: pieces, hands, side to move and the state that decides
//! which moves are legal.

use crate::attacks::tables;
use crate::handicap::Handicaps;
use crate::moves::{Move, Promote, castle_squares};
use crate::piece::{EXOTIC_BITS, NUM_POWERS, Piece, Power, Powers};
use crate::types::{Bitboard, Color, Square};
use crate::variant::{Goal, Promotion, Variant};
use crate::zobrist::{HAND_SLOTS, keys};

/// A position of one variant.
///
/// `Position` knows nothing of the game's history; repetition rules live in
/// [`crate::Game`].
#[derive(Clone)]
pub struct Position {
    pub(crate) variant: &'static Variant,
    pub(crate) board: [Option<Piece>; 64],
    pub(crate) by_color: [Bitboard; 2],
    /// Squares of the pieces that move with each power (promoted pieces are
    /// counted with the powers they move as). A piece holding a capturing
    /// half (CS1) is also filed under the full power, so that the full
    /// powers' boards are the squares that attack that way (CS4).
    pub(crate) by_power: [Bitboard; NUM_POWERS],
    pub(crate) royal: Bitboard,
    /// The squares of the board.
    pub(crate) mask: Bitboard,
    /// Pieces in hand by colour and piece-type index.
    pub(crate) hands: [[u8; HAND_SLOTS]; 2],
    pub(crate) turn: Color,
    /// Rooks that may still castle.
    pub(crate) castling: Bitboard,
    /// The square a pawn just passed with a double step, if an enemy pawn
    /// could capture there.
    pub(crate) ep: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    /// A6: White has not yet made a pawn move (its first must be a single step).
    pub(crate) first_pawn_turn: bool,
    /// CA6: Rogues invulnerable after their quiet move.
    pub(crate) guard: Bitboard,
    /// CA8: each side's shield: 0 none or used, 1-3 up (owner's turns still
    /// to begin before it drops), 4 still to be used.
    pub(crate) shield: [u8; 2],
    /// PA7: what each side's captures may not absorb.
    pub(crate) handicap: Handicaps,
    pub(crate) hash: u64,
}

impl Position {
    /// The start position of `variant`.
    pub fn new(variant: &'static Variant) -> Position {
        Position::from_fen(variant, variant.start_fen).expect("every variant's start FEN is valid")
    }

    pub(crate) fn empty(variant: &'static Variant) -> Position {
        Position {
            variant,
            board: [None; 64],
            by_color: [Bitboard::EMPTY; 2],
            by_power: [Bitboard::EMPTY; NUM_POWERS],
            royal: Bitboard::EMPTY,
            mask: Bitboard::board(variant.width, variant.height),
            hands: [[0; HAND_SLOTS]; 2],
            turn: Color::White,
            castling: Bitboard::EMPTY,
            ep: None,
            halfmoves: 0,
            fullmoves: 1,
            first_pawn_turn: false,
            guard: Bitboard::EMPTY,
            shield: [0; 2],
            handicap: Handicaps::NONE,
            hash: 0,
        }
    }

    /// The variant being played.
    #[inline]
    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The piece on `sq`.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// How many pieces of type `piece` (index into the variant's pieces)
    /// `color` holds in hand.
    pub fn hand(&self, color: Color, piece: u8) -> u8 {
        self.hands[color.index()].get(piece as usize).copied().unwrap_or(0)
    }

    /// PA7: what each side's captures may not absorb (none outside Power
    /// Absorption).
    pub fn handicaps(&self) -> Handicaps {
        self.handicap
    }

    /// The same position with these handicaps (PA7); refused outside Power
    /// Absorption, where no capture absorbs.
    pub fn with_handicaps(mut self, handicaps: Handicaps) -> Result<Position, crate::FenError> {
        if !self.variant.absorption && !handicaps.is_none() {
            return Err(crate::FenError::Impossible {
                variant: self.variant.name,
                reason: "handicaps belong to Power Absorption".into(),
            });
        }
        self.handicap = handicaps;
        self.hash = self.compute_hash();
        Ok(self)
    }

    /// Half-moves since the last capture or pawn move.
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// Move number, starting at 1 and increased after Black's move.
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// Zobrist hash of board, side to move, hands and rights.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash that decides repetitions: like [`Position::hash`], but an en
    /// passant square counts only if the capture is legal (FIDE 9.2.3).
    pub fn repetition_key(&self) -> u64 {
        match self.ep {
            Some(ep) if !self.legal_moves().iter().any(|m| matches!(m, Move::EnPassant { .. })) => {
                self.hash ^ keys().ep[ep.index()]
            }
            _ => self.hash,
        }
    }

    /// Squares occupied by `color`.
    pub fn pieces_of(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The powers a piece moves with here (a promoted piece moves as the
    /// variant's promoted form).
    #[inline]
    pub(crate) fn moves_of(&self, piece: Piece) -> Powers {
        match (piece.promoted, self.variant.promotion) {
            (true, Promotion::Flip { moves_as, .. }) => moves_as,
            // PA4: a King holding the Pawn power gets no pawn moves.
            _ if piece.royal => piece.powers.without(Powers::PAWN),
            _ => piece.powers,
        }
    }

    /// The powers a piece ends a move with: PA3's absorption (unless `keep`),
    /// limited by its side's handicap (PA7), and then the promotion, which
    /// replaces the Pawn power (PA5, C5).
    #[inline]
    pub(crate) fn result_powers(&self, piece: Piece, victim: Option<Piece>, keep: bool, promote: Promote) -> Powers {
        let mut powers = piece.powers;
        if self.variant.absorption
            && !keep
            && let Some(v) = victim
        {
            powers = powers.with(self.handicap.of(piece.color).absorbable(v.powers));
        }
        match (promote, self.variant.promotion) {
            (Promote::To(i), Promotion::Choice(_)) if self.variant.absorption => {
                powers.without(Powers::PAWN).with(self.variant.pieces[i as usize].powers)
            }
            // The peasant becomes the chosen piece (chess, CA1).
            (Promote::To(i), Promotion::Choice(_)) => self.variant.pieces[i as usize].powers,
            // C5, CS5: every Pawn half goes too.
            (Promote::To(_), Promotion::Reserve(_)) => powers.without(Powers::PAWN_ANY),
            _ => powers,
        }
    }

    /// The rank, counted from `color`'s side, that double steps start from.
    #[inline]
    pub(crate) fn double_step_rank(&self, color: Color) -> Bitboard {
        let r = self.variant.double_step_rank;
        match color {
            Color::White => Bitboard::rank(r),
            Color::Black => Bitboard::rank(self.variant.height - 1 - r),
        }
    }

    /// True if a move of a piece holding the Pawn power from `from` to `to`
    /// is one its Pawn power makes (PA4, C4: such a step is a pawn move).
    #[inline]
    pub(crate) fn is_pawn_step(&self, from: Square, to: Square, color: Color, capture: bool) -> bool {
        let fwd = from.bb().forward(color);
        if capture {
            return tables().pawn(color, from).has(to);
        }
        fwd.has(to)
            || (self.variant.double_step
                && self.double_step_rank(color).has(from)
                && fwd.forward(color).has(to)
                && !(fwd & self.occupied()).any())
    }

    #[inline]
    pub(crate) fn power(&self, p: Power) -> Bitboard {
        self.by_power[p as usize]
    }

    /// Pieces made of the pawn power alone.
    #[inline]
    pub(crate) fn pure_pawns(&self) -> Bitboard {
        let others = self.by_power.iter().enumerate().filter(|&(i, _)| i != Power::Pawn as usize);
        others.fold(self.power(Power::Pawn), |acc, (_, &b)| acc & !b)
    }

    /// The power boards a piece of `powers` is filed under: its powers, and
    /// for each capturing half the full power too (CS4).
    #[inline]
    fn filed_under(powers: Powers) -> Powers {
        if powers.has_halves() { powers.with(powers.capturing()) } else { powers }
    }

    pub(crate) fn put(&mut self, sq: Square, piece: Piece) {
        debug_assert!(self.board[sq.index()].is_none());
        let bb = sq.bb();
        self.board[sq.index()] = Some(piece);
        self.by_color[piece.color.index()] |= bb;
        for i in Self::filed_under(self.moves_of(piece)).each() {
            self.by_power[i] |= bb;
        }
        if piece.royal {
            self.royal |= bb;
        }
        self.hash ^= keys().piece(piece, sq);
    }

    pub(crate) fn remove(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.board[sq.index()].take()?;
        let keep = !sq.bb();
        self.by_color[piece.color.index()] &= keep;
        for i in Self::filed_under(self.moves_of(piece)).each() {
            self.by_power[i] &= keep;
        }
        self.royal &= keep;
        self.hash ^= keys().piece(piece, sq);
        Some(piece)
    }

    pub(crate) fn set_hand(&mut self, color: Color, slot: usize, count: u8) {
        // No game gets near the FEN's limit (C1's 15 static pieces are the
        // most); a position set up at it keeps it rather than one it could
        // not write.
        let count = count.min(crate::zobrist::MAX_HAND as u8);
        let k = keys();
        let old = self.hands[color.index()][slot];
        self.hash ^= k.hand(color, slot, old) ^ k.hand(color, slot, count);
        self.hands[color.index()][slot] = count;
    }

    /// The last rank of `color` (its promotion zone).
    #[inline]
    pub(crate) fn last_rank(&self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard::rank(self.variant.height - 1),
            Color::Black => Bitboard::rank(0),
        }
    }

    /// Squares a piece with `powers` of `color` on `sq` attacks (for pawns:
    /// the diagonal capture squares), given blockers `occ`.
    #[inline]
    pub(crate) fn attacks(&self, sq: Square, powers: Powers, color: Color, occ: Bitboard) -> Bitboard {
        let t = tables();
        // The pieces of chess, Olympic and Alapawn first: one table each.
        const QUEEN: u32 = Powers::ROOK.with(Powers::BISHOP).bits();
        const KNIGHT: u32 = Powers::KNIGHT.bits();
        const BISHOP: u32 = Powers::BISHOP.bits();
        const ROOK: u32 = Powers::ROOK.bits();
        const SILVER: u32 = Powers::SILVER.bits();
        const GOLD: u32 = Powers::GOLD.bits();
        const KING: u32 = Powers::KING.bits();
        const PAWN: u32 = Powers::PAWN.bits();
        let bits = powers.bits();
        let single = match bits {
            KNIGHT => Some(t.knight(sq)),
            BISHOP => Some(t.bishop(sq, occ | !self.mask)),
            ROOK => Some(t.rook(sq, occ | !self.mask)),
            QUEEN => Some(t.rook(sq, occ | !self.mask) | t.bishop(sq, occ | !self.mask)),
            SILVER => Some(t.silver(color, sq)),
            GOLD => Some(t.gold(color, sq)),
            KING => Some(t.king(sq)),
            PAWN => Some(t.pawn(color, sq)),
            _ => None,
        };
        if let Some(a) = single {
            return a & self.mask;
        }
        let has = |p: Power| bits >> p as u32 & 1 != 0;
        let mut a = Bitboard::EMPTY;
        if has(Power::Rook) {
            a |= t.rook(sq, occ | !self.mask);
        }
        if has(Power::Bishop) {
            a |= t.bishop(sq, occ | !self.mask);
        }
        if has(Power::Knight) {
            a |= t.knight(sq);
        }
        if has(Power::King) {
            a |= t.king(sq);
        }
        if has(Power::Pawn) {
            a |= t.pawn(color, sq);
        }
        if has(Power::Silver) {
            a |= t.silver(color, sq);
        }
        if has(Power::Gold) {
            a |= t.gold(color, sq);
        }
        if bits & EXOTIC_BITS != 0 {
            a |= self.exotic_attacks(sq, powers, color, occ);
        }
        if powers.has_halves() {
            // CS4: a piece attacks with its capturing halves only.
            a |= self.attacks(sq, powers.capturing().without(powers), color, occ);
        }
        a & self.mask
    }

    /// [`Position::attacks`] for the Pawn power alone, without the look at
    /// every other power: the evaluation asks it for every pawn.
    #[inline]
    pub(crate) fn pawn_attacks(&self, sq: Square, color: Color) -> Bitboard {
        tables().pawn(color, sq) & self.mask
    }

    /// Pieces among `candidates` (all of colour `by`) that attack `sq` when
    /// the occupied squares are `occ`.
    #[inline]
    pub(crate) fn attackers(&self, sq: Square, by: Color, candidates: Bitboard, occ: Bitboard) -> Bitboard {
        let t = tables();
        let them = !by;
        let slide_occ = occ | !self.mask;
        let mut a = (t.knight(sq) & self.power(Power::Knight))
            | (t.king(sq) & self.power(Power::King))
            | (t.pawn(them, sq) & self.power(Power::Pawn))
            | (t.rook(sq, slide_occ) & self.power(Power::Rook))
            | (t.bishop(sq, slide_occ) & self.power(Power::Bishop));
        let stepper = self.power(Power::Silver) | self.power(Power::Gold);
        if stepper.any() {
            a |= (t.silver(them, sq) & self.power(Power::Silver)) | (t.gold(them, sq) & self.power(Power::Gold));
        }
        a & candidates
    }

    /// True if `by` attacks `sq`.
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.attackers(sq, by, self.by_color[by.index()], self.occupied()).any()
    }

    /// The royal piece of `color`, if the variant has one and it is on the board.
    #[inline]
    pub fn royal_square(&self, color: Color) -> Option<Square> {
        (self.royal & self.by_color[color.index()]).first()
    }

    /// Pieces giving check to the side to move.
    pub fn checkers(&self) -> Bitboard {
        match self.royal_square(self.turn) {
            Some(k) => self.checkers_of(self.turn, k),
            None => Bitboard::EMPTY,
        }
    }

    /// True if the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Applies a move without checking that it is legal.
    ///
    /// Playing a move that is not in [`Position::legal_moves`] leaves the
    /// position in an unspecified (but memory-safe) state.
    pub fn play_unchecked(&mut self, m: Move) {
        let k = keys();
        let us = self.turn;
        if let Some(ep) = self.ep.take() {
            self.hash ^= k.ep[ep.index()];
        }
        self.halfmoves = self.halfmoves.saturating_add(1);
        let mut pawn_moved = false;
        match m {
            Move::Normal { from, to, promote, keep } => {
                let Some(mut piece) = self.remove(from) else {
                    return;
                };
                let victim = self.remove(to);
                if let Some(victim) = victim {
                    self.halfmoves = 0;
                    self.capture_to_hand(us, victim);
                }
                self.touch_castling(from, to, piece);
                let movers = self.moves_of(piece);
                // PA4, C4: a step the Pawn power shares is a pawn move, but
                // onto the last rank only the promoting one is.
                let unpromoted_last = promote == Promote::No && self.last_rank(us).has(to);
                // CA1: an Omnipawn is a peasant like the Pawn.
                let peasant = movers == Powers::OMNI;
                // CS3: a step of the moving half, a capture of the capturing half.
                let half_pawn = movers.has_halves()
                    && !unpromoted_last
                    && if victim.is_some() {
                        movers.contains(Powers::PAWN_TAKE) && tables().pawn(us, from).has(to)
                    } else {
                        movers.contains(Powers::PAWN_MOVE) && self.is_pawn_step(from, to, us, false)
                    };
                if peasant
                    || half_pawn
                    || (movers.contains(Powers::PAWN)
                        && (movers == Powers::PAWN
                            || (self.is_pawn_step(from, to, us, victim.is_some()) && !unpromoted_last)))
                {
                    pawn_moved = true;
                    if self.variant.en_passant && from.rank().abs_diff(to.rank()) == 2 {
                        let passed = Square::new((from.index() + to.index()) as u8 / 2);
                        // CA1: Pawns and Omnipawns take en passant alike.
                        let enemy_pawns =
                            (self.power(Power::Pawn) | self.power(Power::Omni)) & self.by_color[(!us).index()];
                        if (tables().pawn(us, passed) & enemy_pawns).any() {
                            self.ep = Some(passed);
                            self.hash ^= k.ep[passed.index()];
                        }
                    }
                }
                match promote {
                    Promote::No => {
                        if victim.is_some() && self.variant.absorption {
                            piece.powers = self.result_powers(piece, victim, keep, promote);
                        }
                    }
                    Promote::Flip => {
                        piece.promoted = true;
                        // Promotion is irreversible: the clock restarts, as
                        // Fairy-Stockfish counts.
                        self.halfmoves = 0;
                    }
                    Promote::To(i) => {
                        piece.powers = self.result_powers(piece, victim, keep, promote);
                        if let Promotion::Reserve(_) = self.variant.promotion {
                            let slot = i as usize;
                            let count = self.hands[us.index()][slot];
                            self.set_hand(us, slot, count.saturating_add(1));
                        }
                    }
                }
                if victim.is_some_and(|v| v.powers.contains(Powers::PHOENIX)) && self.variant.armies {
                    // CA7: the Phoenix takes its captor with it.
                } else {
                    self.put(to, piece);
                    if self.variant.armies
                        && victim.is_none()
                        && promote == Promote::No
                        && crate::clash::is_rogue(piece)
                    {
                        self.set_guard(to);
                    }
                }
            }
            Move::EnPassant { from, to, keep } => {
                pawn_moved = true;
                let Some(mut piece) = self.remove(from) else {
                    return;
                };
                let victim_sq = Square::new(from.rank() * 8 + to.file());
                let victim = self.remove(victim_sq);
                if let Some(victim) = victim {
                    self.capture_to_hand(us, victim);
                }
                piece.powers = self.result_powers(piece, victim, keep, Promote::No);
                self.put(to, piece);
            }
            Move::Castle { king, rook } => {
                let (kd, rd) = castle_squares(king, rook);
                let (Some(kp), Some(rp)) = (self.remove(king), self.remove(rook)) else {
                    return;
                };
                self.put(kd, kp);
                self.put(rd, rp);
                self.touch_castling(king, rook, kp);
            }
            Move::Drop { piece, to } => {
                let slot = piece as usize;
                let count = self.hands[us.index()][slot];
                self.set_hand(us, slot, count.saturating_sub(1));
                let pt = self.variant.pieces[slot];
                self.put(to, Piece { color: us, powers: pt.powers, royal: pt.royal, promoted: false });
                // A drop resets the clock, as Fairy-Stockfish counts (Olympic
                // has no fifty-move rule, so only the FEN shows it); C7:
                // Construction's drops do not.
                if !self.variant.grants {
                    self.halfmoves = 0;
                }
            }
            Move::Grant { piece, to } => {
                let slot = piece as usize;
                let count = self.hands[us.index()][slot];
                self.set_hand(us, slot, count.saturating_sub(1));
                if let Some(mut p) = self.remove(to) {
                    p.powers = p.powers.with(self.variant.pieces[slot].powers);
                    self.put(to, p);
                }
            }
            Move::Swap { from, king } => {
                let (Some(mut holder), Some(kp)) = (self.remove(from), self.remove(king)) else {
                    return;
                };
                holder.powers = holder.powers.without(Powers::CASTLE);
                self.put(from, kp);
                self.put(king, holder);
            }
            Move::Chain { .. } => {
                if self.play_chain(m) {
                    self.halfmoves = 0;
                }
            }
            Move::Shoot { from, target } => {
                if let Some(victim) = self.remove(target) {
                    self.halfmoves = 0;
                    self.touch_castling(target, target, victim);
                    // CA7: shooting a Phoenix costs the shooter.
                    if victim.powers.contains(Powers::PHOENIX)
                        && let Some(shooter) = self.remove(from)
                    {
                        self.touch_castling(from, from, shooter);
                    }
                }
            }
            Move::Shield { .. } => self.set_shield(us, 3),
            Move::PawnPair { first, second } => {
                pawn_moved = true;
                for (from, to) in [first, second] {
                    if let Some(p) = self.remove(from) {
                        self.put(to, p);
                    }
                }
            }
        }
        if pawn_moved {
            self.halfmoves = 0;
            if us == Color::White && self.first_pawn_turn {
                self.first_pawn_turn = false;
                self.hash ^= k.first_pawn_turn;
            }
        }
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !us;
        self.hash ^= k.black;
        if self.variant.armies {
            self.begin_turn(!us);
        }
    }

    /// The hash the position will have after the plain move `m`, told
    /// without making it, for the search to fetch the table entry of the
    /// position it leads to early: right for a plain move or capture
    /// (castling rights it ends included), not for promotions, en passant,
    /// a double step that opens en passant, A6's first pawn move, captures
    /// to hand or other kinds of turns (those give a hash that may differ,
    /// which costs only a useless fetch).
    #[inline]
    pub(crate) fn hash_after(&self, m: &Move) -> u64 {
        let k = keys();
        let mut hash = self.hash ^ k.black;
        if let Some(ep) = self.ep {
            hash ^= k.ep[ep.index()];
        }
        if let Move::Normal { from, to, .. } = *m
            && let Some(piece) = self.board[from.index()]
        {
            hash ^= k.piece(piece, from) ^ k.piece(piece, to);
            if let Some(victim) = self.board[to.index()] {
                hash ^= k.piece(victim, to);
            }
            for sq in self.castling_lost(from, to, piece) {
                hash ^= k.castling[sq.index()];
            }
        }
        hash
    }

    /// Passes the turn without moving: a "null move" for the search's
    /// null-move pruning, never a move of the game. An en passant chance
    /// lapses; nothing else changes. Not for Clash of the Armies, whose
    /// turns change its shields and guards.
    pub fn play_null(&mut self) {
        debug_assert!(!self.variant.armies);
        let k = keys();
        if let Some(ep) = self.ep.take() {
            self.hash ^= k.ep[ep.index()];
        }
        self.turn = !self.turn;
        self.hash ^= k.black;
    }

    fn capture_to_hand(&mut self, captor: Color, victim: Piece) {
        if !self.variant.drops {
            return;
        }
        // O4: the piece changes colour and returns to its unpromoted form.
        if let Some(slot) = self.variant.piece_index_of(victim.powers, victim.royal) {
            let slot = slot as usize;
            let count = self.hands[captor.index()][slot];
            self.set_hand(captor, slot, count.saturating_add(1));
        }
    }

    /// Removes castling rights that a move from `from` to `to` by `piece` ends.
    pub(crate) fn touch_castling(&mut self, from: Square, to: Square, piece: Piece) {
        let lost = self.castling_lost(from, to, piece);
        for sq in lost {
            self.hash ^= keys().castling[sq.index()];
        }
        self.castling &= !lost;
    }

    /// The castling rights (rooks) that a move from `from` to `to` by
    /// `piece` ends.
    #[inline]
    fn castling_lost(&self, from: Square, to: Square, piece: Piece) -> Bitboard {
        if self.castling.is_empty() {
            return Bitboard::EMPTY;
        }
        let mut lost = self.castling & (from.bb() | to.bb());
        if piece.royal {
            lost |= self.castling & self.home_rank(piece.color);
        }
        lost
    }

    pub(crate) fn home_rank(&self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard::rank(0),
            Color::Black => Bitboard::rank(self.variant.height - 1),
        }
    }

    /// True if the game is over on the board alone (A3; checkmate and
    /// stalemate are found by generating moves).
    pub(crate) fn race_decided(&self) -> Option<Color> {
        if self.variant.goal != Goal::PawnRace {
            return None;
        }
        let pawns = self.power(Power::Pawn);
        let white = pawns & self.by_color[0];
        let black = pawns & self.by_color[1];
        if (white & self.last_rank(Color::White)).any() {
            return Some(Color::White);
        }
        if (black & self.last_rank(Color::Black)).any() {
            return Some(Color::Black);
        }
        match (white.any(), black.any()) {
            (true, true) => None,
            (true, false) => Some(Color::White),
            (false, true) => Some(Color::Black),
            // Both gone at once: the side that just moved made it happen.
            (false, false) => Some(!self.turn),
        }
    }

    /// Recomputes the hash from scratch (used by FEN parsing and checks).
    pub(crate) fn compute_hash(&self) -> u64 {
        let k = keys();
        let mut h = 0;
        for sq in self.occupied() {
            if let Some(p) = self.board[sq.index()] {
                h ^= k.piece(p, sq);
            }
        }
        for c in Color::ALL {
            for slot in 0..HAND_SLOTS {
                h ^= k.hand(c, slot, self.hands[c.index()][slot]);
            }
        }
        for sq in self.castling {
            h ^= k.castling[sq.index()];
        }
        if let Some(ep) = self.ep {
            h ^= k.ep[ep.index()];
        }
        if self.turn == Color::Black {
            h ^= k.black;
        }
        if self.first_pawn_turn {
            h ^= k.first_pawn_turn;
        }
        for sq in self.guard {
            h ^= k.guard[sq.index()];
        }
        for c in Color::ALL {
            if self.shield[c.index()] != 0 {
                h ^= k.shield[c.index()][self.shield[c.index()].min(4) as usize];
            }
            let handicap = self.handicap.of(c).bits();
            if handicap != 0 {
                h ^= k.handicap[c.index()][handicap & 7];
            }
        }
        h
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({} {})", self.variant.id, self.fen())
    }
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        std::ptr::eq(self.variant, other.variant) && self.fen() == other.fen()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::VARIANTS;

    #[test]
    fn the_hash_after_a_plain_move_is_told_before_it() {
        // Every move of seeded random games in every variant: for plain
        // moves and captures the hash told beforehand is the one playing
        // gives (castling rights lost included); the others may differ.
        let mut told = 0;
        for v in VARIANTS {
            if v.armies || v.absorption || v.drops || v.grants || v.pawn_pairs {
                // Turns that change more than the two squares (A6's first
                // pawn move ends a state of its own).
                continue;
            }
            crate::search::random_games(v, 20, 100, 0x9E37_79B9_7F4A_7C15, |pos| {
                for m in &pos.legal_moves() {
                    let Move::Normal { from, to, promote: Promote::No, .. } = *m else { continue };
                    let mut after = pos.clone();
                    after.play_unchecked(*m);
                    if after.ep.is_some() || pos.piece_at(from).is_some_and(|p| p.powers.has_halves()) {
                        continue;
                    }
                    assert_eq!(pos.hash_after(m), after.hash(), "{}: {from}{to} in {}", v.id, pos.fen());
                    told += 1;
                }
            });
        }
        assert!(told > 50_000, "{told}");
    }
}
