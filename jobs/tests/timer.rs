//! The frame timer: percentiles by hand, phases, GPU passes, jobs, and the three
//! outputs (table, JSON, Chrome trace).

use std::time::Duration;

use dh_jobs::{FrameTimer, FrameTimerConfig, JobGraph, JobsError, Lane, Scheduler};
use serde_json::Value;

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// Frame times 1..=100 ms, in a scrambled order.
fn hundred_frames(timer: &FrameTimer) {
    for k in 0..100u64 {
        let v = (k * 37) % 100 + 1; // a permutation of 1..=100
        timer.end_frame_with_duration(ms(v));
    }
}

#[test]
fn frame_time_percentiles_by_hand() {
    let timer = FrameTimer::with_config(FrameTimerConfig {
        window: 100,
        budget: Duration::from_micros(16_667),
        ..FrameTimerConfig::default()
    });
    hundred_frames(&timer);
    let r = timer.report();
    assert_eq!(r.frames, 100);
    assert_eq!(r.first_frame, 0);
    // Nearest rank over 1..=100: p50 = 50, p95 = 95, p99 = 99.
    assert!(close(r.frame_ms.p50, 50.0), "{:?}", r.frame_ms);
    assert!(close(r.frame_ms.p95, 95.0));
    assert!(close(r.frame_ms.p99, 99.0));
    assert!(close(r.frame_ms.max, 100.0));
    assert!(close(r.frame_ms.mean, 50.5));
    // 17..=100 ms are over a 16.667 ms budget.
    assert_eq!(r.over_budget, 84);
    assert!(close(r.budget_ms, 16.667));
}

#[test]
fn the_window_rolls() {
    let timer = FrameTimer::with_config(FrameTimerConfig {
        window: 10,
        ..FrameTimerConfig::default()
    });
    for v in 1..=25u64 {
        timer.end_frame_with_duration(ms(v));
    }
    let r = timer.report();
    assert_eq!(r.frames, 10);
    assert_eq!(r.first_frame, 15);
    // The window holds 16..=25 ms: p50 = rank 5 = 20, p95 = rank 10 = 25.
    assert!(close(r.frame_ms.p50, 20.0));
    assert!(close(r.frame_ms.p95, 25.0));
    assert!(close(r.frame_ms.mean, 20.5));
    assert_eq!(timer.current_frame(), 25);
}

#[test]
fn phase_mean_and_p95_by_hand() {
    let timer = FrameTimer::new();
    for v in 1..=20u64 {
        // "sim" twice a frame: v ms + 1 ms; "gc" only every 5th frame.
        timer.add_phase_time("sim", ms(v));
        timer.add_phase_time("sim", ms(1));
        if v % 5 == 0 {
            timer.add_phase_time("gc", ms(v * 10));
        }
        timer.end_frame_with_duration(ms(16));
    }
    let r = timer.report();
    let sim = r.phases.iter().find(|p| p.name == "sim").unwrap();
    assert_eq!(sim.frames, 20);
    assert!(close(sim.calls_per_frame, 2.0));
    // per-frame totals 2..=21: mean 11.5, p95 = rank 19 = 20, max 21
    assert!(close(sim.mean_ms, 11.5), "{sim:?}");
    assert!(close(sim.p95_ms, 20.0));
    assert!(close(sim.max_ms, 21.0));
    let gc = r.phases.iter().find(|p| p.name == "gc").unwrap();
    // 50, 100, 150, 200 over the 4 frames it occurred in
    assert_eq!(gc.frames, 4);
    assert!(close(gc.mean_ms, 125.0));
    assert!(close(gc.p95_ms, 200.0));
    // Sorted by descending mean.
    assert_eq!(r.phases[0].name, "gc");
}

#[test]
fn scopes_nest_and_count_per_thread() {
    let timer = FrameTimer::new();
    let s = Scheduler::new(2).unwrap();
    for _ in 0..4 {
        {
            let _outer = timer.scope("outer");
            for _ in 0..3 {
                let _inner = timer.scope("inner");
                std::hint::black_box((0..100).sum::<u32>());
            }
        }
        s.parallel_for(&[0u8; 64], 8, |_, _| {
            let _job = timer.scope("job");
        });
        timer.end_frame();
    }
    let r = timer.report();
    assert_eq!(r.frames, 4);
    let find = |n: &str| r.phases.iter().find(|p| p.name == n).unwrap().clone();
    assert!(close(find("outer").calls_per_frame, 1.0));
    assert!(close(find("inner").calls_per_frame, 3.0));
    assert!(close(find("job").calls_per_frame, 64.0));
    assert!(find("outer").mean_ms >= find("inner").mean_ms);
    assert_eq!(r.dropped_scopes, 0);
    assert!(r.frame_ms.max > 0.0);
}

