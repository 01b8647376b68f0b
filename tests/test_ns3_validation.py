"""The ns-3 cross-check (validation/ns3/, issue 25, item 4): how an aqmlab scenario becomes the
ns-3 program's arguments, which fields it refuses, and, where ns-3 is installed, one tiny run
whose output must parse and obey physical bounds."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("ns3_compare", ROOT / "validation" / "ns3" / "compare.py")
assert SPEC is not None and SPEC.loader is not None
compare = importlib.util.module_from_spec(SPEC)
sys.modules["ns3_compare"] = compare
SPEC.loader.exec_module(compare)


def _identical(flows: int = 2) -> dict:
    return compare.with_changes(compare.load("identical-dumbbell"), flows, None, None)


def _args(args: list[str]) -> dict[str, str]:
    return dict(a.removeprefix("--").split("=", 1) for a in args)


def test_the_identical_dumbbell_translates_field_by_field():
    args, notes = compare.translate(_identical(3), seed=2)
    a = _args(args)
    assert a["flows"] == "3" and a["run"] == "2"
    assert a["btlRate"] == "10000000" and a["btlDelay"] == "100000000"
    assert a["accessRates"] == "100000000,100000000,100000000"
    assert a["accessDelays"] == "1000000,1000000,1000000"
    assert a["rxAccessDelays"] == a["accessDelays"] and a["accessLimit"] == "1000"
    assert (a["queue"], a["limit"]) == ("red", "50")
    assert float(a["redMinTh"]) == 5 and float(a["redMaxTh"]) == 15
    assert float(a["redQw"]) == 0.002 and float(a["redMaxP"]) == 0.1
    assert a["redGentle"] == "true" and a["redWait"] == "true" and a["redMeanPktSize"] == "500"
    assert a["cc"] == "newreno" and a["sack"] == "true" and a["timestamps"] == "false"
    assert a["delAckCount"] == "2" and a["delAckTimeout"] == "100000000"
    assert a["initialCwnd"] == "2" and a["minRto"] == "1000000000"
    assert a["segSize"] == "1000" and a["rcvBuf"] == str(10000 * 1000)
    # ssthresh starts at the receiver's window, as aqmlab's does when ssthresh_init is unset
    assert a["initialSsthresh"] == str(10000 * 1000)
    assert a["duration"] == str(100 * 10**9) and a["warmup"] == str(10 * 10**9)
    starts = [int(x) for x in a["starts"].split(",")]
    assert len(starts) == 3 and all(0 <= t <= 10**9 for t in starts)
    # 1000 + 42 bytes on the wire in both: nothing to note
    assert notes == []
    # the same seed draws the same start times, another seed others
    assert compare.translate(_identical(3), seed=2)[0] == args
    assert _args(compare.translate(_identical(3), seed=3)[0])["starts"] != a["starts"]


def test_droptail_and_a_different_header_size_are_translated_with_a_note():
    s = compare.with_changes(_identical(2), None, "droptail", 80)
    s["tcp"]["header_size"] = 40
    args, notes = compare.translate(s, seed=1)
    a = _args(args)
    assert (a["queue"], a["limit"]) == ("droptail", "80")
    assert not any(k.startswith("red") for k in a)
    assert len(notes) == 1 and "header_size" in notes[0] and "42" in notes[0]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda s: s["topology"]["bottleneck"].update(loss=0.01), "topology.bottleneck.loss"),
        (lambda s: s["topology"]["bottleneck"]["queue"].update(limit="64KB"), "topology.bottleneck.queue.limit"),
        (lambda s: s["topology"]["bottleneck"]["queue"].update(aqm="blue"), "topology.bottleneck.queue.aqm.kind"),
        (lambda s: s["tcp"].update(hystart={"enabled": True}), "flows[0].tcp.hystart.enabled"),
        (lambda s: s["tcp"].update(ecn=True), "flows[0].tcp.ecn"),
        (lambda s: s["flows"][0].update(size="1MB"), "flows[0].size"),
        (lambda s: s["flows"].append(copy.deepcopy(s["flows"][0])), "flows"),
    ],
)
def test_what_ns3_cannot_express_is_refused_naming_the_field(change, field):
    s = _identical(2)
    change(s)
    with pytest.raises(compare.Untranslatable) as e:
        compare.translate(s, seed=1)
    assert str(e.value).startswith(f"{field}: ")
    assert "\n" not in str(e.value)


def test_the_ns3_variant_keeps_the_scenarios_settings_under_the_profile():
    """Beside ns-3, the ns3 profile runs with the settings ns-3 was given (IW 2, min RTO 1 s,
    delayed ACK 100 ms, no timestamps), so that only the TCP's own choices differ."""
    from aqmlab.scenario import resolved_tcp

    tcp = resolved_tcp(compare.aqmlab_variant(_identical(2), "ns3"))[0]
    assert tcp["ssthresh_base"] == "pipe" and tcp["rtt_sampling"] == "oldest_unacked"
    assert tcp["window_init"] == 2 and tcp["timestamps"] is False
    assert tcp["delayed_ack_timeout"] == "100ms" and tcp["min_rto"] == "1s"


def test_a_tiny_run_in_ns3_parses_and_obeys_physical_bounds():
    why = compare.ns3_installed()
    if why:
        pytest.skip(f"ns-3 is not available: {why}")
    s = _identical(2)
    s["duration"], s["warmup"] = "5s", "1s"
    args, _ = compare.translate(s, seed=1)
    r = compare.run_ns3(args, cache=False)
    json.dumps(r)
    assert r["flows"] == 2 and len(r["per_flow"]) == 2
    assert 0 < r["utilization"] <= 1
    assert 0 <= r["drop_rate"] <= 1 and r["drops"] <= r["arrivals"]
    assert 0 <= r["mean_queue_packets"] <= 50 + 1
    goodput = sum(f["goodput_bps"] for f in r["per_flow"])
    assert 0 < goodput <= 10e6
    for f in r["per_flow"]:
        assert f["retransmissions"] <= f["packets_sent"]
