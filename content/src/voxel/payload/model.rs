//! The payload in memory: [`VoxelPayload`] and its parts.

use std::collections::BTreeMap;

use crate::schema::voxel::Axes;

use super::{BLOCKS_LAYER, DEFAULT_CHUNK_EDGE};

/// A 3×4 row-major transform that leaves cells where they are.
pub const IDENTITY_TRANSFORM: [[f32; 4]; 3] = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

/// A source's up axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UpAxis {
    /// X up.
    X = 0,
    /// Y up (Minecraft; the engine's own).
    Y = 1,
    /// Z up (MagicaVoxel, Teardown).
    Z = 2,
}

impl UpAxis {
    /// The axis index, 0 ..= 2.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The header's axes byte: the up axis and the handedness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PayloadAxes {
    /// The up axis.
    pub up: UpAxis,
    /// Whether the source is left-handed.
    pub left_handed: bool,
}

impl PayloadAxes {
    /// The byte: bits 0–1 the up axis, bit 2 left-handed.
    pub fn to_byte(self) -> u8 {
        self.up as u8 | if self.left_handed { 4 } else { 0 }
    }

    /// Reads the byte; `None` when the up axis is 3 or a bit above 2 is set.
    pub fn from_byte(b: u8) -> Option<Self> {
        let up = match b & 3 {
            0 => UpAxis::X,
            1 => UpAxis::Y,
            2 => UpAxis::Z,
            _ => return None,
        };
        if b & !7 != 0 {
            return None;
        }
        Some(PayloadAxes {
            up,
            left_handed: b & 4 != 0,
        })
    }

    /// The two horizontal axes (the ones that are not up), in X, Y, Z order: the axes a
    /// region's two coordinates run along.
    pub fn horizontal(self) -> [usize; 2] {
        match self.up {
            UpAxis::X => [1, 2],
            UpAxis::Y => [0, 2],
            UpAxis::Z => [0, 1],
        }
    }

    /// The definition's `axes` value.
    pub fn to_schema(self) -> Axes {
        match (self.up, self.left_handed) {
            (UpAxis::X, false) => Axes::XUpRight,
            (UpAxis::X, true) => Axes::XUpLeft,
            (UpAxis::Y, false) => Axes::YUpRight,
            (UpAxis::Y, true) => Axes::YUpLeft,
            (UpAxis::Z, false) => Axes::ZUpRight,
            (UpAxis::Z, true) => Axes::ZUpLeft,
        }
    }

    /// From the definition's `axes` value.
    pub fn from_schema(a: Axes) -> Self {
        let (up, left_handed) = match a {
            Axes::XUpRight => (UpAxis::X, false),
            Axes::XUpLeft => (UpAxis::X, true),
            Axes::YUpRight => (UpAxis::Y, false),
            Axes::YUpLeft => (UpAxis::Y, true),
            Axes::ZUpRight => (UpAxis::Z, false),
            Axes::ZUpLeft => (UpAxis::Z, true),
        };
        PayloadAxes { up, left_handed }
    }
}

impl Default for PayloadAxes {
    /// Y up, right-handed.
    fn default() -> Self {
        PayloadAxes {
            up: UpAxis::Y,
            left_handed: false,
        }
    }
}

/// The header: whose rules the data follows and how cells become meters. (The magic,
/// version, flags and region edge are fixed by the format and not held here.)
#[derive(Debug, Clone, PartialEq)]
pub struct PayloadHeader {
    /// The platform ID (`com.mojang.minecraft`), or empty.
    pub platform: String,
    /// The source format (`vox`, `schem`, ...), or empty.
    pub format: String,
    /// The source's own version, or empty.
    pub platform_version: String,
    /// Meters per voxel; finite and > 0.
    pub voxel_size: f64,
    /// The up axis and handedness.
    pub axes: PayloadAxes,
    /// The origin cell.
    pub origin: [i32; 3],
    /// The chunk edge in cells: 8, 16 or 32.
    pub chunk_edge: u8,
    /// The meta's string pairs (`dataVersion`, `dropped`, ...), in order.
    pub meta: Vec<(String, String)>,
}

impl Default for PayloadHeader {
    /// No platform, 1 m voxels, Y up right-handed, origin 0, 32-cell chunks, no meta.
    fn default() -> Self {
        PayloadHeader {
            platform: String::new(),
            format: String::new(),
            platform_version: String::new(),
            voxel_size: 1.0,
            axes: PayloadAxes::default(),
            origin: [0; 3],
            chunk_edge: DEFAULT_CHUNK_EDGE,
            meta: Vec::new(),
        }
    }
}

/// A typed property value of a palette entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PropValue {
    /// Kind 0: a u8 0 or 1.
    Bool(bool),
    /// Kind 1: an i32.
    Int(i32),
    /// Kind 2: a string.
    String(String),
}

impl PropValue {
    /// The kind byte.
    pub fn kind(&self) -> u8 {
        match self {
            PropValue::Bool(_) => 0,
            PropValue::Int(_) => 1,
            PropValue::String(_) => 2,
        }
    }
}

