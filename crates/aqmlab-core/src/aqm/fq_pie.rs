//! FQ-PIE: flow queueing with a PIE controller in each queue.
//!
//! Source: Linux `net/sched/sch_fq_pie.c` (Linux 5.6+, Tahiliani, Patil et al. 2019:
//! `fq_pie_qdisc_enqueue`, `fq_pie_qdisc_dequeue`, `fq_pie_timer`, `fq_pie_init`), which uses
//! the PIE of `include/net/pie.h` / `net/sched/sch_pie.c` (`pie_drop_early`,
//! `pie_process_dequeue`, `pie_calculate_probability`) per flow queue; RFC 8033 for PIE
//! itself. This follows the Linux qdisc.
//!
//! - Classification and scheduling: the hashed queues and the DRR over new and old flows of
//!   FQ-CoDel ([`super::flow_queues`]; `fq_pie_qdisc_dequeue` handles its lists exactly as
//!   `fq_codel_dequeue` does), `flows` (1024) queues, `quantum` (Linux: the device MTU,
//!   `psched_mtu`, 1514 B on Ethernet).
//! - Each queue has its own PIE ([`super::pie::Pie`], unchanged): its probability is updated
//!   from that queue's delay, its early-drop test (`pie_drop_early`) sees that queue's
//!   backlog (the "fewer than 2 MTU" rule is per queue, as Linux passes `sel_flow->backlog`),
//!   its delay is that queue's last sojourn (`pie_process_dequeue` with `flow->backlog`). So a
//!   flow that builds a queue raises only its own probability.
//! - Enqueue (`fq_pie_qdisc_enqueue`): if the discipline already holds `limit` packets the
//!   *arriving* packet is dropped (forced; Linux counts it as `overlimit`) and its queue's
//!   `accu_prob` cleared; Linux does not drop from the fattest flow as FQ-CoDel does.
//!   Otherwise the queue's PIE decides: enqueue, CE-mark (ECN on, ECT packet, that queue's
//!   p <= `ecn_prob`) or drop early.
//! - Update (`fq_pie_timer`): every `t_update` `pie_calculate_probability` runs for every
//!   queue, empty or not, with that queue's backlog. (Linux runs at most 2048 queues per timer
//!   tick and continues at once, which for <= 2048 queues is one pass per t_update, and arms
//!   the first tick 0.5 s after init (`HZ / 2`); aqmlab's first update is at t_update.)
//! - Dequeue: no drops (Linux: "Drops during enqueue only").
//!
//! Limits: the effective packet limit is the smaller of `limit` (10240, Linux's
//! `sch->limit` default) and the scenario's queue limit. Linux's `memory_limit` (32 MiB of
//! skb truesize) is *not* a drop rule there: over it the qdisc only counts `overmemory` and
//! enqueues anyway, so it is not a parameter here; a byte limit in the scenario drops the
//! arriving packet like the packet limit.
//!
//! Defaults are sch_fq_pie's (`fq_pie_init`, `pie_params_init`): target 15 ms, tupdate
//! 15 ms, alpha 2/16, beta 20/16 (1/s), ECN off, ecn_prob 10 %, bytemode off, dq_rate_estimator
//! off (delay from timestamps), the Linux burst allowance (150 ms, re-armed at every calm
//! update) and Linux's decay (p -= p/64 with an empty queue): `burst_reset = "linux"`,
//! `decay = "linux"`. What the per-flow PIE omits is what `pie` omits (module docs there):
//! Linux's extra 2 % step above 250 ms of delay, byte mode, and Linux not clearing accu_prob
//! after a mark decided by the 8.5 rule.
//!
//! Parameters: `flows`, `quantum`, `limit`, `perturbation` (the hash's), and PIE's per queue:
//! `target`, `t_update`, `alpha`, `beta`, `max_burst`, `mtu`, `ecn`, `ecn_prob`,
//! `delay_estimator`, `burst_reset`, `decay`, `dq_threshold` (see [`super::pie`]).

use super::flow_queues::{FlowQueue, FlowQueues};
use super::params::{AqmParams, ParamDoc, QueueEnv};
use super::pie::{BurstReset, Decay, DelayEstimator, Pie, PieParams};
use super::{
    Aqm, ArrivalVerdict, DropKind, QueueCtx, QueueDiscipline, QueueLimit, QueueView, StateSink,
};
use crate::net::PacketId;
use crate::scenario::units::Duration;
use crate::scenario::ScenarioError;
use crate::sim::{time, Time};
use serde::{Deserialize, Serialize};

/// sch_fq_pie's default number of flow queues and its largest (`fq_pie_change`: "Number of
/// flows must range in [1..65536]").
pub const DEFAULT_FLOWS: u32 = 1024;
pub const MAX_FLOWS: u32 = 65536;
/// Memory of one flow queue (its state and PIE, allocated up front for every queue).
pub const BYTES_PER_FLOW_QUEUE: u64 = std::mem::size_of::<FlowQueue<Pie>>() as u64;

