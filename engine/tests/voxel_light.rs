//! The light field: Minecraft's rules by hand, a property test against a straightforward
//! flood fill on random worlds, and incremental relights equal to relights from scratch.

use std::time::Duration;

use dh_content::schema::components::voxel_volume::VoxelLighting;
use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::payload::PaletteEntry;
use dh_engine::voxel::{
    pack_light, reference_light, resolve_lighting, unpack_light, ChunkLight, LightField, MapChunks,
    VoxelLooks,
};

const AIR: u32 = 0;
const STONE: u32 = 1;
const TORCH: u32 = 2;
const LEAVES: u32 = 3;
const GLASS: u32 = 4;
const GLOWSTONE: u32 = 5;
const WATER: u32 = 6;

fn looks() -> VoxelLooks {
    let mc = |id: &str| PaletteEntry::new("minecraft", id);
    let palette = vec![
        PaletteEntry::empty(),
        mc("stone"),
        mc("torch"),
        mc("oak_leaves"),
        mc("glass"),
        mc("glowstone"),
        mc("water"),
    ];
    let tables = BlockTables::builtin().expect("built-in tables load");
    VoxelLooks::resolve(&palette, tables, Some("com.mojang.minecraft"), None, None)
}

/// Every brick column of a `n` × `n` area.
fn columns(n: i32) -> Vec<[i32; 2]> {
    let mut v = Vec::new();
    for z in 0..n {
        for x in 0..n {
            v.push([x, z]);
        }
    }
    v
}

fn lit(w: &MapChunks, l: &VoxelLooks, n: i32, height: usize) -> LightField {
    let mut f = LightField::new(0, height, 96);
    let world = ChunkLight::new(w, l);
    assert_eq!(f.light_columns(&world, &columns(n), None), (n * n) as usize);
    f
}

fn sky(f: &LightField, c: [i32; 3]) -> u8 {
    unpack_light(f.light_at(c).expect("a lit cell")).0
}

fn block(f: &LightField, c: [i32; 3]) -> u8 {
    let (_, rgb) = unpack_light(f.light_at(c).expect("a lit cell"));
    assert!(rgb[0] == rgb[1] && rgb[1] == rgb[2], "emitters are gray");
    rgb[0]
}

#[test]
fn cells_pack_sky_then_red_green_blue() {
    assert_eq!(pack_light(15, 0), 0xF000);
    assert_eq!(pack_light(3, 14), 0x3EEE);
    assert_eq!(unpack_light(0x3EEE), (3, [14, 14, 14]));
}

#[test]
fn a_torch_lights_a_taxicab_diamond_in_a_closed_cave() {
    let l = looks();
    let mut w = MapChunks::new(16);
    for z in 0..48 {
        for y in 0..48 {
            for x in 0..48 {
                let room = (10..38).contains(&x) && (10..38).contains(&y) && (10..38).contains(&z);
                w.set([x, y, z], if room { AIR } else { STONE });
            }
        }
    }
    w.set([24, 24, 24], TORCH);
    let f = lit(&w, &l, 3, 48);
    assert_eq!(block(&f, [24, 24, 24]), 14);
    assert_eq!(block(&f, [25, 24, 24]), 13);
    assert_eq!(block(&f, [25, 25, 24]), 12);
    assert_eq!(block(&f, [25, 25, 25]), 11);
    assert_eq!(block(&f, [24, 24, 11]), 1);
    assert_eq!(block(&f, [24, 24, 10]), 0, "stone takes no light");
    assert_eq!(sky(&f, [24, 24, 24]), 0, "no sky in a closed cave");
    assert_eq!(sky(&f, [24, 47, 24]), 0);
}

