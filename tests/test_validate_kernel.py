"""Issue 37: `aqmlab validate-kernel`, a dumbbell scenario simulated and run in the reference
kernel. The AQM -> tc mapping and the refusals need no kernel (they run in CI); the end-to-end
run needs `make uml-kernel` (skipped without it, saying so)."""

from __future__ import annotations

import math
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from aqmlab.emulation import uml_kernel
from aqmlab.emulation.kernel_guest import QdiscStats
from aqmlab.emulation.kernel_qdiscs import KernelRefusal, qdisc_args, red_burst, tc_red_eval_ewma
from aqmlab.emulation.tcp_info import decode_dctcp_alpha
from aqmlab.emulation.validate_kernel import kernel_metrics, plan_kernel, setup_commands, validate_kernel
from aqmlab.scenario import resolve_scenario

ROOT = Path(__file__).resolve().parent.parent
MTU = 1040  # the default packet: 1000 bytes of payload and 40 of headers
RATE = 10e6


def scenario(aqm: Any = "fq_codel", *, flows: list[dict[str, Any]] | None = None, **top: Any) -> dict[str, Any]:
    s: dict[str, Any] = {
        "name": "vk",
        "duration": "10s",
        "warmup": "2s",
        "topology": {
            "kind": "dumbbell",
            "senders": 4,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"limit": 100, "aqm": aqm}},
            "access": {"rate": "100Mbps", "delay": ["1ms", "3ms"]},
        },
        "tcp": {"profile": "linux"},
        "flows": flows or [{"kind": "tcp", "from": "senders", "to": "receivers", "start": {"uniform": ["0s", "1s"]}}],
    }
    s.update(top)
    return s


def mapped(aqm: Any) -> tuple[str, tuple[str, ...]]:
    """The leaf qdisc for ``aqm`` written at a 100-packet, 10 Mb/s bottleneck."""
    resolved = resolve_scenario(scenario(aqm))["topology"]["bottleneck"]["queue"]["aqm"]
    q = qdisc_args(resolved, limit=100, rate=RATE, mtu=MTU, written=aqm if isinstance(aqm, dict) else {})
    return q.args, q.notes


# ------------------------------------------------------------------ the mapping (no kernel)


def test_droptail_is_pfifo() -> None:
    assert mapped("droptail")[0] == "pfifo limit 100"


def test_red_thresholds_in_bytes_and_the_weight_through_burst() -> None:
    args, notes = mapped({"kind": "red", "min_th": 10, "max_th": 30, "gentle": False})
    # w_q 0.002 -> Wlog 9 (2^-9 = 0.00195); tc derives Wlog from burst: 72 is the least burst for 9 (71 gives 8)
    assert args == "red limit 104000 min 10400 max 31200 avpkt 1040 burst 72 probability 0.1 bandwidth 10000000bit"
    assert tc_red_eval_ewma(10400, 72, 1040) == 9 and tc_red_eval_ewma(10400, 71, 1040) == 8
    assert any("2^-9" in n for n in notes)
    ecn, _ = mapped({"kind": "red", "min_th": 10, "max_th": 30, "gentle": False, "ecn": True})
    # mark_p (0.1) = max_p: the simulator drops above max_th, as Linux's harddrop
    assert ecn.endswith("probability 0.1 bandwidth 10000000bit ecn harddrop")


def test_red_wait_is_linux_spreading_only_without_ns2_wait() -> None:
    # Linux's red signals when p_b x count >= a uniform draw (red_mark_probability): aqmlab's
    # wait = false. The default wait = true (ns-2's p_b / (2 - count p_b)) runs with a note;
    # written, it is refused.
    _, default = mapped({"kind": "red", "min_th": 10, "max_th": 30, "gentle": False})
    assert any(n.startswith("wait = True not carried") for n in default)
    _, linux = mapped({"kind": "red", "min_th": 10, "max_th": 30, "gentle": False, "wait": False})
    assert not any(n.startswith("wait") for n in linux)
    with pytest.raises(KernelRefusal, match=r"aqm\.wait"):
        mapped({"kind": "red", "min_th": 10, "max_th": 30, "gentle": False, "wait": True})


