//! The caption strip, laid out by the measured width of its text.
//!
//! Widths come from the embedded font's own glyph advances, so the layout
//! knows where each piece of text ends before resvg draws it. The players'
//! names and the status share one line when they fit; otherwise the names
//! get a line of their own (shortened with an ellipsis when needed, or one
//! line each when even that is too tight) and the status the next; a note
//! always has a line of its own. Nothing overlaps and nothing leaves the
//! picture, at any width.

use std::collections::HashMap;
use std::sync::LazyLock;

use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, MetadataProvider};

use crate::art;
use crate::scene::Caption;

/// One piece of caption text, in picture coordinates.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TextBox {
    /// The text, every character drawable by the embedded font (not yet
    /// escaped for SVG).
    pub text: String,
    /// Where the text is anchored: its left edge, or its right edge when
    /// `end` is set.
    pub x: f32,
    /// Baseline.
    pub y: f32,
    /// Anchored at its right edge.
    pub end: bool,
    /// Font size in pixels.
    pub size: f32,
}

/// Where the caption's text goes, and how tall the strip is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CaptionLayout {
    /// Height of the strip.
    pub height: f32,
    /// The text, in the order drawn.
    pub texts: Vec<TextBox>,
}

/// Advance widths, in ems, of every character the embedded font draws.
static ADVANCES: LazyLock<HashMap<char, f32>> = LazyLock::new(|| {
    let mut map = HashMap::new();
    let Ok(font) = FontRef::new(art::FONT) else { return map };
    let charmap = font.charmap();
    let metrics = font.glyph_metrics(Size::new(1.0), LocationRef::default());
    for c in (' '..='\u{2212}').filter(|c| art::font_has(*c)) {
        if let Some(width) = charmap.map(c).and_then(|g| metrics.advance_width(g)) {
            map.insert(c, width);
        }
    }
    map
});

/// Width of a character the table lacks: wider than most, so that a guess
/// errs on the side of room.
const UNKNOWN_EM: f32 = 0.8;

/// Width of `text` in pixels at font size `size`, as the sum of the glyph
/// advances (kerning only ever brings DejaVu's glyphs closer).
pub(crate) fn measure(text: &str, size: f32) -> f32 {
    text.chars().map(|c| ADVANCES.get(&c).copied().unwrap_or(UNKNOWN_EM)).sum::<f32>() * size
}

