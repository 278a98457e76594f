//! Vertex colors on a placed model, through the compiler, the mount and the extract (spec
//! 001, "Vertex colors"; spec 003, "GPU vertex streams"): a cube whose COLOR_0 is red and
//! whose COLOR_1 is green everywhere, placed twice. The mesh ships a color run holding
//! COLOR_0; COLOR_1 (read only by a material's `detail.vertexWeight`, which no material draws
//! yet) is left out of it, and the load log says so once for the model.

mod support;

use dh_content::mesh::COLOR_STRIDE;
use dh_engine::catalog::Catalog;
use dh_engine::extract;
use dh_engine::host::{Host, HostOptions};
use support::{box_geometry, pallet_bytes, GlbBuilder, SourcePallet};

/// A unit cube (8 shared corners, no NORMAL), COLOR_0 (1, 0, 0) and COLOR_1 (0, 1, 0) as
/// float VEC3 at every corner, no material.
fn painted_cube() -> Vec<u8> {
    let mut g = GlbBuilder::new();
    let (v, i) = box_geometry([1.0, 1.0, 1.0]);
    let pos = g.positions(&v);
    let c0 = g.positions_unbounded(&vec![[1.0, 0.0, 0.0]; v.len()]);
    let c1 = g.positions_unbounded(&vec![[0.0, 1.0, 0.0]; v.len()]);
    let idx = g.indices(&i);
    let rest = format!(
        r#""meshes":[{{"name":"CubeMesh","primitives":[{{"attributes":{{"POSITION":{pos},"COLOR_0":{c0},"COLOR_1":{c1}}},"indices":{idx}}}]}}],
"nodes":[{{"name":"cube","mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0"#
    );
    g.finish(&rest)
}

const MAP: &str = r#"{
  "name": "Painted",
  "autoCollision": false,
  "objects": [
    { "$type": "instance", "id": "5e0c7a10-6a51-4c1e-9d0b-3f2a1b4c5d61", "name": "a", "source": "/meshes/cube.glb" },
    { "$type": "instance", "id": "5e0c7a10-6a51-4c1e-9d0b-3f2a1b4c5d62", "name": "b", "source": "/meshes/cube.glb",
      "position": [3, 0, 0] }
  ]
}
"#;

#[test]
fn color0_ships_and_color1_is_left_out_with_one_note() {
    let pallet = SourcePallet::fresh("dh-vertex-colors", "notes");
    pallet.manifest("dev.example.painted", "Painted");
    pallet.write("meshes/cube.glb", &painted_cube());
    pallet.write("maps/painted.dh-map", MAP.as_bytes());
    let out = pallet.compile(true, "painted");
    let file = pallet.save("painted.pallet", &pallet_bytes(&out));
    let map = "dev.example.painted:maps/painted";
    let host = Host::start(&HostOptions {
        map: map.into(),
        pallets: vec![file.clone()],
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    catalog.mount_file(&file).unwrap_or_else(|e| panic!("{e}"));
    let (_, m) = catalog.load_map(map).unwrap_or_else(|e| panic!("{e}"));
    let x = extract::extract(&host, &catalog, &m);

    // Two placements of one model: one line, naming the model and COLOR_1.
    let lines: Vec<&String> = x.notes.iter().filter(|n| n.contains("COLOR_1")).collect();
    assert_eq!(lines.len(), 1, "{:?}", x.notes);
    assert!(lines[0].contains("cube.glb"), "{}", lines[0]);
    assert!(lines[0].contains("detail.vertexWeight"), "{}", lines[0]);

    // Both placements draw the one shared asset; its color run holds COLOR_0 red (four
    // unorm16: 65535, 0, 0 and alpha 65535, VEC3's alpha being 1) and COLOR_1 zero.
    let painted: Vec<_> = x
        .frame
        .meshes
        .iter()
        .filter(|i| i.mesh.packed.color_offset.is_some())
        .collect();
    assert_eq!(painted.len(), 2);
    let p = &painted[0].mesh.packed;
    let o = p.color_offset.unwrap_or(0);
    // No NORMAL: flat normals, a vertex per triangle corner (12 triangles).
    assert_eq!(p.vertex_count, 36);
    for v in 0..p.vertex_count as usize {
        let e = &p.bytes[o + v * COLOR_STRIDE as usize..][..COLOR_STRIDE as usize];
        let c0: Vec<u16> = (0..4)
            .map(|k| u16::from_le_bytes([e[2 * k], e[2 * k + 1]]))
            .collect();
        assert_eq!(c0, vec![65535, 0, 0, 65535], "vertex {v} COLOR_0");
        assert_eq!(&e[8..12], &[0, 0, 0, 0], "vertex {v} COLOR_1 left out");
    }
}
