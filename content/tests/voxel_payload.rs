//! The `.dh-vox.bin` payload codec: hand-derived bytes, the writer's choices, round trips
//! over many generated payloads, sharding, ranged reading, and corrupt input.

use std::path::PathBuf;

use dh_content::pallet::{voxel_shard_name, VOXEL_SHARD_BYTES};
use dh_content::schema::voxel::Axes;
use dh_content::voxel::payload::{
    decode_all, decode_chunk_body, encode, encode_chunk_body, encode_with, join_fuzz_shards,
    split_fuzz_shards, Blob, ChunkKey, EncodeOptions, Extra, ExtraKind, Grid, GridInfo, Layer,
    PaletteEntry, PayloadAxes, PayloadError, PayloadHeader, PayloadReader, PayloadWriter,
    PropValue, Property, UpAxis, VoxelPayload, CODEC_LZ4, CODEC_STORED, IDENTITY_TRANSFORM,
    MAX_PALETTE, MODE_PACKED, MODE_SPARSE, MODE_UNIFORM,
};

// ---------------------------------------------------------------------------------------
// Helpers

/// A seeded xorshift64* generator: deterministic "random" payloads.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// 0 .. n (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn string(&mut self, max: u64) -> String {
        let n = self.below(max + 1);
        (0..n)
            .map(|_| match self.below(10) {
                0 => 'é',
                1 => '_',
                _ => (b'a' + self.below(26) as u8) as char,
            })
            .collect()
    }
}

fn views(shards: &[Vec<u8>]) -> Vec<&[u8]> {
    shards.iter().map(|s| s.as_slice()).collect()
}

/// A payload with one grid of `edge`-cell chunks covering `size` cells from the origin.
fn one_grid(edge: u8, size: [i32; 3]) -> VoxelPayload {
    let mut p = VoxelPayload::default();
    p.header.chunk_edge = edge;
    p.palette
        .extend((1..=400).map(|i| PaletteEntry::new("t", format!("b{i}"))));
    p.grids.push(Grid::new(GridInfo::new("g", [0; 3], size)));
    p
}

/// The codec tag and raw body of the only chunk record of a one-region, one-chunk payload.
fn only_body(shards: &[Vec<u8>]) -> (u8, Vec<u8>) {
    let r = PayloadReader::open(&views(shards)).unwrap();
    assert_eq!(r.regions().len(), 1);
    assert_eq!(r.chunk_table(0).unwrap().entries().len(), 1);
    let rec = r.chunk_record(0, 0).unwrap();
    let raw = u32::from_le_bytes(rec[1..5].try_into().unwrap()) as usize;
    let (tag, body) = r.chunk_body(0, 0).unwrap();
    assert_eq!(tag, rec[0]);
    if tag == CODEC_LZ4 {
        assert_eq!(
            lz4_flex::block::decompress(&rec[5..], raw).unwrap(),
            body.as_ref()
        );
    } else {
        assert_eq!(&rec[5..], body.as_ref());
    }
    assert_eq!(body.len(), raw);
    (tag, body.into_owned())
}

/// A random payload: random header, palette (typed properties, raw blobs), layers
/// (blocks and scaled ones), grids (parents, transforms, attributes), extras, and chunks
/// in every style (uniform, sparse, few values, noise, empty) over several regions,
/// negative coordinates included.
fn random_payload(rng: &mut Rng) -> VoxelPayload {
    let edge = [8u8, 16, 32][rng.below(3) as usize];
    let up = [UpAxis::X, UpAxis::Y, UpAxis::Z][rng.below(3) as usize];
    let header = PayloadHeader {
        platform: rng.string(20),
        format: rng.string(6),
        platform_version: rng.string(6),
        voxel_size: [0.1, 1.0, 0.0625, 3.5][rng.below(4) as usize],
        axes: PayloadAxes {
            up,
            left_handed: rng.chance(30),
        },
        origin: [
            rng.range(-100, 100) as i32,
            rng.range(-100, 100) as i32,
            rng.range(-100, 100) as i32,
        ],
        chunk_edge: edge,
        meta: (0..rng.below(4))
            .map(|_| (rng.string(8), rng.string(12)))
            .collect(),
    };
    let mut palette = vec![PaletteEntry::empty()];
    let big = rng.chance(20);
    let pn = 1 + rng.below(if big { 3000 } else { 40 });
    for _ in 0..pn {
        let mut e = PaletteEntry::new(rng.string(8), rng.string(16));
        for _ in 0..rng.below(4) {
            let key = rng.string(8);
            let value = match rng.below(3) {
                0 => PropValue::Bool(rng.chance(50)),
                1 => PropValue::Int(rng.next() as i32),
                _ => PropValue::String(rng.string(10)),
            };
            e.properties.push(Property { key, value });
        }
        if rng.chance(10) {
            e.raw = Some(Blob {
                format: rng.string(10),
                bytes: (0..rng.below(20)).map(|_| rng.next() as u8).collect(),
            });
        }
        palette.push(e);
    }
    let mut layers = vec![Layer::blocks()];
    let scales: Vec<u8> = [1u8, 2, 4, 8]
        .into_iter()
        .filter(|s| edge.is_multiple_of(*s))
        .collect();
    for i in 0..rng.below(3) {
        layers.push(Layer {
            name: format!("layer{i}"),
            cell_scale: scales[rng.below(scales.len() as u64) as usize],
        });
    }
    let mut p = VoxelPayload {
        header,
        palette,
        layers,
        grids: Vec::new(),
        extras: Vec::new(),
    };
    let ng = rng.below(4);
    let e = edge as i32;
    for gi in 0..ng {
        // Bounds spanning up to 3 regions on a horizontal axis at 8-cell chunks.
        let min = [
            rng.range(-600, 100) as i32,
            rng.range(-600, 100) as i32,
            rng.range(-600, 100) as i32,
        ];
        let size = [
            rng.range(1, 700) as i32,
            rng.range(1, 700) as i32,
            rng.range(1, 700) as i32,
        ];
        let mut info = GridInfo::new(rng.string(10), min, size);
        if gi > 0 && rng.chance(50) {
            info.parent = Some(rng.below(gi) as u32);
        }
        if rng.chance(50) {
            for row in &mut info.transform {
                for v in row.iter_mut() {
                    *v = (rng.range(-1000, 1000) as f32) / 8.0;
                }
            }
        }
        if rng.chance(40) {
            info.attributes.push(("hidden".into(), "true".into()));
        }
        let mut grid = Grid::new(info);
        let nchunks = rng.below(12);
        for _ in 0..nchunks {
            let layer = rng.below(p.layers.len() as u64) as u16;
            let le = e / p.layers[layer as usize].cell_scale as i32;
            let n = (le * le * le) as usize;
            // A chunk that meets the bounds.
            let mut chunk = [0i32; 3];
            for a in 0..3 {
                let lo = min[a].div_euclid(e);
                let hi = (min[a] + size[a] - 1).div_euclid(e);
                chunk[a] = rng.range(lo as i64, hi as i64) as i32;
            }
            let np = p.palette.len() as u64;
            let cells: Vec<u32> = match rng.below(6) {
                0 => vec![rng.below(np) as u32; n],
                1 => {
                    let bg = if rng.chance(50) {
                        0
                    } else {
                        rng.below(np) as u32
                    };
                    let mut c = vec![bg; n];
                    for _ in 0..rng.below(n as u64 / 8 + 1) {
                        c[rng.below(n as u64) as usize] = rng.below(np) as u32;
                    }
                    c
                }
                2 => {
                    let k = 2 + rng.below(6);
                    let vals: Vec<u32> = (0..k).map(|_| rng.below(np) as u32).collect();
                    (0..n).map(|_| vals[rng.below(k) as usize]).collect()
                }
                3 => (0..n).map(|_| rng.below(np) as u32).collect(),
                4 => vec![0; n],
                _ => {
                    // Layered terrain: a few runs along Z.
                    (0..n)
                        .map(|i| ((i / (le * le) as usize) % 3) as u32 % np as u32)
                        .collect()
                }
            };
            grid.chunks.insert(ChunkKey { layer, chunk }, cells);
        }
        p.grids.push(grid);
    }
    for _ in 0..rng.below(4) {
        p.extras.push(Extra {
            kind: [ExtraKind::Source, ExtraKind::BlockEntity, ExtraKind::Entity]
                [rng.below(3) as usize],
            grid: if ng > 0 && rng.chance(70) {
                Some(rng.below(ng) as u32)
            } else {
                None
            },
            cell: if rng.chance(50) {
                Some([rng.next() as i32, 5, -7])
            } else {
                None
            },
            blob: Blob {
                format: "nbt-java".into(),
                bytes: (0..rng.below(40)).map(|_| rng.next() as u8).collect(),
            },
        });
    }
    p
}

