//! Issue 11, item 2: resource bombs (FQ-CoDel `flows = 1e8`, a million senders, a sample
//! every nanosecond, a window of 2^32) are refused before anything is built, with the field
//! and its maximum, or with the memory estimate and the field that makes the run large;
//! before, each aborted the process (exit 134, out of memory).

use aqmlab_core::build::build;
use aqmlab_core::scenario::memory::{estimate, ScenarioSize};
use aqmlab_core::testing::{Dumbbell, TCP_TO_RECEIVERS};
use aqmlab_core::Scenario;

fn dumbbell(senders: u64, flows: &str, extra: &str) -> Result<Scenario, String> {
    let toml = Dumbbell {
        duration: "100s",
        head: extra,
        senders: senders.try_into().unwrap(),
        bottleneck: r#"rate = "10Mbps", delay = "10ms", queue = { limit = 50, aqm = "red" }"#,
        rest: &format!("{TCP_TO_RECEIVERS}{flows}"),
        ..Default::default()
    }
    .toml();
    Scenario::from_toml(&toml).map_err(|e| e.to_string())
}

#[test]
fn size_fields_above_their_maximum_are_errors_naming_field_and_maximum() {
    assert_eq!(
        dumbbell(1_000_001, "", "").unwrap_err(),
        "topology.senders: must be at most 1000000, got 1000001"
    );
    assert_eq!(
        dumbbell(2, "count = 600000", "").unwrap_err(),
        "flows[0].count: the scenario would have 1200000 flows (count x nodes, over all \
         entries), above the maximum of 1000000"
    );
    let samples = dumbbell(2, "", "sample_interval = \"1us\"").unwrap_err();
    assert!(
        samples.starts_with("sample_interval: would record 100000000 samples per series"),
        "{samples}"
    );
    assert!(dumbbell(2, "tcp = { window = 4294967296 }", "")
        .unwrap_err()
        .starts_with("flows[0].tcp.window"));
}

#[test]
fn fq_codel_flows_above_linux_maximum_are_refused_when_the_queue_is_built() {
    let s = Dumbbell {
        duration: "1s",
        senders: 1,
        bottleneck: r#"rate = "10Mbps", queue = { aqm = { kind = "fq_codel", flows = 100000000 } }"#,
        access: r#"rate = "100Mbps""#,
        ..Default::default()
    }
    .scenario();
    // Counted at the maximum, so the user sees the field's limit, not a memory estimate.
    assert!(estimate(&s).total() < 100_000_000);
    let err = build(&s, 1, None, &mut || true).err().unwrap().to_string();
    assert_eq!(
        err,
        "topology.bottleneck.queue.aqm.flows: must be at most 65536 (Linux's limit), got 100000000"
    );
}

#[test]
fn the_routing_part_is_exact_for_a_dumbbell_and_for_a_table() {
    // 1000 senders and receivers: 2002 nodes of a tree, 20 bytes each.
    let s = dumbbell(1000, "", "").unwrap();
    let size = ScenarioSize::of(&s);
    assert_eq!(
        (size.nodes, size.destinations, size.flows, size.tree_routed),
        (2002, 2000, 1000, true)
    );
    assert_eq!(size.links, 2 + 4 * 1000);
    let routing = &estimate(&s).parts[0];
    assert!(routing
        .what
        .starts_with("the routes (2002 nodes of a forest)"));
    assert_eq!(routing.bytes, 2002 * 20);
    // A triangle with a flow between each pair has a cycle: a table of one 4-byte next hop
    // per (node, destination).
    let ring = Scenario::from_toml(
        r#"
        duration = "1s"
        [topology]
        kind = "graph"
        nodes = ["a", "b", "c"]
        links = [
            { from = "a", to = "b", rate = "10Mbps" },
            { from = "b", to = "c", rate = "10Mbps" },
            { from = "c", to = "a", rate = "10Mbps" },
        ]
        [[flows]]
        kind = "tcp"
        from = ["a", "b", "c"]
        to = ["b", "c", "a"]
        "#,
    )
    .unwrap();
    let size = ScenarioSize::of(&ring);
    assert!(!size.tree_routed);
    let routing = &estimate(&ring).parts[0];
    assert!(routing
        .what
        .starts_with("the routing table (3 nodes x 3 destinations)"));
    assert_eq!(routing.bytes, 3 * 3 * 4);
}

