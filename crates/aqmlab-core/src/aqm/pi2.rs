//! PI2: the PI controller on queue delay with a squared output, as a single-queue AQM, and the
//! base PI controller that DualPI2 ([`super::dualpi2`]) couples to its L4S queue.
//!
//! Sources: K. De Schepper, O. Bondarenko, I.-J. Tsang, B. Briscoe, "PI2: A Linearized AQM for
//! both Classic and Scalable TCP", ACM CoNEXT 2016 (the idea: run PIE's PI controller without
//! its auto-tuning table and square its output for Classic traffic, p_C = p'^2, which
//! linearizes the controller against Reno's 1/sqrt(p) response); RFC 9332 (De Schepper,
//! Briscoe, White, 2023) section 2.1 (the coupling p_C = (p_CL / k)^2, the base p' = p_CL /
//! k) and Appendix A.1 (the PI update every Tupdate:
//! `p' += alpha (curq - target) + beta (curq - prevq)`, curq the queuing time of the packet
//! at the head, `cq.time()`, p' kept within [0, 1]; the squared drop or mark at dequeue);
//! Linux `net/sched/sch_dualpi2.c` (`calculate_probability`, `must_drop`,
//! `dualpi2_classic_marking`, `dualpi2_roll`, `dualpi2_reset_default`), whose conventions
//! and defaults this follows. How each source was read, and what of RFC 9332 is unchecked:
//! docs/readings.md, "PI2 and DualPI2".
//!
//! The base controller ([`BasePi`]), every `t_update`, with qdelay the delay sampled then
//! (seconds):
//!   p' += alpha (qdelay - target) + beta (qdelay - qdelay_prev),  p' clamped to [0, p'_max]
//! alpha and beta in Hz are not scaled by p' (PIE's auto-tuning table is what the square
//! replaces: CoNEXT 2016 section 3). Linux computes the same in 32-bit fixed point.
//!
//! PI2 on one queue: every `t_update` the delay is the age of the head packet (RFC 9332 A.1
//!, `cq.time()`; 0 when the queue is empty). A packet is dropped, or CE-marked if it
//! is ECT and `ecn` is on, with probability p_C = p'^2, drawn as two independent rolls against
//! p' (Linux `dualpi2_classic_marking`: `dualpi2_roll(prob) && dualpi2_roll(prob)`). The
//! decision is taken at dequeue (Linux's default `drop_dequeue`; RFC 9332 A.1 too),
//! or at enqueue with `drop_early = true` (Linux `drop_enqueue`). No signal while the backlog
//! (after the packet left) is under 2 `mtu` (Linux `must_drop`: "Never mark/drop if we have a
//! standing queue of less than 2 MTUs"). Overload (RFC 9332 section 4.2.3 and A.2):
//! once p_C exceeds `p_cmax`, ECT packets are dropped instead of marked, so that
//! unresponsive ECN traffic cannot hold the queue; p_cmax = min(1/k^2, 1) = 1/4 with the RFC's
//! k = 2 (Linux's equivalent test is k p' > 1).
//!
//! Parameters (defaults are Linux `dualpi2_reset_default`'s, which RFC 9332 A.1 shares for
//! target):
//! - `target` (15 ms): the queue delay p' steers to
//! - `t_update` (16 ms): update period
//! - `alpha` (0.16 Hz), `beta` (3.2 Hz): integral and proportional gains. Linux stores them as
//!   41/256 = 0.16015625 Hz and 819/256 = 3.19921875 Hz ("~0.16 Hz * 256", "~3.20 Hz *
//!   256"); aqmlab uses the rounded values the comments name (0.1 % and 0.02 % apart)
//! - `mtu` (1514 bytes): no signal while the backlog is under 2 mtu (Linux `psched_mtu`, an
//!   Ethernet device's 1500 + 14)
//! - `ecn` (true): CE-mark ECT packets instead of dropping them (sch_dualpi2 always marks
//!   ECT Classic packets)
//! - `p_cmax` (0.25): above this p_C, ECT packets are dropped (overload)
//! - `drop_early` (false): decide at enqueue instead of dequeue

