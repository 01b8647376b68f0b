//! Test-only: the simulation around one TCP agent driven directly (its clock and timers, the
//! packet arena, its flow counters and what it sends), for unit tests that feed a sender or a
//! sink scripted packets. The agent itself stays with the test, which lends it this context.

use crate::metrics::FlowStats;
use crate::net::packet::MAX_SACK_BLOCKS;
use crate::net::{Packet, PacketArena, PacketId, PacketKind, SackBlock};
use crate::sim::{EventKind, EventQueue, Time};
use crate::transport::{AgentCtx, Endpoint};

pub struct AgentRig {
    pub events: EventQueue,
    pub packets: PacketArena,
    pub stats: FlowStats,
    pub outbox: Vec<PacketId>,
    pub ep: Endpoint,
}

impl AgentRig {
    /// A sender's place: flow 0, agent 0 on node 0, its peer agent 1 on node 1.
    pub const SENDER: Endpoint = Endpoint {
        flow: 0,
        agent: 0,
        node: 0,
        peer_node: 1,
        peer_agent: 1,
        dscp: 0,
    };

    pub fn new(ep: Endpoint) -> Self {
        AgentRig {
            events: EventQueue::new(),
            packets: PacketArena::new(),
            stats: FlowStats::default(),
            outbox: vec![],
            ep,
        }
    }

    /// What the agent acts through at `now`.
    pub fn cx(&mut self, now: Time) -> AgentCtx<'_> {
        AgentCtx {
            now,
            agent: self.ep.agent,
            events: &mut self.events,
            packets: &mut self.packets,
            stats: &mut self.stats,
            outbox: &mut self.outbox,
        }
    }

    /// Takes what the agent sent, as copies (the arena's slots are freed).
    pub fn take_sent(&mut self) -> Vec<Packet> {
        let mut out = vec![];
        for id in self.outbox.drain(..) {
            out.push(self.packets.get(id).clone());
            self.packets.free(id);
        }
        out
    }

    /// Fires the agent's timers due up to `t` through `fire` (given the context and the timer's
    /// number), moves the clock to `t`, and returns what was sent.
    pub fn run_timers_until(
        &mut self,
        t: Time,
        mut fire: impl FnMut(&mut AgentCtx, u8),
    ) -> Vec<Packet> {
        while let Some(e) = self.events.pop_until(t) {
            if let EventKind::AgentTimer { timer, .. } = e.kind {
                fire(&mut self.cx(e.time), timer);
            }
        }
        self.events.advance_to(t);
        self.take_sent()
    }

    /// Hands `p` at `t` to `receive` (the agent's, given the context and the packet); returns
    /// what the agent sent.
    pub fn deliver(
        &mut self,
        t: Time,
        p: Packet,
        receive: impl FnOnce(&mut AgentCtx, PacketId),
    ) -> Vec<Packet> {
        let id = self.packets.alloc(p);
        receive(&mut self.cx(t), id);
        self.take_sent()
    }

    /// A 40-byte ACK from the peer of everything up to `cum` (-1: nothing), with SACK blocks
    /// [start, end) (at most `MAX_SACK_BLOCKS`); the caller sets what else it carries.
    pub fn ack_packet(cum: i64, sack: &[(i64, i64)]) -> Packet {
        let mut p = Packet::new(PacketKind::TcpAck, 0, 1, 0, 0, 40);
        p.ack = cum;
        for (i, &(start, end)) in sack.iter().enumerate().take(MAX_SACK_BLOCKS) {
            p.sack[i] = SackBlock { start, end };
            p.sack_len = i as u8 + 1;
        }
        p
    }
}

/// The sequence numbers of `ps`, in order.
pub fn seqs(ps: &[Packet]) -> Vec<i64> {
    ps.iter().map(|p| p.seq).collect()
}
