//! The binary glTF container and the typed reads of its JSON: the 12-byte header, the
//! chunk table, the JSON chunk (read by `gltf-json`, after its length is checked against
//! the file and [`MAX_JSON`]), the BIN chunk, buffers (the BIN chunk or a `data:` URI),
//! buffer views and accessors. Every offset and length is checked against what remains
//! before it is used, and an accessor's count × stride against its buffer view (and the
//! importer's caps) before anything is allocated from those numbers.
//!
//! `gltf-json` keeps a node's transform as `f32`; the importer keeps it as the source
//! wrote it, in `f64` ([`NodeTrs`], read from the same parse before `gltf-json` types it),
//! so a model reads to the same matrices it always has.

use std::borrow::Cow;

use super::error::GlbErrorKind;
use gltf_json as json;
use json::validation::Checked;

const MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The largest JSON chunk read (the parse allocates in proportion to it).
pub(crate) const MAX_JSON: usize = 256 << 20;

pub(crate) type R<T> = Result<T, GlbErrorKind>;

pub(crate) fn invalid(place: impl Into<String>, expected: impl Into<String>) -> GlbErrorKind {
    GlbErrorKind::Invalid {
        place: place.into(),
        expected: expected.into(),
    }
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// The two chunks of a GLB.
pub(crate) struct Container<'a> {
    pub json: &'a str,
    pub bin: Option<&'a [u8]>,
}

/// Splits a GLB into its JSON and BIN chunks.
pub(crate) fn split(bytes: &[u8]) -> R<Container<'_>> {
    let bad = |m: String| GlbErrorKind::Container(m);
    if bytes.len() < 12 {
        return Err(bad(format!(
            "{} bytes is shorter than the 12-byte header",
            bytes.len()
        )));
    }
    let magic = u32_at(bytes, 0).unwrap_or(0);
    if magic != MAGIC {
        return Err(bad("the file does not start with the magic 'glTF'".into()));
    }
    let version = u32_at(bytes, 4).unwrap_or(0);
    if version != 2 {
        return Err(bad(format!("version {version}; only glTF 2 is read")));
    }
    let length = u32_at(bytes, 8).unwrap_or(0) as usize;
    if length > bytes.len() {
        return Err(bad(format!(
            "the header says {length} bytes but the file has {}",
            bytes.len()
        )));
    }
    if length < 12 {
        return Err(bad(format!(
            "the header's length {length} is shorter than the header"
        )));
    }
    let body = &bytes[..length];
    let mut at = 12usize;
    let mut json = None;
    let mut bin = None;
    let mut index = 0usize;
    while at < body.len() {
        let (Some(len), Some(ty)) = (u32_at(body, at), u32_at(body, at + 4)) else {
            return Err(bad(format!(
                "chunk {index} at byte {at}: its 8-byte header runs past the end of the file"
            )));
        };
        let start = at + 8;
        let Some(data) = start
            .checked_add(len as usize)
            .and_then(|end| body.get(start..end))
        else {
            return Err(bad(format!(
                "chunk {index} at byte {at} says {len} bytes but only {} remain",
                body.len().saturating_sub(start)
            )));
        };
        match (index, ty) {
            (0, CHUNK_JSON) if data.len() > MAX_JSON => {
                return Err(GlbErrorKind::TooLarge {
                    what: "the JSON chunk (bytes)".into(),
                    got: data.len(),
                    limit: MAX_JSON,
                })
            }
            (0, CHUNK_JSON) => {
                let text = std::str::from_utf8(data).map_err(|e| {
                    bad(format!(
                        "the JSON chunk is not UTF-8 (at byte {})",
                        e.valid_up_to()
                    ))
                })?;
                json = Some(text);
            }
            (0, _) => {
                return Err(bad(format!(
                    "the first chunk has type 0x{ty:08x}; a GLB starts with its JSON chunk (0x4E4F534A)"
                )))
            }
            (1, CHUNK_BIN) => bin = Some(data),
            _ => {} // Unknown chunks are skipped, as glTF asks.
        }
        // Chunks are 4-byte aligned; a short trailing pad is tolerated.
        at = start + (len as usize).div_ceil(4) * 4;
        index += 1;
    }
    let Some(json) = json else {
        return Err(bad("the file has no JSON chunk".into()));
    };
    Ok(Container { json, bin })
}

