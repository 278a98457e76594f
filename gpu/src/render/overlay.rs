//! The debug overlays' passes (000 "Debugging with gizmos"): a depth-tested line pass and
//! an overlay text pass, recorded into the capture after the resolve, so they sit above the
//! 3D world and are never tonemapped or bloomed.
//!
//! * **Lines** ([`Overlay::lines`]) are world-space segments, tested against the scene's
//!   depth (the forward depth at one sample; at MSAA its sample 0, resolved as the opaque
//!   pass ends), never written: a line behind a wall is hidden.
//! * **Screen items** ([`ScreenItem`]) are pixel-space: text, dots and segments, drawn on
//!   top as quads that sample one glyph atlas, baked at start from the bundled DejaVu Sans
//!   Mono subset (`gpu/fonts/`, its license beside it) with `fontdue`.
//!
//! An empty [`Overlay`] records nothing: the capture is the one without it. What goes into
//! an overlay (which gizmos, where, labels and their overlap) is the engine's (its
//! `gizmos` module); this module draws what it is handed.

use std::sync::{Arc, OnceLock};

use ash::vk;
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec4};

use super::frame::Texture;
use super::passes::{barrier, begin_rendering, end_rendering, viewport, Barrier, DEPTH_FORMAT};
use crate::{
    shaders, Buffer, BufferDesc, ColorTarget, DepthState, Gpu, GpuError, GraphicsPipelineDesc,
    Image, MemoryLocation, Pipeline, PipelineLayout, PipelineLayoutDesc, Result, Retired,
    ShaderEntry, VertexInput, CAPTURE_FORMAT,
};

/// The bundled font: DejaVu Sans Mono, printable ASCII and the degree sign.
pub const FONT: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-ascii.ttf");
/// The overlay text's pixel size.
pub const FONT_PX: f32 = 13.0;
/// The radius, pixels, of the disc baked into the atlas (a [`ScreenItem::Dot`] scales it).
const DISC_RADIUS: u32 = 8;
/// The atlas width, texels.
const ATLAS_WIDTH: u32 = 256;

/// A vertex of the line pass: the `vs_line` inputs of `overlay.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct LineVertex {
    /// World position, meters.
    pub position: [f32; 3],
    /// sRGB colour and straight alpha.
    pub color: [u8; 4],
}

/// A vertex of the screen pass: the `vs_quad` inputs of `overlay.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct QuadVertex {
    /// Pixels from the top-left corner.
    pub position: [f32; 2],
    /// Atlas coordinates.
    pub uv: [f32; 2],
    /// sRGB colour and straight alpha.
    pub color: [u8; 4],
}

/// The overlay push constant: `struct Overlay` in `overlay.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct OverlayPush {
    /// World to clip.
    pub view_proj: Mat4,
    /// width, height, 1 / width, 1 / height.
    pub viewport: Vec4,
}

/// Something drawn in pixels, on top of everything.
#[derive(Debug, Clone, PartialEq)]
pub enum ScreenItem {
    /// A line of text whose top-left corner is `at`, over an optional backdrop rectangle
    /// (padded by 2 pixels).
    Text {
        /// Top-left corner, pixels.
        at: [f32; 2],
        /// The text (characters the font lacks draw as `?`).
        text: String,
        /// sRGB colour and alpha.
        color: [u8; 4],
        /// The backdrop's colour, if any.
        backdrop: Option<[u8; 4]>,
    },
    /// A filled, anti-aliased disc.
    Dot {
        /// Centre, pixels.
        center: [f32; 2],
        /// Radius, pixels.
        radius: f32,
        /// sRGB colour and alpha.
        color: [u8; 4],
    },
    /// A filled rectangle (a label's backdrop).
    Rect {
        /// Top-left corner, pixels.
        at: [f32; 2],
        /// Width and height, pixels.
        size: [f32; 2],
        /// sRGB colour and alpha.
        color: [u8; 4],
    },
    /// A segment `width` pixels wide.
    Segment {
        /// One end, pixels.
        a: [f32; 2],
        /// The other end, pixels.
        b: [f32; 2],
        /// Width, pixels.
        width: f32,
        /// sRGB colour and alpha.
        color: [u8; 4],
    },
}

