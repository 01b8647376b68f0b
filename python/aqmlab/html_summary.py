"""Compact HTML summaries for Jupyter (``_repr_html_``, issue 27 item 7): a run's
:class:`aqmlab.Result`, and the pieces a sweep's :class:`aqmlab.sweep.SweepReport` is shown
with too (its summary is :mod:`aqmlab.sweep.report_html`, on the sweeps' floor). Every piece of text
that comes from a scenario, a result or a store (names, AQM names, errors, paths) is escaped
with :func:`html.escape`; tables longer than :data:`MAX_ROWS` are cut, saying so."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

#: Rows of a table shown before it is cut.
MAX_ROWS = 10

#: The queue columns shown (of those present), in this order.
QUEUE_COLUMNS = (
    "queue",
    "utilization",
    "mean_queue_packets",
    "mean_delay_ms",
    "p99_delay_ms",
    "loss_rate",
    "drops",
    "marks",
)
#: The flow columns shown (of those present), in this order.
FLOW_COLUMNS = ("flow", "group", "kind", "src", "dst", "goodput_bps", "mean_rtt_ms", "retransmissions", "loss_rate")


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4g}"
    return escape(str(v))


def _table(rows: Sequence[dict[str, Any]], columns: Sequence[str], title: str, total: int | None = None) -> str:
    """An HTML table of ``rows`` (dicts) with the ``columns`` they have, cut at MAX_ROWS;
    ``total``: the table's length when ``rows`` is already its head."""
    total = len(rows) if total is None else total
    cols = [c for c in columns if rows and c in rows[0]]
    if not rows or not cols:
        return f"<p><b>{escape(title)}</b>: none</p>"
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{_cell(r.get(c))}</td>" for c in cols) + "</tr>" for r in rows[:MAX_ROWS])
    cut = f"<p><i>{MAX_ROWS} of {total} rows shown</i></p>" if total > MAX_ROWS else ""
    return (
        f"<p><b>{escape(title)}</b> ({total})</p>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{cut}"
    )


def _figures(pairs: Iterable[tuple[str, Any]]) -> str:
    items = "".join(f"<tr><th style='text-align:left'>{escape(k)}</th><td>{_cell(v)}</td></tr>" for k, v in pairs)
    return f"<table>{items}</table>"


def _warnings(warnings: Sequence[tuple[str, str]]) -> str:
    if not warnings:
        return ""
    items = "".join(f"<li>{escape(f'{p}: {m}' if p else m)}</li>" for p, m in warnings)
    return f"<p><b>warnings</b></p><ul>{items}</ul>"


def jain_index_label(r: Any) -> str:
    """The headline Jain index's label, naming the flows it is over: those of kind "tcp"
    (not workload transfers, which are TCP too, nor probes or UDP flows: issue 35; their
    groups have their own index) when the run has any, else every flow; and how many."""
    kinds = r._flow_columns.get("kind", [])
    if r.jain_index_over == "tcp_flows":
        return f'Jain index (kind "tcp", {sum(1 for k in kinds if k == "tcp")} flows)'
    return f"Jain index (all {len(kinds)} flows)"


def result_html(r: Any) -> str:
    """A run's summary: name, seed, duration, key figures, the queues and flows tables
    (first rows), its warnings."""
    goodput = r.summary.get("flows.goodput_bps.sum", math.nan) if hasattr(r, "summary") else math.nan
    figures = [
        ("seed", r.seed),
        ("duration", f"{r.duration_s:g} s (warm-up {r.warmup_s:g} s)"),
        ("flows", r.n_flows),
        ("goodput, all flows (Mb/s)", float(goodput) / 1e6 if isinstance(goodput, (int, float)) else goodput),
        (jain_index_label(r), r.jain_index),
        ("conserved", r.conserved),
        ("events", r.events),
        ("wall time (s)", r.wall_time_s),
    ]
    return (
        "<div class='aqmlab-result'>"
        f"<h4>aqmlab run: {escape(r.name or '(unnamed)')}</h4>"
        + _figures(figures)
        + _table(r._queue_rows, QUEUE_COLUMNS, "queues")
        + _flow_table(r)
        + _warnings(r.warnings)
        + "</div>"
    )


def _flow_rows(r: Any) -> tuple[list[dict[str, Any]], int]:
    """The flow table's first rows (without building a DataFrame), and its length."""
    columns: dict[str, list[Any]] = r._flow_columns
    wanted = [c for c in FLOW_COLUMNS if c in columns]
    n = len(next(iter(columns.values()), []))
    return [{c: columns[c][i] for c in wanted} for i in range(min(n, MAX_ROWS))], n


def _flow_table(r: Any) -> str:
    rows, total = _flow_rows(r)
    return _table(rows, FLOW_COLUMNS, "flows", total)
