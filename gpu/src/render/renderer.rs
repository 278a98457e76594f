//! The renderer: it draws a [`RenderFrame`] from one view into an `R8G8B8A8_SRGB` capture
//! through the backend as ARCHITECTURE.md "GPU" lays it out.
//!
//! * **Frames in flight** — a [`FrameRing`] of at most two frames, each with one transient
//!   command pool per recording worker. A frame slot owns its render targets, its frame-data
//!   buffer and its descriptor pool; the ring waits for the slot's previous frame before any
//!   of them is reused, and everything replaced (a resized target, a rebuilt batch) is
//!   retired through the device's deferred-destruction queue.
//! * **Uploads** — everything reaches the GPU through the persistently mapped
//!   [`StagingRing`]: the frame's own data (constants, ranked lights, clusters, materials)
//!   first, outside the budget (a frame cannot draw without it), then the asset queue
//!   (static batch, live box meshes, base color textures) under the per-frame byte and time
//!   budget. What does not fit waits for the next frame, and a draw whose geometry or texture
//!   is not resident yet is skipped (a textured material shows its tint) — nothing blocks.
//!   [`Renderer::render`] (a capture) first runs upload-only frames until the queue is empty.
//! * **Meshes** — [`RenderFrame::meshes`] draw in every pass like map geometry: one resident
//!   copy per [`super::frame::MeshAsset::key`] (render/meshes.rs), uploaded in a queue of
//!   their own after the other assets, under the byte budget and the mesh time budget
//!   ([`RendererDesc::mesh_upload_budget`], `client.voxel.uploadBudgetMs`); a mesh still
//!   uploading is skipped and counted, and a key unnamed for
//!   [`RendererDesc::mesh_keep_frames`] frames is freed through deferred destruction. Opaque
//!   and cut-out sub-meshes join the shadow cascades (when they cast), the prepass and the
//!   opaque pass; translucent ones blend after the sky, back to front. A mirroring world
//!   draws with clockwise front faces. A capture lands every mesh first, ignoring the time
//!   budget. A lit voxel volume's light window ([`RenderFrame::voxel_light`]) shades the
//!   instances it lists (hybrid shading). It stays resident in a buffer of its own
//!   (render/light_window.rs): each frame writes its header and only the bricks whose
//!   version changed, nearest the camera first, under `client.voxel.lightUploadKb`
//!   ([`super::frame::VoxelLightWindow::upload_kb`]); a capture writes every one first.
//! * **The static batch** is built once per [`RenderFrame::static_generation`] (0: every
//!   call) and kept across frames; live boxes keep their meshes while their sizes stay and
//!   take this frame's pose in the draw's push constant.
//! * **Recording** — the passes (shadow cascades, depth prepass, opaque + sky, bloom,
//!   resolve) each record into a primary of their own; they are spread over the workers
//!   (heaviest first) and recorded in parallel by the caller's [`Executor`], then submitted
//!   in pass order in one submit. Each pass has a timestamp pair ([`GpuTimer`]) and a debug
//!   label; [`Renderer::render_frame`] hands back the pass times of the frame that last used
//!   the slot (frames later: lavapipe's are CPU time).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ash::vk;
use dh_content::mesh::{self, MeshVertex, MeshVertexLayout, VertexFormat};

use super::camera::{self, ViewSetup};
use super::exec::{Executor, Serial, Task};
use super::frame::{
    Ambient, BoxInstance, LightKind, Mipmaps, RenderFrame, Sampling, Shading, Texture, View,
};
use super::gpu_data::{FrameUniform, LightData, MaterialData, VoxelLightHeader};
use super::light_window::{self, LightResidency};
use super::lights::{self, ClusterGrid};
use super::math;
use super::meshes::{self, Fallbacks, MeshCache};
use super::overlay::{Overlay, OverlayGpu};
use super::passes::{assign, Draw, GeoBind, Pass, PassCtx, Pipelines, Targets};
pub use super::passes::{CASCADE_RESOLUTION, DEPTH_FORMAT, DRAW_PUSH_BYTES, HDR_FORMAT};
use super::shadow::{self, CASCADES, SHADOW_DISTANCE, SPLIT_LAMBDA};
use super::sky;
use super::tonemap::{self, BloomPlan};
use super::uploads::UploadQueue;
use crate::staging::{ImageUpload, StagingSlice};
use crate::{
    shaders, Buffer, BufferDesc, CaptureTarget, ColorTarget, CommandPool, DepthState, FrameRing,
    Gpu, GpuError, GpuTimer, GraphicsPipelineDesc, Image, ImageDesc, MemoryLocation, PassTiming,
    Pipeline, PipelineLayout, PipelineLayoutDesc, Result, Retired, RgbaImage, ShaderEntry,
    StagingConfig, StagingRing, StagingStats, VertexInput, CAPTURE_FORMAT,
};
use glam::{Mat4, Vec3, Vec4};

/// Bytes of the frame uniform block (`struct Frame` in `box_lit.wgsl`).
pub const FRAME_UNIFORM_BYTES: usize = std::mem::size_of::<FrameUniform>();
/// The widest or tallest base color texture the renderer takes, texels.
pub const MAX_TEXTURE_EDGE: u32 = Texture::MAX_EDGE;
/// The most levels a base color texture has: the full chain of a [`MAX_TEXTURE_EDGE`] edge.
pub const MAX_TEXTURE_LEVELS: u32 = 32 - MAX_TEXTURE_EDGE.leading_zeros();
/// How long a capture waits for its frame.
const CAPTURE_WAIT: Duration = Duration::from_secs(120);

/// How a [`Renderer`] is set up.
#[derive(Debug, Clone, Copy)]
pub struct RendererDesc {
    /// Recording workers: command pools per frame, the most tasks a frame hands its
    /// executor (at least 1).
    pub workers: usize,
    /// Frames the CPU may run ahead of the GPU (1 or 2).
    pub frames_in_flight: usize,
    /// The staging ring's size and per-frame budgets.
    pub staging: StagingConfig,
    /// Timestamp queries per pass (when the device has them).
    pub timings: bool,
    /// CPU time a frame may spend staging mesh uploads, on top of the staging ring's byte
    /// and time budgets (`client.voxel.uploadBudgetMs`, 2 ms by default; a capture skips
    /// it). Changeable per frame with [`Renderer::set_mesh_upload_budget`].
    pub mesh_upload_budget: Duration,
    /// Frames a mesh no instance names stays resident before it is freed.
    pub mesh_keep_frames: u64,
    /// `client.render.msaa`: the samples the forward passes are asked to take, one of
    /// [`MSAA_COUNTS`] ([`DEFAULT_MSAA`] by default); lowered to the most the device's
    /// framebuffers take ([`msaa_samples`], [`Renderer::msaa_lowered`] says when).
    pub msaa: u32,
}

/// The sample counts `client.render.msaa` takes (ours: 1, 2, 4 or 8).
pub const MSAA_COUNTS: [u32; 4] = [1, 2, 4, 8];
/// `client.render.msaa`'s default (ours: 4, which every desktop device and lavapipe take).
pub const DEFAULT_MSAA: u32 = 4;

/// The samples the forward passes take when `asked` (one of [`MSAA_COUNTS`]) is asked of a
/// device whose colour and depth framebuffers both take `supported`: the most of
/// [`MSAA_COUNTS`] at or below `asked` that `supported` holds (one sample always is).
pub fn msaa_samples(supported: vk::SampleCountFlags, asked: u32) -> u32 {
    MSAA_COUNTS
        .iter()
        .rev()
        .copied()
        .filter(|&n| n <= asked)
        .find(|&n| supported.contains(sample_flags(n)))
        .unwrap_or(1)
}

/// The `vk::SampleCountFlags` bit of `n` samples (1 for anything not a power of two it has).
fn sample_flags(n: u32) -> vk::SampleCountFlags {
    match n {
        2 => vk::SampleCountFlags::TYPE_2,
        4 => vk::SampleCountFlags::TYPE_4,
        8 => vk::SampleCountFlags::TYPE_8,
        16 => vk::SampleCountFlags::TYPE_16,
        _ => vk::SampleCountFlags::TYPE_1,
    }
}

/// The sample counts `gpu`'s colour and depth framebuffers both take.
fn framebuffer_samples(gpu: &Gpu) -> vk::SampleCountFlags {
    let l = gpu.properties().limits;
    l.framebuffer_color_sample_counts & l.framebuffer_depth_sample_counts
}

/// `asked` checked against [`MSAA_COUNTS`] and lowered to what `gpu` takes.
fn resolve_msaa(gpu: &Gpu, asked: u32) -> Result<u32> {
    if !MSAA_COUNTS.contains(&asked) {
        return Err(invalid(
            "client.render.msaa",
            format!("{asked} samples asked; expected 1, 2, 4 or 8"),
        ));
    }
    Ok(msaa_samples(framebuffer_samples(gpu), asked))
}

/// `client.voxel.uploadBudgetMs`'s default.
pub const DEFAULT_MESH_UPLOAD_BUDGET: Duration = Duration::from_millis(2);
/// [`RendererDesc::mesh_keep_frames`]'s default.
pub const DEFAULT_MESH_KEEP_FRAMES: u64 = 2;

impl Default for RendererDesc {
    fn default() -> Self {
        RendererDesc {
            workers: 2,
            frames_in_flight: crate::MAX_FRAMES_IN_FLIGHT,
            staging: StagingConfig::default(),
            timings: true,
            mesh_upload_budget: DEFAULT_MESH_UPLOAD_BUDGET,
            mesh_keep_frames: DEFAULT_MESH_KEEP_FRAMES,
            msaa: DEFAULT_MSAA,
        }
    }
}

/// What one capture produced.
#[derive(Debug)]
pub struct RenderOutput {
    /// The picture.
    pub image: RgbaImage,
    /// The far plane an orthographic view derived from the map bounds, to log.
    pub derived_far: Option<f32>,
    /// This frame's per-pass GPU times (lavapipe: CPU time, a smoke figure); empty without
    /// timestamps.
    pub timings: Vec<PassTiming>,
    /// Lights shaded after ranking (at most 64).
    pub lights: usize,
    /// Draw calls recorded in the box passes (one per static material, one per live box).
    pub draws: usize,
    /// Mesh sub-mesh draws recorded (every mesh lands before a capture).
    pub mesh_draws: usize,
}

