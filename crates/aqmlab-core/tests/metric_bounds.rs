//! No metric exceeds its physical bound (issue 10, item 11).
//!
//! First, the runs in which the reviewer's readings were reproduced: goodput above the
//! payload capacity of the bottleneck in a short window after a warm-up, a flow's loss rate
//! above 1, and a queue's throughput above its link rate. Then a randomized property test over
//! every algorithm of the registry: many seeds, short runs with and without warm-up, and
//! every bound asserted on the result (the engine also checks them on every run and fails
//! the run if one is violated).
//!
//! The bounds, for the measurement window [warm-up, end] of length T:
//! - a flow's throughput <= the rate of the slowest link on its path (bits in T);
//! - a flow's goodput <= its throughput; TCP payload is 1000 of every 1040 bytes, so the
//!   goodput of TCP flows through a link of rate R is at most R * 1000/1040;
//! - the sum of the throughputs through the shared bottleneck <= its rate (the receivers'
//!   access links are faster here, so the bottleneck is on or after every flow's slowest link);
//! - loss rates (flow and queue) and utilization in [0, 1]; a queue's throughput <= its rate.

use aqmlab_core::aqm::registry::REGISTRY;
use aqmlab_core::testing::{Dumbbell, TCP_TO_RECEIVERS};
use aqmlab_core::{run, RunResult, Scenario};
use proptest::prelude::*;

const PAYLOAD_FRACTION: f64 = 1000.0 / 1040.0;
/// Relative slack for float division (the engine checks the bounds on integer counters).
const EPS: f64 = 1e-9;

