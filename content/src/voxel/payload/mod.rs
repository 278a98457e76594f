//! The `.dh-vox.bin` payload: the canonical binary form of a voxel container (spec
//! `dh.voxel`, "The payload"), its writer and its ranged reader.
//!
//! # API
//!
//! * [`VoxelPayload`] is the whole container in memory: the [`PayloadHeader`], the global
//!   palette ([`PaletteEntry`], entry 0 always `dh:empty`), the [`Layer`]s (`blocks`
//!   first), the [`Grid`]s (each a [`GridInfo`] plus its cells, chunked sparsely by
//!   [`ChunkKey`]) and the [`Extra`]s. [`VoxelPayload::set_cell`] /
//!   [`VoxelPayload::cell`] address cells one at a time.
//! * [`encode`] / [`encode_with`] write a payload as its shards: element 0 is the payload
//!   entry itself, element n the sibling entry `<payload>.<n>`
//!   ([`crate::pallet::voxel_shard_name`]). The output is deterministic: the same model
//!   gives the same bytes. [`EncodeOptions::shard_bytes`] (default
//!   [`crate::pallet::VOXEL_SHARD_BYTES`]) sets when a new shard starts, so tests can force
//!   sharding with small data.
//! * [`PayloadWriter`] is the streaming form [`encode_with`] is built on: regions are added
//!   one at a time (a Minecraft world converts one region file at a time) and the palette
//!   and extras, which grow while converting, are given at [`PayloadWriter::finish`].
//! * [`PayloadReader`] reads by range: [`PayloadReader::open`] parses the header, palette,
//!   layers, grids, extras and region index; [`PayloadReader::chunk_table`] parses a
//!   region's chunk table the first time it is asked (cached, thread-safe);
//!   [`PayloadReader::read_chunk`] decodes one chunk record. [`decode_all`] reads every
//!   chunk back into a [`VoxelPayload`], for tools and tests.
//!
//! Every count and length read is checked against the bytes that remain and against a
//! cap (the `MAX_*` constants) before anything is allocated, so corrupt input is a
//! [`PayloadError`] naming the shard, the byte offset and what was expected there, never a
//! panic or an unbounded allocation.
//!
//! # Layout (version 2)
//!
//! Little-endian throughout. A *string* is a u16 byte length then that many UTF-8 bytes.
//! A *blob* is a string format tag, a u32 byte length and that many bytes. Shard 0 holds,
//! back to back, every section below; shards 1.. hold regions only.
//!
//! **Header**
//!
//! | field | encoding | rule |
//! | --- | --- | --- |
//! | magic | 4 bytes | `DHVX` |
//! | version | u16 | 2 |
//! | flags | u16 | 0: no flag is defined, and a reader rejects one it does not know |
//! | platform, format, platformVersion | 3 strings | any UTF-8 |
//! | voxel size | f64 | finite, > 0 (meters per voxel) |
//! | axes | u8 | bits 0–1 the up axis (0 X, 1 Y, 2 Z), bit 2 left-handed, bits 3–7 zero |
//! | origin | i32×3 | the origin cell |
//! | chunk edge | u8 | 8, 16 or 32 |
//! | region edge | u8 | 32 (chunks) |
//! | meta | u16 count, then per pair a key string and a value string | in order |
//!
//! **Global palette**: u32 count (1 ..= [`MAX_PALETTE`]), then per entry the namespace
//! string, the id string, a u16 property count, per property a key string, a u8 kind
//! (0 bool, 1 int, 2 string) and its value (bool: u8 0 or 1; int: i32; string: string),
//! then a u8 0 (no raw blob) or 1 followed by the raw blob (format tag and the source's
//! own bytes). Entry 0 is `dh:empty` with no properties and no raw blob.
//!
//! **Layers**: u16 count (1 ..= [`MAX_LAYERS`]), then per layer a name string (non-empty,
//! unique) and a u8 cell scale s that divides the chunk edge. Layer 0 is `blocks` at
//! scale 1. A layer at scale s has cells of s×s×s blocks, so its chunks hold
//! (edge / s)³ cells covering the same space as the block chunks. Every layer indexes the
//! one global palette.
//!
//! **Grids**: u32 count (≤ [`MAX_GRIDS`]), then per grid a name string, an i32 parent
//! (-1 for a root, else the index of an earlier grid), the 3×4 row-major f32 transform
//! into the parent's cells (finite), i32×3 bounds min and i32×3 bounds size (each ≥ 0,
//! min + size ≤ 2³¹), and a u16 count of attribute string pairs (`hidden` marks a grid a
//! viewer leaves out by default).
//!
//! **Extras**: u32 count (≤ [`MAX_EXTRAS`]), then per extra a u8 kind (0 source,
//! 1 blockEntity, 2 entity), an i32 grid (-1 for the container, else a grid index), a u8
//! 0 (no cell) or 1 followed by an i32×3 cell, and the blob. Nothing in it is interpreted.
//!
//! **Region index**: u32 count (≤ [`MAX_REGIONS`]), then per region (30 bytes) the u32
//! grid, the i32 region coordinates on the two horizontal axes (the two that are not up,
//! in X, Y, Z order: (Y, Z) for X up, (X, Z) for Y up, (X, Y) for Z up), the u16 shard, a
//! u64 offset counted from its shard's first byte, and a u64 length. Entries are sorted
//! strictly ascending by (grid, first coordinate, second coordinate). Regions are laid
//! out in index order, back to back: shard 0's first region starts right after the
//! region index, shard n's at its byte 0, every shard ends where its last region ends,
//! and shard numbers start at 0 and rise by at most one from one entry to the next.
//!
//! **Region**: a u32 chunk count (1 ..= [`MAX_REGION_CHUNKS`]), then per chunk (22
//! bytes) a u16 layer, the i32×3 chunk coordinates, a u32 offset counted from the
//! region's first byte and a u32 length; then the chunk records, back to back in table
//! order, the first right after the table and the last ending at the region's end. The
//! table is sorted strictly ascending by [`ChunkKey`] (layer, then chunk X, Y, Z). A
//! region spans 32 × 32 chunks on the horizontal axes (a chunk belongs to region
//! floor(chunk / 32) on each) and the whole height; every chunk in it intersects its
//! grid's bounds.
//!
//! **Chunk record**: a u8 codec tag (0 stored, 1 LZ4 block), the u32 raw length of the
//! body, then the body: the raw bytes when stored, an LZ4 block (no frame, no size
//! prefix) that decodes to exactly the raw length when LZ4. The raw length is at most
//! [`chunk_body_cap`] of the layer's cell count. A body is a u8 mode, a local palette (u16
//! count k, then k u32 global palette indices) and the cells, n = (edge / s)³ of them:
//!
//! * **0 uniform**: k = 1, no cell data. The one entry is not 0 (`dh:empty`): an
//!   all-empty chunk is never stored.
//! * **1 packed**: 2 ≤ k ≤ n, one local index per cell at w bits, w the smallest of 1, 2,
//!   4, 8, 16 with k ≤ 2^w, so a value never spans two 64-bit words. Cell i sits in u64
//!   word i / (64 / w) at bit (i mod (64 / w)) × w, least significant first; the
//!   ⌈n / (64 / w)⌉ words are little-endian, unused high bits of the last word are zero.
//!   Cells run X fastest, then Y, then Z: i = x + e·(y + e·z), e = edge / s.
//! * **2 sparse**: k ≥ 2, a u16 pair count p (1 ..= n - 1), then p pairs of a u16 cell
//!   index i (as above) and a u16 local index in 1 .. k, strictly ascending by cell.
//!   Every cell not listed holds local entry 0.
//!
//! # What the writer chooses
//!
//! * The local palette puts the chunk's most common global index first (the smallest
//!   index on a tie), then the rest in ascending order.
//! * The mode is the one with the smallest raw body: uniform when k = 1, otherwise packed
//!   unless sparse is strictly smaller.
//! * The codec is LZ4 when the compressed body is strictly smaller than the raw body,
//!   otherwise stored.
//! * Shards: regions fill the current shard in index order; once a shard holds at least
//!   [`EncodeOptions::shard_bytes`] bytes of regions, the next region starts a new shard.
//!   A region is never split, and no shard may exceed
//!   [`crate::pallet::MAX_ENTRY_LEN`].

