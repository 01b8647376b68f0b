//! LPF/ODA: RED (the low-pass-filter phase) plus over-drop avoidance.
//!
//! Source: B. Zheng, M. Atiquzzaman, "Low pass filter/over drop avoidance (LPF/ODA): an
//! algorithm to improve the response time of RED gateways" (2001/2002), as described in the
//! Hybrid RED paper (seed 002, sec. III: "If the instantaneous queue size stays below min_th
//! for three consecutive packet arrivals, then it indicates the onset of the Over Drop
//! Avoidance (ODA) Phase during which the EWMA is reduced to half of its present value. After
//! this reduction, updating of the EWMA queue size is continued as in normal RED.") and
//! ../shared/specs/baselines.md. No public code exists.
//!
//! This is Hybrid RED's EWMA reduction (eq. 10) with theta = 3 and xi = 2 and without the
//! enqueue rule: ((1 - w)/2) avg + w q is "halve avg, then the normal RED update". It is built
//! from [`super::hybrid_red`], not copied. One consequence of sharing the code: an arrival
//! with q exactly equal to min_th counts as "low" (Hybrid RED's q <= min_th), where the prose
//! says "below".
//!
//! How often (`reduction`, as Hybrid RED's): `"once_per_low_period"` (default) halves avg once,
//! at the onset of the ODA phase (the 3rd consecutive low arrival), then RED's normal update
//! until an arrival with q > min_th ends the phase — the prose above. `"every_theta"` halves at
//! every 3rd consecutive low arrival (aqmlab's reading before issue 10), which drives avg to
//! ~0 within one long low period.  `"while_above_min_th"` (Hybrid RED's third reading, issue 24)
//! halves at every low arrival from the 3rd on while avg is above min_th; the LPF/ODA prose
//! ("reduced to half of its present value. After this reduction, ... normal RED") reads as
//! one halving, so the reproduction runs LPF/ODA with the default only.
//!
//! Parameters: every RED parameter (see [`super::red`]) and `reduction`; the 3 arrivals and the
//! factor 1/2 are fixed by the algorithm (use `hybrid_red` with `enqueue_rule = false` to vary
//! them).

use super::hybrid_red::{self, HybridOptions, Reduction};
use super::params::{doc, AqmParams, ParamDoc, QueueEnv};
use super::red::{joined_docs, parse_variant, RED_PARAM_DOCS};
use super::Aqm;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

const OWN_DOCS: &[ParamDoc] = &[doc(
    "reduction",
    "once_per_low_period",
    "\"once_per_low_period\" | \"every_theta\" | \"while_above_min_th\"",
    "halve avg once per run of low arrivals (the ODA phase), at every 3rd low arrival, or at every low arrival from the 3rd on while avg > min_th (Hybrid RED's readings)",
)];

pub const PARAMS: &[ParamDoc] = joined_docs!(OWN_DOCS, RED_PARAM_DOCS);

/// LPF/ODA's fixed choice: 3 low arrivals, avg halved once per low period, no enqueue rule.
pub const OPTIONS: HybridOptions = HybridOptions {
    theta: 3,
    xi: 2.0,
    reduction: Reduction::OncePerLowPeriod,
    enqueue_rule: false,
    region7: false,
};

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct LpfOdaParams {
    pub(crate) reduction: Reduction,
}

