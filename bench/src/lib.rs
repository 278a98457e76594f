//! Benchmark scenes and side-by-side benchmarks against peer crates.
//!
//! * [`city`]: the "logic city", a procedural scene of thousands of logic entities (buttons,
//!   doors, plates, timers, gates, lights, lifts, fans) with one pawn per block walking
//!   over its plates, generated as dh.map source and built by the real compiler.
//! * [`harness`]: runs a city through the engine host for T ticks on W job-system threads,
//!   with the frame timer; the `dh-bench` binary and `benches/logic_city.rs` use it.
//! * [`render_city`]: the "render city", box buildings and street lamps, for the renderer's
//!   CPU side (extraction, recording on 1 and 2 workers); `benches/render.rs` runs it.
//! * [`terrain`]: the rolling terrain the voxel benchmarks mesh, light and cook.
#![warn(missing_docs)]

pub mod city;
pub mod harness;
pub mod render_city;
pub mod terrain;
