//! The mesh cook: a part's triangles extracted in the part's own frame, welded, culled of
//! degenerate triangles and ordered under a flat bounding volume hierarchy.

use std::collections::HashMap;

use crate::gltf::Mesh;
use glam::{DMat4 as Mat4, DVec3};

/// A triangle's material index meaning "no material" (a primitive with none, or a slot the
/// map's table does not name: it stands on the world default).
pub const NO_MATERIAL: u16 = u16::MAX;

/// The most material slots one cooked mesh can name (indices are `u16`, one value reserved).
pub const MAX_SLOTS: usize = NO_MATERIAL as usize;

/// The most triangles a BVH leaf holds when the surface-area heuristic does not split it.
pub const MAX_LEAF_TRIANGLES: u32 = 4;

/// A triangle at most this large (twice its area, in square meters of the part's frame) is
/// degenerate and dropped: it has no face to stand on.
pub const DEGENERATE_TWICE_AREA: f64 = 1e-12;

/// Whether a material slot name reads as a sky: it contains `sky`, case-insensitively
/// (spec: dh.map, "Automatic collision": the skybox is never made solid).
pub fn is_sky_material(name: &str) -> bool {
    name.to_lowercase().contains("sky")
}

/// Triangles as extracted from a mesh, before welding.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Soup {
    /// Positions in the part's frame, one per source vertex of each primitive.
    pub positions: Vec<[f32; 3]>,
    /// Triangles over `positions`.
    pub triangles: Vec<[u32; 3]>,
    /// Each triangle's slot index into `slots`, or [`NO_MATERIAL`].
    pub materials: Vec<u16>,
    /// The material slot names, in order of first use.
    pub slots: Vec<String>,
}

/// Extracts `mesh`'s triangles into the part's frame: every primitive whose material does
/// not read as a sky ([`is_sky_material`]), its positions carried by `transform` when one
/// is given (the part frame's inverse times the node's world matrix; `None` when that is
/// the identity, so the positions stay bit-exact). An index past a primitive's vertices is
/// skipped with its triangle.
pub fn extract(mesh: &Mesh, transform: Option<&Mat4>) -> Soup {
    let mut soup = Soup::default();
    let verts: usize = mesh.primitives.iter().map(|p| p.vertices.len()).sum();
    let tris: usize = mesh.primitives.iter().map(|p| p.indices.len() / 3).sum();
    soup.positions.reserve(verts);
    soup.triangles.reserve(tris);
    soup.materials.reserve(tris);
    for p in &mesh.primitives {
        if p.material.as_deref().is_some_and(is_sky_material) {
            continue;
        }
        let slot = match &p.material {
            None => NO_MATERIAL,
            Some(name) => match soup.slots.iter().position(|s| s == name) {
                Some(i) => i as u16,
                None if soup.slots.len() < MAX_SLOTS => {
                    soup.slots.push(name.clone());
                    (soup.slots.len() - 1) as u16
                }
                None => NO_MATERIAL,
            },
        };
        let Ok(base) = u32::try_from(soup.positions.len()) else {
            break;
        };
        let count = p.vertices.len();
        if u32::try_from(count).is_err() || base.checked_add(count as u32).is_none() {
            break;
        }
        match transform {
            None => soup.positions.extend(p.vertices.iter().map(|v| v.position)),
            Some(m) => soup.positions.extend(p.vertices.iter().map(|v| {
                let q = m.transform_point3(DVec3::from_array(v.position.map(f64::from)));
                q.to_array().map(|c| c as f32)
            })),
        }
        for t in p.indices.chunks_exact(3) {
            if t.iter().all(|i| (*i as usize) < count) {
                soup.triangles.push([base + t[0], base + t[1], base + t[2]]);
                soup.materials.push(slot);
            }
        }
    }
    soup
}

/// One node of a flat BVH: its bounds and either two children or a run of triangles.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BvhNode {
    /// The low corner of everything under the node.
    pub min: [f32; 3],
    /// The high corner.
    pub max: [f32; 3],
    /// For an interior node the index of its first child (the second follows it); for a
    /// leaf the first of its triangles.
    pub first: u32,
    /// How many triangles the leaf holds; `0` marks an interior node.
    pub count: u32,
}

impl BvhNode {
    /// Whether the node is a leaf.
    pub fn is_leaf(&self) -> bool {
        self.count > 0
    }
}

/// A cooked collision mesh: welded vertices, the culled triangles in BVH order, each
/// triangle's material, the slot names and the BVH over them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CookedMesh {
    /// The cache key the mesh was cooked under ([`super::cache::mesh_key`]).
    pub key: [u8; 32],
    /// Welded vertex positions, in the part's frame.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles over `vertices`, in the order the BVH's leaves name them.
    pub triangles: Vec<[u32; 3]>,
    /// Each triangle's index into `slots`, or [`NO_MATERIAL`].
    pub materials: Vec<u16>,
    /// Material slot names.
    pub slots: Vec<String>,
    /// The BVH, root first; empty when there are no triangles.
    pub nodes: Vec<BvhNode>,
}

