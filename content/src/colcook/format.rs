//! The bytes of a cooked mesh (`.dhcol`, one cache entry, and each blob of a companion)
//! and of a map's `.dh-colcook` companion. Little-endian throughout; every count is a
//! 64-bit length checked against the bytes that remain before anything is allocated, and
//! a file that is truncated, padded, or structurally inconsistent is refused, never read.
//!
//! A cooked mesh (magic `DHCOLMSH`):
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `DHCOLMSH` |
//! | 4 | format version ([`FORMAT_VERSION`]) |
//! | 4 | reserved, zero |
//! | 32 | the cache key the mesh was cooked under |
//! | 8 ×4 | vertex, triangle, slot and BVH node counts |
//! | per slot | a `u32` byte length (at most [`MAX_SLOT_NAME`]) and the UTF-8 name |
//! | 12 per vertex | `f32` x, y, z (finite) |
//! | 12 per triangle | three `u32` vertex indices (in range, distinct) |
//! | 2 per triangle | the triangle's slot index, `0xFFFF` for none |
//! | 32 per node | `f32` min x, y, z, max x, y, z, `u32` first, `u32` count |
//!
//! A node with `count == 0` is interior: its children are `first` and `first + 1`, both
//! after it. A leaf names triangles `first .. first + count`; the leaves name every
//! triangle exactly once, and every node but the root is some node's child exactly once.
//!
//! A companion (magic `DHCOLCOK`): magic, version, reserved `u32`, a 32-byte key over its
//! content, entry and mesh counts (`u64` each), then the entries (a part's 16-byte
//! `objectId`, `u32` shape index, `u32` mesh index, in range), then each mesh as a `u64`
//! byte length and a cooked mesh of exactly that length.

use super::cook::{BvhNode, CookedMesh, NO_MATERIAL};
use crate::schema::common::Guid;

/// The format version of both files (spec: runtime assets, "Cooked collision": `.dh-colcook`
/// format 5). Bumping it renames every cache entry.
pub const FORMAT_VERSION: u32 = 5;

/// A cooked mesh's magic.
pub const MESH_MAGIC: [u8; 8] = *b"DHCOLMSH";

/// A companion's magic.
pub const COMPANION_MAGIC: [u8; 8] = *b"DHCOLCOK";

/// The longest slot name a cooked mesh carries, in bytes.
pub const MAX_SLOT_NAME: usize = 4096;

/// Why cooked-collision bytes were refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}: {place} at byte {offset}: expected {expected}")]
pub struct ColcookError {
    /// The file (or blob) being read.
    pub file: String,
    /// Which field.
    pub place: String,
    /// The byte offset the field starts at.
    pub offset: u64,
    /// What a valid file holds there.
    pub expected: String,
}

/// One mesh shape's entry in a companion: the part (by scene id), which of its collider's
/// shapes, and the mesh that shape stands as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CookEntry {
    /// The part's `objectId`.
    pub object_id: Guid,
    /// The shape's index in the part's `dh.collider` shapes.
    pub shape: u32,
    /// The index of its mesh in [`Colcook::meshes`].
    pub mesh: u32,
}

/// A map's cooked collision: one mesh per distinct triangle set, and the entries that
/// attach them to parts' mesh shapes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Colcook {
    /// A key over the content (every mesh's key and every entry), to tell two cooks apart.
    pub key: [u8; 32],
    /// The entries, in part order, then shape order.
    pub entries: Vec<CookEntry>,
    /// The distinct meshes.
    pub meshes: Vec<CookedMesh>,
}

const MESH_HEADER: usize = 8 + 4 + 4 + 32 + 8 * 4;
const COMPANION_HEADER: usize = 8 + 4 + 4 + 32 + 8 * 2;
const ENTRY_BYTES: usize = 16 + 4 + 4;
const NODE_BYTES: usize = 32;

