//! dh.map records (folder, object, instance, boxBrush), connections, part overrides and
//! the map-wide rules of `schema::map_rules`: every spec example parses as written, each
//! "Wrong" example fails as the spec says, and one test per rule asserts its message.

use dh_content::diag::{Diagnostics, SourceFile};
use dh_content::jsonc::Value;
use dh_content::read::{parse_source, Cx, FromJson, Mode, ToJson};
use dh_content::schema::common::{Guid, Vec3};
use dh_content::schema::components::MapComponent;
use dh_content::schema::map_rules::{validate_records, BakeZoneInfo, MapInfo};
use dh_content::schema::records::{
    Action, CallValue, Connection, Part, PartOverride, Record, ScaleValue, SourceKind,
};

// ---- Helpers ------------------------------------------------------------------------------

fn parse(file: &SourceFile, d: &mut Diagnostics) -> Value {
    match parse_source(file, d) {
        Some(v) => v,
        None => panic!("syntax error: {d}"),
    }
}

/// Reads `text` (a JSON array of records) as a map's `objects` in `mode`.
fn read_records_in(text: &str, mode: Mode) -> (Vec<Record>, Diagnostics) {
    let file = SourceFile::new("maps/t.dh-map", text);
    let mut d = Diagnostics::new();
    let v = parse(&file, &mut d);
    let records = {
        let mut cx = Cx::new(&file, &mut d, mode);
        cx.at_key("objects", |cx| Vec::<Record>::from_json(cx, &v))
            .unwrap_or_default()
    };
    (records, d)
}

fn read_records(text: &str) -> (Vec<Record>, Diagnostics) {
    read_records_in(text, Mode::Build)
}

/// Reads `text` (an object holding `member`) and returns the member's records.
fn read_member_records(text: &str, member: &str) -> (Vec<Record>, Diagnostics) {
    let file = SourceFile::new("maps/t.dh-map", text);
    let mut d = Diagnostics::new();
    let v = parse(&file, &mut d);
    let records = {
        let mut cx = Cx::new(&file, &mut d, Mode::Build);
        let list = v.get(member).expect("the member is there");
        cx.at_key(member, |cx| Vec::<Record>::from_json(cx, list))
            .unwrap_or_default()
    };
    (records, d)
}

/// Reads and validates `text` (a JSON array of records) against `info`.
fn check_with(text: &str, info: &MapInfo) -> Diagnostics {
    let file = SourceFile::new("maps/t.dh-map", text);
    let mut d = Diagnostics::new();
    let v = parse(&file, &mut d);
    let mut cx = Cx::new(&file, &mut d, Mode::Build);
    let records = cx
        .at_key("objects", |cx| Vec::<Record>::from_json(cx, &v))
        .unwrap_or_default();
    validate_records(&mut cx, &records, info);
    d
}

fn check(text: &str) -> Diagnostics {
    check_with(text, &info())
}

fn read_one<T: FromJson>(text: &str, mode: Mode) -> (Option<T>, Diagnostics) {
    let file = SourceFile::new("maps/t.dh-map", text);
    let mut d = Diagnostics::new();
    let v = parse(&file, &mut d);
    let r = {
        let mut cx = Cx::new(&file, &mut d, mode);
        T::from_json(&mut cx, &v)
    };
    (r, d)
}

fn info() -> MapInfo {
    MapInfo {
        material_slots: [
            "grid", "orange", "button", "door", "plate", "crate", "lampOn", "lampOff",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        lightmap_enabled: true,
        bake_zones: vec![
            BakeZoneInfo {
                id: "room".into(),
                sets: vec!["red".into()],
            },
            BakeZoneInfo {
                id: "underground".into(),
                sets: vec![],
            },
        ],
        source_root_components: vec![],
        ..MapInfo::default()
    }
}

fn messages(d: &Diagnostics) -> Vec<String> {
    d.items.iter().map(|x| x.message.clone()).collect()
}

fn lines(d: &Diagnostics) -> Vec<String> {
    d.items.iter().map(|x| x.to_string()).collect()
}

#[track_caller]
fn assert_clean(d: &Diagnostics) {
    assert!(d.items.is_empty(), "expected no diagnostics, got:\n{d}");
}

/// Asserts exactly one diagnostic whose message contains `needle`, and returns it.
#[track_caller]
fn assert_one(d: &Diagnostics, needle: &str) -> String {
    let hits: Vec<String> = d
        .items
        .iter()
        .filter(|x| x.message.contains(needle))
        .map(|x| x.to_string())
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "wanted one diagnostic containing {needle:?}, got:\n{d}"
    );
    hits[0].clone()
}

/// The diagnostics other than the placeholder ids (`"…"`) the spec's fragments write.
fn without_placeholder_ids(d: &Diagnostics) -> Vec<String> {
    d.items
        .iter()
        .filter(|x| !x.message.starts_with("'…' is not a GUID"))
        .map(|x| x.to_string())
        .collect()
}

const ID_A: &str = "3c5a0b7e-6d21-4f9a-8e14-7b2d9c1f4a60";
const ID_B: &str = "db71e214-0d00-4fde-b8e1-cd4ef06288bf";
const ID_C: &str = "10cd5fc6-fa9f-4faf-a968-6e159ccede2e";

// ---- The spec's examples ------------------------------------------------------------------

#[test]
fn spec_full_example_reads_and_validates() {
    let (records, d) = read_member_records(spec::FULL_EXAMPLE, "objects");
    assert_clean(&d);
    let kinds: Vec<&str> = records.iter().map(Record::kind).collect();
    assert_eq!(
        kinds,
        ["object", "instance", "object", "object", "boxBrush"]
    );
    // The brush is the object it stands for: its box first, then the generated collider.
    let Some(Record::BoxBrush(b)) = records.get(4) else {
        panic!("record 4 is a brush")
    };
    let tags: Vec<&str> = b.object.components.iter().map(|c| c.tag()).collect();
    assert_eq!(tags, ["dh.box", "dh.collider"]);
    assert_eq!(b.object.position, Some(Vec3([8.0, 0.75, 0.0])));
    assert_eq!(b.object.rotation, Some(Vec3([0.0, 30.0, 0.0])));

    let file = SourceFile::new("maps/debug-map.dh-map", spec::FULL_EXAMPLE);
    let mut d = Diagnostics::new();
    let v = parse(&file, &mut d);
    let mut cx = Cx::new(&file, &mut d, Mode::Build);
    let records = cx
        .at_key("objects", |cx| {
            Vec::<Record>::from_json(cx, v.get("objects").unwrap())
        })
        .unwrap();
    let info = MapInfo {
        material_slots: vec!["grid".into(), "orange".into()],
        ..MapInfo::default()
    };
    validate_records(&mut cx, &records, &info);
    assert_clean(&d);
}

#[test]
fn spec_wrong_yaw_is_a_build_error_naming_the_field_set() {
    let (_, d) = read_records(&format!("[{}]", spec::WRONG_YAW));
    let line = assert_one(&d, "'yaw'");
    assert_eq!(
        line,
        "maps/t.dh-map:1:57: error: objects[0]: unknown member 'yaw' in object record; the fields of object record are: id, name, parent, enabled, static, position, rotation, scale, connections, components"
    );
    // The only other complaint is the spec's placeholder id.
    assert_eq!(without_placeholder_ids(&d).len(), 1, "{d}");
}

#[test]
fn spec_right_yaw_reads_the_facing_from_rotation() {
    let (records, d) = read_records(&format!("[{}]", spec::RIGHT_YAW));
    assert!(without_placeholder_ids(&d).is_empty(), "{d}");
    assert_eq!(d.items.len(), 1, "only the placeholder id: {d}");
    let Some(Record::Object(o)) = records.first() else {
        panic!("an object")
    };
    assert_eq!(o.rotation, Some(Vec3([0.0, 90.0, 0.0])));
    assert!(matches!(
        o.components.first(),
        Some(MapComponent::SpawnPoint(_))
    ));
}

#[test]
fn spec_fragments_with_placeholder_ids_read() {
    for (name, text, member) in [
        (
            "collision object",
            format!("[{}]", spec::COLLISION_OBJECT),
            None,
        ),
        (
            "autoCollision map",
            spec::AUTO_COLLISION_MAP.to_string(),
            Some("objects"),
        ),
        ("hulls map", spec::HULLS_MAP.to_string(), Some("objects")),
        (
            "underground",
            format!("{{{}}}", spec::UNDERGROUND_OBJECTS),
            Some("objects"),
        ),
    ] {
        let (records, d) = match member {
            Some(m) => read_member_records(&text, m),
            None => read_records(&text),
        };
        assert!(without_placeholder_ids(&d).is_empty(), "{name}: {d}");
        assert!(!records.is_empty(), "{name}");
    }
}

