//! The flow queueing shared by FQ-CoDel and FQ-PIE: packets hashed by flow into a fixed set of
//! queues, served by deficit round robin over a list of new and a list of old flows.
//!
//! Sources: RFC 8290 sections 4.1-4.2 (classification, DRR with new and old lists); Linux
//! `net/sched/sch_fq_codel.c` (`fq_codel_enqueue`, `fq_codel_dequeue`) and
//! `net/sched/sch_fq_pie.c` (`fq_pie_qdisc_enqueue`, `fq_pie_qdisc_dequeue`), whose list
//! handling is the same: a queue not on a list joins the tail of new_flows with deficit =
//! quantum; the first queue of new_flows (else old_flows) is served; a queue whose deficit is
//! <= 0 gets another quantum and moves to the tail of old_flows; a queue that yields no packet
//! moves from new_flows to old_flows if that is not empty ("force a pass through old_flows to
//! prevent starvation"), otherwise it leaves the lists.
//!
//! Classification: Linux hashes the 5-tuple with a random perturbation
//! (`reciprocal_scale(skb_get_hash(skb), flows_cnt)`); aqmlab uses splitmix64(flow ^
//! `perturbation`) mod flows, a fixed, seed-independent hash, so collisions are the same in
//! every run of a scenario (change `perturbation` to draw another hash).
//!
//! What a discipline keeps per queue besides its packets (CoDel's or PIE's state) is the type
//! parameter `S`; what happens to a packet at enqueue and dequeue is the discipline's.

use super::params::AqmParams;
use super::StateSink;
use crate::net::{Packet, PacketArena, PacketId};
use crate::sim::Time;
use crate::units::ScenarioError;
use std::collections::VecDeque;

/// Linux's shallow CE threshold on a departing packet (include/net/codel_impl.h `codel_dequeue`
/// for fq_codel, net/sched/sch_fq.c `fq_dequeue` for fq): its sojourn is above `threshold`, and
/// it is ECN-capable and not yet CE (`INET_ECN_set_ce` marks no other). A discipline adds its
/// own selection (fq_codel's `ce_threshold_selector`).
pub fn above_ce_threshold(p: &Packet, now: Time, threshold: Time) -> bool {
    now.saturating_sub(p.enqueued_at) > threshold && p.ecn.ect && !p.ecn.ce
}

/// The largest number of flow queues, Linux's for both (`fq_codel_change`, `fq_pie_change`:
/// "Number of flows must range in [1..65536]").
pub const MAX_FLOWS: u32 = 65536;

