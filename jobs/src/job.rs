//! The type-erased job reference that travels through the deques.

/// A job as the deques carry it: a pointer to its data and the function that runs
/// it. Scope jobs point at a boxed closure, graph jobs at the graph's run state
/// (with the node index in `arg`), parallel-for helpers at the loop's state.
///
/// Contract for whoever creates one (every constructor is `unsafe` for this): the
/// data behind `data` stays alive and valid until `exec` has signalled completion
/// to whoever waits for it, each `JobRef` is executed at most once by the
/// scheduler (copies are handed out only when `exec` tolerates several runs), and
/// `exec` never unwinds: it catches the job's panic and hands it to the waiter.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobRef {
    data: *const (),
    exec: unsafe fn(*const (), usize),
    arg: usize,
}

// SAFETY: a JobRef is only a pointer plus a function; the creator guarantees
// (see the type's contract) that the data it points to may be used from any
// scheduler thread: every constructor requires the closure or state to be `Send`
// or `Sync` as appropriate.
unsafe impl Send for JobRef {}

impl JobRef {
    /// Makes a job reference.
    ///
    /// # Safety
    /// The caller upholds the contract on [`JobRef`]: `data` is valid for `exec`
    /// until the job signals completion, it may be used from another thread, and
    /// `exec` does not unwind.
    #[inline]
    pub(crate) unsafe fn new(
        data: *const (),
        exec: unsafe fn(*const (), usize),
        arg: usize,
    ) -> Self {
        Self { data, exec, arg }
    }

    /// Whether both references point to the same job data.
    #[inline]
    pub(crate) fn same_data(&self, other: &JobRef) -> bool {
        std::ptr::eq(self.data, other.data)
    }

    /// Runs the job.
    ///
    /// # Safety
    /// Called once per pushed reference, by the scheduler, after taking it out of
    /// a deque; the creator's contract makes the call itself valid.
    #[inline]
    pub(crate) unsafe fn execute(self) {
        // SAFETY: forwarded from this function's contract and the creator's.
        unsafe { (self.exec)(self.data, self.arg) }
    }
}
