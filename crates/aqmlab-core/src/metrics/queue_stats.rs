//! Counters of one queue (one link's buffer).
//!
//! Conservation, checked at the end of every run: arrivals + backlog at the start of the
//! measurement = departures + drops + backlog at the end.
//!
//! Measurement window (issue 10, item 11): throughput and utilization count the bits and the
//! busy time that fall inside the window, pro rata for a transmission that straddles its
//! start or its end (counting a departure in full when its transmission started gave a
//! 10 Mb/s queue 12 Mb/s in a 2 ms window). The loss rate is drops / (arrivals + backlog at
//! the start): the packets the queue had to deal with in the window, so it stays in [0, 1]
//! when the window opens on a backlog (drops / arrivals gave 7.56 after a warm-up).
//!
//! Utilization is the bits carried over what the link could carry (issue 24), counted exactly
//! in nanobits from each transmission's exact times (`Transmission`), not the busy time of
//! its events: at 1 Tb/s a 1-byte packet is on the wire 8 ps while its event lasts up to a
//! nanosecond, and counting events gave a link carrying 4 Gb/s of 6 a utilization of 0.999.

use super::{DelayHistogram, TimeAverage};
use crate::net::Packet;
use crate::sim::time::{nanobits, NANOS_PER_SEC};
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// Counters updated on every packet first (`repr(C)` keeps that order, see `Link`), then
/// those a drop, a mark or the warm-up updates.
#[derive(Debug, Clone, Default)]
#[repr(C)]
pub struct QueueStats {
    /// The queue's length in packets (0) and in bytes (1) over time; first, beside the
    /// arrival counters, because an arrival at a busy link touches only these.
    pub len: TimeAverage<2>,
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    /// From arrival at the queue until transmission starts.
    pub wait_sum_ns: f64,
    /// Bits carried inside the window (finished transmissions, exact) in nanobits: the
    /// link's exact busy time x its rate.
    pub carried_nanobits: u128,
    /// Bits put on the wire inside the window (finished transmissions, pro rata).
    pub transmitted_bits: f64,
    pub start: Time,
    /// From arrival at the queue until the last bit is on the wire.
    pub sojourn: DelayHistogram,
    pub early_drops: u64,
    pub forced_drops: u64,
    pub marks: u64,
    /// Drops on the link itself (Bernoulli loss), after the queue.
    pub link_losses: u64,
    pub backlog_at_start: u64,
}

impl QueueStats {
    #[inline]
    pub fn on_arrival(&mut self, pkt: &Packet) {
        self.arrivals += 1;
        self.arrival_bytes += pkt.size as u64;
    }

    /// A drop the discipline chose (an AQM's verdict).
    #[inline]
    pub fn on_early_drop(&mut self) {
        self.early_drops += 1;
    }

    /// A drop the buffer forced (it was full).
    #[inline]
    pub fn on_forced_drop(&mut self) {
        self.forced_drops += 1;
    }

    #[inline]
    pub fn on_mark(&mut self) {
        self.marks += 1;
    }

    /// Transmission of `pkt` starts at `now`.
    #[inline]
    pub fn on_departure(&mut self, now: Time, pkt: &Packet) {
        self.departures += 1;
        self.departure_bytes += pkt.size as u64;
        self.wait_sum_ns += now.saturating_sub(pkt.enqueued_at.max(self.start)) as f64;
    }

    /// Transmission `t` of `pkt` ends at `now`.
    // Always: the simulator's two event loops (with and without taps, events and probes,
    // issue 36 item 4) both call it, and inlined once it was, when there was one loop.
    #[inline(always)]
    pub fn on_transmitted(&mut self, now: Time, pkt: &Packet, t: Transmission) {
        if pkt.enqueued_at >= self.start {
            self.sojourn.record(now - pkt.enqueued_at);
        }
        let (carried, bits) = t.within(self.start, now);
        self.carried_nanobits += carried;
        self.transmitted_bits += bits;
    }

