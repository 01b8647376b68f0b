"""The readers of the command line's option values, one per kind of value, shared by every
command (issue 35, O): a seed, a count (workers, seeds, replications), a duration, a time in
microseconds. Each takes the text as typed and returns the value, or raises ValueError with
the reason in a few words; cli.py turns them into the framework's parameter types, so that a
bad value is refused before the command starts, in one line naming the option, with exit 2.

No import here beyond the standard library: the fast path of ``aqmlab run`` (entry.py) reads
its ``--seed`` with :func:`seed`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["check_window", "count", "duration_s", "microseconds", "microseconds_in_range", "router_cpu", "seed"]

#: The seeds the engine takes: a u64 (scenario.resolve_seed checks the same range).
MAX_SEED = 2**64 - 1

#: An integer as typed: ASCII digits only. int() reads any Unicode decimal digit ('١' is 1),
#: which a command line should not silently do.
_INTEGER = re.compile(r"[+]?[0-9]+")

#: A duration: a number, then a unit of the scenario's durations or none (seconds). The
#: units are the engine's (crates/aqmlab-core/src/units/mod.rs, TIME_UNITS), so that
#: an option takes what the scenario's `duration` field takes.
_DURATION = re.compile(r"(?P<number>[+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)\s*(?P<unit>s|sec|ms|us|µs|ns|min)?")
_SECONDS_PER = {None: 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0}

#: What the help of every duration option says it takes.
DURATION_FORMS = "a number of seconds (30) or a number with a unit (30s, 500ms, 2min)"


def _integer(text: str) -> int:
    t = text.strip()
    if not _INTEGER.fullmatch(t):
        raise ValueError(f"expected a whole number (digits 0-9), got {text!r}")
    return int(t)


def seed(text: str) -> int:
    """A seed: a whole number from 0 to 2**64-1."""
    value = _integer(text)
    if value > MAX_SEED:
        raise ValueError(f"expected a seed from 0 to 2**64-1, got {text.strip()}")
    return value


def count(text: str) -> int:
    """A count of workers, seeds or replications: a whole number, at least 1."""
    value = _integer(text)
    if value < 1:
        raise ValueError(f"must be at least 1, got {value}")
    return value


def duration_s(text: str, positive: bool = False) -> float:
    """A duration in seconds, as :data:`DURATION_FORMS` says; finite and not negative (above
    0 if ``positive``)."""
    m = _DURATION.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"expected {DURATION_FORMS}, got {text!r}")
    try:
        value = float(m.group("number")) * _SECONDS_PER[m.group("unit")]
    except ValueError:
        raise ValueError(f"expected {DURATION_FORMS}, got {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"must be finite, got {text!r}")
    if value < 0:
        raise ValueError(f"must not be negative, got {text.strip()}")
    if positive and value == 0:
        raise ValueError(f"must be above 0, got {text.strip()}")
    return value


def seconds(value: Any) -> float:
    """A scenario time ("6.5ms", "100s", 2.5) in seconds: a bare number as it is, a text as
    :func:`duration_s` reads it (the engine's time units)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return duration_s(str(value))


def check_window(scenario: Mapping[str, Any], duration: float | None, warmup: float | None) -> None:
    """ValueError, naming the option that fixes it, when ``--duration`` / ``--warmup`` (seconds,
    None where not given) would leave no measurement window with the scenario's own values:
    the engine's "warmup: must be shorter than duration" names fields the user did not write
    on this command line (issue 35: `emulate --duration 10s` of a scenario with a 20 s
    warm-up)."""
    own_d, own_w = _scenario_seconds(scenario, "duration"), _scenario_seconds(scenario, "warmup")
    d = duration if duration is not None else own_d
    w = warmup if warmup is not None else own_w
    if d is None or w is None or w < d:
        return
    if warmup is not None and duration is not None:
        raise ValueError(f"--warmup: {w:g} s is not shorter than --duration ({d:g} s)")
    if warmup is not None:
        raise ValueError(
            f"--warmup: {w:g} s is not shorter than the scenario's duration ({d:g} s); "
            "give a shorter --warmup or a longer --duration"
        )
    raise ValueError(
        f"--duration: {d:g} s is not longer than the scenario's warm-up ({w:g} s); "
        f"give a longer --duration or a shorter --warmup (e.g. --warmup {d / 6:g}s)"
    )


def _scenario_seconds(scenario: Mapping[str, Any], field: str) -> float | None:
    """A scenario's duration or warm-up in seconds; None when absent or unreadable (the
    engine's checks then say what is wrong with it, naming the field)."""
    value = scenario.get(field)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return duration_s(str(value))
    except ValueError:
        return None


def microseconds(text: str, upper: float, positive: bool = False) -> float:
    """A time in microseconds, a plain number from 0 (above 0 if ``positive``) to ``upper``."""
    t = text.strip()
    m = _DURATION.fullmatch(t)
    if m is None or m.group("unit") is not None:
        raise ValueError(f"expected a number of microseconds, got {text!r}")
    try:
        value = float(m.group("number"))
    except ValueError:
        raise ValueError(f"expected a number of microseconds, got {text!r}") from None
    return microseconds_in_range(value, upper, positive, shown=t)


def microseconds_in_range(value: float, upper: float, positive: bool = False, shown: str | None = None) -> float:
    """``value``, a time in microseconds, if finite and from 0 (above 0 if ``positive``) to
    ``upper``; else ValueError showing ``shown`` (the text as typed; the number if None). The
    check of :func:`microseconds` and of the API's microsecond arguments (``emulate``'s
    ``spin_us``)."""
    if not (math.isfinite(value) and 0 <= value <= upper) or (positive and value == 0):
        bounds = f"above 0 and at most {upper:,.0f}" if positive else f"from 0 to {upper:,.0f}"
        raise ValueError(f"must be {bounds} microseconds, got {value if shown is None else shown}")
    return value


def router_cpu(text: str) -> int | str | None:
    """``--router-cpu``: "auto", "none" (None), or one of the CPUs this process may run on
    (os.sched_getaffinity), not the only one: the hosts need the others."""
    import os

    t = text.strip()
    if t in ("auto", "none"):
        return None if t == "none" else "auto"
    if not _INTEGER.fullmatch(t):
        raise ValueError(f"expected a CPU number, 'auto' or 'none', got {text!r}")
    cpu = int(t)
    cpus = sorted(os.sched_getaffinity(0))
    if cpu not in cpus:
        raise ValueError(f"CPU {cpu} is not one this process may use (CPUs {_ranges(cpus)})")
    if len(cpus) < 2:
        raise ValueError(f"CPU {cpu} is the only CPU this process may use; the hosts need another ('none': no pinning)")
    return cpu


def _ranges(cpus: list[int]) -> str:
    """[0, 1, 2, 5] -> "0-2, 5"."""
    parts: list[str] = []
    start = prev = cpus[0]
    for c in [*cpus[1:], None]:
        if c is not None and c == prev + 1:
            prev = c
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if c is not None:
            start = prev = c
    return ", ".join(parts)
