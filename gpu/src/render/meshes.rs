//! Mesh residency and mesh draws: one GPU copy per [`MeshAsset::key`], uploaded through an
//! [`UploadQueue`] of their own (the renderer pumps it after the other assets, under the
//! frame's byte budget and a time budget of its own, `client.voxel.uploadBudgetMs`), all of
//! a frame's copies in the frame's one upload batch.
//! A mesh is drawn only once both of its buffers have landed; until then its sub-meshes are
//! skipped and counted, and nothing waits. A key no instance has named for
//! [`MeshCache::keep_frames`] frames is freed: its buffers are dropped, which retires them
//! through the device's deferred-destruction queue against the next submit, so they outlive
//! every frame in flight that may still draw them.
//!
//! Each sub-mesh of a resident instance becomes one [`Draw`]: opaque and cut-out ones join
//! the boxes' list, translucent ones go to a list of their own sorted back to front by the
//! distance from the eye to the instance's world-bounds center (ties keep frame order).

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;
use dh_content::mesh::{
    MeshVertexLayout, StreamKind, ATTRIBUTES_STRIDE, BASIS_STRIDE, COLOR_STRIDE, LIGHTMAP_STRIDE,
    POSITION_STRIDE,
};

use super::frame::{MeshAsset, MeshInstance, RenderFrame, Surface};
use glam::Vec3;

use super::passes::{Draw, GeoBind};
use super::uploads::UploadQueue;
use crate::{Buffer, BufferDesc, Gpu, MemoryLocation, Result};

/// A mesh's buffers on the GPU.
struct Resident {
    _buffer: Buffer,
    _index: Buffer,
    bind: GeoBind,
    /// The upload jobs of the streams and the indices.
    jobs: [u64; 2],
    /// Whether both jobs had finished at the last pump.
    landed: bool,
}

/// What a key holds.
enum State {
    /// Buffers (maybe still uploading).
    Gpu(Box<Resident>),
    /// No triangles: nothing to upload or draw.
    Empty,
    /// Refused (the reason): never uploaded, its instances never drawn.
    Invalid(String),
}

struct Entry {
    mesh: Arc<MeshAsset>,
    state: State,
    /// [`FLAG_BASE_COLOR`] and [`FLAG_LAYER_WEIGHT`]: the sets its color run holds.
    color_flags: u32,
    bytes: u64,
    last_named: u64,
}

/// What [`MeshCache::prepare`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Prepared {
    /// Keys freed (unnamed past the keep window).
    pub freed: usize,
    /// Keys seen for the first time and queued.
    pub queued: usize,
}

/// Resident meshes by key (their upload queue is the caller's, so the draws of a frame
/// can borrow the cache while the queue is pumped).
pub(super) struct MeshCache {
    entries: HashMap<u64, Entry>,
    /// Frames a key no instance names stays resident.
    pub keep_frames: u64,
}

impl std::fmt::Debug for MeshCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeshCache")
            .field("meshes", &self.entries.len())
            .finish()
    }
}

/// Why a mesh asset cannot be drawn, or `Ok(false)` when it has nothing to draw.
fn check(mesh: &MeshAsset) -> std::result::Result<bool, String> {
    let p = &mesh.packed;
    let n = p.vertex_count as usize;
    if mesh.indices.is_empty() || n == 0 {
        return Ok(false);
    }
    let mut runs = vec![
        ("position", Some(p.position_offset), POSITION_STRIDE),
        ("basis", Some(p.basis_offset), BASIS_STRIDE),
        ("attribute", Some(p.attributes_offset), ATTRIBUTES_STRIDE),
        ("lightmap", p.lightmap_offset, LIGHTMAP_STRIDE),
        ("color", p.color_offset, COLOR_STRIDE),
    ];
    runs.retain(|r| r.1.is_some());
    for (name, offset, stride) in runs {
        let offset = offset.unwrap_or(0);
        let end = (stride as usize)
            .checked_mul(n)
            .and_then(|b| b.checked_add(offset));
        if offset % 4 != 0 || end.is_none_or(|e| e > p.bytes.len()) {
            return Err(format!(
                "the {name} stream at byte {offset} ({stride} B × {n} vertices) is not inside \
                 the {} bytes of streams, on a 4-byte boundary",
                p.bytes.len()
            ));
        }
    }
    if let Some((i, v)) = mesh
        .indices
        .iter()
        .enumerate()
        .find(|(_, v)| **v >= p.vertex_count)
    {
        return Err(format!(
            "index {i} is {v}, past the {n} vertices (0 to {})",
            n - 1
        ));
    }
    for (k, s) in mesh.submeshes.iter().enumerate() {
        let end = s.first_index.checked_add(s.index_count);
        if s.index_count % 3 != 0 || end.is_none_or(|e| e as usize > mesh.indices.len()) {
            return Err(format!(
                "sub-mesh {k} (indices {} + {}) is not whole triangles inside the {} indices",
                s.first_index,
                s.index_count,
                mesh.indices.len()
            ));
        }
    }
    Ok(true)
}

