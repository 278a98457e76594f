//! `dh-engine render <outdir>`: headless captures from the map's named cameras
//! (spec: dh.map, dh.camera; runtime assets, "A map's thumbnail").
//!
//! The map installs, the world runs `--worldSeconds` (or until `--script` ends), and every
//! named camera (or the one `--camera` names, by name or id) is photographed into
//! `<outdir>/<camera>.png` as `R8G8B8A8_SRGB` with an sRGB chunk. `--captureMapThumbnails`
//! shoots the map's `mapThumbnail` camera at its `thumbnailSize` into `<outdir>/thumbnail.png`
//! and `--thumbnailPng`. `--timeline FILE` names a camera per frame (`CAMERA [SECONDS]` a
//! line). With no Vulkan device the spec's last rung applies: a plain top-down plan of the
//! box brushes, drawn on the CPU, with a note.
//!
//! The map's voxel volumes join every shot ([`VoxelDraw::capture`]): streamed within
//! `client.voxel.captureRadius` of the shot's camera and landed, meshed and lit, before
//! it is taken. `--gpuTimings` streams them the live client's way instead
//! ([`VoxelDraw::settle_live`]) and says how many frames that took. `bench --render`
//! ([`BenchRender`]) draws them live: one streamer for the map, updated every frame with
//! the camera and never waited on, meshes uploaded under `client.voxel.uploadBudgetMs`.

use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dh_content::schema::map::Map;
use dh_gpu::render::camera::output_size;
use dh_gpu::render::exec::Task;
use dh_gpu::render::frame::{Projection, View};
use dh_gpu::render::plan::{top_down_plan, PLAN_NOTE};
use dh_gpu::render::{Executor, RenderFrame, Renderer, RendererDesc, ScopedThreads};
use dh_gpu::{Gpu, GpuDesc, Validation};
use dh_jobs::{FrameTimer, Scheduler};
use glam::{Quat, Vec3};

use crate::catalog::Catalog;
use crate::extract::{self, ExtractCache, Extracted, NamedCamera};
use crate::host::{Host, HostOptions};
pub use crate::options::RenderOptions;
use crate::options::{Outcome, UsageError};
use crate::prefs::Prefs;
use crate::script::{self, ScriptRunner};
use crate::voxel::draw::VoxelDraw;

/// Frames `--gpuTimings` streams the live way before it shoots regardless (at
/// [`LIVE_FRAME`] each, ten seconds).
pub const LIVE_SETTLE_FRAMES: usize = 2500;
/// The frame time `--gpuTimings` streams at while it waits for the volumes to settle.
pub const LIVE_FRAME: Duration = Duration::from_millis(4);

/// `client.voxel.uploadBudgetMs` as the renderer takes it.
pub fn mesh_upload_budget(prefs: &Prefs) -> Duration {
    let ms = prefs.float32("client.voxel.uploadBudgetMs", 2.0);
    if ms.is_finite() && ms > 0.0 {
        Duration::from_secs_f64(f64::from(ms) / 1000.0)
    } else {
        Duration::ZERO
    }
}

/// `client.render.msaa` as the renderer takes it: the samples asked (the table holds only
/// 1, 2, 4 and 8, so the fallback is the default and never reached).
pub fn msaa(prefs: &Prefs) -> u32 {
    prefs
        .token("client.render.msaa")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(dh_gpu::render::DEFAULT_MSAA)
}

/// Applies a live change of `client.render.msaa` (a script's or the console's `set`) to
/// `renderer` before its next frame: the forward pipelines and targets follow the new
/// samples from that frame on. Returns the line to log when the device lowered them.
pub fn follow_msaa(renderer: &mut Renderer, prefs: &Prefs) -> Result<Option<String>, String> {
    let asked = msaa(prefs);
    if asked == renderer.msaa_asked() {
        return Ok(None);
    }
    renderer
        .set_msaa(asked)
        .map_err(|e| format!("client.render.msaa {asked}: {e}"))?;
    Ok(msaa_lowered_line(renderer))
}

