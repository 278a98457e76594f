//! The writer: [`PayloadWriter`] (streaming, one region at a time) and [`encode`] /
//! [`encode_with`] (a whole [`VoxelPayload`]).

use std::collections::{BTreeMap, HashSet};

use crate::pallet::{MAX_ENTRY_LEN, VOXEL_SHARD_BYTES};

use super::bytes::Out;
use super::chunk::{ChunkCells, ChunkEncoder};
use super::error::PayloadError;
use super::index::{RegionEntry, CHUNK_ENTRY_LEN, REGION_ENTRY_LEN};
use super::model::{
    Blob, ChunkKey, Extra, GridInfo, Layer, PaletteEntry, PayloadHeader, PropValue, VoxelPayload,
};
use super::{
    BLOCKS_LAYER, CHUNK_EDGES, MAGIC, MAX_BLOB_LEN, MAX_EXTRAS, MAX_GRIDS, MAX_LAYERS, MAX_PALETTE,
    MAX_REGIONS, MAX_REGION_CHUNKS, MAX_SHARDS, REGION_EDGE, VERSION,
};

/// How [`encode_with`] and [`PayloadWriter`] lay a payload out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Once a shard holds at least this many bytes of regions, the next region starts a
    /// new shard. Default [`VOXEL_SHARD_BYTES`] (256 MiB); tests force sharding with
    /// small values.
    pub shard_bytes: u64,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            shard_bytes: VOXEL_SHARD_BYTES,
        }
    }
}

fn invalid(place: impl Into<String>, problem: impl Into<String>) -> PayloadError {
    PayloadError::Invalid {
        place: place.into(),
        problem: problem.into(),
    }
}

fn write_blob(out: &mut Out, b: &Blob, place: &dyn Fn() -> String) -> Result<(), PayloadError> {
    out.string(&b.format, || format!("{}'s format tag", place()))?;
    let n = u32::try_from(b.bytes.len())
        .ok()
        .filter(|&n| n <= MAX_BLOB_LEN)
        .ok_or_else(|| {
            invalid(
                place(),
                format!(
                    "is {} bytes; a blob holds at most {MAX_BLOB_LEN}",
                    b.bytes.len()
                ),
            )
        })?;
    out.u32(n);
    out.bytes(&b.bytes);
    Ok(())
}

fn write_pairs(
    out: &mut Out,
    pairs: &[(String, String)],
    place: &dyn Fn() -> String,
) -> Result<(), PayloadError> {
    let n = u16::try_from(pairs.len())
        .map_err(|_| invalid(place(), format!("has {} pairs; at most 65535", pairs.len())))?;
    out.u16(n);
    for (i, (k, v)) in pairs.iter().enumerate() {
        out.string(k, || format!("{} pair {i} key", place()))?;
        out.string(v, || format!("{} pair {i} value", place()))?;
    }
    Ok(())
}

/// The header section.
fn write_header(out: &mut Out, h: &PayloadHeader) -> Result<(), PayloadError> {
    out.bytes(&MAGIC);
    out.u16(VERSION);
    out.u16(0);
    out.string(&h.platform, || "the header's platform".into())?;
    out.string(&h.format, || "the header's format".into())?;
    out.string(&h.platform_version, || {
        "the header's platformVersion".into()
    })?;
    if !(h.voxel_size.is_finite() && h.voxel_size > 0.0) {
        return Err(invalid(
            "the header's voxel size",
            format!("is {}; it must be finite and > 0", h.voxel_size),
        ));
    }
    out.f64(h.voxel_size);
    out.u8(h.axes.to_byte());
    out.i32x3(h.origin);
    if !CHUNK_EDGES.contains(&h.chunk_edge) {
        return Err(invalid(
            "the header's chunk edge",
            format!("is {}; it must be 8, 16 or 32", h.chunk_edge),
        ));
    }
    out.u8(h.chunk_edge);
    out.u8(REGION_EDGE);
    write_pairs(out, &h.meta, &|| "the header's meta".into())
}