use super::params::{doc, AqmParams, ParamDoc, QueueEnv};
use super::{Aqm, ArrivalVerdict, DepartureVerdict, DropKind, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{time, RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

/// Linux `dualpi2_reset_default`: target 15 ms, Tupdate 16 ms.
pub const DEFAULT_TARGET: Duration = Duration(15_000_000);
pub const DEFAULT_T_UPDATE: Duration = Duration(16_000_000);
/// Linux `dualpi2_reset_default`'s gains as its comments give them ("~0.16 Hz", "~3.20 Hz").
pub const DEFAULT_ALPHA: f64 = 0.16;
pub const DEFAULT_BETA: f64 = 3.2;
/// Linux `psched_mtu` of an Ethernet device: what the 2-MTU rule and DualPI2's WRR credit use.
pub const DEFAULT_MTU: u32 = 1514;

/// The documentation of the base controller's parameters, shared with DualPI2.
pub const TARGET_DOC: ParamDoc = doc(
    "target",
    "15ms",
    "s",
    "queue delay the base probability p' steers to",
)
// RFC 9332 A.1 and Linux: 15 ms.
.with_plausible(1e-5, 0.5);
pub const T_UPDATE_DOC: ParamDoc = doc("t_update", "16ms", "s", "update period of p'")
    // Linux: 16 ms (RFC 9332 A.1 derives it from target and the worst-case RTT).
    .with_plausible(1e-4, 0.5);
pub const ALPHA_DOC: ParamDoc = doc(
    "alpha",
    "0.16",
    "Hz",
    "integral gain of p' on (delay - target); Linux 41/256",
);
pub const BETA_DOC: ParamDoc = doc(
    "beta",
    "3.2",
    "Hz",
    "proportional gain of p' on the delay's change; Linux 819/256",
);
pub const MTU_DOC: ParamDoc = doc(
    "mtu",
    "1514",
    "bytes",
    "no drop or mark while the backlog is under 2 mtu (Linux psched_mtu)",
);
pub const DROP_EARLY_DOC: ParamDoc = doc(
    "drop_early",
    "false",
    "bool",
    "decide drops and marks at enqueue (Linux drop_enqueue) instead of dequeue (drop_dequeue)",
);

pub const PARAMS: &[ParamDoc] = &[
    TARGET_DOC,
    T_UPDATE_DOC,
    ALPHA_DOC,
    BETA_DOC,
    MTU_DOC,
    doc(
        "ecn",
        "true",
        "bool",
        "CE-mark ECT packets with p_C = p'^2 instead of dropping them",
    ),
    doc(
        "p_cmax",
        "0.25",
        "probability",
        "above this p_C, ECT packets are dropped, not marked (RFC 9332 4.2.3; 1/k^2 for k = 2)",
    ),
    DROP_EARLY_DOC,
];

/// The base PI controller's gains and reference (RFC 9332 A.1's PI2 parameters).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PiGains {
    pub target: Time,
    /// Integral gain, Hz.
    pub alpha: f64,
    /// Proportional gain, Hz.
    pub beta: f64,
}

impl PiGains {
    /// Checks the gains as a builder does, errors naming `target`, `t_update`, `alpha`,
    /// `beta` under `p`.
    pub fn validate(&self, t_update: Duration, p: &AqmParams) -> Result<(), ScenarioError> {
        p.require(t_update.0 > 0, "t_update", || "must be > 0".into())?;
        p.non_negative("alpha", self.alpha, "Hz")?;
        p.non_negative("beta", self.beta, "Hz")?;
        Ok(())
    }
}

/// The base PI controller of PI2 and DualPI2: p' from the queue delay, updated every
/// Tupdate (RFC 9332 A.1; Linux `calculate_probability`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BasePi {
    /// The base probability p'.
    pub p: f64,
    /// The delay sampled at the last update (RFC 9332's `prevq`, Linux `last_qdelay`).
    pub qdelay_prev: Time,
}