    #[inline]
    pub fn on_length_change(&mut self, now: Time, packets: u32, bytes: u64) {
        self.len.set(now, [packets as f64, bytes as f64]);
    }

    /// Starts the measurement period at `now`, with `backlog` packets waiting.
    pub fn restart(&mut self, now: Time, backlog: u64) {
        let len = std::mem::take(&mut self.len);
        let mut sojourn = std::mem::take(&mut self.sojourn);
        sojourn.clear();
        *self = QueueStats {
            len,
            sojourn,
            backlog_at_start: backlog,
            start: now,
            ..Default::default()
        };
        self.len.restart(now);
    }

    /// Time-average of the queue's length in packets over the window so far.
    pub fn mean_queue_packets(&self, now: Time) -> f64 {
        self.len.mean(now, 0)
    }

    /// Time-average of the queue's length in bytes over the window so far.
    pub fn mean_queue_bytes(&self, now: Time) -> f64 {
        self.len.mean(now, 1)
    }

    pub fn drops(&self) -> u64 {
        self.early_drops + self.forced_drops
    }

    /// `in_progress`: the transmission under way at `now`, on a link of `rate_bps`.
    pub fn summary(
        &self,
        now: Time,
        name: &str,
        backlog_at_end: u64,
        rate_bps: u64,
        in_progress: Option<Transmission>,
    ) -> QueueSummary {
        let span = now.saturating_sub(self.start).max(1) as f64;
        let (mut carried, mut bits) = (self.carried_nanobits, self.transmitted_bits);
        if let Some(t) = in_progress {
            let (c, b) = t.within(self.start, now);
            carried += c;
            bits += b;
        }
        // The busy time in ns, whole and fraction apart: where every transmission took whole
        // nanoseconds the fraction is 0 and this is the integer count of busy ns as before.
        let rate = rate_bps.max(1) as u128;
        let busy = (carried / rate) as f64 + (carried % rate) as f64 / rate as f64;
        let offered = self.arrivals + self.backlog_at_start;
        let d = &self.sojourn;
        let ms = |ns: f64| ns / 1e6;
        QueueSummary {
            name: name.to_string(),
            arrivals: self.arrivals,
            departures: self.departures,
            early_drops: self.early_drops,
            forced_drops: self.forced_drops,
            drops: self.drops(),
            marks: self.marks,
            link_losses: self.link_losses,
            down_drops: None,
            backlog_at_start: self.backlog_at_start,
            backlog_at_end,
            loss_rate: if offered > 0 {
                self.drops() as f64 / offered as f64
            } else {
                0.0
            },
            mean_queue_packets: self.mean_queue_packets(now),
            mean_queue_bytes: self.mean_queue_bytes(now),
            mean_delay_ms: ms(d.mean()),
            mean_wait_ms: if self.departures > 0 {
                ms(self.wait_sum_ns / self.departures as f64)
            } else {
                f64::NAN
            },
            p50_delay_ms: ms(d.quantile(0.5)),
            p95_delay_ms: ms(d.quantile(0.95)),
            p99_delay_ms: ms(d.quantile(0.99)),
            max_delay_ms: if d.count() > 0 {
                ms(d.max() as f64)
            } else {
                f64::NAN
            },
            utilization: busy / span,
            throughput_bps: bits / (span / 1e9),
        }
    }
}

/// One transmission: its events (whole nanoseconds) and its exact times, which come before
/// them by less than a nanosecond (`sim::time::RateClock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transmission {
    /// The events of its start and of its end.
    pub started: Time,
    pub ends: Time,
    /// How far before `ends` the exact end is, in nanobits (1/rate ns).
    pub lag: u64,
    /// Bytes.
    pub size: u32,
    pub rate_bps: u64,
}

