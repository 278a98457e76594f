//! The Vulkan backend and renderer.
#![warn(missing_docs)]