/// What the overlay passes draw this frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlay {
    /// World-space segments, two vertices each, depth-tested.
    pub lines: Vec<LineVertex>,
    /// Pixel-space items, in drawing order, on top.
    pub screen: Vec<ScreenItem>,
}

impl Overlay {
    /// Whether it draws nothing.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.screen.is_empty()
    }

    /// Adds the world-space segment `a`–`b`.
    pub fn line(&mut self, a: glam::Vec3, b: glam::Vec3, color: [u8; 4]) {
        self.lines.push(LineVertex {
            position: a.to_array(),
            color,
        });
        self.lines.push(LineVertex {
            position: b.to_array(),
            color,
        });
    }
}

/// One glyph's place in the atlas and how it sits on the baseline.
#[derive(Debug, Clone, Copy, Default)]
struct Glyph {
    /// Atlas rectangle, texels.
    x: u32,
    y: u32,
    w: u32,
    h: u32,
    /// Bitmap offset from the pen: left, and bottom above the baseline.
    xmin: i32,
    ymin: i32,
}

/// The overlay font baked at [`FONT_PX`] into one alpha atlas (white, coverage in alpha),
/// with a disc and a solid block for dots, segments and backdrops.
#[derive(Debug, Clone)]
pub struct GlyphAtlas {
    /// The atlas texture.
    pub texture: Texture,
    glyphs: Vec<(char, Glyph)>,
    fallback: Glyph,
    disc: Glyph,
    solid: Glyph,
    /// The monospace advance, pixels.
    pub advance: f32,
    /// Baseline below the top of a line, pixels.
    pub ascent: f32,
    /// A line's height, pixels.
    pub line_height: f32,
}

/// Why baking the atlas failed (the bundled font did not parse or does not fit).
#[derive(Debug, Clone, thiserror::Error)]
#[error("overlay font: {0}")]
pub struct FontError(String);

impl GlyphAtlas {
    /// Bakes [`FONT`] (printable ASCII and `°`) at [`FONT_PX`].
    pub fn bake() -> std::result::Result<GlyphAtlas, FontError> {
        let font = fontdue::Font::from_bytes(FONT, fontdue::FontSettings::default())
            .map_err(|e| FontError(e.to_string()))?;
        let line = font
            .horizontal_line_metrics(FONT_PX)
            .ok_or_else(|| FontError("no horizontal line metrics".into()))?;
        let mut chars: Vec<char> = (' '..='~').collect();
        chars.push('°');
        let mut bitmaps = Vec::new();
        let mut advance: f32 = 0.0;
        for c in chars {
            let (m, bitmap) = font.rasterize(c, FONT_PX);
            advance = advance.max(m.advance_width);
            bitmaps.push((c, m, bitmap));
        }
        // Shelf packing, one texel of gap.
        let mut rgba_rows: Vec<(Glyph, Vec<u8>)> = Vec::new();
        let (mut x, mut y, mut shelf) = (1u32, 1u32, 0u32);
        let mut place = |w: u32, h: u32| {
            if x + w + 1 > ATLAS_WIDTH {
                x = 1;
                y += shelf + 1;
                shelf = 0;
            }
            let at = (x, y);
            x += w + 1;
            shelf = shelf.max(h);
            at
        };
        let mut glyphs = Vec::new();
        for (c, m, bitmap) in bitmaps {
            let (w, h) = (m.width as u32, m.height as u32);
            let (gx, gy) = place(w, h);
            let g = Glyph {
                x: gx,
                y: gy,
                w,
                h,
                xmin: m.xmin,
                ymin: m.ymin,
            };
            glyphs.push((c, g));
            rgba_rows.push((g, bitmap));
        }
        let d = 2 * DISC_RADIUS;
        let (dx, dy) = place(d, d);
        let disc = Glyph {
            x: dx,
            y: dy,
            w: d,
            h: d,
            xmin: 0,
            ymin: 0,
        };
        let r = DISC_RADIUS as f32;
        let disc_cov: Vec<u8> = (0..d * d)
            .map(|i| {
                let (px, py) = ((i % d) as f32 + 0.5 - r, (i / d) as f32 + 0.5 - r);
                let edge = r - (px * px + py * py).sqrt();
                ((edge + 0.5).clamp(0.0, 1.0) * 255.0).round() as u8
            })
            .collect();
        rgba_rows.push((disc, disc_cov));
        let (sx, sy) = place(4, 4);
        let solid = Glyph {
            x: sx,
            y: sy,
            w: 4,
            h: 4,
            xmin: 0,
            ymin: 0,
        };
        rgba_rows.push((solid, vec![255; 16]));
        let height = (y + shelf + 1).next_power_of_two();
        if height > Texture::MAX_EDGE {
            return Err(FontError(format!("atlas {ATLAS_WIDTH}x{height} too tall")));
        }
        let mut rgba = vec![0u8; (ATLAS_WIDTH * height * 4) as usize];
        for px in rgba.chunks_exact_mut(4) {
            px[..3].copy_from_slice(&[255, 255, 255]);
        }
        for (g, cov) in &rgba_rows {
            for j in 0..g.h {
                for i in 0..g.w {
                    let a = cov.get((j * g.w + i) as usize).copied().unwrap_or(0);
                    let at = (((g.y + j) * ATLAS_WIDTH + g.x + i) * 4 + 3) as usize;
                    rgba[at] = a;
                }
            }
        }
        let fallback = glyphs
            .iter()
            .find(|(c, _)| *c == '?')
            .map(|(_, g)| *g)
            .unwrap_or_default();
        Ok(GlyphAtlas {
            texture: Texture {
                width: ATLAS_WIDTH,
                height,
                rgba,
                // Glyphs are drawn at their own size: the top level alone.
                mips: Vec::new(),
            },
            glyphs,
            fallback,
            disc,
            solid,
            advance: advance.ceil(),
            ascent: line.ascent.ceil(),
            line_height: line.new_line_size.ceil(),
        })
    }

