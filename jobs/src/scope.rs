//! Scoped jobs: jobs that borrow the caller's data without `'static` copies.

use std::any::Any;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crossbeam_utils::CachePadded;

use crate::error::JobsError;
use crate::job::{fits_inline, take_inline, JobRef, Word};
use crate::scheduler::{Lane, Pin, Shared};

/// The handle [`Scheduler::scope`](crate::Scheduler::scope) passes to its closure
/// and to every job spawned in it. Jobs may borrow anything that outlives
/// `'scope`; the scope does not end before all of them have finished.
///
/// Data that does not outlive the scope cannot be borrowed by its jobs:
///
/// ```compile_fail
/// let scheduler = dh_jobs::Scheduler::new(2).unwrap();
/// scheduler.scope(|s| {
///     let local = 5;
///     s.spawn(|_| println!("{}", local)); // `local` dies before the scope ends
/// });
/// ```
pub struct Scope<'scope> {
    shared: &'scope Shared,
    /// Jobs spawned and not finished yet. In a line of its own: every spawn and
    /// every finish writes it, from any thread, while the scope itself lives on
    /// the waiting thread's stack among that thread's hot locals.
    pending: CachePadded<AtomicUsize>,
    panicked: AtomicBool,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Invariant in `'scope`, like `std::thread::Scope`, and carrying the bounds of
    /// the jobs it holds.
    marker: PhantomData<ScopeJob<'scope>>,
}

/// The shape of a scope job, for `Scope`'s variance marker.
type ScopeJob<'scope> = Box<dyn FnOnce(&Scope<'scope>) + Send + Sync + 'scope>;

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("pending", &self.pending.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<'scope> Scope<'scope> {
    #[inline]
    pub(crate) fn new(shared: &'scope Shared) -> Self {
        Self {
            shared,
            pending: CachePadded::new(AtomicUsize::new(0)),
            panicked: AtomicBool::new(false),
            panic: Mutex::new(None),
            marker: PhantomData,
        }
    }

    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.pending.load(Ordering::Acquire) == 0
    }

    pub(crate) fn take_panic(&self) -> Option<Box<dyn Any + Send>> {
        if !self.panicked.load(Ordering::Acquire) {
            return None;
        }
        self.panic
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Spawns a frame-critical job. It may borrow anything that outlives the scope
    /// and spawn further jobs through the `&Scope` it receives.
    #[inline]
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.spawn_in(Lane::Critical, f);
    }

    /// Spawns a job in `lane`.
    #[inline]
    pub fn spawn_in<F>(&self, lane: Lane, f: F)
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let job = self.job(f);
        self.shared.push(job, lane);
    }

    /// Spawns a job that runs only on the thread `pin` names (in `lane`).
    ///
    /// # Errors
    /// [`JobsError::NoSuchThread`] when the scheduler has no such thread; the job
    /// is not spawned then.
    pub fn spawn_pinned<F>(&self, pin: Pin, lane: Lane, f: F) -> Result<(), JobsError>
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let threads = self.shared.threads();
        let index = pin.index();
        if index >= threads {
            return Err(JobsError::NoSuchThread {
                name: "scope job",
                index,
                threads,
            });
        }
        let job = self.job(f);
        self.shared.push_pinned(index, job, lane);
        Ok(())
    }

    /// Counts the job in and wraps it for the deques: the closure travels inside
    /// the job reference when it is small enough (no allocation), boxed when not.
    #[inline]
    fn job<F>(&self, f: F) -> JobRef
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.pending.fetch_add(1, Ordering::Relaxed);
        let scope = self as *const Self as *const ();
        if fits_inline::<F>() {
            // SAFETY: the scope outlives the job because `Scheduler::scope` waits
            // for `pending == 0` and the job's decrement is its last access; F
            // fits the reference (checked) and is Send; the reference is pushed
            // exactly once, so `execute` takes the closure once; it catches panics.
            unsafe { JobRef::with_value(scope, Self::execute::<F>, f) }
        } else {
            // SAFETY: as above; the reference carries the box's pointer instead,
            // which `execute` takes back (and frees) exactly once.
            unsafe { JobRef::with_value(scope, Self::execute::<Box<F>>, Box::new(f)) }
        }
    }

    /// # Safety
    /// `data` is the scope that made the job with `JobRef::with_value::<G>` in
    /// `job`, and the reference runs once.
    unsafe fn execute<G>(data: *const (), word: Word)
    where
        G: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        // SAFETY: see the function's contract: the word holds the job's closure
        // (or its box), taken out this one time.
        let f = unsafe { take_inline::<G>(word) };
        // SAFETY: the scope is alive until its pending count reaches zero, which
        // happens only at the decrement below.
        let scope = unsafe { &*(data as *const Scope<'scope>) };
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| f(scope))) {
            let mut slot = scope.panic.lock().unwrap_or_else(PoisonError::into_inner);
            slot.get_or_insert(payload);
            scope.panicked.store(true, Ordering::Release);
        }
        scope.pending.fetch_sub(1, Ordering::Release);
    }
}
