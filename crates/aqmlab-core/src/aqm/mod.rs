//! Queue disciplines and active queue management.
//!
//! Two layers, after the Linux qdiscs:
//! - [`QueueDiscipline`]: what a link holds. It takes packets (`enqueue`) and hands the next
//!   one to send (`dequeue`); it may drop or mark any packet it holds. FQ-CoDel, a scheduler
//!   over many queues, implements this directly.
//! - [`Aqm`]: the small state machine of a single-FIFO algorithm (RED, PI, CoDel, ...). It sees
//!   the queue through a narrow [`QueueView`] and answers with verdicts; [`FifoQueue`] owns the
//!   buffer and carries the verdicts out. No AQM knows about TCP, links or the simulator, which
//!   is what lets the same code sit in front of real traffic.
//!
//! Queue length convention (same for every discipline): the queue holds packets *waiting*;
//! the packet being transmitted has left it (as in ns-2). A limit of N packets therefore means
//! N waiting packets plus one in service, i.e. an M/M/1/K system with K = N + 1.

// Infrastructure
pub mod ewma;
pub mod fifo_queue;
pub mod flow_queues;
pub mod link_queue;
pub mod params;
pub mod per_destination;
pub mod registry;
pub mod resolved;
pub mod state_docs;
#[cfg(test)]
pub(crate) mod test_rig;

// Algorithms, one module each
pub mod ared;
pub mod blue;
pub mod cake;
pub mod cobalt;
pub mod codel;
pub mod droptail;
pub mod dsred;
pub mod dualpi2;
pub mod fq;
pub mod fq_codel;
pub mod fq_pie;
pub mod hybrid_red;
pub mod lpf_oda;
pub mod newque;
pub mod orange;
pub mod pi;
pub mod pi2;
pub mod pie;
pub mod qvared;
pub mod red;
pub mod rem;
pub mod step_marking;

pub use fifo_queue::FifoQueue;
pub use link_queue::LinkQueue;

use crate::metrics::packet_trace::{DropReason, TraceEvent};
use crate::metrics::tap::Taps;
use crate::metrics::QueueStats;
use crate::net::{NodeId, Packet, PacketArena, PacketId};
use crate::sim::{RngStream, Time};

/// The most packets or bytes a queue may hold waiting (excluding the packet in service).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

impl QueueLimit {
    /// Would a packet of `size` bytes overflow a queue currently holding `len_packets` /
    /// `len_bytes`?
    #[inline]
    pub fn overflows(&self, len_packets: u32, len_bytes: u64, size: u32) -> bool {
        match *self {
            QueueLimit::Packets(n) => len_packets >= n,
            QueueLimit::Bytes(b) => len_bytes + size as u64 > b,
        }
    }

    /// The limit in packets, converting a byte limit with `mean_packet_size`.
    pub fn in_packets(&self, mean_packet_size: u32) -> f64 {
        match *self {
            QueueLimit::Packets(n) => n as f64,
            QueueLimit::Bytes(b) => b as f64 / mean_packet_size.max(1) as f64,
        }
    }
}

/// Why a packet was dropped, for the counters the papers report separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropKind {
    /// A probabilistic or algorithmic drop before the buffer is full (RED's early drop).
    Early,
    /// The buffer is full, or the algorithm's hard rule (RED's avg >= max_th) applies.
    Forced,
}

/// What a queue looks like to an AQM at the moment it decides.
#[derive(Debug, Clone, Copy)]
pub struct QueueView {
    pub now: Time,
    /// Packets waiting (excluding the one in service; excluding the arriving packet).
    pub len_packets: u32,
    pub len_bytes: u64,
    pub limit: QueueLimit,
    pub link_rate_bps: u64,
    /// Since when the link has had nothing to send, if it is idle now.
    pub idle_since: Option<Time>,
    /// In [`Aqm::on_timer`] only: when the packet now at the head of the queue was enqueued
    /// (None if the queue is empty), whose age is the delay a periodic controller samples
    /// (PI2: RFC 9332 A.1's `cq.time()`). None in the per-packet calls, where it would cost
    /// one more packet lookup per packet for every algorithm.
    pub head_enqueued_at: Option<Time>,
}

