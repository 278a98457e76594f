//! Recording the passes of one frame. Each pass goes into a primary command buffer of its
//! own, so the passes record in parallel (one worker's transient pool per thread) and are
//! submitted in pass order; the barriers at the start of each pass order it after the
//! passes submitted before it. Every pass is labelled for RenderDoc and, with a timer,
//! bracketed by its timestamp pair.

use std::sync::Arc;

use ash::vk;
use dh_content::mesh::MeshVertexLayout;

use super::frame::{Post, Surface};
use super::gpu_data::{BloomParams, DrawPush, PostParams, SCREEN_PUSH_BYTES};
use glam::Mat4;

use super::overlay::{OverlayDraw, OverlayGpu};
use super::shadow::CASCADES;
use super::tonemap::BloomPlan;
use crate::{CaptureTarget, Gpu, Image, PassQueries, Pipeline, PipelineLayout};

/// The HDR scene format.
pub const HDR_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
/// The depth format (prepass and shadow atlas).
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;
/// One shadow cascade's edge, texels; the atlas holds the four in a 2 × 2 grid.
pub const CASCADE_RESOLUTION: u32 = 1024;
/// Bytes of the per-draw push constant: clip-from-local (64), world-from-local as three
/// rows (48), the material (16): the 128 bytes every device allows.
pub const DRAW_PUSH_BYTES: u32 = std::mem::size_of::<DrawPush>() as u32;

/// The passes of a frame, in submission order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pass {
    /// The staging ring's copies (recorded on the calling thread).
    Upload,
    /// The sun's four cascades.
    Shadows,
    /// Depth only, `MeshVertexLayout::PositionOnly`.
    Prepass,
    /// Lit and unlit opaque geometry, cut-out geometry, the sky, then translucent geometry
    /// blended back to front.
    Opaque,
    /// The bloom pyramid.
    Bloom,
    /// Exposure, bloom and the tonemap into the capture (and its readback).
    Resolve,
}

impl Pass {
    /// Every pass, in submission order.
    pub const ALL: [Pass; 6] = [
        Pass::Upload,
        Pass::Shadows,
        Pass::Prepass,
        Pass::Opaque,
        Pass::Bloom,
        Pass::Resolve,
    ];

    /// The name its timings and debug label carry.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Upload => "upload",
            Pass::Shadows => "shadows",
            Pass::Prepass => "depth prepass",
            Pass::Opaque => "opaque + sky",
            Pass::Bloom => "bloom",
            Pass::Resolve => "resolve",
        }
    }

    /// Its position in [`Pass::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The renderer's pipelines, layouts and samplers (shared, read-only, by every recording
/// thread).
pub(super) struct Pipelines {
    pub gpu: Gpu,
    pub box_layout: Arc<PipelineLayout>,
    pub screen_layout: Arc<PipelineLayout>,
    pub shadow: Pipeline,
    /// Cut-out casters: alpha-tested depth.
    pub shadow_cutout: Pipeline,
    pub prepass: Pipeline,
    /// The prepass for a mirroring world (clockwise front faces).
    pub prepass_mirror: Pipeline,
    /// Cut-out depth, two-sided, alpha-tested.
    pub prepass_cutout: Pipeline,
    pub lit: Pipeline,
    /// The lit pass for a mirroring world.
    pub lit_mirror: Pipeline,
    /// Cut-out shading, two-sided, alpha-tested.
    pub lit_cutout: Pipeline,
    /// Translucent shading: blended, depth tested, not written.
    pub translucent: Pipeline,
    /// Translucent shading for a mirroring world.
    pub translucent_mirror: Pipeline,
    pub sky: Pipeline,
    pub prefilter: Pipeline,
    pub down: Pipeline,
    pub up: Pipeline,
    pub post: Pipeline,
    pub linear: vk::Sampler,
    /// Authored textures: trilinear (linear within a level and between levels, every
    /// level), repeating.
    pub repeat: vk::Sampler,
    /// Authored textures with `client.display.mipmaps` off: bilinear on the top level
    /// alone (maxLod 0), repeating.
    pub repeat_top: vk::Sampler,
    /// Nearest texel, clamped ([`super::frame::Sampling::Nearest`]).
    pub nearest: vk::Sampler,
    /// Point within a level, linear between levels, clamped
    /// ([`super::frame::Sampling::NearestMipLinear`]).
    pub nearest_mip: vk::Sampler,
    pub compare: vk::Sampler,
}

