//! State sized by use (issue 36, item 3): a TCP flow's per-packet state (the SACK scoreboard's
//! bitsets and send order, the retransmission counts, the delivery-rate records, the sink's
//! reassembly buffer) grows with what the flow has outstanding, never with the configured
//! `tcp.window`. The issue measured a run whose cost rose x52 from window 4,096 to 262,144
//! with the same events; this test is the check that such a cost cannot come back unnoticed.
//!
//! Each profile runs the same 20-flow dumbbell at window 2^12 and 2^20. No flow's cwnd nears
//! 4,096 there (the bottleneck holds 150 packets), so the window never binds: the two runs
//! must give the same results, and the heap they use at their peak, counted by this binary's
//! allocator, must be the same within 1 % (plus a page for what the configuration itself
//! holds). A structure allocated for the window, even zeroed memory the operating system
//! backs only where touched (which peak RSS does not see), counts here in full: a scoreboard
//! of one bit per packet of a 2^20 window is 128 KiB per flow, 2.6 MB for the 20 flows, far
//! beyond the bound. The memory estimate (`scenario/memory.rs`) still counts the worst case
//! by design, so that it refuses what cannot fit; `memory_limits.rs` checks that side.
//!
//! One `#[test]` only: the allocator's counters are global to the process, and tests in one
//! binary run on several threads.

use aqmlab_core::testing::{Dumbbell, TCP_TO_RECEIVERS};
use aqmlab_core::{run, Scenario};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes live and their peak since the last reset.
struct CountingAllocator;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size >= layout.size() {
                let grown = new_size - layout.size();
                let live = LIVE.fetch_add(grown, Ordering::Relaxed) + grown;
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// 20 flows of `tcp` (a TOML table body) through a 10 Mb/s, 20 ms bottleneck under `aqm`
/// holding 150 packets, for 4 s: losses and recoveries fill the scoreboards and reassembly
/// buffers.
fn dumbbell(tcp: &str, aqm: &str, window: u32) -> Scenario {
    Dumbbell {
        duration: "4s",
        head: r#"warmup = "1s""#,
        senders: 20,
        bottleneck: &format!(
            r#"rate = "10Mbps", delay = "20ms", queue = {{ limit = 150, aqm = {aqm} }}"#
        ),
        access: r#"rate = "1Gbps", delay = "1ms""#,
        rest: &format!(
            "[tcp]\n{tcp}\nwindow = {window}\n{TCP_TO_RECEIVERS}start = {{ uniform = [\"0s\", \"0.5s\"] }}\n"
        ),
    }
    .scenario()
}

/// The run's flow and queue rows as JSON, its events, the peak heap bytes the run itself
/// added, and its retransmissions.
fn run_counted(s: &Scenario) -> (Vec<String>, u64, usize, u64) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let r = run(s, 7).unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let rows = r
        .flows
        .iter()
        .map(|f| serde_json::to_string(f).unwrap())
        .chain(r.queues.iter().map(|q| serde_json::to_string(q).unwrap()))
        .collect();
    let retransmissions = r.flows.iter().map(|f| f.retransmissions).sum();
    (rows, r.events, peak, retransmissions)
}

#[test]
fn a_flows_state_does_not_depend_on_its_configured_window() {
    let cases = [
        ("linux", r#"profile = "linux""#, r#""red""#),
        ("ns3", r#"profile = "ns3""#, r#""droptail""#),
        ("bbr", r#"profile = "bbr""#, r#""droptail""#),
        // Under a FIFO, not their marking AQMs: marks alone would leave nothing to repair.
        ("dctcp", r#"profile = "dctcp""#, r#""droptail""#),
        ("prague", r#"profile = "prague""#, r#""droptail""#),
        ("ns-2 sack", r#"variant = "sack""#, r#""red""#),
    ];
    for (name, tcp, aqm) in cases {
        let (small_rows, small_events, small_peak, repairs) =
            run_counted(&dumbbell(tcp, aqm, 1 << 12));
        let (large_rows, large_events, large_peak, _) = run_counted(&dumbbell(tcp, aqm, 1 << 20));
        // Losses were repaired: the scoreboards held SACKed and lost packets.
        assert!(repairs > 20, "{name}: only {repairs} retransmissions");
        // The window never binds, so the runs are the same run.
        assert_eq!(small_events, large_events, "{name}: events");
        assert_eq!(small_rows, large_rows, "{name}: flow and queue rows");
        let bound = small_peak + small_peak / 100 + 4096;
        eprintln!("{name}: {small_events} events, {repairs} retransmissions, peak heap {small_peak} / {large_peak} bytes");
        assert!(
            large_peak <= bound,
            "{name}: peak heap {large_peak} bytes at window 2^20 against {small_peak} at 2^12 \
             (bound {bound}): some state is sized by the configured window"
        );
    }
}
