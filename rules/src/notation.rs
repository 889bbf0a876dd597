//! Move notation: the canonical form (G2) and SAN, written and read.
//!
//! Canonical moves are single tokens in the style of UCI and
//! Fairy-Stockfish:
//!
//! | move | token |
//! |---|---|
//! | normal move | `e2e4` |
//! | promotion (chess) | `e7e8q` |
//! | flip promotion (Olympic, O3) | `c4c5+` |
//! | drop (Olympic, O5) | `P@c3` (upper-case letter for both sides) |
//! | castling | the king's move, `e1g1` (`e1h1` is accepted too) |
//! | one pawn twice (A6) | every square in order, `a2a3a4` |
//! | two pawns once each (A6) | both steps in order, `a2a3b2b3` |
//!
//! SAN is written in the usual way (`Nf3`, `exd5`, `e8=Q+`, `O-O`), with
//! `P@c3` for drops, `=G` for Olympic's flip promotion (`a5=G`, `Sxd5=G`),
//! the origin file for Alapawn's quiet diagonal pawn steps (`ed5`), and the two
//! steps of an A6 pair separated by a comma (`a3,b3`).
//!
//! Reading is forgiving: any letter case where that leaves one move, `x`,
//! `-`, `=`, `+`, `#`, `!` and `?` may be left out or added, `0-0` means
//! `O-O`, a disambiguation may be given even where it is not needed, and a
//! pawn's only promotion may be left unsaid (`a4a5` for Olympic's `a4a5+`). A
//! trailing `+` is read as check, not as a flip promotion, unless only the
//! promotion fits. Where a Silver may promote or not (O3), SAN that says
//! neither (`Sc5`, `Sc5+`) is asked about: `Sc5=G` promotes, `Sc5=S` stays
//! a Silver (canonical `c4c5+` and `c4c5` are read as they are).
//!
//! A move that reads well but is not legal is refused with the reason
//! ([`crate::Why`]); a set of powers with no name of its own (`(NP)`) answers
//! to the letter of each named piece whose powers it holds (`Nf3`).

use std::fmt::Write;

use thiserror::Error;

use crate::explain::{Named, Why, or_list};
use crate::moves::{Move, MoveList, Promote, castle_squares};
use crate::piece::{Piece, Powers};
use crate::position::Position;
use crate::types::{Color, Square};

/// Why a move text was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveError {
    /// The text cannot be a move in any position.
    #[error("'{0}' is not a move I can read")]
    Syntax(String),
    /// The text reads as a move, but no legal move matches it.
    #[error("{text} is not legal here{}", hint(.closest))]
    Illegal {
        /// What was typed.
        text: String,
        /// The closest legal moves, in SAN, best first.
        closest: Vec<String>,
    },
    /// The text reads as a move that is not legal here, for a reason that
    /// can be told.
    #[error("{}", refused(.text, .why))]
    Refused {
        /// What was typed.
        text: String,
        /// Why not.
        why: Why,
    },
    /// The text matches several legal moves.
    #[error("{}", ambiguous(.text, .candidates, .pieces))]
    Ambiguous {
        /// What was typed.
        text: String,
        /// The matching moves in SAN, each written so that it means that move alone.
        candidates: Vec<String>,
        /// The piece making each candidate, when they are different pieces.
        pieces: Vec<Named>,
    },
    /// A power given to the King (Construction, C2: only non-royal pieces
    /// receive powers).
    #[error("The King on {0} cannot be given powers (C2): give them to another of your pieces")]
    GrantToKing(Square),
    /// The game is over.
    #[error("the game is over")]
    GameOver,
}

/// A refusal: "`Ke2` is not possible: ...", or for a move that only lacks
/// a choice ("`gxh8`: g7 to h8 needs a promotion piece: ...", O3's
/// promote-or-not) the move and the question.
fn refused(text: &str, why: &Why) -> String {
    match why {
        Why::NeedsPromotion { asked: None, .. } | Why::PromoteOrNot { .. } => format!("{text}: {why}"),
        _ => format!("{text} is not possible: {why}"),
    }
}

fn ambiguous(text: &str, candidates: &[String], pieces: &[Named]) -> String {
    if pieces.len() == candidates.len() && pieces.len() > 1 {
        let who: Vec<String> = pieces.iter().map(Named::to_string).collect();
        format!("{text}: {}? Write {}", or_list(&who), or_list(candidates))
    } else {
        format!("{text} could mean {}", or_list(candidates))
    }
}

fn hint(closest: &[String]) -> String {
    if closest.is_empty() { String::new() } else { format!(": did you mean {}?", or_list(closest)) }
}

impl Position {
    /// The canonical token of a move (G2).
    pub fn canonical(&self, m: &Move) -> String {
        let mut s = String::with_capacity(8);
        match *m {
            Move::Normal { from, to, promote, keep } => {
                let _ = write!(s, "{from}{to}");
                match promote {
                    Promote::No => {}
                    Promote::Flip => s.push('+'),
                    Promote::To(i) => s.push(self.variant.pieces[i as usize].letter.to_ascii_lowercase()),
                }
                if keep {
                    s.push('-');
                }
            }
            Move::EnPassant { from, to, keep } => {
                let _ = write!(s, "{from}{to}");
                if keep {
                    s.push('-');
                }
            }
            Move::Grant { piece, to } => {
                let _ = write!(s, "{}>{to}", self.variant.pieces[piece as usize].letter);
            }
            Move::Swap { from, king } => {
                let _ = write!(s, "{from}{king}");
            }
            Move::Chain { from, .. } => {
                let _ = write!(s, "{from}");
                for (_, land) in self.chain_path(m) {
                    let _ = write!(s, "{land}");
                }
                if m.chain_shape().is_some_and(|(_, off)| off) {
                    s.push('x');
                }
            }
            Move::Shoot { from, target } => {
                let _ = write!(s, "{from}^{target}");
            }
            Move::Shield { .. } => s.push('D'),
            Move::Castle { king, rook } => {
                let _ = write!(s, "{king}{}", castle_squares(king, rook).0);
            }
            Move::Drop { piece, to } => {
                let _ = write!(s, "{}@{to}", self.variant.pieces[piece as usize].letter);
            }
            Move::PawnPair { first, second } => {
                let _ = write!(s, "{}{}", first.0, first.1);
                if second.0 != first.1 {
                    let _ = write!(s, "{}", second.0);
                }
                let _ = write!(s, "{}", second.1);
            }
        }
        s
    }

