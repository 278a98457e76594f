//! Voxel collision (spec `dh.voxel`, "What it costs"): 256 × 96 × 256 cells of rolling
//! terrain with water and trees, at 16-cell chunks, around one pawn at the default radius
//! (`world.voxel.collisionRadius` 48, margin 16, urgent 4).
//!
//! `cargo bench -p dh-bench --bench voxel_collision`. It prints one table: bodies alive,
//! triangles, the cook per chunk (the face pass and greedy merge alone, then with the
//! solver's triangle-mesh build and attach), cooked memory, the first tick at a new place
//! (the urgent chunks cooked on the spot plus one step), a steady update, a water sample;
//! and the same chunks built as parry `Voxels` shapes instead, with a walking pawn's tick
//! on each, the numbers the choice of the triangle mesh rests on. Each figure is the best
//! of several runs.
//!
//! Then, side by side, the collision read by range from the encoded payload (what the
//! host does now: `RangeCells`, a decoded-cell cache of `collisionCellCacheMb`) against
//! the whole payload decoded at install (what it did before): the install itself, the
//! cook per chunk (cold cache, warm cache) and the first tick at a new place.
//! `cargo bench -p dh-bench --bench voxel_collision -- range` runs that part alone.
//!
//! `-- shapes` (issue 14): the cook with block shapes against without, on the same
//! chunks: the terrain as it is and with a slab, a stair or a fence on one ground column
//! in four, each cooked with a platform pallet's shapes and without (every block a
//! cube); per configuration the median of 9 interleaved rounds over every chunk within
//! 48 m.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dh_bench::terrain::{self, hash, Terrain, AIR, EDGE, LEAVES, WATER};
use dh_content::schema::surface::SURFACE_PRESETS;
use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::payload::{
    decode_all, encode, ChunkKey, Grid, GridInfo, PaletteEntry, VoxelPayload,
};
use dh_engine::voxel::collision::{
    cook_chunk, CollisionCells, CollisionConfig, CollisionPalette, CollisionStreamer,
    CollisionVolume, CookScratch, CookedChunk, RangeCells, RangeVolume,
};
use dh_engine::voxel::stream::{OpenPayload, OwnedPayload};
use dh_engine::voxel::volume::GridWater;
use dh_engine::voxel::water::FluidField;
use dh_engine::voxel::StoredChunk;
use dh_engine::voxel::{cell_of, FluidTable, MapChunks, Placement, VoxelLooks};
use dh_sims::physics::{PawnInput, PhysicsParams, PhysicsWorld, TeleportVelocity, VoxelCellPart};
use glam::{IVec3, Vec2, Vec3};

const SIZE: [i32; 3] = [256, 96, 256];

fn palette() -> Vec<PaletteEntry> {
    terrain::palette(LEAVES)
}

/// Rolling terrain between about 40 and 80, stone under dirt and grass, sand and water
/// below 52, oak trees: the meshing benchmark's generator at 256 × 96 × 256 with taller
/// hills (the spec's collision figure is rolling terrain with water and trees).
fn world() -> MapChunks {
    terrain::world(&Terrain {
        size: SIZE,
        base: 40.0,
        hills: (28.0, 64),
        bumps: (10.0, 16),
    })
}

