#![no_main]
//! The `.dh-vox.bin` payload reader and writer (see `dh_content::fuzzing::fuzz_payload`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_payload(data));
