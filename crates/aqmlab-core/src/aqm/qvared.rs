//! QVARED: Adaptive RED with a three-threshold drop curve scaled by the rate of change of avg.
//!
//! Sources: J.-H. Seol, K. Y. Lee, "A Study on an Adaptive AQM Using Queue Length Variation"
//! (seed 003), section III-B, Figs. 3 and 4, section IV (Fig. 8); reading in
//! ../shared/specs/seed-algorithms.md. ECN: ns-2 `queue/red.cc`, `REDQueue::drop_early` (an
//! early decision marks an ECT packet only while `v_prob1` (p_b, before the count correction)
//! is below `mark_p_`, and drops otherwise) and `REDQueue::enque` (forced drops are drops);
//! `tcl/lib/ns-default.tcl` (`mark_p_` 0.1, `use_mark_p_` true).
//!
//! On each arrival (Fig. 4): avg is updated as RED's EWMA (with ns-2's idle decay), max_p is
//! adapted as Adaptive RED ([`super::ared::AdaptiveMaxP`], band [min_th + 0.4 D, min_th + 0.6 D]:
//! [44, 56] with the paper's thresholds), then
//! - q_t = (avg - avg_prev)/(now - time_prev) in packets per second, q_tmax = max(q_tmax, q_t),
//!   avg_prev = avg, time_prev = now (both start at 0, as Fig. 4 initialises them). Guard: an
//!   arrival at the same instant as the previous one leaves q_t, avg_prev and time_prev as they
//!   were, so the change is measured over the next positive interval instead of being lost.
//! - min_th < avg < max_th: p_b = max_p (avg - min_th)/(med_th - min_th) below med_th. From
//!   med_th to max_th the branch is chosen by `curve` ([`Curve`]):
//!   - `"rising"` (default): p_b = max_p (1 + (avg - med_th)/(max_th - med_th)), from max_p at
//!     med_th to 2 max_p at max_th (at the paper's symmetric thresholds 20/50/80 this is the
//!     first branch's line continued). The reading that reproduces Fig. 8 (avg near ARED's,
//!     around the 50-packet target): see docs/readings.md and REPRODUCTION.md.
//!   - `"falling"`: p_b = max_p (max_th - avg)/(max_th - med_th), from max_p at med_th to 0 at
//!     max_th, exactly as Fig. 4 prints it. Dropping less as avg grows pushes avg up to max_th,
//!     where every arrival is a forced drop: Fig. 8's QVARED avg is near ARED's, so we read the
//!     printed branch as a typo (Fig. 3, which draws the curve, is not legible in the source).
//!   - `"rising_to_one"`: p_b = max_p + (1 - max_p)(avg - med_th)/(max_th - med_th), from max_p
//!     to 1 at max_th (gentle RED's shape squeezed into [med_th, max_th]; continuous with the
//!     forced region). Not stated by the paper either; kept to show the choice matters little
//!     for Fig. 8.
//!
//!   Then if q_t < 0: p_b /= 2; if q_tmax > 0: p_b += p_b q_t/q_tmax; p_b is clipped to [0, 1]
//!   (a fall faster than the fastest rise seen would make it negative). p_a = p_b/(1 - count
//!   p_b), 1 when the denominator is <= 0 (RED's [`super::red::count_corrected`] without `wait`).
//! - avg >= max_th: every arrival is a forced drop, never a mark (ns-2's `enque`).
//! - avg below min_th: enqueue.
//!   RED's bookkeeping and ECN rule are ns-2's ([`Red::decide`], the same code RED and Adaptive
//!   RED use): count counts arrivals since the last drop, the first arrival of a congestion
//!   epoch is spared and restarts count at 1, no early drop while q <= 1, a full buffer drops;
//!   with `ecn` an early decision marks an ECT packet while p_b < `mark_p` and drops it
//!   otherwise. `mark_p = 1` marks every early decision (ns-2 with `use_mark_p_` false).
//!   Until issue 10 QVARED hard-coded mark_p = 1 and marked in the forced region too (Linux
//!   `sch_red`'s rule without `harddrop`), while the RED and ARED it is compared with drop
//!   there: that compared two ECN rules, not three algorithms, so the forced-region mark was
//!   removed (aqmlab's RED and ARED have no such rule to share it with).
//!
//! Parameters:
//! - `min_th` (packets, 20), `med_th` (packets, 50), `max_th` (packets, 80):
//!   min_th < med_th < max_th
//! - `max_p` (probability, 0.02): initial max_p
//! - `curve` ("rising" | "falling" | "rising_to_one", "rising"): the branch after med_th
//! - `w_q` (weight, 0.002; "auto" as RED)
//! - `ecn` (bool, false): mark ECT packets on early decisions while p_b < mark_p
//! - `mark_p` (probability, 0.1, RED's and ns-2's default): the ECN limit above
//! - `mean_pkt_size` (bytes, 500): ns-2's ptc for the idle decay
//! - Adaptive RED's `interval` (0.5 s), `alpha` (0.01), `beta` (0.9), `top` (0.5),
//!   `bottom` (0.01), `adaptive` (true)

