//! Little-endian field reading (bounds- and cap-checked) and writing for the payload.

use super::error::PayloadError;

/// Reads fields from one section of one shard. Every read is checked against the bytes
/// that remain in the section; errors name the shard file, the absolute byte offset in
/// it, the section and (when set) the item being read.
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    file: &'a str,
    data: &'a [u8],
    pos: usize,
    end: usize,
    section: &'static str,
    item: Option<(&'static str, u64)>,
}

impl<'a> Cursor<'a> {
    /// A cursor over `data[start..end]` (clamped to `data`), `data` being a whole shard.
    pub(crate) fn new(
        file: &'a str,
        data: &'a [u8],
        start: usize,
        end: usize,
        section: &'static str,
    ) -> Self {
        let end = end.min(data.len());
        Cursor {
            file,
            data,
            pos: start.min(end),
            end,
            section,
            item: None,
        }
    }

    /// The shard file's name.
    pub(crate) fn file(&self) -> &'a str {
        self.file
    }

    /// The absolute offset of the next byte.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left in the section.
    pub(crate) fn remaining(&self) -> usize {
        self.end - self.pos
    }

    /// Switches to another section name (the same bytes continue).
    pub(crate) fn section(&mut self, section: &'static str) {
        self.section = section;
        self.item = None;
    }

    /// Names the item being read (`"palette entry"`, 5) in later errors.
    pub(crate) fn item(&mut self, what: &'static str, index: u64) {
        self.item = Some((what, index));
    }

    fn place(&self, what: &str) -> String {
        match self.item {
            Some((item, i)) => format!("{item} {i}: {what}"),
            None => what.to_owned(),
        }
    }

    /// A `Malformed` error at absolute offset `at`.
    pub(crate) fn bad(
        &self,
        at: usize,
        what: &str,
        found: impl Into<String>,
        expected: impl Into<String>,
    ) -> PayloadError {
        PayloadError::Malformed {
            file: self.file.to_owned(),
            offset: at as u64,
            what: format!("{}: {}", self.section, self.place(what)),
            found: found.into(),
            expected: expected.into(),
        }
    }

    /// Takes `n` bytes.
    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], PayloadError> {
        if n > self.remaining() {
            return Err(PayloadError::Truncated {
                file: self.file.to_owned(),
                offset: self.pos as u64,
                section: self.section,
                expected: self.place(what),
                need: n as u64,
                have: self.remaining() as u64,
            });
        }
        let s = self.data.get(self.pos..self.pos + n).unwrap_or_default();
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], PayloadError> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// A u8.
    pub(crate) fn u8(&mut self, what: &str) -> Result<u8, PayloadError> {
        Ok(self.array::<1>(what)?[0])
    }
    /// A u16.
    pub(crate) fn u16(&mut self, what: &str) -> Result<u16, PayloadError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    /// A u32.
    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, PayloadError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    /// A u64.
    pub(crate) fn u64(&mut self, what: &str) -> Result<u64, PayloadError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
    /// An i32.
    pub(crate) fn i32(&mut self, what: &str) -> Result<i32, PayloadError> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }
    /// Three i32s.
    pub(crate) fn i32x3(&mut self, what: &str) -> Result<[i32; 3], PayloadError> {
        Ok([self.i32(what)?, self.i32(what)?, self.i32(what)?])
    }
    /// An f32.
    pub(crate) fn f32(&mut self, what: &str) -> Result<f32, PayloadError> {
        Ok(f32::from_le_bytes(self.array(what)?))
    }
    /// An f64.
    pub(crate) fn f64(&mut self, what: &str) -> Result<f64, PayloadError> {
        Ok(f64::from_le_bytes(self.array(what)?))
    }
    /// A u8 that must be 0 or 1.
    pub(crate) fn flag(&mut self, what: &str) -> Result<bool, PayloadError> {
        let at = self.pos;
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(self.bad(at, what, b.to_string(), "0 or 1")),
        }
    }

    /// A string: u16 length, UTF-8.
    pub(crate) fn string(&mut self, what: &str) -> Result<String, PayloadError> {
        let n = self.u16(what)? as usize;
        let at = self.pos;
        let b = self.take(n, what)?;
        match std::str::from_utf8(b) {
            Ok(s) => Ok(s.to_owned()),
            Err(e) => Err(self.bad(
                at,
                what,
                format!("not UTF-8 (byte {} of the string)", e.valid_up_to()),
                "a UTF-8 string",
            )),
        }
    }

    /// A count already read at `at`, checked against `cap` and against the bytes left
    /// (each item needs at least `min_item` bytes), so a caller may reserve that many.
    pub(crate) fn check_count(
        &self,
        at: usize,
        count: u64,
        cap: u64,
        min_item: usize,
        what: &str,
    ) -> Result<usize, PayloadError> {
        if count > cap {
            return Err(self.bad(at, what, count.to_string(), format!("at most {cap}")));
        }
        let fits = self.remaining() as u64 / (min_item.max(1) as u64);
        if count > fits {
            return Err(PayloadError::Truncated {
                file: self.file.to_owned(),
                offset: self.pos as u64,
                section: self.section,
                expected: self.place(&format!("{count} × {what}")),
                need: count.saturating_mul(min_item as u64),
                have: self.remaining() as u64,
            });
        }
        Ok(count as usize)
    }
}

/// Writes fields to a growing byte vector.
#[derive(Default)]
pub(crate) struct Out {
    /// The bytes written so far.
    pub(crate) buf: Vec<u8>,
}

impl Out {
    pub(crate) fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub(crate) fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn i32x3(&mut self, v: [i32; 3]) {
        for x in v {
            self.i32(x);
        }
    }
    pub(crate) fn f32(&mut self, v: f32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn f64(&mut self, v: f64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// A string; `place` names it when it is too long.
    pub(crate) fn string(
        &mut self,
        s: &str,
        place: impl FnOnce() -> String,
    ) -> Result<(), PayloadError> {
        let n = u16::try_from(s.len()).map_err(|_| PayloadError::Invalid {
            place: place(),
            problem: format!("is {} bytes long; a string holds at most 65535", s.len()),
        })?;
        self.u16(n);
        self.bytes(s.as_bytes());
        Ok(())
    }
}
