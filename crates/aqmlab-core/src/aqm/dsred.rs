//! DSRED: double-slope RED.
//!
//! Source: B. Zheng, M. Atiquzzaman, "DSRED: A New Queue Management Scheme for the Next
//! Generation Internet" (seed 004), section 3.2, eqs. (1)-(4); reading in
//! ../shared/specs/seed-algorithms.md.
//!
//! Drop function of avg (RED's EWMA, eq. 4, with ns-2's idle decay), eq. (1):
//! - avg < K_l: 0
//! - K_l <= avg < K_m: alpha (avg - K_l)
//! - K_m <= avg < K_h: 1 - gamma + beta (avg - K_m)
//! - avg >= K_h: 1 (a forced drop, as RED's avg >= max_th)
//!
//! with alpha = 2(1 - gamma)/(K_h - K_l), beta = 2 gamma/(K_h - K_l) (eqs. 2, 3). Those slopes
//! make the curve continuous and reach 1 at K_h only for K_m at the midpoint, the paper's
//! setting. For another K_m aqmlab uses alpha = (1 - gamma)/(K_m - K_l) and
//! beta = gamma/(K_h - K_m), which equal eqs. 2-3 at the midpoint and keep the two properties
//! the paper relies on (p_d(K_m) = 1 - gamma, p_d(K_h) = 1). p_d is NOT multiplied by a max_p.
//!
//! DSRED keeps RED's structure, so the arrival decision is RED's ([`Red::decide`]): count
//! correction (ns-2's, with `wait`), the spared first arrival of a congestion epoch, no early
//! drop while q <= 1, forced drop when the buffer is full. `count_correction = false` uses p_d
//! itself as the per-packet probability. The paper (OPNET) uses no ECN; with `ecn` on, every
//! early signal below K_h is a mark for ECT packets (p_d has no max_p to compare a mark_p
//! with), and avg >= K_h stays a forced drop.
//!
//! Parameters (paper setting: K_l 6, K_h 20, w 0.07, buffer 200, gamma 0.96 or 0.91):
//! - `k_l` (packets, 6), `k_h` (packets, 20), `k_m` (packets, (k_l + k_h)/2):
//!   k_l < k_m < k_h; `K_l`, `K_m`, `K_h` are accepted as aliases
//! - `gamma` (mode selector in [0, 1], 0.96): p_d(K_m) = 1 - gamma; 0.5 makes one straight line
//! - `w_q` (weight, 0.07; "auto" as RED)
//! - `count_correction` (bool, true), `wait` (bool, true: ns-2's p_b/(2 - count p_b))
//! - `ecn` (bool, false)
//! - `mean_pkt_size` (bytes, 500): ns-2's ptc for the idle decay

use super::params::{doc, AqmParams, ParamDoc, QueueEnv};
use super::red::{count_corrected, no_count_correction, Red, RedConfig, RedParams, WeightSetting};
use super::{Aqm, ArrivalVerdict, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{RngStream, Time};
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

pub const PARAMS: &[ParamDoc] = &[
    doc(
        "k_l",
        "6",
        "packets",
        "avg where dropping starts (alias K_l)",
    ),
    doc(
        "k_m",
        "(k_l+k_h)/2",
        "packets",
        "avg where the slope changes; p_d(k_m) = 1 - gamma (alias K_m)",
    ),
    doc(
        "k_h",
        "20",
        "packets",
        "avg from which every arrival is dropped (alias K_h)",
    ),
    doc(
        "gamma",
        "0.96",
        "in [0, 1]",
        "mode selector: slopes 2(1-gamma)/(k_h-k_l) and 2 gamma/(k_h-k_l)",
    ),
    doc("w_q", "0.07", "weight", "EWMA weight (or \"auto\")"),
    doc(
        "count_correction",
        "true",
        "bool",
        "spread drops with RED's count correction",
    ),
    doc(
        "wait",
        "true",
        "bool",
        "ns-2 `wait` form of the count correction",
    ),
    doc(
        "ecn",
        "false",
        "bool",
        "mark ECT packets instead of early drops (avg < k_h)",
    ),
    doc(
        "mean_pkt_size",
        "500",
        "bytes",
        "packet size for ns-2's idle decay rate",
    ),
];

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DsredParams {
    #[serde(alias = "K_l")]
    pub k_l: f64,
    #[serde(alias = "K_m")]
    pub k_m: Option<f64>,
    #[serde(alias = "K_h")]
    pub k_h: f64,
    pub gamma: f64,
    pub w_q: WeightSetting,
    pub count_correction: bool,
    pub wait: bool,
    pub ecn: bool,
    pub mean_pkt_size: u32,
}

impl Default for DsredParams {
    fn default() -> Self {
        DsredParams {
            k_l: 6.0,
            k_m: None,
            k_h: 20.0,
            gamma: 0.96,
            w_q: WeightSetting::Fixed(0.07),
            count_correction: true,
            wait: true,
            ecn: false,
            mean_pkt_size: 500,
        }
    }
}

/// Eq. (1) with its slopes resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DoubleSlope {
    pub k_l: f64,
    pub k_m: f64,
    pub k_h: f64,
    pub gamma: f64,
    pub alpha: f64,
    pub beta: f64,
}

