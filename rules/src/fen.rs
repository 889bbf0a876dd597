//! FEN, as Fairy-Stockfish writes it (G3).
//!
//! `board[hand] turn castling ep halfmoves fullmoves`. The hand (Olympic)
//! follows the board in brackets, White's pieces first, upper case for White,
//! in the variant's `hand_order` (Olympic: `PGSRB`, as Fairy-Stockfish writes it);
//! a promoted piece is written `+` and its unpromoted letter. The last two
//! fields may be left out (`0 1`). For `alapawn-balanced`, the castling field
//! (there is no castling) is `1` while White's first pawn turn is still to
//! come (A6), `-` after it. The en passant square is written after a double
//! step whenever an enemy pawn stands beside the pawn (as Fairy-Stockfish
//! does), even where the capture is illegal. Power Absorption's handicaps
//! (PA7) follow as a last field, `h:W=plain,B=nopawn+noqueen` (POWERS.md),
//! written only when there is one.

use std::fmt::Write;

use thiserror::Error;

use crate::handicap::Handicaps;
use crate::piece::{Piece, Power, Powers};
use crate::position::Position;
use crate::types::{Bitboard, Color, Square};
use crate::variant::{Goal, Promotion, Variant};

/// Why a FEN was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FenError {
    /// The text does not have the shape of a FEN.
    #[error("that is not a FEN: {0}")]
    Syntax(String),
    /// The FEN is well formed but describes no position of this variant.
    #[error("that position is impossible in {variant}: {reason}")]
    Impossible {
        /// Variant name.
        variant: &'static str,
        /// What is wrong.
        reason: String,
    },
}

fn syntax(msg: impl Into<String>) -> FenError {
    FenError::Syntax(msg.into())
}

/// Most pieces one side may have on the board (as in chess).
const MAX_PIECES: u32 = 16;
/// Most pieces one side may have in Construction, where promotion rewards
/// can add static pieces to the fifteen.
const MAX_PIECES_BUILT: u32 = 24;
/// Most pawns one side may have on the board.
const MAX_PAWNS: u32 = 8;
/// Most pieces of one kind in a hand or reserve.
const MAX_HAND: u32 = 32;

