//! What each piece of each variant does, in words, as data: one table per
//! variant, written from the variant texts and `RULINGS.md`. `/piece` reads
//! it; Power Absorption's and Construction's pieces made of several powers
//! (`(BN)`, `bishop+knight`) are described from their powers.

use kibitz_rules::army::{self, PieceKind};
use kibitz_rules::{Powers, Variant};

/// One piece of a variant, described.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PieceText {
    /// As FEN and the legend write it: `T`, `+P`.
    pub letter: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Other names it goes by (`static`, `machine`).
    pub also: &'static [&'static str],
    /// How it moves and captures.
    pub text: &'static str,
}

const fn p(letter: &'static str, name: &'static str, text: &'static str) -> PieceText {
    PieceText { letter, name, also: &[], text }
}

const KING_FIDE: &str = "moves and captures one square in any direction, never onto a square the enemy attacks: \
it may not be left in check, and checkmate loses. Once a game, if neither it nor the rook has moved, it is not in \
check and the squares between them are empty, it castles: two squares towards the rook, over no attacked square, \
and the rook jumps to its other side (O-O, O-O-O).";
const QUEEN: &str = "moves and captures any number of squares along a rank, file or diagonal, without jumping.";
const ROOK: &str = "moves and captures any number of squares along a rank or file, without jumping.";
const BISHOP: &str = "moves and captures any number of squares diagonally, without jumping.";
const KNIGHT: &str = "jumps in an L: two squares one way and one square across, over anything in between; it \
captures where it lands.";
const PAWN_FIDE: &str = "moves one square straight forward onto an empty square, or two from its starting rank \
when both are empty; captures one square diagonally forward, also en passant a pawn that has just passed it with a \
double step. On the last rank it becomes a Queen, Rook, Bishop or Knight (e8=Q).";

/// Standard chess (FIDE's Laws).
const CHESS: &[PieceText] = &[
    p("K", "King", KING_FIDE),
    p("Q", "Queen", QUEEN),
    p("R", "Rook", ROOK),
    p("B", "Bishop", BISHOP),
    p("N", "Knight", KNIGHT),
    p("P", "Pawn", PAWN_FIDE),
];

/// Olympic Chess (O2-O5).
const OLYMPIC: &[PieceText] = &[
    p(
        "K",
        "King",
        "moves and captures one square in any direction; it may not be left in check, and checkmate loses. No \
castling.",
    ),
    p(
        "R",
        "Rook",
        "moves and captures any number of squares along a rank or file. Captured, it goes to the captor's hand.",
    ),
    p("B", "Bishop", "moves and captures any number of squares diagonally. Captured, it goes to the captor's hand."),
    p(
        "G",
        "Gold",
        "moves and captures one square straight in any direction or diagonally forward (six squares). It never \
promotes. Captured, it goes to the captor's hand.",
    ),
    p(
        "S",
        "Silver",
        "moves and captures one square diagonally in any direction or straight forward (five squares). When its \
move starts or ends on the last rank it may become Gold (c4c5+, Sc5=G) or stay a Silver. Captured, it goes to the captor's hand.",
    ),
    p(
        "P",
        "Pawn",
        "moves one square straight forward onto an empty square and captures one square diagonally forward; no \
double step, no en passant. On the last rank it must become Gold. It may be dropped anywhere but on its last rank \
(P@c3).",
    ),
    PieceText {
        letter: "+P",
        name: "Promoted Pawn",
        also: &["tokin"],
        text: "a Pawn that reached the last rank: it moves as Gold. Captured, it goes to the captor's hand as a \
Pawn.",
    },
    p(
        "+S",
        "Promoted Silver",
        "a Silver that became Gold: it moves as Gold. Captured, it goes to the captor's hand as a Silver.",
    ),
];