#[test]
fn spec_record_examples_read_and_validate() {
    for (name, text) in [
        ("ledge", format!("[{}]", spec::LEDGE)),
        ("folder", format!("[{}]", spec::FOLDER)),
        ("stage", format!("[{}]", spec::STAGE)),
        ("spawn", format!("[{}]", spec::SPAWN)),
        ("skyline", format!("[{}]", spec::SKYLINE)),
        ("postcard", format!("[{}]", spec::POSTCARD)),
        ("door and button", format!("[{}]", spec::DOOR_AND_BUTTON)),
        ("lift", format!("[{}]", spec::LIFT)),
        ("crate", format!("[{}]", spec::CRATE)),
        ("placed crate", format!("[{}]", spec::PLACED_CRATE)),
        ("local crate", format!("[{}]", spec::LOCAL_CRATE)),
        ("lamp", format!("[{}]", spec::LAMP)),
    ] {
        let (_, d) = read_records(&text);
        assert_clean(&d);
        let d = check(&text);
        assert!(d.items.is_empty(), "{name}:\n{d}");
    }
}

#[test]
fn spec_examples_naming_records_they_do_not_show_read() {
    // These wire or name records outside the example (lobbyDoor, boothExit, a probe
    // bake, a reflection probe), so they are read here, not validated alone.
    for (name, text) in [
        ("lobbyPad", format!("[{}]", spec::LOBBY_PAD)),
        ("booth", format!("[{}]", spec::BOOTH)),
        ("bench", format!("[{}]", spec::BENCH)),
        ("village", format!("[{}]", spec::VILLAGE)),
        ("atrium volume", format!("[{}]", spec::ATRIUM_VOLUME)),
        ("source ambient", format!("[{}]", spec::SOURCE_AMBIENT)),
        (
            "atrium reflection",
            format!("[{}]", spec::ATRIUM_REFLECTION),
        ),
    ] {
        let (records, d) = read_records(&text);
        assert!(d.items.is_empty(), "{name}:\n{d}");
        assert_eq!(records.len(), 1, "{name}");
    }
}

#[test]
fn spec_model_instances_and_overrides_read_and_validate() {
    for text in [
        spec::PART_OVERRIDES,
        spec::WORLD_INSTANCE,
        spec::PLACING_MODELS,
    ] {
        let text = format!("{{{text}}}");
        let (records, d) = read_member_records(&text, "objects");
        assert_clean(&d);
        assert!(!records.is_empty());
    }
    let (records, _) = read_member_records(&format!("{{{}}}", spec::PART_OVERRIDES), "objects");
    let Some(Record::Instance(world)) = records.first() else {
        panic!("the world instance")
    };
    assert_eq!(world.source_kind(), Some(SourceKind::Model));
    assert_eq!(world.children.len(), 2);
    assert_eq!(world.children[0].scale, Some(ScaleValue::Uniform(2.0)));
    assert_eq!(world.children[0].rotation, Some(Vec3([0.0, 90.0, 0.0])));
    assert_eq!(world.children[1].removed, Some(true));
    assert_eq!(
        world.children[1].path.as_deref(),
        Some("buildings/block03/scaffold")
    );
    // Written back, the uniform scale stays one number.
    let back = records[0].to_json().to_json();
    assert!(back.contains(r#""scale":2"#), "{back}");
    // The placements validate as a whole map does.
    let file = SourceFile::new("m.dh-map", format!("{{{}}}", spec::PLACING_MODELS));
    let mut d = Diagnostics::new();
    let v = parse(&file, &mut d);
    let mut cx = Cx::new(&file, &mut d, Mode::Build);
    let records = cx
        .at_key("objects", |cx| {
            Vec::<Record>::from_json(cx, v.get("objects").unwrap())
        })
        .unwrap();
    validate_records(&mut cx, &records, &info());
    assert_clean(&d);
}

#[test]
fn spec_bake_override_reads_as_a_part_override() {
    let (p, d) = read_one::<PartOverride>(spec::BAKE_OVERRIDE, Mode::Build);
    assert_clean(&d);
    let p = p.unwrap();
    assert_eq!(
        p.path.as_deref(),
        Some("__Areas/__mltn_tower/__Underground_Facility")
    );
    assert!(matches!(p.components.first(), Some(MapComponent::Bake(_))));
}

#[test]
fn spec_connections_read() {
    let text = format!("{{{}}}", spec::CONNECTIONS);
    let file = SourceFile::new("t", text.as_str());
    let mut d = Diagnostics::new();
    let v = parse(&file, &mut d);
    let list = {
        let mut cx = Cx::new(&file, &mut d, Mode::Build);
        Vec::<Connection>::from_json(&mut cx, v.get("connections").unwrap()).unwrap()
    };
    assert_clean(&d);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].output, "onPressed");
    let kinds: Vec<&str> = list[0].actions.iter().map(Action::kind).collect();
    assert_eq!(kinds, ["call", "delay", "call"]);
    match &list[0].actions[1] {
        Action::Delay(delay) => assert_eq!(delay.seconds, 1.5),
        other => panic!("a delay, got {other:?}"),
    }
    // The probe volume's connection: a color value and a number value.
    let (c, d) = read_one::<Connection>(spec::PROBE_CONNECTION, Mode::Build);
    assert_clean(&d);
    let c = c.unwrap();
    match (&c.actions[0], &c.actions[1]) {
        (Action::Call(tint), Action::Call(intensity)) => {
            assert_eq!(tint.value, Some(CallValue::Color([1.0, 0.4, 0.4])));
            assert_eq!(intensity.value, Some(CallValue::Number(0.5)));
        }
        other => panic!("two calls, got {other:?}"),
    }
}

#[test]
fn spec_parts_table_is_recognized_in_compiled_output_and_refused_in_a_source() {
    let text = format!("{{{}}}", spec::PARTS_TABLE);
    let file = SourceFile::new("t", text.as_str());
    let mut d = Diagnostics::new();
    let v = parse(&file, &mut d);
    let parts = {
        let mut cx = Cx::new(&file, &mut d, Mode::Load);
        Vec::<Part>::from_json(&mut cx, v.get("parts").unwrap()).unwrap()
    };
    assert_clean(&d);
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[1].id, 412);
    assert_eq!(parts[1].structural, Some(true));
    assert!(parts[1].aabb.is_none());
    assert_eq!(
        parts[0].aabb.as_ref().map(|a| a.max),
        Some(Vec3([11.0, 2.0, -3.0]))
    );

    // The same table inside the world instance: read back in Load, refused in Build.
    let world = format!(
        r#"[{{ "$type": "instance", "id": "{ID_B}", "name": "world", "source": "/meshes/city.glb", {} }}]"#,
        spec::PARTS_TABLE
    );
    let (records, d) = read_records_in(&world, Mode::Load);
    assert_clean(&d);
    let Some(Record::Instance(w)) = records.first() else {
        panic!("instance")
    };
    assert_eq!(w.parts.len(), 2);
    let (_, d) = read_records_in(&world, Mode::Build);
    assert_eq!(
        messages(&d),
        ["'parts' is generated by the compiler, not authored: a parts list written in a source file is a build error"]
    );
}

// ---- Reading: records, actions, overrides --------------------------------------------------

#[test]
fn unknown_record_type_lists_the_record_types() {
    let (_, d) =
        read_records(r#"[{ "$type": "brush", "id": "3c5a0b7e-6d21-4f9a-8e14-7b2d9c1f4a60" }]"#);
    assert_eq!(
        lines(&d),
        ["maps/t.dh-map:1:13: error: objects[0]: 'brush' is not a valid record; expected one of: folder, object, instance, boxBrush"]
    );
    let (_, d) = read_records(r#"[{ "$type": "objectInstance" }]"#);
    assert_one(&d, "the old objectInstance type is not read");
    let (_, d) = read_records(r#"[{ "id": "3c5a0b7e-6d21-4f9a-8e14-7b2d9c1f4a60" }]"#);
    assert_eq!(
        messages(&d),
        ["a record needs a '$type' member; expected one of: folder, object, instance, boxBrush"]
    );
}

#[test]
fn a_folder_has_no_transform() {
    let (_, d) = read_records(&format!(
        r#"[{{ "$type": "folder", "id": "{ID_A}", "position": [0, 0, 0] }}]"#
    ));
    assert_eq!(
        messages(&d),
        ["unknown member 'position' in folder record; the fields of folder record are: id, name, parent, enabled, static"]
    );
}

#[test]
fn a_field_of_a_component_written_on_its_record_is_unknown_there() {
    let (_, d) = read_records(&format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "name": "cam", "fov": 60, "components": [ {{ "$type": "dh.camera" }} ] }}]"#
    ));
    assert_one(
        &d,
        "unknown member 'fov' in object record; the fields of object record are:",
    );
}

