#![no_main]
//! The PNG and JPEG texture decoders (see `dh_content::fuzzing::fuzz_image`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_image(data));