impl Drop for Pipelines {
    fn drop(&mut self) {
        for s in [
            self.linear,
            self.repeat,
            self.repeat_top,
            self.nearest,
            self.nearest_mip,
            self.compare,
        ] {
            self.gpu.retire_pending(crate::Retired::Sampler(s));
        }
    }
}

/// One frame slot's render targets, kept while the size and bloom shape stay.
pub(super) struct Targets {
    pub width: u32,
    pub height: u32,
    pub plan: Option<BloomPlan>,
    /// The forward passes' samples (`client.render.msaa` as the device allows it).
    pub samples: u32,
    /// The resolved (single-sample) HDR frame bloom and the resolve read.
    pub hdr: Image,
    /// The multisampled HDR frame the forward passes draw into (`None` at one sample),
    /// resolved into `hdr` as the opaque pass ends.
    pub hdr_ms: Option<Image>,
    /// The forward passes' depth, at their samples.
    pub depth: Image,
    /// At MSAA, `depth`'s sample 0 resolved as the opaque pass ends (the overlay's lines
    /// test against it); `None` at one sample, where `depth` itself serves.
    pub depth_resolved: Option<Image>,
    pub atlas: Image,
    pub down_chain: Vec<Image>,
    pub up_chain: Vec<Image>,
    pub capture: CaptureTarget,
}

/// A geometry buffer's bindings: the vertex streams of each layout and the indices.
pub(super) struct GeoBind {
    pub buffer: vk::Buffer,
    pub index: vk::Buffer,
    pub full: Vec<u64>,
    pub position: Vec<u64>,
}

/// One draw: an index range of geometry buffer `geo` (0 the static batch, 1 the live
/// boxes, then the frame's resident meshes), its pose, material and surface.
#[derive(Debug, Clone, Copy)]
pub(super) struct Draw {
    pub geo: usize,
    pub first_index: u32,
    pub index_count: u32,
    pub vertex_offset: i32,
    pub world: Mat4,
    pub material: u32,
    /// Which pass draws it.
    pub surface: Surface,
    /// Whether `world` mirrors (drawn with clockwise front faces).
    pub mirrored: bool,
    /// Whether it is drawn into the shadow cascades.
    pub casts_shadows: bool,
    /// The draw's flag word (the push constant's `material.y`).
    pub flags: u32,
}

impl Draw {
    /// A box draw: opaque, not mirrored, casting shadows.
    pub fn boxes(
        geo: usize,
        first_index: u32,
        index_count: u32,
        vertex_offset: i32,
        material: u32,
    ) -> Draw {
        Draw {
            geo,
            first_index,
            index_count,
            vertex_offset,
            world: Mat4::IDENTITY,
            material,
            surface: Surface::Opaque,
            mirrored: false,
            casts_shadows: true,
            flags: 0,
        }
    }
}

/// Everything the passes read; `Sync`, shared by the recording threads.
pub(super) struct PassCtx<'a> {
    pub gpu: &'a Gpu,
    pub pipes: &'a Pipelines,
    pub t: &'a Targets,
    /// Geometry by a draw's `geo` (`None`: not resident).
    pub geos: &'a [Option<&'a GeoBind>],
    /// Opaque and cut-out draws (boxes and meshes).
    pub draws: &'a [Draw],
    /// Translucent draws, back to front.
    pub translucent: &'a [Draw],
    pub frame_set: vk::DescriptorSet,
    /// Set 1 per material index (its texture, or the white texel).
    pub material_sets: &'a [vk::DescriptorSet],
    pub white_set: vk::DescriptorSet,
    pub bloom_sets: &'a [vk::DescriptorSet],
    pub post_set: vk::DescriptorSet,
    pub view_proj: Mat4,
    pub cascades_vp: [Mat4; CASCADES],
    pub sun_on: bool,
    pub post: Post,
    pub readback: bool,
    pub queries: [Option<PassQueries>; 6],
    /// The debug overlays (render/overlay.rs), drawn into the capture after the resolve.
    pub overlay: Option<(&'a OverlayGpu, OverlayDraw)>,
}

