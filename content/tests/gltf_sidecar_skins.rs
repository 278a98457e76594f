//! A `.dh-model` sidecar edits only the scene graph (spec: dh.object, "Sidecar Files";
//! runtime assets, "What the map importer leaves out": skinning, blendshape and animation
//! data ship untouched). CesiumMan.glb and Fox.glb from `../shared/fixtures/gltf` (read in
//! place; the tests skip with a line when the folder is absent), edited by a rename and a
//! transform, are read back with the `gltf` crate and compared with their source: skins,
//! joints, inverse bind matrices, animations and images as they were.

use std::path::PathBuf;

mod support;
use support::glb;

use dh_content::diag::{Diagnostics, SourceFile};
use dh_content::gltf::{apply_sidecar, import_glb_with, rewrite_glb, ImportOptions, Purpose};
use dh_content::read::Mode;
use dh_content::schema::model::read_model_sidecar;

fn fixture(name: &str) -> Option<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/gltf");
    if !dir.is_dir() {
        println!("skipping: {} is absent", dir.display());
        return None;
    }
    Some(std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}")))
}

fn object() -> ImportOptions {
    ImportOptions {
        purpose: Purpose::Object,
        ..ImportOptions::default()
    }
}

/// The bytes an accessor reads: its view's bytes from its offset on (the GLB's one blob).
fn accessor_bytes<'a>(a: &gltf::Accessor<'_>, blob: &'a [u8]) -> &'a [u8] {
    let v = a.view().expect("a buffer view");
    let start = v.offset() + a.offset();
    &blob[start..v.offset() + v.length()]
}

fn find<'a>(d: &'a gltf::Document, name: &str) -> Option<gltf::Node<'a>> {
    d.nodes().find(|n| n.name() == Some(name))
}

fn view_bytes<'a>(v: &gltf::buffer::View<'_>, blob: &'a [u8]) -> &'a [u8] {
    &blob[v.offset()..v.offset() + v.length()]
}

