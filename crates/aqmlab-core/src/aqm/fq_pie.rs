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
//! `decay = "linux"`, and Linux's `accu_prob_reset = "linux"` (a mark forced by the 8.5 bound
//! leaves accu_prob, `fq_pie_qdisc_enqueue` clearing it only on a drop). What the per-flow PIE
//! omits is what `pie` omits (module docs there): Linux's extra 2 % step above 250 ms of
//! delay, byte mode.
//!
//! Parameters: `flows`, `quantum`, `limit`, `perturbation` (the hash's), and PIE's per queue:
//! `target`, `t_update`, `alpha`, `beta`, `max_burst`, `mtu`, `ecn`, `ecn_prob`,
//! `delay_estimator`, `burst_reset`, `decay`, `accu_prob_reset`, `dq_threshold` (see
//! [`super::pie`]).

use super::flow_queues::{check_sizes, FlowQueue, FlowQueues};
use super::params::{AqmParams, ParamDoc, QueueEnv};
use super::pie::{AccuProbReset, BurstReset, Decay, DelayEstimator, Pie, PieParams};
use super::{
    Aqm, ArrivalVerdict, DropKind, QueueCtx, QueueDiscipline, QueueLimit, QueueView, StateSink,
};
use crate::net::PacketId;
use crate::sim::{time, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

/// sch_fq_pie's default number of flow queues and its largest (`fq_pie_change`: "Number of
/// flows must range in [1..65536]").
pub const DEFAULT_FLOWS: u32 = 1024;
pub use super::flow_queues::MAX_FLOWS;
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
        "accu_prob_reset",
        "linux",
        "\"rfc8033\" | \"linux\"",
        "a pick the 8.5 bound forced and ECN marked leaves accu_prob (Linux, default here) or clears it",
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
    pub accu_prob_reset: AccuProbReset,
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
            accu_prob_reset: AccuProbReset::Linux,
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
            accu_prob_reset: self.accu_prob_reset,
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
            head_enqueued_at: None,
        }
    }

    fn full_for(&self, size: u64) -> bool {
        self.fq.packets >= self.limit_packets
            || self.limit_bytes.is_some_and(|b| self.fq.bytes + size > b)
    }
}

