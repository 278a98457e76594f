//! Transient command pools per frame in flight and per worker, and the frame ring.
//!
//! A [`FrameRing`] has at most [`MAX_FRAMES_IN_FLIGHT`] slots; each slot has one
//! [`CommandPool`] per worker. [`FrameRing::begin_frame`] waits until the slot's last
//! submit finished, resets its pools (every command buffer from them becomes reusable)
//! and collects garbage. The [`Frame`] lends the pools out mutably, so the caller's
//! threads or jobs record in parallel — one pool per thread at a time — and then
//! submits the command buffers in the order the passes must run.

use std::time::Duration;

use ash::vk;

use crate::device::Gpu;
use crate::error::{invalid, Result, VkContext};
use crate::retire::{Retired, SemaphoreWait};

/// The most frames the CPU may run ahead of the GPU.
pub const MAX_FRAMES_IN_FLIGHT: usize = 2;

/// The attachment formats a secondary command buffer records against (the dynamic
/// rendering pass that executes it must use the same).
#[derive(Clone, Debug, Default)]
pub struct RenderingFormats {
    /// Colour attachment formats, in attachment order.
    pub color: Vec<vk::Format>,
    /// Depth attachment format, or `UNDEFINED`.
    pub depth: vk::Format,
    /// Stencil attachment format, or `UNDEFINED`.
    pub stencil: vk::Format,
    /// Rasterization samples of the pass (empty means one).
    pub samples: vk::SampleCountFlags,
}

/// A transient command pool: command buffers are allocated once, reused after each
/// reset. `Send`: move it (or `&mut` it) to the thread that records.
pub struct CommandPool {
    gpu: Gpu,
    raw: vk::CommandPool,
    primaries: Vec<vk::CommandBuffer>,
    next_primary: usize,
    secondaries: Vec<vk::CommandBuffer>,
    next_secondary: usize,
}

impl std::fmt::Debug for CommandPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandPool")
            .field("raw", &self.raw)
            .field("primaries", &self.primaries.len())
            .field("secondaries", &self.secondaries.len())
            .finish()
    }
}

impl CommandPool {
    /// A transient pool on the device's queue family.
    pub fn new(gpu: &Gpu, name: &str) -> Result<Self> {
        let info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::TRANSIENT)
            .queue_family_index(gpu.queue_family());
        // SAFETY: valid device, the family exists.
        let raw =
            unsafe { gpu.device().create_command_pool(&info, None) }.vk("vkCreateCommandPool")?;
        gpu.set_object_name(raw, name);
        Ok(Self {
            gpu: gpu.clone(),
            raw,
            primaries: Vec::new(),
            next_primary: 0,
            secondaries: Vec::new(),
            next_secondary: 0,
        })
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The pool.
    pub fn raw(&self) -> vk::CommandPool {
        self.raw
    }

    fn next(&mut self, level: vk::CommandBufferLevel) -> Result<vk::CommandBuffer> {
        let (list, next) = if level == vk::CommandBufferLevel::PRIMARY {
            (&mut self.primaries, &mut self.next_primary)
        } else {
            (&mut self.secondaries, &mut self.next_secondary)
        };
        if *next == list.len() {
            let info = vk::CommandBufferAllocateInfo::default()
                .command_pool(self.raw)
                .level(level)
                .command_buffer_count(1);
            // SAFETY: this pool is used by one thread at a time (&mut self).
            let mut fresh = unsafe { self.gpu.device().allocate_command_buffers(&info) }
                .vk("vkAllocateCommandBuffers")?;
            list.append(&mut fresh);
        }
        let cmd = list
            .get(*next)
            .copied()
            .ok_or_else(|| invalid("command buffer", "allocation returned nothing"))?;
        *next += 1;
        Ok(cmd)
    }

    /// A primary command buffer in the recording state (one-time submit).
    pub fn begin_primary(&mut self) -> Result<vk::CommandBuffer> {
        let cmd = self.next(vk::CommandBufferLevel::PRIMARY)?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: the buffer is in the initial state (fresh, or its pool was reset
        // after the GPU finished with it) and owned by this pool.
        unsafe { self.gpu.device().begin_command_buffer(cmd, &begin) }
            .vk("vkBeginCommandBuffer")?;
        Ok(cmd)
    }

    /// A secondary command buffer recording inside a dynamic-rendering pass with
    /// `formats` (the pass must begin with
    /// `vk::RenderingFlags::CONTENTS_SECONDARY_COMMAND_BUFFERS`).
    pub fn begin_secondary(&mut self, formats: &RenderingFormats) -> Result<vk::CommandBuffer> {
        let cmd = self.next(vk::CommandBufferLevel::SECONDARY)?;
        let mut rendering = vk::CommandBufferInheritanceRenderingInfo::default()
            .color_attachment_formats(&formats.color)
            .depth_attachment_format(formats.depth)
            .stencil_attachment_format(formats.stencil)
            .rasterization_samples(if formats.samples.is_empty() {
                vk::SampleCountFlags::TYPE_1
            } else {
                formats.samples
            });
        let inheritance = vk::CommandBufferInheritanceInfo::default().push_next(&mut rendering);
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(
                vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT
                    | vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE,
            )
            .inheritance_info(&inheritance);
        // SAFETY: as for begin_primary; the inheritance chain outlives the call.
        unsafe { self.gpu.device().begin_command_buffer(cmd, &begin) }
            .vk("vkBeginCommandBuffer")?;
        Ok(cmd)
    }

    /// Ends recording of a command buffer from this pool.
    pub fn end(&self, cmd: vk::CommandBuffer) -> Result<()> {
        // SAFETY: `cmd` came from this pool and is recording (the caller's contract).
        unsafe { self.gpu.device().end_command_buffer(cmd) }.vk("vkEndCommandBuffer")
    }

    /// Resets the pool; every command buffer from it returns to the initial state.
    ///
    /// # Safety
    /// No submitted command buffer from this pool may still be pending.
    pub unsafe fn reset(&mut self) -> Result<()> {
        // SAFETY: the caller guarantees the GPU is done with this pool's buffers.
        unsafe {
            self.gpu
                .device()
                .reset_command_pool(self.raw, vk::CommandPoolResetFlags::empty())
        }
        .vk("vkResetCommandPool")?;
        self.next_primary = 0;
        self.next_secondary = 0;
        Ok(())
    }

    fn take(&mut self) -> vk::CommandPool {
        std::mem::replace(&mut self.raw, vk::CommandPool::null())
    }
}

impl Drop for CommandPool {
    fn drop(&mut self) {
        let raw = self.take();
        if raw != vk::CommandPool::null() {
            self.gpu.retire_pending(Retired::CommandPool(raw));
        }
    }
}

struct Slot {
    pools: Vec<CommandPool>,
    /// The last timeline value submitted from this slot.
    value: u64,
}

/// Frames in flight, each with one transient pool per worker.
pub struct FrameRing {
    gpu: Gpu,
    slots: Vec<Slot>,
    next: usize,
    frame_number: u64,
    /// How long [`FrameRing::begin_frame`] waits for a slot before failing.
    pub wait_timeout: Duration,
}

impl std::fmt::Debug for FrameRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameRing")
            .field("frames_in_flight", &self.slots.len())
            .field("frame_number", &self.frame_number)
            .finish()
    }
}

