"""TCP profiles (issue 12): `tcp.profile`, `with_tcp_profile`, `--tcp`, packaged scenarios."""

from __future__ import annotations

import json

import aqmlab
import pytest
from _aqmlab_scenarios import tcp_dumbbell
from aqmlab.cli import app
from aqmlab.scenario import load_scenario, packaged_scenarios, with_tcp_profile
from typer.testing import CliRunner

SMALL = tcp_dumbbell(
    "3s",
    3,
    {"rate": "5Mbps", "delay": "10ms", "queue": {"limit": 30, "aqm": "droptail"}},
    warmup="1s",
    tcp={"variant": "newreno", "window": 32, "window_init": 2},
)


def test_with_tcp_profile_keeps_only_the_scenarios_sizes_and_window():
    s = with_tcp_profile(SMALL, "linux")
    assert s["tcp"] == {"window": 32, "profile": "linux"}
    assert SMALL["tcp"]["variant"] == "newreno", "the input is not changed"


def test_the_linux_profile_changes_the_run_and_ns2_is_the_default():
    base = aqmlab.run(SMALL, seed=3).flows
    ns2 = aqmlab.run(with_tcp_profile(SMALL, "ns2"), seed=3).flows
    linux = aqmlab.run(with_tcp_profile(SMALL, "linux"), seed=3).flows
    # ns2 with window_init 2 dropped: the profile's own window_init is also 2.
    assert ns2["packets_sent"].tolist() == base["packets_sent"].tolist()
    assert linux["packets_sent"].tolist() != base["packets_sent"].tolist()


def test_unknown_profiles_are_errors_naming_the_field():
    with pytest.raises(aqmlab.ScenarioError, match=r"tcp\.profile.*did you mean `linux`"):
        aqmlab.run({**SMALL, "tcp": {"profile": "linx"}}, seed=1)
    with pytest.raises(aqmlab.ScenarioError, match=r"tcp\.profile"):
        with_tcp_profile(SMALL, "bsd")


def test_packaged_scenarios_load_by_name():
    assert {"default-dumbbell", "identical-dumbbell"} <= set(packaged_scenarios())
    s = load_scenario("identical-dumbbell")
    assert s["name"] == "identical-dumbbell" and s["tcp"]["recovery"] == "rfc6675"


def test_compare_takes_a_tcp_profile():
    res = CliRunner().invoke(app, ["compare", "--tcp", "linux", "--aqm", "red", "--duration", "3", "--json", "-q"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["rows"]
    assert [r["AQM"] for r in rows] == ["red"]


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"timestamps": True}, "tcp.timestamps"),
        ({"dsack": True}, "tcp.dsack"),
        ({"hystart": {"enabled": True}}, "tcp.hystart.enabled"),
        ({"rack_tlp": {"enabled": True}}, "tcp.rack_tlp.enabled"),
        ({"rto_restart": "head_retransmission"}, "tcp.rto_restart"),
        ({"hystart": {"kind": "linux"}}, "tcp.hystart.kind"),
        ({"ssthresh_base": "cwnd"}, "tcp.ssthresh_base"),
        ({"cubic": {"target_rtt": "min_rtt"}}, "tcp.cubic.target_rtt"),
        ({"cubic": {"state_on_rto": "reset"}}, "tcp.cubic.state_on_rto"),
        ({"rto_estimator": "linux"}, "tcp.rto_estimator"),
        ({"timeout_response": "linux"}, "tcp.timeout_response"),
        ({"frto": True}, "tcp.frto"),
        ({"grow_only_when_cwnd_limited": True}, "tcp.grow_only_when_cwnd_limited"),
        ({"timeout_marks": "linux"}, "tcp.timeout_marks"),
        ({"ecn_fallback": True}, "tcp.ecn_fallback"),
        ({"syn_ect": "linux"}, "tcp.syn_ect"),
        ({"ecn": True, "ecn_feedback": "accecn"}, "tcp.ecn_feedback"),
    ],
)
def test_modern_tcp_fields_need_the_rfc6675_sender(fields, field):
    # With the ns-2 agents these would be silently ignored; they are refused instead.
    bad = {**SMALL, "tcp": {**SMALL["tcp"], **fields}}
    with pytest.raises(aqmlab.ScenarioError, match=rf"{field}.*needs recovery = \"rfc6675\""):
        aqmlab.run(bad, seed=1)
    aqmlab.run({**SMALL, "tcp": {**SMALL["tcp"], **fields, "recovery": "rfc6675"}}, seed=1)