impl MeshCache {
    /// An empty cache keeping unnamed keys `keep_frames` frames.
    pub fn new(keep_frames: u64) -> MeshCache {
        MeshCache {
            entries: HashMap::new(),
            keep_frames,
        }
    }

    /// The buffer and bindings of mesh `key`, once both of its uploads have landed.
    pub fn resident(&self, key: u64) -> Option<(&Buffer, &GeoBind)> {
        match &self.entries.get(&key)?.state {
            State::Gpu(r) if r.landed => Some((&r._buffer, &r.bind)),
            _ => None,
        }
    }

    /// Names this frame's (`now`) meshes: a key seen for the first time gets its buffers
    /// and its uploads queued; a key unnamed for more than [`MeshCache::keep_frames`]
    /// frames is freed (its pending uploads cancelled, its buffers retired).
    pub fn prepare(
        &mut self,
        gpu: &Gpu,
        uploads: &mut UploadQueue,
        meshes: &[MeshInstance],
        now: u64,
    ) -> Result<Prepared> {
        let mut out = Prepared::default();
        for inst in meshes {
            let key = inst.mesh.key;
            if let Some(e) = self.entries.get_mut(&key) {
                e.last_named = now;
                continue;
            }
            let mesh = Arc::clone(&inst.mesh);
            let (state, bytes) = match check(&mesh) {
                Err(reason) => (State::Invalid(reason), 0),
                Ok(false) => (State::Empty, 0),
                Ok(true) => {
                    let r = upload(gpu, uploads, &mesh)?;
                    (State::Gpu(Box::new(r)), mesh.byte_size() as u64)
                }
            };
            out.queued += 1;
            let color_flags = match state {
                State::Gpu(_) => color_flags(&mesh),
                _ => 0,
            };
            self.entries.insert(
                key,
                Entry {
                    mesh,
                    state,
                    color_flags,
                    bytes,
                    last_named: now,
                },
            );
        }
        let keep = self.keep_frames;
        self.entries.retain(|_, e| {
            let live = now.saturating_sub(e.last_named) <= keep;
            if !live {
                if let State::Gpu(r) = &e.state {
                    for j in r.jobs {
                        uploads.cancel(j);
                    }
                }
                out.freed += 1;
            }
            live
        });
        Ok(out)
    }
}

/// A mesh's buffers, their uploads queued on `uploads`.
fn upload(gpu: &Gpu, uploads: &mut UploadQueue, mesh: &Arc<MeshAsset>) -> Result<Resident> {
    let name = format!("mesh {:016x}", mesh.key);
    let buffer = gpu.create_buffer(&BufferDesc {
        name: &name,
        size: mesh.packed.bytes.len() as u64,
        // The skinner reads a skinned mesh's bind pose as storage and copies its other
        // streams into each instance's own buffer (`super::skin`).
        usage: vk::BufferUsageFlags::VERTEX_BUFFER
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC,
        location: MemoryLocation::GpuOnly,
    })?;
    let index_bytes: Vec<u8> = bytemuck::cast_slice(&mesh.indices).to_vec();
    let index = gpu.create_buffer(&BufferDesc {
        name: &name,
        size: index_bytes.len() as u64,
        usage: vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
        location: MemoryLocation::GpuOnly,
    })?;
    let offsets = |layout: MeshVertexLayout| -> Vec<u64> {
        layout
            .streams()
            .iter()
            .map(|s| mesh.packed.binding_offset(s.kind) as u64)
            .collect()
    };
    debug_assert_eq!(
        mesh.packed.binding_offset(StreamKind::Position),
        mesh.packed.position_offset
    );
    let bind = GeoBind {
        buffer: buffer.raw(),
        index: index.raw(),
        full: offsets(MeshVertexLayout::Full),
        position: offsets(MeshVertexLayout::PositionOnly),
    };
    let jobs = [
        uploads.push_streams(buffer.raw(), Arc::clone(mesh)),
        uploads.push_buffer(index.raw(), index_bytes),
    ];
    Ok(Resident {
        _buffer: buffer,
        _index: index,
        bind,
        jobs,
        landed: false,
    })
}

