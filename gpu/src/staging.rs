//! The staging ring: a persistently mapped upload buffer used as a ring, with a
//! per-frame byte budget and time budget.
//!
//! Per frame: [`StagingRing::begin_frame`] (releases the space of completed submits,
//! resets the budgets) → [`StagingRing::stage`] (copies bytes in, or refuses) →
//! [`StagingRing::copy_to_buffer`] / [`StagingRing::copy_to_image`] → [`StagingRing::flush`]
//! into a command buffer → submit → [`StagingRing::submitted`] with the submit's value.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::device::Gpu;
use crate::error::{invalid, Result};
use crate::memory::{Buffer, BufferDesc};

/// Byte offsets handed out in ring order; space is given back per submit, when the
/// timeline passes the value that submit signalled. Pure bookkeeping (no Vulkan).
#[derive(Debug, Clone)]
pub struct RingAllocator {
    capacity: u64,
    head: u64,
    tail: u64,
    wrapped: bool,
    empty: bool,
    /// Staged since the last `submitted`.
    pending: bool,
    /// (end offset, timeline value) per submitted region, oldest first.
    regions: VecDeque<(u64, u64)>,
}

fn align_up(value: u64, align: u64) -> Option<u64> {
    let align = align.max(1);
    value.checked_add(align - 1).map(|v| v / align * align)
}

impl RingAllocator {
    /// A ring of `capacity` bytes.
    pub fn new(capacity: u64) -> Self {
        Self {
            capacity,
            head: 0,
            tail: 0,
            wrapped: false,
            empty: true,
            pending: false,
            regions: VecDeque::new(),
        }
    }

    /// Its size.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Bytes between the oldest live byte and the head (wasted tails included).
    pub fn used(&self) -> u64 {
        if self.empty {
            0
        } else if self.wrapped {
            self.capacity - self.tail + self.head
        } else {
            self.head - self.tail
        }
    }

    /// Reserves `size` bytes at an `align`ed offset, or `None` when they do not fit
    /// before the oldest in-flight region.
    pub fn alloc(&mut self, size: u64, align: u64) -> Option<u64> {
        if size == 0 || size > self.capacity {
            return None;
        }
        if self.empty {
            self.head = 0;
            self.tail = 0;
            self.wrapped = false;
        }
        let aligned = align_up(self.head, align)?;
        let offset = if !self.wrapped {
            if aligned.checked_add(size)? <= self.capacity {
                aligned
            } else if size <= self.tail {
                self.wrapped = true;
                0
            } else {
                return None;
            }
        } else if aligned.checked_add(size)? <= self.tail {
            aligned
        } else {
            return None;
        };
        self.head = offset + size;
        self.empty = false;
        self.pending = true;
        Some(offset)
    }

    /// Everything reserved since the last call belongs to the submit that signals
    /// `value`.
    pub fn submitted(&mut self, value: u64) {
        if self.pending {
            self.regions.push_back((self.head, value));
            self.pending = false;
        }
    }

    /// Gives back the regions whose submit value is at most `completed`.
    pub fn release(&mut self, completed: u64) {
        while let Some(&(end, value)) = self.regions.front() {
            if value > completed {
                break;
            }
            self.regions.pop_front();
            // A region ending in the high part ends past the tail; one ending at or
            // before it wrapped, so the tail crosses the end of the buffer.
            if self.wrapped && end <= self.tail {
                self.wrapped = false;
            }
            self.tail = end;
        }
        if self.regions.is_empty() && !self.pending {
            self.empty = true;
            self.head = 0;
            self.tail = 0;
            self.wrapped = false;
        }
    }

    /// Submitted regions not yet released.
    pub fn in_flight(&self) -> usize {
        self.regions.len()
    }
}

/// Sizes and budgets of a [`StagingRing`].
#[derive(Clone, Copy, Debug)]
pub struct StagingConfig {
    /// Ring size in bytes.
    pub capacity: u64,
    /// Bytes one frame may stage.
    pub frame_byte_budget: u64,
    /// CPU time one frame may spend copying into the ring (the voxel streamer spends
    /// `client.voxel.uploadBudgetMs` of it).
    pub frame_time_budget: Duration,
}

impl Default for StagingConfig {
    fn default() -> Self {
        Self {
            capacity: 64 << 20,
            frame_byte_budget: 16 << 20,
            frame_time_budget: Duration::from_millis(4),
        }
    }
}