fn tcp_dumbbell(n: u32, aqm: &str, dur: f64, warm: f64, variant: &str, window: u32) -> Scenario {
    let bottleneck =
        format!(r#"rate = "10Mbps", delay = "20ms", queue = {{ limit = 100, aqm = "{aqm}" }}"#);
    Dumbbell {
        duration: &format!("{dur}s"),
        head: &format!("warmup = \"{warm}s\""),
        senders: n,
        bottleneck: &bottleneck,
        access: r#"rate = "100Mbps", delay = ["1ms", "5ms", "3ms"]"#,
        rest: &format!("[tcp]\nvariant = \"{variant}\"\nwindow = {window}\n{TCP_TO_RECEIVERS}"),
    }
    .scenario()
}

fn total(r: &RunResult, f: impl Fn(&aqmlab_core::metrics::flow_stats::FlowSummary) -> f64) -> f64 {
    r.flows.iter().map(f).sum()
}

/// Before the fix: goodput 1.148 x and 1.144 x the payload capacity (0.2 s windows). The
/// receiver credited, at the moment a retransmission filled a hole, every packet it had been
/// holding out of order, including those that had arrived before the window began.
#[test]
fn goodput_of_a_short_window_stays_below_the_payload_capacity() {
    for (n, aqm, variant) in [(60, "rem", "reno"), (5, "pi", "sack")] {
        let s = tcp_dumbbell(n, aqm, 2.0, 1.8, variant, 64);
        let r = run(&s, 1).unwrap();
        let goodput = total(&r, |f| f.goodput_bps);
        let throughput = total(&r, |f| f.throughput_bps);
        eprintln!(
            "{aqm} {variant} n={n}: goodput {:.4} of payload capacity, throughput {:.4} of rate",
            goodput / (10e6 * PAYLOAD_FRACTION),
            throughput / 10e6
        );
        assert!(
            goodput <= 10e6 * PAYLOAD_FRACTION * (1.0 + EPS),
            "goodput {goodput}"
        );
        assert!(throughput <= 10e6 * (1.0 + EPS), "throughput {throughput}");
        for f in &r.flows {
            assert!(f.goodput_bps <= f.throughput_bps * (1.0 + EPS), "{f:?}");
        }
    }
}

fn cbr_into_codel(dur: &str, warm: &str, stop: &str) -> Scenario {
    // 20 Mb/s of 1000-byte packets into a 10 Mb/s CoDel queue: a standing queue of hundreds
    // of packets builds up; the source stops 10 ms after the warm-up and CoDel keeps dropping
    // from the backlog that arrived before the window.
    Dumbbell {
        duration: dur,
        head: &format!("warmup = \"{warm}\""),
        senders: 1,
        bottleneck: r#"rate = "10Mbps", delay = "5ms", queue = { limit = 1000, aqm = "codel" }"#,
        access: r#"rate = "100Mbps""#,
        rest: &format!(
            r#"
            [[flows]]
            kind = "cbr"
            from = "senders"
            to = "receivers"
            rate = "20Mbps"
            packet_size = 1000
            stop = "{stop}"
            "#
        ),
    }
    .scenario()
}

/// Before the fix: the flow's loss rate and the queue's were both 189 / 25 = 7.56 (drops in
/// the window of packets sent and queued before it, over arrivals in the window).
#[test]
fn loss_rates_are_fractions_after_a_warmup() {
    let r = run(&cbr_into_codel("6s", "5s", "5.01s"), 1).unwrap();
    let q = r.queue("bottleneck").unwrap();
    let f = &r.flows[0];
    eprintln!(
        "queue: {} arrivals, {} drops, loss rate {}; flow: {} sent, loss rate {}",
        q.arrivals, q.drops, q.loss_rate, f.packets_sent, f.loss_rate
    );
    assert!(
        (0.0..=1.0).contains(&q.loss_rate),
        "queue loss rate {}",
        q.loss_rate
    );
    assert!(
        (0.0..=1.0).contains(&f.loss_rate),
        "flow loss rate {}",
        f.loss_rate
    );
    // The drops themselves still count: conservation holds with the backlog at the start.
    assert!(r.conserved);
    assert!(q.drops > q.arrivals);
}

/// Before the fix: in a 2 ms window a 10 Mb/s queue "sent" 12 Mb/s and its 100 Mb/s access
/// link 24 Mb/s: a departure was counted in full when its transmission started.
#[test]
fn a_queue_sends_no_faster_than_its_link_in_a_short_window() {
    let r = run(&cbr_into_codel("5.002s", "5s", "6s"), 1).unwrap();
    for (name, rate) in [("bottleneck", 10e6), ("s0->r0", 100e6), ("r1->d0", 100e6)] {
        let q = r.queue(name).unwrap();
        eprintln!(
            "{name}: throughput {} b/s, utilization {}",
            q.throughput_bps, q.utilization
        );
        assert!(
            q.throughput_bps <= rate * (1.0 + EPS),
            "{name}: {}",
            q.throughput_bps
        );
        assert!(q.utilization <= 1.0 + EPS, "{name}: {}", q.utilization);
    }
    // The bottleneck was busy for the whole 2 ms window.
    let b = r.queue("bottleneck").unwrap();
    assert!((b.utilization - 1.0).abs() < 1e-9, "{}", b.utilization);
    assert!(
        (b.throughput_bps - 10e6).abs() < 1e3,
        "{}",
        b.throughput_bps
    );
}

// ------------------------------------------------------------------ the property test

#[derive(Debug, Clone)]
struct Shape {
    seed: u64,
    tcp_flows: u32,
    udp: Option<&'static str>,
    bottleneck_mbps: f64,
    bottleneck_ms: u32,
    limit: u32,
    /// Sender access rates in Mb/s (cycled over the senders); some slower than the
    /// bottleneck.
    access_mbps: Vec<f64>,
    access_ms: Vec<u32>,
    duration_ms: u32,
    /// Warm-up as a fraction of the duration (0 = none).
    warmup_frac: f64,
    variant: &'static str,
    window: u32,
    ecn: bool,
    finite: bool,
    loss: f64,
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        (
            any::<u64>(),
            0u32..10,
            prop::sample::select(vec![None, Some("cbr"), Some("poisson"), Some("onoff")]),
            prop::sample::select(vec![1.5, 10.0]),
            1u32..40,
            prop::sample::select(vec![5u32, 20, 60, 200]),
            prop::collection::vec(prop::sample::select(vec![1.0, 10.0, 100.0]), 1..4),
            prop::collection::vec(1u32..10, 1..4),
        ),
        (
            400u32..2500,
            prop::sample::select(vec![0.0, 0.0, 0.3, 0.7, 0.9, 0.97]),
            prop::sample::select(vec!["reno", "newreno", "sack"]),
            prop::sample::select(vec![20u32, 64]),
            any::<bool>(),
            any::<bool>(),
            prop::sample::select(vec![0.0, 0.0, 0.02]),
        ),
    )
        .prop_map(
            |(
                (
                    seed,
                    tcp_flows,
                    udp,
                    bottleneck_mbps,
                    bottleneck_ms,
                    limit,
                    access_mbps,
                    access_ms,
                ),
                (duration_ms, warmup_frac, variant, window, ecn, finite, loss),
            )| Shape {
                seed,
                tcp_flows: if udp.is_none() {
                    tcp_flows.max(1)
                } else {
                    tcp_flows
                },
                udp,
                bottleneck_mbps,
                bottleneck_ms,
                limit,
                access_mbps,
                access_ms,
                duration_ms,
                warmup_frac,
                variant,
                window,
                ecn,
                finite,
                loss,
            },
        )
}

