//! Means with Student-t 95% intervals over seeds: the only interval the
//! experiment's report draws on (seeds are few, so the normal 1.96 would be
//! far too narrow).

/// A mean over `n` values with the half-width of its 95% t-interval
/// (`None` for fewer than two values: no spread to estimate).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub mean: f64,
    pub half_width: Option<f64>,
    pub n: usize,
}

impl Estimate {
    /// The interval's ends, or the mean twice without an interval.
    pub fn bounds(&self) -> (f64, f64) {
        let half = self.half_width.unwrap_or(0.0);
        (self.mean - half, self.mean + half)
    }
}

/// The two-sided 97.5% quantiles of Student's t for 1 to 30 degrees of freedom.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The 97.5% quantile of Student's t with `df` degrees of freedom: the table
/// up to 30, then the Cornish–Fisher expansion around the normal 1.96
/// (within 0.001 of the exact value from 31 on).
pub fn t_quantile_975(df: usize) -> f64 {
    if let Some(&t) = df.checked_sub(1).and_then(|i| T_975.get(i)) {
        return t;
    }
    let (z, d) = (1.959_964f64, df.max(1) as f64);
    let z3 = z.powi(3);
    let z5 = z.powi(5);
    z + (z3 + z) / (4.0 * d) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * d * d)
}

/// The mean of `values` with its 95% t-interval; `None` for no values.
pub fn t_interval(values: &[f64]) -> Option<Estimate> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let half_width = (n > 1).then(|| {
        let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        t_quantile_975(n - 1) * (var / n as f64).sqrt()
    });
    Some(Estimate {
        mean,
        half_width,
        n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_of_three_seeds_matches_hand_computation() {
        // 0.10, 0.20, 0.30: mean 0.20, sample sd 0.10, standard error
        // 0.10/√3 = 0.057735; t(2) = 4.303, so the half-width is 0.248433.
        let e = t_interval(&[0.10, 0.20, 0.30]).unwrap();
        assert!((e.mean - 0.20).abs() < 1e-12);
        assert!((e.half_width.unwrap() - 0.248_433).abs() < 1e-6, "{e:?}");
        assert_eq!(e.n, 3);
    }

    #[test]
    fn interval_of_five_values_matches_hand_computation() {
        // 1, 2, 3, 4, 10: mean 4, squared deviations 9+4+1+0+36 = 50, variance
        // 12.5, standard error √(12.5/5) = 1.581139; t(4) = 2.776 → 4.389241.
        let e = t_interval(&[1.0, 2.0, 3.0, 4.0, 10.0]).unwrap();
        assert!((e.mean - 4.0).abs() < 1e-12);
        assert!((e.half_width.unwrap() - 4.389_241).abs() < 1e-5, "{e:?}");
        assert_eq!(e.bounds().0, e.mean - e.half_width.unwrap());
    }

    #[test]
    fn one_value_has_no_interval_and_none_has_no_mean() {
        let e = t_interval(&[0.4]).unwrap();
        assert_eq!((e.mean, e.half_width, e.bounds()), (0.4, None, (0.4, 0.4)));
        assert_eq!(t_interval(&[]), None);
    }

    #[test]
    fn quantiles_beyond_the_table_approach_the_normal() {
        assert_eq!(t_quantile_975(2), 4.303);
        assert_eq!(t_quantile_975(30), 2.042);
        // Exact values: t(40) = 2.0211, t(120) = 1.9799.
        assert!((t_quantile_975(40) - 2.0211).abs() < 1e-3);
        assert!((t_quantile_975(120) - 1.9799).abs() < 1e-3);
        assert!(t_quantile_975(31) < t_quantile_975(30));
    }
}
