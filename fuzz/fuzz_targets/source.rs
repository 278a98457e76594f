#![no_main]
//! The JSONC reader and every schema reader (see `dh_content::fuzzing::fuzz_source`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_source(data));
