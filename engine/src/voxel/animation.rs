//! Animated atlas tiles played on the world clock (spec 004 "Textures, transparency and
//! tint": "Each animated tile has a fixed block ... when a tile would look different (a new
//! frame, or a new tick of a blended one) it is composed, reduced and bordered on the CPU
//! and written into its block inline in the frame's command buffer, then copied over its
//! cells at every level. Only the tiles that changed move").
//!
//! An [`AnimatedTile`] ties a texture's [`Animation`] (read by
//! [`dh_content::voxel::animation::parse_mcmeta`]) to its tile in a laid-out atlas
//! ([`super::atlas_chain::AtlasImage`]). [`AnimatedTile::write_at`] composes the frame the
//! world time picks ([`Animation::compose`]), lays it with its borders and reduced chain
//! exactly as the atlas laid the tile ([`slot_levels`]), and hands back a [`TileWrite`] of
//! every level's slot rect, or nothing when the tile looks as it did at the last write. A
//! glowing tile (lava, fire) has a second `AnimatedTile` over the glow levels, built with
//! its brightness, so it animates in the glow too.

use std::sync::Arc;

use dh_content::voxel::animation::{tick_of, Animation, FrameState};
use dh_gpu::render::frame::{Texture, TileRect, TileWrite};

use super::atlas_chain::{slot_levels, AtlasImage, TileImage};

/// One animated tile of an atlas (or of its glow levels).
#[derive(Debug, Clone)]
pub struct AnimatedTile {
    /// The tile's index in the atlas's tiles.
    pub tile: usize,
    /// Its animation.
    pub animation: Animation,
    /// The whole image (every frame), RGBA8, `image_width × image_height`.
    pub image: Vec<u8>,
    /// The tile as laid (its name, surface and glow level; its texels are replaced by
    /// each frame's).
    pub template: TileImage,
    /// The glow brightness for a tile of the glow levels, `None` for the colour atlas.
    pub glow: Option<f32>,
    shown: Option<FrameState>,
}

impl AnimatedTile {
    /// Tile `tile` of an atlas, laid from `template` (whose texels are the frame shown at
    /// tick 0: the atlas was laid with it), playing `animation` over `image`.
    pub fn new(
        tile: usize,
        animation: Animation,
        image: Vec<u8>,
        template: TileImage,
        glow: Option<f32>,
    ) -> AnimatedTile {
        let shown = Some(animation.state_at(0));
        AnimatedTile {
            tile,
            animation,
            image,
            template,
            glow,
            shown,
        }
    }

    /// The tile as the world time `world_seconds` shows it, composed.
    pub fn frame_at(&self, world_seconds: f64) -> Option<TileImage> {
        let rgba = self.animation.frame_at(&self.image, world_seconds)?;
        Some(TileImage {
            rgba,
            width: self.animation.frame_width,
            height: self.animation.frame_height,
            ..self.template.clone()
        })
    }

    /// Whether the tile at `world_seconds` looks different from the one last written.
    pub fn changed(&self, world_seconds: f64) -> bool {
        self.shown != Some(self.animation.state_at(tick_of(world_seconds)))
    }

    /// The write that brings `texture` (the atlas laid as `atlas`, uploaded as it is) to
    /// the tile at `world_seconds`, when it changed since the last write: every level's
    /// slot rect ([`AtlasImage::slot_rects`]) and its texels ([`slot_levels`]).
    pub fn write_at(
        &mut self,
        atlas: &AtlasImage,
        texture: &Arc<Texture>,
        world_seconds: f64,
    ) -> Option<TileWrite> {
        if !self.changed(world_seconds) {
            return None;
        }
        let tile = self.frame_at(world_seconds)?;
        let levels = slot_levels(&tile, self.glow);
        let rects = atlas.slot_rects(self.tile);
        if levels.is_empty() || levels.len() != rects.len() {
            return None;
        }
        let mut bytes = Vec::with_capacity(levels.iter().map(Vec::len).sum());
        let mut out = Vec::with_capacity(rects.len());
        for (r, l) in rects.iter().zip(&levels) {
            if l.len() != r.edge as usize * r.edge as usize * 4 {
                return None;
            }
            bytes.extend_from_slice(l);
            out.push(TileRect {
                level: r.level,
                x: r.x,
                y: r.y,
                width: r.edge,
                height: r.edge,
            });
        }
        self.shown = Some(self.animation.state_at(tick_of(world_seconds)));
        Some(TileWrite {
            texture: Arc::clone(texture),
            rects: out,
            bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::atlas_chain::{lay_out, TileSurface};
    use super::super::PaletteAtlas;
    use super::*;
    use dh_content::voxel::animation::parse_mcmeta;

    /// A 2x4 image of two 2x2 frames, red then blue, frametime 10 (half a second): the
    /// atlas is laid with frame 0; at 0.2 s nothing changed; at 0.5 s the write covers the
    /// tile's slot at its three levels (4x4, 2x2, 1x1) with blue, and at 0.7 s nothing
    /// again. Applied to the atlas's levels it gives the atlas laid with blue.
    #[test]
    fn a_changed_frame_writes_every_level_of_its_slot() {
        let (red, blue) = ([255u8, 0, 0, 255], [0u8, 0, 255, 255]);
        let image = [red.repeat(4), blue.repeat(4)].concat();
        let anim = parse_mcmeta(
            "lava.png.mcmeta",
            br#"{"animation":{"frametime":10}}"#,
            2,
            4,
        )
        .expect("reads")
        .expect("animated");
        let palette = PaletteAtlas {
            width: 4,
            height: 1,
            texels: vec![[9, 9, 9, 255]; 4],
        };
        let still = TileImage {
            name: "lava".into(),
            width: 2,
            height: 2,
            rgba: red.repeat(4),
            surface: TileSurface::Opaque,
            glow: 15,
        };
        let atlas = lay_out(&palette, std::slice::from_ref(&still)).expect("lays out");
        let texture = Arc::new(atlas.clone().into_texture());
        let mut tile = AnimatedTile::new(0, anim, image, still.clone(), None);
        assert!(tile.write_at(&atlas, &texture, 0.2).is_none());
        let w = tile.write_at(&atlas, &texture, 0.5).expect("frame 1");
        assert!(w.is_consistent());
        let rects: Vec<(u32, u32, u32, u32)> = w
            .rects
            .iter()
            .map(|r| (r.level, r.x, r.y, r.width))
            .collect();
        assert_eq!(rects, [(0, 0, 4, 4), (1, 0, 2, 2), (2, 0, 1, 1)]);
        assert_eq!(w.bytes, blue.repeat(16 + 4 + 1));
        assert!(tile.write_at(&atlas, &texture, 0.7).is_none());
        let blue_tile = TileImage {
            rgba: blue.repeat(4),
            ..still
        };
        let want = lay_out(&palette, &[blue_tile]).expect("lays out");
        let mut got = atlas.levels.clone();
        let mut at = 0;
        for r in &w.rects {
            let lw = (atlas.width >> r.level).max(1) as usize;
            for row in 0..r.height as usize {
                let d = ((r.y as usize + row) * lw + r.x as usize) * 4;
                let n = r.width as usize * 4;
                got[r.level as usize][d..d + n].copy_from_slice(&w.bytes[at..at + n]);
                at += n;
            }
        }
        for (l, (got, want)) in got.iter().zip(&want.levels).take(3).enumerate() {
            assert_eq!(got, want, "level {l}");
        }
    }
}
