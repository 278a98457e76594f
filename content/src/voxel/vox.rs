//! The MagicaVoxel `.vox` chunk reader: the file's bytes to a [`VoxFile`], an intermediate
//! model that keeps what the file says and nothing the importer decides.
//!
//! Read from MagicaVoxel's published format (`MagicaVoxel-file-format-vox.txt` and its
//! scene-graph extension): a `VOX ` magic and a version, then one `MAIN` chunk whose
//! children are the models (`SIZE` + `XYZI`, or `SIZE` + Teardown VoxTool's compressed
//! `TDCZ`), the palette (`RGBA`), the materials (`MATL`), the scene graph (`nTRN`, `nGRP`,
//! `nSHP`) and the layers (`LAYR`). Every other chunk (`rOBJ`, `rCAM`, `NOTE`, `IMAP`,
//! `PACK`, `MATT`, a `MATL` for no palette index, anything newer) is kept whole, header
//! included, in [`VoxFile::extras`].
//!
//! Every length read from the file is checked against the bytes that remain and against a
//! cap before anything is allocated; nothing here panics on any input.

use std::collections::BTreeMap;

/// Most chunks a file may hold (a MagicaVoxel file of 256 models and 256 materials has
/// well under two thousand).
pub const MAX_CHUNKS: usize = 1 << 20;
/// Most key/value pairs in one `DICT`.
pub const MAX_DICT_PAIRS: usize = 4096;
/// Longest `STRING` (bytes).
pub const MAX_STRING_LEN: usize = u16::MAX as usize;
/// Largest model size on any axis. MagicaVoxel's own limit is 256 (an `XYZI` coordinate is
/// one byte); a larger `SIZE` is kept (its voxels still fit in 256) up to this cap.
pub const MAX_MODEL_AXIS: u32 = 4096;
/// Most cells one `TDCZ` grid may hold (256 on every axis).
pub const MAX_TDCZ_CELLS: u64 = 256 * 256 * 256;
/// Most voxels (from `XYZI` and `TDCZ` together) one file may hold.
pub const MAX_FILE_VOXELS: u64 = 1 << 26;
/// Most children one `nGRP` may list, and most models one `nSHP` or frames one `nTRN` may.
pub const MAX_NODE_LIST: usize = 1 << 20;

/// An error reading a `.vox`: where (a byte offset and the chunk being read) and what was
/// expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VoxError {
    /// The file does not start with `VOX `.
    #[error("byte 0: expected the magic 'VOX ', found {found}")]
    Magic {
        /// The first bytes, escaped.
        found: String,
    },
    /// A field runs past the end of the bytes that hold it.
    #[error("byte {offset}: {place}: expected {expected} ({need} bytes), but only {have} remain")]
    Truncated {
        /// Absolute byte offset where the field starts.
        offset: usize,
        /// The chunk or section being read (`chunk 'nTRN' #12`).
        place: String,
        /// The field that was expected.
        expected: String,
        /// Bytes the field needs.
        need: usize,
        /// Bytes that remain.
        have: usize,
    },
    /// A field holds a value the format forbids.
    #[error("byte {offset}: {place}: {what} is {found}; expected {expected}")]
    Invalid {
        /// Absolute byte offset of the field.
        offset: usize,
        /// The chunk or section being read.
        place: String,
        /// The field.
        what: String,
        /// The value found.
        found: String,
        /// What the format requires.
        expected: String,
    },
}

/// One MagicaVoxel model: its size and its voxels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxModel {
    /// Cells on X, Y and Z (from `SIZE`).
    pub size: [u32; 3],
    /// The voxels, `[x, y, z, palette index]`, in file order; index 0 (empty) and cells
    /// outside `size` are left out (with a warning).
    pub voxels: Vec<[u8; 4]>,
    /// Which chunk the voxels came from.
    pub source: ModelSource,
    /// Byte offset of the `SIZE` chunk.
    pub offset: usize,
}

/// The chunk a model's voxels came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    /// MagicaVoxel's `XYZI` list.
    Xyzi,
    /// Teardown VoxTool's `TDCZ`: a zlib-compressed dense grid.
    Tdcz,
}

/// Ordered string pairs, as a `DICT` holds them.
pub type Dict = Vec<(String, String)>;

