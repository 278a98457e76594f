//! Mip chains drawn (issue 18 item 3): every material texture extraction hands the renderer
//! carries its full chain, reduced with its material's filter, through the on-disk cache
//! (`DH_CACHE_DIR`: a second load reads every chain back and generates none); and on
//! lavapipe, with validation, a distant grid floor does not alias, where with
//! `client.display.mipmaps` off the same floor does.

mod support;

use std::path::{Path, PathBuf};

use dh_content::mips::{generate_chain, MipFilter};
use dh_engine::extract::{self, ExtractCache};
use dh_engine::mip_cache::{MipCache, MipCacheStats, CACHE_DIR_ENV};
use dh_gpu::render::camera::output_size;
use dh_gpu::render::frame::Mipmaps;
use dh_gpu::render::Renderer;
use dh_gpu::{testing, RgbaImage};

/// The grid: 32 texels a repeat, white squares of 12 with black lines 4 texels wide
/// (texels 0 to 3 of each 16 on either axis): 1 - (12/16)² = 43.75 % black.
fn grid() -> Vec<u8> {
    let mut out = Vec::with_capacity(32 * 32 * 4);
    for y in 0..32 {
        for x in 0..32 {
            let line = x % 16 < 4 || y % 16 < 4;
            let v = if line { 0 } else { 255 };
            out.extend_from_slice(&[v, v, v, 255]);
        }
    }
    out
}

/// A 16 × 16 texture of another look (a red diagonal ramp, alpha ramping too).
fn ramp() -> Vec<u8> {
    (0..16u32 * 16)
        .flat_map(|i| {
            let (x, y) = (i % 16, i / 16);
            [(x * 16) as u8, (y * 16) as u8, 40, ((x + y) * 8) as u8]
        })
        .collect()
}

fn png(edge: u32, rgba: &[u8]) -> Vec<u8> {
    dh_gpu::encode_png(edge, edge, rgba).unwrap_or_else(|e| panic!("{e}"))
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dh-mip-chains-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
    d
}

/// Four materials over three PNGs: `a` (the grid, opaque), `b` (a copy of the grid's file
/// under another name, opaque: the same pixels, so the same cache entry), `cut` (the grid
/// again under `alphaMode: "mask"`, cutoff 0.4: another filter, another entry) and `c`
/// (the ramp); one panel each.
fn cache_pallet(dir: &Path) -> PathBuf {
    let manifest =
        r#"{ "id": "test.mips", "name": "Mips", "version": "1.0.0", "dependencies": [] }"#;
    let map = r#"{
  "name": "Mips",
  "materials": { "a": "/materials/a.dh-mat", "b": "/materials/b.dh-mat", "cut": "/materials/cut.dh-mat", "c": "/materials/c.dh-mat" },
  "objects": [
    { "$type": "boxBrush", "id": "5d0c7a11-0a4e-4a51-8f0e-3c1a6b2e9a01", "name": "pa", "position": [0, 1, 0], "size": [1, 1, 0.1], "material": "a" },
    { "$type": "boxBrush", "id": "5d0c7a11-0a4e-4a51-8f0e-3c1a6b2e9a02", "name": "pb", "position": [2, 1, 0], "size": [1, 1, 0.1], "material": "b" },
    { "$type": "boxBrush", "id": "5d0c7a11-0a4e-4a51-8f0e-3c1a6b2e9a03", "name": "pcut", "position": [4, 1, 0], "size": [1, 1, 0.1], "material": "cut" },
    { "$type": "boxBrush", "id": "5d0c7a11-0a4e-4a51-8f0e-3c1a6b2e9a04", "name": "pc", "position": [6, 1, 0], "size": [1, 1, 0.1], "material": "c" }
  ]
}"#;
    let sources = vec![
        ("textures/grid.png", png(32, &grid())),
        ("textures/grid-copy.png", png(32, &grid())),
        ("textures/ramp.png", png(16, &ramp())),
        (
            "materials/a.dh-mat",
            br#"{ "shader": "unlit", "baseColor": "../textures/grid.png" }"#.to_vec(),
        ),
        (
            "materials/b.dh-mat",
            br#"{ "shader": "unlit", "baseColor": "../textures/grid-copy.png" }"#.to_vec(),
        ),
        (
            "materials/cut.dh-mat",
            br#"{ "shader": "unlit", "baseColor": "../textures/grid.png", "alphaMode": "mask", "alphaCutoff": 0.4 }"#
                .to_vec(),
        ),
        (
            "materials/c.dh-mat",
            br#"{ "shader": "unlit", "baseColor": "../textures/ramp.png" }"#.to_vec(),
        ),
        ("maps/mips.dh-map", map.as_bytes().to_vec()),
    ];
    support::memory_pallet(dir, "mips.pallet", manifest, sources)
}

