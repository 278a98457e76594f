//! Who runs the renderer's recording tasks. dh-gpu owns no threads: the caller hands the
//! renderer an [`Executor`], which runs a frame's recording tasks (one per worker, each with
//! its own transient command pool) in parallel or in turn and returns once all are done. The
//! engine implements it on its dh-jobs scheduler; [`Serial`] and [`ScopedThreads`] are here
//! for tools and tests.

/// One recording task: records its passes into its own pool's command buffers.
pub type Task<'a> = Box<dyn FnOnce() + Send + 'a>;

/// Runs a frame's recording tasks.
pub trait Executor {
    /// Runs every task exactly once and returns when all have finished. Tasks may run in
    /// any order and on any thread; a panic in one is resumed here.
    fn execute<'a>(&self, tasks: Vec<Task<'a>>);
}

/// Runs the tasks one after another on the calling thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct Serial;

impl Executor for Serial {
    fn execute<'a>(&self, tasks: Vec<Task<'a>>) {
        for t in tasks {
            t();
        }
    }
}

/// Runs the first task on the calling thread and each other task on a thread of its own
/// (`std::thread::scope`), for callers without a job system.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScopedThreads;

impl Executor for ScopedThreads {
    fn execute<'a>(&self, tasks: Vec<Task<'a>>) {
        let mut it = tasks.into_iter();
        let Some(first) = it.next() else { return };
        std::thread::scope(|s| {
            for t in it {
                s.spawn(t);
            }
            first();
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_task_runs_once() {
        for exec in [&Serial as &dyn Executor, &ScopedThreads] {
            let hits: Vec<AtomicUsize> = (0..5).map(|_| AtomicUsize::new(0)).collect();
            let tasks: Vec<Task<'_>> = hits
                .iter()
                .map(|h| {
                    Box::new(move || {
                        h.fetch_add(1, Ordering::Relaxed);
                    }) as Task<'_>
                })
                .collect();
            exec.execute(tasks);
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        }
    }
}
