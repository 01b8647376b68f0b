"""Hybrid RED reproduction: every scenario builds and the engine accepts every AQM
configuration (0.1 s runs); a reduced quick run gives Tables I-II in the paper's layout."""

from __future__ import annotations

import copy
import math

import aqmlab
import pandas as pd
import pytest
from _reproduce_support import one_per_config
from aqmlab.reproduce import jobs
from aqmlab.reproduce.runner import reproduce_experiment
from aqmlab.reproduce.spec import load_paper

PAPER = "hybrid_red"


def _short(scen: dict) -> dict:
    s = copy.deepcopy(scen)
    s["duration"] = "0.1s"
    s["warmup"] = "0s"
    s.pop("sample_interval", None)
    for f in s.get("flows", []):
        if isinstance(f.get("start"), list):
            f["start"] = "0s"
    return s


@pytest.mark.parametrize("exp_id", list(load_paper(PAPER).experiments))
def test_every_scenario_builds_and_runs(exp_id):
    exp = load_paper(PAPER).experiment(exp_id)
    specs = jobs.build_jobs(exp)
    assert len(specs) == 3 + 5 * 7 + 2 * 7 + 2 * 7 + 1
    first = one_per_config(specs)
    for s in first:
        r = aqmlab.run(_short(s.scenario), seed=1)
        assert "queue.bottleneck.arrivals" in r.summary
    configs = {s.config for s in first}
    assert configs == {
        "red",
        "ared",
        "lpf_oda",
        "hybrid_red",
        "hybrid_red_every_theta",
        "hybrid_red_while_above_min_th",
        "lpf_oda_every_theta",
    }


@pytest.mark.parametrize("exp_id", ["topology1", "topology2"])
def test_the_three_readings_of_eq_10_run_side_by_side(exp_id):
    """Issue 24, item 3: the third reading (reduce at every low arrival while avg > min_th)
    runs beside the other two, at the same thetas and xis as the old one."""
    exp = load_paper(PAPER).experiment(exp_id)
    by_name = {c.name: c for c in exp.configurations}
    readings = {name: by_name[name].aqm["reduction"] for name in ("hybrid_red", "hybrid_red_every_theta")}
    third = by_name["hybrid_red_while_above_min_th"]
    assert readings == {"hybrid_red": "once_per_low_period", "hybrid_red_every_theta": "every_theta"}
    assert third.aqm["reduction"] == "while_above_min_th" and third.optional
    assert exp.points(third) == exp.points(by_name["hybrid_red_every_theta"])


def test_quick_table_has_paper_layout(tmp_path):
    o = reproduce_experiment(PAPER, "topology1", quick=True, replications=2, out=tmp_path, workers=2)
    t = pd.read_csv(o.dir / "table.csv")
    for m in ("utilization_pct", "loss_pct"):
        for col in (f"{m}:paper", f"{m}:ours", f"{m}:ci95", f"{m}:diff"):
            assert col in t.columns
    for e in (
        "utilization_err_pct:paper",
        "utilization_err_pct:ours_std",
        "loss_err_pct:paper",
        "loss_err_pct:ours_std",
    ):
        assert e in t.columns
    red = t[t["algorithm"] == "RED"].iloc[0]
    assert red["loss_pct:paper"] == 1.02 and math.isfinite(red["loss_pct:ours"])
    assert len(t[t["table"] == "Table II"]) == 3
    md = (o.dir / "table.md").read_text()
    assert "eta % paper" in md and "Delta delta ours (std)" in md
    figs = o.dir / "figures"
    for stem in ("fig15_loss_vs_xi", "fig16_utilization_vs_xi", "avg_traces"):
        assert (figs / f"{stem}.png").exists() and (figs / f"{stem}.svg").exists()
    # the three readings side by side (issue 24, item 3)
    side = pd.read_csv(o.dir / "readings.csv")
    assert {r.split(":")[0] for r in side["reading"]} == {
        "hybrid_red",
        "hybrid_red_every_theta",
        "hybrid_red_while_above_min_th",
    }
    assert set(side["theta"]) == {1, 3}
