//! Objects that place a model, end to end: a pallet holding two small GLBs built here (so
//! every number below is known by construction), an object placing one of them with part
//! overrides and an added record placing the other, and a map placing the object twice, is
//! compiled with `dh build`'s compiler, mounted, installed, extracted and stood on.
//!
//! `meshes/lamp.glb`, in glTF's own frame:
//!
//! * `base` (a root) at `[1, 0.5, 0]` drawing mesh 0, a 1 m cube, material `metal`;
//!   * `arm` at `[0, 1, 0]` under it, drawing mesh 1 (a 0.2 × 1 × 0.2 box, material `glow`);
//!     * `shade` at `[0, 1, 0]` under the arm, drawing mesh 1 too;
//! * `proxy` (a root) at `[5, 0, 0]`, drawing mesh 0.
//!
//! Its sidecar renames `shade` to `hood`, so the object names `base/arm/hood`.
//! `meshes/bulb.glb`: one root `globe` at its origin drawing a 0.2 m cube, material `glass`.
//!
//! `objects/lamp.dh-obj` turns its root 90° (yaw), removes `proxy`, moves `base/arm` to
//! `[0, 2, 0]`, files `base/arm/hood` under `base` (keeping where it stood), binds `metal`
//! on `base` and gives it a box collider, and adds record `bulb` (the bulb model) under
//! `base/arm` at `[0, 0.5, 0]`.
//!
//! Worked by hand, in the object's frame (the loader's order: parents, then transforms):
//! `base` `(1, 0.5, 0)`; `hood`, reparented while the arm still stood at `[0, 1, 0]`:
//! `(1, 2.5, 0)`; `arm` then moved: `(1, 2.5, 0)`; the bulb record and its `globe`:
//! `(1, 3, 0)`. Placement `lampA` stands at `[10, 0, 0]` and inherits the object's yaw, which
//! takes `(x, y, 0)` to `(0, y, -x)`: base `(10, 0.5, -1)`, arm and hood `(10, 2.5, -1)`,
//! globe `(10, 3, -1)`. Placement `lampB` stands at `[0, 0, -4]`, states rotation
//! `[0, 0, 0]`, removes `base/arm/hood` and names a `base/lid` the model lacks: base `(1, 0.5, -4)`, arm `(1, 2.5, -4)`, globe
//! `(1, 3, -4)`.

mod support;

use std::path::PathBuf;

use dh_engine::catalog::Catalog;
use dh_engine::extract::{self, ExtractCache};
use dh_engine::host::{Host, HostOptions};
use dh_gpu::render::frame::Material;
use dh_sims::{Collider, ModelPart, Parent, PartRenderer, SimWorld};
use support::{angle, box_geometry, drop_pawn, near3, pallet_bytes, GlbBuilder, SourcePallet};

// ---- The models (written by support's GLB writer, independent of the importer) ----------

