//! `dh-engine bench`'s built-in scenes: the main job's [`showcase`] (no SCENE, run by
//! [`crate::run`]), and the voxel scenes: the three measurements the spec's
//! `dh.voxel` page quotes, on generated terrain ([`terrain`]), each printed as a table of
//! our figures beside the spec's.
//!
//! * `voxel-mesh` ("How the engine draws it", what meshing costs): a 512 × 128 × 512
//!   world at 16-cell chunks, the chunks within 128 m of a camera over the middle, meshed
//!   one chunk at a time on one thread, then as one job graph on 1 and 2 workers.
//! * `voxel-light` ("The light field"): the 306 brick columns of a spawn radius lit cold,
//!   then one torch placed and removed on the ground at the spawn.
//! * `voxel-collision` ("What it costs"): 256 × 96 × 256 cells of rolling terrain with
//!   water and trees, one pawn at the default radius: bodies, triangles, the cook per
//!   chunk, and the first tick at a new place.
//!
//! [`SceneSize::Tiny`] runs each on a small world (what the tests run); nothing here
//! asserts a time.

pub mod showcase;
pub mod terrain;

use std::hint::black_box;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dh_content::schema::voxel::MINECRAFT;
use dh_content::voxel::blocks::BlockTables;
use dh_jobs::Scheduler;
use dh_sims::physics::{PhysicsParams, PhysicsWorld, TeleportVelocity};
use glam::Vec3;

use crate::voxel::collision::{
    cook_chunk, CollisionConfig, CollisionPalette, CollisionStreamer, CollisionVolume, CookScratch,
    CookedChunk,
};
use crate::voxel::{
    mesh_chunk_into, mesh_regions, ChunkLight, LightField, MapChunks, MeshContext, MeshOptions,
    MeshScratch, MeshStats, Placement, RegionMesh, VoxelLooks,
};
use terrain::{Terrain, AIR, EDGE, LEAVES, TORCH, WATER};

/// The built-in scenes: name and what it measures (what `dh-engine help` lists).
pub const SCENES: &[(&str, &str)] = &[
    (
        "voxel-mesh",
        "meshing a 512x128x512 world's chunks within 128 m, per chunk and on 1 and 2 workers",
    ),
    (
        "voxel-light",
        "cold lighting of a 306-column spawn radius, then a torch placed and removed",
    ),
    (
        "voxel-collision",
        "collision around one pawn on 256x96x256 terrain: bodies, triangles, cooks, first tick",
    ),
];

/// Whether `name` is a built-in scene (rather than a map).
pub fn is_scene(name: &str) -> bool {
    SCENES.iter().any(|(n, _)| *n == name)
}

/// How big a world a scene runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SceneSize {
    /// The spec's measurement.
    Full,
    /// A small world, for tests.
    Tiny,
}

/// Why a scene did not run.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// Not a scene name.
    #[error(
        "no built-in scene named '{0}'; the scenes are voxel-mesh, voxel-light and voxel-collision"
    )]
    Unknown(String),
    /// Something the scene needs did not start.
    #[error("bench {scene}: {message}")]
    Setup {
        /// The scene.
        scene: &'static str,
        /// What failed.
        message: String,
    },
    /// The output could not be written.
    #[error("bench: cannot write the report: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs scene `name` at `size`, writing its report to `out`. `workers` is the second
/// worker count meshing is measured on (2 when `None`).
pub fn run_scene(
    name: &str,
    size: SceneSize,
    workers: Option<usize>,
    out: &mut dyn Write,
) -> Result<(), SceneError> {
    match name {
        "voxel-mesh" => voxel_mesh(size, workers.unwrap_or(2).max(1), out),
        "voxel-light" => voxel_light(size, out),
        "voxel-collision" => voxel_collision(size, out),
        other => Err(SceneError::Unknown(other.to_string())),
    }
}

