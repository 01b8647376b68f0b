//! The Wi-Fi medium against hand-computed TXOPs and aggregates, and the closed forms of a
//! saturated station's efficiency and of two stations' shares with and without airtime
//! fairness (the performance anomaly).

use super::*;
use crate::sim::StreamKind;
use std::collections::{HashMap, VecDeque};

const MBPS: u64 = 1_000_000;

fn medium(params: WifiParams, rates: &[(NodeId, u64)]) -> WifiLink {
    let rng = RngStream::new(3, StreamKind::LinkWifi, 0);
    WifiLink::new(params, rates.iter().copied().collect(), rng)
}

/// No backoff: every TXOP's length is fixed.
fn no_backoff() -> WifiParams {
    WifiParams {
        cw_min: 0,
        ..WifiParams::default()
    }
}

/// Per node, the packets queued (what the link's discipline would hold).
#[derive(Default)]
struct Queues(HashMap<NodeId, VecDeque<(PacketId, u32)>>);

impl Queues {
    /// `n` packets of `size` bytes for node `dst` arrive, numbered from `first`.
    fn arrive(&mut self, w: &mut WifiLink, dst: NodeId, n: u32, size: u32, first: u32) {
        for i in 0..n {
            self.0
                .entry(dst)
                .or_default()
                .push_back((PacketId(first + i), size));
        }
        w.schedule(dst);
    }

    fn queued(&self, node: NodeId) -> bool {
        self.0.get(&node).is_some_and(|q| !q.is_empty())
    }

    /// One TXOP: the station chosen, its duration, the packets sent.
    fn txop(&mut self, w: &mut WifiLink, link_rate: u64) -> Option<(u32, Time, Vec<PacketId>)> {
        let s = w.choose(|n| self.queued(n))?;
        let q = self.0.get_mut(&w.node(s)).unwrap();
        let tx = w.send(s, link_rate, || q.pop_front());
        let sent = w.on_air().to_vec();
        w.finish(|n| self.queued(n));
        Some((s, tx, sent))
    }
}

fn ids(r: std::ops::Range<u32>) -> Vec<PacketId> {
    r.map(PacketId).collect()
}

/// Three 1500-byte packets at 100 Mb/s: subframes of 1500 + 42 = 1542, padded to 1544
/// bytes; 3 x 1544 x 8 bits / 100 Mb/s = 370.56 us of data. The TXOP: AIFS 16 + 3 x 9 = 43,
/// no backoff (CW 0), preamble 36, data 370.56, SIFS 16, BlockAck 32 = 497.56 us.
#[test]
fn a_txop_lasts_aifs_backoff_preamble_data_sifs_and_blockack() {
    let mut w = medium(no_backoff(), &[]);
    let mut q = Queues::default();
    q.arrive(&mut w, 7, 3, 1500, 0);
    assert_eq!(q.txop(&mut w, 100 * MBPS), Some((0, 497_560, ids(0..3))));
    assert!(w.is_empty());
    assert_eq!(q.txop(&mut w, 100 * MBPS), None);
}

/// Aggregates sized packet by packet, as ath9k's `ath_tx_form_aggr`; the packet that does
/// not fit is carried to the station's next aggregate.
#[test]
fn an_aggregate_stops_at_the_first_limit_reached() {
    let rate = 100 * MBPS;
    // 100-byte packets (144-byte subframes): 64 x 144 = 9,216 bytes, 737 us, so the
    // block-ack window stops it at 64; the 36 left make the next.
    let mut w = medium(no_backoff(), &[]);
    let mut q = Queues::default();
    q.arrive(&mut w, 1, 100, 100, 0);
    assert_eq!(q.txop(&mut w, rate).unwrap().2, ids(0..64));
    assert_eq!(q.txop(&mut w, rate).unwrap().2, ids(64..100));

    // 1500-byte packets at 100 Mb/s: 4 ms holds 50,000 bytes, 32 subframes of 1544
    // (49,408 bytes, 3,952.64 us); the 33rd, taken and not fitting (4,076.16 us), is
    // carried over and starts the next.
    let mut w = medium(no_backoff(), &[]);
    let mut q = Queues::default();
    q.arrive(&mut w, 1, 40, 1500, 0);
    let (_, tx, sent) = q.txop(&mut w, rate).unwrap();
    assert_eq!(
        (tx, sent),
        (43_000 + 36_000 + 3_952_640 + 48_000, ids(0..32))
    );
    assert_eq!(w.len(), 1);
    assert_eq!(q.0[&1].len(), 7);
    assert_eq!(q.txop(&mut w, rate).unwrap().2, ids(32..40));

    // At 1 Gb/s 4 ms would hold 323 subframes: 65,535 bytes stop it at 42 (64,848).
    let mut w = medium(no_backoff(), &[]);
    let mut q = Queues::default();
    q.arrive(&mut w, 1, 50, 1500, 0);
    assert_eq!(q.txop(&mut w, 1000 * MBPS).unwrap().2, ids(0..42));

    // The first packet is always sent, even when alone it overruns the airtime limit:
    // 1,544 bytes at 10 Mb/s are 1,235.2 us against a 1 ms limit.
    let p = WifiParams {
        max_airtime: Duration(1_000 * US),
        ..no_backoff()
    };
    let mut w = medium(p, &[]);
    let mut q = Queues::default();
    q.arrive(&mut w, 1, 3, 1500, 0);
    let (_, tx, sent) = q.txop(&mut w, 10 * MBPS).unwrap();
    assert_eq!(
        (tx, sent),
        (43_000 + 36_000 + 1_235_200 + 48_000, ids(0..1))
    );
}

