//! The ranged reader: [`PayloadReader`] and [`decode_all`].

use std::collections::HashSet;
use std::sync::OnceLock;

use crate::pallet::voxel_shard_name;

use super::bytes::Cursor;
use super::chunk::{chunk_body_cap, decode_record, CODEC_LZ4, CODEC_STORED};
use super::error::PayloadError;
use super::index::{ChunkEntry, RegionEntry, CHUNK_ENTRY_LEN, REGION_ENTRY_LEN};
use super::model::{
    Blob, ChunkKey, Extra, ExtraKind, Grid, GridInfo, Layer, PaletteEntry, PayloadAxes,
    PayloadHeader, PropValue, Property, VoxelPayload,
};
use super::{
    BLOCKS_LAYER, CHUNK_EDGES, MAGIC, MAX_BLOB_LEN, MAX_EXTRAS, MAX_GRIDS, MAX_LAYERS, MAX_PALETTE,
    MAX_REGIONS, MAX_REGION_CHUNKS, MAX_SHARDS, REGION_EDGE, UNNAMED, VERSION,
};

thread_local! {
    /// Each thread's local palette and LZ4 buffers for decoding chunks.
    static SCRATCH: std::cell::RefCell<(Vec<u32>, Vec<u8>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// The smallest chunk record: a codec tag, a raw length and one body byte.
const MIN_RECORD_LEN: usize = 6;

/// A region's chunk table, sorted by [`ChunkKey`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkTable {
    entries: Vec<ChunkEntry>,
}

impl ChunkTable {
    /// The entries, sorted by key.
    pub fn entries(&self) -> &[ChunkEntry] {
        &self.entries
    }

    /// The index of the entry for `key`, if the region stores that chunk.
    pub fn find(&self, key: ChunkKey) -> Option<usize> {
        self.entries.binary_search_by(|e| e.key.cmp(&key)).ok()
    }
}

/// An open payload, read by range: the header, palette, layers, grids, extras and region
/// index are parsed and checked at [`PayloadReader::open`]; a region's chunk table the
/// first time it is needed; a chunk's record when it is read. The reader is `Sync`, so
/// meshing threads may share it.
pub struct PayloadReader<'a> {
    files: Vec<String>,
    shards: Vec<&'a [u8]>,
    header: PayloadHeader,
    palette: Vec<PaletteEntry>,
    layers: Vec<Layer>,
    grids: Vec<GridInfo>,
    extras: Vec<Extra>,
    regions: Vec<RegionEntry>,
    tables: Vec<OnceLock<ChunkTable>>,
}

impl std::fmt::Debug for PayloadReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PayloadReader")
            .field("name", &self.files.first())
            .field("shards", &self.shards.len())
            .field("header", &self.header)
            .field("palette", &self.palette.len())
            .field("layers", &self.layers)
            .field("grids", &self.grids.len())
            .field("extras", &self.extras.len())
            .field("regions", &self.regions.len())
            .finish()
    }
}

fn read_blob(c: &mut Cursor<'_>, what: &str) -> Result<Blob, PayloadError> {
    let format = c.string(&format!("{what}'s format tag"))?;
    let at = c.pos();
    let n = c.u32(&format!("{what}'s length"))?;
    if n > MAX_BLOB_LEN {
        return Err(c.bad(
            at,
            &format!("{what}'s length"),
            n.to_string(),
            format!("at most {MAX_BLOB_LEN}"),
        ));
    }
    let bytes = c.take(n as usize, what)?.to_vec();
    Ok(Blob { format, bytes })
}

fn read_pairs(c: &mut Cursor<'_>, what: &str) -> Result<Vec<(String, String)>, PayloadError> {
    let at = c.pos();
    let n = c.u16(&format!("{what} count"))?;
    let n = c.check_count(at, n as u64, u16::MAX as u64, 4, what)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let k = c.string(&format!("{what} key"))?;
        let val = c.string(&format!("{what} value"))?;
        v.push((k, val));
    }
    Ok(v)
}

