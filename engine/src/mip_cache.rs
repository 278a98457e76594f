//! The on-disk mip chain cache (003 "On-disk cache"): `<cache>/mipmaps/<hash>.dhmip`, the
//! hash SHA-256 of a texture's source pixels, dimensions and filter
//! ([`dh_content::mips::chain_key`]), so an unchanged texture reuses its chain across runs
//! and two identical textures share one entry.
//!
//! The engine's user cache folder: the spec names `%LocalAppData%\DigitalHeaven\Engine\cache`
//! on Windows; on Linux (and every other system here) it is
//! `$XDG_CACHE_HOME/DigitalHeaven/Engine/cache`, else `~/.cache/DigitalHeaven/Engine/cache`
//! (`$HOME`). `DH_CACHE_DIR`, when set, replaces the whole folder (tests and a user who
//! wants it elsewhere); [`MipCache::at`] names one outright.
//!
//! `client.cache.mipmaps` gates only persistence: with it off, chains are generated in
//! memory and the disk is never read or written. It is passed on every call, so a change is
//! observed at the next texture. A file that does not read as the chain its name promises
//! (damaged, truncated, another version, another size) is regenerated and rewritten, with
//! one note naming the file and what was wrong.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use dh_content::mips::{self, MipFilter};

/// The environment variable that names the engine's user cache folder outright.
pub const CACHE_DIR_ENV: &str = "DH_CACHE_DIR";

/// The engine's user cache folder, by the rules in the module docs; `None` when neither
/// `DH_CACHE_DIR`, `XDG_CACHE_HOME` nor `HOME` is set.
pub fn user_cache_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = var(CACHE_DIR_ENV) {
        return Some(d);
    }
    let base = var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")))?;
    Some(base.join("DigitalHeaven").join("Engine").join("cache"))
}

/// What the cache did, counted (for tests and the load log).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MipCacheStats {
    /// Chains read back from disk (hits).
    pub reads: u64,
    /// Chains written to disk.
    pub writes: u64,
    /// Chains generated (misses, persistence off, or damaged files).
    pub generated: u64,
    /// Files refused as damaged and regenerated.
    pub refused: u64,
}

/// The mip chain cache: a folder (its `mipmaps/` subfolder holds the files) and counters.
#[derive(Debug, Default)]
pub struct MipCache {
    root: Option<PathBuf>,
    reads: AtomicU64,
    writes: AtomicU64,
    generated: AtomicU64,
    refused: AtomicU64,
}

impl MipCache {
    /// The cache in the engine's user cache folder ([`user_cache_dir`]).
    pub fn new() -> MipCache {
        MipCache {
            root: user_cache_dir(),
            ..MipCache::default()
        }
    }

    /// The cache under `root` (its `mipmaps/` subfolder).
    pub fn at(root: impl Into<PathBuf>) -> MipCache {
        MipCache {
            root: Some(root.into()),
            ..MipCache::default()
        }
    }

    /// The folder the files go in, when there is one.
    pub fn folder(&self) -> Option<PathBuf> {
        self.root.as_ref().map(|r| r.join("mipmaps"))
    }

    /// The counters so far.
    pub fn stats(&self) -> MipCacheStats {
        MipCacheStats {
            reads: self.reads.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            generated: self.generated.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
        }
    }

    /// Levels 1 to the last of `rgba` (`width` x `height`) under `filter`: read from
    /// `<folder>/<key>.dhmip` when `persist` and the file reads as this chain, else
    /// generated (and, when `persist`, written there). A damaged file and a failed write
    /// each push one line to `notes`.
    pub fn chain(
        &self,
        width: u32,
        height: u32,
        rgba: &[u8],
        filter: MipFilter,
        persist: bool,
        notes: &mut Vec<String>,
    ) -> Vec<Vec<u8>> {
        let folder = self.folder().filter(|_| persist);
        let Some(folder) = folder else {
            self.generated.fetch_add(1, Ordering::Relaxed);
            return mips::generate_chain(width, height, rgba, filter);
        };
        let key = mips::chain_key(width, height, rgba, filter);
        let path = folder.join(format!("{key}.dhmip"));
        match read_bounded(&path, width, height) {
            Ok(Some(d)) if d.width == width && d.height == height => {
                self.reads.fetch_add(1, Ordering::Relaxed);
                return d.levels;
            }
            Ok(Some(d)) => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                notes.push(format!(
                    "mip cache {}: a {}x{} chain where {width}x{height} was expected; regenerated",
                    path.display(),
                    d.width,
                    d.height
                ));
            }
            Ok(None) => {}
            Err(e) => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                notes.push(format!("mip cache {}: {e}; regenerated", path.display()));
            }
        }
        let levels = mips::generate_chain(width, height, rgba, filter);
        self.generated.fetch_add(1, Ordering::Relaxed);
        match write_atomic(&folder, &path, &mips::encode_dhmip(width, height, &levels)) {
            Ok(()) => {
                self.writes.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => notes.push(format!(
                "mip cache {}: not written ({e}); the chain is kept in memory",
                path.display()
            )),
        }
        levels
    }
}

/// Why a cache file was not taken.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{len} bytes, where a {width}x{height} chain's file has {expected}")]
    Length {
        len: u64,
        width: u32,
        height: u32,
        expected: u64,
    },
    #[error("{0}")]
    Format(#[from] mips::DhmipError),
}

/// Reads `path` as the chain of a `width` x `height` texture: `None` when there is no file;
/// the file's length is checked against the chain's before a byte is read.
fn read_bounded(path: &Path, width: u32, height: u32) -> Result<Option<mips::Dhmip>, ReadError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let expected = mips::DHMIP_HEADER as u64
        + (1..mips::level_count(width, height))
            .map(|l| {
                let (w, h) = mips::level_size(width, height, l);
                u64::from(w) * u64::from(h) * 4
            })
            .sum::<u64>();
    if meta.len() != expected {
        return Err(ReadError::Length {
            len: meta.len(),
            width,
            height,
            expected,
        });
    }
    let bytes = std::fs::read(path)?;
    Ok(Some(mips::decode_dhmip(&bytes)?))
}

/// Writes `bytes` to `path` through a temporary file in `folder` and a rename, so a reader
/// never meets half a file.
fn write_atomic(folder: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(folder)?;
    let tmp = folder.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("chain"),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}
