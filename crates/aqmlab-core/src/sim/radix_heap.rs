//! A radix heap of events on their (time, seq) key: the future-event list while many events
//! are pending (see `event_queue`).
//!
//! Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest path problem",
//! J. ACM 37(2), 1990, section 3. It needs a monotone queue, which a simulation is: nothing
//! is scheduled before the event being processed and a new event's seq is larger than every
//! earlier one, so every key pushed is larger than the last key popped. A push is one append
//! to the bucket picked by the highest bit in which the key differs from that last key; a pop
//! takes the lowest non-empty bucket, finds its minimum and files its events again into
//! lower buckets. An event moves a few times over its life, each move a sequential append,
//! against a heap's sift-down through log4(n) scattered levels.

use super::event::Event;

/// Bucket 0 holds the event whose key equals `last` (keys are unique, so at most one);
/// bucket `b` (1..=128) the events whose key first differs from `last` at bit `b - 1`.
const BUCKETS: usize = 129;

#[derive(Debug)]
pub(crate) struct RadixHeap {
    buckets: [Vec<Event>; BUCKETS],
    /// Bit `b - 1` set when bucket `b` (1..=128) is not empty.
    occupied: u128,
    /// The key the buckets are relative to: that of the last event popped or found earliest.
    last: u128,
    len: usize,
}

impl Default for RadixHeap {
    fn default() -> Self {
        Self {
            buckets: std::array::from_fn(|_| Vec::new()),
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
        let b = (128 - (e.key() ^ self.last).leading_zeros()) as usize;
        self.buckets[b].push(e);
        if b > 0 {
            self.occupied |= 1u128 << (b - 1);
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, e: Event) {
        if e.key() < self.last {
            // Only after a peek found the earliest event later than the caller's bound and
            // the caller then scheduled something before it (stepping a simulation by hand).
            self.rebase(e.key());
        }
        self.put(e);
        self.len += 1;
    }

    /// Makes `key` (not larger than any stored key) the reference and files every event again.
    #[cold]
    #[inline(never)]
    fn rebase(&mut self, key: u128) {
        let mut all = Vec::with_capacity(self.len);
        for b in &mut self.buckets {
            all.append(b);
        }
        self.occupied = 0;
        self.last = key;
        for e in all {
            self.put(e);
        }
    }

    /// The earliest event, brought into bucket 0 first.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<&Event> {
        if self.buckets[0].is_empty() && self.occupied != 0 {
            self.settle_earliest();
        }
        self.buckets[0].last()
    }

    fn settle_earliest(&mut self) {
        let b = self.occupied.trailing_zeros() as usize + 1;
        self.occupied &= !(1u128 << (b - 1));
        let mut events = std::mem::take(&mut self.buckets[b]);
        self.last = events
            .iter()
            .map(Event::key)
            .min()
            .expect("an occupied bucket holds events");
        // Every event of bucket b agrees with the new reference above bit b - 1, so each
        // lands in a lower bucket; the earliest lands in bucket 0.
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
        self.buckets[0].pop().expect("pop_peeked after a peek")
    }
}