/// Assigns the drawing passes to `workers` workers, heaviest first onto the least loaded
/// (the costs are draw calls), each worker's passes in submission order.
pub(super) fn assign(passes: &[(Pass, u64)], workers: usize) -> Vec<Vec<Pass>> {
    let workers = workers.clamp(1, passes.len().max(1));
    let mut order: Vec<(Pass, u64)> = passes.to_vec();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut load = vec![0u64; workers];
    let mut out: Vec<Vec<Pass>> = vec![Vec::new(); workers];
    for (pass, cost) in order {
        let (w, _) = load
            .iter()
            .enumerate()
            .min_by_key(|(i, l)| (**l, *i))
            .unwrap_or((0, &0));
        load[w] += cost.max(1);
        out[w].push(pass);
    }
    for list in &mut out {
        list.sort();
    }
    out.retain(|l| !l.is_empty());
    out
}

/// The post push constants; `plan` gives the final tent's sample scale (PPv2's uber pass
/// upsamples the resolved pyramid once more as it combines).
pub(super) fn post_push(post: &Post, plan: Option<BloomPlan>) -> PostParams {
    let h = post.hable;
    let bloom = post.bloom.map_or(0.0, |b| b.intensity);
    let scale = plan.map_or(1.0, |p| p.sample_scale);
    PostParams {
        a: glam::Vec4::new(post.exposure, bloom, post.tonemap.index() as f32, h.a),
        b: glam::Vec4::new(h.b, h.c, h.d, h.e),
        c: glam::Vec4::new(h.f, h.w, scale, 0.0),
    }
}

pub(super) struct Barrier {
    pub old: vk::ImageLayout,
    pub new: vk::ImageLayout,
    pub src_stage: vk::PipelineStageFlags2,
    pub src_access: vk::AccessFlags2,
    pub dst_stage: vk::PipelineStageFlags2,
    pub dst_access: vk::AccessFlags2,
}

pub(super) fn barrier(gpu: &Gpu, cmd: vk::CommandBuffer, image: &Image, b: Barrier) {
    let barriers = [vk::ImageMemoryBarrier2::default()
        .src_stage_mask(b.src_stage)
        .src_access_mask(b.src_access)
        .dst_stage_mask(b.dst_stage)
        .dst_access_mask(b.dst_access)
        .old_layout(b.old)
        .new_layout(b.new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image.raw())
        .subresource_range(image.full_range())];
    // SAFETY: `cmd` is recording; the image is live for the submit.
    unsafe {
        gpu.device().cmd_pipeline_barrier2(
            cmd,
            &vk::DependencyInfo::default().image_memory_barriers(&barriers),
        )
    };
}

fn to_color_attachment(gpu: &Gpu, cmd: vk::CommandBuffer, image: &Image) {
    // The earlier frame on this slot read (sampled, copied) and wrote it: the transition
    // waits for both before discarding.
    barrier(
        gpu,
        cmd,
        image,
        Barrier {
            old: vk::ImageLayout::UNDEFINED,
            new: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            src_stage: vk::PipelineStageFlags2::FRAGMENT_SHADER
                | vk::PipelineStageFlags2::COPY
                | vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
            src_access: vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            dst_stage: vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
            dst_access: vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
        },
    );
}

fn color_to_sampled(gpu: &Gpu, cmd: vk::CommandBuffer, image: &Image) {
    barrier(
        gpu,
        cmd,
        image,
        Barrier {
            old: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            new: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            src_stage: vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
            src_access: vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            dst_stage: vk::PipelineStageFlags2::FRAGMENT_SHADER,
            dst_access: vk::AccessFlags2::SHADER_SAMPLED_READ,
        },
    );
}

