//! `dh-engine light-check --source <save>`: lights a Minecraft Java save's overworld with
//! the engine's own light field ([`LightField`], the code the streamer runs) and compares
//! every cell with the light the game saved in the `.mca` (`BlockLight`, `SkyLight`; spec
//! `dh.voxel`, "Worlds": that light is dropped on import and never shipped, so it is read
//! from the source here, never from a pallet).
//!
//! * The save is read as the importer reads it ([`save::discover`], [`RegionFile`],
//!   [`chunk::read_chunk`]), each section's cells by the one palette of the whole
//!   dimension, and its looks resolved as the streamer resolves a Minecraft volume's: the
//!   built-in block tables, Minecraft's fluids and its light by state
//!   ([`BlockLightTable::minecraft`]). No platform pallet is mounted (ours: the check
//!   needs none; its looks do not change opacity or emission).
//! * Every full chunk that reads is lit together, in one field spanning the lowest to the
//!   highest section holding blocks; the field is 16 cells a brick, so a brick column is
//!   a chunk column.
//! * Only interior chunks count (all eight neighbours read), and in them only sections
//!   inside the field for which the game saved the array (a section with no `BlockLight`
//!   or no `SkyLight` is counted as not compared, for that kind of light).
//! * Each compared cell is counted under its block's id (`minecraft:torch`, properties
//!   left out): how often our level differs from the game's, and by how much on average
//!   (ours − game), which names the emitters, opacities and light shapes that differ.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use dh_content::schema::voxel::MINECRAFT;
use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::minecraft::world::chunk::{
    self, Cells, ChunkOutcome, RegionPalette, SectionScratch,
};
use dh_content::voxel::minecraft::world::region::{RegionError, RegionFile};
use dh_content::voxel::minecraft::world::save::{self, SaveError};

use crate::voxel::{
    unpack_light, BlockLightTable, ChunkLight, ChunkSource, ChunkView, FluidTable, LightField,
    PalletLight, VoxelLooks,
};

/// The light field's budget for the check, MiB (ours: a whole save's worth; the check
/// is a tool, not a frame).
const BUDGET_MB: usize = 16 << 10;

/// Why a check could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LightCheckError {
    /// The folder is not a save.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// A region file could not be read at all.
    #[error(transparent)]
    Region(#[from] RegionError),
    /// The save has no dimension with region files.
    #[error("{0}: no dimension with region files; expected a Minecraft Java save")]
    NoDimension(PathBuf),
    /// The built-in block tables did not parse.
    #[error("the built-in block tables: {0}")]
    Tables(String),
}

/// Agreement of one kind of light over the compared cells.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Agreement {
    /// Cells compared.
    pub cells: u64,
    /// Cells where our level equals the game's.
    pub equal: u64,
    /// Cells where they differ by at most 1.
    pub within_one: u64,
    /// The sum of (ours − game) over the cells.
    pub diff_sum: i64,
    /// Cells in interior chunks' sections inside the field whose saved array is absent.
    pub not_compared: u64,
}

impl Agreement {
    fn add(&mut self, ours: u8, game: u8) {
        let d = i64::from(ours) - i64::from(game);
        self.cells += 1;
        self.equal += u64::from(d == 0);
        self.within_one += u64::from(d.abs() <= 1);
        self.diff_sum += d;
    }

    /// The share of cells equal, in percent (0 when none was compared).
    pub fn equal_pct(&self) -> f64 {
        pct(self.equal, self.cells)
    }

    /// The share of cells within ±1, in percent.
    pub fn within_one_pct(&self) -> f64 {
        pct(self.within_one, self.cells)
    }

    /// The mean of (ours − game).
    pub fn mean_diff(&self) -> f64 {
        if self.cells == 0 {
            0.0
        } else {
            self.diff_sum as f64 / self.cells as f64
        }
    }
}

fn pct(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

/// One block id's cells among the compared ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdAgreement {
    /// `namespace:id`.
    pub id: String,
    /// Block light over its cells.
    pub block: Agreement,
    /// Sky light over its cells.
    pub sky: Agreement,
}

/// What a check found.
#[derive(Debug, Clone, Default)]
pub struct LightReport {
    /// The folder checked.
    pub source: PathBuf,
    /// The dimension lit (`minecraft:overworld` where the save has it).
    pub dimension: String,
    /// Region files read.
    pub regions: usize,
    /// Full chunks read and lit.
    pub chunks: usize,
    /// Chunks not full or from before 1.13, left out.
    pub skipped: usize,
    /// Chunks that could not be read, each with why.
    pub unreadable: Vec<String>,
    /// Chunks whose eight neighbours were all read.
    pub interior: usize,
    /// The cells the field spans, `lo..hi` on Y.
    pub y_range: (i32, i32),
    /// Milliseconds the field took to light every column.
    pub light_ms: f64,
    /// Block light over the interior chunks.
    pub block: Agreement,
    /// Sky light over the interior chunks.
    pub sky: Agreement,
    /// Per block id, the most disagreeing first (block + sky cells unequal).
    pub ids: Vec<IdAgreement>,
}

