//! Traffic: one-way TCP agents in ns-2 semantics and UDP sources, and the narrow context
//! through which every agent acts on the simulation (send a packet, arm a timer, count).

pub mod agent;
pub mod ideal_fct;
pub mod probe;
pub mod size_distribution;
pub mod tcp;
pub mod udp;
pub mod workload;

pub use agent::Agent;

use crate::metrics::FlowStats;
use crate::net::{AgentId, FlowId, NodeId, Packet, PacketArena, PacketId, PacketKind};
use crate::sim::{EventKind, EventQueue, LazyTimer, Time};

/// Where an agent sits and whom it talks to.
#[derive(Debug, Clone, Copy)]
pub struct Endpoint {
    pub flow: FlowId,
    pub agent: AgentId,
    pub node: NodeId,
    pub peer_node: NodeId,
    pub peer_agent: AgentId,
    /// The DSCP of what it sends (a sender's, from its flow; a receiver's ACKs carry 0).
    pub dscp: u8,
}

impl Endpoint {
    /// A packet from this endpoint to its peer.
    pub fn packet(&self, kind: PacketKind, size: u32) -> Packet {
        let mut p = Packet::new(
            kind,
            self.flow,
            self.node,
            self.peer_node,
            self.peer_agent,
            size,
        );
        p.dscp = self.dscp;
        p
    }
}

/// What an agent may do while handling an event.
pub struct AgentCtx<'a> {
    pub now: Time,
    pub agent: AgentId,
    pub events: &'a mut EventQueue,
    pub packets: &'a mut PacketArena,
    pub stats: &'a mut FlowStats,
    pub(crate) outbox: &'a mut Vec<PacketId>,
}

impl AgentCtx<'_> {
    /// Hands a packet to the agent's node for forwarding; stamps its send time.
    #[inline]
    pub fn send(&mut self, mut pkt: Packet) {
        pkt.sent_at = self.now;
        let id = self.packets.alloc(pkt);
        self.outbox.push(id);
    }

    /// Returns a received packet to the arena.
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        self.packets.free(id);
    }

    /// Arms one of this agent's timers (numbered by the agent) to fire at `at`.
    #[inline]
    pub fn set_timer(&mut self, timer: &mut LazyTimer, which: u8, at: Time) {
        timer.set(
            self.events,
            at,
            EventKind::AgentTimer {
                agent: self.agent,
                timer: which,
            },
        );
    }

    /// To be called with each fired timer event: true if `timer` really expired.
    #[inline]
    pub fn timer_expired(&mut self, timer: &mut LazyTimer, which: u8) -> bool {
        timer.on_event(
            self.events,
            EventKind::AgentTimer {
                agent: self.agent,
                timer: which,
            },
        )
    }
}
