//! Helpers for tests that run on Mesa lavapipe with the Khronos validation layer
//! (this crate's and the renderer's). They panic on failure, with messages that name
//! the packages to install.

use std::path::PathBuf;
use std::sync::{Arc, Once};

use crate::device::{Gpu, GpuDesc, Validation};
use crate::validation::ValidationLog;

/// Where Debian's mesa-vulkan-drivers puts lavapipe's ICD manifest.
pub const LAVAPIPE_ICD: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

/// Set to anything but `0` to run [`test_gpu`] with synchronization validation.
pub const SYNC_VALIDATION_ENV: &str = "DH_GPU_SYNC_VALIDATION";

static ENV: Once = Once::new();

/// The lavapipe ICD manifest on this machine, if installed.
pub fn lavapipe_icd() -> Option<PathBuf> {
    let default = PathBuf::from(LAVAPIPE_ICD);
    if default.is_file() {
        return Some(default);
    }
    let dir = std::fs::read_dir("/usr/share/vulkan/icd.d").ok()?;
    dir.filter_map(|e| e.ok().map(|e| e.path())).find(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("lvp_icd") && n.ends_with(".json"))
    })
}

/// Pins the process to lavapipe: sets `VK_DRIVER_FILES` to its manifest and
/// `MESA_SHADER_CACHE_DIR` to a fresh temporary folder. Runs once per process, before
/// any instance is created (every helper here calls it first).
///
/// # Panics
/// When lavapipe is not installed (the message names the package).
pub fn lavapipe_env() {
    ENV.call_once(|| {
        let Some(icd) = lavapipe_icd() else {
            panic!(
                "Mesa lavapipe is not installed (no /usr/share/vulkan/icd.d/lvp_icd.*.json); \
                 install the packages libvulkan1 mesa-vulkan-drivers vulkan-validationlayers \
                 (scripts/setup.sh does)"
            );
        };
        let cache = std::env::temp_dir().join(format!("dh-gpu-mesa-cache-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&cache);
        // Set once, under the Once, before any thread of this process creates a Vulkan
        // instance (the only readers of these variables).
        std::env::set_var("VK_DRIVER_FILES", &icd);
        std::env::set_var("VK_ICD_FILENAMES", &icd);
        std::env::set_var("MESA_SHADER_CACHE_DIR", &cache);
    });
}

/// A [`Gpu`] on lavapipe with validation required (and synchronization validation
/// when [`SYNC_VALIDATION_ENV`] is set).
///
/// # Panics
/// When Vulkan, lavapipe or the validation layer is missing, with the error's message
/// (which names the packages).
pub fn test_gpu() -> Gpu {
    lavapipe_env();
    let desc = GpuDesc {
        app_name: "dh-gpu tests".to_owned(),
        validation: Validation::Required,
        sync_validation: std::env::var_os(SYNC_VALIDATION_ENV).is_some_and(|v| v != "0"),
        ..GpuDesc::default()
    };
    match Gpu::new(&desc) {
        Ok(gpu) => gpu,
        Err(e) => panic!("cannot create the test device: {e}"),
    }
}

/// Panics listing every error-severity message in `log`.
pub fn assert_no_validation_errors(log: &ValidationLog) {
    let errors = log.errors();
    if !errors.is_empty() {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!(
            "{} Vulkan validation error(s):\n{}",
            errors.len(),
            list.join("\n")
        );
    }
}

/// Drops `gpu` (waiting for the device and destroying everything) and then fails on
/// any validation error seen during the test, destruction included. Every other
/// clone of the `Gpu` and every resource must be dropped first.
pub fn finish(gpu: Gpu) {
    let log: Arc<ValidationLog> = gpu.validation_log();
    drop(gpu);
    for message in log.messages() {
        if message.severity != crate::validation::Severity::Error {
            eprintln!("vulkan: {message}");
        }
    }
    assert_no_validation_errors(&log);
}
