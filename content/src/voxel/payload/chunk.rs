//! Chunk records and bodies: choosing the smallest mode, packing, and reading back.

use super::bytes::{Cursor, Out};
use super::error::PayloadError;

/// Codec tag: the body is stored as is.
pub const CODEC_STORED: u8 = 0;
/// Codec tag: the body is one LZ4 block.
pub const CODEC_LZ4: u8 = 1;
/// Body mode: one local entry, no cell data.
pub const MODE_UNIFORM: u8 = 0;
/// Body mode: one local index per cell at 1, 2, 4, 8 or 16 bits.
pub const MODE_PACKED: u8 = 1;
/// Body mode: (cell, local index) pairs over local entry 0.
pub const MODE_SPARSE: u8 = 2;

/// The largest raw body a chunk of `cells` cells can need (a sparse body with a local
/// entry per cell), plus slack: the cap on a record's raw length.
pub fn chunk_body_cap(cells: usize) -> usize {
    16 + 8 * cells
}

/// The packed width for a local palette of `k` entries: the smallest of 1, 2, 4, 8, 16
/// with k ≤ 2^w; `None` past 65536 entries.
pub(crate) fn packed_bits(k: usize) -> Option<u32> {
    [1u32, 2, 4, 8, 16].into_iter().find(|&w| k <= 1usize << w)
}

/// Words of a packed body of `cells` cells at `bits` bits.
fn packed_words(cells: usize, bits: u32) -> usize {
    let per = (64 / bits) as usize;
    cells.div_ceil(per)
}

/// The entry a chunk's local palette puts first: the most common value, the smallest on
/// a tie (`distinct` holds (value, count) pairs, values distinct).
fn most_common(distinct: &[(u32, u32)]) -> usize {
    let mut j0 = 0;
    for (j, &(v, c)) in distinct.iter().enumerate() {
        let (bv, bc) = distinct[j0];
        if c > bc || (c == bc && v < bv) {
            j0 = j;
        }
    }
    j0
}

/// How a body of `k` local entries over `n` cells is stored: packed at `bits`, or sparse
/// (`pairs` cells not holding entry 0) when that is strictly smaller.
struct Layout {
    bits: u32,
    sparse: bool,
    pairs: usize,
    size: usize,
}

impl Layout {
    fn of(k: usize, n: usize, first_count: u32) -> Layout {
        let bits = packed_bits(k).unwrap_or(16);
        let packed_size = 3 + 4 * k + 8 * packed_words(n, bits);
        let pairs = n - first_count as usize;
        let sparse_size = 5 + 4 * k + 4 * pairs;
        let sparse = sparse_size < packed_size;
        Layout {
            bits,
            sparse,
            pairs,
            size: packed_size.min(sparse_size),
        }
    }

    /// The mode, the entry count `k` and entry 0; the other entries follow, ascending.
    fn begin(&self, out: &mut Out, k: usize, first: u32) {
        out.buf.reserve(self.size);
        out.u8(if self.sparse {
            MODE_SPARSE
        } else {
            MODE_PACKED
        });
        out.u16(k as u16);
        out.u32(first);
    }

    /// The cells, each through `local_of` to its local index.
    fn write_cells<T: Copy>(
        &self,
        out: &mut Out,
        cells: &[T],
        local_of: &mut impl FnMut(T) -> u32,
    ) {
        if self.sparse {
            out.u16(self.pairs as u16);
            for (i, &v) in cells.iter().enumerate() {
                let l = local_of(v);
                if l != 0 {
                    out.u16(i as u16);
                    out.u16(l as u16);
                }
            }
        } else {
            // The width fixed at compile time, so each word's loop unrolls.
            match self.bits {
                1 => pack::<1, T>(out, cells, local_of),
                2 => pack::<2, T>(out, cells, local_of),
                4 => pack::<4, T>(out, cells, local_of),
                8 => pack::<8, T>(out, cells, local_of),
                _ => pack::<16, T>(out, cells, local_of),
            }
        }
    }
}

/// Packs each cell's local index (through `local_of`) at `BITS` bits into little-endian
/// words, `64 / BITS` to a word, the lowest bits first; the last word may be short.
#[inline]
fn pack<const BITS: u32, T: Copy>(out: &mut Out, cells: &[T], local_of: &mut impl FnMut(T) -> u32) {
    let per = (64 / BITS) as usize;
    for word_cells in cells.chunks(per) {
        let mut w = 0u64;
        for (s, &v) in word_cells.iter().enumerate() {
            w |= (local_of(v) as u64) << (s as u32 * BITS);
        }
        out.u64(w);
    }
}

