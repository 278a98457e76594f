//! Map inheritance folded at load, and object variants across pallets resolved at load
//! (spec, dh.map "Inheritance" and "How each member folds"; dh.object `inherits`), on the
//! two source pallets under `content/tests/data/inheritance/` built here by `dh build`'s
//! compiler: `dev.example.env` (the environment template) and `dev.example.worlds` (its
//! children across pallets, one child of the core logic demo, a variant of the template's
//! crate).
//!
//! The pictures of the folded maps are in `inheritance_render.rs`.

use std::path::{Path, PathBuf};

use dh_content::compile::{compile, compile_with, CompileOptions, DependencySearch};
use dh_engine::catalog::Catalog;
use dh_engine::cli::RunOptions;
use dh_engine::host::{Host, HostOptions};
use dh_engine::run::{run, Outcome};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../content/tests/data/inheritance")
        .join(name)
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scripts")
        .join(name)
}

/// The two pallets, built into a temporary folder: (env.pallet, worlds.pallet). With
/// `mount_env`, the worlds build mounts the template's pallet (and so resolves the
/// variant); without, it does not.
struct Built {
    dir: PathBuf,
    env: PathBuf,
    worlds: PathBuf,
}

impl Drop for Built {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn build(tag: &str, mount_env: bool) -> Built {
    let dir = std::env::temp_dir().join(format!("dh-engine-inherit-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let opts = CompileOptions {
        write: true,
        progress: None,
    };
    let env = compile(&data("env"), &opts);
    assert!(!env.diagnostics.has_errors(), "{}", env.diagnostics);
    let env_file = dir.join("env.pallet");
    std::fs::write(&env_file, env.pallet.unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
    let search = DependencySearch {
        pallets: if mount_env {
            vec![env_file.clone()]
        } else {
            Vec::new()
        },
        beside: None,
    };
    let worlds = compile_with(&data("worlds"), &opts, &search);
    assert!(!worlds.diagnostics.has_errors(), "{}", worlds.diagnostics);
    let worlds_file = dir.join("worlds.pallet");
    std::fs::write(&worlds_file, worlds.pallet.unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    Built {
        dir,
        env: env_file,
        worlds: worlds_file,
    }
}

fn catalog(files: &[&Path]) -> Catalog {
    let mut c = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    for f in files {
        c.mount_file(f).unwrap_or_else(|e| panic!("{e}"));
    }
    c
}

/// Runs `options` as `dh-engine run`: (outcome, stdout, stderr).
fn run_capture(options: &RunOptions) -> (Outcome, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let outcome = run(options, false, &mut out, &mut err);
    (
        outcome,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

fn trace(err: &str) -> Vec<String> {
    err.lines()
        .filter(|l| l.starts_with('['))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_child_that_only_sets_its_sky_runs_its_parents_logic_demo_tick_exact() {
    let b = build("logic", true);
    let demo = |map: &str, pallets: Vec<PathBuf>| RunOptions {
        map: Some(map.into()),
        pallets,
        script: Some(script("logic-demo.dhs")),
        workers: Some(2),
        json: true,
        ..RunOptions::default()
    };
    let (po, _, perr) = run_capture(&demo("core:maps/logic-map", Vec::new()));
    assert_eq!(po, Outcome::Done, "{perr}");
    let (co, _, cerr) = run_capture(&demo(
        "dev.example.worlds:maps/logic-sky",
        vec![b.env.clone(), b.worlds.clone()],
    ));
    // The demo's every `expect` (the door, the lamp, the platforms, the lift, tick by
    // tick) holds on the child, and its trace is the parent's, line for line.
    assert_eq!(co, Outcome::Done, "{cerr}");
    let (parent, child) = (trace(&perr), trace(&cerr));
    assert!(parent.len() > 15, "{parent:?}");
    assert_eq!(child, parent);
}

#[test]
fn the_child_reads_its_parents_members_per_the_rules_table() {
    let b = build("fold", true);
    let c = catalog(&[&b.env, &b.worlds]);
    let loaded = c
        .load_map_folded("dev.example.worlds:maps/night")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        loaded.chain,
        vec![
            "dev.example.env:maps/template.dh-map",
            "dev.example.worlds:maps/night.dh-map"
        ]
    );
    assert!(loaded.notes.is_empty(), "{:?}", loaded.notes);
    let m = &loaded.map;
    // name: not inherited.
    assert_eq!(m.name.as_deref(), Some("Night yard"));
    // lighting per field: the child's sky and sun direction, the parent's intensity,
    // ambient, lightmap and zones.
    let l = m.lighting.as_ref().unwrap_or_else(|| panic!("no lighting"));
    assert_eq!(l.sky, Some(true));
    assert_eq!(l.sky_rayleigh, Some(1.6));
    assert_eq!(l.sun_direction.map(|v| v.0), Some([-0.3, -0.6, -0.75]));
    assert_eq!(l.sun_intensity, Some(1.2));
    assert_eq!(l.ambient_intensity, Some(0.35));
    assert!(l.lightmap_enabled());
    assert_eq!(
        l.bake_zones
            .iter()
            .map(|z| z.id.as_str())
            .collect::<Vec<_>>(),
        vec!["yard"]
    );
    // render per field; materials per slot, the parent's as barcodes in its pallet.
    assert_eq!(m.render.as_ref().and_then(|r| r.exposure), Some(0.9));
    let slots: Vec<(String, String)> = m
        .materials
        .iter()
        .flat_map(|t| t.entries.iter().map(|(k, _, v)| (k.clone(), v.clone())))
        .collect();
    assert_eq!(
        slots,
        vec![
            (
                "grid".into(),
                "dev.example.env:materials/grid.dh-mat".into()
            ),
            (
                "wall".into(),
                "dev.example.env:materials/wall.dh-mat".into()
            ),
            (
                "gate".into(),
                "dev.example.env:materials/gate.dh-mat".into()
            ),
        ]
    );
    // objects: the parent's first, in its order, then the child's own.
    let names: Vec<&str> = m.objects.iter().filter_map(|r| r.name()).collect();
    assert_eq!(
        names,
        vec![
            "props",
            "floor",
            "wallNorth",
            "wallWest",
            "wallEast",
            "gate",
            "spawn",
            "yardView",
            "gateButton",
            "blueCrate"
        ]
    );
}

#[test]
fn a_record_restating_an_inherited_id_is_left_out_with_the_warning_and_the_pallet_look_applies() {
    // A pallet of its own, built here: a default look in pallet.dh, and a child restating
    // an id of the core logic map's (its spawn's).
    let dir = std::env::temp_dir().join(format!("dh-engine-inherit-look-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src/maps")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        dir.join("src/pallet.dh"),
        r#"{ "id": "dev.example.looked", "name": "Looked", "version": "1.0.0", "look": "filmic" }"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        dir.join("src/maps/child.dh-map"),
        r#"{ "inherits": "core:maps/logic-map.dh-map", "objects": [
  { "$type": "object", "id": "f50c7d4e-e110-4fe3-97ee-1e662f566593", "name": "spawnAgain", "position": [1, 0, 0], "components": [ { "$type": "dh.spawnPoint" } ] },
  { "$type": "object", "id": "f50c7d4e-e110-4fe3-97ee-1e662f566594", "name": "mine", "position": [2, 0, 0] }
] }"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        dir.join("src/maps/plain.dh-map"),
        r#"{ "render": { "exposure": 1.1 }, "materials": { "grid": "core:materials/dev-grid.dh-mat" }, "objects": [
  { "$type": "boxBrush", "id": "f50c7d4e-e110-4fe3-97ee-1e662f566595", "position": [0, -0.25, 0], "size": [4, 0.5, 4], "material": "grid" }
] }"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = compile(
        &dir.join("src"),
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let file = dir.join("looked.pallet");
    std::fs::write(&file, out.pallet.unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
    let c = catalog(&[&file]);
    let loaded = c
        .load_map_folded("dev.example.looked:maps/child")
        .unwrap_or_else(|e| panic!("{e}"));
    let warning = "warning: dev.example.looked:maps/child.dh-map: objects[0].id: record 'f50c7d4e-e110-4fe3-97ee-1e662f566593' has the id of an inherited record and is left out: overriding or removing an inherited record is not built yet (overrides by id arrive with the next inheritance lane)";
    assert_eq!(loaded.notes, vec![warning]);
    let names: Vec<&str> = loaded.map.objects.iter().filter_map(|r| r.name()).collect();
    assert!(!names.contains(&"spawnAgain"), "{names:?}");
    assert_eq!(names.last(), Some(&"mine"));
    assert_eq!(names.first(), Some(&"floor"));
    // The pallet's default look sits below the parent's: filmic's curve reads through
    // where nothing above states one (the logic map states none).
    let render = loaded
        .map
        .render
        .as_ref()
        .unwrap_or_else(|| panic!("no render"));
    assert_eq!(
        render.tonemap.map(|t| t.as_str()),
        Some("hable"),
        "{render:?}"
    );
    // A map that inherits nothing picks the pallet's look up too, below its own fields.
    let (_, plain) = c
        .load_map("dev.example.looked:maps/plain")
        .unwrap_or_else(|e| panic!("{e}"));
    let render = plain.render.as_ref().unwrap_or_else(|| panic!("no render"));
    assert_eq!(
        render.tonemap.map(|t| t.as_str()),
        Some("hable"),
        "{render:?}"
    );
    assert_eq!(render.exposure, Some(1.1));
    // The host logs the warning once, before tick 0.
    let mut host = Host::start(&HostOptions {
        map: "dev.example.looked:maps/child".into(),
        pallets: vec![file.clone()],
        sets: vec![],
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
    let output = host.take_output();
    assert_eq!(
        output.iter().filter(|l| l.as_str() == warning).count(),
        1,
        "{output:?}"
    );
}

#[test]
fn a_parent_that_is_not_mounted_is_an_error_at_load() {
    let b = build("unmounted", true);
    let c = catalog(&[&b.worlds]);
    let e = c
        .load_map_folded("dev.example.worlds:maps/night")
        .expect_err("the template's pallet is not mounted");
    assert_eq!(
        e.to_string(),
        "dev.example.worlds:maps/night.dh-map: its inheritance chain does not fold: dev.example.worlds:maps/night.dh-map: 'inherits' names 'dev.example.env:maps/template.dh-map', which this build cannot find"
    );
}

#[test]
fn a_variant_across_pallets_is_resolved_at_load_and_never_installed_thin() {
    // Built without the template's pallet mounted: the variant ships without `resolved`.
    let b = build("variant", false);
    let alone = catalog(&[&b.worlds]);
    let e = alone
        .object_json("dev.example.worlds:objects/blue-crate.dh-obj")
        .expect_err("its base is not mounted");
    assert!(
        e.to_string()
            .contains("a variant whose chain does not resolve is not installed alone"),
        "{e}"
    );
    let both = catalog(&[&b.env, &b.worlds]);
    let json = both
        .object_json("dev.example.worlds:objects/blue-crate.dh-obj")
        .unwrap_or_else(|e| panic!("{e}"));
    let resolved = json
        .get("resolved")
        .unwrap_or_else(|| panic!("no resolved: {}", json.to_json()));
    assert_eq!(
        resolved.to_json(),
        r#"{"name":"Crate","components":[{"$type":"dh.box","size":[0.5,0.5,0.5],"material":"dev.example.env:materials/gate.dh-mat"},{"$type":"dh.collider"},{"$type":"dh.physicsProp","mass":8,"sim":"server"}]}"#
    );
    // Installed in the night world: the crate is the base's 0.5 m body at the variant's
    // 8 kg, wearing the variant's material.
    let host = Host::start(&HostOptions {
        map: "dev.example.worlds:maps/night".into(),
        pallets: vec![b.env.clone(), b.worlds.clone()],
        sets: vec![],
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let sim = host.sim();
    let crate_e = sim
        .records()
        .iter()
        .copied()
        .find(|&e| sim.get::<dh_sims::Name>(e).map(|n| n.0).as_deref() == Some("blueCrate"))
        .unwrap_or_else(|| panic!("no blueCrate"));
    let prop = sim
        .get::<dh_sims::PhysicsProp>(crate_e)
        .unwrap_or_else(|| panic!("blueCrate is no physics prop"));
    assert_eq!(prop.mass, Some(8.0));
    let bx = sim
        .get::<dh_sims::DhBox>(crate_e)
        .unwrap_or_else(|| panic!("blueCrate has no box"));
    assert_eq!(bx.size.to_array(), [0.5, 0.5, 0.5]);
    assert_eq!(
        sim.materials()
            .references
            .get(bx.material.0 as usize)
            .map(String::as_str),
        Some("dev.example.env:materials/gate.dh-mat")
    );
}

#[test]
fn the_world_across_pallets_runs_its_templates_gate() {
    let b = build("gate", true);
    let dir = b.dir.join("gate.dhs");
    // gateButton is at [2, 1, 2] facing +Z: stand 1.1 m in front of it, looking down at it.
    std::fs::write(
        &dir,
        "spawn presser 2 0 0.9 180\nturn presser 180 -30\nwait 1 ticks\nuse presser\nwait 70 ticks\nexpect gate.open == 1\nexpect gate.y == 3 within 0.001\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (o, _, err) = run_capture(&RunOptions {
        map: Some("dev.example.worlds:maps/night".into()),
        pallets: vec![b.env.clone(), b.worlds.clone()],
        script: Some(dir.clone()),
        workers: Some(1),
        json: true,
        ..RunOptions::default()
    });
    assert_eq!(o, Outcome::Done, "{err}");
    let t = trace(&err);
    assert!(
        t.iter()
            .any(|l| l.ends_with("gateButton fired onPressed -> gate.toggle")),
        "{t:?}"
    );
    assert!(
        t.iter().any(|l| l.ends_with("gate fired onOpened")),
        "{t:?}"
    );
}
