//! The future-event list: a 4-ary min-heap ordered by (time, insertion sequence).
//!
//! Ties in time are broken by the order in which events were scheduled (as SimPy and htsim
//! do), which makes a run a pure function of (scenario, seed). Events are small `Copy` values
//! that name the entity they concern by index, so scheduling never allocates once the heap has
//! grown to its working size.

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

impl Event {
    /// The (time, seq) order as one integer: comparing two keys is a branch-free 128-bit
    /// compare instead of a lexicographic tuple compare.
    #[inline(always)]
    fn key(&self) -> u128 {
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

/// Children per node of the heap. A 4-ary heap is half as deep as a binary one, so a pop
/// moves half as many entries; the four children of a node are adjacent in memory.
const ARITY: usize = 4;

#[derive(Debug, Default)]
pub struct EventQueue {
    /// A min-heap on (time, seq), `ARITY` children per node: the children of `i` are
    /// `ARITY * i + 1 ..= ARITY * i + ARITY`. Since `seq` is unique, the pop order is fully
    /// determined by (time, seq), whatever the heap's shape.
    heap: Vec<Event>,
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
            heap: Vec::with_capacity(n),
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
        let e = Event {
            time,
            seq: self.next_seq,
            kind,
        };
        self.next_seq += 1;
        let i = self.heap.len();
        self.heap.push(e);
        self.sift_up(i, e);
    }

    /// Moves the hole at `i` up until `e` fits, then puts `e` there.
    #[inline(always)]
    fn sift_up(&mut self, mut i: usize, e: Event) {
        let k = e.key();
        let heap = &mut self.heap[..];
        while i > 0 {
            let p = (i - 1) / ARITY;
            let pe = heap[p];
            if pe.key() <= k {
                break;
            }
            heap[i] = pe;
            i = p;
        }
        heap[i] = e;
    }

    /// Removes the earliest event (the heap is not empty).
    #[inline]
    // The children of a node are found by index arithmetic (ARITY * i + 1 ..): this is the
    // loop the 2026-11-22 optimization round measured (BENCHMARKS.md); rewriting it as
    // iterators would need that benchmark again.
    #[allow(clippy::needless_range_loop)]
    fn pop_min(&mut self) -> Event {
        let top = self.heap[0];
        let last = self.heap.pop().expect("pop_min on an empty heap");
        let n = self.heap.len();
        if n == 0 {
            return top;
        }
        // Floyd's bottom-up deletion: move the hole at the root down along the smallest
        // children to a leaf, then sift the former last entry up from there. The last entry
        // is usually late, so it rarely climbs far.
        let heap = &mut self.heap[..];
        let mut i = 0;
        loop {
            let c = ARITY * i + 1;
            if c >= n {
                break;
            }
            let mut m = c;
            let mut mk = heap[c].key();
            if c + ARITY <= n {
                for j in c + 1..c + ARITY {
                    let jk = heap[j].key();
                    if jk < mk {
                        m = j;
                        mk = jk;
                    }
                }
            } else {
                for j in c + 1..n {
                    let jk = heap[j].key();
                    if jk < mk {
                        m = j;
                        mk = jk;
                    }
                }
            }
            heap[i] = heap[m];
            i = m;
        }
        self.sift_up(i, last);
        top
    }

    /// Removes and returns the earliest event if it is not later than `until`, advancing the
    /// clock to its time.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<Event> {
        match self.heap.first() {
            Some(e) if e.time <= until => {
                let e = self.pop_min();
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
    fn matches_a_reference_heap_on_random_interleavings() {
        use crate::sim::{RngStream, StreamKind};
        use std::collections::BinaryHeap;
        let mut rng = RngStream::new(3, StreamKind::Agent, 0);
        for round in 0..50u32 {
            let mut q = EventQueue::new();
            let mut reference = BinaryHeap::new();
            let mut seq = 0u64;
            for _ in 0..2000 {
                let r = rng.next_u64();
                if !r.is_multiple_of(3) || reference.is_empty() {
                    // Few distinct times, so that ties (broken by seq) are common.
                    let t = q.now() + (r >> 8) % (5 + round as u64 * 7);
                    let k = EventKind::AgentTimer {
                        agent: (r >> 40) as u32,
                        timer: 0,
                    };
                    q.schedule(t, k);
                    reference.push(Event {
                        time: t,
                        seq,
                        kind: k,
                    });
                    seq += 1;
                } else {
                    let a = q.pop_until(u64::MAX).unwrap();
                    let b = reference.pop().unwrap();
                    assert_eq!((a.time, a.seq, a.kind), (b.time, b.seq, b.kind));
                }
            }
            while let Some(b) = reference.pop() {
                let a = q.pop_until(u64::MAX).unwrap();
                assert_eq!((a.time, a.seq, a.kind), (b.time, b.seq, b.kind));
            }
            assert!(q.is_empty());
        }
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q = EventQueue::new();
        q.schedule(10, EventKind::Sample);
        assert!(q.pop_until(9).is_none());
        assert!(q.pop_until(10).is_some());
    }
}
