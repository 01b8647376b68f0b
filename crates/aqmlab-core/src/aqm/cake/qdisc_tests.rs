//! The CAKE qdisc driven packet by packet: host isolation's credits, the tins' weights and
//! thresholds, the shaper's release times, the ACK filter and the memory limit in place.

use super::qdisc::Cake;
use super::{buffer_limit, cake, CakeParams};
use crate::aqm::params::{AqmParams, QueueEnv};
use crate::aqm::test_rig::QueueRig;
use crate::aqm::{QueueDiscipline, QueueLimit};
use crate::net::{Packet, PacketKind};
use crate::sim::{RngStream, StreamKind, Time};
use serde_json::json;

type Rig = QueueRig<Cake>;

fn rig(params: serde_json::Value, limit: u32) -> Rig {
    let env = QueueEnv {
        link_rate_bps: 100_000_000,
        link_delay: 0,
        limit: QueueLimit::Packets(limit),
    };
    QueueRig::new(cake(&AqmParams::new(params, "q.aqm"), &env).unwrap())
}

/// A 1500-byte IP packet (1514 bytes charged, raw) of `flow` from node `src` to `dst`.
fn udp(flow: u32, src: u32, dst: u32) -> Packet {
    Packet::new(PacketKind::Udp, flow, src, dst, 0, 1500)
}

/// Host A (node 10) sends flow 0 to `dst(0)`, host B (node 20) flows 1 to 4 to `dst(f)`; each
/// flow has 1000 packets queued at t = 0, A's first.
fn two_hosts(isolation: &str, dst: impl Fn(u32) -> u32, seed: u64) -> Rig {
    let mut r = rig(json!({ "isolation": isolation }), 100_000);
    r.rng = RngStream::new(seed, StreamKind::Queue, 0);
    for f in 0..5 {
        let src = if f == 0 { 10 } else { 20 };
        for _ in 0..1000 {
            r.enqueue(0, udp(f, src, dst(f)));
        }
    }
    r
}

fn flow_of(r: &mut Rig, now: Time) -> u32 {
    let id = r.dequeue(now).expect("a packet");
    r.arena.get(id).flow
}

/// DRR++ credits by hand, dual-srchost, 1514 bytes charged a packet, flow_quantum 1514
/// (unshaped).
///
/// q(n) is `cake_get_flow_quantum` at host_load n: q(1) in {1513, 1514}, q(2) in
/// {756, 757}, q(3) in {504, 505}, q(4) in {378, 379} (`hosts.rs`, the dither's range).
/// All five queues join new_flows sparse with q(1): none is bulk yet, so no host has a count.
/// 1. A sends (deficit q - 1514 in [-1, 0]).
/// 2. A, spent: bulk (A's count 1), + q(1), to old_flows. B1 sends.
/// 3. B1: bulk (B's count 1), + q(1). B2 sends. 4. B2: bulk (count 2), + q(2) = [755, 757].
///    B3 sends. 5. B3: bulk (3), + q(3) = [503, 505]. B4 sends.
/// 6. B4: bulk (4), + q(4) = [377, 379]. new_flows is empty: old_flows' head, A, sends
///    ([-2, 0]).
/// 7. A + q(1), to the tail; B1 (about 1513) sends. 8. B1 + q(4): [376, 379], tail; B2
///    (756) sends: [-759, -757]. 9. B2 + q(4), tail; B3 sends. 10. B3 + q(4); B4 sends.
/// 11. B4 + q(4) = [-759, -756]; A sends. 12. A + q(1); B1 ([376, 379]) sends.
///
/// Whatever the dither (eight random streams), the order is A B1 B2 B3 B4 A B1 B2 B3 B4 A B1:
/// from here on B's flows get a quarter of A's credit each round.
#[test]
fn host_isolation_credits_by_hand() {
    for seed in 1..=8 {
        let mut r = two_hosts("dual-srchost", |_| 99, seed);
        let order: Vec<u32> = (0..6).map(|_| flow_of(&mut r, 0)).collect();
        assert_eq!(order, vec![0, 1, 2, 3, 4, 0]);
        let deficit = |r: &mut Rig, f: u32| {
            let (t, idx) = r.q.classify(&udp(f, if f == 0 { 10 } else { 20 }, 99));
            r.q.tins[t].flows[idx].deficit
        };
        let after_six: Vec<i32> = (0..5).map(|f| deficit(&mut r, f)).collect();
        let within = |v: i32, lo: i32, hi: i32| (lo..=hi).contains(&v);
        assert!(within(after_six[0], -2, 0), "{after_six:?}");
        assert!(within(after_six[1], 1512, 1514), "{after_six:?}");
        assert!(within(after_six[2], 755, 757), "{after_six:?}");
        assert!(within(after_six[3], 503, 505), "{after_six:?}");
        assert!(within(after_six[4], 377, 379), "{after_six:?}");
        let order: Vec<u32> = (0..6).map(|_| flow_of(&mut r, 0)).collect();
        assert_eq!(order, vec![1, 2, 3, 4, 0, 1], "seed {seed}");
    }
}

