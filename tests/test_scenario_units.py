"""Issue 11, item 5: a bare number for a time is seconds, and every error about one says so,
from the scenario schema and from AQM parameters alike; `aqmlab aqms` names the unit of every
time parameter (it used to say only "time", and "-5" was "must not be negative, got -5")."""

from __future__ import annotations

import copy
import json

import aqmlab
import pytest
from aqmlab.cli import app
from typer.testing import CliRunner

BASE = {
    "duration": "1s",
    "topology": {
        "kind": "dumbbell",
        "senders": 1,
        "bottleneck": {"rate": "10Mbps", "delay": "1ms", "queue": {"aqm": "codel"}},
        "access": {"rate": "100Mbps"},
    },
    "flows": [{"kind": "tcp", "from": "senders", "to": "receivers"}],
}


def edited(path: str, value: object) -> dict:
    s = copy.deepcopy(BASE)
    node = s
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = value
    return s


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("duration", -5, "duration: must not be negative, got -5 (a bare number means seconds)"),
        ("duration", 1e-10, "(a bare number means seconds)"),
        (
            "duration",
            2e9,
            "duration: a duration must be at most 1e9 s (31 years), got '2000000000' (a bare number means seconds)",
        ),
        (
            "topology.bottleneck.delay",
            -0.5,
            "topology.bottleneck.delay: a duration must not be negative, got '-0.5' (a bare number means seconds)",
        ),
        (
            "topology.bottleneck.rate",
            0,
            "topology.bottleneck.rate: a rate must be at least 1 bps, got 0 (a bare number means bits per second)",
        ),
    ],
)
def test_errors_about_bare_numbers_name_their_unit(path: str, value: object, message: str) -> None:
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate_scenario(edited(path, value))
    assert message in str(e.value)
    assert str(e.value).startswith(path + ":")


def test_errors_about_numbers_with_units_do_not_mention_bare_numbers() -> None:
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate_scenario(edited("duration", "-5ms"))
    assert "negative" in str(e.value) and "bare" not in str(e.value)


def test_an_aqm_time_parameter_error_names_the_unit() -> None:
    s = copy.deepcopy(BASE)
    s["topology"]["bottleneck"]["queue"]["aqm"] = {"kind": "codel", "target": -1}
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.run(s)
    assert str(e.value) == (
        "topology.bottleneck.queue.aqm.target: must not be negative, got -1 (a bare number means seconds)"
    )


def test_aqms_lists_time_parameters_in_seconds_and_says_what_a_bare_number_means() -> None:
    runner = CliRunner()
    reg = json.loads(runner.invoke(app, ["aqms", "--json"]).stdout)
    units = {p["unit"] for a in reg for p in a["params"]}
    assert "time" not in units
    codel = next(a for a in reg if a["name"] == "codel")
    assert {p["name"]: p["unit"] for p in codel["params"]}["target"] == "s"
    table = runner.invoke(app, ["aqms"], terminal_width=200).stdout
    assert "target = 5ms (s)" in table
    assert "a bare number of seconds" in table
