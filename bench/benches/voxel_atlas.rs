//! The block atlas build (issue 14): `lay_out` and `lay_out_glow` of 300 16x16 tiles with
//! their whole chains below a 256-wide palette (docs/PERFORMANCE.md, "Issue 14: the block
//! atlas build").
//!
//! `cargo bench --workspace --bench voxel_atlas`. The tiles are generated, deterministic
//! (a hash of the tile and texel): 200 opaque, 60 cutouts whose holes spread their nearest
//! colour, 40 `dark_cutout` cutouts (a quarter to a half of each cutout's texels clear);
//! 30 of the opaque tiles glow (levels 1 to 15). The palette is 256 x 4 texels (1,024
//! colours). Each is run 15 times after one warm-up; printed: the median and the 10th and
//! 90th percentile, one thread, and the atlas's size and level count.

use std::time::Instant;

use dh_engine::voxel::atlas_chain::{lay_out, lay_out_glow, TileImage, TileSurface};
use dh_engine::voxel::PaletteAtlas;

fn hash(a: u32, b: u32) -> u32 {
    let mut h = a.wrapping_mul(0x9E37_79B1) ^ b.wrapping_mul(0x85EB_CA77);
    h ^= h >> 15;
    h = h.wrapping_mul(0xC2B2_AE3D);
    h ^ (h >> 13)
}

fn tiles() -> Vec<TileImage> {
    (0..300u32)
        .map(|t| {
            let surface = match t {
                0..200 => TileSurface::Opaque,
                200..260 => TileSurface::Cutout { dark_cutout: false },
                _ => TileSurface::Cutout { dark_cutout: true },
            };
            let clear = 25 + hash(t, 9999) % 25;
            let rgba = (0..256u32)
                .flat_map(|i| {
                    let h = hash(t, i);
                    let a = match surface {
                        TileSurface::Cutout { .. } if h % 100 < clear => 0,
                        _ => 255,
                    };
                    [(h >> 8) as u8, (h >> 16) as u8, (h >> 24) as u8, a]
                })
                .collect();
            TileImage {
                name: format!("block/tile_{t}.png"),
                width: 16,
                height: 16,
                rgba,
                surface,
                glow: if t < 30 { (1 + t % 15) as u8 } else { 0 },
            }
        })
        .collect()
}

fn time(label: &str, mut f: impl FnMut() -> (u32, u32, usize)) {
    let shape = f();
    let mut ms: Vec<f64> = (0..15)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    println!(
        "{label}: median {:.2} ms (p10 {:.2} .. p90 {:.2}), {}x{} with {} levels",
        ms[7], ms[1], ms[13], shape.0, shape.1, shape.2
    );
}

fn main() {
    let tiles = tiles();
    let palette = PaletteAtlas {
        width: 256,
        height: 4,
        texels: (0..1024u32)
            .map(|i| {
                let h = hash(77, i);
                [h as u8, (h >> 8) as u8, (h >> 16) as u8, 255]
            })
            .collect(),
    };
    time("lay_out, 300 16x16 tiles", || {
        let a = lay_out(&palette, &tiles).expect("lays out");
        (a.width, a.height, a.levels.len())
    });
    time("lay_out_glow, 30 of 300 glowing", || {
        let a = lay_out_glow(&palette, &tiles, 0.75)
            .expect("lays out")
            .expect("some glow");
        (a.width, a.height, a.levels.len())
    });
}
