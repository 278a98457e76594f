#![no_main]
//! The Minecraft structure importers (see `dh_content::fuzzing::fuzz_minecraft`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_minecraft(data));
