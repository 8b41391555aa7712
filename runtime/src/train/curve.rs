//! `curve.png`: success rate (left, 0 to 1) and mean return (right) against
//! environment steps, one panel each, drawn with plotters at the end of a run.
//!
//! The picture has no text: plotters needs a font library or a font file for
//! that, which a clean machine may lack. Grid lines mark tenths of each axis;
//! `metrics.jsonl` has the numbers.

use super::run::UpdateMetrics;
use plotters::prelude::*;
use std::path::Path;

/// Draws `history` into a PNG at `path`.
pub fn draw(path: &Path, history: &[UpdateMetrics]) -> Result<(), String> {
    let root = BitMapBackend::new(path, (960, 420)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (left, right) = root.split_horizontally(480);
    let steps = history.last().map_or(1, |m| m.env_steps.max(1)) as f64;
    let success: Vec<(f64, f64)> = history
        .iter()
        .filter(|m| m.episodes > 0)
        .map(|m| (m.env_steps as f64, m.success_rate))
        .collect();
    let returns: Vec<(f64, f64)> = history
        .iter()
        .filter(|m| m.episodes > 0)
        .map(|m| (m.env_steps as f64, m.mean_return))
        .collect();
    panel(&left, &success, steps, 0.0, 1.0, &BLUE)?;
    let (lo, hi) = returns.iter().fold((0.0f64, 0.0f64), |(lo, hi), (_, r)| {
        (lo.min(*r), hi.max(*r))
    });
    panel(&right, &returns, steps, lo, hi.max(lo + 1e-3), &RED)?;
    root.present().map_err(|e| e.to_string())
}

fn panel(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    points: &[(f64, f64)],
    steps: f64,
    lo: f64,
    hi: f64,
    color: &RGBColor,
) -> Result<(), String> {
    let mut chart = ChartBuilder::on(area)
        .margin(16)
        .build_cartesian_2d(0.0..steps, lo..hi)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_labels(11)
        .y_labels(11)
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(&|_| String::new())
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(LineSeries::new(points.iter().copied(), color))
        .map_err(|e| e.to_string())?;
    Ok(())
}
