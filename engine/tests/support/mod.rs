//! Support shared by the engine's integration tests: a small GLB writer, independent of
//! the importer and of `dh build`'s writer (so every number a test checks is known by
//! construction), the source-pallet scaffolding around `dh build`'s compiler, and the pawn
//! drop the collision tests stand on, and the golden comparison every capture test uses.
//!
//! Each test binary uses its own share of it (`mod support;`), hence the `dead_code` allow.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use dh_content::compile::{
    compile, compile_sources, AssetKind, BuildOutput, CompileOptions, SourceData, SourceEntry,
};
use dh_engine::host::Host;
use dh_jobs::{FrameTimer, Scheduler};

// ---- A GLB writer ----------------------------------------------------------------------------

/// A box's 8 corners (centered, `size` full extents) and its 12 triangles, outward-wound,
/// faces in the order +Y, -X, +X, -Y, -Z, +Z (two triangles each).
pub fn box_geometry(size: [f32; 3]) -> (Vec<[f32; 3]>, Vec<u16>) {
    let h = size.map(|s| s / 2.0);
    let mut v = Vec::new();
    for i in 0..8u8 {
        v.push([
            if i & 1 == 0 { -h[0] } else { h[0] },
            if i & 2 == 0 { -h[1] } else { h[1] },
            if i & 4 == 0 { -h[2] } else { h[2] },
        ]);
    }
    // Corner index bits: x = 1, y = 2, z = 4.
    let quads: [[u16; 4]; 6] = [
        [2, 6, 7, 3], // +Y
        [0, 4, 6, 2], // -X
        [1, 3, 7, 5], // +X
        [0, 1, 5, 4], // -Y
        [0, 2, 3, 1], // -Z
        [4, 5, 7, 6], // +Z
    ];
    let mut idx = Vec::new();
    for q in quads {
        idx.extend_from_slice(&[q[0], q[1], q[2], q[0], q[2], q[3]]);
    }
    (v, idx)
}

/// Builds a GLB: one binary buffer of 4-byte-aligned views, their accessors, and the rest
/// of the document as JSON.
pub struct GlbBuilder {
    bin: Vec<u8>,
    views: Vec<String>,
    accessors: Vec<String>,
}

impl Default for GlbBuilder {
    fn default() -> GlbBuilder {
        GlbBuilder::new()
    }
}

impl GlbBuilder {
    /// An empty document.
    pub fn new() -> GlbBuilder {
        GlbBuilder {
            bin: Vec::new(),
            views: Vec::new(),
            accessors: Vec::new(),
        }
    }

    /// Adds `bytes` as a buffer view (4-byte aligned); its index.
    pub fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.views.push(format!(
            r#"{{"buffer":0,"byteOffset":{offset},"byteLength":{}}}"#,
            bytes.len()
        ));
        self.views.len() - 1
    }

    /// Adds a `VEC3` float accessor of `p` with its `min` / `max`; its index.
    pub fn positions(&mut self, p: &[[f32; 3]]) -> usize {
        let bytes: Vec<u8> = p.iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
        let view = self.view(&bytes);
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for v in p {
            for k in 0..3 {
                lo[k] = lo[k].min(v[k]);
                hi[k] = hi[k].max(v[k]);
            }
        }
        self.accessors.push(format!(
            r#"{{"bufferView":{view},"componentType":5126,"count":{},"type":"VEC3","min":[{},{},{}],"max":[{},{},{}]}}"#,
            p.len(),
            lo[0],
            lo[1],
            lo[2],
            hi[0],
            hi[1],
            hi[2]
        ));
        self.accessors.len() - 1
    }

    /// Adds a `VEC3` float accessor of `p` without `min` / `max`; its index.
    pub fn positions_unbounded(&mut self, p: &[[f32; 3]]) -> usize {
        let bytes: Vec<u8> = p.iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
        let view = self.view(&bytes);
        self.accessors.push(format!(
            r#"{{"bufferView":{view},"componentType":5126,"count":{},"type":"VEC3"}}"#,
            p.len()
        ));
        self.accessors.len() - 1
    }

    /// Adds a `u16` index accessor of `i`; its index.
    pub fn indices(&mut self, i: &[u16]) -> usize {
        let bytes: Vec<u8> = i.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes);
        self.accessors.push(format!(
            r#"{{"bufferView":{view},"componentType":5123,"count":{},"type":"SCALAR"}}"#,
            i.len()
        ));
        self.accessors.len() - 1
    }

    /// The GLB: the asset, buffer, views and accessors, then `rest` (the document's other
    /// members, comma-separated JSON), and the binary chunk.
    pub fn finish(mut self, rest: &str) -> Vec<u8> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],"bufferViews":[{}],"accessors":[{}],{rest}}}"#,
            self.bin.len(),
            self.views.join(","),
            self.accessors.join(",")
        );
        glb_container(json, &self.bin)
    }
}

