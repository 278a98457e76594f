//! The region mesher (spec `dh.voxel`, "How the engine draws it", "Corner occlusion";
//! runtime assets, "Voxel volumes").
//!
//! A region is `regionChunks`³ chunks meshed together into one [`RegionMesh`], one
//! [`SurfaceMesh`] per surface. Each chunk is read with a one-cell border from its 26
//! neighbors (so faces on chunk and region borders are culled exactly as inside one),
//! classified into per-row bit masks (one `u64` per X row: opaque, see-through, drawn,
//! fluid), and its faces found six directions at a time with shifts and masks: a face
//! shows where its cell is drawn and the neighbor does not hide it. Only see-through
//! cells facing see-through cells are compared one by one (a see-through cell hides
//! only its own kind, unless the kind is `inner`). Nothing is allocated per cell.
//!
//! Each face writes four vertices straight into the GPU stream split (position, the
//! octahedral basis, the four UV sets) and six `u32` indices:
//!
//! * UV0: the palette-atlas texel of the cell's look.
//! * UV1: the face corner's cell coordinates along the face's tangent and bitangent, so
//!   a texture repeats once a cell.
//! * UV2: x is the corner's occlusion count (0–3): how many of the two edge cells and
//!   the diagonal cell in the layer in front hide it, two hiding edges counting 3;
//!   y is 0. Each quad is split along the diagonal whose corners are lighter.
//! * UV3: zero.

use dh_content::mesh::{
    pack_basis, unpack_basis, MeshVertex, PackedMesh, ATTRIBUTES_STRIDE, BASIS_STRIDE,
    POSITION_STRIDE, STREAM_ALIGN,
};
use dh_jobs::Scheduler;
use glam::{DMat3, DVec3, IVec3, Vec3};

use super::cell::{CellLook, Surface, FLAG_DRAW, FLAG_FLUID, FLAG_MODEL, FLAG_OPAQUE};
use super::fluid::{corner_heights, fluid_face_shows, is_source_or_falling};
use super::looks::{EntryModel, VoxelLooks};
use super::model::{cell_hash, pick};
use super::place::Placement;
use super::{ChunkSource, ChunkView};

/// Bytes a vertex takes on the GPU: position 12, basis 8, attributes 32.
pub const VERTEX_BYTES: usize = 52;

/// The six face directions (unit normals in the grid's cells): +X, −X, +Y, −Y, +Z, −Z.
pub const FACE_DIRS: [IVec3; 6] = [
    IVec3::X,
    IVec3::NEG_X,
    IVec3::Y,
    IVec3::NEG_Y,
    IVec3::Z,
    IVec3::NEG_Z,
];

/// Each direction's tangent (+U); the bitangent is cross(normal, tangent), and the
/// corners (−t,−b) (+t,−b) (+t,+b) (−t,+b) wind counter-clockwise seen from outside.
const TANGENTS: [IVec3; 6] = [
    IVec3::NEG_Z,
    IVec3::Z,
    IVec3::X,
    IVec3::X,
    IVec3::X,
    IVec3::NEG_X,
];

const CORNER_SIGNS: [(i32, i32); 4] = [(-1, -1), (1, -1), (1, 1), (-1, 1)];

/// Corner `k` (0 to 3) of a cube face of direction `d` (an index of [`FACE_DIRS`]) as
/// the cube path writes it: its offset from the cell's minimum, each axis 0 or 1.
pub fn cube_corner(d: usize, k: usize) -> IVec3 {
    let n = FACE_DIRS[d % 6];
    let t = TANGENTS[d % 6];
    let b = n.cross(t);
    let (su, sv) = CORNER_SIGNS[k % 4];
    (n + t * su + b * sv + 1) / 2
}

/// How regions are meshed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshOptions {
    /// `client.voxel.opaqueLeaves`: leaves drawn solid (Fast) or cut out with their
    /// inner faces (Fancy).
    pub opaque_leaves: bool,
    /// `client.voxel.regionChunks`: chunks along each side of a region.
    pub region_chunks: usize,
}

impl Default for MeshOptions {
    /// The spec's defaults: opaque leaves, 2 chunks a side.
    fn default() -> Self {
        MeshOptions {
            opaque_leaves: true,
            region_chunks: 2,
        }
    }
}

/// One surface's mesh, already split into the GPU streams.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SurfaceMesh {
    /// Meters, world-handed. Plain arrays: the position stream is uploaded as-is
    /// (12 bytes a vertex, [`POSITION_STRIDE`]).
    pub positions: Vec<[f32; 3]>,
    /// The octahedral normal and tangent ([`dh_content::mesh::pack_basis`]).
    pub basis: Vec<[u16; 4]>,
    /// UV0, UV1, UV2, UV3, a float2 each.
    pub attributes: Vec<[f32; 8]>,
    /// The triangle list, six indices a quad.
    pub indices: Vec<u32>,
}

impl SurfaceMesh {
    /// Vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Quads (every face is one).
    pub fn quad_count(&self) -> usize {
        self.indices.len() / 6
    }

    /// Whether it draws nothing.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// Bytes of vertex and index buffers on the GPU.
    pub fn byte_size(&self) -> usize {
        self.positions.len() * VERTEX_BYTES + self.indices.len() * 4
    }

    /// The vertices as CPU records (the basis decoded), for tools and tests.
    pub fn to_vertices(&self) -> Vec<MeshVertex> {
        (0..self.positions.len())
            .map(|i| {
                let (normal, tangent) = unpack_basis(self.basis[i]);
                let a = self.attributes[i];
                MeshVertex {
                    position: self.positions[i],
                    normal,
                    tangent,
                    uv0: [a[0], a[1]],
                    uv1: [a[2], a[3]],
                    uv2: [a[4], a[5]],
                    uv3: [a[6], a[7]],
                }
            })
            .collect()
    }

