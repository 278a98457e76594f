#![no_main]
//! The scene-only GLB reader and the GLB writer (see `dh_content::fuzzing::fuzz_glb_rewrite`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| dh_content::fuzzing::fuzz_glb_rewrite(data));