/// What one [`Renderer::render_frame`] did.
#[derive(Debug, Clone)]
pub struct FrameReport {
    /// This frame's number (frames counted from 0 by this renderer).
    pub frame: u64,
    /// The timeline value its submit signals.
    pub value: u64,
    /// Box draws recorded per pass.
    pub draws: usize,
    /// Box draws left out because their geometry is still uploading.
    pub skipped_draws: usize,
    /// Mesh sub-mesh draws recorded (opaque, cut-out and translucent).
    pub mesh_draws: usize,
    /// Mesh sub-mesh draws left out because their mesh is still uploading.
    pub mesh_skipped_draws: usize,
    /// Mesh instances not drawn because their mesh was refused
    /// ([`Renderer::mesh_error`] says why).
    pub meshes_refused: usize,
    /// Bytes of mesh buffers resident (landed) after this frame's uploads.
    pub mesh_bytes_resident: u64,
    /// Mesh bytes still waiting for a later frame's budget.
    pub mesh_bytes_left: u64,
    /// Meshes whose last byte was staged this frame (drawn from the next frame).
    pub meshes_uploaded: usize,
    /// Meshes freed this frame (no instance named them for the keep window; their buffers
    /// wait for the frames in flight).
    pub meshes_freed: usize,
    /// Lights shaded after ranking.
    pub lights: usize,
    /// CPU wall time of recording the passes (the parallel part).
    pub record: Duration,
    /// Workers that recorded.
    pub workers: usize,
    /// What the staging ring took this frame (frame data and asset uploads).
    pub staging: StagingStats,
    /// Asset bytes (static batch, live meshes, textures, mesh assets) staged this frame,
    /// under the budget.
    pub uploaded: u64,
    /// Asset bytes (mesh assets not included) still waiting for a later frame's budget.
    pub upload_bytes_left: u64,
    /// Whether the static batch was rebuilt this frame.
    pub static_rebuilt: bool,
    /// The pass times of an earlier frame (its number and times) that resolved now.
    pub resolved: Option<(u64, Vec<PassTiming>)>,
    /// The far plane an orthographic view derived from the map bounds.
    pub derived_far: Option<f32>,
    /// Bricks of the voxel light window written this frame (8 KiB each).
    pub light_bricks_written: usize,
    /// Tile writes ([`super::frame::TileWrite`]) recorded this frame.
    pub tiles_written: usize,
    /// Tile writes waiting for their texture to land (or for room in the staging ring).
    pub tiles_pending: usize,
    /// Bricks of the voxel light window whose contents the GPU does not hold yet (written
    /// on later frames, nearest the camera first).
    pub light_bricks_pending: usize,
}

fn vk_format(f: VertexFormat) -> vk::Format {
    match f {
        VertexFormat::Float32x3 => vk::Format::R32G32B32_SFLOAT,
        VertexFormat::Float32x2 => vk::Format::R32G32_SFLOAT,
        VertexFormat::Uint16x2 => vk::Format::R16G16_UINT,
        VertexFormat::Unorm16x4 => vk::Format::R16G16B16A16_UNORM,
        VertexFormat::Unorm8x4 => vk::Format::R8G8B8A8_UNORM,
    }
}

/// The vertex input of a layout: the one description every pipeline names.
pub fn vertex_input(layout: MeshVertexLayout) -> VertexInput {
    let mut input = VertexInput::default();
    for s in layout.streams() {
        input.bindings.push(vk::VertexInputBindingDescription {
            binding: s.binding,
            stride: s.stride,
            input_rate: vk::VertexInputRate::VERTEX,
        });
        for a in s.attributes {
            input.attributes.push(vk::VertexInputAttributeDescription {
                location: a.location,
                binding: s.binding,
                format: vk_format(a.format),
                offset: a.offset,
            });
        }
    }
    input
}

fn invalid(what: &'static str, reason: impl Into<String>) -> GpuError {
    GpuError::Invalid {
        what,
        reason: reason.into(),
    }
}

fn vkr<T>(r: std::result::Result<T, vk::Result>, call: &'static str) -> Result<T> {
    r.map_err(|result| GpuError::Vk { call, result })
}

fn binding(
    b: u32,
    ty: vk::DescriptorType,
    stages: vk::ShaderStageFlags,
) -> vk::DescriptorSetLayoutBinding<'static> {
    vk::DescriptorSetLayoutBinding::default()
        .binding(b)
        .descriptor_type(ty)
        .descriptor_count(1)
        .stage_flags(stages)
}

fn sampler(gpu: &Gpu, info: &vk::SamplerCreateInfo<'_>, name: &str) -> Result<vk::Sampler> {
    // SAFETY: the create info is fully initialised and the device is live.
    let s = vkr(
        unsafe { gpu.device().create_sampler(info, None) },
        "vkCreateSampler",
    )?;
    gpu.set_object_name(s, name);
    Ok(s)
}

/// Builds the pipelines, layouts and samplers; the forward passes (prepass, opaque, cut-out,
/// sky, translucent) rasterize `samples` samples, the shadow cascades and the screen passes
/// one.
fn build_pipelines(gpu: &Gpu, samples: u32) -> Result<Pipelines> {
    let forward = sample_flags(samples);
    let single = vk::SampleCountFlags::TYPE_1;
    let limit = gpu.properties().limits.max_push_constants_size;
    if limit < DRAW_PUSH_BYTES {
        return Err(invalid(
            "renderer",
            format!("the device allows {limit} push-constant bytes; the box passes need {DRAW_PUSH_BYTES}"),
        ));
    }
    let vf = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
    let frag = vk::ShaderStageFlags::FRAGMENT;
    let box_layout = PipelineLayout::new(
        gpu,
        &PipelineLayoutDesc {
            name: "boxes",
            sets: vec![
                vec![
                    binding(0, vk::DescriptorType::UNIFORM_BUFFER, vf),
                    binding(1, vk::DescriptorType::STORAGE_BUFFER, frag),
                    binding(2, vk::DescriptorType::STORAGE_BUFFER, frag),
                    binding(3, vk::DescriptorType::STORAGE_BUFFER, frag),
                    binding(4, vk::DescriptorType::STORAGE_BUFFER, vf),
                    binding(5, vk::DescriptorType::SAMPLED_IMAGE, frag),
                    binding(6, vk::DescriptorType::SAMPLER, frag),
                    binding(7, vk::DescriptorType::STORAGE_BUFFER, frag),
                ],
                vec![
                    binding(0, vk::DescriptorType::SAMPLED_IMAGE, frag),
                    binding(1, vk::DescriptorType::SAMPLER, frag),
                    binding(2, vk::DescriptorType::SAMPLED_IMAGE, frag),
                ],
            ],
            push_descriptor_sets: Vec::new(),
            push_constants: vec![vk::PushConstantRange {
                stage_flags: vf,
                offset: 0,
                size: DRAW_PUSH_BYTES,
            }],
        },
    )?;
    let screen_layout = PipelineLayout::new(
        gpu,
        &PipelineLayoutDesc {
            name: "screen",
            sets: vec![vec![
                binding(0, vk::DescriptorType::SAMPLED_IMAGE, frag),
                binding(1, vk::DescriptorType::SAMPLED_IMAGE, frag),
                binding(2, vk::DescriptorType::SAMPLER, frag),
            ]],
            push_descriptor_sets: Vec::new(),
            push_constants: vec![vk::PushConstantRange {
                stage_flags: frag,
                offset: 0,
                size: 48,
            }],
        },
    )?;
    let depth_state = |bias| DepthState {
        format: DEPTH_FORMAT,
        test: true,
        write: true,
        compare: vk::CompareOp::LESS,
        bias,
        clamp: false,
    };
    let depth_only = |name: &str,
                      bias: Option<(f32, f32, f32)>,
                      cull: vk::CullModeFlags,
                      front: vk::FrontFace,
                      samples: vk::SampleCountFlags| {
        let mut d = GraphicsPipelineDesc::new(
            name,
            &box_layout,
            ShaderEntry::new(&shaders::DEPTH, "vs_main"),
            None,
        );
        d.vertex_input = vertex_input(MeshVertexLayout::PositionOnly);
        d.cull_mode = cull;
        d.front_face = front;
        d.depth = Some(depth_state(bias));
        d.samples = samples;
        Pipeline::graphics(gpu, &d)
    };
    // Cut-out depth: two-sided, the base color's alpha tested in the fragment shader.
    let depth_cutout = |name: &str, bias: Option<(f32, f32, f32)>, samples| {
        let mut d = GraphicsPipelineDesc::new(
            name,
            &box_layout,
            ShaderEntry::new(&shaders::DEPTH, "vs_cutout"),
            Some(ShaderEntry::new(&shaders::DEPTH, "fs_cutout")),
        );
        d.vertex_input = vertex_input(MeshVertexLayout::Full);
        d.cull_mode = vk::CullModeFlags::NONE;
        d.depth = Some(depth_state(bias));
        d.samples = samples;
        Pipeline::graphics(gpu, &d)
    };
    let ccw = vk::FrontFace::COUNTER_CLOCKWISE;
    let cw = vk::FrontFace::CLOCKWISE;
    let shadow_bias = Some((1.25, 0.0, 1.75));
    let none = vk::CullModeFlags::NONE;
    let shadow = depth_only("shadow cascades", shadow_bias, none, ccw, single)?;
    let shadow_cutout = depth_cutout("shadow cascades cutout", shadow_bias, single)?;
    let back = vk::CullModeFlags::BACK;
    let prepass = depth_only("depth prepass", None, back, ccw, forward)?;
    let prepass_mirror = depth_only("depth prepass mirrored", None, back, cw, forward)?;
    let prepass_cutout = depth_cutout("depth prepass cutout", None, forward)?;
    // Shading after the prepass: depth tested equal-or-nearer, never written.
    let shading = |name: &str,
                   entry: &str,
                   cull: vk::CullModeFlags,
                   front: vk::FrontFace,
                   blend: Option<vk::PipelineColorBlendAttachmentState>| {
        let mut d = GraphicsPipelineDesc::new(
            name,
            &box_layout,
            ShaderEntry::new(&shaders::BOX_LIT, "vs_main"),
            Some(ShaderEntry::new(&shaders::BOX_LIT, entry)),
        );
        d.vertex_input = vertex_input(MeshVertexLayout::Full);
        d.cull_mode = cull;
        d.front_face = front;
        d.depth = Some(DepthState {
            format: DEPTH_FORMAT,
            test: true,
            write: false,
            compare: vk::CompareOp::LESS_OR_EQUAL,
            bias: None,
            clamp: false,
        });
        d.color_targets = vec![ColorTarget {
            format: HDR_FORMAT,
            blend,
        }];
        d.samples = forward;
        Pipeline::graphics(gpu, &d)
    };
    let lit = shading("boxes lit", "fs_main", back, ccw, None)?;
    let lit_mirror = shading("lit mirrored", "fs_main", back, cw, None)?;
    let lit_cutout = shading(
        "lit cutout",
        "fs_cutout",
        vk::CullModeFlags::NONE,
        ccw,
        None,
    )?;
    // Straight alpha over what is behind: C = a·src + (1 − a)·dst.
    let over = vk::PipelineColorBlendAttachmentState {
        blend_enable: vk::TRUE,
        src_color_blend_factor: vk::BlendFactor::SRC_ALPHA,
        dst_color_blend_factor: vk::BlendFactor::ONE_MINUS_SRC_ALPHA,
        color_blend_op: vk::BlendOp::ADD,
        src_alpha_blend_factor: vk::BlendFactor::ONE,
        dst_alpha_blend_factor: vk::BlendFactor::ONE_MINUS_SRC_ALPHA,
        alpha_blend_op: vk::BlendOp::ADD,
        color_write_mask: vk::ColorComponentFlags::RGBA,
    };
    let translucent = shading("translucent", "fs_translucent", back, ccw, Some(over))?;
    let translucent_mirror = shading(
        "translucent mirrored",
        "fs_translucent",
        back,
        cw,
        Some(over),
    )?;
    let mut sky = GraphicsPipelineDesc::new(
        "sky",
        &box_layout,
        ShaderEntry::new(&shaders::SKY, "vs_main"),
        Some(ShaderEntry::new(&shaders::SKY, "fs_main")),
    );
    sky.depth = Some(DepthState {
        format: DEPTH_FORMAT,
        test: true,
        write: false,
        compare: vk::CompareOp::LESS_OR_EQUAL,
        bias: None,
        clamp: false,
    });
    sky.color_targets = vec![ColorTarget {
        format: HDR_FORMAT,
        blend: None,
    }];
    sky.samples = forward;
    let sky = Pipeline::graphics(gpu, &sky)?;
    let screen = |name: &str, shader: &'static shaders::Shader, entry: &str, format: vk::Format| {
        let mut d = GraphicsPipelineDesc::new(
            name,
            &screen_layout,
            ShaderEntry::new(shader, "vs_main"),
            Some(ShaderEntry::new(shader, entry)),
        );
        d.color_targets = vec![ColorTarget {
            format,
            blend: None,
        }];
        Pipeline::graphics(gpu, &d)
    };
    let prefilter = screen(
        "bloom prefilter",
        &shaders::BLOOM,
        "fs_prefilter",
        HDR_FORMAT,
    )?;
    let down = screen("bloom down", &shaders::BLOOM, "fs_down", HDR_FORMAT)?;
    let up = screen("bloom up", &shaders::BLOOM, "fs_up", HDR_FORMAT)?;
    let post = screen("resolve", &shaders::POST, "fs_main", CAPTURE_FORMAT)?;
    let clamp = vk::SamplerAddressMode::CLAMP_TO_EDGE;
    let linear = sampler(
        gpu,
        &vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::LINEAR)
            .min_filter(vk::Filter::LINEAR)
            .address_mode_u(clamp)
            .address_mode_v(clamp)
            .address_mode_w(clamp)
            .max_lod(0.0),
        "linear clamp",
    )?;
    let repeat_mode = vk::SamplerAddressMode::REPEAT;
    // Trilinear through the whole chain: maxLod is the longest chain's last level (a
    // texture's own view holds its levels, so each reads to its own 1x1).
    let repeat = sampler(
        gpu,
        &vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::LINEAR)
            .min_filter(vk::Filter::LINEAR)
            .mipmap_mode(vk::SamplerMipmapMode::LINEAR)
            .address_mode_u(repeat_mode)
            .address_mode_v(repeat_mode)
            .address_mode_w(repeat_mode)
            .min_lod(0.0)
            .max_lod(MAX_TEXTURE_LEVELS as f32),
        "base color",
    )?;
    let repeat_top = sampler(
        gpu,
        &vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::LINEAR)
            .min_filter(vk::Filter::LINEAR)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(repeat_mode)
            .address_mode_v(repeat_mode)
            .address_mode_w(repeat_mode)
            .max_lod(0.0),
        "base color top level",
    )?;
    let nearest = sampler(
        gpu,
        &vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::NEAREST)
            .min_filter(vk::Filter::NEAREST)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(clamp)
            .address_mode_v(clamp)
            .address_mode_w(clamp)
            .max_lod(0.0),
        "base color nearest",
    )?;
    // A voxel block atlas (Sampling::NearestMipLinear): point within a level, linear
    // between levels, every level, clamped.
    let nearest_mip = sampler(
        gpu,
        &vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::NEAREST)
            .min_filter(vk::Filter::NEAREST)
            .mipmap_mode(vk::SamplerMipmapMode::LINEAR)
            .address_mode_u(clamp)
            .address_mode_v(clamp)
            .address_mode_w(clamp)
            .min_lod(0.0)
            .max_lod(MAX_TEXTURE_LEVELS as f32),
        "block atlas",
    )?;
    let compare = sampler(
        gpu,
        &vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::LINEAR)
            .min_filter(vk::Filter::LINEAR)
            .address_mode_u(clamp)
            .address_mode_v(clamp)
            .address_mode_w(clamp)
            .compare_enable(true)
            .compare_op(vk::CompareOp::LESS_OR_EQUAL)
            .max_lod(0.0),
        "shadow compare",
    )?;
    Ok(Pipelines {
        gpu: gpu.clone(),
        box_layout,
        screen_layout,
        shadow,
        shadow_cutout,
        prepass,
        prepass_mirror,
        prepass_cutout,
        lit,
        lit_mirror,
        lit_cutout,
        translucent,
        translucent_mirror,
        sky,
        prefilter,
        down,
        up,
        post,
        linear,
        repeat,
        repeat_top,
        nearest,
        nearest_mip,
        compare,
    })
}

