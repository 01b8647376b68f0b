"""heistp/sce-l4s-bakeoff (issue 38): the run function of its L4S side.

The README publishes no tables: a few numbers read off its plots ("~", "about"), which the paper
file reads from the transcription as approximate paper values. ``run_bakeoff`` measures what they
are about, from 100 ms samples (the source's step): each flow's goodput over 10-60 s (a single
flow's too) and their ratio; each flow's srtt spike after flow 2 starts (its height above the flow's least srtt, and
the width at half that height); the convergence time (from 10 s until the two flows' 1 s goodputs
stay within 1.5x of each other for 5 s; NaN when they never do); a single flow's median srtt
over 20-60 s above its least.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from ..runfn import stored
from .l4s_tests import _bps

FLOW2_START_S = 10.0
END_S = 60.0


def _series(ts: Any, source: str, variable: str) -> Any:
    f = ts[(ts["source"] == source) & (ts["variable"] == variable)]
    return f.set_index("time_s")["value"]


def forward_capacity_bps(scenario: dict[str, Any]) -> float:
    """The slowest link from the first flow's sender to its receiver along the chain (the graph's
    nodes in order): no goodput may exceed it."""
    nodes = scenario["topology"]["nodes"]
    order = {n: i for i, n in enumerate(nodes)}
    return min(_bps(lk["rate"]) for lk in scenario["topology"]["links"] if order[lk["to"]] > order[lk["from"]])


def bakeoff_metrics(r: Any, two_flows: bool, capacity_bps: float) -> dict[str, float]:
    ts = r.timeseries
    srtt1 = _series(ts, "flow0", "srtt_ms")
    got = [_series(ts, f"flow{i}", "bytes_received") for i in ((0, 1) if two_flows else (0,))]
    span = END_S - FLOW2_START_S
    mean = [float((g.asof(END_S) - g.asof(FLOW2_START_S)) * 8 / span) for g in got]
    assert 0 <= sum(mean) <= capacity_bps * 1.001, f"goodput {sum(mean)} above the {capacity_bps} b/s path"
    if not two_flows:
        return {
            "x.srtt_increase_ms": float(statistics.median(srtt1[srtt1.index >= 20]) - srtt1[srtt1 > 0].min()),
            "x.goodput1_mbps": mean[0] / 1e6,
        }
    out = {
        "x.goodput1_mbps": mean[0] / 1e6,
        "x.goodput2_mbps": mean[1] / 1e6,
        "x.ratio_2_to_1": mean[1] / mean[0] if mean[0] > 0 else math.inf,
    }
    for i in (0, 1):
        srtt = _series(ts, f"flow{i}", "srtt_ms")
        least = float(srtt[srtt > 0].min())
        after = srtt[srtt.index >= FLOW2_START_S]
        rise = float(after.max()) - least
        above = after[after > least + rise / 2]
        out[f"x.spike{i + 1}_ms"] = rise
        out[f"x.spike{i + 1}_s"] = float(above.index.max() - above.index.min()) if len(above) else 0.0
    seconds = [t / 10 for t in range(int(FLOW2_START_S * 10), int(END_S * 10) + 1, 10)]
    bins = [g.reindex(seconds, method="ffill").diff().iloc[1:] for g in got]
    ratios = [(b / a if a > 0 else math.inf) for a, b in zip(bins[0], bins[1], strict=True)]
    fair = [2 / 3 <= x <= 1.5 for x in ratios]
    out["x.convergence_s"] = next((float(i) for i in range(len(fair) - 4) if all(fair[i : i + 5])), math.nan)
    return out


def run_bakeoff(scenario: dict[str, Any], seed: int) -> dict[str, Any]:
    """The generic run's summary plus :func:`bakeoff_metrics`."""
    import aqmlab

    r = aqmlab.run(scenario, seed=seed)
    out = stored(r, scenario)
    out.update(bakeoff_metrics(r, len(scenario["flows"]) > 1, forward_capacity_bps(scenario)))
    return out
