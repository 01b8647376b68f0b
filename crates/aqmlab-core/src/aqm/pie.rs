//! PIE: proportional integral controller enhanced.
//!
//! Sources: RFC 8033 (R. Pan et al., 2017), sections 4.1-4.4 and 5, pseudocode in appendix A
//! (timestamp-free version with departure-rate estimation, appendix B); Linux 5.7+
//! `net/sched/sch_pie.c` (`pie_drop_early`, `pie_process_dequeue`,
//! `pie_calculate_probability`) and `include/net/pie.h` (`pie_params_init`, `pie_vars_init`);
//! Cisco's ns-2 `queue/pie.cc` and `pie.h` (R. Pan, P. Natarajan et al., 2013-2014,
//! `PIEQueue::drop_early`, `PIEQueue::calculate_p`, `BURST_RESET_TIMEOUT`), non-DOCSIS mode.
//!
//! Every `t_update`: with qdelay the current queueing-delay estimate and qdelay_old the one
//! of the previous update,
//!   p += alpha' (qdelay - target) + beta' (qdelay - qdelay_old)   (delays in seconds)
//! where alpha', beta' are alpha, beta divided by 2 if p < 0.1, and by a further 4 for each
//! decade below: /8 if p < 1e-2, /32 < 1e-3, /128 < 1e-4, /512 < 1e-5, /2048 < 1e-6
//! (RFC 8033 4.2; Linux `pie_calculate_probability`). When p >= 0.1 one step adds at most
//! 0.02 (both sources). p is clamped to [0, 1].
//!
//! Decay when the queue stays empty, `decay`:
//! - "rfc8033" (default): if qdelay and qdelay_old are both 0, p *= 0.98 (RFC 8033 4.2;
//!   Cisco's ns-2 `calculate_p` does the same, with the comment "or 63/64").
//! - "linux": p -= p/64 (to 98.4 %) under the same condition, but only if Linux's
//!   `update_prob` is still set: it is cleared when qdelay is 0 while the backlog is not
//!   (`qdelay == 0 && backlog != 0`) and when an increase saturated p. With both delays 0 the
//!   step is always negative, so in practice the guard means: no decay while packets wait.
//!
//! Burst allowance (`max_burst`), `burst_reset`. Which decay each named value's source uses:
//! linux: Linux's (choose `decay = "linux"` for both); rfc8033, ns2, counted_down: 0.98 (the
//! default `decay`).
//! - "linux" (default; Linux `sch_pie.c` `pie_calculate_probability` and
//!   `pie_process_dequeue`, `pie.h` `pie_vars_init`): at every update where p = 0 and both
//!   the current and the previous delay are below target/2 (with the "rate" estimator also
//!   only once a departure rate was measured), the state is re-initialised (`pie_vars_init`:
//!   allowance back to `max_burst`, accu_prob 0, dequeue clock and departure-rate estimate
//!   cleared). The allowance shrinks by the time between consecutive dequeues ("timestamp";
//!   the first dequeue after a re-initialisation counts nothing) or by the length of each
//!   completed departure-rate measurement ("rate"), so it does not drain while nothing is sent.
//! - "rfc8033" (RFC 8033 section 4.4: "decremented by the update period"; reset "when the
//!   congestion goes away, defined here as PIE->drop_prob_ equals 0 and both the current and
//!   previous samples of estimated delay are less than half of QDELAY_REF"): the same re-arm
//!   condition, but the allowance shrinks by t_update at every update, idle or not.
//! - "ns2" (Cisco's ns-2 `pie.cc`, non-DOCSIS mode): a three-state machine (`burst_state_t`).
//!   It starts in NO_BURST with no allowance. The next arrival that reaches the early-drop test
//!   with no allowance left while in NO_BURST arms the full `max_burst` (IN_BURST_PROTECTING)
//!   and is then tested as usual. While the allowance lasts, each update holds p at 0 instead
//!   of running the controller. The allowance shrinks by t_update per update; an update that
//!   finds it spent and calm (p = 0, both delays below target/2) moves PROTECTING to IN_BURST,
//!   and in IN_BURST counts calm updates (a non-calm one restarts the count); more than
//!   floor(1.5 s / t_update) of them in a row (`BURST_RESET_TIMEOUT`; 100 at 15 ms) return to
//!   NO_BURST. So the allowance comes back only after 1.5 s of calm and at an arrival: a burst
//!   after a longer idle period is protected in full, one sooner is not protected at all.
//! - "counted_down" (aqmlab before issue 10): shrinks by t_update per update and is re-armed
//!   in a calm update only once it has reached 0, so it counts down through idle periods and
//!   a burst after idle gets whatever fraction is left. Issue 10 attributed this to ns-2's
//!   `pie.cc`; that was wrong (ns-2's rule is "ns2" above).
//!
//! Arrival: forced drop if the buffer is full. Otherwise no early drop while burst allowance
//! remains, while qdelay < target/2 and p < 0.2, or while the backlog is under 2 `mtu`.
//! Else de-randomized: accu_prob += p (cleared when p = 0); below 0.85 enqueue, at 8.5 or
//! above drop, in between drop with probability p. A drop clears accu_prob (a mark: below); a
//! packet picked is CE-marked instead of dropped if ECN is on, it is ECT and p <= `ecn_prob`
//! (10%). Which picks clear accu_prob, `accu_prob_reset`:
//! - "rfc8033" (default): every pick, marked or dropped (RFC 8033 section 5.1 and appendix A
//!   clear it on a drop, and a mark replaces a drop).
//! - "linux": a random pick and a drop clear it, a pick forced by the 8.5 bound that is
//!   then CE-marked does not (`pie_drop_early` clears it only in its random branch,
//!   `pie_qdisc_enqueue` and `fq_pie_qdisc_enqueue` only on a drop, net/sched/sch_pie.c and
//!   sch_fq_pie.c, 6.1), so the next ECT arrivals are marked too, until a drop, a random
//!   pick or p = 0.
//!
//! (ns-2's non-DOCSIS `drop_early` has no de-randomization at all; only its burst rule is
//! offered, as "ns2".)
//!
//! Queueing delay, `delay_estimator`:
//! - "timestamp" (default, Linux's default since 5.6): the sojourn time of the last packet
//!   dequeued, 0 when the queue is then empty.
//! - "rate" (RFC 8033 appendix B): qdelay = queue bytes * avg_dq_time / dq_threshold at each
//!   update, avg_dq_time being the time to send dq_threshold (16 KiB) bytes, measured while
//!   the queue holds at least that much, averaged with weight dq_threshold / 2^16 = 1/4.
//!
//! Omitted: the extra +2 % step at high delay (Linux: qdelay > 250 ms; ns-2: > 200 ms; not in
//! RFC 8033) and byte mode.
//!
//! Parameters:
//! - `target` (15 ms, time): target queueing delay (QDELAY_REF)
//! - `t_update` (15 ms, time): update period
//! - `alpha` (0.125, 1/s), `beta` (1.25, 1/s): controller gains before scaling
//! - `max_burst` (150 ms, time): burst allowance
//! - `mtu` (1514, bytes): no early drop while the backlog is below 2 mtu
//! - `ecn` (false, bool), `ecn_prob` (0.1): mark ECT packets while p <= ecn_prob
//! - `delay_estimator` ("timestamp" | "rate")
//! - `burst_reset` ("linux" | "rfc8033" | "ns2" | "counted_down"): how the burst allowance is
//!   spent and re-armed (above)
//! - `decay` ("rfc8033" | "linux"): the decay of p while the queue stays empty (above)
//! - `dq_threshold` (16384, bytes): departure-rate measurement size ("rate" only)

