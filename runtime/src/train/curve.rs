//! `curve.png`: a run's success rate (left) and mean return (right) against
//! environment steps, one titled panel each with labelled axes, ticks and a
//! legend, drawn at the end of a run with [`crate::plot`] (whose embedded
//! font makes the text render on any machine). `metrics.jsonl` has the
//! numbers.

use super::run::UpdateMetrics;
use crate::plot::{self, draw_chart, Chart, PlotError, Series};
use plotters::prelude::*;
use std::path::Path;

/// The figure's size in pixels: two panels side by side.
const SIZE: (u32, u32) = (1200, 480);

/// Draws `history` into a PNG at `path`.
pub fn draw(path: &Path, history: &[UpdateMetrics]) -> Result<(), PlotError> {
    let steps = history.last().map_or(1, |m| m.env_steps.max(1)) as f64;
    let ended = || history.iter().filter(|m| m.episodes > 0);
    let success = [Series {
        label: "training episodes".into(),
        color: BLUE,
        points: ended()
            .map(|m| (m.env_steps as f64, m.success_rate))
            .collect(),
        band: Vec::new(),
    }];
    let returns = [Series {
        label: "training episodes".into(),
        color: RED,
        points: ended()
            .map(|m| (m.env_steps as f64, m.mean_return))
            .collect(),
        band: Vec::new(),
    }];
    let (lo, hi) = returns[0]
        .points
        .iter()
        .fold((0.0f64, 0.0f64), |(lo, hi), (_, r)| {
            (lo.min(*r), hi.max(*r))
        });
    plot::png(path, SIZE, |root| {
        let (left, right) = root.split_horizontally(SIZE.0 / 2);
        draw_chart(
            &left,
            &Chart {
                title: "Success rate",
                x_desc: "environment steps",
                y_desc: "episodes that succeeded",
                x_max: steps,
                y_range: (0.0, 1.0),
                y_percent: true,
                series: &success,
            },
        )?;
        draw_chart(
            &right,
            &Chart {
                title: "Mean return",
                x_desc: "environment steps",
                y_desc: "return per episode",
                x_max: steps,
                y_range: (lo, hi.max(lo + 1e-3)),
                y_percent: false,
                series: &returns,
            },
        )
    })
}
