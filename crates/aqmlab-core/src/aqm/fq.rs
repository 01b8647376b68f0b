//! FQ: Linux's fair queue packet scheduler (`tc qdisc ... fq`) at a router, with its CE
//! threshold: the way L4S is deployed behind per-flow queueing (`ce_threshold` marks what waited
//! longer than a shallow threshold).
//!
//! Source: Linux 6.1 `net/sched/sch_fq.c` (Debian's linux-source-6.1, the reference kernel's),
//! facts only: `fq_classify`, `fq_enqueue`, `fq_dequeue`, `fq_init` (defaults).
//! - Classification at a router: a forwarded packet has no socket, so `fq_classify` keys it by
//!   `skb_get_hash(skb) & orphan_mask` (1023: 1,024 flows); here the flow id hashed into
//!   `orphan_mask + 1` buckets as FQ-CoDel's queues are ([`super::flow_queues`], `perturbation`
//!   drawing another hash). A bucket is allocated on its first packet with `initial_quantum`
//!   of credit; Linux's garbage collection of idle flows (`fq_gc`, detached over 3 s, only
//!   once there are 2 << fq_trees_log = 2,048 flows) never runs with 1,024 keys, so a bucket
//!   keeps its credit for the run.
//! - Enqueue: over `limit` packets (10,000) the arrival is dropped; a flow holding
//!   `flow_limit` packets (100) drops its arrival (`stat_flows_plimit`); no drop from the
//!   fattest flow. A flow that was idle joins the tail of new_flows, its credit raised to at
//!   least `quantum` if it was idle longer than `refill_delay` (40 ms; `time_after(jiffies,
//!   f->age + flow_refill_delay)`, in jiffies in Linux, exact here), else keeping what it had.
//! - Dequeue: the round robin of FQ-CoDel's lists (a flow whose credit is spent gets
//!   `quantum` more and goes to the tail of old_flows; an empty flow from new_flows passes
//!   through old_flows if that is not empty), a packet charged its length. `quantum` is
//!   2 x the device's MTU with its header (3,028 B), `initial_quantum` 10 x (15,140 B).
//! - `ce_threshold` (none): a departing ECN-capable packet is CE-marked if `now -
//!   time_to_send > ce_threshold` (strictly); a forwarded packet's `time_to_send` is its
//!   enqueue time (no `skb->tstamp`), so this is its sojourn.
//!
//! Not modelled: pacing (`maxrate`, `low_rate_threshold`, a socket's pacing rate and EDT
//! timestamps: at a router with no `maxrate` Linux paces nothing, the case here), the
//! `horizon`, the internal queue for TC_PRIO_CONTROL packets, and the rb-tree buckets
//! (`buckets` only spreads the lookup).
//!
//! Parameters: `limit` (10000 packets), `flow_limit` (100 packets), `quantum` (3028 B),
//! `initial_quantum` (15140 B), `refill_delay` (40 ms), `orphan_mask` (1023), `ce_threshold`
//! (none, s), `perturbation` (0).

use super::flow_queues::{above_ce_threshold, FlowQueue, FlowQueues};
use super::params::{AqmParams, ParamDoc, QueueEnv};
use super::{DropKind, QueueCtx, QueueDiscipline, QueueLimit, StateSink};
use crate::net::PacketId;
use crate::sim::Time;
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

/// sch_fq's default number of forwarded-flow keys (`orphan_mask` 1023 + 1), and the most here.
pub const DEFAULT_BUCKETS: u32 = 1024;
pub const MAX_BUCKETS: u32 = super::flow_queues::MAX_FLOWS;
/// Memory of one flow (its state, allocated up front for every key).
pub const BYTES_PER_FLOW: u64 = std::mem::size_of::<FlowQueue<FqFlow>>() as u64;