/// The layers section.
fn write_layers(out: &mut Out, layers: &[Layer], edge: u8) -> Result<(), PayloadError> {
    if layers.is_empty() || layers.len() > MAX_LAYERS as usize {
        return Err(invalid(
            "the layers",
            format!("number {}; a payload has 1 ..= {MAX_LAYERS}", layers.len()),
        ));
    }
    out.u16(layers.len() as u16);
    let mut names = HashSet::new();
    for (i, l) in layers.iter().enumerate() {
        let place = format!("layer {i} '{}'", l.name);
        if i == 0 && (l.name != BLOCKS_LAYER || l.cell_scale != 1) {
            return Err(invalid(
                place,
                "is first, so it must be 'blocks' at cell scale 1",
            ));
        }
        if l.name.is_empty() || !names.insert(l.name.as_str()) {
            return Err(invalid(place, "needs a name no other layer has"));
        }
        if l.cell_scale == 0 || !edge.is_multiple_of(l.cell_scale) {
            return Err(invalid(
                place,
                format!(
                    "has cell scale {}; it must divide the chunk edge {edge}",
                    l.cell_scale
                ),
            ));
        }
        out.string(&l.name, || format!("layer {i}'s name"))?;
        out.u8(l.cell_scale);
    }
    Ok(())
}

/// The grids section.
fn write_grids(out: &mut Out, grids: &[GridInfo]) -> Result<(), PayloadError> {
    if grids.len() > MAX_GRIDS as usize {
        return Err(invalid(
            "the grids",
            format!("number {}; at most {MAX_GRIDS}", grids.len()),
        ));
    }
    out.u32(grids.len() as u32);
    for (i, g) in grids.iter().enumerate() {
        let place = || format!("grid {i} '{}'", g.name);
        out.string(&g.name, || format!("grid {i}'s name"))?;
        match g.parent {
            None => out.i32(-1),
            Some(p) if (p as usize) < i => out.i32(p as i32),
            Some(p) => {
                return Err(invalid(
                    place(),
                    format!("has parent {p}; a parent must come before its child"),
                ))
            }
        }
        for row in &g.transform {
            for &v in row {
                if !v.is_finite() {
                    return Err(invalid(
                        place(),
                        format!("has transform value {v}; it must be finite"),
                    ));
                }
                out.f32(v);
            }
        }
        for a in 0..3 {
            let end = g.bounds_min[a] as i64 + g.bounds_size[a] as i64;
            if g.bounds_size[a] < 0 || end > i32::MAX as i64 + 1 {
                return Err(invalid(
                    place(),
                    format!(
                        "has bounds min {:?} size {:?}; sizes must be ≥ 0 and min + size ≤ 2^31",
                        g.bounds_min, g.bounds_size
                    ),
                ));
            }
        }
        out.i32x3(g.bounds_min);
        out.i32x3(g.bounds_size);
        write_pairs(out, &g.attributes, &|| format!("{}'s attributes", place()))?;
    }
    Ok(())
}

/// The palette section.
fn write_palette(out: &mut Out, palette: &[PaletteEntry]) -> Result<(), PayloadError> {
    if palette.is_empty() || palette.len() > MAX_PALETTE as usize {
        return Err(invalid(
            "the palette",
            format!("has {} entries; 1 ..= {MAX_PALETTE}", palette.len()),
        ));
    }
    if !palette[0].is_empty_entry() {
        return Err(invalid(
            "palette entry 0",
            format!(
                "is {}:{}; it must be dh:empty with no properties and no raw blob",
                palette[0].ns, palette[0].id
            ),
        ));
    }
    out.u32(palette.len() as u32);
    for (i, e) in palette.iter().enumerate() {
        out.string(&e.ns, || format!("palette entry {i}'s namespace"))?;
        out.string(&e.id, || format!("palette entry {i}'s id"))?;
        let n = u16::try_from(e.properties.len()).map_err(|_| {
            invalid(
                format!("palette entry {i}"),
                format!("has {} properties; at most 65535", e.properties.len()),
            )
        })?;
        out.u16(n);
        for (j, p) in e.properties.iter().enumerate() {
            out.string(&p.key, || format!("palette entry {i} property {j}'s key"))?;
            out.u8(p.value.kind());
            match &p.value {
                PropValue::Bool(b) => out.u8(*b as u8),
                PropValue::Int(v) => out.i32(*v),
                PropValue::String(s) => {
                    out.string(s, || format!("palette entry {i} property {j}'s value"))?
                }
            }
        }
        match &e.raw {
            None => out.u8(0),
            Some(b) => {
                out.u8(1);
                write_blob(out, b, &|| format!("palette entry {i}'s raw blob"))?;
            }
        }
    }
    Ok(())
}

