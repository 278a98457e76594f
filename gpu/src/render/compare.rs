//! Comparing a capture against a golden: a tolerance on the mean and on a high percentile of
//! the per-pixel error, never a byte hash (drivers round differently).

use crate::{GpuError, Result, RgbaImage};

/// How far two pictures differ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImageDiff {
    /// Mean over pixels of the largest channel difference, in [0, 1].
    pub mean: f64,
    /// The 99th percentile of the same.
    pub p99: f64,
    /// The largest.
    pub max: f64,
}

impl ImageDiff {
    /// Whether the difference is within `mean` and `p99`.
    pub fn within(&self, mean: f64, p99: f64) -> bool {
        self.mean <= mean && self.p99 <= p99
    }
}

/// Compares two pictures of one size (RGB; alpha ignored). `None` when the sizes differ.
pub fn compare(a: &RgbaImage, b: &RgbaImage) -> Option<ImageDiff> {
    if a.width != b.width || a.height != b.height || a.pixels.len() != b.pixels.len() {
        return None;
    }
    let mut hist = [0u64; 256];
    let mut sum = 0u64;
    let mut n = 0u64;
    for (p, q) in a.pixels.chunks_exact(4).zip(b.pixels.chunks_exact(4)) {
        let d = (0..3).map(|k| p[k].abs_diff(q[k])).max().unwrap_or(0);
        hist[d as usize] += 1;
        sum += u64::from(d);
        n += 1;
    }
    let n = n.max(1);
    let target = (n as f64 * 0.99).ceil() as u64;
    let mut acc = 0;
    let mut p99 = 0;
    for (v, c) in hist.iter().enumerate() {
        acc += c;
        if acc >= target {
            p99 = v;
            break;
        }
    }
    let max = hist.iter().rposition(|c| *c > 0).unwrap_or(0);
    Some(ImageDiff {
        mean: sum as f64 / n as f64 / 255.0,
        p99: p99 as f64 / 255.0,
        max: max as f64 / 255.0,
    })
}

/// Decodes an 8-bit RGB or RGBA PNG.
pub fn decode_png(bytes: &[u8]) -> Result<RgbaImage> {
    let bad = |e: String| GpuError::Invalid {
        what: "png",
        reason: e,
    };
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().map_err(|e| bad(e.to_string()))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| bad("image too large".into()))?;
    let mut buf = vec![0u8; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| bad(e.to_string()))?;
    let (w, h) = (info.width, info.height);
    let pixels = match (info.color_type, info.bit_depth) {
        (png::ColorType::Rgba, png::BitDepth::Eight) => buf[..w as usize * h as usize * 4].to_vec(),
        (png::ColorType::Rgb, png::BitDepth::Eight) => buf[..w as usize * h as usize * 3]
            .chunks_exact(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        (c, d) => {
            return Err(bad(format!(
                "{c:?} at {d:?} bits; only 8-bit RGB(A) is read"
            )))
        }
    };
    Ok(RgbaImage {
        width: w,
        height: h,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_statistics_and_png_round_trip() {
        let a = RgbaImage {
            width: 10,
            height: 10,
            pixels: vec![100; 400],
        };
        let mut b = a.clone();
        b.pixels[0] = 200; // one pixel off by 100
        let d = compare(&a, &b).unwrap_or(ImageDiff {
            mean: 1.0,
            p99: 1.0,
            max: 1.0,
        });
        assert!((d.max - 100.0 / 255.0).abs() < 1e-9);
        assert_eq!(d.p99, 0.0);
        assert!(d.mean > 0.0 && d.within(0.01, 0.01));
        let png = crate::encode_png(10, 10, &b.pixels).unwrap_or_default();
        let back = decode_png(&png).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, b);
        assert!(compare(
            &a,
            &RgbaImage {
                width: 5,
                height: 20,
                pixels: vec![0; 400]
            }
        )
        .is_none());
    }
}
