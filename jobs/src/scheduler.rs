//! The work-stealing scheduler: threads, deques, waiting, parallel-for and stats.

use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_deque::{Injector, Steal, Stealer, Worker};
use crossbeam_utils::sync::{Parker, Unparker};
use crossbeam_utils::{Backoff, CachePadded};

use crate::barrier::Barrier;
use crate::error::JobsError;
use crate::job::{JobRef, Word};
use crate::scope::Scope;
use crate::timer::clock::Clock;

/// Which queue a job waits in. Every thread takes all the critical work it can
/// find (its pinned queue, its own deque, the injector, other threads' deques)
/// before it looks at any background work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Lane {
    /// Frame-critical work: the frame cannot end without it.
    #[default]
    Critical,
    /// Background work (streaming: meshing, light, cooking): runs when no
    /// critical work is left anywhere.
    Background,
}

impl Lane {
    /// Both lanes, in the order threads look at them.
    pub(crate) const ALL: [Lane; 2] = [Lane::Critical, Lane::Background];

    #[inline]
    pub(crate) fn index(self) -> usize {
        match self {
            Lane::Critical => 0,
            Lane::Background => 1,
        }
    }
}

/// The one thread a pinned job must run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pin {
    /// The main thread: whichever thread is inside the scheduler's
    /// [`scope`](Scheduler::scope) / [`run_graph`](Scheduler::run_graph) call
    /// (thread index 0). Queue submission goes here.
    Main,
    /// The thread with this index: 0 is the main thread, `1..threads` the workers.
    Thread(usize),
}

impl Pin {
    /// The thread index this pin names.
    pub fn index(self) -> usize {
        match self {
            Pin::Main => 0,
            Pin::Thread(i) => i,
        }
    }
}

/// What the scheduler did between two calls to [`Scheduler::take_stats`]
/// (normally: one frame).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Jobs executed, all threads together.
    pub jobs: u64,
    /// Jobs a thread took from another thread's deque.
    pub steals: u64,
    /// Wall-clock time the figures cover, in nanoseconds.
    pub wall_ns: u64,
    /// Jobs executed per thread (index 0 is the main thread).
    pub jobs_per_thread: Vec<u64>,
    /// Time each thread spent looking for work, spinning or parked, in
    /// nanoseconds (index 0 is the main thread, counted only while it waits
    /// inside the scheduler). Approximate: an idle span that is in progress while
    /// the figures are taken may be split across two snapshots.
    pub idle_ns: Vec<u64>,
}

impl FrameStats {
    /// Idle share of `thread` over [`wall_ns`](Self::wall_ns), in percent
    /// (0 when the thread does not exist or no time passed).
    pub fn idle_percent(&self, thread: usize) -> f64 {
        match self.idle_ns.get(thread) {
            Some(&idle) if self.wall_ns > 0 => {
                (idle as f64 / self.wall_ns as f64 * 100.0).clamp(0.0, 100.0)
            }
            _ => 0.0,
        }
    }

    /// Mean idle share of the worker threads (the main thread excluded), in
    /// percent; 0 when there are no workers.
    pub fn worker_idle_percent(&self) -> f64 {
        let workers = self.idle_ns.len().saturating_sub(1);
        if workers == 0 {
            return 0.0;
        }
        (1..=workers).map(|t| self.idle_percent(t)).sum::<f64>() / workers as f64
    }
}

/// Per-thread counters. Every field has one writer, the thread itself (the main
/// slot's changing owners take turns under its mutex), so it updates them with
/// plain load + store; `take_stats` only reads them. Idle time is kept in ticks
/// of the timer's clock (the time-stamp counter where usable: a few
/// nanoseconds a read), converted to nanoseconds when the stats are taken.
#[derive(Default)]
struct Counters {
    jobs: AtomicU64,
    steals: AtomicU64,
    /// Completed idle time, cumulative, in clock ticks.
    idle_ticks: AtomicU64,
    /// 0 when busy; else 1 + the clock reading when the idle span began.
    idle_since: AtomicU64,
}

#[inline]
fn bump(counter: &AtomicU64, by: u64) {
    counter.store(
        counter.load(Ordering::Relaxed).wrapping_add(by),
        Ordering::Relaxed,
    );
}

/// Idle workers and how to wake them.
struct Sleep {
    sleeping: Box<[CachePadded<AtomicBool>]>,
    unparkers: Box<[Option<Unparker>]>,
    count: AtomicUsize,
    /// Orders a push against a sleeper's registration (see `crate::barrier`).
    barrier: Barrier,
}

