//! The DigitalHeaven engine host: mounts pallets, installs maps, runs frames.
#![warn(missing_docs)]

pub mod core_pallet;
pub mod prefs;