/// Geometry in the GPU streams, device-local, filled through the upload queue.
struct GeoCache {
    _buffer: Buffer,
    _index: Buffer,
    bind: GeoBind,
    /// Draw templates (the static batch's are final; a live box's world is set per frame).
    draws: Vec<Draw>,
    /// The upload jobs of the streams and the indices.
    jobs: [u64; 2],
}

impl GeoCache {
    fn ready(&self, uploads: &UploadQueue) -> bool {
        !self.jobs.iter().any(|&j| uploads.is_pending(j))
    }
}

/// A base color texture, resident (or on its way).
struct TextureEntry {
    /// Keeps the texture alive, so its address stays its key.
    _texture: Arc<Texture>,
    image: Image,
    job: u64,
    last_used: u64,
}

/// One frame slot's own resources.
struct Slot {
    gpu: Gpu,
    /// The frame's data (uniform, lights, clusters, materials), device-local.
    data: Option<Buffer>,
    pool: vk::DescriptorPool,
    pool_textures: u32,
    targets: Option<Targets>,
    /// The renderer frame last submitted from this slot whose pass times are unread.
    frame: Option<u64>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if self.pool != vk::DescriptorPool::null() {
            self.gpu.retire_pending(Retired::DescriptorPool(self.pool));
        }
    }
}

/// Screen sets the bloom pyramid and the resolve may need (a prefilter, `levels − 1` downs
/// and as many ups, the resolve).
const SCREEN_SETS: u32 = 2 * tonemap::MAX_BLOOM_LEVELS + 1;

impl Slot {
    /// Makes sure the pool fits `textures` texture sets, then resets it (the slot's last
    /// frame is complete: the ring waited for it).
    fn reset_pool(&mut self, textures: u32) -> Result<()> {
        if self.pool == vk::DescriptorPool::null() || textures > self.pool_textures {
            if self.pool != vk::DescriptorPool::null() {
                self.gpu.retire_pending(Retired::DescriptorPool(self.pool));
                self.pool = vk::DescriptorPool::null();
            }
            let cap = textures.max(8).next_power_of_two();
            let sets = 1 + cap + SCREEN_SETS;
            let sizes = [
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::UNIFORM_BUFFER,
                    descriptor_count: 1,
                },
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::STORAGE_BUFFER,
                    descriptor_count: 5,
                },
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::SAMPLED_IMAGE,
                    descriptor_count: 1 + 2 * cap + 2 * SCREEN_SETS,
                },
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::SAMPLER,
                    descriptor_count: 1 + cap + SCREEN_SETS,
                },
            ];
            let info = vk::DescriptorPoolCreateInfo::default()
                .max_sets(sets)
                .pool_sizes(&sizes);
            // SAFETY: the create info and its sizes outlive the call.
            self.pool = vkr(
                unsafe { self.gpu.device().create_descriptor_pool(&info, None) },
                "vkCreateDescriptorPool",
            )?;
            self.pool_textures = cap;
            return Ok(());
        }
        // SAFETY: no submitted work uses the pool's sets: this slot's last frame completed.
        vkr(
            unsafe {
                self.gpu
                    .device()
                    .reset_descriptor_pool(self.pool, vk::DescriptorPoolResetFlags::empty())
            },
            "vkResetDescriptorPool",
        )
    }

    fn allocate(&self, layout: vk::DescriptorSetLayout) -> Result<vk::DescriptorSet> {
        let layouts = [layout];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.pool)
            .set_layouts(&layouts);
        // SAFETY: the pool was sized for every set a frame allocates.
        let sets = vkr(
            unsafe { self.gpu.device().allocate_descriptor_sets(&info) },
            "vkAllocateDescriptorSets",
        )?;
        sets.first()
            .copied()
            .ok_or_else(|| invalid("descriptor set", "none allocated"))
    }
}

fn make_targets(
    gpu: &Gpu,
    width: u32,
    height: u32,
    plan: Option<BloomPlan>,
    samples: u32,
) -> Result<Targets> {
    let attach = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::SAMPLED;
    let hdr = gpu.create_image(&ImageDesc::new_2d("hdr", HDR_FORMAT, width, height, attach))?;
    let count = sample_flags(samples);
    // Multisampled, the forward passes draw into `hdr_ms` and resolve it into `hdr` as
    // the opaque pass ends; the depth they test against has their samples.
    let hdr_ms = if samples > 1 {
        Some(gpu.create_image(&ImageDesc {
            samples: count,
            ..ImageDesc::new_2d(
                "hdr multisampled",
                HDR_FORMAT,
                width,
                height,
                vk::ImageUsageFlags::COLOR_ATTACHMENT,
            )
        })?)
    } else {
        None
    };
    let depth = gpu.create_image(&ImageDesc {
        samples: count,
        ..ImageDesc::new_2d(
            "depth",
            DEPTH_FORMAT,
            width,
            height,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        )
    })?;
    // The overlay's lines test against one sample of depth: at MSAA, sample 0 resolved.
    let depth_resolved = if samples > 1 {
        Some(gpu.create_image(&ImageDesc::new_2d(
            "depth resolved",
            DEPTH_FORMAT,
            width,
            height,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        ))?)
    } else {
        None
    };
    let atlas = gpu.create_image(&ImageDesc::new_2d(
        "shadow atlas",
        DEPTH_FORMAT,
        CASCADE_RESOLUTION * 2,
        CASCADE_RESOLUTION * 2,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::SAMPLED,
    ))?;
    // PPv2's pyramid: `levels` downsampled levels (the prefiltered base first) and one
    // upsampled level fewer, each the size of the down level it combines with.
    let mut down_chain = Vec::new();
    let mut up_chain = Vec::new();
    if let Some(p) = plan {
        for i in 0..p.levels {
            let [w, h] = p.level_size(i);
            down_chain.push(gpu.create_image(&ImageDesc::new_2d(
                &format!("bloom down {i}"),
                HDR_FORMAT,
                w,
                h,
                attach,
            ))?);
            if i + 1 < p.levels {
                up_chain.push(gpu.create_image(&ImageDesc::new_2d(
                    &format!("bloom up {i}"),
                    HDR_FORMAT,
                    w,
                    h,
                    attach,
                ))?);
            }
        }
    }
    let capture = CaptureTarget::new(gpu, width, height, "capture")?;
    Ok(Targets {
        width,
        height,
        plan,
        samples,
        hdr,
        hdr_ms,
        depth,
        depth_resolved,
        atlas,
        down_chain,
        up_chain,
        capture,
    })
}