/// The line to log when the device took fewer samples than `client.render.msaa` asked.
fn msaa_lowered_line(renderer: &Renderer) -> Option<String> {
    renderer.msaa_lowered().map(|(asked, taken)| {
        format!("client.render.msaa {asked}: this device's framebuffers take at most {taken} samples; rendering with {taken}")
    })
}

#[derive(Debug, thiserror::Error)]
enum RenderError {
    #[error(transparent)]
    Usage(#[from] UsageError),
    #[error(transparent)]
    Host(#[from] crate::host::HostError),
    #[error(transparent)]
    Catalog(#[from] crate::catalog::CatalogError),
    #[error("{0}")]
    Failed(String),
    /// A `--pallet` source folder that does not build (exit 1, as `dh build`).
    #[error(transparent)]
    Build(#[from] crate::source_pallet::FolderBuildError),
}

/// One shot: a camera and the world time to take it at.
struct Shot {
    camera: String,
    seconds: Option<f64>,
    file: String,
}

fn read_timeline(path: &Path) -> Result<Vec<Shot>, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read timeline {}: {e}", path.display())))?;
    let mut shots = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split_whitespace();
        let camera = parts.next().unwrap_or_default().to_string();
        let seconds = match parts.next() {
            Some(s) => match s.parse::<f64>() {
                Ok(t) if t.is_finite() && t >= 0.0 => Some(t),
                _ => {
                    return Err(UsageError(format!(
                        "{}:{}: a frame is 'CAMERA [SECONDS]'; '{s}' is not seconds ≥ 0",
                        path.display(),
                        n + 1
                    )))
                }
            },
            None => None,
        };
        let file = format!("frame{:04}-{camera}.png", shots.len());
        shots.push(Shot {
            camera,
            seconds,
            file,
        });
    }
    Ok(shots)
}

fn find_camera<'a>(cameras: &'a [NamedCamera], key: &str) -> Option<&'a NamedCamera> {
    cameras
        .iter()
        .find(|c| c.name == key)
        .or_else(|| cameras.iter().find(|c| c.id.eq_ignore_ascii_case(key)))
}

fn safe_file_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "camera".into()
    } else {
        s
    }
}

/// Runs `render`, writing to `out` and `err`.
pub fn render(o: &RenderOptions, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    match render_inner(o, out, err) {
        Ok(outcome) => outcome,
        Err(e) => {
            let _ = writeln!(err, "dh-engine: {e}");
            match e {
                RenderError::Usage(_) | RenderError::Catalog(_) => Outcome::Usage,
                RenderError::Host(
                    crate::host::HostError::Catalog(_) | crate::host::HostError::Pref(_),
                ) => Outcome::Usage,
                _ => Outcome::Failed,
            }
        }
    }
}

/// The world, advanced on demand.
struct World {
    host: Host,
    runner: Option<ScriptRunner>,
    scheduler: Scheduler,
    timer: FrameTimer,
}

impl World {
    fn advance_to(&mut self, ticks: u64, err: &mut dyn Write) -> Result<(), RenderError> {
        while self.host.tick() < ticks {
            let lines = self
                .host
                .step(self.runner.as_mut(), &self.scheduler, &self.timer)?;
            self.timer.end_frame();
            let _ = lines;
            for l in self.host.take_output() {
                let _ = writeln!(err, "{l}");
            }
            crate::run::report_failures(self.runner.as_mut(), err);
        }
        Ok(())
    }
}

