#![no_main]
//! The `.vox` reader and importer (see `dh_content::fuzzing::fuzz_vox`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_vox(data));
