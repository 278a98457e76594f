//! Model collision cooking against the spec's 1.7 M-triangle figures (runtime assets,
//! "Cooked map collision": ~2.1 s to extract a map's collision triangles, ~1.3 s to weld
//! them and build the tree, ~17 ms to read a warm cook back).
//!
//! `cargo bench -p dh-bench --bench colcook`. The input is a "city" of ~1.7 M triangles:
//! `../shared/fixtures/gltf/Duck.glb` (read in place) tiled as 404 nodes, each with its own
//! copy of the duck's mesh moved 5 m further along a grid, so every node is a distinct
//! mesh and cooks on its own (without the fixture, a generated 922 × 922-quad grid of
//! 1.7 M triangles split into 404 strips stands in, and a line says so). Measured, per
//! iteration over the whole city:
//!
//! * `extract`: every part's triangles out of the imported model into its frame
//!   (`colcook::cook::extract`);
//! * `key`: the cache key of every mesh (`colcook::mesh_key`, SHA-256 over its triangles);
//! * `cache_read`: every cooked mesh read back from the on-disk cache and decoded, keys in
//!   hand (the spec's warm read);
//! * `weld_tree`: welding, degenerate culling and the BVH build (`colcook::cook::cook`);
//! * `bake_cold`: the whole `MapCollision` bake of the placement with no cache, then the
//!   companion's bytes (`finish`);
//! * `bake_warm`: the same with every mesh already in an on-disk cache (key, read, decode,
//!   and the companion's bytes).
//!
//! The load side (a pallet that ships no companion; `colcook::cache`):
//!
//! * `load_key`: the load cache's key of the model (SHA-256 over the format version, the
//!   model's path and its pallet signature, CRC32 + length), all a warm load hashes;
//! * `load_cold`: `cook_placement_at_load` with no entry on disk: extract, weld and cull
//!   every mesh of the placement and write the one entry (the model already imported);
//! * `load_warm`: the same with the entry on disk: the entry read, decoded and every part
//!   answered from it; the model is never touched (its import closure fails the run);
//! * `load_read`: the entry read and decoded alone (`CookCache::read_geometry`);
//! * `load_cold_glb`: `load_cold` from the model's GLB bytes (`gltf::write_glb` of the
//!   city): the glTF decode the spec's 2.1 s is "essentially all of", then the cook and the
//!   entry written: a whole cold load but the pallet read;
//! * `companion_read`: the shipped companion (`maps/city.dh-map.dh-colcook`, in memory)
//!   decoded and checked, what a start with a companion does instead.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use dh_content::colcook::cache::{cook_placement_at_load, load_key};
use dh_content::colcook::{cook, decode_companion, mesh_key, CookCache, MapCollision};
use dh_content::gltf::{import_glb, write_glb, Mesh, Model, Node, Primitive};
use dh_content::mesh::MeshVertex;
use dh_content::parts::{bake_parts_table, match_identities, PartsTable, Placement};
use dh_content::schema::common::Guid;
use dh_content::schema::map::AutoCollision;

const TARGET_TRIANGLES: usize = 1_700_000;
const TILES: usize = 404;

/// The meshes the city is tiled from: the duck's, or strips of a generated grid.
fn source_meshes() -> Vec<Mesh> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/gltf/Duck.glb");
    if let Some(m) = std::fs::read(&path)
        .ok()
        .and_then(|b| import_glb(&b, "Duck.glb").ok())
    {
        return m.meshes;
    }
    eprintln!(
        "colcook: {} is absent; tiling a generated grid instead",
        path.display()
    );
    let n = 922usize;
    let side = n + 1;
    let mut vertices = Vec::with_capacity(side * side);
    for z in 0..side {
        for x in 0..side {
            let (fx, fz) = (x as f32 * 0.25, z as f32 * 0.25);
            vertices.push(MeshVertex {
                position: [fx, (fx * 0.3).sin() * (fz * 0.2).cos(), fz],
                ..MeshVertex::default()
            });
        }
    }
    let mut indices = Vec::with_capacity(n * n * 6);
    for z in 0..n {
        for x in 0..n {
            let a = (z * side + x) as u32;
            let c = a + side as u32;
            indices.extend([a, c, a + 1, a + 1, c, c + 1]);
        }
    }
    vec![Mesh {
        name: "grid".into(),
        primitives: vec![Primitive {
            vertices,
            indices,
            material: Some("ground".into()),
            ..Primitive::default()
        }],
        ..Mesh::default()
    }]
}

