"""Reproduction runs in quick mode: Orange section 4 vs the exact CTMC, tables, CLI errors."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from aqmlab.reproduce.runner import reproduce_experiment


@pytest.fixture(scope="module")
def sec4(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro")
    return reproduce_experiment("orange", "sec4_mm2", quick=True, out=out, workers=2)


def test_orange_sec4_agrees_with_exact_ctmc(sec4):
    cmp = sec4.extra["comparison"]
    for q in ("mean_waiting_pkts", "mean_in_system_pkts"):
        for _, r in cmp[cmp["quantity"] == q].iterrows():
            assert r["n"] >= 3
            assert math.isfinite(r["sim_ci95"])
            assert abs(r["sim_mean"] - r["ctmc"]) <= r["sim_ci95"], (
                r["config"],
                q,
                r["sim_mean"],
                r["ctmc"],
                r["sim_ci95"],
            )
            # and it is not a vacuous check: the CI is narrow relative to the value
            assert r["sim_ci95"] < 0.1 * r["ctmc"]
    assert sec4.extra["all_within_ci"]


def test_table_has_paper_columns(sec4):
    t = pd.read_csv(sec4.dir / "table.csv")
    for m in ("sent_packets", "arrived_router", "arrived_destination", "delay_ms", "mean_queue_pkts"):
        for suffix in ("paper", "ours", "ci95", "diff"):
            assert f"{m}:{suffix}" in t.columns
    row = t[t["config"] == "orange_k14"].iloc[0]
    assert row["mean_queue_pkts:paper"] == 9.04
    assert math.isfinite(row["mean_queue_pkts:ours"])
    md = (sec4.dir / "table.md").read_text()
    assert "mean_queue_pkts (paper)" in md and "mean_queue_pkts (ours ± CI95)" in md
    notes = (sec4.dir / "notes.md").read_text()
    assert "What --quick changed" in notes and "Gaps" in notes
    assert (sec4.dir / "figures" / "sec4_sim_vs_models.png").exists()
    assert (sec4.dir / "figures" / "sec4_sim_vs_models.svg").exists()


def test_resume_runs_nothing_new(sec4, tmp_path):
    again = reproduce_experiment("orange", "sec4_mm2", quick=True, out=sec4.dir.parent, workers=1)
    assert again.n_runs == sec4.n_runs
    assert len(again.runs) == len(sec4.runs)


def test_dsred_fig5_analytic(tmp_path):
    o = reproduce_experiment("dsred", "fig5", out=tmp_path)
    assert o.extra["monotone"] and o.extra["gamma_order"]
    assert (o.dir / "figures" / "fig5_PD_vs_rho.svg").exists()
    t = pd.read_csv(o.dir / "table.csv")
    assert "P_D gamma=0.96" in t.columns


def test_cli_unknown_names():
    from aqmlab.cli import app
    from typer.testing import CliRunner

    r = CliRunner().invoke(app, ["reproduce", "nope"])
    assert r.exit_code == 2
    r = CliRunner().invoke(app, ["reproduce", "orange", "nope"])
    assert r.exit_code == 2
