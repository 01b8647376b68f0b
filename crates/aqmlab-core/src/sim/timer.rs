//! A cancellable, re-armable timer on top of a heap that cannot remove events.
//!
//! TCP restarts its retransmission timer on almost every ACK. Rather than pushing a new event
//! each time (and filtering stale ones), the timer remembers its deadline and the earliest
//! event already scheduled for it: moving the deadline later costs nothing, and when an early
//! event fires it re-schedules itself at the real deadline. A timer thus keeps O(1) events in
//! the heap however often it is restarted.

use super::event_queue::{EventKind, EventQueue};
use super::time::Time;

#[derive(Debug, Clone, Copy, Default)]
pub struct LazyTimer {
    deadline: Option<Time>,
    earliest_pending: Option<Time>,
}

impl LazyTimer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Arms (or re-arms) the timer to fire at `at`.
    pub fn set(&mut self, events: &mut EventQueue, at: Time, kind: EventKind) {
        self.deadline = Some(at);
        if self.earliest_pending.is_none_or(|p| at < p) {
            events.schedule(at, kind);
            self.earliest_pending = Some(at);
        }
    }

    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    /// To be called when an event of this timer fires. Returns true if the timer really
    /// expired (and disarms it); false for a stale event, re-scheduling if needed.
    pub fn on_event(&mut self, events: &mut EventQueue, kind: EventKind) -> bool {
        let now = events.now();
        if self.earliest_pending == Some(now) {
            self.earliest_pending = None;
        }
        match self.deadline {
            Some(d) if d <= now => {
                self.deadline = None;
                true
            }
            Some(d) => {
                if self.earliest_pending.is_none_or(|p| d < p) {
                    events.schedule(d, kind);
                    self.earliest_pending = Some(d);
                }
                false
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: EventKind = EventKind::AgentTimer { agent: 0, timer: 0 };

    fn fire_all(q: &mut EventQueue, t: &mut LazyTimer) -> Vec<Time> {
        let mut fired = vec![];
        while let Some(e) = q.pop_until(u64::MAX) {
            if t.on_event(q, e.kind) {
                fired.push(e.time);
            }
        }
        fired
    }

    #[test]
    fn restarting_later_fires_once_at_the_last_deadline() {
        let mut q = EventQueue::new();
        let mut t = LazyTimer::new();
        t.set(&mut q, 100, K);
        t.set(&mut q, 150, K);
        t.set(&mut q, 200, K);
        assert_eq!(q.len(), 1);
        assert_eq!(fire_all(&mut q, &mut t), vec![200]);
    }

    #[test]
    fn moving_earlier_fires_at_the_earlier_time_only() {
        let mut q = EventQueue::new();
        let mut t = LazyTimer::new();
        t.set(&mut q, 200, K);
        t.set(&mut q, 50, K);
        assert_eq!(fire_all(&mut q, &mut t), vec![50]);
    }

    #[test]
    fn cancel_suppresses_firing() {
        let mut q = EventQueue::new();
        let mut t = LazyTimer::new();
        t.set(&mut q, 100, K);
        t.cancel();
        assert!(fire_all(&mut q, &mut t).is_empty());
    }

    #[test]
    fn early_then_late_then_early_again() {
        let mut q = EventQueue::new();
        let mut t = LazyTimer::new();
        t.set(&mut q, 300, K);
        t.set(&mut q, 100, K); // pending: 300 (stale) and 100
        t.set(&mut q, 250, K); // deadline moves to 250; the 100 event reschedules
        assert_eq!(fire_all(&mut q, &mut t), vec![250]);
    }
}
