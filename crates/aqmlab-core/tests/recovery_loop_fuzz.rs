//! Issue 25: over random dumbbells, with every TCP profile, no recovery loops: no packet is
//! sent more than 12 times, loss rates are fractions, and no flow is stalled in recovery
//! (the run warning of `run_warnings.rs`: more than half the period in fast recovery in spells
//! longer than the RTO without an advance of the cumulative ACK).
//!
//! Every profile of `transport::tcp::profile::PROFILES` is taken, so a profile added there
//! (`ns3`) is covered without a change here. The dumbbells: 1 to 60 flows, access delays
//! spread over up to 50 ms (RTTs from about 2 to 200 ms plus the bottleneck's), a buffer of 5
//! to 500 packets, DropTail, RED, PIE, CoDel, FQ-CoDel, PI2, DualPI2, FQ-PIE or COBALT (each
//! marking an ECN-capable profile's packets where it can: `dctcp`), 2 to 20 Mb/s; 8 s runs measured
//! after 2 s, a bounded number of cases so that the test takes seconds.
//!
//! Twelve: a loss repaired by one retransmission is 2 sends; a retransmission lost in turn a
//! few more; a packet lost at a run of timeouts one more each (with RTOs from 200 ms doubling,
//! at most 5 or 6 fit in 8 s). The loop of issue 25 sent one packet 17 (30 flows through RED)
//! to 233 times.

use aqmlab_core::aqm::registry::REGISTRY;
use aqmlab_core::transport::tcp::profile::{profile_fields, PROFILES};
use aqmlab_core::{run, Scenario};
use proptest::prelude::*;

const AQMS: [&str; 9] = [
    "droptail", "red", "pie", "codel", "fq_codel", "pi2", "dualpi2", "fq_pie", "cobalt",
];
const RATES_MBPS: [u32; 3] = [2, 10, 20];

#[derive(Debug, Clone)]
struct Dumbbell {
    flows: usize,
    /// One-way access delay of each sender, ms (receivers' links mirror them).
    access_ms: Vec<u32>,
    bottleneck_ms: u32,
    rate_mbps: u32,
    buffer: u32,
    aqm: &'static str,
}

fn dumbbell() -> impl Strategy<Value = Dumbbell> {
    (
        1usize..=60,
        1u32..=50,
        2u32..=50,
        0usize..RATES_MBPS.len(),
        5u32..=500,
        0usize..AQMS.len(),
    )
        .prop_flat_map(|(flows, spread, bottleneck_ms, rate, buffer, aqm)| {
            prop::collection::vec(1u32..=spread.max(1), flows).prop_map(move |access_ms| Dumbbell {
                flows,
                access_ms,
                bottleneck_ms,
                rate_mbps: RATES_MBPS[rate],
                buffer,
                aqm: AQMS[aqm],
            })
        })
}

/// The AQM table: ECN marking on where the profile is ECN-capable and the AQM can mark.
fn aqm_table(aqm: &str, profile: &str) -> String {
    let ecn_profile = profile_fields(profile).unwrap()["ecn"] == true;
    let can_mark = REGISTRY.iter().any(|a| a.name == aqm && a.ecn);
    if ecn_profile && can_mark {
        format!("{{ kind = \"{aqm}\", ecn = true }}")
    } else {
        format!("\"{aqm}\"")
    }
}

fn scenario(d: &Dumbbell, profile: &str) -> Scenario {
    scenario_with(d, profile, "")
}

/// `scenario` with more `[tcp]` fields.
fn scenario_with(d: &Dumbbell, profile: &str, tcp_extra: &str) -> Scenario {
    scenario_headed(d, profile, tcp_extra, "")
}

/// `scenario_with` with more top-level fields (`head`).
fn scenario_headed(d: &Dumbbell, profile: &str, tcp_extra: &str, head: &str) -> Scenario {
    let delays: Vec<String> = d.access_ms.iter().map(|ms| format!("\"{ms}ms\"")).collect();
    Scenario::from_toml(&format!(
        r#"
        duration = "8s"
        warmup = "2s"
        {head}
        [topology]
        kind = "dumbbell"
        senders = {n}
        bottleneck = {{ rate = "{rate}Mbps", delay = "{delay}ms", queue = {{ limit = {buffer}, aqm = {aqm} }} }}
        access = {{ rate = "100Mbps", delay = [{delays}] }}
        [tcp]
        profile = "{profile}"
        {tcp_extra}
        [[flows]]
        kind = "tcp"
        from = "senders"
        to = "receivers"
        start = {{ uniform = ["0s", "1s"] }}
        "#,
        n = d.flows,
        rate = d.rate_mbps,
        delay = d.bottleneck_ms,
        buffer = d.buffer,
        aqm = aqm_table(d.aqm, profile),
        delays = delays.join(", "),
    ))
    .unwrap()
}

