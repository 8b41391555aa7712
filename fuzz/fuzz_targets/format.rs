//! Fuzz target `format`: the formatter; its output must format to itself.
//! The body is `wsite_tests::fuzz_harness::format`, shared with the stable
//! seed test (tests/tests/fuzz_seeds.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wsite_tests::fuzz_harness::format(data));
