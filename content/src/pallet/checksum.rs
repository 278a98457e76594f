//! The two checksum formulas: the folded entry CRC32 and the pallet's `contentChecksum`.

use super::entry::{encode_meta, EntryMeta};
use super::format::{put_str, put_u32, put_u64};
use super::manifest::{encode_identity, Manifest};
use sha2::{Digest, Sha256};

use crate::hash::hex;

/// The version of both checksum formulas. Folded into each, so changing what they cover
/// (and bumping this) changes every pallet's values exactly once.
pub const CHECKSUM_FORMULA_VERSION: u32 = 1;

/// Domain tag of the folded CRC32 trailer.
const FOLD_TAG: &[u8; 4] = b"DHPF";
/// Domain tag of the content checksum input.
const CONTENT_TAG: &[u8; 16] = b"DHPALLET-CONTENT";

/// An entry's folded CRC32 (formula version 1): the CRC32 of the raw bytes continued over
/// a trailer, i.e. `CRC32(raw ‖ "DHPF" ‖ u32 formula version ‖ meta)`, where `meta` is
/// u8 filter, u8 wrap, u8 color space (0 = unset; codes as in the entry table), u16 MIME
/// length (0 = unset) and the MIME bytes, all little-endian. `raw_crc32` is the plain
/// CRC32 (IEEE) of the raw bytes.
pub fn fold_crc32(raw_crc32: u32, meta: &EntryMeta) -> u32 {
    let mut trailer = Vec::with_capacity(16 + meta.mime.as_ref().map_or(0, String::len));
    trailer.extend_from_slice(FOLD_TAG);
    put_u32(&mut trailer, CHECKSUM_FORMULA_VERSION);
    encode_meta(meta, &mut trailer);
    let mut h = crc32fast::Hasher::new_with_initial(raw_crc32);
    h.update(&trailer);
    h.finalize()
}

/// `buildInfo.contentChecksum` (formula version 1): lower-case hex SHA-256 of
///
/// ```text
/// "DHPALLET-CONTENT"                      16 bytes
/// u32 formula version (1)
/// u32 n, then the n manifest identity bytes: the manifest section as written up to, not
///         including, buildInfo (id, name, version, dependencies, used dependencies with
///         their checksums, default look)
/// u32 entry count
/// per entry, in path order: u16 path length, path bytes, u64 raw length, u32 folded CRC32
/// ```
///
/// The codec, offsets, stored lengths and padding (the blob layout) are left out, so a
/// rebuild that changed no content gives the same value whatever the compressor did.
pub(crate) fn content_checksum<'a>(
    manifest: &Manifest,
    entry_count: usize,
    entries: impl IntoIterator<Item = (&'a str, u64, u32)>,
) -> String {
    let mut identity = Vec::new();
    encode_identity(manifest, &mut identity);
    let mut buf = Vec::with_capacity(64 + identity.len());
    buf.extend_from_slice(CONTENT_TAG);
    put_u32(&mut buf, CHECKSUM_FORMULA_VERSION);
    put_u32(&mut buf, u32::try_from(identity.len()).unwrap_or(u32::MAX));
    buf.extend_from_slice(&identity);
    put_u32(&mut buf, u32::try_from(entry_count).unwrap_or(u32::MAX));
    let mut h = Sha256::new();
    h.update(&buf);
    for (path, raw_len, folded) in entries {
        buf.clear();
        put_str(&mut buf, path);
        put_u64(&mut buf, raw_len);
        put_u32(&mut buf, folded);
        h.update(&buf);
    }
    hex(&h.finalize())
}

#[cfg(test)]
mod tests {
    use super::super::entry::{ColorSpace, Filter, Wrap};
    use super::*;

    #[test]
    fn fold_is_a_crc_of_the_concatenation() {
        let raw = b"hello texture";
        let meta = EntryMeta {
            mime: Some("image/png".into()),
            filter: Some(Filter::Bilinear),
            wrap: Some(Wrap::Repeat),
            color_space: Some(ColorSpace::Srgb),
        };
        let mut whole = raw.to_vec();
        whole.extend_from_slice(b"DHPF");
        whole.extend_from_slice(&1u32.to_le_bytes());
        encode_meta(&meta, &mut whole);
        assert_eq!(
            fold_crc32(crc32fast::hash(raw), &meta),
            crc32fast::hash(&whole)
        );
    }

    #[test]
    fn fold_changes_with_every_meta_field() {
        let crc = crc32fast::hash(b"x");
        let base = EntryMeta::default();
        let variants = [
            EntryMeta::mime("image/png"),
            EntryMeta {
                filter: Some(Filter::Point),
                ..base.clone()
            },
            EntryMeta {
                wrap: Some(Wrap::Clamp),
                ..base.clone()
            },
            EntryMeta {
                color_space: Some(ColorSpace::Srgb),
                ..base.clone()
            },
            EntryMeta {
                color_space: Some(ColorSpace::Linear),
                ..base.clone()
            },
        ];
        let mut seen = vec![fold_crc32(crc, &base)];
        for v in &variants {
            let f = fold_crc32(crc, v);
            assert!(!seen.contains(&f), "{v:?}");
            seen.push(f);
        }
        assert_ne!(fold_crc32(crc, &base), crc);
    }
}
