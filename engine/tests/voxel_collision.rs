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
use glam::{DVec3, Vec2, Vec3};

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
        .water_at(&w, DVec3::from([5.5, 5.3, 5.5]))
        .expect("in the water cell");
    assert!(s.submerged);
    assert_eq!(s.block, "water");
    assert!(field.is_water(&w, DVec3::from([5.5, 5.3, 5.5])));
    assert!(!field.is_water(&w, DVec3::from([7.5, 5.3, 5.5])));
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
    let pl = Placement::from_rows([
        [0.1, 0.0, 0.0, 10.0],
        [0.0, 0.1, 0.0, 0.0],
        [0.0, 0.0, -0.1, 0.0],
    ]);
    let c = cook_with(&w, &pal, &pl, [0, 0, 0]);
    assert_eq!(c.origin, Vec3::new(10.0, 0.0, 0.0));
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
    let pawn = physics
        .spawn_pawn(Vec3::new(15.0, 5.0, 15.0), 0.0)
        .expect("a pawn");
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
                move_local: Vec2::new(1.0, 0.0),
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
        ..CollisionConfig::default()
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
    let first = streamer.update(&mut physics, &[Vec3::from_array(at)]);
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
    let s = streamer.update(&mut physics, &[Vec3::from_array(far)]);
    assert_eq!(s.cooked_now, 1, "{s:?}");
    assert!(streamer.body_of_chunk(vol, [12, 0, 12]).is_some());
    assert!(streamer.body_of_chunk(vol, [2, 0, 2]).is_none());
    assert_eq!(s.removed, 13);
    streamer.flush(&mut physics);
    check(&streamer, &[far]);
    assert_eq!(physics.body_count(), streamer.body_count());

    // Two pawns: the union of their neighborhoods.
    streamer.update(&mut physics, &[Vec3::from_array(at), Vec3::from_array(far)]);
    streamer.flush(&mut physics);
    check(&streamer, &[at, far]);
    assert_eq!(streamer.body_count(), 26);

    // A pawn that teleports onto a chunk and steps at once does not fall.
    let pawn = physics
        .spawn_pawn(Vec3::new(120.5, 1.0, 120.5), 0.0)
        .expect("a pawn");
    let feet = physics.pawn_state(pawn).expect("a pawn").feet;
    streamer.update(
        &mut physics,
        &[Vec3::from_array(at), Vec3::from_array(far), feet],
    );
    physics.step();
    let st = physics.pawn_state(pawn).expect("a pawn");
    assert!(st.feet[1] > 0.9, "it did not fall through: {st:?}");
    physics
        .teleport_pawn(
            pawn,
            Vec3::new(88.5, 1.0, 88.5),
            0.0,
            0.0,
            TeleportVelocity::Zero,
        )
        .expect("teleport");
    let feet = physics.pawn_state(pawn).expect("a pawn").feet;
    streamer.update(
        &mut physics,
        &[Vec3::from_array(at), Vec3::from_array(far), feet],
    );
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
        (
            server.radius,
            server.margin,
            server.urgent,
            server.workers,
            server.cell_cache_bytes
        ),
        (48.0, 16.0, 4.0, 1, 16 << 20)
    );
    assert_eq!(server, CollisionConfig::default());
    let client = CollisionConfig::from_prefs(&prefs, true);
    assert_eq!(
        (
            client.radius,
            client.margin,
            client.urgent,
            client.workers,
            client.cell_cache_bytes
        ),
        (32.0, 16.0, 4.0, 1, 16 << 20)
    );
    let mut prefs = dh_engine::prefs::Prefs::new();
    prefs
        .set("world.voxel.collisionCellCacheMb", "3")
        .expect("a preference");
    assert_eq!(
        CollisionConfig::from_prefs(&prefs, false).cell_cache_bytes,
        3 * 1024 * 1024
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
    let s = field
        .water_at(&w, DVec3::from([3.5, 1.5, 3.5]))
        .expect("water");
    assert!(s.submerged);
    assert!((s.surface - (2.0 + 8.0 / 9.0)).abs() < 1e-6, "{s:?}");
    assert!((s.floor - 1.0).abs() < 1e-9);
    assert_eq!(s.top_cell, [3, 2, 3]);
    assert!((s.depth - (2.0 + 8.0 / 9.0 - 1.5)).abs() < 1e-6);
    // Over the surface in its own cell, and in the cell above: read, but dry.
    let s = field
        .water_at(&w, DVec3::from([3.5, 2.95, 3.5]))
        .expect("the surface below");
    assert!(!s.submerged);
    let s = field
        .water_at(&w, DVec3::from([3.5, 3.5, 3.5]))
        .expect("the surface below");
    assert!(!s.submerged && s.depth < 0.0);
    assert!(field.water_at(&w, DVec3::from([3.5, 4.5, 3.5])).is_none());
    // A cave under the lake is dry: by cell, not by column.
    w.set([3, -1, 3], 0);
    assert!(field.water_at(&w, DVec3::from([3.5, -0.5, 3.5])).is_none());
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
    let s = field
        .water_at(&w, DVec3::from([12.5, 1.2, 12.5]))
        .expect("a flow");
    assert!((s.surface - (1.0 + 4.0 / 9.0)).abs() < 1e-6, "{s:?}");
    assert!(s.submerged);
    assert!(
        !field.is_water(&w, DVec3::from([12.5, 1.5, 12.5])),
        "a shallow flow can be waded"
    );
    // A waterlogged stair stands in a source.
    w.set([20, 1, 20], 4);
    assert!(field.is_water(&w, DVec3::from([20.5, 1.5, 20.5])));
    // A scaled, moved volume answers in world meters.
    let pl = Placement::from_rows([
        [0.5, 0.0, 0.0, 100.0],
        [0.0, 0.5, 0.0, 10.0],
        [0.0, 0.0, 0.5, 0.0],
    ]);
    let field = FluidField::new(&looks, pl).expect("a field");
    let s = field
        .water_at(
            &w,
            DVec3::from([100.0 + 3.5 * 0.5, 10.0 + 1.5 * 0.5, 3.5 * 0.5]),
        )
        .expect("water");
    assert!(
        (s.surface - (10.0 + (2.0 + 8.0 / 9.0) * 0.5)).abs() < 1e-6,
        "{s:?}"
    );
}

