//! Where a streamed volume's cells come from: the payload's bytes read by range, the
//! decoded-cell cache (`client.voxel.cellCacheMb`, least recently used first out) and the
//! per-job chunk windows the mesher and the light field read through it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use dh_content::pallet::{voxel_shard_name, Pallet};
use dh_content::voxel::payload::{ChunkKey, PayloadError, PayloadReader};

use crate::voxel::{ChunkSource, ChunkView};

/// The bytes of one payload: its shards, element 0 the payload entry, element n the
/// entry `<payload>.<n>`. A compiled pallet's entries are memory-mapped, so the shards
/// are plain ranges of the map and nothing is read until a range is touched.
pub trait PayloadBytes: Send + Sync {
    /// The payload's entry path, for messages.
    fn name(&self) -> &str;
    /// The shards, in order.
    fn shards(&self) -> Vec<&[u8]>;
}

/// A payload held in memory (tools, tests, an editor's unsaved container).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedPayload {
    /// The entry path, for messages.
    pub name: String,
    /// The shards ([`dh_content::voxel::payload::encode`]'s output).
    pub shards: Vec<Vec<u8>>,
}

impl PayloadBytes for OwnedPayload {
    fn name(&self) -> &str {
        &self.name
    }

    fn shards(&self) -> Vec<&[u8]> {
        self.shards.iter().map(Vec::as_slice).collect()
    }
}

/// A payload inside a mounted pallet: the entry `path` and its sibling shards
/// `<path>.1`, `<path>.2`, … for as long as the pallet has them, each a range of the
/// pallet's memory map.
#[derive(Debug, Clone)]
pub struct PalletPayload {
    /// The pallet.
    pub pallet: Arc<Pallet>,
    /// The payload entry's path (`worlds/spawn.dh-vox.bin`).
    pub path: String,
}

impl PayloadBytes for PalletPayload {
    fn name(&self) -> &str {
        &self.path
    }

    fn shards(&self) -> Vec<&[u8]> {
        let mut out = Vec::new();
        for n in 0..=u16::MAX {
            match self.pallet.range(&voxel_shard_name(&self.path, n)) {
                Ok(r) => out.push(r),
                Err(_) => break,
            }
        }
        out
    }
}

/// An open payload: the reader over the byte source it keeps alive.
pub struct OpenPayload {
    // Declared before `bytes`, so it is dropped first: it borrows from `bytes`.
    reader: PayloadReader<'static>,
    bytes: Arc<dyn PayloadBytes>,
}

impl std::fmt::Debug for OpenPayload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenPayload")
            .field("name", &self.bytes.name())
            .field("reader", &self.reader)
            .finish()
    }
}

impl OpenPayload {
    /// Opens `bytes`: parses the header, palette, layers, grids, extras and the region
    /// index, and nothing else (chunk tables are read the first time a region is needed,
    /// chunk records when they are meshed).
    pub fn open(bytes: Arc<dyn PayloadBytes>) -> Result<OpenPayload, PayloadError> {
        let shards: Vec<&[u8]> = bytes.shards();
        // SAFETY: every slice in `shards` borrows from the object behind `bytes`, which
        // this struct keeps alive in its `bytes` field for at least as long as `reader`
        // (declared first, so dropped first) and never hands out mutably (an `Arc` we
        // never call `get_mut` on). The slices therefore stay valid for the reader's
        // whole life; the `'static` is never exposed: `reader()` reborrows it for the
        // lifetime of `&self`.
        let shards: Vec<&'static [u8]> = shards
            .into_iter()
            .map(|s| unsafe { std::mem::transmute::<&[u8], &'static [u8]>(s) })
            .collect();
        let reader = PayloadReader::open_named(bytes.name(), &shards)?;
        Ok(OpenPayload { reader, bytes })
    }

    /// The reader.
    pub fn reader<'s>(&'s self) -> &'s PayloadReader<'s> {
        &self.reader
    }
}

/// One decoded chunk in the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CachedChunk {
    /// Not stored: all `dh:empty`.
    Empty,
    /// Its cells (edge³ global palette indices).
    Cells(Vec<u32>),
}

