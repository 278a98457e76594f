//! Goldens for `dh-engine render` on lavapipe with the Khronos validation layer: the core
//! render-eval cameras (white, gray, black, bloom, materials) and the logic-map's lamp lit by
//! a script that presses lampButton and waits. Each capture is compared with the PNG under
//! `gpu/tests/golden/` by mean and 99th-percentile error; a missing golden is written on the
//! first run (and the test says so). Each picture is also checked for what the map
//! describes, so a golden written from a broken render cannot pass silently.

use dh_engine::catalog::Catalog;
use dh_engine::extract;
use dh_engine::host::{Host, HostOptions};
use dh_engine::script::{self, ScriptRunner};
use dh_gpu::render::camera::output_size;
use dh_gpu::render::Renderer;
use dh_gpu::{testing, RgbaImage};
use dh_jobs::{FrameTimer, Scheduler};

mod support;
use support::check_golden;

/// The capture width (heights follow the cameras' aspect rules).
const WIDTH: u32 = 320;

fn run_to_end(host: &mut Host, text: Option<&str>) {
    let Some(text) = text else { return };
    let mut runner =
        ScriptRunner::new(script::parse("test", text).unwrap_or_else(|e| panic!("{e}")));
    let scheduler = Scheduler::new(1).unwrap_or_else(|e| panic!("{e}"));
    let timer = FrameTimer::new();
    while !runner.finished(host.tick()) {
        host.step(Some(&mut runner), &scheduler, &timer)
            .unwrap_or_else(|e| panic!("{e}"));
        let failures = runner.take_failures();
        assert!(failures.is_empty(), "{failures:?}");
    }
}

fn shoot(
    renderer: &mut Renderer,
    map: &str,
    script: Option<&str>,
    cameras: &[&str],
) -> Vec<(String, RgbaImage)> {
    let mut host = Host::start(&HostOptions {
        map: map.into(),
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    run_to_end(&mut host, script);
    let catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    let (_, m) = catalog.load_map(map).unwrap_or_else(|e| panic!("{e}"));
    let x = extract::extract(&host, &catalog, &m);
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    cameras
        .iter()
        .map(|name| {
            let cam = x
                .cameras
                .iter()
                .find(|c| c.name == *name)
                .unwrap_or_else(|| panic!("no camera {name}"));
            let size = output_size(cam.aspect, Some([WIDTH, WIDTH * 9 / 16]), None);
            let out = renderer
                .render(&x.frame, &cam.view, size[0], size[1])
                .unwrap_or_else(|e| panic!("{e}"));
            (name.to_string(), out.image)
        })
        .collect()
}

fn center(img: &RgbaImage) -> [u8; 4] {
    img.pixel(img.width / 2, img.height / 2).unwrap_or([0; 4])
}

fn mean_luma(img: &RgbaImage, x0: u32, y0: u32, x1: u32, y1: u32) -> f64 {
    let mut s = 0.0;
    let mut n = 0.0f64;
    for y in y0..y1 {
        for x in x0..x1 {
            let p = img.pixel(x, y).unwrap_or([0; 4]);
            s += 0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2]);
            n += 1.0;
        }
    }
    s / n.max(1.0)
}