/// The extras section.
fn write_extras(out: &mut Out, extras: &[Extra], grids: usize) -> Result<(), PayloadError> {
    if extras.len() > MAX_EXTRAS as usize {
        return Err(invalid(
            "the extras",
            format!("number {}; at most {MAX_EXTRAS}", extras.len()),
        ));
    }
    out.u32(extras.len() as u32);
    for (i, x) in extras.iter().enumerate() {
        out.u8(x.kind as u8);
        match x.grid {
            None => out.i32(-1),
            Some(g) if (g as usize) < grids => out.i32(g as i32),
            Some(g) => {
                return Err(invalid(
                    format!("extra {i}"),
                    format!("names grid {g}; the payload has {grids}"),
                ))
            }
        }
        match x.cell {
            None => out.u8(0),
            Some(c) => {
                out.u8(1);
                out.i32x3(c);
            }
        }
        write_blob(out, &x.blob, &|| format!("extra {i}'s blob"))?;
    }
    Ok(())
}

/// One region's chunk table and chunk records, encoded apart from the writer (on any
/// thread, by a [`RegionEncoder`]) and added to it with [`PayloadWriter::add_encoded`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedRegion {
    grid: u32,
    region: [i32; 2],
    /// (key, offset in `records`, length) per stored chunk, in key order.
    table: Vec<(ChunkKey, u32, u32)>,
    records: Vec<u8>,
    /// The largest global palette index any stored cell uses.
    max_global: Option<u32>,
}

impl EncodedRegion {
    /// The grid it belongs to.
    pub fn grid(&self) -> u32 {
        self.grid
    }

    /// Its region coordinates.
    pub fn region(&self) -> [i32; 2] {
        self.region
    }

    /// Chunks stored (all-empty ones are left out).
    pub fn chunks(&self) -> usize {
        self.table.len()
    }

    /// Bytes of chunk records.
    pub fn record_bytes(&self) -> usize {
        self.records.len()
    }
}

/// How [`RegionEncoder::encode_filled`]'s `fill` gave a chunk's cells.
#[derive(Debug, Clone, Copy)]
pub enum Filled<'c> {
    /// The buffer holds one global palette index per cell (X fastest, then Y, then Z).
    Global,
    /// The buffer holds a local palette of global indices, and these are the cells'
    /// indices into it (an index past it reads as global 0).
    Indexed(&'c [u16]),
    /// As [`Filled::Indexed`], with how many cells hold each buffer entry (one count per
    /// entry), which spares the encoder counting them; every cell must then index the
    /// buffer (exact counts of such cells give the bytes of [`Filled::Indexed`]). Counts
    /// that do not sum to the cells, or not one per entry, are ignored and the cells
    /// counted.
    IndexedCounted(&'c [u16], &'c [u32]),
    /// Every cell holds this global index (the buffer is not read).
    Uniform(u32),
}

/// Encodes regions' chunks into [`EncodedRegion`]s with a payload's chunk edge and
/// layers: the part of writing that needs no order, so regions can encode in parallel
/// and be added to a [`PayloadWriter`] in order. The bytes are the ones
/// [`PayloadWriter::add_region`] writes.
pub struct RegionEncoder {
    horizontal: [usize; 2],
    cells: Vec<usize>,
    enc: ChunkEncoder,
}

impl RegionEncoder {
    /// An encoder for a payload with this header and these layers (which
    /// [`PayloadWriter::new`] checks).
    pub fn new(header: &PayloadHeader, layers: &[Layer]) -> Self {
        let edge = header.chunk_edge.max(1);
        RegionEncoder {
            horizontal: header.axes.horizontal(),
            cells: layers
                .iter()
                .map(|l| {
                    let e = (edge / l.cell_scale.max(1)) as usize;
                    e * e * e
                })
                .collect(),
            enc: ChunkEncoder::default(),
        }
    }

    /// The region a chunk belongs to: floor(chunk / 32) on the two horizontal axes.
    pub fn region_of(&self, chunk: [i32; 3]) -> [i32; 2] {
        let [a, b] = self.horizontal;
        [
            chunk[a].div_euclid(REGION_EDGE as i32),
            chunk[b].div_euclid(REGION_EDGE as i32),
        ]
    }

