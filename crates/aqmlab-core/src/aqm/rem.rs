//! REM: random exponential marking.
//!
//! Source: S. Athuraliya, S.H. Low, V.H. Li, Q. Yin, "REM: active queue management", IEEE
//! Network 15(3), 2001 (price update PC3 and marking eq. 2 as quoted in seed 001, eqs. 1-2);
//! ns-2 `queue/rem.cc` (`run_updaterule`, `enque`, `deque`) as recorded in
//! shared/specs/baselines.md.
//!
//! Every `interval`:
//! - in_avg <- (1 - inw) in_avg + inw * (packets that arrived in the interval, dropped ones
//!   included);
//! - price <- max(0, price + gamma (in_avg + alpha (q - b0) - C*interval)), with q the
//!   instantaneous queue and C*interval the packets the link can send in one interval at
//!   `pkt_size` bytes each (ns-2 packet mode: `ptc = bandwidth / (8 pktsize_)`);
//! - p = 1 - phi^(-price).
//!
//! Arrival: forced drop if the buffer is full. Without ECN, drop with probability p. With ECN
//! (ns-2 `markpkts_`), ECT packets are instead CE-marked with probability p as they leave the
//! queue (at dequeue). Departing from ns-2, which applies no early signal at all to non-ECT
//! packets in mark mode, aqmlab drops non-ECT packets at arrival with probability p so that
//! mixed traffic is still controlled.
//!
//! Parameters (ns-2 defaults = the paper's):
//! - `gamma` (0.001): step size of the price update
//! - `phi` (1.001, > 1): base of the exponential marking function
//! - `alpha` (0.1): weight of the backlog mismatch against the rate mismatch
//! - `b0` (20, packets): target backlog
//! - `inw` (1.0, weight): EWMA weight of the arrival count
//! - `interval` (2 ms, time): update period
//! - `pkt_size` (1000, bytes): packet size that turns the link rate into packets (ns-2
//!   `pktsize_`)
//! - `ecn` (false, bool): mark ECT packets at dequeue instead of dropping at arrival

use super::params::{AqmParams, ParamDoc, QueueEnv};
use super::{Aqm, ArrivalVerdict, DepartureVerdict, DropKind, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "gamma",
        default: "0.001",
        unit: "1/packets",
        meaning: "price step size",
        plausible: None,
    },
    ParamDoc {
        name: "phi",
        default: "1.001",
        unit: "base (> 1)",
        meaning: "p = 1 - phi^(-price)",
        plausible: None,
    },
    ParamDoc {
        name: "alpha",
        default: "0.1",
        unit: "weight",
        meaning: "weight of the backlog mismatch",
        plausible: None,
    },
    ParamDoc {
        name: "b0",
        default: "20",
        unit: "packets",
        meaning: "target backlog",
        plausible: None,
    },
    ParamDoc {
        name: "inw",
        default: "1",
        unit: "weight",
        meaning: "EWMA weight of the per-interval arrival count",
        plausible: None,
    },
    ParamDoc {
        name: "interval",
        default: "2ms",
        unit: "s",
        meaning: "price update period",
        // REM's update period: 2 ms.
        plausible: Some(super::params::Plausible::new(1e-5, 1.0)),
    },
    ParamDoc {
        name: "pkt_size",
        default: "1000",
        unit: "bytes",
        meaning: "packet size converting link rate to packets per interval (ns-2 pktsize_)",
        plausible: None,
    },
    ParamDoc {
        name: "ecn",
        default: "false",
        unit: "bool",
        meaning: "mark departing ECT packets instead of dropping at arrival",
        plausible: None,
    },
];

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RemParams {
    pub gamma: f64,
    pub phi: f64,
    pub alpha: f64,
    pub b0: f64,
    pub inw: f64,
    pub interval: Duration,
    pub pkt_size: u32,
    pub ecn: bool,
}

