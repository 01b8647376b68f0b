"""TOML text of a scenario document (``aqmlab run --dry-run``): plain values first, then each
table as a ``[section]`` and each list of tables as ``[[section]]``, so that the resolved
scenario reads like a hand-written one. Only what a scenario holds: strings, booleans, whole
and finite real numbers, lists and tables (no dates, no nulls)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["dumps"]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE_KEY.match(k) else json.dumps(k)


def _value(v: Any) -> str:
    """A value written inline (a JSON string is a TOML basic string: same escapes)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"TOML has no {v}")
        return repr(v)  # the shortest text that reads back as the same float
    if isinstance(v, str):
        # JSON escapes the other control characters as TOML does; DEL it leaves raw
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }" if v else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"not a TOML value: {type(v).__name__}")


def _is_table_list(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, Mapping) for x in v)


#: Keys written first in any table, in this order, as a scenario is written by hand (the
#: engine's documents come with their keys sorted).
FIRST_KEYS = ("name", "kind", "duration", "warmup", "seed", "sample_interval", "from", "to", "count")


def _ordered(doc: Mapping[str, Any]) -> dict[str, Any]:
    first = {k: doc[k] for k in FIRST_KEYS if k in doc}
    return {**first, **{k: v for k, v in doc.items() if k not in first}}


def _table(doc: Mapping[str, Any], prefix: str, out: list[str]) -> None:
    doc = _ordered(doc)
    for k, v in doc.items():
        if not isinstance(v, Mapping) and not _is_table_list(v):
            out.append(f"{_key(k)} = {_value(v)}")
    for k, v in doc.items():
        name = f"{prefix}.{_key(k)}" if prefix else _key(k)
        if isinstance(v, Mapping):
            out.append("")
            out.append(f"[{name}]")
            _table(v, name, out)
        elif _is_table_list(v):
            for item in v:
                out.append("")
                out.append(f"[[{name}]]")
                _table(item, name, out)


def dumps(doc: Mapping[str, Any]) -> str:
    """``doc`` as TOML text that reads back (``tomllib.loads``) as an equal dict."""
    out: list[str] = []
    _table(doc, "", out)
    return "\n".join(out).lstrip("\n") + "\n"
