"""The AQM league (aqmlab.league): builds, runs small, and says the right words."""

from __future__ import annotations

import math

import aqmlab
import pandas as pd
from aqmlab import league as L

# ---------------------------------------------------------------------------- build checks


def test_every_scenario_and_aqm_builds_and_runs_briefly():
    plans = L.plan()
    assert [p.spec.id for p in plans] == ["orange", "newque", "hybrid_red", "qvared", "dsred"]
    names = {a.name for a in L.registry()}
    assert len(names) == len(aqmlab.aqms())  # every AQM of the registry
    for p in plans:
        assert set(p.configs) == names
        for aqm in p.configs:
            s = L.smoke_scenario(p.scenario_for(aqm), 0.1)
            out = L.league_run(s, 1, p.spec.exclude_groups)
            for key in L.SUMMARY_KEYS:
                assert key in out, (p.spec.id, aqm, key)


def test_quick_scenarios_build():
    for p in L.plan(quick=True):
        s = p.scenario_for("droptail")
        assert L.seconds(s["duration"]) <= 50
        aqmlab.validate_scenario(s)


def test_ecn_only_in_newque():
    plans = {p.spec.id: p for p in L.plan()}
    # the AQMs with an `ecn` switch: all but DropTail, FQ (which marks only above its
    # ce_threshold, unset here) and CAKE (which always marks ECT packets: no switch)
    with_ecn = {a.name for a in L.registry() if a.ecn}
    assert {a.name for a in L.registry()} - with_ecn == {"droptail", "fq", "cake"}
    for sid, p in plans.items():
        assert p.scenario["tcp"]["ecn"] is (sid == "newque")
        for aqm, (table, _) in p.configs.items():
            if sid == "newque" and aqm in with_ecn:
                assert table.get("ecn") is True, aqm
            else:
                assert "ecn" not in table, (sid, aqm)


def test_defaults_kept_unless_meaningless_for_the_buffer():
    plans = {p.spec.id: p for p in L.plan()}
    for sid, p in plans.items():
        for aqm, (table, note) in p.configs.items():
            if (sid, aqm) in {("hybrid_red", "qvared"), ("hybrid_red", "pi")}:
                assert note.startswith("scaled to buffer 50")
            else:
                assert note == "", (sid, aqm, note)
                assert set(table) <= {"kind", "ecn"}
    q = plans["hybrid_red"].configs["qvared"][0]
    assert (q["min_th"], q["med_th"], q["max_th"]) == (6.25, 15.625, 25.0)
    assert plans["hybrid_red"].configs["pi"][0]["q_ref"] == 12.5


def test_buffer_rules_for_small_buffers():
    tiny = {
        "topology": {
            "kind": "dumbbell",
            "senders": 1,
            "access": {"rate": "100Mbps", "delay": "1ms"},
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"limit": 6}},
        },
        "flows": [{"kind": "tcp", "from": "senders", "to": "receivers"}],
    }
    infos = {a.name: a for a in L.registry()}
    red, note = L.aqm_config(infos["red"], tiny, ecn=False)
    assert (red["min_th"], red["max_th"]) == (1.0, 3.0) and "RED family" in note  # default max_th 18.75 >= 6
    orange, _ = L.aqm_config(infos["orange"], tiny, ecn=False)
    assert orange == {"kind": "orange", "threshold": 1}
    codel, note = L.aqm_config(infos["codel"], tiny, ecn=True)
    assert codel == {"kind": "codel", "ecn": True} and note == ""


# ---------------------------------------------------------------------------- a tiny league

TINY = L.LeagueScenario(
    id="tiny",
    paper="Tiny",
    title="4 Reno flows, 10 Mb/s, buffer 60, 3 s",
    choice="test",
    base={
        "name": "tiny",
        "duration": "3s",
        "warmup": "0.5s",
        "topology": {
            "kind": "dumbbell",
            "senders": 4,
            "access": {"rate": "100Mbps", "delay": ["1ms", "5ms"]},
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"limit": 60, "aqm": "droptail"}},
        },
        "tcp": {"variant": "reno", "window": 64},
        "flows": [{"kind": "tcp", "from": "senders", "to": "receivers", "group": "ftp"}],
    },
)
TINY2 = L.LeagueScenario(
    id="tiny2", paper="Tiny 2", title="same, 2 s", choice="test", base={**TINY.base, "name": "tiny2", "duration": "2s"}
)


