//! Voxel meshing and light, on the spec's synthetic world (runtime assets, "Voxel
//! volumes"): 512 × 128 × 512 blocks chunked at 16, meshed within 128 m of a camera
//! standing over its middle; and the light field (dh.voxel, "The light field"): cold
//! lighting of a 306-column spawn radius, and one torch placed and removed.
//!
//! `cargo bench -p dh-bench --bench voxel`. It prints two tables: chunks wanted and with
//! faces, quads, MiB of vertex and index buffers (52 B a vertex, 4 B an index), µs per
//! chunk on one thread, wall ms on 1 and 2 workers (dh-jobs), and side by side in the
//! same run the peer, the `block-mesh` crate's `visible_block_faces` (culled, unit quads
//! only, no vertices; also on 1 and 2 workers) and `greedy_quads` on the same chunks,
//! from padded 18³ arrays built before timing (its time does not include reading the
//! neighbors, ours does), with the ratios; and the `binary-greedy-meshing` crate
//! (greedy only: `fast_mesh` with its column masks prebuilt, and `mesh`) on the same
//! chunks' 18³ arrays, its quads and the faces they cover counted; then the light field;
//! then issue 14's rows: one chunk of the platform pallet's modeled blocks meshed
//! against the cube path, and the test pack's states resolved through its platform
//! pallet (`DH_BENCH_ONLY=models` runs only these). Each figure is the median of 9 runs,
//! the best in brackets (the machine is shared).

use std::collections::BTreeSet;
use std::hint::black_box;
use std::time::{Duration, Instant};

use binary_greedy_meshing as bgm;
use block_mesh::ndshape::{ConstShape, ConstShape3u32};
use block_mesh::{
    greedy_quads, visible_block_faces, GreedyQuadsBuffer, MergeVoxel, UnitQuadBuffer, Voxel,
    VoxelVisibility, RIGHT_HANDED_Y_UP_CONFIG,
};
use dh_bench::terrain::{self, Terrain, AIR, EDGE, TORCH};
use dh_content::pallet::Pallet;
use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::minecraft::platform::{import_platform, PlatformOptions};
use dh_content::voxel::payload::{PaletteEntry, PropValue, Property};
use dh_engine::voxel::{
    find_faces, mesh_chunk_into, mesh_regions, ChunkLight, ChunkSource, ChunkView, LightField,
    MapChunks, MeshContext, MeshOptions, MeshScratch, MeshStats, Placement, PlatformBlocks,
    RegionMesh, VoxelLooks, FLAG_DRAW, FLAG_OPAQUE,
};
use dh_jobs::Scheduler;
use std::sync::Arc;

const SIZE: [i32; 3] = [512, 128, 512];

fn palette() -> Vec<PaletteEntry> {
    terrain::palette(TORCH)
}