def test_red_under_htb_keeps_its_average_over_idle_time() -> None:
    # htb never dequeues an empty leaf, so Linux's red never starts an idle period
    # (htb_dequeue_tree, red_dequeue): aqmlab's idle_decay = false. The default (true, the
    # paper's and ns-2's decay) runs with a note; written, it is refused.
    base = {"kind": "red", "min_th": 10, "max_th": 30, "gentle": False, "wait": False}
    _, default = mapped(base)
    assert any(n.startswith("idle_decay = True not carried") for n in default)
    _, linux = mapped({**base, "idle_decay": False})
    assert not any(n.startswith("idle_decay") for n in linux)
    with pytest.raises(KernelRefusal, match=r"aqm\.idle_decay"):
        mapped({**base, "idle_decay": True})


@pytest.mark.parametrize(
    ("aqm", "field", "kernels"),
    [
        ("red", "short_queue_exempt", False),
        ("codel", "inv_sqrt", "linux"),
        ("codel", "clock_at_start", "1s"),
        ("fq_codel", "inv_sqrt", "linux"),
        ("fq_codel", "clock_at_start", "1s"),
        ("cobalt", "queue_empty", "never"),
        ("step_marking", "average_weight", 0.5),
    ],
)
def test_the_kernels_own_readings_are_carried_notes_or_refused(aqm: str, field: str, kernels: Any) -> None:
    """Each qdisc reading the grid found (docs/readings.md, issue 37's fourth session): the
    kernel's value maps without a note, aqmlab's default is a note, another value written is
    refused naming the field."""
    base: dict[str, Any] = (
        {"kind": aqm, "min_th": 10, "max_th": 30, "gentle": False, "wait": False, "idle_decay": False}
        if aqm == "red"
        else {"kind": aqm}
    )
    assert not [n for n in mapped(base | {field: kernels})[1] if n.startswith(field)]
    assert [n for n in mapped(base)[1] if n.startswith(f"{field} = ")]
    other = {"short_queue_exempt": True, "inv_sqrt": "exact", "clock_at_start": "0s", "queue_empty": "link_idle",
             "average_weight": 1.0}[field]  # fmt: skip
    with pytest.raises(KernelRefusal, match=rf"aqm\.{field}"):
        mapped(base | {field: other})


def test_pie_with_ecn_keeps_accu_prob_after_a_forced_mark_as_the_kernel() -> None:
    # pie_drop_early clears accu_prob on a random pick only, the enqueue on a drop only: a mark
    # the 8.5 bound forced leaves it (aqmlab's accu_prob_reset = "linux"). Without ECN no pick
    # is marked, so nothing to say.
    _, plain = mapped({"kind": "pie"})
    assert not any(n.startswith("accu_prob_reset") for n in plain)
    _, default = mapped({"kind": "pie", "ecn": True})
    assert any(n.startswith("accu_prob_reset = 'rfc8033' not carried") for n in default)
    _, linux = mapped({"kind": "pie", "ecn": True, "accu_prob_reset": "linux"})
    assert not any(n.startswith("accu_prob_reset") for n in linux)
    with pytest.raises(KernelRefusal, match=r"aqm\.accu_prob_reset"):
        mapped({"kind": "pie", "ecn": True, "accu_prob_reset": "rfc8033"})
    _, fq = mapped({"kind": "fq_pie", "ecn": True})  # fq_pie's default is Linux's
    assert not any(n.startswith("accu_prob_reset") for n in fq)


def test_pie_times_in_us_and_gains_in_sixteenths() -> None:
    args, notes = mapped("pie")
    assert args == "pie limit 100 target 15000us tupdate 15000us alpha 2 beta 20 noecn"
    assert any("t_update = 15 ms runs as 20 ms" in n for n in notes)
    assert any(n.startswith("decay = 'rfc8033' not carried") for n in notes)
    assert not any(n.startswith("max_burst") for n in notes)  # the default is the kernel's 150 ms
    ecn, _ = mapped({"kind": "pie", "target": "20ms", "alpha": 0.25, "beta": 2.0, "ecn": True})
    assert ecn == "pie limit 100 target 20000us tupdate 15000us alpha 4 beta 32 ecn"


def test_codel_fq_codel_fq_pie() -> None:
    assert mapped("codel")[0] == "codel limit 100 target 5000us interval 100000us noecn"
    assert mapped("fq_codel")[0] == (
        "fq_codel limit 100 flows 1024 quantum 1514 target 5000us interval 100000us ecn drop_batch 64"
    )
    assert mapped({"kind": "fq_codel", "limit": 50, "ecn": False, "target": "2ms"})[0] == (
        "fq_codel limit 50 flows 1024 quantum 1514 target 2000us interval 100000us noecn drop_batch 64"
    )
    l4s = {"kind": "fq_codel", "ce_threshold": "1ms", "ce_threshold_selector": 1, "ce_threshold_mask": 1}
    assert mapped(l4s)[0].endswith(" drop_batch 64 ce_threshold 1000us ce_threshold_selector 0x1/0x1")
    assert mapped("fq_pie")[0] == (
        "fq_pie limit 100 flows 1024 quantum 1514 target 15000us tupdate 15000us alpha 2 beta 20 ecn_prob 10 noecn"
    )


