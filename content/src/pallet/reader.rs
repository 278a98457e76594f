//! [`Pallet`]: an open `.pallet`, parsed and validated up front, read without copying.

use std::borrow::Cow;
use std::fs;
use std::path::{Path, PathBuf};

use super::checksum::{content_checksum, fold_crc32, CHECKSUM_FORMULA_VERSION};
use super::entry::{color_space_from, filter_from, wrap_from, Codec, EntryMeta, EntryRef};
use super::error::PalletError;
use super::format::{
    hdr, Cursor, FORMAT_VERSION, HEADER_LEN, LZ4_MAX_RATIO, MAGIC, MAX_ALIGNMENT, MAX_ENTRIES,
    MAX_ENTRY_LEN, MAX_MANIFEST_LEN, MAX_PATH_LEN, MAX_STRING_LEN, RECORD_MIN_LEN,
};
use super::manifest::{decode_manifest, Manifest};
use super::path::path_problem;

/// Name used in messages for a pallet read from a `Vec<u8>`.
const IN_MEMORY: &str = "<in-memory pallet>";
/// Name used in messages for a pallet read from a `&'static [u8]`.
const EMBEDDED: &str = "<embedded pallet>";

/// One parsed table record.
#[derive(Debug)]
pub(crate) struct Entry {
    path: String,
    codec: Codec,
    offset: u64,
    stored_len: u64,
    raw_len: u64,
    raw_crc: u32,
    folded: u32,
    meta: EntryMeta,
}

impl Entry {
    fn as_ref(&self) -> EntryRef<'_> {
        EntryRef {
            path: &self.path,
            codec: self.codec,
            offset: self.offset,
            stored_len: self.stored_len,
            raw_len: self.raw_len,
            raw_crc32: self.raw_crc,
            crc32: self.folded,
            meta: &self.meta,
        }
    }
}