/// Bytes staged in the ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StagingSlice {
    /// The ring buffer.
    pub buffer: vk::Buffer,
    /// Offset in it.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

/// A buffer-to-image copy: one mip of a range of layers.
#[derive(Clone, Copy, Debug)]
pub struct ImageUpload {
    /// The destination.
    pub image: vk::Image,
    /// Aspect (COLOR for colour formats).
    pub aspect: vk::ImageAspectFlags,
    /// Mip level.
    pub mip_level: u32,
    /// First layer.
    pub base_layer: u32,
    /// Layers.
    pub layer_count: u32,
    /// Texel offset.
    pub offset: vk::Offset3D,
    /// Texel extent.
    pub extent: vk::Extent3D,
    /// Texels per row in the staged bytes (0 = tightly packed).
    pub row_length: u32,
    /// The layout the subresource is in before the copy (`UNDEFINED` discards it).
    pub old_layout: vk::ImageLayout,
    /// The layout to leave it in (for example `SHADER_READ_ONLY_OPTIMAL`).
    pub new_layout: vk::ImageLayout,
}

/// What one frame spent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StagingStats {
    /// Bytes staged this frame.
    pub bytes: u64,
    /// CPU time spent copying this frame.
    pub time: Duration,
    /// Stages refused this frame (budget or ring full).
    pub refused: u32,
    /// Copies recorded by the last flush.
    pub copies: u32,
}

enum PendingCopy {
    Buffer(vk::Buffer, vk::BufferCopy),
    Image(ImageUpload, u64),
}

fn same_range(a: &vk::ImageSubresourceRange, b: &vk::ImageSubresourceRange) -> bool {
    (
        a.aspect_mask,
        a.base_mip_level,
        a.level_count,
        a.base_array_layer,
        a.layer_count,
    ) == (
        b.aspect_mask,
        b.base_mip_level,
        b.level_count,
        b.base_array_layer,
        b.layer_count,
    )
}

/// The staging ring; see the module docs.
pub struct StagingRing {
    buffer: Buffer,
    ring: RingAllocator,
    config: StagingConfig,
    stats: StagingStats,
    copies: Vec<PendingCopy>,
}

impl std::fmt::Debug for StagingRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StagingRing")
            .field("config", &self.config)
            .field("ring", &self.ring)
            .field("stats", &self.stats)
            .finish()
    }
}

impl StagingRing {
    /// Alignment of [`StagingRing::stage`] (covers every texel size and
    /// optimalBufferCopyOffsetAlignment on common devices).
    pub const ALIGN: u64 = 16;

    /// A mapped upload buffer of `config.capacity` bytes.
    pub fn new(gpu: &Gpu, config: StagingConfig) -> Result<Self> {
        if config.capacity == 0 {
            return Err(invalid("staging ring", "capacity 0"));
        }
        let buffer = gpu.create_buffer(&BufferDesc {
            name: "staging ring",
            size: config.capacity,
            usage: vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::CpuToGpu,
        })?;
        if buffer.mapped_slice().is_none() {
            return Err(invalid("staging ring", "memory is not host-visible"));
        }
        Ok(Self {
            buffer,
            ring: RingAllocator::new(config.capacity),
            config,
            stats: StagingStats::default(),
            copies: Vec::new(),
        })
    }

    /// The ring buffer.
    pub fn buffer(&self) -> vk::Buffer {
        self.buffer.raw()
    }

    /// Current sizes and budgets.
    pub fn config(&self) -> StagingConfig {
        self.config
    }

    /// Changes the per-frame budgets (the capacity stays).
    pub fn set_budgets(&mut self, frame_bytes: u64, frame_time: Duration) {
        self.config.frame_byte_budget = frame_bytes;
        self.config.frame_time_budget = frame_time;
    }

    /// This frame's spending.
    pub fn stats(&self) -> StagingStats {
        self.stats
    }

    /// Bytes the ring holds for in-flight submits or this frame.
    pub fn used(&self) -> u64 {
        self.ring.used()
    }

    /// Starts a frame: frees the space of submits up to `completed` (use
    /// [`Gpu::completed_value`]) and resets the frame's budgets.
    pub fn begin_frame(&mut self, completed: u64) {
        self.ring.release(completed);
        self.stats = StagingStats::default();
    }