/// The synthetic world: rolling terrain between about 40 and 80, stone under dirt and
/// grass, sand and water below 52, and oak trees.
fn world() -> MapChunks {
    terrain::world(&Terrain {
        size: SIZE,
        base: 44.0,
        hills: (24.0, 96),
        bumps: (4.0, 24),
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Bv(u8);

impl Voxel for Bv {
    fn get_visibility(&self) -> VoxelVisibility {
        match self.0 {
            0 => VoxelVisibility::Empty,
            1 => VoxelVisibility::Opaque,
            _ => VoxelVisibility::Translucent,
        }
    }
}

impl MergeVoxel for Bv {
    type MergeValue = u8;
    fn merge_value(&self) -> u8 {
        self.0
    }
}

type Padded = ConstShape3u32<18, 18, 18>;

/// Reads chunk `c` with its one-cell border into block-mesh's padded array, each cell's
/// palette index through `class` (what an engine using block-mesh does before meshing).
fn bm_gather(w: &MapChunks, class: &[u8], c: [i32; 3], out: &mut [Bv]) {
    let e = EDGE as usize;
    let last = class.len() - 1;
    let span = |d: i32| -> (usize, usize, usize) {
        match d {
            -1 => (0, 1, e - 1),
            0 => (1, e, 0),
            _ => (e + 1, 1, 0),
        }
    };
    for dz in -1..=1 {
        for dy in -1..=1 {
            for dx in -1..=1 {
                let view = w.chunk([c[0] + dx, c[1] + dy, c[2] + dz]);
                let (px, nx, sx) = span(dx);
                let (py, ny, sy) = span(dy);
                let (pz, nz, sz) = span(dz);
                for z in 0..nz {
                    for y in 0..ny {
                        let o = px + 18 * ((py + y) + 18 * (pz + z));
                        let row = &mut out[o..o + nx];
                        match view {
                            ChunkView::Empty => row.fill(Bv(class[0])),
                            ChunkView::Uniform(v) => row.fill(Bv(class[(v as usize).min(last)])),
                            ChunkView::Cells(cells) => {
                                let s = sx + e * ((sy + y) + e * (sz + z));
                                for (r, &id) in row.iter_mut().zip(&cells[s..s + nx]) {
                                    *r = Bv(class[(id as usize).min(last)]);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Runs per timed figure.
const RUNS: usize = 9;

/// Times `f` `runs` times: (median, best).
fn timed<F: FnMut()>(runs: usize, mut f: F) -> (Duration, Duration) {
    let mut t: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    t.sort();
    (t[t.len() / 2], t[0])
}

#[path = "../../content/tests/mc_platform_pack/mod.rs"]
mod mc_platform_pack;

/// A Minecraft palette entry with string properties.
fn mc(id: &str, props: &[(&str, String)]) -> PaletteEntry {
    let mut e = PaletteEntry::new("minecraft", id);
    e.properties = props
        .iter()
        .map(|(k, v)| Property {
            key: k.to_string(),
            value: PropValue::String(v.clone()),
        })
        .collect();
    e
}

/// Every state of the test pack's stairs, fences, slabs, leaves, furnace and grass,
/// then its single-state blocks: the palette the resolve bench resolves.
fn pack_states() -> Vec<PaletteEntry> {
    let b = |v: bool| v.to_string();
    let mut out = vec![PaletteEntry::empty()];
    for facing in ["north", "south", "west", "east"] {
        for half in ["top", "bottom"] {
            for shape in [
                "straight",
                "inner_left",
                "inner_right",
                "outer_left",
                "outer_right",
            ] {
                for w in [false, true] {
                    out.push(mc(
                        "oak_stairs",
                        &[
                            ("facing", facing.into()),
                            ("half", half.into()),
                            ("shape", shape.into()),
                            ("waterlogged", b(w)),
                        ],
                    ));
                }
            }
        }
        for lit in [false, true] {
            out.push(mc("furnace", &[("facing", facing.into()), ("lit", b(lit))]));
        }
    }
    for bits in 0..32u32 {
        let on = |k: u32| b(bits >> k & 1 == 1);
        out.push(mc(
            "oak_fence",
            &[
                ("north", on(0)),
                ("east", on(1)),
                ("south", on(2)),
                ("west", on(3)),
                ("waterlogged", on(4)),
            ],
        ));
    }
    for t in ["top", "bottom", "double"] {
        for w in [false, true] {
            out.push(mc("oak_slab", &[("type", t.into()), ("waterlogged", b(w))]));
        }
    }
    for d in 1..=7 {
        for p in [false, true] {
            for w in [false, true] {
                out.push(mc(
                    "oak_leaves",
                    &[
                        ("distance", d.to_string()),
                        ("persistent", b(p)),
                        ("waterlogged", b(w)),
                    ],
                ));
            }
        }
    }
    for snowy in [false, true] {
        out.push(mc("grass_block", &[("snowy", b(snowy))]));
    }
    for id in ["oak_planks", "glass", "poppy", "torch", "stone"] {
        out.push(mc(id, &[]));
    }
    out
}

/// Issue 14: meshing a chunk of modeled blocks against the cube path, and resolving the
/// test pack's states through its platform pallet (imported here from the project's own
/// pack, compiled in process).
fn platform_rows(tables: &BlockTables) {
    let dir = mc_platform_pack::temp("bench-voxel");
    let jar = mc_platform_pack::client_jar(&dir, &[]);
    let into = dir.join("com.mojang.minecraft");
    import_platform(&jar, &into, &PlatformOptions::default()).expect("the test pack imports");
    let built = dh_engine::source_pallet::build_folder(&into).expect("the pallet builds");
    let pallet = Pallet::from_bytes(built.bytes.as_ref().clone()).expect("the pallet opens");
    let blocks = PlatformBlocks::new(Arc::new(pallet), None);
    let states = pack_states();
    let mut looks = None;
    let resolve = timed(RUNS, || {
        looks = Some(VoxelLooks::resolve_platform(
            &states,
            tables,
            Some("com.mojang.minecraft"),
            &blocks,
            None,
            None,
        ));
    });
    let looks = looks.expect("resolved");
    // One 16³ chunk, every other cell (x + y + z even) filled: the most faces a chunk
    // shows. Palette indices of the states above.
    let find = |id: &str, props: &[(&str, &str)]| -> u32 {
        states
            .iter()
            .position(|e| {
                e.id == id
                    && props.iter().all(|(k, v)| {
                        e.properties
                            .iter()
                            .any(|p| p.key == *k && p.value == PropValue::String(v.to_string()))
                    })
            })
            .expect("a state of the pack") as u32
    };
    let stone = find("stone", &[]);
    let planks = find("oak_planks", &[]);
    let modeled = [
        find("oak_slab", &[("type", "bottom"), ("waterlogged", "false")]),
        find(
            "oak_stairs",
            &[
                ("facing", "east"),
                ("half", "bottom"),
                ("shape", "straight"),
                ("waterlogged", "false"),
            ],
        ),
        find(
            "oak_fence",
            &[
                ("north", "false"),
                ("east", "true"),
                ("south", "false"),
                ("west", "true"),
                ("waterlogged", "false"),
            ],
        ),
        find("poppy", &[]),
    ];
    let chunk = |pick: &dyn Fn(usize) -> u32| {
        let mut c = MapChunks::new(16);
        let mut k = 0;
        for z in 0..16 {
            for y in 0..16 {
                for x in 0..16 {
                    if (x + y + z) % 2 == 0 {
                        c.set([x, y, z], pick(k));
                        k += 1;
                    }
                }
            }
        }
        c
    };
    let id = Placement::identity();
    let opts = MeshOptions {
        region_chunks: 1,
        ..MeshOptions::default()
    };
    let ctx = MeshContext::new(&looks, &id, &opts);
    let mut scratch = MeshScratch::default();
    let mut out = RegionMesh::default();
    let mut rows = Vec::new();
    for (name, w) in [
        ("stone, the colour table's cube", chunk(&|_| stone)),
        (
            "oak planks, a whole-cube model (cube path, per-face UVs)",
            chunk(&|_| planks),
        ),
        (
            "slab, stairs, fence, poppy in turn (modeled cells)",
            chunk(&|k| modeled[k % 4]),
        ),
    ] {
        let mut quads = 0;
        let t = timed(RUNS, || {
            out.clear();
            mesh_chunk_into(&w, &ctx, [0, 0, 0], &mut scratch, &mut out);
            quads = out.quad_count();
            black_box(&out);
        });
        rows.push((name, quads, t));
    }
    println!("\n| issue 14: one 16³ chunk, every other cell filled | quads | median | best |");
    println!("|---|---|---|---|");
    for (name, quads, t) in &rows {
        println!(
            "| {name} | {quads} | {:.1} µs | {:.1} µs |",
            t.0.as_secs_f64() * 1e6,
            t.1.as_secs_f64() * 1e6
        );
    }
    println!(
        "| resolving {} states through the platform pallet ({} modeled, {} atlas tiles) | | {:.2} ms | {:.2} ms |",
        states.len(),
        looks.models().len(),
        looks.tile_count(),
        resolve.0.as_secs_f64() * 1e3,
        resolve.1.as_secs_f64() * 1e3
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let t = Instant::now();
    if std::env::var("DH_BENCH_ONLY").as_deref() == Ok("models") {
        let tables = BlockTables::builtin().expect("built-in tables load");
        platform_rows(tables);
        return;
    }
    let w = world();
    eprintln!(
        "voxel: world {}x{}x{} in {} chunks, built in {:.1} s",
        SIZE[0],
        SIZE[1],
        SIZE[2],
        w.chunks.len(),
        t.elapsed().as_secs_f64()
    );
    let tables = BlockTables::builtin().expect("built-in tables load");
    let looks = VoxelLooks::resolve(&palette(), tables, Some("com.mojang.minecraft"), None, None);
    // The camera over the middle, 2 m above the ground there.
    let mut ground = SIZE[1] - 1;
    while ground > 0 && w.get([SIZE[0] / 2, ground, SIZE[2] / 2]) == AIR {
        ground -= 1;
    }
    let cam = [
        SIZE[0] as f32 / 2.0,
        ground as f32 + 2.0,
        SIZE[2] as f32 / 2.0,
    ];
    let mut wanted = Vec::new();
    for cz in 0..SIZE[2] / EDGE {
        for cy in 0..SIZE[1] / EDGE {
            for cx in 0..SIZE[0] / EDGE {
                let c = [cx, cy, cz].map(|v| (v * EDGE + EDGE / 2) as f32);
                let d2: f32 = (0..3).map(|a| (c[a] - cam[a]).powi(2)).sum();
                if d2 <= 128.0 * 128.0 {
                    wanted.push([cx, cy, cz]);
                }
            }
        }
    }
    let opts1 = MeshOptions {
        region_chunks: 1,
        ..MeshOptions::default()
    };
    let id = Placement::identity();
    let ctx = MeshContext::new(&looks, &id, &opts1);
    let n = wanted.len() as f64;
    let us = |d: Duration| d.as_secs_f64() * 1e6 / n;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    // One thread, chunk by chunk into a reused mesh.
    let mut scratch = MeshScratch::default();
    let mut out = RegionMesh::default();
    let mut faced = 0;
    let mut quads = 0;
    let mut bytes = 0;
    let one = timed(RUNS, || {
        faced = 0;
        quads = 0;
        bytes = 0;
        for &c in &wanted {
            out.clear();
            if mesh_chunk_into(&w, &ctx, c, &mut scratch, &mut out) {
                faced += 1;
            }
            quads += out.quad_count();
            bytes += out.byte_size();
        }
        black_box(&out);
    });
    // The face pass alone (what block-mesh's culled mesher returns: unit quads).
    let mut nf = 0;
    let faces_only = timed(RUNS, || {
        nf = 0;
        for &c in &wanted {
            nf += find_faces(&w, &ctx, c, &mut scratch);
        }
    });
    assert_eq!(nf, quads);
    // The peer: block-mesh on the same chunks, padded arrays built before timing.
    let flags = looks.flags(true);
    let class = |v: u32| -> u8 {
        let f = flags[(v as usize).min(flags.len() - 1)];
        if f & FLAG_OPAQUE != 0 {
            1
        } else if f & FLAG_DRAW != 0 {
            2 + v as u8
        } else {
            0
        }
    };
    let padded: Vec<Vec<Bv>> = wanted
        .iter()
        .map(|c| {
            let mut v = vec![Bv(0); Padded::USIZE];
            for z in 0..18 {
                for y in 0..18 {
                    for x in 0..18 {
                        let cell = [
                            c[0] * EDGE + x - 1,
                            c[1] * EDGE + y - 1,
                            c[2] * EDGE + z - 1,
                        ];
                        v[Padded::linearize([x as u32, y as u32, z as u32]) as usize] =
                            Bv(class(w.get(cell)));
                    }
                }
            }
            v
        })
        .collect();
    let faces = &RIGHT_HANDED_Y_UP_CONFIG.faces;
    let mut ubuf = UnitQuadBuffer::new();
    let mut bm_quads = 0;
    let bm = timed(RUNS, || {
        bm_quads = 0;
        for v in &padded {
            ubuf.reset();
            visible_block_faces(v, &Padded {}, [0; 3], [17; 3], faces, &mut ubuf);
            bm_quads += ubuf.num_quads();
        }
    });
    // The same, reading each chunk and its border from the world first, as ours does.
    assert_eq!(Padded::linearize([1, 0, 0]), 1);
    assert_eq!(Padded::linearize([0, 1, 0]), 18);
    let class_table: Vec<u8> = (0..flags.len() as u32).map(class).collect();
    let mut arr = vec![Bv(0); Padded::USIZE];
    let mut bm_quads2 = 0;
    let bm_read = timed(RUNS, || {
        bm_quads2 = 0;
        for &c in &wanted {
            bm_gather(&w, &class_table, c, &mut arr);
            ubuf.reset();
            visible_block_faces(&arr, &Padded {}, [0; 3], [17; 3], faces, &mut ubuf);
            bm_quads2 += ubuf.num_quads();
        }
    });
    assert_eq!(bm_quads2, bm_quads);
    let mut gbuf = GreedyQuadsBuffer::new(Padded::USIZE);
    let mut gq = 0;
    let mut garea = 0u64;
    let greedy = timed(5, || {
        gq = 0;
        garea = 0;
        for v in &padded {
            greedy_quads(v, &Padded {}, [0; 3], [17; 3], faces, &mut gbuf);
            gq += gbuf.quads.num_quads();
            garea += gbuf
                .quads
                .groups
                .iter()
                .flatten()
                .map(|q| u64::from(q.width * q.height))
                .sum::<u64>();
        }
    });
    // The second peer: binary-greedy-meshing (a port of cgerikj's binary greedy mesher;
    // greedy only, it offers no culled output), `Mesher<16>` on the same chunks. Its
    // input is a padded 18³ array of u16, the column axis fastest (its `pad_linearize`:
    // z + 18 x + 324 y), 0 for air; the same class values as block-mesh's (1 opaque,
    // 2 + palette index translucent, those listed as its transparent set), so its greedy
    // merges what block-mesh's greedy_quads merges. Arrays and the opaque and
    // transparent column masks its `fast_mesh` needs are built before timing.
    type Bgm = bgm::Mesher<16>;
    /// One chunk's input: the padded cells, the opaque and the transparent column masks.
    type BgmInput = (Vec<u16>, Box<[u64]>, Box<[u64]>);
    let transparents: BTreeSet<u16> = class_table
        .iter()
        .filter(|&&c| c >= 2)
        .map(|&c| c as u16)
        .collect();
    let bgm_in: Vec<BgmInput> = padded
        .iter()
        .map(|v| {
            let mut vox = vec![0u16; Bgm::CS_P3];
            for z in 0..18u32 {
                for y in 0..18u32 {
                    for x in 0..18u32 {
                        let (xu, yu, zu) = (x as usize, y as usize, z as usize);
                        vox[zu + Bgm::CS_P * xu + Bgm::CS_P2 * yu] =
                            v[Padded::linearize([x, y, z]) as usize].0 as u16;
                    }
                }
            }
            let opaque = bgm::compute_opaque_mask::<16>(&vox, &transparents);
            let trans = bgm::compute_transparent_mask::<16>(&vox, &transparents);
            (vox, opaque, trans)
        })
        .collect();
    // pad_linearize takes unpadded coordinates: cell (0, 0, 0) is padded (1, 1, 1).
    assert_eq!(
        bgm::pad_linearize::<16>(0, 0, 0),
        1 + Bgm::CS_P + Bgm::CS_P2
    );
    let mut mesher = Bgm::new();
    // Quads and the area they cover (unit faces), from its output.
    let count = |m: &Bgm| -> (usize, u64) {
        let q = m.quads.iter().map(Vec::len).sum();
        let a = m
            .quads
            .iter()
            .flatten()
            .map(|q| q.width() * q.height())
            .sum();
        (q, a)
    };
    let mut bgm_fast = (0, 0);
    let bgm_fast_t = timed(RUNS, || {
        bgm_fast = (0, 0);
        for (vox, opaque, trans) in &bgm_in {
            mesher.clear();
            mesher.fast_mesh(vox, opaque, trans);
            let (q, a) = count(&mesher);
            bgm_fast.0 += q;
            bgm_fast.1 += a;
        }
    });
    let mut bgm_slow = (0, 0);
    let bgm_slow_t = timed(RUNS, || {
        bgm_slow = (0, 0);
        for (vox, _, _) in &bgm_in {
            mesher.clear();
            mesher.mesh(vox, &transparents);
            let (q, a) = count(&mesher);
            bgm_slow.0 += q;
            bgm_slow.1 += a;
        }
    });
    // Its two entry points are documented to give the same quads.
    assert_eq!(bgm_fast, bgm_slow);
    // Its arrays (about 20 MiB) are freed before the wall runs below, so they time in the
    // same memory as without this peer.
    drop(bgm_in);
    drop(mesher);
    // 1 and 2 workers, region by region (regionChunks 1: a region is a chunk), ours
    // with its whole output, block-mesh's culled pass (prebuilt arrays, a buffer per
    // worker) on the same scheduler.
    let mut walls = Vec::new();
    let mut bm_walls = Vec::new();
    for threads in [1, 2] {
        let s = Scheduler::new(threads).expect("a scheduler");
        let mut stats = MeshStats::default();
        let wall = timed(RUNS, || {
            let m = mesh_regions(&s, &w, &ctx, &wanted);
            stats = MeshStats::of(&m);
            black_box(m);
        });
        assert_eq!(stats.quads, quads);
        walls.push(wall);
        thread_local! {
            static UBUF: std::cell::RefCell<UnitQuadBuffer> =
                std::cell::RefCell::new(UnitQuadBuffer::new());
        }
        let mut nq = 0;
        let bw = timed(RUNS, || {
            let counts = s.parallel_map(&padded, 1, |_, v| {
                UBUF.with(|b| {
                    let mut b = b.borrow_mut();
                    b.reset();
                    visible_block_faces(v, &Padded {}, [0; 3], [17; 3], faces, &mut b);
                    b.num_quads()
                })
            });
            nq = counts.iter().sum::<usize>();
        });
        assert_eq!(nq, bm_quads);
        bm_walls.push(bw);
    }
    // regionChunks 2: the regions holding the wanted chunks, on 2 workers.
    let opts2 = MeshOptions::default();
    let ctx2 = MeshContext::new(&looks, &id, &opts2);
    let mut regions: Vec<[i32; 3]> = wanted.iter().map(|c| c.map(|v| v.div_euclid(2))).collect();
    regions.sort();
    regions.dedup();
    let s2 = Scheduler::new(2).expect("a scheduler");
    let mut rstats = MeshStats::default();
    let rwall = timed(RUNS, || {
        let m = mesh_regions(&s2, &w, &ctx2, &regions);
        rstats = MeshStats::of(&m);
        black_box(m);
    });
    let mib = bytes as f64 / (1024.0 * 1024.0);
    println!(
        "## Voxel meshing: {}x{}x{} at 16, 128 m radius (median of {RUNS} runs; best in brackets)",
        SIZE[0], SIZE[1], SIZE[2]
    );
    println!();
    println!("| what | ours | spec |");
    println!("| --- | --- | --- |");
    println!("| chunks wanted | {} | 936 |", wanted.len());
    println!("| chunks with faces | {faced} | 664 |");
    println!("| quads | {quads} | about 213 thousand |");
    println!("| vertex + index buffers | {mib:.1} MiB | 47 MiB |");
    println!(
        "| full mesher, one thread, per chunk | {:.1} µs [{:.1}] ({:.1} µs per chunk with faces) | 200–300 µs |",
        us(one.0),
        us(one.1),
        us(one.0) * n / faced.max(1) as f64
    );
    println!(
        "| our face pass alone (faces, no vertices) | {:.1} µs [{:.1}] | |",
        us(faces_only.0),
        us(faces_only.1)
    );
    println!(
        "| block-mesh visible_block_faces, arrays prebuilt | {:.1} µs [{:.1}], {bm_quads} quads | |",
        us(bm.0),
        us(bm.1)
    );
    println!(
        "| block-mesh visible_block_faces, reading the chunk first | {:.1} µs [{:.1}] | |",
        us(bm_read.0),
        us(bm_read.1)
    );
    println!(
        "| block-mesh greedy_quads | {:.1} µs [{:.1}], {gq} quads covering {garea} faces | |",
        us(greedy.0),
        us(greedy.1)
    );
    println!(
        "| binary-greedy-meshing fast_mesh (greedy), arrays and masks prebuilt | {:.1} µs [{:.1}], {} quads covering {} faces | |",
        us(bgm_fast_t.0),
        us(bgm_fast_t.1),
        bgm_fast.0,
        bgm_fast.1
    );
    println!(
        "| binary-greedy-meshing mesh (greedy, transparent set, no masks), arrays prebuilt | {:.1} µs [{:.1}] | |",
        us(bgm_slow_t.0),
        us(bgm_slow_t.1)
    );
    println!(
        "| ratio: our full mesher / binary-greedy-meshing fast_mesh | {:.2} | |",
        one.0.as_secs_f64() / bgm_fast_t.0.as_secs_f64()
    );
    println!(
        "| ratio: our face pass / binary-greedy-meshing fast_mesh | {:.2} | |",
        faces_only.0.as_secs_f64() / bgm_fast_t.0.as_secs_f64()
    );
    println!(
        "| ratio: block-mesh greedy_quads / binary-greedy-meshing fast_mesh | {:.2} | |",
        greedy.0.as_secs_f64() / bgm_fast_t.0.as_secs_f64()
    );
    println!(
        "| ratio: our full mesher / visible_block_faces prebuilt | {:.2} | |",
        one.0.as_secs_f64() / bm.0.as_secs_f64()
    );
    println!(
        "| ratio: our face pass / visible_block_faces prebuilt | {:.2} | |",
        faces_only.0.as_secs_f64() / bm.0.as_secs_f64()
    );
    for (k, t) in [1, 2].iter().enumerate() {
        println!(
            "| wall, {t} worker(s): ours mesh_regions / block-mesh visible_block_faces | {:.2} ms [{:.2}] / {:.2} ms [{:.2}] (ratio {:.2}) | 35 ms on 8 threads |",
            ms(walls[k].0),
            ms(walls[k].1),
            ms(bm_walls[k].0),
            ms(bm_walls[k].1),
            walls[k].0.as_secs_f64() / bm_walls[k].0.as_secs_f64()
        );
    }
    println!(
        "| ours, 1 → 2 workers | {:.2}× | |",
        walls[0].0.as_secs_f64() / walls[1].0.as_secs_f64()
    );
    println!(
        "| regionChunks 2: {} regions, 2 workers | {:.2} ms [{:.2}], {} quads | |",
        rstats.regions,
        ms(rwall.0),
        ms(rwall.1),
        rstats.quads
    );
    println!();

    // Light: a 306-column spawn radius, cold.
    let spawn = [SIZE[0] / 32, SIZE[2] / 32];
    let mut cols = Vec::new();
    let r2 = 9.87f32 * 9.87;
    for z in 0..SIZE[2] / 16 {
        for x in 0..SIZE[0] / 16 {
            let d2 = ((x - spawn[0]) as f32 + 0.5).powi(2) + ((z - spawn[1]) as f32 + 0.5).powi(2);
            if d2 <= r2 {
                cols.push([x, z]);
            }
        }
    }
    cols.sort_by_key(|c| (c[0] - spawn[0]).pow(2) + (c[1] - spawn[1]).pow(2));
    let lw = ChunkLight::new(&w, &looks);
    let mut field = LightField::new(0, SIZE[1] as usize, 96);
    let cold = timed(RUNS, || {
        field = LightField::new(0, SIZE[1] as usize, 96);
        let n = field.light_columns(&lw, &cols, None);
        assert_eq!(n, cols.len());
    });
    let st = field.stats();
    // A torch on the ground at the spawn, placed and removed.
    let (tx, tz) = (spawn[0] * 16 + 8, spawn[1] * 16 + 8);
    let mut ty = SIZE[1] - 1;
    while ty > 0 && w.get([tx, ty - 1, tz]) == AIR {
        ty -= 1;
    }
    let torch = lw.props_of(TORCH);
    let air = lw.props_of(AIR);
    let mut place = Vec::new();
    let mut remove = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        field.set_cell([tx, ty, tz], torch);
        place.push(t.elapsed());
        let t = Instant::now();
        field.set_cell([tx, ty, tz], air);
        remove.push(t.elapsed());
    }
    place.sort();
    remove.sort();
    println!("## Voxel light");
    println!();
    println!("| what | ours | spec |");
    println!("| --- | --- | --- |");
    println!(
        "| cold lighting, {} columns ({} tall) | {:.1} ms, {:.3} ms a column [best {:.3}] | 0.68 s, 2.2 ms a column (384 tall) |",
        cols.len(),
        SIZE[1],
        cold.0.as_secs_f64() * 1e3,
        cold.0.as_secs_f64() * 1e3 / cols.len() as f64,
        cold.1.as_secs_f64() * 1e3 / cols.len() as f64
    );
    println!(
        "| field held | {:.1} KiB a column ({} full bricks, {} uniform) | about 46 KiB a column |",
        st.bytes as f64 / 1024.0 / st.columns.max(1) as f64,
        st.bricks,
        st.uniform_bricks
    );
    println!(
        "| torch placed (median of 200) | {:.3} ms | 2.5 ms |",
        place[place.len() / 2].as_secs_f64() * 1e3
    );
    println!(
        "| torch removed (median of 200) | {:.3} ms | 0.5 ms |",
        remove[remove.len() / 2].as_secs_f64() * 1e3
    );
    platform_rows(tables);
}