/// A GLB container of `json` (padded with spaces) and `bin` (already 4-byte aligned).
pub fn glb_container(mut json: String, bin: &[u8]) -> Vec<u8> {
    while !json.len().is_multiple_of(4) {
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
    out.extend_from_slice(bin);
    out
}

// ---- Source pallets --------------------------------------------------------------------------

/// A source pallet being written under a folder of the temp dir, compiled with `dh build`'s
/// compiler and written out as a `.pallet` beside its sources.
pub struct SourcePallet {
    /// The folder holding `src/` and the built pallet.
    pub dir: PathBuf,
    /// The sources' root (where `pallet.dh` goes).
    pub src: PathBuf,
}

impl SourcePallet {
    /// A fresh (emptied) folder `<temp>/<prefix>-<tag>-<pid>`, unique per test.
    pub fn fresh(prefix: &str, tag: &str) -> SourcePallet {
        let dir = std::env::temp_dir().join(format!("{prefix}-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        SourcePallet::at(&dir)
    }

    /// Sources under `dir/src`, as `dir` stands.
    pub fn at(dir: &Path) -> SourcePallet {
        SourcePallet {
            dir: dir.to_path_buf(),
            src: dir.join("src"),
        }
    }

    /// Writes `bytes` to the source file `rel`, making its folders.
    pub fn write(&self, rel: &str, bytes: &[u8]) {
        let p = self.src.join(rel);
        std::fs::create_dir_all(p.parent().unwrap_or(Path::new("."))).unwrap();
        std::fs::write(p, bytes).unwrap();
    }

    /// Writes `pallet.dh` naming pallet `id` (version 1.0.0).
    pub fn manifest(&self, id: &str, name: &str) {
        self.write(
            "pallet.dh",
            format!("{{ \"id\": \"{id}\", \"name\": \"{name}\", \"version\": \"1.0.0\" }}")
                .as_bytes(),
        );
    }

    /// Compiles the sources (`write`: let the compiler write its sidecars back), asserting
    /// the build reports no error (`what` names the pallet in the failure).
    pub fn compile(&self, write: bool, what: &str) -> BuildOutput {
        let out = compile(
            &self.src,
            &CompileOptions {
                write,
                progress: None,
            },
        );
        assert!(
            !out.diagnostics.has_errors(),
            "the {what} pallet builds: {}",
            out.diagnostics
        );
        out
    }

    /// Writes `bytes` as `<dir>/<file>`; its path.
    pub fn save(&self, file: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.join(file);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

/// The built pallet's bytes, as compiled.
pub fn pallet_bytes(out: &BuildOutput) -> Vec<u8> {
    out.pallet
        .clone()
        .unwrap_or_else(|| panic!("no pallet bytes: {}", out.diagnostics))
}

/// The build packed again without its maps' `.dh-colcook` companions, so the host must cook
/// their mesh collision at load.
pub fn without_companions(out: &BuildOutput) -> Vec<u8> {
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
    dh_content::compile::pack(manifest, &assets).unwrap_or_else(|e| panic!("{e}"))
}

// ---- The world ---------------------------------------------------------------------------------

/// Drops a pawn at `feet` and lets it fall for two seconds (128 ticks); its state.
pub fn drop_pawn(host: &mut Host, feet: [f32; 3]) -> dh_sims::physics::PawnState {
    let script = format!(
        "spawn p {} {} {}\nwait 128 ticks\nprint p.y\n",
        feet[0], feet[1], feet[2]
    );
    let mut runner = dh_engine::script::ScriptRunner::new(
        dh_engine::script::parse("test", &script).unwrap_or_else(|e| panic!("{e}")),
    );
    let scheduler = Scheduler::new(1).unwrap_or_else(|e| panic!("{e}"));
    let timer = FrameTimer::new();
    while !runner.finished(host.tick()) {
        host.step(Some(&mut runner), &scheduler, &timer)
            .unwrap_or_else(|e| panic!("{e}"));
        timer.end_frame();
    }
    let id = host.physics().pawn_ids()[0];
    host.physics().pawn_state(id).unwrap()
}

// ---- Checks ------------------------------------------------------------------------------------

/// Asserts `a` is within 1e-5 of `b` on every axis.
pub fn near3(a: [f32; 3], b: [f32; 3], what: &str) {
    assert!(
        (0..3).all(|k| (a[k] - b[k]).abs() < 1e-5),
        "{what}: {a:?}, expected {b:?}"
    );
}

/// The rotation angle between two unit quaternions, degrees (a quaternion and its negation
/// are one rotation).
pub fn angle(a: [f32; 4], b: [f32; 4]) -> f32 {
    let d: f32 = (0..4).map(|k| a[k] * b[k]).sum();
    2.0 * d.abs().min(1.0).acos().to_degrees()
}

// ---- Goldens -----------------------------------------------------------------------------

/// Mean error allowed against an engine golden.
pub const GOLDEN_MEAN: f64 = 0.02;
/// 99th-percentile error allowed against an engine golden.
pub const GOLDEN_P99: f64 = 0.12;

/// Where the goldens live (shared with dh-gpu's own image tests).
pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../gpu/tests/golden")
}

/// Compares a capture with `gpu/tests/golden/<name>.png` within [`GOLDEN_MEAN`] and
/// [`GOLDEN_P99`]; writes the golden when there is none (to be looked at, then committed),
/// and a copy of every capture under `DH_RENDER_OUT` when that is set.
pub fn check_golden(name: &str, image: &dh_gpu::RgbaImage) {
    use dh_gpu::render::compare::{compare, decode_png};
    const MEAN: f64 = GOLDEN_MEAN;
    const P99: f64 = GOLDEN_P99;
    let path = golden_dir().join(format!("{name}.png"));
    if let Ok(dir) = std::env::var("DH_RENDER_OUT") {
        let _ = image.write_png(&Path::new(&dir).join(format!("{name}.png")));
    }
    match std::fs::read(&path) {
        Ok(bytes) => {
            let golden = decode_png(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let diff = compare(image, &golden).unwrap_or_else(|| {
                panic!(
                    "{name}: {}x{} against a {}x{} golden",
                    image.width, image.height, golden.width, golden.height
                )
            });
            assert!(
                diff.within(MEAN, P99),
                "{name}: differs from {}: mean {:.4} (≤ {MEAN}), p99 {:.4} (≤ {P99}), max {:.4}",
                path.display(),
                diff.mean,
                diff.p99,
                diff.max
            );
        }
        Err(_) => {
            let _ = std::fs::create_dir_all(golden_dir());
            image.write_png(&path).unwrap_or_else(|e| panic!("{e}"));
            eprintln!("{name}: no golden; wrote {}", path.display());
        }
    }
}

/// Compiles `sources` (pallet path, bytes) under `manifest` in memory, with no errors, and
/// writes the pallet to `dir/<file>`; its path.
pub fn memory_pallet(
    dir: &Path,
    file: &str,
    manifest: &str,
    sources: Vec<(&str, Vec<u8>)>,
) -> PathBuf {
    let entries = sources
        .into_iter()
        .map(|(path, bytes)| SourceEntry {
            path: path.to_string(),
            kind: AssetKind::of(path)
                .unwrap_or_else(|e| panic!("{e}"))
                .unwrap_or_else(|| panic!("{path}: not an asset")),
            data: SourceData::Memory(Box::leak(bytes.into_boxed_slice())),
        })
        .collect();
    let out = compile_sources(
        Some(manifest),
        entries,
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let bytes = out.pallet.unwrap_or_else(|| panic!("no pallet"));
    let path = dir.join(file);
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// A started host stepped tick by tick on its own two-worker scheduler and frame timer, as
/// the frame loop does, with the script queries the tests read.
pub struct Run {
    /// The host.
    pub host: dh_engine::host::Host,
    scheduler: dh_jobs::Scheduler,
    timer: dh_jobs::FrameTimer,
}

impl Run {
    /// Wraps a started host.
    pub fn new(host: dh_engine::host::Host) -> Run {
        Run {
            host,
            scheduler: dh_jobs::Scheduler::new(2).unwrap_or_else(|e| panic!("{e}")),
            timer: dh_jobs::FrameTimer::new(),
        }
    }

    /// Steps `n` ticks.
    pub fn ticks(&mut self, n: u64) {
        for _ in 0..n {
            self.host
                .step(None, &self.scheduler, &self.timer)
                .unwrap_or_else(|e| panic!("{e}"));
            self.timer.end_frame();
        }
    }

    /// `name.property` as a number.
    pub fn num(&self, name: &str, property: &str) -> f32 {
        use dh_engine::script::{ScriptHost, Value};
        match self.host.query(name, property) {
            Ok(Value::Number(v)) => v as f32,
            other => panic!("{name}.{property}: {other:?}"),
        }
    }

    /// `name.property` as a flag.
    pub fn flag(&self, name: &str, property: &str) -> bool {
        use dh_engine::script::{ScriptHost, Value};
        match self.host.query(name, property) {
            Ok(Value::Bool(b)) => b,
            other => panic!("{name}.{property}: {other:?}"),
        }
    }
}

/// The host started on `map` with `pallets` mounted beside the core pallet, and the same
/// map loaded (folded) through a catalog of those pallets: what extraction reads.
pub fn host_and_map(
    pallets: &[PathBuf],
    map: &str,
) -> (
    dh_engine::host::Host,
    dh_engine::catalog::Catalog,
    dh_content::schema::map::Map,
) {
    let host = dh_engine::host::Host::start(&dh_engine::host::HostOptions {
        map: map.into(),
        pallets: pallets.to_vec(),
        sets: Vec::new(),
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut catalog = dh_engine::catalog::Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    for p in pallets {
        catalog.mount_file(p).unwrap_or_else(|e| panic!("{e}"));
    }
    let (_, m) = catalog.load_map(map).unwrap_or_else(|e| panic!("{e}"));
    (host, catalog, m)
}

// ---- Fixtures, devices and the two commands ----------------------------------------------

/// A shared fixture's path (`../shared/fixtures/<rel>`), or `None` with a printed line
/// saying it is absent (copyleft and large fixtures are read in place, never copied).
pub fn fixture_path(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures")
        .join(rel);
    if p.is_file() {
        Some(p)
    } else {
        println!("skipping: the fixture {} is absent", p.display());
        None
    }
}

/// Whether a Vulkan driver is named (scripts/test.sh names lavapipe); says so when not.
pub fn vulkan_named() -> bool {
    let named = std::env::var_os("VK_DRIVER_FILES").is_some()
        || std::env::var_os("VK_ICD_FILENAMES").is_some();
    if !named {
        println!(
            "skipping: no Vulkan driver named (VK_DRIVER_FILES); scripts/test.sh names lavapipe"
        );
    }
    named
}

/// `dh-engine render` with `o`: how it ended, its stdout and its stderr.
pub fn render_captured(
    o: &dh_engine::render_cmd::RenderOptions,
) -> (dh_engine::run::Outcome, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = dh_engine::render_cmd::render(o, &mut out, &mut err);
    (
        outcome,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// `dh-engine run` with `o` (no progress display): how it ended, its stdout and stderr.
pub fn run_captured(o: &dh_engine::run::RunOptions) -> (dh_engine::run::Outcome, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = dh_engine::run::run(o, false, &mut out, &mut err);
    (
        outcome,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// The lines of `log` that appear more than once, each once.
pub fn repeated_lines(log: &str) -> Vec<&str> {
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for l in log.lines().filter(|l| !l.trim().is_empty()) {
        *seen.entry(l).or_default() += 1;
    }
    seen.into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(l, _)| l)
        .collect()
}
