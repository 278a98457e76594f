//! The core pallet's models of our own making, generated here, byte for byte: each is
//! compared with the committed file, and `DH_RECORD_CORE_MODELS=1` writes it again (for a
//! deliberate change, to be looked at and committed with the code that makes it).
//!
//! `models/LayerSlab.glb` (core:maps/vertex-color-eval's second half, spec 001, "Vertex
//! colors": "a ground slab whose COLOR_1.r paints a second layer on"): a slab 4 m along X by
//! 2.6 m along Z and 2 cm thick, its top at y = 0.02, spanning x ∈ [-2, 2], z ∈ [-1.6, 1.0].
//! Its top is four 1 m stripes along X, each with vertices of its own so the paint changes
//! sharply at a stripe's edge: from -X, COLOR_1 = (1, 0, 0, 0), (0, 1, 0, 0), (1, 0, 0, 0),
//! (0, 1, 0, 0), as unorm8 VEC4. So red (the channel the map's `layer` material reads) is
//! high on the first and third stripes and zero on the second and fourth, and green is the
//! opposite: a material that read the wrong channel would paint the other two. Its four
//! sides carry (0, 1, 0, 0) (unpainted by a red-reading layer); it has no bottom, which lies
//! on the map's floor. NORMAL is authored (flat per face), no COLOR_0, one primitive on
//! material `layer`.

use std::path::PathBuf;

const RECORD_ENV: &str = "DH_RECORD_CORE_MODELS";

/// Writes `json` and `bin` as a GLB container (JSON chunk padded with spaces, BIN chunk
/// with zeros, each to 4 bytes).
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + 8 + b.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&b);
    out
}

/// One quad: four corners (counter-clockwise seen from where `normal` points), its normal,
/// its COLOR_1.
struct Quad {
    corners: [[f32; 3]; 4],
    normal: [f32; 3],
    color1: [u8; 4],
}

