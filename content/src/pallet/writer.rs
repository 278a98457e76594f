//! [`PalletWriter`]: builds a `.pallet` deterministically.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;

use super::checksum::{content_checksum, fold_crc32, CHECKSUM_FORMULA_VERSION};
use super::entry::{check_meta, encode_meta, Codec, CodecChoice, EntryMeta};
use super::error::PalletError;
use super::format::{
    align_up, hdr, put_str, put_u16, put_u32, put_u64, ALIGNMENT, FORMAT_VERSION, HEADER_LEN,
    MAGIC, MAX_ENTRIES, MAX_ENTRY_LEN, MAX_MANIFEST_LEN, RECORD_FIXED_LEN,
};
use super::is_voxel_payload;
use super::manifest::{check_manifest, encode_manifest, BuildInfo, Manifest};
use super::path::check_path;

/// An entry as the writer holds it until [`PalletWriter::finish`].
struct Pending {
    codec: Codec,
    data: Vec<u8>,
    raw_len: u64,
    raw_crc: u32,
    folded: u32,
    meta: EntryMeta,
}

/// What [`PalletWriter::write_to`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteOutcome {
    /// The file was (re)written.
    Written,
    /// The file already held exactly these bytes and was left untouched (its mtime too),
    /// so nothing watching it sees a change.
    Unchanged,
}

/// Builds a `.pallet`.
///
/// The output is a pure function of the manifest and the set of `(path, bytes, meta,
/// codec choice)` entries: insertion order does not matter (entries are sorted by path),
/// and nothing time- or machine-dependent is written.
pub struct PalletWriter {
    manifest: Manifest,
    entries: BTreeMap<String, Pending>,
}

impl std::fmt::Debug for PalletWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PalletWriter")
            .field("manifest", &self.manifest)
            .field("entries", &self.entries.len())
            .finish()
    }
}

impl PalletWriter {
    /// A writer for a pallet with this manifest. Its `build_info` is ignored (the
    /// writer computes it); `used_dependencies` are sorted by id. Refuses an empty or
    /// malformed id, duplicate or self dependencies, over-long strings and control
    /// characters.
    pub fn new(mut manifest: Manifest) -> Result<Self, PalletError> {
        manifest.build_info = BuildInfo::default();
        manifest.used_dependencies.sort();
        check_manifest(&manifest)
            .map_err(|(field, reason)| PalletError::InvalidManifest { field, reason })?;
        Ok(Self {
            manifest,
            entries: BTreeMap::new(),
        })
    }

    /// The manifest as it will be written (without its build info until `finish`).
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Number of entries added so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry has been added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds an entry.
    ///
    /// Refuses an invalid path (see [`check_path`](super::check_path)), a path already
    /// added, more than [`MAX_ENTRIES`](super::MAX_ENTRIES) entries, empty or over-long
    /// MIME types, entries over the 1 GiB cap ([`MAX_ENTRY_LEN`](super::MAX_ENTRY_LEN),
    /// checked before the bytes are read), and [`CodecChoice::Lz4`] for voxel payloads.
    /// With [`CodecChoice::Auto`] the entry is LZ4-compressed when that makes it occupy
    /// fewer 64-byte blocks of the file; voxel payloads are always stored.
    pub fn add(
        &mut self,
        path: &str,
        bytes: impl Into<Vec<u8>>,
        meta: EntryMeta,
        codec: CodecChoice,
    ) -> Result<(), PalletError> {
        check_path(path)?;
        if self.entries.contains_key(path) {
            return Err(PalletError::DuplicatePath {
                path: path.to_owned(),
            });
        }
        if self.entries.len() >= MAX_ENTRIES as usize {
            return Err(PalletError::TooManyEntries {
                path: path.to_owned(),
                count: self.entries.len() as u64 + 1,
                cap: u64::from(MAX_ENTRIES),
            });
        }
        check_meta(&meta).map_err(|(field, reason)| PalletError::InvalidMeta {
            path: path.to_owned(),
            field,
            reason,
        })?;
        let raw: Vec<u8> = bytes.into();
        let raw_len = raw.len() as u64;
        if raw_len > MAX_ENTRY_LEN {
            return Err(PalletError::EntryTooLarge {
                path: path.to_owned(),
                len: raw_len,
                what: "raw",
                cap: MAX_ENTRY_LEN,
            });
        }
        let voxel = is_voxel_payload(path);
        if voxel && codec == CodecChoice::Lz4 {
            return Err(PalletError::MustBeStored {
                path: path.to_owned(),
            });
        }
        let raw_crc = crc32fast::hash(&raw);
        let folded = fold_crc32(raw_crc, &meta);
        let (codec, data) = match codec {
            CodecChoice::Stored => (Codec::Stored, raw),
            CodecChoice::Auto if voxel || raw.is_empty() => (Codec::Stored, raw),
            CodecChoice::Auto => {
                let packed = lz4_flex::block::compress(&raw);
                let a = u64::from(ALIGNMENT);
                if align_up(packed.len() as u64, a) < align_up(raw_len, a) {
                    (Codec::Lz4, packed)
                } else {
                    (Codec::Stored, raw)
                }
            }
            CodecChoice::Lz4 => (Codec::Lz4, lz4_flex::block::compress(&raw)),
        };
        if data.len() as u64 > MAX_ENTRY_LEN {
            return Err(PalletError::EntryTooLarge {
                path: path.to_owned(),
                len: data.len() as u64,
                what: "LZ4-compressed",
                cap: MAX_ENTRY_LEN,
            });
        }
        self.entries.insert(
            path.to_owned(),
            Pending {
                codec,
                data,
                raw_len,
                raw_crc,
                folded,
                meta,
            },
        );
        Ok(())
    }

