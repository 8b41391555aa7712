//! Renders diagnostics for people (in progress).
