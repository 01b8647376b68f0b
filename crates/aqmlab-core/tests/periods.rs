//! Issue 35, class F: periods accepted down to 1 ns (`t_update` of pie, pi2, dualpi2, fq_pie,
//! also through an AQM `set` event, and a ping's `interval`) made runs of a few simulated
//! seconds take minutes. Every period, found from what the engine schedules rather than from
//! a list of fields, has a floor of 1 us, at scenario load and when an event sets it.

use aqmlab_core::aqm::registry::REGISTRY;
use aqmlab_core::build::build;
use aqmlab_core::testing::{Dumbbell, TCP_TO_RECEIVERS};
use aqmlab_core::units::MIN_PERIOD;
use aqmlab_core::Scenario;

fn dumbbell(aqm: &str, extra: &str, flows: &str) -> String {
    let bottleneck =
        format!(r#"rate = "10Mbps", delay = "10ms", queue = {{ limit = 100, aqm = {aqm} }}"#);
    Dumbbell {
        duration: "3s",
        head: extra,
        bottleneck: &bottleneck,
        rest: &format!("{TCP_TO_RECEIVERS}{flows}"),
        ..Default::default()
    }
    .toml()
}

/// The scenario's error (from parsing, or from building where the AQMs are built), as text.
fn error(text: &str) -> String {
    match Scenario::from_toml(text) {
        Err(e) => e.to_string(),
        Ok(s) => match build(&s, 1, None, &mut || true) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted:\n{text}"),
        },
    }
}

fn accepted(text: &str) -> bool {
    Scenario::from_toml(text).is_ok_and(|s| build(&s, 1, None, &mut || true).is_ok())
}

/// A value of parameter `unit` ("s" or "Hz") giving a timer period of `ns` nanoseconds.
fn value_for(unit: &str, ns: u64) -> String {
    match unit {
        "s" => format!("\"{ns}ns\""),
        "Hz" => format!("{}", 1e9 / ns as f64),
        other => panic!("a timer parameter in {other}"),
    }
}

/// Every algorithm with a timer (pie, pi2, dualpi2, fq_pie, pi, rem: found from the
/// registry, so a new one is covered) refuses a period below 1 us, in the queue's table and
/// in an event's `set`, naming the parameter; 1 us itself runs.
#[test]
fn every_aqm_timer_period_has_a_floor_of_1us() {
    let (mut timers, mut set_checked) = (vec![], vec![]);
    for info in REGISTRY {
        let Some(name) = info.timer else { continue };
        timers.push(info.name);
        let unit = info.params.iter().find(|d| d.name == name).unwrap().unit;
        let table = |ns: u64| {
            format!(
                "{{ kind = \"{}\", {name} = {} }}",
                info.name,
                value_for(unit, ns)
            )
        };
        for ns in [1, 999] {
            let e = error(&dumbbell(&table(ns), "", ""));
            assert!(
                e.starts_with(&format!("topology.bottleneck.queue.aqm.{name}: ")),
                "{}: {e}",
                info.name
            );
            assert!(e.contains("must be at least 1us"), "{}: {e}", info.name);
            let event = format!(
                "[[events]]\nat = \"1s\"\nqueue = \"bottleneck\"\nset = {{ {name} = {} }}",
                value_for(unit, ns)
            );
            let aqm = format!("\"{}\"", info.name);
            let e = error(&format!("{}\n{event}", dumbbell(&aqm, "", "")));
            // Schedulers and algorithms with derived state cannot change at all.
            if e.starts_with("events[0].queue: ") {
                continue;
            }
            set_checked.push(info.name);
            assert!(
                e.starts_with(&format!("events[0].set.{name}: ")),
                "{}: {e}",
                info.name
            );
        }
        assert!(
            accepted(&dumbbell(&table(MIN_PERIOD), "", "")),
            "{}: 1 us refused",
            info.name
        );
    }
    for expected in ["pie", "pi2", "dualpi2", "fq_pie"] {
        assert!(timers.contains(&expected), "{timers:?}");
    }
    for expected in ["pie", "pi2", "pi"] {
        assert!(set_checked.contains(&expected), "{set_checked:?}");
    }
}

/// The schema's own periods: a ping's `interval` and `sample_interval`.
#[test]
fn probe_and_sampling_periods_have_a_floor_of_1us() {
    let ping = |interval: &str| {
        format!("[[flows]]\nkind = \"ping\"\nfrom = \"s0\"\nto = \"d0\"\ninterval = \"{interval}\"")
    };
    for bad in ["1ns", "999ns"] {
        let e = error(&dumbbell("\"red\"", "", &ping(bad)));
        assert_eq!(
            e,
            format!("flows[1].interval: a period must be at least 1us (one event per period), got {bad}")
        );
        let e = error(&dumbbell(
            "\"red\"",
            &format!("sample_interval = \"{bad}\""),
            "",
        ));
        assert!(
            e.starts_with("sample_interval: a period must be at least 1us"),
            "{e}"
        );
    }
    assert!(accepted(&dumbbell(
        "\"red\"",
        "sample_interval = \"1ms\"",
        &ping("1us")
    )));
}

/// The declaration the errors name (`AqmInfo::timer`) matches what each algorithm does: a
/// discipline built with its defaults has a timer exactly when it declares the parameter
/// that sets it, and that parameter is one of its own.
#[test]
fn the_algorithms_with_a_timer_are_those_that_declare_it() {
    use aqmlab_core::aqm::params::QueueEnv;
    use aqmlab_core::aqm::registry::build_queue;
    use aqmlab_core::aqm::{QueueDiscipline, QueueLimit};
    let env = QueueEnv {
        link_rate_bps: 10_000_000,
        link_delay: 10_000_000,
        limit: QueueLimit::Packets(100),
    };
    for info in REGISTRY {
        let q = build_queue(&serde_json::json!(info.name), &env, None, "q").unwrap();
        assert_eq!(
            q.timer_interval().is_some(),
            info.timer.is_some(),
            "{}: timer {:?}",
            info.name,
            info.timer
        );
        if let Some(name) = info.timer {
            assert!(info.params.iter().any(|d| d.name == name), "{}", info.name);
        }
    }
}
