//! The type-erased job reference that travels through the deques.

use std::mem::{align_of, size_of, MaybeUninit};

/// The machine word a job carries by value: a graph node's index, or a small
/// scope closure (one that captures a single reference, say) stored in place of
/// a heap allocation. One word keeps a `JobRef` at three words: a bigger one
/// costs `join` measurably (see docs/PERFORMANCE.md, "Jobs").
pub(crate) type Word = MaybeUninit<usize>;

/// Whether a value of type `F` fits in [`Word`] (size and alignment).
pub(crate) const fn fits_inline<F>() -> bool {
    size_of::<F>() <= size_of::<Word>() && align_of::<F>() <= align_of::<Word>()
}

/// A job as the deques carry it: a pointer to its data, the function that runs
/// it and one word passed by value. Scope jobs point at their scope and carry
/// the closure in `word` (or a pointer to it, boxed, when it does not fit);
/// graph jobs point at the graph's run state with the node index in `word`;
/// parallel-for helpers and join's second half point at state on the waiting
/// thread's stack.
///
/// Contract for whoever creates one (every constructor is `unsafe` for this): the
/// data behind `data` stays alive and valid until `exec` has signalled completion
/// to whoever waits for it, each `JobRef` is executed at most once by the
/// scheduler (copies are handed out only when `exec` tolerates several runs), and
/// `exec` never unwinds: it catches the job's panic and hands it to the waiter.
#[derive(Clone, Copy)]
pub(crate) struct JobRef {
    data: *const (),
    exec: unsafe fn(*const (), Word),
    word: Word,
}

impl std::fmt::Debug for JobRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobRef")
            .field("data", &self.data)
            .finish_non_exhaustive()
    }
}

// SAFETY: a JobRef is only a pointer, a function and a plain word; the creator
// guarantees (see the type's contract) that the data it points to and the value
// it carries may be used from any scheduler thread: every constructor requires
// the closure or state to be `Send` or `Sync` as appropriate.
unsafe impl Send for JobRef {}

impl JobRef {
    /// Makes a job reference that carries `arg` (read back with [`arg`]).
    ///
    /// # Safety
    /// The caller upholds the contract on [`JobRef`]: `data` is valid for `exec`
    /// until the job signals completion, it may be used from another thread, and
    /// `exec` does not unwind.
    #[inline]
    pub(crate) unsafe fn new(
        data: *const (),
        exec: unsafe fn(*const (), Word),
        arg: usize,
    ) -> Self {
        Self {
            data,
            exec,
            word: MaybeUninit::new(arg),
        }
    }

    /// Makes a job reference that carries `value` by value (moved into the
    /// reference; `exec` moves it out with [`take_inline`]).
    ///
    /// # Safety
    /// As [`new`](Self::new), and `exec` treats `word` as holding a `T`, which it
    /// takes out exactly once (copies of the reference are never executed).
    ///
    /// # Panics
    /// If `T` does not fit ([`fits_inline`]); callers choose this constructor
    /// with that same constant condition, so the check compiles away.
    #[inline]
    pub(crate) unsafe fn with_value<T>(
        data: *const (),
        exec: unsafe fn(*const (), Word),
        value: T,
    ) -> Self {
        assert!(fits_inline::<T>());
        let mut word: Word = MaybeUninit::uninit();
        // SAFETY: `word` is large and aligned enough for a T (asserted above,
        // a constant condition), and writing does not read the old bytes.
        unsafe { word.as_mut_ptr().cast::<T>().write(value) };
        Self { data, exec, word }
    }

    /// Whether both references point to the same job data. Only meaningful
    /// between references whose data are distinct live objects or the same
    /// one (join compares against its own stack job).
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
        unsafe { (self.exec)(self.data, self.word) }
    }
}

/// The `usize` a reference made by [`JobRef::new`] carries.
///
/// # Safety
/// `word` comes from a reference made by [`JobRef::new`].
#[inline]
pub(crate) unsafe fn arg(word: Word) -> usize {
    // SAFETY: `JobRef::new` initialised the word with the argument.
    unsafe { word.assume_init() }
}

/// Moves the `T` out of the word of a reference made by [`JobRef::with_value`].
///
/// # Safety
/// `word` comes from a reference made by `JobRef::with_value::<T>`, and this is
/// the one time its value is taken.
#[inline]
pub(crate) unsafe fn take_inline<T>(word: Word) -> T {
    // SAFETY: `with_value` wrote a valid T at the start of the (suitably sized
    // and aligned) word; the caller takes it once, so it is not duplicated.
    unsafe { word.as_ptr().cast::<T>().read() }
}
