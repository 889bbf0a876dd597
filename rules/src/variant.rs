//! Variants as descriptions.
//!
//! A variant is data: the board, the named piece types and their powers, the
//! start position, how pawns behave, how promotion works, whether captures go
//! to hand, and how the game ends. The move generator reads the description;
//! it has no per-variant code paths beyond the switches declared here.

use std::fmt;

use crate::piece::Powers;

/// A named kind of piece: its FEN letter and the powers it is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceType {
    /// Upper-case letter used in FEN and notation.
    pub letter: char,
    /// English name.
    pub name: &'static str,
    /// Powers the piece moves with.
    pub powers: Powers,
    /// Royal: may not be left in check.
    pub royal: bool,
}

/// How pieces promote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Promotion {
    /// Nothing promotes.
    None,
    /// A pawn move onto the last rank replaces the Pawn power with the powers
    /// of one of these piece types (indices into [`Variant::pieces`]); for a
    /// plain pawn that is chess promotion, for Power Absorption's compounds
    /// PA5.
    Choice(&'static [u8]),
    /// C5: a pawn move onto the last rank removes the Pawn power and adds one
    /// of these (indices into [`Variant::pieces`]) to the owner's reserve.
    Reserve(&'static [u8]),
    /// Shogi style (O3): pieces are flipped over and then move as
    /// `moves_as`. A piece made of `mandatory` must promote on reaching the
    /// last rank; one made of `optional` may promote when a move starts or
    /// ends on it.
    Flip {
        /// How a promoted piece moves.
        moves_as: Powers,
        /// Pieces with these powers must promote on reaching the last rank.
        mandatory: Powers,
        /// Pieces with these powers may promote when a move starts or ends there.
        optional: Powers,
    },
}

/// What wins the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Checkmate the royal piece; stalemate draws.
    Checkmate,
    /// Alapawn (A3, A4): a pawn on the last rank or the capture of the last
    /// enemy pawn wins at once; a player with no legal move loses.
    PawnRace,
}

/// What a repeated position or a long quiet spell does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repetition {
    /// Threefold repetition and the 50-move rule draw at once (G4).
    Draw,
    /// O6: the third occurrence loses for White, unless every Black move since
    /// the previous occurrence gave check, which wins for White. No 50-move
    /// rule.
    WhiteLoses,
    /// A5: the third occurrence or 50 quiet moves each remove each side's
    /// most recently moved piece.
    Removal,
}

/// A variant of chess, described as data.
#[derive(Debug, PartialEq, Eq)]
pub struct Variant {
    /// Identifier used in commands (`chess`, `olympic`, ...).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Number of files (at most 8).
    pub width: u8,
    /// Number of ranks (at most 8).
    pub height: u8,
    /// The named piece types. Hands and drops refer to them by index.
    pub pieces: &'static [PieceType],
    /// Start position as FEN.
    pub start_fen: &'static str,
    /// Pawns may step twice from one rank.
    pub double_step: bool,
    /// The rank, counted from the own side from 0, that double steps start
    /// from: 1 in chess, 0 in Construction (C4).
    pub double_step_rank: u8,
    /// A double step may be taken en passant.
    pub en_passant: bool,
    /// Pawns may also step diagonally forward onto an empty square (A2).
    pub pawn_diagonal_steps: bool,
    /// How pieces promote.
    pub promotion: Promotion,
    /// Captured pieces go to the captor's hand and may be dropped (O4, O5).
    pub drops: bool,
    /// Letters of the pieces that can be in hand, in the order FEN writes them.
    pub hand_order: &'static str,
    /// Standard castling.
    pub castling: bool,
    /// How the game is won.
    pub goal: Goal,
    /// What repetition and quiet moves do.
    pub repetition: Repetition,
    /// Draw by insufficient material (chess only, G4).
    pub insufficient_material: bool,
    /// A6: a turn may be two non-capturing pawn steps.
    pub pawn_pairs: bool,
    /// PA3: a capturing piece absorbs its victim's powers unless its player
    /// declines; royal pieces may hold other powers (PA6).
    pub absorption: bool,
    /// Construction (C2): a reserve of static pieces, dropped on the own
    /// first `drop_ranks` ranks, and of powers given to pieces on the board.
    pub grants: bool,
    /// Ranks (from the own side) where drops from the reserve may land; 0
    /// means anywhere.
    pub drop_ranks: u8,
    /// Construction with split powers (CS1-CS5): the Rook, Bishop, Knight
    /// and Pawn powers are held as moving and capturing halves, and FEN's
    /// `R` `B` `N` `P` `Q` letters stand for both halves.
    pub split_powers: bool,
    /// Clash of the Armies (CA1-CA9): pieces with chains, shots, paths,
    /// invulnerability and the shield; moves are generated by playing each
    /// pseudo-legal move and testing the leader.
    pub armies: bool,
}

