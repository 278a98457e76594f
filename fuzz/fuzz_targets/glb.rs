#![no_main]
//! The GLB importer, geometry report and part table (see `dh_content::fuzzing::fuzz_glb`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_glb(data));