// ── Reading by range ────────────────────────────────────────────────────

use dh_content::voxel::payload::{decode_all, encode, Grid, GridInfo, PayloadReader, VoxelPayload};
use dh_engine::voxel::collision::{CellChunk, CollisionCells, RangeCells, RangeVolume};
use dh_engine::voxel::stream::{OpenPayload, OwnedPayload};
use dh_engine::voxel::{GridChunks, StoredChunk};

/// A small integer hash for the generated worlds (splitmix64's finalizer).
fn mix(a: i32, b: i32, c: i32) -> u64 {
    let mut z = (a as u32 as u64) ^ ((b as u32 as u64) << 21) ^ ((c as u32 as u64) << 42);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A generated world in `[lo, lo + size)` at 16-cell chunks: stone under grass with a
/// ground height that wanders, wood posts, ice patches, passable cells (palette 5)
/// scattered underground and, where the bounds are 32 cells tall or more, a whole chunk
/// of stone and a whole chunk of passable cells side by side over the ground's first
/// chunk. Each cell is set in both the chunk store and the payload's grid.
fn generated(lo: [i32; 3], size: [i32; 3]) -> (MapChunks, VoxelPayload) {
    let mut w = MapChunks::new(16);
    let mut p = VoxelPayload::default();
    p.header.chunk_edge = 16;
    p.palette = vec![
        PaletteEntry::empty(),
        mc("stone"),
        mc("grass_block"),
        mc("oak_planks"),
        mc("ice"),
        mc("short_grass"),
    ];
    p.grids = vec![Grid::new(GridInfo::new("world", lo, size))];
    for z in lo[2]..lo[2] + size[2] {
        for x in lo[0]..lo[0] + size[0] {
            let ground = 6 + (mix(x / 5, z / 7, 1) % 9) as i32;
            for y in lo[1]..lo[1] + size[1] {
                let h = mix(x, y, z);
                let v = if y < ground - 1 {
                    if h.is_multiple_of(11) {
                        5
                    } else {
                        1
                    }
                } else if y == ground - 1 {
                    if mix(x / 3, z / 3, 2).is_multiple_of(5) {
                        4
                    } else {
                        2
                    }
                } else if y < ground + 3 && x % 9 == 0 && z % 7 == 0 {
                    3
                } else {
                    0
                };
                if v != 0 {
                    w.set([x, y, z], v);
                    assert!(p.set_cell(0, 0, [x, y, z], v));
                }
            }
        }
    }
    if size[1] >= 32 {
        // The first whole chunks inside the bounds on X and Z.
        let ax = (lo[0] + 15).div_euclid(16) * 16;
        let az = (lo[2] + 15).div_euclid(16) * 16;
        for z in az..az + 16 {
            for y in 16..32 {
                for x in ax..ax + 32 {
                    let v = if x < ax + 16 { 1 } else { 5 };
                    w.set([x, y, z], v);
                    assert!(p.set_cell(0, 0, [x, y, z], v));
                }
            }
        }
    }
    w.compact();
    (w, p)
}

fn owned(p: &VoxelPayload) -> Arc<OpenPayload> {
    let shards = encode(p).expect("it encodes");
    Arc::new(
        OpenPayload::open(Arc::new(OwnedPayload {
            name: "test.dh-vox.bin".into(),
            shards,
        }))
        .expect("it opens"),
    )
}

#[test]
fn a_grid_read_by_range_cooks_the_same_triangles_as_a_whole_decode() {
    // 80 × 40 × 72 cells from (-40, 0, -24): chunks -3..=2 on X, crossing the region
    // border at chunk 0 (regions are 32 chunks).
    let lo = [-40, 0, -24];
    let size = [80, 40, 72];
    let (w, p) = generated(lo, size);
    let open = owned(&p);
    // A cache of 8 chunks (16 KiB of cells each), so chunks are evicted and read again.
    let cells = Arc::new(RangeCells::new("test", open.clone(), 0, 8 * (16 << 10)).expect("grid 0"));
    assert_eq!(cells.chunks_decoded(), 0, "opening decodes nothing");
    assert_eq!(cells.chunk_bounds(), [[-3, 0, -2], [2, 2, 2]]);
    // The stone chunk (cells x -32..-16, y 16..32, z -16..0) is one value, held as such;
    // the passable one beside it too.
    assert_eq!(w.chunks.get(&[-2, 1, -1]), Some(&StoredChunk::Uniform(1)));
    assert_eq!(*cells.chunk([-2, 1, -1]), CellChunk::Uniform(1));
    assert_eq!(*cells.chunk([-1, 1, -1]), CellChunk::Uniform(5));
    assert_eq!(cells.cache_bytes(), 2 * 16);
    // The whole decode of the same bytes, as the host used to hold it.
    let shards = encode(&p).expect("it encodes");
    let refs: Vec<&[u8]> = shards.iter().map(Vec::as_slice).collect();
    let whole = decode_all(&refs).expect("it decodes");
    let whole = GridChunks {
        grid: &whole.grids[0],
        edge: 16,
    };
    let range = CollisionCells::Range(cells.clone());
    let pal = CollisionPalette::resolve(&p.palette, tables(), Some(MC), None, 3);
    // A turned, scaled, moved placement as well as the identity.
    let placements = [
        Placement::identity(),
        Placement::from_rows([
            [0.0, 0.0, 0.5, 3.0],
            [0.0, 0.5, 0.0, -1.0],
            [-0.5, 0.0, 0.0, 7.0],
        ]),
    ];
    let mut faced = 0;
    for pl in &placements {
        // Every chunk of the bounds and one ring outside (those cook to nothing).
        for cz in -3..=3 {
            for cy in -1..=3 {
                for cx in -4..=3 {
                    let c = [cx, cy, cz];
                    let mut scratch = CookScratch::default();
                    let mut a = CookedChunk::default();
                    range.cook(&pal, pl, c, &mut scratch, &mut a);
                    let b = cook_with(&w, &pal, pl, c);
                    let mut d = CookedChunk::default();
                    cook_chunk(&whole, &pal, pl, c, &mut scratch, &mut d);
                    assert_eq!(a, b, "chunk {c:?}: range read vs the generated world");
                    assert_eq!(a, d, "chunk {c:?}: range read vs the whole decode");
                    if !a.is_empty() {
                        faced += 1;
                    }
                }
            }
        }
        assert!(cells.cache_bytes() <= 8 * (16 << 10));
    }
    // The world has faces in every column of chunks it covers (6 × 5 columns, twice).
    assert!(faced >= 60, "{faced} chunks with faces");
    assert!(cells.take_log().is_empty());
    // A cache that held every chunk once read each stored chunk once.
    let all = RangeCells::new("test", open, 0, 64 << 20).expect("grid 0");
    for cz in -2..=2 {
        for cy in 0..=2 {
            for cx in -3..=2 {
                let _ = all.chunk([cx, cy, cz]);
                let _ = all.chunk([cx, cy, cz]);
            }
        }
    }
    let stored = w
        .chunks
        .values()
        .filter(|c| !matches!(c, StoredChunk::Uniform(0)))
        .count() as u64;
    assert_eq!(all.chunks_decoded(), stored);
}

/// The payload's bytes with chunk `chunk`'s record made undecodable (its codec tag set
/// to 9, which no codec is).
fn corrupt_chunk(p: &VoxelPayload, chunk: [i32; 3]) -> Vec<Vec<u8>> {
    let mut shards = encode(p).expect("it encodes");
    let (shard, at) = {
        let refs: Vec<&[u8]> = shards.iter().map(Vec::as_slice).collect();
        let r = PayloadReader::open(&refs).expect("it opens");
        let key = dh_content::voxel::payload::ChunkKey { layer: 0, chunk };
        let (ri, ci) = r.find_chunk(0, key).expect("a table").expect("stored");
        let region = r.regions()[ri];
        let entry = r.chunk_table(ri).expect("a table").entries()[ci];
        (
            region.shard as usize,
            (region.offset + u64::from(entry.offset)) as usize,
        )
    };
    shards[shard][at] = 9;
    shards
}

#[test]
fn a_chunk_that_does_not_decode_is_empty_and_logged_once() {
    let (w, p) = generated([0, 0, 0], [48, 16, 48]);
    let shards = corrupt_chunk(&p, [1, 0, 1]);
    let open = Arc::new(
        OpenPayload::open(Arc::new(OwnedPayload {
            name: "bad.dh-vox.bin".into(),
            shards,
        }))
        .expect("the header and index still read"),
    );
    // A cache of one chunk: the bad chunk is evicted and read again.
    let cells = Arc::new(RangeCells::new("bad", open, 0, 16 << 10).expect("grid 0"));
    let range = CollisionCells::Range(cells.clone());
    let pal = test_palette();
    let id = Placement::identity();
    let mut scratch = CookScratch::default();
    let mut out = CookedChunk::default();
    range.cook(&pal, &id, [1, 0, 1], &mut scratch, &mut out);
    assert!(out.is_empty(), "the bad chunk has no faces");
    // Its neighbor reads it as empty: the neighbor's cells facing it show faces, which
    // the intact world buries. By hand: the +X neighbor (2, 0, 1) against an empty
    // (1, 0, 1) gets a -X face over every solid cell of its x = 32 column.
    range.cook(&pal, &id, [2, 0, 1], &mut scratch, &mut out);
    let mut with_empty = MapChunks::new(16);
    with_empty.chunks = w.chunks.clone();
    with_empty.chunks.remove(&[1, 0, 1]);
    assert_eq!(out, cook(&with_empty, &pal, [2, 0, 1]));
    assert_ne!(out, cook(&w, &pal, [2, 0, 1]));
    let log = cells.take_log();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains("'bad'") && log[0].contains("[1, 0, 1]"),
        "{log:?}"
    );
    assert!(log[0].contains("codec tag"), "{log:?}");
    // Read again after it was evicted: no second line.
    for c in [[0, 0, 0], [1, 0, 1], [2, 0, 2], [1, 0, 1]] {
        range.cook(&pal, &id, c, &mut scratch, &mut out);
    }
    assert!(cells.take_log().is_empty());

    // Through the streamer: a pawn standing on it cooks it on the spot; nothing panics,
    // the chunk has no body, and the streamer's log says it once.
    let (_, p) = generated([0, 0, 0], [48, 16, 48]);
    let open = Arc::new(
        OpenPayload::open(Arc::new(OwnedPayload {
            name: "bad.dh-vox.bin".into(),
            shards: corrupt_chunk(&p, [1, 0, 1]),
        }))
        .expect("it opens"),
    );
    let cells = Arc::new(RangeCells::new("bad", open, 0, 1 << 20).expect("grid 0"));
    let mut physics = PhysicsWorld::new(PhysicsParams::default()).expect("a world");
    let mut streamer = CollisionStreamer::new(CollisionConfig {
        workers: 1,
        ..CollisionConfig::default()
    });
    let vol = streamer
        .add_range_volume(RangeVolume {
            name: "bad".into(),
            cells,
            palette: Arc::new(test_palette()),
            placement: Placement::identity(),
        })
        .expect("a volume");
    streamer.update(&mut physics, &[Vec3::new(24.0, 20.0, 24.0)]);
    streamer.flush(&mut physics);
    assert!(streamer.body_of_chunk(vol, [1, 0, 1]).is_none());
    assert!(streamer.body_of_chunk(vol, [0, 0, 0]).is_some());
    let log = streamer.take_log();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(streamer.take_log().is_empty());
}

