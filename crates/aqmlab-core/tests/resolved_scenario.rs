//! Issue 27, item 5: the resolved scenario (every default filled in, `Scenario::resolved`),
//! fed back as a scenario, runs bit-identically to the original; and resolving it again
//! changes nothing. Over every scenario bundled with aqmlab, one scenario per built-in AQM
//! with every kind of flow, a graph, and a proptest sample of odd values.

use aqmlab_core::aqm::registry::REGISTRY;
use aqmlab_core::testing::Dumbbell;
use aqmlab_core::{run, Scenario};
use proptest::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The run's result without what depends on the machine (wall-clock times, memory).
fn measured(s: &Scenario, seed: u64) -> Value {
    let mut v = serde_json::to_value(run(s, seed).unwrap()).unwrap();
    let m = v.as_object_mut().unwrap();
    for key in [
        "wall_time_s",
        "events_per_second",
        "timings",
        "peak_rss_bytes",
    ] {
        m.remove(key);
    }
    v
}

/// The scenario's run equals its resolved scenario's run, and the resolved scenario is a
/// fixed point of resolution.
fn check_round_trip(s: &Scenario, what: &str) {
    check_resolution(s, what);
    let again = Scenario::from_value(&s.resolved().unwrap()).unwrap();
    assert_eq!(
        measured(s, 3),
        measured(&again, 3),
        "{what}: the runs differ"
    );
}

/// The resolved scenario is a fixed point of resolution, also through TOML text (what
/// `aqmlab run --dry-run` prints must read back).
fn check_resolution(s: &Scenario, what: &str) {
    let resolved = s.resolved().unwrap_or_else(|e| panic!("{what}: {e}"));
    let again = Scenario::from_value(&resolved).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(
        again.resolved().unwrap(),
        resolved,
        "{what}: not a fixed point"
    );
    let text = toml::to_string(&resolved).unwrap_or_else(|e| panic!("{what}: {e}"));
    let from_toml = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    assert_eq!(
        from_toml.resolved().unwrap(),
        resolved,
        "{what}: TOML changed it"
    );
}

/// A scenario shortened to `secs` (a tenth of it warm-up; flows that start at random start in
/// its first half), so that each run takes a moment, also in a debug build.
fn shortened(text: &str, secs: f64) -> Scenario {
    let mut v = aqmlab_core::scenario::toml_text::parse_toml(text).unwrap();
    let original = v["duration"].clone();
    let seconds = |d: &serde_json::Value| {
        serde_json::from_value::<aqmlab_core::units::Duration>(d.clone())
            .unwrap()
            .0 as f64
            / 1e9
    };
    // Events and the flows' fixed start and stop times keep their place in the run.
    let scale = secs / seconds(&original);
    if let Some(events) = v.get_mut("events").and_then(|e| e.as_array_mut()) {
        for e in events {
            e["at"] = (seconds(&e["at"]) * scale).into();
        }
    }
    for flow in v["flows"].as_array_mut().unwrap() {
        for key in ["start", "stop"] {
            if flow[key].is_string() || flow[key].is_number() {
                flow[key] = (seconds(&flow[key]) * scale).into();
            }
        }
    }
    v["duration"] = secs.into();
    v["warmup"] = (secs / 10.0).into();
    for flow in v["flows"].as_array_mut().unwrap() {
        if flow["start"].get("uniform").is_some() {
            flow["start"]["uniform"] = serde_json::json!([0.0, secs / 2.0]);
        }
    }
    Scenario::from_value(&v).unwrap()
}

