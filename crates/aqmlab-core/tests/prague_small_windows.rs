//! Issue 38: TCP Prague's versions at small windows, end to end (`prague_window.rs`,
//! `prague_rate_mode.rs`): one Prague flow against one CUBIC flow through DualPI2 (as the L4S
//! team's 2020 module steps: `min_qlen_step = 2`) at 10 Mb/s and 0.5 ms base RTT, where a
//! window is a few packets.
//! - `window_mode = "switch"` (tcp_prague.c v0.7's default) enters the rate mode (the window
//!   at most 4 x 1500 bytes with CE seen) and paces there at the rate +- 3.125 %; the same
//!   flow on a 100 ms path, whose window stays far above 4 packets, never does; `window`
//!   reports no rate mode at all.
//! - `window_update = "carry"` (v0.5) and `"step_to_ceiling"` (v0.7) keep the sender's window
//!   whole and at least 2 packets, where `at_once` with `window_rounding = "floor"` (aqmlab's
//!   reading before) leaves it fractional; a step down sets ssthresh to the window.

use aqmlab_core::{run, RunResult, Scenario};

fn path(prague: &str, base_rtt_ms: f64) -> Scenario {
    let one_way = base_rtt_ms / 2.0;
    let toml = format!(
        r#"
        duration = "20s"
        warmup = "5s"
        sample_interval = "10ms"
        [topology]
        kind = "dumbbell"
        senders = 2
        bottleneck = {{ rate = "10Mbps", queue = {{ limit = 10000, aqm = {{ kind = "dualpi2", min_qlen_step = 2 }} }} }}
        access = {{ rate = "1Gbps", delay = "{one_way}ms" }}
        receiver_access = {{ rate = "1Gbps" }}
        [[flows]]
        kind = "tcp"
        from = "s0"
        to = "d0"
        tcp = {{ profile = "prague", packet_size = 1448, header_size = 52, prague = {{ {prague} }} }}
        [[flows]]
        kind = "tcp"
        from = "s1"
        to = "d1"
        tcp = {{ profile = "linux", congestion_control = "cubic", ecn = true, packet_size = 1448, header_size = 52 }}
        "#
    );
    Scenario::from_toml(&toml).unwrap()
}

/// The values of one of flow 0's series.
fn series(r: &RunResult, var: &str) -> Vec<f64> {
    timed(r, var).into_iter().map(|(_, v)| v).collect()
}

/// (time s, value) of one of flow 0's series.
fn timed(r: &RunResult, var: &str) -> Vec<(f64, f64)> {
    let ts = &r.timeseries;
    let src = ts.source_names.iter().position(|n| n == "flow0");
    let v = ts.variable_names.iter().position(|n| n == var);
    let (Some(src), Some(v)) = (src, v) else {
        return vec![];
    };
    (0..ts.len())
        .filter(|&i| ts.source[i] == src as u32 && ts.variable[i] == v as u32)
        .map(|i| (ts.time_s[i], ts.value[i]))
        .collect()
}

/// The value of a timed series at time `t` (None if it has no sample then).
fn at(s: &[(f64, f64)], t: f64) -> Option<f64> {
    s.iter().find(|(u, _)| *u == t).map(|(_, v)| *v)
}

const V07: &str = r#"rtt_scaling = "rate", window_update = "step_to_ceiling""#;

