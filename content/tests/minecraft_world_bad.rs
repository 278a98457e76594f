//! Java worlds from crafted region files: both chunk layouts and packings, every
//! compression, and bad input (each case names the file, the region, the chunk and what
//! was wrong, and the rest of the world still converts).
//!
//! The NBT is written by a small writer of this test's own, not by the code under test.

use std::path::{Path, PathBuf};

use dh_content::voxel::minecraft::world::region::{build_region, lz4_java_encode};
use dh_content::voxel::minecraft::world::{self, WorldOptions, WorldReport};
use dh_content::voxel::payload::{PayloadReader, PropValue};

/// A tag of this test's NBT writer.
enum T {
    B(i8),
    I(i32),
    S(&'static str),
    D(f64),
    L(Vec<T>),
    C(Vec<(&'static str, T)>),
    La(Vec<i64>),
    Ia(Vec<i32>),
}

fn id(t: &T) -> u8 {
    match t {
        T::B(_) => 1,
        T::I(_) => 3,
        T::D(_) => 6,
        T::S(_) => 8,
        T::L(_) => 9,
        T::C(_) => 10,
        T::La(_) => 12,
        T::Ia(_) => 11,
    }
}

fn put_str(s: &str, out: &mut Vec<u8>) {
    out.extend((s.len() as u16).to_be_bytes());
    out.extend(s.as_bytes());
}

fn payload(t: &T, out: &mut Vec<u8>) {
    match t {
        T::B(v) => out.push(*v as u8),
        T::I(v) => out.extend(v.to_be_bytes()),
        T::S(s) => put_str(s, out),
        T::D(v) => out.extend(v.to_be_bytes()),
        T::L(items) => {
            out.push(items.first().map_or(0, id));
            out.extend((items.len() as i32).to_be_bytes());
            for i in items {
                payload(i, out);
            }
        }
        T::C(entries) => {
            for (k, v) in entries {
                out.push(id(v));
                put_str(k, out);
                payload(v, out);
            }
            out.push(0);
        }
        T::La(v) => {
            out.extend((v.len() as i32).to_be_bytes());
            for x in v {
                out.extend(x.to_be_bytes());
            }
        }
        T::Ia(v) => {
            out.extend((v.len() as i32).to_be_bytes());
            for x in v {
                out.extend(x.to_be_bytes());
            }
        }
    }
}

fn root(t: T) -> Vec<u8> {
    let mut out = vec![10, 0, 0];
    let T::C(_) = &t else { panic!() };
    let mut body = Vec::new();
    payload(&t, &mut body);
    out.extend(body);
    out
}

/// Packs values at `bits` bits, within longs or across them.
fn pack(values: &[u64], bits: u32, spanning: bool) -> Vec<i64> {
    let mut out = Vec::new();
    if spanning {
        let words = (values.len() * bits as usize).div_ceil(64);
        out.resize(words, 0u64);
        for (i, &v) in values.iter().enumerate() {
            let bit = i * bits as usize;
            out[bit / 64] |= v << (bit % 64);
            if bit % 64 + bits as usize > 64 {
                out[bit / 64 + 1] |= v >> (64 - bit % 64);
            }
        }
    } else {
        let per = (64 / bits) as usize;
        out.resize(values.len().div_ceil(per), 0u64);
        for (i, &v) in values.iter().enumerate() {
            out[i / per] |= v << ((i % per) as u32 * bits);
        }
    }
    out.into_iter().map(|w| w as i64).collect()
}

fn block(name: &'static str) -> T {
    T::C(vec![("Name", T::S(name))])
}

/// A 1.18+ chunk at (x, z) with one section at Y 0: `values` (source order, Y Z X)
/// into `palette`, at 4 bits.
fn modern_chunk(x: i32, z: i32, status: T, palette: Vec<T>, values: &[u64]) -> Vec<u8> {
    root(T::C(vec![
        ("DataVersion", T::I(3465)),
        ("xPos", T::I(x)),
        ("zPos", T::I(z)),
        ("yPos", T::I(-4)),
        ("Status", status),
        (
            "sections",
            T::L(vec![T::C(vec![
                ("Y", T::B(0)),
                (
                    "block_states",
                    T::C(vec![
                        ("palette", T::L(palette)),
                        ("data", T::La(pack(values, 4, false))),
                    ]),
                ),
                (
                    "biomes",
                    T::C(vec![("palette", T::L(vec![T::S("minecraft:plains")]))]),
                ),
            ])]),
        ),
        (
            "block_entities",
            T::L(vec![T::C(vec![
                ("id", T::S("minecraft:chest")),
                ("x", T::I(x * 16 + 1)),
                ("y", T::I(2)),
                ("z", T::I(z * 16 + 3)),
            ])]),
        ),
    ]))
}

fn gzip(raw: &[u8]) -> Vec<u8> {
    let mut g = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    g.extend(miniz_oxide::deflate::compress_to_vec(raw, 6));
    g.extend(crc32fast::hash(raw).to_le_bytes());
    g.extend((raw.len() as u32).to_le_bytes());
    g
}

fn zlib(b: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(b, 6)
}

struct Tmp(PathBuf);
impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
fn tmp(tag: &str) -> Tmp {
    let p = std::env::temp_dir().join(format!("dh-mcw-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(p.join("region")).unwrap();
    Tmp(p)
}

fn convert(dir: &Path) -> (Vec<Vec<u8>>, WorldReport) {
    let save = world::save::discover(dir).unwrap();
    world::convert_world(&save, &WorldOptions::default()).unwrap()
}

/// Stone (index 0) everywhere but cell i % 7 == 0, dirt (1).
fn pattern() -> Vec<u64> {
    (0..4096).map(|i| u64::from(i % 7 == 0)).collect()
}

#[test]
fn bad_chunks_are_named_and_the_rest_converts() {
    let t = tmp("bad");
    let good = modern_chunk(
        0,
        0,
        T::S("minecraft:full"),
        vec![block("minecraft:stone"), block("minecraft:dirt")],
        &pattern(),
    );
    // A palette index past the palette: value 5 of a two-entry palette at cell 100.
    let mut vals = pattern();
    vals[100] = 5;
    let past = modern_chunk(
        1,
        0,
        T::S("minecraft:full"),
        vec![block("minecraft:stone"), block("minecraft:dirt")],
        &vals,
    );
    // An NBT type mismatch: Status as an Int.
    let mismatch = modern_chunk(2, 0, T::I(7), vec![block("minecraft:stone")], &[0; 4096]);
    // Still generating: skipped and counted.
    let young = modern_chunk(
        3,
        0,
        T::S("minecraft:features"),
        vec![block("minecraft:stone")],
        &[0; 4096],
    );
    // A zlib bomb past the default 64 MiB cap.
    let bomb = zlib(&vec![0u8; 65 << 20]);
    // LZ4 (1.20.5+), and an oversized chunk in its .mcc, and a missing .mcc.
    let lz = modern_chunk(
        5,
        0,
        T::S("full"),
        vec![block("minecraft:oak_planks")],
        &[0; 4096],
    );
    let big = modern_chunk(
        6,
        0,
        T::S("full"),
        vec![block("minecraft:glass")],
        &[0; 4096],
    );
    std::fs::write(t.0.join("region/c.6.0.mcc"), zlib(&big)).unwrap();
    let bytes = build_region(&[
        ([0, 0], 2, zlib(&good)),
        ([1, 0], 2, zlib(&past)),
        ([2, 0], 2, zlib(&mismatch)),
        ([3, 0], 3, young),
        ([4, 0], 2, bomb),
        ([5, 0], 4, lz4_java_encode(&lz, 1 << 16)),
        ([6, 0], 0x82, Vec::new()),
        ([7, 0], 0x82, Vec::new()),
    ]);
    std::fs::write(t.0.join("region/r.0.0.mca"), bytes).unwrap();
    // A truncated region beside it: refused whole, the first one still converts.
    std::fs::write(t.0.join("region/r.1.0.mca"), vec![0u8; 100]).unwrap();

    let (shards, report) = convert(&t.0);
    let errors = report.chunk_errors.join("\n");
    println!("{errors}");
    assert_eq!(report.chunk_errors.len(), 5, "{errors}");
    let region = t.0.join("region/r.0.0.mca").display().to_string();
    let has = |chunk: &str, what: &str| {
        assert!(
            report.chunk_errors.iter().any(|e| e.contains(&region)
                && e.contains("region (0, 0)")
                && e.contains(chunk)
                && e.contains(what)),
            "no error for {chunk} saying {what}:\n{errors}"
        )
    };
    has("chunk (1, 0)", "palette index 5; the palette has 2 entries");
    has("chunk (2, 0)", "Status: expected String, found Int");
    has("chunk (4, 0)", "inflates past 67108864 bytes");
    has("chunk (7, 0)", "c.7.0.mcc is missing");
    assert!(
        report
            .chunk_errors
            .iter()
            .any(|e| e.contains("r.1.0.mca") && e.contains("truncated")),
        "{errors}"
    );
    let g = &report.grids[0];
    assert_eq!((g.chunks, g.skipped), (3, 1));
    assert_eq!(report.block_entities, 3);
    // The three good chunks' cells.
    let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
    let r = PayloadReader::open(&views).unwrap();
    let names: Vec<String> = r
        .palette()
        .iter()
        .map(|e| format!("{}:{}", e.ns, e.id))
        .collect();
    let cell = |x: i32, y: i32, z: i32| -> String {
        let key = dh_content::voxel::payload::ChunkKey {
            layer: 0,
            chunk: [x / 16, y / 16, z / 16],
        };
        let (ri, ci) = r.find_chunk(0, key).unwrap().unwrap();
        let cells = r.read_chunk(ri, ci).unwrap();
        let (lx, ly, lz) = ((x % 16) as usize, (y % 16) as usize, (z % 16) as usize);
        names[cells[lx + 16 * (ly + 16 * lz)] as usize].clone()
    };
    // Source index i = y*256 + z*16 + x: i = 0 and 7 are dirt, 1 stone.
    assert_eq!(cell(0, 0, 0), "minecraft:dirt");
    assert_eq!(cell(7, 0, 0), "minecraft:dirt");
    assert_eq!(cell(1, 0, 0), "minecraft:stone");
    assert_eq!(cell(0, 1, 0), "minecraft:stone"); // i = 256, 256 % 7 = 4
    assert_eq!(cell(0, 0, 1), "minecraft:stone"); // i = 16, 16 % 7 = 2
    assert_eq!(cell(5 * 16, 0, 0), "minecraft:oak_planks");
    assert_eq!(cell(6 * 16 + 3, 9, 4), "minecraft:glass");
    let meta = |k: &str| {
        r.header()
            .meta
            .iter()
            .find(|(a, _)| a == k)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(meta("skippedChunks").as_deref(), Some("1"));
    assert!(r.extras().iter().any(|x| x.cell == Some([1, 2, 3])));
}

/// A 1.13–1.17 chunk: `Level.Sections` with a 17-entry palette (5 bits), packed across
/// longs before data version 2529 and within them after.
fn legacy_chunk(x: i32, data_version: i32, spanning: bool, pig: Vec<T>) -> Vec<u8> {
    const WOOL: [&str; 17] = [
        "minecraft:white_wool",
        "minecraft:orange_wool",
        "minecraft:magenta_wool",
        "minecraft:light_blue_wool",
        "minecraft:yellow_wool",
        "minecraft:lime_wool",
        "minecraft:pink_wool",
        "minecraft:gray_wool",
        "minecraft:light_gray_wool",
        "minecraft:cyan_wool",
        "minecraft:purple_wool",
        "minecraft:blue_wool",
        "minecraft:brown_wool",
        "minecraft:green_wool",
        "minecraft:red_wool",
        "minecraft:black_wool",
        "minecraft:stone",
    ];
    let values: Vec<u64> = (0..4096u64).map(|i| i % 17).collect();
    let mut palette: Vec<T> = WOOL.iter().map(|n| block(n)).collect();
    palette[16] = T::C(vec![
        ("Name", T::S("minecraft:oak_stairs")),
        (
            "Properties",
            T::C(vec![
                ("waterlogged", T::S("true")),
                ("facing", T::S("east")),
                ("half", T::S("top")),
                ("shape", T::S("straight")),
            ]),
        ),
    ]);
    root(T::C(vec![
        ("DataVersion", T::I(data_version)),
        (
            "Level",
            T::C(vec![
                ("xPos", T::I(x)),
                ("zPos", T::I(0)),
                ("Status", T::S("full")),
                (
                    "Sections",
                    T::L(vec![T::C(vec![
                        ("Y", T::B(1)),
                        ("Palette", T::L(palette)),
                        ("BlockStates", T::La(pack(&values, 5, spanning))),
                    ])]),
                ),
                (
                    "Entities",
                    T::L(vec![T::C(vec![
                        ("id", T::S("minecraft:pig")),
                        ("Pos", T::L(pig)),
                    ])]),
                ),
            ]),
        ),
    ]))
}

#[test]
fn both_packings_of_1_13_to_1_17_and_a_pre_1_13_chunk() {
    let t = tmp("legacy");
    let old = root(T::C(vec![
        ("DataVersion", T::I(1343)),
        ("Level", T::C(vec![("xPos", T::I(2)), ("zPos", T::I(0))])),
    ]));
    let bytes = build_region(&[
        (
            [0, 0],
            2,
            zlib(&legacy_chunk(
                0,
                1976,
                true,
                vec![T::D(1.5), T::D(20.0), T::D(-0.5)],
            )),
        ),
        ([3, 0], 2, zlib(&legacy_chunk(3, 1976, true, vec![]))),
        ([1, 0], 1, {
            // gzip by hand
            let raw = legacy_chunk(1, 2586, false, vec![T::D(17.0), T::D(16.9), T::D(3.2)]);
            let mut g = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
            g.extend(miniz_oxide::deflate::compress_to_vec(&raw, 6));
            g.extend(crc32fast::hash(&raw).to_le_bytes());
            g.extend((raw.len() as u32).to_le_bytes());
            g
        }),
        ([2, 0], 2, zlib(&old)),
    ]);
    std::fs::write(t.0.join("region/r.0.0.mca"), bytes).unwrap();
    let (shards, report) = convert(&t.0);
    // Chunk (3, 0)'s pig has an empty Pos: an error naming its path, and the other
    // chunks convert.
    println!("{:?}", report.chunk_errors);
    assert!(
        report.warnings.iter().any(|w| w.contains("before 1.13")
            && w.contains("data version 1343")
            && w.contains("newer Minecraft")),
        "{:?}",
        report.warnings
    );
    assert_eq!(report.grids[0].pre_flattening, 1);
    let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
    let r = PayloadReader::open(&views).unwrap();
    let mut read = 0;
    for cx in 0..2 {
        let key = dh_content::voxel::payload::ChunkKey {
            layer: 0,
            chunk: [cx, 1, 0],
        };
        let Some((ri, ci)) = r.find_chunk(0, key).unwrap() else {
            continue;
        };
        read += 1;
        let cells = r.read_chunk(ri, ci).unwrap();
        for i in 0..4096usize {
            let (x, z, y) = (i & 15, (i >> 4) & 15, i >> 8);
            let e = &r.palette()[cells[x + 16 * (y + 16 * z)] as usize];
            if i % 17 == 16 {
                assert_eq!(e.id, "oak_stairs");
                let props: Vec<(&str, &str)> = e
                    .properties
                    .iter()
                    .map(|p| {
                        (
                            p.key.as_str(),
                            match &p.value {
                                PropValue::String(s) => s.as_str(),
                                _ => "",
                            },
                        )
                    })
                    .collect();
                assert_eq!(
                    props,
                    [
                        ("facing", "east"),
                        ("half", "top"),
                        ("shape", "straight"),
                        ("waterlogged", "true")
                    ]
                );
            } else {
                assert!(e.id.ends_with("_wool"), "chunk {cx} cell {i}: {}", e.id);
            }
        }
    }
    assert_eq!(read, 2, "{:?}", report.chunk_errors);
    assert_eq!(report.chunk_errors.len(), 1, "{:?}", report.chunk_errors);
    assert!(
        report.chunk_errors[0].contains("chunk (3, 0)")
            && report.chunk_errors[0]
                .contains("Level.Entities[0].Pos: 0 values; expected three finite Doubles"),
        "{:?}",
        report.chunk_errors
    );
    // The pigs are entities in the cells of their Pos, floored.
    let cells: Vec<[i32; 3]> = r
        .extras()
        .iter()
        .filter(|x| x.kind == dh_content::voxel::payload::ExtraKind::Entity)
        .filter_map(|x| x.cell)
        .collect();
    assert_eq!(cells, [[1, 20, -1], [17, 16, 3]]);
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/region")
}

/// Writes the `region` fuzz target's seeds (run with `--ignored` to refresh them).
#[test]
#[ignore]
fn write_region_corpus() {
    let dir = corpus_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let good = modern_chunk(
        0,
        0,
        T::S("minecraft:full"),
        vec![block("minecraft:stone"), block("minecraft:dirt")],
        &pattern(),
    );
    let mut vals = pattern();
    vals[100] = 5;
    let past = modern_chunk(
        1,
        0,
        T::S("minecraft:full"),
        vec![block("minecraft:stone"), block("minecraft:dirt")],
        &vals,
    );
    let seeds: Vec<(&str, Vec<u8>)> = vec![
        (
            "modern_zlib.mca",
            build_region(&[([0, 0], 2, zlib(&good)), ([1, 0], 2, zlib(&past))]),
        ),
        (
            "modern_lz4_stored.mca",
            build_region(&[
                ([0, 0], 4, lz4_java_encode(&good, 1024)),
                ([3, 2], 3, good.clone()),
            ]),
        ),
        (
            "legacy_both_packings.mca",
            build_region(&[
                (
                    [0, 0],
                    2,
                    zlib(&legacy_chunk(
                        0,
                        1976,
                        true,
                        vec![T::D(1.5), T::D(20.0), T::D(-0.5)],
                    )),
                ),
                ([1, 0], 3, legacy_chunk(1, 2586, false, vec![])),
            ]),
        ),
        (
            "custom_and_mcc.mca",
            build_region(&[
                ([0, 0], 127, b"\x00\x04a:bc".to_vec()),
                ([1, 0], 0x82, Vec::new()),
            ]),
        ),
        ("lz4_stream.bin", lz4_java_encode(&good, 256)),
    ];
    for (name, bytes) in seeds {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

/// Nothing under a folder with level.dat, and no .mca or .mcc anywhere, is ever shipped.
#[test]
fn a_build_never_ships_a_save() {
    let t = tmp("ship");
    let root = &t.0;
    std::fs::write(
        root.join("pallet.dh"),
        r#"{ "id": "com.example.ship", "name": "Ship", "version": "1.0.0" }"#,
    )
    .unwrap();
    std::fs::create_dir_all(root.join("saves/w/region")).unwrap();
    std::fs::write(root.join("saves/w/level.dat"), b"x").unwrap();
    std::fs::write(root.join("saves/w/icon.png"), b"x").unwrap();
    std::fs::write(root.join("saves/w/region/r.0.0.mca"), b"x").unwrap();
    std::fs::write(root.join("loose.mca"), b"x").unwrap();
    std::fs::write(root.join("c.0.0.MCC"), b"x").unwrap();
    std::fs::write(root.join("kept.png"), b"x").unwrap();
    let mut d = dh_content::diag::Diagnostics::new();
    let found: Vec<String> = dh_content::compile::discover(root, &mut d)
        .into_iter()
        .map(|s| s.path)
        .collect();
    assert!(!d.has_errors());
    assert_eq!(found, ["kept.png"]);
}

/// An entity compound: `id` and `Pos` (three Doubles).
fn mob(id: &'static str, pos: [f64; 3]) -> T {
    T::C(vec![
        ("id", T::S(id)),
        ("Pos", T::L(pos.iter().map(|&v| T::D(v)).collect())),
        ("Health", T::D(10.0)),
    ])
}

/// An entities region chunk (1.17 and later): `Position` and `Entities`.
fn entity_chunk(x: i32, z: i32, mobs: Vec<T>) -> Vec<u8> {
    root(T::C(vec![
        ("DataVersion", T::I(3465)),
        ("Position", T::Ia(vec![x, z])),
        ("Entities", T::L(mobs)),
    ]))
}

/// A 1.16 chunk (data version 2586) at (x, 0): one section at Y 0 of `block`, and the
/// numeric `Level.Biomes` the import drops.
fn biomes_1_16_chunk(x: i32, block_name: &'static str) -> Vec<u8> {
    root(T::C(vec![
        ("DataVersion", T::I(2586)),
        (
            "Level",
            T::C(vec![
                ("xPos", T::I(x)),
                ("zPos", T::I(0)),
                ("Status", T::S("full")),
                ("Biomes", T::Ia(vec![1; 1024])),
                (
                    "Sections",
                    T::L(vec![T::C(vec![
                        ("Y", T::B(0)),
                        ("Palette", T::L(vec![block(block_name)])),
                        ("BlockStates", T::La(pack(&[0; 4096], 4, false))),
                    ])]),
                ),
            ]),
        ),
    ]))
}

fn level_dat() -> Vec<u8> {
    gzip(&root(T::C(vec![(
        "Data",
        T::C(vec![
            ("LevelName", T::S("crafted")),
            ("DataVersion", T::I(3465)),
            (
                "Version",
                T::C(vec![("Name", T::S("1.20.1")), ("Snapshot", T::B(0))]),
            ),
            ("SpawnX", T::I(4)),
            ("SpawnY", T::I(70)),
            ("SpawnZ", T::I(-8)),
        ]),
    )])))
}

/// The meta's `dropped` for a world, as the spec's "Derived data is dropped" lists it:
/// light, heightmaps, scheduled ticks and the rest the game computes again.
const DROPPED: &str = "light (BlockLight, SkyLight), heightmaps, scheduled ticks (block_ticks, fluid_ticks), PostProcessing, structures, CarvingMasks, blending_data, InhabitedTime, LastUpdate";

fn meta_of(r: &PayloadReader<'_>, key: &str) -> Option<String> {
    r.header()
        .meta
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
}

/// A crafted save with three dimensions in both layouts and entity regions beside two
/// of them.
fn three_dimension_save(tag: &str) -> Tmp {
    let t = tmp(tag);
    let w = &t.0;
    std::fs::write(w.join("level.dat"), level_dat()).unwrap();
    // The overworld (previous layout: region/ at the root), its entities beside it.
    std::fs::write(
        w.join("region/r.0.0.mca"),
        build_region(&[(
            [0, 0],
            2,
            zlib(&modern_chunk(
                0,
                0,
                T::S("minecraft:full"),
                vec![block("minecraft:stone"), block("minecraft:dirt")],
                &pattern(),
            )),
        )]),
    )
    .unwrap();
    std::fs::create_dir_all(w.join("entities")).unwrap();
    std::fs::write(
        w.join("entities/r.0.0.mca"),
        build_region(&[(
            [0, 0],
            2,
            zlib(&entity_chunk(
                0,
                0,
                vec![mob("minecraft:pig", [5.5, 70.2, 9.9])],
            )),
        )]),
    )
    .unwrap();
    // The nether in the current layout, region (-1, 0), chunk (-1, 0) = local (31, 0).
    let nether = w.join("dimensions/minecraft/the_nether");
    std::fs::create_dir_all(nether.join("region")).unwrap();
    std::fs::create_dir_all(nether.join("entities")).unwrap();
    std::fs::write(
        nether.join("region/r.-1.0.mca"),
        build_region(&[(
            [31, 0],
            2,
            zlib(&modern_chunk(
                -1,
                0,
                T::S("minecraft:full"),
                vec![block("minecraft:netherrack")],
                &[0; 4096],
            )),
        )]),
    )
    .unwrap();
    std::fs::write(
        nether.join("entities/r.-1.0.mca"),
        build_region(&[(
            [31, 0],
            2,
            zlib(&entity_chunk(
                -1,
                0,
                vec![mob("minecraft:ghast", [-3.5, 40.0, 2.0])],
            )),
        )]),
    )
    .unwrap();
    // The previous layout's nether, which the current one supersedes: never read.
    std::fs::create_dir_all(w.join("DIM-1/region")).unwrap();
    std::fs::write(
        w.join("DIM-1/region/r.0.0.mca"),
        build_region(&[(
            [0, 0],
            2,
            zlib(&modern_chunk(
                0,
                0,
                T::S("full"),
                vec![block("minecraft:glass")],
                &[0; 4096],
            )),
        )]),
    )
    .unwrap();
    // The end in the previous layout, a 1.16 chunk with numeric biomes.
    std::fs::create_dir_all(w.join("DIM1/region")).unwrap();
    std::fs::write(
        w.join("DIM1/region/r.0.0.mca"),
        build_region(&[(
            [2, 0],
            2,
            zlib(&biomes_1_16_chunk(2, "minecraft:end_stone")),
        )]),
    )
    .unwrap();
    t
}

#[test]
fn every_dimension_is_a_grid_and_entities_come_from_the_entities_folder() {
    let t = three_dimension_save("dims");
    let (shards, report) = convert(&t.0);
    assert!(report.chunk_errors.is_empty(), "{:?}", report.chunk_errors);
    let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
    let r = PayloadReader::open(&views).unwrap();

    // One grid per dimension: the overworld first, then by id; every grid but the first
    // hidden.
    let grids: Vec<(&str, &[(String, String)])> = r
        .grids()
        .iter()
        .map(|g| (g.name.as_str(), g.attributes.as_slice()))
        .collect();
    let hidden = [("hidden".to_string(), "true".to_string())];
    assert_eq!(
        grids,
        [
            ("minecraft:overworld", &[][..]),
            ("minecraft:the_end", &hidden[..]),
            ("minecraft:the_nether", &hidden[..]),
        ]
    );
    // The superseded DIM-1 is named and not read: its glass is nowhere.
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("DIM-1") && w.contains("superseded")),
        "{:?}",
        report.warnings
    );
    let names: Vec<String> = r
        .palette()
        .iter()
        .map(|e| format!("{}:{}", e.ns, e.id))
        .collect();
    assert!(!names.iter().any(|n| n == "minecraft:glass"), "{names:?}");
    // Each dimension's blocks in its own grid, in the world's own coordinates.
    let block_at = |grid: u32, chunk: [i32; 3], i: usize| -> String {
        let key = dh_content::voxel::payload::ChunkKey { layer: 0, chunk };
        let (ri, ci) = r
            .find_chunk(grid, key)
            .unwrap()
            .unwrap_or_else(|| panic!("grid {grid} has no chunk {chunk:?}"));
        names[r.read_chunk(ri, ci).unwrap()[i] as usize].clone()
    };
    assert_eq!(block_at(0, [0, 0, 0], 0), "minecraft:dirt");
    assert_eq!(block_at(0, [0, 0, 0], 1), "minecraft:stone");
    assert_eq!(block_at(1, [2, 0, 0], 4095), "minecraft:end_stone");
    assert_eq!(block_at(2, [-1, 0, 0], 0), "minecraft:netherrack");
    assert!(r
        .find_chunk(
            2,
            dh_content::voxel::payload::ChunkKey {
                layer: 0,
                chunk: [0, 0, 0]
            }
        )
        .unwrap()
        .is_none());

    // Entities from each dimension's entities folder: in the cell of their Pos rounded
    // down, on their dimension's grid, their compound byte for byte.
    let mut ents: Vec<_> = r
        .extras()
        .iter()
        .filter(|x| x.kind == dh_content::voxel::payload::ExtraKind::Entity)
        .map(|x| (x.grid, x.cell, x.blob.format.clone(), x.blob.bytes.clone()))
        .collect();
    ents.sort();
    assert_eq!(
        ents,
        [
            (
                Some(0),
                Some([5, 70, 9]),
                "nbt-java".to_string(),
                root(mob("minecraft:pig", [5.5, 70.2, 9.9]))
            ),
            (
                Some(2),
                Some([-4, 40, 2]),
                "nbt-java".to_string(),
                root(mob("minecraft:ghast", [-3.5, 40.0, 2.0]))
            ),
        ]
    );
    assert_eq!(report.entities, 2);
    // Block entities stay with their chunk's grid: the overworld's chest at (1, 2, 3),
    // the nether's at (-16 + 1, 2, 3).
    let mut be: Vec<_> = r
        .extras()
        .iter()
        .filter(|x| x.kind == dh_content::voxel::payload::ExtraKind::BlockEntity)
        .map(|x| (x.grid, x.cell))
        .collect();
    be.sort();
    assert_eq!(
        be,
        [(Some(0), Some([1, 2, 3])), (Some(2), Some([-15, 2, 3]))]
    );

    // The meta: level.dat's version, name and spawn; the chunks' versions; and what is
    // dropped, the 1.16 chunk's numeric biomes with it. Only blocks and biomes are kept.
    assert_eq!(r.header().platform_version, "1.20.1");
    assert_eq!(meta_of(&r, "dataVersion").as_deref(), Some("3465"));
    assert_eq!(
        meta_of(&r, "chunkDataVersions").as_deref(),
        Some("2586-3465")
    );
    assert_eq!(meta_of(&r, "skippedChunks").as_deref(), Some("0"));
    assert_eq!(meta_of(&r, "levelName").as_deref(), Some("crafted"));
    assert_eq!(meta_of(&r, "spawn").as_deref(), Some("4 70 -8"));
    assert_eq!(
        meta_of(&r, "dropped"),
        Some(format!("{DROPPED}, the numeric biomes of 1.13–1.17 chunks"))
    );
    let layers: Vec<(&str, u8)> = r
        .layers()
        .iter()
        .map(|l| (l.name.as_str(), l.cell_scale))
        .collect();
    assert_eq!(layers, [("blocks", 1), ("biome", 4)]);
    // The overworld's one-biome section: 4 x 4 x 4 cells of plains in the biome layer.
    let key = dh_content::voxel::payload::ChunkKey {
        layer: 1,
        chunk: [0, 0, 0],
    };
    let (ri, ci) = r.find_chunk(0, key).unwrap().unwrap();
    let biomes = r.read_chunk(ri, ci).unwrap();
    assert_eq!(biomes.len(), 64);
    assert!(
        biomes
            .iter()
            .all(|&b| names[b as usize] == "minecraft:plains"),
        "{biomes:?}"
    );
    // The 1.16 chunk's numeric biomes are not kept: the end has no biome chunk.
    let key = dh_content::voxel::payload::ChunkKey {
        layer: 1,
        chunk: [2, 0, 0],
    };
    assert!(r.find_chunk(1, key).unwrap().is_none());

    // One dimension's folder on its own: that dimension alone, shown, with its entities,
    // and nothing dropped beyond the derived data.
    let (shards, report) = convert(&t.0.join("dimensions/minecraft/the_nether"));
    assert!(report.chunk_errors.is_empty(), "{:?}", report.chunk_errors);
    let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
    let r = PayloadReader::open(&views).unwrap();
    assert_eq!(r.grids().len(), 1);
    assert_eq!(r.grids()[0].name, "minecraft:the_nether");
    assert!(r.grids()[0].attributes.is_empty());
    assert_eq!(report.entities, 1);
    assert_eq!(meta_of(&r, "dropped").as_deref(), Some(DROPPED));
    // The world's level.dat, found above the dimension's folder.
    assert_eq!(meta_of(&r, "levelName").as_deref(), Some("crafted"));
}

/// The files in a folder, by name, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_failed_write_leaves_the_previous_payload_or_none() {
    let t = three_dimension_save("write");
    let out = t.0.join("out");
    let payload = out.join("w.dh-vox.bin");
    // A first write: the payload, and nothing beside it.
    let first = world::write_world_payload(&t.0, &payload, &WorldOptions::default()).unwrap();
    assert_eq!(first.files, std::slice::from_ref(&payload));
    assert_eq!(names_in(&out), ["w.dh-vox.bin"]);
    let before = std::fs::read(&payload).unwrap();

    // The world changes (a second overworld region), and the write fails midway: the
    // shard's temporary file cannot be written (a folder is in its way). The previous
    // payload is left whole, byte for byte, and no new file is left beside it.
    std::fs::write(
        t.0.join("region/r.1.0.mca"),
        build_region(&[(
            [0, 0],
            2,
            zlib(&modern_chunk(
                32,
                0,
                T::S("full"),
                vec![block("minecraft:sand")],
                &[0; 4096],
            )),
        )]),
    )
    .unwrap();
    let blocker = out.join(format!(".w.dh-vox.bin.partial-{}", std::process::id()));
    std::fs::create_dir_all(blocker.join("x")).unwrap();
    let e = world::write_world_payload(&t.0, &payload, &WorldOptions::default())
        .expect_err("the temporary file is a folder");
    assert!(
        e.to_string().contains(&blocker.display().to_string()),
        "{e}"
    );
    assert_eq!(std::fs::read(&payload).unwrap(), before);
    assert_eq!(
        names_in(&out),
        [
            format!(".w.dh-vox.bin.partial-{}", std::process::id()),
            "w.dh-vox.bin".to_string()
        ]
    );
    std::fs::remove_dir_all(&blocker).unwrap();

    // The payload's own name is taken by a folder: the rename fails, the error names
    // it, and the written temporary file is removed again.
    let taken = t.0.join("taken");
    let in_the_way = taken.join("w.dh-vox.bin");
    std::fs::create_dir_all(in_the_way.join("x")).unwrap();
    let e = world::write_world_payload(&t.0, &in_the_way, &WorldOptions::default())
        .expect_err("the payload's name is a folder");
    assert!(
        e.to_string().contains(&in_the_way.display().to_string()),
        "{e}"
    );
    assert_eq!(names_in(&taken), ["w.dh-vox.bin"]);
    assert_eq!(names_in(&in_the_way), ["x"]);

    // Once the way is clear, the new payload replaces the old one whole.
    let second = world::write_world_payload(&t.0, &payload, &WorldOptions::default()).unwrap();
    assert_eq!(second.files, std::slice::from_ref(&payload));
    assert_ne!(std::fs::read(&payload).unwrap(), before);
    assert_eq!(names_in(&out), ["w.dh-vox.bin"]);
    assert_eq!(second.report.grids[0].regions, 2);
}

#[test]
fn a_region_or_mcc_past_its_stated_cap_is_refused_unread() {
    // The stated bounds on what one region reads: a region file at most the tables and
    // 1024 chunks of 255 sectors, (2 + 1024 * 255) * 4096 = 1069555712 bytes, and an
    // .mcc at most 256 MiB = 268435456 bytes. Files one byte past each (sparse, so
    // nothing is written) are refused by their length, named with the cap, before a
    // byte is read; the rest of the world converts.
    let t = tmp("caps");
    let good = modern_chunk(
        0,
        0,
        T::S("full"),
        vec![block("minecraft:stone")],
        &[0; 4096],
    );
    std::fs::write(
        t.0.join("region/r.0.0.mca"),
        build_region(&[([0, 0], 2, zlib(&good)), ([1, 0], 0x82, Vec::new())]),
    )
    .unwrap();
    let mcc = t.0.join("region/c.1.0.mcc");
    std::fs::File::create(&mcc)
        .unwrap()
        .set_len(268_435_456 + 1)
        .unwrap();
    let big = t.0.join("region/r.1.0.mca");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(1_069_555_712 + 1)
        .unwrap();
    let (_, report) = convert(&t.0);
    let errors = report.chunk_errors.join("\n");
    assert_eq!(report.chunk_errors.len(), 2, "{errors}");
    assert!(
        report
            .chunk_errors
            .iter()
            .any(|e| e.contains(&mcc.display().to_string())
                && e.contains("chunk (1, 0)")
                && e.contains("the file is 268435457 bytes; an .mcc is read up to 268435456")),
        "{errors}"
    );
    assert!(
        report
            .chunk_errors
            .iter()
            .any(|e| e.contains(&big.display().to_string())
                && e.contains("the file is 1069555713 bytes; a region file is at most 1069555712")),
        "{errors}"
    );
    assert_eq!(report.grids[0].chunks, 1);
}