fn best<F: FnMut()>(runs: usize, mut f: F) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn ground_at(w: &MapChunks, x: i32, z: i32) -> f32 {
    let mut y = SIZE[1] - 1;
    while y > 0 {
        let v = w.get([x, y - 1, z]);
        if v != AIR && v != WATER {
            break;
        }
        y -= 1;
    }
    y as f32
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    if std::env::args().skip(1).any(|a| a == "range") {
        range_reads();
        return;
    }
    if std::env::args().skip(1).any(|a| a == "shapes") {
        shapes();
        return;
    }
    let t = Instant::now();
    let w = Arc::new(world());
    eprintln!(
        "voxel_collision: world {}x{}x{} in {} chunks, built in {:.1} s",
        SIZE[0],
        SIZE[1],
        SIZE[2],
        w.chunks.len(),
        t.elapsed().as_secs_f64()
    );
    let tables = BlockTables::builtin().expect("built-in tables load");
    let pal = Arc::new(CollisionPalette::resolve(
        &palette(),
        tables,
        Some("com.mojang.minecraft"),
        None,
        0,
    ));
    let (px, pz) = (SIZE[0] / 2, SIZE[2] / 2);
    let pawn_at = [px as f32 + 0.5, ground_at(&w, px, pz), pz as f32 + 0.5];
    let vol = || CollisionVolume {
        name: "terrain".into(),
        source: w.clone(),
        palette: pal.clone(),
        placement: Placement::identity(),
        cells: [[0, 0, 0], SIZE],
    };
    let config = CollisionConfig {
        workers: 0,
        ..CollisionConfig::default()
    };

    // Everything within the radius, cooked and attached on one thread.
    let mut bodies = 0;
    let mut tris = 0;
    let mut wanted = 0;
    let all = best(5, || {
        let mut physics = PhysicsWorld::new(PhysicsParams::default()).expect("a world");
        let mut s = CollisionStreamer::new(config);
        s.add_volume(vol()).expect("a volume");
        let st = s.update(&mut physics, &[Vec3::from_array(pawn_at)]);
        bodies = st.bodies;
        tris = st.triangles;
        wanted = st.cooked_now;
        black_box(&physics);
    });
    // The chunks it cooked, for the cook alone.
    let r = 48.0f32;
    let mut chunks = Vec::new();
    for cz in 0..SIZE[2] / EDGE {
        for cy in 0..SIZE[1] / EDGE {
            for cx in 0..SIZE[0] / EDGE {
                let d2: f32 = (0..3)
                    .map(|a| {
                        let lo = [cx, cy, cz][a] as f32 * EDGE as f32;
                        let d = (lo - pawn_at[a])
                            .max(pawn_at[a] - lo - EDGE as f32)
                            .max(0.0);
                        d * d
                    })
                    .sum();
                if d2 <= r * r {
                    chunks.push([cx, cy, cz]);
                }
            }
        }
    }
    assert_eq!(
        chunks.len(),
        wanted,
        "the bench's radius test matches the streamer's"
    );
    let mut scratch = CookScratch::default();
    let mut out = CookedChunk::default();
    let mut faced = 0;
    let mut quads = 0;
    let mut bytes = 0;
    let id = Placement::identity();
    let cook = best(9, || {
        faced = 0;
        quads = 0;
        bytes = 0;
        for &c in &chunks {
            cook_chunk(w.as_ref(), &pal, &id, c, &mut scratch, &mut out);
            if !out.is_empty() {
                faced += 1;
            }
            quads += out.quads;
            bytes += out.byte_size();
        }
        black_box(&out);
    });
    // The solver's side alone: the cooked chunks built into trimeshes (weld, internal
    // edges, tree) and attached.
    let cooked: Vec<CookedChunk> = chunks
        .iter()
        .map(|&c| {
            let mut o = CookedChunk::default();
            cook_chunk(w.as_ref(), &pal, &id, c, &mut scratch, &mut o);
            o
        })
        .collect();
    let attach = best(5, || {
        let mut physics = PhysicsWorld::new(PhysicsParams::default()).expect("a world");
        for c in &cooked {
            black_box(c.attach(&mut physics).expect("attached"));
        }
    });
    // Without merging, for the ratio: every exposed cell face is a quad.
    let mut unmerged = 0usize;
    for &c in &chunks {
        for z in 0..EDGE {
            for y in 0..EDGE {
                for x in 0..EDGE {
                    let cell = [c[0] * EDGE + x, c[1] * EDGE + y, c[2] * EDGE + z];
                    if !pal.block(cell_of(w.as_ref(), cell)).solid {
                        continue;
                    }
                    for d in [
                        [1, 0, 0],
                        [-1, 0, 0],
                        [0, 1, 0],
                        [0, -1, 0],
                        [0, 0, 1],
                        [0, 0, -1],
                    ] {
                        let n = [cell[0] + d[0], cell[1] + d[1], cell[2] + d[2]];
                        if !pal.block(cell_of(w.as_ref(), n)).solid {
                            unmerged += 1;
                        }
                    }
                }
            }
        }
    }

    // The same chunks as parry Voxels (one shape per surface, every solid cell).
    // Chunks with no face (air, or buried) get no body either way.
    let mut cells_by_chunk: Vec<Vec<(f32, Vec<IVec3>)>> = Vec::new();
    for (&c, k) in chunks.iter().zip(&cooked) {
        if k.is_empty() {
            cells_by_chunk.push(Vec::new());
            continue;
        }
        let mut parts: Vec<(u8, Vec<IVec3>)> = Vec::new();
        for z in 0..EDGE {
            for y in 0..EDGE {
                for x in 0..EDGE {
                    let cell = [c[0] * EDGE + x, c[1] * EDGE + y, c[2] * EDGE + z];
                    let b = pal.block(cell_of(w.as_ref(), cell));
                    if !b.solid {
                        continue;
                    }
                    match parts.iter_mut().find(|p| p.0 == b.surface) {
                        Some(p) => p.1.push(IVec3::new(x, y, z)),
                        None => parts.push((b.surface, vec![IVec3::new(x, y, z)])),
                    }
                }
            }
        }
        cells_by_chunk.push(
            parts
                .into_iter()
                .map(|(s, v)| (SURFACE_PRESETS[s as usize].grip, v))
                .collect(),
        );
    }
    let mut voxel_bodies = 0;
    let voxels = best(5, || {
        let mut physics = PhysicsWorld::new(PhysicsParams::default()).expect("a world");
        voxel_bodies = 0;
        for (c, parts) in chunks.iter().zip(&cells_by_chunk) {
            let p: Vec<VoxelCellPart<'_>> = parts
                .iter()
                .map(|(g, v)| VoxelCellPart { cells: v, grip: *g })
                .collect();
            if p.is_empty() {
                continue;
            }
            let origin = c.map(|v| (v * EDGE) as f32);
            physics
                .add_voxel_cells(Vec3::from_array(origin), Vec3::ONE, &p)
                .expect("a voxels body");
            voxel_bodies += 1;
        }
        black_box(&physics);
    });

    // A pawn walking in a circle for 256 ticks on each.
    let walk = |physics: &mut PhysicsWorld| -> Duration {
        let pawn = physics
            .spawn_pawn(Vec3::from_array(pawn_at), 0.0)
            .expect("a pawn");
        let t = Instant::now();
        for i in 0..256u32 {
            physics
                .set_pawn_input(
                    pawn,
                    PawnInput {
                        move_local: Vec2::new(0.0, 1.0),
                        yaw: i as f32 * 1.4,
                        pitch: 0.0,
                        jump: i.is_multiple_of(64),
                    },
                )
                .expect("input");
            physics.step();
        }
        let took = t.elapsed();
        let s = physics.pawn_state(pawn).expect("a pawn");
        assert!(
            s.feet[1] > pawn_at[1] - 6.0,
            "the pawn stayed on the terrain: {s:?}"
        );
        physics.remove_pawn(pawn).expect("remove");
        took
    };
    let mut mesh_world = PhysicsWorld::new(PhysicsParams::default()).expect("a world");
    let mut ms_streamer = CollisionStreamer::new(config);
    ms_streamer.add_volume(vol()).expect("a volume");
    ms_streamer.update(&mut mesh_world, &[Vec3::from_array(pawn_at)]);
    let mesh_walk = (0..3)
        .map(|_| walk(&mut mesh_world))
        .min()
        .unwrap_or_default();
    let mut vox_world = PhysicsWorld::new(PhysicsParams::default()).expect("a world");
    for (c, parts) in chunks.iter().zip(&cells_by_chunk) {
        let p: Vec<VoxelCellPart<'_>> = parts
            .iter()
            .map(|(g, v)| VoxelCellPart { cells: v, grip: *g })
            .collect();
        if !p.is_empty() {
            let origin = c.map(|v| (v * EDGE) as f32);
            vox_world
                .add_voxel_cells(Vec3::from_array(origin), Vec3::ONE, &p)
                .expect("a voxels body");
        }
    }
    let vox_walk = (0..3)
        .map(|_| walk(&mut vox_world))
        .min()
        .unwrap_or_default();

    // The first tick at a new place: a streamer already settled around the middle, the
    // pawn teleported 80 m away, one update (the urgent chunks on the spot, the rest
    // queued on one worker) and one step.
    let far = {
        let (x, z) = (px - 80, pz - 40);
        [x as f32 + 0.5, ground_at(&w, x, z), z as f32 + 0.5]
    };
    let mut first = Duration::MAX;
    let mut first_cooks = 0;
    let mut first_cook_time = Duration::ZERO;
    let mut steady = Duration::MAX;
    for _ in 0..5 {
        let mut physics = PhysicsWorld::new(PhysicsParams::default()).expect("a world");
        let mut s = CollisionStreamer::new(CollisionConfig::default());
        s.add_volume(vol()).expect("a volume");
        let pawn = physics
            .spawn_pawn(Vec3::from_array(pawn_at), 0.0)
            .expect("a pawn");
        s.update(&mut physics, &[Vec3::from_array(pawn_at)]);
        s.flush(&mut physics);
        physics.step();
        physics
            .teleport_pawn(
                pawn,
                Vec3::from_array(far),
                0.0,
                0.0,
                TeleportVelocity::Zero,
            )
            .expect("teleport");
        let t = Instant::now();
        let st = s.update(&mut physics, &[Vec3::from_array(far)]);
        physics.step();
        let took = t.elapsed();
        if took < first {
            first = took;
            first_cooks = st.cooked_now;
            first_cook_time = st.cook_time;
        }
        let feet = physics.pawn_state(pawn).expect("a pawn").feet;
        assert!(
            feet[1] > far[1] - 0.5,
            "the pawn did not fall: {feet:?} at {far:?}"
        );
        s.flush(&mut physics);
        // A steady update: the pawn moved a little, nothing to cook.
        let t = Instant::now();
        let moved = [far[0] + 1.5, far[1], far[2]];
        black_box(s.update(&mut physics, &[Vec3::from_array(moved)]));
        steady = steady.min(t.elapsed());
    }

    // A water sample (the pawn's one per tick).
    let looks = VoxelLooks::resolve(
        &palette(),
        tables,
        Some("com.mojang.minecraft"),
        None,
        Some(&FluidTable::minecraft()),
    );
    let field = FluidField::new(&looks, Placement::identity()).expect("a field");
    let mut samples = Vec::new();
    for i in 0..4096 {
        let x = (hash(i, 1, 5) % SIZE[0] as u32) as f64 + 0.5;
        let z = (hash(i, 2, 5) % SIZE[2] as u32) as f64 + 0.5;
        samples.push([x, 51.3, z]);
    }
    let mut wet = 0;
    let water = best(9, || {
        wet = 0;
        for p in &samples {
            if field.is_water(w.as_ref(), glam::DVec3::from_array(*p)) {
                wet += 1;
            }
        }
    });

    let n = chunks.len() as f64;
    let kib = bytes as f64 / 1024.0;
    println!(
        "## Voxel collision: {}x{}x{} at 16, one pawn, radius 48 m",
        SIZE[0], SIZE[1], SIZE[2]
    );
    println!();
    println!("| what | ours | spec |");
    println!("| --- | --- | --- |");
    println!("| chunks within the radius | {} | |", chunks.len());
    println!("| bodies alive (chunks with faces) | {bodies} | 109 |");
    println!(
        "| triangles | {tris} ({:.0} a body); {quads} merged quads from {unmerged} cell faces ({:.1}×) | about 14,500 (133 a chunk) |",
        tris as f64 / bodies.max(1) as f64,
        unmerged as f64 / quads.max(1) as f64
    );
    println!(
        "| cook, face pass + greedy merge | {:.1} µs a chunk ({:.1} µs a chunk with faces) | |",
        cook.as_secs_f64() * 1e6 / n,
        cook.as_secs_f64() * 1e6 / faced.max(1) as f64
    );
    println!(
        "| cook + trimesh build + attach, all {} chunks on one thread | {:.2} ms, {:.1} µs a chunk ({:.1} µs a body) | about 1 ms a chunk |",
        chunks.len(),
        ms(all),
        all.as_secs_f64() * 1e6 / n,
        all.as_secs_f64() * 1e6 / bodies.max(1) as f64
    );
    println!(
        "| trimesh build (weld, internal edges, tree) + attach alone | {:.1} µs a body | |",
        attach.as_secs_f64() * 1e6 / bodies.max(1) as f64
    );
    println!(
        "| cooked memory (our vertex + index buffers) | {kib:.0} KiB, {:.1} KiB a body, {:.0} B a triangle | 0.6 MiB, about 6 KiB a chunk (45 B a triangle) |",
        kib / bodies.max(1) as f64,
        bytes as f64 / tris.max(1) as f64
    );
    println!(
        "| first tick at a new place (update + step) | {:.2} ms: {first_cooks} urgent chunks (their face passes {:.2} ms) | about 9 ms |",
        ms(first),
        ms(first_cook_time)
    );
    println!(
        "| steady update (moved 1.5 m, nothing to cook) | {:.1} µs | |",
        steady.as_secs_f64() * 1e6
    );
    println!(
        "| water sample | {:.2} µs ({wet} of {} wet at y 51.3) | about 2 µs |",
        water.as_secs_f64() * 1e6 / samples.len() as f64,
        samples.len()
    );
    println!(
        "| parry Voxels instead (every solid cell of a chunk with faces): build + attach, {voxel_bodies} bodies | {:.2} ms, {:.1} µs a body | |",
        ms(voxels),
        voxels.as_secs_f64() * 1e6 / voxel_bodies.max(1) as f64
    );
    println!(
        "| walking pawn, 256 ticks: trimesh / Voxels | {:.2} ms / {:.2} ms ({:.1} / {:.1} µs a tick) | |",
        ms(mesh_walk),
        ms(vox_walk),
        mesh_walk.as_secs_f64() * 1e6 / 256.0,
        vox_walk.as_secs_f64() * 1e6 / 256.0
    );
    println!();
}

