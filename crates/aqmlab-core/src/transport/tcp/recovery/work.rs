//! Test-only counts of the scoreboard's work: its elementary steps (a word of an index read
//! or written, a packet's state changed or forgotten) and its events (a packet sent, an ACK,
//! a round of RACK's marks), so that a test can show that the steps per event do not grow
//! with the window (issue 24, item 13: the walks over the whole flight made a run 200 times
//! slower at a window of 2^20 than at 4,096). Outside tests both are empty and compile away.

#[cfg(test)]
thread_local! {
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static EVENTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` steps (tests only).
#[inline(always)]
pub fn step(n: u64) {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + n));
    #[cfg(not(test))]
    let _ = n;
}

/// Counts one event (tests only).
#[inline(always)]
pub fn event() {
    #[cfg(test)]
    EVENTS.with(|s| s.set(s.get() + 1));
}

/// (steps, events) counted on this thread so far.
#[cfg(test)]
pub fn counts() -> (u64, u64) {
    (STEPS.with(|s| s.get()), EVENTS.with(|s| s.get()))
}
