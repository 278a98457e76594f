//! The on-disk cook cache (spec: runtime assets, "On-disk cache" and "Cooked map
//! collision"): `collision/<key>.dhcol` under the engine's cache folder, one cooked mesh
//! per file, keyed by a SHA-256 over the cook format version and the triangles that went
//! in. A missing, truncated or inconsistent entry reads as a miss; entries are written to
//! a temporary file and renamed, so a reader never sees half of one.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::cook::{is_sky_material, CookedMesh};
use super::format::{decode_mesh, encode_mesh, FORMAT_VERSION};
use crate::gltf::math::Mat4;
use crate::gltf::Mesh;
use crate::pallet::sha256::{hex, Sha256};

/// The cache key of one cook: SHA-256 over the format version, the part-frame transform
/// (when there is one), and every non-sky primitive's material slot, positions and
/// indices — exactly what [`super::cook::extract`] reads, so equal keys cook equal meshes.
pub fn mesh_key(mesh: &Mesh, transform: Option<&Mat4>) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"dh-colcook mesh\0");
    h.update(&FORMAT_VERSION.to_le_bytes());
    match transform {
        None => h.update(&[0]),
        Some(m) => {
            h.update(&[1]);
            for c in m {
                h.update(&c.to_le_bytes());
            }
        }
    }
    let mut buf = Vec::new();
    for p in &mesh.primitives {
        if p.material.as_deref().is_some_and(is_sky_material) {
            continue;
        }
        buf.clear();
        match &p.material {
            None => buf.push(0),
            Some(m) => {
                buf.push(1);
                buf.extend_from_slice(&(m.len() as u64).to_le_bytes());
                buf.extend_from_slice(m.as_bytes());
            }
        }
        buf.extend_from_slice(&(p.vertices.len() as u64).to_le_bytes());
        buf.reserve(p.vertices.len() * 12 + p.indices.len() * 4 + 8);
        for v in &p.vertices {
            for c in v.position {
                buf.extend_from_slice(&c.to_le_bytes());
            }
        }
        buf.extend_from_slice(&(p.indices.len() as u64).to_le_bytes());
        for i in &p.indices {
            buf.extend_from_slice(&i.to_le_bytes());
        }
        h.update(&buf);
    }
    h.finalize()
}

/// A key as the file stem it is stored under.
pub fn key_hex(key: &[u8; 32]) -> String {
    hex(key)
}

/// Where cooked meshes persist: `<root>/collision/<key>.dhcol`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookCache {
    /// The cache root (the engine's cache folder; always safe to wipe).
    pub root: PathBuf,
    /// Whether entries are read and written (`client.cache.collision`); off, every cook
    /// runs in memory and nothing touches the disk.
    pub enabled: bool,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl CookCache {
    /// A cache rooted at `root`, enabled.
    pub fn new(root: impl Into<PathBuf>) -> CookCache {
        CookCache {
            root: root.into(),
            enabled: true,
        }
    }

    /// The platform's cache root: `%LocalAppData%\DigitalHeaven\Engine\cache` on Windows,
    /// `$XDG_CACHE_HOME/DigitalHeaven/Engine/cache` (or `~/.cache/…`) elsewhere; `None`
    /// when the environment names no home.
    pub fn default_root() -> Option<PathBuf> {
        let base = if cfg!(windows) {
            std::env::var_os("LOCALAPPDATA").map(PathBuf::from)
        } else {
            std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        }?;
        Some(base.join("DigitalHeaven").join("Engine").join("cache"))
    }

    /// The file an entry lives in.
    pub fn path(&self, key: &[u8; 32]) -> PathBuf {
        self.root
            .join("collision")
            .join(format!("{}.dhcol", key_hex(key)))
    }

    /// The raw bytes of entry `key`, when present and a well-formed mesh cooked under
    /// that very key; anything else is a miss.
    pub fn read_bytes(&self, key: &[u8; 32]) -> Option<Vec<u8>> {
        if !self.enabled {
            return None;
        }
        let bytes = std::fs::read(self.path(key)).ok()?;
        let mesh = decode_mesh(&bytes, "cache entry").ok()?;
        (mesh.key == *key).then_some(bytes)
    }

    /// Entry `key` decoded, or `None` on a miss (see [`CookCache::read_bytes`]).
    pub fn read(&self, key: &[u8; 32]) -> Option<CookedMesh> {
        if !self.enabled {
            return None;
        }
        let bytes = std::fs::read(self.path(key)).ok()?;
        decode_mesh(&bytes, "cache entry")
            .ok()
            .filter(|m| m.key == *key)
    }

    /// Stores `mesh` under its key: written to a temporary file beside the entry, then
    /// renamed over it. Does nothing when the cache is off.
    pub fn write(&self, mesh: &CookedMesh) -> std::io::Result<()> {
        if !self.enabled {
            return Ok(());
        }
        let path = self.path(&mesh.key);
        let dir = self.root.join("collision");
        std::fs::create_dir_all(&dir)?;
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(
            "{}.{}.{n}.tmp",
            key_hex(&mesh.key),
            std::process::id()
        ));
        std::fs::write(&tmp, encode_mesh(mesh))?;
        std::fs::rename(&tmp, &path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }
}
