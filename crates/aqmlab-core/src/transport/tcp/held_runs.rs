//! The runs of packets a receiver holds out of order, each [start, end) with every packet in
//! it held and the packets just outside it not: the SACK blocks it reports (RFC 2018 section
//! 4: "each contiguous block of data queued at the data receiver"). Kept as packets arrive and
//! leave, so that finding the block around a packet takes a lookup instead of a walk along
//! the block (issue 24, item 13: with a window of 2^20 a block, and the walk on each arrival,
//! can span most of the window).

use std::collections::BTreeMap;

use super::recovery::work;

#[derive(Debug, Clone, Default)]
pub struct HeldRuns {
    /// start -> end (exclusive) of each run.
    by_start: BTreeMap<i64, i64>,
}

impl HeldRuns {
    /// Packet `seq`, not held before, is now held: it joins the run ending just below it
    /// and the one starting just above it, if any. Returns its run.
    pub fn insert(&mut self, seq: i64) -> (i64, i64) {
        work::step(1);
        let end = match self.by_start.remove(&(seq + 1)) {
            Some(end) => end,
            None => seq + 1,
        };
        let start = match self.by_start.range(..seq).next_back() {
            Some((&start, &e)) if e == seq => start,
            _ => seq,
        };
        self.by_start.insert(start, end);
        (start, end)
    }

    /// The run holding `seq`, if it is held.
    pub fn containing(&self, seq: i64) -> Option<(i64, i64)> {
        work::step(1);
        let (&start, &end) = self.by_start.range(..=seq).next_back()?;
        (seq < end).then_some((start, end))
    }

    /// The run starting at `start`, if any, has been delivered in order.
    pub fn remove_starting_at(&mut self, start: i64) {
        work::step(1);
        self.by_start.remove(&start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// Against the held packets themselves: the run around each is the stretch of held
        /// packets around it.
        #[test]
        fn runs_are_the_stretches_of_held_packets(
            ops in prop::collection::vec((any::<bool>(), 0i64..60), 1..200),
        ) {
            let mut runs = HeldRuns::default();
            let mut held = BTreeSet::new();
            for (deliver, x) in ops {
                if deliver {
                    // Everything from the lowest held packet's run leaves.
                    if let Some(&lo) = held.iter().next() {
                        let mut s = lo;
                        while held.remove(&s) {
                            s += 1;
                        }
                        runs.remove_starting_at(lo);
                    }
                } else if held.insert(x) {
                    runs.insert(x);
                }
                for s in -1..=61 {
                    let want = held.contains(&s).then(|| {
                        let (mut a, mut b) = (s, s + 1);
                        while held.contains(&(a - 1)) {
                            a -= 1;
                        }
                        while held.contains(&b) {
                            b += 1;
                        }
                        (a, b)
                    });
                    prop_assert_eq!(runs.containing(s), want);
                }
            }
        }
    }
}
