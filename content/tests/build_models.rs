//! `dh build` imports the GLB each model instance places: the compiled map's instance
//! carries the baked parts table, and a model the map importer would refuse is an error at
//! the instance's `source`.
//!
//! The GLBs are read from `../shared/fixtures` (Box.glb: CC-BY 4.0, Cesium; Box_Draco.glb:
//! Apache-2.0 draco tools over the same model); when absent the tests print a line and
//! skip.

mod support;

use std::path::PathBuf;

use dh_content::compile::BuildOutput;
use dh_content::diag::Severity;
use dh_content::jsonc::{parse, Kind, Value};
use support::{fixture, glb, Pallet};

const ID: &str = "7d2b1f0c-5a4e-4c3b-9f1d-2e6a8b0c4d11";

/// The map's text: one model instance placing `meshes/<model>` (its `source` on line 5).
fn map_text(model: &str) -> String {
    format!(
        "// a map placing one model\n{{\n  \"name\": \"Models\",\n  \"objects\": [\n    {{ \"$type\": \"instance\", \"id\": \"{ID}\", \"name\": \"world\", \"source\": \"/meshes/{model}\" }},\n  ],\n}}\n"
    )
}

/// A temporary source pallet holding `meshes/<model>` (the fixture's bytes) and a map
/// placing it; built, then removed.
fn build(tag: &str, model: &str, bytes: &[u8]) -> BuildOutput {
    let p = Pallet::new(&format!("build-models-{tag}"));
    p.write(&format!("meshes/{model}"), bytes);
    p.write("maps/models.dh-map", map_text(model).as_bytes());
    p.build()
}

/// The JSON chunk of a GLB, read independently of the importer: the 12-byte header, then
/// the first chunk's length and type `JSON`.
fn json_chunk(glb: &[u8]) -> Value {
    assert_eq!(&glb[0..4], b"glTF");
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    assert_eq!(&glb[16..20], b"JSON");
    parse(std::str::from_utf8(&glb[20..20 + len]).unwrap()).unwrap()
}

#[test]
fn a_placed_glb_bakes_its_parts_table_into_the_compiled_map() {
    let Some(glb) = fixture("gltf/Box.glb") else {
        return;
    };
    // Expected by hand from the JSON chunk: the scene's nodes in traversal order, the
    // mesh-bearing ones first, then the structural ones.
    let doc = json_chunk(&glb);
    let nodes = doc
        .get("nodes")
        .and_then(|n| n.as_array())
        .unwrap()
        .to_vec();
    let scene = doc.get("scene").and_then(|s| s.as_f64()).unwrap_or(0.0) as usize;
    let roots: Vec<usize> = doc
        .get("scenes")
        .and_then(|s| s.as_array())
        .and_then(|s| s.get(scene).cloned())
        .and_then(|s| s.get("nodes").cloned())
        .and_then(|n| n.as_array().map(|a| a.to_vec()))
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as usize)
        .collect();
    let mut order = Vec::new();
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(n) = stack.pop() {
        order.push(n);
        if let Some(children) = nodes[n].get("children").and_then(|c| c.as_array()) {
            for c in children.iter().rev() {
                stack.push(c.as_f64().unwrap() as usize);
            }
        }
    }
    let has_mesh = |n: &usize| nodes[*n].get("mesh").is_some();
    let expected: Vec<(String, bool)> = order
        .iter()
        .filter(|n| has_mesh(n))
        .chain(order.iter().filter(|n| !has_mesh(n)))
        .map(|n| {
            let name = nodes[*n]
                .get("name")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string();
            (name, !has_mesh(n))
        })
        .collect();
    // Box.glb: a structural root holding one mesh node.
    assert_eq!(expected.len(), 2);

    let out = build("box", "Box.glb", &glb);
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    assert!(out.pallet.is_some());
    let map = out
        .assets
        .iter()
        .find(|a| a.path == "maps/models.dh-map")
        .expect("the map is compiled");
    let v = parse(std::str::from_utf8(&map.bytes).unwrap()).unwrap();
    let objects = v.get("objects").and_then(|o| o.as_array()).unwrap();
    let parts = objects[0]
        .get("parts")
        .and_then(|p| p.as_array())
        .expect("the instance carries a parts table");
    assert_eq!(parts.len(), expected.len());
    for (k, (part, (name, structural))) in parts.iter().zip(&expected).enumerate() {
        assert_eq!(part.get("id").and_then(|i| i.as_f64()), Some(k as f64));
        let got = part.get("name").and_then(|n| n.as_str()).unwrap_or("");
        assert_eq!(got, name, "part {k}");
        let s = matches!(
            part.get("structural").map(|s| &s.kind),
            Some(Kind::Bool(true))
        );
        assert_eq!(s, *structural, "part {k} structural");
        assert!(part.get("localId").is_some(), "part {k} has a local id");
        assert!(part.get("objectId").is_some(), "part {k} has an object id");
    }
    // The mesh part draws, so it carries the generated renderer; the structural one none.
    assert!(parts[0].get("components").is_some());
    // The same sources bake the same table.
    let again = build("box2", "Box.glb", &glb);
    let map2 = again
        .assets
        .iter()
        .find(|a| a.path == "maps/models.dh-map")
        .unwrap();
    assert!(map.bytes == map2.bytes, "two builds bake the same table");
}

