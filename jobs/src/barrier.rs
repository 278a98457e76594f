//! The store–load barrier between publishing a job and checking for sleepers.
//!
//! A push stores the job and then loads the sleeper count; a worker going to
//! sleep stores its registration and then loads the queues once more. Each side
//! needs a full (store–load) barrier between its store and its load, or both can
//! miss the other's store and the worker sleeps while work waits for it (a lost
//! wake-up). Pushes are frequent and sleeps rare, so on Linux the barrier is made
//! asymmetric: the pusher's side is only a compiler fence and the sleeper issues
//! `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, which makes every running
//! thread of the process execute a full barrier before it returns (a thread that
//! is not running has passed one when it was switched out). Either the pusher's
//! load comes after that point, and then it sees the registration (stored before
//! the call), or before it, and then its job was visible to the sleeper's look
//! after the call. Where the call is not available, both sides use a
//! `fence(SeqCst)`.

use std::sync::atomic::{compiler_fence, fence, Ordering};

/// The pair of barriers one scheduler uses (chosen once, when it starts).
#[derive(Debug)]
pub(crate) struct Barrier {
    /// The sleeper's side is `membarrier`; the pusher's is a compiler fence.
    asymmetric: bool,
}

impl Barrier {
    /// Picks the asymmetric pair when the OS provides it.
    pub(crate) fn new() -> Self {
        Self {
            asymmetric: sys::register(),
        }
    }

    /// The fallback pair, fences on both sides, whatever the OS offers.
    #[cfg(test)]
    pub(crate) fn symmetric() -> Self {
        Self { asymmetric: false }
    }

    /// The pusher's side: between storing a job and loading the sleeper count.
    #[inline]
    pub(crate) fn light(&self) {
        if self.asymmetric {
            compiler_fence(Ordering::SeqCst);
        } else {
            fence(Ordering::SeqCst);
        }
    }

    /// The sleeper's side: between registering as a sleeper and looking for
    /// work once more. Returns false if the barrier could not be issued; the
    /// caller must not sleep then (it cannot rely on being woken).
    #[must_use]
    pub(crate) fn heavy(&self) -> bool {
        fence(Ordering::SeqCst);
        !self.asymmetric || sys::barrier()
    }
}

#[cfg(target_os = "linux")]
mod sys {
    use std::sync::OnceLock;

    // From <linux/membarrier.h>.
    const MEMBARRIER_CMD_QUERY: libc::c_long = 0;
    const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
    const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;

    fn membarrier(cmd: libc::c_long) -> libc::c_long {
        // SAFETY: membarrier takes two integer arguments (command and flags) and
        // touches no memory of ours; an unsupported command only returns -1.
        unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0 as libc::c_long) }
    }

    /// Registers the process for private expedited barriers (once) and checks
    /// that one can be issued; false if the kernel (or a seccomp filter) says no.
    pub(super) fn register() -> bool {
        static REGISTERED: OnceLock<bool> = OnceLock::new();
        *REGISTERED.get_or_init(|| {
            let supported = membarrier(MEMBARRIER_CMD_QUERY);
            supported > 0
                && supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED != 0
                && membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0
                && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0
        })
    }

    /// A full barrier on every running thread of the process.
    pub(super) fn barrier() -> bool {
        membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    pub(super) fn register() -> bool {
        false
    }

    pub(super) fn barrier() -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_can_be_issued() {
        let barrier = Barrier::new();
        barrier.light();
        assert!(barrier.heavy());
    }
}
