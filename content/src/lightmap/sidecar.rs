//! The lightmap sidecar, `<map>.dh-map.dh-lightmap` (spec 000 "Lightmap" through "An imported
//! lightmap"): what a bake (or an importer) writes beside the map source and `dh build`
//! packages. Little-endian throughout:
//!
//! ```text
//! header   magic "DHLM", version u32 (5), flags u32 (bit 0: origin imported; bit 1: the
//!          trailing extent table is present), page width u32, page height u32 (the array's
//!          layer size), page count u32, geometry hash [u8; 32] (SHA-256, see geometry_hash)
//! zones    count u16, then each zone's id (u16 length + UTF-8); a page of zone 0xFFFF is
//!          in the map's implicit default zone
//! sets     count u16, then each set: its zone u16, its name (u16 length + UTF-8)
//! pages    per page: zone u16, set u16 (0 the default, n the n-th set), storage u8 (0
//!          blocks, 1 texels), 3 zero bytes, then
//!            blocks: BC6H (bw·bh·16), then five BC4 planes (bw·bh·8 each) in the order
//!                    direction x, y, z, occlusion, indirect share — 3.5 bytes a texel
//!            texels: L0 as RGB9E5 u32 a texel, then the five planes a byte a texel
//! pool     exception count u32, then each: page u32, block x u16, block y u16, 16 RGB9E5
//! uv sets  count u32, then each: its placement key (u16 length + UTF-8; empty for the map's
//!          one model where it was built), vertex count u32, that many (u, v) f32 pairs (u =
//!          page + x; (-1, -1) is "not baked"), copy count u32, then each copy: the vertex it
//!          duplicates u32, its (u, v), corner count u32, that many corner indices u32
//! extents  only with flag bit 1, the file's last page count × 8 bytes: each page's own
//!          width u32, height u32 (written only when the pages are not all one size)
//! ```
//!
//! Version 5 is the one that records each page's zone and set (format 4's addition) and
//! carries one UV set per placement (version 5's). Reading is bounded: every count is checked
//! against the bytes left before anything is allocated for it, a page edge is at most 8192,
//! and every error names the file, the byte offset and the member it was reading.

use sha2::{Digest, Sha256};

use super::codec::{ExceptionBlock, BC4_BLOCK_BYTES, BC6H_BLOCK_BYTES, PLANES};

/// The sidecar's magic.
pub const MAGIC: &[u8; 4] = b"DHLM";
/// The format version this build writes and reads.
pub const VERSION: u32 = 5;
/// The largest page edge (`lighting.lightmap.maxSize`'s ceiling).
pub const MAX_PAGE_EDGE: u32 = 8192;
/// The most pages a sidecar may hold (two 8192-texel pages' worth of texels is the spec's
/// refusal, so 4096 pages of the smallest 64-texel size is far past any bake).
pub const MAX_PAGES: u32 = 4096;
/// The longest zone id, set name or placement key, in bytes.
pub const MAX_NAME: usize = 1024;
/// A page whose zone is this is in the map's implicit default zone.
pub const DEFAULT_ZONE: u16 = 0xFFFF;
const FLAG_IMPORTED: u32 = 1;
const FLAG_EXTENTS: u32 = 2;

/// Where the lightmap came from (`lighting.lightmap.origin`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Baked here.
    Baked,
    /// Written by an importer from another engine's bake.
    Imported,
}

/// What a page stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageData {
    /// Block-compressed: BC6H L0 and five BC4 planes.
    Blocks {
        /// BC6H blocks, row-major.
        bc6h: Vec<u8>,
        /// The five BC4 planes.
        planes: [Vec<u8>; PLANES],
    },
    /// Raw texels: shared-exponent L0 and the five planes a byte a texel.
    Texels {
        /// RGB9E5 L0, row-major.
        l0: Vec<u32>,
        /// The five planes.
        planes: [Vec<u8>; PLANES],
    },
}

/// One page of the atlas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The bake zone (an index into [`Lightmap::zones`]), or [`DEFAULT_ZONE`].
    pub zone: u16,
    /// 0 for the zone's default set, `n` for [`Lightmap::sets`]`[n - 1]`.
    pub set: u16,
    /// The page's own extent.
    pub width: u32,
    /// The page's own extent.
    pub height: u32,
    /// Its texels.
    pub data: PageData,
}