/// The value of `key` in `dict`, if present (the first one).
pub fn dict_get<'a>(dict: &'a Dict, key: &str) -> Option<&'a str> {
    dict.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// A signed permutation matrix: MagicaVoxel's rotation byte, decoded. `rows[r][c]` is -1, 0
/// or 1, with exactly one non-zero entry in every row and column; mirrors (determinant
/// -1) are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rotation {
    /// Row-major entries.
    pub rows: [[i8; 3]; 3],
}

impl Rotation {
    /// The identity.
    pub const IDENTITY: Rotation = Rotation {
        rows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    };

    /// Decodes a rotation byte: bits 0–1 the column of row 0's non-zero entry, bits 2–3
    /// row 1's, row 2 takes the remaining column; bits 4, 5 and 6 make rows 0, 1 and 2
    /// negative. `None` when the two columns are equal or either is 3 (not a permutation),
    /// or bit 7 is set.
    pub fn from_byte(b: u8) -> Option<Rotation> {
        let c0 = (b & 3) as usize;
        let c1 = ((b >> 2) & 3) as usize;
        if c0 == 3 || c1 == 3 || c0 == c1 || b & 0x80 != 0 {
            return None;
        }
        let c2 = 3 - c0 - c1;
        let sign = |bit: u8| if b & (1 << bit) != 0 { -1 } else { 1 };
        let mut rows = [[0i8; 3]; 3];
        rows[0][c0] = sign(4);
        rows[1][c1] = sign(5);
        rows[2][c2] = sign(6);
        Some(Rotation { rows })
    }

    /// `R * v`.
    pub fn apply(&self, v: [i64; 3]) -> [i64; 3] {
        let mut out = [0i64; 3];
        for (o, row) in out.iter_mut().zip(&self.rows) {
            *o = row.iter().zip(v).map(|(&r, x)| i64::from(r) * x).sum();
        }
        out
    }

    /// The determinant: 1 for a rotation, -1 for a mirror.
    pub fn determinant(&self) -> i32 {
        let m = |r: usize, c: usize| i32::from(self.rows[r][c]);
        m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1))
            - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0))
            + m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0))
    }
}

/// One keyframe of a transform node (`_r`, `_t`, `_f`, as written).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VoxFrame {
    /// The frame's attributes, as written.
    pub attributes: Dict,
    /// The decoded rotation (`_r`; identity when absent).
    pub rotation: Rotation,
    /// The translation (`_t`; zero when absent).
    pub translation: [i32; 3],
    /// The frame index (`_f`; 0 when absent).
    pub frame: u32,
}

impl Default for Rotation {
    fn default() -> Self {
        Rotation::IDENTITY
    }
}

/// A transform node (`nTRN`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxTransform {
    /// The node's attributes (`_name`, `_hidden`, `_loop`, ...).
    pub attributes: Dict,
    /// The child node id.
    pub child: i32,
    /// The layer id (-1 for none).
    pub layer: i32,
    /// The keyframes, as written (at least one).
    pub frames: Vec<VoxFrame>,
}

/// A group node (`nGRP`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxGroup {
    /// The node's attributes.
    pub attributes: Dict,
    /// The children's node ids, in file order.
    pub children: Vec<i32>,
}

/// One model reference of a shape node, with its attributes (`_f`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxShapeModel {
    /// The model's index in [`VoxFile::models`].
    pub model: i32,
    /// Its attributes, as written.
    pub attributes: Dict,
    /// The frame index (`_f`; 0 when absent).
    pub frame: u32,
}

/// A shape node (`nSHP`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxShape {
    /// The node's attributes.
    pub attributes: Dict,
    /// The models (one per keyframe; at least one).
    pub models: Vec<VoxShapeModel>,
}

/// A scene-graph node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VoxNode {
    /// `nTRN`.
    Transform(VoxTransform),
    /// `nGRP`.
    Group(VoxGroup),
    /// `nSHP`.
    Shape(VoxShape),
}

/// A layer (`LAYR`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxLayer {
    /// The layer id.
    pub id: i32,
    /// Its attributes (`_name`, `_hidden`, `_color`).
    pub attributes: Dict,
}