/// A small payload with two grids, a scaled layer, several regions and every chunk mode:
/// the base for the corruption tests.
fn sample_payload() -> VoxelPayload {
    let mut p = one_grid(8, [600, 64, 64]);
    p.header.platform = "com.mojang.minecraft".into();
    p.header.meta.push(("dataVersion".into(), "3955".into()));
    p.palette[1]
        .properties
        .push(Property::string("facing", "north"));
    p.palette[2].properties.push(Property {
        key: "waterlogged".into(),
        value: PropValue::Bool(true),
    });
    p.palette[3].raw = Some(Blob {
        format: "minecraft-legacy".into(),
        bytes: vec![1, 2],
    });
    p.layers.push(Layer {
        name: "biome".into(),
        cell_scale: 4,
    });
    let mut child = GridInfo::new("child", [-8, 0, 0], [8, 8, 8]);
    child.parent = Some(0);
    child.attributes.push(("hidden".into(), "true".into()));
    p.grids.push(Grid::new(child));
    // Uniform, sparse, packed and noise chunks, in regions 0 and 1 along X.
    for x in 0..8 {
        p.set_cell(0, 0, [x, 0, 0], 1); // sparse over empty
    }
    for i in 0..512 {
        let c = [8 + i % 8, 8 + (i / 8) % 8, (i / 64) % 8];
        p.set_cell(0, 0, c, 2); // uniform
        p.set_cell(
            0,
            0,
            [16 + i % 8, (i / 8) % 8, (i / 64) % 8],
            3 + (i as u32 % 5),
        ); // packed
    }
    p.set_cell(0, 0, [300, 1, 1], 9); // region 1 (chunk 37)
    p.set_cell(0, 1, [0, 0, 0], 7); // biome layer
    p.set_cell(1, 0, [-1, 7, 7], 4);
    p.extras.push(Extra {
        kind: ExtraKind::BlockEntity,
        grid: Some(0),
        cell: Some([1, 0, 0]),
        blob: Blob {
            format: "nbt-java".into(),
            bytes: vec![10, 0, 0, 0],
        },
    });
    p
}

// ---------------------------------------------------------------------------------------
// Hand-derived bytes

fn le16(v: u16) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}
fn le32(v: u32) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}
fn s(v: &str) -> Vec<u8> {
    let mut b = le16(v.len() as u16);
    b.extend_from_slice(v.as_bytes());
    b
}

#[test]
fn tiny_payload_bytes_are_exactly_the_layout() {
    let mut p = VoxelPayload::default();
    p.header.platform = "p".into();
    p.header.chunk_edge = 8;
    p.header.meta.push(("k".into(), "v".into()));
    let mut e = PaletteEntry::new("t", "s");
    e.properties.push(Property {
        key: "a".into(),
        value: PropValue::Int(7),
    });
    p.palette.push(e);
    p.grids
        .push(Grid::new(GridInfo::new("g", [0, 0, 0], [8, 8, 8])));
    for i in 0..512 {
        p.set_cell(0, 0, [i % 8, (i / 8) % 8, i / 64], 1);
    }
    let shards = encode(&p).unwrap();
    assert_eq!(shards.len(), 1);

    let mut head = Vec::new();
    head.extend_from_slice(b"DHVX");
    head.extend(le16(2)); // version
    head.extend(le16(0)); // flags
    head.extend(s("p"));
    head.extend(s(""));
    head.extend(s(""));
    head.extend([0, 0, 0, 0, 0, 0, 0xF0, 0x3F]); // 1.0f64
    head.push(1); // Y up, right-handed
    head.extend([0; 12]); // origin
    head.push(8); // chunk edge
    head.push(32); // region edge
    head.extend(le16(1));
    head.extend(s("k"));
    head.extend(s("v"));
    // Palette.
    head.extend(le32(2));
    head.extend(s("dh"));
    head.extend(s("empty"));
    head.extend(le16(0));
    head.push(0);
    head.extend(s("t"));
    head.extend(s("s"));
    head.extend(le16(1));
    head.extend(s("a"));
    head.push(1); // int
    head.extend(le32(7));
    head.push(0); // no raw blob
                  // Layers.
    head.extend(le16(1));
    head.extend(s("blocks"));
    head.push(1);
    // Grids.
    head.extend(le32(1));
    head.extend(s("g"));
    head.extend(le32(u32::MAX)); // parent -1
    for row in [[1f32, 0., 0., 0.], [0., 1., 0., 0.], [0., 0., 1., 0.]] {
        for v in row {
            head.extend(v.to_le_bytes());
        }
    }
    head.extend([0; 12]);
    head.extend(le32(8));
    head.extend(le32(8));
    head.extend(le32(8));
    head.extend(le16(0)); // attributes
                          // Extras.
    head.extend(le32(0));
    // Region index: one region, 30 bytes.
    let region_at = head.len() as u64 + 4 + 30;
    let record = [
        vec![CODEC_STORED],
        le32(7),
        vec![MODE_UNIFORM, 1, 0, 1, 0, 0, 0],
    ]
    .concat();
    let mut region = le32(1);
    region.extend(le16(0)); // layer
    region.extend([0; 12]); // chunk 0,0,0
    region.extend(le32(4 + 22)); // offset from the region's first byte
    region.extend(le32(record.len() as u32));
    region.extend(&record);
    head.extend(le32(1));
    head.extend(le32(0)); // grid
    head.extend([0; 8]); // region (0, 0)
    head.extend(le16(0)); // shard
    head.extend(region_at.to_le_bytes());
    head.extend((region.len() as u64).to_le_bytes());
    head.extend(&region);
    assert_eq!(region.len(), 38);
    assert_eq!(shards[0], head);
    assert_eq!(decode_all(&views(&shards)).unwrap(), p);
}

