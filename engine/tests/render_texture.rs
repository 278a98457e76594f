//! A base color texture end to end, on lavapipe with validation: a temp pallet with a 32 × 32
//! PNG, an unlit material that names it (with a tint and a uvScale) and a map whose camera
//! looks straight at one panel. Extraction decodes the PNG (sRGB), the renderer uploads it
//! through the staging ring (once with the default budget, once with a 1 KB budget that
//! takes many frames), and both captures are compared, within a tolerance, with the picture
//! worked out on the CPU: ray to the panel, UV in meters × uvScale, trilinear repeat in linear
//! light (the level the footprint asks for, between the top and its 16 × 16 level), × tint,
//! tonemap none.

mod support;

use std::path::PathBuf;
use std::time::Duration;

use dh_engine::extract::{self, ExtractCache};
use dh_gpu::render::camera::output_size;
use dh_gpu::render::compare::compare;
use dh_gpu::render::math::{linear_to_srgb, srgb_to_linear};
use dh_gpu::render::{Renderer, RendererDesc};
use dh_gpu::{testing, RgbaImage, StagingConfig};

const SIZE: u32 = 64;
const TINT: [f32; 3] = [1.0, 0.8, 0.6];
const UV_SCALE: [f32; 2] = [1.5, 1.0];
/// The panel: 2 × 2 m, its front face at z = 0.05, centered at (0, 1).
const PANEL_Z: f32 = 0.05;
const EYE: [f32; 3] = [0.0, 1.0, 2.0];
const FOV: f32 = 60.0;

/// The texture: four 16 × 16 quadrants, red, green / blue, white (sRGB bytes).
fn texels() -> Vec<u8> {
    quadrants(32)
}

/// Four `edge / 2` quadrants, as [`texels`], `edge` on a side: level 0 of the texture at
/// 32, and (each quadrant one colour, so the 2x2 box keeps it) level 1 at 16.
fn quadrants(edge: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(edge * edge * 4);
    for y in 0..edge {
        for x in 0..edge {
            out.extend_from_slice(match (x < edge / 2, y < edge / 2) {
                (true, true) => &[220, 40, 30, 255],
                (false, true) => &[30, 200, 60, 255],
                (true, false) => &[40, 60, 210, 255],
                (false, false) => &[250, 250, 250, 255],
            });
        }
    }
    out
}

fn build_pallet(dir: &std::path::Path) -> PathBuf {
    let png = dh_gpu::encode_png(32, 32, &texels()).unwrap_or_else(|e| panic!("{e}"));
    let manifest =
        r#"{ "id": "test.textured", "name": "Textured", "version": "1.0.0", "dependencies": [] }"#;
    let material = format!(
        r#"{{ "shader": "unlit", "baseColor": "../textures/quad.png", "tint": {TINT:?}, "uvScale": {UV_SCALE:?} }}"#
    );
    let map = r#"{
  "name": "Textured",
  "materials": { "quad": "/materials/quad.dh-mat" },
  "render": { "tonemap": "none", "bloom": false },
  "objects": [
    { "$type": "object", "id": "7c1e0f52-4b7d-4f0e-9a53-0d9b1f6b2a01", "name": "front", "position": [0, 1, 2], "rotation": [0, 0, 0],
      "components": [ { "$type": "dh.camera", "fov": 60 } ] },
    { "$type": "boxBrush", "id": "7c1e0f52-4b7d-4f0e-9a53-0d9b1f6b2a02", "name": "panel", "position": [0, 1, 0], "size": [2, 2, 0.1], "material": "quad" }
  ]
}"#;
    let sources = vec![
        ("textures/quad.png", png),
        ("materials/quad.dh-mat", material.into_bytes()),
        ("maps/textured.dh-map", map.as_bytes().to_vec()),
    ];
    support::memory_pallet(dir, "textured.pallet", manifest, sources)
}

