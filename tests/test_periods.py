"""Issue 35, class F: every period a run repeats at (an AQM's timer, a ping's interval, the
sampling interval) has a floor of 1 us, at load and through an event's ``set``; a period of
1 ns used to make a run of 3 simulated seconds take minutes."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import aqmlab
import pytest
from aqmlab.cli import app
from typer.testing import CliRunner


def dumbbell(aqm: Any, **top: Any) -> dict[str, Any]:
    return {
        "duration": "3s",
        **top,
        "topology": {
            "kind": "dumbbell",
            "senders": 2,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"limit": 100, "aqm": aqm}},
            "access": {"rate": "100Mbps", "delay": "1ms"},
        },
        "flows": [{"kind": "tcp", "from": "senders", "to": "receivers"}],
    }


# Every built-in algorithm with a timer, and the parameter that sets its period.
TIMERS = {"pie": "t_update", "pi2": "t_update", "dualpi2": "t_update", "fq_pie": "t_update", "rem": "interval"}
# Those whose parameters an event may change (docs/events.md).
CHANGEABLE = {"pie", "pi2"}


@pytest.mark.filterwarnings("ignore::aqmlab.ScenarioWarning")
@pytest.mark.parametrize("aqm", sorted(TIMERS))
def test_an_aqm_timer_below_1us_is_refused_at_load_and_in_set(aqm: str) -> None:
    name = TIMERS[aqm]
    started = time.monotonic()
    with pytest.raises(aqmlab.ScenarioError, match="must be at least 1us") as e:
        aqmlab.run(dumbbell({"kind": aqm, name: "1ns"}))
    assert e.value.path == f"topology.bottleneck.queue.aqm.{name}"
    if aqm in CHANGEABLE:
        s = dumbbell(aqm, events=[{"at": "1s", "queue": "bottleneck", "set": {name: "999ns"}}])
        with pytest.raises(aqmlab.ScenarioError, match="got 999ns") as e:
            aqmlab.run(s)
        assert e.value.path == f"events[0].set.{name}"
    assert time.monotonic() - started < 10, "refused, not run"


def test_pi_sampling_frequency_is_a_period_too() -> None:
    with pytest.raises(aqmlab.ScenarioError, match="sets the timer's period: a period must be at least 1us") as e:
        aqmlab.run(dumbbell({"kind": "pi", "w": 1e9}))
    assert e.value.path == "topology.bottleneck.queue.aqm.w"


def test_ping_interval_and_sample_interval_have_the_floor(tmp_path: Path) -> None:
    s = dumbbell("red")
    s["flows"].append({"kind": "ping", "from": "s0", "to": "d0", "interval": "1ns"})
    p = tmp_path / "s.json"
    p.write_text(json.dumps(s))
    res = CliRunner().invoke(app, ["run", str(p)])
    assert res.exit_code == 2
    assert (
        res.stderr.strip() == "error: flows[1].interval: a period must be at least 1us (one event per period), got 1ns"
    )
    with pytest.raises(aqmlab.ScenarioError, match="a period must be at least 1us") as e:
        aqmlab.run(dumbbell("red", sample_interval="500ns"))
    assert e.value.path == "sample_interval"
    s["flows"][1]["interval"] = "1us"
    s["duration"] = "10ms"
    assert aqmlab.run(s).latency_summary is not None
