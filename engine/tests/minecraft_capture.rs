//! A Minecraft Java save imported with `dh import minecraft-world`'s importer, built and
//! drawn by the engine's capture path from a camera at level.dat's spawn (issue 13, "Done
//! when": the Paper region converts and renders), on lavapipe with the Khronos validation
//! layer.
//!
//! * The save is the shared fixture `minecraft/region/1.20.1-paper` (BlueMap-Minecraft/
//!   BlueNBT's test region and level.dat, MIT: see `../shared/fixtures/README.md`). It is
//!   read in place, never copied into the repository; without it the test prints a line
//!   and passes.
//! * `import_world` writes the payload, the definition and the map (a spawn point at
//!   level.dat's spawn and two cameras) into a source pallet, which is compiled with
//!   `dh build`'s compiler. The map inherits the Minecraft environment template
//!   (`com.mojang.minecraft:maps/environment.dh-map`), which the platform pallet will make
//!   and which does not exist yet: the test stands in a pallet of that id holding only
//!   that map (a sun, a hemisphere fill and the procedural sky; ours).
//! * The save's spawn is (0, 110, 0), the region file's corner (r.0.0 covers cells 0 ..
//!   512 on X and Z, and it is the only region of the fixture). The importer's cameras
//!   face −Z, off the region, so a child map inheriting the imported one adds a camera at
//!   the spawn's eye height (1.62 m over the spawn block's top, as the importer's own) turned
//!   to face into the region (+X, +Z) and a little down (ours).
//! * The capture is compared with `gpu/tests/golden/minecraft-paper-spawn.png` (the
//!   fixture is MIT, so a capture of it may be committed), and with properties computed
//!   apart from the golden against the same frame drawn without the volume: the volume
//!   covers the frame (the spawn stands in a hollow, walled by blocks), lit, and no pixel
//!   is the unresolved look's red.

use std::path::{Path, PathBuf};

use dh_content::voxel::minecraft::world::import::import_world;
use dh_content::voxel::minecraft::world::WorldOptions;
use dh_engine::catalog::Catalog;
use dh_engine::extract;
use dh_engine::host::{Host, HostOptions};
use dh_engine::voxel::draw::VoxelDraw;
use dh_gpu::render::camera::output_size;
use dh_gpu::render::Renderer;
use dh_gpu::{testing, RgbaImage};

mod support;
use support::{check_golden, SourcePallet};

/// The capture width.
const WIDTH: u32 = 320;

/// The Paper save, or `None` (with a line) when the shared fixtures are absent.
fn paper_save() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/minecraft/region/1.20.1-paper");
    if p.join("r.0.0.mca").is_file() && p.join("level.dat").is_file() {
        Some(p)
    } else {
        println!(
            "skipped: {} is absent (the region fixtures are read in place, never copied)",
            p.display()
        );
        None
    }
}

/// The stand-in for the platform pallet's environment template: a bright sun, a
/// hemisphere fill and the procedural sky (ours; the real template is the platform
/// pallet's).
const ENVIRONMENT: &str = r#"{
  "name": "Minecraft environment (test stand-in)",
  "lighting": {
    "sunDirection": [-0.35, -0.8, -0.5],
    "sunIntensity": 2,
    "ambientIntensity": 0.6,
    "sky": true
  },
  "objects": []
}"#;

/// The child map: the imported map, and a camera at the spawn's eye height facing into
/// the region. Yaw −135° turns the camera's −Z forward toward +X and +Z (a positive yaw
/// turns it counterclockwise seen from above, toward −X); pitch −12° looks a little down.
fn spawn_map(imported: &str, eye: [f64; 3]) -> String {
    format!(
        r#"{{
  "name": "Spawn capture",
  "inherits": "{imported}",
  "objects": [
    {{ "$type": "object", "id": "6c1d2e3f-4a5b-4c6d-8e7f-901234567890", "name": "capture", "position": [{}, {}, {}], "rotation": [-12, -135, 0],
      "components": [ {{ "$type": "dh.camera", "fov": 70, "aspect": "16:9" }} ] }}
  ]
}}"#,
        eye[0], eye[1], eye[2]
    )
}

fn luma(p: [u8; 4]) -> f64 {
    0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])
}

/// Whether two pixels differ by more than `t` on some channel.
fn differs(a: [u8; 4], b: [u8; 4], t: u8) -> bool {
    (0..3).any(|c| a[c].abs_diff(b[c]) > t)
}