/// Most cells a chunk has: 32³.
pub(crate) const MAX_CHUNK_CELLS: usize = 32 * 32 * 32;

/// One chunk's cells as a converter holds them, for [`super::RegionEncoder::encode_filled`].
/// Every form encodes to the bytes its cells written out as global indices would.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ChunkCells<'a> {
    /// Global palette indices, one per cell (X fastest, then Y, then Z).
    Global(&'a [u32]),
    /// A local palette of global indices, and per cell an index into it (X fastest, then
    /// Y, then Z); an index past the palette reads as global 0.
    Indexed {
        /// Global index of each local entry.
        palette: &'a [u32],
        /// One local index per cell.
        cells: &'a [u16],
        /// How many cells hold each local entry, when the converter counted them (used
        /// only when one per entry and summing to the cells).
        counts: Option<&'a [u32]>,
    },
    /// Every cell holds this global index.
    Uniform(u32),
}

/// Reusable buffers for encoding chunks.
#[derive(Default)]
pub(crate) struct ChunkEncoder {
    /// Open-addressing table of the chunk's distinct values: slot → index into
    /// `distinct` + 1 (0 = free). All zero between chunks.
    table: Vec<u32>,
    /// Distinct values in the order first seen, with their counts.
    distinct: Vec<(u32, u32)>,
    /// The table slot each distinct value sits in, to clear it afterwards.
    slots: Vec<u32>,
    /// The local index of each distinct value.
    local: Vec<u32>,
    /// Distinct indices sorted by value.
    order: Vec<u32>,
    body: Out,
    /// The LZ4 form of the last body.
    lz: Vec<u8>,
    /// [`ChunkEncoder::body_indexed`]: cells per local entry, then the local entries
    /// sorted by global value, and each local entry's output index.
    counts: Vec<u32>,
    by_value: Vec<(u32, u32)>,
    lut: Vec<u32>,
    /// `lut` over every `u16` local index (65536 entries once made; those past the
    /// chunk's palette left from earlier chunks).
    lut16: Vec<u16>,
    /// The largest global index of the last chunk encoded.
    pub(crate) max: u32,
}

/// Finds `v` in the table, inserting it (count 0) when it is absent.
#[inline]
fn find(
    table: &mut [u32],
    distinct: &mut Vec<(u32, u32)>,
    slots: &mut Vec<u32>,
    v: u32,
    shift: u32,
) -> usize {
    let mask = table.len() - 1;
    let mut h = (v.wrapping_mul(0x9E37_79B1) >> shift) as usize & mask;
    loop {
        match table.get(h).copied().unwrap_or(0) {
            0 => {
                distinct.push((v, 0));
                slots.push(h as u32);
                if let Some(t) = table.get_mut(h) {
                    *t = distinct.len() as u32;
                }
                return distinct.len() - 1;
            }
            i if distinct.get(i as usize - 1).is_some_and(|d| d.0 == v) => return i as usize - 1,
            _ => h = (h + 1) & mask,
        }
    }
}