def test_rack_tlp_field_errors_name_the_field():
    tcp = {**SMALL["tcp"], "recovery": "rfc6675"}
    with pytest.raises(aqmlab.ScenarioError, match=r"tcp\.rack_tlp\.max_ack_delay.*at most 60s"):
        aqmlab.run({**SMALL, "tcp": {**tcp, "rack_tlp": {"enabled": True, "max_ack_delay": "61s"}}}, seed=1)
    with pytest.raises(aqmlab.ScenarioError, match=r"rack_tlp.*probe_delay"):
        aqmlab.run({**SMALL, "tcp": {**tcp, "rack_tlp": {"probe_delay": "1s"}}}, seed=1)


def test_the_linux_profile_probes_tails():
    # 20 bulk flows through a 30-packet DropTail queue: under the linux profile (RACK-TLP)
    # tails are probed; a probe is a packet sent.
    s = {**SMALL, "duration": "20s", "topology": {**SMALL["topology"], "senders": 20}}
    flows = aqmlab.run(with_tcp_profile(s, "linux"), seed=2).flows
    assert flows["tail_loss_probes"].sum() > 0
    assert (flows["tail_loss_probes"] <= flows["packets_sent"]).all()
    ns2 = aqmlab.run(with_tcp_profile(s, "ns2"), seed=2).flows
    assert ns2["tail_loss_probes"].sum() == 0


# The identical dumbbell (DropTail 50, N = 100) with the linux profile and RFC 6937's Slow
# Start Reduction Bound, the bound the profile had before issue 25: each recovery ACK released
# a [repair, new packet] pair, the repair always dropped, the RTO always re-armed, while the
# window grew at each recovery's end by every packet the cumulative ACK covered (SACKed ones
# again). Since issue 26 the growth counts the packets an ACK newly delivers, as Linux does,
# and the old bound alone no longer loops.
LOOPING = {
    "duration": "30s",
    "warmup": "10s",
    "topology": {
        "kind": "dumbbell",
        "senders": 100,
        "bottleneck": {"rate": "10Mbps", "delay": "100ms", "queue": {"limit": 50, "aqm": "droptail"}},
        "access": {"rate": "100Mbps", "delay": "1ms"},
    },
    "tcp": {"profile": "linux", "packet_size": 1000, "header_size": 42, "ack_size": 42},
    "flows": [{"kind": "tcp", "from": "senders", "to": "receivers", "start": {"uniform": ["0s", "1s"]}}],
}


def test_the_loop_prone_bound_is_named_before_the_run_and_neither_bound_loops():
    old_bound = {**LOOPING, "tcp": {**LOOPING["tcp"], "prr_bound": "ssrb"}}
    with pytest.warns(aqmlab.ScenarioWarning) as caught:
        r = aqmlab.run(old_bound, seed=1)
    messages = [str(w.message) for w in caught]
    assert any(m.startswith('flows[0].tcp.prr_bound: "ssrb" with RACK-TLP') for m in messages), messages
    assert r.warnings == []
    assert r.queue("bottleneck")["loss_rate"] < 0.2
    fixed = aqmlab.run(LOOPING, seed=1)
    assert fixed.warnings == []
    assert fixed.flows["max_transmissions_of_a_segment"].max() <= 12
    assert fixed.queue("bottleneck")["loss_rate"] < 0.2


def test_the_ns3_profile_runs_and_resolved_tcp_shows_what_a_flow_got():
    """Issue 25: `profile = "ns3"` (ns-3.37's TcpSocketBase choices) expands as documented,
    under the scenario's own fields, and changes the run."""
    from aqmlab.scenario import resolved_tcp

    s = with_tcp_profile(SMALL, "ns3")
    tcp = resolved_tcp(s)[0]
    assert tcp["recovery"] == "rfc6675" and tcp["ssthresh_base"] == "pipe"
    assert tcp["rtt_sampling"] == "oldest_unacked" and tcp["rto_estimator"] == "ns3"
    assert tcp["handshake"] == "syn" and tcp["partial_ack_timer"] == "first"
    assert tcp["window"] == 32, "the scenario's window is kept"
    assert resolved_tcp(SMALL)[0]["ssthresh_base"] == "flight_size"
    own = resolved_tcp({**SMALL, "tcp": {"profile": "ns3", "ssthresh_base": "cwnd"}})[0]
    assert own["ssthresh_base"] == "cwnd" and own["handshake"] == "syn"
    base = aqmlab.run(SMALL, seed=3).flows
    ns3 = aqmlab.run(s, seed=3).flows
    assert ns3["packets_sent"].tolist() != base["packets_sent"].tolist()
    with pytest.raises(aqmlab.ScenarioError, match=r"tcp\.ssthresh_base"):
        resolved_tcp({**SMALL, "tcp": {"ssthresh_base": "pipe"}})
