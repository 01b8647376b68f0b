//! The CAKE qdisc: tins of flow queues served by DRR++, each queue with its own COBALT, behind
//! a shaper, with the memory limit's drops from the fattest queue.
//!
//! Source: Linux 6.1 `net/sched/sch_cake.c`, facts only:
//! - `cake_enqueue`: stamp, classify (tin: [`super::tins`]; queue: [`super::hash`]), restart
//!   stale shaper clocks, append, run the ACK filter ([`super::ack_filter`]), then the flow
//!   lists: a queue on no list joins the tail of new_flows, one decaying moves there, both
//!   counted sparse with a fresh deficit (`cake_get_flow_quantum`, [`super::hosts`]); one
//!   waiting sparse (`CAKE_SET_SPARSE_WAIT`) becomes bulk. Over the memory limit, `cake_drop`
//!   drops the head of the queue holding the most bytes (of any tin), with `cobalt_queue_full`
//!   on it, until under. Linux keeps a max-heap of the backlogs; here the queues are scanned,
//!   the first of equals (tin by tin) losing.
//! - `cake_dequeue`: nothing while the shaper's clock holds ([`super::shaper`]); a tin is
//!   chosen, unshaped by DRR over the tins with their weights, shaped as the highest tin
//!   whose clock has come (the last in tin order), else the tin whose clock comes first;
//!   within it the queue is the head of decaying_flows on a dequeue's first pick, else of
//!   new_flows, else old_flows, else decaying_flows. A queue whose deficit is spent gets a
//!   quantum and goes to the tail of old_flows, a sparse one becoming bulk (or, empty,
//!   sparse-wait). A queue found empty runs `cobalt_queue_empty` and, while its COBALT is not
//!   at rest (BLUE's p, a count, or drop_next still ahead), waits on decaying_flows, else
//!   leaves the lists. A packet dequeued goes through `cobalt_should_drop` ([`Cobalt`], one
//!   per queue at its tin's parameters): dropped, the queue's next one is tried (the last
//!   packet of a queue is sent, CE-marked if CoDel marked it). The packet sent is charged its
//!   adjusted length to its queue's and tin's deficits and to the shaper's clocks.
//! - Not modelled: ingress mode (drops charged to the shaper, the bulk-flow MTU-time rule of
//!   `cobalt_should_drop`: with ingress off its bulk_flows is 0 and the rule is void),
//!   autorate, NAT lookups, GSO splitting (no GSO here), firewall-mark and priority tin
//!   overrides, the statistics' EWMAs. Memory: Linux counts each skb's truesize; here a
//!   packet's size.

use super::ack_filter::{redundant_ack, AckFilter};
use super::hash::{FlowKeys, FlowSet, FlowTable, Isolation};
use super::hosts::flow_quantum;
use super::lists::{FlowLists, List};
use super::set_ways::CAKE_QUEUES;
use super::shaper::{advance_tin, ByteTime, Clock, Overhead};
use super::tins::{Diffserv, TinParams};
use crate::aqm::cobalt::{Cobalt, CobaltParams};
use crate::aqm::{DepartureVerdict, DropKind, QueueCtx, QueueDiscipline, StateSink};
use crate::net::PacketId;
use crate::sim::{RngStream, Time};
use crate::units::Duration;
use std::collections::VecDeque;

/// One flow queue.
#[derive(Debug, Clone)]
pub struct Flow {
    pub q: VecDeque<PacketId>,
    pub backlog: u64,
    pub deficit: i32,
    pub cobalt: Cobalt,
}

/// One tin (`struct cake_tin_data`).
#[derive(Debug, Clone)]
pub struct Tin {
    pub params: TinParams,
    pub table: FlowTable,
    pub flows: Vec<Flow>,
    lists: FlowLists,
    pub sparse_flow_count: u16,
    pub bulk_flow_count: u16,
    pub decaying_flow_count: u16,
    pub backlog: u64,
    /// `tin_deficit`: its DRR credit among tins, unshaped.
    pub deficit: i32,
    pub time_next_packet: Time,
    pub ack_drops: u64,
}

/// COBALT at a tin's parameters (`cake_set_rate`'s cparams), as `cobalt.rs` computes it:
/// Linux's zeroed initial state, CE marks on ECT packets (CAKE always marks; BLUE drops),
/// the last packet of a queue sent.
fn cobalt_at(t: &TinParams) -> Cobalt {
    let cfg = CobaltParams {
        target: Duration(t.target),
        interval: Duration(t.interval),
        rate_adjust: false,
        ..CobaltParams::default()
    };
    let mut c = Cobalt::new(cfg, 0);
    c.mtu_time = t.mtu_time;
    c
}