/// What the weld did, for benchmarks and reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WeldStats {
    /// Vertices before welding.
    pub vertices_in: usize,
    /// Triangles before culling.
    pub triangles_in: usize,
    /// Triangles dropped as degenerate (a repeated corner after welding, or no area).
    pub degenerate: usize,
}

/// A fast hasher for weld keys (three `u32`s of position bits): multiply-rotate mixing.
/// Not collision-resistant; the keys come from geometry, and a collision only costs a
/// probe.
#[derive(Default, Clone, Copy)]
struct WeldHasher(u64);

impl std::hash::Hasher for WeldHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(4);
        for c in &mut chunks {
            self.write_u32(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        }
        for b in chunks.remainder() {
            self.write_u32(u32::from(*b));
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u32(i as u32);
    }
}

type WeldMap = HashMap<[u32; 3], u32, std::hash::BuildHasherDefault<WeldHasher>>;

/// The bits a position welds by: exact coordinates, with `-0.0` read as `0.0`.
fn weld_bits(p: [f32; 3]) -> [u32; 3] {
    p.map(|c| if c == 0.0 { 0 } else { c.to_bits() })
}

/// Twice the area of a triangle.
pub fn twice_area(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> f64 {
    let a = a.map(f64::from);
    let e1 = [
        f64::from(b[0]) - a[0],
        f64::from(b[1]) - a[1],
        f64::from(b[2]) - a[2],
    ];
    let e2 = [
        f64::from(c[0]) - a[0],
        f64::from(c[1]) - a[1],
        f64::from(c[2]) - a[2],
    ];
    let x = e1[1] * e2[2] - e1[2] * e2[1];
    let y = e1[2] * e2[0] - e1[0] * e2[2];
    let z = e1[0] * e2[1] - e1[1] * e2[0];
    (x * x + y * y + z * z).sqrt()
}

/// Welds `soup`'s vertices (exactly equal positions become one; a non-finite position
/// drops every triangle touching it), drops degenerate triangles, and keeps only the
/// vertices a surviving triangle uses, numbered in order of first use.
pub fn weld(soup: &Soup) -> Welded {
    let mut first: WeldMap =
        WeldMap::with_capacity_and_hasher(soup.positions.len(), Default::default());
    // The welded id of each soup vertex; u32::MAX for a non-finite one.
    let mut canon: Vec<u32> = Vec::with_capacity(soup.positions.len());
    let mut welded: Vec<[f32; 3]> = Vec::new();
    for p in &soup.positions {
        if !p.iter().all(|c| c.is_finite()) {
            canon.push(u32::MAX);
            continue;
        }
        let next = welded.len() as u32;
        let id = *first.entry(weld_bits(*p)).or_insert(next);
        if id == next {
            welded.push(*p);
        }
        canon.push(id);
    }
    let mut stats = WeldStats {
        vertices_in: soup.positions.len(),
        triangles_in: soup.triangles.len(),
        degenerate: 0,
    };
    let mut used = vec![u32::MAX; welded.len()];
    let mut vertices = Vec::new();
    let mut triangles = Vec::with_capacity(soup.triangles.len());
    let mut materials = Vec::with_capacity(soup.triangles.len());
    for (t, m) in soup.triangles.iter().zip(&soup.materials) {
        let c = t.map(|i| canon.get(i as usize).copied().unwrap_or(u32::MAX));
        if c.contains(&u32::MAX) || c[0] == c[1] || c[1] == c[2] || c[0] == c[2] {
            stats.degenerate += 1;
            continue;
        }
        let [a, b, d] = c.map(|i| welded[i as usize]);
        if twice_area(a, b, d) <= DEGENERATE_TWICE_AREA {
            stats.degenerate += 1;
            continue;
        }
        let out = c.map(|i| {
            let slot = &mut used[i as usize];
            if *slot == u32::MAX {
                *slot = vertices.len() as u32;
                vertices.push(welded[i as usize]);
            }
            *slot
        });
        triangles.push(out);
        materials.push(*m);
    }
    Welded {
        vertices,
        triangles,
        materials,
        stats,
    }
}

/// A welded, culled triangle set ([`weld`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Welded {
    /// The distinct positions a surviving triangle uses, in order of first use.
    pub vertices: Vec<[f32; 3]>,
    /// The surviving triangles.
    pub triangles: Vec<[u32; 3]>,
    /// Each surviving triangle's slot index, or [`NO_MATERIAL`].
    pub materials: Vec<u16>,
    /// What was welded and dropped.
    pub stats: WeldStats,
}

