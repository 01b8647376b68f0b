"""``aqmlab validate-kernel``: one dumbbell scenario simulated and run inside the reference
kernel (uml_kernel.py: Linux 6.1 as a User-Mode Linux guest on a virtual clock; Linux 7.3 for
DualPI2), side by side.

In the guest, one network namespace per host of the dumbbell (``s0..``, ``d0..``) and one per
router (``r0``, ``r1``), joined by veth pairs whose MTU is the scenario's packet (payload and
headers). Every link but the bottleneck is netem (``delay D rate R limit L``) on each
direction's egress; the bottleneck ``r0 -> r1`` is an htb class at the bottleneck's rate (one
packet of burst) whose leaf is the qdisc :func:`qdisc_args` maps from the scenario's AQM, its
propagation delay a netem on r1's egress (delays commute); the reverse direction is netem at the
bottleneck's rate and delay. A size table (``stab overhead -14``) makes the bottleneck count IP
bytes, as the simulator does. TCP is the kernel's, with the scenario's congestion control and the
profile's ECN, SACK, D-SACK and timestamps as the namespaces' sysctls.

One process in the guest (kernel_guest.py) runs every flow (each socket made in its host's
namespace), samples the bottleneck's queue and each sender's srtt, and reads the counters at the
end of the warm-up and at the end, by the guest's clock.

What the kernel cannot express is refused before anything runs (:class:`KernelRefusal`, one
line naming the scenario's field); what it does its own way where the scenario left a default is
listed in the result's ``notes`` (docs/kernel-reference.md, "validate-kernel").
"""

from __future__ import annotations

import json
import math
import shlex
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..cli_options import seconds
from ..cli_run import jsonable
from ..scenario import ScenarioLike, load_scenario, resolve_scenario, to_json
from .kernel_qdiscs import (
    ETHERNET_HEADER,
    LEAF_HANDLE,
    SKB_TRUESIZE_EXTRA,
    KernelRefusal,
    Qdisc,
    _bit,
    _us,
    qdisc_args,
    rate_bps,
)
from .uml_flow import guest_module
from .validate import scenario_and_seeds

PROFILES = ("linux", "dctcp", "bbr")
KERNEL_CCS = ("reno", "cubic", "dctcp", "bbr")
SAMPLE_S = 0.010
MAX_HOSTS = 250


# ------------------------------------------------------------------------------ the plan


@dataclass(frozen=True)
class Link:
    """One direction's netem: delay (s), rate (bit/s), limit (packets), and the link's
    ``netem`` table as tc's jitter and slot arguments (``extra``, :func:`netem_args`)."""

    delay_s: float
    rate: float
    limit: int
    extra: tuple[str, str] = ("", "")  # (jitter after the delay, options after the limit)

    def netem(self, mtu: int) -> str:
        # netem's limit counts what is in its delay line too: the queue's limit plus one
        # delay's worth of packets at the rate
        in_flight = math.ceil(self.rate * self.delay_s / (8 * (mtu + ETHERNET_HEADER)))
        jitter, options = self.extra
        return (
            f"netem delay {_us(self.delay_s)}{jitter} rate {_bit(self.rate)} "
            f"limit {self.limit + in_flight + 1}{options}"
        )


def netem_args(netem: Mapping[str, Any] | None, path: str) -> tuple[str, str]:
    """A link's ``netem`` table as tc netem's arguments: `` JITTER [distribution normal]`` after
    the delay and `` slot MIN MAX [packets N] [bytes B]`` after the limit. The guest's netem also
    carries the access link's rate, and netem with a rate keeps packets in order (each
    time_to_send starts from the last one's), so ``reorder = true`` with jitter is refused."""
    if not netem:
        return ("", "")
    jitter, options = "", ""
    j = seconds(netem.get("jitter", "0s"))
    if j > 0:
        if netem.get("reorder", True):
            raise KernelRefusal(
                f"{path}.reorder",
                "true (the default): the guest's netem also has the link's rate, which keeps packets in order; "
                "write reorder = false",
            )
        jitter = f" {_us(j)}"
        if netem.get("jitter_distribution", "uniform") == "normal":
            jitter += " distribution normal"
    slot = netem.get("slot")
    if slot:
        lo = seconds(slot["min_delay"])
        hi = seconds(slot.get("max_delay", slot["min_delay"]))
        options = f" slot {_us(lo)} {_us(hi)}"
        if int(slot.get("packets", 0)):
            options += f" packets {int(slot['packets'])}"
        if int(slot.get("bytes", 0)):
            options += f" bytes {int(slot['bytes'])}"
    return (jitter, options)


