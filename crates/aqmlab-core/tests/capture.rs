//! Packet capture and packet trace against the queue table of the same run (issue 27, item 1):
//! one capture record per departure, CE marks in the captured IP headers, the trace's events
//! adding up to the queue's counters, and a run unchanged by being captured.

use aqmlab_core::result::RunResult;
use aqmlab_core::testing::{Dumbbell, TCP_IN_FIRST_SECOND};
use aqmlab_core::{run_writing, Scenario};
use std::path::{Path, PathBuf};

fn dumbbell(aqm: &str, ecn: bool, extra: &str) -> Scenario {
    Dumbbell {
        duration: "8s",
        head: &format!("name = \"capture-test\"\nseed = 3\n{extra}"),
        senders: 5,
        bottleneck: &format!(
            r#"rate = "10Mbps", delay = "20ms", queue = {{ limit = 60, aqm = {aqm} }}"#
        ),
        access: r#"rate = "100Mbps", delay = ["1ms", "2ms", "3ms", "4ms", "5ms"]"#,
        rest: &format!(
            r#"
            [tcp]
            variant = "sack"
            window = 64
            ecn = {ecn}
            {TCP_IN_FIRST_SECOND}
            [[flows]]
            kind = "cbr"
            from = "s0"
            to = "d0"
            rate = "500kbps"
            packet_size = 500
            "#
        ),
    }
    .scenario()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("aqmlab-capture-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run_into(s: &Scenario, dir: &Path) -> RunResult {
    run_writing(s, 3, None, &mut |_| true, dir).unwrap()
}

/// The records of a classic little-endian nanosecond pcap: (time ns, captured bytes, orig_len).
fn records(path: &Path) -> Vec<(u64, Vec<u8>, u32)> {
    let b = std::fs::read(path).unwrap();
    let le = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    assert_eq!(le(0), 0xa1b2_3c4d);
    let mut out = vec![];
    let mut at = 24;
    while at < b.len() {
        let (s, ns, incl, orig) = (le(at), le(at + 4), le(at + 8) as usize, le(at + 12));
        out.push((
            s as u64 * 1_000_000_000 + ns as u64,
            b[at + 16..at + 16 + incl].to_vec(),
            orig,
        ));
        at += 16 + incl;
    }
    assert_eq!(at, b.len(), "the last record is whole");
    out
}

#[test]
fn one_record_per_departure_and_the_run_unchanged() {
    let plain = dumbbell("\"droptail\"", false, "");
    let captured = dumbbell(
        "\"droptail\"",
        false,
        r#"capture = ["bottleneck", "bottleneck_reverse", "s0->r0"]
           trace = ["bottleneck"]"#,
    );
    let dir = scratch("departures");
    let a = run_into(&plain, &dir);
    let b = run_into(&captured, &dir);
    let json = |r: &RunResult| {
        (
            serde_json::to_string(&r.queues).unwrap(),
            serde_json::to_string(&r.flows).unwrap(),
            r.events,
        )
    };
    assert_eq!(json(&a), json(&b), "capturing changed the run");
    assert_eq!(b.capture_files.len(), 3);
    for (link, file) in [
        ("bottleneck", "bottleneck.pcap"),
        ("bottleneck_reverse", "bottleneck_reverse.pcap"),
        ("s0->r0", "s0-r0.pcap"),
    ] {
        let recs = records(&dir.join(file));
        let q = b.queue(link).unwrap();
        assert!(q.departures > 100, "{link}: {} departures", q.departures);
        assert_eq!(recs.len() as u64, q.departures, "{link}");
        assert!(
            recs.windows(2).all(|w| w[0].0 <= w[1].0),
            "{link}: time order"
        );
        for (_, bytes, orig) in &recs {
            let total = u16::from_be_bytes([bytes[2], bytes[3]]) as u32;
            assert_eq!(total, *orig, "{link}: IP total length = orig_len");
        }
    }
    // The same run captured twice writes the same bytes.
    let dir2 = scratch("departures-again");
    run_into(&captured, &dir2);
    for f in ["bottleneck.pcap", "bottleneck_reverse.pcap", "s0-r0.pcap"] {
        assert_eq!(
            std::fs::read(dir.join(f)).unwrap(),
            std::fs::read(dir2.join(f)).unwrap(),
            "{f}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&dir2);
}

#[test]
fn ce_marks_reach_the_capture_and_the_trace_adds_up() {
    let red = r#"{ kind = "red", min_th = 5, max_th = 15, max_p = 0.1, ecn = true }"#;
    let s = dumbbell(
        red,
        true,
        r#"capture = ["bottleneck"]
        trace = ["bottleneck"]"#,
    );
    let dir = scratch("ce");
    let r = run_into(&s, &dir);
    let q = r.queue("bottleneck").unwrap();
    assert!(q.marks > 10, "{} marks", q.marks);
    let recs = records(&dir.join("bottleneck.pcap"));
    let ce = recs.iter().filter(|(_, b, _)| b[1] & 3 == 3).count() as u64;
    let ect = recs.iter().filter(|(_, b, _)| b[1] & 3 == 2).count() as u64;
    // RED marks arrivals, which then depart marked unless still queued at the end.
    assert!(
        ce <= q.marks && ce + q.backlog_at_end >= q.marks,
        "{ce} CE packets captured, {} marks, {} left queued",
        q.marks,
        q.backlog_at_end
    );
    assert!(ect > ce, "ECT(0) on the other data packets");

    let t = &r.trace.as_ref().expect("a trace").rows;
    let count = |ev: u8, why: Option<u8>| {
        (0..t.len())
            .filter(|&i| t.event[i] == ev && why.is_none_or(|w| t.reason[i] == w))
            .count() as u64
    };
    let (enq, deq, drops, marks) = (
        count(0, None),
        count(1, None),
        count(2, None),
        count(3, None),
    );
    assert_eq!(enq, q.arrivals);
    assert_eq!(deq, q.departures);
    assert_eq!(marks, q.marks);
    assert_eq!(count(2, Some(1)), q.early_drops);
    assert_eq!(count(2, Some(2)), q.forced_drops);
    assert_eq!(drops, q.drops + q.link_losses);
    assert_eq!(enq - q.drops, deq + q.backlog_at_end);
    // The queue length a row gives is what its events so far leave: + an arrival, - a queue
    // drop or a transmission start; checked at the last row of each instant (rows of one
    // instant share the length at its end).
    let mut len = 0i64;
    let mut checked = 0;
    for i in 0..t.len() {
        len += match (t.event[i], t.reason[i]) {
            (0, _) => 1,
            (1, _) | (2, 1) | (2, 2) => -1,
            _ => 0,
        };
        if i + 1 == t.len() || t.time[i + 1] != t.time[i] {
            assert_eq!(t.queue_packets[i] as i64, len, "row {i}");
            checked += 1;
        }
    }
    assert!(checked > 1000);
    assert_eq!(len as u64, q.backlog_at_end);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_capture_link_is_named_with_a_suggestion() {
    let s = dumbbell("\"droptail\"", false, r#"capture = ["botleneck"]"#);
    let e = match run_writing(&s, 1, None, &mut |_| true, &scratch("unknown")) {
        Err(aqmlab_core::Error::Scenario(e)) => e,
        other => panic!(
            "expected a scenario error, got {:?}",
            other.map(|r| r.events)
        ),
    };
    assert_eq!(e.path, "capture[0]");
    assert!(
        e.message.contains("did you mean `bottleneck`?"),
        "{}",
        e.message
    );
    assert!(e.message.contains("bottleneck_reverse"), "{}", e.message);
}

/// Each flow kind's entry in a scenario: (kind, the table's lines, whether it is TCP on the
/// wire). Every kind of `[[flows]]`; a tcp_rr probe is two engine flows, a workload many.
const KINDS: [(&str, &str, bool); 7] = [
    ("tcp", "size = \"40KB\"", true),
    ("cbr", "rate = \"300kbps\"\npacket_size = 400", false),
    (
        "poisson",
        "packets_per_second = 50\npacket_size = 300",
        false,
    ),
    (
        "onoff",
        "rate = \"400kbps\"\npacket_size = 500\non_time = \"50ms\"\noff_time = \"50ms\"",
        false,
    ),
    (
        "workload",
        "rate = 20\nsizes = { dist = \"constant\", size = \"3KB\" }",
        true,
    ),
    ("ping", "interval = \"20ms\"", false),
    ("tcp_rr", "request_size = 200\nresponse_size = 900", true),
];

/// A dumbbell carrying one entry of each kind in `kinds` (indices into [`KINDS`]), `count`
/// flows of it where the kind takes a count, capturing `links`.
fn every_kind(kinds: &[usize], count: u32, links: &[&str], format: &str, seed: u64) -> Scenario {
    let mut flows = String::new();
    for (i, &k) in kinds.iter().enumerate() {
        let (kind, lines, _) = KINDS[k];
        let count = if kind == "workload" {
            String::new()
        } else {
            format!("count = {count}")
        };
        flows += &format!(
            "[[flows]]\nkind = \"{kind}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\n{count}\n{lines}\n"
        );
    }
    let capture: Vec<String> = links.iter().map(|l| format!("\"{l}\"")).collect();
    Dumbbell {
        duration: "1s",
        head: &format!(
            "seed = {seed}\ncapture = [{}]\ncapture_format = \"{format}\"\ntrace = [\"bottleneck\"]",
            capture.join(", ")
        ),
        senders: kinds.len().max(1) as u32,
        bottleneck: r#"rate = "5Mbps", delay = "5ms", queue = { limit = 30, aqm = "codel" }"#,
        access: r#"rate = "50Mbps", delay = "1ms""#,
        rest: &format!("[tcp]\nvariant = \"sack\"\nwindow = 32\n{flows}"),
    }
    .scenario()
}

/// The flow a captured packet belongs to, from its ports (`wire_headers::flow_ports`: the
/// sender's port is 1024 + flow, the receiver's 5001, for the small flow ids here), and
/// whether it is TCP.
fn flow_of_record(bytes: &[u8]) -> (u32, bool) {
    let proto = bytes[9];
    assert!(proto == 6 || proto == 17, "protocol {proto}");
    let port = |i: usize| u16::from_be_bytes([bytes[20 + i], bytes[21 + i]]) as u32;
    let (sport, dport) = (port(0), port(2));
    let flow = if sport == 5001 { dport } else { sport } - 1024;
    (flow, proto == 6)
}

/// Every captured record belongs to a flow of the run and has that flow's protocol, and each
/// capture has one record per departure of its link.
fn check_capture(r: &RunResult, s: &Scenario, dir: &Path) -> Result<(), String> {
    let tcp_kinds = ["tcp", "workload", "tcp_rr"];
    for name in &s.capture.capture {
        let file = dir.join(format!("{}.pcap", name.replace("->", "-")));
        let recs = records(&file);
        let q = r.queues.iter().find(|q| q.name == *name);
        let departures = q.map_or(0, |q| q.departures);
        if recs.len() as u64 != departures {
            return Err(format!(
                "{name}: {} records, {departures} departures",
                recs.len()
            ));
        }
        for (_, bytes, _) in &recs {
            let (flow, tcp) = flow_of_record(bytes);
            let f = r
                .flows
                .get(flow as usize)
                .ok_or_else(|| format!("{name}: a record of flow {flow}, not in the run"))?;
            if tcp != tcp_kinds.contains(&f.kind.as_str()) {
                return Err(format!(
                    "{name}: flow {flow} ({}) captured as {}",
                    f.kind,
                    if tcp { "TCP" } else { "UDP" }
                ));
            }
        }
    }
    Ok(())
}

/// Issue 35, class E: a capture with a tcp_rr probe panicked (net/tap.rs: index out of
/// bounds; the probe is two engine flows, the taps had one wire entry for it). Also the
/// workload's transfers and the tcp_rr flows were written as UDP (only `kind = "tcp"` got a
/// TCP header).
#[test]
fn every_flow_kind_is_captured_as_what_it_is() {
    // tcp_rr first: its second flow shifts the ids of every flow after it.
    let kinds = [6, 5, 4, 0, 1];
    let s = every_kind(&kinds, 2, &["bottleneck", "bottleneck_reverse"], "pcap", 5);
    let dir = scratch("every-kind");
    let r = run_into(&s, &dir);
    let kinds_seen: Vec<&str> = r.flows.iter().map(|f| f.kind.as_str()).collect();
    assert!(kinds_seen.starts_with(&["tcp_rr"; 4]), "{kinds_seen:?}");
    check_capture(&r, &s, &dir).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

mod every_kind_property {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // Issue 35: the capture's property coverage never had a probe or a workload. Any mix
        // of the seven flow kinds, in any order and count, captured on any link in either
        // format: no panic, a record per departure, each with its flow's protocol.
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn any_mix_of_flow_kinds_is_captured(
            kinds in prop::collection::vec(0usize..KINDS.len(), 1..5),
            count in 1u32..3,
            links in prop::sample::subsequence(
                vec!["bottleneck", "bottleneck_reverse", "s0->r0", "r1->d0"], 1..4),
            seed in 0u64..1000,
        ) {
            let s = every_kind(&kinds, count, &links, "pcap", seed);
            let dir = scratch(&format!("prop-{seed}-{}", kinds.len()));
            let r = run_writing(&s, seed, None, &mut |_| true, &dir)
                .map_err(|e| TestCaseError::fail(format!("{e}")))?;
            let checked = check_capture(&r, &s, &dir);
            let _ = std::fs::remove_dir_all(&dir);
            prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
            // Issue 35, class P: one loss rate for every kind, of the packets the flow's
            // sender sent (no warm-up here: the window is the run); a probe's lost requests
            // are dropped ones, never those on their way at the end.
            for f in &r.flows {
                let forward_drops = f.loss_rate * f.packets_sent as f64;
                prop_assert!(f.loss_rate <= 1.0 && forward_drops <= f.drops as f64 + 1e-6,
                    "flow {} ({}): loss rate {} of {} sent, {} drops",
                    f.flow, f.kind, f.loss_rate, f.packets_sent, f.drops);
            }
            for g in &r.latency_summary {
                let flows = r.flows.iter().filter(|f| f.group == g.group && f.kind == "ping");
                let (sent, drops) = flows.fold((0, 0), |(s, d), f| (s + f.packets_sent, d + f.drops));
                match g.kind.as_str() {
                    "ping" => prop_assert!(g.lost == drops && g.samples + g.lost <= sent,
                        "{}: {} samples, {} lost, {sent} sent, {drops} drops", g.group, g.samples, g.lost),
                    _ => prop_assert_eq!(g.lost, 0, "{}", g.group),
                }
            }
            // The pcapng writer takes the same flows (only the framing differs).
            let ng = every_kind(&kinds, count, &links, "pcapng", seed);
            let ng_dir = scratch(&format!("prop-ng-{seed}-{}", kinds.len()));
            let done = run_writing(&ng, seed, None, &mut |_| true, &ng_dir);
            let _ = std::fs::remove_dir_all(&ng_dir);
            prop_assert!(done.is_ok(), "{:?}", done.err());
        }
    }
}

fn scenario_error(s: &Scenario, dir: &Path) -> aqmlab_core::ScenarioError {
    match run_writing(s, 1, None, &mut |_| true, dir) {
        Err(aqmlab_core::Error::Scenario(e)) => e,
        other => panic!(
            "expected a scenario error, got {:?}",
            other.map(|r| r.events)
        ),
    }
}

/// A graph of one link per name (`a<i>` to `b`), every link captured.
fn graph_with_links(names: &[&str]) -> Scenario {
    let links: Vec<serde_json::Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            serde_json::json!({
                "from": format!("a{i}"), "to": "b", "name": n, "rate": "10Mbps", "delay": "1ms"
            })
        })
        .collect();
    let mut nodes: Vec<String> = (0..names.len()).map(|i| format!("a{i}")).collect();
    nodes.push("b".into());
    Scenario::from_json(
        &serde_json::json!({
            "duration": "1s",
            "capture": names,
            "topology": { "kind": "graph", "nodes": nodes, "links": links },
            "flows": [{"kind": "cbr", "from": "a0", "to": "b", "rate": "1Mbps"}],
        })
        .to_string(),
    )
    .unwrap()
}

/// Issue 35, class L: capture-file problems were engine failures (a run error, exit 1),
/// found when the files were opened or written, some without the path. Each is now the
/// scenario's error, naming the field and the path, before anything runs.
#[test]
fn capture_file_problems_are_scenario_errors_naming_field_and_path() {
    // Two links whose names map to one file.
    let s = graph_with_links(&["a b", "a_b"]);
    let e = scenario_error(&s, &scratch("same-file"));
    assert_eq!(e.path, "capture[1]");
    assert!(
        e.message
            .contains("'a_b.pcap', the file of capture[0] ('a b')"),
        "{e}"
    );
    // A link name too long for a file name.
    let long = "x".repeat(300);
    let e = scenario_error(&graph_with_links(&[&long]), &scratch("long"));
    assert_eq!(e.path, "capture[0]");
    assert!(
        e.message
            .contains("file name of 305 bytes, longer than the 255"),
        "{e}"
    );
    // capture_dir is a file, or under one.
    let base = scratch("dir-is-file");
    std::fs::create_dir_all(&base).unwrap();
    let file = base.join("plain");
    std::fs::write(&file, "x").unwrap();
    let s = dumbbell("\"droptail\"", false, r#"capture = ["bottleneck"]"#);
    let e = scenario_error(&s, &file);
    assert_eq!(e.path, "capture_dir");
    assert!(
        e.message
            .contains(&format!("'{}' is a file", file.display())),
        "{e}"
    );
    let e = scenario_error(&s, &file.join("sub"));
    assert_eq!(e.path, "capture_dir");
    assert!(
        e.message
            .contains(&format!("'{}' is a file, not a directory", file.display())),
        "{e}"
    );
    // The capture's file is a directory.
    std::fs::create_dir_all(base.join("out").join("bottleneck.pcap")).unwrap();
    let e = scenario_error(&s, &base.join("out"));
    assert_eq!(e.path, "capture[0]");
    assert!(
        e.message.contains("bottleneck.pcap', is a directory"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&base);
}