use super::params::{AqmParams, ParamDoc, QueueEnv};
use super::{Aqm, ArrivalVerdict, DepartureVerdict, DropKind, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{time, RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "target",
        default: "15ms",
        unit: "s",
        meaning: "target queueing delay",
        // RFC 8033 and Linux: 15 ms.
        plausible: Some(super::params::Plausible::new(1e-5, 0.5)),
    },
    ParamDoc {
        name: "t_update",
        default: "15ms",
        unit: "s",
        meaning: "probability update period",
        // RFC 8033 and Linux: 15 ms.
        plausible: Some(super::params::Plausible::new(1e-4, 0.5)),
    },
    ParamDoc {
        name: "alpha",
        default: "0.125",
        unit: "1/s",
        meaning: "gain on the delay error (scaled down for small p)",
        plausible: None,
    },
    ParamDoc {
        name: "beta",
        default: "1.25",
        unit: "1/s",
        meaning: "gain on the delay trend (scaled down for small p)",
        plausible: None,
    },
    ParamDoc {
        name: "max_burst",
        default: "150ms",
        unit: "s",
        meaning: "burst allowance",
        // RFC 8033 and Linux: 150 ms; 0 turns the allowance off.
        plausible: Some(super::params::Plausible::new(0.0, 5.0)),
    },
    ParamDoc {
        name: "mtu",
        default: "1514",
        unit: "bytes",
        meaning: "no early drop while backlog < 2 mtu",
        plausible: None,
    },
    ParamDoc {
        name: "ecn",
        default: "false",
        unit: "bool",
        meaning: "mark ECT packets while p <= ecn_prob",
        plausible: None,
    },
    ParamDoc {
        name: "ecn_prob",
        default: "0.1",
        unit: "probability",
        meaning: "above this p, ECT packets are dropped too",
        plausible: None,
    },
    ParamDoc {
        name: "delay_estimator",
        default: "timestamp",
        unit: "\"timestamp\" | \"rate\"",
        meaning: "sojourn of the last dequeued packet (Linux) or bytes / departure rate (RFC 8033 app. B)",
        plausible: None,
    },
    ParamDoc {
        name: "burst_reset",
        default: "linux",
        unit: "\"linux\" | \"rfc8033\" | \"ns2\" | \"counted_down\"",
        meaning: "burst allowance re-armed whenever p = 0 and delays < target/2, spent by dequeue time (Linux pie_vars_init) or per update (RFC 8033 4.4); re-armed at the first arrival after 1.5 s of calm, p held at 0 while it lasts (Cisco ns-2 pie.cc); or re-armed only once spent (old aqmlab)",
        plausible: None,
    },
    ParamDoc {
        name: "decay",
        default: "rfc8033",
        unit: "\"rfc8033\" | \"linux\"",
        meaning: "while both delays are 0: p *= 0.98 (RFC 8033 4.2, ns-2 pie.cc); or p -= p/64 only with an empty backlog (Linux update_prob guard)",
        plausible: None,
    },
    ParamDoc {
        name: "accu_prob_reset",
        default: "rfc8033",
        unit: "\"rfc8033\" | \"linux\"",
        meaning: "which early picks clear accu_prob: every one (RFC 8033) or not one the 8.5 bound forced and ECN marked (Linux pie_drop_early)",
        plausible: None,
    },
    ParamDoc {
        name: "dq_threshold",
        default: "16384",
        unit: "bytes",
        meaning: "departure-rate measurement size",
        plausible: None,
    },
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DelayEstimator {
    Timestamp,
    Rate,
}

/// How the burst allowance is spent and re-armed (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstReset {
    Linux,
    Rfc8033,
    Ns2,
    CountedDown,
}