/// One chunk's decoded cells, as the light world reads them.
enum Stored {
    Uniform(u32),
    Cells(Box<[u32]>),
}

/// Sections by chunk coordinates (x, section Y, z).
struct SaveChunks {
    chunks: HashMap<[i32; 3], Stored>,
}

impl ChunkSource for SaveChunks {
    fn edge(&self) -> usize {
        16
    }

    fn chunk(&self, c: [i32; 3]) -> ChunkView<'_> {
        match self.chunks.get(&c) {
            None => ChunkView::Empty,
            Some(Stored::Uniform(v)) => ChunkView::Uniform(*v),
            Some(Stored::Cells(c)) => ChunkView::Cells(c),
        }
    }
}

/// The saved light of one chunk: by section Y, (block light, sky light) nibble arrays.
type Saved = HashMap<i32, (Option<Vec<u8>>, Option<Vec<u8>>)>;

/// The level at cell `i` (y·256 + z·16 + x) of a saved nibble array.
fn nibble(arr: &[u8], i: usize) -> u8 {
    let b = arr.get(i / 2).copied().unwrap_or(0);
    if i.is_multiple_of(2) {
        b & 15
    } else {
        b >> 4
    }
}

/// Checks the save at `root`: lights its first dimension (the overworld when it has one)
/// and compares with the light the game saved.
pub fn check_save(root: &Path) -> Result<LightReport, LightCheckError> {
    let found = save::discover(root)?;
    let dim = found
        .dimensions
        .iter()
        .find(|d| !d.regions.is_empty())
        .ok_or_else(|| LightCheckError::NoDimension(root.to_path_buf()))?;
    let mut report = LightReport {
        source: root.to_path_buf(),
        dimension: dim.id.clone(),
        ..LightReport::default()
    };
    let mut palette = RegionPalette::new();
    let mut scratch = SectionScratch::default();
    let mut cells = SaveChunks {
        chunks: HashMap::new(),
    };
    let mut saved: HashMap<[i32; 2], Saved> = HashMap::new();
    let (mut y_lo, mut y_hi) = (i32::MAX, i32::MIN);
    for (_, path) in &dim.regions {
        let file = RegionFile::open(path)?;
        report.regions += 1;
        for slot in file.slots() {
            let at = file.world_chunk(slot.local);
            let bytes = match file.read_chunk(slot) {
                Ok(b) => b,
                Err(e) => {
                    report.unreadable.push(e.to_string());
                    continue;
                }
            };
            let column = match chunk::read_chunk(&bytes, &mut palette, &mut scratch) {
                Ok(ChunkOutcome::Full(c)) => c,
                Ok(_) => {
                    report.skipped += 1;
                    continue;
                }
                Err(e) => {
                    report.unreadable.push(format!(
                        "{}: chunk ({}, {}): {e}",
                        path.display(),
                        at[0],
                        at[1]
                    ));
                    continue;
                }
            };
            let light = match chunk::read_saved_light(&bytes) {
                Ok(l) => l,
                Err(e) => {
                    report.unreadable.push(format!(
                        "{}: chunk ({}, {}): its saved light: {e}",
                        path.display(),
                        at[0],
                        at[1]
                    ));
                    continue;
                }
            };
            for s in column.sections {
                y_lo = y_lo.min(s.y);
                y_hi = y_hi.max(s.y);
                let stored = match s.blocks {
                    Cells::Uniform(v) => Stored::Uniform(v),
                    Cells::Indexed { palette: p, cells } => Stored::Cells(
                        cells
                            .iter()
                            .map(|&k| p.get(usize::from(k)).copied().unwrap_or(0))
                            .collect(),
                    ),
                };
                cells.chunks.insert([at[0], s.y, at[1]], stored);
            }
            saved.insert(at, light.into_iter().map(|(y, b, s)| (y, (b, s))).collect());
            report.chunks += 1;
        }
    }
    if saved.is_empty() {
        return Ok(report);
    }
    if y_lo > y_hi {
        (y_lo, y_hi) = (0, 0);
    }
    let tables = BlockTables::builtin().map_err(|e| LightCheckError::Tables(e.to_string()))?;
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
    let (lo, hi) = (y_lo * 16, (y_hi + 1) * 16);
    report.y_range = (lo, hi);
    let mut field = LightField::new(lo, (hi - lo) as usize, BUDGET_MB);
    let mut cols: Vec<[i32; 2]> = saved.keys().copied().collect();
    cols.sort_unstable();
    let t = Instant::now();
    while field.light_columns(&world, &cols, None) > 0 {}
    report.light_ms = t.elapsed().as_secs_f64() * 1e3;

    let names: Vec<String> = entries
        .iter()
        .map(|e| format!("{}:{}", e.ns, e.id))
        .collect();
    let mut by_name: HashMap<&str, IdAgreement> = HashMap::new();
    for &c in &cols {
        let interior =
            (-1..=1).all(|dz| (-1..=1).all(|dx| saved.contains_key(&[c[0] + dx, c[1] + dz])));
        if !interior {
            continue;
        }
        report.interior += 1;
        let Some(sections) = saved.get(&c) else {
            continue;
        };
        for sy in y_lo..=y_hi {
            let (block, sky) = match sections.get(&sy) {
                Some((b, s)) => (b.as_deref(), s.as_deref()),
                None => (None, None),
            };
            if block.is_none() {
                report.block.not_compared += 4096;
            }
            if sky.is_none() {
                report.sky.not_compared += 4096;
            }
            if block.is_none() && sky.is_none() {
                continue;
            }
            let view = cells.chunk([c[0], sy, c[1]]);
            for i in 0..4096usize {
                let (x, z, y) = (i % 16, (i / 16) % 16, i / 256);
                let cell = [
                    c[0] * 16 + x as i32,
                    sy * 16 + y as i32,
                    c[1] * 16 + z as i32,
                ];
                let (our_sky, rgb) = unpack_light(field.light_at(cell).unwrap_or(0));
                let our_block = rgb.into_iter().max().unwrap_or(0);
                let id = match view {
                    ChunkView::Empty => 0,
                    ChunkView::Uniform(v) => v,
                    ChunkView::Cells(ids) => ids.get(x + 16 * (y + 16 * z)).copied().unwrap_or(0),
                };
                let name = names.get(id as usize).map_or("?", String::as_str);
                let e = by_name.entry(name).or_insert_with(|| IdAgreement {
                    id: name.to_string(),
                    ..IdAgreement::default()
                });
                if let Some(b) = block {
                    let g = nibble(b, i);
                    report.block.add(our_block, g);
                    e.block.add(our_block, g);
                }
                if let Some(s) = sky {
                    let g = nibble(s, i);
                    report.sky.add(our_sky, g);
                    e.sky.add(our_sky, g);
                }
            }
        }
    }
    let mut ids: Vec<IdAgreement> = by_name.into_values().collect();
    let unequal = |a: &IdAgreement| (a.block.cells - a.block.equal) + (a.sky.cells - a.sky.equal);
    ids.sort_by(|a, b| unequal(b).cmp(&unequal(a)).then_with(|| a.id.cmp(&b.id)));
    report.ids = ids;
    Ok(report)
}

