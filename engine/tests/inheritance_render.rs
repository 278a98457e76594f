//! Captures of folded maps on lavapipe with the Khronos validation layer (spec, dh.map
//! "Inheritance": a child states only where it departs): `logic-sky`, the core logic demo
//! under a sky of its own, and `night`, a world on `dev.example.env`'s template in another
//! pallet. Each is compared with its PNG under `gpu/tests/golden/` by mean and
//! 99th-percentile error (a missing golden is written on the first run, and the test says
//! so), and checked for what the fold promises, so a golden written from a map loaded alone
//! (no parent's geometry, or no child's sky) cannot pass.

use std::path::{Path, PathBuf};

use dh_content::compile::{compile, compile_with, CompileOptions, DependencySearch};
use dh_engine::catalog::Catalog;
use dh_engine::extract;
use dh_engine::host::{Host, HostOptions};
use dh_gpu::render::camera::output_size;
use dh_gpu::render::Renderer;
use dh_gpu::{testing, RgbaImage};

mod support;
use support::check_golden;

const WIDTH: u32 = 320;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../content/tests/data/inheritance")
        .join(name)
}

/// Both pallets built into a temporary folder (worlds with env mounted).
fn build(dir: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
    let opts = CompileOptions {
        write: true,
        progress: None,
    };
    let env = compile(&data("env"), &opts);
    assert!(!env.diagnostics.has_errors(), "{}", env.diagnostics);
    let env_file = dir.join("env.pallet");
    std::fs::write(&env_file, env.pallet.unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
    let search = DependencySearch {
        pallets: vec![env_file.clone()],
        beside: None,
    };
    let worlds = compile_with(&data("worlds"), &opts, &search);
    assert!(!worlds.diagnostics.has_errors(), "{}", worlds.diagnostics);
    let worlds_file = dir.join("worlds.pallet");
    std::fs::write(&worlds_file, worlds.pallet.unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    vec![env_file, worlds_file]
}

fn shoot(renderer: &mut Renderer, pallets: &[PathBuf], map: &str, camera: &str) -> RgbaImage {
    let host = Host::start(&HostOptions {
        map: map.into(),
        pallets: pallets.to_vec(),
        sets: Vec::new(),
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    for p in pallets {
        catalog.mount_file(p).unwrap_or_else(|e| panic!("{e}"));
    }
    let (_, m) = catalog.load_map(map).unwrap_or_else(|e| panic!("{e}"));
    let x = extract::extract(&host, &catalog, &m);
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    let cam = x
        .cameras
        .iter()
        .find(|c| c.name == camera)
        .unwrap_or_else(|| panic!("no camera {camera} in {map}"));
    let size = output_size(cam.aspect, Some([WIDTH, WIDTH * 9 / 16]), None);
    let image = renderer
        .render(&x.frame, &cam.view, size[0], size[1])
        .unwrap_or_else(|e| panic!("{e}"))
        .image;
    // DH_RENDER_OUT=<dir> keeps every capture, to look at (before any check runs).
    if let Ok(out) = std::env::var("DH_RENDER_OUT") {
        let name = format!("{}-{camera}.png", map.replace([':', '/'], "-"));
        let _ = image.write_png(&Path::new(&out).join(name));
    }
    image
}

/// The mean color of a rectangle, as floats.
fn mean_rgb(img: &RgbaImage, x0: u32, y0: u32, x1: u32, y1: u32) -> [f64; 3] {
    let mut s = [0.0f64; 3];
    let mut n = 0.0;
    for y in y0..y1 {
        for x in x0..x1 {
            let p = img.pixel(x, y).unwrap_or([0; 4]);
            for (c, v) in s.iter_mut().zip(p) {
                *c += f64::from(v);
            }
            n += 1.0;
        }
    }
    s.map(|c| c / f64::max(n, 1.0))
}

#[test]
fn folded_maps_show_the_parents_geometry_under_the_childs_sky() {
    let dir = std::env::temp_dir().join(format!("dh-engine-inherit-render-{}", std::process::id()));
    let pallets = build(&dir);
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let parent = shoot(&mut renderer, &[], "core:maps/logic-map", "platformsView");
        let child = shoot(
            &mut renderer,
            &pallets,
            "dev.example.worlds:maps/logic-sky",
            "platformsView",
        );
        let (w, h) = (child.width, child.height);
        // The child's sky: above the north wall, the parent's flat clear color and the
        // child's blue sky.
        let sky_parent = mean_rgb(&parent, 0, 0, w, h / 5);
        let sky_child = mean_rgb(&child, 0, 0, w, h / 5);
        eprintln!("sky: parent {sky_parent:?}, child {sky_child:?}");
        assert!(
            sky_child[2] - sky_child[0] > sky_parent[2] - sky_parent[0] + 15.0,
            "the child's sky is bluer than the parent's clear color: {sky_child:?} vs {sky_parent:?}"
        );
        // The parent's geometry: the green platform, the blue lift and the orange ledge
        // stand where they stand in the parent's own picture.
        for (what, x0, y0, x1, y1, hue) in [
            (
                "the green platform",
                w * 7 / 32,
                h * 3 / 5,
                w * 3 / 8,
                h * 2 / 3,
                1usize,
            ),
            (
                "the blue lift",
                w * 5 / 8,
                h * 5 / 8,
                w * 21 / 32,
                h * 2 / 3,
                2usize,
            ),
            (
                "the orange ledge",
                w * 13 / 16,
                h * 9 / 20,
                w * 31 / 32,
                h * 13 / 20,
                0usize,
            ),
        ] {
            for (name, img) in [("parent", &parent), ("child", &child)] {
                let c = mean_rgb(img, x0, y0, x1, y1);
                let strongest = (0..3).max_by(|&a, &b| c[a].total_cmp(&c[b])).unwrap_or(3);
                assert_eq!(strongest, hue, "{what} in the {name}'s picture: {c:?}");
            }
        }
        check_golden("inheritance-logic-sky-platformsView", &child);

        // The world across pallets: the template's yard, walls and blue gate, the crate
        // the variant turned blue, under the world's own night-blue sky.
        let night = shoot(
            &mut renderer,
            &pallets,
            "dev.example.worlds:maps/night",
            "yardView",
        );
        let (w, h) = (night.width, night.height);
        let sky = mean_rgb(&night, 0, 0, w, h / 10);
        eprintln!("night sky {sky:?}");
        assert!(sky[2] > sky[0] + 20.0, "the night sky is blue: {sky:?}");
        check_golden("inheritance-night-yardView", &night);
    }
    testing::finish(gpu);
    let _ = std::fs::remove_dir_all(&dir);
}
