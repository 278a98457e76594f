//! Vertex colors on a placed model, through the compiler, the mount and the extract (spec
//! 001, "Vertex colors"; spec 003, "GPU vertex streams"): a cube whose COLOR_0 is red and
//! whose COLOR_1 is green everywhere, its one primitive on material slot `stone`.
//!
//! The keep rule (001: "A map keeps COLOR_1 only when a material in its materials table
//! reads it through detail.vertexWeight ... Objects and avatars keep their COLOR_1"):
//!
//! * map `plain` binds `stone` to a tint-only material and places the cube twice: the one
//!   shared asset's color run holds COLOR_0 red and COLOR_1 zero (never read). It also
//!   places object `cube.dh-obj` (the same model, its slot bound per part to the same
//!   tint-only material): the object's part keeps its COLOR_1 green.
//! * map `layered` binds `stone` to a material with `detail.vertexWeight: "g"`: the cube's
//!   color run holds COLOR_1 green, and the material's layer reaches the frame.

mod support;

use dh_content::mesh::COLOR_STRIDE;
use dh_engine::extract::{self, ExtractCache};
use dh_gpu::render::frame::{MeshInstance, RenderFrame};
use support::{box_geometry, host_and_map, pallet_bytes, GlbBuilder, SourcePallet};

/// A unit cube (8 shared corners, no NORMAL), COLOR_0 (1, 0, 0) and COLOR_1 (0, 1, 0) as
/// float VEC3 at every corner, material `stone`.
fn painted_cube() -> Vec<u8> {
    let mut g = GlbBuilder::new();
    let (v, i) = box_geometry([1.0, 1.0, 1.0]);
    let pos = g.positions(&v);
    let c0 = g.positions_unbounded(&vec![[1.0, 0.0, 0.0]; v.len()]);
    let c1 = g.positions_unbounded(&vec![[0.0, 1.0, 0.0]; v.len()]);
    let idx = g.indices(&i);
    let rest = format!(
        r#""materials":[{{"name":"stone"}}],
"meshes":[{{"name":"CubeMesh","primitives":[{{"attributes":{{"POSITION":{pos},"COLOR_0":{c0},"COLOR_1":{c1}}},"indices":{idx},"material":0}}]}}],
"nodes":[{{"name":"cube","mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0"#
    );
    g.finish(&rest)
}

const PLAIN: &str = r#"{
  "name": "Plain",
  "autoCollision": false,
  "materials": { "stone": "/materials/plain.dh-mat" },
  "objects": [
    { "$type": "instance", "id": "5e0c7a10-6a51-4c1e-9d0b-3f2a1b4c5d61", "name": "a", "source": "/meshes/cube.glb" },
    { "$type": "instance", "id": "5e0c7a10-6a51-4c1e-9d0b-3f2a1b4c5d62", "name": "b", "source": "/meshes/cube.glb",
      "position": [3, 0, 0] },
    { "$type": "instance", "id": "5e0c7a10-6a51-4c1e-9d0b-3f2a1b4c5d63", "name": "obj", "source": "/objects/cube.dh-obj",
      "position": [-3, 0, 0] }
  ]
}
"#;

const LAYERED: &str = r#"{
  "name": "Layered",
  "autoCollision": false,
  "materials": { "stone": "/materials/layer.dh-mat" },
  "objects": [
    { "$type": "instance", "id": "5e0c7a10-6a51-4c1e-9d0b-3f2a1b4c5d71", "name": "a", "source": "/meshes/cube.glb" }
  ]
}
"#;

const OBJECT: &str = r#"{
  "name": "Cube",
  "model": "/meshes/cube.glb",
  "children": [
    { "path": "cube", "components": [
      { "$type": "dh.renderer", "materials": { "stone": "/materials/plain.dh-mat" } } ] }
  ]
}
"#;

const PLAIN_MAT: &str = r#"{ "tint": [0.8, 0.8, 0.8] }"#;
const LAYER_MAT: &str =
    r#"{ "tint": [0.8, 0.8, 0.8], "detail": { "vertexWeight": "g", "tint": [0.2, 0.6, 0.15] } }"#;