// ---- The document -----------------------------------------------------------------------

pub(crate) fn join(place: &str, key: &str) -> String {
    if place.is_empty() {
        key.to_string()
    } else {
        format!("{place}.{key}")
    }
}

/// A `gltf-json` number (a 64-bit length or offset) as a `usize`, saturating (every use
/// is range-checked after).
pub(crate) fn size(n: json::validation::USize64) -> usize {
    usize::try_from(n.0).unwrap_or(usize::MAX)
}

/// A node's transform members at the precision the JSON states them (`gltf-json` keeps
/// `f32`; the importer keeps `f64`, as the source wrote).
#[derive(Debug, Clone, Default)]
pub(crate) struct NodeTrs {
    pub matrix: Option<[f64; 16]>,
    pub translation: Option<[f64; 3]>,
    pub rotation: Option<[f64; 4]>,
    pub scale: Option<[f64; 3]>,
}

fn numbers<const N: usize>(v: &json::Value, key: &str, place: &str) -> R<Option<[f64; N]>> {
    let Some(x) = v.get(key) else {
        return Ok(None);
    };
    let err = || invalid(join(place, key), format!("an array of {N} finite numbers"));
    let items = x.as_array().ok_or_else(err)?;
    if items.len() != N {
        return Err(err());
    }
    let mut out = [0.0; N];
    for (o, i) in out.iter_mut().zip(items) {
        match i.as_f64() {
            Some(n) if n.is_finite() => *o = n,
            _ => return Err(err()),
        }
    }
    Ok(Some(out))
}

/// A member of an `extras.dh` object (`extras` as `gltf-json` keeps it: raw JSON text).
pub(crate) fn dh_extra(extras: &json::Extras, key: &str) -> Option<json::Value> {
    let raw = extras.as_ref()?;
    let v: json::Value = json::deserialize::from_str(raw.get()).ok()?;
    v.get("dh")?.get(key).cloned()
}

/// The byte offset of serde_json's `line`:`column` in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + column.saturating_sub(1)).min(text.len())
}

/// Parses a JSON chunk: the document as `gltf-json` types it, and its nodes' transforms
/// at full precision.
pub(crate) fn parse_root(text: &str) -> R<(json::Root, Vec<NodeTrs>)> {
    let value: json::Value = json::deserialize::from_str(text).map_err(|e| {
        let said = e.to_string();
        let message = match said.rfind(" at line ") {
            Some(at) => said[..at].to_string(),
            None => said,
        };
        GlbErrorKind::Json {
            offset: offset_of(text, e.line(), e.column()),
            message,
        }
    })?;
    if !value.is_object() {
        return Err(invalid("the document", "a JSON object at the top"));
    }
    let mut trs = Vec::new();
    if let Some(nodes) = value.get("nodes").and_then(json::Value::as_array) {
        for (i, n) in nodes.iter().enumerate() {
            let place = format!("nodes[{i}]");
            trs.push(NodeTrs {
                matrix: numbers::<16>(n, "matrix", &place)?,
                translation: numbers::<3>(n, "translation", &place)?,
                rotation: numbers::<4>(n, "rotation", &place)?,
                scale: numbers::<3>(n, "scale", &place)?,
            });
        }
    }
    let root: json::Root = json::deserialize::from_value(value)
        .map_err(|e| invalid("the document", format!("a glTF 2.0 document ({e})")))?;
    Ok((root, trs))
}

/// A parsed document: its JSON (read by `gltf-json`), its nodes' transforms at full
/// precision, and its buffers' bytes.
pub(crate) struct Document<'a> {
    pub root: json::Root,
    pub trs: Vec<NodeTrs>,
    pub buffers: Vec<Option<Cow<'a, [u8]>>>,
}