/// One property of a palette entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Property {
    /// The key (`facing`).
    pub key: String,
    /// The value.
    pub value: PropValue,
}

impl Property {
    /// A string property.
    pub fn string(key: impl Into<String>, value: impl Into<String>) -> Self {
        Property {
            key: key.into(),
            value: PropValue::String(value.into()),
        }
    }
}

/// An opaque tagged byte string: a palette entry's raw source bytes, or an extra.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Blob {
    /// The format tag (`nbt-java`, `minecraft-legacy`, `magicavoxel.chunk.rOBJ`, ...).
    pub format: String,
    /// The bytes, uninterpreted.
    pub bytes: Vec<u8>,
}

/// One global palette entry: a block (or biome, fluid, ...) with its properties.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PaletteEntry {
    /// The namespace (`minecraft`, `dh`, `teardown`).
    pub ns: String,
    /// The id within the namespace (`oak_stairs`).
    pub id: String,
    /// The properties, in order.
    pub properties: Vec<Property>,
    /// The source's own bytes for this entry, when an exact re-export needs them.
    pub raw: Option<Blob>,
}

impl PaletteEntry {
    /// An entry with no properties and no raw blob.
    pub fn new(ns: impl Into<String>, id: impl Into<String>) -> Self {
        PaletteEntry {
            ns: ns.into(),
            id: id.into(),
            properties: Vec::new(),
            raw: None,
        }
    }

    /// `dh:empty`, the value of an absent cell and always entry 0.
    pub fn empty() -> Self {
        PaletteEntry::new("dh", "empty")
    }

    /// Whether this is exactly `dh:empty` (no properties, no raw blob).
    pub fn is_empty_entry(&self) -> bool {
        self.ns == "dh" && self.id == "empty" && self.properties.is_empty() && self.raw.is_none()
    }
}

/// A layer: a paletted grid of cells on the same chunks as the blocks.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layer {
    /// The name (`blocks`, `biome`, `fluid`, ...).
    pub name: String,
    /// Blocks per cell along each axis; divides the chunk edge.
    pub cell_scale: u8,
}

impl Layer {
    /// The `blocks` layer, at scale 1.
    pub fn blocks() -> Self {
        Layer {
            name: BLOCKS_LAYER.to_owned(),
            cell_scale: 1,
        }
    }
}

/// A grid's description, without its cells (what the reader knows at open).
#[derive(Debug, Clone, PartialEq)]
pub struct GridInfo {
    /// The name (a region's, a dimension's id, `palette 2`).
    pub name: String,
    /// The parent grid, an earlier index; `None` for a root.
    pub parent: Option<u32>,
    /// The 3×4 row-major transform from this grid's cells into the parent's.
    pub transform: [[f32; 4]; 3],
    /// The minimum cell of the bounds.
    pub bounds_min: [i32; 3],
    /// The bounds' size in cells on each axis (≥ 0).
    pub bounds_size: [i32; 3],
    /// String attributes, in order (`hidden`, `layer`, ...).
    pub attributes: Vec<(String, String)>,
}

impl GridInfo {
    /// A root grid with the identity transform, the given bounds and no attributes.
    pub fn new(name: impl Into<String>, bounds_min: [i32; 3], bounds_size: [i32; 3]) -> Self {
        GridInfo {
            name: name.into(),
            parent: None,
            transform: IDENTITY_TRANSFORM,
            bounds_min,
            bounds_size,
            attributes: Vec::new(),
        }
    }

    /// The value of the first attribute named `key`.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the chunk `chunk` (of `edge` blocks) intersects the bounds.
    pub fn chunk_in_bounds(&self, chunk: [i32; 3], edge: u8) -> bool {
        (0..3).all(|a| {
            let lo = chunk[a] as i64 * edge as i64;
            let hi = lo + edge as i64;
            let bmin = self.bounds_min[a] as i64;
            let bmax = bmin + self.bounds_size[a] as i64;
            lo < bmax && bmin < hi
        })
    }
}

/// Where a chunk sits: its layer and its chunk coordinates in its grid. The order (layer,
/// then X, Y, Z) is the chunk table's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkKey {
    /// The layer index.
    pub layer: u16,
    /// The chunk coordinates: cell / edge on each axis, rounded down.
    pub chunk: [i32; 3],
}

/// A grid with its cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// The grid's description.
    pub info: GridInfo,
    /// The chunks that hold cells, each (edge / s)³ global palette indices of its layer's
    /// cells, X fastest, then Y, then Z. An absent chunk is all `dh:empty` (0); an
    /// all-empty chunk may be present and is simply not written.
    pub chunks: BTreeMap<ChunkKey, Vec<u32>>,
}

impl Grid {
    /// A grid with no cells.
    pub fn new(info: GridInfo) -> Self {
        Grid {
            info,
            chunks: BTreeMap::new(),
        }
    }
}

/// What an extra is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExtraKind {
    /// 0: something of the source kept whole (a `.vox` chunk DH does not read).
    Source = 0,
    /// 1: a block entity (chest contents, a sign).
    BlockEntity = 1,
    /// 2: an entity (a mob, an item frame).
    Entity = 2,
}

