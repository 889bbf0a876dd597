//! A replay's frames as a GIF: one palette for the whole replay, learnt
//! once by NeuQuant from the first frame and every change after it, and each
//! frame written as its changed rectangle over the frame before.
//!
//! The palette holds 255 colours and keeps index 255 for "unchanged"
//! (transparent). The board's flat colours come out exact or within a step
//! or two of each channel; the soft edges of pieces and glows are where the
//! quantisation shows, as it does in any GIF.

use std::collections::HashMap;

use color_quant::NeuQuant;

use super::Patch;
use super::lzw::Lzw;
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
    let mut index: HashMap<[u8; 3], u8> = HashMap::new();

    let mut lzw = Lzw::new();
    let mut out = Vec::new();
    {
        let mut encoder = gif::Encoder::new(&mut out, w, h, &colors)?;
        encoder.set_repeat(gif::Repeat::Infinite)?;
        for p in patches {
            // Runs of one colour are the rule (squares, frame, unchanged
            // pixels), so the last colour's index is kept at hand.
            let mut last = ([0u8; 3], TRANSPARENT);
            let pixels: Vec<u8> = p
                .rgba
                .chunks_exact(4)
                .map(|px| {
                    if px[3] == 0 {
                        return TRANSPARENT;
                    }
                    let rgb = [px[0], px[1], px[2]];
                    if last.1 != TRANSPARENT && last.0 == rgb {
                        return last.1;
                    }
                    let i = *index.entry(rgb).or_insert_with(|| quant.index_of(&[px[0], px[1], px[2], 255]) as u8);
                    last = (rgb, i);
                    i
                })
                .collect();
            let frame = gif::Frame {
                left: dim(p.left)?,
                top: dim(p.top)?,
                width: dim(p.width)?,
                height: dim(p.height)?,
                delay: p.delay_ms / 10,
                dispose: gif::DisposalMethod::Keep,
                transparent: Some(TRANSPARENT),
                buffer: lzw.encode(&pixels, TRANSPARENT).into(),
                ..gif::Frame::default()
            };
            encoder.write_lzw_pre_encoded_frame(&frame)?;
        }
    }
    Ok(out)
}

fn dim(n: u32) -> Result<u16, RenderError> {
    u16::try_from(n).map_err(|_| RenderError::Size(n, n))
}

/// 255 colours for every pixel the frames show.
fn palette(patches: &[Patch]) -> NeuQuant {
    let opaque: usize = patches.iter().map(|p| p.rgba.chunks_exact(4).filter(|px| px[3] != 0).count()).sum();
    let step = opaque.div_ceil(LEARN_PIXELS).max(1);
    let mut sample = Vec::with_capacity(opaque / step * 4 + 4);
    let opaque_pixels = patches.iter().flat_map(|p| p.rgba.chunks_exact(4)).filter(|px| px[3] != 0);
    for px in opaque_pixels.step_by(step) {
        sample.extend_from_slice(px);
    }
    if sample.is_empty() {
        sample.extend_from_slice(&[0, 0, 0, 255]);
    }
    NeuQuant::new(10, 255, &sample)
}
