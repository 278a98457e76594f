//! Java Edition worlds into the canonical payload (spec dh.voxel, "Worlds").
//!
//! A world converts one Minecraft region at a time, so a world of any size never sits in
//! memory whole: the container is chunked at 16, a DH chunk is a Minecraft section and a
//! DH region is exactly one `r.<x>.<z>.mca`. Cell (x, y, z) is block (x, y, z).
//!
//! * [`save`] finds the dimensions (both layouts, the current one winning), [`region`]
//!   reads the region container (every compression, `.mcc` files, bad sector tables),
//!   [`chunk`] reads a chunk's sections, block entities and entities (1.13 and later).
//! * [`convert_world`] runs the regions on rayon, one region per task, in batches of a
//!   few regions per thread: each batch is read in parallel, its palettes are merged into
//!   the world's in region order (so the palette, and the bytes, are the same however the
//!   threads ran), its regions are encoded in parallel and added to the payload in order.
//!   Memory is bounded by the batch, not by the world.
//! * Every dimension is a grid named by its id, `minecraft:overworld` first, the rest
//!   hidden. Biomes (1.18 on) are the `biome` layer at cell scale 4. Block entities and
//!   entities (from the `entities` folder, 1.17 on, or the chunk) are `nbt-java` extras
//!   with their grid and cell.
//! * A chunk that cannot be read is left out with an error naming the file, the region,
//!   the chunk and what was wrong ([`WorldReport::chunk_errors`]), and the rest of the
//!   world still converts. Chunks still generating are skipped and counted
//!   (`skippedChunks`), chunks from before 1.13 skipped with a warning.
//! * [`write_world_payload`] writes the shards to hidden temporary files beside the
//!   payload and renames them into place only once every one is written, so a failure
//!   or a Ctrl+C never leaves a half-written payload.

pub mod chunk;
pub mod import;
pub mod region;
pub mod save;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::nbt;
use crate::voxel::payload::{
    Blob, ChunkKey, EncodeOptions, EncodedRegion, Extra, ExtraKind, Filled, GridInfo, Layer,
    PaletteEntry, PayloadAxes, PayloadError, PayloadHeader, PayloadWriter, RegionEncoder,
};
use chunk::{Cells, ChunkOutcome, Kept, RegionPalette, SectionScratch};
use region::{ChunkError, RegionFile, MAX_CHUNK_INFLATED};
use save::{Dimension, Save};

/// The payload's chunk edge for a world: a chunk is a section.
pub const WORLD_CHUNK_EDGE: u8 = 16;
/// The biome layer's name.
pub const BIOME_LAYER: &str = "biome";
/// The format tag of a kept block entity or entity.
pub const NBT_JAVA: &str = "nbt-java";
/// The largest `level.dat` read, in bytes (ours).
pub const MAX_LEVEL_DAT: u64 = 16 << 20;
/// What the meta's `dropped` lists: the derived data a chunk holds that is left out.
pub const DROPPED: &str = "light (BlockLight, SkyLight), heightmaps, scheduled ticks (block_ticks, fluid_ticks), PostProcessing, structures, CarvingMasks, blending_data, InhabitedTime, LastUpdate";

/// Initial bounds of a world grid, fitted to its chunks once they are stored: every
/// cell a world can have.
const OPEN_MIN: [i32; 3] = [-(1 << 30); 3];
const OPEN_SIZE: [i32; 3] = [i32::MAX; 3];

/// What `level.dat` says that the import keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LevelInfo {
    /// `Data.LevelName`.
    pub name: Option<String>,
    /// `Data.DataVersion`.
    pub data_version: Option<i32>,
    /// `Data.Version.Name` (`1.20.1`).
    pub version_name: Option<String>,
    /// `Data.Version.Snapshot`.
    pub snapshot: bool,
    /// The world spawn: `Data.SpawnX/Y/Z`, or `Data.spawn.pos` (later versions).
    pub spawn: Option<[i32; 3]>,
}

impl LevelInfo {
    /// The `platformVersion` a world fills in: its version's name, empty for a snapshot.
    pub fn platform_version(&self) -> String {
        match (&self.version_name, self.snapshot) {
            (Some(n), false) => n.clone(),
            _ => String::new(),
        }
    }
}

