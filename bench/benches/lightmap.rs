//! Lightmap page encode (spec 000 "What is stored: MonoSH"): one 512 × 512 page (0.262
//! megatexels) dilated, BC6H-encoded with its exception test and BC4-encoded in five planes
//! (`lightmap::codec::encode_page`), the time a bake's "encode" phase spends per page.
//!
//! `cargo bench --workspace --bench lightmap`. The page is generated: 64 × 64-texel charts on
//! a 72-texel pitch (so ~79 % of the page is covered and every chart has a gutter), each a
//! smooth HDR gradient lit by a warm lamp falling off across it with a hot spot of 40× its
//! surround in one corner, the kind of block the exception pool is for. The figure to read is
//! the median time of one page divided by 0.262 144: milliseconds per megatexel.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dh_content::lightmap::codec::{encode_page, PageTexels};
use dh_content::lightmap::monosh::MonoShTexel;
use glam::Vec3;

const EDGE: u32 = 512;

fn page() -> PageTexels {
    let mut texels = Vec::with_capacity((EDGE * EDGE) as usize);
    let mut covered = Vec::with_capacity((EDGE * EDGE) as usize);
    for y in 0..EDGE {
        for x in 0..EDGE {
            let (cx, cy) = (x % 72, y % 72);
            let on = cx < 64 && cy < 64;
            covered.push(on);
            if !on {
                texels.push(MonoShTexel::default());
                continue;
            }
            let (u, v) = (cx as f32 / 64.0, cy as f32 / 64.0);
            let fall = 1.0 / (1.0 + 4.0 * (u * u + v * v));
            let hot = if cx < 3 && cy < 3 { 40.0 } else { 1.0 };
            let chart = ((x / 72) * 7 + (y / 72) * 3) % 5;
            let tint = Vec3::new(1.0, 0.8 + 0.04 * chart as f32, 0.6);
            texels.push(MonoShTexel {
                l0: tint * (0.05 + 2.0 * fall) * hot,
                direction: Vec3::new(u - 0.5, v - 0.5, 0.7).normalize() * 0.8,
                occlusion: 0.6 + 0.4 * v,
                indirect: 0.3 * u,
            });
        }
    }
    PageTexels {
        width: EDGE,
        height: EDGE,
        texels,
        covered,
    }
}

fn bench(c: &mut Criterion) {
    let p = page();
    let e = encode_page(0, &p, 2);
    let blocks = (EDGE / 4) * (EDGE / 4);
    println!(
        "lightmap encode: {EDGE}x{EDGE} page, {} of {blocks} block(s) exceptions ({:.1} %)",
        e.exceptions.len(),
        100.0 * e.exceptions.len() as f64 / f64::from(blocks)
    );
    let mut g = c.benchmark_group("lightmap");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Elements(u64::from(EDGE * EDGE)));
    g.bench_function("encode_page_512", |b| {
        b.iter(|| encode_page(0, black_box(&p), 2))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