/// The parsed, validated header, manifest and table of a pallet.
#[derive(Debug)]
pub(crate) struct Index {
    manifest: Manifest,
    entries: Vec<Entry>,
    alignment: u32,
    formula_known: bool,
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Index {
    /// Parses and validates everything but the entries' data. Never panics; allocates
    /// at most in proportion to the table's length.
    pub(crate) fn parse(bytes: &[u8], file: &str) -> Result<Self, PalletError> {
        let len = bytes.len() as u64;
        let mut c = Cursor::new(bytes, 0, file, "header");
        let bad =
            |offset: usize, what: &str, found: String, expected: String| PalletError::Malformed {
                file: file.to_owned(),
                offset: offset as u64,
                what: what.to_owned(),
                found,
                expected,
            };
        let magic = c.take(MAGIC.len(), "the 8-byte magic \"DHPALLET\"")?;
        if magic != MAGIC {
            return Err(bad(
                hdr::MAGIC,
                "the magic",
                format!(
                    "{} ({:?})",
                    hex_bytes(magic),
                    String::from_utf8_lossy(magic)
                ),
                "\"DHPALLET\" (not a .pallet file?)".to_owned(),
            ));
        }
        if bytes.len() < HEADER_LEN {
            return Err(PalletError::Truncated {
                file: file.to_owned(),
                offset: 0,
                section: "header",
                expected: format!("the {HEADER_LEN}-byte header"),
                need: HEADER_LEN as u64,
                have: len,
            });
        }
        let version = c.u16("the u16 format version")?;
        if version != FORMAT_VERSION {
            return Err(bad(
                hdr::VERSION,
                "the format version",
                version.to_string(),
                format!("{FORMAT_VERSION} (the only version this build reads)"),
            ));
        }
        let flags = c.u16("the u16 flags")?;
        if flags != 0 {
            return Err(bad(
                hdr::FLAGS,
                "the flags",
                format!("{flags:#06x}"),
                "0 (no flags are defined in format version 1)".to_owned(),
            ));
        }
        let alignment = c.u32("the u32 entry alignment")?;
        if !alignment.is_power_of_two() || !(8..=MAX_ALIGNMENT).contains(&alignment) {
            return Err(bad(
                hdr::ALIGNMENT,
                "the entry alignment",
                alignment.to_string(),
                format!("a power of two from 8 to {MAX_ALIGNMENT}"),
            ));
        }
        let file_len = c.u64("the u64 file length")?;
        if file_len != len {
            return Err(bad(
                hdr::FILE_LEN,
                "the recorded file length",
                file_len.to_string(),
                format!("{len}, the actual length (truncated or padded file?)"),
            ));
        }
        let manifest_len = c.u32("the u32 manifest length")?;
        let after_header = len - HEADER_LEN as u64;
        if manifest_len > MAX_MANIFEST_LEN || u64::from(manifest_len) > after_header {
            return Err(bad(
                hdr::MANIFEST_LEN,
                "the manifest length",
                manifest_len.to_string(),
                format!(
                    "at most {} (the {MAX_MANIFEST_LEN}-byte cap and the bytes after the header)",
                    after_header.min(u64::from(MAX_MANIFEST_LEN))
                ),
            ));
        }
        let entry_count = c.u32("the u32 entry count")?;
        if entry_count > MAX_ENTRIES {
            return Err(bad(
                hdr::ENTRY_COUNT,
                "the entry count",
                entry_count.to_string(),
                format!("at most {MAX_ENTRIES}"),
            ));
        }
        let table_len = c.u64("the u64 entry table length")?;
        let table_start = HEADER_LEN as u64 + u64::from(manifest_len);
        let after_manifest = len - table_start;
        if table_len > after_manifest {
            return Err(bad(
                hdr::TABLE_LEN,
                "the entry table length",
                table_len.to_string(),
                format!("at most {after_manifest}, the bytes after the manifest"),
            ));
        }
        let min_table = u64::from(entry_count) * RECORD_MIN_LEN as u64;
        if table_len < min_table {
            return Err(bad(
                hdr::ENTRY_COUNT,
                "the entry count",
                entry_count.to_string(),
                format!(
                    "at most {} ({table_len} table bytes at {RECORD_MIN_LEN} or more per record)",
                    table_len / RECORD_MIN_LEN as u64
                ),
            ));
        }
        let table_end = table_start + table_len;
        let data_offset = c.u64("the u64 data offset")?;
        if data_offset < table_end || data_offset > len || data_offset % u64::from(alignment) != 0 {
            return Err(bad(
                hdr::DATA_OFFSET,
                "the data offset",
                data_offset.to_string(),
                format!(
                    "a multiple of {alignment} from {table_end} (the table's end) to {len} (the file's end)"
                ),
            ));
        }
        let index_crc = c.u32("the u32 index CRC32")?;
        let reserved = c.take(HEADER_LEN - hdr::RESERVED, "the reserved bytes")?;
        if reserved.iter().any(|&b| b != 0) {
            return Err(bad(
                hdr::RESERVED,
                "the reserved header bytes",
                hex_bytes(reserved),
                "all zero".to_owned(),
            ));
        }
        // The conversions below cannot fail: every value is at most `len`.
        let (table_start_u, table_end_u) = (table_start as usize, table_end as usize);
        let mut crc = crc32fast::Hasher::new();
        crc.update(&bytes[..hdr::INDEX_CRC]);
        crc.update(&bytes[HEADER_LEN..table_end_u]);
        let actual_crc = crc.finalize();
        if actual_crc != index_crc {
            return Err(bad(
                hdr::INDEX_CRC,
                "the index CRC32 (header, manifest and entry table)",
                format!("{index_crc:08x}"),
                format!("{actual_crc:08x}, the CRC32 of those bytes (corrupt index)"),
            ));
        }

        let manifest = decode_manifest(&bytes[HEADER_LEN..table_start_u], HEADER_LEN as u64, file)?;
        let formula_known = manifest.build_info.formula_version == CHECKSUM_FORMULA_VERSION;

        let mut t = Cursor::new(
            &bytes[table_start_u..table_end_u],
            table_start,
            file,
            "entry table",
        );
        let mut entries: Vec<Entry> = Vec::with_capacity(entry_count as usize);
        for i in 0..entry_count {
            let rec = t.offset();
            let path_len = usize::from(t.u16(&format!("the u16 path length of entry {i}"))?);
            if path_len == 0 || path_len > MAX_PATH_LEN {
                return Err(t.malformed(
                    rec,
                    format!("the path length of entry {i}"),
                    path_len.to_string(),
                    format!("1 to {MAX_PATH_LEN} bytes"),
                ));
            }
            let raw_path = t.take(path_len, &format!("the {path_len}-byte path of entry {i}"))?;
            let bad_entry = |path: &str, what: &'static str, found: String, expected: String| {
                PalletError::BadEntry {
                    file: file.to_owned(),
                    path: path.to_owned(),
                    offset: rec,
                    what,
                    found,
                    expected,
                }
            };
            let path = match std::str::from_utf8(raw_path) {
                Ok(p) => p,
                Err(e) => {
                    return Err(bad_entry(
                        &String::from_utf8_lossy(raw_path),
                        "the path",
                        format!("not UTF-8 ({e})"),
                        "UTF-8".to_owned(),
                    ))
                }
            };
            if let Some(problem) = path_problem(path) {
                return Err(bad_entry(
                    path,
                    "the path",
                    format!("invalid: it {problem}"),
                    "a relative `/`-separated path with no empty, `.` or `..` segments".to_owned(),
                ));
            }
            if let Some(prev) = entries.last() {
                if prev.path.as_str() >= path {
                    return Err(bad_entry(
                        path,
                        "the table order",
                        format!("this path after `{}`", prev.path),
                        "paths in strictly ascending byte order (sorted and unique)".to_owned(),
                    ));
                }
            }
            let code = t.u8("the u8 codec")?;
            let codec = Codec::from_code(code).ok_or_else(|| {
                bad_entry(
                    path,
                    "the codec",
                    code.to_string(),
                    "0 (stored) or 1 (LZ4)".to_owned(),
                )
            })?;
            let code = t.u8("the u8 filter")?;
            let filter = filter_from(code).map_err(|()| {
                bad_entry(path, "the filter", code.to_string(), "0 to 3".to_owned())
            })?;
            let code = t.u8("the u8 wrap")?;
            let wrap = wrap_from(code)
                .map_err(|()| bad_entry(path, "the wrap", code.to_string(), "0 to 3".to_owned()))?;
            let code = t.u8("the u8 color space")?;
            let color_space = color_space_from(code).map_err(|()| {
                bad_entry(
                    path,
                    "the color space",
                    code.to_string(),
                    "0 to 2".to_owned(),
                )
            })?;
            let mime_at = t.offset();
            let mime = t.str("the MIME type", MAX_STRING_LEN)?;
            if mime.chars().any(char::is_control) {
                return Err(t.malformed(
                    mime_at,
                    format!("the MIME type of `{path}`"),
                    "text with a control character".to_owned(),
                    "printable text".to_owned(),
                ));
            }
            let meta = EntryMeta {
                mime: (!mime.is_empty()).then(|| mime.to_owned()),
                filter,
                wrap,
                color_space,
            };
            let offset = t.u64("the u64 data offset")?;
            let stored_len = t.u64("the u64 stored length")?;
            let raw_len = t.u64("the u64 raw length")?;
            let raw_crc = t.u32("the u32 raw CRC32")?;
            let folded = t.u32("the u32 folded CRC32")?;

            for (what, v) in [
                ("the stored length", stored_len),
                ("the raw length", raw_len),
            ] {
                if v > MAX_ENTRY_LEN {
                    return Err(bad_entry(
                        path,
                        what,
                        v.to_string(),
                        format!("at most {MAX_ENTRY_LEN} (the 1 GiB entry cap)"),
                    ));
                }
            }
            let end = offset.checked_add(stored_len);
            if offset < data_offset
                || offset % u64::from(alignment) != 0
                || end.is_none_or(|end| end > len)
            {
                return Err(bad_entry(
                    path,
                    "the data range",
                    format!("{stored_len} bytes at byte {offset}"),
                    format!(
                        "a range starting at a multiple of {alignment} from {data_offset} (the data offset) and ending by {len} (the file's end)"
                    ),
                ));
            }
            match codec {
                Codec::Stored if stored_len != raw_len => {
                    return Err(bad_entry(
                        path,
                        "the raw length",
                        raw_len.to_string(),
                        format!("{stored_len}, the stored length (a stored entry is not encoded)"),
                    ))
                }
                Codec::Lz4 if raw_len > stored_len * LZ4_MAX_RATIO + 64 => {
                    return Err(bad_entry(
                        path,
                        "the raw length",
                        raw_len.to_string(),
                        format!(
                            "at most {} ({stored_len} LZ4 bytes expand at most {LZ4_MAX_RATIO}:1)",
                            stored_len * LZ4_MAX_RATIO + 64
                        ),
                    ))
                }
                _ => {}
            }
            if formula_known {
                let expected = fold_crc32(raw_crc, &meta);
                if folded != expected {
                    return Err(bad_entry(
                        path,
                        "the folded CRC32",
                        format!("{folded:08x}"),
                        format!("{expected:08x}, the raw CRC32 folded with the metadata (formula {CHECKSUM_FORMULA_VERSION})"),
                    ));
                }
            }
            entries.push(Entry {
                path: path.to_owned(),
                codec,
                offset,
                stored_len,
                raw_len,
                raw_crc,
                folded,
                meta,
            });
        }
        if t.remaining() != 0 {
            return Err(t.malformed(
                t.offset(),
                "the end of the entry table".to_owned(),
                format!("followed by {} unread bytes", t.remaining()),
                format!("the table to end after its {entry_count} records"),
            ));
        }

        // No two entries may share bytes.
        let mut by_offset: Vec<(u64, u64, usize)> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.offset, e.offset + e.stored_len, i))
            .collect();
        by_offset.sort_unstable();
        let mut furthest: Option<(u64, usize)> = None;
        for &(start, end, i) in &by_offset {
            if let Some((prev_end, prev)) = furthest {
                if start < prev_end {
                    let (e, p) = (&entries[i], &entries[prev]);
                    return Err(PalletError::BadEntry {
                        file: file.to_owned(),
                        path: e.path.clone(),
                        offset: start,
                        what: "the data range",
                        found: format!(
                            "bytes {start}..{end}, overlapping `{}` at bytes {}..{prev_end}",
                            p.path, p.offset
                        ),
                        expected: "entries that share no bytes".to_owned(),
                    });
                }
            }
            if furthest.is_none_or(|(prev_end, _)| end >= prev_end) {
                furthest = Some((end, i));
            }
        }

        if formula_known {
            let expected = content_checksum(
                &manifest,
                entries.len(),
                entries
                    .iter()
                    .map(|e| (e.path.as_str(), e.raw_len, e.folded)),
            );
            if manifest.build_info.content_checksum != expected {
                return Err(PalletError::ContentChecksumMismatch {
                    file: file.to_owned(),
                    expected,
                    found: manifest.build_info.content_checksum.clone(),
                });
            }
        }

        Ok(Self {
            manifest,
            entries,
            alignment,
            formula_known,
        })
    }

    fn find(&self, path: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|e| e.path.as_str().cmp(path))
            .ok()
            .map(|i| &self.entries[i])
    }
}

