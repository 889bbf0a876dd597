//! Board pictures: the position as SVG, rasterised to PNG with resvg; and
//! the evaluation graph of a reviewed game ([`eval_graph_png`]).
//!
//! ```
//! use kibitz_render::{BoardOptions, Renderer};
//! use kibitz_rules::{Position, Variant};
//!
//! let pos = Position::new(Variant::by_id("olympic").unwrap());
//! let png = Renderer::shared().board_png(&pos, &BoardOptions::default()).unwrap();
//! assert!(png.starts_with(b"\x89PNG"));
//! ```
//!
//! Everything drawn comes from the embedded images and font, so a picture is
//! the same bytes on every machine.

#![warn(missing_docs)]

mod art;
mod caption;
mod graph;
mod raster;
mod replay;
mod scene;
mod sheets;
mod theme;

pub use art::Art;
pub use graph::{GRAPH_HEIGHT, GRAPH_WIDTH, eval_graph_png, eval_graph_svg};
pub use raster::{RenderError, Renderer};
pub use replay::{FIRST_DELAY_MS, LAST_DELAY_MS, MOVE_DELAY_MS, ReplayOptions};
pub use scene::{BoardOptions, Caption, DEFAULT_SIZE};
pub use sheets::{diagram_svg, legend_svg, piece_svg, powers_diagram_svg};
pub use theme::Theme;
