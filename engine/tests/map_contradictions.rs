//! Run-time rules of `dh.map` the host once contradicted (issue 12, item 4): a prop's
//! default mass, spawn points off the world, client-simulated props and the members the
//! renderer cannot draw yet. A test pallet built with the dh-content compiler, run
//! headless through `Host`; every expected number is worked out by hand below.

use std::path::{Path, PathBuf};

use dh_engine::host::{Host, HostOptions};

mod support;

const MANIFEST: &str = r#"{ "id": "test.contradictions", "name": "Contradictions", "version": "1.0.0", "dependencies": [] }"#;

/// Builds a pallet of `files` (source path, text) into `dir`; its path.
fn build_pallet(dir: &Path, files: &[(&str, String)]) -> PathBuf {
    let sources = files
        .iter()
        .map(|(path, text)| (*path, text.clone().into_bytes()))
        .collect();
    support::memory_pallet(dir, "contradictions.pallet", MANIFEST, sources)
}

/// Starts the host on map `map` of a pallet of `files`.
fn start(tag: &str, map: &str, files: &[(&str, String)]) -> Host {
    let dir = std::env::temp_dir().join(format!("dh-contradictions-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let pallet = build_pallet(&dir, files);
    let host = Host::start(&HostOptions {
        map: map.into(),
        pallets: vec![pallet],
        sets: Vec::new(),
    });
    // The host has read what it needs of the pallet.
    let _ = std::fs::remove_dir_all(&dir);
    host.unwrap_or_else(|e| panic!("{e}"))
}

fn mass_of(host: &Host, name: &str) -> f32 {
    let e = host
        .sim()
        .entity_named(name)
        .unwrap_or_else(|| panic!("no record '{name}'"));
    host.prop_mass(e)
        .unwrap_or_else(|| panic!("'{name}' has no prop body"))
}

#[test]
fn a_prop_without_a_mass_weighs_its_box_materials_density_times_its_volume_else_35_kg() {
    let map = r#"{
  "name": "Props",
  "materials": { "plain": "/materials/plain.dh-mat", "oak": "/materials/oak.dh-mat" },
  "objects": [
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000001", "name": "plain",
      "position": [0, 2, 0],
      "components": [
        { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "plain" },
        { "$type": "dh.collider" },
        { "$type": "dh.physicsProp" } ] },
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000002", "name": "oak",
      "position": [3, 2, 0], "scale": [2, 1, 1],
      "components": [
        { "$type": "dh.box", "size": [0.5, 0.4, 0.3], "material": "oak" },
        { "$type": "dh.collider" },
        { "$type": "dh.physicsProp" } ] },
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000003", "name": "stated",
      "position": [6, 2, 0],
      "components": [
        { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "oak" },
        { "$type": "dh.collider" },
        { "$type": "dh.physicsProp", "mass": 12 } ] }
  ]
}"#;
    let files = [
        (
            "materials/plain.dh-mat",
            r#"{ "shader": "lit" }"#.to_string(),
        ),
        (
            "materials/oak.dh-mat",
            r#"{ "shader": "lit", "surface": "wood" }"#.to_string(),
        ),
        ("maps/props.dh-map", map.to_string()),
    ];
    let host = start("mass", "test.contradictions:maps/props.dh-map", &files);
    // A material that names no surface names no density: 35 kg.
    let plain = mass_of(&host, "plain");
    assert!((plain - 35.0).abs() < 1e-3, "plain: {plain}");
    // Wood is 700 kg/m³; the body is 0.5 × 0.4 × 0.3 m scaled by 2 in x: 1.0 × 0.4 × 0.3
    // = 0.12 m³, so 84 kg.
    let oak = mass_of(&host, "oak");
    assert!((oak - 84.0).abs() < 1e-2, "oak: {oak}");
    // An authored mass wins over the material.
    let stated = mass_of(&host, "stated");
    assert!((stated - 12.0).abs() < 1e-3, "stated: {stated}");
}

fn num(host: &Host, pawn: &str, property: &str) -> f32 {
    use dh_engine::script::{ScriptHost, Value};
    match host.query(pawn, property) {
        Ok(Value::Number(v)) => v as f32,
        other => panic!("{pawn}.{property}: {other:?}"),
    }
}

#[test]
fn a_spawn_point_that_is_not_in_the_world_is_never_used() {
    // Three spawns: one switched off, one under a switched-off folder, one in the world.
    // Three pawns spawned with no position would take three different spawns if all
    // three counted; only the live one may be used, so all three spread around it.
    let map = r#"{
  "name": "Spawns",
  "objects": [
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000011", "name": "off",
      "position": [50, 0, 0], "enabled": false,
      "components": [ { "$type": "dh.spawnPoint" } ] },
    { "$type": "folder", "id": "7a3e0c11-0000-4000-8000-000000000012", "name": "closed",
      "enabled": false },
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000013", "name": "under",
      "parent": "7a3e0c11-0000-4000-8000-000000000012", "position": [-50, 0, 0],
      "components": [ { "$type": "dh.spawnPoint" } ] },
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000014", "name": "live",
      "position": [5, 0, 5],
      "components": [ { "$type": "dh.spawnPoint" } ] }
  ]
}"#;
    let files = [("maps/spawns.dh-map", map.to_string())];
    let mut host = start("spawn", "test.contradictions:maps/spawns.dh-map", &files);
    use dh_engine::script::ScriptHost;
    for pawn in ["a", "b", "c"] {
        host.spawn(pawn, None, None)
            .unwrap_or_else(|e| panic!("{e}"));
        let (x, z) = (num(&host, pawn, "x"), num(&host, pawn, "z"));
        // Spread slots ring the spawn within a few meters; the other two are 45 m off.
        let d = ((x - 5.0).powi(2) + (z - 5.0).powi(2)).sqrt();
        assert!(
            d < 5.0,
            "{pawn} spawned at ({x}, {z}), {d} m from the live spawn"
        );
    }
}