    /// SAN of a legal move, with `+` for check and `#` for a move that wins
    /// at once (checkmate, or Alapawn's race, A3).
    pub fn san(&self, m: &Move) -> String {
        let legal = self.legal_moves();
        let mut s = self.san_body(m, &legal);
        let mut after = self.clone();
        after.play_unchecked(*m);
        if after.winner_now() == Some(self.turn) {
            s.push('#');
        } else if after.is_check() {
            s.push('+');
        }
        s
    }

    /// The side that has won on the board alone, if any.
    fn winner_now(&self) -> Option<crate::types::Color> {
        if let Some(w) = self.race_decided() {
            return Some(w);
        }
        (self.is_check() && self.legal_moves().is_empty()).then_some(!self.turn)
    }

    pub(crate) fn san_body(&self, m: &Move, legal: &MoveList) -> String {
        let mut s = String::with_capacity(8);
        match *m {
            Move::Castle { king, rook } => s.push_str(if rook.file() > king.file() { "O-O" } else { "O-O-O" }),
            Move::Drop { piece, to } => {
                let _ = write!(s, "{}@{to}", self.variant.pieces[piece as usize].letter);
            }
            Move::EnPassant { from, to, keep } => {
                match self.piece_at(from) {
                    Some(p) if p.powers.joined() != Powers::PAWN => {
                        let _ = write!(s, "{}x{to}", self.piece_code(p).to_ascii_uppercase());
                    }
                    _ => {
                        let _ = write!(s, "{}x{to}", file_char(from));
                    }
                }
                if keep {
                    s.push('-');
                }
            }
            Move::Grant { piece, to } => {
                let _ = write!(s, "{}>{to}", self.variant.pieces[piece as usize].letter);
            }
            Move::Swap { from, king } => {
                let code = self.piece_code_at(from);
                let _ = write!(s, "{code}{from}<>{king}");
            }
            Move::Chain { from, .. } => {
                let off = if m.chain_shape().is_some_and(|(_, off)| off) { "x" } else { "" };
                s.push_str(&self.told_apart(format!("{}{off}", self.chain_san(m)), m, from, legal));
            }
            Move::Shoot { from, target } => {
                s.push_str(&self.told_apart(format!("{}^{target}", self.piece_code_at(from)), m, from, legal));
            }
            Move::Shield { .. } => s.push('D'),
            Move::PawnPair { first, second } => {
                s.push_str(&self.san_body(&plain(first.0, first.1), legal));
                let mut mid = self.clone();
                mid.apply_step(first.0, first.1);
                let step = plain(second.0, second.1);
                s.push(',');
                s.push_str(&mid.san_body(&step, &MoveList::new()));
            }
            Move::Normal { from, to, promote, keep } => {
                let Some(piece) = self.piece_at(from) else {
                    return self.canonical(m);
                };
                let capture = self.piece_at(to).is_some();
                if piece.powers.joined() == Powers::PAWN && !piece.promoted {
                    if capture || from.file() != to.file() {
                        s.push(file_char(from));
                    }
                    if capture {
                        s.push('x');
                    }
                } else {
                    if piece.promoted {
                        s.push('+');
                    }
                    s.push_str(&self.piece_code(piece).to_ascii_uppercase());
                    // Disambiguate among the same kind of piece going there,
                    // and the compounds that answer to the same letter (`Nf3`
                    // for a knight-pawn too).
                    let code = self.piece_code(piece).to_ascii_uppercase();
                    let answers = |p: Piece, f: Square| {
                        p == piece
                            || (code.len() == 1
                                && self
                                    .power_letters(p)
                                    .iter()
                                    .any(|l| code.starts_with(*l) && self.letter_makes(p, *l, f, to)))
                    };
                    let mut rivals: Vec<Square> = legal
                        .iter()
                        .filter_map(|o| match *o {
                            Move::Normal { from: f, to: t, .. } if t == to && f != from => {
                                self.piece_at(f).filter(|p| answers(*p, f)).map(|_| f)
                            }
                            // A Rabbit's chain read the same (`Tf3` for a
                            // chain from f1 over f2 and a slide from f2).
                            Move::Chain { from: f, .. }
                                if f != from && self.chain_san(o).replace('x', "") == format!("{code}{to}") =>
                            {
                                Some(f)
                            }
                            _ => None,
                        })
                        .collect();
                    rivals.dedup();
                    if !rivals.is_empty() {
                        if rivals.iter().all(|r| r.file() != from.file()) {
                            s.push(file_char(from));
                        } else if rivals.iter().all(|r| r.rank() != from.rank()) {
                            s.push((b'1' + from.rank()) as char);
                        } else {
                            let _ = write!(s, "{from}");
                        }
                    }
                    if capture {
                        s.push('x');
                    }
                }
                let _ = write!(s, "{to}");
                match promote {
                    // O3: where the piece could have promoted, staying is said (`Sxb5=S`).
                    Promote::No if legal.contains(&Move::Normal { from, to, promote: Promote::Flip, keep }) => {
                        let _ = write!(s, "={}", self.letter(piece).to_ascii_uppercase());
                    }
                    Promote::No => {}
                    Promote::Flip => s.push_str("=G"),
                    Promote::To(i) => {
                        let _ = write!(s, "={}", self.variant.pieces[i as usize].letter);
                    }
                }
                if keep {
                    s.push('-');
                }
            }
        }
        s
    }

    /// `plain`, the SAN of `m` by the piece on `from`, with that square put
    /// after the piece's letter where `plain` would read as another move
    /// too: two Rabbits landing alike (`Txf4` from c4 over e4 and from f6
    /// over f5: `Tc4xf4`), a chain and a slide ending on one square, two War
    /// Machines aiming at one target (`Mc3^d4`), as the other pieces are told
    /// apart.
    fn told_apart(&self, plain: String, m: &Move, from: Square, legal: &MoveList) -> String {
        if legal.is_empty() || self.matching(&plain, legal) == [*m] {
            return plain;
        }
        let code = self.piece_code_at(from);
        format!("{code}{from}{}", &plain[code.len()..])
    }