pub(super) fn viewport(gpu: &Gpu, cmd: vk::CommandBuffer, x: u32, y: u32, w: u32, h: u32) {
    let vp = vk::Viewport {
        x: x as f32,
        y: y as f32,
        width: w as f32,
        height: h as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    };
    let sc = vk::Rect2D {
        offset: vk::Offset2D {
            x: x as i32,
            y: y as i32,
        },
        extent: vk::Extent2D {
            width: w,
            height: h,
        },
    };
    // SAFETY: `cmd` is recording with a graphics pipeline whose viewport and scissor are
    // dynamic.
    unsafe {
        gpu.device().cmd_set_viewport(cmd, 0, &[vp]);
        gpu.device().cmd_set_scissor(cmd, 0, &[sc]);
    }
}

fn color_attachment(
    view: vk::ImageView,
    clear: Option<[f32; 4]>,
) -> vk::RenderingAttachmentInfo<'static> {
    vk::RenderingAttachmentInfo::default()
        .image_view(view)
        .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
        .load_op(if clear.is_some() {
            vk::AttachmentLoadOp::CLEAR
        } else {
            vk::AttachmentLoadOp::DONT_CARE
        })
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue {
            color: vk::ClearColorValue {
                float32: clear.unwrap_or([0.0; 4]),
            },
        })
}

pub(super) fn begin_rendering(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    w: u32,
    h: u32,
    colors: &[vk::RenderingAttachmentInfo<'_>],
    depth: Option<&vk::RenderingAttachmentInfo<'_>>,
) {
    let mut info = vk::RenderingInfo::default()
        .render_area(vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: vk::Extent2D {
                width: w,
                height: h,
            },
        })
        .layer_count(1)
        .color_attachments(colors);
    if let Some(d) = depth {
        info = info.depth_attachment(d);
    }
    // SAFETY: `cmd` is a recording primary outside any pass; the attachments are in the
    // layouts named and dynamic rendering is enabled.
    unsafe { gpu.device().cmd_begin_rendering(cmd, &info) };
}

pub(super) fn end_rendering(gpu: &Gpu, cmd: vk::CommandBuffer) {
    // SAFETY: a pass begun by `begin_rendering` is open on `cmd`.
    unsafe { gpu.device().cmd_end_rendering(cmd) };
}

fn depth_clear(view: vk::ImageView) -> vk::RenderingAttachmentInfo<'static> {
    vk::RenderingAttachmentInfo::default()
        .image_view(view)
        .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue {
                depth: 1.0,
                stencil: 0,
            },
        })
}

fn depth_to_attachment(gpu: &Gpu, cmd: vk::CommandBuffer, image: &Image) {
    barrier(
        gpu,
        cmd,
        image,
        Barrier {
            old: vk::ImageLayout::UNDEFINED,
            new: vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
            src_stage: vk::PipelineStageFlags2::FRAGMENT_SHADER
                | vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
            src_access: vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
            dst_stage: vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
            dst_access: vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE
                | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ,
        },
    );
}

