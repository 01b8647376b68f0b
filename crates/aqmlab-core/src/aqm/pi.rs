//! PI controller AQM.
//!
//! Source: C.V. Hollot, V. Misra, D. Towsley, W. Gong, "On designing improved controllers
//! for AQM routers supporting TCP flows", IEEE INFOCOM 2001, section IV (the discrete
//! controller, eq. 13 there); ns-2 `queue/pi.cc` as recorded in shared/specs/baselines.md.
//!
//! Every 1/w seconds: p <- p + a (q - q_ref) - b (q_old - q_ref), clipped to [0, 1];
//! q_old <- q, with q the instantaneous queue in packets (excluding the one in service).
//! Arrival: forced drop if the buffer is full, otherwise drop (or mark, ECN on and ECT) with
//! probability p, with no count correction.
//!
//! Parameters (the paper's design for its example network):
//! - `a` (1.822e-5, 1/packets): gain on the current error
//! - `b` (1.816e-5, 1/packets): gain on the previous error
//! - `q_ref` (50, packets): target queue length
//! - `w` (170, Hz): sampling frequency of the controller
//! - `ecn` (false, bool): mark ECT packets instead of dropping them

use super::params::{AqmParams, ParamDoc, QueueEnv};
use super::{Aqm, ArrivalVerdict, DropKind, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{time, RngStream, Time};
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "a",
        default: "1.822e-5",
        unit: "1/packets",
        meaning: "gain on the current queue error",
        plausible: None,
    },
    ParamDoc {
        name: "b",
        default: "1.816e-5",
        unit: "1/packets",
        meaning: "gain on the previous queue error",
        plausible: None,
    },
    ParamDoc {
        name: "q_ref",
        default: "50",
        unit: "packets",
        meaning: "target queue length",
        plausible: None,
    },
    ParamDoc {
        name: "w",
        default: "170",
        unit: "Hz",
        meaning: "controller sampling frequency",
        plausible: None,
    },
    super::params::ECN_DOC,
];

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PiParams {
    pub a: f64,
    pub b: f64,
    pub q_ref: f64,
    pub w: f64,
    pub ecn: bool,
}

