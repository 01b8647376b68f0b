//! A FIFO buffer driven by an [`Aqm`]: the place where verdicts become drops, marks and
//! enqueues, so every single-queue algorithm shares one implementation of the buffer and of
//! the hard limit.

use super::{
    Aqm, ArrivalVerdict, DepartureVerdict, DropKind, QueueCtx, QueueDiscipline, QueueLimit,
    QueueView, StateSink,
};
use crate::net::PacketId;
use crate::sim::Time;
use std::collections::VecDeque;

pub struct FifoQueue {
    buf: VecDeque<PacketId>,
    bytes: u64,
    limit: QueueLimit,
    link_rate_bps: u64,
    aqm: Box<dyn Aqm>,
}

impl FifoQueue {
    pub fn new(aqm: Box<dyn Aqm>, limit: QueueLimit, link_rate_bps: u64) -> Self {
        FifoQueue {
            // Grown as packets arrive, not to the limit up front: most of a large network's
            // queues (access links) never hold more than a few packets, and 4 KB each for a
            // limit of 1000 was most of a dumbbell flow's memory.
            buf: VecDeque::new(),
            bytes: 0,
            limit,
            link_rate_bps,
            aqm,
        }
    }

    pub fn set_link_rate(&mut self, rate_bps: u64) {
        self.link_rate_bps = rate_bps;
    }

    pub fn into_aqm(self) -> Box<dyn Aqm> {
        self.aqm
    }

    pub fn replace_aqm(&mut self, next: Box<dyn Aqm>) {
        self.aqm = next;
    }

    /// See [`Aqm::reconfigure`].
    pub fn reconfigure_aqm(&mut self, next: Box<dyn Aqm>) -> bool {
        self.aqm.reconfigure(next)
    }

    fn view(&self, now: Time, idle_since: Option<Time>) -> QueueView {
        QueueView {
            now,
            len_packets: self.buf.len() as u32,
            len_bytes: self.bytes,
            limit: self.limit,
            link_rate_bps: self.link_rate_bps,
            idle_since,
            head_enqueued_at: None,
        }
    }

    fn push(&mut self, id: PacketId, cx: &mut QueueCtx) {
        let p = cx.packets.get_mut(id);
        p.enqueued_at = cx.now;
        self.bytes += p.size as u64;
        self.buf.push_back(id);
    }

    fn pop_front(&mut self, cx: &QueueCtx) -> Option<PacketId> {
        let id = self.buf.pop_front()?;
        self.bytes -= cx.packets.get(id).size as u64;
        Some(id)
    }

    /// Whether a packet of `size` bytes would overflow the buffer as it is now.
    #[inline]
    fn overflows_with(&self, size: u32) -> bool {
        self.limit
            .overflows(self.buf.len() as u32, self.bytes, size)
    }

    /// Takes the arrival if it fits; otherwise a forced (tail) drop.
    fn admit(&mut self, id: PacketId, cx: &mut QueueCtx) {
        if self.overflows_with(cx.packets.get(id).size) {
            cx.drop_packet(id, DropKind::Forced);
        } else {
            self.push(id, cx);
        }
    }
}

impl QueueDiscipline for FifoQueue {
    // Always: the simulator's two event loops (with and without taps, events and probes,
    // issue 36 item 4) both call it, and inlined once it was, when there was one loop.
    #[inline(always)]
    fn enqueue(&mut self, id: PacketId, cx: &mut QueueCtx, idle_since: Option<Time>) {
        let view = self.view(cx.now, idle_since);
        let verdict = self.aqm.on_arrival(&view, cx.packets.get(id), cx.rng);
        match verdict {
            ArrivalVerdict::Enqueue => self.admit(id, cx),
            ArrivalVerdict::Mark => {
                if cx.packets.get(id).ecn.ect {
                    // A full buffer still drops: a mark does not make room.
                    if self.overflows_with(cx.packets.get(id).size) {
                        cx.drop_packet(id, DropKind::Forced);
                    } else {
                        cx.mark(id);
                        self.push(id, cx);
                    }
                } else {
                    debug_assert!(false, "AQM asked to mark a packet that is not ECN-capable");
                    cx.drop_packet(id, DropKind::Early);
                }
            }
            ArrivalVerdict::Drop(kind) => cx.drop_packet(id, kind),
            ArrivalVerdict::DropFront(kind) => {
                let size = cx.packets.get(id).size;
                // Drop from the head until the arrival fits (one packet in packet mode).
                while let Some(front) = self.pop_front(cx) {
                    cx.drop_packet(front, kind);
                    if !self.overflows_with(size) {
                        break;
                    }
                }
                self.admit(id, cx);
            }
            ArrivalVerdict::MarkFront => {
                let target = self.buf.iter().copied().find(|&q| {
                    let e = cx.packets.get(q).ecn;
                    e.ect && !e.ce
                });
                if let Some(t) = target {
                    cx.mark(t);
                }
                self.admit(id, cx);
            }
        }
    }

    // Always: the simulator's two event loops (with and without taps, events and probes,
    // issue 36 item 4) both call it, and inlined once it was, when there was one loop.
    #[inline(always)]
    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<PacketId> {
        while let Some(id) = self.pop_front(cx) {
            let view = self.view(cx.now, None);
            match self.aqm.on_departure(&view, cx.packets.get(id), cx.rng) {
                DepartureVerdict::Send => return Some(id),
                DepartureVerdict::Mark => {
                    if cx.packets.get(id).ecn.ect {
                        cx.mark(id);
                    }
                    return Some(id);
                }
                DepartureVerdict::Drop => cx.drop_packet(id, DropKind::Early),
            }
        }
        None
    }

    fn len_packets(&self) -> u32 {
        self.buf.len() as u32
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn on_link_idle(&mut self, now: Time) {
        self.aqm.on_link_idle(now);
    }

    fn timer_interval(&self) -> Option<Time> {
        self.aqm.timer_interval()
    }

    fn on_timer(&mut self, cx: &mut QueueCtx, idle_since: Option<Time>) {
        let view = QueueView {
            head_enqueued_at: self.buf.front().map(|&id| cx.packets.get(id).enqueued_at),
            ..self.view(cx.now, idle_since)
        };
        self.aqm.on_timer(&view, cx.rng);
    }

    fn state(&self, out: &mut StateSink) {
        self.aqm.state(out);
    }
}
