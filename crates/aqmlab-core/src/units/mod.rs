//! Quantities with units, parsed from strings such as "10Mbps", "5ms", "1040B".
//!
//! A bare number means the base unit: seconds for durations (as in ns-2 scripts), bits per
//! second for rates, bytes for sizes. Parsing is strict: an unknown unit, a negative or
//! non-finite value is an error that names what was expected.
//!
//! The crate's second floor (ARCHITECTURE.md, "Floors"), under everything that reads a
//! scenario's values: these units, the errors with field paths (`error.rs`), the suggestions
//! for a misspelt name (`suggest.rs`) and the input limits (`limits.rs`).

pub mod error;
pub mod limits;
pub mod suggest;

pub use error::ScenarioError;

use self::suggest::with_suggestion;
use crate::sim::{time, Time};

/// The largest rate accepted: 1 Tb/s (10^12 bps), far above any link studied here; a larger
/// value would overflow the engine's integer transmission times.
pub const MAX_RATE_BPS: f64 = 1e12;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '-'
                || c == '+'
                || ((c == 'e' || c == 'E')
                    && i > 0
                    && s[i + 1..]
                        .starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+')))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let v: f64 = s[..end].parse().ok()?;
    Some((v, s[end..].trim()))
}

/// A quantity's text split into its number and its unit, both as written ("15", "ms");
/// the unit is "" for a bare number. None when it does not start with a number.
pub fn split_quantity(s: &str) -> Option<(&str, &str)> {
    let s = s.trim();
    let (_, unit) = split_number(s)?;
    Some((s[..s.len() - unit.len()].trim(), unit))
}

fn check_value(v: f64, what: &str, original: &str) -> Result<f64, String> {
    if !v.is_finite() {
        return Err(format!("{what} must be finite, got '{original}'"));
    }
    if v < 0.0 {
        return Err(format!("{what} must not be negative, got '{original}'"));
    }
    Ok(v)
}

/// Errors about a bare number say which unit it was read in: "-5" or "1e-10" alone does not
/// tell the user that aqmlab took it as seconds.
fn note_bare_number(error: String, s: &str, base: &str) -> String {
    match split_number(s) {
        Some((_, "")) => format!("{error} (a bare number means {base})"),
        _ => error,
    }
}

/// A kind of quantity: its units, each spelling with its factor to the base unit, and the
/// words its errors use. The three parsers below differ only in these tables and in the
/// checks on the value they read.
struct Units {
    /// What the value is called in errors about it ("a duration").
    noun: &'static str,
    /// What a malformed value is told was expected.
    example: &'static str,
    /// The word of the unknown-unit error ("time" in "unknown time unit").
    kind: &'static str,
    /// The units that error lists, and those it suggests from.
    listed: &'static str,
    suggested: &'static [&'static str],
    scales: &'static [(&'static [&'static str], f64)],
}

const TIME_UNITS: Units = Units {
    noun: "a duration",
    example: "a duration like '5ms' or '1.5s'",
    kind: "time",
    listed: "s, ms, us, ns or min",
    suggested: &["s", "ms", "us", "ns", "min"],
    scales: &[
        (&["", "s", "sec"], 1.0),
        (&["ms"], 1e-3),
        (&["us", "µs"], 1e-6),
        (&["ns"], 1e-9),
        (&["min"], 60.0),
    ],
};

const RATE_UNITS: Units = Units {
    noun: "a rate",
    example: "a rate like '10Mbps'",
    kind: "rate",
    listed: "bps, kbps, Mbps, Gbps, Tbps",
    suggested: &["bps", "kbps", "Mbps", "Gbps", "Tbps", "Bps", "KBps", "MBps"],
    // Tbps: the largest rate accepted is 1 Tbps, and the range error says so (issue 24, item
    // 13: "1Tbps" was refused as an unknown unit).
    scales: &[
        (&["", "bps", "b/s"], 1.0),
        (&["kbps", "Kbps", "kb/s", "Kb/s"], 1e3),
        (&["Mbps", "mbps", "Mb/s"], 1e6),
        (&["Gbps", "gbps", "Gb/s"], 1e9),
        (&["Tbps", "tbps", "Tb/s"], 1e12),
        (&["Bps", "B/s"], 8.0),
        (&["KBps", "kBps", "KB/s", "kB/s"], 8e3),
        (&["MBps", "MB/s"], 8e6),
    ],
};

