//! The non-logic map components (dh.box, dh.bake, dh.collider, dh.physicsProp,
//! dh.spawnPoint, dh.camera, the probes, dh.light, dh.voxelVolume): every complete JSON
//! example in the spec parses as written, and every build-time rule has a test. Expected
//! messages are written by hand from the spec.

use dh_content::diag::{Diagnostics, Severity, SourceFile};
use dh_content::jsonc::Span;
use dh_content::read::{parse_source, At, Cx, FromJson, Mode, ToJson};
use dh_content::schema::common::Vec3;
use dh_content::schema::components::geometry::{ColliderState, PhysicsSim, Shape};
use dh_content::schema::components::light::{LightMode, LightTuning};
use dh_content::schema::components::probes::check_map_probes;
use dh_content::schema::components::view::{Aspect, CameraRole, Projection};
use dh_content::schema::components::voxel_volume::VoxelLighting;
use dh_content::schema::components::{
    validate_components, Camera, ComponentCx, ComponentRole, DhBox, MapComponent,
    MAX_REPLICATED_SECTIONS,
};

// ---- helpers ----------------------------------------------------------------------------

const SLOTS: &[&str] = &[
    "grid", "orange", "crate", "lampOn", "lampOff", "button", "door", "plate",
];

/// The context a map record with index `entity` gets, in a map with [`SLOTS`].
fn base(entity: usize, kind: &str) -> ComponentCx {
    ComponentCx {
        entity,
        record_kind: kind.to_string(),
        material_slots: SLOTS.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

struct Checked {
    comps: Vec<MapComponent>,
    diags: Diagnostics,
}

impl Checked {
    fn errors(&self) -> Vec<String> {
        self.diags
            .items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.message.clone())
            .collect()
    }
    fn warnings(&self) -> Vec<String> {
        self.diags
            .items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .map(|d| d.message.clone())
            .collect()
    }
    fn lines(&self) -> Vec<String> {
        self.diags.items.iter().map(|d| d.to_string()).collect()
    }
    fn clean(&self) {
        assert!(self.diags.items.is_empty(), "{}", self.lines().join("\n"));
    }
    fn only(&self) -> &MapComponent {
        assert_eq!(self.comps.len(), 1, "{}", self.lines().join("\n"));
        &self.comps[0]
    }
}

/// Reads the record `text` (one record, as the spec writes it) the way the records engineer
/// will: its name, rotation and scale into `ccx`, its `components` (only those at
/// `take`, when given) as map components, then validates them together.
fn check_record_at(text: &str, mut ccx: ComponentCx, take: Option<usize>) -> Checked {
    let file = SourceFile::new("maps/test.dh-map", text);
    let mut diags = Diagnostics::new();
    let v = parse_source(&file, &mut diags).expect("the example parses as JSONC");
    let comps = {
        let mut cx = Cx::new(&file, &mut diags, Mode::Build);
        let mut fields: Vec<(&'static str, Span)> = Vec::new();
        for name in ["name", "rotation", "scale"] {
            if let Some(m) = v.get(name) {
                fields.push((name, m.span));
            }
        }
        ccx.record_at = At {
            span: v.span,
            path: "objects[3]".to_string(),
            fields,
        };
        ccx.name = v.get("name").and_then(|n| n.as_str()).map(str::to_string);
        ccx.rotation = v.get("rotation").and_then(|r| Vec3::from_json(&mut cx, r));
        ccx.scale = v.get("scale").and_then(|r| Vec3::from_json(&mut cx, r));
        let list = v.get("components").expect("the record has components");
        let comps = cx.at_key("objects[3]", |cx| {
            cx.at_key("components", |cx| match take {
                None => Vec::<MapComponent>::from_json(cx, list).unwrap_or_default(),
                Some(i) => {
                    let item = &list.as_array().expect("a list")[i];
                    cx.at_index(i, |cx| MapComponent::from_json(cx, item))
                        .into_iter()
                        .collect()
                }
            })
        });
        validate_components(&mut cx, &ccx, &comps);
        comps
    };
    Checked { comps, diags }
}

fn check_record(text: &str, ccx: ComponentCx) -> Checked {
    check_record_at(text, ccx, None)
}

/// A record named `thing` at the origin carrying `components` (a JSON list).
fn object(components: &str) -> String {
    format!(
        "{{ \"$type\": \"object\", \"id\": \"c3a1e0d2-5b4f-4c6a-9e7d-1f2a3b4c5d6e\", \"name\": \"thing\",\n  \"components\": {components} }}"
    )
}

/// Checks one object with `components` as Map entity #3.
fn check(components: &str) -> Checked {
    check_record(&object(components), base(3, "object"))
}

/// Reads one component alone (no validation), in `mode`.
fn read_one(text: &str, mode: Mode) -> (Option<MapComponent>, Diagnostics) {
    let file = SourceFile::new("maps/test.dh-map", text);
    let mut diags = Diagnostics::new();
    let v = parse_source(&file, &mut diags).expect("parses");
    let c = {
        let mut cx = Cx::new(&file, &mut diags, Mode::Build);
        cx.mode = mode;
        MapComponent::from_json(&mut cx, &v)
    };
    (c, diags)
}

fn messages(d: &Diagnostics) -> Vec<String> {
    d.items.iter().map(|d| d.message.clone()).collect()
}

fn camera(c: &MapComponent) -> &Camera {
    match c {
        MapComponent::Camera(c) => c,
        other => panic!("not a camera: {other:?}"),
    }
}

// ---- every complete example in the spec parses as written ------------------------------

#[test]
fn example_closed_field_sets_right_spawn() {
    // Closed Field Sets, "Right — a facing is the object's own rotation".
    let c = check_record(
        r#"{ "$type": "object", "id": "…", "position": [0, 0, 0], "rotation": [0, 90, 0], "components": [ { "$type": "dh.spawnPoint" } ] }"#,
        base(0, "object"),
    );
    c.clean();
    assert!(matches!(c.only(), MapComponent::SpawnPoint(_)));
}

#[test]
fn example_full_example_collision_object() {
    let c = check_record(
        r#"{ "$type": "object", "id": "3c5a0b7e-6d21-4f9a-8e14-7b2d9c1f4a60", "name": "collision", "components": [
      { "$type": "dh.collider", "shapes": [
        { "type": "box", "center": [0, -0.5, 0],    "halfExtents": [16.5, 0.5, 16.5] },
        { "type": "box", "center": [0, 1.5, -16.25], "halfExtents": [16.5, 1.5, 0.25] },
        { "type": "box", "center": [5, 0.5, 5],      "halfExtents": [2, 0.5, 2] }
      ] }
    ] }"#,
        base(0, "object"),
    );
    c.clean();
    let MapComponent::Collider(col) = c.only() else {
        panic!("not a collider")
    };
    assert_eq!(col.shape_count(), 3);
    assert_eq!(col.state_or_default(), ColliderState::Solid);
    let Some(Shape::Box(b)) = col.shapes.as_ref().and_then(|s| s.get(1)) else {
        panic!("not a box")
    };
    assert_eq!(b.center, Some(Vec3([0.0, 1.5, -16.25])));
    assert_eq!(b.half_extents, Vec3([16.5, 1.5, 0.25]));
}

#[test]
fn example_colliders_section() {
    let c = check_record(
        r#"{ "$type": "object", "id": "…", "name": "collision", "position": [0, 0, 0], "components": [
  { "$type": "dh.collider", "shapes": [ { "type": "box", "center": [0, -0.5, 0], "halfExtents": [500, 0.5, 500] } ] }
] }"#,
        base(0, "object"),
    );
    c.clean();
    // It writes back exactly as authored.
    assert_eq!(
        c.only().to_json().to_json(),
        r#"{"$type":"dh.collider","shapes":[{"type":"box","center":[0,-0.5,0],"halfExtents":[500,0.5,500]}]}"#
    );
}

#[test]
fn example_automatic_collision_ground() {
    let text = r#"{
  // autoCollision omitted — defaults to "mesh": the whole city is solid to its own triangles
  "objects": [
    { "$type": "instance", "id": "…", "name": "world", "source": "/meshes/city.glb" },
    { "$type": "object", "id": "…", "name": "ground", "components": [   // still installed, on top of the cooked mesh
      { "$type": "dh.collider", "shapes": [ { "type": "box", "center": [0, -0.5, 0], "halfExtents": [500, 0.5, 500] } ] }
    ] }
  ]
}"#;
    let file = SourceFile::new("maps/city.dh-map", text);
    let mut diags = Diagnostics::new();
    let v = parse_source(&file, &mut diags).unwrap();
    let list = v.get("objects").unwrap().as_array().unwrap()[1]
        .get("components")
        .unwrap();
    let comps = {
        let mut cx = Cx::new(&file, &mut diags, Mode::Build);
        let comps = Vec::<MapComponent>::from_json(&mut cx, list).unwrap();
        validate_components(&mut cx, &base(1, "object"), &comps);
        comps
    };
    assert!(diags.items.is_empty(), "{diags}");
    assert!(matches!(comps[0], MapComponent::Collider(_)));
}

