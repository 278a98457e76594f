//! GPU skinning (spec: runtime assets, "GPU vertex streams"): `shaders/skin.wgsl` run as a
//! compute dispatch before the passes. A [`SkinRig`] is a skinned mesh's skinning stream and
//! morph deltas, uploaded with the mesh; a [`SkinInstance`] is one drawn copy: its joint
//! palette and morph weights (host-visible, written each frame by [`SkinInstance::set_pose`])
//! and its own buffer laid out exactly as the mesh's ([`PackedMesh`] offsets), whose position
//! and basis streams the dispatch writes and whose other streams are copied once from the
//! mesh ([`Skinner::record_init`]). Every later pass binds the instance buffer in place of
//! the mesh's, so no shading pass changes. [`Skinner::record`] dispatches every instance and
//! raises one barrier: compute shader writes before vertex attribute reads (and copies, for
//! a readback).
//!
//! Buffers are bound by descriptor (one set per instance, from its own pool) rather than by
//! device address, so a device without buffer device address skins too.

use ash::vk;
use dh_content::gltf::{MorphTarget, SkinWeights, SKINNING_STRIDE};
use dh_content::mesh::PackedMesh;
use glam::Mat4;

use crate::error::{invalid, VkContext};
use crate::retire::Retired;
use crate::{
    shaders, Buffer, BufferDesc, ComputePipelineDesc, Gpu, GpuError, MemoryLocation, Pipeline,
    PipelineLayout, PipelineLayoutDesc, Result, ShaderEntry,
};

/// Invocations per workgroup (`@workgroup_size` in `skin.wgsl`).
pub const SKIN_WORKGROUP: u32 = 64;

/// The push constants of `skin.wgsl` (word offsets).
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Params {
    vertex_count: u32,
    src_position: u32,
    src_basis: u32,
    skinning: u32,
    morph: u32,
    targets: u32,
    skinned: u32,
    joints: u32,
    weights: u32,
    dst_position: u32,
    dst_basis: u32,
    pose_base: u32,
}

/// The skinning pipeline.
pub struct Skinner {
    gpu: Gpu,
    pipeline: Pipeline,
}

impl std::fmt::Debug for Skinner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skinner").finish_non_exhaustive()
    }
}

/// A skinned mesh's rig data on the GPU: its skinning stream and morph deltas.
pub struct SkinRig {
    buffer: Buffer,
    vertex_count: u32,
    skinning: Option<u32>,
    morph: u32,
    targets: u32,
}

impl std::fmt::Debug for SkinRig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkinRig")
            .field("vertices", &self.vertex_count)
            .field("skinned", &self.skinning.is_some())
            .field("targets", &self.targets)
            .finish()
    }
}

/// One skinned drawable: its pose and its own copy of the mesh's streams.
pub struct SkinInstance {
    gpu: Gpu,
    out: Buffer,
    pose: Buffer,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    params: Params,
    mesh: vk::Buffer,
    mesh_size: u64,
    /// Floats in one section of the pose buffer.
    section: u32,
}

/// Sections of an instance's pose buffer: one per frame in flight.
pub const POSE_SECTIONS: usize = crate::MAX_FRAMES_IN_FLIGHT;

impl std::fmt::Debug for SkinInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkinInstance")
            .field("vertices", &self.params.vertex_count)
            .field("joints", &self.params.joints)
            .finish()
    }
}

impl Drop for SkinInstance {
    fn drop(&mut self) {
        self.gpu.retire_pending(Retired::DescriptorPool(self.pool));
    }
}

fn words(bytes: usize, what: &str) -> Result<u32> {
    if !bytes.is_multiple_of(4) {
        return Err(invalid(
            "skin instance",
            format!("the {what} at byte {bytes} is not on a 4-byte boundary"),
        ));
    }
    u32::try_from(bytes / 4)
        .map_err(|_| invalid("skin instance", format!("the {what} is past 16 GiB")))
}

