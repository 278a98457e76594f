//! Instance and device creation without a surface, device selection, feature probing,
//! the submit timeline and the deferred-destruction queue.

use std::ffi::{CStr, CString};
use std::fmt;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};

use crate::error::{invalid, GpuError, Result, VkContext};
use crate::retire::{wait_semaphore, DeferredQueue, Retired, SemaphoreWait};
use crate::validation::{self, ValidationLog};

/// The environment variable that overrides device selection when the
/// [`GpuDesc::device`] is [`DeviceSelector::Auto`]: an index or a name substring.
pub const DEVICE_ENV: &str = "DH_GPU_DEVICE";

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Which physical device to use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DeviceSelector {
    /// Discrete, then integrated, then virtual, then CPU; the first of a kind wins.
    #[default]
    Auto,
    /// The device at this index in the loader's enumeration order.
    Index(usize),
    /// The first usable device whose name contains this (case-insensitive).
    Name(String),
}

impl DeviceSelector {
    /// Parses an option value: empty or `auto` is [`Auto`](Self::Auto), digits an
    /// [`Index`](Self::Index), anything else a [`Name`](Self::Name) substring.
    pub fn parse(text: &str) -> Self {
        let text = text.trim();
        if text.is_empty() || text.eq_ignore_ascii_case("auto") {
            Self::Auto
        } else if let Ok(index) = text.parse::<usize>() {
            Self::Index(index)
        } else {
            Self::Name(text.to_owned())
        }
    }

    /// The selector from [`DEVICE_ENV`], when it is set and not empty.
    pub fn from_env() -> Option<Self> {
        let value = std::env::var(DEVICE_ENV).ok()?;
        match Self::parse(&value) {
            Self::Auto => None,
            selector => Some(selector),
        }
    }
}

impl fmt::Display for DeviceSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Auto => f.write_str("auto"),
            Self::Index(i) => write!(f, "index {i}"),
            Self::Name(n) => write!(f, "name {n:?}"),
        }
    }
}

/// Whether to enable the Khronos validation layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Validation {
    /// No layer.
    #[default]
    Off,
    /// The layer when installed, silently nothing otherwise.
    IfAvailable,
    /// The layer, or [`GpuError::NoValidationLayer`].
    Required,
}

/// How to create a [`Gpu`].
#[derive(Clone, Debug)]
pub struct GpuDesc {
    /// The application name given to the driver.
    pub app_name: String,
    /// Device override; `Auto` consults [`DEVICE_ENV`] first.
    pub device: DeviceSelector,
    /// The validation layer.
    pub validation: Validation,
    /// Enable VK_EXT_debug_utils (labels, object names) when the loader offers it.
    pub debug_labels: bool,
    /// With validation on, also enable the layer's synchronization validation
    /// (hazards between unsynchronised accesses), through VK_EXT_validation_features.
    pub sync_validation: bool,
}

impl Default for GpuDesc {
    fn default() -> Self {
        Self {
            app_name: "dh-engine".to_owned(),
            device: DeviceSelector::Auto,
            validation: Validation::Off,
            debug_labels: true,
            sync_validation: false,
        }
    }
}

/// VkPhysicalDeviceType, in the order [`DeviceSelector::Auto`] prefers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DeviceKind {
    /// A discrete GPU.
    Discrete,
    /// An integrated GPU.
    Integrated,
    /// A virtualised GPU.
    Virtual,
    /// A CPU implementation (lavapipe, SwiftShader).
    Cpu,
    /// Anything else.
    Other,
}

impl DeviceKind {
    fn from_vk(kind: vk::PhysicalDeviceType) -> Self {
        match kind {
            vk::PhysicalDeviceType::DISCRETE_GPU => Self::Discrete,
            vk::PhysicalDeviceType::INTEGRATED_GPU => Self::Integrated,
            vk::PhysicalDeviceType::VIRTUAL_GPU => Self::Virtual,
            vk::PhysicalDeviceType::CPU => Self::Cpu,
            _ => Self::Other,
        }
    }
}

/// One physical device the loader enumerated.
#[derive(Clone, Debug)]
pub struct AdapterInfo {
    /// Index in the loader's enumeration order ([`DeviceSelector::Index`]).
    pub index: usize,
    /// VkPhysicalDeviceProperties::deviceName.
    pub name: String,
    /// Its type.
    pub kind: DeviceKind,
    /// The device's Vulkan version (major, minor, patch).
    pub api_version: (u32, u32, u32),
    /// Driver name and info (VkPhysicalDeviceVulkan12Properties).
    pub driver: String,
    /// Why it cannot be used (missing 1.3 features, no graphics queue), or `None`.
    pub rejected: Option<String>,
}