/// Reads `level.dat` (gzip NBT).
pub fn read_level_dat(path: &Path) -> Result<LevelInfo, WorldError> {
    let shown = path.display().to_string();
    let len = std::fs::metadata(path)
        .map_err(|source| WorldError::Io {
            path: shown.clone(),
            source,
        })?
        .len();
    if len > MAX_LEVEL_DAT {
        return Err(WorldError::LevelDat {
            path: shown,
            message: format!("the file is {len} bytes; level.dat is read up to {MAX_LEVEL_DAT}"),
        });
    }
    let bytes = std::fs::read(path).map_err(|source| WorldError::Io {
        path: shown.clone(),
        source,
    })?;
    level_info(&bytes).map_err(|e| WorldError::LevelDat {
        path: shown,
        message: e.to_string(),
    })
}

/// [`read_level_dat`] on the file's bytes.
pub fn level_info(bytes: &[u8]) -> Result<LevelInfo, nbt::NbtError> {
    let raw = nbt::inflate(bytes, MAX_LEVEL_DAT as usize)?;
    let root = nbt::read(&raw)?;
    let at = root.at();
    let data = at.get("Data")?;
    let mut info = LevelInfo {
        name: data
            .opt("LevelName")?
            .map(|v| v.as_str().map(|s| s.into_owned()))
            .transpose()?,
        data_version: data.opt("DataVersion")?.map(|v| v.as_i32()).transpose()?,
        ..LevelInfo::default()
    };
    if let Some(v) = data.opt("Version")? {
        info.version_name = v
            .opt("Name")?
            .map(|n| n.as_str().map(|s| s.into_owned()))
            .transpose()?;
        info.snapshot = v
            .opt("Snapshot")?
            .map(|s| s.as_i32())
            .transpose()?
            .unwrap_or(0)
            != 0;
    }
    if let (Some(x), Some(y), Some(z)) = (
        data.opt("SpawnX")?,
        data.opt("SpawnY")?,
        data.opt("SpawnZ")?,
    ) {
        info.spawn = Some([x.as_i32()?, y.as_i32()?, z.as_i32()?]);
    } else if let Some(s) = data.opt("spawn")? {
        if let Some(p) = s.opt("pos")? {
            info.spawn = Some(p.as_ivec::<3>()?);
        }
    }
    Ok(info)
}

/// Why a world could not be converted at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorldError {
    /// The save's layout.
    #[error(transparent)]
    Save(#[from] save::SaveError),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// `level.dat` does not read.
    #[error("{path}: {message}")]
    LevelDat {
        /// The file.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// The payload could not be written.
    #[error("the payload: {0}")]
    Payload(#[from] PayloadError),
    /// The conversion was cancelled.
    #[error("the conversion was cancelled; nothing was written")]
    Cancelled,
}

/// How [`convert_world`] runs.
pub struct WorldOptions<'a> {
    /// Called after each region is read: (regions done, regions in all, chunks read).
    pub progress: Option<&'a (dyn Fn(usize, usize, u64) + Sync)>,
    /// Set to stop at the next region.
    pub cancel: Option<&'a AtomicBool>,
    /// The most bytes one chunk may inflate to.
    pub max_chunk_inflated: usize,
    /// Regions read at once per thread (the batch is this times the pool's threads).
    pub regions_per_thread: usize,
    /// How shards are split.
    pub encode: EncodeOptions,
}

impl Default for WorldOptions<'_> {
    fn default() -> Self {
        WorldOptions {
            progress: None,
            cancel: None,
            max_chunk_inflated: MAX_CHUNK_INFLATED,
            regions_per_thread: 2,
            encode: EncodeOptions::default(),
        }
    }
}

/// What a grid (a dimension) holds after converting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GridReport {
    /// The dimension's id.
    pub id: String,
    /// Region files read.
    pub regions: usize,
    /// Full chunk columns read.
    pub chunks: u64,
    /// Sections stored.
    pub sections: u64,
    /// Cells that are not air (nor `dh:empty`).
    pub non_air: u64,
    /// Chunks skipped because they were still generating.
    pub skipped: u64,
    /// Chunks skipped because they are from before 1.13.
    pub pre_flattening: u64,
}

/// What converting a world did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorldReport {
    /// Per dimension, in grid order.
    pub grids: Vec<GridReport>,
    /// Global palette entries (with `dh:empty`).
    pub palette_entries: usize,
    /// Block entities kept.
    pub block_entities: u64,
    /// Entities kept.
    pub entities: u64,
    /// Chunks that could not be read, each left out.
    pub chunk_errors: Vec<String>,
    /// Warnings (pre-1.13 chunks, relocated chunks, notes on the save).
    pub warnings: Vec<String>,
    /// The lowest and highest chunk data version read.
    pub chunk_data_versions: Option<(i32, i32)>,
    /// What `level.dat` said; without one, the data version is the chunks' newest and the
    /// version name the release table's for it.
    pub level: LevelInfo,
}