const ALAPAWN_KING: &str = "moves and captures one square in any direction. There is no check: it is an ordinary \
piece, may step onto attacked squares and may be captured. No castling.";
const ALAPAWN_PAWN: &str = "moves one square forward or diagonally forward onto an empty square (a quiet diagonal \
step is written with its file: ed5); captures one square diagonally forward. No double step, no en passant. The \
first pawn to reach the last rank wins, and so does capturing the last enemy pawn.";

/// Alapawn (A1-A3).
const ALAPAWN: &[PieceText] = &[
    p("K", "King", ALAPAWN_KING),
    p("Q", "Queen", QUEEN),
    p("R", "Rook", ROOK),
    p("B", "Bishop", BISHOP),
    p("N", "Knight", KNIGHT),
    p("P", "Pawn", ALAPAWN_PAWN),
];

/// Balanced Alapawn (A6).
const ALAPAWN_BALANCED: &[PieceText] = &[
    p("K", "King", ALAPAWN_KING),
    p("Q", "Queen", QUEEN),
    p("R", "Rook", ROOK),
    p("B", "Bishop", BISHOP),
    p("N", "Knight", KNIGHT),
    p(
        "P",
        "Pawn",
        "moves one square forward or diagonally forward onto an empty square and captures one square diagonally \
forward; no double step, no en passant. A turn may instead be two pawn steps without capturing: one pawn twice \
(a3,a4), the square it passes not attacked by any enemy piece, or two pawns once each (a3,b3). \
White's first pawn turn must be a single step of one pawn. The first pawn to reach the last rank wins, and so does \
capturing the last enemy pawn.",
    ),
];

const ABSORBS: &str = " When it captures it absorbs the victim's powers, unless you decline (a trailing -: Nxe5-).";

/// Power Absorption Chess (PA1-PA6).
const ABSORPTION: &[PieceText] = &[
    p(
        "K",
        "King",
        "moves and captures one square in any direction and castles as in chess; it may not be left in check, and \
checkmate loses. It is never captured but absorbs the powers of what it takes (a King holding the Pawn power gets \
no pawn moves). With Rook or Bishop powers it slides too, but never across a square the enemy attacks.",
    ),
    p(
        "Q",
        "Queen",
        "the Rook and Bishop powers together: moves and captures any number of squares along a rank, file or \
diagonal. When it captures it absorbs the victim's powers, unless you decline (Qxc6-).",
    ),
    p(
        "R",
        "Rook",
        "moves and captures any number of squares along a rank or file. When it captures it absorbs the victim's \
powers, unless you decline (Rxa7-): a rook taking a bishop becomes a queen.",
    ),
    p(
        "B",
        "Bishop",
        "moves and captures any number of squares diagonally. When it captures it absorbs the victim's powers, \
unless you decline (Bxc6-): a bishop taking a knight becomes a Bishop+Knight.",
    ),
    p(
        "N",
        "Knight",
        "jumps in an L: two squares one way and one square across, capturing where it lands. When it captures it \
absorbs the victim's powers, unless you decline (Nxe5-).",
    ),
    p(
        "P",
        "Pawn",
        "moves one square forward, two from its second rank; captures diagonally forward and en passant; on the \
last rank it trades the Pawn power for a Queen, Rook, Bishop or Knight power (e8=Q). Any piece that absorbs a pawn \
moves, captures and promotes like a pawn as well.",
    ),
];

