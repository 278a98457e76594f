#![no_main]
//! The `.pallet` reader (see `dh_content::fuzzing::fuzz_pallet`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_pallet(data));
