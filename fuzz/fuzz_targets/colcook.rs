#![no_main]
//! The cooked-collision readers (see `dh_content::fuzzing::fuzz_colcook`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_colcook(data));