impl Tin {
    fn new(params: TinParams, mode: Isolation) -> Self {
        let cobalt = cobalt_at(&params);
        let flow = Flow {
            q: VecDeque::new(),
            backlog: 0,
            deficit: 0,
            cobalt,
        };
        Tin {
            params,
            table: FlowTable::new(mode),
            flows: vec![flow; CAKE_QUEUES],
            lists: FlowLists::new(CAKE_QUEUES),
            sparse_flow_count: 0,
            bulk_flow_count: 0,
            decaying_flow_count: 0,
            backlog: 0,
            deficit: 0,
            time_next_packet: 0,
            ack_drops: 0,
        }
    }

    fn has_flows(&self) -> bool {
        self.sparse_flow_count + self.bulk_flow_count > 0
    }

    /// `cake_get_flow_quantum` for queue `idx`, dithered by the queue's random stream.
    fn quantum(&self, idx: usize, rng: &mut RngStream) -> i32 {
        let dither = (rng.next_u64() & 0xFFFF) as u16;
        flow_quantum(self.params.flow_quantum, self.table.host_load(idx), dither) as i32
    }

    fn set(&self, idx: usize) -> FlowSet {
        self.table.slots[idx].set
    }

    fn set_to(&mut self, idx: usize, s: FlowSet) {
        self.table.slots[idx].set = s;
    }
}

/// What the qdisc is built from (`mod.rs` reads it from the parameters).
#[derive(Debug, Clone)]
pub struct CakeConfig {
    pub diffserv: Diffserv,
    pub isolation: Isolation,
    pub ack_filter: AckFilter,
    pub overhead: Overhead,
    pub wash: bool,
    pub perturbation: u64,
    /// The qdisc's rate, bytes/s (0: unlimited).
    pub rate: u64,
    pub tins: Vec<TinParams>,
    /// `buffer_limit`, bytes.
    pub buffer_limit: u64,
}

pub struct Cake {
    cfg: CakeConfig,
    pub tins: Vec<Tin>,
    cur_tin: usize,
    clock: Clock,
    global: ByteTime,
    packets: u32,
    bytes: u64,
    buffer_used: u64,
    /// The time the last held dequeue asked to be called at, until the link takes it.
    wake: Option<Time>,
    /// The wake the link has been given and that has not come yet.
    armed: Option<Time>,
    pub ack_drops: u64,
    /// Dequeues the shaper held (`overlimits`).
    pub overlimits: u64,
    /// Packets dropped for the memory limit (`drop_overlimit`).
    pub memory_drops: u64,
}

impl Cake {
    pub fn new(cfg: CakeConfig) -> Self {
        let tins = cfg
            .tins
            .iter()
            .map(|&t| Tin::new(t, cfg.isolation))
            .collect();
        let global = ByteTime::of_rate(cfg.rate);
        Cake {
            cfg,
            tins,
            cur_tin: 0,
            clock: Clock::default(),
            global,
            packets: 0,
            bytes: 0,
            buffer_used: 0,
            wake: None,
            armed: None,
            ack_drops: 0,
            overlimits: 0,
            memory_drops: 0,
        }
    }

    /// The tin and queue a packet of flow id `flow` from `src` to `dst` with `dscp` goes to
    /// (for tests; classifying reserves the queue).
    pub fn classify(&mut self, pkt: &crate::net::Packet) -> (usize, usize) {
        let tin = self.cfg.diffserv.tin_of(pkt.dscp);
        let keys = FlowKeys::of(pkt, self.cfg.perturbation);
        (tin, self.tins[tin].table.classify(keys))
    }

    /// Takes packet `id` of `size` bytes off queue `idx` of tin `tin`'s and the totals.
    fn account_removed(&mut self, tin: usize, idx: usize, size: u64) {
        self.tins[tin].flows[idx].backlog -= size;
        self.tins[tin].backlog -= size;
        self.bytes -= size;
        self.packets -= 1;
        self.buffer_used -= size;
    }

    /// `cake_drop`: the head of the queue holding the most bytes is dropped.
    fn drop_fattest(&mut self, cx: &mut QueueCtx) {
        let mut best = (0, 0, 0u64);
        for (t, tin) in self.tins.iter().enumerate() {
            for (i, f) in tin.flows.iter().enumerate() {
                if f.backlog > best.2 {
                    best = (t, i, f.backlog);
                }
            }
        }
        let (t, i, _) = best;
        let Some(id) = self.tins[t].flows[i].q.pop_front() else {
            return;
        };
        self.tins[t].flows[i].cobalt.queue_full(cx.now);
        let size = cx.packets.get(id).size as u64;
        self.account_removed(t, i, size);
        self.memory_drops += 1;
        cx.drop_packet(id, DropKind::Forced);
    }

