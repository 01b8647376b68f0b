"""Plots (issue 27, item 4): every kind drawn to PNG with the Agg backend, with a legend where
there is more than one line and units on its axes; errors naming the valid kinds or what to
enable; ``aqmlab plot`` on a saved run and on a sweep; ``aqmlab compare --plot``."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")

import aqmlab  # noqa: E402
from aqmlab.cli import app  # noqa: E402
from aqmlab.plot import KINDS, PlotError, plot_result, sweep_figure  # noqa: E402
from aqmlab.plot._common import capped_legend, figure_and_axes  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))

runner = CliRunner()

SCENARIO = """
name = "plot-test"
duration = "4s"
warmup = "1s"
{sampling}
[topology]
kind = "dumbbell"
senders = 3
bottleneck = {{ rate = "10Mbps", delay = "10ms", queue = {{ limit = 100, aqm = {aqm} }} }}
access = {{ rate = "100Mbps", delay = ["1ms", "5ms", "9ms"] }}
[tcp]
variant = "sack"
ecn = true
[[flows]]
kind = "tcp"
from = "senders"
to = "receivers"
[[flows]]
kind = "cbr"
from = "s0"
to = "d0"
rate = "1Mbps"
packet_size = "1000B"
"""
SAMPLED = 'sample_interval = "100ms"\nsample_flows = true'
UNIT = re.compile(r"\(.+\)")


def run(tmp_path: Path, aqm: str, sampling: str = SAMPLED) -> aqmlab.Result:
    p = tmp_path / "scenario.toml"
    p.write_text(SCENARIO.format(aqm=aqm, sampling=sampling))
    return aqmlab.run(p, seed=1)


@pytest.fixture(scope="module")
def red(tmp_path_factory: pytest.TempPathFactory) -> aqmlab.Result:
    return run(tmp_path_factory.mktemp("red"), '{ kind = "red", ecn = true, min_th = 5, max_th = 15 }')


@pytest.fixture(scope="module")
def pie(tmp_path_factory: pytest.TempPathFactory) -> aqmlab.Result:
    return run(tmp_path_factory.mktemp("pie"), '"pie"')


def check_figure(fig: Any, path: Path) -> None:
    """Written to a non-empty PNG; every panel has labelled axes with units, and a legend when
    it draws more than one line."""
    fig.savefig(path, dpi=60)
    assert path.stat().st_size > 1000
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    main = [ax for ax in fig.axes if ax.get_xlabel()]
    assert main, "no labelled axes"
    for ax in main:
        assert UNIT.search(ax.get_xlabel()), ax.get_xlabel()
        assert UNIT.search(ax.get_ylabel()), ax.get_ylabel()
        assert ax.get_title() or fig.get_suptitle()
        lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
        if len(lines) + len(ax.collections) > 1:
            assert ax.get_legend() is not None, ax.get_title()


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "fct"])
def test_every_kind_of_a_sampled_run_draws(red: aqmlab.Result, kind: str, tmp_path: Path) -> None:
    fig = red.plot(kind)
    check_figure(fig, tmp_path / f"{kind}.png")


def test_the_queue_plot_shows_the_aqm_average_and_the_probability_its_p(red: aqmlab.Result) -> None:
    labels = [ln.get_label() for ln in red.plot("queue").axes[0].get_lines()]
    assert "queue" in labels and "AQM average (avg_packets)" in labels
    labels = [ln.get_label() for ln in red.plot("probability").axes[0].get_lines()]
    assert "AQM probability (p)" in labels and "measured drops per arrival" in labels


def test_a_delay_based_aqm_shows_its_delay_and_target(pie: aqmlab.Result, tmp_path: Path) -> None:
    fig = pie.plot("queue")
    check_figure(fig, tmp_path / "pie.png")
    twin = fig.axes[1]
    assert twin.get_ylabel() == "AQM delay (ms)"
    assert {ln.get_label() for ln in twin.get_lines()} == {"AQM delay (qdelay_ms)", "target (target_delay_ms)"}


def test_throughput_per_flow_adds_up_to_the_flows_table(red: aqmlab.Result) -> None:
    ax = red.plot("throughput").axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    assert "all flows" in lines and len(lines) == 1 + red.n_flows
    # mean over the measurement window of the summed series = the table's throughput
    t, y = lines["all flows"].get_data()
    inside = np.asarray(t) > red.warmup_s + 0.1
    measured = float(np.mean(np.asarray(y)[inside])) * 1e6
    table = float(red.flows["throughput_bps"].sum())
    assert measured == pytest.approx(table, rel=0.05)


def test_the_delay_cdf_reaches_one_at_the_largest_delay(red: aqmlab.Result) -> None:
    h = red.queue_delays
    assert set(h.columns) == {"queue", "delay_low_ms", "delay_high_ms", "packets"}
    b = h[h["queue"] == "bottleneck"]
    q = red.queue("bottleneck")
    # packets enqueued inside the window, counted when their transmission ends
    assert 0.9 * q["departures"] < b["packets"].sum() <= q["departures"] + q["backlog_at_start"]
    ax = red.plot("delay_cdf").axes[0]
    x, y = ax.get_lines()[0].get_data()
    assert y[-1] == pytest.approx(1.0) and x[-1] >= float(q["p99_delay_ms"])


def test_the_legend_of_many_flows_is_capped() -> None:
    fig, ax = figure_and_axes(None)
    for i in range(25):
        ax.plot([0, 1], [i, i], label=f"flow {i}")
    capped_legend(ax, 10)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(texts) == 11 and texts[-1] == "... 15 more"


def fake_run(fct: pd.DataFrame | None) -> Any:
    empty = pd.DataFrame(columns=["time_s", "source", "variable", "value"])
    return SimpleNamespace(
        name="synthetic", warmup_s=0.0, timeseries=empty, flows=pd.DataFrame(), queue_delays=pd.DataFrame(), fct=fct
    )


def synthetic_fct(n: int = 400) -> pd.DataFrame:
    """An FCT table of the contract (COMMON.md): flow, group, size_bytes, start_s, fct_s,
    completed, slowdown."""
    rng = np.random.default_rng(3)
    size = np.round(rng.pareto(1.2, n) * 5000 + 1000)
    completed = rng.random(n) > 0.05
    fct = 0.02 + size * 8 / 10e6 * (1 + rng.random(n))
    ideal = 0.02 + size * 8 / 10e6
    return pd.DataFrame(
        {
            "flow": np.arange(n),
            "group": "web",
            "size_bytes": size.astype("int64"),
            "start_s": np.sort(rng.random(n) * 10),
            "fct_s": np.where(completed, fct, np.nan),
            "completed": completed,
            "slowdown": np.where(completed, fct / ideal, np.nan),
        }
    )


@pytest.mark.parametrize("slowdown", [False, True])
def test_fct_against_size_from_the_contract_table(slowdown: bool, tmp_path: Path) -> None:
    fct = synthetic_fct()
    fig = plot_result(fake_run(fct), "fct", slowdown=slowdown)
    check_figure(fig, tmp_path / "fct.png")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert f"completed ({int(fct['completed'].sum()):,})" in texts
    assert f"not completed: {int((~fct['completed']).sum()):,}" in texts


def test_fct_of_a_real_run(tmp_path: Path) -> None:
    if not hasattr(aqmlab.Result, "fct"):
        pytest.skip("Result.fct (the workloads' FCT table) is not in this build yet")
    p = tmp_path / "fct.toml"
    text = SCENARIO.format(aqm='"fq_codel"', sampling="").replace(
        'kind = "tcp"\nfrom = "senders"', 'kind = "tcp"\nsize = "200KB"\nfrom = "senders"'
    )
    p.write_text(text)
    r = aqmlab.run(p, seed=1)
    assert len(r.fct) == 3  # one row per finite-size TCP transfer
    check_figure(r.plot("fct"), tmp_path / "fct.png")


def test_an_unknown_kind_lists_the_valid_ones(red: aqmlab.Result) -> None:
    with pytest.raises(PlotError, match=r"no plot kind 'cwdn' \(did you mean 'cwnd'\?\); kinds: queue, probability"):
        red.plot("cwdn")


def test_missing_data_names_what_to_enable(tmp_path: Path) -> None:
    unsampled = run(tmp_path, '"red"', sampling="")
    with pytest.raises(PlotError, match="sample_interval"):
        unsampled.plot("queue")
    for kind in ("cwnd", "throughput"):
        with pytest.raises(PlotError, match="sample_flows = true"):
            unsampled.plot(kind)
    with pytest.raises(PlotError, match="finite-size TCP transfer"):
        plot_result(fake_run(None), "fct")
    with pytest.raises(PlotError, match="monitor = true"):
        plot_result(fake_run(None), "delay_cdf")
    # the delay histogram needs no sampling
    assert len(unsampled.queue_delays) > 0 and unsampled.plot("delay_cdf") is not None


def test_aqmlab_plot_on_a_saved_run(red: aqmlab.Result, tmp_path: Path) -> None:
    d = tmp_path / "run"
    red.to_parquet(d)
    r = runner.invoke(app, ["plot", str(d)])
    assert r.exit_code == 0, r.output
    written = {Path(x).name for x in r.stdout.split()}
    assert written == {f"{k}.png" for k in KINDS if k != "fct"}
    assert "skipped fct" in r.stderr
    out = tmp_path / "cwnd.png"
    r = runner.invoke(app, ["plot", str(d), "--kind", "cwnd", "--flow", "0", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert out.stat().st_size > 1000
    r = runner.invoke(app, ["plot", str(d), "--kind", "nope"])
    assert r.exit_code == 2
    assert r.stderr.startswith("error: no plot kind 'nope'") and "kinds: queue" in r.stderr
    # a saved CSV run reads the same
    c = tmp_path / "csv"
    red.to_csv(c)
    r = runner.invoke(app, ["plot", str(c), "--kind", "queue", "--out", str(tmp_path / "q.png")])
    assert r.exit_code == 0, r.output


def test_aqmlab_plot_names_what_a_saved_run_lacks(tmp_path: Path) -> None:
    d = tmp_path / "run"
    run(tmp_path, '"red"', sampling="").to_csv(d)
    r = runner.invoke(app, ["plot", str(d), "--kind", "cwnd"])
    assert r.exit_code == 2 and "sample_flows = true" in r.stderr


def tidy_sweep() -> pd.DataFrame:
    rows = []
    for aqm, scale in (("red", 1.0), ("pie", 0.6)):
        for max_p in (0.02, 0.1, 0.5):
            m = scale * (10 + 20 * max_p)
            rows.append(
                {
                    "aqm": aqm,
                    "bottleneck.queue.aqm.max_p": max_p,
                    "metric": "queue.bottleneck.mean_delay_ms",
                    "mean": m,
                    "std": 1.0,
                    "n": 5,
                    "ci95_low": m - 1.2,
                    "ci95_high": m + 1.2,
                    "ci95_half_width": 1.2,
                }
            )
    return pd.DataFrame(rows)


def test_a_sweep_metric_against_a_parameter_with_ci_bands(tmp_path: Path) -> None:
    fig = sweep_figure(tidy_sweep(), "bottleneck.queue.aqm.max_p", "queue.bottleneck.mean_delay_ms")
    check_figure(fig, tmp_path / "sweep.png")
    ax = fig.axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == ["aqm = red", "aqm = pie"]
    assert len(ax.collections) == 2  # one CI band per line
    assert ax.get_ylabel() == "queue.bottleneck.mean_delay_ms (ms)"
    with pytest.raises(PlotError, match=r"did you mean 'bottleneck.queue.aqm.max_p'"):
        sweep_figure(tidy_sweep(), "bottleneck.queue.aqm.maxp", "queue.bottleneck.mean_delay_ms")
    with pytest.raises(PlotError, match="is not a metric of the sweep"):
        sweep_figure(tidy_sweep(), "bottleneck.queue.aqm.max_p", "nope")


SWEEP = """
name = "plot-demo"
run_fn = "sweep_fake_engine:run"
replications = 3
metrics = ["jain_index", "events"]

