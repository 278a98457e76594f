//! Graphics and compute pipelines from the build.rs SPIR-V, for dynamic rendering.
//!
//! Viewport and scissor are always dynamic. Shader modules live only while a pipeline
//! is created. Layouts are shared (`Arc<PipelineLayout>`) and outlive every pipeline
//! made with them.

use std::ffi::CString;
use std::sync::Arc;

use ash::vk;

use crate::device::Gpu;
use crate::error::{invalid, GpuError, Result, VkContext};
use crate::retire::Retired;
use crate::shaders::{Shader, ShaderStage};

/// An entry point of a compiled shader.
#[derive(Clone, Copy, Debug)]
pub struct ShaderEntry<'a> {
    /// The compiled file (`shaders::NAME`).
    pub shader: &'a Shader,
    /// The entry point's name in the WGSL.
    pub entry: &'a str,
}

impl<'a> ShaderEntry<'a> {
    /// `entry` of `shader`.
    pub fn new(shader: &'a Shader, entry: &'a str) -> Self {
        Self { shader, entry }
    }
}

/// Descriptor set layouts and push constants.
#[derive(Clone, Debug, Default)]
pub struct PipelineLayoutDesc<'a> {
    /// Debug name.
    pub name: &'a str,
    /// Bindings of set 0, 1, ... (one entry per set).
    pub sets: Vec<Vec<vk::DescriptorSetLayoutBinding<'a>>>,
    /// Which of `sets` are push-descriptor sets (needs
    /// [`crate::OptionalFeatures::push_descriptor`]).
    pub push_descriptor_sets: Vec<u32>,
    /// Push constant ranges.
    pub push_constants: Vec<vk::PushConstantRange>,
}

/// A pipeline layout with the descriptor set layouts it owns.
pub struct PipelineLayout {
    gpu: Gpu,
    raw: vk::PipelineLayout,
    set_layouts: Vec<vk::DescriptorSetLayout>,
}

impl std::fmt::Debug for PipelineLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipelineLayout")
            .field("raw", &self.raw)
            .field("sets", &self.set_layouts.len())
            .finish()
    }
}

impl PipelineLayout {
    /// Creates the set layouts and the pipeline layout.
    pub fn new(gpu: &Gpu, desc: &PipelineLayoutDesc<'_>) -> Result<Arc<Self>> {
        if !desc.push_descriptor_sets.is_empty() && gpu.push_descriptor().is_none() {
            return Err(invalid(
                "pipeline layout",
                format!("{:?} uses push descriptors; the device has none", desc.name),
            ));
        }
        let mut layout = Self {
            gpu: gpu.clone(),
            raw: vk::PipelineLayout::null(),
            set_layouts: Vec::with_capacity(desc.sets.len()),
        };
        for (i, bindings) in desc.sets.iter().enumerate() {
            let flags = if desc.push_descriptor_sets.contains(&(i as u32)) {
                vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR
            } else {
                vk::DescriptorSetLayoutCreateFlags::empty()
            };
            let info = vk::DescriptorSetLayoutCreateInfo::default()
                .flags(flags)
                .bindings(bindings);
            // SAFETY: valid device; bindings outlive the call. On error, Drop
            // destroys the set layouts made so far.
            let set = unsafe { gpu.device().create_descriptor_set_layout(&info, None) }
                .vk("vkCreateDescriptorSetLayout")?;
            layout.set_layouts.push(set);
        }
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&layout.set_layouts)
            .push_constant_ranges(&desc.push_constants);
        // SAFETY: valid device; the set layouts are live.
        layout.raw = unsafe { gpu.device().create_pipeline_layout(&info, None) }
            .vk("vkCreatePipelineLayout")?;
        gpu.set_object_name(layout.raw, desc.name);
        Ok(Arc::new(layout))
    }

    /// The pipeline layout.
    pub fn raw(&self) -> vk::PipelineLayout {
        self.raw
    }

    /// Its descriptor set layouts, by set index.
    pub fn set_layouts(&self) -> &[vk::DescriptorSetLayout] {
        &self.set_layouts
    }
}

impl Drop for PipelineLayout {
    fn drop(&mut self) {
        self.gpu.retire_pending(Retired::PipelineLayout(
            self.raw,
            std::mem::take(&mut self.set_layouts),
        ));
    }
}

/// Vertex buffer bindings and attributes (empty for vertex-pulling shaders). The
/// renderer builds this from the one `MeshVertexLayout` description.
#[derive(Clone, Debug, Default)]
pub struct VertexInput {
    /// Buffer bindings.
    pub bindings: Vec<vk::VertexInputBindingDescription>,
    /// Attributes.
    pub attributes: Vec<vk::VertexInputAttributeDescription>,
}

