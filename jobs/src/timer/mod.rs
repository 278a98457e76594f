//! The frame timer: nanosecond scopes, per-frame aggregation, a rolling window,
//! and reports (terminal table, JSON, Chrome trace).
//!
//! ```
//! use dh_jobs::FrameTimer;
//!
//! let timer = FrameTimer::new();
//! for _ in 0..3 {
//!     {
//!         let _physics = timer.scope("physics");
//!         // ... step the world ...
//!     }
//!     let _extract = timer.scope("extract");
//!     drop(_extract);
//!     timer.end_frame();
//! }
//! let report = timer.report();
//! assert_eq!(report.frames, 3);
//! assert!(report.phases.iter().any(|p| p.name == "physics"));
//! println!("{}", report.to_table());
//! ```
//!
//! A scope costs two reads of the CPU's time-stamp counter (where the OS trusts
//! it; `Instant` otherwise) and one store into a lock-free ring that belongs to
//! the calling thread; everything else happens in [`FrameTimer::end_frame`].
//! The counter is used on x86_64 when the CPU reports it invariant or Linux runs
//! its own clock on it; setting the environment variable `DH_TIMER_NO_TSC`
//! forces `Instant` (read once, when the first timer is made).

pub(crate) mod clock;
mod json;
mod report;
mod ring;

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::marker::PhantomData;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;
use std::time::Duration;

pub use report::{JobsReport, PhaseReport, Summary, TimerReport};

use crate::scheduler::FrameStats;
use clock::Clock;
use report::TraceSpan;
use ring::{RawSpan, Ring};

/// Frames the rolling window of a default [`FrameTimer`] keeps (what its report sums up).
pub const DEFAULT_WINDOW_FRAMES: usize = 300;
/// Of those, the most recent frames a default [`FrameTimer`] keeps every scope of, for
/// the Chrome trace.
pub const DEFAULT_TRACE_FRAMES: usize = 120;
/// Scopes each thread can record per frame in a default [`FrameTimer`].
pub const DEFAULT_RING_CAPACITY: usize = 16_384;

/// Settings of a [`FrameTimer`].
#[derive(Clone, Debug, PartialEq)]
pub struct FrameTimerConfig {
    /// Frames kept in the rolling window the report summarises (at least 1).
    pub window: usize,
    /// The frame-time budget; frames longer than this count as over budget.
    pub budget: Duration,
    /// How many of the most recent frames keep their individual scopes for the
    /// Chrome trace (0: none).
    pub trace_frames: usize,
    /// Scopes each thread can record per frame before further ones are dropped
    /// (and counted in [`TimerReport::dropped_scopes`]).
    pub ring_capacity: usize,
}

impl Default for FrameTimerConfig {
    fn default() -> Self {
        Self {
            window: DEFAULT_WINDOW_FRAMES,
            budget: Duration::from_nanos(16_666_667),
            trace_frames: DEFAULT_TRACE_FRAMES,
            ring_capacity: DEFAULT_RING_CAPACITY,
        }
    }
}

/// One phase's total in one frame.
#[derive(Clone, Debug)]
struct PhaseSample {
    name: &'static str,
    ns: u64,
    calls: u32,
}

/// The scheduler's figures for one frame.
#[derive(Clone, Debug)]
struct JobsSample {
    jobs: u64,
    steals: u64,
    idle_percent: Vec<f64>,
}

/// One finished frame.
#[derive(Clone, Debug)]
struct Frame {
    index: u64,
    start_ns: u64,
    dur_ns: u64,
    phases: Vec<PhaseSample>,
    jobs: Option<JobsSample>,
    gpu: Vec<(String, f64)>,
    spans: Vec<TraceSpan>,
}

struct State {
    frame_start_ns: u64,
    next_index: u64,
    frames: VecDeque<Frame>,
    pending_phases: Vec<PhaseSample>,
    pending_jobs: Option<JobsSample>,
    pending_gpu: Vec<(String, f64)>,
    scratch: Vec<RawSpan>,
    phase_slots: HashMap<&'static str, usize>,
    dropped: u64,
}

#[derive(Default)]
struct Rings {
    by_thread: HashMap<ThreadId, Arc<Ring>>,
    list: Vec<Arc<Ring>>,
}

static NEXT_TIMER_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The ring this thread last recorded into, and the id of its timer.
    static LAST_RING: Cell<(u64, *const Ring)> = const { Cell::new((0, ptr::null())) };
}

/// The frame timer. Shared by reference between threads: any thread may open
/// [`scope`](Self::scope)s; one thread (normally the main loop) calls
/// [`end_frame`](Self::end_frame) once per frame.
///
/// Frame `n` runs from the previous `end_frame` (or the timer's creation) to the
/// `n`-th; scopes are counted in the frame during which they end.
pub struct FrameTimer {
    id: u64,
    clock: Clock,
    config: FrameTimerConfig,
    start_ns: u64,
    rings: Mutex<Rings>,
    state: Mutex<State>,
}

impl std::fmt::Debug for FrameTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameTimer")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Default for FrameTimer {
    fn default() -> Self {
        Self::new()
    }
}

