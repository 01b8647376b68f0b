"""Issue 38, bursty links: the DOCSIS-like upstream (crates/aqmlab-core/src/link/docsis.rs, as
CableLabs' ns-2 DocsisLink runs requests and grants) seen end to end: a ping's added delay
against the request-grant closed form, TCP held to the grants' rate, and the scenario's
checks. The request-grant sequences themselves are tested against hand-computed times in
the Rust module's tests."""

from __future__ import annotations

from typing import Any

import aqmlab
import pytest
from aqmlab.errors import ScenarioError


def ping_run(docsis: dict[str, Any] | None) -> Any:
    access: dict[str, Any] = {"rate": "10Mbps", "delay": "1ms"}
    if docsis is not None:
        access["docsis"] = docsis
    s = {
        "duration": "40s",
        "topology": {
            "kind": "dumbbell",
            "senders": 1,
            "bottleneck": {"rate": "100Mbps", "delay": "10ms"},
            "access": access,
            "receiver_access": {"rate": "10Mbps", "delay": "1ms"},
        },
        # 1 ms into a MAP interval, every 200 ms (a whole number of 2 ms intervals).
        "flows": [{"kind": "ping", "group": "ping", "from": "s0", "to": "d0", "start": "1ms"}],
    }
    return aqmlab.run(s).latency_summary.set_index("group").loc["ping"]


def test_a_lone_ping_waits_for_its_request_and_grant() -> None:
    # The request goes at the next MAP boundary (1 ms later), is granted in the MAP message
    # after next and used in the interval after it (2 x 2 ms), at a uniform offset within
    # that interval less the 84-byte ping's 67.2 us at 10 Mb/s: 5 ms + U[0, 1.9328 ms),
    # 5.966 ms on average (200 pings: standard error 0.04 ms).
    base = ping_run(None)
    row = ping_run({"max_grant": 2500})
    assert row["samples"] == 200
    added = row["rtt_mean_ms"] - base["rtt_mean_ms"]
    assert added == pytest.approx(5.966, abs=0.12)
    assert base["rtt_p50_ms"] + 5 <= row["rtt_p50_ms"] <= base["rtt_p50_ms"] + 5 + 1.9328
    assert row["rtt_p99_ms"] <= base["rtt_p50_ms"] + 5 + 1.9328


def tcp_run(aqm: str) -> Any:
    s = {
        "duration": "30s",
        "warmup": "5s",
        "topology": {
            "kind": "dumbbell",
            "senders": 1,
            "bottleneck": {"rate": "100Mbps", "delay": "10ms"},
            "access": {
                "rate": "50Mbps",
                "delay": "1ms",
                "queue": {"limit": 1000, "aqm": aqm},
                "docsis": {"max_grant": 6250},
            },
            "receiver_access": {"rate": "1Gbps", "delay": "1ms"},
        },
        "tcp": {"profile": "linux"},
        "flows": [{"kind": "tcp", "from": "s0", "to": "d0"}],
    }
    return aqmlab.run(s)


@pytest.mark.parametrize("aqm", ["pie", "droptail"])
def test_tcp_is_held_to_the_grants_rate(aqm: str) -> None:
    # 6250 bytes per 2 ms MAP interval: 25 Mb/s, half the 50 Mb/s channel.
    r = tcp_run(aqm)
    flow = r.flows.iloc[0]
    assert 0.95 * 25e6 <= flow["throughput_bps"] <= 25e6
    upstream = r.queues.set_index("name").loc["s0->r0"]
    assert 0.95 * 0.5 <= upstream["utilization"] <= 0.5
    if aqm == "pie":
        # The queue waiting for grants is the modem's: PIE holds it (DocsisLink's purpose).
        assert (
            upstream["mean_queue_packets"]
            < 100
            < tcp_run("droptail").queues.set_index("name").loc["s0->r0"]["mean_queue_packets"]
        )


def check(access: dict[str, Any], events: list[dict[str, Any]] | None = None) -> ScenarioError:
    s: dict[str, Any] = {
        "duration": "1s",
        "topology": {
            "kind": "dumbbell",
            "senders": 1,
            "bottleneck": {"rate": "100Mbps"},
            "access": {"rate": "10Mbps", **access},
        },
        "flows": [{"kind": "tcp", "from": "s0", "to": "d0"}],
    }
    if events:
        s["events"] = events
    with pytest.raises(ScenarioError) as e:
        aqmlab.run(s)
    return e.value


@pytest.mark.parametrize(
    ("docsis", "field", "words"),
    [
        ({"max_grant": 2501}, "max_grant", "fit one MAP interval"),
        ({"max_grant": 100, "map_interval": "500us"}, "map_interval", "650 us"),
        ({"max_grant": 100, "map_advance": "1ms"}, "map_advance", "at least map_interval"),
        ({"max_grant": 100, "max_grant_variation": 150}, "max_grant_variation", "percentage"),
        ({}, "", "max_grant"),
    ],
)
def test_bad_docsis_parameters_name_the_field(docsis: dict[str, Any], field: str, words: str) -> None:
    e = check({"docsis": docsis})
    assert str(e).startswith(f"topology.access.docsis{'.' + field if field else ''}")
    assert words in str(e)


def test_docsis_with_netem_on_one_direction_is_refused() -> None:
    e = check({"docsis": {"max_grant": 100}, "netem": {"jitter": "1ms"}})
    assert str(e).startswith("topology.access.docsis") and "netem" in str(e)


def test_events_may_not_change_a_docsis_upstreams_rate_or_state() -> None:
    access = {"docsis": {"max_grant": 100}}
    e = check(access, [{"at": "0.5s", "link": "s0->r0", "rate": "5Mbps"}])
    assert str(e).startswith("events[0].rate") and "DOCSIS" in str(e)
    e = check(access, [{"at": "0.5s", "link": "s0->r0", "state": "down"}])
    assert str(e).startswith("events[0].state") and "DOCSIS" in str(e)