/// A station's own PHY rate sizes its aggregates and times them: at 25 Mb/s 4 ms holds 8
/// subframes of 1544 bytes (3,952.64 us), while the link's 100 Mb/s takes 32.
#[test]
fn each_station_sends_at_its_own_rate() {
    let mut w = medium(no_backoff(), &[(2, 25 * MBPS)]);
    let mut q = Queues::default();
    q.arrive(&mut w, 2, 40, 1500, 0);
    let (_, tx, sent) = q.txop(&mut w, 100 * MBPS).unwrap();
    assert_eq!(
        (tx, sent),
        (43_000 + 36_000 + 3_952_640 + 48_000, ids(0..8))
    );
}

/// A station whose queued packets were all dropped (the AQM) is skipped, not served empty.
#[test]
fn a_station_whose_packets_were_dropped_is_skipped() {
    let mut w = medium(no_backoff(), &[]);
    let mut q = Queues::default();
    q.arrive(&mut w, 1, 2, 1500, 0);
    q.arrive(&mut w, 2, 2, 1500, 2);
    q.0.get_mut(&2).unwrap().clear();
    assert_eq!(q.txop(&mut w, 100 * MBPS).unwrap().2, ids(0..2));
    assert_eq!(q.txop(&mut w, 100 * MBPS), None);
}

/// Runs `txops` TXOPs with every station of `stations` kept backlogged with 1500-byte
/// packets; returns per station the packets sent and the PPDU airtime used, and the time.
fn saturate(
    w: &mut WifiLink,
    stations: &[(NodeId, u64)],
    link_rate: u64,
    txops: usize,
) -> (Vec<u64>, Vec<u64>, Time) {
    let mut sent = vec![0u64; stations.len()];
    let mut air = vec![0u64; stations.len()];
    let mut time = 0;
    let mut id = 0;
    let mut q = Queues::default();
    for _ in 0..txops {
        for &(node, _) in stations {
            let n = 200 - q.0.get(&node).map_or(0, |q| q.len() as u32);
            q.arrive(w, node, n, 1500, id);
            id += n;
        }
        let (s, tx, out) = q.txop(w, link_rate).unwrap();
        let (s, n) = (s as usize, out.len() as u64);
        time += tx;
        sent[s] += n;
        air[s] += 36_000 + airtime_ns(n * 1544, stations[s].1);
    }
    (sent, air, time)
}

/// One saturated station at 100 Mb/s sends aggregates of 32 (above). Per TXOP the overhead
/// is AIFS 43 + a mean backoff of 7.5 slots (uniform 0..=15) x 9 = 67.5 + preamble 36 +
/// SIFS 16 + BlockAck 32 = 194.5 us, and the data 3,952.64 us, of which the IP packets'
/// bits are 32 x 1500 x 8 / 100 Mb/s = 3,840 us: an efficiency of 3840 / 4147.14 = 0.92594,
/// 92.594 Mb/s of IP throughput. Over 20,000 TXOPs the backoff's mean is within 0.3 us of
/// 67.5 (its standard deviation is 41.3 us), 1e-4 of the total.
#[test]
fn a_saturated_station_gets_the_closed_form_efficiency() {
    let mut w = medium(WifiParams::default(), &[]);
    let (sent, _, time) = saturate(&mut w, &[(1, 100 * MBPS)], 100 * MBPS, 20_000);
    assert_eq!(sent[0], 32 * 20_000);
    let throughput = sent[0] as f64 * 12_000.0 / (time as f64 * 1e-9);
    let closed = 32.0 * 12_000.0 / 4_147.14e-6;
    assert!(
        (throughput / closed - 1.0).abs() < 5e-4,
        "{throughput} against {closed}"
    );
}

