//! What the device and the standalone timelines share, below both: semaphore waits, the
//! items whose destruction waits for the timeline ([`Retired`]) and the queue that holds
//! them until it does, and the host-side semaphore wait.

use std::time::{Duration, Instant};

use ash::vk;
use gpu_allocator::vulkan::{Allocation, Allocator};

use crate::error::{GpuError, Result};

/// A semaphore wait for [`crate::Gpu::submit`].
#[derive(Clone, Copy, Debug)]
pub struct SemaphoreWait {
    /// A timeline (or binary, with value 0) semaphore.
    pub semaphore: vk::Semaphore,
    /// The timeline value to wait for.
    pub value: u64,
    /// The stages that wait.
    pub stages: vk::PipelineStageFlags2,
}

/// Something whose destruction waits for the timeline.
pub enum Retired {
    /// A buffer and its memory.
    Buffer(vk::Buffer, Option<Allocation>),
    /// An image, its views and its memory.
    Image(vk::Image, Vec<vk::ImageView>, Option<Allocation>),
    /// An image view.
    ImageView(vk::ImageView),
    /// A sampler.
    Sampler(vk::Sampler),
    /// A pipeline.
    Pipeline(vk::Pipeline),
    /// A pipeline layout and the set layouts it owns.
    PipelineLayout(vk::PipelineLayout, Vec<vk::DescriptorSetLayout>),
    /// A descriptor set layout.
    DescriptorSetLayout(vk::DescriptorSetLayout),
    /// A descriptor pool (its sets go with it).
    DescriptorPool(vk::DescriptorPool),
    /// A query pool.
    QueryPool(vk::QueryPool),
    /// A command pool (its command buffers go with it).
    CommandPool(vk::CommandPool),
    /// A semaphore.
    Semaphore(vk::Semaphore),
    /// Anything else: called with the device once the value is reached.
    Custom(Box<dyn FnOnce(&ash::Device) + Send>),
}

impl std::fmt::Debug for Retired {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Self::Buffer(..) => "Buffer",
            Self::Image(..) => "Image",
            Self::ImageView(_) => "ImageView",
            Self::Sampler(_) => "Sampler",
            Self::Pipeline(_) => "Pipeline",
            Self::PipelineLayout(..) => "PipelineLayout",
            Self::DescriptorSetLayout(_) => "DescriptorSetLayout",
            Self::DescriptorPool(_) => "DescriptorPool",
            Self::QueryPool(_) => "QueryPool",
            Self::CommandPool(_) => "CommandPool",
            Self::Semaphore(_) => "Semaphore",
            Self::Custom(_) => "Custom",
        };
        f.write_str(name)
    }
}

impl Retired {
    /// Destroys the item.
    ///
    /// # Safety
    /// No pending GPU work may use it, and it must belong to `device`/`allocator`.
    pub(crate) unsafe fn destroy(self, device: &ash::Device, allocator: &mut Allocator) {
        // SAFETY: the caller guarantees the handles are unused and owned by `device`.
        unsafe {
            match self {
                Self::Buffer(buffer, allocation) => {
                    device.destroy_buffer(buffer, None);
                    if let Some(a) = allocation {
                        let _ = allocator.free(a);
                    }
                }
                Self::Image(image, views, allocation) => {
                    for view in views {
                        device.destroy_image_view(view, None);
                    }
                    device.destroy_image(image, None);
                    if let Some(a) = allocation {
                        let _ = allocator.free(a);
                    }
                }
                Self::ImageView(v) => device.destroy_image_view(v, None),
                Self::Sampler(s) => device.destroy_sampler(s, None),
                Self::Pipeline(p) => device.destroy_pipeline(p, None),
                Self::PipelineLayout(layout, sets) => {
                    device.destroy_pipeline_layout(layout, None);
                    for set in sets {
                        device.destroy_descriptor_set_layout(set, None);
                    }
                }
                Self::DescriptorSetLayout(l) => device.destroy_descriptor_set_layout(l, None),
                Self::DescriptorPool(p) => device.destroy_descriptor_pool(p, None),
                Self::QueryPool(q) => device.destroy_query_pool(q, None),
                Self::CommandPool(p) => device.destroy_command_pool(p, None),
                Self::Semaphore(s) => device.destroy_semaphore(s, None),
                Self::Custom(f) => f(device),
            }
        }
    }
}

/// Retired items with the timeline value each waits for.
#[derive(Default)]
pub(crate) struct DeferredQueue {
    items: Vec<(u64, Retired)>,
}

impl DeferredQueue {
    pub(crate) fn push(&mut self, value: u64, item: Retired) {
        self.items.push((value, item));
    }

    /// Removes and returns the items whose value is at most `completed`, in retire order.
    pub(crate) fn take_ready(&mut self, completed: u64) -> Vec<Retired> {
        let mut ready = Vec::new();
        let mut kept = Vec::with_capacity(self.items.len());
        for (value, item) in self.items.drain(..) {
            if value <= completed {
                ready.push(item);
            } else {
                kept.push((value, item));
            }
        }
        self.items = kept;
        ready
    }

    pub(crate) fn take_all(&mut self) -> Vec<Retired> {
        self.items.drain(..).map(|(_, item)| item).collect()
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }
}

/// Blocks until `semaphore` reaches `value`, or fails with [`GpuError::Timeout`].
pub(crate) fn wait_semaphore(
    device: &ash::Device,
    semaphore: vk::Semaphore,
    value: u64,
    timeout: Duration,
) -> Result<()> {
    let semaphores = [semaphore];
    let values = [value];
    let info = vk::SemaphoreWaitInfo::default()
        .semaphores(&semaphores)
        .values(&values);
    let start = Instant::now();
    let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
    // SAFETY: a valid timeline semaphore of this device; arrays outlive the call.
    match unsafe { device.wait_semaphores(&info, nanos) } {
        Ok(()) => Ok(()),
        Err(vk::Result::TIMEOUT) => Err(GpuError::Timeout {
            value,
            waited_ms: start.elapsed().as_millis() as u64,
        }),
        Err(result) => Err(GpuError::Vk {
            call: "vkWaitSemaphores",
            result,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deferred_queue_releases_only_reached_values() {
        let mut q = DeferredQueue::default();
        q.push(3, Retired::Custom(Box::new(|_| {})));
        q.push(1, Retired::Custom(Box::new(|_| {})));
        q.push(5, Retired::Custom(Box::new(|_| {})));
        assert_eq!(q.take_ready(0).len(), 0);
        assert_eq!(q.take_ready(3).len(), 2);
        assert_eq!(q.len(), 1);
        assert_eq!(q.take_ready(4).len(), 0);
        assert_eq!(q.take_ready(5).len(), 1);
        assert_eq!(q.len(), 0);
    }
}
