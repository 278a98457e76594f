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
//!
//! A load-cache entry (magic `DHCOLGEO`, [`encode_geometry`] has its table): the geometry
//! half of one model's cook at load, with no tree, as the spec's cache stores it.
//!
//! Readers copy each packed array whole (`chunks_exact` and `from_le_bytes`, which compile
//! to straight loads) and check it in one branch-free pass, naming the first offender only
//! when there is one.

use super::cook::{BvhNode, CookedMesh, NO_MATERIAL};
use crate::schema::common::Guid;
use glam::DMat4 as Mat4;

/// The format version of every file here (spec: runtime assets, "Cooked collision":
/// `.dh-colcook` format 5). Bumping it renames every cache entry.
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

    /// Mesh `i`'s length-prefixed blob: its offset and bytes, the `u64` length checked
    /// against what remains before anything is taken.
    fn mesh_blob(&mut self, i: usize) -> Result<(usize, &'a [u8]), ColcookError> {
        let at = self.pos;
        let len = self.u64("mesh length")?;
        let Some(len) = usize::try_from(len).ok().filter(|l| *l <= self.remaining()) else {
            return Err(self.err(
                format!("mesh {i} length"),
                at,
                format!(
                    "at most the remaining {} byte(s), found {len}",
                    self.remaining()
                ),
            ));
        };
        let start = self.pos;
        Ok((start, self.take(len, "mesh")?))
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

    fn u8(&mut self, place: &str) -> Result<u8, ColcookError> {
        Ok(u8::from_le_bytes(self.array(place)?))
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
    // Each array is copied whole, then checked in one pass (its first offender named).
    let at = r.pos;
    let vertices = read_vertices(r.take(vertex_count * 12, "vertex")?);
    if let Some(i) = first_non_finite(&vertices) {
        return Err(r.err("vertex", at + i * 12, "a finite number"));
    }
    let at = r.pos;
    let triangles: Vec<[u32; 3]> = r
        .take(triangle_count * 12, "triangle")?
        .chunks_exact(12)
        .map(|c| {
            [
                u32::from_le_bytes(le::<4>(c, 0)),
                u32::from_le_bytes(le::<4>(c, 4)),
                u32::from_le_bytes(le::<4>(c, 8)),
            ]
        })
        .collect();
    if let Some(t) = first_bad_triangle(&triangles, vertex_count) {
        return Err(r.err(
            format!("triangle {t}"),
            at + t * 12,
            format!(
                "three distinct vertex indices below {vertex_count}, found {:?}",
                triangles.get(t).copied().unwrap_or_default()
            ),
        ));
    }
    let at = r.pos;
    let materials: Vec<u16> = r
        .take(triangle_count * 2, "material")?
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes(le::<2>(c, 0)))
        .collect();
    if let Some(t) = first_bad_material(&materials, slot_count) {
        return Err(r.err(
            format!("triangle {t} material"),
            at + t * 2,
            format!(
                "a slot index below {slot_count} or 0xFFFF, found {}",
                materials.get(t).copied().unwrap_or(0)
            ),
        ));
    }
    let nodes_at = r.pos;
    let nodes: Vec<BvhNode> = r
        .take(node_count * NODE_BYTES, "node bounds")?
        .chunks_exact(NODE_BYTES)
        .map(|c| {
            let f = |i: usize| f32::from_le_bytes(le::<4>(c, i * 4));
            BvhNode {
                min: [f(0), f(1), f(2)],
                max: [f(3), f(4), f(5)],
                first: u32::from_le_bytes(le::<4>(c, 24)),
                count: u32::from_le_bytes(le::<4>(c, 28)),
            }
        })
        .collect();
    let finite = nodes.iter().fold(true, |ok, n| {
        ok & n
            .min
            .iter()
            .chain(&n.max)
            .fold(true, |a, c| a & c.is_finite())
    });
    if !finite {
        let i = nodes
            .iter()
            .position(|n| !n.min.iter().chain(&n.max).all(|c| c.is_finite()))
            .unwrap_or(0);
        return Err(r.err("node bounds", nodes_at + i * NODE_BYTES, "a finite number"));
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

/// Positions from packed little-endian `f32` triples.
fn read_vertices(bytes: &[u8]) -> Vec<[f32; 3]> {
    bytes
        .chunks_exact(12)
        .map(|c| {
            [
                f32::from_le_bytes(le::<4>(c, 0)),
                f32::from_le_bytes(le::<4>(c, 4)),
                f32::from_le_bytes(le::<4>(c, 8)),
            ]
        })
        .collect()
}

/// The first vertex with a non-finite coordinate. The common case (none) is one
/// branch-free pass.
fn first_non_finite(vertices: &[[f32; 3]]) -> Option<usize> {
    let finite = vertices.iter().fold(true, |ok, v| {
        ok & v[0].is_finite() & v[1].is_finite() & v[2].is_finite()
    });
    if finite {
        return None;
    }
    vertices
        .iter()
        .position(|v| !v.iter().all(|c| c.is_finite()))
}

/// The first triangle with an index at or past `vertices`, or a repeated corner.
fn first_bad_triangle(triangles: &[[u32; 3]], vertices: usize) -> Option<usize> {
    // Indices are below 2^32 and so is a valid count; a count past it bounds nothing.
    let n = u32::try_from(vertices).unwrap_or(u32::MAX);
    let bad = |t: &[u32; 3]| {
        (t[0] >= n) | (t[1] >= n) | (t[2] >= n) | (t[0] == t[1]) | (t[1] == t[2]) | (t[0] == t[2])
    };
    if !triangles.iter().fold(false, |b, t| b | bad(t)) {
        return None;
    }
    triangles.iter().position(bad)
}

/// The first material that is neither a slot below `slots` nor [`NO_MATERIAL`].
fn first_bad_material(materials: &[u16], slots: usize) -> Option<usize> {
    let bad = |m: &u16| (*m != NO_MATERIAL) & (*m as usize >= slots);
    if !materials.iter().fold(false, |b, m| b | bad(m)) {
        return None;
    }
    materials.iter().position(bad)
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
        let (start, blob) = r.mesh_blob(i)?;
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

// ---- the load cache's geometry entry ---------------------------------------------------------

/// A load-cache entry's magic (`collision/<key>.dhcol`, written when a map is cooked at
/// load; see [`super::cache::load_key`]).
pub const GEOMETRY_MAGIC: [u8; 8] = *b"DHCOLGEO";

/// The longest node path a geometry entry carries, in bytes.
pub const MAX_NODE_PATH: usize = 4096;

/// A row's mesh index meaning "this path draws no mesh": the part stands as nothing.
pub const NO_MESH: u32 = u32::MAX;

/// One node of a geometry entry's model (its provenance): the node's path, its world
/// matrix in the model's own frame, and the cook its triangles went into (`None` when the
/// path names no node that draws a mesh).
#[derive(Debug, Clone, PartialEq)]
pub struct GeometryRow {
    /// The node's path in the model (what a part's `path` names).
    pub path: String,
    /// The node's world matrix in the model's frame (column-major), kept so a warm load can
    /// tell which part-frame transform a placement needs without reading the model.
    pub world: Mat4,
    /// The index of the node's cook in [`GeometryEntry::meshes`].
    pub mesh: Option<u32>,
}

/// One cook of a geometry entry: which of the model's meshes, carried by which part-frame
/// transform, and the welded, culled geometry.
#[derive(Debug, Clone, PartialEq)]
pub struct GeometryMesh {
    /// The model's mesh index the triangles came from.
    pub source: u32,
    /// The part-frame transform the positions were carried by (`None`: the identity).
    pub transform: Option<Mat4>,
    /// The geometry. Its `key` is [`geometry_mesh_key`] of the entry, `source` and
    /// `transform`, and its tree is one leaf over every triangle (the spec's cache stores
    /// geometry only: the physics backend builds its own tree from the triangles).
    pub mesh: CookedMesh,
}

/// A load-cache entry: the geometry half of one model's cook (spec: runtime assets,
/// "Cooked map collision": vertices, the culled index list, per-triangle material indices,
/// slot names and the provenance), keyed by the model's pallet entry.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GeometryEntry {
    /// The key the entry was written under ([`super::cache::load_key`]).
    pub key: [u8; 32],
    /// One row per node path a load asked for.
    pub rows: Vec<GeometryRow>,
    /// The distinct cooks the rows name.
    pub meshes: Vec<GeometryMesh>,
}

/// The `key` of a geometry mesh: SHA-256 over `"dh-colcook load mesh\0"`, the entry's key,
/// the source mesh index (`u32`), a transform flag byte and, when set, the transform's 16
/// `f64` (little-endian).
pub fn geometry_mesh_key(entry: &[u8; 32], source: u32, transform: Option<&Mat4>) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(b"dh-colcook load mesh\0");
    h.update(entry);
    h.update(source.to_le_bytes());
    match transform {
        None => h.update([0]),
        Some(m) => {
            h.update([1]);
            for c in m.to_cols_array() {
                h.update(c.to_le_bytes());
            }
        }
    }
    h.finalize().into()
}

/// The one-leaf tree over every triangle of a mesh whose geometry came from the load
/// cache: the bounds of its vertices, or no node at all when it has no triangle.
pub fn leaf_tree(vertices: &[[f32; 3]], triangles: usize) -> Vec<BvhNode> {
    if triangles == 0 {
        return Vec::new();
    }
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for v in vertices {
        for a in 0..3 {
            min[a] = min[a].min(v[a]);
            max[a] = max[a].max(v[a]);
        }
    }
    if min.iter().chain(&max).any(|c| !c.is_finite()) {
        // No vertex at all under triangles (refused by the decoder); keep bounds valid.
        min = [0.0; 3];
        max = [0.0; 3];
    }
    vec![BvhNode {
        min,
        max,
        first: 0,
        count: triangles as u32,
    }]
}

const GEOMETRY_HEADER: usize = 8 + 4 + 4 + 32 + 8 * 3;
/// A row at least: path length, world, mesh.
const ROW_MIN: usize = 4 + 128 + 4;
/// A mesh record's fixed part.
const GEOMETRY_MESH_FIXED: usize = 4 + 4 + 128 + 8 + 8 + 4 + 1 + 1 + 2;

/// The index width of a mesh of `vertices` vertices: 2 bytes when every index fits a
/// `u16`, else 4.
fn index_width(vertices: usize) -> u8 {
    if vertices <= 1 << 16 {
        2
    } else {
        4
    }
}

/// The material width of a mesh of `slots` slots: 1 byte (`0xFF` for none) below 255
/// slots, else 2 (`0xFFFF`).
fn material_width(slots: usize) -> u8 {
    if slots < 0xFF {
        1
    } else {
        2
    }
}

fn put_mat(out: &mut Vec<u8>, m: &Mat4) {
    for c in m.to_cols_array() {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

/// The bytes of one geometry mesh record (without its length prefix).
fn encode_geometry_mesh(g: &GeometryMesh, out: &mut Vec<u8>) {
    let m = &g.mesh;
    let iw = index_width(m.vertices.len());
    let mw = material_width(m.slots.len());
    out.extend_from_slice(&g.source.to_le_bytes());
    match &g.transform {
        None => {
            out.extend_from_slice(&0u32.to_le_bytes());
            out.extend_from_slice(&[0u8; 128]);
        }
        Some(t) => {
            out.extend_from_slice(&1u32.to_le_bytes());
            put_mat(out, t);
        }
    }
    out.extend_from_slice(&(m.vertices.len() as u64).to_le_bytes());
    out.extend_from_slice(&(m.triangles.len() as u64).to_le_bytes());
    out.extend_from_slice(&(m.slots.len() as u32).to_le_bytes());
    out.extend_from_slice(&[iw, mw, 0, 0]);
    for s in &m.slots {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out.reserve(m.vertices.len() * 12 + m.triangles.len() * (3 * iw as usize + mw as usize));
    for v in &m.vertices {
        for c in v {
            out.extend_from_slice(&c.to_le_bytes());
        }
    }
    for t in &m.triangles {
        for i in t {
            if iw == 2 {
                out.extend_from_slice(&(*i as u16).to_le_bytes());
            } else {
                out.extend_from_slice(&i.to_le_bytes());
            }
        }
    }
    for t in 0..m.triangles.len() {
        let mat = m.materials.get(t).copied().unwrap_or(NO_MATERIAL);
        if mw == 1 {
            out.push(if mat == NO_MATERIAL { 0xFF } else { mat as u8 });
        } else {
            out.extend_from_slice(&mat.to_le_bytes());
        }
    }
}

/// The bytes of a geometry entry:
///
/// | bytes | field |
/// | --- | --- |
/// | 8 | magic `DHCOLGEO` |
/// | 4 | format version ([`FORMAT_VERSION`]) |
/// | 4 | reserved, zero |
/// | 32 | the key the entry was written under |
/// | 8 ×3 | row count, mesh count, the rows' byte length |
/// | per row | `u32` path length (at most [`MAX_NODE_PATH`]), the UTF-8 path, 16 `f64` world matrix, `u32` mesh index (below the mesh count, or [`NO_MESH`]) |
/// | per mesh | `u64` byte length, then a record of exactly that length: |
///
/// | bytes | mesh record field |
/// | --- | --- |
/// | 4 | source mesh index |
/// | 4 | transform flag, 0 or 1 |
/// | 128 | 16 `f64` transform (all zero when the flag is 0) |
/// | 8 ×2 | vertex and triangle counts (each below 2^32) |
/// | 4 | slot count (at most 65535) |
/// | 1 | index width: 2 when the vertex count is at most 65536, else 4 |
/// | 1 | material width: 1 below 255 slots (`0xFF` = none), else 2 (`0xFFFF` = none) |
/// | 2 | reserved, zero |
/// | per slot | `u32` byte length (at most [`MAX_SLOT_NAME`]) and the UTF-8 name |
/// | 12 per vertex | `f32` x, y, z (finite) |
/// | 3 × width per triangle | vertex indices (in range, distinct) |
/// | width per triangle | the slot index (in range, or none) |
///
/// Every array is little-endian and packed, so a reader copies it whole.
pub fn encode_geometry(e: &GeometryEntry) -> Vec<u8> {
    let mut rows = Vec::new();
    for r in &e.rows {
        rows.extend_from_slice(&(r.path.len() as u32).to_le_bytes());
        rows.extend_from_slice(r.path.as_bytes());
        put_mat(&mut rows, &r.world);
        rows.extend_from_slice(&r.mesh.unwrap_or(NO_MESH).to_le_bytes());
    }
    let mut out = Vec::new();
    out.extend_from_slice(&GEOMETRY_MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&e.key);
    out.extend_from_slice(&(e.rows.len() as u64).to_le_bytes());
    out.extend_from_slice(&(e.meshes.len() as u64).to_le_bytes());
    out.extend_from_slice(&(rows.len() as u64).to_le_bytes());
    out.extend_from_slice(&rows);
    let mut blob = Vec::new();
    for g in &e.meshes {
        blob.clear();
        encode_geometry_mesh(g, &mut blob);
        out.extend_from_slice(&(blob.len() as u64).to_le_bytes());
        out.extend_from_slice(&blob);
    }
    out
}

/// The fixed head of a geometry entry, read before its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeometryHead {
    /// The key the entry was written under.
    pub key: [u8; 32],
    /// How many rows follow.
    pub rows: usize,
    /// How many meshes follow the rows.
    pub meshes: usize,
    /// The rows' byte length.
    pub rows_len: usize,
}

/// The byte length of a geometry entry's head.
pub const GEOMETRY_HEAD_BYTES: usize = GEOMETRY_HEADER;

/// Reads a geometry entry's head; `total` is the whole entry's length, which bounds every
/// count (each row and mesh takes at least its fixed bytes).
pub fn decode_geometry_head(
    bytes: &[u8],
    total: u64,
    file: &str,
) -> Result<GeometryHead, ColcookError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        file,
        base: 0,
    };
    r.magic(&GEOMETRY_MAGIC, "a collision cache entry")?;
    let key = r.array::<32>("key")?;
    let left = total.saturating_sub(GEOMETRY_HEADER as u64);
    let mut count = |place: &str, min: u64| -> Result<usize, ColcookError> {
        let at = r.pos;
        let n = r.u64(place)?;
        match n.checked_mul(min).filter(|b| *b <= left) {
            Some(_) => {
                usize::try_from(n).map_err(|_| r.err(place, at, "a count this machine can hold"))
            }
            None => Err(r.err(
                place,
                at,
                format!(
                    "a count the remaining {left} byte(s) can hold ({min} byte(s) each), found {n}"
                ),
            )),
        }
    };
    let rows = count("row count", ROW_MIN as u64)?;
    let meshes = count("mesh count", 8 + GEOMETRY_MESH_FIXED as u64)?;
    let rows_len = count("rows length", 1)?;
    let need = (rows_len as u64).checked_add(meshes as u64 * (8 + GEOMETRY_MESH_FIXED as u64));
    if need.is_none_or(|n| n > left) || rows.checked_mul(ROW_MIN).is_none_or(|n| n > rows_len) {
        return Err(r.err(
            "counts",
            GEOMETRY_HEADER - 24,
            format!("counts the remaining {left} byte(s) can hold together"),
        ));
    }
    Ok(GeometryHead {
        key,
        rows,
        meshes,
        rows_len,
    })
}

/// Reads a geometry entry's rows section (exactly `head.rows_len` bytes) starting at byte
/// `base` of the entry.
pub fn decode_geometry_rows(
    bytes: &[u8],
    head: &GeometryHead,
    base: u64,
    file: &str,
) -> Result<Vec<GeometryRow>, ColcookError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        file,
        base,
    };
    let mut rows = Vec::with_capacity(head.rows);
    for i in 0..head.rows {
        let at = r.pos;
        let len = r.u32("row path length")? as usize;
        if len > MAX_NODE_PATH {
            return Err(r.err(
                format!("row {i} path length"),
                at,
                format!("at most {MAX_NODE_PATH} bytes, found {len}"),
            ));
        }
        let at = r.pos;
        let path = std::str::from_utf8(r.take(len, "row path")?)
            .map_err(|_| r.err(format!("row {i} path"), at, "UTF-8 text"))?
            .to_string();
        let world = read_mat(&mut r, "row world matrix")?;
        let at = r.pos;
        let mesh = r.u32("row mesh")?;
        if mesh != NO_MESH && mesh as usize >= head.meshes {
            return Err(r.err(
                format!("row {i} mesh"),
                at,
                format!(
                    "a mesh index below {} or 0xFFFFFFFF, found {mesh}",
                    head.meshes
                ),
            ));
        }
        rows.push(GeometryRow {
            path,
            world,
            mesh: (mesh != NO_MESH).then_some(mesh),
        });
    }
    if r.remaining() != 0 {
        return Err(r.err(
            "rows",
            r.pos,
            format!("the end of the rows, found {} more byte(s)", r.remaining()),
        ));
    }
    Ok(rows)
}

