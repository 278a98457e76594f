//! The backend's error type.

use ash::vk;

/// What to install when Vulkan is missing (Debian package names).
pub(crate) const VULKAN_PACKAGES: &str = "libvulkan1 mesa-vulkan-drivers";

/// Everything the backend can fail with.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// The Vulkan loader library could not be loaded.
    #[error(
        "no Vulkan loader ({reason}); install the packages {VULKAN_PACKAGES} \
         (scripts/setup.sh does)"
    )]
    NoLoader {
        /// Why loading failed.
        reason: String,
    },
    /// The loader works but offers no usable Vulkan 1.3 device.
    #[error(
        "no usable Vulkan 1.3 device ({detail}); install the packages {VULKAN_PACKAGES} \
         (Mesa's lavapipe is a CPU device) or a GPU driver"
    )]
    NoDevice {
        /// The devices seen and why each was rejected.
        detail: String,
    },
    /// A device override matched nothing usable.
    #[error("no usable Vulkan device matches {selector}; devices: {available}")]
    DeviceNotFound {
        /// The override as given.
        selector: String,
        /// The devices seen, with their indices.
        available: String,
    },
    /// Validation was required but the Khronos layer is not installed.
    #[error(
        "the Khronos validation layer (VK_LAYER_KHRONOS_validation) is not installed; \
         install the package vulkan-validationlayers"
    )]
    NoValidationLayer,
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Vk {
        /// The Vulkan entry point.
        call: &'static str,
        /// The result it returned.
        result: vk::Result,
    },
    /// gpu-allocator could not place an allocation.
    #[error("GPU memory allocation for {name:?} failed: {source}")]
    Alloc {
        /// The resource's debug name.
        name: String,
        /// The allocator's error.
        #[source]
        source: gpu_allocator::AllocationError,
    },
    /// A description was invalid (zero size, bad format, unknown entry point, ...).
    #[error("invalid {what}: {reason}")]
    Invalid {
        /// What was being created.
        what: &'static str,
        /// Why it was refused.
        reason: String,
    },
    /// Waiting for a timeline value took longer than the caller allowed.
    #[error("timed out after {waited_ms} ms waiting for timeline value {value}")]
    Timeout {
        /// The value waited for.
        value: u64,
        /// How long the wait lasted.
        waited_ms: u64,
    },
    /// PNG encoding failed.
    #[error("PNG encoding failed: {0}")]
    Png(#[from] png::EncodingError),
    /// Writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The validation layer reported errors (see [`crate::ValidationLog`]).
    #[error("{count} Vulkan validation error(s); first: {first}")]
    Validation {
        /// How many error-severity messages.
        count: usize,
        /// The first one.
        first: String,
    },
}

/// The backend's result type.
pub type Result<T, E = GpuError> = std::result::Result<T, E>;

/// Names the Vulkan call on a raw `VkResult`.
pub(crate) trait VkContext<T> {
    /// Maps the error to [`GpuError::Vk`] naming `call`.
    fn vk(self, call: &'static str) -> Result<T>;
}

impl<T> VkContext<T> for std::result::Result<T, vk::Result> {
    fn vk(self, call: &'static str) -> Result<T> {
        self.map_err(|result| GpuError::Vk { call, result })
    }
}

pub(crate) fn invalid(what: &'static str, reason: impl Into<String>) -> GpuError {
    GpuError::Invalid {
        what,
        reason: reason.into(),
    }
}
