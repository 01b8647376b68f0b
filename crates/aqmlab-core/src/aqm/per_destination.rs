//! A queue per destination node, each its own instance of one discipline, from which a
//! transmitter takes one destination's packets at a time.
//!
//! Source: Linux 6.1 mac80211's per-station transmit queues (net/mac80211/tx.c): each
//! station's `txq_info` has its own flows and CoDel state (`ieee80211_txq_enqueue` puts a
//! frame in its station's queue, `ieee80211_tx_dequeue` -> `fq_tin_dequeue` ->
//! `codel_dequeue` takes from the one the driver asks for), so the AQM of one station never
//! sees another's packets. Read for that structure; the code is not Linux's.
//!
//! Each destination's discipline is built, the first time a packet for it arrives, from the
//! link's queue parameters (the same algorithm, parameters and limit: mac80211's global
//! `fq->limit` and memory limit shared by all stations are not modelled). A plain `dequeue`
//! serves the destinations round robin, one packet each. Parameters: none of its own.

use super::{LinkQueue, QueueCtx, QueueDiscipline, StateSink};
use crate::net::{NodeId, PacketId};
use crate::sim::Time;
use std::collections::HashMap;

/// Builds one destination's discipline.
pub type BuildQueue = Box<dyn Fn() -> LinkQueue + Send>;

pub struct PerDestination {
    build: BuildQueue,
    by_node: HashMap<NodeId, u32>,
    queues: Vec<(NodeId, LinkQueue)>,
    /// Totals over the queues, kept as each changes.
    packets: u32,
    bytes: u64,
    /// Every instance's timer interval (they are built alike).
    timer: Option<Time>,
    /// Where the plain `dequeue`'s round robin resumes.
    next: usize,
}

impl PerDestination {
    pub fn new(build: BuildQueue) -> Self {
        let timer = build().timer_interval();
        PerDestination {
            build,
            by_node: HashMap::new(),
            queues: vec![],
            packets: 0,
            bytes: 0,
            timer,
            next: 0,
        }
    }

    /// Runs `f` on queue `i`, keeping the totals.
    fn with<R>(&mut self, i: usize, f: impl FnOnce(&mut LinkQueue) -> R) -> R {
        let q = &mut self.queues[i].1;
        let (p, b) = (q.len_packets(), q.len_bytes());
        let r = f(q);
        self.packets = self.packets - p + q.len_packets();
        self.bytes = self.bytes - b + q.len_bytes();
        r
    }
}

impl QueueDiscipline for PerDestination {
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QueueCtx, link_idle_since: Option<Time>) {
        let dst = cx.packets.get(pkt).dst;
        let i = match self.by_node.get(&dst) {
            Some(&i) => i as usize,
            None => {
                self.queues.push((dst, (self.build)()));
                self.by_node.insert(dst, self.queues.len() as u32 - 1);
                self.queues.len() - 1
            }
        };
        self.with(i, |q| q.enqueue(pkt, cx, link_idle_since));
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<PacketId> {
        for k in 0..self.queues.len() {
            let i = (self.next + k) % self.queues.len();
            if let Some(pkt) = self.with(i, |q| q.dequeue(cx)) {
                self.next = (i + 1) % self.queues.len();
                return Some(pkt);
            }
        }
        None
    }

    fn dequeue_for(&mut self, dst: NodeId, cx: &mut QueueCtx) -> Option<PacketId> {
        let i = *self.by_node.get(&dst)? as usize;
        self.with(i, |q| q.dequeue(cx))
    }

    fn len_for(&self, dst: NodeId) -> u32 {
        self.by_node
            .get(&dst)
            .map_or(0, |&i| self.queues[i as usize].1.len_packets())
    }

    fn len_packets(&self) -> u32 {
        self.packets
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn on_link_idle(&mut self, now: Time) {
        for (_, q) in &mut self.queues {
            q.on_link_idle(now);
        }
    }

    fn timer_interval(&self) -> Option<Time> {
        self.timer
    }

    fn on_timer(&mut self, cx: &mut QueueCtx, link_idle_since: Option<Time>) {
        for i in 0..self.queues.len() {
            self.with(i, |q| q.on_timer(cx, link_idle_since));
        }
    }

    /// The instances' states are their own; none is reported for the link.
    fn state(&self, _out: &mut StateSink) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::registry::build_queue;
    use crate::aqm::test_rig::{env, QueueRig};
    use crate::net::{Packet, PacketKind};

    fn droptail(limit: u32) -> PerDestination {
        let env = env(limit);
        PerDestination::new(Box::new(move || {
            build_queue(&"droptail".into(), &env, None, "q").unwrap()
        }))
    }

    fn to(dst: NodeId, size: u32) -> Packet {
        Packet::new(PacketKind::Udp, 0, 0, dst, 0, size)
    }

    /// Each destination has its own limit and order: with DropTail of 2, node 5's third
    /// packet is dropped while node 6's first is taken; each destination's packets come out
    /// in its own order, and the plain dequeue alternates.
    #[test]
    fn each_destination_is_its_own_queue() {
        let mut r = QueueRig::new(droptail(2));
        let a: Vec<_> = (0..3).map(|_| r.enqueue(0, to(5, 100))).collect();
        let b = r.enqueue(0, to(6, 300));
        assert_eq!(r.dropped, vec![a[2]]);
        assert_eq!((r.q.len_packets(), r.q.len_bytes()), (3, 500));
        assert_eq!((r.q.len_for(5), r.q.len_for(6), r.q.len_for(7)), (2, 1, 0));
        let take =
            |r: &mut QueueRig<PerDestination>, n| r.with_ctx(0, |q, cx| q.dequeue_for(n, cx));
        assert_eq!(take(&mut r, 6), Some(b));
        assert_eq!(take(&mut r, 6), None);
        assert_eq!(take(&mut r, 7), None);
        assert_eq!(take(&mut r, 5), Some(a[0]));
        assert_eq!((r.q.len_packets(), r.q.len_bytes()), (1, 100));
        let c = r.enqueue(0, to(6, 100));
        let out: Vec<_> = (0..3).map(|_| r.dequeue(0)).collect();
        assert_eq!(out, vec![Some(a[1]), Some(c), None]);
    }
}
