//! Scopes, join, stealing, pinned jobs and lanes.

mod common;

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use common::{spin_until, Rendezvous};
use dh_jobs::{JobGraph, JobsError, Lane, Pin, Scheduler};

#[test]
fn scheduler_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Scheduler>();
    check::<dh_jobs::Scope<'static>>();
}

#[test]
fn zero_threads_means_one() {
    let s = Scheduler::new(0).unwrap();
    assert_eq!(s.threads(), 1);
    let hits = AtomicUsize::new(0);
    s.scope(|sc| {
        for _ in 0..10 {
            sc.spawn(|_| {
                hits.fetch_add(1, Ordering::Relaxed);
            });
        }
    });
    assert_eq!(hits.load(Ordering::Relaxed), 10);
}

#[test]
fn scope_borrows_frame_data() {
    for threads in [1, 2, 4] {
        let s = Scheduler::new(threads).unwrap();
        let input: Vec<u64> = (0..10_000).collect();
        let mut output = vec![0u64; input.len()];
        let total = AtomicU64::new(0);
        let returned = s.scope(|sc| {
            for (src, dst) in input.chunks(333).zip(output.chunks_mut(333)) {
                let total = &total;
                sc.spawn(move |_| {
                    for (d, x) in dst.iter_mut().zip(src) {
                        *d = x * 3;
                    }
                    total.fetch_add(src.iter().sum::<u64>(), Ordering::Relaxed);
                });
            }
            "done"
        });
        assert_eq!(returned, "done");
        assert_eq!(total.load(Ordering::Relaxed), input.iter().sum::<u64>());
        assert!(output.iter().zip(&input).all(|(o, i)| *o == i * 3));
    }
}

fn spawn_tree<'s>(sc: &dh_jobs::Scope<'s>, depth: u32, leaves: &'s AtomicUsize) {
    if depth == 0 {
        leaves.fetch_add(1, Ordering::Relaxed);
        return;
    }
    for _ in 0..2 {
        sc.spawn(move |sc| spawn_tree(sc, depth - 1, leaves));
    }
}

#[test]
fn nested_spawns_all_finish_before_scope_returns() {
    let s = Scheduler::new(3).unwrap();
    let leaves = AtomicUsize::new(0);
    s.scope(|sc| spawn_tree(sc, 10, &leaves));
    assert_eq!(leaves.load(Ordering::Relaxed), 1024);
}

#[test]
fn spawning_from_a_foreign_thread_goes_through_the_injector() {
    let s = Scheduler::new(2).unwrap();
    let hits = AtomicUsize::new(0);
    s.scope(|sc| {
        std::thread::scope(|ts| {
            ts.spawn(|| {
                for _ in 0..100 {
                    sc.spawn(|_| {
                        hits.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        });
    });
    assert_eq!(hits.load(Ordering::Relaxed), 100);
}

#[test]
fn a_panicking_job_is_resumed_after_the_others_finish() {
    let s = Scheduler::new(2).unwrap();
    let hits = AtomicUsize::new(0);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        s.scope(|sc| {
            for i in 0..50 {
                let hits = &hits;
                sc.spawn(move |_| {
                    if i == 7 {
                        panic!("job 7 failed");
                    }
                    hits.fetch_add(1, Ordering::Relaxed);
                });
            }
        })
    }));
    let payload = result.expect_err("the panic must reach the caller");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"job 7 failed"));
    assert_eq!(hits.load(Ordering::Relaxed), 49);
    // The scheduler is still usable.
    let again = s.scope(|sc| {
        sc.spawn(|_| {
            hits.fetch_add(1, Ordering::Relaxed);
        });
        1
    });
    assert_eq!(again, 1);
    assert_eq!(hits.load(Ordering::Relaxed), 50);
}

/// Counts its drops, so a test sees that every capture is dropped exactly once.
struct DropCount<'a>(&'a AtomicUsize);