    /// The `buildInfo.contentChecksum` the pallet will carry if finished now.
    pub fn content_checksum(&self) -> String {
        content_checksum(
            &self.manifest,
            self.entries.len(),
            self.entries
                .iter()
                .map(|(p, e)| (p.as_str(), e.raw_len, e.folded)),
        )
    }

    /// Lays the pallet out and returns its bytes.
    pub fn finish(self) -> Result<Vec<u8>, PalletError> {
        let mut manifest = self.manifest;
        let checksum = content_checksum(
            &manifest,
            self.entries.len(),
            self.entries
                .iter()
                .map(|(p, e)| (p.as_str(), e.raw_len, e.folded)),
        );
        manifest.build_info = BuildInfo {
            content_checksum: checksum,
            formula_version: CHECKSUM_FORMULA_VERSION,
        };
        let manifest_bytes = encode_manifest(&manifest);
        if manifest_bytes.len() > MAX_MANIFEST_LEN as usize {
            return Err(PalletError::InvalidManifest {
                field: "(whole manifest)".to_owned(),
                reason: format!(
                    "encodes to {} bytes; at most {MAX_MANIFEST_LEN}",
                    manifest_bytes.len()
                ),
            });
        }

        let align = u64::from(ALIGNMENT);
        let too_large = |len| PalletError::TooLarge { len };
        let table_len: u64 = self
            .entries
            .iter()
            .map(|(p, e)| {
                (RECORD_FIXED_LEN + p.len() + e.meta.mime.as_ref().map_or(0, String::len)) as u64
            })
            .sum();
        let table_end = (HEADER_LEN + manifest_bytes.len()) as u64 + table_len;
        let data_offset = align_up(table_end, align).ok_or(too_large(u64::MAX))?;
        let mut offsets = Vec::with_capacity(self.entries.len());
        let mut pos = data_offset;
        for e in self.entries.values() {
            pos = align_up(pos, align).ok_or(too_large(u64::MAX))?;
            offsets.push(pos);
            pos = pos
                .checked_add(e.data.len() as u64)
                .ok_or(too_large(u64::MAX))?;
        }
        let file_len = pos;
        let total = usize::try_from(file_len).map_err(|_| too_large(file_len))?;
        let mut out = Vec::new();
        out.try_reserve_exact(total)
            .map_err(|_| too_large(file_len))?;

        // Header.
        out.extend_from_slice(&MAGIC);
        put_u16(&mut out, FORMAT_VERSION);
        put_u16(&mut out, 0);
        put_u32(&mut out, ALIGNMENT);
        put_u64(&mut out, file_len);
        put_u32(&mut out, manifest_bytes.len() as u32);
        put_u32(&mut out, self.entries.len() as u32);
        put_u64(&mut out, table_len);
        put_u64(&mut out, data_offset);
        debug_assert_eq!(out.len(), hdr::INDEX_CRC);
        put_u32(&mut out, 0);
        out.resize(HEADER_LEN, 0);

        // Manifest and entry table.
        out.extend_from_slice(&manifest_bytes);
        for ((path, e), &offset) in self.entries.iter().zip(&offsets) {
            put_str(&mut out, path);
            out.push(e.codec.code());
            encode_meta(&e.meta, &mut out);
            put_u64(&mut out, offset);
            put_u64(&mut out, e.data.len() as u64);
            put_u64(&mut out, e.raw_len);
            put_u32(&mut out, e.raw_crc);
            put_u32(&mut out, e.folded);
        }
        debug_assert_eq!(out.len() as u64, table_end);
        let mut crc = crc32fast::Hasher::new();
        crc.update(&out[..hdr::INDEX_CRC]);
        crc.update(&out[HEADER_LEN..]);
        let crc = crc.finalize();
        out[hdr::INDEX_CRC..hdr::INDEX_CRC + 4].copy_from_slice(&crc.to_le_bytes());

        // Data, each entry at its aligned offset, zero padding before and between (the
        // file always reaches the data offset, even with no entries).
        out.resize(data_offset as usize, 0);
        for (e, &offset) in self.entries.values().zip(&offsets) {
            out.resize(offset as usize, 0);
            out.extend_from_slice(&e.data);
        }
        debug_assert_eq!(out.len() as u64, file_len);
        Ok(out)
    }

    /// Finishes and writes the pallet to `path`, through a temporary file beside it that
    /// is renamed into place. If `path` already holds exactly these bytes it is left
    /// untouched and [`WriteOutcome::Unchanged`] is returned.
    pub fn write_to(self, path: impl AsRef<Path>) -> Result<WriteOutcome, PalletError> {
        let path = path.as_ref();
        let bytes = self.finish()?;
        let file = path.display().to_string();
        if let Ok(meta) = fs::metadata(path) {
            if meta.is_file() && meta.len() == bytes.len() as u64 {
                if let Ok(existing) = fs::read(path) {
                    if existing == bytes {
                        return Ok(WriteOutcome::Unchanged);
                    }
                }
            }
        }
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = std::path::PathBuf::from(tmp);
        let io = |action, source| PalletError::Io {
            file: file.clone(),
            action,
            source,
        };
        let result = (|| {
            let mut f = fs::File::create(&tmp).map_err(|e| io("create a temporary file", e))?;
            f.write_all(&bytes).map_err(|e| io("write", e))?;
            f.sync_all().map_err(|e| io("sync", e))?;
            drop(f);
            fs::rename(&tmp, path).map_err(|e| io("rename the temporary file into place", e))
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result.map(|()| WriteOutcome::Written)
    }
}
