//! Fuzz target `parse_check`: a `.wsite` source through parse, every check and (when it compiles) a tiny proof.
//! The body is `wsite_tests::fuzz_harness::parse_check`, shared with the stable
//! seed test (tests/tests/fuzz_seeds.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wsite_tests::fuzz_harness::parse_check(data));