#[test]
fn transform_vectors_are_exactly_three_finite_numbers() {
    let (_, d) = read_records(&format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "position": [1, 2], "scale": [1, "x", 1] }}]"#
    ));
    assert_eq!(
        messages(&d),
        [
            "expected exactly three numbers, found 2 items",
            "expected exactly three numbers (finite), found a string"
        ]
    );
}

#[test]
fn actions_hold_exactly_one_wrapper_key() {
    let (_, d) = read_one::<Connection>(
        r#"{ "output": "onPressed", "actions": [ { "wait": { "seconds": 1 } }, {}, { "call": { "target": "a", "input": "b" }, "delay": { "seconds": 1 } } ] }"#,
        Mode::Build,
    );
    assert_eq!(
        messages(&d),
        [
            "'wait' is not a valid action; expected one of: call, delay, setBakeSet",
            "an action holds exactly one of: call, delay, setBakeSet; this one holds none",
            "an action holds exactly one of: call, delay, setBakeSet; this one holds 2 (call, delay)",
        ]
    );
}

#[test]
fn action_blocks_are_closed() {
    let (_, d) = read_one::<Connection>(
        r#"{ "output": "onPressed", "actions": [ { "call": { "target": "a", "input": "b", "args": 1 } }, { "delay": { "second": 1 } } ] }"#,
        Mode::Build,
    );
    assert_eq!(
        messages(&d),
        [
            "unknown member 'args' in call; the fields of call are: target, input, param, value",
            "delay is missing its required member 'seconds'",
            "unknown member 'second' in delay; the fields of delay are: seconds; did you mean `seconds`?",
        ]
    );
    assert_eq!(d.items[0].path, "actions[0].call");
}

#[test]
fn connection_entries_are_closed() {
    let (_, d) = read_one::<Connection>(r#"{ "output": "onPressed", "target": "x" }"#, Mode::Build);
    assert_eq!(
        messages(&d),
        ["unknown member 'target' in connection; the fields of connection are: output, actions"]
    );
}

#[test]
fn part_override_old_spellings_name_their_replacement() {
    let (_, d) = read_one::<PartOverride>(
        r#"{ "path": "a", "offset": [0, 1, 0], "rename": "b", "target": "c", "manifestHash": "d",
             "bakeEmission": {}, "lightmapScale": 2, "bakeZone": "z", "connections": [] }"#,
        Mode::Build,
    );
    assert_eq!(
        messages(&d),
        [
            "'offset' is not a part override field (the old dh.editNode spelling): it is 'position'",
            "'rename' is not a part override field (the old dh.editNode spelling): it is 'name'",
            "'target' is gone (the old dh.editNode spelling): a part is addressed by 'id' and 'path'",
            "'manifestHash' is gone (the old dh.editNode spelling): a part is addressed by 'id' and 'path'",
            "'bakeEmission' is not a part override field: it is 'emission' in the part's dh.bake",
            "'lightmapScale' is not a part override field: it is 'lightmapScale' in the part's dh.bake",
            "'bakeZone' is not a part override field: it is 'zone' in the part's dh.bake",
            "unknown member 'connections' in part override; the fields of part override are: id, path, name, position, rotation, scale, enabled, static, removed, parent, components",
        ]
    );
}

#[test]
fn instance_object_field_names_source() {
    let (_, d) = read_records(&format!(
        r#"[{{ "$type": "instance", "id": "{ID_A}", "source": "props/bench.dh-obj", "object": "props/bench.dh-obj" }}]"#
    ));
    assert_eq!(
        messages(&d),
        ["'object' is not read on an instance (the old objectInstance field): name what it places with 'source'"]
    );
}

#[test]
fn instance_source_kind_by_extension() {
    assert_eq!(
        SourceKind::of("props/bench.dh-obj"),
        Some(SourceKind::Object)
    );
    assert_eq!(
        SourceKind::of("core:objects/physicsCube.dh-obj"),
        Some(SourceKind::Object)
    );
    assert_eq!(
        SourceKind::of("avatars/a.DH-AVATAR"),
        Some(SourceKind::Object)
    );
    assert_eq!(SourceKind::of("/meshes/city.glb"), Some(SourceKind::Model));
    assert_eq!(SourceKind::of("meshes/robot.fbx"), Some(SourceKind::Model));
    assert_eq!(
        SourceKind::of("/meshes/de_ancient"),
        Some(SourceKind::Model)
    );
    assert_eq!(SourceKind::of("textures/a.png"), None);
    let d = check(&format!(
        r#"[{{ "$type": "instance", "id": "{ID_A}", "source": "textures/a.png" }}]"#
    ));
    assert_one(&d, "'textures/a.png' is not something an instance places");
}