impl ChunkEncoder {
    /// The raw body of `cells` in its smallest mode; `None` when every cell is 0 (or
    /// there are no cells, or more than a 32³ chunk holds).
    pub(crate) fn body(&mut self, cells: &[u32]) -> Option<&[u8]> {
        let first = *cells.first()?;
        let n = cells.len();
        if n > MAX_CHUNK_CELLS {
            return None;
        }
        self.body.buf.clear();
        if cells.iter().all(|&c| c == first) {
            return self.body_uniform(first);
        }
        // Count the distinct values, a run at a time.
        let size = (2 * n).next_power_of_two().max(16);
        let shift = 32 - size.trailing_zeros();
        if self.table.len() < size {
            self.table.resize(size, 0);
        }
        let table = &mut self.table[..size];
        self.distinct.clear();
        self.slots.clear();
        let mut last = (
            first,
            find(table, &mut self.distinct, &mut self.slots, first, shift),
        );
        let mut run = 0u32;
        for &v in cells {
            if v == last.0 {
                run += 1;
                continue;
            }
            if let Some(d) = self.distinct.get_mut(last.1) {
                d.1 += run;
            }
            last = (
                v,
                find(table, &mut self.distinct, &mut self.slots, v, shift),
            );
            run = 1;
        }
        if let Some(d) = self.distinct.get_mut(last.1) {
            d.1 += run;
        }
        let k = self.distinct.len();
        let distinct = &self.distinct;
        let j0 = most_common(distinct);
        self.order.clear();
        self.order.extend(0..k as u32);
        self.order.sort_unstable_by_key(|&j| distinct[j as usize].0);
        self.local.clear();
        self.local.resize(k, 0);
        let mut next = 1;
        for &j in &self.order {
            if j as usize != j0 {
                self.local[j as usize] = next;
                next += 1;
            }
        }
        self.max = self.order.last().map_or(0, |&j| distinct[j as usize].0);
        let layout = Layout::of(k, n, distinct[j0].1);
        let out = &mut self.body;
        layout.begin(out, k, distinct[j0].0);
        for &j in &self.order {
            if j as usize != j0 {
                out.u32(distinct[j as usize].0);
            }
        }
        // Global value → local index, remembering the last lookup (cells come in runs).
        let (distinct, slots, local) = (&mut self.distinct, &mut self.slots, &self.local);
        let mut last = (first, local[find(table, distinct, slots, first, shift)]);
        let mut local_of = |v: u32| -> u32 {
            if v != last.0 {
                last = (v, local[find(table, distinct, slots, v, shift)]);
            }
            last.1
        };
        layout.write_cells(out, cells, &mut local_of);
        // Leave the table all zero for the next chunk.
        for &h in &self.slots {
            if let Some(t) = self.table.get_mut(h as usize) {
                *t = 0;
            }
        }
        Some(&self.body.buf)
    }

    /// The raw body of a chunk every cell of which holds `v`; `None` for 0.
    fn body_uniform(&mut self, v: u32) -> Option<&[u8]> {
        self.body.buf.clear();
        if v == 0 {
            return None;
        }
        self.max = v;
        self.body.u8(MODE_UNIFORM);
        self.body.u16(1);
        self.body.u32(v);
        Some(&self.body.buf)
    }

