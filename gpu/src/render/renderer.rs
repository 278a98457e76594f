//! The passes that draw a [`RenderFrame`] from one view into an `R8G8B8A8_SRGB` capture:
//! the sun's cascaded shadow maps and a depth prepass (both `MeshVertexLayout::PositionOnly`),
//! the lit/unlit box pass (`Full`) with clustered lights, the sky, the bloom pyramid and the
//! resolve (exposure, bloom, tonemap). One primary command buffer, one submit; every pass
//! is timed when a [`GpuTimer`] is given and labelled for RenderDoc.

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;
use dh_content::mesh::{self, MeshVertex, MeshVertexLayout, StreamKind, VertexFormat};

use super::camera::{self, ViewSetup};
use super::frame::{Ambient, BoxInstance, LightKind, Post, RenderFrame, Shading, Texture, View};
use super::lights::{self, ClusterGrid};
use super::math::{self, Mat4};
use super::shadow::{self, CASCADES, SHADOW_DISTANCE, SPLIT_LAMBDA};
use super::sky;
use super::tonemap;
use crate::{
    shaders, Buffer, BufferDesc, CaptureTarget, ColorTarget, DepthState, Gpu, GpuError, GpuTimer,
    GraphicsPipelineDesc, Image, ImageDesc, MemoryLocation, PassTiming, Pipeline, PipelineLayout,
    PipelineLayoutDesc, Result, Retired, RgbaImage, ShaderEntry, VertexInput, CAPTURE_FORMAT,
};

/// The HDR scene format.
pub const HDR_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
/// The depth format (prepass and shadow atlas).
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;
/// One shadow cascade's edge, texels; the atlas holds the four in a 2 × 2 grid.
pub const CASCADE_RESOLUTION: u32 = 1024;
/// Bytes of the per-draw push constant: clip-from-local (64), world-from-local as three
/// rows (48), the material (16): the 128 bytes every device allows.
pub const DRAW_PUSH_BYTES: u32 = 128;
/// Bytes of the frame uniform block (`struct Frame` in `box_lit.wgsl`).
pub const FRAME_UNIFORM_BYTES: usize = 816;