#[test]
fn the_cell_cache_stays_within_its_bound_while_a_pawn_walks_across_a_big_world() {
    // 2048 × 16 × 48 cells at 16: 128 × 1 × 3 chunks, each a floor with a bump pattern
    // (none uniform, so each holds 16 KiB of cells when decoded).
    let size = [2048, 16, 48];
    let mut p = VoxelPayload::default();
    p.header.chunk_edge = 16;
    p.palette = vec![PaletteEntry::empty(), mc("stone"), mc("grass_block")];
    p.grids = vec![Grid::new(GridInfo::new("long", [0, 0, 0], size))];
    for z in 0..size[2] {
        for x in 0..size[0] {
            assert!(p.set_cell(0, 0, [x, 0, z], 1));
            assert!(p.set_cell(0, 0, [x, 1, z], 1));
            if (x + z) % 13 == 0 {
                assert!(p.set_cell(0, 0, [x, 8, z], 2));
            }
        }
    }
    // Six chunks' worth of cells: far fewer than one pawn's neighborhood.
    let bound = 6 * (16 * 16 * 16 * 4 + 16);
    let cells = Arc::new(RangeCells::new("long", owned(&p), 0, bound).expect("grid 0"));
    let mut physics = PhysicsWorld::new(PhysicsParams::default()).expect("a world");
    let mut streamer = CollisionStreamer::new(CollisionConfig {
        radius: 24.0,
        margin: 8.0,
        urgent: 4.0,
        workers: 1,
        cell_cache_bytes: bound,
    });
    let vol = streamer
        .add_range_volume(RangeVolume {
            name: "long".into(),
            cells: cells.clone(),
            palette: Arc::new(CollisionPalette::resolve(
                &p.palette,
                tables(),
                Some(MC),
                None,
                0,
            )),
            placement: Placement::identity(),
        })
        .expect("a volume");
    assert_eq!(streamer.chunks_decoded(), 0);
    let pawn = physics
        .spawn_pawn(Vec3::new(8.5, 2.0, 24.5), 0.0)
        .expect("a pawn");
    let mut most = 0;
    // Carried 1 m along +X each tick, across the whole world.
    for i in 0..2000 {
        let x = 8.5 + i as f32;
        physics
            .teleport_pawn(
                pawn,
                Vec3::new(x, 2.0, 24.5),
                0.0,
                0.0,
                TeleportVelocity::Zero,
            )
            .expect("teleport");
        let feet = physics.pawn_state(pawn).expect("a pawn").feet;
        streamer.update(&mut physics, &[feet]);
        physics.step();
        let held = streamer.cell_cache_bytes();
        assert!(held <= bound, "tick {i}: {held} bytes held of {bound}");
        most = most.max(held);
        let s = physics.pawn_state(pawn).expect("a pawn");
        assert!(s.feet[1] > 1.5, "tick {i}: it never falls: {s:?}");
        // The chunk underfoot is solid before the tick steps.
        let under = [(x / 16.0) as i32, 0, 1];
        assert!(streamer.body_of_chunk(vol, under).is_some(), "tick {i}");
    }
    assert!(most > bound / 2, "the cache was used: {most}");
    // Every chunk was decoded at least once, many more than once (evicted and read
    // again), and nothing failed.
    assert!(streamer.chunks_decoded() >= 128 * 3);
    assert!(streamer.take_log().is_empty());
    assert!(cells.cached_chunks() <= 6);
}

