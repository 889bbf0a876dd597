//! The animated replay of a game: one GIF frame per position, from the start
//! to the end.
//!
//! Rasterising every position whole would be slow, so a replay is built the
//! way a person would redraw a board: the static picture (frame, squares,
//! coordinates, caption) is drawn once, then each move redraws only what it
//! changed. Every square is described by what stands on it and how it is
//! marked (a [`Cell`]: piece, last-move highlight, check, Clash ring and
//! shield); the hands or reserve beside the board by their counts. A square
//! or panel whose description changed is redrawn from the static picture
//! with exactly the layers a board picture has there (highlights, piece
//! images from the renderer's sprite cache, marks), so the last frame is the
//! final board picture, up to the GIF's 255 colours (see [`encode`]). Each
//! frame then holds only the rectangle of pixels that changed, the unchanged
//! ones transparent, and the `gif` crate's encoder compresses it.

mod encode;
mod tiles;

use kibitz_rules::{Color, Game, Move, Piece, Position, Square};
use resvg::tiny_skia::{IntRect, Pixmap, PixmapPaint, Transform};
use resvg::usvg;

use crate::raster::{RenderError, Renderer};
use crate::scene::{BoardOptions, Caption, DEFAULT_SIZE, Layout, Scene};
use tiles::Tiles;

/// How long the first position stays on screen, in milliseconds.
pub const FIRST_DELAY_MS: u16 = 1600;
/// How long each position after a move stays on screen, in milliseconds.
pub const MOVE_DELAY_MS: u16 = 800;
/// How long the final position stays on screen before the replay starts
/// again, in milliseconds.
pub const LAST_DELAY_MS: u16 = 2400;

/// How a replay is drawn.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// Width of the board's squares together, in pixels (default 640).
    pub size: Option<u32>,
    /// Show the board from Black's side.
    pub flip: bool,
    /// The caption strip above the board, the same on every frame (the
    /// players and the result).
    pub caption: Option<Caption>,
}

/// What a square shows: everything a board picture draws inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Cell {
    piece: Option<Piece>,
    /// Highlighted as part of the last move.
    lit: bool,
    /// The glow of a royal piece in check.
    check: bool,
    /// Clash: the ring of an invulnerable piece (CA6, CA9).
    ring: bool,
    /// Clash: a raised shield and its turns left (CA8).
    shield: Option<u8>,
}

/// One position of the replay with its highlights.
struct Still {
    position: Position,
    last_move: Option<(Option<Square>, Square)>,
    touched: Vec<Square>,
}

impl Still {
    fn options(&self, opts: &ReplayOptions) -> BoardOptions {
        BoardOptions {
            size: opts.size,
            flip: opts.flip,
            last_move: self.last_move,
            touched: self.touched.clone(),
            caption: opts.caption.clone(),
            ..BoardOptions::default()
        }
    }

    /// Every square of the board, with what it shows, in a fixed order.
    fn cells(&self) -> Vec<(Square, Cell)> {
        let pos = &self.position;
        let v = pos.variant();
        let lit: Vec<Square> = self
            .last_move
            .into_iter()
            .flat_map(|(from, to)| from.into_iter().chain([to]))
            .chain(self.touched.iter().copied())
            .collect();
        let checked = if pos.is_check() { pos.royal_square(pos.turn()) } else { None };
        let (rings, shields) = if v.armies {
            let shields: Vec<(Square, u8)> = Color::ALL
                .into_iter()
                .filter_map(|c| Some((pos.royal_square(c)?, pos.shield(c).filter(|n| *n > 0)?)))
                .collect();
            (pos.invulnerable().collect::<Vec<Square>>(), shields)
        } else {
            (Vec::new(), Vec::new())
        };
        let mut out = Vec::with_capacity(usize::from(v.width) * usize::from(v.height));
        for r in 0..v.height {
            for f in 0..v.width {
                let Some(s) = Square::from_coords(f, r) else { continue };
                let cell = Cell {
                    piece: pos.piece_at(s),
                    lit: lit.contains(&s),
                    check: checked == Some(s),
                    ring: rings.contains(&s),
                    shield: shields.iter().find(|(k, _)| *k == s).map(|(_, n)| *n),
                };
                out.push((s, cell));
            }
        }
        out
    }

    /// The counts in both hands (or reserves), in the panel's order.
    fn hands(&self) -> Vec<u8> {
        let pos = &self.position;
        let v = pos.variant();
        if !(v.drops || v.grants) {
            return Vec::new();
        }
        Color::ALL
            .into_iter()
            .flat_map(|c| v.hand_order.chars().filter_map(|l| v.piece_index(l)).map(move |i| pos.hand(c, i)))
            .collect()
    }
}