    /// [`ChunkEncoder::body`] of the cells `palette[cells[i]]` (an index past the
    /// palette reading as 0), without writing them out: the distinct values and their
    /// counts come from a histogram over the local entries (or from `counts`, the cells
    /// per local entry, when one is given per entry summing to the cells: the caller
    /// vouches that every cell then indexes the palette). The bytes are `body`'s.
    fn body_indexed(
        &mut self,
        palette: &[u32],
        cells: &[u16],
        counts: Option<&[u32]>,
    ) -> Option<&[u8]> {
        let n = cells.len();
        if n == 0 || n > MAX_CHUNK_CELLS {
            self.body.buf.clear();
            return None;
        }
        // Cells per local entry; the slot past the palette counts out-of-range indices.
        let k_local = palette.len();
        // Four histograms side by side, a cell in four to each: cells come in runs, and
        // one counter bumped cell after cell waits on its own store each time (the
        // histogram was most of `record_cells` in perf).
        let w = k_local + 1;
        self.counts.clear();
        let given = counts.filter(|c| {
            c.len() == k_local && c.iter().map(|&x| u64::from(x)).sum::<u64>() == n as u64
        });
        if let Some(c) = given {
            self.counts.extend_from_slice(c);
            self.counts.push(0);
        } else {
            self.counts.resize(4 * w, 0);
            let (h0, rest) = self.counts.split_at_mut(w);
            let (h1, rest) = rest.split_at_mut(w);
            let (h2, h3) = rest.split_at_mut(w);
            let mut quads = cells.chunks_exact(4);
            for q in &mut quads {
                h0[(q[0] as usize).min(k_local)] += 1;
                h1[(q[1] as usize).min(k_local)] += 1;
                h2[(q[2] as usize).min(k_local)] += 1;
                h3[(q[3] as usize).min(k_local)] += 1;
            }
            for &c in quads.remainder() {
                h0[(c as usize).min(k_local)] += 1;
            }
            for (j, x) in h0.iter_mut().enumerate() {
                *x += h1[j] + h2[j] + h3[j];
            }
            self.counts.truncate(w);
        }
        let value_of = |slot: usize| palette.get(slot).copied().unwrap_or(0);
        // The distinct global values with their counts, ascending (equal values of two
        // local entries merge).
        self.by_value.clear();
        for (slot, &c) in self.counts.iter().enumerate() {
            if c > 0 {
                self.by_value.push((value_of(slot), c));
            }
        }
        self.by_value.sort_unstable_by_key(|e| e.0);
        self.by_value.dedup_by(|later, earlier| {
            if later.0 == earlier.0 {
                earlier.1 += later.1;
                true
            } else {
                false
            }
        });
        let distinct = &self.by_value;
        if distinct.len() == 1 {
            let v = distinct[0].0;
            return self.body_uniform(v);
        }
        self.body.buf.clear();
        let k = distinct.len();
        let j0 = most_common(distinct);
        self.max = distinct.last().map_or(0, |d| d.0);
        let layout = Layout::of(k, n, distinct[j0].1);
        // Each local slot's output index: 0 for the value of j0, else its rank among the
        // rest in ascending order.
        self.lut.clear();
        self.lut.resize(k_local + 1, 0);
        for (slot, l) in self.lut.iter_mut().enumerate() {
            let v = value_of(slot);
            let j = distinct.partition_point(|d| d.0 < v);
            *l = match j.cmp(&j0) {
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Less => j as u32 + 1,
                std::cmp::Ordering::Greater => j as u32,
            };
        }
        let out = &mut self.body;
        layout.begin(out, k, distinct[j0].0);
        for (j, d) in distinct.iter().enumerate() {
            if j != j0 {
                out.u32(d.0);
            }
        }
        // When no cell indexes past the palette, a table over every u16 (its entries past
        // the palette stale, never read) turns a cell into its index with no clamp and no
        // bounds check (the lookup showed in perf).
        if self.counts.get(k_local) == Some(&0) && k_local < 1 << 16 {
            self.lut16.resize(1 << 16, 0);
            for (d, &l) in self.lut16.iter_mut().zip(&self.lut) {
                *d = l as u16;
            }
            if let Ok(t) = <&[u16; 1 << 16]>::try_from(self.lut16.as_slice()) {
                layout.write_cells(out, cells, &mut |c: u16| u32::from(t[usize::from(c)]));
                return Some(&self.body.buf);
            }
        }
        let lut = &self.lut;
        let mut local_of = |c: u16| lut.get((c as usize).min(k_local)).copied().unwrap_or(0);
        layout.write_cells(out, cells, &mut local_of);
        Some(&self.body.buf)
    }

    /// Appends the chunk record of `cells` to `out` (codec tag, raw length, body: LZ4
    /// when that is strictly smaller). Returns false, writing nothing, when every cell
    /// is 0.
    pub(crate) fn record_cells(&mut self, cells: ChunkCells<'_>, out: &mut Vec<u8>) -> bool {
        let some = match cells {
            ChunkCells::Global(c) => self.body(c).is_some(),
            ChunkCells::Indexed {
                palette,
                cells,
                counts,
            } => self.body_indexed(palette, cells, counts).is_some(),
            ChunkCells::Uniform(v) => self.body_uniform(v).is_some(),
        };
        some && self.compress_body_into(out)
    }

    /// Appends the record of the body just made (codec tag, raw length, body: LZ4 when
    /// that is strictly smaller).
    fn compress_body_into(&mut self, out: &mut Vec<u8>) -> bool {
        let body = &self.body.buf;
        let raw_len = body.len() as u32;
        // The output buffer only grows (no zero fill of it per chunk).
        let need = lz4_flex::block::get_maximum_output_size(body.len());
        if self.lz.len() < need {
            self.lz.resize(need, 0);
        }
        let lz_len = lz4_flex::block::compress_into(body, &mut self.lz).unwrap_or(usize::MAX);
        if lz_len < body.len() {
            out.push(CODEC_LZ4);
            out.extend_from_slice(&raw_len.to_le_bytes());
            out.extend_from_slice(self.lz.get(..lz_len).unwrap_or_default());
        } else {
            out.push(CODEC_STORED);
            out.extend_from_slice(&raw_len.to_le_bytes());
            out.extend_from_slice(body);
        }
        true
    }
}

/// The raw body (before any codec) the writer picks for `cells`, or `None` when every
/// cell is 0 and the chunk is not stored.
pub fn encode_chunk_body(cells: &[u32]) -> Option<Vec<u8>> {
    ChunkEncoder::default().body(cells).map(<[u8]>::to_vec)
}

