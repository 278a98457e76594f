//! Issue 19, "a new user's first day": the places a new author got stuck, each pinned by a
//! test that failed before the fix.

mod support;

use std::path::{Path, PathBuf};

use dh_engine::catalog::Catalog;
use dh_engine::extract;
use dh_engine::host::{Host, HostOptions};
use dh_engine::render_cmd::{render, RenderOptions};
use dh_engine::run::Outcome;
use support::SourcePallet;

/// A fresh scratch folder for one test.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dh-first-day-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// Whether a Vulkan driver is named (scripts/test.sh names lavapipe); says so when not.
fn vulkan() -> bool {
    let named = std::env::var_os("VK_DRIVER_FILES").is_some()
        || std::env::var_os("VK_ICD_FILENAMES").is_some();
    if !named {
        println!(
            "skipping: no Vulkan driver named (VK_DRIVER_FILES); scripts/test.sh names lavapipe"
        );
    }
    named
}

fn render_capture(o: &RenderOptions) -> (Outcome, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = render(o, &mut out, &mut err);
    (
        outcome,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// Regression: `render --script` with a script ending in `wait 128 ticks` took its capture
/// after one tick (0.016 s at 64 Hz); the wait is honoured, so the shot is at 2 s. A failed
/// `expect` is said again as the last line, and the run exits 1 after its captures.
#[test]
fn render_honours_a_closing_wait_and_sums_up_failed_expects() {
    if !vulkan() {
        return;
    }
    let dir = scratch("render-wait");
    let script = dir.join("wait.dhs");
    std::fs::write(&script, "wait 128 ticks\n").unwrap_or_else(|e| panic!("{e}"));
    let options = RenderOptions {
        outdir: dir.join("shots"),
        map: "logic-map".into(),
        camera: Some("lampView".into()),
        size: Some([32, 32]),
        script: Some(script.clone()),
        ..RenderOptions::default()
    };
    let (outcome, out, err) = render_capture(&options);
    assert_eq!(outcome, Outcome::Done, "{err}");
    assert!(out.contains("camera 'lampView' at 2.000 s"), "{out}");

    std::fs::write(
        &script,
        "wait 2 ticks\nexpect lamp.on == true\nexpect lamp.on == false\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (outcome, out, err) = render_capture(&options);
    assert_eq!(outcome, Outcome::Failed, "{err}");
    assert!(
        out.contains("lampView.png"),
        "the capture is still taken: {out}"
    );
    assert_eq!(
        err.lines().last().unwrap_or_default(),
        format!(
            "dh-engine: 1 of 2 expects failed: {}:2: expectation failed at tick 2: expect lamp.on == true (actual lamp.on = false)",
            script.display()
        ),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A shared fixture's bytes, or `None` with a line saying it is absent.
fn fixture(rel: &str) -> Option<Vec<u8>> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures")
        .join(rel);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(_) => {
            println!("skipping: the fixture {} is absent", p.display());
            None
        }
    }
}

/// The bytes of a GLB's first image, read out of its BIN chunk by its buffer view.
fn first_image(glb: &[u8]) -> Vec<u8> {
    let u32_at = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json = std::str::from_utf8(&glb[20..20 + json_len]).unwrap();
    let doc = dh_content::jsonc::parse(json).unwrap_or_else(|e| panic!("{e:?}"));
    let num =
        |v: Option<&dh_content::jsonc::Value>| v.and_then(|v| v.as_f64()).unwrap_or(0.0) as usize;
    let image = doc
        .get("images")
        .and_then(|i| i.as_array()?.first())
        .expect("an image");
    let view = doc
        .get("bufferViews")
        .and_then(|v| v.as_array()?.get(num(image.get("bufferView"))))
        .expect("its buffer view");
    let bin = 20 + json_len + 8;
    let offset = bin + num(view.get("byteOffset"));
    glb[offset..offset + num(view.get("byteLength"))].to_vec()
}

/// The truck pallet: CesiumMilkTruck placed once (not as the world) under a camera looking
/// straight down at it; its `truck` and `wheels` slots wear `truck.dh-mat`, whose
/// `baseColor` is the model's own JPEG (`with_texture`) or nothing (its tint alone).
fn truck_pallet(tag: &str, with_texture: bool) -> Option<PathBuf> {
    let glb = fixture("gltf/CesiumMilkTruck.glb")?;
    let pallet = SourcePallet::fresh("dh-first-day-truck", tag);
    pallet.manifest("dev.example.truck", "Truck");
    pallet.write("textures/CesiumMilkTruck.jpg", &first_image(&glb));
    pallet.write("meshes/CesiumMilkTruck.glb", &glb);
    let base = if with_texture {
        r#", "baseColor": "../textures/CesiumMilkTruck.jpg""#
    } else {
        ""
    };
    pallet.write(
        "materials/truck.dh-mat",
        format!(r#"{{ "shader": "lit"{base} }}"#).as_bytes(),
    );
    pallet.write("materials/glass.dh-mat", br#"{ "tint": [0.2, 0.2, 0.25] }"#);
    pallet.write(
        "maps/truck.dh-map",
        br#"{
  "name": "Truck",
  "materials": { "truck": "/materials/truck.dh-mat", "wheels": "/materials/truck.dh-mat",
                 "glass": "/materials/glass.dh-mat", "window_trim": "/materials/glass.dh-mat" },
  "render": { "bloom": false },
  "objects": [
    { "$type": "instance", "id": "5d1f6a80-2c3e-4b71-9d0a-1e2f3a4b5c61", "name": "truck", "source": "/meshes/CesiumMilkTruck.glb" },
    { "$type": "object", "id": "5d1f6a80-2c3e-4b71-9d0a-1e2f3a4b5c62", "name": "top",
      "position": [0, 9, 0], "rotation": [-90, 0, 0], "components": [ { "$type": "dh.camera" } ] }
  ]
}
"#,
    );
    let out = pallet.compile(true, "truck");
    Some(pallet.save("truck.pallet", &support::pallet_bytes(&out)))
}

/// Regression (item 1): CesiumMilkTruck's base colour is a JPEG; extraction failed it as
/// "not a readable PNG" and the truck drew its white tint. Now the texture decodes (once
/// for both slots) and reaches the frame.
#[test]
fn the_milk_truck_draws_its_jpeg() {
    let Some(pallet) = truck_pallet("extract", true) else {
        return;
    };
    let map = "dev.example.truck:maps/truck";
    let host = Host::start(&HostOptions {
        map: map.into(),
        pallets: vec![pallet.clone()],
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    catalog
        .mount_file(&pallet)
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, m) = catalog.load_map(map).unwrap_or_else(|e| panic!("{e}"));
    let x = extract::extract(&host, &catalog, &m);
    assert!(
        x.notes.iter().all(|n| !n.contains("baseColor")),
        "{:?}",
        x.notes
    );
    let slot = host
        .sim()
        .materials()
        .slot("truck")
        .expect("the truck slot")
        .0 as usize;
    let texture = x.frame.materials[slot]
        .base_color_texture
        .as_ref()
        .unwrap_or_else(|| panic!("no texture: {:?}", x.notes));
    let jpeg = first_image(&fixture("gltf/CesiumMilkTruck.glb").unwrap_or_default());
    let want = dh_content::texture::decode("t.jpg", &jpeg).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((texture.width, texture.height), (want.width, want.height));
    assert_eq!(texture.rgba, want.rgba);
    let wheels = host.sim().materials().slot("wheels").expect("wheels").0 as usize;
    let wheels = x.frame.materials[wheels]
        .base_color_texture
        .as_ref()
        .expect("wheels' texture");
    assert!(std::sync::Arc::ptr_eq(texture, wheels), "decoded once");
}

fn shoot_top(pallet: &Path, outdir: &Path) -> dh_gpu::render::frame::Texture {
    let (outcome, _, err) = render_capture(&RenderOptions {
        outdir: outdir.to_path_buf(),
        pallets: vec![pallet.to_path_buf()],
        map: "dev.example.truck:maps/truck".into(),
        camera: Some("top".into()),
        size: Some([160, 160]),
        ..RenderOptions::default()
    });
    assert_eq!(outcome, Outcome::Done, "{err}");
    assert!(!err.contains("baseColor"), "{err}");
    let png = std::fs::read(outdir.join("top.png")).unwrap_or_else(|e| panic!("{e}"));
    dh_gpu::render::frame::Texture::decode("top.png", &png).unwrap_or_else(|e| panic!("{e}"))
}

/// The truck photographed from above, textured and untextured: the JPEG changes the
/// picture where the truck stands (before the fix both shots were the tint alone).
#[test]
fn the_milk_truck_photographs_textured() {
    if !vulkan() {
        return;
    }
    let (Some(textured), Some(plain)) = (truck_pallet("shot", true), truck_pallet("plain", false))
    else {
        return;
    };
    let a = shoot_top(&textured, &textured.with_file_name("shots"));
    let b = shoot_top(&plain, &plain.with_file_name("shots"));
    let differ = a
        .rgba
        .chunks_exact(4)
        .zip(b.rgba.chunks_exact(4))
        .filter(|(p, q)| {
            (0..3)
                .map(|k| (i32::from(p[k]) - i32::from(q[k])).abs())
                .sum::<i32>()
                > 60
        })
        .count();
    assert!(
        differ > 400,
        "only {differ} of {} pixels changed with the texture",
        160 * 160
    );
}

fn run_capture(o: &dh_engine::run::RunOptions) -> (Outcome, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = dh_engine::run::run(o, false, &mut out, &mut err);
    (
        outcome,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// A source pallet folder: a floor and a lamp object, and the map placing both.
fn room_sources(tag: &str) -> SourcePallet {
    let p = SourcePallet::fresh("dh-first-day-room", tag);
    p.manifest("dev.example.room", "Room");
    p.write("objects/lamp.dh-obj", br#"{ "components": [] }"#);
    p.write("materials/floor.dh-mat", br#"{ "tint": [0.6, 0.6, 0.6] }"#);
    p.write(
        "maps/room.dh-map",
        br#"{
  "name": "Room",
  "materials": { "floor": "/materials/floor.dh-mat" },
  "objects": [
    { "$type": "boxBrush", "id": "6e2a7b90-3d4f-4c82-8e1b-2f3a4b5c6d71", "name": "floor", "position": [0, -0.5, 0], "size": [10, 1, 10], "material": "floor" },
    { "$type": "instance", "id": "6e2a7b90-3d4f-4c82-8e1b-2f3a4b5c6d72", "name": "lamp", "source": "/objects/lamp.dh-obj", "position": [0, 1, 0] }
  ]
}
"#,
    );
    p
}

/// Regression (item 4): `--pallet <folder>` failed with "cannot memory-map: No such device
/// (os error 19)". The folder is compiled in process, as `dh build` would, with its
/// diagnostics printed, and the map runs; an edited folder builds again; a folder that does
/// not build fails the run (exit 1) with every error.
#[test]
fn a_source_folder_runs_as_dh_build_would_build_it() {
    let src = room_sources("run");
    let dir = src.dir.join("wait.dhs");
    std::fs::write(
        &dir,
        "spawn p 0 0.2 0\nwait 20 ticks\nexpect p.grounded == true\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let options = dh_engine::run::RunOptions {
        pallets: vec![src.src.clone()],
        map: Some("room".into()),
        script: Some(dir.clone()),
        ..Default::default()
    };
    let (outcome, out, err) = run_capture(&options);
    assert_eq!(outcome, Outcome::Done, "{err}");
    assert!(
        out.contains("ticks of dev.example.room:maps/room.dh-map"),
        "{out}"
    );
    assert!(
        err.contains(&format!(
            "dh-engine: built {} in process (",
            src.src.display()
        )),
        "{err}"
    );
    // Unchanged: the second mount reuses the build; edited: it builds again.
    let again = dh_engine::source_pallet::build_folder(&src.src).unwrap_or_else(|e| panic!("{e}"));
    assert!(!again.compiled);
    src.write(
        "maps/room.dh-map",
        br#"{ "name": "Room", "objects": [ { "$type": "boxBrush", "name": "floor", "size": [1, 1] } ] }"#,
    );
    let (outcome, _, err) = run_capture(&options);
    assert_eq!(outcome, Outcome::Failed, "{err}");
    assert!(
        err.contains("maps/room.dh-map:1:"),
        "the build's errors:\n{err}"
    );
    assert!(err.contains("error(s)"), "{err}");
    assert!(err.contains("the source pallet does not build"), "{err}");
}

/// The synopsis of `command` in `dh-engine help`: its `  dh-engine <command>` line and the
/// continuation lines under it.
fn synopsis(usage: &str, command: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in usage.lines() {
        if line.starts_with("  dh-engine ") {
            inside = line.starts_with(&format!("  dh-engine {command} "));
        } else if !line.starts_with("                [") {
            inside = false;
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Regression (item 5): `dh-engine help` names every flag of every command in its
/// synopsis and says what each does (before, bench's synopsis left out `--quiet` and the
/// flag list left out render's and light-check's flags), every flag has a help line, and
/// the help says how many frames the frame timer sums up and the trace keeps, formatted
/// from the timer's constants (300 and 120 when this was written, jobs/src/timer).
#[test]
fn help_lists_every_flag_and_what_the_timer_keeps() {
    let usage = dh_engine::cli::usage();
    let grammar = dh_engine::cli::command();
    let mut seen = 0;
    for sub in grammar.get_subcommands() {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        let synopsis = synopsis(&usage, name);
        assert!(!synopsis.is_empty(), "no synopsis of {name}:\n{usage}");
        for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
            assert!(
                arg.get_help().is_some(),
                "{name}'s {} has no help line",
                arg.get_id()
            );
            let Some(long) = arg.get_long() else {
                continue;
            };
            let flag = format!("--{long}");
            assert!(
                synopsis.contains(&flag),
                "the synopsis of {name} leaves out {flag}:\n{synopsis}"
            );
            assert!(
                usage.lines().any(|l| {
                    let l = l.trim_start();
                    l.starts_with(&flag) || l.contains(&format!(", {flag} "))
                }),
                "the help does not say what {flag} does"
            );
            seen += 1;
        }
    }
    // run 9 flags, bench 8, render 12, light-check 1 (counted by hand from cli.rs).
    assert!(seen >= 30, "{seen} flags checked");
    assert!(synopsis(&usage, "bench").contains("--quiet"));
    let window = dh_jobs::DEFAULT_WINDOW_FRAMES;
    let trace = dh_jobs::DEFAULT_TRACE_FRAMES;
    assert!(
        usage.contains(&format!("the last {window} frames")),
        "{usage}"
    );
    assert!(
        usage.contains(&format!("the last {trace} of them")),
        "{usage}"
    );
    // Each command's own help says so on its flags too.
    for command in ["run", "bench"] {
        let help = match dh_engine::cli::parse(&[command.to_string(), "--help".to_string()]) {
            Ok(dh_engine::cli::Cli::HelpText(text)) => text,
            other => panic!("{command} --help gave {other:?}"),
        };
        assert!(help.contains(&format!("the last {trace} frames")), "{help}");
        assert!(
            help.contains(&format!("the last {window} frames")),
            "{help}"
        );
        assert!(help.contains("--quiet"), "{help}");
    }
}

// ---- Item 7: every placement is collided at its own pose ---------------------------------

/// A model of one node `bar` at `[3, 0.5, 0]` drawing a 4 × 1 × 1 box: in the model's
/// frame it covers x 1..5, y 0..1, z -0.5..0.5; off its origin and longer in X than in Z,
/// so a placement's turn and move both show in where it stands.
fn bar_glb() -> Vec<u8> {
    let mut g = support::GlbBuilder::new();
    let (v, i) = support::box_geometry([4.0, 1.0, 1.0]);
    let pos = g.positions(&v);
    let idx = g.indices(&i);
    g.finish(&format!(
        r#""materials":[{{"name":"stone"}}],
"meshes":[{{"name":"BarMesh","primitives":[{{"attributes":{{"POSITION":{pos}}},"indices":{idx},"material":0}}]}}],
"nodes":[{{"name":"bar","translation":[3,0.5,0],"mesh":0}}],
"scenes":[{{"nodes":[0]}}],"scene":0"#
    ))
}

/// The world model: one node `pad` at `[0, 0.5, -20]` drawing a 2 × 1 × 2 box (top y = 1).
fn pad_glb() -> Vec<u8> {
    let mut g = support::GlbBuilder::new();
    let (v, i) = support::box_geometry([2.0, 1.0, 2.0]);
    let pos = g.positions(&v);
    let idx = g.indices(&i);
    g.finish(&format!(
        r#""materials":[{{"name":"stone"}}],
"meshes":[{{"name":"PadMesh","primitives":[{{"attributes":{{"POSITION":{pos}}},"indices":{idx},"material":0}}]}}],
"nodes":[{{"name":"pad","translation":[0,0.5,-20],"mesh":0}}],
"scenes":[{{"nodes":[0]}}],"scene":0"#
    ))
}

/// A pallet whose map has a world instance (the pad) and places the bar twice away from
/// the origin, autoCollision at its default (`mesh`): `turned` at `[10, 0, 0]` turned 90°
/// about +Y, `big` at `[-10, 0, 0]` scaled 2. `drop_companions` packs it without the
/// map's `.dh-colcook`, so the host cooks the placements at load.
fn placed_bars_pallet(tag: &str, drop_companions: bool) -> PathBuf {
    let pallet = SourcePallet::fresh("dh-first-day-bars", tag);
    pallet.manifest("dev.example.bars", "Bars");
    pallet.write("meshes/bar.glb", &bar_glb());
    pallet.write("meshes/pad.glb", &pad_glb());
    pallet.write("materials/stone.dh-mat", br#"{ "tint": [0.5, 0.5, 0.5] }"#);
    pallet.write(
        "maps/bars.dh-map",
        br#"{
  "name": "Bars",
  "materials": { "stone": "/materials/stone.dh-mat" },
  "objects": [
    { "$type": "instance", "id": "7a1b2c3d-0000-4000-8000-0000000000b1", "name": "world", "source": "/meshes/pad.glb" },
    { "$type": "instance", "id": "7a1b2c3d-0000-4000-8000-0000000000b2", "name": "turned", "source": "/meshes/bar.glb",
      "position": [10, 0, 0], "rotation": [0, 90, 0] },
    { "$type": "instance", "id": "7a1b2c3d-0000-4000-8000-0000000000b3", "name": "big", "source": "/meshes/bar.glb",
      "position": [-10, 0, 0], "scale": [2, 2, 2] }
  ]
}
"#,
    );
    let out = pallet.compile(true, "bars");
    let bytes = if drop_companions {
        support::without_companions(&out)
    } else {
        support::pallet_bytes(&out)
    };
    pallet.save("bars.pallet", &bytes)
}

/// Issue 19 item 7, second half (spec 000 "Placing models": each placement "is lit,
/// collided and probed on its own"; "a map with no cook builds each placement's bodies
/// from the shared mesh, at its pose"): with a world instance, a model placed by a record
/// is collided where the record puts it. Worked out by hand from the bar's model frame
/// (x 1..5, top y 1, z -0.5..0.5) and the placement test's rule that +90° about +Y takes
/// +X to -Z:
///
/// * `turned` covers x 9.5..10.5, z -5..-1, top y 1: a pawn dropped at (10, 3, -4)
///   stands at y 1;
/// * unturned it would cover x 11..15 around z 0, and at the origin x 1..5: pawns dropped
///   at (13, 3, 0) and (3, 3, 0) fall through;
/// * `big` (scale 2) covers x -8..0, z -1..1, top y 2: a pawn at (-6, 4, 0) stands at 2;
/// * the world's pad (top y 1 at z -20) holds one too.
///
/// Both from the build's companion and from the cook at load.
#[test]
fn every_placement_is_collided_at_its_own_pose() {
    for (tag, drop_companions) in [("companion", false), ("load-cook", true)] {
        let pallet = placed_bars_pallet(tag, drop_companions);
        let drop = |feet: [f32; 3]| {
            let mut host = Host::start(&HostOptions {
                map: "dev.example.bars:maps/bars".into(),
                pallets: vec![pallet.clone()],
                ..HostOptions::default()
            })
            .unwrap_or_else(|e| panic!("{e}"));
            support::drop_pawn(&mut host, feet)
        };
        let stands = |feet: [f32; 3], top: f32, what: &str| {
            let s = drop(feet);
            assert!(
                s.grounded && (s.feet[1] - top).abs() < 0.05,
                "{tag}: {what}: {s:?}"
            );
        };
        let falls = |feet: [f32; 3], what: &str| {
            let s = drop(feet);
            assert!(
                !s.grounded && s.feet[1] < 0.0,
                "{tag}: {what} holds a pawn: {s:?}"
            );
        };
        stands([10.0, 3.0, -4.0], 1.0, "the turned bar at its pose");
        falls([13.0, 3.0, 0.0], "where the bar would stand unturned");
        falls([3.0, 3.0, 0.0], "where the bar would stand at the origin");
        stands([-6.0, 4.0, 0.0], 2.0, "the scaled bar at its pose");
        stands([0.0, 3.0, -20.0], 1.0, "the world's pad");
    }
}

// ---- Item 5: a voxel volume's resolve is one line ----------------------------------------

/// A Minecraft-platform container of three grids (side by side, 16 cells each way, a
/// stone floor each) whose palette is the empty entry, stone, water and seven blocks
/// nothing names (`example:b0` .. `example:b6`, one cell each in grid `a`).
fn three_grid_pallet(dir: &Path) -> PathBuf {
    use dh_content::voxel::payload::{encode, Grid, GridInfo, PaletteEntry, VoxelPayload};
    let mut p = VoxelPayload::default();
    p.header.platform = "com.mojang.minecraft".into();
    p.header.voxel_size = 1.0;
    p.header.chunk_edge = 16;
    p.palette = vec![
        PaletteEntry::empty(),
        PaletteEntry::new("minecraft", "stone"),
        PaletteEntry::new("minecraft", "water"),
    ];
    for k in 0..7 {
        p.palette
            .push(PaletteEntry::new("example", format!("b{k}")));
    }
    for (g, name) in ["a", "b", "c"].iter().enumerate() {
        p.grids.push(Grid::new(GridInfo::new(
            *name,
            [g as i32 * 16, 0, 0],
            [16, 16, 16],
        )));
        for x in 0..16 {
            for z in 0..16 {
                assert!(p.set_cell(g, 0, [g as i32 * 16 + x, 0, z], 1));
            }
        }
    }
    for k in 0..7u32 {
        assert!(p.set_cell(0, 0, [k as i32, 1, 0], 3 + k));
    }
    let shards = encode(&p).unwrap_or_else(|e| panic!("{e}"));
    let manifest =
        r#"{ "id": "dev.example.grids", "name": "Grids", "version": "1.0.0", "dependencies": [] }"#;
    let map = r#"{
  "name": "Grids",
  "objects": [
    { "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5b11", "name": "ground",
      "components": [ { "$type": "dh.voxelVolume", "volume": "/voxels/ground.dh-vox" } ] }
  ]
}"#;
    let sources: Vec<(&str, Vec<u8>)> = vec![
        (
            "voxels/ground.dh-vox",
            br#"{ "platform": "com.mojang.minecraft", "data": "ground.dh-vox.bin" }"#.to_vec(),
        ),
        (
            "voxels/ground.dh-vox.bin",
            shards.into_iter().next().unwrap_or_default(),
        ),
        ("maps/grids.dh-map", map.as_bytes().to_vec()),
    ];
    support::memory_pallet(dir, "grids.pallet", manifest, sources)
}

/// Regression (item 5): each grid of a container resolved the palette again and logged
/// it ("256 of 256 entries drawn from a look, the rest wear the unresolved checker", once
/// a grid: three lines here, and a contradiction when every entry resolved). The grids
/// share one resolve (spec `dh.voxel` "Models in the chunk mesh": "the same container ...
/// placed twice to show different grids ... reuses it"), logged once, saying where the
/// entries came from. By hand: 10 entries; no platform pallet is mounted, so none is drawn
/// by it; the empty entry, stone and water come from the built-in tables (3); the seven
/// `example:` blocks wear the checker, the first five named (the count of names is ours).
#[test]
fn a_voxel_volumes_resolve_is_one_line() {
    let dir = scratch("grids");
    let pallet = three_grid_pallet(&dir);
    let host = Host::start(&HostOptions {
        map: "dev.example.grids:maps/grids".into(),
        pallets: vec![pallet],
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut draw = dh_engine::voxel::draw::VoxelDraw::new(&host.prefs);
    let mut frame = dh_gpu::render::frame::RenderFrame::default();
    let stats = draw.capture(&host, None, &mut frame);
    assert!(stats.instances > 0, "{stats:?}");
    assert_eq!(draw.volume_ids().len(), 3, "three grids drawn");
    let log = draw.take_log();
    let resolves: Vec<&String> = log.iter().filter(|l| l.contains(" resolved in ")).collect();
    assert_eq!(resolves.len(), 1, "{log:?}");
    // The time varies; the rest is fixed.
    let line = resolves[0];
    let (head, tail) = line.split_once(" resolved in ").unwrap_or_default();
    assert_eq!(head, "voxel volume 'ground': 10 palette entries");
    let tail = tail.split_once(" ms: ").map(|(_, t)| t).unwrap_or_default();
    assert_eq!(
        tail,
        "0 drawn by the platform pallet, 3 from a block table, 7 wear the unresolved checker (example:b0, example:b1, example:b2, example:b3, example:b4 and 2 more)",
        "{line}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- Item 5: every warning prints once ---------------------------------------------------

/// A source folder whose build warns (a model placed with no world instance: the build's
/// autoCollision warning) and whose load notes something (a reflection probe, not drawn
/// yet).
fn warning_sources(tag: &str) -> SourcePallet {
    let p = SourcePallet::fresh("dh-first-day-warn", tag);
    p.manifest("dev.example.warn", "Warn");
    p.write("meshes/bar.glb", &bar_glb());
    p.write("materials/stone.dh-mat", br#"{ "tint": [0.5, 0.5, 0.5] }"#);
    p.write(
        "maps/warn.dh-map",
        br#"{
  "name": "Warn",
  "materials": { "stone": "/materials/stone.dh-mat" },
  "objects": [
    { "$type": "instance", "id": "7a1b2c3d-0000-4000-8000-0000000000d1", "name": "bar", "source": "/meshes/bar.glb" },
    { "$type": "object", "id": "7a1b2c3d-0000-4000-8000-0000000000d2", "name": "probe", "position": [0, 2, 0],
      "components": [ { "$type": "dh.reflectionProbe" } ] },
    { "$type": "object", "id": "7a1b2c3d-0000-4000-8000-0000000000d3", "name": "top", "position": [3, 8, 0],
      "rotation": [-90, 0, 0], "components": [ { "$type": "dh.camera" } ] }
  ]
}
"#,
    );
    p
}

/// How many lines of `text` contain `needle`.
fn lines_with(text: &str, needle: &str) -> usize {
    text.lines().filter(|l| l.contains(needle)).count()
}

/// Regression (item 5): every warning prints once. `run` and `render` of a source folder
/// print the build's warning once and the load log's line once; `render` at 0 s printed
/// the load log not at all (no tick ran, and only a tick printed it).
#[test]
fn every_warning_prints_once() {
    let build_warning = "none is named 'world', so none is given collision";
    let load_note =
        "map dev.example.warn:maps/warn.dh-map: dh.reflectionProbe is not drawn yet (probe)";
    let src = warning_sources("run");
    let (outcome, out, err) = run_capture(&dh_engine::run::RunOptions {
        pallets: vec![src.src.clone()],
        map: Some("warn".into()),
        ticks: Some(3),
        ..Default::default()
    });
    assert_eq!(outcome, Outcome::Done, "{err}");
    let all = format!("{out}{err}");
    assert_eq!(lines_with(&all, build_warning), 1, "{all}");
    assert_eq!(lines_with(&all, load_note), 1, "{all}");

    let src = warning_sources("render");
    let dir = scratch("warn-shots");
    let (outcome, out, err) = render_capture(&RenderOptions {
        outdir: dir.clone(),
        pallets: vec![src.src.clone()],
        map: "warn".into(),
        camera: Some("top".into()),
        size: Some([16, 16]),
        ..RenderOptions::default()
    });
    assert_eq!(outcome, Outcome::Done, "{err}");
    let all = format!("{out}{err}");
    assert_eq!(lines_with(&all, build_warning), 1, "{all}");
    assert_eq!(lines_with(&all, load_note), 1, "{all}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Regression (item 6): a live `set client.render.msaa` (the console's, a script's during a
/// `bench --render` run) changed the preference but not the picture: the renderer took its
/// samples once, at start, and its `set_msaa` was never called. The next frame now follows.
#[test]
fn a_live_msaa_change_reaches_the_next_frame() {
    if !vulkan() {
        return;
    }
    let mut host = Host::start(&HostOptions {
        map: "logic-map".into(),
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let scheduler = dh_jobs::Scheduler::new(1).unwrap_or_else(|e| panic!("{e}"));
    let timer = dh_jobs::FrameTimer::new();
    let mut render = dh_engine::render_cmd::BenchRender::start([32, 32], &[], &host, 1)
        .unwrap_or_else(|e| panic!("{e}"));
    let frame = |host: &Host, render: &mut dh_engine::render_cmd::BenchRender| {
        render
            .frame(host, &scheduler, &timer)
            .unwrap_or_else(|e| panic!("{e}"));
        timer.end_frame();
        render.msaa()
    };
    assert_eq!(frame(&host, &mut render), 4, "the default");
    host.prefs
        .set("client.render.msaa", "1")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(frame(&host, &mut render), 1, "the frame after the set");
    host.prefs
        .set("client.render.msaa", "8")
        .unwrap_or_else(|e| panic!("{e}"));
    // Lavapipe's framebuffers take 1 and 4 samples: 8 is lowered to 4, and said so.
    assert_eq!(
        frame(&host, &mut render),
        4,
        "8 lowered to what the device takes"
    );
    assert!(
        render
            .take_log()
            .iter()
            .any(|l| l
                .starts_with("client.render.msaa 8: this device's framebuffers take at most 4")),
        "the lowering is logged"
    );
    render.finish(&timer).unwrap_or_else(|e| panic!("{e}"));
}

/// The bench's renderer says at start, once, that the device lowered the samples, as
/// `render` does (before, only a live change said it).
#[test]
fn the_bench_renderer_says_at_start_that_the_samples_were_lowered() {
    if !vulkan() {
        return;
    }
    let mut host = Host::start(&HostOptions {
        map: "logic-map".into(),
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    host.prefs
        .set("client.render.msaa", "8")
        .unwrap_or_else(|e| panic!("{e}"));
    let mut render = dh_engine::render_cmd::BenchRender::start([32, 32], &[], &host, 1)
        .unwrap_or_else(|e| panic!("{e}"));
    // Lavapipe's framebuffers take 1 and 4 samples.
    assert_eq!(render.msaa(), 4);
    let log = render.take_log();
    let lowered: Vec<_> = log
        .iter()
        .filter(|l| {
            l.starts_with("client.render.msaa 8: this device's framebuffers take at most 4")
        })
        .collect();
    assert_eq!(lowered.len(), 1, "said once at start: {log:?}");
    let timer = dh_jobs::FrameTimer::new();
    render.finish(&timer).unwrap_or_else(|e| panic!("{e}"));
}