    /// The upper-case code of the piece on `sq` (empty if none).
    fn piece_code_at(&self, sq: Square) -> String {
        self.piece_at(sq).map(|p| self.piece_code(p).to_ascii_uppercase()).unwrap_or_default()
    }

    /// A Rabbit chain in SAN: the Rabbit's letter and its landing squares
    /// (the last jumped square for a chain that leaves the board).
    /// A jump that captures is marked `x` before its landing (`Txb6`), as
    /// en passant is.
    fn chain_san(&self, m: &Move) -> String {
        let mut s = m.from().map(|f| self.piece_code_at(f)).unwrap_or_default();
        let mut after = self.clone();
        after.play_unchecked(*m);
        let taken = self.taken_by(&after);
        for (victim, land) in self.chain_path(m) {
            if victim != land && taken.iter().any(|(sq, _)| *sq == victim) {
                s.push('x');
            }
            let _ = write!(s, "{land}");
        }
        s
    }

    /// Moves one piece without any other bookkeeping (for writing pairs).
    fn apply_step(&mut self, from: Square, to: Square) {
        if let Some(p) = self.remove(from) {
            self.put(to, p);
        }
    }

    /// Reads a move typed by a person: canonical or SAN, forgivingly (G2).
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        // `1.e4`, `1. e4`, `12... Nf6`: a move number as PGN writes it.
        let trimmed = without_en_passant_mark(without_move_number(text.trim()));
        // `(TU)a4`, `(NB)d4`: a compound as SAN writes it (`Ra4`, `(BN)d4`).
        let regrouped = self.regrouped(trimmed);
        let trimmed = regrouped.as_deref().unwrap_or(trimmed);
        // `♘f3`, `N f3`, `knight f3`, `drop rook c3`: read as `Nf3`, `R@c3`.
        if let Some(respelled) = self.respelled(trimmed) {
            return self.parse_spelled(&respelled, text);
        }
        self.parse_spelled(trimmed, text)
    }

    /// The move `trimmed` (without its move number) names; `text` is what
    /// was typed, for the errors that quote it whole.
    fn parse_spelled(&self, trimmed: &str, text: &str) -> Result<Move, MoveError> {
        if trimmed.is_empty() || trimmed.len() > 32 || !trimmed.is_ascii() {
            return Err(MoveError::Syntax(text.chars().take(32).collect()));
        }
        let legal = self.legal_moves();
        if legal.is_empty() {
            return Err(MoveError::GameOver);
        }
        if let Some(m) = legal.iter().find(|m| self.canonical(m) == trimmed) {
            return Ok(*m);
        }
        // PA3: `Bxc6-`, `Bxc6 keep` decline the absorption; the rest of the
        // text is read as usual and only the declining twin is taken.
        let (trimmed, keep) = strip_keep(trimmed);
        if let Some(m) = legal.iter().find(|m| self.canonical(m) == format!("{trimmed}{}", if keep { "-" } else { "" }))
        {
            return Ok(*m);
        }
        let all = legal;
        let legal: MoveList = all.iter().copied().filter(|m| is_keep(m) == keep).collect();
        if keep && let Some(why) = self.nothing_to_decline(&trimmed, &all, &legal) {
            return Err(MoveError::Refused { text: text.trim().to_string(), why });
        }
        if legal.is_empty() {
            return Err(MoveError::Illegal { text: text.trim().to_string(), closest: Vec::new() });
        }
        let trimmed = trimmed.as_str();
        let (body, _) = normalise(trimmed);
        if body.is_empty() {
            return Err(MoveError::Syntax(trimmed.to_string()));
        }
        let lower = trimmed.to_ascii_lowercase();
        // CA2: a trailing `x` after the last square (`Tb8x`, `b6b8x`) is a
        // Rabbit leaving the board with its edge victim: only such a chain.
        let exit = self.variant().armies && {
            let core = trimmed.trim_end_matches(['+', '#', '!', '?']);
            core.ends_with(['x', 'X']) && core[..core.len() - 1].ends_with(|c: char| c.is_ascii_digit())
        };
        let legal: MoveList = if exit {
            legal.iter().copied().filter(|m| m.chain_shape().is_some_and(|(_, off)| off)).collect()
        } else {
            legal
        };
        let mut found = self.matching(trimmed, &legal);
        if exit && found.is_empty() {
            let at = last_square(&body);
            return Err(MoveError::Refused { text: trimmed.to_string(), why: Why::NoExit(at) });
        }
        // A6: a pair's two steps may be written in either order.
        if found.is_empty()
            && self.variant().pawn_pairs
            && let Some(swapped) = swapped_pair(trimmed)
        {
            found = self.matching(&swapped, &legal);
        }
        // C2: a power given to the King gets the reason, not near misses.
        let grant =
            self.variant().grants && ((lower.contains('>') && !lower.contains("<>")) || lower.starts_with("give"));
        if found.is_empty()
            && grant
            && let Some(square) = last_square(&body).filter(|&s| self.royal_square(self.turn()) == Some(s))
        {
            return Err(MoveError::GrantToKing(square));
        }
        let refused = |why| MoveError::Refused { text: trimmed.to_string(), why };
        match found.len() {
            1 => {
                let m = found[0];
                if let Move::Normal { to, .. } = m
                    && self.piece_at(to).is_none()
                    && capture_marked(trimmed)
                {
                    let quiet = self.san_body(&m, &legal);
                    return Err(refused(Why::NothingToCapture { to, quiet }));
                }
                // O3: a Silver that may promote or not, and the text said neither.
                if last_square(&body).is_some_and(|sq| body.ends_with(&sq.to_string()))
                    && let Some(why) = self.promote_or_not(&m, &legal)
                {
                    return Err(refused(why));
                }
                Ok(m)
            }
            0 if let Some(why) = self.off_board(trimmed) => Err(refused(why)),
            // CA8: `D` where no shield can be raised.
            0 if trimmed == "D"
                && let Some(why) = self.why_no_shield(&all) =>
            {
                Err(refused(why))
            }
            0 if !looks_like_move(&body) => Err(MoveError::Syntax(trimmed.to_string())),
            0 => match self.explain(trimmed, &all) {
                Some(why) => Err(refused(why)),
                None => Err(MoveError::Illegal { text: trimmed.to_string(), closest: self.closest(&body, &legal) }),
            },
            _ => {
                let candidates: Vec<String> = found.iter().map(|m| self.unique_san(m, &legal)).collect();
                let froms: Vec<Square> = found.iter().filter_map(Move::from).collect();
                let distinct =
                    froms.len() == found.len() && froms.iter().enumerate().all(|(i, f)| !froms[..i].contains(f));
                let pieces = if distinct { froms.iter().filter_map(|f| self.named(*f)).collect() } else { Vec::new() };
                Err(MoveError::Ambiguous { text: trimmed.to_string(), candidates, pieces })
            }
        }
    }

    /// PA3, PA7: a capture written as declining where there is no declining
    /// move, because absorbing would change nothing (a pawn taking a pawn,
    /// or a side whose handicap takes nothing from this victim).
    fn nothing_to_decline(&self, text: &str, all: &MoveList, declining: &MoveList) -> Option<Why> {
        if text.is_empty() || !self.matching(text, declining).is_empty() {
            return None;
        }
        let absorbing: MoveList = all.iter().copied().filter(|m| !is_keep(m)).collect();
        let found = self.matching(text, &absorbing);
        let [m] = found.as_slice() else { return None };
        let capture = match *m {
            Move::Normal { to, .. } => self.piece_at(to).is_some(),
            Move::EnPassant { .. } => true,
            _ => false,
        };
        if !capture {
            // `Bb5-`: a move that takes nothing has nothing to absorb.
            return Some(Why::DeclineWithoutCapture { plain: self.unique_san(m, all) });
        }
        let us = self.turn();
        let handicap = self.handicaps().of(us);
        let handicap = (!handicap.is_none()).then(|| {
            let side = if us == Color::White { "White" } else { "Black" };
            format!("{side} plays {handicap}")
        });
        Some(Why::NothingToDecline { capture: self.unique_san(m, all), handicap })
    }

    /// The legal moves that `text` (without a declining mark) may mean, read
    /// from the most exact reading to the loosest; the first reading that
    /// matches anything decides.
    fn matching(&self, text: &str, legal: &MoveList) -> Vec<Move> {
        let (body, checked) = normalise(text);
        let lower = text.to_ascii_lowercase();
        let spellings: Vec<Spellings> = legal
            .iter()
            .map(|m| {
                let (strict, loose) = self.san_forms(m, legal);
                Spellings { mv: *m, canonical: self.canonical_forms(m, legal), strict, loose }
            })
            .collect();
        let same = |list: &[String], key: &str| list.iter().any(|f| f == key);
        let alike = |list: &[String], key: &str| list.iter().any(|f| f.eq_ignore_ascii_case(key));
        let plus = format!("{body}+");
        let readings: [&dyn Fn(&Spellings) -> bool; 4] = [
            &|x| same(&x.strict, &body),
            &|x| same(&x.canonical, &lower) || alike(&x.strict, &body),
            &|x| alike(&x.loose, &body),
            // `a5+`: the `+` may be a flip promotion after all.
            &|x| checked && (alike(&x.strict, &plus) || alike(&x.loose, &plus)),
        ];
        readings
            .iter()
            .map(|r| spellings.iter().filter(|x| r(x)).map(|x| x.mv).collect::<Vec<_>>())
            .find(|f| !f.is_empty())
            .unwrap_or_default()
    }

    /// SAN of `m` written so that it is read as `m` alone: with the origin's
    /// file, rank or square added where the plain SAN means several moves.
    fn unique_san(&self, m: &Move, legal: &MoveList) -> String {
        let san = self.san_body(m, legal);
        let mut options = vec![san.clone()];
        if let Move::Normal { from, to, .. } = *m
            && let Some(p) = self.piece_at(from)
            && (p.powers.joined() != Powers::PAWN || p.promoted)
        {
            let code = if p.promoted {
                format!("+{}", self.piece_code(p).to_ascii_uppercase())
            } else {
                self.piece_code(p).to_ascii_uppercase()
            };
            let tail = san.find(&to.to_string()).map(|i| &san[i..]).unwrap_or_default();
            let cap = if self.piece_at(to).is_some() { "x" } else { "" };
            for d in [file_char(from).to_string(), (from.rank() + 1).to_string(), from.to_string()] {
                options.push(format!("{code}{d}{cap}{tail}"));
            }
        }
        options.into_iter().find(|o| self.matching(o, legal) == [*m]).unwrap_or(san)
    }

    /// Lower-case canonical spellings of a move.
    fn canonical_forms(&self, m: &Move, legal: &MoveList) -> Vec<String> {
        let mut forms = vec![self.canonical(m).to_ascii_lowercase()];
        match *m {
            Move::Castle { king, rook } => forms.push(format!("{king}{rook}")),
            // An only promotion may be left unsaid.
            Move::Normal { from, to, promote: Promote::Flip, .. } if !legal.contains(&plain(from, to)) => {
                forms.push(format!("{from}{to}"));
            }
            // A6: one pawn twice may be written through any safe square.
            Move::PawnPair { first, second } if second.0 == first.1 => {
                for mid in self.passes_to(self.safe_passes(first.0), second.1) {
                    forms.push(format!("{}{mid}{}", first.0, second.1));
                }
            }
            _ => {}
        }
        forms
    }

    /// SAN spellings of a move after [`normalise`]: every disambiguation, with
    /// or without the piece letter for pawns. The second list holds looser
    /// spellings, read only when no strict one matches (a drop without `@`,
    /// a promoted piece named by what it moves as).
    fn san_forms(&self, m: &Move, legal: &MoveList) -> (Vec<String>, Vec<String>) {
        let mut out = Vec::new();
        let mut loose = Vec::new();
        match *m {
            Move::Castle { king, rook } => {
                let long = rook.file() < king.file();
                out.push(if long { "OOO" } else { "OO" }.to_string());
                out.push(if long { "000" } else { "00" }.to_string());
            }
            Move::Drop { piece, to } => {
                let l = self.variant.pieces[piece as usize].letter;
                out.push(format!("{l}@{to}"));
                // `Rc3` for a drop only where no rook of the mover's stands
                // on the board, whose move it would be.
                if !self.has_on_board(piece) {
                    loose.push(format!("{l}{to}"));
                }
                loose.push(format!("drop,{to}"));
                loose.push(format!("drop{to}"));
            }
            Move::EnPassant { from, to, .. } => {
                out.push(format!("{}{to}", file_char(from)));
                out.push(format!("P{}{to}", file_char(from)));
                out.push(format!("{from}{to}"));
                if let Some(p) = self.piece_at(from) {
                    let code = self.piece_code(p).to_ascii_uppercase();
                    out.push(format!("{code}{to}"));
                    out.push(format!("{code}{from}{to}"));
                }
            }
            Move::PawnPair { first, second } => {
                // A6: one pawn twice may be written through any safe square
                // (`c6,cb5` or `cb6,b5`), as its canonical form may.
                let mids: Vec<Square> = if second.0 == first.1 {
                    let mut all = vec![first.1];
                    all.extend(
                        self.passes_to(self.safe_passes(first.0), second.1).into_iter().filter(|&s| s != first.1),
                    );
                    all
                } else {
                    vec![first.1]
                };
                for through in mids {
                    let (step_one, step_two) =
                        if second.0 == first.1 { ((first.0, through), (through, second.1)) } else { (first, second) };
                    let (a, _) = normalise(&self.san_body(&plain(step_one.0, step_one.1), legal));
                    let mut mid = self.clone();
                    mid.apply_step(step_one.0, step_one.1);
                    let step = plain(step_two.0, step_two.1);
                    let (b, _) = normalise(&mid.san_body(&step, &MoveList::new()));
                    out.push(format!("{a},{b}"));
                }
            }
            Move::Grant { piece, to } => {
                let pt = self.variant.pieces[piece as usize];
                out.push(format!("{}>{to}", pt.letter));
                for word in ["give", "grant", "add"] {
                    out.push(format!("{word},{},{to}", pt.letter));
                    // `give rook moving half e2` (CS2): the words as typed.
                    out.push(format!("{word},{},{to}", pt.name.replace(' ', ",")));
                    out.push(format!("{word}{}{to}", pt.letter));
                }
            }
            Move::Chain { from, .. } => {
                // Typed text loses its `x` in `normalise`, so these forms do
                // too: a chain that leaves the board ends on its victim's
                // square, where no chain of the same position can land.
                let body = self.chain_san(m).replace('x', "");
                out.push(body);
                let landings: String = self.chain_path(m).iter().map(|(_, l)| l.to_string()).collect();
                out.push(format!("T{from}{landings}"));
                out.push(format!("{from}{landings}"));
            }
            Move::Shoot { from, target } => {
                let code = self.piece_code_at(from);
                out.push(format!("{code}^{target}"));
                out.push(format!("{code}{from}^{target}"));
                out.push(format!("shoot,{target}"));
                out.push(format!("shoot{target}"));
                out.push(format!("{code},shoots,{target}"));
            }
            Move::Shield { .. } => {
                out.push("D".to_string());
                out.push("shield".to_string());
            }
            Move::Swap { from, king } => {
                let code = self.piece_code_at(from);
                out.push(format!("{code}{from}<>{king}"));
                out.push(format!("{from}<>{king}"));
                out.push(format!("swap,{from}"));
                out.push(format!("swap{from}"));
                // `O-O` and `O-O-O` read as a swap (C6): with a piece on
                // that side of the King where there is one, else any.
                let side = |long: bool, sq: Square| match sq.file().cmp(&king.file()) {
                    std::cmp::Ordering::Greater => !long,
                    std::cmp::Ordering::Less => long,
                    std::cmp::Ordering::Equal => true,
                };
                let swaps: Vec<Square> = legal
                    .iter()
                    .filter_map(|m| match m {
                        Move::Swap { from, .. } => Some(*from),
                        _ => None,
                    })
                    .collect();
                for (long, written) in [(false, ["OO", "00"]), (true, ["OOO", "000"])] {
                    if side(long, from) || !swaps.iter().any(|&f| side(long, f)) {
                        loose.extend(written.iter().map(|w| w.to_string()));
                    }
                }
            }
            Move::Normal { from, to, promote, .. } => {
                let Some(piece) = self.piece_at(from) else {
                    return (out, loose);
                };
                let suffixes: Vec<String> = match promote {
                    // O3: `Sxc1=S` stays a Silver where it could promote.
                    Promote::No if legal.contains(&Move::Normal { from, to, promote: Promote::Flip, keep: false }) => {
                        vec![String::new(), self.letter(piece).to_ascii_uppercase().to_string()]
                    }
                    Promote::No => vec![String::new()],
                    Promote::To(i) => {
                        let pt = self.variant.pieces[i as usize];
                        let mut v = vec![pt.letter.to_string()];
                        if pt.powers.is_empty() {
                            v.push("static".to_string());
                        }
                        v
                    }
                    Promote::Flip => {
                        let mut v = vec!["G".to_string(), "+G".to_string(), "+".to_string()];
                        if !legal.contains(&plain(from, to)) {
                            v.push(String::new());
                        }
                        v
                    }
                };
                let mut stems = Vec::new();
                if piece.powers.joined() == Powers::PAWN && !piece.promoted {
                    let f = file_char(from);
                    if from.file() == to.file() {
                        stems.push(format!("{to}"));
                    } else {
                        stems.push(format!("{f}{to}"));
                    }
                    stems.push(format!("{from}{to}"));
                    let with_p: Vec<String> = stems.iter().map(|s| format!("P{s}")).collect();
                    stems.extend(with_p);
                } else {
                    let letter = self.piece_code(piece).to_ascii_uppercase();
                    let prefix = if piece.promoted { format!("+{letter}") } else { letter.clone() };
                    let canonical_stem = self.san_body(&plain(from, to), legal);
                    let (canonical_stem, _) = normalise(&canonical_stem);
                    stems.push(canonical_stem);
                    for d in
                        [String::new(), file_char(from).to_string(), (from.rank() + 1).to_string(), from.to_string()]
                    {
                        stems.push(format!("{prefix}{d}{to}"));
                    }
                    // A set of powers with no name of its own answers to the
                    // letter of any piece whose powers it holds (`Nf3` for
                    // the knight-pawn); a letter naming several pieces asks.
                    for l in self.power_letters(piece).into_iter().filter(|&l| self.letter_makes(piece, l, from, to)) {
                        for d in [String::new(), file_char(from).to_string(), (from.rank() + 1).to_string()] {
                            stems.push(format!("{l}{d}{to}"));
                        }
                        stems.push(format!("{l}{from}{to}"));
                    }
                    // A piece that holds the Pawn power, moving as a pawn,
                    // answers loosely to a pawn's move too (`d6` for
                    // `(NP)d6`, PA4; `h8=P` for `(RP)h8=P`, C4).
                    let ahead = if piece.color == Color::White { 1 } else { -1 };
                    let steps = i32::from(to.rank()) - i32::from(from.rank());
                    // Onto the last rank the pawn move promotes (PA5, C4, C5):
                    // the other power's move there is not the pawn's.
                    let pawn_promotes = promote == Promote::No
                        && legal.iter().any(|m| {
                            matches!(m, Move::Normal { from: f, to: t, promote: Promote::To(_), .. } if *f == from && *t == to)
                        });
                    if piece.powers.whole().contains(Powers::PAWN)
                        && !pawn_promotes
                        && from.file().abs_diff(to.file()) <= 1
                        && (steps == ahead || (steps == 2 * ahead && from.file() == to.file()))
                    {
                        let stem =
                            if from.file() == to.file() { to.to_string() } else { format!("{}{to}", file_char(from)) };
                        for suf in &suffixes {
                            loose.push(format!("{stem}{suf}"));
                        }
                    }
                    if piece.promoted {
                        // A promoted piece may also be named by what it moves as.
                        for suf in &suffixes {
                            loose.push(format!("G{to}{suf}"));
                        }
                    }
                }
                for stem in &stems {
                    for suf in &suffixes {
                        out.push(format!("{stem}{suf}"));
                    }
                }
            }
        }
        (out, loose)
    }

    /// Legal moves that look most like what was typed, in SAN: those that
    /// reach a square it names (the nearer the better), made by the piece
    /// it names, by letter or, where it names more than one square, by the
    /// first of them (`e2e4e5` is closest to `e4`, then `e3`).
    fn closest(&self, body: &str, legal: &MoveList) -> Vec<String> {
        let squares = squares_in(body);
        let (from, targets) = match squares.as_slice() {
            [] => (None, &[][..]),
            [only] => (None, std::slice::from_ref(only)),
            [first, rest @ ..] => (Some(*first), rest),
        };
        let letter = body.chars().next().filter(|c| c.is_ascii_uppercase());
        let mut scored: Vec<(u32, String)> = legal
            .iter()
            .map(|m| {
                let to = m.to();
                let near = targets.iter().map(|t| {
                    let off = u32::from(to.file().abs_diff(t.file()) + to.rank().abs_diff(t.rank()));
                    if to == *t { off } else { off + 2 }
                });
                let mut score = near.min().unwrap_or(8);
                let moving = m.from().and_then(|f| self.piece_at(f)).map(|p| self.letter(p).to_ascii_uppercase());
                if letter.is_some() && moving != letter {
                    score += 3;
                }
                if from.is_some() && m.from() != from {
                    score += 3;
                }
                (score, self.san(m))
            })
            .collect();
        scored.sort();
        scored.into_iter().take(3).map(|(_, s)| s).collect()
    }
}

