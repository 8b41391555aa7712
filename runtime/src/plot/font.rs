//! The embedded font: DejaVu Sans (Bitstream Vera licence, see
//! `runtime/assets/fonts/LICENSE-DejaVu.txt`), registered with plotters as
//! the `sans-serif` family once per process, so text never depends on what
//! fonts the machine has.

use super::PlotError;
use plotters::style::{register_font, FontStyle};
use std::sync::OnceLock;

/// The TrueType file, compiled into the binary.
static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Registers the font for every style of `sans-serif` (plotters falls back
/// from bold or italic to the normal face). Idempotent.
pub fn register() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<Result<(), PlotError>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            register_font("sans-serif", FontStyle::Normal, DEJAVU_SANS).map_err(|_| PlotError::Font)
        })
        .clone()
}
