//! A 4-ary min-heap of events on their (time, seq) key: the future-event list while few
//! events are pending (see `event_queue`).
//!
//! A 4-ary heap is half as deep as a binary one, so a pop moves half as many entries; the
//! four children of a node are adjacent in memory. Deletion is Floyd's bottom-up variant.

use super::event::Event;

const ARITY: usize = 4;

/// The children of `i` are `ARITY * i + 1 ..= ARITY * i + ARITY`. Since keys are unique, the
/// pop order is fully determined by the keys, whatever the heap's shape.
#[derive(Debug, Default)]
pub(crate) struct QuaternaryHeap {
    heap: Vec<Event>,
}

impl QuaternaryHeap {
    pub(crate) fn with_capacity(n: usize) -> Self {
        Self {
            heap: Vec::with_capacity(n),
        }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }

    #[inline]
    pub(crate) fn peek(&self) -> Option<&Event> {
        self.heap.first()
    }

    #[inline]
    pub(crate) fn push(&mut self, e: Event) {
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
    // Always inlined: the simulator's two event loops (with and without taps, events and
    // probes, issue 36 item 4) both call it, and it was inlined when there was one loop.
    #[inline(always)]
    // The children of a node are found by index arithmetic (ARITY * i + 1 ..): this is the
    // loop the 2026-11-22 optimization round measured (BENCHMARKS.md); rewriting it as
    // iterators would need that benchmark again.
    #[allow(clippy::needless_range_loop)]
    pub(crate) fn pop_min(&mut self) -> Event {
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
}