@dataclass
class KernelPlan:
    """What the guest builds, from a dumbbell scenario."""

    senders: int
    receivers: int
    mtu: int
    bottleneck_rate: float
    bottleneck_delay_s: float
    reverse_limit: int
    qdisc: Qdisc
    sender_links: list[Link]  # per sender: access delay and rate (both directions)
    sender_reverse_extra: tuple[str, str]  # the access links' reverse_netem, toward the senders
    receiver_forward_extra: tuple[str, str]  # their netem toward the receivers (receiver_access unwritten)
    receiver_links: list[Link]
    flows: list[dict[str, Any]]  # flow, group, src (sender index), dst (receiver index), start_s, cc
    sysctls: dict[str, int | str]
    duration_s: float
    warmup_s: float
    notes: list[str] = field(default_factory=list)
    # per namespace, what differs from ``sysctls`` (the ECN senders' tcp_ecn among non-ECN ones)
    host_sysctls: dict[str, dict[str, int | str]] = field(default_factory=dict)
    # the reference kernel: "7.3" for DualPI2 or Accurate ECN, else "6.1" (uml_kernel.KERNELS)
    release: str = "6.1"


def _written_tcp(s: Mapping[str, Any], i: int) -> dict[str, Any]:
    shared = s.get("tcp") or {}
    own = ((s.get("flows") or [])[i] or {}).get("tcp") or {}
    return {**shared, **own}


