//! A player's army: the pieces bought and where they stand, buying,
//! selling and placing within the gold and the classes' limits (CA11-CA13),
//! and the survivors a round leaves (CA13).

use super::pieces::{back_rank, is_dark};
use super::{ArmyError, PieceClass, PieceKind, PieceRef};
use crate::types::{Color, Square};

/// One piece of an army: its kind and its square, if it has one (survivors
/// beyond their class's squares have none until the player sells, CA13).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArmyPiece {
    /// The piece.
    pub kind: PieceKind,
    /// Its square on the board (White on ranks 1-2, Black on ranks 8-7).
    pub square: Option<Square>,
}

/// A player's army between rounds (CA12, CA13).
///
/// Squares are board squares: White's pieces on ranks 1 and 2, Black's on
/// ranks 8 and 7. `pieces` is kept sorted: placed pieces by square, then the
/// pieces without a square by kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Army {
    /// Whose army.
    pub color: Color,
    /// The pieces.
    pub pieces: Vec<ArmyPiece>,
}

impl Army {
    /// An empty army.
    pub fn new(color: Color) -> Army {
        Army { color, pieces: Vec::new() }
    }

    /// Number of pieces.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// No pieces at all.
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// The piece on `square`.
    pub fn kind_at(&self, square: Square) -> Option<PieceKind> {
        self.pieces.iter().find(|p| p.square == Some(square)).map(|p| p.kind)
    }

