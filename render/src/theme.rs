//! Colours of the picture.

/// The colours a picture is drawn with (SVG colour strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Light squares.
    pub light: &'static str,
    /// Dark squares.
    pub dark: &'static str,
    /// The frame around the board (where the coordinates are).
    pub frame: &'static str,
    /// Coordinate letters and digits.
    pub coordinates: &'static str,
    /// The caption strip.
    pub caption: &'static str,
    /// Caption text.
    pub caption_text: &'static str,
    /// Squares of the last move.
    pub last_move: &'static str,
    /// The square whose moves are shown.
    pub selected: &'static str,
    /// The glow under a king in check.
    pub check: &'static str,
    /// Dots and rings on target squares.
    pub dot: &'static str,
    /// Hint arrows.
    pub arrow: &'static str,
    /// Count badges in hands.
    pub badge: &'static str,
    /// Text on badges.
    pub badge_text: &'static str,
    /// The badge on a promoted piece.
    pub promoted: &'static str,
    /// The panel holding the hands.
    pub panel: &'static str,
}

impl Default for Theme {
    fn default() -> Theme {
        Theme {
            light: "#eed8b4",
            dark: "#b48764",
            frame: "#3b2f27",
            coordinates: "#e9dcc8",
            caption: "#2a211b",
            caption_text: "#f3ead9",
            last_move: "rgba(214,222,96,0.62)",
            selected: "rgba(90,160,220,0.55)",
            check: "#e0281e",
            dot: "rgba(30,40,30,0.42)",
            arrow: "rgba(40,150,70,0.78)",
            badge: "#2b2b2b",
            badge_text: "#ffffff",
            promoted: "#c0392b",
            panel: "#5a4636",
        }
    }
}
