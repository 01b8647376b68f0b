//! Test-only: drives a queue discipline directly (enqueue and dequeue at chosen times) with
//! the arena, random stream, counters and drop list a link would give it.

use super::{QueueCtx, QueueDiscipline};
use crate::metrics::QueueStats;
use crate::net::{Packet, PacketArena, PacketId};
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
            rng: RngStream::new(1, StreamKind::Queue, 0),
            stats: QueueStats::default(),
            dropped: Vec::new(),
        }
    }

    /// Offers an already allocated packet at `now`.
    pub fn enqueue_id(&mut self, now: Time, id: PacketId) {
        let mut cx = QueueCtx {
            now,
            packets: &mut self.arena,
            rng: &mut self.rng,
            stats: &mut self.stats,
            dropped: &mut self.dropped,
        };
        self.q.enqueue(id, &mut cx, None);
    }

    /// Allocates `pkt` and offers it at `now`; returns its id.
    pub fn enqueue(&mut self, now: Time, pkt: Packet) -> PacketId {
        let id = self.arena.alloc(pkt);
        self.enqueue_id(now, id);
        id
    }

    pub fn dequeue(&mut self, now: Time) -> Option<PacketId> {
        let mut cx = QueueCtx {
            now,
            packets: &mut self.arena,
            rng: &mut self.rng,
            stats: &mut self.stats,
            dropped: &mut self.dropped,
        };
        self.q.dequeue(&mut cx)
    }
}
