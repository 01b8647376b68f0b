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


def test_the_finish_in_its_own_process_carries_the_sweeps_failures_and_wall_time(tmp_path):
    from aqmlab.reproduce.runner import SweepDone, finish_experiment

    swept = SweepDone(n_runs=0, failed=["dsred/x|p=1: RuntimeError: boom"], wall_s=2.5)
    o = finish_experiment("dsred", "fig5", None, True, tmp_path, swept)
    assert o.failed == swept.failed
    assert o.wall_s >= 2.5
    assert o.runs.empty and o.extra == {}  # the frames stay in the files
    notes = (o.dir / "notes.md").read_text()
    assert "## Failed runs" in notes and "RuntimeError: boom" in notes


def test_cli_pipelined_reproduction_writes_what_the_serial_one_does(tmp_path):
    # workers=2: runs in a pool, the table and figures in the finisher process; workers=1: all
    # in this process. The table is the same file, byte for byte.
    from aqmlab.reproduce.cli import reproduce_command

    for workers in (2, 1):
        assert reproduce_command("dsred", "rtt", None, True, tmp_path / f"w{workers}", workers) == 0
    for name in ("table.csv", "table.md"):
        assert (tmp_path / "w2" / "rtt" / name).read_bytes() == (tmp_path / "w1" / "rtt" / name).read_bytes()
    # quick: 4 configurations x 2 loads (greedy, requests; issue 24) x 2 replications
    assert "Runs: 16." in (tmp_path / "w2" / "rtt" / "notes.md").read_text()