/// Host A's share of 2000 packets. Per round A gets q(1) ~ 1514 bytes, each of B's flows
/// q(4) ~ 378.5: each host half, 1000 packets (within 10: the first rounds above, and the
/// dither's mean 378.48 x 4 against 1513.98). Dual-srchost counts source hosts; dual-dsthost
/// destinations (so it is fair only when the hosts are receivers: here B's four flows go to
/// one destination, 30, A's to 31); triple-isolate both, so with distinct destinations for
/// each flow the sources decide: half. In flows mode each flow gets q(1): A 1/5, 400.
/// Triple-isolate with one destination for all five flows: the destination's load is 5 for
/// every flow (host_load takes the larger side), so A too gets 1/5: Linux's rule, not a
/// per-source fairness.
#[test]
fn each_host_gets_half_in_dual_and_triple_isolate_one_fifth_per_flow_otherwise() {
    let share = |isolation: &str, dst: &dyn Fn(u32) -> u32| {
        let mut r = two_hosts(isolation, dst, 1);
        (0..2000).filter(|_| flow_of(&mut r, 0) == 0).count() as i64
    };
    type Dst<'a> = &'a dyn Fn(u32) -> u32;
    let cases: [(&str, Dst, i64); 6] = [
        ("dual-srchost", &|_| 99, 1000),
        ("dual-dsthost", &|f| if f == 0 { 31 } else { 30 }, 1000),
        ("triple-isolate", &|f| 100 + f, 1000),
        ("flows", &|_| 99, 400),
        ("triple-isolate", &|_| 99, 400),
        ("dual-dsthost", &|_| 99, 400),
    ];
    for (isolation, dst, want) in cases {
        let got = share(isolation, dst);
        assert!(
            (got - want).abs() <= 10,
            "{isolation}: A sent {got} of 2000, want {want}"
        );
    }
}

/// A best-effort flow (DSCP 0) and a voice flow (EF, 46: diffserv3's tin 2), both backlogged,
/// unshaped: the tins share by DRR with weights 1024 and 256 bytes a round (`cake_config_
/// diffserv3`), so voice gets 1/5 of 1000 packets, 200 (within 5). Unshaped, a tin's weight
/// is all there is: priority needs a bandwidth.
#[test]
fn unshaped_tins_share_by_their_weights() {
    let mut r = rig(json!({}), 100_000);
    for _ in 0..1000 {
        r.enqueue(0, udp(1, 10, 30));
        let mut v = udp(2, 11, 31);
        v.dscp = 46;
        r.enqueue(0, v);
    }
    let voice = (0..1000).filter(|_| flow_of(&mut r, 0) == 2).count();
    assert!((195..=205).contains(&voice), "voice {voice}");
}

/// Drives the qdisc as a link does from `start`: a dequeue at `now`, or at the time it asks
/// for when it holds back. Returns the flows in order and their release times.
fn drain(r: &mut Rig, n: usize, start: Time) -> (Vec<u32>, Vec<Time>) {
    let (mut flows, mut times, mut now) = (vec![], vec![], start);
    while flows.len() < n {
        match r.dequeue(now) {
            Some(id) => {
                flows.push(r.arena.get(id).flow);
                times.push(now);
            }
            None => now = r.q.wake_at().expect("held packets ask for a wake-up"),
        }
    }
    (flows, times)
}

