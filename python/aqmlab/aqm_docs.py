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
its source allows; a full buffer always drops. Each algorithm reports its internal state in
the time series when `sample_interval` is set: [State variables](#state-variables) below, and
each algorithm's own table.

This page is generated from the registry (`crates/aqmlab-core/src/aqm/registry.rs` and each
algorithm's `PARAMS`): `python -m aqmlab.aqm_docs > docs/aqms.md`.
"""


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


STATE_HEADER = """## State variables

The time series (`Result.timeseries`, long form: `time_s`, `source`, `variable`, `value`) with
`sample_interval` set. One name is one quantity whichever AQM records it, and a quantity with
a physical unit carries it in its name (`_packets`, `_bytes`, `_ms`, `_s`, `_bps`); probabilities,
counts and 0/1 flags have none. The names shared by several algorithms:

- `avg_packets`: the averaged queue the AQM acts on (the RED family);
- `p`: the probability with which the next packet is dropped or marked (RED family: the
  final p_a; `p_b` is the curve's value before the count correction; PI2 and DualPI2: the
  base probability p', squared for Classic traffic, `p_c`);
- `q_ref_packets` / `target_delay_ms`: the reference the controller steers to (PI and REM /
  CoDel, FQ-CoDel and PIE);
- `qdelay_ms`: the queue delay the AQM acts on (CoDel, PIE, PI2, DualPI2).

Renamed in issue 27 (old -> new): `avg` -> `avg_packets`, `p_a` -> `p`, RED's `count` ->
`since_signal_packets`, DSRED's `p_d` -> `p_b` (it was the same value), CoDel's `count` ->
`dropping_signals`, `drop_next` -> `drop_next_s`, PI's `q_old` -> `q_old_packets`, QVARED's
`q_t`/`q_tmax` -> `q_t_packets_per_s`/`q_tmax_packets_per_s`, REM's `in_avg` ->
`in_avg_packets`, NewQue's `r` -> `r_bps`, Orange's `timer_busy_until`/`timer_last_draw` ->
`timer_busy_until_s`/`timer_last_draw_s`; FQ-CoDel's `backlog_packets`/`backlog_bytes` are
gone (they were `queue_packets`/`queue_bytes`). Flows are the sources `flow<i>`, `i` the `flow`
column of the flows table (and of the FCT table).
"""

#: Sources of the series the simulator records whatever the AQM, in the order shown.
SERIES_SOURCES = (
    ("queue", "every monitored queue (source: the link's name), whatever its AQM"),
    ("flows", 'all flows together (source "flows")'),
    ("flow", 'each flow with `sample_flows = true` (source "flow<i>")'),
    ("tcp", 'each TCP sender with `sample_flows = true`, besides the above (source "flow<i>")'),
)


def _state_table(docs: Iterable[Mapping[str, Any]]) -> list[str]:
    lines = ["| variable | unit | meaning |", "|---|---|---|"]
    return lines + [f"| `{d['name']}` | {_cell(d['unit'] or '-')} | {_cell(d['meaning'])} |" for d in docs]


def render_markdown(registry: Iterable[Mapping[str, Any]], series: Mapping[str, Any] | None = None) -> str:
    """The docs page for the given registry entries (as returned by ``aqmlab._core.aqms()``)
    and the series every run records (``aqmlab._core.series_docs()``)."""
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
        state = a.get("state") or []
        lines += ["", "State variables (time series):", ""]
        lines += _state_table(state) if state else ["None beyond the queue's own (below)."]
    if series is not None:
        lines += ["", STATE_HEADER.rstrip("\n")]
        for key, what in SERIES_SOURCES:
            lines += ["", f"Recorded for {what}:", ""] + _state_table(series[key])
    return "\n".join(lines) + "\n"


def main() -> None:
    from . import _core

    print(render_markdown(_core.aqms(), _core.series_docs()), end="")


if __name__ == "__main__":
    main()
