//! Entry-level types: codecs, the out-of-band metadata folded into an entry's CRC, and
//! the borrowed view of a table record.

use super::format::{put_u16, MAX_STRING_LEN};

/// How an entry's bytes are held in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Codec {
    /// The raw bytes, as a plain aligned byte range of the file.
    Stored,
    /// One LZ4 block (no frame, no size prefix); the raw length is in the table.
    Lz4,
}

impl Codec {
    /// The byte written in the entry table.
    pub fn code(self) -> u8 {
        match self {
            Codec::Stored => 0,
            Codec::Lz4 => 1,
        }
    }

    /// The codec for a table byte, if known.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(Codec::Stored),
            1 => Some(Codec::Lz4),
            _ => None,
        }
    }
}

/// What the writer may do with an entry's bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CodecChoice {
    /// LZ4 when it makes the entry occupy fewer aligned blocks of the file, stored
    /// otherwise. Voxel payloads (`*.dh-vox.bin` and their shards) are always stored.
    #[default]
    Auto,
    /// Always stored: the entry must be readable by range.
    Stored,
    /// Always LZ4. Refused for voxel payloads, which are read by range.
    Lz4,
}

/// Texture sampling filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    /// Nearest texel.
    Point,
    /// Bilinear within one mip.
    Bilinear,
    /// Bilinear with linear blending between mips.
    Trilinear,
}

/// Texture addressing outside `[0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wrap {
    /// Tile.
    Repeat,
    /// Clamp to the edge texel.
    Clamp,
    /// Tile, mirroring every other repeat.
    Mirror,
}

/// How a texture's channels are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColorSpace {
    /// sRGB-encoded color (decoded to linear on sampling).
    Srgb,
    /// Linear data (normals, masks, HDR).
    Linear,
}

/// An entry's out-of-band metadata: lives in the entry table, not in the blob, and is
/// folded into the entry's CRC32 (see [`fold_crc32`](super::fold_crc32)) so that caches
/// keyed on that CRC see a change to any of it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct EntryMeta {
    /// MIME type (`image/png`, `model/gltf-binary`, ...). `None` for "unspecified";
    /// `Some("")` is refused by the writer.
    pub mime: Option<String>,
    /// Sampling filter, for textures.
    pub filter: Option<Filter>,
    /// Addressing mode, for textures.
    pub wrap: Option<Wrap>,
    /// Color space, for textures.
    pub color_space: Option<ColorSpace>,
}

impl EntryMeta {
    /// Metadata with only a MIME type.
    pub fn mime(mime: impl Into<String>) -> Self {
        Self {
            mime: Some(mime.into()),
            ..Self::default()
        }
    }
}

pub(crate) fn filter_code(f: Option<Filter>) -> u8 {
    match f {
        None => 0,
        Some(Filter::Point) => 1,
        Some(Filter::Bilinear) => 2,
        Some(Filter::Trilinear) => 3,
    }
}

pub(crate) fn filter_from(code: u8) -> Result<Option<Filter>, ()> {
    Ok(match code {
        0 => None,
        1 => Some(Filter::Point),
        2 => Some(Filter::Bilinear),
        3 => Some(Filter::Trilinear),
        _ => return Err(()),
    })
}

pub(crate) fn wrap_code(w: Option<Wrap>) -> u8 {
    match w {
        None => 0,
        Some(Wrap::Repeat) => 1,
        Some(Wrap::Clamp) => 2,
        Some(Wrap::Mirror) => 3,
    }
}

pub(crate) fn wrap_from(code: u8) -> Result<Option<Wrap>, ()> {
    Ok(match code {
        0 => None,
        1 => Some(Wrap::Repeat),
        2 => Some(Wrap::Clamp),
        3 => Some(Wrap::Mirror),
        _ => return Err(()),
    })
}

pub(crate) fn color_space_code(c: Option<ColorSpace>) -> u8 {
    match c {
        None => 0,
        Some(ColorSpace::Srgb) => 1,
        Some(ColorSpace::Linear) => 2,
    }
}

pub(crate) fn color_space_from(code: u8) -> Result<Option<ColorSpace>, ()> {
    Ok(match code {
        0 => None,
        1 => Some(ColorSpace::Srgb),
        2 => Some(ColorSpace::Linear),
        _ => return Err(()),
    })
}

/// The canonical metadata bytes, as written in a table record after the codec byte and
/// as folded into the CRC: u8 filter, u8 wrap, u8 color space (0 = unset), u16 MIME
/// length (0 = unset), MIME bytes.
pub(crate) fn encode_meta(meta: &EntryMeta, out: &mut Vec<u8>) {
    out.push(filter_code(meta.filter));
    out.push(wrap_code(meta.wrap));
    out.push(color_space_code(meta.color_space));
    let mime = meta.mime.as_deref().unwrap_or("");
    debug_assert!(mime.len() <= MAX_STRING_LEN);
    put_u16(out, u16::try_from(mime.len()).unwrap_or(0));
    out.extend_from_slice(mime.as_bytes());
}

/// Why a meta is not writable, if it is not.
pub(crate) fn check_meta(meta: &EntryMeta) -> Result<(), (&'static str, String)> {
    if let Some(mime) = &meta.mime {
        if mime.is_empty() {
            return Err(("mime", "is empty; use None for no MIME type".to_owned()));
        }
        if mime.len() > MAX_STRING_LEN {
            return Err((
                "mime",
                format!("is {} bytes; at most {MAX_STRING_LEN}", mime.len()),
            ));
        }
        if mime.chars().any(char::is_control) {
            return Err(("mime", "contains a control character".to_owned()));
        }
    }
    Ok(())
}

/// One entry of an open pallet's table, borrowed from the [`Pallet`](super::Pallet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryRef<'a> {
    /// The entry's path inside the pallet.
    pub path: &'a str,
    /// How its bytes are held.
    pub codec: Codec,
    /// Absolute byte offset of its data in the file (a multiple of the alignment).
    pub offset: u64,
    /// Bytes it occupies in the file.
    pub stored_len: u64,
    /// Bytes once decoded (equal to `stored_len` for a stored entry).
    pub raw_len: u64,
    /// CRC32 of the raw bytes alone.
    pub raw_crc32: u32,
    /// CRC32 folded with the metadata and the formula version: the key asset caches use.
    pub crc32: u32,
    /// The out-of-band metadata.
    pub meta: &'a EntryMeta,
}

impl EntryRef<'_> {
    /// The entry's content signature, `(folded CRC32, raw length)`: what the cooked
    /// collision cache key folds in alongside the path.
    pub fn signature(&self) -> (u32, u64) {
        (self.crc32, self.raw_len)
    }
}