/// The ways one legal move may be written.
struct Spellings {
    mv: Move,
    /// Lower-case canonical tokens.
    canonical: Vec<String>,
    /// SAN after [`normalise`].
    strict: Vec<String>,
    /// Looser SAN, read only when nothing strict matches.
    loose: Vec<String>,
}

/// A plain move with no promotion or declining.
fn plain(from: Square, to: Square) -> Move {
    Move::Normal { from, to, promote: Promote::No, keep: false }
}

fn file_char(sq: Square) -> char {
    (b'a' + sq.file()) as char
}

/// Strips what SAN may add or omit. Returns the body and whether a trailing
/// `+` (check, or perhaps a flip promotion) was present.
fn normalise(text: &str) -> (String, bool) {
    // `=+` is a flip promotion, whatever follows.
    let mut t: String = text.trim().replace("=+", "=G");
    let mut checked = false;
    while let Some(c) = t.chars().last() {
        match c {
            '#' | '!' | '?' => {
                t.pop();
            }
            '+' => {
                checked = true;
                t.pop();
            }
            _ => break,
        }
    }
    let mut out = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            'x' | 'X' | ':' | '-' | '=' => {}
            ' ' | ';' | '&' | '/' => {
                if !out.ends_with(',') {
                    out.push(',');
                }
            }
            c => out.push(c),
        }
    }
    (out, checked)
}