    /// The placed pieces with their squares.
    pub fn placed(&self) -> impl Iterator<Item = (Square, PieceKind)> + '_ {
        self.pieces.iter().filter_map(|p| p.square.map(|s| (s, p.kind)))
    }

    /// The pieces without a square.
    pub fn unplaced(&self) -> impl Iterator<Item = PieceKind> + '_ {
        self.pieces.iter().filter(|p| p.square.is_none()).map(|p| p.kind)
    }

    /// How many pieces of `class` the army holds (placed or not).
    pub fn count_class(&self, class: PieceClass) -> usize {
        self.pieces.iter().filter(|p| p.kind.class() == class).count()
    }

    /// How many pieces of `kind` the army holds (placed or not).
    pub fn count_kind(&self, kind: PieceKind) -> usize {
        self.pieces.iter().filter(|p| p.kind == kind).count()
    }

    /// The Leader, if any.
    pub fn leader(&self) -> Option<PieceKind> {
        self.pieces.iter().map(|p| p.kind).find(|k| k.class() == PieceClass::Leader)
    }

    /// The Jewel, if any.
    pub fn jewel(&self) -> Option<PieceKind> {
        self.pieces.iter().map(|p| p.kind).find(|k| k.class() == PieceClass::Jewel)
    }

    /// What the army would fetch if sold (the Amazon counts nothing).
    pub fn value_quarters(&self) -> u32 {
        self.pieces.iter().filter_map(|p| p.kind.cost_quarters()).sum()
    }

    /// Whether one more `kind` keeps the army within CA12's limits.
    pub fn room_for(&self, kind: PieceKind) -> Result<(), ArmyError> {
        let class = kind.class();
        let count = self.count_class(class);
        if count >= class.limit() {
            return Err(ArmyError::ClassFull { class, count });
        }
        if let Some(limit) = kind.kind_limit() {
            let count = self.count_kind(kind);
            if count >= limit {
                return Err(ArmyError::KindFull { kind, count });
            }
        }
        Ok(())
    }

    /// Whether `kind` may stand on `square` (CA12): a square of its class,
    /// free, and for a Bishop of the other colour from the other Bishop.
    /// `moving_from` is the square the piece leaves, if it is already placed.
    pub fn check_square(&self, kind: PieceKind, square: Square, moving_from: Option<Square>) -> Result<(), ArmyError> {
        let class = kind.class();
        if !class.squares(self.color).contains(&square) {
            return Err(ArmyError::WrongSquare { class, color: self.color, square });
        }
        if Some(square) != moving_from
            && let Some(other) = self.kind_at(square)
        {
            return Err(ArmyError::SquareTaken { square, kind: other });
        }
        if kind == PieceKind::Bishop {
            let clash = self
                .placed()
                .find(|&(s, k)| k == PieceKind::Bishop && Some(s) != moving_from && is_dark(s) == is_dark(square));
            if let Some((other, _)) = clash {
                return Err(ArmyError::BishopsSameColour { square, other });
            }
        }
        Ok(())
    }

    /// The first square where a new `kind` may stand, in the order of
    /// [`PieceClass::squares`].
    pub fn first_free_square(&self, kind: PieceKind) -> Option<Square> {
        kind.class().squares(self.color).into_iter().find(|&s| self.check_square(kind, s, None).is_ok())
    }

    /// Adds a `kind` on `square`, or on the first free square of its class:
    /// refused over the limits or on a wrong square. Returns the square.
    pub fn add(&mut self, kind: PieceKind, square: Option<Square>) -> Result<Square, ArmyError> {
        self.room_for(kind)?;
        let square = match square {
            Some(s) => {
                self.check_square(kind, s, None)?;
                s
            }
            None => self.first_free_square(kind).ok_or(ArmyError::NoFreeSquare { kind, color: self.color })?,
        };
        self.pieces.push(ArmyPiece { kind, square: Some(square) });
        self.normalize();
        Ok(square)
    }

    /// The index of the piece `what` names.
    pub(super) fn find(&self, what: PieceRef) -> Result<usize, ArmyError> {
        match what {
            PieceRef::Square(square) => {
                self.pieces.iter().position(|p| p.square == Some(square)).ok_or(ArmyError::NoPieceOn { square })
            }
            PieceRef::Kind(kind) => {
                if let Some(i) = self.pieces.iter().position(|p| p.kind == kind && p.square.is_none()) {
                    return Ok(i);
                }
                let all: Vec<usize> = (0..self.pieces.len()).filter(|&i| self.pieces[i].kind == kind).collect();
                match all[..] {
                    [] => Err(ArmyError::NoPieceOfKind { kind }),
                    [i] => Ok(i),
                    _ => Err(ArmyError::AmbiguousKind {
                        kind,
                        squares: all.iter().filter_map(|&i| self.pieces[i].square).collect(),
                    }),
                }
            }
        }
    }

    /// Takes the piece `what` names out of the army.
    pub fn remove(&mut self, what: PieceRef) -> Result<PieceKind, ArmyError> {
        let i = self.find(what)?;
        Ok(self.pieces.remove(i).kind)
    }

    /// Moves the piece `what` names (placed or not) to `to`, a legal free
    /// square of its class.
    pub fn relocate(&mut self, what: PieceRef, to: Square) -> Result<(), ArmyError> {
        let i = self.find(what)?;
        let piece = self.pieces[i];
        self.check_square(piece.kind, to, piece.square)?;
        self.pieces[i].square = Some(to);
        self.normalize();
        Ok(())
    }

    /// Everything that stops the army from being confirmed (CA12, CA13):
    /// classes or kinds over their limits, pieces without a square, two
    /// Bishops on one colour, no Leader. Empty when the army may go.
    pub fn problems(&self) -> Vec<ArmyError> {
        let mut out = Vec::new();
        for class in PieceClass::ALL.into_iter().rev() {
            let count = self.count_class(class);
            if count > class.limit() {
                out.push(ArmyError::OverClassLimit { class, count });
            }
        }
        for kind in PieceKind::ALL {
            if let Some(limit) = kind.kind_limit() {
                let count = self.count_kind(kind);
                if count > limit {
                    out.push(ArmyError::OverKindLimit { kind, count });
                }
            }
        }
        for kind in self.unplaced() {
            out.push(ArmyError::Unplaced { kind });
        }
        let bishops: Vec<Square> = self.placed().filter(|&(_, k)| k == PieceKind::Bishop).map(|(s, _)| s).collect();
        if let [a, b] = bishops[..]
            && is_dark(a) == is_dark(b)
        {
            out.push(ArmyError::BishopsSameColour { square: b, other: a });
        }
        if self.leader().is_none() {
            out.push(ArmyError::NoLeader);
        }
        out
    }

    /// `Ok` if the army may be confirmed, else its first problem.
    pub fn check_ready(&self) -> Result<(), ArmyError> {
        match self.problems().into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The army after a round (CA13): `survivors` are the pieces left on the
    /// board with their final squares (promoted pieces as what they became).
    ///
    /// Each survivor takes back a square its kind had in `previous`, the
    /// nearest to where it ended (by file first: a Pawn that went e2-e4 goes
    /// back to e2). The others (promoted pieces) take the free square of
    /// their class nearest to their file while the army stays within its
    /// limits, and stay without a square otherwise, to be sold (or placed)
    /// before the army can be confirmed.
    pub fn from_survivors(previous: &Army, survivors: &[(Square, PieceKind)]) -> Army {
        let distance =
            |a: Square, b: Square| 8 * a.file().abs_diff(b.file()) as usize + a.rank().abs_diff(b.rank()) as usize;
        let homes: Vec<(Square, PieceKind)> = previous.placed().collect();
        let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
        for (i, &(at, kind)) in survivors.iter().enumerate() {
            for (j, &(home, k)) in homes.iter().enumerate() {
                if k == kind {
                    pairs.push((distance(at, home), i, j));
                }
            }
        }
        pairs.sort_unstable();
        let mut survivor_done = vec![false; survivors.len()];
        let mut home_taken = vec![false; homes.len()];
        let mut army = Army::new(previous.color);
        for (_, i, j) in pairs {
            if !survivor_done[i] && !home_taken[j] {
                survivor_done[i] = true;
                home_taken[j] = true;
                army.pieces.push(ArmyPiece { kind: homes[j].1, square: Some(homes[j].0) });
            }
        }
        let mut rest: Vec<(PieceKind, Square)> =
            survivors.iter().zip(&survivor_done).filter(|(_, done)| !**done).map(|(&(s, k), _)| (k, s)).collect();
        rest.sort_unstable();
        for (kind, at) in rest {
            let mut squares = kind.class().squares(army.color);
            squares.sort_by_key(|s| (s.file().abs_diff(at.file()), s.file()));
            let square = match army.room_for(kind) {
                Ok(()) => squares.into_iter().find(|&s| army.check_square(kind, s, None).is_ok()),
                Err(_) => None,
            };
            army.pieces.push(ArmyPiece { kind, square });
        }
        army.normalize();
        army
    }

    pub(super) fn normalize(&mut self) {
        self.pieces.sort_by_key(|p| (p.square.map_or(64, |s| s.index()), p.kind));
    }

    /// The army for the player: `"King e1, Rook a1, Knight b1, Pawn e2"`
    /// (back rank first), then the pieces without a square; `"no pieces"`
    /// when empty.
    pub fn describe(&self) -> String {
        if self.pieces.is_empty() {
            return "no pieces".to_string();
        }
        let mut placed: Vec<(Square, PieceKind)> = self.placed().collect();
        let back = back_rank(self.color);
        placed.sort_by_key(|&(s, k)| (s.rank() != back, std::cmp::Reverse(k.class()), s.file()));
        let mut parts: Vec<String> = placed.iter().map(|(s, k)| format!("{k} {s}")).collect();
        parts.extend(self.unplaced().map(|k| format!("{k} (no square)")));
        parts.join(", ")
    }
}
