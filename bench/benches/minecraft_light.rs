//! Lighting one real 384-tall Minecraft column cold with the engine's light field, for
//! the comparison with Starlight's published 0.32 ms a chunk (docs/PERFORMANCE.md,
//! "Issue 13: a cold 384-tall column against Starlight").
//!
//! `cargo bench -p dh-bench --bench minecraft_light`. The region fixtures are read from
//! `../shared/fixtures/minecraft/region/` beside the repository; without them a line says
//! so and nothing runs. Per fixture:
//!
//! * the save is read as `dh-engine light-check` reads it (every full chunk's sections by
//!   one palette, looks resolved as the streamer resolves a Minecraft volume: built-in
//!   block tables, Minecraft fluids, `BlockLightTable::minecraft()`); that is setup, not
//!   timed;
//! * every interior column (its eight neighbours full chunks too) is lit alone, cold: a
//!   new `LightField` over the overworld's 384 cells (y −64 .. 320), one
//!   `light_columns(&world, &[column], None)` call: the column's props and light shapes
//!   read from the chunks, sky from each cell column's top, every emitter, both spread
//!   through the column (its neighbours are not lit, so the window's walls stop light at
//!   the column's sides). `fresh` times the field's creation and its first window's
//!   buffers with it; `reused` lights each column in one field whose previous column was
//!   forgotten (`forget_column`), so the window's buffers are warm, as they are in the
//!   streamer's field;
//! * each column is lit five times per mode and its median kept; printed: the median,
//!   the 10th and 90th percentile over the columns, one thread.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use dh_content::schema::voxel::MINECRAFT;
use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::minecraft::world::chunk::{
    self, Cells, ChunkOutcome, RegionPalette, SectionScratch,
};
use dh_content::voxel::minecraft::world::region::RegionFile;
use dh_engine::voxel::{
    BlockLightTable, ChunkLight, FluidTable, LightField, MapChunks, PalletLight, StoredChunk,
    VoxelLooks,
};

/// The overworld's lowest cell and height since 1.18 (sections −4 ..= 19).
const Y_MIN: i32 = -64;
const HEIGHT: usize = 384;

/// Every full chunk's sections of `dir`'s region, and the palette they index.
fn read(dir: &Path) -> (MapChunks, Vec<[i32; 2]>, RegionPalette) {
    let file = RegionFile::open(&dir.join("r.0.0.mca")).expect("region");
    let mut palette = RegionPalette::new();
    let mut scratch = SectionScratch::default();
    let mut cells = MapChunks::new(16);
    let mut full = Vec::new();
    for slot in file.slots() {
        let at = file.world_chunk(slot.local);
        let Ok(bytes) = file.read_chunk(slot) else {
            continue;
        };
        let Ok(ChunkOutcome::Full(column)) = chunk::read_chunk(&bytes, &mut palette, &mut scratch)
        else {
            continue;
        };
        for s in column.sections {
            let stored = match s.blocks {
                Cells::Uniform(v) => StoredChunk::Uniform(v),
                Cells::Indexed { palette: p, cells } => StoredChunk::Cells(
                    cells
                        .iter()
                        .map(|&k| p.get(usize::from(k)).copied().unwrap_or(0))
                        .collect(),
                ),
            };
            cells.chunks.insert([at[0], s.y, at[1]], stored);
        }
        full.push(at);
    }
    (cells, full, palette)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn main() {
    let fx = dh_bench::minecraft_region_fixtures();
    if fx.is_empty() {
        println!(
            "skipped: the region fixtures under ../shared/fixtures/minecraft/region are absent"
        );
        return;
    }
    println!(
        "{:<14} {:>8} {:>10} {:>22} {:>10} {:>22}",
        "fixture", "columns", "fresh ms", "(p10 .. p90)", "reused ms", "(p10 .. p90)"
    );
    for (name, dir) in fx {
        let (cells, full, palette) = read(&dir);
        let tables = BlockTables::builtin().expect("built-in tables");
        let entries = palette.into_entries();
        let looks = VoxelLooks::resolve_lit(
            &entries,
            tables,
            Some(MINECRAFT),
            None,
            Some(&FluidTable::minecraft()),
            Some(&BlockLightTable::minecraft() as &dyn PalletLight),
        );
        let world = ChunkLight::new(&cells, &looks);
        let set: HashMap<[i32; 2], ()> = full.iter().map(|&c| (c, ())).collect();
        let mut interior: Vec<[i32; 2]> = full
            .iter()
            .copied()
            .filter(|c| {
                (-1..=1).all(|dz| (-1..=1).all(|dx| set.contains_key(&[c[0] + dx, c[1] + dz])))
            })
            .collect();
        interior.sort_unstable();
        if interior.is_empty() {
            println!("{name:<14} no interior column");
            continue;
        }
        let mut fresh = Vec::with_capacity(interior.len());
        let mut reused = Vec::with_capacity(interior.len());
        let mut field = LightField::new(Y_MIN, HEIGHT, 1 << 10);
        let mut lit = 0usize;
        for &c in &interior {
            fresh.push(median(
                (0..5)
                    .map(|_| {
                        let t = Instant::now();
                        let mut f = LightField::new(Y_MIN, HEIGHT, 1 << 10);
                        lit += f.light_columns(&world, &[c], None);
                        std::hint::black_box(&f);
                        t.elapsed().as_secs_f64() * 1e3
                    })
                    .collect(),
            ));
            reused.push(median(
                (0..5)
                    .map(|_| {
                        field.forget_column(c);
                        let t = Instant::now();
                        lit += field.light_columns(&world, &[c], None);
                        t.elapsed().as_secs_f64() * 1e3
                    })
                    .collect(),
            ));
            field.forget_column(c);
        }
        assert_eq!(lit, interior.len() * 10, "every column lit each time");
        fresh.sort_by(f64::total_cmp);
        reused.sort_by(f64::total_cmp);
        println!(
            "{name:<14} {:>8} {:>10.3} {:>22} {:>10.3} {:>22}",
            interior.len(),
            percentile(&fresh, 0.5),
            format!(
                "({:.3} .. {:.3})",
                percentile(&fresh, 0.1),
                percentile(&fresh, 0.9)
            ),
            percentile(&reused, 0.5),
            format!(
                "({:.3} .. {:.3})",
                percentile(&reused, 0.1),
                percentile(&reused, 0.9)
            ),
        );
    }
}
