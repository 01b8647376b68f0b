//! The ns-2 TCP agents (Reno, NewReno, Sack1, with and without ECN) must stay exactly as they
//! are while modern TCP is added beside them (issue 12): every number of a fixed set of runs,
//! time series included, is hashed and compared with the hash recorded when this test was
//! written (2026-11-24, before the split of loss recovery and congestion control). A change
//! of any bit of any result fails it. If a change is intended (a bug fix in the ns-2 agents),
//! record the new hash in the same commit and say why in its message.

use aqmlab_core::run;
use aqmlab_core::testing::{Dumbbell, TCP_IN_FIRST_SECOND};

/// FNV-1a, 64 bits: stable across platforms and Rust versions (unlike `DefaultHasher`).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn fingerprint(variant: &str, aqm: &str, ecn: bool) -> u64 {
    let aqm = if ecn {
        format!("{{ kind = \"{aqm}\", ecn = true }}")
    } else {
        format!("\"{aqm}\"")
    };
    let s = Dumbbell {
        duration: "20s",
        head: "warmup = \"5s\"\nsample_interval = \"100ms\"",
        senders: 5,
        bottleneck: &format!(
            r#"rate = "10Mbps", delay = "20ms", queue = {{ limit = 60, aqm = {aqm} }}"#
        ),
        access: r#"rate = "100Mbps", delay = ["1ms", "3ms", "7ms", "12ms", "20ms"]"#,
        rest: &format!(
            "[tcp]\nvariant = \"{variant}\"\necn = {ecn}\nwindow = 64\n{TCP_IN_FIRST_SECOND}"
        ),
    }
    .scenario();
    let mut r = run(&s, 7).unwrap();
    as_recorded_series(&mut r);
    r.queue_delays.clear(); // a table added later (issue 27); dropped from the JSON below
                            // Wall-clock speed is the only thing that may differ between runs.
    r.wall_time_s = 0.0;
    r.events_per_second = 0.0;
    r.timings = Default::default();
    r.peak_rss_bytes = None;
    for f in &r.flows {
        assert_eq!(
            (
                f.spurious_retransmissions,
                f.tail_loss_probes,
                f.time_in_recovery_s
            ),
            (0, 0, 0.0),
            "the ns-2 agents report none of the metrics issue 12 added"
        );
    }
    // Issue 25: every agent reports how often it sent a packet at most (at least once each
    // flow sent anything) and its repeated timeouts; and a run warns about no flow here.
    for f in &r.flows {
        assert!(f.packets_sent == 0 || f.max_transmissions_of_a_segment >= 1);
        assert!(f.rto_backoffs <= f.timeouts);
    }
    assert!(r.warnings.is_empty());
    // Issue 24: with TCP flows only, the three Jain readings are one, and one group.
    assert_eq!(r.jain_index_over, "tcp_flows");
    assert_eq!(r.jain_index_tcp.to_bits(), r.jain_index.to_bits());
    assert_eq!(r.jain_index_all_flows.to_bits(), r.jain_index.to_bits());
    assert_eq!(r.groups.len(), 1);
    let json = serde_json::to_string(&r).unwrap();
    let jain = serde_json::to_string(&r.jain_index).unwrap();
    fnv1a(without_fields_added_later(&json, &jain).as_bytes())
}

