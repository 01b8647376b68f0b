"""Issue 10 item 13: every reproduction figure is one a reader can use.

Driven by synthetic aggregated data built from each paper file (every configuration at every
one of its points, one row per point as :func:`aqmlab.reproduce.tables.aggregate` writes it), so
a configuration or a paper row added to a paper file is covered without touching this file.
Checks on the matplotlib Figure objects: at most MAX_LEGEND legend entries a panel, x and y
labels ending in "(unit)" (a categorical axis names its categories in its ticks), every Line2D
with a finite point, a configuration without any finite value not drawn (and named in a note),
and the paper's printed values drawn as markers wherever the paper file gives comparable ones.
"""

from __future__ import annotations

import math
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from aqmlab.reproduce import figures as F  # noqa: E402
from aqmlab.reproduce import runner  # noqa: E402
from aqmlab.reproduce.spec import known_papers, load_paper  # noqa: E402


def _sim_experiments():
    out = []
    for pid in known_papers():
        p = load_paper(pid)
        for eid in p.experiments:
            e = p.experiment(eid)
            if e.scenarios and e.configurations and not e.derived_from:
                out.append((pid, eid))
    return out


SIM = _sim_experiments()


def synthetic_agg(exp, seed: int = 1) -> tuple[pd.DataFrame, list[str]]:
    """One aggregated row per (configuration, point) with finite random means and CIs."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in exp.configurations:
        for pt in exp.points(c):
            try:
                sf = exp.scenario_file(pt).name
            except Exception:  # noqa: BLE001 - a point without a scenario mapping: name it anyway
                sf = "scenario.toml"
            row = {"config": c.name, "scenario_file": sf, **pt}
            for m in exp.metrics:
                row[m["name"]] = float(rng.uniform(1, 10))
                row[m["name"] + "_ci95"] = float(rng.uniform(0, 0.5))
                row[m["name"] + "_n"] = 3
            rows.append(row)
    agg = pd.DataFrame(rows)
    axes = [a for a in exp.axis_names if a in agg.columns]
    axes += [
        a
        for a in agg.columns
        if a not in axes
        and a not in ("config", "scenario_file")
        and not any(a == m["name"] or a.startswith(m["name"] + "_") for m in exp.metrics)
    ]
    return agg, axes


def _expected_marks(exp, metric: str) -> bool:
    return any(
        F.comparable(pv, metric) for pv in exp.paper_values if pv.get("config") in {c.name for c in exp.configurations}
    )


def _marks_drawn(fig) -> int:
    """Open (unfilled) markers and dotted lines: the paper's values."""
    n = 0
    for ax in fig.axes:
        for ln in ax.lines:
            if (
                ln.get_markerfacecolor() == "none"
                and ln.get_linestyle() in ("None", "none", "")
                and len(ln.get_xdata())
            ):
                n += len(ln.get_xdata())
            elif ln.get_linestyle() == ":" and ln.get_label().endswith(": paper"):
                n += 1
    return n


@pytest.mark.parametrize("pid,eid", SIM, ids=[f"{p}-{e}" for p, e in SIM])
def test_every_metric_figure_is_readable(pid, eid):
    exp = load_paper(pid).experiment(eid)
    agg, axes = synthetic_agg(exp)
    assert not agg.empty
    drawn = 0
    for m in exp.metrics:
        fig = F.metric_figure(exp, agg, axes, m["name"])
        assert fig is not None, m["name"]
        drawn += 1
        problems = F.audit(fig)
        assert problems == [], (m["name"], problems)
        for ax in fig.axes:
            if not ax.get_visible():
                continue
            leg = ax.get_legend()
            assert leg is None or len(leg.get_texts()) <= F.MAX_LEGEND
            assert F.UNIT_RE.search(ax.get_ylabel()), ax.get_ylabel()
            for ln in ax.lines:
                x = np.asarray(ln.get_xdata(), dtype=float)
                y = np.asarray(ln.get_ydata(), dtype=float)
                assert np.isfinite(x).any() and np.isfinite(y).any(), ln.get_label()
        if _expected_marks(exp, m["name"]):
            assert _marks_drawn(fig) > 0, f"{m['name']}: the paper gives values but none is drawn"
        plt.close(fig)
    assert drawn == len(exp.metrics)


@pytest.mark.parametrize("pid,eid", SIM, ids=[f"{p}-{e}" for p, e in SIM])
def test_every_comparable_paper_value_is_a_marker(pid, eid):
    """Each paper row tied to a configuration and to axis values we ran becomes one marker."""
    exp = load_paper(pid).experiment(eid)
    agg, axes = synthetic_agg(exp)
    for m in exp.metrics:
        plan = F.build_series(exp, agg, axes, m["name"])
        n_marks = sum(len(s.paper) for s in plan.series)
        if _expected_marks(exp, m["name"]):
            assert n_marks > 0, m["name"]


def test_series_without_finite_value_is_not_drawn_and_named():
    """The DSRED bug: a configuration whose metric is NaN everywhere drew an empty line."""
    exp = load_paper("dsred").experiment("table2")
    agg, axes = synthetic_agg(exp)
    agg.loc[agg["config"] == agg["config"].iloc[0], "queue_pkts"] = math.nan
    gone = agg["config"].iloc[0]
    fig = F.metric_figure(exp, agg, axes, "queue_pkts")
    labels = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    assert not any(lab.startswith(gone) for lab in labels)
    assert any(gone in t.get_text() and "Not drawn" in t.get_text() for t in fig.texts)
    assert F.audit(fig) == []
    plt.close(fig)


