//! Voxel volumes in the engine host (spec `dh.voxel`: "Placing it in a map", "Streaming,
//! and never falling through", "Swimming"): a test pallet with a map placing one
//! Minecraft-platform container (a stone floor with a pool of water), built with the
//! dh-content compiler, run headless through `Host`.
//!
//! The container, 32 × 16 × 32 cells at 16-cell chunks, 1 m voxels, Y up, origin 0:
//! stone in y 0..4 everywhere but the pool (cells x 16..24, z 8..16), where stone fills
//! y 0..1 and water sources y 1..4. The record places it at (-10, -4, -10), so by hand:
//!
//! * the floor's top is at world y = 4 - 4 = 0;
//! * the pool's floor is at 1 - 4 = -3;
//! * a source stands 8/9 of a block (spec "Fluids"), and every corner of the pool's top
//!   cells reads only water columns of that height or solid ones (which drop out), so
//!   the surface is at 3 + 8/9 - 4 = -1/9 everywhere over the pool;
//! * the pool's middle column is cell (20, 12): world (10.5, 2.5) at its center.

mod support;
use support::Run;

#[path = "../../content/tests/mc_platform_pack/mod.rs"]
mod mc_platform_pack;
use mc_platform_pack as pack;

use std::path::{Path, PathBuf};

use std::sync::Arc;

use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::payload::{decode_all, encode, Grid, GridInfo, PaletteEntry, VoxelPayload};
use dh_engine::catalog::{Catalog, Found};
use dh_engine::host::{Host, HostOptions};
use dh_engine::script::ScriptHost;
use dh_engine::voxel::collision::{
    cook_chunk, CollisionCells, CollisionPalette, CookScratch, CookedChunk, RangeCells,
};
use dh_engine::voxel::volume::{open_volume, pose_matrix};
use dh_engine::voxel::GridChunks;
use glam::Vec3;

const MC: &str = "com.mojang.minecraft";
/// Where the record places the container's origin cell.
const AT: [f32; 3] = [-10.0, -4.0, -10.0];
/// The floor's top, the pool's floor and the water's surface, in world meters (above).
const FLOOR: f32 = 0.0;
const POOL_FLOOR: f32 = -3.0;
const SURFACE: f32 = 3.0 + 8.0 / 9.0 - 4.0;
/// The pawn's height and the float depth (`world.pawn.height`, `world.swim.floatDepth`
/// defaults).
const PAWN_HEIGHT: f32 = 1.8;
const FLOAT_DEPTH: f32 = 0.3;

fn payload() -> VoxelPayload {
    let mut p = VoxelPayload::default();
    p.header.platform = MC.into();
    p.header.voxel_size = 1.0;
    p.header.chunk_edge = 16;
    p.palette = vec![
        PaletteEntry::empty(),
        PaletteEntry::new("minecraft", "stone"),
        PaletteEntry::new("minecraft", "water"),
    ];
    p.grids = vec![Grid::new(GridInfo::new(
        "overworld",
        [0, 0, 0],
        [32, 16, 32],
    ))];
    for z in 0..32 {
        for x in 0..32 {
            let pool = (16..24).contains(&x) && (8..16).contains(&z);
            for y in 0..4 {
                let v = if pool && y >= 1 { 2 } else { 1 };
                assert!(p.set_cell(0, 0, [x, y, z], v));
            }
        }
    }
    p
}

fn build_pallet(dir: &Path) -> PathBuf {
    let shards = encode(&payload()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shards.len(), 1);
    let manifest = r#"{ "id": "test.voxelhost", "name": "Voxel host", "version": "1.0.0", "dependencies": [] }"#;
    let def = format!(r#"{{ "platform": "{MC}", "data": "ground.dh-vox.bin" }}"#);
    let map = format!(
        r#"{{
  "name": "Voxel ground",
  "objects": [
    {{ "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5b01", "name": "ground", "position": {AT:?}, "rotation": [0, 0, 0],
      "components": [ {{ "$type": "dh.voxelVolume", "volume": "/voxels/ground.dh-vox" }} ] }}
  ]
}}"#
    );
    let sources: Vec<(&str, Vec<u8>)> = vec![
        ("voxels/ground.dh-vox", def.into_bytes()),
        (
            "voxels/ground.dh-vox.bin",
            shards.into_iter().next().unwrap_or_default(),
        ),
        ("maps/voxel-ground.dh-map", map.into_bytes()),
    ];
    support::memory_pallet(dir, "voxelhost.pallet", manifest, sources)
}

