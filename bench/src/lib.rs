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

/// The Java region fixtures present under `../shared/fixtures/minecraft/region` (name, save
/// folder), in a fixed order; the world and light benches read them in place (a folder
/// without its `r.0.0.mca` is left out).
pub fn minecraft_region_fixtures() -> Vec<(String, std::path::PathBuf)> {
    let base = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/minecraft/region");
    ["1.20.1-paper", "1.21.1"]
        .iter()
        .map(|f| (f.to_string(), base.join(f)))
        .filter(|(_, p)| p.join("r.0.0.mca").is_file())
        .collect()
}
