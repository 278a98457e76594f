//! Debug labels and object names through VK_EXT_debug_utils (RenderDoc, validation
//! messages). Every call is a no-op when the extension is not enabled.

use std::ffi::CString;

use ash::vk;

use crate::device::Gpu;

fn c_name(name: &str) -> CString {
    // Interior NULs would cut the name; replace them instead of failing.
    CString::new(name.replace('\0', " ")).unwrap_or_default()
}

impl Gpu {
    /// Names a Vulkan object for tools and validation messages.
    pub fn set_object_name<H: vk::Handle>(&self, handle: H, name: &str) {
        let Some(debug) = self.debug_utils() else {
            return;
        };
        let name = c_name(name);
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&name);
        // SAFETY: the handle belongs to this device and the name outlives the call.
        // Naming is advisory: a failure is ignored.
        let _ = unsafe { debug.set_debug_utils_object_name(&info) };
    }

    /// Opens a labelled region in `cmd` (close it with [`Gpu::cmd_end_label`]).
    pub fn cmd_begin_label(&self, cmd: vk::CommandBuffer, name: &str) {
        self.cmd_begin_label_color(cmd, name, [0.0; 4]);
    }

    /// [`Gpu::cmd_begin_label`] with a colour for the tool's timeline (all zero: none).
    pub fn cmd_begin_label_color(&self, cmd: vk::CommandBuffer, name: &str, color: [f32; 4]) {
        let Some(debug) = self.debug_utils() else {
            return;
        };
        let name = c_name(name);
        let label = vk::DebugUtilsLabelEXT::default()
            .label_name(&name)
            .color(color);
        // SAFETY: `cmd` is in the recording state (the caller's contract for every
        // cmd_* helper); the label outlives the call.
        unsafe { debug.cmd_begin_debug_utils_label(cmd, &label) };
    }

    /// Closes the innermost region opened with [`Gpu::cmd_begin_label`].
    pub fn cmd_end_label(&self, cmd: vk::CommandBuffer) {
        let Some(debug) = self.debug_utils() else {
            return;
        };
        // SAFETY: `cmd` is recording and has an open label (the caller's contract).
        unsafe { debug.cmd_end_debug_utils_label(cmd) };
    }

    /// Inserts a single label into `cmd`.
    pub fn cmd_insert_label(&self, cmd: vk::CommandBuffer, name: &str, color: [f32; 4]) {
        let Some(debug) = self.debug_utils() else {
            return;
        };
        let name = c_name(name);
        let label = vk::DebugUtilsLabelEXT::default()
            .label_name(&name)
            .color(color);
        // SAFETY: `cmd` is recording; the label outlives the call.
        unsafe { debug.cmd_insert_debug_utils_label(cmd, &label) };
    }
}