fn start(sets: &[&str]) -> Run {
    // One folder per test: the tests of this file run side by side.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("dh-voxel-host-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let pallet = build_pallet(&dir);
    let host = Host::start(&HostOptions {
        map: "voxel-ground".into(),
        pallets: vec![pallet],
        sets: sets.iter().map(|s| s.to_string()).collect(),
    })
    .unwrap_or_else(|e| panic!("{e}"));
    // The host has read what it needs of the pallet.
    let _ = std::fs::remove_dir_all(&dir);
    Run::new(host)
}

#[test]
fn the_map_opens_its_volume_placed_and_shown() {
    let run = start(&[]);
    let volumes = run.host.voxel_volumes();
    assert_eq!(volumes.len(), 1);
    let v = &volumes[0];
    assert_eq!(v.name, "ground");
    assert_eq!(v.container, "test.voxelhost:voxels/ground.dh-vox");
    assert_eq!(v.platform.as_deref(), Some(MC));
    assert_eq!(v.grids.len(), 1);
    let g = &v.grids[0];
    assert_eq!(g.cells, [[0, 0, 0], [32, 16, 32]]);
    // Cell (20, 3, 12) is water, (4, 3, 4) stone; the cell's corner lands at the pose.
    assert_eq!(g.chunks.get([20, 3, 12]), 2);
    assert_eq!(g.chunks.get([4, 3, 4]), 1);
    let p = g.placement.point(glam::DVec3::from([4.0, 4.0, 4.0]));
    assert_eq!(p.to_array(), [-6.0, 0.0, -6.0]);
    assert!(run.host.voxel_volume_in_world(0));
}

#[test]
fn a_pawn_lands_on_voxel_ground_and_walks_across_a_chunk_border() {
    let mut run = start(&[]);
    // Above cell (4, 4, 4), 2 m over the floor: nothing is solid before the first tick.
    run.host
        .spawn("p", Some(Vec3::new(-5.5, 2.0, -5.5)), Some(-90.0))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!run.flag("p", "grounded"));
    run.ticks(64);
    // The urgent chunks were cooked before the first move: it fell 2 m and stands on top.
    assert!(
        (run.num("p", "y") - FLOOR).abs() < 1e-3,
        "{}",
        run.num("p", "y")
    );
    assert!(run.flag("p", "grounded"));
    let stats = run.host.voxel_collision_stats();
    assert!(stats.bodies >= 1, "{stats:?}");
    // Yaw -90 faces +X: walk 3 s at 4 m/s from x -5.5 across the chunk border at cell
    // 16 (world x 6) to about x 6.5, south of the pool (world z -5.5 is cell 4.5).
    run.host
        .move_pawn("p", 1.0, 0.0, Some(192))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut lowest = f32::MAX;
    for _ in 0..200 {
        run.ticks(1);
        lowest = lowest.min(run.num("p", "y"));
    }
    let x = run.num("p", "x");
    assert!(x > 6.0, "crossed the border: x {x}");
    assert!((lowest - FLOOR).abs() < 1e-3, "never dipped: {lowest}");
    assert!(run.flag("p", "grounded"));
    assert!(!run.flag("p", "swimming"));
}

