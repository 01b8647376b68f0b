//! NEWQUE: rate-based AQM with front dropping and front marking.
//!
//! Source: V. Santhi, A.M. Natarajan, "NEWQUE: A New Approach to Active Queue Management for
//! TCP with ECN" (seed 001), section 3.1, steps 1-5 and eq. (4), and section 4.1 (the
//! parameter values alpha 0.0001, beta 0.02); read as settled in
//! shared/specs/seed-algorithms.md (NEWQUE section). The rate estimator is Stoica's CSFQ
//! exponential average (the paper's ref. [5]).
//!
//! Per arrival of a packet of l bits, T seconds after the previous arrival:
//! - r <- (1 - e^(-T/K)) l/T + e^(-T/K) r (eq. 4), in bits/s;
//! - EQ = q + the arriving packet (packets, or bytes for a byte-limited buffer), B = the limit;
//! - r >= C or EQ >= B: P += alpha, at most once per minTIVL; r < C (or the link goes idle):
//!   P -= beta, at most once per minTIVL (one shared prevTime, as in the paper's steps 4-5);
//!   with `step_reading = "swapped"` the two steps trade places (P += beta, P -= alpha);
//! - EQ > B: drop the FRONT packet and enqueue the arrival (forced);
//! - else if r >= C, with probability P: ECN-capable traffic gets the first unmarked queued
//!   packet CE-marked (front marking), other traffic loses the front packet (early drop).
//!
//! C is the link rate the queue serves (`QueueView::link_rate_bps`).
//!
//! Parameters:
//! - `alpha` (0.0001, probability): increment of P
//! - `beta` (0.02, probability): decrement of P
//! - `min_interval` (100 ms, time): minTIVL, the least time between two changes of P
//! - `k` (0.1 s, time): K, time constant of the rate estimator
//! - `ecn` (true, bool): front-mark ECT traffic instead of front-dropping it. On by default
//!   because the paper defines NEWQUE as an ECN scheme; non-ECT packets are always dropped.
//! - `step_reading` ("printed" | "swapped", "printed"): which of alpha and beta is the
//!   increment. "printed": steps 4-5 as printed (P += alpha, P -= beta). With the printed
//!   values P climbs 0.0001 per minTIVL and falls 0.02 at the first interval in which the rate
//!   estimate dips below C, so under TCP it stays near 0 and the queue fills the buffer.
//!   "swapped": P += beta, P -= alpha, i.e. a fast increase (0.02) and a slow decrease
//!   (0.0001), the shape of BLUE's d1 > d2 (the paper's own BLUE runs, section 4.1, use
//!   d1 = 0.025 > d2 = 0.0025), for which the printed 0.0001/0.02 could be a swap. The paper's
//!   text does not settle it: steps 4-5 name alpha the increment, section 4.1 gives only the
//!   values. Measured (reproduce/papers/newque.toml, both readings): only "swapped" holds the
//!   queue down and reproduces the paper's claims; "printed" stays the default as written.
//!
//! Gaps the paper leaves, settled here: the first arrival only starts the estimator's clock
//! (no interval is known yet, so r stays 0); arrivals at the same instant (T = 0) are summed
//! and folded into the next update with T > 0, as CSFQ's estimator does; "traffic is
//! ECN-capable" is read from the arriving packet's ECT bit.

use super::params::{AqmParams, ParamDoc, QueueEnv};
use super::{Aqm, ArrivalVerdict, DropKind, QueueLimit, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{time, RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "alpha",
        default: "0.0001",
        unit: "probability",
        meaning: "increment of P when r >= C or the buffer is full",
        plausible: None,
    },
    ParamDoc {
        name: "beta",
        default: "0.02",
        unit: "probability",
        meaning: "decrement of P when r < C or the link is idle",
        plausible: None,
    },
    ParamDoc {
        name: "min_interval",
        default: "100ms",
        unit: "s",
        meaning: "minTIVL: least time between two updates of P",
        // the paper's minTIVL: 100 ms.
        plausible: Some(super::params::Plausible::new(1e-3, 2.0)),
    },
    ParamDoc {
        name: "k",
        default: "0.1s",
        unit: "s",
        meaning: "K: time constant of the CSFQ arrival-rate estimator",
        // the paper's K (CSFQ's time constant): 100 ms.
        plausible: Some(super::params::Plausible::new(1e-3, 2.0)),
    },
    ParamDoc {
        name: "ecn",
        default: "true",
        unit: "bool",
        meaning: "front-mark ECT packets instead of front-dropping",
        plausible: None,
    },
    ParamDoc {
        name: "step_reading",
        default: "printed",
        unit: "\"printed\" | \"swapped\"",
        meaning: "printed: P += alpha, P -= beta (steps 4-5); swapped: P += beta, P -= alpha",
        plausible: None,
    },
];

