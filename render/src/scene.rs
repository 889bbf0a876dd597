//! The picture as a scene: where everything goes, written as SVG.
//!
//! A board picture has three layers. The *background* (frame, squares,
//! coordinates) depends only on the variant, the size and the side the board
//! is seen from, so the rasteriser renders it once and keeps it. The *pieces*
//! are images placed on squares and in hands. The *overlays* (last move,
//! check, dots, arrows, caption, hand counts) change with every position.
//! [`Scene::svg`] writes all three as one SVG document; the rasteriser draws
//! the same layers from cached parts.

use std::fmt::Write;

use kibitz_rules::{Color, Piece, Position, Square, Variant};

use crate::art::{self, Art};
use crate::caption::{self, CaptionLayout};
use crate::theme::Theme;

/// What to draw besides the position.
#[derive(Debug, Clone, Default)]
pub struct BoardOptions {
    /// Width of the board's squares together, in pixels (default 640).
    pub size: Option<u32>,
    /// Show the board from Black's side.
    pub flip: bool,
    /// The squares of the last move, highlighted: its origin (none for a
    /// drop) and destination.
    pub last_move: Option<(Option<Square>, Square)>,
    /// Every square the last turn touched, highlighted as the last move is
    /// (both steps of a pawn pair, a Rabbit's chain, a shooter and its
    /// target): see `Position::touched_squares`. Drawn together with
    /// `last_move`; a square in both is highlighted once.
    pub touched: Vec<Square>,
    /// Dots on these squares (the targets of one piece, for `moves e2`);
    /// occupied squares get a ring instead.
    pub dots: Vec<Square>,
    /// The square whose piece the dots belong to, highlighted.
    pub selected: Option<Square>,
    /// Arrows, from and to (a hint).
    pub arrows: Vec<(Square, Square)>,
    /// The caption strip above the board.
    pub caption: Option<Caption>,
    /// Lines of text beside the board for White (`[0]`) and Black (`[1]`),
    /// each on its side of the board: Clash's gold and army counts.
    pub notes: Option<[Vec<String>; 2]>,
}

/// The caption strip: who plays, and how the game stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caption {
    /// The White player's name.
    pub white: String,
    /// The Black player's name.
    pub black: String,
    /// Whose turn it is, or the result.
    pub status: String,
    /// More about the game, on a line of its own (a Clash match's round,
    /// score and draw odds; clocks); empty for none.
    pub note: String,
}

/// Default width of the board's squares together.
pub const DEFAULT_SIZE: u32 = 640;

/// Where everything goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Layout {
    pub files: u8,
    pub ranks: u8,
    pub flip: bool,
    pub square: f32,
    /// Frame around the squares, holding the coordinates.
    pub margin: f32,
    /// Height of the caption strip (0 without caption).
    pub caption: f32,
    /// Width of the hands panel right of the board (0 without hands).
    pub panel: f32,
    pub width: u32,
    pub height: u32,
}

impl Layout {
    /// Where everything goes; with a caption, also where its text goes.
    pub fn new(
        variant: &Variant,
        size: u32,
        flip: bool,
        caption: Option<&Caption>,
        notes: bool,
    ) -> (Layout, Option<CaptionLayout>) {
        let size = size.clamp(80, 4096) as f32;
        let longest = variant.width.max(variant.height) as f32;
        let square = (size / longest).floor();
        let margin = (square * 0.32).round();
        let panel = if notes {
            (square * 2.4).round()
        } else if variant.grants {
            // Construction's reserve: each kind with its count written beside it.
            (square * 1.6).round()
        } else if variant.drops {
            (square * 0.9).round()
        } else {
            0.0
        };
        let width = (2.0 * margin + square * variant.width as f32 + panel) as u32;
        // The caption's height depends on how many lines its text needs at
        // this width.
        let text = caption.map(|c| caption::lay_out(c, width as f32, square, margin));
        let caption = text.as_ref().map_or(0.0, |t| t.height);
        let height = (2.0 * margin + square * variant.height as f32 + caption) as u32;
        let layout =
            Layout { files: variant.width, ranks: variant.height, flip, square, margin, caption, panel, width, height };
        (layout, text)
    }