def plan_kernel(scenario: ScenarioLike, seed: int) -> KernelPlan:
    """The guest's network and flows for ``scenario``, or a :class:`KernelRefusal` naming the
    first field the kernel cannot carry."""
    from .. import _core

    s = load_scenario(scenario)
    for key in ("events", "capture", "trace"):
        if s.get(key):
            raise KernelRefusal(key, "not run in the reference kernel (this version)")
    topo = s.get("topology") or {}
    if topo.get("kind") != "dumbbell":
        raise KernelRefusal("topology.kind", f"{topo.get('kind')!r}: this version runs dumbbells only")
    r = resolve_scenario(s)
    t = r["topology"]
    flows_written = s.get("flows") or []
    for i, f in enumerate(flows_written):
        if f.get("kind", "tcp") != "tcp":
            raise KernelRefusal(f"flows[{i}].kind", f"{f.get('kind')!r}: this version runs long-lived TCP flows only")
        for key in ("size", "stop"):
            if f.get(key) is not None:
                raise KernelRefusal(f"flows[{i}].{key}", "this version runs long-lived TCP flows only")
        if f.get("dscp"):
            raise KernelRefusal(f"flows[{i}].dscp", "the guest's sockets do not set a TOS (this version)")
        profile = _written_tcp(s, i).get("profile")
        if profile not in PROFILES:
            where = f"flows[{i}].tcp.profile" if "profile" in (f.get("tcp") or {}) else "tcp.profile"
            written = "not set (the ns-2 agents)" if profile is None else repr(profile)
            raise KernelRefusal(where, f"{written}: the kernel is a Linux host: give one of {', '.join(PROFILES)}")
    for part in ("bottleneck", "receiver_access"):
        for key in ("netem", "reverse_netem"):
            if (topo.get(part) or {}).get(key) is not None:
                raise KernelRefusal(
                    f"topology.{part}.{key}",
                    "netem jitter and slots run in the reference kernel on the access links only (this version)",
                )
    for part in ("bottleneck", "access", "receiver_access"):
        for key in ("wifi", "reverse_wifi"):
            if (topo.get(part) or {}).get(key) is not None:
                raise KernelRefusal(
                    f"topology.{part}.{key}",
                    "the Wi-Fi link is not run in the reference kernel (it has no Wi-Fi device)",
                )
        for key in ("docsis", "reverse_docsis"):
            if (topo.get(part) or {}).get(key) is not None:
                raise KernelRefusal(
                    f"topology.{part}.{key}",
                    "the DOCSIS upstream is not run in the reference kernel (it has no cable modem)",
                )
    access_netem = {
        key: netem_args((topo.get("access") or {}).get(key), f"topology.access.{key}")
        for key in ("netem", "reverse_netem")
    }
    bn = t["bottleneck"]
    if float(bn.get("loss") or 0) > 0:
        raise KernelRefusal(
            "topology.bottleneck.loss", "link losses are not run in the reference kernel (this version)"
        )
    for name, q in (
        ("topology.bottleneck.reverse_queue", bn.get("reverse_queue")),
        ("topology.access.queue", t["access"].get("queue")),
        ("topology.receiver_access.queue", t["receiver_access"].get("queue")),
    ):
        if q and q["aqm"]["kind"] != "droptail":
            raise KernelRefusal(f"{name}.aqm", f"{q['aqm']['kind']}: only the bottleneck has an AQM in this version")
    senders, receivers = int(t["senders"]), int(t["receivers"])
    for name, n in (("topology.senders", senders), ("topology.receivers", receivers)):
        if n > MAX_HOSTS:
            raise KernelRefusal(name, f"{n}: at most {MAX_HOSTS} in this version")

    router = _core.EmulationRouter(to_json(s), seed, "vk")
    p = router.plan()
    mtu = int(p["mtu"])
    rate = rate_bps(bn["rate"])
    limit = int(bn["queue"]["limit"])
    written_aqm = (((topo.get("bottleneck") or {}).get("queue") or {}).get("aqm")) or {}
    qdisc = qdisc_args(
        bn["queue"]["aqm"],
        limit=limit,
        rate=rate,
        mtu=mtu,
        written=written_aqm if isinstance(written_aqm, Mapping) else {},
    )

    def links(side: Mapping[str, Any], n: int) -> list[Link]:
        delays = side.get("delay", "0s")
        delays = delays if isinstance(delays, list) else [delays]
        return [
            Link(seconds(delays[i % len(delays)]), rate_bps(side["rate"]), int(side["queue"]["limit"]))
            for i in range(n)
        ]

    flows = []
    settings: dict[str, int | str] = {}
    gso_notes: list[str] = []
    resolved_flows = r["flows"]
    for f in p["flows"]:
        cc = str(f["congestion_control"])
        if cc not in KERNEL_CCS:
            raise KernelRefusal("tcp.congestion_control", f"{cc!r}: not in the reference kernels (Linux 6.1, 7.3)")
        flows.append(
            {
                "flow": int(f["flow"]),
                "group": str(f["group"]),
                "src": int(f["src"][1:]),
                "dst": int(f["dst"][1:]),
                "start_s": float(f["start_s"]),
                "cc": cc,
                "ecn": bool(f["ecn"]),
            }
        )
    for i, rf in enumerate(resolved_flows):
        tcp = rf["tcp"]
        mine = {
            "net.ipv4.tcp_sack": 1 if tcp["variant"] == "sack" or tcp["recovery"] == "rfc6675" else 0,
            "net.ipv4.tcp_dsack": 1 if tcp["dsack"] else 0,
            "net.ipv4.tcp_timestamps": 1 if tcp["timestamps"] else 0,
            # The largest window: the scenario's `window` of `packet_size` bytes. Linux's
            # receiver autotunes up to tcp_rmem[2] and advertises half of it
            # (tcp_win_from_space, tcp_adv_win_scale 1); its sender queues up to tcp_wmem[2] of
            # skb truesize (about 1280 bytes more than each segment, docs/kernel-reference.md).
            # Left to the guest, both are derived from its 512 MB of memory (tcp_init: about
            # 2 MB), which held 4 flows at 1 Gb/s, 40 ms, below the scenario's window.
            "net.ipv4.tcp_rmem": f"4096 131072 {max(131072, 2 * int(tcp['window']) * int(tcp['packet_size']))}",
            "net.ipv4.tcp_wmem": (
                f"4096 16384 {max(4194304, 2 * int(tcp['window']) * (int(tcp['packet_size']) + SKB_TRUESIZE_EXTRA))}"
            ),
        }
        for k, v in mine.items():
            if settings.setdefault(k, v) != v:
                raise KernelRefusal(
                    f"flows[{i}].tcp", f"{k} differs between flows; this version sets it once for every host"
                )
        paced = tcp["congestion_control"] == "bbr" or tcp["pacing"] == "on"
        if paced and tcp["segmentation_offload"] != "none":
            # The guest's veths have gso_max_segs 1, so tcp_tso_segs (tcp_output.c) caps every skb
            # at one segment: the kernel sends no TSO bursts
            why = "the guest sends one segment per skb (gso_max_segs 1 on its veths caps tcp_tso_segs)"
            if "segmentation_offload" in _written_tcp(s, i):
                own = ((s.get("flows") or [])[i] or {}).get("tcp") or {}
                where = f"flows[{i}].tcp" if "segmentation_offload" in own else "tcp"
                raise KernelRefusal(f"{where}.segmentation_offload", f"{tcp['segmentation_offload']!r}: {why}")
            note = (
                f"segmentation_offload = {tcp['segmentation_offload']!r} not carried: {why}; "
                'write segmentation_offload = "none" to compare like with like'
            )
            if note not in gso_notes:
                gso_notes.append(note)
    qdisc = _classify(qdisc, resolved_flows)
    feedback = _feedback(p["flows"], resolved_flows)
    settings, host_sysctls = _ecn_sysctls(flows, feedback, settings)
    # Accurate ECN is in Linux 7.3 (6.18 on), not in 6.1: its flows run in the second kernel
    release = "7.3" if qdisc.release == "7.3" or any(fb[0] for fb in feedback.values()) else "6.1"
    return KernelPlan(
        senders=senders,
        receivers=receivers,
        mtu=mtu,
        bottleneck_rate=rate,
        bottleneck_delay_s=seconds(bn.get("delay", "0s")),
        reverse_limit=int(bn["reverse_queue"]["limit"]),
        qdisc=qdisc,
        sender_links=[replace(link, extra=access_netem["netem"]) for link in links(t["access"], senders)],
        sender_reverse_extra=access_netem["reverse_netem"],
        # receiver_access, when not written, is access: its netem too (on the receivers' links,
        # forward toward the receivers, reverse from them)
        receiver_links=[
            replace(link, extra=("", "") if "receiver_access" in topo else access_netem["reverse_netem"])
            for link in links(t["receiver_access"], receivers)
        ],
        receiver_forward_extra=("", "") if "receiver_access" in topo else access_netem["netem"],
        flows=flows,
        sysctls=settings,
        duration_s=float(p["duration_s"]),
        warmup_s=float(p["warmup_s"]),
        notes=list(qdisc.notes) + gso_notes,
        host_sysctls=host_sysctls,
        release=release,
    )


