//! Every DigitalHeaven on-disk format: JSONC sources read with diagnostics, the typed
//! schema of every asset and component, validation, the one merge rule and the map
//! inheritance fold, references, and the `.pallet` container.
#![warn(missing_docs)]

pub mod colcook;
pub mod compile;
pub mod diag;
pub mod fold;
pub mod fuzzing;
pub mod gltf;
mod hash;
pub mod jsonc;
pub mod lightmap;
pub mod math;
pub mod merge;
pub mod mesh;
pub mod pallet;
pub mod parts;
#[macro_use]
pub mod read;
pub mod mips;
pub mod refs;
pub mod schema;
pub mod texture;
pub mod thumbnail;
pub mod voxel;
