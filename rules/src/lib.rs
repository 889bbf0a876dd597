//! The rules of the Kibitz games.
//!
//! A piece is a colour plus a set of [`Powers`]; a [`Variant`] is a
//! description; a [`Position`] generates legal moves, plays them and reads and
//! writes FEN and notation; a [`Game`] adds the history that repetition rules
//! need. Nothing here does I/O.
//!
//! ```
//! use kibitz_rules::{Game, Variant, perft};
//!
//! let olympic = Variant::by_id("olympic").unwrap();
//! let mut game = Game::new(olympic);
//! assert_eq!(perft(game.position(), 2), 180);
//! let played = game.play_text("Sb2").unwrap();
//! assert_eq!(played.canonical, "c1b2");
//! assert_eq!(game.position().fen(), "rbsgk/4p/5/PS3/KG1BR[] b - - 1 1");
//! ```
//!
//! See `DESIGN.md` in this crate for how the later variants fit the same core.

#![warn(missing_docs)]

pub mod army;
mod attacks;
mod check_look;
mod clash;
mod explain;
mod fen;
mod game;
mod handicap;
mod movegen;
mod moves;
mod notation;
mod perft;
mod pgn;
mod piece;
mod position;
pub mod review;
pub mod search;
mod split;
mod types;
mod variant;
mod zobrist;

pub use explain::{CastleWhy, Named, ShieldWhy, SwapWhy, Why, or_list};
pub use fen::FenError;
pub use game::{EndReason, Game, Outcome, Played};
pub use handicap::{Handicap, HandicapError, Handicaps};
pub use moves::{MAX_CHAIN, MAX_MOVES, MAX_TOUCHED, Move, MoveList, Promote, Touched};
pub use notation::{MoveError, figurine_letter, without_en_passant_mark, without_move_number};
pub use perft::{divide, perft};
pub use piece::{Piece, Powers};
pub use position::Position;
pub use types::{Bitboard, Color, Square};
pub use variant::{
    ABSORPTION, ALAPAWN, ALAPAWN_BALANCED, CHESS, CLASH, CONSTRUCTION, CONSTRUCTION_SPLIT, Goal, OLYMPIC, PieceType,
    Promotion, Repetition, VARIANTS, Variant,
};
