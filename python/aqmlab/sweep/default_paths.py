"""Sweep axes over fields that the base scenario leaves at their default (issue 24, item 13).

A strict sweep refuses an axis whose path is not in the base scenario, so that a misspelt axis
cannot add a field the engine ignores. A field the base leaves at its default is not in the
base either (``topology.bottleneck.queue.aqm.target`` over ``aqm = "pie"``), and was refused
as an "unknown path" although the engine would read it. Such a path is accepted when the
engine's own schema accepts it: the base with the path set to the axis's first value (missing
tables created, an AQM given by name turned into its table, ``{kind = "pie"}``) is checked by
the engine with its queues built, and refused when the engine says the field is unknown, or
that a table created for it is incomplete. Every table of the schema denies unknown fields
(serde's ``deny_unknown_fields``, the AQMs' parameter tables included), so the engine's
verdict is the schema's, kept in one place. An error about the value itself is not about the
path: the run reports it, as for a path the base sets.

Only for sweeps of aqmlab's engine (no ``run_fn``), and only when the base itself is a valid
scenario that the engine can check without building more than the memory limit allows;
otherwise the rule stays that the path must exist in the base.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .paths import PathError, _step, split_path


def set_default_path(tree: Any, path: str, value: Any) -> str | None:
    """Sets ``path`` in ``tree`` in place, creating the missing tables on the way and turning
    an AQM given by name (``aqm = "pie"``) into its table when the path goes inside it.
    Returns the dotted path of the first key created (None if every table and the key
    existed). Raises :class:`PathError` where a list index is out of range or a value
    that is not a table is in the way."""
    parts = split_path(path)
    node = tree
    created: str | None = None
    for i, segment in enumerate(parts[:-1]):
        if isinstance(node, Mapping):
            here = ".".join(parts[: i + 1])
            if segment not in node:
                node[segment] = {}  # type: ignore[index]
                created = created or here
            elif segment == "aqm" and isinstance(node[segment], str):
                # `aqm = "pie"` is `aqm = { kind = "pie" }` with every parameter at its default
                node[segment] = {"kind": node[segment]}  # type: ignore[index]
        node = _step(node, segment, path, parts[:i])
    last = parts[-1]
    if isinstance(node, Mapping):
        if last not in node:
            created = created or path
        node[last] = value  # type: ignore[index]
    else:
        _step(node, last, path, parts[:-1])  # a list index in range, or a PathError
        node[int(last)] = value
    return created


def _within(path: str, region: str) -> bool:
    """Whether ``path`` is ``region`` or a field inside it (engine paths: ``a.b``, ``a[0].b``)."""
    return path == region or path.startswith((region + ".", region + "["))


def _engine_path(dotted: str) -> str:
    """A sweep path (``flows.0.tcp.window``) as the engine names it (``flows[0].tcp.window``)."""
    out = ""
    for segment in split_path(dotted):
        out += f"[{segment}]" if segment.isdigit() else (f".{segment}" if out else segment)
    return out


def refusal(base: Mapping[str, Any], path: str, value: Any, reason: str) -> str | None:
    """None when ``path``, absent from ``base`` (``reason`` says where it fails), names a field
    of the scenario schema that the base leaves at its default; else the refusal, in words."""
    from ..errors import ScenarioError

    unknown_in_base = f"unknown path in base scenario: {reason}"
    trial = copy.deepcopy(dict(base))
    try:
        created = set_default_path(trial, path, value)
    except PathError as exc:
        return f"unknown path in base scenario: {exc.reason}"
    base_error = _engine_error(base)
    if base_error is not None:
        return f"{unknown_in_base} (not checked against the scenario schema: {base_error})"
    error = _engine_error(trial)
    if error is None:
        return None
    if not isinstance(error, ScenarioError):
        return f"{unknown_in_base} (not checked against the scenario schema: {error})"
    field = _engine_path(path)
    region = _engine_path(created) if created is not None else field
    # serde's deny_unknown_fields, at the field or at a table created for it (`tcp` in a UDP
    # flow)
    unknown = _within(error.path, region) and error.message.startswith("unknown field")
    # a table created for the path is not what the schema has there: it lacks a required field
    # (an AQM table without `kind`), or the schema has a value there (`window.x`)
    misshapen = _within(error.path, region) and error.path != field
    # a Python AQM is built with its table as keyword arguments, refused by its class
    refused_kwarg = _within(field, error.path) and "unexpected keyword argument" in error.message
    if unknown or misshapen or refused_kwarg:
        return f"unknown path: the scenario schema has no such field: {error}"
    return None  # about the value, not the path: the run reports it, as for a path the base sets


def _engine_error(scenario: Any) -> Exception | str | None:
    """The engine's ScenarioError about ``scenario`` (queues built), or a reason it cannot be
    checked (no engine, or a network larger than the memory limit), or None."""
    try:
        from .. import _core
        from ..custom_aqm import merged
        from ..errors import ScenarioError
        from ..memory_limit import resolve_max_memory
        from ..scenario import to_json
    except ImportError as exc:  # the sweep machinery works without a built engine
        return f"the engine is not available: {exc}"
    try:
        text = to_json(scenario)
        limit = resolve_max_memory(None)
        if limit is not None and _core.estimate_memory(text)["total"] > limit:
            return "the scenario is too large to build for a check"
        _core.validate(text, merged(None) or None, True)
    except ScenarioError as exc:
        return exc
    return None