#[test]
fn packed_four_bits_for_five_entries_never_spans_a_word() {
    // 5 distinct values need 3 bits, but the width is 4, so 16 cells fill each word and
    // cell 16 starts word 1 whole. Values 10..=14 by i % 5: 10 and 11 are the most
    // common (103 each); the tie goes to the smaller, so the local palette is 10..=14 in
    // order and cell i's local index is i % 5.
    let cells: Vec<u32> = (0..512).map(|i| 10 + (i % 5) as u32).collect();
    let body = encode_chunk_body(&cells).unwrap();
    let mut want = vec![MODE_PACKED, 5, 0];
    for g in 10u32..=14 {
        want.extend(g.to_le_bytes());
    }
    // Word 0: local indices 0 1 2 3 4 0 1 2 3 4 0 1 2 3 4 0, low nibble first.
    want.extend([0x10, 0x32, 0x04, 0x21, 0x43, 0x10, 0x32, 0x04]);
    // Word 1 starts at cell 16 (16 % 5 = 1): 1 2 3 4 0 1 2 3 4 0 1 2 3 4 0 1.
    want.extend([0x21, 0x43, 0x10, 0x32, 0x04, 0x21, 0x43, 0x10]);
    assert_eq!(&body[..want.len()], &want[..]);
    assert_eq!(body.len(), 3 + 5 * 4 + 32 * 8);
    assert_eq!(decode_chunk_body(&body, 512, 15).unwrap(), cells);
}

