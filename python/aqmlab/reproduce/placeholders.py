"""``${name}`` placeholders in the data files: filled from a point (axis name -> value), or from
a transcribed cell (field name -> value) for paper values kept in another file."""

from __future__ import annotations

import copy
import re
from typing import Any

from .errors import ReproduceError

_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def fmt(v: Any) -> str:
    """A value as it is formatted into a longer string: floats by ``%g``."""
    if isinstance(v, float):
        return f"{v:g}" if v == v else "nan"
    return str(v)


def substitute(value: Any, point: dict[str, Any]) -> Any:
    """Replace ``${axis}`` placeholders: a string that is exactly one placeholder becomes the
    axis value with its type; otherwise values are formatted into the string ("6.5ms")."""
    if isinstance(value, str):
        m = _PLACEHOLDER.fullmatch(value)
        if m:
            name = m.group(1)
            if name not in point:
                raise ReproduceError(f"placeholder ${{{name}}} has no value at point {point}")
            return copy.deepcopy(point[name])

        def repl(mm: re.Match[str]) -> str:
            name = mm.group(1)
            if name not in point:
                raise ReproduceError(f"placeholder ${{{name}}} has no value at point {point}")
            return fmt(point[name])

        return _PLACEHOLDER.sub(repl, value)
    if isinstance(value, dict):
        return {k: substitute(v, point) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, point) for v in value]
    return value