/// A bake set the sidecar holds pages of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BakeSet {
    /// The zone (an index into [`Lightmap::zones`]).
    pub zone: u16,
    /// The set's name.
    pub name: String,
}

/// A copy of a vertex a chart seam cut in two (003 "Lightmap UV companion").
#[derive(Debug, Clone, PartialEq)]
pub struct UvCopy {
    /// The loader vertex it duplicates.
    pub vertex: u32,
    /// Its own coordinate.
    pub uv: [f32; 2],
    /// The index corners (in the loader's triangle stream) that move to it.
    pub corners: Vec<u32>,
}

/// One placement's lightmap UV set.
#[derive(Debug, Clone, PartialEq)]
pub struct UvSet {
    /// The placement's instance id; empty for the map's one model where it was built.
    pub key: String,
    /// One coordinate per loader vertex; `(-1, -1)` is "not baked".
    pub coords: Vec<[f32; 2]>,
    /// Seam copies.
    pub copies: Vec<UvCopy>,
}

/// A whole sidecar.
#[derive(Debug, Clone, PartialEq)]
pub struct Lightmap {
    /// Who wrote it.
    pub origin: Origin,
    /// The array's layer width (every page's unless the extent table says otherwise).
    pub page_width: u32,
    /// The array's layer height.
    pub page_height: u32,
    /// The hash of the geometry it was baked for ([`geometry_hash`]).
    pub geometry_hash: [u8; 32],
    /// Bake zone ids.
    pub zones: Vec<String>,
    /// Bake sets beyond each zone's default.
    pub sets: Vec<BakeSet>,
    /// The pages: the default set's first, then each set's.
    pub pages: Vec<Page>,
    /// The exception pool.
    pub exceptions: Vec<ExceptionBlock>,
    /// The UV sets the atlas was packed through.
    pub uv_sets: Vec<UvSet>,
}

/// Why a sidecar does not read: each names the file, and where it can, the byte and member.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SidecarError {
    /// Not a lightmap sidecar at all.
    #[error(
        "{file}: not a lightmap sidecar (its first bytes are {found:02x?}, expected \"DHLM\")"
    )]
    Magic {
        /// The file.
        file: String,
        /// What it starts with.
        found: Vec<u8>,
    },
    /// Another format version.
    #[error("{file}: lightmap format version {found}, and this build reads version {VERSION} (rebake to write it)")]
    Version {
        /// The file.
        file: String,
        /// The version it records.
        found: u32,
    },
    /// The file ends inside a member.
    #[error("{file}: truncated at byte {at} reading {what}: {need} byte(s) needed, {left} left")]
    Truncated {
        /// The file.
        file: String,
        /// The byte offset.
        at: usize,
        /// The member.
        what: String,
        /// What it needs.
        need: u64,
        /// What is left.
        left: usize,
    },
    /// A member's value is out of its range.
    #[error("{file}: at byte {at}, {what}: {why}")]
    Invalid {
        /// The file.
        file: String,
        /// The byte offset.
        at: usize,
        /// The member.
        what: String,
        /// What was expected.
        why: String,
    },
}

struct Reader<'a> {
    file: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// Where the readable region ends (the extent table, when present, is past it).
    end: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.end.saturating_sub(self.at)
    }

    fn take(&mut self, n: u64, what: &dyn Fn() -> String) -> Result<&'a [u8], SidecarError> {
        if n > self.left() as u64 {
            return Err(SidecarError::Truncated {
                file: self.file.to_string(),
                at: self.at,
                what: what(),
                need: n,
                left: self.left(),
            });
        }
        let s = &self.bytes[self.at..self.at + n as usize];
        self.at += n as usize;
        Ok(s)
    }

    fn u8(&mut self, what: &dyn Fn() -> String) -> Result<u8, SidecarError> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &dyn Fn() -> String) -> Result<u16, SidecarError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, what: &dyn Fn() -> String) -> Result<u32, SidecarError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn f32(&mut self, what: &dyn Fn() -> String) -> Result<f32, SidecarError> {
        Ok(f32::from_bits(self.u32(what)?))
    }

    fn invalid(&self, at: usize, what: String, why: String) -> SidecarError {
        SidecarError::Invalid {
            file: self.file.to_string(),
            at,
            what,
            why,
        }
    }

    /// A count of items of at least `min_bytes` each: refused before anything is allocated
    /// when the bytes left cannot hold that many.
    fn count(
        &mut self,
        wide: bool,
        min_bytes: u64,
        what: &dyn Fn() -> String,
    ) -> Result<usize, SidecarError> {
        let at = self.at;
        let n = if wide {
            u64::from(self.u32(what)?)
        } else {
            u64::from(self.u16(what)?)
        };
        if n.saturating_mul(min_bytes) > self.left() as u64 {
            return Err(self.invalid(
                at,
                what(),
                format!(
                    "{n} item(s) of at least {min_bytes} byte(s) each cannot fit in the {} byte(s) left",
                    self.left()
                ),
            ));
        }
        Ok(n as usize)
    }

    fn name(&mut self, what: &dyn Fn() -> String) -> Result<String, SidecarError> {
        let at = self.at;
        let n = self.u16(what)? as usize;
        if n > MAX_NAME {
            return Err(self.invalid(
                at,
                what(),
                format!("{n} bytes is past the {MAX_NAME}-byte limit"),
            ));
        }
        let b = self.take(n as u64, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| self.invalid(at + 2, what(), "not UTF-8".into()))
    }
}