/// The rig buffer's bytes: the skinning stream (when given), then the morph deltas
/// target-major, six floats a vertex (position, normal). Returns the bytes, the skinning
/// stream's byte offset and the deltas' byte offset.
pub fn rig_bytes(
    vertex_count: usize,
    skinning: Option<&[u8]>,
    targets: &[MorphTarget],
) -> std::result::Result<(Vec<u8>, Option<usize>, usize), String> {
    let mut bytes = Vec::new();
    let skin_at = match skinning {
        Some(s) => {
            if s.len() != vertex_count * SKINNING_STRIDE as usize {
                return Err(format!(
                    "the skinning stream is {} B, not {} B for {vertex_count} vertices",
                    s.len(),
                    vertex_count * SKINNING_STRIDE as usize
                ));
            }
            bytes.extend_from_slice(s);
            Some(0)
        }
        None => None,
    };
    let morph_at = bytes.len();
    for (k, t) in targets.iter().enumerate() {
        if t.position.len() != vertex_count
            || t.normal.as_ref().is_some_and(|n| n.len() != vertex_count)
        {
            return Err(format!(
                "morph target {k} has {} deltas, not one per vertex ({vertex_count})",
                t.position.len()
            ));
        }
        for (i, p) in t.position.iter().enumerate() {
            let n = t.normal.as_ref().map_or([0.0; 3], |n| n[i]);
            bytes.extend_from_slice(bytemuck::cast_slice(&[p[0], p[1], p[2], n[0], n[1], n[2]]));
        }
    }
    // A storage buffer is never empty.
    if bytes.is_empty() {
        bytes.resize(16, 0);
    }
    Ok((bytes, skin_at, morph_at))
}

/// The skinning stream of a mesh's vertices, one [`SkinWeights`] per primitive in vertex
/// order (see [`dh_content::gltf::pack_skinning`]); `None` past the 8-bit joint range.
pub fn skinning_stream(parts: &[&SkinWeights]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for p in parts {
        out.extend(dh_content::gltf::pack_skinning(p)?);
    }
    Some(out)
}

