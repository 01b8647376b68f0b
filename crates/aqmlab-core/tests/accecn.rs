//! Accurate ECN feedback end to end (`transport/tcp/accecn.rs`, RFC 9768; issue 38).
//!
//! - On a clean path with an ACK per packet, AccECN tells the sender what the exact echo
//!   tells it: each ACK covers one packet, so ACE moves by 1 exactly when that packet was CE,
//!   the delta DCTCP and Prague count is the exact echo's ECE, and the cut is taken on the
//!   same ACKs. The runs are then identical, which is asserted (DCTCP over step marking,
//!   Prague over DualPI2). What differs does not reach the flows: the sender's CWR bit
//!   (exact echo sets it on the data after a cut, AccECN has none; no receiver reads it) and
//!   the AccECN option, which aqmlab's fixed ACK size does not count.
//! - With ACKs lost on the way back (`loss_direction = "reverse"`, half of them), a
//!   surviving ACK covers the packets of the lost ones. RFC 3168's ECE says only that some
//!   mark came since the last CWR, once per round trip: DCTCP's alpha, its estimate of the
//!   marked fraction, reads every packet the ACK covers as marked (RFC 9768 section 1's
//!   case for AccECN). AccECN's ACE counts the marks; a gap of 8 or more packets makes its 3
//!   bits ambiguous, which the option's CE byte counter resolves (sections 3.2.2.5 and
//!   3.2.3). Without the option the sender's safety rule assumes the most marks the gap can
//!   hold (`__tcp_accecn_process`'s safe_delta), so it overestimates: Prague then cuts more
//!   and uses less of the link.

mod common;

use aqmlab_core::{run, RunResult, Scenario};
use common::validation;

/// One DCTCP flow of `dctcp_step` (1 Gb/s, 100 us, step at K = 20 packets; 0.2 s warm-up and
/// 1 s measured), an ACK per packet, with `tcp` added to its `[tcp]` table and the
/// bottleneck losing `ack_loss` of the ACKs.
fn dctcp(tcp: &str, ack_loss: f64) -> RunResult {
    let mut toml = validation::dctcp_step(1, 20.0, (0.2, 1.2), "1ms", "false");
    toml = toml.replace("[tcp]\n", &format!("[tcp]\n{tcp}\n"));
    if ack_loss > 0.0 {
        toml = toml.replace(
            "delay = \"32.6us\",",
            &format!("delay = \"32.6us\", loss = {ack_loss}, loss_direction = \"reverse\","),
        );
    }
    let s = Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    run(&s, 1).unwrap()
}

/// The flows' rows, every field but the run's wall-clock ones (as the golden tables compare
/// them).
fn rows(r: &RunResult) -> Vec<String> {
    r.flows.iter().map(|f| format!("{f:?}")).collect()
}

/// DCTCP's mean alpha after the warm-up (sampled every ms), and the fraction of the packets
/// received that were CE: what alpha estimates (RFC 8257 section 3.3).
fn alpha_and_marked_fraction(r: &RunResult) -> (f64, f64) {
    let ts = &r.timeseries;
    let (mut sum, mut n) = (0.0, 0.0);
    for i in 0..ts.time_s.len() {
        if ts.time_s[i] >= r.warmup_s && ts.variable_name(i) == "dctcp_alpha" {
            sum += ts.value[i];
            n += 1.0;
        }
    }
    let f = &r.flows[0];
    (sum / n, f.marks_received as f64 / f.packets_received as f64)
}

#[test]
fn dctcp_with_accecn_runs_as_with_the_exact_echo_on_a_clean_path() {
    let exact = dctcp("", 0.0);
    let accecn = dctcp("ecn_feedback = \"accecn\"", 0.0);
    let f = &accecn.flows[0];
    eprintln!(
        "goodput {:.1} Mb/s, marks {}, ECN reductions {}",
        f.goodput_bps / 1e6,
        f.marks_received,
        f.ecn_reductions
    );
    assert!(f.marks_received > 1000 && f.ecn_reductions > 100, "{f:?}");
    assert_eq!(rows(&exact), rows(&accecn));
    let (a, b) = (
        alpha_and_marked_fraction(&exact).0,
        alpha_and_marked_fraction(&accecn).0,
    );
    assert_eq!(a, b);
}