fn planes_bytes(w: u32, h: u32, storage: u8) -> u64 {
    let texels = u64::from(w) * u64::from(h);
    if storage == 0 {
        let blocks = texels / 16;
        blocks * (BC6H_BLOCK_BYTES + PLANES * BC4_BLOCK_BYTES) as u64
    } else {
        texels * (4 + PLANES as u64)
    }
}

impl Lightmap {
    /// Reads a sidecar; `file` names it in every error.
    pub fn read(file: &str, bytes: &[u8]) -> Result<Lightmap, SidecarError> {
        let mut r = Reader {
            file,
            bytes,
            at: 0,
            end: bytes.len(),
        };
        let magic = r
            .take(4, &|| "the magic".into())
            .map_err(|_| SidecarError::Magic {
                file: file.to_string(),
                found: bytes.iter().take(4).copied().collect(),
            })?;
        if magic != MAGIC {
            return Err(SidecarError::Magic {
                file: file.to_string(),
                found: magic.to_vec(),
            });
        }
        let version = r.u32(&|| "the format version".into())?;
        if version != VERSION {
            return Err(SidecarError::Version {
                file: file.to_string(),
                found: version,
            });
        }
        let flags_at = r.at;
        let flags = r.u32(&|| "the flags".into())?;
        if flags & !(FLAG_IMPORTED | FLAG_EXTENTS) != 0 {
            return Err(r.invalid(
                flags_at,
                "the flags".into(),
                format!("unknown bits in {flags:#x}"),
            ));
        }
        let edge_at = r.at;
        let page_width = r.u32(&|| "the page width".into())?;
        let page_height = r.u32(&|| "the page height".into())?;
        let edge_ok = |e: u32| (1..=MAX_PAGE_EDGE).contains(&e);
        if !edge_ok(page_width) || !edge_ok(page_height) {
            return Err(r.invalid(
                edge_at,
                "the page size".into(),
                format!("{page_width}x{page_height}; each edge must be 1 to {MAX_PAGE_EDGE}"),
            ));
        }
        let count_at = r.at;
        let page_count = r.u32(&|| "the page count".into())?;
        if page_count > MAX_PAGES {
            return Err(r.invalid(
                count_at,
                "the page count".into(),
                format!("{page_count} is past {MAX_PAGES}"),
            ));
        }
        let mut geometry_hash = [0u8; 32];
        geometry_hash.copy_from_slice(r.take(32, &|| "the geometry hash".into())?);
        // The trailing extent table, read first: each page's size decides its bytes.
        let mut extents = vec![(page_width, page_height); page_count as usize];
        if flags & FLAG_EXTENTS != 0 {
            let table = u64::from(page_count) * 8;
            if table > r.left() as u64 {
                return Err(SidecarError::Truncated {
                    file: file.to_string(),
                    at: r.at,
                    what: "the trailing page extent table".into(),
                    need: table,
                    left: r.left(),
                });
            }
            let start = bytes.len() - table as usize;
            let mut t = Reader {
                file,
                bytes,
                at: start,
                end: bytes.len(),
            };
            for (p, e) in extents.iter_mut().enumerate() {
                let at = t.at;
                let w = t.u32(&|| format!("page {p}'s extent"))?;
                let h = t.u32(&|| format!("page {p}'s extent"))?;
                if !edge_ok(w) || !edge_ok(h) || w > page_width || h > page_height {
                    return Err(t.invalid(
                        at,
                        format!("page {p}'s extent"),
                        format!("{w}x{h}; each edge 1 to the page size {page_width}x{page_height}"),
                    ));
                }
                *e = (w, h);
            }
            if extents.iter().all(|&e| e == (page_width, page_height)) {
                return Err(t.invalid(
                    start,
                    "the trailing page extent table".into(),
                    "it is written only when the pages are not all one size, and these are".into(),
                ));
            }
            r.end = start;
        }
        let n = r.count(false, 2, &|| "the zone count".into())?;
        let mut zones = Vec::with_capacity(n);
        for z in 0..n {
            zones.push(r.name(&|| format!("zone {z}'s id"))?);
        }
        let n = r.count(false, 4, &|| "the set count".into())?;
        let mut sets = Vec::with_capacity(n);
        for s in 0..n {
            let at = r.at;
            let zone = r.u16(&|| format!("set {s}'s zone"))?;
            if usize::from(zone) >= zones.len() {
                return Err(r.invalid(
                    at,
                    format!("set {s}'s zone"),
                    format!("zone {zone} of {}", zones.len()),
                ));
            }
            sets.push(BakeSet {
                zone,
                name: r.name(&|| format!("set {s}'s name"))?,
            });
        }
        let mut pages = Vec::with_capacity(page_count as usize);
        for (p, &(width, height)) in extents.iter().enumerate() {
            let at = r.at;
            let zone = r.u16(&|| format!("page {p}'s zone"))?;
            if zone != DEFAULT_ZONE && usize::from(zone) >= zones.len() {
                return Err(r.invalid(
                    at,
                    format!("page {p}'s zone"),
                    format!("zone {zone} of {}", zones.len()),
                ));
            }
            let at = r.at;
            let set = r.u16(&|| format!("page {p}'s set"))?;
            if usize::from(set) > sets.len() {
                return Err(r.invalid(
                    at,
                    format!("page {p}'s set"),
                    format!("set {set} of {}", sets.len()),
                ));
            }
            let at = r.at;
            let storage = r.u8(&|| format!("page {p}'s storage"))?;
            r.take(3, &|| format!("page {p}'s header"))?;
            match storage {
                0 if width % 4 != 0 || height % 4 != 0 => {
                    return Err(r.invalid(
                        at,
                        format!("page {p}'s storage"),
                        format!(
                            "blocks need an extent in multiples of four, found {width}x{height}"
                        ),
                    ))
                }
                0 | 1 => {}
                s => {
                    return Err(r.invalid(
                        at,
                        format!("page {p}'s storage"),
                        format!("{s}; expected 0 (blocks) or 1 (texels)"),
                    ))
                }
            }
            let need = planes_bytes(width, height, storage);
            if need > r.left() as u64 {
                return Err(SidecarError::Truncated {
                    file: file.to_string(),
                    at: r.at,
                    what: format!("page {p}'s texels ({width}x{height})"),
                    need,
                    left: r.left(),
                });
            }
            let texels = (width * height) as u64;
            let data = if storage == 0 {
                let blocks = texels / 16;
                let bc6h = r
                    .take(blocks * BC6H_BLOCK_BYTES as u64, &|| {
                        format!("page {p}'s BC6H")
                    })?
                    .to_vec();
                let mut planes: [Vec<u8>; PLANES] = Default::default();
                for (i, plane) in planes.iter_mut().enumerate() {
                    *plane = r
                        .take(blocks * BC4_BLOCK_BYTES as u64, &|| {
                            format!("page {p}'s BC4 plane {i}")
                        })?
                        .to_vec();
                }
                PageData::Blocks { bc6h, planes }
            } else {
                let raw = r.take(texels * 4, &|| format!("page {p}'s L0 texels"))?;
                let l0 = raw
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                let mut planes: [Vec<u8>; PLANES] = Default::default();
                for (i, plane) in planes.iter_mut().enumerate() {
                    *plane = r
                        .take(texels, &|| format!("page {p}'s plane {i}"))?
                        .to_vec();
                }
                PageData::Texels { l0, planes }
            };
            pages.push(Page {
                zone,
                set,
                width,
                height,
                data,
            });
        }
        let n = r.count(true, 72, &|| "the exception count".into())?;
        let mut exceptions = Vec::with_capacity(n);
        for e in 0..n {
            let at = r.at;
            let page = r.u32(&|| format!("exception {e}'s page"))?;
            let block_x = r.u16(&|| format!("exception {e}'s block"))?;
            let block_y = r.u16(&|| format!("exception {e}'s block"))?;
            let ok = pages.get(page as usize).is_some_and(|pg| {
                matches!(pg.data, PageData::Blocks { .. })
                    && u32::from(block_x) < pg.width / 4
                    && u32::from(block_y) < pg.height / 4
            });
            if !ok {
                return Err(r.invalid(
                    at,
                    format!("exception {e}"),
                    format!("block ({block_x}, {block_y}) of page {page} is not a compressed block of the sidecar"),
                ));
            }
            let mut texels = [0u32; 16];
            for t in &mut texels {
                *t = r.u32(&|| format!("exception {e}'s texels"))?;
            }
            exceptions.push(ExceptionBlock {
                page,
                block_x,
                block_y,
                texels,
            });
        }
        let n = r.count(true, 10, &|| "the UV set count".into())?;
        let mut uv_sets = Vec::with_capacity(n);
        for s in 0..n {
            let key = r.name(&|| format!("UV set {s}'s key"))?;
            let verts = r.count(true, 8, &|| format!("UV set {s}'s vertex count"))?;
            let mut coords = Vec::with_capacity(verts);
            for v in 0..verts {
                let at = r.at;
                let u = r.f32(&|| format!("UV set {s}'s vertex {v}"))?;
                let w = r.f32(&|| format!("UV set {s}'s vertex {v}"))?;
                check_uv(&r, at, [u, w], page_count, &|| {
                    format!("UV set {s}'s vertex {v}")
                })?;
                coords.push([u, w]);
            }
            let copies_n = r.count(true, 16, &|| format!("UV set {s}'s copy count"))?;
            let mut copies = Vec::with_capacity(copies_n);
            for c in 0..copies_n {
                let at = r.at;
                let vertex = r.u32(&|| format!("UV set {s}'s copy {c}"))?;
                if vertex as usize >= coords.len() {
                    return Err(r.invalid(
                        at,
                        format!("UV set {s}'s copy {c}"),
                        format!("duplicates vertex {vertex} of {}", coords.len()),
                    ));
                }
                let at = r.at;
                let uv = [
                    r.f32(&|| format!("UV set {s}'s copy {c}"))?,
                    r.f32(&|| format!("UV set {s}'s copy {c}"))?,
                ];
                check_uv(&r, at, uv, page_count, &|| format!("UV set {s}'s copy {c}"))?;
                let k = r.count(true, 4, &|| format!("UV set {s}'s copy {c}'s corner count"))?;
                let mut corners = Vec::with_capacity(k);
                for _ in 0..k {
                    corners.push(r.u32(&|| format!("UV set {s}'s copy {c}'s corners"))?);
                }
                copies.push(UvCopy {
                    vertex,
                    uv,
                    corners,
                });
            }
            uv_sets.push(UvSet {
                key,
                coords,
                copies,
            });
        }
        if r.left() != 0 {
            return Err(r.invalid(
                r.at,
                "the end of the file".into(),
                format!("{} byte(s) past the last member", r.left()),
            ));
        }
        Ok(Lightmap {
            origin: if flags & FLAG_IMPORTED != 0 {
                Origin::Imported
            } else {
                Origin::Baked
            },
            page_width,
            page_height,
            geometry_hash,
            zones,
            sets,
            pages,
            exceptions,
            uv_sets,
        })
    }