#[test]
fn corrupt_payload_bytes_never_panic_a_range_read_cook() {
    let (_, p) = generated([0, 0, 0], [32, 32, 32]);
    let clean = encode(&p).expect("it encodes");
    assert_eq!(clean.len(), 1);
    let pal = test_palette();
    let id = Placement::identity();
    let mut scratch = CookScratch::default();
    let mut out = CookedChunk::default();
    let (mut opened, mut logged) = (0, 0);
    // Every ninth byte flipped in turn (a stride keeps the debug build quick): the payload
    // either does not open (its header or index is checked whole) or every chunk cooks,
    // the bad ones as empty, each logged at most once.
    for at in (0..clean[0].len()).step_by(9) {
        let mut bytes = clean.clone();
        bytes[0][at] ^= 0xa5;
        let Ok(open) = OpenPayload::open(Arc::new(OwnedPayload {
            name: "flipped.dh-vox.bin".into(),
            shards: bytes,
        })) else {
            continue;
        };
        let Ok(cells) = RangeCells::new("flipped", Arc::new(open), 0, 1 << 16) else {
            continue;
        };
        opened += 1;
        let range = CollisionCells::Range(Arc::new(cells));
        for _ in 0..2 {
            for cz in -1..=2 {
                for cy in -1..=2 {
                    for cx in -1..=2 {
                        range.cook(&pal, &id, [cx, cy, cz], &mut scratch, &mut out);
                    }
                }
            }
        }
        if let CollisionCells::Range(r) = &range {
            let log = r.take_log();
            assert!(log.len() <= 8, "each of the 8 chunks at most once: {log:?}");
            logged += usize::from(!log.is_empty());
        }
    }
    // Flips inside the chunk records open fine and are caught per chunk.
    assert!(opened > 0 && logged > 0, "opened {opened}, logged {logged}");
}