impl WorldReport {
    /// Chunks skipped as not full, over every dimension.
    pub fn skipped_chunks(&self) -> u64 {
        self.grids.iter().map(|g| g.skipped).sum()
    }
}

/// One region's conversion before its palette is merged.
struct RegionRead {
    grid: usize,
    coords: [i32; 2],
    palette: RegionPalette,
    /// Per stored column: its chunk X, Z and sections.
    columns: Vec<([i32; 2], Vec<chunk::Section>)>,
    kept: Vec<(ExtraKind, Kept)>,
    chunks: u64,
    skipped: u64,
    pre_flattening: u64,
    errors: Vec<String>,
    warnings: Vec<String>,
    versions: Option<(i32, i32)>,
    biomes_dropped: bool,
}

fn read_region(
    grid: usize,
    dim: &Dimension,
    coords: [i32; 2],
    path: &Path,
    cap: usize,
) -> RegionRead {
    let mut r = RegionRead {
        grid,
        coords,
        palette: RegionPalette::new(),
        columns: Vec::new(),
        kept: Vec::new(),
        chunks: 0,
        skipped: 0,
        pre_flattening: 0,
        errors: Vec::new(),
        warnings: Vec::new(),
        versions: None,
        biomes_dropped: false,
    };
    let file = match RegionFile::open(path) {
        Ok(f) => f,
        Err(e) => {
            r.errors.push(format!("{e}; the region was left out"));
            return r;
        }
    };
    let mut scratch = SectionScratch::default();
    for slot in file.slots() {
        let chunk = file.world_chunk(slot.local);
        let fail = |message: String| {
            ChunkError {
                path: file.name().to_string(),
                region: coords,
                chunk,
                local: slot.local,
                problem: region::ChunkProblem::Content { message },
            }
            .to_string()
        };
        let bytes = match file.read_chunk_capped(slot, cap) {
            Ok(b) => b,
            Err(e) => {
                r.errors.push(format!("{e}; the chunk was left out"));
                continue;
            }
        };
        match chunk::read_chunk(&bytes, &mut r.palette, &mut scratch) {
            Ok(ChunkOutcome::Full(col)) => {
                if let Some(p) = col.pos {
                    if p != chunk {
                        r.warnings.push(fail(format!(
                            "the chunk says it is at ({}, {}); it is placed where the region holds it, as the game relocates it",
                            p[0], p[1]
                        )));
                    }
                }
                r.chunks += 1;
                let v = col.data_version;
                r.versions = Some(match r.versions {
                    None => (v, v),
                    Some((lo, hi)) => (lo.min(v), hi.max(v)),
                });
                r.biomes_dropped |= col.biomes_dropped;
                r.kept.extend(
                    col.block_entities
                        .into_iter()
                        .map(|k| (ExtraKind::BlockEntity, k)),
                );
                r.kept
                    .extend(col.entities.into_iter().map(|k| (ExtraKind::Entity, k)));
                r.columns.push((chunk, col.sections));
            }
            Ok(ChunkOutcome::NotFull { .. }) => r.skipped += 1,
            Ok(ChunkOutcome::PreFlattening { data_version }) => {
                r.pre_flattening += 1;
                if r.pre_flattening == 1 {
                    r.warnings.push(fail(format!(
                        "the chunk is from before 1.13 ({}), whose numeric block ids are not read; it was skipped (and so is every such chunk of this region). Open the world in a newer Minecraft once to upgrade it",
                        match data_version {
                            Some(v) => format!("data version {v}"),
                            None => "no data version".to_string(),
                        }
                    )));
                }
            }
            Err(e) => r
                .errors
                .push(format!("{}; the chunk was left out", fail(e.to_string()))),
        }
    }
    // Entities of 1.17 and later live in their own region files.
    if let Some(dir) = &dim.entities_dir {
        let path = dir.join(region::region_name(coords));
        if path.is_file() {
            match RegionFile::open(&path) {
                Ok(ef) => {
                    for slot in ef.slots() {
                        let res = ef
                            .read_chunk_capped(slot, cap)
                            .map_err(|e| e.to_string())
                            .and_then(|b| {
                                let root = nbt::read(&b).map_err(|e| e.to_string())?;
                                let mut out = Vec::new();
                                chunk::entities(
                                    root.at().opt("Entities").map_err(|e| e.to_string())?,
                                    &mut out,
                                )
                                .map_err(|e| e.to_string())?;
                                Ok(out)
                            });
                        match res {
                            Ok(list) => r
                                .kept
                                .extend(list.into_iter().map(|k| (ExtraKind::Entity, k))),
                            Err(e) => r.errors.push(format!(
                                "{}: entities of chunk ({}, {}): {e}; they were left out",
                                ef.name(),
                                ef.world_chunk(slot.local)[0],
                                ef.world_chunk(slot.local)[1]
                            )),
                        }
                    }
                }
                Err(e) => r.errors.push(format!("{e}; its entities were left out")),
            }
        }
    }
    r
}

