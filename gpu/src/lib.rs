//! The Vulkan backend and renderer.
//!
//! # The backend's public API (`dh-gpu`, issue 4 item 1)
//!
//! Everything runs headless: no surface, no swapchain. One [`Gpu`] (a cheap `Clone`
//! handle, `Send + Sync`) owns the instance, the device, one graphics+compute queue,
//! the allocator, the submit timeline and the deferred-destruction queue.
//!
//! * **Creation** — [`Gpu::new`] with a [`GpuDesc`]: device selection is discrete, then
//!   integrated, then virtual, then CPU; [`DeviceSelector`] overrides it by index or
//!   name (parse an option string with [`DeviceSelector::parse`]; the env variable
//!   [`DEVICE_ENV`] (`DH_GPU_DEVICE`) is read when the desc says `Auto`). Vulkan 1.3 core
//!   with dynamic rendering, synchronization2, timeline semaphores and host query reset
//!   is required; buffer device address, descriptor indexing, memory budget, push
//!   descriptors, an async transfer queue, timestamps and debug utils are probed
//!   ([`OptionalFeatures`]) and written into [`Gpu::report`] (a `Display` the host
//!   logs). No loader or no device is [`GpuError::NoLoader`] / [`GpuError::NoDevice`],
//!   whose message names the packages `libvulkan1 mesa-vulkan-drivers`.
//! * **Memory** — [`Gpu::create_buffer`] / [`Gpu::create_image`] with [`BufferDesc`] /
//!   [`ImageDesc`] return RAII [`Buffer`] / [`Image`] (gpu-allocator; host-visible
//!   memory is persistently mapped and coherent: [`Buffer::mapped_slice_mut`]).
//! * **Submits and lifetimes** — [`Gpu::submit`] signals exactly one new value of the
//!   device's timeline semaphore and returns it; [`Gpu::completed_value`],
//!   [`Gpu::wait_for`]. Dropping a [`Buffer`], [`Image`], [`Pipeline`], ... never
//!   destroys at once: the handle is retired against [`Gpu::pending_value`] (the value
//!   of the next submit, so the frame being recorded is covered) and freed by
//!   [`Gpu::collect_garbage`] once the timeline reaches it ([`Gpu::retire`] for raw
//!   handles, [`Retired`]). [`Timeline`] is a standalone timeline semaphore (gates,
//!   cross-queue waits) usable as a [`SemaphoreWait`].
//! * **Command recording** — [`FrameRing`] holds at most 2 frames in flight, each with
//!   one transient [`CommandPool`] per worker. [`FrameRing::begin_frame`] waits for the
//!   slot's previous submit, resets its pools and collects garbage; the returned
//!   [`Frame`] hands out `&mut [CommandPool]` so the caller's threads/jobs record in
//!   parallel (each pool is `Send`, one thread at a time): primaries
//!   ([`CommandPool::begin_primary`]) or secondaries inside one dynamic-rendering pass
//!   ([`CommandPool::begin_secondary`] with [`RenderingFormats`]). [`Frame::submit`]
//!   submits in the given order. [`Gpu::immediate`] records and waits for one-off work.
//! * **Uploads** — [`StagingRing`]: a persistently mapped ring with a per-frame byte
//!   budget and time budget ([`StagingConfig`]); [`StagingRing::stage`] returns `None`
//!   past either budget or when the ring is full (space comes back when the submit that
//!   read it completes); [`StagingRing::copy_to_buffer`] / [`StagingRing::copy_to_image`]
//!   queue copies, [`StagingRing::flush`] records them with barriers,
//!   [`StagingRing::submitted`] tags the frame's bytes with the submit's value.
//! * **Timings** — [`GpuTimer`]: [`GpuTimer::pass`] reserves a begin/end timestamp pair
//!   ([`PassQueries`], `Copy + Send`, record from any thread); results come back frames
//!   later from [`GpuTimer::begin_frame`] as [`PassTiming`]s (lavapipe: CPU time).
//! * **Debug labels** — [`Gpu::cmd_begin_label`] (`(cmd, name)`), [`Gpu::cmd_end_label`],
//!   [`Gpu::cmd_begin_label_color`], [`Gpu::cmd_insert_label`], [`Gpu::set_object_name`]: VK_EXT_debug_utils when
//!   present (RenderDoc shows them), no-ops otherwise.
//! * **Pipelines** — [`shaders`] is the build.rs table of WGSL compiled to SPIR-V
//!   (`shaders::FULLSCREEN_TEST`, `shaders::ALL`; `@group(g) @binding(b)` is set g,
//!   binding b; push constants are `var<immediate>` in naga 28's WGSL and need a
//!   `vk::PushConstantRange` whose stages are exactly the stages that read them);
//!   [`PipelineLayout`] (set layouts +
//!   push constants, optional push-descriptor set 0), [`GraphicsPipelineDesc`]
//!   (dynamic rendering formats, vertex input, raster, depth, blend; viewport and
//!   scissor dynamic), [`ComputePipelineDesc`] → [`Pipeline`].
//! * **Captures** — [`CaptureTarget`]: an `R8G8B8A8_SRGB` colour attachment plus a
//!   host-visible readback buffer; [`CaptureTarget::record_readback`] copies it,
//!   [`CaptureTarget::read`] returns an [`RgbaImage`] whose [`RgbaImage::write_png`] /
//!   [`encode_png`] write a PNG with an sRGB chunk.
//! * **Validation** — [`ValidationLog`] collects every debug-utils message;
//!   [`Gpu::validation_log`], [`ValidationLog::errors`]; [`GpuDesc::sync_validation`]
//!   adds the layer's synchronization validation. [`testing`] has the lavapipe
//!   environment for tests ([`testing::test_gpu`], [`testing::finish`]: drop the device,
//!   then fail on any error-severity message, destruction included).
//!
//! * **The renderer** — [`render::Renderer`] draws a [`render::RenderFrame`] through all of
//!   the above: a [`FrameRing`] of at most two frames with one transient pool per recording
//!   worker, every upload through the [`StagingRing`] (the frame's own data first, then the
//!   static batch, live box meshes and base color textures under the per-frame byte and time
//!   budget; what does not fit waits for a later frame and is not drawn until resident),
//!   the static batch kept until [`render::RenderFrame::static_generation`] changes, passes
//!   recorded in parallel by the caller's [`render::Executor`] (dh-gpu owns no threads;
//!   [`render::Serial`], [`render::ScopedThreads`], the engine's dh-jobs executor) and a
//!   [`GpuTimer`] pair per pass. [`render::Renderer::render`] captures (waits and reads
//!   back); [`render::Renderer::render_frame`] does not wait and hands back the pass times
//!   of the frame two back.
//!
//! Raw Vulkan is available to the renderer: [`Gpu::device`], [`Gpu::instance`], and the
//! re-exported [`ash`] / [`vk`] (same version as ours).
#![warn(missing_docs)]

