//! Voxel collision and water (spec `dh.voxel`: "Collision", "What is solid", "Surfaces",
//! "Streaming, and never falling through", "Swimming").

use std::sync::Arc;

use dh_content::schema::surface::SURFACE_PRESETS;
use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::payload::{PaletteEntry, PropValue, Property};
use dh_engine::voxel::collision::{
    cook_chunk, BlockCollision, CollisionConfig, CollisionPalette, CollisionStreamer,
    CollisionVolume, CookScratch, CookedChunk,
};
use dh_engine::voxel::water::FluidField;
use dh_engine::voxel::{FluidTable, MapChunks, Placement, VoxelLooks};
use dh_sims::physics::{PawnInput, PhysicsParams, PhysicsWorld, TeleportVelocity};

const MC: &str = "com.mojang.minecraft";

fn mc(id: &str) -> PaletteEntry {
    PaletteEntry::new("minecraft", id)
}

fn preset(name: &str) -> u8 {
    SURFACE_PRESETS
        .iter()
        .position(|p| p.name == name)
        .expect("a preset") as u8
}

fn tables() -> &'static BlockTables {
    BlockTables::builtin().expect("built-in tables load")
}

fn cook(w: &MapChunks, pal: &CollisionPalette, chunk: [i32; 3]) -> CookedChunk {
    cook_with(w, pal, &Placement::identity(), chunk)
}

fn cook_with(
    w: &MapChunks,
    pal: &CollisionPalette,
    pl: &Placement,
    chunk: [i32; 3],
) -> CookedChunk {
    let mut scratch = CookScratch::default();
    let mut out = CookedChunk::default();
    cook_chunk(w, pal, pl, chunk, &mut scratch, &mut out);
    out
}

/// Stone (1), grass (2), wood (3), ice (4), passable (5).
fn test_palette() -> CollisionPalette {
    let s = |name: &str| BlockCollision {
        solid: true,
        surface: preset(name),
    };
    CollisionPalette::from_blocks(
        &[
            BlockCollision {
                solid: false,
                surface: 0,
            },
            s("stone"),
            s("grass"),
            s("wood"),
            s("ice"),
            BlockCollision {
                solid: false,
                surface: 0,
            },
        ],
        7,
    )
}

fn area(tri: [[f32; 3]; 3]) -> ([f32; 3], f32) {
    let u = [0, 1, 2].map(|i| tri[1][i] - tri[0][i]);
    let v = [0, 1, 2].map(|i| tri[2][i] - tri[0][i]);
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    (n.map(|c| c / l), l * 0.5)
}

/// Every triangle of `c` in world space with its unit normal and area.
fn triangles(c: &CookedChunk) -> Vec<([[f32; 3]; 3], [f32; 3], f32)> {
    let mut out = Vec::new();
    for p in &c.parts {
        for t in &p.triangles {
            let tri = t.map(|i| {
                let v = p.vertices[i as usize];
                [0, 1, 2].map(|a| v[a] + c.origin[a])
            });
            let (n, a) = area(tri);
            out.push((tri, n, a));
        }
    }
    out
}

// ── What is solid ───────────────────────────────────────────────────────