#[test]
fn object_placement_children_take_the_objects_override_shape() {
    let (records, d) = read_records(&format!(
        r#"[{{ "$type": "instance", "id": "{ID_A}", "name": "bench", "source": "props/bench.dh-obj",
             "children": [ {{ "path": "Armature/Body", "parent": "", "first": true }} ] }}]"#
    ));
    assert_clean(&d);
    let Some(Record::Instance(i)) = records.first() else {
        panic!("instance")
    };
    assert!(i.children.is_empty());
    assert_eq!(i.object_children.len(), 1);
    assert!(records[0]
        .to_json()
        .to_json()
        .contains(r#""children":[{"path":"Armature/Body""#));
}

// ---- boxBrush sugar -----------------------------------------------------------------------

const BRUSH: &str = r#"{"$type":"boxBrush","id":"a320bba5-ffa1-40e3-a87b-c7aef971daed","position":[8,0.75,0],"rotation":[0,30,0],"size":[1.5,1.5,1.5],"material":"orange"}"#;

#[test]
fn box_brush_reads_as_an_object_with_its_box_and_a_generated_collider() {
    let (r, d) = read_one::<Record>(BRUSH, Mode::Build);
    assert_clean(&d);
    let Some(Record::BoxBrush(b)) = r else {
        panic!("a brush")
    };
    assert!(b.is_sugar());
    match b.object.components.as_slice() {
        [MapComponent::Box(bx), MapComponent::Collider(c)] => {
            assert_eq!(bx.size, Some(Vec3([1.5, 1.5, 1.5])));
            assert_eq!(bx.material.as_deref(), Some("orange"));
            assert!(c.is_generated());
            assert_eq!(
                MapComponent::Collider(c.clone()).to_json().to_json(),
                r#"{"$type":"dh.collider","material":"orange","shapes":[{"type":"box","halfExtents":[0.75,0.75,0.75]}],"generated":true}"#
            );
        }
        other => panic!("box then collider, got {other:?}"),
    }
}

#[test]
fn box_brush_writes_back_as_sugar() {
    let (r, _) = read_one::<Record>(BRUSH, Mode::Build);
    let r = r.unwrap();
    assert_eq!(r.to_json().to_json(), BRUSH);
    // An authored collider is kept and no collider is generated beside it.
    let with_collider = r#"{"$type":"boxBrush","id":"a320bba5-ffa1-40e3-a87b-c7aef971daed","size":[2,1,2],"material":"grid","components":[{"$type":"dh.collider","state":"trigger"}]}"#;
    let (r, d) = read_one::<Record>(with_collider, Mode::Build);
    assert_clean(&d);
    let r = r.unwrap();
    assert_eq!(r.components().len(), 2);
    assert_eq!(r.to_json().to_json(), with_collider);
}

#[test]
fn box_brush_without_its_box_writes_back_as_the_plain_object() {
    let (r, _) = read_one::<Record>(BRUSH, Mode::Build);
    let Some(Record::BoxBrush(mut b)) = r else {
        panic!("a brush")
    };
    b.object.components.remove(0);
    assert!(!b.is_sugar());
    assert_eq!(
        Record::BoxBrush(b).to_json().to_json(),
        r#"{"$type":"object","id":"a320bba5-ffa1-40e3-a87b-c7aef971daed","position":[8,0.75,0],"rotation":[0,30,0]}"#
    );
    // And an object written with a dh.box stays an object.
    let object = r#"{"$type":"object","id":"a320bba5-ffa1-40e3-a87b-c7aef971daed","components":[{"$type":"dh.box","size":[1,1,1],"material":"grid"}]}"#;
    let (r, _) = read_one::<Record>(object, Mode::Build);
    assert_eq!(r.unwrap().to_json().to_json(), object);
}

#[test]
fn box_brush_needs_its_material() {
    let d = check(&format!(r#"[{{ "$type": "boxBrush", "id": "{ID_A}" }}]"#));
    assert_eq!(
        lines(&d),
        ["maps/t.dh-map:1:2: error: objects[0]: Map entity #0 (boxBrush dh.box) 'material' is required: a key into the map's materials table"]
    );
}

#[test]
fn box_brush_size_is_the_boxes_and_points_at_the_brush() {
    let text = format!(
        "[\n{{ \"$type\": \"boxBrush\", \"id\": \"{ID_A}\",\n  \"size\": [1, 0, 1], \"material\": \"orange\" }}\n]"
    );
    let d = check(&text);
    assert_eq!(
        lines(&d),
        ["maps/t.dh-map:3:11: error: objects[0]: Map entity #0 (boxBrush dh.box) 'size' must be positive"]
    );
}

#[test]
fn box_brush_material_must_be_a_slot() {
    let d = check(&format!(
        r#"[{{ "$type": "boxBrush", "id": "{ID_A}", "material": "marble" }}]"#
    ));
    assert_one(&d, "Map entity #0 (boxBrush dh.box) 'material' names 'marble', which is not one of the map's material slots");
}

// ---- Ids and parents ----------------------------------------------------------------------

#[test]
fn missing_id_offers_a_fresh_guid() {
    let d = check("[\n  { \"$type\": \"object\", \"name\": \"a\" }\n]");
    assert_eq!(d.items.len(), 1, "{d}");
    let x = &d.items[0];
    assert_eq!((x.line, x.col), (2, 3));
    let prefix = "object record has no 'id': ids are authored, not generated; paste this freshly minted one: \"id\": \"";
    let rest = x
        .message
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{}", x.message));
    let guid = rest.strip_suffix('"').expect("quoted");
    let g = Guid::parse(guid).expect("a GUID to paste");
    assert!(!g.is_nil());
}

#[test]
fn all_zero_id_is_refused() {
    let d = check(r#"[{ "$type": "folder", "id": "00000000-0000-0000-0000-000000000000" }]"#);
    assert_one(
        &d,
        "'id' must not be the all-zeros Guid; paste this freshly minted one:",
    );
}

#[test]
fn duplicate_ids_are_refused() {
    let d = check(&format!(
        "[{{ \"$type\": \"folder\", \"id\": \"{ID_A}\" }},\n {{ \"$type\": \"object\", \"id\": \"{ID_A}\" }}]"
    ));
    assert_eq!(
        lines(&d),
        [format!("maps/t.dh-map:2:29: error: objects[1]: duplicate id {ID_A}: objects[0] already has it; a record's id must be unique within the map")]
    );
}

#[test]
fn parent_must_name_a_record_of_the_map() {
    let d = check(&format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "parent": "{ID_B}" }}]"#
    ));
    assert_eq!(
        messages(&d),
        [format!(
            "'parent' names {ID_B}, which is not the id of any record in the map"
        )]
    );
}

#[test]
fn a_record_is_not_its_own_parent() {
    let d = check(&format!(
        r#"[{{ "$type": "folder", "id": "{ID_A}", "parent": "{ID_A}" }}]"#
    ));
    assert_eq!(
        messages(&d),
        [format!(
            "a record cannot be its own parent: 'parent' names this record's own id {ID_A}"
        )]
    );
}

#[test]
fn a_parent_chain_may_not_loop() {
    let d = check(&format!(
        r#"[{{ "$type": "folder", "id": "{ID_A}", "parent": "{ID_C}" }},
            {{ "$type": "folder", "id": "{ID_B}", "parent": "{ID_A}" }},
            {{ "$type": "object", "id": "{ID_C}", "parent": "{ID_B}" }},
            {{ "$type": "object", "id": "f0000000-0000-4000-8000-0000000000aa", "parent": "{ID_C}" }}]"#
    ));
    assert_eq!(
        messages(&d),
        ["the parent chain loops: objects[0] → objects[2] → objects[1] → objects[0]"]
    );
    // A loop entered from a record outside it is reported once, from inside it.
    let d = check(&format!(
        r#"[{{ "$type": "folder", "id": "{ID_A}", "parent": "{ID_C}" }},
            {{ "$type": "folder", "id": "{ID_B}", "parent": "{ID_C}" }},
            {{ "$type": "folder", "id": "{ID_C}", "parent": "{ID_B}" }}]"#
    ));
    assert_eq!(
        messages(&d),
        ["the parent chain loops: objects[1] → objects[2] → objects[1]"]
    );
    assert_eq!(d.items[0].path, "objects[1]");
}

// ---- The transform ------------------------------------------------------------------------

#[test]
fn no_scale_axis_may_be_zero() {
    let d = check(&format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "scale": [1, 0, 1] }},
            {{ "$type": "instance", "id": "{ID_B}", "source": "/m.glb", "scale": [0, 1, 0] }}]"#
    ));
    assert_eq!(
        messages(&d),
        [
            "'scale' has a zero y axis: no axis may be zero, since a zero-scaled axis collapses the object and cannot be inverted",
            "'scale' has zero x and z axes: no axis may be zero, since a zero-scaled axis collapses the object and cannot be inverted",
        ]
    );
}

// ---- What an object carries ---------------------------------------------------------------

#[test]
fn one_presentation_component_per_object() {
    let d = check(&format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "name": "lampCam",
             "components": [ {{ "$type": "dh.light" }}, {{ "$type": "dh.camera" }} ] }}]"#
    ));
    let line = assert_one(&d, "carries both 'dh.light' and 'dh.camera'");
    assert!(line.ends_with("objects[0].components[1]: Map entity #0 carries both 'dh.light' and 'dh.camera': one presentation component per object, so the second goes on an object of its own"), "{line}");
}

#[test]
fn one_of_each_logic_type() {
    let d = check(&format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "name": "clock",
             "components": [ {{ "$type": "dh.timer" }}, {{ "$type": "dh.timer", "delaySeconds": 2 }} ] }}]"#
    ));
    assert_eq!(
        messages(&d),
        ["Map entity #0 carries more than one 'dh.timer': an owner holds one of each type"]
    );
}

#[test]
fn at_most_four_replicated_sections() {
    let d = check(&format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "name": "busy",
             "components": [ {{ "$type": "dh.box", "material": "grid" }}, {{ "$type": "dh.button" }},
               {{ "$type": "dh.mover" }}, {{ "$type": "dh.pressurePlate" }}, {{ "$type": "dh.light" }},
               {{ "$type": "dh.physicsProp" }} ] }}]"#
    ));
    assert_one(
        &d,
        "Map entity #0's components would replicate 5 sections (dh.button, dh.mover, dh.pressurePlate, dh.light, dh.physicsProp), more than four",
    );
}

#[test]
fn component_rules_run_with_the_records_context() {
    // The spec's own example message: entity #3, an object's box.
    let d = check(&format!(
        r#"[{{ "$type": "folder", "id": "{ID_A}" }}, {{ "$type": "folder", "id": "{ID_B}" }}, {{ "$type": "folder", "id": "{ID_C}" }},
            {{ "$type": "object", "id": "f0000000-0000-4000-8000-0000000000aa",
              "components": [ {{ "$type": "dh.box", "size": [1, -1, 1], "material": "grid" }} ] }}]"#
    ));
    assert_eq!(
        messages(&d),
        ["Map entity #3 (object dh.box) 'size' must be positive"]
    );
}

// ---- Names --------------------------------------------------------------------------------

#[test]
fn camera_names_are_unique_among_cameras() {
    let d = check(&format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "name": "skyline", "components": [ {{ "$type": "dh.camera" }} ] }},
            {{ "$type": "object", "id": "{ID_B}", "name": "skyline", "components": [ {{ "$type": "dh.camera" }} ] }},
            {{ "$type": "object", "id": "{ID_C}", "name": "skyline", "components": [ {{ "$type": "dh.timer" }} ] }}]"#
    ));
    assert_eq!(
        messages(&d),
        ["two cameras are named 'skyline' (objects[0] and objects[1]): a camera's name is its shot's name and must be unique among the map's cameras"]
    );
}

