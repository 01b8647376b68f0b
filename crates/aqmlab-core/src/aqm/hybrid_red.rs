//! Hybrid RED: gentle RED that also looks at the instantaneous queue.
//!
//! Source: A. Haider, R. J. Harris, "A Hybrid Random Early Detection Algorithm for Improving
//! End-to-End Congestion Control in TCP/IP Networks" (seed 002), section V-A (prose before
//! eq. 10, eq. 10, REDUCEEWMA of Algorithm 1 lines 20-28), section V-B and Algorithm 1 lines
//! 29-36; section III (LPF/ODA: "the onset of the ODA phase during which the EWMA is reduced
//! to half of its present value. After this reduction, updating of the EWMA queue size is
//! continued as in normal RED"); reading recorded in ../shared/specs/seed-algorithms.md.
//!
//! Two additions to gentle RED (which stays exactly ns-2's RED otherwise: [`Red::decide`]):
//! - EWMA reduction (sec. V-A, eq. 10): a counter of consecutive arrivals that see q <= min_th
//!   (reset by an arrival with q > min_th). When it reaches `theta`, that arrival updates
//!   avg <- ((1 - w)/xi) avg + w q instead of avg <- (1 - w) avg + w q. How often, `reduction`:
//!   - `"once_per_low_period"` (default): once per low period. The counter keeps counting past
//!     theta and re-arms only after an arrival with q > min_th. This is the reading of the
//!     prose ("if q(k) <= min_th for ... theta >= 1 consecutive packet arrivals, then we need to
//!     decrease the first term ... so that avg is either less than min_th or close to it": one
//!     correction that brings avg down to about min_th, not a repeated one) and of LPF/ODA,
//!     which eq. 10 generalises (one halving at the onset of the ODA phase, then normal RED).
//!   - `"every_theta"`: the counter restarts after each reduction, so every theta-th arrival of
//!     a long low period is reduced again (one literal reading of eq. 10 / REDUCEEWMA's loop).
//!     Over a low period of n arrivals avg is divided by about xi^(n/theta); a queue that drains
//!     for a few hundred arrivals drives avg to ~1e-100 whatever xi is, so xi has no visible
//!     effect. Kept as a named variant (it was aqmlab's only reading before issue 10).
//!   - `"while_above_min_th"` (issue 24): from the theta-th consecutive low arrival on, every
//!     low arrival is reduced as long as the avg it acts on (after the idle decay) is above
//!     min_th; from then on normal RED until the low period ends. The prose's aim ("decrease
//!     the first term ... so that avg is either less than min_th or close to it") taken as the
//!     stopping rule: as many reductions as it takes to bring avg down to min_th, none after.
//!     ("Once per low period" is not eq. 10 as printed either: eq. 10 says nothing of stopping.)
//!     Within a low period avg cannot climb back above min_th (every update mixes it with
//!     q <= min_th), so "until avg <= min_th" and "while avg > min_th" are the same rule.
//!
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
//! - `theta` (arrivals, 1): consecutive arrivals with q <= min_th that trigger the reduced
//!   update; >= 1. A huge value turns the reduction off.
//! - `xi` (factor, 1.25): divides the (1 - w) avg term; >= 1 (xi < 1 would raise avg). The paper
//!   recommends theta = 1 and xi < 1.5 (sec. VI-B) and plots {1, 1.25} (Figs. 9, 14); 1.25 is
//!   the middle of its Table II.
//! - `reduction` ("once_per_low_period" | "every_theta" | "while_above_min_th",
//!   "once_per_low_period"): see above.
//! - `enqueue_rule` (bool, true): region 10.
//! - `region7` (bool, false): region 7 as well.

use super::params::{doc, AqmParams, ParamDoc, QueueEnv};
use super::red::{joined_docs, parse_variant, Red, RedConfig, RED_PARAM_DOCS};
use super::{Aqm, ArrivalVerdict, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{RngStream, Time};
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

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
        "reduction",
        "once_per_low_period",
        "\"once_per_low_period\" | \"every_theta\" | \"while_above_min_th\"",
        "reduce once per run of low arrivals (re-armed by q > min_th), at every theta-th low arrival, or at every low arrival from the theta-th on while avg > min_th",
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

pub const PARAMS: &[ParamDoc] = joined_docs!(OWN_DOCS, RED_PARAM_DOCS);

pub(crate) const OWN_KEYS: &[&str] = &["theta", "xi", "reduction", "enqueue_rule", "region7"];

/// How often a run of low arrivals (q <= min_th) reduces avg (eq. 10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reduction {
    /// Once, at the theta-th consecutive low arrival; re-armed by an arrival with q > min_th.
    OncePerLowPeriod,
    /// At every theta-th consecutive low arrival (the counter restarts after each reduction).
    EveryTheta,
    /// At every low arrival from the theta-th on, while the avg it acts on is above min_th.
    WhileAboveMinTh,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HybridParams {
    pub theta: f64,
    pub xi: f64,
    pub reduction: Reduction,
    pub enqueue_rule: bool,
    pub region7: bool,
}

impl Default for HybridParams {
    fn default() -> Self {
        HybridParams {
            theta: 1.0,
            xi: 1.25,
            reduction: Reduction::OncePerLowPeriod,
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
    pub reduction: Reduction,
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
            reduction: self.reduction,
            enqueue_rule: self.enqueue_rule,
            region7: self.region7,
        })
    }
}