#[test]
fn render_eval_and_logic_map_match_their_goldens() {
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let eval = shoot(
            &mut renderer,
            "render-eval",
            None,
            &["white", "gray", "black", "bloom", "materials"],
        );
        for (name, img) in &eval {
            let c = center(img);
            match name.as_str() {
                // tonemap none: the rooms read their own values on screen.
                "white" => assert!(c[0] >= 250 && c[1] >= 250 && c[2] >= 250, "white {c:?}"),
                "gray" => assert!(
                    c.iter().take(3).all(|v| (120..=136).contains(v)),
                    "gray {c:?}"
                ),
                "black" => assert!(c.iter().take(3).all(|v| *v <= 6), "black {c:?}"),
                "bloom" => assert!(c[0] == 255 && c[1] == 255 && c[2] == 255, "bloom {c:?}"),
                _ => {
                    // The panels differ from one another: several distinct hues across the row.
                    let y = img.height * 55 / 100;
                    let mut hues = std::collections::BTreeSet::new();
                    for x in (0..img.width).step_by(8) {
                        let p = img.pixel(x, y).unwrap_or([0; 4]);
                        hues.insert((p[0] / 64, p[1] / 64, p[2] / 64));
                    }
                    assert!(hues.len() >= 5, "materials row: {hues:?}");
                }
            }
            check_golden(&format!("render-eval-{name}"), img);
        }
        // The lamp: lampButton pressed, the timer's second passes, the lamp is lit.
        let press = "spawn lampPawn 3 0 1.9 180\nturn lampPawn 180 -30\nuse lampPawn\nwait 96 ticks\nexpect lamp.on == true\n";
        let lit = shoot(
            &mut renderer,
            "logic-map",
            Some(press),
            &["lampView", "overview"],
        );
        let dark = shoot(&mut renderer, "logic-map", None, &["lampView"]);
        let (l, d) = (&lit[0].1, &dark[0].1);
        // The lamp's pool on the alcove floor and walls, around the frame's middle.
        let (w, h) = (l.width, l.height);
        let on = mean_luma(l, w / 4, h / 3, 3 * w / 4, h);
        let off = mean_luma(d, w / 4, h / 3, 3 * w / 4, h);
        assert!(
            on > off + 10.0,
            "the lamp lights its corner: {on:.1} lit vs {off:.1} unlit"
        );
        for (name, img) in &lit {
            check_golden(&format!("logic-map-lamp-{name}"), img);
        }
    }
    testing::finish(gpu);
}

fn mean_rgb(img: &RgbaImage, x0: u32, y0: u32, x1: u32, y1: u32) -> [f64; 3] {
    let mut s = [0.0f64; 3];
    let mut n = 0.0f64;
    for y in y0..y1 {
        for x in x0..x1 {
            let p = img.pixel(x, y).unwrap_or([0; 4]);
            for k in 0..3 {
                s[k] += f64::from(p[k]);
            }
            n += 1.0;
        }
    }
    s.map(|c| c / n.max(1.0))
}

/// The 5th and 95th percentiles of the luma of the pixels in a box.
fn luma_spread(img: &RgbaImage, x0: u32, y0: u32, x1: u32, y1: u32) -> (f64, f64) {
    let mut v = Vec::new();
    for y in y0..y1 {
        for x in x0..x1 {
            let p = img.pixel(x, y).unwrap_or([0; 4]);
            v.push(0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2]));
        }
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q) as usize];
    (at(0.05), at(0.95))
}

/// The Debug Map reads as a dev map: its floor and walls wear the measure grid (dark 1 m
/// lines over a light base, tinted dev gray), the orange block its grid in orange.
#[test]
fn the_debug_map_reads_as_a_dev_map() {
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let shots = shoot(&mut renderer, "debug-map", None, &["overview"]);
        let img = &shots[0].1;
        if let Ok(d) = std::env::var("DH_RENDER_OUT") {
            let _ = img.write_png(&std::path::Path::new(&d).join("debug-map-overview-shot.png"));
        }
        // The near floor, the frame's bottom fifth: lit evenly, so the spread is the grid's
        // (untextured it is a few levels of shading; the 1 m lines are sRGB 72 on 224).
        let (w, h) = (img.width, img.height);
        let (lo, hi) = luma_spread(img, w / 4, h * 4 / 5, w * 3 / 4, h);
        assert!(
            hi - lo > 10.0,
            "the floor shows its grid: luma 5th to 95th percentile {lo:.1} to {hi:.1}"
        );
        check_golden("debug-map-overview", img);
    }
    testing::finish(gpu);
}

