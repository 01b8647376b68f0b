"""heistp/l4s-tests (issue 38): the rate step's run function, and how close each table lands.

Scenario 2 publishes no table (its plots are on a server outside the repository); its README
states a few numbers in words, which the paper file holds as claims and one paper value (the
maximum TCP RTT of Prague through fq_codel after 50 -> 1 Mbit/s at 80 ms). ``run_rate_step``
measures what those words are about, from the flow's sampled srtt (flent's TCP RTT is ss's rtt,
the same srtt) and its bytes received every 50 ms (flent's step).

Scenarios 1 and 6 publish D_SS per flow; the hooks add how far flow 1's share of the two lands
from the published share, per qdisc: the agreement docs/validation.md quotes.
"""

from __future__ import annotations

import statistics
from typing import Any

import pandas as pd

from ..jobs import _secs
from ..runfn import stored
from ..tables import df_markdown
from .base import CompanionOutput, Context, hook

#: A share within this of the published share counts as agreeing (docs/validation.md).
SHARE_TOLERANCE = 0.05

#: Bytes per packet on the wire in the source's runs (1448 payload, 52 of headers).
PACKET = 1500


def tc_red(limit_bytes: int, avpkt: int = 1000) -> dict[str, Any]:
    """iproute2's red defaults for ``red limit B avpkt 1000 adaptive ... ecn`` (tc/q_red.c:
    max = limit / 4, min = max / 3, burst = (2 min + max) / (3 avpkt), probability 0.02;
    tc/tc_red.c tc_red_eval_ewma: the first Wlog with (1 - (1 - W)^burst) / W >= burst + 1 -
    min / avpkt) as aqmlab's ared in packets of :data:`PACKET` bytes, with Linux's readings
    (no gentle region, marks with probability 1 in the early region, no wait, no idle decay
    under htb, no short-queue exemption, max_p's bounds inclusive). The paper file's
    ``red_*`` configurations are these values (tests/test_l4s_tests.py checks)."""
    qmax = limit_bytes // 4
    qmin = qmax // 3
    burst = (2 * qmin + qmax) // (3 * avpkt)
    a = burst + 1 - qmin / avpkt
    wlog = next(w for w in range(1, 32) if a <= (1 - (1 - 2.0**-w) ** burst) / 2.0**-w)
    return {
        "kind": "ared",
        "min_th": qmin / PACKET,
        "max_th": qmax / PACKET,
        "max_p": 0.02,
        "w_q": 2.0**-wlog,
        "gentle": False,
        "ecn": True,
        "mark_p": 1.0,
        "wait": False,
        "idle_decay": False,
        "short_queue_exempt": False,
        "bounds": "inclusive",
    }


def rate_step_metrics(r: Any, step_at_s: float, rate_before_bps: float, rate_after_bps: float) -> dict[str, float]:
    """The step's effect on the run's one flow: srtt before (median over the 10 s before the
    step), the largest srtt after it, the spike's duration (from the step to the last sample
    above 1.5 x that median: the source reads its durations off the plots) and the link's
    utilisation over the 10 s before and the 20 s from 10 s after the step."""
    ts = r.timeseries
    f = ts[ts["source"] == "flow0"]
    srtt = f[f["variable"] == "srtt_ms"].set_index("time_s")["value"]
    got = f[f["variable"] == "bytes_received"].set_index("time_s")["value"]

    def rate(t0: float, t1: float) -> float:
        return float((got.asof(t1) - got.asof(t0)) * 8 / (t1 - t0))

    before = statistics.median(srtt[(srtt.index >= step_at_s - 10) & (srtt.index < step_at_s)])
    after = srtt[srtt.index >= step_at_s]
    above = after[after > 1.5 * before]
    util_before = rate(step_at_s - 10, step_at_s) / rate_before_bps
    util_after = rate(step_at_s + 10, step_at_s + 30) / rate_after_bps
    # Bytes count when a packet's last bit arrives, so a window can hold up to one packet more
    # than the link carried in it: the estimate is at most one packet over 1, and that much is
    # the estimator's (reported as 1); more would be a fault.
    one_packet = PACKET * 8 / (rate_after_bps * 10)
    for u in (util_before, util_after):
        assert 0 <= u <= 1 + one_packet, f"utilisation {u} outside [0, 1]"
    util_before, util_after = min(util_before, 1.0), min(util_after, 1.0)
    return {
        "x.srtt_before_ms": float(before),
        "x.max_srtt_after_ms": float(after.max()),
        "x.spike_s": float(above.index.max() - step_at_s) if len(above) else 0.0,
        "x.utilization_before": util_before,
        "x.utilization_after": util_after,
    }


def _bps(rate: str) -> float:
    for unit, f in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3), ("bps", 1.0)):
        if rate.endswith(unit):
            return float(rate[: -len(unit)]) * f
    raise ValueError(f"rate {rate!r}: no unit")


def run_rate_step(scenario: dict[str, Any], seed: int) -> dict[str, Any]:
    """The generic run's summary plus :func:`rate_step_metrics`, the step being the scenario's
    first event (a bottleneck rate change)."""
    import aqmlab

    r = aqmlab.run(scenario, seed=seed)
    out = stored(r, scenario)
    step = scenario["events"][0]
    before = _bps(scenario["topology"]["bottleneck"]["rate"])
    out.update(rate_step_metrics(r, _secs(step["at"]), before, _bps(step["rate"])))
    return out


def share_agreement(ctx: Context, group_by: str) -> CompanionOutput:
    """Per ``group_by`` value (the qdisc): in how many published rows flow 1's share of the two
    D_SS lands within :data:`SHARE_TOLERANCE` of the published share, and the largest gap."""
    rows = []
    agg = ctx.agg
    if agg.empty:
        return CompanionOutput()
    axes = [a for a in ctx.axes if a in agg.columns]
    for pv in ctx.exp.paper_values:
        sel = agg["config"] == pv["config"]
        for a in axes:
            if a in pv:
                sel &= agg[a] == pv[a]
        hit = agg[sel]
        if hit.empty:
            continue
        ours = float(hit.iloc[0]["share1"])
        published = pv["dss1_mbps"] / (pv["dss1_mbps"] + pv["dss2_mbps"])
        rows.append({group_by: pv[group_by] if group_by in pv else pv["config"], "gap": abs(ours - published)})
    if not rows:
        return CompanionOutput()
    df = pd.DataFrame(rows)
    summary = (
        df.groupby(group_by, sort=False)["gap"]
        .agg(rows="count", within=lambda g: int((g <= SHARE_TOLERANCE).sum()), largest_gap="max")
        .reset_index()
    )
    total_within = int((df["gap"] <= SHARE_TOLERANCE).sum())
    md = [
        "## Agreement: flow 1's share of the two flows",
        "",
        f"Flow 1's share D_SS1 / (D_SS1 + D_SS2), ours (the mean over the runs of Prague as the "
        f"source ran it, prague_reading = v0.5) against the published: within {SHARE_TOLERANCE} in **{total_within} of "
        f"{len(df)}** published rows run.",
        "",
        df_markdown(summary),
    ]
    return CompanionOutput(markdown="\n".join(md), values={"within": total_within, "rows": len(df)})


@hook("l4s_tests", "s1_rtt_fairness")
def s1(ctx: Context) -> CompanionOutput:
    return share_agreement(ctx, "config")


@hook("l4s_tests", "s6_rfc3168_aqms")
def s6(ctx: Context) -> CompanionOutput:
    return share_agreement(ctx, "config")
