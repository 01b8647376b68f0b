"""Issue 38: heistp/l4s-tests as `aqmlab reproduce l4s-tests` (papers/l4s_tests.toml, its
transcription in papers/published/, companions/l4s_tests.py), and the SCE/L4S bakeoff re-run
(`aqmlab reproduce sce-l4s-bakeoff`, companions/sce_l4s_bakeoff.py): the paper values read from the transcription, the axes' settings,
and one published cell of each scenario run. Scenario 6's claim, as the source states it
(README.md at e21cd91: "TCP Prague mis-interprets the CE signal as coming from an L4S instead of
an RFC3168 queue"): the v0.5 Prague it ran takes nearly all of the link (45.70 to 1.94 Mb/s
through fq_codel flows 1 against CUBIC with ECN); the same Prague with its classic ECN detection
on gives the classic flow a fair part."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import aqmlab
import pandas as pd
import pytest
import tomllib
from aqmlab.reproduce import PAPERS, jobs, spec
from aqmlab.reproduce.companions.l4s_tests import rate_step_metrics, run_rate_step, tc_red
from aqmlab.reproduce.companions.sce_l4s_bakeoff import forward_capacity_bps, run_bakeoff
from aqmlab.reproduce.errors import ReproduceError


def l4s_paper() -> spec.Paper:
    return spec.load_paper("l4s-tests")


def job(experiment: str, config: str, **point: Any) -> dict[str, Any]:
    """The scenario ``aqmlab reproduce l4s-tests`` runs for one configuration at one point."""
    e = l4s_paper().experiment(experiment)
    runs = [r for r in jobs.build_jobs(e) if r.config == config and all(r.point[k] == v for k, v in point.items())]
    assert len(runs) == 1, [r.label for r in runs]
    return runs[0].scenario


def dss(scenario: dict[str, Any], seed: int = 1) -> tuple[float, float]:
    g = aqmlab.run(scenario, seed=seed).flows.set_index("group")["goodput_bps"] / 1e6
    return float(g["flow1"]), float(g["flow2"])


def test_the_paper_values_are_the_transcriptions_cells() -> None:
    s6 = l4s_paper().experiment("s6_rfc3168_aqms")
    rows = s6.paper_values
    assert len(rows) == 24
    assert {r["config"] for r in rows} == {c.name for c in s6.configurations}
    first = rows[0]
    # README.md line 1424: fq_codel flows 1, prague vs cubic-ecn, 45.70 / 1.94 (24:1)
    assert (first["config"], first["cc2"], first["dss1_mbps"], first["dss2_mbps"], first["source"]) == (
        "fq_codel_1q",
        "cubic-ecn",
        45.7,
        1.94,
        "README.md:1424",
    )
    s1 = l4s_paper().experiment("s1_rtt_fairness")
    # 192 published rows, less cnq_codel_af's 48 (not in aqmlab)
    assert len(s1.paper_values) == 144
    assert {r["config"] for r in s1.paper_values} == {"dualpi2", "pfifo_1000", "pfifo_200", "fq_codel"}
    published = tomllib.loads((PAPERS / "published/l4s_tests.toml").read_text())
    assert all(
        c["source_commit"] == "e21cd91a8fa7dda4ebb098855c97b0edc8cafba5"
        for c in published["cell"]
        if c.get("scenario") in ("s1_rtt_fairness", "s6_rfc3168_aqms")
    )


def test_a_transcription_that_selects_nothing_is_an_error() -> None:
    with pytest.raises(ReproduceError, match="selects no cell"):
        spec.transcribed_rows({"file": "published/l4s_tests.toml", "where": {"scenario": "none"}}, "t")
    with pytest.raises(ReproduceError, match="not found"):
        spec.transcribed_rows({"file": "published/missing.toml"}, "t")


def test_axis_settings_place_each_flows_rtt_and_controller() -> None:
    s = job("s1_rtt_fairness", "dualpi2", rate_mbps=10, rtts="160/10", ccs="prague-vs-cubic", prague_reading="v0.5")
    assert s["topology"]["access"]["delay"] == ["80ms", "5ms"]
    assert [f["tcp"]["profile"] for f in s["flows"]] == ["prague", "linux"]
    assert s["topology"]["bottleneck"]["rate"] == "10Mbps"
    fb = job("s6_rfc3168_aqms", "pie", cc2="reno-noecn", prague_reading="v0.5+fallback")
    assert fb["flows"][0]["tcp"]["prague"]["classic_ecn"] == "fallback"
    assert (fb["flows"][1]["tcp"]["congestion_control"], fb["flows"][1]["tcp"]["ecn"]) == ("reno", False)
    e = l4s_paper().experiment("s1_rtt_fairness")
    point = {"rate_mbps": 50, "limit": 10000, "rtts": "40/40", "ccs": "cubic-vs-cubic", "prague_reading": "v0.5"}
    with pytest.raises(ReproduceError, match="no settings for '40/40'"):
        jobs.build_run(e, e.configuration("dualpi2"), point)


def test_iproute2s_red_defaults() -> None:
    # limit 150000, avpkt 1000: max 37500, min 12500, burst (25000 + 37500) / 3000 = 20;
    # tc_red_eval_ewma: a = 20 + 1 - 12.5 = 8.5, first W with (1 - (1 - W)^20) / W >= 8.5 is
    # 1/16 (11.6; 1/8 gives 7.45).
    red = tc_red(150_000)
    assert (red["min_th"], red["max_th"], red["w_q"]) == (12_500 / 1500, 37_500 / 1500, 1 / 16)
    # the paper file's red configurations are these, with the byte limits in 1500-byte packets
    e = l4s_paper().experiment("s6_rfc3168_aqms")
    for limit in (150_000, 400_000):
        conf = e.configuration(f"red_{limit}b")
        assert conf.aqm == tc_red(limit)
        assert conf.grid is not None and conf.grid["limit"] == [limit // 1500]


def test_prague_v05_starves_the_classic_flow_and_its_fallback_does_not() -> None:
    # README.md line 1424: 45.70 to 1.94 Mb/s through fq_codel flows 1 against CUBIC with ECN
    off = dss(job("s6_rfc3168_aqms", "fq_codel_1q", cc2="cubic-ecn", prague_reading="v0.5"))
    on = dss(job("s6_rfc3168_aqms", "fq_codel_1q", cc2="cubic-ecn", prague_reading="v0.5+fallback"))
    assert off[0] / sum(off) > 0.9
    assert on[1] / sum(on) > 0.25
    assert 45 < sum(off) <= 50


def test_scenario_1_dualpi2_couples_cubic_and_prague_as_published() -> None:
    # Scenario 1, 50 Mbit/s, DualPI2, CUBIC then Prague at 10/10 ms: published 12.65 / 34.57
    # Mb/s (README.md line 1225). One seed here; docs/validation.md has every cell's three.
    row = next(
        r
        for r in l4s_paper().experiment("s1_rtt_fairness").paper_values
        if (r["config"], r["rate_mbps"], r["rtts"], r["ccs"]) == ("dualpi2", 50, "10/10", "cubic-vs-prague")
    )
    assert (row["dss1_mbps"], row["dss2_mbps"]) == (12.65, 34.57)
    got = dss(
        job("s1_rtt_fairness", "dualpi2", rate_mbps=50, rtts="10/10", ccs="cubic-vs-prague", prague_reading="v0.5")
    )
    assert abs(got[0] / sum(got) - 12.65 / (12.65 + 34.57)) < 0.05
    assert sum(got) <= 50


def test_scenario_2_prague_through_fq_codel_after_a_step_to_1_mbit() -> None:
    # README.md line 532: "the maximum TCP RTT to be 4346ms ... the spike lasts for over 30
    # seconds" (Prague, fq_codel, 50 -> 1 Mbit/s at 30 s, 80 ms).
    s = job("s2_rate_step", "fq_codel", path="clean 80ms", cc="prague", rate_after_mbps=1)
    m = run_rate_step(s, 1)
    assert abs(m["x.max_srtt_after_ms"] / 4346 - 1) < 0.1
    assert m["x.spike_s"] >= 29.5
    assert 0.95 < m["x.utilization_after"] <= 1.0 + 1500 * 8 / (1e6 * 10)


def test_the_step_metrics_from_a_hand_made_series() -> None:
    # srtt 20 ms every 50 ms until the step at 30 s, then 100 ms until 32 s, then 20 ms; bytes at
    # exactly the link's rate: 50 Mb/s before, 25 after. The spike ends at the last sample above
    # 1.5 x 20 = 30 ms, 31.95 s: 1.95 s; the utilisations are 1.
    times = [i / 20 for i in range(0, 1201)]
    srtt = [100.0 if 30 <= t < 32 else 20.0 for t in times]
    got = [50e6 / 8 * t if t <= 30 else 50e6 / 8 * 30 + 25e6 / 8 * (t - 30) for t in times]
    frame = pd.DataFrame(
        {
            "source": ["flow0"] * (2 * len(times)),
            "variable": ["srtt_ms"] * len(times) + ["bytes_received"] * len(times),
            "time_s": times + times,
            "value": srtt + got,
        }
    )
    m = rate_step_metrics(SimpleNamespace(timeseries=frame), 30.0, 50e6, 25e6)
    assert m["x.srtt_before_ms"] == 20.0
    assert m["x.max_srtt_after_ms"] == 100.0
    assert m["x.spike_s"] == pytest.approx(1.95)
    assert m["x.utilization_before"] == pytest.approx(1.0)
    assert m["x.utilization_after"] == pytest.approx(1.0)


def bakeoff_job(**point: Any) -> dict[str, Any]:
    e = spec.load_paper("sce-l4s-bakeoff").experiment("l4s_side")
    runs = [r for r in jobs.build_jobs(e) if all(r.point[k] == v for k, v in point.items())]
    assert len(runs) == 1, [r.label for r in runs]
    return runs[0].scenario


def test_the_bakeoffs_statements_are_its_paper_values() -> None:
    rows = spec.load_paper("sce-l4s-bakeoff").experiment("l4s_side").paper_values
    # 18 statements with a value on the L4S side, less the 3 of run r1 quoted in the newest README
    assert len(rows) == 15
    assert all(r["approximate"] for r in rows)
    # README.md line 725: "~7.7x (44.25/5.78Mbit)", CUBIC first, Prague second
    got = {k: v for r in rows if r["source"] == "README.md:725" for k, v in r.items() if k.startswith("goodput")}
    assert got == {"goodput2_mbps": 44.25, "goodput1_mbps": 5.78}
    single = next(r for r in rows if r["source"] == "README.md:393")
    assert (single["scenario"], single["ccas"], single["rtt_ms"], single["tcp_rtt_increase"]) == ("s2", "dctcp", 80, 5)


def test_bakeoff_dctcp_holds_fq_codels_target() -> None:
    # heistp/sce-l4s-bakeoff README.md line 393 (scenario 2, DCTCP alone at 80 ms): the TCP RTT
    # increase "stays right around fq_codel's target of 5ms".
    s = bakeoff_job(scenario="s2", rtt_ms=80, ccas="dctcp")
    assert [lk["delay"] for lk in s["topology"]["links"] if lk["name"].startswith("netem")] == ["40ms", "40ms"]
    m = run_bakeoff(s, 1)
    assert 3.0 < m["x.srtt_increase_ms"] < 9.0


def test_the_bakeoffs_capacity_is_its_slowest_forward_link() -> None:
    # scenario 5: DualPI2 at 100 Mbit/s, a FIFO at 50, FQ-CoDel at 47.5 (the bottleneck)
    assert forward_capacity_bps(bakeoff_job(scenario="s5", rtt_ms=0, ccas="cubic")) == 47.5e6


def test_the_mangler_is_the_codepoint_its_rewrite_gives() -> None:
    # bakeoff scenario 4: iptables --set-tos 0x1 on every non-SYN TCP packet (one flow) or on the
    # DSCP-1 flow of a _gamed pair: those flows' data reach DualPI2 as ECT(1)
    e = spec.load_paper("sce-l4s-bakeoff").experiment("l4s_side_mangler")
    runs = {r.point["ccas"]: r.scenario for r in jobs.build_jobs(e) if r.point["rtt_ms"] == 80}
    codepoint = {k: [f["tcp"].get("ecn_codepoint", "profile") for f in s["flows"]] for k, s in runs.items()}
    assert codepoint["cubic"] == ["ect1"] and codepoint["dctcp"] == ["ect1"]
    assert codepoint["cubic-vs-cubic_gamed"] == ["profile", "ect1"]
    assert codepoint["cubic-vs-cubic"] == ["profile", "profile"]
    m = run_bakeoff(runs["cubic"], 1)
    # README line 515: a drop in utilization (at 80 ms); the link is 50 Mb/s
    assert 0 < m["x.goodput1_mbps"] < 0.8 * 50