@pytest.mark.parametrize("pid,eid", SIM, ids=[f"{p}-{e}" for p, e in SIM])
def test_the_audit_after_saving_sees_what_a_fresh_draw_sees(pid, eid, tmp_path):
    # save() audits the figure its PNG just drew instead of drawing it once more; a
    # categorical axis (read from its tick labels) among them.
    exp = load_paper(pid).experiment(eid)
    agg, axes = synthetic_agg(exp)
    for m in exp.metrics[:1]:
        fig = F.metric_figure(exp, agg, axes, m["name"])
        fig.axes[0].set_xlabel("configuration")  # categorical when its ticks are words
        fig.savefig(tmp_path / "f.png", dpi=120, bbox_inches="tight")
        after_save = F.audit(fig, drawn=True)
        assert after_save == F.audit(fig), m["name"]
        plt.close(fig)


def test_audit_finds_each_problem():
    fig, ax = plt.subplots()
    for i in range(F.MAX_LEGEND + 1):
        ax.plot([0, 1], [i, i], label=f"s{i}")
    ax.plot([math.nan], [math.nan], label="empty")
    ax.set_xlabel("time")  # no unit
    ax.set_ylabel("queue (packets)")
    ax.legend()
    problems = F.audit(fig)
    assert any("legend has 10 entries" in p for p in problems)
    assert any("x axis label 'time' has no unit" in p for p in problems)
    assert any("'empty' has no finite point" in p for p in problems)
    assert not any("y axis" in p for p in problems)
    plt.close(fig)


def test_save_warns_on_a_bad_figure(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_xlabel("time")
    ax.set_ylabel("queue")
    with pytest.warns(F.FigureWarning, match="no unit"):
        F.save(fig, tmp_path, "bad")
    assert (tmp_path / "bad.png").exists()


def test_too_many_series_split_into_panels_along_an_axis():
    """13 series (3 configurations x 4 K, and DropTail) give one panel per K, each legend within MAX_LEGEND, the
    configurations without K repeated in every panel, a configuration's colour the same in
    every panel."""
    exp = load_paper("orange").experiment("table2")
    rows = []
    for k in (10, 15, 20, 25):
        for i, c in enumerate(("a", "b", "c")):
            for t in (1, 2, 5, 7, 10):
                rows.append(
                    {
                        "config": c,
                        "scenario_file": "s.toml",
                        "K": k,
                        "timer_ms": t,
                        "queue_pkts": k + i + t,
                        "queue_pkts_ci95": 0.1,
                    }
                )
    rows.append({"config": "droptail", "scenario_file": "s.toml", "queue_pkts": 50.0, "queue_pkts_ci95": 1.0})
    agg = pd.DataFrame(rows)
    plan = F.build_series(exp, agg, ["K", "timer_ms"], "queue_pkts")
    assert plan.x == "timer_ms" and plan.indep == ["K"]
    panels = F.panels_for(plan.series, plan.indep, max_legend=5)
    assert [p.title for p in panels] == ["K = 10", "K = 15", "K = 20", "K = 25"]
    assert all(p.legend_entries() <= 5 for p in panels)
    assert all(any(s.key["config"] == "droptail" for s in p.series) for p in panels)
    fig = F.metric_figure(exp, agg, ["K", "timer_ms"], "queue_pkts", max_legend=5)
    assert sum(ax.get_visible() for ax in fig.axes) == 4
    colours = {}
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        for h, t in zip(leg.legend_handles, leg.get_texts(), strict=True):
            colours.setdefault(t.get_text().split(" (")[0], set()).add(matplotlib.colors.to_hex(h.get_color()))
    assert all(len(v) == 1 for v in colours.values()), colours
    assert F.audit(fig) == []
    plt.close(fig)


def test_axis_label_units():
    exp = load_paper("dsred").experiment("table2")
    assert F.axis_label(exp, "queueing_delay_ms", "metric").endswith("(ms)")
    assert F.axis_label(exp, "load", "axis", categorical=True).endswith(")")
    assert F.pretty("queueing_delay_ms") == "queueing delay"


def test_companion_analytic_figures_pass_the_audit(tmp_path):
    """Analytic-only companions (cheap to run) save their figures without a FigureWarning."""
    for pid in known_papers():
        p = load_paper(pid)
        for eid in p.experiments:
            e = p.experiment(eid)
            if e.scenarios or e.derived_from or not e.analytic_only:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("error", F.FigureWarning)
                runner.reproduce_experiment(p, eid, quick=True, out=tmp_path, workers=1)


def test_log_y_when_paper_and_ours_are_far_apart():
    far = [F.Series(key={"config": "a"}, xs=[1, 2], ys=[250.0, 100.0], errs=[0, 0], paper=[F.PaperMark(x=1, y=3.0)])]
    near = [F.Series(key={"config": "a"}, xs=[1, 2], ys=[25.0, 10.0], errs=[0, 0], paper=[F.PaperMark(x=1, y=3.0)])]
    no_paper = [F.Series(key={"config": "a"}, xs=[1, 2], ys=[250.0, 1.0], errs=[0, 0])]
    with_zero = [
        F.Series(key={"config": "a"}, xs=[1, 2], ys=[250.0, 0.0], errs=[0, 0], paper=[F.PaperMark(x=1, y=3.0)])
    ]
    assert F.needs_log_y(far)
    assert not F.needs_log_y(near)  # 25 / 3 < 30
    assert not F.needs_log_y(no_paper)
    assert not F.needs_log_y(with_zero)