/// Which early picks clear accu_prob (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AccuProbReset {
    Rfc8033,
    Linux,
}

/// How p decays while the queue stays empty (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decay {
    Rfc8033,
    Linux,
}

/// Cisco ns-2 `pie.h` `burst_state_t`, the state of the "ns2" burst rule (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ns2BurstState {
    /// No allowance; the next arrival that reaches the early-drop test arms it.
    NoBurst,
    /// The allowance is armed and not yet spent.
    Protecting,
    /// Spent; `calm_updates` consecutive calm updates so far (`burst_reset_`).
    InBurst { calm_updates: u64 },
}

/// ns-2 `pie.h` `BURST_RESET_TIMEOUT`: calm time before the "ns2" allowance can be re-armed.
pub const NS2_BURST_RESET_TIMEOUT: Time = 1_500_000_000;

#[derive(Debug, Clone, Deserialize, Serialize)]
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
    pub burst_reset: BurstReset,
    pub decay: Decay,
    pub accu_prob_reset: AccuProbReset,
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
            burst_reset: BurstReset::Linux,
            decay: Decay::Rfc8033,
            accu_prob_reset: AccuProbReset::Rfc8033,
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
    /// Time of the last dequeue since the last re-initialisation ("linux" burst clock).
    last_dequeue: Option<Time>,
    /// The "ns2" burst rule's state (unused by the other rules).
    pub ns2_burst: Ns2BurstState,
}