fn dhmip_files(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(root.join("mipmaps"))
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The one test in this binary that reads `DH_CACHE_DIR` (the aliasing test names its
/// cache outright), so setting it here races nothing.
#[test]
fn a_second_load_reads_every_chain_from_the_cache() {
    let dir = temp_dir("load");
    let root = dir.join("cache");
    std::env::set_var(CACHE_DIR_ENV, &root);
    let pallet = cache_pallet(&dir);
    let (mut host, catalog, map) = support::host_and_map(&[pallet], "test.mips:maps/mips");

    // First run: four textures, three distinct chains (the copy's pixels are the grid's).
    let first = ExtractCache::new();
    assert_eq!(first.mip_cache().folder(), Some(root.join("mipmaps")));
    let mut first = first;
    let x = extract::extract_with(&host, &catalog, &map, &mut first);
    assert!(x.notes.is_empty(), "{:?}", x.notes);
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    assert_eq!(x.frame.mipmaps, Mipmaps::On);
    assert_eq!(
        first.mip_cache().stats(),
        MipCacheStats {
            reads: 1,
            writes: 3,
            generated: 3,
            refused: 0
        },
        "the copy's chain is the grid's entry, read back"
    );
    assert_eq!(dhmip_files(&root).len(), 3, "{:?}", dhmip_files(&root));
    // What the renderer is handed: each texture with its full chain, by its filter.
    let texture = |i: usize| {
        x.frame.materials[i]
            .base_color_texture
            .clone()
            .unwrap_or_else(|| panic!("material {i} has no texture"))
    };
    let (a, b, cut, c) = (texture(0), texture(1), texture(2), texture(3));
    assert_eq!(a.level_count(), 6, "32, 16, 8, 4, 2, 1");
    assert_eq!(c.level_count(), 5, "16, 8, 4, 2, 1");
    assert_eq!(a.mips, generate_chain(32, 32, &grid(), MipFilter::Box));
    assert_eq!(b.mips, a.mips);
    assert_eq!(
        cut.mips,
        generate_chain(32, 32, &grid(), MipFilter::Coverage { cutoff: 0.4 })
    );
    assert_eq!(c.mips, generate_chain(16, 16, &ramp(), MipFilter::Box));
    assert_eq!(a.level(5).map(|(w, h, t)| (w, h, t.len())), Some((1, 1, 4)));

    // Second run (a fresh extraction cache over the same folder): every chain is read.
    let mut second = ExtractCache::new();
    let y = extract::extract_with(&host, &catalog, &map, &mut second);
    assert_eq!(
        second.mip_cache().stats(),
        MipCacheStats {
            reads: 4,
            writes: 0,
            generated: 0,
            refused: 0
        }
    );
    for i in 0..4 {
        let got = y.frame.materials[i].base_color_texture.as_ref();
        let want = x.frame.materials[i].base_color_texture.as_ref();
        assert_eq!(got.map(|t| &t.mips), want.map(|t| &t.mips), "material {i}");
    }

    // client.cache.mipmaps off: chains still made (textures are always mipped), the disk
    // neither read nor written.
    host.prefs
        .set("client.cache.mipmaps", "false")
        .unwrap_or_else(|e| panic!("{e}"));
    let before = std::fs::metadata(root.join("mipmaps"))
        .and_then(|m| m.modified())
        .ok();
    let mut third = ExtractCache::with_mip_cache(MipCache::at(&root));
    let z = extract::extract_with(&host, &catalog, &map, &mut third);
    assert_eq!(
        third.mip_cache().stats(),
        MipCacheStats {
            reads: 0,
            writes: 0,
            generated: 4,
            refused: 0
        }
    );
    assert_eq!(
        z.frame.materials[0]
            .base_color_texture
            .as_ref()
            .map(|t| t.level_count()),
        Some(6)
    );
    assert_eq!(dhmip_files(&root).len(), 3);
    let after = std::fs::metadata(root.join("mipmaps"))
        .and_then(|m| m.modified())
        .ok();
    assert_eq!(before, after);

    // client.display.mipmaps off: the frame says so (the renderer samples level 0 alone).
    host.prefs
        .set("client.display.mipmaps", "false")
        .unwrap_or_else(|e| panic!("{e}"));
    let w = extract::extract_with(&host, &catalog, &map, &mut third);
    assert_eq!(w.frame.mipmaps, Mipmaps::Off);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- The distant grid floor ------------------------------------------------------------

const WIDTH: u32 = 128;
const HEIGHT: u32 = 72;
const EYE_HEIGHT: f32 = 1.5;
const PITCH_DEG: f32 = 8.0;
const FOV_Y_DEG: f32 = 50.0;
/// The far patch: floor between these distances, meters (the floor runs 300 m out).
const FAR: (f32, f32) = (12.0, 120.0);

/// A 600 × 600 m unlit grid floor, 1 m a repeat (32 texels: one texel is 1/32 m), and a
/// camera 1.5 m up looking down -Z pitched 8° down.
fn floor_pallet(dir: &Path) -> PathBuf {
    let manifest =
        r#"{ "id": "test.floor", "name": "Floor", "version": "1.0.0", "dependencies": [] }"#;
    let map = format!(
        r#"{{
  "name": "Floor",
  "materials": {{ "grid": "/materials/grid.dh-mat" }},
  "render": {{ "tonemap": "none", "bloom": false }},
  "objects": [
    {{ "$type": "object", "id": "1b7e2c40-7d3a-4c55-9b1e-2f6a0c9d8e01", "name": "far", "position": [0.3, {EYE_HEIGHT}, 0], "rotation": [-{PITCH_DEG}, 0, 0],
      "components": [ {{ "$type": "dh.camera", "fov": {FOV_Y_DEG}, "aspect": "16:9" }} ] }},
    {{ "$type": "boxBrush", "id": "1b7e2c40-7d3a-4c55-9b1e-2f6a0c9d8e02", "name": "floor", "position": [0, -0.05, 0], "size": [600, 0.1, 600], "material": "grid" }}
  ]
}}"#
    );
    let sources = vec![
        ("textures/grid.png", png(32, &grid())),
        (
            "materials/grid.dh-mat",
            br#"{ "shader": "unlit", "baseColor": "../textures/grid.png" }"#.to_vec(),
        ),
        ("maps/floor.dh-map", map.into_bytes()),
    ];
    support::memory_pallet(dir, "floor.pallet", manifest, sources)
}

/// The rows whose view ray meets the floor between [`FAR`]'s distances (worked out from
/// the camera: a row's ray dips `PITCH + atan(ndc_y × tan(fov/2))` below level, and meets
/// the floor `EYE_HEIGHT / tan(dip)` away), and the middle half of the columns.
fn far_patch() -> Vec<(u32, u32)> {
    let half = (FOV_Y_DEG.to_radians() * 0.5).tan();
    let mut out = Vec::new();
    for py in 0..HEIGHT {
        let ndc = ((py as f32 + 0.5) / HEIGHT as f32) * 2.0 - 1.0;
        let dip = PITCH_DEG.to_radians() + (ndc * half).atan();
        if dip <= 0.0 {
            continue;
        }
        let distance = EYE_HEIGHT / dip.tan();
        if (FAR.0..=FAR.1).contains(&distance) {
            out.extend((WIDTH / 4..3 * WIDTH / 4).map(|px| (px, py)));
        }
    }
    out
}

/// A pixel's brightness, 0 to 1 (the mean of its sRGB channels).
fn brightness(img: &RgbaImage, x: u32, y: u32) -> f64 {
    let i = ((y * img.width + x) * 4) as usize;
    img.pixels[i..i + 3]
        .iter()
        .map(|&v| f64::from(v))
        .sum::<f64>()
        / (3.0 * 255.0)
}

fn variance(v: &[f64]) -> f64 {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / v.len() as f64
}

/// The far patch's variance in each capture, and the variance of the two captures'
/// difference over it.
struct FarPatch {
    first: f64,
    shifted: f64,
    difference: f64,
}

fn far_patch_of(a: &RgbaImage, b: &RgbaImage) -> FarPatch {
    let patch = far_patch();
    let va: Vec<f64> = patch.iter().map(|&(x, y)| brightness(a, x, y)).collect();
    let vb: Vec<f64> = patch.iter().map(|&(x, y)| brightness(b, x, y)).collect();
    let d: Vec<f64> = va.iter().zip(&vb).map(|(p, q)| p - q).collect();
    FarPatch {
        first: variance(&va),
        shifted: variance(&vb),
        difference: variance(&d),
    }
}

/// The floor captured from the map's camera and from the camera moved one texel (1/32 m)
/// along +X, with `client.display.mipmaps` as given.
fn two_captures(mipmaps: bool, out: Option<&Path>) -> (RgbaImage, RgbaImage) {
    let dir = temp_dir(if mipmaps { "floor-on" } else { "floor-off" });
    let pallet = floor_pallet(&dir);
    let (mut host, catalog, map) = support::host_and_map(&[pallet], "test.floor:maps/floor");
    host.prefs
        .set(
            "client.display.mipmaps",
            if mipmaps { "true" } else { "false" },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let mut cache = ExtractCache::with_mip_cache(MipCache::at(dir.join("cache")));
    let x = extract::extract_with(&host, &catalog, &map, &mut cache);
    assert!(x.notes.is_empty(), "{:?}", x.notes);
    let cam = x
        .cameras
        .iter()
        .find(|c| c.name == "far")
        .unwrap_or_else(|| panic!("no camera"));
    assert_eq!(
        output_size(cam.aspect, Some([WIDTH, HEIGHT]), None),
        [WIDTH, HEIGHT]
    );
    let gpu = testing::test_gpu();
    let shots = {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let mut shifted = cam.view;
        shifted.position.x += 1.0 / 32.0;
        let mut shoot = |view| {
            r.render(&x.frame, view, WIDTH, HEIGHT)
                .unwrap_or_else(|e| panic!("{e}"))
                .image
        };
        (shoot(&cam.view), shoot(&shifted))
    };
    testing::finish(gpu);
    if let Some(d) = out {
        let tag = if mipmaps { "on" } else { "off" };
        let _ = shots.0.write_png(&d.join(format!("floor-mips-{tag}.png")));
        let _ = shots
            .1
            .write_png(&d.join(format!("floor-mips-{tag}-shifted.png")));
    }
    let _ = std::fs::remove_dir_all(&dir);
    shots
}

/// Far off, a pixel spans metres of floor, dozens of texels. Through the chain it reads a
/// level whose texels are as wide, the grid's mean grey (56.25 % white in linear light),
/// so the patch is near flat and a one-texel step changes nothing. Without the chain each
/// pixel's bilinear tap lands on a line or a square by chance: the patch scatters between
/// black and white (a 44/56 scatter's variance is 0.246 on a 0-to-1 scale) and a one-texel
/// step reshuffles it.
#[test]
fn a_distant_grid_floor_does_not_alias() {
    let out = std::env::var_os("DH_RENDER_OUT").map(PathBuf::from);
    assert!(far_patch().len() >= 64 * 6, "{} pixels", far_patch().len());
    let (a, b) = two_captures(true, out.as_deref());
    let on = far_patch_of(&a, &b);
    let (c, d) = two_captures(false, out.as_deref());
    let off = far_patch_of(&c, &d);
    eprintln!(
        "far patch variance: mips on {:.5} / {:.5} (difference {:.5}); off {:.5} / {:.5} (difference {:.5})",
        on.first, on.shifted, on.difference, off.first, off.shifted, off.difference
    );
    // Through the chain: within a 0.05 standard deviation (13 of 255), each capture and
    // their difference.
    for v in [on.first, on.shifted, on.difference] {
        assert!(v < 0.0025, "mips on: a far patch variance of {v:.5}");
    }
    // The same floor without the chain aliases: a tenth of the full scatter at least.
    for v in [off.first, off.shifted, off.difference] {
        assert!(v > 0.025, "mips off: a far patch variance of only {v:.5}");
    }
}

// ---- The dev grid in metres ------------------------------------------------------------

/// A 4 m wide, 2 m tall wall of `core:materials/dev-grid-white.dh-mat` seen head-on, and
/// a camera 3 m in front of its middle (fov 60: the frame spans 3.35 m of the wall's height,
/// so its 16:9 width, 5.95 m, holds the whole wall).
fn wall_pallet(dir: &Path) -> PathBuf {
    let manifest =
        r#"{ "id": "test.wall", "name": "Wall", "version": "1.0.0", "dependencies": [] }"#;
    let map = r#"{
  "name": "Wall",
  "materials": { "grid": "core:materials/dev-grid-white.dh-mat" },
  "render": { "tonemap": "none", "bloom": false },
  "objects": [
    { "$type": "object", "id": "3c9a51e2-6b0d-4f2a-8e71-5d4c2b1a0f01", "name": "front", "position": [0, 1, 3], "rotation": [0, 0, 0],
      "components": [ { "$type": "dh.camera", "fov": 60, "aspect": "16:9" } ] },
    { "$type": "boxBrush", "id": "3c9a51e2-6b0d-4f2a-8e71-5d4c2b1a0f02", "name": "wall", "position": [0, 1, 0], "size": [4, 2, 0.2], "material": "grid" }
  ]
}"#;
    support::memory_pallet(
        dir,
        "wall.pallet",
        manifest,
        vec![("maps/wall.dh-map", map.as_bytes().to_vec())],
    )
}

/// The core dev grid is one tile a metre: across a 4 m wall, a row between the 0.25 m
/// subdivisions meets the dark 1 m line at each of the wall's edges and at 1, 2 and 3 m
/// (five dark runs), with four light tiles between them.
#[test]
fn a_4_m_dev_wall_shows_four_tiles() {
    let dir = temp_dir("wall");
    let pallet = wall_pallet(&dir);
    let (host, catalog, map) = support::host_and_map(&[pallet], "test.wall:maps/wall");
    let mut cache = ExtractCache::with_mip_cache(MipCache::at(dir.join("cache")));
    let x = extract::extract_with(&host, &catalog, &map, &mut cache);
    assert!(x.notes.is_empty(), "{:?}", x.notes);
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    let cam = x
        .cameras
        .iter()
        .find(|c| c.name == "front")
        .unwrap_or_else(|| panic!("no camera"));
    let (w, h) = (640u32, 360u32);
    let gpu = testing::test_gpu();
    let img = {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        r.render(&x.frame, &cam.view, w, h)
            .unwrap_or_else(|e| panic!("{e}"))
            .image
    };
    testing::finish(gpu);
    if let Some(d) = std::env::var_os("DH_RENDER_OUT") {
        let _ = img.write_png(&Path::new(&d).join("dev-wall-4m.png"));
    }
    // The row 0.125 m above the wall's middle (1 m up, the frame's middle): UV V runs down
    // from the top edge 2 m up, so it is 0.875 m down a tile, halfway between the 0.75 m
    // subdivision and the 1 m line, and clear of the label (a tile's top-left corner).
    // Across it, the wall's own pixels: x from -2 m to 2 m, half a pixel in from each edge.
    // The wall's face is 2.9 m from the eye (3 m to its centre, 0.1 m of it in front).
    let metres_per_px = 2.0 * 2.9 * 30f32.to_radians().tan() / h as f32;
    let row = (h as f32 / 2.0 - 0.125 / metres_per_px) as u32;
    let px_of = |x: f32| w as f32 / 2.0 + x / metres_per_px;
    let (left, right) = (px_of(-2.0).ceil() as u32, px_of(2.0).floor() as u32);
    let lum: Vec<f64> = (left..right).map(|px| brightness(&img, px, row)).collect();
    let (lo, hi) = lum
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    // Dark runs: pixels in the darkest quarter of the row's range (the 1 m lines, sRGB 72;
    // the subdivisions, sRGB 136 on a base of 224, stay above it).
    let mid = lo + (hi - lo) / 4.0;
    let mut runs = 0;
    let mut dark = false;
    for &v in &lum {
        if v < mid && !dark {
            runs += 1;
        }
        dark = v < mid;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(hi - lo > 0.2, "the row shows lines: {lo:.3} to {hi:.3}");
    assert_eq!(runs, 5, "row {row}, {left} to {right}: {lum:?}");
}
