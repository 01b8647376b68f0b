//! Independent random streams, one per component.
//!
//! Each stream is a xoshiro256++ generator seeded from (master seed, component kind, component
//! index) through SplitMix64 mixing, so adding a flow or a link does not reshuffle the random
//! numbers any other component sees, and a run is reproducible from its seed alone.

use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Which family of components a stream belongs to; part of the stream's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum StreamKind {
    LinkLoss = 1,
    Queue = 2,
    Agent = 3,
    FlowStart = 4,
    /// A workload entry's arrival times, sizes and pairs (`transport/workload.rs`), each its
    /// own stream so that changing the sizes leaves the arrival times as they were.
    WorkloadArrivals = 5,
    WorkloadSizes = 6,
    WorkloadPairs = 7,
    /// A link's netem jitter and slot delays (`link/netem.rs`).
    LinkNetem = 8,
    /// A Wi-Fi link's backoffs (`link/wifi.rs`).
    LinkWifi = 9,
    /// A DOCSIS upstream's grant offsets and grant variation (`link/docsis.rs`).
    LinkDocsis = 10,
}

#[derive(Debug, Clone)]
pub struct RngStream(Xoshiro256PlusPlus);

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl RngStream {
    pub fn new(master_seed: u64, kind: StreamKind, index: u64) -> Self {
        let mixed = splitmix64(splitmix64(master_seed ^ splitmix64(kind as u64)) ^ index);
        RngStream(Xoshiro256PlusPlus::seed_from_u64(mixed))
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// True with probability `p` (p <= 0 never, p >= 1 always).
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && (p >= 1.0 || self.uniform() < p)
    }

    /// Exponential with the given mean, by inversion.
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - u is in (0, 1], so the logarithm is finite.
        -mean * (1.0 - self.uniform()).ln()
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_identity_same_stream() {
        let mut a = RngStream::new(7, StreamKind::Agent, 3);
        let mut b = RngStream::new(7, StreamKind::Agent, 3);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn different_components_differ() {
        let mut a = RngStream::new(7, StreamKind::Agent, 3);
        let mut b = RngStream::new(7, StreamKind::Agent, 4);
        let mut c = RngStream::new(7, StreamKind::Queue, 3);
        let x = a.next_u64();
        assert_ne!(x, b.next_u64());
        assert_ne!(x, c.next_u64());
    }

    #[test]
    fn exponential_mean_is_close() {
        let mut r = RngStream::new(1, StreamKind::Agent, 0);
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        // standard error 2/sqrt(n) ~ 0.0045; 5 sigma
        assert!((m - 2.0).abs() < 0.025, "mean {m}");
    }
}