#[test]
fn solidity_follows_the_spec_table_per_platform() {
    let t = tables();
    // Minecraft: spec "What is solid" (only ids the built-in table names exactly or by a
    // pattern).
    let solid = [
        "stone",
        "glass",
        "ice",
        "slime_block",
        "honey_block",
        "oak_leaves",
        "barrier",
        "grass_block",
        "not_a_block_anyone_names",
    ];
    let passable = [
        "air",
        "cave_air",
        "void_air",
        "structure_void",
        "light",
        "water",
        "lava",
        "bubble_column",
        "powder_snow",
        "short_grass",
        "fern",
        "poppy",
        "wheat",
        "oak_sapling",
        "vine",
        "torch",
        "rail",
        "redstone_wire",
        "oak_button",
        "oak_pressure_plate",
        "bamboo_sign",
        "red_banner",
        "tube_coral",
    ];
    let mut pal = vec![PaletteEntry::empty()];
    pal.extend(solid.iter().chain(passable.iter()).map(|id| mc(id)));
    let cp = CollisionPalette::resolve(&pal, t, Some(MC), None, 0);
    assert!(!cp.block(0).solid, "dh:empty is passable");
    for (i, id) in solid.iter().enumerate() {
        assert!(cp.block(1 + i as u32).solid, "minecraft:{id} is solid");
    }
    for (i, id) in passable.iter().enumerate() {
        assert!(
            !cp.block(1 + (solid.len() + i) as u32).solid,
            "minecraft:{id} is passable"
        );
    }
    // Past the palette: the unresolved block, solid stone.
    let past = cp.block(pal.len() as u32 + 5);
    assert!(past.solid);
    assert_eq!(past.surface, preset("stone"));

    // Teardown: every material solid, unknown ones included; unphysical passable.
    let td = |id: &str| PaletteEntry::new("teardown", id);
    let tpal = vec![
        PaletteEntry::empty(),
        td("rock"),
        td("glass"),
        td("some_future_material"),
        td("unphysical"),
    ];
    let cp = CollisionPalette::resolve(&tpal, t, Some("com.tuxedolabs.teardown"), None, 0);
    assert!(cp.block(1).solid && cp.block(2).solid && cp.block(3).solid);
    assert!(!cp.block(4).solid, "unphysical is passable");

    // MagicaVoxel: every color, see-through ones included; zero alpha is not there.
    let color = |c: &str| {
        let mut e = PaletteEntry::new("dh", "color");
        e.properties.push(Property::string("color", c));
        e
    };
    let vpal = vec![
        PaletteEntry::empty(),
        color("#ff0000ff"),
        color("#00ff0080"),
        color("#0000ff00"),
    ];
    let cp = CollisionPalette::resolve(&vpal, t, Some("com.ephtracy.magicavoxel"), None, 0);
    assert!(cp.block(1).solid, "an opaque color is solid");
    assert!(cp.block(2).solid, "a see-through color is solid");
    assert!(!cp.block(3).solid, "a color at zero alpha is passable");
    assert_eq!(cp.block(1).surface, preset("stone"), "a color is stone");
}

#[test]
fn collision_agrees_with_every_table_row() {
    let t = tables();
    for table in t.tables() {
        let ns = table.namespace().to_string();
        let platform = table.platforms().first().cloned();
        let ids: Vec<String> = table.exact_ids().map(str::to_string).collect();
        let pal: Vec<PaletteEntry> = std::iter::once(PaletteEntry::empty())
            .chain(
                ids.iter()
                    .map(|id| PaletteEntry::new(ns.clone(), id.clone())),
            )
            .collect();
        let cp = CollisionPalette::resolve(&pal, t, platform.as_deref(), None, 100);
        for (i, id) in ids.iter().enumerate() {
            let look = t
                .lookup(&ns, id, platform.as_deref(), None)
                .expect("an exact id has a row");
            let b = cp.block(1 + i as u32);
            assert_eq!(b.solid, look.solid, "{ns}:{id} solidity");
            if b.solid {
                assert_eq!(
                    SURFACE_PRESETS[b.surface as usize].name, look.surface,
                    "{ns}:{id} surface"
                );
            }
        }
    }
}

#[test]
fn surfaces_per_the_spec_table() {
    let ids = [
        ("grass_block", "grass"),
        ("oak_leaves", "grass"),
        ("dirt", "dirt"),
        ("oak_planks", "wood"),
        ("sand", "sand"),
        ("ice", "ice"),
        ("packed_ice", "ice"),
        ("glass", "glass"),
        ("slime_block", "flesh"),
        ("honey_block", "plastic"),
        ("stone", "stone"),
    ];
    let mut pal = vec![PaletteEntry::empty()];
    pal.extend(ids.iter().map(|(id, _)| mc(id)));
    let cp = CollisionPalette::resolve(&pal, tables(), Some(MC), None, 3);
    for (i, (id, surface)) in ids.iter().enumerate() {
        assert_eq!(
            SURFACE_PRESETS[cp.block(1 + i as u32).surface as usize].name,
            *surface,
            "minecraft:{id}"
        );
    }
    // Ice is as slippery as an ice material: its triangles carry 0.12 grip, and the
    // scene slot is the base plus the preset's index.
    let ice = 1 + ids.iter().position(|(id, _)| *id == "ice").expect("ice") as u32;
    let mut w = MapChunks::new(16);
    w.set([0, 0, 0], ice);
    let c = cook(&w, &cp, [0, 0, 0]);
    assert_eq!(c.parts.len(), 1);
    assert_eq!(c.parts[0].grip, 0.12);
    assert_eq!(c.parts[0].slot, 3 + u32::from(preset("ice")));
    assert_eq!(c.triangle_slot(0, 11), Some(3 + u32::from(preset("ice"))));
    assert_eq!(c.triangle_slot(0, 12), None);
}