impl QueueDiscipline for FqPie {
    fn enqueue(&mut self, id: PacketId, cx: &mut QueueCtx, _idle: Option<Time>) {
        let (idx, size) = self.fq.classify(cx.packets.get_mut(id), cx.now);
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
        self.fq.report_lists(out);
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
    check_sizes(p, cfg.flows, cfg.quantum, cfg.limit)?;
    cfg.pie().validate(p)?;
    Ok(Box::new(FqPie::new(cfg, env.limit, env.link_rate_bps)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_rig::QueueRig;
    use crate::net::{Packet, PacketKind};

    const MS: Time = 1_000_000;

    type Rig = QueueRig<FqPie>;

    fn rig(cfg: FqPieParams, limit: u32) -> Rig {
        QueueRig::new(FqPie::new(cfg, QueueLimit::Packets(limit), 10_000_000))
    }

    fn enqueue(r: &mut Rig, now: Time, flow: u32, size: u32, ect: bool) -> PacketId {
        let mut p = Packet::new(PacketKind::Udp, flow, 0, 1, 0, size);
        p.ecn.ect = ect;
        r.enqueue(now, p)
    }

    fn tick(r: &mut Rig, now: Time) {
        r.with_ctx(now, |q, cx| q.on_timer(cx, None));
    }

    /// Two flow ids in different queues.
    fn two_flows(q: &FqPie) -> (u32, u32) {
        let b = (1..).find(|&f| q.bucket(f) != q.bucket(0)).unwrap();
        (0, b)
    }

    /// Flow a sends two packets per ms and is served one per ms, so its queue and delay grow;
    /// flow b sends one packet every 5 ms, served at once (new-flow priority). At the first
    /// update (15 ms) a's last packet (its 15th, sent at 8 ms) waited 7 ms: a's PIE, with
    /// p = 0 (gains / 2048: RFC 8033 4.2), steps by 0.125/2048 x (7 - 15 ms) + 1.25/2048 x
    /// (7 - 0 ms) = 0.00775 / 2048; b's last packet left an empty queue (delay 0) and its p
    /// stays 0. Over 150 ms only a's p grows, at every update.
    #[test]
    fn only_the_flow_that_builds_a_queue_gets_a_probability() {
        let mut r = rig(FqPieParams::default(), 1000);
        let (a, b) = two_flows(&r.q);
        let mut p_a = vec![];
        for t in 1..=150u64 {
            let now = t * MS;
            enqueue(&mut r, now, a, 1000, false);
            enqueue(&mut r, now, a, 1000, false);
            if t % 5 == 0 {
                enqueue(&mut r, now, b, 1000, false);
            }
            // b's packet, if any, goes first: it is a new flow each time.
            while let Some(id) = r.dequeue(now) {
                if r.arena.get(id).flow == a {
                    break;
                }
            }
            if t % 15 == 0 {
                tick(&mut r, now);
                p_a.push(r.q.pie_of(a).p);
                assert_eq!(r.q.pie_of(b).p, 0.0, "b's p at {t} ms");
            }
        }
        let first = 0.00775 / 2048.0;
        assert!(
            (p_a[0] - first).abs() < 1e-12 * first.max(1.0),
            "{}",
            p_a[0]
        );
        assert!(p_a.windows(2).all(|w| w[1] > w[0]), "a's p rises: {p_a:?}");
        assert!(r.q.fq.flows[r.q.bucket(b) as usize].is_empty());
    }

    /// sch_fq_pie drops the *arrival* over the limit, whichever queue is fattest, and clears
    /// that queue's accu_prob (FQ-CoDel would drop from the head of the fattest queue).
    #[test]
    fn over_the_limit_the_arrival_is_dropped() {
        let mut r = rig(FqPieParams::default(), 3);
        let (a, b) = two_flows(&r.q);
        for _ in 0..3 {
            enqueue(&mut r, 0, a, 1000, false);
        }
        let ib = r.q.bucket(b) as usize;
        r.q.fq.flows[ib].state.accu_prob = 0.5;
        let late = enqueue(&mut r, 0, b, 1000, false);
        assert_eq!(r.dropped, vec![late]);
        assert_eq!(r.stats.forced_drops, 1);
        assert_eq!(r.q.pie_of(b).accu_prob, 0.0);
        assert_eq!(r.q.len_packets(), 3);
    }

    /// The queues are served by the shared DRR: quantum = packet size alternates them.
    #[test]
    fn backlogged_flows_alternate() {
        let mut r = rig(FqPieParams::default(), 100);
        let (a, b) = two_flows(&r.q);
        for _ in 0..3 {
            enqueue(&mut r, 0, a, 1514, false);
            enqueue(&mut r, 0, b, 1514, false);
        }
        let order: Vec<u32> = (0..6)
            .map(|_| {
                let id = r.dequeue(0).unwrap();
                r.arena.get(id).flow
            })
            .collect();
        assert_eq!(order, vec![a, b, a, b, a, b]);
        assert_eq!(r.dequeue(0), None);
    }

    /// An early signal for an ECT packet is a CE mark while the queue's p <= ecn_prob (10 %),
    /// a drop above it; non-ECT packets are dropped (sch_fq_pie enqueue).
    #[test]
    fn ecn_marks_below_ecn_prob_and_drops_above() {
        let cfg = FqPieParams {
            ecn: true,
            ..Default::default()
        };
        let mut r = rig(cfg, 100);
        let (a, _) = two_flows(&r.q);
        // 4000 B: at least 2 MTU of backlog, so PIE may signal.
        for _ in 0..4 {
            enqueue(&mut r, 0, a, 1000, true);
        }
        let idx = r.q.bucket(a) as usize;
        // Past the burst allowance, delay above target/2, accu_prob at the 8.5 bound: the
        // next arrival is picked for a signal.
        let arm = |r: &mut Rig, p: f64| {
            let pie = &mut r.q.fq.flows[idx].state;
            pie.burst_allowance = 0;
            pie.qdelay = 20 * MS;
            pie.p = p;
            pie.accu_prob = 8.5;
        };
        arm(&mut r, 0.05);
        let marked = enqueue(&mut r, MS, a, 1000, true);
        assert!(r.arena.get(marked).ecn.ce);
        assert_eq!(r.stats.marks, 1);
        arm(&mut r, 0.05);
        let plain = enqueue(&mut r, MS, a, 1000, false);
        assert_eq!(r.dropped, vec![plain]);
        arm(&mut r, 0.5);
        let ect = enqueue(&mut r, MS, a, 1000, true);
        assert_eq!(r.dropped, vec![plain, ect]);
        assert_eq!(r.stats.early_drops, 2);
    }

    #[test]
    fn defaults_are_sch_fq_pies_and_bad_parameters_name_the_field() {
        let d = FqPieParams::default();
        assert_eq!((d.flows, d.quantum, d.limit), (1024, 1514, 10240));
        assert_eq!((d.target.0, d.t_update.0), (15 * MS, 15 * MS));
        assert_eq!(
            (d.alpha, d.beta, d.ecn, d.ecn_prob),
            (2.0 / 16.0, 20.0 / 16.0, false, 0.1)
        );
        assert_eq!((d.burst_reset, d.decay), (BurstReset::Linux, Decay::Linux));
        assert_eq!(d.delay_estimator, DelayEstimator::Timestamp);
        let env = crate::aqm::test_rig::env(100);
        for (bad, field) in [
            (serde_json::json!({"flows": 0}), "q.aqm.flows"),
            (serde_json::json!({"flows": 65537}), "q.aqm.flows"),
            (serde_json::json!({"quantum": 0}), "q.aqm.quantum"),
            (serde_json::json!({"alpha": -1}), "q.aqm.alpha"),
            (serde_json::json!({"ecn_prob": 2}), "q.aqm.ecn_prob"),
            (serde_json::json!({"t_update": 0}), "q.aqm.t_update"),
        ] {
            let e = build(&AqmParams::new(bad, "q.aqm"), &env).err().unwrap();
            assert_eq!(e.path, field, "{e}");
        }
        let e = build(
            &AqmParams::new(serde_json::json!({"memory_limit": 1}), "q.aqm"),
            &env,
        )
        .err()
        .unwrap();
        assert!(e.message.contains("memory_limit"), "{e}");
        let q = FqPie::new(FqPieParams::default(), QueueLimit::Packets(100), 10_000_000);
        assert_eq!(q.limit_packets, 100);
    }
}