/// Features and capabilities that are probed and used when present, never required.
#[derive(Clone, Debug, Default)]
pub struct OptionalFeatures {
    /// bufferDeviceAddress enabled ([`crate::Buffer::device_address`]).
    pub buffer_device_address: bool,
    /// descriptorIndexing (and its non-uniform sampled-image, partially-bound,
    /// variable-count and runtime-array bits) enabled.
    pub descriptor_indexing: bool,
    /// VK_EXT_memory_budget enabled ([`Gpu::memory_budget`] reports budgets).
    pub memory_budget: bool,
    /// VK_KHR_push_descriptor enabled ([`Gpu::push_descriptor`]).
    pub push_descriptor: bool,
    /// A transfer-only queue family exists (probed and logged; uploads use the main
    /// queue for now).
    pub async_transfer_family: Option<u32>,
    /// The main queue supports timestamps.
    pub timestamps: bool,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period_ns: f32,
    /// VK_EXT_debug_utils is enabled (labels and object names reach tools).
    pub debug_utils: bool,
    /// The Khronos validation layer is enabled.
    pub validation: bool,
    /// samplerAnisotropy enabled.
    pub sampler_anisotropy: bool,
    /// depthClamp enabled.
    pub depth_clamp: bool,
    /// depthBiasClamp enabled.
    pub depth_bias_clamp: bool,
    /// fillModeNonSolid enabled.
    pub fill_mode_non_solid: bool,
    /// independentBlend enabled.
    pub independent_blend: bool,
    /// multiDrawIndirect and drawIndirectFirstInstance enabled.
    pub multi_draw_indirect: bool,
    /// textureCompressionBC enabled.
    pub texture_compression_bc: bool,
}

/// One memory heap, with the budget where VK_EXT_memory_budget is enabled.
#[derive(Clone, Debug)]
pub struct HeapBudget {
    /// Heap index.
    pub heap: u32,
    /// Heap size in bytes.
    pub size: u64,
    /// Whether the heap is device-local.
    pub device_local: bool,
    /// The driver's budget for this process, bytes.
    pub budget: Option<u64>,
    /// This process's current usage, bytes.
    pub usage: Option<u64>,
}

