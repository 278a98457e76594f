//! Content benchmarks, side by side with peers in the same run:
//! * JSONC reading (`dh_content::jsonc::parse`, spans kept) against `serde_json` parsing the
//!   same bytes into `serde_json::Value` (no spans, no comments), on three inputs: the core
//!   logic map (12 KB), a generated map of 8000 records (3.6 MB) and a
//!   generated array of 200000 numbers (1.9 MB); each input is pretty-printed JSON without
//!   comments, so serde_json reads the very same bytes;
//! * the whole core pallet compiled from its sources (what `dh-engine` pays at start-up
//!   for the embedded core pallet).
//!
//! `cargo bench -p dh-bench --bench content`
//! (`-- --warm-up-time 1 --measurement-time 3 parse` for the parsers alone)

use std::fmt::Write;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};

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

/// A deterministic xorshift stream for the generated inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A coordinate like the ones maps hold: a multiple of 0.05 in [-50, 50).
    fn coord(&mut self) -> f64 {
        ((self.next() % 2000) as f64 - 1000.0) / 20.0
    }
}

/// A dh.map-shaped document of `records` records written the way the core maps write
/// theirs: alternately a box brush and a logic object (components, a connection with an
/// action, a few escapes in its name), pretty-printed like [`logic_map_json`].
fn generated_map_json(records: usize) -> String {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut s = String::from(
        "{\"name\": \"Generated\", \"description\": \"A benchmark map.\", \
         \"materials\": {\"grid\": \"/materials/dev-grid.dh-mat\", \
         \"button\": \"/materials/dev-red.dh-mat\"}, \"objects\": [",
    );
    for i in 0..records {
        let r = rng.next();
        let id = format!(
            "{:08x}-{:04x}-4{:03x}-b{:03x}-{:012x}",
            r as u32,
            (r >> 32) as u16,
            (r >> 48) & 0xfff,
            (r >> 20) & 0xfff,
            rng.next() & 0xffff_ffff_ffff
        );
        let (x, y, z) = (rng.coord(), rng.coord().abs() / 10.0, rng.coord());
        if i % 2 == 0 {
            let _ = write!(
                s,
                "{{\"$type\": \"boxBrush\", \"id\": \"{id}\", \"name\": \"wall{i}\", \
                 \"position\": [{x}, {y}, {z}], \"size\": [{}, 3, 0.5], \"material\": \"grid\"}},",
                (r % 40) as f64 / 4.0 + 0.25
            );
        } else {
            let _ = write!(
                s,
                "{{\"$type\": \"object\", \"id\": \"{id}\", \"name\": \"button \\\"{i}\\\"\", \
                 \"position\": [{x}, {y}, {z}], \"rotation\": [0, {}, 0], \"components\": [\
                 {{\"$type\": \"dh.box\", \"size\": [0.5, 0.5, 0.3], \"material\": \"button\"}}, \
                 {{\"$type\": \"dh.button\"}}], \"connections\": [{{\"output\": \"onPressed\", \
                 \"actions\": [{{\"call\": {{\"target\": \"door{}\", \"input\": \"toggle\", \
                 \"param\": true}}}}]}}]}},",
                r % 360,
                i + 1
            );
        }
    }
    s.push_str("]}");
    dh_content::jsonc::parse(&s)
        .expect("the generated map parses")
        .to_json_pretty()
}

/// A flat array of `n` numbers like a mesh or voxel payload: integers, three-decimal
/// coordinates and shortest-form `f32` values.
fn generated_numbers_json(n: usize) -> String {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut s = String::from("[");
    for i in 0..n {
        let r = rng.next();
        if i > 0 {
            s.push_str(", ");
        }
        let _ = match i % 3 {
            0 => write!(s, "{}", (r % 100_000) as i64 - 50_000),
            1 => write!(s, "{:.3}", (r % 1_000_000) as f64 / 1000.0 - 500.0),
            _ => write!(
                s,
                "{}",
                f32::from_bits((r as u32 & 0x3fff_ffff) | 0x3c00_0000)
            ),
        };
    }
    s.push(']');
    s
}

fn parse_side_by_side(c: &mut Criterion, group: &str, text: &str, samples: usize) {
    // Both parsers must accept the input, or the comparison means nothing.
    assert!(
        dh_content::jsonc::parse(text).is_ok(),
        "{group}: jsonc rejects it"
    );
    assert!(
        serde_json::from_str::<serde_json::Value>(text).is_ok(),
        "{group}: serde_json rejects it"
    );
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(samples);
    if samples < 100 {
        // One iteration a sample: the large inputs take tens of milliseconds each.
        g.sampling_mode(SamplingMode::Flat);
    }
    g.bench_function("dh_content::jsonc", |b| {
        b.iter(|| dh_content::jsonc::parse(std::hint::black_box(text)).map(|v| v.span))
    });
    g.bench_function("serde_json::Value", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(std::hint::black_box(text)).is_ok())
    });
    g.finish();
}

fn jsonc_vs_serde(c: &mut Criterion) {
    parse_side_by_side(c, "parse logic-map", &logic_map_json(), 100);
    parse_side_by_side(
        c,
        "parse generated map (8000 records)",
        &generated_map_json(8000),
        30,
    );
    parse_side_by_side(
        c,
        "parse number array (200000 numbers)",
        &generated_numbers_json(200_000),
        30,
    );
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