fn render_inner(
    o: &RenderOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, RenderError> {
    std::fs::create_dir_all(&o.outdir)
        .map_err(|e| RenderError::Failed(format!("cannot create {}: {e}", o.outdir.display())))?;
    crate::source_pallet::prebuild(&o.pallets, err)?;
    let mut host = Host::start(&HostOptions {
        map: o.map.clone(),
        pallets: o.pallets.clone(),
        sets: o.sets.clone(),
    })?;
    // The load log prints once, before any tick: a shot at 0 s runs none, and its lines
    // were never printed (issue 19 item 5).
    for l in host.take_output() {
        let _ = writeln!(err, "{l}");
    }
    let mut catalog = Catalog::with_core()?;
    for p in &o.pallets {
        catalog.mount_file(p)?;
    }
    let (_, map) = catalog.load_map(&o.map)?;
    let runner = match &o.script {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| UsageError(format!("cannot read script {}: {e}", path.display())))?;
            Some(ScriptRunner::new(
                script::parse(&path.display().to_string(), &text)
                    .map_err(crate::host::HostError::from)?,
            ))
        }
        None => None,
    };
    let scheduler = Scheduler::new(Scheduler::default_threads())
        .map_err(|e| RenderError::Failed(format!("jobs: {e}")))?;
    let mut world = World {
        host,
        runner,
        scheduler,
        timer: FrameTimer::new(),
    };
    let rate = f64::from(world.host.tick_rate());
    let ticks_of = |s: f64| (s * rate).round() as u64;
    // The world time of the (first) shot: --worldSeconds, else the script's end, else 0.
    let start = match (&o.world_seconds, &world.runner) {
        (Some(s), _) => ticks_of(s.parse::<f64>().unwrap_or(0.0)),
        (None, Some(_)) => {
            let cap = ticks_of(600.0);
            while world
                .runner
                .as_ref()
                .is_some_and(|r| !r.finished(world.host.tick()))
                && world.host.tick() < cap
            {
                let t = world.host.tick() + 1;
                world.advance_to(t, err)?;
            }
            world.host.tick()
        }
        (None, None) => 0,
    };
    world.advance_to(start, err)?;

    // What to shoot.
    let first = extract::extract(&world.host, &catalog, &map);
    for m in &first.missing {
        let _ = writeln!(err, "dh-engine: {}", m.line());
    }
    for n in &first.notes {
        let _ = writeln!(err, "dh-engine: {n}");
    }
    for n in crate::gizmos::not_drawn(&world.host.prefs) {
        let _ = writeln!(err, "dh-engine: {n}");
    }
    let mut shots: Vec<Shot> = Vec::new();
    let mut overlay_notes: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut thumbnail = false;
    if o.capture_thumbnails {
        let cam = match &o.thumbnail_camera {
            Some(k) => find_camera(&first.cameras, k).ok_or_else(|| {
                RenderError::Failed(format!("--thumbnailCamera '{k}': the map has no camera by that name or id"))
            })?,
            None => first.cameras.iter().find(|c| c.thumbnail).ok_or_else(|| {
                RenderError::Failed(format!(
                    "{}: no camera carries \"role\": \"mapThumbnail\"; give a camera the role, or press Capture thumbnail on a camera card",
                    o.map
                ))
            })?,
        };
        thumbnail = true;
        shots.push(Shot {
            camera: cam.name.clone(),
            seconds: None,
            file: "thumbnail.png".into(),
        });
    } else if let Some(path) = &o.timeline {
        shots = read_timeline(path)?;
    } else if let Some(k) = &o.camera {
        let cam = find_camera(&first.cameras, k).ok_or_else(|| {
            let names: Vec<&str> = first.cameras.iter().map(|c| c.name.as_str()).collect();
            UsageError(format!(
                "--camera '{k}': no camera by that name or id; the map's cameras are {}",
                names.join(", ")
            ))
        })?;
        shots.push(Shot {
            camera: cam.name.clone(),
            seconds: None,
            file: format!("{}.png", safe_file_name(&cam.name)),
        });
    } else {
        for c in &first.cameras {
            shots.push(Shot {
                camera: c.name.clone(),
                seconds: None,
                file: format!("{}.png", safe_file_name(&c.name)),
            });
        }
    }
    for s in &shots {
        if find_camera(&first.cameras, &s.camera).is_none() {
            return Err(UsageError(format!("timeline: no camera named '{}'", s.camera)).into());
        }
    }

    // A device, or the plan.
    let gpu = Gpu::new(&GpuDesc {
        app_name: "dh-engine render".into(),
        validation: Validation::IfAvailable,
        ..GpuDesc::default()
    });
    let gpu = match gpu {
        Ok(g) => g,
        Err(e) => {
            let outcome = fallback(o, &first.frame, thumbnail, &e.to_string(), err)?;
            return Ok(expects_summary(&world, err).unwrap_or(outcome));
        }
    };
    let _ = writeln!(err, "dh-engine: rendering on {}", device_name(&gpu));
    let mut renderer = Renderer::with_desc(
        &gpu,
        &RendererDesc {
            timings: o.gpu_timings,
            mesh_upload_budget: mesh_upload_budget(&world.host.prefs),
            msaa: msaa(&world.host.prefs),
            ..RendererDesc::default()
        },
    )
    .map_err(|e| RenderError::Failed(format!("renderer: {e}")))?;
    if let Some(line) = msaa_lowered_line(&renderer) {
        let _ = writeln!(err, "dh-engine: {line}");
    }
    if o.gpu_timings && !renderer.has_timings() {
        let _ = writeln!(
            err,
            "dh-engine: --gpuTimings: this device has no timestamp queries"
        );
    }
    let mut current = first;
    let mut voxels = VoxelDraw::new(&world.host.prefs);
    for shot in &shots {
        if let Some(s) = shot.seconds {
            let t = ticks_of(s);
            if t > world.host.tick() {
                world.advance_to(t, err)?;
                current = extract::extract(&world.host, &catalog, &map);
            }
        }
        let Some(cam) = find_camera(&current.cameras, &shot.camera) else {
            continue;
        };
        let size = if thumbnail {
            output_size(None, None, Some(cam.thumbnail_size))
        } else {
            output_size(cam.aspect, o.size, None)
        };
        // The volumes around this shot's camera, landed before it is taken.
        let mut frame = current.frame.clone();
        if o.gpu_timings {
            let (frames, stats) = voxels.settle_live(
                &world.host,
                &cam.view,
                &mut frame,
                LIVE_SETTLE_FRAMES,
                LIVE_FRAME,
            );
            if stats.volumes > 0 {
                let _ = writeln!(
                    err,
                    "dh-engine: camera '{}': voxel volumes streamed the live way in {frames} frames: {} regions resident",
                    cam.name, stats.stream.resident
                );
            }
        } else {
            voxels.capture(&world.host, Some(&cam.view), &mut frame);
        }
        for l in voxels.take_log() {
            let _ = writeln!(err, "dh-engine: {l}");
        }
        if let Some(line) =
            follow_msaa(&mut renderer, &world.host.prefs).map_err(RenderError::Failed)?
        {
            let _ = writeln!(err, "dh-engine: {line}");
        }
        // A thumbnail is the map's world content only: no gizmos, labels or HUD (000:598).
        renderer.set_overlay(if thumbnail {
            dh_gpu::render::Overlay::default()
        } else {
            let (overlay, notes) =
                crate::gizmos::overlay_with_notes(&world.host, &world.host.prefs, &cam.view, size);
            // Each note once per run, however many shots hit it.
            for n in notes {
                if overlay_notes.insert(n.clone()) {
                    let _ = writeln!(err, "dh-engine: {n}");
                }
            }
            overlay
        });
        let result = renderer
            .render_with(&frame, &cam.view, size[0], size[1], &ScopedThreads)
            .map_err(|e| RenderError::Failed(format!("camera '{}': {e}", cam.name)))?;
        if let Some(f) = result.derived_far {
            let _ = writeln!(err, "dh-engine: camera '{}': orthographic with no far plane; derived far {f:.2} m from the map bounds", cam.name);
        }
        let path = o.outdir.join(&shot.file);
        result
            .image
            .write_png(&path)
            .map_err(|e| RenderError::Failed(e.to_string()))?;
        let _ = writeln!(
            out,
            "{}: camera '{}' at {:.3} s, {}x{}, {} lights, {} draws",
            path.display(),
            cam.name,
            world.host.tick() as f64 / rate,
            size[0],
            size[1],
            result.lights,
            result.draws
        );
        if thumbnail {
            if let Some(t) = &o.thumbnail_png {
                result
                    .image
                    .write_png(t)
                    .map_err(|e| RenderError::Failed(e.to_string()))?;
                let _ = writeln!(out, "{}: the map's thumbnail", t.display());
            }
        }
        for t in &result.timings {
            let _ = writeln!(
                out,
                "  gpu {:<14} {:>8.3} ms (lavapipe: CPU time)",
                t.name, t.ms
            );
        }
    }
    drop(renderer);
    let log = gpu.validation_log();
    drop(gpu);
    let errors = log.errors();
    if !errors.is_empty() {
        for e in &errors {
            let _ = writeln!(err, "dh-engine: validation: {e}");
        }
        return Ok(Outcome::Failed);
    }
    Ok(expects_summary(&world, err).unwrap_or(Outcome::Done))
}