/// Decodes a raw body of `cells` cells whose local palette indexes a global palette of
/// `palette_len` entries into global palette indices, X fastest, then Y, then Z. Offsets
/// in errors count from the body's first byte.
pub fn decode_chunk_body(
    body: &[u8],
    cells: usize,
    palette_len: u32,
) -> Result<Vec<u32>, PayloadError> {
    let mut out = Vec::new();
    let mut pal = Vec::new();
    decode_body(
        &Cursor::new(super::UNNAMED, body, 0, body.len(), "chunk body"),
        cells,
        palette_len,
        &mut out,
        &mut pal,
    )?;
    Ok(out)
}

/// What [`unpack`] found.
enum Unpacked {
    /// Every cell decoded.
    Ok,
    /// Cell .0 holds local index .1, past the palette.
    BadIndex(usize, u64),
    /// Word .0's unused high bits hold .1 (shifted down).
    DirtyPadding(usize, u64),
}

/// Unpacks `BITS`-bit local indices from little-endian u64 words into `out` (its length
/// is the cell count) through the local palette `pal`.
#[inline]
fn unpack<const BITS: u32>(data: &[u8], out: &mut [u32], pal: &mut Vec<u32>) -> Unpacked {
    let per = (64 / BITS) as usize;
    let mask = (1u64 << BITS) - 1;
    let k = pal.len() as u64;
    // Pad the palette to every index the width can hold, so the lookup needs no branch;
    // indices past the real palette are caught by `worst` and reported afterwards.
    pal.resize(1 << BITS, 0);
    let table = &pal[..1 << BITS];
    let mut worst = 0u64;
    for (wi, (dst, src)) in out.chunks_mut(per).zip(data.chunks_exact(8)).enumerate() {
        let mut w = u64::from_le_bytes(src.try_into().unwrap_or_default());
        for o in dst.iter_mut() {
            let l = w & mask;
            worst = worst.max(l);
            *o = table.get(l as usize).copied().unwrap_or(0);
            w >>= BITS;
        }
        if w != 0 {
            return Unpacked::DirtyPadding(wi, w);
        }
    }
    if worst >= k {
        for (i, src) in data.chunks_exact(8).enumerate() {
            let w = u64::from_le_bytes(src.try_into().unwrap_or_default());
            for s in 0..per {
                let l = (w >> (s as u32 * BITS)) & mask;
                if l >= k {
                    return Unpacked::BadIndex(i * per + s, l);
                }
            }
        }
    }
    Unpacked::Ok
}

