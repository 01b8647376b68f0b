//! The one error type of scenario handling: which field, and why.

use std::fmt;

/// A problem with a scenario, naming the field by its path (`topology.bottleneck.rate`,
/// `flows[2].window`) and the reason in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The same error, seen from one level up (`field` is the parent's name).
    pub fn within(mut self, parent: &str) -> Self {
        self.path = join_path(parent, &self.path);
        self
    }
}

/// Joins path segments: `a` + `b` = `a.b`; `a` + `[2].b` = `a[2].b`; empty sides vanish.
pub fn join_path(parent: &str, child: &str) -> String {
    match (parent.is_empty(), child.is_empty()) {
        (true, _) => child.to_string(),
        (_, true) => parent.to_string(),
        _ if child.starts_with('[') => format!("{parent}{child}"),
        _ => format!("{parent}.{child}"),
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Deserializes `T` from a JSON value, reporting errors with the full field path.
pub fn from_value<T: serde::de::DeserializeOwned>(
    value: &serde_json::Value,
    path: &str,
) -> Result<T, ScenarioError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.path().to_string();
        let inner = if inner == "." { String::new() } else { inner };
        let at = join_path(path, &inner);
        let message = e.inner().to_string();
        // "missing field `duration`" is about the field that is missing, not its table.
        if let Some(field) = message
            .strip_prefix("missing field `")
            .and_then(|rest| rest.strip_suffix('`'))
        {
            return ScenarioError::new(join_path(&at, field), "required, but missing");
        }
        ScenarioError::new(
            at,
            super::suggest::for_serde_message(integer_range_message(message)),
        )
    })
}

/// serde's "invalid value: integer `4294967296`, expected u32" in the user's terms: the allowed
/// range, not the Rust type.
fn integer_range_message(message: String) -> String {
    let range = |ty: &str| -> Option<(i128, i128)> {
        Some(match ty {
            "u8" => (0, u8::MAX as i128),
            "u16" => (0, u16::MAX as i128),
            "u32" => (0, u32::MAX as i128),
            "u64" | "usize" => (0, u64::MAX as i128),
            "i32" => (i32::MIN as i128, i32::MAX as i128),
            "i64" => (i64::MIN as i128, i64::MAX as i128),
            _ => return None,
        })
    };
    let parsed = message
        .strip_prefix("invalid value: integer `")
        .and_then(|rest| rest.split_once("`, expected "))
        .and_then(|(n, ty)| Some((n, range(ty)?)));
    if let Some((n, (lo, hi))) = parsed {
        return format!("must be a whole number from {lo} to {hi}, got {n}");
    }
    let float = message
        .strip_prefix("invalid type: floating point `")
        .and_then(|rest| rest.split_once("`, expected "))
        .and_then(|(n, ty)| Some((n, range(ty)?)));
    if let Some((n, (lo, hi))) = float {
        // An integer beyond u64 reaches serde_json as a float (`senders = 10**30` from
        // Python is 1e30): it is a whole number, too large (issue 24, item 13), not a fraction.
        return match n.parse::<f64>() {
            Ok(v) if v.fract() == 0.0 && v > hi as f64 => {
                format!("too large: must be a whole number from {lo} to {hi}, got {v:e}")
            }
            Ok(v) if v.fract() == 0.0 && v < lo as f64 => {
                format!("too small: must be a whole number from {lo} to {hi}, got {v:e}")
            }
            _ => format!("must be a whole number, got {n}"),
        };
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_range_errors_give_the_range_not_the_rust_type() {
        assert_eq!(
            integer_range_message("invalid value: integer `4294967296`, expected u32".into()),
            "must be a whole number from 0 to 4294967295, got 4294967296"
        );
        assert_eq!(
            integer_range_message("invalid value: integer `-1`, expected u8".into()),
            "must be a whole number from 0 to 255, got -1"
        );
        assert_eq!(
            integer_range_message("invalid type: floating point `1.5`, expected u32".into()),
            "must be a whole number, got 1.5"
        );
        assert_eq!(integer_range_message("other".into()), "other");
    }

    /// Issue 24, item 13: `senders = 10**30` said "must be a whole number".
    #[test]
    fn an_integer_too_large_for_any_integer_type_is_called_too_large() {
        for (serde, ours) in [
            (
                "invalid type: floating point `1e30`, expected u32",
                "too large: must be a whole number from 0 to 4294967295, got 1e30",
            ),
            (
                "invalid type: floating point `-1e20`, expected i64",
                "too small: must be a whole number from -9223372036854775808 to \
                 9223372036854775807, got -1e20",
            ),
        ] {
            assert_eq!(integer_range_message(serde.into()), ours);
        }
    }

    #[test]
    fn paths_join_with_dots_and_brackets() {
        assert_eq!(join_path("flows", "[2].window"), "flows[2].window");
        assert_eq!(join_path("topology", "rate"), "topology.rate");
        assert_eq!(join_path("", "rate"), "rate");
    }
}
