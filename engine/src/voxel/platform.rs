//! The workspace's platform pallet as the voxel looks read it (spec `dh.voxel`, "How a
//! block is drawn", "Models in the chunk mesh"): the mounted pallet whose id equals a
//! container's `platform`, its `blocks/<id>.dh-block` parsed on demand (each once), its
//! textures by pallet path; and the [`PaletteCache`] that keeps a volume's resolved
//! palette while every file the pallet was read from is unchanged (size and write time).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use dh_content::pallet::Pallet;
use dh_content::schema::block::{parse_block_def, BlockDef};
use dh_content::voxel::blocks::{block_path, PlatformPallet};
use dh_content::voxel::payload::PaletteEntry;

use super::cell::prop_text;
use super::looks::{BlockLight, PalletLight, VoxelLooks};
use crate::catalog::Catalog;
use crate::source_pallet::{stamps, Fingerprint};

/// A platform pallet: its blocks and textures, read from a mounted pallet.
pub struct PlatformBlocks {
    id: String,
    namespace: String,
    pallet: Arc<Pallet>,
    origin: Option<PathBuf>,
    stamps: Fingerprint,
    defs: Mutex<HashMap<String, Option<Arc<BlockDef>>>>,
    errors: Mutex<Vec<String>>,
    /// How many mounted pallets were looked at to find it.
    pub searched: usize,
    /// How long finding (and, when reopened, reading) it took, in milliseconds.
    pub search_ms: f64,
}

impl std::fmt::Debug for PlatformBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlatformBlocks")
            .field("id", &self.id)
            .field("namespace", &self.namespace)
            .field("origin", &self.origin)
            .finish()
    }
}

/// The namespace a platform pallet answers for: the last part of its id
/// (`com.mojang.minecraft` answers for `minecraft`).
pub fn platform_namespace(platform: &str) -> &str {
    platform.rsplit('.').next().unwrap_or(platform)
}

impl PlatformBlocks {
    /// The platform pallet `platform` among `catalog`'s mounted pallets, `None` when none
    /// has that id.
    pub fn find(catalog: &Catalog, platform: &str) -> Option<PlatformBlocks> {
        let t = std::time::Instant::now();
        let searched = catalog
            .ids()
            .position(|id| id == platform)
            .map_or(catalog.len(), |i| i + 1);
        let pallet = catalog.pallet_shared(platform)?;
        let origin = catalog.origin(platform).map(Path::to_path_buf);
        let mut p = PlatformBlocks::new(pallet, origin);
        p.searched = searched;
        p.search_ms = t.elapsed().as_secs_f64() * 1e3;
        Some(p)
    }

    /// `pallet` as a platform pallet, mounted from `origin` (a `.pallet` file or a source
    /// folder; `None` for one held in memory, which never changes).
    pub fn new(pallet: Arc<Pallet>, origin: Option<PathBuf>) -> PlatformBlocks {
        let id = pallet.manifest().id.clone();
        let namespace = platform_namespace(&id).to_string();
        let stamps = origin.as_deref().map(stamps).unwrap_or_default();
        PlatformBlocks {
            id,
            namespace,
            pallet,
            origin,
            stamps,
            defs: Mutex::new(HashMap::new()),
            errors: Mutex::new(Vec::new()),
            searched: 1,
            search_ms: 0.0,
        }
    }

    /// The sizes and write times of the files it was read from, as they were.
    pub fn stamps(&self) -> &Fingerprint {
        &self.stamps
    }

    /// The sizes and write times of those files now.
    pub fn current_stamps(&self) -> Fingerprint {
        self.origin.as_deref().map(stamps).unwrap_or_default()
    }

    /// The same pallet read again from where it was mounted (it was rebuilt), or an
    /// error naming the file.
    pub fn reopen(&self) -> Result<PlatformBlocks, String> {
        let Some(origin) = &self.origin else {
            return Err(format!(
                "platform pallet '{}' was not mounted from a file",
                self.id
            ));
        };
        let t = std::time::Instant::now();
        let pallet = if crate::source_pallet::is_source_folder(origin) {
            let built = crate::source_pallet::build_folder(origin).map_err(|e| e.to_string())?;
            Pallet::from_bytes(built.bytes.as_ref().clone())
        } else {
            Pallet::open(origin)
        }
        .map_err(|e| format!("{}: {e}", origin.display()))?;
        let mut p = PlatformBlocks::new(Arc::new(pallet), Some(origin.clone()));
        p.searched = 1;
        p.search_ms = t.elapsed().as_secs_f64() * 1e3;
        Ok(p)
    }