/// The depth attachment's state.
#[derive(Clone, Copy, Debug)]
pub struct DepthState {
    /// The depth attachment format.
    pub format: vk::Format,
    /// Depth test on.
    pub test: bool,
    /// Depth writes on.
    pub write: bool,
    /// The comparison (`GREATER_OR_EQUAL` for reversed Z).
    pub compare: vk::CompareOp,
    /// Constant factor, clamp and slope factor of a static depth bias.
    pub bias: Option<(f32, f32, f32)>,
    /// Depth clamp (needs [`crate::OptionalFeatures::depth_clamp`]; shadow casters).
    pub clamp: bool,
}

/// One colour attachment.
#[derive(Clone, Copy, Debug)]
pub struct ColorTarget {
    /// Its format.
    pub format: vk::Format,
    /// Blend state; `None` writes RGBA unblended.
    pub blend: Option<vk::PipelineColorBlendAttachmentState>,
}

/// A graphics pipeline for dynamic rendering.
#[derive(Clone, Debug)]
pub struct GraphicsPipelineDesc<'a> {
    /// Debug name.
    pub name: &'a str,
    /// The layout.
    pub layout: &'a Arc<PipelineLayout>,
    /// Vertex entry point.
    pub vertex: ShaderEntry<'a>,
    /// Fragment entry point (`None` for depth-only passes).
    pub fragment: Option<ShaderEntry<'a>>,
    /// Vertex buffers.
    pub vertex_input: VertexInput,
    /// Primitive topology.
    pub topology: vk::PrimitiveTopology,
    /// Fill, line or point.
    pub polygon_mode: vk::PolygonMode,
    /// Face culling.
    pub cull_mode: vk::CullModeFlags,
    /// Which winding is front.
    pub front_face: vk::FrontFace,
    /// Depth attachment, test and write.
    pub depth: Option<DepthState>,
    /// Colour attachments.
    pub color_targets: Vec<ColorTarget>,
    /// Rasterization samples.
    pub samples: vk::SampleCountFlags,
}

impl<'a> GraphicsPipelineDesc<'a> {
    /// Triangle list, filled, no culling, counter-clockwise front, single sample, no
    /// depth, no colour targets, no vertex buffers.
    pub fn new(
        name: &'a str,
        layout: &'a Arc<PipelineLayout>,
        vertex: ShaderEntry<'a>,
        fragment: Option<ShaderEntry<'a>>,
    ) -> Self {
        Self {
            name,
            layout,
            vertex,
            fragment,
            vertex_input: VertexInput::default(),
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            polygon_mode: vk::PolygonMode::FILL,
            cull_mode: vk::CullModeFlags::NONE,
            front_face: vk::FrontFace::COUNTER_CLOCKWISE,
            depth: None,
            color_targets: Vec::new(),
            samples: vk::SampleCountFlags::TYPE_1,
        }
    }
}

/// A compute pipeline.
#[derive(Clone, Copy, Debug)]
pub struct ComputePipelineDesc<'a> {
    /// Debug name.
    pub name: &'a str,
    /// The layout.
    pub layout: &'a Arc<PipelineLayout>,
    /// The compute entry point.
    pub shader: ShaderEntry<'a>,
}

/// A graphics or compute pipeline; keeps its layout alive.
pub struct Pipeline {
    gpu: Gpu,
    raw: vk::Pipeline,
    layout: Arc<PipelineLayout>,
    bind_point: vk::PipelineBindPoint,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("raw", &self.raw)
            .field("bind_point", &self.bind_point)
            .finish()
    }
}

/// A shader module destroyed when dropped (modules are not needed after creation).
struct Module<'g> {
    gpu: &'g Gpu,
    raw: vk::ShaderModule,
    entry: CString,
}

impl<'g> Module<'g> {
    fn new(gpu: &'g Gpu, entry: &ShaderEntry<'_>, want: ShaderStage) -> Result<Self> {
        match entry.shader.stage_of(entry.entry) {
            Some(stage) if stage == want => {}
            Some(stage) => {
                return Err(invalid(
                    "shader entry",
                    format!(
                        "{}::{} is a {stage:?} entry, not {want:?}",
                        entry.shader.name, entry.entry
                    ),
                ))
            }
            None => {
                return Err(invalid(
                    "shader entry",
                    format!("{} has no entry point {}", entry.shader.name, entry.entry),
                ))
            }
        }
        let words = entry.shader.words();
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: the words are naga's validated SPIR-V (checked by spirv-val in CI).
        let raw =
            unsafe { gpu.device().create_shader_module(&info, None) }.vk("vkCreateShaderModule")?;
        let entry =
            CString::new(entry.entry).map_err(|e| invalid("shader entry", e.to_string()))?;
        Ok(Self { gpu, raw, entry })
    }
}

impl Drop for Module<'_> {
    fn drop(&mut self) {
        // SAFETY: a module may be destroyed as soon as pipelines using it are created.
        unsafe { self.gpu.device().destroy_shader_module(self.raw, None) };
    }
}

