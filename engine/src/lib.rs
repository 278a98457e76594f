//! The DigitalHeaven engine host: mounts pallets, installs maps, runs frames.
#![warn(missing_docs)]

pub mod bench_scenes;
pub mod catalog;
pub mod cli;
pub mod contacts;
pub mod core_pallet;
pub mod extract;
pub mod gizmos;
pub mod host;
pub mod light_check;
pub mod load_log;
pub mod mesh_colliders;
pub mod mip_cache;
pub mod models;
pub mod options;
pub mod prefs;
pub mod render_cmd;
pub mod run;
pub mod script;
pub mod source_pallet;
pub mod voxel;