/// The chess figurines, either colour, with the letters they stand for.
const FIGURINES: [(char, char); 12] = [
    ('♔', 'K'),
    ('♕', 'Q'),
    ('♖', 'R'),
    ('♗', 'B'),
    ('♘', 'N'),
    ('♙', 'P'),
    ('♚', 'K'),
    ('♛', 'Q'),
    ('♜', 'R'),
    ('♝', 'B'),
    ('♞', 'N'),
    ('♟', 'P'),
];

/// The piece letter a chess figurine (either colour) stands for.
pub fn figurine_letter(c: char) -> Option<char> {
    FIGURINES.iter().find(|(f, _)| *f == c).map(|(_, l)| *l)
}

impl Position {
    /// A move written with a figurine (`♘f3`), with the piece's letter or
    /// name as a word of its own (`N f3`, `knight f3`, `Knight g1-f3`), or
    /// as a drop in words (`drop rook c3`, O5), or as two squares (`e2 e4`,
    /// `e2 to e4`), or a drop as shogi writes it (`P*b3`) or in lower case
    /// (`p@b3`), in the notation's own spelling (`Nf3`, `Ng1-f3`, `R@c3`,
    /// `e2e4`, `P@b3`); `None` for anything else. A
    /// pawn's name goes away (`pawn e4` is `e4`), as SAN writes it.
    /// `text` with the group of powers it starts with written as SAN
    /// writes that piece: in the usual order (`(NB)` is `(BN)`), a named
    /// piece by its letter (`(RB)` is `Q`), and in split Construction both
    /// halves of a power by its full letter (`(TU)` is `R`, CS2); `None`
    /// where it starts with no group of this game's powers, or with one
    /// already so written.
    fn regrouped(&self, text: &str) -> Option<String> {
        let rest = text.strip_prefix('(')?;
        let (group, tail) = rest.split_once(')')?;
        let piece = crate::fen::parse_group(self.variant, &group.to_ascii_uppercase()).ok()?;
        let code = self.piece_code(piece);
        (code != format!("({group})")).then(|| format!("{code}{tail}"))
    }