#[test]
fn prague_with_accecn_runs_as_with_the_exact_echo_over_dualpi2() {
    let pair = |feedback: &str| {
        let tcp = format!(
            "congestion_control = \"prague\", ecn = true, delayed_ack = false, \
             packet_size = 1448, header_size = 52, cwnd_growth = \"packets_acked\", \
             ssthresh_base = \"cwnd\"{feedback}"
        );
        let toml = validation::dualpi2_pair("\"dualpi2\"", [&tcp, &tcp], 10, 2.0);
        run(&Scenario::from_toml(&toml).unwrap(), 1).unwrap()
    };
    let exact = pair("");
    let accecn = pair(", ecn_feedback = \"accecn\"");
    let marks: Vec<u64> = accecn.flows.iter().map(|f| f.marks_received).collect();
    eprintln!("marks {marks:?}");
    assert!(marks.iter().all(|&m| m > 100), "{marks:?}");
    assert_eq!(rows(&exact), rows(&accecn));
}

/// Half the ACKs lost. Measured (seed 1; alpha / marked fraction): exact echo 0.1802 /
/// 0.1843, classic 0.2252 / 0.1239, AccECN 0.1427 / 0.1457, AccECN without the option
/// 0.1425 / 0.1257. The bounds are the claims, not these numbers: AccECN within 5 % of the
/// truth; RFC 3168's echo at least 1.5 times it; the safety rule alone above AccECN with the
/// option by at least 5 points of the ratio.
#[test]
fn with_lost_acks_accecn_keeps_the_marked_fraction_and_classic_ecn_loses_it() {
    let ratio = |tcp: &str| {
        let r = dctcp(tcp, 0.5);
        let (alpha, marked) = alpha_and_marked_fraction(&r);
        eprintln!("{tcp:?}: alpha {alpha:.4}, marked fraction {marked:.4}");
        assert!(marked > 0.05, "{tcp:?}: {marked}");
        alpha / marked
    };
    let accecn = ratio("ecn_feedback = \"accecn\"");
    let classic = ratio("ecn_feedback = \"classic\"");
    let ace_alone = ratio("ecn_feedback = \"accecn\"\naccecn_option = \"disabled\"");
    assert!((accecn - 1.0).abs() < 0.05, "AccECN: alpha / F = {accecn}");
    assert!(classic > 1.5, "RFC 3168: alpha / F = {classic}");
    assert!(
        ace_alone > accecn + 0.05,
        "ACE alone {ace_alone} vs with the option {accecn}"
    );
}

/// Bad input names the field.
#[test]
fn ecn_feedback_is_checked() {
    let base = validation::dctcp_step(1, 20.0, (0.0, 0.1), "1ms", "false");
    let with = |tcp: &str| base.replace("[tcp]\n", &format!("[tcp]\n{tcp}\n"));
    for (tcp, want) in [
        ("ecn_feedback = \"accurate\"", "unknown variant"),
        ("accecn_option = \"persist\"", "unknown variant"),
    ] {
        let e = Scenario::from_toml(&with(tcp)).err().unwrap().to_string();
        assert!(e.contains(want), "{e}");
    }
    let no_ecn = base.replace("ecn = true", "ecn = false").replace(
        "congestion_control = \"dctcp\"",
        "congestion_control = \"reno\"\necn_feedback = \"accecn\"",
    );
    let e = Scenario::from_toml(&no_ecn).err().unwrap().to_string();
    assert!(
        e.contains("tcp.ecn_feedback") && e.contains("needs ecn = true"),
        "{e}"
    );
    let ns2 = with("ecn_feedback = \"accecn\"").replace("recovery = \"rfc6675\"", "");
    let e = Scenario::from_toml(&ns2).err().unwrap().to_string();
    assert!(
        e.contains("tcp.ecn_feedback") && e.contains("rfc6675"),
        "{e}"
    );
}

/// A receiver without AccECN: the handshake falls back to classic ECN feedback (RFC 9768
/// section 3.1.2), and the run is the classic one.
#[test]
fn accecn_falls_back_to_classic_ecn_without_the_receivers_support() {
    let fallback = dctcp("ecn_feedback = \"accecn\"\nreceiver_accecn = false", 0.5);
    let classic = dctcp("ecn_feedback = \"classic\"", 0.5);
    assert_eq!(rows(&fallback), rows(&classic));
}

