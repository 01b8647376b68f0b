"""AQMs written in Python, run by the engine."""

from __future__ import annotations

import aqmlab
import pandas as pd
import pytest
from _aqmlab_scenarios import scenario
from aqmlab.custom_aqm import DropTail, SimpleRed


def with_aqm(aqm: object, **edits: object) -> dict:
    return scenario(**{"topology.bottleneck.queue.aqm": aqm}, **edits)


def test_python_droptail_equals_rust_droptail() -> None:
    rust = aqmlab.run(with_aqm("droptail"), seed=11)
    py = aqmlab.run(with_aqm("py_droptail"), seed=11, custom_aqms={"py_droptail": DropTail})
    assert rust.queue()["forced_drops"] > 0
    pd.testing.assert_frame_equal(rust.queues, py.queues)
    pd.testing.assert_frame_equal(rust.flows, py.flows)
    pd.testing.assert_frame_equal(rust.timeseries, py.timeseries)


def test_params_are_keyword_arguments_and_state_is_sampled() -> None:
    seen: dict[str, object] = {}

    class Red(SimpleRed):
        def __init__(self, **kw: object) -> None:
            seen.update(kw)
            super().__init__(**kw)  # type: ignore[arg-type]

    r = aqmlab.run(with_aqm({"kind": "myred", "min_th": 3, "max_th": 9, "max_p": 0.2}), custom_aqms={"myred": Red})
    assert seen == {"min_th": 3, "max_th": 9, "max_p": 0.2}
    assert r.queue()["early_drops"] > 0
    ts = r.timeseries
    assert {"avg", "p_a"} <= set(ts.loc[ts["source"] == "bottleneck", "variable"])


def test_python_aqm_is_deterministic_with_its_rng() -> None:
    runs = [aqmlab.run(with_aqm("pyred"), seed=s, custom_aqms={"pyred": SimpleRed}) for s in (4, 4, 5)]
    pd.testing.assert_frame_equal(runs[0].queues, runs[1].queues)
    assert not runs[0].queues.equals(runs[2].queues)


def test_register_aqm() -> None:
    aqmlab.register_aqm("registered_droptail", DropTail)
    try:
        r = aqmlab.run(with_aqm("registered_droptail"), seed=2)
        assert r.queue()["arrivals"] > 0
        df = aqmlab.aqms()
        assert "registered_droptail" in set(df["name"])
    finally:
        aqmlab.unregister_aqm("registered_droptail")
    with pytest.raises(aqmlab.ScenarioError, match="unknown AQM 'registered_droptail'"):
        aqmlab.run(with_aqm("registered_droptail"))
    with pytest.raises(ValueError, match="built-in"):
        aqmlab.register_aqm("red", DropTail)
    with pytest.raises(TypeError, match="on_arrival"):
        aqmlab.register_aqm("x", object)


def test_exception_in_python_aqm_surfaces() -> None:
    class Broken:
        def __init__(self) -> None:
            self.calls = 0

        def on_arrival(self, view: object, packet: object) -> str:
            self.calls += 1
            if self.calls == 50:
                raise ZeroDivisionError("broken AQM")
            return "enqueue"

    with pytest.raises(ZeroDivisionError, match="broken AQM") as info:
        aqmlab.run(with_aqm("broken"), custom_aqms={"broken": Broken})
    notes = getattr(info.value, "__notes__", [])
    if notes:  # Python >= 3.11
        assert "broken" in notes[0] and "on_arrival" in notes[0]


def test_bad_verdict_surfaces() -> None:
    class Bad:
        def on_arrival(self, view: object, packet: object) -> str:
            return "maybe"

    with pytest.raises(ValueError, match="on_arrival returned 'maybe'|on_arrival returned \"maybe\""):
        aqmlab.run(with_aqm("bad"), custom_aqms={"bad": Bad})


def test_constructor_error_is_a_scenario_error_naming_the_field() -> None:
    with pytest.raises(aqmlab.ScenarioError, match="min_th") as info:
        aqmlab.run(with_aqm({"kind": "pyred", "min_th": 9, "max_th": 3}), custom_aqms={"pyred": SimpleRed})
    assert info.value.path == "topology.bottleneck.queue.aqm"
    with pytest.raises(aqmlab.ScenarioError, match="unexpected keyword"):
        aqmlab.run(with_aqm({"kind": "pyred", "colour": 1}), custom_aqms={"pyred": SimpleRed})


def test_view_packet_timer_departure_idle() -> None:
    calls: dict[str, int] = {"arrival": 0, "departure": 0, "idle": 0, "timer": 0}
    checks: list[str] = []

    class Spy:
        timer_interval = 0.1

        def on_arrival(self, view: aqmlab._core.QueueView, packet: aqmlab._core.PacketView) -> str:
            calls["arrival"] += 1
            if calls["arrival"] == 1:
                assert view.limit == 20 and view.limit_unit == "packets"
                assert view.link_rate_bps == 1_000_000
                assert view.now >= 0 and view.len_packets >= 0 and view.len_bytes >= 0
                assert packet.kind == "udp" and packet.size == 1000 and packet.flow in (0, 1)
                assert packet.ect is False and packet.ce is False
                assert 0 <= self.rng.uniform() < 1
                checks.append("ok")
            return "enqueue"

        def on_departure(self, view: object, packet: object) -> str:
            calls["departure"] += 1
            return "send"

        def on_link_idle(self, now: float) -> None:
            calls["idle"] += 1

        def on_timer(self, view: object) -> None:
            calls["timer"] += 1

    aqmlab.run(with_aqm("spy"), custom_aqms={"spy": Spy})
    assert checks == ["ok"]
    assert calls["arrival"] > 0 and calls["departure"] > 0 and calls["idle"] > 0
    assert 150 <= calls["timer"] <= 201  # 20 s at 0.1 s


def test_departure_drop_counts_as_early_drop() -> None:
    class DropEveryTenth:
        def __init__(self) -> None:
            self.n = 0

        def on_arrival(self, view: object, packet: object) -> str:
            return "enqueue"

        def on_departure(self, view: object, packet: object) -> str:
            self.n += 1
            return "drop" if self.n % 10 == 0 else "send"

    r = aqmlab.run(with_aqm("d10", **{"flows.0.packets_per_second": 20}), custom_aqms={"d10": DropEveryTenth})
    q = r.queue()
    assert q["early_drops"] > 0 and q["forced_drops"] == 0
    assert r.conserved
