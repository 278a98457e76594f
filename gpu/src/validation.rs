//! The debug-utils messenger: every message the validation layer (or the driver) sends
//! is collected in a [`ValidationLog`]; error-severity ones are also printed to stderr
//! as they arrive so a failing test shows them in order.

use std::ffi::{c_void, CStr};
use std::sync::{Arc, Mutex, PoisonError};

use ash::vk;

use crate::error::{GpuError, Result};

/// How severe a message is (VkDebugUtilsMessageSeverityFlagBitsEXT).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Diagnostic noise.
    Verbose,
    /// Informational.
    Info,
    /// Probably a mistake or a slow path.
    Warning,
    /// A violation of the Vulkan spec: any of these fails a test.
    Error,
}

/// One collected message.
#[derive(Clone, Debug)]
pub struct ValidationMessage {
    /// Its severity.
    pub severity: Severity,
    /// The message's id name (a VUID for validation errors), or empty.
    pub id: String,
    /// The full text.
    pub text: String,
}

impl std::fmt::Display for ValidationMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{:?}] {} {}", self.severity, self.id, self.text)
    }
}

/// Every message the messenger received, shared between the [`crate::Gpu`] and anyone
/// who wants to check it after the device is gone.
#[derive(Debug, Default)]
pub struct ValidationLog {
    messages: Mutex<Vec<ValidationMessage>>,
}

impl ValidationLog {
    /// A copy of every message so far.
    pub fn messages(&self) -> Vec<ValidationMessage> {
        self.lock().clone()
    }

    /// A copy of the error-severity messages so far.
    pub fn errors(&self) -> Vec<ValidationMessage> {
        self.lock()
            .iter()
            .filter(|m| m.severity == Severity::Error)
            .cloned()
            .collect()
    }

    /// `Err(GpuError::Validation)` when any error-severity message arrived.
    pub fn check(&self) -> Result<()> {
        let errors = self.errors();
        match errors.first() {
            None => Ok(()),
            Some(first) => Err(GpuError::Validation {
                count: errors.len(),
                first: first.to_string(),
            }),
        }
    }

    /// Adds a message (the messenger calls this; tests may too).
    pub fn push(&self, message: ValidationMessage) {
        if message.severity == Severity::Error {
            eprintln!("vulkan validation: {message}");
        }
        self.lock().push(message);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ValidationMessage>> {
        // A panic while holding the lock cannot leave the Vec invalid.
        self.messages.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The messenger's create info; `user_data` must point at a live `ValidationLog` for
/// as long as the messenger (or the instance it is chained into) exists.
pub(crate) fn messenger_info(
    log: &Arc<ValidationLog>,
) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(callback))
        .user_data(Arc::as_ptr(log) as *mut c_void)
}

unsafe extern "system" fn callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user_data: *mut c_void,
) -> vk::Bool32 {
    if data.is_null() || user_data.is_null() {
        return vk::FALSE;
    }
    // SAFETY: user_data is `Arc::as_ptr` of the ValidationLog the Gpu keeps alive until
    // after the messenger and the instance are destroyed (see device.rs Drop).
    let log = unsafe { &*(user_data as *const ValidationLog) };
    // SAFETY: the layer passes a valid callback-data struct for the call's duration.
    let data = unsafe { &*data };
    let text = if data.p_message.is_null() {
        String::new()
    } else {
        // SAFETY: p_message is a NUL-terminated string valid during the callback.
        unsafe { CStr::from_ptr(data.p_message) }
            .to_string_lossy()
            .into_owned()
    };
    let id = if data.p_message_id_name.is_null() {
        String::new()
    } else {
        // SAFETY: as above, for the id name.
        unsafe { CStr::from_ptr(data.p_message_id_name) }
            .to_string_lossy()
            .into_owned()
    };
    let severity = if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        Severity::Error
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
        Severity::Warning
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::INFO) {
        Severity::Info
    } else {
        Severity::Verbose
    };
    log.push(ValidationMessage { severity, id, text });
    vk::FALSE
}
