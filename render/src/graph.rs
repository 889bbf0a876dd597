//! The evaluation graph of a reviewed game: White's winning chances over
//! the moves as a filled area (light for White's share, dark for Black's),
//! forced mates drawn at the edge with a diamond, and each player's three
//! biggest mistakes marked with their move and symbol.

use std::fmt::Write;

use kibitz_rules::Color;
use kibitz_rules::review::{GameReview, Judgement, Score};

use crate::art;
use crate::caption::{measure, shorten};
use crate::raster::{RenderError, Renderer};
use crate::scene::escape_upto;

/// Width of the graph picture in pixels.
pub const GRAPH_WIDTH: u32 = 800;
/// Height of the graph picture in pixels.
pub const GRAPH_HEIGHT: u32 = 400;

const MARGIN: f32 = 16.0;
const CHART_TOP: f32 = 68.0;
const CHART_BOTTOM: f32 = GRAPH_HEIGHT as f32 - 34.0;
const BACKGROUND: &str = "#2a211b";
const TEXT: &str = "#f3ead9";
const FAINT: &str = "#a8998a";
const WHITE_SHARE: &str = "#eed8b4";
const BLACK_SHARE: &str = "#4a3a2e";
const CURVE: &str = "#b48764";
const MARKED: usize = 3;

fn colour(j: Judgement) -> &'static str {
    match j {
        Judgement::Inaccuracy => "#e6c229",
        Judgement::Mistake => "#e67e22",
        Judgement::Blunder => "#e0281e",
    }
}

/// Where things go on the chart.
struct Chart {
    left: f32,
    right: f32,
    points: usize,
}

impl Chart {
    fn x(&self, index: usize) -> f32 {
        let steps = self.points.saturating_sub(1).max(1) as f32;
        self.left + (self.right - self.left) * index as f32 / steps
    }

    /// White's winning chances (-1..1) as a height.
    fn y(chances: f64) -> f32 {
        let mid = (CHART_TOP + CHART_BOTTOM) / 2.0;
        mid - chances.clamp(-1.0, 1.0) as f32 * (CHART_BOTTOM - CHART_TOP) / 2.0
    }
}

/// The graph as an SVG document of [`GRAPH_WIDTH`] by [`GRAPH_HEIGHT`]
/// pixels; `title` (players, result) is its first line.
pub fn eval_graph_svg(review: &GameReview, title: &str) -> String {
    let (w, h) = (GRAPH_WIDTH as f32, GRAPH_HEIGHT as f32);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{}" font-weight="bold">"#,
        art::FONT_FAMILY
    );
    let _ = write!(s, r#"<rect width="{w}" height="{h}" fill="{BACKGROUND}"/>"#);
    let title = shorten(title, w - 2.0 * MARGIN, 18.0);
    let _ = write!(s, r#"<text x="{MARGIN}" y="30" font-size="18" fill="{TEXT}">{}</text>"#, escape_upto(&title, 200));
    let _ = write!(
        s,
        r#"<text x="{MARGIN}" y="54" font-size="13" fill="{FAINT}">{}</text>"#,
        escape_upto(&side_summary(review, Color::White), 80)
    );
    let _ = write!(
        s,
        r#"<text x="{}" y="54" font-size="13" fill="{FAINT}" text-anchor="end">{}</text>"#,
        w - MARGIN,
        escape_upto(&side_summary(review, Color::Black), 80)
    );

    let scores = review.scores();
    let chart = Chart { left: MARGIN, right: w - MARGIN, points: scores.len().max(1) };
    let _ = write!(
        s,
        r#"<rect x="{}" y="{CHART_TOP}" width="{}" height="{}" fill="{BLACK_SHARE}"/>"#,
        chart.left,
        chart.right - chart.left,
        CHART_BOTTOM - CHART_TOP
    );
    axis(&mut s, review, &chart);
    if scores.is_empty() {
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" font-size="14" fill="{TEXT}" text-anchor="middle">no moves</text>"#,
            w / 2.0,
            (CHART_TOP + CHART_BOTTOM) / 2.0 - 8.0
        );
    } else {
        area(&mut s, &scores, &chart);
    }
    let mid = Chart::y(0.0);
    let _ = write!(
        s,
        r#"<line x1="{}" y1="{mid}" x2="{}" y2="{mid}" stroke="{CURVE}" stroke-width="1" stroke-dasharray="4 3"/>"#,
        chart.left, chart.right
    );
    for (i, score) in scores.iter().enumerate() {
        if let Some(side) = mate_side(score) {
            let (x, y) = (chart.x(i), Chart::y(score.win_chances()));
            let (fill, stroke) = if side == Color::White { ("#ffffff", "#2a211b") } else { ("#1b1410", "#f3ead9") };
            let _ = write!(
                s,
                r#"<path d="M{x:.1} {:.1} l4.5 4.5 l-4.5 4.5 l-4.5 -4.5 z" fill="{fill}" stroke="{stroke}" stroke-width="1"/>"#,
                if side == Color::White { y } else { y - 9.0 }
            );
        }
    }
    marks(&mut s, review, &chart);
    s.push_str("</svg>");
    s
}

