//! Time-weighted means of piecewise-constant quantities that change at the same instants (a
//! queue's length in packets and in bytes), kept on one clock.

use crate::sim::Time;

/// `N` quantities, each with the integral of its value over time since `start`. One clock for
/// all of them: a queue updates both lengths on every packet, and one struct of 48 bytes is
/// one cache line to touch where two averages of 32 bytes each were often two.
#[derive(Debug, Clone)]
pub struct TimeAverage<const N: usize> {
    since: Time,
    start: Time,
    value: [f64; N],
    integral: [f64; N],
}

impl<const N: usize> Default for TimeAverage<N> {
    fn default() -> Self {
        Self::new(0)
    }
}

impl<const N: usize> TimeAverage<N> {
    pub fn new(start: Time) -> Self {
        TimeAverage {
            since: start,
            start,
            value: [0.0; N],
            integral: [0.0; N],
        }
    }

    /// The quantities change to `values` at `now`.
    #[inline]
    pub fn set(&mut self, now: Time, values: [f64; N]) {
        let held = (now - self.since) as f64;
        for i in 0..N {
            self.integral[i] += self.value[i] * held;
        }
        self.value = values;
        self.since = now;
    }

    /// Restarts the measurement at `now`, keeping the current values.
    pub fn restart(&mut self, now: Time) {
        self.integral = [0.0; N];
        self.since = now;
        self.start = now;
    }

    /// Mean of quantity `i` over [start, now].
    pub fn mean(&self, now: Time, i: usize) -> f64 {
        let span = now.saturating_sub(self.start);
        if span == 0 {
            return self.value[i];
        }
        (self.integral[i] + self.value[i] * (now - self.since) as f64) / span as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_by_duration() {
        let mut a = TimeAverage::<2>::new(0);
        a.set(0, [2.0, 20.0]);
        a.set(10, [4.0, 40.0]); // 2 and 20 for 10 ns
        assert_eq!(a.mean(40, 0), (2.0 * 10.0 + 4.0 * 30.0) / 40.0);
        assert_eq!(a.mean(40, 1), (20.0 * 10.0 + 40.0 * 30.0) / 40.0);
        a.restart(40);
        assert_eq!(a.mean(50, 0), 4.0);
        assert_eq!(a.mean(50, 1), 40.0);
    }
}