    /// The vertex streams in one buffer, each on a 16-byte boundary, as
    /// [`dh_content::mesh::pack_streams`] lays them out (no lightmap, no color stream).
    pub fn pack(&self) -> PackedMesh {
        let n = self.positions.len();
        let align = |v: usize| v.div_ceil(STREAM_ALIGN) * STREAM_ALIGN;
        let basis_offset = align(n * POSITION_STRIDE as usize);
        let attributes_offset = align(basis_offset + n * BASIS_STRIDE as usize);
        let end = align(attributes_offset + n * ATTRIBUTES_STRIDE as usize);
        let mut bytes = Vec::with_capacity(end);
        for p in &self.positions {
            for c in p {
                bytes.extend_from_slice(&c.to_le_bytes());
            }
        }
        bytes.resize(basis_offset, 0);
        for b in &self.basis {
            for c in b {
                bytes.extend_from_slice(&c.to_le_bytes());
            }
        }
        bytes.resize(attributes_offset, 0);
        for a in &self.attributes {
            for c in a {
                bytes.extend_from_slice(&c.to_le_bytes());
            }
        }
        bytes.resize(end, 0);
        PackedMesh {
            bytes,
            vertex_count: n as u32,
            position_offset: 0,
            basis_offset,
            attributes_offset,
            lightmap_offset: None,
            color_offset: None,
        }
    }

    fn clear(&mut self) {
        self.positions.clear();
        self.basis.clear();
        self.attributes.clear();
        self.indices.clear();
    }

    /// Reorders the quads lowest first (by the lowest world Y of their corners), which
    /// is back to front seen from above; a stable sort, so equal heights keep their order.
    pub fn sort_lowest_first(&mut self) {
        let quads = self.indices.len() / 6;
        if quads < 2 {
            return;
        }
        let mut keys: Vec<(f32, u32)> = (0..quads)
            .map(|q| {
                let y = self.indices[q * 6..q * 6 + 6]
                    .iter()
                    .map(|&i| self.positions.get(i as usize).map_or(0.0, |p| p[1]))
                    .fold(f32::INFINITY, f32::min);
                (y, q as u32)
            })
            .collect();
        keys.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut out = Vec::with_capacity(self.indices.len());
        for (_, q) in keys {
            let q = q as usize;
            out.extend_from_slice(&self.indices[q * 6..q * 6 + 6]);
        }
        self.indices = out;
    }
}

/// One region's mesh: one [`SurfaceMesh`] per surface ([`Surface::ALL`] order), one draw
/// each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RegionMesh {
    /// The region's coordinates (chunk / regionChunks on each axis).
    pub region: [i32; 3],
    /// Opaque, cutout, translucent.
    pub surfaces: [SurfaceMesh; 3],
    /// Chunks of the region that drew a face.
    pub chunks_with_faces: u32,
}

impl RegionMesh {
    /// The surface mesh for `s`.
    pub fn surface(&self, s: Surface) -> &SurfaceMesh {
        &self.surfaces[s as usize]
    }

    /// Quads over every surface.
    pub fn quad_count(&self) -> usize {
        self.surfaces.iter().map(SurfaceMesh::quad_count).sum()
    }

    /// Bytes of vertex and index buffers over every surface.
    pub fn byte_size(&self) -> usize {
        self.surfaces.iter().map(SurfaceMesh::byte_size).sum()
    }

    /// Whether it draws nothing (a region that frees its `maxMeshes` slot).
    pub fn is_empty(&self) -> bool {
        self.surfaces.iter().all(SurfaceMesh::is_empty)
    }
}

/// Totals over meshed regions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeshStats {
    /// Regions meshed.
    pub regions: usize,
    /// Chunks that drew a face.
    pub chunks_with_faces: usize,
    /// Quads.
    pub quads: usize,
    /// Bytes of vertex and index buffers.
    pub bytes: usize,
}

impl MeshStats {
    /// Totals of `meshes`.
    pub fn of(meshes: &[RegionMesh]) -> MeshStats {
        let mut s = MeshStats::default();
        for m in meshes {
            s.regions += 1;
            s.chunks_with_faces += m.chunks_with_faces as usize;
            s.quads += m.quad_count();
            s.bytes += m.byte_size();
        }
        s
    }
}

/// Per-thread buffers a mesher reuses from chunk to chunk.
#[derive(Debug, Clone, Default)]
pub struct MeshScratch {
    edge: usize,
    faces: Vec<u32>,
    fluids: Vec<u32>,
    /// The chunk's cells with their border, (edge + 2)³, X fastest.
    ids: Vec<u32>,
    /// Per padded row (y + (edge + 2) z), one bit a cell: opaque, see-through, drawn,
    /// fluid.
    rows: Vec<[u64; 4]>,
    /// The region a [`mesh_region`] call meshes into before it is copied out at its
    /// exact size.
    region: RegionMesh,
}

impl MeshScratch {
    /// The faces the last [`find_faces`] found: each `x | y << 6 | z << 12 | dir << 18`,
    /// the cell in the chunk's padded coordinates (1 ..= edge; 0 and edge + 1 are the
    /// neighbors' border) and the direction an index of [`FACE_DIRS`].
    pub fn faces(&self) -> &[u32] {
        &self.faces
    }

    /// The cells holding a fluid the last [`find_faces`] found, as `x | y << 6 | z << 12`.
    pub fn fluid_cells(&self) -> &[u32] {
        &self.fluids
    }
}

