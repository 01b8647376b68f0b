"""Issue 38, bursty links: the Wi-Fi-like link (crates/aqmlab-core/src/link/wifi.rs, its
station scheduler airtime.rs, its per-station queues aqm/per_destination.rs) seen end to end:
a ping's exact TXOP, TCP through the performance anomaly with and without airtime fairness
against the saturated closed forms, and the scenario's checks. The TXOPs, aggregates and
closed forms themselves are tested in the Rust module's tests."""

from __future__ import annotations

from typing import Any

import aqmlab
import pytest
from aqmlab.errors import ScenarioError

BASE_RTT_MS = 24.016128  # 2 x (1 + 10 + 1) ms and the 84-byte ping's transmissions


def ping_run(wifi: dict[str, Any] | None) -> Any:
    bottleneck: dict[str, Any] = {"rate": "100Mbps", "delay": "10ms"}
    if wifi is not None:
        bottleneck["wifi"] = wifi
    s = {
        "duration": "20s",
        "topology": {
            "kind": "dumbbell",
            "senders": 1,
            "bottleneck": bottleneck,
            "access": {"rate": "1Gbps", "delay": "1ms"},
        },
        "flows": [{"kind": "ping", "group": "ping", "from": "s0", "to": "d0"}],
    }
    return aqmlab.run(s).latency_summary.set_index("group").loc["ping"]


def test_a_lone_ping_pays_one_whole_txop() -> None:
    # Without backoff (cw_min = 0) the 84-byte request's TXOP is AIFS 43 us + preamble 36 +
    # its 128-byte subframe (84 + 42, padded) at 100 Mb/s 10.24 + SIFS 16 + BlockAck 32 =
    # 137.24 us, in place of the plain link's 6.72 us: 130.52 us more on every round trip.
    assert ping_run(None)["rtt_p50_ms"] == pytest.approx(BASE_RTT_MS, abs=1e-6)
    row = ping_run({"cw_min": 0})
    assert row["rtt_p50_ms"] == pytest.approx(BASE_RTT_MS + 0.13052, abs=1e-6)
    assert row["rtt_p99_ms"] == pytest.approx(BASE_RTT_MS + 0.13052, abs=1e-6)


def test_the_backoff_adds_between_zero_and_fifteen_slots() -> None:
    # cw_min = 15: 0..15 slots of 9 us, uniform: 67.5 us on average, 135 at most.
    row = ping_run({})
    assert BASE_RTT_MS + 0.13052 <= row["rtt_p50_ms"] <= BASE_RTT_MS + 0.13052 + 0.135
    assert row["rtt_mean_ms"] == pytest.approx(BASE_RTT_MS + 0.13052 + 0.0675, abs=0.015)


def anomaly_run(fair: bool, seed: int = 1) -> Any:
    s = {
        "duration": "30s",
        "warmup": "5s",
        "topology": {
            "kind": "dumbbell",
            "senders": 2,
            "bottleneck": {
                "rate": "100Mbps",
                "delay": "10ms",
                "queue": {"limit": 1000, "aqm": "fq_codel"},
                "wifi": {"station_rates": {"d1": "25Mbps"}, "airtime_fairness": fair, "max_packets": 8},
            },
            "access": {"rate": "1Gbps", "delay": "1ms"},
        },
        "tcp": {"profile": "linux"},
        "flows": [
            {"kind": "tcp", "from": "s0", "to": "d0", "group": "fast"},
            {"kind": "tcp", "from": "s1", "to": "d1", "group": "slow"},
        ],
    }
    return aqmlab.run(s, seed=seed)


def goodputs_mbps(r: Any) -> tuple[float, float]:
    g = r.flows.set_index("group")["goodput_bps"] / 1e6
    return float(g["fast"]), float(g["slow"])


def test_without_airtime_fairness_the_slow_station_drags_the_fast_one_to_its_throughput() -> None:
    # Saturated, turn by turn with 8-packet aggregates: 8 x 1500 bytes each per cycle of
    # 2 x 194.5 us of overhead + 988.16 (d0 at 100 Mb/s) + 3952.64 (d1 at 25 Mb/s) =
    # 5329.8 us: 18.012 Mb/s each (link/wifi/tests.rs). TCP through FQ-CoDel gets close.
    fast, slow = goodputs_mbps(anomaly_run(fair=False))
    assert 0.85 <= fast / slow <= 1.15
    assert 0.85 * 18.012 <= slow <= fast <= 18.012


def test_airtime_fairness_gives_each_station_equal_airtime() -> None:
    # Equal airtime: 42.714 and 10.968 Mb/s saturated (link/wifi/tests.rs), a ratio of
    # 3.89, the PHY rates' 4 less the overheads' share.
    fast, slow = goodputs_mbps(anomaly_run(fair=True))
    assert 3.4 <= fast / slow <= 4.0
    assert 0.85 * 42.714 <= fast <= 42.714
    assert 0.85 * 10.968 <= slow <= 10.968


def test_a_wifi_run_is_deterministic() -> None:
    a, b = anomaly_run(True, seed=3), anomaly_run(True, seed=3)
    assert a.flows.equals(b.flows) and a.queues.equals(b.queues)
    c = anomaly_run(True, seed=4)
    assert not a.flows.equals(c.flows)


def check(topology: dict[str, Any], events: list[dict[str, Any]] | None = None) -> ScenarioError:
    s: dict[str, Any] = {
        "duration": "1s",
        "topology": {"kind": "dumbbell", "senders": 1, "access": {"rate": "1Gbps"}, **topology},
        "flows": [{"kind": "tcp", "from": "s0", "to": "d0"}],
    }
    if events:
        s["events"] = events
    with pytest.raises(ScenarioError) as e:
        aqmlab.run(s)
    return e.value


@pytest.mark.parametrize(
    ("wifi", "field", "words"),
    [
        ({"cw_min": 16}, "cw_min", "2^n - 1"),
        ({"max_packets": 0}, "max_packets", "block-ack window"),
        ({"aifsn": 0}, "aifsn", "1 to 15"),
        ({"max_airtime": "0ms"}, "max_airtime", "above 0"),
        ({"station_rates": {"d0": "200Mbps"}}, "station_rates.d0", "at most the link's rate"),
        ({"station_rates": {"nowhere": "10Mbps"}}, "station_rates.nowhere", "no node is named"),
        ({"airtime_fair": True}, "", "airtime_fair"),
    ],
)
def test_bad_wifi_parameters_name_the_field(wifi: dict[str, Any], field: str, words: str) -> None:
    e = check({"bottleneck": {"rate": "100Mbps", "wifi": wifi}})
    assert str(e).startswith(f"topology.bottleneck.wifi{'.' + field if field else ''}")
    assert words in str(e)


def test_wifi_and_netem_on_one_direction_are_refused() -> None:
    e = check({"bottleneck": {"rate": "100Mbps", "wifi": {}, "netem": {"jitter": "1ms"}}})
    assert str(e).startswith("topology.bottleneck.wifi")
    assert "netem" in str(e)


def test_events_may_not_change_a_wifi_links_rate_or_aqm() -> None:
    bn = {"bottleneck": {"rate": "100Mbps", "wifi": {}, "queue": {"aqm": "red"}}}
    e = check(bn, [{"at": "0.5s", "link": "bottleneck", "rate": "50Mbps"}])
    assert str(e).startswith("events[0].rate") and "Wi-Fi" in str(e)
    e = check(bn, [{"at": "0.5s", "queue": "bottleneck", "set": {"max_p": 0.2}}])
    assert str(e).startswith("events[0].queue") and "Wi-Fi" in str(e)
