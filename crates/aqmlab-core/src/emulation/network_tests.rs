//! The emulated network driven by a scripted clock and hand-built packets: the times packets
//! come out at, what is and is not carried, the CE rewrite, the result's accounting.

use super::*;
use crate::emulation::ipv4::tests::tcp_packet;

const S0: u32 = 0x0ac8_0001; // host 0: s0
const D0: u32 = 0x0ac8_0002; // host 1: d0
const PORT: u16 = 20_000;

fn dumbbell(aqm: &str, ecn: bool) -> Scenario {
    Scenario::from_toml(&format!(
        r#"
duration = "1s"
[topology]
kind = "dumbbell"
senders = 1
bottleneck = {{ rate = "10Mbps", delay = "20ms", queue = {{ limit = 100, aqm = {aqm} }} }}
access = {{ rate = "100Mbps", delay = "1ms" }}
[tcp]
ecn = {ecn}
[[flows]]
kind = "tcp"
from = "senders"
to = "receivers"
"#
    ))
    .unwrap()
}

/// Runs every event exactly on time (the clock jumps to each), collecting what reaches a host.
fn run_on_time(net: &mut EmulatedNetwork, until: Time) -> Vec<(Time, u32, Vec<u8>)> {
    let mut out = vec![];
    while let Some(t) = net.next_event_time().filter(|&t| t <= until) {
        let mut clock = || t;
        net.advance(&mut clock, &mut |h, b| out.push((t, h, b.to_vec())));
    }
    out
}

#[test]
fn the_plan_names_hosts_addresses_and_ports() {
    let net = EmulatedNetwork::new(&dumbbell("\"droptail\"", false), 1, None).unwrap();
    let p = net.plan();
    let hosts: Vec<_> = p
        .hosts
        .iter()
        .map(|h| (h.node.as_str(), h.address.as_str()))
        .collect();
    assert_eq!(hosts, [("s0", "10.200.0.1"), ("d0", "10.200.0.2")]);
    let f = &p.flows[0];
    assert_eq!(
        (f.port, f.congestion_control, f.src.as_str()),
        (PORT, Some("reno"), "s0")
    );
    // ns-2's 1000-byte payload and 40-byte headers.
    assert_eq!(p.mtu, 1040);
}

/// Ten 1500-byte packets sent back to back: each crosses the sender's access link (120 us +
/// 1 ms), the bottleneck (1.2 ms + 20 ms) and the receiver's access link (120 us + 1 ms), and
/// they leave at the bottleneck's pace, 1.2 ms apart: the simulator's timing, to the
/// nanosecond, with the real bytes.
#[test]
fn packets_come_out_at_the_links_times() {
    let mut net = EmulatedNetwork::new(&dumbbell("\"droptail\"", false), 1, None).unwrap();
    let sent: Vec<Vec<u8>> = (0..10)
        .map(|k| tcp_packet(S0, D0, 40_000, PORT, 1 + 1460 * k, 1460, 0))
        .collect();
    for b in &sent {
        net.inject(0, b).unwrap();
    }
    let out = run_on_time(&mut net, 1_000_000_000);
    assert_eq!(out.len(), 10);
    for (k, (t, host, bytes)) in out.iter().enumerate() {
        let expected =
            120_000 + 1_000_000 + 1_200_000 * (k as u64 + 1) + 20_000_000 + 120_000 + 1_000_000;
        assert_eq!((*t, *host), (expected, 1), "packet {k}");
        assert_eq!(bytes, &sent[k]);
    }
}

#[test]
fn what_is_not_a_flow_of_the_scenario_is_not_carried() {
    let mut net = EmulatedNetwork::new(&dumbbell("\"droptail\"", false), 1, None).unwrap();
    let wrong_port = tcp_packet(S0, D0, 40_000, 22, 1, 10, 0);
    assert_eq!(net.inject(0, &wrong_port), Err(NotCarried::NotAFlow));
    // The flow's packet, but sent by the wrong host.
    let from_d0 = tcp_packet(S0, D0, 40_000, PORT, 1, 10, 0);
    assert_eq!(net.inject(1, &from_d0), Err(NotCarried::NotAFlow));
    assert_eq!(net.inject(0, &[0x60; 60]), Err(NotCarried::NotIpv4));
    // The receiver's ACK (from the flow's port) is carried back to the sender.
    let ack = tcp_packet(D0, S0, PORT, 40_000, 1, 0, 0);
    net.inject(1, &ack).unwrap();
    let out = run_on_time(&mut net, 1_000_000_000);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].1, 0);
    let r = net.finish(&[], &[], 1_000_000, 0.0).unwrap();
    assert_eq!(r.emulation.unwrap().packets_not_carried, 3);
}