def test_cobalt_is_a_flowblind_cake() -> None:
    args, notes = mapped("cobalt")
    assert args == (
        # memlimit: 100 segments of 1,000 payload bytes at the guest's truesize, 1,280 + 1,000 B
        "cake unlimited rtt 100000us besteffort flowblind nowash no-ack-filter split-gso raw memlimit 228000"
    )
    assert any(n.startswith("rate_adjust") for n in notes)


def test_cake_with_its_parameters() -> None:
    # Unshaped: the simulated buffer is 100 x 1514 bytes of packet sizes, 145 segments of 1040 B,
    # which at the guest's truesize (1280 + 1000 B each) is 330,600 B. The bottleneck's size
    # table takes 14 B off what cake sees: raw here (IP + 14) is overhead 14 + 14 there.
    args, notes = mapped("cake")
    assert args == (
        "cake unlimited rtt 100000us diffserv3 triple-isolate nowash no-ack-filter split-gso overhead 28 "
        "mpu 0 noatm memlimit 330600"
    )
    assert any(n.startswith("mtu") for n in notes)  # 1514 here, the guest's 1054
    # Shaped: 4 x 1 MB/s x 0.1 s = 400 kB, raised to 4 MiB, capped by the same buffer.
    args, _ = mapped(
        {
            "kind": "cake",
            "bandwidth": "8Mbps",
            "overhead": 18,
            "atm": "atm",
            "ack_filter": "aggressive",
            "isolation": "dual-srchost",
            "diffserv": "besteffort",
        }
    )
    assert args == (
        "cake bandwidth 8000000bit rtt 100000us besteffort dual-srchost nowash ack-filter-aggressive split-gso "
        "overhead 32 mpu 0 atm memlimit 330600"
    )


def test_step_marking_is_red_with_min_equal_to_max() -> None:
    args, notes = mapped({"kind": "step_marking", "k_packets": 20})
    # more than 20 packets waiting: at least 20 * 1040 + 1 bytes; weight 1/2 (burst 21 -> Wlog 1)
    assert args == "red limit 104000 min 20801 max 20801 avpkt 1040 burst 21 probability 1 bandwidth 10000000bit ecn"
    assert red_burst(20801, 1040, 1) == 21
    assert any("weight 1/2" in n for n in notes)


def test_the_bottleneck_in_the_guest() -> None:
    cmds = setup_commands(plan_kernel(scenario("pie"), 1))
    assert "tc -n r0 qdisc add dev b0 root handle 1: stab overhead -14 htb default 1" in cmds
    assert (
        "tc -n r0 class add dev b0 parent 1: classid 1:1 htb rate 10000000bit ceil 10000000bit burst 1040b cburst 1040b"
        in cmds
    )
    assert (
        "tc -n r0 qdisc add dev b0 parent 1:1 handle 10: pie limit 100 target 15000us tupdate 15000us alpha 2 beta 20 noecn"
        in cmds
    )
    # the receivers' side carries the bottleneck's delay after its queue: 10 ms + 3 ms; netem's
    # limit: the queue's 1000 + 155 packets in 13 ms at 100 Mb/s (1054-byte frames) + 1
    assert "tc -n r1 qdisc add dev d1 root netem delay 13000us rate 100000000bit limit 1156" in cmds
    # the socket buffers hold the profile's window of 2048 packets of 1000 bytes: tcp_rmem[2] =
    # 2 x 2048 x 1000 (half is advertised), tcp_wmem[2] = 2 x 2048 x (1000 + 1280 of skb truesize)
    assert (
        "ip netns exec s0 sysctl -qw net.ipv4.tcp_ecn=2 net.ipv4.tcp_sack=1 net.ipv4.tcp_dsack=1 net.ipv4.tcp_timestamps=1"
        " 'net.ipv4.tcp_rmem=4096 131072 4096000' 'net.ipv4.tcp_wmem=4096 16384 9338880'" in cmds
    )