    /// Copies `bytes` into the ring at [`Self::ALIGN`]; `None` when this frame's byte
    /// or time budget is spent or would be exceeded, or the ring is full.
    pub fn stage(&mut self, bytes: &[u8]) -> Option<StagingSlice> {
        self.stage_aligned(bytes, Self::ALIGN)
    }

    /// Bytes this frame may still stage under both budgets (0 once the time budget is
    /// spent).
    pub fn budget_left(&self) -> u64 {
        if self.stats.time >= self.config.frame_time_budget {
            return 0;
        }
        self.config
            .frame_byte_budget
            .saturating_sub(self.stats.bytes)
    }

    /// Copies a frame's own data (its constants, light list, clusters) into the ring
    /// outside the frame budgets: a frame cannot be drawn without them. The bytes and time
    /// still count, so the budgeted stages after it get what is left. `None` only when
    /// the ring has no room (it is smaller than a frame's data, or full of in-flight
    /// frames).
    pub fn stage_unbudgeted(&mut self, bytes: &[u8]) -> Option<StagingSlice> {
        self.stage_inner(bytes, Self::ALIGN)
    }

    /// [`Self::stage`] with an explicit alignment (a power of two or any multiple of
    /// the texel size).
    pub fn stage_aligned(&mut self, bytes: &[u8], align: u64) -> Option<StagingSlice> {
        let size = bytes.len() as u64;
        let over_bytes = self.stats.bytes.saturating_add(size) > self.config.frame_byte_budget;
        let over_time = self.stats.time >= self.config.frame_time_budget;
        if size == 0 || over_bytes || over_time {
            self.stats.refused += 1;
            return None;
        }
        self.stage_inner(bytes, align)
    }

    fn stage_inner(&mut self, bytes: &[u8], align: u64) -> Option<StagingSlice> {
        let size = bytes.len() as u64;
        if size == 0 {
            return None;
        }
        let Some(offset) = self.ring.alloc(size, align) else {
            self.stats.refused += 1;
            return None;
        };
        let start = Instant::now();
        let mapped = self.buffer.mapped_slice_mut()?;
        let end = offset as usize + bytes.len();
        mapped.get_mut(offset as usize..end)?.copy_from_slice(bytes);
        self.stats.time += start.elapsed();
        self.stats.bytes += size;
        Some(StagingSlice {
            buffer: self.buffer.raw(),
            offset,
            size,
        })
    }

    /// Queues a copy of `slice` into `dst` at `dst_offset`.
    pub fn copy_to_buffer(&mut self, slice: StagingSlice, dst: vk::Buffer, dst_offset: u64) {
        self.copies.push(PendingCopy::Buffer(
            dst,
            vk::BufferCopy {
                src_offset: slice.offset,
                dst_offset,
                size: slice.size,
            },
        ));
    }

    /// Queues a copy of `slice` into an image region.
    pub fn copy_to_image(&mut self, slice: StagingSlice, upload: ImageUpload) {
        self.copies.push(PendingCopy::Image(upload, slice.offset));
    }

    /// Stages `bytes` and queues their copy into `dst`; false when refused.
    pub fn upload_buffer(&mut self, bytes: &[u8], dst: vk::Buffer, dst_offset: u64) -> bool {
        match self.stage(bytes) {
            Some(slice) => {
                self.copy_to_buffer(slice, dst, dst_offset);
                true
            }
            None => false,
        }
    }

