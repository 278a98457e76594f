#![no_main]
//! The map-thumbnail companion reader (see `dh_content::fuzzing::fuzz_mapthumb`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_mapthumb(data));