    fn respelled(&self, text: &str) -> Option<String> {
        let figurines = text.chars().any(|c| figurine_letter(c).is_some());
        let text: String = text.chars().map(|c| figurine_letter(c).unwrap_or(c)).collect();
        let words: Vec<&str> = text.split_whitespace().collect();
        // The letter of the variant's piece that `word` names.
        let letter = |word: &str| -> Option<char> {
            let pieces = self.variant.pieces;
            match word.chars().collect::<Vec<_>>().as_slice() {
                [c] if c.is_ascii_uppercase() => pieces.iter().find(|p| p.letter == *c).map(|p| p.letter),
                _ => pieces.iter().find(|p| p.name.eq_ignore_ascii_case(word)).map(|p| p.letter),
            }
        };
        let piece_and = |letter: char, rest: &str| {
            if letter == 'P' && !self.variant.drops { rest.to_string() } else { format!("{letter}{rest}") }
        };
        let square = |w: &str| Square::parse(&w.to_ascii_lowercase()).is_some();
        // `give castle e2`, `give bishop to d2`, `give the knight power to
        // a2`: a grant (C2, C6) as players say it, its filler words left out.
        if self.variant.grants
            && let [give, middle @ .., sq] = words.as_slice()
            && ["give", "grant", "add"].iter().any(|g| give.eq_ignore_ascii_case(g))
            && square(sq)
        {
            let said: Vec<String> = middle.iter().map(|w| w.to_ascii_lowercase()).collect();
            let kept: Vec<&str> = said
                .iter()
                .map(String::as_str)
                .filter(|w| !["to", "on", "onto", "the", "a", "power"].contains(w))
                .map(|w| if w == "castle" || w == "castles" { "castling" } else { w })
                .collect();
            if !kept.is_empty() && kept != said {
                return Some(format!("{} {} {sq}", give.to_ascii_lowercase(), kept.join(" ")));
            }
        }
        // `give d2 rook`, `give e2 a bishop`: the square named first.
        if self.variant.grants
            && let [give, sq, middle @ ..] = words.as_slice()
            && ["give", "grant", "add"].iter().any(|g| give.eq_ignore_ascii_case(g))
            && square(sq)
            && middle.last().is_some_and(|w| !square(w))
        {
            let reordered = format!("{give} {} {sq}", middle.join(" "));
            return Some(self.respelled(&reordered).unwrap_or(reordered));
        }
        // `drop static d2`, `drop a static piece on d2` (C2), `drop a rook
        // on c3` (O5): a drop as players say it, its filler words left out.
        if let [drop, middle @ .., sq] = words.as_slice()
            && drop.eq_ignore_ascii_case("drop")
            && square(sq)
            && !middle.is_empty()
        {
            let filler = |w: &&&str| {
                !["a", "an", "one", "the", "my", "on", "onto", "to", "at", "in"]
                    .iter()
                    .any(|f| w.eq_ignore_ascii_case(f))
            };
            let kept: Vec<&&str> = middle.iter().filter(filler).collect();
            let static_words = |w: &&&str| ["static", "piece"].iter().any(|f| w.eq_ignore_ascii_case(f));
            if self.variant.grants && kept.iter().all(static_words) {
                return Some(format!("drop {sq}"));
            }
            if self.variant.drops
                && let [piece] = kept.as_slice()
                && kept.len() < middle.len()
            {
                return letter(piece).map(|l| format!("{l}@{sq}"));
            }
        }
        // CS2: a half in words in any order (`give moving bishop d2`, `give
        // bishop moving d2`, `give moving half bishop d2`).
        if self.variant.split_powers
            && let [give, middle @ .., sq] = words.as_slice()
            && ["give", "grant", "add"].iter().any(|g| give.eq_ignore_ascii_case(g))
            && square(sq)
        {
            let kind = middle.iter().find(|w| w.eq_ignore_ascii_case("moving") || w.eq_ignore_ascii_case("capturing"));
            let piece: Vec<&&str> = middle
                .iter()
                .filter(|w| !["moving", "capturing", "half"].iter().any(|x| w.eq_ignore_ascii_case(x)))
                .collect();
            if let (Some(kind), [piece]) = (kind, piece.as_slice()) {
                let spelled = format!("give {} {} half {sq}", piece.to_ascii_lowercase(), kind.to_ascii_lowercase());
                if spelled != text.to_ascii_lowercase() {
                    return Some(spelled);
                }
            }
        }
        match words.as_slice() {
            // `e2 e4`, `e2 to e4`: from and to (A6's pairs are two targets).
            [from, to] if !self.variant.pawn_pairs && square(from) && square(to) => {
                Some(format!("{from}{to}").to_ascii_lowercase())
            }
            [from, word, to] if word.eq_ignore_ascii_case("to") && square(from) && square(to) => {
                Some(format!("{from}{to}").to_ascii_lowercase())
            }
            [piece, rest] if !rest.contains(',') => letter(piece).map(|l| piece_and(l, rest)),
            [verb, piece, sq] if self.variant.drops && verb.eq_ignore_ascii_case("drop") => {
                letter(piece).map(|l| format!("{l}@{sq}"))
            }
            // Long algebraic with every square (`c7-c6-b5`, A6; `b1-b3-d3`,
            // CA2): the canonical token.
            [one] if one.contains('-') && one.split('-').all(square) && one.split('-').count() >= 3 => {
                Some(one.replace('-', "").to_ascii_lowercase())
            }
            // O3: the promotion named by the piece it makes, as FEN writes
            // it (`axb5+P`, `Sxc5=+S`): the promotion mark `=+`.
            [one]
                if self.variant.drops
                    && let Some(stem) = ["=+P", "=+S", "+P", "+S"].iter().find_map(|s| one.strip_suffix(s))
                    && stem.len() >= 2 =>
            {
                Some(format!("{stem}=+"))
            }
            // `cxd8(Q)`, `bxc8=(G)+`: the promotion in brackets.
            [one]
                if let Some(core) = Some(one.trim_end_matches(['+', '#', '!', '?']))
                    && core.len() > 4
                    && core.ends_with(')')
                    && core.as_bytes()[core.len() - 3] == b'('
                    && core.as_bytes()[core.len() - 2].is_ascii_alphabetic() =>
            {
                let stem = core[..core.len() - 3].trim_end_matches('=');
                Some(format!("{stem}={}{}", &core[core.len() - 2..core.len() - 1], &one[core.len()..]))
            }
            // O5: `P*b3` as shogi writes a drop, `p@b3` in lower case.
            [drop] if self.variant.drops && (drop.contains('*') || drop.contains('@')) => {
                let drop = drop.replace('*', "@");
                let (piece, to) = drop.split_once('@')?;
                let upper = piece.to_ascii_uppercase();
                (upper != piece || drop != text || figurines).then(|| format!("{upper}@{to}"))
            }
            _ if figurines => Some(text.clone()),
            _ => None,
        }
    }
}

