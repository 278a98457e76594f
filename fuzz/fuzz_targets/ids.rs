#![no_main]
//! The identity sidecar reader and matching (see `dh_content::fuzzing::fuzz_ids`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_ids(data));
