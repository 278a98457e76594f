//! Scoped jobs: jobs that borrow the caller's data without `'static` copies.

use std::any::Any;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::error::JobsError;
use crate::job::JobRef;
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
    pending: AtomicUsize,
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

/// A spawned scope job, boxed.
struct HeapJob<'scope, F> {
    f: F,
    scope: *const Scope<'scope>,
}

impl<'scope> Scope<'scope> {
    #[inline]
    pub(crate) fn new(shared: &'scope Shared) -> Self {
        Self {
            shared,
            pending: AtomicUsize::new(0),
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
        let job = self.heap_job(f);
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
        let job = self.heap_job(f);
        self.shared.push_pinned(index, job, lane);
        Ok(())
    }

    #[inline]
    fn heap_job<F>(&self, f: F) -> JobRef
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.pending.fetch_add(1, Ordering::Relaxed);
        let job = Box::new(HeapJob { f, scope: self });
        // SAFETY: the box stays alive until `execute_heap` takes it back; the scope
        // it points to outlives the job because `Scheduler::scope` waits for
        // `pending == 0` and the job's decrement is its last access; F is Send;
        // the reference is pushed exactly once; `execute_heap` catches panics.
        unsafe { JobRef::new(Box::into_raw(job) as *const (), Self::execute_heap::<F>, 0) }
    }

    /// # Safety
    /// `data` comes from `Box::into_raw` in `heap_job` and runs once.
    unsafe fn execute_heap<F>(data: *const (), _arg: usize)
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        // SAFETY: see the function's contract; ownership returns to this box.
        let job = unsafe { Box::from_raw(data as *mut HeapJob<'scope, F>) };
        let HeapJob { f, scope } = *job;
        // SAFETY: the scope is alive until its pending count reaches zero, which
        // happens only at the decrement below.
        let scope = unsafe { &*scope };
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| f(scope))) {
            let mut slot = scope.panic.lock().unwrap_or_else(PoisonError::into_inner);
            slot.get_or_insert(payload);
            scope.panicked.store(true, Ordering::Release);
        }
        scope.pending.fetch_sub(1, Ordering::Release);
    }
}