impl Default for PiParams {
    fn default() -> Self {
        PiParams {
            a: 1.822e-5,
            b: 1.816e-5,
            q_ref: 50.0,
            w: 170.0,
            ecn: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Pi {
    pub cfg: PiParams,
    pub p: f64,
    pub q_old: f64,
    period: Time,
}

impl Pi {
    pub fn new(cfg: PiParams) -> Self {
        let period = time::from_secs_f64(1.0 / cfg.w).max(1);
        Pi {
            cfg,
            p: 0.0,
            q_old: 0.0,
            period,
        }
    }

    /// One controller step with the queue sampled at `q` packets.
    pub fn step(&mut self, q: f64) {
        let c = &self.cfg;
        self.p = (self.p + c.a * (q - c.q_ref) - c.b * (self.q_old - c.q_ref)).clamp(0.0, 1.0);
        self.q_old = q;
    }
}

impl Aqm for Pi {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        if q.is_full_for(pkt.size) {
            ArrivalVerdict::Drop(DropKind::Forced)
        } else if rng.uniform() < self.p {
            ArrivalVerdict::signal(self.cfg.ecn, pkt)
        } else {
            ArrivalVerdict::Enqueue
        }
    }

    fn timer_interval(&self) -> Option<Time> {
        Some(self.period)
    }

    /// The gains, q_ref and the sampling rate change (the next tick is at the old period);
    /// p and q_old carry on.
    fn reconfigure(&mut self, next: Box<dyn Aqm>) -> bool {
        super::reconfigure_from(next, |next: Box<Pi>| {
            self.cfg = next.cfg;
            self.period = next.period;
        })
    }

    fn on_timer(&mut self, q: &QueueView, _rng: &mut RngStream) {
        self.step(q.len_packets as f64);
    }

    fn state(&self, out: &mut StateSink) {
        out("p", self.p);
        out("q_old_packets", self.q_old);
        out("q_ref_packets", self.cfg.q_ref);
    }
}

pub fn build(p: &AqmParams, _env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let cfg: PiParams = p.parse()?;
    p.non_negative("a", cfg.a, "")?;
    p.non_negative("b", cfg.b, "")?;
    p.non_negative("q_ref", cfg.q_ref, "packets")?;
    p.positive("w", cfg.w)?;
    Ok(Box::new(Pi::new(cfg)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;

    fn view(len: u32) -> QueueView {
        crate::aqm::test_rig::view(0, len, 300)
    }

    #[test]
    fn control_law_over_a_few_ticks() {
        let mut pi = Pi::new(PiParams::default());
        let mut rng = crate::aqm::test_rig::rng();
        // 1/170 s = 5882353 ns
        assert_eq!(pi.timer_interval(), Some(5_882_353));
        // tick 1, q = 150, q_old = 0: p = 1.822e-5*100 - 1.816e-5*(-50) = 1.822e-3 + 0.908e-3
        pi.on_timer(&view(150), &mut rng);
        assert!((pi.p - 2.730e-3).abs() < 1e-12, "{}", pi.p);
        // tick 2, q = 150, q_old = 150: p += 100*(1.822e-5 - 1.816e-5) = 6e-6 -> 2.736e-3
        pi.on_timer(&view(150), &mut rng);
        assert!((pi.p - 2.736e-3).abs() < 1e-12, "{}", pi.p);
        // tick 3, q = 50, q_old = 150: p += 0 - 1.816e-5*100 = -1.816e-3 -> 0.920e-3
        pi.on_timer(&view(50), &mut rng);
        assert!((pi.p - 0.920e-3).abs() < 1e-12, "{}", pi.p);
        // tick 4, q = 0, q_old = 50: p += 1.822e-5*(-50) = -0.911e-3 -> 0.009e-3
        pi.on_timer(&view(0), &mut rng);
        assert!((pi.p - 0.009e-3).abs() < 1e-12, "{}", pi.p);
        // tick 5, q = 0, q_old = 0: p += -0.911e-3 + 0.908e-3 = -0.003e-3 -> 0.006e-3
        pi.on_timer(&view(0), &mut rng);
        assert!((pi.p - 0.006e-3).abs() < 1e-12, "{}", pi.p);
        // tick 6: another -0.003e-3 -> 0.003e-3, tick 7 -> 0, tick 8 clips at 0
        pi.on_timer(&view(0), &mut rng);
        pi.on_timer(&view(0), &mut rng);
        pi.on_timer(&view(0), &mut rng);
        assert_eq!(pi.p, 0.0);
    }

    #[test]
    fn arrivals_forced_when_full_else_with_probability_p() {
        let mut pi = Pi::new(PiParams {
            ecn: true,
            ..Default::default()
        });
        let mut rng = crate::aqm::test_rig::rng();
        let mut pkt = crate::aqm::test_rig::packet(PacketKind::TcpData);
        pkt.ecn.ect = true;
        assert_eq!(
            pi.on_arrival(&view(300), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Forced)
        );
        assert_eq!(
            pi.on_arrival(&view(10), &pkt, &mut rng),
            ArrivalVerdict::Enqueue
        );
        pi.p = 1.0;
        assert_eq!(
            pi.on_arrival(&view(10), &pkt, &mut rng),
            ArrivalVerdict::Mark
        );
        // p = 0.3: about 30% of 10000 arrivals signalled
        pi.p = 0.3;
        let n = (0..10_000)
            .filter(|_| pi.on_arrival(&view(10), &pkt, &mut rng) == ArrivalVerdict::Mark)
            .count();
        assert!((2800..3200).contains(&n), "{n}");
    }

    #[test]
    fn invalid_parameters_name_the_field() {
        let env = crate::aqm::test_rig::env(300);
        let p = AqmParams::new(serde_json::json!({"w": 0}), "q.aqm");
        assert_eq!(build(&p, &env).err().unwrap().path, "q.aqm.w");
    }
}
