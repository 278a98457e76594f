//! The writer: [`PayloadWriter`] (streaming, one region at a time) and [`encode`] /
//! [`encode_with`] (a whole [`VoxelPayload`]).

use std::collections::{BTreeMap, HashSet};

use crate::pallet::{MAX_ENTRY_LEN, VOXEL_SHARD_BYTES};

use super::bytes::Out;
use super::chunk::ChunkEncoder;
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

/// Writes a payload one region at a time.
///
/// The header, layers and grids are fixed when it is made; regions are added in strictly
/// ascending (grid, region coordinates) order, each encoded at once into its shard; the
/// palette and the extras, which may still grow while regions convert, are given to
/// [`PayloadWriter::finish`], which returns the shards.
pub struct PayloadWriter {
    /// The header section.
    head: Out,
    /// The layers and grids sections.
    middle: Out,
    edge: u8,
    horizontal: [usize; 2],
    cells: Vec<usize>,
    grids: Vec<GridInfo>,
    options: EncodeOptions,
    /// Shard 0 holds only its regions until `finish`.
    shards: Vec<Vec<u8>>,
    regions: Vec<RegionEntry>,
    last: Option<(u32, [i32; 2])>,
    /// The largest global palette index any stored cell uses.
    max_global: Option<u32>,
    enc: ChunkEncoder,
    records: Vec<u8>,
    table: Vec<(ChunkKey, u32, u32)>,
}

impl PayloadWriter {
    /// A writer for a payload with this header, these layers and these grids.
    pub fn new(
        header: &PayloadHeader,
        layers: &[Layer],
        grids: &[GridInfo],
        options: EncodeOptions,
    ) -> Result<Self, PayloadError> {
        let mut head = Out::default();
        write_header(&mut head, header)?;
        let mut middle = Out::default();
        write_layers(&mut middle, layers, header.chunk_edge)?;
        write_grids(&mut middle, grids)?;
        let cells = layers
            .iter()
            .map(|l| {
                let e = (header.chunk_edge / l.cell_scale) as usize;
                e * e * e
            })
            .collect();
        Ok(PayloadWriter {
            head,
            middle,
            edge: header.chunk_edge,
            horizontal: header.axes.horizontal(),
            cells,
            grids: grids.to_vec(),
            options,
            shards: vec![Vec::new()],
            regions: Vec::new(),
            last: None,
            max_global: None,
            enc: ChunkEncoder::default(),
            records: Vec::new(),
            table: Vec::new(),
        })
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
        let Some(info) = self.grids.get(grid as usize) else {
            return Err(invalid(
                place(),
                format!(
                    "names a grid the payload does not have ({})",
                    self.grids.len()
                ),
            ));
        };
        if let Some(last) = self.last {
            if (grid, region) <= last {
                return Err(invalid(
                    place(),
                    format!(
                        "comes after grid {} region {:?}; regions must be added in ascending order",
                        last.0, last.1
                    ),
                ));
            }
        }
        self.last = Some((grid, region));
        let mut chunks: Vec<(ChunkKey, &[u32])> = chunks.into_iter().collect();
        chunks.sort_unstable_by_key(|c| c.0);
        self.records.clear();
        self.table.clear();
        for (i, &(key, cells)) in chunks.iter().enumerate() {
            let cplace = || format!("{} chunk {:?} of layer {}", place(), key.chunk, key.layer);
            if i > 0 && chunks[i - 1].0 == key {
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
            if cells.len() != n {
                return Err(invalid(
                    cplace(),
                    format!("has {} cells; its layer's chunks have {n}", cells.len()),
                ));
            }
            if self.region_of(key.chunk) != region {
                return Err(invalid(
                    cplace(),
                    format!("belongs to region {:?}", self.region_of(key.chunk)),
                ));
            }
            let start = self.records.len();
            if !self.enc.record(cells, &mut self.records) {
                continue;
            }
            if !info.chunk_in_bounds(key.chunk, self.edge) {
                return Err(invalid(
                    cplace(),
                    format!(
                        "holds cells but lies outside the grid's bounds (min {:?}, size {:?})",
                        info.bounds_min, info.bounds_size
                    ),
                ));
            }
            self.max_global = self.max_global.max(Some(self.enc.max));
            self.table
                .push((key, start as u32, (self.records.len() - start) as u32));
        }
        if self.table.is_empty() {
            return Ok(false);
        }
        if self.table.len() > MAX_REGION_CHUNKS as usize {
            return Err(invalid(
                place(),
                format!(
                    "holds {} chunks; a region holds at most {MAX_REGION_CHUNKS}",
                    self.table.len()
                ),
            ));
        }
        if self.regions.len() >= MAX_REGIONS as usize {
            return Err(invalid(
                place(),
                format!("is one region too many; a payload holds at most {MAX_REGIONS}"),
            ));
        }
        let table_len = 4 + CHUNK_ENTRY_LEN * self.table.len();
        let region_len = table_len as u64 + self.records.len() as u64;
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
        let offset = shard.len() as u64;
        shard.extend_from_slice(&(self.table.len() as u32).to_le_bytes());
        for &(key, off, len) in &self.table {
            shard.extend_from_slice(&key.layer.to_le_bytes());
            for c in key.chunk {
                shard.extend_from_slice(&c.to_le_bytes());
            }
            shard.extend_from_slice(&(off + table_len as u32).to_le_bytes());
            shard.extend_from_slice(&len.to_le_bytes());
        }
        shard.extend_from_slice(&self.records);
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

    /// Writes the palette, the extras and the region index and returns the shards:
    /// element 0 is the payload entry, element n the entry `<payload>.<n>`.
    pub fn finish(
        self,
        palette: &[PaletteEntry],
        extras: &[Extra],
    ) -> Result<Vec<Vec<u8>>, PayloadError> {
        let mut out = self.head;
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