/// `text` without the en passant mark some write after the capture
/// (`exd6 e.p.`, `exd6ep`), where a square comes before it.
pub fn without_en_passant_mark(text: &str) -> &str {
    let lower = text.to_ascii_lowercase();
    for mark in ["e.p.", "e.p", "ep"] {
        if lower.ends_with(mark) {
            let rest = text[..text.len() - mark.len()].trim_end();
            if rest.ends_with(|c: char| c.is_ascii_digit()) {
                return rest;
            }
        }
    }
    text
}

/// `text` without a leading move number (`1.`, `12...`), where a move
/// follows it.
pub fn without_move_number(text: &str) -> &str {
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let after = &text[digits..];
    let dots = after.len() - after.trim_start_matches('.').len();
    let rest = after[dots..].trim_start();
    if digits == 0 || dots == 0 || rest.is_empty() { text } else { rest }
}

/// A pawn pair (A6) written the other way round: `b6,a6` as `a6,b6` (and
/// `b6 a6`), the token `b7b6a7a6` as `a7a6b7b6`; `None` for anything else.
fn swapped_pair(text: &str) -> Option<String> {
    if let Some((a, b)) = text.split_once(',') {
        return Some(format!("{},{}", b.trim(), a.trim()));
    }
    if let [a, b] = text.split_whitespace().collect::<Vec<_>>().as_slice() {
        return Some(format!("{b} {a}"));
    }
    let b = text.as_bytes();
    let squares = b.len() == 8 && b.chunks(2).all(|c| c[0].is_ascii_lowercase() && c[1].is_ascii_digit());
    squares.then(|| format!("{}{}", &text[4..], &text[..4]))
}

