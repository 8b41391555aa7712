//! Fuzz target `serve_request`: HTTP requests to a served shop, one a line.
//! The body is `wsite_tests::fuzz_harness::serve_requests`, shared with the
//! stable seed test (tests/tests/fuzz_seeds.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wsite_tests::fuzz_harness::serve_requests(data));