/// A material (`MATL`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxMaterial {
    /// The palette index it describes, 1–255 (a `MATL` for any other id is kept whole in
    /// [`VoxFile::extras`]).
    pub id: i32,
    /// Its properties (`_type`, `_rough`, ...), as written.
    pub properties: Dict,
}

/// A chunk the reader does not interpret, kept whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxChunk {
    /// The four-byte chunk id (`rOBJ`), lossily decoded.
    pub id: String,
    /// The whole chunk as it stands in the file: id, both sizes, content and children.
    pub bytes: Vec<u8>,
}

/// A `.vox` file as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxFile {
    /// The version after the magic (150, 200, ...).
    pub version: u32,
    /// The models, in file order (a shape's model index counts these).
    pub models: Vec<VoxModel>,
    /// The palette by palette index: entry `i` is index `i`'s RGBA (entry 0, empty, is
    /// transparent black). From the `RGBA` chunk (whose entry `i - 1` is index `i`), or
    /// MagicaVoxel's default palette when the file has none.
    pub palette: [[u8; 4]; 256],
    /// Whether the palette came from an `RGBA` chunk.
    pub has_rgba: bool,
    /// The materials, in file order.
    pub materials: Vec<VoxMaterial>,
    /// The scene graph by node id (empty for a file without one).
    pub nodes: BTreeMap<i32, VoxNode>,
    /// The layers, in file order.
    pub layers: Vec<VoxLayer>,
    /// Every chunk not interpreted, whole, in file order.
    pub extras: Vec<VoxChunk>,
    /// Things read but not kept as written (dropped voxels, duplicate nodes, trailing
    /// bytes).
    pub warnings: Vec<String>,
}

/// MagicaVoxel's default palette, by palette index (index 0 is transparent black): the
/// 6×6×6 web cube (red slowest, each channel from `ff` down to `00`) without black, then
/// ten-step ramps of red, green, blue and gray (`ee dd bb aa 88 77 55 44 22 11`).
pub fn default_palette() -> [[u8; 4]; 256] {
    const CUBE: [u8; 6] = [0xff, 0xcc, 0x99, 0x66, 0x33, 0x00];
    const RAMP: [u8; 10] = [0xee, 0xdd, 0xbb, 0xaa, 0x88, 0x77, 0x55, 0x44, 0x22, 0x11];
    let mut p = [[0u8; 4]; 256];
    let mut i = 1;
    for r in CUBE {
        for g in CUBE {
            for b in CUBE {
                if (r, g, b) != (0, 0, 0) {
                    p[i] = [r, g, b, 0xff];
                    i += 1;
                }
            }
        }
    }
    for channel in 0..4 {
        for v in RAMP {
            p[i] = match channel {
                0 => [v, 0, 0, 0xff],
                1 => [0, v, 0, 0xff],
                2 => [0, 0, v, 0xff],
                _ => [v, v, v, 0xff],
            };
            i += 1;
        }
    }
    p
}