impl Sleep {
    /// Wakes one sleeping worker, if any. Called after every push.
    ///
    /// The barrier's light side pairs with its heavy side in `worker_main`'s
    /// sleep path: either this thread sees the sleeper's registration, or the
    /// sleeper's re-check sees the pushed job, so no wake-up is lost (a lost one
    /// would leave a worker parked while a frame has work for it). With
    /// `membarrier` the light side costs nothing at run time.
    #[inline]
    fn notify_one(&self) {
        self.barrier.light();
        if self.count.load(Ordering::Relaxed) != 0 {
            self.wake_any();
        }
    }

    #[cold]
    fn wake_any(&self) {
        for index in 1..self.sleeping.len() {
            if self.wake(index) {
                return;
            }
        }
    }

    /// Wakes `index` if it sleeps (after a pinned push); ordered as `notify_one`.
    #[inline]
    fn notify_thread(&self, index: usize) {
        self.barrier.light();
        if self.count.load(Ordering::Relaxed) > 0 {
            self.wake(index);
        }
    }

    fn wake(&self, index: usize) -> bool {
        let flag = &self.sleeping[index];
        if flag.load(Ordering::Relaxed) && flag.swap(false, Ordering::AcqRel) {
            self.count.fetch_sub(1, Ordering::Relaxed);
            if let Some(unparker) = &self.unparkers[index] {
                unparker.unpark();
            }
            true
        } else {
            false
        }
    }
}

/// State shared by every thread of one scheduler.
pub(crate) struct Shared {
    threads: usize,
    injectors: [Injector<JobRef>; 2],
    pinned: Box<[[Injector<JobRef>; 2]]>,
    stealers: Box<[[Stealer<JobRef>; 2]]>,
    counters: Box<[CachePadded<Counters>]>,
    sleep: Sleep,
    shutdown: AtomicBool,
    epoch: Instant,
    /// The clock idle spans are measured with.
    clock: Clock,
}

/// How many rounds an idle worker spins (with backoff, then yielding) before it
/// parks.
const SPIN_ROUNDS: u32 = 64;
/// Safety net for a parked worker: it looks again after this long even if no one
/// woke it. Wake-ups do not rely on it.
const PARK_TIMEOUT: Duration = Duration::from_millis(50);

impl Shared {
    fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// Pushes `job` where the calling thread should: its own deque when it is one
    /// of this scheduler's threads, the injector otherwise.
    #[inline]
    pub(crate) fn push(&self, job: JobRef, lane: Lane) {
        match current_ctx(self) {
            Some(ctx) => ctx.push_local(job, lane),
            None => {
                self.injectors[lane.index()].push(job);
                self.sleep.notify_one();
            }
        }
    }

    /// Pushes `job` onto the pinned queue of `thread` (checked by the caller).
    pub(crate) fn push_pinned(&self, thread: usize, job: JobRef, lane: Lane) {
        self.pinned[thread][lane.index()].push(job);
        if thread != 0 {
            self.sleep.notify_thread(thread);
        }
    }

    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    fn has_pinned(&self, index: usize) -> bool {
        self.pinned[index].iter().any(|q| !q.is_empty())
    }
}

/// One scheduler thread's private side: its deques and counters.
pub(crate) struct ThreadCtx {
    index: usize,
    shared: Arc<Shared>,
    local: [Worker<JobRef>; 2],
    /// The lane of the job this thread is running (Critical outside jobs).
    lane: Cell<Lane>,
    rng: Cell<u32>,
}

thread_local! {
    /// The scheduler thread context of this thread, if it is one (null if not).
    static CURRENT: Cell<*const ThreadCtx> = const { Cell::new(ptr::null()) };
}

/// The calling thread's context for `shared`, if the thread belongs to it.
#[inline]
pub(crate) fn current_ctx(shared: &Shared) -> Option<&ThreadCtx> {
    let ctx = CURRENT.with(Cell::get);
    if ctx.is_null() {
        return None;
    }
    // SAFETY: CURRENT is non-null only while the context it points to is alive: a
    // worker sets it for its whole life from a context on its own stack, and the
    // main slot sets it only while it holds the mutex guard that owns the context
    // (see `TlsRestore`). The reference does not escape this thread because
    // ThreadCtx is !Sync and callers use it only during the current call.
    let ctx = unsafe { &*ctx };
    ptr::eq(Arc::as_ptr(&ctx.shared), shared).then_some(ctx)
}

/// Restores the previous CURRENT when the main slot is released.
struct TlsRestore(*const ThreadCtx);

