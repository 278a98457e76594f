//! The rolling Minecraft-style terrain the voxel benchmark scenes share (`voxel-mesh` and
//! `voxel-light` mesh and light it, `voxel-collision` cooks it): stone under dirt and
//! grass, sand and water below the sea level, and oak trees, at 16-cell chunks.
//!
//! The same generator as dh-bench's `terrain` module (which the criterion benches use),
//! moved here so `dh-engine bench` can run the scenes without depending on dh-bench. NOTE
//! for the lead: `bench/src/terrain.rs` can become `pub use dh_engine::bench_scenes::terrain::*;`
//! (left as it is: it is another engineer's file this session).

use crate::voxel::MapChunks;
use dh_content::voxel::payload::PaletteEntry;

/// The chunk edge, in cells.
pub const EDGE: i32 = 16;
/// Palette index of `dh:empty`.
pub const AIR: u32 = 0;
/// Palette index of `minecraft:stone`.
pub const STONE: u32 = 1;
/// Palette index of `minecraft:dirt`.
pub const DIRT: u32 = 2;
/// Palette index of `minecraft:grass_block`.
pub const GRASS: u32 = 3;
/// Palette index of `minecraft:sand`.
pub const SAND: u32 = 4;
/// Palette index of `minecraft:water`.
pub const WATER: u32 = 5;
/// Palette index of `minecraft:oak_log`.
pub const LOG: u32 = 6;
/// Palette index of `minecraft:oak_leaves`.
pub const LEAVES: u32 = 7;
/// Palette index of `minecraft:torch`.
pub const TORCH: u32 = 8;

/// The palette's entries `0..=last` (indices as the constants above).
pub fn palette(last: u32) -> Vec<PaletteEntry> {
    let mc = |id: &str| PaletteEntry::new("minecraft", id);
    let all = [
        PaletteEntry::empty(),
        mc("stone"),
        mc("dirt"),
        mc("grass_block"),
        mc("sand"),
        mc("water"),
        mc("oak_log"),
        mc("oak_leaves"),
        mc("torch"),
    ];
    all.into_iter().take(last as usize + 1).collect()
}

/// A deterministic hash of a column and a salt.
pub fn hash(x: i32, z: i32, salt: u32) -> u32 {
    let mut h = (x as u32).wrapping_mul(0x9E37_79B1) ^ (z as u32).wrapping_mul(0x85EB_CA77) ^ salt;
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h
}

/// Smooth value noise in [0, 1) at scale `s`.
pub fn noise(x: i32, z: i32, s: i32, salt: u32) -> f32 {
    let (gx, gz) = (x.div_euclid(s), z.div_euclid(s));
    let (fx, fz) = (
        x.rem_euclid(s) as f32 / s as f32,
        z.rem_euclid(s) as f32 / s as f32,
    );
    let v = |a, b| (hash(a, b, salt) & 0xFFFF) as f32 / 65536.0;
    let sm = |t: f32| t * t * (3.0 - 2.0 * t);
    let (ux, uz) = (sm(fx), sm(fz));
    let a = v(gx, gz) + (v(gx + 1, gz) - v(gx, gz)) * ux;
    let b = v(gx, gz + 1) + (v(gx + 1, gz + 1) - v(gx, gz + 1)) * ux;
    a + (b - a) * uz
}

/// The shape of a terrain: its size in cells and the column height
/// `base + hills.0 · noise(scale hills.1) + bumps.0 · noise(scale bumps.1)`.
#[derive(Debug, Clone, Copy)]
pub struct Terrain {
    /// Cells on x, y, z.
    pub size: [i32; 3],
    /// The lowest column height.
    pub base: f32,
    /// Amplitude and scale of the large hills.
    pub hills: (f32, i32),
    /// Amplitude and scale of the small bumps.
    pub bumps: (f32, i32),
}

/// Generates `t`: stone under four cells of dirt and a grass top, sand and water at or
/// below the sea level (52), and oak trees on one column in 97.
pub fn world(t: &Terrain) -> MapChunks {
    let mut w = MapChunks::new(EDGE as usize);
    let sea = 52;
    for z in 0..t.size[2] {
        for x in 0..t.size[0] {
            let h = (t.base
                + t.hills.0 * noise(x, z, t.hills.1, 1)
                + t.bumps.0 * noise(x, z, t.bumps.1, 2)) as i32;
            for y in 0..h.max(sea) {
                let v = if y >= h {
                    WATER
                } else if y == h - 1 {
                    if h <= sea + 1 {
                        SAND
                    } else {
                        GRASS
                    }
                } else if y >= h - 4 {
                    DIRT
                } else {
                    STONE
                };
                if v != AIR {
                    w.set([x, y, z], v);
                }
            }
            if h > sea + 1 && hash(x, z, 9).is_multiple_of(97) && x % 32 > 3 && z % 32 > 3 {
                for y in h..h + 5 {
                    w.set([x, y, z], LOG);
                }
                for dy in 3..7 {
                    for dz in -2..=2 {
                        for dx in -2..=2 {
                            let c = [x + dx, h + dy, z + dz];
                            if (dx != 0 || dz != 0 || dy > 4) && w.get(c) == AIR {
                                w.set(c, LEAVES);
                            }
                        }
                    }
                }
            }
        }
    }
    w.compact();
    w
}
