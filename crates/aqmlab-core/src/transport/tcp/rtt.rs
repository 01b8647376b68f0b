//! RTT estimation and the retransmission timeout, as ns-2 `TcpAgent::rtt_update`,
//! `rtt_timeout` and `rtt_backoff` (tcp/tcp.cc, with `rfc2988_` true, `ts_option_` false),
//! which implement Jacobson/Karels in integer ticks (RFC 6298's gains 1/8 and 1/4, K = 4).
//!
//! Parameters read: `tick` (ns-2 `tcpTick_`), `min_rto` (`minrto_`), `max_rto` (`maxrto_`),
//! `initial_rto` (`rtxcur_init_`), `max_backoff` (64 in ns-2).
//!
//! ns-2 keeps srtt scaled by 8 and rttvar scaled by 4, in ticks, and computes the RTO with
//! integer shifts; we keep the same representation so that the RTO takes exactly the values
//! ns-2 produces (it truncates to whole ticks, which matters when RTTs are a few ticks).

use super::TcpConfig;
use crate::sim::Time;

const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
/// RTO = srtt + 2^RTTVAR_EXP * rttvar (ns-2 `rttvar_exp_`).
const RTTVAR_EXP: u32 = 2;

#[derive(Debug, Clone)]
pub struct RttEstimator {
    tick: Time,
    min_rto: Time,
    max_rto: Time,
    max_backoff: u32,
    /// Smoothed RTT in ticks << 3; 0 until the first sample (ns-2 `t_srtt_`).
    srtt: i64,
    /// RTT variation in ticks << 2 (ns-2 `t_rttvar_`).
    rttvar: i64,
    /// Un-backed-off RTO (ns-2 `t_rtxcur_`).
    rtxcur: Time,
    /// Exponential backoff multiplier (ns-2 `t_backoff_`).
    backoff: u32,
    /// Last measured RTT in ticks (ns-2 `t_rtt_`).
    last_ticks: i64,
}

impl RttEstimator {
    pub fn new(cfg: &TcpConfig) -> Self {
        RttEstimator {
            tick: cfg.tick.0.max(1),
            min_rto: cfg.min_rto.0,
            max_rto: cfg.max_rto.0,
            max_backoff: cfg.max_backoff.max(1),
            srtt: 0,
            rttvar: 0,
            rtxcur: cfg.initial_rto.0,
            backoff: 1,
            last_ticks: 0,
        }
    }

    /// A sample for a packet sent at `sent` and acknowledged at `now`. ns-2 counts the tick
    /// boundaries crossed (with boot time 0), so a 25 ms RTT is 2 or 3 ticks depending on
    /// where the send fell within a tick; at least 1.
    pub fn sample(&mut self, sent: Time, now: Time) {
        let t = ((now / self.tick) as i64 - (sent / self.tick) as i64).max(1);
        self.last_ticks = t;
        if self.srtt != 0 {
            let mut delta = t - (self.srtt >> SRTT_BITS);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            delta = delta.abs() - (self.rttvar >> RTTVAR_BITS);
            self.rttvar += delta;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            // First sample: srtt = rtt, rttvar = rtt / 2.
            self.srtt = t << SRTT_BITS;
            self.rttvar = t << (RTTVAR_BITS - 1);
        }
        let ticks =
            ((self.rttvar << (RTTVAR_EXP + (SRTT_BITS - RTTVAR_BITS))) + self.srtt) >> SRTT_BITS;
        self.rtxcur = (ticks.max(0) as Time).saturating_mul(self.tick);
    }

    /// The timeout to arm now (ns-2 `rtt_timeout` with `rfc2988_`: the minimum is applied
    /// before the backoff, so a backed-off RTO really doubles from min_rto).
    pub fn rto(&self) -> Time {
        let base = self.rtxcur.max(self.min_rto);
        base.saturating_mul(self.backoff as Time)
            .min(self.max_rto)
            .max(2 * self.tick)
    }

    /// Doubles the backoff after a timeout. Past 8x, ns-2 stops trusting srtt and folds it
    /// into rttvar so that the next sample restarts the estimate.
    pub fn back_off(&mut self) {
        if self.backoff < self.max_backoff {
            self.backoff = (self.backoff * 2).min(self.max_backoff);
        }
        if self.backoff > 8 {
            self.rttvar += self.srtt >> SRTT_BITS;
            self.srtt = 0;
        }
    }

    pub fn reset_backoff(&mut self) {
        self.backoff = 1;
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// Smoothed RTT in nanoseconds (0 before the first sample).
    pub fn srtt(&self) -> Time {
        ((self.srtt.max(0) as Time) * self.tick) >> SRTT_BITS
    }

    pub fn last_sample_ticks(&self) -> i64 {
        self.last_ticks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn first_sample_sets_srtt_and_rto_is_three_srtt() {
        let mut r = RttEstimator::new(&TcpConfig::default());
        assert_eq!(r.rto(), 3000 * MS);
        // 100 ms = 10 ticks: srtt 10, rttvar 5, RTO = 10 + 4*5 = 30 ticks.
        r.sample(0, 100 * MS);
        assert_eq!(r.srtt(), 100 * MS);
        assert_eq!(r.rto(), 300 * MS);
    }

    #[test]
    fn steady_samples_converge_and_min_rto_applies() {
        let mut r = RttEstimator::new(&TcpConfig::default());
        for i in 0..200 {
            r.sample(i * 1000 * MS, i * 1000 * MS + 30 * MS);
        }
        assert_eq!(r.srtt(), 30 * MS);
        // rttvar decays until the integer shift stops it (3/4 tick): RTO = 3 + 4*0.75 ticks
        // = 60 ms, below min_rto.
        assert_eq!(r.rto(), 200 * MS);
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_and_the_max_rto() {
        let mut r = RttEstimator::new(&TcpConfig::default());
        r.sample(0, 100 * MS);
        let mut prev = r.rto();
        for _ in 0..6 {
            r.back_off();
            let now = r.rto();
            assert_eq!(now, (2 * prev).min(60_000 * MS));
            prev = now;
        }
        assert_eq!(r.backoff(), 64);
        r.back_off();
        assert_eq!(r.backoff(), 64);
        assert_eq!(r.rto(), 19_200 * MS);
    }
}