/// Construction Chess (C1-C6).
const CONSTRUCTION: &[PieceText] = &[
    p(
        "K",
        "King",
        "moves and captures one square in any direction; it may not be left in check, and checkmate loses. It is \
never given powers. No castling; a Castling power swaps a piece with it instead.",
    ),
    PieceText {
        letter: "S",
        name: "Static piece",
        also: &["static", "stone"],
        text: "has no power: it cannot move or capture, but it blocks and can be captured. Dropped from your \
reserve on your first two ranks as a turn (S@d2); then give it powers (R>d2).",
    },
    PieceText {
        letter: "R",
        name: "Rook",
        also: &["rook power"],
        text: "the Rook power: given from your reserve to one of your pieces but the King (R>d2), which then also \
moves and captures any number of squares along a rank or file.",
    },
    PieceText {
        letter: "B",
        name: "Bishop",
        also: &["bishop power"],
        text: "the Bishop power: given from your reserve to one of your pieces but the King (B>d2), which then \
also moves and captures any number of squares diagonally.",
    },
    PieceText {
        letter: "N",
        name: "Knight",
        also: &["knight power"],
        text: "the Knight power: given from your reserve to one of your pieces but the King (N>d2), which then \
also jumps in an L, two squares one way and one across, capturing where it lands.",
    },
    PieceText {
        letter: "P",
        name: "Pawn",
        also: &["pawn power"],
        text: "the Pawn power: its piece moves one square forward, two from your first rank through an empty \
square, and captures diagonally forward; no en passant. On the last rank the power is traded for a Rook, Bishop, \
Knight or Pawn power or a static piece for your reserve (e8=R, e8=S). It may not be given to a piece on its last \
rank.",
    },
    PieceText {
        letter: "C",
        name: "Castling",
        also: &["castling power", "castle"],
        text: "the Castling power: once, its piece swaps squares with its own King (swap a1), if the King is not in \
check and the piece is not attacked, and the King is not in check afterwards. Then the power is used up.",
    },
    PieceText {
        letter: "Q",
        name: "Queen",
        also: &["rook+bishop"],
        text: "the Rook and Bishop powers held by one piece: it moves and captures any number of squares along a \
rank, file or diagonal.",
    },
];

/// A half of Construction with split powers (CS1): its letter, name and the
/// way its full power goes.
const fn half(
    letter: &'static str,
    name: &'static str,
    also: &'static [&'static str],
    text: &'static str,
) -> PieceText {
    PieceText { letter, name, also, text }
}

/// Construction with split powers (CS1-CS5).
const CONSTRUCTION_SPLIT: &[PieceText] = &[
    p(
        "K",
        "King",
        "moves and captures one square in any direction; it may not be left in check, and checkmate loses. It is \
never given powers, and it is not split.",
    ),
    PieceText {
        letter: "S",
        name: "Static piece",
        also: &["static", "stone"],
        text: "has no power: it cannot move or capture, but it blocks and can be captured. Dropped from your \
reserve on your first two ranks as a turn (S@d2); then give it halves of powers (T>d2).",
    },
    half(
        "T",
        "Rook moving half",
        &["rook mover", "moving rook"],
        "half of the Rook power: its piece moves any number of squares along a rank or file onto empty squares only. \
It never captures that way, and gives no check (T>d2 gives it).",
    ),
    half(
        "U",
        "Rook capturing half",
        &["rook capturer", "capturing rook"],
        "half of the Rook power: its piece captures any number of squares along a rank or file, never moving there \
onto an empty square. It checks and pins (U>d2 gives it).",
    ),
    half(
        "D",
        "Bishop moving half",
        &["bishop mover", "moving bishop"],
        "half of the Bishop power: its piece moves any number of squares diagonally onto empty squares only; no \
captures, no check (D>d2 gives it).",
    ),
    half(
        "E",
        "Bishop capturing half",
        &["bishop capturer", "capturing bishop"],
        "half of the Bishop power: its piece captures any number of squares diagonally, never moving there onto an \
empty square. It checks and pins (E>d2 gives it).",
    ),
    half(
        "H",
        "Knight moving half",
        &["knight mover", "moving knight"],
        "half of the Knight power: its piece jumps in an L onto empty squares only; no captures, no check (H>d2 \
gives it).",
    ),
    half(
        "I",
        "Knight capturing half",
        &["knight capturer", "capturing knight"],
        "half of the Knight power: its piece captures with an L jump but never jumps onto an empty square. It \
checks (I>d2 gives it).",
    ),
    half(
        "F",
        "Pawn moving half",
        &["pawn mover", "moving pawn"],
        "half of the Pawn power: one square forward onto an empty square, two from your first rank through an \
empty one. Reaching the last rank it goes, with any capturing Pawn half, for a static piece or any one half for \
your reserve (e8=U). Not to a piece on its last rank (F>d2 gives it).",
    ),
    half(
        "G",
        "Pawn capturing half",
        &["pawn capturer", "capturing pawn"],
        "half of the Pawn power: captures one square diagonally forward, no en passant; it checks. A capture onto \
the last rank trades every Pawn half of the piece for a static piece or any one half for your reserve (exd8=U). \
Not to a piece on its last rank (G>d2 gives it).",
    ),
    PieceText {
        letter: "C",
        name: "Castling",
        also: &["castling power", "castle"],
        text: "the Castling power, not split: once, its piece swaps squares with its own King (swap a1), if the King \
is not in check and the piece is not attacked, and the King is not in check afterwards.",
    },
    p("R", "Rook", "both Rook halves on one piece: it moves and captures as a rook."),
    p("B", "Bishop", "both Bishop halves on one piece: it moves and captures as a bishop."),
    p("N", "Knight", "both Knight halves on one piece: it moves and captures as a knight."),
    p(
        "P",
        "Pawn",
        "both Pawn halves on one piece: it steps and captures as a pawn (two steps from your first rank, no en \
passant) and promotes on the last rank for a static piece or any one half.",
    ),
    PieceText {
        letter: "Q",
        name: "Queen",
        also: &["rook+bishop"],
        text: "all four Rook and Bishop halves on one piece: it moves and captures as a queen.",
    },
];