# tcp.accecn_option -> net.ipv4.tcp_ecn_option (include/net/tcp_ecn.h, Linux 7.3: disabled 0,
# minimum 1, full 2, Linux's default)
ECN_OPTION = {"disabled": 0, "minimum": 1, "full": 2}


def _feedback(
    plan_flows: list[Mapping[str, Any]], resolved_flows: list[Mapping[str, Any]]
) -> dict[int, tuple[bool, bool, str]]:
    """Per expanded flow: (Accurate ECN, the receiver supports it, the option's policy), from the
    ``flows`` entries whose end points cover its sender and receiver ("senders" and "receivers"
    cover every host); entries that cover the same pair must agree, else it is refused."""

    def covers(ends: Any, host: str, every: str) -> bool:
        return ends == every or ends == host or (isinstance(ends, list) and host in ends)

    out = {}
    for f in plan_flows:
        choices = {
            (
                rf["tcp"].get("ecn_feedback") == "accecn",
                bool(rf["tcp"].get("receiver_accecn", True)),
                str(rf["tcp"].get("accecn_option", "full")),
            )
            for rf in resolved_flows
            if rf.get("tcp")
            and covers(rf["from"], str(f["src"]), "senders")
            and covers(rf["to"], str(f["dst"]), "receivers")
        }
        if len(choices) > 1:
            raise KernelRefusal(
                "flows", f"flows from {f['src']} to {f['dst']} differ in their ECN feedback: one sysctl per host"
            )
        out[int(f["flow"])] = choices.pop() if choices else (False, True, "full")
    return out


def _ecn_sysctls(
    flows: list[dict[str, Any]], feedback: dict[int, tuple[bool, bool, str]], settings: dict[str, int | str]
) -> tuple[dict[str, int | str], dict[str, dict[str, int | str]]]:
    """``net.ipv4.tcp_ecn`` for every host when the flows agree and none uses Accurate ECN (1:
    ask for ECN, 2: accept it only, Linux's default); else 2 for all but the senders of ECN
    flows (1, or 3 to ask for Accurate ECN: Linux 7.3's TCP_ECN_IN_ACCECN_OUT_ACCECN) and the
    receivers of Accurate ECN flows (3 when the scenario's receiver supports it, else 1, which
    answers an AccECN SYN with classic ECN: the fallback, RFC 9768 sec. 3.1.2). A host that would
    need two values is refused: the setting is its namespace's. With Accurate ECN the option's
    policy is ``net.ipv4.tcp_ecn_option`` on every host, one value for all."""
    need: dict[str, set[int]] = {}
    options: set[str] = set()
    for f in flows:
        accecn, receiver_accecn, option = feedback[int(f["flow"])]
        sender = 3 if accecn else 1 if f["ecn"] else 2
        need.setdefault(f"s{int(f['src'])}", set()).add(sender)
        if accecn:
            need.setdefault(f"d{int(f['dst'])}", set()).add(3 if receiver_accecn else 1)
            options.add(option)
    mixed = sorted(h for h, v in need.items() if len(v) > 1)
    if mixed:
        raise KernelRefusal(
            "flows", f"host {mixed[0]} needs tcp_ecn {sorted(need[mixed[0]])}: the setting is its namespace's"
        )
    if len(options) > 1:
        raise KernelRefusal("flows", f"accecn_option differs between flows ({sorted(options)}): one sysctl for all")
    values = {h: v.pop() for h, v in need.items()}
    if not options and len(set(values.values())) == 1:
        return {"net.ipv4.tcp_ecn": next(iter(values.values())), **settings}, {}
    base: dict[str, int | str] = {"net.ipv4.tcp_ecn": 2, **settings}
    if options:
        base["net.ipv4.tcp_ecn_option"] = ECN_OPTION[options.pop()]
    hosts: dict[str, dict[str, int | str]] = {h: {"net.ipv4.tcp_ecn": v} for h, v in values.items() if v != 2}
    return base, hosts