impl Drop for DropCount<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn scope_jobs_of_every_size_run_and_drop_their_captures_once() {
    // Closures of one word travel inside the job reference, larger or
    // over-aligned ones are boxed: each kind must run once and drop its
    // captures once.
    #[derive(Clone, Copy)]
    #[repr(align(32))]
    struct Aligned(u8);
    for threads in [1, 2, 3] {
        let s = Scheduler::new(threads).unwrap();
        // Runs are counted as drops of a second counter, so that the one-word
        // closure below needs to capture a single reference.
        let ran = AtomicUsize::new(0);
        let dropped = AtomicUsize::new(0);
        let big = [7u64; 16];
        s.scope(|sc| {
            for i in 0..200usize {
                let (ran, dropped) = (&ran, &dropped);
                match i % 5 {
                    0 => {
                        let job = |_: &dh_jobs::Scope<'_>| {
                            ran.fetch_add(1, Ordering::Relaxed);
                        };
                        assert_eq!(std::mem::size_of_val(&job), 8);
                        sc.spawn(job);
                    }
                    1 => {
                        let d = DropCount(dropped);
                        let job = move |_: &dh_jobs::Scope<'_>| {
                            let d = d;
                            ran.fetch_add(1, Ordering::Relaxed);
                            drop(d);
                        };
                        assert_eq!(std::mem::size_of_val(&job), 16);
                        sc.spawn(job);
                    }
                    2 => {
                        // One word, with drop glue.
                        let d = DropCount(dropped);
                        let job = move |_: &dh_jobs::Scope<'_>| {
                            let _d = d;
                        };
                        assert_eq!(std::mem::size_of_val(&job), 8);
                        sc.spawn(job);
                        ran.fetch_add(1, Ordering::Relaxed);
                    }
                    3 => {
                        let d = DropCount(dropped);
                        sc.spawn(move |_| {
                            let _d = d;
                            assert_eq!(big.iter().sum::<u64>(), 7 * 16);
                            ran.fetch_add(1, Ordering::Relaxed);
                        })
                    }
                    _ => {
                        let a = Aligned(1);
                        sc.spawn(move |_| {
                            let a = a;
                            assert_eq!(&a as *const Aligned as usize % 32, 0);
                            ran.fetch_add(usize::from(a.0), Ordering::Relaxed);
                        })
                    }
                }
            }
        });
        assert_eq!(ran.load(Ordering::Relaxed), 200);
        assert_eq!(dropped.load(Ordering::Relaxed), 120);
    }
}

#[test]
fn a_panicking_small_job_drops_its_capture_and_is_resumed() {
    let s = Scheduler::new(2).unwrap();
    let dropped = AtomicUsize::new(0);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        s.scope(|sc| {
            let d = DropCount(&dropped);
            sc.spawn(move |_| {
                let _d = d;
                panic!("small job failed");
            });
        })
    }));
    let payload = result.expect_err("the panic must reach the caller");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"small job failed"));
    assert_eq!(dropped.load(Ordering::Relaxed), 1);
}

fn fib(s: &Scheduler, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = s.join(|| fib(s, n - 1), || fib(s, n - 2));
    a + b
}

#[test]
fn join_returns_both_results() {
    for threads in [1, 2, 4] {
        let s = Scheduler::new(threads).unwrap();
        assert_eq!(fib(&s, 20), 6765);
        let mut left = vec![1, 2, 3];
        let right = String::from("x");
        let (a, b) = s.join(
            || {
                left.push(4);
                left.len()
            },
            || right.len(),
        );
        assert_eq!((a, b), (4, 1));
    }
}

#[test]
fn join_resumes_a_panic() {
    let s = Scheduler::new(2).unwrap();
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        s.join(|| 1, || -> u32 { panic!("right") })
    }));
    assert!(r.is_err());
    assert_eq!(s.join(|| 1, || 2), (1, 2));
}

#[test]
fn stealing_happens_with_more_than_one_thread() {
    let s = Scheduler::new(2).unwrap();
    let _ = s.take_stats();
    // Two jobs that can only finish if they run at the same time: one of them
    // must be stolen from the main thread's deque by the worker.
    let meet = Rendezvous::new(2);
    let threads = Mutex::new(Vec::new());
    s.scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|_| {
                threads.lock().unwrap().push(s.current_thread());
                meet.meet();
            });
        }
    });
    let mut threads = threads.into_inner().unwrap();
    threads.sort();
    assert_eq!(threads, vec![Some(0), Some(1)]);
    let stats = s.take_stats();
    assert!(stats.steals >= 1, "{stats:?}");
    assert_eq!(stats.jobs, 2);
    assert_eq!(stats.jobs_per_thread.len(), 2);
    assert_eq!(stats.idle_ns.len(), 2);
    assert!(stats.idle_ns.iter().all(|&i| i <= stats.wall_ns));
}

#[test]
fn parked_workers_wake_up_for_new_work() {
    let s = Scheduler::new(3).unwrap();
    for _round in 0..20 {
        // Let the workers go idle (and probably park), then need all of them.
        std::thread::sleep(std::time::Duration::from_millis(2));
        let meet = Rendezvous::new(3);
        s.scope(|sc| {
            for _ in 0..3 {
                sc.spawn(|_| meet.meet());
            }
        });
    }
}