def test_a_paced_sender_sends_one_segment_per_skb_as_the_guest() -> None:
    # The guest's veths have gso_max_segs 1 (tcp_tso_segs caps every skb at one segment): the
    # bbr profile's linux_autosize is a note by default, refused when written; none is carried.
    bbr = plan_kernel(scenario(tcp={"profile": "bbr"}), 1)
    assert any(n.startswith("segmentation_offload = 'linux_autosize' not carried") for n in bbr.notes)
    one = plan_kernel(scenario(tcp={"profile": "bbr", "segmentation_offload": "none"}), 1)
    assert not any(n.startswith("segmentation_offload") for n in one.notes)
    cubic = plan_kernel(scenario(), 1)  # not paced: TSO sizing changes nothing, nothing to say
    assert not any(n.startswith("segmentation_offload") for n in cubic.notes)
    with pytest.raises(KernelRefusal, match=r"^tcp\.segmentation_offload: 'linux_autosize'"):
        plan_kernel(scenario(tcp={"profile": "bbr", "segmentation_offload": "linux_autosize"}), 1)


def test_dctcp_alpha_from_tcp_cc_info_and_its_mean() -> None:
    # struct tcp_dctcp_info: u16 enabled, u16 ce_state, u32 alpha, u32 ab_ecn, u32 ab_tot; a
    # socket that fell back to dctcp_reno (no ECN negotiated) reports enabled 0: no sample.
    raw = (1).to_bytes(2, "little") + (0).to_bytes(2, "little") + (256).to_bytes(4, "little") + bytes(8)
    assert decode_dctcp_alpha(raw) == 256
    assert decode_dctcp_alpha(bytes(2) + raw[2:]) is None
    snap = {"t": 0.0, "qdisc": {"packets": 0, "bytes": 0, "drops": 0, "marks": 0, "qlen": 0}, "flows": {}}
    end = {**snap, "t": 1.0}
    flows = [
        {"flow": 0, "group": "flows[0]", "srtt_us_samples": [], "dctcp_alpha_samples": [256, 512]},
        {"flow": 1, "group": "flows[0]", "srtt_us_samples": [], "dctcp_alpha_samples": [768]},
    ]
    for f in flows:
        for s in (snap, end):
            s["flows"][str(f["flow"])] = {"bytes_received": 0, "total_retrans": 0}
    report = {"warmup": snap, "end": end, "qlen_samples": [0], "flows": flows}
    # every sample of every DCTCP sender: (256 + 512 + 768) / 3 / 1024 = 0.5
    assert kernel_metrics(report, 10e6)["flows[0].dctcp_alpha"] == 0.5
    no_dctcp = {**report, "flows": [{**f, "dctcp_alpha_samples": []} for f in flows]}
    assert math.isnan(kernel_metrics(no_dctcp, 10e6)["flows[0].dctcp_alpha"])


# ------------------------------------------------------------------ refusals (no kernel)


