"""Views over time, from the sampled time series (``sample_interval``; per flow also
``sample_flows = true``): the queue and the AQM's average, the drop and mark probability, each
flow's cwnd and throughput."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._common import (
    PlotError,
    RunTables,
    capped_legend,
    figure_and_axes,
    flow_id,
    flow_labels,
    legend_outside,
    mark_warmup,
    per_source,
    pick_queue,
    series,
    sources_with,
    title,
    variables_of,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: What the per-flow views need, for their errors.
FLOW_SAMPLING = 'set sample_interval (e.g. "100ms") and sample_flows = true in the scenario'


def queue(tables: RunTables, ax: Axes | None = None, *, queue: str | None = None) -> Figure:
    """The queue length at ``queue`` (default: the bottleneck) over time with the AQM's
    averaged queue (``avg_packets``) and reference (``q_ref_packets``) where it has them; for
    an AQM that acts on delay (CoDel, PIE), its delay and target on a second axis."""
    ts = tables.timeseries
    q = pick_queue(ts, queue)
    fig, ax = figure_and_axes(ax)
    have = variables_of(ts, q)
    t, v = series(ts, q, "queue_packets")
    ax.plot(t, v, color="0.6", lw=0.8, label="queue")
    if "avg_packets" in have:
        ax.plot(*series(ts, q, "avg_packets"), color="C0", lw=1.4, label="AQM average (avg_packets)")
    if "q_ref_packets" in have:
        ax.plot(*series(ts, q, "q_ref_packets"), color="k", ls="--", lw=1, label="reference (q_ref_packets)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    mark_warmup(ax, tables.warmup_s)
    ax.grid(alpha=0.3)
    if "qdelay_ms" in have:
        delay_ax = ax.twinx()
        delay_ax.plot(*series(ts, q, "qdelay_ms"), color="C1", lw=1.2, label="AQM delay (qdelay_ms)")
        if "target_delay_ms" in have:
            delay_ax.plot(
                *series(ts, q, "target_delay_ms"), color="C1", ls="--", lw=1, label="target (target_delay_ms)"
            )
        delay_ax.set_ylabel("AQM delay (ms)", color="C1")
        delay_ax.set_ylim(bottom=0)
        # one legend for both axes
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = delay_ax.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, fontsize="small", loc="upper right")
    else:
        capped_legend(ax, loc="upper right")
    ax.set_ylim(bottom=0)
    ax.set_title(title(tables, f"queue at {q}"))
    return fig


def _per_interval_fraction(t: Any, events: Any, arrivals: Any) -> tuple[Any, Any]:
    """Events per arrival in each sampling interval, from two cumulative counters; intervals
    where the counters restart (the end of the warm-up) or nothing arrived are left out."""
    d_events = np.diff(events)
    d_arrivals = np.diff(arrivals)
    ok = (d_arrivals > 0) & (d_events >= 0)
    return t[1:][ok], d_events[ok] / d_arrivals[ok]


def probability(tables: RunTables, ax: Axes | None = None, *, queue: str | None = None) -> Figure:
    """The AQM's drop/mark probability ``p`` at ``queue`` over time (and RED's curve value
    ``p_b``), with the drop and mark fractions measured in each sampling interval."""
    ts = tables.timeseries
    q = pick_queue(ts, queue, "arrivals")
    fig, ax = figure_and_axes(ax)
    have = variables_of(ts, q)
    if "p_b" in have:
        # RED's p jumps with its count correction; the curve's value is the readable trend
        ax.plot(*series(ts, q, "p_b"), color="C4", lw=1.4, label="curve probability (p_b)")
    if "p" in have:
        thin = "p_b" in have
        ax.plot(
            *series(ts, q, "p"),
            color="C0",
            lw=0.7 if thin else 1.2,
            alpha=0.6 if thin else 1.0,
            label="AQM probability (p)",
        )
    t, arrivals = series(ts, q, "arrivals")
    for var, color, label in (("drops", "C3", "drops per arrival"), ("marks", "C2", "marks per arrival")):
        if var in have:
            tt, frac = _per_interval_fraction(t, series(ts, q, var)[1], arrivals)
            if len(frac) and (var == "drops" or frac.any()):
                ax.plot(tt, frac, color=color, lw=0.8, drawstyle="steps-pre", label=f"measured {label}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("probability (0 to 1)")
    ax.set_ylim(bottom=0)
    mark_warmup(ax, tables.warmup_s)
    ax.grid(alpha=0.3)
    capped_legend(ax, loc="upper right")
    ax.set_title(title(tables, f"drop and mark probability at {q}"))
    return fig


def _flow_sources(ts: Any, variable: str, flows: list[int] | None, what: str) -> list[str]:
    sources = [s for s in sources_with(ts, variable) if flow_id(s) is not None]
    if not sources:
        raise PlotError(f"no per-flow {variable} in the time series ({what}): {FLOW_SAMPLING}")
    sources.sort(key=lambda s: flow_id(s) or 0)
    if flows is not None:
        wanted = {f"flow{f}" for f in flows}
        missing = sorted(wanted - set(sources))
        if missing:
            raise PlotError(f"no {variable} series for {', '.join(missing)}; flows with one: {len(sources)}")
        sources = [s for s in sources if s in wanted]
    return sources


def cwnd(tables: RunTables, ax: Axes | None = None, *, flows: list[int] | None = None, legend: int = 10) -> Figure:
    """Each TCP flow's congestion window over time (``flows``: ids of the flows table;
    default every TCP flow); the legend names the first ``legend`` flows."""
    ts = tables.timeseries
    sources = _flow_sources(ts, "cwnd", flows, "TCP flows record cwnd")
    labels = flow_labels(tables.flows)
    fig, ax = figure_and_axes(ax)
    lw = 1.0 if len(sources) <= 10 else 0.5
    data = per_source(ts, "cwnd")
    for s in sources:
        fid = flow_id(s)
        ax.plot(*data[s], lw=lw, label=labels.get(fid, s) if fid is not None else s)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (packets)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    legend_outside(ax, legend)
    ax.set_title(title(tables, f"congestion window, {len(sources)} TCP flow{'s' if len(sources) != 1 else ''}"))
    return fig


def throughput(
    tables: RunTables,
    ax: Axes | None = None,
    *,
    flows: list[int] | None = None,
    legend: int = 10,
    total: bool = True,
) -> Figure:
    """Each flow's throughput over time (Mb/s, bytes received per sampling interval: headers
    and duplicates included, as the flows table's throughput_bps), and the flows' sum
    (``total``). The intervals at the end of the warm-up, where the counters restart, are
    left out."""
    ts = tables.timeseries
    sources = _flow_sources(ts, "bytes_received", flows, "every flow records bytes_received")
    labels = flow_labels(tables.flows)
    fig, ax = figure_and_axes(ax)
    lw = 1.0 if len(sources) <= 10 else 0.5
    per_flow: list[tuple[str, Any, Any]] = []
    rates: dict[float, float] = {}
    data = per_source(ts, "bytes_received")
    for s in sources:
        t, b = data[s]
        dt, db = np.diff(t), np.diff(b)
        # The counter restarts at the end of the warm-up, counting only packets sent after
        # it: the interval across the restart and the one starting there (packets in flight
        # at the restart not counted) are left out.
        across = (t[:-1] <= tables.warmup_s + 1e-9) & (t[1:] > tables.warmup_s - 1e-9) & (tables.warmup_s > 0)
        ok = (dt > 0) & (db >= 0) & ~across
        tt, mbps = t[1:][ok], 8 * db[ok] / dt[ok] / 1e6
        per_flow.append((s, tt, mbps))
        for ti, r in zip(tt, mbps, strict=True):
            rates[float(ti)] = rates.get(float(ti), 0.0) + float(r)
    summed = total and len(sources) > 1
    if summed:
        # drawn first, so that it leads the legend a long list of flows is cut from
        tt = sorted(rates)
        ax.plot(tt, [rates[x] for x in tt], color="k", lw=1.4, drawstyle="steps-pre", label="all flows", zorder=3)
    for s, tt, mbps in per_flow:
        fid = flow_id(s)
        ax.plot(tt, mbps, lw=lw, drawstyle="steps-pre", label=labels.get(fid, s) if fid is not None else s)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    legend_outside(ax, legend + 1 if summed else legend)
    ax.set_title(title(tables, f"throughput per flow, {len(sources)} flow{'s' if len(sources) != 1 else ''}"))
    return fig
