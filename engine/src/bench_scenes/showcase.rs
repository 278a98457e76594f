//! The main job's scene: what `dh-engine bench` runs with no SCENE (issue 18 item 1). One
//! map that exercises every phase of a frame:
//!
//! * the core logic demo (`core:maps/logic-map.dh-map`, inherited whole: its buttons,
//!   door, timer, or gate, lamp, bouncing platform, lift and three crates), with the logic
//!   bench's scripted pawns pressing its buttons and riding its lift
//!   ([`crate::run::logic_map_bench_script`]);
//! * more physics props: a stack of [`EXTRA_CRATES`] core crates dropped beside the room;
//! * a Minecraft-platform voxel volume of generated terrain ([`SIZE`] cells, the
//!   [`super::terrain`] generator: stone, dirt, grass, sand, water, oak trees, torches)
//!   under the room, streaming around a camera that circles the room ([`camera_at`]) under
//!   `client.voxel.streamRadius` [`STREAM_RADIUS`] m, so regions mesh and light ahead of
//!   it and unload behind it all run long;
//! * a `walker` pawn spawned on dry land of the terrain and walking the whole run, so the
//!   collision streamer cooks the chunks around it (spec `dh.voxel`, "Collision and
//!   surfaces"), beside the room's pawns.
//!
//! The voxel payload is not a file of the core pallet (a few hundred KiB of cells every
//! engine start would compile): [`Showcase::build`] generates it, compiles it with the
//! showcase map into pallet `dh.showcase` in a temporary folder (removed on drop), and the
//! run mounts that beside the core pallet. The map inherits the core logic map by barcode,
//! which every pallet reaches without declaring a dependency (spec `dh.map`, "Materials").

use std::f32::consts::TAU;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use dh_content::compile::{compile_sources, AssetKind, CompileOptions, SourceData, SourceEntry};
use dh_content::schema::voxel::MINECRAFT;
use dh_content::voxel::payload::{encode, Grid, GridInfo, VoxelPayload};
use dh_gpu::render::frame::{Projection, View};
use dh_jobs::{FrameTimer, Scheduler};
use glam::{Quat, Vec3};

use super::terrain::{self, Terrain, AIR, TORCH, WATER};
use super::SceneError;
use crate::voxel::stream::{VoxelStreamer, Work};
use crate::voxel::MapChunks;

/// The name `dh-engine bench showcase` takes (the same scene as no SCENE).
pub const SHOWCASE: &str = "showcase";
/// The map the scene runs.
pub const SHOWCASE_MAP: &str = "dh.showcase:maps/showcase.dh-map";
/// Ticks (and so rendered frames) without `--ticks`: one camera lap.
pub const SHOWCASE_TICKS: u64 = 240;
/// The offscreen size frames render at.
pub const SHOWCASE_RENDER: [u32; 2] = [320, 180];
/// The terrain's cells on x, y and z (16-cell chunks).
pub const SIZE: [i32; 3] = [256, 80, 256];
/// The tests' terrain ([`Showcase::build`] with `tiny`): the same generator, smaller.
pub const TINY_SIZE: [i32; 3] = [96, 80, 96];
/// The volume's cell (0, 0, 0) sits at (-x/2, this, -z/2): centered under the room, the
/// highest hills (about 62 cells) a few meters under its floor (y = 0).
pub const ORIGIN_Y: f32 = -68.0;
/// `client.voxel.streamRadius` the scene runs with (the spec's 128 m would hold the whole
/// terrain resident after the first seconds; ours).
pub const STREAM_RADIUS: f32 = 64.0;
/// The camera's height on its lap, meters.
pub const CAMERA_HEIGHT: f32 = 18.0;
/// Crates stacked beside the room on top of the logic map's three.
pub const EXTRA_CRATES: usize = 12;
/// Preferences the scene sets before the user's `--set`s: the stream radius. (The
/// streaming threads are replaced by jobs of the frame: see [`stream_jobs`].)
pub const SHOWCASE_SETS: &[&str] = &["client.voxel.streamRadius=64"];

/// The generated pallet, on disk while this lives.
#[derive(Debug)]
pub struct Showcase {
    /// The compiled `dh.showcase` pallet.
    pub pallet: PathBuf,
    dir: PathBuf,
    /// The walker's feet position (map meters) and yaw (degrees).
    pub walker: ([f32; 3], f32),
    /// How long generating and compiling took.
    pub built_in: Duration,
    /// Bytes of the voxel payload.
    pub payload_bytes: usize,
    /// The terrain's cells on x, y and z.
    pub size: [i32; 3],
}