impl MeshCache {
    /// Marks the meshes whose uploads have all been staged (copied by the frame that staged
    /// them, before its passes) as landed, drawn from the next frame; returns how many
    /// landed now.
    pub fn mark_landed(&mut self, uploads: &UploadQueue) -> usize {
        let mut landed = 0;
        for e in self.entries.values_mut() {
            if let State::Gpu(r) = &mut e.state {
                if !r.landed && !r.jobs.iter().any(|&j| uploads.is_pending(j)) {
                    r.landed = true;
                    landed += 1;
                }
            }
        }
        landed
    }

    /// Bytes of the meshes whose uploads have landed.
    pub fn resident_bytes(&self) -> u64 {
        self.entries
            .values()
            .filter(|e| matches!(&e.state, State::Gpu(r) if r.landed))
            .map(|e| e.bytes)
            .sum()
    }

    /// Keys held (resident, uploading, empty or refused).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Why the mesh of `key` was refused, when it was.
    pub fn error(&self, key: u64) -> Option<&str> {
        match self.entries.get(&key).map(|e| &e.state) {
            Some(State::Invalid(r)) => Some(r),
            _ => None,
        }
    }
}

/// The draw flag (`material.y` bit 0 in `box_lit.wgsl`): shaded by the voxel light field.
pub(super) const FLAG_LIGHT_FIELD: u32 = 1;
/// The draw flag (push constant `material.y`, bit 1) that says the mesh has a color run, so
/// the lit shader reads COLOR_0 from binding 4 (spec 003 line 54, "GPU vertex streams": the bits
/// ride the draw, not the material, because they belong to the geometry). A mesh without
/// one aims binding 4 at its attribute run and the shader takes white.
pub(super) const FLAG_BASE_COLOR: u32 = 2;
/// The draw flag (`material.y`, bit 2) that says the mesh authored COLOR_1, so the lit
/// shader reads the detail layer's weight from it (spec 003, "GPU vertex streams": the
/// LayerWeight bit); without it the weight is zero (spec 001 line 139).
pub(super) const FLAG_LAYER_WEIGHT: u32 = 4;

/// The sets a mesh's color run holds off their defaults, as draw flags: [`FLAG_BASE_COLOR`]
/// when a COLOR_0 element is not white, [`FLAG_LAYER_WEIGHT`] when a COLOR_1 element is not
/// zero (spec 001, "Vertex colors": a set whose every value is its default is treated as
/// absent). No color run, or one [`check`] has not passed: none.
fn color_flags(mesh: &MeshAsset) -> u32 {
    let p = &mesh.packed;
    let Some(o) = p.color_offset else { return 0 };
    let stride = COLOR_STRIDE as usize;
    let Some(run) = (p.vertex_count as usize)
        .checked_mul(stride)
        .and_then(|n| p.bytes.get(o..o.checked_add(n)?))
    else {
        return 0;
    };
    let mut flags = 0;
    for e in run.chunks_exact(stride) {
        if e[..8].iter().any(|&b| b != 0xff) {
            flags |= FLAG_BASE_COLOR;
        }
        if e[8..12].iter().any(|&b| b != 0) {
            flags |= FLAG_LAYER_WEIGHT;
        }
        if flags == FLAG_BASE_COLOR | FLAG_LAYER_WEIGHT {
            break;
        }
    }
    flags
}

/// A detail layer's weight mask (`MaterialData::detail_weight`): its channel one-hot, scaled
/// by the layer color's alpha, so the shader's weight is `dot(COLOR_1, mask)`.
pub(super) fn detail_weight(d: super::frame::DetailLayer) -> glam::Vec4 {
    let mut m = [0.0f32; 4];
    if let Some(c) = m.get_mut(usize::from(d.channel)) {
        *c = d.color.w.clamp(0.0, 1.0);
    }
    glam::Vec4::from_array(m)
}

/// Material indices the mesh draws fall back to, past the frame's own.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fallbacks {
    /// The frame's material count (an index at or past it is not the frame's).
    pub count: usize,
    /// [`super::frame::Material::flat_white`]: a slot past the instance's list.
    pub flat_white: u32,
    /// [`super::frame::Material::missing`]: an index past the frame's materials.
    pub missing: u32,
}