#[test]
fn the_paper_region_imports_builds_and_renders_from_its_spawn() {
    let Some(save) = paper_save() else {
        return;
    };
    let root = std::env::temp_dir().join(format!("dh-mc-capture-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));

    // The stand-in environment pallet.
    let env_pallet = support::memory_pallet(
        &root,
        "minecraft.pallet",
        r#"{ "id": "com.mojang.minecraft", "name": "Minecraft (test stand-in)", "version": "1.0.0", "dependencies": [] }"#,
        vec![("maps/environment.dh-map", ENVIRONMENT.as_bytes().to_vec())],
    );

    // The world, imported as `dh import minecraft-world` imports it.
    let world = SourcePallet::at(&root.join("world"));
    world.write(
        "pallet.dh",
        br#"{ "id": "test.mcworld", "name": "Paper world", "version": "1.0.0", "dependencies": ["com.mojang.minecraft"] }"#,
    );
    let imported = import_world(&save, &world.src, &WorldOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", save.display()));
    // level.dat's spawn (SpawnX/Y/Z = 0, 110, 0, read from the fixture's level.dat by
    // hand with a gzip + NBT dump).
    assert_eq!(imported.spawn, [0, 110, 0]);
    let map_name = imported
        .map
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| panic!("no map file name"));
    // The importer's eye: the spawn block's top, centered, + 1.62 m.
    let eye = [0.5, 111.62, 0.5];
    world.write(
        "maps/spawn-capture.dh-map",
        spawn_map(&format!("/{map_name}"), eye).as_bytes(),
    );
    let built = world.compile(true, "imported world");
    let pallet = world.save("world.pallet", &support::pallet_bytes(&built));

    // A smaller capture radius than the default 384 m: the test's frame needs the ground
    // in front of the camera, not the whole region (ours, for time on lavapipe).
    let host = Host::start(&HostOptions {
        map: "spawn-capture".into(),
        pallets: vec![env_pallet.clone(), pallet.clone()],
        sets: vec!["client.voxel.captureRadius=160".into()],
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    for p in [&env_pallet, &pallet] {
        catalog.mount_file(p).unwrap_or_else(|e| panic!("{e}"));
    }
    let (_, map) = catalog
        .load_map("spawn-capture")
        .unwrap_or_else(|e| panic!("{e}"));
    let x = extract::extract(&host, &catalog, &map);
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    let cam = x
        .cameras
        .iter()
        .find(|c| c.name == "capture")
        .unwrap_or_else(|| panic!("no capture camera"));
    let size = output_size(cam.aspect, Some([WIDTH, WIDTH * 9 / 16]), None);
    let view = cam.view;
    let bare = x.frame;
    let mut frame = bare.clone();
    let mut draw = VoxelDraw::new(&host.prefs);
    let stats = draw.capture(&host, Some(&view), &mut frame);
    let log = draw.take_log();
    assert!(stats.instances > 0, "nothing landed: {stats:?} {log:?}");
    assert_eq!(stats.stream.queued + stats.stream.meshing, 0, "{stats:?}");

    let gpu = testing::test_gpu();
    let (with, without) = {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let with = renderer
            .render(&frame, &view, size[0], size[1])
            .unwrap_or_else(|e| panic!("{e}"));
        let without = renderer
            .render(&bare, &view, size[0], size[1])
            .unwrap_or_else(|e| panic!("{e}"));
        (with.image, without.image)
    };
    // Validation-clean: `finish` fails on any message of the validation layer.
    testing::finish(gpu);
    if let Ok(d) = std::env::var("DH_RENDER_OUT") {
        let _ = without.write_png(&Path::new(&d).join("minecraft-paper-spawn-bare.png"));
        let _ = with.write_png(&Path::new(&d).join("minecraft-paper-spawn-capture.png"));
    }
    let _ = std::fs::remove_dir_all(&root);

    let (w, h) = (with.width, with.height);
    let share = |rows: std::ops::Range<u32>, pred: &dyn Fn(u32, u32) -> bool| {
        let mut n = 0u32;
        let mut all = 0u32;
        for y in rows {
            for x in 0..w {
                all += 1;
                n += u32::from(pred(x, y));
            }
        }
        f64::from(n) / f64::from(all.max(1))
    };
    let px = |img: &RgbaImage, x: u32, y: u32| img.pixel(x, y).unwrap_or([0; 4]);
    let changed = |x: u32, y: u32| differs(px(&with, x, y), px(&without, x, y), 12);
    // The spawn block stands in a hollow: from the eye over it the camera faces the
    // blocks around it (brown walls and floor, a yellow block above them in the golden),
    // so the volume covers almost the whole frame. Ours: at least 90 %.
    let covered = share(0..h, &changed);
    assert!(
        covered > 0.9,
        "the volume covers {:.0}% of the frame",
        covered * 100.0
    );
    // Lit, not black: the volume's pixels average some light (ours: luma over 20).
    let mut sum = 0.0;
    let mut n = 0.0;
    for y in 0..h {
        for x in 0..w {
            if changed(x, y) {
                sum += luma(px(&with, x, y));
                n += 1.0;
            }
        }
    }
    let mean = sum / f64::max(n, 1.0);
    assert!(mean > 20.0, "the volume's pixels average luma {mean:.1}");
    // No face draws the unresolved look (UNRESOLVED_COLOR, [255, 0, 64]: the renderer's
    // glowing red checker): no pixel is that saturated red.
    let checker = share(0..h, &|x, y| {
        let p = px(&with, x, y);
        p[0] > 200 && p[1] < 40 && p[2] > 30 && p[2] < 110
    });
    assert!(
        checker == 0.0,
        "{:.2}% of the pixels are the unresolved red",
        checker * 100.0
    );
    check_golden("minecraft-paper-spawn", &with);
}