#[test]
fn a_pawn_in_the_pool_floats_with_its_middle_at_the_float_depth() {
    let mut run = start(&[]);
    // Feet just over the pool's floor, in the pool's middle: its middle is
    // 1.889 m under the surface.
    run.host
        .spawn("s", Some(Vec3::new(10.5, POOL_FLOOR + 0.1, 2.5)), None)
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(40);
    assert!(run.flag("s", "swimming"));
    // Rising at the drift (1 m/s, water's viscosity 1) from rest, closing at the drag
    // (4 a second): after n ticks vy = 1 - e^(-4n/64), while deeper than twice the
    // float depth (it has risen about 0.37 m of 1.29).
    let want = 1.0 - (-4.0f32 * 40.0 / 64.0).exp();
    let vy = run.num("s", "vy");
    assert!((vy - want).abs() < 2e-3, "vy {vy}, want {want}");
    run.ticks(600);
    // At rest with its middle FLOAT_DEPTH under the surface.
    let feet = SURFACE - FLOAT_DEPTH - PAWN_HEIGHT * 0.5;
    let y = run.num("s", "y");
    assert!((y - feet).abs() < 0.01, "y {y}, want {feet}");
    assert!(run.num("s", "vy").abs() < 0.01);
    assert!(run.flag("s", "swimming"));
    assert!(!run.flag("s", "grounded"));
}

#[test]
fn a_pawn_denser_than_water_sinks_to_the_pools_floor() {
    let mut run = start(&["world.swim.pawnDensity=1100"]);
    // Feet a metre over the pool's floor: its middle is 0.99 m under the surface.
    run.host
        .spawn("s", Some(Vec3::new(10.5, POOL_FLOOR + 1.0, 2.5)), None)
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(40);
    // Sinking at the drift: vy = -(1 - e^(-4n/64)), no gravity (it has sunk about 0.4 m).
    let want = -(1.0 - (-4.0f32 * 40.0 / 64.0).exp());
    let vy = run.num("s", "vy");
    assert!((vy - want).abs() < 2e-3, "vy {vy}, want {want}");
    run.ticks(200);
    let y = run.num("s", "y");
    assert!((y - POOL_FLOOR).abs() < 1e-3, "y {y}");
    assert!(run.flag("s", "grounded"));
    assert!(run.flag("s", "swimming"));
}

#[test]
fn a_pawn_on_dry_ground_beside_the_pool_does_not_swim() {
    let mut run = start(&[]);
    // Cell (14, 4, 12): stone under it, two cells west of the pool's edge.
    run.host
        .spawn("d", Some(Vec3::new(4.5, 0.5, 2.5)), None)
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(64);
    assert!(!run.flag("d", "swimming"));
    assert!((run.num("d", "y") - FLOOR).abs() < 1e-3);
    assert!(run.flag("d", "grounded"));
}

#[test]
fn switching_the_volume_off_drops_its_bodies_and_the_pawn_falls() {
    let mut run = start(&[]);
    run.host
        .spawn("p", Some(Vec3::new(-5.5, 0.0, -5.5)), None)
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(8);
    assert!(run.flag("p", "grounded"));
    run.host
        .scene_enable("ground", false)
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(2);
    assert!(!run.host.voxel_volume_in_world(0));
    assert_eq!(run.host.voxel_collision().body_count(), 0);
    run.ticks(30);
    assert!(run.num("p", "y") < FLOOR - 0.5, "{}", run.num("p", "y"));
}

#[test]
fn installing_the_map_decodes_no_chunk_and_a_pawn_decodes_what_it_stands_near() {
    let mut run = start(&[]);
    // Opened: the header and the region index; no chunk record yet.
    assert_eq!(run.host.voxel_collision().chunks_decoded(), 0);
    assert_eq!(run.host.voxel_collision().cell_cache_bytes(), 0);
    run.host
        .spawn("p", Some(Vec3::new(-5.5, 1.0, -5.5)), None)
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(4);
    run.host.flush_voxel_collision();
    run.ticks(60);
    // The container is 2 × 1 × 2 chunks, all within 48 m and all stored: each decoded
    // once (the 16 MB cache holds them all), read by the cooks and the water query.
    assert_eq!(run.host.voxel_collision().chunks_decoded(), 4);
    assert_eq!(
        run.host.voxel_collision().cell_cache_bytes(),
        4 * (16 * 16 * 16 * 4 + 16)
    );
    assert!(run.flag("p", "grounded"));
}

