//! The core logic-map demo run headless through a script, tick by tick
//! (`tests/scripts/logic-demo.dhs`), and the determinism of a scripted run.

use std::path::PathBuf;

use dh_engine::cli::RunOptions;
use dh_engine::run::{run, Outcome};

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scripts")
        .join(name)
}

/// Runs `options` as `dh-engine run`, returning (outcome, stdout, stderr).
fn run_capture(options: &RunOptions) -> (Outcome, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let outcome = run(options, false, &mut out, &mut err);
    (
        outcome,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

fn demo_options() -> RunOptions {
    RunOptions {
        map: Some("logic-map".into()),
        script: Some(script("logic-demo.dhs")),
        workers: Some(2),
        json: true,
        ..RunOptions::default()
    }
}

#[test]
fn the_logic_map_demo_holds_tick_by_tick() {
    let (outcome, out, err) = run_capture(&demo_options());
    assert_eq!(outcome, Outcome::Done, "stderr:\n{err}");
    // The trace, written by hand from content/core/README.md's timings: the door pressed in
    // tick 2 arrives 80 ticks later; the lamp's timer fires 64 ticks after its press; the
    // platform turns at 128 and 256; the rider stands on the plate in tick 261, the lift
    // arrives 160 ticks later, and he steps off the plate in tick 438 (the lift home 160
    // ticks after).
    let trace: Vec<&str> = err.lines().filter(|l| l.starts_with('[')).collect();
    let want = [
        "[0] platformStart fired onMapStart -> platform.open",
        "[2] doorButton fired onPressed -> slidingDoor.toggle",
        "[2] lampButton fired onPressed -> lampTimer.fire",
        "[66] lampTimer fired onTimer -> lampOr.setA(true)",
        "[66] lampOr fired onTrue -> lamp.turnOn",
        "[82] slidingDoor fired onOpened",
        "[83] doorButton fired onPressed -> slidingDoor.toggle",
        "[128] platform fired onOpened -> platform.close",
        "[163] slidingDoor fired onClosed",
        "[164] lampButton fired onPressed -> lampTimer.fire",
        "[228] lampTimer fired onTimer -> lampOr.setA(true)",
        "[256] platform fired onClosed -> platform.open",
        "[261] liftPlate fired onStartTouch -> liftPlatform.open",
    ];
    assert_eq!(
        &trace[..want.len()],
        &want[..],
        "trace:\n{}",
        trace.join("\n")
    );
    let rest = &trace[want.len()..];
    assert!(
        rest.contains(&"[421] liftPlatform fired onOpened"),
        "{rest:?}"
    );
    let end_touch = rest
        .iter()
        .find(|l| l.ends_with("liftPlate fired onEndTouch -> liftPlatform.close"))
        .unwrap_or_else(|| panic!("no onEndTouch in {rest:?}"));
    let end_tick: u64 = end_touch[1..end_touch.find(']').unwrap_or(1)]
        .parse()
        .unwrap_or_else(|e| panic!("{end_touch}: {e}"));
    assert!((422..470).contains(&end_tick), "{end_touch}");
    let closed = format!("[{}] liftPlatform fired onClosed", end_tick + 160);
    assert!(rest.contains(&closed.as_str()), "{closed} not in {rest:?}");
    // The lamp's second press re-fired the timer but never the gate: one onTrue.
    assert_eq!(trace.iter().filter(|l| l.contains("onTrue")).count(), 1);
    // --json: the frame timer is JSON on stdout.
    assert!(out.trim_start().starts_with('{'), "{out}");
}

#[test]
fn two_runs_of_one_script_print_identical_traces() {
    let (a, _, trace_a) = run_capture(&demo_options());
    let mut two_workers = demo_options();
    two_workers.workers = Some(1);
    let (b, _, trace_b) = run_capture(&two_workers);
    let (c, _, trace_c) = run_capture(&demo_options());
    assert_eq!((a, b, c), (Outcome::Done, Outcome::Done, Outcome::Done));
    assert!(trace_a.lines().count() > 15);
    assert_eq!(trace_a, trace_c);
    assert_eq!(trace_a, trace_b, "one worker and two give one trace");
}

#[test]
fn a_failed_expect_fails_the_run_naming_the_line() {
    let dir = std::env::temp_dir().join(format!("dh-engine-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("fails.dhs");
    std::fs::write(
        &path,
        "# the door is shut until pressed\nwait 10 ticks\nexpect slidingDoor.open == 1\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (outcome, out, err) = run_capture(&RunOptions {
        map: Some("core:maps/logic-map.dh-map".into()),
        script: Some(path.clone()),
        ..RunOptions::default()
    });
    assert_eq!(outcome, Outcome::Failed);
    assert_eq!(outcome.code(), 1);
    let want = format!(
        "dh-engine: {}:3: expectation failed at tick 10: expect slidingDoor.open == 1 (actual slidingDoor.open = 0)",
        path.display()
    );
    assert!(err.lines().any(|l| l == want), "stderr:\n{err}");
    // The frame timer still prints. The run goes on after a failed expect as after one that
    // held: the tick the expect was checked before simulates too.
    assert!(
        out.contains("11 ticks of core:maps/logic-map.dh-map at 64 Hz"),
        "{out}"
    );
    // Regression (issue 19): the failure is said again as the run's last line, counted.
    let last = err.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!(
            "dh-engine: 1 of 1 expect failed: {}:3: expectation failed at tick 10: expect slidingDoor.open == 1 (actual slidingDoor.open = 0)",
            path.display()
        ),
        "stderr:\n{err}"
    );

    // A failed expect no longer stops the run: the next ones are checked, and counted.
    std::fs::write(
        &path,
        "wait 10 ticks\nexpect slidingDoor.open == 1\nexpect slidingDoor.open == 0\nwait 5 ticks\nexpect lamp.on == true\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (outcome, out, err) = run_capture(&RunOptions {
        map: Some("logic-map".into()),
        script: Some(path.clone()),
        ..RunOptions::default()
    });
    assert_eq!(outcome, Outcome::Failed);
    assert!(
        out.contains("16 ticks of core:maps/logic-map.dh-map"),
        "{out}"
    );
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!(
            "dh-engine: 2 of 3 expects failed: {}:2: expectation failed at tick 10",
            path.display()
        )),
        "stderr:\n{err}"
    );
    assert!(
        last.ends_with(&format!(
            "; {}:5: expectation failed at tick 15: expect lamp.on == true (actual lamp.on = false)",
            path.display()
        )),
        "stderr:\n{err}"
    );

    std::fs::write(&path, "wait 10 tick\nspawn\n").unwrap_or_else(|e| panic!("{e}"));
    let (outcome, _, err) = run_capture(&RunOptions {
        map: Some("logic-map".into()),
        script: Some(path.clone()),
        ..RunOptions::default()
    });
    assert_eq!(outcome.code(), 2);
    assert!(
        err.contains(&format!(
            "{}:2: usage: spawn <pawn> [x y z [yaw]]",
            path.display()
        )),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Regression (issue 19): a script whose last line is a `wait` ran one tick and stopped; the
/// wait is honoured, so `wait 100 ticks` alone is a run of 100 ticks.
#[test]
fn a_closing_wait_is_honoured() {
    let dir = std::env::temp_dir().join(format!("dh-engine-wait-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("wait.dhs");
    std::fs::write(&path, "# only a wait\nwait 100 ticks\n").unwrap_or_else(|e| panic!("{e}"));
    let (outcome, out, err) = run_capture(&RunOptions {
        map: Some("logic-map".into()),
        script: Some(path.clone()),
        ..RunOptions::default()
    });
    assert_eq!(outcome, Outcome::Done, "{err}");
    assert!(
        out.contains("100 ticks of core:maps/logic-map.dh-map at 64 Hz"),
        "{out}"
    );
    // Seconds too, after another command: 1.5 s at 64 Hz is 96 ticks.
    std::fs::write(&path, "spawn p 0 0 0\nwait 1.5 seconds\n").unwrap_or_else(|e| panic!("{e}"));
    let (outcome, out, err) = run_capture(&RunOptions {
        map: Some("logic-map".into()),
        script: Some(path.clone()),
        ..RunOptions::default()
    });
    assert_eq!(outcome, Outcome::Done, "{err}");
    assert!(
        out.contains("96 ticks of core:maps/logic-map.dh-map"),
        "{out}"
    );
    // --ticks shorter than the wait: the run says where the script stood.
    let (outcome, _, err) = run_capture(&RunOptions {
        map: Some("logic-map".into()),
        script: Some(path.clone()),
        ticks: Some(10),
        ..RunOptions::default()
    });
    assert_eq!(outcome, Outcome::Done, "{err}");
    assert!(
        err.contains(&format!(
            "the script stopped after 10 ticks at {}:2: wait 1.5 seconds",
            path.display()
        )),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn usage_errors_exit_2() {
    let (outcome, _, err) = run_capture(&RunOptions {
        map: Some("no-such-map".into()),
        ..RunOptions::default()
    });
    assert_eq!(outcome.code(), 2);
    assert!(
        err.starts_with("dh-engine: no map named 'no-such-map'"),
        "{err}"
    );
    let (outcome, _, err) = run_capture(&RunOptions {
        map: Some("logic-map".into()),
        sets: vec!["world.tickRate=0".into()],
        ..RunOptions::default()
    });
    assert_eq!(outcome.code(), 2);
    assert_eq!(
        err.trim(),
        "dh-engine: world.tickRate: 0 is out of range: it takes a whole number from 1 to 1024"
    );
    // Another tick rate runs: a run with neither --ticks nor a script is one second of it.
    let (outcome, out, err) = run_capture(&RunOptions {
        map: Some("logic-map".into()),
        sets: vec!["world.tickRate=32".into()],
        ..RunOptions::default()
    });
    assert_eq!(outcome, Outcome::Done, "{err}");
    assert!(
        out.contains("32 ticks of core:maps/logic-map.dh-map at 32 Hz"),
        "{out}"
    );
}

/// `bench logic-map` runs the logic demo (the default scene is the showcase since issue 18,
/// engine/tests/main_job.rs).
#[test]
fn bench_logic_map_runs_the_logic_demo() {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let outcome = run(
        &RunOptions {
            map: Some("logic-map".into()),
            ticks: Some(200),
            workers: Some(2),
            quiet: true,
            ..RunOptions::default()
        },
        true,
        &mut out,
        &mut err,
    );
    let out = String::from_utf8_lossy(&out);
    assert_eq!(outcome, Outcome::Done, "{}", String::from_utf8_lossy(&err));
    assert!(
        out.starts_with("200 ticks of core:maps/logic-map.dh-map at 64 Hz on 2 thread(s)"),
        "{out}"
    );
    assert!(out.contains("logic"), "{out}");
    assert!(out.contains("physics"), "{out}");
}

#[test]
fn walkers_print_identical_positions_on_every_run() {
    let options = |workers| RunOptions {
        map: Some("logic-map".into()),
        script: Some(script("walkers.dhs")),
        workers: Some(workers),
        json: true,
        ..RunOptions::default()
    };
    let (a, _, first) = run_capture(&options(2));
    let (b, _, second) = run_capture(&options(1));
    assert_eq!((a, b), (Outcome::Done, Outcome::Done), "{first}");
    assert_eq!(
        first.lines().filter(|l| l.starts_with("tick ")).count(),
        18,
        "{first}"
    );
    assert_eq!(first, second);
}