#[test]
fn example_dh_box_ledge() {
    let c = check_record(
        r#"{ "$type": "object", "id": "a320bba5-ffa1-40e3-a87b-c7aef971daed", "name": "ledge", "position": [8, 0.75, 0],
  "components": [ { "$type": "dh.box", "size": [1.5, 1.5, 1.5], "material": "orange" } ] }"#,
        base(4, "object"),
    );
    c.clean();
    let MapComponent::Box(b) = c.only() else {
        panic!()
    };
    assert_eq!(b.size, Some(Vec3([1.5, 1.5, 1.5])));
    assert_eq!(b.material.as_deref(), Some("orange"));
}

#[test]
fn example_dh_bake_on_part_override() {
    let mut ccx = base(0, "part");
    ccx.bake_zones = vec!["underground".to_string()];
    let c = check_record(
        r#"{ "path": "__Areas/__mltn_tower/__Underground_Facility",
  "components": [ { "$type": "dh.bake", "zone": "underground", "lightmapScale": 0.5 } ] }"#,
        ccx,
    );
    c.clean();
    let MapComponent::Bake(b) = c.only() else {
        panic!()
    };
    assert_eq!(b.zone.as_deref(), Some("underground"));
    assert_eq!(b.lightmap_scale_or_default(), 0.5);
}

#[test]
fn example_spawn_point() {
    let c = check_record(
        r#"{ "$type": "object", "id": "10cd5fc6-fa9f-4faf-a968-6e159ccede2e", "position": [0, 0, 0], "rotation": [0, 90, 0],
  "components": [ { "$type": "dh.spawnPoint" } ] }"#,
        base(2, "object"),
    );
    c.clean();
    assert_eq!(c.only().to_json().to_json(), r#"{"$type":"dh.spawnPoint"}"#);
}

#[test]
fn example_camera_skyline() {
    let c = check_record(
        r#"{ "$type": "object", "id": "b783eabd-a4dd-4a45-87f6-59689fb74dca", "name": "skyline",
  "position": [-30, 26, 180], "rotation": [-14, 100, 0],
  "components": [ { "$type": "dh.camera", "fov": 60 } ] }"#,
        base(5, "object"),
    );
    c.clean();
    let cam = camera(c.only());
    assert_eq!(cam.fov_or_default(), 60.0);
    assert_eq!(cam.projection_or_default(), Projection::Perspective);
    assert!(!cam.claims_thumbnail());
}

#[test]
fn example_camera_postcard_thumbnail() {
    let c = check_record(
        r#"{ "$type": "object", "id": "6c1f0e2b-9d4a-4a11-9f0d-2c33b2f7c001", "name": "postcard",
  "position": [-30, 26, 180], "rotation": [-14, 100, 0],
  "components": [ { "$type": "dh.camera", "fov": 60, "role": "mapThumbnail", "thumbnailSize": [1024, 1024] } ] }"#,
        base(6, "object"),
    );
    c.clean();
    let cam = camera(c.only());
    assert!(cam.claims_thumbnail());
    assert_eq!(cam.role_or_default(), CameraRole::MapThumbnail);
    assert_eq!(cam.thumbnail_size_or_default(), [1024, 1024]);
    assert!(cam.auto_capture_or_default());
}

#[test]
fn example_light_probe_volume_atrium() {
    let c = check_record(
        r#"{ "$type": "object", "id": "5f2f8a10-0f0e-4a45-9a6a-2c9d1c3f9b41", "name": "atrium",
  "position": [0, 6, -40], "scale": [48, 12, 64],
  "components": [ { "$type": "dh.lightProbeVolume", "probeSpacing": 2 } ] }"#,
        base(7, "object"),
    );
    c.clean();
    let MapComponent::LightProbeVolume(v) = c.only() else {
        panic!()
    };
    assert_eq!(v.probe_spacing, Some(2.0));
    assert!(v.inset_probes_or_default());
}

#[test]
fn example_light_probe_group_source_ambient() {
    let c = check_record(
        r#"{ "$type": "object", "id": "8a1c1b52-6c47-4d0e-a3f5-0b5b7c0f1e21", "name": "sourceAmbient",
  "components": [ { "$type": "dh.lightProbeGroup", "probes": "maps/gm_flatgrass.dh-probegroup", "contents": "indirect" } ] }"#,
        base(8, "object"),
    );
    c.clean();
    let MapComponent::LightProbeGroup(g) = c.only() else {
        panic!()
    };
    assert_eq!(g.probes, "maps/gm_flatgrass.dh-probegroup");
}

#[test]
fn example_reflection_probe_atrium() {
    let c = check_record(
        r#"{ "$type": "object", "id": "d2b71f08-64ac-4e15-9b30-8c5f1a7e6d30", "name": "atrium",
  "position": [0, 2.5, 0], "scale": [12, 6, 12],
  "components": [ { "$type": "dh.reflectionProbe", "capturePoint": [0, -0.6, 3], "boxProjection": true, "resolution": 128 } ] }"#,
        base(9, "object"),
    );
    c.clean();
    assert_eq!(
        c.only().to_json().to_json(),
        r#"{"$type":"dh.reflectionProbe","capturePoint":[0,-0.6,3],"boxProjection":true,"resolution":128}"#
    );
}

#[test]
fn example_voxel_volume_village() {
    let c = check_record(
        r#"{ "$type": "object", "id": "6a0c27e1-0000-4000-8000-000000000010", "name": "village",
  "position": [-4, 0, -14], "rotation": [0, 90, 0], "scale": [2, 2, 2],
  "components": [ { "$type": "dh.voxelVolume", "volume": "/voxels/village.dh-vox",
    "delta": { "grids": { "minecraft:the_nether": true } } } ] }"#,
        base(10, "object"),
    );
    c.clean();
    let MapComponent::VoxelVolume(v) = c.only() else {
        panic!()
    };
    let grids = v.delta.as_ref().and_then(|d| d.grids.as_ref()).unwrap();
    assert_eq!(grids.get("minecraft:the_nether"), Some(&true));
}

#[test]
fn example_voxel_spec_lighting_mode_world() {
    // Voxel spec, Lighting modes.
    let c = check_record(
        r#"{ "$type": "object", "id": "6a0c27e1-0000-4000-8000-000000000010", "name": "world",
  "components": [ { "$type": "dh.voxelVolume", "volume": "/worlds/survival.dh-vox", "lighting": "dh" } ] }"#,
        base(0, "object"),
    );
    c.clean();
    let MapComponent::VoxelVolume(v) = c.only() else {
        panic!()
    };
    assert_eq!(v.lighting, Some(VoxelLighting::Dh));
}

#[test]
fn example_physics_prop_crate() {
    let c = check_record(
        r#"{ "$type": "object", "id": "264da720-8d6a-4ed3-8502-a8b0fe94778c", "name": "crate",
  "position": [0, 4, 5], "rotation": [12, 30, 8],
  "components": [
    { "$type": "dh.box", "size": [0.8, 0.8, 0.8], "material": "crate" },
    { "$type": "dh.physicsProp", "mass": 30 } ] }"#,
        base(11, "object"),
    );
    c.clean();
    assert!(c.comps[1].is_replicated_section());
}

#[test]
fn example_physics_prop_placed_crate_instance() {
    let c = check_record(
        r#"{ "$type": "instance", "id": "1f0c4a8e-7b2d-4c5e-9a31-6d8e2f4b7c90", "name": "placedCrate",
  "source": "core:objects/physicsCube.dh-obj",
  "position": [2, 4, 5],
  "components": [
    { "$type": "dh.box", "size": [0.8, 0.8, 0.8], "material": "/materials/crate-blue.dh-mat" },
    { "$type": "dh.physicsProp", "mass": 30 }
  ] }"#,
        base(12, "instance"),
    );
    c.clean();
}