/// The world palette, merged from each region's in region order.
struct WorldPalette {
    entries: Vec<PaletteEntry>,
    index: HashMap<PaletteEntry, u32>,
}

impl WorldPalette {
    fn merge(&mut self, region: Vec<PaletteEntry>) -> Vec<u32> {
        region
            .into_iter()
            .map(|e| {
                if e.is_empty_entry() {
                    return 0;
                }
                if let Some(&i) = self.index.get(&e) {
                    return i;
                }
                let i = self.entries.len() as u32;
                self.entries.push(e.clone());
                self.index.insert(e, i);
                i
            })
            .collect()
    }
}

/// What one region stored, beside its encoded chunks.
struct RegionEncoded {
    encoded: EncodedRegion,
    sections: u64,
    non_air: u64,
}

fn encode_region(
    encoder: &mut RegionEncoder,
    grid: u32,
    read: &RegionRead,
    map: &[u32],
    biomes: bool,
) -> Result<RegionEncoded, PayloadError> {
    // Each chunk's global cells are made as the encoder reaches it, into one buffer, so
    // a region's cells are never all held at once.
    let mut keys: Vec<ChunkKey> = Vec::new();
    // Each chunk's cells, with their cells per palette entry when the reader counted them.
    let mut sources: Vec<(&Cells, &[u32])> = Vec::new();
    let mut sections = 0u64;
    let mut non_air = 0u64;
    for (pos, secs) in &read.columns {
        for s in secs {
            sections += 1;
            let chunk = [pos[0], s.y, pos[1]];
            non_air += u64::from(s.non_air);
            keys.push(ChunkKey { layer: 0, chunk });
            sources.push((&s.blocks, &s.block_counts));
            if biomes {
                if let Some(b) = &s.biomes {
                    keys.push(ChunkKey { layer: 1, chunk });
                    sources.push((b, &[]));
                }
            }
        }
    }
    let global = |v: u32| map.get(v as usize).copied().unwrap_or(0);
    let encoded = encoder.encode_filled(grid, read.coords, &keys, |i, buf| match sources[i] {
        (Cells::Uniform(v), _) => Filled::Uniform(global(*v)),
        (Cells::Indexed { palette, cells }, counts) => {
            buf.extend(palette.iter().map(|&p| global(p)));
            if counts.is_empty() {
                Filled::Indexed(cells)
            } else {
                Filled::IndexedCounted(cells, counts)
            }
        }
    })?;
    Ok(RegionEncoded {
        encoded,
        sections,
        non_air,
    })
}

/// Whether a palette entry is air (what the report's non-air count leaves out).
fn is_air(e: &PaletteEntry) -> bool {
    e.is_empty_entry()
        || (e.ns == "minecraft" && matches!(e.id.as_str(), "air" | "cave_air" | "void_air"))
}

