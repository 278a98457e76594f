//! The debug overlays in captures of the logic map.
//!
//! * `client.debug.lights` (000:1659): with the lamp switched on its range sphere draws in
//!   the lamp's colour over the overview (golden `logic-map-lights-overview`); switched off,
//!   the overlay draws nothing and the capture is byte-identical to the one without it.
//! * `client.debug.entityGizmos` (000:1657): which entities get a dot and what their labels
//!   read, live (a door's dot rides its slide; a button reads pressed during its cooldown),
//!   the wiring lines followed through the timer and the gate, the distance reach and fade,
//!   labels giving way, and the overview with the overlay on (golden
//!   `logic-map-entity-gizmos-overview`, 640x360, labels legible); `render --set
//!   client.debug.entityGizmos=1` draws it.
//! * `client.debug.colliderGizmo` (004:313): the box colliders' edges at their live poses
//!   in their roles' colours (golden `logic-map-colliders-overview`); the voxel chunk
//!   bodies and contacts are in `voxel_gizmo.rs`.
//! * `client.debug.hud` (000:517): the readout prints the shot's pose in the form a spawn's
//!   pose is written and reads back to the same rotation; the axis gizmo shows the world
//!   axes as the view sees them (golden `logic-map-hud-overview`).

use dh_engine::catalog::Catalog;
use dh_engine::extract;
use dh_engine::gizmos;
use dh_engine::gizmos::{EntityGizmo, LabelBox, Screen, WireLine};
use dh_engine::host::{Host, HostOptions};
use dh_engine::script::{self, ScriptRunner};
use dh_gpu::render::camera::output_size;
use dh_gpu::render::frame::{Projection, View};
use dh_gpu::render::overlay::GlyphAtlas;
use dh_gpu::render::{Overlay, Renderer, ScreenItem};
use dh_gpu::{testing, RgbaImage};
use dh_jobs::{FrameTimer, Scheduler};
use glam::{Quat, Vec3};

mod support;
use support::check_golden;

/// The logic map after `script` (if any).
fn logic_map(script: Option<&str>) -> Host {
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
    host
}

/// The logic map after `script` (if any), the overview shot with the lights overlay and
/// without, and the overlay's line-vertex count.
fn overview(renderer: &mut Renderer, script: Option<&str>) -> (RgbaImage, RgbaImage, usize) {
    let mut host = logic_map(script);
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
    let overlay = gizmos::overlay(&host, &host.prefs, &cam.view, size);
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

// ---- Entity gizmos ---------------------------------------------------------------------------

/// Presses the door button (pawn `doorPawn` in front of it) and waits `ticks`.
fn press_door(ticks: u32) -> String {
    format!(
        "spawn doorPawn -3 0 1.9 180\nturn doorPawn 180 -30\nuse doorPawn\nwait {ticks} ticks\n"
    )
}

fn gizmo<'a>(gizmos: &'a [EntityGizmo], name: &str) -> &'a EntityGizmo {
    gizmos
        .iter()
        .find(|g| g.name == name)
        .unwrap_or_else(|| panic!("no gizmo named {name}: {gizmos:?}"))
}

fn names(host: &Host, wires: &[WireLine]) -> Vec<(String, String)> {
    let name = |e| host.sim().name_of(e).unwrap_or_default();
    wires.iter().map(|w| (name(w.from), name(w.to))).collect()
}

