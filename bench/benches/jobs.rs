//! dh-jobs against rayon on the same machine and thread count: empty-job
//! spawn + wait, join, parallel-for overhead; and the frame timer's cost per
//! scope.
//!
//! `cargo bench -p dh-bench --bench jobs` (add `-- --warm-up-time 0.5
//! --measurement-time 2` for a quick run). Both schedulers get `DH_BENCH_THREADS`
//! threads in all (default 2); rayon's side runs inside its pool (`install`) so
//! that its calling thread is a worker, as ours is.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use dh_jobs::{FrameTimer, JobGraph, Lane, Scheduler};
use rayon::prelude::*;

fn threads() -> usize {
    std::env::var("DH_BENCH_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2)
}

fn pools() -> (Scheduler, rayon::ThreadPool) {
    let n = threads();
    let ours = Scheduler::new(n).expect("start dh-jobs workers");
    let theirs = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("start rayon pool");
    (ours, theirs)
}

fn spawn_wait(c: &mut Criterion) {
    let (ours, pool) = pools();
    let mut g = c.benchmark_group("spawn_wait");

    // Ours runs the measuring loop inside a scope, so the calling thread is
    // already the scheduler's main thread, as rayon's is inside `install`; the
    // `from_outside` variants pay for entering the scheduler on every call.
    g.bench_function("dh_jobs/scope_1_empty", |b| {
        ours.scope(|_| b.iter(|| ours.scope(|s| s.spawn(|_| black_box(())))))
    });
    g.bench_function("dh_jobs/scope_1_empty_from_outside", |b| {
        b.iter(|| ours.scope(|s| s.spawn(|_| black_box(()))))
    });
    g.bench_function("rayon/scope_1_empty", |b| {
        pool.install(|| b.iter(|| rayon::scope(|s| s.spawn(|_| black_box(())))))
    });

    g.bench_function("dh_jobs/scope_100_empty", |b| {
        ours.scope(|_| {
            b.iter(|| {
                ours.scope(|s| {
                    for _ in 0..100 {
                        s.spawn(|_| black_box(()));
                    }
                })
            })
        })
    });
    g.bench_function("rayon/scope_100_empty", |b| {
        pool.install(|| {
            b.iter(|| {
                rayon::scope(|s| {
                    for _ in 0..100 {
                        s.spawn(|_| black_box(()));
                    }
                })
            })
        })
    });

    g.bench_function("dh_jobs/join_empty", |b| {
        ours.scope(|_| b.iter(|| ours.join(|| black_box(1), || black_box(2))))
    });
    g.bench_function("dh_jobs/join_empty_from_outside", |b| {
        b.iter(|| ours.join(|| black_box(1), || black_box(2)))
    });
    g.bench_function("rayon/join_empty", |b| {
        pool.install(|| b.iter(|| rayon::join(|| black_box(1), || black_box(2))))
    });

    g.bench_function("dh_jobs/graph_100_empty", |b| {
        let mut graph = JobGraph::new();
        ours.scope(|_| {
            b.iter(|| {
                let mut prev = None;
                for i in 0..100 {
                    let id = graph.add(Lane::Critical, "empty", || black_box(()));
                    // Ten chains of ten.
                    if i % 10 != 0 {
                        if let Some(p) = prev {
                            graph.depend(id, p).expect("same graph");
                        }
                    }
                    prev = Some(id);
                }
                ours.run_graph(&mut graph).expect("acyclic");
            })
        })
    });
    g.finish();
}

fn parallel_for(c: &mut Criterion) {
    let (ours, pool) = pools();
    let mut g = c.benchmark_group("parallel_for");
    for len in [1_000usize, 100_000] {
        let mut data: Vec<u64> = (0..len as u64).collect();
        let chunk = 1024;
        g.bench_function(format!("dh_jobs/mut_{len}_chunk{chunk}"), |b| {
            ours.scope(|_| {
                b.iter(|| {
                    ours.parallel_for_mut(&mut data, chunk, |i, x| {
                        *x = x.wrapping_mul(3) ^ i as u64;
                    })
                })
            })
        });
        g.bench_function(format!("rayon/par_iter_mut_{len}_min{chunk}"), |b| {
            pool.install(|| {
                b.iter(|| {
                    data.par_iter_mut()
                        .with_min_len(chunk)
                        .enumerate()
                        .for_each(|(i, x)| *x = x.wrapping_mul(3) ^ i as u64)
                })
            })
        });
        g.bench_function(format!("rayon/par_chunks_mut_{len}_{chunk}"), |b| {
            pool.install(|| {
                b.iter(|| {
                    data.par_chunks_mut(chunk)
                        .enumerate()
                        .for_each(|(c, part)| {
                            for (k, x) in part.iter_mut().enumerate() {
                                *x = x.wrapping_mul(3) ^ (c * chunk + k) as u64;
                            }
                        })
                })
            })
        });
        g.bench_function(format!("serial/{len}"), |b| {
            b.iter(|| {
                for (i, x) in data.iter_mut().enumerate() {
                    *x = x.wrapping_mul(3) ^ i as u64;
                }
                black_box(&mut data);
            })
        });
    }
    g.finish();
}

/// Runs `n` scopes in batches that fit a thread's ring, ending a frame between
/// batches outside the measured time.
fn time_scopes(timer: &FrameTimer, iters: u64, nested: bool) -> Duration {
    let batch = (timer.config().ring_capacity / 2) as u64;
    let mut total = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let n = left.min(batch);
        let start = Instant::now();
        for _ in 0..n {
            if nested {
                let _outer = black_box(timer.scope("outer"));
                drop(black_box(timer.scope("inner")));
            } else {
                drop(black_box(timer.scope("phase")));
            }
        }
        total += start.elapsed();
        timer.end_frame();
        left -= n;
    }
    total
}

fn timer_scope(c: &mut Criterion) {
    let timer = FrameTimer::new();
    let mut g = c.benchmark_group("frame_timer");
    g.bench_function("scope", |b| {
        b.iter_custom(|iters| time_scopes(&timer, iters, false))
    });
    g.bench_function("two_nested_scopes", |b| {
        b.iter_custom(|iters| time_scopes(&timer, iters, true))
    });
    // For reference: the floor of a scope on this machine, its two reads of the
    // time-stamp counter alone (the timer's clock where the counter is usable).
    #[cfg(target_arch = "x86_64")]
    g.bench_function("reference/rdtsc_x2", |b| {
        b.iter(|| {
            // SAFETY: `rdtsc` has no preconditions on x86_64; it only reads the
            // counter.
            let (start, end) = unsafe {
                let start = std::arch::x86_64::_rdtsc();
                (black_box(start), std::arch::x86_64::_rdtsc())
            };
            black_box(end.wrapping_sub(start))
        })
    });
    // For reference: what a scope built on two `Instant::now()` reads would pay
    // for its clock alone.
    g.bench_function("reference/instant_now_x2", |b| {
        b.iter(|| {
            let a = Instant::now();
            black_box(Instant::now().duration_since(a))
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30);
    targets = spawn_wait, parallel_for, timer_scope
}
criterion_main!(benches);
