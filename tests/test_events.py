"""Issue 27, item 2: ``[[events]]`` and mahimahi traces from Python: a rate step halves what
the bottleneck delivers with packets conserved, an outage delivers nothing, a trace named by a
path relative to the scenario file runs from any directory, and errors name the field."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import aqmlab
import pytest
from aqmlab.scenario import default_scenario_path, load_scenario

ROOT = Path(__file__).resolve().parent.parent


def _default_dumbbell(duration: str, events: list[dict[str, Any]]) -> dict[str, Any]:
    s = copy.deepcopy(load_scenario(default_scenario_path()))
    s["duration"] = duration
    s["sample_interval"] = "1s"
    s["events"] = events
    return s


def _received(r: aqmlab.Result, t: float) -> float:
    ts = r.timeseries
    row = ts[(ts.source == "flows") & (ts.variable == "packets_received") & ((ts.time_s - t).abs() < 1e-9)]
    assert len(row) == 1, f"no sample at {t} s"
    return float(row.value.iloc[0])


def _assert_conserved(r: aqmlab.Result) -> None:
    assert r.conserved
    q = r.queues
    assert ((q.arrivals + q.backlog_at_start) == (q.departures + q.drops + q.backlog_at_end)).all()


def test_a_rate_step_from_10_to_5_mbps_halves_the_delivered_rate() -> None:
    r = aqmlab.run(_default_dumbbell("100s", [{"at": "50s", "link": "bottleneck", "rate": "5Mbps"}]))
    before = (_received(r, 50) - _received(r, 20)) / 30
    after = (_received(r, 100) - _received(r, 55)) / 45
    assert after / before == pytest.approx(0.5, abs=0.02)
    _assert_conserved(r)


def test_a_link_down_delivers_nothing_and_counts_its_drops() -> None:
    r = aqmlab.run(
        _default_dumbbell(
            "40s",
            [
                {"at": "20s", "link": "bottleneck", "state": "down"},
                {"at": "25s", "link": "bottleneck", "state": "up"},
            ],
        )
    )
    assert _received(r, 25) == _received(r, 21)
    assert _received(r, 40) - _received(r, 30) > 0.9 * (_received(r, 20) - _received(r, 10))
    assert r.queue("bottleneck")["down_drops"] > 0
    _assert_conserved(r)


TRACE_SCENARIO = """
duration = "10s"
warmup = "1s"
[topology]
kind = "dumbbell"
senders = 1
bottleneck = { rate = "100Mbps", delay = "5ms", queue = { limit = 100 } }
access = { rate = "1Gbps" }
[[flows]]
kind = "cbr"
from = "s0"
to = "d0"
rate = "30Mbps"
packet_size = "1000B"
[[events]]
at = "0s"
link = "bottleneck"
rate = { trace = "traces/two_per_ms.mahimahi" }
"""


def test_a_trace_path_is_relative_to_the_scenario_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "two_per_ms.mahimahi").write_text("1\n1\n")
    (tmp_path / "s.toml").write_text(TRACE_SCENARIO)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    r = aqmlab.run(tmp_path / "s.toml")
    # Two 1500-byte opportunities per millisecond: 24 Mb/s.
    assert r.queue("bottleneck")["throughput_bps"] == pytest.approx(24e6, rel=1e-3)
    _assert_conserved(r)


def test_a_malformed_trace_names_the_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "two_per_ms.mahimahi").write_text("1\n2\nthree\n")
    (tmp_path / "s.toml").write_text(TRACE_SCENARIO)
    with pytest.raises(aqmlab.ScenarioError, match=r"two_per_ms\.mahimahi:3: expected a whole number") as info:
        aqmlab.run(tmp_path / "s.toml")
    assert info.value.path == "events[0].rate.trace"


@pytest.mark.parametrize(
    ("event", "path", "words"),
    [
        ({"at": "100s", "link": "bottleneck", "rate": "5Mbps"}, "events[0].at", "after the end of the run"),
        ({"at": "1s", "link": "botleneck", "rate": "5Mbps"}, "events[0].link", "did you mean `bottleneck`"),
        ({"at": "1s", "start_flows": "flows[9]"}, "events[0].start_flows", "no flows named"),
        ({"at": "1s", "queue": "bottleneck", "set": {"max_p": 0.2}}, "events[0].queue", "cannot change"),
    ],
)
def test_bad_events_name_the_field(event: dict[str, Any], path: str, words: str) -> None:
    s = _default_dumbbell("60s", [event])
    with pytest.raises(aqmlab.ScenarioError, match=words) as info:
        aqmlab.run(s)
    assert info.value.path == path


def test_an_aqm_parameter_error_names_the_event() -> None:
    s = _default_dumbbell("60s", [{"at": "1s", "queue": "bottleneck", "set": {"max_p": 2.0}}])
    s["topology"]["bottleneck"]["queue"]["aqm"] = "red"
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.run(s)
    assert info.value.path == "events[0].set.max_p"


@pytest.mark.parametrize("name", ["rate_step.toml", "cellular_trace.toml"])
def test_the_example_scenarios_validate(name: str) -> None:
    aqmlab.validate_scenario(ROOT / "scenarios" / name)