pub const PARAMS: &[ParamDoc] = &[
    super::params::doc(
        "flows",
        "1024",
        "queues",
        "number of flow queues (1 to 65536, as in Linux)",
    ),
    super::params::doc("quantum", "1514", "bytes", "DRR quantum (Linux: the device MTU)"),
    super::params::doc(
        "limit",
        "10240",
        "packets",
        "packets held at most; an arrival beyond it is dropped (the scenario's queue limit also applies)",
    ),
    super::params::doc("perturbation", "0", "integer", "flow hash perturbation"),
    super::params::doc("target", "15ms", "s", "PIE target queueing delay, per queue")
        .with_plausible(1e-5, 0.5),
    super::params::doc(
        "t_update",
        "15ms",
        "s",
        "probability update period (all queues)",
    )
    .with_plausible(1e-4, 0.5),
    super::params::doc(
        "alpha",
        "0.125",
        "1/s",
        "gain on the delay error (Linux alpha 2, in 1/16)",
    ),
    super::params::doc(
        "beta",
        "1.25",
        "1/s",
        "gain on the delay trend (Linux beta 20, in 1/16)",
    ),
    super::params::doc("max_burst", "150ms", "s", "burst allowance, per queue")
        .with_plausible(0.0, 5.0),
    super::params::doc(
        "mtu",
        "1514",
        "bytes",
        "no early drop while the queue's backlog < 2 mtu",
    ),
    super::params::doc(
        "ecn",
        "false",
        "bool",
        "mark ECT packets while the queue's p <= ecn_prob (sch_fq_pie: off by default)",
    ),
    super::params::doc(
        "ecn_prob",
        "0.1",
        "probability",
        "above this p, ECT packets are dropped too (Linux ecn_prob 10 %)",
    ),
    super::params::doc(
        "delay_estimator",
        "timestamp",
        "\"timestamp\" | \"rate\"",
        "per-queue delay from sojourn times (Linux default) or departure rate",
    ),
    super::params::doc(
        "burst_reset",
        "linux",
        "\"linux\" | \"rfc8033\" | \"ns2\" | \"counted_down\"",
        "the burst allowance rule, as for pie",
    ),
    super::params::doc(
        "decay",
        "linux",
        "\"rfc8033\" | \"linux\"",
        "decay of p with both delays 0: p -= p/64 with an empty queue (Linux, default here) or p *= 0.98",
    ),
    super::params::doc(
        "dq_threshold",
        "16384",
        "bytes",
        "departure-rate measurement size (\"rate\" only)",
    ),
];

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqPieParams {
    pub flows: u32,
    pub quantum: u32,
    pub limit: u32,
    pub perturbation: u64,
    pub target: Duration,
    pub t_update: Duration,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Duration,
    pub mtu: u32,
    pub ecn: bool,
    pub ecn_prob: f64,
    pub delay_estimator: DelayEstimator,
    pub burst_reset: BurstReset,
    pub decay: Decay,
    pub dq_threshold: u64,
}

impl Default for FqPieParams {
    fn default() -> Self {
        let pie = PieParams::default();
        FqPieParams {
            flows: DEFAULT_FLOWS,
            quantum: 1514,
            limit: 10240,
            perturbation: 0,
            target: pie.target,
            t_update: pie.t_update,
            alpha: pie.alpha,
            beta: pie.beta,
            max_burst: pie.max_burst,
            mtu: pie.mtu,
            ecn: false,
            ecn_prob: pie.ecn_prob,
            delay_estimator: DelayEstimator::Timestamp,
            burst_reset: BurstReset::Linux,
            decay: Decay::Linux,
            dq_threshold: pie.dq_threshold,
        }
    }
}

impl FqPieParams {
    /// The PIE every queue runs.
    pub fn pie(&self) -> PieParams {
        PieParams {
            target: self.target,
            t_update: self.t_update,
            alpha: self.alpha,
            beta: self.beta,
            max_burst: self.max_burst,
            mtu: self.mtu,
            ecn: self.ecn,
            ecn_prob: self.ecn_prob,
            delay_estimator: self.delay_estimator,
            dq_threshold: self.dq_threshold,
            burst_reset: self.burst_reset,
            decay: self.decay,
        }
    }
}

pub struct FqPie {
    cfg: FqPieParams,
    limit_packets: u32,
    limit_bytes: Option<u64>,
    link_rate_bps: u64,
    /// The hashed queues and DRR lists, a PIE per queue.
    fq: FlowQueues<Pie>,
}

impl FqPie {
    pub fn new(cfg: FqPieParams, limit: QueueLimit, link_rate_bps: u64) -> Self {
        let (limit_packets, limit_bytes) = match limit {
            QueueLimit::Packets(n) => (cfg.limit.min(n), None),
            QueueLimit::Bytes(b) => (cfg.limit, Some(b)),
        };
        let pie = cfg.pie();
        let fq = FlowQueues::new(cfg.flows, cfg.quantum, cfg.perturbation, || {
            Pie::new(pie.clone())
        });
        FqPie {
            cfg,
            limit_packets,
            limit_bytes,
            link_rate_bps,
            fq,
        }
    }