/// The entry's bytes as they lie in the file.
fn stored_bytes<'a>(bytes: &'a [u8], e: &Entry, file: &str) -> Result<&'a [u8], PalletError> {
    let start = usize::try_from(e.offset).ok();
    let end = start.and_then(|s| s.checked_add(usize::try_from(e.stored_len).ok()?));
    match (start, end) {
        (Some(s), Some(end)) => bytes.get(s..end),
        _ => None,
    }
    .ok_or_else(|| PalletError::BadEntry {
        file: file.to_owned(),
        path: e.path.clone(),
        offset: e.offset,
        what: "the data range",
        found: format!("{} bytes at byte {}", e.stored_len, e.offset),
        expected: format!("a range inside the file's {} bytes", bytes.len()),
    })
}

/// Reads one entry, decoding LZ4 and checking the raw CRC32.
pub(crate) fn read_entry<'a>(
    bytes: &'a [u8],
    e: &Entry,
    file: &str,
) -> Result<Cow<'a, [u8]>, PalletError> {
    let data = stored_bytes(bytes, e, file)?;
    let out = match e.codec {
        Codec::Stored => Cow::Borrowed(data),
        Codec::Lz4 => {
            let oom = || PalletError::OutOfMemory {
                file: file.to_owned(),
                path: e.path.clone(),
                raw_len: e.raw_len,
            };
            // raw_len was checked at open against the 1 GiB cap and the LZ4 ratio bound.
            let raw_len = usize::try_from(e.raw_len).map_err(|_| oom())?;
            let mut out = Vec::new();
            out.try_reserve_exact(raw_len).map_err(|_| oom())?;
            out.resize(raw_len, 0);
            let decompress_err = |detail: String| PalletError::Decompress {
                file: file.to_owned(),
                path: e.path.clone(),
                offset: e.offset,
                raw_len: e.raw_len,
                detail,
            };
            let n = lz4_flex::block::decompress_into(data, &mut out)
                .map_err(|err| decompress_err(err.to_string()))?;
            if n != raw_len {
                return Err(decompress_err(format!("it decodes to {n} bytes")));
            }
            Cow::Owned(out)
        }
    };
    let crc = crc32fast::hash(&out);
    if crc != e.raw_crc {
        return Err(PalletError::ChecksumMismatch {
            file: file.to_owned(),
            path: e.path.clone(),
            offset: e.offset,
            expected: e.raw_crc,
            found: crc,
        });
    }
    Ok(out)
}