/// An `edge`-square level sampled bilinearly with repeat, in linear light.
fn sample(t: &[u8], edge: usize, u: f32, v: f32) -> [f32; 3] {
    let n = edge as i32;
    let at = |x: i32, y: i32| -> [f32; 3] {
        let (x, y) = (x.rem_euclid(n) as usize, y.rem_euclid(n) as usize);
        let i = (y * edge + x) * 4;
        [0, 1, 2].map(|k| srgb_to_linear(f32::from(t[i + k]) / 255.0))
    };
    let (x, y) = (u * edge as f32 - 0.5, v * edge as f32 - 0.5);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let (x0, y0) = (x0 as i32, y0 as i32);
    let (a, b, c, d) = (
        at(x0, y0),
        at(x0 + 1, y0),
        at(x0, y0 + 1),
        at(x0 + 1, y0 + 1),
    );
    [0, 1, 2].map(|k| {
        let top = a[k] + (b[k] - a[k]) * fx;
        let bottom = c[k] + (d[k] - c[k]) * fx;
        top + (bottom - top) * fy
    })
}

/// The expected picture, and the pixels that fall well inside the panel.
///
/// The panel faces the camera, so every pixel spans the same footprint: 2 × 1.95 m ×
/// tan 30° / 64 = 0.0352 m, which is 0.0352 × 1.5 × 32 = 1.69 texels along U and 1.13
/// along V. Trilinear sampling reads level log2(1.69) = 0.756 (Vulkan's λ = log2 of the
/// larger footprint): 24.4 % of level 0 bilinear and 75.6 % of level 1 (16 × 16) bilinear.
fn reference() -> (RgbaImage, Vec<(u32, u32)>) {
    let (t0, t1) = (texels(), quadrants(16));
    let half = (FOV.to_radians() * 0.5).tan();
    let footprint = 2.0 * (EYE[2] - PANEL_Z) * half / SIZE as f32;
    let rho = (footprint * UV_SCALE[0] * 32.0).max(footprint * UV_SCALE[1] * 32.0);
    let lod = rho.log2().clamp(0.0, 1.0);
    let mut pixels = vec![0u8; (SIZE * SIZE * 4) as usize];
    let mut inside = Vec::new();
    for py in 0..SIZE {
        for px in 0..SIZE {
            let nx = ((px as f32 + 0.5) / SIZE as f32) * 2.0 - 1.0;
            let ny = 1.0 - ((py as f32 + 0.5) / SIZE as f32) * 2.0;
            let dir = [nx * half, ny * half, -1.0];
            let s = (EYE[2] - PANEL_Z) / -dir[2];
            let hit = [EYE[0] + dir[0] * s, EYE[1] + dir[1] * s];
            let (lx, ly) = (hit[0], hit[1] - 1.0);
            // The +Z face: U along +X from the left edge, V down from the top, meters.
            let (u, v) = ((lx + 1.0) * UV_SCALE[0], (1.0 - ly) * UV_SCALE[1]);
            let (a, b) = (sample(&t0, 32, u, v), sample(&t1, 16, u, v));
            let c: [f32; 3] = std::array::from_fn(|k| a[k] + (b[k] - a[k]) * lod);
            let i = ((py * SIZE + px) * 4) as usize;
            for k in 0..3 {
                // The tint is sRGB, multiplied in linear light.
                let tint = srgb_to_linear(TINT[k]);
                pixels[i + k] =
                    (linear_to_srgb((c[k] * tint).clamp(0.0, 1.0)) * 255.0).round() as u8;
            }
            pixels[i + 3] = 255;
            if lx.abs() < 0.9 && ly.abs() < 0.9 {
                inside.push((px, py));
            }
        }
    }
    (
        RgbaImage {
            width: SIZE,
            height: SIZE,
            pixels,
        },
        inside,
    )
}

/// Only the listed pixels of `img` (the rest black), for a comparison on the panel alone.
fn masked(img: &RgbaImage, keep: &[(u32, u32)]) -> RgbaImage {
    let mut out = RgbaImage {
        width: img.width,
        height: img.height,
        pixels: vec![0; img.pixels.len()],
    };
    for &(x, y) in keep {
        let i = ((y * img.width + x) * 4) as usize;
        out.pixels[i..i + 4].copy_from_slice(&img.pixels[i..i + 4]);
    }
    out
}