/// Decodes the body under `c` (exactly its remaining bytes) into `out` (resized to
/// `cells`). `pal` is scratch for the local palette.
pub(crate) fn decode_body(
    c: &Cursor<'_>,
    cells: usize,
    palette_len: u32,
    out: &mut Vec<u32>,
    pal: &mut Vec<u32>,
) -> Result<(), PayloadError> {
    let mut c = c.clone();
    let at = c.pos();
    let mode = c.u8("mode")?;
    if mode > MODE_SPARSE {
        return Err(c.bad(
            at,
            "mode",
            mode.to_string(),
            "0 (uniform), 1 (packed) or 2 (sparse)",
        ));
    }
    let at = c.pos();
    let k = c.u16("local palette count")? as usize;
    let (lo, hi) = match mode {
        MODE_UNIFORM => (1, 1),
        _ => (2, cells),
    };
    if k < lo || k > hi {
        return Err(c.bad(
            at,
            "local palette count",
            k.to_string(),
            format!("{lo} ..= {hi} for mode {mode} with {cells} cells"),
        ));
    }
    c.check_count(at, k as u64, hi as u64, 4, "local palette entry")?;
    pal.clear();
    for _ in 0..k {
        let at = c.pos();
        let g = c.u32("local palette entry")?;
        if g >= palette_len {
            return Err(c.bad(
                at,
                "local palette entry",
                g.to_string(),
                format!("a global palette index below {palette_len}"),
            ));
        }
        pal.push(g);
    }
    out.clear();
    match mode {
        MODE_UNIFORM => {
            if pal[0] == 0 {
                return Err(c.bad(
                    at + 2,
                    "uniform chunk's entry",
                    "0 (dh:empty)",
                    "a non-empty entry: an all-empty chunk is not stored",
                ));
            }
            out.resize(cells, pal[0]);
        }
        MODE_PACKED => {
            let bits = packed_bits(k).unwrap_or(16);
            let per = (64 / bits) as usize;
            let words = packed_words(cells, bits);
            let at = c.pos();
            let data = c.take(words * 8, "packed cell words")?;
            out.resize(cells, 0);
            let unpacked = match bits {
                1 => unpack::<1>(data, out, pal),
                2 => unpack::<2>(data, out, pal),
                4 => unpack::<4>(data, out, pal),
                8 => unpack::<8>(data, out, pal),
                _ => unpack::<16>(data, out, pal),
            };
            match unpacked {
                Unpacked::Ok => {}
                Unpacked::BadIndex(i, l) => {
                    return Err(c.bad(
                        at + i / per * 8,
                        &format!("packed cell {i}"),
                        l.to_string(),
                        format!("a local index below {k}"),
                    ))
                }
                Unpacked::DirtyPadding(wi, w) => {
                    return Err(c.bad(
                        at + wi * 8,
                        "last packed word's unused bits",
                        format!("{w:#x} (shifted)"),
                        "zero",
                    ))
                }
            }
        }
        _ => {
            let at = c.pos();
            let p = c.u16("sparse pair count")? as usize;
            if p == 0 || p >= cells {
                return Err(c.bad(
                    at,
                    "sparse pair count",
                    p.to_string(),
                    format!("1 ..= {}", cells.saturating_sub(1)),
                ));
            }
            let pairs = c.take(p * 4, "sparse pairs")?;
            out.resize(cells, pal[0]);
            let mut next = 0usize;
            for (pi, pair) in pairs.chunks_exact(4).enumerate() {
                let cell = u16::from_le_bytes([pair[0], pair[1]]) as usize;
                let l = u16::from_le_bytes([pair[2], pair[3]]) as usize;
                let pat = at + 2 + pi * 4;
                if cell < next || cell >= cells {
                    return Err(c.bad(
                        pat,
                        &format!("sparse pair {pi}'s cell"),
                        cell.to_string(),
                        format!("{next} ..= {} (ascending, unique)", cells - 1),
                    ));
                }
                if l == 0 || l >= k {
                    return Err(c.bad(
                        pat + 2,
                        &format!("sparse pair {pi}'s local index"),
                        l.to_string(),
                        format!("1 ..= {}", k - 1),
                    ));
                }
                if let (Some(o), Some(&g)) = (out.get_mut(cell), pal.get(l)) {
                    *o = g;
                }
                next = cell + 1;
            }
        }
    }
    if c.remaining() != 0 {
        return Err(c.bad(
            c.pos(),
            "body's end",
            format!("{} more bytes", c.remaining()),
            "the body to end after its cells",
        ));
    }
    Ok(())
}

