//! Issue 11, item 4: a typo is reported where the user wrote it, with "did you mean ...?" for
//! unknown keys, AQM names, kinds and units, in every schema section.

use aqmlab_core::{run, Scenario};

const BASE: &str = r#"
duration = "1s"
[topology]
kind = "dumbbell"
senders = 1
bottleneck = { rate = "10Mbps", queue = { aqm = { kind = "red" } } }
access = { rate = "100Mbps" }
[[flows]]
kind = "tcp"
from = "senders"
to = "receivers"
"#;

/// The error of BASE with `from` replaced by `to` (building the queues included).
fn error(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    let text = BASE.replacen(from, to, 1);
    match Scenario::from_toml(&text) {
        Err(e) => e.to_string(),
        Ok(s) => run(&s, 1).err().map(|e| e.to_string()).unwrap_or_default(),
    }
}

#[test]
fn every_section_suggests_the_nearest_name() {
    for (from, to, expected) in [
        (
            "duration = ",
            "duraton = ",
            "duraton: unknown field `duraton`",
        ),
        (
            "kind = \"dumbbell\"",
            "kind = \"dumbel\"",
            "topology.kind: unknown topology 'dumbel'",
        ),
        (
            "kind = \"red\"",
            "kind = \"rde\"",
            "topology.bottleneck.queue.aqm.kind: unknown AQM 'rde'",
        ),
        (
            "kind = \"red\"",
            "kind = \"red\", min_thh = 5",
            "topology.bottleneck.queue.aqm.min_thh: unknown field",
        ),
        (
            "kind = \"tcp\"",
            "kind = \"tpc\"",
            "flows[0].kind: unknown flow kind 'tpc'",
        ),
        (
            "\"10Mbps\"",
            "\"10Mbsp\"",
            "topology.bottleneck.rate: unknown rate unit 'Mbsp'",
        ),
        (
            "duration = \"1s\"",
            "duration = \"1sec\"\nwarmup = \"0.5m\"",
            "warmup: unknown time unit 'm'",
        ),
        (
            "to = \"receivers\"",
            "to = \"receivers\"\ntcp = { windw = 20 }",
            "flows[0].tcp.windw: unknown field",
        ),
    ] {
        let e = error(from, to);
        assert!(e.starts_with(expected), "{to}: {e}");
        assert!(e.contains("; did you mean `"), "{to}: {e}");
    }
    let e = error("duration = ", "duraton = ");
    assert!(e.ends_with("did you mean `duration`?"), "{e}");
    let e = error("kind = \"red\"", "kind = \"rde\"");
    assert!(e.ends_with("did you mean `red`?"), "{e}");
}

#[test]
fn the_shared_tcp_table_is_reported_as_tcp_not_as_a_flow() {
    let e = error("[[flows]]", "[tcp]\nwindw = 20\n[[flows]]");
    assert!(e.starts_with("tcp.windw: unknown field `windw`"), "{e}");
    assert!(e.ends_with("did you mean `window`?"), "{e}");
    // and without any TCP flow it is still reported
    let e = error("kind = \"tcp\"", "kind = \"cbr\"\nrate = \"1Mbps\"");
    assert!(e.is_empty(), "{e}");
    let text = BASE.replacen("kind = \"tcp\"", "kind = \"cbr\"\nrate = \"1Mbps\"", 1)
        + "[tcp]\nwindw = 20\n";
    let e = Scenario::from_toml(&text).unwrap_err().to_string();
    assert!(e.starts_with("tcp.windw"), "{e}");
}

#[test]
fn no_suggestion_for_a_name_that_resembles_nothing() {
    let e = error("duration = ", "bandwidth_of_the_link = ");
    assert!(
        e.contains("unknown field") && !e.contains("did you mean"),
        "{e}"
    );
}