/// Edits `file` by `sidecar` and checks what shipped against the source; returns the
/// shipped bytes.
fn edit_and_compare(file: &str, sidecar: &str, renamed: (&str, &str), moved: &str) -> Vec<u8> {
    let Some(src) = fixture(file) else {
        return Vec::new();
    };
    let mut model = import_glb_with(&src, file, &object()).unwrap_or_else(|e| panic!("{e}"));
    let sc = SourceFile::new(format!("{file}.dh-model"), sidecar);
    let mut diags = Diagnostics::new();
    let sidecar = read_model_sidecar(&sc, &mut diags, Mode::Build).expect("the sidecar reads");
    assert!(diags.items.is_empty(), "{diags}");
    let outcome = apply_sidecar(&mut model, &sidecar);
    assert!(outcome.applied && outcome.diags.is_empty(), "{outcome:?}");

    let out = rewrite_glb(&src, &model).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        rewrite_glb(&src, &model).unwrap(),
        out,
        "{file}: the same input gives the same bytes"
    );
    let a = gltf::Gltf::from_slice(&src).expect("the source reads");
    let b = gltf::Gltf::from_slice(&out).unwrap_or_else(|e| panic!("{file}: shipped: {e}"));
    let (ablob, bblob) = (a.blob.as_deref().unwrap(), b.blob.as_deref().unwrap());
    assert_eq!(ablob, bblob, "{file}: the BIN chunk ships unchanged");

    // The edits.
    let name_of = |d: &gltf::Document, i: usize| {
        d.nodes()
            .nth(i)
            .and_then(|n| n.name().map(str::to_string))
            .unwrap_or_default()
    };
    assert!(find(&b.document, renamed.0).is_none(), "{file}: renamed");
    let hero = find(&b.document, renamed.1).expect("the renamed node");
    let was = find(&a.document, renamed.0).unwrap();
    assert_eq!(
        hero.mesh().map(|m| m.index()),
        was.mesh().map(|m| m.index())
    );
    assert_eq!(
        hero.skin().map(|s| s.index()),
        was.skin().map(|s| s.index())
    );
    let (bm, am) = (
        find(&b.document, moved).unwrap().transform().matrix(),
        find(&a.document, moved).unwrap().transform().matrix(),
    );
    assert_ne!(bm, am, "{file}: '{moved}' moved");

    // Skins: joints by name, inverse bind matrices byte for byte.
    assert_eq!(a.document.skins().len(), b.document.skins().len(), "{file}");
    assert!(a.document.skins().len() > 0);
    for (sa, sb) in a.document.skins().zip(b.document.skins()) {
        let ja: Vec<String> = sa
            .joints()
            .map(|j| name_of(&a.document, j.index()))
            .collect();
        let jb: Vec<String> = sb
            .joints()
            .map(|j| name_of(&b.document, j.index()))
            .collect();
        assert_eq!(ja, jb, "{file}: joint names");
        assert!(!ja.is_empty());
        let (ia, ib) = (
            sa.inverse_bind_matrices().unwrap(),
            sb.inverse_bind_matrices().unwrap(),
        );
        assert_eq!(ia.count(), ib.count());
        assert_eq!(
            accessor_bytes(&ia, ablob),
            accessor_bytes(&ib, bblob),
            "{file}: inverse bind matrices"
        );
        assert_eq!(
            sa.skeleton().map(|s| name_of(&a.document, s.index())),
            sb.skeleton().map(|s| name_of(&b.document, s.index()))
        );
    }
    // Animations: channel targets by node name and property, samplers' data byte for byte.
    assert_eq!(a.document.animations().len(), b.document.animations().len());
    assert!(a.document.animations().len() > 0);
    for (aa, ab) in a.document.animations().zip(b.document.animations()) {
        assert_eq!(aa.name(), ab.name());
        assert_eq!(aa.channels().count(), ab.channels().count(), "{file}");
        for (ca, cb) in aa.channels().zip(ab.channels()) {
            let ta = (
                name_of(&a.document, ca.target().node().index()),
                ca.target().property(),
            );
            let tb = (
                name_of(&b.document, cb.target().node().index()),
                cb.target().property(),
            );
            assert_eq!(ta, tb, "{file}: channel target");
            let (sa, sb) = (ca.sampler(), cb.sampler());
            assert_eq!(sa.interpolation(), sb.interpolation());
            assert_eq!(
                accessor_bytes(&sa.input(), ablob),
                accessor_bytes(&sb.input(), bblob)
            );
            assert_eq!(
                accessor_bytes(&sa.output(), ablob),
                accessor_bytes(&sb.output(), bblob)
            );
        }
    }
    // Images (and what samples them), byte for byte.
    assert_eq!(a.document.images().len(), b.document.images().len());
    assert!(a.document.images().len() > 0);
    for (ia, ib) in a.document.images().zip(b.document.images()) {
        match (ia.source(), ib.source()) {
            (
                gltf::image::Source::View {
                    view: va,
                    mime_type: ma,
                },
                gltf::image::Source::View {
                    view: vb,
                    mime_type: mb,
                },
            ) => {
                assert_eq!(ma, mb);
                assert_eq!(view_bytes(&va, ablob), view_bytes(&vb, bblob), "{file}");
            }
            _ => panic!("{file}: an image moved out of the BIN chunk"),
        }
    }
    assert_eq!(a.document.textures().len(), b.document.textures().len());
    assert_eq!(a.document.samplers().len(), b.document.samplers().len());
    assert_eq!(a.document.materials().len(), b.document.materials().len());
    assert_eq!(a.document.meshes().len(), b.document.meshes().len());
    for (ma, mb) in a.document.meshes().zip(b.document.meshes()) {
        for (pa, pb) in ma.primitives().zip(mb.primitives()) {
            let ka: Vec<_> = pa.attributes().map(|(s, x)| (s, x.index())).collect();
            let kb: Vec<_> = pb.attributes().map(|(s, x)| (s, x.index())).collect();
            assert_eq!(
                ka, kb,
                "{file}: attributes (JOINTS_0 and WEIGHTS_0 among them)"
            );
            assert_eq!(pa.morph_targets().count(), pb.morph_targets().count());
        }
    }

    // The shipped GLB imports to the edited model's tree.
    let back = import_glb_with(&out, file, &object()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.node_paths(), model.node_paths(), "{file}");
    out
}