/// The bytes of a cooked mesh.
pub fn encode_mesh(m: &CookedMesh) -> Vec<u8> {
    let slot_bytes: usize = m.slots.iter().map(|s| 4 + s.len()).sum();
    let mut out = Vec::with_capacity(
        MESH_HEADER
            + slot_bytes
            + m.vertices.len() * 12
            + m.triangles.len() * 14
            + m.nodes.len() * NODE_BYTES,
    );
    out.extend_from_slice(&MESH_MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&m.key);
    for n in [
        m.vertices.len(),
        m.triangles.len(),
        m.slots.len(),
        m.nodes.len(),
    ] {
        out.extend_from_slice(&(n as u64).to_le_bytes());
    }
    for s in &m.slots {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    for v in &m.vertices {
        for c in v {
            out.extend_from_slice(&c.to_le_bytes());
        }
    }
    for t in &m.triangles {
        for i in t {
            out.extend_from_slice(&i.to_le_bytes());
        }
    }
    for (i, _) in m.triangles.iter().enumerate() {
        let mat = m.materials.get(i).copied().unwrap_or(NO_MATERIAL);
        out.extend_from_slice(&mat.to_le_bytes());
    }
    for n in &m.nodes {
        for c in n.min.iter().chain(&n.max) {
            out.extend_from_slice(&c.to_le_bytes());
        }
        out.extend_from_slice(&n.first.to_le_bytes());
        out.extend_from_slice(&n.count.to_le_bytes());
    }
    out
}

/// The bytes of a companion.
pub fn encode_companion(c: &Colcook) -> Vec<u8> {
    let blobs: Vec<Vec<u8>> = c.meshes.iter().map(encode_mesh).collect();
    let mut out = Vec::with_capacity(
        COMPANION_HEADER
            + c.entries.len() * ENTRY_BYTES
            + blobs.iter().map(|b| 8 + b.len()).sum::<usize>(),
    );
    out.extend_from_slice(&COMPANION_MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&c.key);
    out.extend_from_slice(&(c.entries.len() as u64).to_le_bytes());
    out.extend_from_slice(&(c.meshes.len() as u64).to_le_bytes());
    for e in &c.entries {
        out.extend_from_slice(&e.object_id.0);
        out.extend_from_slice(&e.shape.to_le_bytes());
        out.extend_from_slice(&e.mesh.to_le_bytes());
    }
    for b in &blobs {
        out.extend_from_slice(&(b.len() as u64).to_le_bytes());
        out.extend_from_slice(b);
    }
    out
}

/// A bounded cursor over untrusted bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    file: &'a str,
    /// Added to every offset reported (a blob inside a companion).
    base: u64,
}

impl<'a> Reader<'a> {
    fn err(
        &self,
        place: impl Into<String>,
        at: usize,
        expected: impl Into<String>,
    ) -> ColcookError {
        ColcookError {
            file: self.file.to_string(),
            place: place.into(),
            offset: self.base + at as u64,
            expected: expected.into(),
        }
    }

    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    fn take(&mut self, n: usize, place: &str) -> Result<&'a [u8], ColcookError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or_else(|| {
                self.err(
                    place,
                    self.pos,
                    format!("{n} more byte(s), but the file ends"),
                )
            })?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, place: &str) -> Result<[u8; N], ColcookError> {
        let s = self.take(N, place)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    fn u16(&mut self, place: &str) -> Result<u16, ColcookError> {
        Ok(u16::from_le_bytes(self.array(place)?))
    }

    fn u32(&mut self, place: &str) -> Result<u32, ColcookError> {
        Ok(u32::from_le_bytes(self.array(place)?))
    }

    fn u64(&mut self, place: &str) -> Result<u64, ColcookError> {
        Ok(u64::from_le_bytes(self.array(place)?))
    }

    fn f32(&mut self, place: &str) -> Result<f32, ColcookError> {
        let at = self.pos;
        let v = f32::from_le_bytes(self.array(place)?);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(self.err(place, at, "a finite number"))
        }
    }

    /// A 64-bit count of items at least `min_bytes` each: refused when the bytes that
    /// remain could not hold that many, so no allocation outgrows the input.
    fn count(&mut self, place: &str, min_bytes: usize) -> Result<usize, ColcookError> {
        let at = self.pos;
        let n = self.u64(place)?;
        let fits = usize::try_from(n)
            .ok()
            .filter(|n| n.checked_mul(min_bytes.max(1)).is_some());
        match fits {
            Some(n) if n * min_bytes.max(1) <= self.remaining() => Ok(n),
            _ => Err(self.err(
                place,
                at,
                format!(
                    "a count the remaining {} byte(s) can hold ({min_bytes} byte(s) each), found {n}",
                    self.remaining()
                ),
            )),
        }
    }

    fn magic(&mut self, want: &[u8; 8], what: &str) -> Result<(), ColcookError> {
        let got = self.array::<8>("magic")?;
        if &got != want {
            return Err(self.err(
                "magic",
                self.pos - 8,
                format!(
                    "'{}' ({what})",
                    String::from_utf8_lossy(want).trim_end_matches('\0')
                ),
            ));
        }
        let at = self.pos;
        let v = self.u32("version")?;
        if v != FORMAT_VERSION {
            return Err(self.err(
                "version",
                at,
                format!("format version {FORMAT_VERSION}, found {v}"),
            ));
        }
        let at = self.pos;
        if self.u32("reserved")? != 0 {
            return Err(self.err("reserved", at, "zero"));
        }
        Ok(())
    }
}

