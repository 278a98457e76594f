//! The host's live switches and world preferences: `scene.disable` / `scene.enable` with
//! bodies, `world.tickRate` other than 64, `world.gravity` and `world.pawn.*`, `noclip`, and
//! a jump on a pawn's first tick. Expected values are worked out by hand in the scripts and
//! here.

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

/// Writes `text` as a script in a fresh folder and runs it on the logic-map with `sets`.
fn run_text(name: &str, text: &str, sets: &[&str]) -> (Outcome, String, String) {
    let dir = std::env::temp_dir().join(format!("dh-engine-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join(format!("{name}.dhs"));
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    let result = run_capture(&RunOptions {
        map: Some("logic-map".into()),
        script: Some(path),
        sets: sets.iter().map(|s| s.to_string()).collect(),
        workers: Some(1),
        json: true,
        ..RunOptions::default()
    });
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn trace_lines(err: &str) -> Vec<&str> {
    err.lines().filter(|l| l.starts_with('[')).collect()
}

#[test]
fn scene_disable_takes_the_door_away_and_enable_brings_it_back() {
    let (outcome, _, err) = run_capture(&RunOptions {
        map: Some("logic-map".into()),
        script: Some(script("scene-switch.dhs")),
        workers: Some(2),
        json: true,
        ..RunOptions::default()
    });
    assert_eq!(outcome, Outcome::Done, "stderr:\n{err}");
    let lines: Vec<&str> = err.lines().collect();
    for want in [
        "slidingDoor switches off in tick 0",
        "[0] slidingDoor switched off",
        // 1 + 70 + 70 ticks of waits.
        "slidingDoor switches on in tick 141",
        "[141] slidingDoor switched on",
        // The rider spawned in tick 212 (1 + 70 more) stands on the plate: onStartTouch in
        // 212; the plate switched off in tick 213 drains (onEndTouch closes the lift, home
        // in 214, having risen one tick); back on in 214 it finds the rider again.
        "[212] liftPlate fired onStartTouch -> liftPlatform.open",
        "[213] liftPlate switched off",
        "[213] liftPlate fired onEndTouch -> liftPlatform.close",
        "[214] liftPlatform fired onClosed",
        "[214] liftPlate switched on",
        "[214] liftPlate fired onStartTouch -> liftPlatform.open",
    ] {
        assert!(lines.contains(&want), "{want:?} not in:\n{err}");
    }
}

#[test]
fn at_128_hz_the_door_opens_over_160_ticks_and_a_second_is_128() {
    let (outcome, out, err) = run_capture(&RunOptions {
        map: Some("logic-map".into()),
        script: Some(script("rate-128.dhs")),
        sets: vec!["world.tickRate=128".into()],
        workers: Some(2),
        ..RunOptions::default()
    });
    assert_eq!(outcome, Outcome::Done, "stdout:\n{out}\nstderr:\n{err}");
    let trace = trace_lines(&out);
    // Pressed in tick 2: 160 ticks of travel, onOpened in 162. The platform (2 s) turns in
    // tick 256.
    assert!(
        trace.contains(&"[2] doorButton fired onPressed -> slidingDoor.toggle"),
        "{out}"
    );
    assert!(trace.contains(&"[162] slidingDoor fired onOpened"), "{out}");
    assert!(
        trace.contains(&"[256] platform fired onOpened -> platform.close"),
        "{out}"
    );
    // The last expects are due before tick 275 (2 + 1 + 61 + 19 + 192), which then runs.
    assert!(
        out.contains("276 ticks of core:maps/logic-map.dh-map at 128 Hz"),
        "{out}"
    );
}

#[test]
fn world_gravity_changes_a_fall() {
    // From rest over open floor, 10 ticks of 1/64 s fall g × 55 / 4096 m: 0.131717 m at the
    // default 9.81, half that (0.065859 m) at 4.905.
    let text = "spawn p 6 2 -3 0\nwait 10 ticks\nprint p.y\n";
    let (a, _, default) = run_text("gravity-default", text, &[]);
    let (b, _, half) = run_text("gravity-half", text, &["world.gravity=4.905"]);
    assert_eq!((a, b), (Outcome::Done, Outcome::Done), "{default}\n{half}");
    let y = |err: &str| -> f64 {
        let line = err
            .lines()
            .find(|l| l.starts_with("tick 10: p.y = "))
            .unwrap_or_else(|| panic!("no p.y in {err}"));
        line["tick 10: p.y = ".len()..]
            .parse()
            .unwrap_or_else(|e| panic!("{line}: {e}"))
    };
    assert!((y(&default) - (2.0 - 0.131717)).abs() < 0.002, "{default}");
    assert!((y(&half) - (2.0 - 0.065859)).abs() < 0.002, "{half}");
    // Live, from a script: no gravity, no fall.
    let (c, _, err) = run_text(
        "gravity-zero",
        "set world.gravity 0\nspawn p 6 2 -3 0\nwait 10 ticks\nexpect p.y == 2 within 0.0001\n",
        &[],
    );
    assert_eq!(c, Outcome::Done, "{err}");
}

#[test]
fn world_pawn_prefs_reach_the_physics_world_and_misfits_are_refused() {
    // A 2.5 m/s walk for 64 ticks is 2.5 m; a 0.5 m eye looks down at the floor 0.5 m below.
    let (a, _, err) = run_text(
        "pawn-prefs",
        "spawn p 6 0 -3 180\nmove p 1 0 64\nwait 65 ticks\nexpect p.z == -0.5 within 0.01\n",
        &["world.pawn.walkSpeed=2.5"],
    );
    assert_eq!(a, Outcome::Done, "{err}");
    let (b, _, err) = run_text("misfit", "wait 1 ticks\n", &["world.pawn.radius=1"]);
    assert_eq!(b.code(), 2);
    assert_eq!(
        err.trim(),
        "dh-engine: the physics preferences do not fit together: physics parameter 'pawn height' is 1.8, but it must be above twice the pawn radius"
    );
    // Live, a misfit is refused and the preference keeps its value.
    let (c, _, err) = run_text("misfit-live", "set world.pawn.radius 1\n", &[]);
    assert_eq!(c, Outcome::Failed);
    assert!(
        err.contains("set world.pawn.radius 1: the physics preferences do not fit together: physics parameter 'pawn height' is 1.8, but it must be above twice the pawn radius"),
        "{err}"
    );
}

#[test]
fn noclip_flies_through_the_door_when_allowed() {
    // Facing +Z from z 5 at 4 m/s for 64 ticks: 4 m, through the shut door to z 9; level
    // (pitch 0), so y stays 0. Off again over the floor it stands.
    let text = "spawn p -3 0 5 180\nnoclip p on\nexpect p.noclip == true\nmove p 1 0 64\nwait 70 ticks\nexpect p.z == 9 within 0.001\nexpect p.y == 0 within 0.001\nexpect slidingDoor.solid == true\nnoclip p\nwait 5 ticks\nexpect p.noclip == false\nexpect p.grounded == true\n";
    let (a, _, err) = run_text("noclip", text, &["world.noclipAllowed=true"]);
    assert_eq!(a, Outcome::Done, "{err}");
    assert!(err.lines().any(|l| l == "p: noclip on"), "{err}");
    assert!(err.lines().any(|l| l == "p: noclip off"), "{err}");
    let (b, _, err) = run_text("noclip-refused", text, &[]);
    assert_eq!(b, Outcome::Failed);
    assert!(
        err.contains(
            "noclip p on: noclip is not allowed on this world (world.noclipAllowed is false)"
        ),
        "{err}"
    );
}

#[test]
fn a_jump_pressed_with_the_spawn_is_taken_on_the_first_tick() {
    // A 4.5 m/s jump rises for 29 ticks to about 0.997 m; after 10 ticks it is at
    // (10 × 4.5 - 9.81/64 × 55) / 64 = 0.5714 m.
    let (a, _, err) = run_text(
        "first-jump",
        "spawn p 6 0 -3 0\njump p\nwait 10 ticks\nexpect p.y == 0.5714 within 0.002\n",
        &[],
    );
    assert_eq!(a, Outcome::Done, "{err}");
}

#[test]
fn prop_push_preferences_reach_the_physics_world() {
    use dh_engine::prefs::{Prefs, PROP_PUSH_REACH, PROP_PUSH_RESPONSE, PROP_PUSH_SPEED};
    let mut prefs = Prefs::new();
    // The table's defaults (spec 000:1048 names them; the values are ours).
    let p = dh_engine::host::physics_params(&prefs, 64).expect("defaults fit together");
    assert_eq!(
        [p.prop_push_speed, p.prop_push_response, p.prop_push_reach],
        [2.5, 1.0, 0.05]
    );
    prefs.set(PROP_PUSH_SPEED, "1.25").expect("in range");
    prefs.set(PROP_PUSH_RESPONSE, "0.5").expect("in range");
    prefs.set(PROP_PUSH_REACH, "0.1").expect("in range");
    let p = dh_engine::host::physics_params(&prefs, 64).expect("still fits");
    assert_eq!(
        [p.prop_push_speed, p.prop_push_response, p.prop_push_reach],
        [1.25, 0.5, 0.1]
    );
}