/// The debug map's dev crate (`core:models/DevCrate.glb`, a static model placement) draws
/// its own texture through `materials/dev-crate.dh-mat`, not the missingMaterial's red
/// checker and not a flat colour.
///
/// `crateView` (at [-8, 0.75, 9.5], pitched 18.4° down, fov 40, 16:9) faces the crate's +Z
/// face, x ∈ [-8.25, -7.75], y ∈ [0, 0.5], z = 8.25, from 1.25 m. Its top edge is 0.158 m
/// above the view axis at 1.265 m deep, tan⁻¹ 0.125 / tan 20° = 0.34 of the half height
/// above the middle, so at 0.33 h; its bottom edge 0.316 m below at 1.423 m deep, 0.61 of
/// the half height below, at 0.80 h. Its sides are ±0.25 m at 1.265 to 1.423 m deep against
/// a half width of tan 20° × 16/9 = 0.647, so ±0.27 to ±0.31 of the half width: x ∈
/// [0.365 w, 0.635 w] at the bottom. The box measured, x ∈ [0.38 w, 0.62 w], y ∈ [0.35 h,
/// 0.78 h], is face alone.
///
/// What the texture puts there (content/tests/core_models.rs): about 66 % base, luma 173
/// (sRGB (214, 168, 104)), 27 % frame and "DH" mark, luma 57 (84, 52, 26), the rest lines,
/// luma 110. Over the box (face minus its outer rim) the dark share is still above 5 %, so
/// the 5th percentile is dark and the 95th base. One light over a flat face scales every
/// texel alike, so on screen the dark reads near a third of the base (57 / 173), a little
/// more after filtering and the tone curve: a textured face has its 5th percentile under
/// 0.6 of its 95th, where a flat one has them equal. The face's mean keeps the texture's
/// hue, red above green above blue with green above half of red (168 / 214 = 0.79 for the
/// base), where the missing checker is red and black.
#[test]
fn the_dev_crate_wears_its_own_texture() {
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let shots = shoot(&mut renderer, "debug-map", None, &["crateView"]);
        let img = &shots[0].1;
        if let Ok(d) = std::env::var("DH_RENDER_OUT") {
            let _ = img.write_png(&std::path::Path::new(&d).join("debug-map-crate-shot.png"));
        }
        let (w, h) = (img.width, img.height);
        let (x0, y0, x1, y1) = (w * 38 / 100, h * 35 / 100, w * 62 / 100, h * 78 / 100);
        let (lo, hi) = luma_spread(img, x0, y0, x1, y1);
        let mean = mean_rgb(img, x0, y0, x1, y1);
        eprintln!("crateView: face luma 5th {lo:.1}, 95th {hi:.1}; mean {mean:?}");
        assert!(
            hi > 40.0 && lo < 0.6 * hi,
            "the crate's face shows its frame and mark: luma 5th to 95th percentile {lo:.1} to {hi:.1}"
        );
        assert!(
            mean[0] > mean[1] && mean[1] > mean[2] && mean[1] > 0.5 * mean[0],
            "the crate's face reads as its wood, not the red checker: mean {mean:?}"
        );
        check_golden("debug-map-crate", img);
    }
    testing::finish(gpu);
}

