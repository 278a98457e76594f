//! The rolling Minecraft-style terrain the voxel benchmarks share (`benches/voxel.rs`
//! meshes and lights it, `benches/voxel_collision.rs` cooks it): the engine's own
//! generator, which `dh-engine bench voxel-*` runs too, so the criterion kernels and the
//! bench scenes measure the same worlds.

pub use dh_engine::bench_scenes::terrain::*;