/// What one render produced.
#[derive(Debug)]
pub struct RenderOutput {
    /// The picture.
    pub image: RgbaImage,
    /// The far plane an orthographic view derived from the map bounds, to log.
    pub derived_far: Option<f32>,
    /// Per-pass GPU times, when a timer was given (lavapipe: CPU time, a smoke figure).
    pub timings: Vec<PassTiming>,
    /// Lights shaded after ranking (at most 64).
    pub lights: usize,
    /// Draw calls recorded in the box passes (one per static material, one per live box).
    pub draws: usize,
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

/// The renderer: its pipelines, samplers and the static batch it keeps between frames.
pub struct Renderer {
    gpu: Gpu,
    box_layout: Arc<PipelineLayout>,
    screen_layout: Arc<PipelineLayout>,
    shadow: Pipeline,
    prepass: Pipeline,
    lit: Pipeline,
    sky: Pipeline,
    prefilter: Pipeline,
    down: Pipeline,
    up: Pipeline,
    post: Pipeline,
    linear: vk::Sampler,
    repeat: vk::Sampler,
    compare: vk::Sampler,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer").finish_non_exhaustive()
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        for s in [self.linear, self.repeat, self.compare] {
            self.gpu.retire_pending(Retired::Sampler(s));
        }
    }
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

impl Renderer {
    /// Builds the pipelines.
    pub fn new(gpu: &Gpu) -> Result<Renderer> {
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
                    ],
                    vec![
                        binding(0, vk::DescriptorType::SAMPLED_IMAGE, frag),
                        binding(1, vk::DescriptorType::SAMPLER, frag),
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
        let depth_only = |name: &str, bias: Option<(f32, f32, f32)>, cull: vk::CullModeFlags| {
            let mut d = GraphicsPipelineDesc::new(
                name,
                &box_layout,
                ShaderEntry::new(&shaders::DEPTH, "vs_main"),
                None,
            );
            d.vertex_input = vertex_input(MeshVertexLayout::PositionOnly);
            d.cull_mode = cull;
            d.front_face = vk::FrontFace::COUNTER_CLOCKWISE;
            d.depth = Some(DepthState {
                format: DEPTH_FORMAT,
                test: true,
                write: true,
                compare: vk::CompareOp::LESS,
                bias,
                clamp: false,
            });
            Pipeline::graphics(gpu, &d)
        };
        let shadow = depth_only(
            "shadow cascades",
            Some((1.25, 0.0, 1.75)),
            vk::CullModeFlags::NONE,
        )?;
        let prepass = depth_only("depth prepass", None, vk::CullModeFlags::BACK)?;
        let mut lit = GraphicsPipelineDesc::new(
            "boxes lit",
            &box_layout,
            ShaderEntry::new(&shaders::BOX_LIT, "vs_main"),
            Some(ShaderEntry::new(&shaders::BOX_LIT, "fs_main")),
        );
        lit.vertex_input = vertex_input(MeshVertexLayout::Full);
        lit.cull_mode = vk::CullModeFlags::BACK;
        lit.front_face = vk::FrontFace::COUNTER_CLOCKWISE;
        lit.depth = Some(DepthState {
            format: DEPTH_FORMAT,
            test: true,
            write: false,
            compare: vk::CompareOp::LESS_OR_EQUAL,
            bias: None,
            clamp: false,
        });
        lit.color_targets = vec![ColorTarget {
            format: HDR_FORMAT,
            blend: None,
        }];
        let lit = Pipeline::graphics(gpu, &lit)?;
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
        let sky = Pipeline::graphics(gpu, &sky)?;
        let screen =
            |name: &str, shader: &'static shaders::Shader, entry: &str, format: vk::Format| {
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
        let repeat = sampler(
            gpu,
            &vk::SamplerCreateInfo::default()
                .mag_filter(vk::Filter::LINEAR)
                .min_filter(vk::Filter::LINEAR)
                .address_mode_u(repeat_mode)
                .address_mode_v(repeat_mode)
                .address_mode_w(repeat_mode)
                .max_lod(0.0),
            "base color",
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
        Ok(Renderer {
            gpu: gpu.clone(),
            box_layout,
            screen_layout,
            shadow,
            prepass,
            lit,
            sky,
            prefilter,
            down,
            up,
            post,
            linear,
            repeat,
            compare,
        })
    }

    /// Renders `frame` from `view` at `width × height`, waits, and reads the picture back.
    pub fn render(
        &mut self,
        frame: &RenderFrame,
        view: &View,
        width: u32,
        height: u32,
        mut timer: Option<&mut GpuTimer>,
    ) -> Result<RenderOutput> {
        if width == 0 || height == 0 || width > 16384 || height > 16384 {
            return Err(invalid("render", format!("size {width}x{height}")));
        }
        let gpu = self.gpu.clone();
        let setup = camera::setup(view, width, height, frame.bounds());
        if let Some(t) = timer.as_deref_mut() {
            // Drains an earlier render's results and opens this one's slot.
            let _ = t.begin_frame(0)?;
        }

        // ---- Geometry: the static batch (world space, one draw per material) and the
        // live boxes (local space, one draw each at this frame's pose).
        let geometry = Geometry::build(&gpu, frame)?;

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
        let sun_on = frame.lighting.sun_radiance.iter().any(|c| *c > 0.0);

        // ---- Buffers.
        let uniform = frame_uniform(frame, &setup, width, height, &cascades, &grid, shaded.len());
        let frame_buffer = host_buffer(
            &gpu,
            "frame uniform",
            vk::BufferUsageFlags::UNIFORM_BUFFER,
            &uniform,
        )?;
        let light_bytes = light_bytes(&shaded);
        let light_buffer = host_buffer(
            &gpu,
            "lights",
            vk::BufferUsageFlags::STORAGE_BUFFER,
            &light_bytes,
        )?;
        let range_bytes: Vec<u8> = bins
            .ranges
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let range_buffer = host_buffer(
            &gpu,
            "cluster ranges",
            vk::BufferUsageFlags::STORAGE_BUFFER,
            &range_bytes,
        )?;
        let index_bytes: Vec<u8> = bins.indices.iter().flat_map(|v| v.to_le_bytes()).collect();
        let index_buffer = host_buffer(
            &gpu,
            "cluster lights",
            vk::BufferUsageFlags::STORAGE_BUFFER,
            &index_bytes,
        )?;
        let (material_bytes, textures) = material_bytes(frame);
        let material_buffer = host_buffer(
            &gpu,
            "materials",
            vk::BufferUsageFlags::STORAGE_BUFFER,
            &material_bytes,
        )?;

        // ---- Images.
        let attach = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::SAMPLED;
        let hdr = gpu.create_image(&ImageDesc::new_2d("hdr", HDR_FORMAT, width, height, attach))?;
        let depth = gpu.create_image(&ImageDesc::new_2d(
            "depth",
            DEPTH_FORMAT,
            width,
            height,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        ))?;
        let atlas = gpu.create_image(&ImageDesc::new_2d(
            "shadow atlas",
            DEPTH_FORMAT,
            CASCADE_RESOLUTION * 2,
            CASCADE_RESOLUTION * 2,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::SAMPLED,
        ))?;
        let bloom = frame.post.bloom;
        let plan = bloom.map(|b| tonemap::bloom_plan(width, height, b.diffusion, b.anamorphic));
        let mut down_chain: Vec<Image> = Vec::new();
        let mut up_chain: Vec<Image> = Vec::new();
        if let Some(p) = plan {
            for i in 0..=p.levels {
                let w = (p.base[0] >> i).max(1);
                let h = (p.base[1] >> i).max(1);
                down_chain.push(gpu.create_image(&ImageDesc::new_2d(
                    &format!("bloom down {i}"),
                    HDR_FORMAT,
                    w,
                    h,
                    attach,
                ))?);
                if i < p.levels {
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
        let capture = CaptureTarget::new(&gpu, width, height, "capture")?;

        // ---- Textures (a white texel for materials without one).
        let white = Arc::new(Texture {
            width: 1,
            height: 1,
            rgba: vec![255; 4],
        });
        let mut uploads: Vec<(Arc<Texture>, Image, Buffer)> = Vec::new();
        let mut texture_slot: HashMap<*const Texture, usize> = HashMap::new();
        for t in std::iter::once(&white).chain(textures.iter()) {
            let key = Arc::as_ptr(t);
            if texture_slot.contains_key(&key) {
                continue;
            }
            if t.width == 0
                || t.height == 0
                || t.rgba.len() != t.width as usize * t.height as usize * 4
            {
                return Err(invalid(
                    "texture",
                    format!("{}x{} with {} bytes", t.width, t.height, t.rgba.len()),
                ));
            }
            let image = gpu.create_image(&ImageDesc::new_2d(
                "base color",
                vk::Format::R8G8B8A8_SRGB,
                t.width,
                t.height,
                vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::SAMPLED,
            ))?;
            let staging = host_buffer(
                &gpu,
                "texture upload",
                vk::BufferUsageFlags::TRANSFER_SRC,
                &t.rgba,
            )?;
            texture_slot.insert(key, uploads.len());
            uploads.push((Arc::clone(t), image, staging));
        }

        // ---- Descriptors: one pool for this render, retired with its submit.
        let bloom_sets = plan.map_or(0, |p| 2 * p.levels + 1);
        let screen_sets = bloom_sets + 1;
        let set_count = 1 + uploads.len() as u32 + screen_sets;
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER,
                descriptor_count: 1,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 4,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::SAMPLED_IMAGE,
                descriptor_count: 1 + uploads.len() as u32 + 2 * screen_sets,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::SAMPLER,
                descriptor_count: 1 + uploads.len() as u32 + screen_sets,
            },
        ];
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(set_count)
            .pool_sizes(&sizes);
        // SAFETY: the create info and its sizes outlive the call.
        let pool = vkr(
            unsafe { gpu.device().create_descriptor_pool(&pool_info, None) },
            "vkCreateDescriptorPool",
        )?;
        let result = self.record_and_submit(RecordInputs {
            pool,
            frame,
            setup: &setup,
            width,
            height,
            geometry: &geometry,
            cascades_vp: cascades.map(|c| c.view_projection),
            sun_on,
            frame_buffer: &frame_buffer,
            light_buffer: &light_buffer,
            range_buffer: &range_buffer,
            index_buffer: &index_buffer,
            material_buffer: &material_buffer,
            hdr: &hdr,
            depth: &depth,
            atlas: &atlas,
            down_chain: &down_chain,
            up_chain: &up_chain,
            plan,
            capture: &capture,
            uploads: &uploads,
            texture_slot: &texture_slot,
            white: &white,
            timer: timer.as_deref_mut(),
        });
        let value = match result {
            Ok(v) => v,
            Err(e) => {
                // Nothing was submitted (or the submit failed): nothing reads the pool.
                gpu.retire_pending(Retired::DescriptorPool(pool));
                return Err(e);
            }
        };
        gpu.retire(value, Retired::DescriptorPool(pool));
        let image = capture.read()?;
        let mut timings = Vec::new();
        if let Some(t) = timer {
            t.submitted(value);
            if let Some(list) = t.begin_frame(0)? {
                timings = list;
            }
        }
        Ok(RenderOutput {
            image,
            derived_far: setup.derived_far,
            timings,
            lights: shaded.len(),
            draws: geometry.static_draws.len() + geometry.live_draws.len(),
        })
    }
}

/// Everything the recording reads.
struct RecordInputs<'a> {
    pool: vk::DescriptorPool,
    frame: &'a RenderFrame,
    setup: &'a ViewSetup,
    width: u32,
    height: u32,
    geometry: &'a Geometry,
    cascades_vp: [Mat4; CASCADES],
    sun_on: bool,
    frame_buffer: &'a Buffer,
    light_buffer: &'a Buffer,
    range_buffer: &'a Buffer,
    index_buffer: &'a Buffer,
    material_buffer: &'a Buffer,
    hdr: &'a Image,
    depth: &'a Image,
    atlas: &'a Image,
    down_chain: &'a [Image],
    up_chain: &'a [Image],
    plan: Option<tonemap::BloomPlan>,
    capture: &'a CaptureTarget,
    uploads: &'a [(Arc<Texture>, Image, Buffer)],
    texture_slot: &'a HashMap<*const Texture, usize>,
    white: &'a Arc<Texture>,
    timer: Option<&'a mut GpuTimer>,
}

/// One box draw: an index range of a geometry buffer, its pose and material.
#[derive(Debug, Clone, Copy)]
struct Draw {
    first_index: u32,
    index_count: u32,
    vertex_offset: i32,
    world: Mat4,
    material: u32,
}

/// The frame's box geometry in the GPU streams.
struct Geometry {
    buffer: Option<Buffer>,
    index: Option<Buffer>,
    packed: Option<mesh::PackedMesh>,
    static_draws: Vec<Draw>,
    live_draws: Vec<Draw>,
}

impl Geometry {
    fn build(gpu: &Gpu, frame: &RenderFrame) -> Result<Geometry> {
        let mut vertices: Vec<MeshVertex> = Vec::new();
        let mut indices: Vec<u32> = Vec::new();
        let mut static_draws = Vec::new();
        let mut live_draws = Vec::new();
        // Static boxes: pre-transformed into world space, grouped by material.
        let mut order: Vec<&BoxInstance> = frame.static_boxes.iter().collect();
        order.sort_by_key(|b| b.material);
        let mut i = 0;
        while i < order.len() {
            let material = order[i].material;
            let first = indices.len() as u32;
            while i < order.len() && order[i].material == material {
                let b = order[i];
                let m = mesh::box_mesh(b.size);
                let base = vertices.len() as u32;
                for v in m.vertices.iter() {
                    let p = math::add(b.position, math::rotate(b.rotation, v.position));
                    let n = math::rotate(b.rotation, v.normal);
                    let t = math::rotate(b.rotation, [v.tangent[0], v.tangent[1], v.tangent[2]]);
                    vertices.push(MeshVertex {
                        position: p,
                        normal: n,
                        tangent: [t[0], t[1], t[2], v.tangent[3]],
                        ..*v
                    });
                }
                indices.extend(m.indices.iter().map(|&k| base + u32::from(k)));
                i += 1;
            }
            static_draws.push(Draw {
                first_index: first,
                index_count: indices.len() as u32 - first,
                vertex_offset: 0,
                world: math::IDENTITY,
                material,
            });
        }
        // Live boxes: local space, drawn at their pose.
        for b in &frame.live_boxes {
            let m = mesh::box_mesh(b.size);
            let first = indices.len() as u32;
            let base = vertices.len() as i32;
            vertices.extend_from_slice(&m.vertices);
            indices.extend(m.indices.iter().map(|&k| u32::from(k)));
            live_draws.push(Draw {
                first_index: first,
                index_count: 36,
                vertex_offset: base,
                world: math::trs(b.position, b.rotation, [1.0; 3]),
                material: b.material,
            });
        }
        if vertices.is_empty() {
            return Ok(Geometry {
                buffer: None,
                index: None,
                packed: None,
                static_draws,
                live_draws,
            });
        }
        let packed = mesh::pack_streams(&vertices, None, None)
            .map_err(|e| invalid("box geometry", e.to_string()))?;
        let buffer = host_buffer(
            gpu,
            "boxes",
            vk::BufferUsageFlags::VERTEX_BUFFER,
            &packed.bytes,
        )?;
        let index_bytes: Vec<u8> = indices.iter().flat_map(|v| v.to_le_bytes()).collect();
        let index = host_buffer(
            gpu,
            "box indices",
            vk::BufferUsageFlags::INDEX_BUFFER,
            &index_bytes,
        )?;
        Ok(Geometry {
            buffer: Some(buffer),
            index: Some(index),
            packed: Some(packed),
            static_draws,
            live_draws,
        })
    }
}

/// A host-visible buffer holding `bytes` (at least 16 bytes, so no binding is empty).
fn host_buffer(
    gpu: &Gpu,
    name: &'static str,
    usage: vk::BufferUsageFlags,
    bytes: &[u8],
) -> Result<Buffer> {
    let size = bytes.len().max(16) as u64;
    let mut b = gpu.create_buffer(&BufferDesc {
        name,
        size,
        usage,
        location: MemoryLocation::CpuToGpu,
    })?;
    let slice = b
        .mapped_slice_mut()
        .ok_or_else(|| invalid(name, "a host-visible buffer is not mapped"))?;
    slice[..bytes.len()].copy_from_slice(bytes);
    Ok(b)
}

fn push_f32(out: &mut Vec<u8>, v: &[f32]) {
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

fn push_mat(out: &mut Vec<u8>, m: &Mat4) {
    for c in m {
        push_f32(out, c);
    }
}

/// The `struct Frame` uniform block, byte for byte.
fn frame_uniform(
    frame: &RenderFrame,
    setup: &ViewSetup,
    width: u32,
    height: u32,
    cascades: &[shadow::Cascade; CASCADES],
    grid: &ClusterGrid,
    lights: usize,
) -> Vec<u8> {
    let mut o = Vec::with_capacity(FRAME_UNIFORM_BYTES);
    let vp = math::mul(&setup.projection, &setup.view);
    push_mat(&mut o, &vp);
    push_mat(&mut o, &setup.view);
    push_mat(&mut o, &math::inverse(&vp).unwrap_or(math::IDENTITY));
    for c in cascades {
        push_mat(&mut o, &c.view_projection);
    }
    push_f32(&mut o, &cascades.map(|c| c.split));
    push_f32(&mut o, &cascades.map(|c| c.texel_size));
    let e = setup.eye;
    push_f32(
        &mut o,
        &[e[0], e[1], e[2], if setup.orthographic { 1.0 } else { 0.0 }],
    );
    let l = &frame.lighting;
    let d = math::normalize_or(l.sun_direction, [0.0, -1.0, 0.0]);
    push_f32(&mut o, &[d[0], d[1], d[2], l.half_lambert.clamp(0.0, 1.0)]);
    let s = l.sun_radiance;
    push_f32(&mut o, &[s[0], s[1], s[2], 0.0]);
    let mut sh = [[0.0f32; 3]; 9];
    match l.ambient {
        Ambient::Hemisphere { sky: a, ground: g } => {
            push_f32(&mut o, &[a[0], a[1], a[2], 0.0]);
            push_f32(&mut o, &[g[0], g[1], g[2], 0.0]);
        }
        Ambient::Sky { intensity } => {
            let params = l.sky.unwrap_or_default();
            sh = sky::sky_ambient(&params, d, s, l.sun_angular_diameter);
            push_f32(&mut o, &[0.0, 0.0, 0.0, 1.0]);
            push_f32(&mut o, &[0.0, 0.0, 0.0, intensity]);
        }
    }
    for c in &sh {
        push_f32(&mut o, &[c[0], c[1], c[2], 0.0]);
    }
    for v in [grid.columns, grid.rows, grid.slices, lights as u32] {
        o.extend_from_slice(&v.to_le_bytes());
    }
    push_f32(
        &mut o,
        &[
            grid.near,
            grid.far,
            (grid.far / grid.near).ln(),
            if frame.clusters.enabled { 1.0 } else { 0.0 },
        ],
    );
    push_f32(
        &mut o,
        &[
            width as f32,
            height as f32,
            1.0 / width as f32,
            1.0 / height as f32,
        ],
    );
    let k = l.sky.unwrap_or_default();
    push_f32(
        &mut o,
        &[k.rayleigh, k.mie, k.mie_anisotropy, k.horizon_softness],
    );
    push_f32(
        &mut o,
        &[
            k.intensity,
            k.sun_disc,
            k.ground_blend,
            l.sun_angular_diameter,
        ],
    );
    push_f32(
        &mut o,
        &[
            k.ground[0],
            k.ground[1],
            k.ground[2],
            if l.sky.is_some() { 1.0 } else { 0.0 },
        ],
    );
    let b = backdrop(frame);
    push_f32(&mut o, &[b[0], b[1], b[2], 0.0]);
    debug_assert_eq!(o.len(), FRAME_UNIFORM_BYTES);
    o
}

/// What shows behind the geometry when the sky is off: the hemisphere fill's sky color at
/// full strength (a sky-ambient world with its sky off has no hemisphere; a dim gray).
pub fn backdrop(frame: &RenderFrame) -> [f32; 3] {
    match frame.lighting.ambient {
        Ambient::Hemisphere { sky, .. } => {
            let m = sky[0].max(sky[1]).max(sky[2]);
            if m > 0.0 {
                // Normalized to the color's own hue at a mid value.
                sky.map(|c| c / m * 0.45)
            } else {
                [0.0; 3]
            }
        }
        Ambient::Sky { .. } => [0.2; 3],
    }
}

fn light_bytes(lights: &[super::frame::Light]) -> Vec<u8> {
    let mut o = Vec::with_capacity(lights.len() * 64);
    for l in lights {
        let kind = match l.kind {
            LightKind::Point => 0.0,
            LightKind::Spot => 1.0,
            LightKind::Directional => 2.0,
        };
        let falloff = match l.falloff {
            super::frame::Falloff::Physical => 0.0,
            super::frame::Falloff::Unity => 1.0,
        };
        push_f32(
            &mut o,
            &[l.position[0], l.position[1], l.position[2], l.range],
        );
        push_f32(
            &mut o,
            &[l.direction[0], l.direction[1], l.direction[2], kind],
        );
        push_f32(
            &mut o,
            &[l.radiance[0], l.radiance[1], l.radiance[2], falloff],
        );
        push_f32(&mut o, &[l.inner_cone.cos(), l.outer_cone.cos(), 0.0, 0.0]);
    }
    o
}

fn material_bytes(frame: &RenderFrame) -> (Vec<u8>, Vec<Arc<Texture>>) {
    let mut o = Vec::new();
    let mut textures = Vec::new();
    let missing = super::frame::Material::missing();
    let list: Vec<&super::frame::Material> = if frame.materials.is_empty() {
        vec![&missing]
    } else {
        frame.materials.iter().collect()
    };
    for m in list {
        let shading = match m.shading {
            Shading::Lit => 0.0,
            Shading::Unlit => 1.0,
            Shading::Missing => 2.0,
        };
        let b = m.base_color;
        push_f32(&mut o, &[b[0], b[1], b[2], shading]);
        let e = m.emissive;
        push_f32(
            &mut o,
            &[
                e[0],
                e[1],
                e[2],
                if m.base_color_texture.is_some() {
                    1.0
                } else {
                    0.0
                },
            ],
        );
        push_f32(&mut o, &[m.uv_scale[0], m.uv_scale[1], 0.0, 0.0]);
        if let Some(t) = &m.base_color_texture {
            textures.push(Arc::clone(t));
        }
    }
    (o, textures)
}

/// The post push constants.
fn post_push(post: &Post) -> [f32; 12] {
    let h = post.hable;
    let bloom = post.bloom.map_or(0.0, |b| b.intensity);
    [
        post.exposure,
        bloom,
        post.tonemap.index() as f32,
        h.a,
        h.b,
        h.c,
        h.d,
        h.e,
        h.f,
        h.w,
        0.0,
        0.0,
    ]
}

fn bytes_of(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

struct Barrier {
    old: vk::ImageLayout,
    new: vk::ImageLayout,
    src_stage: vk::PipelineStageFlags2,
    src_access: vk::AccessFlags2,
    dst_stage: vk::PipelineStageFlags2,
    dst_access: vk::AccessFlags2,
}

fn barrier(gpu: &Gpu, cmd: vk::CommandBuffer, image: &Image, b: Barrier) {
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
    barrier(
        gpu,
        cmd,
        image,
        Barrier {
            old: vk::ImageLayout::UNDEFINED,
            new: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            src_stage: vk::PipelineStageFlags2::TOP_OF_PIPE,
            src_access: vk::AccessFlags2::NONE,
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

fn viewport(gpu: &Gpu, cmd: vk::CommandBuffer, x: u32, y: u32, w: u32, h: u32) {
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

fn begin_rendering(
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

fn end_rendering(gpu: &Gpu, cmd: vk::CommandBuffer) {
    // SAFETY: a pass begun by `begin_rendering` is open on `cmd`.
    unsafe { gpu.device().cmd_end_rendering(cmd) };
}

impl Renderer {
    fn allocate(
        &self,
        pool: vk::DescriptorPool,
        layout: vk::DescriptorSetLayout,
    ) -> Result<vk::DescriptorSet> {
        let layouts = [layout];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        // SAFETY: the pool was sized for every set this render allocates.
        let sets = vkr(
            unsafe { self.gpu.device().allocate_descriptor_sets(&info) },
            "vkAllocateDescriptorSets",
        )?;
        sets.first()
            .copied()
            .ok_or_else(|| invalid("descriptor set", "none allocated"))
    }

    fn screen_set(
        &self,
        pool: vk::DescriptorPool,
        a: &Image,
        b: &Image,
    ) -> Result<vk::DescriptorSet> {
        let layout = *self
            .screen_layout
            .set_layouts()
            .first()
            .ok_or_else(|| invalid("screen layout", "no set layout"))?;
        let set = self.allocate(pool, layout)?;
        let ia = [vk::DescriptorImageInfo::default()
            .image_view(a.view())
            .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
        let ib = [vk::DescriptorImageInfo::default()
            .image_view(b.view())
            .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
        let s = [vk::DescriptorImageInfo::default().sampler(self.linear)];
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
        // SAFETY: the set is not in use; the infos outlive the call.
        unsafe { self.gpu.device().update_descriptor_sets(&writes, &[]) };
        Ok(set)
    }

    fn record_and_submit(&self, r: RecordInputs<'_>) -> Result<u64> {
        let gpu = &self.gpu;
        let device = gpu.device();
        let layouts = self.box_layout.set_layouts();
        let (Some(&frame_layout), Some(&texture_layout)) = (layouts.first(), layouts.get(1)) else {
            return Err(invalid("box layout", "missing set layouts"));
        };
        // The frame set.
        let frame_set = self.allocate(r.pool, frame_layout)?;
        let ub = [vk::DescriptorBufferInfo::default()
            .buffer(r.frame_buffer.raw())
            .offset(0)
            .range(vk::WHOLE_SIZE)];
        let lb = [vk::DescriptorBufferInfo::default()
            .buffer(r.light_buffer.raw())
            .offset(0)
            .range(vk::WHOLE_SIZE)];
        let rb = [vk::DescriptorBufferInfo::default()
            .buffer(r.range_buffer.raw())
            .offset(0)
            .range(vk::WHOLE_SIZE)];
        let ib = [vk::DescriptorBufferInfo::default()
            .buffer(r.index_buffer.raw())
            .offset(0)
            .range(vk::WHOLE_SIZE)];
        let mb = [vk::DescriptorBufferInfo::default()
            .buffer(r.material_buffer.raw())
            .offset(0)
            .range(vk::WHOLE_SIZE)];
        let sm = [vk::DescriptorImageInfo::default()
            .image_view(r.atlas.view())
            .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
        let cs = [vk::DescriptorImageInfo::default().sampler(self.compare)];
        let w = |b: u32, ty: vk::DescriptorType| {
            vk::WriteDescriptorSet::default()
                .dst_set(frame_set)
                .dst_binding(b)
                .descriptor_type(ty)
        };
        let writes = [
            w(0, vk::DescriptorType::UNIFORM_BUFFER).buffer_info(&ub),
            w(1, vk::DescriptorType::STORAGE_BUFFER).buffer_info(&lb),
            w(2, vk::DescriptorType::STORAGE_BUFFER).buffer_info(&rb),
            w(3, vk::DescriptorType::STORAGE_BUFFER).buffer_info(&ib),
            w(4, vk::DescriptorType::STORAGE_BUFFER).buffer_info(&mb),
            w(5, vk::DescriptorType::SAMPLED_IMAGE).image_info(&sm),
            w(6, vk::DescriptorType::SAMPLER).image_info(&cs),
        ];
        // SAFETY: the set is fresh; the infos outlive the call.
        unsafe { device.update_descriptor_sets(&writes, &[]) };
        // One texture set per uploaded texture.
        let mut texture_sets = Vec::with_capacity(r.uploads.len());
        for (_, image, _) in r.uploads {
            let set = self.allocate(r.pool, texture_layout)?;
            let ti = [vk::DescriptorImageInfo::default()
                .image_view(image.view())
                .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
            let si = [vk::DescriptorImageInfo::default().sampler(self.repeat)];
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
            ];
            // SAFETY: as above.
            unsafe { device.update_descriptor_sets(&writes, &[]) };
            texture_sets.push(set);
        }
        let white_set = r
            .texture_slot
            .get(&Arc::as_ptr(r.white))
            .and_then(|&i| texture_sets.get(i).copied())
            .ok_or_else(|| invalid("textures", "the white texel was not uploaded"))?;
        let material_set = |m: u32| -> vk::DescriptorSet {
            r.frame
                .materials
                .get(m as usize)
                .and_then(|mat| mat.base_color_texture.as_ref())
                .and_then(|t| r.texture_slot.get(&Arc::as_ptr(t)))
                .and_then(|&i| texture_sets.get(i).copied())
                .unwrap_or(white_set)
        };
        // Screen sets: bloom passes and the resolve.
        let mut bloom_sets = Vec::new();
        if let Some(p) = r.plan {
            let levels = p.levels as usize;
            // Prefilter reads the HDR frame; down i reads down i-1.
            bloom_sets.push(self.screen_set(r.pool, r.hdr, r.hdr)?);
            for i in 1..=levels {
                bloom_sets.push(self.screen_set(
                    r.pool,
                    &r.down_chain[i - 1],
                    &r.down_chain[i - 1],
                )?);
            }
            // Up i reads (the level below: up i+1, or the last down) and down i.
            for i in (0..levels).rev() {
                let below = if i + 1 == levels {
                    &r.down_chain[levels]
                } else {
                    &r.up_chain[i + 1]
                };
                bloom_sets.push(self.screen_set(r.pool, below, &r.down_chain[i])?);
            }
        }
        let bloom_result = r.up_chain.first().unwrap_or(r.hdr);
        let post_set = self.screen_set(r.pool, r.hdr, bloom_result)?;

        let mut timer = r.timer;
        let ((), value) = gpu.immediate(|gpu, cmd| {
            let mut timed = |name: &str| timer.as_deref_mut().and_then(|t| t.pass(name));
            // Texture uploads.
            for (t, image, staging) in r.uploads {
                barrier(
                    gpu,
                    cmd,
                    image,
                    Barrier {
                        old: vk::ImageLayout::UNDEFINED,
                        new: vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        src_stage: vk::PipelineStageFlags2::TOP_OF_PIPE,
                        src_access: vk::AccessFlags2::NONE,
                        dst_stage: vk::PipelineStageFlags2::COPY,
                        dst_access: vk::AccessFlags2::TRANSFER_WRITE,
                    },
                );
                let region = vk::BufferImageCopy {
                    image_subresource: vk::ImageSubresourceLayers {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        mip_level: 0,
                        base_array_layer: 0,
                        layer_count: 1,
                    },
                    image_extent: vk::Extent3D {
                        width: t.width,
                        height: t.height,
                        depth: 1,
                    },
                    ..Default::default()
                };
                // SAFETY: the buffer holds the texture's bytes; the image is in
                // TRANSFER_DST_OPTIMAL.
                unsafe {
                    gpu.device().cmd_copy_buffer_to_image(
                        cmd,
                        staging.raw(),
                        image.raw(),
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &[region],
                    )
                };
                barrier(
                    gpu,
                    cmd,
                    image,
                    Barrier {
                        old: vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        new: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                        src_stage: vk::PipelineStageFlags2::COPY,
                        src_access: vk::AccessFlags2::TRANSFER_WRITE,
                        dst_stage: vk::PipelineStageFlags2::FRAGMENT_SHADER,
                        dst_access: vk::AccessFlags2::SHADER_SAMPLED_READ,
                    },
                );
            }
            let bind_geometry = |layout: MeshVertexLayout| {
                if let (Some(buf), Some(idx), Some(p)) =
                    (&r.geometry.buffer, &r.geometry.index, &r.geometry.packed)
                {
                    let streams = layout.streams();
                    let buffers: Vec<vk::Buffer> = streams.iter().map(|_| buf.raw()).collect();
                    let offsets: Vec<u64> = streams
                        .iter()
                        .map(|s| p.binding_offset(s.kind) as u64)
                        .collect();
                    // SAFETY: the buffers hold every stream at these offsets.
                    unsafe {
                        gpu.device()
                            .cmd_bind_vertex_buffers(cmd, 0, &buffers, &offsets);
                        gpu.device().cmd_bind_index_buffer(
                            cmd,
                            idx.raw(),
                            0,
                            vk::IndexType::UINT32,
                        );
                    }
                }
            };
            let _ = StreamKind::Position;
            let draws: Vec<&Draw> = r
                .geometry
                .static_draws
                .iter()
                .chain(&r.geometry.live_draws)
                .collect();
            let push = |cmd: vk::CommandBuffer, clip: &Mat4, d: &Draw| {
                let mut bytes = Vec::with_capacity(DRAW_PUSH_BYTES as usize);
                push_mat(&mut bytes, &math::mul(clip, &d.world));
                let w = &d.world;
                for row in [0usize, 1, 2] {
                    push_f32(&mut bytes, &w.map(|col| col[row]));
                }
                for v in [d.material, 0, 0, 0] {
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
                // SAFETY: the range matches the layout's one push-constant range.
                unsafe {
                    gpu.device().cmd_push_constants(
                        cmd,
                        self.box_layout.raw(),
                        vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                        0,
                        &bytes,
                    );
                    gpu.device().cmd_draw_indexed(
                        cmd,
                        d.index_count,
                        1,
                        d.first_index,
                        d.vertex_offset,
                        0,
                    );
                }
            };

            // ---- Shadow cascades.
            let q = timed("shadows");
            if let Some(q) = q {
                q.begin(gpu, cmd);
            }
            gpu.cmd_begin_label(cmd, "shadow cascades");
            barrier(
                gpu,
                cmd,
                r.atlas,
                Barrier {
                    old: vk::ImageLayout::UNDEFINED,
                    new: vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
                    src_stage: vk::PipelineStageFlags2::TOP_OF_PIPE,
                    src_access: vk::AccessFlags2::NONE,
                    dst_stage: vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                        | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
                    dst_access: vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE
                        | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ,
                },
            );
            let atlas_depth = vk::RenderingAttachmentInfo::default()
                .image_view(r.atlas.view())
                .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(vk::ClearValue {
                    depth_stencil: vk::ClearDepthStencilValue {
                        depth: 1.0,
                        stencil: 0,
                    },
                });
            begin_rendering(
                gpu,
                cmd,
                CASCADE_RESOLUTION * 2,
                CASCADE_RESOLUTION * 2,
                &[],
                Some(&atlas_depth),
            );
            if r.sun_on && !draws.is_empty() {
                self.shadow.bind(cmd);
                bind_geometry(MeshVertexLayout::PositionOnly);
                for (i, vp) in r.cascades_vp.iter().enumerate() {
                    let (x, y) = (
                        (i as u32 % 2) * CASCADE_RESOLUTION,
                        (i as u32 / 2) * CASCADE_RESOLUTION,
                    );
                    viewport(gpu, cmd, x, y, CASCADE_RESOLUTION, CASCADE_RESOLUTION);
                    for d in &draws {
                        push(cmd, vp, d);
                    }
                }
            }
            end_rendering(gpu, cmd);
            barrier(
                gpu,
                cmd,
                r.atlas,
                Barrier {
                    old: vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
                    new: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                    src_stage: vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
                    src_access: vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
                    dst_stage: vk::PipelineStageFlags2::FRAGMENT_SHADER,
                    dst_access: vk::AccessFlags2::SHADER_SAMPLED_READ,
                },
            );
            gpu.cmd_end_label(cmd);
            if let Some(q) = q {
                q.end(gpu, cmd);
            }

            // ---- Depth prepass.
            let vp = math::mul(&r.setup.projection, &r.setup.view);
            let q = timed("depth prepass");
            if let Some(q) = q {
                q.begin(gpu, cmd);
            }
            gpu.cmd_begin_label(cmd, "depth prepass");
            barrier(
                gpu,
                cmd,
                r.depth,
                Barrier {
                    old: vk::ImageLayout::UNDEFINED,
                    new: vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
                    src_stage: vk::PipelineStageFlags2::TOP_OF_PIPE,
                    src_access: vk::AccessFlags2::NONE,
                    dst_stage: vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                        | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
                    dst_access: vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE
                        | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ,
                },
            );
            let depth_clear = vk::RenderingAttachmentInfo::default()
                .image_view(r.depth.view())
                .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(vk::ClearValue {
                    depth_stencil: vk::ClearDepthStencilValue {
                        depth: 1.0,
                        stencil: 0,
                    },
                });
            begin_rendering(gpu, cmd, r.width, r.height, &[], Some(&depth_clear));
            if !draws.is_empty() {
                self.prepass.bind(cmd);
                viewport(gpu, cmd, 0, 0, r.width, r.height);
                bind_geometry(MeshVertexLayout::PositionOnly);
                for d in &draws {
                    push(cmd, &vp, d);
                }
            }
            end_rendering(gpu, cmd);
            barrier(
                gpu,
                cmd,
                r.depth,
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
            gpu.cmd_end_label(cmd);
            if let Some(q) = q {
                q.end(gpu, cmd);
            }

            // ---- Opaque boxes and the sky.
            let q = timed("opaque + sky");
            if let Some(q) = q {
                q.begin(gpu, cmd);
            }
            gpu.cmd_begin_label(cmd, "opaque");
            to_color_attachment(gpu, cmd, r.hdr);
            let hdr_att = [color_attachment(r.hdr.view(), Some([0.0, 0.0, 0.0, 1.0]))];
            let depth_load = vk::RenderingAttachmentInfo::default()
                .image_view(r.depth.view())
                .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::LOAD)
                .store_op(vk::AttachmentStoreOp::STORE);
            begin_rendering(gpu, cmd, r.width, r.height, &hdr_att, Some(&depth_load));
            viewport(gpu, cmd, 0, 0, r.width, r.height);
            if !draws.is_empty() {
                self.lit.bind(cmd);
                bind_geometry(MeshVertexLayout::Full);
                let mut bound = vk::DescriptorSet::null();
                for d in &draws {
                    let set = material_set(d.material);
                    // SAFETY: both sets match the layout and stay valid for the submit.
                    unsafe {
                        if bound == vk::DescriptorSet::null() {
                            gpu.device().cmd_bind_descriptor_sets(
                                cmd,
                                vk::PipelineBindPoint::GRAPHICS,
                                self.box_layout.raw(),
                                0,
                                &[frame_set, set],
                                &[],
                            );
                        } else if bound != set {
                            gpu.device().cmd_bind_descriptor_sets(
                                cmd,
                                vk::PipelineBindPoint::GRAPHICS,
                                self.box_layout.raw(),
                                1,
                                &[set],
                                &[],
                            );
                        }
                    }
                    bound = set;
                    push(cmd, &vp, d);
                }
            }
            gpu.cmd_end_label(cmd);
            gpu.cmd_begin_label(cmd, "sky");
            self.sky.bind(cmd);
            // SAFETY: the frame set matches set 0 of the layout the sky shares.
            unsafe {
                gpu.device().cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    self.box_layout.raw(),
                    0,
                    &[frame_set],
                    &[],
                );
                gpu.device().cmd_draw(cmd, 3, 1, 0, 0);
            }
            gpu.cmd_end_label(cmd);
            end_rendering(gpu, cmd);
            color_to_sampled(gpu, cmd, r.hdr);
            if let Some(q) = q {
                q.end(gpu, cmd);
            }

            // ---- Bloom.
            if let (Some(p), Some(b)) = (r.plan, r.frame.post.bloom) {
                let q = timed("bloom");
                if let Some(q) = q {
                    q.begin(gpu, cmd);
                }
                gpu.cmd_begin_label(cmd, "bloom");
                let levels = p.levels as usize;
                let pass = |pipeline: &Pipeline,
                            target: &Image,
                            set: vk::DescriptorSet,
                            params: [f32; 8]| {
                    let e = target.extent();
                    to_color_attachment(gpu, cmd, target);
                    let att = [color_attachment(target.view(), None)];
                    begin_rendering(gpu, cmd, e.width, e.height, &att, None);
                    pipeline.bind(cmd);
                    viewport(gpu, cmd, 0, 0, e.width, e.height);
                    let mut bytes = bytes_of(&params);
                    bytes.extend(bytes_of(&[0.0; 4]));
                    // SAFETY: the set and push range match the screen layout.
                    unsafe {
                        gpu.device().cmd_bind_descriptor_sets(
                            cmd,
                            vk::PipelineBindPoint::GRAPHICS,
                            self.screen_layout.raw(),
                            0,
                            &[set],
                            &[],
                        );
                        gpu.device().cmd_push_constants(
                            cmd,
                            self.screen_layout.raw(),
                            vk::ShaderStageFlags::FRAGMENT,
                            0,
                            &bytes,
                        );
                        gpu.device().cmd_draw(cmd, 3, 1, 0, 0);
                    }
                    end_rendering(gpu, cmd);
                    color_to_sampled(gpu, cmd, target);
                };
                let texel = |i: &Image| {
                    let e = i.extent();
                    [1.0 / e.width as f32, 1.0 / e.height as f32]
                };
                let mut set_at = bloom_sets.iter().copied();
                let t = texel(r.hdr);
                if let Some(s) = set_at.next() {
                    pass(
                        &self.prefilter,
                        &r.down_chain[0],
                        s,
                        [
                            t[0],
                            t[1],
                            1.0,
                            r.frame.post.exposure,
                            b.threshold,
                            b.soft_knee,
                            0.0,
                            0.0,
                        ],
                    );
                }
                for i in 1..=levels {
                    let t = texel(&r.down_chain[i - 1]);
                    if let Some(s) = set_at.next() {
                        pass(
                            &self.down,
                            &r.down_chain[i],
                            s,
                            [t[0], t[1], 1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
                        );
                    }
                }
                for i in (0..levels).rev() {
                    let below = if i + 1 == levels {
                        &r.down_chain[levels]
                    } else {
                        &r.up_chain[i + 1]
                    };
                    let t = texel(below);
                    if let Some(s) = set_at.next() {
                        pass(
                            &self.up,
                            &r.up_chain[i],
                            s,
                            [t[0], t[1], p.sample_scale, 1.0, 0.0, 0.0, 0.0, 0.0],
                        );
                    }
                }
                gpu.cmd_end_label(cmd);
                if let Some(q) = q {
                    q.end(gpu, cmd);
                }
            }

            // ---- Resolve into the capture.
            let q = timed("resolve");
            if let Some(q) = q {
                q.begin(gpu, cmd);
            }
            gpu.cmd_begin_label(cmd, "resolve");
            let target = r.capture.image();
            to_color_attachment(gpu, cmd, target);
            let att = [color_attachment(target.view(), None)];
            begin_rendering(gpu, cmd, r.width, r.height, &att, None);
            self.post.bind(cmd);
            viewport(gpu, cmd, 0, 0, r.width, r.height);
            let bytes = bytes_of(&post_push(&r.frame.post));
            // SAFETY: the set and push range match the screen layout.
            unsafe {
                gpu.device().cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    self.screen_layout.raw(),
                    0,
                    &[post_set],
                    &[],
                );
                gpu.device().cmd_push_constants(
                    cmd,
                    self.screen_layout.raw(),
                    vk::ShaderStageFlags::FRAGMENT,
                    0,
                    &bytes,
                );
                gpu.device().cmd_draw(cmd, 3, 1, 0, 0);
            }
            end_rendering(gpu, cmd);
            gpu.cmd_end_label(cmd);
            if let Some(q) = q {
                q.end(gpu, cmd);
            }
            r.capture.record_readback(
                gpu,
                cmd,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            );
            Ok(())
        })?;
        Ok(value)
    }
}