/// The world as a one-grid payload at 16-cell chunks, encoded.
fn encoded(w: &MapChunks) -> (VoxelPayload, Vec<Vec<u8>>) {
    let mut p = VoxelPayload::default();
    p.header.platform = "com.mojang.minecraft".into();
    p.header.chunk_edge = EDGE as u8;
    p.palette = palette();
    let mut g = Grid::new(GridInfo::new("terrain", [0, 0, 0], SIZE));
    let n = (EDGE * EDGE * EDGE) as usize;
    for (&chunk, c) in &w.chunks {
        // The generator's trees may reach past the bounds; the payload keeps its grid's.
        if (0..3).any(|a| chunk[a] < 0 || chunk[a] >= SIZE[a] / EDGE) {
            continue;
        }
        let cells = match c {
            StoredChunk::Uniform(v) => vec![*v; n],
            StoredChunk::Cells(c) => c.clone(),
        };
        g.chunks.insert(ChunkKey { layer: 0, chunk }, cells);
    }
    p.grids = vec![g];
    let shards = encode(&p).expect("it encodes");
    (p, shards)
}

/// The whole decode at install, as the host did it: every chunk decoded, then kept as
/// a chunk store (uniform chunks folded).
fn whole_decode(shards: &[Vec<u8>]) -> MapChunks {
    let refs: Vec<&[u8]> = shards.iter().map(Vec::as_slice).collect();
    let mut d = decode_all(&refs).expect("it decodes");
    let mut m = MapChunks::new(EDGE as usize);
    for (k, cells) in std::mem::take(&mut d.grids[0].chunks) {
        m.chunks.insert(k.chunk, StoredChunk::Cells(cells));
    }
    m.compact();
    m
}

