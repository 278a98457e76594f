//! The `.pallet` container: one file holding a compiled pallet.
//!
//! A pallet is written by [`PalletWriter`] (deterministically: the same manifest and
//! entries give the same bytes, whatever order they were added in) and read by
//! [`Pallet`], which memory-maps the file, validates the whole index up front, hands out
//! stored entries as borrowed byte ranges and decompresses LZ4 entries on request.
//!
//! # On-disk layout (format version 1)
//!
//! Little-endian throughout. A string is a u16 byte length then that many UTF-8 bytes.
//!
//! ```text
//! ┌──────────────────────────┐ 0
//! │ header (64 bytes)        │
//! ├──────────────────────────┤ 64
//! │ manifest                 │ manifest_len bytes
//! ├──────────────────────────┤ 64 + manifest_len
//! │ entry table              │ table_len bytes, one record per entry, sorted by path
//! ├──────────────────────────┤
//! │ zero padding             │ to data_offset (a multiple of the alignment)
//! ├──────────────────────────┤ data_offset
//! │ entry data               │ each entry at a multiple of the alignment, in path
//! │                          │ order, zero padding between; the file ends where the
//! │                          │ last entry's data ends
//! └──────────────────────────┘ file_len
//! ```
//!
//! **Header** (64 bytes)
//!
//! | offset | size | field | rule |
//! | ---: | ---: | --- | --- |
//! | 0 | 8 | magic | `DHPALLET` |
//! | 8 | 2 | format version | 1 |
//! | 10 | 2 | flags | 0 (none defined) |
//! | 12 | 4 | alignment | 64 when written; a reader takes a power of two, 8 ..= 4096 |
//! | 16 | 8 | file length | the file's actual length |
//! | 24 | 4 | manifest length | ≤ 1 MiB |
//! | 28 | 4 | entry count | ≤ 2²⁰, and ≤ table length / 41 |
//! | 32 | 8 | entry table length | the table ends inside the file |
//! | 40 | 8 | data offset | aligned, ≥ the table's end, ≤ the file length |
//! | 48 | 4 | index CRC32 | CRC32 (IEEE) of header bytes 0..48, then the manifest and table bytes |
//! | 52 | 12 | reserved | zero |
//!
//! **Manifest** (at byte 64; must be consumed exactly)
//!
//! | field | encoding |
//! | --- | --- |
//! | id, name, version | 3 strings (each ≤ 1024 bytes) |
//! | dependencies | u16 count (≤ 4096), then that many id strings (author order, unique) |
//! | used dependencies | u16 count (≤ 4096), then per dependency an id string and its contentChecksum string; sorted by id, unique |
//! | default look | u8 0 (none) or 1, then a string if 1 |
//! | buildInfo.formulaVersion | u32 ([`CHECKSUM_FORMULA_VERSION`]) |
//! | buildInfo.contentChecksum | string: 64 lower-case hex digits (SHA-256) |
//!
//! No timestamp and no compiler version are recorded.
//!
//! **Entry table record** (40 bytes + path + MIME type; records packed back to back)
//!
//! | size | field | rule |
//! | ---: | --- | --- |
//! | 2 + n | path | string, 1 ..= 1024 bytes, valid per [`check_path`], strictly greater than the previous record's path (byte order) |
//! | 1 | codec | 0 stored, 1 LZ4 block (no frame, no size prefix) |
//! | 1 | filter | 0 unset, 1 point, 2 bilinear, 3 trilinear |
//! | 1 | wrap | 0 unset, 1 repeat, 2 clamp, 3 mirror |
//! | 1 | color space | 0 unset, 1 sRGB, 2 linear |
//! | 2 + m | MIME type | string, ≤ 1024 bytes; empty = unset |
//! | 8 | data offset | absolute; a multiple of the alignment; ≥ the header's data offset |
//! | 8 | stored length | ≤ 1 GiB; offset + stored length ≤ file length; no two entries' bytes overlap |
//! | 8 | raw length | ≤ 1 GiB; = stored length when stored; ≤ stored × 256 + 64 when LZ4 |
//! | 4 | raw CRC32 | CRC32 (IEEE) of the raw (decoded) bytes; checked on every [`Pallet::read`] |
//! | 4 | folded CRC32 | [`fold_crc32`]`(raw CRC32, meta)`: the asset cache key; checked at open |
//!
//! The filter / wrap / color space / MIME bytes of a record are exactly the metadata bytes
//! that [`fold_crc32`] folds.
//!
//! # Checksums (formula version 1)
//!
//! * **Folded CRC32** = CRC32(raw bytes ‖ `"DHPF"` ‖ u32 formula version ‖ u8 filter ‖
//!   u8 wrap ‖ u8 color space ‖ u16 MIME length ‖ MIME bytes), computed by continuing
//!   the raw CRC32 over the trailer. Changing any metadata field changes it, so caches
//!   keyed on it never serve a texture built with old settings.
//! * **`buildInfo.contentChecksum`** = lower-case hex SHA-256 of `"DHPALLET-CONTENT"` ‖
//!   u32 formula version ‖ u32 length and bytes of the manifest up to (not including)
//!   buildInfo — id, name, version, dependencies, used dependencies with their checksums,
//!   default look ‖ u32 entry count ‖ per entry in path order: path string, u64 raw
//!   length, u32 folded CRC32. Codecs, offsets, stored lengths and padding are left out,
//!   so a rebuild that changed nothing keeps the value. The reader recomputes it at open.
//!
//! Both fold [`CHECKSUM_FORMULA_VERSION`]; changing what they cover means bumping it, so
//! every existing pallet's values change exactly once. A pallet recording another formula
//! version still opens, with its stored values served as-is
//! ([`Pallet::checksums_verified`] is false).
//!
//! # Voxel payloads
//!
//! `.dh-vox.bin` payloads are read by range, so they are always stored (never LZ4). A
//! payload is split across sibling entries once a shard holds [`VOXEL_SHARD_BYTES`]
//! (256 MiB) of regions: shard 0 is the payload itself, shard n is
//! [`voxel_shard_name`]`(payload, n)` = `<payload>.<n>`.