/// An open timer scope; records its span when dropped. Bound to the thread that
/// opened it.
#[must_use = "a scope measures until the guard is dropped"]
pub struct ScopeGuard<'t> {
    timer: &'t FrameTimer,
    name: &'static str,
    start: u64,
    /// Not Send: the span belongs to the thread that opened it.
    _thread: PhantomData<*const ()>,
}

impl std::fmt::Debug for ScopeGuard<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopeGuard")
            .field("name", &self.name)
            .finish()
    }
}

impl Drop for ScopeGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        let end = self.timer.clock.ticks();
        self.timer.record(RawSpan {
            name: self.name,
            start: self.start,
            end,
        });
    }
}

impl FrameTimer {
    /// A timer with the default settings (300-frame window, 60 Hz budget).
    pub fn new() -> Self {
        Self::with_config(FrameTimerConfig::default())
    }

    /// A timer with these settings (a window of 0 is taken as 1).
    pub fn with_config(mut config: FrameTimerConfig) -> Self {
        config.window = config.window.max(1);
        config.trace_frames = config.trace_frames.min(config.window);
        let clock = Clock::get();
        let cal = clock.calibrate();
        let start_ns = cal.ns(cal.now_ticks);
        Self {
            id: NEXT_TIMER_ID.fetch_add(1, Ordering::Relaxed),
            clock,
            start_ns,
            rings: Mutex::new(Rings::default()),
            state: Mutex::new(State {
                frame_start_ns: 0,
                next_index: 0,
                frames: VecDeque::with_capacity(config.window),
                pending_phases: Vec::new(),
                pending_jobs: None,
                pending_gpu: Vec::new(),
                scratch: Vec::new(),
                phase_slots: HashMap::new(),
                dropped: 0,
            }),
            config,
        }
    }

    /// The timer's settings.
    pub fn config(&self) -> &FrameTimerConfig {
        &self.config
    }

