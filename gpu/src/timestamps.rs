//! Timestamp queries per pass, read back frames later without waiting.
//!
//! One query pool per frame in flight. On the recording side [`GpuTimer::pass`]
//! reserves a begin/end pair ([`PassQueries`], `Copy + Send`) that any thread writes
//! into its command buffer. [`GpuTimer::begin_frame`] for a slot first reads the pass
//! times of the frame that last used the slot — if its submit completed — then resets
//! the pool from the host. On lavapipe the ticks are CPU time: a smoke signal only.

use ash::vk;

use crate::device::Gpu;
use crate::error::{invalid, Result, VkContext};
use crate::retire::Retired;

/// One pass's GPU time.
#[derive(Clone, Debug, PartialEq)]
pub struct PassTiming {
    /// The pass's name as given to [`GpuTimer::pass`].
    pub name: String,
    /// Milliseconds between its begin and end timestamps.
    pub ms: f64,
}

/// A reserved begin/end timestamp pair.
#[derive(Clone, Copy, Debug)]
pub struct PassQueries {
    pool: vk::QueryPool,
    begin: u32,
}

impl PassQueries {
    /// Writes the begin timestamp into `cmd` (recording).
    pub fn begin(&self, gpu: &Gpu, cmd: vk::CommandBuffer) {
        // SAFETY: `cmd` is recording (caller's contract); the query was reset on the
        // host by begin_frame and is written once this frame.
        unsafe {
            gpu.device().cmd_write_timestamp2(
                cmd,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                self.pool,
                self.begin,
            )
        };
    }

    /// Writes the end timestamp into `cmd` (recording).
    pub fn end(&self, gpu: &Gpu, cmd: vk::CommandBuffer) {
        // SAFETY: as for begin.
        unsafe {
            gpu.device().cmd_write_timestamp2(
                cmd,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                self.pool,
                self.begin + 1,
            )
        };
    }
}

struct SlotQueries {
    pool: vk::QueryPool,
    names: Vec<String>,
    /// The submit value of the frame that used the slot (0: none pending).
    value: u64,
}

/// Per-pass GPU timings; see the module docs.
pub struct GpuTimer {
    gpu: Gpu,
    slots: Vec<SlotQueries>,
    current: usize,
    max_passes: u32,
    period_ns: f64,
    mask: u64,
}

impl std::fmt::Debug for GpuTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuTimer")
            .field("slots", &self.slots.len())
            .field("max_passes", &self.max_passes)
            .finish()
    }
}

impl GpuTimer {
    /// `frames_in_flight` pools of `max_passes` pairs; `None` when the queue has no
    /// timestamps.
    pub fn new(gpu: &Gpu, frames_in_flight: usize, max_passes: u32) -> Result<Option<Self>> {
        if !gpu.features().timestamps {
            return Ok(None);
        }
        if frames_in_flight == 0 || max_passes == 0 {
            return Err(invalid("gpu timer", "0 frames or 0 passes"));
        }
        let count = max_passes
            .checked_mul(2)
            .ok_or_else(|| invalid("gpu timer", "too many passes"))?;
        let families =
            // SAFETY: a valid physical device.
            unsafe { gpu.instance().get_physical_device_queue_family_properties(gpu.physical_device()) };
        let bits = families
            .get(gpu.queue_family() as usize)
            .map_or(64, |f| f.timestamp_valid_bits);
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut timer = Self {
            gpu: gpu.clone(),
            slots: Vec::new(),
            current: 0,
            max_passes,
            period_ns: f64::from(gpu.features().timestamp_period_ns),
            mask,
        };
        for i in 0..frames_in_flight {
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(count);
            // SAFETY: valid device and create info.
            let pool =
                unsafe { gpu.device().create_query_pool(&info, None) }.vk("vkCreateQueryPool")?;
            // SAFETY: hostQueryReset is enabled; the pool is unused.
            unsafe { gpu.device().reset_query_pool(pool, 0, count) };
            gpu.set_object_name(pool, &format!("gpu timer {i}"));
            timer.slots.push(SlotQueries {
                pool,
                names: Vec::new(),
                value: 0,
            });
        }
        Ok(Some(timer))
    }

    /// Switches to `slot` (the frame ring's slot) for a new frame. Returns the pass
    /// times of the frame that last used the slot when its submit has completed
    /// (`None` while it is still running or had no passes), then resets the pool.
    pub fn begin_frame(&mut self, slot: usize) -> Result<Option<Vec<PassTiming>>> {
        let len = self.slots.len();
        let index = slot % len;
        self.current = index;
        let completed = self.gpu.completed_value()?;
        let gpu = self.gpu.clone();
        let period = self.period_ns;
        let mask = self.mask;
        let s = &mut self.slots[index];
        if s.names.is_empty() {
            return Ok(None);
        }
        let count = s.names.len() as u32 * 2;
        if s.value == 0 {
            // Reserved but never submitted: nothing was written; start over.
            // SAFETY: no submitted work uses these queries.
            unsafe { gpu.device().reset_query_pool(s.pool, 0, count) };
            s.names.clear();
            return Ok(None);
        }
        if s.value > completed {
            // Still running: keep the queries for a later call.
            return Ok(None);
        }
        let mut ticks = vec![0u64; count as usize];
        // SAFETY: every query in 0..count was written by the completed submit.
        unsafe {
            gpu.device().get_query_pool_results(
                s.pool,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64,
            )
        }
        .vk("vkGetQueryPoolResults")?;
        let timings = s
            .names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let begin = ticks[2 * i] & mask;
                let end = ticks[2 * i + 1] & mask;
                PassTiming {
                    name: name.clone(),
                    ms: end.wrapping_sub(begin) as f64 * period / 1.0e6,
                }
            })
            .collect();
        // SAFETY: the submit that used these queries completed.
        unsafe { gpu.device().reset_query_pool(s.pool, 0, count) };
        s.names.clear();
        s.value = 0;
        Ok(Some(timings))
    }

    /// Reserves a begin/end pair in the current frame; `None` past `max_passes` or
    /// while the slot still holds an unread frame.
    pub fn pass(&mut self, name: &str) -> Option<PassQueries> {
        let s = &mut self.slots[self.current];
        if s.value != 0 || s.names.len() as u32 >= self.max_passes {
            return None;
        }
        let begin = s.names.len() as u32 * 2;
        s.names.push(name.to_owned());
        Some(PassQueries {
            pool: s.pool,
            begin,
        })
    }

    /// The current frame's command buffers went out in the submit that signals `value`.
    pub fn submitted(&mut self, value: u64) {
        let s = &mut self.slots[self.current];
        if !s.names.is_empty() {
            s.value = value;
        }
    }
}

impl Drop for GpuTimer {
    fn drop(&mut self) {
        for s in &self.slots {
            self.gpu.retire_pending(Retired::QueryPool(s.pool));
        }
    }
}