#[test]
fn cesium_man_ships_its_skin_animation_and_image_through_a_sidecar() {
    edit_and_compare(
        "CesiumMan.glb",
        r#"{ "ops": [
  { "kind": "rename", "target": "Cesium_Man", "name": "Hero" },
  { "kind": "transform", "target": "Z_UP", "position": [0, 1, 0], "rotation": [0, 90, 0] }
] }"#,
        ("Cesium_Man", "Hero"),
        "Z_UP",
    );
}

#[test]
fn fox_ships_its_skin_animations_and_image_through_a_sidecar() {
    edit_and_compare(
        "Fox.glb",
        r#"{ "ops": [
  { "kind": "rename", "target": "fox", "name": "Vixen" },
  { "kind": "transform", "target": "root", "position": [1, 0, 0], "scale": 0.5 }
] }"#,
        ("fox", "Vixen"),
        "root",
    );
}

/// A merge needs new data: the merged mesh is appended after the source's BIN bytes, which
/// ship unchanged (an image among them), and the folded node leaves the file.
#[test]
fn a_merge_appends_its_mesh_after_the_unchanged_bin_chunk() {
    let tri: [f32; 9] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let mut bin: Vec<u8> = tri.iter().flat_map(|f| f.to_le_bytes()).collect();
    bin.extend_from_slice(b"PNG-BYTES!");
    let json = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":46}],
 "bufferViews":[{"buffer":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":10}],
 "accessors":[{"bufferView":0,"componentType":5126,"type":"VEC3","count":3,"min":[0,0,0],"max":[1,1,0]}],
 "images":[{"bufferView":1,"mimeType":"image/png"}],"samplers":[{}],"textures":[{"sampler":0,"source":0}],
 "materials":[{"name":"m","pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}],
 "meshes":[{"name":"Tri","primitives":[{"attributes":{"POSITION":0},"material":0}]}],
 "nodes":[{"name":"A","mesh":0,"translation":[1,0,0]},{"name":"B","mesh":0,"translation":[0,0,2]}],
 "scenes":[{"nodes":[0,1]}],"scene":0}"#;
    let src = glb(json, &bin);
    let mut model = import_glb_with(&src, "m.glb", &object()).unwrap();
    let sc = SourceFile::new(
        "m.glb.dh-model",
        r#"{ "ops": [ { "kind": "merge", "target": "A", "with": ["B"] } ] }"#,
    );
    let mut diags = Diagnostics::new();
    let sidecar = read_model_sidecar(&sc, &mut diags, Mode::Build).unwrap();
    assert!(apply_sidecar(&mut model, &sidecar).applied);
    let out = rewrite_glb(&src, &model).unwrap();
    let b = gltf::Gltf::from_slice(&out).unwrap_or_else(|e| panic!("{e}"));
    let blob = b.blob.as_deref().unwrap();
    assert_eq!(
        &blob[..bin.len()],
        bin.as_slice(),
        "the source's bytes first"
    );
    assert_eq!(b.document.nodes().count(), 1, "B left the file");
    let img = b.document.images().next().unwrap();
    let gltf::image::Source::View { view, .. } = img.source() else {
        panic!("the image is in the BIN chunk");
    };
    assert_eq!(view_bytes(&view, blob), b"PNG-BYTES!");
    assert_eq!(b.document.textures().count(), 1);
    let back = import_glb_with(&out, "m.glb", &object()).unwrap();
    assert_eq!(back.node_paths(), ["A"]);
    let prims = &back.meshes[0].primitives;
    assert_eq!(prims.len(), 2);
    assert_eq!(prims[1].vertices[1].position, [0.0, 0.0, 2.0]);
    assert_eq!(prims[1].material.as_deref(), Some("m"));
}