impl Pie {
    pub fn new(cfg: PieParams) -> Self {
        // ns-2's PIEQueue starts with no allowance, in NO_BURST: the first arrival arms it.
        let burst = if cfg.burst_reset == BurstReset::Ns2 {
            0
        } else {
            cfg.max_burst.0
        };
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
            last_dequeue: None,
            ns2_burst: Ns2BurstState::NoBurst,
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
        if self.cfg.burst_reset == BurstReset::Ns2 && self.burst_allowance > 0 {
            // ns-2 `calculate_p`: while the allowance lasts p is 0, the controller idle.
            self.p = 0.0;
        } else {
            self.control(qd, qo, target, len_bytes);
        }
        let calm = self.p == 0.0 && qd < target / 2.0 && qo < target / 2.0;
        match self.cfg.burst_reset {
            BurstReset::Linux => {
                let rate_known =
                    self.cfg.delay_estimator == DelayEstimator::Timestamp || self.avg_dq_time > 0.0;
                if calm && rate_known {
                    self.reinit();
                }
            }
            BurstReset::Rfc8033 | BurstReset::CountedDown => {
                self.burst_allowance = self.burst_allowance.saturating_sub(self.cfg.t_update.0);
                let spent = self.burst_allowance == 0;
                if calm && (spent || self.cfg.burst_reset == BurstReset::Rfc8033) {
                    self.burst_allowance = self.cfg.max_burst.0;
                    self.accu_prob = 0.0;
                }
            }
            BurstReset::Ns2 => {
                self.burst_allowance = self.burst_allowance.saturating_sub(self.cfg.t_update.0);
                self.ns2_burst_step(calm && self.burst_allowance == 0);
            }
        }
        self.qdelay_old = self.qdelay;
    }

    /// The controller's step of p from the two delays (seconds), with the decay and clamp.
    fn control(&mut self, qd: f64, qo: f64, target: f64, len_bytes: u64) {
        let (a, b) = self.scaled_gains();
        let mut delta = a * (qd - target) + b * (qd - qo);
        if delta > 0.02 && self.p >= 0.1 {
            delta = 0.02;
        }
        self.p += delta;
        if self.qdelay == 0 && self.qdelay_old == 0 {
            match self.cfg.decay {
                Decay::Rfc8033 => self.p *= 0.98,
                // Linux's `update_prob` guard: no decay while packets wait (qdelay 0 with a
                // backlog). Its other case, an increase that saturated p, cannot happen here:
                // with both delays 0 the step is -alpha' * target.
                Decay::Linux if len_bytes == 0 => self.p -= self.p / 64.0,
                Decay::Linux => {}
            }
        }
        self.p = self.p.clamp(0.0, 1.0);
    }

