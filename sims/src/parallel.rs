//! How the per-tick data-parallel passes (mover integration, carry resolution, world
//! transforms) are spread over threads. The simulation is written as passes over flat
//! slices, each item touched by exactly one call, followed by one serial pass that applies
//! events in a defined order, so the result never depends on which thread ran what.
//!
//! [`Serial`] runs everything on the calling thread. The engine hands in the job system's
//! parallel-for by implementing [`Parallel`] over `dh_jobs::Scheduler::parallel_for_mut`.

/// A parallel-for over a mutable slice.
pub trait Parallel {
    /// Calls `f(index, &mut item)` for every item of `items`, each exactly once, in any
    /// order and on any thread, and returns when all calls have returned.
    fn for_each_mut<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(usize, &mut T) + Sync;
}

/// Runs every pass on the calling thread, in index order.
#[derive(Debug, Clone, Copy, Default)]
pub struct Serial;

impl Parallel for Serial {
    fn for_each_mut<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(usize, &mut T) + Sync,
    {
        for (i, item) in items.iter_mut().enumerate() {
            f(i, item);
        }
    }
}