/// Everything about a volume that does not change from region to region: its looks in
/// force and the placement, precomputed per face direction.
#[derive(Debug, Clone)]
pub struct MeshContext<'a> {
    looks: &'a [CellLook],
    flags: &'a [u8],
    models: &'a [EntryModel],
    /// Whether any entry is modeled (only then does a cube face look at whether its
    /// neighbour's model covers the side).
    has_models: bool,
    /// Block-space normals to the grid's meters (the linear part's inverse transpose).
    normal_mat: glam::Mat3,
    /// The grid's axes in meters (the linear part's columns).
    axis: [Vec3; 3],
    translation: DVec3,
    lin: DMat3,
    /// Per direction, per corner: the corner's offset from the cell's minimum, in cells.
    corner: [[IVec3; 4]; 6],
    /// The same in meters.
    corner_m: [[Vec3; 4]; 6],
    /// Per direction, per corner: the corner's offset along the tangent and bitangent.
    corner_uv: [[[f32; 2]; 4]; 6],
    bitangent: [IVec3; 6],
    basis: [[u16; 4]; 6],
    basis_back: [[u16; 4]; 6],
    mirrored: bool,
    region_chunks: usize,
}

impl<'a> MeshContext<'a> {
    /// The context for `looks` (in the leaf mode `options` picks) placed by `placement`.
    pub fn new(
        looks: &'a VoxelLooks,
        placement: &Placement,
        options: &MeshOptions,
    ) -> MeshContext<'a> {
        let lin = placement.linear();
        let axis = [lin.x_axis, lin.y_axis, lin.z_axis].map(DVec3::as_vec3);
        let mirrored = placement.mirrors();
        let mut corner = [[IVec3::ZERO; 4]; 6];
        let mut corner_m = [[Vec3::ZERO; 4]; 6];
        let mut corner_uv = [[[0.0f32; 2]; 4]; 6];
        let mut bitangent = [IVec3::ZERO; 6];
        let mut basis = [[0u16; 4]; 6];
        let mut basis_back = [[0u16; 4]; 6];
        for d in 0..6 {
            let n = FACE_DIRS[d];
            let t = TANGENTS[d];
            let b = n.cross(t);
            bitangent[d] = b;
            for (k, &(su, sv)) in CORNER_SIGNS.iter().enumerate() {
                // Twice the offset from the cell's center, then halved onto 0..1.
                let twice = n + t * su + b * sv;
                let c = (twice + 1) / 2;
                corner[d][k] = c;
                corner_uv[d][k] = [c.dot(t) as f32, c.dot(b) as f32];
                corner_m[d][k] = placement.vector(c.as_dvec3()).as_vec3();
            }
            let nw = placement.normal(n.as_dvec3());
            let tw = super::place::normalize(placement.vector(t.as_dvec3()));
            let w = if mirrored { -1.0 } else { 1.0 };
            let nf = nw.as_vec3();
            let tf = tw.as_vec3();
            // The packer takes the spec's vertex fields, plain arrays.
            basis[d] = pack_basis(nf.to_array(), tf.extend(w).to_array());
            basis_back[d] = pack_basis((-nf).to_array(), tf.extend(-w).to_array());
        }
        let normal_mat = lin.inverse().transpose().as_mat3();
        MeshContext {
            looks: looks.cells(options.opaque_leaves),
            flags: looks.pass_flags(options.opaque_leaves),
            models: looks.models(),
            has_models: !looks.models().is_empty(),
            normal_mat,
            axis,
            translation: placement.translation(),
            lin,
            corner,
            corner_m,
            corner_uv,
            bitangent,
            basis,
            basis_back,
            mirrored,
            region_chunks: options.region_chunks.max(1),
        }
    }

    #[inline]
    fn look(&self, id: u32) -> &CellLook {
        let i = (id as usize).min(self.looks.len() - 1);
        &self.looks[i]
    }

    #[inline]
    fn flag(&self, id: u32) -> u8 {
        let i = (id as usize).min(self.flags.len() - 1);
        self.flags[i]
    }

    /// A cell point to meters (`x·X + y·Y + z·Z + t` in f64, summed in that order).
    fn point(&self, p: DVec3) -> Vec3 {
        (self.lin * p + self.translation).as_vec3()
    }
}

/// Multiplying the low bits of eight bytes (each 0 or 1) by this gathers them into the
/// top byte, byte i's bit at bit i.
const GATHER: u64 = 0x0102_0408_1020_4080;
const LOW_BITS: u64 = 0x0101_0101_0101_0101;

/// The four masks (opaque, see-through, drawn, fluid; bit i for cell i) of a row of at
/// most 64 cells: each cell's flag byte from `table` (an index past it reads the last
/// entry, the unresolved look), eight bytes to a word, each flag's bits gathered out of
/// the word with one multiply.
#[inline]
fn classify_row(table: &[u8], from: &[u32]) -> [u64; 4] {
    let last = table.len() - 1;
    let mut m = [0u64; 4];
    let mut word = |g: usize, ids: &[u32]| {
        let mut w = 0u64;
        for (k, &id) in ids.iter().enumerate() {
            w |= u64::from(table[(id as usize).min(last)]) << (8 * k);
        }
        for (j, mj) in m.iter_mut().enumerate() {
            *mj |= (((w >> j) & LOW_BITS).wrapping_mul(GATHER) >> 56) << (8 * g);
        }
    };
    if let Ok(a) = <&[u32; 16]>::try_from(from) {
        let (lo, hi) = a.split_at(8);
        word(0, lo);
        word(1, hi);
    } else {
        for (g, ids) in from.chunks(8).take(8).enumerate() {
            word(g, ids);
        }
    }
    m
}