impl fmt::Display for LightReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "light-check {}: {}, {} region(s), {} full chunks lit ({} skipped, {} unreadable), {} interior",
            self.source.display(),
            self.dimension,
            self.regions,
            self.chunks,
            self.skipped,
            self.unreadable.len(),
            self.interior
        )?;
        for e in self.unreadable.iter().take(5) {
            writeln!(f, "  unreadable: {e}")?;
        }
        writeln!(
            f,
            "  field: cells y {}..{}, lit in {:.0} ms",
            self.y_range.0, self.y_range.1, self.light_ms
        )?;
        for (name, a) in [("block light", &self.block), ("sky light", &self.sky)] {
            writeln!(
                f,
                "  {name:<11} {:.2}% equal, {:.2}% within ±1, mean ours − game {:+.3}, over {} cells ({} without a saved array)",
                a.equal_pct(),
                a.within_one_pct(),
                a.mean_diff(),
                a.cells,
                a.not_compared
            )?;
        }
        for (kind, sky) in [("block light", false), ("sky light", true)] {
            let of = |a: &IdAgreement| if sky { a.sky } else { a.block };
            let mut worst: Vec<&IdAgreement> = self
                .ids
                .iter()
                .filter(|a| of(a).cells > of(a).equal)
                .collect();
            worst.sort_by(|a, b| {
                let (a2, b2) = (of(a), of(b));
                (b2.cells - b2.equal)
                    .cmp(&(a2.cells - a2.equal))
                    .then_with(|| a.id.cmp(&b.id))
            });
            writeln!(
                f,
                "  block ids disagreeing most in {kind} (cells unequal of cells, mean ours − game):"
            )?;
            for a in worst.iter().take(10) {
                let g = of(a);
                writeln!(
                    f,
                    "    {:<40} {:>9} of {:>9} ({:>5.1}%)  {:+.2}",
                    a.id,
                    g.cells - g.equal,
                    g.cells,
                    100.0 * (g.cells - g.equal) as f64 / g.cells as f64,
                    g.mean_diff()
                )?;
            }
        }
        Ok(())
    }
}