#[test]
fn full_rings_drop_and_count() {
    let timer = FrameTimer::with_config(FrameTimerConfig {
        ring_capacity: 8,
        ..FrameTimerConfig::default()
    });
    for _ in 0..20 {
        drop(timer.scope("s"));
    }
    timer.end_frame();
    let r = timer.report();
    assert_eq!(r.phases[0].calls_per_frame, 8.0);
    assert_eq!(r.dropped_scopes, 12);
}

#[test]
fn gpu_passes_resolve_frames_later() {
    let timer = FrameTimer::with_config(FrameTimerConfig {
        window: 3,
        ..FrameTimerConfig::default()
    });
    assert!(
        !timer.record_gpu_pass(5, "shadow", 1.0),
        "a frame that has not started"
    );
    assert!(
        timer.record_gpu_pass(0, "shadow", 1.0),
        "the frame in progress"
    );
    let f0 = timer.end_frame_with_duration(ms(10));
    let f1 = timer.end_frame_with_duration(ms(10));
    assert_eq!((f0, f1), (0, 1));
    assert!(timer.record_gpu_pass(f1, "shadow", 3.0));
    assert!(timer.record_gpu_pass(f1, "main", 4.0));
    assert!(timer.record_gpu_pass(f1, "main", 1.0)); // same pass twice: summed
    assert!(!timer.record_gpu_pass(f1, "main", f64::NAN));
    assert!(!timer.record_gpu_pass(f1, "main", -1.0));
    timer.end_frame_with_duration(ms(10));
    timer.end_frame_with_duration(ms(10));
    assert!(
        !timer.record_gpu_pass(0, "late", 1.0),
        "frame 0 left the window"
    );
    let r = timer.report();
    // Window: frames 1, 2, 3; frame 0's shadow pass left with it.
    let shadow = r.gpu_passes.iter().find(|p| p.name == "shadow").unwrap();
    assert_eq!(shadow.frames, 1);
    assert!(close(shadow.mean_ms, 3.0));
    let main = r.gpu_passes.iter().find(|p| p.name == "main").unwrap();
    assert!(close(main.mean_ms, 5.0));
    assert!(close(main.calls_per_frame, 2.0));
}

#[test]
fn job_statistics_per_frame() {
    let timer = FrameTimer::new();
    let s = Scheduler::new(2).unwrap();
    let _ = s.take_stats();
    for _ in 0..3 {
        let mut g = JobGraph::new();
        for _ in 0..10 {
            g.add(Lane::Critical, "j", || {});
        }
        s.run_graph(&mut g).unwrap();
        timer.record_job_stats(&s.take_stats());
        timer.end_frame();
    }
    let r = timer.report();
    let jobs = r.jobs.expect("jobs were recorded");
    assert_eq!(jobs.frames, 3);
    assert!(close(jobs.jobs_per_frame, 10.0));
    assert_eq!(jobs.idle_percent.len(), 2);
    assert!(jobs.idle_percent.iter().all(|p| (0.0..=100.0).contains(p)));
}

fn sample_timer() -> FrameTimer {
    let timer = FrameTimer::new();
    let s = Scheduler::new(2).unwrap();
    for frame in 0..5u64 {
        {
            let _f = timer.scope("frame \"body\"");
            let _a = timer.scope("a");
            let _b = timer.scope("b");
        }
        s.parallel_for(&[0u8; 16], 2, |_, _| drop(timer.scope("job")));
        timer.record_job_stats(&s.take_stats());
        timer.record_gpu_pass(frame, "opaque", 2.0);
        timer.end_frame();
    }
    timer
}