def _classify(qdisc: Qdisc, resolved_flows: list[Mapping[str, Any]]) -> Qdisc:
    """DualPI2's classification mask from the flows' codepoints. aqmlab's DualPI2 puts ECT(1) and
    CE in its L queue (RFC 9332 sec. 2.5.1.1); Linux 7.3's DCTCP sends ECT(0) (tcp_dctcp.c sets
    TCP_CONG_NEEDS_ECN, not TCP_CONG_ECT_1_NEGOTIATION; no in-tree controller sends ECT(1)), so
    a scenario whose ECN flows all send ECT(1) runs with the mask "any ECT" (3), which puts the
    kernel's ECT(0) where the simulation's ECT(1) goes; one whose ECN flows all send ECT(0) keeps
    the default mask (ECT(1) only: none in L, as simulated). Both kinds together cannot be told
    apart by the kernel's mask."""
    if qdisc.kind != "dualpi2":
        return qdisc
    points = {str(f["tcp"]["ecn_codepoint"]) for f in resolved_flows if f["tcp"]["ecn"]}
    if points == {"ect0", "ect1"}:
        raise KernelRefusal(
            "flows",
            "ECT(0) and ECT(1) flows together through dualpi2: Linux 7.3's controllers all send ECT(0), "
            "so the kernel's classification mask cannot put one kind in each queue",
        )
    if points == {"ect1"}:
        note = "the ECT(1) flows send ECT(0) in the kernel (its DCTCP); dualpi2's mask is any ECT (3)"
        return replace(qdisc, netlink=(*qdisc.netlink, ("ecn_mask", 3)), notes=(*qdisc.notes, note))
    return qdisc


def setup_commands(plan: KernelPlan) -> list[str]:
    """The guest's shell commands that build the network (pure: tested without a kernel)."""
    mtu = plan.mtu
    cmds: list[str] = []
    hosts = [f"s{i}" for i in range(plan.senders)] + [f"d{j}" for j in range(plan.receivers)]
    for ns in [*hosts, "r0", "r1"]:
        cmds.append(f"ip netns add {ns}")
        cmds.append(f"ip -n {ns} link set lo up")
        settings = {**plan.sysctls, **plan.host_sysctls.get(ns, {})}  # the guest kernel has no IPv6
        cmds.append(f"ip netns exec {ns} sysctl -qw " + " ".join(shlex.quote(f"{k}={v}") for k, v in settings.items()))

    def veth(a_ns: str, a: str, b_ns: str, b: str) -> None:
        cmds.append(
            f"ip link add {a} netns {a_ns} mtu {mtu} gso_max_segs 1 type veth peer name {b} netns {b_ns} mtu {mtu} gso_max_segs 1"
        )
        cmds.append(f"ip -n {a_ns} link set {a} up")
        cmds.append(f"ip -n {b_ns} link set {b} up")

    veth("r0", "b0", "r1", "b1")
    cmds.append("ip -n r0 addr add 10.0.0.1/30 dev b0")
    cmds.append("ip -n r1 addr add 10.0.0.2/30 dev b1")
    for side, n, links, router, net in (
        ("s", plan.senders, plan.sender_links, "r0", 1),
        ("d", plan.receivers, plan.receiver_links, "r1", 2),
    ):
        for i in range(n):
            ns, dev, rdev = f"{side}{i}", "e0", f"{side}{i}"
            veth(ns, dev, router, rdev)
            cmds.append(f"ip -n {ns} addr add 10.{net}.{i}.1/24 dev {dev}")
            cmds.append(f"ip -n {router} addr add 10.{net}.{i}.2/24 dev {rdev}")
            cmds.append(f"ip -n {ns} route add default via 10.{net}.{i}.2")
            link = links[i]
            cmds.append(f"tc -n {ns} qdisc add dev {dev} root {link.netem(mtu)}")
            toward = replace(link, extra=plan.sender_reverse_extra)
            if side == "d":  # the bottleneck's propagation delay, after its queue
                toward = Link(
                    link.delay_s + plan.bottleneck_delay_s, link.rate, link.limit, plan.receiver_forward_extra
                )
            cmds.append(f"tc -n {router} qdisc add dev {rdev} root {toward.netem(mtu)}")
    cmds.append("ip -n r0 route add 10.2.0.0/16 via 10.0.0.2")
    cmds.append("ip -n r1 route add 10.1.0.0/16 via 10.0.0.1")
    for r in ("r0", "r1"):
        cmds.append(f"ip netns exec {r} sysctl -qw net.ipv4.ip_forward=1")
    rate = _bit(plan.bottleneck_rate)
    cmds.append(f"tc -n r0 qdisc add dev b0 root handle 1: stab overhead -{ETHERNET_HEADER} htb default 1")
    cmds.append(
        f"tc -n r0 class add dev b0 parent 1: classid 1:1 htb rate {rate} ceil {rate} burst {mtu}b cburst {mtu}b"
    )
    cmds.append(f"tc -n r0 qdisc add dev b0 parent 1:1 handle {LEAF_HANDLE} {plan.qdisc.args}")
    if plan.qdisc.netlink:
        # what the host's tc cannot send (its iproute2 predates the qdisc): one rtnetlink change
        params = " ".join(f"{k}={v}" for k, v in plan.qdisc.netlink)
        cmds.append(f"ip netns exec r0 {guest_module('aqmlab.emulation.qdisc_netlink')} b0 {LEAF_HANDLE} {params}")
    back = Link(plan.bottleneck_delay_s, plan.bottleneck_rate, plan.reverse_limit)
    cmds.append(f"tc -n r1 qdisc add dev b1 root {back.netem(mtu)}")
    return cmds


