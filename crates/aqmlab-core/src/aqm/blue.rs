//! BLUE: one marking probability driven by buffer overflow and link idleness.
//!
//! Source: W. Feng, D. Kandlur, D. Saha, K. Shin, "The BLUE active queue management
//! algorithms", IEEE/ACM ToN 10(4), 2002, section 4 (Fig. 5); ns-2 BLUE port as recorded in
//! shared/specs/baselines.md.
//!
//! - Arrival: with probability p the packet is marked (ECN on and ECT) or dropped early.
//!   Otherwise it is enqueued; if it overflows the buffer (a loss event) it is dropped
//!   (forced) and p += d1.
//! - Link idle (the link finds nothing to send): p -= d2.
//! - A change of p happens only if more than `freeze_time` has passed since the last change
//!   of either kind: the paper's pseudocode (Fig. 5) keeps one `last_update`, set by both the
//!   packet-loss and the link-idle branch (default, `shared_freeze = true`). Feng's own ns
//!   code does not: the ns-2 BLUE (`blue.cc`, "Ported to ns2.1b8 by Sunil Thulasidasan",
//!   2001-2002) keeps one clock per direction, `increment_pmark` testing
//!   `now - ifreezetime_ > iholdtime_` and `decrement_pmark` `now - dfreezetime_ >
//!   dholdtime_`, with the two hold times bound separately to the Tcl parameters `ihold-time`
//!   and `dhold-time` (its example script sets both to 100 ms). That reading, also
//!   shared/specs/baselines.md's (an idle event right after an increase still decreases p), is
//!   `shared_freeze = false` with one `freeze_time` for both directions (aqmlab's default
//!   before issue 10). The first change is never frozen.
//! - p is clamped to [0, 1].
//!
//! A packet picked for marking that then overflows the buffer is dropped and counts as a loss
//! event, as in ns-2 (which marks, enqueues, then checks the length).
//!
//! Parameters:
//! - `d1` (0.0025, probability): increment on a loss event
//! - `d2` (0.00025, probability): decrement on link idle
//! - `freeze_time` (100 ms, time): least time between two changes of p
//! - `shared_freeze` (true, bool): one freeze clock for increases and decreases (paper
//!   pseudocode); false: one clock per kind (Feng's ns code, `ihold-time` / `dhold-time`)
//! - `ecn` (false, bool): mark ECT packets instead of dropping them

use super::params::{AqmParams, ParamDoc, QueueEnv};
use super::{Aqm, ArrivalVerdict, DropKind, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "d1",
        default: "0.0025",
        unit: "probability",
        meaning: "increment of p on buffer overflow",
        plausible: None,
    },
    ParamDoc {
        name: "d2",
        default: "0.00025",
        unit: "probability",
        meaning: "decrement of p on link idle",
        plausible: None,
    },
    ParamDoc {
        name: "freeze_time",
        default: "100ms",
        unit: "s",
        meaning: "least time between two changes of p",
        // the BLUE paper's setting: 100 ms.
        plausible: Some(super::params::Plausible::new(1e-3, 2.0)),
    },
    ParamDoc {
        name: "shared_freeze",
        default: "true",
        unit: "bool",
        meaning: "one freeze clock for increases and decreases (paper Fig. 5); false: one per kind (Feng's ns code: ihold-time, dhold-time)",
        plausible: None,
    },
    super::params::ECN_DOC,
];

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct BlueParams {
    pub d1: f64,
    pub d2: f64,
    pub freeze_time: Duration,
    pub shared_freeze: bool,
    pub ecn: bool,
}