impl DoubleSlope {
    pub fn new(k_l: f64, k_m: f64, k_h: f64, gamma: f64) -> Self {
        DoubleSlope {
            k_l,
            k_m,
            k_h,
            gamma,
            alpha: (1.0 - gamma) / (k_m - k_l),
            beta: gamma / (k_h - k_m),
        }
    }

    pub fn p_d(&self, avg: f64) -> f64 {
        if avg < self.k_l {
            0.0
        } else if avg < self.k_m {
            self.alpha * (avg - self.k_l)
        } else if avg < self.k_h {
            (1.0 - self.gamma + self.beta * (avg - self.k_m)).min(1.0)
        } else {
            1.0
        }
    }
}

#[derive(Debug, Clone)]
pub struct Dsred {
    pub red: Red,
    pub curve: DoubleSlope,
    pub count_correction: bool,
}

impl Dsred {
    pub fn new(cfg: RedConfig, curve: DoubleSlope, count_correction: bool) -> Self {
        Dsred {
            red: Red::new(cfg),
            curve,
            count_correction,
        }
    }
}

impl Aqm for Dsred {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        let avg = self.red.ewma.update(q.now, self.red.q(q));
        let p_d = self.curve.p_d(avg);
        let forced = avg >= self.curve.k_h;
        let rule = if self.count_correction {
            count_corrected
        } else {
            no_count_correction
        };
        self.red.decide_with(q, pkt, rng, avg, p_d, forced, rule)
    }

    fn on_link_idle(&mut self, now: Time) {
        self.red.ewma.on_link_idle(now);
    }

    fn state(&self, out: &mut StateSink) {
        // The paper's p_d is RED's p_b (the curve's probability): one name for it, p_b.
        out("avg_packets", self.red.ewma.avg);
        out("p_b", self.red.p_b);
        out("p", self.red.p_a);
        out("since_signal_packets", self.red.count as f64);
    }
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let d: DsredParams = p.parse()?;
    p.non_negative("k_l", d.k_l, "")?;
    p.require(d.k_h.is_finite() && d.k_h > d.k_l, "k_h", || {
        format!("must be greater than k_l ({}), got {}", d.k_l, d.k_h)
    })?;
    let k_m = d.k_m.unwrap_or((d.k_l + d.k_h) / 2.0);
    p.require(k_m.is_finite() && d.k_l < k_m && k_m < d.k_h, "k_m", || {
        format!(
            "must lie strictly between k_l ({}) and k_h ({}), got {k_m}",
            d.k_l, d.k_h
        )
    })?;
    p.in_range("gamma", d.gamma, 0.0, 1.0)?;
    let red = RedParams {
        min_th: Some(d.k_l),
        max_th: Some(d.k_h),
        max_p: 1.0,
        w_q: d.w_q,
        gentle: false,
        wait: d.wait,
        ecn: d.ecn,
        // p_d < 1 = mark_p everywhere below K_h: every early signal may be a mark
        mark_p: 1.0,
        mean_pkt_size: d.mean_pkt_size,
        ..RedParams::default()
    };
    let cfg = red.resolve(env, p)?;
    Ok(Box::new(Dsred::new(
        cfg,
        DoubleSlope::new(d.k_l, k_m, d.k_h, d.gamma),
        d.count_correction,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::DropKind;
    use crate::net::PacketKind;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }

    #[test]
    fn double_slope_at_and_around_every_breakpoint() {
        // Paper setting: K_l 6, K_h 20, K_m 13, gamma 0.96.
        // alpha = 2*0.04/14 = 0.0057142857, beta = 2*0.96/14 = 0.1371428571
        let c = DoubleSlope::new(6.0, 13.0, 20.0, 0.96);
        close(c.alpha, 2.0 * 0.04 / 14.0);
        close(c.beta, 2.0 * 0.96 / 14.0);
        assert_eq!(c.p_d(5.999), 0.0);
        assert_eq!(c.p_d(6.0), 0.0);
        close(c.p_d(6.5), 0.5 * 0.08 / 14.0); // 0.0028571
        close(c.p_d(12.999), 6.999 * 0.08 / 14.0); // just under 1 - gamma = 0.04
        close(c.p_d(13.0), 0.04); // 1 - gamma, continuous
        close(c.p_d(13.001), 0.04 + 0.001 * 1.92 / 14.0);
        close(c.p_d(16.5), 0.04 + 3.5 * 1.92 / 14.0); // 0.52
        close(c.p_d(19.999), 0.04 + 6.999 * 1.92 / 14.0); // -> 1
        assert_eq!(c.p_d(20.0), 1.0);
        assert_eq!(c.p_d(100.0), 1.0);
        // gamma 0.91: p_d(K_m) = 0.09
        close(DoubleSlope::new(6.0, 13.0, 20.0, 0.91).p_d(13.0), 0.09);
    }

    #[test]
    fn gamma_one_half_is_one_straight_line() {
        // alpha = beta = 2*0.5/14 = 1/14: p_d = (avg - 6)/14 on [6, 20)
        let c = DoubleSlope::new(6.0, 13.0, 20.0, 0.5);
        close(c.alpha, 1.0 / 14.0);
        close(c.beta, 1.0 / 14.0);
        for i in 0..=139 {
            let avg = 6.0 + i as f64 * 0.1;
            close(c.p_d(avg), (avg - 6.0) / 14.0);
        }
    }

    #[test]
    fn off_midpoint_k_m_stays_continuous_and_reaches_one() {
        // K_m = 10: alpha = 0.04/4 = 0.01, beta = 0.96/10 = 0.096
        let c = DoubleSlope::new(6.0, 10.0, 20.0, 0.96);
        close(c.p_d(9.999_999), 0.04 - 1e-8);
        close(c.p_d(10.0), 0.04);
        close(c.p_d(15.0), 0.04 + 5.0 * 0.096); // 0.52
        close(c.p_d(20.0 - 1e-9), 1.0 - 0.096e-9);
    }

    fn dsred(count_correction: bool) -> Dsred {
        let env = crate::aqm::test_rig::env(200);
        let p = AqmParams::new(serde_json::json!({}), "q");
        let red = RedParams {
            min_th: Some(6.0),
            max_th: Some(20.0),
            max_p: 1.0,
            w_q: WeightSetting::Fixed(1.0),
            gentle: false,
            mark_p: 1.0,
            ..RedParams::default()
        };
        Dsred::new(
            red.resolve(&env, &p).unwrap(),
            DoubleSlope::new(6.0, 13.0, 20.0, 0.96),
            count_correction,
        )
    }

    fn view(now: Time, len: u32) -> QueueView {
        crate::aqm::test_rig::view(now, len, 200)
    }

    #[test]
    fn red_count_correction_by_default_and_optional() {
        let pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
        let mut rng = crate::aqm::test_rig::rng();
        // w = 1: avg = q = 16 -> p_d = 0.04 + 3 * 1.92/14 = 0.4514
        let mut d = dsred(true);
        d.red.old = true;
        // count 1: count*p = 0.52 < 1 -> with wait p_a = 0
        d.on_arrival(&view(1, 16), &pkt, &mut rng);
        close(d.red.p_b, 0.04 + 3.0 * 1.92 / 14.0); // avg 16: 0.451428...
        assert_eq!(d.red.p_a, 0.0);
        // count 3 at p_d(16) = 0.4514: 1.354 in [1, 2) -> p_a = p/(2 - 1.354)
        d.red.count = 2;
        d.on_arrival(&view(2, 16), &pkt, &mut rng);
        let p = 0.04 + 3.0 * 1.92 / 14.0;
        close(d.red.p_a, p / (2.0 - 3.0 * p));
        // without correction: p_a = p_d at every count
        let mut n = dsred(false);
        n.red.old = true;
        for t in 1..5 {
            n.on_arrival(&view(t, 16), &pkt, &mut rng);
            close(n.red.p_a, p);
        }
        // avg >= K_h: forced drop
        assert_eq!(
            n.on_arrival(&view(9, 20), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Forced)
        );
    }

    #[test]
    fn ecn_marks_anywhere_below_k_h() {
        let mut d = dsred(false);
        d.red.cfg.ecn = true;
        d.red.old = true;
        let mut pkt = crate::aqm::test_rig::packet(PacketKind::TcpData);
        pkt.ecn.ect = true;
        let mut rng = crate::aqm::test_rig::rng();
        // p_d(19) = 0.04 + 6 * 1.92/14 = 0.863: usually signalled, always as a mark (p < 1)
        let mut marks = 0;
        for t in 1..50 {
            match d.on_arrival(&view(t, 19), &pkt, &mut rng) {
                ArrivalVerdict::Mark => marks += 1,
                ArrivalVerdict::Enqueue => {}
                v => panic!("unexpected {v:?}"),
            }
        }
        assert!(marks > 30, "{marks}");
    }

    #[test]
    fn invalid_parameters_name_the_parameter() {
        let env = crate::aqm::test_rig::env(200);
        for (json, path) in [
            (serde_json::json!({"K_l": 20, "K_h": 10}), "q.aqm.k_h"),
            (serde_json::json!({"k_l": -1}), "q.aqm.k_l"),
            (serde_json::json!({"k_m": 20}), "q.aqm.k_m"),
            (serde_json::json!({"k_m": 6}), "q.aqm.k_m"),
            (serde_json::json!({"gamma": 1.2}), "q.aqm.gamma"),
            (serde_json::json!({"gamma": -0.1}), "q.aqm.gamma"),
            (serde_json::json!({"w_q": 0}), "q.aqm.w_q"),
        ] {
            let e = build(&AqmParams::new(json.clone(), "q.aqm"), &env)
                .err()
                .unwrap_or_else(|| panic!("{json} must be rejected"));
            assert_eq!(e.path, path, "{e}");
        }
        assert!(build(
            &AqmParams::new(
                serde_json::json!({"K_l": 6, "K_m": 10, "K_h": 20, "gamma": 0.5}),
                "q"
            ),
            &env
        )
        .is_ok());
    }
}
