//! TOML text to the JSON value the schema reads (both `Scenario::from_toml` and the Python
//! bindings' `load_toml` go through here).
//!
//! Why a step of its own: serde_json has no NaN or infinity, so a TOML `nan` or `inf` converted
//! directly becomes `null`, which the schema reads as "not given" and replaces by the field's
//! default without a word (issue 11, item 1). Non-finite floats are refused here, naming the
//! field: `topology.bottleneck.queue.aqm.min_th: must be finite, got nan`.

use crate::units::error::join_path;
use crate::units::ScenarioError;

/// Parses TOML text; syntax errors name the line, non-finite numbers name the field.
pub fn parse_toml(text: &str) -> Result<serde_json::Value, ScenarioError> {
    let value: serde_json::Value = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| {
                format!(
                    "line {}",
                    text[..s.start.min(text.len())].matches('\n').count() + 1
                )
            })
            .unwrap_or_default();
        ScenarioError::new(line, format!("invalid TOML: {}", e.message()))
    })?;
    if let Some((path, date)) = first(&value, "", &toml_date) {
        return Err(ScenarioError::new(
            path,
            format!(
                "a TOML date or time ({date}), where a number or a string was expected (a \
                 duration is written \"5s\" or as a number of seconds)"
            ),
        ));
    }
    if let Some((path, ())) = first(&value, "", &|v| v.is_null().then_some(())) {
        // TOML has no null: this was a NaN or an infinity, which serde_json cannot hold. Name
        // the literal when the text also parses as a plain TOML table (it may not: a seed above
        // i64::MAX is read as a u64 by the first parse only).
        if let Ok(doc) = toml::from_str::<toml::Table>(text) {
            for (key, v) in &doc {
                reject_non_finite(v, key)?;
            }
        }
        return Err(ScenarioError::new(path, "must be finite, got nan or inf"));
    }
    Ok(value)
}

/// The key under which the `toml` crate hands a TOML date or time to serde: a table of that
/// one key holding the date as text (its `toml_datetime` serde protocol). No field of a
/// scenario is a date, and read as a table it was reported as "invalid type: map" (issue 24,
/// item 13); the test below fails if the crate ever changes the key.
const TOML_DATETIME_KEY: &str = "$__toml_private_datetime";

/// The text of a TOML date or time as the `toml` crate hands it over, or None.
fn toml_date(value: &serde_json::Value) -> Option<String> {
    match value.as_object()?.get(TOML_DATETIME_KEY)? {
        serde_json::Value::String(date) if value.as_object()?.len() == 1 => Some(date.clone()),
        _ => None,
    }
}

/// The path of the first value in `value` (depth first, in key order) that `found` picks, with
/// what it returned.
fn first<T>(
    value: &serde_json::Value,
    path: &str,
    found: &dyn Fn(&serde_json::Value) -> Option<T>,
) -> Option<(String, T)> {
    if let Some(t) = found(value) {
        return Some((path.to_string(), t));
    }
    match value {
        serde_json::Value::Object(m) => m
            .iter()
            .find_map(|(k, v)| first(v, &join_path(path, k), found)),
        serde_json::Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, v)| first(v, &format!("{path}[{i}]"), found)),
        _ => None,
    }
}

fn reject_non_finite(value: &toml::Value, path: &str) -> Result<(), ScenarioError> {
    match value {
        toml::Value::Float(f) if !f.is_finite() => Err(ScenarioError::new(
            path,
            format!("must be finite, got {}", f.to_string().to_lowercase()),
        )),
        toml::Value::Table(t) => t
            .iter()
            .try_for_each(|(k, v)| reject_non_finite(v, &join_path(path, k))),
        toml::Value::Array(a) => a
            .iter()
            .enumerate()
            .try_for_each(|(i, v)| reject_non_finite(v, &format!("{path}[{i}]"))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_and_infinity_name_their_field() {
        for (text, path, got) in [
            ("duration = nan", "duration", "nan"),
            (
                "[topology.bottleneck.queue.aqm]\nmin_th = inf",
                "topology.bottleneck.queue.aqm.min_th",
                "inf",
            ),
            (
                "[[flows]]\nrate = 1.0\n[[flows]]\nrate = -inf",
                "flows[1].rate",
                "-inf",
            ),
            ("x = [1.0, [2.0, nan]]", "x[1][1]", "nan"),
        ] {
            let e = parse_toml(text).unwrap_err();
            assert_eq!(e.path, path, "{text}");
            assert_eq!(e.message, format!("must be finite, got {got}"), "{text}");
        }
    }

    #[test]
    fn a_scenario_with_nan_is_refused_not_defaulted() {
        let e = crate::Scenario::from_toml(
            "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nsenders = 1\n\
             bottleneck = { rate = \"10Mbps\", queue = { aqm = { kind = \"red\", min_th = nan } } }\n\
             access = { rate = \"100Mbps\" }\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "topology.bottleneck.queue.aqm.min_th: must be finite, got nan"
        );
    }

    /// Issue 24, item 13: `duration = 1979-05-27` said "invalid type: map".
    #[test]
    fn a_date_is_named_as_a_date_at_its_field() {
        for (text, path, date) in [
            ("duration = 1979-05-27", "duration", "1979-05-27"),
            (
                "[topology.bottleneck]\ndelay = 07:32:00",
                "topology.bottleneck.delay",
                "07:32:00",
            ),
            (
                "[[flows]]\nstart = [1, 1979-05-27T07:32:00Z]",
                "flows[0].start[1]",
                "1979-05-27T07:32:00Z",
            ),
        ] {
            let e = parse_toml(text).unwrap_err();
            assert_eq!(e.path, path, "{text}");
            assert!(
                e.message.starts_with(&format!(
                    "a TOML date or time ({date}), where a number or a string was expected"
                )),
                "{text}: {e}"
            );
        }
        let e = crate::Scenario::from_toml("duration = 1979-05-27").unwrap_err();
        assert!(!e.to_string().contains("map"), "{e}");
    }

    #[test]
    fn finite_values_and_syntax_errors_are_as_before() {
        let v = parse_toml("a = 1.5\nb = \"x\"\n[c]\nd = [1, 2]").unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": 1.5, "b": "x", "c": {"d": [1, 2]}})
        );
        // a seed above i64::MAX is still read (as a u64), and a NaN beside it still named
        let v = parse_toml("seed = 12070460616253444054").unwrap();
        assert_eq!(v["seed"].as_u64(), Some(12070460616253444054));
        let e = parse_toml("seed = 12070460616253444054\nx = nan").unwrap_err();
        assert_eq!(e.to_string(), "x: must be finite, got nan or inf");
        let e = parse_toml("a = 1\nb = = 2").unwrap_err();
        assert_eq!(e.path, "line 2");
        assert!(e.message.starts_with("invalid TOML"), "{e}");
    }
}