def guest_spec(plan: KernelPlan, sample_s: float = SAMPLE_S) -> dict[str, Any]:
    """What kernel_guest.py runs: the flows, the window, the bottleneck to sample."""
    return {
        "flows": [
            {
                **f,
                "src_ns": f"s{f['src']}",
                "dst_ns": f"d{f['dst']}",
                "dst_addr": f"10.2.{f['dst']}.1",
                "port": 20000 + int(f["flow"]),
            }
            for f in plan.flows
        ],
        "warmup_s": plan.warmup_s,
        "duration_s": plan.duration_s,
        "sample_s": sample_s,
        "router_ns": "r0",
        "dev": "b0",
        "leaf_handle": 0x00100000,  # tc handles are hex: 10: is 0x10 << 16
    }


def payload(plan: KernelPlan, python: str | None = None) -> str:
    py = shlex.quote(python or sys.executable)
    pythonpath = shlex.quote(str(Path(__file__).resolve().parents[2]))
    spec = json.dumps(guest_spec(plan))
    return "\n".join(
        [
            "set -e",
            *setup_commands(plan),
            f"cat > spec.json <<'AQMLAB_SPEC'\n{spec}\nAQMLAB_SPEC",
            f"env PYTHONPATH={pythonpath} PYTHONDONTWRITEBYTECODE=1 {py} -m aqmlab.emulation.kernel_guest spec.json > result.json",
            "cat result.json",
            "",
        ]
    )


# ------------------------------------------------------------------------------ results

# (name, unit) of the queue's and each group's rows, as validate-emulation names them
QUEUE_METRICS = (
    ("utilization", "fraction"),
    ("drop_rate", "fraction"),
    ("mark_rate", "marks per arrival"),
    ("mean_queue", "packets"),
)
GROUP_METRICS = (("goodput", "Mb/s"), ("mean_rtt", "ms"), ("retransmissions", "packets"))


def kernel_metrics(report: Mapping[str, Any], rate: float) -> dict[str, float]:
    """The table's values from the guest's report (kernel_guest.py): queue rows as
    ``bottleneck.<metric>``, group rows as ``<group>.<metric>``."""
    a, b = report["warmup"], report["end"]
    window = float(b["t"]) - float(a["t"])
    q0, q1 = a["qdisc"], b["qdisc"]
    sent = q1["packets"] - q0["packets"]
    drops = q1["drops"] - q0["drops"]
    marks = q1["marks"] - q0["marks"]
    arrivals = sent + drops + (q1["qlen"] - q0["qlen"])
    out = {
        "bottleneck.utilization": 8.0 * (q1["bytes"] - q0["bytes"]) / (rate * window),
        "bottleneck.drop_rate": drops / arrivals if arrivals else math.nan,
        "bottleneck.mark_rate": marks / arrivals if arrivals else math.nan,
        "bottleneck.mean_queue": statistics.fmean(report["qlen_samples"]) if report["qlen_samples"] else math.nan,
    }
    groups: dict[str, list[dict[str, float]]] = {}
    for f in report["flows"]:
        fa, fb = a["flows"][str(f["flow"])], b["flows"][str(f["flow"])]
        rtts = f["srtt_us_samples"]
        groups.setdefault(f["group"], []).append(
            {
                "goodput": 8.0 * (fb["bytes_received"] - fa["bytes_received"]) / window / 1e6,
                "mean_rtt": statistics.fmean(rtts) / 1e3 if rtts else math.nan,
                "retransmissions": float(fb["total_retrans"] - fa["total_retrans"]),
            }
        )
    for g, rows in groups.items():
        out[f"{g}.goodput"] = sum(r["goodput"] for r in rows)
        out[f"{g}.mean_rtt"] = _mean(r["mean_rtt"] for r in rows)
        out[f"{g}.retransmissions"] = sum(r["retransmissions"] for r in rows)
    alpha: dict[str, list[int]] = {}
    for f in report["flows"]:
        if "dctcp_alpha_samples" in f:
            alpha.setdefault(f["group"], []).extend(f["dctcp_alpha_samples"])
    for g, samples in alpha.items():
        # DCTCP's alpha in 1/1024 (tcp_dctcp.c), every sample of every sender that ran DCTCP
        out[f"{g}.dctcp_alpha"] = statistics.fmean(samples) / 1024 if samples else math.nan
    return out