/// Inherits the layer and restates only its scale: the layer's detail (and so COLOR_1) is
/// its parent's.
const CHILD_MAT: &str = r#"{ "inherits": "layer.dh-mat", "uvScale": [2, 2] }"#;
/// Inherits the core's dev orange across pallets: its measure-grid texture is named in
/// core's file, relative to it.
const CRATE_MAT: &str = r#"{ "inherits": "core:materials/dev-orange.dh-mat", "shader": "unlit" }"#;

const INHERITED: &str = r#"{
  "name": "Inherited",
  "autoCollision": false,
  "materials": { "stone": "/materials/child.dh-mat", "crate": "/materials/crate.dh-mat" },
  "objects": [
    { "$type": "instance", "id": "5e0c7a10-6a51-4c1e-9d0b-3f2a1b4c5d81", "name": "a", "source": "/meshes/cube.glb" }
  ]
}
"#;

const PALLET: &str = "dev.example.painted";

fn pallet(tag: &str) -> std::path::PathBuf {
    let pallet = SourcePallet::fresh("dh-vertex-colors", tag);
    pallet.manifest(PALLET, "Painted");
    pallet.write("meshes/cube.glb", &painted_cube());
    pallet.write("materials/plain.dh-mat", PLAIN_MAT.as_bytes());
    pallet.write("materials/layer.dh-mat", LAYER_MAT.as_bytes());
    pallet.write("objects/cube.dh-obj", OBJECT.as_bytes());
    pallet.write("maps/plain.dh-map", PLAIN.as_bytes());
    pallet.write("maps/layered.dh-map", LAYERED.as_bytes());
    pallet.write("materials/child.dh-mat", CHILD_MAT.as_bytes());
    pallet.write("materials/crate.dh-mat", CRATE_MAT.as_bytes());
    pallet.write("maps/inherited.dh-map", INHERITED.as_bytes());
    let out = pallet.compile(true, "painted");
    pallet.save("painted.pallet", &pallet_bytes(&out))
}

/// Each vertex's color run entry: COLOR_0 as four u16, COLOR_1 as four u8.
fn color_run(inst: &MeshInstance) -> Vec<([u16; 4], [u8; 4])> {
    let p = &inst.mesh.packed;
    let o = p
        .color_offset
        .unwrap_or_else(|| panic!("the cube ships a color run"));
    (0..p.vertex_count as usize)
        .map(|v| {
            let e = &p.bytes[o + v * COLOR_STRIDE as usize..][..COLOR_STRIDE as usize];
            let c0 = [0, 1, 2, 3].map(|k| u16::from_le_bytes([e[2 * k], e[2 * k + 1]]));
            (c0, [e[8], e[9], e[10], e[11]])
        })
        .collect()
}

/// The mesh instance standing at `x` (the placements are 3 m apart along X).
fn at_x(frame: &RenderFrame, x: f32) -> &MeshInstance {
    frame
        .meshes
        .iter()
        .find(|i| (i.world.w_axis.x - x).abs() < 1e-3)
        .unwrap_or_else(|| panic!("no mesh at x {x}"))
}