[base]
duration_s = 1.0
topology = { senders = 2 }
bottleneck = { rate_mbps = 10.0, queue = { aqm = { type = "red", max_th = 5 } } }
flows = [{ kind = "tcp", count = 1 }]

[grid]
"bottleneck.queue.aqm.max_th" = [5, 9, 13]
"""


def test_aqmlab_plot_on_a_sweep(tmp_path: Path) -> None:
    from aqmlab.sweep.cli import sweep_command
    from rich.console import Console

    f = tmp_path / "sweep.toml"
    f.write_text(SWEEP)
    store = tmp_path / "store"
    console = Console(file=io.StringIO(), width=200)
    assert sweep_command(f, workers=1, out=store, console=console) == 0
    out = tmp_path / "events.png"
    r = runner.invoke(
        app, ["plot", str(store), "--x", "bottleneck.queue.aqm.max_th", "--y", "events", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert out.stat().st_size > 1000
    r = runner.invoke(app, ["plot", str(store)])
    assert r.exit_code == 2 and "--x PARAM --y METRIC" in r.stderr
    r = runner.invoke(app, ["plot", str(store), "--x", "max_th", "--y", "events"])
    assert r.exit_code == 2 and "parameters: bottleneck.queue.aqm.max_th" in r.stderr


def test_compare_plot(tmp_path: Path) -> None:
    out = tmp_path / "compare.png"
    r = runner.invoke(app, ["compare", "--duration", "2", "--aqm", "red", "--aqm", "pie", "-q", "--plot", str(out)])
    assert r.exit_code == 0, r.output
    assert out.stat().st_size > 1000
