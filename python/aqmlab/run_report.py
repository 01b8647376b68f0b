"""A run's summary as tables on the terminal (``aqmlab run`` without ``--json``).

Imported by the fast path of ``aqmlab run`` (cli_run.py), so it must not import typer; rich
is imported here, pandas and pyarrow not at all (the queue rows come from
:attr:`aqmlab.Result._queue_rows`, read by the engine)."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from .html_summary import jain_index_label


def stdout_console() -> Console:
    """The console the command's tables are printed on."""
    out = Console(highlight=False)
    if not out.is_terminal and "COLUMNS" not in os.environ:
        # Piped output (files, CI logs) gets room for the wide tables instead of rich's 80.
        out.width = 120
    return out


def fmt(v: Any, digits: int = 3) -> str:
    """A table cell: ``-`` for a missing or NaN value, thousands separators for ints."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        return f"{v:.{digits}f}"
    return str(v)


def print_run(r: Any, out: Console) -> None:
    """The run's figures, then its queues (the bottleneck and those that dropped or marked)."""
    _f = fmt  # the name these lines had in cli.py, where they were before issue 24
    s = r.summary
    head = Table(title=f"aqmlab run: {r.name or 'scenario'} (seed {r.seed})", show_header=False)
    head.add_column("", style="bold")
    head.add_column("")
    em = r.raw.get("emulation")
    if em is None:
        head.add_row("simulated", f"{r.duration_s:g} s (warm-up {r.warmup_s:g} s)")
        head.add_row("events", f"{r.events:,}")
        head.add_row("wall time", f"{r.wall_time_s:.3f} s ({r.events_per_second / 1e6:.2f} M events/s)")
        t = r.timings
        head.add_row("set-up / loop / collect", f"{t['setup_s']:.3f} / {t['loop_s']:.3f} / {t['collect_s']:.3f} s")
    else:
        head.title = f"aqmlab emulate: {r.name or 'scenario'} (seed {r.seed})"
        head.add_row("emulated", f"{r.duration_s:g} s (warm-up {r.warmup_s:g} s), Linux TCP through aqmlab's router")
        head.add_row(
            "departure lag p50 / p99 / max",
            f"{_f(em['departure_lag_p50_us'])} / {_f(em['departure_lag_p99_us'])} / {_f(em['departure_lag_max_us'])} us",
        )
        head.add_row("valid", "yes" if em["valid"] else f"NO: {em['invalid_reason']}")
    if r.peak_rss_bytes is not None:
        head.add_row("peak memory", f"{r.peak_rss_bytes / 2**20:,.0f} MiB")
    head.add_row("flows", f"{r.n_flows}")
    head.add_row("goodput (sum)", f"{_f(s.get('flows.goodput_bps.sum', math.nan) / 1e6)} Mb/s")
    head.add_row("mean RTT", f"{_f(s.get('flows.mean_rtt_ms.mean', math.nan), 2)} ms")
    head.add_row("retransmissions", _f(s.get("flows.retransmissions.sum")))
    head.add_row("timeouts", _f(s.get("flows.timeouts.sum")))
    # The headline is over the TCP flows when the run has any (issue 24): say so, and show
    # the all-flows value and the groups' beside it when they say something else.
    groups = r._group_rows
    head.add_row(jain_index_label(r), _f(r.jain_index, 4))
    if r.jain_index_over == "tcp_flows" and any(g["kind"] != "tcp" for g in groups):
        head.add_row("Jain index (all flows)", _f(r.jain_index_all_flows, 4))
    if len(groups) > 1:
        by_group = ", ".join(f"{g['group']} {_f(g['jain_index'], 4)}" for g in groups[:6])
        head.add_row("Jain index by group", by_group + (f", ... ({len(groups)} groups)" if len(groups) > 6 else ""))
    head.add_row("conserved", _f(r.conserved))
    out.print(head)

    q = Table(title="queues", box=box.SIMPLE_HEAVY, collapse_padding=True, pad_edge=False)
    for c in (
        "queue",
        "arrivals",
        "drops",
        "marks",
        "loss %",
        "mean queue (pkts)",
        "mean delay ms",
        "p99 delay ms",
        "util %",
    ):
        if c == "queue":
            q.add_column(c, no_wrap=True)
        else:
            q.add_column(c, justify="right", min_width=max(6, max(len(w) for w in c.split())))
    rows: list[dict[str, Any]] = [{k: math.nan if v is None else v for k, v in x.items()} for x in r._queue_rows]
    shown = [x for x in rows if "bottleneck" in x["queue"] or x["drops"] or x["marks"]]
    for x in shown:
        q.add_row(
            x["queue"],
            _f(x["arrivals"]),
            _f(x["drops"]),
            _f(x["marks"]),
            _f(100 * x["loss_rate"], 2),
            _f(x["mean_queue_packets"], 2),
            _f(x["mean_delay_ms"], 2),
            _f(x["p99_delay_ms"], 2),
            _f(100 * x["utilization"], 1),
        )
    if len(rows) > len(shown):
        q.caption = f"{len(rows) - len(shown)} other queues without drops or marks not shown (see --out)"
    out.print(q)


def show_run(r: Any, out_dir: Path | None) -> None:
    """``aqmlab run``'s output without ``--json``."""
    out = stdout_console()
    print_run(r, out)
    if out_dir is not None:
        out.print(f"tables written to {out_dir}/ (Parquet and CSV) with summary.json")
