//! Shared helpers for the wsite test suites (fixture discovery lives in the test binaries).
