//! The block atlas with its whole mip chain, and the glow-levels texture laid out like it
//! (spec 004 "Textures, transparency and tint", "Light").
//!
//! [`lay_out`] packs a volume's tiles below its palette colours into one RGBA8 sRGB image
//! and builds every level of its chain the way the spec asks:
//!
//! * Every tile is square and a power of two, 2 texels or more on a side, and is reduced
//!   **on its own** ([`dh_content::mips::generate_chain`]), never as part of the atlas.
//! * Each tile sits in a *slot* twice its edge: at every level the tile's own reduced texels
//!   with half a tile of its own edge texels around it (the edge texel repeated outward,
//!   the corner texel in the corners). At the tile's last level it is 2 texels wide and the
//!   border is still a texel. Below that the slot is box-reduced on its own (2x2, then one
//!   texel), so no level down to a slot of one texel averages one block's texture into the
//!   next block's. Slots sit at multiples of their own size, so a slot at level `l` is the
//!   level-0 slot's position shifted right by `l`.
//! * Past the level where a slot is one texel, a block covers under a quarter of a pixel;
//!   those last levels (the renderer takes only full chains, down to 1x1) are the box
//!   reduction of the whole level above ([`dh_content::mips::reduce_box`]), as is the
//!   palette area and the empty space at every level below the top.
//! * A cutout tile ([`TileSurface::Cutout`]) keeps its alpha coverage at 0.5 down its chain
//!   with the pallet compiler's reduction ([`dh_content::mips::MipFilter::Coverage`]). What
//!   its fully clear texels (alpha 0) hold is decided first: a `dark_cutout` texture's
//!   holes are black, so it darkens toward them as it shrinks; any other cutout's holes take
//!   the colour of their nearest drawn texel (alpha 128 or more; nearest in 4-neighbour
//!   steps, ties to the texel reached first from the one found first in row order), so a
//!   torch or a flower keeps its colour instead of growing a dark rim. Holes keep alpha 0.
//! * The palette colour rows ([`PaletteAtlas`]) sit at the top of level 0, texel for texel;
//!   a built-in cube samples one texel at a fixed UV ([`AtlasImage::palette_uv`]), whose
//!   derivatives are zero, so it always reads the top level.
//!
//! [`lay_out_glow`] lays the same tiles into the same places for the glow levels: each
//! glowing tile's texels times its level's brightness ([`glow_brightness`]: Minecraft's
//! lightmap curve floored by `client.voxel.emissiveFloor`), black (and clear) everywhere
//! else; its chain is built exactly as the colour's.
//!
//! An animated tile's new frame is laid with [`slot_levels`] into the rects
//! [`AtlasImage::slot_rects`] gives, at every level where its slot is a texel or more.
//!
//! The sampler for this atlas is point within a level and linear between levels
//! (`dh_gpu::render::frame::Sampling::NearestMipLinear`).

use std::collections::VecDeque;

use dh_content::mips::{generate_chain, level_count, level_size, reduce_box, MipFilter};
use dh_gpu::render::frame::Texture;

use super::PaletteAtlas;

/// The widest tile taken (texels on a side).
pub const MAX_TILE_EDGE: u32 = 512;

/// The alpha a cutout keeps: the renderer's cutoff (0.5) in the coverage reduction.
pub const CUTOUT_CUTOFF: f32 = 0.5;

/// How a tile's surface draws, which decides how its chain is reduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum TileSurface {
    /// Opaque: the box reduction.
    #[default]
    Opaque,
    /// Cut out at alpha 0.5: coverage kept down the chain, holes filled first.
    Cutout {
        /// The `.mcmeta` says `dark_cutout`: holes are black (the leaves). Otherwise each
        /// hole takes its nearest drawn texel's colour.
        dark_cutout: bool,
    },
    /// Blended: the box reduction, alpha averaged as is.
    Translucent,
}

/// One tile to lay into the atlas: a decoded texture (or an animated tile's composed frame).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileImage {
    /// What the tile is, for errors (the texture's path in its pallet).
    pub name: String,
    /// Texels across.
    pub width: u32,
    /// Texels down (equal to `width`).
    pub height: u32,
    /// `width × height × 4` bytes, RGBA8 sRGB, rows top to bottom.
    pub rgba: Vec<u8>,
    /// How it draws.
    pub surface: TileSurface,
    /// Its block light level, 0 to 15 (0: it does not glow).
    pub glow: u8,
}