impl PassCtx<'_> {
    /// Records `pass` into `cmd` (a recording primary), timed and labelled.
    pub(super) fn record(&self, pass: Pass, cmd: vk::CommandBuffer) {
        let q = self.queries[pass.index()];
        if let Some(q) = q {
            q.begin(self.gpu, cmd);
        }
        self.gpu.cmd_begin_label(cmd, pass.name());
        match pass {
            Pass::Upload => {}
            Pass::Shadows => self.shadows(cmd),
            Pass::Prepass => self.prepass(cmd),
            Pass::Opaque => self.opaque(cmd),
            Pass::Bloom => self.bloom(cmd),
            Pass::Resolve => self.resolve(cmd),
        }
        self.gpu.cmd_end_label(cmd);
        if let Some(q) = q {
            q.end(self.gpu, cmd);
        }
    }

    fn bind_geometry(&self, cmd: vk::CommandBuffer, geo: usize, layout: MeshVertexLayout) {
        let Some(Some(g)) = self.geos.get(geo) else {
            return;
        };
        let offsets = match layout {
            MeshVertexLayout::PositionOnly => &g.position,
            _ => &g.full,
        };
        let buffers: Vec<vk::Buffer> = offsets.iter().map(|_| g.buffer).collect();
        // SAFETY: the buffer holds every stream at these offsets; the index buffer is live.
        unsafe {
            self.gpu
                .device()
                .cmd_bind_vertex_buffers(cmd, 0, &buffers, offsets);
            self.gpu
                .device()
                .cmd_bind_index_buffer(cmd, g.index, 0, vk::IndexType::UINT32);
        }
    }

    /// `draws` under `clip`, binding each geometry buffer as the draws reach it.
    /// `on_draw` runs before each draw (descriptor binds, pipeline switches).
    fn draw_list<'d>(
        &self,
        cmd: vk::CommandBuffer,
        clip: &Mat4,
        layout: MeshVertexLayout,
        draws: impl Iterator<Item = &'d Draw>,
        mut on_draw: impl FnMut(&Draw),
    ) {
        let device = self.gpu.device();
        let mut bound = usize::MAX;
        for d in draws {
            if !matches!(self.geos.get(d.geo), Some(Some(_))) {
                continue;
            }
            if d.geo != bound {
                self.bind_geometry(cmd, d.geo, layout);
                bound = d.geo;
            }
            on_draw(d);
            let row = |r: usize| d.world.row(r);
            let push = DrawPush {
                clip_from_local: *clip * d.world,
                world_row0: row(0),
                world_row1: row(1),
                world_row2: row(2),
                material: [d.material, d.flags, 0, 0],
            };
            // SAFETY: the range matches the layout's one push-constant range; the bound
            // geometry holds this index range (checked when the mesh was made resident).
            unsafe {
                device.cmd_push_constants(
                    cmd,
                    self.pipes.box_layout.raw(),
                    vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                    0,
                    bytemuck::bytes_of(&push),
                );
                device.cmd_draw_indexed(cmd, d.index_count, 1, d.first_index, d.vertex_offset, 0);
            }
        }
    }

    /// Binds the frame set and the white texel as sets 0 and 1.
    fn bind_frame_sets(&self, cmd: vk::CommandBuffer) {
        // SAFETY: both sets match the layout and stay valid for the submit.
        unsafe {
            self.gpu.device().cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.pipes.box_layout.raw(),
                0,
                &[self.frame_set, self.white_set],
                &[],
            );
        }
    }

    /// Binds `d`'s material set as set 1 when it is not `bound` already.
    fn bind_material(&self, cmd: vk::CommandBuffer, d: &Draw, bound: &mut vk::DescriptorSet) {
        let set = self
            .material_sets
            .get(d.material as usize)
            .copied()
            .unwrap_or(self.white_set);
        if set != *bound {
            // SAFETY: the set matches set 1 of the layout and stays valid for the submit.
            unsafe {
                self.gpu.device().cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    self.pipes.box_layout.raw(),
                    1,
                    &[set],
                    &[],
                );
            }
            *bound = set;
        }
    }

    /// The opaque draws of one facing (`mirrored`), optionally casters only.
    fn opaque_draws(&self, mirrored: bool, casters: bool) -> impl Iterator<Item = &Draw> {
        self.draws.iter().filter(move |d| {
            d.surface == Surface::Opaque && d.mirrored == mirrored && (!casters || d.casts_shadows)
        })
    }

    /// The cut-out draws, optionally casters only.
    fn cutout_draws(&self, casters: bool) -> impl Iterator<Item = &Draw> {
        self.draws
            .iter()
            .filter(move |d| d.surface == Surface::Cutout && (!casters || d.casts_shadows))
    }

    /// Depth of `clip`'s opaque draws (both facings through `plain` and `mirror`) and its
    /// cut-out draws (alpha-tested through `cutout`).
    fn depth_draws(
        &self,
        cmd: vk::CommandBuffer,
        clip: &Mat4,
        pipes: [&Pipeline; 3],
        casters: bool,
    ) {
        let [plain, mirror, cutout] = pipes;
        for (mirrored, pipeline) in [(false, plain), (true, mirror)] {
            if self.opaque_draws(mirrored, casters).next().is_some() {
                pipeline.bind(cmd);
                let list = self.opaque_draws(mirrored, casters);
                self.draw_list(cmd, clip, MeshVertexLayout::PositionOnly, list, |_| {});
            }
        }
        if self.cutout_draws(casters).next().is_some() {
            cutout.bind(cmd);
            self.bind_frame_sets(cmd);
            let mut bound = self.white_set;
            let list = self.cutout_draws(casters);
            self.draw_list(cmd, clip, MeshVertexLayout::Full, list, |d| {
                self.bind_material(cmd, d, &mut bound)
            });
        }
    }

    fn shadows(&self, cmd: vk::CommandBuffer) {
        let gpu = self.gpu;
        depth_to_attachment(gpu, cmd, &self.t.atlas);
        let att = depth_clear(self.t.atlas.view());
        let edge = CASCADE_RESOLUTION * 2;
        begin_rendering(gpu, cmd, edge, edge, &[], Some(&att));
        if self.sun_on && self.draws.iter().any(|d| d.casts_shadows) {
            // Culling is off in the cascades, so both facings share one pipeline.
            let p = &self.pipes;
            for (i, vp) in self.cascades_vp.iter().enumerate() {
                let (x, y) = (
                    (i as u32 % 2) * CASCADE_RESOLUTION,
                    (i as u32 / 2) * CASCADE_RESOLUTION,
                );
                viewport(gpu, cmd, x, y, CASCADE_RESOLUTION, CASCADE_RESOLUTION);
                self.depth_draws(cmd, vp, [&p.shadow, &p.shadow, &p.shadow_cutout], true);
            }
        }
        end_rendering(gpu, cmd);
        barrier(
            gpu,
            cmd,
            &self.t.atlas,
            Barrier {
                old: vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
                new: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                src_stage: vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
                src_access: vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
                dst_stage: vk::PipelineStageFlags2::FRAGMENT_SHADER,
                dst_access: vk::AccessFlags2::SHADER_SAMPLED_READ,
            },
        );
    }

    fn prepass(&self, cmd: vk::CommandBuffer) {
        let gpu = self.gpu;
        let (w, h) = (self.t.width, self.t.height);
        depth_to_attachment(gpu, cmd, &self.t.depth);
        let att = depth_clear(self.t.depth.view());
        begin_rendering(gpu, cmd, w, h, &[], Some(&att));
        if !self.draws.is_empty() {
            viewport(gpu, cmd, 0, 0, w, h);
            let p = &self.pipes;
            let pipes = [&p.prepass, &p.prepass_mirror, &p.prepass_cutout];
            self.depth_draws(cmd, &self.view_proj, pipes, false);
        }
        end_rendering(gpu, cmd);
        barrier(
            gpu,
            cmd,
            &self.t.depth,
            Barrier {
                old: vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
                new: vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
                src_stage: vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
                src_access: vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
                dst_stage: vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                    | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
                dst_access: vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ,
            },
        );
    }

    fn opaque(&self, cmd: vk::CommandBuffer) {
        let gpu = self.gpu;
        let device = gpu.device();
        let (w, h) = (self.t.width, self.t.height);
        let layout = self.pipes.box_layout.raw();
        to_color_attachment(gpu, cmd, &self.t.hdr);
        let clear = Some([0.0, 0.0, 0.0, 1.0]);
        let hdr_att = [match &self.t.hdr_ms {
            // Multisampled: draw into the samples, average them into `hdr` as the pass
            // ends (the resolve writes at the colour attachment stage), keep none of them.
            Some(ms) => {
                to_color_attachment(gpu, cmd, ms);
                color_attachment(ms.view(), clear)
                    .store_op(vk::AttachmentStoreOp::DONT_CARE)
                    .resolve_mode(vk::ResolveModeFlags::AVERAGE)
                    .resolve_image_view(self.t.hdr.view())
                    .resolve_image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            }
            None => color_attachment(self.t.hdr.view(), clear),
        }];
        let depth_load = vk::RenderingAttachmentInfo::default()
            .image_view(self.t.depth.view())
            .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::LOAD)
            .store_op(vk::AttachmentStoreOp::STORE);
        // At MSAA the overlay's lines test against sample 0 of the depth, resolved here.
        let depth_load = match &self.t.depth_resolved {
            Some(single) => {
                depth_to_attachment(gpu, cmd, single);
                depth_load
                    .resolve_mode(vk::ResolveModeFlags::SAMPLE_ZERO)
                    .resolve_image_view(single.view())
                    .resolve_image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            }
            None => depth_load,
        };
        begin_rendering(gpu, cmd, w, h, &hdr_att, Some(&depth_load));
        viewport(gpu, cmd, 0, 0, w, h);
        let p = &self.pipes;
        for (mirrored, pipeline) in [(false, &p.lit), (true, &p.lit_mirror)] {
            if self.opaque_draws(mirrored, false).next().is_some() {
                pipeline.bind(cmd);
                self.bind_frame_sets(cmd);
                let mut bound = self.white_set;
                let list = self.opaque_draws(mirrored, false);
                self.draw_list(cmd, &self.view_proj, MeshVertexLayout::Full, list, |d| {
                    self.bind_material(cmd, d, &mut bound)
                });
            }
        }
        if self.cutout_draws(false).next().is_some() {
            gpu.cmd_begin_label(cmd, "cutout");
            p.lit_cutout.bind(cmd);
            self.bind_frame_sets(cmd);
            let mut bound = self.white_set;
            let list = self.cutout_draws(false);
            self.draw_list(cmd, &self.view_proj, MeshVertexLayout::Full, list, |d| {
                self.bind_material(cmd, d, &mut bound)
            });
            gpu.cmd_end_label(cmd);
        }
        gpu.cmd_begin_label(cmd, "sky");
        self.pipes.sky.bind(cmd);
        // SAFETY: the frame set matches set 0 of the layout the sky shares.
        unsafe {
            device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                layout,
                0,
                &[self.frame_set],
                &[],
            );
            device.cmd_draw(cmd, 3, 1, 0, 0);
        }
        gpu.cmd_end_label(cmd);
        if !self.translucent.is_empty() {
            // Back to front: the pipeline follows each draw's facing, in order.
            gpu.cmd_begin_label(cmd, "translucent");
            self.bind_frame_sets(cmd);
            let mut bound = self.white_set;
            let mut facing = None;
            let list = self.translucent.iter();
            self.draw_list(cmd, &self.view_proj, MeshVertexLayout::Full, list, |d| {
                if facing != Some(d.mirrored) {
                    if d.mirrored {
                        p.translucent_mirror.bind(cmd);
                    } else {
                        p.translucent.bind(cmd);
                    }
                    facing = Some(d.mirrored);
                }
                self.bind_material(cmd, d, &mut bound)
            });
            gpu.cmd_end_label(cmd);
        }
        end_rendering(gpu, cmd);
        color_to_sampled(gpu, cmd, &self.t.hdr);
    }

    fn screen_pass(
        &self,
        cmd: vk::CommandBuffer,
        pipeline: &Pipeline,
        target: &Image,
        set: vk::DescriptorSet,
        params: &[u8],
    ) {
        let gpu = self.gpu;
        let e = target.extent();
        to_color_attachment(gpu, cmd, target);
        let att = [color_attachment(target.view(), None)];
        begin_rendering(gpu, cmd, e.width, e.height, &att, None);
        pipeline.bind(cmd);
        viewport(gpu, cmd, 0, 0, e.width, e.height);
        let mut bytes = [0u8; SCREEN_PUSH_BYTES];
        let n = params.len().min(SCREEN_PUSH_BYTES);
        bytes[..n].copy_from_slice(&params[..n]);
        // SAFETY: the set and push range match the screen layout.
        unsafe {
            gpu.device().cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.pipes.screen_layout.raw(),
                0,
                &[set],
                &[],
            );
            gpu.device().cmd_push_constants(
                cmd,
                self.pipes.screen_layout.raw(),
                vk::ShaderStageFlags::FRAGMENT,
                0,
                &bytes,
            );
            gpu.device().cmd_draw(cmd, 3, 1, 0, 0);
        }
        end_rendering(gpu, cmd);
    }

    fn bloom(&self, cmd: vk::CommandBuffer) {
        let (Some(p), Some(b)) = (self.t.plan, self.post.bloom) else {
            return;
        };
        let t = self.t;
        let levels = p.levels as usize;
        let texel = |i: &Image| {
            let e = i.extent();
            [1.0 / e.width as f32, 1.0 / e.height as f32]
        };
        let mut sets = self.bloom_sets.iter().copied();
        let mut pass = |pipeline: &Pipeline, target: &Image, params: [f32; 8]| {
            let params = BloomParams {
                a: glam::Vec4::from_slice(&params[..4]),
                b: glam::Vec4::from_slice(&params[4..]),
            };
            if let Some(s) = sets.next() {
                self.screen_pass(cmd, pipeline, target, s, bytemuck::bytes_of(&params));
                color_to_sampled(self.gpu, cmd, target);
            }
        };
        let x = texel(&t.hdr);
        pass(
            &self.pipes.prefilter,
            &t.down_chain[0],
            [
                x[0],
                x[1],
                1.0,
                self.post.exposure,
                b.threshold,
                b.soft_knee,
                0.0,
                0.0,
            ],
        );
        for i in 1..levels {
            let x = texel(&t.down_chain[i - 1]);
            pass(
                &self.pipes.down,
                &t.down_chain[i],
                [x[0], x[1], 1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            );
        }
        // PPv2's upsample: up i = tent(the level below) + down i, from the last down up.
        for i in (0..levels.saturating_sub(1)).rev() {
            let Some(below) = t.up_chain.get(i + 1).or_else(|| t.down_chain.last()) else {
                return;
            };
            let x = texel(below);
            pass(
                &self.pipes.up,
                &t.up_chain[i],
                [x[0], x[1], p.sample_scale, 1.0, 0.0, 0.0, 0.0, 0.0],
            );
        }
    }

    fn resolve(&self, cmd: vk::CommandBuffer) {
        let target = self.t.capture.image();
        self.screen_pass(
            cmd,
            &self.pipes.post,
            target,
            self.post_set,
            bytemuck::bytes_of(&post_push(&self.post, self.t.plan)),
        );
        if let Some((o, draw)) = &self.overlay {
            let depth = self.t.depth_resolved.as_ref().unwrap_or(&self.t.depth);
            let (w, h) = (self.t.width, self.t.height);
            o.record(cmd, draw, target, depth, self.view_proj, w, h);
        }
        if self.readback {
            self.t.capture.record_readback(
                self.gpu,
                cmd,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_spread_over_workers_heaviest_first() {
        let passes = [
            (Pass::Shadows, 400),
            (Pass::Prepass, 100),
            (Pass::Opaque, 110),
            (Pass::Bloom, 19),
            (Pass::Resolve, 1),
        ];
        assert_eq!(
            assign(&passes, 1),
            vec![vec![
                Pass::Shadows,
                Pass::Prepass,
                Pass::Opaque,
                Pass::Bloom,
                Pass::Resolve
            ]]
        );
        let two = assign(&passes, 2);
        assert_eq!(two[0], vec![Pass::Shadows]);
        assert_eq!(
            two[1],
            vec![Pass::Prepass, Pass::Opaque, Pass::Bloom, Pass::Resolve]
        );
        assert_eq!(
            assign(&passes[..1], 4).len(),
            1,
            "never more workers than passes"
        );
    }
}