/// The last line when a script's `expect`s failed (they are printed where they failed too):
/// `Failed` then, `None` when every one held.
fn expects_summary(world: &World, err: &mut dyn Write) -> Option<Outcome> {
    let line = world.runner.as_ref()?.summary()?;
    let _ = writeln!(err, "dh-engine: {line}");
    Some(Outcome::Failed)
}

/// The last rung: nothing can be photographed on this machine.
fn fallback(
    o: &RenderOptions,
    frame: &RenderFrame,
    thumbnail: bool,
    why: &str,
    err: &mut dyn Write,
) -> Result<Outcome, RenderError> {
    let _ = writeln!(err, "dh-engine: cannot photograph the map: {why}");
    let size = o.size.unwrap_or([512, 512]);
    let plan = top_down_plan(frame, size[0], size[1]);
    let path = o.outdir.join(if thumbnail {
        "thumbnail.png"
    } else {
        "plan.png"
    });
    plan.write_png(&path)
        .map_err(|e| RenderError::Failed(e.to_string()))?;
    let note = o.outdir.join("plan.note.txt");
    std::fs::write(&note, format!("{PLAN_NOTE}\nwhy: {why}\n"))
        .map_err(|e| RenderError::Failed(e.to_string()))?;
    let _ = writeln!(err, "dh-engine: {}: {PLAN_NOTE}", path.display());
    if thumbnail {
        if let Some(t) = &o.thumbnail_png {
            if t.exists() {
                let _ = writeln!(
                    err,
                    "dh-engine: {} kept: the last PNG captured stands (no capture: {why})",
                    t.display()
                );
            } else {
                plan.write_png(t)
                    .map_err(|e| RenderError::Failed(e.to_string()))?;
            }
        }
        return Ok(Outcome::Done);
    }
    Ok(Outcome::Failed)
}