/// Why tiles could not be laid out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AtlasError {
    /// A tile that is not square, not a power of two, or outside 2 to [`MAX_TILE_EDGE`].
    #[error(
        "atlas tile {name}: {width}x{height} texels, where a tile is square, a power of two \
         and 2 to {MAX_TILE_EDGE} texels on a side"
    )]
    TileSize {
        /// The tile.
        name: String,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
    /// A tile whose bytes do not fill its size.
    #[error("atlas tile {name}: {got} bytes, where {edge}x{edge} RGBA8 texels take {want}")]
    TileBytes {
        /// The tile.
        name: String,
        /// Its edge.
        edge: u32,
        /// Bytes given.
        got: usize,
        /// Bytes its size takes.
        want: usize,
    },
    /// The tiles and palette do not fit the renderer's largest texture.
    #[error(
        "the atlas of {tiles} tiles would be {width}x{height} texels, past the renderer's \
         {max} on a side"
    )]
    TooLarge {
        /// Tiles asked for.
        tiles: usize,
        /// Width it would take.
        width: u32,
        /// Height it would take.
        height: u32,
        /// The largest edge ([`Texture::MAX_EDGE`]).
        max: u32,
    },
}

/// One tile's slot at one level: where its bordered square lies, in texels of that level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotRect {
    /// The level, 0 the top.
    pub level: u32,
    /// Left texel.
    pub x: u32,
    /// Top texel.
    pub y: u32,
    /// Texels on a side (twice the tile's edge at that level, down to 1).
    pub edge: u32,
}

/// The laid-out atlas: every level, and where each tile and the palette are.
#[derive(Debug, Clone, PartialEq)]
pub struct AtlasImage {
    /// Texels across at level 0.
    pub width: u32,
    /// Texels down at level 0.
    pub height: u32,
    /// The full chain, level 0 first, each RGBA8 sRGB, rows top to bottom, each
    /// [`level_size`] of the top.
    pub levels: Vec<Vec<u8>>,
    /// Each tile's UV rect, in the order given: `[u0, v0, u1, v1]` of its inner area (the
    /// tile without its border).
    pub rects: Vec<[f32; 4]>,
    /// Each tile's level-0 slot (the bordered square), in the order given.
    pub slots: Vec<SlotRect>,
    /// The palette's texels across (its rows start at texel 0 of level 0).
    pub palette_width: u32,
    /// The palette's rows.
    pub palette_height: u32,
}

impl AtlasImage {
    /// The UV at the centre of palette texel `slot` (row-major across the palette's width),
    /// in this atlas: what a built-in cube's UV0 is once the palette sits in the atlas.
    pub fn palette_uv(&self, slot: usize) -> [f32; 2] {
        let w = self.palette_width.max(1) as usize;
        [
            ((slot % w) as f32 + 0.5) / self.width as f32,
            ((slot / w) as f32 + 0.5) / self.height as f32,
        ]
    }

    /// Where tile `tile`'s slot lies at every level it is a texel or more (the rects an
    /// animated tile's [`slot_levels`] are written into, one for one); empty past the tiles.
    pub fn slot_rects(&self, tile: usize) -> Vec<SlotRect> {
        let Some(s) = self.slots.get(tile) else {
            return Vec::new();
        };
        (0..)
            .map_while(|l| {
                let edge = s.edge >> l;
                (edge >= 1 && (l as usize) < self.levels.len()).then_some(SlotRect {
                    level: l,
                    x: s.x >> l,
                    y: s.y >> l,
                    edge,
                })
            })
            .collect()
    }

    /// The atlas as the renderer's texture: level 0 and the chain below it.
    pub fn into_texture(self) -> Texture {
        let mut levels = self.levels.into_iter();
        let rgba = levels.next().unwrap_or_default();
        Texture {
            width: self.width,
            height: self.height,
            rgba,
            mips: levels.collect(),
        }
    }
}

/// Minecraft's lightmap curve at its default brightness: how bright a block of light
/// `level` (0 to 15) draws, 0 to 1. The game's `LightTexture.getBrightness` gives
/// `g = f / (4 − 3f)` for `f = level / 15` (the overworld's `ambientLight` is 0), and
/// `updateLightTexture` then lerps each channel toward `notGamma(g) = 1 − (1 − g)⁴` by the
/// brightness option, whose default ("options.gamma") is 0.5 (net.minecraft.client.renderer
/// .LightTexture, 1.19 to 1.21). So 15 → 1, 14 → 0.888, 7 → 0.363, 1 → 0.043.
pub fn lightmap_curve(level: u8) -> f32 {
    let f = f32::from(level.min(15)) / 15.0;
    let g = f / (4.0 - 3.0 * f);
    let not_gamma = 1.0 - (1.0 - g).powi(4);
    g + 0.5 * (not_gamma - g)
}

/// How bright a glowing tile of light `level` is drawn in the glow levels:
/// `max(curve(level), floor)` (spec 004 "Light", `client.voxel.emissiveFloor`), 0 for level
/// 0 (it does not glow).
pub fn glow_brightness(level: u8, floor: f32) -> f32 {
    if level == 0 {
        return 0.0;
    }
    lightmap_curve(level).max(floor.clamp(0.0, 1.0))
}

/// Lays `tiles` below `palette` into one atlas with its whole chain (module docs).
pub fn lay_out(palette: &PaletteAtlas, tiles: &[TileImage]) -> Result<AtlasImage, AtlasError> {
    Ok(plan(palette, tiles)?.lay_out(palette, tiles))
}