impl TlsRestore {
    fn set(ctx: &ThreadCtx) -> Self {
        Self(CURRENT.with(|c| c.replace(ctx)))
    }
}

impl Drop for TlsRestore {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0));
    }
}

impl ThreadCtx {
    #[inline]
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// Pushes onto this thread's own deque, where other threads can steal it.
    #[inline]
    pub(crate) fn push_local(&self, job: JobRef, lane: Lane) {
        self.local[lane.index()].push(job);
        self.shared.sleep.notify_one();
    }

    fn next_random(&self) -> usize {
        // xorshift32
        let mut x = self.rng.get();
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng.set(x);
        x as usize
    }

    /// The next job this thread should run, critical lane first.
    fn find_work(&self) -> Option<(JobRef, Lane)> {
        let shared = &*self.shared;
        for lane in Lane::ALL {
            let l = lane.index();
            // `is_empty` first: an empty `steal` costs a fence.
            let pinned = &shared.pinned[self.index][l];
            if !pinned.is_empty() {
                if let Some(job) = take(|| pinned.steal()) {
                    return Some((job, lane));
                }
            }
            if let Some(job) = self.local[l].pop() {
                return Some((job, lane));
            }
            let injector = &shared.injectors[l];
            if !injector.is_empty() {
                if let Some(job) = take(|| injector.steal_batch_and_pop(&self.local[l])) {
                    return Some((job, lane));
                }
            }
            let n = shared.threads;
            if n > 1 {
                let start = self.next_random() % n;
                for k in 0..n {
                    let victim = (start + k) % n;
                    if victim == self.index {
                        continue;
                    }
                    let stealer = &shared.stealers[victim][l];
                    if stealer.is_empty() {
                        continue;
                    }
                    if let Some(job) = take(|| stealer.steal()) {
                        bump(&shared.counters[self.index].steals, 1);
                        return Some((job, lane));
                    }
                }
            }
        }
        None
    }

    #[inline]
    fn execute(&self, job: JobRef, lane: Lane) {
        let previous = self.lane.replace(lane);
        bump(&self.shared.counters[self.index].jobs, 1);
        // SAFETY: every JobRef in the queues was created under JobRef's contract
        // and was just taken out of a queue, so this is its one execution.
        unsafe { job.execute() };
        self.lane.set(previous);
    }

    #[inline]
    pub(crate) fn lane(&self) -> Lane {
        self.lane.get()
    }

    fn idle_begin(&self) {
        let counters = &self.shared.counters[self.index];
        let now = self.shared.clock.ticks();
        counters.idle_since.store(now + 1, Ordering::Release);
    }

    fn idle_end(&self) {
        let counters = &self.shared.counters[self.index];
        let since = counters.idle_since.load(Ordering::Relaxed);
        if since != 0 {
            let spent = (self.shared.clock.ticks() + 1).saturating_sub(since);
            // Add the span before clearing the mark, so that a concurrent
            // `take_stats` may count it twice (clamped there) but never loses it.
            bump(&counters.idle_ticks, spent);
            counters.idle_since.store(0, Ordering::Release);
        }
    }

    /// Runs other jobs until `done()` holds. Never parks: when there is nothing to
    /// run it spins, then yields its time slice.
    pub(crate) fn wait_until(&self, done: impl Fn() -> bool) {
        if done() {
            return;
        }
        let backoff = Backoff::new();
        let mut idle = false;
        loop {
            if let Some((job, lane)) = self.find_work() {
                if idle {
                    self.idle_end();
                    idle = false;
                }
                self.execute(job, lane);
                backoff.reset();
            } else {
                if done() {
                    break;
                }
                if !idle {
                    self.idle_begin();
                    idle = true;
                }
                backoff.snooze();
            }
            if done() {
                break;
            }
        }
        if idle {
            self.idle_end();
        }
    }
}

/// Takes one job from a steal-like source, retrying while it asks to.
fn take(mut f: impl FnMut() -> Steal<JobRef>) -> Option<JobRef> {
    loop {
        match f() {
            Steal::Success(job) => return Some(job),
            Steal::Empty => return None,
            Steal::Retry => std::hint::spin_loop(),
        }
    }
}

