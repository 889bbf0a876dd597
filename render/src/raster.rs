//! From scenes to PNG: resvg, with what can be cached kept.
//!
//! The background of a board (frame, squares, coordinates) and each piece
//! image at each size are rasterised once and kept; a picture is then the
//! background copied, the highlights drawn, the piece images composited, and
//! the overlays drawn, each layer by resvg from the scene's SVG.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use kibitz_rules::Position;
use resvg::tiny_skia::{Pixmap, PixmapPaint, Transform};
use resvg::usvg;
use thiserror::Error;

use crate::art::{self, Art};
use crate::scene::{self, BoardOptions, Layout, Scene};
use crate::theme::Theme;

/// Why a picture could not be made.
#[derive(Debug, Error)]
pub enum RenderError {
    /// The SVG could not be read (a bug: the scenes are generated).
    #[error("the picture could not be drawn: {0}")]
    Svg(#[from] usvg::Error),
    /// The requested size is impossible.
    #[error("a picture of {0}x{1} pixels cannot be made")]
    Size(u32, u32),
    /// PNG encoding failed.
    #[error("the picture could not be encoded: {0}")]
    Png(#[from] png::EncodingError),
    /// GIF encoding failed.
    #[error("the animation could not be encoded: {0}")]
    Gif(#[from] gif::EncodingError),
    /// Move number `.0` (from 1), written `.1`, cannot be played where it
    /// stands.
    #[error("move {0} ({1}) cannot be played")]
    Move(usize, String),
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct BackgroundKey {
    variant: &'static str,
    width: u32,
    height: u32,
    flip: bool,
    caption: bool,
}

/// Draws pictures and keeps what it can reuse. Cheap to share: one per
/// process is enough ([`Renderer::shared`]).
pub struct Renderer {
    theme: Theme,
    options: usvg::Options<'static>,
    backgrounds: Mutex<HashMap<BackgroundKey, Arc<Pixmap>>>,
    sprites: Mutex<HashMap<(Art, u32), Arc<Pixmap>>>,
}

impl Default for Renderer {
    fn default() -> Renderer {
        Renderer::new(Theme::default())
    }
}

impl Renderer {
    /// A renderer with its own caches.
    pub fn new(theme: Theme) -> Renderer {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(art::FONT.to_vec());
        let options = usvg::Options {
            font_family: art::FONT_FAMILY.to_string(),
            fontdb: Arc::new(db),
            ..usvg::Options::default()
        };
        Renderer { theme, options, backgrounds: Mutex::default(), sprites: Mutex::default() }
    }

    /// The process-wide renderer with the default theme.
    pub fn shared() -> &'static Renderer {
        static SHARED: LazyLock<Renderer> = LazyLock::new(Renderer::default);
        &SHARED
    }

    /// The theme pictures are drawn with.
    pub fn theme(&self) -> &Theme {
        &self.theme
    }

    /// The board picture as one SVG document.
    pub fn board_svg(&self, pos: &Position, opts: &BoardOptions) -> String {
        Scene::new(pos, opts, &self.theme).svg(&self.theme)
    }

    /// The board picture as PNG.
    pub fn board_png(&self, pos: &Position, opts: &BoardOptions) -> Result<Vec<u8>, RenderError> {
        encode_png(&self.board_pixmap(pos, opts)?)
    }

    pub(crate) fn board_pixmap(&self, pos: &Position, opts: &BoardOptions) -> Result<Pixmap, RenderError> {
        let scene = Scene::new(pos, opts, &self.theme);
        let l = &scene.layout;
        let mut pixmap = (*self.background(pos.variant().id, l, opts.caption.is_some())?).clone();
        if !scene.under.is_empty() {
            self.draw_layer(&mut pixmap, l, &scene.under)?;
        }
        for p in &scene.pieces {
            let sprite = self.sprite(p.art, p.size.round() as u32)?;
            pixmap.draw_pixmap(
                p.x.round() as i32,
                p.y.round() as i32,
                Pixmap::as_ref(&sprite),
                &PixmapPaint::default(),
                Transform::identity(),
                None,
            );
        }
        if !scene.over.is_empty() || !scene.caption.is_empty() {
            self.draw_layer(&mut pixmap, l, &format!("{}{}", scene.over, scene.caption))?;
        }
        Ok(pixmap)
    }

    /// Rasterises any SVG document with the embedded font.
    pub fn svg_png(&self, svg: &str) -> Result<Vec<u8>, RenderError> {
        let tree = usvg::Tree::from_str(svg, &self.options)?;
        let size = tree.size().to_int_size();
        let mut pixmap =
            Pixmap::new(size.width(), size.height()).ok_or(RenderError::Size(size.width(), size.height()))?;
        resvg::render(&tree, Transform::identity(), &mut pixmap.as_mut());
        encode_png(&pixmap)
    }

    pub(crate) fn background(
        &self,
        variant: &'static str,
        l: &Layout,
        caption: bool,
    ) -> Result<Arc<Pixmap>, RenderError> {
        let key = BackgroundKey { variant, width: l.width, height: l.height, flip: l.flip, caption };
        if let Some(p) = lock(&self.backgrounds).get(&key) {
            return Ok(p.clone());
        }
        let mut pixmap = Pixmap::new(l.width, l.height).ok_or(RenderError::Size(l.width, l.height))?;
        self.draw_layer(&mut pixmap, l, &Scene::background(l, &self.theme))?;
        let pixmap = Arc::new(pixmap);
        lock(&self.backgrounds).insert(key, pixmap.clone());
        Ok(pixmap)
    }

    pub(crate) fn sprite(&self, art: Art, px: u32) -> Result<Arc<Pixmap>, RenderError> {
        if let Some(p) = lock(&self.sprites).get(&(art, px)) {
            return Ok(p.clone());
        }
        let tree = usvg::Tree::from_str(art.document(), &self.options)?;
        let px = px.max(1);
        let mut pixmap = Pixmap::new(px, px).ok_or(RenderError::Size(px, px))?;
        let scale = px as f32 / tree.size().width();
        resvg::render(&tree, Transform::from_scale(scale, scale), &mut pixmap.as_mut());
        let pixmap = Arc::new(pixmap);
        lock(&self.sprites).insert((art, px), pixmap.clone());
        Ok(pixmap)
    }

    /// Draws SVG elements (in picture coordinates) over the pixmap.
    pub(crate) fn draw_layer(&self, pixmap: &mut Pixmap, l: &Layout, elements: &str) -> Result<(), RenderError> {
        let tree = self.layer(l, elements)?;
        resvg::render(&tree, Transform::identity(), &mut pixmap.as_mut());
        Ok(())
    }

    /// SVG elements (in picture coordinates) as a tree the size of the picture.
    pub(crate) fn layer(&self, l: &Layout, elements: &str) -> Result<usvg::Tree, RenderError> {
        let doc = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="{}" font-weight="bold">{}{elements}</svg>"#,
            l.width,
            l.height,
            art::FONT_FAMILY,
            scene::defs(&self.theme),
        );
        Ok(usvg::Tree::from_str(&doc, &self.options)?)
    }
}

/// A poisoned cache is still a valid cache: its entries are written whole.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Encodes an opaque pixmap as an RGB PNG.
pub(crate) fn encode_png(pixmap: &Pixmap) -> Result<Vec<u8>, RenderError> {
    let rgb: Vec<u8> = pixmap.data().chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
    let mut out = Vec::with_capacity(rgb.len() / 8);
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgb)?;
    writer.finish()?;
    Ok(out)
}