#[test]
fn one_map_thumbnail_per_map() {
    let d = check(&format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "name": "a", "components": [ {{ "$type": "dh.camera", "role": "mapThumbnail" }} ] }},
            {{ "$type": "object", "id": "{ID_B}", "name": "b", "components": [ {{ "$type": "dh.camera", "role": "mapThumbnail" }} ] }}]"#
    ));
    assert_eq!(
        messages(&d),
        ["a second camera claims \"role\": \"mapThumbnail\" (objects[0] already does): at most one camera per map may carry it"]
    );
}

#[test]
fn logic_entities_need_a_name() {
    let d = check(&format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "components": [ {{ "$type": "dh.timer" }} ] }}]"#
    ));
    assert_eq!(
        messages(&d),
        ["Map entity #0 carries 'dh.timer' and so is a logic entity, which needs a name: required and map-unique, since a connection targets one by name"]
    );
}

#[test]
fn logic_entity_names_are_map_unique() {
    let d = check(&format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "name": "t", "components": [ {{ "$type": "dh.timer" }} ] }},
            {{ "$type": "object", "id": "{ID_B}", "name": "t", "components": [ {{ "$type": "dh.mapStart" }} ] }},
            {{ "$type": "folder", "id": "{ID_C}", "name": "t" }}]"#
    ));
    assert_eq!(
        messages(&d),
        ["two logic entities are named 't' (objects[0] and objects[1]): a logic entity's name must be unique in the map, since a connection targets one by name"]
    );
}

// ---- Instances and part overrides ---------------------------------------------------------

#[test]
fn a_model_instance_takes_no_connections() {
    let d = check(&format!(
        r#"[{{ "$type": "instance", "id": "{ID_A}", "name": "world", "source": "/meshes/city.glb",
             "connections": [ {{ "output": "onPressed" }} ] }}]"#
    ));
    assert_eq!(
        messages(&d),
        ["a model instance's connections are refused: its parts are map geometry, not logic, so wire an object instead"]
    );
}

#[test]
fn a_model_instance_takes_no_root_components() {
    let d = check(&format!(
        r#"[{{ "$type": "instance", "id": "{ID_A}", "source": "/meshes/city.glb",
             "components": [ {{ "$type": "dh.box", "material": "grid" }} ] }}]"#
    ));
    assert_one(&d, "a model instance takes no components of its own");
}

#[test]
fn a_part_override_names_its_part() {
    let d = check(&format!(
        r#"[{{ "$type": "instance", "id": "{ID_A}", "source": "/meshes/city.glb", "children": [ {{ "removed": true }} ] }}]"#
    ));
    assert_eq!(
        lines(&d),
        ["maps/t.dh-map:1:115: error: objects[0].children[0]: a part override names its part by 'id' or by 'path': one of them is required"]
    );
}

#[test]
fn a_part_override_parent_is_a_folder_or_object_of_the_map() {
    let d = check(&format!(
        r#"[{{ "$type": "instance", "id": "{ID_A}", "source": "/meshes/city.glb", "children": [
              {{ "path": "a", "parent": "{ID_A}" }},
              {{ "path": "b", "parent": "{ID_C}" }},
              {{ "path": "c", "parent": "{ID_B}" }} ] }},
            {{ "$type": "instance", "id": "{ID_B}", "source": "/meshes/crate.glb" }}]"#
    ));
    assert_eq!(
        messages(&d),
        [
            "'parent' names this override's own instance: a part is filed under another record of the map (a folder or an object)".to_string(),
            format!("'parent' names {ID_C}, which is not the id of any record in the map"),
            "'parent' names objects[1], an instance: a part is filed under a folder or an object".to_string(),
        ]
    );
}

#[test]
fn a_part_override_carries_only_a_collider_and_a_bake() {
    let d = check(&format!(
        r#"[{{ "$type": "instance", "id": "{ID_A}", "source": "/meshes/city.glb", "children": [
              {{ "path": "a", "components": [ {{ "$type": "dh.light" }}, {{ "$type": "dh.collider" }}, {{ "$type": "dh.collider" }} ] }} ] }}]"#
    ));
    assert_eq!(
        messages(&d),
        [
            "a part override takes only a 'dh.collider' and a 'dh.bake'; 'dh.light' is not one of them",
            "a part override carries more than one 'dh.collider': it takes one of each",
        ]
    );
}

#[test]
fn a_placements_reflection_probe_names_exactly_one_probe() {
    let bench = format!(
        r#"{{ "$type": "instance", "id": "{ID_A}", "name": "bench", "source": "props/bench.dh-obj",
             "components": [ {{ "$type": "dh.renderer", "reflectionProbe": "cubemap14" }} ] }}"#
    );
    let probe = format!(
        r#"{{ "$type": "object", "id": "{ID_B}", "name": "cubemap14", "scale": [4, 4, 4],
             "components": [ {{ "$type": "dh.reflectionProbe" }} ] }}"#
    );
    assert_clean(&check(&format!("[{bench}, {probe}]")));
    let d = check(&format!("[{bench}]"));
    assert_eq!(
        messages(&d),
        ["'reflectionProbe' names 'cubemap14', which is not exactly one probe of the map: 0 objects of that name carry a 'dh.reflectionProbe'"]
    );
}

// ---- Wiring -------------------------------------------------------------------------------

/// A button wired by `actions` (a JSON list), beside the records in `others`.
fn wired(output: &str, actions: &str, others: &str) -> String {
    format!(
        r#"[{{ "$type": "object", "id": "{ID_A}", "name": "btn",
             "components": [ {{ "$type": "dh.box", "material": "button" }}, {{ "$type": "dh.button" }} ],
             "connections": [ {{ "output": "{output}", "actions": {actions} }} ] }}{others}]"#
    )
}

const DOOR: &str = r#", { "$type": "object", "id": "db71e214-0d00-4fde-b8e1-cd4ef06288bf", "name": "door",
    "components": [ { "$type": "dh.box", "material": "door" }, { "$type": "dh.mover" }, { "$type": "dh.light" } ] }"#;
const GATES: &str = r#", { "$type": "object", "id": "db71e214-0d00-4fde-b8e1-cd4ef06288bf", "name": "gates",
    "components": [ { "$type": "dh.andGate" }, { "$type": "dh.orGate" } ],
    "connections": [ { "output": "onTrue", "actions": [] }, { "output": "orGate.onTrue", "actions": [] } ] }"#;
const PROBES: &str = r#", { "$type": "object", "id": "db71e214-0d00-4fde-b8e1-cd4ef06288bf", "name": "roomProbes",
    "scale": [4, 4, 4], "components": [ { "$type": "dh.lightProbeVolume" } ] }"#;

#[test]
fn wiring_accepts_a_valid_wire() {
    let d = check(&wired(
        "onPressed",
        r#"[ { "call": { "target": "door", "input": "toggle" } }, { "delay": { "seconds": 1 } },
             { "call": { "target": "door", "input": "mover.open" } },
             { "setBakeSet": { "zone": "room", "set": "red", "fade": 0.5 } },
             { "setBakeSet": { "zone": "room", "set": "default" } } ]"#,
        DOOR,
    ));
    assert_clean(&d);
}

#[test]
fn wiring_target_must_exist() {
    let d = check(&wired(
        "onPressed",
        r#"[ { "call": { "target": "mainDoor", "input": "open" } } ]"#,
        "",
    ));
    assert_eq!(
        lines(&d),
        ["maps/t.dh-map:3:91: error: objects[0].connections[0].actions[0].call: call target 'mainDoor' names no entity in the map: a call targets a logic entity by its map-unique name"]
    );
}

#[test]
fn wiring_input_must_be_declared_by_the_target() {
    let d = check(&wired(
        "onPressed",
        r#"[ { "call": { "target": "door", "input": "fire" } } ]"#,
        DOOR,
    ));
    assert_eq!(
        messages(&d),
        ["call to 'door': input 'fire' is not declared by any component of the target (it carries dh.box, dh.mover, dh.light); its inputs are: open, close, toggle, turnOn, turnOff; 'fire' is taken by 'dh.timer', which the target does not carry"]
    );
}

#[test]
fn wiring_qualified_input_names_a_carried_component() {
    let d = check(&wired(
        "onPressed",
        r#"[ { "call": { "target": "door", "input": "trigger.enable" } } ]"#,
        DOOR,
    ));
    assert_one(&d, "call to 'door': input 'trigger.enable' names the component 'dh.trigger', which the target does not carry");
}