/// The flow table's columns added after the hashes were recorded (issue 12), cut out of the
/// JSON text so that the recorded hashes still apply; they are checked to be 0 above. So are
/// the run's stage timings and peak memory (issue 13), zeroed above: facts of the machine,
/// not results; and the group table and the Jain readings by name (issue 24), checked above
/// to repeat `jain_index` (`jain`, as JSON); and issue 25's two measures of the agents
/// (`max_transmissions_of_a_segment`, `rto_backoffs`, which the agents fill: measured, they
/// change nothing the agents do) and the run's warnings (none, checked above).
/// The time series as it was recorded: issue 27 added series (a queue's marks, each flow's
/// bytes received, a reference) and renamed RED's (one name per quantity across the AQMs);
/// the values are untouched, so undoing both gives the recorded rows back.
fn as_recorded_series(r: &mut aqmlab_core::result::RunResult) {
    const ADDED: [&str; 4] = [
        "marks",
        "bytes_received",
        "q_ref_packets",
        "target_delay_ms",
    ];
    const RENAMED: [(&str, &str); 3] = [
        ("avg_packets", "avg"),
        ("p", "p_a"),
        ("since_signal_packets", "count"),
    ];
    let ts = &mut r.timeseries;
    let keep: Vec<bool> = ts
        .variable
        .iter()
        .map(|&v| !ADDED.contains(&ts.variable_names[v as usize].as_str()))
        .collect();
    let kept = |column: &mut Vec<_>| {
        let mut rows = keep.iter();
        column.retain(|_| *rows.next().unwrap());
    };
    kept(&mut ts.time_s);
    kept(&mut ts.value);
    let kept_codes = |column: &mut Vec<u32>| {
        let mut rows = keep.iter();
        column.retain(|_| *rows.next().unwrap());
    };
    kept_codes(&mut ts.source);
    kept_codes(&mut ts.variable);
    for name in &mut ts.variable_names {
        if let Some((_, old)) = RENAMED.iter().find(|(new, _)| new == name) {
            *name = old.to_string();
        }
    }
}

fn without_fields_added_later(json: &str, jain: &str) -> String {
    let stages = r#","timings":{"setup_s":0.0,"loop_s":0.0,"collect_s":0.0},"peak_rss_bytes":null"#;
    assert!(json.contains(stages));
    let mut out = json.replacen(stages, "", 1);
    let groups = out.find(r#","groups":["#).expect("a group table");
    // The table's end: its last row's `}]` (a group's name may hold brackets: "flows[0]").
    let end = groups + out[groups..].find("}]").expect("the group table's end") + 2;
    out.replace_range(groups..end, "");
    let readings = format!(
        r#","jain_index_over":"tcp_flows","jain_index_tcp":{jain},"jain_index_all_flows":{jain}"#
    );
    assert!(out.contains(&readings), "{out}");
    out = out.replacen(&readings, "", 1);
    out = without_counts(&out, ",\"max_transmissions_of_a_segment\":");
    out = without_counts(&out, ",\"rto_backoffs\":");
    let delays = r#","queue_delays":[]"#;
    assert!(out.contains(delays));
    out = out.replacen(delays, "", 1);
    let warnings = r#","warnings":[]"#;
    assert!(out.contains(warnings));
    out = out.replacen(warnings, "", 1);
    for key in [
        "spurious_retransmissions",
        "tail_loss_probes",
        "time_in_recovery_s",
    ] {
        for value in ["0", "0.0"] {
            out = out.replace(&format!(",\"{key}\":{value},"), ",");
        }
    }
    out
}

/// `json` without every `key` (`,"name":`) and the whole number after it.
fn without_counts(json: &str, key: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at]);
        let value = &rest[at + key.len()..];
        let digits = value
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(value.len());
        assert!(digits > 0, "{key} without a count");
        rest = &value[digits..];
    }
    out.push_str(rest);
    out
}

#[test]
fn ns2_agents_give_the_recorded_results_bit_for_bit() {
    let got: Vec<(&str, &str, bool, u64)> = [
        ("reno", "droptail", false),
        ("newreno", "droptail", false),
        ("sack", "droptail", false),
        ("reno", "red", false),
        ("newreno", "red", true),
        ("sack", "red", true),
    ]
    .into_iter()
    .map(|(v, a, e)| (v, a, e, fingerprint(v, a, e)))
    .collect();
    for ((v, a, e, h), want) in got.iter().zip(RECORDED) {
        assert_eq!(
            *h, want,
            "{v} over {a} (ecn {e}): results changed; got {h:#018x}"
        );
    }
}

const RECORDED: [u64; 6] = [
    0xe0b0_2692_f313_b6da,
    0x9c8e_336d_c595_1a8c,
    0x2802_ff88_6f76_e5e9,
    0x768b_ae4e_7df0_9b0a,
    0x553b_6c10_8d37_2cca,
    0x5250_30e6_7cd6_e6fd,
];
