//! Zobrist keys for hashing positions (repetition detection).
//!
//! A piece's key is the XOR of one key per power it holds, plus keys for its
//! flags, so any set of powers hashes without a per-piece-type table.

use std::sync::LazyLock;

use crate::piece::{NUM_POWERS, NUM_WHOLE_POWERS, Piece};
use crate::types::{Color, Square};

/// Hand counts above this share one key; no variant gets near it.
pub(crate) const MAX_HAND: usize = 32;
/// Hand slots: piece-type indices of the variant (`construction-split`'s
/// reserve uses eleven).
pub(crate) const HAND_SLOTS: usize = 11;
/// The hand slots of the first variants: their keys come first, so that
/// adding slots left every earlier key as it was.
const FIRST_HAND_SLOTS: usize = 8;

pub(crate) struct Keys {
    power: [[[u64; 64]; NUM_POWERS]; 2],
    royal: [[u64; 64]; 2],
    promoted: [[u64; 64]; 2],
    /// A piece with no power at all still needs a key.
    bare: [[u64; 64]; 2],
    hand: [[[u64; MAX_HAND + 1]; HAND_SLOTS]; 2],
    pub(crate) castling: [u64; 64],
    pub(crate) ep: [u64; 64],
    pub(crate) black: u64,
    pub(crate) first_pawn_turn: u64,
    /// CA6: an invulnerable Rogue on the square.
    pub(crate) guard: [u64; 64],
    /// CA8: the shield state of each side (0 none, 1-3 up, 4 still to use).
    pub(crate) shield: [[u64; 5]; 2],
    /// PA7: each side's handicap, by its bits.
    pub(crate) handicap: [[u64; 8]; 2],
}

static KEYS: LazyLock<Box<Keys>> = LazyLock::new(|| {
    let mut state = 0x6a09_e667_f3bc_c909u64;
    let mut next = move || {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut sq64 = || std::array::from_fn(|_| next());
    // The keys of the powers and slots added later are drawn after all the
    // others, so every earlier key (and every hash) stays what it was.
    let mut power: [[[u64; 64]; NUM_POWERS]; 2] = [[[0; 64]; NUM_POWERS]; 2];
    for side in power.iter_mut() {
        for p in side.iter_mut().take(NUM_WHOLE_POWERS) {
            *p = sq64();
        }
    }
    let royal = std::array::from_fn(|_| sq64());
    let promoted = std::array::from_fn(|_| sq64());
    let bare = std::array::from_fn(|_| sq64());
    let castling = sq64();
    let ep = sq64();
    let mut next2 = || sq64()[0];
    let mut hand = [[[0; MAX_HAND + 1]; HAND_SLOTS]; 2];
    for side in hand.iter_mut() {
        for slot in side.iter_mut().take(FIRST_HAND_SLOTS) {
            *slot = std::array::from_fn(|_| next2());
        }
    }
    let black = next2();
    let first_pawn_turn = next2();
    let guard = std::array::from_fn(|_| next2());
    let shield = std::array::from_fn(|_| std::array::from_fn(|_| next2()));
    for side in power.iter_mut() {
        for p in side.iter_mut().skip(NUM_WHOLE_POWERS) {
            *p = sq64();
        }
    }
    // An empty added slot has the key 0, so that a position holding none of
    // the added kinds hashes as it did before they were added (the bot's
    // choices are seeded by the hash).
    for side in hand.iter_mut() {
        for slot in side.iter_mut().skip(FIRST_HAND_SLOTS) {
            *slot = std::array::from_fn(|count| if count == 0 { 0 } else { sq64()[0] });
        }
    }
    let handicap = std::array::from_fn(|_| std::array::from_fn(|_| sq64()[0]));
    Box::new(Keys { power, royal, promoted, bare, hand, castling, ep, black, first_pawn_turn, guard, shield, handicap })
});

#[inline]
pub(crate) fn keys() -> &'static Keys {
    &KEYS
}

impl Keys {
    /// Key of `piece` standing on `sq`.
    #[inline]
    pub(crate) fn piece(&self, piece: Piece, sq: Square) -> u64 {
        let c = piece.color.index();
        let s = sq.index();
        let mut k = self.bare[c][s];
        let mut bits = piece.powers.bits();
        while bits != 0 {
            k ^= self.power[c][bits.trailing_zeros() as usize][s];
            bits &= bits - 1;
        }
        if piece.royal {
            k ^= self.royal[c][s];
        }
        if piece.promoted {
            k ^= self.promoted[c][s];
        }
        k
    }

    /// Key of holding `count` pieces of type `slot` in `color`'s hand.
    #[inline]
    pub(crate) fn hand(&self, color: Color, slot: usize, count: u8) -> u64 {
        self.hand[color.index()][slot][(count as usize).min(MAX_HAND)]
    }
}