/// Through RED with ECN, the packets RED marks arrive with CE in their real header (and a
/// right checksum), as many as the queue counted; the run's tables hold, conserved.
#[test]
fn marks_reach_the_real_header() {
    let aqm = "{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0.1, ecn = true }";
    let mut net = EmulatedNetwork::new(&dumbbell(aqm, true), 7, None).unwrap();
    let mut out = vec![];
    for k in 0..400u32 {
        // Offered at twice the bottleneck's rate: one packet every 0.6 ms.
        let t = k as u64 * 600_000;
        let mut clock = || t;
        net.advance(&mut clock, &mut |h, b| out.push((h, b.to_vec())));
        net.inject(0, &tcp_packet(S0, D0, 40_000, PORT, 1 + 1460 * k, 1460, 2))
            .unwrap();
    }
    out.extend(
        run_on_time(&mut net, 1_000_000_000)
            .into_iter()
            .map(|(_, h, b)| (h, b)),
    );
    let ce: Vec<_> = out.iter().filter(|(_, b)| b[1] & 3 == 3).collect();
    assert!(!ce.is_empty());
    for (_, b) in &ce {
        let mut sum: u32 = b[..20]
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]) as u32)
            .sum();
        while sum >> 16 != 0 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        assert_eq!(sum, 0xffff, "header checksum after marking");
    }
    let r = net.finish(&[], &[], 1_000_000, 1.0).unwrap();
    let q = r.queue("bottleneck").unwrap();
    assert_eq!(q.marks, ce.len() as u64);
    assert!(r.conserved);
    assert_eq!(r.flows[0].marks_received, ce.len() as u64);
    assert_eq!(r.flows[0].packets_sent, 400);
    assert_eq!(r.flows[0].packets_received + q.drops, 400);
}

/// A sequence range sent again is a retransmission; SYN and FIN take a number each.
#[test]
fn retransmissions_are_told_by_sequence_numbers() {
    let mut net = EmulatedNetwork::new(&dumbbell("\"droptail\"", false), 1, None).unwrap();
    let mut syn = tcp_packet(S0, D0, 40_000, PORT, 1000, 0, 0);
    syn[33] = 0x02;
    net.inject(0, &syn).unwrap();
    for (seq, len) in [
        (1001u32, 100usize),
        (1101, 100),
        (1001, 100),
        (1201, 50),
        (1101, 200),
    ] {
        net.inject(0, &tcp_packet(S0, D0, 40_000, PORT, seq, len, 0))
            .unwrap();
    }
    // A pure ACK from the sender (no payload) is neither.
    net.inject(0, &tcp_packet(S0, D0, 40_000, PORT, 1301, 0, 0))
        .unwrap();
    run_on_time(&mut net, 1_000_000_000);
    let r = net.finish(&[], &[], 1_000_000, 0.0).unwrap();
    // (1001, 100) again is one; (1101, 200) ends at 1301, beyond 1251: new data.
    assert_eq!(r.flows[0].retransmissions, 1);
    assert_eq!(r.flows[0].packets_sent, 7);
}

/// Handling events late delays the packets, never the schedule: with the clock 50 us behind
/// every event, each packet is written 50 us late but the next departures keep the link's
/// exact pace, and the lag is what the result reports.
#[test]
fn lateness_is_recorded_not_accumulated() {
    let mut net = EmulatedNetwork::new(&dumbbell("\"droptail\"", false), 1, None).unwrap();
    for k in 0..20 {
        net.inject(0, &tcp_packet(S0, D0, 40_000, PORT, 1 + 1460 * k, 1460, 0))
            .unwrap();
    }
    let mut out = vec![];
    while let Some(t) = net.next_event_time() {
        let late = t + 50_000;
        let mut clock = || late;
        net.advance(&mut clock, &mut |_, _| out.push(late));
    }
    assert_eq!(out.len(), 20);
    let gaps: Vec<u64> = out.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|&g| g == 1_200_000), "{gaps:?}");
    let r = net.finish(&[], &[], 100_000, 0.0).unwrap();
    let f = r.emulation.unwrap();
    assert!(f.valid);
    assert!((f.departure_lag_p99_us - 50.0).abs() < 1.0, "{f:?}");
    assert!((f.delivery_lag_p50_us - 50.0).abs() < 1.0, "{f:?}");
}