/// Copies a row of cells, the common 16-cell row as one fixed-size move.
#[inline]
fn copy_row(dst: &mut [u32], src: &[u32]) {
    match (
        <&mut [u32; 16]>::try_from(&mut *dst),
        <&[u32; 16]>::try_from(src),
    ) {
        (Ok(d), Ok(s)) => *d = *s,
        _ => dst.copy_from_slice(src),
    }
}

/// Per flag byte (low four bits), each mask's selector: all ones where the flag is set.
const FLAG_SELECT: [[u64; 4]; 16] = {
    let mut t = [[0u64; 4]; 16];
    let mut f = 0;
    while f < 16 {
        let mut k = 0;
        while k < 4 {
            if (f >> k) & 1 != 0 {
                t[f][k] = u64::MAX;
            }
            k += 1;
        }
        f += 1;
    }
    t
};

/// Whether every cell of the layer of neighbor chunk `view` that faces its chunk across
/// direction `d` (the neighbor's side toward −`d`) is opaque.
fn facing_layer_opaque(ctx: &MeshContext<'_>, e: usize, view: ChunkView<'_>, d: IVec3) -> bool {
    let opaque = |v: u32| ctx.flag(v) & FLAG_OPAQUE != 0;
    let c = match view {
        ChunkView::Empty => return opaque(0),
        ChunkView::Uniform(v) => return opaque(v),
        ChunkView::Cells(c) => c,
    };
    if c.len() < e * e * e {
        return false;
    }
    // The layer's coordinate on the axis of `d`: 0 for a neighbor on the + side.
    let axis = d.to_array().iter().position(|&v| v != 0).unwrap_or(0);
    let at = if d[axis] > 0 { 0 } else { e - 1 };
    match axis {
        0 => c.iter().skip(at).step_by(e).all(|&v| opaque(v)),
        1 => c
            .chunks_exact(e * e)
            .all(|slab| slab[at * e..at * e + e].iter().all(|&v| opaque(v))),
        _ => c[at * e * e..(at + 1) * e * e].iter().all(|&v| opaque(v)),
    }
}

/// Copies chunk `chunk`'s cells with a one-cell border read from its neighbors into
/// `scratch.ids` ((edge + 2)³, X fastest) and classifies them into the per-row masks
/// (`scratch.rows`: opaque, see-through, drawn, fluid, one bit a cell): a row whose cells
/// are all one value is classified once, any other through its flag bytes eight at a
/// time. Returns false when the chunk itself draws nothing for certain (empty, or
/// uniform of a look that draws nothing, or uniform opaque and buried on all six sides),
/// in which case nothing is filled.
fn gather<S: ChunkSource + ?Sized>(
    src: &S,
    ctx: &MeshContext<'_>,
    chunk: [i32; 3],
    scratch: &mut MeshScratch,
) -> bool {
    let e = src.edge();
    let p = e + 2;
    match src.chunk(chunk) {
        ChunkView::Empty => return false,
        ChunkView::Uniform(v) => {
            let f = ctx.flag(v);
            if f & FLAG_DRAW == 0 && f & FLAG_FLUID == 0 {
                return false;
            }
            // An opaque uniform chunk shows a face only where a cell of a neighbor's
            // facing layer is not opaque (its cells hide each other, and a fluid it
            // holds is drawn cell by cell, so not with one).
            if f & FLAG_OPAQUE != 0 && f & FLAG_FLUID == 0 {
                let sealed = FACE_DIRS.iter().all(|&d| {
                    let c = IVec3::from_array(chunk) + d;
                    facing_layer_opaque(ctx, e, src.chunk(c.to_array()), d)
                });
                if sealed {
                    return false;
                }
            }
        }
        ChunkView::Cells(_) => {}
    }
    // Every cell of `ids` and every row of the masks is written below, so only a new
    // size clears them.
    let n = p * p * p;
    if scratch.ids.len() != n {
        scratch.ids.clear();
        scratch.ids.resize(n, 0);
    }
    if scratch.rows.len() != p * p {
        scratch.rows.clear();
        scratch.rows.resize(p * p, [0; 4]);
    }
    let ids = &mut scratch.ids;
    let rows = &mut scratch.rows;
    let table = ctx.flags;
    let last = table.len() - 1;
    let flag = |v: u32| table[(v as usize).min(last)];
    // One cell of a view (a view too short reads as empty past its end).
    let cell = |view: ChunkView<'_>, i: usize| -> u32 {
        match view {
            ChunkView::Empty => 0,
            ChunkView::Uniform(v) => v,
            ChunkView::Cells(c) => c.get(i).copied().unwrap_or(0),
        }
    };
    let right = e + 1;
    let lane = ((1u64 << e) - 1) << 1;
    // Per axis, for a neighbor offset -1, 0, 1: (first padded cell, count, first source
    // cell).
    let span = |d: i32| -> (usize, usize, usize) {
        match d {
            -1 => (0, 1, e - 1),
            0 => (1, e, 0),
            _ => (e + 1, 1, 0),
        }
    };
    // Each padded row whole: the cell of the chunk before on X, the row of the chunk
    // (or of its neighbor on Y and Z), the cell of the chunk after.
    for dz in -1..=1 {
        for dy in -1..=1 {
            let at = |dx: i32| src.chunk([chunk[0] + dx, chunk[1] + dy, chunk[2] + dz]);
            let (before, mid, after) = (at(-1), at(0), at(1));
            let (py, ny, sy) = span(dy);
            let (pz, nz, sz) = span(dz);
            for z in 0..nz {
                for y in 0..ny {
                    let r = (py + y) + p * (pz + z);
                    let s = e * ((sy + y) + e * (sz + z));
                    let dst = p * r;
                    let l = cell(before, s + e - 1);
                    let rt = cell(after, s);
                    let (fl, fr) = (flag(l), flag(rt));
                    let Some(row) = ids.get_mut(dst..dst + p) else {
                        continue;
                    };
                    row[0] = l;
                    row[right] = rt;
                    let inner = &mut row[1..right];
                    let from = match mid {
                        ChunkView::Empty => None,
                        ChunkView::Uniform(v) => {
                            inner.fill(v);
                            Some(v)
                        }
                        ChunkView::Cells(c) => match c.get(s..s + e) {
                            None => None,
                            Some(from) => {
                                copy_row(inner, from);
                                let first = from[0];
                                if from.iter().fold(0, |a, &v| a | (v ^ first)) == 0 {
                                    Some(first)
                                } else {
                                    let m = classify_row(table, from);
                                    let ends = [0, 1, 2, 3].map(|k| {
                                        u64::from((fl >> k) & 1) | u64::from((fr >> k) & 1) << right
                                    });
                                    rows[r] = [0, 1, 2, 3].map(|k| (m[k] << 1) | ends[k]);
                                    continue;
                                }
                            }
                        },
                    };
                    let v = match from {
                        Some(v) => v,
                        None => {
                            inner.fill(0);
                            0
                        }
                    };
                    let fm = flag(v);
                    rows[r] = [0, 1, 2, 3].map(|k| {
                        (lane & FLAG_SELECT[usize::from(fm & 15)][k])
                            | u64::from((fl >> k) & 1)
                            | u64::from((fr >> k) & 1) << right
                    });
                }
            }
        }
    }
    true
}

