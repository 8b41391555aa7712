//! The experiment's figure: every condition's training success against
//! environment steps in one chart, the mean over seeds as a line over a
//! min–max band, coloured so that raw and verified, terminal and dense read
//! apart.

use super::curves::{mean_curve, CURVE_BINS};
use super::Condition;
use crate::plot::{draw_chart, Chart, PlotError, Series};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// The figure's size in pixels.
pub const SIZE: (u32, u32) = (960, 600);

/// A condition's colour: the paper's four in warm (raw) and cool (verified)
/// pairs, light for terminal and dark for dense; any other from a palette.
fn color(name: &str, index: usize) -> RGBColor {
    const PALETTE: [RGBColor; 6] = [
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
    ];
    match name {
        "raw-terminal" => RGBColor(255, 127, 14),
        "raw-dense" => RGBColor(214, 39, 40),
        "verified-terminal" => RGBColor(31, 119, 180),
        "verified-dense" => RGBColor(44, 160, 44),
        _ => PALETTE[index % PALETTE.len()],
    }
}

/// One series a condition: its curve on the steps axis all runs share.
pub fn series(conditions: &[Condition]) -> Vec<Series> {
    let x_max = x_max(conditions);
    conditions
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let runs: Vec<&[_]> = c.runs.iter().map(|r| r.updates.as_slice()).collect();
            let curve = mean_curve(&runs, x_max, CURVE_BINS);
            Series {
                label: match c.runs.len() {
                    1 => format!("{} (1 seed)", c.name),
                    n => format!("{} ({n} seeds)", c.name),
                },
                color: color(&c.name, i),
                points: curve.iter().map(|p| (p.steps, p.mean)).collect(),
                band: curve.iter().map(|p| (p.steps, p.low, p.high)).collect(),
            }
        })
        .collect()
}

/// The most steps any run reached.
fn x_max(conditions: &[Condition]) -> u64 {
    conditions
        .iter()
        .flat_map(|c| &c.runs)
        .filter_map(|r| r.updates.last())
        .map(|u| u.env_steps)
        .max()
        .unwrap_or(1)
}

/// The y axis' top: the highest band with a margin, rounded up to a tenth,
/// so that curves low on the scale stay readable; at most 100%.
fn y_top(series: &[Series]) -> f64 {
    let highest = series
        .iter()
        .flat_map(|s| &s.band)
        .map(|&(_, _, high)| high)
        .fold(0.0f64, f64::max);
    (((highest + 0.05) * 10.0).ceil() / 10.0).clamp(0.1, 1.0)
}

/// Draws the learning curves into `area`.
pub fn paint<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    conditions: &[Condition],
) -> Result<(), PlotError> {
    let series = series(conditions);
    draw_chart(
        area,
        &Chart {
            title: "Training success (mean over seeds, band: min to max)",
            x_desc: "environment steps",
            y_desc: "success rate of training episodes",
            x_max: x_max(conditions) as f64,
            y_range: (0.0, y_top(&series)),
            y_percent: true,
            series: &series,
        },
    )
}

/// Writes the figure as a PNG.
pub fn draw(path: &Path, conditions: &[Condition]) -> Result<(), PlotError> {
    crate::plot::png(path, SIZE, |area| paint(area, conditions))
}

#[cfg(test)]
mod tests {
    use super::super::{group, Run, UpdatePoint};
    use super::*;

    fn run(name: &str, rates: &[f64]) -> Run {
        Run {
            name: name.into(),
            updates: rates
                .iter()
                .enumerate()
                .map(|(k, &r)| UpdatePoint {
                    env_steps: 1000 * (k as u64 + 1),
                    episodes: 10,
                    success_rate: r,
                })
                .collect(),
            test: None,
            heldout: None,
        }
    }

    #[test]
    fn each_condition_is_one_labelled_series_over_its_seeds() {
        let conditions = group(vec![
            run("verified-dense-0", &[0.2, 0.4]),
            run("verified-dense-1", &[0.4, 0.8]),
            run("raw-terminal-0", &[0.1, 0.1]),
        ]);
        let series = series(&conditions);
        assert_eq!(series.len(), 2);
        assert_eq!(series[0].label, "raw-terminal (1 seed)");
        assert_eq!(series[1].label, "verified-dense (2 seeds)");
        assert_eq!(series[1].color, RGBColor(44, 160, 44));
        // Two updates over 2,000 steps: bins 24 and 49 of 50 hold them.
        let last = series[1].points.last().unwrap();
        assert!((last.1 - 0.6).abs() < 1e-12, "{last:?}");
        assert_eq!(series[1].band.last().map(|b| (b.1, b.2)), Some((0.4, 0.8)));
        // 0.8 and a margin of 0.05, rounded up to a tenth.
        assert!((y_top(&series) - 0.9).abs() < 1e-12);
        assert_eq!(y_top(&[]), 0.1);
    }

    #[test]
    fn the_figure_renders_its_lines_in_their_colours() {
        let conditions = group(vec![
            run("raw-dense-0", &[0.1, 0.2, 0.3, 0.4]),
            run("verified-dense-0", &[0.3, 0.5, 0.7, 0.9]),
        ]);
        let rgb = crate::plot::rgb(SIZE, |area| paint(area, &conditions)).unwrap();
        let count = |c: RGBColor| {
            rgb.chunks(3)
                .filter(|p| (p[0], p[1], p[2]) == (c.0, c.1, c.2))
                .count()
        };
        assert!(count(RGBColor(214, 39, 40)) > 100);
        assert!(count(RGBColor(44, 160, 44)) > 100);
        assert_eq!(count(RGBColor(31, 119, 180)), 0);
    }
}