/// Where [`lay_out`] puts `tiles` below a palette of `palette`'s size (its texels are not
/// read), decided once: the atlas's size and each tile's rect, known before the palette's
/// colours are (a volume's model faces take their UVs from it while the palette resolves).
pub fn plan(palette: &PaletteAtlas, tiles: &[TileImage]) -> Result<AtlasPlan, AtlasError> {
    Ok(AtlasPlan {
        layout: Layout::new(palette, tiles)?,
    })
}

/// A decided layout ([`plan`]): the same places for the colour atlas and its glow levels.
#[derive(Debug, Clone, PartialEq)]
pub struct AtlasPlan {
    layout: Layout,
}

impl AtlasPlan {
    /// Texels across at level 0.
    pub fn width(&self) -> u32 {
        self.layout.width
    }

    /// Texels down at level 0.
    pub fn height(&self) -> u32 {
        self.layout.height
    }

    /// Each tile's UV rect `[u0, v0, u1, v1]` (its inner area), in the order planned.
    pub fn rects(&self) -> Vec<[f32; 4]> {
        self.layout.rects()
    }

    /// The atlas with its whole chain: `top`'s texels (row-major across `top.width`) at the
    /// top of level 0, then the tiles planned (the same `tiles`, in the same order).
    pub fn lay_out(&self, top: &PaletteAtlas, tiles: &[TileImage]) -> AtlasImage {
        let slots: Vec<Vec<Vec<u8>>> = tiles.iter().map(|t| slot_levels(t, None)).collect();
        self.layout.compose(Some(top), &slots)
    }

    /// The glow levels of the tiles planned, as [`lay_out_glow`] lays them.
    pub fn lay_out_glow(&self, tiles: &[TileImage], floor: f32) -> Option<AtlasImage> {
        if tiles.iter().all(|t| t.glow == 0) {
            return None;
        }
        let slots: Vec<Vec<Vec<u8>>> = tiles
            .iter()
            .map(|t| match t.glow {
                0 => Vec::new(),
                g => slot_levels(t, Some(glow_brightness(g, floor))),
            })
            .collect();
        Some(self.layout.compose(None, &slots))
    }
}

/// The glow levels of `tiles`, laid out exactly as [`lay_out`] lays them: each tile whose
/// `glow` is above 0 holds its texels times [`glow_brightness`] (`floor` is
/// `client.voxel.emissiveFloor`), in linear light; every other texel is black and clear.
/// `None` when no tile glows (the volume has no glow texture).
pub fn lay_out_glow(
    palette: &PaletteAtlas,
    tiles: &[TileImage],
    floor: f32,
) -> Result<Option<AtlasImage>, AtlasError> {
    Ok(plan(palette, tiles)?.lay_out_glow(tiles, floor))
}

/// Tile `tile`'s slot at every level it is a texel or more, level 0 first (each
/// `(2·edge >> l)²` texels, RGBA8): what [`lay_out`] writes into [`AtlasImage::slot_rects`].
/// `glow` scales the colour (in linear light) for the glow levels. The tile must have passed
/// [`lay_out`]'s checks (square, a power of two); anything else gives no levels.
pub fn slot_levels(tile: &TileImage, glow: Option<f32>) -> Vec<Vec<u8>> {
    let e = tile.width;
    if check_tile(tile).is_err() {
        return Vec::new();
    }
    let mut top = tile.rgba.clone();
    let filter = match tile.surface {
        TileSurface::Cutout { dark_cutout } => {
            if dark_cutout {
                blacken_holes(&mut top);
            } else {
                spread_holes(&mut top, e);
            }
            MipFilter::Coverage {
                cutoff: CUTOUT_CUTOFF,
            }
        }
        TileSurface::Opaque | TileSurface::Translucent => MipFilter::Box,
    };
    if let Some(b) = glow {
        scale_linear(&mut top, b);
    }
    let chain = generate_chain(e, e, &top, filter);
    let mut out = Vec::new();
    // The laid levels: the tile's own level with its border, while the tile is 2 or more.
    let mut tile_level = Some(top);
    let mut l = 0usize;
    while let Some(texels) = tile_level {
        let te = e >> l;
        if te < 2 {
            break;
        }
        out.push(bordered(&texels, te));
        l += 1;
        tile_level = chain.get(l - 1).cloned();
    }
    // Below: the slot reduced on its own down to one texel.
    let mut se = (2 * e) >> l;
    while se >= 1 {
        let Some(prev) = out.last() else { break };
        let Some((next, _, _)) = reduce_box(se * 2, se * 2, prev) else {
            break;
        };
        out.push(next);
        se /= 2;
    }
    out
}

