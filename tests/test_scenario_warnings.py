"""Issue 24, items 8 and 10: a scenario that is valid but most likely mistaken runs as written,
with an ``aqmlab.ScenarioWarning`` (from ``aqmlab.run`` and ``validate_scenario``) or a
``warning: ...`` line on the command line's stderr. Each test fails on the code before issue 24
(no warning class, no warning)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import aqmlab
import pytest
from _aqmlab_scenarios import scenario
from aqmlab.cli import app
from typer.testing import CliRunner

PIE_15_S = {"topology.bottleneck.queue.aqm": {"kind": "pie", "target": 15}}
TARGET_WARNING = (
    "topology.bottleneck.queue.aqm.target: 15 s (a bare number is read as seconds), above the "
    'plausible 10us to 500ms for pie\'s target; did you mean "15ms"?'
)
RATE_WARNING = 'topology.bottleneck.rate: "2MBps" is read as 16 Mbps (megabytes per second); did you mean "2Mbps"?'


def _short(**edits: object) -> dict:
    return scenario(**{"duration": "2s", "warmup": "0s", **edits})


def test_a_pie_target_read_as_15_seconds_warns_naming_unit_and_intent() -> None:
    with pytest.warns(aqmlab.ScenarioWarning) as record:
        r = aqmlab.run(_short(**PIE_15_S))
    assert [str(w.message) for w in record] == [TARGET_WARNING]
    w = record[0].message
    assert isinstance(w, aqmlab.ScenarioWarning) and isinstance(w, UserWarning)
    assert w.path == "topology.bottleneck.queue.aqm.target"
    assert w.message.startswith("15 s (a bare number is read as seconds)")
    assert record[0].filename == __file__, "attributed to the caller's line"
    assert int(r.queue("bottleneck")["arrivals"]) > 0, "the scenario runs as written"


def test_a_rate_in_megabytes_per_second_warns_with_the_rate_as_read() -> None:
    with pytest.warns(aqmlab.ScenarioWarning) as record:
        aqmlab.validate_scenario(_short(**{"topology.bottleneck.rate": "2MBps"}))
    assert [str(w.message) for w in record] == [RATE_WARNING]


def test_a_plausible_scenario_gives_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        aqmlab.run(_short(**{"topology.bottleneck.queue.aqm": {"kind": "pie", "target": "15ms"}}))
        aqmlab.validate_scenario(_short(**{"topology.bottleneck.rate": "2Mbps"}))


def test_warnings_turned_into_errors_stop_the_run_before_it_starts() -> None:
    started = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", aqmlab.ScenarioWarning)
        with pytest.raises(aqmlab.ScenarioWarning, match="did you mean"):
            aqmlab.run(_short(**PIE_15_S), progress=started.append)
    assert started == []


def test_the_command_line_prints_each_warning_as_one_line_on_stderr(tmp_path: Path) -> None:
    p = tmp_path / "pie.json"
    p.write_text(json.dumps(_short(**PIE_15_S, **{"topology.bottleneck.rate": "2MBps"})))
    r = CliRunner().invoke(app, ["run", str(p), "--quiet"])
    assert r.exit_code == 0, r.output
    lines = r.stderr.splitlines()
    assert sorted(lines) == sorted([f"warning: {TARGET_WARNING}", f"warning: {RATE_WARNING}"])
    assert "ScenarioWarning" not in r.stderr and "Traceback" not in r.output


def test_the_plausible_ranges_are_part_of_each_parameters_documentation() -> None:
    params = {(a["name"], p["name"]): p for a in aqmlab._core.aqms() for p in a["params"]}
    assert params[("pie", "target")]["plausible"] == (1e-5, 0.5)
    assert params[("pie", "alpha")]["plausible"] is None
    assert all((p["plausible"] is not None) == (p["unit"] == "s") for p in params.values())