#[test]
fn a_draco_glb_is_an_error_at_the_instance_source() {
    let Some(glb) = fixture("gltf/Box_Draco.glb") else {
        return;
    };
    let out = build("draco", "Box_Draco.glb", &glb);
    assert!(out.pallet.is_none(), "an error writes no pallet");
    let errors: Vec<_> = out.diagnostics.errors().collect();
    assert_eq!(errors.len(), 1, "{}", out.diagnostics);
    let e = errors[0];
    assert_eq!(e.severity, Severity::Error);
    assert_eq!(e.file, "maps/models.dh-map");
    // The instance (and its `source`) is on line 5 of the map.
    assert_eq!(e.line, 5, "{}", out.diagnostics);
    assert!(
        e.message
            .starts_with("geometry: this map would fail to load"),
        "{}",
        e.message
    );
    assert!(
        e.message.contains("KHR_draco_mesh_compression"),
        "{}",
        e.message
    );
}

// ---- A folder of pieces, and FBX sources ---------------------------------------------------

/// A temporary source pallet holding `files` and a map placing `source` (its `source` on
/// line 5); built (kept until the returned guard drops).
struct Built {
    pallet: Pallet,
    out: BuildOutput,
}

fn build_files(tag: &str, source: &str, files: &[(&str, Vec<u8>)]) -> Built {
    let pallet = Pallet::with_files(&format!("build-models-{tag}"), files);
    let map = format!(
        "// a map placing one model\n{{\n  \"name\": \"Models\",\n  \"objects\": [\n    {{ \"$type\": \"instance\", \"id\": \"{ID}\", \"name\": \"world\", \"source\": \"{source}\" }},\n  ],\n}}\n"
    );
    pallet.write("maps/models.dh-map", map.as_bytes());
    let out = pallet.build();
    Built { pallet, out }
}

/// A GLB of two one-triangle meshes (0: `tri` (0,0,0) (1,0,0) (0,1,0) drawing `grid`; 1:
/// `long` (0,0,0) (2,0,0) (0,0,-3) drawing `metal`) with `nodes` and scene roots `roots`;
/// `extra` adds top-level members.
fn piece(nodes: &str, roots: &str, extra: &str) -> Vec<u8> {
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
        "nodes":[{nodes}],"scenes":[{{"nodes":[{roots}]}}]{extra}}}"#
    );
    glb(&json, &bin)
}

fn compiled_parts(out: &BuildOutput) -> Vec<Value> {
    let map = out
        .assets
        .iter()
        .find(|a| a.path == "maps/models.dh-map")
        .expect("the map is compiled");
    let v = parse(std::str::from_utf8(&map.bytes).unwrap()).unwrap();
    v.get("objects")
        .and_then(|o| o.as_array())
        .and_then(|o| o.first())
        .and_then(|w| w.get("parts"))
        .and_then(|p| p.as_array())
        .expect("the world carries its parts table")
        .to_vec()
}

/// A part's path, pivot, bounds and renderer slots: everything but its ids.
fn shape(p: &Value) -> String {
    let mut v = p.clone();
    if let Kind::Object(members) = &mut v.kind {
        members.retain(|m| !matches!(m.key.as_str(), "localId" | "objectId"));
    }
    v.to_json()
}