/// Walks a classified chunk's rows (Z, then Y) and, per row, the six directions in
/// [`FACE_DIRS`] order, calling `faces(r, y, z, d, vis)` with each non-empty mask `vis`
/// of the row's cells whose face `d` shows (bit x for padded x; `r` the row, `y` and `z`
/// its padded coordinates); a face shows where its cell is drawn and the neighbor does
/// not hide it. Lists the row's fluid cells into `fluids` as `x | y << 6 | z << 12`.
fn face_masks(
    ctx: &MeshContext<'_>,
    e: usize,
    ids: &[u32],
    rows: &[[u64; 4]],
    fluids: &mut Vec<u32>,
    mut faces: impl FnMut(usize, usize, usize, usize, u64),
) {
    let p = e + 2;
    let interior: u64 = ((1u64 << e) - 1) << 1;
    let whole: u64 = (interior << 1) | 1 | interior;
    let offs: [isize; 6] = [
        1,
        -1,
        p as isize,
        -(p as isize),
        (p * p) as isize,
        -((p * p) as isize),
    ];
    for z in 1..=e {
        for y in 1..=e {
            let r = y + p * z;
            let [o0, s0, d0, f0] = rows[r];
            let dr = d0 & interior;
            let fr = f0 & interior;
            if dr | fr == 0 {
                continue;
            }
            let s = s0 & dr;
            let cand = (o0 & dr) | s;
            let [yp, ym, zp, zm] = [rows[r + 1], rows[r - 1], rows[r + p], rows[r - p]];
            // A row opaque end to end between four opaque rows shows nothing.
            let buried = o0 == whole && yp[0] & ym[0] & zp[0] & zm[0] & interior == interior;
            if cand != 0 && !buried {
                let nbs = [
                    (o0 >> 1, s0 >> 1),
                    (o0 << 1, s0 << 1),
                    (yp[0], yp[1]),
                    (ym[0], ym[1]),
                    (zp[0], zp[1]),
                    (zm[0], zm[1]),
                ];
                for (d, ((no, ns), off)) in nbs.into_iter().zip(offs).enumerate() {
                    let mut vis = cand & !no;
                    // See-through cells facing see-through cells: one by one.
                    let mut chk = s & !no & ns;
                    while chk != 0 {
                        let x = chk.trailing_zeros() as usize;
                        chk &= chk - 1;
                        let i = x + p * r;
                        let ni = (i as isize + off) as usize;
                        if hides(ctx.look(ids[ni]), ctx.look(ids[i])) {
                            vis &= !(1u64 << x);
                        }
                    }
                    if vis != 0 {
                        faces(r, y, z, d, vis);
                    }
                }
            }
            let yz = ((y as u32) << 6) | ((z as u32) << 12);
            let mut fb = fr;
            while fb != 0 {
                let x = fb.trailing_zeros();
                fb &= fb - 1;
                fluids.push(yz | x);
            }
        }
    }
}

/// The face pass of chunk `chunk`: reads it with its border, classifies its cells into
/// per-row masks and finds every face that shows, leaving them in `scratch` (see
/// [`MeshScratch::faces`]); returns how many. Collision can run the same pass over
/// solidity. Cube faces only; fluid cells are listed apart ([`MeshScratch::fluid_cells`]).
/// The chunk's edge must be at most 62 cells (rows of edge + 2 bits fit a `u64`); the
/// payload's edges are 8, 16 and 32.
pub fn find_faces<S: ChunkSource + ?Sized>(
    src: &S,
    ctx: &MeshContext<'_>,
    chunk: [i32; 3],
    scratch: &mut MeshScratch,
) -> usize {
    scratch.faces.clear();
    scratch.fluids.clear();
    let e = src.edge();
    if e == 0 || e > 62 {
        return 0;
    }
    scratch.edge = e;
    if !gather(src, ctx, chunk, scratch) {
        return 0;
    }
    let faces = &mut scratch.faces;
    face_masks(
        ctx,
        e,
        &scratch.ids,
        &scratch.rows,
        &mut scratch.fluids,
        |_, y, z, d, mut vis| {
            let tag = ((y as u32) << 6) | ((z as u32) << 12) | ((d as u32) << 18);
            while vis != 0 {
                let x = vis.trailing_zeros();
                vis &= vis - 1;
                faces.push(tag | x);
            }
        },
    );
    faces.len()
}