/// What creation saw and chose; `Display` writes the lines the host logs.
#[derive(Clone, Debug)]
pub struct DeviceReport {
    /// Every enumerated device.
    pub adapters: Vec<AdapterInfo>,
    /// Index into `adapters` of the device in use.
    pub selected: usize,
    /// The selector that chose it (after [`DEVICE_ENV`]).
    pub selector: DeviceSelector,
    /// The queue family of the graphics+compute queue.
    pub queue_family: u32,
    /// Optional features found.
    pub features: OptionalFeatures,
    /// Memory heaps at creation.
    pub heaps: Vec<HeapBudget>,
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

impl fmt::Display for DeviceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "vulkan devices (selection: {}):", self.selector)?;
        for a in &self.adapters {
            let (ma, mi, pa) = a.api_version;
            write!(
                f,
                "  [{}] {} ({:?}, Vulkan {ma}.{mi}.{pa}, {})",
                a.index, a.name, a.kind, a.driver
            )?;
            if a.index == self.selected {
                write!(f, " <- selected")?;
            }
            if let Some(why) = &a.rejected {
                write!(f, " unusable: {why}")?;
            }
            writeln!(f)?;
        }
        let x = &self.features;
        writeln!(
            f,
            "optional: buffer device address {}, descriptor indexing {}, memory budget {}, \
             push descriptor {}, async transfer queue {}, timestamps {} ({} ns/tick), \
             debug utils {}, validation {}",
            yes(x.buffer_device_address),
            yes(x.descriptor_indexing),
            yes(x.memory_budget),
            yes(x.push_descriptor),
            match x.async_transfer_family {
                Some(family) => format!("family {family} (not used yet)"),
                None => "no".to_owned(),
            },
            yes(x.timestamps),
            x.timestamp_period_ns,
            yes(x.debug_utils),
            yes(x.validation),
        )?;
        writeln!(
            f,
            "core: anisotropy {}, depth clamp {}, depth bias clamp {}, non-solid fill {}, \
             independent blend {}, multi draw indirect {}, BC textures {}",
            yes(x.sampler_anisotropy),
            yes(x.depth_clamp),
            yes(x.depth_bias_clamp),
            yes(x.fill_mode_non_solid),
            yes(x.independent_blend),
            yes(x.multi_draw_indirect),
            yes(x.texture_compression_bc),
        )?;
        for h in &self.heaps {
            write!(
                f,
                "heap {}: {:.0} MiB{}",
                h.heap,
                mib(h.size),
                if h.device_local { " device-local" } else { "" }
            )?;
            if let (Some(budget), Some(usage)) = (h.budget, h.usage) {
                write!(
                    f,
                    ", budget {:.0} MiB, used {:.1} MiB",
                    mib(budget),
                    mib(usage)
                )?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// The features a candidate supports, copied out of the probe structs.
#[derive(Clone, Copy, Default)]
struct Supported {
    core: vk::PhysicalDeviceFeatures,
    dynamic_rendering: bool,
    synchronization2: bool,
    timeline_semaphore: bool,
    host_query_reset: bool,
    buffer_device_address: bool,
    descriptor_indexing: bool,
    runtime_descriptor_array: bool,
    sampled_image_non_uniform: bool,
    partially_bound: bool,
    variable_count: bool,
    memory_budget: bool,
    push_descriptor: bool,
}

struct Candidate {
    info: AdapterInfo,
    physical: vk::PhysicalDevice,
    supported: Supported,
    queue_family: Option<u32>,
    transfer_family: Option<u32>,
    timestamp_bits: u32,
}

/// The device: instance, queue, allocator, timeline and deferred destruction.
/// Cheap to clone; every clone is the same device. `Send + Sync`.
#[derive(Clone)]
pub struct Gpu {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    _entry: ash::Entry,
    instance: ash::Instance,
    debug_instance: Option<ash::ext::debug_utils::Instance>,
    messenger: vk::DebugUtilsMessengerEXT,
    log: Arc<ValidationLog>,
    physical: vk::PhysicalDevice,
    properties: vk::PhysicalDeviceProperties,
    memory_properties: vk::PhysicalDeviceMemoryProperties,
    pub(crate) device: ash::Device,
    pub(crate) debug_device: Option<ash::ext::debug_utils::Device>,
    push_descriptor: Option<ash::khr::push_descriptor::Device>,
    queue: Mutex<vk::Queue>,
    queue_family: u32,
    allocator: ManuallyDrop<Mutex<Allocator>>,
    timeline: vk::Semaphore,
    last_submitted: AtomicU64,
    deferred: Mutex<DeferredQueue>,
    report: DeviceReport,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section leaves its data consistent before anything can panic.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Gpu {
    /// Loads Vulkan, creates the instance (with validation and debug utils as asked),
    /// selects a device and creates it with one graphics+compute queue.
    pub fn new(desc: &GpuDesc) -> Result<Self> {
        // SAFETY: loading the system's libvulkan runs its initialisers; that is the
        // documented way to use the loader, and the Entry keeps the library loaded
        // for as long as any handle made from it (Shared drops it last).
        let entry = unsafe { ash::Entry::load() }.map_err(|e| GpuError::NoLoader {
            reason: e.to_string(),
        })?;
        // SAFETY: a global command on a valid entry.
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .vk("vkEnumerateInstanceVersion")?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader_version < vk::API_VERSION_1_3 {
            return Err(GpuError::NoDevice {
                detail: format!(
                    "the Vulkan loader supports only {}.{}",
                    vk::api_version_major(loader_version),
                    vk::api_version_minor(loader_version)
                ),
            });
        }

        // SAFETY: global commands on a valid entry.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }
            .vk("vkEnumerateInstanceLayerProperties")?;
        let has_validation = layers
            .iter()
            .any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER));
        let validation = match desc.validation {
            Validation::Off => false,
            Validation::IfAvailable => has_validation,
            Validation::Required if has_validation => true,
            Validation::Required => return Err(GpuError::NoValidationLayer),
        };
        // SAFETY: as above.
        let extensions = unsafe { entry.enumerate_instance_extension_properties(None) }
            .vk("vkEnumerateInstanceExtensionProperties")?;
        let has_debug_utils = extensions
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::debug_utils::NAME));
        let debug_utils = has_debug_utils && (validation || desc.debug_labels);
        let sync_validation = validation && desc.sync_validation && {
            // SAFETY: a global command on a valid entry; the layer name is valid.
            let layer_exts =
                unsafe { entry.enumerate_instance_extension_properties(Some(VALIDATION_LAYER)) }
                    .unwrap_or_default();
            layer_exts
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::validation_features::NAME))
        };

        let log = Arc::new(ValidationLog::default());
        let app_name = CString::new(desc.app_name.replace('\0', " "))
            .map_err(|e| invalid("application name", e.to_string()))?;
        let app_info = vk::ApplicationInfo::default()
            .application_name(&app_name)
            .application_version(1)
            .engine_name(c"dh-engine")
            .engine_version(1)
            .api_version(vk::API_VERSION_1_3);
        let layer_ptrs: Vec<*const std::ffi::c_char> = if validation {
            vec![VALIDATION_LAYER.as_ptr()]
        } else {
            Vec::new()
        };
        let mut ext_ptrs: Vec<*const std::ffi::c_char> = Vec::new();
        if debug_utils {
            ext_ptrs.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        if sync_validation {
            ext_ptrs.push(ash::ext::validation_features::NAME.as_ptr());
        }
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut validation_features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let mut messenger_info = validation::messenger_info(&log);
        let mut instance_info = vk::InstanceCreateInfo::default()
            .application_info(&app_info)
            .enabled_layer_names(&layer_ptrs)
            .enabled_extension_names(&ext_ptrs);
        if debug_utils {
            instance_info = instance_info.push_next(&mut messenger_info);
        }
        if sync_validation {
            instance_info = instance_info.push_next(&mut validation_features);
        }
        // SAFETY: every pointer in instance_info (names, layers, the chained messenger
        // whose user data is `log`, kept alive in Shared) outlives the call.
        let instance = unsafe { entry.create_instance(&instance_info, None) }.map_err(
            |result| match result {
                vk::Result::ERROR_INCOMPATIBLE_DRIVER => GpuError::NoDevice {
                    detail: "the loader found no compatible driver".to_owned(),
                },
                result => GpuError::Vk {
                    call: "vkCreateInstance",
                    result,
                },
            },
        )?;
        let mut guard = InstanceGuard {
            instance: Some(instance),
            debug: None,
            messenger: vk::DebugUtilsMessengerEXT::null(),
        };

        if debug_utils {
            let instance = guard.instance()?;
            let debug_instance = ash::ext::debug_utils::Instance::new(&entry, instance);
            // SAFETY: a valid instance with debug utils enabled; the callback's user
            // data (`log`) lives in Shared until after the messenger is destroyed.
            let messenger =
                unsafe { debug_instance.create_debug_utils_messenger(&messenger_info, None) }
                    .vk("vkCreateDebugUtilsMessengerEXT")?;
            guard.messenger = messenger;
            guard.debug = Some(debug_instance);
        }

        let instance = guard.instance()?.clone();
        let candidates = probe_all(&instance)?;
        let selector = match &desc.device {
            DeviceSelector::Auto => DeviceSelector::from_env().unwrap_or_default(),
            other => other.clone(),
        };
        let adapters: Vec<AdapterInfo> = candidates.iter().map(|c| c.info.clone()).collect();
        let chosen = select_adapter(&adapters, &selector)?;
        let candidate = &candidates[chosen];
        let queue_family = candidate
            .queue_family
            .ok_or_else(|| invalid("device", "no graphics+compute queue"))?;

        let (device, features) =
            create_device(&instance, candidate, queue_family, debug_utils, validation)?;
        let mut device_guard = DeviceGuard {
            device: Some(device),
        };
        let device = device_guard.device()?.clone();
        // SAFETY: valid physical device of this instance.
        let properties = unsafe { instance.get_physical_device_properties(candidate.physical) };
        // SAFETY: as above.
        let memory_properties =
            unsafe { instance.get_physical_device_memory_properties(candidate.physical) };
        // SAFETY: the queue family and index 0 were requested at device creation.
        let queue = unsafe { device.get_device_queue(queue_family, 0) };

        let mut type_info = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let sem_info = vk::SemaphoreCreateInfo::default().push_next(&mut type_info);
        // SAFETY: valid device with timelineSemaphore enabled.
        let timeline =
            unsafe { device.create_semaphore(&sem_info, None) }.vk("vkCreateSemaphore")?;

        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: candidate.physical,
            debug_settings: Default::default(),
            buffer_device_address: features.buffer_device_address,
            allocation_sizes: Default::default(),
        });
        let allocator = match allocator {
            Ok(a) => a,
            Err(source) => {
                // SAFETY: the semaphore was created above and is unused.
                unsafe { device.destroy_semaphore(timeline, None) };
                return Err(GpuError::Alloc {
                    name: "allocator".to_owned(),
                    source,
                });
            }
        };

        let debug_device =
            debug_utils.then(|| ash::ext::debug_utils::Device::new(&instance, &device));
        let push_descriptor = features
            .push_descriptor
            .then(|| ash::khr::push_descriptor::Device::new(&instance, &device));

        let report = DeviceReport {
            adapters,
            selected: chosen,
            selector,
            queue_family,
            features,
            heaps: Vec::new(),
        };
        // Ownership moves into Shared, whose Drop destroys everything in order.
        device_guard.device = None;
        let (_, debug_instance, messenger) = guard.disarm();
        let shared = Shared {
            _entry: entry,
            instance,
            debug_instance,
            messenger,
            log,
            physical: candidate.physical,
            properties,
            memory_properties,
            device,
            debug_device,
            push_descriptor,
            queue: Mutex::new(queue),
            queue_family,
            allocator: ManuallyDrop::new(Mutex::new(allocator)),
            timeline,
            last_submitted: AtomicU64::new(0),
            deferred: Mutex::new(DeferredQueue::default()),
            report,
        };
        let mut gpu = Self {
            shared: Arc::new(shared),
        };
        let heaps = gpu.memory_budget();
        if let Some(shared) = Arc::get_mut(&mut gpu.shared) {
            shared.report.heaps = heaps;
        }
        gpu.set_object_name(gpu.shared.timeline, "dh-gpu submit timeline");
        Ok(gpu)
    }

    /// The logical device (raw Vulkan for the renderer).
    pub fn device(&self) -> &ash::Device {
        &self.shared.device
    }

    /// The instance.
    pub fn instance(&self) -> &ash::Instance {
        &self.shared.instance
    }

    /// The physical device in use.
    pub fn physical_device(&self) -> vk::PhysicalDevice {
        self.shared.physical
    }

    /// Its properties (limits, name, timestamp period).
    pub fn properties(&self) -> &vk::PhysicalDeviceProperties {
        &self.shared.properties
    }

    /// Its memory types and heaps.
    pub fn memory_properties(&self) -> &vk::PhysicalDeviceMemoryProperties {
        &self.shared.memory_properties
    }

    /// The family of the one queue every submit goes to.
    pub fn queue_family(&self) -> u32 {
        self.shared.queue_family
    }

    /// The optional features that were found and enabled.
    pub fn features(&self) -> &OptionalFeatures {
        &self.shared.report.features
    }

    /// What creation saw and chose, for the log.
    pub fn report(&self) -> &DeviceReport {
        &self.shared.report
    }

    /// Every validation/debug message so far; keep the `Arc` to check after the
    /// [`Gpu`] is dropped (destruction can report too).
    pub fn validation_log(&self) -> Arc<ValidationLog> {
        Arc::clone(&self.shared.log)
    }

    /// VK_KHR_push_descriptor's functions, when enabled.
    pub fn push_descriptor(&self) -> Option<&ash::khr::push_descriptor::Device> {
        self.shared.push_descriptor.as_ref()
    }

    /// VK_EXT_debug_utils's device functions, when enabled.
    pub fn debug_utils(&self) -> Option<&ash::ext::debug_utils::Device> {
        self.shared.debug_device.as_ref()
    }

    /// Runs `f` with the allocator locked.
    pub(crate) fn with_allocator<R>(&self, f: impl FnOnce(&mut Allocator) -> R) -> R {
        f(&mut lock(&self.shared.allocator))
    }

    /// Per-heap sizes, with budget and usage when VK_EXT_memory_budget is enabled.
    pub fn memory_budget(&self) -> Vec<HeapBudget> {
        let mut budget = vk::PhysicalDeviceMemoryBudgetPropertiesEXT::default();
        let mut props = vk::PhysicalDeviceMemoryProperties2::default();
        let with_budget = self.shared.report.features.memory_budget;
        if with_budget {
            props = props.push_next(&mut budget);
        }
        // SAFETY: valid physical device; the chained struct outlives the call and is
        // only chained when its extension is enabled.
        unsafe {
            self.shared
                .instance
                .get_physical_device_memory_properties2(self.shared.physical, &mut props)
        };
        let memory = props.memory_properties;
        let count = (memory.memory_heap_count as usize).min(vk::MAX_MEMORY_HEAPS);
        (0..count)
            .map(|i| HeapBudget {
                heap: i as u32,
                size: memory.memory_heaps[i].size,
                device_local: memory.memory_heaps[i]
                    .flags
                    .contains(vk::MemoryHeapFlags::DEVICE_LOCAL),
                budget: with_budget.then_some(budget.heap_budget[i]),
                usage: with_budget.then_some(budget.heap_usage[i]),
            })
            .collect()
    }

    /// Submits command buffers (in order) to the queue, after `waits`, and signals
    /// the device timeline with exactly one new value, which it returns.
    pub fn submit(
        &self,
        command_buffers: &[vk::CommandBuffer],
        waits: &[SemaphoreWait],
    ) -> Result<u64> {
        let cmd_infos: Vec<vk::CommandBufferSubmitInfo<'_>> = command_buffers
            .iter()
            .map(|&c| vk::CommandBufferSubmitInfo::default().command_buffer(c))
            .collect();
        let wait_infos: Vec<vk::SemaphoreSubmitInfo<'_>> = waits
            .iter()
            .map(|w| {
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(w.semaphore)
                    .value(w.value)
                    .stage_mask(w.stages)
            })
            .collect();
        let queue = lock(&self.shared.queue);
        let value = self.shared.last_submitted.load(Ordering::Acquire) + 1;
        let signal = [vk::SemaphoreSubmitInfo::default()
            .semaphore(self.shared.timeline)
            .value(value)
            .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
        let submit = vk::SubmitInfo2::default()
            .wait_semaphore_infos(&wait_infos)
            .command_buffer_infos(&cmd_infos)
            .signal_semaphore_infos(&signal);
        // SAFETY: the queue is externally synchronised by the lock; the caller hands
        // over executable command buffers of this device; the signal value is greater
        // than every value signalled before (values are assigned under the lock).
        unsafe {
            self.shared
                .device
                .queue_submit2(*queue, &[submit], vk::Fence::null())
        }
        .vk("vkQueueSubmit2")?;
        self.shared.last_submitted.store(value, Ordering::Release);
        Ok(value)
    }

    /// The timeline value of the latest submit (0 before the first).
    pub fn last_submitted(&self) -> u64 {
        self.shared.last_submitted.load(Ordering::Acquire)
    }

    /// The value the next submit will signal: what a resource used by the frame now
    /// being recorded must wait for.
    pub fn pending_value(&self) -> u64 {
        self.last_submitted() + 1
    }

    /// The highest timeline value the device has reached.
    pub fn completed_value(&self) -> Result<u64> {
        // SAFETY: the timeline semaphore is valid for the device's lifetime.
        unsafe {
            self.shared
                .device
                .get_semaphore_counter_value(self.shared.timeline)
        }
        .vk("vkGetSemaphoreCounterValue")
    }

    /// Blocks until the timeline reaches `value` (which must have been submitted).
    pub fn wait_for(&self, value: u64, timeout: Duration) -> Result<()> {
        if value > self.last_submitted() {
            return Err(invalid(
                "timeline wait",
                format!(
                    "value {value} was never submitted (last {})",
                    self.last_submitted()
                ),
            ));
        }
        wait_semaphore(&self.shared.device, self.shared.timeline, value, timeout)
    }

    /// Waits for every submit so far (up to a minute).
    pub fn wait_idle(&self) -> Result<()> {
        self.wait_for(self.last_submitted(), Duration::from_secs(60))
    }

    /// Queues `item` to be destroyed once the timeline reaches `value`.
    pub fn retire(&self, value: u64, item: Retired) {
        lock(&self.shared.deferred).push(value, item);
    }

    /// Queues `item` against [`pending_value`](Self::pending_value) (what Drop does).
    pub fn retire_pending(&self, item: Retired) {
        self.retire(self.pending_value(), item);
    }

    /// Destroys every retired item whose value the timeline has reached; returns how
    /// many were destroyed. [`crate::FrameRing::begin_frame`] calls this.
    pub fn collect_garbage(&self) -> Result<usize> {
        let completed = self.completed_value()?;
        let ready = lock(&self.shared.deferred).take_ready(completed);
        let count = ready.len();
        if count > 0 {
            let mut allocator = lock(&self.shared.allocator);
            for item in ready {
                // SAFETY: the timeline passed the value the item was retired against,
                // so no submitted work uses it, and retiring moved its only owner here.
                unsafe { item.destroy(&self.shared.device, &mut allocator) };
            }
        }
        Ok(count)
    }

    /// How many retired items wait for the timeline.
    pub fn deferred_len(&self) -> usize {
        lock(&self.shared.deferred).len()
    }
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = &self.shared.report.adapters[self.shared.report.selected];
        f.debug_struct("Gpu")
            .field("device", &a.name)
            .field("last_submitted", &self.last_submitted())
            .finish()
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        let last = self.last_submitted.load(Ordering::Acquire);
        // SAFETY: no other clone of the Gpu exists (this is the Arc's drop), so nothing
        // else uses the queue; wait for the device before destroying anything.
        unsafe {
            if wait_semaphore(&self.device, self.timeline, last, Duration::from_secs(60)).is_err() {
                let _ = self.device.device_wait_idle();
            }
        }
        let items = self
            .deferred
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take_all();
        {
            let allocator = self
                .allocator
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner);
            for item in items {
                // SAFETY: the device is idle, so nothing uses the retired items.
                unsafe { item.destroy(&self.device, allocator) };
            }
        }
        // SAFETY: every allocation was freed above or by its owner; the allocator must
        // go before the device it allocated from, and is never touched again.
        unsafe { ManuallyDrop::drop(&mut self.allocator) };
        // SAFETY: idle device; children destroyed; destroyed exactly once, in order:
        // semaphore, device, messenger, instance. `log` (the messenger's user data) is
        // dropped after this function body.
        unsafe {
            self.device.destroy_semaphore(self.timeline, None);
            self.device.destroy_device(None);
            if let Some(debug) = &self.debug_instance {
                debug.destroy_debug_utils_messenger(self.messenger, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// Destroys a half-built instance on an early return.
struct InstanceGuard {
    instance: Option<ash::Instance>,
    debug: Option<ash::ext::debug_utils::Instance>,
    messenger: vk::DebugUtilsMessengerEXT,
}

impl InstanceGuard {
    fn instance(&self) -> Result<&ash::Instance> {
        self.instance
            .as_ref()
            .ok_or_else(|| invalid("instance", "already handed over"))
    }

    fn disarm(
        &mut self,
    ) -> (
        Option<ash::Instance>,
        Option<ash::ext::debug_utils::Instance>,
        vk::DebugUtilsMessengerEXT,
    ) {
        (
            self.instance.take(),
            self.debug.take(),
            std::mem::replace(&mut self.messenger, vk::DebugUtilsMessengerEXT::null()),
        )
    }
}

impl Drop for InstanceGuard {
    fn drop(&mut self) {
        if let Some(instance) = self.instance.take() {
            // SAFETY: creation failed after the instance was made; nothing else owns
            // it or the messenger; the device (if any) was destroyed by DeviceGuard,
            // which is declared later and so drops first.
            unsafe {
                if let Some(debug) = &self.debug {
                    debug.destroy_debug_utils_messenger(self.messenger, None);
                }
                instance.destroy_instance(None);
            }
        }
    }
}

/// Destroys a half-built device on an early return.
struct DeviceGuard {
    device: Option<ash::Device>,
}

impl DeviceGuard {
    fn device(&self) -> Result<&ash::Device> {
        self.device
            .as_ref()
            .ok_or_else(|| invalid("device", "already handed over"))
    }
}

impl Drop for DeviceGuard {
    fn drop(&mut self) {
        if let Some(device) = self.device.take() {
            // SAFETY: creation failed after the device was made; no work was submitted.
            unsafe { device.destroy_device(None) };
        }
    }
}

fn probe_all(instance: &ash::Instance) -> Result<Vec<Candidate>> {
    // SAFETY: a valid instance.
    let physicals =
        unsafe { instance.enumerate_physical_devices() }.vk("vkEnumeratePhysicalDevices")?;
    physicals
        .into_iter()
        .enumerate()
        .map(|(index, physical)| probe(instance, index, physical))
        .collect()
}

fn probe(
    instance: &ash::Instance,
    index: usize,
    physical: vk::PhysicalDevice,
) -> Result<Candidate> {
    let mut v12_props = vk::PhysicalDeviceVulkan12Properties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut v12_props);
    // SAFETY: a physical device of this instance; the chained struct outlives the call.
    unsafe { instance.get_physical_device_properties2(physical, &mut props2) };
    let props = props2.properties;
    let name = props
        .device_name_as_c_str()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("device {index}"));
    let driver = format!(
        "{} {}",
        v12_props
            .driver_name_as_c_str()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        v12_props
            .driver_info_as_c_str()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    )
    .trim()
    .to_owned();

    // SAFETY: as above.
    let extensions = unsafe { instance.enumerate_device_extension_properties(physical) }
        .vk("vkEnumerateDeviceExtensionProperties")?;
    let has_ext = |name: &CStr| {
        extensions
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(name))
    };

    let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut features2 = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut v12)
        .push_next(&mut v13);
    let api = props.api_version;
    let is_13 = api >= vk::API_VERSION_1_3;
    if is_13 {
        // SAFETY: the device reports 1.3, so both chained structs are known to it.
        unsafe { instance.get_physical_device_features2(physical, &mut features2) };
    }
    let core = features2.features;
    let supported = Supported {
        core,
        dynamic_rendering: v13.dynamic_rendering == vk::TRUE,
        synchronization2: v13.synchronization2 == vk::TRUE,
        timeline_semaphore: v12.timeline_semaphore == vk::TRUE,
        host_query_reset: v12.host_query_reset == vk::TRUE,
        buffer_device_address: v12.buffer_device_address == vk::TRUE,
        descriptor_indexing: v12.descriptor_indexing == vk::TRUE,
        runtime_descriptor_array: v12.runtime_descriptor_array == vk::TRUE,
        sampled_image_non_uniform: v12.shader_sampled_image_array_non_uniform_indexing == vk::TRUE,
        partially_bound: v12.descriptor_binding_partially_bound == vk::TRUE,
        variable_count: v12.descriptor_binding_variable_descriptor_count == vk::TRUE,
        memory_budget: has_ext(ash::ext::memory_budget::NAME),
        push_descriptor: has_ext(ash::khr::push_descriptor::NAME),
    };

    // SAFETY: as above.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    let graphics = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
    let queue_family = families
        .iter()
        .position(|f| f.queue_flags.contains(graphics) && f.queue_count > 0)
        .map(|i| i as u32);
    let transfer_family = families
        .iter()
        .position(|f| {
            f.queue_flags.contains(vk::QueueFlags::TRANSFER)
                && !f.queue_flags.intersects(graphics)
                && f.queue_count > 0
        })
        .map(|i| i as u32);
    let timestamp_bits = queue_family
        .and_then(|q| families.get(q as usize))
        .map_or(0, |f| f.timestamp_valid_bits);

    let mut missing = Vec::new();
    if !is_13 {
        missing.push(format!(
            "Vulkan {}.{} < 1.3",
            vk::api_version_major(api),
            vk::api_version_minor(api)
        ));
    } else {
        for (ok, what) in [
            (supported.dynamic_rendering, "dynamicRendering"),
            (supported.synchronization2, "synchronization2"),
            (supported.timeline_semaphore, "timelineSemaphore"),
            (supported.host_query_reset, "hostQueryReset"),
        ] {
            if !ok {
                missing.push(format!("no {what}"));
            }
        }
    }
    if queue_family.is_none() {
        missing.push("no graphics+compute queue".to_owned());
    }

    Ok(Candidate {
        info: AdapterInfo {
            index,
            name,
            kind: DeviceKind::from_vk(props.device_type),
            api_version: (
                vk::api_version_major(api),
                vk::api_version_minor(api),
                vk::api_version_patch(api),
            ),
            driver,
            rejected: (!missing.is_empty()).then(|| missing.join(", ")),
        },
        physical,
        supported,
        queue_family,
        transfer_family,
        timestamp_bits,
    })
}