    /// Top-left corner of a square.
    pub fn square_origin(&self, sq: Square) -> (f32, f32) {
        let (f, r) = (sq.file() as f32, sq.rank() as f32);
        let (col, row) = if self.flip { (self.files as f32 - 1.0 - f, r) } else { (f, self.ranks as f32 - 1.0 - r) };
        (self.margin + col * self.square, self.caption + self.margin + row * self.square)
    }

    pub fn square_center(&self, sq: Square) -> (f32, f32) {
        let (x, y) = self.square_origin(sq);
        (x + self.square / 2.0, y + self.square / 2.0)
    }

    /// Left edge of the hands panel.
    pub fn panel_x(&self) -> f32 {
        2.0 * self.margin + self.square * self.files as f32
    }

    /// Size and top-left corners of the hand slots of `color`.
    /// With `fit`, the slots are made small enough for each side's to fit in
    /// its half of the board's height (Construction's six reserve kinds), and
    /// stand at the panel's left, leaving room for the counts.
    pub fn hand_slots(&self, color: Color, count: usize, fit: bool) -> Vec<(f32, f32, f32)> {
        let half = self.square * self.ranks as f32 / 2.0;
        let (size, x) = if fit {
            let size = (half / (count.max(1) as f32 * 1.05)).min(self.square * 0.66).floor();
            (size, (self.panel_x() + self.square * 0.06).round())
        } else {
            let size = (self.panel * 0.8).floor();
            (size, self.panel_x() + (self.panel - size) / 2.0 - self.margin / 2.0)
        };
        let board_top = self.caption + self.margin;
        let board_bottom = board_top + self.square * self.ranks as f32;
        // The viewer's own hand sits at the bottom, the opponent's at the top.
        let at_bottom = (color == Color::White) != self.flip;
        (0..count)
            .map(|i| {
                let step = size * 1.05;
                let y = if at_bottom { board_bottom - size - i as f32 * step } else { board_top + i as f32 * step };
                (x, y, size)
            })
            .collect()
    }
}

/// A piece image placed on the picture.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Placed {
    pub art: Art,
    pub x: f32,
    pub y: f32,
    pub size: f32,
}

/// Everything to draw for one position.
#[derive(Debug, Clone)]
pub(crate) struct Scene {
    pub layout: Layout,
    /// SVG elements under the pieces (highlights).
    pub under: String,
    pub pieces: Vec<Placed>,
    /// SVG elements over the pieces (dots, arrows, counts).
    pub over: String,
    /// The caption's text, drawn over everything else (it never meets the
    /// board, so a replay draws it once).
    pub caption: String,
}

