//! TCP Prague end to end (`congestion/prague.rs`): two flows through a 1 ms sojourn step (the
//! L4S native AQM of RFC 9332, `step_marking` with `k_sojourn`), 40 Mb/s, 20 ms. Prague paces,
//! sends ECT(1) and cuts by alpha / 2, so the queue stays near the step and the link full; the
//! flows share it. Bounds chosen from what an L4S sender is for (RFC 9331 section 4.3), not from
//! this run: queue delay at most twice the step, utilization >= 90 %, Jain >= 0.95, no loss.
//! Measured (seed 1): utilization 97.0 %, mean queue 1.5 packets, Jain 1.000, no drops.

mod common;

use aqmlab_core::transport::tcp::congestion::prague::{AiUnit, WindowRounding};
use aqmlab_core::{run, Scenario};
use common::validation;

fn scenario(cc: &str) -> Scenario {
    Scenario::from_toml(&validation::prague_step(cc)).unwrap()
}

#[test]
fn two_prague_flows_share_a_step_marked_link_with_a_short_queue() {
    let r = run(&scenario("prague"), 1).unwrap();
    let q = r.queues.iter().find(|q| q.name == "bottleneck").unwrap();
    let rates: Vec<f64> = r.flows.iter().map(|f| f.throughput_bps).collect();
    let jain = rates.iter().sum::<f64>().powi(2)
        / (rates.len() as f64 * rates.iter().map(|x| x * x).sum::<f64>());
    eprintln!(
        "utilization {:.4}, mean delay {:.3} ms, mean queue {:.2}, marks {}, drops {}, Jain {jain:.3}",
        q.utilization, q.mean_delay_ms, q.mean_queue_packets, q.marks, q.drops
    );
    assert!(q.utilization >= 0.9, "{q:?}");
    assert!(q.mean_delay_ms <= 2.0, "{q:?}");
    assert!(jain >= 0.95, "{rates:?}");
    assert_eq!(q.drops, 0, "{q:?}");
    assert!(q.marks > 0, "the step marked");
}

/// The prague profile takes tcp_prague.c v0.7's increase unit and window rounding; a bad value
/// names its field.
#[test]
fn the_prague_profile_grows_by_mtu_sys_and_rounds_up_and_bad_values_name_the_field() {
    let base = validation::prague_step("prague");
    let with = |tcp: &str| base.replace("[tcp]\n", &format!("[tcp]\n{tcp}\n"));
    let s = Scenario::from_toml(&with("profile = \"prague\"")).unwrap();
    let r = s.resolved().unwrap();
    let p = &r["flows"][0]["tcp"]["prague"];
    assert_eq!(
        (p["ai_unit"].as_str(), p["window_rounding"].as_str()),
        (Some("mtu_sys"), Some("ceil"))
    );
    let d = aqmlab_core::transport::tcp::TcpConfig::default().prague;
    assert_eq!(
        (d.ai_unit, d.window_rounding),
        (AiUnit::Packet, WindowRounding::Floor)
    );
    for (tcp, field) in [
        ("prague = { ai_unit = \"bytes\" }", "tcp.prague.ai_unit"),
        (
            "prague = { window_rounding = \"round\" }",
            "tcp.prague.window_rounding",
        ),
    ] {
        let e = Scenario::from_toml(&with(tcp)).err().unwrap().to_string();
        assert!(e.contains(field) && e.contains("unknown variant"), "{e}");
    }
}
