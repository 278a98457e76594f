//! One chunk column's NBT to sections of palette indices (spec dh.voxel, "Worlds").
//!
//! * 1.18 and later: `sections`, each with `Y`, `block_states` (`palette` of `Name` and
//!   `Properties`, `data` packed) and `biomes` (`palette` of ids, `data` packed, 4 × 4 × 4
//!   cells); `block_entities` at the root.
//! * 1.13 to 1.17: `Level.Sections`, each with `Y`, `Palette` and `BlockStates`, packed
//!   across longs before 1.16 (data version 2529) and within them from then on; numeric
//!   biomes are not kept; `Level.TileEntities` and `Level.Entities`.
//! * Before 1.13 (data version below 1451, numeric ids): skipped, with the spec's warning.
//! * A chunk whose status is not full (still generating at the world's edge) is skipped
//!   and counted. 1.13's last two statuses (`postprocessed`, `fullchunk`) are full.
//!
//! Packing follows the game's `PalettedContainer`: block states take
//! max(4, ⌈log₂ n⌉) bits for a palette of n ≥ 2 entries and no data for one; biomes take
//! ⌈log₂ n⌉. Values run Y, then Z, then X fastest; they are turned to the payload's
//! order (X fastest, then Y, then Z) as they are unpacked. A value past the palette is an
//! error naming the section and the cell, as is a data array of the wrong length.

use std::collections::HashMap;

use crate::voxel::minecraft::nbt::{self, At, NbtError};
use crate::voxel::payload::{PaletteEntry, PropValue, Property};

/// The first data version of the flattening (17w47a): numeric ids end.
pub const FIRST_FLATTENED: i32 = 1451;
/// The first data version whose packed longs hold whole values (20w17a).
pub const FIRST_NON_SPANNING: i32 = 2529;
/// The first data version with the 1.18 layout (21w43a: `sections` at the root).
pub const FIRST_ROOT_SECTIONS: i32 = 2844;

/// Cells in a section.
pub const SECTION_CELLS: usize = 4096;
/// Biome cells in a section (4 × 4 × 4).
pub const BIOME_CELLS: usize = 64;

/// A section's cells: one index into the region's palette, or a section palette and an
/// index into it per cell (payload order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cells {
    /// Every cell holds this region palette index.
    Uniform(u32),
    /// Region palette indices, and per cell an index into them.
    Indexed {
        /// Region palette indices.
        palette: Vec<u32>,
        /// One index into `palette` per cell, X fastest, then Y, then Z.
        cells: Vec<u16>,
    },
}

/// One section of a chunk column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The section's Y (blocks Y / 16).
    pub y: i32,
    /// Its 16³ blocks.
    pub blocks: Cells,
    /// Its 4³ biome cells (1.18 and later).
    pub biomes: Option<Cells>,
    /// How many of its blocks are not air (`air`, `cave_air`, `void_air`) nor
    /// `dh:empty`.
    pub non_air: u32,
    /// When its blocks are [`Cells::Indexed`], how many cells hold each entry of their
    /// palette (counted as they were unpacked, so that no later pass has to); else empty.
    pub block_counts: Vec<u32>,
}

/// A block entity or entity kept whole: its cell and its NBT as an uncompressed root
/// compound with an empty name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// The cell it sits in (world block coordinates).
    pub cell: [i32; 3],
    /// The NBT, byte for byte.
    pub nbt: Vec<u8>,
}

/// A chunk column read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The chunk's own position (`xPos`, `zPos`), when it states one.
    pub pos: Option<[i32; 2]>,
    /// Its data version.
    pub data_version: i32,
    /// Its sections with blocks, by Y.
    pub sections: Vec<Section>,
    /// Its block entities.
    pub block_entities: Vec<Kept>,
    /// Its entities (before 1.17; later ones are in the entities folder).
    pub entities: Vec<Kept>,
    /// Whether its numeric biomes (1.13 to 1.17) were left out.
    pub biomes_dropped: bool,
}