/// Shaped at 10 Mbit/s (1,250,000 bytes/s), diffserv3: voice's threshold is rate/4. By hand
/// (1514 bytes: 1.2112 ms at the rate, 4.8448 ms at voice's): at 0 both tins' clocks have
/// come and the highest, voice, sends (its clock to 4.8448 ms); at 1.2112, 2.4224 and 3.6336
/// ms voice's clock is ahead and best effort sends; at 4.8448 voice again. So voice sends one
/// packet in four, exactly, while best effort is backlogged; departures every 1.2112 ms.
/// Alone, voice is not held to its threshold: a tin over it still sends when no other tin
/// has packets (its clock is only a priority), at the full rate.
#[test]
fn shaped_tins_give_priority_up_to_their_threshold() {
    let mut r = rig(json!({ "bandwidth": "10Mbps" }), 100_000);
    for _ in 0..400 {
        r.enqueue(0, udp(1, 10, 30));
        let mut v = udp(2, 11, 31);
        v.dscp = 46;
        r.enqueue(0, v);
    }
    let (flows, times) = drain(&mut r, 400, 0);
    assert_eq!(&flows[..8], &[2, 1, 1, 1, 2, 1, 1, 1]);
    assert_eq!(flows.iter().filter(|&&f| f == 2).count(), 100);
    let gaps: Vec<Time> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|&g| g == 1_211_200), "{:?}", &gaps[..8]);

    let mut r = rig(json!({ "bandwidth": "10Mbps" }), 100_000);
    for _ in 0..10 {
        let mut v = udp(2, 11, 31);
        v.dscp = 46;
        r.enqueue(0, v);
    }
    let (_, times) = drain(&mut r, 10, 0);
    assert_eq!(times[9], 9 * 1_211_200);
}

/// The shaper's release times with overhead: 1500-byte packets, `overhead = 18`, ATM framing,
/// 10 Mbit/s: 1518 bytes, ceil(1518 / 48) = 32 cells of 53 = 1696 bytes, at 800 ns a byte
/// 1,356,800 ns apart: released at 0, 1.3568, 2.7136, 4.0704 ms. Between them the qdisc holds
/// and asks once for the next departure (asking again gives nothing new).
#[test]
fn shaper_releases_atm_cells_at_the_rate() {
    let mut r = rig(
        json!({ "bandwidth": "10Mbps", "overhead": 18, "atm": "atm" }),
        100,
    );
    for _ in 0..4 {
        r.enqueue(0, udp(1, 10, 30));
    }
    assert!(r.dequeue(0).is_some());
    assert_eq!(r.dequeue(0), None);
    assert_eq!(r.q.wake_at(), Some(1_356_800));
    assert_eq!(r.dequeue(1_000), None);
    assert_eq!(r.q.wake_at(), None, "the wake-up already asked for");
    let (_, times) = drain(&mut r, 3, 1_356_800);
    assert_eq!(times, vec![1_356_800, 2_713_600, 4_070_400]);
    // Held at 0, at 1 us, and after each of the next two departures.
    assert_eq!(r.q.overlimits, 4);
}

/// The ACK filter in place: three pure ACKs of one flow (cumulative ACKs 10, 11, 12); the
/// third's arrival makes the first redundant (two eligible found): dropped, counted, the
/// queue holds two. Filter off: all three stay.
#[test]
fn ack_filter_drops_a_redundant_ack_at_enqueue() {
    for (filter, kept) in [("on", 2), ("off", 3)] {
        let mut r = rig(json!({ "ack_filter": filter }), 100);
        let mut ids = vec![];
        for (k, ack) in [10, 11, 12].into_iter().enumerate() {
            let mut p = Packet::new(PacketKind::TcpAck, 7, 1, 0, 0, 40);
            p.ack = ack;
            p.sent_at = k as Time;
            ids.push(r.enqueue(k as Time, p));
        }
        assert_eq!(r.q.len_packets(), kept, "{filter}");
        if filter == "on" {
            assert_eq!(r.dropped, vec![ids[0]]);
            assert_eq!((r.q.ack_drops, r.stats.early_drops), (1, 1));
            assert_eq!(r.q.len_bytes(), 80);
        }
    }
}

/// The memory limit from the buffer: 4 packets x 1514 = 6056 bytes. Flow A's four 1500-byte
/// packets (6000) fit; B's first makes 7500: A, the fattest, loses its head (COBALT's
/// queue_full: BLUE's p at 1/256), leaving 6000.
#[test]
fn over_the_memory_limit_the_fattest_flow_loses_its_head() {
    let mut r = rig(json!({}), 4);
    let a: Vec<_> = (0..4).map(|_| r.enqueue(0, udp(1, 10, 30))).collect();
    assert!(r.dropped.is_empty());
    r.enqueue(0, udp(2, 11, 31));
    assert_eq!(r.dropped, vec![a[0]]);
    assert_eq!((r.q.memory_drops, r.stats.forced_drops), (1, 1));
    assert_eq!(r.q.len_bytes(), 6000);
    let (t, idx) = r.q.classify(&udp(1, 10, 30));
    assert_eq!(r.q.tins[t].flows[idx].cobalt.blue.p, 1.0 / 256.0);
}