#[test]
fn sky_falls_without_loss_and_leaves_cut_it() {
    let l = looks();
    let mut w = MapChunks::new(16);
    // A stone floor at y 0, a stone roof over x 20..30 at y 10, leaves at (5, 20, 5),
    // glass at (8, 20, 8), water at (12, 20, 12).
    for z in 0..32 {
        for x in 0..32 {
            w.set([x, 0, z], STONE);
            if (20..30).contains(&x) {
                w.set([x, 10, z], STONE);
            }
        }
    }
    w.set([5, 20, 5], LEAVES);
    w.set([8, 20, 8], GLASS);
    w.set([12, 20, 12], WATER);
    w.set([3, 5, 3], GLOWSTONE);
    let f = lit(&w, &l, 2, 32);
    assert_eq!(sky(&f, [2, 1, 2]), 15, "open sky reaches the floor at 15");
    assert_eq!(f.sky_floor(2, 2), Some(1));
    assert_eq!(sky(&f, [20, 9, 5]), 14, "one step under the roof's edge");
    assert_eq!(sky(&f, [21, 9, 5]), 13);
    assert_eq!(sky(&f, [25, 9, 5]), 10);
    assert_eq!(sky(&f, [5, 20, 5]), 14, "leaves cut sky by their opacity 1");
    assert_eq!(sky(&f, [5, 19, 5]), 14, "sky beside leaves fills in at 14");
    assert_eq!(f.sky_floor(5, 5), Some(21));
    assert_eq!(sky(&f, [8, 19, 8]), 15, "glass passes sky");
    assert_eq!(sky(&f, [12, 20, 12]), 14, "water cuts sky by 1");
    assert_eq!(
        block(&f, [3, 5, 3]),
        15,
        "an opaque emitter's own cell holds its level"
    );
    assert_eq!(block(&f, [4, 5, 3]), 14);
    // Open sky over the floor is stored as uniform bricks.
    let s = f.stats();
    assert!(s.uniform_bricks > 0 && s.columns == 4, "{s:?}");
}

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }

    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
}

/// A random world over `n` × `n` brick columns, `h` tall: a rough ground, caves, leaves,
/// glass, water and a few emitters.
fn random_world(rng: &mut Rng, n: i32, h: i32) -> MapChunks {
    let mut w = MapChunks::new(16);
    let ground = (rng.below(h as u32 / 2) + 2) as i32;
    for z in 0..n * 16 {
        for x in 0..n * 16 {
            let g = ground + (rng.below(5) as i32) - 2;
            for y in 0..h {
                let v = if y < g {
                    match rng.below(100) {
                        0..=69 => STONE,
                        70..=79 => AIR,
                        80..=84 => GLOWSTONE,
                        _ => STONE,
                    }
                } else {
                    match rng.below(400) {
                        0..=5 => LEAVES,
                        6..=8 => GLASS,
                        9..=10 => TORCH,
                        11..=13 => WATER,
                        14..=20 => STONE,
                        _ => AIR,
                    }
                };
                if v != AIR {
                    w.set([x, y, z], v);
                }
            }
        }
    }
    w
}

fn assert_matches_reference(
    f: &LightField,
    w: &MapChunks,
    l: &VoxelLooks,
    n: i32,
    h: usize,
    what: &str,
) {
    let world = ChunkLight::new(w, l);
    let size = [(n * 16) as usize, h, (n * 16) as usize];
    let r = reference_light(&world, [0, 0, 0], size);
    let mut bad = 0;
    let mut first = None;
    for z in 0..size[2] {
        for y in 0..size[1] {
            for x in 0..size[0] {
                let want = r[x + size[0] * (y + size[1] * z)];
                let got = f.light_at([x as i32, y as i32, z as i32]);
                if got != Some(want) {
                    bad += 1;
                    first.get_or_insert(([x, y, z], got, want));
                }
            }
        }
    }
    assert_eq!(bad, 0, "{what}: {bad} cells differ; first {first:?}");
}

#[test]
fn light_matches_a_reference_flood_fill_on_random_worlds() {
    let l = looks();
    for seed in 0..6u64 {
        let mut rng = Rng(seed * 7919 + 1);
        let (n, h) = (3, 16 * (1 + (seed % 2) as usize) + 8);
        let w = random_world(&mut rng, n, h as i32);
        // Columns lit in a shuffled order, a few at a time, so light crosses the borders
        // of columns lit earlier.
        let mut cols = columns(n);
        for i in (1..cols.len()).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            cols.swap(i, j);
        }
        let mut f = LightField::new(0, h, 96);
        let world = ChunkLight::new(&w, &l);
        let mut at = 0;
        while at < cols.len() {
            let k = (1 + rng.below(3) as usize).min(cols.len() - at);
            f.light_columns(&world, &cols[at..at + k], None);
            at += k;
        }
        assert_matches_reference(&f, &w, &l, n, f.height(), &format!("seed {seed}"));
    }
}