fn read_mat(r: &mut Reader<'_>, place: &str) -> Result<Mat4, ColcookError> {
    let at = r.pos;
    let b = r.take(128, place)?;
    let mut m = [0f64; 16];
    for (c, d) in m.iter_mut().zip(b.chunks_exact(8)) {
        *c = f64::from_le_bytes(le::<8>(d, 0));
    }
    // A matrix a cook wrote is finite; anything else is a damaged entry (and a NaN would
    // never compare equal to what a part asks for).
    if let Some(i) = m.iter().position(|c| !c.is_finite()) {
        return Err(r.err(place, at + i * 8, "a finite number"));
    }
    Ok(Mat4::from_cols_array(&m))
}

/// `N` bytes of `c` from `at`; zeros past its end (callers pass exact chunks).
#[inline(always)]
fn le<const N: usize>(c: &[u8], at: usize) -> [u8; N] {
    let mut a = [0u8; N];
    if let Some(s) = c.get(at..at + N) {
        a.copy_from_slice(s);
    }
    a
}

/// Reads one geometry mesh record (exactly `bytes`, starting at byte `base` of the entry)
/// of the entry keyed `entry_key`. The arrays are copied whole and checked in one pass
/// each: finite vertices, indices in range and distinct, materials in range.
pub fn decode_geometry_mesh(
    bytes: &[u8],
    entry_key: &[u8; 32],
    base: u64,
    file: &str,
) -> Result<GeometryMesh, ColcookError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        file,
        base,
    };
    let source = r.u32("mesh source")?;
    let at = r.pos;
    let flag = r.u32("mesh transform flag")?;
    let t_at = r.pos;
    let t = read_mat(&mut r, "mesh transform")?;
    let transform = match flag {
        0 if t.to_cols_array().iter().all(|c| c.to_bits() == 0) => None,
        0 => return Err(r.err("mesh transform", t_at, "all zero when the flag is 0")),
        1 => Some(t),
        _ => return Err(r.err("mesh transform flag", at, format!("0 or 1, found {flag}"))),
    };
    let at = r.pos;
    let vertex_count = r.u64("vertex count")?;
    let triangle_count = r.u64("triangle count")?;
    let slot_count = r.u32("slot count")? as usize;
    let iw = r.u8("index width")?;
    let mw = r.u8("material width")?;
    let rat = r.pos;
    if r.u16("reserved")? != 0 {
        return Err(r.err("reserved", rat, "zero"));
    }
    let (Ok(vertex_count), Ok(triangle_count)) =
        (u32::try_from(vertex_count), u32::try_from(triangle_count))
    else {
        return Err(r.err("counts", at, "at most 2^32 - 1 vertices and triangles"));
    };
    let (vertex_count, triangle_count) = (vertex_count as usize, triangle_count as usize);
    if slot_count > NO_MATERIAL as usize {
        return Err(r.err(
            "slot count",
            at + 16,
            format!("at most {} slots, found {slot_count}", NO_MATERIAL),
        ));
    }
    if iw != index_width(vertex_count) || mw != material_width(slot_count) {
        return Err(r.err(
            "widths",
            at + 20,
            format!(
                "index width {} and material width {}, found {iw} and {mw}",
                index_width(vertex_count),
                material_width(slot_count)
            ),
        ));
    }
    let (iw, mw) = (iw as usize, mw as usize);
    // Bound everything against the bytes that remain before allocating.
    let arrays = (vertex_count as u64) * 12 + (triangle_count as u64) * (3 * iw + mw) as u64;
    if arrays + slot_count as u64 * 4 > r.remaining() as u64 {
        return Err(r.err(
            "counts",
            at,
            format!(
                "counts the remaining {} byte(s) can hold together",
                r.remaining()
            ),
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
        let s = std::str::from_utf8(r.take(len, "slot name")?)
            .map_err(|_| r.err(format!("slot {i} name"), at, "UTF-8 text"))?;
        slots.push(s.to_string());
    }
    let at = r.pos;
    let vertices = read_vertices(r.take(vertex_count * 12, "vertices")?);
    if let Some(i) = first_non_finite(&vertices) {
        return Err(r.err(format!("vertex {i}"), at + i * 12, "finite numbers"));
    }
    let at = r.pos;
    let tbytes = r.take(triangle_count * 3 * iw, "triangles")?;
    let triangles: Vec<[u32; 3]> = if iw == 2 {
        tbytes
            .chunks_exact(6)
            .map(|c| {
                [
                    u32::from(u16::from_le_bytes(le::<2>(c, 0))),
                    u32::from(u16::from_le_bytes(le::<2>(c, 2))),
                    u32::from(u16::from_le_bytes(le::<2>(c, 4))),
                ]
            })
            .collect()
    } else {
        tbytes
            .chunks_exact(12)
            .map(|c| {
                [
                    u32::from_le_bytes(le::<4>(c, 0)),
                    u32::from_le_bytes(le::<4>(c, 4)),
                    u32::from_le_bytes(le::<4>(c, 8)),
                ]
            })
            .collect()
    };
    if let Some(i) = first_bad_triangle(&triangles, vertex_count) {
        return Err(r.err(
            format!("triangle {i}"),
            at + i * 3 * iw,
            format!(
                "three distinct vertex indices below {vertex_count}, found {:?}",
                triangles.get(i).copied().unwrap_or_default()
            ),
        ));
    }
    let at = r.pos;
    let mbytes = r.take(triangle_count * mw, "materials")?;
    let materials: Vec<u16> = if mw == 1 {
        mbytes
            .iter()
            .map(|&m| if m == 0xFF { NO_MATERIAL } else { u16::from(m) })
            .collect()
    } else {
        mbytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes(le::<2>(c, 0)))
            .collect()
    };
    if let Some(i) = first_bad_material(&materials, slot_count) {
        return Err(r.err(
            format!("triangle {i} material"),
            at + i * mw,
            format!("a slot index below {slot_count} or none"),
        ));
    }
    if r.remaining() != 0 {
        return Err(r.err(
            "end",
            r.pos,
            format!("the end of the mesh, found {} more byte(s)", r.remaining()),
        ));
    }
    let nodes = leaf_tree(&vertices, triangles.len());
    Ok(GeometryMesh {
        source,
        mesh: CookedMesh {
            key: geometry_mesh_key(entry_key, source, transform.as_ref()),
            vertices,
            triangles,
            materials,
            slots,
            nodes,
        },
        transform,
    })
}

/// Reads a whole geometry entry from memory, refusing anything but exactly one well-formed
/// entry. `file` names the bytes in errors.
pub fn decode_geometry(bytes: &[u8], file: &str) -> Result<GeometryEntry, ColcookError> {
    let head = decode_geometry_head(bytes, bytes.len() as u64, file)?;
    let mut r = Reader {
        bytes,
        pos: GEOMETRY_HEADER,
        file,
        base: 0,
    };
    let rows_at = r.pos;
    let rows_bytes = r.take(head.rows_len, "rows")?;
    let rows = decode_geometry_rows(rows_bytes, &head, rows_at as u64, file)?;
    let mut meshes = Vec::with_capacity(head.meshes);
    for i in 0..head.meshes {
        let (start, blob) = r.mesh_blob(i)?;
        meshes.push(decode_geometry_mesh(blob, &head.key, start as u64, file)?);
    }
    if r.remaining() != 0 {
        return Err(r.err(
            "end",
            r.pos,
            format!("the end of the entry, found {} more byte(s)", r.remaining()),
        ));
    }
    Ok(GeometryEntry {
        key: head.key,
        rows,
        meshes,
    })
}