#[test]
fn a_passable_block_makes_no_triangles_and_water_is_water() {
    let pal = vec![
        PaletteEntry::empty(),
        mc("water"),
        mc("short_grass"),
        mc("stone"),
    ];
    let cp = CollisionPalette::resolve(&pal, tables(), Some(MC), None, 0);
    for v in [1, 2] {
        let mut w = MapChunks::new(16);
        w.set([5, 5, 5], v);
        let c = cook(&w, &cp, [0, 0, 0]);
        assert_eq!(c.triangle_count(), 0, "palette index {v} is passable");
        assert!(c.is_empty());
    }
    // The same cell of stone: a closed cube, 6 quads.
    let mut w = MapChunks::new(16);
    w.set([5, 5, 5], 3);
    let c = cook(&w, &cp, [0, 0, 0]);
    assert_eq!((c.quads, c.triangle_count()), (6, 12));
    // The water cell answers the water query.
    let looks = VoxelLooks::resolve(
        &pal,
        tables(),
        Some(MC),
        None,
        Some(&FluidTable::minecraft()),
    );
    let field = FluidField::new(&looks, Placement::identity()).expect("a field");
    let mut w = MapChunks::new(16);
    w.set([5, 5, 5], 1);
    let s = field
        .water_at(&w, [5.5, 5.3, 5.5])
        .expect("in the water cell");
    assert!(s.submerged);
    assert_eq!(s.block, "water");
    assert!(field.is_water(&w, [5.5, 5.3, 5.5]));
    assert!(!field.is_water(&w, [7.5, 5.3, 5.5]));
}

// ── The face pass and greedy merging ────────────────────────────────────

#[test]
fn a_flat_floor_is_one_quad_a_side() {
    let pal = test_palette();
    let mut w = MapChunks::new(16);
    for z in 0..16 {
        for x in 0..16 {
            w.set([x, 0, z], 1);
        }
    }
    let c = cook(&w, &pal, [0, 0, 0]);
    // Top, bottom and four 16 × 1 sides.
    assert_eq!(c.quads, 6);
    assert_eq!(c.triangle_count(), 12);
    let tris = triangles(&c);
    let total: f32 = tris.iter().map(|t| t.2).sum();
    assert!(
        (total - (2.0 * 256.0 + 4.0 * 16.0)).abs() < 1e-3,
        "area {total}"
    );
    // Every face outward: the top's normal is +Y at y = 1, the bottom's -Y at y = 0.
    for (tri, n, _) in &tris {
        let mid = [0, 1, 2].map(|a| (tri[0][a] + tri[1][a] + tri[2][a]) / 3.0);
        let out = [mid[0] - 8.0, mid[1] - 0.5, mid[2] - 8.0];
        assert!(
            n[0] * out[0] + n[1] * out[1] + n[2] * out[2] > 0.0,
            "outward"
        );
    }
}

#[test]
fn faces_split_at_a_surface_seam() {
    let pal = test_palette();
    let mut w = MapChunks::new(16);
    for z in 0..16 {
        for x in 0..16 {
            w.set([x, 0, z], if x < 8 { 2 } else { 3 });
        }
    }
    let c = cook(&w, &pal, [0, 0, 0]);
    // Top 2, bottom 2, -X 1 (grass), +X 1 (wood), each Z side split at x = 8: 2 + 2.
    assert_eq!(c.quads, 10);
    assert_eq!(c.parts.len(), 2);
    let by = |name: &str| {
        c.parts
            .iter()
            .find(|p| p.surface == preset(name))
            .map(|p| p.triangles.len())
    };
    assert_eq!(by("grass"), Some(10));
    assert_eq!(by("wood"), Some(10));
    // The seam is exact to the block: no grass triangle reaches past x = 8.
    for p in &c.parts {
        let (lo, hi) = if p.surface == preset("grass") {
            (0.0, 8.0)
        } else {
            (8.0, 16.0)
        };
        assert!(p.vertices.iter().all(|v| v[0] >= lo && v[0] <= hi));
    }
}

