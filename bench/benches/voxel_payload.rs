//! The `.dh-vox.bin` payload codec: encode and decode throughput (cells per second) and
//! bytes per cell, on the `.vox` fixtures (imported by `dh_content::voxel::import`) and on
//! a generated Minecraft-like terrain of 256 × 96 × 256 blocks at 16-block chunks (air a
//! block, as in a world, with a biome layer at scale 4).
//!
//! `cargo bench -p dh-bench --bench voxel_payload`. The fixtures are read from
//! `../shared/fixtures` beside the repository; without that folder only the terrain
//! runs, and a line says so. Before measuring, a table on stderr gives each input's
//! chunks, cells, payload bytes, bytes per cell and the modes the writer chose.
//!
//! A "cell" is one cell of a chunk that holds anything (`VoxelPayload::stored_cells`):
//! what the encoder packs and the decoder fills. In the table, `bytes` is the whole
//! payload (a `.vox` carries a 256-entry palette and its source chunks as extras),
//! `regions` the chunk tables and records alone; `B/cell` and `rB/cell` divide them by the
//! cells, `B/filled` the payload by the cells that are not `dh:empty`. `decode` is cold
//! (open, every chunk table, every chunk); `read_chunks` reads every chunk through a
//! reader already open.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dh_content::voxel::import::import_vox_bytes;
use dh_content::voxel::payload::{
    encode, ChunkKey, Grid, GridInfo, Layer, PaletteEntry, PayloadAxes, PayloadReader, Property,
    UpAxis, VoxelPayload, CODEC_LZ4, MODE_PACKED, MODE_SPARSE, MODE_UNIFORM,
};

/// Every input: a name and its payload.
fn inputs() -> Vec<(String, VoxelPayload)> {
    let mut out = vec![("terrain-256x96x256".to_owned(), terrain())];
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures");
    if !root.is_dir() {
        eprintln!(
            "voxel_payload: {} is absent; benchmarking the generated terrain only",
            root.display()
        );
        return out;
    }
    for dir in ["vox", "teardown"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let name = format!(
                "{dir}/{}",
                f.file_name().unwrap_or_default().to_string_lossy()
            );
            let Ok(bytes) = std::fs::read(&f) else {
                continue;
            };
            match import_vox_bytes(&name, &bytes, None) {
                Ok(imp) => out.push((name, imp.payload)),
                Err(e) => eprintln!("voxel_payload: {name} not imported: {e}"),
            }
        }
    }
    out
}

/// A small deterministic hash for the terrain's noise.
fn hash(x: i32, z: i32, salt: u32) -> u32 {
    let mut h = (x as u32).wrapping_mul(0x9E37_79B1) ^ (z as u32).wrapping_mul(0x85EB_CA77) ^ salt;
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h
}

/// 256 × 96 × 256 blocks of rolling terrain with water, sand, ores and trees, Minecraft
/// style: air is a palette entry, so the sky is stored as uniform chunks.
fn terrain() -> VoxelPayload {
    let mut p = VoxelPayload::default();
    p.header.platform = "com.mojang.minecraft".into();
    p.header.format = "anvil".into();
    p.header.chunk_edge = 16;
    p.header.axes = PayloadAxes {
        up: UpAxis::Y,
        left_handed: false,
    };
    let mut block = |id: &str, props: &[(&str, &str)]| {
        let mut e = PaletteEntry::new("minecraft", id);
        e.properties = props
            .iter()
            .map(|(k, v)| Property::string(*k, *v))
            .collect();
        p.palette.push(e);
        p.palette.len() as u32 - 1
    };
    let air = block("air", &[]);
    let stone = block("stone", &[]);
    let dirt = block("dirt", &[]);
    let grass = block("grass_block", &[("snowy", "false")]);
    let water = block("water", &[("level", "0")]);
    let sand = block("sand", &[]);
    let log = block("oak_log", &[("axis", "y")]);
    let leaves = block("oak_leaves", &[("distance", "1"), ("persistent", "false")]);
    let coal = block("coal_ore", &[]);
    let iron = block("iron_ore", &[]);
    let bedrock = block("bedrock", &[]);
    let plains = block("plains", &[]);
    let forest = block("forest", &[]);
    let river = block("river", &[]);
    p.layers.push(Layer {
        name: "biome".into(),
        cell_scale: 4,
    });
    let (sx, sy, sz) = (256, 96, 256);
    p.grids.push(Grid::new(GridInfo::new(
        "minecraft:overworld",
        [0, 0, 0],
        [sx, sy, sz],
    )));
    let sea = 44;
    let height = |x: i32, z: i32| -> i32 {
        let f = 46.0
            + 9.0 * (x as f32 / 23.0).sin()
            + 7.0 * (z as f32 / 17.0).cos()
            + 3.0 * ((x + z) as f32 / 11.0).sin();
        f as i32 + (hash(x, z, 1) % 2) as i32
    };
    for cz in 0..sz / 16 {
        for cy in 0..sy / 16 {
            for cx in 0..sx / 16 {
                let mut cells = vec![air; 4096];
                for lz in 0..16 {
                    for lx in 0..16 {
                        let (x, z) = (cx * 16 + lx, cz * 16 + lz);
                        let h = height(x, z);
                        for ly in 0..16 {
                            let y = cy * 16 + ly;
                            let v = if y == 0 {
                                bedrock
                            } else if y < h - 3 {
                                match hash(x, z, y as u32) % 100 {
                                    0 => coal,
                                    1 if y < 30 => iron,
                                    _ => stone,
                                }
                            } else if y < h {
                                if h <= sea + 1 {
                                    sand
                                } else {
                                    dirt
                                }
                            } else if y == h {
                                if h <= sea + 1 {
                                    sand
                                } else {
                                    grass
                                }
                            } else if y <= sea {
                                water
                            } else {
                                air
                            };
                            cells[(lx + 16 * (ly + 16 * lz)) as usize] = v;
                        }
                    }
                }
                p.grids[0].chunks.insert(
                    ChunkKey {
                        layer: 0,
                        chunk: [cx, cy, cz],
                    },
                    cells,
                );
                // Biomes at 4 × 4 × 4 blocks: forest inland, river by the water.
                let mut biomes = vec![plains; 64];
                for (i, b) in biomes.iter_mut().enumerate() {
                    let (bx, bz) = (cx * 16 + (i % 4) as i32 * 4, cz * 16 + (i / 16) as i32 * 4);
                    let h = height(bx, bz);
                    *b = if h <= sea + 1 {
                        river
                    } else if hash(bx / 32, bz / 32, 7).is_multiple_of(3) {
                        forest
                    } else {
                        plains
                    };
                }
                p.grids[0].chunks.insert(
                    ChunkKey {
                        layer: 1,
                        chunk: [cx, cy, cz],
                    },
                    biomes,
                );
            }
        }
    }
    // Trees: a trunk of 5 and a ball of leaves, on about one column in 90 above water.
    for z in 3..sz - 3 {
        for x in 3..sx - 3 {
            let h = height(x, z);
            if h <= sea + 1 || !hash(x, z, 3).is_multiple_of(90) || h + 8 >= sy {
                continue;
            }
            for dy in 1..=5 {
                p.set_cell(0, 0, [x, h + dy, z], log);
            }
            for dz in -2i32..=2 {
                for dx in -2i32..=2 {
                    for dy in 4..=7 {
                        let r = dx * dx + dz * dz + (dy - 5) * (dy - 5);
                        if r <= 5 && !(dx == 0 && dz == 0 && dy <= 5) {
                            p.set_cell(0, 0, [x + dx, h + dy, z + dz], leaves);
                        }
                    }
                }
            }
        }
    }
    p
}