pub use ash;
pub use ash::vk;
pub use gpu_allocator::MemoryLocation;

mod capture;
mod commands;
mod device;
mod error;
mod labels;
mod memory;
mod pipeline;
mod retire;
pub mod shaders;
mod staging;
mod sync;
pub mod testing;
mod timestamps;
mod validation;

pub use capture::{encode_png, CaptureTarget, RgbaImage, CAPTURE_FORMAT};
pub use commands::{CommandPool, Frame, FrameRing, RenderingFormats, MAX_FRAMES_IN_FLIGHT};
pub use device::{
    AdapterInfo, DeviceKind, DeviceReport, DeviceSelector, Gpu, GpuDesc, HeapBudget,
    OptionalFeatures, Validation, DEVICE_ENV,
};
pub use error::{GpuError, Result};
pub use memory::{format_aspect, Buffer, BufferDesc, Image, ImageDesc};
pub use pipeline::{
    ColorTarget, ComputePipelineDesc, DepthState, GraphicsPipelineDesc, Pipeline, PipelineLayout,
    PipelineLayoutDesc, ShaderEntry, VertexInput,
};
pub use retire::{Retired, SemaphoreWait};
pub use staging::{
    ImageUpload, RingAllocator, StagingConfig, StagingRing, StagingSlice, StagingStats,
};
pub use sync::Timeline;
pub use timestamps::{GpuTimer, PassQueries, PassTiming};
pub use validation::{Severity, ValidationLog, ValidationMessage};
pub mod render;