#[test]
fn no_face_between_chunks_and_none_inside() {
    let pal = test_palette();
    let mut w = MapChunks::new(16);
    for z in 0..16 {
        for x in 0..32 {
            w.set([x, 0, z], 1);
        }
    }
    // Chunk 0: no +X face (its neighbor is solid there).
    let c = cook(&w, &pal, [0, 0, 0]);
    assert_eq!(c.quads, 5);
    let tris = triangles(&c);
    assert!(tris.iter().all(|(t, _, _)| t.iter().any(|v| v[0] < 16.0)));
    // Two cells stacked: four 1 × 2 sides, a top and a bottom.
    let mut w = MapChunks::new(16);
    w.set([3, 3, 3], 1);
    w.set([3, 4, 3], 1);
    assert_eq!(cook(&w, &pal, [0, 0, 0]).quads, 6);
    // A solid chunk buried on every side: nothing.
    let mut w = MapChunks::new(16);
    for z in -16..32 {
        for y in -16..32 {
            for x in -16..32 {
                w.set([x, y, z], 1);
            }
        }
    }
    w.compact();
    assert_eq!(cook(&w, &pal, [0, 0, 0]).quads, 0);
    // A 2 × 2 × 2 block of cells: six 2 × 2 quads.
    let mut w = MapChunks::new(16);
    for z in 0..2 {
        for y in 0..2 {
            for x in 0..2 {
                w.set([x + 6, y + 6, z + 6], 4);
            }
        }
    }
    let c = cook(&w, &pal, [0, 0, 0]);
    assert_eq!(c.quads, 6);
    assert!(triangles(&c).iter().all(|t| (t.2 - 2.0).abs() < 1e-5));
    // An L of two surfaces on a row: x 0..3 stone, x 3..5 grass, one row: the top splits.
    let mut w = MapChunks::new(16);
    for x in 0..5 {
        w.set([x, 0, 0], if x < 3 { 1 } else { 2 });
    }
    // Top 2, bottom 2, -Z 2, +Z 2, -X 1, +X 1.
    assert_eq!(cook(&w, &pal, [0, 0, 0]).quads, 10);
}

#[test]
fn an_index_past_the_palette_is_solid_stone() {
    let pal = test_palette();
    let mut w = MapChunks::new(16);
    w.set([1, 1, 1], 999);
    let c = cook(&w, &pal, [0, 0, 0]);
    assert_eq!(c.quads, 6);
    assert_eq!(c.parts[0].surface, preset("stone"));
}

#[test]
fn placement_scales_and_a_mirror_stays_outward() {
    let pal = test_palette();
    let mut w = MapChunks::new(16);
    w.set([0, 0, 0], 1);
    // A tenth of a meter a cell, mirrored in Z, moved to (10, 0, 0).
    let pl = Placement::from_matrix([
        [0.1, 0.0, 0.0, 10.0],
        [0.0, 0.1, 0.0, 0.0],
        [0.0, 0.0, -0.1, 0.0],
    ]);
    let c = cook_with(&w, &pal, &pl, [0, 0, 0]);
    assert_eq!(c.origin, [10.0, 0.0, 0.0]);
    let tris = triangles(&c);
    let total: f32 = tris.iter().map(|t| t.2).sum();
    assert!((total - 0.06).abs() < 1e-5);
    let center = [10.05, 0.05, -0.05];
    for (tri, n, _) in &tris {
        let mid = [0, 1, 2].map(|a| (tri[0][a] + tri[1][a] + tri[2][a]) / 3.0);
        let out = [0, 1, 2].map(|a| mid[a] - center[a]);
        assert!(
            n[0] * out[0] + n[1] * out[1] + n[2] * out[2] > 0.0,
            "outward"
        );
    }
}

// ── Standing on it ──────────────────────────────────────────────────────

/// A stone slab 64 × 4 × 64 cells (top at y = 4), chunked at 16.
fn slab_world() -> MapChunks {
    let mut w = MapChunks::new(16);
    for z in 0..64 {
        for y in 0..4 {
            for x in 0..64 {
                w.set([x, y, z], 1);
            }
        }
    }
    w.compact();
    w
}

