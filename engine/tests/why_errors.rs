//! Errors that say why (issue 19, item 2), on the engine's side: a model the scene reader
//! cannot read says why; an unknown `--map` name and an unknown
//! script command get "did you mean" with the nearest valid choice.

mod support;

use dh_engine::catalog::Catalog;
use dh_engine::host::{Host, HostOptions};
use support::SourcePallet;

const PALLET: &str = "dev.example.why";

/// A GLB of one node whose mesh is skinned only by its attributes (JOINTS_0 and
/// WEIGHTS_0, the skin binding itself lost): nothing a map build draws.
fn skinned_only_glb() -> Vec<u8> {
    let mut bin: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    bin.extend_from_slice(&[0u8; 12]);
    bin.extend(
        [1.0f32, 0.0, 0.0, 0.0]
            .repeat(3)
            .iter()
            .flat_map(|f| f.to_le_bytes()),
    );
    let json = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":84}],
        "bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":12},{"buffer":0,"byteOffset":48,"byteLength":36}],
        "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]},
                     {"bufferView":1,"componentType":5121,"count":3,"type":"VEC4"},
                     {"bufferView":2,"componentType":5126,"count":3,"type":"VEC4"}],
        "meshes":[{"name":"skin","primitives":[{"attributes":{"POSITION":0,"JOINTS_0":1,"WEIGHTS_0":2}}]}],
        "nodes":[{"name":"avatar","mesh":0}],"scenes":[{"nodes":[0]}]}"#;
    support::glb_container(json.to_string(), &bin)
}

const OBJECT: &str = r#"{ "name": "Statue", "model": "/meshes/statue.glb" }"#;

const MAP: &str = r#"{
  "name": "Statues",
  "autoCollision": false,
  "objects": [
    { "$type": "instance", "id": "1b2c3d4e-0000-4000-8000-0000000000a1", "name": "statue",
      "source": "/objects/statue.dh-obj" },
    { "$type": "object", "id": "1b2c3d4e-0000-4000-8000-0000000000a2", "name": "spawn",
      "position": [0, 1, 0], "components": [ { "$type": "dh.spawnPoint" } ] }
  ]
}
"#;

