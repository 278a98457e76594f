#![no_main]
//! The Java NBT reader (see `dh_content::fuzzing::fuzz_nbt`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_nbt(data));
