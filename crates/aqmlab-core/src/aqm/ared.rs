//! Adaptive RED: gentle RED whose max_p is steered so that avg stays in a target band.
//!
//! Source: S. Floyd, R. Gummadi, S. Shenker, "Adaptive RED: An Algorithm for Increasing the
//! Robustness of RED's Active Queue Management" (2001), sections 4-5 and Fig. 5 (the AIMD
//! adaptation), as recorded in ../shared/specs/baselines.md; ns-2.35 `queue/red.cc`
//! (`REDQueue::updateMaxP`, called from `REDQueue::estimator`).
//!
//! Adaptation, with D = max_th - min_th and the band [min_th + 0.4 D, min_th + 0.6 D]:
//! - avg > upper and max_p < top: max_p += min(alpha, max_p/4)  (additive increase)
//! - avg < lower and max_p > bottom: max_p *= beta             (multiplicative decrease)
//!
//! The bounds, `bounds`:
//! - "strict" (default): as ns-2's `updateMaxP` (`edp_.top > edv_.cur_max_p`,
//!   `edv_.cur_max_p > edp_.bottom`): max_p exactly at top is not raised, exactly at bottom is
//!   not lowered.
//! - "inclusive": max_p <= top and max_p >= bottom, as the paper's Fig. 5 is quoted in Linux
//!   `include/net/red.h` ("if (avg > target and max_p <= 0.5) ... else if (avg < target and
//!   max_p >= 0.01)") and implemented by its `red_adaptative_algo`, and as
//!   shared/specs/baselines.md writes it; aqmlab's only rule before issue 24.
//!
//! The two differ only when max_p lands exactly on a bound; the default follows ns-2 because
//! the papers reproduced here ran ns-2.
//!
//! When: ns-2's way, inside the arrival path, right after avg is updated and before the drop
//! decision (so the arrival that triggers a change already uses the new max_p), whenever
//! now > last_change + interval. As in ns-2, last_change moves only when max_p changes, so
//! after a quiet spell in the band the first arrival outside it adapts at once. No timer: an
//! idle link does not adapt (Linux's 500 ms timer would).
//!
//! Automatic parameters (Floyd et al. sec. 5): w_q = 1 - exp(-1/C) with C the link rate in
//! mean-size packets per second ("auto"), min_th = max(5, target_delay C/2), max_th = 3 min_th,
//! gentle on. Everything is overridable.
//!
//! Parameters (plus every RED parameter of [`super::red`], with `w_q` defaulting to "auto" and
//! `max_p` being the initial max_p):
//! - `interval` (time, 0.5 s): at most one change of max_p per interval
//! - `alpha` (probability, 0.01): cap of the additive increase
//! - `beta` (factor, 0.9): multiplicative decrease
//! - `top` (probability, 0.5): no increase once max_p reaches it
//! - `bottom` (probability, 0.01): no decrease once max_p is at or below it
//! - `adaptive` (bool, true): false freezes max_p (plain gentle RED with ARED's auto settings)
//! - `bounds` ("strict" | "inclusive", "strict"): how top and bottom are compared (above)