impl Position {
    /// Reads a FEN of `variant`. Never panics, whatever the text.
    pub fn from_fen(variant: &'static Variant, fen: &str) -> Result<Position, FenError> {
        let impossible = |reason: &str| FenError::Impossible { variant: variant.name, reason: reason.to_string() };
        let mut all: Vec<&str> = fen.split_ascii_whitespace().collect();
        // PA7: a last field `h:...` holds the handicaps (POWERS.md).
        let handicap = match all.last() {
            Some(f) if f.starts_with("h:") => all.pop(),
            _ => None,
        };
        let mut fields = all.into_iter();
        let placement = fields.next().ok_or_else(|| syntax("it is empty"))?;
        let mut pos = Position::empty(variant);

        let (board, hand) = match placement.find('[') {
            Some(i) => {
                let rest = &placement[i + 1..];
                let hand = rest.strip_suffix(']').ok_or_else(|| syntax("the hand has no closing ']'"))?;
                (&placement[..i], Some(hand))
            }
            None => (placement, None),
        };
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != variant.height as usize {
            return Err(syntax(format!("expected {} ranks, found {}", variant.height, ranks.len())));
        }
        for (i, row) in ranks.iter().enumerate() {
            let rank = variant.height - 1 - i as u8;
            let mut file = 0u8;
            let mut promoted = false;
            let mut chars = row.chars().peekable();
            while let Some(c) = chars.next() {
                if let Some(d) = c.to_digit(10) {
                    if promoted {
                        return Err(syntax("'+' must be followed by a piece letter"));
                    }
                    // Two-digit counts (10) are allowed for wide boards.
                    let mut n = d;
                    if let Some(d2) = chars.peek().and_then(|c| c.to_digit(10)) {
                        n = n * 10 + d2;
                        chars.next();
                    }
                    if n == 0 {
                        return Err(syntax("an empty-square count of 0"));
                    }
                    file = file.saturating_add(n.min(255) as u8);
                    if file > variant.width {
                        return Err(syntax(format!("rank {} is too long", rank + 1)));
                    }
                } else if c == '+' {
                    if promoted {
                        return Err(syntax("'++'"));
                    }
                    promoted = true;
                } else if c == '(' {
                    // A piece of several powers (POWERS.md): `(BN)`, `(kq)`.
                    let mut group = String::new();
                    for g in chars.by_ref() {
                        if g == ')' {
                            break;
                        }
                        group.push(g);
                        if group.len() > 8 {
                            return Err(syntax("a '(' group that does not close"));
                        }
                    }
                    let piece = parse_group(variant, &group)?;
                    if promoted {
                        return Err(syntax("'+' must be followed by a piece letter"));
                    }
                    if file >= variant.width {
                        return Err(syntax(format!("rank {} is too long", rank + 1)));
                    }
                    let sq = Square::from_coords(file, rank).ok_or_else(|| syntax("square off the board"))?;
                    pos.put(sq, piece);
                    file += 1;
                } else {
                    let idx = variant.piece_index(c).ok_or_else(|| syntax(format!("unknown piece '{c}'")))?;
                    if file >= variant.width {
                        return Err(syntax(format!("rank {} is too long", rank + 1)));
                    }
                    let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
                    let pt = variant.pieces[idx as usize];
                    if promoted && !can_promote(variant, pt.powers) {
                        return Err(impossible(&format!("a {} cannot be promoted", pt.name)));
                    }
                    let piece = Piece { color, powers: pt.powers, royal: pt.royal, promoted };
                    promoted = false;
                    let sq = Square::from_coords(file, rank).ok_or_else(|| syntax("square off the board"))?;
                    pos.put(sq, piece);
                    // CA6: `V*`, a Rogue invulnerable after its quiet move.
                    if chars.peek() == Some(&'*') {
                        chars.next();
                        if !(variant.armies && pt.powers.contains(Powers::ROGUE)) {
                            return Err(syntax("'*' marks only an invulnerable Rogue"));
                        }
                        pos.guard |= sq.bb();
                    }
                    file += 1;
                }
            }
            if promoted {
                return Err(syntax("'+' at the end of a rank"));
            }
            if file != variant.width {
                return Err(syntax(format!("rank {} has {} squares, expected {}", rank + 1, file, variant.width)));
            }
        }

        if let Some(hand) = hand {
            if !variant.drops && !variant.grants && !hand.is_empty() {
                return Err(impossible("there are no hands in this game"));
            }
            let mut chars = hand.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '-' && hand.len() == 1 {
                    break;
                }
                let idx = variant.piece_index(c).ok_or_else(|| syntax(format!("unknown piece '{c}' in hand")))?;
                let pt = variant.pieces[idx as usize];
                if pt.royal || !variant.hand_order.contains(pt.letter) {
                    return Err(impossible(&format!("a {} cannot be in hand", pt.name)));
                }
                // Construction's reserve may give counts: `S15R3`.
                let mut n = 0u32;
                while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                    n = (n * 10 + d).min(1000);
                    chars.next();
                }
                let n = if n == 0 { 1 } else { n };
                let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
                let slot = &mut pos.hands[color.index()][idx as usize];
                if *slot as u32 + n > MAX_HAND {
                    return Err(impossible("too many pieces in hand"));
                }
                *slot += n as u8;
            }
        }

        pos.turn = match fields.next() {
            None | Some("w") | Some("W") => Color::White,
            Some("b") | Some("B") => Color::Black,
            Some(other) => {
                return Err(syntax(format!("the side to move must be 'w' or 'b', not '{other}'")));
            }
        };

        let castling = fields.next().unwrap_or("-");
        if variant.pawn_pairs {
            pos.first_pawn_turn = match castling {
                "1" => true,
                "-" => false,
                other => {
                    return Err(syntax(format!("the fourth field must be '1' or '-', not '{other}'")));
                }
            };
        } else if castling != "-" {
            let mut chars = castling.chars().peekable();
            while let Some(c) = chars.next() {
                if variant.armies && (c == 'D' || c == 'd') {
                    // CA8: the shield, still to use (`D`) or up (`D3`..`D1`).
                    let color = if c == 'D' { Color::White } else { Color::Black };
                    let state = match chars.peek().and_then(|d| d.to_digit(10)) {
                        Some(n @ 1..=3) => {
                            chars.next();
                            n as u8
                        }
                        Some(_) => return Err(syntax("a shield's count is 1, 2 or 3")),
                        None => 4,
                    };
                    pos.shield[color.index()] = state;
                    continue;
                }
                let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
                let file = match c.to_ascii_lowercase() {
                    'k' => 7,
                    'q' => 0,
                    _ => return Err(syntax(format!("unknown castling right '{c}'"))),
                };
                // Rights that nothing on the board backs are dropped, as
                // other tools do.
                let rank = if color == Color::White { 0 } else { variant.height - 1 };
                let rook = Square::from_coords(file, rank).ok_or_else(|| syntax("castling square"))?;
                let king = Square::from_coords(4, rank).ok_or_else(|| syntax("castling square"))?;
                let is = |sq: Square, p: Powers, royal: bool| {
                    pos.piece_at(sq)
                        .is_some_and(|x| x.color == color && x.powers == p && x.royal == royal && !x.promoted)
                };
                // CA8: in Clash the King castles with any Heavy piece.
                let partner = if variant.armies {
                    pos.piece_at(rook).is_some_and(|x| x.color == color && !x.royal)
                } else {
                    is(rook, Powers::ROOK, false)
                };
                if variant.castling && partner && is(king, Powers::KING, true) {
                    pos.castling |= rook.bb();
                }
            }
        }

        match fields.next() {
            None | Some("-") => {}
            Some(text) => {
                let sq = Square::parse(text).ok_or_else(|| syntax(format!("bad en passant square '{text}'")))?;
                // Kept only where a double step could just have passed it.
                let (us, them) = (pos.turn, !pos.turn);
                let pusher = sq.bb().forward(them);
                let start = sq.bb().forward(!them);
                let passed_rank = pos.home_rank(them).forward(them).forward(them);
                if variant.en_passant
                    && passed_rank.has(sq)
                    && (pusher & (pos.power(Power::Pawn) | pos.power(Power::Omni)) & pos.by_color[them.index()]).any()
                    && (sq.bb() & pos.occupied()).is_empty()
                    && (start & pos.occupied()).is_empty()
                    && (crate::attacks::tables().pawn(them, sq)
                        & (pos.power(Power::Pawn) | pos.power(Power::Omni))
                        & pos.by_color[us.index()])
                    .any()
                {
                    pos.ep = Some(sq);
                }
            }
        }

        let number = |f: Option<&str>, default: u32, what: &str| -> Result<u32, FenError> {
            match f {
                None => Ok(default),
                Some(t) => t.parse::<u32>().map_err(|_| syntax(format!("the {what} must be a number, not '{t}'"))),
            }
        };
        pos.halfmoves = number(fields.next(), 0, "half-move clock")?;
        pos.fullmoves = number(fields.next(), 1, "move number")?.max(1);
        if fields.next().is_some() {
            return Err(syntax("unexpected text after the move number"));
        }

        // A shield needs its Shielderer (CA8).
        for c in Color::ALL {
            if (pos.power(Power::Shield) & pos.by_color[c.index()]).is_empty() {
                pos.shield[c.index()] = 0;
            }
        }
        if let Some(field) = handicap {
            if !variant.absorption {
                return Err(impossible("handicaps belong to Power Absorption"));
            }
            let text = &field[2..];
            pos.handicap = Handicaps::from_fen_field(text).ok_or_else(|| {
                syntax(format!(
                    "bad handicap field '{}': write it as h:W=plain or h:W=nopawn+noqueen,B=plain",
                    field.chars().take(40).collect::<String>()
                ))
            })?;
        }
        pos.validate().map_err(|r| impossible(&r))?;
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    fn validate(&self) -> Result<(), String> {
        let v = self.variant;
        for c in Color::ALL {
            let ours = self.by_color[c.index()];
            let max = if v.grants { MAX_PIECES_BUILT } else { MAX_PIECES };
            if ours.count() > max {
                return Err(format!("{} has more than {max} pieces", c.name()));
            }
            // PA3: absorbing a pawn makes one more piece with the Pawn power.
            if !v.absorption && (ours & self.power(Power::Pawn)).count() > MAX_PAWNS {
                return Err(format!("{} has more than {MAX_PAWNS} pawns", c.name()));
            }
            if v.has_royal() && (ours & self.royal).count() != 1 {
                return Err(format!("{} must have exactly one king", c.name()));
            }
        }
        let pawns = self.pure_pawns();
        match (v.goal, v.promotion) {
            (Goal::Checkmate, Promotion::Choice(_)) => {
                if (pawns & (Bitboard::rank(0) | Bitboard::rank(v.height - 1))).any() {
                    return Err("a pawn stands on the first or last rank".into());
                }
            }
            (Goal::Checkmate, _) => {
                for c in Color::ALL {
                    if (pawns & self.by_color[c.index()] & self.last_rank(c)).any() {
                        return Err("an unpromoted pawn stands on its last rank".into());
                    }
                }
            }
            (Goal::PawnRace, _) => {}
        }
        if self.royal_attacked(!self.turn) {
            return Err("the side that just moved is in check".into());
        }
        Ok(())
    }

    /// The position as FEN.
    pub fn fen(&self) -> String {
        let v = self.variant;
        let mut s = String::with_capacity(90);
        for rank in (0..v.height).rev() {
            let mut gap = 0;
            for file in 0..v.width {
                let sq = Square::new(rank * 8 + file);
                match self.piece_at(sq) {
                    None => gap += 1,
                    Some(p) => {
                        if gap > 0 {
                            let _ = write!(s, "{gap}");
                            gap = 0;
                        }
                        if p.promoted {
                            s.push('+');
                        }
                        s.push_str(&self.piece_code(p));
                        if self.guard.has(sq) {
                            s.push('*');
                        }
                    }
                }
            }
            if gap > 0 {
                let _ = write!(s, "{gap}");
            }
            if rank > 0 {
                s.push('/');
            }
        }
        if v.drops || v.grants {
            s.push('[');
            for c in Color::ALL {
                for slot in v.hand_order.chars() {
                    let Some(i) = v.piece_index(slot) else {
                        continue;
                    };
                    let letter = if c == Color::White { slot } else { slot.to_ascii_lowercase() };
                    let n = self.hands[c.index()][i as usize];
                    if v.grants {
                        // Construction's reserve is written with counts.
                        match n {
                            0 => {}
                            1 => s.push(letter),
                            n => {
                                let _ = write!(s, "{letter}{n}");
                            }
                        }
                    } else {
                        for _ in 0..n {
                            s.push(letter);
                        }
                    }
                }
            }
            s.push(']');
        }
        s.push_str(if self.turn == Color::White { " w " } else { " b " });
        if v.pawn_pairs {
            s.push(if self.first_pawn_turn { '1' } else { '-' });
        } else {
            let start = s.len();
            for c in Color::ALL {
                for sq in [7u8, 0] {
                    let rank = if c == Color::White { 0 } else { v.height - 1 };
                    if self.castling.has(Square::new(rank * 8 + sq)) {
                        let l = if sq == 7 { 'k' } else { 'q' };
                        s.push(if c == Color::White { l.to_ascii_uppercase() } else { l });
                    }
                }
                // CA8: each side's shield after its castling rights.
                let letter = if c == Color::White { 'D' } else { 'd' };
                match self.shield[c.index()] {
                    0 => {}
                    4 => s.push(letter),
                    n => {
                        let _ = write!(s, "{letter}{n}");
                    }
                }
            }
            if s.len() == start {
                s.push('-');
            }
        }
        // As Fairy-Stockfish: the square is written when an enemy pawn could
        // capture there, even if that capture would be illegal.
        match self.ep {
            Some(ep) => {
                let _ = write!(s, " {ep}");
            }
            None => s.push_str(" -"),
        }
        let _ = write!(s, " {} {}", self.halfmoves, self.fullmoves);
        if let Some(field) = self.handicap.fen_field() {
            let _ = write!(s, " {field}");
        }
        s
    }

    /// The FEN letter of a piece (upper case for White). A piece of powers
    /// that no named piece has gets the letter of its strongest power; see
    /// [`Position::piece_code`] for its full name.
    pub fn letter(&self, p: Piece) -> char {
        let l = match self.variant.piece_index_of(p.powers, p.royal) {
            Some(i) => self.variant.pieces[i as usize].letter,
            None => group_letters(p.powers).chars().next().unwrap_or('?'),
        };
        if p.color == Color::White { l } else { l.to_ascii_lowercase() }
    }

    /// How a piece is written in FEN and SAN: its letter, or for a set of
    /// powers that no named piece has, the power letters in parentheses
    /// (`(BN)`, `(kq)`; POWERS.md). Upper case for White.
    pub fn piece_code(&self, p: Piece) -> String {
        let code = match self.variant.piece_index_of(p.powers, p.royal) {
            Some(i) => self.variant.pieces[i as usize].letter.to_string(),
            None => format!("({})", group_letters(p.powers)),
        };
        if p.color == Color::White { code } else { code.to_ascii_lowercase() }
    }
}