/// Which of alpha and beta is the increment of P.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepReading {
    /// Steps 4-5 as printed: P += alpha on congestion, P -= beta otherwise.
    Printed,
    /// alpha and beta trade places: P += beta on congestion, P -= alpha otherwise.
    Swapped,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct NewqueParams {
    pub alpha: f64,
    pub beta: f64,
    pub min_interval: Duration,
    pub k: Duration,
    pub ecn: bool,
    pub step_reading: StepReading,
}

impl Default for NewqueParams {
    fn default() -> Self {
        NewqueParams {
            alpha: 0.0001,
            beta: 0.02,
            min_interval: Duration(100_000_000),
            k: Duration(100_000_000),
            ecn: true,
            step_reading: StepReading::Printed,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Newque {
    pub cfg: NewqueParams,
    /// Marking/dropping probability P.
    pub p: f64,
    /// Time of the last change of P (prevTime).
    pub prev_time: Time,
    /// Estimated aggregate arrival rate, bits/s.
    pub r: f64,
    pub last_arrival: Option<Time>,
    /// Bits that arrived at the same instant as the last arrival, not yet in r.
    pending_bits: f64,
}

impl Newque {
    pub fn new(cfg: NewqueParams) -> Self {
        Newque {
            cfg,
            p: 0.0,
            prev_time: 0,
            r: 0.0,
            last_arrival: None,
            pending_bits: 0.0,
        }
    }

    /// Eq. (4), CSFQ's estimator.
    fn estimate(&mut self, now: Time, bits: f64) {
        match self.last_arrival {
            None => {
                self.last_arrival = Some(now);
            }
            Some(last) => {
                let t = time::to_secs_f64(now.saturating_sub(last));
                if t <= 0.0 {
                    // Back-to-back arrivals: l/T is undefined; carry the bits forward.
                    self.pending_bits += bits;
                    return;
                }
                let w = (-t / self.cfg.k.secs()).exp();
                let l = bits + self.pending_bits;
                self.pending_bits = 0.0;
                self.r = (1.0 - w) * l / t + w * self.r;
                self.last_arrival = Some(now);
            }
        }
    }

    /// (increment, decrement) of P under the configured reading.
    pub fn steps(&self) -> (f64, f64) {
        match self.cfg.step_reading {
            StepReading::Printed => (self.cfg.alpha, self.cfg.beta),
            StepReading::Swapped => (self.cfg.beta, self.cfg.alpha),
        }
    }

    fn may_update(&self, now: Time) -> bool {
        now.saturating_sub(self.prev_time) > self.cfg.min_interval.0
    }

    fn increase(&mut self, now: Time) {
        if self.may_update(now) {
            self.p = (self.p + self.steps().0).min(1.0);
            self.prev_time = now;
        }
    }

    fn decrease(&mut self, now: Time) {
        if self.may_update(now) {
            self.p = (self.p - self.steps().1).max(0.0);
            self.prev_time = now;
        }
    }
}

impl Aqm for Newque {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        let now = q.now;
        self.estimate(now, pkt.size as f64 * 8.0);
        let c = q.link_rate_bps as f64;
        let (eq, b) = match q.limit {
            QueueLimit::Packets(n) => (q.len_packets as f64 + 1.0, n as f64),
            QueueLimit::Bytes(n) => ((q.len_bytes + pkt.size as u64) as f64, n as f64),
        };
        let over_rate = self.r >= c;
        if over_rate || eq >= b {
            self.increase(now);
        }
        if !over_rate {
            self.decrease(now);
        }
        if eq > b {
            ArrivalVerdict::DropFront(DropKind::Forced)
        } else if over_rate && rng.uniform() < self.p {
            if self.cfg.ecn && pkt.ecn.ect {
                ArrivalVerdict::MarkFront
            } else {
                ArrivalVerdict::DropFront(DropKind::Early)
            }
        } else {
            ArrivalVerdict::Enqueue
        }
    }

    fn on_link_idle(&mut self, now: Time) {
        self.decrease(now);
    }

    fn state(&self, out: &mut StateSink) {
        out("p", self.p);
        out("r_bps", self.r);
    }
}

pub fn build(p: &AqmParams, _env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let cfg: NewqueParams = p.parse()?;
    p.in_range("alpha", cfg.alpha, 0.0, 1.0)?;
    p.in_range("beta", cfg.beta, 0.0, 1.0)?;
    p.require(cfg.k.0 > 0, "k", || "must be > 0".into())?;
    Ok(Box::new(Newque::new(cfg)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_rig::QueueRig;
    use crate::aqm::{FifoQueue, QueueDiscipline};
    use crate::net::PacketKind;

    const MS: Time = 1_000_000;

    fn view(now: Time, len: u32, limit: u32, rate: u64) -> QueueView {
        crate::aqm::test_rig::view_on_link(now, len, limit, rate)
    }

    fn pkt(ect: bool) -> Packet {
        let mut p = crate::aqm::test_rig::packet(PacketKind::TcpData);
        p.ecn.ect = ect;
        p
    }

    #[test]
    fn rate_estimate_follows_eq_4() {
        let mut n = Newque::new(NewqueParams::default());
        let mut rng = crate::aqm::test_rig::rng();
        // 1000 B = 8000 bits every 1 ms. First arrival only starts the clock.
        n.on_arrival(&view(0, 0, 300, 1_000_000_000), &pkt(false), &mut rng);
        assert_eq!(n.r, 0.0);
        n.on_arrival(&view(MS, 0, 300, 1_000_000_000), &pkt(false), &mut rng);
        // w = e^(-0.001/0.1) = e^-0.01 = 0.990049834; r1 = (1-w)*8000/0.001 = 79601.33
        let w = (-0.01f64).exp();
        let r1 = (1.0 - w) * 8e6;
        assert!((n.r - r1).abs() < 1e-6, "{}", n.r);
        assert!((r1 - 79_601.33).abs() < 0.01);
        n.on_arrival(&view(2 * MS, 0, 300, 1_000_000_000), &pkt(false), &mut rng);
        // r2 = (1-w)*8e6 + w*r1 = 79601.33 + 0.990050*79601.33 = 158410.6
        let r2 = (1.0 - w) * 8e6 + w * r1;
        assert!((n.r - r2).abs() < 1e-6);
        assert!((r2 - 158_410.6).abs() < 0.1);
        // Two arrivals at the same instant: the second's bits wait for the next interval.
        n.on_arrival(&view(2 * MS, 0, 300, 1_000_000_000), &pkt(false), &mut rng);
        assert!((n.r - r2).abs() < 1e-6);
        n.on_arrival(&view(4 * MS, 0, 300, 1_000_000_000), &pkt(false), &mut rng);
        // T = 2 ms, l = 16000 bits: w2 = e^-0.02; r3 = (1-w2)*16000/0.002 + w2*r2
        let w2 = (-0.02f64).exp();
        let r3 = (1.0 - w2) * 8e6 + w2 * r2;
        assert!((n.r - r3).abs() < 1e-6);
    }

    #[test]
    fn p_steps_only_after_min_interval() {
        let mut n = Newque::new(NewqueParams::default());
        let mut rng = crate::aqm::test_rig::rng();
        // C = 1 b/s: any positive rate estimate is >= C, so every arrival after the first
        // asks for an increase.
        let c = 1;
        n.on_arrival(&view(0, 0, 300, c), &pkt(false), &mut rng);
        n.on_arrival(&view(50 * MS, 0, 300, c), &pkt(false), &mut rng);
        assert_eq!(n.p, 0.0, "50 ms is not > minTIVL since prevTime = 0");
        n.on_arrival(&view(100 * MS, 0, 300, c), &pkt(false), &mut rng);
        assert_eq!(n.p, 0.0, "exactly minTIVL is not enough (strict >)");
        n.on_arrival(&view(101 * MS, 0, 300, c), &pkt(false), &mut rng);
        assert!((n.p - 0.0001).abs() < 1e-15);
        assert_eq!(n.prev_time, 101 * MS);
        n.on_arrival(&view(150 * MS, 0, 300, c), &pkt(false), &mut rng);
        assert!((n.p - 0.0001).abs() < 1e-15);
        n.on_arrival(&view(202 * MS, 0, 300, c), &pkt(false), &mut rng);
        assert!((n.p - 0.0002).abs() < 1e-15);
        // A full buffer (EQ = 300 >= B) increases P even when r < C.
        let mut m = Newque::new(NewqueParams::default());
        m.on_arrival(
            &view(200 * MS, 299, 300, 1_000_000_000),
            &pkt(false),
            &mut rng,
        );
        assert!((m.p - 0.0001).abs() < 1e-15);
        // Link idle decreases, gated by the same prevTime: 0.0001 - 0.02 clamps at 0.
        m.p = 0.05;
        m.on_link_idle(250 * MS);
        assert_eq!(m.p, 0.05);
        m.on_link_idle(301 * MS);
        assert!((m.p - 0.03).abs() < 1e-15);
        // r < C on arrival decreases too.
        m.on_arrival(
            &view(402 * MS, 0, 300, 1_000_000_000),
            &pkt(false),
            &mut rng,
        );
        assert!((m.p - 0.01).abs() < 1e-15);
    }

    #[test]
    fn swapped_reading_steps_up_by_beta_and_down_by_alpha() {
        let mut n = Newque::new(NewqueParams {
            step_reading: StepReading::Swapped,
            ..Default::default()
        });
        assert_eq!(n.steps(), (0.02, 0.0001));
        let mut rng = crate::aqm::test_rig::rng();
        let c = 1; // C = 1 b/s: every arrival after the first sees r >= C
        n.on_arrival(&view(0, 0, 300, c), &pkt(false), &mut rng);
        // t = 101 ms: r >= C and 101 > 100 ms since prevTime 0: P = 0 + 0.02
        n.on_arrival(&view(101 * MS, 0, 300, c), &pkt(false), &mut rng);
        assert!((n.p - 0.02).abs() < 1e-15, "{}", n.p);
        // t = 150 ms: gated (49 ms since 101 ms)
        n.on_arrival(&view(150 * MS, 0, 300, c), &pkt(false), &mut rng);
        assert!((n.p - 0.02).abs() < 1e-15);
        // t = 202 ms and 303 ms: 0.04, 0.06
        n.on_arrival(&view(202 * MS, 0, 300, c), &pkt(false), &mut rng);
        n.on_arrival(&view(303 * MS, 0, 300, c), &pkt(false), &mut rng);
        assert!((n.p - 0.06).abs() < 1e-15, "{}", n.p);
        // link idle at 404 ms: P = 0.06 - 0.0001 = 0.0599; at 505 ms: 0.0598
        n.on_link_idle(404 * MS);
        assert!((n.p - 0.0599).abs() < 1e-15, "{}", n.p);
        n.on_link_idle(450 * MS); // gated
        n.on_link_idle(505 * MS);
        assert!((n.p - 0.0598).abs() < 1e-15, "{}", n.p);
        // The printed reading at the same events: 0.0001, 0.0002, 0.0003, then 0 (clamped).
        let mut m = Newque::new(NewqueParams::default());
        assert_eq!(m.steps(), (0.0001, 0.02));
        for t in [0, 101, 150, 202, 303] {
            m.on_arrival(&view(t * MS, 0, 300, c), &pkt(false), &mut rng);
        }
        assert!((m.p - 0.0003).abs() < 1e-15, "{}", m.p);
        m.on_link_idle(404 * MS);
        assert_eq!(m.p, 0.0);
    }

    #[test]
    fn overflow_drops_the_front_packet() {
        let mut n = Newque::new(NewqueParams::default());
        let mut rng = crate::aqm::test_rig::rng();
        // EQ = 10 + 1 > B = 10
        assert_eq!(
            n.on_arrival(&view(0, 10, 10, 1_000_000_000), &pkt(true), &mut rng),
            ArrivalVerdict::DropFront(DropKind::Forced)
        );
        // EQ = 10 = B: enqueue (r < C), though P is asked to grow
        assert_eq!(
            n.on_arrival(&view(MS, 9, 10, 1_000_000_000), &pkt(true), &mut rng),
            ArrivalVerdict::Enqueue
        );
    }

    #[test]
    fn front_marking_and_front_dropping_with_probability_p() {
        let mut n = Newque::new(NewqueParams::default());
        let mut rng = crate::aqm::test_rig::rng();
        n.p = 1.0;
        n.prev_time = 0;
        let c = 1; // r >= C after the first arrival
        n.on_arrival(&view(0, 5, 300, c), &pkt(true), &mut rng);
        assert_eq!(
            n.on_arrival(&view(MS, 5, 300, c), &pkt(true), &mut rng),
            ArrivalVerdict::MarkFront
        );
        assert_eq!(
            n.on_arrival(&view(2 * MS, 5, 300, c), &pkt(false), &mut rng),
            ArrivalVerdict::DropFront(DropKind::Early)
        );
        n.cfg.ecn = false;
        assert_eq!(
            n.on_arrival(&view(3 * MS, 5, 300, c), &pkt(true), &mut rng),
            ArrivalVerdict::DropFront(DropKind::Early)
        );
        // P = 0: never
        n.p = 0.0;
        n.prev_time = 3 * MS;
        assert_eq!(
            n.on_arrival(&view(4 * MS, 5, 300, c), &pkt(true), &mut rng),
            ArrivalVerdict::Enqueue
        );
    }

    #[test]
    fn fifo_marks_the_first_unmarked_queued_packet() {
        let mut n = Newque::new(NewqueParams {
            ecn: true,
            ..Default::default()
        });
        n.p = 1.0;
        let mut r = QueueRig::new(FifoQueue::new(Box::new(n), QueueLimit::Packets(3), 1));
        let ids: Vec<_> = (0..5)
            .map(|i| r.enqueue(i as Time * MS, pkt(true)))
            .collect();
        // arrival 0: starts the clock (r = 0 < C? no: C = 1 b/s and r = 0 < 1 -> enqueue)
        // arrivals 1, 2: r >= C, P = 1: mark the first unmarked queued packet (ids 0, 1)
        // arrival 3: queue has 3 = B; EQ = 4 > B: front drop (id 0), enqueue id 3
        // arrival 4: EQ = 4 > B: front drop (id 1)
        assert_eq!(r.dropped, vec![ids[0], ids[1]]);
        assert_eq!(r.stats.forced_drops, 2);
        assert_eq!(r.stats.marks, 2);
        assert!(r.arena.get(ids[0]).ecn.ce && r.arena.get(ids[1]).ecn.ce);
        assert!(!r.arena.get(ids[2]).ecn.ce);
        assert_eq!(r.q.len_packets(), 3);
    }

    #[test]
    fn invalid_parameters_name_the_field() {
        let env = crate::aqm::test_rig::env(300);
        let p = AqmParams::new(serde_json::json!({"beta": 2.0}), "q.aqm");
        assert_eq!(build(&p, &env).err().unwrap().path, "q.aqm.beta");
        let p = AqmParams::new(serde_json::json!({"k": 0}), "q.aqm");
        assert_eq!(build(&p, &env).err().unwrap().path, "q.aqm.k");
        let p = AqmParams::new(serde_json::json!({"step_reading": "reversed"}), "q.aqm");
        assert_eq!(build(&p, &env).err().unwrap().path, "q.aqm.step_reading");
        let p = AqmParams::new(serde_json::json!({"step_reading": "swapped"}), "q.aqm");
        assert!(build(&p, &env).is_ok());
    }
}