#[test]
fn a_folder_of_pieces_builds_as_one_model() {
    // Two pieces, each a root named `wall`: a.glb's at (1,0,0) drawing `grid`; b.glb's at
    // (0,0,5) drawing `metal`, with a child `cap` (drawing `grid`) 1 up.
    let a = piece(r#"{"name":"wall","mesh":0,"translation":[1,0,0]}"#, "0", "");
    let b = piece(
        r#"{"name":"wall","mesh":1,"translation":[0,0,5],"children":[1]},{"name":"cap","mesh":0,"translation":[0,1,0]}"#,
        "0",
        "",
    );
    let built = build_files(
        "pieces",
        "/meshes/yard",
        &[("meshes/yard/a.glb", a), ("meshes/yard/b.glb", b)],
    );
    let out = &built.out;
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    assert!(out.pallet.is_some());
    let parts = compiled_parts(out);
    // Read in path order as one scene: a's wall, then b's wall (a sibling of the first, so
    // `wall.001`, Blender-style), then its cap.
    let paths: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.get("path").and_then(|s| s.as_str()))
        .collect();
    assert_eq!(paths, ["wall", "wall.001", "wall.001/cap"]);
    let pivots: Vec<Vec<f64>> = parts
        .iter()
        .map(|p| {
            p.get("pivot")
                .and_then(|v| v.as_array())
                .unwrap()
                .iter()
                .filter_map(|n| n.as_f64())
                .collect()
        })
        .collect();
    assert_eq!(
        pivots,
        [
            vec![1.0, 0.0, 0.0],
            vec![0.0, 0.0, 5.0],
            vec![0.0, 1.0, 5.0]
        ]
    );
    // The folder's identity sidecar lies beside the folder.
    assert_eq!(out.writes.len(), 1);
    assert_eq!(out.writes[0].path, "meshes/yard.dh-ids");
    assert!(built.pallet.dir.join("meshes/yard.dh-ids").is_file());

    // One file holding both pieces' nodes gives the same table (ids aside: the barcode
    // differs).
    let whole = piece(
        r#"{"name":"wall","mesh":0,"translation":[1,0,0]},
           {"name":"wall","mesh":1,"translation":[0,0,5],"children":[2]},
           {"name":"cap","mesh":0,"translation":[0,1,0]}"#,
        "0,1",
        "",
    );
    let one = build_files(
        "pieces-one",
        "/meshes/yard.glb",
        &[("meshes/yard.glb", whole)],
    );
    assert!(!one.out.diagnostics.has_errors(), "{}", one.out.diagnostics);
    let single = compiled_parts(&one.out);
    let a: Vec<String> = parts.iter().map(shape).collect();
    let b: Vec<String> = single.iter().map(shape).collect();
    assert_eq!(a, b);
}

