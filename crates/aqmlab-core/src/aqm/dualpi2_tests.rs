//! Tests of `dualpi2.rs`: DualPI2's sequences computed by hand and its parameter checks.

use super::*;
use crate::aqm::test_rig::QueueRig;
use crate::net::PacketKind;

const MS: Time = 1_000_000;

type Rig = QueueRig<DualPi2>;

fn rig(cfg: DualPi2Params) -> Rig {
    QueueRig::new(DualPi2::new(cfg, QueueLimit::Packets(1000)))
}

/// A 1000-byte packet of flow `flow` with the codepoint `ect`, `ect1`, `ce`.
fn packet(flow: u32, ect: bool, ect1: bool, ce: bool) -> Packet {
    let mut p = Packet::new(PacketKind::TcpData, flow, 0, 1, 0, 1000);
    p.ecn.ect = ect;
    p.ecn.ect1 = ect1;
    p.ecn.ce = ce;
    p
}

fn l_pkt() -> Packet {
    packet(1, true, true, false)
}

fn c_pkt() -> Packet {
    packet(2, false, false, false)
}

fn is_l(r: &Rig, id: PacketId) -> bool {
    r.arena.get(id).flow == 1
}

#[test]
fn ect1_and_ce_go_to_l_the_rest_to_c() {
    assert_eq!(classify(&packet(0, true, true, false)), Queue::L);
    assert_eq!(classify(&packet(0, true, true, true)), Queue::L);
    assert_eq!(classify(&packet(0, true, false, true)), Queue::L, "CE");
    assert_eq!(classify(&packet(0, true, false, false)), Queue::C, "ECT(0)");
    assert_eq!(
        classify(&packet(0, false, false, false)),
        Queue::C,
        "not-ECT"
    );
    let mut r = rig(DualPi2Params::default());
    r.enqueue(0, l_pkt());
    r.enqueue(0, c_pkt());
    r.enqueue(0, packet(3, true, false, false));
    assert_eq!((r.q.l.len(), r.q.c.len()), (1, 2));
    assert_eq!((r.q.l_bytes, r.q.c_bytes), (1000, 2000));
}

#[test]
fn wrr_gives_c_one_packet_in_ten_when_both_are_backlogged() {
    let mut r = rig(DualPi2Params::default());
    for _ in 0..40 {
        r.enqueue(0, l_pkt());
        r.enqueue(0, c_pkt());
    }
    assert_eq!(r.q.credit, 1514 * (10 - 90));
    // credit -121120; +10 x 1000 per L packet: 13 L packets bring it to 8880 > 0, then one
    // C packet takes 90 x 1000 (-81120), and 9 L packets bring it back to 8880.
    let order: String = (0..33)
        .map(|_| {
            let id = r.dequeue(0).unwrap();
            if is_l(&r, id) {
                'L'
            } else {
                'C'
            }
        })
        .collect();
    assert_eq!(
        order,
        format!("{}C{}C{}", "L".repeat(13), "L".repeat(9), "L".repeat(9))
    );
    assert_eq!(r.q.credit, 8880 - 90_000 + 9 * 10_000);
    // An empty L queue: C alone, the credit untouched; both empty: reset.
    while r.q.l.front().is_some() {
        r.dequeue(0);
    }
    let before = r.q.credit;
    let id = r.dequeue(0).unwrap();
    assert!(!is_l(&r, id));
    assert_eq!(r.q.credit, before);
    while r.dequeue(0).is_some() {}
    assert_eq!(r.q.credit, -121_120);
}

#[test]
fn ts_fifo_serves_l_while_its_head_age_plus_tshift_exceeds_cs() {
    let ts_fifo = || {
        rig(DualPi2Params {
            scheduler: Scheduler::TsFifo,
            ..Default::default()
        })
    };
    // C head enqueued at 0, L head at 39 ms: at 100 ms, 61 + 40 = 101 > 100: L
    let mut r = ts_fifo();
    r.enqueue(0, c_pkt());
    r.enqueue(39 * MS, l_pkt());
    assert_eq!(r.q.choose(100 * MS, &r.arena), Some(Queue::L));
    // L head at 50 ms: 50 + 40 = 90 < 100: C
    let mut r = ts_fifo();
    r.enqueue(0, c_pkt());
    r.enqueue(50 * MS, l_pkt());
    assert_eq!(r.q.choose(100 * MS, &r.arena), Some(Queue::C));
    // L head at 40 ms: equal (60 + 40 = 100) goes to C, ns-3's strict comparison
    let mut r = ts_fifo();
    r.enqueue(0, c_pkt());
    r.enqueue(40 * MS, l_pkt());
    assert_eq!(r.q.choose(100 * MS, &r.arena), Some(Queue::C));
    // one queue empty: the other, whatever the ages
    let mut r = ts_fifo();
    r.enqueue(0, l_pkt());
    assert_eq!(r.q.choose(100 * MS, &r.arena), Some(Queue::L));
}

