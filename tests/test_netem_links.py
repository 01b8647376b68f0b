"""Issue 38, bursty links: a link's delivery through netem's jitter and slots
(crates/aqmlab-core/src/link/netem.rs), seen end to end through a ping and TCP flows. The slot
and jitter sequences themselves are tested against hand-computed release times in the Rust
module's tests."""

from __future__ import annotations

from typing import Any

import aqmlab
import pytest
from aqmlab.errors import ScenarioError

BASE_RTT_MS = 24.16128  # 2 x (1 + 10 + 1) ms and the 84-byte ping's transmissions


def ping_run(netem: dict[str, Any] | None = None, **extra: Any) -> Any:
    bottleneck: dict[str, Any] = {"rate": "10Mbps", "delay": "10ms"}
    if netem is not None:
        bottleneck["netem"] = netem
    s = {
        "duration": "20s",
        "topology": {
            "kind": "dumbbell",
            "senders": 1,
            "bottleneck": bottleneck,
            "access": {"rate": "100Mbps", "delay": "1ms", **extra},
        },
        "flows": [{"kind": "ping", "group": "ping", "from": "s0", "to": "d0"}],
    }
    return aqmlab.run(s).latency_summary.set_index("group").loc["ping"]


def test_without_netem_the_ping_sees_the_base_rtt() -> None:
    row = ping_run()
    assert row["rtt_p50_ms"] == pytest.approx(BASE_RTT_MS, abs=1e-6)


def test_a_lone_packet_waits_one_whole_slot() -> None:
    # netem_dequeue: a head due after the open slot draws the next one from now, so a ping
    # request 200 ms after the last waits exactly one slot: 4 ms more on every round trip.
    row = ping_run({"slot": {"min_delay": "4ms"}})
    assert row["samples"] == 100
    assert row["rtt_p50_ms"] == pytest.approx(BASE_RTT_MS + 4, abs=1e-6)
    assert row["rtt_p99_ms"] == pytest.approx(BASE_RTT_MS + 4, abs=1e-6)


def test_random_slots_add_between_min_and_max() -> None:
    row = ping_run({"slot": {"min_delay": "2ms", "max_delay": "6ms"}})
    # 100 uniform draws on [2, 6] ms: mean 4, its standard error 0.12 ms
    assert row["rtt_mean_ms"] == pytest.approx(BASE_RTT_MS + 4, abs=0.5)
    assert BASE_RTT_MS + 2 <= row["rtt_p50_ms"] <= BASE_RTT_MS + 6
    assert row["rtt_p99_ms"] <= BASE_RTT_MS + 6


def test_jitter_on_both_directions_stays_within_its_bounds() -> None:
    # The ping crosses the bottleneck's forward direction and, back, the sender's access
    # link's reverse one: two uniform draws of +-3 ms and +-1 ms.
    row = ping_run({"jitter": "3ms"}, reverse_netem={"jitter": "1ms"})
    assert BASE_RTT_MS - 4 <= row["rtt_p50_ms"] <= BASE_RTT_MS + 4
    assert row["rtt_p99_ms"] <= BASE_RTT_MS + 4
    assert row["rtt_mean_ms"] == pytest.approx(BASE_RTT_MS, abs=0.6)


def tcp_run(netem: dict[str, Any], seed: int = 1) -> Any:
    s = {
        "duration": "20s",
        "warmup": "5s",
        "topology": {
            "kind": "dumbbell",
            "senders": 2,
            "bottleneck": {
                "rate": "20Mbps",
                "delay": "10ms",
                "queue": {"limit": 200, "aqm": "fq_codel"},
                "netem": netem,
            },
            "access": {"rate": "1Gbps", "delay": "1ms"},
        },
        "tcp": {"profile": "linux"},
        "flows": [{"kind": "tcp", "from": "senders", "to": "receivers"}],
    }
    return aqmlab.run(s, seed=seed)


@pytest.mark.parametrize(
    "netem",
    [
        {"jitter": "5ms"},
        {"jitter": "5ms", "reorder": False},
        {"slot": {"min_delay": "800us", "max_delay": "5ms", "packets": 16}},
        {"jitter": "1ms", "jitter_distribution": "normal", "slot": {"min_delay": "1ms", "bytes": 20000}},
    ],
)
def test_tcp_through_a_bursty_link_is_deterministic_and_within_capacity(netem: dict[str, Any]) -> None:
    a, b = tcp_run(netem), tcp_run(netem)
    assert a.flows.equals(b.flows) and a.queues.equals(b.queues)
    goodput = a.flows["goodput_bps"].sum()
    assert 0 < goodput <= 20e6
    assert not tcp_run(netem, seed=2).flows.equals(a.flows), "the stage draws from the run's seed"


@pytest.mark.parametrize(
    ("netem", "path", "words"),
    [
        ({"slot": {"min_delay": "5ms", "max_delay": "1ms"}}, "topology.bottleneck.netem.slot.max_delay", "at least"),
        ({"slot": {"min_delay": "0s"}}, "topology.bottleneck.netem.slot.min_delay", "zero delay"),
        ({"jitter": "3s"}, "topology.bottleneck.netem.jitter", "at most"),
        ({"jiter": "3ms"}, "topology.bottleneck.netem", "jiter"),
        ({"jitter_distribution": "pareto"}, "topology.bottleneck.netem.jitter_distribution", "pareto"),
    ],
)
def test_bad_netem_names_the_field(netem: dict[str, Any], path: str, words: str) -> None:
    s = {
        "duration": "1s",
        "topology": {
            "kind": "dumbbell",
            "senders": 1,
            "bottleneck": {"rate": "10Mbps", "netem": netem},
            "access": {"rate": "100Mbps"},
        },
        "flows": [{"kind": "tcp", "from": "senders", "to": "receivers"}],
    }
    with pytest.raises(ScenarioError) as e:
        aqmlab.run(s)
    assert path in str(e.value) and words in str(e.value)
