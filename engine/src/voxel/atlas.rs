//! The per-volume block atlas (spec `dh.voxel`, "Textures, transparency and tint"): every
//! texture a volume's modeled faces draw, packed into the same texture as the palette
//! colours, below them, so a chunk stays one draw per surface.
//!
//! The API is small so the mip chains of a later step can replace the level-0 layout:
//!
//! * [`TileAtlas::request`] a [`TileKey`] (texture path, tint colour, glow level) while
//!   the palette resolves, getting its [`TileId`];
//! * [`TileAtlas::build`] once, with the palette colours' texels and a loader for the
//!   textures' bytes: every tile decoded, tinted and laid out;
//! * [`TileAtlas::uv_rect`] a tile's `[u0, v0, u1, v1]` in the whole atlas.
//!
//! Level 0 only. Each tile is a power of two a side (an image taller than wide, an
//! animation's frames stacked, shows its first square frame) and sits in a cell twice
//! its size with half a tile of its own edge texels around it (the spec's border, so a
//! tile's mips later never read a neighbour). Cells are packed in shelves, the biggest
//! first, below the palette rows. A texture that does not load or is not a power of two
//! has no tile: [`TileAtlas::uv_rect`] answers `None` and its faces wear the unresolved
//! checker.

use std::collections::HashMap;

/// What one tile shows: a texture, tinted, at a glow level.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileKey {
    /// The texture, a pallet path (`/textures/block/stone.png`).
    pub texture: String,
    /// The sRGB colour its texels are multiplied by, `None` for none.
    pub tint: Option<[u8; 3]>,
    /// The light level its glow texture is drawn at, 0 to 15 (0: none). The glow
    /// texture itself comes with the mip chains; the key already tells tiles apart.
    pub glow: u8,
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
    /// Its edge is not a power of two.
    #[error("texture '{path}' is {width}×{height}; a block texture must be a power of two wide (and at least as tall)")]
    NotPowerOfTwo {
        /// The texture.
        path: String,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
}

/// The widest the atlas grows (texels) before a row wraps.
pub const MAX_ATLAS_WIDTH: usize = 4096;

/// A volume's tiles, requested then built once.
#[derive(Debug, Clone, Default)]
pub struct TileAtlas {
    keys: Vec<TileKey>,
    index: HashMap<TileKey, TileId>,
    /// Per tile, its rect in texels `[x, y, size]` once built; `None` where it has none.
    rects: Vec<Option<[u32; 3]>>,
    width: usize,
    height: usize,
    errors: Vec<TileError>,
}

/// A built atlas's texels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtlasImage {
    /// Texels across.
    pub width: usize,
    /// Texel rows.
    pub height: usize,
    /// sRGB RGBA texels, row-major.
    pub texels: Vec<[u8; 4]>,
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
        self.rects.iter().filter(|r| r.is_some()).count()
    }

    /// What kept tiles out, each once (after [`TileAtlas::build`]).
    pub fn errors(&self) -> &[TileError] {
        &self.errors
    }

    /// Lays the palette's `palette` texels (`palette_width` across, row-major) on top
    /// and every tile below them, each texture read through `load` (the pallet's bytes
    /// of a pallet path, `None` when absent) and decoded once however many tints it is
    /// drawn in. Returns the whole atlas; [`TileAtlas::uv_rect`] answers from then on.
    pub fn build(
        &mut self,
        palette: &[[u8; 4]],
        palette_width: usize,
        load: &dyn Fn(&str) -> Option<Vec<u8>>,
    ) -> AtlasImage {
        // Decode each texture once: its first square frame.
        let mut images: HashMap<&str, Result<(u32, Vec<u8>), TileError>> = HashMap::new();
        for k in &self.keys {
            images
                .entry(k.texture.as_str())
                .or_insert_with(|| decode_tile(&k.texture, load));
        }
        let mut errors: Vec<TileError> = images
            .values()
            .filter_map(|r| r.as_ref().err().cloned())
            .collect();
        errors.sort_by_key(|e| e.to_string());
        // Cells, biggest first, then by key for a stable layout.
        let mut order: Vec<(u32, usize)> = self
            .keys
            .iter()
            .enumerate()
            .filter_map(|(i, k)| match images.get(k.texture.as_str()) {
                Some(Ok((size, _))) => Some((*size, i)),
                _ => None,
            })
            .collect();
        order.sort_by(|a, b| b.0.cmp(&a.0).then(self.keys[a.1].cmp(&self.keys[b.1])));
        let biggest = order.first().map_or(0, |o| 2 * o.0 as usize);
        let width = palette_width.max(biggest).min(MAX_ATLAS_WIDTH.max(biggest));
        let palette_rows = palette.len().div_ceil(width.max(1)).max(1);
        let mut rects = vec![None; self.keys.len()];
        let (mut x, mut y, mut shelf) = (0usize, palette_rows, 0usize);
        for &(size, i) in &order {
            let cell = 2 * size as usize;
            if x + cell > width {
                x = 0;
                y += shelf;
                shelf = 0;
            }
            // The tile sits at the cell's centre, half a tile in.
            rects[i] = Some([(x + cell / 4) as u32, (y + cell / 4) as u32, size]);
            x += cell;
            shelf = shelf.max(cell);
        }
        let height = y + shelf;
        let mut texels = vec![[0u8; 4]; width * height];
        for (slot, t) in palette.iter().enumerate() {
            if let Some(dst) = texels.get_mut((slot / width) * width + slot % width) {
                *dst = *t;
            }
        }
        for (i, r) in rects.iter().enumerate() {
            let (Some([tx, ty, size]), Some(Ok((_, rgba)))) =
                (r, images.get(self.keys[i].texture.as_str()))
            else {
                continue;
            };
            let (tx, ty, s) = (*tx as i64, *ty as i64, *size as i64);
            let tint = self.keys[i].tint;
            let h = s / 2;
            // The tile and its border: each texel of the cell reads the tile's nearest.
            for cy in -h..s + h {
                for cx in -h..s + h {
                    let (sx, sy) = (cx.clamp(0, s - 1), cy.clamp(0, s - 1));
                    let at = ((sy * s + sx) * 4) as usize;
                    let Some(px) = rgba.get(at..at + 4) else {
                        continue;
                    };
                    let mut c = [px[0], px[1], px[2], px[3]];
                    if let Some(t) = tint {
                        for k in 0..3 {
                            c[k] = ((u32::from(c[k]) * u32::from(t[k]) + 127) / 255) as u8;
                        }
                    }
                    let (dx, dy) = ((tx + cx) as usize, (ty + cy) as usize);
                    if let Some(dst) = texels.get_mut(dy * width + dx) {
                        *dst = c;
                    }
                }
            }
        }
        self.rects = rects;
        self.width = width;
        self.height = height;
        self.errors = errors;
        AtlasImage {
            width,
            height,
            texels,
        }
    }

    /// Tile `tile`'s `[u0, v0, u1, v1]` in the built atlas (0 to 1 across it), `None`
    /// before [`TileAtlas::build`] or where the tile has no texels.
    pub fn uv_rect(&self, tile: TileId) -> Option<[f32; 4]> {
        let [x, y, s] = (*self.rects.get(tile.0 as usize)?)?;
        let (w, h) = (self.width as f32, self.height as f32);
        Some([
            x as f32 / w,
            y as f32 / h,
            (x + s) as f32 / w,
            (y + s) as f32 / h,
        ])
    }
}

