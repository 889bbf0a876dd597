//! GIF's LZW compression of 8-bit palette indices, written for the replay's
//! frames: most of a frame is long runs of the transparent index, matched in
//! one step each, and the dictionary is a small open-addressing hash table
//! (32 KB, so that it stays in the processor's nearest cache).

/// Codes 0..=255 are the indices themselves.
const MIN_CODE_SIZE: u8 = 8;
const CLEAR: u16 = 256;
const END: u16 = 257;
const FIRST_FREE: u16 = 258;
/// GIF codes are at most 12 bits wide.
const MAX_CODES: u16 = 4096;
/// Slots in the dictionary's table: twice the most entries it holds.
const TABLE_BITS: u32 = 13;

/// An LZW encoder whose dictionary is reused from frame to frame.
pub(super) struct Lzw {
    /// Entries by hash of their key (a string's code and the index that
    /// follows it, `code << 8 | index`, 20 bits): `key << 12 | child`, where
    /// `child` is the code of the longer string; 0 is an empty slot
    /// (children are at least 258).
    table: Vec<u32>,
}

impl Lzw {
    pub(super) fn new() -> Lzw {
        Lzw { table: vec![0; 1 << TABLE_BITS] }
    }

    fn forget(&mut self) {
        self.table.fill(0);
    }

    /// The code of `code`'s string followed by `index`, or the empty slot
    /// where it would go.
    fn find(&self, code: u16, index: u8) -> Result<u16, usize> {
        let key = u32::from(code) << 8 | u32::from(index);
        let mask = (1 << TABLE_BITS) - 1;
        let mut slot = (key.wrapping_mul(0x9E37_79B1) >> (32 - TABLE_BITS)) as usize;
        loop {
            let e = self.table[slot];
            if e == 0 {
                return Err(slot);
            }
            if e >> 12 == key {
                return Ok((e & 0xFFF) as u16);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The LZW data of `pixels` for [`gif::Encoder::write_lzw_pre_encoded_frame`]:
    /// the minimum code size, then the code stream (clear code first, end
    /// code last). Runs of `run` (the transparent index) skip the table: the
    /// codes of `run` repeated 1, 2, 3... times are kept in a list, so a run
    /// is matched in one step, exactly as the table would match it.
    pub(super) fn encode(&mut self, pixels: &[u8], run: u8) -> Vec<u8> {
        self.forget();
        let mut out = Bits { bytes: Vec::with_capacity(pixels.len() / 8 + 16), acc: 0, used: 0 };
        out.bytes.push(MIN_CODE_SIZE);
        let mut width = u32::from(MIN_CODE_SIZE) + 1;
        let mut next = FIRST_FREE;
        out.put(CLEAR, width);
        let Some(&first) = pixels.first() else {
            out.put(END, width);
            return out.finish();
        };
        // `runs[k - 1]`: the code of `run` repeated k times.
        let mut runs: Vec<u16> = vec![u16::from(run)];
        let mut current = u16::from(first);
        // How many times `run` is repeated in the current string, if that is
        // all it holds; else 0.
        let mut run_len = usize::from(first == run);
        let mut i = 1;
        while i < pixels.len() {
            let p = pixels[i];
            if run_len > 0 && p == run && run_len < runs.len() {
                let room = runs.len() - run_len;
                let ahead = pixels[i..].iter().take(room).take_while(|&&q| q == run).count();
                run_len += ahead;
                current = runs[run_len - 1];
                i += ahead;
                continue;
            }
            let slot = match self.find(current, p) {
                Ok(child) => {
                    current = child;
                    run_len = 0;
                    i += 1;
                    continue;
                }
                Err(slot) => slot,
            };
            out.put(current, width);
            if next == 1 << width && width < 12 {
                width += 1;
            }
            if next < MAX_CODES {
                self.table[slot] = (u32::from(current) << 8 | u32::from(p)) << 12 | u32::from(next);
                if run_len > 0 && p == run {
                    runs.push(next);
                }
                next += 1;
            } else {
                out.put(CLEAR, width);
                self.forget();
                runs.truncate(1);
                width = u32::from(MIN_CODE_SIZE) + 1;
                next = FIRST_FREE;
            }
            current = u16::from(p);
            run_len = usize::from(p == run);
            i += 1;
        }
        out.put(current, width);
        if next == 1 << width && width < 12 {
            width += 1;
        }
        out.put(END, width);
        out.finish()
    }
}

/// Codes packed least significant bit first.
struct Bits {
    bytes: Vec<u8>,
    acc: u64,
    used: u32,
}

impl Bits {
    fn put(&mut self, code: u16, width: u32) {
        self.acc |= u64::from(code) << self.used;
        self.used += width;
        while self.used >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.used -= 8;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.used > 0 {
            self.bytes.push(self.acc as u8);
        }
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::Lzw;

    /// Decodes with the `gif` crate's own decoder (weezl) by wrapping the
    /// stream in a one-frame GIF.
    fn round_trip(pixels: &[u8], w: u16, h: u16) -> Vec<u8> {
        let mut lzw = Lzw::new();
        let data = lzw.encode(pixels, 255);
        let palette: Vec<u8> = (0..=255u8).flat_map(|i| [i, i, i]).collect();
        let mut gif = Vec::new();
        {
            let mut e = gif::Encoder::new(&mut gif, w, h, &palette).unwrap();
            let frame = gif::Frame { width: w, height: h, buffer: data.into(), ..gif::Frame::default() };
            e.write_lzw_pre_encoded_frame(&frame).unwrap();
        }
        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::Indexed);
        let mut d = opts.read_info(gif.as_slice()).unwrap();
        let f = d.read_next_frame().unwrap().unwrap();
        f.buffer.to_vec()
    }

    #[test]
    fn decodes_to_the_same_indices() {
        // Runs of one index, noise, and enough data to fill the dictionary
        // many times over (clear codes and every code width).
        let mut rng = 12345u32;
        let mut pixels = Vec::new();
        for i in 0..300_000u32 {
            rng = rng.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let p = match (i / 5000) % 3 {
                0 => 255,
                1 if i % 7 == 0 => 255,
                1 => (rng >> 16) as u8,
                _ => ((rng >> 16) % 7) as u8,
            };
            pixels.push(p);
        }
        assert_eq!(round_trip(&pixels, 600, 500), pixels);
        assert_eq!(round_trip(&[7], 1, 1), vec![7]);
        // Short and long runs between other indices.
        let mixed: Vec<u8> =
            (0..200_000u32).map(|i| if (i / 3) % 11 == 0 || i % 997 < 400 { 1 } else { 255 }).collect();
        assert_eq!(round_trip(&mixed, 400, 500), mixed);
        let flat = vec![255u8; 640 * 700];
        assert_eq!(round_trip(&flat, 640, 700), flat);
    }
}