/// The city: `TILES` nodes, each drawing its own offset copy of the source meshes (or,
/// for the grid, one row-strip of it each).
fn city() -> Model {
    let src = source_meshes();
    let mut model = Model {
        name: "city".into(),
        ..Model::default()
    };
    let per: usize = src.iter().map(Mesh::triangle_count).sum();
    if src.len() == 1 && per >= TARGET_TRIANGLES {
        // The grid: split its index list into TILES strips.
        let p = &src[0].primitives[0];
        let tris = p.indices.len() / 3;
        for t in 0..TILES {
            let (a, b) = (t * tris / TILES, (t + 1) * tris / TILES);
            model.meshes.push(Mesh {
                name: format!("strip{t}"),
                primitives: vec![Primitive {
                    indices: p.indices[a * 3..b * 3].to_vec(),
                    ..p.clone()
                }],
                ..Mesh::default()
            });
        }
    } else {
        for t in 0..TILES {
            let off = [(t % 20) as f32 * 5.0, 0.0, (t / 20) as f32 * 5.0];
            model.meshes.push(Mesh {
                name: format!("duck{t}"),
                primitives: src
                    .iter()
                    .flat_map(|m| &m.primitives)
                    .map(|p| Primitive {
                        vertices: p
                            .vertices
                            .iter()
                            .map(|v| MeshVertex {
                                position: [
                                    v.position[0] * 0.01 + off[0],
                                    v.position[1] * 0.01 + off[1],
                                    v.position[2] * 0.01 + off[2],
                                ],
                                ..*v
                            })
                            .collect(),
                        ..p.clone()
                    })
                    .collect(),
                ..Mesh::default()
            });
        }
    }
    for t in 0..model.meshes.len() {
        let mut n = Node::new(format!("tile{t}"));
        n.mesh = Some(t);
        model.nodes.push(n);
        model.roots.push(t);
    }
    model
}

fn table(model: &Model, materials: &BTreeMap<String, String>) -> PartsTable {
    let ids = match_identities(model, "bench:city.glb", None);
    bake_parts_table(model, &ids, &placement(materials))
}

fn placement(materials: &BTreeMap<String, String>) -> Placement<'_> {
    Placement {
        instance_id: Guid([1; 16]),
        pose: glam::DMat4::IDENTITY,
        first_id: 0,
        materials,
    }
}

