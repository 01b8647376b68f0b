//! CAKE's flow classification: the isolation modes, the packet's flow and host hashes, and
//! the set-associative flow table with its host bookkeeping.
//!
//! Source: Linux 6.1 `net/sched/sch_cake.c`, `cake_hash`, `cake_dsrc`, `cake_ddst`, the
//! `CAKE_SET_*` states, and `include/uapi/linux/pkt_sched.h` (`CAKE_FLOW_*`: flowblind 0,
//! srchost 1, dsthost 2, hosts 3 = src | dst, flows 4, dual-srchost 5 = src | flows,
//! dual-dsthost 6, triple-isolate 7 = hosts | flows).
//! - Keys: Linux hashes the 5-tuple (`flow_hash_from_keys`, keyed by a random boot-time
//!   secret) for the flow, and the same keys with the destination (source) address zeroed
//!   for the source (destination) host. Here a flow is its `flow` id, the model's stand-in
//!   for a 5-tuple (one per flow; a flow's ACKs share it), and a host is its `src` / `dst`
//!   node id; each is hashed to 32 bits by SplitMix64 with `perturbation` (fixed: the same
//!   collisions in every run, as FQ-CoDel's hash here).
//! - Without the flows bit, the flow hash is the XOR of the isolated hosts' hashes (srchost:
//!   one queue per source host; hosts: per host pair). flowblind: every packet in queue 0.
//! - The flow table (8-way, [`super::set_ways`]): a queue tagged with the flow hash, else a
//!   free one (no flow state: `set` = none), else a collision into the hash's own queue,
//!   which the new flow shares; the queue is tagged with the new flow. The hosts of a flow
//!   are looked up (and counted, if the flow is bulk) only when it takes a queue that was not
//!   in use: dual-srchost counts source hosts, dual-dsthost destination hosts,
//!   triple-isolate both. A collision taking over a bulk queue first uncounts its old hosts.

use super::hosts::{Hosts, Side};
use super::set_ways::{find_way, Way, CAKE_QUEUES};
use crate::aqm::flow_queues::splitmix64;
use crate::net::Packet;
use serde::{Deserialize, Serialize};

/// `flow_mode`: what CAKE isolates (`CAKE_FLOW_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum Isolation {
    #[serde(rename = "flowblind")]
    Flowblind,
    #[serde(rename = "srchost")]
    Srchost,
    #[serde(rename = "dsthost")]
    Dsthost,
    #[serde(rename = "hosts")]
    Hosts,
    #[serde(rename = "flows")]
    Flows,
    #[serde(rename = "dual-srchost")]
    DualSrchost,
    #[serde(rename = "dual-dsthost")]
    DualDsthost,
    #[serde(rename = "triple-isolate")]
    TripleIsolate,
}

const SRC_IP: u8 = 1;
const DST_IP: u8 = 2;
const FLOWS: u8 = 4;

impl Isolation {
    /// The `CAKE_FLOW_*` value.
    pub fn bits(self) -> u8 {
        match self {
            Isolation::Flowblind => 0,
            Isolation::Srchost => 1,
            Isolation::Dsthost => 2,
            Isolation::Hosts => 3,
            Isolation::Flows => 4,
            Isolation::DualSrchost => 5,
            Isolation::DualDsthost => 6,
            Isolation::TripleIsolate => 7,
        }
    }

    /// `cake_dsrc`: source hosts are counted (dual-srchost, triple-isolate).
    pub fn dual_src(self) -> bool {
        self.bits() & (SRC_IP | FLOWS) == SRC_IP | FLOWS
    }

    /// `cake_ddst`: destination hosts are counted (dual-dsthost, triple-isolate).
    pub fn dual_dst(self) -> bool {
        self.bits() & (DST_IP | FLOWS) == DST_IP | FLOWS
    }
}

/// A packet's 32-bit flow, source host and destination host hashes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowKeys {
    pub flow: u32,
    pub srchost: u32,
    pub dsthost: u32,
}

impl FlowKeys {
    /// The hashes of `pkt`'s flow id and its source and destination nodes.
    pub fn of(pkt: &Packet, perturbation: u64) -> FlowKeys {
        // Distinct inputs per kind of key: a node's source-host hash is not its
        // destination-host hash (Linux zeroes the other address, giving two hashes too).
        let h = |kind: u64, x: u32| splitmix64((kind << 32 | x as u64) ^ perturbation) as u32;
        FlowKeys {
            flow: h(0, pkt.flow),
            srchost: h(1, pkt.src),
            dsthost: h(2, pkt.dst),
        }
    }
}

