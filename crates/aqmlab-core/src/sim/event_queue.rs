//! The future-event list: a binary heap ordered by (time, insertion sequence).
//!
//! Ties in time are broken by the order in which events were scheduled (as SimPy and htsim
//! do), which makes a run a pure function of (scenario, seed). Events are small `Copy` values
//! that name the entity they concern by index, so scheduling never allocates once the heap has
//! grown to its working size.

use super::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
}

#[derive(Debug, Clone, Copy)]
pub struct Event {
    pub time: Time,
    pub seq: u64,
    pub kind: EventKind,
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
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Event>,
    next_seq: u64,
    now: Time,
    processed: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(n: usize) -> Self {
        Self {
            heap: BinaryHeap::with_capacity(n),
            ..Self::default()
        }
    }

    /// The time of the event being processed (or of the last one).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules `kind` at absolute time `at`. Scheduling in the past is a logic error in the
    /// caller; it is clamped to `now` so time never runs backwards.
    #[inline]
    pub fn schedule(&mut self, at: Time, kind: EventKind) {
        debug_assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        let time = at.max(self.now);
        self.heap.push(Event {
            time,
            seq: self.next_seq,
            kind,
        });
        self.next_seq += 1;
    }

    /// Removes and returns the earliest event if it is not later than `until`, advancing the
    /// clock to its time.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<Event> {
        match self.heap.peek() {
            Some(e) if e.time <= until => {
                let e = self.heap.pop().expect("peeked");
                self.now = e.time;
                self.processed += 1;
                Some(e)
            }
            _ => None,
        }
    }

    /// Sets the clock at the end of a run, after the last event not later than `t`.
    pub fn advance_to(&mut self, t: Time) {
        self.now = self.now.max(t);
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Number of events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(20, EventKind::Sample);
        q.schedule(10, EventKind::LinkTxDone(1));
        q.schedule(10, EventKind::LinkTxDone(2));
        q.schedule(5, EventKind::WarmupEnd);
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(u64::MAX))
            .map(|e| e.kind)
            .collect();
        assert_eq!(
            order,
            vec![
                EventKind::WarmupEnd,
                EventKind::LinkTxDone(1),
                EventKind::LinkTxDone(2),
                EventKind::Sample
            ]
        );
        assert_eq!(q.now(), 20);
        assert_eq!(q.processed(), 4);
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q = EventQueue::new();
        q.schedule(10, EventKind::Sample);
        assert!(q.pop_until(9).is_none());
        assert!(q.pop_until(10).is_some());
    }
}