/// The renderer: pipelines, the frame ring, the staging ring, the GPU timer and the
/// resources it keeps between frames (static batch, live meshes, textures, per-slot targets).
pub struct Renderer {
    gpu: Gpu,
    pipes: Pipelines,
    ring: FrameRing,
    staging: StagingRing,
    timer: Option<GpuTimer>,
    /// The sky's ambient harmonics, projected when the sky or the sun changes.
    sky_ambient: sky::SkyAmbientCache,
    uploads: UploadQueue,
    /// The static batch and the generation it was built from.
    statics: Option<GeoCache>,
    static_generation: Option<u64>,
    static_builds: u64,
    /// Live boxes' meshes and the sizes they were built for (f32 bits).
    live: Option<GeoCache>,
    live_key: Vec<[u32; 3]>,
    /// Textures by the address of their `Arc`.
    textures: HashMap<usize, TextureEntry>,
    white: TextureEntry,
    /// Tile writes waiting for their texture to land.
    tile_pending: Vec<super::frame::TileWrite>,
    /// Mesh assets by key.
    meshes: MeshCache,
    /// Their uploads, pumped after the other assets' under the mesh time budget.
    mesh_uploads: UploadQueue,
    mesh_upload_budget: Duration,
    /// The voxel light window kept resident across frames.
    light: LightResidency,
    slots: Vec<Slot>,
    frames: u64,
    /// Frame-data section alignment (uniform and storage offsets).
    align: u64,
    /// The forward passes' samples asked (`client.render.msaa`) and taken.
    msaa_asked: u32,
    msaa: u32,
    /// The debug overlays' passes and what they draw (render/overlay.rs).
    overlay: OverlayGpu,
    /// Skinned drawables' rigs and streams (render/skin.rs).
    skins: super::skin::SkinState,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("ring", &self.ring)
            .field("staging", &self.staging)
            .field("uploads", &self.uploads)
            .field("frames", &self.frames)
            .finish_non_exhaustive()
    }
}

fn size_key(frame: &RenderFrame) -> Vec<[u32; 3]> {
    frame
        .live_boxes
        .iter()
        .map(|b| b.size.to_array().map(f32::to_bits))
        .collect()
}

fn align_up(v: usize, a: usize) -> usize {
    v.div_ceil(a) * a
}

impl Renderer {
    /// A renderer with [`RendererDesc::default`].
    pub fn new(gpu: &Gpu) -> Result<Renderer> {
        Self::with_desc(gpu, &RendererDesc::default())
    }

    /// Builds the pipelines, the frame ring, the staging ring and the timer, and uploads the
    /// white texel untextured materials sample.
    pub fn with_desc(gpu: &Gpu, desc: &RendererDesc) -> Result<Renderer> {
        let msaa = resolve_msaa(gpu, desc.msaa)?;
        let pipes = build_pipelines(gpu, msaa)?;
        let ring = FrameRing::new(gpu, desc.frames_in_flight, desc.workers)?;
        let staging = StagingRing::new(gpu, desc.staging)?;
        let timer = if desc.timings {
            GpuTimer::new(gpu, desc.frames_in_flight, Pass::ALL.len() as u32)?
        } else {
            None
        };
        let mut uploads = UploadQueue::default();
        let white_texture = Arc::new(Texture {
            width: 1,
            height: 1,
            rgba: vec![255; 4],
            mips: Vec::new(),
        });
        let white_image = texture_image(gpu, &white_texture)?;
        let job = uploads.push_texture(white_image.raw(), Arc::clone(&white_texture));
        let (overlay, glyphs) = OverlayGpu::new(gpu, desc.frames_in_flight)?;
        uploads.push_texture(overlay.atlas_image.raw(), Arc::new(glyphs));
        let limits = gpu.properties().limits;
        let align = limits
            .min_uniform_buffer_offset_alignment
            .max(limits.min_storage_buffer_offset_alignment)
            .max(16);
        let slots = (0..desc.frames_in_flight)
            .map(|_| Slot {
                gpu: gpu.clone(),
                data: None,
                pool: vk::DescriptorPool::null(),
                pool_textures: 0,
                targets: None,
                frame: None,
            })
            .collect();
        let mut r = Renderer {
            gpu: gpu.clone(),
            pipes,
            ring,
            staging,
            timer,
            sky_ambient: sky::SkyAmbientCache::default(),
            uploads,
            statics: None,
            static_generation: None,
            static_builds: 0,
            live: None,
            live_key: Vec::new(),
            textures: HashMap::new(),
            tile_pending: Vec::new(),
            white: TextureEntry {
                _texture: white_texture,
                image: white_image,
                job,
                last_used: 0,
            },
            meshes: MeshCache::new(desc.mesh_keep_frames),
            mesh_uploads: UploadQueue::default(),
            mesh_upload_budget: desc.mesh_upload_budget,
            slots,
            frames: 0,
            light: LightResidency::default(),
            align,
            msaa_asked: desc.msaa,
            msaa,
            overlay,
            skins: super::skin::SkinState::new(desc.mesh_keep_frames),
        };
        r.flush_uploads()?;
        Ok(r)
    }

    /// Sets what the debug overlays draw from the next frame on (an empty [`Overlay`]
    /// records nothing).
    pub fn set_overlay(&mut self, overlay: Overlay) {
        self.overlay.content = overlay;
    }

    /// The samples the forward passes take (`client.render.msaa` as the device allows it).
    pub fn msaa(&self) -> u32 {
        self.msaa
    }

    /// The samples `client.render.msaa` last asked for (before the device lowered them).
    pub fn msaa_asked(&self) -> u32 {
        self.msaa_asked
    }

    /// `(asked, taken)` when the device's framebuffers take fewer samples than
    /// `client.render.msaa` asked for (the caller logs it once), else `None`.
    pub fn msaa_lowered(&self) -> Option<(u32, u32)> {
        (self.msaa < self.msaa_asked).then_some((self.msaa_asked, self.msaa))
    }

    /// Asks for `asked` samples (one of [`MSAA_COUNTS`]) from the next frame on: the
    /// forward pipelines are rebuilt when the samples taken change (the old ones retire
    /// through deferred destruction), and each frame slot's targets follow on its next frame.
    pub fn set_msaa(&mut self, asked: u32) -> Result<()> {
        let msaa = resolve_msaa(&self.gpu, asked)?;
        if msaa != self.msaa {
            self.pipes = build_pipelines(&self.gpu, msaa)?;
            self.msaa = msaa;
        }
        self.msaa_asked = asked;
        Ok(())
    }

    /// The staging ring (its budgets can change between frames).
    pub fn staging_mut(&mut self) -> &mut StagingRing {
        &mut self.staging
    }

    /// How many times the static batch was built.
    pub fn static_builds(&self) -> u64 {
        self.static_builds
    }

    /// Asset bytes waiting for a frame's budget (meshes not included).
    pub fn upload_bytes_left(&self) -> u64 {
        self.uploads.bytes_left()
    }

    /// Sets the CPU time a frame may spend staging mesh uploads
    /// (`client.voxel.uploadBudgetMs`); a capture ignores it.
    pub fn set_mesh_upload_budget(&mut self, budget: Duration) {
        self.mesh_upload_budget = budget;
    }

    /// The mesh upload time budget.
    pub fn mesh_upload_budget(&self) -> Duration {
        self.mesh_upload_budget
    }

    /// Mesh keys held (resident, uploading, empty or refused).
    pub fn mesh_count(&self) -> usize {
        self.meshes.len()
    }

    /// Why the mesh of `key` was refused (indices past its vertices, a stream outside its
    /// bytes, a sub-mesh outside its indices), when it was.
    pub fn mesh_error(&self, key: u64) -> Option<&str> {
        self.meshes.error(key)
    }

    /// Whether per-pass timestamps are taken.
    pub fn has_timings(&self) -> bool {
        self.timer.is_some()
    }

    /// Captures `frame` from `view` at `width × height`: uploads what the frame needs
    /// (upload-only frames under the staging budget until nothing waits), renders with the
    /// passes recorded one after another, waits, and reads the picture back.
    pub fn render(
        &mut self,
        frame: &RenderFrame,
        view: &View,
        width: u32,
        height: u32,
    ) -> Result<RenderOutput> {
        self.render_with(frame, view, width, height, &Serial)
    }

    /// [`Renderer::render`] with the passes recorded by `exec`.
    pub fn render_with(
        &mut self,
        frame: &RenderFrame,
        view: &View,
        width: u32,
        height: u32,
        exec: &dyn Executor,
    ) -> Result<RenderOutput> {
        check_size(width, height)?;
        let mut prepared = self.prepare(frame)?;
        prepared.landed = self.flush_uploads()?;
        let (report, image, slot) =
            self.draw(frame, view, (width, height), exec, true, prepared)?;
        let timings = match &mut self.timer {
            Some(t) => {
                self.slots[slot].frame = None;
                t.begin_frame(slot)?.unwrap_or_default()
            }
            None => Vec::new(),
        };
        Ok(RenderOutput {
            image: image.ok_or_else(|| invalid("render", "the capture was not read back"))?,
            derived_far: report.derived_far,
            timings,
            lights: report.lights,
            draws: report.draws,
            mesh_draws: report.mesh_draws,
        })
    }

    /// Renders one frame offscreen without waiting for it (only for the slot's previous
    /// frame, at most two frames back): uploads go under the staging budget, what is not
    /// resident is skipped, the passes are recorded in parallel by `exec`.
    pub fn render_frame(
        &mut self,
        frame: &RenderFrame,
        view: &View,
        width: u32,
        height: u32,
        exec: &dyn Executor,
    ) -> Result<FrameReport> {
        check_size(width, height)?;
        let prepared = self.prepare(frame)?;
        let (report, _, _) = self.draw(frame, view, (width, height), exec, false, prepared)?;
        Ok(report)
    }