#[derive(Debug, Clone)]
pub struct HybridRed {
    pub red: Red,
    pub opts: HybridOptions,
    /// Consecutive arrivals that saw q <= min_th: since the last arrival with q > min_th
    /// (`once_per_low_period`), or since the last reduced update (`every_theta`).
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
            self.low_run = self.low_run.saturating_add(1);
        } else {
            self.low_run = 0;
        }
        let reduce = match self.opts.reduction {
            // Exactly at the theta-th low arrival; the run goes on counting, so no further
            // reduction until an arrival with q > min_th has reset it.
            Reduction::OncePerLowPeriod => self.low_run == self.opts.theta,
            Reduction::EveryTheta => self.low_run >= self.opts.theta,
            // The avg the reduced step would act on is the idle-decayed one; a copy of the
            // estimator gives it without consuming the idle period.
            Reduction::WhileAboveMinTh => {
                self.low_run >= self.opts.theta
                    && self.red.ewma.clone().decayed_for_idle(now) > self.red.cfg.min_th
            }
        };
        if reduce {
            if self.opts.reduction == Reduction::EveryTheta {
                self.low_run = 0;
            }
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
        self.red.decide_on_curve(q, pkt, rng, avg)
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
    use crate::aqm::DropKind;
    use crate::net::PacketKind;
    use crate::sim::StreamKind;

    fn cfg(w_q: f64) -> RedConfig {
        crate::aqm::red::RedParams::default().config(5.0, 15.0, w_q, 1250.0)
    }

    fn view(now: Time, len: u32) -> QueueView {
        crate::aqm::test_rig::view(now, len, 100)
    }

    fn pkt() -> Packet {
        crate::aqm::test_rig::packet(PacketKind::Udp)
    }

    fn opts(theta: u64, xi: f64, enqueue_rule: bool) -> HybridOptions {
        opts_r(theta, xi, enqueue_rule, Reduction::OncePerLowPeriod)
    }

    fn opts_r(theta: u64, xi: f64, enqueue_rule: bool, reduction: Reduction) -> HybridOptions {
        HybridOptions {
            theta,
            xi,
            reduction,
            enqueue_rule,
            region7: false,
        }
    }

    /// Feeds `qs` (one arrival each, 1 ns apart, busy link) to Hybrid RED with w = 0.5,
    /// theta = 2, xi = 2, avg starting at 8; returns avg and low_run after each arrival.
    fn avg_sequence(reduction: Reduction, qs: &[u32]) -> (Vec<f64>, Vec<u64>, u64) {
        avg_sequence_from(8.0, reduction, qs)
    }

    /// As [`avg_sequence`], avg starting at `start`.
    fn avg_sequence_from(
        start: f64,
        reduction: Reduction,
        qs: &[u32],
    ) -> (Vec<f64>, Vec<u64>, u64) {
        let mut h = HybridRed::new(cfg(0.5), opts_r(2, 2.0, false, reduction));
        h.red.ewma.avg = start;
        h.red.ewma.update(0, start); // clears the initial idle state: avg = start
        let mut rng = crate::aqm::test_rig::rng();
        let (mut avgs, mut runs) = (vec![], vec![]);
        for (i, &q) in qs.iter().enumerate() {
            h.on_arrival(&view(i as Time + 1, q), &pkt(), &mut rng);
            avgs.push(h.red.ewma.avg);
            runs.push(h.low_run);
        }
        (avgs, runs, h.reductions)
    }

    // min_th = 5: q = 2, 3, 1, 5, 4 are one low period of 5 arrivals (q = min_th counts as low);
    // q = 6 ends it; q = 2, 2 start the next one.
    const QS: [u32; 8] = [2, 3, 1, 5, 4, 6, 2, 2];

    #[test]
    fn once_per_low_period_reduces_at_the_theta_th_low_arrival_only() {
        let (avg, run, reductions) = avg_sequence(Reduction::OncePerLowPeriod, &QS);
        // normal step 0.5 avg + 0.5 q; reduced step (0.5 / 2) avg + 0.5 q
        let expected = [
            5.0,         // q 2, run 1: 4 + 1
            2.75,        // q 3, run 2 = theta: reduced 1.25 + 1.5
            1.875,       // q 1, run 3: normal (already reduced in this low period) 1.375 + 0.5
            3.4375,      // q 5, run 4: normal 0.9375 + 2.5
            3.71875,     // q 4, run 5: normal 1.71875 + 2
            4.859375,    // q 6 > min_th: normal 1.859375 + 3, run re-armed
            3.4296875,   // q 2, run 1: normal 2.4296875 + 1
            1.857421875, // q 2, run 2 = theta: reduced 0.857421875 + 1
        ];
        assert_eq!(avg, expected);
        assert_eq!(run, vec![1, 2, 3, 4, 5, 0, 1, 2]);
        assert_eq!(reductions, 2);
    }

    #[test]
    fn every_theta_reduces_at_every_theta_th_low_arrival() {
        let (avg, run, reductions) = avg_sequence(Reduction::EveryTheta, &QS);
        let expected = [
            5.0,          // q 2, run 1
            2.75,         // q 3, run 2 = theta: reduced, run restarts
            1.875,        // q 1, run 1: normal
            2.96875,      // q 5, run 2: reduced again 0.46875 + 2.5
            3.484375,     // q 4, run 1: normal 1.484375 + 2
            4.7421875,    // q 6: normal 1.7421875 + 3, run 0
            3.37109375,   // q 2, run 1: normal 2.37109375 + 1
            1.8427734375, // q 2, run 2: reduced 0.8427734375 + 1
        ];
        assert_eq!(avg, expected);
        assert_eq!(run, vec![1, 0, 1, 0, 1, 0, 1, 0]);
        assert_eq!(reductions, 3);
    }

    /// Issue 24, item 3: the third reading reduces at every low arrival from the theta-th on
    /// while avg > min_th (5), then updates as RED. w = 0.5, xi = 2: reduced step
    /// 0.25 avg + 0.5 q, normal 0.5 avg + 0.5 q; avg starts at 40.
    #[test]
    fn while_above_min_th_reduces_until_avg_reaches_min_th() {
        let (avg, run, reductions) = avg_sequence_from(40.0, Reduction::WhileAboveMinTh, &QS);
        let expected = [
            21.0,        // q 2, run 1 < theta: normal 20 + 1
            6.75,        // q 3, run 2, avg 21 > 5: reduced 5.25 + 1.5
            2.1875,      // q 1, run 3, avg 6.75 > 5: reduced again 1.6875 + 0.5
            3.59375,     // q 5, run 4, avg 2.1875 <= 5: normal 1.09375 + 2.5
            3.796875,    // q 4: normal 1.796875 + 2
            4.8984375,   // q 6 > min_th: normal 1.8984375 + 3, run 0
            3.44921875,  // q 2, run 1: normal 2.44921875 + 1
            2.724609375, // q 2, run 2, avg 3.45 <= 5: normal 1.724609375 + 1
        ];
        assert_eq!(avg, expected);
        assert_eq!(run, vec![1, 2, 3, 4, 5, 0, 1, 2]);
        assert_eq!(reductions, 2);
        // the same arrivals under the other two readings: once per low period reduces at
        // runs 2 and 2 (two low periods), every_theta at runs 2, 4 and 2 (restarting)
        let (_, _, once) = avg_sequence_from(40.0, Reduction::OncePerLowPeriod, &QS);
        let (_, _, every) = avg_sequence_from(40.0, Reduction::EveryTheta, &QS);
        assert_eq!((once, every), (2, 3));
        let (once_avg, _, _) = avg_sequence_from(40.0, Reduction::OncePerLowPeriod, &QS);
        assert_eq!(once_avg[2], 0.5 * 6.75 + 0.5, "once: normal step at run 3");
    }

    #[test]
    fn while_above_min_th_uses_the_idle_decayed_avg() {
        // ptc = 1250/s, w = 0.1, xi = 2, theta = 1; avg 10, then 4 ms idle: m = 5,
        // decayed = 10 * 0.9^5 = 5.9049 > 5: reduced (0.9 / 2) 5.9049 = 2.657205. With
        // 8 ms idle (m = 10, 3.4868 <= 5) the same arrival gets RED's step 0.9 * 3.4868.
        let run = |idle: Time| {
            let mut h = HybridRed::new(cfg(0.1), opts_r(1, 2.0, false, Reduction::WhileAboveMinTh));
            let mut rng = crate::aqm::test_rig::rng();
            h.red.ewma.avg = 10.0;
            h.red.ewma.on_link_idle(0);
            h.on_arrival(&view(idle, 0), &pkt(), &mut rng);
            (h.red.ewma.avg, h.reductions)
        };
        let (a, n) = run(4_000_000);
        assert_eq!(n, 1);
        assert!((a - 0.45 * 10.0 * 0.9f64.powi(5)).abs() < 1e-12, "{a}");
        let (a, n) = run(8_000_000);
        assert_eq!(n, 0);
        assert!((a - 10.0 * 0.9f64.powi(11)).abs() < 1e-12, "{a}");
    }

    #[test]
    fn a_long_low_period_collapses_avg_only_with_every_theta() {
        // The paper's w_q = 0.002, theta = 1; avg 10 then 1000 arrivals that see an empty queue.
        // once_per_low_period: one reduced step then 999 normal ones:
        //   avg = 10 (0.998 / xi) 0.998^999 = 10 * 0.998^1000 / xi  (0.998^1000 = 0.13506)
        //   xi 1.25: 1.0805; xi 2: 0.6753; their ratio is exactly 2 / 1.25 = 1.6.
        // every_theta: 1000 reduced steps: avg = 10 (0.998 / xi)^1000:
        //   xi 1.25: 10 * 0.7984^1000 = 1.6e-97; xi 2: 10 * 0.499^1000 ~ 1e-301.
        let run = |xi: f64, reduction: Reduction| {
            let mut h = HybridRed::new(cfg(0.002), opts_r(1, xi, false, reduction));
            h.red.ewma.avg = 10.0;
            h.red.ewma.update(0, 10.0);
            let mut rng = crate::aqm::test_rig::rng();
            for i in 1..=1000u64 {
                h.on_arrival(&view(i, 0), &pkt(), &mut rng);
            }
            (h.red.ewma.avg, h.reductions)
        };
        let (once_125, n1) = run(1.25, Reduction::OncePerLowPeriod);
        let (once_2, _) = run(2.0, Reduction::OncePerLowPeriod);
        assert_eq!(n1, 1);
        assert!((once_125 - 10.0 * 0.998f64.powi(1000) / 1.25).abs() < 1e-12);
        assert!((once_125 - 1.0805).abs() < 1e-4, "{once_125}");
        assert!((once_2 - 0.6753).abs() < 1e-4, "{once_2}");
        assert!((once_125 / once_2 - 1.6).abs() < 1e-12);
        let (every_125, n2) = run(1.25, Reduction::EveryTheta);
        let (every_2, _) = run(2.0, Reduction::EveryTheta);
        assert_eq!(n2, 1000);
        let expect = 10.0 * (0.998f64 / 1.25).powi(1000);
        assert!(
            (every_125 / expect - 1.0).abs() < 1e-9,
            "{every_125} vs {expect}"
        );
        assert!(every_125 < 1e-96 && every_2 < 1e-300);
    }

    #[test]
    fn theta_one_reduces_at_the_first_low_arrival_and_idle_decay_comes_first() {
        // ptc = 1250/s, w = 0.1, xi = 1.25, theta = 1.
        let mut h = HybridRed::new(cfg(0.1), opts(1, 1.25, false));
        let mut rng = crate::aqm::test_rig::rng();
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
        let mut rng = crate::aqm::test_rig::rng();
        for (t, q) in [(1u64, 3u32), (2, 0), (3, 7), (4, 2)] {
            h.on_arrival(&view(t, q), &pkt(), &mut rng);
            r.on_arrival(&view(t, q), &pkt(), &mut rng);
            assert!((h.red.ewma.avg - r.ewma.avg).abs() < 1e-12);
        }
    }

    #[test]
    fn invalid_theta_and_xi_name_the_parameter() {
        let env = crate::aqm::test_rig::env(50);
        for (json, name) in [
            (serde_json::json!({"theta": 0}), "q.aqm.theta"),
            (serde_json::json!({"theta": 1.5}), "q.aqm.theta"),
            (serde_json::json!({"xi": 0.9}), "q.aqm.xi"),
            (
                serde_json::json!({"reduction": "every_other"}),
                "q.aqm.reduction",
            ),
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
                serde_json::json!({"theta": 3, "xi": 2, "enqueue_rule": false, "w_q": 0.01,
                    "reduction": "every_theta"}),
                "q.aqm"
            ),
            &env
        )
        .is_ok());
    }
}
