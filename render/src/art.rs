//! The images and the font, embedded in the binary.
//!
//! Nothing is read from the system at run time, so the same input gives the
//! same picture on every machine. Sources and licences:
//! `render/assets/LICENSES.md`.

use std::sync::LazyLock;

use kibitz_rules::{Color, Piece, Powers, Variant};

/// Family name of the embedded font.
pub(crate) const FONT_FAMILY: &str = "DejaVu Sans";

/// The embedded font (a subset of DejaVu Sans Bold).
pub(crate) static FONT: &[u8] = include_bytes!("../assets/fonts/DejaVuSans-Bold-subset.ttf");

macro_rules! pieces {
    ($($name:literal),* $(,)?) => {
        &[$(($name,
             include_str!(concat!("../assets/pieces/w-", $name, ".svg")),
             include_str!(concat!("../assets/pieces/b-", $name, ".svg")))),*]
    };
}

/// Every piece image: name, White's SVG, Black's SVG.
#[rustfmt::skip]
static PIECES: &[(&str, &str, &str)] = pieces![
    "king", "queen", "rook", "bishop", "knight", "pawn", "silver", "gold", "stone",
    // Clash of the Armies.
    "omnipawn", "rabbit", "elephant", "waffle", "hawk", "general", "kite", "war-machine",
    "chancellor", "archbishop", "jester", "rogue", "phoenix", "amazon", "shielderer",
];

/// Badges for pieces made of powers (Power Absorption, Construction): the
/// power and its 16x16 icon. The Queen badge stands for the Rook and Bishop
/// powers together (a King-Queen).
static POWER_ICONS: &[(Powers, &str, &str)] = &[
    (Powers::KING, "power-king", include_str!("../assets/powers/king.svg")),
    (Powers::QUEEN, "power-queen", include_str!("../assets/powers/queen.svg")),
    (Powers::ROOK, "power-rook", include_str!("../assets/powers/rook.svg")),
    (Powers::BISHOP, "power-bishop", include_str!("../assets/powers/bishop.svg")),
    (Powers::KNIGHT, "power-knight", include_str!("../assets/powers/knight.svg")),
    (Powers::PAWN, "power-pawn", include_str!("../assets/powers/pawn.svg")),
    (Powers::CASTLE, "power-castling", include_str!("../assets/powers/castling.svg")),
    // Construction with split powers (CS1): the halves, on half-filled discs.
    (Powers::ROOK_MOVE, "power-rook-moving", include_str!("../assets/powers/rook.svg")),
    (Powers::ROOK_TAKE, "power-rook-capturing", include_str!("../assets/powers/rook.svg")),
    (Powers::BISHOP_MOVE, "power-bishop-moving", include_str!("../assets/powers/bishop.svg")),
    (Powers::BISHOP_TAKE, "power-bishop-capturing", include_str!("../assets/powers/bishop.svg")),
    (Powers::KNIGHT_MOVE, "power-knight-moving", include_str!("../assets/powers/knight.svg")),
    (Powers::KNIGHT_TAKE, "power-knight-capturing", include_str!("../assets/powers/knight.svg")),
    (Powers::PAWN_MOVE, "power-pawn-moving", include_str!("../assets/powers/pawn.svg")),
    (Powers::PAWN_TAKE, "power-pawn-capturing", include_str!("../assets/powers/pawn.svg")),
];

/// The fill of a half's badge (CS1): the left half of the disc for a moving
/// half, the right half for a capturing half, so that a half never looks
/// like the full power and the two halves never like each other.
const MOVING_FILL: &str = "#6fa8dc";
const CAPTURING_FILL: &str = "#e06666";

/// The icons' ink (see `render/tools/make_pieces.py`).
const ICON_INK: &str = "#1a1a1a";

