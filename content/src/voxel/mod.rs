//! Voxel containers (`dh.voxel`): the canonical `.dh-vox.bin` payload and the importers
//! that convert foreign sources into it.

pub mod animation;
pub mod biomes;
pub mod blocks;
pub mod import;
pub mod minecraft;
pub mod payload;
pub mod teardown;
pub mod vox;