impl ExtraKind {
    /// From the kind byte.
    pub fn from_byte(b: u8) -> Option<Self> {
        match b {
            0 => Some(ExtraKind::Source),
            1 => Some(ExtraKind::BlockEntity),
            2 => Some(ExtraKind::Entity),
            _ => None,
        }
    }
}

/// Data kept beside the cells, uninterpreted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Extra {
    /// What it is.
    pub kind: ExtraKind,
    /// The grid it belongs to; `None` for the container.
    pub grid: Option<u32>,
    /// The cell it sits in, if any.
    pub cell: Option<[i32; 3]>,
    /// Its bytes and their format tag.
    pub blob: Blob,
}

/// A whole voxel payload in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct VoxelPayload {
    /// The header.
    pub header: PayloadHeader,
    /// The global palette; entry 0 is `dh:empty`.
    pub palette: Vec<PaletteEntry>,
    /// The layers; layer 0 is `blocks` at scale 1.
    pub layers: Vec<Layer>,
    /// The grids; a parent comes before its children.
    pub grids: Vec<Grid>,
    /// The extras.
    pub extras: Vec<Extra>,
}

impl Default for VoxelPayload {
    /// The default header, a palette of `dh:empty`, the `blocks` layer, no grids.
    fn default() -> Self {
        VoxelPayload {
            header: PayloadHeader::default(),
            palette: vec![PaletteEntry::empty()],
            layers: vec![Layer::blocks()],
            grids: Vec::new(),
            extras: Vec::new(),
        }
    }
}

/// Floor division and modulo by a positive divisor.
fn split(cell: i32, edge: i32) -> (i32, usize) {
    (cell.div_euclid(edge), cell.rem_euclid(edge) as usize)
}

impl VoxelPayload {
    /// Cells along a chunk's edge in `layer` (chunk edge / cell scale); `None` for a
    /// layer that does not exist or a scale that does not divide the edge.
    pub fn layer_edge(&self, layer: u16) -> Option<usize> {
        let s = self.layers.get(layer as usize)?.cell_scale;
        if s == 0 || !self.header.chunk_edge.is_multiple_of(s) {
            return None;
        }
        Some((self.header.chunk_edge / s) as usize)
    }

    /// Cells in one chunk of `layer`: (edge / s)³.
    pub fn cells_per_chunk(&self, layer: u16) -> Option<usize> {
        self.layer_edge(layer).map(|e| e * e * e)
    }

    /// The chunk and the index within it of `cell`, in `layer`'s own cells.
    pub fn locate(&self, layer: u16, cell: [i32; 3]) -> Option<(ChunkKey, usize)> {
        let e = self.layer_edge(layer)?;
        let (cx, x) = split(cell[0], e as i32);
        let (cy, y) = split(cell[1], e as i32);
        let (cz, z) = split(cell[2], e as i32);
        Some((
            ChunkKey {
                layer,
                chunk: [cx, cy, cz],
            },
            x + e * (y + e * z),
        ))
    }

    /// Sets one cell of `grid`'s `layer` (in that layer's cells) to a global palette
    /// index. Returns false (and changes nothing) when the grid or layer does not exist.
    pub fn set_cell(&mut self, grid: usize, layer: u16, cell: [i32; 3], value: u32) -> bool {
        let (Some((key, i)), Some(n)) = (self.locate(layer, cell), self.cells_per_chunk(layer))
        else {
            return false;
        };
        let Some(g) = self.grids.get_mut(grid) else {
            return false;
        };
        if value == 0 && !g.chunks.contains_key(&key) {
            return true;
        }
        let chunk = g.chunks.entry(key).or_insert_with(|| vec![0; n]);
        if let Some(c) = chunk.get_mut(i) {
            *c = value;
        }
        true
    }

    /// The global palette index of one cell (0, `dh:empty`, where nothing is stored);
    /// `None` when the grid or layer does not exist.
    pub fn cell(&self, grid: usize, layer: u16, cell: [i32; 3]) -> Option<u32> {
        let (key, i) = self.locate(layer, cell)?;
        let g = self.grids.get(grid)?;
        Some(
            g.chunks
                .get(&key)
                .and_then(|c| c.get(i))
                .copied()
                .unwrap_or(0),
        )
    }

    /// The same payload without its all-empty chunks: what reading it back gives.
    pub fn canonical(&self) -> VoxelPayload {
        let mut p = self.clone();
        for g in &mut p.grids {
            g.chunks.retain(|_, cells| cells.iter().any(|&c| c != 0));
        }
        p
    }

    /// Cells stored (non-empty chunks × their cells), over every grid and layer.
    pub fn stored_cells(&self) -> u64 {
        self.grids
            .iter()
            .flat_map(|g| g.chunks.iter())
            .filter(|(_, c)| c.iter().any(|&v| v != 0))
            .map(|(_, c)| c.len() as u64)
            .sum()
    }
}
