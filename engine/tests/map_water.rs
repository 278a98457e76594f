//! Water bodies from colliders, buoyancy and the friction probe in the host (spec `dh.map`:
//! 000:209 "a water node marked trigger becomes a water body the mover swims in, the
//! buoyancy samplers read", 000:464 a box "is water where its material is", 000:539,
//! 000:1044 "Surface friction", 000:1050 "Buoyancy"). A test pallet built with the
//! dh-content compiler, run headless through `Host`; every expected number is worked out
//! by hand below (default preferences: pawn 1.8 m, `world.swim.floatDepth` 0.3 m,
//! `world.swim.drift` 1 m/s, `world.swim.drag` 4, gravity 9.81).

use std::path::{Path, PathBuf};

use dh_engine::host::{Host, HostOptions};
use dh_engine::script::ScriptHost;
use glam::Vec3;

mod support;
use support::Run;

const MANIFEST: &str =
    r#"{ "id": "test.water", "name": "Water", "version": "1.0.0", "dependencies": [] }"#;

/// The pool: a stone floor whose top is at y = 0 (40 m across) and, on it, a water box
/// 8 m across from y = 0 to its surface at y = 2 (a `dh.box` whose material has a `water`
/// block, its collider a trigger). West of it, an ice lane and a stone lane, each with a
/// wooden crate on it.
const MAP: &str = r#"{
  "name": "Pool",
  "materials": {
    "stone": "/materials/stone.dh-mat", "ice": "/materials/ice.dh-mat",
    "water": "/materials/water.dh-mat", "wood": "/materials/wood.dh-mat",
    "granite": "/materials/granite.dh-mat"
  },
  "objects": [
    { "$type": "boxBrush", "id": "5e1d0a20-0000-4000-8000-000000000001", "name": "floor",
      "position": [0, -0.5, 0], "size": [40, 1, 40], "material": "stone" },
    { "$type": "object", "id": "5e1d0a20-0000-4000-8000-000000000002", "name": "pool",
      "position": [0, 1, 0],
      "components": [
        { "$type": "dh.box", "size": [8, 2, 8], "material": "water" },
        { "$type": "dh.collider", "state": "trigger" } ] },
    { "$type": "object", "id": "5e1d0a20-0000-4000-8000-000000000003", "name": "raft",
      "position": [0, 3, -2],
      "components": [
        { "$type": "dh.box", "size": [1, 0.2, 1], "material": "wood" },
        { "$type": "dh.physicsProp", "mass": 50 } ] },
    { "$type": "object", "id": "5e1d0a20-0000-4000-8000-000000000004", "name": "rock",
      "position": [0, 1.5, 2],
      "components": [
        { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "granite" },
        { "$type": "dh.physicsProp" } ] },
    { "$type": "boxBrush", "id": "5e1d0a20-0000-4000-8000-000000000005", "name": "iceLane",
      "position": [-12, 0.05, -6], "size": [12, 0.1, 2], "material": "ice" },
    { "$type": "boxBrush", "id": "5e1d0a20-0000-4000-8000-000000000006", "name": "stoneLane",
      "position": [-12, 0.05, 6], "size": [12, 0.1, 2], "material": "stone" },
    { "$type": "object", "id": "5e1d0a20-0000-4000-8000-000000000007", "name": "iceCrate",
      "position": [-15, 0.35, -6],
      "components": [
        { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "wood" },
        { "$type": "dh.physicsProp", "mass": 30 } ] },
    { "$type": "object", "id": "5e1d0a20-0000-4000-8000-000000000008", "name": "stoneCrate",
      "position": [-15, 0.35, 6],
      "components": [
        { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "wood" },
        { "$type": "dh.physicsProp", "mass": 30 } ] }
  ]
}"#;