/// The most times a flow may send one packet: twelve (above), or, when the flow's loss rate
/// `p` makes a longer run of losses of one packet plausible, the k with n p^(k-1) = 1e-4 for
/// its `n` packets sent. A sender that does not back off on loss (BBR v1 against a dropping
/// AQM under overload: 57 BBR flows through PIE on 10 Mb/s lose a third of their packets) can
/// lose a packet 12 times in a row without any loop; a loop sends a packet again that was not
/// lost, which a low loss rate does not excuse: at 5 % loss the bound stays 12.
fn transmission_bound(p: f64, n: u64) -> u64 {
    if !(p > 0.0 && p < 1.0) || n == 0 {
        return 12;
    }
    let k = 1.0 + (1e-4 / n as f64).ln() / p.ln();
    12.max(k.ceil() as u64)
}

/// Whether a stall warning names only flows whose head was really lost again and again, not
/// resent in a loop: with D-SACK (the profile's receiver reports duplicates) none of the flow's
/// retransmissions was spurious, it lost at least a fifth of its packets, and its most-sent
/// packet is within [`transmission_bound`]. BBR v1 does not back off on loss: 27 BBR flows on
/// 2 Mb/s through COBALT (seed 722) lose 40 % of their packets, and one flow's head was
/// dropped 7 times in a row (each copy dropped by CoDel at dequeue, the packet trace shows),
/// each resend and each timer restart one Linux makes too. A loop resends what was not lost,
/// which D-SACK reveals; without D-SACK (the ns2 profile) no warning is excused.
fn stall_from_real_losses(
    message: &str,
    flows: &[aqmlab_core::metrics::flow_stats::FlowSummary],
    profile: &str,
) -> bool {
    if !message.contains("in fast recovery without progress")
        || profile_fields(profile).unwrap()["dsack"] != true
    {
        return false;
    }
    // "flow 20 (66 % stalled, a packet sent 8 times), 31 (...)": the ids before " (".
    let ids: Vec<usize> = message
        .split(" % stalled")
        .filter_map(|part| part.rsplit(['(', ' ']).nth(2)?.parse().ok())
        .collect();
    !ids.is_empty()
        && ids.iter().all(|&i| {
            let Some(f) = flows.iter().find(|f| f.flow as usize == i) else {
                return false;
            };
            f.spurious_retransmissions == 0
                && f.loss_rate >= 0.2
                && f.max_transmissions_of_a_segment
                    <= transmission_bound(f.loss_rate, f.packets_sent)
        })
}

/// Whether `flow`'s packets, the run traced at the bottleneck (the same run: tracing changes
/// nothing in it), each left the bottleneck at most twice: its many sends of one packet were
/// resends of copies the bottleneck dropped (a second departure allows one spurious
/// retransmission), not a loop, which resends what was not lost and so sends it through again
/// and again. The loss rate of [`transmission_bound`] covers the measurement period only,
/// while a packet may be sent most often before it: 25 BBR flows on 20 Mb/s through fq_codel
/// (seed 787) had one packet dropped 12 times in BBR's startup (0.5 to 2.3 s: CoDel and the
/// fattest-queue drop at the head of its queue), at a loss rate of 5.6 % after it.
fn resends_only_what_was_lost(d: &Dumbbell, profile: &str, seed: u64, flow: u32) -> bool {
    let traced = scenario_headed(d, profile, "", "trace = [\"bottleneck\"]");
    let r = run(&traced, seed).unwrap();
    let trace = &r.trace.as_ref().expect("the bottleneck is traced").rows;
    assert_eq!(trace.rows_dropped, 0, "the trace kept every row");
    let mut departures: std::collections::HashMap<i64, u32> = std::collections::HashMap::new();
    for i in 0..trace.len() {
        // event 1: a departure; kind 0: a data packet.
        if trace.flow[i] == flow && trace.kind[i] == 0 && trace.event[i] == 1 {
            *departures.entry(trace.seq[i]).or_default() += 1;
        }
    }
    departures.values().all(|&n| n <= 2)
}