/// The rate units in bytes per second, each with the unit in bits per second that differs
/// from it by the case of one letter: a slip of the shift key that changes the load 8x. They
/// stay accepted (a rate in bytes is a rate), but a scenario that uses one gets a warning
/// (`warnings.rs`, issue 24 item 10).
const BYTE_RATE_UNITS: &[(&str, &str)] = &[
    ("Bps", "bps"),
    ("B/s", "b/s"),
    ("KBps", "Kbps"),
    ("kBps", "kbps"),
    ("KB/s", "Kb/s"),
    ("kB/s", "kb/s"),
    ("MBps", "Mbps"),
    ("MB/s", "Mb/s"),
];

/// A rate written in bytes per second: what it was read as, and the same text in bits per
/// second (what a case slip would have meant).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteRate {
    /// The rate as read, in bits per second.
    pub bps: u64,
    /// The name of the unit as written, in words ("megabytes per second").
    pub unit_words: &'static str,
    /// The text with the unit in bits per second ("2Mbps" for "2MBps").
    pub in_bits: String,
}

/// `Some` when `s` is a valid rate written in one of [`BYTE_RATE_UNITS`].
pub fn byte_rate(s: &str) -> Option<ByteRate> {
    let (_, unit) = split_number(s)?;
    let &(bytes, bits) = BYTE_RATE_UNITS.iter().find(|(b, _)| *b == unit)?;
    let bps = parse_rate(s).ok()?;
    let unit_words = match bytes.chars().next() {
        Some('K' | 'k') => "kilobytes per second",
        Some('M') => "megabytes per second",
        _ => "bytes per second",
    };
    let number = s.trim().strip_suffix(bytes)?;
    Some(ByteRate {
        bps,
        unit_words,
        in_bits: format!("{number}{bits}"),
    })
}

/// A rate for people: "16 Mbps", "2.5 kbps", "800 bps" (the largest unit it is at least one
/// of, up to three decimals, trailing zeros dropped).
pub fn format_rate(bps: u64) -> String {
    let (scale, unit) = [(1e12, "Tbps"), (1e9, "Gbps"), (1e6, "Mbps"), (1e3, "kbps")]
        .into_iter()
        .find(|&(scale, _)| bps as f64 >= scale)
        .unwrap_or((1.0, "bps"));
    let text = format!("{:.3}", bps as f64 / scale);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

const SIZE_UNITS: Units = Units {
    noun: "a size",
    example: "a size like '1040B' or '64KB'",
    kind: "size",
    listed: "B, KB, MB, KiB, MiB",
    suggested: &["B", "KB", "MB", "GB", "KiB", "MiB"],
    scales: &[
        (&["", "B"], 1.0),
        (&["KB", "kB"], 1e3),
        (&["MB"], 1e6),
        (&["GB"], 1e9),
        (&["KiB"], 1024.0),
        (&["MiB"], 1024.0 * 1024.0),
        (&["b", "bit", "bits"], 0.125),
    ],
};

/// Reads a number and one of `units`' units; returns the value in the base unit, finite and
/// not negative.
fn parse_in_base_unit(s: &str, units: &Units) -> Result<f64, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("expected {}, got '{s}'", units.example))?;
    let scale = units
        .scales
        .iter()
        .find(|(names, _)| names.contains(&unit))
        .map(|&(_, scale)| scale)
        .ok_or_else(|| {
            with_suggestion(
                format!(
                    "unknown {} unit '{unit}' in '{s}' (use {})",
                    units.kind, units.listed
                ),
                unit,
                units.suggested.iter().copied(),
            )
        })?;
    check_value(v * scale, units.noun, s)
}

/// Parses a duration; returns nanoseconds. A bare number is seconds.
pub fn parse_duration(s: &str) -> Result<Time, String> {
    parse_duration_with_unit(s).map_err(|e| note_bare_number(e, s, "seconds"))
}

fn parse_duration_with_unit(s: &str) -> Result<Time, String> {
    let secs = parse_in_base_unit(s, &TIME_UNITS)?;
    if secs > 1e9 {
        return Err(format!(
            "a duration must be at most 1e9 s (31 years), got '{s}'"
        ));
    }
    // Time is integer nanoseconds and durations are rounded to the nearest one (a computed
    // 1/3 s is fine); a positive duration that would round to 0 (0.4 ns) is an error, not a 0.
    if secs > 0.0 && secs * 1e9 < 0.5 {
        return Err(format!(
            "a positive duration must be at least 1 ns (the engine's resolution), got '{s}'"
        ));
    }
    Ok(time::from_secs_f64(secs))
}