fn bench(c: &mut Criterion) {
    let model = city();
    let materials = BTreeMap::new();
    let parts = table(&model, &materials);
    let tris = model.triangle_count();
    let verts: usize = model
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .map(|p| p.vertices.len())
        .sum();
    let soups: Vec<cook::Soup> = model
        .meshes
        .iter()
        .map(|m| cook::extract(m, None))
        .collect();
    let welded: usize = soups.iter().map(|s| cook::weld(s).vertices.len()).sum();
    eprintln!(
        "colcook: city of {} nodes, {tris} triangles, {verts} vertices ({welded} welded)",
        model.nodes.len()
    );

    let cache_dir = std::env::temp_dir().join(format!("dh-colcook-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache_dir);
    let bake = |cache: Option<CookCache>| {
        let mut col = MapCollision::new(AutoCollision::Mesh, None, cache);
        let out = col.bake_instance(&model, &parts, &placement(&materials), &[]);
        black_box(out.colliders.len());
        col.finish("maps/city.dh-map")
    };
    // Fill the cache once, and say how big the companion is.
    let companion = {
        let mut col =
            MapCollision::new(AutoCollision::Mesh, None, Some(CookCache::new(&cache_dir)));
        let _ = col.bake_instance(&model, &parts, &placement(&materials), &[]);
        let cooked = col.stats.cooked;
        let done = col.finish("maps/city.dh-map");
        let bytes = done.companion.map(|c| c.bytes).unwrap_or_default();
        eprintln!(
            "colcook: {cooked} meshes cooked, companion {} bytes",
            bytes.len()
        );
        bytes
    };

    let mut g = c.benchmark_group("colcook");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(tris as u64));
    g.bench_function("extract", |b| {
        b.iter(|| {
            let mut n = 0;
            for m in &model.meshes {
                n += cook::extract(m, None).triangles.len();
            }
            black_box(n)
        })
    });
    g.bench_function("key", |b| {
        b.iter(|| {
            let mut n = 0u8;
            for m in &model.meshes {
                n ^= mesh_key(m, None)[0];
            }
            black_box(n)
        })
    });
    let keys: Vec<[u8; 32]> = model.meshes.iter().map(|m| mesh_key(m, None)).collect();
    g.bench_function("cache_read", |b| {
        let cache = CookCache::new(&cache_dir);
        b.iter(|| {
            let mut n = 0;
            for k in &keys {
                n += cache.read(k).map_or(0, |m| m.triangles.len());
            }
            assert_eq!(n, tris, "every mesh is in the cache");
            black_box(n)
        })
    });
    g.bench_function("weld_tree", |b| {
        b.iter(|| {
            let mut n = 0;
            for s in &soups {
                n += cook::cook(s, [0; 32]).0.nodes.len();
            }
            black_box(n)
        })
    });
    g.bench_function("bake_cold", |b| {
        b.iter(|| black_box(bake(None).cook.meshes.len()))
    });
    g.bench_function("bake_warm", |b| {
        b.iter(|| black_box(bake(Some(CookCache::new(&cache_dir))).cook.meshes.len()))
    });

    // The load side: the compiled parts (colliders explicit), as a pallet would ship them.
    let mut compiled = parts.clone();
    {
        let mut col = MapCollision::new(AutoCollision::Mesh, None, None);
        let out = col.bake_instance(&model, &compiled, &placement(&materials), &[]);
        out.apply(&mut compiled.parts);
    }
    let load_dir = cache_dir.join("load");
    let load_cache = CookCache::new(&load_dir);
    // A signature as a pallet's file table would record it for the model's entry.
    let (crc, len) = (0x1234_5678u32, 123_456_789u64);
    let key = load_key("meshes/city.glb", crc, len);
    let pose = glam::DMat4::IDENTITY;
    let cold = || {
        cook_placement_at_load(Some(&load_cache), &key, &pose, &compiled.parts, || {
            Ok::<_, ()>(&model)
        })
        .map(|l| l.stats)
    };
    let _ = std::fs::remove_file(load_cache.path(&key));
    if let Ok(s) = cold() {
        let bytes = std::fs::metadata(load_cache.path(&key)).map_or(0, |m| m.len());
        eprintln!(
            "colcook: load cook: {} meshes, {} triangles, entry {bytes} bytes",
            s.cooked, s.triangles
        );
    }
    g.bench_function("load_key", |b| {
        b.iter(|| black_box(load_key(black_box("meshes/city.glb"), crc, len)))
    });
    g.bench_function("load_cold", |b| {
        b.iter_batched(
            || {
                let _ = std::fs::remove_file(load_cache.path(&key));
            },
            |_| black_box(cold().map(|s| s.cooked)),
            BatchSize::PerIteration,
        )
    });
    // Leave the entry in place for the warm runs.
    let _ = cold();
    g.bench_function("load_warm", |b| {
        b.iter(|| {
            let l = cook_placement_at_load(Some(&load_cache), &key, &pose, &compiled.parts, || {
                Err::<&Model, &str>("the warm load read the model")
            });
            let l = l.unwrap_or_else(|e| panic!("{e}"));
            assert!(l.stats.hit, "the warm load is a hit");
            assert_eq!(l.stats.triangles, tris, "every triangle from the entry");
            black_box(l.cook.meshes.len())
        })
    });
    g.bench_function("load_read", |b| {
        b.iter(|| {
            let e = load_cache.read_geometry(&key).expect("the entry reads");
            black_box(e.meshes.len())
        })
    });
    let glb = write_glb(&model).expect("the city writes as a GLB");
    eprintln!("colcook: city GLB {} bytes", glb.len());
    g.bench_function("load_cold_glb", |b| {
        b.iter_batched(
            || {
                let _ = std::fs::remove_file(load_cache.path(&key));
            },
            |_| {
                let l =
                    cook_placement_at_load(Some(&load_cache), &key, &pose, &compiled.parts, || {
                        import_glb(&glb, "city.glb")
                    });
                black_box(l.map(|l| l.stats.cooked).ok())
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("companion_read", |b| {
        b.iter(|| {
            let c = decode_companion(&companion, "city.dh-colcook").expect("decodes");
            black_box(c.meshes.len())
        })
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&cache_dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