impl Default for LpfOdaParams {
    fn default() -> Self {
        LpfOdaParams {
            reduction: OPTIONS.reduction,
        }
    }
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let (own, red): (LpfOdaParams, _) = parse_variant(p, &["reduction"], &[])?;
    let opts = HybridOptions {
        reduction: own.reduction,
        ..OPTIONS
    };
    Ok(Box::new(hybrid_red::build_with(&red, opts, p, env)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::hybrid_red::HybridRed;
    use crate::aqm::red::{RedConfig, RedParams};
    use crate::aqm::QueueView;
    use crate::net::{Packet, PacketKind};
    use crate::sim::{RngStream, Time};

    fn view(now: Time, len: u32) -> QueueView {
        crate::aqm::test_rig::view(now, len, 100)
    }

    fn arrive(h: &mut HybridRed, v: &QueueView, pkt: &Packet, rng: &mut RngStream) -> f64 {
        use crate::aqm::Aqm;
        h.on_arrival(v, pkt, rng);
        h.red.ewma.avg
    }

    fn red_cfg() -> RedConfig {
        RedParams::default().config(5.0, 15.0, 0.1, 1250.0)
    }

    /// w = 0.1, avg 20 on a busy link, then arrivals seeing q = 0, 0, 0, 2, 2, 2, 2, 2, 2.
    fn avg_sequence(reduction: Reduction) -> (Vec<f64>, u64) {
        let mut h = HybridRed::new(
            red_cfg(),
            HybridOptions {
                reduction,
                ..OPTIONS
            },
        );
        h.red.ewma.avg = 20.0;
        h.red.ewma.update(0, 20.0); // busy from t = 0, avg stays 20
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
        let avgs = [0u32, 0, 0, 2, 2, 2, 2, 2, 2]
            .iter()
            .enumerate()
            .map(|(i, &q)| arrive(&mut h, &view(i as Time + 1, q), &pkt, &mut rng))
            .collect();
        (avgs, h.reductions)
    }

    fn assert_close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() < 1e-12, "arrival {}: {g} vs {w}", i + 1);
        }
    }

    #[test]
    fn avg_is_halved_once_at_the_onset_of_the_oda_phase() {
        let (avg, reductions) = avg_sequence(Reduction::OncePerLowPeriod);
        // normal: 0.9 avg + 0.1 q; halved: 0.45 avg + 0.1 q
        assert_close(
            &avg,
            &[
                18.0,       // 1st low arrival: 0.9 * 20
                16.2,       // 2nd: 0.9 * 18
                7.29,       // 3rd: the ODA phase starts: 0.45 * 16.2
                6.761,      // 4th (q 2 < 5, same phase): normal 0.9 * 7.29 + 0.2
                6.2849,     // 5th: normal
                5.85641,    // 6th: normal (every_theta would halve here)
                5.470769,   // 7th: normal
                5.1236921,  // 8th: normal
                4.81132289, // 9th: normal (every_theta would halve here)
            ],
        );
        assert_eq!(reductions, 1);
    }

    #[test]
    fn every_theta_halves_at_every_third_low_arrival() {
        let (avg, reductions) = avg_sequence(Reduction::EveryTheta);
        assert_close(
            &avg,
            &[
                18.0,
                16.2,
                7.29,         // as above: halved at the 3rd
                6.761,        // 4th: normal 0.9 * 7.29 + 0.2
                6.2849,       // 5th: normal
                3.028205,     // 6th = 3rd of the new run: halved 0.45 * 6.2849 + 0.2
                2.9253845,    // 7th: normal 0.9 * 3.028205 + 0.2
                2.83284605,   // 8th: normal
                1.4747807225, // 9th: halved 0.45 * 2.83284605 + 0.2
            ],
        );
        assert_eq!(reductions, 3);
    }

    #[test]
    fn has_no_enqueue_rule_and_only_the_reduction_parameter() {
        assert_eq!(
            OPTIONS,
            HybridOptions {
                theta: 3,
                xi: 2.0,
                reduction: Reduction::OncePerLowPeriod,
                enqueue_rule: false,
                region7: false
            }
        );
        let env = crate::aqm::test_rig::env(50);
        let e = build(
            &AqmParams::new(serde_json::json!({"theta": 2}), "q.aqm"),
            &env,
        )
        .err()
        .unwrap();
        assert!(e.message.contains("theta"), "{e}");
        let e = build(
            &AqmParams::new(serde_json::json!({"reduction": "always"}), "q.aqm"),
            &env,
        )
        .err()
        .unwrap();
        assert_eq!(e.path, "q.aqm.reduction", "{e}");
        assert!(build(
            &AqmParams::new(serde_json::json!({"min_th": 5, "max_th": 15}), "q.aqm"),
            &env
        )
        .is_ok());
        assert!(build(
            &AqmParams::new(serde_json::json!({"reduction": "every_theta"}), "q.aqm"),
            &env
        )
        .is_ok());
    }
}
