//! The per-volume block atlas (spec `dh.voxel`, "Textures, transparency and tint"): every
//! texture a volume's modeled faces draw, packed into the same texture as the palette
//! colours, below them, so a chunk stays one draw per surface.
//!
//! * [`TileAtlas::request`] a [`TileKey`] (texture path, tint colour, glow level, surface)
//!   while the palette resolves, getting its [`TileId`];
//! * [`TileAtlas::build`] once, with the palette's size and a loader for the textures'
//!   bytes: every tile decoded (its first square frame), tinted, its `.mcmeta`'s
//!   `dark_cutout` read, and placed by [`super::atlas_chain::plan`];
//! * [`TileAtlas::uv_rect`] a tile's `[u0, v0, u1, v1]` in the whole atlas;
//! * [`TileAtlas::lay_out`] the atlas with its whole mip chain once the palette colours
//!   are known, and [`TileAtlas::lay_out_glow`] its glow levels, in the same places
//!   ([`super::atlas_chain`] says how).
//!
//! A texture that does not load, is not a power of two, or is outside 2 to
//! [`MAX_TILE_EDGE`] texels wide has no tile: [`TileAtlas::uv_rect`] answers `None` and its
//! faces wear the unresolved checker.

use std::collections::HashMap;

use super::atlas_chain::{plan, AtlasImage, AtlasPlan, TileImage, TileSurface, MAX_TILE_EDGE};
use super::PaletteAtlas;

/// What one tile shows: a texture, tinted, at a glow level, drawn as a surface.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileKey {
    /// The texture, a pallet path (`/textures/block/stone.png`).
    pub texture: String,
    /// The sRGB colour its texels are multiplied by, `None` for none.
    pub tint: Option<[u8; 3]>,
    /// The block light level its glow levels are drawn at, 0 to 15 (0: none).
    pub glow: u8,
    /// How its chain is reduced (a cutout's `dark_cutout` is read from the `.mcmeta` at
    /// build; give `Cutout { dark_cutout: false }` here).
    pub surface: TileSurface,
}

/// A tile's index in its [`TileAtlas`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileId(pub u32);

