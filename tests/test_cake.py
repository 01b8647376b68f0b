"""Issue 38: CAKE (crates/aqmlab-core/src/aqm/cake/) from Python: a scenario's `aqm = "cake"`
with its parameters, and the flows' `dscp` that its tins read. The mechanisms are tested by hand
in the Rust modules and end to end in crates/aqmlab-core/tests/cake.rs; here the Python face."""

from __future__ import annotations

from typing import Any

import aqmlab
import pytest


def scenario(aqm: Any, dscp: int = 0) -> dict[str, Any]:
    return {
        "duration": "20s",
        "warmup": "5s",
        "topology": {
            "kind": "dumbbell",
            "senders": 2,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"limit": 500, "aqm": aqm}},
            "access": {"rate": "100Mbps", "delay": "1ms"},
        },
        "tcp": {"profile": "linux"},
        "flows": [
            {"kind": "tcp", "from": "s0", "to": "d0"},
            {"kind": "tcp", "from": "s1", "to": "d1", "dscp": dscp},
        ],
    }


def goodputs(aqm: Any, dscp: int = 0) -> list[float]:
    return [float(g) for g in aqmlab.run(scenario(aqm, dscp)).flows["goodput_bps"]]


def test_cake_is_registered_with_its_parameters() -> None:
    reg = aqmlab.aqms().set_index("name")
    params = {p["name"]: p["default"] for p in reg.loc["cake", "params"]}
    assert params["isolation"] == "triple-isolate"
    assert params["diffserv"] == "diffserv3"
    assert params["rtt"] == "100ms"
    assert not reg.loc["cake", "ecn"]  # no switch: it always marks ECT packets


def test_a_cs1_flow_is_held_to_the_bulk_tin_and_a_cs0_flow_is_not() -> None:
    # Two CUBIC flows: alike, they share the link; with DSCP 8 (CS1) the second goes to
    # diffserv3's bulk tin, weight 64 against best effort's 1024 (about 6 % of the link), and
    # with `diffserv = "besteffort"` the DSCP is not looked at.
    alike = goodputs("cake")
    assert min(alike) > 0.4 * sum(alike)
    bulk = goodputs("cake", dscp=8)
    assert bulk[1] < 0.1 * sum(bulk)
    besteffort = goodputs({"kind": "cake", "diffserv": "besteffort"}, dscp=8)
    assert min(besteffort) > 0.4 * sum(besteffort)


def test_bad_values_name_the_field() -> None:
    with pytest.raises(aqmlab.ScenarioError, match=r"flows\[1\]\.dscp"):
        aqmlab.run(scenario("cake", dscp=64))
    with pytest.raises(aqmlab.ScenarioError, match=r"aqm\.isolation"):
        aqmlab.run(scenario({"kind": "cake", "isolation": "triple"}))
    with pytest.raises(aqmlab.ScenarioError, match=r"aqm\.overhead"):
        aqmlab.run(scenario({"kind": "cake", "overhead": 300}))


def test_a_dscp_is_refused_where_the_hosts_are_real() -> None:
    from aqmlab.emulation.emulate import refuse_what_is_not_emulated

    with pytest.raises(aqmlab.ScenarioError, match=r"flows\[1\]\.dscp"):
        refuse_what_is_not_emulated(scenario("cake", dscp=46))
    refuse_what_is_not_emulated(scenario("cake"))