const fn pt(letter: char, name: &'static str, powers: Powers) -> PieceType {
    PieceType { letter, name, powers, royal: false }
}
const fn royal(letter: char, name: &'static str, powers: Powers) -> PieceType {
    PieceType { letter, name, powers, royal: true }
}

const CHESS_PIECES: [PieceType; 6] = [
    royal('K', "King", Powers::KING),
    pt('Q', "Queen", Powers::QUEEN),
    pt('R', "Rook", Powers::ROOK),
    pt('B', "Bishop", Powers::BISHOP),
    pt('N', "Knight", Powers::KNIGHT),
    pt('P', "Pawn", Powers::PAWN),
];

/// A1: the King is an ordinary piece.
const ALAPAWN_PIECES: [PieceType; 6] = [
    pt('K', "King", Powers::KING),
    pt('Q', "Queen", Powers::QUEEN),
    pt('R', "Rook", Powers::ROOK),
    pt('B', "Bishop", Powers::BISHOP),
    pt('N', "Knight", Powers::KNIGHT),
    pt('P', "Pawn", Powers::PAWN),
];

/// Construction's named sets (C1, C3). Indices 1-6 are also the reserve's
/// slots: static pieces and the five powers.
const CONSTRUCTION_PIECES: [PieceType; 8] = [
    royal('K', "King", Powers::KING),
    pt('S', "Static piece", Powers::NONE),
    pt('R', "Rook", Powers::ROOK),
    pt('B', "Bishop", Powers::BISHOP),
    pt('N', "Knight", Powers::KNIGHT),
    pt('P', "Pawn", Powers::PAWN),
    pt('C', "Castling", Powers::CASTLE),
    pt('Q', "Queen", Powers::QUEEN),
];

/// `construction-split`'s named sets (CS1, POWERS.md). Indices 1-10 are
/// the reserve's slots: static pieces, the eight halves and Castling; a
/// full power is both its halves, and `Q` all four Rook and Bishop halves.
const SPLIT_PIECES: [PieceType; 16] = [
    royal('K', "King", Powers::KING),
    pt('S', "Static piece", Powers::NONE),
    pt('T', "Rook moving half", Powers::ROOK_MOVE),
    pt('U', "Rook capturing half", Powers::ROOK_TAKE),
    pt('D', "Bishop moving half", Powers::BISHOP_MOVE),
    pt('E', "Bishop capturing half", Powers::BISHOP_TAKE),
    pt('H', "Knight moving half", Powers::KNIGHT_MOVE),
    pt('I', "Knight capturing half", Powers::KNIGHT_TAKE),
    pt('F', "Pawn moving half", Powers::PAWN_MOVE),
    pt('G', "Pawn capturing half", Powers::PAWN_TAKE),
    pt('C', "Castling", Powers::CASTLE),
    pt('R', "Rook", Powers::ROOK.split()),
    pt('B', "Bishop", Powers::BISHOP.split()),
    pt('N', "Knight", Powers::KNIGHT.split()),
    pt('P', "Pawn", Powers::PAWN.split()),
    pt('Q', "Queen", Powers::QUEEN.split()),
];