def test_quick_league_on_tiny_scenarios(tmp_path):
    aqms = ["droptail", "red", "codel", "pie"]
    tidy = L.run_league(tmp_path, replications=2, workers=1, aqms=aqms, scenarios=[TINY, TINY2], figures=True)
    assert set(tidy.columns) >= {
        "scenario",
        "aqm",
        "metric",
        "mean",
        "std",
        "n",
        "ci95_low",
        "ci95_high",
        "ci95_half_width",
        "params",
        "adjustment",
    }
    assert set(tidy["metric"]) == set(L.METRIC_COLUMNS)
    assert len(tidy) == 2 * len(aqms) * len(L.METRIC_COLUMNS)
    assert (tidy["n"] == 2).all()
    for name in ("league.md", "league.csv", "league.parquet", "league_tiny.png", "league_tiny.svg"):
        assert (tmp_path / name).exists(), name
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "league.parquet"), tidy)
    md = (tmp_path / "league.md").read_text()
    for label in [m[1] for m in L.METRICS]:
        assert label in md
    summary = md[md.index("## Summary") : md.index("## Scenarios")]
    for paper in ("**Tiny** (tiny)", "**Tiny 2** (tiny2)"):
        block = summary[summary.index(paper) :].split("\n\n")[0]
        assert "Lowest delay" in block or "No AQM reaches" in block
        assert "Best fairness" in block and "Loses most" in block
    assert "Across scenarios" in summary and "## Overall ranks" in md
    before = md
    (tmp_path / "league.md").write_text("")
    L.rerender(tmp_path, [TINY, TINY2])
    assert (tmp_path / "league.md").read_text() == before
    # Resumable: a second call reuses every stored run.
    again = L.run_league(tmp_path, replications=2, workers=1, aqms=aqms, scenarios=[TINY, TINY2], figures=False)
    pd.testing.assert_frame_equal(again, tidy)


def test_league_command_bad_input(tmp_path, capsys):
    assert L.league_command(tmp_path, aqms=["no_such_aqm"], workers=1) == 2
    assert "unknown AQM" in capsys.readouterr().err
    assert L.league_command(tmp_path, scenarios=["nope"], workers=1) == 2
    assert L.league_command(tmp_path, replications=0, workers=1) == 2


# ---------------------------------------------------------------------------- the words


def _row(aqm, util, delay, delay_hw, jain, jain_hw, loss, goodput=9.0, scenario="s"):
    r = {"scenario": scenario, "aqm": aqm, "adjustment": "", "n": 5}
    for m, v, hw in [
        ("utilization_pct", util, 0.5),
        ("delay_ms", delay, delay_hw),
        ("jain", jain, jain_hw),
        ("loss_pct", loss, 0.1),
        ("goodput_mbps", goodput, 0.1),
        ("p99_delay_ms", 3 * delay, 1.0),
        ("marks", 0.0, 0.0),
    ]:
        r[m], r[m + "_lo"], r[m + "_hi"], r[m + "_hw"] = v, v - hw, v + hw, hw
    return r


SYNTH = pd.DataFrame(
    [
        _row("fast_but_idle", 80.0, 1.0, 0.1, 0.90, 0.01, 0.5, goodput=7.0),  # lowest delay, but < 95%
        _row("winner", 97.0, 5.0, 0.5, 0.95, 0.01, 2.0),
        _row("tied", 99.0, 5.8, 0.5, 0.96, 0.01, 3.0),  # CI [5.3, 6.3] overlaps [4.5, 5.5]
        _row("slower", 99.5, 8.0, 0.5, 0.99, 0.002, 9.0),  # clearly slower; clearly fairest
        _row("bloat", 100.0, 50.0, 5.0, 0.97, 0.01, 1.0),
    ]
)


