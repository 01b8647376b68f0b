"""A sweep's :class:`~aqmlab.sweep.SweepReport` in Jupyter (``_repr_html_``, issue 27 item 7):
its counts, axes, failures and aggregate table, built of the pieces of a run's summary
(:mod:`aqmlab.html_summary`, which escapes every text and cuts long tables)."""

from __future__ import annotations

from html import escape
from typing import Any

from ..html_summary import _figures, _table


def sweep_html(report: Any) -> str:
    """A sweep's summary: its counts, axes, failures (first rows) and the aggregate table
    (first rows)."""
    figures = [
        ("jobs", report.total),
        ("ok", report.ok + report.skipped_ok),
        ("failed", report.failed + report.skipped_failed),
        ("not run", report.not_run),
        ("store", str(report.store.path)),
        ("axes", ", ".join(report.axes) or "-"),
        ("elapsed (s)", report.elapsed_s),
    ]
    if report.stopped_reason:
        figures.append(("stopped", report.stopped_reason))
    failures = [
        {"point": ", ".join(f"{k}={v}" for k, v in f.point.items()), "rep": f.replication, "error": f.error}
        for f in report.failures
    ]
    try:
        from .results_view import axis_columns, axis_text

        table = report.table()
        rows = table.to_dict("records") if len(table) else []
        axes = axis_columns(table)
        for row in rows:  # an AQM table as `red max_p=0.1`, as `aqmlab results` writes it
            row.update({a: axis_text(row[a]) for a in axes})
        columns = [c for c in table.columns if c not in ("ci95_low", "ci95_high")]
    except Exception as e:  # noqa: BLE001 - a store that cannot be read still shows its counts
        rows, columns = [], []
        figures.append(("aggregate", f"unavailable: {e}"))
    return (
        "<div class='aqmlab-sweep'>"
        f"<h4>aqmlab sweep: {escape(report.name)}</h4>"
        + _figures(figures)
        + (_table(failures, ("point", "rep", "error"), "failed runs") if failures else "")
        + _table(rows, columns, "aggregate over replications")
        + "</div>"
    )
