//! `dh-engine run` and `dh-engine bench`: the fixed-tick loop around a [`Host`], its output,
//! and the frame timer at the end.

use std::io::Write;

use dh_jobs::{FrameTimer, Scheduler};

use crate::bench_scenes::showcase::{self, Showcase};
use crate::host::{Host, HostError, HostOptions};
use crate::options::UsageError;
pub use crate::options::{LogTrace, Outcome, RunOptions};
use crate::script::{self, ScriptRunner};

/// Ticks `run` takes with neither `--ticks` nor a script at the default 64 Hz: one second
/// (at another `world.tickRate`, one second of it).
pub const DEFAULT_RUN_TICKS: u64 = 64;
/// Ticks `bench` takes without `--ticks`: 100 seconds at 64 Hz.
pub const DEFAULT_BENCH_TICKS: u64 = 6400;
/// The map `bench` runs the logic bench's script on (`bench logic-map`; without a SCENE
/// bench runs the showcase, [`crate::bench_scenes::showcase`], which inherits it).
pub const DEFAULT_BENCH_SCENE: &str = "core:maps/logic-map.dh-map";

/// The bench scene's script for the core logic-map, for `ticks` ticks: `doorPawn` stands at
/// doorButton and presses it every 160 ticks (the door opens over 80 and closes over 80);
/// `lampPawn` presses lampButton every 160 ticks; `rider` stands on the lift's plate, rides
/// it up, walks backward off it once it is up (dropping to the floor, so the lift goes
/// home), and forward onto the plate again once it is home.
pub fn logic_map_bench_script(ticks: u64) -> String {
    let mut s = String::from(
        "# dh-engine bench: the core logic-map with scripted pawns\n\
         spawn doorPawn -3 0 1.9 180\n\
         turn doorPawn 180 -30\n\
         spawn lampPawn 3 0 1.9 180\n\
         turn lampPawn 180 -30\n\
         spawn rider 4 0.2 -9 0\n",
    );
    let mut t = 0u64;
    while t + 160 <= ticks {
        s.push_str("use doorPawn\n");
        s.push_str("use lampPawn\n");
        // The rider rides for 160 ticks, then steps off (back toward the room) and on again.
        if (t / 160) % 2 == 1 {
            s.push_str("move rider -1 0 24\n");
        } else if t > 0 {
            s.push_str("move rider 1 0 24\n");
        }
        s.push_str("wait 160 ticks\n");
        t += 160;
    }
    s
}

/// Where the logic trace goes.
fn trace_sink<'a>(json: bool, out: &'a mut dyn Write, err: &'a mut dyn Write) -> &'a mut dyn Write {
    if json {
        err
    } else {
        out
    }
}

/// Runs `run` (`bench` false) or `bench` (`bench` true), writing to `out` and `err`.
pub fn run(options: &RunOptions, bench: bool, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    match run_inner(options, bench, out, err) {
        Ok(o) => o,
        Err(e) => {
            let _ = writeln!(err, "dh-engine: {e}");
            match e {
                RunError::Usage(_) => Outcome::Usage,
                RunError::Host(
                    HostError::Catalog(_) | HostError::Pref(_) | HostError::Params(_),
                ) => Outcome::Usage,
                RunError::Host(HostError::Script(ref s))
                    if !s.is_expectation() && matches!(s, script::ScriptError::Parse(_)) =>
                {
                    Outcome::Usage
                }
                RunError::Host(_) | RunError::Io(_) | RunError::Build(_) => Outcome::Failed,
            }
        }
    }
}