/// The scenario's text with the files it names by a relative path (a mahimahi trace, a
/// CDF) named from its own directory, as the Python loader reads a scenario file (the engine
/// takes a path as given).
fn with_files_beside(text: &str, path: &Path) -> String {
    let dir = path.parent().unwrap().canonicalize().unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut line = line.to_string();
        for key in ["trace = \"", "file = \""] {
            if let Some(at) = line.find(key) {
                let start = at + key.len();
                let whole_key = at == 0
                    || !line.as_bytes()[at - 1].is_ascii_alphanumeric()
                        && line.as_bytes()[at - 1] != b'_';
                if whole_key && !line[start..].starts_with('/') {
                    line.insert_str(start, &format!("{}/", dir.display()));
                }
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn bundled() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = vec![];
    for dir in [
        "scenarios",
        "scenarios/examples",
        "scenarios/bench",
        "python/aqmlab/scenarios",
    ] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|e| e == "toml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Above this estimated memory a bundled scenario is not run twice in the default suite: the
/// benchmarks with a window of 2^20 packets (`linux_*_window_1048576`; one takes 2 s a run
/// even shortened, in a release build). Their twins with a 4096-packet window are run, and
/// `every_bundled_scenario_round_trips_large_ones_included` runs them too.
const RUN_BELOW_BYTES: u64 = 256_000_000;

fn bundled_round_trips(run_large: bool) {
    let mut checked = 0;
    for path in bundled() {
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = aqmlab_core::scenario::toml_text::parse_toml(&text).unwrap();
        if doc.get("base").is_some() {
            continue; // a sweep's definition, not a scenario
        }
        let s = shortened(&with_files_beside(&text, &path), 0.6);
        let what = path.display().to_string();
        if run_large || aqmlab_core::scenario::memory::estimate(&s).total() < RUN_BELOW_BYTES {
            check_round_trip(&s, &what);
        } else {
            check_resolution(&s, &what);
        }
        checked += 1;
    }
    assert!(checked >= 9, "only {checked} bundled scenarios found");
}

#[test]
fn every_bundled_scenario_round_trips() {
    bundled_round_trips(false);
}

#[test]
#[ignore = "the 2^20-packet-window benchmarks: seconds a run"]
fn every_bundled_scenario_round_trips_large_ones_included() {
    bundled_round_trips(true);
}

/// Every built-in AQM at the bottleneck, a reverse queue and access queues of their own, and
/// every kind of flow (a TCP profile, a finite transfer, UDP flows with their options).
#[test]
fn every_aqm_and_every_flow_kind_round_trips() {
    for info in REGISTRY {
        let text = format!(
            r#"
            name = "every-{name}"
            duration = "3s"
            warmup = "0.5s"
            sample_interval = "100ms"
            seed = 9
            [topology]
            kind = "dumbbell"
            senders = 4
            receivers = 2
            bottleneck = {{ rate = "7.5Mbps", delay = "3.3ms", loss = 0.02, loss_direction = "both",
                           queue = {{ limit = "30KB", aqm = "{name}" }},
                           reverse_queue = {{ limit = 20, aqm = "red" }} }}
            access = {{ rate = ["100Mbps", "50Mbps"], delay = ["1ms", "2.5ms", "0.1234567s"] }}
            receiver_access = {{ rate = "1Gbps", queue = {{ limit = "64p" }} }}
            [tcp]
            profile = "linux"
            window = 64
            [[flows]]
            kind = "tcp"
            from = ["s0", "s1"]
            to = "receivers"
            count = 2
            start = {{ uniform = ["0s", "0.2s"] }}
            [[flows]]
            kind = "tcp"
            from = "s0"
            to = ["d0", "d1"]
            size = "200KB"
            start = ["0.1s", "0.3s"]
            group = "short"
            tcp = {{ profile = "ns2", variant = "sack", delayed_ack = true }}
            [[flows]]
            kind = "cbr"
            from = "s1"
            to = "d1"
            rate = "1Mbps"
            packet_size = 500
            stop = "2s"
            [[flows]]
            kind = "poisson"
            from = "s2"
            to = "d0"
            packets_per_second = 123.5
            sizes = "exponential"
            [[flows]]
            kind = "onoff"
            from = "s3"
            to = "d1"
            rate = "2Mbps"
            on_time = "150ms"
            off_time = 0.35
            "#,
            name = info.name
        );
        check_round_trip(&Scenario::from_toml(&text).unwrap(), info.name);
    }
}

#[test]
fn a_graph_round_trips_with_its_link_names_and_queues_filled_in() {
    let s = Scenario::from_toml(
        r#"
        duration = "2s"
        [topology]
        kind = "graph"
        nodes = ["a", "b", "c"]
        links = [
          { from = "a", to = "b", rate = "10Mbps", delay = "2ms", queue = { aqm = { kind = "pie", target = "15ms" } }, monitor = true },
          { from = "b", to = "c", rate = "5Mbps", delay = "10ms", name = "bottleneck", queue = { limit = 30, aqm = "codel" } },
          { from = "c", to = "a", rate = "1Mbps", duplex = false },
        ]
        [[flows]]
        kind = "tcp"
        from = "a"
        to = "c"
        count = 3
        "#,
    )
    .unwrap();
    let r = s.resolved().unwrap();
    let links = r["topology"]["links"].as_array().unwrap();
    assert_eq!(links[0]["name"], "a->b");
    assert_eq!(links[0]["queue"]["aqm"]["target"], "15ms");
    assert_eq!(links[0]["queue"]["aqm"]["t_update"], "15ms");
    assert_eq!(links[0]["reverse_queue"]["aqm"]["kind"], "droptail");
    assert_eq!(links[1]["reverse_queue"]["limit"], 30);
    assert!(
        links[2].get("reverse_queue").is_none(),
        "a simplex link has none"
    );
    check_round_trip(&s, "graph");
}

/// What the resolved scenario says for the packaged default: the defaults a user would
/// otherwise look up (the TCP's, the AQM's, the receivers').
#[test]
fn the_resolved_scenario_names_the_defaults() {
    let s = Dumbbell {
        duration: "10s",
        bottleneck: r#"rate = "10Mbps", delay = "5ms", queue = { aqm = { kind = "red", max_p = 0.2 } }"#,
        access: r#"rate = "100Mbps""#,
        ..Default::default()
    }
    .scenario();
    let r = s.resolved().unwrap();
    assert_eq!(r["duration"], "10s");
    assert_eq!(r["warmup"], "0s");
    assert_eq!(r["topology"]["receivers"], 2);
    assert_eq!(r["topology"]["bottleneck"]["rate"], "10Mbps");
    assert_eq!(r["topology"]["bottleneck"]["delay"], "5ms");
    assert_eq!(r["topology"]["bottleneck"]["queue"]["limit"], 50);
    let aqm = &r["topology"]["bottleneck"]["queue"]["aqm"];
    assert_eq!(
        (aqm["kind"].as_str(), aqm["max_p"].as_f64()),
        (Some("red"), Some(0.2))
    );
    assert_eq!(aqm["gentle"], true);
    assert_eq!(r["topology"]["access"]["queue"]["limit"], 1000);
    let flow = &r["flows"][0];
    assert_eq!(
        (flow["kind"].as_str(), flow["count"].as_u64()),
        (Some("tcp"), Some(1))
    );
    assert_eq!(flow["tcp"]["window"], 20);
    assert_eq!(flow["tcp"]["min_rto"], "200ms");
    assert!(
        flow["tcp"].get("ssthresh_init").is_none(),
        "= window: left to the run"
    );
}

/// Issue 27's other parts: a workload of transfers, both latency probes, events over time,
/// a traced queue and the FCT bins, written back with their defaults and run again.
#[test]
fn workloads_probes_events_and_traces_round_trip() {
    let s = Dumbbell {
        duration: "4s",
        head: r#"
            warmup = "0.5s"
            trace = ["bottleneck"]
            fct_bins = { edges = ["20KB"], names = ["short", "long"] }
        "#,
        senders: 3,
        bottleneck: r#"rate = "10Mbps", delay = "5ms", queue = { limit = 40, aqm = "red" }"#,
        rest: r#"
        [[flows]]
        kind = "tcp"
        from = "s0"
        to = "d0"
        count = 2
        group = "bulk"
        [[flows]]
        kind = "workload"
        from = "s1"
        to = "d1"
        rate = 40
        sizes = { dist = "pareto", shape = 2.5, mean = "15KB" }
        [[flows]]
        kind = "ping"
        from = "s2"
        to = "d2"
        [[flows]]
        kind = "tcp_rr"
        from = "s2"
        to = "d2"
        start = "1s"
        [[events]]
        at = "2s"
        link = "bottleneck"
        rate = "5Mbps"
        [[events]]
        at = "2.5s"
        queue = "bottleneck"
        set = { max_p = 0.3 }
        [[events]]
        at = "3s"
        stop_flows = "bulk"
        "#,
        ..Default::default()
    }
    .scenario();
    let r = s.resolved().unwrap();
    let flows = r["flows"].as_array().unwrap();
    assert_eq!(flows[1]["kind"], "workload");
    assert!(
        flows[1].get("count").is_none(),
        "a workload draws its count"
    );
    assert_eq!(flows[2]["kind"], "ping");
    assert_eq!(flows[2]["interval"], "200ms");
    assert_eq!(flows[3]["kind"], "tcp_rr");
    assert_eq!(r["events"].as_array().unwrap().len(), 3);
    assert_eq!(r["trace"][0], "bottleneck");
    assert_eq!(r["fct_bins"]["names"][1], "long");
    check_round_trip(&s, "issue 27's parts");
}

/// Issue 35: every file a scenario names by a relative path (read by the engine from the
/// current directory) is named by an absolute one in the resolved scenario, the same file, so
/// that the resolved scenario saved in another folder runs as the original. Checked over the
/// whole document, not only `FILE_FIELDS`: a relative path naming a file anywhere in it is a
/// file-valued field left out of that list.
#[test]
fn files_are_named_by_absolute_paths_in_the_resolved_scenario() {
    // cargo runs the tests from the crate's directory
    let trace = "../../scenarios/traces/const_12mbps.mahimahi";
    let cdf = "../../scenarios/workloads/websearch.txt";
    let s = Scenario::from_toml(&format!(
        r#"
        duration = "2s"
        warmup = "0.5s"
        [topology]
        kind = "dumbbell"
        senders = 2
        bottleneck = {{ rate = "10Mbps", delay = "5ms", queue = {{ limit = 40 }} }}
        access = {{ rate = "100Mbps", delay = "1ms" }}
        [[flows]]
        kind = "workload"
        from = "s0"
        to = "d0"
        rate = 5
        sizes = {{ dist = "cdf", file = "{cdf}" }}
        [[events]]
        at = "1s"
        link = "bottleneck"
        rate = {{ trace = "{trace}" }}
        "#
    ))
    .unwrap();
    let r = s.resolved().unwrap();
    let same_file = |written: &Value, original: &str| {
        let written = Path::new(written.as_str().unwrap());
        assert!(written.is_absolute(), "{written:?} is relative");
        assert_eq!(
            written.canonicalize().unwrap(),
            Path::new(original).canonicalize().unwrap()
        );
    };
    same_file(&r["events"][0]["rate"]["trace"], trace);
    same_file(&r["flows"][0]["sizes"]["file"], cdf);
    fn relative_files(v: &Value, at: &str, found: &mut Vec<String>) {
        match v {
            Value::String(p) if Path::new(p).is_relative() && Path::new(p).is_file() => {
                found.push(format!("{at} = {p}"))
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    relative_files(item, &format!("{at}[{i}]"), found);
                }
            }
            Value::Object(m) => {
                for (k, item) in m {
                    relative_files(item, &format!("{at}.{k}"), found);
                }
            }
            _ => {}
        }
    }
    let mut found = vec![];
    relative_files(&r, "", &mut found);
    assert!(found.is_empty(), "relative file paths left: {found:?}");
    check_round_trip(&s, "files by relative paths");
}

fn arb_duration_text() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u64..50_000_000).prop_map(|ns| format!("{ns}ns")),
        (1u64..500).prop_map(|ms| format!("{ms}ms")),
        (0.0001f64..0.05).prop_map(|s| format!("{s}")),
    ]
}

