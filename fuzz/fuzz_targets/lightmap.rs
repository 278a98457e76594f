#![no_main]
//! The lightmap sidecar reader (see `dh_content::fuzzing::fuzz_lightmap`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_lightmap(data));
