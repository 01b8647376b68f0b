//! Golden tables (issue 36): every TCP profile's results, recorded before the TCP sender was
//! restructured behind Linux-style congestion-control hooks, must stay bit-identical after it.
//!
//! Each scenario below (a fixed sample of the fuzz's dumbbells, `recovery_loop_fuzz.rs`, over
//! every profile and the AQMs the fuzz uses, plus shortened runs of the validation scenarios
//! of docs/validation.md) is run twice; the two runs must agree (determinism), and then the
//! result is compared with `tests/golden/<scenario>.txt`: one line per flow row and per queue
//! row (the row's JSON, every float written exactly, as serde_json writes shortest
//! round-trip digits), the group table, the run's scalar readings, and, per time-series
//! variable, its row count and an FNV-1a hash of its rows (the series are too long to keep).
//! Wall-clock fields (`wall_time_s`, `events_per_second`, `timings`, `peak_rss_bytes`) are left
//! out: facts of the machine, not results. A failure names the scenario, the table, the row
//! and the fields that moved, old and new value.
//!
//! Re-record: `AQMLAB_RECORD_GOLDEN=1 cargo test -p aqmlab-core --test golden_tables`
//! rewrites every file from the current engine (`git diff crates/aqmlab-core/tests/golden`
//! shows what moved). A recorded change must be explained in the commit that records it:
//! which scenario, which table, and why the new numbers are right. The ns-2 agents have their
//! own fingerprint (`ns2_tcp_fingerprint.rs`), which must not move at all.

mod common;

use aqmlab_core::result::RunResult;
use aqmlab_core::testing::{Dumbbell, TCP_IN_FIRST_SECOND};
use aqmlab_core::{run, Scenario};
use std::fmt::Write as _;
use std::path::PathBuf;

use common::validation;

/// FNV-1a, 64 bits: stable across platforms and Rust versions (unlike `DefaultHasher`).
fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

struct Case {
    name: &'static str,
    /// What the scenario exercises (written into the golden file's header).
    covers: &'static str,
    seed: u64,
    toml: String,
}