    /// The atlas every overlay shares, baked once.
    pub fn shared() -> std::result::Result<&'static GlyphAtlas, FontError> {
        static ATLAS: OnceLock<std::result::Result<GlyphAtlas, FontError>> = OnceLock::new();
        ATLAS
            .get_or_init(GlyphAtlas::bake)
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The pixel size of `text` on one line.
    pub fn text_size(&self, text: &str) -> [f32; 2] {
        [text.chars().count() as f32 * self.advance, self.line_height]
    }

    fn glyph(&self, c: char) -> Glyph {
        self.glyphs
            .iter()
            .find(|(g, _)| *g == c)
            .map_or(self.fallback, |(_, g)| *g)
    }

    /// Two triangles covering `rect` (x, y, w, h pixels) sampling atlas rectangle `g`.
    fn quad(&self, out: &mut Vec<QuadVertex>, rect: [f32; 4], g: Glyph, color: [u8; 4]) {
        let (aw, ah) = (self.texture.width as f32, self.texture.height as f32);
        let (u0, v0) = (g.x as f32 / aw, g.y as f32 / ah);
        let (u1, v1) = ((g.x + g.w) as f32 / aw, (g.y + g.h) as f32 / ah);
        let [x, y, w, h] = rect;
        let v = |px: f32, py: f32, u: f32, vv: f32| QuadVertex {
            position: [px, py],
            uv: [u, vv],
            color,
        };
        out.extend_from_slice(&[
            v(x, y, u0, v0),
            v(x + w, y, u1, v0),
            v(x, y + h, u0, v1),
            v(x + w, y, u1, v0),
            v(x + w, y + h, u1, v1),
            v(x, y + h, u0, v1),
        ]);
    }