    /// Opens a scope named `name` (a phase or a job); it ends when the guard is
    /// dropped. Scopes nest. Costs a few nanoseconds.
    #[inline]
    pub fn scope(&self, name: &'static str) -> ScopeGuard<'_> {
        ScopeGuard {
            timer: self,
            name,
            start: self.clock.ticks(),
            _thread: PhantomData,
        }
    }

    #[inline]
    fn record(&self, span: RawSpan) {
        let (id, ring) = LAST_RING.with(Cell::get);
        if id == self.id {
            // SAFETY: LAST_RING holds this timer's id only if `record_slow` stored
            // it together with a ring of this timer that was registered for this
            // thread. Timer ids are never reused and this timer is alive (we hold
            // `&self`), and the timer keeps all its rings alive, so the pointer is
            // valid; this thread is that ring's one producer.
            unsafe { &*ring }.push(span);
        } else {
            self.record_slow(span);
        }
    }

    #[cold]
    fn record_slow(&self, span: RawSpan) {
        let ring = {
            let mut rings = self.rings.lock().unwrap_or_else(PoisonError::into_inner);
            let thread = std::thread::current();
            match rings.by_thread.get(&thread.id()) {
                Some(ring) => Arc::clone(ring),
                None => {
                    let tid = rings.list.len() as u32 + 1;
                    let name = thread
                        .name()
                        .map_or_else(|| format!("thread {tid}"), str::to_owned);
                    let ring = Arc::new(Ring::new(self.config.ring_capacity, tid, name));
                    rings.by_thread.insert(thread.id(), Arc::clone(&ring));
                    rings.list.push(Arc::clone(&ring));
                    ring
                }
            }
        };
        LAST_RING.with(|c| c.set((self.id, Arc::as_ptr(&ring))));
        ring.push(span);
    }

    /// The index of the frame in progress (the one the next
    /// [`end_frame`](Self::end_frame) ends). The first frame is 0.
    pub fn current_frame(&self) -> u64 {
        self.lock().next_index
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `time` to phase `name` in the frame in progress, without a trace span
    /// (for times measured elsewhere).
    pub fn add_phase_time(&self, name: &'static str, time: Duration) {
        let ns = time.as_nanos().min(u64::MAX as u128) as u64;
        let mut state = self.lock();
        match state.pending_phases.iter_mut().find(|p| p.name == name) {
            Some(phase) => {
                phase.ns = phase.ns.saturating_add(ns);
                phase.calls += 1;
            }
            None => state
                .pending_phases
                .push(PhaseSample { name, ns, calls: 1 }),
        }
    }

    /// Attaches the scheduler's figures ([`Scheduler::take_stats`]) to the frame
    /// in progress (the last call in a frame wins).
    ///
    /// [`Scheduler::take_stats`]: crate::Scheduler::take_stats
    pub fn record_job_stats(&self, stats: &FrameStats) {
        let sample = JobsSample {
            jobs: stats.jobs,
            steals: stats.steals,
            idle_percent: (0..stats.idle_ns.len())
                .map(|t| stats.idle_percent(t))
                .collect(),
        };
        self.lock().pending_jobs = Some(sample);
    }

    /// Records that GPU pass `pass` took `ms` milliseconds in frame `frame` (GPU
    /// timestamps resolve frames later, so any frame still in the window, or the
    /// one in progress, is accepted). Returns false, recording nothing, when the
    /// frame has left the window or has not started, or `ms` is not a finite,
    /// non-negative number.
    pub fn record_gpu_pass(&self, frame: u64, pass: &str, ms: f64) -> bool {
        if !ms.is_finite() || ms < 0.0 {
            return false;
        }
        let mut state = self.lock();
        if frame == state.next_index {
            state.pending_gpu.push((pass.to_owned(), ms));
            return true;
        }
        let Some(first) = state.frames.front().map(|f| f.index) else {
            return false;
        };
        if frame < first {
            return false;
        }
        match state.frames.get_mut((frame - first) as usize) {
            Some(f) => {
                f.gpu.push((pass.to_owned(), ms));
                true
            }
            None => false,
        }
    }

    /// Ends the frame in progress: collects every thread's scopes, aggregates
    /// them per phase and moves the frame into the window. Returns the index of
    /// the frame it ended.
    pub fn end_frame(&self) -> u64 {
        self.finish_frame(None)
    }

    /// Like [`end_frame`](Self::end_frame), but records `frame_time` as the
    /// frame's duration instead of the time measured since the previous frame
    /// (for replays, or a frame time measured elsewhere).
    pub fn end_frame_with_duration(&self, frame_time: Duration) -> u64 {
        self.finish_frame(Some(frame_time))
    }

    fn finish_frame(&self, frame_time: Option<Duration>) -> u64 {
        let cal = self.clock.calibrate();
        let now = cal.ns(cal.now_ticks).saturating_sub(self.start_ns);
        let rings: Vec<Arc<Ring>> = self
            .rings
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .list
            .clone();
        let mut guard = self.lock();
        let state = &mut *guard;
        let start_ns = state.frame_start_ns;
        let dur_ns = match frame_time {
            Some(d) => d.as_nanos().min(u64::MAX as u128) as u64,
            None => now.saturating_sub(start_ns),
        };
        let keep_spans = self.config.trace_frames > 0;
        let mut phases = std::mem::take(&mut state.pending_phases);
        state.phase_slots.clear();
        for (i, p) in phases.iter().enumerate() {
            state.phase_slots.insert(p.name, i);
        }
        let mut spans = Vec::new();
        let mut dropped = 0;
        for ring in &rings {
            state.scratch.clear();
            dropped += ring.drain_into(&mut state.scratch);
            for raw in &state.scratch {
                let start = cal.ns(raw.start).saturating_sub(self.start_ns);
                let end = cal.ns(raw.end).saturating_sub(self.start_ns);
                let dur = end.saturating_sub(start);
                let slot = *state.phase_slots.entry(raw.name).or_insert_with(|| {
                    phases.push(PhaseSample {
                        name: raw.name,
                        ns: 0,
                        calls: 0,
                    });
                    phases.len() - 1
                });
                phases[slot].ns = phases[slot].ns.saturating_add(dur);
                phases[slot].calls += 1;
                if keep_spans {
                    spans.push(TraceSpan {
                        tid: ring.tid,
                        name: raw.name,
                        start_ns: start,
                        dur_ns: dur,
                    });
                }
            }
        }
        state.dropped = dropped;
        let index = state.next_index;
        state.frames.push_back(Frame {
            index,
            start_ns,
            dur_ns,
            phases,
            jobs: state.pending_jobs.take(),
            gpu: std::mem::take(&mut state.pending_gpu),
            spans,
        });
        while state.frames.len() > self.config.window {
            state.frames.pop_front();
        }
        let len = state.frames.len();
        if len > self.config.trace_frames {
            state.frames[len - 1 - self.config.trace_frames].spans = Vec::new();
        }
        state.next_index += 1;
        state.frame_start_ns = now;
        index
    }

    /// Summarises the window: frame time percentiles, phases, GPU passes, jobs,
    /// and the spans for the Chrome trace.
    pub fn report(&self) -> TimerReport {
        let threads: Vec<(u32, String)> = self
            .rings
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .list
            .iter()
            .map(|r| (r.tid, r.thread_name.clone()))
            .collect();
        let state = self.lock();
        report::build(
            state.frames.iter(),
            self.config.budget,
            state.dropped,
            threads,
        )
    }

    /// Frames currently in the window.
    pub fn frames_in_window(&self) -> usize {
        self.lock().frames.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timer_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<FrameTimer>();
    }

    #[test]
    fn window_and_trace_retention_are_bounded() {
        let timer = FrameTimer::with_config(FrameTimerConfig {
            window: 4,
            trace_frames: 2,
            ..FrameTimerConfig::default()
        });
        for _ in 0..10 {
            drop(timer.scope("s"));
            timer.end_frame();
        }
        let state = timer.lock();
        assert_eq!(state.frames.len(), 4);
        assert_eq!(state.frames.front().map(|f| f.index), Some(6));
        let with_spans: Vec<u64> = state
            .frames
            .iter()
            .filter(|f| !f.spans.is_empty())
            .map(|f| f.index)
            .collect();
        assert_eq!(with_spans, vec![8, 9]);
    }
}
