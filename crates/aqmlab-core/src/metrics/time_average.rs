//! The time-weighted mean of a piecewise-constant quantity (queue length).

use crate::sim::Time;

#[derive(Debug, Clone, Default)]
pub struct TimeAverage {
    value: f64,
    since: Time,
    start: Time,
    integral: f64,
}

impl TimeAverage {
    pub fn new(start: Time) -> Self {
        TimeAverage {
            value: 0.0,
            since: start,
            start,
            integral: 0.0,
        }
    }

    /// The quantity changes to `value` at `now`.
    #[inline]
    pub fn set(&mut self, now: Time, value: f64) {
        self.integral += self.value * (now - self.since) as f64;
        self.value = value;
        self.since = now;
    }

    /// Restarts the measurement at `now`, keeping the current value.
    pub fn restart(&mut self, now: Time) {
        self.integral = 0.0;
        self.since = now;
        self.start = now;
    }

    /// Mean over [start, now].
    pub fn mean(&self, now: Time) -> f64 {
        let span = now.saturating_sub(self.start);
        if span == 0 {
            return self.value;
        }
        (self.integral + self.value * (now - self.since) as f64) / span as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_by_duration() {
        let mut a = TimeAverage::new(0);
        a.set(0, 2.0);
        a.set(10, 4.0); // 2 for 10 ns
        assert_eq!(a.mean(40), (2.0 * 10.0 + 4.0 * 30.0) / 40.0);
        a.restart(40);
        assert_eq!(a.mean(50), 4.0);
    }
}