/// A GLB of one box mesh per entry of `boxes` (its size and material index), with
/// `materials` (names) and `nodes` / `roots` as JSON.
fn glb(boxes: &[([f32; 3], usize)], materials: &[&str], nodes: &str, roots: &str) -> Vec<u8> {
    let mut g = GlbBuilder::new();
    let mut meshes = Vec::new();
    for (k, (size, material)) in boxes.iter().enumerate() {
        let (v, i) = box_geometry(*size);
        let pos = g.positions_unbounded(&v);
        let idx = g.indices(&i);
        meshes.push(format!(
            r#"{{"name":"box{k}","primitives":[{{"attributes":{{"POSITION":{pos}}},"indices":{idx},"material":{material}}}]}}"#
        ));
    }
    let mats: Vec<String> = materials
        .iter()
        .map(|m| format!(r#"{{"name":"{m}"}}"#))
        .collect();
    g.finish(&format!(
        r#""materials":[{}],"meshes":[{}],"nodes":[{nodes}],"scenes":[{{"nodes":[{roots}]}}],"scene":0"#,
        mats.join(","),
        meshes.join(",")
    ))
}

fn lamp_glb() -> Vec<u8> {
    glb(
        &[([1.0, 1.0, 1.0], 0), ([0.2, 1.0, 0.2], 1)],
        &["metal", "glow"],
        r#"{"name":"base","translation":[1,0.5,0],"mesh":0,"children":[1]},
           {"name":"arm","translation":[0,1,0],"mesh":1,"children":[2]},
           {"name":"shade","translation":[0,1,0],"mesh":1},
           {"name":"proxy","translation":[5,0,0],"mesh":0}"#,
        "0,3",
    )
}

fn bulb_glb() -> Vec<u8> {
    glb(
        &[([0.2, 0.2, 0.2], 0)],
        &["glass"],
        r#"{"name":"globe","mesh":0}"#,
        "0",
    )
}

// ---- The pallet -------------------------------------------------------------------------------

const PALLET: &str = "dev.example.lamps";

const LAMP_OBJECT: &str = r#"{
  "name": "Lamp",
  "model": "/meshes/lamp.glb",
  "rotation": [0, 90, 0],
  "children": [
    { "path": "proxy", "removed": true },
    { "path": "base/arm", "position": [0, 2, 0] },
    { "path": "base/arm/hood", "parent": "base" },
    { "path": "base", "components": [
      { "$type": "dh.renderer", "materials": { "metal": "/materials/metal.dh-mat" } },
      { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [0.5, 0.5, 0.5] } ] }
    ] }
  ],
  "objects": [
    { "$type": "instance", "id": "bulb", "name": "Bulb", "source": "/meshes/bulb.glb",
      "parent": "base/arm", "position": [0, 0.5, 0] }
  ]
}
"#;

const MAP: &str = r#"{
  "name": "Lamps",
  "autoCollision": false,
  "objects": [
    { "$type": "instance", "id": "1b2c3d4e-0000-4000-8000-00000000000a", "name": "lampA",
      "source": "/objects/lamp.dh-obj", "position": [10, 0, 0] },
    { "$type": "instance", "id": "1b2c3d4e-0000-4000-8000-00000000000b", "name": "lampB",
      "source": "/objects/lamp.dh-obj", "position": [0, 0, -4], "rotation": [0, 0, 0],
      "children": [ { "path": "base/arm/hood", "removed": true }, { "path": "base/lid", "enabled": false } ] },
    { "$type": "object", "id": "1b2c3d4e-0000-4000-8000-00000000000c", "name": "spawn",
      "position": [1, 3, -4], "components": [ { "$type": "dh.spawnPoint" } ] }
  ]
}
"#;

/// A door: the lamp model on a root that turns 90° about +Y, spawned open.
const DOOR_OBJECT: &str = r#"{
  "name": "Lamp door",
  "model": "/meshes/lamp.glb",
  "components": [
    { "$type": "dh.mover", "motion": "rotate", "axis": [0, 1, 0], "angle": 90, "duration": 1, "startOpen": true },
    { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [0.5, 0.5, 0.5] } ] }
  ]
}
"#;

const DOOR_MAP: &str = r#"{
  "name": "Door",
  "autoCollision": false,
  "objects": [
    { "$type": "instance", "id": "1b2c3d4e-0000-4000-8000-00000000000d", "name": "door",
      "source": "/objects/door.dh-obj", "position": [0, 0, 10] }
  ]
}
"#;

fn build_pallet(tag: &str) -> PathBuf {
    let pallet = SourcePallet::fresh("dh-object-models", tag);
    let write = |rel: &str, b: &[u8]| pallet.write(rel, b);
    pallet.manifest(PALLET, "Lamps");
    write("meshes/lamp.glb", &lamp_glb());
    write(
        "meshes/lamp.glb.dh-model",
        br#"{ "ops": [ { "kind": "rename", "target": "shade", "name": "hood" } ] }"#,
    );
    write("meshes/bulb.glb", &bulb_glb());
    write("materials/metal.dh-mat", b"{ \"tint\": [0.5, 0.5, 0.5] }");
    write("objects/lamp.dh-obj", LAMP_OBJECT.as_bytes());
    write("maps/lamps.dh-map", MAP.as_bytes());
    write("objects/door.dh-obj", DOOR_OBJECT.as_bytes());
    write("maps/door.dh-map", DOOR_MAP.as_bytes());
    let out = pallet.compile(true, "lamp");
    pallet.save("lamps.pallet", &pallet_bytes(&out))
}

fn start(tag: &str) -> (Host, Catalog, dh_content::schema::map::Map) {
    start_map(tag, "lamps")
}

