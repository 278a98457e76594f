#![no_main]
//! The collision load cache's entry reader (see
//! `dh_content::fuzzing::fuzz_colcook_geometry`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_colcook_geometry(data));
