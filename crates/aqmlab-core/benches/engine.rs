//! Micro-benchmarks of the engine's hot paths: the event queue, RED's arrival decision and a
//! short whole scenario. Whole-scenario speed over long runs is measured with the
//! `run_scenario` example (see BENCHMARKS.md).

use aqmlab_core::aqm::red::{Red, RedParams};
use aqmlab_core::aqm::{Aqm, QueueLimit, QueueView};
use aqmlab_core::net::{Packet, PacketKind};
use aqmlab_core::run;
use aqmlab_core::sim::{EventKind, EventQueue, RngStream, StreamKind};
use aqmlab_core::testing::Dumbbell;
use criterion::{black_box, criterion_group, criterion_main, Criterion};

fn event_queue(c: &mut Criterion) {
    // A steady queue of n pending events, each pop followed by one push at a time uniform
    // over the next millisecond. Each size is measured with both structures (`for_pending`
    // picks the 4-ary heap below RADIX_FROM_PENDING, the radix heap from it on). Uniform
    // times are the radix heap's worst case (events filed again many times); the simulator's
    // own pattern is measured whole (BENCHMARKS.md, "Event queue").
    for n in [64usize, 10_000] {
        for pending_hint in [0, usize::MAX] {
            let name = if pending_hint == 0 {
                "4-ary heap"
            } else {
                "radix heap"
            };
            c.bench_function(
                &format!("event_queue pop+push ({n} pending, {name})"),
                |b| {
                    let mut q = EventQueue::for_pending(pending_hint);
                    let mut rng = RngStream::new(1, StreamKind::Agent, 0);
                    for i in 0..n as u64 {
                        q.schedule(rng.next_u64() % 1_000_000, EventKind::LinkTxDone(i as u32));
                    }
                    b.iter(|| {
                        let e = q.pop_until(u64::MAX).unwrap();
                        q.schedule(e.time + 1 + rng.next_u64() % 1_000_000, e.kind);
                    })
                },
            );
        }
    }
}

fn red_arrival(c: &mut Criterion) {
    // ns-2's defaults with thresholds 5 and 15 on a 10 Mb/s link (2500 packets of 500 B/s).
    let cfg = RedParams::default().config(5.0, 15.0, 0.002, 2500.0);
    c.bench_function("red on_arrival", |b| {
        let mut red = Red::new(cfg.clone());
        let mut rng = RngStream::new(1, StreamKind::Queue, 0);
        let pkt = Packet::new(PacketKind::TcpData, 0, 0, 1, 0, 1040);
        let mut t = 0;
        b.iter(|| {
            t += 1000;
            let q = QueueView {
                now: t,
                len_packets: 10,
                len_bytes: 10_400,
                limit: QueueLimit::Packets(50),
                link_rate_bps: 10_000_000,
                idle_since: None,
                head_enqueued_at: None,
            };
            black_box(red.on_arrival(&q, &pkt, &mut rng))
        })
    });
}

fn short_scenario(c: &mut Criterion) {
    let s = Dumbbell {
        duration: "5s",
        senders: 10,
        bottleneck: r#"rate = "10Mbps", delay = "10ms", queue = { limit = 100, aqm = "red" }"#,
        access: r#"rate = "100Mbps", delay = "2ms""#,
        ..Default::default()
    }
    .scenario();
    let mut g = c.benchmark_group("scenario");
    g.sample_size(10);
    g.bench_function("10 flows x 5 s, 10 Mb/s RED", |b| {
        b.iter(|| black_box(run(&s, 1).unwrap().events))
    });
    g.finish();
}

criterion_group!(benches, event_queue, red_arrival, short_scenario);
criterion_main!(benches);
