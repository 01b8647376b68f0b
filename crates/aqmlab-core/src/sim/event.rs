//! An event of the simulation: what happens, and when, with the sequence number that breaks
//! ties in time by scheduling order.

use super::time::Time;
use std::cmp::Ordering;

/// What happens when an event fires. Entities are named by their index in the simulator's
/// arenas (links, agents).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A link finished serializing the packet it was sending.
    LinkTxDone(u32),
    /// The packet at the head of a link's propagation pipe reaches the far node.
    LinkDeliver(u32),
    /// The periodic timer of the queue discipline on a link (PI, REM, ARED, PIE...).
    QueueTimer(u32),
    /// The time a link's discipline asked to be dequeued again (`QueueDiscipline::wake_at`:
    /// a shaper's next departure).
    LinkWake(u32),
    /// An agent starts (a flow's start time).
    AgentStart(u32),
    /// An agent stops sending (a flow's stop time).
    AgentStop(u32),
    /// An agent's timer number `timer` fires (retransmission, delayed ACK, next UDP packet).
    AgentTimer { agent: u32, timer: u8 },
    /// Record one row of every sampled time series.
    Sample,
    /// End of the warm-up period: measurement counters restart.
    WarmupEnd,
    /// Action number `i` of the scenario's `[[events]]` (`crate::timeline`).
    Timeline(u32),
}

#[derive(Debug, Clone, Copy)]
pub struct Event {
    pub time: Time,
    pub seq: u64,
    pub kind: EventKind,
}

impl Event {
    /// The (time, seq) order as one integer: comparing two keys is a branch-free 128-bit
    /// compare instead of a lexicographic tuple compare.
    #[inline(always)]
    pub(crate) fn key(&self) -> u128 {
        ((self.time as u128) << 64) | self.seq as u128
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    /// Reversed (as for a max-heap): the earliest (time, seq) is the greatest.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
    }
}