fn start_map(tag: &str, name: &str) -> (Host, Catalog, dh_content::schema::map::Map) {
    let pallet = build_pallet(tag);
    let map = format!("{PALLET}:maps/{name}");
    let host = Host::start(&HostOptions {
        map: map.clone(),
        pallets: vec![pallet.clone()],
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    catalog
        .mount_file(&pallet)
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, map) = catalog.load_map(&map).unwrap_or_else(|e| panic!("{e}"));
    (host, catalog, map)
}

// ---- Checks ----------------------------------------------------------------------------------

/// Every installed part of the placement named `instance` (its own and its added
/// records'), as `(model file, path)` with the entity.
fn parts_of(sim: &SimWorld, instance: &str) -> Vec<(String, String, hecs::Entity)> {
    let inst = sim.entity_named(instance).unwrap();
    sim.parts()
        .iter()
        .copied()
        .filter_map(|e| {
            let p = sim.get::<ModelPart>(e)?;
            // A part of an added record belongs to the record, filed under the placement.
            let belongs = p.instance == inst
                || sim
                    .get::<ModelPart>(p.instance)
                    .is_some_and(|r| r.instance == inst);
            let file = p.model.rsplit('/').next().unwrap_or("").to_string();
            belongs.then(|| (file, p.path.clone(), e))
        })
        .collect()
}

fn part(sim: &SimWorld, instance: &str, path: &str) -> hecs::Entity {
    parts_of(sim, instance)
        .into_iter()
        .find(|(_, p, _)| p == path)
        .map(|(_, _, e)| e)
        .unwrap_or_else(|| panic!("{instance} has no part '{path}'"))
}

#[test]
fn an_objects_model_installs_its_parts_in_the_loaders_order() {
    let (host, _, _) = start("install");
    let sim = host.sim();
    // The one override naming a part the model lacks: one warning, and the rest loads.
    assert_eq!(
        sim.install_warnings(),
        [format!(
            "warning: 'lampB' ({PALLET}:objects/lamp.dh-obj): the part override of 'base/lid' names no part of '{PALLET}:meshes/lamp.glb'; it is skipped"
        )]
    );
    let listed = |inst: &str| -> Vec<(String, String)> {
        parts_of(sim, inst)
            .into_iter()
            .map(|(f, p, _)| (f, p))
            .collect()
    };
    let s = |f: &str, p: &str| (f.to_string(), p.to_string());
    // The model's parts in traversal order (proxy removed), then the added record (the
    // record itself, then its model's part).
    assert_eq!(
        listed("lampA"),
        [
            s("lamp.glb", "base"),
            s("lamp.glb", "base/arm"),
            s("lamp.glb", "base/arm/hood"),
            s("bulb.glb", ""),
            s("bulb.glb", "globe"),
        ]
    );
    assert_eq!(
        listed("lampB"),
        [
            s("lamp.glb", "base"),
            s("lamp.glb", "base/arm"),
            s("bulb.glb", ""),
            s("bulb.glb", "globe"),
        ]
    );

    // Hierarchy: the hood filed under the base (its path unchanged), the bulb record under
    // the arm, its globe under the record.
    let lamp_a = sim.entity_named("lampA").unwrap();
    let base = part(sim, "lampA", "base");
    let arm = part(sim, "lampA", "base/arm");
    let hood = part(sim, "lampA", "base/arm/hood");
    let bulb = part(sim, "lampA", "");
    let globe = part(sim, "lampA", "globe");
    assert_eq!(sim.get::<Parent>(base), Some(Parent(lamp_a)));
    assert_eq!(sim.get::<Parent>(arm), Some(Parent(base)));
    assert_eq!(sim.get::<Parent>(hood), Some(Parent(base)));
    assert_eq!(sim.get::<Parent>(bulb), Some(Parent(arm)));
    assert_eq!(sim.get::<Parent>(globe), Some(Parent(bulb)));
    assert_eq!(sim.get::<ModelPart>(globe).unwrap().instance, bulb);
    assert_eq!(sim.get::<ModelPart>(bulb).unwrap().name, "Bulb");

    // World poses, worked by hand at the top of the file.
    let pose = |e| sim.world_pose(e).unwrap();
    near3(
        pose(base).position.to_array(),
        [10.0, 0.5, -1.0],
        "lampA base",
    );
    near3(
        pose(arm).position.to_array(),
        [10.0, 2.5, -1.0],
        "lampA arm",
    );
    near3(
        pose(hood).position.to_array(),
        [10.0, 2.5, -1.0],
        "lampA hood",
    );
    near3(
        pose(bulb).position.to_array(),
        [10.0, 3.0, -1.0],
        "lampA bulb record",
    );
    near3(
        pose(globe).position.to_array(),
        [10.0, 3.0, -1.0],
        "lampA globe",
    );
    let yaw90 = [
        0.0,
        std::f32::consts::FRAC_1_SQRT_2,
        0.0,
        std::f32::consts::FRAC_1_SQRT_2,
    ];
    for e in [base, arm, hood, globe] {
        assert!(
            angle(pose(e).rotation.to_array(), yaw90) < 0.05,
            "lampA's parts inherit the object's yaw: {:?}",
            pose(e).rotation
        );
    }
    near3(
        pose(sim.entity_named("lampA").unwrap()).position.to_array(),
        [10.0, 0.0, 0.0],
        "lampA",
    );
    let b = |p: &str| pose(part(sim, "lampB", p));
    near3(
        b("base").position.to_array(),
        [1.0, 0.5, -4.0],
        "lampB base",
    );
    near3(
        b("base/arm").position.to_array(),
        [1.0, 2.5, -4.0],
        "lampB arm",
    );
    near3(
        b("globe").position.to_array(),
        [1.0, 3.0, -4.0],
        "lampB globe",
    );
    assert!(angle(b("base").rotation.to_array(), [0.0, 0.0, 0.0, 1.0]) < 0.05);

    // Each placement's base carries its own collider; nothing else collides.
    for inst in ["lampA", "lampB"] {
        for (_, path, e) in parts_of(sim, inst) {
            assert_eq!(
                sim.get::<Collider>(e).is_some(),
                path == "base",
                "{inst}:{path}"
            );
        }
    }
    // Renderers: the object's binding on base, glow unbound (flat white for an object).
    let r = sim.get::<PartRenderer>(base).unwrap();
    assert!(!r.map_slots);
    assert_eq!(
        r.bound("metal"),
        Some(format!("{PALLET}:materials/metal.dh-mat").as_str())
    );
    let r = sim.get::<PartRenderer>(arm).unwrap();
    assert_eq!(r.materials, [("glow".to_string(), String::new())]);
    assert!(sim.get::<PartRenderer>(bulb).is_none());
}

#[test]
fn extraction_draws_every_placement_and_decodes_each_model_once() {
    let (host, catalog, map) = start("extract");
    let mut cache = ExtractCache::new();
    let x = extract::extract_with(&host, &catalog, &map, &mut cache);
    // lampA: base, arm, hood, globe; lampB: base, arm, globe.
    assert_eq!(x.frame.meshes.len(), 7, "{:?}", x.notes);
    // The lamp and the bulb, each read once for both placements.
    assert_eq!(cache.models().decodes(), 2);
    let at = |p: [f32; 3]| -> Vec<&dh_gpu::render::frame::MeshInstance> {
        x.frame
            .meshes
            .iter()
            .filter(|i| (0..3).all(|k| (i.world.w_axis[k] - p[k]).abs() < 1e-5))
            .collect()
    };
    // Two draws stand at lampA's arm (the arm and the hood), sharing one asset.
    let arm = at([10.0, 2.5, -1.0]);
    assert_eq!(arm.len(), 2);
    assert!(std::sync::Arc::ptr_eq(&arm[0].mesh, &arm[1].mesh));
    assert_eq!(at([1.0, 2.5, -4.0]).len(), 1, "lampB's hood is removed");
    // The base's metal: its tint, 0.5 sRGB, linear.
    let base = at([1.0, 0.5, -4.0]);
    assert_eq!(base.len(), 1);
    assert_eq!(base[0].mesh.indices.len(), 36);
    let lin = ((0.5f64 + 0.055) / 1.055).powf(2.4) as f32;
    let metal = &x.frame.materials[base[0].materials[0] as usize];
    assert!(
        metal
            .base_color
            .to_array()
            .iter()
            .all(|c| (c - lin).abs() < 1e-5),
        "{metal:?}"
    );
    // Unbound slots of an object draw flat white, and no missing-material line is said.
    assert_eq!(
        x.frame.materials[arm[0].materials[0] as usize],
        Material::flat_white()
    );
    let globe = at([10.0, 3.0, -1.0]);
    assert_eq!(globe.len(), 1);
    assert_eq!(
        x.frame.materials[globe[0].materials[0] as usize],
        Material::flat_white()
    );
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    // The world matrix carries lampA's yaw: the base's local +X along world -Z.
    let w = at([10.0, 0.5, -1.0])[0].world.to_cols_array_2d();
    near3(
        [w[0][0], w[0][1], w[0][2]],
        [0.0, 0.0, -1.0],
        "lampA base X axis",
    );
}

#[test]
fn a_pawn_dropped_above_lamp_b_stands_on_its_base() {
    let (mut host, _, _) = start("stand");
    let s = drop_pawn(&mut host, [1.0, 3.0, -4.0]);
    // lampB's base: a 1 m box centered at [1, 0.5, -4]: its top is y = 1.
    assert!(s.grounded && (s.feet[1] - 1.0).abs() < 0.05, "{s:?}");
    near3(
        [s.feet[0], 0.0, s.feet[2]],
        [1.0, 0.0, -4.0],
        "it fell straight down",
    );
}

/// An object whose root carries a mover carries its model's parts: spawned open, the door
/// stands turned 90° about +Y at its origin `[0, 0, 10]`, which takes `base`'s `(1, 0.5, 0)`
/// to `(0, 0.5, -1)`: world `(0, 0.5, 9)`; `base/arm/shade` (the sidecar's `hood`) stands
/// 2 m above it.
#[test]
fn a_door_object_carries_its_models_parts() {
    let (host, _, _) = start_map("door", "door");
    let sim = host.sim();
    let pose = |p: &str| sim.world_pose(part(sim, "door", p)).unwrap();
    near3(
        pose("base").position.to_array(),
        [0.0, 0.5, 9.0],
        "the open door's base",
    );
    near3(
        pose("base/arm/hood").position.to_array(),
        [0.0, 2.5, 9.0],
        "the open door's hood",
    );
    let yaw90 = [
        0.0,
        std::f32::consts::FRAC_1_SQRT_2,
        0.0,
        std::f32::consts::FRAC_1_SQRT_2,
    ];
    assert!(angle(pose("base").rotation.to_array(), yaw90) < 0.05);
    // Nothing was left out: proxy stands too, turned with the rest: (5, 0, 0) -> (0, 0, -5).
    near3(
        pose("proxy").position.to_array(),
        [0.0, 0.0, 5.0],
        "the proxy",
    );
}

// ---- A skinned model (issue 17, item 1) ------------------------------------------------------

const MAN_PALLET: &str = "dev.example.man";

const MAN_OBJECT: &str = r#"{ "name": "Cesium Man", "model": "/meshes/CesiumMan.glb" }"#;

/// CesiumMan stands at the origin (about 1.5 m tall, +Y up); the `front` camera stands
/// 1.25 m before it at its middle, looking along −Z at it.
const MAN_MAP: &str = r#"{
  "name": "Man",
  "autoCollision": false,
  "objects": [
    { "$type": "instance", "id": "1b2c3d4e-0000-4000-8000-0000000000b1", "name": "man",
      "source": "/objects/man.dh-obj" },
    { "$type": "object", "id": "1b2c3d4e-0000-4000-8000-0000000000b2", "name": "spawn",
      "position": [0, 1, 4], "components": [ { "$type": "dh.spawnPoint" } ] },
    { "$type": "object", "id": "1b2c3d4e-0000-4000-8000-0000000000b3", "name": "front",
      "position": [0, 0.75, 1.25], "components": [ { "$type": "dh.camera" } ] }
  ]
}
"#;

