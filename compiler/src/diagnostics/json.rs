//! Renders diagnostics as JSON (in progress).
