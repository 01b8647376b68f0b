//! Issue 11: a fuzz target for the scenario parser, in the tests so the cases it found stay
//! fixed. A hostile or careless user's scenario (valid scenarios with one field replaced by
//! any JSON value, deleted, or joined by a misspelt key; TOML text assembled from the
//! schema's own tokens) must never panic, abort or hang: it parses, is refused by the memory
//! estimate, or builds; and every error names the field it is about.
//!
//! CI runs `PROPTEST_CASES` cases (256 by default, a few seconds); `make fuzz` runs 20,000.

use aqmlab_core::build::build;
use aqmlab_core::scenario::memory::estimate;
use aqmlab_core::scenario::toml_text::parse_toml;
use aqmlab_core::{Error, Scenario, ScenarioError};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{json, Value};

const GRAPH: &str = r#"{
  "name": "graph", "duration": "2s", "warmup": "0.5s", "sample_interval": "100ms",
  "topology": {"kind": "graph", "nodes": ["a", "b", "c"],
    "links": [
      {"from": "a", "to": "b", "rate": "10Mbps", "delay": "5ms",
       "queue": {"limit": 50, "aqm": {"kind": "red", "min_th": 5, "max_th": 15}}},
      {"from": "b", "to": "c", "rate": "2Mbps", "delay": "10ms", "monitor": true,
       "queue": {"limit": "64KB", "aqm": {"kind": "fq_codel", "flows": 64, "target": "5ms"}}}]},
  "tcp": {"variant": "sack", "window": 32},
  "flows": [
    {"kind": "tcp", "from": "a", "to": "c", "count": 3, "start": {"uniform": ["0s", "1s"]}},
    {"kind": "cbr", "from": "a", "to": "c", "rate": "1Mbps", "packet_size": 500, "stop": "1.5s"},
    {"kind": "onoff", "from": "b", "to": "c", "rate": "1Mbps", "packet_size": "1000B",
     "on_time": "0.5s", "off_time": "0.5s"}]
}"#;

const DUMBBELL: &str = r#"{
  "duration": "1s", "seed": 3,
  "topology": {"kind": "dumbbell", "senders": 3, "receivers": 3,
    "bottleneck": {"rate": "10Mbps", "delay": "20ms", "loss": 0.01,
      "queue": {"limit": 100, "aqm": {"kind": "pie", "target": "15ms"}},
      "reverse_queue": {"limit": 100, "aqm": "droptail"}},
    "access": {"rate": ["100Mbps", "50Mbps"], "delay": ["1ms", "2ms", "3ms"]},
    "receiver_access": {"rate": "1Gbps"}},
  "flows": [
    {"kind": "tcp", "from": "senders", "to": "receivers", "tcp": {"ecn": true}},
    {"kind": "poisson", "from": "s0", "to": "d1", "packets_per_second": 100,
     "packet_size": 200, "exponential_sizes": true}]
}"#;

