//! Delays in a log-linear histogram (HDR style): percentiles within 1/64 relative error, exact
//! mean. Only the span of buckets between the smallest and largest delay recorded is kept (a
//! few hundred bytes on a lightly loaded access link, against 30 KB for every bucket a 64-bit
//! delay can fall in), so that a network of 100,000 links does not carry gigabytes of empty
//! buckets.

use crate::sim::Time;

const SUB_BITS: u32 = 6; // 64 linear sub-buckets per power of two
const SUB: u64 = 1 << SUB_BITS;

#[derive(Debug, Clone, Default)]
pub struct DelayHistogram {
    /// Counts of buckets `first`, `first + 1`, ...; empty until the first delay.
    counts: Vec<u64>,
    first: usize,
    n: u64,
    sum: f64,
    max: Time,
}

/// Buckets a 64-bit delay can fall in.
pub const BUCKETS: usize = (64 - SUB_BITS as usize + 1) * SUB as usize;

fn bucket(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let exp = 63 - v.leading_zeros() - SUB_BITS + 1; // >= 1
    let sub = (v >> (exp - 1)) - SUB; // in [0, SUB)
    (exp as u64 * SUB + sub) as usize
}

/// Lower edge of a bucket.
fn bucket_low(b: usize) -> u64 {
    let b = b as u64;
    if b < SUB {
        return b;
    }
    let exp = b / SUB;
    let sub = b % SUB;
    (SUB + sub) << (exp - 1)
}

impl DelayHistogram {
    /// Memory of a histogram's buckets at most (every bucket between 0 and 2^64 ns).
    pub const MAX_HEAP_BYTES: usize = BUCKETS * std::mem::size_of::<u64>();

    // Always: the simulator's two event loops (with and without taps, events and probes,
    // issue 36 item 4) both call it, and inlined once it was, when there was one loop.
    #[inline(always)]
    pub fn record(&mut self, d: Time) {
        let b = bucket(d);
        if self.counts.is_empty() {
            self.first = b;
        } else if b < self.first {
            // Below the span: widen it downwards (at most once per bucket, so rarely).
            let extra = self.first - b;
            self.counts.splice(0..0, std::iter::repeat_n(0, extra));
            self.first = b;
        }
        let i = b - self.first;
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.n += 1;
        self.sum += d as f64;
        self.max = self.max.max(d);
    }

    /// Bytes the buckets take.
    pub fn heap_bytes(&self) -> usize {
        self.counts.capacity() * std::mem::size_of::<u64>()
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.sum / self.n as f64
        }
    }

    pub fn max(&self) -> Time {
        self.max
    }

    /// The q-quantile (q in [0, 1]), as the midpoint of its bucket.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            let b = self.first + i;
            seen += c;
            if seen >= rank {
                let lo = bucket_low(b) as f64;
                let hi = bucket_low(b + 1) as f64;
                return ((lo + hi) / 2.0).min(self.max as f64);
            }
        }
        self.max as f64
    }

    /// The non-empty buckets in increasing order: (lower edge, upper edge, count), edges in
    /// ns; a delay d of the bucket has lower <= d < upper.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| {
                let b = self.first + i;
                (bucket_low(b), bucket_low(b + 1), c)
            })
    }

    /// Forgets every delay, keeping the buckets' memory for what comes next.
    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.n = 0;
        self.sum = 0.0;
        self.max = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotone_and_tight() {
        let mut prev = 0;
        for v in [
            0u64,
            1,
            63,
            64,
            65,
            127,
            128,
            1000,
            1 << 20,
            123_456_789,
            u64::MAX >> 1,
        ] {
            let b = bucket(v);
            assert!(b >= prev);
            prev = b;
            assert!(bucket_low(b) <= v && v < bucket_low(b + 1).max(v + 1));
            let width = bucket_low(b + 1) - bucket_low(b);
            assert!(
                width as f64 <= (v as f64 / 32.0).max(1.0),
                "v {v} width {width}"
            );
        }
    }

    #[test]
    fn buckets_hold_every_delay_between_their_edges() {
        let mut h = DelayHistogram::default();
        let delays = [0u64, 5, 5, 700, 123_456, 123_457, 9_000_000];
        for &d in &delays {
            h.record(d);
        }
        let b: Vec<_> = h.buckets().collect();
        assert_eq!(b.iter().map(|x| x.2).sum::<u64>(), delays.len() as u64);
        assert!(b.windows(2).all(|w| w[0].1 <= w[1].0));
        for &d in &delays {
            assert!(b.iter().any(|&(lo, hi, _)| lo <= d && d < hi), "{d}");
        }
        assert_eq!(b[1], (5, 6, 2));
    }

    #[test]
    fn quantiles_of_a_uniform_spread() {
        let mut h = DelayHistogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        assert!((h.mean() - 50_000_500.0).abs() < 1.0);
        let med = h.quantile(0.5);
        assert!((med / 50_000_000.0 - 1.0).abs() < 1.0 / 64.0, "{med}");
        let p99 = h.quantile(0.99);
        assert!((p99 / 99_000_000.0 - 1.0).abs() < 1.0 / 64.0, "{p99}");
    }

    #[test]
    fn the_span_grows_both_ways_and_quantiles_match_a_full_histogram() {
        // The same delays in a different order: first a middle one, then smaller and larger.
        let delays: Vec<u64> = (0..5000u64)
            .map(|i| (i * 7919) % 3_000_000 + 1000)
            .collect();
        let mut spanned = DelayHistogram::default();
        for &d in &delays {
            spanned.record(d);
        }
        let mut sorted = delays.clone();
        sorted.sort_unstable();
        let mut ascending = DelayHistogram::default();
        for &d in &sorted {
            ascending.record(d);
        }
        for q in [0.0, 0.01, 0.5, 0.9, 0.99, 1.0] {
            assert_eq!(spanned.quantile(q), ascending.quantile(q), "q {q}");
        }
        assert_eq!(spanned.first, bucket(1000));
        assert_eq!(spanned.counts.len(), bucket(3_000_999) - bucket(1000) + 1);
        assert!(spanned.heap_bytes() < DelayHistogram::MAX_HEAP_BYTES / 4);
        assert_eq!(DelayHistogram::default().heap_bytes(), 0);
    }
}