/// Picks a usable adapter for `selector` (see [`DeviceSelector`]).
pub(crate) fn select_adapter(adapters: &[AdapterInfo], selector: &DeviceSelector) -> Result<usize> {
    let list = || {
        if adapters.is_empty() {
            "none".to_owned()
        } else {
            adapters
                .iter()
                .map(|a| match &a.rejected {
                    None => format!("[{}] {} ({:?})", a.index, a.name, a.kind),
                    Some(why) => {
                        format!("[{}] {} ({:?}, unusable: {why})", a.index, a.name, a.kind)
                    }
                })
                .collect::<Vec<_>>()
                .join("; ")
        }
    };
    let usable = |a: &&AdapterInfo| a.rejected.is_none();
    let found = match selector {
        DeviceSelector::Auto => {
            let best = adapters
                .iter()
                .filter(usable)
                .min_by_key(|a| (a.kind, a.index));
            return best.map(|a| a.index).ok_or_else(|| GpuError::NoDevice {
                detail: format!("devices: {}", list()),
            });
        }
        DeviceSelector::Index(i) => adapters.iter().filter(usable).find(|a| a.index == *i),
        DeviceSelector::Name(name) => {
            let needle = name.to_lowercase();
            adapters
                .iter()
                .filter(usable)
                .find(|a| a.name.to_lowercase().contains(&needle))
        }
    };
    found
        .map(|a| a.index)
        .ok_or_else(|| GpuError::DeviceNotFound {
            selector: selector.to_string(),
            available: list(),
        })
}

