//! Issue 11, item 4: a typo is reported where the user wrote it, with "did you mean ...?" for
//! unknown keys, AQM names, kinds and units, in every schema section. Issue 24, items 8, 10 and
//! 13 ("units and messages"), below: what the loader warns about in a valid but likely mistaken
//! scenario, and errors that now say what is wrong (each of those tests fails on the code
//! before issue 24).

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

/// The warnings about BASE with `from` replaced by `to`.
fn warnings(from: &str, to: &str) -> Vec<String> {
    Scenario::from_toml(&BASE.replacen(from, to, 1))
        .unwrap()
        .warnings
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// Item 8: `target = 15` is read as 15 s (the rule stays) and runs, with a warning.
#[test]
fn a_pie_target_of_15_seconds_runs_and_is_warned_about() {
    let text = BASE.replacen("kind = \"red\"", "kind = \"pie\", target = 15", 1);
    let s = Scenario::from_toml(&text).unwrap();
    assert_eq!(
        s.warnings[0].to_string(),
        "topology.bottleneck.queue.aqm.target: 15 s (a bare number is read as seconds), above \
         the plausible 10us to 500ms for pie's target; did you mean \"15ms\"?"
    );
    assert!(run(&s, 1).is_ok());
    assert!(warnings("kind = \"red\"", "kind = \"pie\", target = \"15ms\"").is_empty());
}

/// Item 10: "2MBps" is 16 Mbps, accepted, with a warning naming the rate as read.
#[test]
fn a_rate_in_megabytes_per_second_is_accepted_with_a_warning() {
    assert_eq!(
        warnings("\"10Mbps\"", "\"2MBps\""),
        [
            "topology.bottleneck.rate: \"2MBps\" is read as 16 Mbps (megabytes per second); did \
          you mean \"2Mbps\"?"
        ]
    );
    assert!(warnings("\"10Mbps\"", "\"2Mbps\"").is_empty());
}

/// Item 10: `variant = "cubic"` points to `congestion_control`, and the reverse.
#[test]
fn a_congestion_control_given_as_variant_points_to_its_field() {
    for (from, to, starts, note) in [
        (
            "to = \"receivers\"",
            "to = \"receivers\"\ntcp = { variant = \"cubic\" }",
            "flows[0].tcp.variant: unknown variant `cubic`",
            "`cubic` is a congestion control: set congestion_control = \"cubic\"",
        ),
        (
            "[[flows]]",
            "[tcp]\ncongestion_control = \"sack\"\n[[flows]]",
            "tcp.congestion_control: unknown variant `sack`",
            "`sack` is a variant: set variant = \"sack\"",
        ),
    ] {
        let e = error(from, to);
        assert!(e.starts_with(starts) && e.contains(note), "{e}");
    }
    // a name of neither gets no such note
    let e = error(
        "to = \"receivers\"",
        "to = \"receivers\"\ntcp = { variant = \"vegas\" }",
    );
    assert!(!e.contains("congestion control:"), "{e}");
}

#[test]
fn pei_suggests_pie_first() {
    let e = error("kind = \"red\"", "kind = \"pei\"");
    assert!(e.ends_with("did you mean `pie` or `pi`?"), "{e}");
}

/// Item 10: docs/scenarios.md says `access` is required; so does the loader.
#[test]
fn a_dumbbell_needs_access_links() {
    let e = error("access = { rate = \"100Mbps\" }\n", "");
    assert_eq!(e, "topology.access: required, but missing");
}

/// Item 13: "1Tbps" was an unknown unit, though the range error says "at most 1Tbps".
#[test]
fn a_terabit_rate_is_a_rate() {
    assert_eq!(error("\"100Mbps\"", "\"1Tbps\""), "");
    let e = error("\"100Mbps\"", "\"2Tbps\"");
    assert!(e.contains("a rate must be at most 1Tbps"), "{e}");
}

/// Item 13: a TOML date said "invalid type: map".
#[test]
fn a_date_is_called_a_date() {
    let e = error("duration = \"1s\"", "duration = 1979-05-27");
    assert!(
        e.starts_with("duration: a TOML date or time (1979-05-27), where a number or a string"),
        "{e}"
    );
}

/// Item 13: `senders = 10**30` (from Python) said "must be a whole number".
#[test]
fn a_huge_count_is_too_large() {
    let json = serde_json::to_string(&toml::from_str::<serde_json::Value>(BASE).unwrap())
        .unwrap()
        .replace(
            "\"senders\":1",
            "\"senders\":1000000000000000000000000000000",
        );
    let e = Scenario::from_json(&json).unwrap_err().to_string();
    assert_eq!(
        e,
        "topology.senders: too large: must be a whole number from 0 to 4294967295, got 1e30"
    );
}