    /// Encodes one region of grid `grid`: every chunk given must belong to it, at most
    /// once, with its layer's (edge / s)³ cells. All-empty chunks are left out.
    pub fn encode<'c>(
        &mut self,
        grid: u32,
        region: [i32; 2],
        chunks: impl IntoIterator<Item = (ChunkKey, &'c [u32])>,
    ) -> Result<EncodedRegion, PayloadError> {
        let mut chunks: Vec<(ChunkKey, &[u32])> = chunks.into_iter().collect();
        chunks.sort_unstable_by_key(|c| c.0);
        let mut out = EncodedRegion {
            grid,
            region,
            table: Vec::new(),
            records: Vec::new(),
            max_global: None,
        };
        for (i, &(key, cells)) in chunks.iter().enumerate() {
            let prev = i.checked_sub(1).map(|p| chunks[p].0);
            self.record_one(&mut out, prev, key, ChunkCells::Global(cells))?;
        }
        Ok(out)
    }

    /// [`RegionEncoder::encode`] with each chunk's cells made on demand: `fill(i, buf)`
    /// gives the cells of `keys[i]` (writing into `buf`, cleared first, what its
    /// [`Filled`] form says), one chunk at a time in chunk-table order, so a converter
    /// never holds a whole region's cells. The bytes are [`RegionEncoder::encode`]'s for
    /// the same cells.
    pub fn encode_filled<'c>(
        &mut self,
        grid: u32,
        region: [i32; 2],
        keys: &[ChunkKey],
        mut fill: impl FnMut(usize, &mut Vec<u32>) -> Filled<'c>,
    ) -> Result<EncodedRegion, PayloadError> {
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_unstable_by_key(|&i| keys[i]);
        let mut out = EncodedRegion {
            grid,
            region,
            table: Vec::new(),
            records: Vec::new(),
            max_global: None,
        };
        let mut buf = Vec::new();
        let mut prev = None;
        for i in order {
            buf.clear();
            let cells = match fill(i, &mut buf) {
                Filled::Global => ChunkCells::Global(&buf),
                Filled::Indexed(cells) => ChunkCells::Indexed {
                    palette: &buf,
                    cells,
                    counts: None,
                },
                Filled::IndexedCounted(cells, counts) => ChunkCells::Indexed {
                    palette: &buf,
                    cells,
                    counts: Some(counts),
                },
                Filled::Uniform(v) => ChunkCells::Uniform(v),
            };
            self.record_one(&mut out, prev, keys[i], cells)?;
            prev = Some(keys[i]);
        }
        Ok(out)
    }

    /// Checks one chunk (after `prev` in table order) and appends its record to `out`.
    fn record_one(
        &mut self,
        out: &mut EncodedRegion,
        prev: Option<ChunkKey>,
        key: ChunkKey,
        cells: ChunkCells<'_>,
    ) -> Result<(), PayloadError> {
        let (grid, region) = (out.grid, out.region);
        let cplace = || {
            format!(
                "grid {grid} region {region:?} chunk {:?} of layer {}",
                key.chunk, key.layer
            )
        };
        if prev == Some(key) {
            return Err(invalid(cplace(), "is given twice"));
        }
        let Some(&n) = self.cells.get(key.layer as usize) else {
            return Err(invalid(
                cplace(),
                format!(
                    "names a layer the payload does not have ({})",
                    self.cells.len()
                ),
            ));
        };
        let len = match cells {
            ChunkCells::Global(c) => c.len(),
            ChunkCells::Indexed { cells, .. } => cells.len(),
            ChunkCells::Uniform(_) => n,
        };
        if len != n {
            return Err(invalid(
                cplace(),
                format!("has {len} cells; its layer's chunks have {n}"),
            ));
        }
        if self.region_of(key.chunk) != region {
            return Err(invalid(
                cplace(),
                format!("belongs to region {:?}", self.region_of(key.chunk)),
            ));
        }
        let start = out.records.len();
        if !self.enc.record_cells(cells, &mut out.records) {
            return Ok(());
        }
        out.max_global = out.max_global.max(Some(self.enc.max));
        out.table
            .push((key, start as u32, (out.records.len() - start) as u32));
        Ok(())
    }
}

