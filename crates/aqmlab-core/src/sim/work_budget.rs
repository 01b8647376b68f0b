//! When to look up from work to ask "keep going?": [`WorkBudget`] for the phases outside the
//! event loop (building a million flows, routing a large graph), whose units of work are
//! small and bounded; [`PollPacer`] for the event loop, whose events cost anything from a
//! hundred nanoseconds to seconds (a window of 2^20 packets, a Python AQM), so that it polls
//! by time, not by count.

use std::time::{Duration, Instant};

/// Counts work and polls `keep_going` every [`WorkBudget::EVERY`] units.
///
/// Work is counted in rough units (one per flow, link or node visited); the callback (which
/// may take Python's GIL to check for signals) runs once per [`WorkBudget::EVERY`] units,
/// about a millisecond of work, so its cost is negligible. Each unit does a bounded amount of
/// work, so a count is a good enough clock here.
pub struct WorkBudget<'a> {
    done: u64,
    next_poll: u64,
    keep_going: &'a mut dyn FnMut() -> bool,
}

/// The callback asked to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

impl<'a> WorkBudget<'a> {
    pub const EVERY: u64 = 1 << 16;

    pub fn new(keep_going: &'a mut dyn FnMut() -> bool) -> Self {
        WorkBudget {
            done: 0,
            next_poll: Self::EVERY,
            keep_going,
        }
    }

    /// Counts `units` of work; polls the callback if a period has passed.
    #[inline]
    pub fn spend(&mut self, units: u64) -> Result<(), Stopped> {
        self.done = self.done.saturating_add(units);
        if self.done < self.next_poll {
            return Ok(());
        }
        self.next_poll = self.done.saturating_add(Self::EVERY);
        if (self.keep_going)() {
            Ok(())
        } else {
            Err(Stopped)
        }
    }
}

/// Says when a loop of steps of unknown cost should poll: at its first step, then once per
/// [`PollPacer::INTERVAL`] of wall-clock time (issue 24: counting 65,536 events between
/// polls made Ctrl-C wait 40 s when each event took 0.6 ms).
///
/// Reading the clock costs about 25 ns, a quarter of a cheap event, so it is read once per
/// `stride` steps, the stride adapted to what the steps cost: halved (or more) when the
/// steps since the last reading took longer than [`PollPacer::READ_EVERY`], doubled up to
/// [`PollPacer::MAX_STRIDE`] when they took less than half of it. With cheap events the
/// clock is read once per 128 events (0.2 ns per event); with expensive ones once per event.
/// A poll is late by at most the steps of one stride: `MAX_STRIDE` steps if the steps turn
/// expensive all at once, one step once the stride has adapted.
#[derive(Debug, Clone)]
pub struct PollPacer {
    countdown: u32,
    stride: u32,
    last_read: Instant,
    next_poll: Instant,
}

impl Default for PollPacer {
    fn default() -> Self {
        Self::new(Instant::now())
    }
}

impl PollPacer {
    /// Wall-clock time between polls: well under the second promised for Ctrl-C, and long
    /// enough that a poll (taking Python's GIL, a progress bar) costs nothing measurable.
    pub const INTERVAL: Duration = Duration::from_millis(20);
    /// Wall-clock time aimed for between readings of the clock.
    pub const READ_EVERY: Duration = Duration::from_micros(100);
    /// Most steps between readings of the clock.
    pub const MAX_STRIDE: u32 = 128;

    /// A pacer whose first poll is due at its first step (a callback that stops at once
    /// stops the loop at once).
    pub fn new(now: Instant) -> Self {
        PollPacer {
            countdown: 1,
            stride: 1,
            last_read: now,
            next_poll: now,
        }
    }

    /// One step done; true when the loop should poll now.
    #[inline]
    pub fn step(&mut self) -> bool {
        self.countdown -= 1;
        if self.countdown > 0 {
            return false;
        }
        self.on_clock(Instant::now())
    }

    /// The clock read `now` after `stride` steps: adapts the stride and says whether a poll
    /// is due. Public so that tests can drive it with a clock of their own.
    #[inline(never)]
    pub fn on_clock(&mut self, now: Instant) -> bool {
        let took = now.saturating_duration_since(self.last_read);
        let aim = Self::READ_EVERY.as_nanos();
        if took > Self::READ_EVERY {
            // Shrink at once to the stride that would have taken READ_EVERY.
            let scaled = self.stride as u128 * aim / took.as_nanos().max(1);
            self.stride = (scaled as u32).max(1);
        } else if took.as_nanos() * 2 < aim {
            self.stride = (self.stride * 2).min(Self::MAX_STRIDE);
        }
        self.last_read = now;
        self.countdown = self.stride;
        if now >= self.next_poll {
            self.next_poll = now + Self::INTERVAL;
            true
        } else {
            false
        }
    }

    /// Steps between readings of the clock now.
    pub fn stride(&self) -> u32 {
        self.stride
    }
}

