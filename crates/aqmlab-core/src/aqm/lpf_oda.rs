//! LPF/ODA: RED (the low-pass-filter phase) plus over-drop avoidance.
//!
//! Source: B. Zheng, M. Atiquzzaman, "Low pass filter/over drop avoidance (LPF/ODA): an
//! algorithm to improve the response time of RED gateways" (2001/2002), as described in the
//! Hybrid RED paper (seed 002, sec. III) and ../shared/specs/baselines.md: when the
//! instantaneous queue has stayed below min_th for 3 consecutive arrivals, avg is halved, then
//! RED continues. No public code exists.
//!
//! This is Hybrid RED's EWMA reduction (eq. 10) with theta = 3 and xi = 2 and without the
//! enqueue rule: ((1 - w)/2) avg + w q is "halve avg, then the normal RED update". It is built
//! from [`super::hybrid_red`], not copied. One consequence of sharing the code: an arrival
//! with q exactly equal to min_th counts as "low" (Hybrid RED's q <= min_th), where the prose
//! says "below".
//!
//! Parameters: every RED parameter (see [`super::red`]); the 3 arrivals and the factor 1/2
//! are fixed by the algorithm (use `hybrid_red` with `enqueue_rule = false` to vary them).

use super::hybrid_red::{self, HybridOptions};
use super::params::AqmParams;
use super::red::{parse_variant, RED_PARAM_DOCS};
use super::registry::ParamDoc;
use super::{Aqm, QueueEnv};
use crate::scenario::ScenarioError;
use serde::Deserialize;

pub const PARAMS: &[ParamDoc] = RED_PARAM_DOCS;

/// LPF/ODA's fixed choice: 3 low arrivals, avg halved, no enqueue rule.
pub const OPTIONS: HybridOptions = HybridOptions {
    theta: 3,
    xi: 2.0,
    enqueue_rule: false,
    region7: false,
};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoOwnParams {}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let (_, red): (NoOwnParams, _) = parse_variant(p, &[], &[])?;
    Ok(Box::new(hybrid_red::build_with(&red, OPTIONS, p, env)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::hybrid_red::HybridRed;
    use crate::aqm::red::RedConfig;
    use crate::aqm::{QueueLimit, QueueView};
    use crate::net::{Packet, PacketKind};
    use crate::sim::{RngStream, StreamKind, Time};

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

    fn arrive(h: &mut HybridRed, v: &QueueView, pkt: &Packet, rng: &mut RngStream) -> f64 {
        use crate::aqm::Aqm;
        h.on_arrival(v, pkt, rng);
        h.red.ewma.avg
    }

    #[test]
    fn avg_is_halved_on_the_third_low_arrival() {
        let cfg = RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.1,
            gentle: true,
            wait: true,
            bytes: false,
            mean_pkt_size: 500,
            ecn: false,
            mark_p: 0.1,
            ptc: 1250.0,
        };
        let mut h = HybridRed::new(cfg, OPTIONS);
        h.red.ewma.avg = 20.0;
        h.red.ewma.update(0, 20.0); // busy from t = 0, avg stays 20
        let mut rng = RngStream::new(1, StreamKind::Queue, 0);
        let pkt = Packet::new(PacketKind::Udp, 0, 0, 1, 0, 1000);
        let mut a = arrive(&mut h, &view(1, 0), &pkt, &mut rng);
        // 1st low arrival: 0.9 * 20 = 18
        assert!((a - 18.0).abs() < 1e-12);
        a = arrive(&mut h, &view(2, 0), &pkt, &mut rng);
        // 2nd: 0.9 * 18 = 16.2
        assert!((a - 16.2).abs() < 1e-12);
        a = arrive(&mut h, &view(3, 0), &pkt, &mut rng);
        // 3rd: halved then RED's step: 0.9 * 16.2 / 2 + 0.1 * 0 = 7.29
        assert!((a - 7.29).abs() < 1e-12);
        a = arrive(&mut h, &view(4, 2), &pkt, &mut rng);
        // run restarted: 4th is a normal update: 0.9 * 7.29 + 0.1 * 2 = 6.761
        assert!((a - 6.761).abs() < 1e-12);
        assert_eq!(h.reductions, 1);
        // q = 2 < 5 was already low arrival 1 of a new run: the 5th is the 2nd (normal), the
        // 6th the 3rd (halved): 0.9*6.761 + 0.2 = 6.2849; 0.45*6.2849 + 0.2 = 3.028205
        a = arrive(&mut h, &view(5, 2), &pkt, &mut rng);
        assert!((a - 6.2849).abs() < 1e-12, "{a}");
        a = arrive(&mut h, &view(6, 2), &pkt, &mut rng);
        assert!((a - 3.028205).abs() < 1e-12, "{a}");
        assert_eq!(h.reductions, 2);
    }

    #[test]
    fn has_no_enqueue_rule_and_no_own_parameters() {
        assert_eq!(
            OPTIONS,
            HybridOptions {
                theta: 3,
                xi: 2.0,
                enqueue_rule: false,
                region7: false
            }
        );
        let env = QueueEnv {
            link_rate_bps: 10_000_000,
            link_delay: 0,
            limit: QueueLimit::Packets(50),
        };
        let e = build(
            &AqmParams::new(serde_json::json!({"theta": 2}), "q.aqm"),
            &env,
        )
        .err()
        .unwrap();
        assert!(e.message.contains("theta"), "{e}");
        assert!(build(
            &AqmParams::new(serde_json::json!({"min_th": 5, "max_th": 15}), "q.aqm"),
            &env
        )
        .is_ok());
    }
}