impl Drop for Showcase {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn setup(message: String) -> SceneError {
    SceneError::Setup {
        scene: SHOWCASE,
        message,
    }
}

/// The terrain: hills between about 34 and 62 cells, water at and below 52.
fn world(size: [i32; 3]) -> MapChunks {
    let mut w = terrain::world(&Terrain {
        size,
        base: 34.0,
        hills: (22.0, 64),
        bumps: (6.0, 16),
    });
    // A torch on the ground every 24 cells, so the light field has block light to spread.
    for z in (12..size[2]).step_by(24) {
        for x in (12..size[0]).step_by(24) {
            let y = ground(&w, size, x, z);
            if y > 0 && y < size[1] && w.get([x, y - 1, z]) != WATER {
                w.set([x, y, z], TORCH);
            }
        }
    }
    w.compact();
    w
}

/// The lowest cell of column (x, z) with only air above it.
fn ground(w: &MapChunks, size: [i32; 3], x: i32, z: i32) -> i32 {
    let mut y = size[1];
    while y > 0 && w.get([x, y - 1, z]) == AIR {
        y -= 1;
    }
    y
}

fn payload(w: &MapChunks, size: [i32; 3]) -> VoxelPayload {
    let mut p = VoxelPayload {
        palette: terrain::palette(TORCH),
        ..VoxelPayload::default()
    };
    p.header.platform = MINECRAFT.into();
    p.header.voxel_size = 1.0;
    p.header.chunk_edge = 16;
    p.grids
        .push(Grid::new(GridInfo::new("terrain", [0, 0, 0], size)));
    for z in 0..size[2] {
        for y in 0..size[1] {
            for x in 0..size[0] {
                let v = w.get([x, y, z]);
                if v != AIR {
                    p.set_cell(0, 0, [x, y, z], v);
                }
            }
        }
    }
    p
}

/// The map position of the volume's cell (0, 0, 0).
fn origin(size: [i32; 3]) -> [f32; 3] {
    [-(size[0] / 2) as f32, ORIGIN_Y, -(size[2] / 2) as f32]
}

/// Where the walker starts: the first dry column (its top not water) going out from two
/// thirds of the way across on +x, facing -x (yaw 90: yaw 0 faces -Z), so it walks toward
/// the middle.
fn walker_start(w: &MapChunks, size: [i32; 3]) -> ([f32; 3], f32) {
    let (x0, z) = (size[0] * 2 / 3, size[2] * 2 / 3);
    let x = (x0..size[0] - 2)
        .find(|&x| {
            let y = ground(w, size, x, z);
            y > 0 && w.get([x, y - 1, z]) != WATER && w.get([x, y - 1, z]) != TORCH
        })
        .unwrap_or(x0);
    let y = ground(w, size, x, z);
    let o = origin(size);
    (
        [
            o[0] + x as f32 + 0.5,
            o[1] + y as f32 + 0.1,
            o[2] + z as f32 + 0.5,
        ],
        90.0,
    )
}

/// The showcase map: the core logic map inherited, the terrain volume and the crates.
fn map_json(size: [i32; 3]) -> String {
    let o = origin(size);
    let mut crates = String::new();
    for i in 0..EXTRA_CRATES {
        // Three columns of four, 0.6 m apart, 0.55 m a layer, outside the east wall.
        let (col, layer) = (i % 3, i / 3);
        crates.push_str(&format!(
            ",\n    {{ \"$type\": \"instance\", \"id\": \"6a3e0c52-5d1b-4c8e-9a70-{:012x}\", \"name\": \"showcaseCrate{i}\", \"source\": \"core:objects/physicsCube.dh-obj\", \"position\": [{:.2}, {:.2}, 2], \"rotation\": [0, {}, 0] }}",
            0x100 + i,
            6.0 + 0.6 * col as f32,
            0.3 + 0.55 * layer as f32,
            (i * 17) % 90
        ));
    }
    format!(
        r#"// dh.showcase:maps/showcase: the main job's scene (dh-engine bench).
{{
  "name": "Showcase",
  "description": "The core logic demo over generated Minecraft-platform terrain, with more crates.",
  "inherits": "core:maps/logic-map.dh-map",
  "objects": [
    {{ "$type": "object", "id": "6a3e0c52-5d1b-4c8e-9a70-000000000001", "name": "terrain", "position": [{}, {}, {}],
      "components": [ {{ "$type": "dh.voxelVolume", "volume": "/voxels/terrain.dh-vox" }} ] }}{crates}
  ]
}}
"#,
        o[0], o[1], o[2]
    )
}

impl Showcase {
    /// Generates the terrain ([`SIZE`], or [`TINY_SIZE`] when `tiny`) and compiles
    /// pallet `dh.showcase` into a fresh folder under `temp` (the system's temporary
    /// folder when `None`).
    pub fn build(temp: Option<&Path>, tiny: bool) -> Result<Showcase, SceneError> {
        let t = Instant::now();
        let size = if tiny { TINY_SIZE } else { SIZE };
        let w = world(size);
        let walker = walker_start(&w, size);
        let shards = encode(&payload(&w, size))
            .map_err(|e| setup(format!("the terrain payload does not encode: {e}")))?;
        let payload_bytes = shards.iter().map(Vec::len).sum();
        let mut sources: Vec<(String, Vec<u8>)> = vec![
            (
                "voxels/terrain.dh-vox".into(),
                format!(r#"{{ "platform": "{MINECRAFT}", "data": "terrain.dh-vox.bin" }}"#)
                    .into_bytes(),
            ),
            ("maps/showcase.dh-map".into(), map_json(size).into_bytes()),
        ];
        for (n, shard) in shards.into_iter().enumerate() {
            let n = u16::try_from(n).map_err(|_| setup("too many payload shards".into()))?;
            sources.push((
                dh_content::pallet::voxel_shard_name("voxels/terrain.dh-vox.bin", n),
                shard,
            ));
        }
        // The sources go to disk first (the compiler's in-memory sources are 'static).
        let base = temp.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let dir = base.join(format!(
            "dh-showcase-{}-{}",
            std::process::id(),
            t.elapsed().as_nanos()
        ));
        let mut entries = Vec::new();
        for (path, bytes) in &sources {
            let kind = AssetKind::of(path)
                .map_err(|e| setup(format!("{path}: {e}")))?
                .ok_or_else(|| setup(format!("{path}: not an asset")))?;
            let disk = dir.join("src").join(path);
            if let Some(parent) = disk.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| setup(format!("cannot create {}: {e}", parent.display())))?;
            }
            std::fs::write(&disk, bytes)
                .map_err(|e| setup(format!("cannot write {}: {e}", disk.display())))?;
            entries.push(SourceEntry {
                path: path.clone(),
                kind,
                data: SourceData::Disk(disk),
            });
        }
        drop(sources);
        let manifest = r#"{ "id": "dh.showcase", "name": "Showcase", "version": "1.0.0", "dependencies": [] }"#;
        let out = compile_sources(
            Some(manifest),
            entries,
            &CompileOptions {
                write: true,
                progress: None,
            },
        );
        let fail = |message: String| {
            let _ = std::fs::remove_dir_all(&dir);
            setup(message)
        };
        if out.diagnostics.has_errors() {
            return Err(fail(format!(
                "the generated pallet does not build:\n{}",
                out.diagnostics
            )));
        }
        let Some(bytes) = out.pallet else {
            return Err(fail("the generated pallet's build wrote nothing".into()));
        };
        let pallet = dir.join("showcase.pallet");
        let written = std::fs::write(&pallet, bytes);
        let showcase = Showcase {
            pallet,
            dir,
            size,
            walker,
            built_in: t.elapsed(),
            payload_bytes,
        };
        written.map_err(|e| setup(format!("cannot write {}: {e}", showcase.pallet.display())))?;
        Ok(showcase)
    }