fn read_header(c: &mut Cursor<'_>) -> Result<PayloadHeader, PayloadError> {
    let at = c.pos();
    let magic = c.take(4, "the magic DHVX")?;
    if magic != MAGIC {
        return Err(c.bad(
            at,
            "magic",
            format!("{magic:02x?}"),
            "\"DHVX\" (44 48 56 58)",
        ));
    }
    let at = c.pos();
    let version = c.u16("version")?;
    if version != VERSION {
        return Err(c.bad(at, "version", version.to_string(), VERSION.to_string()));
    }
    let at = c.pos();
    let flags = c.u16("flags")?;
    if flags != 0 {
        return Err(c.bad(
            at,
            "flags",
            format!("{flags:#06x}"),
            "0 (version 2 defines no flags)",
        ));
    }
    let platform = c.string("platform")?;
    let format = c.string("format")?;
    let platform_version = c.string("platformVersion")?;
    let at = c.pos();
    let voxel_size = c.f64("voxel size")?;
    if !(voxel_size.is_finite() && voxel_size > 0.0) {
        return Err(c.bad(
            at,
            "voxel size",
            voxel_size.to_string(),
            "a finite number > 0",
        ));
    }
    let at = c.pos();
    let axes_byte = c.u8("axes")?;
    let axes = PayloadAxes::from_byte(axes_byte).ok_or_else(|| {
        c.bad(
            at,
            "axes",
            format!("{axes_byte:#04x}"),
            "up axis 0, 1 or 2 in bits 0-1, left-handed in bit 2, bits 3-7 zero",
        )
    })?;
    let origin = c.i32x3("origin")?;
    let at = c.pos();
    let chunk_edge = c.u8("chunk edge")?;
    if !CHUNK_EDGES.contains(&chunk_edge) {
        return Err(c.bad(at, "chunk edge", chunk_edge.to_string(), "8, 16 or 32"));
    }
    let at = c.pos();
    let region_edge = c.u8("region edge")?;
    if region_edge != REGION_EDGE {
        return Err(c.bad(
            at,
            "region edge",
            region_edge.to_string(),
            REGION_EDGE.to_string(),
        ));
    }
    c.section("header meta");
    let meta = read_pairs(c, "meta pair")?;
    Ok(PayloadHeader {
        platform,
        format,
        platform_version,
        voxel_size,
        axes,
        origin,
        chunk_edge,
        meta,
    })
}

fn read_palette(c: &mut Cursor<'_>) -> Result<Vec<PaletteEntry>, PayloadError> {
    c.section("global palette");
    let at = c.pos();
    let n = c.u32("entry count")?;
    if n == 0 {
        return Err(c.bad(at, "entry count", "0", "at least 1 (entry 0 is dh:empty)"));
    }
    let n = c.check_count(at, n as u64, MAX_PALETTE as u64, 7, "palette entry")?;
    let mut palette = Vec::with_capacity(n);
    for i in 0..n {
        c.item("palette entry", i as u64);
        let entry_at = c.pos();
        let ns = c.string("namespace")?;
        let id = c.string("id")?;
        let at = c.pos();
        let pn = c.u16("property count")?;
        let pn = c.check_count(at, pn as u64, u16::MAX as u64, 4, "property")?;
        let mut properties = Vec::with_capacity(pn);
        for _ in 0..pn {
            let key = c.string("property key")?;
            let at = c.pos();
            let value = match c.u8("property kind")? {
                0 => PropValue::Bool(c.flag("bool property value")?),
                1 => PropValue::Int(c.i32("int property value")?),
                2 => PropValue::String(c.string("string property value")?),
                k => {
                    return Err(c.bad(
                        at,
                        "property kind",
                        k.to_string(),
                        "0 (bool), 1 (int) or 2 (string)",
                    ))
                }
            };
            properties.push(Property { key, value });
        }
        let raw = if c.flag("raw blob flag")? {
            Some(read_blob(c, "raw blob")?)
        } else {
            None
        };
        let e = PaletteEntry {
            ns,
            id,
            properties,
            raw,
        };
        if i == 0 && !e.is_empty_entry() {
            return Err(c.bad(
                entry_at,
                "entry",
                format!("{}:{}", e.ns, e.id),
                "dh:empty with no properties and no raw blob",
            ));
        }
        palette.push(e);
    }
    Ok(palette)
}

