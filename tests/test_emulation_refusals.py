"""What a simulation has and an emulation does not carry is refused with the field's path
(issue 27's capture, flow events and probes), before anything is created on the machine: no
root, TUN or iproute2 needed to see the error."""

from __future__ import annotations

from typing import Any

import aqmlab
import pytest
from _aqmlab_scenarios import tcp_dumbbell
from aqmlab.emulation.emulate import emulate

BASE: dict[str, Any] = tcp_dumbbell("2s", 1, {"rate": "10Mbps", "delay": "5ms", "queue": {"aqm": "red"}})


@pytest.mark.parametrize(
    ("extra", "path"),
    [
        ({"capture": ["bottleneck"]}, "capture"),
        ({"trace": ["bottleneck"]}, "trace"),
        ({"events": [{"at": "1s", "link": "bottleneck", "rate": "5Mbps"}, {"at": "1s", "stop_flows": "flows[0]"}]},
         "events[1].stop_flows"),
        ({"flows": [*BASE["flows"], {"kind": "ping", "from": "s0", "to": "d0"}]}, "flows[1].kind"),
    ],
)  # fmt: skip
def test_what_an_emulation_does_not_carry_is_refused_naming_the_field(extra: dict[str, Any], path: str) -> None:
    with pytest.raises(aqmlab.ScenarioError) as e:
        emulate({**BASE, **extra})
    assert e.value.path == path, str(e.value)
