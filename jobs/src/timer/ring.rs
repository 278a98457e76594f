//! Per-thread span rings: one producer (the thread that owns the ring) and one
//! consumer (the timer's frame end, serialised by the timer's state lock).

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

/// One finished scope, in clock ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawSpan {
    pub(crate) name: &'static str,
    pub(crate) start: u64,
    pub(crate) end: u64,
}

const EMPTY: RawSpan = RawSpan {
    name: "",
    start: 0,
    end: 0,
};

/// A bounded single-producer single-consumer ring of spans.
pub(crate) struct Ring {
    /// Spans written, ever (producer-owned).
    head: CachePadded<AtomicUsize>,
    /// Spans read, ever (consumer-owned).
    tail: CachePadded<AtomicUsize>,
    /// Spans lost because the ring was full (producer-owned).
    dropped: AtomicU64,
    slots: Box<[UnsafeCell<RawSpan>]>,
    mask: usize,
    /// The trace's thread id for this ring.
    pub(crate) tid: u32,
    /// The thread's name, for the trace.
    pub(crate) thread_name: String,
}

// SAFETY: the ring is shared between exactly one producer thread (the one it was
// made for; `FrameTimer` hands a ring only to the thread whose id it was
// registered under) and a consumer serialised by the timer's state lock. A slot is
// written only by the producer while it lies outside [tail, head), and read only by
// the consumer while it lies inside; head and tail publish those moves with
// release/acquire, so no slot is ever accessed by both at once.
unsafe impl Sync for Ring {}

impl Ring {
    /// A ring of at least `capacity` slots (rounded up to a power of two).
    pub(crate) fn new(capacity: usize, tid: u32, thread_name: String) -> Self {
        let capacity = capacity.max(2).next_power_of_two();
        Self {
            head: CachePadded::new(AtomicUsize::new(0)),
            tail: CachePadded::new(AtomicUsize::new(0)),
            dropped: AtomicU64::new(0),
            slots: (0..capacity).map(|_| UnsafeCell::new(EMPTY)).collect(),
            mask: capacity - 1,
            tid,
            thread_name,
        }
    }

    /// Appends a span. Only the ring's own thread may call this.
    #[inline]
    pub(crate) fn push(&self, span: RawSpan) {
        let head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Acquire);
        if head.wrapping_sub(tail) > self.mask {
            let dropped = self.dropped.load(Ordering::Relaxed);
            self.dropped.store(dropped + 1, Ordering::Relaxed);
            return;
        }
        // SAFETY: slot `head` is outside [tail, head), so the consumer does not
        // read it (see the Sync impl), and this thread is the only producer.
        unsafe { *self.slots[head & self.mask].get() = span };
        self.head.store(head.wrapping_add(1), Ordering::Release);
    }

    /// Moves every published span into `out`; returns how many spans were dropped
    /// (ever). Callers serialise consumers.
    pub(crate) fn drain_into(&self, out: &mut Vec<RawSpan>) -> u64 {
        let tail = self.tail.load(Ordering::Relaxed);
        let head = self.head.load(Ordering::Acquire);
        let mut i = tail;
        while i != head {
            // SAFETY: slots in [tail, head) were published by the producer's
            // release store of head, and it will not write them again before it
            // sees our release store of tail below.
            out.push(unsafe { *self.slots[i & self.mask].get() });
            i = i.wrapping_add(1);
        }
        self.tail.store(head, Ordering::Release);
        self.dropped.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(i: u64) -> RawSpan {
        RawSpan {
            name: "s",
            start: i,
            end: i + 1,
        }
    }

    #[test]
    fn wraps_and_drops_when_full() {
        let ring = Ring::new(4, 1, "t".into());
        let mut out = Vec::new();
        for round in 0..3u64 {
            for i in 0..6 {
                ring.push(span(round * 10 + i));
            }
            out.clear();
            let dropped = ring.drain_into(&mut out);
            assert_eq!(out.len(), 4);
            assert_eq!(out[0].start, round * 10);
            assert_eq!(out[3].start, round * 10 + 3);
            assert_eq!(dropped, 2 * (round + 1));
        }
    }

    #[test]
    fn producer_and_consumer_on_two_threads() {
        let ring = Ring::new(64, 1, "t".into());
        let total = 10_000u64;
        let mut seen = Vec::new();
        std::thread::scope(|s| {
            s.spawn(|| {
                for i in 0..total {
                    ring.push(span(i));
                }
            });
            let mut out = Vec::new();
            loop {
                out.clear();
                let dropped = ring.drain_into(&mut out);
                seen.extend(out.iter().map(|s| s.start));
                if seen.len() as u64 + dropped == total {
                    break;
                }
                std::thread::yield_now();
            }
        });
        // Whatever was not dropped arrives in order, each once.
        assert!(seen.windows(2).all(|w| w[0] < w[1]));
    }
}
