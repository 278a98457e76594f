//! Constants of the container and the bounds-checked little-endian reader/writer helpers.

use super::error::PalletError;

/// The eight bytes every `.pallet` starts with.
pub const MAGIC: [u8; 8] = *b"DHPALLET";
/// The container layout version this crate writes and reads.
pub const FORMAT_VERSION: u16 = 1;
/// Length of the fixed header.
pub const HEADER_LEN: usize = 64;
/// The alignment the writer gives every entry's data (a stored entry is a plain,
/// 64-byte-aligned byte range of the file).
pub const ALIGNMENT: u32 = 64;
/// The largest alignment a reader accepts in a header.
pub const MAX_ALIGNMENT: u32 = 4096;
/// The largest entry, raw or stored: 1 GiB.
pub const MAX_ENTRY_LEN: u64 = 1 << 30;
/// The most entries a pallet may hold.
pub const MAX_ENTRIES: u32 = 1 << 20;
/// The longest entry path, in bytes.
pub const MAX_PATH_LEN: usize = 1024;
/// The longest manifest string (id, name, version, dependency id, look, MIME type), in bytes.
pub const MAX_STRING_LEN: usize = 1024;
/// The most dependencies (and used dependencies) a manifest may list.
pub const MAX_DEPENDENCIES: usize = 4096;
/// The largest encoded manifest, in bytes.
pub const MAX_MANIFEST_LEN: u32 = 1 << 20;
/// An LZ4 block cannot expand more than ~255:1; a table claiming more is lying, and the
/// reader refuses to allocate for it. Raw length must be at most `stored * 256 + 64`.
pub const LZ4_MAX_RATIO: u64 = 256;

/// The fixed part of a table record: u16 path length, u8 codec, u8 filter, u8 wrap,
/// u8 color space, u16 MIME length, u64 offset, u64 stored length, u64 raw length,
/// u32 raw CRC32, u32 folded CRC32.
pub(crate) const RECORD_FIXED_LEN: usize = 2 + 1 + 3 + 2 + 8 + 8 + 8 + 4 + 4;
/// The smallest possible table record (a one-byte path, no MIME type).
pub(crate) const RECORD_MIN_LEN: usize = RECORD_FIXED_LEN + 1;

/// Byte offsets of the header fields.
pub(crate) mod hdr {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 8;
    pub const FLAGS: usize = 10;
    pub const ALIGNMENT: usize = 12;
    pub const FILE_LEN: usize = 16;
    pub const MANIFEST_LEN: usize = 24;
    pub const ENTRY_COUNT: usize = 28;
    pub const TABLE_LEN: usize = 32;
    pub const DATA_OFFSET: usize = 40;
    pub const INDEX_CRC: usize = 48;
    pub const RESERVED: usize = 52;
}

/// Rounds `v` up to a multiple of `align` (a power of two). `None` on overflow.
pub(crate) fn align_up(v: u64, align: u64) -> Option<u64> {
    let mask = align.checked_sub(1)?;
    v.checked_add(mask).map(|x| x & !mask)
}

/// A bounds-checked little-endian reader over one section of the file.
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute file offset of `data[0]`, for messages.
    base: u64,
    file: &'a str,
    section: &'static str,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(data: &'a [u8], base: u64, file: &'a str, section: &'static str) -> Self {
        Self {
            data,
            pos: 0,
            base,
            file,
            section,
        }
    }

    /// Absolute file offset of the next byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub(crate) fn take(&mut self, n: usize, expected: &str) -> Result<&'a [u8], PalletError> {
        let have = self.remaining();
        if n > have {
            return Err(PalletError::Truncated {
                file: self.file.to_owned(),
                offset: self.offset(),
                section: self.section,
                expected: expected.to_owned(),
                need: n as u64,
                have: have as u64,
            });
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, expected: &str) -> Result<[u8; N], PalletError> {
        let bytes = self.take(N, expected)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    pub(crate) fn u8(&mut self, expected: &str) -> Result<u8, PalletError> {
        Ok(self.array::<1>(expected)?[0])
    }

    pub(crate) fn u16(&mut self, expected: &str) -> Result<u16, PalletError> {
        Ok(u16::from_le_bytes(self.array(expected)?))
    }

    pub(crate) fn u32(&mut self, expected: &str) -> Result<u32, PalletError> {
        Ok(u32::from_le_bytes(self.array(expected)?))
    }

    pub(crate) fn u64(&mut self, expected: &str) -> Result<u64, PalletError> {
        Ok(u64::from_le_bytes(self.array(expected)?))
    }

    /// A u16-length-prefixed UTF-8 string of at most `max` bytes.
    pub(crate) fn str(&mut self, what: &str, max: usize) -> Result<&'a str, PalletError> {
        let at = self.offset();
        let len = usize::from(self.u16(&format!("the u16 byte length of {what}"))?);
        if len > max {
            return Err(self.malformed(
                at,
                format!("the length of {what}"),
                format!("{len} bytes"),
                format!("at most {max} bytes"),
            ));
        }
        let bytes = self.take(len, &format!("the {len} UTF-8 bytes of {what}"))?;
        std::str::from_utf8(bytes).map_err(|e| {
            self.malformed(
                at + 2,
                what.to_owned(),
                format!("not UTF-8 ({e})"),
                "UTF-8 text".to_owned(),
            )
        })
    }

    pub(crate) fn malformed(
        &self,
        offset: u64,
        what: String,
        found: String,
        expected: String,
    ) -> PalletError {
        PalletError::Malformed {
            file: self.file.to_owned(),
            offset,
            what,
            found,
            expected,
        }
    }
}

pub(crate) fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(crate) fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(crate) fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Writes a u16-length-prefixed string. Callers validate `s.len() <= MAX_STRING_LEN`
/// (or `MAX_PATH_LEN`) first; both are far below `u16::MAX`.
pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    let len = u16::try_from(s.len()).unwrap_or(u16::MAX);
    put_u16(out, len);
    out.extend_from_slice(&s.as_bytes()[..usize::from(len)]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_sizes() {
        assert_eq!(RECORD_FIXED_LEN, 40);
        assert_eq!(RECORD_MIN_LEN, 41);
        assert_eq!(hdr::RESERVED + 12, HEADER_LEN);
    }

    #[test]
    fn align_up_works_and_saturates() {
        assert_eq!(align_up(0, 64), Some(0));
        assert_eq!(align_up(1, 64), Some(64));
        assert_eq!(align_up(64, 64), Some(64));
        assert_eq!(align_up(u64::MAX, 64), None);
    }

    #[test]
    fn cursor_never_reads_past_its_section() {
        let data = [2u8, 0, b'x'];
        let mut c = Cursor::new(&data, 100, "f", "manifest");
        let err = c.str("the id", 10).unwrap_err();
        assert!(err.to_string().contains("byte 102"), "{err}");
        let mut c = Cursor::new(&data, 0, "f", "manifest");
        assert!(c.u64("x").is_err());
        assert_eq!(c.u16("x").unwrap(), 2);
    }
}