/// The dev crate is solid as its exact box (its part's authored dh.collider; the debug map
/// has no world instance, so nothing is generated): a pawn dropped onto its middle from
/// 1.5 m stands on its top, y 0.5, and one dropped 2 m in front of it the floor, y 0.
#[test]
fn the_dev_crate_is_solid_as_its_box() {
    let start = || {
        Host::start(&HostOptions {
            map: "debug-map".into(),
            ..HostOptions::default()
        })
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let on = support::drop_pawn(&mut start(), [-8.0, 1.5, 8.0]);
    assert!(on.grounded, "on the crate: {on:?}");
    assert!(
        (on.feet[1] - 0.5).abs() < 0.02,
        "the pawn stands on the crate's top: feet {:?}",
        on.feet
    );
    let off = support::drop_pawn(&mut start(), [-8.0, 1.5, 10.0]);
    assert!(off.grounded, "beside the crate: {off:?}");
    assert!(
        off.feet[1].abs() < 0.02,
        "the pawn stands on the floor: feet {:?}",
        off.feet
    );
}

#[test]
fn the_lit_lamp_does_not_wash_out_door_view() {
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let press = "spawn lampPawn 3 0 1.9 180\nturn lampPawn 180 -30\nuse lampPawn\nwait 96 ticks\nexpect lamp.on == true\n";
        let lit = shoot(&mut renderer, "logic-map", Some(press), &["doorView"]);
        let dark = shoot(&mut renderer, "logic-map", None, &["doorView"]);
        let (l, d) = (&lit[0].1, &dark[0].1);
        let (w, h) = (l.width, l.height);
        if let Ok(dir) = std::env::var("DH_RENDER_OUT") {
            let _ = l.write_png(&std::path::Path::new(&dir).join("doorView-lit.png"));
            let _ = d.write_png(&std::path::Path::new(&dir).join("doorView-dark.png"));
        }
        // Where doorView (at [-3, 1.7, 0], facing +Z, pitched 5° down, 60° tall, 16:9) sees
        // the blue door 7 m ahead (x in [-4, -2], y in [0, 2]): its top at +2.5°, 7.5° above
        // the frame's middle, tan 7.5° / tan 30° = 0.23 of the half height, so at 0.39 h;
        // ±1 m at 7 m is ±8.1°, tan 8.1° / (tan 30° × 16/9) = 0.139 of the half width, so
        // x in [0.43 w, 0.57 w]. The doorButton 3 m ahead covers it below 0.55 h. Facing +Z,
        // +X is on the left: the lamp's alcove is at the frame's left edge, and the white
        // doorWallRight (x in [-2, -0.5], 1 to 2.5 m right of the door's middle, so up to
        // 0.5 + tan 19.7° / 1.026 / 2 = 0.67 w) stands right of the door at the same height.
        let door =
            |img: &RgbaImage| mean_rgb(img, w * 45 / 100, h * 41 / 100, w * 55 / 100, h * 53 / 100);
        let wall =
            |img: &RgbaImage| mean_rgb(img, w * 59 / 100, h * 41 / 100, w * 66 / 100, h * 53 / 100);
        let luma = |c: [f64; 3]| 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
        let (door_l, door_d) = (door(l), door(d));
        let (wall_l, wall_d) = (wall(l), wall(d));
        let (mean_l, mean_d) = (mean_luma(l, 0, 0, w, h), mean_luma(d, 0, 0, w, h));
        let michelson = |a: f64, b: f64| (a - b) / (a + b).max(1.0);
        let (c_l, c_d) = (
            michelson(luma(wall_l), luma(door_l)),
            michelson(luma(wall_d), luma(door_d)),
        );
        eprintln!(
            "doorView: mean {mean_l:.1} lit / {mean_d:.1} dark; door {door_l:?} / {door_d:?}; wall {wall_l:?} / {wall_d:?}; contrast {c_l:.3} / {c_d:.3}"
        );
        // The lamp is 6 m beside the door in the door's own plane (z = 7): its light grazes
        // the door's face, so what the lamp adds to the door is the bloom's veil alone.
        assert!(
            luma(door_l) < luma(door_d) + 12.0,
            "the lit lamp veils the door: luma {:.1} lit against {:.1} dark",
            luma(door_l),
            luma(door_d)
        );
        // The door keeps its contrast against the white wall, and reads blue.
        assert!(
            c_l > 0.8 * c_d,
            "the door's contrast against its wall falls from {c_d:.3} to {c_l:.3}"
        );
        assert!(
            door_l[2] > door_l[0] + 20.0,
            "the door reads blue: {door_l:?}"
        );
        // The whole frame: the lamp's pool lifts the right edge, never the whole picture.
        assert!(
            mean_l < mean_d + 20.0,
            "the frame's mean luma rises from {mean_d:.1} to {mean_l:.1}"
        );
    }
    testing::finish(gpu);
}