fn volume(w: MapChunks, pal: CollisionPalette, cells: [[i32; 3]; 2]) -> CollisionVolume {
    CollisionVolume {
        name: "test".into(),
        source: Arc::new(w),
        palette: Arc::new(pal),
        placement: Placement::identity(),
        cells,
    }
}

#[test]
fn a_pawn_stands_and_walks_on_voxel_ground() {
    let mut physics = PhysicsWorld::new(PhysicsParams::default()).expect("a world");
    let mut streamer = CollisionStreamer::new(CollisionConfig {
        workers: 0,
        ..CollisionConfig::default()
    });
    let vol = streamer
        .add_volume(volume(
            slab_world(),
            test_palette(),
            [[0, 0, 0], [64, 4, 64]],
        ))
        .expect("a volume");
    // Dropped from a meter up, near a chunk corner.
    let pawn = physics.spawn_pawn([15.0, 5.0, 15.0], 0.0).expect("a pawn");
    for _ in 0..128 {
        let feet = physics.pawn_state(pawn).expect("a pawn").feet;
        streamer.update(&mut physics, &[feet]);
        physics.step();
    }
    let s = physics.pawn_state(pawn).expect("a pawn");
    assert!(s.grounded, "it landed: {s:?}");
    assert!((s.feet[1] - 4.0).abs() < 0.05, "on the top at y = 4: {s:?}");
    let ground = s.ground.expect("it stands on a body");
    let (v, chunk) = streamer.chunk_of_body(ground).expect("a chunk body");
    assert_eq!(v, vol);
    assert_eq!(chunk, [0, 0, 0]);
    // Walk right (+X, facing -Z) across the chunk border at x = 16.
    physics
        .set_pawn_input(
            pawn,
            PawnInput {
                move_local: [1.0, 0.0],
                yaw: 0.0,
                pitch: 0.0,
                jump: false,
            },
        )
        .expect("input");
    for _ in 0..64 {
        let feet = physics.pawn_state(pawn).expect("a pawn").feet;
        streamer.update(&mut physics, &[feet]);
        physics.step();
        let s = physics.pawn_state(pawn).expect("a pawn");
        assert!(s.grounded, "still on the ground: {s:?}");
        assert!((s.feet[1] - 4.0).abs() < 0.05, "level: {s:?}");
    }
    let s = physics.pawn_state(pawn).expect("a pawn");
    assert!(s.feet[0] > 17.0, "walked across x = 16: {s:?}");
    let (_, chunk) = streamer
        .chunk_of_body(s.ground.expect("ground"))
        .expect("a chunk body");
    assert_eq!(chunk, [1, 0, 0]);
}

// ── Streaming ───────────────────────────────────────────────────────────

/// A stone floor 256 × 1 × 256 cells (top at y = 1).
fn floor_world() -> MapChunks {
    let mut w = MapChunks::new(16);
    for z in 0..256 {
        for x in 0..256 {
            w.set([x, 0, z], 1);
        }
    }
    w
}

fn chunk_distance(p: [f32; 3], chunk: [i32; 3]) -> f32 {
    let d2: f32 = (0..3)
        .map(|a| {
            let lo = chunk[a] as f32 * 16.0;
            let d = (lo - p[a]).max(p[a] - lo - 16.0).max(0.0);
            d * d
        })
        .sum();
    d2.sqrt()
}

