//! Issue 19, "a new user's first day": the places a new author got stuck, each pinned by a
//! test that failed before the fix.

use std::path::PathBuf;

use dh_engine::render_cmd::{render, RenderOptions};
use dh_engine::run::Outcome;

/// A fresh scratch folder for one test.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dh-first-day-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// Whether a Vulkan driver is named (scripts/test.sh names lavapipe); says so when not.
fn vulkan() -> bool {
    let named = std::env::var_os("VK_DRIVER_FILES").is_some()
        || std::env::var_os("VK_ICD_FILENAMES").is_some();
    if !named {
        println!(
            "skipping: no Vulkan driver named (VK_DRIVER_FILES); scripts/test.sh names lavapipe"
        );
    }
    named
}

fn render_capture(o: &RenderOptions) -> (Outcome, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = render(o, &mut out, &mut err);
    (
        outcome,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// Regression: `render --script` with a script ending in `wait 128 ticks` took its capture
/// after one tick (0.016 s at 64 Hz); the wait is honoured, so the shot is at 2 s. A failed
/// `expect` is said again as the last line, and the run exits 1 after its captures.
#[test]
fn render_honours_a_closing_wait_and_sums_up_failed_expects() {
    if !vulkan() {
        return;
    }
    let dir = scratch("render-wait");
    let script = dir.join("wait.dhs");
    std::fs::write(&script, "wait 128 ticks\n").unwrap_or_else(|e| panic!("{e}"));
    let options = RenderOptions {
        outdir: dir.join("shots"),
        map: "logic-map".into(),
        camera: Some("lampView".into()),
        size: Some([32, 32]),
        script: Some(script.clone()),
        ..RenderOptions::default()
    };
    let (outcome, out, err) = render_capture(&options);
    assert_eq!(outcome, Outcome::Done, "{err}");
    assert!(out.contains("camera 'lampView' at 2.000 s"), "{out}");

    std::fs::write(
        &script,
        "wait 2 ticks\nexpect lamp.on == true\nexpect lamp.on == false\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (outcome, out, err) = render_capture(&options);
    assert_eq!(outcome, Outcome::Failed, "{err}");
    assert!(
        out.contains("lampView.png"),
        "the capture is still taken: {out}"
    );
    assert_eq!(
        err.lines().last().unwrap_or_default(),
        format!(
            "dh-engine: 1 of 2 expects failed: {}:2: expectation failed at tick 2: expect lamp.on == true (actual lamp.on = false)",
            script.display()
        ),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
