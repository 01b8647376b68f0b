//! The `linux` TCP profile on the kernel-comparison grid of issue 25: a 10 Mb/s DropTail
//! bottleneck of 100 packets, 20 ms and 100 ms of bottleneck delay, 1, 4, 10 and 50 CUBIC or
//! Reno flows. Prints, per cell, the bottleneck's drop rate, utilization and mean queue and
//! the RTOs per flow, each the mean over the seeds.
//!
//! `cargo run --release -p aqmlab-core --example linux_profile_grid -- [SEEDS] [DURATION_S]
//! [EXTRA_TCP_TOML] [WARMUP_S]`
//!
//! The counters restart at WARMUP_S (10 s by default; 0 counts the start-up, where HyStart
//! and the quick ACKs act).
//! EXTRA_TCP_TOML is appended to the `[tcp]` table (after `profile = "linux"`), e.g.
//! `'cwnd_growth = "per_ack"'` to turn one mechanism back to its RFC default.

use aqmlab_core::testing::{Dumbbell, TCP_TO_RECEIVERS};
use aqmlab_core::{run, Scenario};

fn scenario(
    delay_ms: u32,
    flows: u32,
    cc: &str,
    (duration_s, warmup_s): (u32, u32),
    extra: &str,
) -> String {
    // A 1500-byte MTU with timestamps: 1448 bytes of payload, 52 of headers (linux.toml).
    Dumbbell {
        duration: &format!("{duration_s}s"),
        head: &format!(
            "name = \"linux-grid-{cc}-{delay_ms}ms-{flows}\"\nwarmup = \"{warmup_s}s\""
        ),
        senders: flows,
        bottleneck: &format!(
            r#"rate = "10Mbps", delay = "{delay_ms}ms", queue = {{ limit = 100, aqm = "droptail" }}"#
        ),
        access: r#"rate = "1Gbps", delay = "1ms""#,
        rest: &format!(
            "[tcp]\nprofile = \"linux\"\ncongestion_control = \"{cc}\"\npacket_size = 1448\n\
             header_size = 52\nack_size = 52\n{extra}\n{TCP_TO_RECEIVERS}"
        ),
    }
    .toml()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seeds: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(3);
    let duration_s: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(70);
    let extra = args.get(3).cloned().unwrap_or_default();
    let warmup_s: u32 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(10);
    println!("cc     delay  N   drop%    util    meanq   RTO/flow");
    for cc in ["cubic", "reno"] {
        for delay_ms in [20, 100] {
            for flows in [1, 4, 10, 50] {
                let text = scenario(delay_ms, flows, cc, (duration_s, warmup_s), &extra);
                let s = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
                let (mut drop, mut util, mut q, mut rto) = (0.0, 0.0, 0.0, 0.0);
                for seed in 1..=seeds {
                    let r = run(&s, seed).unwrap_or_else(|e| panic!("{e}"));
                    let b = r.queue("bottleneck").expect("a bottleneck queue");
                    drop += b.loss_rate;
                    util += b.utilization;
                    q += b.mean_queue_packets;
                    let timeouts: u64 = r.flows.iter().map(|f| f.timeouts).sum();
                    rto += timeouts as f64 / r.flows.len() as f64;
                }
                let n = seeds as f64;
                println!(
                    "{cc:6} {delay_ms:4}ms {flows:3} {:7.3} {:7.4} {:7.1} {:8.3}",
                    100.0 * drop / n,
                    util / n,
                    q / n,
                    rto / n
                );
            }
        }
    }
}