#[test]
fn packed_widths_are_1_2_4_8_16_bits() {
    // k distinct values spread evenly over 512 cells; (k, width).
    for (k, bits) in [
        (2u32, 1u32),
        (3, 2),
        (4, 2),
        (5, 4),
        (16, 4),
        (17, 8),
        (256, 8),
        (257, 16),
        (300, 16),
    ] {
        let cells: Vec<u32> = (0..512u32).map(|i| 1 + i % k).collect();
        let body = encode_chunk_body(&cells).unwrap();
        assert_eq!(body[0], MODE_PACKED, "k = {k}");
        let words = 512usize.div_ceil((64 / bits) as usize);
        assert_eq!(body.len(), 3 + 4 * k as usize + 8 * words, "k = {k}");
        assert_eq!(
            decode_chunk_body(&body, 512, 400).unwrap(),
            cells,
            "k = {k}"
        );
    }
    // 1 bit, alternating: local 0 1 0 1 ... → every byte 0b1010_1010.
    let cells: Vec<u32> = (0..512u32).map(|i| 1 + i % 2).collect();
    let body = encode_chunk_body(&cells).unwrap();
    assert_eq!(&body[..11], &[MODE_PACKED, 2, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
    assert!(body[11..].iter().all(|&b| b == 0xAA));
    // 16 bits: cell i at bits 16·(i mod 4) of word i / 4.
    let cells: Vec<u32> = (0..512u32).map(|i| 1 + i % 300).collect();
    let body = encode_chunk_body(&cells).unwrap();
    let words = &body[3 + 4 * 300..];
    // The most common values are 1..=212 (twice each); entry 0 is 1, then 2..=300.
    // Cells 0..4 hold 1, 2, 3, 4 → local 0, 1, 2, 3.
    assert_eq!(&words[..8], &[0, 0, 1, 0, 2, 0, 3, 0]);
}

#[test]
fn uniform_when_one_value_and_nothing_when_all_empty() {
    assert_eq!(
        encode_chunk_body(&[3u32; 512]).unwrap(),
        vec![MODE_UNIFORM, 1, 0, 3, 0, 0, 0]
    );
    assert_eq!(encode_chunk_body(&[0u32; 512]), None);
    // An all-empty chunk in the model is not stored: no region at all.
    let mut p = one_grid(8, [8, 8, 8]);
    p.grids[0].chunks.insert(
        ChunkKey {
            layer: 0,
            chunk: [0; 3],
        },
        vec![0; 512],
    );
    let shards = encode(&p).unwrap();
    let r = PayloadReader::open(&views(&shards)).unwrap();
    assert!(r.regions().is_empty());
    assert_eq!(decode_all(&views(&shards)).unwrap(), p.canonical());
    assert!(p.canonical().grids[0].chunks.is_empty());
}

#[test]
fn sparse_when_smaller_with_pairs_over_entry_0() {
    // Stone everywhere but one cell: k = 2, packed 3 + 8 + 64 = 75 bytes, sparse
    // 5 + 8 + 4 = 17.
    let mut cells = vec![1u32; 512];
    cells[100] = 2;
    let body = encode_chunk_body(&cells).unwrap();
    assert_eq!(
        body,
        vec![
            MODE_SPARSE,
            2,
            0,
            1,
            0,
            0,
            0,
            2,
            0,
            0,
            0,
            1,
            0,
            100,
            0,
            1,
            0
        ]
    );
    // Mostly empty: entry 0 is dh:empty.
    let mut cells = vec![0u32; 512];
    cells[7] = 5;
    cells[3] = 6;
    let body = encode_chunk_body(&cells).unwrap();
    assert_eq!(
        body,
        vec![
            MODE_SPARSE,
            3,
            0,
            0,
            0,
            0,
            0,
            5,
            0,
            0,
            0,
            6,
            0,
            0,
            0,
            2,
            0,
            3,
            0,
            2,
            0,
            7,
            0,
            1,
            0
        ]
    );
    assert_eq!(decode_chunk_body(&body, 512, 7).unwrap(), cells);
}

#[test]
fn the_smallest_mode_wins_over_random_chunks() {
    let mut rng = Rng::new(7);
    for round in 0..300 {
        let n = [512usize, 4096, 32768][round % 3];
        let k = 1 + rng.below([2, 5, 20, 300, 2000][round % 5]);
        let bg = rng.below(3) as u32;
        let fill = rng.below(101);
        let cells: Vec<u32> = (0..n)
            .map(|_| {
                if rng.below(100) < fill {
                    rng.below(k) as u32 * 7 + 1
                } else {
                    bg
                }
            })
            .collect();
        let Some(body) = encode_chunk_body(&cells) else {
            assert!(cells.iter().all(|&c| c == 0));
            continue;
        };
        let mut sorted = cells.clone();
        sorted.sort_unstable();
        let runs: Vec<usize> = sorted
            .chunk_by(|a, b| a == b)
            .map(|run| run.len())
            .collect();
        let d = runs.len();
        let top = *runs.iter().max().unwrap();
        let bits = [1usize, 2, 4, 8, 16]
            .into_iter()
            .find(|&w| d <= 1 << w)
            .unwrap();
        let packed = 3 + 4 * d + 8 * n.div_ceil(64 / bits);
        let sparse = 5 + 4 * d + 4 * (n - top);
        let best = if d == 1 { 7 } else { packed.min(sparse) };
        assert_eq!(body.len(), best, "round {round}: k {d}");
        let want_mode = if d == 1 {
            MODE_UNIFORM
        } else if sparse < packed {
            MODE_SPARSE
        } else {
            MODE_PACKED
        };
        assert_eq!(body[0], want_mode, "round {round}");
        assert_eq!(decode_chunk_body(&body, n, 20000).unwrap(), cells);
    }
}

#[test]
fn cells_run_x_fastest_then_y_then_z() {
    // One non-empty cell per payload: a sparse body whose one pair names its index.
    for (cell, chunk, index) in [
        ([1, 0, 0], [0, 0, 0], 1u16),
        ([0, 1, 0], [0, 0, 0], 8),
        ([0, 0, 1], [0, 0, 0], 64),
        ([7, 7, 7], [0, 0, 0], 511),
        ([3, 2, 1], [0, 0, 0], 3 + 2 * 8 + 64),
        ([-1, 0, 0], [-1, 0, 0], 7),
        ([0, -8, 17], [0, -1, 2], 64),
    ] {
        let mut p = one_grid(8, [1, 1, 1]);
        p.grids[0].info.bounds_min = [-8, -8, -8];
        p.grids[0].info.bounds_size = [32, 32, 32];
        assert!(p.set_cell(0, 0, cell, 9));
        let shards = encode(&p).unwrap();
        let r = PayloadReader::open(&views(&shards)).unwrap();
        assert_eq!(r.chunk_table(0).unwrap().entries()[0].key.chunk, chunk);
        let (_, body) = only_body(&shards);
        let mut want = vec![MODE_SPARSE, 2, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0];
        want.extend(index.to_le_bytes());
        want.extend([1, 0]);
        assert_eq!(body, want, "cell {cell:?}");
        let found = r
            .find_chunk(0, ChunkKey { layer: 0, chunk })
            .unwrap()
            .unwrap();
        assert_eq!(r.read_chunk(found.0, found.1).unwrap()[index as usize], 9);
    }
}

#[test]
fn lz4_only_when_smaller() {
    // A repetitive packed chunk compresses: LZ4.
    let mut p = one_grid(8, [8, 8, 8]);
    for i in 0..512 {
        p.set_cell(0, 0, [i % 8, (i / 8) % 8, i / 64], 1 + (i as u32 % 5));
    }
    let shards = encode(&p).unwrap();
    let r = PayloadReader::open(&views(&shards)).unwrap();
    assert_eq!(r.chunk_record(0, 0).unwrap()[0], CODEC_LZ4);
    assert!(r.chunk_record(0, 0).unwrap().len() < 5 + 279);
    let (_, body) = only_body(&shards);
    assert_eq!(body[0], MODE_PACKED);
    // A uniform body (7 bytes) does not: stored.
    let mut p = one_grid(8, [8, 8, 8]);
    for i in 0..512 {
        p.set_cell(0, 0, [i % 8, (i / 8) % 8, i / 64], 4);
    }
    let shards = encode(&p).unwrap();
    assert_eq!(
        only_body(&shards),
        (CODEC_STORED, vec![0, 1, 0, 4, 0, 0, 0])
    );
    // Noise does not compress: stored.
    let mut rng = Rng::new(3);
    let mut p = one_grid(8, [8, 8, 8]);
    for i in 0..512 {
        p.set_cell(
            0,
            0,
            [i % 8, (i / 8) % 8, i / 64],
            1 + rng.below(300) as u32,
        );
    }
    assert_eq!(only_body(&encode(&p).unwrap()).0, CODEC_STORED);
}

// ---------------------------------------------------------------------------------------
// Round trips

#[test]
fn random_payloads_round_trip_byte_identically() {
    let mut rng = Rng::new(2024);
    for round in 0..150 {
        let p = random_payload(&mut rng);
        let opts = EncodeOptions {
            shard_bytes: [1, 300, 5000, VOXEL_SHARD_BYTES][round % 4],
        };
        let shards = encode_with(&p, &opts).unwrap();
        let back = decode_all(&views(&shards)).unwrap();
        assert!(
            back == p.canonical(),
            "round {round}: the model read back differs"
        );
        let again = encode_with(&back, &opts).unwrap();
        assert!(
            again == shards,
            "round {round}: the bytes written again differ"
        );
        // Determinism: the same model writes the same bytes.
        assert!(encode_with(&p, &opts).unwrap() == shards);
        // Cell by cell through the ranged reader.
        let r = PayloadReader::open(&views(&shards)).unwrap();
        for (gi, g) in back.grids.iter().enumerate() {
            for (key, cells) in &g.chunks {
                let (ri, ci) = r.find_chunk(gi as u32, *key).unwrap().unwrap();
                assert_eq!(&r.read_chunk(ri, ci).unwrap(), cells);
            }
        }
        // And through the fuzz entry, which writes, reads and writes again.
        if shards.len() <= 3 {
            dh_content::fuzzing::fuzz_payload(&join_fuzz_shards(&shards));
        }
    }
}

#[test]
fn cell_access_and_scaled_layers() {
    let mut p = one_grid(16, [64, 64, 64]);
    p.layers.push(Layer {
        name: "biome".into(),
        cell_scale: 4,
    });
    assert_eq!(p.cells_per_chunk(0), Some(4096));
    assert_eq!(p.cells_per_chunk(1), Some(64));
    assert_eq!(p.cells_per_chunk(2), None);
    // Biome cell (5, 1, 2) covers blocks 20..24, 4..8, 8..12: chunk (1, 0, 0), index
    // 1 + 4·(1 + 4·2) = 37.
    let (key, i) = p.locate(1, [5, 1, 2]).unwrap();
    assert_eq!(key.chunk, [1, 0, 0]);
    assert_eq!(i, 37);
    assert!(p.set_cell(0, 1, [5, 1, 2], 3));
    assert!(p.set_cell(0, 0, [-3, 70, 2], 2));
    assert!(!p.set_cell(1, 0, [0, 0, 0], 2));
    assert_eq!(p.cell(0, 1, [5, 1, 2]), Some(3));
    assert_eq!(p.cell(0, 1, [5, 1, 3]), Some(0));
    assert_eq!(p.cell(0, 2, [0, 0, 0]), None);
    // Setting 0 where nothing is stored stores nothing.
    let before = p.grids[0].chunks.len();
    p.set_cell(0, 0, [40, 40, 40], 0);
    assert_eq!(p.grids[0].chunks.len(), before);
    // The chunk (-1, 4, 0) lies outside the bounds: the writer refuses it.
    let err = encode(&p).unwrap_err().to_string();
    assert!(err.contains("outside the grid's bounds"), "{err}");
    p.grids[0].chunks.retain(|k, _| k.chunk[0] >= 0);
    let shards = encode(&p).unwrap();
    let r = PayloadReader::open(&views(&shards)).unwrap();
    assert_eq!(r.cells_per_chunk(1), Some(64));
    let back = decode_all(&views(&shards)).unwrap();
    assert_eq!(back.cell(0, 1, [5, 1, 2]), Some(3));
    assert_eq!(back, p.canonical());
}

#[test]
fn axes_byte() {
    for (a, byte) in [
        (Axes::XUpRight, 0u8),
        (Axes::YUpRight, 1),
        (Axes::ZUpRight, 2),
        (Axes::XUpLeft, 4),
        (Axes::YUpLeft, 5),
        (Axes::ZUpLeft, 6),
    ] {
        let pa = PayloadAxes::from_schema(a);
        assert_eq!(pa.to_byte(), byte);
        assert_eq!(PayloadAxes::from_byte(byte), Some(pa));
        assert_eq!(pa.to_schema(), a);
    }
    assert_eq!(PayloadAxes::from_byte(3), None);
    assert_eq!(PayloadAxes::from_byte(7), None);
    assert_eq!(PayloadAxes::from_byte(8 | 1), None);
    assert_eq!(PayloadAxes::from_byte(2).unwrap().horizontal(), [0, 1]);
    assert_eq!(PayloadAxes::from_byte(1).unwrap().horizontal(), [0, 2]);
    assert_eq!(PayloadAxes::from_byte(0).unwrap().horizontal(), [1, 2]);
}

#[test]
fn regions_run_along_the_horizontal_axes() {
    // Z up: regions are (X, Y); a tall column in Z stays one region.
    let mut p = one_grid(8, [1, 1, 10_000]);
    p.header.axes = PayloadAxes::from_schema(Axes::ZUpRight);
    p.grids[0].info.bounds_size = [600, 600, 10_000];
    p.set_cell(0, 0, [0, 0, 0], 1);
    p.set_cell(0, 0, [0, 0, 9_000], 1);
    p.set_cell(0, 0, [300, 0, 0], 1); // chunk x 37: region (1, 0)
    p.set_cell(0, 0, [0, 257, 0], 1); // chunk y 32: region (0, 1)
    let shards = encode(&p).unwrap();
    let r = PayloadReader::open(&views(&shards)).unwrap();
    let regs: Vec<[i32; 2]> = r.regions().iter().map(|e| e.region).collect();
    assert_eq!(regs, vec![[0, 0], [0, 1], [1, 0]]);
    assert_eq!(r.chunk_table(0).unwrap().entries().len(), 2);
    assert_eq!(r.region_of([-1, 31, 1000]), [-1, 0]);
    assert_eq!(r.find_region(0, [1, 0]), Some(2));
    assert_eq!(r.find_region(0, [5, 5]), None);
}

// ---------------------------------------------------------------------------------------
// Shards

#[test]
fn shards_split_past_the_threshold_with_their_own_offsets() {
    let p = sample_payload();
    // Measure the regions unsharded.
    let one = encode(&p).unwrap();
    assert_eq!(one.len(), 1);
    let r = PayloadReader::open(&views(&one)).unwrap();
    let lens: Vec<u64> = r.regions().iter().map(|e| e.length).collect();
    assert_eq!(lens.len(), 3, "grid 0 regions 0 and 1, grid 1 region -1");
    assert_eq!(
        EncodeOptions::default().shard_bytes,
        VOXEL_SHARD_BYTES,
        "the default threshold is the pallet's"
    );

    // Threshold 1: every region after the first starts a new shard.
    let sh = encode_with(&p, &EncodeOptions { shard_bytes: 1 }).unwrap();
    assert_eq!(sh.len(), 3);
    let r = PayloadReader::open_named("w/a.dh-vox.bin", &views(&sh)).unwrap();
    let regs = r.regions();
    assert_eq!(
        regs.iter().map(|e| e.shard).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    assert_eq!(
        regs[1].offset, 0,
        "offsets count from the shard's first byte"
    );
    assert_eq!(regs[2].offset, 0);
    assert_eq!(sh[1].len() as u64, regs[1].length);
    assert_eq!(sh[2].len() as u64, regs[2].length);
    assert_eq!(regs[0].offset + regs[0].length, sh[0].len() as u64);
    assert_eq!(decode_all(&views(&sh)).unwrap(), p.canonical());

    // Threshold = the first region's length: the second region still starts shard 1
    // (shard 0 already holds that much); threshold one byte more keeps it in shard 0.
    let sh = encode_with(
        &p,
        &EncodeOptions {
            shard_bytes: lens[0],
        },
    )
    .unwrap();
    let r = PayloadReader::open(&views(&sh)).unwrap();
    assert_eq!(r.regions()[1].shard, 1);
    let sh = encode_with(
        &p,
        &EncodeOptions {
            shard_bytes: lens[0] + 1,
        },
    )
    .unwrap();
    let r = PayloadReader::open(&views(&sh)).unwrap();
    assert_eq!(
        r.regions().iter().map(|e| e.shard).collect::<Vec<_>>(),
        vec![0, 0, 1]
    );
    assert_eq!(r.regions()[2].offset, 0);
    // The region bytes are the same wherever they sit.
    let ra = r.regions()[2];
    let rb = PayloadReader::open(&views(&one)).unwrap().regions()[2];
    assert_eq!(
        &sh[1][ra.offset as usize..(ra.offset + ra.length) as usize],
        &one[0][rb.offset as usize..(rb.offset + rb.length) as usize]
    );
    assert_eq!(r.shard_count(), 2);
}

#[test]
fn missing_or_extra_shards_are_errors() {
    let p = sample_payload();
    let sh = encode_with(&p, &EncodeOptions { shard_bytes: 1 }).unwrap();
    let v = views(&sh);
    let err = PayloadReader::open_named("w/a.dh-vox.bin", &v[..2]).unwrap_err();
    assert!(matches!(err, PayloadError::Shards { .. }), "{err}");
    assert!(err.to_string().contains("only 2 shards"), "{err}");
    let mut more = v.clone();
    more.push(&[]);
    let err = PayloadReader::open(&more).unwrap_err().to_string();
    assert!(
        err.contains("4 shards were given but the region index uses 3"),
        "{err}"
    );
    let err = PayloadReader::open(&[]).unwrap_err().to_string();
    assert!(err.contains("0 shards"), "{err}");
    // Swapped shards: region 1's table is not where shard 1 begins... the lengths differ.
    let swapped = vec![v[0], v[2], v[1]];
    assert!(decode_all(&swapped).is_err());
}

#[test]
fn errors_name_the_shard_file_and_byte() {
    let p = sample_payload();
    let mut sh = encode_with(&p, &EncodeOptions { shard_bytes: 1 }).unwrap();
    // Corrupt shard 1's chunk count.
    sh[1][0] = 0;
    sh[1][1] = 0;
    sh[1][2] = 0;
    sh[1][3] = 0;
    let v = views(&sh);
    let r = PayloadReader::open_named("w/a.dh-vox.bin", &v).unwrap();
    let err = r.chunk_table(1).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: byte 0: chunk table: region 1: chunk count is 0; expected at least 1 (empty regions are not stored)",
            voxel_shard_name("w/a.dh-vox.bin", 1)
        )
    );
    // A bad magic names shard 0.
    sh[0][0] = b'X';
    let err = PayloadReader::open_named("w/a.dh-vox.bin", &views(&sh))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("w/a.dh-vox.bin: byte 0: header: magic is"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------
// Ranged reading

#[test]
fn tables_and_records_are_read_only_when_asked() {
    let p = sample_payload();
    let mut one = encode(&p).unwrap();
    let (regs, t0, t1) = {
        let r = PayloadReader::open(&views(&one)).unwrap();
        let t0 = r.chunk_table(0).unwrap().clone();
        let t1 = r.chunk_table(1).unwrap().clone();
        (r.regions().to_vec(), t0, t1)
    };
    // Break region 1's table (its first entry's layer) and one record of region 0.
    let at = regs[1].offset as usize + 4;
    one[0][at] = 0xEE;
    let rec = regs[0].offset as usize + t0.entries()[1].offset as usize;
    one[0][rec] = 9; // codec tag
    let r = PayloadReader::open(&views(&one)).expect("open reads the index, not the regions");
    assert!(r.chunk_table(0).is_ok());
    let err = r.chunk_table(1).unwrap_err().to_string();
    assert!(err.contains("layer is 238"), "{err}");
    assert!(r.chunk_table(2).is_ok());
    // Every chunk but the broken one reads.
    assert!(r.read_chunk(0, 0).is_ok());
    let err = r.read_chunk(0, 1).unwrap_err().to_string();
    assert!(err.contains("codec tag is 9"), "{err}");
    assert!(r.read_chunk(2, 0).is_ok());
    assert!(r.read_chunk(1, 0).is_err());
    assert_eq!(t1.entries().len(), 1);
    // Asking for what is not there is an error, not a panic.
    assert!(matches!(
        r.chunk_table(9),
        Err(PayloadError::OutOfRange { .. })
    ));
    assert!(matches!(
        r.read_chunk(0, 99),
        Err(PayloadError::OutOfRange { .. })
    ));
    assert!(r.chunk_record(7, 0).is_err());
}

#[test]
fn the_reader_is_shared_between_threads() {
    let p = sample_payload();
    let sh = encode(&p).unwrap();
    let v = views(&sh);
    let r = PayloadReader::open(&v).unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for ri in 0..r.regions().len() {
                    let n = r.chunk_table(ri).unwrap().entries().len();
                    for ci in 0..n {
                        r.read_chunk(ri, ci).unwrap();
                    }
                }
            });
        }
    });
}

