//! Issue 28: the `rfc6675` sender's pacing (`tcp.pacing`, transport/tcp/pacing.rs).
//! - A paced sender never stalls: over random dumbbells (1 to 20 flows, DropTail, RED, PIE,
//!   CoDel or FQ-CoDel, buffers of 5 to 300 packets; one long flow and one 200 KB transfer
//!   from 3 s per sender), every flow that has not completed keeps delivering in the last 2 s
//!   of the run, or, if the network dropped all it sent then (an overloaded fq_codel can drop
//!   a flow's every retransmission while its RTO backs off), was still sending: its last
//!   send is no longer ago than its RTO; no packet is sent more than 12 times, and no run
//!   warning (a flow stalled in recovery) is raised. (A finite transfer need not complete: with losses early in its
//!   slow start a long-RTT transfer beside 30 others may take longer than the run. A flow
//!   whose SYNs were lost and that was still in their back-off at 6 s has sent no data: it
//!   delivers nothing and is not a stall, if it had backed off at least twice.)
//! - Pacing changes what it should: the same dumbbell with pacing off and on differ, and off
//!   is the default (nothing changes for a scenario that does not ask).

use aqmlab_core::testing::{Dumbbell, TCP_IN_FIRST_SECOND, TCP_TO_RECEIVERS};
use aqmlab_core::{run, Scenario};

const AQMS: [&str; 5] = ["droptail", "red", "pie", "codel", "fq_codel"];

/// A small deterministic generator (SplitMix64) for the cases: the same cases on every run.
struct Cases(u64);
impl Cases {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

fn dumbbell(
    flows: u64,
    rate: u64,
    buffer: u64,
    aqm: &str,
    access: &[u64],
    pacing: Option<&str>,
) -> Scenario {
    let pacing = pacing.map_or(String::new(), |p| format!("pacing = \"{p}\""));
    let delays: Vec<String> = access.iter().map(|ms| format!("\"{ms}ms\"")).collect();
    Dumbbell {
        duration: "8s",
        head: "warmup = \"2s\"\nsample_interval = \"100ms\"\ntrace = [\"bottleneck\"]",
        senders: flows as u32,
        bottleneck: &format!(
            r#"rate = "{rate}Mbps", delay = "10ms", queue = {{ limit = {buffer}, aqm = "{aqm}" }}"#
        ),
        access: &format!(r#"rate = "100Mbps", delay = [{}]"#, delays.join(", ")),
        rest: &format!(
            "[tcp]\nprofile = \"linux\"\n{pacing}\n{TCP_IN_FIRST_SECOND}{TCP_TO_RECEIVERS}\
             start = \"3s\"\nsize = \"200KB\"\n"
        ),
    }
    .scenario()
}

#[test]
fn a_paced_sender_never_stalls_on_random_dumbbells() {
    let mut g = Cases(28);
    for case in 0..24 {
        let flows = 1 + g.next(20);
        let rate = [2, 10, 20][g.next(3) as usize];
        let buffer = 5 + g.next(296);
        let aqm = AQMS[g.next(AQMS.len() as u64) as usize];
        let access: Vec<u64> = (0..flows).map(|_| 1 + g.next(40)).collect();
        let seed = 1 + g.next(1000);
        let s = dumbbell(flows, rate, buffer, aqm, &access, Some("on"));
        let r = run(&s, seed).unwrap();
        let what =
            format!("case {case}: {flows} flows, {rate} Mb/s, {buffer} pkts, {aqm}, seed {seed}");
        assert!(r.warnings.is_empty(), "{what}: {:?}", r.warnings);
        let ts = &r.timeseries;
        let trace = &r.trace.as_ref().expect("the bottleneck is traced").rows;
        assert_eq!(trace.rows_dropped, 0, "{what}: the trace kept every row");
        let sampled = |flow: u32, name: &str, at: f64| -> f64 {
            let src = ts
                .source_names
                .iter()
                .position(|n| *n == format!("flow{flow}"));
            let var = ts.variable_names.iter().position(|n| n == name);
            let (Some(src), Some(var)) = (src, var) else {
                return f64::NAN;
            };
            (0..ts.len())
                .filter(|&i| ts.source[i] == src as u32 && ts.variable[i] == var as u32)
                .filter(|&i| ts.time_s[i] <= at + 1e-9)
                .map(|i| ts.value[i])
                .next_back()
                .unwrap_or(0.0)
        };
        for f in &r.flows {
            assert!(
                f.max_transmissions_of_a_segment <= 12,
                "{what}: flow {} loops",
                f.flow
            );
            // Every flow not done keeps delivering: something in the last 2 s of the run.
            if f.completion_time_s.is_nan() {
                let received = |at| sampled(f.flow, "bytes_received", at);
                let (before, end) = (received(6.0), received(8.0));
                // The linux profile opens with a SYN (handshake = "syn"): a flow whose SYNs
                // were lost waits out their back-off (1, 2, 4 s: tcp_retransmit_timer doubling
                // TCP_TIMEOUT_INIT) before it sends any data, which is no stall. Such a flow has
                // delivered nothing and was backing off at 6 s (at least twice).
                if end == 0.0 {
                    let rto = sampled(f.flow, "rto_ms", 6.0);
                    assert!(
                        rto >= 2_000.0,
                        "{what}: flow {} never delivered, RTO {rto} ms: not a SYN back-off",
                        f.flow
                    );
                    continue;
                }
                if end > before {
                    continue;
                }
                // Nothing delivered in the last 2 s: a sender that went silent (a stall) or a
                // network that dropped everything it sent (an overloaded fq_codel or PIE can
                // drop a flow's every retransmission; its RTO backs off, Linux's too). A live
                // sender sent within its own timer: its last send is no longer ago than its
                // RTO at the end (one sample of slack).
                // Its last data packet's arrival at the bottleneck (the trace's enqueue or drop
                // there) stands for its last send (the access delay, at most 41 ms, earlier).
                let last_send = (0..trace.len())
                    .filter(|&i| trace.flow[i] == f.flow && trace.kind[i] == 0)
                    .map(|i| trace.time[i] as f64 / 1e9)
                    .fold(0.0, f64::max);
                let rto_s = sampled(f.flow, "rto_ms", 8.0) / 1e3;
                assert!(
                    8.0 - last_send <= rto_s + 0.1,
                    "{what}: flow {} delivered nothing from 6 s to 8 s ({before} -> {end} bytes) \
                     and sent nothing after {last_send:.3} s, beyond its RTO of {rto_s} s",
                    f.flow
                );
            }
        }
    }
}

#[test]
fn pacing_is_off_by_default_and_on_changes_the_run() {
    let access = [5, 12, 20];
    let on = run(&dumbbell(3, 10, 50, "droptail", &access, Some("on")), 7).unwrap();
    let off = run(&dumbbell(3, 10, 50, "droptail", &access, Some("off")), 7).unwrap();
    let default = run(&dumbbell(3, 10, 50, "droptail", &access, None), 7).unwrap();
    assert_eq!(
        serde_json::to_string(&off.flows).unwrap(),
        serde_json::to_string(&default.flows).unwrap()
    );
    assert_ne!(
        serde_json::to_string(&on.flows).unwrap(),
        serde_json::to_string(&off.flows).unwrap(),
        "pacing must change the sends"
    );
}
