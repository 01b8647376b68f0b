//! FQ-CoDel: flow queueing with CoDel in each queue.
//!
//! Sources: RFC 8290 (T. Hoeiland-Joergensen et al., 2018), sections 4.1-4.4; Linux
//! `net/sched/sch_fq_codel.c` (`fq_codel_enqueue`, `fq_codel_drop`, `fq_codel_dequeue`),
//! which this follows.
//!
//! - Classification: packets are hashed by flow id into `flows` (1024) queues
//!   ([`super::flow_queues`], shared with FQ-PIE: a fixed, seed-independent hash).
//! - Enqueue: the packet is stamped and appended to its queue. A queue not on either list
//!   joins the tail of new_flows with deficit = quantum. If the discipline then holds more
//!   than its limit, the fattest queue (most bytes) loses packets from its head: Linux's batch
//!   drop, up to `drop_batch` (64) packets until half of that queue's bytes are gone, and the
//!   queue's CoDel count grows by the number dropped. These are forced drops.
//! - Dequeue (DRR): take the first queue of new_flows, else of old_flows. If its deficit is
//!   <= 0, add quantum and move it to the tail of old_flows; try again. Otherwise run CoDel's
//!   dequeue on it ([`super::codel::CodelVars`], early drops or CE marks); if it yields no
//!   packet, a queue from new_flows moves to old_flows if that is non-empty (so old flows are
//!   not starved), else it leaves the lists. A packet sent costs its size from the deficit.
//! - CoDel's backlog test uses the whole discipline's bytes, as Linux passes
//!   `sch->qstats.backlog`.
//!
//! Limit: the effective packet limit is the smaller of `limit` (10240, Linux's default) and
//! the scenario's queue limit, so a scenario's `limit = 100` is honoured. A byte limit in the
//! scenario is enforced as well (Linux's `memory_limit` plays that role), dropping batches
//! from the fattest queue until the discipline fits.
//!
//! Parameters:
//! - `flows` (1024, at most 65536 as in Linux: `fq_codel_change` in net/sched/sch_fq_codel.c
//!   refuses `flows_cnt > 65536`): number of queues
//! - `quantum` (1514, bytes): DRR quantum
//! - `limit` (10240, packets): upper bound on the packets held
//! - `drop_batch` (64, packets): most packets one overflow drops
//! - `target` (5 ms), `interval` (100 ms), `mtu` (1514 B): CoDel's, per queue
//! - `ecn` (true, bool): CE-mark ECT packets instead of dropping (Linux and RFC 8290 default)
//! - `perturbation` (0): hash perturbation
//! - `ce_threshold` (none, s): Linux's shallow CE threshold (`codel_dequeue`'s end in
//!   include/net/codel_impl.h, `TCA_FQ_CODEL_CE_THRESHOLD`): a packet leaving with a sojourn
//!   above it (`codel_time_after(vars->ldelay, ce_threshold)`: strictly above) is CE-marked
//!   if ECN-capable (`INET_ECN_set_ce`), whatever CoDel decided and whatever `ecn` says: DCTCP's
//!   and L4S's step marking inside fair queueing. Not-ECT packets are left alone.
//! - `ce_threshold_selector`, `ce_threshold_mask` (0, 0; bytes): which packets the threshold
//!   applies to, `(dsfield & mask) == selector` on the IP header's TOS byte (Linux 5.16's
//!   `TCA_FQ_CODEL_CE_THRESHOLD_SELECTOR/_MASK`; mask 0: every packet). aqmlab's packets carry
//!   no DSCP, so the byte is the ECN field alone: `0x1/0x1` selects ECT(1) and CE, the L4S
//!   packets.
//! - `inv_sqrt` ("exact"): CoDel's 1/sqrt(count), exact or Linux's Newton steps
//!   ([`super::codel`]); with "linux", the overflow's `count += dropped` leaves the
//!   reciprocal where it was, as `fq_codel_drop` does.
//! - `clock_at_start` (0 s): CoDel's clock when the run starts ([`super::codel`]).