fn build_pallet(dir: &Path) -> PathBuf {
    let files: Vec<(&str, Vec<u8>)> = vec![
        (
            "materials/stone.dh-mat",
            br#"{ "surface": "stone" }"#.to_vec(),
        ),
        ("materials/ice.dh-mat", br#"{ "surface": "ice" }"#.to_vec()),
        (
            "materials/water.dh-mat",
            br#"{ "alphaMode": "blend", "water": { "density": 1000 } }"#.to_vec(),
        ),
        (
            "materials/wood.dh-mat",
            br#"{ "surface": "wood" }"#.to_vec(),
        ),
        (
            "materials/granite.dh-mat",
            br#"{ "surface": "stone" }"#.to_vec(),
        ),
        ("maps/pool.dh-map", MAP.as_bytes().to_vec()),
    ];
    support::memory_pallet(dir, "water.pallet", MANIFEST, files)
}

fn start(tag: &str) -> Run {
    let dir = std::env::temp_dir().join(format!("dh-map-water-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let pallet = build_pallet(&dir);
    let host = Host::start(&HostOptions {
        map: "test.water:maps/pool.dh-map".into(),
        pallets: vec![pallet],
        sets: Vec::new(),
    });
    // The host has read what it needs of the pallet.
    let _ = std::fs::remove_dir_all(&dir);
    Run::new(host.unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn a_pawn_walking_into_a_water_box_swims_and_floats_at_the_float_depth() {
    let mut run = start("swim");
    assert_eq!(run.host.physics().water_body_count(), 1, "the pool");
    // On the floor 2 m west of the pool's edge (x = -4), facing +X (yaw -90).
    run.host
        .spawn("p", Some(Vec3::new(-6.0, 0.0, 0.0)), Some(-90.0))
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(8);
    assert!(!run.flag("p", "swimming"), "dry on the floor");
    assert!(run.flag("p", "grounded"));
    // Walking at 4 m/s it reaches the edge in half a second; in a second its middle (0.9 m
    // up) is well inside the water, 1.1 m under the surface at y = 2: it swims (the
    // state the voxel pool's test checks) and stands on nothing.
    run.host
        .move_pawn("p", 1.0, 0.0, Some(64))
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(64);
    assert!(run.flag("p", "swimming"), "swims in the water box");
    assert!(
        run.num("p", "x") > -4.0,
        "inside the pool: {}",
        run.num("p", "x")
    );
    run.ticks(640);
    // At rest with its middle the float depth under the surface: feet at 2 - 0.3 - 0.9.
    let y = run.num("p", "y");
    assert!((y - 0.8).abs() < 0.01, "y {y}, want 0.8");
    assert!(run.num("p", "vy").abs() < 0.01);
    assert!(run.flag("p", "swimming"));
    assert!(!run.flag("p", "grounded"));
}

#[test]
fn a_raft_floats_in_the_water_box_and_a_stone_crate_sinks() {
    let mut run = start("float");
    run.ticks(1024);
    // The raft: 1 × 0.2 × 1 m of 50 kg, 250 kg/m³ in water of 1000: a quarter of its
    // height (0.05 m) under the surface at y = 2, so its center at 2 - 0.05 + 0.1.
    let raft = run.num("raft", "y");
    assert!((raft - 2.05).abs() < 0.01, "raft y {raft}, want 2.05");
    // The rock: granite's surface is stone, 2500 kg/m³ (its mass from its material, no
    // mass stated), denser than the water: it sinks to the floor, center 0.25 over it.
    let rock = run.num("rock", "y");
    assert!((rock - 0.25).abs() < 0.02, "rock y {rock}, want 0.25");
}

#[test]
fn a_crate_shoved_along_ice_slides_farther_than_one_on_stone() {
    let mut run = start("slide");
    // Each crate rests on its lane (top at y = 0.1), a pawn 1 m west of it facing +X.
    run.ticks(16);
    let ice0 = run.num("iceCrate", "x");
    let stone0 = run.num("stoneCrate", "x");
    for (pawn, z) in [("a", -6.0), ("b", 6.0)] {
        run.host
            .spawn(pawn, Some(Vec3::new(-16.2, 0.1, z)), Some(-90.0))
            .unwrap_or_else(|e| panic!("{e}"));
        run.host
            .move_pawn(pawn, 1.0, 0.0, Some(16))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    run.ticks(320);
    let ice = run.num("iceCrate", "x") - ice0;
    let stone = run.num("stoneCrate", "x") - stone0;
    // The same shove, at world.prop.pushSpeed (2.5 m/s) at most: the probe gives the
    // crate the grip under it (spec 000:1044), so it slides d = v² / (2 μ g) after the
    // shove, μ = 0.12 on ice (2.65 m from 2.5 m/s) and 0.9 on stone (0.35 m). Without the
    // probe the wooden crate's own 0.75 is averaged in: 0.435 on ice, 0.73 m.
    assert!(stone > 0.0, "the stone crate was shoved: {stone}");
    assert!(ice > 1.5, "ice slide {ice}");
    assert!(ice > 4.0 * stone, "ice {ice} vs stone {stone}");
}

/// A water body from a trigger part's own triangles (000:209: "a water node marked
/// "trigger" becomes a water body the mover swims in"): model `meshes/basin.glb` is one
/// node, `basin`, drawing an 8 × 2 × 8 box (support's outward-wound `box_geometry`) with
/// its center at the node's origin. Placed at [0, 1, 0] on a stone floor whose top is at
/// y = 0, it spans x, z in [-4, 4] and y in [0, 2]; its part override gives it a trigger
/// `dh.collider` over one `mesh` shape wearing `water`, so the compiler's cook leaves it out
/// and the host cooks it at load, as water.
const BASIN_MAP: &str = r#"{
  "name": "Basin",
  "autoCollision": false,
  "materials": { "stone": "/materials/stone.dh-mat", "water": "/materials/water.dh-mat" },
  "objects": [
    { "$type": "boxBrush", "id": "5e1d0a20-0000-4000-8000-000000000101", "name": "floor",
      "position": [0, -0.5, 0], "size": [40, 1, 40], "material": "stone" },
    { "$type": "instance", "id": "5e1d0a20-0000-4000-8000-000000000102", "name": "basin",
      "source": "/meshes/basin.glb", "position": [0, 1, 0],
      "children": [
        { "path": "basin", "components": [
          { "$type": "dh.collider", "state": "trigger", "shapes": [ { "type": "mesh", "material": "water" } ] } ] } ] }
  ]
}"#;

fn basin_glb() -> Vec<u8> {
    let mut g = support::GlbBuilder::new();
    let (v, i) = support::box_geometry([8.0, 2.0, 8.0]);
    let pos = g.positions(&v);
    let idx = g.indices(&i);
    g.finish(&format!(
        r#""meshes":[{{"name":"BasinMesh","primitives":[{{"attributes":{{"POSITION":{pos}}},"indices":{idx}}}]}}],
"nodes":[{{"name":"basin","mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0"#
    ))
}

/// The basin map started (`sets` applied), from a pallet under a folder of its own
/// (`tag`).
fn basin_host(tag: &str, sets: &[&str]) -> Host {
    let dir = std::env::temp_dir().join(format!("dh-map-water-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let files: Vec<(&str, Vec<u8>)> = vec![
        (
            "materials/stone.dh-mat",
            br#"{ "surface": "stone" }"#.to_vec(),
        ),
        (
            "materials/water.dh-mat",
            br#"{ "alphaMode": "blend", "water": { "density": 1000 } }"#.to_vec(),
        ),
        ("meshes/basin.glb", basin_glb()),
        ("maps/basin.dh-map", BASIN_MAP.as_bytes().to_vec()),
    ];
    let pallet = support::memory_pallet(&dir, "basin.pallet", MANIFEST, files);
    let host = Host::start(&HostOptions {
        map: "test.water:maps/basin.dh-map".into(),
        pallets: vec![pallet],
        sets: sets.iter().map(|s| s.to_string()).collect(),
    });
    let _ = std::fs::remove_dir_all(&dir);
    host.unwrap_or_else(|e| panic!("{e}"))
}

/// `client.debug.colliderGizmo` on the basin's trigger mesh, which stands as no body (a
/// water body is no solid one): drawn from the triangles cooked for it at load, at the
/// part's pose, in the trigger colour. The box's twelve triangles give its twelve edges and
/// a diagonal across each face, 18 edges, each between two of its corners (x, z ±4, y 0 or
/// 2); the floor brush adds its own box.
#[test]
fn the_collider_gizmo_draws_the_trigger_meshs_cooked_triangles() {
    let host = basin_host("gizmo", &["client.debug.colliderGizmo=1"]);
    let mut o = dh_gpu::render::Overlay::default();
    let counts = dh_engine::gizmos::collider_lines(&mut o, &host);
    assert_eq!((counts.drawn, counts.skipped), (2, 0), "{counts:?}");
    assert_eq!((counts.lines, counts.left_out), (18, 0), "{counts:?}");
    let trigger: Vec<&[dh_gpu::render::overlay::LineVertex]> = o
        .lines
        .chunks(2)
        .filter(|p| p[0].color == dh_engine::gizmos::TRIGGER_COLLIDER_COLOR)
        .collect();
    assert_eq!(trigger.len(), 18);
    let corner = |p: [f32; 3]| {
        (p[0].abs() - 4.0).abs() < 1e-4
            && (p[1].abs() < 1e-4 || (p[1] - 2.0).abs() < 1e-4)
            && (p[2].abs() - 4.0).abs() < 1e-4
    };
    for pair in trigger {
        assert!(
            corner(pair[0].position) && corner(pair[1].position),
            "{pair:?}"
        );
    }
}

#[test]
fn a_pawn_in_a_mesh_shaped_water_trigger_swims_and_outside_it_does_not() {
    let mut run = Run::new(basin_host("basin", &[]));
    assert_eq!(run.host.physics().water_body_count(), 1, "the basin");
    // In it: feet on the floor at the middle, its middle (0.9 m up) 1.1 m under the
    // surface at y = 2. Outside it: 2 m past its +X side, on the floor.
    run.host
        .spawn("in", Some(Vec3::new(0.0, 0.0, 0.0)), Some(0.0))
        .unwrap_or_else(|e| panic!("{e}"));
    run.host
        .spawn("out", Some(Vec3::new(6.0, 0.0, 0.0)), Some(0.0))
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(8);
    assert!(run.flag("in", "swimming"), "swims in the mesh water");
    assert!(!run.flag("out", "swimming"), "dry beside it");
    assert!(run.flag("out", "grounded"));
    // The trigger blocks nothing: the swimmer rises to float with its middle the float
    // depth under the surface, feet at 2 - 0.3 - 0.9.
    run.ticks(640);
    let y = run.num("in", "y");
    assert!((y - 0.8).abs() < 0.01, "y {y}, want 0.8");
    assert!(run.flag("in", "swimming"));
}