/// Parses a bit rate; returns bits per second. A bare number is bits per second.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    parse_rate_with_unit(s).map_err(|e| note_bare_number(e, s, "bits per second"))
}

fn parse_rate_with_unit(s: &str) -> Result<u64, String> {
    let bps = parse_in_base_unit(s, &RATE_UNITS)?;
    if bps < 1.0 {
        return Err(format!("a rate must be at least 1 bps, got '{s}'"));
    }
    if bps > MAX_RATE_BPS {
        return Err(format!("a rate must be at most 1Tbps, got '{s}'"));
    }
    Ok(bps.round() as u64)
}

/// Parses a size; returns bytes. A bare number is bytes.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    parse_bytes_with_unit(s).map_err(|e| note_bare_number(e, s, "bytes"))
}

fn parse_bytes_with_unit(s: &str) -> Result<u64, String> {
    let b = parse_in_base_unit(s, &SIZE_UNITS)?;
    if b.fract() != 0.0 {
        return Err(format!("a size must be a whole number of bytes, got '{s}'"));
    }
    Ok(b as u64)
}

/// A quantity as a user writes it: a whole number of the largest unit it is an exact multiple
/// of ("5ms", "10Mbps", "2MB"), read back to the same value (the resolved scenario,
/// `Result.scenario`, must run as the original did). `units` run from the largest down, each
/// with its multiple of the base unit; the last is the base unit itself.
fn format_exact(v: u64, units: &[(u64, &str)], parse: fn(&str) -> Result<u64, String>) -> String {
    for &(scale, unit) in units {
        if v.is_multiple_of(scale) {
            let text = format!("{}{unit}", v / scale);
            if parse(&text) == Ok(v) {
                return text;
            }
        }
    }
    let (_, base) = units[units.len() - 1];
    format!("{v}{base}")
}

fn format_duration(t: Time) -> String {
    let units = [
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "us"),
        (1, "ns"),
    ];
    format_exact(t, &units, parse_duration)
}

fn format_rate_exact(bps: u64) -> String {
    let units = [
        (1_000_000_000_000, "Tbps"),
        (1_000_000_000, "Gbps"),
        (1_000_000, "Mbps"),
        (1_000, "kbps"),
        (1, "bps"),
    ];
    format_exact(bps, &units, parse_rate)
}

/// Sizes below a megabyte stay in bytes: a packet of "1000B" reads better than "1KB".
fn format_bytes_exact(b: u64) -> String {
    let units = [(1_000_000_000, "GB"), (1_000_000, "MB"), (1, "B")];
    format_exact(b, &units, parse_bytes)
}

macro_rules! unit_type {
    ($name:ident, $inner:ty, $parse:ident, $expect:literal, $base:literal, $from_num:expr, $fmt:expr) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        $parse(s).map($name).map_err(E::custom)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        $parse(&v.to_string()).map($name).map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        let f: fn(u64) -> Result<$inner, String> = $from_num;
                        f(v).map($name).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        if v < 0 {
                            return Err(E::custom(format!(
                                "must not be negative, got {v} (a bare number means {})",
                                $base
                            )));
                        }
                        self.visit_u64(v as u64)
                    }
                }
                d.deserialize_any(V)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let f: fn($inner) -> String = $fmt;
                s.serialize_str(&f(self.0))
            }
        }
    };
}

unit_type!(
    Duration,
    Time,
    parse_duration,
    "a duration such as \"5ms\" or a number of seconds",
    "seconds",
    |v| parse_duration(&v.to_string()),
    format_duration
);
unit_type!(
    Rate,
    u64,
    parse_rate,
    "a rate such as \"10Mbps\" or a number of bits per second",
    "bits per second",
    |v| if v == 0 {
        Err("a rate must be at least 1 bps, got 0 (a bare number means bits per second)".into())
    } else if v as f64 > MAX_RATE_BPS {
        Err(format!(
            "a rate must be at most 1Tbps, got {v} (a bare number means bits per second)"
        ))
    } else {
        Ok(v)
    },
    format_rate_exact
);
unit_type!(
    Bytes,
    u64,
    parse_bytes,
    "a size such as \"1040B\" or a number of bytes",
    "bytes",
    Ok,
    format_bytes_exact
);

impl Duration {
    pub fn secs(&self) -> f64 {
        time::to_secs_f64(self.0)
    }
}