thread_local! {
    /// The interrupt check of work that takes no callback of its own (reading a scenario's
    /// input files while it is parsed), set by [`with_interrupt_check`].
    static INTERRUPT_CHECK: std::cell::RefCell<Option<Box<dyn FnMut() -> bool>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` with `keep_going` as this thread's interrupt check: work inside `f` that has no
/// callback passed to it (a scenario's trace files are read while its text is parsed, deep
/// in the parser) asks [`keep_going`], so that Ctrl-C stops it as it stops a build or a run.
pub fn with_interrupt_check<T>(keep_going: Box<dyn FnMut() -> bool>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Box<dyn FnMut() -> bool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            INTERRUPT_CHECK.with(|c| *c.borrow_mut() = previous);
        }
    }
    let _restore = Restore(INTERRUPT_CHECK.with(|c| c.borrow_mut().replace(keep_going)));
    f()
}

/// Asks this thread's interrupt check (see [`with_interrupt_check`]) whether to go on; true
/// when none is set.
pub fn keep_going() -> Result<(), Stopped> {
    // Taken out while it runs: the check may run Python code, which must not find it
    // borrowed.
    let Some(mut check) = INTERRUPT_CHECK.with(|c| c.borrow_mut().take()) else {
        return Ok(());
    };
    let go = check();
    INTERRUPT_CHECK.with(|c| *c.borrow_mut() = Some(check));
    if go {
        Ok(())
    } else {
        Err(Stopped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thread_interrupt_check_is_scoped() {
        assert_eq!(keep_going(), Ok(()));
        let stopped = with_interrupt_check(Box::new(|| false), keep_going);
        assert_eq!(stopped, Err(Stopped));
        let nested = with_interrupt_check(Box::new(|| false), || {
            with_interrupt_check(Box::new(|| true), keep_going)
        });
        assert_eq!(nested, Ok(()));
        assert_eq!(keep_going(), Ok(()), "restored when the scope ends");
    }

    #[test]
    fn polls_once_per_period_and_reports_a_stop() {
        let mut polls = 0;
        let mut cb = || {
            polls += 1;
            polls < 3
        };
        let mut budget = WorkBudget::new(&mut cb);
        for _ in 0..(2 * WorkBudget::EVERY - 1) {
            budget.spend(1).unwrap();
        }
        assert_eq!(budget.spend(1), Ok(())); // second poll
        assert_eq!(budget.spend(WorkBudget::EVERY), Err(Stopped)); // third poll says stop
        assert_eq!(polls, 3);
    }

    /// Drives a pacer with steps of the given costs on a clock of its own; returns the times
    /// (from the start) of the polls, and how often the clock was read.
    fn drive(costs: impl IntoIterator<Item = Duration>) -> (Vec<Duration>, usize) {
        let t0 = Instant::now();
        let mut p = PollPacer::new(t0);
        let (mut now, mut polls, mut reads) = (t0, vec![], 0);
        for c in costs {
            now += c;
            p.countdown -= 1;
            if p.countdown == 0 {
                reads += 1;
                if p.on_clock(now) {
                    polls.push(now - t0);
                }
            }
        }
        (polls, reads)
    }

    /// Issue 24 (Ctrl-C polled every 65,536 events): with events of 1 ms, a count of 65,536
    /// polled every 65 s; the pacer polls every 20 ms, at most one event late.
    #[test]
    fn expensive_steps_are_polled_by_time_not_by_count() {
        let ms = Duration::from_millis(1);
        let (polls, reads) = drive(std::iter::repeat_n(ms, 2000));
        assert_eq!(polls[0], ms, "the first step polls");
        for w in polls.windows(2) {
            assert!(w[1] - w[0] <= PollPacer::INTERVAL + ms, "{:?}", w);
        }
        assert!(polls.len() >= 2000 / 21, "{} polls in 2 s", polls.len());
        assert_eq!(reads, 2000, "the clock is read at every expensive step");
    }

    #[test]
    fn cheap_steps_read_the_clock_once_per_max_stride_and_poll_every_interval() {
        let ns100 = Duration::from_nanos(100);
        let n = 2_000_000; // 0.2 s
        let (polls, reads) = drive(std::iter::repeat_n(ns100, n));
        assert!(
            reads < n / PollPacer::MAX_STRIDE as usize + 20,
            "{reads} reads"
        );
        assert!(
            (10..=12).contains(&polls.len()),
            "{} polls in 0.2 s",
            polls.len()
        );
    }

    #[test]
    fn steps_turning_expensive_at_once_delay_a_poll_by_one_stride_at_most() {
        let cheap = std::iter::repeat_n(Duration::from_nanos(100), 1_000_000);
        let dear = std::iter::repeat_n(Duration::from_millis(5), 400);
        let (polls, _) = drive(cheap.chain(dear));
        let late = PollPacer::INTERVAL + PollPacer::MAX_STRIDE * Duration::from_millis(5);
        for w in polls.windows(2) {
            assert!(w[1] - w[0] <= late, "{:?}", w);
        }
        // Adapted: after the first slow stride, polls are an interval and one event apart.
        let tail: Vec<_> = polls.iter().rev().take(10).collect();
        for w in tail.windows(2) {
            assert!(*w[0] - *w[1] <= PollPacer::INTERVAL + Duration::from_millis(5));
        }
    }
}