/// The checks both disciplines make of their sizes: 1 to [`MAX_FLOWS`] flow queues, a
/// quantum and a limit above 0.
pub fn check_sizes(
    p: &AqmParams,
    flows: u32,
    quantum: u32,
    limit: u32,
) -> Result<(), ScenarioError> {
    p.require(flows > 0, "flows", || "must be > 0".into())?;
    p.require(flows <= MAX_FLOWS, "flows", || {
        format!("must be at most {MAX_FLOWS} (Linux's limit), got {flows}")
    })?;
    p.require(quantum > 0, "quantum", || "must be > 0".into())?;
    p.require(limit > 0, "limit", || "must be > 0".into())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

/// One flow queue: its packets, their bytes, its DRR deficit and the discipline's state `S`.
#[derive(Debug, Clone)]
pub struct FlowQueue<S> {
    pub q: VecDeque<PacketId>,
    pub backlog: u64,
    pub deficit: i64,
    pub state: S,
    list: List,
}

impl<S> FlowQueue<S> {
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

/// The hashed queues and the two DRR lists, with the totals over all queues.
pub struct FlowQueues<S> {
    pub flows: Vec<FlowQueue<S>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    quantum: i64,
    perturbation: u64,
    /// Packets held in all queues.
    pub packets: u32,
    /// Bytes held in all queues.
    pub bytes: u64,
}

/// SplitMix64's finalizer: a fixed, seed-independent 64-bit mix (Steele, Lea, Flood 2014).
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<S> FlowQueues<S> {
    /// `n` queues, each with the state `init()`.
    pub fn new(n: u32, quantum: u32, perturbation: u64, mut init: impl FnMut() -> S) -> Self {
        let flows = (0..n)
            .map(|_| FlowQueue {
                q: VecDeque::new(),
                backlog: 0,
                deficit: 0,
                state: init(),
                list: List::None,
            })
            .collect();
        FlowQueues {
            flows,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            quantum: quantum as i64,
            perturbation,
            packets: 0,
            bytes: 0,
        }
    }

    /// The queue a flow id maps to.
    pub fn bucket(&self, flow: u32) -> u32 {
        (splitmix64(flow as u64 ^ self.perturbation) % self.flows.len() as u64) as u32
    }

    /// An arrival at `now`: stamps its arrival time; returns its queue and its size in bytes.
    #[inline]
    pub fn classify(&self, pkt: &mut Packet, now: Time) -> (usize, u64) {
        pkt.enqueued_at = now;
        (self.bucket(pkt.flow) as usize, pkt.size as u64)
    }

    /// Appends a packet of `size` bytes to queue `idx`; a queue on neither list joins the tail
    /// of new_flows with a full quantum.
    pub fn push(&mut self, idx: usize, id: PacketId, size: u64) {
        let quantum = self.quantum;
        self.push_joining(idx, id, size, |_| quantum);
    }

    /// As [`FlowQueues::push`], a queue that joins new_flows getting the deficit `credit`
    /// returns from it (sch_fq's: its initial quantum, or what it kept, `fq.rs`).
    pub fn push_joining(
        &mut self,
        idx: usize,
        id: PacketId,
        size: u64,
        credit: impl FnOnce(&FlowQueue<S>) -> i64,
    ) {
        let flow = &mut self.flows[idx];
        flow.q.push_back(id);
        flow.backlog += size;
        if flow.list == List::None {
            flow.list = List::New;
            flow.deficit = credit(flow);
            self.new_flows.push_back(idx as u32);
        }
        self.packets += 1;
        self.bytes += size;
    }

    /// Removes the head packet of queue `idx` and takes it off the totals.
    pub fn pop(&mut self, idx: usize, packets: &PacketArena) -> Option<PacketId> {
        let flow = &mut self.flows[idx];
        let id = flow.q.pop_front()?;
        let size = packets.get(id).size as u64;
        flow.backlog -= size;
        self.bytes -= size;
        self.packets -= 1;
        Some(id)
    }

    /// The queue to serve next and whether it came from new_flows: the first queue of
    /// new_flows, else of old_flows, after giving every queue at the front whose deficit is
    /// spent another quantum and moving it to the tail of old_flows. None when both lists are
    /// empty.
    pub fn next_scheduled(&mut self) -> Option<(usize, bool)> {
        loop {
            let (idx, from_new) = if let Some(&i) = self.new_flows.front() {
                (i as usize, true)
            } else if let Some(&i) = self.old_flows.front() {
                (i as usize, false)
            } else {
                return None;
            };
            if self.flows[idx].deficit <= 0 {
                self.flows[idx].deficit += self.quantum;
                self.list_of(from_new).pop_front();
                self.old_flows.push_back(idx as u32);
                self.flows[idx].list = List::Old;
                continue;
            }
            return Some((idx, from_new));
        }
    }

    /// Queue `idx`, at the front of its list, yielded no packet: from new_flows it moves to
    /// old_flows if that is not empty, else it leaves the lists (returns true then: sch_fq's
    /// `fq_flow_set_detached`).
    pub fn retire(&mut self, idx: usize, from_new: bool) -> bool {
        self.list_of(from_new).pop_front();
        if from_new && !self.old_flows.is_empty() {
            self.old_flows.push_back(idx as u32);
            self.flows[idx].list = List::Old;
            false
        } else {
            self.flows[idx].list = List::None;
            true
        }
    }

    /// Queue `idx` sent `size` bytes.
    pub fn charge(&mut self, idx: usize, size: u64) {
        self.flows[idx].deficit -= size as i64;
    }

    /// The queue holding the most bytes (the first of equals; queue 0 when all are empty).
    pub fn fattest(&self) -> usize {
        let mut idx = 0;
        let mut max = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.backlog > max {
                max = f.backlog;
                idx = i;
            }
        }
        idx
    }

    pub fn active(&self) -> usize {
        self.flows.iter().filter(|f| !f.q.is_empty()).count()
    }

    pub fn new_len(&self) -> usize {
        self.new_flows.len()
    }

    pub fn old_len(&self) -> usize {
        self.old_flows.len()
    }

    /// The lists' sizes as time-series state (`active_flows`, `new_flows`, `old_flows`).
    pub fn report_lists(&self, out: &mut StateSink) {
        out("active_flows", self.active() as f64);
        out("new_flows", self.new_len() as f64);
        out("old_flows", self.old_len() as f64);
    }

    fn list_of(&mut self, from_new: bool) -> &mut VecDeque<u32> {
        if from_new {
            &mut self.new_flows
        } else {
            &mut self.old_flows
        }
    }
}