/// `cake_reconfigure`'s limit, by hand: unshaped, unlimited but for the buffer: 1000 packets
/// x 1514 = 1,514,000 bytes. At 10 Mbit/s: 4 x 1,250,000 x 0.1 s = 500,000, raised to 4 MiB,
/// then capped by the buffer (1,514,000); with a 10,000-packet buffer 4 MiB stands. memlimit
/// 1 MB: 1,000,000 (the buffer does not cap what is configured below it).
#[test]
fn memory_limit_by_hand() {
    let p = CakeParams::default();
    assert_eq!(buffer_limit(&p, 0, QueueLimit::Packets(1000)), 1_514_000);
    assert_eq!(
        buffer_limit(&p, 1_250_000, QueueLimit::Packets(1000)),
        1_514_000
    );
    assert_eq!(
        buffer_limit(&p, 1_250_000, QueueLimit::Packets(10_000)),
        4 << 20
    );
    let m = CakeParams {
        memlimit: Some(crate::units::Bytes(1_000_000)),
        ..CakeParams::default()
    };
    assert_eq!(buffer_limit(&m, 0, QueueLimit::Packets(1000)), 1_000_000);
}

/// `wash`: the tin is chosen from the DSCP, then the DSCP is cleared for the next hop.
#[test]
fn wash_clears_the_dscp_after_the_tin_is_chosen() {
    let mut r = rig(json!({ "wash": true }), 100);
    let mut v = udp(2, 11, 31);
    v.dscp = 46;
    let id = r.enqueue(0, v);
    assert_eq!(r.arena.get(id).dscp, 0);
    assert_eq!(r.q.tins[2].backlog, 1500);
}

/// At 100 kb/s (12,500 bytes/s) diffserv3's bulk tin runs at 781 bytes/s: its MTU time is
/// 1514 / 781 s = 1.94 s, its target 2.91 s and its interval twice that, 5.8 s, past the 32
/// bits of ns Linux's control law takes: built all the same, as Linux does.
#[test]
fn a_very_low_rate_builds_with_the_bulk_tins_long_interval() {
    let r = rig(json!({ "bandwidth": "100kbps" }), 100);
    let bulk = r.q.tins[1].params;
    assert_eq!(bulk.rate, 781);
    assert!(bulk.interval > u32::MAX as u64, "{}", bulk.interval);
    assert_eq!(bulk.interval, 2 * bulk.target);
}

#[test]
fn defaults_are_linuxs_and_bad_parameters_name_the_field() {
    let d = CakeParams::default();
    assert_eq!((d.rtt.0, d.target.0, d.mtu), (100_000_000, 5_000_000, 1514));
    assert_eq!(serde_json::to_value(d.isolation).unwrap(), "triple-isolate");
    assert_eq!(serde_json::to_value(d.diffserv).unwrap(), "diffserv3");
    let env = crate::aqm::test_rig::env(100);
    for (bad, field) in [
        (json!({"overhead": 300}), "q.aqm.overhead"),
        (json!({"mpu": 257}), "q.aqm.mpu"),
        (json!({"rtt": 0}), "q.aqm.rtt"),
        (json!({"rtt": "5s"}), "q.aqm.rtt"),
        (json!({"bandwidth": "4bps"}), "q.aqm.bandwidth"),
        (json!({"memlimit": 0}), "q.aqm.memlimit"),
    ] {
        let e = cake(&AqmParams::new(bad.clone(), "q.aqm"), &env)
            .err()
            .unwrap();
        assert_eq!(e.path, field, "{bad}: {e}");
    }
    for bad in [
        json!({"isolation": "triple"}),
        json!({"diffserv": "diffserv5"}),
    ] {
        let e = cake(&AqmParams::new(bad.clone(), "q.aqm"), &env)
            .err()
            .unwrap();
        assert!(e.to_string().contains("unknown variant"), "{bad}: {e}");
    }
}