    /// The flow lists after queue `idx` of tin `t` received a packet (`cake_enqueue`'s
    /// "flowchain").
    fn join_lists(&mut self, t: usize, idx: usize, rng: &mut RngStream) {
        let tin = &mut self.tins[t];
        match tin.set(idx) {
            s @ (FlowSet::None | FlowSet::Decaying) => {
                if s == FlowSet::Decaying {
                    tin.decaying_flow_count -= 1;
                }
                tin.lists.move_tail(List::New, idx);
                tin.set_to(idx, FlowSet::Sparse);
                tin.sparse_flow_count += 1;
                tin.flows[idx].deficit = tin.quantum(idx, rng);
            }
            FlowSet::SparseWait => {
                tin.set_to(idx, FlowSet::Bulk);
                tin.sparse_flow_count -= 1;
                tin.bulk_flow_count += 1;
                tin.table.count_bulk(idx);
            }
            FlowSet::Sparse | FlowSet::Bulk => {}
        }
    }

    /// The tin to serve, or None (`cake_dequeue`'s class choice).
    fn choose_tin(&mut self, now: Time) -> Option<usize> {
        if self.global.is_unlimited() {
            let (mut wrapped, mut empty) = (false, true);
            loop {
                let tin = &mut self.tins[self.cur_tin];
                let has = tin.has_flows();
                if tin.deficit >= 0 && has {
                    return Some(self.cur_tin);
                }
                if tin.deficit <= 0 {
                    tin.deficit += tin.params.weight as i32;
                }
                empty &= !has;
                self.cur_tin += 1;
                if self.cur_tin >= self.tins.len() {
                    self.cur_tin = 0;
                    if wrapped && empty {
                        return None;
                    }
                    wrapped = true;
                }
            }
        }
        let mut best = (0usize, i128::MAX);
        for (t, tin) in self.tins.iter().enumerate() {
            if tin.has_flows() {
                let time_to_pkt = tin.time_next_packet as i128 - now as i128;
                if time_to_pkt <= 0 || time_to_pkt <= best.1 {
                    best = (t, time_to_pkt);
                }
            }
        }
        self.cur_tin = best.0;
        self.tins[best.0].has_flows().then_some(best.0)
    }

    /// A queue picked from the lists was empty (`cake_dequeue`, "this queue was actually
    /// empty").
    fn found_empty(&mut self, t: usize, idx: usize, now: Time) {
        let tin = &mut self.tins[t];
        let set = tin.set(idx);
        let c = &mut tin.flows[idx].cobalt;
        c.queue_empty(now);
        if c.blue.p > 0.0 || c.count > 0 || now < c.drop_next {
            tin.lists.move_tail(List::Decaying, idx);
            match set {
                FlowSet::Bulk => {
                    tin.bulk_flow_count -= 1;
                    tin.table.uncount_bulk(idx);
                    tin.decaying_flow_count += 1;
                }
                FlowSet::Sparse | FlowSet::SparseWait => {
                    tin.sparse_flow_count -= 1;
                    tin.decaying_flow_count += 1;
                }
                FlowSet::Decaying | FlowSet::None => {}
            }
            tin.set_to(idx, FlowSet::Decaying);
        } else {
            tin.lists.remove(idx);
            match set {
                FlowSet::Sparse | FlowSet::SparseWait => tin.sparse_flow_count -= 1,
                FlowSet::Bulk => {
                    tin.bulk_flow_count -= 1;
                    tin.table.uncount_bulk(idx);
                }
                FlowSet::Decaying | FlowSet::None => tin.decaying_flow_count -= 1,
            }
            tin.set_to(idx, FlowSet::None);
        }
    }

    /// The queue of tin `t` to serve next, or None if its lists are empty.
    fn pick(&self, t: usize, first_flow: bool) -> Option<usize> {
        let lists = &self.tins[t].lists;
        if first_flow && !lists.is_empty(List::Decaying) {
            return lists.front(List::Decaying);
        }
        [List::New, List::Old, List::Decaying]
            .into_iter()
            .find_map(|l| lists.front(l))
    }

    /// Flows holding packets, and the sparse, bulk and decaying counts, over all tins.
    fn counts(&self) -> (usize, u32, u32, u32) {
        let mut c = (0, 0, 0, 0);
        for tin in &self.tins {
            c.0 += tin.flows.iter().filter(|f| !f.q.is_empty()).count();
            c.1 += tin.sparse_flow_count as u32;
            c.2 += tin.bulk_flow_count as u32;
            c.3 += tin.decaying_flow_count as u32;
        }
        c
    }
}

