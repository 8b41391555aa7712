//! `curve.png`: a run's success rate (left) and mean return (right) against
//! environment steps, one titled panel each with labelled axes, ticks and a
//! legend, drawn at the end of a run with [`crate::plot`] (whose embedded
//! font makes the text render on any machine). `metrics.jsonl` has the
//! numbers.

use super::update::UpdateMetrics;
use crate::plot::{self, draw_chart, Chart, PlotError, Series};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// The figure's size in pixels: two panels side by side.
const SIZE: (u32, u32) = (1200, 480);

/// Draws `history` into a PNG at `path`.
pub fn draw(path: &Path, history: &[UpdateMetrics]) -> Result<(), PlotError> {
    plot::png(path, SIZE, |root| paint(root, history))
}

/// Draws `history` into `root`: success on the left half, return on the right.
fn paint<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    history: &[UpdateMetrics],
) -> Result<(), PlotError> {
    let steps = history.last().map_or(1, |m| m.env_steps.max(1)) as f64;
    let success = line(history, BLUE, |m| m.success_rate);
    let returns = line(history, RED, |m| m.mean_return);
    let (lo, hi) = returns[0]
        .points
        .iter()
        .fold((0.0f64, 0.0f64), |(lo, hi), (_, r)| {
            (lo.min(*r), hi.max(*r))
        });
    let (left, right) = root.split_horizontally(root.dim_in_pixel().0 / 2);
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
}

/// One value of the updates whose rollouts ended episodes, as a line.
fn line(
    history: &[UpdateMetrics],
    color: RGBColor,
    value: fn(&UpdateMetrics) -> f64,
) -> [Series; 1] {
    [Series {
        label: "training episodes".into(),
        color,
        points: history
            .iter()
            .filter(|m| m.episodes > 0)
            .map(|m| (m.env_steps as f64, value(m)))
            .collect(),
        band: Vec::new(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_is_drawn_on_the_left_and_return_on_the_right() {
        let history: Vec<UpdateMetrics> = (1..=8)
            .map(|k| UpdateMetrics {
                update: k,
                env_steps: 1024 * k as u64,
                episodes: if k == 4 { 0 } else { 10 },
                success_rate: 0.1 * k as f64,
                mean_return: 0.05 * k as f64 - 0.1,
                ..UpdateMetrics::default()
            })
            .collect();
        let rgb = plot::rgb(SIZE, |root| paint(root, &history)).unwrap();
        // Pixels of exactly `color`, in the left and the right half.
        let count = |color: RGBColor| {
            let (mut left, mut right) = (0, 0);
            for (i, p) in rgb.chunks(3).enumerate() {
                if (p[0], p[1], p[2]) == (color.0, color.1, color.2) {
                    if (i as u32 % SIZE.0) < SIZE.0 / 2 {
                        left += 1;
                    } else {
                        right += 1;
                    }
                }
            }
            (left, right)
        };
        let (blue_left, blue_right) = count(BLUE);
        let (red_left, red_right) = count(RED);
        assert!(
            blue_left > 200 && blue_right == 0,
            "{blue_left} {blue_right}"
        );
        assert!(red_right > 200 && red_left == 0, "{red_left} {red_right}");
    }
}
