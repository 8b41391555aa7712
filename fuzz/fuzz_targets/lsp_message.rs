//! Fuzz target `lsp_message`: framed language-server input.
//! The body is `wsite_tests::fuzz_harness::lsp_messages`, shared with the stable
//! seed test (tests/tests/fuzz_seeds.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wsite_tests::fuzz_harness::lsp_messages(data));