impl Skinner {
    /// Builds the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Skinner> {
        let storage = |b: u32| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        };
        let layout = PipelineLayout::new(
            gpu,
            &PipelineLayoutDesc {
                name: "skin",
                sets: vec![vec![storage(0), storage(1), storage(2), storage(3)]],
                push_constants: vec![vk::PushConstantRange {
                    stage_flags: vk::ShaderStageFlags::COMPUTE,
                    offset: 0,
                    size: std::mem::size_of::<Params>() as u32,
                }],
                push_descriptor_sets: Vec::new(),
            },
        )?;
        let pipeline = Pipeline::compute(
            gpu,
            &ComputePipelineDesc {
                name: "skin",
                layout: &layout,
                shader: ShaderEntry::new(&shaders::SKIN, "cs_main"),
            },
        )?;
        Ok(Skinner {
            gpu: gpu.clone(),
            pipeline,
        })
    }

    /// Uploads a mesh's rig (its [`rig_bytes`]) into a host-visible storage buffer (a rig
    /// is written once and read by every instance of the mesh).
    pub fn rig(
        &self,
        vertex_count: u32,
        bytes: &[u8],
        skinning: Option<usize>,
        morph: usize,
        targets: usize,
    ) -> Result<SkinRig> {
        let mut buffer = self.gpu.create_buffer(&BufferDesc {
            name: "skin rig",
            size: bytes.len().max(16) as u64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::CpuToGpu,
        })?;
        let map = buffer
            .mapped_slice_mut()
            .ok_or_else(|| invalid("skin rig", "the rig buffer is not mapped"))?;
        map[..bytes.len()].copy_from_slice(bytes);
        Ok(SkinRig {
            buffer,
            vertex_count,
            skinning: skinning.map(|s| words(s, "skinning stream")).transpose()?,
            morph: words(morph, "morph deltas")?,
            targets: u32::try_from(targets)
                .map_err(|_| invalid("skin rig", "more morph targets than a u32 counts"))?,
        })
    }

    /// A drawable copy of the mesh in `mesh` (its streams packed as `packed`, the buffer
    /// usable as a storage buffer and a copy source) deformed by `rig` with `joints` joints.
    pub fn instance(
        &self,
        mesh: &Buffer,
        packed: &PackedMesh,
        rig: &SkinRig,
        joints: usize,
    ) -> Result<SkinInstance> {
        if packed.vertex_count != rig.vertex_count {
            return Err(invalid(
                "skin instance",
                format!(
                    "the mesh has {} vertices, its rig {}",
                    packed.vertex_count, rig.vertex_count
                ),
            ));
        }
        let size = packed.bytes.len() as u64;
        if mesh.size() < size {
            return Err(invalid(
                "skin instance",
                format!("the mesh buffer is {} B, its streams {size} B", mesh.size()),
            ));
        }
        let out = self.gpu.create_buffer(&BufferDesc {
            name: "skinned streams",
            size: size.max(16),
            usage: vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::VERTEX_BUFFER
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::GpuOnly,
        })?;
        let weights_at = joints
            .checked_mul(16)
            .ok_or_else(|| invalid("skin instance", "too many joints"))?;
        let section = (weights_at + rig.targets as usize).max(4).div_ceil(4) * 4;
        let pose = self.gpu.create_buffer(&BufferDesc {
            name: "skin pose",
            size: (section * POSE_SECTIONS * 4) as u64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::CpuToGpu,
        })?;
        let params = Params {
            vertex_count: packed.vertex_count,
            src_position: words(packed.position_offset, "position stream")?,
            src_basis: words(packed.basis_offset, "basis stream")?,
            skinning: rig.skinning.unwrap_or(0),
            morph: rig.morph,
            targets: rig.targets,
            skinned: u32::from(rig.skinning.is_some()),
            joints: u32::try_from(joints)
                .map_err(|_| invalid("skin instance", "too many joints"))?,
            weights: u32::try_from(weights_at)
                .map_err(|_| invalid("skin instance", "too many joints"))?,
            dst_position: words(packed.position_offset, "position stream")?,
            dst_basis: words(packed.basis_offset, "basis stream")?,
            pose_base: 0,
        };
        let device = self.gpu.device();
        let sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: 4,
        }];
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&sizes);
        // SAFETY: the create info and its sizes outlive the call.
        let pool =
            unsafe { device.create_descriptor_pool(&info, None) }.vk("vkCreateDescriptorPool")?;
        let layouts = [*self
            .pipeline
            .layout()
            .set_layouts()
            .first()
            .ok_or(GpuError::Invalid {
                what: "skin layout",
                reason: "no set layout".into(),
            })?];
        let alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        // SAFETY: the pool holds exactly this one set.
        let set = match unsafe { device.allocate_descriptor_sets(&alloc) } {
            Ok(s) if !s.is_empty() => s[0],
            other => {
                // SAFETY: the pool is unused.
                unsafe { device.destroy_descriptor_pool(pool, None) };
                return Err(match other {
                    Err(result) => GpuError::Vk {
                        call: "vkAllocateDescriptorSets",
                        result,
                    },
                    Ok(_) => invalid("skin set", "none allocated"),
                });
            }
        };
        let info = |b: &Buffer| {
            [vk::DescriptorBufferInfo::default()
                .buffer(b.raw())
                .range(vk::WHOLE_SIZE)]
        };
        let infos = [info(mesh), info(&rig.buffer), info(&pose), info(&out)];
        let writes: Vec<vk::WriteDescriptorSet<'_>> = infos
            .iter()
            .enumerate()
            .map(|(b, i)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(b as u32)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(i)
            })
            .collect();
        // SAFETY: the set is fresh and unused; the infos outlive the call.
        unsafe { device.update_descriptor_sets(&writes, &[]) };
        let mut inst = SkinInstance {
            gpu: self.gpu.clone(),
            out,
            pose,
            pool,
            set,
            params,
            mesh: mesh.raw(),
            mesh_size: size,
            section: u32::try_from(section)
                .map_err(|_| invalid("skin instance", "too many joints"))?,
        };
        inst.set_pose(
            &vec![Mat4::IDENTITY; joints],
            &vec![0.0; rig.targets as usize],
        );
        Ok(inst)
    }

    /// Records the one-off copy of the mesh's streams into the instance's buffer (its
    /// attribute, lightmap and color runs are the mesh's; the dispatch rewrites position and
    /// basis), with the barrier that orders it before the dispatch.
    pub fn record_init(&self, cmd: vk::CommandBuffer, inst: &SkinInstance) {
        let region = [vk::BufferCopy::default().size(inst.mesh_size)];
        let barrier = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(
                vk::PipelineStageFlags2::COMPUTE_SHADER
                    | vk::PipelineStageFlags2::VERTEX_ATTRIBUTE_INPUT,
            )
            .dst_access_mask(
                vk::AccessFlags2::SHADER_STORAGE_WRITE
                    | vk::AccessFlags2::SHADER_STORAGE_READ
                    | vk::AccessFlags2::VERTEX_ATTRIBUTE_READ,
            )];
        // SAFETY: `cmd` is recording; both buffers are live for the submit and the mesh
        // holds `mesh_size` bytes (checked at creation).
        unsafe {
            let d = self.gpu.device();
            d.cmd_copy_buffer(cmd, inst.mesh, inst.out.raw(), &region);
            d.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().memory_barriers(&barrier),
            );
        }
    }

    /// Dispatches every instance, then one barrier: the skinned streams are written before
    /// any vertex attribute read, copy or host read that follows.
    pub fn record(&self, cmd: vk::CommandBuffer, instances: &[&SkinInstance]) {
        if instances.is_empty() {
            return;
        }
        let d = self.gpu.device();
        self.gpu.cmd_begin_label(cmd, "skin");
        // The previous frame's vertex reads of these buffers finish before they are
        // rewritten.
        let before = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::VERTEX_ATTRIBUTE_INPUT)
            .dst_stage_mask(vk::PipelineStageFlags2::COMPUTE_SHADER)];
        let after = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COMPUTE_SHADER)
            .src_access_mask(vk::AccessFlags2::SHADER_STORAGE_WRITE)
            .dst_stage_mask(
                vk::PipelineStageFlags2::VERTEX_ATTRIBUTE_INPUT
                    | vk::PipelineStageFlags2::COPY
                    | vk::PipelineStageFlags2::HOST,
            )
            .dst_access_mask(
                vk::AccessFlags2::VERTEX_ATTRIBUTE_READ
                    | vk::AccessFlags2::TRANSFER_READ
                    | vk::AccessFlags2::HOST_READ,
            )];
        // SAFETY: `cmd` is recording outside a render pass; every instance's set names live
        // buffers, and the push constants match the layout's one range.
        unsafe {
            d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&before));
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline.raw());
            for inst in instances {
                d.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    self.pipeline.layout().raw(),
                    0,
                    &[inst.set],
                    &[],
                );
                d.cmd_push_constants(
                    cmd,
                    self.pipeline.layout().raw(),
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    bytemuck::bytes_of(&inst.params),
                );
                d.cmd_dispatch(cmd, inst.params.vertex_count.div_ceil(SKIN_WORKGROUP), 1, 1);
            }
            d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&after));
        }
        self.gpu.cmd_end_label(cmd);
    }
}

