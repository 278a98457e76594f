//! Part overrides, the identity sidecar's write-back and posed placements, through
//! `dh build` (`compile`) over small GLBs written by the test.
//!
//! Every expected pose and bound below is worked by hand in the comment beside it; the
//! minted ids are UUIDv5 values computed with Python's `uuid`:
//!
//! ```text
//! ns = uuid.UUID('5d1e0a7c-3b92-4f61-9a0e-27d4c188503f')
//! uuid.uuid5(ns, 'dev.example.models:meshes/yard.glb#' + path)
//! ```

mod support;

use dh_content::compile::BuildOutput;
use dh_content::diag::Severity;
use dh_content::jsonc::{parse, Kind, Value};
use support::{glb, Pallet};

const WORLD: &str = "db71e214-0d00-4fde-b8e1-cd4ef06288bf";
const FOLDER: &str = "f0000000-0000-4000-8000-0000000000aa";
const CARRIER: &str = "c0000000-0000-4000-8000-0000000000cc";
/// An identity the test's hand-written sidecar records for a node the model lacks.
const SHED: &str = "0a0b0c0d-0000-4000-8000-000000000001";

/// Python: uuid5(ns, 'dev.example.models:meshes/yard.glb#base').
const ID_BASE: &str = "2648b8e1-dcee-5a55-bbc9-94b818dc10bd";
/// Python: uuid5(ns, 'dev.example.models:meshes/yard.glb#base/wall').
const ID_WALL: &str = "5fa18b95-481b-5a91-81b7-c9280535d6bc";
/// Python: uuid5(ns, 'dev.example.models:meshes/yard.glb#base/post').
const ID_POST: &str = "c6957046-516b-50a3-8898-e18ca9fe5149";
/// Python: uuid5(ns, 'dev.example.models:meshes/yard.glb#base/crate').
const ID_CRATE: &str = "ae4ee6a8-2986-557b-a271-a76fadd22fb2";
/// Python: uuid5(ns, 'dev.example.models:meshes/yard.glb#base/group').
const ID_GROUP: &str = "2a5d09b1-179d-5b15-ab92-041691106845";

// ---- The models ------------------------------------------------------------------------

/// Two meshes of one triangle each: mesh 0 `tri` (0,0,0) (1,0,0) (0,1,0) drawing `grid`,
/// mesh 1 `long` (0,0,0) (2,0,0) (0,0,-3) drawing `metal`.
fn model(nodes: &str, roots: &str) -> Vec<u8> {
    let tris: [[f32; 9]; 2] = [
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, -3.0],
    ];
    let bin: Vec<u8> = tris
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":72}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":36}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"type":"VEC3","count":3}},{{"bufferView":1,"componentType":5126,"type":"VEC3","count":3}}],
        "materials":[{{"name":"grid"}},{{"name":"metal"}}],
        "meshes":[{{"name":"tri","primitives":[{{"attributes":{{"POSITION":0}},"material":0}}]}},
                  {{"name":"long","primitives":[{{"attributes":{{"POSITION":1}},"material":1}}]}}],
        "nodes":[{nodes}],"scenes":[{{"nodes":[{roots}]}}]}}"#
    );
    glb(&json, &bin)
}

/// sin 45° = cos 45°.
const H: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// base (group) ─ wall (tri, at (1,0,0)) ─ post (long, at (0,0,2), turned 90° about +Y) ─
/// crate (tri, at (-3,0,0)).
fn yard() -> Vec<u8> {
    model(
        &format!(
            r#"{{"name":"base","children":[1,2,3]}},
            {{"name":"wall","mesh":0,"translation":[1,0,0]}},
            {{"name":"post","mesh":1,"translation":[0,0,2],"rotation":[0,{H},0,{H}]}},
            {{"name":"crate","mesh":0,"translation":[-3,0,0]}}"#
        ),
        "0",
    )
}

// ---- A source pallet on disk -------------------------------------------------------------

/// A map whose records are `records` (each a JSON object's text).
fn map(records: &[String]) -> String {
    format!(
        "{{\n  \"name\": \"Yard\",\n  \"objects\": [\n    {}\n  ]\n}}\n",
        records.join(",\n    ")
    )
}

