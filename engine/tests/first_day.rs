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