#[test]
fn json_output_parses_and_has_the_figures() {
    let timer = FrameTimer::with_config(FrameTimerConfig {
        window: 100,
        ..FrameTimerConfig::default()
    });
    hundred_frames(&timer);
    let v: Value = serde_json::from_str(&timer.report().to_json()).unwrap();
    assert_eq!(v["frames"], 100);
    assert_eq!(v["frame_ms"]["p50"].as_f64(), Some(50.0));
    assert_eq!(v["frame_ms"]["p95"].as_f64(), Some(95.0));
    assert_eq!(v["frame_ms"]["p99"].as_f64(), Some(99.0));
    assert_eq!(v["frame_ms"]["max"].as_f64(), Some(100.0));
    assert!(v["jobs"].is_null());

    let v: Value = serde_json::from_str(&sample_timer().report().to_json()).unwrap();
    for key in [
        "frames",
        "first_frame",
        "budget_ms",
        "over_budget",
        "dropped_scopes",
    ] {
        assert!(v[key].is_number(), "{key}");
    }
    let phases = v["phases"].as_array().unwrap();
    let names: Vec<&str> = phases.iter().map(|p| p["name"].as_str().unwrap()).collect();
    for n in ["frame \"body\"", "a", "b", "job"] {
        assert!(names.contains(&n), "{names:?}");
    }
    for p in phases {
        for key in ["frames", "calls_per_frame", "mean_ms", "p95_ms", "max_ms"] {
            assert!(p[key].is_number(), "{key}");
        }
    }
    assert_eq!(v["gpu_passes"][0]["name"], "opaque");
    assert_eq!(v["gpu_passes"][0]["mean_ms"].as_f64(), Some(2.0));
    assert_eq!(v["jobs"]["idle_percent"].as_array().unwrap().len(), 2);
}

#[test]
fn chrome_trace_parses_and_nests() {
    let report = sample_timer().report();
    let path = std::env::temp_dir().join(format!("dh-jobs-trace-{}.json", std::process::id()));
    report.write_chrome_trace(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let v: Value = serde_json::from_str(&text).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let mut complete = Vec::new();
    let mut thread_names = Vec::new();
    for e in events {
        assert!(e["name"].is_string());
        assert!(e["pid"].is_u64());
        assert!(e["tid"].is_u64());
        match e["ph"].as_str().unwrap() {
            "X" => {
                let ts = e["ts"].as_f64().unwrap();
                let dur = e["dur"].as_f64().unwrap();
                assert!(ts >= 0.0 && dur >= 0.0);
                complete.push((
                    e["name"].as_str().unwrap(),
                    e["tid"].as_u64().unwrap(),
                    ts,
                    dur,
                ));
            }
            "M" => {
                if e["name"] == "thread_name" {
                    thread_names.push(e["args"]["name"].as_str().unwrap().to_owned());
                }
            }
            other => panic!("unexpected phase {other}"),
        }
    }
    assert!(thread_names.iter().any(|n| n == "frames"));
    let frames = complete
        .iter()
        .filter(|e| e.0.starts_with("frame ") && e.1 == 0)
        .count();
    assert_eq!(frames, 5);
    assert_eq!(complete.iter().filter(|e| e.0 == "job").count(), 5 * 16);
    // Each "b" lies inside an "a" on the same thread.
    let a: Vec<_> = complete.iter().filter(|e| e.0 == "a").collect();
    let b: Vec<_> = complete.iter().filter(|e| e.0 == "b").collect();
    assert_eq!(a.len(), 5);
    for inner in b {
        assert!(a.iter().any(|outer| outer.1 == inner.1
            && outer.2 <= inner.2
            && inner.2 + inner.3 <= outer.2 + outer.3 + 0.001));
    }
}

#[test]
fn writing_a_trace_to_a_bad_path_is_an_error() {
    let report = FrameTimer::new().report();
    let err = report
        .write_chrome_trace("/nonexistent-dir-for-dh-jobs/trace.json")
        .unwrap_err();
    assert!(matches!(err, JobsError::Write { .. }));
}

#[test]
fn table_lists_everything() {
    let table = sample_timer().report().to_table();
    for needle in [
        "frame time (ms)",
        "p50",
        "p95",
        "p99",
        "max",
        "phase (cpu ms)",
        "job",
        "gpu pass (ms)",
        "opaque",
        "jobs/frame",
        "idle %",
    ] {
        assert!(table.contains(needle), "missing {needle:?} in\n{table}");
    }
}

#[test]
fn empty_report_is_valid() {
    let r = FrameTimer::new().report();
    assert_eq!(r.frames, 0);
    assert!(serde_json::from_str::<Value>(&r.to_json()).is_ok());
    assert!(serde_json::from_str::<Value>(&r.chrome_trace_json()).is_ok());
    assert!(!r.to_table().is_empty());
}
