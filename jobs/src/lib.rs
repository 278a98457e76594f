//! Work-stealing job scheduler, per-frame job graph and the frame timer.
//!
//! * [`Scheduler`]: N threads in all, the caller's thread ("main", thread index 0)
//!   plus N−1 workers, each with a Chase–Lev deque per [`Lane`] (crossbeam-deque).
//!   A thread that waits (for a [`scope`](Scheduler::scope), a
//!   [`join`](Scheduler::join), a [`parallel_for`](Scheduler::parallel_for) or a
//!   [`run_graph`](Scheduler::run_graph)) executes other jobs meanwhile and never
//!   sleeps; only idle workers park, and a push wakes them.
//! * [`JobGraph`]: a per-frame graph of named jobs with atomic dependency
//!   counters; when a job finishes, each continuation whose counter reaches zero
//!   is pushed. Jobs borrow frame data (`'env`), can be pinned to one thread
//!   ([`Pin::Main`] for queue submission) and belong to a lane:
//!   [`Lane::Critical`] work is always taken before [`Lane::Background`] work.
//! * [`FrameTimer`]: scopes of a few nanoseconds recorded into per-thread
//!   lock-free rings, aggregated per frame into a rolling window, reported as a
//!   terminal table, JSON, or a Chrome trace that opens in Perfetto.
//!
//! Determinism: the scheduler itself is not deterministic (which thread runs
//! what varies), but every result API writes per index
//! ([`parallel_for_mut`](Scheduler::parallel_for_mut),
//! [`parallel_map`](Scheduler::parallel_map)), so results never depend on it.
//!
//! ```
//! use dh_jobs::{JobGraph, Lane, Pin, Scheduler};
//!
//! let scheduler = Scheduler::new(2).unwrap();
//! let mut positions = vec![0.0f32; 1000];
//! let mut submitted = false;
//! {
//!     let mut graph = JobGraph::new();
//!     let positions = &mut positions;
//!     let integrate = graph.add(Lane::Critical, "integrate", || {
//!         for (i, p) in positions.iter_mut().enumerate() {
//!             *p += i as f32;
//!         }
//!     });
//!     let submit = graph.add_pinned(Lane::Critical, Pin::Main, "submit", || submitted = true);
//!     graph.depend(submit, integrate).unwrap();
//!     scheduler.run_graph(&mut graph).unwrap();
//! }
//! assert!(submitted);
//! assert_eq!(positions[10], 10.0);
//! ```
#![warn(missing_docs)]

mod barrier;
mod error;
mod graph;
mod job;
mod scheduler;
mod scope;
pub mod timer;

pub use error::JobsError;
pub use graph::{JobGraph, JobId};
pub use scheduler::{FrameStats, Lane, Pin, Scheduler};
pub use scope::Scope;
pub use timer::{
    FrameTimer, FrameTimerConfig, ScopeGuard, TimerReport, DEFAULT_RING_CAPACITY,
    DEFAULT_TRACE_FRAMES, DEFAULT_WINDOW_FRAMES,
};