impl Default for BlueParams {
    fn default() -> Self {
        BlueParams {
            d1: 0.0025,
            d2: 0.00025,
            freeze_time: Duration(100_000_000),
            shared_freeze: true,
            ecn: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Blue {
    pub cfg: BlueParams,
    pub p: f64,
    pub last_increase: Option<Time>,
    pub last_decrease: Option<Time>,
}

impl Blue {
    pub fn new(cfg: BlueParams) -> Self {
        Blue {
            cfg,
            p: 0.0,
            last_increase: None,
            last_decrease: None,
        }
    }

    fn thawed(&self, now: Time, own: Option<Time>) -> bool {
        let last = if self.cfg.shared_freeze {
            self.last_increase.max(self.last_decrease)
        } else {
            own
        };
        match last {
            None => true,
            Some(t) => now.saturating_sub(t) > self.cfg.freeze_time.0,
        }
    }

    /// A loss event (buffer overflow): p += d1 unless frozen (COBALT reuses this).
    pub(crate) fn on_loss(&mut self, now: Time) {
        if self.thawed(now, self.last_increase) {
            self.p = (self.p + self.cfg.d1).min(1.0);
            self.last_increase = Some(now);
        }
    }
}

impl Aqm for Blue {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        let full = q.is_full_for(pkt.size);
        if rng.uniform() < self.p {
            let v = ArrivalVerdict::signal(self.cfg.ecn, pkt);
            if v == ArrivalVerdict::Mark && full {
                self.on_loss(q.now);
                return ArrivalVerdict::Drop(DropKind::Forced);
            }
            return v;
        }
        if full {
            self.on_loss(q.now);
            return ArrivalVerdict::Drop(DropKind::Forced);
        }
        ArrivalVerdict::Enqueue
    }

    fn on_link_idle(&mut self, now: Time) {
        if self.thawed(now, self.last_decrease) {
            self.p = (self.p - self.cfg.d2).max(0.0);
            self.last_decrease = Some(now);
        }
    }

    fn state(&self, out: &mut StateSink) {
        out("p", self.p);
    }

    /// The steps and the freeze time change; p carries on.
    fn reconfigure(&mut self, next: Box<dyn Aqm>) -> bool {
        super::reconfigure_from(next, |next: Box<Blue>| self.cfg = next.cfg)
    }
}

pub fn build(p: &AqmParams, _env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let cfg: BlueParams = p.parse()?;
    p.in_range("d1", cfg.d1, 0.0, 1.0)?;
    p.in_range("d2", cfg.d2, 0.0, 1.0)?;
    Ok(Box::new(Blue::new(cfg)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;

    const MS: Time = 1_000_000;

    fn view(now: Time, len: u32) -> QueueView {
        crate::aqm::test_rig::view(now, len, 10)
    }

    #[test]
    fn per_kind_freeze_clocks() {
        let mut b = Blue::new(BlueParams {
            shared_freeze: false,
            ..Default::default()
        });
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
        // overflow at 0: p = 0.0025
        assert_eq!(
            b.on_arrival(&view(0, 10), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Forced)
        );
        assert!((b.p - 0.0025).abs() < 1e-15);
        // overflow 50 ms later: frozen (still a forced drop)
        b.on_arrival(&view(50 * MS, 10), &pkt, &mut rng);
        assert!((b.p - 0.0025).abs() < 1e-15);
        // link idle at 60 ms: the decrease clock is separate, so p = 0.0025 - 0.00025
        b.on_link_idle(60 * MS);
        assert!((b.p - 0.00225).abs() < 1e-15);
        b.on_link_idle(160 * MS); // exactly freeze_time: frozen
        assert!((b.p - 0.00225).abs() < 1e-15);
        // overflow at 101 ms: 101 > 100 since the last increase: p = 0.00475
        b.on_arrival(&view(101 * MS, 10), &pkt, &mut rng);
        assert!((b.p - 0.00475).abs() < 1e-15);
        b.on_link_idle(161 * MS);
        assert!((b.p - 0.0045).abs() < 1e-15);
    }

    /// The default (paper Fig. 5): one `last_update` for both kinds of change.
    #[test]
    fn default_freeze_is_one_clock_for_both_kinds() {
        let mut b = Blue::new(BlueParams::default());
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
        b.on_arrival(&view(0, 10), &pkt, &mut rng); // loss at 0: p = 0.0025
        assert!((b.p - 0.0025).abs() < 1e-15);
        b.on_link_idle(60 * MS); // frozen by the increase at 0
        assert!((b.p - 0.0025).abs() < 1e-15);
        b.on_link_idle(101 * MS); // 101 > 100: p = 0.00225, last_update = 101 ms
        assert!((b.p - 0.00225).abs() < 1e-15);
        // a loss 150 ms after the last *increase* but 49 ms after the decrease: frozen
        // (per-kind clocks would raise p here)
        b.on_arrival(&view(150 * MS, 10), &pkt, &mut rng);
        assert!((b.p - 0.00225).abs() < 1e-15);
        b.on_arrival(&view(202 * MS, 10), &pkt, &mut rng); // 101 ms after 101: 0.00475
        assert!((b.p - 0.00475).abs() < 1e-15);
        b.on_link_idle(250 * MS); // 48 ms after the increase: frozen
        assert!((b.p - 0.00475).abs() < 1e-15);
    }

    #[test]
    fn p_one_marks_ect_and_drops_others() {
        let mut b = Blue::new(BlueParams {
            ecn: true,
            ..Default::default()
        });
        b.p = 1.0;
        let mut rng = crate::aqm::test_rig::rng();
        let mut pkt = crate::aqm::test_rig::packet(PacketKind::TcpData);
        assert_eq!(
            b.on_arrival(&view(0, 3), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        pkt.ecn.ect = true;
        assert_eq!(
            b.on_arrival(&view(0, 3), &pkt, &mut rng),
            ArrivalVerdict::Mark
        );
        b.p = 0.0;
        assert_eq!(
            b.on_arrival(&view(0, 3), &pkt, &mut rng),
            ArrivalVerdict::Enqueue
        );
    }

    #[test]
    fn invalid_parameters_name_the_field() {
        let env = crate::aqm::test_rig::env(300);
        let p = AqmParams::new(serde_json::json!({"d1": -0.1}), "q.aqm");
        assert_eq!(build(&p, &env).err().unwrap().path, "q.aqm.d1");
    }
}
