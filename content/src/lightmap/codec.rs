//! Block compression of a lightmap page (spec 000 "What is stored: MonoSH", "The lightmap on
//! the GPU"): the L0 as BC6H (unsigned half), the direction's three components and the
//! occlusion layer's two channels as five BC4 planes — 16 + 5 × 8 bytes a 4×4 block, three
//! and a half bytes a texel — with every block a chart reaches dilated full before it is
//! encoded, and an exception pool of shared-exponent texels for the blocks BC6H cannot hold.
//!
//! The encoder and decoder are the `block_compression` crate's CPU paths (a Rust port of
//! Intel's ISPC texture compressor kernels; no GPU, no C), at its `basic` BC6H settings. What
//! stays ours is what the spec asks on top: dilation, the exception test and the pool.
//!
//! A block is an exception when its decode misses any texel a draw reads (a covered texel or
//! the one-texel ring bilinear filtering reads past a chart's edge) by more than half a stop of
//! luminance, or in hue (a channel's share of the three) by more than 0.03 at any one texel or
//! by more than 0.01 on average over the texels a draw reads (the block coming back tinted),
//! or when any texel of its gutter decodes more than four stops past the block's brightest
//! texel. Luminances below [`LUMINANCE_FLOOR`] compare against the floor (half a stop of
//! nothing is nothing), and a texel whose three channels sum below it has no hue to miss.

use glam::Vec3;

use super::monosh::{luminance, MonoShTexel};
use super::rgb9e5;

/// Bytes of one BC6H block.
pub const BC6H_BLOCK_BYTES: usize = 16;
/// Bytes of one BC4 block.
pub const BC4_BLOCK_BYTES: usize = 8;
/// The five BC4 planes, in the order the sidecar stores them.
pub const PLANES: usize = 5;
/// The largest value BC6H's unsigned half holds.
pub const HALF_MAX: f32 = 65504.0;
/// Below this luminance a texel is dark enough that its error is measured absolutely (a
/// thousandth of the atlas's unit: the spec's floor for what an emissive group still
/// delivers).
pub const LUMINANCE_FLOOR: f32 = 1e-3;
/// Half a stop, the most a read texel's luminance may miss by (in log2 units).
pub const MAX_LUMINANCE_STOPS: f32 = 0.5;
/// The most a read texel's channel share may miss by.
pub const MAX_HUE_TEXEL: f32 = 0.03;
/// The most a block's average channel share over its read texels may miss by.
pub const MAX_HUE_BLOCK: f32 = 0.01;
/// How far past the block's brightest texel a gutter texel may decode, in stops.
pub const MAX_GUTTER_STOPS: f32 = 4.0;

/// One page's texels before compression, row-major, `width × height`.
#[derive(Debug, Clone)]
pub struct PageTexels {
    /// Extent in texels.
    pub width: u32,
    /// Extent in texels.
    pub height: u32,
    /// The texels; where `covered` is false, whatever dilation leaves.
    pub texels: Vec<MonoShTexel>,
    /// Which texels a chart covers (the bake's own results).
    pub covered: Vec<bool>,
}

/// One block kept exactly: its place in the page and its 16 L0 texels, row-major.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExceptionBlock {
    /// The page the block is on.
    pub page: u32,
    /// The block's column.
    pub block_x: u16,
    /// The block's row.
    pub block_y: u16,
    /// The 4×4 L0 texels as shared-exponent values.
    pub texels: [u32; 16],
}

/// One page, block-compressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedPage {
    /// Extent in texels (multiples of four).
    pub width: u32,
    /// Extent in texels.
    pub height: u32,
    /// The L0 as BC6H unsigned-half blocks, row-major.
    pub bc6h: Vec<u8>,
    /// Direction x, y, z, occlusion and indirect share as BC4 planes.
    pub planes: [Vec<u8>; PLANES],
}

/// What a page's encode found.
#[derive(Debug, Clone)]
pub struct Encoded {
    /// The compressed page.
    pub page: EncodedPage,
    /// Its exception blocks (their `page` is the index given to [`encode_page`]).
    pub exceptions: Vec<ExceptionBlock>,
}