/// `CAKE_SET_*`: where a queue is in the round robin (counted as).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlowSet {
    /// Not on any list.
    #[default]
    None,
    /// On new_flows, or back on it: counted sparse.
    Sparse,
    /// Counted sparse, but moved to old_flows with a spent deficit while empty.
    SparseWait,
    /// On old_flows with packets: counted bulk, and in its hosts' bulk counts.
    Bulk,
    /// Empty, on decaying_flows until its COBALT state is at rest.
    Decaying,
}

/// What the classification keeps of a queue.
#[derive(Debug, Clone, Copy, Default)]
pub struct FlowSlot {
    pub tag: u32,
    pub set: FlowSet,
    pub srchost: u16,
    pub dsthost: u16,
}

/// One tin's flow table: the queues' tags, states and hosts, and the hosts' table.
#[derive(Debug, Clone)]
pub struct FlowTable {
    pub slots: Vec<FlowSlot>,
    pub hosts: Hosts,
    pub mode: Isolation,
}

impl FlowTable {
    pub fn new(mode: Isolation) -> Self {
        FlowTable {
            slots: vec![FlowSlot::default(); CAKE_QUEUES],
            hosts: Hosts::default(),
            mode,
        }
    }

    /// `cake_hash`: the queue of a packet with these keys, reserving it for the flow.
    pub fn classify(&mut self, keys: FlowKeys) -> usize {
        let bits = self.mode.bits();
        if bits == 0 {
            return 0;
        }
        let mut flow_hash = if bits & FLOWS != 0 { keys.flow } else { 0 };
        if bits & FLOWS == 0 {
            if bits & SRC_IP != 0 {
                flow_hash ^= keys.srchost;
            }
            if bits & DST_IP != 0 {
                flow_hash ^= keys.dsthost;
            }
        }
        let slots = &self.slots;
        let way = find_way(
            flow_hash,
            |s| slots[s].tag == flow_hash,
            |s| slots[s].set == FlowSet::None,
        );
        let (dual_src, dual_dst) = (self.mode.dual_src(), self.mode.dual_dst());
        let idx = way.slot();
        let allocate = match way {
            // A queue reserved for this flow: its hosts are looked up again only if it left
            // the lists meanwhile.
            Way::Tagged(s) => self.slots[s].set == FlowSet::None,
            Way::Free(_) => true,
            Way::Collision(s) => {
                if self.slots[s].set == FlowSet::Bulk {
                    self.uncount_bulk(s);
                }
                true
            }
        };
        self.slots[idx].tag = flow_hash;
        if allocate && dual_src {
            self.slots[idx].srchost = self.hosts.slot(Side::Src, keys.srchost);
            if self.slots[idx].set == FlowSet::Bulk {
                self.hosts.inc(Side::Src, self.slots[idx].srchost);
            }
        }
        if allocate && dual_dst {
            self.slots[idx].dsthost = self.hosts.slot(Side::Dst, keys.dsthost);
            if self.slots[idx].set == FlowSet::Bulk {
                self.hosts.inc(Side::Dst, self.slots[idx].dsthost);
            }
        }
        idx
    }

    /// Queue `idx` became bulk: one more bulk flow for its counted hosts
    /// (`cake_inc_srchost_bulk_flow_count`, `cake_inc_dsthost_bulk_flow_count`).
    pub fn count_bulk(&mut self, idx: usize) {
        let s = self.slots[idx];
        if self.mode.dual_src() {
            self.hosts.inc(Side::Src, s.srchost);
        }
        if self.mode.dual_dst() {
            self.hosts.inc(Side::Dst, s.dsthost);
        }
    }

    /// Queue `idx` stopped being bulk (the `dec` siblings).
    pub fn uncount_bulk(&mut self, idx: usize) {
        let s = self.slots[idx];
        if self.mode.dual_src() {
            self.hosts.dec(Side::Src, s.srchost);
        }
        if self.mode.dual_dst() {
            self.hosts.dec(Side::Dst, s.dsthost);
        }
    }

