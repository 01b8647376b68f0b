//! How faithfully an emulation (`crate::emulation`) kept its schedule.
//!
//! Every event keeps its exact time (`emulation/network.rs`); what a real clock adds is lateness: the
//! router handles a transmission's end, or a packet's exit from a delay line, some time after
//! it was due (a wake-up's latency, a busy moment, the kernel's work for the packet it just
//! wrote). That lateness delays real packets, so it is measured on every departure and every
//! delivery (over the measurement window, after the warm-up, as every other figure), and a run
//! whose 99th percentile departure lag exceeds the stated bound is marked invalid: its numbers
//! are the emulator's, not the network's.

use super::DelayHistogram;
use crate::sim::Time;
use serde::Serialize;

/// Lateness of one kind of event, in a log-linear histogram (1/64 relative error).
#[derive(Debug, Clone, Default)]
pub struct LagRecorder {
    lags: DelayHistogram,
}

impl LagRecorder {
    #[inline]
    pub fn record(&mut self, handled_at: Time, due: Time) {
        self.lags.record(handled_at.saturating_sub(due));
    }

    /// Forgets what was recorded (the end of the warm-up).
    pub fn restart(&mut self) {
        self.lags.clear();
    }

    fn quantile_us(&self, q: f64) -> f64 {
        self.lags.quantile(q) / 1e3
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EmulationFidelity {
    /// Transmissions' ends handled, and their lateness (the departure clock's lag), us.
    pub departures: u64,
    pub departure_lag_p50_us: f64,
    pub departure_lag_p99_us: f64,
    pub departure_lag_max_us: f64,
    /// Packets' exits from delay lines handled, and their lateness, us.
    pub deliveries: u64,
    pub delivery_lag_p50_us: f64,
    pub delivery_lag_p99_us: f64,
    pub delivery_lag_max_us: f64,
    /// The bound on the departure lag's 99th percentile; above it the run is not valid.
    pub max_lag_p99_us: f64,
    pub valid: bool,
    /// Why the run is not valid (None when it is).
    pub invalid_reason: Option<String>,
    /// Packets the hosts sent that belong to no flow of the scenario (not IPv4, not between
    /// two hosts of a flow): not carried.
    pub packets_not_carried: u64,
}

impl EmulationFidelity {
    pub fn new(
        departure: &LagRecorder,
        delivery: &LagRecorder,
        max_lag: Time,
        packets_not_carried: u64,
    ) -> Self {
        let p99 = departure.quantile_us(0.99);
        let bound = max_lag as f64 / 1e3;
        let invalid_reason = (p99 > bound).then(|| {
            format!(
                "the departure clock's 99th percentile lag, {p99:.0} us, exceeds the bound of \
                 {bound:.0} us: the router could not keep the links' schedule on this machine"
            )
        });
        EmulationFidelity {
            departures: departure.lags.count(),
            departure_lag_p50_us: departure.quantile_us(0.5),
            departure_lag_p99_us: p99,
            departure_lag_max_us: departure.lags.max() as f64 / 1e3,
            deliveries: delivery.lags.count(),
            delivery_lag_p50_us: delivery.quantile_us(0.5),
            delivery_lag_p99_us: delivery.quantile_us(0.99),
            delivery_lag_max_us: delivery.lags.max() as f64 / 1e3,
            max_lag_p99_us: bound,
            valid: invalid_reason.is_none(),
            invalid_reason,
            packets_not_carried,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_late_beyond_the_bound_is_invalid() {
        let mut d = LagRecorder::default();
        for i in 0..100u64 {
            // 98 departures 10 us late, 2 at 300 us: p99 is 300 us.
            d.record(1_000_000 + if i < 98 { 10_000 } else { 300_000 }, 1_000_000);
        }
        let f = EmulationFidelity::new(&d, &LagRecorder::default(), 200_000, 0);
        assert!(!f.valid);
        assert!((f.departure_lag_p99_us - 300.0).abs() < 300.0 / 64.0);
        assert!((f.departure_lag_p50_us - 10.0).abs() < 10.0 / 32.0);
        let f = EmulationFidelity::new(&d, &LagRecorder::default(), 400_000, 0);
        assert!(f.valid && f.invalid_reason.is_none());
    }
}
