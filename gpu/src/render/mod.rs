//! The renderer: CPU references first (tonemaps, light falloff, ranking and clusters, the
//! procedural sky and its harmonics, cascaded shadow splits), then the passes that draw a
//! [`RenderFrame`].

pub mod camera;
pub mod compare;
pub mod exec;
pub mod frame;
pub mod gpu_data;
pub mod light_window;
pub mod lights;
pub mod math;
mod meshes;
pub mod overlay;
mod passes;
pub mod plan;
pub mod renderer;
pub mod shadow;
pub mod skin;
pub mod sky;
pub mod tonemap;
pub mod uploads;

pub use exec::{Executor, ScopedThreads, Serial};
pub use frame::RenderFrame;
pub use overlay::{Overlay, ScreenItem};
pub use passes::Pass;
pub use renderer::{
    msaa_samples, FrameReport, RenderOutput, Renderer, RendererDesc, DEFAULT_MSAA, MSAA_COUNTS,
};