    /// The queue a flow id maps to.
    pub fn bucket(&self, flow: u32) -> u32 {
        self.fq.bucket(flow)
    }

    /// The PIE of the queue flow id `flow` maps to.
    pub fn pie_of(&self, flow: u32) -> &Pie {
        &self.fq.flows[self.bucket(flow) as usize].state
    }

    /// Queue `idx` as its PIE sees it: its own packets and bytes. The discipline enforces the
    /// limit itself (before PIE is asked), so the view has none.
    fn view(&self, idx: usize, now: Time) -> QueueView {
        let f = &self.fq.flows[idx];
        QueueView {
            now,
            len_packets: f.q.len() as u32,
            len_bytes: f.backlog,
            limit: QueueLimit::Packets(u32::MAX),
            link_rate_bps: self.link_rate_bps,
            idle_since: None,
        }
    }

    fn full_for(&self, size: u64) -> bool {
        self.fq.packets >= self.limit_packets
            || self.limit_bytes.is_some_and(|b| self.fq.bytes + size > b)
    }
}

impl QueueDiscipline for FqPie {
    fn enqueue(&mut self, id: PacketId, cx: &mut QueueCtx, _idle: Option<Time>) {
        let pkt = cx.packets.get_mut(id);
        pkt.enqueued_at = cx.now;
        let size = pkt.size as u64;
        let idx = self.fq.bucket(pkt.flow) as usize;
        if self.full_for(size) {
            // sch_fq_pie `fq_pie_qdisc_enqueue`: over `sch->limit` the arrival is dropped
            // ("goto out", which also clears the flow's accu_prob).
            self.fq.flows[idx].state.accu_prob = 0.0;
            cx.drop_packet(id, DropKind::Forced);
            return;
        }
        let view = self.view(idx, cx.now);
        let verdict = self.fq.flows[idx]
            .state
            .on_arrival(&view, cx.packets.get(id), cx.rng);
        match verdict {
            ArrivalVerdict::Enqueue => self.fq.push(idx, id, size),
            ArrivalVerdict::Mark => {
                cx.mark(id);
                self.fq.push(idx, id, size);
            }
            // PIE's only other answer with a limitless view is an early drop.
            _ => cx.drop_packet(id, DropKind::Early),
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<PacketId> {
        while let Some((idx, from_new)) = self.fq.next_scheduled() {
            let Some(id) = self.fq.pop(idx, cx.packets) else {
                self.fq.retire(idx, from_new);
                continue;
            };
            let size = cx.packets.get(id).size as u64;
            self.fq.charge(idx, size);
            // `pie_process_dequeue` with the flow's backlog after the dequeue: PIE never
            // drops at dequeue, so its verdict is always Send.
            let view = self.view(idx, cx.now);
            self.fq.flows[idx]
                .state
                .on_departure(&view, cx.packets.get(id), cx.rng);
            return Some(id);
        }
        None
    }

    fn len_packets(&self) -> u32 {
        self.fq.packets
    }

    fn len_bytes(&self) -> u64 {
        self.fq.bytes
    }

    fn timer_interval(&self) -> Option<Time> {
        Some(self.cfg.t_update.0)
    }

    /// `fq_pie_timer`: `pie_calculate_probability` for every queue with its own backlog.
    fn on_timer(&mut self, _cx: &mut QueueCtx, _idle: Option<Time>) {
        for f in &mut self.fq.flows {
            f.state.update(f.backlog);
        }
    }

    fn state(&self, out: &mut StateSink) {
        out("active_flows", self.fq.active() as f64);
        out("new_flows", self.fq.new_len() as f64);
        out("old_flows", self.fq.old_len() as f64);
        let p_max = self.fq.flows.iter().map(|f| f.state.p).fold(0.0, f64::max);
        out("p_max", p_max);
        let qdelay_max = self.fq.flows.iter().map(|f| f.state.qdelay).max();
        out(
            "qdelay_max_ms",
            time::to_secs_f64(qdelay_max.unwrap_or(0)) * 1e3,
        );
        out("target_delay_ms", self.cfg.target.secs() * 1e3);
    }
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn QueueDiscipline>, ScenarioError> {
    let cfg: FqPieParams = p.parse()?;
    p.require(cfg.flows > 0 && cfg.flows <= MAX_FLOWS, "flows", || {
        format!(
            "must be in [1, {MAX_FLOWS}] (Linux's range), got {}",
            cfg.flows
        )
    })?;
    p.require(cfg.quantum > 0, "quantum", || "must be > 0".into())?;
    p.require(cfg.limit > 0, "limit", || "must be > 0".into())?;
    cfg.pie().validate(p)?;
    Ok(Box::new(FqPie::new(cfg, env.limit, env.link_rate_bps)))
}