/// The world instance placing the yard at `pose` (extra members, e.g. `"position": [...]`),
/// its children `children` (a JSON array's inner text).
fn world(pose: &str, children: &str) -> String {
    format!(
        r#"{{ "$type": "instance", "id": "{WORLD}", "name": "world", "source": "/meshes/yard.glb"{pose}, "children": [{children}] }}"#
    )
}

fn compiled_map(out: &BuildOutput) -> (String, Value) {
    let a = out
        .assets
        .iter()
        .find(|a| a.path == "maps/yard.dh-map")
        .expect("the map is compiled");
    let text = String::from_utf8(a.bytes.clone()).unwrap();
    let v = parse(&text).unwrap();
    (text, v)
}

fn record<'a>(v: &'a Value, id: &str) -> &'a Value {
    v.get("objects")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .find(|o| o.get("id").and_then(Value::as_str) == Some(id))
        .unwrap_or_else(|| panic!("no record {id}"))
}

fn parts(v: &Value) -> Vec<Value> {
    record(v, WORLD)
        .get("parts")
        .and_then(Value::as_array)
        .expect("the world carries its parts table")
        .to_vec()
}

fn part<'a>(parts: &'a [Value], path: &str) -> &'a Value {
    parts
        .iter()
        .find(|p| p.get("path").and_then(Value::as_str) == Some(path))
        .unwrap_or_else(|| panic!("no part {path}"))
}

fn nums(v: Option<&Value>) -> Vec<f64> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

fn assert_near(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-9, "{what}: {got:?} vs {want:?}");
    }
}

/// A quaternion equal to `want` up to its sign (q and -q are one rotation).
fn assert_quat(got: &[f64], want: [f64; 4], what: &str) {
    let neg: Vec<f64> = want.iter().map(|w| -w).collect();
    let same = got.len() == 4 && got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-9);
    let flipped = got.len() == 4 && got.iter().zip(&neg).all(|(g, w)| (g - w).abs() < 1e-9);
    assert!(same || flipped, "{what}: {got:?} vs ±{want:?}");
}

fn aabb(p: &Value) -> (Vec<f64>, Vec<f64>) {
    let b = p.get("aabb").expect("a mesh part has bounds");
    (nums(b.get("min")), nums(b.get("max")))
}

fn flag(p: &Value, key: &str) -> Option<bool> {
    match p.get(key).map(|v| &v.kind) {
        Some(Kind::Bool(b)) => Some(*b),
        _ => None,
    }
}

fn warnings(out: &BuildOutput) -> Vec<String> {
    out.diagnostics
        .items
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| format!("{}:{}: {}", d.file, d.line, d.message))
        .collect()
}

// ---- Overrides land -----------------------------------------------------------------------

