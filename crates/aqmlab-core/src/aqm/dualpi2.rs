//! DualPI2: the coupled dual-queue AQM of L4S.
//!
//! Sources: RFC 9332 (K. De Schepper, B. Briscoe, G. White, "Dual-Queue Coupled Active Queue
//! Management (AQM) for Low Latency, Low Loss, and Scalable Throughput (L4S)", 2023): section
//! 2.1 (the coupling p_CL = k p', p_C = p'^2, k = 2), 2.4 (the structure: the L queue's
//! native AQM and p_L = max(p'_L, p_CL)), 4.2.2 (the scheduler), 4.2.3 (overload: drop rather
//! than mark once p_C exceeds p_Cmax), Appendix A (the DualPI2 pseudocode: classification,
//! the dequeue-time signals, the PI update); Linux `net/sched/sch_dualpi2.c` (Linux 6.17+:
//! `dualpi2_skb_classify`, `dualpi2_enqueue_skb`, `dequeue_packet`, `__dualpi2_qdisc_dequeue`,
//! `must_drop`, `dualpi2_classic_marking`, `dualpi2_scalable_marking`, `do_step_aqm`,
//! `calculate_probability`, `dualpi2_calculate_c_protection`, `dualpi2_reset_default`), whose
//! defaults and order of operations this follows. The base PI controller is PI2's
//! ([`super::pi2::BasePi`]), shared, not copied. How each source was read, and what of RFC
//! 9332 is unchecked: docs/readings.md, "PI2 and DualPI2".
//!
//! - Classification (RFC 9332 A.1, "ECN bits = ECT(1) or CE"; Linux `ecn_mask`
//!   `l4s_ect`, `cb->ect & 1`): a packet carrying ECT(1) or CE joins the L queue; not-ECT and
//!   ECT(0) the C queue. Linux's `any_ect` mask (ECT(0) in L too) and tc filters are not
//!   modelled.
//! - Enqueue: the arrival is dropped (forced) if the two queues together hold `limit` packets
//!   (or the scenario's byte limit would overflow); otherwise stamped and appended to its
//!   queue. An L packet may get the step only if the L queue held at least `min_qlen_step`
//!   packets when it arrived (Linux `skb_apply_step`; default 0: always).
//! - PI update every `t_update` (Linux `calculate_probability`): p' += alpha (q - target) +
//!   beta (q - q_prev), clamped to [0, 1], or to [0, 1/k] with `drop_overload = false`. The
//!   delay q, `pi_delay`: "max" (default; Linux: the larger of the two head packets' ages) or
//!   "classic" (RFC 9332 A.1: `cq.time()`, the C head's age only).
//! - Scheduler, `scheduler`:
//!   - "wrr" (default; Linux `dequeue_packet`, its C-queue starvation protection): a credit
//!     starts at mtu (wc - wl), wc = `c_protection` %, wl = 100 - wc (-121,120 bytes by
//!     default, so L goes first). L is served when it holds packets and C is empty or the
//!     credit is <= 0; else C. Serving L while C waits adds wc x size to the credit, serving C
//!     while L waits subtracts wl x size; only a packet sent (not dropped) moves the credit.
//!     Both queues empty: the credit is reset. So two backlogged queues share the link 90:10
//!     in bytes.
//!   - "ts_fifo" (RFC 9332 section 4.2.2's time-shifted FIFO; ns-3's `DualPi2QueueDisc::
//!     Scheduler`): L is served when its head's age plus `tshift` exceeds the C head's age.
//! - Dequeue-time signals, in Linux's order (`__dualpi2_qdisc_dequeue`): first the coupled
//!   one (`must_drop`; at enqueue instead with `drop_early = true`), none while the backlog left
//!   is under 2 `mtu`. With overload meaning k p' > 1 (p_CL above 1; the same as p_C > p_Cmax
//!   = 1/k^2, RFC 9332 A.2):
//!   - C packet: with probability p_C = p'^2 (two rolls against p'), dropped if it is
//!     not-ECT or in overload, else CE-marked.
//!   - L packet, no overload: with probability p_CL = k p', CE-marked (dropped if not-ECT).
//!   - L packet in overload: with `drop_overload` (default) dropped with probability p'^2,
//!     otherwise (and always without `drop_overload`) marked: RFC 9332 A.2.
//!
//!   Then the L queue's native AQM (`do_step_aqm`): an L packet whose sojourn exceeds
//!   `step_thresh` (1 ms), or, with `step_packets` set, that leaves more than that many packets
//!   in the L queue, is CE-marked (dropped if not-ECT). Marking twice is marking once, so an L
//!   packet is marked with probability p_L = max(p_CL, step) (RFC 9332 section 2.4's
//!   combination, with a step as the native AQM; RFC 9332 A.1's ramp is not modelled).
//!   A packet already CE stays CE and is not counted as a new mark.
//! - `split_gso` does not apply (packets are never aggregated here).
//!
//! Parameters (defaults: Linux `dualpi2_reset_default`; units):
//! - `limit` (10000 packets; the scenario's queue limit also applies), `mtu` (1514 bytes)
//! - `target` (15 ms), `t_update` (16 ms), `alpha` (0.16 Hz), `beta` (3.2 Hz): the base PI
//!   controller (see [`super::pi2`] for Linux's 41/256 and 819/256 Hz)
//! - `coupling` k (2): p_CL = k p'
//! - `ecn` (true): Classic ECT packets are marked with p_C; false drops them instead (not a
//!   Linux option: sch_dualpi2 always marks them; the L queue always marks, being ECN-only)
//! - `step_thresh` (1 ms), `step_packets` (unset), `min_qlen_step` (0 packets)
//! - `scheduler` ("wrr"), `c_protection` (10 %), `tshift` (40 ms, "ts_fifo" only)
//! - `drop_overload` (true), `drop_early` (false), `pi_delay` ("max")