/// The selected device's name and kind.
fn device_name(gpu: &Gpu) -> String {
    let r = gpu.report();
    r.adapters
        .get(r.selected)
        .map_or_else(String::new, |a| format!("{} ({:?})", a.name, a.kind))
}

/// The renderer's recording tasks as dh-jobs jobs: one scope, one job a task.
#[derive(Debug, Clone, Copy)]
pub struct JobsExecutor<'a>(pub &'a Scheduler);

impl Executor for JobsExecutor<'_> {
    fn execute<'t>(&self, tasks: Vec<Task<'t>>) {
        self.0.scope(|s| {
            for t in tasks {
                s.spawn(move |_| t());
            }
        });
    }
}

/// The camera `bench --render` shoots: the map's thumbnail camera, else its first named
/// camera, else a view from above the map's south edge looking at its middle.
pub fn default_camera(x: &Extracted) -> (String, View) {
    default_camera_around(x, None)
}

/// [`default_camera`], the map's middle taking in `voxels` too (the box of its voxel
/// volumes, [`crate::voxel::draw::volume_bounds`]: they join the frame only as they
/// stream in).
pub fn default_camera_around(x: &Extracted, voxels: Option<(Vec3, Vec3)>) -> (String, View) {
    if let Some(c) = x
        .cameras
        .iter()
        .find(|c| c.thumbnail)
        .or_else(|| x.cameras.first())
    {
        return (c.name.clone(), c.view);
    }
    let (lo, hi) = match (x.frame.bounds(), voxels) {
        (Some((a, b)), Some((c, d))) => (a.min(c), b.max(d)),
        (Some(b), None) | (None, Some(b)) => b,
        (None, None) => (Vec3::splat(-10.0), Vec3::splat(10.0)),
    };
    let center = (lo + hi) * 0.5;
    let span = (hi.x - lo.x).max(hi.z - lo.z).max(1.0);
    // 35 degrees down, from the south (+Z), far enough back to take the map in.
    let pitch = -35.0f32.to_radians();
    let back = span * 0.9;
    let position = Vec3::new(
        center.x,
        center.y + back * (-pitch).sin(),
        center.z + back * pitch.cos(),
    );
    let (s, c) = (pitch * 0.5).sin_cos();
    (
        "overview".into(),
        View {
            position,
            rotation: Quat::from_xyzw(s, 0.0, 0.0, c),
            projection: Projection::Perspective { fov_y: 60.0 },
            near: 0.1,
            far: None,
        },
    )
}