def simulated_metrics(result: Any, queue: str = "bottleneck", warmup_s: float | None = None) -> dict[str, float]:
    """The table's values from a simulated run; with ``warmup_s``, DCTCP's alpha too: the mean
    of the time series' ``dctcp_alpha`` from the warm-up on, over the group's flows (the run
    needs a ``sample_interval``)."""
    q = result.queue(queue)
    out = {
        "bottleneck.utilization": float(q["utilization"]),
        "bottleneck.drop_rate": float(q["loss_rate"]),
        "bottleneck.mark_rate": float(q["marks"]) / max(1.0, float(q["arrivals"])),
        "bottleneck.mean_queue": float(q["mean_queue_packets"]),
    }
    flows = result.flows
    for g in dict.fromkeys(flows["group"]):
        rows = flows[flows["group"] == g]
        out[f"{g}.goodput"] = float(rows["goodput_bps"].sum()) / 1e6
        out[f"{g}.mean_rtt"] = _mean(float(x) for x in rows["mean_rtt_ms"])
        out[f"{g}.retransmissions"] = float(rows["retransmissions"].sum())
    if warmup_s is not None:
        ts = result.timeseries
        alpha = ts[(ts["variable"] == "dctcp_alpha") & (ts["time_s"] >= warmup_s - 1e-9)]
        for g in dict.fromkeys(flows["group"]):
            names = {f"flow{int(n)}" for n in flows[flows["group"] == g]["flow"]}
            values = alpha[alpha["source"].astype(str).isin(names)]["value"]
            if len(values):
                out[f"{g}.dctcp_alpha"] = float(values.mean())
    return out


def _mean(xs: Iterable[float]) -> float:
    v = [x for x in xs if math.isfinite(x)]
    return statistics.fmean(v) if v else math.nan


@dataclass
class KernelRun:
    """One seed in the guest."""

    seed: int
    metrics: dict[str, float]
    report: dict[str, Any]
    guest_s: float
    wall_s: float


