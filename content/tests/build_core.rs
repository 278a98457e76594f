//! `dh build content/core` succeeds, and a second build is byte-identical.

use std::path::PathBuf;

use dh_content::compile::{compile, CompileOptions};
use dh_content::pallet::Pallet;

fn core() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("core")
}

fn build() -> Vec<u8> {
    let out = compile(
        &core(),
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    assert!(
        out.diagnostics.items.is_empty(),
        "warnings:\n{}",
        out.diagnostics
    );
    out.pallet.expect("a build with no errors writes a pallet")
}

#[test]
fn the_core_pallet_builds_byte_identically_twice() {
    let a = build();
    let b = build();
    assert_eq!(a.len(), b.len());
    assert!(a == b, "two builds of content/core differ");
}

#[test]
fn the_core_pallet_holds_what_the_spec_names() {
    let p = Pallet::from_bytes(build()).expect("the built pallet reads");
    assert_eq!(p.manifest().id, "core");
    for path in [
        "maps/debug-map.dh-map",
        "maps/logic-map.dh-map",
        "maps/physics-eval.dh-map",
        "maps/render-eval.dh-map",
        // Spec 001, "Vertex colors": "The core pallet's maps/vertex-color-eval".
        "maps/vertex-color-eval.dh-map",
        "objects/physicsCube.dh-obj",
        "materials/dev-grid.dh-mat",
    ] {
        let e = p.read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let text = std::str::from_utf8(&e).expect("compiled JSON is UTF-8");
        let v = dh_content::jsonc::parse(text).expect("compiled JSON parses");
        let ty = v.get("$type").and_then(|t| t.as_str());
        let want = match path.rsplit('.').next() {
            Some("dh-map") => "dh.map",
            Some("dh-obj") => "dh.object",
            _ => "dh.material",
        };
        assert_eq!(ty, Some(want), "{path} carries $type {want}");
    }
    // The README is documentation, not content.
    assert!(p.entry("README.md").is_none());
    let checksum = &p.manifest().build_info.content_checksum;
    assert_eq!(checksum.len(), 64);
}

#[test]
fn compiled_maps_read_back_at_load_with_no_diagnostics() {
    let p = Pallet::from_bytes(build()).expect("the built pallet reads");
    for e in p.entries() {
        if !e.path.ends_with(".dh-map") {
            continue;
        }
        let bytes = p.read(e.path).expect("entry reads");
        let file =
            dh_content::diag::SourceFile::new(e.path, String::from_utf8_lossy(&bytes).into_owned());
        let mut d = dh_content::diag::Diagnostics::new();
        let map = dh_content::schema::map::read_map(&file, &mut d, dh_content::read::Mode::Load);
        assert!(map.is_some() && d.items.is_empty(), "{}: {d}", e.path);
    }
}

#[test]
fn a_compiled_object_carries_its_resolved_member() {
    let p = Pallet::from_bytes(build()).expect("the built pallet reads");
    let bytes = p.read("objects/physicsCube.dh-obj").expect("entry reads");
    let v = dh_content::jsonc::parse(std::str::from_utf8(&bytes).expect("UTF-8")).expect("JSON");
    let resolved = v.get("resolved").expect("the compiler adds 'resolved'");
    let types: Vec<&str> = resolved
        .get("components")
        .and_then(|c| c.as_array())
        .expect("resolved components")
        .iter()
        .filter_map(|c| c.get("$type").and_then(|t| t.as_str()))
        .collect();
    // core:objects/physicsCube.dh-obj: "a 0.5 m orange crate at 30 kg" — a box, its collider
    // and the physics prop.
    assert!(types.contains(&"dh.box"), "{types:?}");
    assert!(types.contains(&"dh.physicsProp"), "{types:?}");
    // Every reference in 'resolved' is a barcode.
    let material = resolved
        .get("components")
        .and_then(|c| c.as_array())
        .and_then(|l| {
            l.iter()
                .find(|c| c.get("$type").and_then(|t| t.as_str()) == Some("dh.box"))
        })
        .and_then(|b| b.get("material"))
        .and_then(|m| m.as_str())
        .expect("the box names its material");
    assert!(material.starts_with("core:"), "{material}");
}