impl<'a> Document<'a> {
    /// Parses the JSON and resolves every buffer (the BIN chunk, or a base64 `data:` URI).
    /// A buffer naming an external file has no bytes; reading through it is an error.
    pub fn open(c: &Container<'a>, max_bytes: usize) -> R<Document<'a>> {
        let (root, trs) = parse_root(c.json)?;
        let mut buffers = Vec::new();
        for (i, b) in root.buffers.iter().enumerate() {
            let place = format!("buffers[{i}]");
            let len = size(b.byte_length);
            let data: Option<Cow<'a, [u8]>> = match b.uri.as_deref() {
                None if i == 0 => c.bin.map(Cow::Borrowed),
                None => None,
                Some(uri) => match uri.strip_prefix("data:") {
                    Some(rest) => {
                        let Some((_, b64)) = rest.split_once(";base64,") else {
                            return Err(invalid(
                                join(&place, "uri"),
                                "a base64 data URI ('data:...;base64,...')",
                            ));
                        };
                        if b64.len() / 4 * 3 > max_bytes {
                            return Err(GlbErrorKind::TooLarge {
                                what: format!("{place} (data URI bytes)"),
                                got: b64.len() / 4 * 3,
                                limit: max_bytes,
                            });
                        }
                        Some(Cow::Owned(base64(b64).ok_or_else(|| {
                            invalid(join(&place, "uri"), "valid base64 after ';base64,'")
                        })?))
                    }
                    None => None,
                },
            };
            if let Some(d) = &data {
                if d.len() < len {
                    return Err(invalid(
                        join(&place, "byteLength"),
                        format!(
                            "at most the {} bytes the buffer holds, found {len}",
                            d.len()
                        ),
                    ));
                }
            }
            buffers.push(data.map(|d| match d {
                Cow::Borrowed(b) => Cow::Borrowed(&b[..len]),
                Cow::Owned(mut v) => {
                    v.truncate(len);
                    Cow::Owned(v)
                }
            }));
        }
        Ok(Document { root, trs, buffers })
    }

    /// The bytes of buffer view `i` and its stride (when it states one).
    pub fn view(&self, i: usize, place: &str) -> R<(&[u8], Option<usize>)> {
        let views = &self.root.buffer_views;
        let v = views.get(i).ok_or_else(|| {
            invalid(
                place,
                format!("a buffer view index below {}, found {i}", views.len()),
            )
        })?;
        let vp = format!("bufferViews[{i}]");
        let b = v.buffer.value();
        let off = v.byte_offset.map_or(0, size);
        let len = size(v.byte_length);
        let stride = v.byte_stride.map(|s| s.0);
        if let Some(s) = stride {
            if !(4..=252).contains(&s) || s % 4 != 0 {
                return Err(invalid(
                    join(&vp, "byteStride"),
                    format!("a multiple of 4 from 4 to 252, found {s}"),
                ));
            }
        }
        let buf = self
            .buffers
            .get(b)
            .ok_or_else(|| invalid(join(&vp, "buffer"), format!("a buffer index, found {b}")))?
            .as_deref()
            .ok_or_else(|| {
                invalid(
                    format!("buffers[{b}]"),
                    "bytes inside the file (the BIN chunk or a data: URI); a .glb must carry its geometry itself",
                )
            })?;
        let data = off
            .checked_add(len)
            .and_then(|end| buf.get(off..end))
            .ok_or_else(|| {
                invalid(
                    &vp,
                    format!(
                        "a range inside buffer {b} ({} bytes), found {off}..{}",
                        buf.len(),
                        off.saturating_add(len)
                    ),
                )
            })?;
        Ok((data, stride))
    }

    /// Accessor `i`'s description.
    pub fn accessor(&self, i: usize, place: &str) -> R<Accessor> {
        let all = &self.root.accessors;
        let a = all.get(i).ok_or_else(|| {
            invalid(
                place,
                format!("an accessor index below {}, found {i}", all.len()),
            )
        })?;
        let ap = format!("accessors[{i}]");
        let component = match a.component_type {
            Checked::Valid(json::accessor::GenericComponentType(c)) => Component::of(c),
            Checked::Invalid => {
                return Err(invalid(
                    join(&ap, "componentType"),
                    "one of 5120, 5121, 5122, 5123, 5125, 5126",
                ))
            }
        };
        use json::accessor::Type;
        let (width, matrix) = match a.type_ {
            Checked::Valid(Type::Scalar) => (1, false),
            Checked::Valid(Type::Vec2) => (2, false),
            Checked::Valid(Type::Vec3) => (3, false),
            Checked::Valid(Type::Vec4) => (4, false),
            Checked::Valid(Type::Mat2) => (4, true),
            Checked::Valid(Type::Mat3) => (9, true),
            Checked::Valid(Type::Mat4) => (16, true),
            Checked::Invalid => {
                return Err(invalid(
                    join(&ap, "type"),
                    "SCALAR, VEC2, VEC3, VEC4 or MATn",
                ))
            }
        };
        Ok(Accessor {
            place: ap,
            view: a.buffer_view.map(|v| v.value()),
            offset: a.byte_offset.map_or(0, size),
            component,
            width,
            matrix,
            normalized: a.normalized,
            count: size(a.count),
            sparse: a.sparse.clone(),
        })
    }

