//! `dh build` and map thumbnails (spec: dh.map, "The map's thumbnail"; runtime assets, "A
//! map's thumbnail"): the engine named by `enginePath` is run (here a wrapper script that
//! logs each call and writes a known PNG), a cached capture does not run it again, a
//! retouched PNG survives, and the fallback ladder (last PNG with a warning, else the CPU
//! plan with a note) never fails the build.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dh_content::pallet::Pallet;
use dh_content::thumbnail;

struct Case {
    root: PathBuf,
    src: PathBuf,
    cache: PathBuf,
    log: PathBuf,
}

const MAP: &str = "maps/main.dh-map";

/// A real PNG of `w × h` (the CPU plan with its plan `tEXt` chunk cut out, so it reads as
/// a photograph); `seed` moves its box so two seeds give two pictures.
fn photo(w: u32, h: u32, seed: f64) -> Vec<u8> {
    let boxes = [thumbnail::PlanBox {
        center: glam::DVec3::new(seed, 0.0, 0.0),
        half: [
            glam::DVec3::X * 2.0,
            glam::DVec3::Y,
            glam::DVec3::Z * (1.0 + seed),
        ],
        material: format!("m{seed}"),
    }];
    let plan = thumbnail::draw_plan(&boxes, [w, h]);
    let mut out = plan[..8].to_vec();
    let mut at = 8;
    while at + 8 <= plan.len() {
        let len = u32::from_be_bytes(plan[at..at + 4].try_into().unwrap()) as usize;
        let end = at + 12 + len;
        if &plan[at + 4..at + 8] != b"tEXt" {
            out.extend_from_slice(&plan[at..end]);
        }
        at = end;
    }
    assert!(!thumbnail::is_plan(&out));
    out
}