/// Cells that hold something other than `dh:empty`.
fn non_empty(p: &VoxelPayload) -> u64 {
    p.grids
        .iter()
        .flat_map(|g| g.chunks.values())
        .map(|c| c.iter().filter(|&&v| v != 0).count() as u64)
        .sum()
}

fn report(inputs: &[(String, VoxelPayload)]) {
    eprintln!(
        "{:<34} {:>6} {:>9} {:>9} {:>9} {:>9} {:>7} {:>8} {:>8}  modes u/p/s, LZ4",
        "input", "chunks", "cells", "filled", "bytes", "regions", "B/cell", "rB/cell", "B/filled"
    );
    for (name, p) in inputs {
        let shards = encode(p).expect("encode");
        let bytes: usize = shards.iter().map(|s| s.len()).sum();
        let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
        let r = PayloadReader::open(&views).expect("open");
        let (mut modes, mut lz4, mut chunks) = ([0usize; 3], 0usize, 0usize);
        for ri in 0..r.regions().len() {
            for ci in 0..r.chunk_table(ri).expect("table").entries().len() {
                let (codec, body) = r.chunk_body(ri, ci).expect("body");
                chunks += 1;
                lz4 += (codec == CODEC_LZ4) as usize;
                match body[0] {
                    MODE_UNIFORM => modes[0] += 1,
                    MODE_PACKED => modes[1] += 1,
                    MODE_SPARSE => modes[2] += 1,
                    _ => {}
                }
            }
        }
        let cells = p.stored_cells();
        let filled = non_empty(p);
        let region_bytes: u64 = r.regions().iter().map(|e| e.length).sum();
        eprintln!(
            "{:<34} {:>6} {:>9} {:>9} {:>9} {:>9} {:>7.4} {:>8.4} {:>8.3}  {}/{}/{}, {}",
            name,
            chunks,
            cells,
            filled,
            bytes,
            region_bytes,
            bytes as f64 / cells.max(1) as f64,
            region_bytes as f64 / cells.max(1) as f64,
            bytes as f64 / filled.max(1) as f64,
            modes[0],
            modes[1],
            modes[2],
            lz4
        );
    }
}

fn codec(c: &mut Criterion) {
    let inputs = inputs();
    report(&inputs);
    let mut g = c.benchmark_group("voxel_payload");
    for (name, p) in &inputs {
        let cells = p.stored_cells();
        if cells == 0 {
            continue;
        }
        g.throughput(Throughput::Elements(cells));
        g.bench_with_input(BenchmarkId::new("encode", name), p, |b, p| {
            b.iter(|| black_box(encode(black_box(p)).expect("encode")))
        });
        let shards = encode(p).expect("encode");
        let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
        // Cold: open, every chunk table, every chunk.
        g.bench_with_input(BenchmarkId::new("decode", name), &views, |b, views| {
            let mut buf = Vec::new();
            b.iter(|| {
                let r = PayloadReader::open(black_box(views)).expect("open");
                for ri in 0..r.regions().len() {
                    for ci in 0..r.chunk_table(ri).expect("table").entries().len() {
                        r.read_chunk_into(ri, ci, &mut buf).expect("chunk");
                        black_box(&buf);
                    }
                }
            })
        });
        // Warm: an open reader with its tables parsed, every chunk.
        let r = PayloadReader::open(&views).expect("open");
        g.bench_with_input(BenchmarkId::new("read_chunks", name), &r, |b, r| {
            let mut buf = Vec::new();
            b.iter(|| {
                for ri in 0..r.regions().len() {
                    for ci in 0..r.chunk_table(ri).expect("table").entries().len() {
                        r.read_chunk_into(ri, ci, &mut buf).expect("chunk");
                        black_box(&buf);
                    }
                }
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = codec
}
criterion_main!(benches);