/// A frame's mesh draws.
pub(super) struct MeshDraws<'a> {
    /// The geometry of each resident mesh drawn, in first-drawn order; a draw's `geo` is
    /// its position here plus the `geo_base` given.
    pub geos: Vec<&'a GeoBind>,
    /// Opaque and cut-out sub-meshes, in frame order.
    pub solid: Vec<Draw>,
    /// Translucent sub-meshes, back to front.
    pub translucent: Vec<Draw>,
    /// Sub-mesh draws skipped because their mesh is still uploading.
    pub skipped: usize,
    /// Instances not drawn because their mesh was refused.
    pub refused: usize,
}

/// How far an instance is from the eye for the translucent order: the distance from the eye
/// to its world-bounds center (perspective), or that center's depth along `forward`
/// (orthographic, where every ray is parallel).
pub(super) fn sort_distance(inst: &MeshInstance, eye: Vec3, forward: Option<Vec3>) -> f32 {
    let (lo, hi) = inst.world_bounds();
    let center = (lo + hi) * 0.5;
    let d = center - eye;
    match forward {
        Some(f) => d.dot(f),
        None => d.length(),
    }
}

impl MeshCache {
    /// The draws of `frame.meshes` whose meshes are resident (landed before this frame's
    /// pump). `forward` is the view direction of an orthographic view (`None`:
    /// perspective).
    /// An instance in `skinned` (by its index in `frame.meshes`) draws from those bindings
    /// (its skinned streams) instead of its mesh's.
    pub fn draws<'a>(
        &'a self,
        frame: &RenderFrame,
        geo_base: usize,
        eye: Vec3,
        forward: Option<Vec3>,
        fallbacks: Fallbacks,
        skinned: &'a HashMap<usize, GeoBind>,
    ) -> MeshDraws<'a> {
        let mut out = MeshDraws {
            geos: Vec::new(),
            solid: Vec::new(),
            translucent: Vec::new(),
            skipped: 0,
            refused: 0,
        };
        let mut geo_of: HashMap<u64, usize> = HashMap::new();
        // The instances the light field shades (none without a usable window).
        let mut field_lit = vec![false; frame.meshes.len()];
        if let Some(w) = frame.voxel_light.as_ref().filter(|w| w.is_consistent()) {
            for &i in &w.lit_instances {
                if let Some(f) = field_lit.get_mut(i as usize) {
                    *f = true;
                }
            }
        }
        let mut sorted: Vec<(f32, usize, Vec<Draw>)> = Vec::new();
        for (i, inst) in frame.meshes.iter().enumerate() {
            let key = inst.mesh.key;
            let Some(entry) = self.entries.get(&key) else {
                continue;
            };
            let r = match &entry.state {
                State::Gpu(r) => r,
                State::Empty => continue,
                State::Invalid(_) => {
                    out.refused += 1;
                    continue;
                }
            };
            // The cached asset's sub-meshes: the ones its buffers were checked against.
            let submeshes = &entry.mesh.submeshes;
            if !r.landed {
                out.skipped += submeshes.len();
                continue;
            }
            let geo = match skinned.get(&i) {
                Some(b) => {
                    out.geos.push(b);
                    geo_base + out.geos.len() - 1
                }
                None => *geo_of.entry(key).or_insert_with(|| {
                    out.geos.push(&r.bind);
                    geo_base + out.geos.len() - 1
                }),
            };
            let mirrored = inst.is_mirrored();
            let mut flags = if field_lit.get(i).copied().unwrap_or(false) {
                FLAG_LIGHT_FIELD
            } else {
                0
            };
            flags |= entry.color_flags;
            let mut blended = Vec::new();
            for s in submeshes {
                if s.index_count == 0 {
                    continue;
                }
                let material = match inst.materials.get(s.slot as usize) {
                    None => fallbacks.flat_white,
                    Some(&m) if (m as usize) < fallbacks.count => m,
                    Some(_) => fallbacks.missing,
                };
                let d = Draw {
                    geo,
                    first_index: s.first_index,
                    index_count: s.index_count,
                    vertex_offset: 0,
                    world: inst.world,
                    material,
                    surface: s.surface,
                    mirrored,
                    casts_shadows: inst.casts_shadows && s.surface != Surface::Translucent,
                    flags,
                };
                if s.surface == Surface::Translucent {
                    blended.push(d);
                } else {
                    out.solid.push(d);
                }
            }
            if !blended.is_empty() {
                sorted.push((sort_distance(inst, eye, forward), i, blended));
            }
        }
        // Farthest first; equal distances keep frame order.
        sorted.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        out.translucent = sorted.into_iter().flat_map(|(_, _, d)| d).collect();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::frame::SubMesh;
    use dh_content::mesh::{box_mesh, pack_streams};
    #[allow(unused_imports)]
    use glam::{Mat4, Quat, Vec3};

    fn asset(key: u64) -> MeshAsset {
        let b = box_mesh([1.0, 1.0, 1.0]);
        let packed = pack_streams(&b.vertices, None, None).unwrap_or_else(|e| panic!("{e}"));
        MeshAsset {
            key,
            packed,
            indices: b.indices.iter().map(|&i| u32::from(i)).collect(),
            submeshes: vec![SubMesh {
                first_index: 0,
                index_count: 36,
                slot: 0,
                surface: Surface::Opaque,
            }],
            bounds: (Vec3::splat(-0.5), Vec3::splat(0.5)),
        }
    }

    #[test]
    fn meshes_are_checked_before_upload() {
        assert_eq!(check(&asset(1)), Ok(true));
        let mut bad = asset(1);
        bad.indices[5] = 24;
        let e = check(&bad).err().unwrap_or_default();
        assert!(e.contains("index 5 is 24"), "{e}");
        let mut bad = asset(1);
        bad.submeshes[0].index_count = 39;
        assert!(check(&bad).is_err());
        let mut bad = asset(1);
        bad.submeshes[0].index_count = 35;
        assert!(check(&bad).is_err(), "not whole triangles");
        let mut bad = asset(1);
        bad.packed.bytes.truncate(100);
        assert!(check(&bad).is_err());
        let mut empty = asset(1);
        empty.indices.clear();
        empty.submeshes.clear();
        assert_eq!(check(&empty), Ok(false));
    }

    /// The color flags come from the run's bytes: white COLOR_0 and zero COLOR_1 are the
    /// defaults, so a run of them sets nothing; one element off either sets its bit.
    #[test]
    fn color_flags_name_the_sets_off_their_defaults() {
        use dh_content::mesh::VertexColor;
        let b = box_mesh([1.0, 1.0, 1.0]);
        let with = |colors: &[VertexColor]| {
            let mut a = asset(1);
            a.packed =
                pack_streams(&b.vertices, None, Some(colors)).unwrap_or_else(|e| panic!("{e}"));
            color_flags(&a)
        };
        let plain = VertexColor {
            color0: [1.0; 4],
            color1: [0.0; 4],
        };
        let n = b.vertices.len();
        assert_eq!(color_flags(&asset(1)), 0, "no color run");
        assert_eq!(with(&vec![plain; n]), 0, "every value its default");
        let mut c = vec![plain; n];
        c[n - 1].color1[2] = 0.5;
        assert_eq!(with(&c), FLAG_LAYER_WEIGHT);
        c[0].color0[3] = 0.5;
        assert_eq!(with(&c), FLAG_LAYER_WEIGHT | FLAG_BASE_COLOR);
        let mut c = vec![plain; n];
        c[3].color0[0] = 0.0;
        assert_eq!(with(&c), FLAG_BASE_COLOR);
        // The mask: blue, at half alpha.
        let d = crate::render::frame::DetailLayer {
            channel: 2,
            color: glam::Vec4::new(0.1, 0.2, 0.3, 0.5),
        };
        assert_eq!(detail_weight(d), glam::Vec4::new(0.0, 0.0, 0.5, 0.0));
    }

    #[test]
    fn translucent_distance_is_to_the_bounds_center() {
        let inst = MeshInstance {
            mesh: Arc::new(asset(1)),
            world: crate::render::math::trs(
                Vec3::new(0.0, 0.0, -5.0),
                Quat::from_xyzw(0.0, 0.0, 0.0, 1.0),
                Vec3::splat(2.0),
            ),
            materials: vec![],
            casts_shadows: false,
        };
        // Center (0, 0, -5): 5 m from the origin, 3 m along -Z from z = -2.
        assert!((sort_distance(&inst, Vec3::ZERO, None) - 5.0).abs() < 1e-5);
        let f = sort_distance(
            &inst,
            Vec3::new(1.0, 7.0, -2.0),
            Some(Vec3::new(0.0, 0.0, -1.0)),
        );
        assert!((f - 3.0).abs() < 1e-5);
    }
}