/// The performance anomaly and its cure. Stations A at 100 Mb/s and B at 25 Mb/s, both
/// saturated, aggregates capped at 8 packets: A's data lasts 8 x 1544 x 8 / 100 Mb/s =
/// 988.16 us, B's 3,952.64 us; each PPDU adds the 36 us preamble (A 1,024.16, B 3,988.64),
/// each TXOP 158.5 us more (AIFS, mean backoff, SIFS, BlockAck).
/// - Without airtime fairness they take turns: 8 packets each per cycle of 2 x 194.5 +
///   988.16 + 3,952.64 = 5,329.8 us: 96,000 bits / 5,329.8 us = 18.012 Mb/s each, equal
///   throughput (B holds the medium 3.9 times as long).
/// - With it, equal airtime: A sends 3,988.64 / 1,024.16 = 3.89455 aggregates per B's; a
///   cycle is 3.89455 x 1,182.66 + 4,147.14 = 8,753.07 us: A 3.89455 x 96,000 / 8,753.07 us
///   = 42.714 Mb/s, B 96,000 / 8,753.07 us = 10.968 Mb/s.
#[test]
fn airtime_fairness_turns_equal_throughput_into_equal_airtime() {
    let stations = [(1, 100 * MBPS), (2, 25 * MBPS)];
    let mbps = |sent: u64, time: Time| sent as f64 * 12_000.0 / (time as f64 * 1e-9) / 1e6;
    for (fair, a, b) in [(false, 18.012, 18.012), (true, 42.714, 10.968)] {
        let p = WifiParams {
            max_packets: 8,
            airtime_fairness: fair,
            ..WifiParams::default()
        };
        let mut w = medium(p, &stations[1..]);
        let (sent, air, time) = saturate(&mut w, &stations, 100 * MBPS, 40_000);
        let (ta, tb) = (mbps(sent[0], time), mbps(sent[1], time));
        assert!(
            (ta / a - 1.0).abs() < 0.005 && (tb / b - 1.0).abs() < 0.005,
            "fair {fair}: {ta} {tb} Mb/s against {a} {b}"
        );
        let share = air[0] as f64 / (air[0] + air[1]) as f64;
        let expected = if fair {
            0.5
        } else {
            1024.16 / (1024.16 + 3988.64)
        };
        assert!(
            (share - expected).abs() < 0.002,
            "fair {fair}: A's airtime share {share}"
        );
    }
}

/// The backoff is a whole number of slots, uniform over 0..=CW: every value of 0..=15 is
/// drawn, and nothing else.
#[test]
fn the_backoff_is_uniform_over_the_contention_window() {
    let mut w = medium(WifiParams::default(), &[]);
    let mut q = Queues::default();
    let mut seen = [0u32; 16];
    for i in 0..4_000 {
        q.arrive(&mut w, 1, 1, 1500, i);
        // One packet: 43 + 36 + 123.52 + 48 us without the backoff.
        let extra = q.txop(&mut w, 100 * MBPS).unwrap().1 - 250_520;
        assert_eq!(extra % 9_000, 0);
        seen[(extra / 9_000) as usize] += 1;
    }
    assert!(seen.iter().all(|&n| (150..350).contains(&n)), "{seen:?}");
}

#[test]
fn bad_parameters_name_the_field() {
    let bad = |p: WifiParams| p.check("topology.bottleneck.wifi").unwrap_err().path;
    let d = WifiParams::default;
    assert_eq!(
        bad(WifiParams {
            max_packets: 0,
            ..d()
        }),
        "topology.bottleneck.wifi.max_packets"
    );
    assert_eq!(
        bad(WifiParams { cw_min: 16, ..d() }),
        "topology.bottleneck.wifi.cw_min"
    );
    assert_eq!(
        bad(WifiParams { aifsn: 0, ..d() }),
        "topology.bottleneck.wifi.aifsn"
    );
    assert_eq!(
        bad(WifiParams {
            max_airtime: Duration(0),
            ..d()
        }),
        "topology.bottleneck.wifi.max_airtime"
    );
    let mut p = d();
    p.station_rates.insert("d1".into(), Rate(200 * MBPS));
    let e = p.station_rate("x.wifi", "d1", 100 * MBPS).unwrap_err();
    assert_eq!(e.path, "x.wifi.station_rates.d1");
    assert!(
        e.message.contains("at most the link's rate"),
        "{}",
        e.message
    );
}