impl Scene {
    pub fn new(pos: &Position, opts: &BoardOptions, theme: &Theme) -> Scene {
        let variant = pos.variant();
        let captioned = opts.caption.as_ref().map(|c| caption::with_handicaps(c, pos));
        let (layout, caption) = Layout::new(
            variant,
            opts.size.unwrap_or(DEFAULT_SIZE),
            opts.flip,
            captioned.as_ref(),
            opts.notes.is_some(),
        );
        let sq = layout.square;
        let mut under = String::new();
        let mut over = String::new();

        // Highlights under the pieces.
        let mut highlighted: Vec<Square> = Vec::new();
        let last = opts.last_move.into_iter().flat_map(|(from, to)| from.into_iter().chain([to]));
        for s in last.chain(opts.touched.iter().copied()) {
            if highlighted.contains(&s) {
                continue;
            }
            highlighted.push(s);
            let (x, y) = layout.square_origin(s);
            let _ = write!(under, r#"<rect x="{x}" y="{y}" width="{sq}" height="{sq}" fill="{}"/>"#, theme.last_move);
        }
        if let Some(s) = opts.selected {
            let (x, y) = layout.square_origin(s);
            let _ = write!(under, r#"<rect x="{x}" y="{y}" width="{sq}" height="{sq}" fill="{}"/>"#, theme.selected);
        }
        if pos.is_check()
            && let Some(k) = pos.royal_square(pos.turn())
        {
            let (cx, cy) = layout.square_center(k);
            let r = sq * 0.5;
            let _ = write!(under, r#"<circle cx="{cx}" cy="{cy}" r="{r}" fill="url(#check)"/>"#);
        }

        // Pieces on the board.
        let mut pieces = Vec::new();
        for s in pos.occupied() {
            if let Some(p) = pos.piece_at(s) {
                let (x, y) = layout.square_origin(s);
                let (art, badges) = art::for_piece(variant, p);
                pieces.push(Placed { art, x, y, size: sq });
                // Powers the image does not show, as badges along the bottom:
                // a third of the square, smaller when three or more share it.
                let share = match badges.len() {
                    0..=2 => 0.34,
                    n => (0.9 / n as f32).min(0.3),
                };
                let bs = (sq * share).round();
                for (i, badge) in badges.into_iter().enumerate() {
                    let bx = x + sq - bs * (i as f32 + 1.0) - sq * 0.03;
                    pieces.push(Placed { art: badge, x: bx.round(), y: (y + sq - bs - sq * 0.03).round(), size: bs });
                }
            }
        }

        // Hands beside the board, with counts; Construction's reserve (C1)
        // shows its static pieces as stones and its powers as their badges,
        // light discs for White and dark ones for Black, so that a power in
        // reserve never looks like a piece.
        if variant.drops || variant.grants {
            for color in Color::ALL {
                let held: Vec<(u8, u8)> = variant
                    .hand_order
                    .chars()
                    .filter_map(|l| variant.piece_index(l))
                    .map(|i| (i, pos.hand(color, i)))
                    .filter(|&(_, n)| n > 0)
                    .collect();
                let slots = if variant.grants { variant.hand_order.len() } else { held.len() };
                for ((index, count), (x, y, size)) in held.iter().zip(layout.hand_slots(color, slots, variant.grants)) {
                    let pt = variant.pieces[*index as usize];
                    let piece = Piece { color, powers: pt.powers, royal: pt.royal, promoted: false };
                    let art = match art::Art::badge_of(pt.powers, color) {
                        Some(badge) if variant.grants => badge,
                        _ => art::for_piece(variant, piece).0,
                    };
                    pieces.push(Placed { art, x, y, size });
                    if variant.grants {
                        // The count beside it, every count (one rook power
                        // is "x1", never to be taken for a rook).
                        let fs = (layout.square * 0.26).round();
                        let _ = write!(
                            over,
                            r#"<text x="{}" y="{}" font-size="{fs}" fill="{}">×{count}</text>"#,
                            x + size + layout.square * 0.06,
                            y + size / 2.0 + fs * 0.36,
                            theme.caption_text,
                        );
                    } else if *count > 1 {
                        let fs = (size * 0.34).round();
                        let (bx, by) = (x + size * 0.86, y + size * 0.84);
                        let _ = write!(
                            over,
                            r#"<circle cx="{bx}" cy="{by}" r="{}" fill="{}"/><text x="{bx}" y="{}" font-size="{fs}" text-anchor="middle" fill="{}">{count}</text>"#,
                            fs * 0.72,
                            theme.badge,
                            by + fs * 0.36,
                            theme.badge_text,
                        );
                    }
                }
            }
        }

        // Clash (CA6, CA8, CA9): a golden ring round every invulnerable
        // piece, and a shield behind a Shielderer whose shield is up.
        if variant.armies {
            const RING: &str = include_str!("../assets/marks/invulnerable.svg");
            const SHIELD: &str = include_str!("../assets/marks/shield.svg");
            let body = |doc: &'static str| {
                let start = doc.find('>').map_or(0, |i| i + 1);
                let end = doc.rfind("</svg>").unwrap_or(doc.len());
                doc.get(start..end).unwrap_or("")
            };
            for s in pos.invulnerable() {
                let (x, y) = layout.square_origin(s);
                let _ = write!(over, r#"<g transform="translate({x} {y}) scale({})">{}</g>"#, sq / 45.0, body(RING));
            }
            for c in Color::ALL {
                if let Some(n) = pos.shield(c).filter(|n| *n > 0)
                    && let Some(k) = pos.royal_square(c)
                {
                    let (x, y) = layout.square_origin(k);
                    let _ =
                        write!(under, r#"<g transform="translate({x} {y}) scale({})">{}</g>"#, sq / 45.0, body(SHIELD));
                    // The turns it has left (CA8).
                    over.push_str(&crate::sheets::shield_count(x + sq, y, sq, n, theme));
                }
            }
        }

        // Notes beside the board, each side's next to its own half.
        if let Some(notes) = &opts.notes {
            let fs = (sq * 0.2).round().max(9.0);
            let x = layout.panel_x() + layout.margin * 0.1;
            let board_top = layout.caption + layout.margin;
            let board_bottom = board_top + sq * layout.ranks as f32;
            for c in Color::ALL {
                let lines = &notes[c.index()];
                let at_bottom = (c == Color::White) != layout.flip;
                let top =
                    if at_bottom { board_bottom - fs * 1.3 * lines.len() as f32 + fs } else { board_top + fs * 1.2 };
                for (i, line) in lines.iter().enumerate() {
                    let y = top + i as f32 * fs * 1.3;
                    let text: String = line.chars().filter(|ch| art::font_has(*ch)).collect();
                    let _ = write!(
                        over,
                        r#"<text x="{x}" y="{y}" font-size="{fs}" fill="{}">{}</text>"#,
                        theme.caption_text,
                        escape(&text)
                    );
                }
            }
        }

        // Promotion marks: a promoted piece shows what it was.
        for s in pos.occupied() {
            if let Some(p) = pos.piece_at(s).filter(|p| p.promoted) {
                let (x, y) = layout.square_origin(s);
                let letter =
                    variant.piece_index_of(p.powers, p.royal).map_or('?', |i| variant.pieces[i as usize].letter);
                let r = sq * 0.16;
                let (cx, cy) = (x + sq - r * 1.15, y + r * 1.15);
                let fs = (r * 1.25).round();
                let _ = write!(
                    over,
                    r#"<circle cx="{cx}" cy="{cy}" r="{r}" fill="{}" stroke="{}" stroke-width="{}"/><text x="{cx}" y="{}" font-size="{fs}" text-anchor="middle" fill="{}">+{letter}</text>"#,
                    theme.promoted,
                    theme.badge_text,
                    (sq * 0.015).max(1.0),
                    cy + fs * 0.36,
                    theme.badge_text,
                );
            }
        }

        // Dots and rings for one piece's targets.
        for &s in &opts.dots {
            let (cx, cy) = layout.square_center(s);
            if pos.piece_at(s).is_some() {
                let w = sq * 0.07;
                let _ = write!(
                    over,
                    r#"<circle cx="{cx}" cy="{cy}" r="{}" fill="none" stroke="{}" stroke-width="{w}"/>"#,
                    sq * 0.46,
                    theme.dot
                );
            } else {
                let _ = write!(over, r#"<circle cx="{cx}" cy="{cy}" r="{}" fill="{}"/>"#, sq * 0.16, theme.dot);
            }
        }

        // Arrows.
        for &(from, to) in &opts.arrows {
            if from != to {
                over.push_str(&arrow(&layout, from, to, theme.arrow));
            }
        }

        // Caption: laid out by measured width (see `caption`).
        let mut caption_text = String::new();
        for t in caption.iter().flat_map(|c| &c.texts) {
            let anchor = if t.end { r#" text-anchor="end""# } else { "" };
            let _ = write!(
                caption_text,
                r#"<text x="{}" y="{}" font-size="{}"{anchor} fill="{}">{}</text>"#,
                t.x,
                t.y,
                t.size,
                theme.caption_text,
                escape_upto(&t.text, usize::MAX),
            );
        }

        Scene { layout, under, pieces, over, caption: caption_text }
    }

    /// The static part: frame, squares and coordinates.
    pub fn background(layout: &Layout, theme: &Theme) -> String {
        let mut s = String::new();
        let l = layout;
        let _ = write!(s, r#"<rect width="{}" height="{}" fill="{}"/>"#, l.width, l.height, theme.frame);
        if l.caption > 0.0 {
            let _ = write!(s, r#"<rect width="{}" height="{}" fill="{}"/>"#, l.width, l.caption, theme.caption);
        }
        let sq = l.square;
        for r in 0..l.ranks {
            for f in 0..l.files {
                let Some(square) = Square::from_coords(f, r) else { continue };
                let (x, y) = l.square_origin(square);
                let fill = if (f + r) % 2 == 0 { theme.dark } else { theme.light };
                let _ = write!(s, r#"<rect x="{x}" y="{y}" width="{sq}" height="{sq}" fill="{fill}"/>"#);
            }
        }
        let fs = (l.margin * 0.62).round();
        for f in 0..l.files {
            let Some(square) = Square::from_coords(f, 0) else { continue };
            let (cx, _) = l.square_center(square);
            let letter = (b'a' + f) as char;
            for y in [l.caption + l.margin * 0.5 + fs * 0.36, l.height as f32 - l.margin * 0.5 + fs * 0.36] {
                let _ = write!(
                    s,
                    r#"<text x="{cx}" y="{y}" font-size="{fs}" text-anchor="middle" fill="{}">{letter}</text>"#,
                    theme.coordinates
                );
            }
        }
        for r in 0..l.ranks {
            let Some(square) = Square::from_coords(0, r) else { continue };
            let (_, cy) = l.square_center(square);
            let right = l.panel_x() - l.margin * 0.5;
            for x in [l.margin * 0.5, right] {
                let _ = write!(
                    s,
                    r#"<text x="{x}" y="{}" font-size="{fs}" text-anchor="middle" fill="{}">{}</text>"#,
                    cy + fs * 0.36,
                    theme.coordinates,
                    r + 1
                );
            }
        }
        if l.panel > 0.0 {
            let x = l.panel_x();
            let top = l.caption + l.margin;
            let h = sq * l.ranks as f32;
            let _ = write!(
                s,
                r#"<rect x="{x}" y="{top}" width="{}" height="{h}" rx="{}" fill="{}"/>"#,
                l.panel - l.margin,
                sq * 0.08,
                theme.panel
            );
        }
        s
    }

    /// The whole picture as one SVG document.
    pub fn svg(&self, theme: &Theme) -> String {
        let l = &self.layout;
        let mut s = String::with_capacity(16 * 1024);
        let _ = write!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{}" height="{}" viewBox="0 0 {} {}" font-family="{}" font-weight="bold">"#,
            l.width,
            l.height,
            l.width,
            l.height,
            crate::art::FONT_FAMILY
        );
        s.push_str(&defs(theme));
        s.push_str(&Scene::background(l, theme));
        s.push_str(&self.under);
        for p in &self.pieces {
            let scale = p.size / p.art.view();
            let _ = write!(s, r#"<g transform="translate({} {}) scale({scale})">{}</g>"#, p.x, p.y, p.art.body());
        }
        s.push_str(&self.over);
        s.push_str(&self.caption);
        s.push_str("</svg>");
        s
    }
}

/// Shared definitions (the check glow).
pub(crate) fn defs(theme: &Theme) -> String {
    format!(
        r#"<defs><radialGradient id="check"><stop offset="0" stop-color="{}" stop-opacity="1"/><stop offset="0.45" stop-color="{}" stop-opacity="0.85"/><stop offset="1" stop-color="{}" stop-opacity="0"/></radialGradient></defs>"#,
        theme.check, theme.check, theme.check
    )
}

fn arrow(l: &Layout, from: Square, to: Square, color: &str) -> String {
    let (x1, y1) = l.square_center(from);
    let (x2, y2) = l.square_center(to);
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt();
    let (ux, uy) = (dx / len, dy / len);
    let (nx, ny) = (-uy, ux);
    let w = l.square * 0.09;
    let head = l.square * 0.32;
    let start = l.square * 0.18;
    let (sx, sy) = (x1 + ux * start, y1 + uy * start);
    let (bx, by) = (x2 - ux * head, y2 - uy * head);
    let pts = [
        (sx + nx * w, sy + ny * w),
        (bx + nx * w, by + ny * w),
        (bx + nx * w * 2.6, by + ny * w * 2.6),
        (x2, y2),
        (bx - nx * w * 2.6, by - ny * w * 2.6),
        (bx - nx * w, by - ny * w),
        (sx - nx * w, sy - ny * w),
    ];
    let mut s = String::from(r#"<polygon points=""#);
    for (x, y) in pts {
        let _ = write!(s, "{x:.1},{y:.1} ");
    }
    let _ = write!(s, r#"" fill="{color}"/>"#);
    s
}

/// Escapes text for SVG and drops characters the embedded font cannot draw;
/// at most 60 characters.
pub(crate) fn escape(text: &str) -> String {
    escape_upto(text, 60)
}

/// [`escape`], keeping up to `max` characters.
pub(crate) fn escape_upto(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().take(max) {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if crate::art::font_has(c) => out.push(c),
            c if c.is_whitespace() => out.push(' '),
            _ => out.push('?'),
        }
    }
    out
}