impl SkinInstance {
    /// Writes the joint palette (one matrix per joint, `joint world × inverse bind` in the
    /// mesh node's space) and the morph weights the next dispatch reads; missing entries are
    /// identity / zero, extra ones are ignored. The caller writes only once the frame that
    /// last read it has completed (the renderer's frame ring).
    pub fn set_pose(&mut self, palette: &[Mat4], weights: &[f32]) {
        self.set_pose_in(0, palette, weights);
    }

    /// [`SkinInstance::set_pose`] into section `section` of the pose buffer (a frame slot:
    /// the slot's previous frame has completed, so nothing in flight reads it), which the
    /// next [`Skinner::record`] reads.
    pub fn set_pose_in(&mut self, section: usize, palette: &[Mat4], weights: &[f32]) {
        let joints = self.params.joints as usize;
        let targets = self.params.targets as usize;
        let section = section % POSE_SECTIONS;
        let base = section * self.section as usize;
        self.params.pose_base = base as u32;
        let Some(map) = self.pose.mapped_slice_mut() else {
            return;
        };
        let floats: &mut [f32] =
            bytemuck::cast_slice_mut(&mut map[base * 4..(base + joints * 16 + targets) * 4]);
        for j in 0..joints {
            let m = palette.get(j).copied().unwrap_or(Mat4::IDENTITY);
            floats[j * 16..j * 16 + 16].copy_from_slice(&m.to_cols_array());
        }
        for k in 0..targets {
            floats[joints * 16 + k] = weights.get(k).copied().unwrap_or(0.0);
        }
    }