use super::params::{doc, AqmParams, ParamDoc, QueueEnv};
use super::red::{
    joined_docs, parse_variant, Red, RedConfig, RedParams, RED_DOCS_REST, RED_DOCS_THRESHOLDS,
};
use super::{Aqm, ArrivalVerdict, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

/// The adaptation's parameters (QVARED lists them too).
pub const ADAPT_DOCS: &[ParamDoc] = &[
    // Floyd, Gummadi & Shenker 2001 and ns-2: 0.5 s.
    doc(
        "interval",
        "0.5s",
        "s",
        "at most one change of max_p per interval (checked on arrivals, ns-2 style)",
    )
    .with_plausible(1e-3, 10.0),
    doc(
        "alpha",
        "0.01",
        "probability",
        "cap of the additive increase: max_p += min(alpha, max_p/4)",
    ),
    doc("beta", "0.9", "factor", "decrease: max_p *= beta"),
    doc(
        "top",
        "0.5",
        "probability",
        "increase only while max_p < top (<= with bounds = \"inclusive\")",
    ),
    doc(
        "bottom",
        "0.01",
        "probability",
        "decrease only while max_p > bottom (>= with bounds = \"inclusive\")",
    ),
    doc(
        "adaptive",
        "true",
        "bool",
        "adapt max_p (false: fixed max_p)",
    ),
    doc(
        "bounds",
        "strict",
        "\"strict\" | \"inclusive\"",
        "strict: max_p < top / > bottom (ns-2 updateMaxP); inclusive: <= / >= (paper Fig. 5 as quoted in Linux red.h; aqmlab before issue 24)",
    ),
];

const ARED_RED_DOCS: &[ParamDoc] = &[
    doc(
        "max_p",
        "0.1",
        "probability",
        "initial max_p (then adapted)",
    ),
    doc(
        "w_q",
        "auto",
        "weight",
        "EWMA weight; \"auto\" = 1-exp(-1/ptc) (Floyd et al.), or a number",
    ),
];

pub const PARAMS: &[ParamDoc] = joined_docs!(
    RED_DOCS_THRESHOLDS,
    ARED_RED_DOCS,
    RED_DOCS_REST,
    ADAPT_DOCS,
);

/// The adaptation's own keys (QVARED reads the same ones).
pub const ADAPT_KEYS: &[&str] = &[
    "interval", "alpha", "beta", "top", "bottom", "adaptive", "bounds",
];

/// How max_p is compared with top and bottom (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxPBounds {
    /// ns-2 `updateMaxP`: max_p < top to increase, max_p > bottom to decrease.
    Strict,
    /// Floyd et al. Fig. 5 as quoted in Linux `red.h`: max_p <= top, max_p >= bottom.
    Inclusive,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct AdaptParams {
    pub interval: Duration,
    pub alpha: f64,
    pub beta: f64,
    pub top: f64,
    pub bottom: f64,
    pub adaptive: bool,
    pub bounds: MaxPBounds,
}

impl Default for AdaptParams {
    fn default() -> Self {
        AdaptParams {
            interval: Duration(500_000_000),
            alpha: 0.01,
            beta: 0.9,
            top: 0.5,
            bottom: 0.01,
            adaptive: true,
            bounds: MaxPBounds::Strict,
        }
    }
}

impl AdaptParams {
    pub fn resolve(&self, p: &AqmParams) -> Result<AdaptiveMaxP, ScenarioError> {
        p.require(self.interval.0 > 0, "interval", || "must be > 0".into())?;
        p.in_range("alpha", self.alpha, 0.0, 1.0)?;
        p.require(
            self.beta.is_finite() && self.beta > 0.0 && self.beta < 1.0,
            "beta",
            || format!("must be in (0, 1), got {}", self.beta),
        )?;
        p.in_range("top", self.top, 0.0, 1.0)?;
        p.in_range("bottom", self.bottom, 0.0, 1.0)?;
        p.require(self.bottom <= self.top, "bottom", || {
            format!("must not exceed top ({}), got {}", self.top, self.bottom)
        })?;
        Ok(AdaptiveMaxP {
            interval: self.interval.0,
            alpha: self.alpha,
            beta: self.beta,
            top: self.top,
            bottom: self.bottom,
            enabled: self.adaptive,
            bounds: self.bounds,
            last_change: 0,
            changes: 0,
        })
    }
}

/// Floyd et al.'s AIMD steering of max_p (shared with QVARED).
#[derive(Debug, Clone)]
pub struct AdaptiveMaxP {
    pub interval: Time,
    pub alpha: f64,
    pub beta: f64,
    pub top: f64,
    pub bottom: f64,
    pub enabled: bool,
    pub bounds: MaxPBounds,
    /// When max_p last changed (ns-2 `lastset`, 0 at start).
    pub last_change: Time,
    /// Changes so far (state time series).
    pub changes: u64,
}

impl AdaptiveMaxP {
    /// The target band [min_th + 0.4 D, min_th + 0.6 D] for thresholds (min_th, max_th).
    pub fn band(min_th: f64, max_th: f64) -> (f64, f64) {
        let d = max_th - min_th;
        (min_th + 0.4 * d, min_th + 0.6 * d)
    }

    /// An arrival's first step in ARED and QVARED: updates RED's avg with the queue `q`
    /// shows, then adapts its max_p to it; returns avg.
    #[inline]
    pub fn update_red(&mut self, red: &mut Red, q: &QueueView) -> f64 {
        let avg = red.ewma.update(q.now, red.q(q));
        let (min_th, max_th) = (red.cfg.min_th, red.cfg.max_th);
        self.update(q.now, avg, min_th, max_th, &mut red.cfg.max_p);
        avg
    }

    /// Adapts `max_p` given the freshly updated avg; returns whether it changed.
    pub fn update(
        &mut self,
        now: Time,
        avg: f64,
        min_th: f64,
        max_th: f64,
        max_p: &mut f64,
    ) -> bool {
        if !self.enabled || now <= self.last_change.saturating_add(self.interval) {
            return false;
        }
        let (lower, upper) = Self::band(min_th, max_th);
        let (below_top, above_bottom) = match self.bounds {
            MaxPBounds::Strict => (*max_p < self.top, *max_p > self.bottom),
            MaxPBounds::Inclusive => (*max_p <= self.top, *max_p >= self.bottom),
        };
        let changed = if avg > upper && below_top {
            *max_p += self.alpha.min(*max_p / 4.0);
            true
        } else if avg < lower && above_bottom {
            *max_p *= self.beta;
            true
        } else {
            false
        };
        if changed {
            *max_p = max_p.min(1.0);
            self.last_change = now;
            self.changes += 1;
        }
        changed
    }
}

#[derive(Debug, Clone)]
pub struct Ared {
    pub red: Red,
    pub adapt: AdaptiveMaxP,
}

impl Ared {
    pub fn new(cfg: RedConfig, adapt: AdaptiveMaxP) -> Self {
        Ared {
            red: Red::new(cfg),
            adapt,
        }
    }
}

impl Aqm for Ared {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        let avg = self.adapt.update_red(&mut self.red, q);
        self.red.decide_on_curve(q, pkt, rng, avg)
    }

    fn on_link_idle(&mut self, now: Time) {
        self.red.ewma.on_link_idle(now);
    }

    fn state(&self, out: &mut StateSink) {
        self.red.report(out);
        out("max_p_changes", self.adapt.changes as f64);
    }
}

