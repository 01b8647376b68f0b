//! Warnings: what a valid scenario says that is most likely not what was meant. The scenario
//! runs as written; the warnings travel with it (`Scenario::warnings`) to the caller, which
//! shows them (the Python API as `aqmlab.ScenarioWarning`, the command line as
//! `warning: ...` on stderr). Issue 24:
//! - item 8: a time parameter of an AQM far outside its plausible range (declared with the
//!   parameter, `ParamDoc::plausible`), most often a bare number read as seconds where
//!   milliseconds were meant: `target = 15` makes PIE a 15-second-target queue that behaves
//!   like DropTail;
//! - item 10: a rate written in bytes per second (`"2MBps"`), one case slip away from the
//!   same number in bits per second and 8 times the load.

use crate::aqm::params::ParamDoc;
use crate::aqm::registry;
use crate::sim::time;
use crate::units::error::join_path;
use crate::units::{byte_rate, format_rate, parse_duration, split_quantity};
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

/// A remark about a valid scenario, or about a finished run (`run_warnings.rs`): the field,
/// and what is likely wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScenarioWarning {
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// The warnings about a scenario document (as parsed from TOML or JSON), in the order of its
/// keys (an AQM's parameters in the order of its documentation).
/// Values that are not valid are skipped: they are errors, reported elsewhere.
pub fn of(document: &Value) -> Vec<ScenarioWarning> {
    let mut out = Vec::new();
    walk(document, "", &mut out);
    out
}

