#![no_main]
//! The `.mcmeta` animation reader (see `dh_content::fuzzing::fuzz_mcmeta`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_mcmeta(data));