/// Decodes one chunk record (exactly its bytes, under `c`) of a chunk of `cells` cells.
/// `scratch` holds an LZ4 body while it is read.
pub(crate) fn decode_record(
    c: &Cursor<'_>,
    cells: usize,
    palette_len: u32,
    out: &mut Vec<u32>,
    pal: &mut Vec<u32>,
    scratch: &mut Vec<u8>,
) -> Result<(), PayloadError> {
    let mut c = c.clone();
    let at = c.pos();
    let codec = c.u8("codec tag")?;
    let raw_at = c.pos();
    let raw = c.u32("raw length")? as usize;
    let cap = chunk_body_cap(cells);
    if raw > cap {
        return Err(c.bad(
            raw_at,
            "raw length",
            raw.to_string(),
            format!("at most {cap} for a chunk of {cells} cells"),
        ));
    }
    match codec {
        CODEC_STORED => {
            if c.remaining() != raw {
                return Err(c.bad(
                    raw_at,
                    "raw length",
                    raw.to_string(),
                    format!("the stored body's length, {}", c.remaining()),
                ));
            }
            decode_body(&c, cells, palette_len, out, pal)
        }
        CODEC_LZ4 => {
            let body_at = c.pos();
            let lz = c.take(c.remaining(), "LZ4 body")?;
            scratch.clear();
            scratch.resize(raw, 0);
            match lz4_flex::block::decompress_into(lz, scratch) {
                Ok(n) if n == raw => {}
                Ok(n) => {
                    return Err(c.bad(
                        body_at,
                        "LZ4 body's decoded length",
                        n.to_string(),
                        format!("the raw length, {raw}"),
                    ))
                }
                Err(e) => {
                    return Err(c.bad(
                        body_at,
                        "LZ4 body",
                        format!("undecodable ({e})"),
                        format!("an LZ4 block of {raw} bytes"),
                    ))
                }
            }
            let body = Cursor::new(c.file(), scratch, 0, raw, "LZ4-decoded chunk body");
            decode_body(&body, cells, palette_len, out, pal).map_err(|e| e.in_body(at))
        }
        t => Err(c.bad(at, "codec tag", t.to_string(), "0 (stored) or 1 (LZ4)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }
    }

    #[test]
    fn an_indexed_chunk_encodes_to_the_bytes_of_its_cells_written_out() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut a, mut b) = (ChunkEncoder::default(), ChunkEncoder::default());
        let mut shapes = [0usize; 3];
        let mut counted = 0;
        for case in 0..600 {
            let n = [4096usize, 64, 4096, 512][case % 4];
            // Palettes with repeats, zeros and wide values; indices past the palette too.
            let k = 1 + rng.below([2, 5, 40, 300, 4000][case % 5]) as usize;
            let palette: Vec<u32> = (0..k)
                .map(|_| match rng.below(4) {
                    0 => 0,
                    1 => rng.below(4) as u32,
                    _ => rng.below(1 << 20) as u32,
                })
                .collect();
            let common = rng.below(k as u64) as u16;
            let sparse_bias = rng.below(100);
            let cells: Vec<u16> = (0..n)
                .map(|_| {
                    if rng.below(100) < sparse_bias {
                        common
                    } else if rng.below(50) == 0 {
                        (k + rng.below(3) as usize) as u16
                    } else {
                        rng.below(k as u64) as u16
                    }
                })
                .collect();
            let written: Vec<u32> = cells
                .iter()
                .map(|&c| palette.get(c as usize).copied().unwrap_or(0))
                .collect();
            let want = a.body(&written).map(<[u8]>::to_vec);
            let got = b.body_indexed(&palette, &cells, None).map(<[u8]>::to_vec);
            assert_eq!(got, want, "case {case}");
            // Counts given by the caller (only when every cell indexes the palette, as
            // the contract says): the same bytes; counts that do not add up are ignored.
            if cells.iter().all(|&c| (c as usize) < k) {
                let mut counts = vec![0u32; k];
                for &c in &cells {
                    counts[c as usize] += 1;
                }
                let got = b
                    .body_indexed(&palette, &cells, Some(&counts))
                    .map(<[u8]>::to_vec);
                assert_eq!(got, want, "case {case}, counted");
                counts[0] += 1;
                let got = b
                    .body_indexed(&palette, &cells, Some(&counts))
                    .map(<[u8]>::to_vec);
                assert_eq!(got, want, "case {case}, miscounted");
                counted += 1;
            }
            if let Some(body) = &want {
                assert_eq!(b.max, a.max, "case {case}");
                shapes[body[0] as usize] += 1;
            }
            // And as a record, through the codec.
            let (mut ra, mut rb) = (Vec::new(), Vec::new());
            let sa = a.record_cells(ChunkCells::Global(&written), &mut ra);
            let sb = b.record_cells(
                ChunkCells::Indexed {
                    palette: &palette,
                    cells: &cells,
                    counts: None,
                },
                &mut rb,
            );
            assert_eq!((sa, &ra), (sb, &rb), "case {case}");
        }
        // Every body mode was reached, and the counted path taken.
        assert!(shapes.iter().all(|&s| s > 0), "{shapes:?}");
        assert!(counted > 50, "{counted}");
    }

    #[test]
    fn a_uniform_chunk_encodes_as_its_cells_written_out() {
        let (mut a, mut b) = (ChunkEncoder::default(), ChunkEncoder::default());
        for v in [0u32, 1, 7, 1 << 20] {
            let written = vec![v; 4096];
            assert_eq!(
                b.body_uniform(v).map(<[u8]>::to_vec),
                a.body(&written).map(<[u8]>::to_vec)
            );
            let one = [v];
            let idx = vec![0u16; 4096];
            assert_eq!(
                b.body_indexed(&one, &idx, None).map(<[u8]>::to_vec),
                a.body(&written).map(<[u8]>::to_vec)
            );
        }
    }
}
