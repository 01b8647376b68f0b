//! Test-only: the simulation around one TCP agent driven directly (its clock and timers, the
//! packet arena, its flow counters and what it sends), for unit tests that feed a sender or a
//! sink scripted packets. The agent itself stays with the test, which lends it this context.

use crate::metrics::FlowStats;
use crate::net::{Packet, PacketArena, PacketId};
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
}