fn read_layers(c: &mut Cursor<'_>, edge: u8) -> Result<Vec<Layer>, PayloadError> {
    c.section("layers");
    let at = c.pos();
    let n = c.u16("layer count")?;
    if n == 0 {
        return Err(c.bad(at, "layer count", "0", "at least 1 (blocks)"));
    }
    let n = c.check_count(at, n as u64, MAX_LAYERS as u64, 3, "layer")?;
    let mut layers = Vec::with_capacity(n);
    let mut names = HashSet::with_capacity(n);
    for i in 0..n {
        c.item("layer", i as u64);
        let at = c.pos();
        let name = c.string("name")?;
        if name.is_empty() || names.contains(&name) {
            return Err(c.bad(at, "name", format!("'{name}'"), "a name no other layer has"));
        }
        if i == 0 && name != BLOCKS_LAYER {
            return Err(c.bad(at, "name", format!("'{name}'"), "'blocks' (layer 0)"));
        }
        let at = c.pos();
        let cell_scale = c.u8("cell scale")?;
        let ok = if i == 0 {
            cell_scale == 1
        } else {
            cell_scale != 0 && edge.is_multiple_of(cell_scale)
        };
        if !ok {
            return Err(c.bad(
                at,
                "cell scale",
                cell_scale.to_string(),
                if i == 0 {
                    "1 (blocks)".to_owned()
                } else {
                    format!("a divisor of the chunk edge {edge}")
                },
            ));
        }
        names.insert(name.clone());
        layers.push(Layer { name, cell_scale });
    }
    Ok(layers)
}

fn read_grids(c: &mut Cursor<'_>) -> Result<Vec<GridInfo>, PayloadError> {
    c.section("grids");
    let at = c.pos();
    let n = c.u32("grid count")?;
    let n = c.check_count(at, n as u64, MAX_GRIDS as u64, 80, "grid")?;
    let mut grids = Vec::with_capacity(n);
    for i in 0..n {
        c.item("grid", i as u64);
        let name = c.string("name")?;
        let at = c.pos();
        let p = c.i32("parent")?;
        let parent = match p {
            -1 => None,
            p if p >= 0 && (p as usize) < i => Some(p as u32),
            p => {
                return Err(c.bad(
                    at,
                    "parent",
                    p.to_string(),
                    format!("-1 or an earlier grid (0 ..= {})", i as i64 - 1),
                ))
            }
        };
        let mut transform = [[0f32; 4]; 3];
        for row in &mut transform {
            for v in row.iter_mut() {
                let at = c.pos();
                *v = c.f32("transform")?;
                if !v.is_finite() {
                    return Err(c.bad(at, "transform value", v.to_string(), "a finite number"));
                }
            }
        }
        let bounds_min = c.i32x3("bounds min")?;
        let at = c.pos();
        let bounds_size = c.i32x3("bounds size")?;
        for a in 0..3 {
            if bounds_size[a] < 0 || bounds_min[a] as i64 + bounds_size[a] as i64 > 1i64 << 31 {
                return Err(c.bad(
                    at,
                    "bounds size",
                    format!("{bounds_size:?} (min {bounds_min:?})"),
                    "sizes ≥ 0 with min + size ≤ 2^31",
                ));
            }
        }
        let attributes = read_pairs(c, "attribute")?;
        grids.push(GridInfo {
            name,
            parent,
            transform,
            bounds_min,
            bounds_size,
            attributes,
        });
    }
    Ok(grids)
}

