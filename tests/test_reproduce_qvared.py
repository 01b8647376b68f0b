"""QVARED reproduction: scenarios build and run (0.1 s), the bias measure on a synthetic
per-flow table, and a quick bias run through the per-flow run function."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from _reproduce_support import one_per_config, run_briefly
from aqmlab.reproduce import jobs
from aqmlab.reproduce.companions.qvared import bias_from_flows
from aqmlab.reproduce.runner import reproduce_experiment
from aqmlab.reproduce.spec import load_paper

PAPER = "qvared"


@pytest.mark.parametrize("exp_id", list(load_paper(PAPER).experiments))
def test_every_scenario_builds_and_runs(exp_id):
    exp = load_paper(PAPER).experiment(exp_id)
    specs = jobs.build_jobs(exp)
    assert specs
    first = one_per_config(specs)
    for s in first:
        run_briefly(s.scenario)
    assert {s.config for s in first} == {c.name for c in exp.configurations}


def test_bias_on_synthetic_flows():
    flows = pd.DataFrame(
        {
            "group": ["ftp"] * 4 + ["bursty"],
            "goodput_bps": [2e6, 2e6, 2e6, 2e6, 1e6],
            "drops": [10, 10, 10, 10, 20],
            "marks_received": [0, 0, 0, 0, 0],
            "packets_received": [1000, 1000, 1000, 1000, 1000],
        }
    )
    b = bias_from_flows(flows)
    # the paper's ratio: fair rate 9e6 / 5 = 1.8e6; bursty actual 1e6 -> 1/1.8 = 5/9
    assert b["x.bias"] == pytest.approx(5 / 9)
    # F&J: bursty 20/60 of the signals, 1/5 of the packets -> (1/3)/(1/5) = 5/3
    assert b["x.bias_fj"] == pytest.approx(5 / 3)
    flows["goodput_bps"] = 2e6
    flows["drops"] = [10, 10, 10, 10, 5]
    flows["marks_received"] = [0, 0, 0, 0, 5]
    b = bias_from_flows(flows)
    assert b["x.bias"] == pytest.approx(1.0) and b["x.bias_fj"] == pytest.approx(1.0)
    flows["drops"] = 0
    flows["marks_received"] = 0
    b = bias_from_flows(flows)
    assert math.isnan(b["x.bias_fj"]) and b["x.bias"] == pytest.approx(1.0)


def test_quick_bias_run(tmp_path):
    o = reproduce_experiment(PAPER, "bias", quick=True, replications=1, out=tmp_path, workers=2)
    assert not o.failed
    assert "bias" in o.runs.columns and o.runs["bias"].notna().any()
    t = pd.read_csv(o.dir / "table.csv")
    assert {"row", "paper", "ours"} <= set(t.columns)
    q = t[t["row"].str.startswith("qvared")].iloc[0]
    assert float(q["paper"]) == 0.871
    assert (o.dir / "figures" / "bias.svg").exists()