use super::ared::{AdaptParams, AdaptiveMaxP, ADAPT_DOCS, ADAPT_KEYS};
use super::params::{doc, AqmParams, ParamDoc, QueueEnv};
use super::red::{joined_docs, Red, RedConfig, RedParams, WeightSetting};
use super::{Aqm, ArrivalVerdict, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{time, RngStream, Time};
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

const OWN_DOCS: &[ParamDoc] = &[
    doc("min_th", "20", "packets", "avg below it: no early drop"),
    doc(
        "med_th",
        "50",
        "packets",
        "where the drop curve reaches max_p",
    ),
    doc(
        "max_th",
        "80",
        "packets",
        "avg at or above it: every arrival dropped (forced, never marked)",
    ),
    doc(
        "max_p",
        "0.02",
        "probability",
        "initial max_p (then adapted)",
    ),
    doc(
        "curve",
        "rising",
        "\"rising\" | \"falling\" | \"rising_to_one\"",
        "after med_th: max_p to 2*max_p at max_th; max_p down to 0 (Fig. 4 as printed); max_p to 1",
    ),
    doc("w_q", "0.002", "weight", "EWMA weight (or \"auto\")"),
    doc(
        "ecn",
        "false",
        "bool",
        "mark ECT packets on early decisions while p_b < mark_p",
    ),
    doc(
        "mark_p",
        "0.1",
        "probability",
        "mark only while p_b < mark_p; drop above (ns-2, as RED)",
    ),
    doc(
        "mean_pkt_size",
        "500",
        "bytes",
        "packet size for ns-2's idle decay rate",
    ),
];

pub const PARAMS: &[ParamDoc] = joined_docs!(OWN_DOCS, ADAPT_DOCS);

/// The drop curve between med_th and max_th (below med_th it rises from 0 to max_p).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Curve {
    /// max_p at med_th rising to 2 max_p at max_th (the default; reproduces Fig. 8).
    Rising,
    /// max_p at med_th falling to 0 at max_th, as Fig. 4 prints it.
    Falling,
    /// max_p at med_th rising to 1 at max_th.
    RisingToOne,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct QvaredParams {
    pub min_th: f64,
    pub med_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub curve: Curve,
    pub w_q: WeightSetting,
    pub ecn: bool,
    pub mark_p: f64,
    pub mean_pkt_size: u32,
}

impl Default for QvaredParams {
    fn default() -> Self {
        QvaredParams {
            min_th: 20.0,
            med_th: 50.0,
            max_th: 80.0,
            max_p: 0.02,
            curve: Curve::Rising,
            w_q: WeightSetting::Fixed(0.002),
            ecn: false,
            mark_p: 0.1,
            mean_pkt_size: 500,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Qvared {
    pub red: Red,
    pub med_th: f64,
    pub curve: Curve,
    pub adapt: AdaptiveMaxP,
    pub q_t: f64,
    pub q_tmax: f64,
    pub avg_prev: f64,
    pub time_prev: Time,
}

impl Qvared {
    /// `cfg` holds min_th, max_th, max_p, w_q, ecn, mark_p; it must be non-gentle without
    /// `wait`.
    pub fn new(cfg: RedConfig, med_th: f64, curve: Curve, adapt: AdaptiveMaxP) -> Self {
        debug_assert!(!cfg.gentle && !cfg.wait);
        Qvared {
            red: Red::new(cfg),
            med_th,
            curve,
            adapt,
            q_t: 0.0,
            q_tmax: 0.0,
            avg_prev: 0.0,
            time_prev: 0,
        }
    }

    /// Fig. 4's curve for min_th < avg < max_th, before the variation terms (0 outside).
    pub fn curve(&self, avg: f64) -> f64 {
        let c = &self.red.cfg;
        if avg <= c.min_th || avg >= c.max_th {
            0.0
        } else if avg < self.med_th {
            c.max_p * (avg - c.min_th) / (self.med_th - c.min_th)
        } else {
            // fraction of the way from med_th to max_th, in [0, 1)
            let x = (avg - self.med_th) / (c.max_th - self.med_th);
            match self.curve {
                Curve::Rising => c.max_p * (1.0 + x),
                Curve::Falling => c.max_p * (1.0 - x),
                Curve::RisingToOne => c.max_p + (1.0 - c.max_p) * x,
            }
        }
    }

    /// The curve with the queue-variation terms, clipped to [0, 1].
    pub fn p_b(&self, avg: f64) -> f64 {
        let mut p = self.curve(avg);
        if self.q_t < 0.0 {
            p /= 2.0;
        }
        if self.q_tmax > 0.0 {
            p += p * self.q_t / self.q_tmax;
        }
        p.clamp(0.0, 1.0)
    }

    fn track_variation(&mut self, now: Time, avg: f64) {
        if now > self.time_prev {
            self.q_t = (avg - self.avg_prev) / time::to_secs_f64(now - self.time_prev);
            self.q_tmax = self.q_tmax.max(self.q_t);
            self.avg_prev = avg;
            self.time_prev = now;
        }
    }
}

impl Aqm for Qvared {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        let avg = self.adapt.update_red(&mut self.red, q);
        let max_th = self.red.cfg.max_th;
        self.track_variation(q.now, avg);
        let p_b = self.p_b(avg);
        // ns-2's RED decision and ECN rule, shared with RED and Adaptive RED.
        self.red.decide(q, pkt, rng, avg, p_b, avg >= max_th)
    }

    fn on_link_idle(&mut self, now: Time) {
        self.red.ewma.on_link_idle(now);
    }

    fn state(&self, out: &mut StateSink) {
        self.red.report(out);
        out("q_t_packets_per_s", self.q_t);
        out("q_tmax_packets_per_s", self.q_tmax);
    }
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let (adapt, own): (AdaptParams, QvaredParams) = parse_variant_own(p)?;
    let adapt = adapt.resolve(p)?;
    p.non_negative("min_th", own.min_th, "")?;
    p.require(
        own.med_th.is_finite() && own.med_th > own.min_th,
        "med_th",
        || {
            format!(
                "must be greater than min_th ({}), got {}",
                own.min_th, own.med_th
            )
        },
    )?;
    p.require(
        own.max_th.is_finite() && own.max_th > own.med_th,
        "max_th",
        || {
            format!(
                "must be greater than med_th ({}), got {}",
                own.med_th, own.max_th
            )
        },
    )?;
    let red = RedParams {
        min_th: Some(own.min_th),
        max_th: Some(own.max_th),
        max_p: own.max_p,
        w_q: own.w_q,
        gentle: false,
        wait: false,
        ecn: own.ecn,
        mark_p: own.mark_p,
        mean_pkt_size: own.mean_pkt_size,
        ..RedParams::default()
    };
    let cfg = red.resolve(env, p)?;
    Ok(Box::new(Qvared::new(cfg, own.med_th, own.curve, adapt)))
}

/// Splits the table into Adaptive RED's keys and QVARED's own.
pub(crate) fn parse_variant_own(
    p: &AqmParams,
) -> Result<(AdaptParams, QvaredParams), ScenarioError> {
    // Like red::parse_variant, but the remainder is QVARED's own struct, not RedParams.
    let mut adapt = serde_json::Map::new();
    let mut rest = p.values.as_object().cloned().unwrap_or_default();
    for k in ADAPT_KEYS {
        if let Some(v) = rest.remove(*k) {
            adapt.insert((*k).to_string(), v);
        }
    }
    let a: AdaptParams =
        AqmParams::new(serde_json::Value::Object(adapt), p.path.clone()).parse()?;
    let o: QvaredParams =
        AqmParams::new(serde_json::Value::Object(rest), p.path.clone()).parse()?;
    Ok((a, o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::DropKind;
    use crate::net::PacketKind;

    const S: Time = 1_000_000_000;

    fn env() -> QueueEnv {
        crate::aqm::test_rig::env(200)
    }

    fn qv_with(w_q: f64, adaptive: bool, curve: Curve, ecn: bool, mark_p: f64) -> Qvared {
        let p = AqmParams::new(serde_json::json!({}), "q");
        let red = RedParams {
            min_th: Some(20.0),
            max_th: Some(80.0),
            max_p: 0.02,
            w_q: WeightSetting::Fixed(w_q),
            gentle: false,
            wait: false,
            ecn,
            mark_p,
            ..RedParams::default()
        };
        let mut adapt = AdaptParams::default().resolve(&p).unwrap();
        adapt.enabled = adaptive;
        Qvared::new(red.resolve(&env(), &p).unwrap(), 50.0, curve, adapt)
    }

    fn qv(w_q: f64, adaptive: bool) -> Qvared {
        qv_with(w_q, adaptive, Curve::Rising, false, 0.1)
    }

    fn view(now: Time, len: u32) -> QueueView {
        crate::aqm::test_rig::view(now, len, 200)
    }

    fn udp(ect: bool) -> Packet {
        let mut pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
        pkt.ecn.ect = ect;
        pkt
    }

    #[test]
    fn first_branch_is_the_same_for_every_curve() {
        // max_p = 0.02, min 20, med 50, max 80
        for curve in [Curve::Rising, Curve::Falling, Curve::RisingToOne] {
            let q = qv_with(0.002, false, curve, false, 0.1);
            assert_eq!(q.curve(19.9), 0.0);
            assert_eq!(q.curve(20.0), 0.0);
            assert!((q.curve(20.3) - 0.02 * 0.3 / 30.0).abs() < 1e-15); // 0.0002
            assert!((q.curve(35.0) - 0.01).abs() < 1e-15); // 0.02 * 15/30
            assert!((q.curve(49.9) - 0.02 * 29.9 / 30.0).abs() < 1e-15);
            assert!((q.curve(50.0) - 0.02).abs() < 1e-15); // max_p at med_th
            assert_eq!(q.curve(80.0), 0.0); // forced region: no probabilistic p
            assert_eq!(q.curve(95.0), 0.0);
        }
    }

    #[test]
    fn rising_branch_reaches_twice_max_p_at_max_th() {
        let q = qv_with(0.002, false, Curve::Rising, false, 0.1);
        // 0.02 * (1 + x), x = (avg - 50)/30
        assert!((q.curve(50.1) - 0.02 * (1.0 + 0.1 / 30.0)).abs() < 1e-15);
        assert!((q.curve(65.0) - 0.03).abs() < 1e-15); // x = 1/2
        assert!((q.curve(74.0) - 0.036).abs() < 1e-15); // x = 0.8
        assert!((q.curve(79.9) - 0.02 * (1.0 + 29.9 / 30.0)).abs() < 1e-15); // -> 0.04
                                                                             // at the paper's symmetric thresholds it is the first branch's line continued
        assert!((q.curve(65.0) - 0.02 * (65.0 - 20.0) / 30.0).abs() < 1e-15);
    }

    #[test]
    fn falling_branch_is_fig_4_as_printed() {
        let q = qv_with(0.002, false, Curve::Falling, false, 0.1);
        // 0.02 * (80 - avg)/30
        assert!((q.curve(50.1) - 0.02 * 29.9 / 30.0).abs() < 1e-15);
        assert!((q.curve(65.0) - 0.01).abs() < 1e-15);
        assert!((q.curve(74.0) - 0.004).abs() < 1e-15); // 0.02 * 6/30
        assert!((q.curve(79.9) - 0.02 * 0.1 / 30.0).abs() < 1e-15);
    }

    #[test]
    fn rising_to_one_branch_reaches_one_at_max_th() {
        let q = qv_with(0.002, false, Curve::RisingToOne, false, 0.1);
        // 0.02 + 0.98 x
        assert!((q.curve(65.0) - 0.51).abs() < 1e-15); // x = 1/2
        assert!((q.curve(74.0) - (0.02 + 0.98 * 0.8)).abs() < 1e-15); // 0.804
        assert!((q.curve(79.9) - (0.02 + 0.98 * 29.9 / 30.0)).abs() < 1e-12);
    }

    #[test]
    fn variation_terms_scale_p_b() {
        let mut q = qv(0.002, false);
        // avg 35 -> curve 0.01
        q.q_t = 5.0;
        q.q_tmax = 10.0;
        // rising at half the fastest rate: 0.01 + 0.01 * 0.5 = 0.015
        assert!((q.p_b(35.0) - 0.015).abs() < 1e-15);
        q.q_t = 10.0;
        assert!((q.p_b(35.0) - 0.02).abs() < 1e-15); // the fastest rise doubles it
        q.q_t = -4.0;
        // falling: halved to 0.005, then 0.005 + 0.005 * (-4/10) = 0.003
        assert!((q.p_b(35.0) - 0.003).abs() < 1e-15);
        q.q_t = -20.0;
        // 0.005 * (1 - 2) < 0: clipped to 0
        assert_eq!(q.p_b(35.0), 0.0);
        q.q_tmax = 0.0;
        q.q_t = -1.0;
        // no rise seen yet: only the halving
        assert!((q.p_b(35.0) - 0.005).abs() < 1e-15);
        // rising branch at 65 (0.03), fastest rise: 0.06
        q.q_tmax = 10.0;
        q.q_t = 10.0;
        assert!((q.p_b(65.0) - 0.06).abs() < 1e-15);
    }

    #[test]
    fn q_t_tracks_the_slope_of_avg() {
        // w = 1: avg = q. Arrivals: t = 1 s q = 30; t = 1.5 s q = 40; t = 1.5 s again; t = 2 s q = 35
        let mut q = qv(1.0, false);
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = udp(false);
        q.on_arrival(&view(S, 30), &pkt, &mut rng);
        // (30 - 0)/(1 - 0) = 30 per second
        assert_eq!((q.q_t, q.q_tmax), (30.0, 30.0));
        q.on_arrival(&view(S + S / 2, 40), &pkt, &mut rng);
        // (40 - 30)/0.5 = 20; max stays 30
        assert_eq!((q.q_t, q.q_tmax), (20.0, 30.0));
        // same instant: q_t kept, prev kept
        q.on_arrival(&view(S + S / 2, 45), &pkt, &mut rng);
        assert_eq!(q.q_t, 20.0);
        assert_eq!(q.avg_prev, 40.0);
        q.on_arrival(&view(2 * S, 35), &pkt, &mut rng);
        // (35 - 40)/0.5 = -10; p_b at avg 35: 0.01/2 = 0.005, + 0.005*(-10/30) = 0.0033333
        assert_eq!(q.q_t, -10.0);
        assert!(
            (q.red.p_b - (0.005 - 0.005 / 3.0)).abs() < 1e-15,
            "{}",
            q.red.p_b
        );
    }

    #[test]
    fn count_correction_without_wait_and_forced_region() {
        let mut q = qv(1.0, false);
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = udp(false);
        // avg 50 at t = 1 s: q_t = 50 = q_tmax -> p_b = 0.02 * 2 = 0.04; first arrival of the
        // epoch is spared (count = 1)
        assert_eq!(
            q.on_arrival(&view(S, 50), &pkt, &mut rng),
            ArrivalVerdict::Enqueue
        );
        // t = 2 s, still 50: q_t = 0 -> p_b = 0.02; count 2: p_a = 0.02/(1 - 0.04) = 0.0208333
        q.on_arrival(&view(2 * S, 50), &pkt, &mut rng);
        assert!((q.red.p_a - 0.02 / 0.96).abs() < 1e-15, "{}", q.red.p_a);
        // count*p_b >= 1 -> p_a = 1: count 50 at p_b 0.02
        q.red.count = 49;
        assert_eq!(
            q.on_arrival(&view(3 * S, 50), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        // avg >= max_th: forced drop
        assert_eq!(
            q.on_arrival(&view(4 * S, 80), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Forced)
        );
        // below min_th: enqueue
        assert_eq!(
            q.on_arrival(&view(6 * S, 10), &pkt, &mut rng),
            ArrivalVerdict::Enqueue
        );
    }

    /// Drives one QVARED to a certain early decision at avg = 50 with q_t = 0 (p_b = max_p):
    /// t = 1 s starts the epoch (spared), then count is set so that count * p_b >= 1.
    fn certain_early_decision(max_p: f64, mark_p: f64, ect: bool) -> ArrivalVerdict {
        let mut q = qv_with(1.0, false, Curve::Rising, true, mark_p);
        q.red.cfg.max_p = max_p;
        let mut rng = crate::aqm::test_rig::rng();
        assert_eq!(
            q.on_arrival(&view(S, 50), &udp(ect), &mut rng),
            ArrivalVerdict::Enqueue
        );
        q.red.count = 1000; // p_a = 1 whatever max_p
        let v = q.on_arrival(&view(2 * S, 50), &udp(ect), &mut rng);
        assert_eq!(q.q_t, 0.0);
        assert!((q.red.p_b - max_p).abs() < 1e-15);
        assert_eq!(q.red.p_a, 1.0);
        v
    }

    #[test]
    fn ecn_marks_only_below_mark_p_as_ns2_red() {
        // p_b = 0.02 < mark_p 0.1: an ECT packet is marked, a non-ECT one dropped
        assert_eq!(
            certain_early_decision(0.02, 0.1, true),
            ArrivalVerdict::Mark
        );
        assert_eq!(
            certain_early_decision(0.02, 0.1, false),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        // p_b = 0.09 < 0.1: mark; p_b = 0.1 (not < mark_p) and 0.3: drop, even if ECT
        assert_eq!(
            certain_early_decision(0.09, 0.1, true),
            ArrivalVerdict::Mark
        );
        assert_eq!(
            certain_early_decision(0.1, 0.1, true),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        assert_eq!(
            certain_early_decision(0.3, 0.1, true),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        // mark_p = 1 (ns-2 with use_mark_p_ false): every early decision on ECT is a mark
        assert_eq!(certain_early_decision(0.3, 1.0, true), ArrivalVerdict::Mark);
    }

    #[test]
    fn forced_region_is_never_marked() {
        for mark_p in [0.1, 1.0] {
            let mut q = qv_with(1.0, false, Curve::Rising, true, mark_p);
            let mut rng = crate::aqm::test_rig::rng();
            // avg 80 and 120 >= max_th with ECN on and an ECT packet: forced drops
            for (t, len) in [(1, 80), (2, 120), (3, 80)] {
                assert_eq!(
                    q.on_arrival(&view(t * S, len), &udp(true), &mut rng),
                    ArrivalVerdict::Drop(DropKind::Forced),
                    "mark_p {mark_p} q {len}"
                );
            }
        }
    }

    #[test]
    fn build_defaults_and_choices() {
        let b = |json: serde_json::Value| {
            let (_, own) = parse_variant_own(&AqmParams::new(json, "q.aqm")).unwrap();
            own
        };
        let d = b(serde_json::json!({}));
        assert_eq!(d.curve, Curve::Rising);
        assert_eq!(d.mark_p, 0.1); // RED's and ns-2's default
        assert!(!d.ecn);
        let f = b(serde_json::json!({"curve": "falling", "mark_p": 1.0}));
        assert_eq!((f.curve, f.mark_p), (Curve::Falling, 1.0));
        assert_eq!(
            b(serde_json::json!({"curve": "rising_to_one"})).curve,
            Curve::RisingToOne
        );
        assert!(build(
            &AqmParams::new(
                serde_json::json!({"curve": "falling", "ecn": true}),
                "q.aqm"
            ),
            &env()
        )
        .is_ok());
    }

    #[test]
    fn max_p_adapts_toward_the_44_56_band() {
        let mut q = qv(1.0, true);
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = udp(false);
        // avg 60 > 56 at t = 1 s: 0.02 + min(0.01, 0.005) = 0.025
        q.on_arrival(&view(S, 60), &pkt, &mut rng);
        assert!((q.red.cfg.max_p - 0.025).abs() < 1e-15);
        // avg 30 < 44 at t = 2 s: 0.025 * 0.9 = 0.0225
        q.on_arrival(&view(2 * S, 30), &pkt, &mut rng);
        assert!((q.red.cfg.max_p - 0.0225).abs() < 1e-15);
    }

    #[test]
    fn invalid_parameters_name_the_parameter() {
        for (json, path) in [
            (serde_json::json!({"med_th": 10}), "q.aqm.med_th"),
            (serde_json::json!({"max_th": 50}), "q.aqm.max_th"),
            (serde_json::json!({"max_p": 2}), "q.aqm.max_p"),
            (serde_json::json!({"beta": 0}), "q.aqm.beta"),
            (serde_json::json!({"mark_p": 1.5}), "q.aqm.mark_p"),
            (serde_json::json!({"curve": "up"}), "q.aqm.curve"),
        ] {
            let e = build(&AqmParams::new(json, "q.aqm"), &env()).err().unwrap();
            assert_eq!(e.path, path, "{e}");
        }
        let e = build(
            &AqmParams::new(serde_json::json!({"gentle": true}), "q.aqm"),
            &env(),
        )
        .err()
        .unwrap();
        assert!(e.message.contains("gentle"), "{e}");
        assert!(build(
            &AqmParams::new(serde_json::json!({"interval": "1s"}), "q.aqm"),
            &env()
        )
        .is_ok());
    }
}
