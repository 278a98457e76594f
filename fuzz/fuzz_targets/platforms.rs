#![no_main]
//! A map's `.platforms` record and a platform pallet's block fingerprint (see
//! `dh_content::fuzzing::fuzz_platforms`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_platforms(data));
