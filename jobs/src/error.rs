//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong in `dh-jobs`.
///
/// A job that panics is not an error: the panic is carried back to the thread that
/// waited for the job and resumed there, after every other job of the same
/// scope, graph or parallel-for has finished.
#[derive(Debug, thiserror::Error)]
pub enum JobsError {
    /// The operating system refused to start a worker thread.
    #[error("failed to start worker thread {index}: {source}")]
    SpawnWorker {
        /// The worker's thread index (1-based; 0 is the main thread).
        index: usize,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A [`JobId`](crate::JobId) was used with a graph that did not create it.
    #[error("job id {index} does not belong to this job graph")]
    ForeignJob {
        /// The index inside the id.
        index: usize,
    },
    /// A job was made to depend on itself.
    #[error("job `{name}` cannot depend on itself")]
    SelfDependency {
        /// The job's name.
        name: &'static str,
    },
    /// The job graph's dependencies form a cycle, so some jobs could never run.
    #[error("the job graph has a dependency cycle through job `{name}`")]
    Cycle {
        /// The name of one job on the cycle (or waiting on it).
        name: &'static str,
    },
    /// A job was pinned to a thread the scheduler does not have.
    #[error("job `{name}` is pinned to thread {index}, but the scheduler has {threads} threads")]
    NoSuchThread {
        /// The job's name (`"scope job"` for jobs spawned in a scope).
        name: &'static str,
        /// The requested thread index.
        index: usize,
        /// How many threads the scheduler has (main included).
        threads: usize,
    },
    /// Writing a timer report failed.
    #[error("failed to write {path}: {source}")]
    Write {
        /// The file that could not be written.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
}