#[test]
fn wiring_plain_output_declared_twice_must_be_qualified() {
    let d = check(&wired("onPressed", "[]", GATES));
    assert_eq!(
        messages(&d),
        ["output 'onTrue' is declared by both 'dh.andGate' and 'dh.orGate' on this object. Qualify it with the component that fires it: 'andGate.onTrue' or 'orGate.onTrue'"]
    );
    assert_eq!(d.items[0].path, "objects[1].connections[0]");
}

#[test]
fn wiring_output_must_be_declared_by_the_object() {
    // A box whose collider is a trigger declares no output: the touch edges are a dh.trigger's.
    let d = check(&format!(
        r#"[{{ "$type": "boxBrush", "id": "{ID_A}", "material": "grid",
             "components": [ {{ "$type": "dh.collider", "state": "trigger" }} ],
             "connections": [ {{ "output": "onStartTouch", "actions": [] }} ] }}]"#
    ));
    let line = assert_one(
        &d,
        "output 'onStartTouch' is not declared by any component of this object",
    );
    assert!(
        line.contains("'dh.pressurePlate' or 'dh.trigger'"),
        "{line}"
    );
}

#[test]
fn wiring_level_param_present_exactly_when_taken() {
    let gate = r#", { "$type": "object", "id": "db71e214-0d00-4fde-b8e1-cd4ef06288bf", "name": "and", "components": [ { "$type": "dh.andGate" } ] }"#;
    let d = check(&wired(
        "onPressed",
        r#"[ { "call": { "target": "and", "input": "setA" } }, { "call": { "target": "and", "input": "setB", "param": true } } ]"#,
        gate,
    ));
    assert_eq!(
        messages(&d),
        ["call to 'and': input 'setA' takes a level: the call needs a boolean 'param' (true or false)"]
    );
    let d = check(&wired(
        "onPressed",
        r#"[ { "call": { "target": "door", "input": "open", "param": true } } ]"#,
        DOOR,
    ));
    assert_eq!(
        messages(&d),
        ["call to 'door': input 'open' takes no 'param'; only an input that takes a level does"]
    );
}

#[test]
fn wiring_value_shapes() {
    let d = check(&wired(
        "onPressed",
        r#"[ { "call": { "target": "roomProbes", "input": "setTint", "value": 0.5 } },
             { "call": { "target": "roomProbes", "input": "setIntensity" } },
             { "call": { "target": "roomProbes", "input": "setTint", "value": [1, 2, 0] } },
             { "call": { "target": "roomProbes", "input": "setTint", "value": [1, 0.4, 0.4] } },
             { "call": { "target": "roomProbes", "input": "setIntensity", "value": 0.5 } } ]"#,
        PROBES,
    ));
    assert_eq!(
        messages(&d),
        [
            "call to 'roomProbes': input 'setTint' takes a color [r, g, b] as its 'value', not a number",
            "call to 'roomProbes': input 'setIntensity' takes a number: the call needs a 'value' that is one number",
            "call to 'roomProbes': input 'setTint' takes a color of three sRGB values in [0, 1]; its 'value' holds 2",
        ]
    );
}

#[test]
fn wiring_set_bake_set_names_a_declared_zone_and_set() {
    let d = check(&wired(
        "onPressed",
        r#"[ { "setBakeSet": { "zone": "attic", "set": "red" } }, { "setBakeSet": { "zone": "room", "set": "blue", "fade": -1 } } ]"#,
        "",
    ));
    assert_eq!(
        messages(&d),
        [
            "setBakeSet names bake zone 'attic', which the map does not declare; lighting.bakeZones declares: room, underground",
            "setBakeSet 'fade' must not be negative, found -1",
            "setBakeSet names set 'blue', which bake zone 'room' does not declare; its sets are: default, red",
        ]
    );
}

#[test]
fn wiring_delay_is_not_negative() {
    let d = check(&wired(
        "onPressed",
        r#"[ { "delay": { "seconds": -2 } } ]"#,
        "",
    ));
    assert_eq!(
        messages(&d),
        ["a delay's 'seconds' must not be negative, found -2"]
    );
}

#[test]
fn wiring_reaches_an_object_placement_through_its_resolved_source() {
    let text = format!(
        r#"[{{ "$type": "instance", "id": "{ID_A}", "name": "crateDoor", "source": "objects/door.dh-obj",
             "connections": [ {{ "output": "onOpened", "actions": [ {{ "call": {{ "target": "crateDoor", "input": "close" }} }} ] }} ] }}]"#
    );
    let mut with_source = info();
    with_source.source_root_components = vec![(
        "objects/door.dh-obj".to_string(),
        vec!["dh.box".to_string(), "dh.mover".to_string()],
    )];
    assert_clean(&check_with(&text, &with_source));
    // Unresolved, the placement declares nothing of its own.
    let d = check(&text);
    assert_one(
        &d,
        "output 'onOpened' is not declared by any component of this object",
    );
}

// ---- A broken map: every error of a build, not the first only ------------------------------

#[test]
fn broken_fixture_reports_every_error() {
    let text = include_str!("data/broken/records.dh-map");
    let file = SourceFile::new("broken/records.dh-map", text);
    let mut d = Diagnostics::new();
    let v = parse(&file, &mut d);
    let mut cx = Cx::new(&file, &mut d, Mode::Build);
    let records = cx
        .at_key("objects", |cx| {
            Vec::<Record>::from_json(cx, v.get("objects").unwrap())
        })
        .unwrap();
    validate_records(&mut cx, &records, &info());
    let got: Vec<String> = lines(&d);
    let want = [
        "broken/records.dh-map:4:72: error: objects[0]: unknown member 'yaw' in object record; the fields of object record are: id, name, parent, enabled, static, position, rotation, scale, connections, components",
        "broken/records.dh-map:6:48: error: objects[1]: duplicate id 3c5a0b7e-6d21-4f9a-8e14-7b2d9c1f4a60: objects[0] already has it; a record's id must be unique within the map",
        "broken/records.dh-map:8:81: error: objects[2]: 'scale' has a zero z axis: no axis may be zero, since a zero-scaled axis collapses the object and cannot be inverted",
        "broken/records.dh-map:10:36: error: objects[3].connections[0]: output 'onTrue' is declared by both 'dh.andGate' and 'dh.orGate' on this object. Qualify it with the component that fires it: 'andGate.onTrue' or 'orGate.onTrue'",
    ];
    assert_eq!(got, want, "\n{d}");
}

mod spec {
    //! The spec's record, connection and override examples, copied verbatim from
    //! `shared/spec/000_1186e4ffb96c4375.txt` (dh.map). Fragments that are a member or a
    //! list are read inside braces or brackets by the tests; their text is not changed.