#[test]
fn pi_update_samples_the_older_head_or_the_classic_one() {
    let mut r = rig(DualPi2Params::default());
    r.enqueue(0, l_pkt()); // L head age at 25 ms: 25
    r.enqueue(20 * MS, c_pkt()); // C head age: 5
    r.with_ctx(25 * MS, |q, cx| q.on_timer(cx, None));
    // max(25, 5) = 25 ms: 0.16 * 0.010 + 3.2 * 0.025 = 0.0816
    assert!((r.q.pi.p - 0.0816).abs() < 1e-12, "{}", r.q.pi.p);
    let mut r = rig(DualPi2Params {
        pi_delay: PiDelay::Classic,
        ..Default::default()
    });
    r.enqueue(0, l_pkt());
    r.enqueue(20 * MS, c_pkt());
    r.with_ctx(25 * MS, |q, cx| q.on_timer(cx, None));
    // C only, 5 ms: 0.16 * -0.010 + 3.2 * 0.005 = 0.0144
    assert!((r.q.pi.p - 0.0144).abs() < 1e-12, "{}", r.q.pi.p);
    // drop_overload = false caps p' at 1/k
    let mut r = rig(DualPi2Params {
        drop_overload: false,
        ..Default::default()
    });
    r.enqueue(0, c_pkt());
    r.with_ctx(900 * MS, |q, cx| q.on_timer(cx, None));
    assert_eq!(r.q.pi.p, 0.5);
}

/// The fractions of `n` packets like `pkt`, each dequeued first after `sojourn` with
/// p' = `p` and 9 packets of 1000 B staying behind it (above the 2-MTU rule), that were
/// CE-marked and dropped.
fn signals(cfg: DualPi2Params, p: f64, pkt: &Packet, sojourn: Time, n: u32) -> (f64, f64) {
    let mut r = rig(cfg);
    let (mut marks, mut drops) = (0u32, 0u32);
    for i in 0..n as u64 {
        let t = i * 1000 * MS;
        r.q.pi.p = p;
        // An L packet goes first (the WRR credit starts negative); a C packet must be the
        // head of C.
        let id = if classify(pkt) == Queue::L {
            for _ in 0..9 {
                r.enqueue(t, c_pkt());
            }
            r.enqueue(t, pkt.clone())
        } else {
            let id = r.enqueue(t, pkt.clone());
            for _ in 0..9 {
                r.enqueue(t, c_pkt());
            }
            id
        };
        let out = r.dequeue(t + sojourn);
        if r.dropped.contains(&id) {
            drops += 1;
        } else {
            assert_eq!(out, Some(id));
            marks += u32::from(r.arena.get(id).ecn.ce);
        }
        // drain without signals (no random draws at p' = 0)
        r.q.pi.p = 0.0;
        while let Some(x) = r.dequeue(t + sojourn) {
            r.arena.free(x);
        }
        for x in r.dropped.drain(..) {
            r.arena.free(x);
        }
    }
    (marks as f64 / n as f64, drops as f64 / n as f64)
}

#[test]
fn l_packets_are_marked_with_max_of_k_p_and_the_step() {
    let cfg = DualPi2Params::default;
    // below the step, p' = 0.1: p_CL = 0.2
    let (m, d) = signals(cfg(), 0.1, &l_pkt(), 0, 20_000);
    assert!(d == 0.0 && (m - 0.2).abs() < 0.012, "mark {m} drop {d}");
    // above the 1 ms step: every packet, whatever p'
    let (m, d) = signals(cfg(), 0.0, &l_pkt(), 2 * MS, 2_000);
    assert_eq!((m, d), (1.0, 0.0));
    let (m, _) = signals(cfg(), 0.1, &l_pkt(), 2 * MS, 2_000);
    assert_eq!(m, 1.0, "max(0.2, 1) = 1");
    // at exactly the threshold: not above it
    let (m, _) = signals(cfg(), 0.0, &l_pkt(), MS, 2_000);
    assert_eq!(m, 0.0);
    // p' = 0.5: k p' = 1, every L packet marked below the step too
    let (m, d) = signals(cfg(), 0.5, &l_pkt(), 0, 2_000);
    assert_eq!((m, d), (1.0, 0.0));
}

#[test]
fn c_packets_get_p_squared_marks_if_ect0_and_drops_otherwise() {
    let cfg = DualPi2Params::default;
    let (m, d) = signals(cfg(), 0.3, &c_pkt(), 0, 20_000);
    assert!(m == 0.0 && (d - 0.09).abs() < 0.01, "mark {m} drop {d}");
    let ect0 = packet(2, true, false, false);
    let (m, d) = signals(cfg(), 0.3, &ect0, 0, 20_000);
    assert!(d == 0.0 && (m - 0.09).abs() < 0.01, "mark {m} drop {d}");
    // the step never applies to C: a 50 ms sojourn with p' = 0 leaves it alone
    let (m, d) = signals(cfg(), 0.0, &ect0, 50 * MS, 1_000);
    assert_eq!((m, d), (0.0, 0.0));
    // ecn = false: ECT(0) dropped; L packets still marked
    let no_ecn = || DualPi2Params {
        ecn: false,
        ..Default::default()
    };
    let (m, d) = signals(no_ecn(), 0.3, &ect0, 0, 20_000);
    assert!(m == 0.0 && (d - 0.09).abs() < 0.01, "mark {m} drop {d}");
    let (m, d) = signals(no_ecn(), 0.1, &l_pkt(), 0, 20_000);
    assert!(d == 0.0 && (m - 0.2).abs() < 0.012, "mark {m} drop {d}");
}