#[test]
fn overrides_land_on_their_parts() {
    let p = Pallet::new("land");
    p.write("meshes/yard.glb", &yard());
    let folder = format!(r#"{{ "$type": "folder", "id": "{FOLDER}", "name": "props" }}"#);
    let children = format!(
        r#"
        {{ "id": "{ID_POST}", "path": "base/post", "position": [0, 0.5, 0], "rotation": [0, 90, 0], "scale": 2, "enabled": false, "parent": "{FOLDER}" }},
        {{ "path": "base/wall", "rotation": [90, 0, 90], "static": false,
           "components": [ {{ "$type": "dh.collider", "state": "off" }}, {{ "$type": "dh.bake", "lightmapScale": 0.5 }} ] }},
        {{ "path": "base/crate", "removed": true }}"#
    );
    p.write(
        "maps/yard.dh-map",
        map(&[world(r#", "position": [10, 0, 0]"#, &children), folder]).as_bytes(),
    );
    let out = p.build();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    assert!(warnings(&out).is_empty(), "{:?}", warnings(&out));
    let (_, v) = compiled_map(&out);
    let table = parts(&v);
    // Every part keeps its entry (a removed one too): wall, post, crate, then base.
    let paths: Vec<&str> = table
        .iter()
        .filter_map(|p| p.get("path").and_then(Value::as_str))
        .collect();
    assert_eq!(paths, ["base/wall", "base/post", "base/crate", "base"]);
    let ids: Vec<f64> = table
        .iter()
        .filter_map(|p| p.get("id").and_then(Value::as_f64))
        .collect();
    assert_eq!(ids, [0.0, 1.0, 2.0, 3.0]);

    // post: compiled W = T(10,0,0)·T(0,0,2)·Ry(90): pivot (10,0,2), yaw 90.
    // W' = T(0,0.5,0)·W·Ry(90)·S(2) = T(10,0.5,2)·Ry(180)·S(2): pivot (10,0.5,2), rotation
    // (0,1,0,0), scale 2. Ry(180) maps (x,y,z) to (-x,y,-z), so the vertices (0,0,0),
    // (2,0,0), (0,0,-3) land at (10,0.5,2), (6,0.5,2), (10,0.5,8).
    let post = part(&table, "base/post");
    assert_near(&nums(post.get("pivot")), &[10.0, 0.5, 2.0], "post pivot");
    assert_quat(
        &nums(post.get("rotation")),
        [0.0, 1.0, 0.0, 0.0],
        "post rotation",
    );
    assert_near(&nums(post.get("scale")), &[2.0, 2.0, 2.0], "post scale");
    let (lo, hi) = aabb(post);
    assert_near(&lo, &[6.0, 0.5, 2.0], "post aabb min");
    assert_near(&hi, &[10.0, 0.5, 8.0], "post aabb max");
    assert_eq!(flag(post, "enabled"), Some(false));
    assert_eq!(flag(post, "static"), None);
    assert_eq!(flag(post, "removed"), None);
    assert_eq!(post.get("parent").and_then(Value::as_str), Some(FOLDER));

    // wall: compiled W = T(11,0,0). rotation [90, 0, 90] is Z·Y·X: roll 90 about Z first,
    // then pitch 90 about X (yaw 0). Rz(90): (x,y,z) -> (-y,x,z); Rx(90): (x,y,z) ->
    // (x,-z,y). (1,0,0) -> (0,1,0) -> (0,0,1); (0,1,0) -> (-1,0,0) -> (-1,0,0). World:
    // (11,0,0), (11,0,1), (10,0,0). Quaternion qx(90)·qz(90) = (½, -½, ½, ½).
    let wall = part(&table, "base/wall");
    assert_near(&nums(wall.get("pivot")), &[11.0, 0.0, 0.0], "wall pivot");
    assert_quat(
        &nums(wall.get("rotation")),
        [0.5, -0.5, 0.5, 0.5],
        "wall rotation",
    );
    assert!(wall.get("scale").is_none(), "scale one is omitted");
    let (lo, hi) = aabb(wall);
    assert_near(&lo, &[10.0, 0.0, 0.0], "wall aabb min");
    assert_near(&hi, &[11.0, 0.0, 1.0], "wall aabb max");
    assert_eq!(flag(wall, "static"), Some(false));
    assert_eq!(flag(wall, "enabled"), None);
    // Its components: the override's collider, its bake, then the generated renderer.
    let comps = wall.get("components").and_then(Value::as_array).unwrap();
    let types: Vec<&str> = comps
        .iter()
        .filter_map(|c| c.get("$type").and_then(Value::as_str))
        .collect();
    assert_eq!(types, ["dh.collider", "dh.bake", "dh.renderer"]);
    assert_eq!(comps[0].get("state").and_then(Value::as_str), Some("off"));
    assert_eq!(
        comps[1].get("lightmapScale").and_then(Value::as_f64),
        Some(0.5)
    );

    // crate: removed, kept in the table, its pose untouched: T(7,0,0).
    let krate = part(&table, "base/crate");
    assert_eq!(flag(krate, "removed"), Some(true));
    assert_near(&nums(krate.get("pivot")), &[7.0, 0.0, 0.0], "crate pivot");

    // base: no override, placed at the instance's pose.
    let base = part(&table, "base");
    assert_near(&nums(base.get("pivot")), &[10.0, 0.0, 0.0], "base pivot");
    assert!(base.get("enabled").is_none() && base.get("parent").is_none());
}

#[test]
fn id_beats_path_and_the_last_override_wins() {
    let p = Pallet::new("order");
    p.write("meshes/yard.glb", &yard());
    // The first names the wall by id but carries the crate's path: the id wins. The second
    // and third both name the crate; the third is its answer.
    let children = format!(
        r#"
        {{ "id": "{ID_WALL}", "path": "base/crate", "position": [0, 1, 0] }},
        {{ "path": "base/crate", "position": [0, 0, 5] }},
        {{ "id": "{ID_CRATE}", "position": [0, 0, -5] }}"#
    );
    p.write("maps/yard.dh-map", map(&[world("", &children)]).as_bytes());
    let out = p.build();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let (_, v) = compiled_map(&out);
    let table = parts(&v);
    // wall at (1,0,0) moved up 1; crate at (-3,0,0) moved by the last override only.
    assert_near(
        &nums(part(&table, "base/wall").get("pivot")),
        &[1.0, 1.0, 0.0],
        "wall",
    );
    assert_near(
        &nums(part(&table, "base/crate").get("pivot")),
        &[-3.0, 0.0, -5.0],
        "crate",
    );
}

#[test]
fn stale_and_orphan_overrides_are_warned_and_kept_byte_for_byte() {
    let p = Pallet::new("stale");
    p.write("meshes/yard.glb", &yard());
    // The sidecar remembers a shed the model no longer has.
    p.write(
        "meshes/yard.glb.dh-ids",
        format!(
            r#"{{ "version": 1, "model": "dev.example.models:meshes/yard.glb", "parts": [
                {{ "id": "{SHED}", "path": "base/shed", "name": "shed", "parent": "base", "sibling": 3, "hash": "" }} ] }}"#
        )
        .as_bytes(),
    );
    // Written in canonical compact form, so the compiled map must hold these exact bytes.
    let orphan = format!(r#"{{"id":"{SHED}","path":"base/shed","enabled":false}}"#);
    let stale = r#"{"path":"base/gone","position":[1,2,3],"scale":2}"#.to_string();
    let live = r#"{"scale":[1,3,1],"path":"base/wall"}"#.to_string();
    let children = format!("{orphan}, {stale}, {live}");
    p.write("maps/yard.dh-map", map(&[world("", &children)]).as_bytes());
    let out = p.build();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let w = warnings(&out);
    // The map's lines: 4 is the world instance (children on the same line).
    let orphan_warning = w
        .iter()
        .find(|m| m.contains("is an orphan in the identity sidecar"))
        .unwrap_or_else(|| panic!("{w:?}"));
    assert!(
        orphan_warning.starts_with("maps/yard.dh-map:4: "),
        "{orphan_warning}"
    );
    assert!(orphan_warning.contains(SHED), "{orphan_warning}");
    assert!(
        orphan_warning.contains("last seen at 'base/shed'"),
        "{orphan_warning}"
    );
    let stale_warning = w
        .iter()
        .find(|m| m.contains("'base/gone'"))
        .unwrap_or_else(|| panic!("{w:?}"));
    assert!(
        stale_warning.contains("names no part of 'meshes/yard.glb'"),
        "{stale_warning}"
    );
    // Kept, as written: member order, spelling and the uniform scale untouched.
    let (text, v) = compiled_map(&out);
    assert!(text.contains(&orphan), "{text}");
    assert!(text.contains(&stale), "{text}");
    assert!(text.contains(&live), "{text}");
    // Neither applied: nothing moved but the wall (scaled 3 on its Y: its (0,1,0) corner
    // now at (1,3,0)).
    let table = parts(&v);
    let (lo, hi) = aabb(part(&table, "base/wall"));
    assert_near(&lo, &[1.0, 0.0, 0.0], "wall min");
    assert_near(&hi, &[2.0, 3.0, 0.0], "wall max");
    assert_near(
        &nums(part(&table, "base/crate").get("pivot")),
        &[-3.0, 0.0, 0.0],
        "crate",
    );
    assert!(table.iter().all(|p| p.get("enabled").is_none()));
}

#[test]
fn old_fields_and_foreign_components_are_refused_naming_the_replacement() {
    let p = Pallet::new("refused");
    p.write("meshes/yard.glb", &yard());
    let children = r#"
        { "path": "base/wall", "offset": [0, 1, 0] },
        { "path": "base/wall", "rename": "w" },
        { "path": "base/wall", "target": "wall" },
        { "path": "base/wall", "manifestHash": "00" },
        { "path": "base/wall", "bakeEmission": true },
        { "path": "base/wall", "lightmapScale": 2 },
        { "path": "base/wall", "bakeZone": "a" },
        { "path": "base/post", "components": [ { "$type": "dh.light" } ] },
        { "path": "base/post", "parent": "db71e214-0d00-4fde-b8e1-cd4ef06288bf" }"#;
    let text =
        map(&[world("", children)]).replacen("\"objects\"", "\"patches\": [],\n  \"objects\"", 1);
    p.write("maps/yard.dh-map", text.as_bytes());
    let out = p.build();
    assert!(out.pallet.is_none());
    let errors: Vec<String> = out
        .diagnostics
        .errors()
        .map(|d| d.message.clone())
        .collect();
    for want in [
        "'offset' is not a part override field (the old dh.editNode spelling): it is 'position'",
        "'rename' is not a part override field (the old dh.editNode spelling): it is 'name'",
        "'target' is gone (the old dh.editNode spelling): a part is addressed by 'id' and 'path'",
        "'manifestHash' is gone (the old dh.editNode spelling): a part is addressed by 'id' and 'path'",
        "'bakeEmission' is not a part override field: it is 'emission' in the part's dh.bake",
        "'lightmapScale' is not a part override field: it is 'lightmapScale' in the part's dh.bake",
        "'bakeZone' is not a part override field: it is 'zone' in the part's dh.bake",
        "'patches'",
        "a part override takes only a 'dh.collider' and a 'dh.bake'; 'dh.light' is not one of them",
        "'parent' names this override's own instance",
    ] {
        assert!(
            errors.iter().any(|e| e.contains(want)),
            "missing {want:?} in {errors:#?}"
        );
    }
}

// ---- Placements under posed records ---------------------------------------------------------

#[test]
fn a_parent_records_transform_is_composed_into_the_placement() {
    let p = Pallet::new("parent");
    p.write("meshes/yard.glb", &yard());
    // carrier at (0,0,5) turned 90° about +Y; the folder (no transform) under it; the
    // world under the folder at (1,0,0).
    let carrier = format!(
        r#"{{ "$type": "object", "id": "{CARRIER}", "name": "carrier", "position": [0, 0, 5], "rotation": [0, 90, 0] }}"#
    );
    let folder = format!(
        r#"{{ "$type": "folder", "id": "{FOLDER}", "name": "props", "parent": "{CARRIER}" }}"#
    );
    let inst = format!(
        r#"{{ "$type": "instance", "id": "{WORLD}", "name": "world", "source": "/meshes/yard.glb", "position": [1, 0, 0], "parent": "{FOLDER}" }}"#
    );
    p.write("maps/yard.dh-map", map(&[carrier, folder, inst]).as_bytes());
    let out = p.build();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let (_, v) = compiled_map(&out);
    let table = parts(&v);
    // Ry(90) maps (x,y,z) to (z,y,-x). post's model-space origin (0,0,2) under the world's
    // (1,0,0) is (1,0,2) -> (2,0,-1), plus (0,0,5): (2,0,4); its yaw 90 + 90 = 180.
    let post = part(&table, "base/post");
    assert_near(&nums(post.get("pivot")), &[2.0, 0.0, 4.0], "post pivot");
    assert_quat(
        &nums(post.get("rotation")),
        [0.0, 1.0, 0.0, 0.0],
        "post rot",
    );
    // base at (1,0,0) -> (0,0,-1) + (0,0,5) = (0,0,4), yaw 90.
    let base = part(&table, "base");
    assert_near(&nums(base.get("pivot")), &[0.0, 0.0, 4.0], "base pivot");
    assert_quat(&nums(base.get("rotation")), [0.0, H, 0.0, H], "base rot");
    // wall's triangle (1,0,0),(2,0,0),(1,1,0) in the world's frame, (1,0,0) added:
    // (2,0,0),(3,0,0),(2,1,0) -> Ry(90) -> (0,0,-2),(0,0,-3),(0,1,-2) -> +(0,0,5).
    let (lo, hi) = aabb(part(&table, "base/wall"));
    assert_near(&lo, &[0.0, 0.0, 2.0], "wall min");
    assert_near(&hi, &[0.0, 1.0, 3.0], "wall max");
}

// ---- The identity sidecar ---------------------------------------------------------------------

/// The sidecar's entries as (id, path, name, parent, sibling, hash, orphan).
fn sidecar_entries(text: &str) -> Vec<(String, String, String, String, f64, String, bool)> {
    let v = parse(text).unwrap();
    assert_eq!(v.get("version").and_then(Value::as_f64), Some(1.0));
    assert_eq!(
        v.get("model").and_then(Value::as_str),
        Some("dev.example.models:meshes/yard.glb")
    );
    v.get("parts")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .map(|e| {
            let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            (
                s("id"),
                s("path"),
                s("name"),
                s("parent"),
                e.get("sibling").and_then(Value::as_f64).unwrap_or(-1.0),
                s("hash"),
                flag(e, "orphan") == Some(true),
            )
        })
        .collect()
}

#[test]
fn a_build_writes_the_identity_sidecar_and_a_second_changes_nothing() {
    let p = Pallet::new("write");
    p.write("meshes/yard.glb", &yard());
    p.write("maps/yard.dh-map", map(&[world("", "")]).as_bytes());
    // A check writes nothing.
    let checked = p.check();
    assert!(!checked.diagnostics.has_errors(), "{}", checked.diagnostics);
    assert!(p.read("meshes/yard.glb.dh-ids").is_none());
    assert_eq!(checked.writes.len(), 1);
    assert!(!checked.writes[0].written);

    let first = p.build();
    assert!(!first.diagnostics.has_errors(), "{}", first.diagnostics);
    assert_eq!(first.writes.len(), 1);
    assert_eq!(first.writes[0].path, "meshes/yard.glb.dh-ids");
    assert!(first.writes[0].written);
    let text = p
        .read("meshes/yard.glb.dh-ids")
        .expect("the sidecar is written");
    assert_eq!(text.as_bytes(), &first.writes[0].bytes[..]);
    let e = sidecar_entries(&text);
    // Live parts in table order (mesh parts, then the group), each with its minted id.
    let rows: Vec<(&str, &str, &str, &str, f64)> = e
        .iter()
        .map(|r| (r.0.as_str(), r.1.as_str(), r.2.as_str(), r.3.as_str(), r.4))
        .collect();
    assert_eq!(
        rows,
        [
            (ID_WALL, "base/wall", "wall", "base", 0.0),
            (ID_POST, "base/post", "post", "base", 1.0),
            (ID_CRATE, "base/crate", "crate", "base", 2.0),
            (ID_BASE, "base", "base", "", 0.0),
        ]
    );
    // wall and crate draw one mesh: one digest; post another; the group none.
    assert_eq!(e[0].5.len(), 40);
    assert_eq!(e[0].5, e[2].5);
    assert_ne!(e[0].5, e[1].5);
    assert_eq!(e[3].5, "");
    assert!(e.iter().all(|r| !r.6));
    // The compiled table carries the same ids.
    let (_, v) = compiled_map(&first);
    let local: Vec<String> = parts(&v)
        .iter()
        .filter_map(|p| p.get("localId").and_then(Value::as_str).map(str::to_string))
        .collect();
    assert_eq!(local, [ID_WALL, ID_POST, ID_CRATE, ID_BASE]);

    // Built again with the sidecar: nothing to write, the same pallet.
    let second = p.build();
    assert!(second.writes.is_empty(), "{:?}", second.writes);
    assert_eq!(p.read("meshes/yard.glb.dh-ids").as_deref(), Some(&text[..]));
    assert!(first.pallet.is_some() && first.pallet == second.pallet);
    // The sidecar is build input, never shipped.
    assert!(first.assets.iter().all(|a| !a.path.ends_with(".dh-ids")));
}

#[test]
fn identities_survive_a_rename_and_a_reparent_across_builds() {
    let p = Pallet::new("survive");
    // First export: base ─ wall, post.
    let before = model(
        &format!(
            r#"{{"name":"base","children":[1,2]}},
            {{"name":"wall","mesh":0,"translation":[1,0,0]}},
            {{"name":"post","mesh":1,"translation":[0,0,2],"rotation":[0,{H},0,{H}]}}"#
        ),
        "0",
    );
    p.write("meshes/yard.glb", &before);
    // The editor's Save wrote the post's override by id (and its path then).
    let children =
        format!(r#"{{ "id": "{ID_POST}", "path": "base/post", "position": [0, 1, 0] }}"#);
    p.write("maps/yard.dh-map", map(&[world("", &children)]).as_bytes());
    let first = p.build();
    assert!(!first.diagnostics.has_errors(), "{}", first.diagnostics);
    assert!(first.writes.iter().all(|w| w.written));

    // Re-exported: wall renamed wall_north (same mesh, same place among its siblings);
    // post moved under a new group. Both keep their ids through the written sidecar:
    // wall_north by content hash plus parent and sibling position, post by content hash.
    let after = model(
        &format!(
            r#"{{"name":"base","children":[1,2]}},
            {{"name":"wall_north","mesh":0,"translation":[1,0,0]}},
            {{"name":"group","children":[3]}},
            {{"name":"post","mesh":1,"translation":[0,0,2],"rotation":[0,{H},0,{H}]}}"#
        ),
        "0",
    );
    p.write("meshes/yard.glb", &after);
    let second = p.build();
    assert!(!second.diagnostics.has_errors(), "{}", second.diagnostics);
    assert!(warnings(&second).is_empty(), "{:?}", warnings(&second));
    let (_, v) = compiled_map(&second);
    let table = parts(&v);
    let id_of = |path: &str| {
        part(&table, path)
            .get("localId")
            .and_then(Value::as_str)
            .unwrap()
            .to_string()
    };
    assert_eq!(id_of("base/wall_north"), ID_WALL);
    assert_eq!(id_of("base/group/post"), ID_POST);
    assert_eq!(id_of("base/group"), ID_GROUP);
    assert_eq!(id_of("base"), ID_BASE);
    // The override still finds the post by its id at its new path: (0,0,2) moved up 1.
    assert_near(
        &nums(part(&table, "base/group/post").get("pivot")),
        &[0.0, 1.0, 2.0],
        "post",
    );
    // The written sidecar records the new paths under the old ids, and no orphan.
    let text = p.read("meshes/yard.glb.dh-ids").unwrap();
    let rows: Vec<(String, String, bool)> = sidecar_entries(&text)
        .into_iter()
        .map(|r| (r.0, r.1, r.6))
        .collect();
    let want: Vec<(String, String, bool)> = [
        (ID_WALL, "base/wall_north"),
        (ID_POST, "base/group/post"),
        (ID_BASE, "base"),
        (ID_GROUP, "base/group"),
    ]
    .iter()
    .map(|(i, p)| (i.to_string(), p.to_string(), false))
    .collect();
    assert_eq!(rows, want);
    // A third build changes nothing.
    let third = p.build();
    assert!(third.writes.is_empty());
    assert_eq!(second.pallet, third.pallet);
}

#[test]
fn a_removed_node_becomes_an_orphan_and_comes_back_with_its_id() {
    let p = Pallet::new("orphan");
    p.write("meshes/yard.glb", &yard());
    p.write("maps/yard.dh-map", map(&[world("", "")]).as_bytes());
    assert!(!p.build().diagnostics.has_errors());
    // The crate goes: its identity is kept as an orphan, last in the file.
    let no_crate = model(
        &format!(
            r#"{{"name":"base","children":[1,2]}},
            {{"name":"wall","mesh":0,"translation":[1,0,0]}},
            {{"name":"post","mesh":1,"translation":[0,0,2],"rotation":[0,{H},0,{H}]}}"#
        ),
        "0",
    );
    p.write("meshes/yard.glb", &no_crate);
    let out = p.build();
    assert!(
        warnings(&out)
            .iter()
            .any(|w| w.contains("kept as orphans") && w.contains("'base/crate'")),
        "{:?}",
        warnings(&out)
    );
    let e = sidecar_entries(&p.read("meshes/yard.glb.dh-ids").unwrap());
    let last = e.last().unwrap();
    assert_eq!(
        (last.0.as_str(), last.1.as_str(), last.6),
        (ID_CRATE, "base/crate", true)
    );
    // It comes back: the same id, no longer an orphan.
    p.write("meshes/yard.glb", &yard());
    let back = p.build();
    let (_, v) = compiled_map(&back);
    assert_eq!(
        part(&parts(&v), "base/crate")
            .get("localId")
            .and_then(Value::as_str),
        Some(ID_CRATE)
    );
    let e = sidecar_entries(&p.read("meshes/yard.glb.dh-ids").unwrap());
    assert!(e.iter().all(|r| !r.6));
}

#[test]
fn a_retarget_is_honored_and_cleared() {
    let p = Pallet::new("retarget");
    p.write("meshes/yard.glb", &yard());
    // A person pointed an old identity at the crate: it outranks every tier.
    p.write(
        "meshes/yard.glb.dh-ids",
        format!(
            r#"{{ "version": 1, "model": "dev.example.models:meshes/yard.glb", "parts": [
                {{ "id": "{SHED}", "path": "base/shed", "name": "shed", "parent": "base", "sibling": 3, "hash": "", "orphan": true, "retarget": "base/crate" }} ] }}"#
        )
        .as_bytes(),
    );
    p.write("maps/yard.dh-map", map(&[world("", "")]).as_bytes());
    let out = p.build();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let (_, v) = compiled_map(&out);
    assert_eq!(
        part(&parts(&v), "base/crate")
            .get("localId")
            .and_then(Value::as_str),
        Some(SHED)
    );
    let text = p.read("meshes/yard.glb.dh-ids").unwrap();
    assert!(!text.contains("retarget"), "{text}");
    let e = sidecar_entries(&text);
    assert!(e.iter().any(|r| r.0 == SHED && r.1 == "base/crate" && !r.6));
}

