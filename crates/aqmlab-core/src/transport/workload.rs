//! A workload's arrivals, drawn at build time from the seed (issue 27, item 3): a Poisson
//! process of finite TCP transfers, each with a size and a (sender, receiver) pair. The
//! specification is read in `scenario/workload.rs` into the `Workload` defined here (the size
//! distribution in `size_distribution.rs`); each arrival becomes a flow of its own
//! (a TCP sender with a `size`, as a `kind = "tcp"` flow with `size`).

pub use super::size_distribution::SizeDistribution;
use crate::sim::{time, RngStream, StreamKind, Time};
use crate::units::limits::MAX_TRANSFER_BYTES;
use serde::{Deserialize, Serialize};

/// How arrival k is given its sender and receiver, among the pairs `from` and `to` form
/// (paired one to one, or one to many, as for every flow kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairChoice {
    /// Arrival k uses pair k mod the number of pairs.
    #[default]
    RoundRobin,
    /// Each arrival draws a pair uniformly at random.
    Random,
}

/// How arrivals are paced.
#[derive(Debug, Clone, PartialEq)]
pub enum ArrivalRate {
    PerSecond(f64),
    /// A fraction of the named link's rate.
    Load {
        load: f64,
        link: String,
    },
}

/// A validated workload entry: what its arrivals are drawn from (read from its table,
/// `scenario::workload::WorkloadFile`, by `Workload::parse` in `scenario/workload.rs`).
#[derive(Debug, Clone)]
pub struct Workload {
    pub rate: ArrivalRate,
    pub sizes: SizeDistribution,
    pub max_size: Option<u64>,
    pub max_flows: Option<u64>,
    /// How arrivals are given their (sender, receiver) pair (the table's `pairs`).
    pub pairs: PairChoice,
}

impl Workload {
    /// The largest size drawn, bytes: `max_size`, or the largest a run represents.
    pub fn size_cap(&self) -> u64 {
        self.max_size.unwrap_or(MAX_TRANSFER_BYTES)
    }

    /// The mean payload size the generator draws, bytes: of the distribution clipped at
    /// [`Self::size_cap`], before rounding up to whole bytes (which adds less than a byte).
    /// Without `max_size`, the distribution's own mean where the clip at the largest size
    /// changes it by less than a millionth: the closed form without a cap is exact where the
    /// clipped lognormal's carries the 1.2e-7 error of its erfc, and a run that draws nothing
    /// near the limit gets the arrivals it got before the limit existed.
    pub fn mean_size(&self) -> f64 {
        let drawn = self.sizes.mean_clipped(Some(self.size_cap() as f64));
        if self.max_size.is_some() {
            return drawn;
        }
        let own = self.sizes.mean_clipped(None);
        if own.is_finite() && (own - drawn).abs() <= 1e-6 * own {
            own
        } else {
            drawn
        }
    }

    /// Arrivals per second over the run, (from, rate): with `load`, from each change of the
    /// load link's rate in force (`link_rates`, (from, bits/s), the first at 0); with `rate`,
    /// that rate from 0.
    pub fn arrival_rates(
        &self,
        link_rates: &[(crate::sim::Time, u64)],
    ) -> Vec<(crate::sim::Time, f64)> {
        match &self.rate {
            ArrivalRate::PerSecond(r) => vec![(0, *r)],
            ArrivalRate::Load { .. } => link_rates
                .iter()
                .map(|&(t, bps)| (t, self.arrivals_per_second(Some(bps))))
                .collect(),
        }
    }

    /// Arrivals per second, given the rate of the link `load` refers to.
    pub fn arrivals_per_second(&self, link_rate_bps: Option<u64>) -> f64 {
        match &self.rate {
            ArrivalRate::PerSecond(r) => *r,
            ArrivalRate::Load { load, .. } => {
                load * link_rate_bps.unwrap_or(0) as f64 / (8.0 * self.mean_size())
            }
        }
    }
}

/// One transfer of a workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arrival {
    pub at: Time,
    /// Payload bytes, a whole number, at least 1.
    pub size_bytes: u64,
    /// Index into the entry's (sender, receiver) pairs.
    pub pair: usize,
}