fn worker_main(ctx: ThreadCtx, parker: Parker) {
    let _restore = TlsRestore::set(&ctx);
    let shared = Arc::clone(&ctx.shared);
    let me = ctx.index;
    loop {
        if let Some((job, lane)) = ctx.find_work() {
            ctx.execute(job, lane);
            continue;
        }
        if shared.shutdown.load(Ordering::Acquire) {
            break;
        }
        ctx.idle_begin();
        let mut found = None;
        let backoff = Backoff::new();
        for _ in 0..SPIN_ROUNDS {
            backoff.snooze();
            found = ctx.find_work();
            if found.is_some() || shared.shutdown.load(Ordering::Acquire) {
                break;
            }
        }
        if found.is_none() && !shared.shutdown.load(Ordering::Acquire) {
            // Register as a sleeper, then look once more: a push that raced with
            // the registration is seen either here or by the pusher's notify.
            // Without the barrier that guarantees it, do not sleep; spin again.
            shared.sleep.sleeping[me].store(true, Ordering::SeqCst);
            shared.sleep.count.fetch_add(1, Ordering::SeqCst);
            let ordered = shared.sleep.barrier.heavy();
            found = ctx.find_work();
            if ordered
                && found.is_none()
                && !shared.shutdown.load(Ordering::Acquire)
                && !shared.has_pinned(me)
            {
                parker.park_timeout(PARK_TIMEOUT);
            }
            if shared.sleep.sleeping[me].swap(false, Ordering::AcqRel) {
                shared.sleep.count.fetch_sub(1, Ordering::Relaxed);
            }
        }
        ctx.idle_end();
        if let Some((job, lane)) = found {
            ctx.execute(job, lane);
        }
    }
}

/// Cumulative per-thread figures at the last [`Scheduler::take_stats`].
struct Snapshot {
    at_ns: u64,
    jobs: Vec<u64>,
    steals: Vec<u64>,
    idle: Vec<u64>,
}

/// The work-stealing scheduler: the calling ("main") thread plus `threads − 1`
/// worker threads.
///
/// Any thread may call into the scheduler; the thread inside a call that is not
/// one of the workers acts as the main thread (index 0) for the call's duration,
/// and a second outside thread waits until the first leaves. Calls made from
/// inside jobs (a graph job that runs a [`parallel_for`](Self::parallel_for),
/// say) use the thread they run on. Dropping the scheduler stops and joins the
/// workers.
pub struct Scheduler {
    shared: Arc<Shared>,
    main: Mutex<ThreadCtx>,
    handles: Vec<JoinHandle<()>>,
    last: Mutex<Snapshot>,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler")
            .field("threads", &self.shared.threads)
            .finish_non_exhaustive()
    }
}

impl Scheduler {
    /// Starts a scheduler with `threads` threads in all, the main thread
    /// included (so `threads − 1` workers). 0 is taken as 1: no workers, every job
    /// runs on the calling thread.
    ///
    /// # Errors
    /// [`JobsError::SpawnWorker`] when a worker thread cannot be started.
    pub fn new(threads: usize) -> Result<Self, JobsError> {
        Self::with_barrier(threads, Barrier::new())
    }

