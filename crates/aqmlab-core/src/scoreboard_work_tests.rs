//! The scoreboard's work over whole runs (issue 24, item 13): the steps it takes per event (a
//! packet sent, an ACK, a round of RACK's marks) do not grow with the window. The fuzz
//! campaign's finding: the same run took 0.1 s at a window of 4,096 and 20 s at 2^20.
//!
//! A unit test, for the scoreboard's counters are test-only (`transport/tcp/recovery/work.rs`),
//! at the crate's root because it runs whole scenarios: the scoreboard's own tests
//! (`recovery/scoreboard_tests.rs`) count over a scripted flight.

use crate::transport::tcp::recovery::work;

/// Steps per scoreboard event over a whole run of `scenario` with `window` (and initial
/// window) in place of WINDOW.
fn steps_per_event(scenario: &str, window: u32) -> f64 {
    let text = scenario.replace("WINDOW", &window.to_string());
    let s = crate::Scenario::from_toml(&text).unwrap();
    let (steps0, events0) = work::counts();
    crate::run(&s, 1).unwrap();
    let (steps, events) = work::counts();
    (steps - steps0) as f64 / (events - events0) as f64
}

/// The fuzz campaign's scenario (issue 24, item 13): the linux profile (RACK-TLP) or RFC
/// 6675's DupThresh rule, window and initial window WINDOW, three senders, a lossy
/// bottleneck. The walks (`recovery/reference.rs`, counted the same way) took 448 steps per event at
/// 2^10 and 1,016 at 2^16 with RACK-TLP, 332 and 549 with DupThresh (most events at 2^16 are
/// the initial window's sends, one step each, which dilutes the growth); the indices take
/// 9.5 and 12.0, 3.0 and 2.0.
const FUZZ: &str = r#"
duration = "1s"
[topology]
kind = "dumbbell"
senders = 3
bottleneck = { rate = "10Mbps", delay = "20ms", loss = 0.05, queue = { limit = 100, aqm = "droptail" } }
access = { rate = "100Mbps", delay = "1ms" }
[tcp]
profile = "linux"
window = WINDOW
window_init = WINDOW
RACK
[[flows]]
kind = "tcp"
from = "senders"
to = "receivers"
"#;

#[test]
fn work_per_event_does_not_grow_with_the_window() {
    for (rack, rule) in [
        ("", "RACK-TLP"),
        ("rack_tlp = { enabled = false }", "DupThresh"),
    ] {
        let scenario = FUZZ.replace("RACK", rack);
        let small = steps_per_event(&scenario, 1 << 10);
        let large = steps_per_event(&scenario, 1 << 16);
        // A few words of each index per packet sent, SACKed, marked or acknowledged: tens
        // of steps per event, the same at either window (not thousands at the larger).
        assert!(
            small < 60.0 && large < 60.0 && large < 2.0 * small,
            "{rule}: {small:.1} steps per event at a window of 2^10, {large:.1} at 2^16"
        );
    }
}
