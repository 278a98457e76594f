//! `dh build` imports the GLB each model instance places: the compiled map's instance
//! carries the baked parts table, and a model the map importer would refuse is an error at
//! the instance's `source`.
//!
//! The GLBs are read from `../shared/fixtures` (Box.glb: CC-BY 4.0, Cesium; Box_Draco.glb:
//! Apache-2.0 draco tools over the same model); when absent the tests print a line and
//! skip.

use std::path::{Path, PathBuf};

use dh_content::compile::{compile, BuildOutput, CompileOptions};
use dh_content::diag::Severity;
use dh_content::jsonc::{parse, Kind, Value};

const ID: &str = "7d2b1f0c-5a4e-4c3b-9f1d-2e6a8b0c4d11";

fn fixture(rel: &str) -> Option<Vec<u8>> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures")
        .join(rel);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(_) => {
            println!("skipping: the fixture {} is absent", p.display());
            None
        }
    }
}

/// The map's text: one model instance placing `meshes/<model>` (its `source` on line 5).
fn map_text(model: &str) -> String {
    format!(
        "// a map placing one model\n{{\n  \"name\": \"Models\",\n  \"objects\": [\n    {{ \"$type\": \"instance\", \"id\": \"{ID}\", \"name\": \"world\", \"source\": \"/meshes/{model}\" }},\n  ],\n}}\n"
    )
}

/// A temporary source pallet holding `meshes/<model>` (the fixture's bytes) and a map
/// placing it; built, then removed.
fn build(tag: &str, model: &str, bytes: &[u8]) -> BuildOutput {
    let dir = std::env::temp_dir().join(format!("dh-build-models-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let write = |rel: &str, b: &[u8]| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap_or(Path::new("."))).unwrap();
        std::fs::write(p, b).unwrap();
    };
    write(
        "pallet.dh",
        b"{ \"id\": \"dev.example.models\", \"name\": \"Models\", \"version\": \"1.0.0\" }",
    );
    write(&format!("meshes/{model}"), bytes);
    write("maps/models.dh-map", map_text(model).as_bytes());
    let out = compile(
        &dir,
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    let _ = std::fs::remove_dir_all(&dir);
    out
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
    dir: PathBuf,
    out: BuildOutput,
}

impl Drop for Built {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn build_files(tag: &str, source: &str, files: &[(&str, Vec<u8>)]) -> Built {
    let dir = std::env::temp_dir().join(format!("dh-build-models-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let write = |rel: &str, b: &[u8]| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap_or(Path::new("."))).unwrap();
        std::fs::write(p, b).unwrap();
    };
    write(
        "pallet.dh",
        b"{ \"id\": \"dev.example.models\", \"name\": \"Models\", \"version\": \"1.0.0\" }",
    );
    for (rel, bytes) in files {
        write(rel, bytes);
    }
    let map = format!(
        "// a map placing one model\n{{\n  \"name\": \"Models\",\n  \"objects\": [\n    {{ \"$type\": \"instance\", \"id\": \"{ID}\", \"name\": \"world\", \"source\": \"{source}\" }},\n  ],\n}}\n"
    );
    write("maps/models.dh-map", map.as_bytes());
    let out = compile(
        &dir,
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    Built { dir, out }
}

fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while j.len() & 3 != 0 {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while b.len() & 3 != 0 {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + 8 + b.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(0x4E4F534Au32.to_le_bytes());
    out.extend(j);
    out.extend((b.len() as u32).to_le_bytes());
    out.extend(0x004E4942u32.to_le_bytes());
    out.extend(b);
    out
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
    assert!(built.dir.join("meshes/yard.dh-ids").is_file());

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
        "'meshes/robot.fbx' is an FBX model: dh build converts FBX to glTF through Blender, and no 'blender' executable was found on PATH; install Blender (or put it on PATH) and build again, or export the model as .glb"
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