/// Each icon on a disc, as a whole document: dark on a light disc (badges on
/// pieces, White's reserve) and light on a dark disc (Black's reserve).
static BADGES: LazyLock<Vec<[String; 2]>> = LazyLock::new(|| {
    let disc = |power: Powers, icon: &str, disc: &str, ring: &str, ink: &str| {
        let ground = if !power.has_halves() {
            format!(r##"<circle cx="8" cy="8" r="7.5" fill="{disc}" stroke="{ring}" stroke-width="0.9"/>"##)
        } else {
            // Sweep 0 draws the left half, sweep 1 the right.
            let (sweep, fill) = if power.capturing().is_empty() { (0, MOVING_FILL) } else { (1, CAPTURING_FILL) };
            format!(
                r##"<circle cx="8" cy="8" r="7.5" fill="{disc}"/><path d="M8 0.5 A7.5 7.5 0 0 {sweep} 8 15.5 Z" fill="{fill}"/><circle cx="8" cy="8" r="7.5" fill="none" stroke="{ring}" stroke-width="0.9"/>"##
            )
        };
        format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" width="16" height="16">{ground}<g transform="translate(2.2 2.2) scale(0.725)">{}</g></svg>"##,
            inner(icon).replace(ICON_INK, ink)
        )
    };
    POWER_ICONS
        .iter()
        .map(|&(power, _, icon)| {
            [disc(power, icon, "#f6f1e7", "#2b2b2b", ICON_INK), disc(power, icon, "#2b2b2b", "#f6f1e7", "#f6f1e7")]
        })
        .collect()
});

/// One image: a piece in one colour, or a power badge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Art {
    /// Index into the image table.
    index: u16,
    /// A power badge rather than a piece.
    badge: bool,
    /// Whose colours (pieces only).
    pub color: Color,
}

impl Art {
    /// The image's name (`king`, `silver`, ...; badges: `power-rook`, ...).
    pub fn name(&self) -> &'static str {
        if self.badge { POWER_ICONS[self.index as usize].1 } else { PIECES[self.index as usize].0 }
    }

    /// The whole SVG document.
    pub(crate) fn document(&self) -> &'static str {
        if self.badge {
            return &BADGES[self.index as usize][self.color.index()];
        }
        let (_, w, b) = PIECES[self.index as usize];
        if self.color == Color::White { w } else { b }
    }

    /// Width of the document's view box.
    pub(crate) fn view(&self) -> f32 {
        if self.badge { 16.0 } else { 45.0 }
    }

    /// The SVG elements inside the root element, to nest in a picture.
    pub(crate) fn body(&self) -> &'static str {
        static BODIES: LazyLock<Vec<[&'static str; 2]>> =
            LazyLock::new(|| PIECES.iter().map(|&(_, w, b)| [inner(w), inner(b)]).collect());
        if self.badge {
            return inner(self.document());
        }
        BODIES[self.index as usize][self.color.index()]
    }

    fn named(name: &str, color: Color) -> Art {
        let index = PIECES.iter().position(|p| p.0 == name).unwrap_or_else(stone_index);
        Art { index: index as u16, badge: false, color }
    }

    /// The badge of one power, as drawn on pieces.
    pub(crate) fn badge(power: Powers) -> Option<Art> {
        Art::badge_of(power, Color::White)
    }

    /// The badge of one power in `color`'s reserve (Construction): light for
    /// White, dark for Black, so that each side's powers are told apart.
    pub(crate) fn badge_of(power: Powers, color: Color) -> Option<Art> {
        let index = POWER_ICONS.iter().position(|(p, _, _)| *p == power)?;
        Some(Art { index: index as u16, badge: true, color })
    }
}

fn stone_index() -> usize {
    PIECES.iter().position(|p| p.0 == "stone").unwrap_or(0)
}

/// The content of the root `<svg>` element.
fn inner(doc: &str) -> &str {
    let start = doc.find("<svg").and_then(|i| doc[i..].find('>').map(|j| i + j + 1)).unwrap_or(0);
    let end = doc.rfind("</svg>").unwrap_or(doc.len());
    doc.get(start..end).unwrap_or("")
}

