//! Hybrid RED: gentle RED that also looks at the instantaneous queue.
//!
//! Source: A. Haider, R. J. Harris, "A Hybrid Random Early Detection Algorithm for Improving
//! End-to-End Congestion Control in TCP/IP Networks" (seed 002), section V, eq. 10 and
//! Algorithm 1; reading recorded in ../shared/specs/seed-algorithms.md.
//!
//! Two additions to gentle RED (which stays exactly ns-2's RED otherwise: [`Red::decide`]):
//! - EWMA reduction (sec. V-A, eq. 10): a counter of consecutive arrivals that see q <= min_th
//!   (reset by an arrival with q > min_th). When it reaches `theta`, that arrival updates
//!   avg <- ((1 - w)/xi) avg + w q instead of avg <- (1 - w) avg + w q, and the counter restarts.
//!   Idle time: the ns-2 idle decay avg (1-w)^m is applied first
//!   ([`EwmaQueueAverage::decayed_for_idle`]), then the reduced step replaces the arrival's own
//!   step, so that with xi = 1 the update is exactly RED's.
//! - Enqueue rule (sec. V-B, Algorithm 1 lines 29-36, the conservative variant the paper
//!   adopts): region 10, max_th < avg < 2 max_th and q < min_th, enqueues without an early
//!   drop. Optional region 7 (`region7`): avg > max_th and min_th < q < max_th, as Algorithm 1
//!   line 32 writes it (no upper bound on avg). In these regions the packet still counts as an
//!   arrival for RED's `count`/`old` state (it is an unmarked packet since the last drop); a
//!   full buffer still drops.
//!
//! LPF/ODA ([`super::lpf_oda`]) is this algorithm with theta = 3, xi = 2 and no enqueue rule.
//!
//! Parameters (plus every RED parameter, see [`super::red`]; the paper uses min_th 5,
//! max_th 15, w_q 0.002, max_p 0.1, gentle, drop mode):
//! - `theta` (arrivals, 1): consecutive arrivals with q <= min_th that trigger one reduced
//!   update; >= 1. A huge value turns the reduction off.
//! - `xi` (factor, 1.25): divides the (1 - w) avg term; >= 1 (xi < 1 would raise avg). The paper
//!   recommends theta = 1 and xi < 1.5 (sec. VI-B) and plots {1, 1.25} (Figs. 9, 14); 1.25 is
//!   the middle of its Table II.
//! - `enqueue_rule` (bool, true): region 10.
//! - `region7` (bool, false): region 7 as well.

use super::params::AqmParams;
use super::red::{concat_docs, docs_len, parse_variant, Red, RedConfig, RED_PARAM_DOCS};
use super::registry::doc;
use super::registry::ParamDoc;
use super::{Aqm, ArrivalVerdict, QueueEnv, QueueView, StateSink};
use crate::net::Packet;
use crate::scenario::ScenarioError;
use crate::sim::{RngStream, Time};
use serde::Deserialize;

const OWN_DOCS: &[ParamDoc] = &[
    doc(
        "theta",
        "1",
        "arrivals",
        "consecutive arrivals with q <= min_th that trigger the reduced EWMA update (eq. 10)",
    ),
    doc(
        "xi",
        "1.25",
        "factor",
        "reduction: avg <- ((1-w)/xi)*avg + w*q; >= 1",
    ),
    doc(
        "enqueue_rule",
        "true",
        "bool",
        "region 10: enqueue without early drop when max_th < avg < 2*max_th and q < min_th",
    ),
    doc(
        "region7",
        "false",
        "bool",
        "also enqueue when avg > max_th and min_th < q < max_th",
    ),
];

pub const PARAMS: &[ParamDoc] =
    &concat_docs::<{ docs_len(&[OWN_DOCS, RED_PARAM_DOCS]) }>(&[OWN_DOCS, RED_PARAM_DOCS]);

const OWN_KEYS: &[&str] = &["theta", "xi", "enqueue_rule", "region7"];

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HybridParams {
    pub theta: f64,
    pub xi: f64,
    pub enqueue_rule: bool,
    pub region7: bool,
}

impl Default for HybridParams {
    fn default() -> Self {
        HybridParams {
            theta: 1.0,
            xi: 1.25,
            enqueue_rule: true,
            region7: false,
        }
    }
}

/// The settings Hybrid RED adds to RED, validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HybridOptions {
    pub theta: u64,
    pub xi: f64,
    pub enqueue_rule: bool,
    pub region7: bool,
}