fn create_device(
    instance: &ash::Instance,
    candidate: &Candidate,
    queue_family: u32,
    debug_utils: bool,
    validation: bool,
) -> Result<(ash::Device, OptionalFeatures)> {
    let s = candidate.supported;
    let on = |b: vk::Bool32| b == vk::TRUE;
    let core = vk::PhysicalDeviceFeatures::default()
        .sampler_anisotropy(on(s.core.sampler_anisotropy))
        .depth_clamp(on(s.core.depth_clamp))
        .depth_bias_clamp(on(s.core.depth_bias_clamp))
        .fill_mode_non_solid(on(s.core.fill_mode_non_solid))
        .independent_blend(on(s.core.independent_blend))
        .multi_draw_indirect(
            on(s.core.multi_draw_indirect) && on(s.core.draw_indirect_first_instance),
        )
        .draw_indirect_first_instance(
            on(s.core.multi_draw_indirect) && on(s.core.draw_indirect_first_instance),
        )
        .texture_compression_bc(on(s.core.texture_compression_bc))
        .shader_clip_distance(on(s.core.shader_clip_distance));
    let indexing = s.descriptor_indexing
        && s.runtime_descriptor_array
        && s.sampled_image_non_uniform
        && s.partially_bound
        && s.variable_count;
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default()
        .timeline_semaphore(true)
        .host_query_reset(true)
        .buffer_device_address(s.buffer_device_address)
        .descriptor_indexing(indexing)
        .runtime_descriptor_array(indexing)
        .shader_sampled_image_array_non_uniform_indexing(indexing)
        .descriptor_binding_partially_bound(indexing)
        .descriptor_binding_variable_descriptor_count(indexing);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
        .dynamic_rendering(true)
        .synchronization2(true);
    let mut features2 = vk::PhysicalDeviceFeatures2::default()
        .features(core)
        .push_next(&mut v12)
        .push_next(&mut v13);

    let mut extensions: Vec<*const std::ffi::c_char> = Vec::new();
    if s.memory_budget {
        extensions.push(ash::ext::memory_budget::NAME.as_ptr());
    }
    if s.push_descriptor {
        extensions.push(ash::khr::push_descriptor::NAME.as_ptr());
    }
    let priorities = [1.0_f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(queue_family)
        .queue_priorities(&priorities)];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&extensions)
        .push_next(&mut features2);
    // SAFETY: every enabled feature and extension was reported supported by this
    // physical device; all pointers outlive the call.
    let device =
        unsafe { instance.create_device(candidate.physical, &info, None) }.vk("vkCreateDevice")?;

    let properties =
        // SAFETY: a valid physical device.
        unsafe { instance.get_physical_device_properties(candidate.physical) };
    let features = OptionalFeatures {
        buffer_device_address: s.buffer_device_address,
        descriptor_indexing: indexing,
        memory_budget: s.memory_budget,
        push_descriptor: s.push_descriptor,
        async_transfer_family: candidate.transfer_family,
        timestamps: candidate.timestamp_bits > 0 && properties.limits.timestamp_period > 0.0,
        timestamp_period_ns: properties.limits.timestamp_period,
        debug_utils,
        validation,
        sampler_anisotropy: on(s.core.sampler_anisotropy),
        depth_clamp: on(s.core.depth_clamp),
        depth_bias_clamp: on(s.core.depth_bias_clamp),
        fill_mode_non_solid: on(s.core.fill_mode_non_solid),
        independent_blend: on(s.core.independent_blend),
        multi_draw_indirect: on(s.core.multi_draw_indirect)
            && on(s.core.draw_indirect_first_instance),
        texture_compression_bc: on(s.core.texture_compression_bc),
    };
    Ok((device, features))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapter(index: usize, name: &str, kind: DeviceKind, ok: bool) -> AdapterInfo {
        AdapterInfo {
            index,
            name: name.to_owned(),
            kind,
            api_version: (1, 3, 0),
            driver: String::new(),
            rejected: (!ok).then(|| "no dynamicRendering".to_owned()),
        }
    }

    #[test]
    fn handles_cross_threads() {
        fn send_sync<T: Send + Sync>() {}
        fn send<T: Send>() {}
        send_sync::<Gpu>();
        send_sync::<crate::Pipeline>();
        send_sync::<crate::Buffer>();
        send_sync::<crate::Image>();
        send::<crate::CommandPool>();
        send::<crate::StagingRing>();
        send::<crate::GpuTimer>();
        send_sync::<crate::PassQueries>();
    }

    #[test]
    fn selector_parses_index_name_and_auto() {
        assert_eq!(DeviceSelector::parse(""), DeviceSelector::Auto);
        assert_eq!(DeviceSelector::parse(" AUTO "), DeviceSelector::Auto);
        assert_eq!(DeviceSelector::parse("1"), DeviceSelector::Index(1));
        assert_eq!(
            DeviceSelector::parse("llvmpipe"),
            DeviceSelector::Name("llvmpipe".to_owned())
        );
    }

    #[test]
    fn auto_prefers_discrete_then_integrated_then_cpu() {
        let all = vec![
            adapter(0, "llvmpipe", DeviceKind::Cpu, true),
            adapter(1, "Intel", DeviceKind::Integrated, true),
            adapter(2, "Radeon", DeviceKind::Discrete, false),
            adapter(3, "GeForce", DeviceKind::Discrete, true),
        ];
        assert_eq!(select_adapter(&all, &DeviceSelector::Auto).ok(), Some(3));
        assert_eq!(
            select_adapter(&all[..3], &DeviceSelector::Auto).ok(),
            Some(1)
        );
        assert_eq!(
            select_adapter(&all[..1], &DeviceSelector::Auto).ok(),
            Some(0)
        );
        assert!(matches!(
            select_adapter(&all[2..3], &DeviceSelector::Auto),
            Err(GpuError::NoDevice { .. })
        ));
    }

    #[test]
    fn overrides_by_index_and_name() {
        let all = vec![
            adapter(0, "llvmpipe (LLVM 15)", DeviceKind::Cpu, true),
            adapter(1, "GeForce RTX", DeviceKind::Discrete, true),
            adapter(2, "Broken", DeviceKind::Discrete, false),
        ];
        assert_eq!(
            select_adapter(&all, &DeviceSelector::Index(0)).ok(),
            Some(0)
        );
        assert_eq!(
            select_adapter(&all, &DeviceSelector::Name("LLVMPIPE".into())).ok(),
            Some(0)
        );
        let err = select_adapter(&all, &DeviceSelector::Index(2));
        assert!(matches!(err, Err(GpuError::DeviceNotFound { .. })));
        let err = select_adapter(&all, &DeviceSelector::Name("nope".into()));
        let message = err.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("GeForce RTX"), "{message}");
    }

    #[test]
    fn missing_vulkan_errors_name_the_packages() {
        let loader = GpuError::NoLoader {
            reason: "libvulkan.so.1: not found".into(),
        };
        let device = GpuError::NoDevice {
            detail: "devices: none".into(),
        };
        for e in [loader, device] {
            assert!(
                e.to_string().contains("libvulkan1 mesa-vulkan-drivers"),
                "{e}"
            );
        }
    }
}
