//! Packet capture and packet trace against the queue table of the same run (issue 27, item 1):
//! one capture record per departure, CE marks in the captured IP headers, the trace's events
//! adding up to the queue's counters, and a run unchanged by being captured.

use aqmlab_core::result::RunResult;
use aqmlab_core::{run_writing, Scenario};
use std::path::{Path, PathBuf};

fn dumbbell(aqm: &str, ecn: bool, extra: &str) -> Scenario {
    let text = format!(
        r#"
        name = "capture-test"
        duration = "8s"
        seed = 3
        {extra}
        [topology]
        kind = "dumbbell"
        senders = 5
        [topology.bottleneck]
        rate = "10Mbps"
        delay = "20ms"
        queue = {{ limit = 60, aqm = {aqm} }}
        [topology.access]
        rate = "100Mbps"
        delay = ["1ms", "2ms", "3ms", "4ms", "5ms"]
        [tcp]
        variant = "sack"
        window = 64
        ecn = {ecn}
        [[flows]]
        kind = "tcp"
        from = "senders"
        to = "receivers"
        start = {{ uniform = ["0s", "1s"] }}
        [[flows]]
        kind = "cbr"
        from = "s0"
        to = "d0"
        rate = "500kbps"
        packet_size = 500
        "#
    );
    Scenario::from_toml(&text).unwrap()
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