impl QueueView {
    /// Would `size` more bytes overflow the buffer?
    #[inline]
    pub fn is_full_for(&self, size: u32) -> bool {
        self.limit.overflows(self.len_packets, self.len_bytes, size)
    }
}

/// An AQM's answer to an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrivalVerdict {
    Enqueue,
    /// CE-mark the arriving packet and enqueue it. Only for ECT packets; a non-ECT packet
    /// given this verdict is dropped early instead (and a debug build panics).
    Mark,
    Drop(DropKind),
    /// Drop the packet at the head of the queue, then enqueue the arrival (NEWQUE, drop-front).
    DropFront(DropKind),
    /// CE-mark the first queued ECT packet not yet marked, then enqueue the arrival (NEWQUE's
    /// front marking). If no queued packet can be marked, the arrival is enqueued unmarked.
    MarkFront,
}

impl ArrivalVerdict {
    /// The congestion signal for this packet: a mark if the AQM has ECN on and the packet is
    /// ECN-capable, otherwise an early drop.
    #[inline]
    pub fn signal(ecn: bool, pkt: &Packet) -> ArrivalVerdict {
        if ecn && pkt.ecn.ect {
            ArrivalVerdict::Mark
        } else {
            ArrivalVerdict::Drop(DropKind::Early)
        }
    }
}

/// An AQM's answer to the packet at the head of the queue, about to be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepartureVerdict {
    Send,
    /// CE-mark it, then send it.
    Mark,
    /// Drop it (early); the queue then offers the next packet.
    Drop,
}

pub use crate::sim::StateSink;

/// A single-FIFO active queue management algorithm as a small state machine.
/// `Any`: an algorithm recognises a configuration built for it in [`Aqm::reconfigure`].
pub trait Aqm: Send + std::any::Any {
    /// A packet arrives; `q` is the queue before it is added.
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict;

    /// The head packet is about to be sent; `q` is the queue after it was removed.
    fn on_departure(
        &mut self,
        _q: &QueueView,
        _pkt: &Packet,
        _rng: &mut RngStream,
    ) -> DepartureVerdict {
        DepartureVerdict::Send
    }

    /// The link finished sending and found nothing more to send.
    fn on_link_idle(&mut self, _now: Time) {}

    /// Period of the algorithm's timer, if it has one (PI's 1/170 s, REM's 2 ms, ...).
    fn timer_interval(&self) -> Option<Time> {
        None
    }

    fn on_timer(&mut self, _q: &QueueView, _rng: &mut RngStream) {}

    /// Reports internal state (avg, p, price, ...) by name for the time series.
    fn state(&self, _out: &mut StateSink) {}

    /// Takes the parameters of `next`, the same algorithm built from this queue's parameters
    /// with an event's changes (`[[events]]` `set`), and keeps its running state (average,
    /// probability, counters): the parameters change, the queue's history does not. False
    /// for an algorithm that does not support changes during a run (the default) or a
    /// `next` of another algorithm.
    fn reconfigure(&mut self, _next: Box<dyn Aqm>) -> bool {
        false
    }
}

/// `next` as the concrete algorithm `T`, if it is one (for [`Aqm::reconfigure`]).
pub fn downcast_aqm<T: Aqm>(next: Box<dyn Aqm>) -> Option<Box<T>> {
    let any: Box<dyn std::any::Any> = next;
    any.downcast::<T>().ok()
}

/// [`Aqm::reconfigure`] for most algorithms: `take` the parameters of `next` as the concrete
/// algorithm `T` and true, or false for a `next` of another algorithm.
pub fn reconfigure_from<T: Aqm>(next: Box<dyn Aqm>, take: impl FnOnce(Box<T>)) -> bool {
    downcast_aqm::<T>(next).map(take).is_some()
}