proptest! {
    // A fixed seed (the issue's number, chosen once): the same 64 dumbbells on every run, as
    // the project's determinism asks; `PROPTEST_RNG_SEED` or `PROPTEST_CASES` explore more.
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(25),
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_profile_loops_on_a_random_dumbbell(d in dumbbell(), seed in 1u64..1000) {
        for (profile, _) in PROFILES {
            let r = run(&scenario(&d, profile), seed).unwrap();
            let q = r.queue("bottleneck").unwrap();
            prop_assert!((0.0..=1.0).contains(&q.loss_rate), "{profile}: queue loss {}", q.loss_rate);
            for f in &r.flows {
                let bound = transmission_bound(f.loss_rate, f.packets_sent);
                prop_assert!(
                    f.max_transmissions_of_a_segment <= bound
                        || resends_only_what_was_lost(&d, profile, seed, f.flow),
                    "{profile} {d:?} seed {seed}: flow {} sent a packet {} times (bound {bound} at loss {:.3}), and a copy left the bottleneck more than twice",
                    f.flow,
                    f.max_transmissions_of_a_segment,
                    f.loss_rate
                );
                prop_assert!((0.0..=1.0).contains(&f.loss_rate), "{profile}: flow loss {}", f.loss_rate);
                prop_assert!(f.rto_backoffs <= f.timeouts);
            }
            for w in &r.warnings {
                prop_assert!(
                    stall_from_real_losses(&w.message, &r.flows, profile),
                    "{profile} {d:?} seed {seed}: {w:?}"
                );
            }
        }
    }
}

/// Issue 25's open finding, closed by issue 26 (docs/readings.md, "Loops and Linux's timers"):
/// with the `linux` profile, an overloaded CoDel dumbbell (26 flows on 2 Mb/s, a fair share
/// below one packet per round trip, seed 827) left a flow 54 % of its time in recovery past
/// the RTO of its head's retransmission (7 sends of the head, each resend re-arming the
/// timer). The window then grew at the end of each recovery by every packet the cumulative ACK
/// covered, SACKed ones again included; counted as Linux counts them (the packets an ACK
/// newly delivers), neither case stalls. Found by the property test above before its seed
/// was fixed; kept as a regression test of those trajectories, which began with data at the
/// flow's start: `handshake = "none"` (the linux profile opens with a SYN since issue 37) and
/// `timeout_marks = "all_unsacked"` (the profile's value then). With
/// the SYN the seeds give other trajectories, and such a stall is still found on some: of
/// seeds 540..570 of the first case, 542 and 561 without the handshake, 553 with it (flows
/// whose fair share is below one packet per round trip; an open finding, not a loop of one
/// option).
#[test]
fn overloaded_codel_flows_do_not_stall_in_recovery() {
    let cases = [
        (
            Dumbbell {
                flows: 34,
                access_ms: vec![
                    2, 1, 2, 1, 7, 5, 10, 2, 3, 3, 1, 4, 4, 2, 2, 1, 6, 3, 4, 6, 1, 1, 2, 3, 5, 9,
                    10, 8, 8, 7, 8, 4, 5, 2,
                ],
                bottleneck_ms: 39,
                rate_mbps: 2,
                buffer: 447,
                aqm: "codel",
            },
            553,
        ),
        (
            Dumbbell {
                flows: 26,
                access_ms: vec![
                    10, 35, 35, 6, 4, 28, 34, 20, 21, 2, 16, 24, 3, 28, 14, 8, 31, 27, 10, 21, 38,
                    23, 7, 3, 37, 35,
                ],
                bottleneck_ms: 37,
                rate_mbps: 2,
                buffer: 461,
                aqm: "codel",
            },
            827,
        ),
    ];
    for (d, seed) in cases {
        let pinned = "handshake = \"none\"\ntimeout_marks = \"all_unsacked\"";
        let r = run(&scenario_with(&d, "linux", pinned), seed).unwrap();
        assert!(r.warnings.is_empty(), "{d:?} seed {seed}: {:?}", r.warnings);
        // With the profile's own timeout marks (Linux's, since issue 37's third session) the
        // trajectories differ, and the second case's flow 1 is warned about: CoDel drops
        // every copy of its head (four sends; the trace shows drops at 2.47, 3.77 and 5.39 s),
        // and its RTO of 2.8 s (an SRTT of 934 ms from the queue's worst) outlasts the run:
        // real losses, as the property test above excuses, not a loop.
        let r = run(&scenario_with(&d, "linux", "handshake = \"none\""), seed).unwrap();
        for w in &r.warnings {
            assert!(
                stall_from_real_losses(&w.message, &r.flows, "linux"),
                "{d:?} seed {seed}, Linux's timeout marks: {w:?}"
            );
        }
    }
}