// ---------------------------------------------------------------------------------------
// Corrupt input

#[test]
fn every_truncation_is_an_error() {
    let p = sample_payload();
    let sh = encode(&p).unwrap();
    let full = &sh[0];
    for len in 0..full.len() {
        let cut = &full[..len];
        let res = std::panic::catch_unwind(|| decode_all(&[cut]));
        match res {
            Ok(Err(_)) => {}
            Ok(Ok(_)) => panic!("a payload cut to {len} of {} bytes read", full.len()),
            Err(_) => panic!("a payload cut to {len} bytes panicked"),
        }
    }
    // Cutting a shard past 0 too.
    let sh = encode_with(&p, &EncodeOptions { shard_bytes: 1 }).unwrap();
    for len in 0..sh[1].len() {
        let v = vec![&sh[0][..], &sh[1][..len], &sh[2][..]];
        assert!(decode_all(&v).is_err(), "shard 1 cut to {len}");
    }
}

#[test]
fn every_corrupted_byte_errors_or_reads_consistently() {
    // Every byte of a sharded payload, changed three ways: an error or a payload that
    // writes and reads again identically (checked inside the fuzz entry), never a
    // panic.
    let p = sample_payload();
    let sh = encode_with(&p, &EncodeOptions { shard_bytes: 1 }).unwrap();
    let mut errors = 0usize;
    let mut total = 0usize;
    for s in 0..sh.len() {
        for i in 0..sh[s].len() {
            for x in [0x01u8, 0x80, 0xFF] {
                let mut c = sh.clone();
                c[s][i] ^= x;
                let input = join_fuzz_shards(&c);
                assert_eq!(split_fuzz_shards(&input), views(&c));
                let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_payload(&input));
                assert!(r.is_ok(), "shard {s} byte {i} ^ {x:#x} panicked");
                total += 1;
                if decode_all(&views(&c)).is_err() {
                    errors += 1;
                }
            }
        }
    }
    // Most changes are caught (names, property values and transforms are free bytes).
    assert!(
        errors * 2 > total,
        "{errors} of {total} corruptions were errors"
    );
}