    /// [`new`](Self::new) with the push/sleep barrier given (tests use the
    /// symmetric one, the fallback where `membarrier` is missing).
    pub(crate) fn with_barrier(threads: usize, barrier: Barrier) -> Result<Self, JobsError> {
        let threads = threads.max(1);
        let locals: Vec<[Worker<JobRef>; 2]> = (0..threads)
            .map(|_| [Worker::new_lifo(), Worker::new_lifo()])
            .collect();
        let stealers = locals
            .iter()
            .map(|[c, b]| [c.stealer(), b.stealer()])
            .collect();
        let mut parkers: Vec<Option<Parker>> =
            (0..threads).map(|i| (i > 0).then(Parker::new)).collect();
        let unparkers = parkers
            .iter()
            .map(|p| p.as_ref().map(|p| p.unparker().clone()))
            .collect();
        let shared = Arc::new(Shared {
            threads,
            injectors: [Injector::new(), Injector::new()],
            pinned: (0..threads)
                .map(|_| [Injector::new(), Injector::new()])
                .collect(),
            stealers,
            counters: (0..threads).map(|_| CachePadded::default()).collect(),
            sleep: Sleep {
                sleeping: (0..threads).map(|_| CachePadded::default()).collect(),
                unparkers,
                count: AtomicUsize::new(0),
                barrier,
            },
            shutdown: AtomicBool::new(false),
            epoch: Instant::now(),
            clock: Clock::get(),
        });
        let mut locals = locals.into_iter();
        let main_local = locals
            .next()
            .unwrap_or_else(|| [Worker::new_lifo(), Worker::new_lifo()]);
        let make_ctx = |index: usize, local: [Worker<JobRef>; 2]| ThreadCtx {
            index,
            shared: Arc::clone(&shared),
            local,
            lane: Cell::new(Lane::Critical),
            rng: Cell::new(0x9E37_79B9u32.wrapping_mul(index as u32 + 1) | 1),
        };
        let main = make_ctx(0, main_local);
        let mut handles = Vec::with_capacity(threads - 1);
        for (offset, local) in locals.enumerate() {
            let index = offset + 1;
            let ctx = make_ctx(index, local);
            let parker = parkers[index].take().unwrap_or_default();
            let spawned = std::thread::Builder::new()
                .name(format!("dh-jobs-{index}"))
                .spawn(move || worker_main(ctx, parker));
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(source) => {
                    stop(&shared, handles);
                    return Err(JobsError::SpawnWorker { index, source });
                }
            }
        }
        Ok(Self {
            main: Mutex::new(main),
            handles,
            last: Mutex::new(Snapshot {
                at_ns: shared.now_ns(),
                jobs: vec![0; threads],
                steals: vec![0; threads],
                idle: vec![0; threads],
            }),
            shared,
        })
    }

    /// A thread count for [`new`](Self::new): the machine's available
    /// parallelism (1 if unknown).
    pub fn default_threads() -> usize {
        std::thread::available_parallelism().map_or(1, usize::from)
    }

    /// Threads in all, the main thread included.
    pub fn threads(&self) -> usize {
        self.shared.threads
    }

    /// The index of the calling thread in this scheduler (0 for the main thread
    /// while it is inside a scheduler call, `1..threads` for the workers), or
    /// `None` for any other thread.
    pub fn current_thread(&self) -> Option<usize> {
        current_ctx(&self.shared).map(ThreadCtx::index)
    }

    /// Runs `f` with the calling thread's context, taking the main slot when the
    /// thread is not already one of this scheduler's threads.
    #[inline]
    pub(crate) fn with_ctx<R>(&self, f: impl FnOnce(&ThreadCtx) -> R) -> R {
        match current_ctx(&self.shared) {
            Some(ctx) => f(ctx),
            None => self.with_main_slot(f),
        }
    }

    /// `with_ctx` for a thread that is not one of ours: takes the main slot.
    /// Kept out of line so that `with_ctx`'s fast path inlines `f`.
    #[inline(never)]
    fn with_main_slot<R>(&self, f: impl FnOnce(&ThreadCtx) -> R) -> R {
        let guard: MutexGuard<'_, ThreadCtx> =
            self.main.lock().unwrap_or_else(PoisonError::into_inner);
        let _restore = TlsRestore::set(&guard);
        f(&guard)
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Runs `op`, which may spawn jobs on the [`Scope`] that borrow anything that
    /// outlives the call; returns once `op` and every job spawned in the scope
    /// (transitively) have finished. The calling thread runs jobs while it waits.
    ///
    /// A panic in `op` or in any job is resumed here after all jobs finished.
    pub fn scope<'s, 'scope, OP, R>(&'s self, op: OP) -> R
    where
        's: 'scope,
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        self.with_ctx(|ctx| {
            let scope = Scope::new(&self.shared);
            let result = panic::catch_unwind(AssertUnwindSafe(|| op(&scope)));
            ctx.wait_until(|| scope.is_done());
            let job_panic = scope.take_panic();
            match (result, job_panic) {
                (Err(payload), _) | (Ok(_), Some(payload)) => panic::resume_unwind(payload),
                (Ok(r), None) => r,
            }
        })
    }

    /// Runs `a` on the calling thread and `b` as a job another thread may steal
    /// (in the current lane), and returns both results. A panic in either is
    /// resumed here after both finished.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA,
        B: FnOnce() -> RB + Send,
        RB: Send,
    {
        if self.shared.threads == 1 {
            // Nobody could steal `b`: run both here, in order.
            let ra = a();
            return (ra, b());
        }
        self.with_ctx(|ctx| {
            let job_b = StackJob::new(b);
            // SAFETY: `job_b` lives on this stack until `wait_until` below has seen
            // it done, which is the last thing `execute_stack` does with it; B and
            // RB are Send, so running it on another thread is allowed; it is pushed
            // once; `execute_stack` catches panics.
            let job = unsafe {
                JobRef::new(
                    &job_b as *const StackJob<B, RB> as *const (),
                    StackJob::<B, RB>::execute_stack,
                    0,
                )
            };
            let lane = ctx.lane();
            ctx.push_local(job, lane);
            let ra = panic::catch_unwind(AssertUnwindSafe(a));
            // Fast path: nobody stole `b`, it is still on top of our deque.
            if let Some(top) = ctx.local[lane.index()].pop() {
                if top.same_data(&job) {
                    // SAFETY: we just took back the only reference to `job_b`, so
                    // no other thread can run it; this thread has exclusive access.
                    if let Some(b) = unsafe { (*job_b.f.get()).take() } {
                        let ra = match ra {
                            Ok(ra) => ra,
                            Err(payload) => panic::resume_unwind(payload),
                        };
                        bump(&self.shared.counters[ctx.index].jobs, 1);
                        return (ra, b());
                    }
                }
                ctx.execute(top, lane);
            }
            ctx.wait_until(|| job_b.done.load(Ordering::Acquire));
            let rb = job_b.into_result();
            match (ra, rb) {
                (Ok(ra), Ok(rb)) => (ra, rb),
                (Err(payload), _) | (_, Err(payload)) => panic::resume_unwind(payload),
            }
        })
    }

    /// Calls `f(index, &item)` for every item of `items`, in parallel chunks of
    /// `chunk` items (0 picks a chunk size from the length and thread count).
    /// Returns when every index has been visited exactly once. The helper jobs run
    /// in the calling job's lane (Critical outside jobs).
    pub fn parallel_for<T, F>(&self, items: &[T], chunk: usize, f: F)
    where
        T: Sync,
        F: Fn(usize, &T) + Sync,
    {
        let len = items.len();
        let chunk = self.chunk_size(len, chunk);
        self.run_chunks(len.div_ceil(chunk), &|c| {
            let start = c * chunk;
            let end = (start + chunk).min(len);
            for (offset, item) in items[start..end].iter().enumerate() {
                f(start + offset, item);
            }
        });
    }

    /// Like [`parallel_for`](Self::parallel_for) with mutable access: `f(index,
    /// &mut item)` for every item, each exactly once, so results written per
    /// index come out in a deterministic order whatever thread ran them.
    pub fn parallel_for_mut<T, F>(&self, items: &mut [T], chunk: usize, f: F)
    where
        T: Send,
        F: Fn(usize, &mut T) + Sync,
    {
        self.chunks_mut(items, chunk, |_, start, part| {
            for (offset, item) in part.iter_mut().enumerate() {
                f(start + offset, item);
            }
        });
    }

    /// Runs `body(chunk index, first item index, chunk)` over disjoint mutable
    /// chunks of `items`, each exactly once.
    fn chunks_mut<T, F>(&self, items: &mut [T], chunk: usize, body: F)
    where
        T: Send,
        F: Fn(usize, usize, &mut [T]) + Sync,
    {
        let len = items.len();
        let chunk = self.chunk_size(len, chunk);
        let base = SendPtr(items.as_mut_ptr());
        self.run_chunks(len.div_ceil(chunk), &|c| {
            let start = c * chunk;
            let end = (start + chunk).min(len);
            // SAFETY: `run_chunks` hands out every chunk index exactly once, so the
            // ranges [start, end) are disjoint sub-slices of `items`, which stays
            // mutably borrowed until `run_chunks` returns after all chunks ran.
            let part =
                unsafe { std::slice::from_raw_parts_mut(base.get().add(start), end - start) };
            body(c, start, part);
        });
    }

    /// Maps every item in parallel and returns the results in index order:
    /// `out[i] == f(i, &items[i])`, whatever thread computed it. If `f` panics,
    /// the results made so far are dropped and the panic is resumed here.
    pub fn parallel_map<T, U, F>(&self, items: &[T], chunk: usize, f: F) -> Vec<U>
    where
        T: Sync,
        U: Send,
        F: Fn(usize, &T) -> U + Sync,
    {
        let len = items.len();
        let chunk = self.chunk_size(len, chunk);
        let finished: Vec<AtomicBool> = (0..len.div_ceil(chunk))
            .map(|_| AtomicBool::new(false))
            .collect();
        let mut out: Vec<U> = Vec::with_capacity(len);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            self.chunks_mut(
                &mut out.spare_capacity_mut()[..len],
                chunk,
                |c, start, part| {
                    let mut written = PartialInit { part, written: 0 };
                    while written.written < written.part.len() {
                        let i = start + written.written;
                        written.part[written.written].write(f(i, &items[i]));
                        written.written += 1;
                    }
                    std::mem::forget(written);
                    finished[c].store(true, Ordering::Relaxed);
                },
            );
        }));
        if let Err(payload) = result {
            // The chunk that panicked dropped its own results; drop those of the
            // chunks that finished, then pass the panic on.
            let slots = &mut out.spare_capacity_mut()[..len];
            for (c, done) in finished.iter().enumerate() {
                if done.load(Ordering::Relaxed) {
                    let end = ((c + 1) * chunk).min(len);
                    for slot in &mut slots[c * chunk..end] {
                        // SAFETY: the chunk finished, so every slot in it was
                        // written exactly once and nothing has dropped it yet.
                        unsafe { slot.assume_init_drop() };
                    }
                }
            }
            panic::resume_unwind(payload);
        }
        // SAFETY: `chunks_mut` returned normally, so every chunk ran to its end and
        // wrote each of its slots, which together cover 0..len.
        unsafe { out.set_len(len) };
        out
    }

    fn chunk_size(&self, len: usize, chunk: usize) -> usize {
        if chunk > 0 {
            chunk
        } else {
            (len / (self.shared.threads * 4)).max(1)
        }
    }

    /// Runs `body(c)` for every chunk index `c` in `0..chunks`, each exactly once,
    /// on this thread and up to `threads − 1` helper jobs.
    fn run_chunks(&self, chunks: usize, body: &(dyn Fn(usize) + Sync)) {
        if chunks == 0 {
            return;
        }
        if chunks == 1 || self.shared.threads == 1 {
            for c in 0..chunks {
                body(c);
            }
            return;
        }
        self.with_ctx(|ctx| {
            let helpers = (self.shared.threads - 1).min(chunks - 1);
            let state = ParFor {
                next: AtomicUsize::new(0),
                chunks,
                body,
                pending: AtomicUsize::new(helpers),
                panic: Mutex::new(None),
            };
            // SAFETY: `state` lives on this stack until `wait_until` below has seen
            // `pending == 0`, and a helper's last access is its decrement of
            // `pending`; `body` is Sync so helpers may share it; the same JobRef is
            // pushed `helpers` times, which `execute_par_for` tolerates (each run
            // claims chunks from the shared counter and decrements `pending` once);
            // it catches panics.
            let job = unsafe {
                JobRef::new(
                    &state as *const ParFor<'_> as *const (),
                    ParFor::execute_par_for,
                    0,
                )
            };
            let lane = ctx.lane();
            for _ in 0..helpers {
                ctx.push_local(job, lane);
            }
            state.work();
            ctx.wait_until(|| state.pending.load(Ordering::Acquire) == 0);
            let payload = state
                .panic
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(payload) = payload {
                panic::resume_unwind(payload);
            }
        });
    }

    /// What the scheduler did since the previous call (or since it started):
    /// jobs, steals and idle time per thread. Call it once per frame.
    pub fn take_stats(&self) -> FrameStats {
        let shared = &*self.shared;
        let now = shared.now_ns();
        let cal = shared.clock.calibrate();
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let n = shared.threads;
        let mut stats = FrameStats {
            wall_ns: now.saturating_sub(last.at_ns),
            jobs_per_thread: vec![0; n],
            idle_ns: vec![0; n],
            ..FrameStats::default()
        };
        for t in 0..n {
            let c = &shared.counters[t];
            let jobs = c.jobs.load(Ordering::Relaxed);
            let steals = c.steals.load(Ordering::Relaxed);
            let since = c.idle_since.load(Ordering::Acquire);
            let mut idle = c.idle_ticks.load(Ordering::Relaxed);
            if since != 0 {
                idle += (cal.now_ticks + 1).saturating_sub(since);
            }
            let idle = cal.span_ns(idle);
            // Cumulative figures never go back, even when a span in progress was
            // counted a little differently last time.
            let idle = idle.max(last.idle[t]);
            stats.jobs_per_thread[t] = jobs.wrapping_sub(last.jobs[t]);
            stats.jobs += stats.jobs_per_thread[t];
            stats.steals += steals.wrapping_sub(last.steals[t]);
            stats.idle_ns[t] = (idle - last.idle[t]).min(stats.wall_ns);
            last.jobs[t] = jobs;
            last.steals[t] = steals;
            last.idle[t] = idle;
        }
        last.at_ns = now;
        stats
    }
}