/// Meshes chunk `chunk` of `src` into `out` (appending to its surfaces): the face pass
/// (the one [`find_faces`] runs), each face written as it is found, four vertices and
/// six indices a face, then the fluid cells. Returns whether the chunk drew a face.
/// [`MeshScratch::faces`] is not filled.
pub fn mesh_chunk_into<S: ChunkSource + ?Sized>(
    src: &S,
    ctx: &MeshContext<'_>,
    chunk: [i32; 3],
    scratch: &mut MeshScratch,
    out: &mut RegionMesh,
) -> bool {
    scratch.faces.clear();
    scratch.fluids.clear();
    let e = src.edge();
    if e == 0 || e > 62 {
        return false;
    }
    scratch.edge = e;
    if !gather(src, ctx, chunk, scratch) {
        return false;
    }
    let p = e + 2;
    let ei = e as i32;
    let origin = chunk.map(|c| c.wrapping_mul(ei));
    let base = ctx.point(IVec3::from_array(origin).as_dvec3());
    let ids = &scratch.ids;
    let rows = &scratch.rows;
    let before = out.quad_count();
    // Per direction, the eight cells corner occlusion reads around the cell in front, as
    // (row offset, x offset): +t, -t, +b, -b, then the diagonals -t-b, +t-b, +t+b, -t+b.
    let mut around = [[(0isize, 0i32); 8]; 6];
    for (d, a) in around.iter_mut().enumerate() {
        let n = FACE_DIRS[d];
        let t = TANGENTS[d];
        let b = ctx.bitangent[d];
        let steps = [
            (1, 0),
            (-1, 0),
            (0, 1),
            (0, -1),
            (-1, -1),
            (1, -1),
            (1, 1),
            (-1, 1),
        ];
        for (k, (st, sb)) in steps.into_iter().enumerate() {
            let o = n + t * st + b * sb;
            a[k] = (o.y as isize + p as isize * o.z as isize, o.x);
        }
    }
    let ax = ctx.axis;
    let mirrored = ctx.mirrored;
    face_masks(
        ctx,
        e,
        ids,
        rows,
        &mut scratch.fluids,
        |r, y, z, d, mut vis| {
            let t = TANGENTS[d];
            let b = ctx.bitangent[d];
            // The opaque masks of the eight cells around the cell in front, each
            // shifted so bit x is the one beside cell x.
            let w = around[d].map(|(ro, dx)| {
                let row = rows[(r as isize + ro) as usize][0];
                if dx >= 0 {
                    row >> dx
                } else {
                    row << -dx
                }
            });
            let (ly, lz) = ((y as i32 - 1) as f32, (z as i32 - 1) as f32);
            let gy = origin[1] + y as i32 - 1;
            let gz = origin[2] + z as i32 - 1;
            let cm = ctx.corner_m[d];
            let uv = ctx.corner_uv[d];
            let bs = ctx.basis[d];
            let row_ids = &ids[p * r..p * r + p];
            let off = face_offset(d, p);
            while vis != 0 {
                let x = vis.trailing_zeros();
                vis &= vis - 1;
                let look = ctx.look(row_ids[x as usize]);
                if ctx.has_models {
                    // A neighbour whose model covers the facing side whole hides it.
                    let ni = (x as isize + (p * r) as isize + off) as usize;
                    let nl = ctx.look(ids.get(ni).copied().unwrap_or(0));
                    if nl.flags & FLAG_MODEL != 0 && nl.covers & (1 << (d ^ 1)) != 0 {
                        continue;
                    }
                }
                let [tp, tm, bp, bm, dmm, dpm, dpp, dmp] = w.map(|m| ((m >> x) & 1) as u8);
                // Two hiding edges count 3, else the hiding cells are counted (with both
                // edges the sum is 2 + the diagonal, so the diagonal is taken as 1).
                let ao = [
                    tm + bm + (dmm | (tm & bm)),
                    tp + bm + (dpm | (tp & bm)),
                    tp + bp + (dpp | (tp & bp)),
                    tm + bp + (dmp | (tm & bp)),
                ];
                let lx = (x as i32 - 1) as f32;
                // From the chunk's base, axis by axis (in this order, for the bits).
                let cell = base + ax[0] * lx + ax[1] * ly + ax[2] * lz;
                let gx = origin[0] + x as i32 - 1;
                let g = IVec3::new(gx, gy, gz);
                let (cu, cv) = (g.dot(t) as f32, g.dot(b) as f32);
                let mesh = &mut out.surfaces[look.surface as usize];
                let v0 = mesh.positions.len() as u32;
                mesh.positions.extend_from_slice(&[
                    (cell + cm[0]).to_array(),
                    (cell + cm[1]).to_array(),
                    (cell + cm[2]).to_array(),
                    (cell + cm[3]).to_array(),
                ]);
                mesh.basis.extend_from_slice(&[bs, bs, bs, bs]);
                // A whole-cube model reads its face's UVs, its choice picked by the cell.
                let face_uv = (look.model != 0)
                    .then(|| ctx.models.get(look.model as usize - 1))
                    .flatten()
                    .and_then(|m| {
                        let part = m.parts.first()?;
                        let k = pick(&part.weights, cell_hash([gx, gy, gz].map(i64::from)));
                        part.choices.get(k)?.cube_uv.map(|c| c[d])
                    });
                let a = |k: usize| {
                    let [u0, u1] = face_uv.map_or(look.uv0, |f| f[k]);
                    [
                        u0,
                        u1,
                        cu + uv[k][0],
                        cv + uv[k][1],
                        f32::from(ao[k]),
                        0.0,
                        0.0,
                        0.0,
                    ]
                };
                mesh.attributes.extend_from_slice(&[a(0), a(1), a(2), a(3)]);
                mesh.indices
                    .extend_from_slice(&quad_indices(v0, ao, mirrored));
            }
        },
    );
    // Fluids.
    let step = [(p * p) as isize, p as isize];
    for &f in &scratch.fluids {
        let x = (f & 63) as i32;
        let y = ((f >> 6) & 63) as i32;
        let z = ((f >> 12) & 63) as i32;
        let i = x as isize + (p * (y as usize + p * z as usize)) as isize;
        let nb = |dx: i32, dy: i32, dz: i32| -> &CellLook {
            let j = i + dx as isize + step[1] * dy as isize + step[0] * dz as isize;
            ctx.look(ids.get(j as usize).copied().unwrap_or(0))
        };
        let gcell = [
            i64::from(origin[0] + x - 1),
            i64::from(origin[1] + y - 1),
            i64::from(origin[2] + z - 1),
        ];
        let c = nb(0, 0, 0);
        if c.fluid != 0 {
            fluid_cell(ctx, &nb, gcell, out);
        }
        if c.flags & FLAG_MODEL != 0 {
            model_cell(ctx, &nb, gcell, out);
        }
    }
    out.quad_count() > before
}