    /// The Full Example (maps/debug-map.dh-map). (spec lines 90-110)
    pub const FULL_EXAMPLE: &str = r#"{
  "name": "Debug Map",
  "description": "A 32x32 m arena floor enclosed by 3 m walls, with a raised platform and a low step.",
  "materials": {
    "grid": "/materials/dev-grid.dh-mat",
    "orange": "/materials/dev-orange.dh-mat"
  },
  "objects": [
    { "$type": "object", "id": "3c5a0b7e-6d21-4f9a-8e14-7b2d9c1f4a60", "name": "collision", "components": [
      { "$type": "dh.collider", "shapes": [
        { "type": "box", "center": [0, -0.5, 0],    "halfExtents": [16.5, 0.5, 16.5] },
        { "type": "box", "center": [0, 1.5, -16.25], "halfExtents": [16.5, 1.5, 0.25] },
        { "type": "box", "center": [5, 0.5, 5],      "halfExtents": [2, 0.5, 2] }
      ] }
    ] },
    { "$type": "instance", "id": "db71e214-0d00-4fde-b8e1-cd4ef06288bf", "name": "world", "source": "/meshes/debug-map.glb" },
    { "$type": "object", "id": "10cd5fc6-fa9f-4faf-a968-6e159ccede2e", "position": [0, 0, 0],   "rotation": [0, 0, 0],  "components": [ { "$type": "dh.spawnPoint" } ] },
    { "$type": "object", "id": "9f417a74-9e0c-4fbc-8c41-4668d17fd49d", "position": [10, 0, 10], "rotation": [0, 45, 0], "components": [ { "$type": "dh.spawnPoint" } ] },
    { "$type": "boxBrush", "id": "a320bba5-ffa1-40e3-a87b-c7aef971daed", "position": [8, 0.75, 0], "size": [1.5, 1.5, 1.5], "rotation": [0, 30, 0], "material": "orange" }
  ]
}"#;

    /// Closed Field Sets: the Wrong example. (spec lines 34-34)
    pub const WRONG_YAW: &str = r#"{ "$type": "object", "id": "…", "position": [0, 0, 0], "yaw": 90, "components": [ { "$type": "dh.spawnPoint" } ] }"#;

    /// Closed Field Sets: the Right example. (spec lines 37-37)
    pub const RIGHT_YAW: &str = r#"{ "$type": "object", "id": "…", "position": [0, 0, 0], "rotation": [0, 90, 0], "components": [ { "$type": "dh.spawnPoint" } ] }"#;

    /// Colliders: an object carrying the collision. (spec lines 166-168)
    pub const COLLISION_OBJECT: &str = r#"{ "$type": "object", "id": "…", "name": "collision", "position": [0, 0, 0], "components": [
  { "$type": "dh.collider", "shapes": [ { "type": "box", "center": [0, -0.5, 0], "halfExtents": [500, 0.5, 500] } ] }
] }"#;

    /// Automatic collision: a map fragment with comments. (spec lines 189-197)
    pub const AUTO_COLLISION_MAP: &str = r#"{
  // autoCollision omitted — defaults to "mesh": the whole city is solid to its own triangles
  "objects": [
    { "$type": "instance", "id": "…", "name": "world", "source": "/meshes/city.glb" },
    { "$type": "object", "id": "…", "name": "ground", "components": [   // still installed, on top of the cooked mesh
      { "$type": "dh.collider", "shapes": [ { "type": "box", "center": [0, -0.5, 0], "halfExtents": [500, 0.5, 500] } ] }
    ] }
  ]
}"#;

    /// hullOptions: a map fragment. (spec lines 242-249)
    pub const HULLS_MAP: &str = r#"{
  "objects": [ { "$type": "instance", "id": "…", "name": "world", "source": "/meshes/city.glb" } ],
  "autoCollision": "hulls",
  "hullOptions": {
    "maxConvexHulls": 32,       // fewer, coarser hulls per node
    "maxVerticesPerHull": 48
  }
}"#;

    /// Parts: the compiled table (a member, read inside braces). (spec lines 270-278)
    pub const PARTS_TABLE: &str = r#""parts": [
  { "id": 0, "localId": "6f3b21c4-9d0e-5a77-8b12-4c5e7a90d3f1", "objectId": "0d6a8f31-5c2e-5b47-9e10-3a7c4b2d8e65",
    "name": "wall_north", "path": "buildings/block03/wall_north",
    "pivot": [10, 0, -4], "rotation": [0, 0.7071, 0, 0.7071],
    "aabb": { "min": [9, -2, -5], "max": [11, 2, -3] } },
  { "id": 412, "localId": "b1c8d0a2-7e45-5c31-9f60-2a3b8d1e6c04", "objectId": "7e2c19a0-4b6d-5f83-a1c5-0d9e3f7b2a48",
    "name": "block03", "path": "buildings/block03",
    "structural": true, "pivot": [10, 0, -4] }
]"#;

    /// Part overrides (a member, read inside braces). (spec lines 311-318)
    pub const PART_OVERRIDES: &str = r#""objects": [
  { "$type": "instance", "id": "db71e214-0d00-4fde-b8e1-cd4ef06288bf", "name": "world", "source": "/meshes/city.glb",
    "children": [
      { "id": "6f3b21c4-9d0e-5a77-8b12-4c5e7a90d3f1", "path": "buildings/block03/wall_north",
        "position": [0, 0.5, -2], "rotation": [0, 90, 0], "scale": 2 },
      { "path": "buildings/block03/scaffold", "removed": true }
    ] }
]"#;

    /// The world instance (a member, read inside braces). (spec lines 371-373)
    pub const WORLD_INSTANCE: &str = r#""objects": [
  { "$type": "instance", "id": "db71e214-0d00-4fde-b8e1-cd4ef06288bf", "name": "world", "source": "/meshes/debug-map.glb" }
]"#;

    /// Placing models (a member, read inside braces). (spec lines 381-388)
    pub const PLACING_MODELS: &str = r#""objects": [
  { "$type": "instance", "id": "db71e214-0d00-4fde-b8e1-cd4ef06288bf", "name": "world", "source": "/meshes/yard.glb" },
  { "$type": "folder", "id": "f0000000-0000-4000-8000-0000000000aa", "name": "props" },
  { "$type": "instance", "id": "8a52c1d0-77e3-4f0b-9b61-5c0f2d4e3a19", "name": "crate", "source": "/meshes/crate.glb",
    "position": [4, 0, 2], "rotation": [0, 90, 0], "parent": "f0000000-0000-4000-8000-0000000000aa" },
  { "$type": "instance", "id": "3e9b07f4-2c51-4d86-a0e7-91b6c8d2f405", "name": "crate (big)", "source": "/meshes/crate.glb",
    "position": [-3, 0, 6], "scale": [2, 2, 2] }
]"#;

    /// dh.box: an object holding a box. (spec lines 459-460)
    pub const LEDGE: &str = r#"{ "$type": "object", "id": "a320bba5-ffa1-40e3-a87b-c7aef971daed", "name": "ledge", "position": [8, 0.75, 0],
  "components": [ { "$type": "dh.box", "size": [1.5, 1.5, 1.5], "material": "orange" } ] }"#;

    /// dh.bake: a part override carrying one. (spec lines 475-476)
    pub const BAKE_OVERRIDE: &str = r#"{ "path": "__Areas/__mltn_tower/__Underground_Facility",
  "components": [ { "$type": "dh.bake", "zone": "underground", "lightmapScale": 0.5 } ] }"#;

    /// folder. (spec lines 494-494)
    pub const FOLDER: &str = r#"{ "$type": "folder", "id": "bbbbbbbb-0000-4000-8000-000000000001", "name": "streetlights" }"#;

    /// object. (spec lines 502-502)
    pub const STAGE: &str = r#"{ "$type": "object", "id": "c3a1e0d2-5b4f-4c6a-9e7d-1f2a3b4c5d6e", "name": "stage", "position": [0, 0, 12] }"#;

    /// dh.spawnPoint. (spec lines 510-511)
    pub const SPAWN: &str = r#"{ "$type": "object", "id": "10cd5fc6-fa9f-4faf-a968-6e159ccede2e", "position": [0, 0, 0], "rotation": [0, 90, 0],
  "components": [ { "$type": "dh.spawnPoint" } ] }"#;

    /// dh.camera. (spec lines 560-562)
    pub const SKYLINE: &str = r#"{ "$type": "object", "id": "b783eabd-a4dd-4a45-87f6-59689fb74dca", "name": "skyline",
  "position": [-30, 26, 180], "rotation": [-14, 100, 0],
  "components": [ { "$type": "dh.camera", "fov": 60 } ] }"#;

    /// The map's thumbnail. (spec lines 592-594)
    pub const POSTCARD: &str = r#"{ "$type": "object", "id": "6c1f0e2b-9d4a-4a11-9f0d-2c33b2f7c001", "name": "postcard",
  "position": [-30, 26, 180], "rotation": [-14, 100, 0],
  "components": [ { "$type": "dh.camera", "fov": 60, "role": "mapThumbnail", "thumbnailSize": [1024, 1024] } ] }"#;

    /// dh.lightProbeVolume. (spec lines 653-655)
    pub const ATRIUM_VOLUME: &str = r#"{ "$type": "object", "id": "5f2f8a10-0f0e-4a45-9a6a-2c9d1c3f9b41", "name": "atrium",
  "position": [0, 6, -40], "scale": [48, 12, 64],
  "components": [ { "$type": "dh.lightProbeVolume", "probeSpacing": 2 } ] }"#;

    /// Switching and moving a volume: a connection. (spec lines 672-675)
    pub const PROBE_CONNECTION: &str = r#"{ "output": "onPressed", "actions": [
  { "call": { "target": "roomProbes", "input": "setTint", "value": [1, 0.4, 0.4] } },
  { "call": { "target": "roomProbes", "input": "setIntensity", "value": 0.5 } }
] }"#;

    /// dh.lightProbeGroup. (spec lines 696-697)
    pub const SOURCE_AMBIENT: &str = r#"{ "$type": "object", "id": "8a1c1b52-6c47-4d0e-a3f5-0b5b7c0f1e21", "name": "sourceAmbient",
  "components": [ { "$type": "dh.lightProbeGroup", "probes": "maps/gm_flatgrass.dh-probegroup", "contents": "indirect" } ] }"#;

    /// dh.reflectionProbe. (spec lines 735-737)
    pub const ATRIUM_REFLECTION: &str = r#"{ "$type": "object", "id": "d2b71f08-64ac-4e15-9b30-8c5f1a7e6d30", "name": "atrium",
  "position": [0, 2.5, 0], "scale": [12, 6, 12],
  "components": [ { "$type": "dh.reflectionProbe", "capturePoint": [0, -0.6, 3], "boxProjection": true, "resolution": 128 } ] }"#;

    /// Connections and the action list (a member, read inside braces). (spec lines 778-784)
    pub const CONNECTIONS: &str = r#""connections": [
  { "output": "onPressed", "actions": [
    { "call": { "target": "mainDoor", "input": "open" } },
    { "delay": { "seconds": 1.5 } },
    { "call": { "target": "lamp", "input": "turnOn" } }
  ] }
]"#;

    /// Entity kinds: two records (read inside brackets). (spec lines 823-832)
    pub const DOOR_AND_BUTTON: &str = r#"{ "$type": "object", "id": "abf7be4d-39ee-446d-b516-d75f5e630959", "name": "doorButton", "position": [-3, 1, 3],
  "components": [ { "$type": "dh.box", "size": [0.5, 0.5, 0.3], "material": "button" }, { "$type": "dh.button" } ],
  "connections": [
    { "output": "onPressed", "actions": [ { "call": { "target": "slidingDoor", "input": "toggle" } } ] }
  ]
},
{ "$type": "object", "id": "83b16719-721a-41b9-a6da-95ffa14c09c8", "name": "slidingDoor", "position": [-3, 1, 7],
  "components": [ { "$type": "dh.box", "size": [2, 2, 0.3], "material": "door" },
                  { "$type": "dh.mover", "direction": [0, 1, 0], "distance": 2.2, "duration": 1.2 } ] }