#[test]
fn an_unreadable_sidecar_is_never_overwritten() {
    let p = Pallet::new("unreadable");
    p.write("meshes/yard.glb", &yard());
    p.write("meshes/yard.glb.dh-ids", b"<<<<<<< merge conflict");
    p.write("maps/yard.dh-map", map(&[world("", "")]).as_bytes());
    let out = p.build();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    assert!(out.pallet.is_some());
    assert!(out.writes.is_empty());
    assert_eq!(
        p.read("meshes/yard.glb.dh-ids").as_deref(),
        Some("<<<<<<< merge conflict")
    );
    assert!(
        warnings(&out)
            .iter()
            .any(|w| w.contains("does not read") && w.contains("left as it is")),
        "{:?}",
        warnings(&out)
    );
}

#[test]
fn the_compiler_writes_record_names_each_file_and_its_digest() {
    let dir = std::env::temp_dir().join(format!("dh-compiler-writes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join("dev.example.models.compiler-writes");
    let w = |path: &str, bytes: &[u8], written: bool| dh_content::compile::CompilerWrite {
        path: path.to_string(),
        disk: dir.join("unused"),
        bytes: bytes.to_vec(),
        written,
    };
    // SHA-1("abc") = a9993e364706816aba3e25717850c26c9cd0d89d (FIPS 180-1's example);
    // SHA-1("") = da39a3ee5e6b4b0d3255bfef95601890afd80709.
    dh_content::compile::record_compiler_writes(
        &record,
        &[
            w("meshes/b.glb.dh-ids", b"abc", true),
            w("x", b"zzz", false),
        ],
    )
    .unwrap();
    dh_content::compile::record_compiler_writes(&record, &[w("meshes/a.glb.dh-ids", b"", true)])
        .unwrap();
    let v = parse(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let rows: Vec<(String, String)> = v
        .get("writes")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .map(|e| {
            (
                e.get("path").and_then(Value::as_str).unwrap().to_string(),
                e.get("sha1").and_then(Value::as_str).unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "meshes/a.glb.dh-ids".to_string(),
                "da39a3ee5e6b4b0d3255bfef95601890afd80709".to_string()
            ),
            (
                "meshes/b.glb.dh-ids".to_string(),
                "a9993e364706816aba3e25717850c26c9cd0d89d".to_string()
            ),
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
