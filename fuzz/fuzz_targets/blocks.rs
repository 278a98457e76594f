#![no_main]
//! The block table parser and look resolution (see `dh_content::fuzzing::fuzz_blocks`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_blocks(data));