/// The arrivals of workload entry `entry` in [start, end), at most `max_flows` of them: a
/// Poisson process from `start` whose rate is `rates` (per second, (from, rate) in time
/// order, the first at or before `start`: one rate, or with `load` the load link's rate in
/// force, issue 35, C), sizes drawn by inversion of the size distribution (one uniform
/// each), clipped at the workload's size cap and rounded up to whole bytes.
///
/// A rate that changes is followed by the time change that makes any Poisson process one of
/// rate 1 (Cinlar, "Introduction to Stochastic Processes", 1975, section 4.7): each gap is a
/// unit exponential of the integrated rate. The gap is drawn at the rate in force, as with
/// one rate; when it crosses a change, the integrated rate left over is spent at the rates
/// that follow. With one rate no gap crosses anything: the arrivals are those it always gave.
pub fn arrivals(
    w: &Workload,
    seed: u64,
    entry: usize,
    start: Time,
    end: Time,
    rates: &[(Time, f64)],
    n_pairs: usize,
) -> Vec<Arrival> {
    let mut gaps = RngStream::new(seed, StreamKind::WorkloadArrivals, entry as u64);
    let mut sizes = RngStream::new(seed, StreamKind::WorkloadSizes, entry as u64);
    let mut pairs = RngStream::new(seed, StreamKind::WorkloadPairs, entry as u64);
    // Never above what a run represents (`MAX_TRANSFER_BYTES`): a size saturated at
    // u64::MAX broke the result tables (issue 35, H).
    let cap = w.size_cap() as f64;
    let max_flows = w.max_flows.unwrap_or(u64::MAX);
    let mut out = vec![];
    // The rate in force at `start`, and when the next one begins.
    let mut seg = rates.partition_point(|r| r.0 <= start).saturating_sub(1);
    let next_change = |seg: usize| rates.get(seg + 1).map(|r| time::to_secs_f64(r.0));
    // Time is kept in float seconds and rounded once per arrival, so rounding does not
    // accumulate over thousands of gaps.
    let mut t_s = time::to_secs_f64(start);
    while (out.len() as u64) < max_flows {
        let mut next = t_s + gaps.exponential(1.0 / rates[seg].1);
        while let Some(b) = next_change(seg).filter(|&b| next >= b) {
            let unit_mass = (next - b) * rates[seg].1;
            seg += 1;
            next = b + unit_mass / rates[seg].1;
        }
        t_s = next;
        let at = time::from_secs_f64(t_s);
        if at >= end {
            break;
        }
        let size = w.sizes.quantile(sizes.uniform()).min(cap);
        let pair = match w.pairs {
            PairChoice::RoundRobin => out.len() % n_pairs,
            PairChoice::Random => ((pairs.uniform() * n_pairs as f64) as usize).min(n_pairs - 1),
        };
        out.push(Arrival {
            at,
            size_bytes: (size.ceil() as u64).max(1),
            pair,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workload of 1,000 arrivals per second (the `Workload` its table `{"kind":
    /// "workload", "rate": 1000.0, "sizes": ..., "flows": ..., "max_size": ..., "pairs":
    /// ...}` is read into).
    fn workload(sizes: SizeDistribution, flows: Option<u64>, max_size: Option<u64>) -> Workload {
        Workload {
            rate: ArrivalRate::PerSecond(1000.0),
            sizes,
            max_size,
            max_flows: flows,
            pairs: PairChoice::RoundRobin,
        }
    }

    #[test]
    fn arrivals_are_poisson_at_the_rate_and_deterministic() {
        let w = workload(SizeDistribution::Constant(10_000.0), None, None);
        let a = arrivals(&w, 7, 0, 0, time::from_secs_f64(20.0), &[(0, 1000.0)], 3);
        // 20,000 expected; a Poisson count's sd is sqrt(20000) = 141.
        assert!(
            (a.len() as f64 - 20_000.0).abs() < 5.0 * 141.0,
            "{}",
            a.len()
        );
        let gaps: Vec<f64> = a
            .windows(2)
            .map(|w| time::to_secs_f64(w[1].at - w[0].at))
            .collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        // Exponential gaps: mean 1 ms and coefficient of variation 1.
        assert!((mean / 1e-3 - 1.0).abs() < 0.03, "{mean}");
        assert!((var.sqrt() / mean - 1.0).abs() < 0.03);
        assert_eq!(a[..3].iter().map(|x| x.pair).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(
            a,
            arrivals(&w, 7, 0, 0, time::from_secs_f64(20.0), &[(0, 1000.0)], 3)
        );
        assert_ne!(
            a,
            arrivals(&w, 8, 0, 0, time::from_secs_f64(20.0), &[(0, 1000.0)], 3)
        );
    }

    /// Issue 35, H: however heavy the tail, no size is beyond what a run represents (they
    /// saturated at u64::MAX). Such a distribution is refused when read; one put in by hand
    /// shows the sampler's own bound.
    #[test]
    fn no_draw_is_beyond_the_largest_transfer() {
        let mut w = workload(SizeDistribution::Constant(1000.0), Some(20_000), None);
        w.sizes = SizeDistribution::Pareto {
            shape: 0.02,
            scale: 1000.0,
        };
        let a = arrivals(&w, 3, 0, 0, Time::MAX, &[(0, 1000.0)], 1);
        let limit = crate::units::limits::MAX_TRANSFER_BYTES;
        assert!(a.iter().all(|x| x.size_bytes <= limit));
        assert!(a.iter().filter(|x| x.size_bytes == limit).count() > 5000);
    }

    /// A rate that changes: the arrivals in each span are its integrated rate (the same
    /// stream gives the arrivals of one rate, up to the first change, unchanged).
    #[test]
    fn arrivals_follow_a_rate_that_changes() {
        let w = workload(SizeDistribution::Constant(10_000.0), None, None);
        let s = time::from_secs_f64;
        let rates = [(0, 1000.0), (s(10.0), 100.0), (s(15.0), 4000.0)];
        let a = arrivals(&w, 5, 0, 0, s(20.0), &rates, 1);
        let count =
            |lo: f64, hi: f64| a.iter().filter(|x| x.at >= s(lo) && x.at < s(hi)).count() as f64;
        // 10,000 (sd 100), 500 (sd 22), 20,000 (sd 141).
        assert!((count(0.0, 10.0) - 10_000.0).abs() < 500.0);
        assert!((count(10.0, 15.0) - 500.0).abs() < 112.0);
        assert!((count(15.0, 20.0) - 20_000.0).abs() < 707.0);
        let one = arrivals(&w, 5, 0, 0, s(20.0), &[(0, 1000.0)], 1);
        let before = one.iter().take_while(|x| x.at < s(10.0)).count();
        assert_eq!(one[..before], a[..before]);
    }

    #[test]
    fn sizes_follow_the_distribution_and_the_cap() {
        // `mean = "100KB"`: scale = mean (shape - 1) / shape.
        let w = Workload {
            pairs: PairChoice::Random,
            ..workload(
                SizeDistribution::Pareto {
                    shape: 2.5,
                    scale: 100_000.0 * 1.5 / 2.5,
                },
                Some(200_000),
                None,
            )
        };
        let a = arrivals(&w, 1, 0, 0, Time::MAX, &[(0, 1000.0)], 4);
        assert_eq!(a.len(), 200_000);
        let mean = a.iter().map(|x| x.size_bytes as f64).sum::<f64>() / a.len() as f64;
        // Pareto 2.5: sd/mean = 1/sqrt(2.5 * 0.5) = 0.89, so the mean of 2e5 draws is
        // within 0.2 % (1 sd); allow 1 % (5 sd) plus the half byte of rounding up.
        assert!((mean / 100_000.0 - 1.0).abs() < 0.01, "{mean}");
        assert!(a.iter().all(|x| x.size_bytes >= 60_000));
        let per_pair = (0..4).map(|p| a.iter().filter(|x| x.pair == p).count());
        assert!(per_pair
            .into_iter()
            .all(|n| (n as f64 / 50_000.0 - 1.0).abs() < 0.02));

        let capped = workload(
            SizeDistribution::Pareto {
                shape: 1.2,
                scale: 1000.0,
            },
            Some(200_000),
            Some(1_000_000),
        );
        let a = arrivals(&capped, 1, 0, 0, Time::MAX, &[(0, 1000.0)], 1);
        assert!(a.iter().all(|x| x.size_bytes <= 1_000_000));
        let mean = a.iter().map(|x| x.size_bytes as f64).sum::<f64>() / a.len() as f64;
        let expected = capped.mean_size();
        assert!((mean / expected - 1.0).abs() < 0.02, "{mean} vs {expected}");
    }
}
