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
//!
//! `rto_estimator = "ns3"` keeps ns-3's reading instead (`Ns3Estimate`): samples and
//! estimates in nanoseconds, RTO = srtt + max(G, 4 rttvar) with G = `tick` (RFC 6298 (2.3);
//! ns-3's `ClockGranularity`), and srtt kept however often the timer backs off.

use super::{RtoEstimatorKind, TcpConfig};
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
    /// With `rto_estimator = "ns3"`, the estimate in nanoseconds (the fields above then
    /// keep only `rtxcur` and `backoff`).
    exact: Option<Ns3Estimate>,
}

/// ns-3's RTT estimate (src/internet/model/rtt-estimator.cc, `RttMeanDeviation`): srtt and
/// rttvar in nanoseconds, updated with the integer shifts of `IntegerUpdate` (gains 1/8 and
/// 1/4, Jacobson/Karels appendix A.2), the first sample setting srtt = R, rttvar = R / 2
/// (`Measurement`).
#[derive(Debug, Clone, Copy, Default)]
struct Ns3Estimate {
    /// 0 until the first sample.
    srtt: i64,
    rttvar: i64,
    samples: u64,
}

impl Ns3Estimate {
    fn sample(&mut self, rtt: i64) {
        if self.samples == 0 {
            self.srtt = rtt;
            self.rttvar = rtt / 2;
        } else {
            let delta = rtt - self.srtt;
            self.srtt = ((self.srtt << SRTT_BITS) + delta) >> SRTT_BITS;
            let dev = delta.abs() - self.rttvar;
            self.rttvar = ((self.rttvar << RTTVAR_BITS) + dev) >> RTTVAR_BITS;
        }
        self.samples += 1;
    }

    /// RFC 6298 (2.3), G = `granularity` (ns-3 `TcpSocketBase::EstimateRtt`: `m_rtt->
    /// GetEstimate() + Max(m_clockGranularity, m_rtt->GetVariation() * 4)`).
    fn rto(&self, granularity: Time) -> Time {
        (self.srtt.max(0) as Time).saturating_add(granularity.max(4 * self.rttvar.max(0) as Time))
    }
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
            exact: (cfg.rto_estimator == RtoEstimatorKind::Ns3).then(Ns3Estimate::default),
        }
    }

    /// A sample for a packet sent at `sent` and acknowledged at `now`. ns-2 counts the tick
    /// boundaries crossed (with boot time 0), so a 25 ms RTT is 2 or 3 ticks depending on
    /// where the send fell within a tick; at least 1.
    pub fn sample(&mut self, sent: Time, now: Time) {
        if let Some(e) = &mut self.exact {
            // ns-3 takes a zero sample as 1 us (`EstimateRtt`); here a sample is at least 1 ns.
            e.sample((now.saturating_sub(sent)).max(1) as i64);
            self.rtxcur = e.rto(self.tick);
            return;
        }
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
        let rto = base.saturating_mul(self.backoff as Time).min(self.max_rto);
        if self.exact.is_some() {
            return rto.max(1);
        }
        rto.max(2 * self.tick)
    }

    /// Doubles the backoff after a timeout. Past 8x, ns-2 stops trusting srtt and folds it
    /// into rttvar so that the next sample restarts the estimate.
    pub fn back_off(&mut self) {
        if self.backoff < self.max_backoff {
            self.backoff = (self.backoff * 2).min(self.max_backoff);
        }
        if self.backoff > 8 && self.exact.is_none() {
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
        if let Some(e) = &self.exact {
            return e.srtt.max(0) as Time;
        }
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

    fn ns3(tick_ms: u64, min_rto_ms: u64) -> RttEstimator {
        let cfg = TcpConfig {
            recovery: super::super::Recovery::Rfc6675,
            rto_estimator: RtoEstimatorKind::Ns3,
            tick: crate::units::Duration(tick_ms * MS),
            min_rto: crate::units::Duration(min_rto_ms * MS),
            max_rto: crate::units::Duration(60_000 * MS),
            max_backoff: super::super::config::MAX_BACKOFF,
            ..TcpConfig::default()
        };
        RttEstimator::new(&cfg)
    }

    /// ns-3's RttMeanDeviation::Measurement / IntegerUpdate and TcpSocketBase::EstimateRtt,
    /// by hand: 204 ms, then 300 ms, then 250 ms.
    #[test]
    fn ns3_estimator_follows_ns3_in_nanoseconds() {
        let mut r = ns3(1, 0);
        r.sample(0, 204 * MS);
        // srtt = 204 ms, rttvar = 102 ms, RTO = 204 + max(1, 408) = 612 ms.
        assert_eq!(r.srtt(), 204 * MS);
        assert_eq!(r.rto(), 612 * MS);
        r.sample(0, 300 * MS);
        // delta = 96 ms: srtt = 204 + 12 = 216 ms; rttvar = 102 + (96 - 102) / 4 = 100.5 ms;
        // RTO = 216 + 402 = 618 ms.
        assert_eq!(r.srtt(), 216 * MS);
        assert_eq!(r.rto(), 618 * MS);
        r.sample(1_000 * MS, 1_250 * MS);
        // delta = 34 ms: srtt = 216 + 4.25 = 220.25 ms; rttvar = 100.5 + (34 - 100.5) / 4 =
        // 83.875 ms; RTO = 220.25 + 335.5 = 555.75 ms.
        assert_eq!(r.srtt(), 220_250_000);
        assert_eq!(r.rto(), 555_750_000);
    }

    /// G enters the RTO as RFC 6298 (2.3) says, when 4 rttvar falls below it; the backoff
    /// doubles up to max_rto and never drops the estimate (ns-3 `ReTxTimeout`: `m_rto =
    /// Min(2 m_rto, 60 s)`, srtt untouched), where ns-2's restarts it past 8x.
    #[test]
    fn ns3_estimator_uses_the_granularity_and_keeps_srtt_across_backoffs() {
        let mut r = ns3(10, 0);
        for i in 0..400 {
            r.sample(i * 1000 * MS, i * 1000 * MS + 30 * MS);
        }
        assert_eq!(r.srtt(), 30 * MS);
        assert_eq!(r.rto(), 40 * MS);
        let mut r = ns3(1, 1000);
        r.sample(0, 200 * MS);
        let mut expected = 1000 * MS;
        for _ in 0..10 {
            assert_eq!(r.rto(), expected);
            r.back_off();
            expected = (2 * expected).min(60_000 * MS);
        }
        assert_eq!(r.rto(), 60_000 * MS);
        assert_eq!(r.srtt(), 200 * MS);
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
