//! The typed schema of every source asset and component.

pub mod common;
pub mod components;
pub mod map;
pub mod map_rules;
pub mod material;
pub mod manifest;
pub mod surface;
pub mod records;
pub mod object;
pub mod object_components;
pub mod voxel;
pub mod model;