    /// Reads accessor `acc` as `f32`s, `width` per element, normalized integers mapped to
    /// [0, 1] / [-1, 1]. Every range is checked before anything is allocated.
    pub fn read_floats(&self, acc: &Accessor, cap: usize) -> R<Vec<f32>> {
        if acc.matrix {
            return Err(invalid(
                &acc.place,
                "a vector or scalar accessor, found a matrix",
            ));
        }
        let n = acc
            .count
            .checked_mul(acc.width)
            .filter(|n| *n <= cap)
            .ok_or_else(|| GlbErrorKind::TooLarge {
                what: format!("{} (components)", acc.place),
                got: acc.count.saturating_mul(acc.width),
                limit: cap,
            })?;
        let conv = |c: Component, raw: &[u8]| -> f32 { c.to_f32(raw, acc.normalized) };
        let dense = match acc.view {
            Some(view) => {
                let (data, stride) = self.view(view, &join(&acc.place, "bufferView"))?;
                let elem = acc.component.size() * acc.width;
                let stride = stride.unwrap_or(elem);
                check_range(&acc.place, acc.offset, stride, elem, acc.count, data.len())?;
                Some((data, stride))
            }
            None => None,
        };
        let sparse = match &acc.sparse {
            Some(s) => Some(self.sparse(acc, s)?),
            None => None,
        };
        let mut out = vec![0.0f32; n];
        if let Some((data, stride)) = dense {
            // One loop per component type, so the conversion inlines into it (the per-value
            // dispatch on the type was a third of a small model's import).
            let (off, w, norm) = (acc.offset, acc.width, acc.normalized);
            let o = &mut out;
            match acc.component {
                Component::F32 => fill(o, data, off, stride, w, 4, |b| {
                    Component::F32.to_f32(b, norm)
                }),
                Component::U8 => fill(o, data, off, stride, w, 1, |b| {
                    Component::U8.to_f32(b, norm)
                }),
                Component::I8 => fill(o, data, off, stride, w, 1, |b| {
                    Component::I8.to_f32(b, norm)
                }),
                Component::U16 => fill(o, data, off, stride, w, 2, |b| {
                    Component::U16.to_f32(b, norm)
                }),
                Component::I16 => fill(o, data, off, stride, w, 2, |b| {
                    Component::I16.to_f32(b, norm)
                }),
                Component::U32 => fill(o, data, off, stride, w, 4, |b| {
                    Component::U32.to_f32(b, norm)
                }),
            }
        }
        if let Some((idx, vals)) = sparse {
            for (j, i) in idx.into_iter().enumerate() {
                let dst = i
                    .checked_mul(acc.width)
                    .and_then(|s| out.get_mut(s..s + acc.width))
                    .ok_or_else(|| {
                        invalid(
                            join(&acc.place, "sparse.indices"),
                            format!("indices below the count {}, found {i}", acc.count),
                        )
                    })?;
                let cs = acc.component.size();
                for (k, d) in dst.iter_mut().enumerate() {
                    let at = (j * acc.width + k) * cs;
                    *d = conv(acc.component, &vals[at..at + cs]);
                }
            }
        }
        Ok(out)
    }