/// A payload's head up to (not including) the palette count, for crafting.
fn head_until_palette() -> Vec<u8> {
    let mut h = b"DHVX".to_vec();
    h.extend(le16(2));
    h.extend(le16(0));
    h.extend(s(""));
    h.extend(s(""));
    h.extend(s(""));
    h.extend(1.0f64.to_le_bytes());
    h.push(1);
    h.extend([0; 12]);
    h.push(16);
    h.push(32);
    h.extend(le16(0));
    h
}

#[test]
fn counts_are_checked_against_caps_and_remaining_bytes() {
    // A palette count past the cap.
    let mut b = head_until_palette();
    b.extend(le32(u32::MAX));
    let err = decode_all(&[&b]).unwrap_err().to_string();
    assert!(err.contains(&format!("at most {MAX_PALETTE}")), "{err}");
    // Within the cap, more than the bytes left could hold: truncated, before allocating.
    let mut b = head_until_palette();
    b.extend(le32(1000));
    b.extend([0; 20]);
    let err = decode_all(&[&b]).unwrap_err();
    assert!(matches!(err, PayloadError::Truncated { .. }), "{err}");
    assert!(err.to_string().contains("1000 × palette entry"), "{err}");
    // A string longer than what remains.
    let mut b = b"DHVX".to_vec();
    b.extend(le16(2));
    b.extend(le16(0));
    b.extend(le16(60000));
    let err = decode_all(&[&b]).unwrap_err().to_string();
    assert!(
        err.contains("header ends early: expected platform (60000 bytes)"),
        "{err}"
    );
    // Version, flags, axes, chunk edge and region edge.
    let good = head_until_palette();
    for (at, val, what) in [
        (4usize, 3u8, "version is 3"),
        (6, 1, "flags is 0x0001"),
        (4 + 2 + 2 + 6 + 8, 3, "axes is 0x03"),
        (4 + 2 + 2 + 6 + 8 + 1 + 12, 12, "chunk edge is 12"),
        (4 + 2 + 2 + 6 + 8 + 1 + 12 + 1, 16, "region edge is 16"),
    ] {
        let mut b = good.clone();
        b[at] = val;
        let err = decode_all(&[&b]).unwrap_err().to_string();
        assert!(err.contains(what), "{what}: {err}");
    }
    let mut b = good.clone();
    b[14..22].copy_from_slice(&(-1.0f64).to_le_bytes());
    let err = decode_all(&[&b]).unwrap_err().to_string();
    assert!(err.contains("voxel size is -1"), "{err}");
}