/// Reads a cooked mesh, refusing anything but exactly one well-formed mesh (see the
/// module's table). `file` names the bytes in errors.
pub fn decode_mesh(bytes: &[u8], file: &str) -> Result<CookedMesh, ColcookError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        file,
        base: 0,
    };
    read_mesh(&mut r)
}

fn read_mesh(r: &mut Reader<'_>) -> Result<CookedMesh, ColcookError> {
    r.magic(&MESH_MAGIC, "a cooked collision mesh")?;
    let key = r.array::<32>("key")?;
    // Each count is bounded by the bytes one item takes at least.
    let vertex_count = r.count("vertex count", 12)?;
    let triangle_count = r.count("triangle count", 14)?;
    let slot_count = r.count("slot count", 4)?;
    let node_count = r.count("node count", NODE_BYTES)?;
    let total = vertex_count
        .checked_mul(12)
        .and_then(|v| v.checked_add(triangle_count.checked_mul(14)?))
        .and_then(|v| v.checked_add(slot_count.checked_mul(4)?))
        .and_then(|v| v.checked_add(node_count.checked_mul(NODE_BYTES)?));
    if total.is_none_or(|t| t > r.remaining()) {
        return Err(r.err(
            "counts",
            16 + 32,
            format!(
                "counts the remaining {} byte(s) can hold together",
                r.remaining()
            ),
        ));
    }
    if u32::try_from(vertex_count).is_err() || u32::try_from(triangle_count).is_err() {
        return Err(r.err("counts", 16 + 32, "at most 2^32 vertices and triangles"));
    }
    if slot_count > NO_MATERIAL as usize {
        return Err(r.err(
            "slot count",
            16 + 32 + 16,
            format!("at most {} slots, found {slot_count}", NO_MATERIAL),
        ));
    }
    let mut slots = Vec::with_capacity(slot_count);
    for i in 0..slot_count {
        let at = r.pos;
        let len = r.u32("slot name length")? as usize;
        if len > MAX_SLOT_NAME {
            return Err(r.err(
                format!("slot {i} name length"),
                at,
                format!("at most {MAX_SLOT_NAME} bytes, found {len}"),
            ));
        }
        let at = r.pos;
        let s = r.take(len, "slot name")?;
        let s = std::str::from_utf8(s)
            .map_err(|_| r.err(format!("slot {i} name"), at, "UTF-8 text"))?;
        slots.push(s.to_string());
    }
    let mut vertices = Vec::with_capacity(vertex_count);
    for _ in 0..vertex_count {
        vertices.push([r.f32("vertex")?, r.f32("vertex")?, r.f32("vertex")?]);
    }
    let mut triangles = Vec::with_capacity(triangle_count);
    for t in 0..triangle_count {
        let at = r.pos;
        let tri = [r.u32("triangle")?, r.u32("triangle")?, r.u32("triangle")?];
        if tri.iter().any(|i| *i as usize >= vertex_count)
            || tri[0] == tri[1]
            || tri[1] == tri[2]
            || tri[0] == tri[2]
        {
            return Err(r.err(
                format!("triangle {t}"),
                at,
                format!("three distinct vertex indices below {vertex_count}, found {tri:?}"),
            ));
        }
        triangles.push(tri);
    }
    let mut materials = Vec::with_capacity(triangle_count);
    for t in 0..triangle_count {
        let at = r.pos;
        let m = r.u16("material")?;
        if m != NO_MATERIAL && m as usize >= slot_count {
            return Err(r.err(
                format!("triangle {t} material"),
                at,
                format!("a slot index below {slot_count} or 0xFFFF, found {m}"),
            ));
        }
        materials.push(m);
    }
    let nodes_at = r.pos;
    let mut nodes = Vec::with_capacity(node_count);
    for _ in 0..node_count {
        let mut v = [0f32; 6];
        for c in &mut v {
            *c = r.f32("node bounds")?;
        }
        let first = r.u32("node")?;
        let count = r.u32("node")?;
        nodes.push(BvhNode {
            min: [v[0], v[1], v[2]],
            max: [v[3], v[4], v[5]],
            first,
            count,
        });
    }
    if r.remaining() != 0 {
        return Err(r.err(
            "end",
            r.pos,
            format!("the end of the mesh, found {} more byte(s)", r.remaining()),
        ));
    }
    check_bvh(&nodes, triangle_count)
        .map_err(|(i, what)| r.err(format!("BVH node {i}"), nodes_at + i * NODE_BYTES, what))?;
    Ok(CookedMesh {
        key,
        vertices,
        triangles,
        materials,
        slots,
        nodes,
    })
}

