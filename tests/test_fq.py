"""Issue 38: Linux's sch_fq at a router (crates/aqmlab-core/src/aqm/fq.rs), end to end. The
scheduler's credit sequences are tested by hand in the Rust module; here what they add up to."""

from __future__ import annotations

from typing import Any

import aqmlab


def run(aqm: Any, profile: str = "linux") -> Any:
    s = {
        "duration": "30s",
        "warmup": "10s",
        "topology": {
            "kind": "dumbbell",
            "senders": 2,
            "bottleneck": {"rate": "20Mbps", "delay": "5ms", "queue": {"limit": 1000, "aqm": aqm}},
            "access": {"rate": "1Gbps", "delay": ["1ms", "30ms"]},
        },
        "tcp": {"profile": profile},
        "flows": [{"kind": "tcp", "from": "senders", "to": "receivers"}],
    }
    return aqmlab.run(s)


def jain(g: Any) -> float:
    return float(g.sum() ** 2 / (len(g) * (g**2).sum()))


def test_fair_queueing_shares_the_link_whatever_the_rtts() -> None:
    # 14 and 72 ms of RTT: a FIFO gives the short one about 3/4, per-flow round robin halves.
    fifo = run("droptail").flows["goodput_bps"]
    fq = run("fq").flows["goodput_bps"]
    assert jain(fifo) < 0.85 < 0.99 < jain(fq)
    assert 0.95 * 20e6 < fq.sum() <= 20e6


def test_flow_limit_bounds_each_flows_queue() -> None:
    # 100 packets per flow (the default) against 1000: the queue's delay falls accordingly.
    limited = run("fq").queues.set_index("queue").loc["bottleneck"]
    unlimited = run({"kind": "fq", "flow_limit": 1000}).queues.set_index("queue").loc["bottleneck"]
    assert limited["mean_delay_ms"] < unlimited["mean_delay_ms"] / 3
    # two flows of at most 100 packets of 1040 B at 20 Mb/s: at most 83 ms
    assert limited["mean_delay_ms"] < 2 * 100 * 1040 * 8 / 20e6 * 1e3


def test_ce_threshold_holds_dctcps_queue_near_it() -> None:
    q = run({"kind": "fq", "ce_threshold": "1ms"}, "dctcp").queues.set_index("queue").loc["bottleneck"]
    assert q["marks"] > 0
    assert q["mean_delay_ms"] < 2.0
    assert 0.8 < q["utilization"] <= 1.0
    without = run("fq", "dctcp").queues.set_index("queue").loc["bottleneck"]
    assert without["marks"] == 0 and without["mean_delay_ms"] > 20