/// What reading one chunk gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkOutcome {
    /// A full chunk.
    Full(Column),
    /// A chunk still being generated: skipped and counted.
    NotFull {
        /// Its status.
        status: String,
    },
    /// A chunk from before 1.13: skipped with a warning.
    PreFlattening {
        /// Its data version, if it has one.
        data_version: Option<i32>,
    },
}

/// The palette of one region's conversion: every distinct block state and biome, in the
/// order first seen. Index 0 is `dh:empty` (structure void maps to it).
#[derive(Debug, Default)]
pub struct RegionPalette {
    entries: Vec<PaletteEntry>,
    by_entry: HashMap<PaletteEntry, u32>,
    /// Per entry, whether it is air (what a section's non-air count leaves out).
    air: Vec<bool>,
    /// A palette compound's bytes (or a biome id's) to its index: the fast path, since a
    /// world writes one state the same way every time.
    by_bytes: HashMap<Box<[u8]>, u32>,
}

impl RegionPalette {
    /// A palette holding only `dh:empty`.
    pub fn new() -> Self {
        let mut p = RegionPalette::default();
        p.intern(PaletteEntry::empty());
        p
    }

    /// The entries, index 0 `dh:empty`.
    pub fn entries(&self) -> &[PaletteEntry] {
        &self.entries
    }

    /// Gives up the entries.
    pub fn into_entries(self) -> Vec<PaletteEntry> {
        self.entries
    }

    /// The index of `e`, added when new.
    pub fn intern(&mut self, e: PaletteEntry) -> u32 {
        if let Some(&i) = self.by_entry.get(&e) {
            return i;
        }
        let i = self.entries.len() as u32;
        self.air.push(super::is_air(&e));
        self.entries.push(e.clone());
        self.by_entry.insert(e, i);
        i
    }

    /// How many of `cells`' 4096 cells are not air, `counts` giving for indexed cells
    /// how many cells hold each entry of their palette.
    fn non_air(&self, cells: &Cells, counts: &[u32]) -> u32 {
        let air = |v: u32| self.air.get(v as usize).copied().unwrap_or(false);
        match cells {
            Cells::Uniform(v) => {
                if air(*v) {
                    0
                } else {
                    SECTION_CELLS as u32
                }
            }
            Cells::Indexed { palette, .. } => palette
                .iter()
                .zip(counts)
                .filter(|(&p, _)| !air(p))
                .map(|(_, &c)| c)
                .sum(),
        }
    }

    fn state(&mut self, at: &At<'_, '_>) -> Result<u32, NbtError> {
        let c = at.compound()?;
        if let Some(&i) = self.by_bytes.get(c.body) {
            return Ok(i);
        }
        let e = block_state(at)?;
        let i = if e.ns == "minecraft" && e.id == "structure_void" {
            0
        } else {
            self.intern(e)
        };
        self.by_bytes.insert(c.body.into(), i);
        Ok(i)
    }

    fn biome(&mut self, at: &At<'_, '_>) -> Result<u32, NbtError> {
        let s = at.as_raw_str()?;
        if let Some(&i) = self.by_bytes.get(s.as_bytes()) {
            return Ok(i);
        }
        let name = at.as_str()?;
        let (ns, id) = split_id(&name);
        let i = self.intern(PaletteEntry::new(ns, id));
        self.by_bytes.insert(s.as_bytes().into(), i);
        Ok(i)
    }
}

/// `minecraft:oak_stairs` → (`minecraft`, `oak_stairs`); an id with no namespace is
/// Minecraft's.
pub fn split_id(name: &str) -> (&str, &str) {
    name.split_once(':').unwrap_or(("minecraft", name))
}

