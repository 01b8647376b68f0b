"""Overrides from the command line: ``--set PATH=VALUE`` (issue 27, item 5).

``PATH`` names a field of the scenario document as written, in the engine's own spelling of
field paths: dotted keys with ``[i]`` list indices (``topology.bottleneck.queue.aqm.max_p``,
``flows[0].count``; ``flows.0.count``, the sweep axes' spelling, is the same path). ``VALUE``
is a TOML value (``0.2``, ``true``, ``"5Mbps"``, ``[1, 2]``, ``{ kind = "pie" }``); text that
is not one is a string, so that ``rate=5Mbps`` needs no quotes.

Overrides are applied to the document before it is validated, so everything the engine checks
in a file it checks in an override, and names the same path: a misspelt key at the end gets
the schema's "unknown field ... did you mean" under that path. What the document's shape
refuses (a path through a value that is not a table, a list index out of range) is refused
here, naming the path. Missing tables on the way are created (``topology.bottleneck.queue``
absent from the file), and an AQM given by name (``aqm = "red"``) becomes its table
(``{ kind = "red" }``) when a path goes inside it.

One alias, for the queue a result's queue table names: ``queues.NAME.FIELD`` is the queue of
the link NAME (a dumbbell's ``bottleneck`` and ``bottleneck_reverse``; a graph link's
``name``, or ``from->to``), e.g. ``queues.bottleneck.aqm.max_p``. Nothing else is aliased.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import scenario_error

__all__ = ["apply_in_place", "engine_path", "overlaps", "parse_override", "resolve_path", "split_override_path"]

#: One segment: a key, then any number of ``[i]`` indices.
_SEGMENT = re.compile(r"^(?P<key>[^.\[\]]+)(?P<indices>(\[[0-9]+\])*)$")

Step = str | int


def split_override_path(path: str) -> list[Step]:
    """``"flows[0].tcp.window"`` -> ``["flows", 0, "tcp", "window"]``; a segment of digits
    alone is an index too (``flows.0.count``). ScenarioError naming the path if malformed."""
    if not path:
        raise scenario_error("--set", "empty path: expected PATH=VALUE, e.g. flows[0].count=50")
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        raise scenario_error("--set", f"path {path!r} contains a control character")
    steps: list[Step] = []
    for segment in path.split("."):
        m = _SEGMENT.match(segment.strip())
        if m is None:
            raise scenario_error(
                path, f"malformed path segment {segment!r}: expected key, key[i] or i (e.g. flows[0].count)"
            )
        key = m.group("key").strip()
        # str.isdigit() is Unicode's: '²' (int() refuses it) and '١' (int() reads it as 1) are
        # digits to it. An index is ASCII digits, as in `[i]`; other numerals are refused
        # rather than read as a key that happens to look like a number, or as an index.
        ascii_index = key.isascii() and key.isdigit()
        if not ascii_index and all(c.isnumeric() or c.isspace() for c in key):
            raise scenario_error(
                path, f"path segment {segment!r} is not an index: a list index is written in ASCII digits 0-9"
            )
        steps.append(int(key) if ascii_index and steps else key)
        steps.extend(int(i) for i in re.findall(r"\[([0-9]+)\]", m.group("indices")))
    return steps


def engine_path(steps: Iterable[Step]) -> str:
    """Steps as the engine writes a field path: ``flows[0].tcp.window``."""
    out = ""
    for s in steps:
        out += f"[{s}]" if isinstance(s, int) else (f".{s}" if out else s)
    return out


def parse_value(text: str) -> Any:
    """A TOML value, or the text itself (stripped) when it is not one (``5Mbps``, ``red``)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    stripped = text.strip()
    try:
        table = tomllib.loads(f"v = {stripped}")
    except tomllib.TOMLDecodeError:
        if stripped[:1] in ('"', "'", "[", "{"):
            raise
        return stripped
    if list(table) != ["v"]:  # "1\nx = 2": more than one value
        raise ValueError("more than one value")
    return table["v"]


