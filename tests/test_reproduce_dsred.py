"""DSRED reproduction: the running summaries become "value at t" scalars (hand-computed), and
the second load model (three greedy FTP flows) builds and runs."""

from __future__ import annotations

from pathlib import Path

import aqmlab
import pandas as pd
import pytest
from aqmlab.reproduce import runfn

SCEN = Path(aqmlab.__file__).parent / "reproduce" / "scenarios" / "dsred"


def test_running_summaries_become_values_at_t():
    # Two samples (1 s, 2 s) of a link "bn" and of all flows, no warm-up: drops 3 then 10
    # -> 3 / 1 = 3 and 10 / 2 = 5 packets/s; received / sent 8 / 10 and 18 / 20.
    rows = []
    for t, d, q, dl, s, r in [(1.0, 3, 2.5, 7.0, 10, 8), (2.0, 10, 4.0, 9.5, 20, 18)]:
        rows += [
            (t, "bn", "drops", d),
            (t, "bn", "mean_queue_packets", q),
            (t, "bn", "mean_delay_ms", dl),
            (t, "flows", "packets_sent", s),
            (t, "flows", "packets_received", r),
        ]
    ts = pd.DataFrame(rows, columns=["time_s", "source", "variable", "value"])
    out: dict[str, float] = {}
    runfn._running(ts, out, 0.0)
    assert out["x.ts.bn.drop_rate_pps@1"] == 3.0
    assert out["x.ts.bn.drop_rate_pps@2"] == 5.0
    assert out["x.ts.bn.mean_queue_packets@2"] == 4.0
    assert out["x.ts.bn.mean_delay_ms@1"] == 7.0
    assert out["x.ts.flows.normalized_throughput@1"] == 0.8
    assert out["x.ts.flows.normalized_throughput@2"] == 0.9
    # with a 0.5 s warm-up the drop rate is over the measured span: 10 / 1.5
    out = {}
    runfn._running(ts, out, 0.5)
    assert out["x.ts.bn.drop_rate_pps@2"] == pytest.approx(10 / 1.5)


def test_greedy_load_model_runs_three_flows_and_reports_88s():
    import tomllib

    sc = tomllib.loads((SCEN / "greedy_heavy.toml").read_text())
    sc["duration"] = "90s"
    s = runfn.run(sc, 1)
    assert s["x.flows.packets_sent"] > 0
    r = aqmlab.run(sc, seed=1)
    assert len(r.flows) == 3, "one greedy flow per server"
    for k in (
        "bottleneck.mean_delay_ms",
        "bottleneck.mean_queue_packets",
        "bottleneck.drop_rate_pps",
        "flows.normalized_throughput",
    ):
        assert f"x.ts.{k}@88" in s
    # the value at the last sample is the whole-run value
    assert s["x.ts.bottleneck.mean_delay_ms@90"] == pytest.approx(s["queue.bottleneck.mean_delay_ms"])


def test_the_greedy_ftp_sources_are_the_default_comparison():
    """Issue 24, item 5: the paper's 'three ftp sources' as three greedy FTP flows is the
    default comparison (the first paper rows of every simulated experiment compare with the
    greedy loads), the request model a named alternative compared after it; the paper's
    medium rows exist only under the request model (the greedy model has no medium level)."""
    from aqmlab.reproduce.spec import load_paper

    paper = load_paper("dsred")
    for exp_id in ("table2", "table3", "rtt"):
        exp = paper.experiment(exp_id)
        loads = [pv["load"] for pv in exp.paper_values]
        assert all(x.startswith("greedy_") or x.startswith("requests_") for x in loads), exp_id
        first_request = next(i for i, x in enumerate(loads) if x.startswith("requests_"))
        assert loads[0].startswith("greedy_") and all(x.startswith("greedy_") for x in loads[:first_request])
        assert all(x.startswith("requests_") for x in loads[first_request:]), exp_id
        axis = next(a for a in exp.axes if a["name"] == "load")["values"]
        assert axis[0] == "greedy_heavy"
        for pv in exp.paper_values:
            kind = "three greedy FTP flows (default)" if pv["load"].startswith("greedy_") else "request model"
            assert kind in pv["label"], pv
    t2 = [pv["load"] for pv in paper.experiment("table2").paper_values]
    assert "greedy_medium" not in t2 and "requests_medium" in t2
    # the greedy files are the three-flow scenarios, the RTT one with the longer access delays
    import tomllib

    rtt = tomllib.loads((SCEN / "greedy_heavy_rtt.toml").read_text())
    assert sorted(lk["delay"] for lk in rtt["topology"]["links"] if lk.get("to") == "gateway") == [
        "15ms",
        "3ms",
        "9ms",
    ]
    assert rtt["flows"][0]["from"] == ["server0", "server1", "server2"] and rtt["tcp"]["window"] == 20