    /// Writes the sidecar (the extent table only where the pages are not all one size).
    pub fn write(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mixed = self
            .pages
            .iter()
            .any(|p| (p.width, p.height) != (self.page_width, self.page_height));
        let flags = u32::from(self.origin == Origin::Imported) * FLAG_IMPORTED
            + u32::from(mixed) * FLAG_EXTENTS;
        out.extend_from_slice(MAGIC);
        for v in [
            VERSION,
            flags,
            self.page_width,
            self.page_height,
            self.pages.len() as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.geometry_hash);
        let name = |out: &mut Vec<u8>, s: &str| {
            out.extend_from_slice(&(s.len() as u16).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        };
        out.extend_from_slice(&(self.zones.len() as u16).to_le_bytes());
        for z in &self.zones {
            name(&mut out, z);
        }
        out.extend_from_slice(&(self.sets.len() as u16).to_le_bytes());
        for s in &self.sets {
            out.extend_from_slice(&s.zone.to_le_bytes());
            name(&mut out, &s.name);
        }
        for p in &self.pages {
            out.extend_from_slice(&p.zone.to_le_bytes());
            out.extend_from_slice(&p.set.to_le_bytes());
            match &p.data {
                PageData::Blocks { bc6h, planes } => {
                    out.extend_from_slice(&[0, 0, 0, 0]);
                    out.extend_from_slice(bc6h);
                    for plane in planes {
                        out.extend_from_slice(plane);
                    }
                }
                PageData::Texels { l0, planes } => {
                    out.extend_from_slice(&[1, 0, 0, 0]);
                    for v in l0 {
                        out.extend_from_slice(&v.to_le_bytes());
                    }
                    for plane in planes {
                        out.extend_from_slice(plane);
                    }
                }
            }
        }
        out.extend_from_slice(&(self.exceptions.len() as u32).to_le_bytes());
        for e in &self.exceptions {
            out.extend_from_slice(&e.page.to_le_bytes());
            out.extend_from_slice(&e.block_x.to_le_bytes());
            out.extend_from_slice(&e.block_y.to_le_bytes());
            for t in e.texels {
                out.extend_from_slice(&t.to_le_bytes());
            }
        }
        out.extend_from_slice(&(self.uv_sets.len() as u32).to_le_bytes());
        for s in &self.uv_sets {
            name(&mut out, &s.key);
            out.extend_from_slice(&(s.coords.len() as u32).to_le_bytes());
            for [u, v] in &s.coords {
                out.extend_from_slice(&u.to_le_bytes());
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&(s.copies.len() as u32).to_le_bytes());
            for c in &s.copies {
                out.extend_from_slice(&c.vertex.to_le_bytes());
                out.extend_from_slice(&c.uv[0].to_le_bytes());
                out.extend_from_slice(&c.uv[1].to_le_bytes());
                out.extend_from_slice(&(c.corners.len() as u32).to_le_bytes());
                for k in &c.corners {
                    out.extend_from_slice(&k.to_le_bytes());
                }
            }
        }
        if mixed {
            for p in &self.pages {
                out.extend_from_slice(&p.width.to_le_bytes());
                out.extend_from_slice(&p.height.to_le_bytes());
            }
        }
        out
    }

    /// How many texels the pages hold.
    pub fn texels(&self) -> u64 {
        self.pages
            .iter()
            .map(|p| u64::from(p.width) * u64::from(p.height))
            .sum()
    }
}

fn check_uv(
    r: &Reader,
    at: usize,
    [u, v]: [f32; 2],
    pages: u32,
    what: &dyn Fn() -> String,
) -> Result<(), SidecarError> {
    if [u, v] == [-1.0, -1.0] {
        return Ok(());
    }
    let ok =
        u.is_finite() && v.is_finite() && u >= 0.0 && u < pages as f32 && (0.0..=1.0).contains(&v);
    if ok {
        Ok(())
    } else {
        Err(r.invalid(
            at,
            what(),
            format!("({u}, {v}) is neither (-1, -1) nor on one of the {pages} page(s) (u = page + x in [0, {pages}), v in [0, 1])"),
        ))
    }
}

/// One placement of a model in the map, as the geometry hash covers it.
#[derive(Debug, Clone, Copy)]
pub struct GeometryPlacement<'a> {
    /// The placement's instance id (text).
    pub key: &'a str,
    /// The model's bytes (the GLB the mesh loader expands).
    pub model: &'a [u8],
    /// Position, euler degrees and scale as the map places it.
    pub pose: [[f32; 3]; 3],
}