/// What every discipline gets to act on the network: the clock, the packets, its own random
/// stream, its counters, and where to put packets it removes from the network.
pub struct QueueCtx<'a> {
    pub now: Time,
    pub packets: &'a mut PacketArena,
    pub rng: &'a mut RngStream,
    pub stats: &'a mut QueueStats,
    /// Packets this discipline dropped; the simulator charges them to their flows and frees
    /// them.
    pub dropped: &'a mut Vec<PacketId>,
    /// The run's captures and packet trace, if it has any (`metrics/tap.rs`): drops and marks
    /// are logged there for the link's step.
    pub tap: Option<&'a mut Taps>,
}

impl QueueCtx<'_> {
    #[inline]
    pub fn drop_packet(&mut self, id: PacketId, kind: DropKind) {
        let why = match kind {
            DropKind::Early => {
                self.stats.on_early_drop();
                DropReason::Early
            }
            DropKind::Forced => {
                self.stats.on_forced_drop();
                DropReason::Forced
            }
        };
        if let Some(t) = self.tap.as_deref_mut() {
            log_step(t, TraceEvent::Drop, why, id);
        }
        self.dropped.push(id);
    }

    #[inline]
    pub fn mark(&mut self, id: PacketId) {
        let p = self.packets.get_mut(id);
        debug_assert!(p.ecn.ect, "marking a packet that is not ECN-capable");
        p.ecn.ce = true;
        self.stats.on_mark();
        if let Some(t) = self.tap.as_deref_mut() {
            log_step(t, TraceEvent::Mark, DropReason::None, id);
        }
    }
}

/// A drop or mark logged for the link's trace: out of line, so that a discipline's drop and
/// mark paths, inlined into its enqueue and dequeue, carry no vector growth of their own in a
/// run without taps (issue 36, item 4).
#[cold]
#[inline(never)]
fn log_step(t: &mut Taps, ev: TraceEvent, why: DropReason, id: PacketId) {
    t.step_log.push((ev, why, id));
}

/// What a link holds: takes packets in, gives the next one to send.
pub trait QueueDiscipline: Send {
    /// Offers an arriving packet. The discipline takes it or drops it through `cx`; it may
    /// also drop or mark packets it already holds.
    fn enqueue(&mut self, pkt: PacketId, cx: &mut QueueCtx, link_idle_since: Option<Time>);

    /// The next packet to transmit, if any. Packets dropped at dequeue go through `cx`.
    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<PacketId>;

    /// The next packet for destination `dst` from a discipline with a queue per destination
    /// (`per_destination.rs`); any other has none.
    fn dequeue_for(&mut self, _dst: NodeId, _cx: &mut QueueCtx) -> Option<PacketId> {
        None
    }

    /// Packets waiting for destination `dst` in a discipline with a queue per destination
    /// (0 in any other).
    fn len_for(&self, _dst: NodeId) -> u32 {
        0
    }

    fn len_packets(&self) -> u32;
    fn len_bytes(&self) -> u64;

    /// The link became idle at `now`.
    fn on_link_idle(&mut self, _now: Time) {}

    fn timer_interval(&self) -> Option<Time> {
        None
    }
    fn on_timer(&mut self, _cx: &mut QueueCtx, _link_idle_since: Option<Time>) {}

    /// Asked after a `dequeue` that gave nothing: when the discipline holds packets it does
    /// not release yet (a shaper's next departure time), the time the link must ask again;
    /// None to wait for the next arrival, as the link always does. A time it has already
    /// given and that has not come yet is not given again. Linux's
    /// `qdisc_watchdog_schedule_ns` (net/sched/sch_api.c), which a qdisc arms in its dequeue.
    fn wake_at(&mut self) -> Option<Time> {
        None
    }

    /// Reports internal state by name for the time series.
    fn state(&self, _out: &mut StateSink) {}
}