mod bytes;
mod chunk;
mod error;
mod index;
mod model;
mod read;
mod write;

pub use chunk::{
    chunk_body_cap, decode_chunk_body, encode_chunk_body, CODEC_LZ4, CODEC_STORED, MODE_PACKED,
    MODE_SPARSE, MODE_UNIFORM,
};
pub use error::PayloadError;
pub use index::{ChunkEntry, RegionEntry};
pub use model::{
    Blob, ChunkKey, Extra, ExtraKind, Grid, GridInfo, Layer, PaletteEntry, PayloadAxes,
    PayloadHeader, PropValue, Property, UpAxis, VoxelPayload, IDENTITY_TRANSFORM,
};
pub use read::{decode_all, ChunkTable, PayloadReader};
pub use write::{
    encode, encode_with, EncodeOptions, EncodedRegion, Filled, PayloadWriter, RegionEncoder,
};

/// The four bytes every payload starts with.
pub const MAGIC: [u8; 4] = *b"DHVX";
/// The payload format version this module reads and writes.
pub const VERSION: u16 = 2;
/// The chunk edges a payload may use, in cells.
pub const CHUNK_EDGES: [u8; 3] = [8, 16, 32];
/// The chunk edge when an importer has no reason to pick another (a Minecraft world
/// uses 16, so a chunk is a section).
pub const DEFAULT_CHUNK_EDGE: u8 = 32;
/// A region's edge on each horizontal axis, in chunks.
pub const REGION_EDGE: u8 = 32;
/// The name of layer 0.
pub const BLOCKS_LAYER: &str = "blocks";

