//! A link whose capacity follows a packet-delivery trace in mahimahi's format (`mm-link`).
//!
//! The format, from mahimahi's `traces/README` and `src/frontend/link_queue.cc`
//! (`LinkQueue::LinkQueue`, `rationalize`, `use_a_delivery_opportunity`; github.com/ravinet/
//! mahimahi): each line is a timestamp in milliseconds from the start of the trace at which
//! one MTU-sized packet may leave the queue ("a delivery opportunity"); a timestamp repeated
//! on several lines is several opportunities in that millisecond. Timestamps never decrease,
//! the last must be above 0, an empty line is an error, and the trace repeats with a period
//! of its last timestamp (`base_timestamp_ += schedule_.back()`).
//!
//! Each opportunity carries [`OPPORTUNITY_BYTES`] bytes. A packet may use what is left of an
//! opportunity that the packet before it did not fill, and a packet larger than what is left
//! takes bytes from the following opportunities until it is whole; it leaves at the
//! opportunity that carries its last byte (`packet_in_transit_bytes_left_`). Opportunities
//! that find the queue empty are lost (`rationalize` burns every opportunity up to now
//! before a packet is enqueued, so a packet arriving at time t uses opportunities after t).

use crate::sim::Time;
use std::sync::Arc;

/// Bytes one delivery opportunity carries: the 1500-byte MTU of mahimahi's `traces/README`
/// ("an opportunity for one 1500-byte packet"). mahimahi's code uses 1504, the largest TUN
/// payload (`link_queue.hh`, `PACKET_SIZE`); the README's figure is the one the format is
/// described by, and with it a trace of one line per millisecond is exactly 12 Mb/s.
pub const OPPORTUNITY_BYTES: u32 = 1500;

const NS_PER_MS: Time = 1_000_000;

/// The opportunities of one period of a trace, in nanoseconds from the trace's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryTrace {
    at: Vec<Time>,
    period: Time,
}

impl DeliveryTrace {
    /// Reads a trace's text; an error names its line (the caller adds the file name).
    pub fn parse(text: &str) -> Result<DeliveryTrace, TraceError> {
        let at_line = |line: usize, message: String| TraceError {
            line: Some(line),
            message,
        };
        let mut at: Vec<Time> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            // A trace may have millions of lines (`scenario::input_file`): Ctrl-C is heard.
            if i % (1 << 16) == 0 && crate::sim::work_budget::keep_going().is_err() {
                return Err(TraceError {
                    line: None,
                    message: "reading was interrupted".into(),
                });
            }
            let line = raw.trim();
            let n = i + 1;
            if line.is_empty() {
                // mahimahi refuses empty lines too ("invalid empty line").
                return Err(at_line(
                    n,
                    "empty line (a mahimahi trace has one timestamp in ms per line)".into(),
                ));
            }
            let ms: u64 = line.parse().map_err(|_| {
                at_line(
                    n,
                    format!("expected a whole number of milliseconds, got '{line}'"),
                )
            })?;
            if ms > 1_000_000_000_000 {
                return Err(at_line(n, format!("{ms} ms is beyond 31 years")));
            }
            let t = ms * NS_PER_MS;
            if at.last().is_some_and(|&last| t < last) {
                return Err(at_line(
                    n,
                    format!(
                        "timestamps must not decrease ({ms} ms after {} ms)",
                        at[at.len() - 1] / NS_PER_MS
                    ),
                ));
            }
            at.push(t);
        }
        let whole = |message: &str| TraceError {
            line: None,
            message: message.into(),
        };
        let period = *at
            .last()
            .ok_or_else(|| whole("the trace has no timestamps"))?;
        if period == 0 {
            return Err(whole(
                "the trace must last longer than 0 ms (its last timestamp is 0)",
            ));
        }
        Ok(DeliveryTrace { at, period })
    }

    /// The mean rate over one period, in bits per second.
    pub fn mean_rate_bps(&self) -> u64 {
        let bits = self.at.len() as u128 * OPPORTUNITY_BYTES as u128 * 8 * 1_000_000_000;
        (bits / self.period as u128).max(1) as u64
    }

    /// The highest rate over any millisecond of the trace, in bits per second: what the link
    /// may carry at most over a short window.
    pub fn peak_rate_bps(&self) -> u64 {
        let mut best = 0usize;
        let mut i = 0;
        while i < self.at.len() {
            let j = self.at[i..].partition_point(|&t| t == self.at[i]) + i;
            best = best.max(j - i);
            i = j;
        }
        best as u64 * OPPORTUNITY_BYTES as u64 * 8 * 1000
    }

    /// The time of opportunity `k` (counted over all periods) of the trace started at
    /// `origin`.
    pub fn opportunity_time(&self, origin: Time, k: u64) -> Time {
        let n = self.at.len() as u64;
        origin + (k / n) * self.period + self.at[(k % n) as usize]
    }

    /// The first opportunity after `now` (strictly) of the trace started at `origin`.
    pub fn first_opportunity_after(&self, origin: Time, now: Time) -> u64 {
        if now < origin {
            return 0;
        }
        let rel = now - origin;
        let n = self.at.len() as u64;
        let cycle = rel / self.period;
        let within = rel % self.period;
        let i = self.at.partition_point(|&t| t <= within) as u64;
        cycle * n + i
    }

    /// Opportunities per period.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }
}

/// What is wrong with a trace, and on which line (1-based) if on one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(n) => write!(f, "line {n}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