/// `dh-engine bench --render WxH`: after every tick the world is extracted and the default
/// camera rendered offscreen ([`Renderer::render_frame`], passes recorded as dh-jobs jobs,
/// uploads under the staging budget, at most two frames in flight). The frame timer gets the
/// CPU phases `extract`, `render` and `record` (the part of `render` spent recording), and
/// each frame's GPU pass times once they resolve, two frames later (lavapipe: CPU time).
pub struct BenchRender {
    renderer: Renderer,
    gpu: Gpu,
    catalog: Catalog,
    map: Map,
    cache: ExtractCache,
    voxels: VoxelDraw,
    /// The box of the map's voxel volumes, for the default camera.
    voxel_bounds: Option<(Vec3, Vec3)>,
    log: Vec<String>,
    size: [u32; 2],
    camera: String,
    /// (renderer frame, frame timer frame) of frames whose pass times are out.
    pending: VecDeque<(u64, u64)>,
    /// A view in place of the camera's (the showcase's moving camera).
    view: Option<View>,
    frames: u64,
    draws: usize,
    mesh_draws: usize,
    lights: usize,
}

impl std::fmt::Debug for BenchRender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BenchRender")
            .field("size", &self.size)
            .field("camera", &self.camera)
            .field("frames", &self.frames)
            .finish_non_exhaustive()
    }
}

impl BenchRender {
    /// A device, a renderer with `workers` recording workers, and the map `host` runs
    /// (read again from `pallets` for extraction).
    pub fn start(
        size: [u32; 2],
        pallets: &[PathBuf],
        host: &Host,
        workers: usize,
    ) -> Result<BenchRender, String> {
        let mut catalog = Catalog::with_core().map_err(|e| e.to_string())?;
        for p in pallets {
            catalog.mount_file(p).map_err(|e| e.to_string())?;
        }
        let (_, map) = catalog.load_map(host.map()).map_err(|e| e.to_string())?;
        let gpu = Gpu::new(&GpuDesc {
            app_name: "dh-engine bench".into(),
            ..GpuDesc::default()
        })
        .map_err(|e| format!("--render: {e}"))?;
        let renderer = Renderer::with_desc(
            &gpu,
            &RendererDesc {
                workers: workers.clamp(1, 4),
                mesh_upload_budget: mesh_upload_budget(&host.prefs),
                msaa: msaa(&host.prefs),
                ..RendererDesc::default()
            },
        )
        .map_err(|e| format!("--render: renderer: {e}"))?;
        // The device lowering the samples at start is said once, as `render` says it.
        let log: Vec<String> = msaa_lowered_line(&renderer).into_iter().collect();
        let mut cache = ExtractCache::new();
        let first = extract::extract_with(host, &catalog, &map, &mut cache);
        let voxel_bounds = crate::voxel::draw::volume_bounds(host);
        let (camera, _) = default_camera_around(&first, voxel_bounds);
        Ok(BenchRender {
            renderer,
            gpu,
            catalog,
            map,
            cache,
            voxels: VoxelDraw::new(&host.prefs),
            voxel_bounds,
            log,
            size,
            camera,
            pending: VecDeque::new(),
            view: None,
            frames: 0,
            draws: 0,
            mesh_draws: 0,
            lights: 0,
        })
    }

    /// The camera it shoots.
    pub fn camera(&self) -> &str {
        &self.camera
    }

    /// Streams the voxel volumes with no threads of their own from here on: the caller
    /// works the queue ([`crate::voxel::stream::VoxelStreamer::work_one`]) as jobs of its
    /// frame. Called before the first frame.
    pub fn stream_on_jobs(&mut self, host: &Host) {
        self.voxels = VoxelDraw::with_workers(&host.prefs, 0);
    }

