//! Board pictures (SVG rasterised to PNG).
//!
//! Nothing is drawn yet: this crate is reserved for the renderer, which the
//! bot will use once it exists. It deliberately exports nothing, so that no
//! caller can mistake it for a working renderer.