fn range_reads() {
    let w = world();
    let (p, shards) = encoded(&w);
    let stored = p.grids[0].chunks.len();
    let bytes: usize = shards.iter().map(Vec::len).sum();
    let tables = BlockTables::builtin().expect("built-in tables load");
    let pal = Arc::new(CollisionPalette::resolve(
        &p.palette,
        tables,
        Some("com.mojang.minecraft"),
        None,
        0,
    ));
    let cache = CollisionConfig::default().cell_cache_bytes;
    let owned = Arc::new(OwnedPayload {
        name: "terrain.dh-vox.bin".into(),
        shards: shards.clone(),
    });
    let open = || Arc::new(OpenPayload::open(owned.clone()).expect("it opens"));

    // Install: the whole decode, against opening by range (header and region index).
    let mut whole = MapChunks::default();
    let install_whole = best(5, || whole = whole_decode(&shards));
    let whole = Arc::new(whole);
    let install_range = best(9, || {
        black_box(RangeCells::new("terrain", open(), 0, cache).expect("grid 0"));
    });

    // The chunks within the radius of the middle (as the streamer's look finds them).
    let (px, pz) = (SIZE[0] / 2, SIZE[2] / 2);
    let pawn_at = [px as f32 + 0.5, ground_at(&w, px, pz), pz as f32 + 0.5];
    let r = 48.0f32;
    let mut chunks = Vec::new();
    for cz in 0..SIZE[2] / EDGE {
        for cy in 0..SIZE[1] / EDGE {
            for cx in 0..SIZE[0] / EDGE {
                let d2: f32 = (0..3)
                    .map(|a| {
                        let lo = [cx, cy, cz][a] as f32 * EDGE as f32;
                        let d = (lo - pawn_at[a])
                            .max(pawn_at[a] - lo - EDGE as f32)
                            .max(0.0);
                        d * d
                    })
                    .sum();
                if d2 <= r * r {
                    chunks.push([cx, cy, cz]);
                }
            }
        }
    }
    let id = Placement::identity();
    let mut scratch = CookScratch::default();
    let mut out = CookedChunk::default();
    let mut quads_whole = 0;
    let cook_whole = best(9, || {
        quads_whole = 0;
        for &c in &chunks {
            cook_chunk(whole.as_ref(), &pal, &id, c, &mut scratch, &mut out);
            quads_whole += out.quads;
        }
    });
    // Cold: a fresh cache each run (each chunk and its neighbors decoded as met,
    // nearest-first order not needed: every chunk within the radius is read).
    let mut quads_range = 0;
    let mut decoded = 0;
    let cook_cold = best(9, || {
        let cells = CollisionCells::Range(Arc::new(
            RangeCells::new("terrain", open(), 0, cache).expect("grid 0"),
        ));
        quads_range = 0;
        for &c in &chunks {
            cells.cook(&pal, &id, c, &mut scratch, &mut out);
            quads_range += out.quads;
        }
        if let CollisionCells::Range(r) = &cells {
            decoded = r.chunks_decoded();
        }
    });
    assert_eq!(quads_whole, quads_range, "the same quads both ways");
    let warm_cells = CollisionCells::Range(Arc::new(
        RangeCells::new("terrain", open(), 0, cache).expect("grid 0"),
    ));
    let cook_warm = best(9, || {
        for &c in &chunks {
            warm_cells.cook(&pal, &id, c, &mut scratch, &mut out);
        }
    });

    // The first tick at a new place, both ways: settled around the middle, the pawn
    // teleported 80 m away, one update (urgent chunks on the spot, the rest queued on
    // one worker) and one step.
    let far = {
        let (x, z) = (px - 80, pz - 40);
        [x as f32 + 0.5, ground_at(&w, x, z), z as f32 + 0.5]
    };
    let first_tick = |range: bool| -> (Duration, usize, usize) {
        let mut first = Duration::MAX;
        let mut cooks = 0;
        let mut held = 0;
        for _ in 0..5 {
            let mut physics = PhysicsWorld::new(PhysicsParams::default()).expect("a world");
            let mut s = CollisionStreamer::new(CollisionConfig::default());
            if range {
                s.add_range_volume(RangeVolume {
                    name: "terrain".into(),
                    cells: Arc::new(RangeCells::new("terrain", open(), 0, cache).expect("grid 0")),
                    palette: pal.clone(),
                    placement: Placement::identity(),
                })
                .expect("a volume");
            } else {
                s.add_volume(CollisionVolume {
                    name: "terrain".into(),
                    source: whole.clone(),
                    palette: pal.clone(),
                    placement: Placement::identity(),
                    cells: [[0, 0, 0], SIZE],
                })
                .expect("a volume");
            }
            let pawn = physics
                .spawn_pawn(Vec3::from_array(pawn_at), 0.0)
                .expect("a pawn");
            s.update(&mut physics, &[Vec3::from_array(pawn_at)]);
            s.flush(&mut physics);
            held = s.cell_cache_bytes();
            physics.step();
            physics
                .teleport_pawn(
                    pawn,
                    Vec3::from_array(far),
                    0.0,
                    0.0,
                    TeleportVelocity::Zero,
                )
                .expect("teleport");
            let t = Instant::now();
            let st = s.update(&mut physics, &[Vec3::from_array(far)]);
            physics.step();
            let took = t.elapsed();
            if took < first {
                first = took;
                cooks = st.cooked_now;
            }
            let feet = physics.pawn_state(pawn).expect("a pawn").feet;
            assert!(feet[1] > far[1] - 0.5, "the pawn did not fall: {feet:?}");
            s.flush(&mut physics);
        }
        (first, cooks, held)
    };
    let (first_whole, cooks_whole, _) = first_tick(false);
    let (first_range, cooks_range, held) = first_tick(true);

    // A water sample both ways (the pawn's one a tick): the field over the whole decode,
    // against the host's `GridWater`, a column window through the range-read cells
    // (warm: every sample's column read once before the timed runs).
    let looks = VoxelLooks::resolve(
        &p.palette,
        tables,
        Some("com.mojang.minecraft"),
        None,
        Some(&FluidTable::minecraft()),
    );
    let field = || FluidField::new(&looks, Placement::identity()).expect("a field");
    let samples: Vec<[f64; 3]> = (0..4096)
        .map(|i| {
            let x = (hash(i, 1, 5) % SIZE[0] as u32) as f64 + 0.5;
            let z = (hash(i, 2, 5) % SIZE[2] as u32) as f64 + 0.5;
            [x, 51.3, z]
        })
        .collect();
    let whole_field = field();
    let (mut wet_whole, mut wet_range) = (0, 0);
    let water_whole = best(9, || {
        wet_whole = samples
            .iter()
            .filter(|p| whole_field.is_water(whole.as_ref(), glam::DVec3::from_array(**p)))
            .count();
    });
    let grid_water = GridWater::new(
        field(),
        Arc::new(RangeCells::new("terrain", open(), 0, cache).expect("grid 0")),
        &Placement::identity(),
    )
    .expect("a placement");
    let water_range = best(9, || {
        wet_range = samples
            .iter()
            .filter(|p| {
                grid_water
                    .water_at(glam::DVec3::from_array(**p))
                    .is_some_and(|s| s.submerged)
            })
            .count();
    });
    assert_eq!(wet_whole, wet_range, "the same water both ways");

    let n = chunks.len() as f64;
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "## Voxel collision read by range: {}x{}x{} at 16 ({} chunks, payload {:.1} MiB), one pawn, radius 48 m, cache {} MiB",
        SIZE[0],
        SIZE[1],
        SIZE[2],
        stored,
        bytes as f64 / (1 << 20) as f64,
        cache >> 20
    );
    println!();
    println!("| what | whole decode at install (before) | read by range (now) | ratio |");
    println!("| --- | --- | --- | --- |");
    println!(
        "| install (decode / open header + region index) | {:.2} ms | {:.1} µs | {:.0}× |",
        ms(install_whole),
        us(install_range),
        install_whole.as_secs_f64() / install_range.as_secs_f64().max(1e-12)
    );
    println!(
        "| cook, {} chunks within the radius (cold cache: {decoded} records decoded) | {:.1} µs a chunk | {:.1} µs a chunk | {:.2}× |",
        chunks.len(),
        us(cook_whole) / n,
        us(cook_cold) / n,
        cook_cold.as_secs_f64() / cook_whole.as_secs_f64().max(1e-12)
    );
    println!(
        "| cook, same chunks, warm cache | {:.1} µs a chunk | {:.1} µs a chunk | {:.2}× |",
        us(cook_whole) / n,
        us(cook_warm) / n,
        cook_warm.as_secs_f64() / cook_whole.as_secs_f64().max(1e-12)
    );
    println!(
        "| first tick at a new place (update + step) | {:.2} ms ({cooks_whole} urgent cooks) | {:.2} ms ({cooks_range} urgent cooks, cold) | {:.2}× |",
        ms(first_whole),
        ms(first_range),
        first_range.as_secs_f64() / first_whole.as_secs_f64().max(1e-12)
    );
    println!(
        "| decoded cells held, settled around the pawn | {:.1} MiB (every chunk) | {:.2} MiB (at most {} MiB) | |",
        whole
            .chunks
            .values()
            .map(|c| match c {
                StoredChunk::Uniform(_) => 4,
                StoredChunk::Cells(c) => c.len() * 4,
            })
            .sum::<usize>() as f64
            / (1 << 20) as f64,
        held as f64 / (1 << 20) as f64,
        cache >> 20
    );
    println!(
        "| water sample ({wet_range} of {} wet; range: warm cache) | {:.2} µs | {:.2} µs | {:.1}× |",
        samples.len(),
        us(water_whole) / samples.len() as f64,
        us(water_range) / samples.len() as f64,
        water_range.as_secs_f64() / water_whole.as_secs_f64().max(1e-12)
    );
    println!();
}