impl Default for RemParams {
    fn default() -> Self {
        RemParams {
            gamma: 0.001,
            phi: 1.001,
            alpha: 0.1,
            b0: 20.0,
            inw: 1.0,
            interval: Duration(2_000_000),
            pkt_size: 1000,
            ecn: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Rem {
    pub cfg: RemParams,
    /// Packets the link sends in one interval at `pkt_size` bytes.
    pub c_per_interval: f64,
    pub arrivals: f64,
    pub in_avg: f64,
    pub price: f64,
    pub p: f64,
}

impl Rem {
    pub fn new(cfg: RemParams, link_rate_bps: u64) -> Self {
        let c = link_rate_bps as f64 / (8.0 * cfg.pkt_size as f64) * cfg.interval.secs();
        Rem {
            cfg,
            c_per_interval: c,
            arrivals: 0.0,
            in_avg: 0.0,
            price: 0.0,
            p: 0.0,
        }
    }

    pub fn update(&mut self, q: f64) {
        let c = &self.cfg;
        self.in_avg = (1.0 - c.inw) * self.in_avg + c.inw * self.arrivals;
        self.arrivals = 0.0;
        self.price = (self.price
            + c.gamma * (self.in_avg + c.alpha * (q - c.b0) - self.c_per_interval))
            .max(0.0);
        self.p = 1.0 - c.phi.powf(-self.price);
    }
}

impl Aqm for Rem {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        self.arrivals += 1.0;
        if q.is_full_for(pkt.size) {
            return ArrivalVerdict::Drop(DropKind::Forced);
        }
        if self.cfg.ecn && pkt.ecn.ect {
            // Signalled at dequeue.
            return ArrivalVerdict::Enqueue;
        }
        if rng.uniform() < self.p {
            ArrivalVerdict::Drop(DropKind::Early)
        } else {
            ArrivalVerdict::Enqueue
        }
    }

    fn on_departure(
        &mut self,
        _q: &QueueView,
        pkt: &Packet,
        rng: &mut RngStream,
    ) -> DepartureVerdict {
        if self.cfg.ecn && pkt.ecn.ect && !pkt.ecn.ce && rng.uniform() < self.p {
            DepartureVerdict::Mark
        } else {
            DepartureVerdict::Send
        }
    }

    fn timer_interval(&self) -> Option<Time> {
        Some(self.cfg.interval.0)
    }

    fn on_timer(&mut self, q: &QueueView, _rng: &mut RngStream) {
        self.update(q.len_packets as f64);
    }

    fn state(&self, out: &mut StateSink) {
        out("p", self.p);
        out("price", self.price);
        out("in_avg_packets", self.in_avg);
        out("q_ref_packets", self.cfg.b0);
    }
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let cfg: RemParams = p.parse()?;
    p.positive("gamma", cfg.gamma)?;
    p.require(cfg.phi.is_finite() && cfg.phi > 1.0, "phi", || {
        format!("must be > 1, got {}", cfg.phi)
    })?;
    p.non_negative("alpha", cfg.alpha, "")?;
    p.non_negative("b0", cfg.b0, "packets")?;
    p.require(
        cfg.inw.is_finite() && cfg.inw > 0.0 && cfg.inw <= 1.0,
        "inw",
        || format!("must be in (0, 1], got {}", cfg.inw),
    )?;
    p.require(cfg.interval.0 > 0, "interval", || "must be > 0".into())?;
    p.require(cfg.pkt_size > 0, "pkt_size", || "must be > 0".into())?;
    Ok(Box::new(Rem::new(cfg, env.link_rate_bps)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;

    fn view(len: u32) -> QueueView {
        crate::aqm::test_rig::view(0, len, 300)
    }

    #[test]
    fn price_and_p_over_a_few_intervals() {
        let mut r = Rem::new(RemParams::default(), 10_000_000);
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
        // C*interval = 10e6/(8*1000) * 0.002 = 2.5 packets
        assert!((r.c_per_interval - 2.5).abs() < 1e-12);
        // interval 1: 10 arrivals, q = 40: price = 0.001*(10 + 0.1*20 - 2.5) = 0.0095
        for _ in 0..10 {
            r.on_arrival(&view(40), &pkt, &mut rng);
        }
        r.on_timer(&view(40), &mut rng);
        assert_eq!(r.in_avg, 10.0);
        assert!((r.price - 0.0095).abs() < 1e-12);
        // p = 1 - 1.001^-0.0095 = 1 - exp(-0.0095*ln 1.001) = 9.4953e-6
        assert!((r.p - 9.4953e-6).abs() < 1e-9, "{}", r.p);
        // interval 2: a full buffer; its 3 arrivals (forced drops) still count:
        // price = 0.0095 + 0.001*(3 + 0.1*280 - 2.5) = 0.0380
        for _ in 0..3 {
            assert_eq!(
                r.on_arrival(&view(300), &pkt, &mut rng),
                ArrivalVerdict::Drop(DropKind::Forced)
            );
        }
        r.on_timer(&view(300), &mut rng);
        assert!((r.price - 0.0380).abs() < 1e-12, "{}", r.price);
        // interval 3: nothing arrives, empty queue: 0.0380 + 0.001*(0 - 2 - 2.5) = 0.0335
        r.on_timer(&view(0), &mut rng);
        assert!((r.price - 0.0335).abs() < 1e-12);
        // price never goes negative: 0.0335 - 0.001*4.5*8 < 0 -> 0 after 8 more intervals
        for _ in 0..8 {
            r.on_timer(&view(0), &mut rng);
        }
        assert_eq!(r.price, 0.0);
        assert_eq!(r.p, 0.0);
    }

    #[test]
    fn in_avg_is_an_ewma_with_inw() {
        let mut r = Rem::new(
            RemParams {
                inw: 0.5,
                ..Default::default()
            },
            10_000_000,
        );
        r.arrivals = 8.0;
        r.update(0.0);
        assert_eq!(r.in_avg, 4.0); // 0.5*0 + 0.5*8
        r.arrivals = 2.0;
        r.update(0.0);
        assert_eq!(r.in_avg, 3.0); // 0.5*4 + 0.5*2
    }

    #[test]
    fn mark_mode_marks_ect_at_dequeue() {
        let mut r = Rem::new(
            RemParams {
                ecn: true,
                ..Default::default()
            },
            10_000_000,
        );
        r.p = 1.0;
        let mut rng = crate::aqm::test_rig::rng();
        let mut pkt = crate::aqm::test_rig::packet(PacketKind::TcpData);
        pkt.ecn.ect = true;
        assert_eq!(
            r.on_arrival(&view(5), &pkt, &mut rng),
            ArrivalVerdict::Enqueue
        );
        assert_eq!(
            r.on_departure(&view(5), &pkt, &mut rng),
            DepartureVerdict::Mark
        );
        pkt.ecn.ect = false;
        assert_eq!(
            r.on_arrival(&view(5), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        assert_eq!(
            r.on_departure(&view(5), &pkt, &mut rng),
            DepartureVerdict::Send
        );
    }

    #[test]
    fn invalid_parameters_name_the_field() {
        let env = crate::aqm::test_rig::env(300);
        let p = AqmParams::new(serde_json::json!({"phi": 0.9}), "q.aqm");
        assert_eq!(build(&p, &env).err().unwrap().path, "q.aqm.phi");
        let p = AqmParams::new(serde_json::json!({"b0": -1}), "q.aqm");
        assert_eq!(build(&p, &env).err().unwrap().path, "q.aqm.b0");
    }
}