/// Any JSON value, including the awkward ones: huge and negative numbers, unit strings with
/// odd units and exponents, empty and nested containers.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        (-1e3f64..1e3).prop_map(|f| json!(f)),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "-?[0-9]{1,12}(\\.[0-9]{0,3})?(e-?[0-9]{1,3})?( ?(ns|us|ms|s|min|bps|kbps|Mbps|Gbps|B|KB|MiB|p|parsecs))?"
            .prop_map(Value::String),
        "[a-z_]{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "senders", "receivers", "red", "fq_codel", "droptail", "tcp", "cbr", "s0", "d0",
            "a", "c", "nan", "inf", "", "1e400", "0.4ns", "1e30bps",
        ])
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,10}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every path (list of keys and indices) in `v`.
fn paths(v: &Value, prefix: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(prefix.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                prefix.push(Value::String(k.clone()));
                paths(c, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                prefix.push(json!(i));
                paths(c, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |node, step| match step {
        Value::String(k) => &mut node[k.as_str()],
        Value::Number(i) => &mut node[i.as_u64().unwrap() as usize],
        _ => unreachable!(),
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    Replace(Value),
    Delete,
    /// Add a key: an existing key of that table with one character changed, or a new one.
    Misspell(usize, char),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => json_value().prop_map(Mutation::Replace),
        1 => Just(Mutation::Delete),
        1 => (any::<usize>(), prop::char::range('a', 'z')).prop_map(|(i, c)| Mutation::Misspell(i, c)),
    ]
}

fn mutate(base: &str, pick: usize, m: &Mutation) -> Value {
    let mut v: Value = serde_json::from_str(base).unwrap();
    let mut all = vec![];
    paths(&v, &mut vec![], &mut all);
    let path = &all[1 + pick % (all.len() - 1)]; // never the root: a scenario is a table
    let (parent_path, last) = path.split_at(path.len() - 1);
    match m {
        Mutation::Replace(new) => *at(&mut v, path) = new.clone(),
        Mutation::Delete => match (at(&mut v, parent_path), &last[0]) {
            (Value::Object(o), Value::String(k)) => {
                o.remove(k);
            }
            (Value::Array(a), Value::Number(i)) => {
                a.remove(i.as_u64().unwrap() as usize);
            }
            _ => unreachable!(),
        },
        Mutation::Misspell(i, c) => {
            if let (Value::Object(o), Value::String(k)) = (at(&mut v, parent_path), &last[0]) {
                let mut chars: Vec<char> = k.chars().collect();
                let n = chars.len();
                chars[i % n] = *c;
                let typo: String = chars.into_iter().collect();
                let value = o[k.as_str()].clone();
                o.insert(typo, value);
            }
        }
    }
    v
}

/// Parses, estimates and builds `v`; every error must name a field.
fn check(v: &Value) -> Result<(), TestCaseError> {
    let named = |e: &ScenarioError| -> Result<(), TestCaseError> {
        prop_assert!(!e.path.is_empty(), "an error without a field: {e}");
        prop_assert!(!e.message.is_empty(), "an error without a reason: {e:?}");
        Ok(())
    };
    let scenario = match Scenario::from_value(v) {
        Ok(s) => s,
        Err(e) => return named(&e),
    };
    // What aqmlab.run does before building: a run above the limit is refused.
    if let Err(e) = estimate(&scenario).check(200_000_000) {
        return named(&e);
    }
    match build(&scenario, 1, None, &mut || true) {
        Ok(_) => Ok(()),
        Err(Error::Scenario(e)) => named(&e),
        Err(other) => Err(TestCaseError::fail(format!("the build failed: {other}"))),
    }
}

fn config() -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(256),
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_mutated_graph_scenario_never_panics_and_every_error_names_a_field(
        pick in any::<usize>(), m in mutation()
    ) {
        check(&mutate(GRAPH, pick, &m))?;
    }

    #[test]
    fn a_mutated_dumbbell_scenario_never_panics_and_every_error_names_a_field(
        pick in any::<usize>(), m in mutation()
    ) {
        check(&mutate(DUMBBELL, pick, &m))?;
    }

    /// TOML text assembled from the schema's tokens: syntax errors name a line, schema
    /// errors a field.
    #[test]
    fn toml_text_from_schema_tokens_never_panics(
        lines in prop::collection::vec(
            (
                prop::sample::select(vec![
                    "duration", "warmup", "sample_interval", "[topology]", "kind", "senders",
                    "bottleneck", "access", "[[flows]]", "from", "to", "rate", "delay",
                    "queue", "aqm", "[tcp]", "window", "count", "start", "limit",
                ]),
                json_value(),
            ),
            0..12,
        )
    ) {
        let text: String = lines
            .iter()
            .map(|(k, v)| if k.starts_with('[') { format!("{k}\n") } else { format!("{k} = {v}\n") })
            .collect();
        match parse_toml(&text) {
            Ok(v) => check(&v)?,
            Err(e) => {
                prop_assert!(!e.message.is_empty());
                prop_assert!(!e.path.is_empty(), "a syntax error without a line: {e}\n{text}");
            }
        }
    }
}

/// Cases the fuzzing found, kept as plain tests.
#[test]
fn a_missing_required_field_is_named_itself() {
    // Was `: missing field `duration`` with no path at all.
    let mut v: Value = serde_json::from_str(DUMBBELL).unwrap();
    v.as_object_mut().unwrap().remove("duration");
    assert_eq!(
        Scenario::from_value(&v).unwrap_err().to_string(),
        "duration: required, but missing"
    );
    let mut v: Value = serde_json::from_str(DUMBBELL).unwrap();
    v["topology"]["bottleneck"]
        .as_object_mut()
        .unwrap()
        .remove("rate");
    assert_eq!(
        Scenario::from_value(&v).unwrap_err().to_string(),
        "topology.bottleneck.rate: required, but missing"
    );
}

/// Found by the Python fuzz target: "one or a list" fields said only "data did not match any
/// variant of untagged enum OneOrMany".
#[test]
fn one_or_a_list_fields_say_what_they_expected() {
    let error_with = |edit: &dyn Fn(&mut Value)| {
        let mut v: Value = serde_json::from_str(DUMBBELL).unwrap();
        edit(&mut v);
        Scenario::from_value(&v).unwrap_err().to_string()
    };
    assert_eq!(
        error_with(&|v| v["topology"]["access"]["rate"] = json!({"a": 1})),
        "topology.access.rate: invalid type: map, expected a rate such as \"10Mbps\" or a \
         number of bits per second, or a list of them"
    );
    assert_eq!(
        error_with(&|v| v["topology"]["access"]["delay"] = json!(["1ms", "5 parsecs"])),
        "topology.access.delay: item 1: unknown time unit 'parsecs' in '5 parsecs' (use s, \
         ms, us, ns or min)"
    );
    assert_eq!(
        error_with(&|v| v["flows"][0]["from"] = json!(3)),
        "flows[0].from: expected a node name or a list of them: invalid type: integer `3`, \
         expected a string, or a list of them"
    );
    assert_eq!(
        error_with(&|v| v["flows"][0]["start"] = json!({"uniformm": ["0s", "1s"]})),
        "flows[0].start: unknown field `uniformm`, expected `uniform`; did you mean `uniform`?"
    );
    assert_eq!(
        error_with(&|v| v["flows"][0]["start"] = json!(true)),
        "flows[0].start: expected a time, a list of times or { uniform = [lo, hi] }: invalid \
         type: boolean `true`, expected a duration such as \"5ms\" or a number of seconds, or \
         a list of them"
    );
}
