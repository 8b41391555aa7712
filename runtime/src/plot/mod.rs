//! Figures: line charts with a title, labelled axes with ticks and a legend,
//! drawn with plotters in the font this crate embeds ([`font`]), so they
//! render the same on a machine without system fonts. [`lines`] draws one
//! chart of labelled series (each with an optional shaded band) into any
//! drawing area; [`png`] is the one place that writes a file.
//!
//! Needs the `plot` feature (plotters; no libtorch).

mod font;
mod lines;

pub use lines::{draw_chart, steps_label, Chart, Series};

use plotters::coord::Shift;
use plotters::prelude::*;
use std::fmt;
use std::path::Path;

/// Why a figure could not be drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum PlotError {
    /// The embedded font did not parse (a corrupt build).
    Font,
    /// The backend failed: writing the file, or a text the font cannot lay
    /// out. Plotters' errors are generic over the backend, so they arrive as
    /// their message.
    Draw(String),
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::Font => write!(f, "the embedded font could not be loaded"),
            PlotError::Draw(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for PlotError {}

/// Plotters' error as a [`PlotError`].
pub(crate) fn draw_error<E: std::error::Error + Send + Sync>(
    e: DrawingAreaErrorKind<E>,
) -> PlotError {
    PlotError::Draw(e.to_string())
}

/// Draws a figure of `size` pixels with `paint` into a PNG at `path`, on a
/// white background, with the embedded font registered.
pub fn png(
    path: &Path,
    size: (u32, u32),
    paint: impl FnOnce(&DrawingArea<BitMapBackend<'_>, Shift>) -> Result<(), PlotError>,
) -> Result<(), PlotError> {
    font::register()?;
    let root = BitMapBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(draw_error)?;
    paint(&root)?;
    root.present().map_err(draw_error)
}

/// Draws with `paint` into an RGB buffer of `size` pixels (3 bytes a pixel,
/// row by row): what tests look at.
pub fn rgb(
    size: (u32, u32),
    paint: impl FnOnce(&DrawingArea<BitMapBackend<'_>, Shift>) -> Result<(), PlotError>,
) -> Result<Vec<u8>, PlotError> {
    font::register()?;
    let mut buffer = vec![0u8; size.0 as usize * size.1 as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, size).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        paint(&root)?;
        root.present().map_err(draw_error)?;
    }
    Ok(buffer)
}