def test_summary_picks_winner_and_ties():
    s = L.scenario_sentences(SYNTH)
    text = "\n".join(s)
    assert s[0].startswith("Lowest delay at >= 95% utilization: **winner**, 5.00 ms")
    assert "tied with it (overlapping delay CIs): tied." in s[0]
    assert "slower" not in s[0] and "fast_but_idle" not in s[0]
    assert "1 of 5 AQMs stay below 95% utilization: fast_but_idle." in text
    assert "Best fairness: **slower** (Jain 0.990" in text and "ahead of every other AQM" in text
    assert "Loses most: **slower** (9.00%" in text and "least: fast_but_idle" in text
    assert "Lowest goodput: fast_but_idle" in text


def test_ranking_order():
    d = L.rank_scenario(SYNTH)
    assert d["aqm"].tolist() == ["winner", "tied", "slower", "bloat", "fast_but_idle"]
    assert d["rank"].tolist() == [1, 2, 3, 4, 5]


def test_no_aqm_reaches_the_floor():
    low = SYNTH.assign(utilization_pct=SYNTH["utilization_pct"] - 30)
    s = L.scenario_sentences(low)
    assert s[0].startswith("No AQM reaches 95% utilization; the highest is **bloat**")


def test_fairness_ties_and_nan_ci():
    df = SYNTH.copy()
    df.loc[df["aqm"] == "bloat", ["jain", "jain_lo", "jain_hi", "jain_hw"]] = [0.985, 0.975, 0.995, 0.01]
    text = "\n".join(L.scenario_sentences(df))
    assert "Best fairness: **slower**" in text and "tied with bloat." in text
    one = df.copy()  # n = 1: no CI, ties only on equal means
    for c in [c for c in one.columns if c.endswith(("_lo", "_hi", "_hw"))]:
        one[c] = math.nan
    s = L.scenario_sentences(one)
    assert "no other AQM's delay CI overlaps" in s[0]


def test_overall_consistency():
    a = SYNTH
    b = SYNTH.assign(scenario="t")
    b.loc[b["aqm"] == "winner", "delay_ms"] = 7.0  # winner drops to 2nd in t, 'tied' wins there
    b.loc[b["aqm"] == "winner", ["delay_ms_lo", "delay_ms_hi"]] = [6.9, 7.1]
    wide = pd.concat([a, b], ignore_index=True)
    o = L.overall_ranks(wide)
    # Mean ranks 1.5 and 1.5, worst ranks 2 and 2: the best-delay count decides.
    assert o["aqm"].tolist()[:2] == ["tied", "winner"]
    assert o.loc[o["aqm"] == "tied", "top"].item() == 2 and o.loc[o["aqm"] == "winner", "top"].item() == 1
    text = "\n".join(L.overall_sentences(wide))
    assert "Best mean rank: **tied** (1.5" in text
    assert "Consistently good (in the top third, rank <= 2, in every scenario): tied and winner." in text
    assert "fast_but_idle (0 of 2)" in text


# ---------------------------------------------------------------------------- issue 35


def test_a_quick_league_does_not_rank_as_its_help_says(tmp_path):
    L.run_league(tmp_path, replications=2, quick=True, workers=1, aqms=["red", "pie"], scenarios=[TINY, TINY2])
    md = (tmp_path / "league.md").read_text()
    from aqmlab.league.table import summary_section

    summary = summary_section(md)
    assert "QUICK mode" in summary and "do not rank" in summary
    for ranking in ("Lowest delay", "Best fairness", "Best mean rank", "Across scenarios"):
        assert ranking not in md, ranking
    assert "## Overall ranks" not in md and "| # |" not in md
    full = L.run_league(tmp_path / "full", replications=2, workers=1, aqms=["red", "pie"], scenarios=[TINY, TINY2])
    assert len(full) and "Lowest delay" in (tmp_path / "full" / "league.md").read_text()