/// A palette compound (`Name`, `Properties`) as a palette entry: the native id and its
/// properties as strings, sorted by key (the order Java writes them in; ours, so that two
/// spellings of one state are one entry).
pub fn block_state(at: &At<'_, '_>) -> Result<PaletteEntry, NbtError> {
    let name = at.get("Name")?.as_str()?;
    let (ns, id) = split_id(&name);
    let mut e = PaletteEntry::new(ns, id);
    if let Some(props) = at.opt("Properties")? {
        for (k, v) in props.entries()? {
            let key = k
                .to_str()
                .ok_or_else(|| v.error("the property name is not valid modified UTF-8"))?;
            e.properties.push(Property {
                key: key.into_owned(),
                value: PropValue::String(v.as_str()?.into_owned()),
            });
        }
        e.properties.sort_by(|a, b| a.key.cmp(&b.key));
    }
    Ok(e)
}

/// ⌈log₂ n⌉ for n ≥ 1.
fn ceil_log2(n: usize) -> u32 {
    usize::BITS - (n.max(1) - 1).leading_zeros()
}

/// Unpacks `n` values of `bits` bits from `longs` into `out` (which it resizes), in the
/// source's order, and counts them: `hist[v]` is how many values are `v`, for every `v`
/// the width can hold (at most 65536 slots; values are kept as `u16`). `spanning`:
/// values run across long boundaries (before 1.16).
fn unpack(
    longs: nbt::BeArray<'_, i64>,
    bits: u32,
    n: usize,
    spanning: bool,
    at: &At<'_, '_>,
    out: &mut Vec<u16>,
    hist: &mut Vec<u32>,
) -> Result<(), NbtError> {
    let expected = if spanning {
        (n * bits as usize).div_ceil(64)
    } else {
        n.div_ceil((64 / bits) as usize)
    };
    if longs.len() != expected {
        return Err(at.error(format!(
            "{} longs; {n} values of {bits} bits {} take {expected}",
            longs.len(),
            if spanning {
                "packed across longs"
            } else {
                "packed within longs"
            }
        )));
    }
    out.clear();
    out.resize(n, 0);
    let slots = 1usize << bits.min(16);
    hist.clear();
    let mask = (1u64 << bits) - 1;
    let raw = longs.raw();
    let word = |i: usize| -> u64 {
        let b = &raw[i * 8..i * 8 + 8];
        u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    };
    if spanning {
        for (i, o) in out.iter_mut().enumerate() {
            let bit = i * bits as usize;
            let (w, off) = (bit / 64, (bit % 64) as u32);
            let mut v = word(w) >> off;
            if off + bits > 64 {
                v |= word(w + 1) << (64 - off);
            }
            *o = (v & mask) as u16;
        }
    } else {
        // Each long holds `per` whole values, the lowest bits first; the last long may
        // hold fewer (its high bits unused). The widths sections use get a loop with
        // the width fixed, which the compiler unrolls (the unpack showed in perf).
        // The values are counted as they are unpacked, into four histograms (a value in
        // four to each, so that a run of one value does not wait on its own counter).
        match bits {
            1 => {
                unpack_within::<1>(raw, out, hist);
                return Ok(());
            }
            2 => {
                unpack_within::<2>(raw, out, hist);
                return Ok(());
            }
            3 => {
                unpack_within::<3>(raw, out, hist);
                return Ok(());
            }
            4 => {
                unpack_within::<4>(raw, out, hist);
                return Ok(());
            }
            5 => {
                unpack_within::<5>(raw, out, hist);
                return Ok(());
            }
            6 => {
                unpack_within::<6>(raw, out, hist);
                return Ok(());
            }
            7 => {
                unpack_within::<7>(raw, out, hist);
                return Ok(());
            }
            8 => {
                unpack_within::<8>(raw, out, hist);
                return Ok(());
            }
            _ => {
                let per = (64 / bits) as usize;
                for (b, values) in raw.chunks_exact(8).zip(out.chunks_mut(per)) {
                    let mut v =
                        u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                    for o in values {
                        *o = (v & mask) as u16;
                        v >>= bits;
                    }
                }
            }
        }
    }
    // Spanning longs, or wider than 8 bits: counted in a second pass.
    hist.resize(slots, 0);
    for &v in out.iter() {
        if let Some(h) = hist.get_mut(usize::from(v)) {
            *h += 1;
        }
    }
    Ok(())
}

