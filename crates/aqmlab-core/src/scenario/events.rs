//! `[[events]]`: what changes during a run, at a given time. Read and checked here, with
//! everything that does not need the network built; the names of links, queues and flow
//! groups are resolved when the network is (`crate::timeline`), where they are known.
//!
//! ```toml
//! [[events]]                      # a rate step (forward direction unless `direction`)
//! at = "50s"
//! link = "bottleneck"
//! rate = "5Mbps"                  # or { trace = "traces/step.mahimahi" }; delay, loss too
//!
//! [[events]]                      # an outage: both directions unless `direction`
//! at = "20s"
//! link = "bottleneck"
//! state = "down"                  # then another event with state = "up"
//!
//! [[events]]                      # a flash crowd: a group's flows start now
//! at = "30s"
//! start_flows = "crowd"           # a group name, or "flows[2]"; stop_flows likewise
//!
//! [[events]]                      # an AQM parameter changes
//! at = "60s"
//! queue = "bottleneck"
//! set = { max_p = 0.2 }
//! ```

use crate::net::delivery_trace::DeliveryTrace;
use crate::units::error::{from_value, ScenarioError};
use crate::units::{Duration, Rate};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::sync::Arc;

/// One entry of `[[events]]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventSpec {
    /// When it happens, from the start of the run (before the end of the run).
    pub at: Duration,
    /// The link to change, as the scenario names it: the dumbbell's "bottleneck" (and
    /// "bottleneck_reverse"), an access link "s0->r0", a graph link by its `name` or
    /// "from->to".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// Which direction(s) of a duplex link: `forward`, `reverse` or `both`. Unset, `rate`,
    /// `delay` and `loss` change the forward direction (as `loss_direction` defaults to
    /// forward) and `state` both (a cut link is cut both ways).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<EventDirection>,
    /// The new rate, or a mahimahi delivery trace the rate follows from now on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<RateSetting>,
    /// The new one-way propagation delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    /// The new Bernoulli loss probability of each transmitted packet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
    /// Take the link down or bring it up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<LinkState>,
    /// Flows that start now: a flow group by name, or "flows[i]" (the i-th `flows` entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_flows: Option<String>,
    /// Flows whose senders stop now (what they sent may still arrive), named as
    /// `start_flows`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_flows: Option<String>,
    /// The queue (named by its link) whose AQM parameters `set` changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    /// AQM parameters and their new values, e.g. `{ max_p = 0.2 }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<serde_json::Map<String, Value>>,
    /// What the AQM's running state (RED's average, PIE's p...) does when `set` changes its
    /// parameters. Unset: as Linux's `tc qdisc change` does for that algorithm (RED resets,
    /// the others keep theirs; `crate::timeline::resets_by_default`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aqm_state: Option<AqmState>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AqmState {
    /// The algorithm starts again from its initial state with the new parameters.
    Reset,
    /// The algorithm keeps its state and takes the new parameters.
    Keep,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventDirection {
    Forward,
    Reverse,
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkState {
    Down,
    Up,
}

/// A fixed rate, or `{ trace = "file" }`: a mahimahi packet-delivery trace, read when the
/// scenario is (a relative path is taken from the current directory; the Python loader
/// resolves it against the scenario file's directory first).
#[derive(Debug, Clone)]
pub enum RateSetting {
    Fixed(Rate),
    Trace {
        path: String,
        /// Filled in by [`parse_events`].
        trace: Option<Arc<DeliveryTrace>>,
    },
}

impl Serialize for RateSetting {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RateSetting::Fixed(r) => r.serialize(s),
            RateSetting::Trace { path, .. } => serde_json::json!({ "trace": path }).serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for RateSetting {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct TraceFile {
            trace: String,
        }
        match Value::deserialize(d)? {
            Value::Object(m) => TraceFile::deserialize(Value::Object(m))
                .map(|t| RateSetting::Trace {
                    path: t.trace,
                    trace: None,
                })
                .map_err(D::Error::custom),
            v => Rate::deserialize(v)
                .map(RateSetting::Fixed)
                .map_err(D::Error::custom),
        }
    }
}

impl EventSpec {
    /// Does this event change the flows named `group` or `flows[spec]`?
    pub fn names_flows(name: &str, group: &str, spec: usize) -> bool {
        name == group || name == format!("flows[{spec}]")
    }

    /// The direction of a change of `field` ("rate", "delay", "loss" or "state").
    pub fn direction_of(&self, field: &str) -> EventDirection {
        self.direction.unwrap_or(if field == "state" {
            EventDirection::Both
        } else {
            EventDirection::Forward
        })
    }
}

/// A flow's start and stop (ns) after the events that start or stop its group
/// (`group`, or `flows[spec]`): one that starts it earlier than its own start starts it then;
/// one that stops it earlier than its own stop stops it then. A flow starts once: an event
/// after its start does not restart it, and one that stops it before it starts keeps it idle.
pub fn flow_window(
    events: &[EventSpec],
    group: &str,
    spec: usize,
    mut start: crate::sim::Time,
    mut stop: Option<crate::sim::Time>,
) -> (crate::sim::Time, Option<crate::sim::Time>) {
    for e in events {
        if e.start_flows
            .as_deref()
            .is_some_and(|n| EventSpec::names_flows(n, group, spec))
        {
            start = start.min(e.at.0);
        }
        if e.stop_flows
            .as_deref()
            .is_some_and(|n| EventSpec::names_flows(n, group, spec))
        {
            stop = Some(stop.map_or(e.at.0, |s| s.min(e.at.0)));
        }
    }
    (start, stop)
}

/// Reads and checks `[[events]]`; errors name `events[i].field`. `groups`: the flow group
/// of each `flows` entry (its `group`, or "flows[i]").
pub fn parse_events(
    values: &[Value],
    duration: Duration,
    groups: &[String],
) -> Result<Vec<EventSpec>, ScenarioError> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| parse_event(v, &format!("events[{i}]"), duration, groups))
        .collect()
}

