//! Voxel volumes drawn by the engine (spec `dh.voxel`: "Placing it in a map", "How the
//! engine draws it" and its streaming paragraphs, "Lighting modes", "Hybrid shading").
//! Each test builds a pallet with the dh-content compiler, starts a `Host` on its map and
//! draws through [`VoxelDraw`], on lavapipe with the Khronos validation layer where it
//! renders.
//!
//! * A MagicaVoxel model (`tests/data/vox/axes.vox`, MIT, dot_vox: see
//!   `tests/data/vox/LICENSE-dot_vox`) placed in a map and captured from a named camera,
//!   compared with `gpu/tests/golden/voxel-axes-diagonal.png`; `dh-engine render` of the
//!   same camera matches the same golden.
//! * A Teardown prop from the shared fixtures (`sandbags.vox`, AGPL: read in place from
//!   `../shared/fixtures`, never copied, and no golden of it is kept): its pixels stay
//!   inside the screen box its bounds project to and fill it, and its dominant colors are
//!   palette colors of the file, read here independently of the importer.
//! * A Teardown-format `.vox` authored here (`TDCZ`, `RGBA`, `MATL`, `NOTE` written byte
//!   by byte), compared with `gpu/tests/golden/voxel-teardown-hut.png`.
//! * The live path: a Minecraft-platform volume (hybrid by default) streams in within a
//!   bounded number of frames that never wait, under `client.voxel.maxMeshes`, and its
//!   light window holds the torch's light as the rules give it by hand.

use std::path::{Path, PathBuf};
use std::time::Duration;

use dh_content::voxel::payload::{encode, Grid, GridInfo, PaletteEntry, VoxelPayload};
use dh_engine::catalog::Catalog;
use dh_engine::extract;
use dh_engine::host::{Host, HostOptions};
use dh_engine::voxel::draw::{volume_bounds, VoxelDraw, UNLIT};
use dh_gpu::render::camera::output_size;
use dh_gpu::render::compare::decode_png;
use dh_gpu::render::frame::{Projection, RenderFrame, View, LIGHT_BRICK_CELLS};
use dh_gpu::render::{Renderer, ScopedThreads};
use dh_gpu::{testing, RgbaImage};

mod support;
use support::check_golden;

/// The capture width.
const WIDTH: u32 = 320;

/// The shared fixtures, beside the repository.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures")
}

/// Writes `image` to `$DH_RENDER_OUT/<name>.png` when that is set (to look at).
fn dump(name: &str, image: &RgbaImage) {
    if let Ok(dir) = std::env::var("DH_RENDER_OUT") {
        let _ = image.write_png(&Path::new(&dir).join(format!("{name}.png")));
    }
}

/// A fresh folder for one test (the tests of this file run side by side).
fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dh-voxel-render-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// Compiles `sources` into pallet `test.<id>` in `dir`.
fn build_pallet(dir: &Path, id: &str, sources: Vec<(&str, Vec<u8>)>) -> PathBuf {
    let manifest = format!(
        r#"{{ "id": "test.{id}", "name": "Voxel render", "version": "1.0.0", "dependencies": [] }}"#
    );
    support::memory_pallet(dir, &format!("{id}.pallet"), &manifest, sources)
}

/// A map placing `volume` at `at` over a gray floor whose top is at `floor_y`, seen by
/// the camera `camera` at `eye` turned `rotation` (degrees).
fn map_json(volume: &str, at: [f32; 3], floor_y: f32, eye: [f32; 3], rotation: [f32; 3]) -> String {
    map_json_lit(volume, at, floor_y, eye, rotation, DAY)
}

/// The map's lighting: a bright sun.
const DAY: &str =
    r#"{ "sunDirection": [-0.4, -0.8, -0.45], "sunIntensity": 2, "ambientIntensity": 0.5 }"#;
/// The map's lighting: a faint moon, where a torch's fill shows.
const NIGHT: &str =
    r#"{ "sunDirection": [-0.4, -0.8, -0.45], "sunIntensity": 0.05, "ambientIntensity": 0.15 }"#;

/// [`map_json`] under `lighting` (the map's `lighting` object).
fn map_json_lit(
    volume: &str,
    at: [f32; 3],
    floor_y: f32,
    eye: [f32; 3],
    rotation: [f32; 3],
    lighting: &str,
) -> String {
    format!(
        r#"{{
  "name": "Voxel render",
  "materials": {{ "floor": "/materials/floor.dh-mat" }},
  "lighting": {lighting},
  "objects": [
    {{ "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5b01", "name": "model", "position": {at:?}, "rotation": [0, 0, 0],
      "components": [ {{ "$type": "dh.voxelVolume", "volume": "{volume}" }} ] }},
    {{ "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5b02", "name": "camera", "position": {eye:?}, "rotation": {rotation:?},
      "components": [ {{ "$type": "dh.camera", "fov": 60, "aspect": "16:9" }} ] }},
    {{ "$type": "boxBrush", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5b03", "name": "floor", "position": [0, {}, 0], "size": [200, 1, 200], "material": "floor" }}
  ]
}}"#,
        floor_y - 0.5
    )
}

const FLOOR_MATERIAL: &str = r#"{ "shader": "lit", "tint": [0.55, 0.55, 0.55] }"#;