impl QueueDiscipline for Cake {
    fn enqueue(&mut self, id: PacketId, cx: &mut QueueCtx, _idle: Option<Time>) {
        let now = cx.now;
        let p = cx.packets.get_mut(id);
        p.enqueued_at = now;
        let t = match self.cfg.diffserv {
            Diffserv::Besteffort => 0,
            mode => mode.tin_of(p.dscp),
        };
        if self.cfg.wash {
            p.dscp = 0;
        }
        let size = p.size as u64;
        let keys = FlowKeys::of(p, self.cfg.perturbation);
        let idx = self.tins[t].table.classify(keys);
        // Stale shaper clocks restart now.
        if self.tins[t].backlog == 0 {
            let tin = &mut self.tins[t];
            tin.time_next_packet = tin.time_next_packet.max(now);
            if self.packets == 0 {
                self.clock.restart_if_stale(now);
            }
        }
        let flow = &mut self.tins[t].flows[idx];
        flow.q.push_back(id);
        flow.backlog += size;
        self.tins[t].backlog += size;
        self.packets += 1;
        self.bytes += size;
        self.buffer_used += size;
        if self.cfg.ack_filter != AckFilter::Off {
            let aggressive = self.cfg.ack_filter == AckFilter::Aggressive;
            let flow = &mut self.tins[t].flows[idx];
            if let Some(pos) = redundant_ack(&flow.q, cx.packets, aggressive) {
                let ack = flow.q.remove(pos).expect("a position in the queue");
                let ack_size = cx.packets.get(ack).size as u64;
                self.account_removed(t, idx, ack_size);
                self.tins[t].ack_drops += 1;
                self.ack_drops += 1;
                cx.drop_packet(ack, DropKind::Early);
            }
        }
        self.join_lists(t, idx, cx.rng);
        while self.buffer_used > self.cfg.buffer_limit && self.packets > 0 {
            self.drop_fattest(cx);
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<PacketId> {
        let now = cx.now;
        if self.armed.is_some_and(|a| a <= now) {
            self.armed = None;
        }
        let mut first_flow = true;
        'begin: loop {
            if self.packets == 0 {
                return None;
            }
            if let Some(until) = self.clock.held_until(now) {
                self.overlimits += 1;
                self.wake = Some(until);
                return None;
            }
            let t = self.choose_tin(now)?;
            'retry: loop {
                let Some(idx) = self.pick(t, first_flow) else {
                    continue 'begin;
                };
                first_flow = false;
                if self.tins[t].flows[idx].deficit <= 0 {
                    let tin = &mut self.tins[t];
                    if tin.set(idx) == FlowSet::Sparse {
                        if tin.flows[idx].q.is_empty() {
                            tin.set_to(idx, FlowSet::SparseWait);
                        } else {
                            tin.sparse_flow_count -= 1;
                            tin.bulk_flow_count += 1;
                            tin.table.count_bulk(idx);
                            tin.set_to(idx, FlowSet::Bulk);
                        }
                    }
                    tin.flows[idx].deficit += tin.quantum(idx, cx.rng);
                    tin.lists.move_tail(List::Old, idx);
                    continue 'retry;
                }
                let sent = loop {
                    let Some(id) = self.tins[t].flows[idx].q.pop_front() else {
                        self.found_empty(t, idx, now);
                        continue 'begin;
                    };
                    let p = cx.packets.get(id);
                    let (size, enqueued_at, ect) = (p.size as u64, p.enqueued_at, p.ecn.ect);
                    self.account_removed(t, idx, size);
                    let flow = &mut self.tins[t].flows[idx];
                    let last = flow.q.is_empty();
                    match flow.cobalt.should_drop(now, enqueued_at, ect, last, cx.rng) {
                        DepartureVerdict::Send => break id,
                        DepartureVerdict::Mark => {
                            if ect {
                                cx.mark(id);
                            }
                            break id;
                        }
                        DepartureVerdict::Drop => cx.drop_packet(id, DropKind::Early),
                    }
                };
                let len = self.cfg.overhead.adjusted_len(cx.packets.get(sent).size);
                let tin = &mut self.tins[t];
                if !self.global.is_unlimited() {
                    let dur = tin.params.byte_time.of_len(len);
                    tin.time_next_packet = advance_tin(tin.time_next_packet, now, dur);
                    self.clock.advance(self.global.of_len(len));
                }
                tin.flows[idx].deficit -= len as i32;
                tin.deficit -= len as i32;
                return Some(sent);
            }
        }
    }

    fn len_packets(&self) -> u32 {
        self.packets
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn wake_at(&mut self) -> Option<Time> {
        let w = self.wake.take()?;
        if self.armed == Some(w) {
            return None;
        }
        self.armed = Some(w);
        Some(w)
    }

    fn state(&self, out: &mut StateSink) {
        let (active, sparse, bulk, decaying) = self.counts();
        out("active_flows", active as f64);
        out("sparse_flows", sparse as f64);
        out("bulk_flows", bulk as f64);
        out("decaying_flows", decaying as f64);
        out("ack_drops", self.ack_drops as f64);
        out("memory_drops", self.memory_drops as f64);
        out("buffer_used_bytes", self.buffer_used as f64);
    }
}
