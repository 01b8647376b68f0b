//! Test-only: drives a queue discipline directly (enqueue and dequeue at chosen times) with
//! the arena, random stream, counters and drop list a link would give it.

use super::params::QueueEnv;
use super::{QueueCtx, QueueDiscipline, QueueLimit, QueueView};
use crate::metrics::QueueStats;
use crate::net::{Packet, PacketArena, PacketId, PacketKind};
use crate::sim::{RngStream, StreamKind, Time};

pub struct QueueRig<Q: QueueDiscipline> {
    pub q: Q,
    pub arena: PacketArena,
    pub rng: RngStream,
    pub stats: QueueStats,
    pub dropped: Vec<PacketId>,
}

impl<Q: QueueDiscipline> QueueRig<Q> {
    pub fn new(q: Q) -> Self {
        QueueRig {
            q,
            arena: PacketArena::new(),
            rng: rng(),
            stats: QueueStats::default(),
            dropped: Vec::new(),
        }
    }

    /// Lets the discipline act at `now` with the rig's arena, random stream, counters and
    /// drop list, as a link would.
    pub fn with_ctx<R>(&mut self, now: Time, f: impl FnOnce(&mut Q, &mut QueueCtx) -> R) -> R {
        let mut cx = QueueCtx {
            now,
            packets: &mut self.arena,
            rng: &mut self.rng,
            stats: &mut self.stats,
            dropped: &mut self.dropped,
            tap: None,
        };
        f(&mut self.q, &mut cx)
    }

    /// Offers an already allocated packet at `now`.
    pub fn enqueue_id(&mut self, now: Time, id: PacketId) {
        self.with_ctx(now, |q, cx| q.enqueue(id, cx, None));
    }

    /// Allocates `pkt` and offers it at `now`; returns its id.
    pub fn enqueue(&mut self, now: Time, pkt: Packet) -> PacketId {
        let id = self.arena.alloc(pkt);
        self.enqueue_id(now, id);
        id
    }

    pub fn dequeue(&mut self, now: Time) -> Option<PacketId> {
        self.with_ctx(now, |q, cx| q.dequeue(cx))
    }
}

/// The random stream a queue gets in the unit tests (the one a [`QueueRig`] holds).
pub fn rng() -> RngStream {
    RngStream::new(1, StreamKind::Queue, 0)
}

/// A 1000-byte packet of `kind`, flow 0, from node 0 to node 1: what the unit tests offer
/// (1000 bytes is also what [`view`] counts a waiting packet as).
pub fn packet(kind: PacketKind) -> Packet {
    Packet::new(kind, 0, 0, 1, 0, 1000)
}

/// The link an AQM is built for in its unit tests: 10 Mb/s without propagation delay, a
/// limit of `limit` packets (the link of [`view`]).
pub fn env(limit: u32) -> QueueEnv {
    QueueEnv {
        link_rate_bps: 10_000_000,
        link_delay: 0,
        limit: QueueLimit::Packets(limit),
    }
}

/// What an AQM sees in its unit tests: `len` packets of 1000 bytes waiting, a limit of
/// `limit` packets, a busy 10 Mb/s link.
pub fn view(now: Time, len: u32, limit: u32) -> QueueView {
    view_on_link(now, len, limit, 10_000_000)
}

/// [`view`] on a link of `rate_bps`.
pub fn view_on_link(now: Time, len: u32, limit: u32, rate_bps: u64) -> QueueView {
    QueueView {
        now,
        len_packets: len,
        len_bytes: len as u64 * 1000,
        limit: QueueLimit::Packets(limit),
        link_rate_bps: rate_bps,
        idle_since: None,
        head_enqueued_at: None,
    }
}