/// A dumbbell of the fuzz's shape (`recovery_loop_fuzz.rs::scenario`): `flows` senders with
/// access delays spread over 1..=`spread` ms, a `rate` Mb/s bottleneck of `delay` ms holding
/// `buffer` packets under `aqm` (a TOML value), flows starting in [0, 1] s, a run of
/// `duration` seconds measured after 2 s (the fuzz: 8 s). `tcp` and `extra` are more lines of the `[tcp]` table and
/// after the flows.
#[allow(clippy::too_many_arguments)]
fn fuzz_dumbbell(
    profile: &str,
    aqm: &str,
    flows: u32,
    rate: u32,
    delay: u32,
    buffer: u32,
    spread: u32,
    duration: u32,
    tcp: &str,
    extra: &str,
) -> String {
    // Fixed, spread-out access delays (the fuzz draws them from 1..=spread).
    let delays: Vec<String> = (0..flows)
        .map(|i| format!("\"{}ms\"", 1 + (i * 7 + 3) % spread.max(1)))
        .collect();
    Dumbbell {
        duration: &format!("{duration}s"),
        head: "warmup = \"2s\"\nsample_interval = \"50ms\"",
        senders: flows,
        bottleneck: &format!(
            r#"rate = "{rate}Mbps", delay = "{delay}ms", queue = {{ limit = {buffer}, aqm = {aqm} }}"#
        ),
        access: &format!(r#"rate = "100Mbps", delay = [{}]"#, delays.join(", ")),
        rest: &format!(
            "[tcp]\nprofile = \"{profile}\"\n{tcp}\n{TCP_IN_FIRST_SECOND}{extra}\n"
        ),
    }
    .toml()
}

/// Marking on: the AQM table with `ecn = true`.
fn ecn(aqm: &str) -> String {
    format!("{{ kind = \"{aqm}\", ecn = true }}")
}

fn plain(aqm: &str) -> String {
    format!("\"{aqm}\"")
}

fn fuzz_cases() -> Vec<Case> {
    let c = |name, covers, seed, toml| Case {
        name,
        covers,
        seed,
        toml,
    };
    vec![
        // ---- linux (CUBIC, RFC 6675 + PRR, RACK-TLP) ----
        c(
            "fuzz_linux_droptail",
            "linux x droptail: 5 flows, slow start, HyStart, fast recovery",
            11,
            fuzz_dumbbell("linux", &plain("droptail"), 5, 10, 20, 40, 30, 8, "", ""),
        ),
        c(
            "fuzz_linux_red_overload",
            "linux x red: 20 flows on 2 Mb/s, timeouts, RTO backoff, TLP",
            12,
            fuzz_dumbbell("linux", &plain("red"), 20, 2, 10, 30, 50, 8, "", ""),
        ),
        c(
            "fuzz_linux_codel_overload",
            "linux x codel: 26 flows on 2 Mb/s (issue 25's stall case's shape)",
            827,
            fuzz_dumbbell("linux", &plain("codel"), 26, 2, 25, 200, 40, 8, "", ""),
        ),
        c(
            "fuzz_linux_fq_codel",
            "linux x fq_codel: 4 flows on 20 Mb/s",
            13,
            fuzz_dumbbell("linux", &plain("fq_codel"), 4, 20, 5, 300, 20, 8, "", ""),
        ),
        c(
            "fuzz_linux_pie_ecn",
            "linux x pie with ECN on (classic ECN response)",
            14,
            fuzz_dumbbell(
                "linux",
                &ecn("pie"),
                6,
                10,
                15,
                100,
                10,
                8,
                "ecn = true",
                "",
            ),
        ),
        c(
            "fuzz_linux_pi2",
            "linux x pi2: drops, squared probability",
            15,
            fuzz_dumbbell("linux", &plain("pi2"), 8, 10, 10, 150, 25, 8, "", ""),
        ),
        c(
            "fuzz_linux_fq_pie",
            "linux x fq_pie: 3 flows",
            16,
            fuzz_dumbbell("linux", &plain("fq_pie"), 3, 10, 30, 100, 5, 8, "", ""),
        ),
        c(
            "fuzz_linux_cobalt_tiny_buffer",
            "linux x cobalt: 10 flows, 5-packet buffer, forced drops",
            17,
            fuzz_dumbbell("linux", &plain("cobalt"), 10, 10, 2, 5, 3, 8, "", ""),
        ),
        c(
            "fuzz_linux_dualpi2_classic",
            "linux x dualpi2: classic traffic in the C queue",
            18,
            fuzz_dumbbell("linux", &plain("dualpi2"), 5, 20, 10, 200, 15, 8, "", ""),
        ),
        c(
            "fuzz_linux_pacing_red",
            "linux with pacing on x red",
            19,
            fuzz_dumbbell(
                "linux",
                &plain("red"),
                6,
                10,
                10,
                60,
                20,
                8,
                "pacing = \"on\"",
                "",
            ),
        ),
        c(
            "fuzz_linux_random_loss",
            "linux x droptail with 1 % Bernoulli loss on the bottleneck: SACK recovery, RACK",
            20,
            fuzz_dumbbell("linux", &plain("droptail"), 3, 10, 20, 100, 10, 8, "", "").replace(
                "delay = \"20ms\", queue",
                "delay = \"20ms\", loss = 0.01, queue",
            ),
        ),
        c(
            "fuzz_linux_workload_ping_rr",
            "linux x fq_codel: bulk flows, a web-search workload, a ping and a tcp_rr probe",
            21,
            fuzz_dumbbell(
                "linux",
                &plain("fq_codel"),
                6,
                10,
                10,
                200,
                5,
                8,
                "",
                r#"
            [[flows]]
            kind = "workload"
            group = "web"
            from = ["s3", "s4"]
            to = ["d3", "d4"]
            start = "1s"
            rate = 20
            sizes = { dist = "cdf", name = "websearch" }
            max_size = "200KB"
            [[flows]]
            kind = "ping"
            group = "ping"
            from = "s5"
            to = "d5"
            [[flows]]
            kind = "tcp_rr"
            group = "rr"
            from = "s5"
            to = "d5"
            "#,
            )
            .replace(
                "from = \"senders\"\nto = \"receivers\"",
                "from = [\"s0\", \"s1\", \"s2\"]\n        to = [\"d0\", \"d1\", \"d2\"]",
            ),
        ),
        c(
            "fuzz_linux_60_flows_pie",
            "linux x pie: 60 flows on 20 Mb/s, RTTs up to 200 ms, 500-packet buffer",
            37,
            fuzz_dumbbell("linux", &plain("pie"), 60, 20, 50, 500, 50, 8, "", ""),
        ),
        c(
            "fuzz_linux_one_flow_droptail",
            "linux x droptail: one flow, long RTT, 10-packet buffer",
            38,
            fuzz_dumbbell("linux", &plain("droptail"), 1, 20, 40, 10, 50, 8, "", ""),
        ),
        // ---- ns3 ----
        c(
            "fuzz_ns3_droptail",
            "ns3 x droptail: 10 flows",
            22,
            fuzz_dumbbell("ns3", &plain("droptail"), 10, 10, 20, 50, 30, 8, "", ""),
        ),
        c(
            "fuzz_ns3_red",
            "ns3 x red: 4 flows on 2 Mb/s",
            23,
            fuzz_dumbbell("ns3", &plain("red"), 4, 2, 30, 20, 40, 8, "", ""),
        ),
        // ---- dctcp ----
        c(
            "fuzz_dctcp_step",
            "dctcp x step_marking (K = 20 packets): alpha, exact CE echo",
            24,
            fuzz_dumbbell(
                "dctcp",
                "{ kind = \"step_marking\", k_packets = 20 }",
                4,
                20,
                5,
                200,
                5,
                8,
                "",
                "",
            ),
        ),
        c(
            "fuzz_dctcp_dualpi2",
            "dctcp x dualpi2 (ECN): L queue",
            25,
            fuzz_dumbbell("dctcp", &ecn("dualpi2"), 3, 20, 10, 300, 10, 8, "", ""),
        ),
        c(
            "fuzz_dctcp_fq_codel_ecn",
            "dctcp x fq_codel (ECN)",
            26,
            fuzz_dumbbell("dctcp", &ecn("fq_codel"), 5, 10, 10, 200, 20, 8, "", ""),
        ),
        c(
            "fuzz_dctcp_red_ecn_overload",
            "dctcp x red (ECN) on 2 Mb/s: marks and forced drops, loss recovery",
            27,
            fuzz_dumbbell("dctcp", &ecn("red"), 12, 2, 10, 40, 30, 8, "", ""),
        ),
        c(
            "fuzz_dctcp_droptail",
            "dctcp x droptail: no marks, loss response",
            28,
            fuzz_dumbbell("dctcp", &plain("droptail"), 3, 10, 10, 30, 10, 8, "", ""),
        ),
        // ---- prague ----
        c(
            "fuzz_prague_dualpi2",
            "prague x dualpi2 (ECN): ECT(1), pacing, L queue",
            29,
            fuzz_dumbbell("prague", &ecn("dualpi2"), 3, 20, 10, 300, 10, 8, "", ""),
        ),
        c(
            "fuzz_prague_pi2_ecn",
            "prague x pi2 (ECN)",
            30,
            fuzz_dumbbell("prague", &ecn("pi2"), 4, 10, 15, 200, 20, 8, "", ""),
        ),
        c(
            "fuzz_prague_codel_ecn",
            "prague x codel (ECN)",
            31,
            fuzz_dumbbell("prague", &ecn("codel"), 4, 10, 10, 200, 10, 8, "", ""),
        ),
        c(
            "fuzz_prague_droptail",
            "prague x droptail: no marks, loss response",
            32,
            fuzz_dumbbell("prague", &plain("droptail"), 3, 10, 10, 30, 10, 8, "", ""),
        ),
        // ---- bbr ----
        c(
            "fuzz_bbr_droptail",
            "bbr x droptail: startup, drain, ProbeBW cycling, pacing",
            33,
            fuzz_dumbbell("bbr", &plain("droptail"), 3, 10, 20, 100, 20, 8, "", ""),
        ),
        c(
            "fuzz_bbr_pie",
            "bbr x pie: 8 flows",
            34,
            fuzz_dumbbell("bbr", &plain("pie"), 8, 10, 10, 100, 30, 8, "", ""),
        ),
        c(
            "fuzz_bbr_cobalt_overload",
            "bbr x cobalt: 27 flows on 2 Mb/s, heavy loss (issue 25's shape)",
            722,
            fuzz_dumbbell("bbr", &plain("cobalt"), 27, 2, 10, 50, 40, 8, "", ""),
        ),
        c(
            "fuzz_bbr_fq_pie",
            "bbr x fq_pie: 4 flows",
            35,
            fuzz_dumbbell("bbr", &plain("fq_pie"), 4, 20, 10, 200, 20, 8, "", ""),
        ),
        c(
            "fuzz_bbr_one_flow_red",
            "bbr x red: one flow on 2 Mb/s",
            39,
            fuzz_dumbbell("bbr", &plain("red"), 1, 2, 30, 50, 10, 8, "", ""),
        ),
        c(
            "fuzz_bbr_dualpi2",
            "bbr x dualpi2: non-ECN BBR in the C queue",
            40,
            fuzz_dumbbell("bbr", &plain("dualpi2"), 5, 20, 10, 200, 20, 8, "", ""),
        ),
        // ---- ns2 (fingerprinted separately; here through the fuzz's newer AQMs) ----
        c(
            "fuzz_ns2_fq_codel",
            "ns2 x fq_codel: 5 flows",
            36,
            fuzz_dumbbell("ns2", &plain("fq_codel"), 5, 10, 20, 100, 20, 8, "", ""),
        ),
    ]
}

/// The validation scenarios of docs/validation.md, shortened.
fn validation_cases() -> Vec<Case> {
    let mut v = vec![];
    // DCTCP with step marking (tests/dctcp_validation.rs::measure): 2 flows, 1 Gb/s, K = 20,
    // 1 s instead of seconds; sampled every 100 us instead of 5 us.
    v.push(Case {
        name: "val_dctcp_step_1gbps",
        covers:
            "dctcp validation: 2 flows, 1 Gb/s, 100 us RTT, step marking at K = 20, min_rto 10 ms",
        seed: 1,
        toml: validation::dctcp_step(2, 20.0, (0.3, 1.0), "100us", "true"),
    });
    // TCP Prague through a 1 ms sojourn step (tests/prague.rs), as there (20 s).
    v.push(Case {
        name: "val_prague_step_sojourn",
        covers: "prague validation: 2 flows through a 1 ms sojourn step, 40 Mb/s",
        seed: 1,
        toml: validation::prague_step("prague"),
    });
    // DualPI2 (tests/dualpi2.rs::run_pair): two flows, 40 Mb/s, 9 ms; 20 s instead of 40.
    let pair = |aqm: &str, tcp: [&str; 2]| validation::dualpi2_pair(aqm, tcp, 20, 5.0);
    let dctcp = r#"congestion_control = "dctcp", ecn = true, ecn_codepoint = "ect1""#;
    v.push(Case {
        name: "val_dualpi2_dctcp_beside_cubic",
        covers: "dualpi2 validation: DCTCP (ECT(1), L queue) beside CUBIC (C queue), coupling",
        seed: 1,
        toml: pair(&ecn("dualpi2"), [dctcp, ""]),
    });
    v.push(Case {
        name: "val_dualpi2_ts_fifo",
        covers: "dualpi2 validation: DCTCP beside CUBIC with the time-shifted FIFO scheduler",
        seed: 1,
        toml: pair(
            r#"{ kind = "dualpi2", scheduler = "ts_fifo", ecn = true }"#,
            [dctcp, ""],
        ),
    });
    v.push(Case {
        name: "val_dualpi2_two_cubic",
        covers: "dualpi2 validation: two CUBIC flows (DualPI2 as PI2)",
        seed: 1,
        toml: pair(&plain("dualpi2"), ["", ""]),
    });
    v.push(Case {
        name: "val_pi2_two_cubic",
        covers: "dualpi2 validation's reference: two CUBIC flows through PI2",
        seed: 1,
        toml: pair(&plain("pi2"), ["", ""]),
    });
    // BBR (tests/bbr.rs::path): 10 Mb/s, 10 ms + 2 x 5 ms, 1460 + 40 B; BDP 50 packets.
    let bbr_path = |flows: &[&str], buffer: u32, duration: u32, aqm: &str| {
        validation::bbr_path(flows, buffer, (duration, 2), aqm)
    };
    v.push(Case {
        name: "val_bbr_probe_rtt",
        covers: "bbr validation: one flow, 10-BDP droptail buffer, 32 s: startup, drain, ProbeBW, three ProbeRTTs",
        seed: 1,
        toml: bbr_path(&["bbr"], 500, 32, "droptail"),
    });
    v.push(Case {
        name: "val_bbr_against_cubic",
        covers: "bbr validation: BBR beside CUBIC, 2-BDP droptail buffer",
        seed: 1,
        toml: bbr_path(&["bbr", "cubic"], 100, 20, "droptail"),
    });
    // Pacing (tests/pacing.rs): the same dumbbell with pacing off and on.
    for (name, pacing) in [("val_pacing_off", ""), ("val_pacing_on", "pacing = \"on\"")] {
        v.push(Case {
            name,
            covers: "pacing validation: linux, 2 + 2 flows, 10 Mb/s, pacing off / on",
            seed: 5,
            toml: format!(
                r#"
                duration = "8s"
                warmup = "2s"
                [topology]
                kind = "dumbbell"
                senders = 4
                bottleneck = {{ rate = "10Mbps", delay = "10ms", queue = {{ limit = 40, aqm = "droptail" }} }}
                access = {{ rate = "100Mbps", delay = ["1ms", "5ms", "9ms", "20ms"] }}
                [tcp]
                profile = "linux"
                {pacing}
                [[flows]]
                kind = "tcp"
                from = "senders"
                to = "receivers"
                start = {{ uniform = ["0s", "0.5s"] }}
                "#
            ),
        });
    }
    // FQ-PIE and COBALT against an unresponsive CBR (tests/fq_pie_cobalt.rs), as there (30 s).
    let unresponsive =
        |aqm: &str, cbr: &str| validation::unresponsive(aqm, 4, r#"["s0", "s1", "s2"]"#, cbr);
    v.push(Case {
        name: "val_fq_pie_cbr",
        covers: "fq_pie validation: 3 TCP flows beside a 5 Mb/s CBR",
        seed: 1,
        toml: unresponsive(&plain("fq_pie"), "5Mbps"),
    });
    v.push(Case {
        name: "val_cobalt_cbr_overload",
        covers: "cobalt validation: 3 TCP flows beside a 20 Mb/s CBR overload (BLUE side)",
        seed: 1,
        toml: unresponsive(&plain("cobalt"), "20Mbps"),
    });
    // ECN through RED (tests/tcp_dumbbell.rs::ecn_through_red_marks_instead_of_dropping).
    v.push(Case {
        name: "val_red_ecn_linux",
        covers: "red with ECN, linux profile with ECN on: marks instead of drops",
        seed: 1,
        toml: r#"
        duration = "20s"
        warmup = "5s"
        [topology]
        kind = "dumbbell"
        senders = 5
        bottleneck = { rate = "10Mbps", delay = "20ms", queue = { limit = 200, aqm = { kind = "red", min_th = 5, max_th = 40, ecn = true } } }
        access = { rate = "100Mbps", delay = "1ms" }
        [tcp]
        profile = "linux"
        ecn = true
        [[flows]]
        kind = "tcp"
        from = "senders"
        to = "receivers"
        "#
        .into(),
    });
    // CUBIC's response function (tests/cubic_response.rs, the linux rows): 100 ms path,
    // Bernoulli loss 1e-2 on the data direction, 120 s instead of 600.
    v.push(Case {
        name: "val_cubic_response_linux",
        covers: "cubic_response validation (linux CUBIC rows): one flow, 100 ms, loss 1e-2",
        seed: 1,
        toml: validation::cubic_response(0.01, 120.0, validation::LINUX_CUBIC),
    });
    // The simulator-against-kernel path (validation/emulation/path.toml): linux profile,
    // 10 Mb/s, 20 ms, 100 packets, 1448 + 52 B; 30 s, as there.
    for (name, aqm, n, cc) in [
        ("val_emulation_path_droptail_cubic", "droptail", 10, "cubic"),
        ("val_emulation_path_fq_codel_cubic", "fq_codel", 5, "cubic"),
        ("val_emulation_path_pie_bbr", "pie", 5, "bbr"),
    ] {
        v.push(Case {
            name,
            covers: "emulation-path validation: linux profile, 10 Mb/s, 20 ms, 100-packet buffer",
            seed: 1,
            toml: Dumbbell {
                duration: "30s",
                head: r#"warmup = "5s""#,
                senders: n,
                bottleneck: &format!(
                    r#"rate = "10Mbps", delay = "20ms", queue = {{ limit = 100, aqm = "{aqm}" }}"#
                ),
                rest: &format!(
                    "[tcp]\nprofile = \"linux\"\ncongestion_control = \"{cc}\"\n\
                     packet_size = 1448\nheader_size = 52\n{TCP_IN_FIRST_SECOND}"
                ),
                ..Dumbbell::default()
            }
            .toml(),
        });
    }
    // The ns-3 comparison's identical dumbbell, ns3 profile, with 20 flows (100 s, as there).
    v.push(Case {
        name: "val_identical_dumbbell_ns3",
        covers: "ns-3 comparison: identical dumbbell, ns3 profile, RED, 20 flows",
        seed: 1,
        toml: Dumbbell {
            duration: "100s",
            head: r#"warmup = "10s""#,
            senders: 20,
            bottleneck: r#"rate = "10Mbps", delay = "100ms", queue = { limit = 50, aqm = "red" }"#,
            rest: &format!(
                "[tcp]\nprofile = \"ns3\"\npacket_size = 1000\nheader_size = 42\n{TCP_IN_FIRST_SECOND}"
            ),
            ..Dumbbell::default()
        }
        .toml(),
    });
    v
}

/// The canonical text of a run: every table's rows, and per series variable its row count
/// and hash. Wall-clock readings are left out.
fn canonical(case: &Case, r: &RunResult) -> String {
    let mut out = String::new();
    let line = |out: &mut String, s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(&mut out, format!("# {}: {}", case.name, case.covers));
    line(&mut out, format!("# seed {}", case.seed));
    line(
        &mut out,
        "# Recorded by tests/golden_tables.rs; re-record with AQMLAB_RECORD_GOLDEN=1 and explain the change in the commit.".into(),
    );
    let j = |x: f64| serde_json::to_string(&x).unwrap();
    line(
        &mut out,
        format!(
            "run events={} conserved={} jain={} jain_tcp={} jain_all={} over={}",
            r.events,
            r.conserved,
            j(r.jain_index),
            j(r.jain_index_tcp),
            j(r.jain_index_all_flows),
            r.jain_index_over
        ),
    );
    /// One line per row of a table: `kind` and the row's JSON.
    fn rows<T: serde::Serialize>(out: &mut String, kind: &str, rows: &[T]) {
        for row in rows {
            out.push_str(&format!("{kind} {}\n", serde_json::to_string(row).unwrap()));
        }
    }
    rows(&mut out, "warning", &r.warnings);
    rows(&mut out, "queue", &r.queues);
    rows(&mut out, "flow", &r.flows);
    rows(&mut out, "group", &r.groups);
    for (table, text) in [
        ("fct", serde_json::to_string(&r.fct).unwrap()),
        (
            "fct_summary",
            serde_json::to_string(&r.fct_summary).unwrap(),
        ),
        ("latency", serde_json::to_string(&r.latency).unwrap()),
        (
            "latency_summary",
            serde_json::to_string(&r.latency_summary).unwrap(),
        ),
        (
            "queue_delays",
            serde_json::to_string(&r.queue_delays).unwrap(),
        ),
    ] {
        if text != "[]" {
            writeln!(
                out,
                "table {table} fnv={:016x}",
                fnv1a(FNV_OFFSET, text.as_bytes())
            )
            .unwrap();
        }
    }
    // The time series: per variable, its rows (time, source's name, value) hashed.
    let ts = &r.timeseries;
    for (v, name) in ts.variable_names.iter().enumerate() {
        let (mut h, mut n) = (FNV_OFFSET, 0usize);
        for i in (0..ts.len()).filter(|&i| ts.variable[i] as usize == v) {
            h = fnv1a(h, &ts.time_s[i].to_bits().to_le_bytes());
            h = fnv1a(h, ts.source_names[ts.source[i] as usize].as_bytes());
            h = fnv1a(h, &ts.value[i].to_bits().to_le_bytes());
            n += 1;
        }
        if n > 0 {
            line(&mut out, format!("series {name} rows={n} fnv={h:016x}"));
        }
    }
    out
}

/// What differs between two canonical texts: which tables moved (the rows' ids, the series'
/// names), then the first rows that moved of each table (flows first), and for a JSON row
/// the fields that changed (old -> new).
fn explain(name: &str, want: &str, got: &str) -> String {
    let mut msg = format!("scenario {name}: results differ from tests/golden/{name}.txt\n");
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    if w.len() != g.len() {
        writeln!(msg, "  {} lines recorded, {} now", w.len(), g.len()).unwrap();
    }
    let json = |s: &str| match s
        .split_once(' ')
        .and_then(|(_, rest)| serde_json::from_str::<serde_json::Value>(rest).ok())
    {
        Some(serde_json::Value::Object(m)) => Some(m),
        _ => None,
    };
    // A row's table (its first word) and id (a flow's number, a queue's name, a series').
    let id = |s: &str| -> String {
        if let Some(m) = json(s) {
            if let Some(v) = ["flow", "name", "group"].iter().find_map(|k| m.get(*k)) {
                return v.to_string();
            }
        }
        s.split(' ').nth(1).unwrap_or("").to_string()
    };
    let diffs: Vec<(usize, &str, &str)> = (0..w.len().max(g.len()))
        .map(|i| {
            (
                i,
                w.get(i).copied().unwrap_or(""),
                g.get(i).copied().unwrap_or(""),
            )
        })
        .filter(|(_, a, b)| a != b)
        .collect();
    let table = |a: &str, b: &str| {
        let line = if a.is_empty() { b } else { a };
        line.split(' ').next().unwrap_or("").to_string()
    };
    const ORDER: [&str; 7] = [
        "flow", "queue", "run", "group", "warning", "table", "series",
    ];
    for t in ORDER {
        let ids: Vec<String> = diffs
            .iter()
            .filter(|(_, a, b)| table(a, b) == t)
            .map(|(_, a, b)| id(if a.is_empty() { b } else { a }))
            .collect();
        if !ids.is_empty() {
            let shown = ids.iter().take(12).cloned().collect::<Vec<_>>().join(", ");
            let more = if ids.len() > 12 { ", ..." } else { "" };
            writeln!(msg, "  {t} moved ({}): {shown}{more}", ids.len()).unwrap();
        }
    }
    for t in ORDER {
        let first = if t == "flow" { 2 } else { 1 };
        for (i, a, b) in diffs
            .iter()
            .filter(|(_, a, b)| table(a, b) == t)
            .take(first)
        {
            match (json(a), json(b)) {
                (Some(x), Some(y)) => {
                    write!(msg, "  line {}: {t} {}:", i + 1, id(a)).unwrap();
                    for (k, v) in &x {
                        let now = y.get(k).unwrap_or(&serde_json::Value::Null);
                        if v != now {
                            write!(msg, " {k} {v} -> {now};").unwrap();
                        }
                    }
                    for k in y.keys().filter(|k| !x.contains_key(*k)) {
                        write!(msg, " {k} (new) {};", y[k]).unwrap();
                    }
                    msg.push('\n');
                }
                _ => writeln!(
                    msg,
                    "  line {}:\n    recorded: {a}\n    now:      {b}",
                    i + 1
                )
                .unwrap(),
            }
        }
    }
    msg
}

/// That a scenario still exercises what it is there for (a guard against a shortened run
/// that stops reaching it): BBR's ProbeRTT (mode 3) entered at least three times, and
/// marks where a scenario's name promises ECN.
fn exercises(case: &Case, r: &RunResult) {
    if case.name == "val_bbr_probe_rtt" {
        let ts = &r.timeseries;
        let mode = ts.variable_names.iter().position(|n| n == "bbr_mode");
        let modes: Vec<f64> = (0..ts.len())
            .filter(|&i| Some(ts.variable[i] as usize) == mode)
            .map(|i| ts.value[i])
            .collect();
        let entries = modes
            .windows(2)
            .filter(|w| w[1] == 3.0 && w[0] != 3.0)
            .count();
        assert!(entries >= 3, "{}: {entries} ProbeRTT entries", case.name);
    }
    if ["ecn", "step", "dctcp", "prague"]
        .iter()
        .any(|k| case.name.contains(k))
        && !case.name.contains("droptail")
    {
        let marks: u64 = r.queues.iter().map(|q| q.marks).sum();
        assert!(marks > 0, "{}: no ECN marks", case.name);
    }
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

#[test]
fn every_profile_gives_the_recorded_tables() {
    let record = std::env::var_os("AQMLAB_RECORD_GOLDEN").is_some_and(|v| v == "1");
    let cases: Vec<Case> = fuzz_cases().into_iter().chain(validation_cases()).collect();
    // Every profile the engine has is in at least one scenario.
    for (profile, _) in aqmlab_core::transport::tcp::profile::PROFILES {
        assert!(
            cases
                .iter()
                .any(|c| c.toml.contains(&format!("profile = \"{profile}\""))),
            "no golden scenario uses the {profile} profile"
        );
    }
    let mut names: Vec<&str> = cases.iter().map(|c| c.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "scenario names are unique");
    let mut failures = vec![];
    for case in &cases {
        let t0 = std::time::Instant::now();
        let s = Scenario::from_toml(&case.toml)
            .unwrap_or_else(|e| panic!("{}: {e}\n{}", case.name, case.toml));
        let r = run(&s, case.seed).unwrap();
        exercises(case, &r);
        let first = canonical(case, &r);
        let second = canonical(case, &run(&s, case.seed).unwrap());
        assert!(
            first == second,
            "{}: two runs of the same scenario and seed differ:\n{}",
            case.name,
            explain(case.name, &first, &second)
        );
        eprintln!(
            "{}: {:.2} s (two runs)",
            case.name,
            t0.elapsed().as_secs_f64()
        );
        let path = golden_dir().join(format!("{}.txt", case.name));
        if record {
            std::fs::create_dir_all(golden_dir()).unwrap();
            std::fs::write(&path, &first).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(want) if want == first => {}
            Ok(want) => failures.push(explain(case.name, &want, &first)),
            Err(e) => failures.push(format!(
                "scenario {}: no recorded table {} ({e}); record with AQMLAB_RECORD_GOLDEN=1",
                case.name,
                path.display()
            )),
        }
    }
    // A recorded file without its scenario is a scenario dropped unnoticed.
    for entry in std::fs::read_dir(golden_dir())
        .into_iter()
        .flatten()
        .flatten()
    {
        let file = entry.file_name().to_string_lossy().into_owned();
        if !cases.iter().any(|c| format!("{}.txt", c.name) == file) {
            failures.push(format!(
                "tests/golden/{file} has no scenario in golden_tables.rs (delete it with the scenario)"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures over {} scenarios (an intended change: re-record with AQMLAB_RECORD_GOLDEN=1 \
         and explain it in the commit):\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