    /// Records every queued copy into `cmd` with the barriers around them: earlier
    /// work → transfer writes → every later read. Returns how many copies.
    pub fn flush(&mut self, gpu: &Gpu, cmd: vk::CommandBuffer) -> usize {
        if self.copies.is_empty() {
            return 0;
        }
        let device = gpu.device();
        // One transition per distinct subresource range.
        let mut ranges: Vec<(
            vk::Image,
            vk::ImageSubresourceRange,
            vk::ImageLayout,
            vk::ImageLayout,
        )> = Vec::new();
        for copy in &self.copies {
            if let PendingCopy::Image(u, _) = copy {
                let range = vk::ImageSubresourceRange {
                    aspect_mask: u.aspect,
                    base_mip_level: u.mip_level,
                    level_count: 1,
                    base_array_layer: u.base_layer,
                    layer_count: u.layer_count,
                };
                match ranges
                    .iter_mut()
                    .find(|(i, r, _, _)| *i == u.image && same_range(r, &range))
                {
                    Some(entry) => entry.3 = u.new_layout,
                    None => ranges.push((u.image, range, u.old_layout, u.new_layout)),
                }
            }
        }
        let before_images: Vec<vk::ImageMemoryBarrier2<'_>> = ranges
            .iter()
            .map(|(image, range, old, _)| {
                vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                    .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
                    .dst_stage_mask(vk::PipelineStageFlags2::COPY)
                    .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                    .old_layout(*old)
                    .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .image(*image)
                    .subresource_range(*range)
            })
            .collect();
        let before_memory = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)];
        let before = vk::DependencyInfo::default()
            .memory_barriers(&before_memory)
            .image_memory_barriers(&before_images);
        // SAFETY: `cmd` is recording (the caller's contract); the barrier structs
        // outlive the call; the images are live (the caller queued them).
        unsafe { device.cmd_pipeline_barrier2(cmd, &before) };

        let src = self.buffer.raw();
        for copy in &self.copies {
            match copy {
                PendingCopy::Buffer(dst, region) => {
                    // SAFETY: the source range was reserved in the ring; the
                    // destination is the caller's live buffer.
                    unsafe { device.cmd_copy_buffer(cmd, src, *dst, &[*region]) };
                }
                PendingCopy::Image(u, offset) => {
                    let region = vk::BufferImageCopy {
                        buffer_offset: *offset,
                        buffer_row_length: u.row_length,
                        buffer_image_height: 0,
                        image_subresource: vk::ImageSubresourceLayers {
                            aspect_mask: u.aspect,
                            mip_level: u.mip_level,
                            base_array_layer: u.base_layer,
                            layer_count: u.layer_count,
                        },
                        image_offset: u.offset,
                        image_extent: u.extent,
                    };
                    // SAFETY: as above; the image was moved to TRANSFER_DST_OPTIMAL.
                    unsafe {
                        device.cmd_copy_buffer_to_image(
                            cmd,
                            src,
                            u.image,
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                            &[region],
                        )
                    };
                }
            }
        }

        let after_images: Vec<vk::ImageMemoryBarrier2<'_>> = ranges
            .iter()
            .map(|(image, range, _, new)| {
                vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::COPY)
                    .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                    .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                    .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)
                    .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                    .new_layout(*new)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .image(*image)
                    .subresource_range(*range)
            })
            .collect();
        let after_memory = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)];
        let after = vk::DependencyInfo::default()
            .memory_barriers(&after_memory)
            .image_memory_barriers(&after_images);
        // SAFETY: as for the first barrier.
        unsafe { device.cmd_pipeline_barrier2(cmd, &after) };

        let count = self.copies.len();
        self.copies.clear();
        self.stats.copies = count as u32;
        count
    }

    /// Everything staged since the last call is read by the submit that signals
    /// `value`; its space returns once the timeline reaches it.
    pub fn submitted(&mut self, value: u64) {
        self.ring.submitted(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_wraps_and_refuses_while_regions_are_in_flight() {
        let mut r = RingAllocator::new(100);
        assert_eq!(r.alloc(40, 1), Some(0));
        r.submitted(1);
        assert_eq!(r.alloc(40, 1), Some(40));
        r.submitted(2);
        // 20 bytes left at the end, 0 free at the start: 30 does not fit.
        assert_eq!(r.alloc(30, 1), None);
        assert_eq!(r.alloc(20, 1), Some(80));
        r.submitted(3);
        r.release(1); // [0, 40) is free again.
        assert_eq!(r.alloc(30, 1), Some(0), "wraps to the start");
        assert_eq!(r.alloc(20, 1), None, "would run into region 2 at 40");
        assert_eq!(r.alloc(10, 1), Some(30));
        r.submitted(4);
        r.release(2);
        r.release(3);
        assert_eq!(r.used(), 40);
        assert_eq!(
            r.alloc(50, 1),
            Some(40),
            "fits before the end once region 3 retired"
        );
        r.submitted(5);
        r.release(5);
        assert_eq!(r.used(), 0);
        assert_eq!(r.alloc(100, 1), Some(0), "empty ring restarts at 0");
    }

    #[test]
    fn ring_aligns_and_rejects_oversize() {
        let mut r = RingAllocator::new(64);
        assert_eq!(r.alloc(3, 1), Some(0));
        assert_eq!(r.alloc(4, 16), Some(16));
        assert_eq!(r.alloc(65, 1), None);
        assert_eq!(r.alloc(0, 1), None);
    }
}
