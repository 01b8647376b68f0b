//! The queue-delay histogram of every monitored queue as table rows (issue 27: the delay CDF
//! plot): the engine keeps each queue's sojourn times in a log-linear histogram (1/64 relative
//! error, `DelayHistogram`); these are its non-empty buckets, over the measurement window.

use super::DelayHistogram;
use serde::{Deserialize, Serialize};

/// One bucket of one queue's histogram: `packets` (enqueued inside the window) spent at least
/// `delay_low_ms` and less than `delay_high_ms` from their arrival to the end of their
/// transmission (the delay of the queue table's mean_delay_ms and p99_delay_ms).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueDelayBucket {
    pub queue: String,
    pub delay_low_ms: f64,
    pub delay_high_ms: f64,
    pub packets: u64,
}

/// `queue`'s buckets, in increasing delay.
pub fn rows<'a>(queue: &str, h: &'a DelayHistogram) -> impl Iterator<Item = QueueDelayBucket> + 'a {
    let queue = queue.to_string();
    h.buckets().map(move |(lo, hi, n)| QueueDelayBucket {
        queue: queue.clone(),
        delay_low_ms: lo as f64 / 1e6,
        delay_high_ms: hi as f64 / 1e6,
        packets: n,
    })
}
