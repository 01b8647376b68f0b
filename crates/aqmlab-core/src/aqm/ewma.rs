//! The exponentially weighted moving average of the queue length that RED and its family
//! (ARED, LPF/ODA, Hybrid RED, QVARED, DSRED) share, with ns-2's idle-time correction.
//!
//! Source: Floyd & Jacobson 1993, section 4; ns-2 `queue/red.cc` (`estimator`, `enque`,
//! `deque`). While the link is idle, ns-2 pretends that m = floor(ptc * idle_time) packets
//! arrived to an empty queue, so avg decays as (1-w)^m. The idle period starts when the link
//! finishes sending its last packet and ends at the next arrival (even if that arrival is
//! dropped).
//!
//! `idle_decay = false` (RED's parameter of that name) keeps the average where it was over an
//! idle period, as Linux's RED does when it is the leaf of a classful qdisc such as htb: htb
//! dequeues a leaf only while it holds packets (`htb_dequeue_tree`, net/sched/sch_htb.c), so
//! `red_dequeue` (net/sched/sch_red.c) never finds its queue empty and never calls
//! `red_start_of_idle_period`; each arrival then moves the average by one weight step only
//! (`red_calc_qavg_no_idle_time`, include/net/red.h).

use crate::sim::{time, Time};

#[derive(Debug, Clone)]
pub struct EwmaQueueAverage {
    pub avg: f64,
    /// The EWMA weight w_q.
    pub weight: f64,
    /// Packets per second the link could send at the mean packet size: the idle-decay rate.
    pub ptc: f64,
    /// Whether an idle period decays the average (module docs); true but for RED's
    /// `idle_decay = false`.
    pub idle_decay: bool,
    idle_since: Option<Time>,
}

impl EwmaQueueAverage {
    pub fn new(weight: f64, ptc: f64) -> Self {
        // ns-2 starts idle at time 0.
        EwmaQueueAverage {
            avg: 0.0,
            weight,
            ptc,
            idle_decay: true,
            idle_since: Some(0),
        }
    }

    /// Turns the idle-time decay on or off; off, the average is never idle (module docs).
    pub fn set_idle_decay(&mut self, on: bool) {
        self.idle_decay = on;
        if !on {
            self.idle_since = None;
        }
    }

    /// Number of fictitious empty-queue arrivals accounted for the idle period ending `now`;
    /// clears the idle state.
    pub fn take_idle_arrivals(&mut self, now: Time) -> u64 {
        match self.idle_since.take() {
            Some(since) => (self.ptc * time::to_secs_f64(now.saturating_sub(since))).floor() as u64,
            None => 0,
        }
    }

    /// The standard update on an arrival that sees `q` waiting: avg <- avg (1-w)^(m+1) + w q.
    pub fn update(&mut self, now: Time, q: f64) -> f64 {
        let m = self.take_idle_arrivals(now);
        self.avg = decay(self.avg, self.weight, m + 1) + self.weight * q;
        self.avg
    }

    /// Applies the idle decay and returns avg (1-w)^m, without the arrival's own term: for
    /// variants that replace the last step (Hybrid RED's reduced update).
    pub fn decayed_for_idle(&mut self, now: Time) -> f64 {
        let m = self.take_idle_arrivals(now);
        decay(self.avg, self.weight, m)
    }

    pub fn on_link_idle(&mut self, now: Time) {
        if self.idle_decay {
            self.idle_since = Some(now);
        }
    }

    pub fn is_idle(&self) -> bool {
        self.idle_since.is_some()
    }
}

/// avg * (1-w)^n, clamped so that a very long idle time cannot overflow the exponent.
fn decay(avg: f64, w: f64, n: u64) -> f64 {
    if avg == 0.0 {
        return 0.0;
    }
    avg * (1.0 - w).powi(n.min(i32::MAX as u64) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_updates_follow_the_ewma() {
        let mut e = EwmaQueueAverage::new(0.5, 1000.0);
        e.update(0, 0.0); // first arrival at t=0: m = 0
        assert_eq!(e.avg, 0.0);
        assert_eq!(e.update(1, 4.0), 2.0);
        assert_eq!(e.update(2, 4.0), 3.0);
        assert_eq!(e.update(3, 0.0), 1.5);
    }

    #[test]
    fn idle_period_decays_by_ptc_times_idle_time() {
        let mut e = EwmaQueueAverage::new(0.1, 100.0); // 100 packets per second
        e.update(0, 10.0);
        assert!((e.avg - 1.0).abs() < 1e-12);
        e.on_link_idle(1_000_000_000); // idle from t = 1 s
                                       // next arrival at 1.05 s: m = floor(100 * 0.05) = 5; avg = 1 * 0.9^6 + 0.1 * 0
        let v = e.update(1_050_000_000, 0.0);
        assert!((v - 0.9f64.powi(6)).abs() < 1e-12, "{v}");
        assert!(!e.is_idle());
    }

    #[test]
    fn without_idle_decay_an_idle_period_leaves_the_average() {
        // Linux's RED under htb: the same 50 ms idle period as above moves nothing; the next
        // arrival is one weight step from 1.0: 0.9 * 1.0 + 0.1 * 0 = 0.9.
        let mut e = EwmaQueueAverage::new(0.1, 100.0);
        e.set_idle_decay(false);
        e.update(0, 10.0);
        e.on_link_idle(1_000_000_000);
        assert!(!e.is_idle());
        let v = e.update(1_050_000_000, 0.0);
        assert!((v - 0.9).abs() < 1e-12, "{v}");
    }
}