mod checksum;
mod entry;
mod error;
mod format;
mod manifest;
mod path;
mod reader;
mod writer;

pub use checksum::{fold_crc32, CHECKSUM_FORMULA_VERSION};
pub use entry::{Codec, CodecChoice, ColorSpace, EntryMeta, EntryRef, Filter, Wrap};
pub use error::PalletError;
pub use format::{
    ALIGNMENT, FORMAT_VERSION, HEADER_LEN, LZ4_MAX_RATIO, MAGIC, MAX_ALIGNMENT, MAX_DEPENDENCIES,
    MAX_ENTRIES, MAX_ENTRY_LEN, MAX_MANIFEST_LEN, MAX_PATH_LEN, MAX_STRING_LEN,
};
pub use manifest::{BuildInfo, Manifest, UsedDependency};
pub use path::check_path;
pub use reader::Pallet;
pub use writer::{PalletWriter, WriteOutcome};

/// The voxel compiler starts a new payload shard once one holds this many bytes of
/// regions (256 MiB), so a world larger than the 1 GiB entry cap splits across entries.
pub const VOXEL_SHARD_BYTES: u64 = 256 << 20;

/// The suffix of a voxel payload entry.
pub const VOXEL_PAYLOAD_SUFFIX: &str = ".dh-vox.bin";

/// The entry path of shard `shard` of the voxel payload `payload_path`: the payload
/// itself for shard 0, `<payload>.<n>` for shard n.
pub fn voxel_shard_name(payload_path: &str, shard: u16) -> String {
    if shard == 0 {
        payload_path.to_owned()
    } else {
        format!("{payload_path}.{shard}")
    }
}

/// Whether `path` is a voxel payload or one of its shards (`*.dh-vox.bin` or
/// `*.dh-vox.bin.<n>`, n a decimal shard number): entries that are read by range and so
/// must be stored.
pub fn is_voxel_payload(path: &str) -> bool {
    if path.ends_with(VOXEL_PAYLOAD_SUFFIX) {
        return true;
    }
    match path.rsplit_once('.') {
        Some((stem, n)) => {
            stem.ends_with(VOXEL_PAYLOAD_SUFFIX)
                && !n.is_empty()
                && n.len() <= 5
                && n.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// Parses `data` as a pallet and reads every entry, ignoring every error: the body of
/// the `.pallet` cargo-fuzz target. It must never panic, and it allocates at most in
/// proportion to the input (decompression is bounded by the table's caps).
pub fn fuzz_read(data: &[u8]) {
    reader::fuzz_read_impl(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_names() {
        assert_eq!(voxel_shard_name("w/a.dh-vox.bin", 0), "w/a.dh-vox.bin");
        assert_eq!(voxel_shard_name("w/a.dh-vox.bin", 3), "w/a.dh-vox.bin.3");
        assert_eq!(VOXEL_SHARD_BYTES * 4, MAX_ENTRY_LEN);
    }

    #[test]
    fn voxel_payload_paths() {
        assert!(is_voxel_payload("w/a.dh-vox.bin"));
        assert!(is_voxel_payload(&voxel_shard_name("w/a.dh-vox.bin", 12)));
        assert!(!is_voxel_payload("w/a.dh-vox"));
        assert!(!is_voxel_payload("w/a.dh-vox.bin.x"));
        assert!(!is_voxel_payload("w/a.dh-vox.bin."));
        assert!(!is_voxel_payload("w/a.bin.1"));
    }
}
