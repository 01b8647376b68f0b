"""What the reproduction tests share."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import aqmlab


def one_per_config(specs: Iterable[Any]) -> list[Any]:
    """The first job of each configuration, in job order."""
    seen: set[str] = set()
    first = []
    for s in specs:
        if s.config not in seen:
            seen.add(s.config)
            first.append(s)
    return first


def run_briefly(scenario: dict[str, Any]) -> aqmlab.Result:
    """``scenario`` for 1.1 s without a warm-up (flows start uniformly over 0-1 s), seed 1."""
    scen = copy.deepcopy(scenario)
    scen["duration"], scen["warmup"] = "1.1s", "0s"
    return aqmlab.run(scen, seed=1)
