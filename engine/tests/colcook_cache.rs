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

use std::path::{Path, PathBuf};

use dh_content::colcook::cache::load_key;
use dh_content::compile::{compile, CompileOptions};
use dh_content::pallet::Pallet;
use dh_engine::host::{Host, HostOptions};
use dh_jobs::{FrameTimer, Scheduler};

/// A 4 × 1 × 4 box about the origin: 8 corners, 12 outward triangles.
fn slab_glb() -> Vec<u8> {
    let h = [2.0f32, 0.5, 2.0];
    let mut pos = Vec::new();
    for i in 0..8u8 {
        for (a, bit) in [(0, 1), (1, 2), (2, 4)] {
            let v = if i & bit == 0 { -h[a] } else { h[a] };
            pos.extend_from_slice(&v.to_le_bytes());
        }
    }
    let quads: [[u16; 4]; 6] = [
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
        [0, 1, 5, 4],
        [0, 2, 3, 1],
        [4, 5, 7, 6],
    ];
    let mut idx = Vec::new();
    for q in quads {
        for i in [q[0], q[1], q[2], q[0], q[2], q[3]] {
            idx.extend_from_slice(&i.to_le_bytes());
        }
    }
    let mut bin = pos.clone();
    let idx_at = bin.len();
    bin.extend_from_slice(&idx);
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let mut json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{}}},{{"buffer":0,"byteOffset":{idx_at},"byteLength":{}}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":8,"type":"VEC3","min":[-2,-0.5,-2],"max":[2,0.5,2]}},
 {{"bufferView":1,"componentType":5123,"count":36,"type":"SCALAR"}}],
"materials":[{{"name":"stone"}}],
"meshes":[{{"name":"SlabMesh","primitives":[{{"attributes":{{"POSITION":0}},"indices":1,"material":0}}]}}],
"nodes":[{{"name":"slab","translation":[0,0.5,0],"mesh":0}}],
"scenes":[{{"nodes":[0]}}],"scene":0}}"#,
        bin.len(),
        pos.len(),
        idx.len()
    );
    while json.len() % 4 != 0 {
        json.push(' ');
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json.as_bytes());
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
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
    let src = dir.join("src");
    let write = |rel: &str, b: &[u8]| {
        let p = src.join(rel);
        std::fs::create_dir_all(p.parent().unwrap_or(Path::new("."))).unwrap();
        std::fs::write(p, b).unwrap();
    };
    write(
        "pallet.dh",
        b"{ \"id\": \"dev.example.slab\", \"name\": \"Slab\", \"version\": \"1.0.0\" }",
    );
    write("meshes/slab.glb", &slab_glb());
    write("materials/stone.dh-mat", b"{ \"tint\": [0.5, 0.5, 0.5] }");
    write("maps/slab.dh-map", MAP.as_bytes());
    let out = compile(
        &src,
        &CompileOptions {
            write: false,
            progress: None,
        },
    );
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let assets: Vec<_> = out
        .assets
        .iter()
        .filter(|a| !a.path.ends_with(".dh-colcook"))
        .cloned()
        .collect();
    assert!(
        assets.len() < out.assets.len(),
        "the build shipped a companion to drop"
    );
    let manifest = out.manifest.as_ref().expect("a manifest");
    let bytes = dh_content::compile::pack(manifest, &assets).unwrap_or_else(|e| panic!("{e}"));
    let file = dir.join("slab.pallet");
    std::fs::write(&file, bytes).unwrap();
    file
}

/// Drops a pawn at `feet` and lets it fall for two seconds; its feet's height and whether
/// it stands.
fn drop_pawn(host: &mut Host, feet: [f32; 3]) -> (f32, bool) {
    let script = format!(
        "spawn p {} {} {}\nwait 128 ticks\nprint p.y\n",
        feet[0], feet[1], feet[2]
    );
    let mut runner = dh_engine::script::ScriptRunner::new(
        dh_engine::script::parse("test", &script).unwrap_or_else(|e| panic!("{e}")),
    );
    let scheduler = Scheduler::new(1).unwrap_or_else(|e| panic!("{e}"));
    let timer = FrameTimer::new();
    while !runner.finished() {
        host.step(Some(&mut runner), &scheduler, &timer)
            .unwrap_or_else(|e| panic!("{e}"));
        timer.end_frame();
    }
    let id = host.physics().pawn_ids()[0];
    let s = host.physics().pawn_state(id).unwrap();
    (s.feet[1], s.grounded)
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
    (cooked, drop_pawn(&mut host, [0.5, 3.0, 0.5]))
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
