"""Issue 24, item 11: Jain's index was taken over every flow, so one unresponsive UDP flow beside
TCP flows that share fairly made the run look unfair. The run's headline ``jain_index`` is now
over the TCP flows when the run has any (``jain_index_over`` says which), the all-flows value is
``jain_index_all_flows``, and each flow group has its own (the ``groups`` table)."""

from __future__ import annotations

import json
import math
from typing import Any

import aqmlab
import pytest
from aqmlab.cli import app
from typer.testing import CliRunner

# Six TCP flows of equal RTT and one 4 Mb/s CBR flow through a 10 Mb/s bottleneck.
MIXED: dict[str, Any] = {
    "name": "tcp-and-udp",
    "duration": "20s",
    "warmup": "5s",
    "topology": {
        "kind": "dumbbell",
        "senders": 3,
        "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"limit": 60, "aqm": "red"}},
        "access": {"rate": "100Mbps", "delay": "1ms"},
    },
    "tcp": {"overhead": "1ms"},
    "flows": [
        {"kind": "tcp", "from": "senders", "to": "receivers", "count": 2, "group": "bulk"},
        {"kind": "cbr", "from": "s0", "to": "d0", "rate": "4Mbps", "packet_size": 1000, "group": "video"},
    ],
}


def jain(xs: list[float]) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


@pytest.fixture(scope="module")
def mixed() -> aqmlab.Result:
    return aqmlab.run(MIXED, seed=3)


def test_the_headline_is_over_the_tcp_flows_and_all_flows_stays_by_name(mixed: aqmlab.Result) -> None:
    flows = mixed.flows
    tcp = flows[flows["kind"] == "tcp"]["goodput_bps"].tolist()
    every = flows["goodput_bps"].tolist()
    assert mixed.jain_index_over == "tcp_flows"
    assert mixed.jain_index == pytest.approx(jain(tcp), rel=1e-12)
    assert mixed.jain_index_tcp == mixed.jain_index
    assert mixed.jain_index_all_flows == pytest.approx(jain(every), rel=1e-12)
    # The CBR flow takes far more than any TCP flow: over every flow the run looks unfair.
    assert mixed.jain_index > 0.9 > mixed.jain_index_all_flows + 0.2


def test_each_group_has_its_index_goodput_and_count(mixed: aqmlab.Result) -> None:
    g = mixed.groups
    assert g["group"].tolist() == ["bulk", "video"]
    assert g["kind"].tolist() == ["tcp", "cbr"]
    assert g["flows"].tolist() == [6, 1]
    bulk = mixed.flows[mixed.flows["group"] == "bulk"]["goodput_bps"]
    assert g["goodput_bps"].iloc[0] == pytest.approx(bulk.sum())
    assert g["jain_index"].iloc[0] == pytest.approx(mixed.jain_index_tcp)
    assert g["jain_index"].iloc[1] == 1.0
    s = mixed.summary
    assert s["group.bulk.jain_index"] == g["jain_index"].iloc[0]
    assert s["group.video.goodput_bps"] == g["goodput_bps"].iloc[1]
    assert s["jain_index"] == mixed.jain_index and s["jain_index_over"] == "tcp_flows"
    assert s["jain_index_all_flows"] == mixed.jain_index_all_flows


def test_without_tcp_flows_the_headline_is_over_every_flow() -> None:
    udp = {**MIXED, "flows": [MIXED["flows"][1], {**MIXED["flows"][1], "rate": "1Mbps", "group": "audio"}]}
    r = aqmlab.run(udp, seed=1)
    assert r.jain_index_over == "all_flows"
    assert r.jain_index == r.jain_index_all_flows
    assert math.isnan(r.jain_index_tcp) and math.isnan(r.summary["jain_index_tcp"])
    assert r.jain_index == pytest.approx(jain(r.flows["goodput_bps"].tolist()))


def test_the_cli_says_which_flows_its_index_is_over(tmp_path: Any) -> None:
    p = tmp_path / "mixed.json"
    p.write_text(json.dumps(MIXED))
    res = CliRunner().invoke(app, ["run", str(p), "--seed", "3", "-q"])
    assert res.exit_code == 0, res.output
    assert 'Jain index (kind "tcp", 6 flows)' in res.output
    assert "Jain index (all flows)" in res.output
    assert "Jain index by group" in res.output and "bulk" in res.output
    res = CliRunner().invoke(app, ["run", str(p), "--seed", "3", "-q", "--json"])
    s = json.loads(res.stdout)["summary"]
    assert s["jain_index_over"] == "tcp_flows"
    assert s["jain_index"] > s["jain_index_all_flows"]
    assert "group.video.jain_index" in s


def test_the_groups_table_is_written_with_the_others(mixed: aqmlab.Result, tmp_path: Any) -> None:
    mixed.to_csv(tmp_path)
    assert (tmp_path / "groups.csv").read_text().splitlines()[0] == "group,kind,flows,goodput_bps,jain_index"
    assert mixed.to_arrow("groups").num_rows == 2