/// Clash of the Armies (the variant text's list of pieces, CA1-CA9).
const CLASH: &[PieceText] = &[
    p(
        "K",
        "King",
        "moves and captures one square in any direction; it may be checked and checkmated. Once a game \
it castles with a Heavy piece on its corner as in chess (O-O, O-O-O); a War Machine that has only shot still \
counts as unmoved.",
    ),
    p(
        "S",
        "Shielderer",
        "moves and captures one square straight (not diagonally); it may be checked and checkmated. \
Once a game, as a whole turn (D), it raises its shield, which stays up for the opponent's next three turns \
(the board shows the turns left): meanwhile the Shielderer and each friendly piece straight next to it are \
invulnerable (a golden ring): they cannot be captured, \
and an attacked leader is not in check. A piece stepping away loses the protection; stepping back in gains it.",
    ),
    p(
        "P",
        "Pawn",
        "moves one square straight forward, two from its starting rank, and captures one square \
diagonally forward, also en passant. On the last rank it must promote to any Light, Heavy or Jewel piece but the \
Amazon (e8=T).",
    ),
    p(
        "O",
        "Omnipawn",
        "moves and captures one square forward or diagonally forward; two squares straight forward \
from its starting rank without capturing; takes and may be taken en passant. On the last rank it must promote to \
any Light, Heavy or Jewel piece but the Amazon.",
    ),
    p("N", "Knight", KNIGHT),
    p(
        "B",
        "Bishop",
        "moves and captures any number of squares diagonally. Two Bishops stand on squares of \
opposite colours.",
    ),
    p(
        "T",
        "Rabbit",
        "slides one or two squares straight onto an empty square and never captures by landing. \
Instead it may jump a piece of either colour one or two squares away in a straight line, nothing in between, \
landing on the empty square just beyond; a jumped enemy is captured. Jumps chain as far as you like (Tb3d3), never landing \
twice on one square nor jumping one piece twice. At the edge, with no square beyond, it leaves the board with its \
victim (Tb8x). A chain that could jump the enemy leader gives check.",
    ),
    p("E", "Elephant", "moves and captures one square straight, or any number of squares diagonally."),
    p("W", "Waffle", "moves and captures one square straight, or leaps exactly two squares diagonally."),
    p("R", "Rook", "moves and captures any number of squares straight; the King castles with it."),
    p("H", "Hawk", "leaps exactly two or three squares straight or diagonally, capturing where it lands."),
    p("G", "General", "King plus Knight: moves and captures one square in any direction, or a 2|1 L leap."),
    p("Y", "Kite", "leaps one, two or three squares straight, capturing where it lands."),
    PieceText {
        letter: "M",
        name: "War Machine",
        also: &["machine", "warmachine"],
        text: "moves and captures one or two squares straight (sliding) or one square diagonally. \
Instead of capturing by moving it may shoot: the enemy piece it could capture is removed and the War Machine stays \
where it is (M^e5). Shooting is not moving: its King may still castle with it.",
    },
    p("Q", "Queen", "moves and captures any number of squares straight or diagonally."),
    p("C", "Chancellor", "Rook plus Knight: moves and captures any number of squares straight, or a 2|1 L leap."),
    p("A", "Archbishop", "Bishop plus Knight: moves and captures any number of squares diagonally, or a 2|1 L leap."),
    p(
        "J",
        "Jester",
        "moves along a path of one to three single straight steps, turning as it likes and stopping \
after any of them; every square it passes must be empty, the last may hold an enemy it captures. It attacks, \
checks and pins along any open path.",
    ),
    p(
        "V",
        "Rogue",
        "moves and captures one or two squares in any direction (sliding). After a move that captures \
nothing it is invulnerable (a golden ring) until its owner's next turn; a capture does not protect it.",
    ),
    p(
        "F",
        "Phoenix",
        "moves and captures one to four squares in any direction (sliding). A piece that captures it, by \
moving, shooting or jumping, is removed with it. Leaders may not capture it.",
    ),
    p(
        "Z",
        "Amazon",
        "Queen plus Knight: moves and captures any number of squares straight or diagonally, or a 2|1 L leap. It is not \
bought: before the ultimate round both players bid for it in secret (/bid), and the lower bidder gets draw odds.",
    ),
];