    /// Block `id`'s definition, parsed the first time it is asked for; `None` when the
    /// pallet has none or it does not read (the error is kept for [`Self::take_errors`]).
    pub fn block(&self, id: &str) -> Option<Arc<BlockDef>> {
        let mut defs = self.defs.lock().ok()?;
        if let Some(d) = defs.get(id) {
            return d.clone();
        }
        let path = block_path(id);
        let def = match self.pallet.read(&path) {
            Err(_) => None,
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                match parse_block_def(&path, &text) {
                    Ok(d) => Some(Arc::new(d)),
                    Err(diags) => {
                        if let Ok(mut e) = self.errors.lock() {
                            e.push(format!(
                                "platform pallet '{}': {path} does not read; the block is drawn from the block table: {diags}",
                                self.id
                            ));
                        }
                        None
                    }
                }
            }
        };
        defs.insert(id.to_string(), def.clone());
        def
    }

    /// The bytes of texture `path` (a pallet path, `/textures/...`), `None` when absent.
    pub fn texture(&self, path: &str) -> Option<Vec<u8>> {
        let p = path.strip_prefix('/').unwrap_or(path);
        self.pallet.read(p).ok().map(|b| b.into_owned())
    }

    /// Block definitions that did not read since the last call.
    pub fn take_errors(&self) -> Vec<String> {
        self.errors
            .lock()
            .map(|mut e| std::mem::take(&mut *e))
            .unwrap_or_default()
    }
}

impl PlatformPallet for PlatformBlocks {
    fn id(&self) -> &str {
        &self.id
    }

    fn namespace(&self) -> &str {
        &self.namespace
    }

    fn has_block(&self, id: &str) -> bool {
        self.pallet.entry(&block_path(id)).is_some()
    }
}

impl PalletLight for PlatformBlocks {
    /// The block's `lightEmission` in the entry's state (the first `byState` row that
    /// holds, else its `level`); `None` for a block the pallet does not define or that
    /// states none. Its light shape is laid on by the resolve, from the baked model.
    fn block_light(&self, entry: &PaletteEntry) -> Option<BlockLight> {
        if entry.ns != self.namespace {
            return None;
        }
        let def = self.block(&entry.id)?;
        let le = def.light_emission.as_ref()?;
        let prop = |k: &str| {
            entry
                .properties
                .iter()
                .find(|p| p.key == k)
                .map(|p| prop_text(&p.value))
        };
        Some(BlockLight {
            emission: Some(le.level_for(&prop)),
            ..BlockLight::default()
        })
    }
}

/// One kept palette: the stamps of the platform pallet's files when it resolved.
#[derive(Debug)]
struct Kept {
    stamps: Fingerprint,
    looks: Arc<VoxelLooks>,
}

/// Resolved palettes kept across opens and map loads (spec `dh.voxel`, "Models in the
/// chunk mesh": "A palette is kept only while every pallet file it could have read is
/// unchanged, by size and write time, so a rebuilt pallet resolves afresh, and a map swap
/// keeps only the palettes the map just left used"), keyed by the container and its
/// palette.
#[derive(Debug, Default)]
pub struct PaletteCache {
    kept: Mutex<HashMap<String, Kept>>,
    counts: Mutex<(usize, usize)>,
}

impl PaletteCache {
    /// An empty cache.
    pub fn new() -> PaletteCache {
        PaletteCache::default()
    }

    /// The key of a container `container` holding `palette`.
    pub fn key(container: &str, palette: &[PaletteEntry]) -> String {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for e in palette {
            e.ns.hash(&mut h);
            e.id.hash(&mut h);
            for p in &e.properties {
                p.key.hash(&mut h);
                prop_text(&p.value).hash(&mut h);
            }
        }
        format!("{container}#{}:{:016x}", palette.len(), h.finish())
    }

    /// The palette kept under `key` when the pallet's files are still `stamps`.
    pub fn get(&self, key: &str, stamps: &Fingerprint) -> Option<Arc<VoxelLooks>> {
        let kept = self.kept.lock().ok()?;
        let k = kept.get(key)?;
        if &k.stamps != stamps {
            return None;
        }
        if let Ok(mut c) = self.counts.lock() {
            c.1 += 1;
        }
        Some(k.looks.clone())
    }

    /// Keeps `looks` under `key`, resolved when the pallet's files were `stamps`.
    pub fn put(&self, key: &str, stamps: Fingerprint, looks: Arc<VoxelLooks>) {
        if let Ok(mut kept) = self.kept.lock() {
            kept.insert(key.to_string(), Kept { stamps, looks });
        }
        if let Ok(mut c) = self.counts.lock() {
            c.0 += 1;
        }
    }

    /// Drops every palette whose key is not in `keys` (a map swap keeps what the new
    /// map uses).
    pub fn retain(&self, keys: &[String]) {
        if let Ok(mut kept) = self.kept.lock() {
            kept.retain(|k, _| keys.contains(k));
        }
    }

    /// (palettes resolved and kept, palettes reused) so far.
    pub fn counts(&self) -> (usize, usize) {
        self.counts.lock().map(|c| *c).unwrap_or((0, 0))
    }

    /// How many palettes are kept.
    pub fn len(&self) -> usize {
        self.kept.lock().map(|k| k.len()).unwrap_or(0)
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