use super::codel::{CodelParams, CodelVars, InvSqrt};
use super::flow_queues::{above_ce_threshold, check_sizes, FlowQueue, FlowQueues};
use super::params::{AqmParams, ParamDoc, QueueEnv};
use super::{DepartureVerdict, DropKind, QueueCtx, QueueDiscipline, QueueLimit, StateSink};
use crate::net::PacketId;
use crate::sim::Time;
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

/// Linux's default and largest number of flow queues (net/sched/sch_fq_codel.c).
pub const DEFAULT_FLOWS: u32 = 1024;
pub use super::flow_queues::MAX_FLOWS;
/// Memory of one flow queue (its state, allocated up front for every queue).
pub const BYTES_PER_FLOW_QUEUE: u64 = std::mem::size_of::<FlowQueue<CodelVars>>() as u64;

pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "flows",
        default: "1024",
        unit: "queues",
        meaning: "number of flow queues (at most 65536, as in Linux)",
        plausible: None,
    },
    ParamDoc {
        name: "quantum",
        default: "1514",
        unit: "bytes",
        meaning: "DRR quantum",
        plausible: None,
    },
    ParamDoc {
        name: "limit",
        default: "10240",
        unit: "packets",
        meaning: "packets held at most (the scenario's queue limit also applies)",
        plausible: None,
    },
    ParamDoc {
        name: "drop_batch",
        default: "64",
        unit: "packets",
        meaning: "most packets dropped from the fattest queue per overflow",
        plausible: None,
    },
    ParamDoc {
        name: "target",
        default: "5ms",
        unit: "s",
        meaning: "CoDel target, per queue",
        // RFC 8290 (CoDel's, RFC 8289): 5 ms.
        plausible: Some(super::params::Plausible::new(1e-5, 0.5)),
    },
    ParamDoc {
        name: "interval",
        default: "100ms",
        unit: "s",
        meaning: "CoDel interval, per queue",
        // RFC 8290 (CoDel's, RFC 8289): 100 ms, of the order of a worst-case RTT.
        plausible: Some(super::params::Plausible::new(1e-3, 2.0)),
    },
    ParamDoc {
        name: "mtu",
        default: "1514",
        unit: "bytes",
        meaning: "CoDel does not drop while the backlog is at most this",
        plausible: None,
    },
    ParamDoc {
        name: "ecn",
        default: "true",
        unit: "bool",
        meaning: "CE-mark ECT packets instead of dropping",
        plausible: None,
    },
    ParamDoc {
        name: "perturbation",
        default: "0",
        unit: "integer",
        meaning: "flow hash perturbation",
        plausible: None,
    },
    ParamDoc {
        name: "ce_threshold",
        default: "unset",
        unit: "s",
        meaning:
            "CE-mark ECN-capable packets whose sojourn is above this (Linux's shallow threshold)",
        plausible: Some(super::params::Plausible::new(1e-6, 0.5)),
    },
    ParamDoc {
        name: "ce_threshold_selector",
        default: "0",
        unit: "byte",
        meaning: "ce_threshold applies where (TOS byte & ce_threshold_mask) equals this",
        plausible: None,
    },
    ParamDoc {
        name: "ce_threshold_mask",
        default: "0",
        unit: "byte",
        meaning: "bits of the TOS byte ce_threshold_selector compares (0: every packet)",
        plausible: None,
    },
    super::codel::INV_SQRT_DOC,
    super::codel::CLOCK_AT_START_DOC,
];

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelParams {
    pub flows: u32,
    pub quantum: u32,
    pub limit: u32,
    pub drop_batch: u32,
    pub target: Duration,
    pub interval: Duration,
    pub mtu: u32,
    pub ecn: bool,
    pub perturbation: u64,
    pub ce_threshold: Option<Duration>,
    pub ce_threshold_selector: u8,
    pub ce_threshold_mask: u8,
    pub inv_sqrt: InvSqrt,
    pub clock_at_start: Duration,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams {
            flows: DEFAULT_FLOWS,
            quantum: 1514,
            limit: 10240,
            drop_batch: 64,
            target: Duration(5_000_000),
            interval: Duration(100_000_000),
            mtu: 1514,
            ecn: true,
            perturbation: 0,
            ce_threshold: None,
            ce_threshold_selector: 0,
            ce_threshold_mask: 0,
            inv_sqrt: InvSqrt::Exact,
            clock_at_start: Duration(0),
        }
    }
}