/// The offset in a padded chunk's cells (X fastest, edge + 2 = `p` a side) of the
/// neighbour across direction `d`.
fn face_offset(d: usize, p: usize) -> isize {
    let n = FACE_DIRS[d];
    n.x as isize + p as isize * (n.y as isize + p as isize * n.z as isize)
}

/// Whether model face culled against side `c` of cell `cell` is hidden by neighbour
/// `nb` on that side: an opaque (or unresolved) cube hides it, so does a model covering
/// the facing side whole with opaque faces, and a see-through block of its own kind
/// (unless the kind keeps its inner faces).
fn model_face_hidden(nb: &CellLook, cell: &CellLook, c: usize) -> bool {
    if nb.flags & FLAG_OPAQUE != 0 {
        return true;
    }
    if nb.flags & FLAG_MODEL != 0 && nb.covers & (1 << (c ^ 1)) != 0 {
        return true;
    }
    cell.surface != Surface::Opaque
        && !cell.inner
        && nb.kind == cell.kind
        && nb.flags & (FLAG_DRAW | FLAG_MODEL) != 0
}

/// Writes the faces of one modeled cell: every part's choice (picked by the cell's
/// position), each face that its cull side does not hide, four vertices and six indices
/// into the cell's surface. Model faces take no corner occlusion (UV2 is zero): the
/// light field's smooth corner rule lights them where the shader reads it.
fn model_cell<'a>(
    ctx: &MeshContext<'_>,
    nb: &impl Fn(i32, i32, i32) -> &'a CellLook,
    gcell: [i64; 3],
    out: &mut RegionMesh,
) {
    let c = *nb(0, 0, 0);
    let Some(m) = (c.model as usize)
        .checked_sub(1)
        .and_then(|i| ctx.models.get(i))
    else {
        return;
    };
    let hash = cell_hash(gcell);
    let g = DVec3::from_array(gcell.map(|v| v as f64));
    let mesh = &mut out.surfaces[c.surface as usize];
    let w = if ctx.mirrored { -1.0 } else { 1.0 };
    for part in &m.parts {
        let Some(choice) = part.choices.get(pick(&part.weights, hash)) else {
            continue;
        };
        for f in &choice.faces {
            if let Some(side) = f.cull {
                let n = FACE_DIRS[usize::from(side) % 6];
                if model_face_hidden(nb(n.x, n.y, n.z), &c, usize::from(side)) {
                    continue;
                }
            }
            let d = usize::from(f.dir) % 6;
            let t = TANGENTS[d];
            let b = ctx.bitangent[d];
            let nw = (ctx.normal_mat * f.normal).normalize_or_zero();
            let tw = (ctx.lin.as_mat3() * f.tangent).normalize_or_zero();
            let basis = pack_basis(nw.to_array(), tw.extend(w).to_array());
            let v0 = mesh.positions.len() as u32;
            for k in 0..4 {
                let p = g + f.corners[k].as_dvec3();
                mesh.positions.push(ctx.point(p).to_array());
                mesh.basis.push(basis);
                let (cu, cv) = (p.dot(t.as_dvec3()) as f32, p.dot(b.as_dvec3()) as f32);
                let [u0, u1] = f.uv0[k];
                mesh.attributes.push([u0, u1, cu, cv, 0.0, 0.0, 0.0, 0.0]);
            }
            mesh.indices
                .extend_from_slice(&quad_indices(v0, [0; 4], ctx.mirrored));
        }
    }
}