    /// Waits for every frame and returns the pass times not handed out yet, oldest first.
    pub fn finish(&mut self) -> Result<Vec<(u64, Vec<PassTiming>)>> {
        self.gpu.wait_idle()?;
        let mut out = Vec::new();
        if let Some(t) = &mut self.timer {
            for (i, slot) in self.slots.iter_mut().enumerate() {
                if let (Some(n), Some(list)) = (slot.frame.take(), t.begin_frame(i)?) {
                    out.push((n, list));
                }
            }
        }
        out.sort_by_key(|(n, _)| *n);
        self.gpu.collect_garbage()?;
        Ok(out)
    }

    /// Brings the cached GPU resources in line with `frame`: rebuilds the static batch when
    /// its generation changed, the live meshes when their sizes changed, and queues the
    /// uploads of new textures (dropping those no material uses) and of new meshes
    /// (freeing those unnamed past the keep window). Returns whether the static batch was
    /// rebuilt and what the mesh cache did.
    fn prepare(&mut self, frame: &RenderFrame) -> Result<Prepared> {
        let gen = frame.static_generation;
        let mut rebuilt = false;
        if gen == 0 || self.static_generation != Some(gen) {
            if let Some(old) = self.statics.take() {
                for j in old.jobs {
                    self.uploads.cancel(j);
                }
            }
            let (vertices, indices, draws) = static_geometry(frame);
            self.statics = upload_geometry(
                &self.gpu,
                &mut self.uploads,
                "static batch",
                &vertices,
                &indices,
                draws,
            )?;
            self.static_generation = Some(gen);
            self.static_builds += 1;
            rebuilt = true;
        }
        let key = size_key(frame);
        if key != self.live_key || (self.live.is_none() && !key.is_empty()) {
            if let Some(old) = self.live.take() {
                for j in old.jobs {
                    self.uploads.cancel(j);
                }
            }
            let (vertices, indices, draws) = live_geometry(frame);
            self.live = upload_geometry(
                &self.gpu,
                &mut self.uploads,
                "live boxes",
                &vertices,
                &indices,
                draws,
            )?;
            self.live_key = key;
        }
        let now = self.frames + 1;
        for t in frame.materials.iter().flat_map(|m| {
            let glow = m.emissive_texture.as_ref().map(|e| &e.texture);
            m.base_color_texture.as_ref().into_iter().chain(glow)
        }) {
            let k = Arc::as_ptr(t) as usize;
            if let Some(e) = self.textures.get_mut(&k) {
                e.last_used = now;
                continue;
            }
            let image = texture_image(&self.gpu, t)?;
            let job = self.uploads.push_texture(image.raw(), Arc::clone(t));
            self.textures.insert(
                k,
                TextureEntry {
                    _texture: Arc::clone(t),
                    image,
                    job,
                    last_used: now,
                },
            );
        }
        let uploads = &mut self.uploads;
        self.textures.retain(|_, e| {
            let keep = e.last_used == now;
            if !keep {
                uploads.cancel(e.job);
            }
            keep
        });
        let meshes = self.meshes.prepare(
            &self.gpu,
            &mut self.mesh_uploads,
            &frame.meshes,
            self.frames,
        )?;
        Ok(Prepared {
            rebuilt,
            meshes,
            landed: 0,
        })
    }

    /// Upload-only frames until the queues (assets and meshes) are empty; returns how many
    /// meshes landed.
    fn flush_uploads(&mut self) -> Result<usize> {
        let mut idle = 0;
        while !self.uploads.is_empty() || !self.mesh_uploads.is_empty() {
            let mut fr = self.ring.begin_frame()?;
            self.staging.begin_frame(self.gpu.completed_value()?);
            let mut pumped = self.uploads.pump(&mut self.staging);
            // A capture lands every mesh: no time budget, only the ring's.
            pumped.bytes += self.mesh_uploads.pump(&mut self.staging).bytes;
            if pumped.bytes == 0 {
                idle += 1;
                if idle > 2 * self.slots.len() + 1 {
                    return Err(invalid(
                        "uploads",
                        format!(
                            "{} bytes make no progress: the staging ring ({} bytes, {} a frame) takes none of them",
                            self.uploads.bytes_left() + self.mesh_uploads.bytes_left(),
                            self.staging.config().capacity,
                            self.staging.config().frame_byte_budget
                        ),
                    ));
                }
            } else {
                idle = 0;
            }
            let pool = fr.pool(0).ok_or_else(|| invalid("frame ring", "no pool"))?;
            let cmd = pool.begin_primary()?;
            self.gpu.cmd_begin_label(cmd, "upload");
            self.staging.flush(&self.gpu, cmd);
            self.gpu.cmd_end_label(cmd);
            pool.end(cmd)?;
            let value = fr.submit(&[cmd], &[])?;
            self.staging.submitted(value);
        }
        Ok(self.meshes.mark_landed(&self.mesh_uploads))
    }

    /// One frame: frame data and uploads through the staging ring, descriptor sets, the
    /// passes recorded by `exec`, one submit; with `readback`, waits and reads the capture.
    /// Returns the frame slot it used too.
    fn draw(
        &mut self,
        frame: &RenderFrame,
        view: &View,
        (width, height): (u32, u32),
        exec: &dyn Executor,
        readback: bool,
        prepared: Prepared,
    ) -> Result<(FrameReport, Option<RgbaImage>, usize)> {
        let gpu = self.gpu.clone();
        let setup = camera::setup(view, width, height, frame.bounds());

        // ---- Lights: ranked to 64, binned into the view's clusters.
        let volume = setup.volume();
        let ranked = lights::rank_lights(&frame.lights, &volume);
        let shaded: Vec<super::frame::Light> = ranked.iter().map(|&i| frame.lights[i]).collect();
        let grid = ClusterGrid::new(&frame.clusters, setup.near);
        let bins = lights::bin_lights(&shaded, &volume, &grid);

        // ---- The sun's cascades.
        let shadow_far = setup
            .far
            .map_or(SHADOW_DISTANCE, |f| f.min(SHADOW_DISTANCE));
        let splits =
            shadow::split_distances(setup.near, shadow_far.max(setup.near * 2.0), SPLIT_LAMBDA);
        let cascades = shadow::cascades(
            frame.lighting.sun_direction,
            setup.near,
            &splits,
            |a, b| setup.corners(a, b),
            frame.bounds(),
            CASCADE_RESOLUTION,
        );
        let sun_on = frame.lighting.sun_radiance.cmpgt(Vec3::ZERO).any();
        let plan = frame
            .post
            .bloom
            .map(|b| tonemap::bloom_plan(width, height, b.diffusion, b.anamorphic));

        // ---- What is resident before this frame's uploads (drawn this frame).
        let static_ready = self.statics.as_ref().filter(|g| g.ready(&self.uploads));
        let live_ready = self.live.as_ref().filter(|g| g.ready(&self.uploads));
        let resident = |t: &Arc<Texture>| {
            self.textures
                .get(&(Arc::as_ptr(t) as usize))
                .filter(|e| !self.uploads.is_pending(e.job))
        };
        let texture_of =
            |m: &super::frame::Material| m.base_color_texture.as_ref().and_then(resident);
        let glow_of = |m: &super::frame::Material| {
            m.emissive_texture
                .as_ref()
                .and_then(|g| resident(&g.texture))
        };
        let mut draws: Vec<Draw> = Vec::new();
        let mut skipped = 0;
        match (&self.statics, static_ready) {
            (_, Some(g)) => draws.extend_from_slice(&g.draws),
            (Some(g), None) => skipped += g.draws.len(),
            (None, None) => {}
        }
        match (&self.live, live_ready) {
            (_, Some(g)) => {
                draws.extend(g.draws.iter().zip(&frame.live_boxes).map(|(d, b)| Draw {
                    world: math::trs(b.position, b.rotation, Vec3::splat(1.0)),
                    ..*d
                }))
            }
            (Some(g), None) => skipped += g.draws.len(),
            (None, None) => {}
        }
        let box_draws = draws.len();
        // Meshes resident before this frame's uploads, after the boxes' geometry.
        let material_count = frame.materials.len().max(1) as u32;
        let fallbacks = Fallbacks {
            count: frame.materials.len(),
            flat_white: material_count,
            missing: material_count + 1,
        };
        let forward = setup.orthographic.then(|| -setup.view.row(2).truncate());

        // Resident textures (a base color and a glow texture, either of which may be
        // absent), once per sampler, and which pair each material samples.
        type TexturePair<'t> = (Option<&'t TextureEntry>, Option<&'t TextureEntry>, Sampling);
        let same = |a: Option<&TextureEntry>, b: Option<&TextureEntry>| match (a, b) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (None, None) => true,
            _ => false,
        };
        let mut textured: Vec<TexturePair<'_>> = Vec::new();
        let mut material_tex: Vec<Option<usize>> = Vec::with_capacity(frame.materials.len());
        let mut material_glow: Vec<bool> = Vec::with_capacity(frame.materials.len());
        for m in &frame.materials {
            let (base, glow) = (texture_of(m), glow_of(m));
            material_glow.push(glow.is_some());
            if base.is_none() && glow.is_none() {
                material_tex.push(None);
                continue;
            }
            let found = textured
                .iter()
                .position(|(b, g, s)| same(*b, base) && same(*g, glow) && *s == m.sampling);
            material_tex.push(Some(match found {
                Some(i) => i,
                None => {
                    textured.push((base, glow, m.sampling));
                    textured.len() - 1
                }
            }));
        }

        // ---- Frame data, one buffer of aligned sections.
        let uniform = frame_uniform(
            frame,
            &setup,
            width,
            height,
            &cascades,
            &grid,
            shaded.len(),
            &mut self.sky_ambient,
        );
        let light_data = light_data(&shaded);
        let material_data = material_data(
            frame,
            |i| {
                material_tex
                    .get(i)
                    .copied()
                    .flatten()
                    .and_then(|t| textured.get(t))
                    .is_some_and(|(b, _, _)| b.is_some())
            },
            |i| material_glow.get(i).copied().unwrap_or(false),
        );
        let align = self.align as usize;
        let mut data = Vec::new();
        // The light window lives in its own resident buffer; without a usable one the
        // block is the header alone, off, in the frame's data.
        let light_window = frame.voxel_light.as_ref().filter(|w| w.is_consistent());
        let voxel_off = voxel_light_header(None);
        let voxel_bytes: &[u8] = match light_window {
            Some(_) => &[],
            None => bytemuck::bytes_of(&voxel_off),
        };
        let mut sections = [(0u64, 0u64); 6];
        for (i, bytes) in [
            bytemuck::bytes_of(&uniform),
            bytemuck::cast_slice(&light_data),
            bytemuck::cast_slice(&bins.ranges),
            bytemuck::cast_slice(&bins.indices),
            bytemuck::cast_slice(&material_data),
            voxel_bytes,
        ]
        .into_iter()
        .enumerate()
        {
            let offset = align_up(data.len(), align);
            data.resize(offset, 0);
            data.extend_from_slice(bytes);
            // No binding is empty: at least one 64-byte element of zeros.
            let len = bytes.len().max(64);
            data.resize(offset + len, 0);
            sections[i] = (offset as u64, len as u64);
        }