fn mean(ts: &[MonoShTexel]) -> MonoShTexel {
    let n = ts.len().max(1) as f32;
    let mut m = MonoShTexel::default();
    for t in ts {
        m.l0 += t.l0;
        m.direction += t.direction;
        m.occlusion += t.occlusion;
        m.indirect += t.indirect;
    }
    MonoShTexel {
        l0: m.l0 / n,
        direction: m.direction / n,
        occlusion: m.occlusion / n,
        indirect: m.indirect / n,
    }
}

/// Dilates a page in place: `padding` rings out from every chart, each uncovered texel taking
/// the mean of its filled eight neighbours (one ring at a time, so each reads the ring before),
/// then on until every block a chart reaches is full. Returns which texels are filled; the
/// rest are zeroed.
pub fn dilate(page: &mut PageTexels, padding: u32) -> Vec<bool> {
    let (w, h) = (page.width as usize, page.height as usize);
    let mut filled = page.covered.clone();
    let (bw, bh) = (w.div_ceil(4), h.div_ceil(4));
    let mut touched = vec![false; bw * bh];
    for y in 0..h {
        for x in 0..w {
            if filled[y * w + x] {
                touched[(y / 4) * bw + x / 4] = true;
            }
        }
    }
    let mut ring = 0u32;
    loop {
        ring += 1;
        let mut next = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                if filled[i] || (ring > padding && !touched[(y / 4) * bw + x / 4]) {
                    continue;
                }
                let mut around = Vec::with_capacity(8);
                for dy in -1i64..=1 {
                    for dx in -1i64..=1 {
                        let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                        if (dx, dy) == (0, 0)
                            || nx < 0
                            || ny < 0
                            || nx >= w as i64
                            || ny >= h as i64
                        {
                            continue;
                        }
                        let j = ny as usize * w + nx as usize;
                        if filled[j] {
                            around.push(page.texels[j]);
                        }
                    }
                }
                if !around.is_empty() {
                    next.push((i, mean(&around)));
                }
            }
        }
        if next.is_empty() {
            break;
        }
        for (i, t) in next {
            page.texels[i] = t;
            filled[i] = true;
        }
    }
    for (t, f) in page.texels.iter_mut().zip(&filled) {
        if !*f {
            *t = MonoShTexel::default();
        }
    }
    filled
}

/// The texels a draw reads: covered ones and the one-texel ring around them.
fn read_ring(covered: &[bool], w: usize, h: usize) -> Vec<bool> {
    let mut read = covered.to_vec();
    for y in 0..h {
        for x in 0..w {
            if !covered[y * w + x] {
                continue;
            }
            for ny in y.saturating_sub(1)..(y + 2).min(h) {
                for nx in x.saturating_sub(1)..(x + 2).min(w) {
                    read[ny * w + nx] = true;
                }
            }
        }
    }
    read
}

