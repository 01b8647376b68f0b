//! The rate and the propagation delay in force on a link at each time of a run: its own, then
//! what the `[[events]]` set (issue 35, C). A workload's offered load and a transfer's ideal
//! FCT read these, not the rate the link was configured with.

use super::delivery_trace::DeliveryTrace;
use crate::sim::Time;
use std::sync::Arc;

/// What drives a link's transmitter from some time on.
#[derive(Debug, Clone)]
pub enum Regime {
    Fixed(u64),
    /// A delivery trace, its time 0 the time it was set.
    Trace(Arc<DeliveryTrace>),
}

impl Regime {
    /// The rate a workload's `load` is a fraction of: a fixed rate, or a trace's mean over one
    /// period (the rate its queue's utilization is relative to; a trace's rate over a shorter
    /// window is a train of 1500-byte opportunities, no rate at all).
    pub fn nominal_bps(&self) -> u64 {
        match self {
            Regime::Fixed(r) => *r,
            Regime::Trace(t) => t.mean_rate_bps(),
        }
    }
}

/// A link's rates and delays over a run.
#[derive(Debug, Clone)]
pub struct LinkSchedule {
    /// (from, regime) in time order, the first at 0; changes at one time in the order the
    /// events are written, the last in force after it (as the events happen).
    rates: Vec<(Time, Regime)>,
    /// (from, delay) likewise.
    delays: Vec<(Time, Time)>,
}

/// The index of the entry in force at `t`: the last from at or before `t`.
fn in_force<T>(v: &[(Time, T)], t: Time) -> usize {
    v.partition_point(|e| e.0 <= t).saturating_sub(1)
}

impl LinkSchedule {
    /// A link that keeps its configured rate and delay.
    pub fn new(rate_bps: u64, delay: Time) -> Self {
        LinkSchedule {
            rates: vec![(0, Regime::Fixed(rate_bps))],
            delays: vec![(0, delay)],
        }
    }

    /// Adds a change of rate at `at`. Changes are kept in time order; one at the same time as
    /// another goes after it (events at the same time happen in the order written).
    pub fn set_rate(&mut self, at: Time, regime: Regime) {
        let i = self.rates.partition_point(|e| e.0 <= at);
        self.rates.insert(i, (at, regime));
    }

    /// Adds a change of delay at `at`, as [`Self::set_rate`].
    pub fn set_delay(&mut self, at: Time, delay: Time) {
        let i = self.delays.partition_point(|e| e.0 <= at);
        self.delays.insert(i, (at, delay));
    }

    /// (from, delay) in time order, the first at 0.
    pub fn delays(&self) -> &[(Time, Time)] {
        &self.delays
    }

    /// Whether nothing changes the link during the run.
    pub fn is_constant(&self) -> bool {
        self.rates.len() == 1 && self.delays.len() == 1
    }

    /// The regime in force at `t`, and since when.
    pub fn regime_at(&self, t: Time) -> (Time, &Regime) {
        let (from, r) = &self.rates[in_force(&self.rates, t)];
        (*from, r)
    }

    /// The regime in force just before `at`, when a change happens at `at` (a transmission
    /// that starts at that instant may meet either, as events and transmissions at one time
    /// are ordered by when they were scheduled).
    pub fn regime_before(&self, at: Time) -> Option<(Time, &Regime)> {
        let i = self.rates.partition_point(|e| e.0 < at);
        let changes_at = self.rates.get(i).is_some_and(|e| e.0 == at);
        (changes_at && i > 0).then(|| {
            let (from, r) = &self.rates[i - 1];
            (*from, r)
        })
    }

    /// The time of the first change of rate after `t` (strictly), if any.
    pub fn next_rate_change(&self, t: Time) -> Option<Time> {
        self.rates
            .get(self.rates.partition_point(|e| e.0 <= t))
            .map(|e| e.0)
    }

    /// The smallest propagation delay a packet that ends its transmission at `t` may get: the
    /// delay in force then, or the one before if it changes at `t`.
    pub fn min_delay_at(&self, t: Time) -> Time {
        let now = self.delays[in_force(&self.delays, t)].1;
        let i = self.delays.partition_point(|e| e.0 < t);
        match i {
            0 => now,
            _ if self.delays.get(i).is_some_and(|e| e.0 == t) => now.min(self.delays[i - 1].1),
            _ => now,
        }
    }

    /// The fixed rate and the delay in force at `t`, if the rate is fixed then.
    pub fn fixed_at(&self, t: Time) -> Option<(u64, Time)> {
        match self.regime_at(t).1 {
            Regime::Fixed(r) => Some((*r, self.delays[in_force(&self.delays, t)].1)),
            Regime::Trace(_) => None,
        }
    }

    /// Whether a rate or a delay changes in [a, b].
    pub fn changes_within(&self, a: Time, b: Time) -> bool {
        let within = |t: Time| a <= t && t <= b;
        self.rates[1..].iter().any(|e| within(e.0)) || self.delays[1..].iter().any(|e| within(e.0))
    }

    /// The rate a workload's `load` is a fraction of, from each change on: (from, bits/s), the
    /// first from 0, one entry per time (the last change at a time is the one in force).
    pub fn nominal_rates(&self) -> Vec<(Time, u64)> {
        let mut out: Vec<(Time, u64)> = vec![];
        for (t, r) in &self.rates {
            if out.last().is_some_and(|e| e.0 == *t) {
                out.pop();
            }
            out.push((*t, r.nominal_bps()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_change_at_or_before_a_time_is_in_force() {
        let mut s = LinkSchedule::new(10, 5);
        s.set_rate(100, Regime::Fixed(20));
        s.set_rate(50, Regime::Fixed(30));
        s.set_rate(100, Regime::Fixed(40));
        s.set_delay(70, 1);
        assert!(!s.is_constant());
        assert_eq!(s.fixed_at(49), Some((10, 5)));
        assert_eq!(s.fixed_at(50), Some((30, 5)));
        assert_eq!(s.fixed_at(100), Some((40, 1)));
        assert!(matches!(
            s.regime_before(100),
            Some((50, Regime::Fixed(30)))
        ));
        assert!(s.regime_before(99).is_none());
        assert_eq!(s.next_rate_change(50), Some(100));
        assert_eq!(s.next_rate_change(100), None);
        assert_eq!((s.min_delay_at(70), s.min_delay_at(69)), (1, 5));
        assert!(s.changes_within(60, 70) && !s.changes_within(71, 99));
        assert_eq!(s.nominal_rates(), [(0, 10), (50, 30), (100, 40)]);
    }
}