/// Where an open pallet's bytes live.
enum Storage {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
    Static(&'static [u8]),
}

impl Storage {
    fn bytes(&self) -> &[u8] {
        match self {
            Storage::Map(m) => m,
            Storage::Owned(v) => v,
            Storage::Static(s) => s,
        }
    }
}

/// An open `.pallet`.
///
/// Opening parses and validates the header, manifest and the whole entry table (index
/// CRC, caps, path rules and order, ranges, folded CRCs and `contentChecksum`); entry
/// data is only touched when read. Stored entries are returned as borrowed byte ranges
/// of the file's memory map, LZ4 entries are decompressed on request.
pub struct Pallet {
    storage: Storage,
    name: String,
    path: Option<PathBuf>,
    index: Index,
}

impl std::fmt::Debug for Pallet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pallet")
            .field("file", &self.name)
            .field("id", &self.index.manifest.id)
            .field("entries", &self.index.entries.len())
            .field("bytes", &self.storage.bytes().len())
            .finish()
    }
}

impl Pallet {
    /// Opens `path` through a read-only memory map.
    ///
    /// The file must not be modified or truncated while the pallet is open (replace
    /// pallets by writing a new file and renaming it over the old one, as
    /// [`PalletWriter::write_to`](super::PalletWriter::write_to) does).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, PalletError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let io = |action, source| PalletError::Io {
            file: name.clone(),
            action,
            source,
        };
        let file = fs::File::open(path).map_err(|e| io("open", e))?;
        let len = file.metadata().map_err(|e| io("stat", e))?.len();
        if len < HEADER_LEN as u64 {
            // Read the little there is, so the message says whether it is a pallet at all.
            let bytes = fs::read(path).map_err(|e| io("read", e))?;
            return Index::parse(&bytes, &name).and_then(|_| {
                Err(PalletError::Truncated {
                    file: name.clone(),
                    offset: 0,
                    section: "header",
                    expected: format!("the {HEADER_LEN}-byte header"),
                    need: HEADER_LEN as u64,
                    have: len,
                })
            });
        }
        // SAFETY: the map is read-only and private to this `Pallet`, and every access
        // through it is bounds-checked against its length. Mapping a file is sound only
        // while no one modifies or truncates the file underneath (that would change the
        // bytes behind `&[u8]`s we hand out, or fault on access past a new end): pallets
        // are immutable once written, and writers replace them by rename, which leaves
        // this mapping on the old inode. The caller contract is documented on `open`.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| io("memory-map", e))?;
        let index = Index::parse(&map, &name)?;
        Ok(Self {
            storage: Storage::Map(map),
            name,
            path: Some(path.to_owned()),
            index,
        })
    }

    /// Parses a pallet held in memory (named `<in-memory pallet>` in errors).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, PalletError> {
        let index = Index::parse(&bytes, IN_MEMORY)?;
        Ok(Self {
            storage: Storage::Owned(bytes),
            name: IN_MEMORY.to_owned(),
            path: None,
            index,
        })
    }

    /// Parses a pallet compiled into the binary, such as the engine's embedded core
    /// pallet (named `<embedded pallet>` in errors). Nothing is copied.
    pub fn from_static(bytes: &'static [u8]) -> Result<Self, PalletError> {
        let index = Index::parse(bytes, EMBEDDED)?;
        Ok(Self {
            storage: Storage::Static(bytes),
            name: EMBEDDED.to_owned(),
            path: None,
            index,
        })
    }

    /// The file this pallet was opened from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The name used in error messages: the file's path, or a placeholder.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The whole file.
    pub fn as_bytes(&self) -> &[u8] {
        self.storage.bytes()
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.index.manifest
    }

    /// The alignment of every entry's data offset.
    pub fn alignment(&self) -> u32 {
        self.index.alignment
    }

    /// Whether the folded CRCs and `contentChecksum` were recomputed and checked at open.
    /// They are when the pallet's formula version is this build's
    /// [`CHECKSUM_FORMULA_VERSION`](super::CHECKSUM_FORMULA_VERSION); a pallet written
    /// with another formula is still readable (raw CRCs are always checked), and its
    /// stored values are served as they are.
    pub fn checksums_verified(&self) -> bool {
        self.index.formula_known
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.index.entries.len()
    }

    /// Whether the pallet has no entries.
    pub fn is_empty(&self) -> bool {
        self.index.entries.is_empty()
    }

    /// Every entry, in path order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = EntryRef<'_>> + '_ {
        self.index.entries.iter().map(Entry::as_ref)
    }

    /// The entry at `path`, if there is one.
    pub fn entry(&self, path: &str) -> Option<EntryRef<'_>> {
        self.index.find(path).map(Entry::as_ref)
    }

    fn require(&self, path: &str) -> Result<&Entry, PalletError> {
        self.index.find(path).ok_or_else(|| PalletError::NotFound {
            file: self.name.clone(),
            path: path.to_owned(),
        })
    }

    /// The entry's raw bytes, with its CRC32 checked: borrowed from the file for a stored
    /// entry, decompressed for an LZ4 one.
    pub fn read(&self, path: &str) -> Result<Cow<'_, [u8]>, PalletError> {
        let e = self.require(path)?;
        read_entry(self.storage.bytes(), e, &self.name)
    }

    /// A stored entry's bytes as a plain range of the file (aligned to
    /// [`alignment`](Self::alignment) within the file), for reading by sub-range — a voxel
    /// payload's header and region index, say. Not CRC-checked (that would read the whole
    /// entry); [`read`](Self::read) checks. Errors for an LZ4 entry.
    pub fn range(&self, path: &str) -> Result<&[u8], PalletError> {
        let e = self.require(path)?;
        if e.codec != Codec::Stored {
            return Err(PalletError::NotStored {
                file: self.name.clone(),
                path: path.to_owned(),
            });
        }
        stored_bytes(self.storage.bytes(), e, &self.name)
    }

    /// Reads every entry and checks its CRC32; the first failure is returned.
    pub fn verify_all(&self) -> Result<(), PalletError> {
        for e in &self.index.entries {
            read_entry(self.storage.bytes(), e, &self.name)?;
        }
        Ok(())
    }
}

/// Parses `data` as a pallet and reads every entry, ignoring errors: the body of the
/// `.pallet` fuzz target. Must never panic, hang, or allocate beyond the caps.
pub(crate) fn fuzz_read_impl(data: &[u8]) {
    if let Ok(index) = Index::parse(data, "<fuzz input>") {
        for e in &index.entries {
            let _ = read_entry(data, e, "<fuzz input>");
        }
        let _ = index.find("a");
    }
}