/// The table split into Adaptive RED's keys and RED's, with ARED's own default for `w_q`
/// ("auto"); what `build` and the resolved scenario (`resolved.rs`) read.
pub(crate) fn parse_params(p: &AqmParams) -> Result<(AdaptParams, RedParams), ScenarioError> {
    parse_variant(p, ADAPT_KEYS, &[("w_q", serde_json::json!("auto"))])
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let (adapt, red) = parse_params(p)?;
    let adapt = adapt.resolve(p)?;
    Ok(Box::new(Ared::new(red.resolve(env, p)?, adapt)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;

    const S: Time = 1_000_000_000;
    const MS: Time = 1_000_000;

    fn view(now: Time, len: u32) -> QueueView {
        crate::aqm::test_rig::view(now, len, 200)
    }

    /// w = 1 so avg = q: min_th 5, max_th 15, band [9, 11].
    fn ared() -> Ared {
        let cfg = crate::aqm::red::RedParams::default().config(5.0, 15.0, 1.0, 2500.0);
        let adapt = AdaptParams::default()
            .resolve(&AqmParams::new(serde_json::json!({}), "q"))
            .unwrap();
        Ared::new(cfg, adapt)
    }

    #[test]
    fn band_is_forty_to_sixty_percent() {
        assert_eq!(AdaptiveMaxP::band(5.0, 15.0), (9.0, 11.0));
        assert_eq!(AdaptiveMaxP::band(20.0, 80.0), (44.0, 56.0));
    }

    #[test]
    fn max_p_steps_at_interval_boundaries() {
        let mut a = ared();
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
        let mut at = |a: &mut Ared, t: Time, q: u32| {
            a.on_arrival(&view(t, q), &pkt, &mut rng);
            a.red.cfg.max_p
        };
        // avg = 12 > upper 11. t = 0.5 s is not > 0 + 0.5 s: no change yet.
        assert_eq!(at(&mut a, S / 2, 12), 0.1);
        // t = 0.5 s + 1 ms: increase by min(0.01, 0.1/4 = 0.025) = 0.01 -> 0.11
        assert!((at(&mut a, S / 2 + MS, 12) - 0.11).abs() < 1e-15);
        // within the next interval nothing changes, whatever avg does
        assert!((at(&mut a, S, 40) - 0.11).abs() < 1e-15);
        // t = 1.002 s > 0.501 + 0.5: +0.01 -> 0.12
        assert!((at(&mut a, S + 2 * MS, 12) - 0.12).abs() < 1e-15);
        // avg in the band [9, 11]: no change, and last_change stays at 1.002 s
        assert!((at(&mut a, 2 * S, 10) - 0.12).abs() < 1e-15);
        assert_eq!(a.adapt.last_change, S + 2 * MS);
        // avg = 6 < lower 9: max_p *= 0.9 -> 0.108 at once (ns-2: last change was > 0.5 s ago)
        assert!((at(&mut a, 2 * S + MS, 6) - 0.108).abs() < 1e-15);
        // next decrease only after 2.501 s: 0.0972
        assert!((at(&mut a, 2 * S + 400 * MS, 6) - 0.108).abs() < 1e-15);
        assert!((at(&mut a, 2 * S + 502 * MS, 6) - 0.0972).abs() < 1e-15);
        assert_eq!(a.adapt.changes, 4);
    }

    #[test]
    fn small_max_p_increases_by_a_quarter_and_limits_hold() {
        let mut a = ared();
        let mut max_p = 0.02;
        // 0.02/4 = 0.005 < 0.01
        assert!(a.adapt.update(S, 20.0, 5.0, 15.0, &mut max_p));
        assert!((max_p - 0.025).abs() < 1e-15);
        // below top 0.5 it increases (0.495 -> 0.505); from there on, never
        let mut m = 0.495;
        assert!(a.adapt.update(2 * S, 20.0, 5.0, 15.0, &mut m));
        assert!((m - 0.505).abs() < 1e-15);
        assert!(!a.adapt.update(3 * S, 20.0, 5.0, 15.0, &mut m));
        // below bottom 0.01 it no longer decreases; just above, it does
        let mut low = 0.0099;
        assert!(!a.adapt.update(4 * S, 0.0, 5.0, 15.0, &mut low));
        let mut above_bottom = 0.0101;
        assert!(a.adapt.update(5 * S, 0.0, 5.0, 15.0, &mut above_bottom));
        assert!((above_bottom - 0.00909).abs() < 1e-15);
    }

    /// Issue 24, item 7: ns-2's `updateMaxP` bounds are strict (`top > cur_max_p`,
    /// `cur_max_p > bottom`): max_p exactly at top or at bottom does not move. aqmlab used
    /// `<=` / `>=` before (now `bounds = "inclusive"`), which raised 0.5 to 0.51 and lowered
    /// 0.01 to 0.009.
    #[test]
    fn max_p_exactly_at_top_or_bottom_stays() {
        let mut a = ared();
        let mut at_top = 0.5;
        assert!(!a.adapt.update(S, 20.0, 5.0, 15.0, &mut at_top));
        assert_eq!(at_top, 0.5);
        let mut at_bottom = 0.01;
        assert!(!a.adapt.update(2 * S, 0.0, 5.0, 15.0, &mut at_bottom));
        assert_eq!(at_bottom, 0.01);
        assert_eq!(a.adapt.changes, 0);
        assert_eq!(
            a.adapt.last_change, 0,
            "no change: the interval clock does not move"
        );
        // the paper's Fig. 5 as Linux quotes it: both move
        a.adapt.bounds = MaxPBounds::Inclusive;
        assert!(a.adapt.update(3 * S, 20.0, 5.0, 15.0, &mut at_top));
        assert!((at_top - 0.51).abs() < 1e-15);
        assert!(a.adapt.update(4 * S, 0.0, 5.0, 15.0, &mut at_bottom));
        assert!((at_bottom - 0.009).abs() < 1e-15);
        let env = crate::aqm::test_rig::env(100);
        let p = AqmParams::new(serde_json::json!({"bounds": "inclusive"}), "q.aqm");
        assert!(build(&p, &env).is_ok());
        let p = AqmParams::new(serde_json::json!({"bounds": "open"}), "q.aqm");
        let e = build(&p, &env).err().unwrap();
        assert!(e.path.contains("bounds"), "{e}");
    }

    #[test]
    fn automatic_parameters_follow_floyd_et_al() {
        let env = QueueEnv {
            link_delay: 5_000_000,
            ..crate::aqm::test_rig::env(100)
        };
        let p = AqmParams::new(serde_json::json!({}), "q.aqm");
        let (adapt, red): (AdaptParams, crate::aqm::red::RedParams) =
            parse_variant(&p, ADAPT_KEYS, &[("w_q", serde_json::json!("auto"))]).unwrap();
        let c = red.resolve(&env, &p).unwrap();
        // C = 10e6/(8*500) = 2500 pkt/s: w = 1 - exp(-1/2500); min_th = max(5, 0.005*2500/2
        // = 6.25); max_th = 18.75; gentle
        assert!((c.w_q - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-15);
        assert_eq!((c.min_th, c.max_th), (6.25, 18.75));
        assert!(c.gentle);
        assert_eq!(adapt.interval.0, 500 * MS);
        // overrides
        let p = AqmParams::new(
            serde_json::json!({"w_q": 0.002, "min_th": 20, "interval": "1s", "max_p": 0.05}),
            "q.aqm",
        );
        let (adapt, red): (AdaptParams, crate::aqm::red::RedParams) =
            parse_variant(&p, ADAPT_KEYS, &[("w_q", serde_json::json!("auto"))]).unwrap();
        let c = red.resolve(&env, &p).unwrap();
        assert_eq!(
            (c.w_q, c.min_th, c.max_th, c.max_p),
            (0.002, 20.0, 60.0, 0.05)
        );
        assert_eq!(adapt.interval.0, S);
        assert!(build(&p, &env).is_ok());
        for (json, path) in [
            (serde_json::json!({"beta": 1.5}), "q.aqm.beta"),
            (serde_json::json!({"interval": 0}), "q.aqm.interval"),
            (serde_json::json!({"alpha": -0.1}), "q.aqm.alpha"),
            (serde_json::json!({"max_th": 3}), "q.aqm.max_th"),
        ] {
            let e = build(&AqmParams::new(json, "q.aqm"), &env).err().unwrap();
            assert_eq!(e.path, path, "{e}");
        }
    }
}