@dataclass
class KernelValidation:
    """Both sides per seed, and the table of means with relative differences."""

    scenario: str
    seeds: list[int]
    duration_s: float
    warmup_s: float
    qdisc: str
    congestion_controls: list[str]
    notes: list[str]
    simulated: list[dict[str, float]] = field(default_factory=list)
    kernel: list[KernelRun] = field(default_factory=list)
    kernel_release: str = "6.1"  # the reference kernel the runs booted (uml_kernel.KERNELS)

    def rows(self) -> list[dict[str, Any]]:
        """One row per metric: simulated and kernel means over the seeds, and
        (simulated - kernel) / kernel (NaN where the kernel's value is 0)."""
        keys = list(dict.fromkeys(k for run in self.kernel for k in run.metrics))
        out = []
        units = dict(QUEUE_METRICS + GROUP_METRICS)
        for key in keys:
            where, _, name = key.rpartition(".")
            sim = _mean(m.get(key, math.nan) for m in self.simulated)
            ker = _mean(run.metrics.get(key, math.nan) for run in self.kernel)
            rel = (sim - ker) / abs(ker) if ker and math.isfinite(ker) and math.isfinite(sim) else math.nan
            out.append(
                {
                    "where": where,
                    "metric": name,
                    "unit": units.get(name, ""),
                    "simulated": sim,
                    "kernel": ker,
                    "relative_difference": rel,
                }
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """Everything, JSON-ready: a non-finite number (a relative difference to 0) is None."""
        d: dict[str, Any] = jsonable(
            {
                "scenario": self.scenario,
                "seeds": self.seeds,
                "duration_s": self.duration_s,
                "warmup_s": self.warmup_s,
                "qdisc": self.qdisc,
                "kernel_release": self.kernel_release,
                "congestion_controls": self.congestion_controls,
                "notes": self.notes,
                "rows": self.rows(),
                "kernel_runs": [
                    {"seed": k.seed, "guest_s": k.guest_s, "wall_s": k.wall_s, "metrics": k.metrics}
                    for k in self.kernel
                ],
            }
        )
        return d


def _simulated(base: dict[str, Any], seed: int, plan: KernelPlan, run: Callable[..., Any]) -> dict[str, float]:
    """The simulation's metrics; with a DCTCP flow, sampled as the guest samples (every
    ``SAMPLE_S`` from the warm-up), for its alpha."""
    if not any(f["cc"] == "dctcp" for f in plan.flows):
        return simulated_metrics(run(base, seed=seed))
    sampled = {**base, "sample_interval": f"{SAMPLE_S * 1e3:g}ms"}
    return simulated_metrics(run(sampled, seed=seed), warmup_s=plan.warmup_s)


def _validation(base: Mapping[str, Any], seed_list: list[int], plan: KernelPlan) -> KernelValidation:
    return KernelValidation(
        scenario=str(base.get("name", "")),
        seeds=seed_list,
        duration_s=plan.duration_s,
        warmup_s=plan.warmup_s,
        qdisc=plan.qdisc.args,
        congestion_controls=sorted({f["cc"] for f in plan.flows}),
        notes=plan.notes,
        kernel_release=plan.release,
    )


def run_kernel(plan: KernelPlan, seed: int, *, timeout_s: float = 600.0, cpu: int = 0) -> KernelRun:
    """One boot of the reference kernel running ``plan`` with ``random.seed`` = ``seed``, the
    guest pinned to host CPU ``cpu`` (guests on different CPUs run side by side; the results do
    not depend on which, the guest's clock being virtual)."""
    from .uml_kernel import find_kernel, run_in_guest

    t0 = time.monotonic()
    guest = run_in_guest(
        payload(plan), kernel=find_kernel(plan.release), seed=seed, timeout_s=timeout_s, mem_mb=512, cpu=cpu
    )
    wall = time.monotonic() - t0
    if guest.status != 0:
        tail = " | ".join(guest.output.strip().splitlines()[-6:])
        raise RuntimeError(f"the scenario's payload failed in the guest (exit {guest.status}): {tail}")
    report = json.loads(guest.output.strip().splitlines()[-1])
    return KernelRun(seed, kernel_metrics(report, plan.bottleneck_rate), report, guest.payload_guest_s, wall)


def validate_kernel(
    scenario: ScenarioLike,
    seeds: Iterable[int] | None = None,
    *,
    duration: float | str | None = None,
    warmup: float | str | None = None,
    simulate: bool = True,
    progress: Callable[[str], None] | None = None,
    timeout_s: float = 600.0,
    cpu: int = 0,
) -> KernelValidation:
    """Runs ``scenario`` (a dumbbell of long-lived TCP flows with the linux, dctcp or bbr
    profile) in the reference kernel and simulates it, once per seed (the scenario's seed when
    ``seeds`` is None). Raises :class:`KernelRefusal` naming the field the kernel cannot carry,
    before anything runs; :class:`aqmlab.emulation.uml_kernel.UmlKernelMissing` when the kernel
    is not built."""
    from .. import api
    from .uml_kernel import find_kernel

    base, seed_list = scenario_and_seeds(scenario, seeds, duration, warmup)
    plan = plan_kernel(base, seed_list[0])
    find_kernel(plan.release)
    v = _validation(base, seed_list, plan)
    for seed in seed_list:
        if simulate:
            if progress:
                progress(f"simulating seed {seed}")
            v.simulated.append(_simulated(base, seed, plan, api.run))
        if progress:
            progress(f"running seed {seed} in the reference kernel")
        v.kernel.append(
            run_kernel(plan if seed == seed_list[0] else plan_kernel(base, seed), seed, timeout_s=timeout_s, cpu=cpu)
        )
    return v


def against_recorded_kernel(scenario: ScenarioLike, kernel_runs: Iterable[Mapping[str, Any]]) -> KernelValidation:
    """The simulation beside kernel runs recorded earlier (``to_dict()["kernel_runs"]``: seed
    and metrics per run), one simulation per recorded seed. The kernel's side is a measurement
    that a changed simulator does not change, so the simulator is compared again without booting
    the guest (reference_grid.py's ``--resimulate``); ``scenario`` must be the one the runs were
    made with (its duration and warm-up included)."""
    from .. import api

    runs = list(kernel_runs)
    if not runs:
        raise ValueError("kernel_runs: give at least one recorded run")
    base, seed_list = scenario_and_seeds(scenario, [int(r["seed"]) for r in runs], None, None)
    plan = plan_kernel(base, seed_list[0])
    v = _validation(base, seed_list, plan)
    for r, seed in zip(runs, seed_list, strict=True):
        v.simulated.append(_simulated(base, seed, plan, api.run))
        v.kernel.append(
            KernelRun(seed, dict(r["metrics"]), {}, float(r.get("guest_s", math.nan)), float(r.get("wall_s", math.nan)))
        )
    return v