/// The load log's lines that contain `needle`.
fn lines_with<'a>(log: &'a [String], needle: &str) -> Vec<&'a String> {
    log.iter().filter(|l| l.contains(needle)).collect()
}

#[test]
fn client_simulated_props_are_said_once_to_be_simulated_locally() {
    let map = r#"{
  "name": "Client props",
  "materials": { "plain": "/materials/plain.dh-mat" },
  "objects": [
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000021", "name": "mine",
      "position": [0, 2, 0],
      "components": [
        { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "plain" },
        { "$type": "dh.collider" },
        { "$type": "dh.physicsProp", "mass": 5, "sim": "client" } ] },
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000022", "name": "yours",
      "position": [2, 2, 0],
      "components": [
        { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "plain" },
        { "$type": "dh.collider" },
        { "$type": "dh.physicsProp", "mass": 5, "sim": "client" } ] },
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000023", "name": "served",
      "position": [4, 2, 0],
      "components": [
        { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "plain" },
        { "$type": "dh.collider" },
        { "$type": "dh.physicsProp", "mass": 5 } ] }
  ]
}"#;
    let files = [
        (
            "materials/plain.dh-mat",
            r#"{ "shader": "lit" }"#.to_string(),
        ),
        ("maps/client.dh-map", map.to_string()),
    ];
    let mut host = start("client", "test.contradictions:maps/client.dh-map", &files);
    let log = host.take_output();
    let lines = lines_with(&log, "\"sim\": \"client\"");
    assert_eq!(lines.len(), 1, "log:\n{}", log.join("\n"));
    assert_eq!(
        lines[0].as_str(),
        "map test.contradictions:maps/client.dh-map: props with \"sim\": \"client\" are simulated locally: one process runs one world, so they have no server copy (mine, yours)"
    );
}

#[test]
fn every_member_the_renderer_cannot_draw_says_so_once_by_name() {
    let map = r#"{
  "name": "Undrawn",
  "materials": { "pool": "/materials/pool.dh-mat" },
  "lighting": {
    "skyImage": { "path": "/textures/sky.hdr" },
    "giVolume": { "enabled": true },
    "lightmap": { "enabled": true }
  },
  "backdrop": { "anchor": [0, 100, 0], "scale": 16 },
  "objects": [
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000031", "name": "pool",
      "position": [0, 0, 0],
      "components": [
        { "$type": "dh.box", "size": [4, 1, 4], "material": "pool" } ] },
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000032", "name": "mirror",
      "position": [0, 2, 0],
      "components": [ { "$type": "dh.reflectionProbe", "capturePoint": [0, 0, 0] } ] },
    { "$type": "object", "id": "7a3e0c11-0000-4000-8000-000000000033", "name": "probes",
      "position": [0, 2, 0],
      "components": [ { "$type": "dh.lightProbeVolume" } ] }
  ]
}"#;
    let files = [
        (
            "materials/pool.dh-mat",
            r#"{ "shader": "lit", "water": { "density": 1000 } }"#.to_string(),
        ),
        ("textures/sky.hdr", "#?RADIANCE\n".to_string()),
        ("maps/undrawn.dh-map", map.to_string()),
    ];
    let mut host = start("undrawn", "test.contradictions:maps/undrawn.dh-map", &files);
    let log = host.take_output();
    let m = "map test.contradictions:maps/undrawn.dh-map";
    for member in [
        "lighting.skyImage",
        "lighting.giVolume",
        "lighting.lightmap",
        "backdrop",
        "a water surface",
        "dh.reflectionProbe",
        "a light probe",
    ] {
        let prefix = format!("{m}: {member} is not drawn yet");
        let n = log.iter().filter(|l| l.starts_with(&prefix)).count();
        assert_eq!(n, 1, "{member}: log:\n{}", log.join("\n"));
    }
    // Each names what it is about.
    assert_eq!(
        lines_with(&log, "a water surface is not drawn yet")[0].as_str(),
        format!("{m}: a water surface is not drawn yet; its faces draw as the material's plain surface (test.contradictions:materials/pool.dh-mat)")
    );
    assert_eq!(
        lines_with(&log, "dh.reflectionProbe is not drawn yet")[0].as_str(),
        format!("{m}: dh.reflectionProbe is not drawn yet (mirror)")
    );
}
