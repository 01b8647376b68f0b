//! PIE: proportional integral controller enhanced.
//!
//! Sources: RFC 8033 (R. Pan et al., 2017), sections 4.1-4.4 and 5, pseudocode in appendix A
//! (timestamp-free version with departure-rate estimation, appendix B); Linux
//! `net/sched/sch_pie.c` and `net/sched/pie.c` (5.6+).
//!
//! Every `t_update`: with qdelay the current queueing-delay estimate and qdelay_old the one
//! of the previous update,
//!   p += alpha' (qdelay - target) + beta' (qdelay - qdelay_old)   (delays in seconds)
//! where alpha', beta' are alpha, beta divided by 2 if p < 0.1, and by a further 4 for each
//! decade below: /8 if p < 1e-2, /32 < 1e-3, /128 < 1e-4, /512 < 1e-5, /2048 < 1e-6
//! (RFC 8033 4.2; Linux `pie_calculate_probability`). When p >= 0.1 one step adds at most
//! 0.02 (both sources). If qdelay and qdelay_old are both 0, p *= 0.98 (RFC 8033 4.2;
//! Linux uses 1 - 1/64). p is clamped to [0, 1]. The burst allowance (initially `max_burst`)
//! shrinks by t_update per update (RFC 8033; Linux counts dequeue time instead) and is
//! restored, with accu_prob cleared, once p = 0 and both delays are below target/2.
//!
//! Arrival: forced drop if the buffer is full. Otherwise no early drop while burst allowance
//! remains, while qdelay < target/2 and p < 0.2, or while the backlog is under 2 `mtu`.
//! Else de-randomized: accu_prob += p (cleared when p = 0); below 0.85 enqueue, at 8.5 or
//! above drop, in between drop with probability p. A drop (or mark) clears accu_prob; a
//! packet picked is CE-marked instead of dropped if ECN is on, it is ECT and p <= `ecn_prob`
//! (10%). Linux does not clear accu_prob after a mark; aqmlab follows RFC 8033, which treats
//! a mark like a drop.
//!
//! Queueing delay, `delay_estimator`:
//! - "timestamp" (default, Linux's default since 5.6): the sojourn time of the last packet
//!   dequeued, 0 when the queue is then empty.
//! - "rate" (RFC 8033 appendix B): qdelay = queue bytes * avg_dq_time / dq_threshold at each
//!   update, avg_dq_time being the time to send dq_threshold (16 KiB) bytes, measured while
//!   the queue holds at least that much, averaged with weight dq_threshold / 2^16 = 1/4.
//!
//! Omitted: Linux's extra +2% step when qdelay > 250 ms (not in RFC 8033) and byte mode.
//!
//! Parameters:
//! - `target` (15 ms, time): target queueing delay (QDELAY_REF)
//! - `t_update` (15 ms, time): update period
//! - `alpha` (0.125, 1/s), `beta` (1.25, 1/s): controller gains before scaling
//! - `max_burst` (150 ms, time): burst allowance
//! - `mtu` (1514, bytes): no early drop while the backlog is below 2 mtu
//! - `ecn` (false, bool), `ecn_prob` (0.1): mark ECT packets while p <= ecn_prob
//! - `delay_estimator` ("timestamp" | "rate")
//! - `dq_threshold` (16384, bytes): departure-rate measurement size ("rate" only)

use super::params::AqmParams;
use super::registry::ParamDoc;
use super::{Aqm, ArrivalVerdict, DepartureVerdict, DropKind, QueueEnv, QueueView, StateSink};
use crate::net::Packet;
use crate::scenario::units::Duration;
use crate::scenario::ScenarioError;
use crate::sim::{time, RngStream, Time};
use serde::Deserialize;

pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "target",
        default: "15ms",
        unit: "time",
        meaning: "target queueing delay",
    },
    ParamDoc {
        name: "t_update",
        default: "15ms",
        unit: "time",
        meaning: "probability update period",
    },
    ParamDoc {
        name: "alpha",
        default: "0.125",
        unit: "1/s",
        meaning: "gain on the delay error (scaled down for small p)",
    },
    ParamDoc {
        name: "beta",
        default: "1.25",
        unit: "1/s",
        meaning: "gain on the delay trend (scaled down for small p)",
    },
    ParamDoc {
        name: "max_burst",
        default: "150ms",
        unit: "time",
        meaning: "burst allowance",
    },
    ParamDoc {
        name: "mtu",
        default: "1514",
        unit: "bytes",
        meaning: "no early drop while backlog < 2 mtu",
    },
    ParamDoc {
        name: "ecn",
        default: "false",
        unit: "bool",
        meaning: "mark ECT packets while p <= ecn_prob",
    },
    ParamDoc {
        name: "ecn_prob",
        default: "0.1",
        unit: "probability",
        meaning: "above this p, ECT packets are dropped too",
    },
    ParamDoc {
        name: "delay_estimator",
        default: "timestamp",
        unit: "\"timestamp\" | \"rate\"",
        meaning: "sojourn of the last dequeued packet (Linux) or bytes / departure rate (RFC 8033 app. B)",
    },
    ParamDoc {
        name: "dq_threshold",
        default: "16384",
        unit: "bytes",
        meaning: "departure-rate measurement size",
    },
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DelayEstimator {
    Timestamp,
    Rate,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PieParams {
    pub target: Duration,
    pub t_update: Duration,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Duration,
    pub mtu: u32,
    pub ecn: bool,
    pub ecn_prob: f64,
    pub delay_estimator: DelayEstimator,
    pub dq_threshold: u64,
}

impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            target: Duration(15_000_000),
            t_update: Duration(15_000_000),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Duration(150_000_000),
            mtu: 1514,
            ecn: false,
            ecn_prob: 0.1,
            delay_estimator: DelayEstimator::Timestamp,
            dq_threshold: 16384,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Pie {
    pub cfg: PieParams,
    pub p: f64,
    /// Current queueing-delay estimate.
    pub qdelay: Time,
    /// The estimate at the previous update.
    pub qdelay_old: Time,
    pub burst_allowance: Time,
    pub accu_prob: f64,
    // Departure-rate estimation (RFC 8033 appendix B).
    in_measurement: bool,
    dq_count: u64,
    measurement_start: Time,
    /// Seconds to send dq_threshold bytes; 0 until measured.
    pub avg_dq_time: f64,
}

impl Pie {
    pub fn new(cfg: PieParams) -> Self {
        let burst = cfg.max_burst.0;
        Pie {
            cfg,
            p: 0.0,
            qdelay: 0,
            qdelay_old: 0,
            burst_allowance: burst,
            accu_prob: 0.0,
            in_measurement: false,
            dq_count: 0,
            measurement_start: 0,
            avg_dq_time: 0.0,
        }
    }

    /// alpha and beta scaled by how small p is (RFC 8033 4.2).
    pub fn scaled_gains(&self) -> (f64, f64) {
        let (mut a, mut b) = (self.cfg.alpha, self.cfg.beta);
        if self.p < 0.1 {
            a /= 2.0;
            b /= 2.0;
            let mut power = 100.0;
            while self.p < 1.0 / power && power <= 1e6 {
                a /= 4.0;
                b /= 4.0;
                power *= 10.0;
            }
        }
        (a, b)
    }

    pub fn update(&mut self, len_bytes: u64) {
        if self.cfg.delay_estimator == DelayEstimator::Rate {
            self.qdelay = if self.avg_dq_time > 0.0 {
                time::from_secs_f64(
                    len_bytes as f64 * self.avg_dq_time / self.cfg.dq_threshold as f64,
                )
            } else {
                0
            };
        }
        let qd = time::to_secs_f64(self.qdelay);
        let qo = time::to_secs_f64(self.qdelay_old);
        let target = self.cfg.target.secs();
        let (a, b) = self.scaled_gains();
        let mut delta = a * (qd - target) + b * (qd - qo);
        if delta > 0.02 && self.p >= 0.1 {
            delta = 0.02;
        }
        self.p += delta;
        if self.qdelay == 0 && self.qdelay_old == 0 {
            self.p *= 0.98;
        }
        self.p = self.p.clamp(0.0, 1.0);
        self.burst_allowance = self.burst_allowance.saturating_sub(self.cfg.t_update.0);
        if self.p == 0.0 && qd < target / 2.0 && qo < target / 2.0 && self.burst_allowance == 0 {
            self.burst_allowance = self.cfg.max_burst.0;
            self.accu_prob = 0.0;
        }
        self.qdelay_old = self.qdelay;
    }

    fn drop_early(&mut self, q: &QueueView, rng: &mut RngStream) -> bool {
        if self.burst_allowance > 0 {
            return false;
        }
        if self.qdelay < self.cfg.target.0 / 2 && self.p < 0.2 {
            return false;
        }
        if q.len_bytes < 2 * self.cfg.mtu as u64 {
            return false;
        }
        if self.p == 0.0 {
            self.accu_prob = 0.0;
        } else {
            self.accu_prob += self.p;
        }
        if self.accu_prob < 0.85 {
            return false;
        }
        if self.accu_prob >= 8.5 {
            return true;
        }
        rng.uniform() < self.p
    }

    fn on_dequeue_rate(&mut self, now: Time, size: u32, left_bytes: u64) {
        if self.in_measurement {
            self.dq_count += size as u64;
            if self.dq_count >= self.cfg.dq_threshold {
                let dq_time = time::to_secs_f64(now - self.measurement_start);
                if self.avg_dq_time == 0.0 {
                    self.avg_dq_time = dq_time;
                } else {
                    let w = self.cfg.dq_threshold as f64 / 65536.0;
                    self.avg_dq_time = dq_time * w + self.avg_dq_time * (1.0 - w);
                }
                self.in_measurement = false;
            }
        }
        if left_bytes >= self.cfg.dq_threshold && !self.in_measurement {
            self.in_measurement = true;
            self.measurement_start = now;
            self.dq_count = 0;
        }
    }
}

impl Aqm for Pie {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        if q.is_full_for(pkt.size) {
            self.accu_prob = 0.0;
            return ArrivalVerdict::Drop(DropKind::Forced);
        }
        if !self.drop_early(q, rng) {
            return ArrivalVerdict::Enqueue;
        }
        self.accu_prob = 0.0;
        if self.cfg.ecn && pkt.ecn.ect && self.p <= self.cfg.ecn_prob {
            ArrivalVerdict::Mark
        } else {
            ArrivalVerdict::Drop(DropKind::Early)
        }
    }

    fn on_departure(
        &mut self,
        q: &QueueView,
        pkt: &Packet,
        _rng: &mut RngStream,
    ) -> DepartureVerdict {
        match self.cfg.delay_estimator {
            DelayEstimator::Timestamp => {
                self.qdelay = if q.len_packets == 0 {
                    0
                } else {
                    q.now.saturating_sub(pkt.enqueued_at)
                };
            }
            DelayEstimator::Rate => self.on_dequeue_rate(q.now, pkt.size, q.len_bytes),
        }
        DepartureVerdict::Send
    }

    fn timer_interval(&self) -> Option<Time> {
        Some(self.cfg.t_update.0)
    }

    fn on_timer(&mut self, q: &QueueView, _rng: &mut RngStream) {
        self.update(q.len_bytes);
    }

    fn state(&self, out: &mut StateSink) {
        out("p", self.p);
        out("qdelay_ms", time::to_secs_f64(self.qdelay) * 1e3);
        out(
            "burst_allowance_ms",
            time::to_secs_f64(self.burst_allowance) * 1e3,
        );
        out("accu_prob", self.accu_prob);
    }
}