/// [`unpack`] within longs at a width known at compile time: `64 / BITS` values a long,
/// the lowest bits first, the last long possibly short of values. Each value is counted
/// in `hist` (four histograms of `2^BITS` slots end to end, the value at position `s`
/// of its long in histogram `s % 4`), which it clears first, then sums into its first
/// `2^BITS` slots and cuts to them.
#[inline]
fn unpack_within<const BITS: u32>(raw: &[u8], out: &mut [u16], hist: &mut Vec<u32>) {
    let per = (64 / BITS) as usize;
    let slots = 1usize << BITS;
    let mask = (1u64 << BITS) - 1;
    hist.clear();
    hist.resize(4 * slots, 0);
    {
        let (h0, rest) = hist.split_at_mut(slots);
        let (h1, rest) = rest.split_at_mut(slots);
        let (h2, h3) = rest.split_at_mut(slots);
        let mut one = |v: &mut u64, s: usize, o: &mut u16| {
            let x = (*v & mask) as usize;
            *o = x as u16;
            let h = match s & 3 {
                0 => &mut *h0,
                1 => &mut *h1,
                2 => &mut *h2,
                _ => &mut *h3,
            };
            if let Some(c) = h.get_mut(x) {
                *c += 1;
            }
            *v >>= BITS;
        };
        let mut longs = raw.chunks_exact(8);
        let mut values = out.chunks_exact_mut(per);
        // Values first: a zip stops on its first side running out without taking from
        // the second, so the long for the remainder is still in `longs` afterwards.
        for (vals, b) in (&mut values).zip(&mut longs) {
            let mut v = u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
            for (s, o) in vals.iter_mut().enumerate() {
                one(&mut v, s, o);
            }
        }
        // The values past the last whole long's worth (when `per` does not divide them).
        let rest = values.into_remainder();
        if let Some(b) = longs.next() {
            let mut v = u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
            for (s, o) in rest.iter_mut().enumerate() {
                one(&mut v, s, o);
            }
        }
        for (j, c) in h0.iter_mut().enumerate() {
            *c += h1[j] + h2[j] + h3[j];
        }
    }
    hist.truncate(slots);
}

/// Reusable buffers for reading sections.
#[derive(Debug, Default)]
pub struct SectionScratch {
    values: Vec<u16>,
    /// Per value of the last data read, how many cells hold it.
    hist: Vec<u32>,
}

impl SectionScratch {
    /// For indexed `cells` just read, how many cells hold each entry of their palette.
    fn counts_of(&self, cells: &Cells) -> Vec<u32> {
        match cells {
            Cells::Uniform(_) => Vec::new(),
            Cells::Indexed { palette, .. } => (0..palette.len())
                .map(|j| self.hist.get(j).copied().unwrap_or(0))
                .collect(),
        }
    }
}