    /// The camera lap's radius: 0.3 of the terrain's width (77 m on [`SIZE`]), so the
    /// stream radius reaches past the lap on both sides.
    pub fn lap_radius(&self) -> f32 {
        self.size[0] as f32 * 0.3
    }

    /// The scene's script for `ticks` ticks: the logic bench's pawns, and the walker
    /// walking forward the whole run.
    pub fn script(&self, ticks: u64) -> String {
        let base = crate::run::logic_map_bench_script(ticks);
        let ([x, y, z], yaw) = self.walker;
        let walker = format!("spawn walker {x} {y} {z} {yaw}\nmove walker 1 0 {ticks}\n");
        // After the comment line, before the first wait.
        match base.split_once('\n') {
            Some((head, rest)) => format!("{head}\n{walker}{rest}"),
            None => format!("{walker}{base}"),
        }
    }
}

/// Wall time a frame spends working the streaming queue as jobs (ours: what a 60 Hz frame
/// spares beside the tick and the render on two cores).
pub const STREAM_JOB_BUDGET: Duration = Duration::from_millis(6);

/// Streaming tasks run as jobs, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamWork {
    /// Regions meshed.
    pub meshed: usize,
    /// Light slices run.
    pub lit: usize,
    /// Volumes opened.
    pub opened: usize,
    /// Time in each: mesh, light, open.
    pub time: [Duration; 3],
}

