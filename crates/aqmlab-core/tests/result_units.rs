//! Every column of the result tables has a unit, in its name or in `metrics::column_units`
//! (the binding writes the latter into the Arrow schema), unless it is a text column
//! (issue 27, item 6).

use aqmlab_core::metrics::column_units::{unit, TEXT};
use aqmlab_core::run;
use aqmlab_core::testing::Dumbbell;

fn columns<T: serde::Serialize>(row: &T) -> Vec<String> {
    match serde_json::to_value(row).unwrap() {
        serde_json::Value::Object(m) => m.keys().cloned().collect(),
        v => panic!("a row is not an object: {v}"),
    }
}

#[test]
fn every_column_of_every_table_has_a_unit() {
    let s = Dumbbell {
        head: r#"warmup = "0.5s""#,
        bottleneck: r#"rate = "10Mbps", delay = "10ms", queue = { limit = 50, aqm = "red" }"#,
        ..Default::default()
    }
    .scenario();
    let r = run(&s, 1).unwrap();
    let tables = [
        ("queues", columns(&r.queues[0])),
        ("flows", columns(&r.flows[0])),
        ("groups", columns(&r.groups[0])),
        ("queue_delays", columns(&r.queue_delays[0])),
        (
            "timeseries",
            ["time_s", "source", "variable", "value"]
                .map(String::from)
                .to_vec(),
        ),
    ];
    for (table, cols) in tables {
        for c in cols {
            assert!(
                unit(&c).is_some() || TEXT.contains(&c.as_str()),
                "{table}.{c} has no unit: name it with one or add it to metrics/column_units.rs"
            );
        }
    }
}