    /// The quads of `items`, in order.
    pub fn quads(&self, items: &[ScreenItem]) -> Vec<QuadVertex> {
        let mut out = Vec::new();
        // The middle of the solid block: nearest sampling reads full coverage only.
        let core = Glyph {
            x: self.solid.x + 1,
            y: self.solid.y + 1,
            w: 2,
            h: 2,
            ..self.solid
        };
        for item in items {
            match item {
                ScreenItem::Text {
                    at,
                    text,
                    color,
                    backdrop,
                } => {
                    let (x0, y0) = (at[0].round(), at[1].round());
                    if let Some(b) = backdrop {
                        let [w, h] = self.text_size(text);
                        self.quad(&mut out, [x0 - 2.0, y0 - 2.0, w + 4.0, h + 4.0], core, *b);
                    }
                    let baseline = y0 + self.ascent;
                    for (i, c) in text.chars().enumerate() {
                        let g = self.glyph(c);
                        if g.w == 0 || g.h == 0 {
                            continue;
                        }
                        let x = x0 + i as f32 * self.advance + g.xmin as f32;
                        let y = baseline - (g.ymin as f32 + g.h as f32);
                        self.quad(&mut out, [x, y, g.w as f32, g.h as f32], g, *color);
                    }
                }
                ScreenItem::Dot {
                    center,
                    radius,
                    color,
                } => {
                    let r = radius.max(0.5);
                    let rect = [center[0] - r, center[1] - r, 2.0 * r, 2.0 * r];
                    self.quad(&mut out, rect, self.disc, *color);
                }
                ScreenItem::Rect { at, size, color } => {
                    let rect = [
                        at[0].round(),
                        at[1].round(),
                        size[0].round(),
                        size[1].round(),
                    ];
                    if rect[2] > 0.0 && rect[3] > 0.0 {
                        self.quad(&mut out, rect, core, *color);
                    }
                }
                ScreenItem::Segment { a, b, width, color } => {
                    let d = glam::Vec2::from(*b) - glam::Vec2::from(*a);
                    let len = d.length();
                    if len <= 0.0 {
                        continue;
                    }
                    let n = glam::Vec2::new(-d.y, d.x) / len * (width.max(1.0) * 0.5);
                    let (a, b) = (glam::Vec2::from(*a), glam::Vec2::from(*b));
                    let (u, v) = (
                        (core.x as f32 + 1.0) / self.texture.width as f32,
                        (core.y as f32 + 1.0) / self.texture.height as f32,
                    );
                    let p = |q: glam::Vec2| QuadVertex {
                        position: q.to_array(),
                        uv: [u, v],
                        color: *color,
                    };
                    out.extend_from_slice(&[
                        p(a + n),
                        p(b + n),
                        p(a - n),
                        p(b + n),
                        p(b - n),
                        p(a - n),
                    ]);
                }
            }
        }
        out
    }
}

/// The line vertex input (binding 0: position, colour).
fn line_input() -> VertexInput {
    VertexInput {
        bindings: vec![vk::VertexInputBindingDescription {
            binding: 0,
            stride: std::mem::size_of::<LineVertex>() as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        }],
        attributes: vec![
            attribute(0, vk::Format::R32G32B32_SFLOAT, 0),
            attribute(1, vk::Format::R8G8B8A8_UNORM, 12),
        ],
    }
}

/// The quad vertex input (binding 0: position, uv, colour).
fn quad_input() -> VertexInput {
    VertexInput {
        bindings: vec![vk::VertexInputBindingDescription {
            binding: 0,
            stride: std::mem::size_of::<QuadVertex>() as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        }],
        attributes: vec![
            attribute(0, vk::Format::R32G32_SFLOAT, 0),
            attribute(1, vk::Format::R32G32_SFLOAT, 8),
            attribute(2, vk::Format::R8G8B8A8_UNORM, 16),
        ],
    }
}

fn attribute(
    location: u32,
    format: vk::Format,
    offset: u32,
) -> vk::VertexInputAttributeDescription {
    vk::VertexInputAttributeDescription {
        location,
        binding: 0,
        format,
        offset,
    }
}

fn vkr<T>(r: std::result::Result<T, vk::Result>, call: &'static str) -> Result<T> {
    r.map_err(|result| GpuError::Vk { call, result })
}