#[test]
fn every_replicating_logic_entity_has_a_gizmo_with_its_live_values_in_wire_order() {
    let host = logic_map(None);
    let gizmos = dh_engine::gizmos::entity_gizmos(&host);
    let got: Vec<&str> = gizmos.iter().map(|g| g.name.as_str()).collect();
    // Author order; no dot for the timer, the gate, the map start, the spawn, the cameras
    // or the brushes.
    assert_eq!(
        got,
        vec![
            "doorButton",
            "slidingDoor",
            "lampButton",
            "lamp",
            "crateLeft",
            "crateRight",
            "crateDropped",
            "platform",
            "liftPlatform",
            "liftPlate"
        ]
    );
    assert_eq!(gizmo(&gizmos, "doorButton").values, vec!["idle"]);
    assert_eq!(gizmo(&gizmos, "slidingDoor").values, vec!["open 0%"]);
    assert_eq!(gizmo(&gizmos, "lamp").values, vec!["off"]);
    assert_eq!(gizmo(&gizmos, "liftPlate").values, vec!["occupancy 0"]);
    assert_eq!(gizmo(&gizmos, "crateDropped").values, vec!["moving"]);
    // Pivots: the authored poses before anything moved.
    assert_eq!(
        gizmo(&gizmos, "slidingDoor").pivot,
        Vec3::new(-3.0, 1.0, 7.0)
    );
    assert_eq!(
        gizmo(&gizmos, "crateDropped").pivot,
        Vec3::new(0.0, 3.0, 5.6)
    );
    // Colours by kind; the lamp is off, so grey.
    assert_eq!(
        gizmo(&gizmos, "doorButton").color,
        dh_engine::gizmos::BUTTON_COLOR
    );
    assert_eq!(
        gizmo(&gizmos, "slidingDoor").color,
        dh_engine::gizmos::MOVER_COLOR
    );
    assert_eq!(
        gizmo(&gizmos, "lamp").color,
        dh_engine::gizmos::LIGHT_OFF_COLOR
    );
    assert_eq!(
        gizmo(&gizmos, "liftPlate").color,
        dh_engine::gizmos::PLATE_COLOR
    );
    assert_eq!(
        gizmo(&gizmos, "crateLeft").color,
        dh_engine::gizmos::BODY_COLOR
    );
    assert_eq!(
        gizmo(&gizmos, "slidingDoor").label_lines(),
        vec!["slidingDoor".to_string(), "open 0%".to_string()]
    );
}

#[test]
fn a_dot_rides_its_door_and_a_label_reads_the_live_state() {
    // 9 ticks after the `use` (it lands on the next tick): the button is in its 16-tick
    // cooldown (pressed) and the door has travelled 8 of its 80 ticks (1.25 s at 64 Hz):
    // 10%, 0.25 m up.
    let host = logic_map(Some(&press_door(9)));
    let gizmos = dh_engine::gizmos::entity_gizmos(&host);
    assert_eq!(gizmo(&gizmos, "doorButton").values, vec!["pressed"]);
    let door = gizmo(&gizmos, "slidingDoor");
    assert_eq!(door.values, vec!["open 10%"]);
    assert!(
        (door.pivot - Vec3::new(-3.0, 1.25, 7.0)).length() < 1e-4,
        "the dot rides the slide: {:?}",
        door.pivot
    );
    // Half way (40 ticks of travel) the button is idle again.
    let host = logic_map(Some(&press_door(41)));
    let gizmos = dh_engine::gizmos::entity_gizmos(&host);
    assert_eq!(gizmo(&gizmos, "doorButton").values, vec!["idle"]);
    assert_eq!(gizmo(&gizmos, "slidingDoor").values, vec!["open 50%"]);
    // The dropped crate has fallen: its dot is where the solver carried it, near the floor.
    let crate_ = gizmo(&gizmos, "crateDropped");
    assert!(
        crate_.pivot.y < 1.0,
        "the crate's dot rides its body: {:?}",
        crate_.pivot
    );
    // Seconds later, settled on the floor, the crates rest.
    let host = logic_map(Some("wait 6 seconds\n"));
    let gizmos = dh_engine::gizmos::entity_gizmos(&host);
    assert_eq!(gizmo(&gizmos, "crateLeft").values, vec!["resting"]);
}