/// The power letters of a set in the order `K Q R B N P T U D E H I F G C`,
/// Rook and Bishop together written `Q` and both halves of a power (CS2) as
/// the full power's letter.
pub(crate) fn group_letters(powers: Powers) -> String {
    let powers = powers.joined();
    let mut s = String::new();
    for (power, letter) in [
        (Powers::KING, 'K'),
        (Powers::QUEEN, 'Q'),
        (Powers::ROOK, 'R'),
        (Powers::BISHOP, 'B'),
        (Powers::KNIGHT, 'N'),
        (Powers::PAWN, 'P'),
        (Powers::ROOK_MOVE, 'T'),
        (Powers::ROOK_TAKE, 'U'),
        (Powers::BISHOP_MOVE, 'D'),
        (Powers::BISHOP_TAKE, 'E'),
        (Powers::KNIGHT_MOVE, 'H'),
        (Powers::KNIGHT_TAKE, 'I'),
        (Powers::PAWN_MOVE, 'F'),
        (Powers::PAWN_TAKE, 'G'),
        (Powers::CASTLE, 'C'),
    ] {
        let taken = s.contains('Q') && (power == Powers::ROOK || power == Powers::BISHOP);
        if powers.contains(power) && !taken {
            s.push(letter);
        }
    }
    s
}