/// Most global palette entries a payload may hold.
pub const MAX_PALETTE: u32 = 1 << 22;
/// Most layers a payload may hold.
pub const MAX_LAYERS: u16 = 256;
/// Most grids a payload may hold.
pub const MAX_GRIDS: u32 = 1 << 20;
/// Most extras a payload may hold.
pub const MAX_EXTRAS: u32 = 1 << 24;
/// Most regions a payload may hold.
pub const MAX_REGIONS: u32 = 1 << 24;
/// Most shards a payload may span (shard numbers are u16).
pub const MAX_SHARDS: usize = 1 << 16;
/// Most chunk records (over every layer) one region may hold.
pub const MAX_REGION_CHUNKS: u32 = 1 << 22;
/// Longest blob (raw palette blob or extra) a payload may hold, in bytes.
pub const MAX_BLOB_LEN: u32 = 1 << 30;

/// The name used in messages for a payload opened without one.
pub const UNNAMED: &str = "<payload>";

/// Most cells the fuzz target decodes into a whole model (4 bytes each).
const FUZZ_MAX_CELLS: u64 = 1 << 22;

/// Cuts fuzz input into shards: the first byte b gives n = max(b % 4, 1) shards; then
/// come n - 1 u32 lengths of shards 1 .. n, then shard 0 (whatever those leave), then
/// shards 1 .. n in order. Lengths that do not fit give one shard of everything after
/// the first byte.
pub fn split_fuzz_shards(data: &[u8]) -> Vec<&[u8]> {
    let Some((&sel, rest)) = data.split_first() else {
        return vec![data];
    };
    let n = (sel as usize % 4).max(1);
    let lens: Option<Vec<usize>> = (0..n - 1)
        .map(|i| {
            let b = rest.get(i * 4..i * 4 + 4)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        })
        .collect();
    let body = rest.get((n - 1) * 4..).unwrap_or_default();
    let tail: Option<usize> = lens.as_ref().and_then(|l| {
        l.iter()
            .try_fold(0usize, |a, &x| a.checked_add(x))
            .filter(|&t| t <= body.len())
    });
    let (Some(lens), Some(tail)) = (lens, tail) else {
        return vec![rest];
    };
    let mut shards = vec![&body[..body.len() - tail]];
    let mut at = body.len() - tail;
    for l in lens {
        shards.push(&body[at..at + l]);
        at += l;
    }
    shards
}

/// The inverse of [`split_fuzz_shards`]: the fuzz input that cuts into `shards` (at
/// most 3 of them; more are not representable and come back as the first three's
/// lengths over all the bytes).
pub fn join_fuzz_shards(shards: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![shards.len().clamp(1, 3) as u8];
    for s in shards.iter().skip(1) {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    }
    for s in shards {
        out.extend_from_slice(s);
    }
    out
}

/// Cuts `data` into shards ([`split_fuzz_shards`]), opens them and reads every chunk,
/// ignoring every error. A payload small enough to read whole is written again (one
/// region per shard), and what was written must read back to the same model and write
/// to the same bytes. The body of the `payload` cargo-fuzz target: it must never panic,
/// and it allocates at most in proportion to the input (and [`FUZZ_MAX_CELLS`]).
pub(crate) fn fuzz_read(data: &[u8]) {
    let shards = split_fuzz_shards(data);
    let Ok(reader) = PayloadReader::open(&shards) else {
        return;
    };
    let mut cells = Vec::new();
    for r in 0..reader.regions().len() {
        if let Ok(table) = reader.chunk_table(r) {
            for c in 0..table.entries().len() {
                let _ = reader.chunk_record(r, c);
                let _ = reader.read_chunk_into(r, c, &mut cells);
            }
        }
    }
    if !matches!(reader.stored_cells(), Ok(n) if n <= FUZZ_MAX_CELLS) {
        return;
    }
    let Ok(model) = reader.to_payload() else {
        return;
    };
    let opts = EncodeOptions { shard_bytes: 1 };
    let out = encode_with(&model, &opts).expect("a payload that reads writes again");
    let views: Vec<&[u8]> = out.iter().map(|s| s.as_slice()).collect();
    let again = decode_all(&views).expect("a written payload reads back");
    assert!(again == model.canonical(), "a payload read back differs");
    let out2 = encode_with(&again, &opts).expect("a read payload writes again");
    assert!(out2 == out, "a payload rewritten differs");
}