/// Converts a save into payload shards (element 0 the payload, element n its sibling
/// `.n`), and says what it did.
pub fn convert_world(
    save: &Save,
    options: &WorldOptions<'_>,
) -> Result<(Vec<Vec<u8>>, WorldReport), WorldError> {
    let mut report = WorldReport::default();
    if let Some(dat) = &save.level_dat {
        report.level = read_level_dat(dat)?;
    }
    report.warnings.extend(save.notes.iter().cloned());
    for d in &save.dimensions {
        if let Some(old) = &d.superseded {
            report.warnings.push(format!(
                "{}: the previous layout's folder for {} is superseded by {} and was not read",
                old.display(),
                d.id,
                d.region_dir.display()
            ));
        }
    }
    let biomes = true;
    let header = PayloadHeader {
        platform: crate::schema::voxel::MINECRAFT.to_string(),
        format: "anvil".to_string(),
        platform_version: report.level.platform_version(),
        voxel_size: 1.0,
        axes: PayloadAxes::default(),
        origin: [0; 3],
        chunk_edge: WORLD_CHUNK_EDGE,
        meta: Vec::new(),
    };
    let layers = vec![
        Layer::blocks(),
        Layer {
            name: BIOME_LAYER.to_string(),
            cell_scale: 4,
        },
    ];
    let grids: Vec<GridInfo> = save
        .dimensions
        .iter()
        .enumerate()
        .map(|(i, d)| GridInfo {
            attributes: if i == 0 {
                Vec::new()
            } else {
                vec![("hidden".to_string(), "true".to_string())]
            },
            ..GridInfo::new(d.id.clone(), OPEN_MIN, OPEN_SIZE)
        })
        .collect();
    report.grids = save
        .dimensions
        .iter()
        .map(|d| GridReport {
            id: d.id.clone(),
            regions: d.regions.len(),
            ..GridReport::default()
        })
        .collect();

    let mut writer = PayloadWriter::new(&header, &layers, &grids, options.encode)?;
    let jobs: Vec<(usize, &Dimension, [i32; 2], &PathBuf)> = save
        .dimensions
        .iter()
        .enumerate()
        .flat_map(|(g, d)| d.regions.iter().map(move |(c, p)| (g, d, *c, p)))
        .collect();
    let total = jobs.len();
    let done = AtomicUsize::new(0);
    let chunks_read = AtomicU64::new(0);
    let batch = (rayon::current_num_threads() * options.regions_per_thread.max(1)).max(1);
    let mut palette = WorldPalette {
        entries: vec![PaletteEntry::empty()],
        index: HashMap::new(),
    };
    let mut extras: Vec<Extra> = Vec::new();
    let mut biomes_dropped = false;
    for group in jobs.chunks(batch) {
        if options.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(WorldError::Cancelled);
        }
        let reads: Vec<RegionRead> = group
            .par_iter()
            .map(|&(g, d, c, p)| {
                let r = read_region(g, d, c, p, options.max_chunk_inflated);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                let ch = chunks_read.fetch_add(r.chunks, Ordering::Relaxed) + r.chunks;
                if let Some(f) = options.progress {
                    f(n, total, ch);
                }
                r
            })
            .collect();
        // Palettes merge in region order, so the world's palette is the same however the
        // threads ran.
        let mut maps = Vec::with_capacity(reads.len());
        let mut reads = reads;
        for r in &mut reads {
            let entries = std::mem::take(&mut r.palette).into_entries();
            maps.push(palette.merge(entries));
        }
        let encoded: Vec<Result<RegionEncoded, PayloadError>> = reads
            .par_iter()
            .zip(maps.par_iter())
            .map_init(
                || RegionEncoder::new(&header, &layers),
                |enc, (r, map)| encode_region(enc, r.grid as u32, r, map, biomes),
            )
            .collect();
        for (r, e) in reads.into_iter().zip(encoded) {
            let e = e?;
            let g = &mut report.grids[r.grid];
            g.chunks += r.chunks;
            g.skipped += r.skipped;
            g.pre_flattening += r.pre_flattening;
            g.sections += e.sections;
            g.non_air += e.non_air;
            report.chunk_errors.extend(r.errors);
            report.warnings.extend(r.warnings);
            biomes_dropped |= r.biomes_dropped;
            if let Some((lo, hi)) = r.versions {
                report.chunk_data_versions = Some(match report.chunk_data_versions {
                    None => (lo, hi),
                    Some((a, b)) => (a.min(lo), b.max(hi)),
                });
            }
            for (kind, k) in r.kept {
                match kind {
                    ExtraKind::Entity => report.entities += 1,
                    _ => report.block_entities += 1,
                }
                extras.push(Extra {
                    kind,
                    grid: Some(r.grid as u32),
                    cell: Some(k.cell),
                    blob: Blob {
                        format: NBT_JAVA.to_string(),
                        bytes: k.nbt,
                    },
                });
            }
            writer.add_encoded(e.encoded)?;
        }
    }
    for g in 0..grids.len() {
        writer.fit_grid_bounds(g as u32);
    }
    // A save with no level.dat (a region folder copied on its own) still has a version:
    // its chunks' newest DataVersion, named from the Java release table as a schematic's
    // is (ours: the spec names level.dat for a world and the table for a schematic; a
    // snapshot's number, absent from the table, leaves platformVersion empty).
    if report.level.data_version.is_none() {
        if let Some((_, newest)) = report.chunk_data_versions {
            report.level.data_version = Some(newest);
            report.level.version_name =
                crate::voxel::minecraft::release_for_data_version(newest).map(str::to_string);
            writer.set_platform_version(report.level.platform_version())?;
        }
    }
    // The meta goes in the header, which the writer has: rebuild it with the meta now
    // that the chunks have been read.
    let mut meta = Vec::new();
    if let Some(v) = report.level.data_version {
        meta.push(("dataVersion".to_string(), v.to_string()));
    }
    if let Some((lo, hi)) = report.chunk_data_versions {
        meta.push(("chunkDataVersions".to_string(), format!("{lo}-{hi}")));
    }
    meta.push((
        "skippedChunks".to_string(),
        report.skipped_chunks().to_string(),
    ));
    let mut dropped = DROPPED.to_string();
    if biomes_dropped {
        dropped.push_str(", the numeric biomes of 1.13–1.17 chunks");
    }
    meta.push(("dropped".to_string(), dropped));
    if let Some(name) = &report.level.name {
        meta.push(("levelName".to_string(), name.clone()));
    }
    if let Some(s) = report.level.spawn {
        meta.push(("spawn".to_string(), format!("{} {} {}", s[0], s[1], s[2])));
    }
    writer.set_meta(meta)?;
    report.palette_entries = palette.entries.len();
    let shards = writer.finish(&palette.entries, &extras)?;
    Ok((shards, report))
}