/// A host on `map` of `pallet`, and the map as extraction reads it.
fn start(pallet: &Path, map: &str, sets: &[&str]) -> (Host, Catalog, dh_content::schema::map::Map) {
    let host = Host::start(&HostOptions {
        map: map.into(),
        pallets: vec![pallet.to_path_buf()],
        sets: sets.iter().map(|s| s.to_string()).collect(),
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    catalog.mount_file(pallet).unwrap_or_else(|e| panic!("{e}"));
    let (_, m) = catalog.load_map(map).unwrap_or_else(|e| panic!("{e}"));
    (host, catalog, m)
}

/// The map's frame and its camera `camera`, and the capture size.
fn frame_and_camera(
    host: &Host,
    catalog: &Catalog,
    map: &dh_content::schema::map::Map,
) -> (RenderFrame, View, [u32; 2]) {
    let x = extract::extract(host, catalog, map);
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    let cam = x
        .cameras
        .iter()
        .find(|c| c.name == "camera")
        .unwrap_or_else(|| panic!("no camera"));
    let size = output_size(cam.aspect, Some([WIDTH, WIDTH * 9 / 16]), None);
    (x.frame, cam.view, size)
}

/// The capture with the volumes landed, and the one without them (the same frame).
fn shoot(
    renderer: &mut Renderer,
    host: &Host,
    catalog: &Catalog,
    map: &dh_content::schema::map::Map,
) -> (RgbaImage, RgbaImage, View) {
    let (bare, view, size) = frame_and_camera(host, catalog, map);
    let mut frame = bare.clone();
    let mut draw = VoxelDraw::new(&host.prefs);
    let stats = draw.capture(host, Some(&view), &mut frame);
    let log = draw.take_log();
    assert!(stats.instances > 0, "nothing landed: {stats:?} {log:?}");
    assert_eq!(stats.stream.queued + stats.stream.meshing, 0, "{stats:?}");
    // Two materials per open volume, and every region instance names one of them.
    assert_eq!(stats.materials, 2 * stats.stream.volumes_open);
    let with = renderer
        .render(&frame, &view, size[0], size[1])
        .unwrap_or_else(|e| panic!("{e}"));
    let without = renderer
        .render(&bare, &view, size[0], size[1])
        .unwrap_or_else(|e| panic!("{e}"));
    (with.image, without.image, view)
}

fn luma(p: [u8; 4]) -> f64 {
    0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])
}

/// The pixels where the two pictures differ by more than `threshold` on some channel.
fn changed(a: &RgbaImage, b: &RgbaImage, threshold: u8) -> Vec<(u32, u32, [u8; 4])> {
    let mut out = Vec::new();
    for y in 0..a.height {
        for x in 0..a.width {
            let (p, q) = (
                a.pixel(x, y).unwrap_or([0; 4]),
                b.pixel(x, y).unwrap_or([0; 4]),
            );
            if (0..3).any(|i| p[i].abs_diff(q[i]) > threshold) {
                out.push((x, y, p));
            }
        }
    }
    out
}

// ---- A MagicaVoxel model --------------------------------------------------------------

fn axes_pallet(dir: &Path) -> PathBuf {
    let vox = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vox/axes.vox"))
        .unwrap_or_else(|e| panic!("tests/data/vox/axes.vox: {e}"));
    // The model spans about x -2..24, y 0..20, z -27..2 at its 0.1 m voxels, placed at the
    // origin; the camera stands off its +X +Y +Z corner looking back at its middle.
    let map = map_json(
        "/voxels/axes.dh-vox",
        [0.0, 0.0, 0.0],
        0.0,
        [28.0, 19.5, 16.0],
        [-22.0, 37.0, 0.0],
    );
    build_pallet(
        dir,
        "axes",
        vec![
            ("voxels/axes.vox", vox),
            (
                "voxels/axes.dh-vox",
                br#"{ "platform": "magicavoxel", "data": "axes.vox" }"#.to_vec(),
            ),
            ("materials/floor.dh-mat", FLOOR_MATERIAL.as_bytes().to_vec()),
            ("maps/axes.dh-map", map.into_bytes()),
        ],
    )
}