#[test]
fn an_incremental_relight_equals_a_relight_from_scratch() {
    let l = looks();
    let n = 3;
    let h = 32;
    for seed in 0..3u64 {
        let mut rng = Rng(seed * 31 + 5);
        let mut w = random_world(&mut rng, n, h);
        let mut f = lit(&w, &l, n, h as usize);
        for step in 0..25 {
            let c = [
                rng.below(48) as i32,
                rng.below(h as u32) as i32,
                rng.below(48) as i32,
            ];
            let v = [AIR, STONE, TORCH, LEAVES, GLASS, GLOWSTONE, WATER][rng.below(7) as usize];
            w.set(c, v);
            let props = ChunkLight::new(&w, &l).props_of(v);
            assert!(f.set_cell(c, props));
            let fresh = lit(&w, &l, n, h as usize);
            for z in 0..48 {
                for y in 0..h {
                    for x in 0..48 {
                        let p = [x, y, z];
                        assert_eq!(
                            f.light_at(p),
                            fresh.light_at(p),
                            "seed {seed} step {step}: set {c:?} to {v}; cell {p:?}"
                        );
                    }
                }
            }
            for z in 0..48 {
                for x in 0..48 {
                    assert_eq!(f.sky_floor(x, z), fresh.sky_floor(x, z), "floor {x},{z}");
                }
            }
        }
    }
}

#[test]
fn a_torch_placed_and_removed_relights_exactly() {
    let l = looks();
    let mut w = MapChunks::new(16);
    for z in 0..48 {
        for x in 0..48 {
            for y in 0..20 {
                w.set([x, y, z], STONE);
            }
            w.set([x, 10, z], AIR);
            w.set([x, 11, z], AIR);
        }
    }
    let mut f = lit(&w, &l, 3, 32);
    let before: Vec<Option<u16>> = (0..48).map(|x| f.light_at([x, 10, 20])).collect();
    let world = ChunkLight::new(&w, &l);
    assert!(f.set_cell([20, 10, 20], world.props_of(TORCH)));
    assert_eq!(block(&f, [20, 10, 20]), 14);
    assert_eq!(block(&f, [27, 10, 20]), 7);
    assert_eq!(block(&f, [27, 11, 20]), 6);
    assert!(f.set_cell([20, 10, 20], world.props_of(AIR)));
    let after: Vec<Option<u16>> = (0..48).map(|x| f.light_at([x, 10, 20])).collect();
    assert_eq!(before, after);
    // A cell in a column that is not lit changes nothing.
    assert!(!f.set_cell([100, 10, 20], world.props_of(TORCH)));
}

#[test]
fn budget_and_slice_bound_a_light_job() {
    let l = looks();
    let w = MapChunks::new(16);
    let world = ChunkLight::new(&w, &l);
    let mut f = LightField::new(0, 32, 0);
    assert_eq!(
        f.light_columns(&world, &columns(2), None),
        0,
        "0 MB computes none"
    );
    // A zero slice still lights one tile, then hands the thread back.
    let mut f = LightField::new(0, 32, 96);
    let cols: Vec<[i32; 2]> = (0..24).map(|x| [x, 0]).collect();
    assert_eq!(f.light_columns(&world, &cols, Some(Duration::ZERO)), 8);
    assert_eq!(f.light_columns(&world, &cols, None), 16);
    assert_eq!(f.light_columns(&world, &cols, None), 0);
    f.forget_column([0, 0]);
    assert!(!f.is_lit([0, 0]));
    assert_eq!(f.light_at([0, 0, 0]), None);
}

#[test]
fn minecraft_lighting_is_shaded_as_hybrid_with_a_log_line() {
    let c = resolve_lighting(
        "world",
        None,
        Some(VoxelLighting::Minecraft),
        VoxelLighting::Dh,
    );
    assert_eq!(c.shaded, VoxelLighting::Hybrid);
    assert!(c.light_field);
    let line = c.log_line.expect("a log line");
    assert!(
        line.contains("'world'") && line.contains("hybrid"),
        "{line}"
    );
    let c = resolve_lighting(
        "v",
        Some(VoxelLighting::Dh),
        Some(VoxelLighting::Hybrid),
        VoxelLighting::Hybrid,
    );
    assert_eq!(c.shaded, VoxelLighting::Dh);
    assert!(!c.light_field && c.log_line.is_none());
    let c = resolve_lighting("v", None, None, VoxelLighting::Hybrid);
    assert_eq!(c.shaded, VoxelLighting::Hybrid);
}
