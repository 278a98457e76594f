//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Spins until `cond` holds. The deadline only turns a scheduler deadlock into a
/// test failure instead of a hang; it is far beyond any expected wait, so it is
/// not a timing assertion.
pub fn spin_until(what: &str, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !cond() {
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        std::thread::yield_now();
    }
}

/// A rendezvous of `n` parties that only works if they run at the same time.
pub struct Rendezvous {
    arrived: AtomicUsize,
    n: usize,
}

impl Rendezvous {
    pub fn new(n: usize) -> Self {
        Self {
            arrived: AtomicUsize::new(0),
            n,
        }
    }

    pub fn meet(&self) {
        self.arrived.fetch_add(1, Ordering::SeqCst);
        spin_until("the other parties", || {
            self.arrived.load(Ordering::SeqCst) >= self.n
        });
    }
}

/// A tiny deterministic generator for test inputs.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}
