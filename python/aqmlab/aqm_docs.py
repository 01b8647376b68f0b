"""Renders the AQM registry as the docs page ``docs/aqms.md``.

The page is generated so that it cannot drift from the code: ``tests/test_aqm_docs.py`` fails
when the committed page differs from what the registry renders. Regenerate with
``python -m aqmlab.aqm_docs > docs/aqms.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

HEADER = """# The AQM algorithms

Every queue discipline aqmlab knows, with its source and its parameters (defaults and units).
Use one at a queue with `aqm = "name"` (defaults) or `aqm = { kind = "name", param = value }`.
A parameter of unit `s` is a duration: a string with a unit (`"5ms"`, `"1.5s"`) or a bare
number of seconds (`0.005`); parameters in bytes, packets, probabilities and weights are plain
numbers.

Conventions shared by every discipline: the queue counts packets *waiting*, excluding the one
being transmitted, and a limit of N packets holds N waiting packets (ns-2's DropTail holds
N - 1). `ecn = true` makes an algorithm mark ECN-capable packets instead of dropping them where
its source allows; a full buffer always drops. Each algorithm reports its internal state (avg,
p, price, ...) in the time series when `sample_interval` is set.

This page is generated from the registry (`crates/aqmlab-core/src/aqm/registry.rs` and each
algorithm's `PARAMS`): `python -m aqmlab.aqm_docs > docs/aqms.md`.
"""


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(registry: Iterable[Mapping[str, Any]]) -> str:
    """The docs page for the given registry entries (as returned by ``aqmlab._core.aqms()``)."""
    entries = list(registry)
    lines = [HEADER, "| name | algorithm | ECN |", "|---|---|---|"]
    lines += [
        f"| [`{a['name']}`](#{a['name'].replace('_', '-')}) | {_cell(a['title'])} | {'yes' if a['ecn'] else 'no'} |"
        for a in entries
    ]
    for a in entries:
        lines += ["", f"## {a['name']}", "", f"**{_cell(a['title'])}**. Source: {_cell(a['source'])}.", ""]
        if a["params"]:
            lines += ["| parameter | default | unit | meaning |", "|---|---|---|---|"]
            lines += [
                f"| `{p['name']}` | {_cell(p['default'])} | {_cell(p['unit'])} | {_cell(p['meaning'])} |"
                for p in a["params"]
            ]
        else:
            lines.append("No parameters beyond the queue's `limit`.")
    return "\n".join(lines) + "\n"


def main() -> None:
    from . import _core

    print(render_markdown(_core.aqms()), end="")


if __name__ == "__main__":
    main()