// ── Block shapes (spec "Block shapes") ─────────────────────────────────────────────

/// A platform pallet `com.mojang.minecraft` written here by hand: a slab (a bottom half,
/// the top one turned x 180), a stair (the straight model: a bottom half and an upper
/// step on the east half; facing south turns it y 90), a fence post as a box raised to a
/// block and a half, planks as a whole cube and glass with an empty collision.
fn shape_pallet() -> dh_content::pallet::Pallet {
    use dh_content::pallet::{CodecChoice, EntryMeta, Manifest, Pallet, PalletWriter};
    let half = r#"{ "elements": [ { "from": [0, 0, 0], "to": [16, 8, 16] } ] }"#;
    let stairs = r#"{ "elements": [ { "from": [0, 0, 0], "to": [16, 8, 16] }, { "from": [8, 8, 0], "to": [16, 16, 16] } ] }"#;
    let blocks = [
        (
            "oak_slab",
            format!(
                r#"{{ "id": "minecraft:oak_slab", "rules": [
  {{ "when": {{ "type": "bottom" }}, "apply": [ {{ "model": "slab" }} ] }},
  {{ "when": {{ "type": "top" }}, "apply": [ {{ "model": "slab", "x": 180 }} ] }} ],
  "models": {{ "slab": {half} }}, "collision": "model" }}"#
            ),
        ),
        (
            "oak_stairs",
            format!(
                r#"{{ "id": "minecraft:oak_stairs", "rules": [
  {{ "when": {{ "facing": "east" }}, "apply": [ {{ "model": "stairs" }} ] }},
  {{ "when": {{ "facing": "south" }}, "apply": [ {{ "model": "stairs", "y": 90 }} ] }} ],
  "models": {{ "stairs": {stairs} }} }}"#
            ),
        ),
        (
            "oak_fence",
            r#"{ "id": "minecraft:oak_fence", "rules": [], "collision": [[6, 0, 6, 10, 16, 10]], "collisionHeight": 24 }"#.to_string(),
        ),
        (
            "oak_planks",
            r#"{ "id": "minecraft:oak_planks", "rules": [], "collision": "cube" }"#.to_string(),
        ),
        (
            "glass",
            r#"{ "id": "minecraft:glass", "rules": [], "collision": "none" }"#.to_string(),
        ),
    ];
    let mut w = PalletWriter::new(Manifest::new(MC, "Minecraft", "26.1.0")).expect("a writer");
    for (id, text) in blocks {
        w.add(
            &format!("blocks/{id}.dh-block"),
            text.into_bytes(),
            EntryMeta::default(),
            CodecChoice::Auto,
        )
        .expect("an entry");
    }
    Pallet::from_bytes(w.finish().expect("a pallet")).expect("it reads")
}