/// The overlay's pipelines, its atlas (uploaded through the renderer's queue) and one
/// vertex buffer per frame slot.
pub(super) struct OverlayGpu {
    gpu: Gpu,
    layout: Arc<PipelineLayout>,
    lines: Pipeline,
    quads: Pipeline,
    /// The baked atlas image (its upload is the renderer's first job).
    pub atlas_image: Image,
    sampler: vk::Sampler,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    atlas: &'static GlyphAtlas,
    buffers: Vec<Option<Buffer>>,
    /// What to draw from the next frame on.
    pub content: Overlay,
}

impl Drop for OverlayGpu {
    fn drop(&mut self) {
        self.gpu.retire_pending(Retired::Sampler(self.sampler));
        self.gpu.retire_pending(Retired::DescriptorPool(self.pool));
    }
}

/// One frame's overlay draw: the slot's vertex buffer and what is in it.
#[derive(Debug, Clone, Copy)]
pub(super) struct OverlayDraw {
    buffer: vk::Buffer,
    lines: u32,
    quad_offset: u64,
    quads: u32,
    set: vk::DescriptorSet,
}

impl OverlayGpu {
    /// Builds the pipelines and the atlas's set; `atlas_image` must be uploaded by the caller
    /// (it returns the texture to queue).
    pub fn new(gpu: &Gpu, slots: usize) -> Result<(OverlayGpu, Texture)> {
        let atlas = GlyphAtlas::shared().map_err(|e| GpuError::Invalid {
            what: "overlay font",
            reason: e.to_string(),
        })?;
        let vert = vk::ShaderStageFlags::VERTEX;
        let frag = vk::ShaderStageFlags::FRAGMENT;
        let bind = |b: u32, ty: vk::DescriptorType| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(ty)
                .descriptor_count(1)
                .stage_flags(frag)
        };
        let layout = PipelineLayout::new(
            gpu,
            &PipelineLayoutDesc {
                name: "overlay",
                sets: vec![vec![
                    bind(0, vk::DescriptorType::SAMPLED_IMAGE),
                    bind(1, vk::DescriptorType::SAMPLER),
                ]],
                push_descriptor_sets: Vec::new(),
                push_constants: vec![vk::PushConstantRange {
                    stage_flags: vert,
                    offset: 0,
                    size: std::mem::size_of::<OverlayPush>() as u32,
                }],
            },
        )?;
        // Straight alpha over the picture.
        let over = vk::PipelineColorBlendAttachmentState {
            blend_enable: vk::TRUE,
            src_color_blend_factor: vk::BlendFactor::SRC_ALPHA,
            dst_color_blend_factor: vk::BlendFactor::ONE_MINUS_SRC_ALPHA,
            color_blend_op: vk::BlendOp::ADD,
            src_alpha_blend_factor: vk::BlendFactor::ZERO,
            dst_alpha_blend_factor: vk::BlendFactor::ONE,
            alpha_blend_op: vk::BlendOp::ADD,
            color_write_mask: vk::ColorComponentFlags::RGBA,
        };
        let pipeline = |name: &str, vs: &str, fs: &str, input, topology, test: bool| {
            let mut d = GraphicsPipelineDesc::new(
                name,
                &layout,
                ShaderEntry::new(&shaders::OVERLAY, vs),
                Some(ShaderEntry::new(&shaders::OVERLAY, fs)),
            );
            d.vertex_input = input;
            d.topology = topology;
            d.depth = Some(DepthState {
                format: DEPTH_FORMAT,
                test,
                write: false,
                compare: vk::CompareOp::LESS_OR_EQUAL,
                bias: None,
                clamp: false,
            });
            d.color_targets = vec![ColorTarget {
                format: CAPTURE_FORMAT,
                blend: Some(over),
            }];
            Pipeline::graphics(gpu, &d)
        };
        let lines = pipeline(
            "overlay lines",
            "vs_line",
            "fs_line",
            line_input(),
            vk::PrimitiveTopology::LINE_LIST,
            true,
        )?;
        let quads = pipeline(
            "overlay text",
            "vs_quad",
            "fs_quad",
            quad_input(),
            vk::PrimitiveTopology::TRIANGLE_LIST,
            false,
        )?;
        let texture = atlas.texture.clone();
        let atlas_image = gpu.create_image(&crate::ImageDesc::new_2d(
            "overlay glyph atlas",
            vk::Format::R8G8B8A8_SRGB,
            texture.width,
            texture.height,
            vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::SAMPLED,
        ))?;
        let clamp = vk::SamplerAddressMode::CLAMP_TO_EDGE;
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::NEAREST)
            .min_filter(vk::Filter::NEAREST)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(clamp)
            .address_mode_v(clamp)
            .address_mode_w(clamp)
            .max_lod(0.0);
        // SAFETY: the create info is fully initialised and the device is live.
        let sampler = vkr(
            unsafe { gpu.device().create_sampler(&info, None) },
            "vkCreateSampler",
        )?;
        gpu.set_object_name(sampler, "overlay atlas");
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::SAMPLED_IMAGE,
                descriptor_count: 1,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::SAMPLER,
                descriptor_count: 1,
            },
        ];
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&sizes);
        // SAFETY: the create info and its sizes outlive the call.
        let pool = vkr(
            unsafe { gpu.device().create_descriptor_pool(&pool_info, None) },
            "vkCreateDescriptorPool",
        )?;
        let set_layouts = [*layout.set_layouts().first().ok_or(GpuError::Invalid {
            what: "overlay layout",
            reason: "no set layout".into(),
        })?];
        let alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&set_layouts);
        // SAFETY: the pool holds exactly this one set.
        let set = vkr(
            unsafe { gpu.device().allocate_descriptor_sets(&alloc) },
            "vkAllocateDescriptorSets",
        )?
        .first()
        .copied()
        .ok_or(GpuError::Invalid {
            what: "overlay set",
            reason: "none allocated".into(),
        })?;
        let ti = [vk::DescriptorImageInfo::default()
            .image_view(atlas_image.view())
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
        ];
        // SAFETY: the set is fresh and unused; the infos outlive the call.
        unsafe { gpu.device().update_descriptor_sets(&writes, &[]) };
        Ok((
            OverlayGpu {
                gpu: gpu.clone(),
                layout,
                lines,
                quads,
                atlas_image,
                sampler,
                pool,
                set,
                atlas,
                buffers: (0..slots).map(|_| None).collect(),
                content: Overlay::default(),
            },
            texture,
        ))
    }

    /// Writes this frame's vertices into `slot`'s buffer (its previous frame is complete);
    /// `None` when the overlay is empty.
    pub fn prepare(&mut self, slot: usize) -> Result<Option<OverlayDraw>> {
        if self.content.is_empty() {
            return Ok(None);
        }
        let quads = self.atlas.quads(&self.content.screen);
        let line_bytes: &[u8] = bytemuck::cast_slice(&self.content.lines);
        let quad_offset = line_bytes.len().div_ceil(16) * 16;
        let need = (quad_offset + std::mem::size_of_val(quads.as_slice())).max(64) as u64;
        let Some(entry) = self.buffers.get_mut(slot) else {
            return Err(GpuError::Invalid {
                what: "overlay",
                reason: format!("frame slot {slot} has no buffer"),
            });
        };
        if entry.as_ref().is_none_or(|b| b.size() < need) {
            *entry = Some(self.gpu.create_buffer(&BufferDesc {
                name: "overlay vertices",
                size: need.next_power_of_two(),
                usage: vk::BufferUsageFlags::VERTEX_BUFFER,
                location: MemoryLocation::CpuToGpu,
            })?);
        }
        let buffer = entry.as_mut().ok_or(GpuError::Invalid {
            what: "overlay",
            reason: "no vertex buffer".into(),
        })?;
        let raw = buffer.raw();
        let mapped = buffer.mapped_slice_mut().ok_or(GpuError::Invalid {
            what: "overlay vertices",
            reason: "not host-visible".into(),
        })?;
        mapped[..line_bytes.len()].copy_from_slice(line_bytes);
        let quad_bytes: &[u8] = bytemuck::cast_slice(&quads);
        mapped[quad_offset..quad_offset + quad_bytes.len()].copy_from_slice(quad_bytes);
        Ok(Some(OverlayDraw {
            buffer: raw,
            lines: self.content.lines.len() as u32,
            quad_offset: quad_offset as u64,
            quads: quads.len() as u32,
            set: self.set,
        }))
    }

    /// Records `draw` into `cmd`: the capture (colour attachment, just written by the
    /// resolve) and `depth` (the scene's single-sample depth) loaded, lines tested, then
    /// the quads on top.
    #[allow(clippy::too_many_arguments)] // one pass's attachments and its constants
    pub fn record(
        &self,
        cmd: vk::CommandBuffer,
        draw: &OverlayDraw,
        capture: &Image,
        depth: &Image,
        view_proj: Mat4,
        width: u32,
        height: u32,
    ) {
        let gpu = &self.gpu;
        let device = gpu.device();
        let color = vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT;
        let tests = vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
            | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS;
        barrier(
            gpu,
            cmd,
            capture,
            Barrier {
                old: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                new: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                src_stage: color,
                src_access: vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
                dst_stage: color,
                dst_access: vk::AccessFlags2::COLOR_ATTACHMENT_READ
                    | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            },
        );
        // The depth was written by the prepass (or, at MSAA, by the opaque pass's resolve,
        // which writes at the colour output stage).
        barrier(
            gpu,
            cmd,
            depth,
            Barrier {
                old: vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
                new: vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
                src_stage: color | tests,
                src_access: vk::AccessFlags2::COLOR_ATTACHMENT_WRITE
                    | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
                dst_stage: tests,
                dst_access: vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ,
            },
        );
        let color_att = [vk::RenderingAttachmentInfo::default()
            .image_view(capture.view())
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::LOAD)
            .store_op(vk::AttachmentStoreOp::STORE)];
        let depth_att = vk::RenderingAttachmentInfo::default()
            .image_view(depth.view())
            .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::LOAD)
            .store_op(vk::AttachmentStoreOp::STORE);
        begin_rendering(gpu, cmd, width, height, &color_att, Some(&depth_att));
        viewport(gpu, cmd, 0, 0, width, height);
        let push = OverlayPush {
            view_proj,
            viewport: Vec4::new(
                width as f32,
                height as f32,
                1.0 / width as f32,
                1.0 / height as f32,
            ),
        };
        // SAFETY: `cmd` is recording inside the rendering begun above; the set, the push
        // range and the vertex buffer match the overlay layout and live for the submit; the
        // buffer holds `lines` line vertices from 0 and `quads` quad vertices from
        // `quad_offset` (written by `prepare`).
        unsafe {
            device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.layout.raw(),
                0,
                &[draw.set],
                &[],
            );
            device.cmd_push_constants(
                cmd,
                self.layout.raw(),
                vk::ShaderStageFlags::VERTEX,
                0,
                bytemuck::bytes_of(&push),
            );
            if draw.lines > 0 {
                self.lines.bind(cmd);
                device.cmd_bind_vertex_buffers(cmd, 0, &[draw.buffer], &[0]);
                device.cmd_draw(cmd, draw.lines, 1, 0, 0);
            }
            if draw.quads > 0 {
                self.quads.bind(cmd);
                device.cmd_bind_vertex_buffers(cmd, 0, &[draw.buffer], &[draw.quad_offset]);
                device.cmd_draw(cmd, draw.quads, 1, 0, 0);
            }
        }
        end_rendering(gpu, cmd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The `(location, byte size)` of each input of entry point `entry` in overlay.wgsl.
    fn inputs(entry: &str) -> Vec<(u32, u32)> {
        let src = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/overlay.wgsl"),
        )
        .expect("overlay.wgsl reads");
        let module = naga::front::wgsl::parse_str(&src).expect("overlay.wgsl parses");
        let ep = module
            .entry_points
            .iter()
            .find(|e| e.name == entry)
            .expect("entry point");
        ep.function
            .arguments
            .iter()
            .filter_map(|a| match a.binding {
                Some(naga::Binding::Location { location, .. }) => {
                    let size = match module.types[a.ty].inner {
                        naga::TypeInner::Vector { size, .. } => size as u32,
                        _ => 1,
                    };
                    Some((location, size))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn vertex_structs_match_the_inputs_the_pipelines_declare() {
        assert_eq!(size_of::<LineVertex>(), 16);
        assert_eq!(offset_of!(LineVertex, color), 12);
        assert_eq!(size_of::<QuadVertex>(), 20);
        assert_eq!(offset_of!(QuadVertex, uv), 8);
        assert_eq!(offset_of!(QuadVertex, color), 16);
        let l = line_input();
        assert_eq!(l.bindings[0].stride as usize, size_of::<LineVertex>());
        let offsets: Vec<(u32, u32)> = l
            .attributes
            .iter()
            .map(|a| (a.location, a.offset))
            .collect();
        assert_eq!(
            offsets,
            vec![(0, 0), (1, offset_of!(LineVertex, color) as u32)]
        );
        let q = quad_input();
        assert_eq!(q.bindings[0].stride as usize, size_of::<QuadVertex>());
        let offsets: Vec<(u32, u32)> = q
            .attributes
            .iter()
            .map(|a| (a.location, a.offset))
            .collect();
        assert_eq!(
            offsets,
            vec![
                (0, 0),
                (1, offset_of!(QuadVertex, uv) as u32),
                (2, offset_of!(QuadVertex, color) as u32)
            ]
        );
        // The shader's inputs: position vec3 + colour vec4 (unorm bytes widen to it).
        assert_eq!(inputs("vs_line"), vec![(0, 3), (1, 4)]);
        assert_eq!(inputs("vs_quad"), vec![(0, 2), (1, 2), (2, 4)]);
    }

    #[test]
    fn push_constant_matches_the_shader() {
        let src = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/overlay.wgsl"),
        )
        .expect("overlay.wgsl reads");
        let module = naga::front::wgsl::parse_str(&src).expect("parses");
        let (_, ty) = module
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some("Overlay"))
            .expect("struct Overlay");
        let naga::TypeInner::Struct { members, span } = &ty.inner else {
            panic!("Overlay is a struct");
        };
        let got: Vec<(String, u32)> = members
            .iter()
            .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "view_proj".to_string(),
                    offset_of!(OverlayPush, view_proj) as u32
                ),
                (
                    "viewport".to_string(),
                    offset_of!(OverlayPush, viewport) as u32
                ),
            ]
        );
        assert_eq!(*span as usize, size_of::<OverlayPush>());
    }

    #[test]
    fn the_atlas_holds_every_printable_glyph_with_ink() {
        let a = GlyphAtlas::bake().expect("the bundled font bakes");
        assert_eq!(a.advance, 8.0, "DejaVu Sans Mono at 13 px advances 7.8 px");
        for c in ['A', 'g', '0', '%', '°'] {
            let g = a.glyph(c);
            assert!(g.w > 0 && g.h > 0, "{c} has a bitmap");
            let mut ink = 0u32;
            for j in 0..g.h {
                for i in 0..g.w {
                    let at = (((g.y + j) * a.texture.width + g.x + i) * 4 + 3) as usize;
                    ink += u32::from(a.texture.rgba[at]);
                }
            }
            assert!(ink > 255 * 4, "{c} has ink in the atlas");
        }
        // Text quads: two triangles a visible glyph, plus the backdrop.
        let quads = a.quads(&[ScreenItem::Text {
            at: [10.0, 10.0],
            text: "ab c".into(),
            color: [255; 4],
            backdrop: Some([0, 0, 0, 128]),
        }]);
        assert_eq!(quads.len(), 6 * 4);
        assert_eq!(a.text_size("ab c"), [32.0, a.line_height]);
        // A rectangle is one quad over its pixels; an empty one is none.
        let quads = a.quads(&[
            ScreenItem::Rect {
                at: [4.0, 6.0],
                size: [10.0, 3.0],
                color: [0, 0, 0, 160],
            },
            ScreenItem::Rect {
                at: [4.0, 6.0],
                size: [0.0, 3.0],
                color: [0, 0, 0, 160],
            },
        ]);
        assert_eq!(quads.len(), 6);
        assert_eq!(quads[0].position, [4.0, 6.0]);
        assert_eq!(quads[4].position, [14.0, 9.0]);
    }
}
