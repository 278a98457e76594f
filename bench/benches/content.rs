//! Content benchmarks, side by side with peers in the same run:
//! * JSONC reading (`dh_content::jsonc::parse`, spans kept) against `serde_json` parsing the
//!   same bytes into `serde_json::Value` (no spans, no comments);
//! * the whole core pallet compiled from its sources (what `dh-engine` pays at start-up
//!   for the embedded core pallet).
//!
//! `cargo bench -p dh-bench --bench content`

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn core_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content/core")
}

/// The logic-map source with its comments stripped, so serde_json can read it too.
fn logic_map_json() -> String {
    let text = std::fs::read_to_string(core_dir().join("maps/logic-map.dh-map"))
        .expect("content/core/maps/logic-map.dh-map");
    dh_content::jsonc::parse(&text)
        .expect("the logic map parses")
        .to_json_pretty()
}

fn jsonc_vs_serde(c: &mut Criterion) {
    let text = logic_map_json();
    let mut g = c.benchmark_group("parse logic-map");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("dh_content::jsonc", |b| {
        b.iter(|| dh_content::jsonc::parse(std::hint::black_box(&text)).map(|v| v.span))
    });
    g.bench_function("serde_json::Value", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(std::hint::black_box(&text)).is_ok())
    });
    g.finish();
}

fn compile_core(c: &mut Criterion) {
    let dir = core_dir();
    let opts = dh_content::compile::CompileOptions {
        write: true,
        progress: None,
    };
    c.bench_function("compile content/core to a pallet", |b| {
        b.iter(|| {
            dh_content::compile::compile(&dir, &opts)
                .pallet
                .map(|p| p.len())
        })
    });
}

criterion_group!(benches, jsonc_vs_serde, compile_core);
criterion_main!(benches);
