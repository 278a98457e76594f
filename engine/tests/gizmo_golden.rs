//! `client.debug.lights` in a capture of the logic map (000:1659): with the lamp switched on
//! its range sphere draws in the lamp's colour over the overview (golden
//! `logic-map-lights-overview`); switched off, the overlay draws nothing and the capture is
//! byte-identical to the one without the overlay.

use dh_engine::catalog::Catalog;
use dh_engine::extract;
use dh_engine::gizmos;
use dh_engine::host::{Host, HostOptions};
use dh_engine::script::{self, ScriptRunner};
use dh_gpu::render::camera::output_size;
use dh_gpu::render::{Overlay, Renderer};
use dh_gpu::{testing, RgbaImage};
use dh_jobs::{FrameTimer, Scheduler};

mod support;
use support::check_golden;

/// The logic map after `script` (if any), the overview shot with the lights overlay and
/// without, and the overlay's line-vertex count.
fn overview(renderer: &mut Renderer, script: Option<&str>) -> (RgbaImage, RgbaImage, usize) {
    let mut host = Host::start(&HostOptions {
        map: "logic-map".into(),
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    if let Some(text) = script {
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
    host.prefs
        .set("client.debug.lights", "1")
        .unwrap_or_else(|e| panic!("{e}"));
    let catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    let (_, m) = catalog
        .load_map("logic-map")
        .unwrap_or_else(|e| panic!("{e}"));
    let x = extract::extract(&host, &catalog, &m);
    let cam = x
        .cameras
        .iter()
        .find(|c| c.name == "overview")
        .unwrap_or_else(|| panic!("no overview camera"));
    let size = output_size(cam.aspect, Some([320, 180]), None);
    let overlay = gizmos::overlay(&host, &host.prefs);
    let lines = overlay.lines.len();
    renderer.set_overlay(Overlay::default());
    let plain = renderer
        .render(&x.frame, &cam.view, size[0], size[1])
        .unwrap_or_else(|e| panic!("{e}"))
        .image;
    renderer.set_overlay(overlay);
    let with = renderer
        .render(&x.frame, &cam.view, size[0], size[1])
        .unwrap_or_else(|e| panic!("{e}"))
        .image;
    (plain, with, lines)
}

#[test]
fn the_lights_overlay_draws_the_lit_lamp_and_nothing_for_an_off_one() {
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let (plain, with, lines) = overview(&mut renderer, None);
        assert_eq!(lines, 0, "the lamp is off: no sphere");
        assert_eq!(plain.pixels, with.pixels, "an off lamp draws nothing");
        let press = "spawn lampPawn 3 0 1.9 180\nturn lampPawn 180 -30\nuse lampPawn\nwait 96 ticks\nexpect lamp.on == true\n";
        let (plain, with, lines) = overview(&mut renderer, Some(press));
        assert!(lines > 0, "the lit lamp draws its volume");
        let changed = plain
            .pixels
            .chunks_exact(4)
            .zip(with.pixels.chunks_exact(4))
            .filter(|(a, b)| a != b)
            .count();
        assert!(
            changed > 50,
            "the lit lamp's sphere shows ({changed} pixels)"
        );
        check_golden("logic-map-lights-overview", &with);
    }
    testing::finish(gpu);
}