impl FqCodelParams {
    /// The CoDel every flow queue runs.
    fn codel(&self) -> CodelParams {
        CodelParams {
            target: self.target,
            interval: self.interval,
            mtu: self.mtu,
            ecn: self.ecn,
            inv_sqrt: self.inv_sqrt,
            clock_at_start: self.clock_at_start,
        }
    }
}

pub struct FqCodel {
    cfg: FqCodelParams,
    codel: CodelParams,
    limit_packets: u32,
    limit_bytes: Option<u64>,
    /// The hashed queues and DRR lists ([`super::flow_queues`]), CoDel's state per queue.
    fq: FlowQueues<CodelVars>,
}

impl FqCodel {
    pub fn new(cfg: FqCodelParams, limit: QueueLimit) -> Self {
        let (limit_packets, limit_bytes) = match limit {
            QueueLimit::Packets(n) => (cfg.limit.min(n), None),
            QueueLimit::Bytes(b) => (cfg.limit, Some(b)),
        };
        let codel = cfg.codel();
        let fq = FlowQueues::new(cfg.flows, cfg.quantum, cfg.perturbation, CodelVars::default);
        FqCodel {
            cfg,
            codel,
            limit_packets,
            limit_bytes,
            fq,
        }
    }

    /// Linux's shallow CE threshold on a departing packet (module docs): marks it if its
    /// sojourn is above `ce_threshold`, it is ECN-capable and not yet CE, and the selector
    /// takes it.
    fn mark_above_ce_threshold(&self, id: PacketId, cx: &mut QueueCtx) {
        let Some(threshold) = self.cfg.ce_threshold else {
            return;
        };
        let p = cx.packets.get(id);
        // The selector matches the packet's whole TOS byte, its DSCP too (include/net/
        // codel_impl.h `codel_dequeue`: `(dsfield & ce_threshold_mask) == ce_threshold_selector`).
        let selected = p.tos() & self.cfg.ce_threshold_mask == self.cfg.ce_threshold_selector;
        if selected && above_ce_threshold(p, cx.now, threshold.0) {
            cx.mark(id);
        }
    }

    /// The queue a flow id maps to.
    pub fn bucket(&self, flow: u32) -> u32 {
        self.fq.bucket(flow)
    }

    fn over_limit(&self) -> bool {
        self.fq.packets > self.limit_packets || self.limit_bytes.is_some_and(|b| self.fq.bytes > b)
    }

    /// Linux `fq_codel_drop`: drop from the head of the fattest queue until half of its bytes
    /// are gone or `drop_batch` packets are dropped.
    fn drop_from_fattest(&mut self, cx: &mut QueueCtx) {
        let idx = self.fq.fattest();
        let threshold = self.fq.flows[idx].backlog / 2;
        let mut len = 0u64;
        let mut n = 0u32;
        while let Some(id) = self.fq.pop(idx, cx.packets) {
            len += cx.packets.get(id).size as u64;
            n += 1;
            cx.drop_packet(id, DropKind::Forced);
            if n >= self.cfg.drop_batch || len >= threshold {
                break;
            }
        }
        let vars = &mut self.fq.flows[idx].state;
        vars.count = vars.count.wrapping_add(n);
    }
}