pub const PARAMS: &[ParamDoc] = &[
    super::params::doc(
        "limit",
        "10000",
        "packets",
        "packets held at most; an arrival beyond it is dropped (the scenario's queue limit also applies)",
    ),
    super::params::doc(
        "flow_limit",
        "100",
        "packets",
        "packets one flow holds at most; its arrival beyond it is dropped",
    ),
    super::params::doc(
        "quantum",
        "3028",
        "bytes",
        "credit a flow gets per round (Linux: 2 x the device MTU)",
    ),
    super::params::doc(
        "initial_quantum",
        "15140",
        "bytes",
        "credit of a flow's first round (Linux: 10 x the device MTU)",
    ),
    super::params::doc(
        "refill_delay",
        "40ms",
        "s",
        "a flow idle longer than this rejoins with at least a quantum of credit",
    )
    .with_plausible(0.0, 10.0),
    super::params::doc(
        "orphan_mask",
        "1023",
        "mask",
        "forwarded packets are keyed by their flow hash & orphan_mask (orphan_mask + 1 flows)",
    ),
    super::params::doc(
        "ce_threshold",
        "unset",
        "s",
        "CE-mark ECN-capable packets whose sojourn is above this",
    )
    .with_plausible(1e-6, 1.0),
    super::params::doc("perturbation", "0", "integer", "flow hash perturbation"),
];

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqParams {
    pub limit: u32,
    pub flow_limit: u32,
    pub quantum: u32,
    pub initial_quantum: u32,
    pub refill_delay: Duration,
    pub orphan_mask: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<Duration>,
    pub perturbation: u64,
}

/// `fq_init`'s defaults, on an Ethernet device of MTU 1500 (`psched_mtu` 1514).
impl Default for FqParams {
    fn default() -> Self {
        FqParams {
            limit: 10_000,
            flow_limit: 100,
            quantum: 2 * 1514,
            initial_quantum: 10 * 1514,
            refill_delay: Duration(40_000_000),
            orphan_mask: 1023,
            ce_threshold: None,
            perturbation: 0,
        }
    }
}

/// What sch_fq keeps of a flow besides its packets.
#[derive(Debug, Clone, Copy, Default)]
pub struct FqFlow {
    /// When it last left the lists (`f->age`, set by `fq_flow_set_detached`); None for a flow
    /// that has never joined them, which Linux has yet to allocate (with `initial_quantum`).
    detached_at: Option<Time>,
}

pub struct Fq {
    cfg: FqParams,
    limit_packets: u32,
    limit_bytes: Option<u64>,
    fq: FlowQueues<FqFlow>,
    /// Arrivals dropped because their flow held `flow_limit` packets (`stat_flows_plimit`).
    flow_limit_drops: u64,
}

impl Fq {
    pub fn new(cfg: FqParams, limit: QueueLimit) -> Self {
        let (limit_packets, limit_bytes) = match limit {
            QueueLimit::Packets(n) => (cfg.limit.min(n), None),
            QueueLimit::Bytes(b) => (cfg.limit, Some(b)),
        };
        let buckets = cfg.orphan_mask + 1;
        let fq = FlowQueues::new(buckets, cfg.quantum, cfg.perturbation, FqFlow::default);
        Fq {
            cfg,
            limit_packets,
            limit_bytes,
            fq,
            flow_limit_drops: 0,
        }
    }

    /// The bucket a flow id maps to.
    pub fn bucket(&self, flow: u32) -> u32 {
        self.fq.bucket(flow)
    }

    /// The credit of the bucket flow id `flow` maps to.
    pub fn credit(&self, flow: u32) -> i64 {
        self.fq.flows[self.bucket(flow) as usize].deficit
    }

    /// The credit a flow rejoining new_flows at `now` has (`fq_enqueue`).
    fn credit_on_join(cfg: &FqParams, f: &FlowQueue<FqFlow>, now: Time) -> i64 {
        let Some(detached_at) = f.state.detached_at else {
            return cfg.initial_quantum as i64;
        };
        let idle = now.saturating_sub(detached_at);
        if idle > cfg.refill_delay.0 {
            f.deficit.max(cfg.quantum as i64)
        } else {
            f.deficit
        }
    }
}

