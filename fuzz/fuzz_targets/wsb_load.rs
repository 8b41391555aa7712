//! Fuzz target `wsb_load`: a `.wsb` artifact file.
//! The body is `wsite_tests::fuzz_harness::wsb_load`, shared with the stable
//! seed test (tests/tests/fuzz_seeds.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wsite_tests::fuzz_harness::wsb_load(data));