@pytest.mark.parametrize(
    ("s", "message"),
    [
        (scenario({"kind": "newque"}), "topology.bottleneck.queue.aqm: newque has no Linux qdisc"),
        (scenario({"kind": "dualpi2", "coupling": 1.5}), "topology.bottleneck.queue.aqm.coupling: 1.5: the kernel's"),
        (
            scenario({"kind": "dualpi2", "alpha": 0.2}),
            "topology.bottleneck.queue.aqm.alpha: 0.2: the kernel takes alpha",
        ),
        (scenario({"kind": "dualpi2", "ecn": False}), "topology.bottleneck.queue.aqm.ecn: False: sch_dualpi2 marks"),
        (
            scenario(
                "dualpi2",
                flows=[
                    {"kind": "tcp", "from": "s0", "to": "d0", "tcp": {"profile": "dctcp", "ecn_codepoint": "ect1"}},
                    {"kind": "tcp", "from": "s1", "to": "d1", "tcp": {"profile": "linux", "ecn": True}},
                ],
            ),
            "flows: ECT(0) and ECT(1) flows together through dualpi2",
        ),
        (
            scenario(
                flows=[
                    {"kind": "tcp", "from": "s0", "to": "d0", "tcp": {"profile": "dctcp"}},
                    {"kind": "tcp", "from": "s0", "to": "d1", "tcp": {"profile": "linux"}},
                ],
            ),
            "flows: host s0 needs tcp_ecn [1, 2]",
        ),
        (scenario("red"), "topology.bottleneck.queue.aqm.gentle: true by default: Linux's red has no gentle region"),
        (scenario({"kind": "pie", "alpha": 0.1}), "topology.bottleneck.queue.aqm.alpha: 0.1: the kernel takes whole"),
        (
            scenario({"kind": "pie", "max_burst": "100ms"}),
            "topology.bottleneck.queue.aqm.max_burst: 0.1: sch_pie's burst allowance is 150 ms",
        ),
        (
            scenario({"kind": "red", "gentle": False, "ecn": True, "mark_p": 0.05}),
            "topology.bottleneck.queue.aqm.mark_p: 0.05 < max_p 0.1",
        ),
        (scenario({"kind": "step_marking", "k_sojourn": "1ms"}), "topology.bottleneck.queue.aqm.k_sojourn: a step"),
        (scenario({"kind": "cobalt", "target": "2ms"}), "topology.bottleneck.queue.aqm.target: target 2 ms"),
        (scenario({"kind": "cake", "target": "2ms"}), "topology.bottleneck.queue.aqm.target: target 2 ms with rtt"),
        (
            scenario(flows=[{"kind": "tcp", "from": "senders", "to": "receivers", "dscp": 8}]),
            "flows[0].dscp: the guest's sockets do not set a TOS",
        ),
        (
            scenario({"kind": "fq", "ce_threshold": "1ms"}),
            "topology.bottleneck.queue.aqm.ce_threshold: in the guest the sender's departure timestamp",
        ),
        (scenario(tcp={"profile": "ns2"}), "tcp.profile: 'ns2': the kernel is a Linux host"),
        (scenario(tcp={}), "tcp.profile: not set (the ns-2 agents): the kernel is a Linux host"),
        (scenario(tcp={"profile": "prague"}), "tcp.profile: 'prague'"),
        (
            scenario(
                flows=[
                    {"kind": "tcp", "from": "s0", "to": "d0", "tcp": {"profile": "dctcp", "ecn_feedback": "accecn"}},
                    {
                        "kind": "tcp",
                        "from": "s1",
                        "to": "d0",
                        "tcp": {"profile": "dctcp", "ecn_feedback": "accecn", "receiver_accecn": False},
                    },
                ]
            ),
            "flows: host d0 needs tcp_ecn [1, 3]",
        ),
        (
            scenario(
                flows=[
                    {"kind": "tcp", "from": "s0", "to": "d0", "tcp": {"profile": "dctcp", "ecn_feedback": "accecn"}},
                    {
                        "kind": "tcp",
                        "from": "s1",
                        "to": "d1",
                        "tcp": {"profile": "dctcp", "ecn_feedback": "accecn", "accecn_option": "minimum"},
                    },
                ]
            ),
            "flows: accecn_option differs between flows",
        ),
        (
            scenario(flows=[{"kind": "cbr", "from": "senders", "to": "receivers", "rate": "1Mbps"}]),
            "flows[0].kind: 'cbr': this version runs long-lived TCP flows only",
        ),
        (
            scenario(flows=[{"kind": "tcp", "from": "senders", "to": "receivers", "size": "1MB"}]),
            "flows[0].size: this version runs long-lived TCP flows only",
        ),
    ],
)
def test_refusals_name_the_field(s: dict[str, Any], message: str) -> None:
    _assert_refused(s, message)


@pytest.mark.parametrize("part", ["bottleneck", "receiver_access"])
def test_netem_jitter_and_slots_off_the_senders_access_are_refused(part: str) -> None:
    s = scenario()
    s["topology"].setdefault(part, {"rate": "100Mbps"})["reverse_netem"] = {"slot": {"min_delay": "1ms"}}
    _assert_refused(
        s, f"topology.{part}.reverse_netem: netem jitter and slots run in the reference kernel on the access"
    )


@pytest.mark.parametrize("part", ["bottleneck", "access", "receiver_access"])
def test_a_wifi_link_is_refused(part: str) -> None:
    s = scenario()
    s["topology"].setdefault(part, {"rate": "100Mbps"})["wifi"] = {}
    _assert_refused(s, f"topology.{part}.wifi: the Wi-Fi link is not run in the reference kernel")


@pytest.mark.parametrize("part", ["bottleneck", "access", "receiver_access"])
def test_a_docsis_upstream_is_refused(part: str) -> None:
    s = scenario()
    s["topology"].setdefault(part, {"rate": "100Mbps"})["docsis"] = {"max_grant": 100}
    _assert_refused(s, f"topology.{part}.docsis: the DOCSIS upstream is not run in the reference kernel")