#[test]
fn a_textured_material_renders_as_worked_out_on_the_cpu() {
    let dir = std::env::temp_dir().join(format!("dh-render-texture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let pallet = build_pallet(&dir);
    let (host, catalog, map) = support::host_and_map(&[pallet], "test.textured:maps/textured");
    let mut cache = ExtractCache::new();
    let x = extract::extract_with(&host, &catalog, &map, &mut cache);
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    assert!(x.notes.is_empty(), "{:?}", x.notes);
    let texture = x.frame.materials[0]
        .base_color_texture
        .clone()
        .unwrap_or_else(|| panic!("the material has no texture"));
    assert_eq!((texture.width, texture.height), (32, 32));
    assert_eq!(texture.rgba, texels(), "decoded as written (sRGB bytes)");
    assert_eq!(x.frame.materials[0].uv_scale, UV_SCALE);
    // A second extraction reuses the decoded texture: same Arc, same static generation.
    let again = extract::extract_with(&host, &catalog, &map, &mut cache);
    assert_eq!(cache.textures(), 1);
    let t2 = again.frame.materials[0].base_color_texture.clone();
    assert!(t2.is_some_and(|t| std::sync::Arc::ptr_eq(&t, &texture)));
    assert_eq!(again.frame.static_generation, x.frame.static_generation);

    let cam = x
        .cameras
        .iter()
        .find(|c| c.name == "front")
        .unwrap_or_else(|| panic!("no camera"));
    let size = output_size(cam.aspect, Some([SIZE, SIZE]), None);
    assert_eq!(size, [SIZE, SIZE]);
    let (want, inside) = reference();
    let gpu = testing::test_gpu();
    {
        let mut shots = Vec::new();
        for budget in [None, Some(1024u64)] {
            let mut desc = RendererDesc::default();
            if let Some(b) = budget {
                desc.staging = StagingConfig {
                    capacity: 64 << 10,
                    frame_byte_budget: b,
                    frame_time_budget: Duration::from_secs(1),
                };
            }
            let mut r = Renderer::with_desc(&gpu, &desc).unwrap_or_else(|e| panic!("{e}"));
            let before = gpu.last_submitted();
            let out = r
                .render(&x.frame, &cam.view, SIZE, SIZE)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(r.upload_bytes_left(), 0);
            // 4 KB of texels and the panel's geometry: one upload frame under the default
            // budget, at least five under 1 KB a frame; then the frame itself.
            let submits = gpu.last_submitted() - before;
            match budget {
                None => assert_eq!(submits, 2),
                Some(_) => assert!(submits >= 6, "{submits} submits"),
            }
            if let Ok(d) = std::env::var("DH_RENDER_OUT") {
                let name = format!("textured-{}.png", budget.unwrap_or(0));
                let _ = out.image.write_png(&std::path::Path::new(&d).join(name));
                let _ = want.write_png(&std::path::Path::new(&d).join("textured-want.png"));
            }
            let diff = compare(&masked(&out.image, &inside), &masked(&want, &inside))
                .unwrap_or_else(|| panic!("sizes differ"));
            // Masked pixels are equal, so the mean is over the whole frame: scale it back.
            let mean = diff.mean * f64::from(SIZE * SIZE) / inside.len() as f64;
            assert!(
                mean <= 0.02 && diff.max <= 0.2,
                "budget {budget:?}: mean {mean:.4}, p99 {:.4}, max {:.4}",
                diff.p99,
                diff.max
            );
            shots.push(out.image);
        }
        let same = compare(&shots[0], &shots[1]).unwrap_or_else(|| panic!("sizes differ"));
        assert!(
            same.max <= 2.0 / 255.0,
            "the budget changes when, not what: {same:?}"
        );
    }
    testing::finish(gpu);
    let _ = std::fs::remove_dir_all(&dir);
}