#[test]
fn a_map_keeps_color1_only_when_a_material_reads_it_and_objects_always() {
    let file = pallet("keep");

    // `plain`: no vertexWeight in the table.
    let (host, catalog, m) =
        host_and_map(std::slice::from_ref(&file), &format!("{PALLET}:maps/plain"));
    let mut cache = ExtractCache::new();
    let x = extract::extract_with(&host, &catalog, &m, &mut cache);
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    assert_eq!(cache.map_keeps_color1(), Some(false));
    assert_eq!(
        x.frame.meshes.len(),
        3,
        "two placements and the object's part"
    );
    assert!(
        x.notes.iter().all(|n| !n.contains("COLOR_1")),
        "{:?}",
        x.notes
    );
    for px in [0.0, 3.0] {
        let run = color_run(at_x(&x.frame, px));
        // No NORMAL: flat normals, a vertex per triangle corner (12 triangles).
        assert_eq!(run.len(), 36);
        for (v, (c0, c1)) in run.iter().enumerate() {
            assert_eq!(
                *c0,
                [65535, 0, 0, 65535],
                "map part at {px}, vertex {v} COLOR_0"
            );
            assert_eq!(
                *c1, [0; 4],
                "map part at {px}, vertex {v}: COLOR_1 not kept"
            );
        }
    }
    // The two map placements share one asset; the object's part is its own import.
    assert!(std::sync::Arc::ptr_eq(
        &at_x(&x.frame, 0.0).mesh,
        &at_x(&x.frame, 3.0).mesh
    ));
    assert_eq!(cache.models().decodes(), 2);
    for (v, (c0, c1)) in color_run(at_x(&x.frame, -3.0)).iter().enumerate() {
        assert_eq!(*c0, [65535, 0, 0, 65535], "object part, vertex {v} COLOR_0");
        assert_eq!(
            *c1,
            [0, 255, 0, 255],
            "object part, vertex {v}: COLOR_1 kept"
        );
    }

    // `layered`: `stone` reads COLOR_1's green.
    let (host, catalog, m) = host_and_map(&[file], &format!("{PALLET}:maps/layered"));
    let mut cache = ExtractCache::new();
    let x = extract::extract_with(&host, &catalog, &m, &mut cache);
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    assert_eq!(cache.map_keeps_color1(), Some(true));
    let inst = at_x(&x.frame, 0.0);
    for (v, (c0, c1)) in color_run(inst).iter().enumerate() {
        assert_eq!(*c0, [65535, 0, 0, 65535], "vertex {v} COLOR_0");
        assert_eq!(*c1, [0, 255, 0, 255], "vertex {v}: COLOR_1 kept");
    }
    let material = &x.frame.materials[inst.materials[0] as usize];
    let detail = material
        .detail
        .unwrap_or_else(|| panic!("the layer material draws its detail: {material:?}"));
    assert_eq!(detail.channel, 1, "vertexWeight g");
    // sRGB 0.6 is linear 0.3185 (the tint goes to linear light as every tint does).
    assert!(
        (detail.color.y - 0.3185).abs() < 0.002,
        "{:?}",
        detail.color
    );
    assert_eq!(detail.color.w, 1.0);
}

/// A material reads what it does not set from its `inherits` chain (dh.material is ours:
/// the one merge rule, references meaning what they meant in their own file): the child
/// of the layer keeps COLOR_1 for the map and draws the layer's detail at its own scale;
/// the child of core's dev orange wears core's tint and its measure-grid texture.
#[test]
fn a_material_reads_what_it_does_not_set_from_its_parent() {
    let file = pallet("inherits");
    let (host, catalog, m) = host_and_map(&[file], &format!("{PALLET}:maps/inherited"));
    let mut cache = ExtractCache::new();
    let x = extract::extract_with(&host, &catalog, &m, &mut cache);
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    assert_eq!(
        cache.map_keeps_color1(),
        Some(true),
        "the parent's detail reads COLOR_1"
    );
    let inst = at_x(&x.frame, 0.0);
    for (v, (_, c1)) in color_run(inst).iter().enumerate() {
        assert_eq!(*c1, [0, 255, 0, 255], "vertex {v}: COLOR_1 kept");
    }
    let stone = &x.frame.materials[inst.materials[0] as usize];
    assert_eq!(stone.uv_scale, [2.0, 2.0], "its own member");
    let detail = stone
        .detail
        .unwrap_or_else(|| panic!("the inherited detail: {stone:?}"));
    assert_eq!(detail.channel, 1, "the parent's vertexWeight g");
    // The parent's tint 0.8 sRGB is linear 0.6038.
    assert!(
        (stone.base_color.x - 0.6038).abs() < 0.002,
        "{:?}",
        stone.base_color
    );

    // The map's second slot, bound to the cross-pallet child.
    let slot = host
        .sim()
        .materials()
        .references
        .iter()
        .position(|r| r.ends_with("materials/crate.dh-mat"))
        .unwrap_or_else(|| panic!("the crate slot"));
    let crate_mat = &x.frame.materials[slot];
    assert_eq!(
        crate_mat.shading,
        dh_gpu::render::frame::Shading::Unlit,
        "its own member"
    );
    let texture = crate_mat.base_color_texture.as_ref().unwrap_or_else(|| {
        panic!(
            "core's texture, named relative to core's file: {:?}",
            x.notes
        )
    });
    // content/core/textures/dev-measure.png is 128 x 128 (one tile a metre).
    assert_eq!((texture.width, texture.height), (128, 128));
    // dev-orange's tint is not white: the red channel leads.
    assert!(
        crate_mat.base_color.x > crate_mat.base_color.z,
        "{:?}",
        crate_mat.base_color
    );
}