/// The pallet placing CesiumMan.glb (read from the shared fixtures) as an object, or `None`
/// (with a printed line) when the fixture is absent.
fn man_pallet(tag: &str) -> Option<PathBuf> {
    let glb = std::fs::read(support::fixture_path("gltf/CesiumMan.glb")?)
        .unwrap_or_else(|e| panic!("{e}"));
    let pallet = SourcePallet::fresh("dh-object-models", tag);
    pallet.manifest(MAN_PALLET, "Man");
    pallet.write("meshes/CesiumMan.glb", &glb);
    pallet.write("objects/man.dh-obj", MAN_OBJECT.as_bytes());
    pallet.write("maps/man.dh-map", MAN_MAP.as_bytes());
    let out = pallet.compile(true, "man");
    Some(pallet.save("man.pallet", &pallet_bytes(&out)))
}

/// A placed skinned model draws its body: its skinned node installs as a part, extraction
/// lists it in `RenderFrame.skinned` with a palette at the rest pose (one matrix per joint
/// of its skin: CesiumMan's skin has 19), the load log says once that its clip does not
/// play yet, and a capture from the `front` camera shows the body over a good share of the
/// frame.
#[test]
fn a_placed_skinned_model_draws_its_body() {
    let Some(pallet) = man_pallet("man") else {
        return;
    };
    let map = format!("{MAN_PALLET}:maps/man");
    let host = Host::start(&HostOptions {
        map: map.clone(),
        pallets: vec![pallet.clone()],
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    catalog
        .mount_file(&pallet)
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, loaded) = catalog.load_map(&map).unwrap_or_else(|e| panic!("{e}"));
    let mut cache = ExtractCache::new();
    let x = extract::extract_with(&host, &catalog, &loaded, &mut cache);
    assert_eq!(x.frame.skinned.len(), 1, "{:?}", x.notes);
    let s = &x.frame.skinned[0];
    assert_eq!(s.palette.len(), 19);
    assert!(s.rig.skinning.is_some());
    assert_eq!(
        x.frame.meshes[s.instance].mesh.packed.vertex_count,
        s.rig.vertex_count
    );
    let said: Vec<&String> = x
        .notes
        .iter()
        .filter(|n| n.contains("not played at run time yet"))
        .collect();
    assert_eq!(
        said,
        [&format!(
            "object 'man': model {MAN_PALLET}:meshes/CesiumMan.glb is skinned and drawn at its rest pose; its 1 animation clip(s) are not played at run time yet"
        )]
    );
    // A second frame lists it again under the same id, and decodes nothing more.
    let again = extract::extract_with(&host, &catalog, &loaded, &mut cache);
    assert_eq!(again.frame.skinned[0].id, s.id);
    assert_eq!(cache.models().decodes(), 1);

    if !support::vulkan_named() {
        return;
    }
    let outdir = pallet.with_file_name("shots");
    let _ = std::fs::remove_dir_all(&outdir);
    let (outcome, _, err) = support::render_captured(&dh_engine::render_cmd::RenderOptions {
        outdir: outdir.clone(),
        pallets: vec![pallet],
        map,
        camera: Some("front".into()),
        size: Some([128, 128]),
        ..Default::default()
    });
    // Done, so validation-clean (a validation error fails the render).
    assert_eq!(outcome, dh_engine::run::Outcome::Done, "{err}");
    // The load log says it once.
    assert_eq!(
        err.matches("its 1 animation clip(s) are not played at run time yet")
            .count(),
        1,
        "{err}"
    );
    let png = std::fs::read(outdir.join("front.png")).unwrap_or_else(|e| panic!("{e}: {err}"));
    let img =
        dh_gpu::render::frame::Texture::decode("front.png", &png).unwrap_or_else(|e| panic!("{e}"));
    // The body: pixels away from the background (the top-left corner's color).
    let bg = [img.rgba[0], img.rgba[1], img.rgba[2]];
    let body = img
        .rgba
        .chunks_exact(4)
        .filter(|p| (0..3).map(|k| p[k].abs_diff(bg[k]) as u32).sum::<u32>() > 30)
        .count();
    let share = body as f64 / f64::from(img.width * img.height);
    // At 2 m the body covered 0.040 of the frame; at 1.25 m, (2 / 1.25)² as much: 0.10.
    assert!(share > 0.08, "the body covers {share:.3} of the frame");
    support::check_golden(
        "engine_cesium_man_rest",
        &dh_gpu::RgbaImage {
            width: img.width,
            height: img.height,
            pixels: img.rgba.clone(),
        },
    );
}