/// AccECN under drops and marks together, with DCTCP and Prague's profiles (a Linux host, RACK,
/// delayed ACKs with quick ACKs): 10 flows through each marking AQM and a DropTail buffer too
/// small for them, 10 Mb/s, 6 s. ACKs then cover lost and SACKed packets, retransmissions
/// arrive CE or not, recoveries overlap marks: the decoding must keep the runs sane as the
/// exact echo's are (issue 25's bounds: conserved packets, no packet sent more than 12 times,
/// no run warning such as a flow stalled in recovery), every flow moving, the marks read.
#[test]
fn accecn_keeps_runs_sane_under_drops_and_marks() {
    for profile in ["dctcp", "prague"] {
        for aqm in [
            "\"droptail\"",
            "{ kind = \"dualpi2\" }",
            "{ kind = \"fq_codel\", ecn = true }",
            "{ kind = \"red\", ecn = true }",
        ] {
            let toml = format!(
                r#"
                duration = "6s"
                warmup = "1s"
                [topology]
                kind = "dumbbell"
                senders = 10
                bottleneck = {{ rate = "10Mbps", delay = "5ms", queue = {{ limit = 30, aqm = {aqm} }} }}
                access = {{ rate = "100Mbps", delay = ["1ms", "3ms", "7ms", "15ms", "30ms"] }}
                [tcp]
                profile = "{profile}"
                ecn_feedback = "accecn"
                [[flows]]
                kind = "tcp"
                from = "senders"
                to = "receivers"
                start = {{ uniform = ["0s", "1s"] }}
                "#
            );
            let r = run(&Scenario::from_toml(&toml).unwrap(), 3).unwrap();
            let q = r.queue("bottleneck").unwrap();
            let what = format!("{profile} {aqm}: drops {}, marks {}", q.drops, q.marks);
            eprintln!("{what}, utilization {:.3}", q.utilization);
            assert!(r.conserved, "{what}");
            assert!(r.warnings.is_empty(), "{what}: {:?}", r.warnings);
            assert!(q.utilization > 0.8, "{what}: {q:?}");
            for f in &r.flows {
                assert!(f.max_transmissions_of_a_segment <= 12, "{what}: {f:?}");
                assert!(f.goodput_bps > 0.0, "{what}: {f:?}");
            }
            if aqm != "\"droptail\"" {
                assert!(q.marks > 0, "{what}");
                assert!(r.flows.iter().any(|f| f.ecn_reductions > 0), "{what}");
            }
        }
    }
}

/// Prague through its 1 ms sojourn step (`prague_step`, one flow, an ACK per packet, 10 s of
/// which 2 warm-up) with half the ACKs lost. Prague's alpha lags the marked fraction alike
/// with the exact echo and with AccECN (both tell the sender every mark); ACE alone has the
/// safety rule count the marks a gap of 8 or more packets could hold, phantom marks that make
/// Prague cut more and leave the link idler (RFC 9768 3.2.2.5.2: the rule errs towards
/// over-reaction; the option is what avoids it). Measured (seed 1; alpha / marked fraction,
/// utilization): exact echo 0.906, 0.957; AccECN 0.903, 0.965; ACE alone 1.470, 0.848;
/// RFC 3168 1.078, 0.966.
#[test]
fn with_lost_acks_prague_needs_the_option_not_to_overreact() {
    let measure = |tcp: &str| {
        let toml = validation::prague_step("prague")
            .replace("senders = 2", "senders = 1")
            .replace("delayed_ack = true", "delayed_ack = false")
            .replace("duration = \"20s\"", "duration = \"10s\"")
            .replace(
                "warmup = \"5s\"",
                "warmup = \"2s\"\nsample_interval = \"1ms\"\nsample_flows = true",
            )
            .replace(
                "delay = \"9ms\",",
                "delay = \"9ms\", loss = 0.5, loss_direction = \"reverse\",",
            )
            .replace("[tcp]\n", &format!("[tcp]\n{tcp}\n"));
        let r = run(&Scenario::from_toml(&toml).unwrap(), 1).unwrap();
        let (alpha, marked) = alpha_and_marked_fraction(&r);
        let util = r.queue("bottleneck").unwrap().utilization;
        eprintln!("{tcp:?}: alpha {alpha:.4}, marked {marked:.4}, utilization {util:.3}");
        (alpha / marked, util)
    };
    let (exact, exact_util) = measure("");
    let (accecn, accecn_util) = measure("ecn_feedback = \"accecn\"");
    let (alone, alone_util) = measure("ecn_feedback = \"accecn\"\naccecn_option = \"disabled\"");
    assert!(
        (accecn - exact).abs() < 0.05,
        "AccECN {accecn} vs exact echo {exact}"
    );
    assert!(
        (accecn_util - exact_util).abs() < 0.02,
        "{accecn_util} vs {exact_util}"
    );
    assert!(
        alone > accecn + 0.2,
        "ACE alone {alone} vs with the option {accecn}"
    );
    assert!(
        alone_util < accecn_util - 0.05,
        "{alone_util} vs {accecn_util}"
    );
}
