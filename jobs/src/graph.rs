//! The per-frame job graph: named jobs, dependencies, continuations.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::error::JobsError;
use crate::job::{self, JobRef, Word};
use crate::scheduler::{Lane, Pin, Scheduler, Shared};
use crate::timer::FrameTimer;

/// Identifies a job inside the [`JobGraph`] that created it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JobId {
    graph: u32,
    index: u32,
}

impl JobId {
    /// The job's position in its graph, in the order jobs were added.
    pub fn index(self) -> usize {
        self.index as usize
    }
}

type JobFn<'env> = Box<dyn FnOnce() + Send + 'env>;

struct Node<'env> {
    name: &'static str,
    lane: Lane,
    pin: Option<Pin>,
    f: JobFn<'env>,
}

/// A graph of jobs for one frame. Jobs borrow data that outlives `'env`; a job
/// runs once every job it [depends](Self::depend) on has finished (its
/// continuation counter reached zero).
///
/// Build it, then [`Scheduler::run_graph`] runs every job exactly once and
/// empties the graph (its storage is kept for the next frame).
pub struct JobGraph<'env> {
    id: u32,
    nodes: Vec<Node<'env>>,
    /// (job, prerequisite) pairs.
    edges: Vec<(u32, u32)>,
}

impl std::fmt::Debug for JobGraph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobGraph")
            .field(
                "jobs",
                &self.nodes.iter().map(|n| n.name).collect::<Vec<_>>(),
            )
            .field("edges", &self.edges)
            .finish()
    }
}

impl Default for JobGraph<'_> {
    fn default() -> Self {
        Self::new()
    }
}

static NEXT_GRAPH_ID: AtomicU32 = AtomicU32::new(1);

impl<'env> JobGraph<'env> {
    /// An empty graph.
    pub fn new() -> Self {
        Self {
            id: NEXT_GRAPH_ID.fetch_add(1, Ordering::Relaxed),
            nodes: Vec::new(),
            edges: Vec::new(),
        }
    }

    /// Adds a job that any thread may run.
    pub fn add<F>(&mut self, lane: Lane, name: &'static str, f: F) -> JobId
    where
        F: FnOnce() + Send + 'env,
    {
        self.push(name, lane, None, Box::new(f))
    }

    /// Adds a job that runs only on the thread `pin` names ([`Pin::Main`] for
    /// queue submission). The pin is checked against the scheduler when the graph
    /// runs.
    pub fn add_pinned<F>(&mut self, lane: Lane, pin: Pin, name: &'static str, f: F) -> JobId
    where
        F: FnOnce() + Send + 'env,
    {
        self.push(name, lane, Some(pin), Box::new(f))
    }

    fn push(&mut self, name: &'static str, lane: Lane, pin: Option<Pin>, f: JobFn<'env>) -> JobId {
        let index = self.nodes.len() as u32;
        self.nodes.push(Node { name, lane, pin, f });
        JobId {
            graph: self.id,
            index,
        }
    }

    /// Makes `job` wait for `on`: `job` is a continuation of `on`.
    ///
    /// # Errors
    /// [`JobsError::ForeignJob`] when either id comes from another graph (or from
    /// before the last run or [`clear`](Self::clear)), [`JobsError::SelfDependency`]
    /// when they are the same job. Cycles are reported by
    /// [`Scheduler::run_graph`].
    pub fn depend(&mut self, job: JobId, on: JobId) -> Result<(), JobsError> {
        let job_index = self.check(job)?;
        let on_index = self.check(on)?;
        if job_index == on_index {
            return Err(JobsError::SelfDependency {
                name: self.nodes[job_index as usize].name,
            });
        }
        self.edges.push((job_index, on_index));
        Ok(())
    }

    fn check(&self, id: JobId) -> Result<u32, JobsError> {
        if id.graph == self.id && (id.index as usize) < self.nodes.len() {
            Ok(id.index)
        } else {
            Err(JobsError::ForeignJob {
                index: id.index as usize,
            })
        }
    }

    /// How many jobs the graph holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the graph holds no job.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The name a job was added with.
    pub fn name(&self, id: JobId) -> Option<&'static str> {
        self.check(id).ok().map(|i| self.nodes[i as usize].name)
    }

    /// Removes every job and dependency (ids handed out so far become invalid).
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.edges.clear();
        self.id = NEXT_GRAPH_ID.fetch_add(1, Ordering::Relaxed);
    }