// ── Block shapes (issue 14) ────────────────────────────────────────────────────────

/// The shapes a platform pallet gives the bench's three shaped blocks, written here by
/// hand as the importer writes them: a bottom slab, a straight stair facing east (the
/// model's two boxes) and a fence post raised to a block and a half.
fn shape_pallet() -> dh_content::pallet::Pallet {
    use dh_content::pallet::{CodecChoice, EntryMeta, Manifest, Pallet, PalletWriter};
    let blocks = [
        (
            "oak_slab",
            r#"{ "id": "minecraft:oak_slab", "rules": [ { "apply": [ { "model": "m" } ] } ], "models": { "m": { "elements": [ { "from": [0, 0, 0], "to": [16, 8, 16] } ] } }, "collision": "model" }"#,
        ),
        (
            "oak_stairs",
            r#"{ "id": "minecraft:oak_stairs", "rules": [ { "apply": [ { "model": "m" } ] } ], "models": { "m": { "elements": [ { "from": [0, 0, 0], "to": [16, 8, 16] }, { "from": [8, 8, 0], "to": [16, 16, 16] } ] } }, "collision": "model" }"#,
        ),
        (
            "oak_fence",
            r#"{ "id": "minecraft:oak_fence", "rules": [], "collision": [[6, 0, 6, 10, 16, 10]], "collisionHeight": 24 }"#,
        ),
    ];
    let mut w = PalletWriter::new(Manifest::new("com.mojang.minecraft", "Minecraft", "26.1.0"))
        .expect("a writer");
    for (id, text) in blocks {
        w.add(
            &format!("blocks/{id}.dh-block"),
            text.as_bytes().to_vec(),
            EntryMeta::default(),
            CodecChoice::Auto,
        )
        .expect("an entry");
    }
    Pallet::from_bytes(w.finish().expect("a pallet")).expect("it reads")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn shapes() {
    use dh_engine::voxel::shapes::PalletShapes;
    const MC: &str = "com.mojang.minecraft";
    let base = world();
    let mut entries = palette();
    let first = entries.len() as u32;
    for id in ["oak_slab", "oak_stairs", "oak_fence"] {
        entries.push(PaletteEntry::new("minecraft", id));
    }
    // One ground column in four gets a shaped block on top (not in water).
    let mut shaped = base.clone();
    let mut placed = 0;
    for z in 0..SIZE[2] {
        for x in 0..SIZE[0] {
            let h = hash(x, z, 0x5a4e);
            let y = ground_at(&base, x, z) as i32;
            if !h.is_multiple_of(4) || y <= 0 || y >= SIZE[1] || base.get([x, y - 1, z]) == WATER {
                continue;
            }
            shaped.set([x, y, z], first + (h / 4) % 3);
            placed += 1;
        }
    }
    shaped.compact();
    let tables = BlockTables::builtin().expect("built-in tables load");
    let cubes = CollisionPalette::resolve(&entries, tables, Some(MC), None, 0);
    let pallet = shape_pallet();
    let t = Instant::now();
    let mut reader = PalletShapes::new(&pallet, "minecraft");
    let boxes =
        CollisionPalette::resolve_shaped(&entries, tables, Some(MC), None, Some(&mut reader), 0);
    let resolve = t.elapsed();
    assert_eq!(boxes.shaped_entries(), 3);
    let (px, pz) = (SIZE[0] / 2, SIZE[2] / 2);
    let pawn_at = [px as f32 + 0.5, ground_at(&base, px, pz), pz as f32 + 0.5];
    let r = 48.0f32;
    let mut chunks = Vec::new();
    for cz in 0..SIZE[2] / EDGE {
        for cy in 0..SIZE[1] / EDGE {
            for cx in 0..SIZE[0] / EDGE {
                let d2: f32 = (0..3)
                    .map(|a| {
                        let lo = [cx, cy, cz][a] as f32 * EDGE as f32;
                        let d = (lo - pawn_at[a])
                            .max(pawn_at[a] - lo - EDGE as f32)
                            .max(0.0);
                        d * d
                    })
                    .sum();
                if d2 <= r * r {
                    chunks.push([cx, cy, cz]);
                }
            }
        }
    }
    let configs: [(&str, &MapChunks, &CollisionPalette); 4] = [
        ("terrain, no pallet (cubes)", &base, &cubes),
        ("terrain, with the pallet", &base, &boxes),
        (
            "terrain + shaped blocks, no pallet (cubes)",
            &shaped,
            &cubes,
        ),
        ("terrain + shaped blocks, with the pallet", &shaped, &boxes),
    ];
    let id = Placement::identity();
    let mut scratch = CookScratch::default();
    let mut out = CookedChunk::default();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
    let mut quads = vec![0usize; configs.len()];
    for _ in 0..9 {
        for (k, (_, w, pal)) in configs.iter().enumerate() {
            let t = Instant::now();
            let mut q = 0;
            for &c in &chunks {
                cook_chunk(*w, pal, &id, c, &mut scratch, &mut out);
                q += out.quads;
            }
            times[k].push(t.elapsed().as_secs_f64() * 1e6 / chunks.len() as f64);
            quads[k] = q;
            black_box(&out);
        }
    }
    println!(
        "block shapes: {} chunks within 48 m, {placed} shaped blocks placed in the world, palette of {} resolved with the pallet in {:.1} µs",
        chunks.len(),
        entries.len(),
        resolve.as_secs_f64() * 1e6
    );
    println!("| configuration | cook a chunk (median of 9, µs) | quads | vs the first |");
    println!("| --- | --- | --- | --- |");
    let first_median = median(times[0].clone());
    for (k, (name, _, _)) in configs.iter().enumerate() {
        let m = median(times[k].clone());
        println!(
            "| {name} | {m:.2} | {} | {:.2}× |",
            quads[k],
            m / first_median
        );
    }
}