/// The shortest period anything in a run may repeat at (an AQM's timer, a ping's requests,
/// the time series' samples): 1 us, the floor Python AQMs' timers already had. A run does
/// one event per period, so 1 ns runs a billion events per simulated second (issue 35: a
/// `t_update` of 1 ns ran for minutes), while no algorithm or probe studied here needs one
/// below a microsecond (the shortest defaults are milliseconds).
pub const MIN_PERIOD: Time = 1_000;

/// Checks a period (`period`, at field `path`) against [`MIN_PERIOD`]: the error names the
/// field, the value and the floor.
pub fn check_period(path: &str, period: Time) -> Result<(), super::ScenarioError> {
    if period >= MIN_PERIOD {
        return Ok(());
    }
    Err(super::ScenarioError::new(
        path,
        format!(
            "a period must be at least {} (one event per period), got {}",
            format_duration(MIN_PERIOD),
            format_duration(period)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("5ms"), Ok(5_000_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration("2"), Ok(2_000_000_000));
        assert_eq!(parse_duration("100us"), Ok(100_000));
        assert!(parse_duration("-1ms").unwrap_err().contains("negative"));
        assert!(parse_duration("5 parsecs")
            .unwrap_err()
            .contains("unknown time unit"));
        assert!(parse_duration("fast").is_err());
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate("1.5Mbps"), Ok(1_500_000));
        assert_eq!(parse_rate("100 Mb/s"), Ok(100_000_000));
        assert_eq!(parse_rate("1e6"), Ok(1_000_000));
        assert!(parse_rate("-10Mbps").unwrap_err().contains("negative"));
        assert!(parse_rate("0bps").is_err());
    }

    /// Issue 11, item 3: values the engine would clamp or round are errors.
    #[test]
    fn out_of_range_and_sub_resolution_values_are_errors() {
        assert!(parse_rate("1e30bps").unwrap_err().contains("at most 1Tbps"));
        assert_eq!(
            parse_rate("1Tbps".replace("T", "000G").as_str()),
            Ok(1_000_000_000_000)
        );
        assert!(parse_duration("0.4ns")
            .unwrap_err()
            .contains("at least 1 ns"));
        assert!(parse_duration("4e-10")
            .unwrap_err()
            .contains("at least 1 ns"));
        assert_eq!(parse_duration("0ns"), Ok(0));
        assert_eq!(parse_duration("0.6ns"), Ok(1));
        assert_eq!(parse_duration("0.3333333333333333"), Ok(333_333_333));
        assert_eq!(parse_duration("2.3ms"), Ok(2_300_000));
        assert!(serde_json::from_str::<Rate>("10000000000000").is_err());
    }

    /// Issue 11, item 5: an error about a bare number says the unit it was read in; one about
    /// a number with a unit does not need to.
    #[test]
    fn errors_about_bare_numbers_name_the_unit() {
        for (text, unit) in [
            ("-5", "seconds"),
            ("1e-10", "seconds"),
            ("1e10", "seconds"),
            ("0", "bits per second"),
            ("1e13", "bits per second"),
            ("1.5", "bytes"),
        ] {
            let err = match unit {
                "seconds" => parse_duration(text).unwrap_err(),
                "bits per second" => parse_rate(text).unwrap_err(),
                _ => parse_bytes(text).unwrap_err(),
            };
            assert!(
                err.ends_with(&format!("(a bare number means {unit})")),
                "{text}: {err}"
            );
        }
        assert!(!parse_duration("-5ms").unwrap_err().contains("bare"));
        for (json, unit) in [
            ("-5", "seconds"),
            ("-1", "bits per second"),
            ("0", "bits per second"),
            ("-2", "bytes"),
        ] {
            let err = match unit {
                "seconds" => serde_json::from_str::<Duration>(json).unwrap_err(),
                "bits per second" => serde_json::from_str::<Rate>(json).unwrap_err(),
                _ => serde_json::from_str::<Bytes>(json).unwrap_err(),
            }
            .to_string();
            assert!(
                err.contains(&format!("(a bare number means {unit})")),
                "{json}: {err}"
            );
        }
    }

    /// Issue 24, item 13: "1Tbps" was refused as an unknown unit although the range error
    /// says "at most 1Tbps" and the docs say rates run to 1 Tbps.
    #[test]
    fn terabits_per_second_are_a_unit() {
        assert_eq!(parse_rate("1Tbps"), Ok(1_000_000_000_000));
        assert_eq!(parse_rate("0.5 Tb/s"), Ok(500_000_000_000));
        assert_eq!(parse_rate("1tbps"), Ok(1_000_000_000_000));
        assert!(parse_rate("1.5Tbps").unwrap_err().contains("at most 1Tbps"));
        assert!(parse_rate("1Tbsp")
            .unwrap_err()
            .contains("did you mean `Tbps`?"));
    }

    /// Issue 24, item 10: rates in bytes per second are read as such, and recognised so that
    /// the scenario can warn about them.
    #[test]
    fn byte_rates_are_recognised_with_their_spelling_in_bits() {
        assert_eq!(
            byte_rate("2MBps"),
            Some(ByteRate {
                bps: 16_000_000,
                unit_words: "megabytes per second",
                in_bits: "2Mbps".into()
            })
        );
        let r = byte_rate(" 1.5 kB/s").unwrap();
        assert_eq!((r.bps, r.in_bits.as_str()), (12_000, "1.5 kb/s"));
        assert_eq!(byte_rate("100Bps").unwrap().unit_words, "bytes per second");
        for bits in ["2Mbps", "2mbps", "2Gbps", "2", "fast", "-2MBps", "1e12MBps"] {
            assert_eq!(byte_rate(bits), None, "{bits}");
        }
        assert_eq!(format_rate(16_000_000), "16 Mbps");
        assert_eq!(format_rate(12_000), "12 kbps");
        assert_eq!(format_rate(1_500), "1.5 kbps");
        assert_eq!(format_rate(800), "800 bps");
        assert_eq!(format_rate(1_000_000_000_000), "1 Tbps");
    }

    /// Issue 27: quantities are written in the units a user writes, and read back exactly.
    #[test]
    fn quantities_are_written_in_user_units_and_read_back_exactly() {
        let text = |v: &dyn erased::Ser| v.text();
        assert_eq!(text(&Duration(5_000_000)), "5ms");
        assert_eq!(text(&Duration(0)), "0s");
        assert_eq!(text(&Duration(100_000_000_000)), "100s");
        assert_eq!(text(&Duration(1_500_000_000)), "1500ms");
        assert_eq!(text(&Duration(1_234)), "1234ns");
        assert_eq!(text(&Rate(10_000_000)), "10Mbps");
        assert_eq!(text(&Rate(1_500_000)), "1500kbps");
        assert_eq!(text(&Rate(1_000_000_000_000)), "1Tbps");
        assert_eq!(text(&Rate(999)), "999bps");
        assert_eq!(text(&Bytes(1000)), "1000B");
        assert_eq!(text(&Bytes(5_000_000)), "5MB");
    }

    mod erased {
        pub trait Ser {
            fn text(&self) -> String;
        }
        impl<T: serde::Serialize> Ser for T {
            fn text(&self) -> String {
                serde_json::to_value(self)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn durations_round_trip(t in 0u64..(1u64 << 50), coarse in 0u64..1_000_000_000) {
            for v in [t, coarse * 1_000_000, coarse * 1_000_000_000] {
                let back: Duration = serde_json::from_value(serde_json::to_value(Duration(v)).unwrap()).unwrap();
                proptest::prop_assert_eq!(back.0, v);
            }
        }

        #[test]
        fn rates_and_sizes_round_trip(r in 1u64..=1_000_000_000_000, b in 0u64..(1u64 << 52)) {
            let back: Rate = serde_json::from_value(serde_json::to_value(Rate(r)).unwrap()).unwrap();
            proptest::prop_assert_eq!(back.0, r);
            let back: Bytes = serde_json::from_value(serde_json::to_value(Bytes(b)).unwrap()).unwrap();
            proptest::prop_assert_eq!(back.0, b);
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("1040B"), Ok(1040));
        assert_eq!(parse_bytes("64KB"), Ok(64_000));
        assert_eq!(parse_bytes("1KiB"), Ok(1024));
        assert!(parse_bytes("1.5B").is_err());
    }

    #[test]
    fn deserialize_from_json_numbers_and_strings() {
        let d: Duration = serde_json::from_str("\"20ms\"").unwrap();
        assert_eq!(d.0, 20_000_000);
        let d: Duration = serde_json::from_str("0.5").unwrap();
        assert_eq!(d.0, 500_000_000);
        let r: Rate = serde_json::from_str("1000000").unwrap();
        assert_eq!(r.0, 1_000_000);
        assert!(serde_json::from_str::<Rate>("-5").is_err());
    }
}
