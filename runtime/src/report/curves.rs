//! Training success over a run: at the end (the last updates' episodes) and
//! as a learning curve, binned by environment steps so that runs whose
//! updates fall at different steps average, then combined over seeds into a
//! mean with a min–max band.

use super::UpdatePoint;

/// Updates counted as "the end" of a run.
pub const END_UPDATES: usize = 5;

/// Bins of a learning curve.
pub const CURVE_BINS: usize = 50;

/// The success rate over the episodes of `updates` (each update's rate
/// weighted by its episodes); `None` without episodes.
pub fn pooled_success<'a>(updates: impl IntoIterator<Item = &'a UpdatePoint>) -> Option<f64> {
    let (wins, episodes) = updates.into_iter().fold((0.0, 0usize), |(w, n), u| {
        (w + u.success_rate * u.episodes as f64, n + u.episodes)
    });
    (episodes > 0).then(|| wins / episodes as f64)
}

/// Training success at the end: over the episodes of the last
/// [`END_UPDATES`] updates.
pub fn end_success(updates: &[UpdatePoint]) -> Option<f64> {
    pooled_success(&updates[updates.len().saturating_sub(END_UPDATES)..])
}

/// A run's success in each of `bins` equal spans of `0..=x_max` steps (an
/// update belongs to the span its step count ends in); `None` where no
/// episode ended.
pub fn binned(updates: &[UpdatePoint], x_max: u64, bins: usize) -> Vec<Option<f64>> {
    let width = (x_max.max(1) as f64) / bins.max(1) as f64;
    let bin_of = |u: &UpdatePoint| {
        let k = (u.env_steps as f64 / width).ceil() as usize;
        k.saturating_sub(1).min(bins.saturating_sub(1))
    };
    (0..bins)
        .map(|k| pooled_success(updates.iter().filter(|u| bin_of(u) == k)))
        .collect()
}

/// One point of a curve over seeds: the bin's centre, the mean over the
/// runs with episodes there, and their least and greatest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BandPoint {
    pub steps: f64,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

/// The learning curve of a condition's runs on a common `0..=x_max` axis.
pub fn mean_curve(runs: &[&[UpdatePoint]], x_max: u64, bins: usize) -> Vec<BandPoint> {
    let per_run: Vec<Vec<Option<f64>>> = runs.iter().map(|u| binned(u, x_max, bins)).collect();
    let width = x_max.max(1) as f64 / bins.max(1) as f64;
    (0..bins)
        .filter_map(|k| {
            let values: Vec<f64> = per_run.iter().filter_map(|r| r[k]).collect();
            let first = *values.first()?;
            Some(BandPoint {
                steps: width * (k as f64 + 0.5),
                mean: values.iter().sum::<f64>() / values.len() as f64,
                low: values.iter().copied().fold(first, f64::min),
                high: values.iter().copied().fold(first, f64::max),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(env_steps: u64, episodes: usize, success_rate: f64) -> UpdatePoint {
        UpdatePoint {
            env_steps,
            episodes,
            success_rate,
        }
    }

    #[test]
    fn end_success_weights_the_last_five_updates_by_episodes() {
        // The first update falls outside the last five; of the rest,
        // (0.5·2 + 1.0·6 + 0·0 + 0.25·4 + 0·8) / 20 = 8 / 20.
        let run = [
            u(1, 10, 1.0),
            u(2, 2, 0.5),
            u(3, 6, 1.0),
            u(4, 0, 0.0),
            u(5, 4, 0.25),
            u(6, 8, 0.0),
        ];
        assert_eq!(end_success(&run), Some(0.4));
        assert_eq!(end_success(&[u(1, 0, 0.0)]), None);
        assert_eq!(end_success(&[]), None);
    }

    #[test]
    fn updates_fall_into_the_span_their_steps_end_in() {
        // Spans of 100 steps: 100 ends the first span, 101 starts the second.
        let run = [
            u(50, 1, 1.0),
            u(100, 3, 0.0),
            u(101, 2, 0.5),
            u(400, 1, 1.0),
        ];
        assert_eq!(
            binned(&run, 400, 4),
            vec![Some(0.25), Some(0.5), None, Some(1.0)]
        );
    }

    #[test]
    fn curves_average_over_the_seeds_with_episodes_in_a_bin() {
        let a = [u(100, 1, 0.2), u(200, 1, 0.6)];
        let b = [u(100, 1, 0.4), u(200, 0, 0.0)];
        let curve = mean_curve(&[&a, &b], 200, 2);
        assert_eq!(curve.len(), 2);
        assert_eq!(
            (curve[0].steps, curve[0].low, curve[0].high),
            (50.0, 0.2, 0.4)
        );
        assert!((curve[0].mean - 0.3).abs() < 1e-12);
        // Only the first seed ended episodes in the second bin.
        assert_eq!(
            curve[1],
            BandPoint {
                steps: 150.0,
                mean: 0.6,
                low: 0.6,
                high: 0.6
            }
        );
        assert!(mean_curve(&[], 200, 2).is_empty());
    }
}