fn check_tile(t: &TileImage) -> Result<(), AtlasError> {
    let e = t.width;
    if e != t.height || !e.is_power_of_two() || !(2..=MAX_TILE_EDGE).contains(&e) {
        return Err(AtlasError::TileSize {
            name: t.name.clone(),
            width: t.width,
            height: t.height,
        });
    }
    let want = e as usize * e as usize * 4;
    if t.rgba.len() != want {
        return Err(AtlasError::TileBytes {
            name: t.name.clone(),
            edge: e,
            got: t.rgba.len(),
            want,
        });
    }
    Ok(())
}

/// A `te`-wide tile level with half its edge of its own edge texels around it.
fn bordered(texels: &[u8], te: u32) -> Vec<u8> {
    let (te, b) = (te as usize, te as usize / 2);
    let se = 2 * te;
    let mut out = vec![0u8; se * se * 4];
    for sy in 0..se {
        let ty = sy.saturating_sub(b).min(te - 1);
        for sx in 0..se {
            let tx = sx.saturating_sub(b).min(te - 1);
            let (d, s) = ((sy * se + sx) * 4, (ty * te + tx) * 4);
            out[d..d + 4].copy_from_slice(&texels[s..s + 4]);
        }
    }
    out
}

/// `dark_cutout`: every fully clear texel black.
fn blacken_holes(rgba: &mut [u8]) {
    for p in rgba.chunks_exact_mut(4) {
        if p[3] == 0 {
            p[..3].fill(0);
        }
    }
}