#[test]
fn example_physics_prop_local_crate_client_sim() {
    let c = check_record(
        r#"{ "$type": "instance", "id": "1b1c9e6c-2a0a-4a24-9a8c-6ad46f5f7f01", "name": "localCrate",
  "source": "core:objects/physicsCube.dh-obj", "position": [0, 4, 5],
  "components": [
    { "$type": "dh.box", "size": [0.8, 0.8, 0.8], "material": "/materials/crate-blue.dh-mat" },
    { "$type": "dh.physicsProp", "mass": 30, "sim": "client" }
  ] }"#,
        base(13, "instance"),
    );
    c.clean();
    let MapComponent::PhysicsProp(p) = &c.comps[1] else {
        panic!()
    };
    assert_eq!(p.sim_or_default(), PhysicsSim::Client);
    // A client-simulated prop is not in the snapshot at all.
    assert!(!c.comps[1].is_replicated_section());
}

#[test]
fn example_object_spec_core_crate_components() {
    // dh.object spec, "An object's body": the core crate's root, placed as a map object.
    let c = check_record(
        r#"{
  "name": "Physics Cube",
  "components": [
    { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "/materials/crate-orange.dh-mat" },
    { "$type": "dh.collider" },
    { "$type": "dh.physicsProp", "mass": 30, "sim": "server" }
  ]
}"#,
        base(0, "instance"),
    );
    c.clean();
    assert_eq!(c.comps.len(), 3);
}

#[test]
fn example_light_lamp() {
    let c = check_record(
        r#"{ "$type": "object", "id": "f3cf4ad5-b69c-4e42-9e7b-408dc4df418b", "name": "lamp", "position": [3, 1, 7],
  "components": [
    { "$type": "dh.box", "size": [1, 1, 1], "material": "lampOn" },
    { "$type": "dh.light", "materialOff": "lampOff", "startOn": false,
      "light": "point", "color": [1.0, 0.88, 0.7], "intensity": 60, "range": 9,
      "offset": [0, 0.6, 0], "innerConeDegrees": 30, "outerConeDegrees": 45 } ] }"#,
        base(14, "object"),
    );
    c.clean();
    let MapComponent::Light(l) = &c.comps[1] else {
        panic!()
    };
    assert_eq!(l.color_or_default(), Vec3([1.0, 0.88, 0.7]));
    assert!(!l.starts_on(true));
    assert_eq!(l.mode_or_default(), LightMode::Realtime);
}

#[test]
fn example_trigger_pad_collider() {
    // dh.trigger's example: its collider (the dh.trigger itself is the logic engineer's).
    let c = check_record_at(
        r#"{ "$type": "object", "id": "6b1f0e42-3ac9-4d58-9e07-2f5b8c1a4d33", "name": "lobbyPad", "position": [0, 0.05, 6],
  "components": [
    { "$type": "dh.collider", "state": "trigger", "shapes": [ { "type": "box", "halfExtents": [1.5, 0.05, 1.5] } ] },
    { "$type": "dh.trigger", "enabled": false } ],
  "connections": [
    { "output": "onStartTouch", "actions": [ { "call": { "target": "lobbyDoor", "input": "open" } } ] },
    { "output": "onEndTouch",   "actions": [ { "delay": { "seconds": 2 } },
                                             { "call": { "target": "lobbyDoor", "input": "close" } } ] }
  ] }"#,
        base(0, "object"),
        Some(0),
    );
    c.clean();
    let MapComponent::Collider(col) = c.only() else {
        panic!()
    };
    assert_eq!(col.state_or_default(), ColliderState::Trigger);
}

// ---- closed field sets ------------------------------------------------------------------