#[test]
fn a_magicavoxel_model_is_drawn_lit_and_matches_its_golden() {
    let dir = temp_dir("axes");
    let pallet = axes_pallet(&dir);
    let (host, catalog, map) = start(&pallet, "axes", &[]);
    let gpu = testing::test_gpu();
    let image = {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let (with, without, _) = shoot(&mut renderer, &host, &catalog, &map);
        dump("axes-capture", &with);
        // The model (thin letters on three axes) covers part of the frame, and it is
        // lit: not black.
        let px = changed(&with, &without, 12);
        let area = f64::from(with.width * with.height);
        assert!(
            px.len() as f64 > 0.02 * area,
            "the model covers {} of {area} pixels",
            px.len()
        );
        let mean = px.iter().map(|p| luma(p.2)).sum::<f64>() / px.len() as f64;
        assert!(mean > 40.0, "the model's pixels average luma {mean:.1}");
        with
    };
    testing::finish(gpu);
    check_golden("voxel-axes-diagonal", &image);

    // `dh-engine render` shoots the same camera with the volume landed the same way.
    let out = dir.join("out");
    let o = dh_engine::render_cmd::RenderOptions {
        outdir: out.clone(),
        pallets: vec![pallet],
        map: "axes".into(),
        camera: Some("camera".into()),
        size: Some([WIDTH, WIDTH * 9 / 16]),
        ..Default::default()
    };
    let (mut so, mut se) = (Vec::new(), Vec::new());
    let outcome = dh_engine::render_cmd::render(&o, &mut so, &mut se);
    let err = String::from_utf8_lossy(&se);
    assert_eq!(
        outcome,
        dh_engine::run::Outcome::Done,
        "{err}{}",
        String::from_utf8_lossy(&so)
    );
    assert!(!err.contains("validation"), "{err}");
    let bytes = std::fs::read(out.join("camera.png")).unwrap_or_else(|e| panic!("{e}"));
    let shot = decode_png(&bytes).unwrap_or_else(|e| panic!("{e}"));
    check_golden("voxel-axes-diagonal", &shot);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- Teardown -------------------------------------------------------------------------

/// The chunks of a `.vox` as this test reads them: (id, content) for every chunk under
/// MAIN, in order. Written from the format's description, independently of the importer.
fn vox_chunks(bytes: &[u8]) -> Vec<([u8; 4], &[u8])> {
    let u32_at = |at: usize| -> usize {
        let b = bytes
            .get(at..at + 4)
            .unwrap_or_else(|| panic!("truncated at {at}"));
        u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
    };
    assert_eq!(bytes.get(..4), Some(&b"VOX "[..]));
    assert_eq!(bytes.get(8..12), Some(&b"MAIN"[..]));
    let mut at = 20 + u32_at(12);
    let mut out = Vec::new();
    while at + 12 <= bytes.len() {
        let id: [u8; 4] = [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        let (content, children) = (u32_at(at + 4), u32_at(at + 8));
        out.push((id, &bytes[at + 12..at + 12 + content]));
        at += 12 + content + children;
    }
    out
}

/// Chromaticity (r, g) of a color, 0 for black.
fn chroma(c: [f64; 3]) -> [f64; 2] {
    let s = c[0] + c[1] + c[2];
    if s <= 0.0 {
        [1.0 / 3.0; 2]
    } else {
        [c[0] / s, c[1] / s]
    }
}

/// The pixels' colors quantized to 32 levels a channel, most frequent first.
fn dominant(px: &[(u32, u32, [u8; 4])]) -> Vec<([f64; 3], usize)> {
    let mut buckets: std::collections::BTreeMap<[u8; 3], (usize, [f64; 3])> = Default::default();
    for (_, _, p) in px {
        let key = [p[0] / 8, p[1] / 8, p[2] / 8];
        let e = buckets.entry(key).or_insert((0, [0.0; 3]));
        e.0 += 1;
        for (sum, c) in e.1.iter_mut().zip(p) {
            *sum += f64::from(*c);
        }
    }
    let mut v: Vec<([f64; 3], usize)> = buckets
        .into_values()
        .map(|(n, s)| (s.map(|c| c / n as f64), n))
        .collect();
    v.sort_by_key(|e| std::cmp::Reverse(e.1));
    v
}

/// Projects world point `p` through `view` (perspective, `fov_y` degrees) onto a
/// `size` picture, by hand: into the camera's frame (the inverse of its rotation), then
/// x / -z and y / -z over tan(fov / 2), rows counted from the top.
fn project(view: &View, size: [u32; 2], p: [f64; 3]) -> Option<[f64; 2]> {
    let Projection::Perspective { fov_y } = view.projection else {
        panic!("a perspective camera");
    };
    let [qx, qy, qz, qw] = view.rotation.to_array().map(f64::from);
    let d = [0, 1, 2].map(|i| p[i] - f64::from(view.position[i]));
    // Rotate by the conjugate quaternion (-qx, -qy, -qz, qw): v' = v + 2w(u×v) + 2u×(u×v).
    let u = [-qx, -qy, -qz];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let t = cross(u, d).map(|c| 2.0 * c);
    let ut = cross(u, t);
    let v = [0, 1, 2].map(|i| d[i] + qw * t[i] + ut[i]);
    if v[2] >= -1e-6 {
        return None;
    }
    let f = (f64::from(fov_y).to_radians() / 2.0).tan();
    let aspect = f64::from(size[0]) / f64::from(size[1]);
    let nx = v[0] / -v[2] / (f * aspect);
    let ny = v[1] / -v[2] / f;
    Some([
        (nx + 1.0) / 2.0 * f64::from(size[0]),
        (1.0 - ny) / 2.0 * f64::from(size[1]),
    ])
}

#[test]
fn a_teardown_fixture_prop_covers_its_bounds_in_its_palette_colors() {
    let path = fixtures().join("teardown/sandbags.vox");
    let Ok(vox) = std::fs::read(&path) else {
        println!(
            "skipped: {} is absent (the copyleft Teardown fixtures are read in place, never copied)",
            path.display()
        );
        return;
    };
    // The file's palette and the indices its voxels use, read here from the bytes.
    let chunks = vox_chunks(&vox);
    let rgba = chunks
        .iter()
        .find(|(id, _)| id == b"RGBA")
        .map(|(_, c)| *c)
        .unwrap_or_else(|| panic!("sandbags.vox has no RGBA chunk"));
    let mut used = std::collections::BTreeSet::new();
    for (_, c) in chunks.iter().filter(|(id, _)| id == b"XYZI") {
        let n = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize;
        for v in 0..n {
            used.insert(c[4 + 4 * v + 3]);
        }
    }
    assert!(!used.is_empty());
    // Palette index i (1-255) is the RGBA chunk's color i - 1.
    let palette: Vec<[f64; 3]> = used
        .iter()
        .map(|&i| {
            let k = 4 * (usize::from(i) - 1);
            [rgba[k], rgba[k + 1], rgba[k + 2]].map(f64::from)
        })
        .collect();

    let dir = temp_dir("sandbags");
    let eye = [3.0, 2.5, 4.0];
    let map = map_json(
        "/voxels/sandbags.dh-vox",
        [0.0, 0.0, 0.0],
        -2.0,
        eye,
        [-22.0, 35.0, 0.0],
    );
    let pallet = build_pallet(
        &dir,
        "sandbags",
        vec![
            ("voxels/sandbags.vox", vox.clone()),
            (
                "voxels/sandbags.dh-vox",
                br#"{ "platform": "teardown", "data": "sandbags.vox" }"#.to_vec(),
            ),
            ("materials/floor.dh-mat", FLOOR_MATERIAL.as_bytes().to_vec()),
            ("maps/sandbags.dh-map", map.into_bytes()),
        ],
    );
    let (host, catalog, m) = start(&pallet, "sandbags", &[]);
    let _ = std::fs::remove_dir_all(&dir);
    let gpu = testing::test_gpu();
    let (with, without, view) = {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        shoot(&mut renderer, &host, &catalog, &m)
    };
    testing::finish(gpu);
    if let Ok(d) = std::env::var("DH_RENDER_OUT") {
        // For looking at, never kept: a picture of a copyleft model is a derivative.
        let _ = with.write_png(&Path::new(&d).join("sandbags-not-a-golden.png"));
    }
    let size = [with.width, with.height];
    // The screen box of every drawn grid's bounds (its cells through its placement).
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    for v in host.voxel_volumes() {
        for g in &v.grids {
            if g.cells[0] == g.cells[1] {
                continue;
            }
            for corner in 0..8 {
                let c = [0, 1, 2].map(|a| {
                    f64::from(if corner & (1 << a) == 0 {
                        g.cells[0][a]
                    } else {
                        g.cells[1][a]
                    })
                });
                let s = project(&view, size, g.placement.point(c.into()).to_array())
                    .unwrap_or_else(|| panic!("a corner behind the camera"));
                for a in 0..2 {
                    lo[a] = lo[a].min(s[a]);
                    hi[a] = hi[a].max(s[a]);
                }
            }
        }
    }
    assert!(
        lo[0] > 0.0 && lo[1] > 0.0 && hi[0] < f64::from(size[0]) && hi[1] < f64::from(size[1]),
        "the prop's box {lo:?}..{hi:?} is framed"
    );
    // Its pixels (a shadow on the floor aside: only the prop's own colors are kept, by
    // luma over the floor's) lie within the box, with a pixel of slack, and fill a good
    // part of it.
    let px = changed(&with, &without, 12);
    let box_area = (hi[0] - lo[0]) * (hi[1] - lo[1]);
    let inside = |x: u32, y: u32| {
        let (x, y) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
        x >= lo[0] - 1.5 && x <= hi[0] + 1.5 && y >= lo[1] - 1.5 && y <= hi[1] + 1.5
    };
    let lit: Vec<_> = px
        .iter()
        .copied()
        .filter(|(x, y, p)| {
            luma(*p) >= luma(without.pixel(*x, *y).unwrap_or([0; 4])) - 1.0 || inside(*x, *y)
        })
        .collect();
    let outside = lit.iter().filter(|(x, y, _)| !inside(*x, *y)).count();
    assert_eq!(outside, 0, "prop pixels outside its box {lo:?}..{hi:?}");
    assert!(
        lit.len() as f64 > 0.3 * box_area,
        "the prop fills {} of its box's {box_area:.0} pixels",
        lit.len()
    );
    // The most frequent colors of its sunlit half (the brighter half of its pixels: the
    // shaded side takes the sky's tint) are the file's paint: each within a small
    // distance of a palette color it uses, in chromaticity.
    let mut lumas: Vec<f64> = lit.iter().map(|p| luma(p.2)).collect();
    lumas.sort_by(f64::total_cmp);
    let median = lumas[lumas.len() / 2];
    let sunlit: Vec<_> = lit
        .iter()
        .copied()
        .filter(|p| luma(p.2) >= median)
        .collect();
    let top = dominant(&sunlit);
    let covered: usize = top.iter().take(3).map(|t| t.1).sum();
    assert!(
        covered * 5 >= sunlit.len(),
        "the three top colors hold a fifth of the sunlit pixels"
    );
    for (color, n) in top.iter().take(3) {
        let c = chroma(*color);
        let best = palette
            .iter()
            .map(|p| {
                let q = chroma(*p);
                ((c[0] - q[0]).powi(2) + (c[1] - q[1]).powi(2)).sqrt()
            })
            .fold(f64::INFINITY, f64::min);
        assert!(
            best < 0.05,
            "dominant color {color:?} ({n} px) is no palette color of the file (nearest {best:.3})"
        );
    }
}

/// A stored (uncompressed) zlib stream of `data`.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = data.chunks(65535).collect();
    for (i, b) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let len = b.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(b);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &x in data {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}

fn chunk(id: &[u8; 4], content: &[u8], children: &[u8]) -> Vec<u8> {
    let mut out = id.to_vec();
    out.extend_from_slice(&(content.len() as u32).to_le_bytes());
    out.extend_from_slice(&(children.len() as u32).to_le_bytes());
    out.extend_from_slice(content);
    out.extend_from_slice(children);
    out
}

fn vox_string(s: &str) -> Vec<u8> {
    let mut out = (s.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(s.as_bytes());
    out
}

/// The hut's palette indices (Teardown's ranges: 1-8 glass, 57-72 wood, 73-88
/// concrete, 89-104 brick, 153-168 plastic) and the colors it paints them.
const HUT_COLORS: [(u8, [u8; 3]); 6] = [
    (4, [120, 190, 230]),
    (60, [110, 70, 40]),
    (64, [150, 100, 55]),
    (80, [150, 150, 150]),
    (96, [170, 70, 50]),
    (160, [40, 90, 200]),
];

/// A small hut as Teardown VoxTool writes a model (16 × 12 × 10, Z up): a concrete slab,
/// brick walls with a glass window and a wooden door in the front (y = 0) wall, a wooden
/// roof and a plastic chimney; one `TDCZ` model, its `RGBA` palette, a `MATL` making the
/// window glass, and a `NOTE` naming Teardown's palette rows.
fn hut_vox() -> Vec<u8> {
    let (sx, sy, sz) = (16usize, 12usize, 10usize);
    let mut cells = vec![0u8; sx * sy * sz];
    let mut set = |x: usize, y: usize, z: usize, v: u8| cells[x + sx * (y + sy * z)] = v;
    for y in 0..sy {
        for x in 0..sx {
            set(x, y, 0, 80);
            set(x, y, 7, 64);
        }
    }
    for z in 1..7 {
        for y in 0..sy {
            for x in 0..sx {
                let edge = x == 0 || x == sx - 1 || y == 0 || y == sy - 1;
                if !edge {
                    continue;
                }
                let window = y == 0 && (4..9).contains(&x) && (3..5).contains(&z);
                let door = y == 0 && (11..13).contains(&x) && z < 5;
                set(
                    x,
                    y,
                    z,
                    if window {
                        4
                    } else if door {
                        60
                    } else {
                        96
                    },
                );
            }
        }
    }
    for z in 8..10 {
        for y in 2..4 {
            for x in 2..4 {
                set(x, y, z, 160);
            }
        }
    }
    let mut size = Vec::new();
    for v in [sx, sy, sz] {
        size.extend_from_slice(&(v as u32).to_le_bytes());
    }
    let mut tdcz = size.clone();
    tdcz.extend_from_slice(&zlib_stored(&cells));
    let mut rgba = vec![0u8; 1024];
    for (k, c) in rgba.chunks_mut(4).enumerate() {
        c.copy_from_slice(&[200, 200, 200, 255]);
        if let Some((_, color)) = HUT_COLORS.iter().find(|(i, _)| usize::from(*i) == k + 1) {
            c[..3].copy_from_slice(color);
        }
    }
    let mut matl = 4u32.to_le_bytes().to_vec();
    matl.extend_from_slice(&2u32.to_le_bytes());
    for s in ["_type", "_glass", "_alpha", "0.5"] {
        matl.extend_from_slice(&vox_string(s));
    }
    let rows = [
        "glass",
        "grass",
        "grass",
        "dirt",
        "dirt",
        "rock",
        "rock",
        "wood",
        "wood",
        "concrete",
        "concrete",
        "brick",
        "brick",
        "plaster",
        "plaster",
        "weak metal",
        "weak metal",
        "heavy metal",
        "heavy metal",
        "plastic",
        "plastic",
        "hard metal",
        "hard masonry",
        "",
        "",
        "",
        "",
        "",
        "unphysical",
        "unphysical",
        "",
        "",
    ];
    let mut note = (rows.len() as u32).to_le_bytes().to_vec();
    for r in rows {
        note.extend_from_slice(&vox_string(r));
    }
    let mut children = chunk(b"SIZE", &size, &[]);
    children.extend(chunk(b"TDCZ", &tdcz, &[]));
    children.extend(chunk(b"RGBA", &rgba, &[]));
    children.extend(chunk(b"MATL", &matl, &[]));
    children.extend(chunk(b"NOTE", &note, &[]));
    let mut out = b"VOX ".to_vec();
    out.extend_from_slice(&150u32.to_le_bytes());
    out.extend(chunk(b"MAIN", &[], &children));
    out
}

#[test]
fn a_project_authored_teardown_vox_matches_its_golden() {
    let dir = temp_dir("hut");
    // The hut is 1.6 × 1.0 × 1.2 m at Teardown's 0.1 m voxels, centered on its pivot,
    // so half of it sits below the record: the floor is 0.5 m under it.
    let map = map_json(
        "/voxels/hut.dh-vox",
        [0.0, 0.0, 0.0],
        -0.5,
        [1.4, 1.0, 1.9],
        [-22.0, 35.0, 0.0],
    );
    let pallet = build_pallet(
        &dir,
        "hut",
        vec![
            ("voxels/hut.vox", hut_vox()),
            (
                "voxels/hut.dh-vox",
                br#"{ "platform": "teardown", "data": "hut.vox" }"#.to_vec(),
            ),
            ("materials/floor.dh-mat", FLOOR_MATERIAL.as_bytes().to_vec()),
            ("maps/hut.dh-map", map.into_bytes()),
        ],
    );
    let (host, catalog, m) = start(&pallet, "hut", &[]);
    let _ = std::fs::remove_dir_all(&dir);
    // The importer read it as Teardown: each entry is its index's material.
    let v = &host.voxel_volumes()[0];
    assert_eq!(v.platform.as_deref(), Some("com.tuxedolabs.teardown"));
    let gpu = testing::test_gpu();
    let (with, without, _) = {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        shoot(&mut renderer, &host, &catalog, &m)
    };
    testing::finish(gpu);
    // The brick walls' red is the largest color, lit (not black).
    let px = changed(&with, &without, 12);
    assert!(px.len() > 2000, "the hut covers {} pixels", px.len());
    let top = dominant(&px);
    let brick = chroma([170.0, 70.0, 50.0]);
    let c = chroma(top[0].0);
    assert!(
        ((c[0] - brick[0]).powi(2) + (c[1] - brick[1]).powi(2)).sqrt() < 0.05,
        "the hut's largest color {:?} is its brick",
        top[0]
    );
    assert!(luma([top[0].0[0] as u8, top[0].0[1] as u8, top[0].0[2] as u8, 255]) > 30.0);
    check_golden("voxel-teardown-hut", &with);
}

// ---- The live path --------------------------------------------------------------------

const MC: &str = "com.mojang.minecraft";
/// The stone floor's cells are y 0..4; a torch stands on it at this cell.
const TORCH: [i32; 3] = [20, 4, 20];

/// A Minecraft-platform volume (lit hybrid by its platform): 64 × 16 × 64 cells of 16-cell
/// chunks, 1 m voxels, Y up, stone in y 0..4 and one torch on top.
fn ground_pallet(dir: &Path, id: &str, lighting: &str) -> PathBuf {
    let mut p = VoxelPayload::default();
    p.header.platform = MC.into();
    p.header.voxel_size = 1.0;
    p.header.chunk_edge = 16;
    p.palette = vec![
        PaletteEntry::empty(),
        PaletteEntry::new("minecraft", "stone"),
        PaletteEntry::new("minecraft", "torch"),
    ];
    p.grids = vec![Grid::new(GridInfo::new(
        "overworld",
        [0, 0, 0],
        [64, 16, 64],
    ))];
    for z in 0..64 {
        for x in 0..64 {
            for y in 0..4 {
                assert!(p.set_cell(0, 0, [x, y, z], 1));
            }
        }
    }
    assert!(p.set_cell(0, 0, TORCH, 2));
    let shards = encode(&p).unwrap_or_else(|e| panic!("{e}"));
    let def = format!(r#"{{ "platform": "{MC}", "data": "ground.dh-vox.bin" }}"#);
    let map = map_json_lit(
        "/voxels/ground.dh-vox",
        [0.0, 0.0, 0.0],
        0.0,
        [20.5, 12.0, 34.0],
        [-30.0, 0.0, 0.0],
        lighting,
    );
    build_pallet(
        dir,
        id,
        vec![
            ("voxels/ground.dh-vox", def.into_bytes()),
            (
                "voxels/ground.dh-vox.bin",
                shards.into_iter().next().unwrap_or_default(),
            ),
            ("materials/floor.dh-mat", FLOOR_MATERIAL.as_bytes().to_vec()),
            ("maps/ground.dh-map", map.into_bytes()),
        ],
    )
}

/// A window cell's index: brick-major (x, y, z), `x + 16 (y + 16 z)` inside a brick.
fn window_index(origin: [i32; 3], bricks: [u32; 3], cell: [i32; 3]) -> Option<usize> {
    let d = [0, 1, 2].map(|a| cell[a] - origin[a]);
    if (0..3).any(|a| d[a] < 0 || d[a] >= 16 * bricks[a] as i32) {
        return None;
    }
    let b = d.map(|v| (v / 16) as usize);
    let l = d.map(|v| (v % 16) as usize);
    let n = bricks.map(|v| v as usize);
    Some((b[0] + n[0] * (b[1] + n[1] * b[2])) * LIGHT_BRICK_CELLS + l[0] + 16 * (l[1] + 16 * l[2]))
}

#[test]
fn the_live_path_streams_within_its_ceilings_and_fills_the_light_window() {
    let dir = temp_dir("ground");
    let pallet = ground_pallet(&dir, "ground", DAY);
    // Regions of 1 chunk (16 cells): the floor is 4 × 1 × 4 regions; at most 6 meshes.
    let (host, catalog, map) = start(
        &pallet,
        "ground",
        &["client.voxel.regionChunks=1", "client.voxel.maxMeshes=6"],
    );
    let (bare, view, size) = frame_and_camera(&host, &catalog, &map);
    // The volume's box: 64 × 16 × 64 one-meter cells from the origin, by hand.
    assert_eq!(
        volume_bounds(&host).map(|(lo, hi)| (lo.to_array(), hi.to_array())),
        Some(([0.0, 0.0, 0.0], [64.0, 16.0, 64.0]))
    );
    let mut draw = VoxelDraw::new(&host.prefs);
    let ids = {
        draw.sync(&host);
        draw.volume_ids()
    };
    assert_eq!(ids.len(), 1);
    assert!(
        ids[0].2,
        "a Minecraft volume computes a light field (hybrid)"
    );

    // Frames never wait: the first one draws nothing (the volume only starts opening).
    let mut frame = bare.clone();
    let first = draw.frame(&host, &view, &mut frame);
    assert_eq!(first.instances, 0);
    assert!(frame.meshes.is_empty());
    // Meshes appear within a bounded number of frames, and stay within maxMeshes.
    let mut frames = 1;
    let mut stats = first;
    while frames < 2000 {
        std::thread::sleep(Duration::from_millis(5));
        frame = bare.clone();
        stats = draw.frame(&host, &view, &mut frame);
        frames += 1;
        assert!(
            stats.stream.resident + stats.stream.meshing <= 6,
            "{stats:?}"
        );
        assert!(frame.meshes.len() <= 6);
        // Six regions drawing (the ceiling), nothing meshing, every one shaded.
        let full = stats.instances == 6 && stats.stream.meshing == 0;
        if full && stats.lit_instances == stats.instances {
            break;
        }
    }
    assert!(
        stats.instances > 0,
        "no mesh after {frames} frames: {stats:?}"
    );
    // 16 floor regions want 16 meshes: the ceiling held 6 and said so once.
    assert_eq!(stats.stream.resident, 6, "{stats:?}");
    let log = draw.take_log();
    assert!(
        log.iter().any(|l| l.contains("client.voxel.maxMeshes")),
        "{log:?}"
    );
    // The window shades every voxel instance (all of the frame's meshes).
    let w = frame
        .voxel_light
        .clone()
        .unwrap_or_else(|| panic!("no light window"));
    assert!(w.is_consistent());
    assert_eq!(
        w.lit_instances,
        (0..frame.meshes.len() as u32).collect::<Vec<_>>()
    );

    // Let the light reach the torch's column (its region stands nearest the camera).
    let mut torch = None;
    for _ in 0..2000 {
        let i = window_index(w.origin, w.bricks, TORCH);
        frame = bare.clone();
        let s = draw.frame(&host, &view, &mut frame);
        if let (Some(wl), Some(_)) = (&frame.voxel_light, i) {
            let i = window_index(wl.origin, wl.bricks, TORCH).unwrap_or(0);
            if wl.cells.get(i).copied().unwrap_or(UNLIT) != UNLIT && s.stream.light_columns > 0 {
                torch = Some(wl.clone());
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let w = torch.unwrap_or_else(|| panic!("the torch's column was never lit"));
    let at = |c: [i32; 3]| -> u16 {
        let i = window_index(w.origin, w.bricks, c).unwrap_or_else(|| panic!("{c:?} outside"));
        w.cells[i]
    };
    // By the rules, by hand: the torch's own cell holds its 14 (gray: all three
    // channels) under open sky; each taxicab step loses 1; stone is dark.
    assert_eq!(at(TORCH), 0xFEEE);
    assert_eq!(at([21, 4, 20]), 0xFDDD);
    assert_eq!(at([21, 5, 20]), 0xFCCC);
    assert_eq!(at([21, 5, 21]), 0xFBBB);
    assert_eq!(at([16, 4, 20]), 0xFAAA);
    assert_eq!(at([20, 2, 20]), 0x0000);
    // Tables from the preferences' defaults: the gate at 15 is 1.
    assert!((w.sky_gate[15] - 1.0).abs() < 1e-6);
    assert!((w.occlusion_step - 0.2).abs() < 1e-6);
    assert!((w.edge_fade - 8.0).abs() < 1e-6);

    // The live frames render, validation clean, with the window on.
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let mut drew = 0;
        for _ in 0..4 {
            frame = bare.clone();
            draw.frame(&host, &view, &mut frame);
            let r = renderer
                .render_frame(&frame, &view, size[0], size[1], &ScopedThreads)
                .unwrap_or_else(|e| panic!("{e}"));
            drew = drew.max(r.mesh_draws);
        }
        renderer.finish().unwrap_or_else(|e| panic!("{e}"));
        assert!(drew > 0, "no voxel mesh drew");
    }
    testing::finish(gpu);

    // A map swap: the streamer starts over with the new host's volumes.
    let pallet2 = ground_pallet(&dir, "ground2", DAY);
    let (host2, _, _) = start(&pallet2, "ground", &[]);
    draw.sync(&host2);
    let ids2 = draw.volume_ids();
    assert_eq!(ids2.len(), 1);
    assert_ne!(ids2[0].1, ids[0].1);
    assert!(draw.streamer().resident_regions().is_empty());
    frame = bare.clone();
    let s = draw.frame(&host2, &view, &mut frame);
    assert_eq!(s.instances, 0, "nothing of the old map draws");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_hybrid_volume_is_shaded_by_its_light_field() {
    let dir = temp_dir("hybrid");
    let pallet = ground_pallet(&dir, "hybrid", NIGHT);
    // The same capture with the fill's gain at its default (1) and at 0.
    let capture = |sets: &[&str]| -> (RgbaImage, View, usize) {
        let (host, catalog, map) = start(&pallet, "ground", sets);
        let (mut frame, view, size) = frame_and_camera(&host, &catalog, &map);
        let mut draw = VoxelDraw::new(&host.prefs);
        let stats = draw.capture(&host, Some(&view), &mut frame);
        let window = frame
            .voxel_light
            .as_ref()
            .unwrap_or_else(|| panic!("no light window: {stats:?}"));
        assert_eq!(window.lit_instances.len(), stats.instances);
        let gpu = testing::test_gpu();
        let image = {
            let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
            renderer
                .render(&frame, &view, size[0], size[1])
                .unwrap_or_else(|e| panic!("{e}"))
                .image
        };
        testing::finish(gpu);
        (image, view, stats.instances)
    };
    let (lit, view, n) = capture(&[]);
    let (unfilled, _, m) = capture(&["client.voxel.blockLightIntensity=0"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(n, m);
    dump("hybrid-unfilled", &unfilled);
    dump("hybrid-lit", &lit);
    // Around the torch (the floor's top beside it), the torch's fill brightens the
    // stone: albedo × tint × curve(level) × blockLightIntensity adds nothing at gain 0.
    let size = [lit.width, lit.height];
    let at = project(&view, size, [20.5, 4.0, 21.5]).unwrap_or_else(|| panic!("behind"));
    let (cx, cy) = (at[0] as i64, at[1] as i64);
    let mean = |img: &RgbaImage| {
        let mut s = 0.0;
        let mut k = 0.0;
        for y in cy - 4..=cy + 4 {
            for x in cx - 4..=cx + 4 {
                if let (Ok(x), Ok(y)) = (u32::try_from(x), u32::try_from(y)) {
                    if let Some(p) = img.pixel(x, y) {
                        s += luma(p);
                        k += 1.0;
                    }
                }
            }
        }
        s / f64::max(k, 1.0)
    };
    let (with, without) = (mean(&lit), mean(&unfilled));
    assert!(
        with > without + 8.0,
        "the torch's fill: luma {with:.1} with it, {without:.1} without"
    );
    dump("hybrid-lit", &lit);
    check_golden("voxel-hybrid-torch", &lit);
}

#[test]
fn a_placements_lighting_is_resolved_and_logged() {
    // The hut (Teardown: Z up, `dh` by default) placed asking for `minecraft`: shaded as
    // hybrid, which wants a field, and a Z-up grid has none yet; both are said.
    let dir = temp_dir("hut-minecraft");
    let map = map_json(
        "/voxels/hut.dh-vox",
        [0.0, 0.0, 0.0],
        -0.5,
        [1.4, 1.0, 1.9],
        [-22.0, 35.0, 0.0],
    )
    .replace(
        r#""volume": "/voxels/hut.dh-vox""#,
        r#""volume": "/voxels/hut.dh-vox", "lighting": "minecraft""#,
    );
    let pallet = build_pallet(
        &dir,
        "hutmc",
        vec![
            ("voxels/hut.vox", hut_vox()),
            (
                "voxels/hut.dh-vox",
                br#"{ "platform": "teardown", "data": "hut.vox" }"#.to_vec(),
            ),
            ("materials/floor.dh-mat", FLOOR_MATERIAL.as_bytes().to_vec()),
            ("maps/hut.dh-map", map.into_bytes()),
        ],
    );
    let (host, _, _) = start(&pallet, "hut", &[]);
    let _ = std::fs::remove_dir_all(&dir);
    let mut draw = VoxelDraw::new(&host.prefs);
    let mut frame = RenderFrame::default();
    // No camera: it streams outward from the volume's origin.
    let stats = draw.capture(&host, None, &mut frame);
    assert!(stats.instances > 0, "{stats:?}");
    assert_eq!(frame.meshes.len(), stats.instances);
    let log = draw.take_log();
    assert!(
        log.iter().any(|l| {
            l
            == "voxel volume 'model': lighting 'minecraft' is not built yet; shading it as 'hybrid'"
        }),
        "{log:?}"
    );
    assert!(
        log.iter()
            .any(|l| l.contains("no light field is computed for a grid whose up axis is not Y")),
        "{log:?}"
    );
    assert!(draw.volume_ids().iter().all(|(_, _, lit)| !lit));
    assert!(frame.voxel_light.is_none());
}

#[test]
fn bench_render_draws_the_maps_volumes_live() {
    let dir = temp_dir("bench");
    let pallet = ground_pallet(&dir, "bench", DAY);
    testing::lavapipe_env();
    let options = dh_engine::cli::RunOptions {
        pallets: vec![pallet],
        map: Some("ground".into()),
        ticks: Some(24),
        render: Some([160, 90]),
        quiet: true,
        ..Default::default()
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = dh_engine::run::run(&options, true, &mut out, &mut err);
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8_lossy(&err);
    let out = String::from_utf8_lossy(&out);
    assert_eq!(outcome, dh_engine::run::Outcome::Done, "{err}{out}");
    // The summary names the voxel regions resident, and the frame timer the voxels'
    // phase (how many landed depends on the threads: not asserted).
    assert!(err.contains("voxel regions resident"), "{err}");
    assert!(out.contains("voxels"), "{out}");
}