/// Every fully clear texel takes the colour of its nearest drawn texel (alpha 128 or more),
/// nearest in 4-neighbour steps across the tile (a breadth-first flood from every drawn
/// texel at once, seeded in row order, neighbours left, right, up, down).
fn spread_holes(rgba: &mut [u8], e: u32) {
    let e = e as usize;
    let n = e * e;
    let mut from = vec![usize::MAX; n];
    let mut queue = VecDeque::new();
    for (i, f) in from.iter_mut().enumerate() {
        if rgba[i * 4 + 3] >= 128 {
            *f = i;
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        let (x, y) = (i % e, i / e);
        let near = [
            (x > 0).then(|| i - 1),
            (x + 1 < e).then(|| i + 1),
            (y > 0).then(|| i - e),
            (y + 1 < e).then(|| i + e),
        ];
        for j in near.into_iter().flatten() {
            if from[j] == usize::MAX {
                from[j] = from[i];
                queue.push_back(j);
            }
        }
    }
    for (i, &f) in from.iter().enumerate() {
        if rgba[i * 4 + 3] == 0 && f != usize::MAX {
            let (d, s) = (i * 4, f * 4);
            let c = [rgba[s], rgba[s + 1], rgba[s + 2]];
            rgba[d..d + 3].copy_from_slice(&c);
        }
    }
}

fn srgb_to_linear(c: u8) -> f32 {
    let c = f32::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(l: f32) -> u8 {
    let l = l.clamp(0.0, 1.0);
    let c = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    (c * 255.0 + 0.5).floor().clamp(0.0, 255.0) as u8
}

/// Each texel's colour times `b` in linear light; alpha kept.
fn scale_linear(rgba: &mut [u8], b: f32) {
    let table: Vec<u8> = (0..=255u8)
        .map(|c| linear_to_srgb(srgb_to_linear(c) * b))
        .collect();
    for p in rgba.chunks_exact_mut(4) {
        for c in &mut p[..3] {
            *c = table[usize::from(*c)];
        }
    }
}

/// Where everything goes: the atlas size and each tile's level-0 slot.
#[derive(Debug, Clone, PartialEq)]
struct Layout {
    width: u32,
    height: u32,
    palette_width: u32,
    palette_height: u32,
    slots: Vec<SlotRect>,
}

impl Layout {
    /// Shelf packing: tiles largest first (ties in the order given), left to right in rows
    /// as tall as a row's first slot; the palette rows above, padded to the largest slot,
    /// so every slot sits at a multiple of its own size. The width is a power of two: the
    /// palette's, the largest slot's, or the square root of the slots' area, whichever is
    /// widest.
    fn new(palette: &PaletteAtlas, tiles: &[TileImage]) -> Result<Layout, AtlasError> {
        for t in tiles {
            check_tile(t)?;
        }
        let too_large = |width: u32, height: u32| AtlasError::TooLarge {
            tiles: tiles.len(),
            width,
            height,
            max: Texture::MAX_EDGE,
        };
        let pw = u32::try_from(palette.width).unwrap_or(u32::MAX);
        let ph = u32::try_from(palette.height).unwrap_or(u32::MAX);
        let max_slot = tiles.iter().map(|t| 2 * t.width).max().unwrap_or(1);
        let area: u64 = tiles.iter().map(|t| u64::from(2 * t.width).pow(2)).sum();
        let side = (area as f64).sqrt().ceil() as u64;
        let width64 = u64::from(pw.max(max_slot))
            .max(side)
            .max(1)
            .next_power_of_two();
        let width = u32::try_from(width64).unwrap_or(u32::MAX);
        let top = u64::from(ph).div_ceil(u64::from(max_slot)) * u64::from(max_slot);
        if width > Texture::MAX_EDGE || top > u64::from(Texture::MAX_EDGE) {
            return Err(too_large(width, u32::try_from(top).unwrap_or(u32::MAX)));
        }
        let mut order: Vec<usize> = (0..tiles.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(tiles[i].width));
        let mut slots = vec![
            SlotRect {
                level: 0,
                x: 0,
                y: 0,
                edge: 0
            };
            tiles.len()
        ];
        let (mut x, mut y, mut row) = (0u64, top, 0u64);
        for &i in &order {
            let s = u64::from(2 * tiles[i].width);
            if x + s > width64 {
                (x, y, row) = (0, y + row, 0);
            }
            if row == 0 {
                row = s;
            }
            slots[i] = SlotRect {
                level: 0,
                x: x as u32,
                y: y as u32,
                edge: s as u32,
            };
            x += s;
        }
        let bottom = y + row;
        let height64 = bottom.div_ceil(u64::from(max_slot)) * u64::from(max_slot);
        if height64 > u64::from(Texture::MAX_EDGE) {
            return Err(too_large(
                width,
                u32::try_from(height64).unwrap_or(u32::MAX),
            ));
        }
        Ok(Layout {
            width,
            height: (height64 as u32).max(1),
            palette_width: pw,
            palette_height: ph,
            slots,
        })
    }

    /// Each tile's inner UV rect.
    fn rects(&self) -> Vec<[f32; 4]> {
        let (fw, fh) = (self.width as f32, self.height as f32);
        self.slots
            .iter()
            .map(|s| {
                let (b, e) = (s.edge / 4, s.edge / 2);
                [
                    (s.x + b) as f32 / fw,
                    (s.y + b) as f32 / fh,
                    (s.x + b + e) as f32 / fw,
                    (s.y + b + e) as f32 / fh,
                ]
            })
            .collect()
    }

    /// Every level: the palette (when given) and the slots at the top, each level below the
    /// box reduction of the one above with every slot still a texel or more written over it.
    fn compose(&self, palette: Option<&PaletteAtlas>, slots: &[Vec<Vec<u8>>]) -> AtlasImage {
        let (w, h) = (self.width, self.height);
        let mut top = vec![0u8; w as usize * h as usize * 4];
        if let Some(p) = palette {
            for (i, t) in p.texels.iter().enumerate() {
                let (x, y) = (i % p.width.max(1), i / p.width.max(1));
                let d = (y * w as usize + x) * 4;
                if let Some(dst) = top.get_mut(d..d + 4) {
                    dst.copy_from_slice(t);
                }
            }
        }
        let count = level_count(w, h);
        let mut levels: Vec<Vec<u8>> = Vec::with_capacity(count as usize);
        levels.push(top);
        for l in 1..count {
            let (pw, ph) = level_size(w, h, l - 1);
            let next = levels
                .last()
                .and_then(|prev| reduce_box(pw, ph, prev))
                .map(|(t, _, _)| t)
                .unwrap_or_default();
            levels.push(next);
        }
        for (l, level) in levels.iter_mut().enumerate() {
            let (lw, _) = level_size(w, h, l as u32);
            for (slot, images) in self.slots.iter().zip(slots) {
                let Some(img) = images.get(l) else { continue };
                let (sx, sy, se) = (slot.x >> l, slot.y >> l, (slot.edge >> l) as usize);
                for row in 0..se {
                    let d = ((sy as usize + row) * lw as usize + sx as usize) * 4;
                    let s = row * se * 4;
                    if let (Some(dst), Some(src)) =
                        (level.get_mut(d..d + se * 4), img.get(s..s + se * 4))
                    {
                        dst.copy_from_slice(src);
                    }
                }
            }
        }
        AtlasImage {
            width: w,
            height: h,
            levels,
            rects: self.rects(),
            slots: self.slots.clone(),
            palette_width: self.palette_width,
            palette_height: self.palette_height,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED: [u8; 4] = [255, 0, 0, 255];
    const GREEN: [u8; 4] = [0, 255, 0, 255];
    const BLUE: [u8; 4] = [0, 0, 255, 255];
    const WHITE: [u8; 4] = [255, 255, 255, 255];

    fn tile(name: &str, edge: u32, texels: &[[u8; 4]], surface: TileSurface) -> TileImage {
        assert_eq!(texels.len(), (edge * edge) as usize);
        TileImage {
            name: name.into(),
            width: edge,
            height: edge,
            rgba: texels.concat(),
            surface,
            glow: 0,
        }
    }

    fn palette(width: usize, texels: &[[u8; 4]]) -> PaletteAtlas {
        PaletteAtlas {
            width,
            height: texels.len().div_ceil(width),
            texels: texels.to_vec(),
        }
    }

    fn at(img: &AtlasImage, level: usize, x: u32, y: u32) -> [u8; 4] {
        let (w, _) = level_size(img.width, img.height, level as u32);
        let i = ((y * w + x) * 4) as usize;
        let b = &img.levels[level][i..i + 4];
        [b[0], b[1], b[2], b[3]]
    }

    /// A 2x2 tile: its slot is 4x4 (a texel of border), then 2x2 (the tile again, each
    /// quadrant of the bordered slot being one texel), then one texel: the linear mean of
    /// red, blue, green and white, 0.5 in each channel, sRGB 188.
    #[test]
    fn a_two_texel_tile_and_its_levels() {
        let p = palette(4, &[[9, 9, 9, 255]; 4]);
        let t = tile("t", 2, &[RED, BLUE, GREEN, WHITE], TileSurface::Opaque);
        let img = lay_out(&p, &[t]).expect("lays out");
        // Width 4 (the palette's), the palette row padded to the 4-texel slot.
        assert_eq!((img.width, img.height), (4, 8));
        assert_eq!(img.levels.len(), 4, "8 tall: 4x8, 2x4, 1x2, 1x1");
        assert_eq!(
            img.slots[0],
            SlotRect {
                level: 0,
                x: 0,
                y: 4,
                edge: 4
            }
        );
        assert_eq!(img.rects[0], [0.25, 5.0 / 8.0, 0.75, 7.0 / 8.0]);
        assert_eq!(at(&img, 0, 2, 0), [9, 9, 9, 255], "palette row on top");
        let want0 = [
            [RED, RED, BLUE, BLUE],
            [RED, RED, BLUE, BLUE],
            [GREEN, GREEN, WHITE, WHITE],
            [GREEN, GREEN, WHITE, WHITE],
        ];
        for (y, row) in want0.iter().enumerate() {
            for (x, &c) in row.iter().enumerate() {
                assert_eq!(at(&img, 0, x as u32, 4 + y as u32), c, "level 0 ({x}, {y})");
            }
        }
        assert_eq!(at(&img, 1, 0, 2), RED);
        assert_eq!(at(&img, 1, 1, 2), BLUE);
        assert_eq!(at(&img, 1, 0, 3), GREEN);
        assert_eq!(at(&img, 1, 1, 3), WHITE);
        assert_eq!(at(&img, 2, 0, 1), [188, 188, 188, 255]);
        let tex = img.clone().into_texture();
        assert_eq!(tex.level_count(), level_count(4, 8));
        assert_eq!(tex.rgba, img.levels[0]);
        assert_eq!(
            img.slot_rects(0),
            vec![
                SlotRect {
                    level: 0,
                    x: 0,
                    y: 4,
                    edge: 4
                },
                SlotRect {
                    level: 1,
                    x: 0,
                    y: 2,
                    edge: 2
                },
                SlotRect {
                    level: 2,
                    x: 0,
                    y: 1,
                    edge: 1
                },
            ]
        );
    }

    /// A 4x4 tile of sixteen texels: half a tile (2 texels) of its own edge around it at
    /// level 0, and at level 1 its 2x2 reduction with one texel of border.
    #[test]
    fn border_texels_are_the_tiles_own_edge() {
        let texels: Vec<[u8; 4]> = (0..16u8).map(|i| [i * 16, 255 - i * 16, i, 255]).collect();
        let p = palette(8, &[[0, 0, 0, 255]]);
        let img = lay_out(&p, &[tile("t", 4, &texels, TileSurface::Opaque)]).expect("lays out");
        let s = img.slots[0];
        assert_eq!((s.x, s.y, s.edge), (0, 8, 8));
        let texel = |x: usize, y: usize| texels[y * 4 + x];
        for sy in 0..8u32 {
            for sx in 0..8u32 {
                let tx = (sx as usize).saturating_sub(2).min(3);
                let ty = (sy as usize).saturating_sub(2).min(3);
                assert_eq!(at(&img, 0, sx, 8 + sy), texel(tx, ty), "({sx}, {sy})");
            }
        }
        // Corners are the corner texels; the top border row repeats row 0.
        assert_eq!(at(&img, 0, 0, 8), texel(0, 0));
        assert_eq!(at(&img, 0, 7, 15), texel(3, 3));
        assert_eq!(at(&img, 0, 3, 8), texel(1, 0));
        // Level 1: slot 4x4 at (0, 4); its corner texel is the tile's own reduced corner,
        // and the border copies the inner texel beside it.
        let inner = at(&img, 1, 1, 5);
        assert_eq!(at(&img, 1, 0, 4), inner);
        assert_eq!(at(&img, 1, 0, 5), inner);
        assert_eq!(at(&img, 1, 1, 4), inner);
        assert_eq!(at(&img, 1, 3, 7), at(&img, 1, 2, 6));
    }

    /// Two 4x4 tiles, red and blue, side by side: every level down to a slot of one texel
    /// holds each tile's own colour and nothing of the other's.
    #[test]
    fn no_bleeding_between_tiles_at_the_last_level() {
        let p = palette(16, &[[0, 0, 0, 255]]);
        let red = tile("red", 4, &[RED; 16], TileSurface::Opaque);
        let blue = tile("blue", 4, &[BLUE; 16], TileSurface::Opaque);
        let img = lay_out(&p, &[red, blue]).expect("lays out");
        assert_eq!(img.slots[0].x + 8, img.slots[1].x, "side by side");
        for (i, want) in [(0, RED), (1, BLUE)] {
            let rects = img.slot_rects(i);
            // 8, 4 (tile 2 wide, the last laid level), 2, 1.
            assert_eq!(rects.len(), 4);
            for r in rects {
                for y in r.y..r.y + r.edge {
                    for x in r.x..r.x + r.edge {
                        assert_eq!(
                            at(&img, r.level as usize, x, y),
                            want,
                            "tile {i} level {} ({x}, {y})",
                            r.level
                        );
                    }
                }
            }
        }
    }

    /// A 4x4 cutout whose quadrants hold 4, 2, 2 and 0 drawn texels (alpha 250, and one of
    /// 200), coverage 8/16 at 0.5. The box gives level 1 alphas 250, 125, 113, 0: coverage
    /// 1/4. The coverage reduction scales them by the least scale that lifts 125 to 128
    /// (125·s rounds to 128 from s = 1.02): 255, 128, 115, 0, coverage 2/4 as at the top.
    #[test]
    fn cutout_keeps_its_coverage() {
        let c = |a: u8| [200, 100, 50, a];
        let alphas = [
            [250, 250, 250, 250],
            [250, 250, 0, 0],
            [250, 200, 0, 0],
            [0, 0, 0, 0],
        ];
        let texels: Vec<[u8; 4]> = alphas.iter().flatten().map(|&a| c(a)).collect();
        let p = palette(8, &[[0, 0, 0, 255]]);
        let alpha_at_level1 = |surface| {
            let img = lay_out(&p, &[tile("t", 4, &texels, surface)]).expect("lays out");
            let r = img.slot_rects(0)[1];
            // The 2x2 tile inside the 4x4 slot, one texel in.
            [(1, 1), (2, 1), (1, 2), (2, 2)].map(|(x, y)| at(&img, 1, r.x + x, r.y + y)[3])
        };
        assert_eq!(
            alpha_at_level1(TileSurface::Translucent),
            [250, 125, 113, 0]
        );
        assert_eq!(alpha_at_level1(TileSurface::Opaque), [250, 125, 113, 0]);
        assert_eq!(
            alpha_at_level1(TileSurface::Cutout { dark_cutout: false }),
            [255, 128, 115, 0]
        );
    }

    /// A 4x4 cutout, its top-left quadrant red and drawn, the rest holes holding green.
    /// Spread: the holes turn red (alpha 0), so the one-texel slot is red at alpha 64.
    /// dark_cutout: black holes, so the one-texel slot is the linear mean of one red and
    /// three black, 0.25, sRGB 137.
    #[test]
    fn dark_cutout_darkens_and_spread_keeps_the_colour() {
        let hole = [0, 255, 0, 0];
        let mut texels = vec![hole; 16];
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            texels[y * 4 + x] = RED;
        }
        let p = palette(8, &[[0, 0, 0, 255]]);
        let lay = |dark_cutout| {
            lay_out(
                &p,
                &[tile("t", 4, &texels, TileSurface::Cutout { dark_cutout })],
            )
            .expect("lays out")
        };
        for (dark, hole0, hole1, last) in [
            (false, [255, 0, 0, 0], [255, 0, 0, 0], [255, 0, 0, 64]),
            (true, [0, 0, 0, 0], [0, 0, 0, 0], [137, 0, 0, 64]),
        ] {
            let img = lay(dark);
            let r = img.slot_rects(0);
            // Level 0: tile texel (3, 3) at slot (5, 5).
            assert_eq!(at(&img, 0, r[0].x + 5, r[0].y + 5), hole0, "dark {dark}");
            // Level 1: the tile's top-right texel (a hole) at slot (2, 1); top-left red.
            assert_eq!(at(&img, 1, r[1].x + 2, r[1].y + 1), hole1, "dark {dark}");
            assert_eq!(at(&img, 1, r[1].x + 1, r[1].y + 1), RED, "dark {dark}");
            let l = r.last().expect("levels");
            assert_eq!(l.edge, 1);
            assert_eq!(at(&img, l.level as usize, l.x, l.y), last, "dark {dark}");
        }
    }

    /// Spread takes each hole's nearest drawn texel: a red column and a blue column with
    /// two hole columns between, the left holes red, the right ones blue.
    #[test]
    fn spread_takes_the_nearest_colour() {
        let hole = [0, 0, 0, 0];
        let row = [RED, hole, hole, BLUE];
        let mut rgba: Vec<u8> = [row, row, row, row].concat().concat();
        spread_holes(&mut rgba, 4);
        for y in 0..4 {
            let px = |x: usize| &rgba[(y * 4 + x) * 4..(y * 4 + x) * 4 + 4];
            assert_eq!(px(1), [255, 0, 0, 0]);
            assert_eq!(px(2), [0, 0, 255, 0]);
        }
    }

    /// The lightmap curve by hand (f = level/15, g = f/(4 − 3f), then halfway to
    /// 1 − (1 − g)⁴): 15 → 1; 14 → g 0.77778, 0.88767; 7 → g 0.17949, 0.36312;
    /// 1 → g 0.017544, 0.042947.
    #[test]
    fn lightmap_curve_by_hand() {
        let near = |a: f32, b: f32| (a - b).abs() < 1e-4;
        assert!(near(lightmap_curve(15), 1.0));
        assert!(near(lightmap_curve(14), 0.88767), "{}", lightmap_curve(14));
        assert!(near(lightmap_curve(7), 0.36312), "{}", lightmap_curve(7));
        assert!(near(lightmap_curve(1), 0.042947), "{}", lightmap_curve(1));
        assert_eq!(lightmap_curve(0), 0.0);
        assert!(near(glow_brightness(7, 0.75), 0.75));
        assert!(near(glow_brightness(15, 0.75), 1.0));
        assert_eq!(glow_brightness(0, 0.75), 0.0);
    }

    /// Glow levels: a white 2x2 tile of level 7 beside one that does not glow. Floored at
    /// 0.75 its texels are linear 0.75, sRGB 225; with no floor 0.36312, sRGB 162. The
    /// cold tile's slot and the palette are black and clear.
    #[test]
    fn glow_levels_are_laid_like_the_atlas() {
        let p = palette(8, &[[50, 60, 70, 255]; 8]);
        let mut hot = tile("hot", 2, &[WHITE; 4], TileSurface::Opaque);
        hot.glow = 7;
        let cold = tile("cold", 2, &[WHITE; 4], TileSurface::Opaque);
        let tiles = [cold, hot];
        let color = lay_out(&p, &tiles).expect("lays out");
        assert_eq!(
            lay_out_glow(&p, &tiles[..1], 0.75),
            Ok(None),
            "nothing glows"
        );
        for (floor, v) in [(0.75, 225), (0.0, 162)] {
            let glow = lay_out_glow(&p, &tiles, floor)
                .expect("lays out")
                .expect("a tile glows");
            assert_eq!(glow.slots, color.slots);
            assert_eq!(glow.rects, color.rects);
            assert_eq!(glow.levels.len(), color.levels.len());
            let (h, c) = (glow.slots[1], glow.slots[0]);
            assert_eq!(at(&glow, 0, h.x + 1, h.y + 1), [v, v, v, 255]);
            assert_eq!(at(&glow, 0, c.x + 1, c.y + 1), [0, 0, 0, 0]);
            assert_eq!(at(&glow, 0, 0, 0), [0, 0, 0, 0], "no palette in the glow");
        }
    }

    #[test]
    fn bad_tiles_are_named() {
        let p = palette(4, &[[0, 0, 0, 255]]);
        let mut t = tile("block/odd.png", 2, &[RED; 4], TileSurface::Opaque);
        t.width = 3;
        let e = lay_out(&p, &[t]).expect_err("3 wide");
        assert!(e.to_string().contains("block/odd.png"), "{e}");
        let mut t = tile("block/short.png", 2, &[RED; 4], TileSurface::Opaque);
        t.rgba.pop();
        assert!(matches!(
            lay_out(&p, &[t]),
            Err(AtlasError::TileBytes {
                got: 15,
                want: 16,
                ..
            })
        ));
        let wide = palette(8192, &[[0, 0, 0, 255]]);
        let t = tile("t", 2, &[RED; 4], TileSurface::Opaque);
        assert!(matches!(
            lay_out(&wide, &[t]),
            Err(AtlasError::TooLarge { width: 8192, .. })
        ));
    }

    /// Mixed sizes: a 2x2 after a 4x4 shares its row, at a multiple of its own slot.
    #[test]
    fn mixed_sizes_stay_aligned() {
        let p = palette(4, &[[0, 0, 0, 255]]);
        let small = tile("s", 2, &[GREEN; 4], TileSurface::Opaque);
        let large = tile("l", 4, &[RED; 16], TileSurface::Opaque);
        let img = lay_out(&p, &[small, large]).expect("lays out");
        assert_eq!(
            img.slots[1],
            SlotRect {
                level: 0,
                x: 0,
                y: 8,
                edge: 8
            }
        );
        assert_eq!(
            img.slots[0],
            SlotRect {
                level: 0,
                x: 8,
                y: 8,
                edge: 4
            }
        );
        assert_eq!(img.width, 16);
        for r in img.slot_rects(0) {
            assert_eq!(
                at(&img, r.level as usize, r.x, r.y),
                GREEN,
                "level {}",
                r.level
            );
        }
    }
}