/// A paletted container: its `palette` entries (read into the region's palette only when
/// a cell uses them, since the game keeps entries no cell uses any more) and its `data`,
/// with `edge` cells a side, read into [`Cells`] in payload order.
#[allow(clippy::too_many_arguments)]
fn paletted(
    entries: &[At<'_, '_>],
    intern: &mut dyn FnMut(&At<'_, '_>) -> Result<u32, NbtError>,
    data: Option<At<'_, '_>>,
    bits: u32,
    edge: usize,
    spanning: bool,
    container: &At<'_, '_>,
    scratch: &mut SectionScratch,
) -> Result<Cells, NbtError> {
    let n = edge * edge * edge;
    let Some(first) = entries.first() else {
        return Err(container.error("the palette is empty; expected at least one entry"));
    };
    let data = match data {
        Some(d) if bits > 0 => d,
        _ if entries.len() == 1 || bits == 0 => return Ok(Cells::Uniform(intern(first)?)),
        _ => {
            return Err(container.error(format!(
                "has a palette of {} entries but no data; expected {bits}-bit packed values",
                entries.len()
            )))
        }
    };
    let longs = data.as_longs()?;
    unpack(
        longs,
        bits,
        n,
        spanning,
        &data,
        &mut scratch.values,
        &mut scratch.hist,
    )?;
    let k = entries.len();
    let values = &scratch.values[..n];
    // Every value indexes the palette (from the counts; the first one past it named).
    let hist = &scratch.hist;
    if hist.get(k..).is_some_and(|h| h.iter().any(|&c| c > 0)) {
        let i = values
            .iter()
            .position(|&v| usize::from(v) >= k)
            .unwrap_or_default();
        let (x, z, y) = (i % edge, (i / edge) % edge, i / (edge * edge));
        let v = values[i];
        return Err(data.error(format!(
            "cell ({x}, {y}, {z}) of the section (value {i}) holds palette index {v}; the palette has {k} entries"
        )));
    }
    let used = |j: usize| hist.get(j).is_some_and(|&c| c > 0);
    // Source order: Y, then Z, then X fastest. Payload order: X fastest, then Y, then Z.
    // A row of X is contiguous in both, so the transpose moves whole rows: source row
    // (y, z) to payload row (z, y).
    let mut cells = vec![0u16; n];
    for (r, row) in values.chunks_exact(edge).enumerate() {
        let (y, z) = (r / edge, r % edge);
        let o = edge * (y + edge * z);
        cells[o..o + edge].copy_from_slice(row);
    }
    let mut palette = vec![0u32; k];
    for (j, e) in entries.iter().enumerate() {
        if used(j) {
            palette[j] = intern(e)?;
        }
    }
    let mut only = None;
    if (0..k)
        .filter(|&j| used(j))
        .all(|j| *only.get_or_insert(palette[j]) == palette[j])
    {
        if let Some(v) = only {
            return Ok(Cells::Uniform(v));
        }
    }
    Ok(Cells::Indexed { palette, cells })
}

/// The cell an entity stands in: its `Pos`, floored.
fn entity_cell(at: &At<'_, '_>) -> Result<[i32; 3], NbtError> {
    let pos = at.get("Pos")?;
    let p = pos.as_doubles()?;
    if p.len() != 3 || p.iter().any(|v| !v.is_finite()) {
        return Err(pos.error(format!("{} values; expected three finite Doubles", p.len())));
    }
    Ok([
        p[0].floor() as i32,
        p[1].floor() as i32,
        p[2].floor() as i32,
    ])
}

/// The block entities of a list (`block_entities`, `TileEntities`): each kept whole at
/// its `x`, `y`, `z`.
fn block_entities(list: Option<At<'_, '_>>, out: &mut Vec<Kept>) -> Result<(), NbtError> {
    let Some(list) = list else { return Ok(()) };
    for be in list.items()? {
        let c = be.compound()?;
        let cell = [
            be.get("x")?.as_i32()?,
            be.get("y")?.as_i32()?,
            be.get("z")?.as_i32()?,
        ];
        out.push(Kept {
            cell,
            nbt: c.root_bytes(),
        });
    }
    Ok(())
}

/// The entities of a list (`Entities`): each kept whole in the cell of its `Pos`.
pub fn entities(list: Option<At<'_, '_>>, out: &mut Vec<Kept>) -> Result<(), NbtError> {
    let Some(list) = list else { return Ok(()) };
    for e in list.items()? {
        let c = e.compound()?;
        out.push(Kept {
            cell: entity_cell(&e)?,
            nbt: c.root_bytes(),
        });
    }
    Ok(())
}

fn is_full(status: &str) -> bool {
    let s = status.strip_prefix("minecraft:").unwrap_or(status);
    matches!(s, "full" | "fullchunk" | "postprocessed")
}