/// Clash of the Armies (CLASH.md): leaders first, then by class.
const CLASH_PIECES: [PieceType; 21] = [
    royal('K', "King", Powers::KING),
    royal('S', "Shielderer", Powers::WAZIR.with(Powers::SHIELD)),
    pt('P', "Pawn", Powers::PAWN),
    pt('O', "Omnipawn", Powers::OMNI),
    pt('N', "Knight", Powers::KNIGHT),
    pt('B', "Bishop", Powers::BISHOP),
    pt('T', "Rabbit", Powers::RABBIT),
    pt('E', "Elephant", Powers::WAZIR.with(Powers::BISHOP)),
    pt('W', "Waffle", Powers::WAZIR.with(Powers::ALFIL)),
    pt('R', "Rook", Powers::ROOK),
    pt('H', "Hawk", Powers::HAWK),
    pt('G', "General", Powers::KING.with(Powers::KNIGHT)),
    pt('Y', "Kite", Powers::KITE),
    pt('M', "War Machine", Powers::MACHINE),
    pt('Q', "Queen", Powers::QUEEN),
    pt('C', "Chancellor", Powers::ROOK.with(Powers::KNIGHT)),
    pt('A', "Archbishop", Powers::BISHOP.with(Powers::KNIGHT)),
    pt('J', "Jester", Powers::JESTER),
    pt('V', "Rogue", Powers::ROGUE),
    pt('F', "Phoenix", Powers::PHOENIX),
    pt('Z', "Amazon", Powers::QUEEN.with(Powers::KNIGHT)),
];

const OLYMPIC_PIECES: [PieceType; 6] = [
    royal('K', "King", Powers::KING),
    pt('R', "Rook", Powers::ROOK),
    pt('B', "Bishop", Powers::BISHOP),
    pt('G', "Gold", Powers::GOLD),
    pt('S', "Silver", Powers::SILVER),
    pt('P', "Pawn", Powers::PAWN),
];

/// FIDE chess.
pub static CHESS: Variant = CHESS_RULES;

/// Shared by chess and Power Absorption (`..` needs a constant).
const CHESS_RULES: Variant = Variant {
    id: "chess",
    name: "Chess",
    width: 8,
    height: 8,
    pieces: &CHESS_PIECES,
    start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    double_step: true,
    double_step_rank: 1,
    en_passant: true,
    pawn_diagonal_steps: false,
    promotion: Promotion::Choice(&[1, 2, 3, 4]),
    drops: false,
    hand_order: "",
    castling: true,
    goal: Goal::Checkmate,
    repetition: Repetition::Draw,
    insufficient_material: true,
    pawn_pairs: false,
    absorption: false,
    grants: false,
    drop_ranks: 0,
    split_powers: false,
    armies: false,
};

/// Power Absorption Chess: captors absorb their victims' powers (PA).
pub static ABSORPTION: Variant = Variant {
    id: "absorption",
    name: "Power Absorption Chess",
    insufficient_material: false,
    absorption: true,
    ..CHESS_RULES
};

/// Construction Chess: Kings alone, a reserve of static pieces and powers (C).
pub static CONSTRUCTION: Variant = CONSTRUCTION_RULES;

/// Shared by both Construction variants (`..` needs a constant).
const CONSTRUCTION_RULES: Variant = Variant {
    id: "construction",
    name: "Construction Chess",
    width: 8,
    height: 8,
    pieces: &CONSTRUCTION_PIECES,
    start_fen: "4k3/8/8/8/8/8/8/4K3[S15R3B3N2P8C2s15r3b3n2p8c2] w - - 0 1",
    double_step: true,
    double_step_rank: 0,
    en_passant: false,
    pawn_diagonal_steps: false,
    promotion: Promotion::Reserve(&[1, 2, 3, 4, 5]),
    drops: false,
    hand_order: "SRBNPC",
    castling: false,
    goal: Goal::Checkmate,
    repetition: Repetition::Draw,
    insufficient_material: false,
    pawn_pairs: false,
    absorption: false,
    grants: true,
    drop_ranks: 2,
    split_powers: false,
    armies: false,
};

/// Construction with split powers (CS1-CS5): each of the Rook, Bishop,
/// Knight and Pawn powers comes as a moving and a capturing half.
pub static CONSTRUCTION_SPLIT: Variant = Variant {
    id: "construction-split",
    name: "Construction Chess with split powers",
    pieces: &SPLIT_PIECES,
    start_fen: "4k3/8/8/8/8/8/8/4K3[S15T3U3D3E3H2I2F8G8C2s15t3u3d3e3h2i2f8g8c2] w - - 0 1",
    promotion: Promotion::Reserve(&[1, 2, 3, 4, 5, 6, 7, 8, 9]),
    hand_order: "STUDEHIFGC",
    split_powers: true,
    ..CONSTRUCTION_RULES
};