/// The goodput is the in-order payload the receiving host got (after the SYN, whose number
/// the data follows); the hosts' reports add the RTT and the kernel's counters.
#[test]
fn host_reports_fill_the_flow_table() {
    let mut net = EmulatedNetwork::new(&dumbbell("\"droptail\"", false), 1, None).unwrap();
    let mut syn = tcp_packet(S0, D0, 40_000, PORT, 0, 0, 0);
    syn[33] = 0x02;
    net.inject(0, &syn).unwrap();
    for k in 0..10 {
        net.inject(0, &tcp_packet(S0, D0, 40_000, PORT, 1 + 1460 * k, 1460, 0))
            .unwrap();
    }
    run_on_time(&mut net, 1_000_000_000);
    // The driver runs to the scenario's end (1 s): the window the rates are over.
    net.advance(&mut || 1_000_000_000, &mut |_, _| {});
    let report = FlowReport {
        flow: 0,
        srtt_sum_ms: 90.0,
        srtt_samples: 2,
        timeouts: Some(1),
        ..FlowReport::default()
    };
    let sample = SeriesSample {
        time_s: 0.5,
        flow: 0,
        variable: "cwnd".into(),
        value: 10.0,
    };
    let r = net.finish(&[report], &[sample], 1_000_000, 0.0).unwrap();
    let f = &r.flows[0];
    assert_eq!(
        (f.goodput_bps, f.mean_rtt_ms, f.timeouts),
        (14_600.0 * 8.0, 45.0, 1)
    );
    assert!(r.timeseries.variable_names.contains(&"cwnd".to_string()));
    // A report of a flow the scenario does not have is refused.
    let net = EmulatedNetwork::new(&dumbbell("\"droptail\"", false), 1, None).unwrap();
    let bad = FlowReport {
        flow: 3,
        ..FlowReport::default()
    };
    assert!(net.finish(&[bad], &[], 1_000_000, 0.0).is_err());
}

/// A graph with two routers in a row (a parking lot's spine): hosts are the flows' ends
/// whatever the topology, and a packet crosses every link of its route with that link's
/// timing (3 links of 8 Mb/s: 1.5 ms each for 1500 bytes, plus 1 + 2 + 3 ms of delay).
#[test]
fn any_topology_is_emulated_hop_by_hop() {
    let s = Scenario::from_toml(
        r#"
duration = "1s"
[topology]
kind = "graph"
nodes = ["a", "r1", "r2", "b"]
[[topology.links]]
from = "a"
to = "r1"
rate = "8Mbps"
delay = "1ms"
[[topology.links]]
from = "r1"
to = "r2"
rate = "8Mbps"
delay = "2ms"
[[topology.links]]
from = "r2"
to = "b"
rate = "8Mbps"
delay = "3ms"
[[flows]]
kind = "cbr"
from = "a"
to = "b"
rate = "1Mbps"
packet_size = 1000
"#,
    )
    .unwrap();
    let mut net = EmulatedNetwork::new(&s, 1, None).unwrap();
    let hosts: Vec<_> = net.plan().hosts.iter().map(|h| h.node.clone()).collect();
    assert_eq!(hosts, ["a", "b"]);
    let mut udp = tcp_packet(S0, D0, 40_000, PORT, 0, 1460, 0);
    udp[9] = ipv4::PROTO_UDP;
    net.inject(0, &udp).unwrap();
    let out = run_on_time(&mut net, 1_000_000_000);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].0, out[0].1), (3 * 1_500_000 + 6_000_000, 1));
}

/// The lag is that of the measurement window: what was late during the warm-up is forgotten.
#[test]
fn the_lag_is_measured_after_the_warm_up() {
    let s = Scenario::from_toml(
        r#"
duration = "1s"
warmup = "100ms"
[topology]
kind = "dumbbell"
senders = 1
bottleneck = { rate = "10Mbps", delay = "20ms" }
access = { rate = "100Mbps", delay = "1ms" }
[[flows]]
kind = "tcp"
from = "senders"
to = "receivers"
"#,
    )
    .unwrap();
    let mut net = EmulatedNetwork::new(&s, 1, None).unwrap();
    let warmup_end = 100_000_000;
    let run_late = |net: &mut EmulatedNetwork, late_by: Time, before: Time| {
        while let Some(t) = net.next_event_time().filter(|&t| t < before) {
            net.advance(&mut || t + late_by, &mut |_, _| {});
        }
    };
    net.inject(0, &tcp_packet(S0, D0, 40_000, PORT, 1, 1460, 0))
        .unwrap();
    run_late(&mut net, 900_000, warmup_end);
    net.advance(&mut || warmup_end, &mut |_, _| {});
    net.inject(0, &tcp_packet(S0, D0, 40_000, PORT, 1461, 1460, 0))
        .unwrap();
    run_late(&mut net, 10_000, 1_000_000_000);
    let r = net.finish(&[], &[], 100_000, 0.0).unwrap();
    let f = r.emulation.unwrap();
    assert_eq!(f.departures, 3, "the second packet's three transmissions");
    assert!(
        f.valid && (f.departure_lag_max_us - 10.0).abs() < 0.5,
        "{f:?}"
    );
}