/// Bins the surface-area heuristic sorts centroids into.
const BINS: usize = 12;

#[derive(Clone, Copy)]
struct Bounds {
    min: [f32; 3],
    max: [f32; 3],
}

impl Bounds {
    const EMPTY: Bounds = Bounds {
        min: [f32::INFINITY; 3],
        max: [f32::NEG_INFINITY; 3],
    };
    fn grow(&mut self, p: [f32; 3]) {
        for (a, c) in p.iter().enumerate() {
            self.min[a] = self.min[a].min(*c);
            self.max[a] = self.max[a].max(*c);
        }
    }
    fn join(&mut self, o: &Bounds) {
        for a in 0..3 {
            self.min[a] = self.min[a].min(o.min[a]);
            self.max[a] = self.max[a].max(o.max[a]);
        }
    }
    fn half_area(&self) -> f32 {
        let d = [0, 1, 2].map(|a| (self.max[a] - self.min[a]).max(0.0));
        d[0] * d[1] + d[1] * d[2] + d[2] * d[0]
    }
}

/// Builds the BVH over `triangles` (binned SAH, one axis per node: the centroids' longest),
/// and returns the nodes with the triangles and their materials reordered to the leaves'
/// order.
pub fn build_bvh(
    vertices: &[[f32; 3]],
    triangles: Vec<[u32; 3]>,
    materials: Vec<u16>,
) -> (Vec<BvhNode>, Vec<[u32; 3]>, Vec<u16>) {
    let n = triangles.len();
    if n == 0 {
        return (Vec::new(), triangles, materials);
    }
    let corner = |i: u32| vertices.get(i as usize).copied().unwrap_or([0.0; 3]);
    let mut boxes = Vec::with_capacity(n);
    let mut centroids = Vec::with_capacity(n);
    for t in &triangles {
        let mut b = Bounds::EMPTY;
        for i in t {
            b.grow(corner(*i));
        }
        centroids.push([0, 1, 2].map(|a| 0.5 * (b.min[a] + b.max[a])));
        boxes.push(b);
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut nodes = vec![BvhNode::default()];
    let mut stack: Vec<(usize, usize, usize)> = vec![(0, 0, n)];
    while let Some((ni, s, e)) = stack.pop() {
        let mut bounds = Bounds::EMPTY;
        let mut cb = Bounds::EMPTY;
        for &t in &order[s..e] {
            bounds.join(&boxes[t as usize]);
            cb.grow(centroids[t as usize]);
        }
        let count = e - s;
        let leaf = BvhNode {
            min: bounds.min,
            max: bounds.max,
            first: s as u32,
            count: count as u32,
        };
        if count as u32 <= MAX_LEAF_TRIANGLES {
            nodes[ni] = leaf;
            continue;
        }
        let ext = [0, 1, 2].map(|a| cb.max[a] - cb.min[a]);
        let axis = if ext[0] >= ext[1] && ext[0] >= ext[2] {
            0
        } else if ext[1] >= ext[2] {
            1
        } else {
            2
        };
        let mut mid = s + count / 2;
        if ext[axis] > 0.0 {
            let scale = BINS as f32 / ext[axis];
            let bin_of = |t: u32| {
                let c = centroids[t as usize][axis];
                (((c - cb.min[axis]) * scale) as usize).min(BINS - 1)
            };
            let mut bin_bounds = [Bounds::EMPTY; BINS];
            let mut bin_count = [0usize; BINS];
            for &t in &order[s..e] {
                let b = bin_of(t);
                bin_count[b] += 1;
                bin_bounds[b].join(&boxes[t as usize]);
            }
            // Sweep: the cost of cutting after bin k, left area·count + right area·count.
            let mut left_area = [0f32; BINS];
            let mut left_n = [0usize; BINS];
            let mut acc = Bounds::EMPTY;
            let mut k_n = 0;
            for k in 0..BINS {
                acc.join(&bin_bounds[k]);
                k_n += bin_count[k];
                left_area[k] = acc.half_area();
                left_n[k] = k_n;
            }
            let mut best = (f32::INFINITY, 0usize);
            let mut acc = Bounds::EMPTY;
            let mut r_n = 0;
            for k in (1..BINS).rev() {
                acc.join(&bin_bounds[k]);
                r_n += bin_count[k];
                let l = left_n[k - 1];
                if l == 0 || r_n == 0 {
                    continue;
                }
                let cost = left_area[k - 1] * l as f32 + acc.half_area() * r_n as f32;
                if cost < best.0 {
                    best = (cost, k);
                }
            }
            if best.0.is_finite() {
                let split = best.1;
                // Partition in place: bins below `split` first.
                let slice = &mut order[s..e];
                let mut i = 0;
                let mut j = slice.len();
                while i < j {
                    if bin_of(slice[i]) < split {
                        i += 1;
                    } else {
                        j -= 1;
                        slice.swap(i, j);
                    }
                }
                mid = s + i;
            }
        }
        if mid == s || mid == e {
            // Every centroid in one place: split the run in half, by index.
            mid = s + count / 2;
        }
        let left = nodes.len();
        nodes.push(BvhNode::default());
        nodes.push(BvhNode::default());
        nodes[ni] = BvhNode {
            min: bounds.min,
            max: bounds.max,
            first: left as u32,
            count: 0,
        };
        stack.push((left + 1, mid, e));
        stack.push((left, s, mid));
    }
    let mut tris = Vec::with_capacity(n);
    let mut mats = Vec::with_capacity(n);
    for &t in &order {
        tris.push(triangles[t as usize]);
        mats.push(materials.get(t as usize).copied().unwrap_or(NO_MATERIAL));
    }
    (nodes, tris, mats)
}

/// Cooks `soup`: weld, cull, BVH ([`weld`], [`build_bvh`]).
pub fn cook(soup: &Soup, key: [u8; 32]) -> (CookedMesh, WeldStats) {
    let Welded {
        vertices,
        triangles,
        materials,
        stats,
    } = weld(soup);
    let (nodes, triangles, materials) = build_bvh(&vertices, triangles, materials);
    (
        CookedMesh {
            key,
            vertices,
            triangles,
            materials,
            slots: soup.slots.clone(),
            nodes,
        },
        stats,
    )
}

impl CookedMesh {
    /// The nearest triangle a ray hits within `max_t` (in units of `dir`), through the BVH:
    /// its distance and index. Both faces count.
    pub fn ray_cast(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> Option<(f32, u32)> {
        let inv = dir.map(|d| 1.0 / d);
        let mut best: Option<(f32, u32)> = None;
        let mut stack = Vec::with_capacity(64);
        if !self.nodes.is_empty() {
            stack.push(0usize);
        }
        while let Some(i) = stack.pop() {
            let Some(node) = self.nodes.get(i) else {
                continue;
            };
            let limit = best.map_or(max_t, |b| b.0);
            if !slab_hit(node, origin, inv, limit) {
                continue;
            }
            if node.is_leaf() {
                let end = node.first.saturating_add(node.count);
                for t in node.first..end {
                    if let Some(d) = self.triangle_hit(t, origin, dir) {
                        if d <= limit && best.is_none_or(|b| d < b.0) {
                            best = Some((d, t));
                        }
                    }
                }
            } else {
                let c = node.first as usize;
                stack.push(c);
                stack.push(c + 1);
            }
        }
        best
    }

    /// The distance along the ray at which it crosses triangle `t` (Möller–Trumbore), if
    /// it does at a non-negative distance.
    pub fn triangle_hit(&self, t: u32, origin: [f32; 3], dir: [f32; 3]) -> Option<f32> {
        let tri = self.triangles.get(t as usize)?;
        let p = |i: u32| self.vertices.get(i as usize).copied();
        let (a, b, c) = (p(tri[0])?, p(tri[1])?, p(tri[2])?);
        let sub = |x: [f32; 3], y: [f32; 3]| [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
        let cross = |x: [f32; 3], y: [f32; 3]| {
            [
                x[1] * y[2] - x[2] * y[1],
                x[2] * y[0] - x[0] * y[2],
                x[0] * y[1] - x[1] * y[0],
            ]
        };
        let dot = |x: [f32; 3], y: [f32; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
        let e1 = sub(b, a);
        let e2 = sub(c, a);
        let h = cross(dir, e2);
        let det = dot(e1, h);
        if det.abs() < 1e-12 {
            return None;
        }
        let f = 1.0 / det;
        let s = sub(origin, a);
        let u = f * dot(s, h);
        if !(0.0..=1.0).contains(&u) {
            return None;
        }
        let q = cross(s, e1);
        let v = f * dot(dir, q);
        if v < 0.0 || u + v > 1.0 {
            return None;
        }
        let d = f * dot(e2, q);
        (d >= 0.0).then_some(d)
    }
}

fn slab_hit(node: &BvhNode, o: [f32; 3], inv: [f32; 3], max_t: f32) -> bool {
    let mut lo = 0.0f32;
    let mut hi = max_t;
    for a in 0..3 {
        let t0 = (node.min[a] - o[a]) * inv[a];
        let t1 = (node.max[a] - o[a]) * inv[a];
        let (t0, t1) = if t0 <= t1 { (t0, t1) } else { (t1, t0) };
        // A NaN (a ray along a slab's face) leaves the interval as it was.
        lo = if t0 > lo { t0 } else { lo };
        hi = if t1 < hi { t1 } else { hi };
        if lo > hi {
            return false;
        }
    }
    true
}