#[test]
fn wiring_lines_follow_the_timer_and_the_gate_to_the_lamp() {
    let host = logic_map(None);
    let gizmos = dh_engine::gizmos::entity_gizmos(&host);
    let wires = dh_engine::gizmos::wiring(&host, &gizmos);
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    // lampButton -> lampTimer -> lampOr -> lamp is one line; platformStart (a map start) is
    // no wire end, and the platform's wires back to itself draw nothing.
    assert_eq!(
        names(&host, &wires),
        vec![
            pair("doorButton", "slidingDoor"),
            pair("lampButton", "lamp"),
            pair("liftPlate", "liftPlatform")
        ]
    );
    let lamp = wires.iter().find(|w| w.b == Vec3::new(3.0, 1.0, 7.0));
    assert_eq!(lamp.map(|w| w.a), Some(Vec3::new(3.0, 1.0, 3.0)));
}

/// A view from the origin down -Z, 60° tall, at 640x360.
fn down_z() -> Screen {
    let view = View {
        position: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        projection: Projection::Perspective { fov_y: 60.0 },
        near: 0.05,
        far: None,
    };
    Screen::new(&view, 640, 360)
}

fn fake(world: &mut hecs::World, name: &str, pivot: Vec3) -> EntityGizmo {
    EntityGizmo {
        entity: world.spawn(()),
        name: name.into(),
        pivot,
        values: vec!["idle".into()],
        color: dh_engine::gizmos::BUTTON_COLOR,
    }
}

fn count(o: &Overlay) -> (usize, usize) {
    let dots = o
        .screen
        .iter()
        .filter(|i| matches!(i, ScreenItem::Dot { .. }))
        .count();
    let texts = o
        .screen
        .iter()
        .filter(|i| matches!(i, ScreenItem::Text { .. }))
        .count();
    (dots, texts)
}

#[test]
fn labels_reach_the_label_distance_and_dots_twice_it() {
    let atlas = GlyphAtlas::shared().unwrap_or_else(|e| panic!("{e}"));
    let screen = down_z();
    let mut w = hecs::World::new();
    let near = fake(&mut w, "near", Vec3::new(-2.0, 0.0, -10.0));
    let mid = fake(&mut w, "mid", Vec3::new(0.0, 0.0, -40.0));
    let far = fake(&mut w, "far", Vec3::new(2.0, 0.0, -70.0));
    let behind = fake(&mut w, "behind", Vec3::new(0.0, 0.0, 5.0));
    let all = [near, mid, far, behind];
    // 30 m (the default): dots to 60 m (two items each: a rim and the dot), one label of
    // two lines (name, values).
    let mut o = Overlay::default();
    dh_engine::gizmos::entity_items(&mut o, atlas, &screen, &all, &[], 30.0);
    assert_eq!(count(&o), (4, 2), "{:?}", o.screen);
    // 50 m: the 40 m one is labelled too, and the 70 m one, inside the dots' 100 m, shows
    // a dot and no label.
    let mut o = Overlay::default();
    dh_engine::gizmos::entity_items(&mut o, atlas, &screen, &all, &[], 50.0);
    assert_eq!(count(&o), (6, 4), "{:?}", o.screen);
    // 0 m: nothing at all.
    let mut o = Overlay::default();
    dh_engine::gizmos::entity_items(&mut o, atlas, &screen, &all, &[], 0.0);
    assert!(o.is_empty());
    // The fade: full to 3/4 of the reach, then down to nothing at the reach.
    use dh_engine::gizmos::fade;
    assert_eq!(fade(10.0, 60.0), 1.0);
    assert_eq!(fade(45.0, 60.0), 1.0);
    assert!((fade(52.5, 60.0) - 0.5).abs() < 1e-6);
    assert_eq!(fade(60.0, 60.0), 0.0);
    // A dot in the fade is drawn translucent.
    let mut o = Overlay::default();
    let fading = fake(&mut w, "fading", Vec3::new(0.0, 0.0, -52.5));
    dh_engine::gizmos::entity_items(&mut o, atlas, &screen, &[fading], &[], 30.0);
    let alphas: Vec<u8> = o
        .screen
        .iter()
        .filter_map(|i| match i {
            ScreenItem::Dot { color, .. } => Some(color[3]),
            _ => None,
        })
        .collect();
    assert_eq!(
        alphas,
        vec![100, 128],
        "rim 200 and dot 255 at half strength"
    );
}