fn mc_with(id: &str, props: &[(&str, &str)]) -> PaletteEntry {
    let mut e = mc(id);
    for (k, v) in props {
        e.properties.push(Property {
            key: k.to_string(),
            value: PropValue::String(v.to_string()),
        });
    }
    e
}

/// Air, planks, a bottom slab, a stair facing south, a fence and glass.
fn shape_entries() -> Vec<PaletteEntry> {
    vec![
        PaletteEntry::empty(),
        mc("oak_planks"),
        mc_with("oak_slab", &[("type", "bottom")]),
        mc_with("oak_stairs", &[("facing", "south")]),
        mc("oak_fence"),
        mc("glass"),
    ]
}

fn shaped_palette(with_pallet: bool) -> CollisionPalette {
    use dh_engine::voxel::shapes::PalletShapes;
    let pallet = shape_pallet();
    let mut shapes = PalletShapes::new(&pallet, "minecraft");
    let shapes = with_pallet.then_some(&mut shapes);
    CollisionPalette::resolve_shaped(&shape_entries(), tables(), Some(MC), None, shapes, 0)
}

/// The triangles of `c` whose three corners lie at height `y`, and their summed area.
fn flat_area_at(c: &CookedChunk, y: f32) -> f32 {
    triangles(c)
        .iter()
        .filter(|(t, _, _)| t.iter().all(|v| (v[1] - y).abs() < 1e-6))
        .map(|(_, _, a)| *a)
        .sum()
}