impl Transmission {
    /// Exact start and end in nanobits at the rate (ns x rate); the start is the end less the
    /// packet's bits.
    fn exact(&self) -> (u128, u128) {
        let end = self.ends as u128 * self.rate_bps as u128 - self.lag as u128;
        // Saturating: a transmission on a trace-driven link may be shorter than its bits
        // at the link's mean rate (it used what was left of an opportunity).
        (end.saturating_sub(nanobits(self.size)), end)
    }

    /// The part of it inside the window [from, to] (ns): nanobits carried, exact, and bits
    /// for the throughput. Bits: when its exact times are its events' (whole nanoseconds,
    /// the common case), the pro rata share of its nanoseconds inside, as it always was
    /// computed, so that those results stay bit-identical; otherwise all its bits when the
    /// window holds it whole, else the exact share.
    #[inline]
    pub fn within(&self, from: Time, to: Time) -> (u128, f64) {
        if self.started > from && self.ends <= to {
            // Whole inside (its exact start is less than a nanosecond before its event, so
            // after `from`): every bit, and the pro rata formula's value, which it always
            // was for a transmission held whole (inside = tx); the common case, kept cheap.
            let (tx, bits) = (self.ends - self.started, self.size as f64 * 8.0);
            let bits = if tx > 0 {
                bits * tx as f64 / tx as f64
            } else {
                bits
            };
            return (nanobits(self.size), bits);
        }
        let rate = self.rate_bps as u128;
        let (start, end) = self.exact();
        let lo = start.max(from as u128 * rate);
        let hi = end.min(to as u128 * rate);
        let carried = hi.saturating_sub(lo);
        let bits = if start == self.started as u128 * rate && self.lag == 0 {
            let tx = self.ends - self.started;
            let inside = self.ends.min(to).saturating_sub(self.started.max(from));
            self.size as f64 * 8.0 * inside as f64 / tx as f64
        } else if lo == start && hi == end {
            self.size as f64 * 8.0
        } else {
            carried as f64 / NANOS_PER_SEC as f64
        };
        (carried, bits)
    }
}

/// One row of the queue table.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct QueueSummary {
    pub name: String,
    pub arrivals: u64,
    pub departures: u64,
    pub early_drops: u64,
    pub forced_drops: u64,
    pub drops: u64,
    pub marks: u64,
    pub link_losses: u64,
    /// Arrivals dropped while the link was down (counted in `drops`); null (and absent from
    /// the JSON) for a link no `[[events]]` changed, so that the results of a scenario without
    /// events are what they were (the ns-2 fingerprints hash this JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub down_drops: Option<u64>,
    pub backlog_at_start: u64,
    pub backlog_at_end: u64,
    /// drops / (arrivals + backlog at start), in [0, 1].
    pub loss_rate: f64,
    pub mean_queue_packets: f64,
    pub mean_queue_bytes: f64,
    /// Sojourn: arrival until the last bit is sent.
    pub mean_delay_ms: f64,
    /// Arrival until transmission starts.
    pub mean_wait_ms: f64,
    pub p50_delay_ms: f64,
    pub p95_delay_ms: f64,
    pub p99_delay_ms: f64,
    pub max_delay_ms: f64,
    pub utilization: f64,
    pub throughput_bps: f64,
}

impl QueueSummary {
    /// Adds `n` arrivals dropped while the link was down (they are counted apart from the
    /// queue's counters, which a link event must not make larger: `Link`'s layout).
    pub fn add_down_drops(&mut self, n: u64) {
        self.down_drops = Some(self.down_drops.unwrap_or(0) + n);
        self.drops += n;
        let offered = self.arrivals + self.backlog_at_start;
        if offered > 0 {
            self.loss_rate = self.drops as f64 / offered as f64;
        }
    }

    /// arrivals + backlog at start == departures + drops + backlog at end.
    pub fn is_conserved(&self) -> bool {
        self.arrivals + self.backlog_at_start == self.departures + self.drops + self.backlog_at_end
    }
}