/// Writes a payload one region at a time.
///
/// The header, layers and grids are fixed when it is made (a grid's bounds may still be
/// fitted to what was stored, [`PayloadWriter::fit_grid_bounds`]); regions are added in
/// strictly ascending (grid, region coordinates) order, each encoded at once into its
/// shard ([`PayloadWriter::add_region`]) or encoded apart and added
/// ([`PayloadWriter::add_encoded`]); the palette and the extras, which may still grow
/// while regions convert, are given to [`PayloadWriter::finish`], which returns the
/// shards.
pub struct PayloadWriter {
    /// The header, written at `finish` (its meta may be set until then).
    header: PayloadHeader,
    /// The layers section.
    middle: Out,
    edge: u8,
    grids: Vec<GridInfo>,
    /// Per grid, the lowest and highest chunk coordinates stored.
    extents: Vec<Option<([i32; 3], [i32; 3])>>,
    options: EncodeOptions,
    /// Shard 0 holds only its regions until `finish`.
    shards: Vec<Vec<u8>>,
    regions: Vec<RegionEntry>,
    last: Option<(u32, [i32; 2])>,
    /// The largest global palette index any stored cell uses.
    max_global: Option<u32>,
    encoder: RegionEncoder,
}

impl PayloadWriter {
    /// A writer for a payload with this header, these layers and these grids.
    pub fn new(
        header: &PayloadHeader,
        layers: &[Layer],
        grids: &[GridInfo],
        options: EncodeOptions,
    ) -> Result<Self, PayloadError> {
        write_header(&mut Out::default(), header)?;
        let mut middle = Out::default();
        write_layers(&mut middle, layers, header.chunk_edge)?;
        write_grids(&mut Out::default(), grids)?;
        Ok(PayloadWriter {
            header: header.clone(),
            middle,
            edge: header.chunk_edge,
            grids: grids.to_vec(),
            extents: vec![None; grids.len()],
            options,
            shards: vec![Vec::new()],
            regions: Vec::new(),
            last: None,
            max_global: None,
            encoder: RegionEncoder::new(header, layers),
        })
    }

    /// The region a chunk belongs to: floor(chunk / 32) on the two horizontal axes.
    pub fn region_of(&self, chunk: [i32; 3]) -> [i32; 2] {
        self.encoder.region_of(chunk)
    }

    /// Encodes one region of grid `grid`: every chunk given must belong to it, at most
    /// once, with its layer's (edge / s)³ cells. All-empty chunks are left out, and a
    /// region left with none is not stored (returns false). Regions must come in strictly
    /// ascending (grid, region) order.
    pub fn add_region<'c>(
        &mut self,
        grid: u32,
        region: [i32; 2],
        chunks: impl IntoIterator<Item = (ChunkKey, &'c [u32])>,
    ) -> Result<bool, PayloadError> {
        let place = || format!("grid {grid} region {region:?}");
        if self.grids.get(grid as usize).is_none() {
            return Err(invalid(
                place(),
                format!(
                    "names a grid the payload does not have ({})",
                    self.grids.len()
                ),
            ));
        }
        self.check_order(grid, region)?;
        let encoded = self.encoder.encode(grid, region, chunks)?;
        self.add_encoded(encoded)
    }

