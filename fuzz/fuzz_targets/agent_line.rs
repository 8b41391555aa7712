//! Fuzz target `agent_line`: agent-protocol request lines on the search site.
//! The body is `wsite_tests::fuzz_harness::agent_lines`, shared with the stable
//! seed test (tests/tests/fuzz_seeds.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wsite_tests::fuzz_harness::agent_lines(data));
