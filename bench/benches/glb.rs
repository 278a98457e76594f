//! GLB import throughput in triangles per second: `dh_content::gltf::import_glb` from the
//! file's bytes to a `Model` of 72-byte `MeshVertex` primitives (JSON, accessors, flat or
//! authored normals, tangents read or derived from UV deltas, color sets), then the part
//! table over it (identity matching, content hashes, world bounds).
//!
//! `cargo bench -p dh-bench --bench glb`. Inputs: a generated 512 × 512-quad terrain grid
//! (524,288 triangles) with NORMAL and TEXCOORD_0 and no TANGENT (the derived-tangent
//! path), the same grid with TANGENT and COLOR_0 authored, and the fixtures under
//! `../shared/fixtures/gltf` that a map imports (read in place; without the folder only the
//! grids run, and a line says so). Before measuring, a line per input on stderr gives its
//! triangles, vertices and bytes.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dh_content::gltf::import_glb;
use dh_content::parts::{bake_parts_table, match_identities, Placement};
use dh_content::schema::common::Guid;

/// A GLB of one `n × n`-quad grid with gentle height, NORMAL and TEXCOORD_0, and when
/// `rich` also TANGENT and a non-white COLOR_0.
fn grid(n: usize, rich: bool) -> Vec<u8> {
    let side = n + 1;
    let mut pos = Vec::with_capacity(side * side * 3);
    let mut nrm = Vec::new();
    let mut uv = Vec::new();
    let mut tan = Vec::new();
    let mut col = Vec::new();
    for z in 0..side {
        for x in 0..side {
            let (fx, fz) = (x as f32, z as f32);
            pos.extend([fx, (fx * 0.1).sin() * (fz * 0.07).cos(), fz]);
            nrm.extend([0.0f32, 1.0, 0.0]);
            uv.extend([fx / n as f32, fz / n as f32]);
            tan.extend([1.0f32, 0.0, 0.0, 1.0]);
            col.extend([(x % 256) as u8, (z % 256) as u8, 128, 255]);
        }
    }
    let mut idx = Vec::with_capacity(n * n * 6);
    for z in 0..n {
        for x in 0..n {
            let a = (z * side + x) as u32;
            let b = a + 1;
            let c = a + side as u32;
            let d = c + 1;
            idx.extend([a, c, b, b, c, d]);
        }
    }
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut push = |data: Vec<u8>, comp: u32, ty: &str, count: usize, norm: bool| {
        views.push(format!(
            r#"{{"buffer":0,"byteOffset":{},"byteLength":{}}}"#,
            bin.len(),
            data.len()
        ));
        bin.extend(data);
        accessors.push(format!(
            r#"{{"bufferView":{},"componentType":{comp},"type":"{ty}","count":{count}{}}}"#,
            views.len() - 1,
            if norm { r#","normalized":true"# } else { "" }
        ));
        accessors.len() - 1
    };
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let vc = side * side;
    let p = push(f(&pos), 5126, "VEC3", vc, false);
    let no = push(f(&nrm), 5126, "VEC3", vc, false);
    let t0 = push(f(&uv), 5126, "VEC2", vc, false);
    let mut attrs = format!(r#""POSITION":{p},"NORMAL":{no},"TEXCOORD_0":{t0}"#);
    if rich {
        let ta = push(f(&tan), 5126, "VEC4", vc, false);
        let c0 = push(col, 5121, "VEC4", vc, true);
        attrs.push_str(&format!(r#","TANGENT":{ta},"COLOR_0":{c0}"#));
    }
    let i = push(
        idx.iter().flat_map(|x| x.to_le_bytes()).collect(),
        5125,
        "SCALAR",
        idx.len(),
        false,
    );
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],"bufferViews":[{}],"accessors":[{}],"materials":[{{"name":"ground"}}],"meshes":[{{"name":"grid","primitives":[{{"attributes":{{{attrs}}},"indices":{i},"material":0}}]}}],"nodes":[{{"name":"terrain","mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#,
        bin.len(),
        views.join(","),
        accessors.join(",")
    );
    let mut j = json.into_bytes();
    while j.len() & 3 != 0 {
        j.push(b' ');
    }
    while bin.len() & 3 != 0 {
        bin.push(0);
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend(((28 + j.len() + bin.len()) as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(0x4E4F534Au32.to_le_bytes());
    out.extend(j);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(0x004E4942u32.to_le_bytes());
    out.extend(bin);
    out
}

fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![
        ("grid-512-derived-tangents".to_owned(), grid(512, false)),
        ("grid-512-authored".to_owned(), grid(512, true)),
    ];
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/gltf");
    let Ok(rd) = std::fs::read_dir(&root) else {
        eprintln!(
            "glb: {} is absent; benchmarking the generated grids only",
            root.display()
        );
        return out;
    };
    let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    files.sort();
    for f in files {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        match import_glb(&bytes, &name) {
            // Only inputs big enough to measure.
            Ok(m) if m.triangle_count() >= 4000 => out.push((name, bytes)),
            Ok(_) => {}
            Err(e) => eprintln!("glb: {name} is not a map import ({e})"),
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let inputs = inputs();
    let mut g = c.benchmark_group("glb_import");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    let materials = BTreeMap::new();
    for (name, bytes) in &inputs {
        let Ok(model) = import_glb(bytes, name) else {
            continue;
        };
        let tris = model.triangle_count() as u64;
        let verts: usize = model
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.vertices.len())
            .sum();
        eprintln!(
            "glb: {name}: {tris} triangles, {verts} vertices, {} bytes",
            bytes.len()
        );
        g.throughput(Throughput::Elements(tris));
        g.bench_with_input(BenchmarkId::new("import", name), bytes, |b, bytes| {
            b.iter(|| black_box(import_glb(black_box(bytes), "bench").map(|m| m.triangle_count())))
        });
        g.bench_with_input(BenchmarkId::new("parts_table", name), &model, |b, model| {
            b.iter(|| {
                let ids = match_identities(model, "bench:model.glb", None);
                let t = bake_parts_table(
                    model,
                    &ids,
                    &Placement {
                        instance_id: Guid([1; 16]),
                        pose: glam::DMat4::IDENTITY,
                        first_id: 0,
                        materials: &materials,
                    },
                );
                black_box(t.parts.len())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
