//! The region index and the chunk tables, the two indexes the writer lays down and the
//! reader walks: their entries and their sizes on disk.

use super::model::ChunkKey;

/// Bytes of one region index entry.
pub(crate) const REGION_ENTRY_LEN: usize = 4 + 4 + 4 + 2 + 8 + 8;
/// Bytes of one chunk table entry.
pub(crate) const CHUNK_ENTRY_LEN: usize = 2 + 12 + 4 + 4;

/// One entry of the region index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegionEntry {
    /// The grid the region belongs to.
    pub grid: u32,
    /// The region's coordinates on the two horizontal axes (chunk / 32, rounded down).
    pub region: [i32; 2],
    /// The shard holding it: 0 the payload entry, n the entry `<payload>.<n>`.
    pub shard: u16,
    /// Its first byte, counted from its shard's first byte.
    pub offset: u64,
    /// Its length in bytes.
    pub length: u64,
}

/// One entry of a region's chunk table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChunkEntry {
    /// The chunk's layer and coordinates.
    pub key: ChunkKey,
    /// Its record's first byte, counted from the region's first byte.
    pub offset: u32,
    /// Its record's length in bytes.
    pub length: u32,
}