#[test]
fn chunk_records_are_checked() {
    let cells = 512;
    let body = vec![MODE_UNIFORM, 1, 0, 3, 0, 0, 0];
    assert!(decode_chunk_body(&body, cells, 4).is_ok());
    // Global index past the palette.
    let err = decode_chunk_body(&body, cells, 3).unwrap_err().to_string();
    assert!(
        err.contains("local palette entry is 3; expected a global palette index below 3"),
        "{err}"
    );
    // Uniform dh:empty is never stored.
    let err = decode_chunk_body(&[0, 1, 0, 0, 0, 0, 0], cells, 4)
        .unwrap_err()
        .to_string();
    assert!(err.contains("all-empty chunk is not stored"), "{err}");
    // Mode, counts, trailing bytes.
    assert!(decode_chunk_body(&[3, 1, 0, 1, 0, 0, 0], cells, 4).is_err());
    assert!(decode_chunk_body(&[0, 2, 0, 1, 0, 0, 0, 2, 0, 0, 0], cells, 4).is_err());
    assert!(decode_chunk_body(&[1, 1, 0, 1, 0, 0, 0], cells, 4).is_err());
    let mut long = body.clone();
    long.push(0);
    let err = decode_chunk_body(&long, cells, 4).unwrap_err().to_string();
    assert!(err.contains("1 more bytes"), "{err}");
    // Packed: a local index past the palette (3 entries at 2 bits: index 3 is out).
    let mut b = vec![MODE_PACKED, 3, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0];
    b.extend([0b11u8]);
    b.extend(vec![0u8; 8 * 16 - 1]);
    let err = decode_chunk_body(&b, cells, 4).unwrap_err().to_string();
    assert!(err.contains("packed cell 0 is 3"), "{err}");
    // Packed: unused bits of the last word must be zero (1 cell at 1 bit in one word).
    let mut b = vec![MODE_PACKED, 2, 0, 1, 0, 0, 0, 2, 0, 0, 0];
    b.extend(0b10u64.to_le_bytes());
    let err = decode_chunk_body(&b, 1, 4).unwrap_err().to_string();
    assert!(err.contains("local palette count is 2"), "{err}");
    let mut b = vec![MODE_PACKED, 2, 0, 1, 0, 0, 0, 2, 0, 0, 0];
    b.extend(0b100u64.to_le_bytes());
    let err = decode_chunk_body(&b, 2, 4).unwrap_err().to_string();
    assert!(err.contains("unused bits"), "{err}");
    // Sparse: pairs out of order, past the chunk, naming entry 0.
    let sp = |pairs: &[(u16, u16)]| {
        let mut b = vec![MODE_SPARSE, 2, 0, 1, 0, 0, 0, 2, 0, 0, 0];
        b.extend((pairs.len() as u16).to_le_bytes());
        for &(c, l) in pairs {
            b.extend(c.to_le_bytes());
            b.extend(l.to_le_bytes());
        }
        decode_chunk_body(&b, cells, 4)
    };
    assert!(sp(&[(3, 1), (5, 1)]).is_ok());
    assert!(sp(&[(5, 1), (3, 1)])
        .unwrap_err()
        .to_string()
        .contains("ascending"));
    assert!(sp(&[(5, 1), (5, 1)]).is_err());
    assert!(sp(&[(512, 1)]).is_err());
    assert!(sp(&[(3, 0)])
        .unwrap_err()
        .to_string()
        .contains("local index is 0"));
    assert!(sp(&[(3, 2)]).is_err());
    assert!(sp(&[]).unwrap_err().to_string().contains("pair count is 0"));
}

#[test]
fn lz4_records_must_decode_to_their_raw_length() {
    let mut p = one_grid(8, [8, 8, 8]);
    for i in 0..512 {
        p.set_cell(0, 0, [i % 8, (i / 8) % 8, i / 64], 1 + (i as u32 % 5));
    }
    let sh = encode(&p).unwrap();
    let r = PayloadReader::open(&views(&sh)).unwrap();
    let reg = r.regions()[0];
    let e = r.chunk_table(0).unwrap().entries()[0];
    let rec = (reg.offset + e.offset as u64) as usize;
    assert_eq!(sh[0][rec], CODEC_LZ4);
    for (raw, want) in [
        (278u32, "LZ4 body is undecodable"),
        (280, "decoded length is 279"),
        (1 << 20, "raw length is 1048576"),
    ] {
        let mut c = sh.clone();
        c[0][rec + 1..rec + 5].copy_from_slice(&raw.to_le_bytes());
        let err = decode_all(&views(&c)).unwrap_err().to_string();
        assert!(err.contains(want), "raw {raw}: {err}");
    }
    // A broken body inside an LZ4 record is named as such.
    let mut body = only_body(&sh).1;
    body[1] = 9; // local palette count 9 > the 5 entries' bytes
    let lz = lz4_flex::block::compress(&body);
    let mut rec_bytes = vec![CODEC_LZ4];
    rec_bytes.extend((body.len() as u32).to_le_bytes());
    rec_bytes.extend(&lz);
    let mut c = sh[0][..rec].to_vec();
    let delta = rec_bytes.len() as i64 - e.length as i64;
    c.extend(&rec_bytes);
    // Fix the record length in the table and the region length in the index.
    let table_len_at = reg.offset as usize + 4 + 18;
    c[table_len_at..table_len_at + 4].copy_from_slice(&(rec_bytes.len() as u32).to_le_bytes());
    let idx_len_at = reg.offset as usize - 8;
    c[idx_len_at..idx_len_at + 8]
        .copy_from_slice(&((reg.length as i64 + delta) as u64).to_le_bytes());
    let err = decode_all(&[&c]).unwrap_err().to_string();
    assert!(
        err.contains("LZ4-decoded body of the chunk record at byte"),
        "{err}"
    );
}

