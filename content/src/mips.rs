//! Mip chains for material textures, and the `.dhmip` file that caches one on disk.
//!
//! A chain is generated on load with the filter the material needs ([`MipFilter`]):
//! - [`MipFilter::Box`]: each texel of a level is the mean of the 2x2 texels above it, the
//!   colour averaged in linear light (sRGB decoded, averaged, encoded again) so a black and
//!   white checker fades to the grey it looks like, not to a darker one; alpha averaged as is.
//! - [`MipFilter::Coverage`] (an `alphaMode: "mask"` material): the same reduction, then each
//!   level's alpha scaled so the fraction of its texels at or above `alphaCutoff` is the top
//!   level's (the coverage-preserving scale of Castaño, "Computing Alpha Mipmaps"), so a
//!   cutout does not thin away with distance.
//!
//! A level is half the one above on each edge, rounded down, never below 1; the chain goes
//! to 1x1. An odd edge's last texel is read twice (its footprint clamps at the edge).
//!
//! The cache key ([`chain_key`]) is SHA-256 of the source pixels, the dimensions and the
//! filter (003 "On-disk cache"). The file ([`encode_dhmip`], [`decode_dhmip`]) holds the
//! levels below the top (the top is the source itself):
//!
//! ```text
//! offset  size  field
//! 0       8     magic "DHMIP\r\n\x1a"
//! 8       4     version, u32 little-endian (1)
//! 12      4     width of level 0, u32 LE (1 to MAX_EDGE)
//! 16      4     height of level 0, u32 LE (1 to MAX_EDGE)
//! 20      4     format, u32 LE (1 = RGBA8 sRGB, 4 bytes a texel)
//! 24      4     level count including level 0, u32 LE (the full chain for the size)
//! 28      ...   levels 1 to count-1, each width x height x 4 bytes, rows top to bottom
//! ```
//!
//! The reader checks every header field and the exact file length before it allocates, so
//! no byte string makes it panic or allocate past the largest chain (the `dhmip` fuzz
//! target, `fuzz/corpus/dhmip/`).

use sha2::{Digest, Sha256};

use crate::texture::MAX_EDGE;

/// The `.dhmip` magic.
pub const DHMIP_MAGIC: [u8; 8] = *b"DHMIP\r\n\x1a";
/// The `.dhmip` version this build writes and reads.
pub const DHMIP_VERSION: u32 = 1;
/// The `.dhmip` format code of RGBA8 sRGB texels.
pub const DHMIP_FORMAT_RGBA8_SRGB: u32 = 1;
/// The `.dhmip` header's length in bytes.
pub const DHMIP_HEADER: usize = 28;

/// How a texture's levels are reduced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MipFilter {
    /// The 2x2 box, colour in linear light.
    Box,
    /// The box, then alpha scaled per level to keep the coverage at `cutoff` (0 to 1).
    Coverage {
        /// The material's `alphaCutoff`.
        cutoff: f32,
    },
}

impl MipFilter {
    /// The filter's bytes in the cache key (the cutoff's bits for a coverage filter).
    pub fn key_bytes(self) -> Vec<u8> {
        match self {
            MipFilter::Box => b"box".to_vec(),
            MipFilter::Coverage { cutoff } => {
                let mut v = b"coverage".to_vec();
                v.extend_from_slice(&cutoff.to_bits().to_le_bytes());
                v
            }
        }
    }
}

/// The number of levels in a full chain for `width` x `height`, level 0 included (1 for a
/// 1x1 texture; 13 for 4096 on a side).
pub fn level_count(width: u32, height: u32) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

/// The size of level `level` of a `width` x `height` texture.
pub fn level_size(width: u32, height: u32, level: u32) -> (u32, u32) {
    ((width >> level).max(1), (height >> level).max(1))
}

/// sRGB byte to linear, as a table.
fn srgb_to_linear_table() -> [f32; 256] {
    let mut t = [0f32; 256];
    for (i, v) in t.iter_mut().enumerate() {
        let c = i as f32 / 255.0;
        *v = if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        };
    }
    t
}

fn linear_to_srgb_byte(l: f32) -> u8 {
    let l = l.clamp(0.0, 1.0);
    let c = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    (c * 255.0 + 0.5).floor().clamp(0.0, 255.0) as u8
}