#[test]
fn spawn_point_holds_no_fields_at_all() {
    // "one written in a dh.spawnPoint is told the spawn point holds no fields at all"
    let c = check(r#"[ { "$type": "dh.spawnPoint", "fov": 60 } ]"#);
    assert_eq!(
        c.lines(),
        vec![
            "maps/test.dh-map:2:47: error: objects[3].components[0]: unknown member 'fov' in dh.spawnPoint: dh.spawnPoint holds no fields at all"
        ]
    );
}

#[test]
fn camera_unknown_member_lists_its_fields() {
    let c = check(r#"[ { "$type": "dh.camera", "yaw": 90 } ]"#);
    assert_eq!(
        c.errors()[0],
        "unknown member 'yaw' in dh.camera; the fields of dh.camera are: fov, projection, orthoSize, near, far, aspect, role, thumbnailSize, autoCapture"
    );
}

#[test]
fn every_component_field_set_is_closed() {
    let cases = [
        ("dh.box", "size, material"),
        ("dh.bake", "emission, lightmapScale, zone"),
        ("dh.collider", "state, material, shapes, generated, wasTrigger"),
        ("dh.physicsProp", "mass, sim"),
        ("dh.lightProbeVolume", "probeSpacing, insetProbes, bakeZone, dynamic"),
        ("dh.lightProbeGroup", "probes, contents, bakeZone, bake, dynamic"),
        (
            "dh.reflectionProbe",
            "capturePoint, boxProjection, resolution, importance, blendDistance, projection",
        ),
        (
            "dh.light",
            "light, color, intensity, range, falloff, offset, innerConeDegrees, outerConeDegrees, mode, radius, angularDiameter, shadowSamples, startOn, materialOff",
        ),
        ("dh.voxelVolume", "volume, lighting, delta"),
    ];
    for (ty, fields) in cases {
        let (_, d) = read_one(
            &format!(r#"{{ "$type": "{ty}", "bogus": 1 }}"#),
            Mode::Build,
        );
        let want = format!("unknown member 'bogus' in {ty}; the fields of {ty} are: {fields}");
        assert!(messages(&d).contains(&want), "{ty}: {:?}", messages(&d));
    }
}

#[test]
fn collider_shapes_are_closed_blocks() {
    let (_, d) = read_one(
        r#"{ "$type": "dh.collider", "shapes": [ { "type": "sphere", "radius": 1, "halfExtents": [1, 1, 1] } ] }"#,
        Mode::Build,
    );
    assert_eq!(
        messages(&d),
        vec!["unknown member 'halfExtents' in sphere shape; the fields of sphere shape are: center, radius, material, auto"]
    );
    let (_, d) = read_one(
        r#"{ "$type": "dh.collider", "shapes": [ { "type": "auto", "size": 2 } ] }"#,
        Mode::Build,
    );
    assert_eq!(
        messages(&d),
        vec!["unknown member 'size' in auto shape: auto shape holds no fields at all"]
    );
}

#[test]
fn voxel_volume_delta_is_closed() {
    let c = check(
        r#"[ { "$type": "dh.voxelVolume", "volume": "/voxels/village.dh-vox", "delta": { "grids": {}, "hidden": true } } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec!["unknown member 'hidden' in dh.voxelVolume delta; the fields of dh.voxelVolume delta are: grids"]
    );
}

#[test]
fn bake_emission_is_closed() {
    let c = check(
        r#"[ { "$type": "dh.box", "material": "grid" }, { "$type": "dh.bake", "emission": { "colour": [1, 0, 0] } } ]"#,
    );
    assert!(c.errors().contains(
        &"unknown member 'colour' in dh.bake emission; the fields of dh.bake emission are: color, intensity, samples; did you mean `color`?".to_string()
    ));
}

#[test]
fn unknown_component_type_is_listed_at_build_and_kept_at_load() {
    let (_, d) = read_one(r#"{ "$type": "dh.lamp" }"#, Mode::Build);
    assert!(messages(&d)[0].starts_with("'dh.lamp' is not a valid component; expected one of: dh.box, dh.bake, dh.collider, dh.spawnPoint, dh.camera,"));
    let (c, d) = read_one(r#"{ "$type": "dh.lamp", "glow": 3 }"#, Mode::Load);
    assert!(d.items.is_empty());
    let c = c.unwrap();
    assert_eq!(c.role(), ComponentRole::Unknown);
    assert_eq!(c.to_json().to_json(), r#"{"$type":"dh.lamp","glow":3}"#);
}

// ---- roles: presentation, logic, replicated sections ------------------------------------

#[test]
fn component_roles_follow_the_spec() {
    let presentation = [
        "dh.light",
        "dh.camera",
        "dh.spawnPoint",
        "dh.reflectionProbe",
        "dh.lightProbeVolume",
        "dh.lightProbeGroup",
        "dh.voxelVolume",
    ];
    let logic = [
        "dh.button",
        "dh.mover",
        "dh.pressurePlate",
        "dh.trigger",
        "dh.teleport",
        "dh.timer",
        "dh.mapStart",
        "dh.andGate",
        "dh.orGate",
        "dh.notGate",
        "dh.physicsProp",
    ];
    let geometry = ["dh.box", "dh.bake", "dh.collider"];
    // Replicated: a button's latch, a mover's open fraction, a plate's occupancy, a server
    // prop's pose, a light's bit, the probe volume and group, the voxel volume.
    let replicated = [
        "dh.button",
        "dh.mover",
        "dh.pressurePlate",
        "dh.physicsProp",
        "dh.light",
        "dh.lightProbeVolume",
        "dh.lightProbeGroup",
        "dh.voxelVolume",
    ];
    for ty in MapComponent::TAGS {
        // Read through Load so fields a component requires do not matter here.
        let (c, _) = read_one(&format!(r#"{{ "$type": "{ty}" }}"#), Mode::Load);
        let c = c.unwrap_or_else(|| panic!("{ty} reads"));
        let want = if presentation.contains(ty) {
            ComponentRole::Presentation
        } else if logic.contains(ty) {
            ComponentRole::Logic
        } else {
            assert!(geometry.contains(ty), "{ty} has no role in the test");
            ComponentRole::Geometry
        };
        assert_eq!(c.role(), want, "{ty}");
        assert_eq!(c.is_presentation(), want == ComponentRole::Presentation);
        assert_eq!(c.is_logic(), want == ComponentRole::Logic);
        assert_eq!(c.is_replicated_section(), replicated.contains(ty), "{ty}");
    }
    assert_eq!(MAX_REPLICATED_SECTIONS, 4);
}

#[test]
fn presentation_components_with_a_logic_node() {
    for (ty, node) in [
        ("dh.light", true),
        ("dh.lightProbeVolume", true),
        ("dh.lightProbeGroup", true),
        ("dh.voxelVolume", true),
        ("dh.camera", false),
        ("dh.spawnPoint", false),
        ("dh.reflectionProbe", false),
        ("dh.box", false),
        ("dh.timer", true),
    ] {
        let (c, _) = read_one(&format!(r#"{{ "$type": "{ty}" }}"#), Mode::Load);
        assert_eq!(c.unwrap().has_logic_node(), node, "{ty}");
    }
}

// ---- dh.box -----------------------------------------------------------------------------

#[test]
fn box_size_must_be_positive() {
    let c = check(r#"[ { "$type": "dh.box", "size": [1.5, 0, 1.5], "material": "orange" } ]"#);
    assert_eq!(
        c.lines(),
        vec!["maps/test.dh-map:2:48: error: objects[3].components[0]: Map entity #3 (object dh.box) 'size' must be positive"]
    );
    let c = check(r#"[ { "$type": "dh.box", "size": [1, 1, -2], "material": "orange" } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.box) 'size' must be positive"]
    );
}

#[test]
fn box_material_must_name_a_slot() {
    let c = check(r#"[ { "$type": "dh.box", "material": "orang" } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.box) 'material' names 'orang', which is not one of the map's material slots; the slots are: grid, orange, crate, lampOn, lampOff, button, door, plate; did you mean `orange`?"]
    );
}

#[test]
fn box_material_is_required() {
    let c = check(r#"[ { "$type": "dh.box", "size": [1, 1, 1] } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.box) 'material' is required: a key into the map's materials table"]
    );
    // An instance's components are departures from its source: the material inherits.
    let c = check_record(
        &object(r#"[ { "$type": "dh.box", "size": [2, 2, 2] } ]"#),
        base(3, "instance"),
    );
    c.clean();
}

#[test]
fn box_generated_collider_is_its_exact_box_in_its_material() {
    let c = check(r#"[ { "$type": "dh.box", "size": [1.5, 1, 3], "material": "orange" } ]"#);
    let MapComponent::Box(b) = c.only() else {
        panic!()
    };
    let g = b.generated_collider();
    assert!(g.is_generated());
    assert_eq!(g.state_or_default(), ColliderState::Solid);
    assert_eq!(
        MapComponent::Collider(g).to_json().to_json(),
        r#"{"$type":"dh.collider","material":"orange","shapes":[{"type":"box","halfExtents":[0.75,0.5,1.5]}],"generated":true}"#
    );
    // A box with no size is a unit box.
    let unit = DhBox {
        material: Some("grid".into()),
        ..Default::default()
    };
    assert_eq!(
        unit.auto_shape().to_json().to_json(),
        r#"{"halfExtents":[0.5,0.5,0.5],"auto":true}"#
    );
}

#[test]
fn generated_collider_only_where_none_is_authored() {
    let c = check(r#"[ { "$type": "dh.box", "material": "door" } ]"#);
    let g = MapComponent::generated_collider_for(&c.comps).expect("a box with no collider");
    assert_eq!(g.material.as_deref(), Some("door"));
    let c = check(
        r#"[ { "$type": "dh.box", "material": "door" }, { "$type": "dh.collider", "state": "off" } ]"#,
    );
    assert!(MapComponent::generated_collider_for(&c.comps).is_none());
    let c = check(r#"[ { "$type": "dh.spawnPoint" } ]"#);
    assert!(MapComponent::generated_collider_for(&c.comps).is_none());
}

// ---- dh.collider ------------------------------------------------------------------------

#[test]
fn collider_state_tokens() {
    let c = check(r#"[ { "$type": "dh.collider", "state": "ghost" } ]"#);
    assert_eq!(
        c.errors(),
        vec!["'ghost' is not a valid collider state; expected one of: solid, off, trigger"]
    );
}

#[test]
fn collider_shape_types() {
    let c = check(r#"[ { "$type": "dh.collider", "shapes": [ { "type": "cylinder" } ] } ]"#);
    assert_eq!(
        c.errors(),
        vec!["'cylinder' is not a valid collider shape; expected one of: box, sphere, capsule, hull, mesh, auto"]
    );
}

#[test]
fn collider_every_shape_reads_and_writes_back() {
    let text = r#"{"$type":"dh.collider","state":"solid","material":"grid","shapes":[{"type":"box","center":[0,1,0],"rotation":[0,45,0],"halfExtents":[1,1,1],"material":"door","auto":true},{"type":"sphere","center":[0,2,0],"radius":0.5},{"type":"capsule","radius":0.3,"height":1.8},{"type":"hull","points":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]},{"type":"mesh","material":"grid"},{"type":"auto"}],"generated":true}"#;
    let c = check(&format!("[{text}]"));
    c.clean();
    assert_eq!(c.only().to_json().to_json(), text);
}

#[test]
fn collider_empty_shapes_is_kept() {
    // "a part may author shapes: [] to collide with nothing"
    let c = check(r#"[ { "$type": "dh.collider", "shapes": [] } ]"#);
    c.clean();
    assert_eq!(
        c.only().to_json().to_json(),
        r#"{"$type":"dh.collider","shapes":[]}"#
    );
}

#[test]
fn collider_material_must_name_a_slot() {
    let c = check(
        r#"[ { "$type": "dh.collider", "material": "ice", "shapes": [ { "type": "box", "halfExtents": [1, 1, 1], "material": "mud" } ] } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec![
            "Map entity #3 (object dh.collider) 'material' names 'ice', which is not one of the map's material slots; the slots are: grid, orange, crate, lampOn, lampOff, button, door, plate",
            "Map entity #3 (object dh.collider) 'material' names 'mud', which is not one of the map's material slots; the slots are: grid, orange, crate, lampOn, lampOff, button, door, plate",
        ]
    );
}

#[test]
fn collider_box_half_extents_positive() {
    let c = check(
        r#"[ { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [1, 0, 1] } ] } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.collider) shapes[0] (box) 'halfExtents' must be positive on every axis, found [1, 0, 1]"]
    );
}

#[test]
fn collider_sphere_radius_positive() {
    let c = check(
        r#"[ { "$type": "dh.collider", "shapes": [ { "type": "sphere", "radius": -1 } ] } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.collider) shapes[0] (sphere) 'radius' must be above zero, found -1"]
    );
}

#[test]
fn collider_capsule_height_covers_its_caps() {
    let c = check(
        r#"[ { "$type": "dh.collider", "shapes": [ { "type": "capsule", "radius": 0.5, "height": 0.8 } ] } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.collider) shapes[0] (capsule) 'height' is the full height, cap to cap, and must be at least twice the radius (1), found 0.8"]
    );
}

#[test]
fn collider_hull_needs_four_points() {
    let c = check(
        r#"[ { "$type": "dh.collider", "shapes": [ { "type": "hull", "points": [[0,0,0],[1,0,0],[0,1,0]] } ] } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.collider) shapes[0] (hull) needs at least 4 'points', found 3"]
    );
}

#[test]
fn collider_box_shape_needs_half_extents() {
    let c = check(r#"[ { "$type": "dh.collider", "shapes": [ { "type": "box" } ] } ]"#);
    assert_eq!(
        c.errors(),
        vec!["box shape is missing its required member 'halfExtents'"]
    );
}

// ---- dh.bake ----------------------------------------------------------------------------

#[test]
fn bake_lightmap_scale_never_negative() {
    let c = check(
        r#"[ { "$type": "dh.box", "material": "grid" }, { "$type": "dh.bake", "lightmapScale": -0.5 } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.bake) 'lightmapScale' must not be negative, found -0.5; 0 takes the owner out of the atlas"]
    );
}

#[test]
fn bake_zone_must_be_declared() {
    let mut ccx = base(0, "part");
    ccx.bake_zones = vec!["room".into()];
    let c = check_record(
        r#"{ "path": "yard/roomPanel", "components": [ { "$type": "dh.bake", "zone": "underground" } ] }"#,
        ccx,
    );
    assert_eq!(
        c.errors(),
        vec!["Map entity #0 (part dh.bake) 'zone' names bake zone 'underground', which lighting.bakeZones lacks; lighting.bakeZones defines: room"]
    );
}

#[test]
fn bake_emission_color_is_srgb() {
    let c = check_record(
        r#"{ "path": "yard/roomPanel", "components": [ { "$type": "dh.bake", "emission": { "color": [2, 1, 1], "intensity": 4 } } ] }"#,
        base(0, "part"),
    );
    assert_eq!(
        c.errors(),
        vec!["Map entity #0 (part dh.bake) emission 'color' must be sRGB values in [0, 1], found [2, 1, 1]; brightness belongs in 'intensity'"]
    );
}

#[test]
fn bake_emission_samples_past_64_warns() {
    let c = check_record(
        r#"{ "path": "yard/roomPanel", "components": [ { "$type": "dh.bake", "emission": { "samples": 100 } } ] }"#,
        base(0, "part"),
    );
    assert!(c.errors().is_empty());
    assert_eq!(
        c.warnings(),
        vec!["Map entity #0 (part dh.bake) emission 'samples' is 100, past the most of 64; the bake clamps it to 64"]
    );
}

#[test]
fn bake_on_an_object_goes_beside_a_box() {
    let c = check(r#"[ { "$type": "dh.bake", "zone": "room" } ]"#);
    assert!(c.errors().contains(
        &"Map entity #3 (object dh.bake) needs a 'dh.box' beside it: a plain object takes a 'dh.bake' only beside a box".to_string()
    ));
}

#[test]
fn bake_on_a_box_warns_emission_and_scale_bake_nothing() {
    let mut ccx = base(3, "object");
    ccx.bake_zones = vec!["room".into()];
    let c = check_record(
        &object(
            r#"[ { "$type": "dh.box", "material": "grid" }, { "$type": "dh.bake", "zone": "room", "lightmapScale": 2, "emission": {} } ]"#,
        ),
        ccx,
    );
    assert!(c.errors().is_empty(), "{:?}", c.errors());
    assert_eq!(
        c.warnings(),
        vec![
            "Map entity #3 (object dh.bake) 'emission' bakes nothing yet: a box is not in the bake (it is lit from the probes); only its 'zone' acts",
            "Map entity #3 (object dh.bake) 'lightmapScale' bakes nothing yet: a box is not in the bake (it is lit from the probes); only its 'zone' acts",
        ]
    );
}

// ---- dh.physicsProp ---------------------------------------------------------------------

#[test]
fn physics_prop_mass_at_least_a_gram() {
    let c = check(
        r#"[ { "$type": "dh.box", "material": "crate" }, { "$type": "dh.physicsProp", "mass": 0.0005 } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec![
            "Map entity #3 (object dh.physicsProp) 'mass' must be at least 0.001 kg, found 0.0005"
        ]
    );
    let c = check(
        r#"[ { "$type": "dh.box", "material": "crate" }, { "$type": "dh.physicsProp", "mass": 0.001 } ]"#,
    );
    c.clean();
}

#[test]
fn physics_prop_sim_token() {
    // "Any other value is a compile error naming the token and listing the ones that would
    // have worked."
    let c = check(
        r#"[ { "$type": "dh.box", "material": "crate" }, { "$type": "dh.physicsProp", "sim": "both" } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec!["'both' is not a valid physics prop sim; expected one of: server, client"]
    );
}

#[test]
fn physics_prop_needs_a_box() {
    let c = check(r#"[ { "$type": "dh.physicsProp", "mass": 30 } ]"#);
    assert_eq!(
        c.errors(),
        vec!["'dh.physicsProp' needs a 'dh.box' on its object: the box is what the prop looks like and what its material weighs"]
    );
}

#[test]
fn physics_prop_needs_exactly_one_shape() {
    let c = check(
        r#"[ { "$type": "dh.box", "material": "crate" },
            { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [1, 1, 1] }, { "type": "box", "halfExtents": [1, 1, 1] } ] },
            { "$type": "dh.physicsProp" } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec![
            "'dh.physicsProp' needs exactly one shape in its object's 'dh.collider', which holds 2"
        ]
    );
}

#[test]
fn physics_prop_shape_must_be_a_box() {
    let c = check(
        r#"[ { "$type": "dh.box", "material": "crate" },
            { "$type": "dh.collider", "shapes": [ { "type": "sphere", "radius": 0.5 } ] },
            { "$type": "dh.physicsProp" } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec!["'dh.physicsProp' needs exactly one box shape in its object's 'dh.collider', which holds a sphere"]
    );
}

#[test]
fn physics_prop_box_shape_on_the_origin() {
    let c = check(
        r#"[ { "$type": "dh.box", "material": "crate" },
            { "$type": "dh.collider", "shapes": [ { "type": "box", "center": [0, 0.5, 0], "rotation": [0, 45, 0], "halfExtents": [1, 1, 1] } ] },
            { "$type": "dh.physicsProp" } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec![
            "'dh.physicsProp' needs its box shape on the object's origin: the solver poses the object by its body, so the shape's 'center' must be [0, 0, 0], found [0, 0.5, 0]",
            "'dh.physicsProp' needs its box shape on the object's origin: the solver poses the object by its body, so the shape's 'rotation' must be [0, 0, 0], found [0, 45, 0]",
        ]
    );
}

#[test]
fn physics_prop_cannot_share_with_mover_button_or_plate() {
    let c = check(
        r#"[ { "$type": "dh.box", "material": "crate" }, { "$type": "dh.button" }, { "$type": "dh.pressurePlate" }, { "$type": "dh.physicsProp" } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec![
            "'dh.physicsProp' cannot share its object with a 'dh.button': the body is the solver's alone",
            "'dh.physicsProp' cannot share its object with a 'dh.pressurePlate': the body is the solver's alone",
        ]
    );
    let (mover, _) = read_one(r#"{ "$type": "dh.mover" }"#, Mode::Load);
    let (prop, _) = read_one(r#"{ "$type": "dh.physicsProp" }"#, Mode::Build);
    let (bx, _) = read_one(r#"{ "$type": "dh.box", "material": "crate" }"#, Mode::Build);
    let comps = vec![bx.unwrap(), mover.unwrap(), prop.unwrap()];
    let file = SourceFile::new("maps/test.dh-map", "{}");
    let mut d = Diagnostics::new();
    validate_components(
        &mut Cx::new(&file, &mut d, Mode::Build),
        &base(3, "object"),
        &comps,
    );
    assert_eq!(
        messages(&d),
        vec!["'dh.physicsProp' cannot share its object with a 'dh.mover': the body is the solver's alone"]
    );
}

// ---- dh.camera --------------------------------------------------------------------------

#[test]
fn camera_name_is_required() {
    let text = r#"{ "$type": "object", "id": "b783eabd-a4dd-4a45-87f6-59689fb74dca", "name": "  ",
  "components": [ { "$type": "dh.camera" } ] }"#;
    let c = check_record(text, base(5, "object"));
    assert_eq!(
        c.lines(),
        vec!["maps/test.dh-map:1:76: error: objects[3]: Map entity #5 (object dh.camera) needs a name: the object's name is the shot's name, required, non-empty and unique among the map's cameras"]
    );
    let no_name = r#"{ "$type": "object", "id": "b783eabd-a4dd-4a45-87f6-59689fb74dca",
  "components": [ { "$type": "dh.camera" } ] }"#;
    let c = check_record(no_name, base(5, "object"));
    assert_eq!(c.errors().len(), 1);
    let named = check_record(
        &object(r#"[ { "$type": "dh.camera" } ]"#),
        base(5, "object"),
    );
    named.clean();
    let mut ccx = base(5, "object");
    ccx.name = Some("thing".into());
    assert_eq!(Camera::shot_name(&ccx), Some("thing"));
}

#[test]
fn camera_pitch_within_90() {
    let text = r#"{ "$type": "object", "id": "b783eabd-a4dd-4a45-87f6-59689fb74dca", "name": "down",
  "rotation": [-95, 0, 0], "components": [ { "$type": "dh.camera" } ] }"#;
    let c = check_record(text, base(5, "object"));
    assert_eq!(
        c.lines(),
        vec!["maps/test.dh-map:2:15: error: objects[3]: Map entity #5 (object dh.camera) pitch (the first slot of 'rotation') must be within ±90 degrees, found -95"]
    );
    let ok = r#"{ "$type": "object", "id": "b783eabd-a4dd-4a45-87f6-59689fb74dca", "name": "down",
  "rotation": [-90, 170, 0], "components": [ { "$type": "dh.camera" } ] }"#;
    check_record(ok, base(5, "object")).clean();
}

#[test]
fn camera_fov_in_0_to_179() {
    for bad in ["0", "-10", "179.5", "180"] {
        let c = check(&format!(r#"[ {{ "$type": "dh.camera", "fov": {bad} }} ]"#));
        assert_eq!(
            c.errors(),
            vec![format!(
                "Map entity #3 (object dh.camera) 'fov' must be in (0, 179], found {}",
                bad.parse::<f64>().unwrap()
            )],
            "{bad}"
        );
    }
    check(r#"[ { "$type": "dh.camera", "fov": 179 } ]"#).clean();
    check(r#"[ { "$type": "dh.camera", "fov": 0.5 } ]"#).clean();
}

#[test]
fn camera_ortho_size_required_under_orthographic() {
    let c = check(r#"[ { "$type": "dh.camera", "projection": "orthographic" } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.camera) 'orthoSize' is required under \"orthographic\": the half-height of the view box in meters"]
    );
    // A fov beside it is accepted and ignored.
    let c = check(
        r#"[ { "$type": "dh.camera", "projection": "orthographic", "orthoSize": 18, "fov": 60 } ]"#,
    );
    c.clean();
    assert_eq!(
        camera(c.only()).projection_or_default(),
        Projection::Orthographic
    );
}

#[test]
fn camera_ortho_size_positive() {
    let c = check(r#"[ { "$type": "dh.camera", "projection": "orthographic", "orthoSize": 0 } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.camera) 'orthoSize' must be above zero, found 0"]
    );
}

#[test]
fn camera_ortho_size_rejected_under_perspective() {
    let c = check(r#"[ { "$type": "dh.camera", "orthoSize": 18 } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.camera) 'orthoSize' is rejected under \"perspective\": it frames an orthographic shot only; set \"projection\": \"orthographic\" or remove it"]
    );
}

#[test]
fn camera_far_past_near() {
    let c = check(r#"[ { "$type": "dh.camera", "near": 5, "far": 5 } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.camera) 'far' (5) must be greater than 'near' (5)"]
    );
    check(r#"[ { "$type": "dh.camera", "near": 0.1, "far": 500 } ]"#).clean();
}

#[test]
fn camera_unknown_projection_and_role() {
    let c = check(r#"[ { "$type": "dh.camera", "projection": "fisheye", "role": "portal" } ]"#);
    assert_eq!(
        c.errors(),
        vec![
            "'fisheye' is not a valid camera projection; expected one of: perspective, orthographic",
            "'portal' is not a valid camera role; expected one of: none, mapThumbnail",
        ]
    );
}

#[test]
fn camera_aspect_is_viewport_or_w_h() {
    for good in ["viewport", "16:9", "4:3", "1:1", "21:9", "2.39:1"] {
        let text = format!(r#"{{"$type":"dh.camera","aspect":"{good}"}}"#);
        let c = check(&format!("[{text}]"));
        c.clean();
        assert_eq!(c.only().to_json().to_json(), text);
    }
    assert_eq!(
        Aspect::parse("16:9").and_then(|a| a.ratio()),
        Some(16.0 / 9.0)
    );
    for bad in ["16x9", "0:1", "4:-3", "wide", "16:", ":9"] {
        let c = check(&format!(
            r#"[ {{ "$type": "dh.camera", "aspect": "{bad}" }} ]"#
        ));
        assert_eq!(
            c.errors(),
            vec![format!("'{bad}' is not a valid camera aspect; expected \"viewport\" or a w:h pair of positive numbers such as \"16:9\", \"4:3\" or \"1:1\"")],
            "{bad}"
        );
    }
}

#[test]
fn camera_thumbnail_size_edges_in_16_to_4096() {
    for bad in ["[8, 512]", "[512, 4097]", "[512.5, 512]"] {
        let c = check(&format!(
            r#"[ {{ "$type": "dh.camera", "role": "mapThumbnail", "thumbnailSize": {bad} }} ]"#
        ));
        assert_eq!(c.errors().len(), 1, "{bad}");
        assert!(
            c.errors()[0].starts_with("Map entity #3 (object dh.camera) 'thumbnailSize' edges must be whole pixels in [16, 4096], found ["),
            "{:?}",
            c.errors()
        );
    }
    check(r#"[ { "$type": "dh.camera", "role": "mapThumbnail", "thumbnailSize": [16, 4096] } ]"#)
        .clean();
    let c = check(r#"[ { "$type": "dh.camera", "role": "mapThumbnail" } ]"#);
    assert_eq!(camera(c.only()).thumbnail_size_or_default(), [512, 512]);
}

#[test]
fn camera_thumbnail_size_rejected_outside_the_role() {
    let c = check(r#"[ { "$type": "dh.camera", "thumbnailSize": [1024, 576] } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.camera) 'thumbnailSize' is rejected outside the \"mapThumbnail\" role"]
    );
}

#[test]
fn camera_claims_thumbnail_for_the_map_wide_count() {
    let c = check(
        r#"[ { "$type": "dh.camera", "role": "mapThumbnail", "autoCapture": false, "aspect": "16:9" } ]"#,
    );
    c.clean(); // aspect is unread under the role, not refused
    let cam = camera(c.only());
    assert!(cam.claims_thumbnail());
    assert!(!cam.auto_capture_or_default());
    let c = check(r#"[ { "$type": "dh.camera", "role": "none" } ]"#);
    assert!(!camera(c.only()).claims_thumbnail());
}

// ---- dh.lightProbeVolume ----------------------------------------------------------------

#[test]
fn probe_volume_rotation_stays_zero() {
    let text = r#"{ "$type": "object", "id": "5f2f8a10-0f0e-4a45-9a6a-2c9d1c3f9b41", "name": "atrium",
  "position": [0, 6, -40], "rotation": [0, 30, 0], "scale": [48, 12, 64],
  "components": [ { "$type": "dh.lightProbeVolume", "probeSpacing": 2 } ] }"#;
    let c = check_record(text, base(7, "object"));
    assert_eq!(
        c.lines(),
        vec!["maps/test.dh-map:2:40: error: objects[3]: Map entity #7 (object dh.lightProbeVolume) 'rotation' must stay [0, 0, 0], found [0, 30, 0]: probes land on an axis-aligned lattice, so a turned box would bake somewhere other than where it is drawn"]
    );
}

#[test]
fn probe_volume_spacing_in_0_1_to_64() {
    for bad in ["0.05", "64.5", "0"] {
        let c = check(&format!(
            r#"[ {{ "$type": "dh.lightProbeVolume", "probeSpacing": {bad} }} ]"#
        ));
        assert_eq!(
            c.errors(),
            vec![format!(
                "Map entity #3 (object dh.lightProbeVolume) 'probeSpacing' must be in 0.1–64 meters, found {}",
                bad.parse::<f64>().unwrap()
            )]
        );
    }
    check(r#"[ { "$type": "dh.lightProbeVolume", "probeSpacing": 0.1 } ]"#).clean();
    check(r#"[ { "$type": "dh.lightProbeVolume", "probeSpacing": 64 } ]"#).clean();
}

#[test]
fn probe_volume_scale_positive() {
    let text = r#"{ "$type": "object", "id": "5f2f8a10-0f0e-4a45-9a6a-2c9d1c3f9b41", "name": "atrium",
  "scale": [48, -12, 64], "components": [ { "$type": "dh.lightProbeVolume" } ] }"#;
    let c = check_record(text, base(7, "object"));
    assert_eq!(
        c.errors(),
        vec!["Map entity #7 (object dh.lightProbeVolume) 'scale' is the box's full extents in meters and must be positive on every axis, found [48, -12, 64]"]
    );
}

#[test]
fn probe_volume_bake_zone_must_be_declared() {
    let c = check(r#"[ { "$type": "dh.lightProbeVolume", "bakeZone": "room" } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.lightProbeVolume) 'bakeZone' names bake zone 'room', which lighting.bakeZones lacks; the map's lighting.bakeZones defines none"]
    );
}

fn many(ty: &str, n: usize) -> Vec<MapComponent> {
    (0..n)
        .map(|_| {
            let text = if ty == "dh.lightProbeGroup" {
                r#"{ "$type": "dh.lightProbeGroup", "probes": "maps/a.dh-probegroup" }"#.to_string()
            } else {
                format!(r#"{{ "$type": "{ty}" }}"#)
            };
            read_one(&text, Mode::Build).0.unwrap()
        })
        .collect()
}

fn map_probe_messages(comps: &[MapComponent]) -> Vec<String> {
    let file = SourceFile::new("maps/test.dh-map", "{}");
    let mut d = Diagnostics::new();
    check_map_probes(&mut Cx::new(&file, &mut d, Mode::Build), comps);
    messages(&d)
}

#[test]
fn probe_boxes_at_most_32() {
    assert!(map_probe_messages(&many("dh.lightProbeVolume", 32)).is_empty());
    assert_eq!(
        map_probe_messages(&many("dh.lightProbeVolume", 33)),
        vec!["at most 32 light probe boxes a map (volumes and the group together); this is number 33. Merge neighbors into one larger box"]
    );
    // The group shares the cap.
    let mut comps = many("dh.lightProbeVolume", 32);
    comps.extend(many("dh.lightProbeGroup", 1));
    assert_eq!(
        map_probe_messages(&comps),
        vec!["at most 32 light probe boxes a map (volumes and the group together); this is number 33"]
    );
}

// ---- dh.lightProbeGroup -----------------------------------------------------------------

#[test]
fn probe_group_one_a_map() {
    assert_eq!(
        map_probe_messages(&many("dh.lightProbeGroup", 2)),
        vec!["one 'dh.lightProbeGroup' a map: this is a second"]
    );
}

#[test]
fn probe_group_translation_only() {
    let text = r#"{ "$type": "object", "id": "8a1c1b52-6c47-4d0e-a3f5-0b5b7c0f1e21", "name": "sourceAmbient",
  "position": [0, 10, 0], "rotation": [0, 90, 0], "scale": [2, 2, 2],
  "components": [ { "$type": "dh.lightProbeGroup", "probes": "maps/gm_flatgrass.dh-probegroup" } ] }"#;
    let c = check_record(text, base(8, "object"));
    assert_eq!(
        c.errors(),
        vec![
            "Map entity #8 (object dh.lightProbeGroup) is placed by a translation only; 'rotation' must be [0, 0, 0], found [0, 90, 0]: the probes belong to the geometry they were lit in",
            "Map entity #8 (object dh.lightProbeGroup) is placed by a translation only; 'scale' must be [1, 1, 1], found [2, 2, 2]: the probes belong to the geometry they were lit in",
        ]
    );
}

#[test]
fn probe_group_needs_its_file_and_contents_token() {
    let c = check(r#"[ { "$type": "dh.lightProbeGroup", "contents": "direct" } ]"#);
    assert_eq!(
        c.errors(),
        vec![
            "dh.lightProbeGroup is missing its required member 'probes'",
            "'direct' is not a valid probe group contents; expected one of: indirect, full",
        ]
    );
}

#[test]
fn probe_group_bake_true_is_not_built_yet() {
    let c = check(
        r#"[ { "$type": "dh.lightProbeGroup", "probes": "maps/a.dh-probegroup", "bake": true } ]"#,
    );
    assert!(c.errors().is_empty());
    assert_eq!(
        c.warnings(),
        vec!["Map entity #3 (object dh.lightProbeGroup) 'bake': true is not built yet: the group keeps the light its file carries"]
    );
}

// ---- dh.reflectionProbe -----------------------------------------------------------------

#[test]
fn reflection_probe_resolutions() {
    for good in [64, 128, 256, 512] {
        check(&format!(
            r#"[ {{ "$type": "dh.reflectionProbe", "resolution": {good} }} ]"#
        ))
        .clean();
    }
    let c = check(r#"[ { "$type": "dh.reflectionProbe", "resolution": 1024 } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.reflectionProbe) 'resolution' must be one of 64, 128, 256, 512, found 1024"]
    );
}

#[test]
fn reflection_probe_blend_distance_0_to_64() {
    let c = check(r#"[ { "$type": "dh.reflectionProbe", "blendDistance": 65 } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.reflectionProbe) 'blendDistance' must be in 0–64 meters, found 65"]
    );
    check(r#"[ { "$type": "dh.reflectionProbe", "blendDistance": 0 } ]"#).clean();
}

#[test]
fn reflection_probe_point_takes_no_box_projection() {
    let c = check(
        r#"[ { "$type": "dh.reflectionProbe", "projection": "none", "boxProjection": true } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.reflectionProbe) takes no 'boxProjection' under \"projection\": \"none\": a point probe has no box and reflects along the plain mirror direction"]
    );
}

#[test]
fn reflection_probe_box_scale_positive() {
    let text = r#"{ "$type": "object", "id": "d2b71f08-64ac-4e15-9b30-8c5f1a7e6d30", "name": "atrium",
  "scale": [12, 0, 12], "components": [ { "$type": "dh.reflectionProbe" } ] }"#;
    let c = check_record(text, base(9, "object"));
    assert_eq!(
        c.errors(),
        vec!["Map entity #9 (object dh.reflectionProbe) 'scale' is the box's full extents in meters and must be positive on every axis, found [12, 0, 12]"]
    );
}

#[test]
fn reflection_probes_at_most_1024() {
    assert!(map_probe_messages(&many("dh.reflectionProbe", 1024)).is_empty());
    assert_eq!(
        map_probe_messages(&many("dh.reflectionProbe", 1025)),
        vec!["at most 1024 reflection probes a map; this is number 1025"]
    );
}

// ---- dh.light ---------------------------------------------------------------------------

#[test]
fn light_color_at_most_1() {
    let c = check(r#"[ { "$type": "dh.light", "color": [1.2, 0.5, 0.5] } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.light) 'color' must be sRGB face values in [0, 1], found [1.2, 0.5, 0.5]: 1 already is white, so brightness belongs in 'intensity'"]
    );
    let c = check(r#"[ { "$type": "dh.light", "color": [1, -0.1, 0] } ]"#);
    assert_eq!(c.errors().len(), 1);
}

#[test]
fn light_outer_cone_exceeds_inner() {
    let c = check(
        r#"[ { "$type": "dh.light", "light": "spot", "innerConeDegrees": 40, "outerConeDegrees": 40 } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.light) 'outerConeDegrees' (40) must exceed 'innerConeDegrees' (40)"]
    );
    // Against the default outer cone of 45.
    let c = check(r#"[ { "$type": "dh.light", "light": "spot", "innerConeDegrees": 50 } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.light) 'outerConeDegrees' (45) must exceed 'innerConeDegrees' (50)"]
    );
}

#[test]
fn light_baked_needs_an_enabled_lightmap() {
    let c = check(r#"[ { "$type": "dh.light", "mode": "baked" } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.light) 'mode' \"baked\" needs an enabled lighting.lightmap block: without one the light would vanish from the map; enable the lightmap or use \"realtime\" or \"mixed\""]
    );
    let mut ccx = base(3, "object");
    ccx.lightmap_enabled = true;
    check_record(
        &object(r#"[ { "$type": "dh.light", "mode": "baked" } ]"#),
        ccx,
    )
    .clean();
    // "A mixed light needs no lightmap."
    check(r#"[ { "$type": "dh.light", "mode": "mixed" } ]"#).clean();
}

#[test]
fn light_unknown_tokens_are_listed() {
    let c = check(
        r#"[ { "$type": "dh.light", "light": "area", "falloff": "linear", "mode": "static" } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec![
            "'area' is not a valid light kind; expected one of: point, spot, directional, none",
            "'linear' is not a valid light falloff; expected one of: physical, unity",
            "'static' is not a valid light mode; expected one of: realtime, baked, mixed",
        ]
    );
}

#[test]
fn light_shadow_samples_at_most_64() {
    let c = check(r#"[ { "$type": "dh.light", "shadowSamples": 65 } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.light) 'shadowSamples' must be at most 64, found 65"]
    );
    check(r#"[ { "$type": "dh.light", "shadowSamples": 64 } ]"#).clean();
}

#[test]
fn light_material_off_names_a_slot() {
    let c = check(
        r#"[ { "$type": "dh.box", "material": "lampOn" }, { "$type": "dh.light", "materialOff": "lampDark" } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.light) 'materialOff' names 'lampDark', which is not one of the map's material slots; the slots are: grid, orange, crate, lampOn, lampOff, button, door, plate"]
    );
}

#[test]
fn light_start_on_defaults_by_fixture() {
    let c = check(r#"[ { "$type": "dh.light" } ]"#);
    let MapComponent::Light(l) = c.only() else {
        panic!()
    };
    assert!(l.starts_on(false), "a bare emitter starts on");
    assert!(!l.starts_on(true), "a fixture starts off");
}

#[test]
fn light_console_tokens_name_members() {
    assert_eq!(
        LightTuning::TOKENS,
        &[
            "color",
            "intensity",
            "range",
            "falloff",
            "innerCone",
            "outerCone",
            "mode",
            "kind"
        ]
    );
    assert_eq!(LightTuning::InnerCone.member(), "innerConeDegrees");
    assert_eq!(LightTuning::Kind.member(), "light");
}

// ---- dh.voxelVolume ---------------------------------------------------------------------

#[test]
fn voxel_volume_lighting_modes() {
    for good in ["dh", "hybrid", "minecraft"] {
        check(&format!(
            r#"[ {{ "$type": "dh.voxelVolume", "volume": "/voxels/a.dh-vox", "lighting": "{good}" }} ]"#
        ))
        .clean();
    }
    // "An unknown mode is a compile error naming the three."
    let c = check(
        r#"[ { "$type": "dh.voxelVolume", "volume": "/voxels/a.dh-vox", "lighting": "vanilla" } ]"#,
    );
    assert_eq!(
        c.errors(),
        vec![
            "'vanilla' is not a valid voxel lighting mode; expected one of: dh, hybrid, minecraft"
        ]
    );
}

#[test]
fn voxel_volume_must_be_a_dh_voxel() {
    let c = check(r#"[ { "$type": "dh.voxelVolume", "volume": "/objects/crate.dh-obj" } ]"#);
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.voxelVolume) 'volume' must be a dh.voxel container (a .dh-vox file), found '/objects/crate.dh-obj'"]
    );
    let c = check(r#"[ { "$type": "dh.voxelVolume" } ]"#);
    assert_eq!(
        c.errors(),
        vec!["dh.voxelVolume is missing its required member 'volume'"]
    );
}

#[test]
fn voxel_volume_grid_keys_name_or_index() {
    check(
        r##"[ { "$type": "dh.voxelVolume", "volume": "/voxels/a.dh-vox", "delta": { "grids": { "#2": false, "minecraft:the_end": true } } } ]"##,
    )
    .clean();
    let c = check(
        r##"[ { "$type": "dh.voxelVolume", "volume": "/voxels/a.dh-vox", "delta": { "grids": { "#two": false } } } ]"##,
    );
    assert_eq!(
        c.errors(),
        vec!["Map entity #3 (object dh.voxelVolume) delta.grids key '#two' must be a grid's name or '#<index>' (a whole number such as '#2')"]
    );
    let c = check(
        r#"[ { "$type": "dh.voxelVolume", "volume": "/voxels/a.dh-vox", "delta": { "grids": { "nether": 1 } } } ]"#,
    );
    assert_eq!(c.errors(), vec!["expected true or false, found a number"]);
}

// ---- every diagnostic names the place -------------------------------------------------

#[test]
fn rule_errors_point_at_the_member() {
    let c = check(r#"[ { "$type": "dh.camera", "fov": 200 } ]"#);
    assert_eq!(
        c.lines(),
        vec!["maps/test.dh-map:2:50: error: objects[3].components[0]: Map entity #3 (object dh.camera) 'fov' must be in (0, 179], found 200"]
    );
}

#[test]
fn example_logic_entities_boxes_and_colliders() {
    // The boxes and colliders of the logic examples (the logic components are the logic
    // engineer's): doorButton, slidingDoor, booth, liftPlatform and liftPlate, verbatim.
    let door_button = r#"{ "$type": "object", "id": "abf7be4d-39ee-446d-b516-d75f5e630959", "name": "doorButton", "position": [-3, 1, 3],
  "components": [ { "$type": "dh.box", "size": [0.5, 0.5, 0.3], "material": "button" }, { "$type": "dh.button" } ],
  "connections": [
    { "output": "onPressed", "actions": [ { "call": { "target": "slidingDoor", "input": "toggle" } } ] }
  ]
}"#;
    let sliding_door = r#"{ "$type": "object", "id": "83b16719-721a-41b9-a6da-95ffa14c09c8", "name": "slidingDoor", "position": [-3, 1, 7],
  "components": [ { "$type": "dh.box", "size": [2, 2, 0.3], "material": "door" },
                  { "$type": "dh.mover", "direction": [0, 1, 0], "distance": 2.2, "duration": 1.2 } ] }"#;
    let booth = r#"{ "$type": "object", "id": "c0a5a1de-4f2b-4c0e-8e54-1d1b0b7f9a10", "name": "booth", "position": [0, 1, 0],
  "components": [
    { "$type": "dh.collider", "state": "trigger", "shapes": [ { "type": "box", "halfExtents": [1, 1, 1] } ] },
    { "$type": "dh.trigger" },
    { "$type": "dh.teleport", "destination": "boothExit", "velocity": "zero" } ],
  "connections": [
    { "output": "onStartTouch", "actions": [ { "call": { "target": "booth", "input": "teleport" } } ] } ] }"#;
    let lift_platform = r#"{ "$type": "object", "id": "d620412a-45f8-4552-a3bb-f26ed646a774", "name": "liftPlatform", "position": [4, 0.1, -9],
  "components": [ { "$type": "dh.box", "size": [3, 0.2, 3], "material": "door" },
                  { "$type": "dh.mover", "direction": [0, 1, 0], "distance": 2.5, "duration": 2.5 } ] }"#;
    let lift_plate = r#"{ "$type": "object", "id": "5d3ee3d8-df8d-4499-9c58-8203745e3cdf", "name": "liftPlate",
  "parent": "d620412a-45f8-4552-a3bb-f26ed646a774", "position": [4, 0.25, -9],
  "components": [ { "$type": "dh.box", "size": [1.4, 0.1, 1.4], "material": "plate" }, { "$type": "dh.pressurePlate" } ],
  "connections": [
    { "output": "onStartTouch", "actions": [ { "call": { "target": "liftPlatform", "input": "open" } } ] },
    { "output": "onEndTouch", "actions": [ { "call": { "target": "liftPlatform", "input": "close" } } ] }
  ] }"#;
    for (text, material) in [
        (door_button, "button"),
        (sliding_door, "door"),
        (lift_platform, "door"),
        (lift_plate, "plate"),
    ] {
        let c = check_record_at(text, base(1, "object"), Some(0));
        c.clean();
        let MapComponent::Box(b) = c.only() else {
            panic!("not a box")
        };
        assert_eq!(b.material.as_deref(), Some(material));
    }
    let c = check_record_at(booth, base(1, "object"), Some(0));
    c.clean();
    let MapComponent::Collider(col) = c.only() else {
        panic!("not a collider")
    };
    assert_eq!(col.state_or_default(), ColliderState::Trigger);
}

#[test]
fn an_off_collider_remembers_that_it_was_a_trigger() {
    // 000, "Collider, static and enabled": wasTrigger exists only to give "off"
    // somewhere to remember what to restore.
    let c = check(
        r#"[ { "$type": "dh.collider", "state": "off", "wasTrigger": true, "shapes": [] } ]"#,
    );
    c.clean();
    assert_eq!(
        c.only().to_json().to_json(),
        r#"{"$type":"dh.collider","state":"off","shapes":[],"wasTrigger":true}"#
    );
    // Beside "solid" or "trigger" it would be redundant, or disagree: refused.
    for state in ["solid", "trigger"] {
        let c = check(&format!(
            r#"[ {{ "$type": "dh.collider", "state": "{state}", "wasTrigger": false, "shapes": [] }} ]"#
        ));
        assert_eq!(
            c.errors(),
            [format!("Map entity #3 (object dh.collider) 'wasTrigger' is only for \"state\": \"off\" (it remembers what turning the collider back on restores); \"{state}\" already says its own trigger-ness")],
        );
    }
    // No state is "solid".
    let c = check(r#"[ { "$type": "dh.collider", "wasTrigger": true, "shapes": [] } ]"#);
    assert_eq!(c.errors().len(), 1, "{:?}", c.errors());
}