#[test]
fn structure_rules_are_checked_on_open() {
    let p = sample_payload();
    let sh = encode(&p).unwrap();
    let r = PayloadReader::open(&views(&sh)).unwrap();
    let regs = r.regions().to_vec();
    let idx = regs[0].offset as usize - 30 * regs.len();
    drop(r);
    // Region index out of order.
    let mut c = sh.clone();
    c[0][idx + 4..idx + 8].copy_from_slice(&5i32.to_le_bytes());
    let err = decode_all(&views(&c)).unwrap_err().to_string();
    assert!(err.contains("ascending, unique"), "{err}");
    // A region offset that leaves a gap.
    let mut c = sh.clone();
    let at = idx + 30 + 14;
    let off = regs[1].offset + 1;
    c[0][at..at + 8].copy_from_slice(&off.to_le_bytes());
    let err = decode_all(&views(&c)).unwrap_err().to_string();
    assert!(err.contains("back to back"), "{err}");
    // Trailing bytes after the last region.
    let mut c = sh.clone();
    c[0].push(0);
    let err = decode_all(&views(&c)).unwrap_err().to_string();
    assert!(err.contains("but its regions end at byte"), "{err}");
    // A parent that comes after its child; palette entry 0 not dh:empty.
    let mut q = p.clone();
    q.grids[0].info.parent = Some(1);
    assert!(encode(&q)
        .unwrap_err()
        .to_string()
        .contains("parent must come before"));
    let mut q = p.clone();
    q.palette[0].id = "air".into();
    assert!(encode(&q)
        .unwrap_err()
        .to_string()
        .contains("palette entry 0"));
    let mut q = p.clone();
    q.layers.swap(0, 1);
    assert!(encode(&q)
        .unwrap_err()
        .to_string()
        .contains("'blocks' at cell scale 1"));
    let mut q = p.clone();
    q.layers[1].cell_scale = 3;
    assert!(encode(&q)
        .unwrap_err()
        .to_string()
        .contains("must divide the chunk edge 8"));
    let mut q = p.clone();
    q.palette.truncate(5);
    assert!(encode(&q)
        .unwrap_err()
        .to_string()
        .contains("use global palette index"));
    let mut q = p.clone();
    q.grids[0].chunks.values_mut().next().unwrap().pop();
    assert!(encode(&q)
        .unwrap_err()
        .to_string()
        .contains("has 511 cells"));
    let mut q = p.clone();
    q.header.voxel_size = 0.0;
    assert!(encode(&q).is_err());
    q.header.voxel_size = 1.0;
    q.header.chunk_edge = 64;
    assert!(encode(&q).is_err());
    let mut q = p.clone();
    q.grids[0].info.transform[1][3] = f32::NAN;
    assert!(encode(&q).unwrap_err().to_string().contains("finite"));
    let mut q = p.clone();
    q.extras[0].grid = Some(5);
    assert!(encode(&q).unwrap_err().to_string().contains("names grid 5"));
    let mut q = p;
    q.header.platform = "x".repeat(70_000);
    assert!(encode(&q).unwrap_err().to_string().contains("65535"));
}

#[test]
fn the_streaming_writer_takes_regions_in_order() {
    let header = PayloadHeader {
        chunk_edge: 16,
        ..PayloadHeader::default()
    };
    let grids = [GridInfo::new(
        "overworld",
        [-512, -64, -512],
        [2048, 384, 2048],
    )];
    let mut w = PayloadWriter::new(
        &header,
        &[Layer::blocks()],
        &grids,
        EncodeOptions::default(),
    )
    .unwrap();
    let stone = vec![1u32; 4096];
    let key = |x, y, z| ChunkKey {
        layer: 0,
        chunk: [x, y, z],
    };
    assert!(w
        .add_region(0, [-1, 0], [(key(-1, -4, 0), &stone[..])])
        .unwrap());
    // Out of order, wrong region, empty.
    assert!(w
        .add_region(0, [-1, 0], [(key(-2, 0, 0), &stone[..])])
        .is_err());
    let err = w
        .add_region(0, [0, 0], [(key(32, 0, 0), &stone[..])])
        .unwrap_err()
        .to_string();
    assert!(err.contains("belongs to region [1, 0]"), "{err}");
    assert!(!w
        .add_region(0, [0, 1], [(key(0, 0, 32), &vec![0u32; 4096][..])])
        .unwrap());
    assert!(w
        .add_region(
            0,
            [1, 1],
            [(key(33, 3, 40), &stone[..]), (key(33, 2, 40), &stone[..])]
        )
        .unwrap());
    assert_eq!(w.regions().len(), 2);
    let mut palette = vec![
        PaletteEntry::empty(),
        PaletteEntry::new("minecraft", "stone"),
    ];
    palette[1].properties.push(Property::string("k", "v"));
    let sh = w.finish(&palette, &[]).unwrap();
    let back = decode_all(&views(&sh)).unwrap();
    assert_eq!(back.cell(0, 0, [-16, -64, 0]), Some(1));
    assert_eq!(back.cell(0, 0, [33 * 16, 3 * 16, 40 * 16]), Some(1));
    assert_eq!(back.cell(0, 0, [0, 0, 0]), Some(0));
    assert_eq!(back.grids[0].chunks.len(), 3);
    assert_eq!(back.grids[0].info.transform, IDENTITY_TRANSFORM);
}

// ---------------------------------------------------------------------------------------
// Fuzz corpus

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/payload")
}

/// The seeds: valid payloads (one shard and several) and a few broken ones.
fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let p = sample_payload();
    let one = encode(&p).unwrap();
    let three = encode_with(&p, &EncodeOptions { shard_bytes: 1 }).unwrap();
    let mut tiny = one_grid(8, [8, 8, 8]);
    tiny.palette.truncate(3);
    tiny.set_cell(0, 0, [1, 2, 3], 2);
    let tiny = encode(&tiny).unwrap();
    let mut rng = Rng::new(99);
    let mut rand = random_payload(&mut rng);
    while rand.stored_cells() == 0 || rand.stored_cells() > 200_000 {
        rand = random_payload(&mut rng);
    }
    let rand = encode(&rand).unwrap();
    let mut trunc = one[0].clone();
    trunc.truncate(trunc.len() - 3);
    let mut bad_count = tiny[0].clone();
    let n = bad_count.len();
    bad_count[n - 30] ^= 0x40;
    vec![
        ("valid-sample", join_fuzz_shards(&one)),
        ("valid-sample-3-shards", join_fuzz_shards(&three)),
        ("valid-tiny", join_fuzz_shards(&tiny)),
        ("valid-random", join_fuzz_shards(&rand)),
        ("trunc-sample", join_fuzz_shards(&[trunc])),
        ("corrupt-tiny", join_fuzz_shards(&[bad_count])),
        ("empty", vec![]),
    ]
}

/// Writes the seed corpus: `cargo test -p dh-content --test voxel_payload -- --ignored
/// write_payload_corpus`.
#[test]
#[ignore]
fn write_payload_corpus() {
    let dir = corpus_dir();
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in seeds() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

#[test]
fn payload_corpus_never_panics() {
    let dir = corpus_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus folder {} is missing: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 7,
        "the payload corpus has only {} files",
        files.len()
    );
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_payload(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
    // The valid seeds are still valid (the corpus is not stale).
    for (name, bytes) in seeds() {
        if name.starts_with("valid") {
            let shards = split_fuzz_shards(&bytes);
            assert!(decode_all(&shards).is_ok(), "seed {name} no longer reads");
        }
    }
}
