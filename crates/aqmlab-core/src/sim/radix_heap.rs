//! A radix heap of events on their time, ties in time kept in scheduling order: the
//! future-event list while many events are pending (see `event_queue`).
//!
//! Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest path problem",
//! J. ACM 37(2), 1990, section 3. It needs a monotone queue, which a simulation is: nothing
//! is scheduled before the event being processed, so every time pushed is at least the time
//! last popped. A push is one append to the bucket picked by the highest bit in which the
//! time differs from that last time; a pop takes the lowest non-empty bucket, finds its
//! earliest time and files its events again into lower buckets. An event moves a few times
//! over its life, each move a sequential append, against a heap's sift-down through log4(n)
//! scattered levels.
//!
//! The radix is the time alone (64 bits), not the (time, seq) key: every bucket holds its
//! events in seq order (a push appends the largest seq yet; a bucket is refilled only from
//! one higher bucket, in that bucket's order, while it is empty), so the events due at the
//! earliest time leave bucket 0 first in, first out, which is (time, seq) order. Keying on
//! the time alone halves the width of every key operation and moves the events of one
//! instant together.

use super::event::Event;
use super::time::Time;

/// Bucket 0 holds the events due at `last`; bucket `b` (1..=64) those whose time first
/// differs from `last` at bit `b - 1`.
const BUCKETS: usize = 65;

#[derive(Debug)]
pub(crate) struct RadixHeap {
    buckets: [Vec<Event>; BUCKETS],
    /// Events of bucket 0 before this index have been popped.
    head: usize,
    /// Bit `b - 1` set when bucket `b` (1..=64) is not empty.
    occupied: u64,
    /// The time the buckets are relative to: that of the events in bucket 0.
    last: Time,
    len: usize,
}

impl Default for RadixHeap {
    fn default() -> Self {
        Self {
            buckets: std::array::from_fn(|_| Vec::new()),
            head: 0,
            occupied: 0,
            last: 0,
            len: 0,
        }
    }
}

impl RadixHeap {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn put(&mut self, e: Event) {
        let b = (64 - (e.time ^ self.last).leading_zeros()) as usize;
        self.buckets[b].push(e);
        if b > 0 {
            self.occupied |= 1u64 << (b - 1);
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, e: Event) {
        if e.time < self.last {
            // Only after a peek found the earliest event later than the caller's bound and
            // the caller then scheduled something before it (stepping a simulation by hand).
            self.rebase(e.time);
        }
        self.put(e);
        self.len += 1;
    }

    /// Makes `time` (not later than any stored event) the reference and files every event
    /// again, in (time, seq) order so that every bucket is in seq order again.
    #[cold]
    #[inline(never)]
    fn rebase(&mut self, time: Time) {
        let mut all = Vec::with_capacity(self.len);
        all.extend(self.buckets[0].drain(self.head..));
        self.buckets[0].clear();
        self.head = 0;
        for b in &mut self.buckets[1..] {
            all.append(b);
        }
        all.sort_unstable_by_key(Event::key);
        self.occupied = 0;
        self.last = time;
        for e in all {
            self.put(e);
        }
    }

    /// The earliest event, brought into bucket 0 first.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<&Event> {
        if self.head == self.buckets[0].len() && self.occupied != 0 {
            self.settle_earliest();
        }
        self.buckets[0].get(self.head)
    }

    fn settle_earliest(&mut self) {
        self.buckets[0].clear();
        self.head = 0;
        let b = self.occupied.trailing_zeros() as usize + 1;
        self.occupied &= !(1u64 << (b - 1));
        let mut events = std::mem::take(&mut self.buckets[b]);
        self.last = events
            .iter()
            .map(|e| e.time)
            .min()
            .expect("an occupied bucket holds events");
        // Every event of bucket b agrees with the new reference above bit b - 1, so each
        // lands in a lower bucket; the earliest land in bucket 0, in the order they had.
        for e in events.drain(..) {
            self.put(e);
        }
        // Hand the emptied allocation back so the bucket does not grow it again.
        self.buckets[b] = events;
    }

    /// Removes the event `peek` returned.
    #[inline]
    pub(crate) fn pop_peeked(&mut self) -> Event {
        self.len -= 1;
        let e = self.buckets[0][self.head];
        self.head += 1;
        e
    }
}