#[test]
fn a_compiled_pallets_grid_read_by_range_cooks_as_its_whole_decode() {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("dh-voxel-range-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let pallet = build_pallet(&dir);
    let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    catalog
        .mount_file(&pallet)
        .unwrap_or_else(|e| panic!("{e}"));
    let pose = pose_matrix(AT.into(), glam::Quat::IDENTITY, glam::Vec3::ONE);
    let opened = open_volume(
        &catalog,
        "ground",
        "test.voxelhost:voxels/ground.dh-vox",
        pose,
        &[],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // The whole payload entry, decoded at once (what the host did before).
    let bytes = catalog
        .read(&Found {
            pallet: "test.voxelhost".into(),
            path: "voxels/ground.dh-vox.bin".into(),
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let whole = decode_all(&[bytes.as_ref()]).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(whole.palette, opened.palette);
    let whole = GridChunks {
        grid: &whole.grids[0],
        edge: 16,
    };
    let tables = BlockTables::builtin().unwrap_or_else(|e| panic!("{e}"));
    let pal = CollisionPalette::resolve(&opened.palette, tables, Some(MC), None, 0);
    let g = &opened.grids[0];
    let cells = Arc::new(
        RangeCells::new("ground", opened.payload.clone(), 0, 2 * (16 << 10))
            .unwrap_or_else(|e| panic!("{e}")),
    );
    let range = CollisionCells::Range(cells.clone());
    let mut scratch = CookScratch::default();
    let mut faced = 0;
    for cz in -1..=2 {
        for cy in -1..=1 {
            for cx in -1..=2 {
                let c = [cx, cy, cz];
                let mut a = CookedChunk::default();
                range.cook(&pal, &g.placement, c, &mut scratch, &mut a);
                let mut b = CookedChunk::default();
                cook_chunk(&whole, &pal, &g.placement, c, &mut scratch, &mut b);
                assert_eq!(a, b, "chunk {c:?}");
                // The drawing's lazily decoded grid reads the same cells.
                let mut d = CookedChunk::default();
                cook_chunk(
                    g.chunks.as_ref(),
                    &pal,
                    &g.placement,
                    c,
                    &mut scratch,
                    &mut d,
                );
                assert_eq!(a, d, "chunk {c:?} (lazy)");
                faced += usize::from(!a.is_empty());
            }
        }
    }
    // The four chunks of the container have faces; around them nothing is stored.
    assert_eq!(faced, 4);
    assert!(cells.cache_bytes() <= 2 * (16 << 10));
    assert!(cells.take_log().is_empty());
}

// ── Block shapes from the platform pallet (spec "Block shapes", "The server's pallet
//    rules") ────────────────────────────────────────────────────────────────────────

/// The platform pallet imported from the project's own test pack and compiled, written
/// into `dir` as `minecraft.pallet`; with `fingerprint` its `blocks.fingerprint` is
/// replaced first (a pallet from another game version, as a server might hold). Returns
/// the pallet's path and the fingerprint the importer wrote.
fn platform_pallet(dir: &Path, fingerprint: Option<&str>) -> (PathBuf, String) {
    use dh_content::compile::{compile, CompileOptions};
    use dh_content::voxel::minecraft::platform::{import_platform, PlatformOptions};
    let jar = pack::client_jar(dir, &[]);
    let into = dir.join("com.mojang.minecraft");
    let r =
        import_platform(&jar, &into, &PlatformOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    if let Some(f) = fingerprint {
        std::fs::write(into.join("blocks.fingerprint"), format!("{f}\n"))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let out = compile(
        &into,
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let path = dir.join(match fingerprint {
        Some(_) => "minecraft-other.pallet",
        None => "minecraft.pallet",
    });
    std::fs::write(&path, out.pallet.unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
    (path, r.fingerprint)
}

/// A staircase of the pack's blocks, 16 × 8 × 8 cells placed at (0, -1, 0): an oak plank
/// floor (y 0, its top at world y 0), a bottom oak stair facing east at x 4 (its low step
/// on the west half, top 0.5 m, its high step on the east half, top 1 m), planks at x 5
/// (top 1 m), bottom oak slabs on planks at x 6..9 (top 1.5 m) and a plank wall at x 9.
fn stairs_payload() -> VoxelPayload {
    use dh_content::voxel::payload::{PropValue, Property};
    let prop = |k: &str, v: &str| Property {
        key: k.into(),
        value: PropValue::String(v.into()),
    };
    let mut stair = PaletteEntry::new("minecraft", "oak_stairs");
    stair.properties = vec![
        prop("facing", "east"),
        prop("half", "bottom"),
        prop("shape", "straight"),
        prop("waterlogged", "false"),
    ];
    let mut slab = PaletteEntry::new("minecraft", "oak_slab");
    slab.properties = vec![prop("type", "bottom"), prop("waterlogged", "false")];
    let mut p = VoxelPayload::default();
    p.header.platform = MC.into();
    p.header.voxel_size = 1.0;
    p.header.chunk_edge = 16;
    p.palette = vec![
        PaletteEntry::empty(),
        PaletteEntry::new("minecraft", "oak_planks"),
        stair,
        slab,
    ];
    p.grids = vec![Grid::new(GridInfo::new("overworld", [0, 0, 0], [16, 8, 8]))];
    for z in 0..8 {
        for x in 0..16 {
            assert!(p.set_cell(0, 0, [x, 0, z], 1));
        }
        assert!(p.set_cell(0, 0, [4, 1, z], 2));
        for x in 5..9 {
            assert!(p.set_cell(0, 0, [x, 1, z], 1));
        }
        for x in 6..9 {
            assert!(p.set_cell(0, 0, [x, 2, z], 3));
        }
        for y in 1..6 {
            assert!(p.set_cell(0, 0, [9, y, z], 1));
        }
    }
    p
}

/// The staircase map's pallet, built with `platform` mounted as its dependency (`None`:
/// the build has no platform pallet). With `strip` the build's `.platforms` record is
/// left out, as a pallet built before the rule.
fn stairs_pallet(dir: &Path, platform: Option<&Path>, strip: bool) -> PathBuf {
    use dh_content::compile::AssetKind;
    use dh_content::compile::{
        compile_sources_with, CompileOptions, Dependencies, SourceData, SourceEntry,
    };
    use dh_content::pallet::{CodecChoice, Pallet, PalletWriter};
    let shards = encode(&stairs_payload()).unwrap_or_else(|e| panic!("{e}"));
    let manifest = format!(
        r#"{{ "id": "test.stairs", "name": "Stairs", "version": "1.0.0", "dependencies": ["{MC}"] }}"#
    );
    let def = format!(r#"{{ "platform": "{MC}", "data": "stairs.dh-vox.bin" }}"#);
    let map = r#"{
  "name": "Stairs",
  "objects": [
    { "$type": "object", "id": "6f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", "name": "stairs", "position": [0, -1, 0], "rotation": [0, 0, 0],
      "components": [ { "$type": "dh.voxelVolume", "volume": "/voxels/stairs.dh-vox" } ] }
  ]
}"#;
    let sources: Vec<(&str, Vec<u8>)> = vec![
        ("voxels/stairs.dh-vox", def.into_bytes()),
        (
            "voxels/stairs.dh-vox.bin",
            shards.into_iter().next().unwrap_or_default(),
        ),
        ("maps/stairs.dh-map", map.as_bytes().to_vec()),
    ];
    let entries = sources
        .into_iter()
        .map(|(path, bytes)| SourceEntry {
            path: path.to_string(),
            kind: AssetKind::of(path)
                .unwrap_or_else(|e| panic!("{e}"))
                .unwrap_or_else(|| panic!("{path}: not an asset")),
            data: SourceData::Memory(Box::leak(bytes.into_boxed_slice())),
        })
        .collect();
    let deps = match platform {
        Some(p) => Dependencies::from_pallets([Pallet::open(p).unwrap_or_else(|e| panic!("{e}"))]),
        None => Dependencies::none(),
    };
    let out = compile_sources_with(
        Some(&manifest),
        entries,
        &CompileOptions {
            write: true,
            progress: None,
        },
        &deps,
    );
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let mut bytes = out.pallet.unwrap_or_else(|| panic!("no pallet"));
    if strip {
        let built = Pallet::from_bytes(bytes).unwrap_or_else(|e| panic!("{e}"));
        let mut w = PalletWriter::new(built.manifest().clone()).unwrap_or_else(|e| panic!("{e}"));
        for e in built.entries() {
            if e.path.ends_with(".platforms") {
                continue;
            }
            let data = built.read(e.path).unwrap_or_else(|e| panic!("{e}"));
            w.add(e.path, data.into_owned(), e.meta.clone(), CodecChoice::Auto)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        bytes = w.finish().unwrap_or_else(|e| panic!("{e}"));
    }
    let path = dir.join(if strip {
        "stairs-old.pallet"
    } else {
        "stairs.pallet"
    });
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// A fresh folder for one test.
fn stairs_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dh-voxel-stairs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// Starts the staircase map with `pallets` mounted and runs the walk: a pawn dropped at
/// x 1.5 on the floor walks east (yaw -90 faces +X) for 2.5 s at 4 m/s, far enough to
/// reach the wall at x 9 over the stair and the slabs. Returns the host's load log and
/// the script's failures.
fn walk_the_stairs(pallets: Vec<PathBuf>, script: &str) -> (Vec<String>, Vec<String>) {
    use dh_engine::script::{self, ScriptRunner};
    let mut host = Host::start(&HostOptions {
        map: "stairs".into(),
        pallets,
        sets: Vec::new(),
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let log = host.take_output();
    let mut runner =
        ScriptRunner::new(script::parse("stairs.dhs", script).unwrap_or_else(|e| panic!("{e}")));
    let scheduler = dh_jobs::Scheduler::new(1).unwrap_or_else(|e| panic!("{e}"));
    let timer = dh_jobs::FrameTimer::new();
    let mut failures = Vec::new();
    while !runner.finished(host.tick()) {
        host.step(Some(&mut runner), &scheduler, &timer)
            .unwrap_or_else(|e| panic!("{e}"));
        failures.extend(runner.take_failures().into_iter().map(|f| f.to_string()));
    }
    (log, failures)
}

/// Up the stair's two half-block steps (0.5 m each, within the default world.stepHeight
/// 0.5) and onto the slab, whose top is 1.5 m over the floor.
const UP_THE_STAIRS: &str = "\
spawn p 1.5 0.2 4 -90
wait 16 ticks
move p 1 0 160
wait 180 ticks
expect p.grounded == true
expect p.y == 1.5 within 0.01
expect p.x > 6.2
";

/// Without block shapes the stair is a whole cube: a 1 m ledge the pawn stops against.
const AGAINST_THE_LEDGE: &str = "\
spawn p 1.5 0.2 4 -90
wait 16 ticks
move p 1 0 160
wait 180 ticks
expect p.grounded == true
expect p.y == 0 within 0.01
expect p.x < 4
";

fn pallet_lines(log: &[String]) -> Vec<&String> {
    log.iter()
        .filter(|l| l.starts_with("PLATFORM PALLET"))
        .collect()
}

#[test]
fn a_pawn_walks_up_a_stair_and_onto_a_slab_with_the_platform_pallet() {
    let dir = stairs_dir("up");
    let (platform, _) = platform_pallet(&dir, None);
    let map = stairs_pallet(&dir, Some(&platform), false);
    let (log, failures) = walk_the_stairs(vec![map, platform], UP_THE_STAIRS);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{failures:?}");
    // The server's pallet and this machine's are the same: nothing to say.
    assert!(pallet_lines(&log).is_empty(), "{log:?}");
}

#[test]
fn without_the_platform_pallet_the_stair_is_a_ledge() {
    let dir = stairs_dir("ledge");
    let map = stairs_pallet(&dir, None, false);
    let (log, failures) = walk_the_stairs(vec![map], AGAINST_THE_LEDGE);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{failures:?}");
    assert!(pallet_lines(&log).is_empty(), "{log:?}");
}

#[test]
fn a_pallet_that_differs_from_the_servers_is_logged_loudly_and_predicts_with_its_own() {
    let dir = stairs_dir("mismatch");
    let theirs = "9c41".to_string() + &"0".repeat(60);
    let (server, _) = platform_pallet(&dir, Some(&theirs));
    let map = stairs_pallet(&dir, Some(&server), false);
    // The build recorded the server's pallet: its version and its fingerprint.
    let built = dh_content::pallet::Pallet::open(&map).unwrap_or_else(|e| panic!("{e}"));
    let text = built
        .read("maps/stairs.dh-map.platforms")
        .unwrap_or_else(|e| panic!("{e}"));
    let records = dh_content::compile::platforms::read_platforms(
        std::str::from_utf8(&text).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let rec = records
        .get(MC)
        .cloned()
        .flatten()
        .unwrap_or_else(|| panic!("{records:?}"));
    assert_eq!(rec.version, "26.1.0");
    assert_eq!(rec.blocks, theirs);
    let (own, ours) = platform_pallet(&dir, None);
    let (log, failures) = walk_the_stairs(vec![map, own], UP_THE_STAIRS);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{failures:?}");
    // The spec's line, with the pack's version (version.json's 26.1) and the first four
    // hex digits of each fingerprint: ours as the importer wrote it, theirs as set above.
    let want = format!(
        "PLATFORM PALLET MISMATCH: this machine's 'com.mojang.minecraft' pallet (26.1) (blocks {}...) differs from the server's (blocks 9c41...): block shapes may predict differently here, and the server's win. Generate both from the same Minecraft version",
        &ours[..4]
    );
    assert_eq!(pallet_lines(&log), vec![&want], "{log:?}");
}

#[test]
fn a_server_without_the_pallet_makes_the_client_predict_cubes_and_say_so() {
    let dir = stairs_dir("none");
    let map = stairs_pallet(&dir, None, false);
    // The build had no platform pallet: the map's record says so.
    let built = dh_content::pallet::Pallet::open(&map).unwrap_or_else(|e| panic!("{e}"));
    let text = built
        .read("maps/stairs.dh-map.platforms")
        .unwrap_or_else(|e| panic!("{e}"));
    let records = dh_content::compile::platforms::read_platforms(
        std::str::from_utf8(&text).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(records.get(MC), Some(&None), "{records:?}");
    let (own, _) = platform_pallet(&dir, None);
    let (log, failures) = walk_the_stairs(vec![map, own], AGAINST_THE_LEDGE);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{failures:?}");
    let lines = pallet_lines(&log);
    assert_eq!(lines.len(), 1, "{log:?}");
    assert!(
        lines[0].starts_with(
            "PLATFORM PALLET SET ASIDE: the server has no 'com.mojang.minecraft' pallet"
        ) && lines[0].contains("(26.1)"),
        "{}",
        lines[0]
    );
}

#[test]
fn a_map_built_before_the_rule_keeps_the_clients_own_pallet() {
    let dir = stairs_dir("old");
    let (platform, _) = platform_pallet(&dir, None);
    let map = stairs_pallet(&dir, Some(&platform), true);
    let (log, failures) = walk_the_stairs(vec![map, platform], UP_THE_STAIRS);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{failures:?}");
    assert!(pallet_lines(&log).is_empty(), "{log:?}");
}
