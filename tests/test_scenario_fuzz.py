"""Issue 11: a fuzz target for the Python side of the scenario schema. A valid scenario with one
value replaced by anything a Python user can put in a dict (NaN, infinities, Decimal, bytes,
sets, huge integers, deep nesting, objects), a key deleted or misspelt, must give either a
valid scenario or an :class:`aqmlab.ScenarioError` whose ``path`` names the field: never
another exception, a crash or a hang. The same for the memory estimate of what validates.

CI runs 300 examples of the first test and 100 of the second, which runs the engine (the
``ci`` profile of conftest.py); ``make fuzz`` runs 20,000 and 5,000."""

from __future__ import annotations

import copy
import decimal
import os
from typing import Any

import aqmlab
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

GRAPH: dict[str, Any] = {
    "duration": "2s",
    "sample_interval": "100ms",
    "topology": {
        "kind": "graph",
        "nodes": ["a", "b", "c"],
        "links": [
            {"from": "a", "to": "b", "rate": "10Mbps", "delay": "5ms", "queue": {"limit": 50, "aqm": "red"}},
            {
                "from": "b",
                "to": "c",
                "rate": "2Mbps",
                "delay": "10ms",
                "queue": {"limit": "64KB", "aqm": {"kind": "codel", "target": "5ms"}},
            },
        ],
    },
    "tcp": {"variant": "sack", "window": 32},
    "flows": [
        {"kind": "tcp", "from": "a", "to": "c", "count": 3, "start": {"uniform": ["0s", "1s"]}},
        {"kind": "cbr", "from": "a", "to": "c", "rate": "1Mbps", "packet_size": 500},
    ],
}
BASES = {"default": aqmlab.load_scenario(aqmlab.default_scenario_path()), "graph": GRAPH}


class Opaque:
    """An object of a type no schema knows."""


def deep(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = [v]
    return v


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**63 - 2, max_value=2**70),
    st.floats(),  # NaN and infinities included
    st.decimals(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(["5ms", "-1s", "0.4ns", "1e30bps", "nan", "inf", "10 parsecs", "senders", "red", "fq_codel"]),
    st.binary(max_size=4),
    st.just(Opaque()),
    st.frozensets(st.integers(), max_size=2),
    st.integers(min_value=50, max_value=2000).map(deep),
    st.just(decimal.Decimal("1e400")),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner),
        st.dictionaries(st.text(max_size=8), inner, max_size=3),
        st.dictionaries(st.integers(), inner, max_size=2),
    ),
    max_leaves=8,
)


def paths(v: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(v, dict):
        for k, c in v.items():
            out += paths(c, (*prefix, k))
    elif isinstance(v, list):
        for i, c in enumerate(v):
            out += paths(c, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    s = copy.deepcopy(BASES[draw(st.sampled_from(sorted(BASES)))])
    path = draw(st.sampled_from(paths(s)[1:]))
    parent = s
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    action = draw(st.sampled_from(["replace", "replace", "replace", "delete", "misspell"]))
    if action == "replace":
        parent[last] = draw(values)
    elif action == "delete":
        del parent[last]
    elif isinstance(last, str) and last:
        i = draw(st.integers(0, len(last) - 1))
        typo = last[:i] + draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz_")) + last[i + 1 :]
        parent[typo] = parent[last]
    return s


def assert_names_a_field(e: aqmlab.ScenarioError) -> None:
    assert e.path, f"an error without a field: {e}"
    assert e.message, f"an error without a reason: {e!r}"
    assert str(e) == f"{e.path}: {e.message}"


@given(mutated())
def test_a_mutated_scenario_validates_or_names_the_field(s: dict[str, Any]) -> None:
    try:
        aqmlab.validate_scenario(s)
    except aqmlab.ScenarioError as e:
        assert_names_a_field(e)
        return
    estimate = aqmlab.estimate_memory(s)
    assert estimate["total"] >= 0
    assert all(p["field"] and p["bytes"] >= 0 for p in estimate["parts"])


# Each example runs the engine: fewer of them.
RUN_EXAMPLES = 5000 if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else 100


@settings(max_examples=RUN_EXAMPLES)
@given(mutated())
def test_a_mutated_scenario_runs_or_is_refused_with_the_field(s: dict[str, Any]) -> None:
    """Through the whole of aqmlab.run, kept short: the run is cut to 2 s without warm-up
    (the first test covers mutated durations) and UDP rates to 10 Mb/s."""
    s["duration"] = "2s"
    s.pop("warmup", None)
    for f in s.get("flows", []) if isinstance(s.get("flows"), list) else []:
        if isinstance(f, dict) and isinstance(f.get("rate"), str):
            f["rate"] = "10Mbps"
    try:
        r = aqmlab.run(s, max_memory="300MB")
    except aqmlab.ScenarioError as e:
        assert_names_a_field(e)
        return
    assert r.summary["events"] > 0


@pytest.mark.parametrize(
    ("value", "path"),
    [
        (float("nan"), "duration"),
        (deep(3000), "duration"),
        (decimal.Decimal("1e400"), "duration"),
        (Opaque(), "duration"),
    ],
)
def test_values_the_fuzzing_found(value: Any, path: str) -> None:
    """A value nested 3000 deep raised RecursionError from load_scenario's deepcopy."""
    s = copy.deepcopy(GRAPH)
    s["duration"] = value
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate_scenario(s)
    assert e.value.path.startswith(path)
