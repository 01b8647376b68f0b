//! A cheap counter that polls a "keep going?" callback every so much work, so that long
//! phases outside the event loop (building a million flows, routing a large graph) stop
//! promptly on Ctrl-C.
//!
//! Work is counted in rough units (one per flow, link or node visited); the callback (which
//! may take Python's GIL to check for signals) runs once per [`WorkBudget::EVERY`] units,
//! about a millisecond of work, so its cost is negligible.

/// Counts work and polls `keep_going` every [`WorkBudget::EVERY`] units.
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