/// Why a tile has no texels.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TileError {
    /// The loader found no such texture.
    #[error("texture '{0}' is not in the pallet")]
    Missing(String),
    /// It did not decode.
    #[error("texture '{path}' does not decode: {message}")]
    Decode {
        /// The texture.
        path: String,
        /// What the decoder said.
        message: String,
    },
    /// Its edge is not a power of two (or outside 2 to [`MAX_TILE_EDGE`]).
    #[error("texture '{path}' is {width}×{height}; a block texture must be a power of two from 2 to {MAX_TILE_EDGE} wide (and at least as tall)")]
    NotPowerOfTwo {
        /// The texture.
        path: String,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
    /// Its `.mcmeta` does not read.
    #[error("texture '{path}': {message}")]
    Meta {
        /// The texture.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The tiles do not fit one atlas.
    #[error("{0}")]
    Layout(String),
}

/// A volume's tiles, requested then built once.
#[derive(Debug, Clone, Default)]
pub struct TileAtlas {
    keys: Vec<TileKey>,
    index: HashMap<TileKey, TileId>,
    /// Per tile, its index in `images` once built; `None` where it has no texels.
    image_of: Vec<Option<usize>>,
    images: Vec<TileImage>,
    plan: Option<AtlasPlan>,
    rects: Vec<[f32; 4]>,
    errors: Vec<TileError>,
}

impl TileAtlas {
    /// An atlas with no tiles.
    pub fn new() -> TileAtlas {
        TileAtlas::default()
    }

    /// The tile for `key`, added when new.
    pub fn request(&mut self, key: TileKey) -> TileId {
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let id = TileId(self.keys.len() as u32);
        self.index.insert(key.clone(), id);
        self.keys.push(key);
        id
    }

    /// Tiles requested.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether none was requested.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// How many tiles were laid out with texels (after [`TileAtlas::build`]).
    pub fn built_count(&self) -> usize {
        self.images.len()
    }

    /// What kept tiles out, each once (after [`TileAtlas::build`]).
    pub fn errors(&self) -> &[TileError] {
        &self.errors
    }

    /// Whether any tile has texels and a glow level (after [`TileAtlas::build`]).
    pub fn glows(&self) -> bool {
        self.images.iter().any(|t| t.glow > 0)
    }

    /// Decodes every tile through `load` (the pallet's bytes of a pallet path, `None` when
    /// absent; each texture decoded once however many tints it is drawn in, its
    /// `.mcmeta` read beside it) and places them below a palette of `palette_slots`
    /// texels `palette_width` across. Returns the atlas's level-0 size (texels across,
    /// rows): the palette's own when no tile has texels. [`TileAtlas::uv_rect`] answers
    /// from then on.
    pub fn build(
        &mut self,
        palette_slots: usize,
        palette_width: usize,
        load: &dyn Fn(&str) -> Option<Vec<u8>>,
    ) -> (usize, usize) {
        let palette_width = palette_width.max(1);
        let rows = palette_slots.div_ceil(palette_width).max(1);
        let mut decoded: HashMap<&str, Result<Decoded, TileError>> = HashMap::new();
        for k in &self.keys {
            decoded
                .entry(k.texture.as_str())
                .or_insert_with(|| decode_tile(&k.texture, load));
        }
        let mut errors: Vec<TileError> = decoded
            .values()
            .filter_map(|r| r.as_ref().err().cloned())
            .collect();
        errors.sort_by_key(|e| e.to_string());
        // Tiles in key order, for a stable layout.
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        order.sort_by(|&a, &b| self.keys[a].cmp(&self.keys[b]));
        let mut image_of = vec![None; self.keys.len()];
        let mut images = Vec::new();
        for i in order {
            let k = &self.keys[i];
            let Some(Ok((edge, rgba, dark))) = decoded.get(k.texture.as_str()) else {
                continue;
            };
            let mut rgba = rgba.clone();
            if let Some(t) = k.tint {
                for px in rgba.chunks_exact_mut(4) {
                    for c in 0..3 {
                        px[c] = ((u32::from(px[c]) * u32::from(t[c]) + 127) / 255) as u8;
                    }
                }
            }
            let surface = match k.surface {
                TileSurface::Cutout { .. } => TileSurface::Cutout { dark_cutout: *dark },
                s => s,
            };
            image_of[i] = Some(images.len());
            images.push(TileImage {
                name: k.texture.clone(),
                width: *edge,
                height: *edge,
                rgba,
                surface,
                glow: k.glow.min(15),
            });
        }
        let top = PaletteAtlas {
            width: palette_width,
            height: rows,
            texels: Vec::new(),
        };
        let placed = if images.is_empty() {
            None
        } else {
            match plan(&top, &images) {
                Ok(p) => Some(p),
                Err(e) => {
                    errors.push(TileError::Layout(e.to_string()));
                    images.clear();
                    image_of.fill(None);
                    None
                }
            }
        };
        let size = placed.as_ref().map_or((palette_width, rows), |p| {
            (p.width() as usize, p.height() as usize)
        });
        self.rects = placed.as_ref().map(AtlasPlan::rects).unwrap_or_default();
        self.plan = placed;
        self.image_of = image_of;
        self.images = images;
        self.errors = errors;
        size
    }

    /// Tile `tile`'s `[u0, v0, u1, v1]` in the built atlas (0 to 1 across it), `None`
    /// before [`TileAtlas::build`] or where the tile has no texels.
    pub fn uv_rect(&self, tile: TileId) -> Option<[f32; 4]> {
        let i = (*self.image_of.get(tile.0 as usize)?)?;
        self.rects.get(i).copied()
    }

    /// The atlas with its whole chain: `top` (the level-0 palette texels, row-major across
    /// its width, the built size's width) above the tiles. `None` when no tile has texels.
    pub fn lay_out(&self, top: &PaletteAtlas) -> Option<AtlasImage> {
        Some(self.plan.as_ref()?.lay_out(top, &self.images))
    }

    /// The glow levels in the atlas's places, each glowing tile at
    /// [`super::atlas_chain::glow_brightness`] of its level (`floor`:
    /// `client.voxel.emissiveFloor`). `None` when no tile with texels glows.
    pub fn lay_out_glow(&self, floor: f32) -> Option<AtlasImage> {
        self.plan.as_ref()?.lay_out_glow(&self.images, floor)
    }
}

/// A decoded texture: its edge, its first square frame's RGBA8, whether its `.mcmeta` says
/// `dark_cutout`.
type Decoded = (u32, Vec<u8>, bool);

/// Decodes `path` through `load` to its first square frame: (edge, RGBA8, whether its
/// `.mcmeta` says `dark_cutout`).
fn decode_tile(path: &str, load: &dyn Fn(&str) -> Option<Vec<u8>>) -> Result<Decoded, TileError> {
    let bytes = load(path).ok_or_else(|| TileError::Missing(path.to_string()))?;
    let img = dh_content::texture::decode(path, &bytes).map_err(|e| TileError::Decode {
        path: path.to_string(),
        message: e.to_string(),
    })?;
    let (w, h) = (img.width, img.height);
    if !w.is_power_of_two() || h < w || !(2..=MAX_TILE_EDGE).contains(&w) {
        return Err(TileError::NotPowerOfTwo {
            path: path.to_string(),
            width: w,
            height: h,
        });
    }
    let n = (w * w * 4) as usize;
    let rgba = img
        .rgba
        .get(..n)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| TileError::Decode {
            path: path.to_string(),
            message: "fewer texels than its size".into(),
        })?;
    let dark = match load(&format!("{path}.mcmeta")) {
        Some(meta) => dark_cutout(path, &meta)?,
        None => false,
    };
    Ok((w, rgba, dark))
}

