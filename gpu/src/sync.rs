//! Standalone timeline semaphores. (The deferred-destruction queue and the semaphore wait
//! both this and the device use live below both, in `retire.rs`.)
//!
//! The device's own timeline lives in [`crate::Gpu`] ([`crate::Gpu::submit`] signals one
//! new value per submit). Anything the GPU may still read is *retired* against a value
//! and destroyed by [`crate::Gpu::collect_garbage`] only once the timeline reached it.

use std::time::Duration;

use ash::vk;

use crate::device::Gpu;
use crate::error::{Result, VkContext};
use crate::retire::{wait_semaphore, Retired, SemaphoreWait};

/// A standalone timeline semaphore (a gate for tests, a cross-queue handshake).
/// Destroyed through the deferred queue when dropped.
pub struct Timeline {
    gpu: Gpu,
    raw: vk::Semaphore,
}

impl Timeline {
    /// A timeline semaphore starting at `initial`.
    pub fn new(gpu: &Gpu, initial: u64, name: &str) -> Result<Self> {
        let mut type_info = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(initial);
        let info = vk::SemaphoreCreateInfo::default().push_next(&mut type_info);
        // SAFETY: valid device with timelineSemaphore enabled.
        let raw = unsafe { gpu.device().create_semaphore(&info, None) }.vk("vkCreateSemaphore")?;
        gpu.set_object_name(raw, name);
        Ok(Self {
            gpu: gpu.clone(),
            raw,
        })
    }

    /// The semaphore.
    pub fn raw(&self) -> vk::Semaphore {
        self.raw
    }

    /// Its current value.
    pub fn value(&self) -> Result<u64> {
        // SAFETY: a valid timeline semaphore.
        unsafe { self.gpu.device().get_semaphore_counter_value(self.raw) }
            .vk("vkGetSemaphoreCounterValue")
    }

    /// Signals `value` from the host (must exceed the current value).
    pub fn signal(&self, value: u64) -> Result<()> {
        let info = vk::SemaphoreSignalInfo::default()
            .semaphore(self.raw)
            .value(value);
        // SAFETY: a valid timeline semaphore; the spec's ordering rule (value greater
        // than current and pending signals) is the caller's, checked by validation.
        unsafe { self.gpu.device().signal_semaphore(&info) }.vk("vkSignalSemaphore")
    }

    /// Blocks until the semaphore reaches `value`.
    pub fn wait(&self, value: u64, timeout: Duration) -> Result<()> {
        wait_semaphore(self.gpu.device(), self.raw, value, timeout)
    }

    /// A wait on `value` for [`crate::Gpu::submit`].
    pub fn wait_info(&self, value: u64, stages: vk::PipelineStageFlags2) -> SemaphoreWait {
        SemaphoreWait {
            semaphore: self.raw,
            value,
            stages,
        }
    }
}

impl Drop for Timeline {
    fn drop(&mut self) {
        self.gpu.retire_pending(Retired::Semaphore(self.raw));
    }
}
