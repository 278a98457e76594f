#![no_main]
//! The Anvil region reader and world chunk decoder (see
//! `dh_content::fuzzing::fuzz_region`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_region(data));