#[test]
fn the_pallets_shapes_are_read_once_per_palette_and_solidity_stays_the_tables() {
    let pal = shaped_palette(true);
    // Slab, stair and fence are boxes; planks (a whole cube) stay on the cube path; glass,
    // solid in the table, is not solid after all (an empty collision).
    assert_eq!(pal.shaped_entries(), 3);
    assert_eq!(pal.shape_boxes(1), None);
    assert!(pal.block(1).solid);
    assert_eq!(
        pal.shape_boxes(2),
        Some(&[[0.0, 0.0, 0.0, 1.0, 0.5, 1.0]][..])
    );
    // The stair facing south: its bottom half, and the upper step turned y 90 from the
    // east half (x 8..16) to the south half (z 8..16).
    assert_eq!(
        pal.shape_boxes(3),
        Some(
            &[
                [0.0, 0.0, 0.0, 1.0, 0.5, 1.0],
                [0.0, 0.5, 0.5, 1.0, 1.0, 1.0]
            ][..]
        )
    );
    assert_eq!(
        pal.shape_boxes(4),
        Some(&[[0.375, 0.0, 0.375, 0.625, 1.5, 0.625]][..])
    );
    assert!(pal.block(4).solid);
    assert_eq!(pal.block(4).surface, preset("wood"));
    assert!(!pal.block(5).solid);
    // Without the pallet every one of them is a whole cube, glass solid.
    let cubes = shaped_palette(false);
    assert_eq!(cubes.shaped_entries(), 0);
    assert!(cubes.block(5).solid);
}

