//! Ticks of the logic city (`dh_bench::city`) through the engine host on 1 and 2
//! job-system threads: `cargo bench -p dh-bench --bench logic_city`.
//!
//! Each sample is a batch of 16 ticks (a quarter second of game time) continuing one run, so
//! the city is measured in its running state (pawns walking, doors and lifts moving, timers
//! firing), not its first ticks. `DH_CITY_BLOCKS` sets the blocks (default 64: 960 logic
//! entities, 64 pawns, so a short measurement gets enough samples on a 2-core machine); the
//! `dh-bench city` binary runs the full-size city.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dh_bench::city::{City, CityOptions, DEFAULT_SEED};
use dh_bench::harness::{CityRun, HarnessOptions};
use mimalloc::MiMalloc;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// Ticks per measured batch.
const BATCH: u64 = 16;

fn blocks() -> usize {
    std::env::var("DH_CITY_BLOCKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(64)
}

fn logic_city(c: &mut Criterion) {
    let blocks = blocks();
    let city = City::generate(&CityOptions {
        blocks,
        seed: DEFAULT_SEED,
    })
    .expect("generate the city");
    let mut g = c.benchmark_group(format!("logic_city_{blocks}_blocks"));
    g.throughput(Throughput::Elements(BATCH));
    for workers in [1usize, 2] {
        let mut run = CityRun::start(
            &city,
            HarnessOptions {
                workers,
                keep_trace: false,
            },
        )
        .expect("start the city");
        // Past the first second: every fan is up to speed and the pawns are walking.
        run.run(64).expect("warm-up ticks");
        g.bench_with_input(
            BenchmarkId::new("ticks", format!("{workers}_workers")),
            &workers,
            |b, _| {
                b.iter_custom(|batches| {
                    let start = Instant::now();
                    for _ in 0..batches {
                        run.run(BATCH).expect("tick the city");
                    }
                    start.elapsed()
                })
            },
        );
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4))
        .sample_size(10);
    targets = logic_city
}
criterion_main!(benches);
