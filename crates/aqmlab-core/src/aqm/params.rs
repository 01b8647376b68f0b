//! The vocabulary an algorithm describes and builds itself with: its parameters read from a
//! scenario (with errors that name the parameter), their documentation, and what it may know
//! of the link it serves. Algorithms and the registry both look here; the registry knows the
//! algorithms, no algorithm knows the registry.

use super::QueueLimit;
use crate::sim::Time;
use crate::units::error::{from_value, join_path, ScenarioError};
use serde::de::DeserializeOwned;

/// The parameters given for one queue's AQM (everything in its table except `kind`), and
/// where in the scenario they are, for error messages.
#[derive(Debug, Clone)]
pub struct AqmParams {
    pub values: serde_json::Value,
    pub path: String,
}

impl AqmParams {
    pub fn new(values: serde_json::Value, path: impl Into<String>) -> Self {
        AqmParams {
            values,
            path: path.into(),
        }
    }

    /// Deserializes the parameter struct `T` (which should deny unknown fields).
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ScenarioError> {
        from_value(&self.values, &self.path)
    }

    /// An error about parameter `name`.
    pub fn error(&self, name: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError::new(join_path(&self.path, name), message)
    }

    /// Fails with a message about `name` unless `ok`.
    pub fn require(
        &self,
        ok: bool,
        name: &str,
        message: impl FnOnce() -> String,
    ) -> Result<(), ScenarioError> {
        if ok {
            Ok(())
        } else {
            Err(self.error(name, message()))
        }
    }

    /// Checks that a probability-like parameter lies in [lo, hi].
    pub fn in_range(&self, name: &str, v: f64, lo: f64, hi: f64) -> Result<(), ScenarioError> {
        self.require(v.is_finite() && v >= lo && v <= hi, name, || {
            format!("must be in [{lo}, {hi}], got {v}")
        })
    }

    /// Checks that a parameter is finite and not negative; the error names `unit` ("packets"),
    /// if any.
    pub fn non_negative(&self, name: &str, v: f64, unit: &str) -> Result<(), ScenarioError> {
        self.require(v.is_finite() && v >= 0.0, name, || {
            if unit.is_empty() {
                format!("must be >= 0, got {v}")
            } else {
                format!("must be >= 0 {unit}, got {v}")
            }
        })
    }

    /// Checks that a parameter is finite and strictly positive.
    pub fn positive(&self, name: &str, v: f64) -> Result<(), ScenarioError> {
        self.require(v.is_finite() && v > 0.0, name, || {
            format!("must be > 0, got {v}")
        })
    }
}

/// What a discipline may know about the link it serves when it is built.
#[derive(Debug, Clone, Copy)]
pub struct QueueEnv {
    pub link_rate_bps: u64,
    pub link_delay: Time,
    pub limit: QueueLimit,
}

/// One documented parameter: name, default (as text), unit, meaning, and for a time the
/// range its value plausibly lies in.
#[derive(Debug, Clone, Copy)]
pub struct ParamDoc {
    pub name: &'static str,
    pub default: &'static str,
    pub unit: &'static str,
    pub meaning: &'static str,
    /// Where a value of this parameter plausibly lies, in its unit (seconds for a time).
    /// Every parameter of unit "s" has one (a test in `registry.rs` checks it): a bare number
    /// is read as seconds, so `target = 15` meant as 15 ms makes PIE a 15-second queue that
    /// behaves like DropTail, and a value outside this range is reported as a warning that
    /// names the unit it was read in and the likely intent (`scenario/warnings.rs`, issue 24
    /// item 8). The value is still used as written: the range is a guard against slips of
    /// unit, not a limit.
    pub plausible: Option<Plausible>,
}

/// A range of plausible values, in the parameter's unit; wide enough for every setting the
/// algorithm's sources and their successors use, so that what falls outside is most likely
/// a slip of unit (a factor of 1000) rather than a choice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plausible {
    pub lo: f64,
    pub hi: f64,
}

impl Plausible {
    pub const fn new(lo: f64, hi: f64) -> Self {
        Plausible { lo, hi }
    }

    pub fn contains(&self, v: f64) -> bool {
        v >= self.lo && v <= self.hi
    }
}

/// A [`ParamDoc`] in a const context (no plausible range; see [`ParamDoc::with_plausible`]).
pub const fn doc(
    name: &'static str,
    default: &'static str,
    unit: &'static str,
    meaning: &'static str,
) -> ParamDoc {
    ParamDoc {
        name,
        default,
        unit,
        meaning,
        plausible: None,
    }
}

/// The `ecn` switch of the algorithms that either mark or drop (RED, BLUE, PI, Orange).
pub const ECN_DOC: ParamDoc = doc(
    "ecn",
    "false",
    "bool",
    "mark ECT packets instead of dropping them",
);

impl ParamDoc {
    /// The same parameter, plausible between `lo` and `hi` (in its unit).
    pub const fn with_plausible(self, lo: f64, hi: f64) -> ParamDoc {
        ParamDoc {
            plausible: Some(Plausible::new(lo, hi)),
            ..self
        }
    }
}
