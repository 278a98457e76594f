//! The light field: Minecraft's rules by hand, a property test against a straightforward
//! flood fill on random worlds, and incremental relights equal to relights from scratch.

use std::time::Duration;

use dh_content::schema::components::voxel_volume::VoxelLighting;
use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::payload::PaletteEntry;
use dh_engine::voxel::{
    pack_light, pack_light_rgb, reference_light, resolve_lighting, unpack_light, ChunkLight,
    LightField, MapChunks, VoxelLooks,
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

// --- Colored emitters, the pallet's lightEmission, light shapes ---------------------

use dh_content::voxel::payload::Property;
use dh_engine::voxel::{BlockLight, BlockLightTable, SHAPE_DOWN, SHAPE_UP};

const C_AIR: u32 = 0;
const C_STONE: u32 = 1;
const C_RED: u32 = 2;
const C_ORANGE: u32 = 3;
const C_BLUE: u32 = 4;
const C_TORCH: u32 = 5;
const C_SLAB: u32 = 6;
const C_TOP_SLAB: u32 = 7;
const C_LEAVES: u32 = 8;
const C_LAMP_ON: u32 = 9;
const C_LAMP_OFF: u32 = 10;
const C_DIM_TORCH: u32 = 11;

/// What the test states for each palette entry, by hand: (opacity, red, green, blue
/// emission, light shape). The colors' levels are worked out here: red `ff0000` at 14 is
/// (14, 0, 0); orange `ff8000` at 14 is (14, 14 × 128 / 255 = 7.03 → 7, 0); blue
/// `0000ff` at 12 is (0, 0, 12).
const C_PROPS: [(u8, [u8; 3], u8); 12] = [
    (0, [0, 0, 0], 0),
    (15, [0, 0, 0], 0),
    (0, [14, 0, 0], 0),
    (0, [14, 7, 0], 0),
    (0, [0, 0, 12], 0),
    (0, [14, 14, 14], 0),
    (0, [0, 0, 0], SHAPE_DOWN),
    (0, [0, 0, 0], SHAPE_UP),
    (1, [0, 0, 0], 0),
    (15, [15, 15, 15], 0),
    (15, [0, 0, 0], 0),
    (0, [10, 10, 10], 0),
];

fn c_palette() -> Vec<PaletteEntry> {
    let mc = |id: &str, props: &[(&str, &str)]| {
        let mut e = PaletteEntry::new("minecraft", id);
        for (k, v) in props {
            e.properties.push(Property::string(*k, *v));
        }
        e
    };
    vec![
        PaletteEntry::empty(),
        mc("stone", &[]),
        mc("torch", &[("tint", "red")]),
        mc("torch", &[("tint", "orange")]),
        mc("torch", &[("tint", "blue")]),
        mc("torch", &[]),
        mc("oak_slab", &[("type", "bottom")]),
        mc("oak_slab", &[("type", "top")]),
        mc("oak_leaves", &[]),
        mc("redstone_lamp", &[("lit", "true")]),
        mc("redstone_lamp", &[("lit", "false")]),
        mc("torch", &[("tint", "dim")]),
    ]
}

/// The pallet's `dh.block`s as the test states them.
fn c_pallet_light() -> BlockLightTable {
    let mut t = BlockLightTable::default();
    let colored = |level: u8, rgb: [u8; 3]| BlockLight {
        emission: Some(level),
        color: Some(rgb),
        ..BlockLight::default()
    };
    t.push(
        "minecraft",
        "torch",
        &[("tint", "red")],
        colored(14, [255, 0, 0]),
    );
    t.push(
        "minecraft",
        "torch",
        &[("tint", "orange")],
        colored(14, [255, 128, 0]),
    );
    t.push(
        "minecraft",
        "torch",
        &[("tint", "blue")],
        colored(12, [0, 0, 255]),
    );
    t.push(
        "minecraft",
        "torch",
        &[("tint", "dim")],
        BlockLight {
            emission: Some(10),
            ..BlockLight::default()
        },
    );
    let slab = |shape: u8| BlockLight {
        shape,
        opacity: Some(0),
        ..BlockLight::default()
    };
    t.push(
        "minecraft",
        "oak_slab",
        &[("type", "bottom")],
        slab(SHAPE_DOWN),
    );
    t.push("minecraft", "oak_slab", &[("type", "top")], slab(SHAPE_UP));
    t.push(
        "minecraft",
        "redstone_lamp",
        &[("lit", "true")],
        BlockLight {
            emission: Some(15),
            ..BlockLight::default()
        },
    );
    t
}

fn c_looks() -> VoxelLooks {
    let tables = BlockTables::builtin().expect("built-in tables load");
    VoxelLooks::resolve_lit(
        &c_palette(),
        tables,
        Some("com.mojang.minecraft"),
        None,
        None,
        Some(&c_pallet_light()),
    )
}

fn c_lit(w: &MapChunks, l: &VoxelLooks, n: i32, height: usize) -> LightField {
    let mut f = LightField::new(0, height, 96);
    let world = ChunkLight::new(w, l);
    assert_eq!(f.light_columns(&world, &columns(n), None), (n * n) as usize);
    f
}

fn rgb(f: &LightField, c: [i32; 3]) -> [u8; 3] {
    unpack_light(f.light_at(c).expect("a lit cell")).1
}

#[test]
fn the_pallets_light_resolves_into_the_looks() {
    let l = c_looks();
    let cells = l.cells(true);
    for (i, (op, em, shape)) in C_PROPS.iter().enumerate() {
        let c = &cells[i];
        assert_eq!(
            (c.opacity, c.light_rgb, c.light_shape),
            (*op, *em, *shape),
            "entry {i}"
        );
        assert_eq!(c.emission, *em.iter().max().unwrap_or(&0), "entry {i}");
    }
    // Without the pallet's word: the built-in levels (a torch 14, a lamp nothing).
    let tables = BlockTables::builtin().expect("built-in tables load");
    let plain = VoxelLooks::resolve(
        &c_palette(),
        tables,
        Some("com.mojang.minecraft"),
        None,
        None,
    );
    let p = plain.cells(true);
    assert_eq!(p[C_DIM_TORCH as usize].light_rgb, [14, 14, 14]);
    assert_eq!(p[C_LAMP_ON as usize].emission, 0);
    // A bottom slab without the pallet: the built-in light shape (cell.rs
    // builtin_light_shape, the game's rule light-check confirmed): light enters its cell
    // and is stopped only across its bottom face.
    assert_eq!(
        (p[C_SLAB as usize].opacity, p[C_SLAB as usize].light_shape),
        (0, SHAPE_DOWN)
    );
    assert_eq!(
        (
            p[C_SLAB as usize + 1].opacity,
            p[C_SLAB as usize + 1].light_shape
        ),
        (0, SHAPE_UP),
        "the top slab"
    );
}

/// A closed stone cave 3 brick columns square, its air at y 10..=12.
fn cave() -> MapChunks {
    let mut w = MapChunks::new(16);
    for z in 0..48 {
        for x in 0..48 {
            for y in 0..20 {
                let v = if (10..=12).contains(&y) {
                    C_AIR
                } else {
                    C_STONE
                };
                if v != C_AIR {
                    w.set([x, y, z], v);
                }
            }
        }
    }
    w
}

#[test]
fn colored_emitters_spread_each_channel_apart_and_mix_by_the_larger() {
    let l = c_looks();
    let mut w = cave();
    w.set([20, 11, 20], C_ORANGE);
    let f = c_lit(&w, &l, 3, 32);
    // Orange (14, 7, 0): each channel loses 1 a step.
    assert_eq!(rgb(&f, [20, 11, 20]), [14, 7, 0]);
    assert_eq!(rgb(&f, [21, 11, 20]), [13, 6, 0]);
    assert_eq!(rgb(&f, [23, 12, 20]), [10, 3, 0]);
    assert_eq!(rgb(&f, [27, 11, 20]), [7, 0, 0]);
    assert_eq!(rgb(&f, [34, 11, 20]), [0, 0, 0]);
    // A red (14, 0, 0) and a blue (0, 0, 12) 6 apart mix by the larger of each channel.
    let mut w = cave();
    w.set([10, 11, 10], C_RED);
    w.set([16, 11, 10], C_BLUE);
    let f = c_lit(&w, &l, 3, 32);
    assert_eq!(rgb(&f, [13, 11, 10]), [11, 0, 9]);
    assert_eq!(rgb(&f, [10, 11, 10]), [14, 0, 6]);
    assert_eq!(rgb(&f, [16, 11, 10]), [8, 0, 12]);
    // Placing and removing a colored emitter relights exactly.
    let mut f = c_lit(&cave(), &l, 3, 32);
    let world = ChunkLight::new(&w, &l);
    assert!(f.set_cell_light([20, 11, 20], world.props_rgb_of(C_BLUE), 0));
    assert_eq!(rgb(&f, [22, 11, 20]), [0, 0, 10]);
    assert!(f.set_cell_light([20, 11, 20], world.props_rgb_of(C_AIR), 0));
    assert_eq!(rgb(&f, [22, 11, 20]), [0, 0, 0]);
}

#[test]
fn the_pallets_light_emission_lights_the_field() {
    let l = c_looks();
    let mut w = cave();
    // A lit lamp (opaque, 15 by the pallet) in the cave's floor, and one unlit.
    w.set([10, 10, 10], C_LAMP_ON);
    w.set([30, 10, 30], C_LAMP_OFF);
    w.set([30, 11, 10], C_DIM_TORCH);
    let f = c_lit(&w, &l, 3, 32);
    assert_eq!(rgb(&f, [10, 10, 10]), [15; 3]);
    assert_eq!(rgb(&f, [10, 11, 10]), [14; 3]);
    assert_eq!(rgb(&f, [12, 11, 10]), [12; 3]);
    assert_eq!(rgb(&f, [30, 11, 30]), [0; 3]);
    // The pallet's 10 wins over a torch's built-in 14.
    assert_eq!(rgb(&f, [30, 11, 10]), [10; 3]);
    assert_eq!(rgb(&f, [30, 11, 13]), [7; 3]);
}

#[test]
fn a_light_shape_stops_light_across_the_sides_it_covers() {
    let l = c_looks();
    // Stone up to y 10 with a one-cell shaft at (8, 1..=10, 8), open sky above.
    let mut w = MapChunks::new(16);
    for z in 0..16 {
        for x in 0..16 {
            for y in 0..=10 {
                if !(x == 8 && z == 8 && y >= 1) {
                    w.set([x, y, z], C_STONE);
                }
            }
        }
    }
    let open = c_lit(&w, &l, 1, 16);
    assert_eq!(sky(&open, [8, 1, 8]), 15);
    // A bottom slab at the shaft's top: the sky falls into it, not through it.
    w.set([8, 10, 8], C_SLAB);
    let f = c_lit(&w, &l, 1, 16);
    assert_eq!(sky(&f, [8, 10, 8]), 15);
    assert_eq!(sky(&f, [8, 9, 8]), 0);
    assert_eq!(sky(&f, [8, 1, 8]), 0);
    assert_eq!(f.sky_floor(8, 8), Some(10));
    // A top slab there: no sky enters it from above; beside it the air over the stone
    // is 15, so it takes 14 sideways, and passes nothing down.
    let mut t = w.clone();
    t.set([8, 10, 8], C_TOP_SLAB);
    let f = c_lit(&t, &l, 1, 16);
    assert_eq!(sky(&f, [8, 10, 8]), 0);
    assert_eq!(sky(&f, [8, 9, 8]), 0);
    assert_eq!(f.sky_floor(8, 8), Some(11));
    // A torch under a bottom slab lights the shaft but not the slab above it.
    let mut b = w.clone();
    b.set([8, 5, 8], C_TORCH);
    b.set([8, 6, 8], C_SLAB);
    let f = c_lit(&b, &l, 1, 16);
    assert_eq!(rgb(&f, [8, 5, 8]), [14; 3]);
    assert_eq!(rgb(&f, [8, 4, 8]), [13; 3]);
    assert_eq!(rgb(&f, [8, 6, 8]), [0; 3]);
    // Relit incrementally: the slab over the shaft taken away and put back.
    let mut f = c_lit(&w, &l, 1, 16);
    let world = ChunkLight::new(&w, &l);
    assert!(f.set_cell_light([8, 10, 8], world.props_rgb_of(C_AIR), 0));
    assert_eq!(sky(&f, [8, 1, 8]), 15);
    assert_eq!(f.sky_floor(8, 8), Some(1));
    assert!(f.set_cell_light([8, 10, 8], world.props_rgb_of(C_SLAB), SHAPE_DOWN));
    assert_eq!(sky(&f, [8, 1, 8]), 0);
    assert_eq!(sky(&f, [8, 10, 8]), 15);
    assert_eq!(f.sky_floor(8, 8), Some(10));
}

/// The test's own flood fill with colors and shapes: each channel relaxed against its
/// six neighbors until nothing changes (sky from above at 15 without loss into a cell
/// of opacity 0), never across a side either cell's shape covers. Cells from
/// [`C_PROPS`], walls all around, open sky above. Returns (sky, [r, g, b]) per cell.
fn c_reference(w: &MapChunks, size: [usize; 3]) -> Vec<(u8, [u8; 3])> {
    let n = size[0] * size[1] * size[2];
    let idx = |x: usize, y: usize, z: usize| x + size[0] * (y + size[1] * z);
    let mut cells = vec![(0u8, [0u8; 3], 0u8); n];
    for z in 0..size[2] {
        for y in 0..size[1] {
            for x in 0..size[0] {
                let v = w.get([x as i32, y as i32, z as i32]) as usize;
                cells[idx(x, y, z)] = C_PROPS[v];
            }
        }
    }
    // Direction bits as the engine numbers them: +X, -X, +Y, -Y, +Z, -Z.
    let dirs: [(i32, i32, i32); 6] = [
        (1, 0, 0),
        (-1, 0, 0),
        (0, 1, 0),
        (0, -1, 0),
        (0, 0, 1),
        (0, 0, -1),
    ];
    let mut sky = vec![0u8; n];
    let mut bl: Vec<[u8; 3]> = cells.iter().map(|c| c.1).collect();
    loop {
        let mut changed = false;
        for z in 0..size[2] {
            for y in (0..size[1]).rev() {
                for x in 0..size[0] {
                    let i = idx(x, y, z);
                    let (op, em, shape) = cells[i];
                    let loss = op.max(1);
                    let mut s = 0u8;
                    let mut b = em;
                    // Light reaching this cell from its neighbor in direction d: the
                    // neighbor's step goes the other way, d ^ 1.
                    for (d, (dx, dy, dz)) in dirs.iter().enumerate() {
                        let (nx, ny, nz) = (x as i32 + dx, y as i32 + dy, z as i32 + dz);
                        let covered = |ns: u8| shape >> d & 1 != 0 || ns >> (d ^ 1) & 1 != 0;
                        if ny == size[1] as i32 && d == 2 {
                            // Open sky above the top.
                            if !covered(0) {
                                s = s.max(if op == 0 {
                                    15
                                } else {
                                    15u8.saturating_sub(loss)
                                });
                            }
                            continue;
                        }
                        if nx < 0
                            || ny < 0
                            || nz < 0
                            || nx >= size[0] as i32
                            || ny >= size[1] as i32
                            || nz >= size[2] as i32
                        {
                            continue;
                        }
                        let j = idx(nx as usize, ny as usize, nz as usize);
                        if covered(cells[j].2) {
                            continue;
                        }
                        let from_above = d == 2;
                        let sl = if from_above && sky[j] == 15 && op == 0 {
                            15
                        } else {
                            sky[j].saturating_sub(loss)
                        };
                        s = s.max(sl);
                        for c in 0..3 {
                            b[c] = b[c].max(bl[j][c].saturating_sub(loss));
                        }
                    }
                    if s != sky[i] || b != bl[i] {
                        sky[i] = s;
                        bl[i] = b;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    (0..n).map(|i| (sky[i], bl[i])).collect()
}

fn c_random_world(rng: &mut Rng, n: i32, h: i32) -> MapChunks {
    let mut w = MapChunks::new(16);
    let ground = (rng.below(h as u32 / 2) + 2) as i32;
    let pick = [
        C_STONE,
        C_RED,
        C_ORANGE,
        C_BLUE,
        C_TORCH,
        C_SLAB,
        C_TOP_SLAB,
        C_LEAVES,
        C_LAMP_ON,
        C_LAMP_OFF,
        C_DIM_TORCH,
    ];
    for z in 0..n * 16 {
        for x in 0..n * 16 {
            let g = ground + (rng.below(5) as i32) - 2;
            for y in 0..h {
                let v = if y < g {
                    match rng.below(100) {
                        0..=64 => C_STONE,
                        65..=79 => C_AIR,
                        _ => pick[rng.below(pick.len() as u32) as usize],
                    }
                } else if rng.below(100) < 6 {
                    pick[rng.below(pick.len() as u32) as usize]
                } else {
                    C_AIR
                };
                if v != C_AIR {
                    w.set([x, y, z], v);
                }
            }
        }
    }
    w
}

fn assert_matches_c_reference(f: &LightField, w: &MapChunks, n: i32, h: usize, what: &str) {
    let size = [(n * 16) as usize, h, (n * 16) as usize];
    let r = c_reference(w, size);
    let mut bad = 0;
    let mut first = None;
    for z in 0..size[2] {
        for y in 0..size[1] {
            for x in 0..size[0] {
                let (s, c) = r[x + size[0] * (y + size[1] * z)];
                let want = pack_light_rgb(s, c);
                let got = f.light_at([x as i32, y as i32, z as i32]);
                if got != Some(want) {
                    bad += 1;
                    first.get_or_insert(([x, y, z], got.map(unpack_light), (s, c)));
                }
            }
        }
    }
    assert_eq!(bad, 0, "{what}: {bad} cells differ; first {first:?}");
}

#[test]
fn colored_and_shaped_light_matches_a_reference_flood_fill_on_random_worlds() {
    let l = c_looks();
    for seed in 0..4u64 {
        let mut rng = Rng(seed * 104_729 + 3);
        let (n, h) = (2, 24 + 8 * (seed % 2) as usize);
        let w = c_random_world(&mut rng, n, h as i32);
        let mut cols = columns(n);
        for i in (1..cols.len()).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            cols.swap(i, j);
        }
        let mut f = LightField::new(0, h, 96);
        let world = ChunkLight::new(&w, &l);
        for c in &cols {
            f.light_columns(&world, std::slice::from_ref(c), None);
        }
        assert_matches_c_reference(&f, &w, n, f.height(), &format!("seed {seed}"));
    }
}

#[test]
fn colored_and_shaped_incremental_relights_equal_the_reference() {
    let l = c_looks();
    let (n, h) = (2, 32);
    for seed in 0..2u64 {
        let mut rng = Rng(seed * 7 + 11);
        let mut w = c_random_world(&mut rng, n, h);
        let mut f = c_lit(&w, &l, n, h as usize);
        for step in 0..12 {
            let c = [
                rng.below(32) as i32,
                rng.below(h as u32) as i32,
                rng.below(32) as i32,
            ];
            let v = rng.below(C_PROPS.len() as u32);
            w.set(c, v);
            let world = ChunkLight::new(&w, &l);
            assert!(f.set_cell_light(c, world.props_rgb_of(v), world.shape_of(v)));
            assert_matches_c_reference(
                &f,
                &w,
                n,
                h as usize,
                &format!("seed {seed} step {step}: {c:?} to {v}"),
            );
            let fresh = c_lit(&w, &l, n, h as usize);
            for z in 0..32 {
                for x in 0..32 {
                    assert_eq!(
                        f.sky_floor(x, z),
                        fresh.sky_floor(x, z),
                        "floor {x},{z} step {step}"
                    );
                }
            }
        }
    }
}
