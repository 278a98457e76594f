//! The chunked parallel-for: coverage, per-index results, panics.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};

use dh_jobs::Scheduler;

#[test]
fn every_index_exactly_once_for_many_chunk_sizes() {
    for threads in [1, 2, 3] {
        let s = Scheduler::new(threads).unwrap();
        for len in [0usize, 1, 2, 17, 1000, 4099] {
            let items: Vec<usize> = (0..len).collect();
            for chunk in [0usize, 1, 3, 7, 64, len, len + 5] {
                let hits: Vec<AtomicU32> = (0..len).map(|_| AtomicU32::new(0)).collect();
                s.parallel_for(&items, chunk, |i, item| {
                    assert_eq!(i, *item);
                    hits[i].fetch_add(1, Ordering::Relaxed);
                });
                for (i, h) in hits.iter().enumerate() {
                    assert_eq!(
                        h.load(Ordering::Relaxed),
                        1,
                        "threads {threads} len {len} chunk {chunk} index {i}"
                    );
                }
            }
        }
    }
}

#[test]
fn mut_variant_writes_per_index() {
    for threads in [1, 2, 4] {
        let s = Scheduler::new(threads).unwrap();
        for chunk in [0usize, 1, 5, 128] {
            let mut items = vec![0u64; 3001];
            s.parallel_for_mut(&mut items, chunk, |i, x| *x += i as u64 * 3 + 1);
            assert!(items
                .iter()
                .enumerate()
                .all(|(i, x)| *x == i as u64 * 3 + 1));
        }
    }
}

#[test]
fn parallel_map_is_ordered_and_deterministic() {
    let input: Vec<u32> = (0..2500).map(|i| (i * 7) % 101).collect();
    let expected: Vec<String> = input
        .iter()
        .enumerate()
        .map(|(i, x)| format!("{i}:{x}"))
        .collect();
    for threads in [1, 2, 4] {
        let s = Scheduler::new(threads).unwrap();
        for chunk in [0usize, 1, 13, 4000] {
            let out = s.parallel_map(&input, chunk, |i, x| format!("{i}:{x}"));
            assert_eq!(out, expected);
        }
    }
    let s = Scheduler::new(2).unwrap();
    assert!(s.parallel_map(&[] as &[u8], 4, |_, x| *x).is_empty());
}

#[test]
fn nested_parallel_for() {
    let s = Scheduler::new(3).unwrap();
    let mut grid = vec![vec![0u32; 200]; 50];
    s.parallel_for_mut(&mut grid, 2, |row, cells| {
        s.parallel_for_mut(cells, 16, |col, c| *c = (row * 1000 + col) as u32);
    });
    for (row, cells) in grid.iter().enumerate() {
        assert!(cells
            .iter()
            .enumerate()
            .all(|(col, c)| *c == (row * 1000 + col) as u32));
    }
}

#[test]
fn a_panicking_body_is_resumed() {
    let s = Scheduler::new(2).unwrap();
    let items: Vec<u32> = (0..1000).collect();
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        s.parallel_for(&items, 10, |i, _| {
            if i == 555 {
                panic!("index 555");
            }
        })
    }));
    assert!(r.is_err());
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        s.parallel_map(&items, 10, |i, _| {
            if i == 3 {
                panic!("map");
            }
            String::from("x")
        })
    }));
    assert!(r.is_err());
    // Still usable afterwards.
    let out = s.parallel_map(&items, 10, |_, x| x + 1);
    assert_eq!(out[999], 1000);
}

struct Counted<'a>(&'a AtomicU32);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn parallel_map_drops_partial_results_when_it_panics() {
    for threads in [1, 2, 3] {
        let s = Scheduler::new(threads).unwrap();
        let items: Vec<u32> = (0..500).collect();
        let made = AtomicU32::new(0);
        let dropped = AtomicU32::new(0);
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            s.parallel_map(&items, 7, |i, _| {
                if i == 250 {
                    panic!("stop");
                }
                made.fetch_add(1, Ordering::SeqCst);
                Counted(&dropped)
            })
        }));
        assert!(r.is_err());
        assert_eq!(made.load(Ordering::SeqCst), dropped.load(Ordering::SeqCst));
        let out = s.parallel_map(&items, 7, |_, _| Counted(&dropped));
        assert_eq!(out.len(), 500);
    }
}