fn quantize_unit(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// A plane's byte for a texel: direction components map [-1, 1] onto [0, 255].
fn plane_value(t: &MonoShTexel, plane: usize) -> u8 {
    match plane {
        0 => quantize_unit(t.direction.x * 0.5 + 0.5),
        1 => quantize_unit(t.direction.y * 0.5 + 0.5),
        2 => quantize_unit(t.direction.z * 0.5 + 0.5),
        3 => quantize_unit(t.occlusion),
        _ => quantize_unit(t.indirect),
    }
}

fn share(c: Vec3) -> Option<Vec3> {
    let sum = c.x + c.y + c.z;
    (sum >= LUMINANCE_FLOOR).then(|| c / sum)
}

/// Whether a block's decode misses its source past the spec's bound (see the module doc).
/// `read` marks the texels a draw reads.
pub fn misses(source: &[Vec3; 16], decoded: &[Vec3; 16], read: &[bool; 16]) -> bool {
    let brightest = source.iter().map(|c| luminance(*c)).fold(0.0f32, f32::max);
    let (mut src_mean, mut dec_mean, mut n) = (Vec3::ZERO, Vec3::ZERO, 0u32);
    for i in 0..16 {
        let (s, d) = (source[i], decoded[i]);
        if !read[i] {
            let ceiling = brightest.max(LUMINANCE_FLOOR) * MAX_GUTTER_STOPS.exp2();
            if luminance(d) > ceiling || !d.is_finite() {
                return true;
            }
            continue;
        }
        let (ls, ld) = (
            luminance(s).max(LUMINANCE_FLOOR),
            luminance(d).max(LUMINANCE_FLOOR),
        );
        if !ld.is_finite() || (ld / ls).log2().abs() > MAX_LUMINANCE_STOPS {
            return true;
        }
        if let (Some(hs), Some(hd)) = (share(s), share(d)) {
            if (hs - hd).abs().max_element() > MAX_HUE_TEXEL {
                return true;
            }
            src_mean += hs;
            dec_mean += hd;
            n += 1;
        }
    }
    n > 0 && ((src_mean - dec_mean) / n as f32).abs().max_element() > MAX_HUE_BLOCK
}

fn encode_bc6h_block(l0: &[Vec3; 16]) -> [u8; 16] {
    let mut rgba = [half::f16::ZERO; 64];
    for (i, c) in l0.iter().enumerate() {
        let clamp = |v: f32| {
            half::f16::from_f32(if v.is_nan() {
                0.0
            } else {
                v.clamp(0.0, HALF_MAX)
            })
        };
        rgba[i * 4] = clamp(c.x);
        rgba[i * 4 + 1] = clamp(c.y);
        rgba[i * 4 + 2] = clamp(c.z);
        rgba[i * 4 + 3] = half::f16::ONE;
    }
    let mut out = [0u8; 16];
    block_compression::encode::compress_rgba16(
        block_compression::CompressionVariant::BC6H(block_compression::BC6HSettings::basic()),
        &rgba,
        &mut out,
        4,
        4,
        16,
    );
    out
}

/// Decodes one BC6H (unsigned half) block to 16 colours, row-major.
pub fn decode_bc6h_block(block: &[u8; 16]) -> [Vec3; 16] {
    let mut f = [0f32; 48];
    block_compression::decode::decode_block_bc6h_float(block, &mut f, 12, false);
    std::array::from_fn(|i| Vec3::new(f[i * 3], f[i * 3 + 1], f[i * 3 + 2]))
}

/// Encodes one BC4 block from 16 bytes, row-major.
pub fn encode_bc4_block(values: &[u8; 16]) -> [u8; 8] {
    let mut rgba = [0u8; 64];
    for (i, v) in values.iter().enumerate() {
        rgba[i * 4] = *v;
    }
    let mut out = [0u8; 8];
    block_compression::encode::compress_rgba8(
        block_compression::CompressionVariant::BC4,
        &rgba,
        &mut out,
        4,
        4,
        16,
    );
    out
}

/// Decodes one BC4 block to 16 bytes, row-major.
pub fn decode_bc4_block(block: &[u8; 8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    block_compression::decode::decode_block_bc4(block, &mut out, 4);
    out
}

/// Dilates and encodes page `index`. The extent must be a multiple of four on both axes (a
/// page that is not is stored as texels instead, [`texel_planes`]).
pub fn encode_page(index: u32, page: &PageTexels, padding: u32) -> Encoded {
    let mut page = page.clone();
    let (w, h) = (page.width as usize, page.height as usize);
    debug_assert!(w % 4 == 0 && h % 4 == 0);
    let read = read_ring(&page.covered, w, h);
    dilate(&mut page, padding);
    let (bw, bh) = (w / 4, h / 4);
    let mut bc6h = Vec::with_capacity(bw * bh * BC6H_BLOCK_BYTES);
    let mut planes: [Vec<u8>; PLANES] =
        std::array::from_fn(|_| Vec::with_capacity(bw * bh * BC4_BLOCK_BYTES));
    let mut exceptions = Vec::new();
    for by in 0..bh {
        for bx in 0..bw {
            let at = |i: usize| (by * 4 + i / 4) * w + bx * 4 + i % 4;
            let l0: [Vec3; 16] = std::array::from_fn(|i| page.texels[at(i)].l0);
            let reads: [bool; 16] = std::array::from_fn(|i| read[at(i)]);
            let block = encode_bc6h_block(&l0);
            if misses(&l0, &decode_bc6h_block(&block), &reads) {
                exceptions.push(ExceptionBlock {
                    page: index,
                    block_x: bx as u16,
                    block_y: by as u16,
                    texels: l0.map(rgb9e5::pack),
                });
            }
            bc6h.extend_from_slice(&block);
            for (p, plane) in planes.iter_mut().enumerate() {
                let v: [u8; 16] = std::array::from_fn(|i| plane_value(&page.texels[at(i)], p));
                plane.extend_from_slice(&encode_bc4_block(&v));
            }
        }
    }
    Encoded {
        page: EncodedPage {
            width: page.width,
            height: page.height,
            bc6h,
            planes,
        },
        exceptions,
    }
}

/// A page stored as texels (an imported lightmap, or an extent not a multiple of four): L0 as
/// shared-exponent values and the five planes a byte a texel, after the same dilation.
pub fn texel_planes(page: &PageTexels, padding: u32) -> (Vec<u32>, [Vec<u8>; PLANES]) {
    let mut page = page.clone();
    dilate(&mut page, padding);
    let l0 = page.texels.iter().map(|t| rgb9e5::pack(t.l0)).collect();
    let planes = std::array::from_fn(|p| page.texels.iter().map(|t| plane_value(t, p)).collect());
    (l0, planes)
}

fn texel_of(l0: Vec3, planes: [u8; PLANES]) -> MonoShTexel {
    let unit = |b: u8| f32::from(b) / 255.0;
    MonoShTexel {
        l0,
        direction: Vec3::new(
            unit(planes[0]) * 2.0 - 1.0,
            unit(planes[1]) * 2.0 - 1.0,
            unit(planes[2]) * 2.0 - 1.0,
        ),
        occlusion: unit(planes[3]),
        indirect: unit(planes[4]),
    }
}

/// Decodes a compressed page on the CPU (the path of a device that cannot sample BC6H),
/// with `exceptions` (those of this page) applied over their blocks. The page's byte lengths
/// are the reader's to have checked; a short page decodes what it holds and leaves the rest
/// zero.
pub fn decode_page(page: &EncodedPage, exceptions: &[ExceptionBlock]) -> Vec<MonoShTexel> {
    let (w, h) = (page.width as usize, page.height as usize);
    let bw = w / 4;
    let mut out = vec![MonoShTexel::default(); w * h];
    for (b, block) in page.bc6h.chunks_exact(BC6H_BLOCK_BYTES).enumerate() {
        let (bx, by) = (b % bw.max(1), b / bw.max(1));
        if by * 4 >= h {
            break;
        }
        let Ok(block) = <&[u8; 16]>::try_from(block) else {
            break;
        };
        let l0 = decode_bc6h_block(block);
        let plane: [[u8; 16]; PLANES] = std::array::from_fn(|p| {
            page.planes[p]
                .get(b * BC4_BLOCK_BYTES..(b + 1) * BC4_BLOCK_BYTES)
                .and_then(|s| <&[u8; 8]>::try_from(s).ok())
                .map(decode_bc4_block)
                .unwrap_or([0; 16])
        });
        for i in 0..16 {
            out[(by * 4 + i / 4) * w + bx * 4 + i % 4] =
                texel_of(l0[i], std::array::from_fn(|p| plane[p][i]));
        }
    }
    for e in exceptions {
        let (bx, by) = (usize::from(e.block_x), usize::from(e.block_y));
        if bx >= bw || by * 4 >= h {
            continue;
        }
        for i in 0..16 {
            out[(by * 4 + i / 4) * w + bx * 4 + i % 4].l0 = rgb9e5::unpack(e.texels[i]);
        }
    }
    out
}

/// Decodes a page stored as texels.
pub fn decode_texels(l0: &[u32], planes: &[Vec<u8>; PLANES]) -> Vec<MonoShTexel> {
    l0.iter()
        .enumerate()
        .map(|(i, v)| {
            texel_of(
                rgb9e5::unpack(*v),
                std::array::from_fn(|p| planes[p].get(i).copied().unwrap_or(0)),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(w: u32, h: u32, f: impl Fn(u32, u32) -> Option<MonoShTexel>) -> PageTexels {
        let mut texels = Vec::new();
        let mut covered = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let t = f(x, y);
                covered.push(t.is_some());
                texels.push(t.unwrap_or_default());
            }
        }
        PageTexels {
            width: w,
            height: h,
            texels,
            covered,
        }
    }

    fn lit(l0: Vec3) -> MonoShTexel {
        MonoShTexel {
            l0,
            direction: Vec3::new(0.0, 0.6, 0.8),
            occlusion: 0.75,
            indirect: 0.25,
        }
    }

    /// A 2×2 chart at texels (1..3, 1..3) of an 8×8 page with padding 2: the two rings around
    /// it fill (up to (0..5, 0..5)), and the rest of the one block it reaches fills too; the
    /// blocks it does not reach stay zero past the padding. Every ring's texels are a mean of
    /// the chart's one value, so they take it exactly.
    #[test]
    fn dilation_fills_the_gutters_and_every_block_a_chart_reaches() {
        let v = lit(Vec3::new(2.0, 1.0, 0.5));
        let mut p = page(8, 8, |x, y| {
            ((1..3).contains(&x) && (1..3).contains(&y)).then_some(v)
        });
        let filled = dilate(&mut p, 2);
        for y in 0..8u32 {
            for x in 0..8u32 {
                let i = (y * 8 + x) as usize;
                let near = x <= 4 && y <= 4;
                assert_eq!(filled[i], near, "texel ({x}, {y})");
                if near {
                    assert!(
                        (p.texels[i].l0 - v.l0).abs().max_element() < 1e-6,
                        "({x}, {y})"
                    );
                    assert!((p.texels[i].occlusion - 0.75).abs() < 1e-6);
                } else {
                    assert_eq!(p.texels[i], MonoShTexel::default(), "({x}, {y})");
                }
            }
        }
    }

    /// Two charts of different colour meet across a one-texel gap: the gap takes their mean.
    #[test]
    fn a_gutter_between_two_charts_takes_the_mean_of_both() {
        let a = lit(Vec3::new(1.0, 0.0, 0.0));
        let b = lit(Vec3::new(0.0, 0.0, 1.0));
        let mut p = page(4, 4, |x, _| match x {
            0 => Some(a),
            2..=3 => Some(b),
            _ => None,
        });
        dilate(&mut p, 1);
        // Texel (1, 1) sees three of a and three of b.
        let t = p.texels[4 + 1];
        assert!(
            (t.l0 - Vec3::new(0.5, 0.0, 0.5)).abs().max_element() < 1e-6,
            "{:?}",
            t.l0
        );
    }

    /// A smooth HDR gradient decodes within the bound everywhere it is read and needs no
    /// exception; a block holding a hot spot beside saturated colours of another hue goes to
    /// the pool and decodes exactly (to its shared-exponent bits).
    #[test]
    fn bc6h_round_trips_within_its_bound_and_exceptions_are_exact() {
        let smooth = page(16, 16, |x, y| {
            Some(lit(Vec3::new(
                1.0 + x as f32 * 0.05,
                0.8 + y as f32 * 0.04,
                0.6 + (x + y) as f32 * 0.01,
            )))
        });
        let e = encode_page(0, &smooth, 2);
        assert!(
            e.exceptions.is_empty(),
            "{} exception(s)",
            e.exceptions.len()
        );
        let back = decode_page(&e.page, &e.exceptions);
        let all_read = [true; 16];
        for by in 0..4 {
            for bx in 0..4 {
                let at = |i: usize| (by * 4 + i / 4) * 16 + bx * 4 + i % 4;
                let s: [Vec3; 16] = std::array::from_fn(|i| smooth.texels[at(i)].l0);
                let d: [Vec3; 16] = std::array::from_fn(|i| back[at(i)].l0);
                assert!(!misses(&s, &d, &all_read), "block ({bx}, {by})");
                for i in 0..16 {
                    let stops = (luminance(d[i]) / luminance(s[i])).log2().abs();
                    assert!(stops <= MAX_LUMINANCE_STOPS, "{stops}");
                }
            }
        }
        // Block (0, 0): four hues (red, green, blue, yellow) scattered so that no two-region
        // partition puts fewer than three of them on one line, one of them a 1000-unit hot
        // spot: one pair of endpoints per channel and region cannot hold them.
        let palette = [
            Vec3::new(10.0, 0.0, 0.0),
            Vec3::new(0.0, 10.0, 0.0),
            Vec3::new(0.0, 0.0, 10.0),
            Vec3::new(10.0, 10.0, 0.0),
        ];
        let hard = page(8, 8, |x, y| {
            Some(lit(match (x, y) {
                (0, 0) => Vec3::new(1000.0, 0.0, 0.0),
                (x, y) if x < 4 && y < 4 => palette[((x * 3 + y * 2 + x * y) % 4) as usize],
                _ => Vec3::splat(0.5),
            }))
        });
        let e = encode_page(3, &hard, 2);
        assert!(
            e.exceptions
                .iter()
                .any(|x| (x.page, x.block_x, x.block_y) == (3, 0, 0)),
            "{:?}",
            e.exceptions
                .iter()
                .map(|x| (x.block_x, x.block_y))
                .collect::<Vec<_>>()
        );
        let back = decode_page(&e.page, &e.exceptions);
        for y in 0..4usize {
            for x in 0..4usize {
                let src = hard.texels[y * 8 + x].l0;
                let got = back[y * 8 + x].l0;
                assert_eq!(got, rgb9e5::unpack(rgb9e5::pack(src)), "({x}, {y})");
            }
        }
        // The exception holds the hot spot to 1000 exactly (1000 = 500 · 2 is on the grid).
        assert_eq!(back[0].l0, Vec3::new(1000.0, 0.0, 0.0));
    }

    /// BC4 with eight interpolated levels misses a value by at most a fourteenth of the
    /// block's range plus a rounding step; a constant block is exact.
    #[test]
    fn bc4_round_trips_within_its_bound() {
        let constant = [137u8; 16];
        assert_eq!(decode_bc4_block(&encode_bc4_block(&constant)), constant);
        let ramps: [[u8; 16]; 3] = [
            std::array::from_fn(|i| (i * 17) as u8),
            std::array::from_fn(|i| 100 + (i as u8 * 7) % 50),
            std::array::from_fn(|i| if i % 3 == 0 { 0 } else { 255 }),
        ];
        for v in ramps {
            let back = decode_bc4_block(&encode_bc4_block(&v));
            let (lo, hi) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
            let bound = f32::from(hi - lo) / 14.0 + 1.0;
            for i in 0..16 {
                let err = (f32::from(back[i]) - f32::from(v[i])).abs();
                assert!(err <= bound, "{v:?} -> {back:?}: {err} > {bound}");
            }
        }
    }

    /// The planes carry direction, occlusion and indirect share through the page: a
    /// constant texel comes back to within one 255th (the byte quantization; BC4 is exact on
    /// a constant block).
    #[test]
    fn planes_carry_direction_occlusion_and_indirect_share() {
        let v = lit(Vec3::ONE);
        let p = page(4, 4, |_, _| Some(v));
        let e = encode_page(0, &p, 0);
        let back = decode_page(&e.page, &e.exceptions);
        // Half a byte step: 1/255 on the direction's [-1, 1], 0.5/255 on a [0, 1] plane.
        let eps = 1e-6;
        for t in back {
            let miss = (t.direction - v.direction).abs().max_element();
            assert!(miss <= 1.0 / 255.0 + eps, "{miss}");
            assert!((t.occlusion - 0.75).abs() <= 0.5 / 255.0 + eps);
            assert!((t.indirect - 0.25).abs() <= 0.5 / 255.0 + eps);
        }
    }

    /// Any 16 bytes decode as BC6H without a panic and to finite, non-negative values (the
    /// unsigned format), and any 8 as BC4: the CPU path reads untrusted pages.
    #[test]
    fn any_block_bytes_decode() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut b = [0u8; 16];
            for byte in &mut b {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *byte = x as u8;
            }
            for c in decode_bc6h_block(&b) {
                assert!(c.is_finite() && c.min_element() >= 0.0, "{b:?} -> {c:?}");
            }
            let _ = decode_bc4_block(&[b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        }
    }
}