/// One box reduction of `src` (`w` x `h`, RGBA8 sRGB) to the next level's size.
fn reduce(src: &[u8], w: u32, h: u32, lut: &[f32; 256]) -> (Vec<u8>, u32, u32) {
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let mut out = Vec::with_capacity(nw as usize * nh as usize * 4);
    let at = |x: u32, y: u32| (y as usize * w as usize + x as usize) * 4;
    for y in 0..nh {
        let (y0, y1) = ((2 * y).min(h - 1), (2 * y + 1).min(h - 1));
        for x in 0..nw {
            let (x0, x1) = ((2 * x).min(w - 1), (2 * x + 1).min(w - 1));
            let idx = [at(x0, y0), at(x1, y0), at(x0, y1), at(x1, y1)];
            for c in 0..3 {
                let sum: f32 = idx.iter().map(|&i| lut[usize::from(src[i + c])]).sum();
                out.push(linear_to_srgb_byte(sum / 4.0));
            }
            let a: u32 = idx.iter().map(|&i| u32::from(src[i + 3])).sum();
            out.push(((a + 2) / 4) as u8);
        }
    }
    (out, nw, nh)
}

/// An alpha times `scale`, rounded and clamped to a byte (as a kept level stores it).
fn scaled(a: u8, scale: f32) -> u8 {
    (f32::from(a) * scale).round().clamp(0.0, 255.0) as u8
}

/// The fraction of `rgba`'s texels whose alpha, times `scale` and rounded to a byte, is at
/// or above `cutoff`.
pub fn coverage(rgba: &[u8], cutoff: f32, scale: f32) -> f32 {
    let n = rgba.len() / 4;
    if n == 0 {
        return 0.0;
    }
    let covered = rgba
        .chunks_exact(4)
        .filter(|p| scaled(p[3], scale) as f32 / 255.0 >= cutoff)
        .count();
    covered as f32 / n as f32
}

/// Scales `level`'s alpha so its coverage at `cutoff` comes as near `target` as a scale
/// can bring it (a bisection over the scale, as Castaño's).
fn keep_coverage(level: &mut [u8], cutoff: f32, target: f32) {
    let (mut lo, mut hi) = (0.0f32, 4.0f32);
    let mut best = (f32::INFINITY, 1.0f32);
    for _ in 0..16 {
        let mid = (lo + hi) / 2.0;
        let c = coverage(level, cutoff, mid);
        let err = (c - target).abs();
        if err < best.0 || (err == best.0 && (mid - 1.0).abs() < (best.1 - 1.0).abs()) {
            best = (err, mid);
        }
        if c < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let scale = best.1;
    for p in level.chunks_exact_mut(4) {
        p[3] = scaled(p[3], scale);
    }
}

/// Levels 1 to the last (1x1) of `rgba` (`width` x `height`, RGBA8 sRGB, rows top to
/// bottom) under `filter`; empty for a 1x1 texture or texels that do not fill the size.
pub fn generate_chain(width: u32, height: u32, rgba: &[u8], filter: MipFilter) -> Vec<Vec<u8>> {
    if width == 0 || height == 0 || rgba.len() != width as usize * height as usize * 4 {
        return Vec::new();
    }
    let lut = srgb_to_linear_table();
    let target = match filter {
        MipFilter::Coverage { cutoff } => Some((cutoff, coverage(rgba, cutoff, 1.0))),
        MipFilter::Box => None,
    };
    let mut levels = Vec::new();
    // The reduction reads the level above before its alpha was scaled (Castaño: scaling
    // compounds otherwise).
    let (mut src, mut w, mut h) = (rgba.to_vec(), width, height);
    while w > 1 || h > 1 {
        let (next, nw, nh) = reduce(&src, w, h, &lut);
        let mut kept = next.clone();
        if let Some((cutoff, target)) = target {
            keep_coverage(&mut kept, cutoff, target);
        }
        levels.push(kept);
        (src, w, h) = (next, nw, nh);
    }
    levels
}

/// One level of the box reduction [`generate_chain`] gives [`MipFilter::Box`]: `rgba`
/// (`width` x `height`, RGBA8 sRGB, rows top to bottom) to the next level's size (half on
/// each edge, rounded down, never below 1), colour averaged in linear light. `None` for a
/// 1x1 texture or texels that do not fill the size. The voxel atlas reduces the space
/// between its tiles with it (engine `voxel::atlas_chain`).
pub fn reduce_box(width: u32, height: u32, rgba: &[u8]) -> Option<(Vec<u8>, u32, u32)> {
    if width == 0
        || height == 0
        || (width == 1 && height == 1)
        || rgba.len() != width as usize * height as usize * 4
    {
        return None;
    }
    Some(reduce(rgba, width, height, &srgb_to_linear_table()))
}

/// The cache key of a chain: SHA-256 of the dimensions, the filter and the source pixels,
/// in lower-case hex (the `.dhmip` file's name without its extension).
pub fn chain_key(width: u32, height: u32, rgba: &[u8], filter: MipFilter) -> String {
    let mut h = Sha256::new();
    h.update(b"dhmip key 1\0");
    h.update(width.to_le_bytes());
    h.update(height.to_le_bytes());
    let f = filter.key_bytes();
    h.update((f.len() as u32).to_le_bytes());
    h.update(&f);
    h.update(rgba);
    crate::hash::hex(&h.finalize())
}

/// Why a `.dhmip` file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DhmipError {
    /// Shorter than the header.
    #[error("{len} bytes, shorter than the {DHMIP_HEADER}-byte .dhmip header")]
    Short {
        /// The file's length.
        len: usize,
    },
    /// The first 8 bytes are not the magic.
    #[error("bytes 0 to 7 are not the .dhmip magic \"DHMIP\\r\\n\\x1a\"")]
    Magic,
    /// A version this build does not read.
    #[error("version {0} at byte 8 (this build reads version {DHMIP_VERSION})")]
    Version(u32),
    /// An edge of zero or past the limit.
    #[error("size {width}x{height} at bytes 12 to 19: each edge must be 1 to {MAX_EDGE}")]
    Size {
        /// Stated width.
        width: u32,
        /// Stated height.
        height: u32,
    },
    /// An unknown format code.
    #[error("format {0} at byte 20 (expected {DHMIP_FORMAT_RGBA8_SRGB}, RGBA8 sRGB)")]
    Format(u32),
    /// Not the full chain's level count for the size.
    #[error("{found} levels at byte 24, where a {width}x{height} chain has {expected}")]
    Levels {
        /// Stated count.
        found: u32,
        /// The full chain's count.
        expected: u32,
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// The body is not exactly the levels' bytes.
    #[error("{found} bytes after the header, where levels 1 to {last} take {expected}")]
    Length {
        /// Bytes after the header.
        found: usize,
        /// Bytes the levels take.
        expected: usize,
        /// The last level.
        last: u32,
    },
}

/// A `.dhmip` file's contents: the size of level 0 and levels 1 to the last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dhmip {
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0.
    pub height: u32,
    /// Levels 1 to the last, each RGBA8 sRGB, rows top to bottom.
    pub levels: Vec<Vec<u8>>,
}

