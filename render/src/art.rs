//! The images and the font, embedded in the binary.
//!
//! Nothing is read from the system at run time, so the same input gives the
//! same picture on every machine. Sources and licences:
//! `render/assets/LICENSES.md`.

use std::sync::LazyLock;

use kibitz_rules::{Color, Piece, Variant};

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
static PIECES: &[(&str, &str, &str)] = pieces!["king", "queen", "rook", "bishop", "knight", "pawn", "silver", "gold",];

/// One piece image in one colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Art {
    /// Index into the image table.
    index: u16,
    /// Whose colours.
    pub color: Color,
}

impl Art {
    /// The image's name (`king`, `silver`, ...).
    pub fn name(&self) -> &'static str {
        PIECES[self.index as usize].0
    }

    /// The whole SVG document (45x45 view box).
    pub(crate) fn document(&self) -> &'static str {
        let (_, w, b) = PIECES[self.index as usize];
        if self.color == Color::White { w } else { b }
    }

    /// The SVG elements inside the root element, to nest in a picture.
    pub(crate) fn body(&self) -> &'static str {
        static BODIES: LazyLock<Vec<[&'static str; 2]>> =
            LazyLock::new(|| PIECES.iter().map(|&(_, w, b)| [inner(w), inner(b)]).collect());
        BODIES[self.index as usize][self.color.index()]
    }

    fn named(name: &str, color: Color) -> Art {
        let index = PIECES.iter().position(|p| p.0 == name).unwrap_or_else(stone_index);
        Art { index: index as u16, color }
    }
}

fn stone_index() -> usize {
    PIECES.iter().position(|p| p.0 == "stone").unwrap_or(0)
}

/// The content of the root `<svg>` element.
fn inner(doc: &'static str) -> &'static str {
    let start = doc.find("<svg").and_then(|i| doc[i..].find('>').map(|j| i + j + 1)).unwrap_or(0);
    let end = doc.rfind("</svg>").unwrap_or(doc.len());
    doc.get(start..end).unwrap_or("")
}

/// The image of a piece of `variant`. A promoted piece shows what it moves
/// as (Olympic: Gold); the scene adds a badge naming what it was.
pub fn for_piece(variant: &Variant, piece: Piece) -> Art {
    let name = if piece.promoted {
        "gold"
    } else {
        match variant.piece_index_of(piece.powers, piece.royal) {
            Some(i) => variant.pieces[i as usize].name,
            None => "stone",
        }
    };
    Art::named(&name.to_ascii_lowercase().replace(' ', "-"), piece.color)
}

/// True if the embedded font can draw `c` (the ranges of the subset made by
/// `render/tools/make_pieces.py`).
pub(crate) fn font_has(c: char) -> bool {
    matches!(c,
        ' '..='~' | '\u{a0}'..='\u{17f}' | '\u{370}'..='\u{3ff}' | '\u{400}'..='\u{4ff}'
        | '\u{2013}'..='\u{2014}' | '\u{2018}'..='\u{201d}' | '\u{2022}' | '\u{2026}'
        | '\u{2190}'..='\u{2193}' | '\u{2212}')
}