fn read_extras(c: &mut Cursor<'_>, grids: usize) -> Result<Vec<Extra>, PayloadError> {
    c.section("extras");
    let at = c.pos();
    let n = c.u32("extra count")?;
    let n = c.check_count(at, n as u64, MAX_EXTRAS as u64, 12, "extra")?;
    let mut extras = Vec::with_capacity(n);
    for i in 0..n {
        c.item("extra", i as u64);
        let at = c.pos();
        let kb = c.u8("kind")?;
        let kind = ExtraKind::from_byte(kb).ok_or_else(|| {
            c.bad(
                at,
                "kind",
                kb.to_string(),
                "0 (source), 1 (blockEntity) or 2 (entity)",
            )
        })?;
        let at = c.pos();
        let g = c.i32("grid")?;
        let grid = match g {
            -1 => None,
            g if g >= 0 && (g as usize) < grids => Some(g as u32),
            g => {
                return Err(c.bad(
                    at,
                    "grid",
                    g.to_string(),
                    format!("-1 or a grid below {grids}"),
                ))
            }
        };
        let cell = if c.flag("cell flag")? {
            Some(c.i32x3("cell")?)
        } else {
            None
        };
        let blob = read_blob(c, "blob")?;
        extras.push(Extra {
            kind,
            grid,
            cell,
            blob,
        });
    }
    Ok(extras)
}