    /// Reads an index accessor (SCALAR, unsigned 8/16/32-bit).
    pub fn read_indices(&self, acc: &Accessor, cap: usize) -> R<Vec<u32>> {
        if acc.width != 1 || acc.matrix {
            return Err(invalid(&acc.place, "a SCALAR index accessor"));
        }
        if !matches!(
            acc.component,
            Component::U8 | Component::U16 | Component::U32
        ) {
            return Err(invalid(
                join(&acc.place, "componentType"),
                "an unsigned index type (5121, 5123 or 5125)",
            ));
        }
        if acc.count > cap {
            return Err(GlbErrorKind::TooLarge {
                what: format!("{} (indices)", acc.place),
                got: acc.count,
                limit: cap,
            });
        }
        let cs = acc.component.size();
        let dense = match acc.view {
            Some(view) => {
                let (data, stride) = self.view(view, &join(&acc.place, "bufferView"))?;
                let stride = stride.unwrap_or(cs);
                check_range(&acc.place, acc.offset, stride, cs, acc.count, data.len())?;
                Some((data, stride))
            }
            None => None,
        };
        let sparse = match &acc.sparse {
            Some(s) => Some(self.sparse(acc, s)?),
            None => None,
        };
        let mut out = vec![0u32; acc.count];
        if let Some((data, stride)) = dense {
            let (o, off) = (&mut out, acc.offset);
            match acc.component {
                Component::U8 | Component::I8 => {
                    fill(o, data, off, stride, 1, 1, |b| Component::U8.to_u32(b))
                }
                Component::U16 | Component::I16 => {
                    fill(o, data, off, stride, 1, 2, |b| Component::U16.to_u32(b))
                }
                Component::U32 | Component::F32 => {
                    fill(o, data, off, stride, 1, 4, |b| Component::U32.to_u32(b))
                }
            }
        }
        if let Some((idx, vals)) = sparse {
            for (j, i) in idx.into_iter().enumerate() {
                let d = out.get_mut(i).ok_or_else(|| {
                    invalid(
                        join(&acc.place, "sparse.indices"),
                        format!("indices below the count {}, found {i}", acc.count),
                    )
                })?;
                *d = acc.component.to_u32(&vals[j * cs..(j + 1) * cs]);
            }
        }
        Ok(out)
    }

    /// A sparse accessor's indices and its values' bytes (`count × width × size`).
    fn sparse(&self, acc: &Accessor, s: &json::accessor::sparse::Sparse) -> R<(Vec<usize>, &[u8])> {
        let sp = join(&acc.place, "sparse");
        let count = size(s.count);
        if count > acc.count {
            return Err(invalid(
                join(&sp, "count"),
                format!("at most the accessor's count {}, found {count}", acc.count),
            ));
        }
        let ip = join(&sp, "indices");
        let ic = match s.indices.component_type {
            Checked::Valid(json::accessor::IndexComponentType(c)) => match Component::of(c) {
                c @ (Component::U8 | Component::U16 | Component::U32) => c,
                _ => return Err(invalid(join(&ip, "componentType"), "5121, 5123 or 5125")),
            },
            Checked::Invalid => {
                return Err(invalid(join(&ip, "componentType"), "5121, 5123 or 5125"))
            }
        };
        let (idata, _) = self.view(s.indices.buffer_view.value(), &ip)?;
        let ioff = size(s.indices.byte_offset);
        check_range(&ip, ioff, ic.size(), ic.size(), count, idata.len())?;
        let idx = (0..count)
            .map(|j| {
                let at = ioff + j * ic.size();
                ic.to_u32(&idata[at..at + ic.size()]) as usize
            })
            .collect();
        let vp = join(&sp, "values");
        let (vdata, _) = self.view(s.values.buffer_view.value(), &vp)?;
        let voff = size(s.values.byte_offset);
        let elem = acc.component.size() * acc.width;
        check_range(&vp, voff, elem, elem, count, vdata.len())?;
        Ok((idx, &vdata[voff..voff + elem * count]))
    }
}

/// Fills `out`, `width` values per element, element `e` read from `data` at
/// `offset + e * stride`, each value `size` bytes converted by `conv`. The caller has
/// checked the whole range ([`check_range`]).
#[inline(always)]
fn fill<T>(
    out: &mut [T],
    data: &[u8],
    offset: usize,
    stride: usize,
    width: usize,
    size: usize,
    conv: impl Fn(&[u8]) -> T,
) {
    for (e, chunk) in out.chunks_exact_mut(width).enumerate() {
        let base = offset + e * stride;
        let src = &data[base..base + width * size];
        for (o, raw) in chunk.iter_mut().zip(src.chunks_exact(size)) {
            *o = conv(raw);
        }
    }
}