#[test]
fn a_million_senders_are_refused_by_the_estimate_naming_the_field_that_makes_it_large() {
    let s = dumbbell(1_000_000, "", "").unwrap();
    let e = estimate(&s);
    // The routes are a tree (40 MB); 40 packets in flight per flow are most of it (and a
    // burst of one window, 20); their windows' state 0.76 GB (0.71 GB before issue 25's count
    // of sends per outstanding packet: 20.2 GB in all then).
    assert!(e.total() > 10_000_000_000, "{}", e.total());
    let err = e.check(8_000_000_000).unwrap_err().to_string();
    assert!(
        err.starts_with(
            "flows[0]: the run would need about 20.3 GB of memory, 12.8 GB of it for up to \
             40000020 packets in flight, above the limit of 8.0 GB"
        ),
        "{err}"
    );
    assert!(err.contains("AQMLAB_MAX_MEMORY"), "{err}");
}

#[test]
fn fine_sampling_is_charged_to_sample_interval() {
    let s = dumbbell(100, "", "sample_interval = \"10us\"").unwrap();
    let err = estimate(&s).check(1_000_000_000).unwrap_err().to_string();
    assert!(
        err.starts_with("sample_interval: the run would need about"),
        "{err}"
    );
    assert!(err.contains("the time series (10000001 samples x"), "{err}");
    // A small scenario passes any sensible limit.
    let small = dumbbell(2, "", "").unwrap();
    assert!(estimate(&small).check(100_000_000).is_ok());
}

/// Issue 24, item 13 (the memory estimate ignores TCP window state): the linux profile with a
/// window and an initial window of 2^20 on 400 senders was estimated at 675 MB, passed a 5 GB
/// limit and then aborted (exit 134; 300 senders: 0.5 GB estimated, 5.3 GB used). A flow's
/// scoreboard and reassembly buffer are bounded by its window, and now counted so.
#[test]
fn huge_tcp_windows_are_charged_to_the_window_field() {
    let linux = "tcp = { profile = \"linux\", window = 1048576, window_init = 1048576 }";
    let s = dumbbell(300, linux, "").unwrap();
    // At least what the run was seen to use: 5.3 GB.
    assert!(
        estimate(&s).total() > 5_300_000_000,
        "{}",
        estimate(&s).total()
    );
    let s = dumbbell(400, linux, "").unwrap();
    let err = estimate(&s).check(5_000_000_000).unwrap_err().to_string();
    assert!(
        err.starts_with("flows[0].tcp.window: the run would need about"),
        "{err}"
    );
    assert!(
        err.contains("of it for the TCP window state of 400 flows"),
        "{err}"
    );
    // The default profiles' windows cost little: 20 packets (ns2), 2048 (linux). Per packet:
    // the count of sends (1 byte, issue 25), the scoreboard entry (ns-2: a flag byte; RFC
    // 6675: a flag byte and a 16-byte send stamp), the receiver's slot (16 bytes).
    let ns2 = window_state(&dumbbell(1, "", "").unwrap());
    assert_eq!(ns2, 2 * 21 * (1 + 1 + 16));
    let linux = window_state(&dumbbell(1, "tcp = { profile = \"linux\" }", "").unwrap());
    assert_eq!(linux, 2 * 2049 * (1 + 1 + 16 + 16));
}

fn window_state(s: &Scenario) -> u64 {
    let e = estimate(s);
    let part = e.parts.iter().find(|p| p.what.contains("window state"));
    part.map(|p| p.bytes).unwrap_or(0)
}