proptest! {
    // Each case runs two short simulations; a handful covers the parameters (and CI's time).
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn sampled_scenarios_round_trip(
        aqm in proptest::sample::select(REGISTRY.iter().map(|i| i.name).collect::<Vec<_>>()),
        rate_bps in 100_000u64..50_000_000,
        delay in arb_duration_text(),
        limit in prop_oneof![(2u32..200).prop_map(|n| n.to_string()), (3_000u64..200_000).prop_map(|b| format!("\"{b}B\""))],
        senders in 1u32..6,
        count in 1u32..4,
        variant in proptest::sample::select(vec!["reno", "newreno", "sack"]),
        ecn in any::<bool>(),
        start_hi in arb_duration_text(),
        seed in 0u64..1000,
    ) {
        let text = format!(
            r#"
            duration = "1.5s"
            warmup = "0.25s"
            [topology]
            kind = "dumbbell"
            senders = {senders}
            bottleneck = {{ rate = {rate_bps}, delay = "{delay}", queue = {{ limit = {limit}, aqm = "{aqm}" }} }}
            access = {{ rate = "100Mbps", delay = "{delay}" }}
            [tcp]
            variant = "{variant}"
            ecn = {ecn}
            [[flows]]
            kind = "tcp"
            from = "senders"
            to = "receivers"
            count = {count}
            start = {{ uniform = ["0s", "{start_hi}"] }}
            "#
        );
        let s = Scenario::from_toml(&text).unwrap();
        let resolved = s.resolved().unwrap();
        let again = Scenario::from_value(&resolved).unwrap();
        prop_assert_eq!(measured(&s, seed), measured(&again, seed));
    }
}