def test_headings_name_the_sender_the_league_runs():
    orange = next(s for s in L.SCENARIOS if s.id == "orange")
    assert "Reno flows" in orange.heading() and "Reno" not in orange.heading("bbr")
    assert "BBR flows" in orange.heading("bbr") and "CUBIC flows" in orange.heading("linux")
    wide = SYNTH.assign(scenario="orange")
    configs = {a: ({"kind": "red"}, "") for a in wide["aqm"]}
    plans = [L.LeaguePlan(spec=orange, scenario={}, aqm_path="", configs=configs)]
    meta = {"command": "c", "date": "d", "run_time_s": 1.0, "workers": 1, "replications": 5, "quick": False}
    md = L.render_markdown(wide, plans, {**meta, "tcp_profile": "bbr"})
    assert "heterogeneous-RTT BBR flows" in md and "Reno" not in md and "TCP: every flow with the bbr profile" in md


def test_intervals_are_clipped_to_each_metrics_range():
    from types import SimpleNamespace

    p = SimpleNamespace(spec=SimpleNamespace(id="s", paper="P"), configs={"red": ({"kind": "red"}, "")})
    agg = pd.DataFrame(
        [
            # league.utilization is a fraction (x 100 in the table); jain in [0, 1]; delay >= 0
            {"name": "league-s-red", "metric": "league.utilization", "mean": 0.999, "std": 0.001, "n": 2,
             "ci95_low": 0.990, "ci95_high": 1.008, "ci95_half_width": 0.009},
            {"name": "league-s-red", "metric": "league.jain", "mean": 0.998, "std": 0.001, "n": 2,
             "ci95_low": 0.989, "ci95_high": 1.007, "ci95_half_width": 0.009},
            {"name": "league-s-red", "metric": "league.delay_ms", "mean": 0.5, "std": 0.1, "n": 2,
             "ci95_low": -0.4, "ci95_high": 1.4, "ci95_half_width": 0.9},
        ]
    )  # fmt: skip
    from aqmlab.league.table import tidy_rows

    tidy = tidy_rows(p, agg).set_index("metric")  # type: ignore[arg-type]
    assert tidy.loc["utilization_pct", "ci95_high"] == 100.0 and math.isclose(
        tidy.loc["utilization_pct", "ci95_low"], 99.0
    )
    assert tidy.loc["jain", "ci95_high"] == 1.0 and tidy.loc["delay_ms", "ci95_low"] == 0.0
    row = L.to_wide(tidy.reset_index()).iloc[0].to_dict()
    from aqmlab.league.table import _cell

    assert _cell(row, "jain", 3) == "0.998 [0.989, 1.000]"


def test_league_figures_place_every_name_where_it_hides_no_other(tmp_path, monkeypatch):
    import warnings

    import matplotlib.pyplot as plt
    from aqmlab.reproduce.figures import FigureWarning, overlapping_texts

    seen = []  # each figure's labels and overlaps, as it is closed (once saved)
    close = plt.close

    def inspect_then_close(fig=None):
        (ax,) = fig.axes
        seen.append(([t.get_text() for t in ax.texts], overlapping_texts(ax)))
        close(fig)

    monkeypatch.setattr(plt, "close", inspect_then_close)
    # fifteen AQMs within a few pixels of each other, as the league's 10 Mb/s scenarios give
    rows = [_row(f"aqm_{i}", 99.0, 12.0 + 0.05 * i, 0.1, 0.95, 0.01, 1.0, goodput=9.4 + 0.002 * i) for i in range(15)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)  # the audit: overlapping labels are a problem
        paths = L.write_figures(pd.DataFrame(rows), tmp_path)
    assert {p.name for p in paths} == {"league_s.png", "league_s.svg"}
    ((texts, overlaps),) = seen
    assert sorted(texts) == sorted(r["aqm"] for r in rows)
    assert overlaps == []


def test_the_audit_finds_overlapping_labels():
    import matplotlib.pyplot as plt
    from aqmlab.reproduce.figures import audit

    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2], label="x")
    ax.set_xlabel("x (s)")
    ax.set_ylabel("y (s)")
    ax.annotate("codel", (1.5, 1.5))
    ax.annotate("fq_codel", (1.5, 1.5))
    assert any("labels 'codel' and 'fq_codel' overlap" in p for p in audit(fig))
    plt.close(fig)