impl FrameRing {
    /// `frames_in_flight` (1..=2) slots of `workers` (>= 1) pools each.
    pub fn new(gpu: &Gpu, frames_in_flight: usize, workers: usize) -> Result<Self> {
        if !(1..=MAX_FRAMES_IN_FLIGHT).contains(&frames_in_flight) {
            return Err(invalid(
                "frame ring",
                format!("{frames_in_flight} frames in flight (1..={MAX_FRAMES_IN_FLIGHT})"),
            ));
        }
        if workers == 0 {
            return Err(invalid("frame ring", "0 workers"));
        }
        let slots = (0..frames_in_flight)
            .map(|frame| {
                let pools = (0..workers)
                    .map(|worker| CommandPool::new(gpu, &format!("frame {frame} worker {worker}")))
                    .collect::<Result<Vec<_>>>()?;
                Ok(Slot { pools, value: 0 })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            gpu: gpu.clone(),
            slots,
            next: 0,
            frame_number: 0,
            wait_timeout: Duration::from_secs(60),
        })
    }

    /// Frames in flight.
    pub fn frames_in_flight(&self) -> usize {
        self.slots.len()
    }

    /// Pools per frame.
    pub fn workers(&self) -> usize {
        self.slots.first().map_or(0, |s| s.pools.len())
    }

    /// Waits for the next slot's previous frame, resets its pools, collects garbage.
    pub fn begin_frame(&mut self) -> Result<Frame<'_>> {
        let index = self.next;
        self.next = (self.next + 1) % self.slots.len();
        let number = self.frame_number;
        self.frame_number += 1;
        let slot = &mut self.slots[index];
        if slot.value > 0 {
            self.gpu.wait_for(slot.value, self.wait_timeout)?;
        }
        for pool in &mut slot.pools {
            // SAFETY: the slot's last submit completed (waited above), and every
            // command buffer from these pools was submitted from this slot.
            unsafe { pool.reset() }?;
        }
        self.gpu.collect_garbage()?;
        Ok(Frame {
            gpu: &self.gpu,
            slot,
            index,
            number,
        })
    }
}

/// One frame being recorded; see [`FrameRing`].
pub struct Frame<'a> {
    gpu: &'a Gpu,
    slot: &'a mut Slot,
    index: usize,
    number: u64,
}

impl Frame<'_> {
    /// Which slot of the ring (0..frames_in_flight): index per-frame resources with it.
    pub fn slot(&self) -> usize {
        self.index
    }

    /// Frames begun before this one.
    pub fn number(&self) -> u64 {
        self.number
    }

    /// The per-worker pools: hand one to each recording thread.
    pub fn pools(&mut self) -> &mut [CommandPool] {
        &mut self.slot.pools
    }

    /// One worker's pool.
    pub fn pool(&mut self, worker: usize) -> Option<&mut CommandPool> {
        self.slot.pools.get_mut(worker)
    }

    /// Submits command buffers recorded from this frame's pools, in order; returns the
    /// timeline value. May be called more than once; the slot waits for the last.
    pub fn submit(
        &mut self,
        command_buffers: &[vk::CommandBuffer],
        waits: &[SemaphoreWait],
    ) -> Result<u64> {
        let value = self.gpu.submit(command_buffers, waits)?;
        self.slot.value = value;
        Ok(value)
    }
}

impl Gpu {
    /// Records one-off work with `record`, submits it, waits for it (up to a minute)
    /// and returns `record`'s result and the submit's timeline value.
    pub fn immediate<R>(
        &self,
        record: impl FnOnce(&Gpu, vk::CommandBuffer) -> Result<R>,
    ) -> Result<(R, u64)> {
        let mut pool = CommandPool::new(self, "immediate")?;
        let cmd = pool.begin_primary()?;
        let out = record(self, cmd)?;
        pool.end(cmd)?;
        let value = self.submit(&[cmd], &[])?;
        let raw = pool.take();
        self.retire(value, Retired::CommandPool(raw));
        self.wait_for(value, Duration::from_secs(60))?;
        self.collect_garbage()?;
        Ok((out, value))
    }
}