    /// `cake_get_flow_quantum`'s host_load of queue `idx`.
    pub fn host_load(&self, idx: usize) -> u16 {
        let s = self.slots[idx];
        self.hosts.host_load(
            self.mode.dual_src().then_some(s.srchost),
            self.mode.dual_dst().then_some(s.dsthost),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(flow: u32, srchost: u32, dsthost: u32) -> FlowKeys {
        FlowKeys {
            flow,
            srchost,
            dsthost,
        }
    }

    /// By hand, flows mode, flow hashes chosen to share set 0..8 at way 5 (5, 1029, 2053, ...
    /// = 5 mod 1024): the first takes queue 5, the next ones the free ways after it, 6, 7, 0,
    /// 1, 2, 3, 4; the ninth finds no tag and no free way and collides into 5, which is then
    /// tagged with it, so the first flow, back, no longer finds its tag: all 8 queues are in
    /// use, and it collides into 5 too. A queue that left the lists (set none) is free again:
    /// with queue 6 freed, a tenth flow takes it.
    #[test]
    fn set_associative_hash_fills_the_set_then_collides_into_the_own_way() {
        let mut t = FlowTable::new(Isolation::Flows);
        let mut got = vec![];
        for i in 0..9u32 {
            let q = t.classify(keys(5 + 1024 * i, 0, 0));
            t.slots[q].set = FlowSet::Sparse; // it joined the lists
            got.push(q);
        }
        assert_eq!(got, vec![5, 6, 7, 0, 1, 2, 3, 4, 5]);
        assert_eq!(t.slots[5].tag, 5 + 1024 * 8);
        // The second flow is found again at its way 6 (a tag hit, not the direct slot).
        assert_eq!(t.classify(keys(1029, 0, 0)), 6);
        assert_eq!(t.classify(keys(5, 0, 0)), 5);
        t.slots[6].set = FlowSet::None;
        assert_eq!(t.classify(keys(5 + 1024 * 9, 0, 0)), 6);
    }

    /// Without the flows bit the queue is the host's (srchost), or the host pair's (hosts: the
    /// XOR of both hashes); flowblind is always queue 0.
    #[test]
    fn host_modes_hash_hosts_and_flowblind_uses_one_queue() {
        let mut t = FlowTable::new(Isolation::Srchost);
        assert_eq!(t.classify(keys(77, 10, 20)), 10);
        assert_eq!(t.classify(keys(78, 10, 21)), 10);
        let mut t = FlowTable::new(Isolation::Hosts);
        assert_eq!(t.classify(keys(77, 10, 20)), 10 ^ 20);
        let mut t = FlowTable::new(Isolation::Flowblind);
        assert_eq!(t.classify(keys(77, 10, 20)), 0);
        assert_eq!(t.slots[0].tag, 0);
    }

    /// Triple-isolate: a flow's hosts are looked up when it takes a queue; a bulk queue is
    /// counted for both its hosts, and a collision taking it over uncounts them before
    /// counting the new flow's hosts (the queue stays bulk: its packets are still there).
    #[test]
    fn hosts_are_counted_for_bulk_queues_and_moved_on_a_collision() {
        let mut t = FlowTable::new(Isolation::TripleIsolate);
        let q = t.classify(keys(5, 100, 200));
        assert_eq!(q, 5);
        assert_eq!((t.slots[q].srchost, t.slots[q].dsthost), (100, 200));
        t.slots[q].set = FlowSet::Bulk;
        t.count_bulk(q);
        assert_eq!(t.host_load(q), 1);
        // Seven more flows of other hosts fill the set (not bulk), the eighth collides.
        for i in 1..8u32 {
            let s = t.classify(keys(5 + 1024 * i, 300, 400));
            t.slots[s].set = FlowSet::Sparse;
        }
        let q2 = t.classify(keys(5 + 1024 * 8, 101, 201));
        assert_eq!(q2, 5);
        assert_eq!((t.slots[5].srchost, t.slots[5].dsthost), (101, 201));
        assert_eq!(t.hosts.bulk_flows(Side::Src, 100), 0);
        assert_eq!(t.hosts.bulk_flows(Side::Dst, 200), 0);
        assert_eq!(t.hosts.bulk_flows(Side::Src, 101), 1);
        assert_eq!(t.hosts.bulk_flows(Side::Dst, 201), 1);
    }

    #[test]
    fn dual_modes_count_their_side() {
        use Isolation::*;
        let dual = |m: Isolation| (m.dual_src(), m.dual_dst());
        assert_eq!(dual(TripleIsolate), (true, true));
        assert_eq!(dual(DualSrchost), (true, false));
        assert_eq!(dual(DualDsthost), (false, true));
        for m in [Flowblind, Srchost, Dsthost, Hosts, Flows] {
            assert_eq!(dual(m), (false, false), "{m:?}");
        }
    }
}