def test_the_senders_access_netem_is_the_guests_netem() -> None:
    # tc netem's own syntax: jitter after the delay, the slot after the limit; forward on the
    # sender's device, reverse on the router's device toward it.
    s = scenario()
    slot = {"min_delay": "800us", "max_delay": "5ms", "packets": 16, "bytes": 20000}
    s["topology"]["access"]["netem"] = {"slot": slot}
    s["topology"]["access"]["reverse_netem"] = {"jitter": "2ms", "reorder": False, "jitter_distribution": "normal"}
    cmds = setup_commands(plan_kernel(s, 1))
    sender = next(c for c in cmds if c.startswith("tc -n s0 qdisc add dev e0"))
    router = next(c for c in cmds if c.startswith("tc -n r0 qdisc add dev s0"))
    assert sender.endswith("slot 800us 5000us packets 16 bytes 20000")
    assert "delay 1000us 2000us distribution normal rate" in router
    # receiver_access is access when not written: its netem too, on the receivers' links (the
    # forward one toward the receiver carrying the bottleneck's delay as well)
    receiver = next(c for c in cmds if c.startswith("tc -n d0 qdisc add dev e0"))
    toward = next(c for c in cmds if c.startswith("tc -n r1 qdisc add dev d0"))
    assert "2000us distribution normal" in receiver and toward.endswith("packets 16 bytes 20000")
    s["topology"]["receiver_access"] = {"rate": "100Mbps"}
    cmds = setup_commands(plan_kernel(s, 1))
    assert not any("slot" in c or "distribution" in c for c in cmds if c.startswith(("tc -n d0", "tc -n r1")))
    s["topology"]["access"]["netem"] = {"jitter": "2ms"}
    _assert_refused(s, "topology.access.netem.reorder: true (the default): the guest's netem also has the link's rate")


def _assert_refused(s: dict[str, Any], message: str) -> None:
    with pytest.raises(KernelRefusal) as e:
        plan_kernel(s, 1)
    assert str(e.value).startswith(message)
    assert "\n" not in str(e.value)


def test_graph_topology_refused() -> None:
    s = scenario()
    s["topology"] = {
        "kind": "graph",
        "nodes": ["a", "b"],
        "links": [{"from": "a", "to": "b", "rate": "10Mbps", "delay": "5ms", "name": "bottleneck"}],
    }
    s["flows"] = [{"kind": "tcp", "from": "a", "to": "b"}]
    with pytest.raises(KernelRefusal, match=r"^topology.kind: 'graph': this version runs dumbbells only"):
        plan_kernel(s, 1)