/// The image of a piece of `variant`, and badges for the powers that image
/// does not show.
///
/// A named piece type is drawn as itself. A piece made of other powers is
/// drawn as the named type that shows the most of its powers (a
/// rook-bishop-knight is a queen), with a badge for each power left over (a
/// knight); a piece with no power is a stone. A promoted piece shows what it
/// moves as (Olympic: Gold); the scene adds a badge naming what it was.
pub fn for_piece(variant: &Variant, piece: Piece) -> (Art, Vec<Art>) {
    if piece.promoted {
        return (Art::named("gold", piece.color), Vec::new());
    }
    // Most powers shown first; among equals, the type listed first (the
    // variant lists its pieces from the strongest down).
    let base = variant
        .pieces
        .iter()
        .enumerate()
        .filter(|(_, pt)| {
            // Construction's Castling power is always a badge (C6), and so
            // is a lone half (CS1).
            let lone_half = pt.powers.count() == 1 && pt.powers.has_halves();
            let drawable = !pt.powers.is_empty() && pt.powers != Powers::CASTLE && !lone_half;
            pt.royal == piece.royal && drawable && piece.powers.contains(pt.powers)
        })
        .max_by_key(|(i, pt)| (pt.powers.count(), std::cmp::Reverse(*i)))
        .map(|(_, pt)| pt);
    let (art, shown) = match base {
        Some(pt) => (Art::named(&pt.name.to_ascii_lowercase().replace(' ', "-"), piece.color), pt.powers),
        None => (Art::named("stone", piece.color), Powers::NONE),
    };
    // A King holding both the Rook and Bishop powers is a King-Queen: one
    // Queen badge rather than two.
    // Both halves of a kind left over are the full power's badge (CS2).
    let rest = piece.powers.without(shown).joined();
    let queen = rest.contains(Powers::QUEEN);
    let singles = if queen { rest.without(Powers::QUEEN) } else { rest };
    let badges = queen.then_some(Powers::QUEEN).into_iter().chain(singles.singles()).filter_map(Art::badge).collect();
    (art, badges)
}

