//! The collision load cache end to end (runtime assets, "Cooked map collision"): a pallet
//! whose mesh-mode map ships no `.dh-colcook` companion is cooked at load, and the cook is
//! kept in `collision/<key>.dhcol` under the platform's cache root, keyed by the model's
//! path and its pallet signature; the next start reads the entry instead of cooking.
//!
//! This binary holds one test and points the cache root at a folder of its own
//! (`XDG_CACHE_HOME` / `LOCALAPPDATA`) before anything starts.
//!
//! The model (`meshes/slab.glb`) is one node `slab` at `[0, 0.5, 0]` drawing a 4 × 1 × 4 box
//! of material `stone`: its top is at y = 1, so a pawn dropped over it stands there.

mod support;

use std::path::{Path, PathBuf};

use dh_content::colcook::cache::load_key;
use dh_content::pallet::Pallet;
use dh_engine::host::{Host, HostOptions};
use support::{box_geometry, drop_pawn, without_companions, GlbBuilder, SourcePallet};

/// A 4 × 1 × 4 box about the origin: 8 corners, 12 outward triangles.
fn slab_glb() -> Vec<u8> {
    let mut g = GlbBuilder::new();
    let (v, i) = box_geometry([4.0, 1.0, 4.0]);
    let pos = g.positions(&v);
    let idx = g.indices(&i);
    g.finish(&format!(
        r#""materials":[{{"name":"stone"}}],
"meshes":[{{"name":"SlabMesh","primitives":[{{"attributes":{{"POSITION":{pos}}},"indices":{idx},"material":0}}]}}],
"nodes":[{{"name":"slab","translation":[0,0.5,0],"mesh":0}}],
"scenes":[{{"nodes":[0]}}],"scene":0"#
    ))
}

const MAP: &str = r#"{
  "name": "Slab",
  "materials": { "stone": "/materials/stone.dh-mat" },
  "objects": [
    { "$type": "instance", "id": "0a3c5e70-1b2d-4f60-8a9b-0c1d2e3f4b01", "name": "world",
      "source": "/meshes/slab.glb" }
  ]
}
"#;

/// Builds the pallet, packs it again without its companions, and writes it under `dir`.
fn build_companionless_pallet(dir: &Path) -> PathBuf {
    let pallet = SourcePallet::at(dir);
    pallet.manifest("dev.example.slab", "Slab");
    pallet.write("meshes/slab.glb", &slab_glb());
    pallet.write("materials/stone.dh-mat", b"{ \"tint\": [0.5, 0.5, 0.5] }");
    pallet.write("maps/slab.dh-map", MAP.as_bytes());
    let out = pallet.compile(false, "slab");
    pallet.save("slab.pallet", &without_companions(&out))
}

/// Starts the host on the slab map; the cook-at-load log lines of the start, and where a
/// pawn dropped over the slab comes to rest.
fn start(pallet: &Path, sets: &[&str]) -> (Vec<String>, (f32, bool)) {
    let mut host = Host::start(&HostOptions {
        map: "dev.example.slab:maps/slab".into(),
        pallets: vec![pallet.to_path_buf()],
        sets: sets.iter().map(|s| s.to_string()).collect(),
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let cooked: Vec<String> = host
        .take_output()
        .into_iter()
        .filter(|l| l.contains("mesh collision cooked at load"))
        .collect();
    let s = drop_pawn(&mut host, [0.5, 3.0, 0.5]);
    (cooked, (s.feet[1], s.grounded))
}

#[test]
fn a_second_start_of_a_companionless_pallet_reads_the_collision_cache() {
    let dir = std::env::temp_dir().join(format!("dh-colcook-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let root = dir.join("cache-home");
    // The environment: this binary's only test sets these before any thread of
    // its own starts, so nothing reads the environment concurrently.
    std::env::set_var("XDG_CACHE_HOME", &root);
    std::env::set_var("LOCALAPPDATA", &root);
    let pallet = build_companionless_pallet(&dir);

    // The entry's place: the model's path and its file-table signature, under
    // <root>/DigitalHeaven/Engine/cache/collision/.
    let p = Pallet::open(&pallet).unwrap();
    let e = p.entry("meshes/slab.glb").expect("the model's entry");
    let (crc, len) = e.signature();
    let key = load_key("meshes/slab.glb", crc, len);
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let entry = root
        .join("DigitalHeaven/Engine/cache/collision")
        .join(format!("{hex}.dhcol"));

    // First start: cooked at load (one line naming the model and the time), written.
    let (cooked, (feet, grounded)) = start(&pallet, &[]);
    assert_eq!(cooked.len(), 1, "{cooked:?}");
    assert!(
        cooked[0].contains("dev.example.slab:meshes/slab.glb")
            && cooked[0].contains(" ms")
            && cooked[0].contains("1 mesh(es) cooked")
            && cooked[0].contains("12 triangle(s)"),
        "{}",
        cooked[0]
    );
    assert!(grounded && (feet - 1.0).abs() < 0.05, "on the slab: {feet}");
    let written = std::fs::read(&entry).expect("the cache entry was written");

    // Second start: no cook, the same standing, and the entry untouched.
    let (cooked, (feet, grounded)) = start(&pallet, &[]);
    assert!(cooked.is_empty(), "read from the cache: {cooked:?}");
    assert!(
        grounded && (feet - 1.0).abs() < 0.05,
        "on the cached slab: {feet}"
    );
    assert_eq!(std::fs::read(&entry).unwrap(), written);

    // A truncated entry is a miss: cooked again and written whole.
    std::fs::write(&entry, &written[..written.len() / 2]).unwrap();
    let (cooked, (feet, _)) = start(&pallet, &[]);
    assert_eq!(cooked.len(), 1, "a truncated entry cooks again");
    assert!((feet - 1.0).abs() < 0.05);
    assert_eq!(std::fs::read(&entry).unwrap(), written);

    // client.cache.collision off: cooked in memory every start, the entry neither read nor
    // written.
    std::fs::remove_file(&entry).unwrap();
    for _ in 0..2 {
        let (cooked, (feet, grounded)) = start(&pallet, &["client.cache.collision=false"]);
        assert_eq!(cooked.len(), 1, "{cooked:?}");
        assert!(cooked[0].contains("not cached"), "{}", cooked[0]);
        assert!(grounded && (feet - 1.0).abs() < 0.05);
        assert!(!entry.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