fn stop(shared: &Shared, handles: Vec<JoinHandle<()>>) {
    shared.shutdown.store(true, Ordering::SeqCst);
    for unparker in shared.sleep.unparkers.iter().flatten() {
        unparker.unpark();
    }
    for handle in handles {
        // A worker never panics (jobs' panics are caught), so there is nothing
        // to report from a failed join.
        let _ = handle.join();
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        stop(&self.shared, std::mem::take(&mut self.handles));
    }
}

/// The results a `parallel_map` chunk has written so far; drops them if the
/// chunk unwinds.
struct PartialInit<'a, U> {
    part: &'a mut [std::mem::MaybeUninit<U>],
    written: usize,
}

impl<U> Drop for PartialInit<'_, U> {
    fn drop(&mut self) {
        for slot in &mut self.part[..self.written] {
            // SAFETY: the first `written` slots were initialised by this chunk and
            // are dropped only here (the guard is forgotten on success).
            unsafe { slot.assume_init_drop() };
        }
    }
}

/// A raw pointer that may cross threads; see the SAFETY note at its one use.
struct SendPtr<T>(*mut T);

impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SendPtr<T> {}

// SAFETY: used only by `parallel_for_mut`, where each thread derives a disjoint
// sub-slice from it and `T: Send`.
unsafe impl<T: Send> Send for SendPtr<T> {}
// SAFETY: as above; sharing the pointer only lets threads derive disjoint parts.
unsafe impl<T: Send> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// A method (not a field access) so closures capture the whole Sync wrapper.
    fn get(self) -> *mut T {
        self.0
    }
}

