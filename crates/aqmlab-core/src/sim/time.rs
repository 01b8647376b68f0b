//! Simulated time is an integer count of nanoseconds, so that event order never depends on
//! floating-point rounding and a run is bit-identical on every machine.
//!
//! A packet's time on a wire (bits / rate) is rarely a whole number of nanoseconds: 1 byte
//! at 6 Gb/s takes 4/3 ns. Rounding each one up made a 6 Gb/s source of 1-byte packets send
//! a third less than asked, and a link carrying 4 Gb/s report itself fully busy (issue 24).
//! [`RateClock`] keeps the exact time instead: events still fire at whole nanoseconds, never
//! before the exact time, and the part of a nanosecond by which an event is late is carried
//! into the next, so over many packets the rate is exact, as in ns-2, whose times are doubles
//! (`LinkDelay::txtime` in link/delay.h: `8. * size() / bandwidth_`; `CBR_Traffic::init` in
//! tools/cbr_traffic.cc: `(size_ << 3) / rate_`). Where bits x 10^9 is a multiple of the rate
//! (10 Mb/s and 1,040 bytes: 832,000 ns), nothing is carried and every time is what rounding
//! gave.

/// Nanoseconds since the start of the run.
pub type Time = u64;

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// Seconds (as a float, for user-facing configuration) to nanoseconds, rounded to nearest.
pub fn from_secs_f64(s: f64) -> Time {
    debug_assert!(s >= 0.0 && s.is_finite());
    (s * NANOS_PER_SEC as f64).round() as Time
}

pub fn to_secs_f64(t: Time) -> f64 {
    t as f64 / NANOS_PER_SEC as f64
}

/// `bytes` x 8 x 10^9: a packet's bits in nanobits, the unit in which time x rate is exact
/// (a nanosecond at `rate` b/s carries `rate` nanobits).
#[inline]
pub fn nanobits(bytes: u32) -> u128 {
    bytes as u128 * 8 * NANOS_PER_SEC as u128
}

/// Time to serialize `bytes` onto a link of `rate_bps`, rounded up to the next nanosecond
/// (what a transmission takes when it starts exactly at a whole nanosecond).
pub fn transmission_time(bytes: u32, rate_bps: u64) -> Time {
    nanobits(bytes).div_ceil(rate_bps as u128) as Time
}

/// Times of things sent back to back at a fixed rate (a link's transmissions, a CBR source's
/// packets), exact: each event fires at the first whole nanosecond at or after the exact
/// time, and `lag` remembers how far before the event the exact time was.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateClock {
    /// The exact time of the last end, before the event time returned for it, in units of
    /// 1/rate ns (nanobits at the rate); always below the rate.
    lag: u64,
}

impl RateClock {
    /// How far the exact time of the last end lies before its event, in nanobits.
    #[inline]
    pub fn lag(&self) -> u64 {
        self.lag
    }