#[test]
fn a_piece_with_a_camera_is_refused_at_the_instance_source() {
    let ok = piece(r#"{"name":"wall","mesh":0}"#, "0", "");
    let cam = piece(
        r#"{"name":"wall","mesh":0},{"name":"eye","camera":0}"#,
        "0,1",
        r#","cameras":[{"type":"perspective","perspective":{"yfov":1,"znear":0.1}}]"#,
    );
    let built = build_files(
        "pieces-cam",
        "/meshes/yard",
        &[("meshes/yard/a.glb", ok), ("meshes/yard/b.glb", cam)],
    );
    let errors: Vec<_> = built.out.diagnostics.errors().collect();
    assert_eq!(errors.len(), 1, "{}", built.out.diagnostics);
    assert_eq!(errors[0].file, "maps/models.dh-map");
    assert_eq!(errors[0].line, 5);
    assert!(
        errors[0].message.contains("meshes/yard/b.glb")
            && errors[0]
                .message
                .contains("a piece may carry only meshes, nodes and materials"),
        "{}",
        errors[0].message
    );
    assert!(built.out.pallet.is_none());
}

#[test]
fn an_fbx_without_blender_is_an_error_naming_the_file() {
    use dh_content::gltf::find_blender;
    if let Some(b) = find_blender(std::env::var_os("PATH").as_deref()) {
        println!(
            "skipping: Blender is installed here ({}), so the FBX converts",
            b.display()
        );
        return;
    }
    let built = build_files(
        "fbx",
        "/meshes/robot.fbx",
        &[("meshes/robot.fbx", b"Kaydara FBX Binary  \0".to_vec())],
    );
    let errors: Vec<_> = built.out.diagnostics.errors().collect();
    assert_eq!(errors.len(), 1, "{}", built.out.diagnostics);
    assert_eq!(errors[0].file, "maps/models.dh-map");
    assert_eq!(errors[0].line, 5);
    assert_eq!(
        errors[0].message,
        "'meshes/robot.fbx' is an FBX model: dh build converts FBX to glTF through Blender, and no 'blender' executable was found on PATH; install Blender (or put it on PATH) and build again, or export the model as .glb (objects[0] \"world\")"
    );
    assert!(built.out.pallet.is_none());
}

#[test]
fn blender_is_looked_up_on_the_path_list() {
    use dh_content::gltf::find_blender;
    let base = std::env::temp_dir().join(format!("dh-find-blender-{}", std::process::id()));
    let (empty, with) = (base.join("empty"), base.join("bin"));
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::create_dir_all(&with).unwrap();
    let exe = with.join(if cfg!(windows) {
        "blender.exe"
    } else {
        "blender"
    });
    std::fs::write(&exe, b"").unwrap();
    let list = std::env::join_paths([&empty, &with]).unwrap();
    assert_eq!(find_blender(Some(&list)), Some(exe));
    let none = std::env::join_paths([&empty]).unwrap();
    assert_eq!(find_blender(Some(&none)), None);
    assert_eq!(find_blender(None), None);
    let _ = std::fs::remove_dir_all(&base);
}

// ---- A sidecar's ops reach the packaged GLB ---------------------------------------------------

/// `meshes/prop.glb`, built here: mesh 0 `Tri` is one triangle (0,0,0) (1,0,0) (0,1,0) with
/// normals +Z, tangents (1,0,0,+1), UVs (0,0) (1,0) (0,1), COLOR_0 red, green and
/// half-transparent blue, drawing material `paint`. Nodes: `Root` at [1,0,0] holding `Body`
/// (at its origin) and `Proxy` (at [0,0,-1]), and a second root `mesh_001` at [0,2,0]; all
/// three of `Body`, `Proxy` and `mesh_001` draw `Tri`.
fn prop_glb() -> Vec<u8> {
    let floats: Vec<f32> = [
        // POSITION
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0].as_slice(),
        // NORMAL
        &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
        // TANGENT
        &[1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0],
        // TEXCOORD_0
        &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
        // COLOR_0
        &[1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.5],
    ]
    .concat();
    let mut bin: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    bin.extend([0u16, 1, 2, 0].iter().flat_map(|i| i.to_le_bytes()));
    let json = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":184}],
 "bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":36},
  {"buffer":0,"byteOffset":72,"byteLength":48},{"buffer":0,"byteOffset":120,"byteLength":24},
  {"buffer":0,"byteOffset":144,"byteLength":48},{"buffer":0,"byteOffset":192,"byteLength":6}],
 "accessors":[{"bufferView":0,"componentType":5126,"type":"VEC3","count":3},
  {"bufferView":1,"componentType":5126,"type":"VEC3","count":3},
  {"bufferView":2,"componentType":5126,"type":"VEC4","count":3},
  {"bufferView":3,"componentType":5126,"type":"VEC2","count":3},
  {"bufferView":4,"componentType":5126,"type":"VEC4","count":3},
  {"bufferView":5,"componentType":5123,"type":"SCALAR","count":3}],
 "materials":[{"name":"paint"}],
 "meshes":[{"name":"Tri","primitives":[{"attributes":{"POSITION":0,"NORMAL":1,"TANGENT":2,"TEXCOORD_0":3,"COLOR_0":4},"indices":5,"material":0}]}],
 "nodes":[{"name":"Root","translation":[1,0,0],"children":[1,2]},{"name":"Body","mesh":0},
  {"name":"Proxy","translation":[0,0,-1],"mesh":0},{"name":"mesh_001","translation":[0,2,0],"mesh":0}],
 "scenes":[{"nodes":[0,3]}],"scene":0}"#;
    // The views above are laid out by hand; the buffer is 184 bytes of floats and indices
    // padded to 200 by `glb`.
    let json = json.replace(
        "\"byteLength\":184",
        &format!("\"byteLength\":{}", bin.len()),
    );
    glb(&json, &bin)
}