    /// Checks pins and cycles, and builds the continuation lists (CSR form:
    /// `offsets[i]..offsets[i + 1]` indexes `dependents`) and counters.
    fn plan(&self, threads: usize) -> Result<Plan, JobsError> {
        for node in &self.nodes {
            if let Some(pin) = node.pin {
                if pin.index() >= threads {
                    return Err(JobsError::NoSuchThread {
                        name: node.name,
                        index: pin.index(),
                        threads,
                    });
                }
            }
        }
        let n = self.nodes.len();
        let mut counts = vec![0u32; n];
        let mut offsets = vec![0u32; n + 1];
        for &(job, on) in &self.edges {
            counts[job as usize] += 1;
            offsets[on as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut dependents = vec![0u32; self.edges.len()];
        for &(job, on) in &self.edges {
            dependents[fill[on as usize] as usize] = job;
            fill[on as usize] += 1;
        }
        // Kahn's algorithm: every job must become ready.
        let mut remaining = counts.clone();
        let mut ready: Vec<u32> = (0..n as u32).filter(|&i| counts[i as usize] == 0).collect();
        let mut seen = 0;
        while let Some(i) = ready.pop() {
            seen += 1;
            let (a, b) = (
                offsets[i as usize] as usize,
                offsets[i as usize + 1] as usize,
            );
            for &d in &dependents[a..b] {
                remaining[d as usize] -= 1;
                if remaining[d as usize] == 0 {
                    ready.push(d);
                }
            }
        }
        if seen < n {
            let stuck = remaining.iter().position(|&r| r > 0).unwrap_or(0);
            return Err(JobsError::Cycle {
                name: self.nodes[stuck].name,
            });
        }
        Ok(Plan {
            counts,
            offsets,
            dependents,
        })
    }
}

struct Plan {
    counts: Vec<u32>,
    offsets: Vec<u32>,
    dependents: Vec<u32>,
}

struct RunNode<'env> {
    name: &'static str,
    lane: Lane,
    pin: Option<usize>,
    remaining: AtomicU32,
    f: Mutex<Option<JobFn<'env>>>,
}

/// The state of one graph run, on the stack of the thread that runs it.
struct GraphRun<'a, 'env> {
    shared: &'a Shared,
    timer: Option<&'a FrameTimer>,
    nodes: Vec<RunNode<'env>>,
    offsets: Vec<u32>,
    dependents: Vec<u32>,
    pending: AtomicUsize,
    poisoned: AtomicBool,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl GraphRun<'_, '_> {
    fn job(&self, index: usize) -> JobRef {
        // SAFETY: `run_graph` keeps this state alive until `pending` reaches 0 and
        // a node's last access is its decrement of `pending`; the closures are
        // Send and the state's shared parts are Sync; each node is pushed exactly
        // once (roots at the start, others when their counter reaches zero, which
        // happens once); `execute_node` catches panics.
        unsafe { JobRef::new(self as *const Self as *const (), Self::execute_node, index) }
    }

    fn schedule(&self, index: usize) {
        let node = &self.nodes[index];
        let job = self.job(index);
        match node.pin {
            Some(thread) => self.shared.push_pinned(thread, job, node.lane),
            None => self.shared.push(job, node.lane),
        }
    }

    /// # Safety
    /// `data` points to a live `GraphRun` and `word` carries a node index (see
    /// `job`).
    unsafe fn execute_node(data: *const (), word: Word) {
        // SAFETY: see `job`: the run state outlives every node's execution.
        let run = unsafe { &*(data as *const Self) };
        // SAFETY: `job` made the reference with `JobRef::new` and the index.
        let index = unsafe { job::arg(word) };
        let node = &run.nodes[index];
        let f = node.f.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(f) = f {
            if !run.poisoned.load(Ordering::Relaxed) {
                let _scope = run.timer.map(|t| t.scope(node.name));
                if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(f)) {
                    run.poisoned.store(true, Ordering::Relaxed);
                    let mut slot = run.panic.lock().unwrap_or_else(PoisonError::into_inner);
                    slot.get_or_insert(payload);
                }
            }
        }
        let (a, b) = (run.offsets[index] as usize, run.offsets[index + 1] as usize);
        for &d in &run.dependents[a..b] {
            if run.nodes[d as usize]
                .remaining
                .fetch_sub(1, Ordering::AcqRel)
                == 1
            {
                run.schedule(d as usize);
            }
        }
        run.pending.fetch_sub(1, Ordering::Release);
    }
}

impl Scheduler {
    /// Runs every job of `graph` exactly once, each after all the jobs it depends
    /// on, and returns when all have finished; the calling thread runs jobs (and
    /// is the only thread that runs [`Pin::Main`] jobs) while it waits. On success
    /// the graph is left empty, ready for the next frame.
    ///
    /// If a job panics, the jobs that had not started yet are skipped (their
    /// continuations still resolve) and the panic is resumed here.
    ///
    /// # Errors
    /// [`JobsError::Cycle`] or [`JobsError::NoSuchThread`]; then no job ran and
    /// the graph is left as it was.
    pub fn run_graph(&self, graph: &mut JobGraph<'_>) -> Result<(), JobsError> {
        self.run_graph_inner(graph, None)
    }