impl Shape {
    fn senders(&self) -> u32 {
        self.tcp_flows + self.udp.is_some() as u32
    }

    fn access_rate(&self, sender: usize) -> f64 {
        self.access_mbps[sender % self.access_mbps.len()] * 1e6
    }

    fn scenario(&self, aqm: &str, aqm_ecn: bool) -> Scenario {
        let list = |v: Vec<String>| format!("[{}]", v.join(", "));
        let rates = list(
            self.access_mbps
                .iter()
                .map(|r| format!("\"{r}Mbps\""))
                .collect(),
        );
        let delays = list(
            self.access_ms
                .iter()
                .map(|d| format!("\"{d}ms\""))
                .collect(),
        );
        let warm = (self.duration_ms as f64 * self.warmup_frac).round() as u32;
        let ecn = self.ecn && aqm_ecn;
        let aqm_table = if ecn {
            format!("{{ kind = \"{aqm}\", ecn = true }}")
        } else {
            format!("\"{aqm}\"")
        };
        let n = self.senders();
        let mut flows = String::new();
        if self.tcp_flows > 0 {
            let from = list((0..self.tcp_flows).map(|i| format!("\"s{i}\"")).collect());
            let to = list((0..self.tcp_flows).map(|i| format!("\"d{i}\"")).collect());
            let size = if self.finite { "size = \"30KB\"" } else { "" };
            flows += &format!(
                "[[flows]]\nkind = \"tcp\"\nfrom = {from}\nto = {to}\n{size}\n\
                 start = {{ uniform = [\"0s\", \"{}ms\"] }}\n",
                self.duration_ms / 2
            );
        }
        if let Some(kind) = self.udp {
            let i = n - 1;
            let load = match kind {
                "cbr" => "rate = \"4Mbps\"\npacket_size = 500".to_string(),
                "poisson" => "packets_per_second = 800\npacket_size = 1000\nsizes = \"exponential\""
                    .to_string(),
                _ => "rate = \"8Mbps\"\npacket_size = 1000\non_time = \"100ms\"\noff_time = \"100ms\""
                    .to_string(),
            };
            flows +=
                &format!("[[flows]]\nkind = \"{kind}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\n{load}\n");
        }
        let toml = format!(
            r#"
            duration = "{dur}ms"
            warmup = "{warm}ms"
            seed = {seed}
            [topology]
            kind = "dumbbell"
            senders = {n}
            bottleneck = {{ rate = "{b}Mbps", delay = "{bd}ms", loss = {loss}, queue = {{ limit = {limit}, aqm = {aqm_table} }} }}
            access = {{ rate = {rates}, delay = {delays} }}
            receiver_access = {{ rate = "1Gbps", delay = {delays} }}
            [tcp]
            variant = "{variant}"
            window = {window}
            ecn = {ecn}
            {flows}
            "#,
            dur = self.duration_ms,
            seed = self.seed,
            b = self.bottleneck_mbps,
            bd = self.bottleneck_ms,
            loss = self.loss,
            limit = self.limit,
            variant = self.variant,
            window = self.window,
        );
        Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}\n{toml}"))
    }

    /// Checks every bound on one result; returns the first violation.
    fn check(&self, aqm: &str, r: &RunResult) -> Result<(), String> {
        let b = self.bottleneck_mbps * 1e6;
        let link_rate = |name: &str| -> f64 {
            if name.starts_with("bottleneck") {
                b
            } else if name.starts_with("r1->") || name.starts_with('d') {
                1e9
            } else {
                // s<i>->r0 or r0->s<i>
                let i: usize = name
                    .trim_start_matches("r0->")
                    .trim_start_matches('s')
                    .split("->")
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                self.access_rate(i)
            }
        };
        for q in &r.queues {
            let rate = link_rate(&q.name);
            if !(0.0..=1.0).contains(&q.loss_rate) {
                return Err(format!("{aqm}: queue {} loss rate {}", q.name, q.loss_rate));
            }
            if !(0.0..=1.0 + EPS).contains(&q.utilization) {
                return Err(format!(
                    "{aqm}: queue {} utilization {}",
                    q.name, q.utilization
                ));
            }
            if q.throughput_bps > rate * (1.0 + EPS) {
                return Err(format!(
                    "{aqm}: queue {} throughput {} > rate {rate}",
                    q.name, q.throughput_bps
                ));
            }
        }
        let (mut thr, mut tcp_goodput) = (0.0, 0.0);
        for f in &r.flows {
            let i: usize = f.src.trim_start_matches('s').parse().unwrap();
            let cap = self.access_rate(i).min(b);
            let tcp = f.kind == "tcp";
            let goodput_cap = if tcp { cap * PAYLOAD_FRACTION } else { cap };
            if !(0.0..=1.0).contains(&f.loss_rate) {
                return Err(format!("{aqm}: flow {} loss rate {}", f.flow, f.loss_rate));
            }
            if f.throughput_bps > cap * (1.0 + EPS) {
                return Err(format!(
                    "{aqm}: flow {} throughput {} > capacity {cap}",
                    f.flow, f.throughput_bps
                ));
            }
            if f.goodput_bps > goodput_cap * (1.0 + EPS)
                || f.goodput_bps > f.throughput_bps * (1.0 + EPS)
            {
                return Err(format!(
                    "{aqm}: flow {} goodput {} (throughput {}, capacity {goodput_cap})",
                    f.flow, f.goodput_bps, f.throughput_bps
                ));
            }
            thr += f.throughput_bps;
            if tcp {
                tcp_goodput += f.goodput_bps;
            }
        }
        if thr > b * (1.0 + EPS) {
            return Err(format!("{aqm}: total throughput {thr} > bottleneck {b}"));
        }
        if tcp_goodput > b * PAYLOAD_FRACTION * (1.0 + EPS) {
            return Err(format!(
                "{aqm}: total TCP goodput {tcp_goodput} > payload capacity"
            ));
        }
        Ok(())
    }
}

proptest! {
    // Each case runs every algorithm of the registry (15 today) on one random shape: 64
    // cases are 960 runs of at most 2.5 simulated seconds, about a second in all.
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn no_metric_exceeds_its_bound(shape in shape()) {
        for info in REGISTRY {
            let s = shape.scenario(info.name, info.ecn);
            let r = run(&s, shape.seed).map_err(|e| TestCaseError::fail(format!("{}: {e}", info.name)))?;
            prop_assert!(r.conserved, "{}: not conserved", info.name);
            if let Err(m) = shape.check(info.name, &r) {
                return Err(TestCaseError::fail(format!("{m}\n{shape:?}")));
            }
        }
    }
}