const PROP_SIDECAR: &str = r#"{ "ops": [
  { "kind": "drop", "target": "Proxy" },
  { "kind": "rename", "target": "mesh_001", "name": "Hull" },
  { "kind": "transform", "target": "Body", "position": [0, 0, 3], "scale": 2 }
] }"#;

/// Builds a pallet of `files` (and `pallet.dh`) under a fresh temporary folder.
fn build_dir(tag: &str, files: &[(&str, Vec<u8>)]) -> Built {
    let pallet = Pallet::with_files(&format!("build-models-{tag}"), files);
    let out = pallet.build();
    Built { pallet, out }
}

fn shipped<'a>(out: &'a BuildOutput, path: &str) -> &'a [u8] {
    &out.assets
        .iter()
        .find(|a| a.path == path)
        .unwrap_or_else(|| panic!("{path} is not in the pallet"))
        .bytes
}

/// The shipped model, read back through the importer, against the edits worked by hand:
/// `Proxy` dropped with its subtree, `mesh_001` named `Hull`, `Body` at [0,0,3] scaled 2
/// (its authored rotation, the identity, kept), and every vertex as authored.
fn check_edited_prop(glb: &[u8]) {
    use dh_content::gltf::import_glb;
    let m = import_glb(glb, "shipped").unwrap_or_else(|e| panic!("the shipped GLB imports: {e}"));
    assert_eq!(m.node_paths(), ["Root", "Root/Body", "Hull"]);
    let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["Root", "Body", "Hull"]);
    assert_eq!(m.roots, [0, 2]);
    assert_eq!(m.nodes[0].children, [1]);
    assert_eq!(m.nodes[1].parent, Some(0));
    let t = |x: f64, y: f64, z: f64, s: f64| {
        [
            s, 0.0, 0.0, 0.0, 0.0, s, 0.0, 0.0, 0.0, 0.0, s, 0.0, x, y, z, 1.0,
        ]
    };
    let close = |a: &glam::DMat4, b: [f64; 16], what: &str| {
        let a = a.to_cols_array();
        assert!(
            a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12),
            "{what}: {a:?}, expected {b:?}"
        );
    };
    close(&m.nodes[0].local, t(1.0, 0.0, 0.0, 1.0), "Root");
    close(
        &m.nodes[1].local,
        t(0.0, 0.0, 3.0, 2.0),
        "Body (transformed)",
    );
    close(&m.nodes[2].local, t(0.0, 2.0, 0.0, 1.0), "Hull");
    assert_eq!(m.meshes.len(), 1, "one mesh, drawn by both nodes");
    assert_eq!(
        (m.nodes[0].mesh, m.nodes[1].mesh, m.nodes[2].mesh),
        (None, Some(0), Some(0))
    );
    assert_eq!(m.meshes[0].name, "Tri");
    let p = &m.meshes[0].primitives[0];
    assert_eq!(m.meshes[0].primitives.len(), 1);
    assert_eq!(p.material.as_deref(), Some("paint"));
    assert_eq!(p.indices, [0, 1, 2]);
    assert_eq!(p.uv_sets, 1);
    let pos: Vec<[f32; 3]> = p.vertices.iter().map(|v| v.position).collect();
    assert_eq!(pos, [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    assert!(p.vertices.iter().all(|v| v.normal == [0.0, 0.0, 1.0]));
    assert!(p.vertices.iter().all(|v| v.tangent == [1.0, 0.0, 0.0, 1.0]));
    let uv: Vec<[f32; 2]> = p.vertices.iter().map(|v| v.uv0).collect();
    assert_eq!(uv, [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
    assert_eq!(
        p.color0.as_deref(),
        Some(
            [
                [1.0, 0.0, 0.0, 1.0],
                [0.0, 1.0, 0.0, 1.0],
                [0.0, 0.0, 1.0, 0.5]
            ]
            .as_slice()
        )
    );
    assert!(p.color1.is_none());
}

#[test]
fn a_sidecar_edits_the_glb_the_pallet_ships() {
    let built = build_files(
        "sidecar-ship",
        "/meshes/prop.glb",
        &[
            ("meshes/prop.glb", prop_glb()),
            ("meshes/prop.glb.dh-model", PROP_SIDECAR.as_bytes().to_vec()),
        ],
    );
    let out = &built.out;
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let glb = shipped(out, "meshes/prop.glb");
    assert_ne!(
        glb,
        prop_glb().as_slice(),
        "the edited model replaces the source"
    );
    check_edited_prop(glb);
    // Read independently: the dropped node's name is nowhere in the shipped JSON, and the
    // sidecar itself is not shipped.
    let doc = json_chunk(glb);
    let names: Vec<&str> = doc
        .get("nodes")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .filter_map(|n| n.get("name").and_then(Value::as_str))
        .collect();
    assert_eq!(names, ["Root", "Body", "Hull"]);
    assert!(out.assets.iter().all(|a| !a.path.ends_with(".dh-model")));
    // The compiled parts table names the edited parts.
    let paths: Vec<String> = compiled_parts(out)
        .iter()
        .filter_map(|p| p.get("path").and_then(Value::as_str).map(str::to_string))
        .collect();
    assert_eq!(paths, ["Root/Body", "Hull", "Root"]);
}

#[test]
fn two_builds_ship_the_same_edited_bytes() {
    let files = [
        ("meshes/prop.glb", prop_glb()),
        ("meshes/prop.glb.dh-model", PROP_SIDECAR.as_bytes().to_vec()),
    ];
    let a = build_files("sidecar-det-a", "/meshes/prop.glb", &files);
    let b = build_files("sidecar-det-b", "/meshes/prop.glb", &files);
    assert!(!a.out.diagnostics.has_errors(), "{}", a.out.diagnostics);
    assert_eq!(
        shipped(&a.out, "meshes/prop.glb"),
        shipped(&b.out, "meshes/prop.glb")
    );
    assert_eq!(a.out.pallet, b.out.pallet, "the pallets are byte-identical");
    // Writing the shipped model again (into the shipped GLB: the sidecar writer edits its
    // source in place) gives its bytes back.
    let again = dh_content::gltf::import_glb(shipped(&a.out, "meshes/prop.glb"), "x").unwrap();
    assert_eq!(
        dh_content::gltf::rewrite_glb(shipped(&a.out, "meshes/prop.glb"), &again).unwrap(),
        shipped(&a.out, "meshes/prop.glb")
    );
}

#[test]
fn an_objects_model_ships_edited_though_no_map_places_it() {
    let built = build_dir(
        "sidecar-object",
        &[
            ("meshes/prop.glb", prop_glb()),
            ("meshes/prop.glb.dh-model", PROP_SIDECAR.as_bytes().to_vec()),
            (
                "objects/prop.dh-obj",
                br#"{ "name": "Prop", "model": "/meshes/prop.glb" }"#.to_vec(),
            ),
        ],
    );
    assert!(
        !built.out.diagnostics.has_errors(),
        "{}",
        built.out.diagnostics
    );
    check_edited_prop(shipped(&built.out, "meshes/prop.glb"));
}

#[test]
fn a_sidecar_on_a_model_that_does_not_import_is_an_error_on_the_sidecar() {
    let mut broken = prop_glb();
    broken.truncate(40);
    let built = build_dir(
        "sidecar-broken",
        &[
            ("meshes/prop.glb", broken),
            ("meshes/prop.glb.dh-model", PROP_SIDECAR.as_bytes().to_vec()),
        ],
    );
    let errors: Vec<_> = built.out.diagnostics.errors().collect();
    assert_eq!(errors.len(), 1, "{}", built.out.diagnostics);
    assert_eq!(errors[0].file, "meshes/prop.glb.dh-model");
    assert!(
        errors[0]
            .message
            .starts_with("'meshes/prop.glb' does not import")
            && errors[0]
                .message
                .ends_with("this sidecar's ops cannot reach the packaged model"),
        "{}",
        errors[0].message
    );
    assert!(built.out.pallet.is_none());
}

/// The `glb_rewrite` fuzz target's corpus replays without a failed property, and so does
/// every GLB fixture under `../shared/fixtures/gltf` (skipped when absent): each that
/// imports is written and read back to the same node tree and the same geometry.
#[test]
fn glb_rewrite_corpus_and_fixtures_hold() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/glb_rewrite");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap_or_else(|e| panic!("the corpus folder {} is missing: {e}", corpus.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        files.len() >= 5,
        "the corpus has only {} files",
        files.len()
    );
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/gltf");
    match std::fs::read_dir(&fixtures) {
        Ok(dir) => files.extend(
            dir.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "glb")),
        ),
        Err(_) => println!("skipping the fixtures: {} is absent", fixtures.display()),
    }
    files.sort();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_glb_rewrite(&bytes));
        assert!(r.is_ok(), "{} fails a property", f.display());
    }
}