/// What [`write_world_payload`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenWorld {
    /// The payload and its sibling shards, in order.
    pub files: Vec<PathBuf>,
    /// What converting did.
    pub report: WorldReport,
}

/// Converts the save at `save_dir` and writes its payload at `payload` (siblings `.1`,
/// ... when it is that large). Every shard is written to a hidden temporary file beside
/// it first and renamed into place only once all are written, and stale siblings of a
/// previous, larger payload are removed: a failure or a Ctrl+C never leaves a
/// half-written payload.
pub fn write_world_payload(
    save_dir: &Path,
    payload: &Path,
    options: &WorldOptions<'_>,
) -> Result<WrittenWorld, WorldError> {
    let save = save::discover(save_dir)?;
    let (shards, report) = convert_world(&save, options)?;
    let dir = payload.parent().unwrap_or(Path::new("."));
    let name = payload
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "world.dh-vox.bin".into());
    let io = |p: &Path| {
        let path = p.display().to_string();
        move |source| WorldError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let mut temps = Vec::new();
    let result = (|| {
        for (n, bytes) in shards.iter().enumerate() {
            let shard = crate::pallet::voxel_shard_name(&name, n as u16);
            let tmp = dir.join(format!(".{shard}.partial-{}", std::process::id()));
            temps.push((tmp.clone(), dir.join(&shard)));
            std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
            if options.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(WorldError::Cancelled);
            }
        }
        Ok(())
    })();
    if let Err(e) = result {
        for (t, _) in &temps {
            let _ = std::fs::remove_file(t);
        }
        return Err(e);
    }
    let mut files = Vec::new();
    for (i, (tmp, dest)) in temps.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, dest) {
            // Nothing written is left behind: this temporary file and those after it go.
            for (t, _) in &temps[i..] {
                let _ = std::fs::remove_file(t);
            }
            return Err(io(dest)(e));
        }
        files.push(dest.clone());
    }
    for n in shards.len().max(1)..crate::voxel::payload::MAX_SHARDS {
        let stale = dir.join(crate::pallet::voxel_shard_name(&name, n as u16));
        if !stale.is_file() {
            break;
        }
        let _ = std::fs::remove_file(&stale);
    }
    Ok(WrittenWorld { files, report })
}

/// Reads `data` as a region file (its location table, every chunk inflated under a
/// 1 MiB cap, each read as a chunk into one region palette, and its saved light) and as
/// an lz4-java stream. The body of the `region` cargo-fuzz target: it must never panic,
/// and what it allocates is bounded by the input and the cap.
pub(crate) fn fuzz_region(data: &[u8]) {
    let _ = region::lz4_java(data, 1 << 20);
    let Ok(file) = RegionFile::from_bytes(Path::new("fuzz/r.0.0.mca"), [0, 0], data.to_vec())
    else {
        return;
    };
    let mut palette = RegionPalette::new();
    let mut scratch = SectionScratch::default();
    for slot in file.slots() {
        match file.read_chunk_capped(slot, 1 << 20) {
            Ok(bytes) => {
                let _ = chunk::read_chunk(&bytes, &mut palette, &mut scratch);
                let _ = chunk::read_saved_light(&bytes);
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    let _ = palette.entries().len();
}