impl Case {
    fn new(name: &str, camera_extra: &str) -> Case {
        let root = std::env::temp_dir().join(format!("dh-thumb-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let src = root.join("dev.thumbs");
        let r = Command::new(env!("CARGO_BIN_EXE_dh"))
            .args(["new", "pallet"])
            .arg(&src)
            .args(["--barcode", "dev.thumbs", "-q"])
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let map = src.join(MAP);
        let text = std::fs::read_to_string(&map).unwrap();
        let edited = text.replace(
            "\"$type\": \"dh.camera\", \"fov\": 75 }",
            &format!("\"$type\": \"dh.camera\", \"fov\": 75, \"role\": \"mapThumbnail\", \"thumbnailSize\": [64, 48]{camera_extra} }}"),
        );
        assert_ne!(text, edited, "the starter map's camera line moved");
        std::fs::write(&map, edited).unwrap();
        Case {
            cache: root.join("cache"),
            log: root.join("engine.log"),
            src,
            root,
        }
    }

    /// A wrapper engine: logs its arguments, then writes `png` where told (or fails).
    fn engine(&self, png: &[u8], fail: bool) -> PathBuf {
        let photo = self.root.join("photo.png");
        std::fs::write(&photo, png).unwrap();
        let script = self.root.join("engine.sh");
        let body = if fail {
            "echo 'dh-engine: no Vulkan device here' >&2\nexit 1\n".to_string()
        } else {
            format!(
                "while [ $# -gt 0 ]; do if [ \"$1\" = --thumbnailPng ]; then cp '{}' \"$2\"; fi; shift; done\n",
                photo.display()
            )
        };
        std::fs::write(
            &script,
            format!("#!/bin/sh\necho \"$@\" >> '{}'\n{body}", self.log.display()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    fn config(&self, engine: &Path) {
        std::fs::write(
            self.src.join("dh-config.jsonc"),
            format!(
                "// where dh build finds the engine\n{{ \"enginePath\": \"{}\" }}\n",
                engine.display()
            ),
        )
        .unwrap();
    }

    fn out(&self) -> PathBuf {
        self.root.join("dev.thumbs.pallet")
    }

    fn build(&self) -> Output {
        let r = Command::new(env!("CARGO_BIN_EXE_dh"))
            .arg("build")
            .arg(&self.src)
            .arg("-o")
            .arg(self.out())
            .env("XDG_CACHE_HOME", &self.cache)
            .current_dir(&self.root)
            .output()
            .unwrap();
        assert!(
            r.status.success(),
            "a thumbnail never fails a build: {}{}",
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&r.stderr)
        );
        r
    }

    fn runs(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    }

    fn png(&self) -> PathBuf {
        self.src.join("maps/main.thumbnail.png")
    }

    /// The companion the pallet ships, checked against the map entry it ships with.
    fn packed(&self) -> Vec<u8> {
        let p = Pallet::open(self.out()).unwrap();
        let doc = p.read(MAP).unwrap().into_owned();
        let bytes = p
            .read(&thumbnail::companion_path(MAP))
            .unwrap()
            .into_owned();
        let t = thumbnail::read_for_map(&bytes, "companion", &doc).expect("the companion reads");
        assert!(
            p.read("maps/main.thumbnail.png").is_err(),
            "the photograph ships only inside the companion"
        );
        t.png.to_vec()
    }

    fn companion(&self) -> Vec<u8> {
        let p = Pallet::open(self.out()).unwrap();
        let bytes = p.read(&thumbnail::companion_path(MAP)).unwrap();
        bytes.into_owned()
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_capture_is_cached_and_a_retouched_png_survives() {
    let c = Case::new("capture", "");
    let shot = photo(64, 48, 0.0);
    let engine = c.engine(&shot, false);
    c.config(&engine);
    let first = c.build();
    assert_eq!(c.runs(), 1, "{}", text(&first));
    let call = std::fs::read_to_string(&c.log).unwrap();
    assert!(call.starts_with("render "), "{call}");
    assert!(
        call.contains("--map dev.thumbs:maps/main.dh-map --captureMapThumbnails --thumbnailPng "),
        "{call}"
    );
    assert!(call.contains("--pallet "), "{call}");
    assert_eq!(std::fs::read(c.png()).unwrap(), shot);
    assert_eq!(c.packed(), shot);
    let record = std::fs::read_to_string(c.root.join("dev.thumbs.compiler-writes")).unwrap();
    assert!(record.contains("maps/main.thumbnail.png"), "{record}");
    let pallet = std::fs::read(c.out()).unwrap();
    let companion = c.companion();
    // Header: magic, version, the size the PNG declares, the map hash, the length.
    assert_eq!(&companion[..8], b"DHMTHUMB");
    assert_eq!(u32::from_le_bytes(companion[8..12].try_into().unwrap()), 1);
    assert_eq!(
        u32::from_le_bytes(companion[12..16].try_into().unwrap()),
        64
    );
    assert_eq!(
        u32::from_le_bytes(companion[16..20].try_into().unwrap()),
        48
    );

    // Unchanged map: a cache hit runs no engine, and the pallet is byte-identical.
    c.build();
    assert_eq!(c.runs(), 1, "a cache hit started the engine");
    assert_eq!(std::fs::read(c.out()).unwrap(), pallet);

    // A PNG replaced by hand survives the next build and is what ships, at its own size.
    let retouched = photo(32, 32, 3.0);
    std::fs::write(c.png(), &retouched).unwrap();
    c.build();
    assert_eq!(c.runs(), 1);
    assert_eq!(std::fs::read(c.png()).unwrap(), retouched);
    assert_eq!(c.packed(), retouched);
    assert_eq!(
        u32::from_le_bytes(c.companion()[12..16].try_into().unwrap()),
        32
    );

    // An edited map is photographed again.
    let map = c.src.join(MAP);
    let t = std::fs::read_to_string(&map).unwrap();
    std::fs::write(
        &map,
        t.replace("\"position\": [-12, 8, 12]", "\"position\": [-13, 8, 12]"),
    )
    .unwrap();
    c.build();
    assert_eq!(c.runs(), 2, "an edited map was not photographed again");
    assert_eq!(std::fs::read(c.png()).unwrap(), shot);
}

#[test]
fn without_an_engine_the_last_png_ships_with_a_warning() {
    let c = Case::new("unset", "");
    let last = photo(64, 48, 1.0);
    std::fs::write(c.png(), &last).unwrap();
    let r = c.build();
    assert!(text(&r).contains("enginePath is unset"), "{}", text(&r));
    assert!(text(&r).contains("the last PNG captured, maps/main.thumbnail.png, is packed"));
    assert_eq!(c.packed(), last);
    assert_eq!(std::fs::read(c.png()).unwrap(), last);

    c.config(&c.root.join("no-such-engine"));
    let r = c.build();
    assert!(text(&r).contains("no-such-engine"), "{}", text(&r));
    assert!(text(&r).contains("names nothing"), "{}", text(&r));
    assert_eq!(c.packed(), last);

    // A render that fails says its own stderr tail.
    let engine = c.engine(b"", true);
    c.config(&engine);
    let r = c.build();
    assert_eq!(c.runs(), 1);
    assert!(text(&r).contains("no Vulkan device here"), "{}", text(&r));
    assert_eq!(c.packed(), last);
}

#[test]
fn a_map_never_photographed_ships_the_cpu_plan_with_a_note() {
    let c = Case::new("plan", "");
    let r = c.build();
    assert!(text(&r).contains("drawn, not taken"), "{}", text(&r));
    assert!(text(&r).contains("enginePath is unset"), "{}", text(&r));
    let plan = std::fs::read(c.png()).expect("the plan is written beside the map");
    assert!(thumbnail::is_plan(&plan));
    assert_eq!(thumbnail::png_size(&plan).unwrap(), [64, 48]);
    assert_eq!(c.packed(), plan);
    let first = std::fs::read(c.out()).unwrap();
    c.build();
    assert_eq!(std::fs::read(c.out()).unwrap(), first, "two builds differ");
    let keep = std::env::var_os("DH_THUMBNAIL_PLAN_OUT");
    if let Some(p) = keep {
        std::fs::copy(c.png(), p).unwrap();
    }

    // The first real capture replaces the plan.
    let shot = photo(64, 48, 2.0);
    let engine = c.engine(&shot, false);
    c.config(&engine);
    let r = c.build();
    assert_eq!(c.runs(), 1, "{}", text(&r));
    assert!(!text(&r).contains("drawn, not taken"), "{}", text(&r));
    assert_eq!(c.packed(), shot);
}

#[test]
fn auto_capture_false_starts_no_engine_and_packs_the_file_as_it_is() {
    let c = Case::new("manual", ", \"autoCapture\": false");
    let composed = photo(40, 40, 4.0);
    std::fs::write(c.png(), &composed).unwrap();
    let engine = c.engine(&photo(64, 48, 0.0), false);
    c.config(&engine);
    let r = c.build();
    assert_eq!(c.runs(), 0, "{}", text(&r));
    assert!(!text(&r).contains("thumbnail"), "{}", text(&r));
    assert_eq!(c.packed(), composed);
    assert_eq!(std::fs::read(c.png()).unwrap(), composed);
}

#[test]
fn a_misspelled_config_member_is_refused_naming_the_file() {
    let c = Case::new("config", "");
    std::fs::write(c.src.join("dh-config.jsonc"), "{ \"enginePth\": \"x\" }").unwrap();
    let r = Command::new(env!("CARGO_BIN_EXE_dh"))
        .arg("build")
        .arg(&c.src)
        .arg("-o")
        .arg(c.out())
        .env("XDG_CACHE_HOME", &c.cache)
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(1));
    let t = text(&r);
    assert!(
        t.contains("dh-config.jsonc: 'enginePth' is not a setting dh reads"),
        "{t}"
    );
}

/// The `dh-engine` binary beside `dh` in the same target folder, when this test run built it
/// (`cargo test --workspace` does; `cargo test -p dh` alone does not).
fn real_engine() -> Option<PathBuf> {
    let dh = PathBuf::from(env!("CARGO_BIN_EXE_dh"));
    let engine = dh.with_file_name(format!("dh-engine{}", std::env::consts::EXE_SUFFIX));
    engine.is_file().then_some(engine)
}

#[test]
fn the_real_engine_photographs_the_map_at_its_thumbnail_size() {
    let Some(engine) = real_engine() else {
        println!("skipped: dh-engine is not built beside dh (run cargo test --workspace)");
        return;
    };
    let c = Case::new("real", "");
    c.config(&engine);
    let r = c.build();
    let said = text(&r);
    assert!(!said.contains("drawn, not taken"), "no capture: {said}");
    assert!(!said.contains("warning:"), "{said}");
    let png = std::fs::read(c.png()).expect("the capture is written beside the map");
    assert!(!thumbnail::is_plan(&png), "the engine drew a plan: {said}");
    assert_eq!(thumbnail::png_size(&png).unwrap(), [64, 48]);
    assert_eq!(c.packed(), png);
    // A photograph of the starter map: its floor and sky, so not one flat colour.
    let image = dh_content::texture::decode_png(&png).unwrap();
    let mut colours: Vec<&[u8]> = image.rgba.chunks_exact(4).collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(
        colours.len() > 16,
        "the capture is nearly flat: {} colours",
        colours.len()
    );
    if let Some(out) = std::env::var_os("DH_THUMBNAIL_CAPTURE_OUT") {
        std::fs::write(out, &png).unwrap();
    }
    // The engine's own run folder is kept out of the source.
    assert!(!c.src.join("thumbnail.png").exists());
    // Deterministic: photographed again from nothing (no cache, no PNG), the same driver
    // takes the same picture and the build packs the same pallet.
    let pallet = std::fs::read(c.out()).unwrap();
    let _ = std::fs::remove_dir_all(&c.cache);
    std::fs::remove_file(c.png()).unwrap();
    c.build();
    assert_eq!(
        std::fs::read(c.png()).unwrap(),
        png,
        "a second capture differs"
    );
    assert_eq!(
        std::fs::read(c.out()).unwrap(),
        pallet,
        "the rebuilt pallet differs"
    );
}