use super::params::{doc, AqmParams, ParamDoc, QueueEnv};
use super::pi2::{self, BasePi, PiGains};
use super::{DepartureVerdict, DropKind, QueueCtx, QueueDiscipline, QueueLimit, StateSink};
use crate::net::{Packet, PacketId};
use crate::sim::{time, RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

pub const PARAMS: &[ParamDoc] = &[
    doc(
        "limit",
        "10000",
        "packets",
        "packets both queues hold at most (the scenario's queue limit also applies)",
    ),
    pi2::MTU_DOC,
    pi2::TARGET_DOC,
    pi2::T_UPDATE_DOC,
    pi2::ALPHA_DOC,
    pi2::BETA_DOC,
    doc("coupling", "2", "factor", "k: the L queue's coupled probability p_CL = k p'"),
    doc(
        "ecn",
        "true",
        "bool",
        "CE-mark Classic ECT packets with p_C (Linux); false: drop them (L packets are always marked)",
    ),
    doc(
        "step_thresh",
        "1ms",
        "s",
        "L packets whose sojourn exceeds this are CE-marked",
    )
    // Linux: 1 ms (RFC 9332 A.1 ramps around it).
    .with_plausible(1e-6, 0.1),
    doc(
        "step_packets",
        "unset",
        "packets",
        "if set, the step is on the L queue's length in packets instead (Linux step_thresh in packets)",
    ),
    doc(
        "min_qlen_step",
        "0",
        "packets",
        "the step applies only to L packets that found at least this many packets in the L queue",
    ),
    doc(
        "scheduler",
        "wrr",
        "\"wrr\" | \"ts_fifo\"",
        "Linux's weighted round robin (c_protection) or RFC 9332's time-shifted FIFO (tshift)",
    ),
    doc(
        "c_protection",
        "10",
        "percent",
        "wrr: the C queue's weight wc (L's is 100 - wc)",
    ),
    doc(
        "tshift",
        "40ms",
        "s",
        "ts_fifo: L is served while its head's age + tshift exceeds the C head's",
    )
    .with_plausible(0.0, 1.0),
    doc(
        "drop_overload",
        "true",
        "bool",
        "once k p' > 1, drop L packets with p'^2 and Classic ECT ones instead of marking; false: cap p' at 1/k",
    ),
    pi2::DROP_EARLY_DOC,
    doc(
        "pi_delay",
        "max",
        "\"max\" | \"classic\"",
        "the delay p' acts on: the older of the two head packets (Linux) or the C head's (RFC 9332 A.1)",
    ),
];

/// Linux `dualpi2_reset_default`: `sch->limit = 10000`.
pub const DEFAULT_LIMIT: u32 = 10_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheduler {
    /// Linux `dequeue_packet`: WRR credit with the C queue's weight `c_protection`.
    Wrr,
    /// RFC 9332 section 4.2.2's time-shifted FIFO.
    TsFifo,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PiDelay {
    /// Linux `calculate_probability`: max(qdelay_l, qdelay_c).
    Max,
    /// RFC 9332 A.1: the C queue's head only.
    Classic,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DualPi2Params {
    pub limit: u32,
    pub mtu: u32,
    pub target: Duration,
    pub t_update: Duration,
    pub alpha: f64,
    pub beta: f64,
    pub coupling: f64,
    pub ecn: bool,
    pub step_thresh: Duration,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_packets: Option<u32>,
    pub min_qlen_step: u32,
    pub scheduler: Scheduler,
    pub c_protection: u8,
    pub tshift: Duration,
    pub drop_overload: bool,
    pub drop_early: bool,
    pub pi_delay: PiDelay,
}

impl Default for DualPi2Params {
    fn default() -> Self {
        DualPi2Params {
            limit: DEFAULT_LIMIT,
            mtu: pi2::DEFAULT_MTU,
            target: pi2::DEFAULT_TARGET,
            t_update: pi2::DEFAULT_T_UPDATE,
            alpha: pi2::DEFAULT_ALPHA,
            beta: pi2::DEFAULT_BETA,
            coupling: 2.0,
            ecn: true,
            step_thresh: Duration(1_000_000),
            step_packets: None,
            min_qlen_step: 0,
            scheduler: Scheduler::Wrr,
            c_protection: 10,
            tshift: Duration(40_000_000),
            drop_overload: true,
            drop_early: false,
            pi_delay: PiDelay::Max,
        }
    }
}

impl DualPi2Params {
    fn gains(&self) -> PiGains {
        PiGains {
            target: self.target.0,
            alpha: self.alpha,
            beta: self.beta,
        }
    }
}

/// Which of the two queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    L,
    C,
}

/// RFC 9332 A.1: ECT(1) or CE goes to the L queue.
pub fn classify(pkt: &Packet) -> Queue {
    if pkt.ecn.ect && pkt.ecn.ect1 || pkt.ecn.ce {
        Queue::L
    } else {
        Queue::C
    }
}

/// An L packet and whether the step may mark it (Linux `cb->apply_step`).
#[derive(Debug, Clone, Copy)]
struct LEntry {
    id: PacketId,
    apply_step: bool,
}

pub struct DualPi2 {
    cfg: DualPi2Params,
    limit_packets: u32,
    limit_bytes: Option<u64>,
    l: VecDeque<LEntry>,
    c: VecDeque<PacketId>,
    l_bytes: u64,
    c_bytes: u64,
    pub pi: BasePi,
    /// The WRR credit in bytes (Linux `c_protection_credit`): L is served while it is <= 0.
    pub credit: i64,
    /// The delay the last update acted on.
    qdelay: Time,
    /// Sojourn of the last packet dequeued from each queue, and p_L applied to the last L one.
    l_sojourn: Time,
    c_sojourn: Time,
    last_p_l: f64,
}

impl DualPi2 {
    pub fn new(cfg: DualPi2Params, limit: QueueLimit) -> Self {
        let (limit_packets, limit_bytes) = match limit {
            QueueLimit::Packets(n) => (cfg.limit.min(n), None),
            QueueLimit::Bytes(b) => (cfg.limit, Some(b)),
        };
        let mut q = DualPi2 {
            cfg,
            limit_packets,
            limit_bytes,
            l: VecDeque::new(),
            c: VecDeque::new(),
            l_bytes: 0,
            c_bytes: 0,
            pi: BasePi::default(),
            credit: 0,
            qdelay: 0,
            l_sojourn: 0,
            c_sojourn: 0,
            last_p_l: 0.0,
        };
        q.reset_credit();
        q
    }

    /// Linux `dualpi2_calculate_c_protection`: mtu (wc - wl).
    fn reset_credit(&mut self) {
        let wc = self.cfg.c_protection as i64;
        self.credit = self.cfg.mtu as i64 * (wc - (100 - wc));
    }

    fn packets(&self) -> u32 {
        (self.l.len() + self.c.len()) as u32
    }

    fn backlog(&self) -> u64 {
        self.l_bytes + self.c_bytes
    }

    fn overflows_with(&self, size: u32) -> bool {
        self.packets() >= self.limit_packets
            || self
                .limit_bytes
                .is_some_and(|b| self.backlog() + size as u64 > b)
    }

    /// p_CL = min(k p', 1).
    pub fn p_cl(&self) -> f64 {
        (self.cfg.coupling * self.pi.p).min(1.0)
    }

    /// Linux `must_drop`: the coupled signal for a packet of `queue` with `backlog` bytes
    /// waiting besides it; None: leave it alone.
    fn coupled_signal(
        &self,
        queue: Queue,
        ect: bool,
        backlog: u64,
        rng: &mut RngStream,
    ) -> Option<DepartureVerdict> {
        if backlog < 2 * self.cfg.mtu as u64 {
            return None;
        }
        let p = self.pi.p;
        let overload = self.cfg.coupling * p > 1.0;
        match queue {
            Queue::C => pi2::classic_signal(p, ect, overload || !self.cfg.ecn, rng),
            Queue::L if overload => {
                // `dualpi2_scalable_marking`: Classic drops first, the rest marked.
                if self.cfg.drop_overload && pi2::roll(p, rng) && pi2::roll(p, rng) {
                    Some(DepartureVerdict::Drop)
                } else {
                    Some(DepartureVerdict::Mark)
                }
            }
            Queue::L => pi2::roll(self.p_cl(), rng).then_some(if ect {
                DepartureVerdict::Mark
            } else {
                DepartureVerdict::Drop
            }),
        }
    }

    /// The scheduler's choice of the queue to serve now, if any holds packets.
    pub fn choose(&self, now: Time, packets: &crate::net::PacketArena) -> Option<Queue> {
        match (self.l.front(), self.c.front()) {
            (None, None) => None,
            (Some(_), None) => Some(Queue::L),
            (None, Some(_)) => Some(Queue::C),
            (Some(l), Some(&c)) => {
                let l_first = match self.cfg.scheduler {
                    Scheduler::Wrr => self.credit <= 0,
                    Scheduler::TsFifo => {
                        let age = |id| now.saturating_sub(packets.get(id).enqueued_at);
                        age(l.id) + self.cfg.tshift.0 > age(c)
                    }
                };
                Some(if l_first { Queue::L } else { Queue::C })
            }
        }
    }

    /// Linux `do_step_aqm`: whether the step marks this L packet, which left `l_left` packets
    /// in the L queue after `sojourn`.
    fn step_marks(&self, apply_step: bool, sojourn: Time, l_left: u32) -> bool {
        apply_step
            && match self.cfg.step_packets {
                Some(n) => l_left > n,
                None => sojourn > self.cfg.step_thresh.0,
            }
    }

    /// The delay the PI update acts on: the head packets' ages (0 for an empty queue).
    fn sampled_delay(&self, now: Time, packets: &crate::net::PacketArena) -> Time {
        let age = |id: Option<PacketId>| {
            id.map_or(0, |id| now.saturating_sub(packets.get(id).enqueued_at))
        };
        let c = age(self.c.front().copied());
        match self.cfg.pi_delay {
            PiDelay::Classic => c,
            PiDelay::Max => c.max(age(self.l.front().map(|e| e.id))),
        }
    }

    /// CE-marks an ECT packet not yet marked (Linux `INET_ECN_set_ce` leaves a not-ECT
    /// packet alone; a CE one is not marked again).
    fn mark(cx: &mut QueueCtx, id: PacketId) {
        let e = cx.packets.get(id).ecn;
        if e.ect && !e.ce {
            cx.mark(id);
        }
    }
}

impl QueueDiscipline for DualPi2 {
    fn enqueue(&mut self, id: PacketId, cx: &mut QueueCtx, _idle: Option<Time>) {
        let pkt = cx.packets.get(id);
        let (size, ect, queue) = (pkt.size, pkt.ecn.ect, classify(pkt));
        if self.overflows_with(size) {
            cx.drop_packet(id, DropKind::Forced);
            return;
        }
        if self.cfg.drop_early {
            match self.coupled_signal(queue, ect, self.backlog(), cx.rng) {
                Some(DepartureVerdict::Drop) => {
                    cx.drop_packet(id, DropKind::Early);
                    return;
                }
                Some(DepartureVerdict::Mark) => Self::mark(cx, id),
                _ => {}
            }
        }
        cx.packets.get_mut(id).enqueued_at = cx.now;
        match queue {
            Queue::L => {
                let apply_step = self.l.len() as u32 >= self.cfg.min_qlen_step;
                self.l.push_back(LEntry { id, apply_step });
                self.l_bytes += size as u64;
            }
            Queue::C => {
                self.c.push_back(id);
                self.c_bytes += size as u64;
            }
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<PacketId> {
        loop {
            let Some(queue) = self.choose(cx.now, cx.packets) else {
                self.reset_credit();
                return None;
            };
            let (id, apply_step, other_waits) = match queue {
                Queue::L => {
                    let e = self.l.pop_front().expect("chosen: not empty");
                    (e.id, e.apply_step, !self.c.is_empty())
                }
                Queue::C => (
                    self.c.pop_front().expect("chosen: not empty"),
                    false,
                    !self.l.is_empty(),
                ),
            };
            let pkt = cx.packets.get(id);
            let (size, ect) = (pkt.size as u64, pkt.ecn.ect);
            let sojourn = cx.now.saturating_sub(pkt.enqueued_at);
            let wc = self.cfg.c_protection as i64;
            let credit_change = match (queue, other_waits) {
                (_, false) => 0,
                (Queue::L, true) => wc * size as i64,
                (Queue::C, true) => -(100 - wc) * size as i64,
            };
            match queue {
                Queue::L => {
                    self.l_bytes -= size;
                    self.l_sojourn = sojourn;
                }
                Queue::C => {
                    self.c_bytes -= size;
                    self.c_sojourn = sojourn;
                }
            }
            let mut marked = false;
            if !self.cfg.drop_early {
                match self.coupled_signal(queue, ect, self.backlog(), cx.rng) {
                    Some(DepartureVerdict::Drop) => {
                        cx.drop_packet(id, DropKind::Early);
                        continue;
                    }
                    Some(DepartureVerdict::Mark) => {
                        Self::mark(cx, id);
                        marked = true;
                    }
                    _ => {}
                }
            }
            if queue == Queue::L {
                let step = self.step_marks(apply_step, sojourn, self.l.len() as u32);
                self.last_p_l = if step { 1.0 } else { self.p_cl() };
                if step {
                    if !ect {
                        cx.drop_packet(id, DropKind::Early);
                        continue;
                    }
                    if !marked {
                        Self::mark(cx, id);
                    }
                }
            }
            self.credit += credit_change;
            return Some(id);
        }
    }

    fn len_packets(&self) -> u32 {
        self.packets()
    }

    fn len_bytes(&self) -> u64 {
        self.backlog()
    }

    fn timer_interval(&self) -> Option<Time> {
        Some(self.cfg.t_update.0)
    }

    fn on_timer(&mut self, cx: &mut QueueCtx, _idle: Option<Time>) {
        self.qdelay = self.sampled_delay(cx.now, cx.packets);
        let p_max = if self.cfg.drop_overload {
            1.0
        } else {
            1.0 / self.cfg.coupling
        };
        self.pi.update(&self.cfg.gains(), self.qdelay, p_max);
    }

    fn state(&self, out: &mut StateSink) {
        out("p", self.pi.p);
        out("p_c", self.pi.p_c());
        out("p_cl", self.p_cl());
        out("p_l", self.last_p_l);
        out("qdelay_ms", time::to_secs_f64(self.qdelay) * 1e3);
        out("l_queue_packets", self.l.len() as f64);
        out("c_queue_packets", self.c.len() as f64);
        out("l_sojourn_ms", time::to_secs_f64(self.l_sojourn) * 1e3);
        out("c_sojourn_ms", time::to_secs_f64(self.c_sojourn) * 1e3);
        out("target_delay_ms", self.cfg.target.secs() * 1e3);
    }
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn QueueDiscipline>, ScenarioError> {
    let cfg: DualPi2Params = p.parse()?;
    cfg.gains().validate(cfg.t_update, p)?;
    p.require(cfg.limit > 0, "limit", || "must be > 0".into())?;
    p.require(cfg.mtu > 0, "mtu", || "must be > 0".into())?;
    // Linux: coupling_factor is an integer >= 1 (NLA_POLICY_MIN(NLA_U8, 1)); RFC 9332 2.1
    // allows any k, and k < 1 would let L flows take more than Classic ones at equal RTT.
    p.require(
        cfg.coupling.is_finite() && cfg.coupling >= 1.0,
        "coupling",
        || format!("must be >= 1 (RFC 9332 recommends 2), got {}", cfg.coupling),
    )?;
    p.require(cfg.c_protection <= 100, "c_protection", || {
        format!("must be a percentage in [0, 100], got {}", cfg.c_protection)
    })?;
    Ok(Box::new(DualPi2::new(cfg, env.limit)))
}

#[cfg(test)]
#[path = "dualpi2_tests.rs"]
mod tests;