/// True if the embedded font can draw `c` (the ranges of the subset made by
/// `render/tools/make_pieces.py`).
pub(crate) fn font_has(c: char) -> bool {
    matches!(c,
        ' '..='~' | '\u{a0}'..='\u{17f}' | '\u{370}'..='\u{3ff}' | '\u{400}'..='\u{4ff}'
        | '\u{2013}'..='\u{2014}' | '\u{2018}'..='\u{201d}' | '\u{2022}' | '\u{2026}'
        | '\u{2190}'..='\u{2193}' | '\u{2212}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &str, powers: Powers, royal: bool) -> (String, Vec<String>) {
        let piece = Piece { color: Color::White, powers, royal, promoted: false };
        let (art, badges) = for_piece(Variant::by_id(v).unwrap(), piece);
        (art.name().to_string(), badges.iter().map(|b| b.name().to_string()).collect())
    }

    #[test]
    fn named_pieces_are_themselves() {
        assert_eq!(names("chess", Powers::KNIGHT, false), ("knight".into(), vec![]));
        assert_eq!(names("chess", Powers::QUEEN, false), ("queen".into(), vec![]));
        assert_eq!(names("chess", Powers::KING, true), ("king".into(), vec![]));
        assert_eq!(names("olympic", Powers::SILVER, false), ("silver".into(), vec![]));
    }

    #[test]
    fn pieces_of_powers_show_every_power() {
        // Power Absorption's bishop-knight, Construction's rook-pawn, a king
        // that absorbed a rook, a queen that absorbed a knight.
        let bn = Powers::BISHOP.with(Powers::KNIGHT);
        assert_eq!(names("chess", bn, false), ("bishop".into(), vec!["power-knight".into()]));
        let rp = Powers::ROOK.with(Powers::PAWN);
        assert_eq!(names("chess", rp, false), ("rook".into(), vec!["power-pawn".into()]));
        let kr = Powers::KING.with(Powers::ROOK);
        assert_eq!(names("chess", kr, true), ("king".into(), vec!["power-rook".into()]));
        let qn = Powers::QUEEN.with(Powers::KNIGHT);
        assert_eq!(names("chess", qn, false), ("queen".into(), vec!["power-knight".into()]));
        // Construction's static piece.
        assert_eq!(names("chess", Powers::NONE, false), ("stone".into(), vec![]));
        // A King-Queen shows one Queen badge; with a knight as well, two.
        let kq = Powers::KING.with(Powers::QUEEN);
        assert_eq!(names("absorption", kq, true), ("king".into(), vec!["power-queen".into()]));
        let kqn = kq.with(Powers::KNIGHT);
        assert_eq!(names("absorption", kqn, true), ("king".into(), vec!["power-queen".into(), "power-knight".into()]));
        let kbp = Powers::KING.with(Powers::BISHOP).with(Powers::PAWN);
        assert_eq!(names("absorption", kbp, true), ("king".into(), vec!["power-bishop".into(), "power-pawn".into()]));
        // Construction: a static piece is a stone; the Castling power is a
        // badge even on a piece with no other power.
        assert_eq!(names("construction", Powers::NONE, false), ("stone".into(), vec![]));
        let rc = Powers::ROOK.with(Powers::CASTLE);
        assert_eq!(names("construction", rc, false), ("rook".into(), vec!["power-castling".into()]));
        assert_eq!(names("construction", Powers::CASTLE, false), ("stone".into(), vec!["power-castling".into()]));
        let qnp = Powers::QUEEN.with(Powers::KNIGHT).with(Powers::PAWN);
        assert_eq!(
            names("construction", qnp, false),
            ("queen".into(), vec!["power-knight".into(), "power-pawn".into()])
        );
    }

    #[test]
    fn halves_are_badges_of_their_own() {
        let v = "construction-split";
        // CS1: a lone half is a stone with the half's badge; a half beside
        // full powers is a badge on their piece; both halves are the piece.
        assert_eq!(names(v, Powers::ROOK_MOVE, false), ("stone".into(), vec!["power-rook-moving".into()]));
        let te = Powers::ROOK_MOVE.with(Powers::BISHOP_TAKE);
        assert_eq!(
            names(v, te, false),
            ("stone".into(), vec!["power-rook-moving".into(), "power-bishop-capturing".into()])
        );
        assert_eq!(names(v, Powers::ROOK.split(), false), ("rook".into(), vec![]));
        let qi = Powers::QUEEN.split().with(Powers::KNIGHT_TAKE);
        assert_eq!(names(v, qi, false), ("queen".into(), vec!["power-knight-capturing".into()]));
        let qn = Powers::QUEEN.with(Powers::KNIGHT).split();
        assert_eq!(names(v, qn, false), ("queen".into(), vec!["power-knight".into()]));
        // The three badges of one kind are three different pictures.
        let docs: Vec<&str> = [Powers::ROOK, Powers::ROOK_MOVE, Powers::ROOK_TAKE]
            .into_iter()
            .map(|p| Art::badge(p).unwrap().document())
            .collect();
        assert!(docs[0] != docs[1] && docs[1] != docs[2] && docs[0] != docs[2]);
    }

    #[test]
    fn every_image_parses() {
        let opt = resvg::usvg::Options::default();
        for (name, w, b) in PIECES {
            for doc in [w, b] {
                let tree = resvg::usvg::Tree::from_str(doc, &opt).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(tree.size().width(), 45.0, "{name}");
            }
        }
        for doc in BADGES.iter().flatten() {
            resvg::usvg::Tree::from_str(doc, &opt).unwrap();
        }
    }
}
