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


def test_the_paper_non_gentle_baselines_are_the_default_and_gentle_ones_run_beside():
    """Issue 24, item 1: the paper's RED (Fig. 1, sec. II-A) marks every packet once avg passes
    max_th: red / ared are non-gentle in every QVARED experiment; the gentle ones (ns-2's
    default, the only baseline before) run as optional configurations beside them."""
    paper = load_paper(PAPER)
    for exp_id, names in (
        ("sources", ("red", "ared", "red_noecn", "ared_noecn")),
        ("avg_trace", ("ared",)),
        ("bias", ("red", "ared")),
        ("bias_many_flows", ("red", "ared")),
    ):
        exp = paper.experiment(exp_id)
        by_name = {c.name: c for c in exp.configurations}
        for name in names:
            conf = by_name[name]
            assert conf.aqm["gentle"] is False and not conf.optional, (exp_id, name)
            base, _, ecn = name.partition("_")
            gentle = by_name[f"{base}_gentle" + (f"_{ecn}" if ecn else "")]
            assert gentle.aqm["gentle"] is True and gentle.optional, (exp_id, gentle.name)
            # the same AQM otherwise
            assert {k: v for k, v in gentle.aqm.items() if k != "gentle"} == {
                k: v for k, v in conf.aqm.items() if k != "gentle"
            }


def test_reductions_are_given_against_both_baselines():
    """Issue 24, item 1: the drop reductions are computed against the non-gentle (the paper's)
    and the gentle baselines, from a synthetic runs table: QVARED 50 drops per point, RED 100,
    ARED 80, gentle RED 40, gentle ARED 50 -> 50 %, 37.5 %, -25 %, 0 %."""
    from types import SimpleNamespace

    from aqmlab.reproduce.companions.qvared import reductions

    drops = {"qvared": 50, "red": 100, "ared": 80, "red_gentle": 40, "ared_gentle": 50}
    rows = [
        {"config": c + sfx, "sources": n, "replication": r, "dropped_packets": d, "marked_packets": 0}
        for c, d in drops.items()
        for sfx in ("", "_noecn")
        for n in (10, 20)
        for r in (1, 2)
    ]
    ctx = SimpleNamespace(runs=pd.DataFrame(rows), exp=load_paper(PAPER).experiment("sources"))
    table, per = reductions(ctx)
    col = "ours % (dropped packets, summed over the sources axis)"
    got = {(r["baseline"].split(" ")[0], r["setting"].split(" ")[0], r["claim"]): r[col] for _, r in table.iterrows()}
    assert got[("non-gentle", "with", "drop rate reduction vs RED")] == pytest.approx(50.0)
    assert got[("non-gentle", "without", "drop rate reduction vs ARED")] == pytest.approx(37.5)
    assert got[("gentle", "with", "drop rate reduction vs RED")] == pytest.approx(-25.0)
    assert got[("gentle", "with", "drop rate reduction vs ARED")] == pytest.approx(0.0)
    assert len(table) == 2 * 2 * 4  # baselines x ECN settings x the paper's four numbers
    assert "drop reduction vs red_gentle %" in per.columns