impl<'a> PayloadReader<'a> {
    /// Opens a payload from its shards (element 0 the payload entry, element n the entry
    /// `<payload>.<n>`), named `<payload>` in messages.
    pub fn open(shards: &[&'a [u8]]) -> Result<Self, PayloadError> {
        Self::open_named(UNNAMED, shards)
    }

    /// Opens a payload whose entry path is `name` (messages name shard n
    /// `<name>.<n>`). Parses and checks everything up to and including the region index,
    /// and that the regions tile the shards given exactly.
    pub fn open_named(name: &str, shards: &[&'a [u8]]) -> Result<Self, PayloadError> {
        if shards.is_empty() || shards.len() > MAX_SHARDS {
            return Err(PayloadError::Shards {
                file: name.to_owned(),
                problem: format!(
                    "{} shards were given; a payload has 1 ..= {MAX_SHARDS}",
                    shards.len()
                ),
            });
        }
        let files: Vec<String> = (0..shards.len())
            .map(|i| voxel_shard_name(name, i as u16))
            .collect();
        let s0 = shards[0];
        let mut c = Cursor::new(&files[0], s0, 0, s0.len(), "header");
        let header = read_header(&mut c)?;
        let palette = read_palette(&mut c)?;
        let layers = read_layers(&mut c, header.chunk_edge)?;
        let grids = read_grids(&mut c)?;
        let extras = read_extras(&mut c, grids.len())?;

        c.section("region index");
        let at = c.pos();
        let n = c.u32("region count")?;
        let n = c.check_count(at, n as u64, MAX_REGIONS as u64, REGION_ENTRY_LEN, "region")?;
        let index_end = c.pos() + n * REGION_ENTRY_LEN;
        let mut regions: Vec<RegionEntry> = Vec::with_capacity(n);
        // Where the next region must start: (shard, offset).
        let mut next = (0usize, index_end as u64);
        let min_region = (4 + CHUNK_ENTRY_LEN + MIN_RECORD_LEN) as u64;
        for i in 0..n {
            c.item("region", i as u64);
            let at = c.pos();
            let grid = c.u32("grid")?;
            if grid as usize >= grids.len() {
                return Err(c.bad(
                    at,
                    "grid",
                    grid.to_string(),
                    format!("a grid below {}", grids.len()),
                ));
            }
            let region = [c.i32("coordinate")?, c.i32("coordinate")?];
            if let Some(prev) = regions.last() {
                if (grid, region) <= (prev.grid, prev.region) {
                    return Err(c.bad(
                        at,
                        "grid and coordinates",
                        format!("{grid} {region:?}"),
                        format!(
                            "after the previous region's {} {:?} (ascending, unique)",
                            prev.grid, prev.region
                        ),
                    ));
                }
            }
            let at = c.pos();
            let shard = c.u16("shard")?;
            let shard_i = shard as usize;
            if shard_i != next.0 && shard_i != next.0 + 1 {
                return Err(c.bad(
                    at,
                    "shard",
                    shard.to_string(),
                    format!("{} or {} (shards are filled in order)", next.0, next.0 + 1),
                ));
            }
            if shard_i == next.0 + 1 {
                // The previous shard must end where its last region ends.
                let prev_len = shards.get(next.0).map_or(0, |s| s.len() as u64);
                if next.1 != prev_len {
                    return Err(PayloadError::Shards {
                        file: files[0].clone(),
                        problem: format!(
                            "shard {} is {prev_len} bytes but its regions end at byte {}",
                            next.0, next.1
                        ),
                    });
                }
                next = (shard_i, 0);
            }
            let Some(data) = shards.get(shard_i) else {
                return Err(PayloadError::Shards {
                    file: files[0].clone(),
                    problem: format!(
                        "region {i} is in shard {shard}, but only {} shards were given",
                        shards.len()
                    ),
                });
            };
            let at = c.pos();
            let offset = c.u64("offset")?;
            if offset != next.1 {
                return Err(c.bad(
                    at,
                    "offset",
                    offset.to_string(),
                    format!("{} (regions are back to back)", next.1),
                ));
            }
            let at = c.pos();
            let length = c.u64("length")?;
            let room = (data.len() as u64).saturating_sub(offset);
            if length < min_region || length > room {
                return Err(c.bad(
                    at,
                    "length",
                    length.to_string(),
                    format!("{min_region} ..= {room} (what shard {shard} holds from the offset)"),
                ));
            }
            next.1 = offset + length;
            regions.push(RegionEntry {
                grid,
                region,
                shard,
                offset,
                length,
            });
        }
        let last_len = shards.get(next.0).map_or(0, |s| s.len() as u64);
        if next.1 != last_len {
            return Err(PayloadError::Shards {
                file: files[0].clone(),
                problem: format!(
                    "shard {} is {last_len} bytes but its {} end at byte {}",
                    next.0,
                    if regions.is_empty() {
                        "sections"
                    } else {
                        "regions"
                    },
                    next.1
                ),
            });
        }
        if next.0 + 1 != shards.len() {
            return Err(PayloadError::Shards {
                file: files[0].clone(),
                problem: format!(
                    "{} shards were given but the region index uses {}",
                    shards.len(),
                    next.0 + 1
                ),
            });
        }
        let tables = (0..regions.len()).map(|_| OnceLock::new()).collect();
        Ok(PayloadReader {
            files,
            shards: shards.to_vec(),
            header,
            palette,
            layers,
            grids,
            extras,
            regions,
            tables,
        })
    }

    /// The payload's name (shard 0's entry path, or `<payload>`).
    pub fn name(&self) -> &str {
        &self.files[0]
    }
    /// The header.
    pub fn header(&self) -> &PayloadHeader {
        &self.header
    }
    /// The global palette.
    pub fn palette(&self) -> &[PaletteEntry] {
        &self.palette
    }
    /// The layers.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }
    /// The grids' descriptions.
    pub fn grids(&self) -> &[GridInfo] {
        &self.grids
    }
    /// The extras.
    pub fn extras(&self) -> &[Extra] {
        &self.extras
    }
    /// The region index, sorted by (grid, coordinates).
    pub fn regions(&self) -> &[RegionEntry] {
        &self.regions
    }
    /// How many shards the payload spans.
    pub fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// Cells along a chunk's edge in `layer`; `None` for a layer the payload lacks.
    pub fn layer_edge(&self, layer: u16) -> Option<usize> {
        let l = self.layers.get(layer as usize)?;
        Some((self.header.chunk_edge / l.cell_scale) as usize)
    }

    /// Cells in one chunk of `layer`: (edge / s)³.
    pub fn cells_per_chunk(&self, layer: u16) -> Option<usize> {
        self.layer_edge(layer).map(|e| e * e * e)
    }

    /// The region a chunk belongs to: floor(chunk / 32) on the two horizontal axes.
    pub fn region_of(&self, chunk: [i32; 3]) -> [i32; 2] {
        let [a, b] = self.header.axes.horizontal();
        [
            chunk[a].div_euclid(REGION_EDGE as i32),
            chunk[b].div_euclid(REGION_EDGE as i32),
        ]
    }

    /// The index of grid `grid`'s region at `region`, if it is stored.
    pub fn find_region(&self, grid: u32, region: [i32; 2]) -> Option<usize> {
        self.regions
            .binary_search_by(|r| (r.grid, r.region).cmp(&(grid, region)))
            .ok()
    }

    fn region(&self, region: usize) -> Result<&RegionEntry, PayloadError> {
        self.regions
            .get(region)
            .ok_or_else(|| PayloadError::OutOfRange {
                file: self.files[0].clone(),
                what: "region".into(),
                index: region,
                count: self.regions.len(),
            })
    }

    /// Region `region`'s chunk table, parsed and checked the first time it is asked for.
    pub fn chunk_table(&self, region: usize) -> Result<&ChunkTable, PayloadError> {
        let r = *self.region(region)?;
        let Some(cell) = self.tables.get(region) else {
            return Err(PayloadError::OutOfRange {
                file: self.files[0].clone(),
                what: "region".into(),
                index: region,
                count: self.tables.len(),
            });
        };
        if let Some(t) = cell.get() {
            return Ok(t);
        }
        let table = self.parse_table(region, &r)?;
        // Another thread may have won the race; both parsed the same bytes.
        let _ = cell.set(table);
        cell.get().ok_or_else(|| PayloadError::OutOfRange {
            file: self.files[0].clone(),
            what: "parsed chunk table of region".into(),
            index: region,
            count: 0,
        })
    }

    fn parse_table(&self, index: usize, r: &RegionEntry) -> Result<ChunkTable, PayloadError> {
        let shard = r.shard as usize;
        let data = self.shards.get(shard).copied().unwrap_or_default();
        let file = self.files.get(shard).map_or(UNNAMED, |s| s.as_str());
        let start = r.offset as usize;
        let end = (r.offset + r.length) as usize;
        let mut c = Cursor::new(file, data, start, end, "chunk table");
        c.item("region", index as u64);
        let at = c.pos();
        let n = c.u32("chunk count")?;
        if n == 0 {
            return Err(c.bad(
                at,
                "chunk count",
                "0",
                "at least 1 (empty regions are not stored)",
            ));
        }
        let n = c.check_count(
            at,
            n as u64,
            MAX_REGION_CHUNKS as u64,
            CHUNK_ENTRY_LEN + MIN_RECORD_LEN,
            "chunk",
        )?;
        let grid = self.grids.get(r.grid as usize);
        let mut next = (4 + n * CHUNK_ENTRY_LEN) as u64;
        let mut entries: Vec<ChunkEntry> = Vec::with_capacity(n);
        for i in 0..n {
            c.item("chunk table entry", i as u64);
            let at = c.pos();
            let layer = c.u16("layer")?;
            let Some(cells) = self.cells_per_chunk(layer) else {
                return Err(c.bad(
                    at,
                    "layer",
                    layer.to_string(),
                    format!("a layer below {}", self.layers.len()),
                ));
            };
            let chunk_at = c.pos();
            let chunk = c.i32x3("chunk")?;
            let key = ChunkKey { layer, chunk };
            if let Some(prev) = entries.last() {
                if key <= prev.key {
                    return Err(c.bad(
                        at,
                        "layer and chunk",
                        format!("{layer} {chunk:?}"),
                        format!(
                            "after the previous entry's {} {:?} (ascending, unique)",
                            prev.key.layer, prev.key.chunk
                        ),
                    ));
                }
            }
            if self.region_of(chunk) != r.region {
                return Err(c.bad(
                    chunk_at,
                    "chunk",
                    format!("{chunk:?} (in region {:?})", self.region_of(chunk)),
                    format!("a chunk of region {:?}", r.region),
                ));
            }
            if !grid.is_some_and(|g| g.chunk_in_bounds(chunk, self.header.chunk_edge)) {
                return Err(c.bad(
                    chunk_at,
                    "chunk",
                    format!("{chunk:?}"),
                    format!("a chunk that meets grid {}'s bounds", r.grid),
                ));
            }
            let at = c.pos();
            let offset = c.u32("offset")?;
            if offset as u64 != next {
                return Err(c.bad(
                    at,
                    "offset",
                    offset.to_string(),
                    format!("{next} (records are back to back, in table order)"),
                ));
            }
            let at = c.pos();
            let length = c.u32("length")?;
            let cap = chunk_body_cap(cells);
            let max = 5 + cap + cap / 255 + 16;
            let room = r.length - next;
            if (length as usize) < MIN_RECORD_LEN || length as usize > max || length as u64 > room {
                return Err(c.bad(
                    at,
                    "length",
                    length.to_string(),
                    format!(
                        "{MIN_RECORD_LEN} ..= {} (the record cap, and what the region holds)",
                        (max as u64).min(room)
                    ),
                ));
            }
            next += length as u64;
            entries.push(ChunkEntry {
                key,
                offset,
                length,
            });
        }
        if next != r.length {
            return Err(c.bad(
                c.pos(),
                "records' end",
                format!("byte {next} of the region"),
                format!("the region's end, byte {}", r.length),
            ));
        }
        Ok(ChunkTable { entries })
    }

    fn entry(
        &self,
        region: usize,
        chunk: usize,
    ) -> Result<(RegionEntry, ChunkEntry), PayloadError> {
        let r = *self.region(region)?;
        let t = self.chunk_table(region)?;
        let e = *t
            .entries
            .get(chunk)
            .ok_or_else(|| PayloadError::OutOfRange {
                file: self.files[0].clone(),
                what: format!("chunk of region {region}"),
                index: chunk,
                count: t.entries.len(),
            })?;
        Ok((r, e))
    }

    /// The raw bytes of one chunk record (codec tag, raw length, body): a plain byte
    /// range of its shard.
    pub fn chunk_record(&self, region: usize, chunk: usize) -> Result<&'a [u8], PayloadError> {
        let (r, e) = self.entry(region, chunk)?;
        let start = (r.offset + e.offset as u64) as usize;
        let data: &'a [u8] = self
            .shards
            .get(r.shard as usize)
            .copied()
            .unwrap_or_default();
        Ok(data
            .get(start..start + e.length as usize)
            .unwrap_or_default())
    }

    /// The raw body of one chunk record (decoded from LZ4 when the record is), checked
    /// against its raw length but not parsed, with the record's codec tag: for tools
    /// that report what the writer chose.
    pub fn chunk_body(
        &self,
        region: usize,
        chunk: usize,
    ) -> Result<(u8, std::borrow::Cow<'a, [u8]>), PayloadError> {
        let (r, e) = self.entry(region, chunk)?;
        let rec = self.chunk_record(region, chunk)?;
        let shard = r.shard as usize;
        let file = self.files.get(shard).map_or(UNNAMED, |s| s.as_str());
        let start = (r.offset + e.offset as u64) as usize;
        let data = self.shards.get(shard).copied().unwrap_or_default();
        let mut c = Cursor::new(file, data, start, start + rec.len(), "chunk record");
        c.item("chunk table entry", chunk as u64);
        let at = c.pos();
        let codec = c.u8("codec tag")?;
        let raw_at = c.pos();
        let raw = c.u32("raw length")? as usize;
        let cap = chunk_body_cap(self.cells_per_chunk(e.key.layer).unwrap_or(0));
        if raw > cap {
            return Err(c.bad(
                raw_at,
                "raw length",
                raw.to_string(),
                format!("at most {cap}"),
            ));
        }
        let body: &'a [u8] = rec.get(5..).unwrap_or_default();
        match codec {
            CODEC_STORED if body.len() == raw => Ok((codec, std::borrow::Cow::Borrowed(body))),
            CODEC_STORED => Err(c.bad(
                raw_at,
                "raw length",
                raw.to_string(),
                format!("the stored body's length, {}", body.len()),
            )),
            CODEC_LZ4 => {
                let mut out = vec![0u8; raw];
                match lz4_flex::block::decompress_into(body, &mut out) {
                    Ok(n) if n == raw => Ok((codec, std::borrow::Cow::Owned(out))),
                    _ => Err(c.bad(
                        raw_at + 4,
                        "LZ4 body",
                        "undecodable or of another length",
                        format!("an LZ4 block of {raw} bytes"),
                    )),
                }
            }
            t => Err(c.bad(at, "codec tag", t.to_string(), "0 (stored) or 1 (LZ4)")),
        }
    }

    /// Finds the stored chunk `key` of grid `grid`: (region, chunk) indices for
    /// [`PayloadReader::read_chunk`], or `None` when it is not stored (all `dh:empty`).
    pub fn find_chunk(
        &self,
        grid: u32,
        key: ChunkKey,
    ) -> Result<Option<(usize, usize)>, PayloadError> {
        let Some(r) = self.find_region(grid, self.region_of(key.chunk)) else {
            return Ok(None);
        };
        Ok(self.chunk_table(r)?.find(key).map(|c| (r, c)))
    }

    /// Decodes chunk `chunk` of region `region` into its cells' global palette indices,
    /// X fastest, then Y, then Z.
    pub fn read_chunk(&self, region: usize, chunk: usize) -> Result<Vec<u32>, PayloadError> {
        let mut out = Vec::new();
        self.read_chunk_into(region, chunk, &mut out)?;
        Ok(out)
    }

    /// [`PayloadReader::read_chunk`] into a caller's buffer (resized to the chunk's
    /// cells); returns the chunk's key.
    pub fn read_chunk_into(
        &self,
        region: usize,
        chunk: usize,
        out: &mut Vec<u32>,
    ) -> Result<ChunkKey, PayloadError> {
        let (r, e) = self.entry(region, chunk)?;
        let cells = self.cells_per_chunk(e.key.layer).unwrap_or(0);
        let shard = r.shard as usize;
        let data = self.shards.get(shard).copied().unwrap_or_default();
        let file = self.files.get(shard).map_or(UNNAMED, |s| s.as_str());
        let start = (r.offset + e.offset as u64) as usize;
        let mut c = Cursor::new(file, data, start, start + e.length as usize, "chunk record");
        c.item("chunk table entry", chunk as u64);
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            let (pal, lz) = &mut *s;
            decode_record(&c, cells, self.palette.len() as u32, out, pal, lz)
        })?;
        Ok(e.key)
    }

    /// Cells every stored chunk holds together: what [`PayloadReader::to_payload`]
    /// allocates (× 4 bytes). Parses every chunk table.
    pub fn stored_cells(&self) -> Result<u64, PayloadError> {
        let mut n = 0u64;
        for r in 0..self.regions.len() {
            for e in self.chunk_table(r)?.entries() {
                n += self.cells_per_chunk(e.key.layer).unwrap_or(0) as u64;
            }
        }
        Ok(n)
    }

    /// Reads every chunk into a [`VoxelPayload`]. The cells take 4 bytes each
    /// ([`PayloadReader::stored_cells`] says how many); a uniform chunk of 32³ cells is
    /// a dozen bytes on disk, so this can allocate far more than the input.
    pub fn to_payload(&self) -> Result<VoxelPayload, PayloadError> {
        let mut grids: Vec<Grid> = self.grids.iter().cloned().map(Grid::new).collect();
        for (ri, r) in self.regions.iter().enumerate() {
            let n = self.chunk_table(ri)?.entries().len();
            for ci in 0..n {
                let mut cells = Vec::new();
                let key = self.read_chunk_into(ri, ci, &mut cells)?;
                if let Some(g) = grids.get_mut(r.grid as usize) {
                    g.chunks.insert(key, cells);
                }
            }
        }
        Ok(VoxelPayload {
            header: self.header.clone(),
            palette: self.palette.clone(),
            layers: self.layers.clone(),
            grids,
            extras: self.extras.clone(),
        })
    }
}

/// Opens the shards and reads every chunk: [`PayloadReader::to_payload`].
pub fn decode_all(shards: &[&[u8]]) -> Result<VoxelPayload, PayloadError> {
    PayloadReader::open(shards)?.to_payload()
}