    /// Shoots (and streams the voxel volumes around) `view` from the next frame on in
    /// place of the camera's; `None` goes back to the camera. `name` is what the summary
    /// line calls it.
    pub fn set_view(&mut self, name: &str, view: Option<View>) {
        if self.camera != name {
            self.camera = name.to_string();
        }
        self.view = view;
    }

    /// The samples the forward passes take now (`client.render.msaa` as the device allows).
    pub fn msaa(&self) -> u32 {
        self.renderer.msaa()
    }

    /// The device's one-line description.
    pub fn device(&self) -> String {
        device_name(&self.gpu)
    }

    fn record_timings(&mut self, timer: &FrameTimer, frame: u64, list: &[dh_gpu::PassTiming]) {
        while let Some(&(f, t)) = self.pending.front() {
            if f > frame {
                break;
            }
            self.pending.pop_front();
            if f == frame {
                for p in list {
                    timer.record_gpu_pass(t, &p.name, p.ms);
                }
            }
        }
    }

    /// The voxel drawer (its streamer's stats and the light window's volume).
    pub fn voxels(&self) -> &VoxelDraw {
        &self.voxels
    }

    /// Lines for the log since the last call: the voxel streamer's (open failures, the
    /// ceilings' one warning a map, lighting notes).
    pub fn take_log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.log)
    }

    /// Extracts and renders one frame into the frame timer's frame in progress: the map's
    /// voxel volumes stream around the camera (the streamer is updated, never waited on)
    /// and what is resident draws, new meshes uploading under
    /// `client.voxel.uploadBudgetMs`.
    pub fn frame(
        &mut self,
        host: &Host,
        scheduler: &Scheduler,
        timer: &FrameTimer,
    ) -> Result<(), String> {
        let mut x = {
            let _s = timer.scope("extract");
            extract::extract_with(host, &self.catalog, &self.map, &mut self.cache)
        };
        let view = self.view.unwrap_or_else(|| {
            x.cameras
                .iter()
                .find(|c| c.name == self.camera)
                .map_or_else(
                    || default_camera_around(&x, self.voxel_bounds).1,
                    |c| c.view,
                )
        });
        {
            let _s = timer.scope("voxels");
            self.voxels.frame(host, &view, &mut x.frame);
            self.log.extend(self.voxels.take_log());
        }
        self.renderer
            .set_mesh_upload_budget(mesh_upload_budget(&host.prefs));
        if let Some(line) = follow_msaa(&mut self.renderer, &host.prefs)? {
            self.log.push(line);
        }
        let report = {
            let _s = timer.scope("render");
            self.renderer
                .render_frame(
                    &x.frame,
                    &view,
                    self.size[0],
                    self.size[1],
                    &JobsExecutor(scheduler),
                )
                .map_err(|e| format!("--render: {e}"))?
        };
        timer.add_phase_time("record", report.record);
        self.pending
            .push_back((report.frame, timer.current_frame()));
        if let Some((f, list)) = &report.resolved {
            self.record_timings(timer, *f, list);
        }
        self.frames += 1;
        self.draws = report.draws;
        self.mesh_draws = report.mesh_draws;
        self.lights = report.lights;
        Ok(())
    }

    /// Waits for the last frames, hands their pass times to the timer, and says what was
    /// rendered.
    pub fn finish(mut self, timer: &FrameTimer) -> Result<String, String> {
        let rest = self.renderer.finish().map_err(|e| e.to_string())?;
        for (f, list) in rest {
            self.record_timings(timer, f, &list);
        }
        let r = self.gpu.report();
        let cpu = r
            .adapters
            .get(r.selected)
            .is_some_and(|a| a.kind == dh_gpu::DeviceKind::Cpu);
        Ok(format!(
            "rendered {} frames of camera '{}' at {}x{} offscreen ({} box draws, {} mesh draws, {} lights the last frame; {} voxel regions resident) on {}{}",
            self.frames,
            self.camera,
            self.size[0],
            self.size[1],
            self.draws,
            self.mesh_draws,
            self.lights,
            self.voxels.streamer().stats().resident,
            self.device(),
            if cpu {
                "; a CPU device: its gpu pass times are CPU time, a smoke figure"
            } else {
                ""
            }
        ))
    }
}