impl QueueDiscipline for FqCodel {
    fn enqueue(&mut self, id: PacketId, cx: &mut QueueCtx, _idle: Option<Time>) {
        let (idx, size) = self.fq.classify(cx.packets.get_mut(id), cx.now);
        self.fq.push(idx, id, size);
        while self.over_limit() && self.fq.packets > 0 {
            self.drop_from_fattest(cx);
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<PacketId> {
        while let Some((idx, from_new)) = self.fq.next_scheduled() {
            let codel = self.codel;
            let mut out = None;
            if self.fq.flows[idx].is_empty() {
                self.fq.flows[idx].state.on_empty();
            }
            while let Some(id) = self.fq.pop(idx, cx.packets) {
                let p = cx.packets.get(id);
                let more = !self.fq.flows[idx].is_empty();
                let verdict = self.fq.flows[idx].state.on_dequeue(
                    &codel,
                    cx.now,
                    p.enqueued_at,
                    p.ecn.ect,
                    self.fq.bytes,
                    more,
                );
                match verdict {
                    DepartureVerdict::Send => {
                        out = Some(id);
                        break;
                    }
                    DepartureVerdict::Mark => {
                        if cx.packets.get(id).ecn.ect {
                            cx.mark(id);
                        }
                        out = Some(id);
                        break;
                    }
                    DepartureVerdict::Drop => cx.drop_packet(id, DropKind::Early),
                }
            }
            match out {
                Some(id) => {
                    self.mark_above_ce_threshold(id, cx);
                    self.fq.charge(idx, cx.packets.get(id).size as u64);
                    return Some(id);
                }
                None => {
                    self.fq.retire(idx, from_new);
                }
            }
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
        let dropping = self.fq.flows.iter().filter(|f| f.state.dropping).count();
        out("dropping_flows", dropping as f64);
        out("target_delay_ms", self.cfg.target.secs() * 1e3);
    }
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn QueueDiscipline>, ScenarioError> {
    let cfg: FqCodelParams = p.parse()?;
    check_sizes(p, cfg.flows, cfg.quantum, cfg.limit)?;
    p.require(cfg.drop_batch > 0, "drop_batch", || "must be > 0".into())?;
    p.require(
        cfg.ce_threshold_selector & !cfg.ce_threshold_mask == 0,
        "ce_threshold_selector",
        || {
            format!(
                "has bits outside ce_threshold_mask ({:#04x} & !{:#04x}): it could never match",
                cfg.ce_threshold_selector, cfg.ce_threshold_mask
            )
        },
    )?;
    cfg.codel().validate(p)?;
    Ok(Box::new(FqCodel::new(cfg, env.limit)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_rig::QueueRig;
    use crate::net::{Packet, PacketKind};

    const MS: Time = 1_000_000;

    type Rig = QueueRig<FqCodel>;

    fn rig(cfg: FqCodelParams, limit: u32) -> Rig {
        QueueRig::new(FqCodel::new(cfg, QueueLimit::Packets(limit)))
    }

    fn enqueue(r: &mut Rig, now: Time, flow: u32, size: u32) -> PacketId {
        r.enqueue(now, Packet::new(PacketKind::Udp, flow, 0, 1, 0, size))
    }

    fn next_flow(r: &mut Rig, now: Time) -> u32 {
        let id = r.dequeue(now).unwrap();
        r.arena.get(id).flow
    }

    /// Three flow ids that land in different queues.
    fn three_flows(q: &FqCodel) -> (u32, u32, u32) {
        let a = 0;
        let b = (1..).find(|&f| q.bucket(f) != q.bucket(a)).unwrap();
        let c = (1..)
            .find(|&f| q.bucket(f) != q.bucket(a) && q.bucket(f) != q.bucket(b))
            .unwrap();
        (a, b, c)
    }

    /// `ce_threshold` 1 ms (Linux `codel_dequeue`'s end): five packets of one flow enqueued
    /// at 0 leave at 0.5, 1, 1.5, 2 and 2.5 ms, below CoDel's 5 ms target (CoDel never acts).
    /// Sojourns 0.5 and 1 ms: not above the threshold (strictly above marks); 1.5 ms: marked,
    /// ECT(0); 2 ms: Not-ECT, left alone; 2.5 ms: ECT(1), marked. With the L4S selector
    /// `0x1/0x1` only the ECT(1) packet is marked; without a threshold none is.
    #[test]
    fn ce_threshold_marks_ecn_capable_packets_above_it() {
        let kinds = [
            (true, false),
            (true, false),
            (true, false),
            (false, false),
            (true, true),
        ];
        for (threshold, selector, marked) in [
            (
                Some(Duration(MS)),
                (0, 0),
                vec![false, false, true, false, true],
            ),
            (
                Some(Duration(MS)),
                (1, 1),
                vec![false, false, false, false, true],
            ),
            (None, (0, 0), vec![false; 5]),
        ] {
            let cfg = FqCodelParams {
                ce_threshold: threshold,
                ce_threshold_selector: selector.0,
                ce_threshold_mask: selector.1,
                ..FqCodelParams::default()
            };
            let mut r = rig(cfg, 100);
            for (ect, ect1) in kinds {
                let mut p = Packet::new(PacketKind::Udp, 7, 0, 1, 0, 1000);
                p.ecn.ect = ect;
                p.ecn.ect1 = ect1;
                r.enqueue(0, p);
            }
            let got: Vec<bool> = (1..=5)
                .map(|i| {
                    let id = r.dequeue(i * MS / 2).unwrap();
                    r.arena.get(id).ecn.ce
                })
                .collect();
            assert_eq!(got, marked, "{threshold:?} {selector:?}");
        }
    }

    #[test]
    fn the_ce_threshold_selector_sees_the_dscp() {
        // Linux compares the whole TOS byte: a selector on EF (DSCP 46, mask 0xFC: 46 << 2 =
        // 0xB8) marks an EF packet of ECT(0) (TOS 0xBA) past the threshold, not a DSCP 0 one.
        let cfg = FqCodelParams {
            ce_threshold: Some(Duration(MS / 4)),
            ce_threshold_selector: 0xB8,
            ce_threshold_mask: 0xFC,
            ..FqCodelParams::default()
        };
        let mut r = rig(cfg, 100);
        for dscp in [46, 0] {
            let mut p = Packet::new(PacketKind::Udp, 7, 0, 1, 0, 1000);
            p.ecn.ect = true;
            p.dscp = dscp;
            assert_eq!(p.tos(), if dscp == 46 { 0xBA } else { 0x02 });
            r.enqueue(0, p);
        }
        let got: Vec<bool> = (1..=2)
            .map(|i| {
                let id = r.dequeue(i * MS).unwrap();
                r.arena.get(id).ecn.ce
            })
            .collect();
        assert_eq!(got, vec![true, false]);
    }

    #[test]
    fn two_backlogged_flows_alternate() {
        let mut r = rig(FqCodelParams::default(), 1000);
        let (a, b, _) = three_flows(&r.q);
        for _ in 0..4 {
            enqueue(&mut r, 0, a, 1514);
        }
        for _ in 0..4 {
            enqueue(&mut r, 0, b, 1514);
        }
        // quantum = packet size: each visit sends one packet, then the flow goes to the tail
        // of old_flows with its deficit refilled.
        let order: Vec<u32> = (0..8)
            .map(|_| {
                let id = r.dequeue(0).unwrap();
                r.arena.get(id).flow
            })
            .collect();
        assert_eq!(order, vec![a, b, a, b, a, b, a, b]);
        assert_eq!(r.dequeue(0), None);
        assert_eq!(r.q.len_packets(), 0);
    }

    #[test]
    fn byte_deficits_share_bytes_not_packets() {
        let mut r = rig(FqCodelParams::default(), 1000);
        let (a, b, _) = three_flows(&r.q);
        // a sends 500 B packets, b 1500 B ones: per round a gets ceil(1514/500) = 4 packets
        // (deficit 1514 -> 1014 -> 514 -> 14 -> -486), b one (1514 -> 14), then b again
        // while its deficit is positive (14 > 0 -> -1486).
        for _ in 0..12 {
            enqueue(&mut r, 0, a, 500);
        }
        for _ in 0..6 {
            enqueue(&mut r, 0, b, 1500);
        }
        let order: Vec<u32> = (0..8).map(|_| next_flow(&mut r, 0)).collect();
        assert_eq!(order, vec![a, a, a, a, b, b, a, a]);
    }

    #[test]
    fn a_new_flow_is_served_before_old_ones() {
        let mut r = rig(FqCodelParams::default(), 1000);
        let (a, _, c) = three_flows(&r.q);
        for _ in 0..5 {
            enqueue(&mut r, 0, a, 1514);
        }
        assert_eq!(next_flow(&mut r, 0), a); // a from new_flows, deficit -> 0
        assert_eq!(next_flow(&mut r, 0), a); // a moved to old_flows, refilled
        enqueue(&mut r, 0, c, 1514);
        assert_eq!(next_flow(&mut r, 0), c); // c is new: served first
        assert_eq!(next_flow(&mut r, 0), a);
    }

    #[test]
    fn overflow_drops_half_of_the_fattest_flow_from_its_head() {
        let mut r = rig(FqCodelParams::default(), 10);
        let (a, b, _) = three_flows(&r.q);
        let a_ids: Vec<_> = (0..8).map(|_| enqueue(&mut r, 0, a, 1000)).collect();
        enqueue(&mut r, 0, b, 1000);
        enqueue(&mut r, 0, b, 1000);
        assert!(r.dropped.is_empty());
        // 11th packet (b's): a holds 8000 B, the most; drop from its head until >= 4000 B
        // are gone: 4 packets.
        enqueue(&mut r, 0, b, 1000);
        assert_eq!(r.dropped, a_ids[..4].to_vec());
        assert_eq!(r.stats.forced_drops, 4);
        assert_eq!(r.q.len_packets(), 7);
        let fa = &r.q.fq.flows[r.q.bucket(a) as usize];
        assert_eq!(fa.backlog, 4000);
        assert_eq!(
            fa.state.count, 4,
            "CoDel count grows by the packets dropped"
        );
        // drop_batch = 1 drops a single packet
        let mut r = rig(
            FqCodelParams {
                drop_batch: 1,
                ..Default::default()
            },
            3,
        );
        let first = enqueue(&mut r, 0, a, 1000);
        for _ in 0..3 {
            enqueue(&mut r, 0, a, 1000);
        }
        assert_eq!(r.dropped, vec![first]);
    }

    #[test]
    fn codel_drops_in_a_standing_flow_are_early_drops() {
        let mut r = rig(
            FqCodelParams {
                ecn: false,
                ..Default::default()
            },
            1000,
        );
        let (a, _, _) = three_flows(&r.q);
        for _ in 0..50 {
            enqueue(&mut r, 0, a, 1000);
        }
        // Dequeue once per 10 ms: sojourn > 5 ms from the first; first_above_time = 10 +
        // 100 ms; the first dequeue after 110 ms (120 ms) drops one packet and sends the next.
        for t in 1..=12u64 {
            r.dequeue(10 * t * MS);
        }
        assert_eq!(r.stats.early_drops, 1);
        assert_eq!(r.q.len_packets(), 50 - 12 - 1);
    }

    #[test]
    fn scenario_limit_caps_the_default_limit() {
        let env = crate::aqm::test_rig::env(100);
        let p = AqmParams::new(serde_json::json!({}), "q.aqm");
        build(&p, &env).unwrap();
        let q = FqCodel::new(FqCodelParams::default(), QueueLimit::Packets(100));
        assert_eq!(q.limit_packets, 100);
        let p = AqmParams::new(serde_json::json!({"quantum": 0}), "q.aqm");
        assert_eq!(build(&p, &env).err().unwrap().path, "q.aqm.quantum");
    }
}