/// Whether see-through neighbor `nb` hides the face of see-through drawn cell `cell`: a
/// cell of its own kind does (unless the kind keeps its inner faces), and so does a fluid
/// source or falling column toward a blended block (glass gives its face up to water).
#[inline]
fn hides(nb: &CellLook, cell: &CellLook) -> bool {
    if nb.fluid != 0
        && nb.fluid != cell.fluid
        && is_source_or_falling(nb.fluid_level)
        && cell.surface == Surface::Translucent
    {
        return true;
    }
    nb.flags & FLAG_DRAW != 0 && nb.kind == cell.kind && !cell.inner
}

/// The six indices of the quad at `v0` with corner occlusion `ao`: split along the
/// diagonal whose corners are lighter (fewer hiding cells; 0–2 on a tie), wound the other
/// way when the placement mirrors.
#[inline]
fn quad_indices(v0: u32, ao: [u8; 4], mirrored: bool) -> [u32; 6] {
    let t: [u32; 6] = if ao[0] + ao[2] <= ao[1] + ao[3] {
        [0, 1, 2, 0, 2, 3]
    } else {
        [1, 2, 3, 1, 3, 0]
    };
    let t = if mirrored {
        [t[0], t[2], t[1], t[3], t[5], t[4]]
    } else {
        t
    };
    t.map(|i| v0 + i)
}

/// Writes the faces of one fluid cell: each face that shows, its top corners at the
/// surface's corner heights, drawn from both sides, not measured for occlusion.
fn fluid_cell<'a>(
    ctx: &MeshContext<'_>,
    nb: &impl Fn(i32, i32, i32) -> &'a CellLook,
    gcell: [i64; 3],
    out: &mut RegionMesh,
) {
    let c = *nb(0, 0, 0);
    let heights = corner_heights(nb);
    let mesh = &mut out.surfaces[c.fluid_surface as usize];
    for d in 0..6 {
        if !fluid_face_shows(nb, FACE_DIRS[d], &heights) {
            continue;
        }
        let t = TANGENTS[d];
        let b = ctx.bitangent[d];
        let corners = ctx.corner[d].map(|k| {
            let y = if k[1] == 1 {
                heights[(k[0] + 2 * k[2]) as usize]
            } else {
                0.0
            };
            Vec3::new(k[0] as f32, y, k[2] as f32)
        });
        for back in [false, true] {
            let v0 = mesh.positions.len() as u32;
            for (k, corner) in corners.iter().enumerate() {
                let p = DVec3::from_array(gcell.map(|v| v as f64)) + corner.as_dvec3();
                mesh.positions.push(ctx.point(p).to_array());
                mesh.basis.push(if back {
                    ctx.basis_back[d]
                } else {
                    ctx.basis[d]
                });
                let kc = ctx.corner[d][k];
                let g = [0, 1, 2].map(|a| gcell[a] + i64::from(kc[a]));
                let u = (g[0] * i64::from(t[0]) + g[1] * i64::from(t[1]) + g[2] * i64::from(t[2]))
                    as f32;
                let v = (g[0] * i64::from(b[0]) + g[1] * i64::from(b[1]) + g[2] * i64::from(b[2]))
                    as f32;
                mesh.attributes
                    .push([c.fluid_uv0[0], c.fluid_uv0[1], u, v, 0.0, 0.0, 0.0, 0.0]);
            }
            mesh.indices
                .extend_from_slice(&quad_indices(v0, [0; 4], ctx.mirrored != back));
        }
    }
}

/// Meshes region `region` (chunks `region * regionChunks` up to the next region on each
/// axis) of `src`: every chunk's faces into one mesh per surface, the translucent faces
/// then written lowest first.
pub fn mesh_region<S: ChunkSource + ?Sized>(
    src: &S,
    ctx: &MeshContext<'_>,
    region: [i32; 3],
    scratch: &mut MeshScratch,
) -> RegionMesh {
    // Meshed into the scratch's buffers (kept from region to region), then copied out
    // at their exact size: one allocation a stream instead of a growing one.
    let mut work = std::mem::take(&mut scratch.region);
    work.clear();
    let rc = ctx.region_chunks as i32;
    for cz in 0..rc {
        for cy in 0..rc {
            for cx in 0..rc {
                let chunk = [
                    region[0] * rc + cx,
                    region[1] * rc + cy,
                    region[2] * rc + cz,
                ];
                if mesh_chunk_into(src, ctx, chunk, scratch, &mut work) {
                    work.chunks_with_faces += 1;
                }
            }
        }
    }
    work.surfaces[Surface::Translucent as usize].sort_lowest_first();
    let out = RegionMesh {
        region,
        surfaces: work.surfaces.clone(),
        chunks_with_faces: work.chunks_with_faces,
    };
    scratch.region = work;
    out
}

/// Meshes `regions` in parallel on `scheduler` (one job per region), the results in the
/// order asked.
pub fn mesh_regions<S: ChunkSource + ?Sized>(
    scheduler: &Scheduler,
    src: &S,
    ctx: &MeshContext<'_>,
    regions: &[[i32; 3]],
) -> Vec<RegionMesh> {
    thread_local! {
        static SCRATCH: std::cell::RefCell<MeshScratch> = std::cell::RefCell::default();
    }
    scheduler.parallel_map(regions, 1, |_, &r| {
        SCRATCH.with(|s| match s.try_borrow_mut() {
            Ok(mut scratch) => mesh_region(src, ctx, r, &mut scratch),
            Err(_) => mesh_region(src, ctx, r, &mut MeshScratch::default()),
        })
    })
}

impl RegionMesh {
    /// Empties every surface, keeping the buffers' capacity.
    pub fn clear(&mut self) {
        for s in &mut self.surfaces {
            s.clear();
        }
        self.chunks_with_faces = 0;
    }
}
