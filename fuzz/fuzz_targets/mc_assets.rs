#![no_main]
//! The platform pallet importer's readers: Minecraft JSON models and their parent
//! chains, blockstates, client jars and PNG headers (see
//! `dh_content::fuzzing::fuzz_mc_assets`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_mc_assets(data));