fn walk(value: &Value, path: &str, out: &mut Vec<ScenarioWarning>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let at = join_path(path, key);
                match (key.as_str(), child) {
                    // An AQM's own table: its parameters, none of which is a link rate.
                    ("aqm", Value::Object(table)) => aqm_times(table, &at, out),
                    ("aqm", _) => {}
                    // Every rate of the schema is a field named `rate` (one, or a list per host).
                    ("rate", Value::Array(items)) => {
                        for (i, item) in items.iter().enumerate() {
                            byte_rates(item, &format!("{at}[{i}]"), out);
                        }
                    }
                    ("rate", _) => byte_rates(child, &at, out),
                    _ => walk(child, &at, out),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Issue 24, item 10: "2MBps" is 16 Mbps, which a case slip makes of "2Mbps".
fn byte_rates(value: &Value, path: &str, out: &mut Vec<ScenarioWarning>) {
    let Some(text) = value.as_str() else { return };
    if let Some(r) = byte_rate(text) {
        out.push(ScenarioWarning {
            path: path.to_string(),
            message: format!(
                "\"{}\" is read as {} ({}); did you mean \"{}\"?",
                text.trim(),
                format_rate(r.bps),
                r.unit_words,
                r.in_bits
            ),
        });
    }
}

/// Issue 24, item 8: each time parameter of a built-in AQM given outside its plausible range.
fn aqm_times(table: &Map<String, Value>, path: &str, out: &mut Vec<ScenarioWarning>) {
    let Some(info) = table
        .get("kind")
        .and_then(Value::as_str)
        .and_then(registry::lookup)
    else {
        return; // a custom (Python) AQM reads its own parameters; an unknown name is an error
    };
    for doc in info.params {
        if let Some(value) = table.get(doc.name) {
            if let Some(message) = implausible_time(info.name, doc, value) {
                out.push(ScenarioWarning {
                    path: join_path(path, doc.name),
                    message,
                });
            }
        }
    }
}

/// The time units a slip may have confused, smallest first, with their length in seconds.
const LADDER: &[(&str, f64)] = &[
    ("ns", 1e-9),
    ("us", 1e-6),
    ("ms", 1e-3),
    ("s", 1.0),
    ("min", 60.0),
];

/// The warning about the value of time parameter `doc` of AQM `aqm`, if it lies outside the
/// parameter's plausible range. 0 is never warned about: it is the same in every unit, so it
/// is a choice, not a slip.
fn implausible_time(aqm: &str, doc: &ParamDoc, value: &Value) -> Option<String> {
    let range = doc.plausible?;
    let text = match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_string(),
        _ => return None,
    };
    let secs = time::to_secs_f64(parse_duration(&text).ok()?);
    if secs == 0.0 || range.contains(secs) {
        return None;
    }
    let (number, unit) = split_quantity(&text)?;
    let read_in = match unit {
        "" | "s" | "sec" => "s",
        "µs" => "us",
        other => other,
    };
    let at = LADDER.iter().position(|&(u, _)| u == read_in)?;
    let value: f64 = number.parse().ok()?;
    let above = secs > range.hi;
    // The nearest unit in the direction of the slip that makes the same number plausible.
    let candidates: Vec<&(&str, f64)> = if above {
        LADDER[..at].iter().rev().collect()
    } else {
        LADDER[at + 1..].iter().collect()
    };
    let intent = candidates
        .into_iter()
        .find(|&&(_, scale)| range.contains(value * scale))
        .map(|&(u, _)| format!("; did you mean \"{number}{u}\"?"))
        .unwrap_or_default();
    let shown = if unit.is_empty() {
        format!("{number} s (a bare number is read as seconds)")
    } else {
        format!("\"{text}\"")
    };
    Some(format!(
        "{shown}, {} the plausible {} to {} for {aqm}'s {}{intent}",
        if above { "above" } else { "below" },
        short_time(range.lo),
        short_time(range.hi),
        doc.name,
    ))
}

/// A time for people, in the largest unit it is at least one of: "10us", "500ms", "2s".
fn short_time(secs: f64) -> String {
    if secs == 0.0 {
        return "0s".into();
    }
    let &(unit, scale) = LADDER[..4]
        .iter()
        .rev()
        .find(|&&(_, scale)| secs >= scale * (1.0 - 1e-9))
        .unwrap_or(&LADDER[0]);
    let text = format!("{:.3}", secs / scale);
    format!("{}{unit}", text.trim_end_matches('0').trim_end_matches('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::registry::REGISTRY;
    use serde_json::json;

    /// The warnings about a dumbbell whose bottleneck runs `aqm` (a JSON value).
    fn warnings(aqm: Value) -> Vec<String> {
        let document = serde_json::json!({"topology": {"bottleneck": {"queue": {"aqm": aqm}}}});
        of(&document).iter().map(ToString::to_string).collect()
    }

    /// Issue 24, item 8: `target = 15` is 15 s, which PIE turns into DropTail, silently.
    #[test]
    fn a_bare_time_far_above_its_range_names_the_unit_and_the_intent() {
        assert_eq!(
            warnings(json!({"kind": "pie", "target": 15})),
            [
                "topology.bottleneck.queue.aqm.target: 15 s (a bare number is read as \
                 seconds), above the plausible 10us to 500ms for pie's target; did you mean \
                 \"15ms\"?"
            ]
        );
        assert_eq!(
            warnings(json!({"kind": "codel", "interval": 100, "target": 5.0})),
            [
                "topology.bottleneck.queue.aqm.target: 5.0 s (a bare number is read as \
                 seconds), above the plausible 10us to 500ms for codel's target; did you mean \
                 \"5.0ms\"?",
                "topology.bottleneck.queue.aqm.interval: 100 s (a bare number is read as \
                 seconds), above the plausible 1ms to 2s for codel's interval; did you mean \
                 \"100ms\"?"
            ]
        );
    }

    #[test]
    fn a_time_with_a_unit_far_out_of_range_is_warned_about_too() {
        // "ns" for "ms": the keys are neighbours
        assert_eq!(
            warnings(json!({"kind": "pie", "target": "5ns"})),
            [
                "topology.bottleneck.queue.aqm.target: \"5ns\", below the plausible 10us to \
                 500ms for pie's target; did you mean \"5ms\"?"
            ]
        );
        // the nearest unit that makes the number plausible, and none when no unit does
        let doc = crate::aqm::params::doc("x", "1ms", "s", "").with_plausible(1e-3, 2e-3);
        assert_eq!(
            implausible_time("a", &doc, &json!(1.5)).unwrap(),
            "1.5 s (a bare number is read as seconds), above the plausible 1ms to 2ms for a's \
             x; did you mean \"1.5ms\"?"
        );
        assert_eq!(
            implausible_time("a", &doc, &json!("5000")).unwrap(),
            "5000 s (a bare number is read as seconds), above the plausible 1ms to 2ms for \
             a's x"
        );
        assert_eq!(implausible_time("a", &doc, &json!("fast")), None);
    }

    #[test]
    fn plausible_values_defaults_zero_and_custom_aqms_give_no_warning() {
        for aqm in [
            json!("pie"),
            json!({"kind": "pie"}),
            json!({"kind": "pie", "target": 0.015, "t_update": "30ms", "max_burst": 0}),
            json!({"kind": "codel", "target": "5ms", "interval": 1}),
            json!({"kind": "blue", "freeze_time": 0.01}),
            json!({"kind": "red", "min_th": 5000}),
            json!({"kind": "pie", "target": "fast"}), // an error, reported by the build
        ] {
            assert_eq!(warnings(aqm.clone()), Vec::<String>::new(), "{aqm}");
        }
        // a Python AQM's table is its own
        assert!(warnings(json!({"kind": "my_aqm", "target": 15})).is_empty());
    }

    /// Issue 24, item 10: a rate in bytes per second is warned about, wherever a rate is.
    #[test]
    fn a_rate_in_bytes_per_second_is_warned_about() {
        let document = json!({
            "topology": {"access": {"rate": ["100Mbps", "1kB/s"]}, "bottleneck": {"rate": "2Mbps"}},
            "flows": [{"kind": "cbr", "rate": "3MB/s", "group": "2MBps"}],
        });
        let shown: Vec<String> = of(&document).iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "flows[0].rate: \"3MB/s\" is read as 24 Mbps (megabytes per second); did you \
                 mean \"3Mb/s\"?",
                "topology.access.rate[1]: \"1kB/s\" is read as 8 kbps (kilobytes per second); \
                 did you mean \"1kb/s\"?",
            ]
        );
    }

    /// Every time parameter declares where it is plausible, and its default lies there
    /// (issue 24, item 8: the range lives with the parameter, not in a table here).
    #[test]
    fn every_time_parameter_has_a_plausible_range_holding_its_default() {
        for info in REGISTRY {
            for doc in info.params {
                let who = format!("{}.{}", info.name, doc.name);
                assert_eq!(
                    doc.unit == "s",
                    doc.plausible.is_some(),
                    "{who}: a time must have a plausible range, and only a time has one"
                );
                if let Some(r) = doc.plausible {
                    // A threshold that is one of several alternatives has no default
                    // (step_marking's k_sojourn): only its range is checked.
                    if doc.default == "unset" {
                        assert!(r.lo < r.hi, "{who}: {r:?}");
                        continue;
                    }
                    let default = time::to_secs_f64(parse_duration(doc.default).unwrap());
                    assert!(r.lo < r.hi && r.contains(default), "{who}: {r:?}");
                    // narrow enough that the default written in milliseconds but read as
                    // seconds (a bare number), or in nanoseconds ("ns" for "ms", neighbouring
                    // keys), falls outside
                    // (a zero default, a clock's origin, reads the same in every unit)
                    assert!(default == 0.0 || !r.contains(default * 1e3), "{who}: {r:?}");
                    assert!(!r.contains(default * 1e-6) || r.lo == 0.0, "{who}: {r:?}");
                }
            }
        }
    }

    #[test]
    fn times_are_shown_in_their_largest_unit() {
        assert_eq!(short_time(1e-5), "10us");
        assert_eq!(short_time(0.5), "500ms");
        assert_eq!(short_time(2.0), "2s");
        assert_eq!(short_time(1e-3), "1ms");
        assert_eq!(short_time(0.0), "0s");
    }
}
