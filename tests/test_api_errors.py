"""Bad input raises aqmlab.ScenarioError naming the field; engine failures are SimulationError."""

from __future__ import annotations

import aqmlab
import pytest
from _aqmlab_scenarios import BAD_INPUTS, scenario


@pytest.mark.parametrize(("what", "edits", "field"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_names_the_field(what: str, edits: dict, field: str) -> None:
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.run(scenario(**edits))
    e = info.value
    assert isinstance(e, ValueError)
    assert e.path == field
    assert str(e) == f"{e.path}: {e.message}"


def test_toml_syntax_error_names_the_line() -> None:
    with pytest.raises(aqmlab.ScenarioError, match=r"^line 3: invalid TOML") as info:
        aqmlab.load_scenario('duration = "1s"\n[topology]\nkind = \n')
    assert info.value.path == "line 3"


def test_bad_seed() -> None:
    with pytest.raises(aqmlab.ScenarioError, match="^seed: "):
        aqmlab.run(scenario(), seed=-1)
    with pytest.raises(aqmlab.ScenarioError, match="^seed: "):
        aqmlab.run(scenario(), seed="x")  # type: ignore[arg-type]


def test_validate_scenario() -> None:
    aqmlab.validate_scenario(scenario())
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.validate_scenario(scenario(**{"topology.bottleneck.rate": "-1Mbps"}))
    assert info.value.path == "topology.bottleneck.rate"


def test_rust_panic_becomes_simulation_error() -> None:
    # No scenario is known to panic the engine, so a test hook panics inside the same guard
    # (GIL released, catch_unwind) that wraps every run.
    from aqmlab import _core

    with pytest.raises(aqmlab.SimulationError, match="panicked: boom"):
        _core._panic_for_test("boom")
    assert isinstance(aqmlab.SimulationError("x"), RuntimeError)
    # the interpreter is alive and the engine still works
    assert aqmlab.run(scenario(), seed=1).events > 0