/// The table of `variant`.
pub(crate) fn table(variant: &Variant) -> &'static [PieceText] {
    match variant.id {
        "chess" => CHESS,
        "olympic" => OLYMPIC,
        "alapawn" => ALAPAWN,
        "alapawn-balanced" => ALAPAWN_BALANCED,
        "absorption" => ABSORPTION,
        "construction" => CONSTRUCTION,
        "construction-split" => CONSTRUCTION_SPLIT,
        "clash" => CLASH,
        _ => &[],
    }
}

/// A name as compared: lower case, without spaces, `-` and `_`.
fn key(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace() && *c != '-' && *c != '_').flat_map(char::to_lowercase).collect()
}

/// The piece of `variant` that `name` names (its name, letter or another
/// name, any case).
pub(crate) fn find(variant: &Variant, name: &str) -> Option<&'static PieceText> {
    let k = key(name);
    if k.is_empty() {
        return None;
    }
    let t = table(variant);
    t.iter()
        .find(|p| key(p.name) == k || key(p.letter) == k || p.also.iter().any(|a| key(a) == k))
        // A piece's first word: `static` for the Static piece.
        .or_else(|| {
            let mut words = t.iter().filter(|p| p.name.split(' ').next().is_some_and(|w| key(w) == k));
            match (words.next(), words.next()) {
                (Some(one), None) => Some(one),
                _ => None,
            }
        })
}

/// The name of `variant`'s piece that `name` is a slip of the keys away
/// from (`kngiht` for Knight), if one is.
pub(crate) fn nearest_name(variant: &Variant, name: &str) -> Option<&'static str> {
    let t = table(variant);
    let keys: Vec<String> = t.iter().map(|p| key(p.name)).collect();
    crate::command::meant::nearest_index(&key(name), &keys).map(|i| t[i].name)
}

