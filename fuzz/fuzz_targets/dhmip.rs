#![no_main]
//! The `.dhmip` mip chain cache reader (see `dh_content::fuzzing::fuzz_dhmip`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_dhmip(data));
