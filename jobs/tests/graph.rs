//! The per-frame job graph: dependencies, continuations, exactly-once.

mod common;

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Mutex;

use common::Lcg;
use dh_jobs::{FrameTimer, JobGraph, JobsError, Lane, Scheduler};

/// Builds a random DAG (each job depends on up to 3 earlier ones), runs it and
/// checks that each job ran once, after all its prerequisites finished.
fn run_random_dag(s: &Scheduler, seed: u64, jobs: usize) {
    let mut rng = Lcg(seed);
    let clock = AtomicUsize::new(0);
    let started: Vec<AtomicUsize> = (0..jobs).map(|_| AtomicUsize::new(0)).collect();
    let finished: Vec<AtomicUsize> = (0..jobs).map(|_| AtomicUsize::new(0)).collect();
    let runs: Vec<AtomicU32> = (0..jobs).map(|_| AtomicU32::new(0)).collect();
    let mut edges = Vec::new();
    let mut graph = JobGraph::new();
    let mut ids = Vec::new();
    for i in 0..jobs {
        let (clock, started, finished, runs) = (&clock, &started, &finished, &runs);
        let lane = if rng.below(4) == 0 {
            Lane::Background
        } else {
            Lane::Critical
        };
        ids.push(graph.add(lane, "job", move || {
            started[i].store(clock.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
            runs[i].fetch_add(1, Ordering::SeqCst);
            std::hint::black_box((0..rng_work(i)).sum::<usize>());
            finished[i].store(clock.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
        }));
        if i > 0 {
            for _ in 0..rng.below(4) {
                let on = rng.below(i as u64) as usize;
                graph.depend(ids[i], ids[on]).unwrap();
                edges.push((i, on));
            }
        }
    }
    s.run_graph(&mut graph).unwrap();
    assert!(graph.is_empty());
    for (i, r) in runs.iter().enumerate() {
        assert_eq!(
            r.load(Ordering::SeqCst),
            1,
            "job {i} ran {} times",
            r.load(Ordering::SeqCst)
        );
    }
    for (job, on) in edges {
        let done = finished[on].load(Ordering::SeqCst);
        let start = started[job].load(Ordering::SeqCst);
        assert!(
            done < start,
            "job {job} started ({start}) before {on} finished ({done})"
        );
    }
}

fn rng_work(i: usize) -> usize {
    (i * 7919) % 300
}

#[test]
fn random_graphs_respect_dependencies_and_run_each_job_once() {
    for threads in [1, 2, 4] {
        let s = Scheduler::new(threads).unwrap();
        for seed in 0..5 {
            run_random_dag(&s, seed, 400);
        }
    }
}

#[test]
fn a_chain_runs_in_continuation_order() {
    let s = Scheduler::new(3).unwrap();
    for _frame in 0..20 {
        let order = Mutex::new(Vec::new());
        let mut g = JobGraph::new();
        let names = ["input", "logic", "physics", "extract", "record", "submit"];
        let mut prev = None;
        for name in names {
            let order = &order;
            let id = g.add(Lane::Critical, name, move || {
                order.lock().unwrap().push(name)
            });
            if let Some(p) = prev {
                g.depend(id, p).unwrap();
            }
            prev = Some(id);
        }
        s.run_graph(&mut g).unwrap();
        assert_eq!(*order.lock().unwrap(), names);
    }
}

#[test]
fn fan_out_fan_in() {
    let s = Scheduler::new(4).unwrap();
    let mut parts = vec![0u64; 64];
    let total = AtomicU32::new(0);
    let seen_by_join = AtomicU32::new(0);
    {
        let mut g = JobGraph::new();
        let start = g.add(Lane::Critical, "start", || {});
        let join = {
            let (total, seen_by_join) = (&total, &seen_by_join);
            g.add(Lane::Critical, "join", move || {
                seen_by_join.store(total.load(Ordering::SeqCst), Ordering::SeqCst);
            })
        };
        for (i, part) in parts.iter_mut().enumerate() {
            let total = &total;
            let id = g.add(Lane::Critical, "part", move || {
                *part = i as u64 * 2;
                total.fetch_add(1, Ordering::SeqCst);
            });
            g.depend(id, start).unwrap();
            g.depend(join, id).unwrap();
        }
        s.run_graph(&mut g).unwrap();
    }
    assert_eq!(seen_by_join.load(Ordering::SeqCst), 64);
    assert!(parts.iter().enumerate().all(|(i, p)| *p == i as u64 * 2));
}

#[test]
fn the_graph_is_reusable_frame_after_frame() {
    let s = Scheduler::new(2).unwrap();
    // A long-lived graph holds jobs that own (or share) their data...
    let counter = std::sync::Arc::new(AtomicU32::new(0));
    let mut g = JobGraph::new();
    for _ in 0..10 {
        let (c1, c2) = (counter.clone(), counter.clone());
        let a = g.add(Lane::Critical, "a", move || {
            c1.fetch_add(1, Ordering::SeqCst);
        });
        let b = g.add(Lane::Background, "b", move || {
            c2.fetch_add(1, Ordering::SeqCst);
        });
        g.depend(b, a).unwrap();
        s.run_graph(&mut g).unwrap();
        assert!(g.is_empty());
    }
    assert_eq!(counter.load(Ordering::SeqCst), 20);
    // ...while jobs that borrow frame data use a graph per frame.
    let mut frame_data = [0u32; 16];
    for frame in 1..=10u32 {
        let mut g = JobGraph::new();
        let (left, right) = frame_data.split_at_mut(8);
        let a = g.add(Lane::Critical, "left", move || {
            left.iter_mut().for_each(|x| *x += frame)
        });
        let b = g.add(Lane::Background, "right", move || {
            right.iter_mut().for_each(|x| *x += 1)
        });
        g.depend(b, a).unwrap();
        s.run_graph(&mut g).unwrap();
    }
    assert!(frame_data[..8].iter().all(|&x| x == 55));
    assert!(frame_data[8..].iter().all(|&x| x == 10));
}

#[test]
fn errors_leave_the_graph_untouched() {
    let s = Scheduler::new(2).unwrap();
    let ran = AtomicU32::new(0);
    let mut g = JobGraph::new();
    let a = g.add(Lane::Critical, "a", || {
        ran.fetch_add(1, Ordering::SeqCst);
    });
    let b = g.add(Lane::Critical, "b", || {
        ran.fetch_add(1, Ordering::SeqCst);
    });
    let c = g.add(Lane::Critical, "c", || {
        ran.fetch_add(1, Ordering::SeqCst);
    });
    g.depend(b, a).unwrap();
    g.depend(c, b).unwrap();
    g.depend(b, c).unwrap();
    let err = s.run_graph(&mut g).unwrap_err();
    assert!(matches!(err, JobsError::Cycle { .. }), "{err}");
    assert!(err.to_string().contains("cycle"));
    assert_eq!(g.len(), 3);
    assert_eq!(ran.load(Ordering::SeqCst), 0);

    let mut g = JobGraph::new();
    g.add_pinned(Lane::Critical, dh_jobs::Pin::Thread(9), "far", || {});
    let err = s.run_graph(&mut g).unwrap_err();
    assert!(matches!(
        err,
        JobsError::NoSuchThread {
            name: "far",
            index: 9,
            threads: 2
        }
    ));
    assert_eq!(g.len(), 1);

    let mut other = JobGraph::new();
    let x = other.add(Lane::Critical, "x", || {});
    let mut g = JobGraph::new();
    let y = g.add(Lane::Critical, "y", || {});
    assert!(matches!(g.depend(y, x), Err(JobsError::ForeignJob { .. })));
    g.clear();
    // Ids from before `clear` are stale.
    assert!(matches!(g.depend(y, y), Err(JobsError::ForeignJob { .. })));
}

#[test]
fn empty_graph_is_fine() {
    let s = Scheduler::new(2).unwrap();
    let mut g = JobGraph::new();
    s.run_graph(&mut g).unwrap();
}

#[test]
fn a_panicking_job_skips_the_rest_and_is_resumed() {
    let s = Scheduler::new(2).unwrap();
    let after = AtomicU32::new(0);
    let mut g = JobGraph::new();
    let bad = g.add(Lane::Critical, "bad", || panic!("bad job"));
    let next = g.add(Lane::Critical, "next", || {
        after.fetch_add(1, Ordering::SeqCst);
    });
    g.depend(next, bad).unwrap();
    let r = panic::catch_unwind(AssertUnwindSafe(|| s.run_graph(&mut g)));
    assert!(r.is_err());
    assert_eq!(after.load(Ordering::SeqCst), 0);
    // Still usable.
    let mut g = JobGraph::new();
    g.add(Lane::Critical, "ok", || {
        after.fetch_add(1, Ordering::SeqCst);
    });
    s.run_graph(&mut g).unwrap();
    assert_eq!(after.load(Ordering::SeqCst), 1);
}

#[test]
fn graph_jobs_can_run_parallel_loops() {
    let s = Scheduler::new(3).unwrap();
    let mut a = vec![0u32; 5000];
    let mut b = vec![0u32; 5000];
    {
        let mut g = JobGraph::new();
        let s = &s;
        let (ra, rb) = (&mut a, &mut b);
        g.add(Lane::Critical, "a", move || {
            s.parallel_for_mut(ra, 64, |i, x| *x = i as u32)
        });
        g.add(Lane::Background, "b", move || {
            s.parallel_for_mut(rb, 0, |i, x| *x = 2 * i as u32)
        });
        s.run_graph(&mut g).unwrap();
    }
    assert!(a.iter().enumerate().all(|(i, x)| *x == i as u32));
    assert!(b.iter().enumerate().all(|(i, x)| *x == 2 * i as u32));
}

#[test]
fn timed_graphs_record_a_scope_per_job() {
    let s = Scheduler::new(2).unwrap();
    let timer = FrameTimer::new();
    for _ in 0..3 {
        let mut g = JobGraph::new();
        let a = g.add(Lane::Critical, "simulate", || {});
        let b = g.add(Lane::Critical, "extract", || {});
        g.depend(b, a).unwrap();
        s.run_graph_timed(&mut g, &timer).unwrap();
        timer.end_frame();
    }
    let report = timer.report();
    for name in ["simulate", "extract"] {
        let p = report.phases.iter().find(|p| p.name == name).expect(name);
        assert_eq!(p.frames, 3);
        assert_eq!(p.calls_per_frame, 1.0);
    }
}
