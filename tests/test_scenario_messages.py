"""Issue 24, items 10 and 13 (units and messages), as a Python user meets them: each error names
the field and says what is wrong, and "1Tbps" is a rate. Each test fails on the code before
issue 24."""

from __future__ import annotations

import aqmlab
import pytest
from _aqmlab_scenarios import UDP_TOML, scenario


def test_an_integer_beyond_any_integer_type_is_too_large_not_a_fraction() -> None:
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.validate_scenario(scenario(**{"topology.senders": 10**30}))
    assert info.value.path == "topology.senders"
    assert info.value.message == "too large: must be a whole number from 0 to 4294967295, got 1e30"


def test_a_toml_date_is_called_a_date_at_its_field() -> None:
    text = UDP_TOML.replace('duration = "10s"', "duration = 1979-05-27")
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.run(text)
    assert info.value.path == "duration"
    assert info.value.message.startswith("a TOML date or time (1979-05-27), where a number or a string was expected")


def test_a_rate_in_terabits_per_second_is_accepted() -> None:
    aqmlab.validate_scenario(scenario(**{"topology.access.rate": "1Tbps"}))
    with pytest.raises(aqmlab.ScenarioError, match="at most 1Tbps"):
        aqmlab.validate_scenario(scenario(**{"topology.access.rate": "1.5Tbps"}))


def test_a_congestion_control_given_as_the_variant_points_to_its_field() -> None:
    s = scenario()
    s["tcp"] = {"variant": "cubic"}
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.validate_scenario(s)
    assert info.value.path == "tcp.variant"
    assert '`cubic` is a congestion control: set congestion_control = "cubic"' in info.value.message


def test_an_unknown_aqm_suggests_the_transposition_first() -> None:
    with pytest.raises(aqmlab.ScenarioError, match=r"did you mean `pie` or `pi`\?$"):
        aqmlab.run(scenario(**{"topology.bottleneck.queue.aqm": "pei"}))


def test_the_docs_say_what_the_loader_requires_of_a_dumbbell() -> None:
    """Item 10: docs/scenarios.md did not say that `access` is required; the loader requires it."""
    from pathlib import Path

    docs = " ".join((Path(__file__).resolve().parent.parent / "docs" / "scenarios.md").read_text().split())
    assert "`access` (its `rate`: the links between the hosts and the routers) are required" in docs
    s = scenario()
    del s["topology"]["access"]
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.validate_scenario(s)
    assert str(info.value) == "topology.access: required, but missing"