/// Whether a texture's `.mcmeta` marks it `dark_cutout`
/// ([`dh_content::voxel::animation::dark_cutout`]).
pub fn dark_cutout(path: &str, meta: &[u8]) -> Result<bool, TileError> {
    dh_content::voxel::animation::dark_cutout(&format!("{path}.mcmeta"), meta).map_err(|e| {
        TileError::Meta {
            path: path.to_string(),
            message: e.to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG of `w`×`h` texels of one colour.
    fn png(w: u32, h: u32, c: [u8; 4]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, w, h);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut wr = enc.write_header().unwrap_or_else(|e| panic!("{e}"));
            let data: Vec<u8> = (0..w * h).flat_map(|_| c).collect();
            wr.write_image_data(&data).unwrap_or_else(|e| panic!("{e}"));
        }
        out
    }

    fn key(t: &str, tint: Option<[u8; 3]>) -> TileKey {
        TileKey {
            texture: t.into(),
            tint,
            glow: 0,
            surface: TileSurface::Opaque,
        }
    }

    #[test]
    fn tiles_sit_below_the_palette_with_a_half_tile_border_and_their_tint() {
        let mut a = TileAtlas::new();
        let stone = a.request(key("/stone.png", None));
        let grass = a.request(key("/grass.png", Some([128, 255, 0])));
        assert_eq!(a.request(key("/stone.png", None)), stone);
        let bad = a.request(key("/nope.png", None));
        let odd = a.request(key("/odd.png", None));
        assert_eq!(a.len(), 4);
        let load = |p: &str| match p {
            "/stone.png" => Some(png(16, 16, [200, 100, 50, 255])),
            "/grass.png" => Some(png(16, 32, [255, 255, 255, 255])),
            "/odd.png" => Some(png(12, 12, [1, 2, 3, 255])),
            _ => None,
        };
        // 300 palette texels, 256 across: two rows, padded to the 32-texel slots.
        assert_eq!(a.build(300, 256, &load), (256, 64));
        assert_eq!(a.built_count(), 2);
        // Key order puts "/grass.png" first: its slot at (0, 32), stone's at (32, 32),
        // each tile half a tile (8) inside its slot.
        assert_eq!(
            a.uv_rect(grass),
            Some([8.0 / 256.0, 40.0 / 64.0, 24.0 / 256.0, 56.0 / 64.0])
        );
        assert_eq!(
            a.uv_rect(stone),
            Some([40.0 / 256.0, 40.0 / 64.0, 56.0 / 256.0, 56.0 / 64.0])
        );
        assert_eq!(a.uv_rect(bad), None);
        assert_eq!(a.uv_rect(odd), None);
        let top = PaletteAtlas {
            width: 256,
            height: 64,
            texels: vec![[9, 9, 9, 255]; 300],
        };
        let img = a.lay_out(&top).unwrap_or_else(|| panic!("no atlas"));
        // The whole chain: 256×64 down to 1×1 is 9 levels.
        assert_eq!(img.levels.len(), 9);
        let at = |x: usize, y: usize| -> [u8; 4] {
            let i = (y * 256 + x) * 4;
            [
                img.levels[0][i],
                img.levels[0][i + 1],
                img.levels[0][i + 2],
                img.levels[0][i + 3],
            ]
        };
        assert_eq!(at(299 - 256, 1), [9, 9, 9, 255]);
        // Grass tinted white to the tint; its border (the slot's corner) its edge texel.
        assert_eq!(at(8, 40), [128, 255, 0, 255]);
        assert_eq!(at(0, 32), [128, 255, 0, 255]);
        assert_eq!(at(40, 40), [200, 100, 50, 255]);
        assert_eq!(at(63, 63), [200, 100, 50, 255]);
        assert_eq!(at(64, 40), [0, 0, 0, 0]);
        assert!(a.lay_out_glow(0.75).is_none());
        let e: Vec<String> = a.errors().iter().map(ToString::to_string).collect();
        assert_eq!(
            e,
            vec![
                "texture '/nope.png' is not in the pallet".to_string(),
                "texture '/odd.png' is 12×12; a block texture must be a power of two from 2 to 512 wide (and at least as tall)".to_string(),
            ]
        );
    }

    #[test]
    fn a_dark_cutout_mcmeta_reaches_the_tile_and_a_glow_level_its_glow_texture() {
        let mut a = TileAtlas::new();
        let cut = TileSurface::Cutout { dark_cutout: false };
        a.request(TileKey {
            surface: cut,
            ..key("/leaves.png", None)
        });
        a.request(TileKey {
            surface: cut,
            glow: 14,
            ..key("/torch.png", None)
        });
        let load = |p: &str| match p {
            "/leaves.png" | "/torch.png" => Some(png(2, 2, [255, 255, 255, 255])),
            "/leaves.png.mcmeta" => {
                Some(br#"{ "texture": { "mipmap_strategy": "dark_cutout" } }"#.to_vec())
            }
            _ => None,
        };
        a.build(1, 256, &load);
        let surfaces: Vec<(String, TileSurface)> = a
            .images
            .iter()
            .map(|t| (t.name.clone(), t.surface))
            .collect();
        assert_eq!(
            surfaces,
            vec![
                (
                    "/leaves.png".into(),
                    TileSurface::Cutout { dark_cutout: true }
                ),
                (
                    "/torch.png".into(),
                    TileSurface::Cutout { dark_cutout: false }
                ),
            ]
        );
        assert!(a.glows());
        let glow = a.lay_out_glow(0.75).unwrap_or_else(|| panic!("no glow"));
        // 256×8: the palette row padded to the 4-texel slots, leaves at (0, 4), torch at
        // (4, 4). The torch's white at level 14 (0.888 of full, linear) is sRGB 242; the
        // leaves do not glow.
        let at = |x: usize, y: usize| glow.levels[0][(y * 256 + x) * 4];
        assert_eq!((glow.width, glow.height), (256, 8));
        assert_eq!(at(5, 5), 242);
        assert_eq!(at(1, 5), 0);
    }

    #[test]
    fn mcmeta_strategies_read() {
        let d = |m: &str| dark_cutout("/t.png", m.as_bytes());
        assert_eq!(
            d(r#"{"texture":{"mipmap_strategy":"dark_cutout"}}"#),
            Ok(true)
        );
        assert_eq!(d(r#"{"texture":{"mipmap_strategy":"cutout"}}"#), Ok(false));
        assert_eq!(d(r#"{"animation":{}}"#), Ok(false));
        assert_eq!(
            d(r#"{"texture":{"mipmap_strategy":3}}"#).map_err(|e| e.to_string()),
            Err("texture '/t.png': /t.png.mcmeta: texture.mipmap_strategy: a string (\"dark_cutout\", \"cutout\", \"mean\" or \"auto\")".to_string())
        );
        assert!(d("{").is_err());
    }
}