    /// ns-2 `calculate_p`'s burst states after an update; `calm_and_spent` is its condition
    /// (both delays below target/2, p = 0, no allowance left).
    fn ns2_burst_step(&mut self, calm_and_spent: bool) {
        let limit = NS2_BURST_RESET_TIMEOUT / self.cfg.t_update.0;
        self.ns2_burst = match (self.ns2_burst, calm_and_spent) {
            (Ns2BurstState::Protecting, true) => Ns2BurstState::InBurst { calm_updates: 0 },
            (Ns2BurstState::InBurst { calm_updates }, true) if calm_updates + 1 > limit => {
                Ns2BurstState::NoBurst
            }
            (Ns2BurstState::InBurst { calm_updates }, true) => Ns2BurstState::InBurst {
                calm_updates: calm_updates + 1,
            },
            (Ns2BurstState::InBurst { .. }, false) => Ns2BurstState::InBurst { calm_updates: 0 },
            (state, _) => state,
        };
    }

    /// Linux `pie_vars_init`: what is re-initialised once congestion has gone (p, qdelay and
    /// qdelay_old are kept, as there).
    fn reinit(&mut self) {
        self.burst_allowance = self.cfg.max_burst.0;
        self.accu_prob = 0.0;
        self.last_dequeue = None;
        self.in_measurement = false;
        self.avg_dq_time = 0.0;
    }

    /// "linux": the allowance is spent by the time the link spent dequeuing.
    fn spend_burst(&mut self, dtime: Time) {
        if self.cfg.burst_reset == BurstReset::Linux {
            self.burst_allowance = self.burst_allowance.saturating_sub(dtime);
        }
    }

    fn drop_early(&mut self, q: &QueueView, rng: &mut RngStream) -> bool {
        if self.burst_allowance > 0 {
            return false;
        }
        if self.cfg.burst_reset == BurstReset::Ns2 && self.ns2_burst == Ns2BurstState::NoBurst {
            // ns-2 `drop_early`: the allowance is armed here and this arrival is still tested.
            self.ns2_burst = Ns2BurstState::Protecting;
            self.burst_allowance = self.cfg.max_burst.0;
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
        let picked = rng.uniform() < self.p;
        if picked && self.cfg.accu_prob_reset == AccuProbReset::Linux {
            self.accu_prob = 0.0;
        }
        picked
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
                self.spend_burst(now - self.measurement_start);
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
        if self.cfg.ecn && pkt.ecn.ect && self.p <= self.cfg.ecn_prob {
            if self.cfg.accu_prob_reset == AccuProbReset::Rfc8033 {
                self.accu_prob = 0.0;
            }
            ArrivalVerdict::Mark
        } else {
            self.accu_prob = 0.0;
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
                if let Some(last) = self.last_dequeue.replace(q.now) {
                    self.spend_burst(q.now - last);
                }
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

    /// Target, gains, t_update (from the next tick on) and the rest change; p, the delay
    /// estimates and the burst allowance carry on.
    fn reconfigure(&mut self, next: Box<dyn Aqm>) -> bool {
        super::reconfigure_from(next, |next: Box<Pie>| self.cfg = next.cfg)
    }

    fn state(&self, out: &mut StateSink) {
        out("p", self.p);
        out("qdelay_ms", time::to_secs_f64(self.qdelay) * 1e3);
        out(
            "burst_allowance_ms",
            time::to_secs_f64(self.burst_allowance) * 1e3,
        );
        out("accu_prob", self.accu_prob);
        out("target_delay_ms", self.cfg.target.secs() * 1e3);
    }
}

impl PieParams {
    /// Checks the parameters; errors name the parameter under `p`'s path (FQ-PIE checks its
    /// per-flow PIE with this too).
    pub fn validate(&self, p: &AqmParams) -> Result<(), ScenarioError> {
        p.require(self.t_update.0 > 0, "t_update", || "must be > 0".into())?;
        p.non_negative("alpha", self.alpha, "")?;
        p.non_negative("beta", self.beta, "")?;
        p.in_range("ecn_prob", self.ecn_prob, 0.0, 1.0)?;
        p.require(self.dq_threshold > 0, "dq_threshold", || {
            "must be > 0".into()
        })
    }
}

pub fn build(p: &AqmParams, _env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let cfg: PieParams = p.parse()?;
    cfg.validate(p)?;
    Ok(Box::new(Pie::new(cfg)))
}

#[cfg(test)]
#[path = "pie_tests.rs"]
mod tests;
