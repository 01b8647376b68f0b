//! The future-event list, ordered by (time, insertion sequence): a 4-ary heap for runs with
//! few pending events, a radix heap for runs with many (chosen once per run).
//!
//! Ties in time are broken by the order in which events were scheduled (as SimPy and htsim
//! do), which makes a run a pure function of (scenario, seed). Events are small `Copy` values
//! that name the entity they concern by index, so scheduling never allocates once the
//! structure has grown to its working size.

pub use super::event::{Event, EventKind};
use super::quaternary_heap::QuaternaryHeap;
use super::radix_heap::RadixHeap;
use super::time::Time;

/// The size, as estimated by `EventQueue::for_pending`'s caller, from which a run's
/// future-event list is a radix heap rather than a 4-ary heap. Chosen once per run: switching
/// as the pending count crosses a line was tried and its checks cost small runs 3-4% of their
/// instructions. Measured (BENCHMARKS.md, "Engine layout for large runs"), with the radix keyed
/// on time alone: a 3-flow run (estimate about 70) is 1.7% more instructions and about 30%
/// slower with the radix heap; the 100-flow RED bench (estimate 2,024) 11% fewer instructions
/// and 0.96 of the wall (9 pairs, noisy); at 1,000 flows the time-keyed radix heap is 13.5%
/// fewer instructions than the (time, seq)-keyed one it replaced.
pub const RADIX_FROM_PENDING: usize = 1024;

/// The future-event list: a 4-ary heap for small runs, a radix heap for large ones. Both pop
/// in (time, seq) order and keys are unique, so the choice never changes the order in which
/// events fire (the tests check both against `std::collections::BinaryHeap`).
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: QuaternaryHeap,
    radix: RadixHeap,
    in_radix: bool,
    next_seq: u64,
    now: Time,
    processed: u64,
}

impl EventQueue {
    /// A queue for a few pending events (a 4-ary heap).
    pub fn new() -> Self {
        Self::default()
    }

    /// A queue for about `pending` events at a time: a radix heap from
    /// `RADIX_FROM_PENDING` on, else a 4-ary heap with room for them.
    pub fn for_pending(pending: usize) -> Self {
        if pending >= RADIX_FROM_PENDING {
            Self {
                in_radix: true,
                ..Self::default()
            }
        } else {
            Self {
                heap: QuaternaryHeap::with_capacity(pending),
                ..Self::default()
            }
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
        if self.in_radix {
            self.radix.push(e);
        } else {
            self.heap.push(e);
        }
    }

    /// Removes and returns the earliest event if it is not later than `until`, advancing the
    /// clock to its time.
    // Always: the simulator's two event loops (with and without taps, events and probes,
    // issue 36 item 4) both call it, and inlined once it was, when there was one loop.
    #[inline(always)]
    pub fn pop_until(&mut self, until: Time) -> Option<Event> {
        let e = if self.in_radix {
            match self.radix.peek() {
                Some(e) if e.time <= until => self.radix.pop_peeked(),
                _ => return None,
            }
        } else {
            match self.heap.peek() {
                Some(e) if e.time <= until => self.heap.pop_min(),
                _ => return None,
            }
        };
        self.now = e.time;
        self.processed += 1;
        Some(e)
    }

    /// When the earliest pending event is due (an emulation sleeps until then).
    pub fn peek_time(&mut self) -> Option<Time> {
        if self.in_radix {
            self.radix.peek().map(|e| e.time)
        } else {
            self.heap.peek().map(|e| e.time)
        }
    }

    /// Sets the clock at the end of a run, after the last event not later than `t`.
    pub fn advance_to(&mut self, t: Time) {
        self.now = self.now.max(t);
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.radix.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    /// Pushes and pops against `BinaryHeap`, the pending count swinging between 0 and about
    /// ops / 10 three times, each event due within `spread` ns (a small spread makes ties in
    /// time, broken by seq, common); `bound` steps the clock by hand (pop_until with a bound,
    /// then events scheduled before the earliest pending), which exercises the radix heap's
    /// rebase.
    fn check_against_reference(mut q: EventQueue, seed: u64, ops: usize, spread: u64, bound: bool) {
        use crate::sim::{RngStream, StreamKind};
        use std::collections::BinaryHeap;
        let mut rng = RngStream::new(seed, StreamKind::Agent, 0);
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        for i in 0..ops {
            // Grow to ~ops / 10 pending, shrink to ~0, three times over.
            let growing = (i / (ops / 6)).is_multiple_of(2);
            let r = rng.next_u64();
            let push = if growing {
                !r.is_multiple_of(5)
            } else {
                r.is_multiple_of(10)
            };
            if push || reference.is_empty() {
                let t = q.now() + (r >> 8) % spread;
                let k = EventKind::LinkDeliver((r >> 40) as u32);
                q.schedule(t, k);
                reference.push(Event {
                    time: t,
                    seq,
                    kind: k,
                });
                seq += 1;
            } else if bound && r % 7 == 1 {
                let until = q.now() + (r >> 20) % 3;
                let a = q.pop_until(until);
                let expect = reference.peek().filter(|e| e.time <= until).copied();
                if expect.is_some() {
                    reference.pop();
                }
                assert_eq!(a.map(|e| (e.time, e.seq)), expect.map(|e| (e.time, e.seq)));
            } else {
                let a = q.pop_until(u64::MAX).unwrap();
                let b = reference.pop().unwrap();
                assert_eq!((a.time, a.seq, a.kind), (b.time, b.seq, b.kind));
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(b) = reference.pop() {
            let a = q.pop_until(u64::MAX).unwrap();
            assert_eq!((a.time, a.seq, a.kind), (b.time, b.seq, b.kind));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn both_structures_match_a_reference_heap() {
        for (seed, pending) in [(0, 10), (1, RADIX_FROM_PENDING), (2, 10), (3, 100_000)] {
            let q = EventQueue::for_pending(pending);
            assert_eq!(q.in_radix, pending >= RADIX_FROM_PENDING);
            check_against_reference(q, seed, 30_000, 50_000, false);
        }
    }

    #[test]
    fn both_structures_match_a_reference_heap_with_many_ties() {
        for round in 0..50u64 {
            for pending in [10, RADIX_FROM_PENDING] {
                let q = EventQueue::for_pending(pending);
                check_against_reference(q, 3 + round, 2000, 5 + round * 7, false);
            }
        }
    }

    #[test]
    fn both_structures_match_a_reference_heap_when_stepped_by_hand() {
        for (seed, pending) in [(10, 10), (11, RADIX_FROM_PENDING), (12, 10), (13, 100_000)] {
            check_against_reference(EventQueue::for_pending(pending), seed, 30_000, 50_000, true);
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