"#;

    /// dh.trigger. (spec lines 881-889)
    pub const LOBBY_PAD: &str = r#"{ "$type": "object", "id": "6b1f0e42-3ac9-4d58-9e07-2f5b8c1a4d33", "name": "lobbyPad", "position": [0, 0.05, 6],
  "components": [
    { "$type": "dh.collider", "state": "trigger", "shapes": [ { "type": "box", "halfExtents": [1.5, 0.05, 1.5] } ] },
    { "$type": "dh.trigger", "enabled": false } ],
  "connections": [
    { "output": "onStartTouch", "actions": [ { "call": { "target": "lobbyDoor", "input": "open" } } ] },
    { "output": "onEndTouch",   "actions": [ { "delay": { "seconds": 2 } },
                                             { "call": { "target": "lobbyDoor", "input": "close" } } ] }
  ] }"#;

    /// dh.teleport. (spec lines 910-916)
    pub const BOOTH: &str = r#"{ "$type": "object", "id": "c0a5a1de-4f2b-4c0e-8e54-1d1b0b7f9a10", "name": "booth", "position": [0, 1, 0],
  "components": [
    { "$type": "dh.collider", "state": "trigger", "shapes": [ { "type": "box", "halfExtents": [1, 1, 1] } ] },
    { "$type": "dh.trigger" },
    { "$type": "dh.teleport", "destination": "boothExit", "velocity": "zero" } ],
  "connections": [
    { "output": "onStartTouch", "actions": [ { "call": { "target": "booth", "input": "teleport" } } ] } ] }"#;

    /// Riding a door: two records (read inside brackets). (spec lines 955-965)
    pub const LIFT: &str = r#"{ "$type": "object", "id": "d620412a-45f8-4552-a3bb-f26ed646a774", "name": "liftPlatform", "position": [4, 0.1, -9],
  "components": [ { "$type": "dh.box", "size": [3, 0.2, 3], "material": "door" },
                  { "$type": "dh.mover", "direction": [0, 1, 0], "distance": 2.5, "duration": 2.5 } ] },
{ "$type": "object", "id": "5d3ee3d8-df8d-4499-9c58-8203745e3cdf", "name": "liftPlate",
  "parent": "d620412a-45f8-4552-a3bb-f26ed646a774", "position": [4, 0.25, -9],
  "components": [ { "$type": "dh.box", "size": [1.4, 0.1, 1.4], "material": "plate" }, { "$type": "dh.pressurePlate" } ],
  "connections": [
    { "output": "onStartTouch", "actions": [ { "call": { "target": "liftPlatform", "input": "open" } } ] },
    { "output": "onEndTouch", "actions": [ { "call": { "target": "liftPlatform", "input": "close" } } ] }
  ] }
"#;

    /// instance. (spec lines 987-989)
    pub const BENCH: &str = r#"{ "$type": "instance", "id": "0c3a5e7d-41b2-4f6a-9d8e-2b7c1f0a6e35", "name": "bench",
  "source": "props/bench.dh-obj", "position": [3, 0, -2],
  "components": [ { "$type": "dh.renderer", "reflectionProbe": "cubemap14" } ] }"#;

    /// dh.voxelVolume. (spec lines 1005-1008)
    pub const VILLAGE: &str = r#"{ "$type": "object", "id": "6a0c27e1-0000-4000-8000-000000000010", "name": "village",
  "position": [-4, 0, -14], "rotation": [0, 90, 0], "scale": [2, 2, 2],
  "components": [ { "$type": "dh.voxelVolume", "volume": "/voxels/village.dh-vox",
    "delta": { "grids": { "minecraft:the_nether": true } } } ] }"#;

    /// Physics props. (spec lines 1018-1022)
    pub const CRATE: &str = r#"{ "$type": "object", "id": "264da720-8d6a-4ed3-8502-a8b0fe94778c", "name": "crate",
  "position": [0, 4, 5], "rotation": [12, 30, 8],
  "components": [
    { "$type": "dh.box", "size": [0.8, 0.8, 0.8], "material": "crate" },
    { "$type": "dh.physicsProp", "mass": 30 } ] }"#;

    /// Physics props: a placed crate. (spec lines 1032-1038)
    pub const PLACED_CRATE: &str = r#"{ "$type": "instance", "id": "1f0c4a8e-7b2d-4c5e-9a31-6d8e2f4b7c90", "name": "placedCrate",
  "source": "core:objects/physicsCube.dh-obj",
  "position": [2, 4, 5],
  "components": [
    { "$type": "dh.box", "size": [0.8, 0.8, 0.8], "material": "/materials/crate-blue.dh-mat" },
    { "$type": "dh.physicsProp", "mass": 30 }
  ] }"#;

    /// Physics props: a client-simulated crate. (spec lines 1060-1065)
    pub const LOCAL_CRATE: &str = r#"{ "$type": "instance", "id": "1b1c9e6c-2a0a-4a24-9a8c-6ad46f5f7f01", "name": "localCrate",
  "source": "core:objects/physicsCube.dh-obj", "position": [0, 4, 5],
  "components": [
    { "$type": "dh.box", "size": [0.8, 0.8, 0.8], "material": "/materials/crate-blue.dh-mat" },
    { "$type": "dh.physicsProp", "mass": 30, "sim": "client" }
  ] }"#;

    /// dh.light. (spec lines 1077-1082)
    pub const LAMP: &str = r#"{ "$type": "object", "id": "f3cf4ad5-b69c-4e42-9e7b-408dc4df418b", "name": "lamp", "position": [3, 1, 7],
  "components": [
    { "$type": "dh.box", "size": [1, 1, 1], "material": "lampOn" },
    { "$type": "dh.light", "materialOff": "lampOff", "startOn": false,
      "light": "point", "color": [1.0, 0.88, 0.7], "intensity": 60, "range": 9,
      "offset": [0, 0.6, 0], "innerConeDegrees": 30, "outerConeDegrees": 45 } ] }"#;

    /// Bake zones: the world's override (a member, read inside braces). (spec lines 1245-1250)
    pub const UNDERGROUND_OBJECTS: &str = r#""objects": [
  { "$type": "instance", "id": "…", "name": "world", "source": "meshes/mltnCity.glb",
    "children": [
      { "path": "__Areas/__mltn_tower/__Underground_Facility", "components": [ { "$type": "dh.bake", "zone": "underground" } ] }
    ] }
]"#;
}
