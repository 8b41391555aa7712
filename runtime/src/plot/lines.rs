//! One line chart: a title, axes with ticks and descriptions, every series
//! as a line (over its shaded band, when it has one) and a legend naming
//! them. The x axis counts environment steps, labelled compactly (`250k`,
//! `1.5M`).

use super::{draw_error, PlotError};
use plotters::coord::Shift;
use plotters::prelude::*;

/// A chart's text and ranges, and what it shows.
pub struct Chart<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    /// The x axis runs from 0 to here.
    pub x_max: f64,
    /// The y axis range.
    pub y_range: (f64, f64),
    /// Label y ticks as percentages (0.3 → `30%`).
    pub y_percent: bool,
    pub series: &'a [Series],
}

/// One labelled line.
pub struct Series {
    pub label: String,
    pub color: RGBColor,
    pub points: Vec<(f64, f64)>,
    /// `(x, low, high)`: shaded behind the line; empty for none.
    pub band: Vec<(f64, f64, f64)>,
}

/// Steps as a tick label: `0`, `500`, `250k`, `1.5M`.
pub fn steps_label(x: f64) -> String {
    let magnitude = x.abs();
    if magnitude >= 1e6 {
        format!("{}M", trim(x / 1e6))
    } else if magnitude >= 1e3 {
        format!("{}k", trim(x / 1e3))
    } else {
        trim(x)
    }
}

/// At most one decimal, none when it is zero.
fn trim(x: f64) -> String {
    let s = format!("{x:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

/// Draws `chart` filling `area`.
pub fn draw_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart<'_>,
) -> Result<(), PlotError> {
    let (lo, hi) = chart.y_range;
    let hi = if hi > lo { hi } else { lo + 1.0 };
    let x_max = if chart.x_max > 0.0 { chart.x_max } else { 1.0 };
    let mut plot = ChartBuilder::on(area)
        .caption(chart.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..x_max, lo..hi)
        .map_err(draw_error)?;
    let y_label = |y: &f64| {
        if chart.y_percent {
            format!("{:.0}%", 100.0 * y)
        } else {
            format!("{y:.2}")
        }
    };
    plot.configure_mesh()
        .x_labels(6)
        .y_labels(6)
        .x_desc(chart.x_desc)
        .y_desc(chart.y_desc)
        .x_label_formatter(&|x| steps_label(*x))
        .y_label_formatter(&y_label)
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(BLACK.mix(0.04))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(draw_error)?;
    for series in chart.series.iter().filter(|s| !s.band.is_empty()) {
        let outline: Vec<(f64, f64)> = series
            .band
            .iter()
            .map(|&(x, _, high)| (x, high))
            .chain(series.band.iter().rev().map(|&(x, low, _)| (x, low)))
            .collect();
        plot.draw_series(std::iter::once(Polygon::new(
            outline,
            series.color.mix(0.18).filled(),
        )))
        .map_err(draw_error)?;
    }
    for series in chart.series {
        let color = series.color;
        plot.draw_series(LineSeries::new(
            series.points.iter().copied(),
            color.stroke_width(2),
        ))
        .map_err(draw_error)?
        .label(series.label.as_str())
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    plot.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(draw_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: (u32, u32) = (640, 400);

    fn series() -> Vec<Series> {
        vec![Series {
            label: "run".into(),
            color: BLUE,
            points: vec![(0.0, 0.1), (500.0, 0.4), (1000.0, 0.7)],
            band: vec![(0.0, 0.0, 0.2), (500.0, 0.3, 0.5), (1000.0, 0.6, 0.8)],
        }]
    }

    /// The chart drawn with the given title and axis descriptions.
    fn render(title: &str, x_desc: &str, y_desc: &str) -> Vec<u8> {
        let series = series();
        let chart = Chart {
            title,
            x_desc,
            y_desc,
            x_max: 1000.0,
            y_range: (0.0, 1.0),
            y_percent: true,
            series: &series,
        };
        super::super::rgb(SIZE, |area| draw_chart(area, &chart)).expect("draws")
    }

    /// Pixels darker than light grey within the rectangle `[x0, x1) × [y0, y1)`.
    fn dark_pixels(rgb: &[u8], (x0, x1): (u32, u32), (y0, y1): (u32, u32)) -> usize {
        let mut n = 0;
        for y in y0..y1 {
            for x in x0..x1 {
                let i = 3 * (y * SIZE.0 + x) as usize;
                if rgb[i..i + 3].iter().all(|&c| c < 128) {
                    n += 1;
                }
            }
        }
        n
    }

    // The regions of the 640×400 chart: the caption sits under the 12-pixel
    // margin, the x description at the bottom of the 48-pixel label area,
    // the y description at the left edge of the 64-pixel one.
    const TITLE: ((u32, u32), (u32, u32)) = ((160, 480), (12, 38));
    const X_DESC: ((u32, u32), (u32, u32)) = ((200, 520), (362, 388));
    const Y_DESC: ((u32, u32), (u32, u32)) = ((12, 32), (80, 330));

    #[test]
    fn title_and_axis_descriptions_draw_text_where_they_belong() {
        let with = render("Learning curve", "environment steps", "success rate");
        let without = render("", "", "");
        for (name, (xs, ys)) in [("title", TITLE), ("x axis", X_DESC), ("y axis", Y_DESC)] {
            let text = dark_pixels(&with, xs, ys);
            assert!(text > 40, "{name}: only {text} dark pixels");
            assert_eq!(dark_pixels(&without, xs, ys), 0, "{name} without text");
        }
    }

    #[test]
    fn tick_labels_are_drawn_beside_both_axes() {
        let rgb = render("", "", "");
        // Under the plot (x ticks), and left of it (y ticks).
        assert!(dark_pixels(&rgb, (80, 620), (344, 362)) > 40);
        assert!(dark_pixels(&rgb, (32, 74), (20, 350)) > 40);
    }

    #[test]
    fn steps_read_compactly() {
        assert_eq!(steps_label(0.0), "0");
        assert_eq!(steps_label(500.0), "500");
        assert_eq!(steps_label(250_000.0), "250k");
        assert_eq!(steps_label(1_500_000.0), "1.5M");
        assert_eq!(steps_label(1_000_000.0), "1M");
    }
}
