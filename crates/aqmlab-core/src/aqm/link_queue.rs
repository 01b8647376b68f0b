//! The queue discipline a link holds, held inside the link: a [`FifoQueue`] (every
//! single-FIFO algorithm) inline, a scheduler such as FQ-CoDel boxed.
//!
//! Why not always `Box<dyn QueueDiscipline>`: at 100,000 flows every link event is a cache
//! miss, and a boxed FIFO is one more dependent miss (the box) and an indirect call per
//! packet. Inline, the FIFO's fields share the link's cache lines and its methods are called
//! directly. Behaviour is the same either way: the enum only forwards.

use super::{FifoQueue, QueueCtx, QueueDiscipline, StateSink};
use crate::net::{NodeId, PacketId};
use crate::sim::Time;

pub enum LinkQueue {
    Fifo(FifoQueue),
    Scheduler(Box<dyn QueueDiscipline>),
}

impl QueueDiscipline for LinkQueue {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QueueCtx, link_idle_since: Option<Time>) {
        match self {
            LinkQueue::Fifo(q) => q.enqueue(pkt, cx, link_idle_since),
            LinkQueue::Scheduler(q) => q.enqueue(pkt, cx, link_idle_since),
        }
    }

    #[inline]
    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<PacketId> {
        match self {
            LinkQueue::Fifo(q) => q.dequeue(cx),
            LinkQueue::Scheduler(q) => q.dequeue(cx),
        }
    }

    fn dequeue_for(&mut self, dst: NodeId, cx: &mut QueueCtx) -> Option<PacketId> {
        match self {
            LinkQueue::Fifo(_) => None,
            LinkQueue::Scheduler(q) => q.dequeue_for(dst, cx),
        }
    }

    fn len_for(&self, dst: NodeId) -> u32 {
        match self {
            LinkQueue::Fifo(_) => 0,
            LinkQueue::Scheduler(q) => q.len_for(dst),
        }
    }

    #[inline]
    fn len_packets(&self) -> u32 {
        match self {
            LinkQueue::Fifo(q) => q.len_packets(),
            LinkQueue::Scheduler(q) => q.len_packets(),
        }
    }

    #[inline]
    fn len_bytes(&self) -> u64 {
        match self {
            LinkQueue::Fifo(q) => q.len_bytes(),
            LinkQueue::Scheduler(q) => q.len_bytes(),
        }
    }

    #[inline]
    fn on_link_idle(&mut self, now: Time) {
        match self {
            LinkQueue::Fifo(q) => q.on_link_idle(now),
            LinkQueue::Scheduler(q) => q.on_link_idle(now),
        }
    }

    fn timer_interval(&self) -> Option<Time> {
        match self {
            LinkQueue::Fifo(q) => q.timer_interval(),
            LinkQueue::Scheduler(q) => q.timer_interval(),
        }
    }

    fn on_timer(&mut self, cx: &mut QueueCtx, link_idle_since: Option<Time>) {
        match self {
            LinkQueue::Fifo(q) => q.on_timer(cx, link_idle_since),
            LinkQueue::Scheduler(q) => q.on_timer(cx, link_idle_since),
        }
    }

    #[inline]
    fn wake_at(&mut self) -> Option<Time> {
        match self {
            LinkQueue::Fifo(_) => None,
            LinkQueue::Scheduler(q) => q.wake_at(),
        }
    }

    fn state(&self, out: &mut StateSink) {
        match self {
            LinkQueue::Fifo(q) => q.state(out),
            LinkQueue::Scheduler(q) => q.state(out),
        }
    }
}

/// What `[[events]]` change in a queue (`crate::timeline`).
impl LinkQueue {
    /// The link's rate changed; a FIFO tells its AQM through every later `QueueView`.
    pub fn set_link_rate(&mut self, rate_bps: u64) {
        if let LinkQueue::Fifo(q) = self {
            q.set_link_rate(rate_bps);
        }
    }

    /// The AQM of a FIFO, to give to another queue's `reconfigure_aqm`.
    pub fn into_aqm(self) -> Option<Box<dyn super::Aqm>> {
        match self {
            LinkQueue::Fifo(q) => Some(q.into_aqm()),
            LinkQueue::Scheduler(_) => None,
        }
    }

    /// The AQM is replaced by `next` (new parameters, initial state); the packets queued
    /// stay.
    pub fn replace_aqm(&mut self, next: Box<dyn super::Aqm>) {
        if let LinkQueue::Fifo(q) = self {
            q.replace_aqm(next);
        }
    }

    /// The AQM takes `next`'s parameters, keeping its state; false if it cannot.
    pub fn reconfigure_aqm(&mut self, next: Box<dyn super::Aqm>) -> bool {
        match self {
            LinkQueue::Fifo(q) => q.reconfigure_aqm(next),
            LinkQueue::Scheduler(_) => false,
        }
    }
}
