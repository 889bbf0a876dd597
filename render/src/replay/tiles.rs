//! Square tiles: the picture of one square with what stands on it, drawn
//! once per replay for each distinct look and then copied into every frame
//! that shows it.
//!
//! Two squares share tiles when their static pictures are the same (the
//! light squares without a coordinate, say), so a game needs few tiles: a
//! piece on a light square, the same piece highlighted, and so on. Only
//! squares whose edges fall on whole pixels are tiles; marks that reach
//! beyond their square (Clash's ring and shield count) are drawn the slow
//! way instead, see `Renderer::replay_patches`. The hands panel beside the
//! board is kept the same way, by the counts it shows.

use std::collections::HashMap;

use kibitz_rules::Square;
use resvg::tiny_skia::{IntRect, Pixmap};

use super::Cell;
use crate::scene::Layout;

/// The tiles of one replay.
pub(super) struct Tiles {
    /// Each square's rectangle (in the order of `Still::cells`) and the
    /// class of its static picture; `None` for a square that is no tile.
    squares: Vec<Option<(IntRect, usize)>>,
    drawn: HashMap<(usize, Cell), Pixmap>,
    /// The hands panel, by the counts it shows.
    panels: HashMap<Vec<u8>, Pixmap>,
}

impl Tiles {
    /// The squares of `squares`, classed by their pixels in `fixed`.
    pub(super) fn new(layout: &Layout, fixed: &Pixmap, squares: impl Iterator<Item = Square>) -> Tiles {
        let mut looks: Vec<Pixmap> = Vec::new();
        let squares = squares
            .map(|s| {
                let (x, y) = layout.square_origin(s);
                let size = layout.square;
                if x.fract() != 0.0 || y.fract() != 0.0 || size.fract() != 0.0 {
                    return None;
                }
                let rect = IntRect::from_xywh(x as i32, y as i32, size as u32, size as u32)?;
                let look = fixed.clone_rect(rect)?;
                let class = match looks.iter().position(|l| l.data() == look.data()) {
                    Some(c) => c,
                    None => {
                        looks.push(look);
                        looks.len() - 1
                    }
                };
                Some((rect, class))
            })
            .collect();
        Tiles { squares, drawn: HashMap::new(), panels: HashMap::new() }
    }

    /// The rectangle of the square at `index`, if it is a tile.
    pub(super) fn rect(&self, index: usize) -> Option<IntRect> {
        self.squares.get(index).copied().flatten().map(|(r, _)| r)
    }

    /// The tile of the square at `index` showing `cell`, if drawn before.
    pub(super) fn get(&self, index: usize, cell: Cell) -> Option<&Pixmap> {
        let (_, class) = self.squares.get(index).copied().flatten()?;
        self.drawn.get(&(class, cell))
    }

    /// Keeps the tile of the square at `index` showing `cell`.
    pub(super) fn keep(&mut self, index: usize, cell: Cell, tile: Pixmap) {
        if let Some((_, class)) = self.squares.get(index).copied().flatten() {
            self.drawn.insert((class, cell), tile);
        }
    }

    /// The hands panel showing `hands`, if drawn before.
    pub(super) fn panel(&self, hands: &[u8]) -> Option<&Pixmap> {
        self.panels.get(hands)
    }

    /// Keeps the hands panel showing `hands`.
    pub(super) fn keep_panel(&mut self, hands: &[u8], panel: Pixmap) {
        self.panels.insert(hands.to_vec(), panel);
    }
}
