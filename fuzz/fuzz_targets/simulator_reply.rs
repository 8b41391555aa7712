//! Fuzz target `simulator_reply`: simulator answers to an extern marker click on the help-desk site.
//! The body is `wsite_tests::fuzz_harness::simulator_reply`, shared with the stable
//! seed test (tests/tests/fuzz_seeds.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wsite_tests::fuzz_harness::simulator_reply(data));