/// The shared state of one parallel-for.
struct ParFor<'a> {
    next: AtomicUsize,
    chunks: usize,
    body: &'a (dyn Fn(usize) + Sync),
    pending: AtomicUsize,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl ParFor<'_> {
    fn work(&self) {
        loop {
            let c = self.next.fetch_add(1, Ordering::Relaxed);
            if c >= self.chunks {
                return;
            }
            if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| (self.body)(c))) {
                // Stop handing out chunks; keep the first panic.
                self.next.store(self.chunks, Ordering::Relaxed);
                let mut slot = self.panic.lock().unwrap_or_else(PoisonError::into_inner);
                slot.get_or_insert(payload);
                return;
            }
        }
    }

    /// # Safety
    /// `data` points to a live `ParFor` (see `run_chunks`).
    unsafe fn execute_par_for(data: *const (), _word: Word) {
        // SAFETY: `run_chunks` keeps the state alive until `pending` reaches 0,
        // and this job decrements it only as its very last access.
        let state = unsafe { &*(data as *const ParFor<'_>) };
        state.work();
        state.pending.fetch_sub(1, Ordering::Release);
    }
}

/// A job that lives on the stack of the thread that joins it.
struct StackJob<F, R> {
    f: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<std::thread::Result<R>>>,
    done: AtomicBool,
}

impl<F: FnOnce() -> R, R> StackJob<F, R> {
    fn new(f: F) -> Self {
        Self {
            f: UnsafeCell::new(Some(f)),
            result: UnsafeCell::new(None),
            done: AtomicBool::new(false),
        }
    }

    /// # Safety
    /// `data` points to a live `StackJob<F, R>` that has not run yet.
    unsafe fn execute_stack(data: *const (), _word: Word) {
        // SAFETY: the joining thread keeps the job alive until `done` is set,
        // which is the last access below; the job is pushed once, so this is the
        // only thread touching `f` and `result` until `done` is published.
        let job = unsafe { &*(data as *const Self) };
        // SAFETY: as above, exclusive access to `f` during execution.
        let f = unsafe { (*job.f.get()).take() };
        if let Some(f) = f {
            let result = panic::catch_unwind(AssertUnwindSafe(f));
            // SAFETY: exclusive access to `result` until `done` is published.
            unsafe { *job.result.get() = Some(result) };
        }
        job.done.store(true, Ordering::Release);
    }

    fn into_result(self) -> std::thread::Result<R> {
        match self.result.into_inner() {
            Some(result) => result,
            // Unreachable in practice: `done` is set only after `result`.
            None => Err(Box::new("join: job produced no result")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// Workers that went to sleep wake for new work with either barrier: three
    /// jobs that can only finish together need all three threads awake.
    #[test]
    fn sleeping_workers_wake_with_either_barrier() {
        for barrier in [Barrier::new(), Barrier::symmetric()] {
            let s = Scheduler::with_barrier(3, barrier).unwrap();
            for _round in 0..10 {
                // Long enough for the workers to give up spinning and park.
                std::thread::sleep(Duration::from_millis(3));
                let arrived = AtomicUsize::new(0);
                s.scope(|sc| {
                    for _ in 0..3 {
                        sc.spawn(|_| {
                            arrived.fetch_add(1, Ordering::SeqCst);
                            let deadline = Instant::now() + Duration::from_secs(120);
                            while arrived.load(Ordering::SeqCst) < 3 {
                                assert!(Instant::now() < deadline, "a worker never woke");
                                std::thread::yield_now();
                            }
                        });
                    }
                });
            }
        }
    }
}