/// The layer slab described at the top of the file.
fn layer_slab_glb() -> Vec<u8> {
    const TOP: f32 = 0.02;
    const Z0: f32 = -1.6;
    const Z1: f32 = 1.0;
    const RED: [u8; 4] = [255, 0, 0, 0];
    const GREEN: [u8; 4] = [0, 255, 0, 0];
    let mut quads = Vec::new();
    for (k, paint) in [RED, GREEN, RED, GREEN].into_iter().enumerate() {
        let x0 = -2.0 + k as f32;
        let x1 = x0 + 1.0;
        quads.push(Quad {
            corners: [[x0, TOP, Z1], [x1, TOP, Z1], [x1, TOP, Z0], [x0, TOP, Z0]],
            normal: [0.0, 1.0, 0.0],
            color1: paint,
        });
    }
    let side = |corners: [[f32; 3]; 4], normal: [f32; 3]| Quad {
        corners,
        normal,
        color1: GREEN,
    };
    // +Z, -Z, +X, -X.
    quads.push(side(
        [
            [-2.0, 0.0, Z1],
            [2.0, 0.0, Z1],
            [2.0, TOP, Z1],
            [-2.0, TOP, Z1],
        ],
        [0.0, 0.0, 1.0],
    ));
    quads.push(side(
        [
            [2.0, 0.0, Z0],
            [-2.0, 0.0, Z0],
            [-2.0, TOP, Z0],
            [2.0, TOP, Z0],
        ],
        [0.0, 0.0, -1.0],
    ));
    quads.push(side(
        [
            [2.0, 0.0, Z1],
            [2.0, 0.0, Z0],
            [2.0, TOP, Z0],
            [2.0, TOP, Z1],
        ],
        [1.0, 0.0, 0.0],
    ));
    quads.push(side(
        [
            [-2.0, 0.0, Z0],
            [-2.0, 0.0, Z1],
            [-2.0, TOP, Z1],
            [-2.0, TOP, Z0],
        ],
        [-1.0, 0.0, 0.0],
    ));

    let n = quads.len() * 4;
    let mut positions = Vec::with_capacity(n * 12);
    let mut normals = Vec::with_capacity(n * 12);
    let mut colors = Vec::with_capacity(n * 4);
    let mut indices: Vec<u8> = Vec::with_capacity(quads.len() * 12);
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for (q, quad) in quads.iter().enumerate() {
        for c in &quad.corners {
            for k in 0..3 {
                positions.extend_from_slice(&c[k].to_le_bytes());
                normals.extend_from_slice(&quad.normal[k].to_le_bytes());
                lo[k] = lo[k].min(c[k]);
                hi[k] = hi[k].max(c[k]);
            }
            colors.extend_from_slice(&quad.color1);
        }
        let b = (q * 4) as u16;
        for i in [b, b + 1, b + 2, b, b + 2, b + 3] {
            indices.extend_from_slice(&i.to_le_bytes());
        }
    }
    let mut bin = Vec::new();
    let mut views = Vec::new();
    for chunk in [&positions, &normals, &colors, &indices] {
        views.push(format!(
            r#"{{"buffer":0,"byteOffset":{},"byteLength":{}}}"#,
            bin.len(),
            chunk.len()
        ));
        bin.extend_from_slice(chunk);
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
    }
    let f = |v: [f32; 3]| format!("[{},{},{}]", v[0], v[1], v[2]);
    let json = format!(
        concat!(
            r#"{{"asset":{{"version":"2.0","generator":"DigitalHeaven content/tests/core_models.rs"}},"#,
            r#""buffers":[{{"byteLength":{len}}}],"bufferViews":[{views}],"#,
            r#""accessors":["#,
            r#"{{"bufferView":0,"componentType":5126,"count":{n},"type":"VEC3","min":{lo},"max":{hi}}},"#,
            r#"{{"bufferView":1,"componentType":5126,"count":{n},"type":"VEC3"}},"#,
            r#"{{"bufferView":2,"componentType":5121,"normalized":true,"count":{n},"type":"VEC4"}},"#,
            r#"{{"bufferView":3,"componentType":5123,"count":{ni},"type":"SCALAR"}}],"#,
            r#""materials":[{{"name":"layer"}}],"#,
            r#""meshes":[{{"name":"LayerSlab","primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1,"COLOR_1":2}},"indices":3,"material":0}}]}}],"#,
            r#""nodes":[{{"name":"slab","mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0}}"#
        ),
        len = bin.len(),
        views = views.join(","),
        n = n,
        lo = f(lo),
        hi = f(hi),
        ni = indices.len() / 2,
    );
    glb(&json, &bin)
}

fn committed(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("core")
        .join(path)
}

#[test]
fn layer_slab_glb_is_the_committed_one() {
    let bytes = layer_slab_glb();
    let path = committed("models/LayerSlab.glb");
    if std::env::var_os(RECORD_ENV).is_some() {
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        eprintln!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
    let on_disk = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        on_disk == bytes,
        "{} differs from what tests/core_models.rs generates; re-record with {RECORD_ENV}=1",
        path.display()
    );
    // Read back by the importer, the paint is what the top of the file says.
    let model =
        dh_content::gltf::import_glb(&bytes, "LayerSlab.glb").unwrap_or_else(|e| panic!("{e}"));
    let p = &model.meshes[0].primitives[0];
    assert_eq!(p.material.as_deref(), Some("layer"));
    assert!(p.color0.is_none());
    let c1 = p.color1.as_ref().unwrap_or_else(|| panic!("COLOR_1 read"));
    assert_eq!(p.vertices.len(), 32);
    for (v, vertex) in p.vertices.iter().enumerate() {
        let x = vertex.position[0];
        if v < 16 {
            // The top, stripe by stripe from -X: red on [-2, -1] and [0, 1].
            let stripe = v / 4;
            let x0 = -2.0 + stripe as f32;
            assert!(x == x0 || x == x0 + 1.0, "vertex {v} at x {x}");
            assert_eq!(vertex.normal, [0.0, 1.0, 0.0]);
            let red = stripe % 2 == 0;
            assert_eq!(
                c1[v],
                if red {
                    [1.0, 0.0, 0.0, 0.0]
                } else {
                    [0.0, 1.0, 0.0, 0.0]
                }
            );
        } else {
            assert_eq!(c1[v], [0.0, 1.0, 0.0, 0.0], "side vertex {v}");
        }
    }
}