/// The index in `variant.pieces` of a described piece, if it is one of the
/// variant's named types (for its diagram).
pub(crate) fn index_of(variant: &Variant, piece: &PieceText) -> Option<u8> {
    let mut letters = piece.letter.chars();
    match (letters.next(), letters.next(), letters.next()) {
        (Some(c), None, _) => variant.piece_index(c),
        // Olympic's promoted pieces move as Gold (O3).
        (Some('+'), Some(_), None) => variant.piece_index('G'),
        _ => None,
    }
}

/// Clash of the Armies: what the piece with this letter costs, as the
/// player reads it (`4.50 gold`, the Amazon's auction), with its class.
pub(crate) fn clash_price(letter: &str) -> Option<String> {
    let mut chars = letter.chars();
    let kind = match (chars.next(), chars.next()) {
        (Some(c), None) => PieceKind::from_letter(c)?,
        _ => return None,
    };
    let cost = match kind.cost_quarters() {
        Some(q) => format!("costs {} gold", army::gold_text(q)),
        None => "auctioned before the ultimate round".to_string(),
    };
    Some(format!("{}, placed {}; {cost}", kind.class().name(), placement(kind.class())))
}

/// Where pieces of a class stand (CA12).
pub(crate) fn placement(class: army::PieceClass) -> &'static str {
    match class {
        army::PieceClass::Peasant => "on your second rank",
        army::PieceClass::Light => "on the b, c, f or g file of your back rank",
        army::PieceClass::Heavy => "in a corner of your back rank",
        army::PieceClass::Jewel => "on the d file of your back rank",
        army::PieceClass::Leader => "on the e file of your back rank",
    }
}

/// A piece of a power variant made of several powers, read from `(BN)`,
/// `(kq)`, `bishop+knight` or `B+N`: its powers, whether it is the King,
/// and its name (`Bishop+Knight`).
pub(crate) fn compound(variant: &Variant, text: &str) -> Option<(Powers, bool, String)> {
    if !(variant.absorption || variant.grants) {
        return None;
    }
    let t = text.trim();
    let parts: Vec<String> = if let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        inner.chars().map(|c| c.to_string()).collect()
    } else if t.contains(['+', '-']) {
        // The legends write `Bishop+Knight` and `King-Queen`.
        t.split(['+', '-']).map(str::trim).map(str::to_string).collect()
    } else if t.len() >= 2 && t.len() <= 6 && t.chars().all(|c| c.is_ascii_alphabetic()) {
        // The code without its brackets, as people type it: `KP`, `bn`.
        t.chars().map(|c| c.to_string()).collect()
    } else {
        return None;
    };
    let mut powers = Powers::NONE;
    let mut royal = false;
    let mut names = Vec::new();
    for part in &parts {
        let k = key(part);
        let pt = variant.pieces.iter().find(|pt| {
            !pt.powers.is_empty()
                && (key(pt.name) == k || (k.chars().count() == 1 && pt.letter.to_ascii_lowercase().to_string() == k))
        })?;
        // Two powers named twice, or the King's along with another King.
        if powers.contains(pt.powers) {
            return None;
        }
        powers = powers.with(pt.powers);
        royal |= pt.royal;
        names.push(pt.name);
    }
    // A compound is two powers or more; the royal King holds no Castling
    // power (C2: powers go to non-royal pieces).
    if names.len() < 2 || (royal && variant.grants) {
        return None;
    }
    Some((powers, royal, names.join("+")))
}