fn best<F: FnMut()>(runs: usize, mut f: F) -> Duration {
    (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn tables(scene: &'static str) -> Result<&'static BlockTables, SceneError> {
    BlockTables::builtin().map_err(|e| SceneError::Setup {
        scene,
        message: format!("the built-in block tables do not load: {e}"),
    })
}

fn scheduler(scene: &'static str, threads: usize) -> Result<Scheduler, SceneError> {
    Scheduler::new(threads).map_err(|e| SceneError::Setup {
        scene,
        message: e.to_string(),
    })
}

/// The meshing and light world: the spec's synthetic 512 × 128 × 512 (tiny: 64 × 80 × 64).
fn draw_world(size: SceneSize) -> ([i32; 3], MapChunks) {
    let (dims, t) = match size {
        SceneSize::Full => (
            [512, 128, 512],
            Terrain {
                size: [512, 128, 512],
                base: 44.0,
                hills: (24.0, 96),
                bumps: (4.0, 24),
            },
        ),
        SceneSize::Tiny => (
            [64, 80, 64],
            Terrain {
                size: [64, 80, 64],
                base: 44.0,
                hills: (16.0, 32),
                bumps: (4.0, 8),
            },
        ),
    };
    (dims, terrain::world(&t))
}

/// The height of the first cell over the ground at column (x, z): the lowest `y` with
/// only air (or, with `wet`, water) from there up.
fn ground_at(w: &MapChunks, top: i32, x: i32, z: i32, wet: bool) -> i32 {
    let mut y = top;
    while y > 0 {
        let v = w.get([x, y - 1, z]);
        if v != AIR && (!wet || v != WATER) {
            break;
        }
        y -= 1;
    }
    y
}

fn voxel_mesh(size: SceneSize, workers: usize, out: &mut dyn Write) -> Result<(), SceneError> {
    const SCENE: &str = "voxel-mesh";
    let t = Instant::now();
    let (dims, w) = draw_world(size);
    let built = t.elapsed();
    let radius = match size {
        SceneSize::Full => 128.0f32,
        SceneSize::Tiny => 24.0,
    };
    let runs = match size {
        SceneSize::Full => 5,
        SceneSize::Tiny => 1,
    };
    let tables = tables(SCENE)?;
    let palette = terrain::palette(TORCH);
    let looks = VoxelLooks::resolve(&palette, tables, Some(MINECRAFT), None, None);
    let (cx, cz) = (dims[0] / 2, dims[2] / 2);
    let cam = [
        cx as f32,
        ground_at(&w, dims[1], cx, cz, false) as f32 + 2.0,
        cz as f32,
    ];
    let mut wanted = Vec::new();
    for z in 0..dims[2] / EDGE {
        for y in 0..dims[1] / EDGE {
            for x in 0..dims[0] / EDGE {
                let c = [x, y, z].map(|v| (v * EDGE + EDGE / 2) as f32);
                let d2: f32 = (0..3).map(|a| (c[a] - cam[a]).powi(2)).sum();
                if d2 <= radius * radius {
                    wanted.push([x, y, z]);
                }
            }
        }
    }
    let opts = MeshOptions {
        region_chunks: 1,
        ..MeshOptions::default()
    };
    let id = Placement::identity();
    let ctx = MeshContext::new(&looks, &id, &opts);
    let mut scratch = MeshScratch::default();
    let mut mesh = RegionMesh::default();
    let (mut faced, mut quads, mut bytes) = (0usize, 0usize, 0usize);
    let one = best(runs, || {
        (faced, quads, bytes) = (0, 0, 0);
        for &c in &wanted {
            mesh.clear();
            if mesh_chunk_into(&w, &ctx, c, &mut scratch, &mut mesh) {
                faced += 1;
            }
            quads += mesh.quad_count();
            bytes += mesh.byte_size();
        }
        black_box(&mesh);
    });
    let mut walls = Vec::new();
    for threads in [1, workers] {
        let s = scheduler(SCENE, threads)?;
        let mut stats = MeshStats::default();
        let wall = best(runs, || {
            let m = mesh_regions(&s, &w, &ctx, &wanted);
            stats = MeshStats::of(&m);
            black_box(m);
        });
        walls.push((threads, wall, stats));
    }
    let n = wanted.len().max(1) as f64;
    writeln!(
        out,
        "## dh-engine bench voxel-mesh: {}x{}x{} at {EDGE}, {radius} m radius (world built in {:.1} s)",
        dims[0],
        dims[1],
        dims[2],
        built.as_secs_f64()
    )?;
    writeln!(out)?;
    writeln!(out, "| what | ours | spec |")?;
    writeln!(out, "| --- | --- | --- |")?;
    writeln!(out, "| chunks wanted | {} | 936 |", wanted.len())?;
    writeln!(out, "| chunks with faces | {faced} | 664 |")?;
    writeln!(out, "| quads | {quads} | about 213 thousand |")?;
    writeln!(
        out,
        "| vertex + index buffers | {:.1} MiB | 47 MiB |",
        bytes as f64 / (1024.0 * 1024.0)
    )?;
    writeln!(
        out,
        "| per chunk, one thread | {:.1} µs ({:.1} µs per chunk with faces) | 200–300 µs |",
        one.as_secs_f64() * 1e6 / n,
        one.as_secs_f64() * 1e6 / faced.max(1) as f64
    )?;
    for (threads, wall, stats) in &walls {
        writeln!(
            out,
            "| wall, {threads} worker(s) | {:.2} ms ({} quads) | {} |",
            ms(*wall),
            stats.quads,
            if *threads == 1 {
                ""
            } else {
                "35 ms on 8 threads"
            }
        )?;
    }
    writeln!(out)?;
    Ok(())
}

fn voxel_light(size: SceneSize, out: &mut dyn Write) -> Result<(), SceneError> {
    const SCENE: &str = "voxel-light";
    let t = Instant::now();
    let (dims, w) = draw_world(size);
    let built = t.elapsed();
    let (radius, runs, torches) = match size {
        // 9.87 brick columns: the 306 columns of a spawn radius.
        SceneSize::Full => (9.87f32, 5, 200),
        SceneSize::Tiny => (1.5, 1, 10),
    };
    let tables = tables(SCENE)?;
    let palette = terrain::palette(TORCH);
    let looks = VoxelLooks::resolve(&palette, tables, Some(MINECRAFT), None, None);
    let spawn = [dims[0] / 32, dims[2] / 32];
    let mut cols = Vec::new();
    for z in 0..dims[2] / 16 {
        for x in 0..dims[0] / 16 {
            let d2 = ((x - spawn[0]) as f32 + 0.5).powi(2) + ((z - spawn[1]) as f32 + 0.5).powi(2);
            if d2 <= radius * radius {
                cols.push([x, z]);
            }
        }
    }
    cols.sort_by_key(|c| (c[0] - spawn[0]).pow(2) + (c[1] - spawn[1]).pow(2));
    let lw = ChunkLight::new(&w, &looks);
    let height = dims[1] as usize;
    let mut field = LightField::new(0, height, 96);
    let mut lit = 0;
    let cold = best(runs, || {
        field = LightField::new(0, height, 96);
        lit = field.light_columns(&lw, &cols, None);
    });
    let st = field.stats();
    let (tx, tz) = (spawn[0] * 16 + 8, spawn[1] * 16 + 8);
    let ty = ground_at(&w, dims[1] - 1, tx, tz, false);
    let torch = lw.props_of(TORCH);
    let air = lw.props_of(AIR);
    let mut place = Vec::with_capacity(torches);
    let mut remove = Vec::with_capacity(torches);
    for _ in 0..torches {
        let t = Instant::now();
        field.set_cell([tx, ty, tz], torch);
        place.push(t.elapsed());
        let t = Instant::now();
        field.set_cell([tx, ty, tz], air);
        remove.push(t.elapsed());
    }
    place.sort();
    remove.sort();
    let median = |v: &[Duration]| v.get(v.len() / 2).copied().unwrap_or_default();
    writeln!(
        out,
        "## dh-engine bench voxel-light: {}x{}x{} (world built in {:.1} s)",
        dims[0],
        dims[1],
        dims[2],
        built.as_secs_f64()
    )?;
    writeln!(out)?;
    writeln!(out, "| what | ours | spec |")?;
    writeln!(out, "| --- | --- | --- |")?;
    writeln!(
        out,
        "| cold lighting, {} columns ({} lit, {} tall) | {:.1} ms, {:.3} ms a column | 0.68 s, 2.2 ms a column (384 tall) |",
        cols.len(),
        lit,
        dims[1],
        ms(cold),
        ms(cold) / cols.len().max(1) as f64
    )?;
    writeln!(
        out,
        "| field held | {:.1} KiB a column ({} full bricks, {} uniform) | about 46 KiB a column |",
        st.bytes as f64 / 1024.0 / st.columns.max(1) as f64,
        st.bricks,
        st.uniform_bricks
    )?;
    writeln!(
        out,
        "| torch placed (median of {torches}) | {:.3} ms | 2.5 ms |",
        ms(median(&place))
    )?;
    writeln!(
        out,
        "| torch removed (median of {torches}) | {:.3} ms | 0.5 ms |",
        ms(median(&remove))
    )?;
    writeln!(out)?;
    Ok(())
}

fn voxel_collision(size: SceneSize, out: &mut dyn Write) -> Result<(), SceneError> {
    const SCENE: &str = "voxel-collision";
    let (dims, config, runs, far_offset) = match size {
        SceneSize::Full => ([256, 96, 256], CollisionConfig::default(), 5, [-80, -40]),
        SceneSize::Tiny => (
            [64, 96, 64],
            CollisionConfig {
                radius: 16.0,
                ..CollisionConfig::default()
            },
            1,
            [-20, -10],
        ),
    };
    let t = Instant::now();
    let w = Arc::new(terrain::world(&Terrain {
        size: dims,
        base: 40.0,
        hills: (28.0, 64),
        bumps: (10.0, 16),
    }));
    let built = t.elapsed();
    let tables = tables(SCENE)?;
    let pal = Arc::new(CollisionPalette::resolve(
        &terrain::palette(LEAVES),
        tables,
        Some(MINECRAFT),
        None,
        0,
    ));
    let physics_err = |e: dh_sims::physics::PhysicsError| SceneError::Setup {
        scene: SCENE,
        message: e.to_string(),
    };
    let (px, pz) = (dims[0] / 2, dims[2] / 2);
    let pawn_at = Vec3::new(
        px as f32 + 0.5,
        ground_at(&w, dims[1] - 1, px, pz, true) as f32,
        pz as f32 + 0.5,
    );
    let vol = || CollisionVolume {
        name: "terrain".into(),
        source: w.clone(),
        palette: pal.clone(),
        placement: Placement::identity(),
        cells: [[0, 0, 0], dims],
    };

    // Everything within the radius, cooked and attached on this thread.
    let on_spot = CollisionConfig {
        workers: 0,
        ..config
    };
    let mut all = crate::voxel::collision::CollisionStats::default();
    let whole = best(runs, || {
        let Ok(mut physics) = PhysicsWorld::new(PhysicsParams::default()) else {
            return;
        };
        let mut s = CollisionStreamer::new(on_spot);
        if s.add_volume(vol()).is_some() {
            all = s.update(&mut physics, &[pawn_at]);
        }
        black_box(&physics);
    });
    // Cooked memory: the chunks the streamer cooked, cooked again here to count bytes.
    let mut bytes = 0usize;
    {
        let mut physics = PhysicsWorld::new(PhysicsParams::default()).map_err(physics_err)?;
        let mut s = CollisionStreamer::new(on_spot);
        s.add_volume(vol());
        s.update(&mut physics, &[pawn_at]);
        let mut scratch = CookScratch::default();
        let mut cooked = CookedChunk::default();
        let id = Placement::identity();
        for cz in 0..dims[2] / EDGE {
            for cy in 0..dims[1] / EDGE {
                for cx in 0..dims[0] / EDGE {
                    let volume = crate::voxel::collision::VolumeId(0);
                    if s.body_of_chunk(volume, [cx, cy, cz]).is_some() {
                        cook_chunk(
                            w.as_ref(),
                            &pal,
                            &id,
                            [cx, cy, cz],
                            &mut scratch,
                            &mut cooked,
                        );
                        bytes += cooked.byte_size();
                    }
                }
            }
        }
    }

    // The first tick at a new place: settled around the middle, the pawn teleported
    // away, one update (its urgent chunks on the spot, the rest queued on one worker)
    // and one step.
    let far = {
        let (x, z) = (px + far_offset[0], pz + far_offset[1]);
        Vec3::new(
            x as f32 + 0.5,
            ground_at(&w, dims[1] - 1, x, z, true) as f32,
            z as f32 + 0.5,
        )
    };
    let mut first = Duration::MAX;
    let mut first_stats = crate::voxel::collision::CollisionStats::default();
    for _ in 0..runs {
        let mut physics = PhysicsWorld::new(PhysicsParams::default()).map_err(physics_err)?;
        let mut s = CollisionStreamer::new(config);
        s.add_volume(vol());
        let pawn = physics.spawn_pawn(pawn_at, 0.0).map_err(physics_err)?;
        s.update(&mut physics, &[pawn_at]);
        s.flush(&mut physics);
        physics.step();
        physics
            .teleport_pawn(pawn, far, 0.0, 0.0, TeleportVelocity::Zero)
            .map_err(physics_err)?;
        let t = Instant::now();
        let st = s.update(&mut physics, &[far]);
        physics.step();
        let took = t.elapsed();
        if took < first {
            first = took;
            first_stats = st;
        }
        s.flush(&mut physics);
    }
    let cooked = all.cooked_now.max(1) as f64;
    writeln!(
        out,
        "## dh-engine bench voxel-collision: {}x{}x{} at {EDGE}, radius {} m, margin {} m, urgent {} m (world built in {:.1} s)",
        dims[0],
        dims[1],
        dims[2],
        config.radius,
        config.margin,
        config.urgent,
        built.as_secs_f64()
    )?;
    writeln!(out)?;
    writeln!(out, "| what | ours | spec |")?;
    writeln!(out, "| --- | --- | --- |")?;
    writeln!(out, "| chunks within the radius | {} | |", all.cooked_now)?;
    writeln!(
        out,
        "| bodies alive (chunks with faces) | {} | 109 |",
        all.bodies
    )?;
    writeln!(
        out,
        "| triangles | {} ({:.0} a body) | about 14,500 (133 a chunk) |",
        all.triangles,
        all.triangles as f64 / all.bodies.max(1) as f64
    )?;
    let bodies = all.bodies.max(1) as f64;
    writeln!(
        out,
        "| cook: face pass and greedy merge alone | {:.1} µs a chunk ({:.1} µs a body) | |",
        ms(all.cook_time) * 1e3 / cooked,
        ms(all.cook_time) * 1e3 / bodies
    )?;
    writeln!(
        out,
        "| cook + trimesh build (weld, internal edges, tree) + attach, one thread | {:.3} ms a body ({:.1} ms for all {} chunks) | about 1 ms a chunk |",
        ms(whole) / bodies,
        ms(whole),
        all.cooked_now
    )?;
    writeln!(
        out,
        "| cooked memory | {:.2} MiB ({:.1} KiB a body) | 0.6 MiB (about 6 KiB a chunk) |",
        bytes as f64 / (1024.0 * 1024.0),
        bytes as f64 / 1024.0 / all.bodies.max(1) as f64
    )?;
    writeln!(
        out,
        "| first tick at a new place (update + step) | {:.2} ms: {} urgent chunks cooked on the spot ({:.2} ms of it), {} queued | about 9 ms |",
        ms(first),
        first_stats.cooked_now,
        ms(first_stats.cook_time),
        first_stats.queued
    )?;
    writeln!(out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(name: &str) -> String {
        let mut out = Vec::new();
        run_scene(name, SceneSize::Tiny, Some(2), &mut out).unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The number in the `ours` column of the row starting `what`.
    fn ours(text: &str, what: &str) -> f64 {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("| {what}")))
            .unwrap_or_else(|| panic!("no row '{what}' in\n{text}"));
        let cell = row.split('|').nth(2).unwrap_or("");
        let num: String = cell
            .trim()
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        num.parse()
            .unwrap_or_else(|_| panic!("no number in '{cell}' of\n{row}"))
    }

    #[test]
    fn voxel_mesh_runs_tiny() {
        let r = report("voxel-mesh");
        assert!(
            r.starts_with("## dh-engine bench voxel-mesh: 64x80x64"),
            "{r}"
        );
        let wanted = ours(&r, "chunks wanted");
        let faced = ours(&r, "chunks with faces");
        assert!(wanted > 0.0 && faced > 0.0 && faced <= wanted, "{r}");
        assert!(ours(&r, "quads") > 0.0, "{r}");
        // Both worker counts mesh the same quads as the one-thread pass.
        let quads = ours(&r, "quads") as u64;
        assert_eq!(
            r.matches(&format!("({quads} quads)")).count(),
            2,
            "the walls mesh the same quads: {r}"
        );
        assert!(r.contains("| 936 |") && r.contains("200–300 µs"), "{r}");
    }

    #[test]
    fn voxel_light_runs_tiny() {
        let r = report("voxel-light");
        assert!(r.contains("cold lighting,"), "{r}");
        assert!(r.contains("0.68 s, 2.2 ms a column"), "{r}");
        assert!(r.contains("torch placed (median of 10)"), "{r}");
        assert!(r.contains("| 2.5 ms |") && r.contains("| 0.5 ms |"), "{r}");
        // Every column asked for was lit.
        let row = r
            .lines()
            .find(|l| l.starts_with("| cold lighting,"))
            .unwrap_or_default();
        let asked: String = row["| cold lighting, ".len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        assert!(row.contains(&format!("({asked} lit,")), "{row}");
    }

    #[test]
    fn voxel_collision_runs_tiny() {
        let r = report("voxel-collision");
        assert!(r.contains("radius 16 m"), "{r}");
        let chunks = ours(&r, "chunks within the radius");
        let bodies = ours(&r, "bodies alive");
        assert!(bodies > 0.0 && bodies <= chunks, "{r}");
        assert!(ours(&r, "triangles") > 0.0, "{r}");
        assert!(r.contains("| 109 |") && r.contains("about 9 ms"), "{r}");
    }

    #[test]
    fn an_unknown_scene_is_refused_by_name() {
        let mut out = Vec::new();
        let e = run_scene("voxel", SceneSize::Tiny, None, &mut out)
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("no built-in scene named 'voxel'; the scenes are voxel-mesh, voxel-light and voxel-collision")
        );
    }
}