/// A frame's changed pixels: a rectangle of the picture, transparent where
/// the previous frame shows through, and the pixels drawn in it.
pub(crate) struct Patch {
    pub left: u32,
    pub top: u32,
    pub width: u32,
    pub height: u32,
    /// The pixels drawn: their offset in the rectangle (row by row) and
    /// their colour, RGBA. Where two redrawn rectangles overlap a pixel may
    /// come twice, with the same colour.
    pub drawn: Vec<(u32, [u8; 4])>,
    /// Milliseconds on screen.
    pub delay_ms: u16,
}

impl Renderer {
    /// The animated replay of a game from `start` through `moves`: one frame
    /// per position (the start and after each move, each with the last move
    /// highlighted and check marked), as a looping GIF the size of the board
    /// picture. The last frame is the final position's board picture with the
    /// same options, in the GIF's 255 colours.
    ///
    /// Fails with [`RenderError::Move`] if a move cannot be played.
    pub fn replay_gif(&self, start: &Position, moves: &[Move], opts: &ReplayOptions) -> Result<Vec<u8>, RenderError> {
        let (width, height, patches) = self.replay_patches(start, moves, opts)?;
        encode::gif(width, height, &patches)
    }

    /// The frames of [`Renderer::replay_gif`] before colour reduction.
    fn replay_patches(
        &self,
        start: &Position,
        moves: &[Move],
        opts: &ReplayOptions,
    ) -> Result<(u32, u32, Vec<Patch>), RenderError> {
        let variant = start.variant();
        let (layout, _) =
            Layout::new(variant, opts.size.unwrap_or(DEFAULT_SIZE), opts.flip, opts.caption.as_ref(), false);
        let (w, h) = (layout.width, layout.height);

        // The static picture: background and caption.
        let mut fixed = (*self.background(variant.id, &layout, opts.caption.is_some())?).clone();
        let first = Still { position: start.clone(), last_move: None, touched: Vec::new() };
        let scene = Scene::new(start, &first.options(opts), self.theme());
        if !scene.caption.is_empty() {
            self.draw_layer(&mut fixed, &layout, &scene.caption)?;
        }

        // The first frame, whole.
        let mut canvas = fixed.clone();
        let whole = IntRect::from_xywh(0, 0, w, h).ok_or(RenderError::Size(w, h))?;
        self.paint(&mut canvas, &fixed, &scene, &[whole])?;
        let last_index = moves.len();
        let delay = |i: usize| match i {
            i if i == last_index => LAST_DELAY_MS,
            0 => FIRST_DELAY_MS,
            _ => MOVE_DELAY_MS,
        };
        let mut patches =
            vec![Patch { left: 0, top: 0, width: w, height: h, drawn: whole_picture(&canvas), delay_ms: delay(0) }];

        let mut cells = first.cells();
        let mut hands = first.hands();
        let mut tiles = Tiles::new(&layout, &fixed, cells.iter().map(|(s, _)| *s));
        let mut game = Game::from_position(start.clone());
        for (i, m) in moves.iter().enumerate() {
            let mut played = game.position().clone();
            if game.play(*m).is_err() {
                return Err(RenderError::Move(i + 1, played.canonical(m)));
            }
            played = game.position().clone();
            let still =
                Still { position: played, last_move: Some((m.from(), m.to())), touched: game.last_touched().to_vec() };
            let now = still.cells();
            let now_hands = still.hands();
            // Clash's marks reach beyond their squares: while any is on the
            // board (or was), squares are drawn the slow way.
            let plain = |c: &Cell| !c.ring && c.shield.is_none();
            let tiled = now.iter().chain(&cells).all(|(_, c)| plain(c));
            let mut blits = Vec::new();
            let mut dirty = Vec::new();
            for (k, ((s, a), (_, b))) in now.iter().zip(&cells).enumerate() {
                if a == b {
                    continue;
                }
                match tiles.rect(k) {
                    Some(r) if tiled => blits.push((k, *a, r)),
                    _ => dirty.extend(square_rect(&layout, *s)),
                }
            }
            let mut panel = None;
            if now_hands != hands {
                match panel_rect(&layout) {
                    Some(r) if tiled => panel = Some((now_hands.as_slice(), r)),
                    r => dirty.extend(r),
                }
            }
            let scene = Scene::new(&still.position, &still.options(opts), self.theme());
            let frame = Frame { blits: &blits, panel, dirty: &dirty, delay_ms: delay(i + 1) };
            patches.push(self.repaint(&mut canvas, &fixed, &scene, &mut tiles, frame)?);
            cells = now;
            hands = now_hands;
        }
        Ok((w, h, patches))
    }

