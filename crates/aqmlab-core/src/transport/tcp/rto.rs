//! The retransmission timeout of the `rfc6675` sender: RFC 6298's estimator as ns-2 computes
//! it (`rtt.rs`, the default, shared with the ns-2 agents) or Linux's (`linux_rtt.rs`), chosen
//! by `tcp.rto_estimator`.

use super::linux_rtt::LinuxRttEstimator;
use super::rtt::RttEstimator;
use super::{RtoEstimatorKind, TcpConfig};
use crate::sim::Time;

#[derive(Debug, Clone)]
pub enum RtoEstimator {
    Rfc6298(RttEstimator),
    Linux(LinuxRttEstimator),
}

impl RtoEstimator {
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.rto_estimator {
            // ns-3's estimator is RFC 6298 in nanoseconds, a mode of `RttEstimator`.
            RtoEstimatorKind::Rfc6298 | RtoEstimatorKind::Ns3 => {
                RtoEstimator::Rfc6298(RttEstimator::new(cfg))
            }
            RtoEstimatorKind::Linux => RtoEstimator::Linux(LinuxRttEstimator::new(
                cfg.tick.0,
                cfg.min_rto.0,
                cfg.max_rto.0,
                cfg.initial_rto.0,
            )),
        }
    }

    /// An RTT sample; `snd_una` and `snd_nxt` (after the ACK) mark Linux's round trips.
    pub fn sample(&mut self, sent: Time, now: Time, snd_una: i64, snd_nxt: i64) {
        match self {
            RtoEstimator::Rfc6298(r) => r.sample(sent, now),
            RtoEstimator::Linux(r) => r.sample(sent, now, snd_una, snd_nxt),
        }
    }

    pub fn rto(&self) -> Time {
        match self {
            RtoEstimator::Rfc6298(r) => r.rto(),
            RtoEstimator::Linux(r) => r.rto(),
        }
    }

    pub fn back_off(&mut self) {
        match self {
            RtoEstimator::Rfc6298(r) => r.back_off(),
            RtoEstimator::Linux(r) => r.back_off(),
        }
    }

    /// An ACK of new data. RFC 6298's estimator clears the backoff here (as Linux clears
    /// `icsk_retransmits` on forward progress); Linux's own clears it only with an RTT sample
    /// (`tcp_ack_update_rtt`), which `sample` does.
    pub fn on_new_ack(&mut self) {
        match self {
            RtoEstimator::Rfc6298(r) => r.reset_backoff(),
            RtoEstimator::Linux(_) => {}
        }
    }

    /// The backoff multiplier (1 without a timeout since the last reset).
    pub fn backoff(&self) -> u32 {
        match self {
            RtoEstimator::Rfc6298(r) => r.backoff(),
            RtoEstimator::Linux(r) => r.backoff(),
        }
    }

    /// Smoothed RTT in nanoseconds (0 before the first sample).
    pub fn srtt(&self) -> Time {
        match self {
            RtoEstimator::Rfc6298(r) => r.srtt(),
            RtoEstimator::Linux(r) => r.srtt(),
        }
    }
}