    /// The instance's buffer: the mesh's streams at the mesh's offsets, position and basis
    /// skinned.
    pub fn buffer(&self) -> &Buffer {
        &self.out
    }

    /// Vertices a dispatch skins.
    pub fn vertex_count(&self) -> u32 {
        self.params.vertex_count
    }
}

/// A skinned mesh's rig as a frame hands it to the renderer: the bytes of [`rig_bytes`],
/// shared by every instance of the mesh and uploaded once per [`SkinRigAsset::key`].
#[derive(Debug, Clone, PartialEq)]
pub struct SkinRigAsset {
    /// Identity for the renderer's cache: two rigs with one key hold the same bytes.
    pub key: u64,
    /// The mesh's vertices.
    pub vertex_count: u32,
    /// [`rig_bytes`]' bytes.
    pub bytes: Vec<u8>,
    /// The skinning stream's byte offset, `None` for a mesh only morphed.
    pub skinning: Option<usize>,
    /// The morph deltas' byte offset.
    pub morph: usize,
    /// Morph targets.
    pub targets: usize,
}

impl SkinRigAsset {
    /// The rig of a mesh of `vertex_count` vertices: its skinning stream (see
    /// [`skinning_stream`]) and morph targets.
    pub fn new(
        key: u64,
        vertex_count: usize,
        skinning: Option<&[u8]>,
        targets: &[MorphTarget],
    ) -> std::result::Result<SkinRigAsset, String> {
        let (bytes, skinning, morph) = rig_bytes(vertex_count, skinning, targets)?;
        Ok(SkinRigAsset {
            key,
            vertex_count: u32::try_from(vertex_count)
                .map_err(|_| format!("{vertex_count} vertices is more than a mesh holds"))?,
            bytes,
            skinning,
            morph,
            targets: targets.len(),
        })
    }
}

/// One skinned drawable of a frame: which of [`super::RenderFrame::meshes`] it deforms, its
/// identity across frames, its rig and this frame's pose.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinnedMesh {
    /// The index into the frame's `meshes` it deforms (drawn from its own skinned streams,
    /// in every pass: shadows, prepass, opaque, captures).
    pub instance: usize,
    /// Identity across frames (one skinned buffer per id).
    pub id: u64,
    /// The mesh's rig.
    pub rig: std::sync::Arc<SkinRigAsset>,
    /// The joint palette, `joint world × inverse bind` in the mesh node's space.
    pub palette: Vec<Mat4>,
    /// The morph weights, one per target.
    pub weights: Vec<f32>,
}

/// One live skinned drawable in the renderer.
struct Live {
    inst: SkinInstance,
    bind: super::passes::GeoBind,
    mesh_key: u64,
    rig_key: u64,
    joints: usize,
    initialized: bool,
    last_named: u64,
}

/// The renderer's skinning: the pipeline (built on first use), rigs by key and one skinned
/// buffer per [`SkinnedMesh::id`], freed once unnamed for `keep_frames` frames.
pub(super) struct SkinState {
    skinner: Option<Skinner>,
    rigs: std::collections::HashMap<u64, (SkinRig, u64)>,
    live: std::collections::HashMap<u64, Live>,
    keep_frames: u64,
}

impl std::fmt::Debug for SkinState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkinState")
            .field("rigs", &self.rigs.len())
            .field("live", &self.live.len())
            .finish()
    }
}

