"""The run function of reproduction sweeps: ``aqmlab.run(...).summary`` plus a few scalars
that need the per-flow table or the time series (the sweep stores only scalars).

Module-level, so it pickles into worker processes. Extra keys (prefix ``x.``):

* ``x.flows.packets_sent`` / ``x.flows.packets_received``: sums over all flows;
* ``x.flows.delay_ms``: mean end-to-end delay of delivered packets, weighted by each flow's
  delivered packets (``flows.mean_delay_ms.mean`` is an unweighted mean over flows);
* ``x.measured_s``: duration - warm-up (the measurement window);
* ``x.queue.<link>.in_system``: mean waiting + mean in transmission (= utilization);
* ``x.queue.<link>.drop_rate_pps``: drops / measured seconds;
* ``x.ts.<link>.queue_avg@<t>``: running time-average of the sampled queue length from the
  start of the series to time t (only when the scenario sets ``sample_interval``; at most
  200 sample times).
* ``x.ts.<link>.{mean_queue_packets,mean_delay_ms,drop_rate_pps}@<t>`` and
  ``x.ts.flows.normalized_throughput@<t>``: the simulator's running summaries sampled at t
  (time-average queue, mean sojourn and drops / (t - warm-up) of the monitored link since the
  measurement start; all flows' packets received / sent so far), e.g. the DSRED paper's values
  "at 88 s" and its Figs 19-22 (same limit of 200 sample times).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

MAX_SERIES_POINTS = 200


def extras(result: Any) -> dict[str, float]:
    # The flow and queue columns are read from the result's Arrow tables, not its pandas
    # frames: building those frames was most of this function's 5 ms a run (a Hybrid RED
    # run's loop takes 25 ms). numpy sums in the same order as pandas, so the values are
    # the same to the bit.
    import numpy as np

    out: dict[str, float] = {}
    flows = result.to_arrow("flows")
    measured = max(result.duration_s - result.warmup_s, 1e-12)
    out["x.measured_s"] = measured
    if flows.num_rows:
        sent_n = flows.column("packets_sent").to_numpy()
        w = flows.column("packets_received").to_numpy()
        sent = float(sent_n.sum())
        recv = float(w.sum())
        out["x.flows.packets_sent"] = sent
        out["x.flows.packets_received"] = recv
        d = flows.column("mean_delay_ms").to_numpy(zero_copy_only=False).astype(float)
        ok = ~np.isnan(d) & (w > 0)
        out["x.flows.delay_ms"] = float((d[ok] * w[ok]).sum() / w[ok].sum()) if ok.any() else math.nan
        out["x.flows.normalized_throughput"] = recv / sent if sent > 0 else math.nan
    for q in result.to_arrow("queues").to_pylist():
        name = q["queue"]
        out[f"x.queue.{name}.in_system"] = float(q["mean_queue_packets"] + q["utilization"])
        out[f"x.queue.{name}.drop_rate_pps"] = float(q["drops"]) / measured
    if result.to_arrow("timeseries").num_rows:
        ts = result.timeseries
        qs = ts[ts["variable"] == "queue_packets"]
        for src, g in qs.groupby("source"):
            g = g.sort_values("time_s")
            t = g["time_s"].to_numpy()
            v = g["value"].to_numpy()
            if len(t) == 0 or len(t) > MAX_SERIES_POINTS:
                continue
            run = v.cumsum() / (1 + np.arange(len(v)))
            for ti, ri in zip(t, run, strict=True):
                out[f"x.ts.{src}.queue_avg@{ti:g}"] = float(ri)
        _running(ts, out, result.warmup_s)
    return out


RUNNING = ("mean_queue_packets", "mean_delay_ms")


def _running(ts: Any, out: dict[str, float], warmup_s: float) -> None:
    """The simulator's running summaries (sampled cumulative values) as ``x.ts.`` scalars."""
    for src, g in ts[ts["variable"].isin(RUNNING + ("drops",))].groupby("source"):
        for var, h in g.groupby("variable"):
            h = h.sort_values("time_s")
            if len(h) > MAX_SERIES_POINTS:
                continue
            for ti, v in zip(h["time_s"].to_numpy(), h["value"].to_numpy(), strict=True):
                if var == "drops":
                    span = ti - warmup_s
                    if span > 0:
                        out[f"x.ts.{src}.drop_rate_pps@{ti:g}"] = float(v) / span
                else:
                    out[f"x.ts.{src}.{var}@{ti:g}"] = float(v)
    f = ts[ts["source"] == "flows"]
    sent = f[f["variable"] == "packets_sent"].sort_values("time_s")
    recv = f[f["variable"] == "packets_received"].sort_values("time_s")
    if 0 < len(sent) <= MAX_SERIES_POINTS and len(sent) == len(recv):
        for ti, s_, r_ in zip(
            sent["time_s"].to_numpy(), sent["value"].to_numpy(), recv["value"].to_numpy(), strict=True
        ):
            if s_ > 0:
                out[f"x.ts.flows.normalized_throughput@{ti:g}"] = float(r_ / s_)


def run(scenario: dict[str, Any], seed: int) -> dict[str, Any]:
    """``aqmlab.run(scenario, seed).summary`` plus :func:`extras`."""
    import aqmlab

    return stored(aqmlab.run(scenario, seed=seed), scenario)


def stored(r: Any, scenario: Mapping[str, Any]) -> dict[str, Any]:
    """What a sweep stores of one run ``r`` of ``scenario``: its summary and :func:`extras`,
    the queue columns of the named links only (for run functions of their own to add to)."""
    keep = named_links(scenario)
    s = {k: v for k, v in r.summary.items() if not k.startswith("queue.") or k.split(".")[1] in keep}
    s.update({k: v for k, v in extras(r).items() if not k.startswith("x.queue.") or k.split(".")[2] in keep})
    return s


def named_links(scenario: Mapping[str, Any]) -> set[str]:
    """Queues whose columns are stored: graph links with a ``name`` and a dumbbell's
    bottleneck. (Stored runs with thousands of columns, e.g. one per access link of a
    60-flow graph, make the Parquet store slow to read.)"""
    topo = scenario.get("topology", {})
    if topo.get("kind") == "graph":
        names = {lk["name"] for lk in topo.get("links", []) if lk.get("name")}
    else:
        names = {"bottleneck"}
    return names | {"bottleneck"}
