//! Pictures about the rules: the legend of a variant's pieces and the
//! movement diagram of one piece.

use std::fmt::Write;

use kibitz_rules::{Color, Piece, Square, Variant};

use crate::art::{self, FONT_FAMILY};
use crate::raster::{RenderError, Renderer};
use crate::scene::escape;

const CELL: f32 = 144.0;
const IMAGE: f32 = 84.0;

fn header(width: f32, height: f32, background: &str) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="{FONT_FAMILY}" font-weight="bold"><rect width="{width}" height="{height}" fill="{background}"/>"#
    )
}

fn place(art: art::Art, x: f32, y: f32, size: f32) -> String {
    format!(r#"<g transform="translate({x} {y}) scale({})">{}</g>"#, size / art.view(), art.body())
}

/// Every piece of the variant with its name (and, for Olympic, the promoted
/// pieces), as SVG.
pub fn legend_svg(renderer: &Renderer, variant: &'static Variant) -> String {
    let theme = renderer.theme();
    let mut badges_of: Vec<Vec<art::Art>> = Vec::new();
    let mut entries: Vec<(art::Art, (String, String), Option<char>)> = variant
        .pieces
        .iter()
        .map(|pt| {
            let piece = Piece { color: Color::White, powers: pt.powers, royal: pt.royal, promoted: false };
            let (art, badges) = art::for_piece(variant, piece);
            badges_of.push(badges);
            (art, (pt.name.to_string(), pt.letter.to_string()), None)
        })
        .collect();
    if let kibitz_rules::Promotion::Flip { mandatory, optional, .. } = variant.promotion {
        for pt in variant.pieces.iter().filter(|pt| pt.powers.intersects(mandatory.with(optional))) {
            let piece = Piece { color: Color::White, powers: pt.powers, royal: pt.royal, promoted: true };
            entries.push((
                art::for_piece(variant, piece).0,
                (format!("Promoted {}", pt.name), format!("+{}", pt.letter)),
                Some(pt.letter),
            ));
        }
    }
    let columns = entries.len().clamp(1, 4);
    let rows = entries.len().div_ceil(columns);
    let title_h = 52.0;
    let (w, h) = (columns as f32 * CELL + 24.0, title_h + rows as f32 * CELL + 12.0);
    let mut s = header(w, h, theme.frame);
    let _ = write!(
        s,
        r#"<text x="{}" y="34" font-size="24" text-anchor="middle" fill="{}">{}: pieces</text>"#,
        w / 2.0,
        theme.caption_text,
        escape(variant.name)
    );
    for (i, (art, (name, letter), promoted)) in entries.iter().enumerate() {
        let (col, row) = ((i % columns) as f32, (i / columns) as f32);
        let (x, y) = (12.0 + col * CELL, title_h + row * CELL);
        let _ = write!(
            s,
            r#"<rect x="{}" y="{y}" width="{}" height="{}" rx="10" fill="{}"/>"#,
            x + 4.0,
            CELL - 8.0,
            CELL - 8.0,
            theme.light
        );
        s.push_str(&place(*art, x + (CELL - IMAGE) / 2.0, y + 8.0, IMAGE));
        // Powers the image does not show (Construction's Castling power).
        for (j, badge) in badges_of.get(i).into_iter().flatten().enumerate() {
            let bs = IMAGE * 0.38;
            s.push_str(&place(*badge, x + (CELL + IMAGE) / 2.0 - bs * (j as f32 + 1.0), y + 8.0 + IMAGE - bs, bs));
        }
        if let Some(letter) = promoted {
            let (cx, cy) = (x + (CELL + IMAGE) / 2.0 - 10.0, y + 20.0);
            let _ = write!(
                s,
                r#"<circle cx="{cx}" cy="{cy}" r="13" fill="{}"/><text x="{cx}" y="{}" font-size="15" text-anchor="middle" fill="{}">+{letter}</text>"#,
                theme.promoted,
                cy + 5.0,
                theme.badge_text
            );
        }
        let fs = if name.len() > 12 { 13 } else { 15 };
        // The FEN letter in the corner, the name below.
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" font-size="14" fill="{}">{}</text>"#,
            x + 14.0,
            y + 24.0,
            theme.frame,
            escape(letter)
        );
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" font-size="{fs}" text-anchor="middle" fill="{}">{}</text>"#,
            x + CELL / 2.0,
            y + CELL - 22.0,
            theme.frame,
            escape(name)
        );
    }
    s.push_str("</svg>");
    s
}