def parse_override(text: str) -> tuple[str, Any]:
    """``"PATH=VALUE"`` -> (path, value); ScenarioError naming the path when malformed."""
    path, eq, value = text.partition("=")
    path = path.strip()
    if not eq:
        raise scenario_error("--set", f"expected PATH=VALUE (e.g. flows[0].count=50), got {text!r}")
    split_override_path(path)
    try:
        return path, parse_value(value)
    except Exception as e:  # tomllib's decode error: a quoted or bracketed value that is not TOML
        raise scenario_error(path, f"not a TOML value: {value.strip()!r} ({e})") from None


def _queue_alias(doc: Mapping[str, Any], name: str, path: str) -> list[Step]:
    """The steps to the queue that a result's queue table calls ``name``."""
    topo = doc.get("topology")
    known: list[tuple[str, list[Step]]] = []
    if isinstance(topo, Mapping) and topo.get("kind") == "dumbbell":
        known = [
            ("bottleneck", ["topology", "bottleneck", "queue"]),
            ("bottleneck_reverse", ["topology", "bottleneck", "reverse_queue"]),
        ]
    elif isinstance(topo, Mapping) and topo.get("kind") == "graph" and isinstance(topo.get("links"), list):
        for i, link in enumerate(topo["links"]):
            if isinstance(link, Mapping):
                forward = link.get("name") or f"{link.get('from')}->{link.get('to')}"
                known.append((str(forward), ["topology", "links", i, "queue"]))
                if link.get("duplex", True):
                    known.append((f"{link.get('to')}->{link.get('from')}", ["topology", "links", i, "reverse_queue"]))
    for queue, steps in known:
        if queue == name:
            return steps
    names = ", ".join(q for q, _ in known) or "none"
    raise scenario_error(
        path, f"no queue named {name!r} (queues.NAME is the queue of the link NAME; this scenario's: {names})"
    )


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"


def resolve_path(doc: Mapping[str, Any], path: str) -> list[Step]:
    """The steps ``path`` (the override's spelling) takes in ``doc``, its alias resolved."""
    steps = split_override_path(path)
    if len(steps) >= 3 and steps[0] == "queues" and isinstance(steps[1], str):
        steps = _queue_alias(doc, steps[1], path) + steps[2:]
    return steps


def overlaps(a: str, b: str) -> bool:
    """Whether two engine paths name the same field or one is inside the other."""
    return a == b or a.startswith((b + ".", b + "[")) or b.startswith((a + ".", a + "["))


def set_override(doc: dict[str, Any], path: str, value: Any) -> None:
    """Sets ``path`` (the override's spelling) to ``value`` in ``doc``, in place."""
    steps = resolve_path(doc, path)
    node: Any = doc
    for i, step in enumerate(steps):
        last = i == len(steps) - 1
        here = engine_path(steps[: i + 1])
        parent = engine_path(steps[:i]) or "the scenario"
        if isinstance(step, int):
            if not isinstance(node, list):
                raise scenario_error(here, f"`{parent}` is {_describe(node)}, not a list")
            if step >= len(node):
                raise scenario_error(
                    here,
                    f"index {step} out of range: `{parent}` has {len(node)} entr{'y' if len(node) == 1 else 'ies'}",
                )
        elif not isinstance(node, dict):
            raise scenario_error(here, f"`{parent}` is {_describe(node)}, not a table")
        if last:
            node[step] = value
            return
        child = node[step] if isinstance(step, int) else node.get(step)
        if child is None and isinstance(step, str):
            child = node[step] = {}
        elif step == "aqm" and isinstance(child, str):
            # `aqm = "red"` is `aqm = { kind = "red" }` with every parameter at its default
            child = node[step] = {"kind": child}
        node = child


def apply_in_place(doc: dict[str, Any], overrides: Iterable[str]) -> None:
    """Applies each ``"PATH=VALUE"`` of ``overrides`` to the scenario document ``doc`` (plain
    data, as :func:`aqmlab.load_scenario` returns it), in order and in place. Raises
    :class:`aqmlab.ScenarioError` naming the path for an override the document's shape
    refuses; the schema's own checks (unknown fields, bad values) are the run's, under the
    same path. :func:`aqmlab.scenario.apply_overrides` is the copying form."""
    for text in overrides:
        if not isinstance(text, str):
            raise TypeError(f"an override is a 'PATH=VALUE' string, not {type(text).__name__}")
        path, value = parse_override(text)
        set_override(doc, path, value)