        let frame_number = self.frames;
        self.frames += 1;
        let mut fr = self.ring.begin_frame()?;
        let slot_index = fr.slot();
        // Skinned drawables: buffers for new ones and this frame's poses, written into the
        // slot's section now that its previous frame has completed; each draws from its own
        // skinned streams in every pass.
        let meshes = &self.meshes;
        let skin_binds = self
            .skins
            .prepare(&gpu, frame, slot_index, frame_number, |k| {
                meshes.resident(k)
            })?;
        let mesh_draws = meshes.draws(frame, 2, setup.eye, forward, fallbacks, &skin_binds);
        draws.extend_from_slice(&mesh_draws.solid);
        let mut geos: Vec<Option<&GeoBind>> =
            vec![static_ready.map(|g| &g.bind), live_ready.map(|g| &g.bind)];
        geos.extend(mesh_draws.geos.iter().map(|g| Some(*g)));
        let slot = &mut self.slots[slot_index];
        let mut resolved = None;
        if let Some(t) = &mut self.timer {
            if let (Some(list), Some(n)) = (t.begin_frame(slot_index)?, slot.frame.take()) {
                resolved = Some((n, list));
            }
        }
        self.staging.begin_frame(gpu.completed_value()?);
        let need = data.len() as u64;
        if slot.data.as_ref().is_none_or(|b| b.size() < need) {
            slot.data = Some(gpu.create_buffer(&BufferDesc {
                name: "frame data",
                size: need.next_power_of_two(),
                usage: vk::BufferUsageFlags::UNIFORM_BUFFER
                    | vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::TRANSFER_DST,
                location: MemoryLocation::GpuOnly,
            })?);
        }
        let data_buffer = slot
            .data
            .as_ref()
            .map(Buffer::raw)
            .ok_or_else(|| invalid("frame data", "no buffer"))?;
        let staged = self.staging.stage_unbudgeted(&data).ok_or_else(|| {
            invalid(
                "staging ring",
                format!(
                    "no room for the frame's {need} bytes of data in a {}-byte ring",
                    self.staging.config().capacity
                ),
            )
        })?;
        self.staging.copy_to_buffer(staged, data_buffer, 0);
        // ---- The light window's header and changed bricks, under their own budget (a
        // capture writes them all).
        let (light_binding, light_writes) = match light_window {
            Some(w) => {
                let budget = (!readback).then(|| light_window::bricks_per_frame(w.upload_kb));
                let (buffer, writes) = self.light.stage(
                    &gpu,
                    &mut self.staging,
                    w,
                    bytemuck::bytes_of(&voxel_light_header(Some(w))),
                    setup.eye,
                    budget,
                )?;
                (Some(buffer), writes)
            }
            None => (None, light_window::LightWrites::default()),
        };
        // ---- Assets, under what is left of the budget, then meshes under their time
        // budget too.
        let pumped = self.uploads.pump(&mut self.staging);
        let mesh_pumped = self
            .mesh_uploads
            .pump_within(&mut self.staging, Some(self.mesh_upload_budget));
        // ---- Tile writes, after the uploads so a texture whose last level staged this
        // frame is written over after it.
        let tiles_written = write_tiles(
            &mut self.tile_pending,
            &self.textures,
            &self.uploads,
            &mut self.staging,
            &frame.tile_writes,
        );

        // ---- Targets for this size and bloom shape.
        if slot.targets.as_ref().is_none_or(|t| {
            t.width != width || t.height != height || t.plan != plan || t.samples != self.msaa
        }) {
            slot.targets = Some(make_targets(&gpu, width, height, plan, self.msaa)?);
        }

        // ---- Descriptor sets.
        slot.reset_pool(textured.len() as u32 + 1)?;
        let layouts = self.pipes.box_layout.set_layouts();
        let (Some(&frame_layout), Some(&texture_layout)) = (layouts.first(), layouts.get(1)) else {
            return Err(invalid("box layout", "missing set layouts"));
        };
        let targets = slot
            .targets
            .as_ref()
            .ok_or_else(|| invalid("render", "no targets"))?;
        let frame_set = slot.allocate(frame_layout)?;
        write_frame_set(
            &gpu,
            &self.pipes,
            frame_set,
            data_buffer,
            &sections,
            light_binding,
            targets,
        );
        let white_set = slot.allocate(texture_layout)?;
        let white = &self.white.image;
        write_texture_set(&gpu, white_set, white, white, self.pipes.repeat);
        let mut texture_sets = Vec::with_capacity(textured.len());
        for (base, glow, sampling) in &textured {
            let set = slot.allocate(texture_layout)?;
            let sampler = match (sampling, frame.mipmaps) {
                (Sampling::Linear, Mipmaps::On) => self.pipes.repeat,
                (Sampling::Linear, Mipmaps::Off) => self.pipes.repeat_top,
                (Sampling::Nearest, _) | (Sampling::NearestMipLinear, Mipmaps::Off) => {
                    self.pipes.nearest
                }
                (Sampling::NearestMipLinear, Mipmaps::On) => self.pipes.nearest_mip,
            };
            // An absent glow texture reads white, its gain 0 in the material data.
            let base = base.map_or(white, |e| &e.image);
            let glow = glow.map_or(white, |e| &e.image);
            write_texture_set(&gpu, set, base, glow, sampler);
            texture_sets.push(set);
        }
        let material_sets: Vec<vk::DescriptorSet> = material_tex
            .iter()
            .map(|t| {
                t.and_then(|i| texture_sets.get(i).copied())
                    .unwrap_or(white_set)
            })
            .collect();
        let screen_layout = *self
            .pipes
            .screen_layout
            .set_layouts()
            .first()
            .ok_or_else(|| invalid("screen layout", "no set layout"))?;
        let screen = |a: &Image, b: &Image| -> Result<vk::DescriptorSet> {
            let set = slot.allocate(screen_layout)?;
            write_screen_set(&gpu, &self.pipes, set, a, b);
            Ok(set)
        };
        let mut bloom_sets = Vec::new();
        if let Some(p) = targets.plan {
            let levels = p.levels as usize;
            // Prefilter reads the HDR frame; down i reads down i-1.
            bloom_sets.push(screen(&targets.hdr, &targets.hdr)?);
            for i in 1..levels {
                let d = &targets.down_chain[i - 1];
                bloom_sets.push(screen(d, d)?);
            }
            // Up i reads the level below (up i+1, or the last down) and down i.
            for i in (0..levels.saturating_sub(1)).rev() {
                let below = targets
                    .up_chain
                    .get(i + 1)
                    .or_else(|| targets.down_chain.last())
                    .ok_or_else(|| invalid("bloom", "no pyramid level"))?;
                bloom_sets.push(screen(below, &targets.down_chain[i])?);
            }
        }
        // The resolved pyramid: up 0, or the base alone when there is one level.
        let bloom_result = targets
            .up_chain
            .first()
            .or_else(|| targets.down_chain.first())
            .unwrap_or(&targets.hdr);
        let post_set = screen(&targets.hdr, bloom_result)?;

        // ---- The passes, their costs (draw calls) and their timestamp pairs.
        let n = (draws.len() + mesh_draws.translucent.len()) as u64;
        let mut passes = vec![
            (Pass::Shadows, if sun_on { 4 * n + 1 } else { 1 }),
            (Pass::Prepass, n + 1),
            (Pass::Opaque, n + 2),
        ];
        if let (Some(p), Some(_)) = (targets.plan, frame.post.bloom) {
            passes.push((Pass::Bloom, 2 * u64::from(p.levels)));
        }
        passes.push((Pass::Resolve, 1));
        let mut queries = [None; 6];
        if let Some(t) = &mut self.timer {
            queries[Pass::Upload.index()] = t.pass(Pass::Upload.name());
            for (p, _) in &passes {
                queries[p.index()] = t.pass(p.name());
            }
        }
        let overlay_draw = self.overlay.prepare(slot_index)?;
        let ctx = PassCtx {
            gpu: &gpu,
            pipes: &self.pipes,
            t: targets,
            geos: &geos,
            draws: &draws,
            translucent: &mesh_draws.translucent,
            frame_set,
            material_sets: &material_sets,
            white_set,
            bloom_sets: &bloom_sets,
            post_set,
            view_proj: (setup.projection * setup.view),
            cascades_vp: cascades.map(|c| c.view_projection),
            sun_on,
            post: frame.post,
            readback,
            queries,
            overlay: overlay_draw.map(|d| (&self.overlay, d)),
        };

        // ---- Record: the copies here, the passes on the workers.
        let pools = fr.pools();
        let upload_cmd = {
            let pool = pools
                .first_mut()
                .ok_or_else(|| invalid("frame ring", "no pool"))?;
            let cmd = pool.begin_primary()?;
            let q = queries[Pass::Upload.index()];
            if let Some(q) = q {
                q.begin(&gpu, cmd);
            }
            gpu.cmd_begin_label(cmd, Pass::Upload.name());
            self.staging.flush(&gpu, cmd);
            gpu.cmd_end_label(cmd);
            // Skinning runs after the copies and before every pass (its barrier orders its
            // writes before their vertex reads).
            self.skins.record(cmd, frame_number);
            if let Some(q) = q {
                q.end(&gpu, cmd);
            }
            pool.end(cmd)?;
            cmd
        };
        let plan_workers = assign(&passes, pools.len());
        let workers = plan_workers.len();
        let mut results: Vec<Result<Vec<(Pass, vk::CommandBuffer)>>> =
            (0..workers).map(|_| Ok(Vec::new())).collect();
        let started = Instant::now();
        {
            let ctx = &ctx;
            let tasks: Vec<Task<'_>> = pools
                .iter_mut()
                .zip(&plan_workers)
                .zip(results.iter_mut())
                .map(|((pool, list), out)| {
                    Box::new(move || *out = record_worker(ctx, pool, list)) as Task<'_>
                })
                .collect();
            exec.execute(tasks);
        }
        let record = started.elapsed();
        let mut cmds: Vec<(Pass, vk::CommandBuffer)> = vec![(Pass::Upload, upload_cmd)];
        for r in results {
            cmds.extend(r?);
        }
        cmds.sort_by_key(|(p, _)| *p);
        let list: Vec<vk::CommandBuffer> = cmds.iter().map(|(_, c)| *c).collect();
        let value = fr.submit(&list, &[])?;
        self.staging.submitted(value);
        if let Some(t) = &mut self.timer {
            t.submitted(value);
        }
        let slot = &mut self.slots[slot_index];
        slot.frame = Some(frame_number);
        let image = if readback {
            gpu.wait_for(value, CAPTURE_WAIT)?;
            match &slot.targets {
                Some(t) => Some(t.capture.read()?),
                None => None,
            }
        } else {
            None
        };
        let mesh_drawn = mesh_draws.solid.len() + mesh_draws.translucent.len();
        let (mesh_skipped, mesh_refused) = (mesh_draws.skipped, mesh_draws.refused);
        let landed = self.meshes.mark_landed(&self.mesh_uploads) + prepared.landed;
        Ok((
            FrameReport {
                frame: frame_number,
                value,
                draws: box_draws,
                skipped_draws: skipped,
                mesh_draws: mesh_drawn,
                mesh_skipped_draws: mesh_skipped,
                meshes_refused: mesh_refused,
                mesh_bytes_resident: self.meshes.resident_bytes(),
                mesh_bytes_left: self.mesh_uploads.bytes_left(),
                meshes_uploaded: landed,
                meshes_freed: prepared.meshes.freed,
                lights: shaded.len(),
                record,
                workers,
                staging: self.staging.stats(),
                uploaded: pumped.bytes + mesh_pumped.bytes,
                upload_bytes_left: self.uploads.bytes_left(),
                static_rebuilt: prepared.rebuilt,
                resolved,
                derived_far: setup.derived_far,
                light_bricks_written: light_writes.written,
                light_bricks_pending: light_writes.pending,
                tiles_written,
                tiles_pending: self.tile_pending.len(),
            },
            image,
            slot_index,
        ))
    }
}