    /// Redraws what changed in `canvas` for `scene` (tiles, drawn once and
    /// kept, and rectangles drawn from the layers) and returns the pixels
    /// that changed.
    fn repaint(
        &self,
        canvas: &mut Pixmap,
        fixed: &Pixmap,
        scene: &Scene,
        tiles: &mut Tiles,
        frame: Frame<'_>,
    ) -> Result<Patch, RenderError> {
        let mut changes = Changes::new();
        let mut layers = None;
        for &(k, cell, r) in frame.blits {
            if tiles.get(k, cell).is_none() {
                let l = match &layers {
                    Some(l) => l,
                    None => layers.insert(self.layers(scene)?),
                };
                tiles.keep(k, cell, self.part(fixed, scene, l, r)?);
            }
            if let Some(tile) = tiles.get(k, cell) {
                changes.put(canvas, tile, r.x() as usize, r.y() as usize);
            }
        }
        if let Some((hands, r)) = frame.panel {
            if tiles.panel(hands).is_none() {
                let l = match &layers {
                    Some(l) => l,
                    None => layers.insert(self.layers(scene)?),
                };
                tiles.keep_panel(hands, self.part(fixed, scene, l, r)?);
            }
            if let Some(drawn) = tiles.panel(hands) {
                changes.put(canvas, drawn, r.x() as usize, r.y() as usize);
            }
        }
        if !frame.dirty.is_empty() {
            let l = match &layers {
                Some(l) => l,
                None => layers.insert(self.layers(scene)?),
            };
            for r in frame.dirty {
                let part = self.part(fixed, scene, l, *r)?;
                changes.put(canvas, &part, r.x() as usize, r.y() as usize);
            }
        }
        Ok(changes.patch(canvas.width() as usize, frame.delay_ms))
    }

    /// Draws `scene` within `rects` of `canvas`, over the static picture.
    fn paint(&self, canvas: &mut Pixmap, fixed: &Pixmap, scene: &Scene, rects: &[IntRect]) -> Result<(), RenderError> {
        let layers = self.layers(scene)?;
        for r in rects {
            let part = self.part(fixed, scene, &layers, *r)?;
            put(canvas, &part, r.x() as u32, r.y() as u32);
        }
        Ok(())
    }

    /// The layers of `scene` under and over its pieces, parsed.
    fn layers(&self, scene: &Scene) -> Result<Layers, RenderError> {
        let l = &scene.layout;
        let under = (!scene.under.is_empty()).then(|| self.layer(l, &scene.under)).transpose()?;
        let over = (!scene.over.is_empty()).then(|| self.layer(l, &scene.over)).transpose()?;
        Ok(Layers { under, over })
    }

    /// The rectangle `r` of `scene`: the static picture with the layers and
    /// the pieces that meet it.
    fn part(&self, fixed: &Pixmap, scene: &Scene, layers: &Layers, r: IntRect) -> Result<Pixmap, RenderError> {
        let mut part = fixed.clone_rect(r).ok_or(RenderError::Size(r.width(), r.height()))?;
        let shift = Transform::from_translate(-r.x() as f32, -r.y() as f32);
        if let Some(t) = &layers.under {
            render_within(t, shift, &mut part);
        }
        for p in &scene.pieces {
            let px = p.size.round() as u32;
            let (x, y) = (p.x.round() as i32, p.y.round() as i32);
            let meets = x < r.right() && y < r.bottom() && x + px as i32 > r.x() && y + px as i32 > r.y();
            if meets {
                let sprite = self.sprite(p.art, px)?;
                part.draw_pixmap(
                    x - r.x(),
                    y - r.y(),
                    Pixmap::as_ref(&sprite),
                    &PixmapPaint::default(),
                    Transform::identity(),
                    None,
                );
            }
        }
        if let Some(t) = &layers.over {
            render_within(t, shift, &mut part);
        }
        Ok(part)
    }
}

/// A scene's layers under and over the pieces.
struct Layers {
    under: Option<usvg::Tree>,
    over: Option<usvg::Tree>,
}

/// What one move redraws.
struct Frame<'a> {
    /// Squares drawn from tiles: index, look, rectangle.
    blits: &'a [(usize, Cell, IntRect)],
    /// The hands panel, drawn once for each content: the counts and its
    /// rectangle.
    panel: Option<(&'a [u8], IntRect)>,
    /// Rectangles drawn from the layers.
    dirty: &'a [IntRect],
    /// Milliseconds on screen.
    delay_ms: u16,
}

