"""Issue 28's senders as TCP profiles (`dctcp`, `prague`, `bbr`): each runs where users will
run it (beside the AQM it is meant for), the league turns ECN on for the ECN-capable ones, and
the CLI takes them."""

from __future__ import annotations

import copy
import json
from typing import Any

import aqmlab
import pytest
from aqmlab.cli import app
from aqmlab.league.grid import SCENARIOS, plan
from aqmlab.scenario import TCP_PROFILES, resolved_tcp, tcp_profile_sends_ecn, validate_scenario, with_tcp_profile
from aqmlab.sweep import set_path
from typer.testing import CliRunner

PATH: dict[str, Any] = {
    "duration": "6s",
    "warmup": "2s",
    "sample_interval": "10ms",
    "topology": {
        "kind": "dumbbell",
        "senders": 2,
        "bottleneck": {"rate": "20Mbps", "delay": "9ms", "queue": {"limit": 400, "aqm": "droptail"}},
        "access": {"rate": "1Gbps", "delay": "0.5ms"},
    },
    "tcp": {"packet_size": 1460, "window": 2000},
    "flows": [{"kind": "tcp", "from": "senders", "to": "receivers"}],
}


def _on(aqm: dict[str, Any], profile: str) -> dict[str, Any]:
    s = copy.deepcopy(PATH)
    s["topology"]["bottleneck"]["queue"]["aqm"] = aqm
    return with_tcp_profile(s, profile)


def test_the_engine_carries_the_sender_profiles_and_says_which_need_ecn():
    assert {"ns2", "linux", "ns3", "dctcp", "prague", "bbr"} <= set(TCP_PROFILES)
    assert [tcp_profile_sends_ecn(p) for p in ("dctcp", "prague", "bbr", "linux", "ns2")] == [
        True,
        True,
        False,
        False,
        False,
    ]
    got = {p: resolved_tcp(with_tcp_profile(PATH, p))[0] for p in ("dctcp", "prague", "bbr")}
    assert {p: (t["congestion_control"], t["recovery"]) for p, t in got.items()} == {
        "dctcp": ("dctcp", "rfc6675"),
        "prague": ("prague", "rfc6675"),
        "bbr": ("bbr", "rfc6675"),
    }
    assert got["prague"]["ecn_codepoint"] == "ect1" and got["dctcp"]["ecn_codepoint"] == "ect0"


def test_dctcp_under_step_marking_is_marked_not_dropped_and_holds_the_queue_near_k():
    r = aqmlab.run(_on({"kind": "step_marking", "k_packets": 20}, "dctcp"), seed=1)
    q = r.queues.set_index("queue").loc["bottleneck"]
    assert q["marks"] > 100 and q["drops"] == 0, q
    assert q["utilization"] > 0.95
    # K = 20 packets of 1500 B at 20 Mb/s is 12 ms: the queue sits around it, not at 400.
    assert q["mean_queue_packets"] < 40, q["mean_queue_packets"]


def test_prague_is_served_from_dualpi2s_l_queue():
    r = aqmlab.run(_on("dualpi2", "prague"), seed=1)
    ts = r.timeseries
    queued = ts[ts.source == "bottleneck"].pivot_table(index="time_s", columns="variable", values="value")
    assert queued["l_queue_packets"].max() > 0
    assert queued["c_queue_packets"].max() == 0, "Prague's ECT(1) packets must all go to L"
    q = r.queues.set_index("queue").loc["bottleneck"]
    assert q["mean_delay_ms"] < 5.0 and q["utilization"] > 0.9, q


def test_bbr_records_its_model_and_paces_into_a_deep_buffer_without_filling_it():
    r = aqmlab.run(_on({"kind": "droptail"}, "bbr"), seed=1)
    variables = set(r.timeseries.variable)
    assert {"bbr_mode", "bbr_btl_bw_bps", "bbr_rt_prop_ms", "pacing_rate_bps"} <= variables
    q = r.queues.set_index("queue").loc["bottleneck"]
    # 400 packets is 12 BDP here (BDP 20 Mb/s x 20 ms = 33 packets); BBR keeps far below it.
    assert q["utilization"] > 0.9 and q["mean_queue_packets"] < 2 * 34, q


def test_the_league_under_an_ecn_profile_marks_wherever_an_aqm_can():
    for tcp, want in (("dctcp", True), ("bbr", False)):
        plans = plan([SCENARIOS[0]], ["red", "pie", "droptail", "dualpi2"], quick=True, tcp=tcp)
        (p,) = plans
        assert p.scenario["tcp"]["ecn"] is want
        assert p.scenario["tcp"]["profile"] == tcp
        for name, (table, _) in p.configs.items():
            assert table.get("ecn", False) is (want and name != "droptail"), (tcp, name, table)
        # the planned scenario with any of its AQM tables is valid
        s = copy.deepcopy(p.scenario)
        set_path(s, p.aqm_path, p.configs["red"][0])
        validate_scenario(s)


@pytest.mark.parametrize("tcp, aqm", [("prague", "dualpi2"), ("dctcp", "step_marking"), ("bbr", "fq_pie")])
def test_compare_takes_the_sender_profiles(tcp: str, aqm: str):
    res = CliRunner().invoke(app, ["compare", "--tcp", tcp, "--aqm", aqm, "--duration", "3", "--json", "-q"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["rows"]
    assert [r["AQM"] for r in rows] == [aqm]
