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
//!
//! `models/DevCrate.glb` (the debug map's crate, issue 18: "one small textured GLB of our
//! own"): a 0.5 m cube centred on its origin, x, y, z ∈ [-0.25, 0.25]. Six faces of four
//! vertices each (24), each face's own flat NORMAL and a TEXCOORD_0 that spans the whole
//! texture on every face: seen from outside with the face's up upward (the top's up is -Z,
//! the bottom's +Z), its bottom-left corner is UV (0, 1) and its top-right (1, 0), so the
//! image stands upright on the four sides. One primitive, u16 indices, on one glTF
//! material, `devCrate`, whose `baseColorTexture` is an embedded PNG (image `dev-crate`,
//! `image/png`, in the BIN chunk after the indices), with metallic 0 and roughness 0.8.
//! The same PNG is committed as `textures/dev-crate.png`, which `materials/dev-crate.dh-mat`
//! names (a map binds slots to `.dh-mat`s, never to a GLB's images), and both are written
//! from [`crate_face`] here.
//!
//! The crate face, 128 × 128 sRGB texels (0.5 m, so 256 texels a metre), in the measure
//! grid's manner (`dev_textures.rs`) but coloured, so the GLB reads as a crate in any glTF
//! viewer too:
//! - the base, light wood (214, 168, 104);
//! - a frame 8 texels wide round the edge (3 cm), dark (84, 52, 26);
//! - lines two texels wide on texels 31-32, 63-64 and 95-96 both ways (every 12.5 cm),
//!   mid brown (150, 104, 56);
//! - a "DH" mark in the middle, the 5 × 7 font at four times its size (each glyph 20 × 28
//!   texels, one font column between them: 44 × 28 from texel (42, 50)), dark, on a clear
//!   patch of base four texels wider each way (texels 38-89 by 46-81) that no line crosses.

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

/// The crate face's colours (sRGB).
const CRATE_BASE: [u8; 3] = [214, 168, 104];
const CRATE_DARK: [u8; 3] = [84, 52, 26];
const CRATE_LINE: [u8; 3] = [150, 104, 56];
/// Its edge in texels.
const CRATE_EDGE: u32 = 128;

/// 5 × 7 glyphs, a row a byte, bit 4 the leftmost column.
const GLYPH_D: [u8; 7] = [
    0b11110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b11110,
];
const GLYPH_H: [u8; 7] = [
    0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001,
];

/// The crate face's colour at texel (x, y), rows top to bottom.
fn crate_texel(x: u32, y: u32) -> [u8; 3] {
    let frame = |c: u32| !(8..CRATE_EDGE - 8).contains(&c);
    if frame(x) || frame(y) {
        return CRATE_DARK;
    }
    // The mark: "DH" at four times the font's size from (42, 50).
    let (mx, my) = (42u32, 50u32);
    if (mx..mx + 4 * 11).contains(&x) && (my..my + 4 * 7).contains(&y) {
        let (gx, gy) = ((x - mx) / 4, (y - my) / 4);
        let on = |g: &[u8; 7], col: u32| (g[gy as usize] >> (4 - col)) & 1 == 1;
        let lit = match gx {
            0..=4 => on(&GLYPH_D, gx),
            6..=10 => on(&GLYPH_H, gx - 6),
            _ => false,
        };
        if lit {
            return CRATE_DARK;
        }
    }
    // The clear patch round the mark.
    if (mx - 4..mx + 44 + 4).contains(&x) && (my - 4..my + 28 + 4).contains(&y) {
        return CRATE_BASE;
    }
    let line = |c: u32| [32, 64, 96].iter().any(|&q| c == q - 1 || c == q);
    if line(x) || line(y) {
        return CRATE_LINE;
    }
    CRATE_BASE
}

/// The crate face's RGBA8 texels, rows top to bottom.
fn crate_face_rgba() -> Vec<u8> {
    (0..CRATE_EDGE * CRATE_EDGE)
        .flat_map(|i| {
            let [r, g, b] = crate_texel(i % CRATE_EDGE, i / CRATE_EDGE);
            [r, g, b, 255]
        })
        .collect()
}

/// The crate face as a PNG (RGB, 8 bits: the texture is opaque).
fn crate_face() -> Vec<u8> {
    let rgb: Vec<u8> = crate_face_rgba()
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, CRATE_EDGE, CRATE_EDGE);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        // fdeflate, the png crate's own deflate: the bytes do not depend on which backend
        // (miniz_oxide or zlib-rs) the workspace's features give flate2.
        enc.set_compression(png::Compression::Fast);
        let mut w = enc.write_header().unwrap_or_else(|e| panic!("{e}"));
        w.write_image_data(&rgb).unwrap_or_else(|e| panic!("{e}"));
    }
    out
}