/// An object's model is read the object loader's way (spec 003, "What the map importer
/// leaves out": skinned meshes are kept at their bind pose for objects and avatars), so a
/// model that is nothing but skinned nodes installs its parts and warns nothing; only a
/// map's build of it ends up empty.
#[test]
fn an_objects_skinned_only_model_installs_its_parts() {
    let pallet = SourcePallet::fresh("dh-why-errors", "skinned");
    pallet.manifest(PALLET, "Why");
    pallet.write("meshes/statue.glb", &skinned_only_glb());
    pallet.write("objects/statue.dh-obj", OBJECT.as_bytes());
    pallet.write("maps/statues.dh-map", MAP.as_bytes());
    let out = pallet.compile(true, "statues");
    let file = pallet.save("why.pallet", &support::pallet_bytes(&out));
    let host = Host::start(&HostOptions {
        map: format!("{PALLET}:maps/statues"),
        pallets: vec![file],
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let sim = host.sim();
    let warnings = sim.install_warnings().join("\n");
    assert!(!warnings.contains("could not be read"), "{warnings}");
    let paths: Vec<String> = sim
        .parts()
        .iter()
        .filter_map(|&e| sim.get::<dh_sims::ModelPart>(e).map(|p| p.path.clone()))
        .collect();
    assert_eq!(paths, ["avatar"]);
}

#[test]
fn the_scene_reader_says_why_a_model_is_unreadable() {
    let pallet = SourcePallet::fresh("dh-why-errors", "trees");
    pallet.manifest(PALLET, "Why");
    pallet.write("meshes/statue.glb", &skinned_only_glb());
    pallet.write("objects/statue.dh-obj", OBJECT.as_bytes());
    pallet.write("maps/statues.dh-map", MAP.as_bytes());
    let out = pallet.compile(true, "statues");
    let file = pallet.save("why.pallet", &support::pallet_bytes(&out));
    let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    catalog.mount_file(&file).unwrap_or_else(|e| panic!("{e}"));
    let trees = dh_engine::models::SceneTrees::new(&catalog);
    let gone = trees
        .tree(&format!("{PALLET}:meshes/gone.glb"))
        .expect_err("no such model");
    assert!(
        gone.starts_with(&format!("{PALLET}:meshes/gone.glb: ")),
        "{gone}"
    );
    assert_eq!(
        trees.tree("not-a-barcode").expect_err("not a barcode"),
        "model 'not-a-barcode' is not a barcode (pallet:path)"
    );
    // Asked again, the reason is the one kept.
    assert_eq!(
        trees.tree(&format!("{PALLET}:meshes/gone.glb")).err(),
        Some(gone.clone())
    );
    // Read the object loader's way, a skinned-only model keeps its skinned node's mesh.
    let statue = trees
        .tree(&format!("{PALLET}:meshes/statue.glb"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(statue.nodes[0].skinned && statue.nodes[0].mesh.is_some());
}

#[test]
fn an_unknown_map_suggests_the_nearest() {
    let catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    let e = catalog
        .find("map", ".dh-map", "debug")
        .expect_err("no map is named debug");
    assert!(
        e.to_string().ends_with("; did you mean `debug-map`?"),
        "{e}"
    );
    let e = catalog
        .find("map", ".dh-map", "maps/physics-evl")
        .expect_err("a typo");
    assert!(
        e.to_string()
            .ends_with("; did you mean `maps/physics-eval`?"),
        "{e}"
    );
    let e = catalog
        .find("map", ".dh-map", "core:maps/rendr-eval.dh-map")
        .expect_err("a typo");
    assert!(
        e.to_string()
            .ends_with("; did you mean `core:maps/render-eval.dh-map`?"),
        "{e}"
    );
    let e = catalog
        .find("map", ".dh-map", "skyscraper")
        .expect_err("nothing like it");
    assert!(!e.to_string().contains("did you mean"), "{e}");
}

#[test]
fn an_unknown_script_command_suggests_the_nearest_verb() {
    let e = dh_engine::script::parse("t.dhs", "spawn p1 0 0 0\nwiat 5 ticks\nteleprot p1 0 0 0\n")
        .expect_err("two typos");
    let text = e.to_string();
    assert!(
        text.contains("t.dhs:2: unknown command 'wiat'; the verbs are set, wait,")
            && text.contains("expect, print; did you mean `wait`?"),
        "{text}"
    );
    assert!(
        text.contains("t.dhs:3: unknown command 'teleprot';"),
        "{text}"
    );
    assert!(text.contains("did you mean `teleport`?"), "{text}");
}

/// Regression (issue 19 item 2, load time): an install error about a record named it
/// `Map entity #0` alone; it names it by its `name` as well, as the build's diagnostics
/// do (`(objects[0] "hallLamp")`). The map places an object of a dependency that is
/// mounted when the pallet builds and not when it runs.
#[test]
fn a_load_error_about_a_record_names_it() {
    let dep = SourcePallet::fresh("dh-why-errors", "dep");
    dep.manifest("dev.example.dep", "Dep");
    dep.write("objects/lamp.dh-obj", br#"{ "components": [] }"#);
    let dep_bytes = support::pallet_bytes(&dep.compile(true, "dep"));
    let main = SourcePallet::fresh("dh-why-errors", "hall");
    main.write(
        "pallet.dh",
        br#"{ "id": "dev.example.hall", "name": "Hall", "version": "1.0.0", "dependencies": ["dev.example.dep"] }"#,
    );
    main.write(
        "maps/hall.dh-map",
        br#"{
  "name": "Hall",
  "objects": [
    { "$type": "instance", "id": "1b2c3d4e-0000-4000-8000-0000000000c1", "name": "hallLamp",
      "source": "dev.example.dep:objects/lamp.dh-obj" }
  ]
}
"#,
    );
    // The build mounts the .pallet files beside the source folder.
    main.save("dep.pallet", &dep_bytes);
    let file = main.save(
        "hall.pallet",
        &support::pallet_bytes(&main.compile(true, "hall")),
    );
    let _ = std::fs::remove_file(main.dir.join("dep.pallet"));
    let err = match Host::start(&HostOptions {
        map: "dev.example.hall:maps/hall".into(),
        pallets: vec![file],
        ..HostOptions::default()
    }) {
        Ok(_) => panic!("the map installed without the object it places"),
        Err(e) => e.to_string(),
    };
    assert_eq!(
        err,
        "dev.example.hall:maps/hall.dh-map: Map entity #0 (objects[0] \"hallLamp\") places 'dev.example.dep:objects/lamp.dh-obj', which no mounted pallet provides"
    );
}
