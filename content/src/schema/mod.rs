//! The typed schema of every source asset and component.

pub mod block;
pub mod common;
pub mod components;
pub mod manifest;
pub mod map;
pub mod map_rules;
pub mod material;
pub mod model;
pub mod object;
pub mod object_components;
pub mod records;
pub mod rig;
pub mod surface;
pub mod voxel;