impl QueueDiscipline for Fq {
    fn enqueue(&mut self, id: PacketId, cx: &mut QueueCtx, _idle: Option<Time>) {
        let (idx, size) = self.fq.classify(cx.packets.get_mut(id), cx.now);
        let over_limit = self.fq.packets >= self.limit_packets
            || self.limit_bytes.is_some_and(|b| self.fq.bytes + size > b);
        if over_limit {
            cx.drop_packet(id, DropKind::Forced);
            return;
        }
        if self.fq.flows[idx].q.len() >= self.cfg.flow_limit as usize {
            self.flow_limit_drops += 1;
            cx.drop_packet(id, DropKind::Forced);
            return;
        }
        let (cfg, now) = (&self.cfg, cx.now);
        self.fq
            .push_joining(idx, id, size, |f| Self::credit_on_join(cfg, f, now));
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<PacketId> {
        while let Some((idx, from_new)) = self.fq.next_scheduled() {
            let Some(id) = self.fq.pop(idx, cx.packets) else {
                if self.fq.retire(idx, from_new) {
                    self.fq.flows[idx].state.detached_at = Some(cx.now);
                }
                continue;
            };
            let p = cx.packets.get(id);
            let size = p.size as u64;
            if let Some(threshold) = self.cfg.ce_threshold {
                if above_ce_threshold(p, cx.now, threshold.0) {
                    cx.mark(id);
                }
            }
            self.fq.charge(idx, size);
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

    fn state(&self, out: &mut StateSink) {
        self.fq.report_lists(out);
        out("flow_limit_drops", self.flow_limit_drops as f64);
    }
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn QueueDiscipline>, ScenarioError> {
    let cfg: FqParams = p.parse()?;
    p.require(cfg.limit > 0, "limit", || "must be > 0".into())?;
    p.require(cfg.flow_limit > 0, "flow_limit", || "must be > 0".into())?;
    // fq_change: "invalid quantum" unless 0 < quantum <= 2^20.
    p.require(cfg.quantum > 0 && cfg.quantum <= 1 << 20, "quantum", || {
        format!(
            "must be in 1..=1048576 (Linux's range), got {}",
            cfg.quantum
        )
    })?;
    p.require(cfg.orphan_mask < MAX_BUCKETS, "orphan_mask", || {
        format!(
            "must be below {} (at most that many flows here), got {}",
            MAX_BUCKETS, cfg.orphan_mask
        )
    })?;
    p.require(
        (cfg.orphan_mask as u64 + 1).is_power_of_two(),
        "orphan_mask",
        || format!("must be 2^k - 1 (a mask), got {}", cfg.orphan_mask),
    )?;
    Ok(Box::new(Fq::new(cfg, env.limit)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_rig::QueueRig;
    use crate::net::{Packet, PacketKind};

    const MS: Time = 1_000_000;

    type Rig = QueueRig<Fq>;

    fn rig(cfg: FqParams) -> Rig {
        QueueRig::new(Fq::new(cfg, QueueLimit::Packets(100_000)))
    }

    fn enqueue(r: &mut Rig, now: Time, flow: u32, size: u32, ect: bool) -> PacketId {
        let mut p = Packet::new(PacketKind::Udp, flow, 0, 1, 0, size);
        p.ecn.ect = ect;
        r.enqueue(now, p)
    }

    fn two_flows(q: &Fq) -> (u32, u32) {
        let b = (1..).find(|&f| q.bucket(f) != q.bucket(0)).unwrap();
        (0, b)
    }

    /// By hand (quantum 3028, initial 15140, 1514-byte packets): a new flow sends its
    /// initial credit's worth first, 10 packets (credit 15140 -> 0), before the round robin
    /// gives each backlogged flow a quantum, 2 packets, per turn. Flow a arrives first with 20
    /// packets, b just after with 20: a 10, b 10, then a 2, b 2, ...
    #[test]
    fn a_new_flow_spends_its_initial_quantum_then_flows_take_two_packets_a_turn() {
        let mut r = rig(FqParams::default());
        let (a, b) = two_flows(&r.q);
        for _ in 0..20 {
            enqueue(&mut r, 0, a, 1514, false);
        }
        for _ in 0..20 {
            enqueue(&mut r, 0, b, 1514, false);
        }
        let order: Vec<u32> = (0..40)
            .map(|_| {
                let id = r.dequeue(MS).unwrap();
                r.arena.get(id).flow
            })
            .collect();
        let mut want = vec![a; 10];
        want.extend([b; 10]);
        for _ in 0..5 {
            want.extend([a, a, b, b]);
        }
        assert_eq!(order, want);
        assert_eq!(r.dequeue(MS), None);
    }

    /// A flow that empties keeps its credit, and rejoins with it within `refill_delay`
    /// (40 ms), with at least a quantum after (`fq_enqueue`). By hand, 1000-byte packets:
    /// 15 sent of the initial 15140 leave 140; found empty at 1 ms, the flow leaves the lists
    /// with 140; back at 30 ms (29 ms idle) it has 140, sends (-860), and found empty again is
    /// first given a quantum (2168: `fq_dequeue` refills before it looks) and leaves at 30 ms;
    /// back at 71 ms (41 ms idle) it has max(2168, 3028) = 3028.
    #[test]
    fn an_idle_flow_keeps_its_credit_unless_idle_longer_than_refill_delay() {
        let mut r = rig(FqParams::default());
        let a = 0;
        for _ in 0..15 {
            enqueue(&mut r, 0, a, 1000, false);
        }
        for _ in 0..15 {
            r.dequeue(MS).unwrap();
        }
        assert_eq!(r.dequeue(MS), None);
        assert_eq!(r.q.credit(a), 140);
        enqueue(&mut r, 30 * MS, a, 1000, false);
        assert_eq!(r.q.credit(a), 140, "back after 29 ms: keeps its credit");
        r.dequeue(30 * MS).unwrap();
        assert_eq!(r.q.credit(a), -860);
        assert_eq!(r.dequeue(30 * MS), None);
        assert_eq!(r.q.credit(a), 2168);
        enqueue(&mut r, 71 * MS, a, 1000, false);
        assert_eq!(r.q.credit(a), 3028, "back after 41 ms: at least a quantum");
    }

    /// Over `flow_limit` the flow's arrival is dropped; the other flow is not affected, and
    /// over `limit` any arrival is.
    #[test]
    fn flow_limit_and_limit_drop_the_arrival() {
        let mut r = rig(FqParams {
            flow_limit: 3,
            limit: 5,
            ..FqParams::default()
        });
        let (a, b) = two_flows(&r.q);
        for _ in 0..4 {
            enqueue(&mut r, 0, a, 1000, false);
        }
        assert_eq!((r.dropped.len(), r.q.len_packets()), (1, 3));
        for _ in 0..3 {
            enqueue(&mut r, 0, b, 1000, false);
        }
        assert_eq!((r.dropped.len(), r.q.len_packets()), (2, 5));
        assert_eq!(r.q.flow_limit_drops, 1);
    }

    /// `ce_threshold` 2 ms: a packet that waited 2 ms is not marked (strictly above), one that
    /// waited 3 ms is, a Not-ECT one is not.
    #[test]
    fn ce_threshold_marks_what_waited_longer() {
        let mut r = rig(FqParams {
            ce_threshold: Some(Duration(2 * MS)),
            ..FqParams::default()
        });
        let x = enqueue(&mut r, 0, 0, 1000, true);
        let y = enqueue(&mut r, 0, 0, 1000, true);
        let z = enqueue(&mut r, 0, 0, 1000, false);
        assert_eq!(r.dequeue(2 * MS), Some(x));
        assert_eq!(r.dequeue(3 * MS), Some(y));
        assert_eq!(r.dequeue(3 * MS), Some(z));
        let ce = |id| r.arena.get(id).ecn.ce;
        assert_eq!((ce(x), ce(y), ce(z)), (false, true, false));
    }

    #[test]
    fn defaults_are_sch_fqs_and_bad_parameters_name_the_field() {
        let d = FqParams::default();
        assert_eq!(
            (
                d.limit,
                d.flow_limit,
                d.quantum,
                d.initial_quantum,
                d.orphan_mask
            ),
            (10_000, 100, 3028, 15_140, 1023)
        );
        assert_eq!((d.refill_delay.0, d.ce_threshold), (40 * MS, None));
        let env = crate::aqm::test_rig::env(100);
        for (bad, field) in [
            (
                serde_json::json!({"orphan_mask": 1000}),
                "q.aqm.orphan_mask",
            ),
            (
                serde_json::json!({"orphan_mask": 131_071}),
                "q.aqm.orphan_mask",
            ),
            (serde_json::json!({"quantum": 0}), "q.aqm.quantum"),
            (serde_json::json!({"flow_limit": 0}), "q.aqm.flow_limit"),
        ] {
            let e = build(&AqmParams::new(bad, "q.aqm"), &env).err().unwrap();
            assert_eq!(e.path, field, "{e}");
        }
        // Pacing is not modelled: its parameters are unknown fields.
        let bad = serde_json::json!({"maxrate": 1});
        let e = build(&AqmParams::new(bad, "q.aqm"), &env).err().unwrap();
        assert!(e.message.contains("maxrate"), "{e}");
    }
}