/// core:maps/vertex-color-eval's `view`: BoxVertexColors, whose COLOR_0 is its own glTF
/// position, tints its flat white base color (spec 001, "Vertex colors": COLOR_0 multiplies
/// the base color in linear light), standing on LayerSlab, whose COLOR_1.r paints its
/// material's green detail layer on two of its four stripes ("a ground slab whose COLOR_1.r
/// paints a second layer on"). The capture is checked against its golden, against the same
/// frame with the box's color run taken away (the white box a mesh without COLOR_0 draws),
/// and against the frame with the slab's taken away (a slab with no COLOR_1: weight zero
/// everywhere, all gray).
///
/// Expected by hand: the camera (at [0, 1.6, 2.2], pitched 26.6° onto the box's center
/// [0, 0.5, 0], fov 40: the half height is tan 20° × 2.46 m = 0.9 m there) sees the box's
/// +Z face (its center ray meets it at y = 0.75) and its top in the frame's middle; the
/// window below (±6 % of the width, ±10 % of the height around the center: about ±0.19 m by
/// ±0.18 m at the box's 2.46 m) lies inside the box's silhouette, which spans about ±0.5 m.
/// There the box's glTF x (its red) runs about 0.3 to 0.7 on both faces, so red's base color is
/// about half of white's in linear light: 0.5^(1/2.2) = 0.73 of white's encoded value before
/// the tone curve, over 25 levels below a white box lit to 100 levels or more. Blue is 1 on
/// the +Z face and green 1 on the top, so the window keeps a bright channel: its brightest
/// channel stays within 30 levels of the white box's (a box drawn dark or as the missing
/// checker would not).
/// Windows on LayerSlab's top in a 320 × 180 capture of vertex-color-eval's `view`: name,
/// whether the stripe under it is red (COLOR_1.r = 1), and `[x0, y0, x1, y1]` in pixels of
/// that size. The camera at [0, 1.6, 2.2] pitched -26.6°, fov 40, 16:9, sees the slab's top
/// (y = 0.02) at z = -0.3 on row 116 (z = 0.3 on row 148), where x = -1.3 is column 50,
/// x = -0.75 column 91, x = 0.75 column 229 and x = 1.3 column 270; each window lies inside
/// one stripe ([-2, -1] red, [-1, 0] green, [0, 1] red, [1, 2] green) and clear of the box
/// (x, z in [-0.5, 0.5]); the x -0.75 window lies in the box's shadow, the same in both frames.
const SLAB_WINDOWS: [(&str, bool, [u32; 4]); 4] = [
    ("x -1.3 (red stripe)", true, [44, 108, 58, 124]),
    ("x -0.75 (green stripe)", false, [84, 140, 94, 152]),
    ("x 0.75 (red stripe)", true, [226, 140, 236, 152]),
    ("x 1.3 (green stripe)", false, [262, 108, 278, 124]),
];

