"""Dotted-path addressing of fields inside nested scenario dicts.

Sweep axes name scenario fields like ``"bottleneck.queue.aqm.max_th"`` or
``"flows.0.count"`` instead of repeating whole sub-tables, so a sweep stays
readable and independent of the rest of the scenario.  A segment made of
digits indexes a list; every other segment is a dict key.  Keys that contain
a literal dot cannot be addressed (the engine's schema has none).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class PathError(LookupError):
    """A dotted path does not resolve inside a scenario.

    ``reason`` explains which segment failed so that definition errors can
    point the user at the exact typo.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path!r}: {reason}")
        self.path = path
        self.reason = reason


def split_path(path: str) -> list[str]:
    """Split a dotted path, rejecting empty segments (``"a..b"``, ``""``)."""
    if not isinstance(path, str) or not path:
        raise PathError(str(path), "path must be a non-empty string")
    parts = path.split(".")
    if any(p == "" for p in parts):
        raise PathError(path, "empty segment in dotted path")
    return parts


def _describe(prefix: list[str]) -> str:
    return "the scenario root" if not prefix else repr(".".join(prefix))


def _step(container: Any, segment: str, path: str, prefix: list[str]) -> Any:
    """Descend one segment, raising a PathError that names the failing spot."""
    if isinstance(container, list):
        if not segment.isdigit():
            raise PathError(path, f"{_describe(prefix)} is a list; segment {segment!r} must be an integer index")
        index = int(segment)
        if index >= len(container):
            raise PathError(
                path, f"index {index} out of range for {_describe(prefix)} (a list of length {len(container)})"
            )
        return container[index]
    if isinstance(container, Mapping):
        if segment not in container:
            keys = ", ".join(sorted(map(str, container))) or "none"
            raise PathError(path, f"{_describe(prefix)} has no key {segment!r} (keys: {keys})")
        return container[segment]
    raise PathError(path, f"{_describe(prefix)} is a {type(container).__name__}, not a table or list")


def get_path(obj: Any, path: str) -> Any:
    """Return the value at ``path``; raise :class:`PathError` if it does not exist."""
    parts = split_path(path)
    node = obj
    for i, seg in enumerate(parts):
        node = _step(node, seg, path, parts[:i])
    return node


def has_path(obj: Any, path: str) -> bool:
    """True if ``path`` resolves inside ``obj``."""
    try:
        get_path(obj, path)
    except PathError:
        return False
    return True


def set_path(obj: Any, path: str, value: Any, *, create: bool = False) -> None:
    """Set the value at ``path`` in place.

    With ``create=False`` (the default, used for validated sweeps) the field
    must already exist, so a misspelt axis can never silently add a field the
    engine ignores.  With ``create=True`` a missing *final* dict key is added;
    the parents must still exist.
    """
    parts = split_path(path)
    node = obj
    for i, seg in enumerate(parts[:-1]):
        node = _step(node, seg, path, parts[:i])
    last = parts[-1]
    if isinstance(node, Mapping) and create and last not in node:
        node[last] = value  # type: ignore[index]
        return
    _step(node, last, path, parts[:-1])  # existence / range check with a good message
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def check_path(obj: Any, path: str, *, create: bool = False) -> None:
    """Raise :class:`PathError` unless ``set_path(obj, path, ..., create=create)`` would succeed."""
    parts = split_path(path)
    if create:
        node = obj
        for i, seg in enumerate(parts[:-1]):
            node = _step(node, seg, path, parts[:i])
        if isinstance(node, Mapping):
            return
        _step(node, parts[-1], path, parts[:-1])
        return
    get_path(obj, path)


def flatten_axes(table: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Flatten nested tables into ``(dotted_path, leaf)`` pairs.

    TOML turns an unquoted ``bottleneck.queue.max_th = [...]`` into nested
    tables, whereas a quoted key stays flat; flattening makes both spellings
    mean the same axis.  Leaves are any non-dict value (lists of axis values,
    or a scalar in an explicit point).
    """
    for key, value in table.items():
        if not isinstance(key, str):
            raise PathError(str(key), "axis names must be strings")
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, Mapping):
            if not value:
                raise PathError(path, "empty table where a value or list of values was expected")
            yield from flatten_axes(value, path)
        else:
            yield path, value