impl HybridParams {
    pub fn resolve(&self, p: &AqmParams) -> Result<HybridOptions, ScenarioError> {
        // theta is read as a number so that 0, negative and fractional values get a message
        // naming it rather than a type error.
        p.require(
            self.theta.is_finite() && self.theta >= 1.0 && self.theta.fract() == 0.0,
            "theta",
            || {
                format!(
                    "must be a whole number of arrivals >= 1, got {}",
                    self.theta
                )
            },
        )?;
        p.require(self.xi.is_finite() && self.xi >= 1.0, "xi", || {
            format!(
                "must be >= 1 (xi < 1 would increase avg instead of reducing it), got {}",
                self.xi
            )
        })?;
        Ok(HybridOptions {
            theta: self.theta.min(u64::MAX as f64) as u64,
            xi: self.xi,
            enqueue_rule: self.enqueue_rule,
            region7: self.region7,
        })
    }
}

#[derive(Debug, Clone)]
pub struct HybridRed {
    pub red: Red,
    pub opts: HybridOptions,
    /// Consecutive arrivals that saw q <= min_th since the last reduced update.
    pub low_run: u64,
    /// Reduced updates so far (state time series).
    pub reductions: u64,
    /// Arrivals let in by the enqueue rule so far.
    pub rule_enqueues: u64,
}

impl HybridRed {
    pub fn new(cfg: RedConfig, opts: HybridOptions) -> Self {
        HybridRed {
            red: Red::new(cfg),
            opts,
            low_run: 0,
            reductions: 0,
            rule_enqueues: 0,
        }
    }

    /// Eq. 10: the EWMA update of one arrival seeing `q` (RED's unit).
    fn update_avg(&mut self, now: Time, q: f64) -> f64 {
        if q <= self.red.cfg.min_th {
            self.low_run += 1;
        } else {
            self.low_run = 0;
        }
        if self.low_run >= self.opts.theta {
            self.low_run = 0;
            self.reductions += 1;
            let w = self.red.ewma.weight;
            let decayed = self.red.ewma.decayed_for_idle(now);
            self.red.ewma.avg = (1.0 - w) / self.opts.xi * decayed + w * q;
            self.red.ewma.avg
        } else {
            self.red.ewma.update(now, q)
        }
    }

    /// Algorithm 1, ENQUEUEPACKETS: does the enqueue rule spare this arrival?
    fn in_enqueue_region(&self, avg: f64, q: f64) -> bool {
        let c = &self.red.cfg;
        let region10 =
            self.opts.enqueue_rule && avg > c.max_th && avg < 2.0 * c.max_th && q < c.min_th;
        let region7 = self.opts.region7 && avg > c.max_th && q > c.min_th && q < c.max_th;
        region10 || region7
    }
}

impl Aqm for HybridRed {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        let qn = self.red.q(q);
        let avg = self.update_avg(q.now, qn);
        if self.in_enqueue_region(avg, qn) {
            self.rule_enqueues += 1;
            // p_b = 0 and not forced: RED's bookkeeping (count, old, full buffer) without an
            // early drop.
            return self.red.decide(q, pkt, rng, avg, 0.0, false);
        }
        let p_b = self.red.cfg.p_b(avg);
        let forced = avg >= self.red.cfg.forced_drop_avg();
        self.red.decide(q, pkt, rng, avg, p_b, forced)
    }

    fn on_link_idle(&mut self, now: Time) {
        self.red.ewma.on_link_idle(now);
    }

    fn state(&self, out: &mut StateSink) {
        self.red.report(out);
        out("low_run", self.low_run as f64);
        out("reductions", self.reductions as f64);
        out("rule_enqueues", self.rule_enqueues as f64);
    }
}

