//! `dh-engine bench --render WxH` on lavapipe: the default camera is rendered offscreen every
//! tick, and the frame timer's report carries the GPU pass times of every frame (they
//! resolve two frames later and the last ones when the run finishes) beside the CPU phases
//! `extract`, `render` and `record`.

use dh_engine::cli::RunOptions;
use dh_engine::run::{run, Outcome};

#[test]
fn bench_renders_every_frame_and_reports_gpu_passes() {
    dh_gpu::testing::lavapipe_env();
    let ticks = 12;
    let mut out = Vec::new();
    let mut err = Vec::new();
    let outcome = run(
        &RunOptions {
            // The logic demo (the default scene is the showcase, engine/tests/main_job.rs).
            map: Some("logic-map".into()),
            ticks: Some(ticks),
            workers: Some(2),
            json: true,
            quiet: true,
            render: Some([96, 64]),
            ..RunOptions::default()
        },
        true,
        &mut out,
        &mut err,
    );
    let out = String::from_utf8_lossy(&out);
    let err = String::from_utf8_lossy(&err);
    assert_eq!(outcome, Outcome::Done, "stderr:\n{err}");
    assert!(
        err.contains(&format!(
            "rendered {ticks} frames of camera 'overview' at 96x64"
        )),
        "{err}"
    );
    assert!(err.contains("gpu pass times are CPU time"), "{err}");
    // The report: one JSON object on stdout.
    let line = out
        .lines()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| panic!("no JSON report:\n{out}"));
    let find = |key: &str, name: &str| -> Option<u64> {
        // "name":"shadows","frames":12 — the number of frames a row has.
        let at = line.find(&format!("\"{key}\""))?;
        let rest = &line[at..];
        let row = rest.find(&format!("\"name\":\"{name}\""))?;
        let frames = &rest[row..];
        let n = frames.find("\"frames\":")? + "\"frames\":".len();
        let digits: String = frames[n..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    for pass in [
        "upload",
        "shadows",
        "depth prepass",
        "opaque + sky",
        "resolve",
    ] {
        assert_eq!(
            find("gpu_passes", pass),
            Some(ticks),
            "gpu pass {pass} in every frame: {line}"
        );
    }
    for phase in ["extract", "render", "record"] {
        assert_eq!(find("phases", phase), Some(ticks), "{phase}: {line}");
    }
}