#[test]
fn overload_drops_instead_of_marking() {
    let cfg = DualPi2Params::default;
    // p' = 0.6: k p' = 1.2 > 1. ECT(0) Classic packets: dropped with 0.36, never marked.
    let ect0 = packet(2, true, false, false);
    let (m, d) = signals(cfg(), 0.6, &ect0, 0, 20_000);
    assert!(m == 0.0 && (d - 0.36).abs() < 0.015, "mark {m} drop {d}");
    // L packets: dropped with p'^2 = 0.36, all the others marked
    let (m, d) = signals(cfg(), 0.6, &l_pkt(), 0, 20_000);
    assert!(
        (d - 0.36).abs() < 0.015 && (m + d - 1.0).abs() < 1e-12,
        "mark {m} drop {d}"
    );
    // without drop_overload: marked, never dropped
    let no_drop = DualPi2Params {
        drop_overload: false,
        ..Default::default()
    };
    let (m, d) = signals(no_drop, 0.6, &l_pkt(), 0, 2_000);
    assert_eq!((m, d), (1.0, 0.0));
}

#[test]
fn step_in_packets_and_min_qlen_step() {
    // step_packets = 3: an L packet leaving more than 3 behind it in L is marked
    let mut r = rig(DualPi2Params {
        step_packets: Some(3),
        ..Default::default()
    });
    for _ in 0..6 {
        r.enqueue(0, l_pkt());
    }
    for left in (0..6).rev() {
        let before = r.stats.marks;
        r.dequeue(0);
        assert_eq!(r.stats.marks - before, u64::from(left > 3), "{left} left");
    }
    // min_qlen_step = 2: the first two arrivals found fewer than 2 in L and are exempt
    let mut r = rig(DualPi2Params {
        min_qlen_step: 2,
        ..Default::default()
    });
    for _ in 0..4 {
        r.enqueue(0, l_pkt());
    }
    let marks: Vec<u64> = (0..4)
        .map(|_| {
            let before = r.stats.marks;
            r.dequeue(10 * MS);
            r.stats.marks - before
        })
        .collect();
    assert_eq!(marks, vec![0, 0, 1, 1]);
}

#[test]
fn no_signal_under_two_mtu_and_the_limits() {
    let mut r = rig(DualPi2Params::default());
    r.q.pi.p = 1.0;
    // 3 packets: at each dequeue at most 2000 B remain < 3028: nothing happens
    for _ in 0..3 {
        r.enqueue(0, c_pkt());
    }
    while r.dequeue(0).is_some() {}
    assert_eq!((r.stats.early_drops, r.stats.marks), (0, 0));
    // the scenario's limit caps Linux's 10000
    let q = DualPi2::new(DualPi2Params::default(), QueueLimit::Packets(100));
    assert_eq!(q.limit_packets, 100);
    let mut r = QueueRig::new(DualPi2::new(
        DualPi2Params::default(),
        QueueLimit::Packets(2),
    ));
    r.enqueue(0, l_pkt());
    r.enqueue(0, c_pkt());
    let third = r.enqueue(0, c_pkt());
    assert_eq!(r.dropped, vec![third]);
    assert_eq!(r.stats.forced_drops, 1);
    let mut r = QueueRig::new(DualPi2::new(
        DualPi2Params::default(),
        QueueLimit::Bytes(2500),
    ));
    r.enqueue(0, l_pkt());
    r.enqueue(0, c_pkt());
    let third = r.enqueue(0, l_pkt());
    assert_eq!(r.dropped, vec![third]);
}

#[test]
fn parameters_are_checked_by_name() {
    let env = crate::aqm::test_rig::env(100);
    for (bad, path) in [
        (serde_json::json!({"coupling": 0.5}), "q.aqm.coupling"),
        (
            serde_json::json!({"c_protection": 101}),
            "q.aqm.c_protection",
        ),
        (serde_json::json!({"t_update": 0}), "q.aqm.t_update"),
        (serde_json::json!({"beta": -1}), "q.aqm.beta"),
        (serde_json::json!({"scheduler": "drr"}), "q.aqm.scheduler"),
        (serde_json::json!({"limit": 0}), "q.aqm.limit"),
    ] {
        let e = build(&AqmParams::new(bad.clone(), "q.aqm"), &env)
            .err()
            .unwrap();
        assert_eq!(e.path, path, "{bad}");
    }
}