pub fn build(p: &AqmParams, _env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let cfg: PieParams = p.parse()?;
    p.require(cfg.t_update.0 > 0, "t_update", || "must be > 0".into())?;
    p.require(cfg.alpha.is_finite() && cfg.alpha >= 0.0, "alpha", || {
        format!("must be >= 0, got {}", cfg.alpha)
    })?;
    p.require(cfg.beta.is_finite() && cfg.beta >= 0.0, "beta", || {
        format!("must be >= 0, got {}", cfg.beta)
    })?;
    p.in_range("ecn_prob", cfg.ecn_prob, 0.0, 1.0)?;
    p.require(cfg.dq_threshold > 0, "dq_threshold", || {
        "must be > 0".into()
    })?;
    Ok(Box::new(Pie::new(cfg)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::QueueLimit;
    use crate::net::PacketKind;
    use crate::sim::StreamKind;

    const MS: Time = 1_000_000;

    fn view(now: Time, len: u32) -> QueueView {
        QueueView {
            now,
            len_packets: len,
            len_bytes: len as u64 * 1000,
            limit: QueueLimit::Packets(100),
            link_rate_bps: 10_000_000,
            idle_since: None,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12 * b.abs().max(1e-9)
    }

    #[test]
    fn p_update_with_scaling_branches_and_the_two_percent_cap() {
        let mut pie = Pie::new(PieParams::default());
        // p = 0 < 1e-6: gains / 2048. qdelay 30 ms, old 0, target 15 ms:
        // delta = (0.125*0.015 + 1.25*0.030) / 2048 = 0.039375/2048 = 1.92261e-5
        pie.qdelay = 30 * MS;
        pie.update(0);
        assert!(close(pie.p, 0.039375 / 2048.0), "{}", pie.p);
        // p = 1.92e-5 in [1e-5, 1e-4): / 128. qdelay 30 ms, old 30 ms:
        // delta = 0.125*0.015/128 = 1.46484e-5 -> p = 3.38745e-5
        pie.update(0);
        let p2 = 0.039375 / 2048.0 + 0.001875 / 128.0;
        assert!(close(pie.p, p2), "{}", pie.p);
        // p = 0.05 in [0.01, 0.1): / 2 only. delta = 0.001875/2 = 9.375e-4
        pie.p = 0.05;
        pie.update(0);
        assert!(close(pie.p, 0.05 + 0.0009375), "{}", pie.p);
        // p = 0.5: unscaled; qdelay 100 ms, old 30 ms: 0.125*0.085 + 1.25*0.07 = 0.098 ->
        // capped at 0.02
        pie.p = 0.5;
        pie.qdelay = 100 * MS;
        pie.update(0);
        assert!(close(pie.p, 0.52), "{}", pie.p);
        // falling delay: qdelay 10 ms, old 100 ms: 0.125*(-0.005) + 1.25*(-0.09) = -0.113125
        pie.qdelay = 10 * MS;
        pie.update(0);
        assert!(close(pie.p, 0.52 - 0.113125), "{}", pie.p);
    }

    #[test]
    fn p_decays_when_the_queue_stays_empty() {
        let mut pie = Pie::new(PieParams::default());
        pie.p = 0.5;
        // qdelay 0, old 0: delta = 0.125*(-0.015) = -0.001875; then * 0.98
        pie.update(0);
        assert!(close(pie.p, (0.5 - 0.001875) * 0.98), "{}", pie.p);
    }

    #[test]
    fn burst_allowance_then_derandomized_drops() {
        let mut pie = Pie::new(PieParams::default());
        let mut rng = RngStream::new(1, StreamKind::Queue, 0);
        let pkt = Packet::new(PacketKind::Udp, 0, 0, 1, 0, 1000);
        pie.p = 1.0;
        pie.qdelay = 100 * MS;
        // 150 ms of allowance = 10 updates of 15 ms; no early drop meanwhile.
        for k in 0..10 {
            assert_eq!(
                pie.on_arrival(&view(0, 50), &pkt, &mut rng),
                ArrivalVerdict::Enqueue,
                "update {k}"
            );
            pie.qdelay_old = pie.qdelay;
            pie.update(50_000);
        }
        assert_eq!(pie.burst_allowance, 0);
        assert_eq!(
            pie.on_arrival(&view(0, 50), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        assert_eq!(pie.accu_prob, 0.0);
        // p = 0.3: accu 0.3, 0.6 never drop (< 0.85)
        pie.p = 0.3;
        for _ in 0..2 {
            assert_eq!(
                pie.on_arrival(&view(0, 50), &pkt, &mut rng),
                ArrivalVerdict::Enqueue
            );
        }
        assert!(close(pie.accu_prob, 0.6));
        // accu reaching 8.5 always drops
        pie.p = 0.1;
        pie.accu_prob = 8.4;
        assert_eq!(
            pie.on_arrival(&view(0, 50), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        // small backlog (2 packets = 2000 B < 2*1514) or low delay with p < 0.2: no drop
        pie.accu_prob = 100.0;
        assert_eq!(
            pie.on_arrival(&view(0, 2), &pkt, &mut rng),
            ArrivalVerdict::Enqueue
        );
        pie.qdelay = 7 * MS;
        pie.p = 0.19;
        assert_eq!(
            pie.on_arrival(&view(0, 50), &pkt, &mut rng),
            ArrivalVerdict::Enqueue
        );
        // full buffer: forced
        assert_eq!(
            pie.on_arrival(&view(0, 100), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Forced)
        );
    }

    #[test]
    fn ecn_marks_only_while_p_is_at_most_ten_percent() {
        let mut pie = Pie::new(PieParams {
            ecn: true,
            ..Default::default()
        });
        let mut rng = RngStream::new(1, StreamKind::Queue, 0);
        let mut pkt = Packet::new(PacketKind::TcpData, 0, 0, 1, 0, 1000);
        pkt.ecn.ect = true;
        pie.burst_allowance = 0;
        pie.qdelay = 100 * MS;
        pie.p = 0.1;
        pie.accu_prob = 9.0;
        assert_eq!(
            pie.on_arrival(&view(0, 50), &pkt, &mut rng),
            ArrivalVerdict::Mark
        );
        pie.p = 0.11;
        pie.accu_prob = 9.0;
        assert_eq!(
            pie.on_arrival(&view(0, 50), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
    }

    #[test]
    fn timestamp_estimator_uses_sojourn_of_departing_packet() {
        let mut pie = Pie::new(PieParams::default());
        let mut rng = RngStream::new(1, StreamKind::Queue, 0);
        let mut pkt = Packet::new(PacketKind::Udp, 0, 0, 1, 0, 1000);
        pkt.enqueued_at = 10 * MS;
        pie.on_departure(&view(42 * MS, 3), &pkt, &mut rng);
        assert_eq!(pie.qdelay, 32 * MS);
        pie.on_departure(&view(43 * MS, 0), &pkt, &mut rng);
        assert_eq!(pie.qdelay, 0, "an emptied queue has no delay");
    }

    #[test]
    fn rate_estimator_measures_departures_of_dq_threshold_bytes() {
        let mut pie = Pie::new(PieParams {
            delay_estimator: DelayEstimator::Rate,
            ..Default::default()
        });
        let mut rng = RngStream::new(1, StreamKind::Queue, 0);
        let pkt = Packet::new(PacketKind::Udp, 0, 0, 1, 0, 1000);
        // 1000 B every 0.8 ms (10 Mb/s) with 20000 B left: the measurement starts at the
        // first departure; 17 more make 17000 >= 16384 B at 17 * 0.8 = 13.6 ms.
        for k in 0..=17u64 {
            pie.on_departure(&view(k * 800_000, 20), &pkt, &mut rng);
        }
        assert!(close(pie.avg_dq_time, 0.0136), "{}", pie.avg_dq_time);
        // qdelay = 20000 * 0.0136 / 16384 = 16.6016 ms
        pie.update(20_000);
        assert!(pie.qdelay.abs_diff(16_601_562) <= 1, "{}", pie.qdelay);
        // a second measurement of 0.0116 s averages in with weight 1/4:
        // 0.25*0.0116 + 0.75*0.0136 = 0.0131
        for k in 1..=17u64 {
            pie.on_departure(&view(13_600_000 + k * 11_600_000 / 17, 20), &pkt, &mut rng);
        }
        assert!(
            (pie.avg_dq_time - 0.0131).abs() < 1e-9,
            "{}",
            pie.avg_dq_time
        );
    }

    #[test]
    fn invalid_parameters_name_the_field() {
        let env = QueueEnv {
            link_rate_bps: 10_000_000,
            link_delay: 0,
            limit: QueueLimit::Packets(100),
        };
        let p = AqmParams::new(serde_json::json!({"alpha": -1}), "q.aqm");
        assert_eq!(build(&p, &env).err().unwrap().path, "q.aqm.alpha");
        let p = AqmParams::new(serde_json::json!({"delay_estimator": "guess"}), "q.aqm");
        let e = build(&p, &env).err().unwrap();
        assert!(e.path.contains("delay_estimator"), "{e}");
    }
}