/// Decodes `path` through `load` to its first square frame: (edge, RGBA8).
fn decode_tile(
    path: &str,
    load: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Result<(u32, Vec<u8>), TileError> {
    let bytes = load(path).ok_or_else(|| TileError::Missing(path.to_string()))?;
    let img = dh_content::texture::decode(path, &bytes).map_err(|e| TileError::Decode {
        path: path.to_string(),
        message: e.to_string(),
    })?;
    let (w, h) = (img.width, img.height);
    if !w.is_power_of_two() || h < w {
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
    Ok((w, rgba))
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
        let palette = vec![[9, 9, 9, 255]; 300];
        let img = a.build(&palette, 256, &load);
        // 256 wide; the palette takes two rows; two 32-texel cells on one shelf.
        assert_eq!((img.width, img.height), (256, 2 + 32));
        assert_eq!(img.texels[299], [9, 9, 9, 255]);
        assert_eq!(a.built_count(), 2);
        // The keys sort "/grass.png" before "/stone.png": grass at cell 0, stone at 32.
        // Grass's tile starts half a tile (8) in: texel (8, 10); tinted white to the tint.
        assert_eq!(img.texels[10 * 256 + 8], [128, 255, 0, 255]);
        // Its border (the cell's corner, (0, 2)) repeats its edge texel.
        assert_eq!(img.texels[2 * 256], [128, 255, 0, 255]);
        // Stone at (40, 10), its border out to (32..64, 2..34).
        assert_eq!(img.texels[10 * 256 + 40], [200, 100, 50, 255]);
        assert_eq!(img.texels[33 * 256 + 63], [200, 100, 50, 255]);
        // Beyond the cells: nothing.
        assert_eq!(img.texels[10 * 256 + 64], [0, 0, 0, 0]);
        let r = a.uv_rect(stone).unwrap_or_else(|| panic!("no rect"));
        assert_eq!(r, [40.0 / 256.0, 10.0 / 34.0, 56.0 / 256.0, 26.0 / 34.0]);
        assert_eq!(
            a.uv_rect(grass),
            Some([8.0 / 256.0, 10.0 / 34.0, 24.0 / 256.0, 26.0 / 34.0])
        );
        assert_eq!(a.uv_rect(bad), None);
        assert_eq!(a.uv_rect(odd), None);
        let e: Vec<String> = a.errors().iter().map(ToString::to_string).collect();
        assert_eq!(
            e,
            vec![
                "texture '/nope.png' is not in the pallet".to_string(),
                "texture '/odd.png' is 12×12; a block texture must be a power of two wide (and at least as tall)".to_string(),
            ]
        );
    }
}