impl BasePi {
    /// One update from the delay sampled now; p' stays within [0, `p_max`] (1, or 1/k when
    /// DualPI2 does not drop on overload: Linux caps the stored probability at MAX_PROB / k).
    pub fn update(&mut self, gains: &PiGains, qdelay: Time, p_max: f64) {
        let q = time::to_secs_f64(qdelay);
        let target = time::to_secs_f64(gains.target);
        let prev = time::to_secs_f64(self.qdelay_prev);
        self.p += gains.alpha * (q - target) + gains.beta * (q - prev);
        self.p = self.p.clamp(0.0, p_max);
        self.qdelay_prev = qdelay;
    }

    /// The Classic probability p_C = p'^2.
    pub fn p_c(&self) -> f64 {
        self.p * self.p
    }
}

/// True with probability `p` (Linux `dualpi2_roll`: one 32-bit random number against p).
#[inline]
pub fn roll(p: f64, rng: &mut RngStream) -> bool {
    p > 0.0 && rng.uniform() < p
}

/// The squared signal of a Classic packet, with probability p'^2 as two rolls against p'
/// (Linux `dualpi2_classic_marking`; CoNEXT 2016's "compare with two random numbers").
/// `drop_ect`: overload, or ECN off: an ECT packet is dropped rather than marked.
pub fn classic_signal(
    p: f64,
    ect: bool,
    drop_ect: bool,
    rng: &mut RngStream,
) -> Option<DepartureVerdict> {
    if roll(p, rng) && roll(p, rng) {
        Some(if ect && !drop_ect {
            DepartureVerdict::Mark
        } else {
            DepartureVerdict::Drop
        })
    } else {
        None
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Pi2Params {
    pub target: Duration,
    pub t_update: Duration,
    pub alpha: f64,
    pub beta: f64,
    pub mtu: u32,
    pub ecn: bool,
    pub p_cmax: f64,
    pub drop_early: bool,
}

impl Default for Pi2Params {
    fn default() -> Self {
        Pi2Params {
            target: DEFAULT_TARGET,
            t_update: DEFAULT_T_UPDATE,
            alpha: DEFAULT_ALPHA,
            beta: DEFAULT_BETA,
            mtu: DEFAULT_MTU,
            ecn: true,
            p_cmax: 0.25,
            drop_early: false,
        }
    }
}

impl Pi2Params {
    fn gains(&self) -> PiGains {
        PiGains {
            target: self.target.0,
            alpha: self.alpha,
            beta: self.beta,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Pi2 {
    pub cfg: Pi2Params,
    pub pi: BasePi,
}

impl Pi2 {
    pub fn new(cfg: Pi2Params) -> Self {
        Pi2 {
            cfg,
            pi: BasePi::default(),
        }
    }

    /// The signal for `pkt` with `backlog` bytes waiting besides it (Linux `must_drop`).
    fn signal(&self, backlog: u64, pkt: &Packet, rng: &mut RngStream) -> Option<DepartureVerdict> {
        if backlog < 2 * self.cfg.mtu as u64 {
            return None;
        }
        let overload = self.pi.p_c() > self.cfg.p_cmax;
        classic_signal(self.pi.p, pkt.ecn.ect, overload || !self.cfg.ecn, rng)
    }
}

impl Aqm for Pi2 {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        if q.is_full_for(pkt.size) {
            return ArrivalVerdict::Drop(DropKind::Forced);
        }
        if !self.cfg.drop_early {
            return ArrivalVerdict::Enqueue;
        }
        match self.signal(q.len_bytes, pkt, rng) {
            None | Some(DepartureVerdict::Send) => ArrivalVerdict::Enqueue,
            Some(DepartureVerdict::Mark) => ArrivalVerdict::Mark,
            Some(DepartureVerdict::Drop) => ArrivalVerdict::Drop(DropKind::Early),
        }
    }

    fn on_departure(
        &mut self,
        q: &QueueView,
        pkt: &Packet,
        rng: &mut RngStream,
    ) -> DepartureVerdict {
        if self.cfg.drop_early {
            return DepartureVerdict::Send;
        }
        self.signal(q.len_bytes, pkt, rng)
            .unwrap_or(DepartureVerdict::Send)
    }

    fn timer_interval(&self) -> Option<Time> {
        Some(self.cfg.t_update.0)
    }

    fn on_timer(&mut self, q: &QueueView, _rng: &mut RngStream) {
        let qdelay = q.head_enqueued_at.map_or(0, |t| q.now.saturating_sub(t));
        self.pi.update(&self.cfg.gains(), qdelay, 1.0);
    }

    /// Target, gains and the rest change (t_update from the next tick on); p' and the last
    /// delay carry on, as Linux `dualpi2_change` keeps `pi2_prob`.
    fn reconfigure(&mut self, next: Box<dyn Aqm>) -> bool {
        super::reconfigure_from(next, |next: Box<Pi2>| self.cfg = next.cfg)
    }

    fn state(&self, out: &mut StateSink) {
        out("p", self.pi.p);
        out("p_c", self.pi.p_c());
        out("qdelay_ms", time::to_secs_f64(self.pi.qdelay_prev) * 1e3);
        out("target_delay_ms", self.cfg.target.secs() * 1e3);
    }
}

pub fn build(p: &AqmParams, _env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let cfg: Pi2Params = p.parse()?;
    cfg.gains().validate(cfg.t_update, p)?;
    p.require(cfg.mtu > 0, "mtu", || "must be > 0".into())?;
    p.in_range("p_cmax", cfg.p_cmax, 0.0, 1.0)?;
    Ok(Box::new(Pi2::new(cfg)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_rig::{self, rng};
    use crate::net::PacketKind;

    const MS: Time = 1_000_000;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    fn gains() -> PiGains {
        Pi2Params::default().gains()
    }

    #[test]
    fn base_pi_update_from_given_delays() {
        let mut pi = BasePi::default();
        // 25 ms, from 0: 0.16 * (0.025 - 0.015) + 3.2 * 0.025 = 0.0016 + 0.08 = 0.0816
        pi.update(&gains(), 25 * MS, 1.0);
        assert!(close(pi.p, 0.0816), "{}", pi.p);
        assert_eq!(pi.qdelay_prev, 25 * MS);
        // 25 ms again: only the integral term, + 0.0016
        pi.update(&gains(), 25 * MS, 1.0);
        assert!(close(pi.p, 0.0832), "{}", pi.p);
        // 10 ms: 0.16 * (-0.005) + 3.2 * (-0.015) = -0.0008 - 0.048 = -0.0488
        pi.update(&gains(), 10 * MS, 1.0);
        assert!(close(pi.p, 0.0832 - 0.0488), "{}", pi.p);
        assert!(close(pi.p_c(), (0.0832 - 0.0488) * (0.0832 - 0.0488)));
        // an empty queue pulls p' down to 0 (0.0344 - 0.0024 - 0.032), never below
        pi.update(&gains(), 0, 1.0);
        assert!(close(pi.p, 0.0), "{}", pi.p);
        pi.update(&gains(), 0, 1.0);
        assert_eq!(pi.p, 0.0, "-0.0024 clamped");
        // the cap: 400 ms at once adds 0.16 * 0.385 + 3.2 * 0.4 > 1
        pi.update(&gains(), 400 * MS, 0.5);
        assert_eq!(pi.p, 0.5);
    }

    #[test]
    fn the_update_samples_the_head_packets_age() {
        let mut a = Pi2::new(Pi2Params::default());
        let mut q = test_rig::view(100 * MS, 10, 100);
        q.head_enqueued_at = Some(75 * MS);
        a.on_timer(&q, &mut rng());
        assert!(close(a.pi.p, 0.0816), "{}", a.pi.p);
        // 10 ms: 0.0816 + 0.16 * -0.005 + 3.2 * -0.015 = 0.0328
        q.head_enqueued_at = Some(90 * MS);
        a.on_timer(&q, &mut rng());
        assert!(close(a.pi.p, 0.0328), "{}", a.pi.p);
        // empty queue: delay 0: 0.0328 - 0.0024 - 0.032 < 0, clamped
        q.head_enqueued_at = None;
        a.on_timer(&q, &mut rng());
        assert_eq!(a.pi.p, 0.0);
        assert_eq!(a.pi.qdelay_prev, 0);
    }

    /// Fraction of `n` departures of `pkt` (with 10 packets waiting) given each verdict.
    fn fractions(a: &mut Pi2, pkt: &Packet, n: u32) -> (f64, f64) {
        let mut rng = rng();
        let (mut marks, mut drops) = (0, 0);
        let q = test_rig::view(0, 10, 100);
        for _ in 0..n {
            match a.on_departure(&q, pkt, &mut rng) {
                DepartureVerdict::Mark => marks += 1,
                DepartureVerdict::Drop => drops += 1,
                DepartureVerdict::Send => {}
            }
        }
        (marks as f64 / n as f64, drops as f64 / n as f64)
    }

    #[test]
    fn squared_signal_marks_ect_and_drops_the_rest_then_drops_all_in_overload() {
        let mut a = Pi2::new(Pi2Params::default());
        let mut ect = test_rig::packet(PacketKind::TcpData);
        ect.ecn.ect = true;
        let plain = test_rig::packet(PacketKind::TcpData);
        // p' = 0.3: p_C = 0.09 < p_cmax; ECT marked, the rest dropped, ~9 % each
        a.pi.p = 0.3;
        let (m, d) = fractions(&mut a, &ect, 40_000);
        assert!(d == 0.0 && (m - 0.09).abs() < 0.006, "mark {m} drop {d}");
        let (m, d) = fractions(&mut a, &plain, 40_000);
        assert!(m == 0.0 && (d - 0.09).abs() < 0.006, "mark {m} drop {d}");
        // p' = 0.6: p_C = 0.36 > 0.25: ECT dropped too
        a.pi.p = 0.6;
        let (m, d) = fractions(&mut a, &ect, 40_000);
        assert!(m == 0.0 && (d - 0.36).abs() < 0.01, "mark {m} drop {d}");
        // ecn off: ECT dropped at any p
        a.cfg.ecn = false;
        a.pi.p = 0.3;
        let (m, d) = fractions(&mut a, &ect, 40_000);
        assert!(m == 0.0 && (d - 0.09).abs() < 0.006, "mark {m} drop {d}");
    }

    #[test]
    fn no_signal_under_two_mtu_and_forced_drop_when_full() {
        let mut a = Pi2::new(Pi2Params::default());
        a.pi.p = 1.0;
        let pkt = test_rig::packet(PacketKind::TcpData);
        let mut rng = rng();
        // 3 packets of 1000 B waiting: 3000 < 3028
        let q = test_rig::view(0, 3, 100);
        assert_eq!(a.on_departure(&q, &pkt, &mut rng), DepartureVerdict::Send);
        let q = test_rig::view(0, 4, 100);
        assert_eq!(a.on_departure(&q, &pkt, &mut rng), DepartureVerdict::Drop);
        assert_eq!(
            a.on_arrival(&test_rig::view(0, 100, 100), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Forced)
        );
        // drop_early: decided at enqueue, never at dequeue
        a.cfg.drop_early = true;
        assert_eq!(
            a.on_arrival(&test_rig::view(0, 50, 100), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        assert_eq!(a.on_departure(&q, &pkt, &mut rng), DepartureVerdict::Send);
    }

    #[test]
    fn set_takes_the_new_parameters_and_keeps_p() {
        let mut a = Pi2::new(Pi2Params::default());
        a.pi.p = 0.3;
        a.pi.qdelay_prev = 20 * MS;
        let next = Pi2::new(Pi2Params {
            target: Duration(5 * MS),
            ..Default::default()
        });
        assert!(a.reconfigure(Box::new(next)));
        assert_eq!((a.pi.p, a.pi.qdelay_prev), (0.3, 20 * MS));
        assert_eq!(a.cfg.target.0, 5 * MS);
    }

    #[test]
    fn parameters_are_checked_by_name() {
        let env = test_rig::env(100);
        for (bad, path) in [
            (serde_json::json!({"t_update": 0}), "q.aqm.t_update"),
            (serde_json::json!({"alpha": -1.0}), "q.aqm.alpha"),
            (serde_json::json!({"p_cmax": 2.0}), "q.aqm.p_cmax"),
            (serde_json::json!({"mtu": 0}), "q.aqm.mtu"),
        ] {
            let e = build(&AqmParams::new(bad, "q.aqm"), &env).err().unwrap();
            assert_eq!(e.path, path);
        }
    }
}
