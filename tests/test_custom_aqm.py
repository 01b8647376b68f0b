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
    assert {"avg_packets", "p"} <= set(ts.loc[ts["source"] == "bottleneck", "variable"])


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


# Issue 24, item 13 ("Python AQMs"): a timer_interval below what the engine can usefully tick
# (1e-12 was accepted, rounded up to 1 ns, and the run never advanced) and RNG helpers given
# values that are no probability or mean (accepted silently as "never", "always" or negative
# times) are clear errors.


def _ticking(interval: object) -> type:
    class Ticking:
        timer_interval = interval

        def on_arrival(self, view: object, packet: object) -> str:
            return "enqueue"

        def on_timer(self, view: object) -> None:
            pass

    return Ticking


@pytest.mark.parametrize("interval", [1e-12, 1e-9, 9.9e-7, 0.0, -1.0, float("nan"), float("inf"), 1e10, 1e30])
def test_timer_interval_out_of_range_is_a_scenario_error_naming_the_field(interval: float) -> None:
    with pytest.raises(aqmlab.ScenarioError, match=r"timer_interval must be between 1e-6 and 1e9 seconds") as info:
        aqmlab.run(with_aqm("ticking"), custom_aqms={"ticking": _ticking(interval)})
    assert info.value.path == "topology.bottleneck.queue.aqm"


def test_timer_interval_at_the_minimum_runs() -> None:
    calls = {"timer": 0}

    class Fast:
        timer_interval = 1e-6

        def on_arrival(self, view: object, packet: object) -> str:
            return "enqueue"

        def on_timer(self, view: object) -> None:
            calls["timer"] += 1

    aqmlab.run(with_aqm("fast", duration="0.01s", warmup="0s"), custom_aqms={"fast": Fast})
    assert 9_990 <= calls["timer"] <= 10_000  # 10 ms at 1 us


def _drawing(draw: str) -> type:
    class Drawing:
        def on_arrival(self, view: object, packet: object) -> str:
            eval(draw, {"rng": self.rng})  # noqa: S307 - the test's own expressions
            return "enqueue"

    return Drawing


@pytest.mark.parametrize(
    ("draw", "message"),
    [
        ("rng.bernoulli(float('nan'))", r"rng.bernoulli\(p\): p must be a probability in \[0, 1\], got NaN"),
        ("rng.bernoulli(5)", r"rng.bernoulli\(p\): p must be a probability in \[0, 1\], got 5"),
        ("rng.bernoulli(-0.1)", r"got -0.1"),
        ("rng.exponential(-1)", r"rng.exponential\(mean\): mean must be a finite number > 0, got -1"),
        ("rng.exponential(0)", r"mean must be a finite number > 0, got 0"),
        ("rng.exponential(float('nan'))", r"mean must be a finite number > 0, got NaN"),
        ("rng.exponential(float('inf'))", r"mean must be a finite number > 0, got inf"),
    ],
)
def test_rng_helpers_refuse_values_that_are_no_probability_or_mean(draw: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        aqmlab.run(with_aqm("drawing"), custom_aqms={"drawing": _drawing(draw)})


def test_rng_helpers_accept_their_bounds() -> None:
    seen: list[object] = []

    class Bounds:
        def on_arrival(self, view: object, packet: object) -> str:
            if not seen:
                seen.extend([self.rng.bernoulli(0.0), self.rng.bernoulli(1.0), self.rng.exponential(1e-9) > 0])
            return "enqueue"

    aqmlab.run(with_aqm("bounds"), custom_aqms={"bounds": Bounds})
    assert seen == [False, True, True]
