"""Issue 35: a probe's numbers. Class P: one ``loss_rate`` for every flow kind, the packets the
flow's sender sent that were dropped (a ping's requests, not the echo's replies: a ping whose
replies were all dropped showed 0.993). And the friction that every run with a ping reported
a lost ping, the request sent at the instant the run ends."""

from __future__ import annotations

from typing import Any

import aqmlab


def dumbbell(flows: list[dict[str, Any]], **bottleneck: Any) -> dict[str, Any]:
    return {
        "duration": "60s",
        "topology": {
            "kind": "dumbbell",
            "senders": 2,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", **bottleneck},
            "access": {"rate": "100Mbps", "delay": "1ms"},
        },
        "flows": flows,
    }


PING = {"kind": "ping", "group": "ping", "from": "s0", "to": "d0"}


def test_a_ping_whose_replies_are_lost_has_lost_no_request() -> None:
    r = aqmlab.run(dumbbell([PING], loss=1.0, loss_direction="reverse"))
    f = r.flows.iloc[0]
    assert f["loss_rate"] == 0.0, "its requests all arrived"
    assert f["drops"] == 300
    row = r.latency_summary.set_index("group").loc["ping"]
    assert (row["samples"], row["lost"]) == (0, 300), "every round trip lost"


def test_an_idle_ping_and_tcp_rr_lose_nothing() -> None:
    rr = {"kind": "tcp_rr", "group": "rr", "from": "s1", "to": "d1"}
    r = aqmlab.run(dumbbell([PING, rr]))
    lost = r.latency_summary.set_index("group")["lost"]
    assert lost["ping"] == 0 and lost["rr"] == 0
    assert r.flows.iloc[0]["packets_sent"] == 301, "the last request left as the run ended"
    assert (r.flows["loss_rate"] == 0).all()