impl SkinState {
    /// No skinning yet.
    pub fn new(keep_frames: u64) -> SkinState {
        SkinState {
            skinner: None,
            rigs: std::collections::HashMap::new(),
            live: std::collections::HashMap::new(),
            keep_frames,
        }
    }

    /// Makes a skinned buffer for every skinned drawable of `frame` whose mesh is resident
    /// (`resident(key)`: the landed mesh buffer and its bindings), writes this frame's pose
    /// into section `slot`, frees what is unnamed past the keep window, and returns the
    /// bindings each drawn instance (by its index in `frame.meshes`) draws from instead of
    /// its mesh's.
    pub fn prepare<'m>(
        &mut self,
        gpu: &Gpu,
        frame: &super::RenderFrame,
        slot: usize,
        now: u64,
        resident: impl Fn(u64) -> Option<(&'m Buffer, &'m super::passes::GeoBind)>,
    ) -> Result<std::collections::HashMap<usize, super::passes::GeoBind>> {
        let mut binds = std::collections::HashMap::new();
        for s in &frame.skinned {
            let Some(mesh) = frame.meshes.get(s.instance) else {
                continue;
            };
            let Some((buffer, mesh_bind)) = resident(mesh.mesh.key) else {
                continue;
            };
            if self.skinner.is_none() {
                self.skinner = Some(Skinner::new(gpu)?);
            }
            let Some(skinner) = self.skinner.as_ref() else {
                continue;
            };
            if !self.rigs.contains_key(&s.rig.key) {
                let r = &s.rig;
                let rig = skinner.rig(r.vertex_count, &r.bytes, r.skinning, r.morph, r.targets)?;
                self.rigs.insert(r.key, (rig, now));
            }
            let Some((rig, named)) = self.rigs.get_mut(&s.rig.key) else {
                continue;
            };
            *named = now;
            let stale = self.live.get(&s.id).is_none_or(|l| {
                l.mesh_key != mesh.mesh.key || l.rig_key != s.rig.key || l.joints != s.palette.len()
            });
            if stale {
                let inst = skinner.instance(buffer, &mesh.mesh.packed, rig, s.palette.len())?;
                let bind = super::passes::GeoBind {
                    buffer: inst.buffer().raw(),
                    index: mesh_bind.index,
                    full: mesh_bind.full.clone(),
                    position: mesh_bind.position.clone(),
                };
                self.live.insert(
                    s.id,
                    Live {
                        inst,
                        bind,
                        mesh_key: mesh.mesh.key,
                        rig_key: s.rig.key,
                        joints: s.palette.len(),
                        initialized: false,
                        last_named: now,
                    },
                );
            }
            if let Some(l) = self.live.get_mut(&s.id) {
                l.last_named = now;
                l.inst.set_pose_in(slot, &s.palette, &s.weights);
                binds.insert(
                    s.instance,
                    super::passes::GeoBind {
                        buffer: l.bind.buffer,
                        index: l.bind.index,
                        full: l.bind.full.clone(),
                        position: l.bind.position.clone(),
                    },
                );
            }
        }
        let keep = self.keep_frames;
        self.live
            .retain(|_, l| now.saturating_sub(l.last_named) <= keep);
        self.rigs
            .retain(|_, (_, named)| now.saturating_sub(*named) <= keep);
        Ok(binds)
    }

    /// Records the frame's skinning before the passes: each new buffer's one-off copy of
    /// its mesh's streams, then one dispatch per drawable named this frame (`now`) and the
    /// barrier to the vertex reads.
    pub fn record(&mut self, cmd: vk::CommandBuffer, now: u64) {
        let Some(skinner) = self.skinner.as_ref() else {
            return;
        };
        let mut ids: Vec<u64> = self
            .live
            .iter()
            .filter(|(_, l)| l.last_named == now)
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        for id in &ids {
            if let Some(l) = self.live.get_mut(id) {
                if !l.initialized {
                    skinner.record_init(cmd, &l.inst);
                    l.initialized = true;
                }
            }
        }
        let list: Vec<&SkinInstance> = ids
            .iter()
            .filter_map(|id| self.live.get(id).map(|l| &l.inst))
            .collect();
        skinner.record(cmd, &list);
    }
}
