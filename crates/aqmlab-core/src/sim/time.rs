//! Simulated time is an integer count of nanoseconds, so that event order never depends on
//! floating-point rounding and a run is bit-identical on every machine.

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

/// Time to serialize `bytes` onto a link of `rate_bps`, rounded up to the next nanosecond so
/// that a link never sends faster than its rate.
pub fn transmission_time(bytes: u32, rate_bps: u64) -> Time {
    let bits = bytes as u128 * 8 * NANOS_PER_SEC as u128;
    bits.div_ceil(rate_bps as u128) as Time
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
}