fn check_range(
    place: &str,
    offset: usize,
    stride: usize,
    elem: usize,
    count: usize,
    len: usize,
) -> R<()> {
    if count == 0 {
        return Ok(());
    }
    let need = (count - 1)
        .checked_mul(stride)
        .and_then(|v| v.checked_add(offset))
        .and_then(|v| v.checked_add(elem));
    match need {
        Some(n) if n <= len => Ok(()),
        _ => Err(invalid(
            place,
            format!(
                "{count} elements of {elem} bytes (stride {stride}) from byte {offset} inside its {len}-byte buffer view"
            ),
        )),
    }
}

/// An accessor's description.
#[derive(Debug, Clone)]
pub(crate) struct Accessor {
    pub place: String,
    pub view: Option<usize>,
    pub offset: usize,
    pub component: Component,
    pub width: usize,
    pub matrix: bool,
    pub normalized: bool,
    pub count: usize,
    pub sparse: Option<json::accessor::sparse::Sparse>,
}

/// A glTF component type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Component {
    I8,
    U8,
    I16,
    U16,
    U32,
    F32,
}

impl Component {
    fn of(c: json::accessor::ComponentType) -> Component {
        use json::accessor::ComponentType as C;
        match c {
            C::I8 => Component::I8,
            C::U8 => Component::U8,
            C::I16 => Component::I16,
            C::U16 => Component::U16,
            C::U32 => Component::U32,
            C::F32 => Component::F32,
        }
    }

    pub fn size(self) -> usize {
        match self {
            Component::I8 | Component::U8 => 1,
            Component::I16 | Component::U16 => 2,
            Component::U32 | Component::F32 => 4,
        }
    }

    pub fn is_float(self) -> bool {
        self == Component::F32
    }

    #[inline(always)]
    fn to_u32(self, b: &[u8]) -> u32 {
        match self {
            Component::I8 | Component::U8 => u32::from(b[0]),
            Component::I16 | Component::U16 => u32::from(u16::from_le_bytes([b[0], b[1]])),
            Component::U32 | Component::F32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        }
    }

    #[inline(always)]
    fn to_f32(self, b: &[u8], normalized: bool) -> f32 {
        match self {
            Component::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            Component::U8 => {
                let v = f32::from(b[0]);
                if normalized {
                    v / 255.0
                } else {
                    v
                }
            }
            Component::U16 => {
                let v = f32::from(u16::from_le_bytes([b[0], b[1]]));
                if normalized {
                    v / 65535.0
                } else {
                    v
                }
            }
            Component::I8 => {
                let v = f32::from(b[0] as i8);
                if normalized {
                    (v / 127.0).max(-1.0)
                } else {
                    v
                }
            }
            Component::I16 => {
                let v = f32::from(i16::from_le_bytes([b[0], b[1]]));
                if normalized {
                    (v / 32767.0).max(-1.0)
                } else {
                    v
                }
            }
            Component::U32 => {
                let v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32;
                if normalized {
                    v / u32::MAX as f32
                } else {
                    v
                }
            }
        }
    }
}

pub(crate) fn base64(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let s = s.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 3);
    for chunk in s.chunks(4) {
        let mut acc = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            acc |= val(*c)? << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        match chunk.len() {
            4 => out.extend_from_slice(&bytes[1..4]),
            3 => out.extend_from_slice(&bytes[1..3]),
            2 => out.push(bytes[1]),
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes() {
        assert_eq!(base64("TWFu").unwrap(), b"Man");
        assert_eq!(base64("TWE=").unwrap(), b"Ma");
        assert_eq!(base64("TQ==").unwrap(), b"M");
        assert!(base64("T").is_none());
        assert!(base64("T$==").is_none());
    }

    #[test]
    fn container_refuses_short_and_truncated() {
        assert!(matches!(split(b"glTF"), Err(GlbErrorKind::Container(_))));
        let mut b = b"glTF".to_vec();
        b.extend(2u32.to_le_bytes());
        b.extend(100u32.to_le_bytes());
        assert!(matches!(split(&b), Err(GlbErrorKind::Container(_))));
    }
}