/// A link's transmitter while it follows a trace: which opportunity comes next, and what is
/// left of the last one used.
#[derive(Debug, Clone)]
pub struct TraceClock {
    trace: Arc<DeliveryTrace>,
    /// When the trace's time 0 is (the event that applied it).
    origin: Time,
    /// The next unused opportunity, counted over all periods since `origin`.
    next: u64,
    /// Bytes left of the opportunity at `last`, for a packet that follows at that instant.
    left: u32,
    last: Time,
}

impl TraceClock {
    pub fn new(trace: Arc<DeliveryTrace>, origin: Time) -> Self {
        TraceClock {
            trace,
            origin,
            next: 0,
            left: 0,
            last: 0,
        }
    }

    pub fn trace(&self) -> &DeliveryTrace {
        &self.trace
    }

    fn time_of(&self, k: u64) -> Time {
        self.trace.opportunity_time(self.origin, k)
    }

    fn first_after(&self, now: Time) -> u64 {
        self.trace.first_opportunity_after(self.origin, now)
    }

    /// A packet of `bytes` starts at `now` (`chained`: right after the one before, at the
    /// instant that one left); returns when its last byte leaves.
    pub fn next_end(&mut self, now: Time, bytes: u32, chained: bool) -> Time {
        let mut need = bytes;
        if chained && self.last == now && self.left > 0 {
            let used = need.min(self.left);
            self.left -= used;
            need -= used;
            if need == 0 {
                return now;
            }
        }
        // Unused opportunities at `now` itself are this packet's when it follows another at
        // this instant (mahimahi serves the queue again within the same opportunity time);
        // an arrival at an idle link finds them burnt (`rationalize` runs before enqueue).
        let from = if chained { now.saturating_sub(1) } else { now };
        self.next = self.next.max(self.first_after(from));
        loop {
            let t = self.time_of(self.next);
            self.next += 1;
            if need <= OPPORTUNITY_BYTES {
                self.left = OPPORTUNITY_BYTES - need;
                self.last = t;
                return t;
            }
            need -= OPPORTUNITY_BYTES;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = NS_PER_MS;

    #[test]
    fn parsing_stops_when_interrupted() {
        let e = crate::sim::work_budget::with_interrupt_check(Box::new(|| false), || {
            DeliveryTrace::parse("1\n")
        });
        assert_eq!(e.unwrap_err().message, "reading was interrupted");
    }

    #[test]
    fn a_line_per_ms_is_12_mbps_and_repeats() {
        let t = Arc::new(DeliveryTrace::parse("1\n").unwrap());
        assert_eq!(t.mean_rate_bps(), 12_000_000);
        let mut c = TraceClock::new(t, 0);
        // Back to back 1500-byte packets leave one per ms, at 1, 2, 3 ms ...
        let mut now = 0;
        for k in 1..=5 {
            now = c.next_end(now, 1500, k > 1);
            assert_eq!(now, k * MS);
        }
        // ... and an idle link loses the opportunities it did not use.
        assert_eq!(c.next_end(10 * MS + 1, 1500, false), 11 * MS);
    }

    #[test]
    fn small_packets_share_an_opportunity_and_large_ones_span_several() {
        let t = Arc::new(DeliveryTrace::parse("1\n2\n").unwrap());
        let mut c = TraceClock::new(t, 0);
        assert_eq!(c.next_end(0, 500, false), MS);
        assert_eq!(c.next_end(MS, 500, true), MS);
        assert_eq!(c.next_end(MS, 500, true), MS);
        // The opportunity at 1 ms is used up: the next waits for 2 ms.
        assert_eq!(c.next_end(MS, 500, true), 2 * MS);
        // 2000 bytes: 1000 left at 2 ms, then 1000 of the one at 3 ms (period 2 ms).
        assert_eq!(c.next_end(2 * MS, 2000, true), 3 * MS);
    }

    #[test]
    fn opportunities_in_the_same_millisecond_serve_packets_back_to_back() {
        let t = Arc::new(DeliveryTrace::parse("1\n1\n").unwrap());
        let mut c = TraceClock::new(t, 0);
        let mut now = 0;
        let mut ends = vec![];
        for k in 0..6 {
            now = c.next_end(now, 1000, k > 0);
            ends.push(now / MS);
        }
        // 3000 bytes per ms: three 1000-byte packets.
        assert_eq!(ends, [1, 1, 1, 2, 2, 2]);
    }

    #[test]
    fn malformed_traces_name_the_line() {
        let e = |t: &str| DeliveryTrace::parse(t).unwrap_err().to_string();
        assert_eq!(
            e("1\nx\n"),
            "line 2: expected a whole number of milliseconds, got 'x'"
        );
        assert!(e("5\n3\n").starts_with("line 2: timestamps must not decrease"));
        assert!(e("1\n\n2\n").starts_with("line 2: empty line"));
        assert!(DeliveryTrace::parse("").is_err());
        assert!(DeliveryTrace::parse("0\n0\n").is_err());
        assert!(DeliveryTrace::parse("-1\n").is_err());
    }

    #[test]
    fn peak_counts_the_busiest_millisecond() {
        let t = DeliveryTrace::parse("1\n1\n1\n2\n4\n").unwrap();
        assert_eq!(t.peak_rate_bps(), 3 * 12_000_000);
        assert_eq!(t.mean_rate_bps(), 5 * 1500 * 8 * 1000 / 4);
    }
}