/// The dev crate described at the top of the file.
fn dev_crate_glb() -> Vec<u8> {
    const H: f32 = 0.25;
    // Each face: its normal, and its right and up as seen from outside (right × up = normal,
    // so the corners below run counter-clockwise seen from outside, glTF's front face).
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
    ];
    // Bottom-left, bottom-right, top-right, top-left: (sign of right, sign of up, UV).
    let corners: [(f32, f32, [f32; 2]); 4] = [
        (-1.0, -1.0, [0.0, 1.0]),
        (1.0, -1.0, [1.0, 1.0]),
        (1.0, 1.0, [1.0, 0.0]),
        (-1.0, 1.0, [0.0, 0.0]),
    ];
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut uvs = Vec::new();
    let mut indices = Vec::new();
    for (f, (n, r, u)) in faces.iter().enumerate() {
        for (sr, su, uv) in &corners {
            for k in 0..3 {
                let p = H * (n[k] + sr * r[k] + su * u[k]);
                positions.extend_from_slice(&p.to_le_bytes());
                normals.extend_from_slice(&n[k].to_le_bytes());
            }
            for c in uv {
                uvs.extend_from_slice(&c.to_le_bytes());
            }
        }
        let b = (f * 4) as u16;
        for i in [b, b + 1, b + 2, b, b + 2, b + 3] {
            indices.extend_from_slice(&i.to_le_bytes());
        }
    }
    let png = crate_face();
    let mut bin = Vec::new();
    let mut views = Vec::new();
    for chunk in [&positions, &normals, &uvs, &indices, &png] {
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
    let json = format!(
        concat!(
            r#"{{"asset":{{"version":"2.0","generator":"DigitalHeaven content/tests/core_models.rs"}},"#,
            r#""buffers":[{{"byteLength":{len}}}],"bufferViews":[{views}],"#,
            r#""accessors":["#,
            r#"{{"bufferView":0,"componentType":5126,"count":24,"type":"VEC3","min":[-0.25,-0.25,-0.25],"max":[0.25,0.25,0.25]}},"#,
            r#"{{"bufferView":1,"componentType":5126,"count":24,"type":"VEC3"}},"#,
            r#"{{"bufferView":2,"componentType":5126,"count":24,"type":"VEC2"}},"#,
            r#"{{"bufferView":3,"componentType":5123,"count":36,"type":"SCALAR"}}],"#,
            r#""images":[{{"name":"dev-crate","mimeType":"image/png","bufferView":4}}],"#,
            r#""samplers":[{{"magFilter":9729,"minFilter":9987}}],"#,
            r#""textures":[{{"source":0,"sampler":0}}],"#,
            r#""materials":[{{"name":"devCrate","pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}},"metallicFactor":0,"roughnessFactor":0.8}}}}],"#,
            r#""meshes":[{{"name":"DevCrate","primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1,"TEXCOORD_0":2}},"indices":3,"material":0}}]}}],"#,
            r#""nodes":[{{"name":"crate","mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0}}"#
        ),
        len = bin.len(),
        views = views.join(","),
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

/// Writes `bytes` at the committed `path` under the record switch, then says whether the
/// committed file is exactly `bytes`.
fn check_committed(path: &str, bytes: &[u8]) {
    let path = committed(path);
    if std::env::var_os(RECORD_ENV).is_some() {
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        eprintln!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
    let on_disk = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        on_disk == bytes,
        "{} differs from what tests/core_models.rs generates; re-record with {RECORD_ENV}=1",
        path.display()
    );
}

/// The crate face's layout, by hand: the frame, the lines, the mark and its clear patch.
#[test]
fn the_crate_face_has_its_frame_lines_and_mark_where_the_top_says() {
    assert_eq!(crate_texel(0, 0), CRATE_DARK);
    assert_eq!(crate_texel(7, 60), CRATE_DARK, "the frame's inner column");
    assert_eq!(crate_texel(8, 60), CRATE_BASE, "just inside the frame");
    assert_eq!(crate_texel(120, 20), CRATE_DARK);
    assert_eq!(crate_texel(119, 20), CRATE_BASE);
    assert_eq!(crate_texel(20, 127), CRATE_DARK);
    assert_eq!(crate_texel(31, 20), CRATE_LINE);
    assert_eq!(crate_texel(32, 20), CRATE_LINE);
    assert_eq!(crate_texel(33, 20), CRATE_BASE);
    assert_eq!(crate_texel(20, 96), CRATE_LINE);
    // The line x = 64 stops at the clear patch (rows 46 to 81) and goes on below it.
    assert_eq!(crate_texel(64, 45), CRATE_LINE);
    assert_eq!(crate_texel(64, 46), CRATE_BASE);
    assert_eq!(crate_texel(64, 82), CRATE_LINE);
    // "D": its top row is columns 0-3, texels x 42..58 on rows 50..54; column 4 is off.
    assert_eq!(crate_texel(42, 50), CRATE_DARK);
    assert_eq!(crate_texel(57, 53), CRATE_DARK);
    assert_eq!(crate_texel(58, 50), CRATE_BASE);
    // "H": its crossbar is row 3 (texels y 62..66), all five columns, x 66..86.
    assert_eq!(crate_texel(66, 62), CRATE_DARK);
    assert_eq!(crate_texel(85, 65), CRATE_DARK);
    assert_eq!(
        crate_texel(74, 58),
        CRATE_BASE,
        "above the crossbar, between the posts"
    );
    // The gap column between the glyphs, x 62..66.
    assert_eq!(crate_texel(63, 62), CRATE_BASE);
    let rgba = crate_face_rgba();
    assert_eq!(rgba.len(), 128 * 128 * 4);
    // How much of the face is dark (the frame and the mark) and how much base, counted here
    // so the render test's bound can lean on it: the frame is 128² - 112² = 3840 texels.
    let dark = rgba
        .chunks_exact(4)
        .filter(|p| p[..3] == CRATE_DARK)
        .count();
    assert!(dark > 3840, "{dark} dark texels");
}

#[test]
fn dev_crate_glb_and_its_texture_are_the_committed_ones() {
    let png = crate_face();
    check_committed("textures/dev-crate.png", &png);
    let bytes = dev_crate_glb();
    check_committed("models/DevCrate.glb", &bytes);
    // The PNG decodes to the face drawn above.
    let img = dh_content::texture::decode("dev-crate.png", &png).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((img.width, img.height), (128, 128));
    assert!(img.rgba == crate_face_rgba());
    // Read by the gltf crate (not our importer): the material's base colour texture is the
    // embedded PNG, byte for byte.
    let doc = gltf::Gltf::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let blob = doc.blob.as_deref().unwrap_or_else(|| panic!("a BIN chunk"));
    let m = doc
        .materials()
        .next()
        .unwrap_or_else(|| panic!("a material"));
    assert_eq!(m.name(), Some("devCrate"));
    let info = m
        .pbr_metallic_roughness()
        .base_color_texture()
        .unwrap_or_else(|| panic!("a baseColorTexture"));
    assert_eq!(info.tex_coord(), 0);
    match info.texture().source().source() {
        gltf::image::Source::View { view, mime_type } => {
            assert_eq!(mime_type, "image/png");
            let at = view.offset();
            assert!(
                blob[at..at + view.length()] == png[..],
                "the embedded image"
            );
        }
        gltf::image::Source::Uri { .. } => panic!("the image is embedded"),
    }
    // Read back by the importer: 24 vertices, 12 triangles, one UV set, on `devCrate`.
    let model =
        dh_content::gltf::import_glb(&bytes, "DevCrate.glb").unwrap_or_else(|e| panic!("{e}"));
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    assert_eq!(model.meshes.len(), 1);
    let p = &model.meshes[0].primitives[0];
    assert_eq!(p.material.as_deref(), Some("devCrate"));
    assert_eq!(p.vertices.len(), 24);
    assert_eq!(p.indices.len(), 36);
    assert_eq!(p.uv_sets, 1);
    assert!(p.normals_authored);
    // The +Z face (vertices 0-3): z = 0.25, bottom-left (-0.25, -0.25) at UV (0, 1),
    // top-right (0.25, 0.25) at UV (1, 0).
    assert_eq!(p.vertices[0].position, [-0.25, -0.25, 0.25]);
    assert_eq!(p.vertices[0].uv0, [0.0, 1.0]);
    assert_eq!(p.vertices[2].position, [0.25, 0.25, 0.25]);
    assert_eq!(p.vertices[2].uv0, [1.0, 0.0]);
    // The top (vertices 16-19): its top-left corner (the far one, -Z) at UV (0, 0).
    assert_eq!(p.vertices[19].position, [-0.25, 0.25, -0.25]);
    assert_eq!(p.vertices[19].uv0, [0.0, 0.0]);
    assert_eq!(p.vertices[19].normal, [0.0, 1.0, 0.0]);
    // The +X face's bottom-left is its +Z edge (its right is -Z).
    assert_eq!(p.vertices[8].position, [0.25, -0.25, 0.25]);
    // Every triangle faces out: its winding's normal is the vertices' normal.
    for t in p.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| p.vertices[i as usize].position);
        let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let want = p.vertices[t[0] as usize].normal;
        let dot = n[0] * want[0] + n[1] * want[1] + n[2] * want[2];
        assert!(dot > 0.0, "triangle {t:?} winds inward");
    }
}
