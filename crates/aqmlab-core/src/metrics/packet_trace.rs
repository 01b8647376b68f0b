//! The per-packet event trace of the links a scenario names in `trace` (ns-2's trace-all
//! lines `+ - d`, with ECN marks and the reason of each drop): columns, bounded in rows.
//!
//! What an event means, after ns-2's queue monitors (`trace.cc`, `queue-monitor.cc`):
//! - `enqueue`: a packet arrives at the link's queue (ns-2's `+`), including a packet the
//!   discipline then drops, so that enqueues - queue drops = dequeues + what remains;
//! - `dequeue`: its transmission starts (ns-2's `-`);
//! - `drop`, with a reason: `early` (the AQM's choice), `forced` (the buffer was full, or the
//!   algorithm's hard rule such as RED's avg >= max_th: the queue table's `forced_drops`),
//!   `link_loss` (lost on the wire after transmission, the queue table's `link_losses`),
//!   `link_down` (arrived while the link was down: dropped before the queue, with no
//!   `enqueue` row; the queue table's `down_drops`);
//! - `mark`: a CE mark (on arrival, at the head, or on a queued packet).
//!
//! `queue_packets` / `queue_bytes`: the queue's length (waiting packets, as the queue table
//! counts it) once the link has handled the event's arrival, transmission start or timer.
//! Several events of one such step (CoDel dropping at the head then sending) share the length
//! at its end. Memory: 40 bytes a row; recording stops at `trace_max_rows` (the result says
//! the trace was cut).

use crate::net::{FlowId, LinkId, Packet, PacketKind};
use crate::sim::Time;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum TraceEvent {
    Enqueue = 0,
    Dequeue = 1,
    Drop = 2,
    Mark = 3,
}

pub const TRACE_EVENTS: [&str; 4] = ["enqueue", "dequeue", "drop", "mark"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum DropReason {
    None = 0,
    Early = 1,
    Forced = 2,
    LinkLoss = 3,
    /// Arrived at a link that an event had taken down (`[[events]]`, `state = "down"`).
    LinkDown = 4,
}

/// The `reason` column's values ("" for events that are not drops).
pub const DROP_REASONS: [&str; 5] = ["", "early", "forced", "link_loss", "link_down"];

pub const PACKET_KINDS: [&str; 3] = ["tcp_data", "tcp_ack", "udp"];

/// The trace's rows as columns.
#[derive(Debug, Clone, Default)]
pub struct PacketTrace {
    pub time: Vec<Time>,
    pub link: Vec<LinkId>,
    pub event: Vec<u8>,
    pub reason: Vec<u8>,
    pub flow: Vec<FlowId>,
    pub kind: Vec<u8>,
    /// The packet's sequence number (data; the SYN is -1) or cumulative ACK (ACKs), in
    /// packets as the flows count them.
    pub seq: Vec<i64>,
    pub size: Vec<u32>,
    pub queue_packets: Vec<u32>,
    pub queue_bytes: Vec<u64>,
    /// Rows whose queue length is not yet known start here.
    unsettled: usize,
    pub max_rows: usize,
    /// Events not recorded because the trace was full.
    pub rows_dropped: u64,
}

impl PacketTrace {
    pub fn new(max_rows: usize) -> Self {
        PacketTrace {
            max_rows,
            ..Default::default()
        }
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    #[inline]
    pub fn push(&mut self, now: Time, link: LinkId, ev: TraceEvent, why: DropReason, p: &Packet) {
        if self.time.len() >= self.max_rows {
            self.rows_dropped += 1;
            return;
        }
        self.time.push(now);
        self.link.push(link);
        self.event.push(ev as u8);
        self.reason.push(why as u8);
        self.flow.push(p.flow);
        self.kind.push(match p.kind {
            PacketKind::TcpData => 0,
            PacketKind::TcpAck => 1,
            PacketKind::Udp => 2,
        });
        self.seq.push(if p.kind == PacketKind::TcpAck {
            p.ack
        } else {
            p.seq
        });
        self.size.push(p.size);
    }

    /// Gives the rows recorded since the last call the queue's length now.
    #[inline]
    pub fn settle(&mut self, packets: u32, bytes: u64) {
        let n = self.time.len();
        if self.unsettled < n {
            self.queue_packets.resize(n, packets);
            self.queue_bytes.resize(n, bytes);
            self.unsettled = n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_take_the_length_at_the_end_of_their_step_and_stop_at_the_cap() {
        let mut t = PacketTrace::new(3);
        let p = Packet::new(PacketKind::TcpData, 4, 0, 1, 1, 1040);
        t.push(10, 2, TraceEvent::Enqueue, DropReason::None, &p);
        t.settle(1, 1040);
        t.push(20, 2, TraceEvent::Drop, DropReason::Early, &p);
        t.push(20, 2, TraceEvent::Dequeue, DropReason::None, &p);
        t.settle(0, 0);
        t.push(30, 2, TraceEvent::Enqueue, DropReason::None, &p);
        t.settle(1, 1040);
        assert_eq!(t.len(), 3);
        assert_eq!(t.rows_dropped, 1);
        assert_eq!(t.queue_packets, vec![1, 0, 0]);
        assert_eq!(t.queue_bytes, vec![1040, 0, 0]);
        assert_eq!(t.flow, vec![4, 4, 4]);
    }
}
