"""NEWQUE reproduction: every scenario builds and runs (1.1 s); a quick dumbbell run gives
the per-point table and the claim checks."""

from __future__ import annotations

import pandas as pd
import pytest
from _reproduce_support import one_per_config, run_briefly
from aqmlab.reproduce import jobs
from aqmlab.reproduce.runner import reproduce_experiment
from aqmlab.reproduce.spec import load_paper

PAPER = "newque"


@pytest.mark.parametrize("exp_id", list(load_paper(PAPER).experiments))
def test_every_scenario_builds_and_runs(exp_id):
    exp = load_paper(PAPER).experiment(exp_id)
    specs = jobs.build_jobs(exp)
    assert len(specs) == 6 * 6
    first = one_per_config(specs)
    for s in first:
        r = run_briefly(s.scenario)
        link = exp.report_links[0]
        assert f"queue.{link}.arrivals" in r.summary
    assert {s.config for s in first} == {"newque", "newque_swapped", "blue", "red", "pi", "rem"}


def test_quick_dumbbell_table(tmp_path):
    o = reproduce_experiment(PAPER, "dumbbell_flows", quick=True, replications=1, out=tmp_path, workers=2)
    assert not o.failed
    t = pd.read_csv(o.dir / "table.csv")
    for m in ("mean_queue_pkts", "queueing_delay_s", "loss_pct", "utilization_pct"):
        assert f"{m}:ours" in t.columns and f"{m}:paper" in t.columns
    assert set(t["config"]) == {"newque", "newque_swapped", "blue", "red", "pi", "rem"}
    c = pd.read_csv(o.dir / "claims.csv")
    assert {"reading", "metric", "newque", "holds"} <= set(c.columns)
    assert set(c["reading"]) == {"newque", "newque_swapped"}
    assert (o.dir / "figures" / "loss_pct.png").exists()