#[test]
fn an_fbx_only_an_object_names_converts_or_is_an_error_on_the_object() {
    use dh_content::gltf::find_blender;
    if let Some(b) = find_blender(std::env::var_os("PATH").as_deref()) {
        println!(
            "skipping: Blender is installed here ({}), so the FBX converts",
            b.display()
        );
        return;
    }
    let built = build_dir(
        "object-fbx",
        &[
            ("meshes/robot.fbx", b"Kaydara FBX Binary  \0".to_vec()),
            (
                "objects/robot.dh-obj",
                br#"{ "name": "Robot", "model": "/meshes/robot.fbx" }"#.to_vec(),
            ),
        ],
    );
    let errors: Vec<_> = built.out.diagnostics.errors().collect();
    assert_eq!(errors.len(), 1, "{}", built.out.diagnostics);
    assert_eq!(errors[0].file, "objects/robot.dh-obj");
    assert_eq!(
        errors[0].message,
        "'meshes/robot.fbx' is an FBX model: dh build converts FBX to glTF through Blender, and no 'blender' executable was found on PATH; install Blender (or put it on PATH) and build again, or export the model as .glb"
    );
    assert!(built.out.pallet.is_none());
}

/// A map placing Box.glb twice under `names`, with `autoCollision` when given.
fn two_placements(names: [&str; 2], auto: Option<&str>) -> String {
    let auto = auto.map_or(String::new(), |a| format!("  \"autoCollision\": {a},\n"));
    format!(
        "{{\n  \"name\": \"Yard\",\n{auto}  \"objects\": [\n    {{ \"$type\": \"instance\", \"id\": \"{ID}\", \"name\": \"{}\", \"source\": \"/meshes/Box.glb\" }},\n    {{ \"$type\": \"instance\", \"id\": \"9d2b1f0c-5a4e-4c3b-9f1d-2e6a8b0c4d12\", \"name\": \"{}\", \"source\": \"/meshes/Box.glb\", \"position\": [4, 0, 0] }}\n  ]\n}}\n",
        names[0], names[1]
    )
}

#[test]
fn models_placed_without_a_world_instance_warn_once_that_nothing_collides() {
    // ours: the rule is 000's "A map without a world instance has no automatic
    // collision"; the warning names it and the two fixes.
    let Some(glb) = fixture("gltf/Box.glb") else {
        return;
    };
    let warned = |text: String| {
        let p = Pallet::new("build-models-no-world");
        p.write("meshes/Box.glb", &glb);
        p.write("maps/yard.dh-map", text.as_bytes());
        let out = p.build();
        assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
        out.diagnostics
            .items
            .iter()
            .filter(|d| d.message.contains("none is named 'world'"))
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
    };
    let w = warned(two_placements(["truck", "crate"], None));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("maps/yard.dh-map:4:") && w[0].contains("warning: objects[0]: the map places 2 model instance(s) but none is named 'world', so none is given collision"),
        "{w:?}"
    );
    assert!(
        w[0].contains("name the ground's instance \"world\", or author a dh.collider"),
        "{w:?}"
    );
    // A world instance, or collision turned off on purpose, says nothing.
    assert!(warned(two_placements(["world", "crate"], None)).is_empty());
    assert!(warned(two_placements(["truck", "crate"], Some("false"))).is_empty());
}