#[test]
fn bodies_stay_near_pawns_and_urgent_chunks_cook_before_the_tick() {
    let config = CollisionConfig {
        radius: 24.0,
        margin: 8.0,
        urgent: 4.0,
        workers: 1,
    };
    let mut physics = PhysicsWorld::new(PhysicsParams::default()).expect("a world");
    let mut streamer = CollisionStreamer::new(config);
    let vol = streamer
        .add_volume(volume(
            floor_world(),
            test_palette(),
            [[0, 0, 0], [256, 1, 256]],
        ))
        .expect("a volume");
    let at = [40.0, 1.0, 40.0];
    let first = streamer.update(&mut physics, &[at]);
    // The chunk under the pawn is solid before any worker reports.
    assert_eq!(
        first.cooked_now, 1,
        "only the chunk underfoot is within 4 + 1 m: {first:?}"
    );
    assert!(streamer.body_of_chunk(vol, [2, 0, 2]).is_some());
    streamer.flush(&mut physics);
    let check = |streamer: &CollisionStreamer, pawns: &[[f32; 3]]| {
        for cz in 0..16 {
            for cx in 0..16 {
                let d = pawns
                    .iter()
                    .map(|&p| chunk_distance(p, [cx, 0, cz]))
                    .fold(f32::INFINITY, f32::min);
                let has = streamer.body_of_chunk(vol, [cx, 0, cz]).is_some();
                if d <= config.radius {
                    assert!(has, "chunk ({cx}, 0, {cz}) at {d} m has a body");
                }
                if d > config.radius + config.margin {
                    assert!(!has, "chunk ({cx}, 0, {cz}) at {d} m has none");
                }
            }
        }
    };
    check(&streamer, &[at]);
    // 24 m around (40, 1, 40) at 16-cell chunks: the chunk the pawn is in (x and z
    // 32..48) is 0 m away on both axes, its neighbors 8 m, the next ones 24 m. Within
    // 24 m: the 3 × 3 around it and the four 24 m straight out (24 and 8 is 25.3 m): 13.
    assert_eq!(streamer.body_count(), 13);
    // Each is a top and a bottom quad; the two on the world's -X and -Z edges (chunks
    // (0, 2) and (2, 0)) have a side as well: 28 quads.
    assert_eq!(streamer.triangle_count(), 2 * 28);

    // Teleport far: the urgent chunks under the new place are cooked in the very update
    // before the tick, the old ones go.
    let far = [200.0, 1.0, 200.0];
    let s = streamer.update(&mut physics, &[far]);
    assert_eq!(s.cooked_now, 1, "{s:?}");
    assert!(streamer.body_of_chunk(vol, [12, 0, 12]).is_some());
    assert!(streamer.body_of_chunk(vol, [2, 0, 2]).is_none());
    assert_eq!(s.removed, 13);
    streamer.flush(&mut physics);
    check(&streamer, &[far]);
    assert_eq!(physics.body_count(), streamer.body_count());

    // Two pawns: the union of their neighborhoods.
    streamer.update(&mut physics, &[at, far]);
    streamer.flush(&mut physics);
    check(&streamer, &[at, far]);
    assert_eq!(streamer.body_count(), 26);

    // A pawn that teleports onto a chunk and steps at once does not fall.
    let pawn = physics
        .spawn_pawn([120.5, 1.0, 120.5], 0.0)
        .expect("a pawn");
    let feet = physics.pawn_state(pawn).expect("a pawn").feet;
    streamer.update(&mut physics, &[at, far, feet]);
    physics.step();
    let st = physics.pawn_state(pawn).expect("a pawn");
    assert!(st.feet[1] > 0.9, "it did not fall through: {st:?}");
    physics
        .teleport_pawn(pawn, [88.5, 1.0, 88.5], 0.0, 0.0, TeleportVelocity::Zero)
        .expect("teleport");
    let feet = physics.pawn_state(pawn).expect("a pawn").feet;
    streamer.update(&mut physics, &[at, far, feet]);
    for _ in 0..16 {
        physics.step();
    }
    let st = physics.pawn_state(pawn).expect("a pawn");
    assert!(st.grounded && (st.feet[1] - 1.0).abs() < 0.05, "{st:?}");

    // Removing the volume removes its bodies.
    streamer.remove_volume(&mut physics, vol);
    assert_eq!(streamer.body_count(), 0);
    assert_eq!(physics.body_count(), 0);
}

#[test]
fn the_streaming_preferences_are_the_specs() {
    let prefs = dh_engine::prefs::Prefs::new();
    let server = CollisionConfig::from_prefs(&prefs, false);
    assert_eq!(
        (server.radius, server.margin, server.urgent, server.workers),
        (48.0, 16.0, 4.0, 1)
    );
    assert_eq!(server, CollisionConfig::default());
    let client = CollisionConfig::from_prefs(&prefs, true);
    assert_eq!(
        (client.radius, client.margin, client.urgent, client.workers),
        (32.0, 16.0, 4.0, 1)
    );
}