/// Where one piece moves and captures from the centre of an empty board, as
/// SVG; `None` if the variant has no such piece.
pub fn diagram_svg(renderer: &Renderer, variant: &'static Variant, piece: u8) -> Option<String> {
    let theme = renderer.theme();
    let pt = variant.pieces.get(piece as usize)?;
    let centre = Square::from_coords((variant.width - 1) / 2, (variant.height - 1) / 2)?;
    let (moves, captures) = variant.movement(piece, centre)?;
    let sq = if variant.width > 5 { 56.0 } else { 80.0 };
    let m = 16.0;
    let (bw, bh) = (sq * variant.width as f32, sq * variant.height as f32);
    let (w, h) = (bw + 2.0 * m, 52.0 + bh + 2.0 * m + 40.0);
    let mut s = header(w, h, theme.frame);
    let _ = write!(
        s,
        r#"<text x="{}" y="34" font-size="22" text-anchor="middle" fill="{}">{} ({})</text>"#,
        w / 2.0,
        theme.caption_text,
        escape(pt.name),
        escape(variant.name)
    );
    let top = 52.0 + m;
    for r in 0..variant.height {
        for f in 0..variant.width {
            let Some(at) = Square::from_coords(f, r) else { continue };
            let (x, y) = (m + f as f32 * sq, top + (variant.height - 1 - r) as f32 * sq);
            let fill = if (f + r) % 2 == 0 { theme.dark } else { theme.light };
            let _ = write!(s, r#"<rect x="{x}" y="{y}" width="{sq}" height="{sq}" fill="{fill}"/>"#);
            let (cx, cy) = (x + sq / 2.0, y + sq / 2.0);
            match (moves.has(at), captures.has(at)) {
                (true, true) => {
                    let _ = write!(s, r#"<circle cx="{cx}" cy="{cy}" r="{}" fill="{}"/>"#, sq * 0.17, MOVE_CAPTURE);
                }
                (true, false) => {
                    let _ = write!(
                        s,
                        r#"<circle cx="{cx}" cy="{cy}" r="{}" fill="none" stroke="{}" stroke-width="{}"/>"#,
                        sq * 0.15,
                        MOVE_ONLY,
                        sq * 0.06
                    );
                }
                (false, true) => s.push_str(&cross(cx, cy, sq * 0.16, CAPTURE_ONLY, sq * 0.07)),
                (false, false) => {}
            }
        }
    }
    let piece = Piece { color: Color::White, powers: pt.powers, royal: pt.royal, promoted: false };
    let (x, y) = (m + centre.file() as f32 * sq, top + (variant.height - 1 - centre.rank()) as f32 * sq);
    s.push_str(&place(art::for_piece(variant, piece).0, x, y, sq));
    // Key.
    let ky = top + bh + m + 22.0;
    let mut kx = m + 8.0;
    let kinds = [
        ((moves & captures).any(), "moves or captures", 0),
        ((moves & !captures).any(), "moves only", 1),
        ((captures & !moves).any(), "captures only", 2),
    ];
    for (_, label, kind) in kinds.into_iter().filter(|k| k.0) {
        match kind {
            0 => {
                let _ = write!(s, r#"<circle cx="{kx}" cy="{ky}" r="7" fill="{MOVE_CAPTURE}"/>"#);
            }
            1 => {
                let _ = write!(
                    s,
                    r#"<circle cx="{kx}" cy="{ky}" r="6" fill="none" stroke="{MOVE_ONLY}" stroke-width="3"/>"#
                );
            }
            _ => s.push_str(&cross(kx, ky, 7.0, CAPTURE_ONLY, 3.0)),
        }
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" font-size="14" fill="{}">{label}</text>"#,
            kx + 14.0,
            ky + 5.0,
            theme.caption_text
        );
        kx += 14.0 + label.len() as f32 * 9.0 + 18.0;
    }
    s.push_str("</svg>");
    Some(s)
}

const MOVE_CAPTURE: &str = "#2e7d32";
const MOVE_ONLY: &str = "#1565c0";
const CAPTURE_ONLY: &str = "#c62828";

fn cross(cx: f32, cy: f32, r: f32, color: &str, width: f32) -> String {
    format!(
        r#"<path d="M{} {}L{} {}M{} {}L{} {}" stroke="{color}" stroke-width="{width}" stroke-linecap="round"/>"#,
        cx - r,
        cy - r,
        cx + r,
        cy + r,
        cx - r,
        cy + r,
        cx + r,
        cy - r
    )
}

impl Renderer {
    /// The legend of a variant's pieces, as PNG.
    pub fn legend_png(&self, variant: &'static Variant) -> Result<Vec<u8>, RenderError> {
        self.svg_png(&legend_svg(self, variant))
    }

    /// The movement diagram of one piece type, as PNG.
    pub fn diagram_png(&self, variant: &'static Variant, piece: u8) -> Option<Result<Vec<u8>, RenderError>> {
        diagram_svg(self, variant, piece).map(|svg| self.svg_png(&svg))
    }
}

/// One piece on a light tile, with the badges of the powers its image does
/// not show, as SVG of `size` pixels.
pub fn piece_svg(renderer: &Renderer, variant: &'static Variant, piece: Piece, size: u32) -> String {
    let theme = renderer.theme();
    let s = size.max(16) as f32;
    let mut out = header(s, s, theme.light);
    let (art, badges) = art::for_piece(variant, piece);
    out.push_str(&place(art, 0.0, 0.0, s));
    let bs = (s * 0.3).round();
    for (i, badge) in badges.iter().enumerate() {
        let x = s - bs * (i as f32 + 1.0) - s * 0.03;
        let _ = write!(
            out,
            r#"<g transform="translate({x} {}) scale({})">{}</g>"#,
            s - bs - s * 0.03,
            bs / badge.view(),
            badge.body()
        );
    }
    out.push_str("</svg>");
    out
}
