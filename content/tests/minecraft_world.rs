//! Java worlds into the payload.
//!
//! The two real region fixtures (`../shared/fixtures/minecraft/region/`, both MIT) are
//! read in place and skipped with a printed line when absent. What they should give is
//! computed by a second reading path independent of the importer: `fastanvil` and
//! `fastnbt` read the same region files, and every cell of every full chunk is compared
//! with the payload's, with the counts (grids, non-air cells, palette entries, block
//! entities, skipped chunks) from that path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use dh_content::voxel::minecraft::world::{self, WorldOptions};
use dh_content::voxel::payload::{ExtraKind, PaletteEntry, PayloadReader, PropValue};

fn fixture(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/minecraft/region")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        println!("skipped: the fixture {} is absent", p.display());
        None
    }
}

/// A palette entry as fastanvil spells a block: `ns:id|k=v,k=v`, keys sorted.
fn spelled(e: &PaletteEntry) -> String {
    let mut s = format!("{}:{}", e.ns, e.id);
    let mut props: Vec<(String, String)> = e
        .properties
        .iter()
        .map(|p| {
            let v = match &p.value {
                PropValue::String(s) => s.clone(),
                PropValue::Int(i) => i.to_string(),
                PropValue::Bool(b) => b.to_string(),
            };
            (p.key.clone(), v)
        })
        .collect();
    props.sort();
    s.push('|');
    s.push_str(
        &props
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(","),
    );
    s
}

/// A palette compound of the value tree spelled as [`spelled`] spells an entry.
fn value_spelling(v: &fastnbt::Value) -> String {
    let fastnbt::Value::Compound(m) = v else {
        panic!("{v:?}")
    };
    let Some(fastnbt::Value::String(name)) = m.get("Name") else {
        panic!("{m:?}")
    };
    let mut props: Vec<(String, String)> = match m.get("Properties") {
        Some(fastnbt::Value::Compound(p)) => p
            .iter()
            .map(|(k, v)| match v {
                fastnbt::Value::String(s) => (k.clone(), s.clone()),
                other => panic!("{other:?}"),
            })
            .collect(),
        _ => Vec::new(),
    };
    props.sort();
    let name = if name.contains(':') {
        name.clone()
    } else {
        format!("minecraft:{name}")
    };
    format!(
        "{name}|{}",
        props
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    )
}

fn is_air(name: &str) -> bool {
    matches!(
        name,
        "minecraft:air" | "minecraft:cave_air" | "minecraft:void_air"
    )
}

/// What the second reading path finds in one region file.
#[derive(Debug, Default)]
struct Expected {
    full: u64,
    skipped: u64,
    sections: u64,
    non_air: u64,
    block_entities: u64,
    states: BTreeSet<String>,
    biomes: BTreeSet<String>,
    /// (chunk x, section y, chunk z) → 4096 block spellings, payload order.
    cells: BTreeMap<[i32; 3], Vec<String>>,
    /// (chunk x, section y, chunk z) → 64 biome ids, payload order (4 x 4 x 4, X
    /// fastest, then Y, then Z).
    biome_cells: BTreeMap<[i32; 3], Vec<String>>,
    data_version: i32,
}

