//! How the per-tick data-parallel passes (mover integration, carry resolution, world
//! transforms) are spread over threads. The simulation is written as passes over flat
//! slices, each item touched by exactly one call, followed by one serial pass that applies
//! events in a defined order, so the result never depends on which thread ran what.
//!
//! [`Serial`] runs everything on the calling thread. The engine hands in the job system's
//! parallel-for by implementing [`Parallel`] over `dh_jobs::Scheduler::parallel_for_mut`.

/// How many items a light pass ([`Parallel::for_each_mut_light`]) needs before it is handed
/// to [`Parallel::for_each_mut`]: below it, the pass takes less time than waking another
/// thread and waiting for it.
pub const LIGHT_PASS_MIN: usize = 1024;

/// A parallel-for over a mutable slice.
pub trait Parallel {
    /// Calls `f(index, &mut item)` for every item of `items`, each exactly once, in any
    /// order and on any thread, and returns when all calls have returned.
    fn for_each_mut<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(usize, &mut T) + Sync;

    /// [`for_each_mut`](Parallel::for_each_mut) for a pass whose items take tens of
    /// nanoseconds each (one mover's step, one carry, one placement): a slice shorter than
    /// [`LIGHT_PASS_MIN`] runs on the calling thread in index order, a longer one goes to
    /// `for_each_mut`. The same contract: each item exactly once, the order unspecified.
    fn for_each_mut_light<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(usize, &mut T) + Sync,
    {
        if items.len() < LIGHT_PASS_MIN {
            for (i, item) in items.iter_mut().enumerate() {
                f(i, item);
            }
        } else {
            self.for_each_mut(items, f);
        }
    }
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