/// True for a move that declines an absorption (PA3).
fn is_keep(m: &Move) -> bool {
    matches!(m, Move::Normal { keep: true, .. } | Move::EnPassant { keep: true, .. })
}

/// Splits a declining mark off typed text: a trailing `-` (after any `+`,
/// `#`, `!`, `?`) or a last word `keep`, `decline` or `declines`; a last
/// word `absorb` says the opposite and is dropped too.
fn strip_keep(text: &str) -> (String, bool) {
    let mut words: Vec<&str> = text.split_whitespace().collect();
    if words.len() > 1
        && let Some(last) = words.last()
        && ["keep", "decline", "declines", "noabsorb"].iter().any(|w| last.eq_ignore_ascii_case(w))
    {
        words.pop();
        return (words.join(" "), true);
    }
    if words.len() > 1
        && let Some(last) = words.last()
        && ["absorb", "absorbs"].iter().any(|w| last.eq_ignore_ascii_case(w))
    {
        words.pop();
        return (words.join(" "), false);
    }
    let core = text.trim_end_matches(['+', '#', '!', '?']);
    let marks = &text[core.len()..];
    match core.strip_suffix('-') {
        // `O-O-` is not a declining castle; a lone `-` is no move.
        Some(rest) if !rest.is_empty() && !rest.ends_with('-') && !rest.ends_with(['O', 'o', '0']) => {
            (format!("{rest}{marks}"), true)
        }
        _ => (text.to_string(), false),
    }
}

/// Every square named in `text`, in order (overlapping pairs never count:
/// a square is a letter and a digit).
pub(crate) fn squares_in(text: &str) -> Vec<Square> {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(1)).filter_map(|i| Square::from_bytes(b[i], b[i + 1])).collect()
}

fn last_square(text: &str) -> Option<Square> {
    squares_in(text).pop()
}

/// True if the text marks a capture (`x` or `:`) before its last square.
fn capture_marked(text: &str) -> bool {
    let b = text.as_bytes();
    let last = (0..b.len().saturating_sub(1)).rev().find(|&i| Square::from_bytes(b[i], b[i + 1]).is_some());
    last.is_some_and(|i| text[..i].contains(['x', 'X', ':']))
}

impl Position {
    /// The first square `text` names beyond the board's edge: a file letter
    /// and a rank number (`f9`, `i4`, `a0`, `e10`), lower-case as move
    /// texts write files, that the board has no square for.
    fn off_board(&self, text: &str) -> Option<Why> {
        let (width, height) = (self.variant.width, self.variant.height);
        let corner = Square::from_coords(width - 1, height - 1)?;
        let b = text.as_bytes();
        (0..b.len()).find_map(|i| {
            let file = b[i];
            let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if !file.is_ascii_lowercase() || !(1..=2).contains(&digits) {
                return None;
            }
            let rank: u32 = text[i + 1..i + 1 + digits].parse().ok()?;
            let on = u32::from(file - b'a') < u32::from(width) && (1..=u32::from(height)).contains(&rank);
            (!on).then(|| Why::OffBoard { square: text[i..i + 1 + digits].to_string(), corner })
        })
    }
}

fn looks_like_move(body: &str) -> bool {
    last_square(body).is_some()
        || body.eq_ignore_ascii_case("oo")
        || body.eq_ignore_ascii_case("ooo")
        || body == "00"
        || body == "000"
}