fn expected(path: &std::path::Path) -> Expected {
    use fastanvil::{CurrentJavaChunk, Region};
    let mut region = Region::from_stream(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = Expected::default();
    let chunks: Vec<_> = region.iter().map(|c| c.unwrap()).collect();
    for c in chunks {
        let value: fastnbt::Value = fastnbt::from_bytes(&c.data).unwrap();
        let fastnbt::Value::Compound(root) = &value else {
            panic!("not a compound")
        };
        let chunk: CurrentJavaChunk = fastnbt::from_bytes(&c.data).unwrap();
        let status = chunk.status.trim_start_matches("minecraft:");
        if status != "full" {
            out.skipped += 1;
            continue;
        }
        out.full += 1;
        out.data_version = chunk.data_version;
        if let Some(fastnbt::Value::List(be)) = root.get("block_entities") {
            out.block_entities += be.len() as u64;
        }
        let Some(tower) = &chunk.sections else {
            continue;
        };
        // Biomes by a small unpacking of our own over the value tree.
        if let Some(fastnbt::Value::List(l)) = root.get("sections") {
            for sec in l {
                let fastnbt::Value::Compound(m) = sec else {
                    continue;
                };
                let Some(fastnbt::Value::Compound(b)) = m.get("biomes") else {
                    continue;
                };
                let Some(fastnbt::Value::List(pal)) = b.get("palette") else {
                    continue;
                };
                let names: Vec<String> = pal
                    .iter()
                    .map(|v| match v {
                        fastnbt::Value::String(s) => s.clone(),
                        other => panic!("{other:?}"),
                    })
                    .collect();
                let bits = (usize::BITS - (names.len() - 1).leading_zeros()) as usize;
                // The game's order: index y * 16 + z * 4 + x, whole values per long.
                let mut source = vec![0usize; 64];
                // One biome (no bits) has no data: every cell is entry 0.
                if let (Some(fastnbt::Value::LongArray(a)), Some(per)) =
                    (b.get("data"), 64usize.checked_div(bits))
                {
                    for (i, v) in source.iter_mut().enumerate() {
                        let w = a[i / per] as u64;
                        *v = ((w >> ((i % per) * bits)) & ((1 << bits) - 1)) as usize;
                    }
                }
                let mut cells = vec![String::new(); 64];
                for (i, &u) in source.iter().enumerate() {
                    let (x, z, y) = (i & 3, (i >> 2) & 3, i >> 4);
                    out.biomes.insert(names[u].clone());
                    cells[x + 4 * (y + 4 * z)] = names[u].clone();
                }
                if let Some(fastnbt::Value::Byte(y)) = m.get("Y") {
                    if m.contains_key("block_states") {
                        out.biome_cells
                            .insert([c.x as i32, *y as i32, c.z as i32], cells);
                    }
                }
            }
        }
        // Sections with block states, as the value tree lists them.
        // Exact spellings from the value tree's palettes; indices unpacked by fastanvil.
        let mut palettes: BTreeMap<i64, Vec<String>> = BTreeMap::new();
        if let Some(fastnbt::Value::List(l)) = root.get("sections") {
            for sec in l {
                let fastnbt::Value::Compound(m) = sec else {
                    continue;
                };
                let (Some(fastnbt::Value::Byte(y)), Some(fastnbt::Value::Compound(bs))) =
                    (m.get("Y"), m.get("block_states"))
                else {
                    continue;
                };
                let Some(fastnbt::Value::List(pal)) = bs.get("palette") else {
                    continue;
                };
                palettes.insert(*y as i64, pal.iter().map(value_spelling).collect());
            }
        }
        for s in tower.sections() {
            let Some(names) = palettes.get(&(s.y as i64)) else {
                continue;
            };
            out.sections += 1;
            let indices: Vec<usize> = match s.block_states.try_iter_indices() {
                Some(it) => it.collect(),
                None => vec![0; 4096],
            };
            assert_eq!(indices.len(), 4096);
            let mut cells = vec![String::new(); 4096];
            for (i, &p) in indices.iter().enumerate() {
                let (x, z, y) = (i & 15, (i >> 4) & 15, i >> 8);
                let name = names[p].clone();
                if !is_air(name.split('|').next().unwrap()) {
                    out.non_air += 1;
                }
                out.states.insert(name.clone());
                cells[x + 16 * (y + 16 * z)] = name;
            }
            let key = [c.x as i32, s.y as i32, c.z as i32];
            out.cells.insert(key, cells);
        }
    }
    out
}

fn check_fixture(rel: &str) {
    let Some(dir) = fixture(rel) else { return };
    let mca = dir.join("r.0.0.mca");
    let want = expected(&mca);
    let save = world::save::discover(&dir).unwrap();
    let (shards, report) = world::convert_world(&save, &WorldOptions::default()).unwrap();
    println!("{rel}: {report:?}");
    assert!(report.chunk_errors.is_empty(), "{:?}", report.chunk_errors);
    assert_eq!(report.grids.len(), 1);
    let g = &report.grids[0];
    assert_eq!(g.id, "minecraft:overworld");
    assert_eq!(g.chunks, want.full, "full chunks");
    assert_eq!(g.skipped, want.skipped, "skipped chunks");
    assert_eq!(g.sections, want.sections, "sections");
    assert_eq!(g.non_air, want.non_air, "non-air cells");
    assert_eq!(report.block_entities, want.block_entities, "block entities");

    let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
    let r = PayloadReader::open(&views).unwrap();
    let meta: BTreeMap<&str, &str> = r
        .header()
        .meta
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(meta["skippedChunks"], want.skipped.to_string());
    assert_eq!(
        meta["chunkDataVersions"],
        format!("{}-{}", want.data_version, want.data_version)
    );
    assert_eq!(r.header().format, "anvil");
    assert_eq!(r.header().chunk_edge, 16);
    // dh:empty, every block state and every biome, each once.
    let palette: Vec<String> = r.palette().iter().map(spelled).collect();
    assert_eq!(palette[0], "dh:empty|");
    let states: BTreeSet<String> = want.states.clone();
    assert_eq!(
        r.palette().len(),
        1 + states.len() + want.biomes.len(),
        "palette entries"
    );
    for s in &states {
        assert!(palette.contains(s), "{s} is missing from the palette");
    }
    // Every cell of every full chunk, against the second path.
    let mut compared = 0u64;
    let mut non_air = 0u64;
    for (ri, _) in r.regions().iter().enumerate() {
        let table = r.chunk_table(ri).unwrap();
        for (ci, e) in table.entries().iter().enumerate() {
            if e.key.layer != 0 {
                continue;
            }
            let cells = r.read_chunk(ri, ci).unwrap();
            let want_cells = want
                .cells
                .get(&e.key.chunk)
                .unwrap_or_else(|| panic!("chunk {:?} is not in the source", e.key.chunk));
            for (i, (&c, w)) in cells.iter().zip(want_cells).enumerate() {
                assert_eq!(&palette[c as usize], w, "chunk {:?} cell {i}", e.key.chunk);
                compared += 1;
                if !is_air(palette[c as usize].split('|').next().unwrap()) {
                    non_air += 1;
                }
            }
        }
    }
    assert_eq!(compared, want.sections * 4096);
    // The biome layer: Minecraft's own 4 x 4 x 4 cells (cellScale 4), every section's
    // 64 values against the second path's unpacking.
    let layers: Vec<(&str, u8)> = r
        .layers()
        .iter()
        .map(|l| (l.name.as_str(), l.cell_scale))
        .collect();
    assert_eq!(layers, [("blocks", 1), ("biome", 4)]);
    let mut biome_chunks = 0usize;
    for (ri, _) in r.regions().iter().enumerate() {
        let table = r.chunk_table(ri).unwrap();
        for (ci, e) in table.entries().iter().enumerate() {
            if e.key.layer != 1 {
                continue;
            }
            let cells = r.read_chunk(ri, ci).unwrap();
            assert_eq!(cells.len(), 64);
            let want_cells = want
                .biome_cells
                .get(&e.key.chunk)
                .unwrap_or_else(|| panic!("biomes of {:?} are not in the source", e.key.chunk));
            let got: Vec<String> = cells
                .iter()
                .map(|&c| palette[c as usize].trim_end_matches('|').to_string())
                .collect();
            assert_eq!(&got, want_cells, "biomes of {:?}", e.key.chunk);
            biome_chunks += 1;
        }
    }
    assert_eq!(biome_chunks, want.biome_cells.len(), "biome chunks");
    assert!(biome_chunks > 0);
    // Sections with more than one biome, so the cell order is checked too.
    let mixed = want
        .biome_cells
        .values()
        .filter(|v| v.iter().any(|b| b != &v[0]))
        .count();
    assert!(mixed > 0, "no section of {rel} mixes biomes");
    assert_eq!(non_air, want.non_air);
    // Block entities: nbt-java extras on grid 0, in their cells.
    let be: Vec<_> = r
        .extras()
        .iter()
        .filter(|x| x.kind == ExtraKind::BlockEntity)
        .collect();
    assert_eq!(be.len() as u64, want.block_entities);
    for x in &be {
        assert_eq!(x.blob.format, "nbt-java");
        assert_eq!(&x.blob.bytes[..3], &[10, 0, 0]);
        let v: fastnbt::Value = fastnbt::from_bytes(&x.blob.bytes).unwrap();
        let fastnbt::Value::Compound(m) = v else {
            panic!()
        };
        let get = |k: &str| match m.get(k) {
            Some(fastnbt::Value::Int(i)) => *i,
            other => panic!("{k}: {other:?}"),
        };
        assert_eq!(x.cell, Some([get("x"), get("y"), get("z")]));
        assert_eq!(x.grid, Some(0));
    }
}

#[test]
fn the_paper_region_converts_cell_for_cell() {
    check_fixture("1.20.1-paper");
}

#[test]
fn the_1_21_1_region_converts_cell_for_cell() {
    check_fixture("1.21.1");
}

#[test]
fn a_save_without_level_dat_takes_its_version_from_its_chunks() {
    // The 1.21.1 fixture is a bare region folder. Its chunks say DataVersion 3955, which
    // is Java 1.21.1 (minecraft.wiki "Data version"); ours where the spec is silent.
    let Some(dir) = fixture("1.21.1") else {
        return;
    };
    let save = world::save::discover(&dir).unwrap();
    assert!(save.level_dat.is_none());
    let (shards, report) = world::convert_world(&save, &WorldOptions::default()).unwrap();
    assert_eq!(report.level.data_version, Some(3955));
    let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
    let r = PayloadReader::open(&views).unwrap();
    assert_eq!(r.header().platform_version, "1.21.1");
    let meta: BTreeMap<&str, &str> = r
        .header()
        .meta
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(meta["dataVersion"], "3955");
}

#[test]
fn the_paper_level_dat_fills_the_version_and_the_spawn() {
    let Some(dir) = fixture("1.20.1-paper") else {
        return;
    };
    let info = world::read_level_dat(&dir.join("level.dat")).unwrap();
    assert_eq!(info.data_version, Some(3465));
    assert_eq!(info.version_name.as_deref(), Some("1.20.1"));
    assert!(!info.snapshot);
    assert_eq!(info.platform_version(), "1.20.1");
    let save = world::save::discover(&dir).unwrap();
    let (shards, _) = world::convert_world(&save, &WorldOptions::default()).unwrap();
    let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
    let r = PayloadReader::open(&views).unwrap();
    assert_eq!(r.header().platform_version, "1.20.1");
    assert!(r
        .header()
        .meta
        .iter()
        .any(|(k, v)| k == "dataVersion" && v == "3465"));
    // The same sources give the same bytes.
    let (again, _) = world::convert_world(&save, &WorldOptions::default()).unwrap();
    assert!(again == shards, "a second conversion differs");
}
