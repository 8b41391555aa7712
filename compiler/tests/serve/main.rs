//! `wsitec serve` (serve/): a served site is the simulator's site.
//!
//! - `browser`: headless Chromium plays every witness of every example and
//!   random walks, clicking by `data-wsite-key`; rows, reward and success
//!   must equal the simulator's exactly;
//! - `hostile`: forged, replayed, malformed and cross-session requests are
//!   refused with a clear error and change nothing;
//! - `load`: many concurrent sessions over HTTP; nothing lost, nothing
//!   crosses sessions.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

mod browser;
mod common;
mod episodes;
mod generated;
mod hostile;
mod load;
