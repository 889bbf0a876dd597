//! A replay's frames as a GIF: one palette for the whole replay, learnt
//! once by NeuQuant from the first frame and every change after it, and each
//! frame written as its changed rectangle over the frame before, compressed
//! by the `gif` crate's encoder (the frames on several cores at once).
//!
//! The palette holds 255 colours and keeps index 255 for "unchanged"
//! (transparent). The board's flat colours come out exact or within a step
//! or two of each channel; the soft edges of pieces and glows are where the
//! quantisation shows, as it does in any GIF.

use color_quant::NeuQuant;

use super::Patch;
use crate::raster::RenderError;

/// The palette index of unchanged pixels.
const TRANSPARENT: u8 = 255;

/// How many pixels NeuQuant learns from at most: enough for the few colours
/// of a board, few enough to learn in milliseconds.
const LEARN_PIXELS: usize = 60_000;

/// Encodes the frames (the first one whole) as a GIF that loops forever.
pub(super) fn gif(width: u32, height: u32, patches: &[Patch]) -> Result<Vec<u8>, RenderError> {
    let (w, h) = (dim(width)?, dim(height)?);
    let quant = palette(patches);
    let mut colors = quant.color_map_rgb();
    colors.resize(256 * 3, 0);
    let mut lookup = Lookup::new(&quant);
    // Each frame as palette indices, unchanged pixels transparent.
    let mut frames = Vec::with_capacity(patches.len());
    for p in patches {
        let mut pixels = vec![TRANSPARENT; p.width as usize * p.height as usize];
        for &(at, px) in &p.drawn {
            if let Some(slot) = pixels.get_mut(at as usize) {
                *slot = lookup.index(px);
            }
        }
        frames.push(gif::Frame {
            left: dim(p.left)?,
            top: dim(p.top)?,
            width: dim(p.width)?,
            height: dim(p.height)?,
            delay: p.delay_ms / 10,
            dispose: gif::DisposalMethod::Keep,
            transparent: Some(TRANSPARENT),
            buffer: pixels.into(),
            ..gif::Frame::default()
        });
    }
    compress(&mut frames);
    let mut out = Vec::new();
    {
        let mut encoder = gif::Encoder::new(&mut out, w, h, &colors)?;
        encoder.set_repeat(gif::Repeat::Infinite)?;
        for frame in &frames {
            encoder.write_lzw_pre_encoded_frame(frame)?;
        }
    }
    Ok(out)
}

/// Compresses `frames` with the `gif` crate's LZW encoder
/// ([`gif::Frame::make_lzw_pre_encoded`]), on as many threads as there are
/// cores (at most four), each taking a run of frames with about the same
/// number of pixels. The compression is most of a replay's work, and the
/// frames are independent of each other.
fn compress(frames: &mut [gif::Frame<'static>]) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
    let total: usize = frames.iter().map(|f| f.buffer.len()).sum();
    if threads == 1 || frames.len() < 2 || total < 1 << 16 {
        frames.iter_mut().for_each(gif::Frame::make_lzw_pre_encoded);
        return;
    }
    let share = total.div_ceil(threads);
    std::thread::scope(|scope| {
        let mut rest = frames;
        while !rest.is_empty() {
            // The shortest run of frames that holds a share of the pixels.
            let mut size = 0;
            let take = rest
                .iter()
                .take_while(|f| {
                    let before = size;
                    size += f.buffer.len();
                    before < share
                })
                .count();
            let (run, after) = rest.split_at_mut(take.max(1));
            rest = after;
            scope.spawn(move || run.iter_mut().for_each(gif::Frame::make_lzw_pre_encoded));
        }
    });
}

/// Palette indices of colours, remembered in a small table: a board has few
/// distinct colours, so nearly every lookup is one probe.
struct Lookup<'a> {
    quant: &'a NeuQuant,
    /// Slot by hash of the colour: the colour (with its alpha byte set, so
    /// 0 means empty) and its index.
    slots: Vec<(u32, u8)>,
    /// The last colour looked up, for runs of one colour.
    last: (u32, u8),
}

impl<'a> Lookup<'a> {
    const BITS: u32 = 13;

    fn new(quant: &'a NeuQuant) -> Lookup<'a> {
        Lookup { quant, slots: vec![(0, 0); 1 << Self::BITS], last: (0, TRANSPARENT) }
    }

    /// The index of an RGBA pixel: [`TRANSPARENT`] if its alpha is 0.
    fn index(&mut self, px: [u8; 4]) -> u8 {
        if px[3] == 0 {
            return TRANSPARENT;
        }
        let key = u32::from_le_bytes([px[0], px[1], px[2], 255]);
        if self.last.0 == key {
            return self.last.1;
        }
        let slot = (key.wrapping_mul(0x9E37_79B1) >> (32 - Self::BITS)) as usize;
        let (k, i) = self.slots[slot];
        let i = if k == key {
            i
        } else {
            let i = self.quant.index_of(&[px[0], px[1], px[2], 255]) as u8;
            self.slots[slot] = (key, i);
            i
        };
        self.last = (key, i);
        i
    }
}

fn dim(n: u32) -> Result<u16, RenderError> {
    u16::try_from(n).map_err(|_| RenderError::Size(n, n))
}

/// 255 colours for every pixel the frames show, learnt from about
/// [`LEARN_PIXELS`] of them.
fn palette(patches: &[Patch]) -> NeuQuant {
    let drawn: usize = patches.iter().map(|p| p.drawn.len()).sum();
    let step = drawn.div_ceil(LEARN_PIXELS).max(1);
    let mut sample = Vec::with_capacity(LEARN_PIXELS * 4 + 4);
    for (_, px) in patches.iter().flat_map(|p| &p.drawn).step_by(step) {
        sample.extend_from_slice(&[px[0], px[1], px[2], 255]);
    }
    if sample.is_empty() {
        sample.extend_from_slice(&[0, 0, 0, 255]);
    }
    NeuQuant::new(10, 255, &sample)
}
