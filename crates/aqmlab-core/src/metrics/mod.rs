//! Measurement: per-queue and per-flow counters, time-weighted averages, delay histograms and
//! sampled time series. Counters restart at the end of the warm-up period.

pub mod delay_histogram;
pub mod flow_stats;
pub mod queue_stats;
pub mod time_average;
pub mod timeseries;

pub use delay_histogram::DelayHistogram;
pub use flow_stats::FlowStats;
pub use queue_stats::QueueStats;
pub use time_average::TimeAverage;
pub use timeseries::TimeSeries;

/// Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all equal, 1/n when one takes all.
pub fn jain_index(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if n == 0.0 || s2 == 0.0 {
        return f64::NAN;
    }
    s * s / (n * s2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_extremes() {
        assert_eq!(jain_index(&[3.0, 3.0, 3.0]), 1.0);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert!(jain_index(&[]).is_nan());
    }
}