def test_cli_refusal_is_one_line_and_exit_3(tmp_path: Path) -> None:
    import json

    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario({"kind": "newque"})))
    p = subprocess.run(
        [sys.executable, "-m", "aqmlab", "validate-kernel", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert p.returncode == 3, p.stderr
    assert p.stderr.strip().splitlines() == [
        "not valid: the reference kernel cannot run this: topology.bottleneck.queue.aqm: newque has no Linux qdisc"
    ]


# ------------------------------------------------------------------ in the kernel


def _kernel() -> Path:
    try:
        return uml_kernel.find_kernel()
    except uml_kernel.UmlKernelMissing as e:
        pytest.skip(str(e))


def test_end_to_end_bounds_and_determinism() -> None:
    _kernel()
    s = scenario("pie")
    v = validate_kernel(s, [1])
    rows = {(r["where"], r["metric"]): r for r in v.rows()}
    util = rows[("bottleneck", "utilization")]["kernel"]
    assert 0.5 < util <= 1.0
    assert rows[("flows[0]", "goodput")]["kernel"] <= RATE / 1e6
    for metric in ("drop_rate", "mark_rate"):
        assert 0.0 <= rows[("bottleneck", metric)]["kernel"] <= 1.0
    assert rows[("bottleneck", "mean_queue")]["kernel"] >= 0
    assert rows[("flows[0]", "mean_rtt")]["kernel"] >= 2 * (10 + 1)  # the shortest path's round trip, ms
    for r in v.rows():
        assert math.isfinite(r["simulated"]), r  # the simulation's column is there
    assert v.kernel[0].guest_s >= 10.0  # the guest's clock ran the scenario's duration
    again = validate_kernel(s, [1], simulate=False)
    assert again.kernel[0].metrics == v.kernel[0].metrics
    assert again.kernel[0].report == v.kernel[0].report


def test_marks_with_a_ce_threshold_count_each_packet_once() -> None:
    # tc -s of fq_codel with ce_threshold 1 ms (iproute2 6.1): CoDel's ecn_mark and the
    # threshold's ce_mark are two counters, and each CoDel mark (a sojourn above the 5 ms
    # target) is in ce_mark too: 5 packets were marked, not 7.
    from aqmlab.emulation.kernel_guest import leaf_marks

    tc = (
        "qdisc htb 1: root refcnt 2 r2q 10 default 0x1 direct_packets_stat 0\n"
        " Sent 100 bytes 1 pkt (dropped 0, overlimits 0 requeues 0)\n"
        "qdisc fq_codel 10: parent 1:1 limit 100p flows 1024 quantum 1054 target 5ms ce_threshold 1ms\n"
        " Sent 9000 bytes 9 pkt (dropped 1, overlimits 0 requeues 0)\n"
        "  maxpacket 1054 drop_overlimit 0 new_flow_count 3 ecn_mark 2 ce_mark 5\n"
    )
    assert leaf_marks(tc, "10:") == 5
    assert leaf_marks(tc.replace(" ce_mark 5", ""), "10:") == 2


# ------------------------------------------------------------------ DualPI2 on Linux 7.3 (no kernel)


def test_dualpi2_runs_on_the_second_kernel_with_its_parameters_by_netlink() -> None:
    resolved = resolve_scenario(scenario("dualpi2"))["topology"]["bottleneck"]["queue"]["aqm"]
    q = qdisc_args(resolved, limit=100, rate=RATE, mtu=1500)
    assert (q.args, q.kind, q.release) == ("dualpi2", "dualpi2", "7.3")
    # Linux's defaults (dualpi2_reset_default) as TCA_DUALPI2_* values: alpha 0.16 Hz = 41/256,
    # beta 3.2 Hz = 819/256 (rounded as the kernel's own defaults are), times in microseconds,
    # the limit the smaller of the queue's and the AQM's
    assert dict(q.netlink) == {
        "limit": 100,
        "target_us": 15000,
        "tupdate_us": 16000,
        "alpha": 41,
        "beta": 819,
        "coupling": 2,
        "min_qlen_step": 0,
        "drop_overload": 1,
        "drop_early": 0,
        "c_protection": 10,
        "step_thresh_us": 1000,
    }
    assert q.notes == ()  # 1500-byte packets: psched_mtu 1514 is aqmlab's mtu
    steps = dict(
        qdisc_args({**resolved, "step_packets": 3, "min_qlen_step": 2}, limit=100, rate=RATE, mtu=1500).netlink
    )
    assert (steps["step_thresh_pkts"], steps["min_qlen_step"]) == (3, 2) and "step_thresh_us" not in steps


def test_dualpi2_classification_follows_the_flows_codepoints() -> None:
    l4s = [{"kind": "tcp", "from": "senders", "to": "receivers", "tcp": {"profile": "dctcp", "ecn_codepoint": "ect1"}}]
    plan = plan_kernel(scenario("dualpi2", flows=l4s), 1)
    # the kernel's DCTCP sends ECT(0): the mask "any ECT" puts it in L, as the simulation's ECT(1)
    assert dict(plan.qdisc.netlink)["ecn_mask"] == 3
    classic = plan_kernel(scenario("dualpi2", tcp={"profile": "linux", "ecn": True}), 1)
    assert "ecn_mask" not in dict(classic.qdisc.netlink)  # the default, ECT(1) only: ECT(0) is Classic
    cmds = setup_commands(plan)
    change = next(c for c in cmds if "qdisc_netlink" in c)
    assert change.startswith("ip netns exec r0 ") and change.endswith(
        " b0 10: " + " ".join(f"{k}={v}" for k, v in plan.qdisc.netlink)
    )
    assert cmds.index(change) == cmds.index("tc -n r0 qdisc add dev b0 parent 1:1 handle 10: dualpi2") + 1


def test_ecn_is_each_senders_own_when_the_flows_differ() -> None:
    mixed = [
        {"kind": "tcp", "from": ["s0", "s1"], "to": ["d0", "d1"], "tcp": {"profile": "dctcp"}},
        {"kind": "tcp", "from": ["s2", "s3"], "to": ["d2", "d3"], "tcp": {"profile": "linux"}},
    ]
    plan = plan_kernel(scenario("fq_codel", flows=mixed), 1)
    assert plan.sysctls["net.ipv4.tcp_ecn"] == 2  # accept ECN only (Linux's default) everywhere else
    assert plan.host_sysctls == {"s0": {"net.ipv4.tcp_ecn": 1}, "s1": {"net.ipv4.tcp_ecn": 1}}
    lines = [c for c in setup_commands(plan) if " sysctl -qw net.ipv4.tcp_ecn" in c]
    assert [c.split()[3] for c in lines if "tcp_ecn=1" in c] == ["s0", "s1"]
    same = plan_kernel(scenario("fq_codel", tcp={"profile": "linux", "ecn": True}), 1)
    assert same.sysctls["net.ipv4.tcp_ecn"] == 1 and same.host_sysctls == {}


def test_the_second_kernel_is_found_or_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AQMLAB_CACHE", str(tmp_path))
    monkeypatch.delenv("AQMLAB_UML_KERNEL_L4S", raising=False)
    with pytest.raises(uml_kernel.UmlKernelMissing, match=r"Linux 7\.3.*make uml-kernel-l4s-upstream"):
        uml_kernel.find_kernel("7.3")
    with pytest.raises(ValueError, match="release '5.4': the reference kernels are 6.1, 7.3"):
        uml_kernel.find_kernel("5.4")


def test_dualpi2_marks_from_its_extended_statistics() -> None:
    # RTM_GETQDISC's attributes as the kernel dumps them: TCA_KIND "dualpi2", TCA_STATS (struct
    # tc_stats: bytes u64, packets, drops, overlimits, bps, pps, qlen, backlog), TCA_XSTATS
    # (struct tc_dualpi2_xstats: ecn_mark the seventh u32)
    def attr(kind: int, payload: bytes) -> bytes:
        return struct.pack("=HH", 4 + len(payload), kind) + payload + b"\0" * (-len(payload) % 4)

    stats = struct.pack("=QIIIIIII", 1_500_000, 1000, 7, 0, 0, 0, 3, 4500)
    xstats = struct.pack("=IIIIIIII", 0, 0, 0, 600, 400, 20, 123, 45)
    attrs = attr(1, b"dualpi2\0") + attr(3, stats) + attr(4, xstats)
    assert QdiscStats._stats(attrs) == {
        "bytes": 1_500_000,
        "packets": 1000,
        "drops": 7,
        "qlen": 3,
        "backlog": 4500,
        "marks": 123,
    }
    # another qdisc's extended statistics are not read as marks (the host's tc prints them)
    assert "marks" not in QdiscStats._stats(attr(1, b"fq_codel\0") + attr(3, stats) + attr(4, xstats))


def test_accurate_ecn_runs_in_the_second_kernel_with_both_ends_asking_for_it() -> None:
    # Linux 7.3: tcp_ecn = 3 (TCP_ECN_IN_ACCECN_OUT_ACCECN) on the sender asks for AccECN and on
    # the receiver accepts it (tcp_ecn_create_request: sysctl_tcp_ecn >= 3); 2 elsewhere, as before;
    # the option's policy is tcp_ecn_option (full = 2, Linux's default)
    flows = [
        {
            "kind": "tcp",
            "from": ["s0", "s1"],
            "to": ["d0", "d1"],
            "tcp": {"profile": "dctcp", "ecn_feedback": "accecn"},
        },
        {"kind": "tcp", "from": ["s2", "s3"], "to": ["d2", "d3"], "tcp": {"profile": "linux"}},
    ]
    plan = plan_kernel(scenario("fq_codel", flows=flows), 1)
    assert plan.release == "7.3"
    assert (plan.sysctls["net.ipv4.tcp_ecn"], plan.sysctls["net.ipv4.tcp_ecn_option"]) == (2, 2)
    assert plan.host_sysctls == {h: {"net.ipv4.tcp_ecn": 3} for h in ("s0", "d0", "s1", "d1")}
    # a receiver without AccECN (receiver_accecn = false) takes classic ECN only: the fallback
    flows[0]["tcp"] = {**flows[0]["tcp"], "receiver_accecn": False, "accecn_option": "minimum"}
    plan = plan_kernel(scenario("fq_codel", flows=flows), 1)
    assert plan.host_sysctls["d0"] == {"net.ipv4.tcp_ecn": 1} and plan.host_sysctls["s0"] == {"net.ipv4.tcp_ecn": 3}
    assert plan.sysctls["net.ipv4.tcp_ecn_option"] == 1
    assert plan_kernel(scenario("fq_codel"), 1).release == "6.1"