/// `text` as it will be drawn: characters the font lacks become `?`, runs of
/// white space one space (as SVG shows them), no space at either end; at most
/// 200 characters (more never fits on a line).
pub(crate) fn drawable(text: &str) -> String {
    let mapped: String = text
        .chars()
        .take(200)
        .map(|c| {
            if c.is_whitespace() {
                ' '
            } else if art::font_has(c) {
                c
            } else {
                '?'
            }
        })
        .collect();
    mapped.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// `text` shortened with an ellipsis to fit in `width` pixels; empty when not
/// even the ellipsis fits.
pub(crate) fn shorten(text: &str, width: f32, size: f32) -> String {
    if measure(text, size) <= width {
        return text.to_string();
    }
    let mut kept = String::new();
    for c in text.chars() {
        kept.push(c);
        if measure(kept.trim_end(), size) + measure("…", size) > width {
            kept.pop();
            break;
        }
    }
    let kept = kept.trim_end();
    if measure("…", size) > width { String::new() } else { format!("{kept}…") }
}

/// `text` broken at spaces into at most `max` lines of at most `width`
/// pixels; a word longer than a line is broken where it must be, and what
/// does not fit in `max` lines ends with an ellipsis.
pub(crate) fn wrap(text: &str, width: f32, size: f32, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let candidate = if current.is_empty() { word.to_string() } else { format!("{current} {word}") };
        if measure(&candidate, size) <= width {
            current = candidate;
            continue;
        }
        if !current.is_empty() {
            lines.push(std::mem::take(&mut current));
        }
        current = word.to_string();
        // A word wider than the line: as much of it as fits on each line.
        while measure(&current, size) > width {
            let mut head = String::new();
            for c in current.chars() {
                head.push(c);
                if measure(&head, size) > width {
                    head.pop();
                    break;
                }
            }
            if head.is_empty() {
                // Not one character fits: nothing more can be shown.
                return vec![shorten(text, width, size)];
            }
            current = current[head.len()..].to_string();
            lines.push(head);
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    if lines.len() > max.max(1) {
        let keep = max.max(1) - 1;
        let rest = lines[keep..].join(" ");
        lines.truncate(keep);
        lines.push(shorten(&rest, width, size));
    }
    lines
}

/// Shortens two names so that both fit in `budget` pixels together: a name
/// shorter than half keeps its length and leaves the rest to the other.
fn share(a: &str, b: &str, budget: f32, size: f32) -> (String, String) {
    let (wa, wb) = (measure(a, size), measure(b, size));
    if wa + wb <= budget {
        return (a.to_string(), b.to_string());
    }
    let half = budget / 2.0;
    if wa <= half {
        (a.to_string(), shorten(b, budget - wa, size))
    } else if wb <= half {
        (shorten(a, budget - wb, size), b.to_string())
    } else {
        (shorten(a, half, size), shorten(b, half, size))
    }
}

/// The caption with the position's handicaps (PA7) on the note line, before
/// any note the caller gave: `Handicap: White plain`.
pub(crate) fn with_handicaps(caption: &Caption, pos: &kibitz_rules::Position) -> Caption {
    let handicaps = pos.handicaps();
    let mut out = caption.clone();
    if !handicaps.is_none() {
        let line = format!("Handicap: {handicaps}");
        out.note = if caption.note.is_empty() { line } else { format!("{line} · {}", caption.note) };
    }
    out
}

/// Lays the caption out for a picture `width` pixels wide whose squares are
/// `square` pixels, with `margin` pixels of frame on either side.
pub(crate) fn lay_out(caption: &Caption, width: f32, square: f32, margin: f32) -> CaptionLayout {
    // The one-line strip and its font, in proportion to the squares.
    let base = (square * 0.55).round().max(22.0);
    let pad = margin.max(3.0);
    let avail = (width - 2.0 * pad).max(1.0);
    let mut size = (base * 0.5).round();
    // Smaller letters only when not even a shortened name with its colour
    // fits on a line (the tiniest boards).
    let narrowest = measure("Mx… (White)", size);
    if narrowest > avail {
        size = (size * avail / narrowest).floor().max(4.0);
    }

    let white = drawable(&caption.white);
    let black = drawable(&caption.black);
    let status = drawable(&caption.status);
    let note = drawable(&caption.note);

    // Rows of text: left-aligned text, and text aligned right on the same row.
    let mut rows: Vec<(String, Option<String>)> = Vec::new();
    let names = format!("{white} (White) vs {black} (Black)");
    let gap = size;
    let status_width = if status.is_empty() { 0.0 } else { gap + measure(&status, size) };
    if measure(&names, size) + status_width <= avail {
        rows.push((names, (!status.is_empty()).then_some(status.clone())));
    } else {
        let fixed = measure(" (White) vs  (Black)", size);
        let budget = avail - fixed;
        // Names may be shortened on one line while each keeps a few letters;
        // below that, one line each.
        if budget >= 2.0 * measure("Maxi…", size) {
            let (w, b) = share(&white, &black, budget, size);
            rows.push((format!("{w} (White) vs {b} (Black)"), None));
        } else {
            for (name, colour) in [(&white, " (White)"), (&black, " (Black)")] {
                let room = avail - measure(colour, size);
                rows.push((format!("{}{colour}", shorten(name, room, size)), None));
            }
        }
        rows.extend(wrap(&status, avail, size, 2).into_iter().map(|l| (l, None)));
    }
    rows.extend(wrap(&note, avail, size, 2).into_iter().map(|l| (l, None)));

    let n = rows.len().max(1) as f32;
    let line = size * 1.25;
    let height = base.max(size * (0.75 + 1.25 * n)).round();
    // Each row centred on its line: the em box's middle is 0.346 em above
    // the baseline in DejaVu Sans.
    let first = (height - (n - 1.0) * line) / 2.0 + size * 0.346;
    let mut texts = Vec::new();
    for (i, (left, right)) in rows.into_iter().enumerate() {
        let y = first + i as f32 * line;
        if !left.is_empty() {
            texts.push(TextBox { text: left, x: pad, y, end: false, size });
        }
        if let Some(right) = right {
            texts.push(TextBox { text: right, x: width - pad, y, end: true, size });
        }
    }
    CaptionLayout { height, texts }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_come_from_the_font() {
        // DejaVu Sans Bold: "i" is narrower than "W", and widths add up.
        assert!(measure("i", 20.0) < measure("W", 20.0));
        let (a, b) = (measure("alice", 20.0), measure(" vs bob", 20.0));
        assert!((measure("alice vs bob", 20.0) - (a + b)).abs() < 0.01);
        assert!(ADVANCES.len() > 300, "{}", ADVANCES.len());
        // Twice the size, twice the width.
        assert!((measure("Bartholomew", 40.0) - 2.0 * measure("Bartholomew", 20.0)).abs() < 0.01);
    }

    #[test]
    fn shortening_and_wrapping() {
        let long = "Maximilian_the_Magnificent_1999";
        let cut = shorten(long, 150.0, 20.0);
        assert!(cut.ends_with('…') && cut.len() < long.len(), "{cut}");
        assert!(measure(&cut, 20.0) <= 150.0);
        assert!(long.starts_with(cut.trim_end_matches('…')));
        assert_eq!(shorten("bob", 150.0, 20.0), "bob");
        assert_eq!(shorten(long, 1.0, 20.0), "");

        let lines = wrap("0-1 (the last pawn was captured)", 200.0, 20.0, 3);
        assert!(lines.len() >= 2, "{lines:?}");
        assert!(lines.iter().all(|l| measure(l, 20.0) <= 200.0), "{lines:?}");
        assert_eq!(lines.join(" "), "0-1 (the last pawn was captured)");
        let two = wrap("0-1 (the last pawn was captured)", 120.0, 20.0, 2);
        assert_eq!(two.len(), 2);
        assert!(two[1].ends_with('…'), "{two:?}");
        // A word longer than the line is broken, never left to overflow.
        let broken = wrap(long, 120.0, 20.0, 9);
        assert!(broken.len() > 1 && broken.iter().all(|l| measure(l, 20.0) <= 120.0));
        assert_eq!(broken.concat(), long);
    }

    #[test]
    fn pa7_handicap_on_the_note_line() {
        let v = kibitz_rules::Variant::by_id("absorption").unwrap();
        let fen = format!("{} h:W=plain,B=nopawn", v.start_fen);
        let pos = kibitz_rules::Position::from_fen(v, &fen).unwrap();
        let c = Caption { white: "alice".into(), black: "bob".into(), status: "White to move".into(), note: "".into() };
        assert_eq!(with_handicaps(&c, &pos).note, "Handicap: White plain, Black nopawn");
        let timed = Caption { note: "3 days per move".into(), ..c.clone() };
        assert_eq!(with_handicaps(&timed, &pos).note, "Handicap: White plain, Black nopawn · 3 days per move");
        // Without a handicap the caption is as given.
        assert_eq!(with_handicaps(&c, &kibitz_rules::Position::new(v)), c);
    }

    #[test]
    fn drawable_text() {
        assert_eq!(drawable("  Жук \n🐴  "), "Жук ?");
        assert_eq!(drawable("a\tb"), "a b");
    }

    /// Every text box of the caption as resvg lays it out (its glyphs'
    /// bounding box), for a picture of `variant` drawn with `opts`.
    fn drawn_boxes(
        variant: &str,
        opts: &crate::BoardOptions,
    ) -> (crate::scene::Layout, Vec<(String, resvg::usvg::Rect)>) {
        use resvg::usvg;
        static OPTIONS: LazyLock<usvg::Options<'static>> = LazyLock::new(|| {
            let mut db = usvg::fontdb::Database::new();
            db.load_font_data(art::FONT.to_vec());
            usvg::Options {
                font_family: art::FONT_FAMILY.to_string(),
                fontdb: std::sync::Arc::new(db),
                ..usvg::Options::default()
            }
        });
        let v = kibitz_rules::Variant::by_id(variant).unwrap();
        let pos = kibitz_rules::Position::new(v);
        let scene = crate::scene::Scene::new(&pos, opts, &crate::Theme::default());
        let l = scene.layout;
        let (_, text) = crate::scene::Layout::new(v, opts.size.unwrap_or(640), opts.flip, opts.caption.as_ref(), false);
        let mut boxes = Vec::new();
        for t in text.map(|t| t.texts).unwrap_or_default() {
            let anchor = if t.end { r#" text-anchor="end""# } else { "" };
            let doc = format!(
                r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="{}" font-weight="bold"><text x="{}" y="{}" font-size="{}"{anchor}>{}</text></svg>"#,
                l.width,
                l.height,
                art::FONT_FAMILY,
                t.x,
                t.y,
                t.size,
                crate::scene::escape_upto(&t.text, usize::MAX)
            );
            let tree = usvg::Tree::from_str(&doc, &OPTIONS).unwrap();
            for node in tree.root().children() {
                if let usvg::Node::Text(text) = node {
                    boxes.push((t.text.clone(), text.abs_bounding_box()));
                }
            }
        }
        (l, boxes)
    }

    #[test]
    fn caption_text_never_overlaps_nor_leaves_the_picture() {
        let long = ("Maximilian_the_Magnificent_1999", "Bartholomew_Featherstonehaugh");
        let names = [("alice", "bob"), long, ("Zoë Ωμέγα", "Жук 🐴"), ("WWWWWWWWWWWWWWWWWWWWWWWW", "x")];
        let statuses = [
            "White to move",
            "0-1 (the last pawn was captured)",
            "1-0 (checkmate)",
            "½-½ (draw by threefold repetition of the position)",
            "",
        ];
        let notes = ["", "Round 2 of 3 · match 1-0 · Black has draw odds"];
        // Olympic (5x5, hands panel), chess (8x8), Construction (reserve panel),
        // over the board sizes the configuration allows (80 to 2048).
        for variant in ["olympic", "chess", "construction"] {
            for size in [80, 130, 240, 400, 640, 2048] {
                for flip in [false, true] {
                    for (white, black) in names {
                        for status in statuses {
                            for note in notes {
                                let caption = Caption {
                                    white: white.into(),
                                    black: black.into(),
                                    status: status.into(),
                                    note: note.into(),
                                };
                                let opts = crate::BoardOptions {
                                    size: Some(size),
                                    flip,
                                    caption: Some(caption.clone()),
                                    ..crate::BoardOptions::default()
                                };
                                let (l, boxes) = drawn_boxes(variant, &opts);
                                let what = format!("{variant} {size} {caption:?}");
                                assert!(!boxes.is_empty(), "{what}");
                                for (text, b) in &boxes {
                                    assert!(
                                        b.left() >= 0.0 && b.right() <= l.width as f32,
                                        "{what}: {text:?} at {b:?} leaves the picture ({} wide)",
                                        l.width
                                    );
                                    assert!(
                                        b.top() >= 0.0 && b.bottom() <= l.caption,
                                        "{what}: {text:?} at {b:?} leaves the strip ({} high)",
                                        l.caption
                                    );
                                }
                                for (i, (ta, a)) in boxes.iter().enumerate() {
                                    for (tb, b) in &boxes[i + 1..] {
                                        let apart = a.right() <= b.left()
                                            || b.right() <= a.left()
                                            || a.bottom() <= b.top()
                                            || b.bottom() <= a.top();
                                        assert!(apart, "{what}: {ta:?} at {a:?} overlaps {tb:?} at {b:?}");
                                    }
                                }
                                // Every part is there: both colours, and the
                                // status and note in full or cut with "…".
                                let all: String = boxes.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>().join(" ");
                                if size >= 240 {
                                    assert!(all.contains("(White)") && all.contains("(Black)"), "{what}: {all}");
                                }
                                for part in [status, note].into_iter().filter(|p| !p.is_empty()) {
                                    let shown = all.contains(part) || all.contains('…');
                                    assert!(shown, "{what}: {part:?} missing from {all:?}");
                                }
                                if size >= 640 {
                                    // Wide pictures show every status and note in full.
                                    assert!(all.contains(status) && all.contains(note), "{what}: {all:?}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