#[test]
fn a_label_gives_way_to_a_nearer_one_it_would_overlap() {
    let b = |rect: [f32; 4], distance: f32| LabelBox {
        lines: vec![],
        rect,
        distance,
        alpha: 1.0,
    };
    let labels = [
        b([0.0, 0.0, 50.0, 20.0], 5.0),
        b([40.0, 10.0, 50.0, 20.0], 3.0),
        b([200.0, 0.0, 50.0, 20.0], 10.0),
        b([50.0, 5.0, 10.0, 10.0], 8.0),
    ];
    // The 3 m one stands; the 5 m one overlaps it and gives way; the 8 m one overlaps the
    // 3 m one too; the 10 m one is clear.
    assert_eq!(dh_engine::gizmos::place_labels(&labels), vec![1, 2]);
    // Two labels at one spot through the overlay: only the nearer's text shows.
    let atlas = GlyphAtlas::shared().unwrap_or_else(|e| panic!("{e}"));
    let mut w = hecs::World::new();
    let a = fake(&mut w, "further", Vec3::new(0.0, 0.0, -12.0));
    let c = fake(&mut w, "nearer", Vec3::new(0.0, 0.0, -11.0));
    let mut o = Overlay::default();
    dh_engine::gizmos::entity_items(&mut o, atlas, &down_z(), &[a, c], &[], 30.0);
    let texts: Vec<&str> = o
        .screen
        .iter()
        .filter_map(|i| match i {
            ScreenItem::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, vec!["nearer", "idle"]);
}

#[test]
fn a_wiring_line_is_cut_at_the_near_plane_and_fades_along_its_length() {
    let atlas = GlyphAtlas::shared().unwrap_or_else(|e| panic!("{e}"));
    let mut w = hecs::World::new();
    let wire = WireLine {
        from: w.spawn(()),
        to: w.spawn(()),
        a: Vec3::new(0.0, -1.0, 12.0),
        b: Vec3::new(0.0, -1.0, -58.0),
    };
    let mut o = Overlay::default();
    dh_engine::gizmos::entity_items(&mut o, atlas, &down_z(), &[], &[wire], 30.0);
    let segs: Vec<([f32; 2], [f32; 2], u8)> = o
        .screen
        .iter()
        .filter_map(|i| match i {
            ScreenItem::Segment { a, b, color, .. } => Some((*a, *b, color[3])),
            _ => None,
        })
        .collect();
    // The pieces behind the eye are gone; the rest descend the screen's centre column
    // toward the horizon, fading as they go.
    assert!(!segs.is_empty() && segs.len() < dh_engine::gizmos::WIRE_PIECES);
    for (a, b, _) in &segs {
        assert!((a[0] - 320.0).abs() < 0.01 && (b[0] - 320.0).abs() < 0.01);
        assert!(
            a[1] >= b[1] && b[1] > 180.0,
            "below the horizon, rising: {a:?} {b:?}"
        );
    }
    let alphas: Vec<u8> = segs.iter().map(|s| s.2).collect();
    assert_eq!(alphas.first(), Some(&255));
    assert!(alphas.windows(2).all(|p| p[0] >= p[1]), "{alphas:?}");
    assert!(*alphas.last().unwrap_or(&255) < 255, "{alphas:?}");
}

#[test]
fn the_entity_gizmo_overlay_draws_over_the_logic_map_overview() {
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        // The door half open and the lamp lit, so the labels read live values.
        let script = format!(
            "spawn lampPawn 3 0 1.9 180\nturn lampPawn 180 -30\nuse lampPawn\nwait 56 ticks\n{}",
            press_door(41)
        );
        let mut host = logic_map(Some(&script));
        assert_eq!(host.sim().light_on("lamp"), Some(true));
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
        let size = output_size(cam.aspect, Some([640, 360]), None);
        assert!(
            gizmos::overlay(&host, &host.prefs, &cam.view, size).is_empty(),
            "off by default"
        );
        host.prefs
            .set("client.debug.entityGizmos", "1")
            .unwrap_or_else(|e| panic!("{e}"));
        let host = host;
        let shoot = |renderer: &mut Renderer, camera: &str| {
            let cam = x
                .cameras
                .iter()
                .find(|c| c.name == camera)
                .unwrap_or_else(|| panic!("no {camera} camera"));
            let size = output_size(cam.aspect, Some([640, 360]), None);
            let overlay = gizmos::overlay(&host, &host.prefs, &cam.view, size);
            let texts: Vec<String> = overlay
                .screen
                .iter()
                .filter_map(|i| match i {
                    ScreenItem::Text { text, .. } => Some(text.clone()),
                    _ => None,
                })
                .collect();
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
            let changed = plain
                .pixels
                .chunks_exact(4)
                .zip(with.pixels.chunks_exact(4))
                .filter(|(a, b)| a != b)
                .count();
            assert!(
                changed > 2000,
                "{camera}: dots, labels and lines show ({changed} pixels)"
            );
            check_golden(&format!("logic-map-entity-gizmos-{camera}"), &with);
            texts
        };
        let texts = shoot(&mut renderer, "overview");
        // From above the room, the lit lamp reads on; the door's label would overlap its
        // nearer button's and gives way to it, as the crates' give way to each other's.
        assert!(texts.iter().any(|t| t == "on"), "{texts:?}");
        assert!(texts.iter().any(|t| t == "doorButton"), "{texts:?}");
        assert!(!texts.iter().any(|t| t == "slidingDoor"), "{texts:?}");
        // Standing at the door: the half-open door reads its travel.
        let texts = shoot(&mut renderer, "doorView");
        assert!(texts.iter().any(|t| t == "open 50%"), "{texts:?}");
    }
    testing::finish(gpu);
}