    fn check_order(&self, grid: u32, region: [i32; 2]) -> Result<(), PayloadError> {
        if let Some(last) = self.last {
            if (grid, region) <= last {
                return Err(invalid(
                    format!("grid {grid} region {region:?}"),
                    format!(
                        "comes after grid {} region {:?}; regions must be added in ascending order",
                        last.0, last.1
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Adds a region a [`RegionEncoder`] made for this payload (its header and layers).
    /// A region with no stored chunk is not stored (returns false). Regions must come in
    /// strictly ascending (grid, region) order.
    pub fn add_encoded(&mut self, r: EncodedRegion) -> Result<bool, PayloadError> {
        let (grid, region) = (r.grid, r.region);
        let place = || format!("grid {grid} region {region:?}");
        let Some(info) = self.grids.get(grid as usize) else {
            return Err(invalid(
                place(),
                format!(
                    "names a grid the payload does not have ({})",
                    self.grids.len()
                ),
            ));
        };
        self.check_order(grid, region)?;
        self.last = Some((grid, region));
        for &(key, _, _) in &r.table {
            if !info.chunk_in_bounds(key.chunk, self.edge) {
                return Err(invalid(
                    format!("{} chunk {:?} of layer {}", place(), key.chunk, key.layer),
                    format!(
                        "holds cells but lies outside the grid's bounds (min {:?}, size {:?})",
                        info.bounds_min, info.bounds_size
                    ),
                ));
            }
        }
        if r.table.is_empty() {
            return Ok(false);
        }
        if r.table.len() > MAX_REGION_CHUNKS as usize {
            return Err(invalid(
                place(),
                format!(
                    "holds {} chunks; a region holds at most {MAX_REGION_CHUNKS}",
                    r.table.len()
                ),
            ));
        }
        if self.regions.len() >= MAX_REGIONS as usize {
            return Err(invalid(
                place(),
                format!("is one region too many; a payload holds at most {MAX_REGIONS}"),
            ));
        }
        let table_len = 4 + CHUNK_ENTRY_LEN * r.table.len();
        let region_len = table_len as u64 + r.records.len() as u64;
        if region_len > MAX_ENTRY_LEN {
            return Err(invalid(
                place(),
                format!("is {region_len} bytes; a shard holds at most {MAX_ENTRY_LEN}"),
            ));
        }
        // Start a new shard once the current one holds enough regions.
        let cur_len = self.shards.last().map_or(0, |s| s.len() as u64);
        if cur_len > 0 && cur_len >= self.options.shard_bytes {
            if self.shards.len() >= MAX_SHARDS {
                return Err(invalid(
                    place(),
                    format!(
                        "needs shard {}; a payload has at most {MAX_SHARDS}",
                        self.shards.len()
                    ),
                ));
            }
            self.shards.push(Vec::new());
        }
        let shard_no = self.shards.len() - 1;
        let Some(shard) = self.shards.last_mut() else {
            return Err(invalid(place(), "has no shard to go in"));
        };
        if shard.len() as u64 + region_len > MAX_ENTRY_LEN {
            return Err(invalid(
                place(),
                format!("would grow shard {shard_no} past {MAX_ENTRY_LEN} bytes; lower the shard threshold"),
            ));
        }
        self.max_global = self.max_global.max(r.max_global);
        let extent = &mut self.extents[grid as usize];
        for &(key, _, _) in &r.table {
            let (lo, hi) = extent.get_or_insert((key.chunk, key.chunk));
            for a in 0..3 {
                lo[a] = lo[a].min(key.chunk[a]);
                hi[a] = hi[a].max(key.chunk[a]);
            }
        }
        let offset = shard.len() as u64;
        shard.extend_from_slice(&(r.table.len() as u32).to_le_bytes());
        for &(key, off, len) in &r.table {
            shard.extend_from_slice(&key.layer.to_le_bytes());
            for c in key.chunk {
                shard.extend_from_slice(&c.to_le_bytes());
            }
            shard.extend_from_slice(&(off + table_len as u32).to_le_bytes());
            shard.extend_from_slice(&len.to_le_bytes());
        }
        shard.extend_from_slice(&r.records);
        self.regions.push(RegionEntry {
            grid,
            region,
            shard: shard_no as u16,
            offset,
            length: region_len,
        });
        Ok(true)
    }

    /// Regions stored so far.
    pub fn regions(&self) -> &[RegionEntry] {
        &self.regions
    }

    /// The box of whole chunks (in blocks: min, size) that grid `grid`'s stored chunks
    /// fill, or `None` when it stores none.
    pub fn stored_extent(&self, grid: u32) -> Option<([i32; 3], [i32; 3])> {
        let (lo, hi) = (*self.extents.get(grid as usize)?)?;
        let e = i64::from(self.edge);
        let min = lo.map(|c| (i64::from(c) * e) as i32);
        let mut size = [0i32; 3];
        for a in 0..3 {
            size[a] = ((i64::from(hi[a]) - i64::from(lo[a]) + 1) * e) as i32;
        }
        Some((min, size))
    }

    /// Sets grid `grid`'s bounds to the box of whole chunks its stored chunks fill
    /// ([`PayloadWriter::stored_extent`]; a grid storing none gets an empty box at 0), so
    /// a grid made with generous bounds (a world whose height is known only once its
    /// chunks are read) ends with the ones it needs.
    pub fn fit_grid_bounds(&mut self, grid: u32) {
        let fitted = self.stored_extent(grid).unwrap_or(([0; 3], [0; 3]));
        if let Some(g) = self.grids.get_mut(grid as usize) {
            (g.bounds_min, g.bounds_size) = fitted;
        }
    }

    /// Replaces the header's meta (a converter that learns it while reading, such as a
    /// world's chunk versions and skipped chunks).
    pub fn set_meta(&mut self, meta: Vec<(String, String)>) -> Result<(), PayloadError> {
        let mut h = self.header.clone();
        h.meta = meta;
        write_header(&mut Out::default(), &h)?;
        self.header = h;
        Ok(())
    }

    /// Replaces the header's `platformVersion` (a converter that learns the source's version
    /// only from its chunks, such as a world folder without `level.dat`).
    pub fn set_platform_version(&mut self, version: String) -> Result<(), PayloadError> {
        let mut h = self.header.clone();
        h.platform_version = version;
        write_header(&mut Out::default(), &h)?;
        self.header = h;
        Ok(())
    }

    /// Writes the palette, the extras and the region index and returns the shards:
    /// element 0 is the payload entry, element n the entry `<payload>.<n>`.
    pub fn finish(
        self,
        palette: &[PaletteEntry],
        extras: &[Extra],
    ) -> Result<Vec<Vec<u8>>, PayloadError> {
        let mut out = Out::default();
        write_header(&mut out, &self.header)?;
        write_palette(&mut out, palette)?;
        if let Some(m) = self.max_global {
            if m as usize >= palette.len() {
                return Err(invalid(
                    "the cells",
                    format!(
                        "use global palette index {m}; the palette has {} entries",
                        palette.len()
                    ),
                ));
            }
        }
        out.bytes(&self.middle.buf);
        write_grids(&mut out, &self.grids)?;
        write_extras(&mut out, extras, self.grids.len())?;
        let head_len = (out.buf.len() + 4 + REGION_ENTRY_LEN * self.regions.len()) as u64;
        out.u32(self.regions.len() as u32);
        for r in &self.regions {
            out.u32(r.grid);
            out.i32(r.region[0]);
            out.i32(r.region[1]);
            out.u16(r.shard);
            out.u64(if r.shard == 0 {
                r.offset + head_len
            } else {
                r.offset
            });
            out.u64(r.length);
        }
        let mut shards = self.shards;
        let first = std::mem::take(&mut shards[0]);
        out.bytes(&first);
        if out.buf.len() as u64 > MAX_ENTRY_LEN {
            return Err(invalid(
                "shard 0",
                format!(
                    "is {} bytes; a pallet entry holds at most {MAX_ENTRY_LEN}",
                    out.buf.len()
                ),
            ));
        }
        shards[0] = out.buf;
        Ok(shards)
    }
}

/// Writes `payload` with the default options: one shard per 256 MiB of regions.
pub fn encode(payload: &VoxelPayload) -> Result<Vec<Vec<u8>>, PayloadError> {
    encode_with(payload, &EncodeOptions::default())
}

/// Writes `payload` as its shards (element 0 the payload entry, element n the entry
/// `<payload>.<n>`). Deterministic: the same model gives the same bytes.
pub fn encode_with(
    payload: &VoxelPayload,
    options: &EncodeOptions,
) -> Result<Vec<Vec<u8>>, PayloadError> {
    let infos: Vec<GridInfo> = payload.grids.iter().map(|g| g.info.clone()).collect();
    let mut w = PayloadWriter::new(&payload.header, &payload.layers, &infos, *options)?;
    for (gi, g) in payload.grids.iter().enumerate() {
        let mut by_region: BTreeMap<[i32; 2], Vec<(ChunkKey, &[u32])>> = BTreeMap::new();
        for (key, cells) in &g.chunks {
            by_region
                .entry(w.region_of(key.chunk))
                .or_default()
                .push((*key, cells.as_slice()));
        }
        for (region, chunks) in by_region {
            w.add_region(gi as u32, region, chunks)?;
        }
    }
    w.finish(&payload.palette, &payload.extras)
}