/// The pose of a model placed where it was built.
pub const BUILT_POSE: [[f32; 3]; 3] = [[0.0; 3], [0.0; 3], [1.0; 3]];

/// The geometry a bake read, as the key a build checks a sidecar against (spec 000 "Where a
/// bake lives": "the sidecar records a hash of the geometry it read"). A map with one model
/// placed where it was built hashes to that GLB's SHA-256 (which is what an importer records,
/// "the hash of that GLB like any other"); any other map's hash covers every placement's
/// key, model and pose in record order.
pub fn geometry_hash(placements: &[GeometryPlacement]) -> [u8; 32] {
    if let [one] = placements {
        if one.pose == BUILT_POSE {
            return Sha256::digest(one.model).into();
        }
    }
    let mut h = Sha256::new();
    h.update(b"dh-lightmap placements\0");
    for p in placements {
        h.update((p.key.len() as u32).to_le_bytes());
        h.update(p.key.as_bytes());
        h.update(Sha256::digest(p.model));
        for v in p.pose.iter().flatten() {
            h.update(v.to_le_bytes());
        }
    }
    h.finalize().into()
}

/// `LightmapPageFit` (spec 000 "The lightmap on the GPU"): cuts each page of an imported
/// lightmap, per axis, to the smallest power-of-two extent (at least 64, at most its own) that
/// holds every coordinate the UV sets put on it plus two texels of margin, and rescales the UV
/// sets to match so every coordinate lands on the same texel. Only pages stored as texels are
/// cut (an import's are); a page no coordinate reaches keeps its extent. Returns how many
/// pages were cut.
pub fn fit_pages(lm: &mut Lightmap) -> usize {
    let n = lm.pages.len();
    let mut reach = vec![(0f64, 0f64, false); n];
    let coords = |lm: &Lightmap| -> Vec<[f32; 2]> {
        lm.uv_sets
            .iter()
            .flat_map(|s| {
                s.coords
                    .iter()
                    .copied()
                    .chain(s.copies.iter().map(|c| c.uv))
            })
            .collect()
    };
    for [u, v] in coords(lm) {
        if [u, v] == [-1.0, -1.0] || u < 0.0 {
            continue;
        }
        let p = u.floor() as usize;
        if let Some(r) = reach.get_mut(p) {
            let pg = &lm.pages[p];
            r.0 = r.0.max(f64::from(u - u.floor()) * f64::from(pg.width));
            r.1 = r.1.max(f64::from(v) * f64::from(pg.height));
            r.2 = true;
        }
    }
    let fit = |texels: f64, own: u32| -> u32 {
        let need = (texels.ceil() as u64 + 2).max(64);
        (need.next_power_of_two().min(u64::from(own))) as u32
    };
    let mut new_size = Vec::with_capacity(n);
    let mut cut = 0;
    for (p, page) in lm.pages.iter_mut().enumerate() {
        let (w, h) = (page.width, page.height);
        let (nw, nh) = match (&mut page.data, reach[p]) {
            (PageData::Texels { l0, planes }, (rx, ry, true)) => {
                let (nw, nh) = (fit(rx, w), fit(ry, h));
                if (nw, nh) != (w, h) {
                    let crop = |src: &[u8]| -> Vec<u8> {
                        (0..nh as usize)
                            .flat_map(|y| {
                                src[y * w as usize..y * w as usize + nw as usize]
                                    .iter()
                                    .copied()
                            })
                            .collect()
                    };
                    *l0 = (0..nh as usize)
                        .flat_map(|y| l0[y * w as usize..y * w as usize + nw as usize].to_vec())
                        .collect();
                    for plane in planes.iter_mut() {
                        *plane = crop(plane);
                    }
                    cut += 1;
                }
                (nw, nh)
            }
            _ => (w, h),
        };
        page.width = nw;
        page.height = nh;
        new_size.push((w, h, nw, nh));
    }
    let rescale = |uv: &mut [f32; 2]| {
        if *uv == [-1.0, -1.0] || uv[0] < 0.0 {
            return;
        }
        let p = uv[0].floor();
        if let Some(&(w, h, nw, nh)) = new_size.get(p as usize) {
            let x = (f64::from(uv[0] - p) * f64::from(w) / f64::from(nw)) as f32;
            uv[0] = p + x;
            uv[1] = (f64::from(uv[1]) * f64::from(h) / f64::from(nh)) as f32;
        }
    };
    for s in &mut lm.uv_sets {
        s.coords.iter_mut().for_each(&rescale);
        s.copies.iter_mut().for_each(|c| rescale(&mut c.uv));
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lightmap::codec::{encode_page, PageTexels};
    use crate::lightmap::monosh::MonoShTexel;
    use glam::Vec3;

    fn baked() -> Lightmap {
        let texels: Vec<MonoShTexel> = (0..64)
            .map(|i| MonoShTexel {
                l0: Vec3::new(i as f32 * 0.1, 1.0, 0.5),
                direction: Vec3::Z,
                occlusion: 1.0,
                indirect: 0.0,
            })
            .collect();
        let page = PageTexels {
            width: 8,
            height: 8,
            covered: vec![true; 64],
            texels,
        };
        let e = encode_page(0, &page, 2);
        Lightmap {
            origin: Origin::Baked,
            page_width: 8,
            page_height: 8,
            geometry_hash: [9; 32],
            zones: vec!["room".into()],
            sets: vec![BakeSet {
                zone: 0,
                name: "red".into(),
            }],
            pages: vec![
                Page {
                    zone: DEFAULT_ZONE,
                    set: 0,
                    width: 8,
                    height: 8,
                    data: PageData::Blocks {
                        bc6h: e.page.bc6h.clone(),
                        planes: e.page.planes.clone(),
                    },
                },
                Page {
                    zone: 0,
                    set: 1,
                    width: 4,
                    height: 4,
                    data: PageData::Texels {
                        l0: vec![7; 16],
                        planes: std::array::from_fn(|p| vec![p as u8; 16]),
                    },
                },
            ],
            exceptions: vec![ExceptionBlock {
                page: 0,
                block_x: 1,
                block_y: 0,
                texels: [0x8000_0100; 16],
            }],
            uv_sets: vec![UvSet {
                key: "3c9b7a10-0000-4000-8000-0000000000a1".into(),
                coords: vec![[0.25, 0.5], [1.5, 1.0], [-1.0, -1.0]],
                copies: vec![UvCopy {
                    vertex: 1,
                    uv: [0.75, 0.0],
                    corners: vec![4, 7],
                }],
            }],
        }
    }

    /// 3.5 bytes a texel for a compressed page: an 8×8 page is four blocks of 16 + 5 × 8.
    #[test]
    fn writes_and_reads_back_every_member() {
        let lm = baked();
        let bytes = lm.write();
        let back = Lightmap::read("maps/a.dh-map.dh-lightmap", &bytes).expect("reads");
        assert_eq!(back, lm);
        let PageData::Blocks { bc6h, planes } = &back.pages[0].data else {
            panic!("blocks");
        };
        assert_eq!(
            bc6h.len() + planes.iter().map(Vec::len).sum::<usize>(),
            4 * 56
        );
        assert_eq!(4 * 56, (3.5 * 64.0) as usize);
        // Mixed extents: the trailing table holds page 1's 4×4.
        assert_eq!(&bytes[bytes.len() - 8..], &[4, 0, 0, 0, 4, 0, 0, 0]);
    }

    #[test]
    fn errors_name_the_file_the_byte_and_the_member() {
        let file = "maps/a.dh-map.dh-lightmap";
        let bytes = baked().write();
        let e = Lightmap::read(file, &bytes[..bytes.len() - 30])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(file), "{e}");
        let mut v = bytes.clone();
        v[4] = 4;
        assert_eq!(
            Lightmap::read(file, &v).unwrap_err(),
            SidecarError::Version {
                file: file.into(),
                found: 4
            }
        );
        // A page size past 8192 (bytes 12..16 are the page width).
        let mut v = bytes.clone();
        v[12..16].copy_from_slice(&9000u32.to_le_bytes());
        let e = Lightmap::read(file, &v).unwrap_err().to_string();
        assert!(e.contains("at byte 12, the page size: 9000x8"), "{e}");
        // A count past what the bytes hold is refused before anything is allocated.
        let mut v = bytes.clone();
        // From the end: the extent table (2 pages × 8), then the one UV set (count 4, key
        // 2 + 36, vertex count 4, three coordinates 24, copy count 4, one copy 4 + 8 + 4 + 8).
        let uv_count_at = bytes.len() - 16 - (4 + 2 + 36 + 4 + 24 + 4 + 4 + 8 + 4 + 8);
        v[uv_count_at..uv_count_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = Lightmap::read(file, &v).unwrap_err().to_string();
        assert!(
            e.contains(&format!("at byte {uv_count_at}, the UV set count")),
            "{e}"
        );
        let e = Lightmap::read(file, b"DHL").unwrap_err().to_string();
        assert!(e.contains("not a lightmap sidecar"), "{e}");
    }

    /// A coordinate off every page is refused, naming the vertex.
    #[test]
    fn a_uv_off_the_atlas_is_refused() {
        let mut lm = baked();
        lm.uv_sets[0].coords[0] = [2.5, 0.5];
        let e = Lightmap::read("f", &lm.write()).unwrap_err().to_string();
        assert!(
            e.contains("UV set 0's vertex 0") && e.contains("(2.5, 0.5)"),
            "{e}"
        );
    }
}