impl StreamWork {
    /// Adds `o`'s counts and times.
    pub fn add(&mut self, o: StreamWork) {
        self.meshed += o.meshed;
        self.lit += o.lit;
        self.opened += o.opened;
        for (a, b) in self.time.iter_mut().zip(o.time) {
            *a += b;
        }
    }
}

/// Works `streamer`'s queue (its `client.voxel.workers` 0) as one job a scheduler thread
/// until the queue has nothing to run or `budget` of wall time has passed, and hands the
/// frame timer the phases `voxel mesh`, `voxel light` and `voxel open` (the jobs' time,
/// every thread together). What finished is taken in by the streamer's next update.
pub fn stream_jobs(
    streamer: &VoxelStreamer,
    scheduler: &Scheduler,
    timer: &FrameTimer,
    budget: Duration,
) -> StreamWork {
    let start = Instant::now();
    let done = Mutex::new(StreamWork::default());
    scheduler.scope(|s| {
        for _ in 0..scheduler.threads() {
            s.spawn(|_| {
                let mut w = StreamWork::default();
                while start.elapsed() < budget {
                    let t = Instant::now();
                    match streamer.work_one() {
                        None => break,
                        Some(Work::Meshed(_)) => {
                            w.meshed += 1;
                            w.time[0] += t.elapsed();
                        }
                        Some(Work::Lit(_)) => {
                            w.lit += 1;
                            w.time[1] += t.elapsed();
                        }
                        Some(Work::Opened(_)) => {
                            w.opened += 1;
                            w.time[2] += t.elapsed();
                        }
                    }
                }
                if let Ok(mut d) = done.lock() {
                    d.add(w);
                }
            });
        }
    });
    let w = done.into_inner().unwrap_or_default();
    for (name, n, t) in [
        ("voxel mesh", w.meshed, w.time[0]),
        ("voxel light", w.lit, w.time[1]),
        ("voxel open", w.opened, w.time[2]),
    ] {
        if n > 0 {
            timer.add_phase_time(name, t);
        }
    }
    w
}

/// The camera at frame `frame` of `frames`: on a lap of radius `r` at [`CAMERA_HEIGHT`]
/// around the room's middle, looking at the point 20 m under the middle (the terrain
/// around the room).
pub fn camera_at(frame: u64, frames: u64, r: f32) -> View {
    let a = TAU * frame as f32 / frames.max(1) as f32;
    let h = CAMERA_HEIGHT;
    let position = Vec3::new(r * a.cos(), h, r * a.sin());
    let dir = (Vec3::new(0.0, -20.0, 0.0) - position).normalize_or(Vec3::NEG_Z);
    // Yaw 0 looks down -Z; the pitch turns about the camera's X.
    let yaw = (-dir.x).atan2(-dir.z);
    let pitch = dir.y.clamp(-1.0, 1.0).asin();
    View {
        position,
        rotation: Quat::from_rotation_y(yaw) * Quat::from_rotation_x(pitch),
        projection: Projection::Perspective { fov_y: 60.0 },
        near: 0.1,
        far: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_camera_looks_at_the_middle_from_its_lap() {
        // Frame 0: at (80, 18, 0); the target (0, -20, 0) is 80 m toward -x and 38 m down,
        // so the view's forward (-Z turned by its rotation) is (-80, -38, 0) normalized.
        let v = camera_at(0, 600, 80.0);
        assert!((v.position - Vec3::new(80.0, 18.0, 0.0)).length() < 1e-4);
        let f = v.rotation * Vec3::NEG_Z;
        let want = Vec3::new(-80.0, -38.0, 0.0).normalize();
        assert!((f - want).length() < 1e-4, "{f} != {want}");
        // A quarter lap later: at (0, 18, 80), looking toward -z and down.
        let v = camera_at(150, 600, 80.0);
        let f = v.rotation * Vec3::NEG_Z;
        let want = Vec3::new(0.0, -38.0, -80.0).normalize();
        assert!((f - want).length() < 1e-3, "{f} != {want}");
    }

    #[test]
    fn the_script_spawns_the_walker_before_the_first_wait() {
        let s = Showcase {
            pallet: PathBuf::new(),
            dir: PathBuf::from("/nonexistent-dh-showcase"),
            walker: ([1.5, -20.0, 2.5], 90.0),
            built_in: Duration::ZERO,
            payload_bytes: 0,
            size: TINY_SIZE,
        };
        let text = s.script(320);
        let walker = text.find("spawn walker 1.5 -20 2.5 90\nmove walker 1 0 320\n");
        let wait = text.find("wait ");
        assert!(walker.is_some() && walker < wait, "{text}");
        crate::script::parse("showcase", &text).unwrap_or_else(|e| panic!("{e}"));
    }
}