/// What [`Renderer::prepare`] did before a frame.
#[derive(Debug, Clone, Copy)]
struct Prepared {
    /// Whether the static batch was rebuilt.
    rebuilt: bool,
    /// What the mesh cache did.
    meshes: meshes::Prepared,
    /// Meshes that landed in a capture's upload-only frames.
    landed: usize,
}

fn check_size(width: u32, height: u32) -> Result<()> {
    if width == 0 || height == 0 || width > 16384 || height > 16384 {
        return Err(invalid("render", format!("size {width}x{height}")));
    }
    Ok(())
}

fn record_worker(
    ctx: &PassCtx<'_>,
    pool: &mut CommandPool,
    passes: &[Pass],
) -> Result<Vec<(Pass, vk::CommandBuffer)>> {
    passes
        .iter()
        .map(|&p| {
            let cmd = pool.begin_primary()?;
            ctx.record(p, cmd);
            pool.end(cmd)?;
            Ok((p, cmd))
        })
        .collect()
}

/// A sampled RGBA8 sRGB image for `t`, one level for the top and each of its mip chain's
/// (checked against [`MAX_TEXTURE_EDGE`]; a chain is the full one for the size, every level
/// its size's bytes).
fn texture_image(gpu: &Gpu, t: &Texture) -> Result<Image> {
    let edges_ok =
        (1..=MAX_TEXTURE_EDGE).contains(&t.width) && (1..=MAX_TEXTURE_EDGE).contains(&t.height);
    if !edges_ok || t.rgba.len() != t.width as usize * t.height as usize * 4 {
        return Err(invalid(
            "texture",
            format!(
                "{}x{} with {} bytes (edges 1 to {MAX_TEXTURE_EDGE}, 4 bytes a texel)",
                t.width,
                t.height,
                t.rgba.len()
            ),
        ));
    }
    let full = dh_content::mips::level_count(t.width, t.height);
    let levels = t.level_count();
    if levels != 1 && levels != full {
        return Err(invalid(
            "texture",
            format!(
                "{}x{} with {levels} levels (1, or the full chain's {full})",
                t.width, t.height
            ),
        ));
    }
    for l in 1..levels {
        if let Some((w, h, bytes)) = t.level(l) {
            if bytes.len() != w as usize * h as usize * 4 {
                return Err(invalid(
                    "texture",
                    format!(
                        "{}x{} level {l}: {} bytes where {w}x{h} takes {}",
                        t.width,
                        t.height,
                        bytes.len(),
                        w as usize * h as usize * 4
                    ),
                ));
            }
        }
    }
    gpu.create_image(&ImageDesc {
        mip_levels: levels,
        ..ImageDesc::new_2d(
            "base color",
            vk::Format::R8G8B8A8_SRGB,
            t.width,
            t.height,
            vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::SAMPLED,
        )
    })
}