/// Reads one chunk's NBT (inflated). Block states and biomes go into `palette`.
pub fn read_chunk(
    bytes: &[u8],
    palette: &mut RegionPalette,
    scratch: &mut SectionScratch,
) -> Result<ChunkOutcome, NbtError> {
    let root = nbt::read(bytes)?;
    let at = root.at();
    let data_version = at.opt("DataVersion")?.map(|v| v.as_i32()).transpose()?;
    // Which layout: 1.18's sections at the root, or the Level compound.
    let level = at.opt("Level")?;
    let modern = level.is_none()
        && (at.opt("sections")?.is_some()
            || data_version.is_some_and(|v| v >= FIRST_ROOT_SECTIONS));
    if !modern && data_version.is_none_or(|v| v < FIRST_FLATTENED) {
        return Ok(ChunkOutcome::PreFlattening { data_version });
    }
    let dv = data_version.unwrap_or(FIRST_FLATTENED);
    let body = match &level {
        Some(l) => *l,
        None => at,
    };
    body.compound()?;
    let status = match body.opt("Status")? {
        Some(s) => s.as_str()?.into_owned(),
        None => String::from("full"),
    };
    if !is_full(&status) {
        return Ok(ChunkOutcome::NotFull { status });
    }
    let pos = match (body.opt("xPos")?, body.opt("zPos")?) {
        (Some(x), Some(z)) => Some([x.as_i32()?, z.as_i32()?]),
        _ => None,
    };
    let mut column = Column {
        pos,
        data_version: dv,
        sections: Vec::new(),
        block_entities: Vec::new(),
        entities: Vec::new(),
        biomes_dropped: false,
    };
    let spanning = dv < FIRST_NON_SPANNING;
    if modern {
        if let Some(sections) = at.opt("sections")? {
            for s in sections.items()? {
                let Some(states) = s.opt("block_states")? else {
                    continue; // a light-only section
                };
                let y = s.get("Y")?.as_i32()?;
                let pal_at = states.get("palette")?;
                let pal: Vec<At> = pal_at.items()?.collect();
                let bits = if pal.len() <= 1 {
                    0
                } else {
                    ceil_log2(pal.len()).max(4)
                };
                let blocks = paletted(
                    &pal,
                    &mut |e| palette.state(e),
                    states.opt("data")?,
                    bits,
                    16,
                    false,
                    &states,
                    scratch,
                )?;
                let block_counts = scratch.counts_of(&blocks);
                let non_air = palette.non_air(&blocks, &block_counts);
                let biomes = match s.opt("biomes")? {
                    Some(b) => {
                        let bp = b.get("palette")?;
                        let pal: Vec<At> = bp.items()?.collect();
                        let bits = ceil_log2(pal.len());
                        Some(paletted(
                            &pal,
                            &mut |e| palette.biome(e),
                            b.opt("data")?,
                            bits,
                            4,
                            false,
                            &b,
                            scratch,
                        )?)
                    }
                    None => None,
                };
                column.sections.push(Section {
                    y,
                    blocks,
                    biomes,
                    non_air,
                    block_counts,
                });
            }
        }
        block_entities(at.opt("block_entities")?, &mut column.block_entities)?;
    } else {
        if let Some(sections) = body.opt("Sections")? {
            for s in sections.items()? {
                let Some(pal_at) = s.opt("Palette")? else {
                    continue; // a light-only section
                };
                let y = s.get("Y")?.as_i32()?;
                let pal: Vec<At> = pal_at.items()?.collect();
                let bits = ceil_log2(pal.len()).max(4);
                let data = s.opt("BlockStates")?;
                let blocks = paletted(
                    &pal,
                    &mut |e| palette.state(e),
                    data,
                    bits,
                    16,
                    spanning,
                    &s,
                    scratch,
                )?;
                let block_counts = scratch.counts_of(&blocks);
                let non_air = palette.non_air(&blocks, &block_counts);
                column.sections.push(Section {
                    y,
                    blocks,
                    biomes: None,
                    non_air,
                    block_counts,
                });
            }
        }
        column.biomes_dropped = body.opt("Biomes")?.is_some();
        block_entities(body.opt("TileEntities")?, &mut column.block_entities)?;
        entities(body.opt("Entities")?, &mut column.entities)?;
    }
    column.sections.sort_by_key(|s| s.y);
    Ok(ChunkOutcome::Full(column))
}

