//! The search of an 8-way set for a tag, as CAKE's set-associative tables do it.
//!
//! Source: Linux 6.1 `net/sched/sch_cake.c`, `cake_hash` (its three loops over the flow
//! table, and the same loops over the host table for `allocate_src` / `allocate_dst`).
//! A hash reduced modulo [`CAKE_QUEUES`] names a slot; the slot's set is the 8 slots
//! [`CAKE_SET_WAYS`]-aligned around it. The search starts at the slot's own way and walks the
//! set once looking for the tag; then, from where that walk ended (its own way again, after 8
//! steps), once more for a free way; with none, the counter has wrapped twice and the slot's
//! own way is taken (a collision).

/// `CAKE_QUEUES`: slots per table (flows, hosts), per tin.
pub const CAKE_QUEUES: usize = 1024;
/// `CAKE_SET_WAYS`: the associativity.
pub const CAKE_SET_WAYS: usize = 8;

/// Where a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// The tag is in this slot.
    Tagged(usize),
    /// No slot holds the tag; this one is free.
    Free(usize),
    /// No slot holds the tag and none is free: the hash's own slot, taken over.
    Collision(usize),
}

impl Way {
    pub fn slot(self) -> usize {
        match self {
            Way::Tagged(s) | Way::Free(s) | Way::Collision(s) => s,
        }
    }
}

/// The way of `hash`'s set (`hash % CAKE_QUEUES`) holding its tag, else the first free one
/// from its own way on, else its own way.
pub fn find_way(
    hash: u32,
    has_tag: impl Fn(usize) -> bool,
    is_free: impl Fn(usize) -> bool,
) -> Way {
    let reduced = hash as usize % CAKE_QUEUES;
    let inner = reduced % CAKE_SET_WAYS;
    let outer = reduced - inner;
    let ways = (0..CAKE_SET_WAYS).map(|i| outer + (inner + i) % CAKE_SET_WAYS);
    if let Some(s) = ways.clone().find(|&s| has_tag(s)) {
        return Way::Tagged(s);
    }
    match ways.clone().find(|&s| is_free(s)) {
        Some(s) => Way::Free(s),
        None => Way::Collision(reduced),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hash 1029 reduces to slot 5 (1029 mod 1024) of the set 0..8: the search visits 5, 6,
    /// 7, 0, 1, 2, 3, 4. Tag at 2 found there; no tag and 5, 6, 7 taken: 0, the first free
    /// after wrapping; all taken: 5, its own slot.
    #[test]
    fn search_starts_at_the_own_way_and_wraps_within_the_set() {
        let tags = [0u32, 0, 1029, 0, 0, 0, 0, 0];
        assert_eq!(
            find_way(1029, |s| tags[s] == 1029, |_| false),
            Way::Tagged(2)
        );
        let taken = [false, false, true, true, true, true, true, true];
        assert_eq!(find_way(1029, |_| false, |s| !taken[s]), Way::Free(0));
        assert_eq!(find_way(1029, |_| false, |_| false), Way::Collision(5));
        // Another set: hash 2047 is slot 1023, way 7 of the set 1016..1024; next is 1016.
        assert_eq!(find_way(2047, |_| false, |s| s != 1023), Way::Free(1016));
    }
}
