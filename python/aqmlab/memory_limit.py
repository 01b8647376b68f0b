"""How much memory one run may use before it is refused, and the estimate it is checked against.

A run whose estimated memory (see :func:`estimate_memory`) exceeds the limit is refused with a
:class:`aqmlab.ScenarioError` naming the field that makes it large, before anything is built;
without it, a too-large scenario is killed by the kernel (exit 134 or 137) and takes the
rest of a sweep's process with it.

The limit is, in order: the ``max_memory`` argument of :func:`aqmlab.run` (or ``--max-memory``
on the command line), the ``AQMLAB_MAX_MEMORY`` environment variable, or half of this
machine's physical memory. A value is a number of bytes or a size with a unit (``"8GB"``,
``"512MiB"``); ``"none"`` turns the check off.
"""

from __future__ import annotations

import os
import re

from . import _core
from .scenario import ScenarioLike, load_scenario, to_json

ENV_VAR = "AQMLAB_MAX_MEMORY"


class MemoryLimitError(ValueError):
    """A memory limit that is not a size (the message names where it came from)."""


_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}


def parse_memory(value: int | float | str, source: str = "max_memory") -> int | None:
    """Bytes from ``8GB``, ``512MiB``, ``1e9`` or an int; None for ``"none"`` (no limit).

    Raises MemoryLimitError (a ValueError) naming ``source`` (the option or variable it came from)."""
    if isinstance(value, bool):
        raise MemoryLimitError(f"{source}: expected a size such as '8GB', got {value!r}")
    if isinstance(value, (int, float)):
        number, unit = float(value), ""
    else:
        text = value.strip()
        if text.lower() == "none":
            return None
        m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)", text)
        if not m:
            raise MemoryLimitError(f"{source}: expected a size such as '8GB' or 'none', got {value!r}")
        number, unit = float(m.group(1)), m.group(2).lower()
        if unit not in _UNITS:
            raise MemoryLimitError(
                f"{source}: unknown unit {m.group(2)!r} in {value!r} (use B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"
            )
    if not (number > 0 and number * _UNITS[unit] < 2**64):
        raise MemoryLimitError(f"{source}: must be a positive size below 2^64 bytes, got {value!r}")
    return int(number * _UNITS[unit])


def physical_memory() -> int:
    """This machine's physical memory in bytes."""
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def resolve_max_memory(max_memory: int | float | str | None = None) -> int | None:
    """The limit for one run, in bytes (None: no limit), from the argument, the environment
    variable, or half the physical memory, in that order."""
    if max_memory is not None:
        return parse_memory(max_memory)
    env = os.environ.get(ENV_VAR)
    if env is not None:
        return parse_memory(env, ENV_VAR)
    return physical_memory() // 2


def estimate_memory(scenario: ScenarioLike) -> _core.MemoryEstimate:
    """The memory a run of ``scenario`` would need, estimated from its description:
    ``{"total": bytes, "parts": [{"what", "field", "bytes"}, ...]}``. The parts are the
    routing table, links, FQ-CoDel sub-queues, flows, packets in flight and time series; see
    docs/scenarios.md for how each is counted and how well the estimate agrees with real runs."""
    return _core.estimate_memory(to_json(load_scenario(scenario)))