impl CachedChunk {
    fn bytes(&self) -> usize {
        match self {
            CachedChunk::Empty => 16,
            CachedChunk::Cells(c) => c.len() * 4 + 16,
        }
    }

    /// The chunk as a mesher reads it.
    pub fn view(&self) -> ChunkView<'_> {
        match self {
            CachedChunk::Empty => ChunkView::Empty,
            CachedChunk::Cells(c) => ChunkView::Cells(c),
        }
    }
}

#[derive(Debug, Default)]
struct Lru {
    map: HashMap<[i32; 3], (Arc<CachedChunk>, u64)>,
    order: BTreeMap<u64, [i32; 3]>,
    clock: u64,
    bytes: usize,
}

/// A volume's decoded cells, shared by its meshing and light jobs, holding at most
/// `capacity` bytes (`client.voxel.cellCacheMb`); the least recently used chunk goes
/// first. A chunk handed out stays valid for whoever holds it after it is evicted.
#[derive(Debug)]
pub struct CellCache {
    lru: Mutex<Lru>,
    capacity: usize,
}

impl CellCache {
    /// An empty cache of `capacity` bytes.
    pub fn new(capacity: usize) -> CellCache {
        CellCache {
            lru: Mutex::new(Lru::default()),
            capacity,
        }
    }

    /// Bytes of decoded cells held.
    pub fn bytes(&self) -> usize {
        self.lru.lock().map_or(0, |l| l.bytes)
    }

    /// Chunks held.
    pub fn len(&self) -> usize {
        self.lru.lock().map_or(0, |l| l.map.len())
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The chunk at `chunk`, decoded by `decode` on a miss (outside the lock, so two
    /// jobs may decode the same chunk at once; the second result is kept).
    pub fn get(&self, chunk: [i32; 3], decode: impl FnOnce() -> CachedChunk) -> Arc<CachedChunk> {
        if let Ok(mut l) = self.lru.lock() {
            l.clock += 1;
            let now = l.clock;
            if let Some((c, stamp)) = l.map.get_mut(&chunk) {
                let old = std::mem::replace(stamp, now);
                let c = c.clone();
                l.order.remove(&old);
                l.order.insert(now, chunk);
                return c;
            }
        }
        let c = Arc::new(decode());
        if let Ok(mut l) = self.lru.lock() {
            l.clock += 1;
            let now = l.clock;
            let size = c.bytes();
            if let Some((_, old)) = l.map.insert(chunk, (c.clone(), now)) {
                l.order.remove(&old);
                l.bytes = l.bytes.saturating_sub(size);
            }
            l.order.insert(now, chunk);
            l.bytes += size;
            while l.bytes > self.capacity {
                let Some((_, key)) = l.order.pop_first() else {
                    break;
                };
                if let Some((gone, _)) = l.map.remove(&key) {
                    l.bytes = l.bytes.saturating_sub(gone.bytes());
                }
            }
        }
        c
    }

    /// Drops everything.
    pub fn clear(&self) {
        if let Ok(mut l) = self.lru.lock() {
            *l = Lru::default();
        }
    }
}

/// Where a volume's chunks are decoded from.
pub enum CellOrigin {
    /// A payload read by range: grid `grid`'s `blocks` layer.
    Payload {
        /// The open payload.
        payload: Arc<OpenPayload>,
        /// The grid.
        grid: u32,
    },
    /// Chunks already decoded in memory.
    Chunks(Arc<dyn ChunkSource + Send + Sync>),
}

impl std::fmt::Debug for CellOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CellOrigin::Payload { payload, grid } => f
                .debug_struct("Payload")
                .field("payload", payload)
                .field("grid", grid)
                .finish(),
            CellOrigin::Chunks(c) => f.debug_tuple("Chunks").field(&c.edge()).finish(),
        }
    }
}

/// A volume's cells: where they come from, the cache in front of a payload, and the
/// first decoding error (a corrupt chunk reads as empty and is reported once).
#[derive(Debug)]
pub struct VolumeCells {
    /// Where chunks come from.
    pub origin: CellOrigin,
    /// The decoded-cell cache (payloads only).
    pub cache: CellCache,
    /// Cells along a chunk's edge.
    pub edge: usize,
    /// The first chunk that failed to decode, not yet reported.
    pub error: Mutex<Option<String>>,
    reported: std::sync::atomic::AtomicBool,
}