/// Clash of the Armies: one round between two armies (CA1-CA9). The match
/// around the rounds is [`crate::army`]'s. The start position is a chess-like
/// army, for trying pieces out; a match gives each round its own.
pub static CLASH: Variant = Variant {
    id: "clash",
    name: "Clash of the Armies",
    width: 8,
    height: 8,
    pieces: &CLASH_PIECES,
    start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    double_step: true,
    double_step_rank: 1,
    en_passant: true,
    pawn_diagonal_steps: false,
    promotion: Promotion::Choice(&[4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]),
    drops: false,
    hand_order: "",
    castling: true,
    goal: Goal::Checkmate,
    repetition: Repetition::Draw,
    insufficient_material: false,
    pawn_pairs: false,
    absorption: false,
    grants: false,
    drop_ranks: 0,
    split_powers: false,
    armies: true,
};

/// Olympic Chess: 5x5, Minishogi's array (O1), drops, Silver and Gold.
pub static OLYMPIC: Variant = Variant {
    id: "olympic",
    name: "Olympic Chess",
    width: 5,
    height: 5,
    pieces: &OLYMPIC_PIECES,
    start_fen: "rbsgk/4p/5/P4/KGSBR[] w - - 0 1",
    double_step: false,
    double_step_rank: 1,
    en_passant: false,
    pawn_diagonal_steps: false,
    promotion: Promotion::Flip { moves_as: Powers::GOLD, mandatory: Powers::PAWN, optional: Powers::SILVER },
    drops: true,
    hand_order: "PGSRB",
    castling: false,
    goal: Goal::Checkmate,
    repetition: Repetition::WhiteLoses,
    insufficient_material: false,
    pawn_pairs: false,
    absorption: false,
    grants: false,
    drop_ranks: 0,
    split_powers: false,
    armies: false,
};

/// Alapawn: race a pawn to the last rank.
pub static ALAPAWN: Variant = ALAPAWN_RULES;

/// Alapawn with the balancing rule A6: two pawn steps in one turn.
///
/// Its FEN's castling field (unused: there is no castling) holds `1` while
/// White's first pawn turn, which must be a single step, is still to come.
pub static ALAPAWN_BALANCED: Variant = Variant {
    id: "alapawn-balanced",
    name: "Balanced Alapawn",
    start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 1 - 0 1",
    pawn_pairs: true,
    ..ALAPAWN_RULES
};

/// Shared by both Alapawn variants (`..` needs a constant, not a static).
const ALAPAWN_RULES: Variant = Variant {
    id: "alapawn",
    name: "Alapawn",
    width: 8,
    height: 8,
    pieces: &ALAPAWN_PIECES,
    start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    double_step: false,
    double_step_rank: 1,
    en_passant: false,
    pawn_diagonal_steps: true,
    promotion: Promotion::None,
    drops: false,
    hand_order: "",
    castling: false,
    goal: Goal::PawnRace,
    repetition: Repetition::Removal,
    insufficient_material: false,
    pawn_pairs: false,
    absorption: false,
    grants: false,
    drop_ranks: 0,
    split_powers: false,
    armies: false,
};

/// Every variant the rules know, in menu order.
pub static VARIANTS: [&Variant; 8] =
    [&CHESS, &OLYMPIC, &ALAPAWN, &ALAPAWN_BALANCED, &ABSORPTION, &CONSTRUCTION, &CONSTRUCTION_SPLIT, &CLASH];

impl Variant {
    /// Looks a variant up by id (case-insensitive).
    pub fn by_id(id: &str) -> Option<&'static Variant> {
        VARIANTS.iter().copied().find(|v| v.id.eq_ignore_ascii_case(id))
    }

    /// The index of the piece type with this letter (either case).
    pub fn piece_index(&self, letter: char) -> Option<u8> {
        let up = letter.to_ascii_uppercase();
        self.pieces.iter().position(|p| p.letter == up).map(|i| i as u8)
    }

    /// The index of the piece type with exactly these powers and royalty.
    pub fn piece_index_of(&self, powers: Powers, royal: bool) -> Option<u8> {
        self.pieces.iter().position(|p| p.powers == powers && p.royal == royal).map(|i| i as u8)
    }

    /// True if some piece type is royal (the game has check).
    pub fn has_royal(&self) -> bool {
        self.pieces.iter().any(|p| p.royal)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}