/// A bounded little-endian cursor over one chunk's content.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Absolute offset of `bytes[0]` in the file.
    base: usize,
    place: &'a str,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8], base: usize, place: &'a str) -> Self {
        Cursor {
            bytes,
            pos: 0,
            base,
            place,
        }
    }

    fn offset(&self) -> usize {
        self.base + self.pos
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn take(&mut self, n: usize, expected: &str) -> Result<&'a [u8], VoxError> {
        if n > self.remaining() {
            return Err(VoxError::Truncated {
                offset: self.offset(),
                place: self.place.to_string(),
                expected: expected.to_string(),
                need: n,
                have: self.remaining(),
            });
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u32(&mut self, expected: &str) -> Result<u32, VoxError> {
        let b = self.take(4, expected)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i32(&mut self, expected: &str) -> Result<i32, VoxError> {
        Ok(self.u32(expected)? as i32)
    }

    fn invalid(&self, at: usize, what: &str, found: String, expected: &str) -> VoxError {
        VoxError::Invalid {
            offset: at,
            place: self.place.to_string(),
            what: what.to_string(),
            found,
            expected: expected.to_string(),
        }
    }

    /// A count that must fit `min_each` bytes per item in what remains, and a cap.
    fn count(&mut self, what: &str, min_each: usize, cap: usize) -> Result<usize, VoxError> {
        let at = self.offset();
        let n = self.i32(what)?;
        if n < 0 {
            return Err(self.invalid(at, what, n.to_string(), "a count of 0 or more"));
        }
        let n = n as usize;
        if n > cap {
            return Err(self.invalid(at, what, n.to_string(), &format!("at most {cap}")));
        }
        if n.saturating_mul(min_each) > self.remaining() {
            return Err(VoxError::Truncated {
                offset: self.offset(),
                place: self.place.to_string(),
                expected: format!("{n} items of {what} (at least {min_each} bytes each)"),
                need: n.saturating_mul(min_each),
                have: self.remaining(),
            });
        }
        Ok(n)
    }

    fn string(&mut self, what: &str) -> Result<String, VoxError> {
        let n = self.count(what, 1, MAX_STRING_LEN)?;
        let b = self.take(n, what)?;
        Ok(String::from_utf8_lossy(b).into_owned())
    }

    fn dict(&mut self, what: &str) -> Result<Dict, VoxError> {
        let n = self.count(&format!("{what} pair count"), 8, MAX_DICT_PAIRS)?;
        let mut d = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.string(&format!("{what} key"))?;
            let v = self.string(&format!("{what} value"))?;
            d.push((k, v));
        }
        Ok(d)
    }
}

/// Reads a `.vox` file's bytes.
pub fn read_vox(bytes: &[u8]) -> Result<VoxFile, VoxError> {
    if bytes.len() < 8 || &bytes[0..4] != b"VOX " {
        let head = &bytes[..bytes.len().min(4)];
        return Err(VoxError::Magic {
            found: format!("{:?}", String::from_utf8_lossy(head)),
        });
    }
    let version = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    let mut file = VoxFile {
        version,
        models: Vec::new(),
        palette: default_palette(),
        has_rgba: false,
        materials: Vec::new(),
        nodes: BTreeMap::new(),
        layers: Vec::new(),
        extras: Vec::new(),
        warnings: Vec::new(),
    };

    // MAIN: no content of its own (anything there is skipped), every chunk its child.
    let mut top = Cursor::new(&bytes[8..], 8, "MAIN chunk header");
    let id = top.take(4, "the chunk id 'MAIN'")?;
    if id != b"MAIN" {
        return Err(top.invalid(
            8,
            "the first chunk id",
            format!("{:?}", String::from_utf8_lossy(id)),
            "'MAIN'",
        ));
    }
    let content_len = top.count("MAIN content size", 1, usize::MAX)?;
    let children_at = top.offset();
    let children_len_raw = top.i32("MAIN children size")?;
    if children_len_raw < 0 {
        return Err(top.invalid(
            children_at,
            "MAIN children size",
            children_len_raw.to_string(),
            "0 or more",
        ));
    }
    top.take(content_len, "MAIN content")?;
    let children_len = children_len_raw as usize;
    let children_start = top.offset();
    let children = top.take(children_len, "MAIN's children")?;
    if top.remaining() > 0 {
        file.warnings.push(format!(
            "{} bytes after the MAIN chunk (from byte {}) were ignored",
            top.remaining(),
            top.offset()
        ));
    }

    let mut pending_size: Option<([u32; 3], usize)> = None;
    let mut pos = 0usize;
    let mut index = 0usize;
    let mut voxels_total = 0u64;
    while pos < children.len() {
        let abs = children_start + pos;
        if index >= MAX_CHUNKS {
            return Err(VoxError::Invalid {
                offset: abs,
                place: "MAIN's children".into(),
                what: "the chunk count".into(),
                found: format!("more than {MAX_CHUNKS}"),
                expected: format!("at most {MAX_CHUNKS}"),
            });
        }
        let place = format!("chunk #{index} header");
        let mut hdr = Cursor::new(&children[pos..], abs, &place);
        let id_bytes = hdr.take(4, "a chunk id")?;
        let id: [u8; 4] = [id_bytes[0], id_bytes[1], id_bytes[2], id_bytes[3]];
        let content_len = hdr.count("the content size", 1, usize::MAX)?;
        let children_at = hdr.offset();
        let child_len = hdr.i32("the children size")?;
        if child_len < 0 {
            return Err(hdr.invalid(
                children_at,
                "the children size",
                child_len.to_string(),
                "0 or more",
            ));
        }
        let content_abs = hdr.offset();
        let content = hdr.take(content_len, "the chunk content")?;
        hdr.take(child_len as usize, "the chunk's children")?;
        let whole_len = hdr.pos;
        let whole = &children[pos..pos + whole_len];
        let id_text = String::from_utf8_lossy(&id).into_owned();
        let place = format!("chunk '{id_text}' #{index}");
        let mut c = Cursor::new(content, content_abs, &place);

        match &id {
            b"SIZE" => {
                let mut size = [0u32; 3];
                for (axis, s) in size.iter_mut().enumerate() {
                    let at = c.offset();
                    let v = c.i32("a model size")?;
                    if v < 1 || v as u32 > MAX_MODEL_AXIS {
                        return Err(c.invalid(
                            at,
                            &format!("the size on axis {}", ["X", "Y", "Z"][axis]),
                            v.to_string(),
                            &format!("1 to {MAX_MODEL_AXIS}"),
                        ));
                    }
                    *s = v as u32;
                }
                if let Some((_, at)) = pending_size {
                    file.warnings.push(format!(
                        "byte {at}: a SIZE chunk with no XYZI or TDCZ after it was ignored"
                    ));
                }
                pending_size = Some((size, abs));
            }
            b"XYZI" | b"TDCZ" => {
                let Some((size, size_at)) = pending_size.take() else {
                    return Err(c.invalid(
                        abs,
                        "the chunk order",
                        format!("{id_text} with no SIZE before it"),
                        "each XYZI or TDCZ to follow its model's SIZE chunk",
                    ));
                };
                let (voxels, source) = if &id == b"XYZI" {
                    (
                        read_xyzi(&mut c, size, &mut file.warnings)?,
                        ModelSource::Xyzi,
                    )
                } else {
                    (
                        read_tdcz(&mut c, size, voxels_total, &mut file.warnings)?,
                        ModelSource::Tdcz,
                    )
                };
                voxels_total += voxels.len() as u64;
                if voxels_total > MAX_FILE_VOXELS {
                    return Err(c.invalid(
                        content_abs,
                        "the file's voxel count",
                        voxels_total.to_string(),
                        &format!("at most {MAX_FILE_VOXELS}"),
                    ));
                }
                file.models.push(VoxModel {
                    size,
                    voxels,
                    source,
                    offset: size_at,
                });
            }
            b"RGBA" => {
                // 256 colors as MagicaVoxel writes them; VoxTool writes only the 255 that
                // palette indices 1-255 use. A shorter one keeps the default's tail.
                let raw = c.take(c.remaining(), "the RGBA colors")?;
                if file.has_rgba {
                    file.warnings.push(format!(
                        "byte {abs}: a second RGBA chunk replaced the first"
                    ));
                }
                let colors = raw.len() / 4;
                if colors < 255 {
                    file.warnings.push(format!(
                        "byte {abs}: the RGBA chunk holds {colors} colors, not 255; indices {} to 255 keep MagicaVoxel's default colors",
                        colors + 1
                    ));
                }
                let mut p = default_palette();
                for (i, px) in raw.chunks_exact(4).take(255).enumerate() {
                    p[i + 1] = [px[0], px[1], px[2], px[3]];
                }
                file.palette = p;
                file.has_rgba = true;
            }
            b"MATL" => {
                let id = c.i32("the material id")?;
                let properties = c.dict("the material properties")?;
                if (1..=255).contains(&id) {
                    file.materials.push(VoxMaterial { id, properties });
                } else {
                    // MagicaVoxel writes a material for index 0 or 256 that no palette
                    // entry uses: kept whole, like any chunk not read.
                    file.extras.push(VoxChunk {
                        id: id_text,
                        bytes: whole.to_vec(),
                    });
                }
            }
            b"LAYR" => {
                let id = c.i32("the layer id")?;
                let attributes = c.dict("the layer attributes")?;
                // A reserved i32 (-1) follows; older writers leave it out.
                file.layers.push(VoxLayer { id, attributes });
            }
            b"nTRN" | b"nGRP" | b"nSHP" => {
                let node_id = c.i32("the node id")?;
                let attributes = c.dict("the node attributes")?;
                let node = match &id {
                    b"nTRN" => read_transform(&mut c, node_id, attributes)?,
                    b"nGRP" => {
                        let n = c.count("the child count", 4, MAX_NODE_LIST)?;
                        let mut children = Vec::with_capacity(n);
                        for _ in 0..n {
                            children.push(c.i32("a child node id")?);
                        }
                        VoxNode::Group(VoxGroup {
                            attributes,
                            children,
                        })
                    }
                    _ => {
                        let n = c.count("the model count", 8, MAX_NODE_LIST)?;
                        if n == 0 {
                            return Err(c.invalid(
                                content_abs,
                                &format!("shape node {node_id}'s model count"),
                                "0".into(),
                                "at least one model",
                            ));
                        }
                        let mut models = Vec::with_capacity(n);
                        for _ in 0..n {
                            let model = c.i32("a model id")?;
                            let attributes = c.dict("the model attributes")?;
                            let frame = frame_index(&c, &attributes, node_id)?;
                            models.push(VoxShapeModel {
                                model,
                                attributes,
                                frame,
                            });
                        }
                        VoxNode::Shape(VoxShape { attributes, models })
                    }
                };
                match file.nodes.entry(node_id) {
                    std::collections::btree_map::Entry::Occupied(_) => {
                        file.warnings.push(format!(
                            "byte {abs}: node id {node_id} appears again ({id_text}); the first one is kept"
                        ));
                    }
                    std::collections::btree_map::Entry::Vacant(v) => {
                        v.insert(node);
                    }
                }
            }
            _ => file.extras.push(VoxChunk {
                id: id_text,
                bytes: whole.to_vec(),
            }),
        }
        pos += whole_len;
        index += 1;
    }
    if let Some((_, at)) = pending_size {
        file.warnings.push(format!(
            "byte {at}: a SIZE chunk with no XYZI or TDCZ after it was ignored"
        ));
    }
    Ok(file)
}

fn frame_index(c: &Cursor, attributes: &Dict, node: i32) -> Result<u32, VoxError> {
    match dict_get(attributes, "_f") {
        None => Ok(0),
        Some(s) => s.trim().parse::<u32>().map_err(|_| {
            c.invalid(
                c.offset(),
                &format!("node {node}'s frame index _f"),
                format!("{s:?}"),
                "a whole number of 0 or more",
            )
        }),
    }
}

fn read_transform(c: &mut Cursor, node: i32, attributes: Dict) -> Result<VoxNode, VoxError> {
    let child = c.i32("the child node id")?;
    let _reserved = c.i32("the reserved id (-1)")?;
    let layer = c.i32("the layer id")?;
    let n = c.count("the frame count", 4, MAX_NODE_LIST)?;
    if n == 0 {
        return Err(c.invalid(
            c.offset(),
            &format!("transform node {node}'s frame count"),
            "0".into(),
            "at least one frame",
        ));
    }
    let mut frames = Vec::with_capacity(n);
    for _ in 0..n {
        let at = c.offset();
        let attributes = c.dict("the frame attributes")?;
        let rotation = match dict_get(&attributes, "_r") {
            None => Rotation::IDENTITY,
            Some(s) => s
                .trim()
                .parse::<u8>()
                .ok()
                .and_then(Rotation::from_byte)
                .ok_or_else(|| {
                    c.invalid(
                        at,
                        &format!("transform node {node}'s rotation _r"),
                        format!("{s:?}"),
                        "a rotation byte 0-127 whose two row indices differ and are 0, 1 or 2",
                    )
                })?,
        };
        let translation = match dict_get(&attributes, "_t") {
            None => [0; 3],
            Some(s) => parse_translation(s).ok_or_else(|| {
                c.invalid(
                    at,
                    &format!("transform node {node}'s translation _t"),
                    format!("{s:?}"),
                    "three whole numbers separated by spaces",
                )
            })?,
        };
        let frame = frame_index(c, &attributes, node)?;
        frames.push(VoxFrame {
            attributes,
            rotation,
            translation,
            frame,
        });
    }
    Ok(VoxNode::Transform(VoxTransform {
        attributes,
        child,
        layer,
        frames,
    }))
}

fn parse_translation(s: &str) -> Option<[i32; 3]> {
    let mut it = s.split_whitespace().map(|p| p.parse::<i32>().ok());
    let t = [it.next()??, it.next()??, it.next()??];
    it.next().is_none().then_some(t)
}

fn read_xyzi(
    c: &mut Cursor,
    size: [u32; 3],
    warnings: &mut Vec<String>,
) -> Result<Vec<[u8; 4]>, VoxError> {
    let at = c.offset();
    let n = c.count("the voxel count", 4, usize::MAX)?;
    let raw = c.take(n * 4, "the voxels")?;
    let mut out = Vec::with_capacity(n);
    let (mut empty, mut outside) = (0usize, 0usize);
    for v in raw.chunks_exact(4) {
        if v[3] == 0 {
            empty += 1;
        } else if u32::from(v[0]) >= size[0]
            || u32::from(v[1]) >= size[1]
            || u32::from(v[2]) >= size[2]
        {
            outside += 1;
        } else {
            out.push([v[0], v[1], v[2], v[3]]);
        }
    }
    if empty > 0 {
        warnings.push(format!(
            "byte {at}: {empty} XYZI voxels with palette index 0 (empty) were dropped"
        ));
    }
    if outside > 0 {
        warnings.push(format!(
            "byte {at}: {outside} XYZI voxels outside the model's size {}x{}x{} were dropped",
            size[0], size[1], size[2]
        ));
    }
    Ok(out)
}

/// Teardown VoxTool's `TDCZ`: `u32 sx, sy, sz`, then a zlib stream of `sx*sy*sz` palette
/// indices, X fastest, then Y, then Z. The stream may stop without its final block (VoxTool
/// never finishes it), so it is inflated incrementally and whatever it yields is kept.
fn read_tdcz(
    c: &mut Cursor,
    size: [u32; 3],
    voxels_so_far: u64,
    warnings: &mut Vec<String>,
) -> Result<Vec<[u8; 4]>, VoxError> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
    use miniz_oxide::inflate::TINFLStatus;

    let at = c.offset();
    let mut dims = [0u32; 3];
    for (axis, d) in dims.iter_mut().enumerate() {
        let p = c.offset();
        let v = c.u32("a TDCZ grid size")?;
        if v == 0 || v > 256 {
            return Err(c.invalid(
                p,
                &format!("the TDCZ grid size on axis {}", ["X", "Y", "Z"][axis]),
                v.to_string(),
                "1 to 256",
            ));
        }
        *d = v;
    }
    if dims != size {
        return Err(c.invalid(
            at,
            "the TDCZ grid size",
            format!("{}x{}x{}", dims[0], dims[1], dims[2]),
            &format!("the SIZE before it, {}x{}x{}", size[0], size[1], size[2]),
        ));
    }
    let cells = u64::from(dims[0]) * u64::from(dims[1]) * u64::from(dims[2]);
    debug_assert!(cells <= MAX_TDCZ_CELLS);
    let stream_at = c.offset();
    let input = c.take(c.remaining(), "the TDCZ zlib stream")?;

    // A 32 KiB wrapping window: no allocation scales with the claimed size.
    const WINDOW: usize = 32 * 1024;
    let mut window = vec![0u8; WINDOW];
    let mut state = DecompressorOxide::new();
    let flags = inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER;
    let mut in_pos = 0usize;
    let mut out_pos = 0usize;
    let mut cell = 0u64;
    let mut voxels = Vec::new();
    let (sx, sy) = (u64::from(dims[0]), u64::from(dims[1]));
    let mut truncated_stream = false;
    loop {
        let (status, used_in, written) =
            decompress(&mut state, &input[in_pos..], &mut window, out_pos, flags);
        in_pos += used_in;
        for &b in &window[out_pos..out_pos + written] {
            if cell >= cells {
                break;
            }
            if b != 0 {
                let x = cell % sx;
                let y = (cell / sx) % sy;
                let z = cell / (sx * sy);
                // Each of x, y, z < 256, checked above.
                voxels.push([x as u8, y as u8, z as u8, b]);
                if voxels_so_far + voxels.len() as u64 > MAX_FILE_VOXELS {
                    return Err(c.invalid(
                        stream_at,
                        "the file's voxel count",
                        format!("over {MAX_FILE_VOXELS}"),
                        &format!("at most {MAX_FILE_VOXELS}"),
                    ));
                }
            }
            cell += 1;
        }
        out_pos = (out_pos + written) & (WINDOW - 1);
        match status {
            TINFLStatus::Done => break,
            TINFLStatus::HasMoreOutput => {
                if cell >= cells {
                    warnings.push(format!(
                        "byte {stream_at}: the TDCZ stream holds more than its {cells} cells; the rest was ignored"
                    ));
                    break;
                }
            }
            TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                // The input is all there is: VoxTool's unfinished stream ends here.
                truncated_stream = true;
                break;
            }
            other => {
                return Err(c.invalid(
                    stream_at,
                    "the TDCZ zlib stream",
                    format!("corrupt ({other:?}) after {cell} cells"),
                    "a zlib stream of the grid's palette indices",
                ));
            }
        }
        if written == 0 && used_in == 0 {
            truncated_stream = true;
            break;
        }
    }
    if cell < cells {
        return Err(c.invalid(
            stream_at,
            "the TDCZ zlib stream",
            format!("{cell} cells"),
            &format!("{cells} cells ({}x{}x{})", dims[0], dims[1], dims[2]),
        ));
    }
    let _ = truncated_stream; // VoxTool's streams are never finished; not worth a warning.
    Ok(voxels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_byte_from_the_format_document() {
        // The format document's example: rows (0 1 0), (0 0 -1), (-1 0 0) is
        // (1 << 0) | (2 << 2) | (0 << 4) | (1 << 5) | (1 << 6) = 1 + 8 + 32 + 64 = 105.
        let r = Rotation::from_byte(105).unwrap();
        assert_eq!(r.rows, [[0, 1, 0], [0, 0, -1], [-1, 0, 0]]);
        assert_eq!(r.determinant(), 1);
        // 4 = row 0 col 0, row 1 col 1: identity.
        assert_eq!(Rotation::from_byte(4).unwrap(), Rotation::IDENTITY);
        // 4 | 1 << 6: a mirror in Z.
        let m = Rotation::from_byte(4 | 64).unwrap();
        assert_eq!(m.rows, [[1, 0, 0], [0, 1, 0], [0, 0, -1]]);
        assert_eq!(m.determinant(), -1);
        // Equal columns and column 3 are not permutations.
        assert_eq!(Rotation::from_byte(0), None);
        assert_eq!(Rotation::from_byte(3 | 4), None);
        assert_eq!(Rotation::from_byte(128 | 4), None);
    }

    #[test]
    fn every_valid_rotation_byte_is_a_signed_permutation() {
        let mut valid = 0;
        for b in 0..=255u8 {
            if let Some(r) = Rotation::from_byte(b) {
                valid += 1;
                for i in 0..3 {
                    let row: i32 = r.rows[i].iter().map(|v| i32::from(v.abs())).sum();
                    let col: i32 = (0..3).map(|j| i32::from(r.rows[j][i].abs())).sum();
                    assert_eq!((row, col), (1, 1), "byte {b}");
                }
                assert_eq!(r.determinant().abs(), 1);
            }
        }
        // 6 permutations x 8 sign patterns.
        assert_eq!(valid, 48);
    }

    #[test]
    fn default_palette_matches_magicavoxel() {
        let p = default_palette();
        assert_eq!(p[0], [0, 0, 0, 0]);
        assert_eq!(p[1], [0xff, 0xff, 0xff, 0xff]);
        assert_eq!(p[2], [0xff, 0xff, 0xcc, 0xff]);
        assert_eq!(p[7], [0xff, 0xcc, 0xff, 0xff]);
        // The cube's last color before black: 00 00 33.
        assert_eq!(p[215], [0, 0, 0x33, 0xff]);
        assert_eq!(p[216], [0xee, 0, 0, 0xff]);
        assert_eq!(p[226], [0, 0xee, 0, 0xff]);
        assert_eq!(p[236], [0, 0, 0xee, 0xff]);
        assert_eq!(p[246], [0xee, 0xee, 0xee, 0xff]);
        assert_eq!(p[255], [0x11, 0x11, 0x11, 0xff]);
    }

    #[test]
    fn translation_parses_three_integers() {
        assert_eq!(parse_translation("-5 24 0"), Some([-5, 24, 0]));
        assert_eq!(parse_translation("1 2"), None);
        assert_eq!(parse_translation("1 2 3 4"), None);
        assert_eq!(parse_translation("1 x 3"), None);
    }
}