impl Pipeline {
    /// Creates a graphics pipeline.
    pub fn graphics(gpu: &Gpu, desc: &GraphicsPipelineDesc<'_>) -> Result<Self> {
        let vertex = Module::new(gpu, &desc.vertex, ShaderStage::Vertex)?;
        let fragment = desc
            .fragment
            .as_ref()
            .map(|f| Module::new(gpu, f, ShaderStage::Fragment))
            .transpose()?;
        let mut stages = vec![vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vertex.raw)
            .name(&vertex.entry)];
        if let Some(f) = &fragment {
            stages.push(
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(f.raw)
                    .name(&f.entry),
            );
        }
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&desc.vertex_input.bindings)
            .vertex_attribute_descriptions(&desc.vertex_input.attributes);
        let input_assembly =
            vk::PipelineInputAssemblyStateCreateInfo::default().topology(desc.topology);
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let depth = desc.depth;
        if depth.is_some_and(|d| d.clamp) && !gpu.features().depth_clamp {
            return Err(invalid(
                "pipeline",
                format!("{:?} wants depth clamp; the device has none", desc.name),
            ));
        }
        let bias = depth.and_then(|d| d.bias);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(desc.polygon_mode)
            .cull_mode(desc.cull_mode)
            .front_face(desc.front_face)
            .line_width(1.0)
            .depth_clamp_enable(depth.is_some_and(|d| d.clamp))
            .depth_bias_enable(bias.is_some())
            .depth_bias_constant_factor(bias.map_or(0.0, |b| b.0))
            .depth_bias_clamp(bias.map_or(0.0, |b| b.1))
            .depth_bias_slope_factor(bias.map_or(0.0, |b| b.2));
        let multisample =
            vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(desc.samples);
        let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(depth.is_some_and(|d| d.test))
            .depth_write_enable(depth.is_some_and(|d| d.write))
            .depth_compare_op(depth.map_or(vk::CompareOp::ALWAYS, |d| d.compare));
        let attachments: Vec<vk::PipelineColorBlendAttachmentState> = desc
            .color_targets
            .iter()
            .map(|t| {
                t.blend.unwrap_or(
                    vk::PipelineColorBlendAttachmentState::default()
                        .color_write_mask(vk::ColorComponentFlags::RGBA),
                )
            })
            .collect();
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
        let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let color_formats: Vec<vk::Format> = desc.color_targets.iter().map(|t| t.format).collect();
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(&color_formats)
            .depth_attachment_format(depth.map_or(vk::Format::UNDEFINED, |d| d.format));
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&input_assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth_stencil)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(desc.layout.raw())
            .push_next(&mut rendering);
        // SAFETY: every state struct and array outlives the call; modules and layout
        // are live; dynamic rendering is enabled.
        let result = unsafe {
            gpu.device()
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
        };
        let raw = first_pipeline(result, "vkCreateGraphicsPipelines")?;
        gpu.set_object_name(raw, desc.name);
        Ok(Self {
            gpu: gpu.clone(),
            raw,
            layout: Arc::clone(desc.layout),
            bind_point: vk::PipelineBindPoint::GRAPHICS,
        })
    }

    /// Creates a compute pipeline.
    pub fn compute(gpu: &Gpu, desc: &ComputePipelineDesc<'_>) -> Result<Self> {
        let module = Module::new(gpu, &desc.shader, ShaderStage::Compute)?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module.raw)
            .name(&module.entry);
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(desc.layout.raw());
        // SAFETY: as for graphics.
        let result = unsafe {
            gpu.device()
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
        };
        let raw = first_pipeline(result, "vkCreateComputePipelines")?;
        gpu.set_object_name(raw, desc.name);
        Ok(Self {
            gpu: gpu.clone(),
            raw,
            layout: Arc::clone(desc.layout),
            bind_point: vk::PipelineBindPoint::COMPUTE,
        })
    }

    /// The pipeline.
    pub fn raw(&self) -> vk::Pipeline {
        self.raw
    }

    /// Its layout.
    pub fn layout(&self) -> &Arc<PipelineLayout> {
        &self.layout
    }

    /// Graphics or compute.
    pub fn bind_point(&self) -> vk::PipelineBindPoint {
        self.bind_point
    }

    /// Binds it in `cmd` (recording).
    pub fn bind(&self, cmd: vk::CommandBuffer) {
        // SAFETY: `cmd` is recording (caller's contract); the pipeline is live.
        unsafe {
            self.gpu
                .device()
                .cmd_bind_pipeline(cmd, self.bind_point, self.raw)
        };
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        self.gpu.retire_pending(Retired::Pipeline(self.raw));
    }
}

fn first_pipeline(
    result: std::result::Result<Vec<vk::Pipeline>, (Vec<vk::Pipeline>, vk::Result)>,
    call: &'static str,
) -> Result<vk::Pipeline> {
    match result {
        Ok(pipelines) => pipelines
            .first()
            .copied()
            .ok_or_else(|| invalid("pipeline", "driver returned none")),
        Err((_, result)) => Err(GpuError::Vk { call, result }),
    }
}