#[test]
fn render_with_set_entity_gizmos_draws_them() {
    if std::env::var_os("VK_DRIVER_FILES").is_none()
        && std::env::var_os("VK_ICD_FILENAMES").is_none()
    {
        println!(
            "skipping: no Vulkan driver named (VK_DRIVER_FILES); scripts/test.sh names lavapipe"
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("dh-gizmo-render-{}", std::process::id()));
    let shoot = |extra: &str| {
        let out = dir.join(if extra.is_empty() { "plain" } else { "gizmos" });
        let line = format!(
            "render {} --map logic-map --camera overview --size 320x180{extra}",
            out.display()
        );
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        let dh_engine::cli::Cli::Render(o) =
            dh_engine::cli::parse(&args).unwrap_or_else(|e| panic!("{e}"))
        else {
            panic!("{line}: not a render");
        };
        let (mut so, mut se) = (Vec::new(), Vec::new());
        let outcome = dh_engine::render_cmd::render(&o, &mut so, &mut se);
        let err = String::from_utf8_lossy(&se).into_owned();
        assert_eq!(outcome, dh_engine::run::Outcome::Done, "{err}");
        let png = std::fs::read(out.join("overview.png")).unwrap_or_else(|e| panic!("{e}: {err}"));
        (png, err)
    };
    let (plain, _) = shoot("");
    let (with, err) = shoot(" --set client.debug.entityGizmos=1");
    assert!(!err.contains("entityGizmos"), "no not-drawn line: {err}");
    assert_ne!(plain, with, "the gizmos show in the capture");
    let (hud, err) = shoot(" --set client.debug.hud=1 --set client.debug.contacts=1");
    assert!(
        !err.contains("client.debug.hud"),
        "no not-drawn line: {err}"
    );
    assert!(
        !err.contains("client.debug.contacts"),
        "contacts are a log, named in full: no not-drawn line: {err}"
    );
    assert_ne!(plain, hud, "the HUD shows in the capture");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- The HUD ---------------------------------------------------------------------------------

fn texts_of(o: &Overlay) -> Vec<String> {
    o.screen
        .iter()
        .filter_map(|i| match i {
            ScreenItem::Text { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_readout_prints_a_pose_that_pastes_back_as_the_same_rotation() {
    use dh_sims::math::SpecQuat;
    let q = |p: f64, y: f64, r: f64| Quat::from_euler_degrees(glam::DVec3::new(p, y, r));
    let read = |pos: Vec3, rot: Quat| dh_engine::gizmos::readout(pos, rot);
    assert_eq!(
        read(Vec3::new(0.0, 10.0, -13.5), q(-35.0, 180.0, 0.0)),
        ["pos 0.00 10.00 -13.50", "ang -35.00 180.00 0.00"]
    );
    // Yaw is normalized to (-180, 180]: -180 reads 180, 270 reads -90; no "-0.00".
    assert_eq!(
        read(Vec3::new(-0.001, 0.0, 1.234), q(0.0, -180.0, 0.0))[1],
        "ang 0.00 180.00 0.00"
    );
    assert_eq!(
        read(Vec3::new(-0.001, 0.0, 1.234), q(10.0, 270.0, 5.0)),
        ["pos 0.00 0.00 1.23", "ang 10.00 -90.00 5.00"]
    );
    // The round trip: whatever the pose, the numbers pasted into a rotation array compose
    // the rotation the readout was taken from.
    for (p, y, r) in [
        (0.0, 0.0, 0.0),
        (-35.0, 180.0, 0.0),
        (12.5, -47.25, 3.0),
        (-80.0, 91.0, -170.0),
        (45.0, 179.99, 60.0),
        (5.0, 33.0, -12.0),
    ] {
        let rot = q(p, y, r);
        let [_, ang] = read(Vec3::ZERO, rot);
        let nums: Vec<f64> = ang
            .split_whitespace()
            .skip(1)
            .map(|t| t.parse().unwrap_or_else(|e| panic!("{ang}: {e}")))
            .collect();
        let back = q(nums[0], nums[1], nums[2]);
        assert!(
            back.dot(rot).abs() > 1.0 - 1e-6,
            "[{p}, {y}, {r}] read {ang}, which is {back:?}, not {rot:?}"
        );
        assert!(
            (nums[0] - p).abs() < 0.006 && (nums[2] - r).abs() < 0.006,
            "{ang}"
        );
    }
}

#[test]
fn the_hud_reads_the_shots_pose_and_shows_the_world_axes() {
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let mut host = logic_map(None);
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
        let size = output_size(cam.aspect, Some([640, 360]), None);
        host.prefs
            .set("client.debug.hud", "1")
            .unwrap_or_else(|e| panic!("{e}"));
        let overlay = gizmos::overlay(&host, &host.prefs, &cam.view, size);
        // The overview camera is authored at [0, 10, -13.5], rotation [-35, 180, 0]. The
        // arms draw far first: +Z points away, +X across, and +Y (the view looks down)
        // leans toward the eye.
        assert_eq!(
            texts_of(&overlay),
            vec![
                "pos 0.00 10.00 -13.50",
                "ang -35.00 180.00 0.00",
                "Z",
                "X",
                "Y"
            ]
        );
        // Facing +Z and looking down: +X points left, +Y up, and +Z (away from the eye,
        // along the floor) up the picture.
        let arms: Vec<([f32; 2], [f32; 2], [u8; 4])> = overlay
            .screen
            .iter()
            .filter_map(|i| match i {
                ScreenItem::Segment { a, b, color, .. } => Some((*a, *b, *color)),
                _ => None,
            })
            .collect();
        let arm = |c: [u8; 4]| {
            arms.iter()
                .find(|s| s.2 == c)
                .map(|s| (s.1[0] - s.0[0], s.1[1] - s.0[1]))
                .unwrap_or_else(|| panic!("no arm {c:?}: {arms:?}"))
        };
        let [xc, yc, zc] = dh_engine::gizmos::AXIS_COLORS;
        let (xx, xy) = arm(xc);
        assert!(xx < -27.0 && xy.abs() < 0.5, "X left: {xx} {xy}");
        let (yx, yy) = arm(yc);
        assert!(yx.abs() < 0.5 && yy < -20.0, "Y up: {yx} {yy}");
        let (zx, zy) = arm(zc);
        assert!(
            zx.abs() < 0.5 && zy < -10.0 && zy > yy,
            "Z up, shorter: {zx} {zy}"
        );
        renderer.set_overlay(overlay);
        let with = renderer
            .render(&x.frame, &cam.view, size[0], size[1])
            .unwrap_or_else(|e| panic!("{e}"))
            .image;
        check_golden("logic-map-hud-overview", &with);
    }
    testing::finish(gpu);
}

// ---- Collider wireframes ------------------------------------------------------------------------

#[test]
fn the_collider_gizmo_draws_each_box_collider_at_its_live_pose() {
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        // Six seconds in: the dropped crate has come to rest on the floor.
        let mut host = logic_map(Some("wait 6 seconds\n"));
        host.prefs
            .set("client.debug.colliderGizmo", "1")
            .unwrap_or_else(|e| panic!("{e}"));
        let mut o = Overlay::default();
        let counts = gizmos::collider_lines(&mut o, &host);
        assert_eq!(counts.skipped, 0, "the logic map has boxes only");
        assert_eq!(o.lines.len(), counts.drawn * 12 * 2, "twelve edges a box");
        let has = |p: Vec3, c: [u8; 4]| {
            o.lines
                .iter()
                .any(|v| (Vec3::from(v.position) - p).length() < 1e-4 && v.color == c)
        };
        // The floor brush (center [0, -0.25, -1], size [25, 0.5, 27]) is static.
        for k in 0..8 {
            let corner = Vec3::new(
                if k & 1 == 0 { -12.5 } else { 12.5 },
                if k & 2 == 0 { -0.5 } else { 0.0 },
                if k & 4 == 0 { -14.5 } else { 12.5 },
            );
            assert!(
                has(corner, gizmos::STATIC_COLLIDER_COLOR),
                "floor corner {corner}"
            );
        }
        // The bouncing platform is kinematic, where the carry has it now.
        let platform = host
            .sim()
            .pose_of("platform")
            .unwrap_or_else(|| panic!("no platform"));
        let top = platform.position + Vec3::new(1.5, 0.1, 1.5);
        assert!(
            has(top, gizmos::KINEMATIC_COLLIDER_COLOR),
            "platform at {platform:?}"
        );
        // The crates are the solver's: their boxes sit on the floor, not where authored.
        let crate_low = o
            .lines
            .iter()
            .filter(|v| v.color == gizmos::DYNAMIC_COLLIDER_COLOR)
            .map(|v| v.position[1])
            .fold(f32::INFINITY, f32::min);
        assert!(
            crate_low.abs() < 0.05,
            "a crate's box rests on the floor: {crate_low}"
        );
        let dropped_high = o
            .lines
            .iter()
            .filter(|v| v.color == gizmos::DYNAMIC_COLLIDER_COLOR)
            .map(|v| v.position[1])
            .fold(f32::NEG_INFINITY, f32::max);
        assert!(
            dropped_high < 1.0,
            "no crate box is left up at 3 m: {dropped_high}"
        );
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
        let size = output_size(cam.aspect, Some([640, 360]), None);
        renderer.set_overlay(gizmos::overlay(&host, &host.prefs, &cam.view, size));
        let with = renderer
            .render(&x.frame, &cam.view, size[0], size[1])
            .unwrap_or_else(|e| panic!("{e}"))
            .image;
        check_golden("logic-map-colliders-overview", &with);
        assert_eq!(gizmos::not_drawn(&host.prefs), Vec::<String>::new());
    }
    testing::finish(gpu);
}