#[test]
fn a_slab_on_a_cube_is_half_a_block_with_its_underside_hidden() {
    let mut w = MapChunks::new(16);
    w.set([3, 3, 3], 1);
    w.set([3, 4, 3], 2);
    let c = cook(&w, &shaped_palette(true), [0, 0, 0]);
    // The plank cube: six faces (its top touches the slab, which is no whole cube). The
    // slab: its top at 4.5 and four sides; its underside, on a whole cube, is hidden.
    assert_eq!(c.quads, 6 + 5);
    assert!((flat_area_at(&c, 4.5) - 1.0).abs() < 1e-6);
    assert!((flat_area_at(&c, 5.0)).abs() < 1e-6);
    // The cube's top at 4 (one face) and nothing of the slab there.
    assert!((flat_area_at(&c, 4.0) - 1.0).abs() < 1e-6);
    // Every face is wood (planks and the oak slab), one part.
    assert_eq!(c.parts.len(), 1);
    assert_eq!(c.parts[0].surface, preset("wood"));
    // Without the pallet: two cubes, ten faces merged into 6 quads (the sides two cells
    // tall), a top at 5.
    let cubes = cook(&w, &shaped_palette(false), [0, 0, 0]);
    assert_eq!(cubes.quads, 6);
    assert!((flat_area_at(&cubes, 5.0) - 1.0).abs() < 1e-6);
}

#[test]
fn a_stair_has_its_two_steps_turned_as_its_rule_says() {
    let mut w = MapChunks::new(16);
    w.set([3, 3, 3], 3);
    let c = cook(&w, &shaped_palette(true), [0, 0, 0]);
    // Two boxes in air: twelve faces.
    assert_eq!(c.quads, 12);
    // At 3.5: the low step's top (the whole cell's, under the high step too: faces
    // between one block's own boxes are not culled) and the high step's underside over
    // the south half; the high step's top at 4 over the south half (z 3.5..4).
    assert!(
        (flat_area_at(&c, 3.5) - 1.0 - 0.5).abs() < 1e-6,
        "the low top and the high step's underside"
    );
    assert!((flat_area_at(&c, 4.0) - 0.5).abs() < 1e-6);
    for (t, n, _) in triangles(&c) {
        if t.iter().all(|v| (v[1] - 4.0).abs() < 1e-6) {
            assert!(
                t.iter().all(|v| v[2] >= 3.5 - 1e-6),
                "the high step is south: {t:?}"
            );
            assert!(n[1] > 0.99, "faces up: {n:?}");
        }
    }
}

#[test]
fn a_fence_post_stands_a_block_and_a_half() {
    let mut w = MapChunks::new(16);
    w.set([3, 3, 3], 4);
    let c = cook(&w, &shaped_palette(true), [0, 0, 0]);
    assert_eq!(c.quads, 6);
    let top = triangles(&c)
        .iter()
        .flat_map(|(t, _, _)| t.iter().map(|v| v[1]))
        .fold(f32::MIN, f32::max);
    assert!((top - 4.5).abs() < 1e-6, "{top}");
    // The post's top is 4 by 4 sixteenths.
    assert!((flat_area_at(&c, 4.5) - 0.0625).abs() < 1e-6);
}

#[test]
fn a_box_face_on_a_chunk_border_hides_only_against_a_whole_cube_across_it() {
    let pal = shaped_palette(true);
    // A slab at the east edge of chunk 0 with planks across the border in chunk 1.
    let mut w = MapChunks::new(16);
    w.set([15, 0, 0], 2);
    w.set([16, 0, 0], 1);
    let c = cook(&w, &pal, [0, 0, 0]);
    // Top, underside, west, north and south: the east side, on the planks, is hidden.
    assert_eq!(c.quads, 5);
    assert!(triangles(&c)
        .iter()
        .all(|(t, _, _)| !t.iter().all(|v| (v[0] - 16.0).abs() < 1e-6)));
    // Against a fence post across the border (no whole cube) the side shows.
    w.set([16, 0, 0], 4);
    assert_eq!(cook(&w, &pal, [0, 0, 0]).quads, 6);
}

#[test]
fn whole_block_shapes_stay_on_the_cube_path() {
    // A plank floor cooks exactly as without the pallet: one merged quad a side.
    let mut w = MapChunks::new(16);
    for z in 0..16 {
        for x in 0..16 {
            w.set([x, 0, z], 1);
        }
    }
    w.compact();
    let shaped = cook(&w, &shaped_palette(true), [0, 0, 0]);
    let cubes = cook(&w, &shaped_palette(false), [0, 0, 0]);
    assert_eq!(shaped, cubes);
    assert_eq!(shaped.quads, 6);
}