fn render_within(tree: &usvg::Tree, shift: Transform, part: &mut Pixmap) {
    resvg::render(tree, shift, &mut part.as_mut());
}

/// A square's rectangle, two pixels wider each way so that the soft edge
/// of anything drawn on it is redrawn too, within the picture.
fn square_rect(l: &Layout, s: Square) -> Option<IntRect> {
    let (x, y) = l.square_origin(s);
    let pad = 2.0;
    let (x0, y0) = ((x - pad).max(0.0), (y - pad).max(0.0));
    let x1 = (x + l.square + pad).min(l.width as f32);
    let y1 = (y + l.square + pad).min(l.height as f32);
    IntRect::from_ltrb(x0 as i32, y0 as i32, x1 as i32, y1 as i32)
}

/// The hands panel with the frame around it, right of the board.
fn panel_rect(l: &Layout) -> Option<IntRect> {
    if l.panel <= 0.0 {
        return None;
    }
    let x = (l.panel_x() - 1.0).max(0.0) as i32;
    IntRect::from_ltrb(x, l.caption as i32, l.width as i32, l.height as i32)
}

/// Copies `part` into `canvas` at (`x`, `y`), replacing what was there.
fn put(canvas: &mut Pixmap, part: &Pixmap, x: u32, y: u32) {
    let cw = canvas.width() as usize;
    let pw = part.width() as usize;
    let data = canvas.data_mut();
    for (row, src) in part.data().chunks_exact(pw * 4).enumerate() {
        let start = ((y as usize + row) * cw + x as usize) * 4;
        data[start..start + pw * 4].copy_from_slice(src);
    }
}

/// Every pixel of `canvas`, as a patch's drawn pixels.
fn whole_picture(canvas: &Pixmap) -> Vec<(u32, [u8; 4])> {
    canvas.data().chunks_exact(4).enumerate().map(|(i, px)| (i as u32, [px[0], px[1], px[2], px[3]])).collect()
}

/// The pixels a frame changed, found as the redrawn parts are put on the
/// canvas.
struct Changes {
    /// The smallest rectangle holding them: left, top, right, bottom.
    bounds: Option<(usize, usize, usize, usize)>,
    /// Each pixel's offset in the canvas and its new colour, in the order
    /// drawn (a pixel drawn twice comes twice, the later colour last).
    pixels: Vec<(usize, [u8; 4])>,
}

impl Changes {
    fn new() -> Changes {
        Changes { bounds: None, pixels: Vec::new() }
    }

    /// Copies `part` into `canvas` at (`x`, `y`), noting every pixel that
    /// changes.
    fn put(&mut self, canvas: &mut Pixmap, part: &Pixmap, x: usize, y: usize) {
        let cw = canvas.width() as usize;
        let pw = part.width() as usize;
        let data = canvas.pixels_mut();
        for (row, src) in part.pixels().chunks_exact(pw).enumerate() {
            let start = (y + row) * cw + x;
            let Some(dst) = data.get_mut(start..start + pw) else { continue };
            let Some(first) = dst.iter().zip(src).position(|(a, b)| a != b) else { continue };
            let last = dst.iter().zip(src).rposition(|(a, b)| a != b).unwrap_or(first);
            for (i, (a, b)) in dst.iter().zip(src).enumerate().take(last + 1).skip(first) {
                if a != b {
                    self.pixels.push((start + i, [b.red(), b.green(), b.blue(), b.alpha()]));
                }
            }
            dst.copy_from_slice(src);
            let (l, r, t) = (x + first, x + last + 1, y + row);
            self.bounds = Some(match self.bounds {
                None => (l, t, r, t + 1),
                Some((x0, y0, x1, y1)) => (x0.min(l), y0.min(t), x1.max(r), y1.max(t + 1)),
            });
        }
    }

    /// The frame's patch on a canvas `cw` pixels wide.
    fn patch(self, cw: usize, delay_ms: u16) -> Patch {
        let Some((x0, y0, x1, y1)) = self.bounds else {
            return Patch { left: 0, top: 0, width: 1, height: 1, drawn: Vec::new(), delay_ms };
        };
        let pw = x1 - x0;
        let drawn =
            self.pixels.into_iter().map(|(at, px)| ((((at / cw) - y0) * pw + at % cw - x0) as u32, px)).collect();
        Patch { left: x0 as u32, top: y0 as u32, width: pw as u32, height: (y1 - y0) as u32, drawn, delay_ms }
    }
}