fn parse_event(
    v: &Value,
    path: &str,
    duration: Duration,
    groups: &[String],
) -> Result<EventSpec, ScenarioError> {
    let mut e: EventSpec = from_value(v, path)?;
    let err = |field: &str, m: String| ScenarioError::new(format!("{path}.{field}"), m);
    if e.at.0 >= duration.0 {
        return Err(err(
            "at",
            format!(
                "{}s is at or after the end of the run (duration {}s)",
                e.at.secs(),
                duration.secs()
            ),
        ));
    }
    let link_fields = [
        ("rate", e.rate.is_some()),
        ("delay", e.delay.is_some()),
        ("loss", e.loss.is_some()),
        ("state", e.state.is_some()),
        ("direction", e.direction.is_some()),
    ];
    let targets = [
        ("link", e.link.is_some()),
        ("start_flows", e.start_flows.is_some()),
        ("stop_flows", e.stop_flows.is_some()),
        ("queue", e.queue.is_some()),
    ];
    if e.link.is_none() {
        if let Some((f, _)) = link_fields.iter().find(|f| f.1) {
            return Err(err(f, "changes a link: give `link` too".into()));
        }
    }
    let given: Vec<&str> = targets.iter().filter(|t| t.1).map(|t| t.0).collect();
    match given.as_slice() {
        [] => {
            return Err(ScenarioError::new(
                path,
                "says nothing to do: give `link` (with rate, delay, loss or state), \
                 `start_flows`, `stop_flows`, or `queue` with `set`",
            ))
        }
        [_] => {}
        [a, b, ..] => {
            return Err(err(
                b,
                format!("one event does one thing: `{a}` and `{b}` need an event each"),
            ))
        }
    }
    if e.link.is_some() && !link_fields[..4].iter().any(|f| f.1) {
        return Err(err(
            "link",
            "needs what to change: rate, delay, loss or state".into(),
        ));
    }
    match (&e.queue, &e.set) {
        (Some(_), None) => {
            return Err(err(
                "set",
                "required with `queue`: the AQM parameters to change, e.g. { max_p = 0.2 }".into(),
            ))
        }
        (None, Some(_)) => {
            return Err(err(
                "queue",
                "required with `set`: the queue (by link name)".into(),
            ))
        }
        (None, None) if e.aqm_state.is_some() => {
            return Err(err(
                "aqm_state",
                "goes with `queue` and `set` (what an AQM change does to its state)".into(),
            ))
        }
        (Some(_), Some(set)) => {
            if set.is_empty() {
                return Err(err("set", "names no parameter".into()));
            }
            if set.contains_key("kind") {
                return Err(err(
                    "set.kind",
                    "an event changes parameters, not the algorithm".into(),
                ));
            }
        }
        (None, None) => {}
    }
    for (field, name) in [
        ("start_flows", &e.start_flows),
        ("stop_flows", &e.stop_flows),
    ] {
        let Some(name) = name else { continue };
        let known = groups
            .iter()
            .enumerate()
            .any(|(i, g)| EventSpec::names_flows(name, g, i));
        if !known {
            let mut names: Vec<String> = groups.to_vec();
            names.extend((0..groups.len()).map(|i| format!("flows[{i}]")));
            names.dedup();
            return Err(err(
                field,
                crate::units::suggest::with_suggestion(
                    format!("no flows named '{name}'; groups: {}", groups.join(", ")),
                    name,
                    names.iter().map(|s| s.as_str()),
                ),
            ));
        }
    }
    if let Some(p) = e.loss {
        if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
            return Err(err(
                "loss",
                format!("must be a probability in [0, 1], got {p}"),
            ));
        }
    }
    match &mut e.rate {
        Some(RateSetting::Fixed(r)) if r.0 == 0 => {
            return Err(err(
                "rate",
                "must be > 0 (to stop the link, set state = \"down\")".into(),
            ))
        }
        Some(RateSetting::Trace { path: file, trace }) => {
            let text = super::input_file::read_text(file, &format!("{path}.rate.trace"))?;
            let parsed = DeliveryTrace::parse(&text).map_err(|t| {
                let at = t.line.map(|n| format!(":{n}")).unwrap_or_default();
                err("rate.trace", format!("{file}{at}: {}", t.message))
            })?;
            *trace = Some(Arc::new(parsed));
        }
        _ => {}
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(v: Value) -> Result<EventSpec, ScenarioError> {
        let groups = ["crowd".to_string(), "flows[1]".to_string()];
        parse_events(&[v], Duration(100_000_000_000), &groups).map(|mut v| v.remove(0))
    }

    fn msg(v: Value) -> String {
        one(v).unwrap_err().to_string()
    }

    #[test]
    fn a_rate_step_reads() {
        let e =
            one(serde_json::json!({"at": "50s", "link": "bottleneck", "rate": "5Mbps"})).unwrap();
        assert!(matches!(e.rate, Some(RateSetting::Fixed(Rate(5_000_000)))));
        assert_eq!(e.direction_of("rate"), EventDirection::Forward);
        assert_eq!(e.direction_of("state"), EventDirection::Both);
    }

    #[test]
    fn bad_events_are_one_line_errors_naming_the_field() {
        assert!(
            msg(serde_json::json!({"at": "-1s", "link": "b", "rate": "1Mbps"}))
                .starts_with("events[0].at")
        );
        assert_eq!(
            msg(serde_json::json!({"at": "100s", "link": "b", "rate": "1Mbps"})),
            "events[0].at: 100s is at or after the end of the run (duration 100s)"
        );
        assert!(msg(serde_json::json!({"at": "1s", "lnk": "b"})).contains("did you mean `link`"));
        assert_eq!(
            msg(serde_json::json!({"at": "1s", "rate": "1Mbps"})),
            "events[0].rate: changes a link: give `link` too"
        );
        assert!(
            msg(serde_json::json!({"at": "1s", "link": "b", "state": "dwn"}))
                .starts_with("events[0].state: unknown variant `dwn`")
        );
        assert!(
            msg(serde_json::json!({"at": "1s", "link": "b", "loss": 2.0}))
                .starts_with("events[0].loss: must be a probability")
        );
        assert!(msg(serde_json::json!({"at": "1s", "queue": "b"})).starts_with("events[0].set"));
        assert!(
            msg(serde_json::json!({"at": "1s", "queue": "b", "set": {"kind": "pie"}}))
                .starts_with("events[0].set.kind")
        );
        assert!(
            msg(serde_json::json!({"at": "1s", "link": "b", "start_flows": "g"}))
                .starts_with("events[0].start_flows: one event does one thing")
        );
        assert!(msg(serde_json::json!({"at": "1s"})).starts_with("events[0]: says nothing"));
        assert_eq!(
            msg(serde_json::json!({"at": "1s", "start_flows": "crwd"})),
            "events[0].start_flows: no flows named 'crwd'; groups: crowd, flows[1]; \
             did you mean `crowd`?"
        );
        assert!(one(serde_json::json!({"at": "1s", "stop_flows": "flows[0]"})).is_ok());
        assert!(one(serde_json::json!({"at": "1s", "stop_flows": "flows[2]"})).is_err());
        assert!(msg(
            serde_json::json!({"at": "1s", "link": "b", "rate": {"trace": "/nonexistent.mm"}})
        )
        .starts_with("events[0].rate.trace: '/nonexistent.mm': cannot read it: "));
    }

    #[test]
    fn a_malformed_trace_names_file_and_line() {
        let dir = std::env::temp_dir().join(format!("aqmlab-events-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("bad.mahimahi");
        std::fs::write(&file, "1\n2\nthree\n").unwrap();
        let f = file.to_str().unwrap();
        assert_eq!(
            msg(serde_json::json!({"at": "0s", "link": "b", "rate": {"trace": f}})),
            format!(
                "events[0].rate.trace: {f}:3: expected a whole number of milliseconds, \
                 got 'three'"
            )
        );
    }

    #[test]
    fn an_event_serializes_as_written() {
        let v = serde_json::json!({"at": "1s", "queue": "bottleneck", "set": {"max_p": 0.2}});
        let e = one(v).unwrap();
        let back = serde_json::to_value(&e).unwrap();
        assert_eq!(back["queue"], "bottleneck");
        assert_eq!(back["set"]["max_p"], 0.2);
        assert!(back.get("link").is_none());
    }
}
