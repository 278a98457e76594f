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