/// Builds Hybrid RED from RED parameters and fixed options (LPF/ODA uses this).
pub fn build_with(
    red_params: &super::red::RedParams,
    opts: HybridOptions,
    p: &AqmParams,
    env: &QueueEnv,
) -> Result<HybridRed, ScenarioError> {
    Ok(HybridRed::new(red_params.resolve(env, p)?, opts))
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let (own, red): (HybridParams, _) = parse_variant(p, OWN_KEYS, &[])?;
    let opts = own.resolve(p)?;
    Ok(Box::new(build_with(&red, opts, p, env)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{DropKind, QueueLimit};
    use crate::net::PacketKind;
    use crate::sim::StreamKind;

    pub(crate) fn cfg(w_q: f64) -> RedConfig {
        RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q,
            gentle: true,
            wait: true,
            bytes: false,
            mean_pkt_size: 500,
            ecn: false,
            mark_p: 0.1,
            ptc: 1250.0,
        }
    }

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

    fn pkt() -> Packet {
        Packet::new(PacketKind::Udp, 0, 0, 1, 0, 1000)
    }

    fn opts(theta: u64, xi: f64, enqueue_rule: bool) -> HybridOptions {
        HybridOptions {
            theta,
            xi,
            enqueue_rule,
            region7: false,
        }
    }

    #[test]
    fn ewma_reduction_after_theta_low_arrivals() {
        // w = 0.5, theta = 2, xi = 2, start avg = 8 (busy link: no idle decay).
        let mut h = HybridRed::new(cfg(0.5), opts(2, 2.0, false));
        h.red.ewma.avg = 8.0;
        h.red.ewma.update(0, 8.0); // clears the initial idle state: avg = 8
        let mut rng = RngStream::new(1, StreamKind::Queue, 0);
        // arrival 1, q = 2 <= 5: run = 1 < theta, normal: 0.5*8 + 0.5*2 = 5
        h.on_arrival(&view(1, 2), &pkt(), &mut rng);
        assert_eq!(h.red.ewma.avg, 5.0);
        assert_eq!(h.low_run, 1);
        // arrival 2, q = 3: run = 2 = theta, reduced: (0.5/2)*5 + 0.5*3 = 1.25 + 1.5 = 2.75
        h.on_arrival(&view(2, 3), &pkt(), &mut rng);
        assert_eq!(h.red.ewma.avg, 2.75);
        assert_eq!(h.low_run, 0);
        assert_eq!(h.reductions, 1);
        // arrival 3, q = 6 > 5: normal, run stays 0: 0.5*2.75 + 3 = 4.375
        h.on_arrival(&view(3, 6), &pkt(), &mut rng);
        assert_eq!(h.red.ewma.avg, 4.375);
        // arrival 4, q = 5 (= min_th counts as low): run 1, normal: 2.1875 + 2.5 = 4.6875
        h.on_arrival(&view(4, 5), &pkt(), &mut rng);
        assert_eq!(h.red.ewma.avg, 4.6875);
        assert_eq!(h.low_run, 1);
        // a high arrival in between resets the run: q = 9 -> run 0
        h.on_arrival(&view(5, 9), &pkt(), &mut rng);
        assert_eq!(h.low_run, 0);
        assert_eq!(h.reductions, 1);
    }

    #[test]
    fn theta_one_reduces_every_low_arrival_and_idle_decay_comes_first() {
        // ptc = 1250/s, w = 0.1, xi = 1.25, theta = 1.
        let mut h = HybridRed::new(cfg(0.1), opts(1, 1.25, false));
        let mut rng = RngStream::new(1, StreamKind::Queue, 0);
        h.red.ewma.avg = 10.0;
        h.red.ewma.on_link_idle(0);
        // idle 4 ms: m = floor(1250 * 0.004) = 5; decayed = 10 * 0.9^5 = 5.9049;
        // reduced: (0.9/1.25) * 5.9049 + 0.1 * 0 = 0.72 * 5.9049 = 4.251528
        h.on_arrival(&view(4_000_000, 0), &pkt(), &mut rng);
        assert!((h.red.ewma.avg - 0.72 * 10.0 * 0.9f64.powi(5)).abs() < 1e-12);
        assert!((h.red.ewma.avg - 4.251528).abs() < 1e-9);
    }

    #[test]
    fn region_10_enqueues_where_gentle_red_would_drop() {
        // avg held at 20 (between max_th 15 and 2 max_th 30) by a tiny weight.
        let mut rng = RngStream::new(3, StreamKind::Queue, 0);
        let mut h = HybridRed::new(cfg(1e-9), opts(u64::MAX, 1.25, true));
        let mut r = Red::new(cfg(1e-9));
        h.red.ewma.avg = 20.0;
        r.ewma.avg = 20.0;
        h.red.ewma.update(0, 20.0);
        r.ewma.update(0, 20.0);
        h.red.old = true;
        r.old = true;
        // gentle p_b(20) = 0.1 + 0.9*5/15 = 0.4; count 100 -> count*p_b >= 2 -> p_a = 1
        h.red.count = 100;
        r.count = 100;
        // q = 3 < min_th: RED drops (p_a = 1), Hybrid RED enqueues (region 10)
        assert_eq!(
            r.on_arrival(&view(1, 3), &pkt(), &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        assert_eq!(
            h.on_arrival(&view(1, 3), &pkt(), &mut rng),
            ArrivalVerdict::Enqueue
        );
        assert_eq!(h.rule_enqueues, 1);
        // still counted as an unmarked arrival
        assert_eq!(h.red.count, 101);
        // q = 10 >= min_th: outside region 10 -> RED's decision (p_a = 1: drop)
        assert_eq!(
            h.on_arrival(&view(2, 10), &pkt(), &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        // region 7 on: min_th < q < max_th with avg > max_th enqueues
        h.opts.region7 = true;
        h.red.count = 100;
        assert_eq!(
            h.on_arrival(&view(3, 10), &pkt(), &mut rng),
            ArrivalVerdict::Enqueue
        );
        // avg >= 2 max_th: outside region 10 -> forced drop even with q < min_th
        h.red.ewma.avg = 31.0;
        assert_eq!(
            h.on_arrival(&view(4, 3), &pkt(), &mut rng),
            ArrivalVerdict::Drop(DropKind::Forced)
        );
    }

    #[test]
    fn without_reduction_and_rule_it_is_exactly_gentle_red() {
        // Same arrivals (queue lengths from a fixed pseudo-random walk, idle gaps included),
        // same RNG seed: the verdicts, avg and counts must match at every step.
        let c = RedConfig {
            w_q: 0.05,
            ..cfg(0.05)
        };
        let mut h = HybridRed::new(c.clone(), opts(u64::MAX, 1.25, false));
        let mut r = Red::new(c);
        let mut rng_h = RngStream::new(9, StreamKind::Queue, 0);
        let mut rng_r = RngStream::new(9, StreamKind::Queue, 0);
        let mut walk = RngStream::new(10, StreamKind::Agent, 0);
        let mut q: i64 = 0;
        let mut t: Time = 0;
        let mut drops = 0;
        for i in 0..20_000 {
            q = (q + (walk.uniform() * 5.0) as i64 - 2).clamp(0, 60);
            t += 100_000 + (walk.uniform() * 1e6) as u64;
            if i % 500 == 0 {
                h.on_link_idle(t);
                r.on_link_idle(t);
                t += 20_000_000;
            }
            let v = view(t, q as u32);
            let a = h.on_arrival(&v, &pkt(), &mut rng_h);
            let b = r.on_arrival(&v, &pkt(), &mut rng_r);
            assert_eq!(a, b, "step {i}");
            assert_eq!(h.red.ewma.avg, r.ewma.avg, "step {i}");
            assert_eq!(h.red.count, r.count);
            if a != ArrivalVerdict::Enqueue {
                drops += 1;
            }
        }
        assert!(
            drops > 100,
            "the walk must exercise the drop path ({drops})"
        );
        assert_eq!(h.reductions, 0);
    }

    #[test]
    fn xi_one_reduction_equals_the_normal_update() {
        let mut h = HybridRed::new(cfg(0.2), opts(1, 1.0, false));
        let mut r = Red::new(cfg(0.2));
        let mut rng = RngStream::new(1, StreamKind::Queue, 0);
        for (t, q) in [(1u64, 3u32), (2, 0), (3, 7), (4, 2)] {
            h.on_arrival(&view(t, q), &pkt(), &mut rng);
            r.on_arrival(&view(t, q), &pkt(), &mut rng);
            assert!((h.red.ewma.avg - r.ewma.avg).abs() < 1e-12);
        }
    }

    #[test]
    fn invalid_theta_and_xi_name_the_parameter() {
        let env = QueueEnv {
            link_rate_bps: 10_000_000,
            link_delay: 0,
            limit: QueueLimit::Packets(50),
        };
        for (json, name) in [
            (serde_json::json!({"theta": 0}), "q.aqm.theta"),
            (serde_json::json!({"theta": 1.5}), "q.aqm.theta"),
            (serde_json::json!({"xi": 0.9}), "q.aqm.xi"),
            (
                serde_json::json!({"min_th": 20, "max_th": 10}),
                "q.aqm.max_th",
            ),
        ] {
            let p = AqmParams::new(json, "q.aqm");
            let e = build(&p, &env).err().expect("must be rejected");
            assert_eq!(e.path, name, "{e}");
        }
        let p = AqmParams::new(serde_json::json!({"thetta": 2}), "q.aqm");
        let e = build(&p, &env).err().unwrap();
        assert!(e.message.contains("thetta"), "{e}");
        // defaults build
        assert!(build(&AqmParams::new(serde_json::json!({}), "q.aqm"), &env).is_ok());
        assert!(build(
            &AqmParams::new(
                serde_json::json!({"theta": 3, "xi": 2, "enqueue_rule": false, "w_q": 0.01}),
                "q.aqm"
            ),
            &env
        )
        .is_ok());
    }
}