/// Bytes of levels 1 to the last of a `width` x `height` chain.
fn body_len(width: u32, height: u32) -> usize {
    (1..level_count(width, height))
        .map(|l| {
            let (w, h) = level_size(width, height, l);
            w as usize * h as usize * 4
        })
        .sum()
}

/// The `.dhmip` bytes of `levels` (1 to the last) of a `width` x `height` texture.
pub fn encode_dhmip(width: u32, height: u32, levels: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(DHMIP_HEADER + body_len(width, height));
    out.extend_from_slice(&DHMIP_MAGIC);
    for v in [
        DHMIP_VERSION,
        width,
        height,
        DHMIP_FORMAT_RGBA8_SRGB,
        levels.len() as u32 + 1,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for l in levels {
        out.extend_from_slice(l);
    }
    out
}

/// Reads a `.dhmip` file, checking the header and the exact length before allocating.
pub fn decode_dhmip(bytes: &[u8]) -> Result<Dhmip, DhmipError> {
    if bytes.len() < DHMIP_HEADER {
        return Err(DhmipError::Short { len: bytes.len() });
    }
    if bytes[..8] != DHMIP_MAGIC {
        return Err(DhmipError::Magic);
    }
    let u =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let (version, width, height, format, count) = (u(8), u(12), u(16), u(20), u(24));
    if version != DHMIP_VERSION {
        return Err(DhmipError::Version(version));
    }
    if !(1..=MAX_EDGE).contains(&width) || !(1..=MAX_EDGE).contains(&height) {
        return Err(DhmipError::Size { width, height });
    }
    if format != DHMIP_FORMAT_RGBA8_SRGB {
        return Err(DhmipError::Format(format));
    }
    let expected = level_count(width, height);
    if count != expected {
        return Err(DhmipError::Levels {
            found: count,
            expected,
            width,
            height,
        });
    }
    let body = &bytes[DHMIP_HEADER..];
    let want = body_len(width, height);
    if body.len() != want {
        return Err(DhmipError::Length {
            found: body.len(),
            expected: want,
            last: expected - 1,
        });
    }
    let mut levels = Vec::with_capacity(expected as usize - 1);
    let mut at = 0usize;
    for l in 1..expected {
        let (w, h) = level_size(width, height, l);
        let n = w as usize * h as usize * 4;
        levels.push(body[at..at + n].to_vec());
        at += n;
    }
    Ok(Dhmip {
        width,
        height,
        levels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_counts_and_sizes() {
        assert_eq!(level_count(1, 1), 1);
        assert_eq!(level_count(2, 1), 2);
        assert_eq!(level_count(256, 64), 9);
        assert_eq!(level_count(4096, 4096), 13);
        assert_eq!(level_size(256, 64, 7), (2, 1));
        assert_eq!(level_size(5, 3, 1), (2, 1));
    }

    /// Black and white average to linear 0.5, which is sRGB 188 (0.7354 x 255 = 187.5,
    /// rounded up), not the 128 a gamma-space mean gives.
    #[test]
    fn box_averages_in_linear_light() {
        let rgba = [0, 0, 0, 255, 255, 255, 255, 255];
        let chain = generate_chain(2, 1, &rgba, MipFilter::Box);
        assert_eq!(chain, vec![vec![188, 188, 188, 255]]);
    }

    /// A 4x4 mask whose 2x2 blocks hold 4, 3, 3 and 2 opaque texels (alpha 255, the rest
    /// 0): coverage 12/16 = 0.75 at cutoff 0.8. The plain box's 2x2 level holds alphas
    /// 255, 191, 191, 128 (4/4, 3/4, 3/4, 2/4 of 255, rounded), so only 1 of 4 passes
    /// 0.8 x 255 = 204 (0.25: the cutout thins). The kept level scales alpha by the least
    /// factor that rounds 191 to 204 (203.5 / 191 = x 1.0654), which takes 128 to 136, below: 3 of 4
    /// pass, 0.75 as at the top.
    #[test]
    fn coverage_is_kept_for_a_mask() {
        let on = [255u8, 255, 255, 255];
        let off = [255u8, 255, 255, 0];
        let pattern = [[1, 1, 1, 1], [1, 1, 1, 0], [1, 1, 1, 0], [1, 0, 0, 1]];
        let rgba: Vec<u8> = pattern
            .iter()
            .flatten()
            .flat_map(|&p| if p == 1 { on } else { off })
            .collect();
        assert_eq!(coverage(&rgba, 0.8, 1.0), 0.75);
        let boxed = generate_chain(4, 4, &rgba, MipFilter::Box);
        let alphas: Vec<u8> = boxed[0].chunks(4).map(|p| p[3]).collect();
        assert_eq!(alphas, vec![255, 191, 191, 128]);
        assert_eq!(coverage(&boxed[0], 0.8, 1.0), 0.25);
        let kept = generate_chain(4, 4, &rgba, MipFilter::Coverage { cutoff: 0.8 });
        let alphas: Vec<u8> = kept[0].chunks(4).map(|p| p[3]).collect();
        assert_eq!(alphas, vec![255, 204, 204, 136]);
        assert_eq!(coverage(&kept[0], 0.8, 1.0), 0.75);
        // Colour is the box's either way.
        assert_eq!(kept[0][..3], boxed[0][..3]);
    }

    #[test]
    fn dhmip_round_trips_and_refuses_damage() {
        let rgba: Vec<u8> = (0..8 * 4 * 4).map(|i| (i * 7) as u8).collect();
        let chain = generate_chain(8, 4, &rgba, MipFilter::Box);
        assert_eq!(chain.len(), 3);
        let bytes = encode_dhmip(8, 4, &chain);
        assert_eq!(bytes.len(), DHMIP_HEADER + (4 * 2 + 2 + 1) * 4);
        let back = decode_dhmip(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.levels, chain);
        assert_eq!(
            decode_dhmip(&bytes[..bytes.len() - 1]),
            Err(DhmipError::Length {
                found: 43,
                expected: 44,
                last: 3
            })
        );
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert_eq!(decode_dhmip(&bad), Err(DhmipError::Magic));
        let mut big = bytes.clone();
        big[12..16].copy_from_slice(&5000u32.to_le_bytes());
        assert!(matches!(decode_dhmip(&big), Err(DhmipError::Size { .. })));
        assert_eq!(
            decode_dhmip(&bytes[..10]),
            Err(DhmipError::Short { len: 10 })
        );
    }

    #[test]
    fn keys_differ_by_filter_and_size() {
        let rgba = [9u8; 16];
        let a = chain_key(2, 2, &rgba, MipFilter::Box);
        assert_eq!(a.len(), 64);
        assert_ne!(a, chain_key(4, 1, &rgba, MipFilter::Box));
        assert_ne!(
            a,
            chain_key(2, 2, &rgba, MipFilter::Coverage { cutoff: 0.5 })
        );
        assert_eq!(a, chain_key(2, 2, &rgba, MipFilter::Box));
    }
}