    /// Starts `bytes` at `rate_bps` at the exact end of the previous one (`chained`: the
    /// event of that end is `now`) or at `now` exactly; returns the event time of its end,
    /// the first whole nanosecond at or after the exact end (`now` itself when the previous
    /// end's lag covers it: 125 one-byte packets fit in a nanosecond at 1 Tb/s).
    #[inline]
    pub fn next_end(&mut self, now: Time, bytes: u32, rate_bps: u64, chained: bool) -> Time {
        let lag = if chained { self.lag } else { 0 };
        // In 64 bits for every packet up to 1.15 GB (a 128-bit division is a library call,
        // a third of a link event's instructions); `ns * rate` is below `ahead + rate`.
        if bytes < (1 << 30) {
            let bits = bytes as u64 * 8 * NANOS_PER_SEC;
            if bits <= lag {
                self.lag = lag - bits;
                return now;
            }
            let ahead = bits - lag;
            let ns = ahead.div_ceil(rate_bps);
            self.lag = ns * rate_bps - ahead;
            return now + ns;
        }
        let (bits, lag, rate) = (nanobits(bytes), lag as u128, rate_bps as u128);
        let ahead = bits.saturating_sub(lag);
        let ns = ahead.div_ceil(rate);
        self.lag = (ns * rate + lag - bits) as u64;
        now + ns as Time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_of_1040_bytes_at_10mbps_is_832_us() {
        assert_eq!(transmission_time(1040, 10_000_000), 832_000);
    }

    #[test]
    fn transmission_time_rounds_up() {
        // 1 byte at 3 b/s = 8/3 s = 2.666..7 s
        assert_eq!(transmission_time(1, 3), 2_666_666_667);
    }

    /// Where the rate divides bits x 10^9 the clock gives what rounding gave, every time.
    #[test]
    fn a_whole_number_of_nanoseconds_is_what_rounding_gave() {
        let mut c = RateClock::default();
        let mut now = 0;
        for _ in 0..1000 {
            let end = c.next_end(now, 1040, 10_000_000, true);
            assert_eq!(end - now, transmission_time(1040, 10_000_000));
            assert_eq!(c.lag(), 0);
            now = end;
        }
    }

    /// Issue 24 (silent wrong rates): 1-byte packets at 6 Gb/s are 4/3 ns apart; rounding up
    /// made them 2 ns apart, 4 Gb/s. Exact: 3 packets per 4 ns, each end at or after its
    /// exact time and less than a nanosecond after it.
    #[test]
    fn one_byte_at_6_gbps_keeps_the_rate_exact() {
        let mut c = RateClock::default();
        let mut now = 0;
        let mut ends = vec![];
        for _ in 0..3_000_000 {
            now = c.next_end(now, 1, 6_000_000_000, true);
            ends.push(now);
        }
        assert_eq!(now, 4_000_000, "3 million packets take 4 ms at 6 Gb/s");
        for (i, &e) in ends.iter().enumerate() {
            let exact = (i as f64 + 1.0) * 8.0 / 6.0;
            assert!(
                e as f64 >= exact - 1e-9 && (e as f64) < exact + 1.0,
                "{i}: {e}"
            );
        }
    }

    #[test]
    fn many_ends_share_a_nanosecond_at_1_tbps() {
        let mut c = RateClock::default();
        let mut now = 0;
        let mut at_8_ns = 0;
        for _ in 0..1250 {
            now = c.next_end(now, 1, 1_000_000_000_000, true);
            at_8_ns += (now == 8) as u32;
        }
        assert_eq!(now, 10, "1250 bytes in 10 ns at 1 Tb/s");
        assert_eq!(at_8_ns, 125, "125 ends at 8 ns");
    }

    /// Packets too large for 64-bit nanobits take the 128-bit path, to the same times.
    #[test]
    fn huge_packets_keep_exact_time() {
        let (mut a, mut b) = (RateClock::default(), RateClock::default());
        let huge = u32::MAX; // 34 Gbit: 8.6 s at 4 Gb/s
        let end = a.next_end(0, huge, 3_999_999_999, true);
        assert_eq!(end, transmission_time(huge, 3_999_999_999));
        let exact = nanobits(huge) as f64 / 3_999_999_999.0;
        assert!(end as f64 >= exact && (end as f64) < exact + 1.0);
        // Alternating with small packets, the lag carries across the two paths.
        let mut now = 0;
        for i in 0..10u32 {
            let size = if i % 2 == 0 { huge } else { 3 };
            now = b.next_end(now, size, 7_000_000_001, true);
        }
        let total = 5 * nanobits(huge) + 5 * nanobits(3);
        assert_eq!(now as u128, total.div_ceil(7_000_000_001));
    }

    #[test]
    fn a_start_that_is_not_chained_forgets_the_lag() {
        let mut c = RateClock::default();
        assert_eq!(c.next_end(0, 1, 3, true), 2_666_666_667);
        assert!(c.lag() > 0);
        assert_eq!(c.next_end(5_000_000_000, 1, 3, false), 7_666_666_667);
    }
}