#[derive(Debug, thiserror::Error)]
enum RunError {
    #[error(transparent)]
    Usage(#[from] UsageError),
    #[error(transparent)]
    Host(#[from] HostError),
    #[error("{0}")]
    Io(String),
    /// A `--pallet` source folder that does not build (exit 1, as `dh build`).
    #[error(transparent)]
    Build(#[from] crate::source_pallet::FolderBuildError),
}

/// `dh-engine bench <scene>` for a built-in scene ([`crate::bench_scenes::SCENES`]): it
/// takes `--workers` (the second meshing worker count) and nothing else of a map's.
fn run_scene(scene: &str, options: &RunOptions, out: &mut dyn Write) -> Result<Outcome, RunError> {
    let map_only = [
        (!options.pallets.is_empty(), "--pallet"),
        (options.ticks.is_some(), "--ticks"),
        (!options.sets.is_empty(), "--set"),
        (options.json, "--json"),
        (options.trace.is_some(), "--trace"),
        (options.render.is_some(), "--render"),
    ];
    if let Some((_, flag)) = map_only.iter().find(|(given, _)| *given) {
        return Err(UsageError(format!(
            "bench {scene} is a built-in scene and does not take {flag}"
        ))
        .into());
    }
    crate::bench_scenes::run_scene(
        scene,
        crate::bench_scenes::SceneSize::Full,
        options.workers,
        out,
    )
    .map_err(|e| RunError::Io(e.to_string()))?;
    Ok(Outcome::Done)
}

fn run_inner(
    options: &RunOptions,
    bench: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, RunError> {
    if let (true, Some(scene)) = (bench, options.map.as_deref()) {
        if crate::bench_scenes::is_scene(scene) {
            return run_scene(scene, options, out);
        }
    }
    // No SCENE (or `showcase`): the main job's showcase, generated and mounted.
    let showcase = if bench
        && options
            .map
            .as_deref()
            .is_none_or(|m| m == showcase::SHOWCASE)
    {
        Some(
            Showcase::build(None, options.showcase_tiny)
                .map_err(|e| RunError::Io(e.to_string()))?,
        )
    } else {
        None
    };
    let map = match (&options.map, bench, &showcase) {
        (_, _, Some(_)) => showcase::SHOWCASE_MAP.to_string(),
        (Some(m), _, None) => m.clone(),
        (None, true, None) => DEFAULT_BENCH_SCENE.to_string(),
        (None, false, None) => return Err(UsageError("run needs --map M".into()).into()),
    };
    crate::source_pallet::prebuild(&options.pallets, err)?;
    let mut pallets = options.pallets.clone();
    let mut sets = Vec::new();
    if let Some(s) = &showcase {
        pallets.push(s.pallet.clone());
        sets.extend(showcase::SHOWCASE_SETS.iter().map(|s| s.to_string()));
    }
    sets.extend(options.sets.iter().cloned());
    let mut host = Host::start(&HostOptions {
        map,
        pallets: pallets.clone(),
        sets,
    })?;
    let default_ticks = match (bench, &showcase) {
        (true, Some(_)) => showcase::SHOWCASE_TICKS,
        (true, None) => DEFAULT_BENCH_TICKS,
        (false, _) => DEFAULT_RUN_TICKS * u64::from(host.tick_rate()) / 64,
    };
    let mut runner = match (&options.script, bench) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| UsageError(format!("cannot read script {}: {e}", path.display())))?;
            Some(ScriptRunner::new(
                script::parse(&path.display().to_string(), &text).map_err(HostError::from)?,
            ))
        }
        (None, true) if host.map() == DEFAULT_BENCH_SCENE => {
            let ticks = options.ticks.unwrap_or(default_ticks);
            Some(ScriptRunner::new(
                script::parse("bench:logic-map", &logic_map_bench_script(ticks))
                    .map_err(HostError::from)?,
            ))
        }
        (None, _) => match &showcase {
            Some(s) => {
                let ticks = options.ticks.unwrap_or(default_ticks);
                Some(ScriptRunner::new(
                    script::parse("bench:showcase", &s.script(ticks)).map_err(HostError::from)?,
                ))
            }
            None => None,
        },
    };
    let threads = options.workers.unwrap_or_else(Scheduler::default_threads);
    let scheduler = Scheduler::new(threads).map_err(|e| HostError::Jobs(e.to_string()))?;
    let timer = FrameTimer::new();
    let mut render = match (bench, options.render, &showcase) {
        (true, Some(size), _) => Some(
            crate::render_cmd::BenchRender::start(size, &pallets, &host, threads)
                .map_err(RunError::Io)?,
        ),
        // The showcase renders when a device exists (lavapipe included), else says so.
        (true, None, Some(_)) => {
            match crate::render_cmd::BenchRender::start(
                showcase::SHOWCASE_RENDER,
                &pallets,
                &host,
                threads,
            ) {
                Ok(r) => Some(r),
                Err(why) => {
                    let _ = writeln!(
                        err,
                        "dh-engine: no Vulkan device ({why}): the showcase runs without rendering; the frame timer has no extract, record or gpu pass rows"
                    );
                    None
                }
            }
        }
        _ => None,
    };
    // The showcase streams on jobs of the frame; without a renderer it still streams its
    // volume around the camera.
    if let (Some(_), Some(r)) = (&showcase, render.as_mut()) {
        r.stream_on_jobs(&host);
    }
    let mut draw = match (&showcase, &render) {
        (Some(_), None) => Some(crate::voxel::draw::VoxelDraw::with_workers(&host.prefs, 0)),
        _ => None,
    };
    let mut trace_file = match (bench, &options.log_trace) {
        (true, Some(LogTrace::File(path))) => Some(std::io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| RunError::Io(format!("cannot write {}: {e}", path.display())))?,
        )),
        _ => None,
    };
    // `run` prints the trace unless --quiet; bench only with --log-trace.
    let print_trace = if bench {
        options.log_trace == Some(LogTrace::Print)
    } else {
        !options.quiet
    };
    let mut work = showcase::StreamWork::default();
    let _ = scheduler.take_stats();

    let limit = options
        .ticks
        .or(showcase.as_ref().map(|_| showcase::SHOWCASE_TICKS));
    let frames = limit.unwrap_or(default_ticks);
    let mut failure = None;
    loop {
        let done = match (limit, &runner) {
            (Some(n), _) => host.tick() >= n,
            (None, Some(r)) => r.finished(host.tick()),
            (None, None) => host.tick() >= default_ticks,
        };
        if done {
            break;
        }
        let frame = host.tick();
        let result = host.step(runner.as_mut(), &scheduler, &timer);
        let view = showcase
            .as_ref()
            .map(|s| showcase::camera_at(frame, frames, s.lap_radius()));
        if let Some(r) = render.as_mut() {
            if view.is_some() {
                r.set_view("showcase lap", view);
            }
            r.frame(&host, &scheduler, &timer).map_err(RunError::Io)?;
            // The voxel streamer's lines (open failures, the ceilings' warnings).
            for l in r.take_log() {
                let _ = writeln!(err, "dh-engine: {l}");
            }
        }
        if let (Some(d), Some(v)) = (draw.as_mut(), view.as_ref()) {
            let _s = timer.scope("voxels");
            d.frame(&host, v, &mut dh_gpu::render::RenderFrame::default());
            for l in d.take_log() {
                let _ = writeln!(err, "dh-engine: {l}");
            }
        }
        // The showcase's streaming work: jobs of this frame, not threads of their own.
        let streamer = render
            .as_ref()
            .map(|r| r.voxels().streamer())
            .or(draw.as_ref().map(|d| d.streamer()));
        if let (Some(_), Some(st)) = (&showcase, streamer) {
            work.add(showcase::stream_jobs(
                st,
                &scheduler,
                &timer,
                showcase::STREAM_JOB_BUDGET,
            ));
        }
        timer.record_job_stats(&scheduler.take_stats());
        timer.end_frame();
        if options.progress && frame % 8 == 0 {
            let _ = write!(
                err,
                "\rdh-engine bench: frame {}/{frames}{}\x1b[K",
                frame + 1,
                streamer.map_or_else(String::new, |st| {
                    let s = st.stats();
                    format!(
                        ", {} voxel regions resident, {} queued, {} light columns",
                        s.resident, s.queued, s.light_columns
                    )
                })
            );
            let _ = err.flush();
        }
        let output = host.take_output();
        report_failures(runner.as_mut(), err);
        let (lines, stop) = match result {
            Ok(lines) => (lines, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let to_file = trace_file.is_some();
        let sink: &mut dyn Write = match trace_file.as_mut() {
            Some(f) => f,
            None => trace_sink(options.json, out, err),
        };
        if print_trace || to_file {
            for l in lines {
                let _ = writeln!(sink, "{l}");
            }
        }
        for l in output {
            let _ = writeln!(sink, "{l}");
        }
        if let Some(e) = stop {
            failure = Some(e);
            break;
        }
    }
    if options.progress {
        let _ = write!(err, "\r\x1b[K");
    }
    // Commands due after the last tick (a closing `expect`) still run, against the end state.
    if failure.is_none() {
        if let Some(r) = runner.as_mut() {
            let tick = host.tick();
            if let Err(e) = r.run_due(&mut host, tick) {
                failure = Some(e.into());
            }
            for l in host.take_output() {
                match trace_file.as_mut() {
                    Some(f) => {
                        let _ = writeln!(f, "{l}");
                    }
                    None => {
                        let _ = writeln!(trace_sink(options.json, out, err), "{l}");
                    }
                }
            }
            report_failures(Some(r), err);
            if failure.is_none() && !r.finished(tick) {
                if let Some(at) = r.position() {
                    let _ = writeln!(
                        err,
                        "dh-engine: the script stopped after {tick} ticks at {at}"
                    );
                }
            }
        }
    }

    if let Some(mut f) = trace_file.take() {
        if let (Err(e), Some(LogTrace::File(path))) = (f.flush(), &options.log_trace) {
            return Err(RunError::Io(format!(
                "cannot write {}: {e}",
                path.display()
            )));
        }
    }
    if let Some(s) = &showcase {
        let st = render
            .as_ref()
            .map(|r| r.voxels().streamer().stats())
            .or(draw.as_ref().map(|d| d.streamer().stats()))
            .unwrap_or_default();
        let col = host.voxel_collision_stats();
        let _ = writeln!(
            err,
            "dh-engine: showcase: terrain {}x{}x{} ({:.1} MiB payload, generated and compiled in {:.1} s); streamed {} regions ({} resident at the end), {} light columns lit, in {} mesh, {} light and {} open jobs; {} collision bodies alive",
            s.size[0],
            s.size[1],
            s.size[2],
            s.payload_bytes as f64 / (1024.0 * 1024.0),
            s.built_in.as_secs_f64(),
            st.meshed,
            st.resident,
            st.light_columns,
            work.meshed,
            work.lit,
            work.opened,
            col.bodies
        );
    }
    if let Some(r) = render.take() {
        let line = r.finish(&timer).map_err(RunError::Io)?;
        let _ = writeln!(err, "dh-engine: {line}");
    }
    let report = timer.report();
    if options.json {
        let _ = writeln!(out, "{}", report.to_json());
    } else {
        let _ = writeln!(
            out,
            "{} ticks of {} at {} Hz on {} thread(s)",
            host.tick(),
            host.map(),
            host.tick_rate(),
            threads
        );
        let _ = write!(out, "{}", report.to_table());
    }
    if let Some(path) = &options.trace {
        report
            .write_chrome_trace(path)
            .map_err(|e| RunError::Io(format!("cannot write {}: {e}", path.display())))?;
    }
    // Where a person looks: the failed expects again, below the frame timer.
    let summary = runner.as_ref().and_then(ScriptRunner::summary);
    if let Some(line) = &summary {
        let _ = writeln!(err, "dh-engine: {line}");
    }
    match failure {
        None if summary.is_none() => Ok(Outcome::Done),
        None => Ok(Outcome::Failed),
        Some(e) => {
            let _ = writeln!(err, "dh-engine: {e}");
            Ok(Outcome::Failed)
        }
    }
}

/// Prints each `expect` that failed since the last call, where it failed.
pub(crate) fn report_failures(runner: Option<&mut ScriptRunner>, err: &mut dyn Write) {
    if let Some(r) = runner {
        for e in r.take_failures() {
            let _ = writeln!(err, "dh-engine: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_voxel_scene_refuses_a_maps_flags() {
        let options = RunOptions {
            map: Some("voxel-collision".into()),
            ticks: Some(3),
            ..RunOptions::default()
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(run(&options, true, &mut out, &mut err), Outcome::Usage);
        assert_eq!(
            String::from_utf8_lossy(&err),
            "dh-engine: bench voxel-collision is a built-in scene and does not take --ticks\nrun `dh-engine help` for usage\n"
        );
        assert!(out.is_empty());
    }

    #[test]
    fn the_bench_script_parses_and_spans_the_ticks() {
        let text = logic_map_bench_script(640);
        let s = script::parse("bench", &text).unwrap_or_else(|e| panic!("{e}"));
        let waits: u64 = s
            .lines
            .iter()
            .filter_map(|l| match l.command {
                script::Command::Wait(script::Wait::Ticks(n)) => Some(n),
                _ => None,
            })
            .sum();
        assert_eq!(waits, 640);
    }
}