#[test]
fn vertex_color_eval_paints_the_box_with_its_color0() {
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let map = "vertex-color-eval";
        let host = Host::start(&HostOptions {
            map: map.into(),
            ..HostOptions::default()
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
        let (_, m) = catalog.load_map(map).unwrap_or_else(|e| panic!("{e}"));
        let x = extract::extract(&host, &catalog, &m);
        assert!(x.missing.is_empty(), "{:?}", x.missing);
        let cam = x
            .cameras
            .iter()
            .find(|c| c.name == "view")
            .unwrap_or_else(|| panic!("no camera view"));
        let size = output_size(cam.aspect, Some([WIDTH, WIDTH * 9 / 16]), None);
        let painted = renderer
            .render(&x.frame, &cam.view, size[0], size[1])
            .unwrap_or_else(|e| panic!("{e}"))
            .image;
        // The box stands 1 m tall; the slab 2 cm.
        let is_box = |inst: &dh_gpu::render::frame::MeshInstance| inst.mesh.bounds.1.y > 0.5;
        let mut white_frame = x.frame.clone();
        let mut stripped = 0;
        for inst in &mut white_frame.meshes {
            if inst.mesh.packed.color_offset.is_some() && is_box(inst) {
                let mut asset = (*inst.mesh).clone();
                asset.packed.color_offset = None;
                // A key of its own, so the renderer uploads it rather than reusing the
                // painted box's buffers.
                asset.key = !asset.key;
                inst.mesh = std::sync::Arc::new(asset);
                stripped += 1;
            }
        }
        assert_eq!(stripped, 1, "the box has a color run");
        let white = renderer
            .render(&white_frame, &cam.view, size[0], size[1])
            .unwrap_or_else(|e| panic!("{e}"))
            .image;
        let (w, h) = (painted.width, painted.height);
        let window =
            |img: &RgbaImage| mean_rgb(img, w * 44 / 100, h * 40 / 100, w * 56 / 100, h * 60 / 100);
        let (p, q) = (window(&painted), window(&white));
        eprintln!("vertex-color-eval window: painted {p:?}, white {q:?}");
        assert!(
            q.iter().all(|c| *c >= 100.0),
            "the white box is lit in the window: {q:?}"
        );
        assert!(
            p[0] < q[0] - 25.0,
            "COLOR_0 takes about half the red off the box: {p:?} painted against {q:?} white"
        );
        let brightest = |c: [f64; 3]| c.iter().copied().fold(0.0f64, f64::max);
        assert!(
            brightest(p) > brightest(q) - 30.0,
            "the painted box keeps a bright channel: {p:?} painted against {q:?} white"
        );
        // The slab's layer: its COLOR_1 reaches the GPU because its material reads it.
        let mut gray_frame = x.frame.clone();
        let mut slabs = 0;
        for inst in &mut gray_frame.meshes {
            if inst.mesh.packed.color_offset.is_some() && !is_box(inst) {
                let mut asset = (*inst.mesh).clone();
                asset.packed.color_offset = None;
                asset.key = !asset.key;
                inst.mesh = std::sync::Arc::new(asset);
                slabs += 1;
            }
        }
        assert_eq!(
            slabs, 1,
            "the slab ships a color run (its material reads COLOR_1.r)"
        );
        let gray = renderer
            .render(&gray_frame, &cam.view, size[0], size[1])
            .unwrap_or_else(|e| panic!("{e}"))
            .image;
        if let Ok(dir) = std::env::var("DH_RENDER_OUT") {
            let _ = gray.write_png(&std::path::Path::new(&dir).join("vertex-color-eval-gray.png"));
        }
        // Windows on the slab's top beside the box (by hand from the camera, see
        // SLAB_WINDOWS): a red stripe is painted green, a green stripe stays as the gray
        // slab draws it.
        for (name, red, [x0, y0, x1, y1]) in SLAB_WINDOWS {
            let win = |img: &RgbaImage| {
                mean_rgb(img, w * x0 / 320, h * y0 / 180, w * x1 / 320, h * y1 / 180)
            };
            let (p, g) = (win(&painted), win(&gray));
            eprintln!("vertex-color-eval slab {name}: painted {p:?}, gray {g:?}");
            assert!(
                (g[0] - g[1]).abs() < 12.0 && (g[1] - g[2]).abs() < 12.0 && g[1] > 40.0,
                "the slab without COLOR_1 is lit gray at {name}: {g:?}"
            );
            if red {
                assert!(
                    p[1] > p[0] + 40.0 && p[1] > p[2] + 40.0,
                    "COLOR_1.r high: the green layer is painted at {name}: {p:?}"
                );
            } else {
                assert!(
                    p.iter().zip(&g).all(|(a, b)| (a - b).abs() < 3.0),
                    "COLOR_1.r zero: the slab stays gray at {name}: {p:?} against {g:?}"
                );
            }
        }
        check_golden("vertex-color-eval-view", &painted);
    }
    testing::finish(gpu);
}