/// The BVH's structure: children after their parent and in range, each node but the root
/// a child once, every node reached from the root, leaves covering every triangle once,
/// and no nodes at all exactly when there are no triangles.
fn check_bvh(nodes: &[BvhNode], triangles: usize) -> Result<(), (usize, String)> {
    if nodes.is_empty() {
        return if triangles == 0 {
            Ok(())
        } else {
            Err((0, format!("a root over the {triangles} triangle(s)")))
        };
    }
    let mut parented = vec![false; nodes.len()];
    let mut covered = vec![false; triangles];
    for (i, n) in nodes.iter().enumerate() {
        if n.min.iter().zip(&n.max).any(|(a, b)| a > b) {
            return Err((i, "bounds whose min is not above their max".into()));
        }
        if n.is_leaf() {
            let end = (n.first as usize).checked_add(n.count as usize);
            let Some(end) = end.filter(|e| *e <= triangles) else {
                return Err((
                    i,
                    format!(
                        "a leaf within the {triangles} triangle(s), found {} + {}",
                        n.first, n.count
                    ),
                ));
            };
            for c in &mut covered[n.first as usize..end] {
                if *c {
                    return Err((i, "a leaf naming triangles no other leaf names".into()));
                }
                *c = true;
            }
        } else {
            let a = n.first as usize;
            if a <= i || a.checked_add(1).is_none_or(|b| b >= nodes.len()) {
                return Err((
                    i,
                    format!("two children after it and below {}, found {a}", nodes.len()),
                ));
            }
            for c in [a, a + 1] {
                if parented[c] {
                    return Err((i, format!("node {c} as no other node's child")));
                }
                parented[c] = true;
            }
        }
    }
    if let Some(i) = parented.iter().skip(1).position(|p| !p) {
        return Err((i + 1, "a node some interior node names as a child".into()));
    }
    if parented.first() == Some(&true) {
        return Err((0, "a root no node names as a child".into()));
    }
    if let Some(t) = covered.iter().position(|c| !c) {
        return Err((
            0,
            format!("leaves covering every triangle, triangle {t} in none"),
        ));
    }
    Ok(())
}

/// Reads a companion, refusing anything but exactly one well-formed companion. `file`
/// names the bytes in errors.
pub fn decode_companion(bytes: &[u8], file: &str) -> Result<Colcook, ColcookError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        file,
        base: 0,
    };
    r.magic(&COMPANION_MAGIC, "a cooked collision companion")?;
    let key = r.array::<32>("key")?;
    let entry_count = r.count("entry count", ENTRY_BYTES)?;
    let mesh_count = r.count("mesh count", 8 + MESH_HEADER)?;
    let mut entries = Vec::with_capacity(entry_count);
    for i in 0..entry_count {
        let at = r.pos;
        let object_id = Guid(r.array::<16>("entry object id")?);
        let shape = r.u32("entry shape")?;
        let mesh = r.u32("entry mesh")?;
        if mesh as usize >= mesh_count {
            return Err(r.err(
                format!("entry {i}"),
                at,
                format!("a mesh index below {mesh_count}, found {mesh}"),
            ));
        }
        entries.push(CookEntry {
            object_id,
            shape,
            mesh,
        });
    }
    let mut meshes = Vec::with_capacity(mesh_count);
    for i in 0..mesh_count {
        let at = r.pos;
        let len = r.u64("mesh length")?;
        let Some(len) = usize::try_from(len).ok().filter(|l| *l <= r.remaining()) else {
            return Err(r.err(
                format!("mesh {i} length"),
                at,
                format!(
                    "at most the remaining {} byte(s), found {len}",
                    r.remaining()
                ),
            ));
        };
        let start = r.pos;
        let blob = r.take(len, "mesh")?;
        let mut inner = Reader {
            bytes: blob,
            pos: 0,
            file,
            base: start as u64,
        };
        meshes.push(read_mesh(&mut inner)?);
    }
    if r.remaining() != 0 {
        return Err(r.err(
            "end",
            r.pos,
            format!(
                "the end of the companion, found {} more byte(s)",
                r.remaining()
            ),
        ));
    }
    Ok(Colcook {
        key,
        entries,
        meshes,
    })
}