    /// [`run_graph`](Self::run_graph), recording every job as a `timer` scope
    /// named after the job.
    ///
    /// # Errors
    /// As [`run_graph`](Self::run_graph).
    pub fn run_graph_timed(
        &self,
        graph: &mut JobGraph<'_>,
        timer: &FrameTimer,
    ) -> Result<(), JobsError> {
        self.run_graph_inner(graph, Some(timer))
    }

    fn run_graph_inner(
        &self,
        graph: &mut JobGraph<'_>,
        timer: Option<&FrameTimer>,
    ) -> Result<(), JobsError> {
        if graph.is_empty() {
            graph.clear();
            return Ok(());
        }
        let plan = graph.plan(self.threads())?;
        let nodes: Vec<RunNode<'_>> = graph
            .nodes
            .drain(..)
            .zip(&plan.counts)
            .map(|(node, &count)| RunNode {
                name: node.name,
                lane: node.lane,
                pin: node.pin.map(Pin::index),
                remaining: AtomicU32::new(count),
                f: Mutex::new(Some(node.f)),
            })
            .collect();
        graph.clear();
        let run = GraphRun {
            shared: self.shared(),
            timer,
            pending: AtomicUsize::new(nodes.len()),
            nodes,
            offsets: plan.offsets,
            dependents: plan.dependents,
            poisoned: AtomicBool::new(false),
            panic: Mutex::new(None),
        };
        self.with_ctx(|ctx| {
            // Roots in reverse, so that a thread popping its LIFO deque starts them
            // in the order they were added.
            for (index, &count) in plan.counts.iter().enumerate().rev() {
                if count == 0 {
                    run.schedule(index);
                }
            }
            ctx.wait_until(|| run.pending.load(Ordering::Acquire) == 0);
        });
        let payload = run
            .panic
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(payload) = payload {
            panic::resume_unwind(payload);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_builds_continuations() {
        let mut g = JobGraph::new();
        let a = g.add(Lane::Critical, "a", || {});
        let b = g.add(Lane::Critical, "b", || {});
        let c = g.add(Lane::Critical, "c", || {});
        g.depend(b, a).unwrap();
        g.depend(c, a).unwrap();
        g.depend(c, b).unwrap();
        let plan = g.plan(1).unwrap();
        assert_eq!(plan.counts, vec![0, 1, 2]);
        assert_eq!(plan.offsets, vec![0, 2, 3, 3]);
        assert_eq!(&plan.dependents[0..2], &[1, 2]);
        assert_eq!(&plan.dependents[2..3], &[2]);
    }

    #[test]
    fn plan_rejects_cycles_and_bad_pins() {
        let mut g = JobGraph::new();
        let a = g.add(Lane::Critical, "a", || {});
        let b = g.add(Lane::Critical, "b", || {});
        g.depend(b, a).unwrap();
        g.depend(a, b).unwrap();
        assert!(matches!(g.plan(1), Err(JobsError::Cycle { .. })));

        let mut g = JobGraph::new();
        g.add_pinned(Lane::Critical, Pin::Thread(3), "p", || {});
        assert!(matches!(
            g.plan(2),
            Err(JobsError::NoSuchThread {
                index: 3,
                threads: 2,
                ..
            })
        ));
    }

    #[test]
    fn ids_are_checked() {
        let mut g1 = JobGraph::new();
        let mut g2 = JobGraph::new();
        let a = g1.add(Lane::Critical, "a", || {});
        let b = g2.add(Lane::Critical, "b", || {});
        assert!(matches!(g1.depend(a, b), Err(JobsError::ForeignJob { .. })));
        assert!(matches!(
            g1.depend(a, a),
            Err(JobsError::SelfDependency { name: "a" })
        ));
        assert_eq!(g1.name(a), Some("a"));
        assert_eq!(g1.name(b), None);
    }
}