impl VolumeCells {
    /// Cells from `origin` with chunks of `edge` cells and a cache of `cache_bytes`.
    pub fn new(origin: CellOrigin, edge: usize, cache_bytes: usize) -> VolumeCells {
        VolumeCells {
            origin,
            cache: CellCache::new(cache_bytes),
            edge,
            error: Mutex::new(None),
            reported: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn decode(&self, payload: &OpenPayload, grid: u32, chunk: [i32; 3]) -> CachedChunk {
        let r = payload.reader();
        let key = ChunkKey { layer: 0, chunk };
        let read = r.find_chunk(grid, key).and_then(|found| match found {
            None => Ok(CachedChunk::Empty),
            Some((region, index)) => r.read_chunk(region, index).map(CachedChunk::Cells),
        });
        match read {
            Ok(c) => c,
            Err(e) => {
                if !self
                    .reported
                    .swap(true, std::sync::atomic::Ordering::Relaxed)
                {
                    if let Ok(mut slot) = self.error.lock() {
                        *slot = Some(format!(
                            "chunk {chunk:?} of grid {grid} does not decode and draws as empty: {e}"
                        ));
                    }
                }
                CachedChunk::Empty
            }
        }
    }

    /// The chunk at `chunk`.
    pub fn chunk(&self, chunk: [i32; 3]) -> Arc<CachedChunk> {
        match &self.origin {
            CellOrigin::Payload { payload, grid } => {
                self.cache.get(chunk, || self.decode(payload, *grid, chunk))
            }
            CellOrigin::Chunks(src) => Arc::new(match src.chunk(chunk) {
                ChunkView::Empty => CachedChunk::Empty,
                ChunkView::Uniform(v) => CachedChunk::Cells(vec![v; self.edge.pow(3)]),
                ChunkView::Cells(c) => CachedChunk::Cells(c.to_vec()),
            }),
        }
    }
}

/// The chunks one job may read (a region and its one-chunk border, or the columns a
/// light job lights and their border), each decoded through the volume's cache the first
/// time the job reads it. Chunks outside the window read as empty.
pub struct ChunkWindow<'a> {
    cells: &'a VolumeCells,
    lo: [i32; 3],
    size: [usize; 3],
    slots: Vec<OnceLock<Arc<CachedChunk>>>,
    /// When reading an in-memory source, it is read directly (no copy).
    direct: Option<&'a (dyn ChunkSource + Send + Sync)>,
}

impl<'a> ChunkWindow<'a> {
    /// The window over chunks `lo ..= hi` of `cells`.
    pub fn new(cells: &'a VolumeCells, lo: [i32; 3], hi: [i32; 3]) -> ChunkWindow<'a> {
        let size = [0, 1, 2].map(|a| (hi[a] - lo[a] + 1).max(0) as usize);
        let n = size[0] * size[1] * size[2];
        let direct = match &cells.origin {
            CellOrigin::Chunks(src) => Some(src.as_ref()),
            CellOrigin::Payload { .. } => None,
        };
        ChunkWindow {
            cells,
            lo,
            size,
            slots: if direct.is_some() {
                Vec::new()
            } else {
                (0..n).map(|_| OnceLock::new()).collect()
            },
            direct,
        }
    }

    fn index(&self, chunk: [i32; 3]) -> Option<usize> {
        let mut i = 0;
        for a in (0..3).rev() {
            let d = chunk[a] - self.lo[a];
            if d < 0 || d as usize >= self.size[a] {
                return None;
            }
            i = i * self.size[a] + d as usize;
        }
        Some(i)
    }
}

impl ChunkSource for ChunkWindow<'_> {
    fn edge(&self) -> usize {
        self.cells.edge
    }

    fn chunk(&self, chunk: [i32; 3]) -> ChunkView<'_> {
        let Some(i) = self.index(chunk) else {
            return ChunkView::Empty;
        };
        if let Some(d) = self.direct {
            return d.chunk(chunk);
        }
        match self.slots.get(i) {
            Some(slot) => slot.get_or_init(|| self.cells.chunk(chunk)).view(),
            None => ChunkView::Empty,
        }
    }
}