/// Reads the inside of a `(...)` group: one colour's power letters.
pub(crate) fn parse_group(variant: &'static Variant, group: &str) -> Result<Piece, FenError> {
    if !variant.absorption && !variant.grants {
        return Err(syntax(format!("'({group})': this game has no pieces made of several powers")));
    }
    let white = group.chars().all(|c| c.is_ascii_uppercase());
    let black = group.chars().all(|c| c.is_ascii_lowercase());
    if group.is_empty() || !(white || black) {
        return Err(syntax(format!("'({group})' must be power letters of one colour")));
    }
    let mut powers = Powers::NONE;
    for c in group.chars() {
        let p = match c.to_ascii_uppercase() {
            'K' => Powers::KING,
            'Q' => Powers::QUEEN,
            'R' => Powers::ROOK,
            'B' => Powers::BISHOP,
            'N' => Powers::KNIGHT,
            'P' => Powers::PAWN,
            'C' if variant.grants => Powers::CASTLE,
            'T' if variant.split_powers => Powers::ROOK_MOVE,
            'U' if variant.split_powers => Powers::ROOK_TAKE,
            'D' if variant.split_powers => Powers::BISHOP_MOVE,
            'E' if variant.split_powers => Powers::BISHOP_TAKE,
            'H' if variant.split_powers => Powers::KNIGHT_MOVE,
            'I' if variant.split_powers => Powers::KNIGHT_TAKE,
            'F' if variant.split_powers => Powers::PAWN_MOVE,
            'G' if variant.split_powers => Powers::PAWN_TAKE,
            _ => return Err(syntax(format!("unknown power '{c}' in '({group})'"))),
        };
        powers = powers.with(p);
    }
    if variant.split_powers {
        // CS2: a full power is held as its two halves.
        powers = powers.split();
    }
    let royal = powers.contains(Powers::KING);
    if royal && variant.grants && powers != Powers::KING {
        return Err(FenError::Impossible {
            variant: variant.name,
            reason: "the King cannot hold other powers in this game".into(),
        });
    }
    let color = if white { Color::White } else { Color::Black };
    Ok(Piece { color, powers, royal, promoted: false })
}

fn can_promote(variant: &Variant, powers: Powers) -> bool {
    match variant.promotion {
        Promotion::Flip { mandatory, optional, .. } => powers.intersects(mandatory.with(optional)),
        _ => false,
    }
}
