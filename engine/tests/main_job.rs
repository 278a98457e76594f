//! The main job (issue 18 item 1): `dh-engine bench` with no SCENE runs the showcase
//! (`dh_engine::bench_scenes::showcase`) on lavapipe: every phase of a frame is in the
//! frame timer, the jobs row counts jobs, and the logic trace prints only with
//! `--log-trace` (or goes to its FILE). The tests run it on its small terrain
//! (`showcase_tiny`: 96 x 80 x 96 cells; a debug build takes minutes for the full one).

use std::path::PathBuf;

use dh_engine::cli::{LogTrace, RunOptions};
use dh_engine::run::{run, Outcome};
use dh_gpu::testing;

/// Frames the tests run: enough for the volume to open, regions to mesh and light, the
/// pawns to press their buttons on tick 0 and the GPU pass times of the first frames
/// to come back (two frames in flight).
const TICKS: u64 = 24;

fn bench(options: RunOptions) -> (Outcome, String, String) {
    testing::lavapipe_env();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = run(&options, true, &mut out, &mut err);
    (
        outcome,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// The frame timer's row for phase `name` (its first column is the name, padded).
fn row<'a>(table: &'a str, name: &str) -> Option<&'a str> {
    table.lines().find(|l| {
        l.strip_prefix(name)
            .is_some_and(|rest| rest.starts_with("  ") || rest.starts_with(' '))
            && l.split_whitespace().count() >= 6
    })
}

/// A row's `frames` column (the first number after the name).
fn frames_of(row: &str, name: &str) -> u64 {
    row[name.len()..]
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// One run for the two tests below that read the frame timer (the showcase takes a few
/// seconds to generate, and the engine's tests share two cores).
#[test]
fn the_default_bench_runs_the_showcase_through_every_phase() {
    let (outcome, out, err) = bench(RunOptions {
        ticks: Some(TICKS),
        workers: Some(2),
        showcase_tiny: true,
        ..RunOptions::default()
    });
    assert_eq!(outcome, Outcome::Done, "{err}\n{out}");
    assert!(
        out.contains(&format!(
            "{TICKS} ticks of dh.showcase:maps/showcase.dh-map at 64 Hz on 2 thread(s)"
        )),
        "{out}"
    );
    // Every phase of the frame ran in at least one frame: the voxel streaming jobs (mesh,
    // light), the collision streamer, the tick (logic, physics), the render (extract,
    // record) and the GPU passes.
    for phase in [
        "voxel mesh",
        "voxel light",
        "voxel collision",
        "logic",
        "physics",
        "extract",
        "record",
    ] {
        let r = row(&out, phase).unwrap_or_else(|| panic!("no '{phase}' row in\n{out}"));
        assert!(frames_of(r, phase) > 0, "'{phase}' ran in no frame: {r}");
    }
    let gpu = out
        .split("gpu pass (ms)")
        .nth(1)
        .unwrap_or_else(|| panic!("no gpu pass rows in\n{out}"));
    let passes: Vec<&str> = gpu
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("jobs/frame"))
        .collect();
    assert!(!passes.is_empty(), "{out}");
    // The jobs row: jobs ran every frame (the tick's logic and physics are two).
    let jobs = out
        .lines()
        .find_map(|l| l.strip_prefix("jobs/frame "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no jobs row in\n{out}"));
    assert!(jobs >= 2.0, "{jobs} jobs a frame\n{out}");
    assert!(out.contains("idle %"), "{out}");
    // The summary lines: what streamed, and what rendered.
    assert!(
        err.contains("dh-engine: showcase: terrain 96x80x96"),
        "{err}"
    );
    assert!(
        err.contains("rendered 24 frames of camera 'showcase lap'"),
        "{err}"
    );
    // No --log-trace: no trace line anywhere (the logic map's platformStart fires on
    // tick 0, so a trace would say `[0] platformStart fired onMapStart -> platform.open`).
    assert!(!out.contains("fired on"), "{out}");
    assert!(!err.contains("fired on"), "{err}");
}

#[test]
fn log_trace_file_gets_the_logic_trace() {
    let file: PathBuf =
        std::env::temp_dir().join(format!("dh-main-job-trace-{}.txt", std::process::id()));
    let (outcome, out, err) = bench(RunOptions {
        ticks: Some(TICKS),
        workers: Some(2),
        log_trace: Some(LogTrace::File(file.clone())),
        showcase_tiny: true,
        ..RunOptions::default()
    });
    let trace = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    assert_eq!(outcome, Outcome::Done, "{err}\n{out}");
    // The core logic map's platformStart (dh.mapStart) opens platform on tick 0, and the
    // rider, spawned on liftPlate, starts touching it on tick 0 (its two wires).
    assert!(
        trace.starts_with("[0] platformStart fired onMapStart -> platform.open\n"),
        "{trace}"
    );
    assert!(
        trace.contains("[0] liftPlate fired onStartTouch -> liftPlatform.open\n"),
        "{trace}"
    );
    assert!(trace.lines().all(|l| l.starts_with('[')), "{trace}");
    // Not printed as well.
    assert!(!out.contains("fired on"), "{out}");
    assert!(!err.contains("fired on"), "{err}");
}