#[test]
fn the_switch_runs_on_the_rate_at_small_windows_only() {
    let r = run(&path(&format!("{V07}, window_mode = \"switch\""), 0.5), 1).unwrap();
    let mode = series(&r, "prague_rate_mode");
    let in_rate = mode.iter().filter(|&&m| m == 1.0).count();
    eprintln!("rate mode in {in_rate} of {} samples", mode.len());
    assert!(
        in_rate * 2 > mode.len(),
        "mostly in rate mode at 0.5 ms: {in_rate}"
    );
    // In rate mode, RTT independent (out of slow start: snd_cwnd >= ssthresh), the pacing
    // rate is the internal rate +- 4/128; a sample may fall between a change of mode or
    // state and the next ACK's pacing update, so most, not all, must match.
    let mode = timed(&r, "prague_rate_mode");
    let [rate, pacing, cwnd, ssthresh] =
        ["prague_rate_bps", "pacing_rate_bps", "cwnd", "ssthresh"].map(|v| timed(&r, v));
    let (mut checked, mut matched) = (0, 0);
    for i in (mode.len() / 4)..mode.len() {
        let t = mode[i].0;
        let (Some(rt), Some(p), Some(c), Some(s)) =
            (at(&rate, t), at(&pacing, t), at(&cwnd, t), at(&ssthresh, t))
        else {
            continue;
        };
        if mode[i].1 == 1.0 && mode[i - 1].1 == 1.0 && c >= s {
            checked += 1;
            let ratio = p / rt;
            if [1.031_25, 0.968_75]
                .iter()
                .any(|f| (ratio - f).abs() < 1e-9)
            {
                matched += 1;
            }
        }
    }
    eprintln!("pacing = rate +- 3.125 % in {matched} of {checked} samples");
    assert!(
        checked > 100 && matched * 10 >= checked * 9,
        "{matched} of {checked}"
    );
    let far = run(&path(&format!("{V07}, window_mode = \"switch\""), 100.0), 1).unwrap();
    assert!(series(&far, "prague_rate_mode").iter().all(|&m| m == 0.0));
    let window = run(&path(V07, 0.5), 1).unwrap();
    assert!(series(&window, "prague_rate_mode").is_empty());
}

#[test]
fn the_stepping_windows_stay_whole_and_at_least_two() {
    for update in ["carry", "step_to_ceiling"] {
        let p = format!("rtt_scaling = \"none\", window_update = \"{update}\"");
        let r = run(&path(&p, 0.5), 1).unwrap();
        let cwnd = series(&r, "cwnd");
        let ssthresh = series(&r, "ssthresh");
        assert!(!cwnd.is_empty());
        assert!(
            cwnd.iter().all(|&c| c.fract() == 0.0 && c >= 2.0),
            "{update}: {cwnd:?}"
        );
        // After the slow start every step down left ssthresh = cwnd; growth since leaves
        // cwnd above it: ssthresh never exceeds cwnd once out of slow start.
        let settled = cwnd.len() / 2;
        assert!(
            (settled..cwnd.len()).all(|i| ssthresh[i] <= cwnd[i]),
            "{update}"
        );
    }
    let floor = run(
        &path(
            "rtt_scaling = \"none\", window_rounding = \"floor\", ai_unit = \"packet\"",
            0.5,
        ),
        1,
    )
    .unwrap();
    assert!(series(&floor, "cwnd").iter().any(|c| c.fract() != 0.0));
}

/// Bad values and combinations that never existed in a tcp_prague.c name their field.
#[test]
fn bad_prague_versions_name_their_field() {
    let toml = |prague: &str, tcp: &str| {
        format!(
            r#"
            duration = "1s"
            [topology]
            kind = "dumbbell"
            senders = 1
            bottleneck = {{ rate = "10Mbps" }}
            access = {{ rate = "1Gbps" }}
            [[flows]]
            kind = "tcp"
            from = "s0"
            to = "d0"
            tcp = {{ profile = "prague", {tcp} prague = {{ {prague} }} }}
            "#
        )
    };
    for (prague, tcp, field, why) in [
        (
            r#"window_mode = "rate", rtt_scaling = "none""#,
            "",
            "tcp.prague.window_mode",
            "rtt_scaling",
        ),
        (
            r#"window_mode = "switch", window_update = "carry""#,
            "",
            "tcp.prague.window_mode",
            "carry",
        ),
        (
            r#"window_mode = "switch", rate_mode_transit = 0"#,
            "",
            "tcp.prague.rate_mode_transit",
            ">= 1",
        ),
        (
            r#"window_update = "step""#,
            "",
            "tcp.prague.window_update",
            "unknown variant",
        ),
        (
            r#"rtt_unit = "64us""#,
            "",
            "tcp.prague.rtt_unit",
            "unknown variant",
        ),
        (
            r#"window_update = "carry""#,
            r#"ecn_reduction = "prr","#,
            "tcp.prague.window_update",
            "immediate",
        ),
    ] {
        let e = Scenario::from_toml(&toml(prague, tcp))
            .err()
            .unwrap_or_else(|| panic!("{prague} accepted"))
            .to_string();
        assert!(e.contains(field) && e.contains(why), "{prague}: {e}");
    }
    for ok in [
        r#"window_mode = "switch", window_update = "step_to_ceiling""#,
        r#"window_update = "carry", rtt_unit = "128us", rtt_scaling = "none""#,
    ] {
        Scenario::from_toml(&toml(ok, "")).unwrap();
    }
}
