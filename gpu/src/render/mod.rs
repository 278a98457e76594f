//! The renderer: CPU references first (tonemaps, light falloff, ranking and clusters, the
//! procedural sky and its harmonics, cascaded shadow splits), then the passes that draw a
//! [`RenderFrame`].

pub mod camera;
pub mod compare;
pub mod frame;
pub mod lights;
pub mod math;
pub mod plan;
pub mod renderer;
pub mod shadow;
pub mod sky;
pub mod tonemap;

pub use frame::RenderFrame;
pub use renderer::{RenderOutput, Renderer};