/// The light the game saved for one chunk, per section: (Y, block light, sky light), each
/// 2048 bytes of nibbles (index y·256 + z·16 + x, the low nibble first) when present.
pub type SavedLight = Vec<(i32, Option<Vec<u8>>, Option<Vec<u8>>)>;

/// Reads the light the game saved in one chunk's NBT (both layouts); for comparing the
/// engine's light field with the game's, never shipped.
pub fn read_saved_light(bytes: &[u8]) -> Result<SavedLight, NbtError> {
    let root = nbt::read(bytes)?;
    let at = root.at();
    let level = at.opt("Level")?;
    let (body, key) = match &level {
        Some(l) => (*l, "Sections"),
        None => (at, "sections"),
    };
    let mut out = Vec::new();
    if let Some(sections) = body.opt(key)? {
        for s in sections.items()? {
            let y = s.get("Y")?.as_i32()?;
            let arr = |name: &'static str| -> Result<Option<Vec<u8>>, NbtError> {
                match s.opt(name)? {
                    Some(a) => {
                        let b = a.as_bytes()?;
                        if b.len() != 2048 {
                            return Err(a.error(format!("{} bytes; expected 2048", b.len())));
                        }
                        Ok(Some(b.to_vec()))
                    }
                    None => Ok(None),
                }
            };
            out.push((y, arr("BlockLight")?, arr("SkyLight")?));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_unpack_and_count_at_every_fixed_width() {
        for bits in 1..=8u32 {
            let per = 64 / bits as usize;
            let n = SECTION_CELLS;
            let vals: Vec<u16> = (0..n)
                .map(|i| ((i * 7 + i / 13) % (1 << bits)) as u16)
                .collect();
            // Packed within longs, the lowest bits first, each long big-endian.
            let mut raw = Vec::new();
            for long in vals.chunks(per) {
                let mut w = 0u64;
                for (s, &v) in long.iter().enumerate() {
                    w |= u64::from(v) << (s as u32 * bits);
                }
                raw.extend_from_slice(&w.to_be_bytes());
            }
            let mut out = vec![0u16; n];
            let mut hist = vec![9u32; 3];
            match bits {
                1 => unpack_within::<1>(&raw, &mut out, &mut hist),
                2 => unpack_within::<2>(&raw, &mut out, &mut hist),
                3 => unpack_within::<3>(&raw, &mut out, &mut hist),
                4 => unpack_within::<4>(&raw, &mut out, &mut hist),
                5 => unpack_within::<5>(&raw, &mut out, &mut hist),
                6 => unpack_within::<6>(&raw, &mut out, &mut hist),
                7 => unpack_within::<7>(&raw, &mut out, &mut hist),
                _ => unpack_within::<8>(&raw, &mut out, &mut hist),
            }
            assert_eq!(out, vals, "{bits} bits");
            let mut want = vec![0u32; 1 << bits];
            for &v in &vals {
                want[v as usize] += 1;
            }
            hist.truncate(1 << bits);
            assert_eq!(hist.len(), 1 << bits, "{bits} bits");
            assert_eq!(hist, want, "{bits} bits");
        }
    }

    #[test]
    fn log2_and_bits() {
        assert_eq!(ceil_log2(1), 0);
        assert_eq!(ceil_log2(2), 1);
        assert_eq!(ceil_log2(16), 4);
        assert_eq!(ceil_log2(17), 5);
    }
}