/// What a compound piece does, from its powers.
pub(crate) fn compound_text(variant: &Variant, powers: Powers, royal: bool) -> String {
    let mut ways = Vec::new();
    for pt in variant.pieces.iter().filter(|pt| !pt.powers.is_empty() && powers.contains(pt.powers)) {
        // The Queen is the Rook and Bishop powers: named once; a half is
        // named only where the piece lacks the other half (CS2).
        let covered = pt.powers.has_halves() && pt.powers.count() == 1 && powers.contains(pt.powers.whole().split());
        if pt.powers.joined() == Powers::QUEEN || (pt.royal && !royal) || covered {
            continue;
        }
        let way = match pt.name {
            "Rook moving half" => "moving only (no captures) along ranks and files",
            "Rook capturing half" => "capturing only along ranks and files",
            "Bishop moving half" => "moving only (no captures) along diagonals",
            "Bishop capturing half" => "capturing only along diagonals",
            "Knight moving half" => "an L-shaped jump onto empty squares only",
            "Knight capturing half" => "an L-shaped jump that only captures",
            "Pawn moving half" => "a pawn's steps, promoting on the last rank",
            "Pawn capturing half" => "a pawn's diagonal captures, promoting on the last rank",
            "King" => "one square in any direction (it is the King: it may not be left in check)",
            "Rook" => "any distance along ranks and files",
            "Bishop" => "any distance along diagonals",
            "Knight" => "an L-shaped jump",
            "Pawn" => "a pawn's steps and captures, and it promotes on the last rank",
            "Castling" => "once, a swap with its own King (the Castling power)",
            _ => continue,
        };
        ways.push(way);
    }
    let mut s = format!("a piece holding several powers; it moves and captures with any of them: {}.", ways.join("; "));
    if variant.absorption {
        s.push_str(ABSORBS);
        if royal {
            s.push_str(" As the King, it never slides across a square the enemy attacks.");
        }
    } else {
        s.push_str(" Each power was given from the reserve (R>d2).");
    }
    s
}

/// The variants where `name` names a piece, with it.
pub(crate) fn everywhere(name: &str) -> Vec<(&'static Variant, &'static PieceText)> {
    kibitz_rules::VARIANTS.iter().filter_map(|v| find(v, name).map(|p| (*v, p))).collect()
}