// ── Swimming ────────────────────────────────────────────────────────────

fn water(level: i32) -> PaletteEntry {
    let mut e = mc("water");
    e.properties.push(Property {
        key: "level".into(),
        value: PropValue::Int(level),
    });
    e
}

#[test]
fn the_water_query_reads_the_grid() {
    // 0 empty, 1 stone, 2 water source, 3 water level 4, 4 a waterlogged stair.
    let mut stair = mc("oak_stairs");
    stair
        .properties
        .push(Property::string("waterlogged", "true"));
    let pal = vec![
        PaletteEntry::empty(),
        mc("stone"),
        water(0),
        water(4),
        stair,
    ];
    let looks = VoxelLooks::resolve(
        &pal,
        tables(),
        Some(MC),
        None,
        Some(&FluidTable::minecraft()),
    );
    let field = FluidField::new(&looks, Placement::identity()).expect("a field");
    let mut w = MapChunks::new(16);
    // A pool: stone floor y = 0 over x, z 0..8, water y = 1..=2 over x, z 2..6, stone
    // around it up to y = 2.
    for z in 0..8 {
        for x in 0..8 {
            w.set([x, 0, z], 1);
            for y in 1..3 {
                let inside = (2..6).contains(&x) && (2..6).contains(&z);
                w.set([x, y, z], if inside { 2 } else { 1 });
            }
        }
    }
    // Inside: the run is y 1..=2; every corner of the top cell at (3, 2, 3) is among
    // sources (8/9) or stone (drops out), so the surface stands at 2 + 8/9.
    let s = field.water_at(&w, [3.5, 1.5, 3.5]).expect("water");
    assert!(s.submerged);
    assert!((s.surface - (2.0 + 8.0 / 9.0)).abs() < 1e-6, "{s:?}");
    assert!((s.floor - 1.0).abs() < 1e-9);
    assert_eq!(s.top_cell, [3, 2, 3]);
    assert!((s.depth - (2.0 + 8.0 / 9.0 - 1.5)).abs() < 1e-6);
    // Over the surface in its own cell, and in the cell above: read, but dry.
    let s = field
        .water_at(&w, [3.5, 2.95, 3.5])
        .expect("the surface below");
    assert!(!s.submerged);
    let s = field
        .water_at(&w, [3.5, 3.5, 3.5])
        .expect("the surface below");
    assert!(!s.submerged && s.depth < 0.0);
    assert!(field.water_at(&w, [3.5, 4.5, 3.5]).is_none());
    // A cave under the lake is dry: by cell, not by column.
    w.set([3, -1, 3], 0);
    assert!(field.water_at(&w, [3.5, -0.5, 3.5]).is_none());
    // A level-4 flow walled in by stone: (8 − 4)/9 deep.
    w.set([12, 1, 12], 3);
    for (dx, dz) in [
        (-1, -1),
        (0, -1),
        (1, -1),
        (-1, 0),
        (1, 0),
        (-1, 1),
        (0, 1),
        (1, 1),
    ] {
        w.set([12 + dx, 1, 12 + dz], 1);
    }
    let s = field.water_at(&w, [12.5, 1.2, 12.5]).expect("a flow");
    assert!((s.surface - (1.0 + 4.0 / 9.0)).abs() < 1e-6, "{s:?}");
    assert!(s.submerged);
    assert!(
        !field.is_water(&w, [12.5, 1.5, 12.5]),
        "a shallow flow can be waded"
    );
    // A waterlogged stair stands in a source.
    w.set([20, 1, 20], 4);
    assert!(field.is_water(&w, [20.5, 1.5, 20.5]));
    // A scaled, moved volume answers in world meters.
    let pl = Placement::from_matrix([
        [0.5, 0.0, 0.0, 100.0],
        [0.0, 0.5, 0.0, 10.0],
        [0.0, 0.0, 0.5, 0.0],
    ]);
    let field = FluidField::new(&looks, pl).expect("a field");
    let s = field
        .water_at(&w, [100.0 + 3.5 * 0.5, 10.0 + 1.5 * 0.5, 3.5 * 0.5])
        .expect("water");
    assert!(
        (s.surface - (10.0 + (2.0 + 8.0 / 9.0) * 0.5)).abs() < 1e-6,
        "{s:?}"
    );
}