/// The graph as a PNG of [`GRAPH_WIDTH`] by [`GRAPH_HEIGHT`] pixels.
pub fn eval_graph_png(review: &GameReview, title: &str) -> Result<Vec<u8>, RenderError> {
    Renderer::shared().svg_png(&eval_graph_svg(review, title))
}

fn mate_side(score: &Score) -> Option<Color> {
    match score {
        Score::Cp(_) => None,
        other => other.mating_side(),
    }
}

/// `White: 84% accuracy, 1?? 0? 2?!`
fn side_summary(review: &GameReview, c: Color) -> String {
    let s = review.side(c);
    let name = if c == Color::White { "White" } else { "Black" };
    format!("{name}: {:.0}% accuracy, {}?? {}? {}?!", s.accuracy, s.blunders, s.mistakes, s.inaccuracies)
}

/// The filled area under White's curve, and the curve.
fn area(s: &mut String, scores: &[Score], chart: &Chart) {
    let mut line = String::new();
    for (i, score) in scores.iter().enumerate() {
        let _ =
            write!(line, "{}{:.1} {:.1} ", if i == 0 { "M" } else { "L" }, chart.x(i), Chart::y(score.win_chances()));
    }
    if scores.len() == 1 {
        let _ = write!(line, "L{:.1} {:.1} ", chart.right, Chart::y(scores[0].win_chances()));
    }
    let last_x = if scores.len() == 1 { chart.right } else { chart.x(scores.len() - 1) };
    let fill = format!("{line}L{last_x:.1} {CHART_BOTTOM} L{:.1} {CHART_BOTTOM} Z", chart.left);
    let _ = write!(s, r#"<path d="{fill}" fill="{WHITE_SHARE}"/>"#);
    let _ = write!(
        s,
        r#"<path d="{}" fill="none" stroke="{CURVE}" stroke-width="2" stroke-linejoin="round"/>"#,
        line.trim_end()
    );
}

/// Move numbers under the chart, with faint lines up through it.
fn axis(s: &mut String, review: &GameReview, chart: &Chart) {
    let moves = review.plies.iter().filter(|p| p.mover == Color::White).count().max(1);
    let step = [1, 2, 5, 10, 20, 50, 100].into_iter().find(|st| moves / st <= 12).unwrap_or(200) as u32;
    for p in review.plies.iter().filter(|p| p.mover == Color::White && p.number % step == 0) {
        let x = chart.x(p.ply + 1);
        let _ = write!(
            s,
            r#"<line x1="{x:.1}" y1="{CHART_TOP}" x2="{x:.1}" y2="{CHART_BOTTOM}" stroke="{FAINT}" stroke-opacity="0.35" stroke-width="1"/>"#
        );
        let _ = write!(
            s,
            r#"<text x="{x:.1}" y="{}" font-size="12" fill="{FAINT}" text-anchor="middle">{}</text>"#,
            CHART_BOTTOM + 18.0,
            p.number
        );
    }
}

/// Each player's biggest mistakes: a dot on the curve and a label.
fn marks(s: &mut String, review: &GameReview, chart: &Chart) {
    let mut marked: Vec<_> = Color::ALL.into_iter().flat_map(|c| review.worst_of(c, MARKED)).collect();
    marked.sort_by_key(|p| p.ply);
    for p in marked {
        let Some(j) = p.judgement else { continue };
        let (x, y) = (chart.x(p.ply + 1), Chart::y(p.after.win_chances()));
        let label = p.label();
        let size = 12.0;
        let width = measure(&label, size) + 8.0;
        let lx = x.clamp(chart.left + width / 2.0, chart.right - width / 2.0);
        // Below the dot in the upper half, above it in the lower half.
        let ly = if y < Chart::y(0.0) { y + 12.0 } else { y - 12.0 - 18.0 };
        let ly = ly.clamp(CHART_TOP + 2.0, CHART_BOTTOM - 20.0);
        let _ = write!(
            s,
            r##"<rect x="{:.1}" y="{ly:.1}" width="{width:.1}" height="18" rx="4" fill="#1b1410" fill-opacity="0.82" stroke="{}" stroke-width="1.5"/>"##,
            lx - width / 2.0,
            colour(j)
        );
        let _ = write!(
            s,
            r#"<text x="{lx:.1}" y="{:.1}" font-size="{size}" fill="{TEXT}" text-anchor="middle">{}</text>"#,
            ly + 13.5,
            escape_upto(&label, 40)
        );
        let _ = write!(
            s,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="5.5" fill="{}" stroke="#ffffff" stroke-width="1.5"/>"##,
            colour(j)
        );
    }
}