fn write_frame_set(
    gpu: &Gpu,
    pipes: &Pipelines,
    set: vk::DescriptorSet,
    buffer: vk::Buffer,
    sections: &[(u64, u64); 6],
    light: Option<vk::Buffer>,
    targets: &Targets,
) {
    let infos: Vec<[vk::DescriptorBufferInfo; 1]> = sections
        .iter()
        .enumerate()
        .map(|(i, &(offset, range))| match light.filter(|_| i == 5) {
            // The resident light window, whole.
            Some(l) => [vk::DescriptorBufferInfo::default()
                .buffer(l)
                .offset(0)
                .range(vk::WHOLE_SIZE)],
            None => [vk::DescriptorBufferInfo::default()
                .buffer(buffer)
                .offset(offset)
                .range(range)],
        })
        .collect();
    let sm = [vk::DescriptorImageInfo::default()
        .image_view(targets.atlas.view())
        .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
    let cs = [vk::DescriptorImageInfo::default().sampler(pipes.compare)];
    let w = |b: u32, ty: vk::DescriptorType| {
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(b)
            .descriptor_type(ty)
    };
    let mut writes = vec![w(0, vk::DescriptorType::UNIFORM_BUFFER).buffer_info(&infos[0])];
    // Sections 1 to 4 are bindings 1 to 4; section 5 (the light field) is binding 7.
    for (i, info) in infos.iter().enumerate().skip(1) {
        let b = if i == 5 { 7 } else { i as u32 };
        writes.push(w(b, vk::DescriptorType::STORAGE_BUFFER).buffer_info(info));
    }
    writes.push(w(5, vk::DescriptorType::SAMPLED_IMAGE).image_info(&sm));
    writes.push(w(6, vk::DescriptorType::SAMPLER).image_info(&cs));
    // SAFETY: the set is fresh from a reset pool; the infos outlive the call.
    unsafe { gpu.device().update_descriptor_sets(&writes, &[]) };
}

fn write_texture_set(
    gpu: &Gpu,
    set: vk::DescriptorSet,
    image: &Image,
    glow: &Image,
    sampler: vk::Sampler,
) {
    let ti = [vk::DescriptorImageInfo::default()
        .image_view(image.view())
        .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
    let gi = [vk::DescriptorImageInfo::default()
        .image_view(glow.view())
        .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
    let si = [vk::DescriptorImageInfo::default().sampler(sampler)];
    let writes = [
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
            .image_info(&ti),
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(1)
            .descriptor_type(vk::DescriptorType::SAMPLER)
            .image_info(&si),
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(2)
            .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
            .image_info(&gi),
    ];
    // SAFETY: as for the frame set.
    unsafe { gpu.device().update_descriptor_sets(&writes, &[]) };
}

fn write_screen_set(gpu: &Gpu, pipes: &Pipelines, set: vk::DescriptorSet, a: &Image, b: &Image) {
    let ia = [vk::DescriptorImageInfo::default()
        .image_view(a.view())
        .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
    let ib = [vk::DescriptorImageInfo::default()
        .image_view(b.view())
        .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
    let s = [vk::DescriptorImageInfo::default().sampler(pipes.linear)];
    let writes = [
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
            .image_info(&ia),
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(1)
            .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
            .image_info(&ib),
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(2)
            .descriptor_type(vk::DescriptorType::SAMPLER)
            .image_info(&s),
    ];
    // SAFETY: as for the frame set.
    unsafe { gpu.device().update_descriptor_sets(&writes, &[]) };
}

/// The static boxes, pre-transformed into world space and grouped by material: one draw per
/// material.
fn static_geometry(frame: &RenderFrame) -> (Vec<MeshVertex>, Vec<u32>, Vec<Draw>) {
    let mut vertices: Vec<MeshVertex> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let mut draws = Vec::new();
    let mut order: Vec<&BoxInstance> = frame.static_boxes.iter().collect();
    order.sort_by_key(|b| b.material);
    let mut i = 0;
    while i < order.len() {
        let material = order[i].material;
        let first = indices.len() as u32;
        while i < order.len() && order[i].material == material {
            let b = order[i];
            // The content crate's vertices are plain arrays (MeshVertex is its Pod layout).
            let m = mesh::box_mesh(b.size.to_array());
            let base = vertices.len() as u32;
            for v in m.vertices.iter() {
                let p = b.position + math::rotate(b.rotation, Vec3::from(v.position));
                let n = math::rotate(b.rotation, Vec3::from(v.normal));
                let t = math::rotate(
                    b.rotation,
                    Vec3::new(v.tangent[0], v.tangent[1], v.tangent[2]),
                );
                vertices.push(MeshVertex {
                    position: p.to_array(),
                    normal: n.to_array(),
                    tangent: [t[0], t[1], t[2], v.tangent[3]],
                    ..*v
                });
            }
            indices.extend(m.indices.iter().map(|&k| base + u32::from(k)));
            i += 1;
        }
        draws.push(Draw::boxes(
            0,
            first,
            indices.len() as u32 - first,
            0,
            material,
        ));
    }
    (vertices, indices, draws)
}

/// Each live box's mesh in local space: one draw each, posed per frame.
fn live_geometry(frame: &RenderFrame) -> (Vec<MeshVertex>, Vec<u32>, Vec<Draw>) {
    let mut vertices: Vec<MeshVertex> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let mut draws = Vec::new();
    for b in &frame.live_boxes {
        let m = mesh::box_mesh(b.size.to_array());
        let first = indices.len() as u32;
        let base = vertices.len() as i32;
        vertices.extend_from_slice(&m.vertices);
        indices.extend(m.indices.iter().map(|&k| u32::from(k)));
        draws.push(Draw::boxes(
            1,
            first,
            m.indices.len() as u32,
            base,
            b.material,
        ));
    }
    (vertices, indices, draws)
}

/// Device-local buffers for the geometry, their uploads queued; `None` when empty.
fn upload_geometry(
    gpu: &Gpu,
    uploads: &mut UploadQueue,
    name: &str,
    vertices: &[MeshVertex],
    indices: &[u32],
    draws: Vec<Draw>,
) -> Result<Option<GeoCache>> {
    if vertices.is_empty() {
        return Ok(None);
    }
    let packed = mesh::pack_streams(vertices, None, None)
        .map_err(|e| invalid("box geometry", e.to_string()))?;
    let buffer = gpu.create_buffer(&BufferDesc {
        name,
        size: packed.bytes.len() as u64,
        usage: vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
        location: MemoryLocation::GpuOnly,
    })?;
    let index_bytes: Vec<u8> = bytemuck::cast_slice(indices).to_vec();
    let index = gpu.create_buffer(&BufferDesc {
        name,
        size: index_bytes.len() as u64,
        usage: vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
        location: MemoryLocation::GpuOnly,
    })?;
    let offsets = |layout: MeshVertexLayout| -> Vec<u64> {
        layout
            .streams()
            .iter()
            .map(|s| packed.binding_offset(s.kind) as u64)
            .collect()
    };
    let bind = GeoBind {
        buffer: buffer.raw(),
        index: index.raw(),
        full: offsets(MeshVertexLayout::Full),
        position: offsets(MeshVertexLayout::PositionOnly),
    };
    let jobs = [
        uploads.push_buffer(buffer.raw(), packed.bytes),
        uploads.push_buffer(index.raw(), index_bytes),
    ];
    Ok(Some(GeoCache {
        _buffer: buffer,
        _index: index,
        bind,
        draws,
        jobs,
    }))
}

/// The `struct Frame` uniform block.
#[allow(clippy::too_many_arguments)] // the frame's inputs, each a borrow of a different owner
fn frame_uniform(
    frame: &RenderFrame,
    setup: &ViewSetup,
    width: u32,
    height: u32,
    cascades: &[shadow::Cascade; CASCADES],
    grid: &ClusterGrid,
    lights: usize,
    sky_ambient: &mut sky::SkyAmbientCache,
) -> FrameUniform {
    let v4 = |v: Vec3, w: f32| v.extend(w);
    let vp = setup.projection * setup.view;
    let l = &frame.lighting;
    let d = math::normalize_or(l.sun_direction, Vec3::new(0.0, -1.0, 0.0));
    let s = l.sun_radiance;
    let mut sh = [Vec3::ZERO; 9];
    let (ambient_sky, ambient_ground) = match l.ambient {
        Ambient::Hemisphere { sky: a, ground: g } => (v4(a, 0.0), v4(g, 0.0)),
        Ambient::Sky { intensity } => {
            let params = l.sky.unwrap_or_default();
            sh = sky_ambient.get(&params, d, s, l.sun_angular_diameter);
            (
                Vec4::new(0.0, 0.0, 0.0, 1.0),
                Vec4::new(0.0, 0.0, 0.0, intensity),
            )
        }
    };
    let k = l.sky.unwrap_or_default();
    FrameUniform {
        view_proj: vp,
        view: setup.view,
        inv_view_proj: math::inverse(&vp).unwrap_or(Mat4::IDENTITY),
        cascades: cascades.map(|c| c.view_projection),
        cascade_splits: cascades.map(|c| c.split).into(),
        cascade_texel: cascades.map(|c| c.texel_size).into(),
        camera: v4(setup.eye, if setup.orthographic { 1.0 } else { 0.0 }),
        sun_direction: v4(d, l.half_lambert.clamp(0.0, 1.0)),
        sun_radiance: v4(s, 0.0),
        ambient_sky,
        ambient_ground,
        sh: sh.map(|c| v4(c, 0.0)),
        cluster_dims: [grid.columns, grid.rows, grid.slices, lights as u32],
        cluster_params: glam::Vec4::new(
            grid.near,
            grid.far,
            (grid.far / grid.near).ln(),
            if frame.clusters.enabled { 1.0 } else { 0.0 },
        ),
        viewport: glam::Vec4::new(
            width as f32,
            height as f32,
            1.0 / width as f32,
            1.0 / height as f32,
        ),
        sky0: glam::Vec4::new(k.rayleigh, k.mie, k.mie_anisotropy, k.horizon_softness),
        sky1: glam::Vec4::new(
            k.intensity,
            k.sun_disc,
            k.ground_blend,
            l.sun_angular_diameter,
        ),
        sky_ground: v4(k.ground, if l.sky.is_some() { 1.0 } else { 0.0 }),
        clear_color: v4(clear_color(frame), 0.0),
    }
}

/// What shows behind the geometry when the sky is off: the hemisphere fill's sky color at
/// full strength (a sky-ambient world with its sky off has no hemisphere; a dim gray).
pub fn clear_color(frame: &RenderFrame) -> Vec3 {
    match frame.lighting.ambient {
        Ambient::Hemisphere { sky, .. } => {
            let m = sky[0].max(sky[1]).max(sky[2]);
            if m > 0.0 {
                // Normalized to the color's own hue at a mid value.
                sky.map(|c| c / m * 0.45)
            } else {
                Vec3::ZERO
            }
        }
        Ambient::Sky { .. } => Vec3::splat(0.2),
    }
}

/// The ranked lights' storage block.
fn light_data(lights: &[super::frame::Light]) -> Vec<LightData> {
    lights
        .iter()
        .map(|l| {
            let kind = match l.kind {
                LightKind::Point => 0.0,
                LightKind::Spot => 1.0,
                LightKind::Directional => 2.0,
            };
            let falloff = match l.falloff {
                super::frame::Falloff::Physical => 0.0,
                super::frame::Falloff::Unity => 1.0,
            };
            let v4 = |v: Vec3, w: f32| v.extend(w);
            LightData {
                position_range: v4(l.position, l.range),
                direction_kind: v4(l.direction, kind),
                radiance_falloff: v4(l.radiance, falloff),
                cone: glam::Vec4::new(l.inner_cone.cos(), l.outer_cone.cos(), 0.0, 0.0),
            }
        })
        .collect()
}

/// Queues `writes` behind any still waiting (a later write for the same texture and
/// rects replaces the earlier), then stages and queues the copies of every write whose
/// texture is resident, each in one piece; returns how many were queued. Writes for a
/// texture no material drew this frame are dropped, and an inconsistent write is
/// refused ([`super::frame::TileWrite::is_consistent`]).
fn write_tiles(
    pending: &mut Vec<super::frame::TileWrite>,
    textures: &HashMap<usize, TextureEntry>,
    uploads: &UploadQueue,
    staging: &mut StagingRing,
    writes: &[super::frame::TileWrite],
) -> usize {
    for w in writes.iter().filter(|w| w.is_consistent()) {
        let same =
            |p: &super::frame::TileWrite| Arc::ptr_eq(&p.texture, &w.texture) && p.rects == w.rects;
        match pending.iter_mut().find(|p| same(p)) {
            Some(p) => *p = w.clone(),
            None => pending.push(w.clone()),
        }
    }
    pending.retain(|w| textures.contains_key(&(Arc::as_ptr(&w.texture) as usize)));
    let mut written = 0;
    let mut left = Vec::new();
    for w in std::mem::take(pending) {
        let entry = textures.get(&(Arc::as_ptr(&w.texture) as usize));
        let Some(e) = entry.filter(|e| !uploads.is_pending(e.job)) else {
            left.push(w);
            continue;
        };
        let Some(slice) = staging.stage_unbudgeted(&w.bytes) else {
            left.push(w);
            continue;
        };
        let mut offset = slice.offset;
        for r in &w.rects {
            let at = StagingSlice { offset, ..slice };
            staging.copy_to_image(
                at,
                ImageUpload {
                    image: e.image.raw(),
                    aspect: vk::ImageAspectFlags::COLOR,
                    mip_level: r.level,
                    base_layer: 0,
                    layer_count: 1,
                    offset: vk::Offset3D {
                        x: r.x as i32,
                        y: r.y as i32,
                        z: 0,
                    },
                    extent: vk::Extent3D {
                        width: r.width,
                        height: r.height,
                        depth: 1,
                    },
                    row_length: 0,
                    old_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                    new_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                },
            );
            offset += u64::from(r.width) * u64::from(r.height) * 4;
        }
        written += 1;
    }
    *pending = left;
    written
}

/// The materials' storage block; `textured(i)` says whether material `i`'s texture is
/// resident (otherwise it shades with its tint alone). After the frame's own materials (or
/// the missingMaterial alone when it has none) come [`super::frame::Material::flat_white`]
/// and the missingMaterial, the mesh draws' fallbacks ([`Fallbacks`]).
fn material_data(
    frame: &RenderFrame,
    textured: impl Fn(usize) -> bool,
    glowing: impl Fn(usize) -> bool,
) -> Vec<MaterialData> {
    let mut o = Vec::new();
    let missing = super::frame::Material::missing();
    let flat = super::frame::Material::flat_white();
    let mut list: Vec<&super::frame::Material> = if frame.materials.is_empty() {
        vec![&missing]
    } else {
        frame.materials.iter().collect()
    };
    let own = frame.materials.len();
    list.push(&flat);
    list.push(&missing);
    for (i, m) in list.into_iter().enumerate() {
        let shading = match m.shading {
            Shading::Lit => 0.0,
            Shading::Unlit => 1.0,
            Shading::Missing => 2.0,
        };
        let b = m.base_color;
        let e = m.emissive;
        let has = i < own && m.base_color_texture.is_some() && textured(i);
        o.push(MaterialData {
            base_color: glam::Vec4::new(b[0], b[1], b[2], shading),
            emissive: glam::Vec4::new(e[0], e[1], e[2], if has { 1.0 } else { 0.0 }),
            uv_scale: glam::Vec4::new(
                m.uv_scale[0],
                m.uv_scale[1],
                m.alpha,
                m.emissive_texture
                    .as_ref()
                    .filter(|_| i < own && glowing(i))
                    .map_or(0.0, |g| g.intensity),
            ),
            detail_color: m
                .detail
                .map_or(glam::Vec4::ZERO, |d| d.color.truncate().extend(0.0)),
            detail_weight: m
                .detail
                .map_or(glam::Vec4::ZERO, super::meshes::detail_weight),
        });
    }
    o
}

/// Bytes of the light field block's header (`struct VoxelLight` in `box_lit.wgsl`, before
/// its cells).
pub const VOXEL_LIGHT_HEADER_BYTES: usize = std::mem::size_of::<VoxelLightHeader>();

/// The light field block's header: world to light, origin, bricks and whether it is on,
/// occlusion step, fill gain and edge fade, the sky gate (16 levels), the fill per level.
/// The cells follow it in the resident buffer, two to a 32-bit word (the even cell low,
/// [`light_window::pack_cells`]). With no window, or one whose cells do not match its
/// bricks, off.
fn voxel_light_header(window: Option<&super::frame::VoxelLightWindow>) -> VoxelLightHeader {
    let w = window.filter(|w| w.is_consistent());
    let Some(w) = w else {
        return VoxelLightHeader {
            world_to_light: glam::Mat4::IDENTITY,
            ..bytemuck::Zeroable::zeroed()
        };
    };
    let gate = w.sky_gate;
    VoxelLightHeader {
        world_to_light: w.world_to_light,
        origin: [w.origin[0], w.origin[1], w.origin[2], 0],
        dims: [w.bricks[0], w.bricks[1], w.bricks[2], 1],
        params: glam::Vec4::new(
            w.occlusion_step.clamp(0.0, 1.0 / 3.0),
            w.block_light_intensity.max(0.0),
            w.edge_fade.max(0.0),
            0.0,
        ),
        gate: std::array::from_fn(|i| {
            glam::Vec4::new(
                gate[4 * i],
                gate[4 * i + 1],
                gate[4 * i + 2],
                gate[4 * i + 3],
            )
        }),
        fill: w.fill.map(|f| f.extend(0.0)),
    }
}