#[test]
fn pinned_scope_jobs_run_on_their_thread() {
    let s = Scheduler::new(3).unwrap();
    let main_id = std::thread::current().id();
    let wrong = AtomicUsize::new(0);
    let ran = AtomicUsize::new(0);
    s.scope(|sc| {
        for i in 0..60 {
            let pin = match i % 3 {
                0 => Pin::Main,
                1 => Pin::Thread(1),
                _ => Pin::Thread(2),
            };
            let (s, wrong, ran) = (&s, &wrong, &ran);
            sc.spawn_pinned(pin, Lane::Critical, move |_| {
                let here = s.current_thread();
                let ok = here == Some(pin.index())
                    && (pin != Pin::Main || std::thread::current().id() == main_id);
                if !ok {
                    wrong.fetch_add(1, Ordering::Relaxed);
                }
                ran.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
        }
        let err = sc.spawn_pinned(Pin::Thread(3), Lane::Critical, |_| {});
        assert!(matches!(
            err,
            Err(JobsError::NoSuchThread {
                index: 3,
                threads: 3,
                ..
            })
        ));
    });
    assert_eq!(ran.load(Ordering::Relaxed), 60);
    assert_eq!(wrong.load(Ordering::Relaxed), 0);
}

#[test]
fn main_pinned_graph_jobs_run_on_the_calling_thread() {
    let s = Scheduler::new(2).unwrap();
    let main_id = std::thread::current().id();
    let on_main = AtomicUsize::new(0);
    let mut graph = JobGraph::new();
    let mut prev = None;
    for _ in 0..30 {
        let work = graph.add(Lane::Critical, "work", || {
            std::hint::black_box((0..200).sum::<u32>());
        });
        let submit = graph.add_pinned(Lane::Critical, Pin::Main, "submit", || {
            if std::thread::current().id() == main_id && s.current_thread() == Some(0) {
                on_main.fetch_add(1, Ordering::Relaxed);
            }
        });
        graph.depend(submit, work).unwrap();
        if let Some(p) = prev {
            graph.depend(work, p).unwrap();
        }
        prev = Some(submit);
    }
    s.run_graph(&mut graph).unwrap();
    assert_eq!(on_main.load(Ordering::Relaxed), 30);
}

#[test]
fn critical_work_drains_before_background_work() {
    // One thread: the order is fully determined by the lanes.
    let s = Scheduler::new(1).unwrap();
    let order = Mutex::new(Vec::new());
    s.scope(|sc| {
        for i in 0..10 {
            let order = &order;
            sc.spawn_in(Lane::Background, move |_| {
                order.lock().unwrap().push(('b', i))
            });
            sc.spawn(move |_| order.lock().unwrap().push(('c', i)));
        }
    });
    let order = order.into_inner().unwrap();
    assert_eq!(order.len(), 20);
    assert!(order[..10].iter().all(|(l, _)| *l == 'c'), "{order:?}");
    assert!(order[10..].iter().all(|(l, _)| *l == 'b'), "{order:?}");
}

#[test]
fn a_critical_continuation_overtakes_waiting_background_jobs() {
    let s = Scheduler::new(1).unwrap();
    let order = Mutex::new(Vec::new());
    let log = |name: &'static str| {
        let order = &order;
        move || order.lock().unwrap().push(name)
    };
    let mut g = JobGraph::new();
    let first = g.add(Lane::Background, "bg first", log("bg first"));
    for _ in 0..5 {
        g.add(Lane::Background, "bg other", log("bg other"));
    }
    let cont = g.add(
        Lane::Critical,
        "critical continuation",
        log("critical continuation"),
    );
    g.depend(cont, first).unwrap();
    let crit = g.add(Lane::Critical, "critical root", log("critical root"));
    let _ = crit;
    s.run_graph(&mut g).unwrap();
    let order = order.lock().unwrap().clone();
    assert_eq!(
        &order[..3],
        &["critical root", "bg first", "critical continuation"],
        "{order:?}"
    );
    assert!(order[3..].iter().all(|n| *n == "bg other"));
}

#[test]
fn background_lane_is_inherited_by_parallel_for_helpers() {
    // With one thread everything is inline; with two, helpers go to the lane of
    // the job that started the loop. Either way every index is visited once.
    let s = Scheduler::new(2).unwrap();
    let data: Vec<u32> = (0..1000).collect();
    let sum = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    s.scope(|sc| {
        sc.spawn_in(Lane::Background, |_| {
            s.parallel_for(&data, 16, |_, x| {
                sum.fetch_add(u64::from(*x), Ordering::Relaxed);
            });
            done.store(true, Ordering::Release);
        });
    });
    spin_until("the background job", || done.load(Ordering::Acquire));
    assert_eq!(sum.load(Ordering::Relaxed), 999 * 1000 / 2);
}

#[test]
fn nested_scopes_from_worker_threads() {
    let s = Scheduler::new(3).unwrap();
    let hits = AtomicUsize::new(0);
    s.scope(|sc| {
        for _ in 0..8 {
            sc.spawn(|_| {
                s.scope(|inner| {
                    for _ in 0..8 {
                        inner.spawn(|_| {
                            hits.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                });
            });
        }
    });
    assert_eq!(hits.load(Ordering::Relaxed), 64);
}

#[test]
fn calls_from_two_outside_threads_take_turns_as_main() {
    let s = Scheduler::new(2).unwrap();
    let hits = AtomicUsize::new(0);
    std::thread::scope(|ts| {
        for _ in 0..2 {
            ts.spawn(|| {
                for _ in 0..50 {
                    s.scope(|sc| {
                        sc.spawn(|_| {
                            hits.fetch_add(1, Ordering::Relaxed);
                        });
                    });
                }
            });
        }
    });
    assert_eq!(hits.load(Ordering::Relaxed), 100);
}