/// `war machine` → `war-machine`: for file names.
pub(crate) fn slug(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    s.trim_end_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_piece_of_every_variant_is_described() {
        for v in kibitz_rules::VARIANTS {
            for pt in v.pieces {
                let found = find(v, pt.name).unwrap_or_else(|| panic!("{} of {} has no description", pt.name, v.id));
                assert!(found.text.len() > 30, "{} of {}: {}", pt.name, v.id, found.text);
                assert_eq!(index_of(v, found), v.piece_index(pt.letter), "{} of {}", pt.name, v.id);
                // The letter finds the same piece.
                assert_eq!(find(v, &pt.letter.to_string()), Some(found), "{} of {}", pt.letter, v.id);
            }
            // And nothing described that the variant lacks (but Olympic's promoted pieces).
            for d in table(v) {
                assert!(index_of(v, d).is_some(), "{} of {}", d.name, v.id);
            }
        }
    }

    #[test]
    fn clash_prices_are_the_variant_texts() {
        // The variant text's list of pieces, "Cost: ... Chess Gold".
        let text = [
            ("Pawn", "1.00"),
            ("Omnipawn", "2.00"),
            ("Knight", "3.50"),
            ("Bishop", "3.50"),
            ("Rabbit", "4.50"),
            ("Elephant", "4.50"),
            ("Waffle", "3.25"),
            ("Rook", "5.50"),
            ("Hawk", "6.00"),
            ("General", "7.00"),
            ("Kite", "5.50"),
            ("War Machine", "6.00"),
            ("Queen", "10.50"),
            ("Chancellor", "10.00"),
            ("Archbishop", "9.50"),
            ("Jester", "8.50"),
            ("Rogue", "9.50"),
            ("Phoenix", "11.00"),
            ("King", "5.00"),
            ("Shielderer", "5.00"),
        ];
        let clash = Variant::by_id("clash").unwrap();
        for (name, cost) in text {
            let d = find(clash, name).unwrap();
            let price = clash_price(d.letter).unwrap();
            assert!(price.ends_with(&format!("costs {cost} gold")), "{name}: {price}");
        }
        assert_eq!(
            clash_price("Z").unwrap(),
            "Jewel, placed on the d file of your back rank; auctioned before the ultimate round"
        );
        assert_eq!(text.len() + 1, clash.pieces.len());
    }

    #[test]
    fn same_names_differ_by_variant() {
        let clash = Variant::by_id("clash").unwrap();
        let alapawn = Variant::by_id("alapawn").unwrap();
        // CA1's pawn double-steps and promotes; A2's steps diagonally and does neither.
        assert!(find(clash, "pawn").unwrap().text.contains("two from its starting rank"));
        assert!(find(alapawn, "pawn").unwrap().text.contains("No double step"));
        assert_eq!(find(clash, "war machine").unwrap().letter, "M");
        assert_eq!(find(clash, "WarMachine").unwrap().letter, "M");
        let construction = Variant::by_id("construction").unwrap();
        assert_eq!(find(construction, "static").unwrap().letter, "S");
        assert_eq!(find(construction, "Static piece").unwrap().letter, "S");
        assert_eq!(find(clash, "static"), None);
        let olympic = Variant::by_id("olympic").unwrap();
        assert_eq!(find(olympic, "+p").unwrap().name, "Promoted Pawn");
        let names: Vec<&str> = everywhere("rabbit").iter().map(|(v, _)| v.id).collect();
        assert_eq!(names, ["clash"]);
        assert_eq!(everywhere("pawn").len(), 8);
        assert!(everywhere("dragon").is_empty());
    }

    #[test]
    fn compounds_are_read_from_their_powers() {
        let abs = Variant::by_id("absorption").unwrap();
        let bn = Powers::BISHOP.with(Powers::KNIGHT);
        assert_eq!(compound(abs, "(BN)"), Some((bn, false, "Bishop+Knight".into())));
        assert_eq!(compound(abs, "bishop+knight"), Some((bn, false, "Bishop+Knight".into())));
        assert_eq!(compound(abs, "King-Queen").map(|c| c.0), Some(Powers::KING.with(Powers::QUEEN)));
        assert_eq!(compound(abs, "(NP)").map(|c| c.0), Some(Powers::KNIGHT.with(Powers::PAWN)));
        // The code typed without brackets, in either case.
        assert_eq!(compound(abs, "BN"), Some((bn, false, "Bishop+Knight".into())));
        assert_eq!(compound(abs, "kp").map(|c| (c.0, c.1)), Some((Powers::KING.with(Powers::PAWN), true)));
        assert_eq!(compound(abs, "king"), None);
        let kq = compound(abs, "(KQ)").unwrap();
        assert_eq!((kq.0, kq.1), (Powers::KING.with(Powers::QUEEN), true));
        assert!(compound_text(abs, kq.0, kq.1).contains("never slides across"));
        let cons = Variant::by_id("construction").unwrap();
        assert_eq!(compound(cons, "(RC)").map(|c| c.0), Some(Powers::ROOK.with(Powers::CASTLE)));
        // Not a compound: one power, a power twice, an unknown letter, a variant of named pieces.
        for bad in ["(B)", "(BB)", "(BX)", "()", "bishop+", "(KC)"] {
            assert_eq!(compound(cons, bad), None, "{bad}");
        }
        assert_eq!(compound(Variant::by_id("chess").unwrap(), "(BN)"), None);
        let text = compound_text(abs, bn, false);
        assert!(text.contains("diagonals") && text.contains("L-shaped"), "{text}");
    }

    #[test]
    fn slugs_have_no_spaces() {
        assert_eq!(slug("War Machine"), "war-machine");
        assert_eq!(slug("Bishop+Knight"), "bishop-knight");
        assert_eq!(slug("+P"), "p");
        assert_eq!(slug("Static piece"), "static-piece");
    }
}
