"""The mapping of a scenario's bottleneck AQM to the Linux qdisc that the reference kernel runs
(validate_kernel.py): the ``tc`` arguments with the scenario's parameters, a note for every
default the kernel does its own way, and a :class:`KernelRefusal` naming the field for what it
cannot express (docs/kernel-reference.md, "validate-kernel", has the table). Sources:
net/sched/sch_red.c and include/net/red.h (the EWMA's Wlog, ``red_mark_probability``),
sch_pie.c and include/net/pie.h, sch_codel.c, sch_fq_codel.c, sch_fq_pie.c, sch_cake.c, and
iproute2's tc/q_red.c (how ``burst`` picks Wlog)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..cli_options import seconds

AQM_PATH = "topology.bottleneck.queue.aqm"
# Bytes a veth frame carries besides the IP packet; the bottleneck's size table removes them.
ETHERNET_HEADER = 14
# An skb's truesize beyond its TCP payload in the reference kernel (transport/tcp/rcv_space.rs:
# SKB_TRUESIZE_BASE, a 1024-byte kmalloc head, SKB_TRUESIZE(704) = 1280, the payload in page
# fragments): what tcp_wmem counts per queued segment besides its bytes, and what cake counts
# against memlimit for a forwarded segment (measured: 4 CUBIC flows through cake memlimit
# 510,136 B held at most 223 segments of 1,000 B, 2,288 B each)
SKB_TRUESIZE_EXTRA = 1280
TCP_IP_HEADERS = 40
# The guest's clock when the flows start: its boot takes no virtual time (time-travel) and
# kernel_guest starts the flows at t0 = floor(monotonic) + 1 (measured: /proc/uptime 0.00 at
# the payload's start). CoDel's drop_next starts at 0 on that clock (codel_vars_init).
GUEST_CLOCK_AT_START_S = 1.0
# The guest kernel's timer tick (UML's HZ): PIE's and FQ-PIE's update timer counts jiffies.
GUEST_HZ = 100
# The kernel's constants where the scenario has a parameter (net/sched/sch_pie.c,
# include/net/pie.h, sch_fq_pie.c, sch_cake.c).
PIE_MAX_BURST_S = 0.150
PIE_ECN_PROB = 0.1
LEAF_HANDLE = "10:"


class KernelRefusal(ValueError):
    """The scenario asks what the reference kernel cannot do: ``path`` names the field."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


@dataclass(frozen=True)
class Qdisc:
    """A bottleneck's leaf qdisc: ``tc qdisc add ... <args>``, and what it does not carry."""

    args: str
    notes: tuple[str, ...] = ()
    # cake shapes and schedules by itself; every other leaf sits under the htb class
    kind: str = ""
    # the reference kernel that has it: "6.1" (`make uml-kernel`), or "7.3" (`make
    # uml-kernel-l4s-upstream`: DualPI2, Accurate ECN)
    release: str = "6.1"
    # parameters the host's tc cannot send, set after `tc qdisc add` by one rtnetlink change
    # (qdisc_netlink.py: name, value)
    netlink: tuple[tuple[str, int], ...] = ()


# ------------------------------------------------------------------------------ units


_RATE = re.compile(r"^\s*([0-9.]+(?:[eE][+-]?[0-9]+)?)\s*(bps|Kbps|kbps|Mbps|Gbps|Tbps)\s*$")
_RATE_SCALE = {"bps": 1.0, "Kbps": 1e3, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12}


def rate_bps(value: Any) -> float:
    """A resolved scenario rate ("10Mbps", 1e7) in bit/s."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    m = _RATE.match(str(value))
    if not m:
        raise ValueError(f"not a rate: {value!r}")
    return float(m.group(1)) * _RATE_SCALE[m.group(2)]


_SIZE = re.compile(r"^\s*([0-9]+)\s*(B|MB|GB)\s*$")
_SIZE_SCALE = {"B": 1, "MB": 1_000_000, "GB": 1_000_000_000}


def size_bytes(value: Any) -> int:
    """A resolved scenario size ("1MB", "1040B", 1040) in bytes."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    m = _SIZE.match(str(value))
    if not m:
        raise ValueError(f"not a size: {value!r}")
    return int(m.group(1)) * _SIZE_SCALE[m.group(2)]


def _us(value: Any) -> str:
    """A duration as tc reads it, in whole microseconds."""
    return f"{round(seconds(value) * 1e6)}us"


def _bit(bps: float) -> str:
    return f"{round(bps)}bit"


def _num(x: float) -> str:
    return f"{x:g}"


# ------------------------------------------------------------------------------ the mapping


def red_wlog(w_q: float) -> int:
    """Linux RED's EWMA weight is 2^-Wlog: the Wlog nearest to ``w_q`` (in log scale)."""
    return max(1, min(31, round(-math.log2(w_q))))


def tc_red_eval_ewma(qmin: int, burst: int, avpkt: int) -> int:
    """iproute2's tc_red_eval_ewma (tc/tc_red.c): the Wlog tc derives from ``burst``."""
    a = burst + 1 - qmin / avpkt
    if a < 1.0:
        return -1
    w = 0.5
    for wlog in range(1, 32):
        if a <= (1 - (1 - w) ** burst) / w:
            return wlog
        w /= 2
    return -1


def red_burst(qmin: int, avpkt: int, wlog: int) -> int:
    """The least ``burst`` for which tc gives RED the weight 2^-``wlog`` (tc has no option for
    the weight itself)."""
    burst = max(1, math.ceil(qmin / avpkt))
    while burst < 1_000_000:
        got = tc_red_eval_ewma(qmin, burst, avpkt)
        if got == wlog:
            return burst
        if got > wlog:
            break
        burst += 1
    raise KernelRefusal(f"{AQM_PATH}.w_q", f"tc cannot give RED the weight 2^-{wlog} with min {qmin} bytes")


def qdisc_args(
    aqm: Mapping[str, Any],
    *,
    limit: int,
    rate: float,
    mtu: int,
    written: Mapping[str, Any] | None = None,
    path: str = AQM_PATH,
) -> Qdisc:
    """The leaf qdisc for a resolved AQM table ``aqm`` (every parameter filled in, as
    :func:`aqmlab.scenario.resolve_scenario` gives it) at a queue of ``limit`` packets on a link
    of ``rate`` bit/s whose packets are ``mtu`` bytes (IP). ``written``: the parameters the
    scenario wrote itself (default: none): one the kernel cannot carry is a
    :class:`KernelRefusal`; a default the kernel does otherwise is a note."""
    kind = str(aqm["kind"])
    w = set(written or ())
    notes: list[str] = []

    def fixed(name: str, kernel: Any, why: str) -> None:
        """The kernel has no setting for ``name``: it does ``kernel``."""
        value = aqm.get(name)
        if isinstance(kernel, float) and isinstance(value, str):
            value = seconds(value)  # a resolved duration ("150ms")
        same = value == kernel or (
            isinstance(value, int | float) and isinstance(kernel, int | float) and math.isclose(value, kernel)
        )
        if same:
            return
        if name in w:
            raise KernelRefusal(f"{path}.{name}", f"{value!r}: {why}")
        notes.append(f"{name} = {value!r} not carried: {why}")

    if kind == "droptail":
        return Qdisc(f"pfifo limit {limit}", (), kind)
    if kind == "red":
        return _red(aqm, limit=limit, rate=rate, mtu=mtu, fixed=fixed, notes=notes, written=w, path=path)
    if kind == "step_marking":
        return _step(aqm, limit=limit, rate=rate, mtu=mtu, fixed=fixed, notes=notes, path=path)
    if kind == "pie":
        alpha, beta = _pie_gains(aqm, path)
        _pie_fixed(aqm, fixed, "sch_pie", ecn_prob_carried=False)
        notes.append(_mtu_note(aqm, mtu))
        notes.append(_tupdate_note(aqm))
        args = (
            f"pie limit {limit} target {_us(aqm['target'])} tupdate {_us(aqm['t_update'])} "
            f"alpha {alpha} beta {beta} {'ecn' if aqm.get('ecn') else 'noecn'}"
        )
        if aqm.get("delay_estimator") == "rate":
            args += " dq_rate_estimator"
        return Qdisc(args, tuple(n for n in notes if n), kind)
    if kind == "codel":
        _codel_fixed(fixed)
        notes.append(_mtu_note(aqm, mtu))
        args = (
            f"codel limit {limit} target {_us(aqm['target'])} interval {_us(aqm['interval'])} "
            f"{'ecn' if aqm.get('ecn') else 'noecn'}"
        )
        return Qdisc(args, tuple(n for n in notes if n), kind)
    if kind == "fq_codel":
        fixed("perturbation", 0, "the kernel draws its flow hash's perturbation at random (from random.seed)")
        _codel_fixed(fixed)
        notes.append(_mtu_note(aqm, mtu))
        args = (
            f"fq_codel limit {min(limit, int(aqm['limit']))} flows {int(aqm['flows'])} "
            f"quantum {int(aqm['quantum'])} target {_us(aqm['target'])} interval {_us(aqm['interval'])} "
            f"{'ecn' if aqm.get('ecn') else 'noecn'} drop_batch {int(aqm['drop_batch'])}"
        )
        if aqm.get("ce_threshold") is not None:
            args += f" ce_threshold {_us(aqm['ce_threshold'])}"
            mask = int(aqm.get("ce_threshold_mask") or 0)
            if mask:
                # iproute2's VALUE/MASK on the TOS byte (TCA_FQ_CODEL_CE_THRESHOLD_SELECTOR/_MASK)
                args += f" ce_threshold_selector {int(aqm['ce_threshold_selector']):#x}/{mask:#x}"
        return Qdisc(args, tuple(n for n in notes if n), kind)
    if kind == "fq_pie":
        alpha, beta = _pie_gains(aqm, path)
        fixed("perturbation", 0, "the kernel draws its flow hash's perturbation at random (from random.seed)")
        _pie_fixed(aqm, fixed, "sch_fq_pie", ecn_prob_carried=True)
        prob = float(aqm["ecn_prob"]) * 100
        if not float(prob).is_integer():
            raise KernelRefusal(f"{path}.ecn_prob", f"{aqm['ecn_prob']}: tc fq_pie takes a whole percentage")
        notes.append(_mtu_note(aqm, mtu))
        notes.append(_tupdate_note(aqm))
        args = (
            f"fq_pie limit {min(limit, int(aqm['limit']))} flows {int(aqm['flows'])} "
            f"quantum {int(aqm['quantum'])} target {_us(aqm['target'])} tupdate {_us(aqm['t_update'])} "
            f"alpha {alpha} beta {beta} ecn_prob {int(prob)} {'ecn' if aqm.get('ecn') else 'noecn'}"
        )
        if aqm.get("delay_estimator") == "rate":
            args += " dq_rate_estimator"
        return Qdisc(args, tuple(n for n in notes if n), kind)
    if kind == "cobalt":
        interval, target = seconds(aqm["interval"]), seconds(aqm["target"])
        if not math.isclose(target, interval / 20, rel_tol=1e-9):
            where = "target" if "target" in w or "interval" not in w else "interval"
            raise KernelRefusal(
                f"{path}.{where}",
                f"target {target * 1e3:g} ms with interval {interval * 1e3:g} ms: cake sets target = rtt / 20",
            )
        fixed("ecn", True, "cake always CE-marks ECN-capable packets")
        fixed("overflow", "head", "cake drops from the head of its fattest queue")
        fixed("increment", 1 / 256, "cake's BLUE step up is 1/256")
        fixed("decrement", 1 / 4096, "cake's BLUE step down is 1/4096")
        fixed("initial_inv_sqrt", "linux", "cake starts CoDel's count as cobalt_vars_init does")
        fixed(
            "queue_empty",
            "never",
            "cake flowblind never finds its one flow empty (cake_dequeue returns at !sch->q.qlen): "
            "cobalt_queue_empty never runs",
        )
        fixed("last_packet", "send", "cake_dequeue never drops the packet that empties a flow's queue")
        notes.append(
            "rate_adjust: cake runs unlimited under the htb class, so its MTU-time rules have no link rate; "
            "cake's buffer is memlimit in bytes of memory (truesize), set to hold the queue's limit of TCP segments"
        )
        # cake counts each packet's truesize against memlimit (cake_enqueue: buffer_used +=
        # skb->truesize): L forwarded TCP segments, so that it holds what the simulated queue's
        # limit holds (before issue 37's grid: 4 L (P + 14), about 1.85 L segments)
        memlimit = limit * (SKB_TRUESIZE_EXTRA + mtu - TCP_IP_HEADERS)
        # no `nonat`: tc sends TCA_CAKE_NAT = 0 for it, which cake_change refuses without conntrack
        # ("No conntrack support in kernel"; the guest has none); cake starts without NAT anyway
        args = (
            f"cake unlimited rtt {_us(interval)} besteffort flowblind nowash no-ack-filter "
            f"split-gso raw memlimit {memlimit}"
        )
        return Qdisc(args, tuple(notes), kind)
    if kind == "cake":
        return _cake(aqm, limit=limit, rate=rate, mtu=mtu, fixed=fixed, notes=notes, written=w, path=path)
    if kind == "fq":
        fixed("perturbation", 0, "the kernel hashes flows with its own random seed (skb_get_hash)")
        args = (
            f"fq limit {min(limit, int(aqm['limit']))} flow_limit {int(aqm['flow_limit'])} "
            f"quantum {int(aqm['quantum'])} initial_quantum {int(aqm['initial_quantum'])} "
            f"refill_delay {_us(aqm['refill_delay'])} orphan_mask {int(aqm['orphan_mask'])} nopacing"
        )
        if aqm.get("ce_threshold") is not None:
            # fq_dequeue marks on now - max(time_to_send, ...), and time_to_send is skb->tstamp when
            # set: in the guest every host is a namespace of one kernel, so the sender's TCP
            # departure time (a mono delivery time, which skb_clear_tstamp keeps through
            # ip_forward and veth) reaches the router's fq; measured: every packet marked
            raise KernelRefusal(
                f"{path}.ce_threshold",
                "in the guest the sender's departure timestamp (skb->tstamp, kept across namespaces) "
                "reaches the router's fq, which then marks on time since the sender, not the sojourn",
            )
        notes.append("refill_delay runs in jiffies in the kernel (HZ 100 in the guest: 10 ms steps)")
        return Qdisc(args, tuple(notes), kind)
    if kind == "dualpi2":
        return _dualpi2(aqm, limit, mtu, fixed, path, w, notes)
    raise KernelRefusal(path, f"{kind} has no Linux qdisc")


def _dualpi2(
    aqm: Mapping[str, Any],
    limit: int,
    mtu: int,
    fixed: Callable[[str, Any, str], None],
    path: str,
    written: set[str],
    notes: list[str],
) -> Qdisc:
    """sch_dualpi2 of Linux 7.3 (the second reference kernel), its parameters by rtnetlink
    (TCA_DUALPI2_*, dualpi2_change); the classification mask is the flows' (plan_kernel).
    ``fixed`` records into ``notes``."""
    fixed("ecn", True, "sch_dualpi2 marks Classic ECT packets (dualpi2_classic_marking); it has no drop-only mode")
    fixed(
        "scheduler", "wrr", "sch_dualpi2 schedules by its weighted round robin (c_protection), not a time-shifted FIFO"
    )
    fixed("pi_delay", "max", "dualpi2_update_probability acts on the larger of the two head delays")
    mtu_note = _mtu_note(aqm, mtu)  # psched_mtu: the device's MTU and its Ethernet header
    if mtu_note:
        notes.append(mtu_note)
    # alpha and beta: Hz scaled by 256 (dualpi2_scale_alpha_beta takes the integer)
    gains = {}
    for name in ("alpha", "beta"):
        scaled = float(aqm[name]) * 256
        if not math.isclose(scaled, round(scaled), abs_tol=0.05):
            why = f"the kernel takes {name} in 1/256 Hz: {round(scaled)}/256 = {round(scaled) / 256:g} Hz runs"
            if name in written:
                raise KernelRefusal(f"{path}.{name}", f"{aqm[name]!r}: {why}")
            if round(scaled) != {"alpha": 41, "beta": 819}[name]:
                notes.append(f"{name} = {aqm[name]!r} not carried exactly: {why}")
        gains[name] = round(scaled)
    coupling = float(aqm["coupling"])
    if coupling != int(coupling) or not 1 <= coupling <= 255:
        raise KernelRefusal(
            f"{path}.coupling", f"{coupling!r}: the kernel's coupling factor is a whole number in 1..255"
        )
    params: list[tuple[str, int]] = [
        ("limit", min(limit, int(aqm["limit"]))),
        ("target_us", round(seconds(aqm["target"]) * 1e6)),
        ("tupdate_us", round(seconds(aqm["t_update"]) * 1e6)),
        ("alpha", gains["alpha"]),
        ("beta", gains["beta"]),
        ("coupling", int(coupling)),
        ("min_qlen_step", int(aqm["min_qlen_step"])),
        ("drop_overload", 1 if aqm["drop_overload"] else 0),
        ("drop_early", 1 if aqm["drop_early"] else 0),
        ("c_protection", int(aqm["c_protection"])),
    ]
    if aqm.get("step_packets") is not None:
        params.append(("step_thresh_pkts", int(aqm["step_packets"])))
    else:
        params.append(("step_thresh_us", round(seconds(aqm["step_thresh"]) * 1e6)))
    return Qdisc("dualpi2", tuple(notes), "dualpi2", release="7.3", netlink=tuple(params))


_CAKE_ACK_FILTER = {"off": "no-ack-filter", "on": "ack-filter", "aggressive": "ack-filter-aggressive"}
_CAKE_ATM = {"none": "noatm", "atm": "atm", "ptm": "ptm"}


def _cake(
    aqm: Mapping[str, Any],
    *,
    limit: int,
    rate: float,
    mtu: int,
    fixed: Callable[[str, Any, str], None],
    notes: list[str],
    written: set[str],
    path: str,
) -> Qdisc:
    """sch_cake with the scenario's parameters (aqm/cake/: Linux 6.1's, read from sch_cake.c)."""
    rtt, target = seconds(aqm["rtt"]), seconds(aqm["target"])
    if not math.isclose(target, rtt / 20, rel_tol=1e-9):
        where = "target" if "target" in written or "rtt" not in written else "rtt"
        raise KernelRefusal(
            f"{path}.{where}", f"target {target * 1e3:g} ms with rtt {rtt * 1e3:g} ms: tc cake sets target = rtt / 20"
        )
    fixed("perturbation", 0, "the kernel hashes flows and hosts with its own random key")
    fixed("mtu", mtu + ETHERNET_HEADER, "the guest's device MTU with its header is psched_mtu")
    # The bottleneck's size table takes the 14-byte Ethernet header off qdisc_pkt_len, so the
    # guest's cake sees IP sizes; with `overhead` it also takes its network offset (14) off:
    # overhead N + 14 there charges what N charges here, and raw here (IP + 14) is overhead 28.
    overhead = aqm.get("overhead")
    framing = f"overhead {int(overhead if overhead is not None else ETHERNET_HEADER) + ETHERNET_HEADER}"
    bandwidth = aqm.get("bandwidth")
    bytes_per_s = rate_bps(bandwidth) / 8 if bandwidth is not None else 0.0
    # cake_reconfigure's limit as aqm/cake/ computes it (packet sizes), then the guest's memlimit
    # holding as many segments at their truesize
    cake_mtu = int(aqm["mtu"])
    if aqm.get("memlimit") is not None:
        buffer = float(size_bytes(aqm["memlimit"]))
    else:
        auto = max(bytes_per_s * rtt * 4, 4 << 20) if bytes_per_s else math.inf
        buffer = min(auto, limit * cake_mtu)
    memlimit = int(buffer // mtu) * (SKB_TRUESIZE_EXTRA + mtu - TCP_IP_HEADERS)
    notes.append(
        f"memlimit: the {int(buffer)} bytes the simulation counts by packet size hold {int(buffer // mtu)} "
        f"segments; the kernel counts their truesize, {memlimit} bytes"
    )
    args = (
        f"cake {f'bandwidth {round(rate_bps(bandwidth))}bit' if bandwidth is not None else 'unlimited'} "
        f"rtt {_us(rtt)} {aqm['diffserv']} {aqm['isolation']} {'wash' if aqm.get('wash') else 'nowash'} "
        f"{_CAKE_ACK_FILTER[str(aqm['ack_filter'])]} split-gso {framing} mpu {int(aqm['mpu'])} "
        f"{_CAKE_ATM[str(aqm['atm'])]} memlimit {memlimit}"
    )
    return Qdisc(args, tuple(notes), "cake")


def _codel_fixed(fixed: Callable[[str, Any, str], None]) -> None:
    """What sch_codel and sch_fq_codel do their own way (include/net/codel_impl.h)."""
    fixed("inv_sqrt", "linux", "the kernel computes 1/sqrt(count) by fixed-point Newton steps (codel_Newton_step)")
    fixed(
        "clock_at_start", GUEST_CLOCK_AT_START_S, "the guest's CoDel clock counts from its boot, 1 s before the flows"
    )


def _pie_fixed(
    aqm: Mapping[str, Any], fixed: Callable[[str, Any, str], None], qdisc: str, *, ecn_prob_carried: bool
) -> None:
    """What sch_pie and sch_fq_pie do their own way, PIE's parameters the kernel does not take."""
    fixed("max_burst", PIE_MAX_BURST_S, f"{qdisc}'s burst allowance is 150 ms")
    fixed("burst_reset", "linux", "the kernel re-arms the burst allowance its own way")
    fixed("decay", "linux", "the kernel decays p by p/64 with an empty queue (pie.h)")
    if aqm.get("ecn"):
        if not ecn_prob_carried:
            fixed("ecn_prob", PIE_ECN_PROB, "sch_pie marks up to p = 10 %")
        # pie_drop_early (sch_pie.c) clears accu_prob on a random pick and the enqueue on a drop,
        # not after a mark the 8.5 bound forced
        fixed(
            "accu_prob_reset", "linux", "the kernel keeps accu_prob after a mark the 8.5 bound forced (pie_drop_early)"
        )


def _pie_gains(aqm: Mapping[str, Any], path: str) -> tuple[int, int]:
    """PIE's alpha and beta as tc takes them: whole sixteenths of 1/s, 0 to 32 (pie_change)."""
    out = []
    for name in ("alpha", "beta"):
        v = float(aqm[name]) * 16
        if not (v.is_integer() and 0 <= v <= 32):
            raise KernelRefusal(
                f"{path}.{name}", f"{aqm[name]}: the kernel takes whole sixteenths from 0 to 2 (tc {name} 0 to 32)"
            )
        out.append(int(v))
    return out[0], out[1]


def _mtu_note(aqm: Mapping[str, Any], mtu: int) -> str:
    if int(aqm.get("mtu", 0)) == mtu + ETHERNET_HEADER:
        return ""
    return f"mtu = {aqm.get('mtu')} not carried: the kernel uses the device's MTU with its header ({mtu + ETHERNET_HEADER})"


def _tupdate_note(aqm: Mapping[str, Any]) -> str:
    t = seconds(aqm["t_update"])
    jiffies = math.ceil(round(t * GUEST_HZ, 9))
    if math.isclose(jiffies / GUEST_HZ, t):
        return ""
    return (
        f"t_update = {t * 1e3:g} ms runs as {jiffies * 1e3 / GUEST_HZ:g} ms: the kernel's timer counts "
        f"jiffies (HZ {GUEST_HZ})"
    )


def _red(
    aqm: Mapping[str, Any],
    *,
    limit: int,
    rate: float,
    mtu: int,
    fixed: Callable[[str, Any, str], None],
    notes: list[str],
    written: set[str],
    path: str,
) -> Qdisc:
    if aqm.get("gentle"):
        if "gentle" in written:
            raise KernelRefusal(f"{path}.gentle", "Linux's red has no gentle region (above max it drops every packet)")
        raise KernelRefusal(
            f"{path}.gentle",
            "true by default: Linux's red has no gentle region (above max it drops every packet); "
            "write gentle = false to run it",
        )
    fixed("bytes", False, "Linux's red averages the backlog in bytes, its probability not scaled by size")
    # Linux marks when p_b x count >= a uniform draw (red_mark_probability, include/net/red.h): the
    # count at a signal is uniform over [1, 1/p_b], p_a = p_b / (1 - count p_b), aqmlab's wait = false;
    # aqmlab's wait = true is ns-2's p_b / (2 - count p_b) (uniform over [1/p_b, 2/p_b])
    fixed("wait", False, "Linux's red spreads signals as p_b / (1 - count p_b) (wait = false), not ns-2's wait")
    # htb dequeues a leaf only while it holds packets (htb_dequeue_tree, sch_htb.c), so red_dequeue never
    # finds the queue empty and red_start_of_idle_period never runs (sch_red.c)
    fixed(
        "idle_decay",
        False,
        "Linux's red under the htb class never starts an idle period (htb dequeues no empty leaf): "
        "its average does not decay over idle time (idle_decay = false)",
    )
    # red_enqueue and red_action (include/net/red.h) decide on the average alone; ns-2's red.cc
    # signals only while more than one packet waits (qlen > 1)
    fixed(
        "short_queue_exempt",
        False,
        "Linux's red signals on the average alone, an empty queue's arrival too (short_queue_exempt = false)",
    )
    w_q = aqm.get("w_q")
    if not isinstance(w_q, int | float):
        raise KernelRefusal(f"{path}.w_q", f"{w_q!r}: give a number (the kernel's weight is 2^-Wlog)")
    wlog = red_wlog(float(w_q))
    if not math.isclose(2.0**-wlog, float(w_q)):
        notes.append(f"w_q = {w_q:g} runs as 2^-{wlog} = {2.0**-wlog:.6g}: the kernel's weight is a power of 2")
    max_p = float(aqm["max_p"])
    ecn = bool(aqm.get("ecn"))
    harddrop = False
    if ecn:
        mark_p = float(aqm["mark_p"])
        if mark_p < max_p:
            raise KernelRefusal(
                f"{path}.mark_p",
                f"{mark_p:g} < max_p {max_p:g}: Linux's red marks every early signal below max (no drop between)",
            )
        harddrop = True  # the simulator drops above max_th (p = 1 >= mark_p)
    qmin, qmax = round(float(aqm["min_th"]) * mtu), round(float(aqm["max_th"]) * mtu)
    burst = red_burst(qmin, mtu, wlog)
    args = (
        f"red limit {limit * mtu} min {qmin} max {qmax} avpkt {mtu} burst {burst} "
        f"probability {_num(max_p)} bandwidth {_bit(rate)}"
    )
    if ecn:
        args += " ecn harddrop" if harddrop else " ecn"
    return Qdisc(args, tuple(notes), "red")


def _step(
    aqm: Mapping[str, Any],
    *,
    limit: int,
    rate: float,
    mtu: int,
    fixed: Callable[[str, Any, str], None],
    notes: list[str],
    path: str,
) -> Qdisc:
    if aqm.get("k_sojourn") is not None:
        raise KernelRefusal(
            f"{path}.k_sojourn",
            "a step on the sojourn time has no single-queue Linux qdisc in 6.1 (this maps step_marking to red "
            "min = max): give k_packets or k_bytes",
        )
    if aqm.get("non_ect", "drop") != "drop":
        raise KernelRefusal(f"{path}.non_ect", f"{aqm['non_ect']!r}: Linux's red drops non-ECT packets above K")
    k = aqm.get("k_bytes")
    k_bytes = int(k) if k is not None else int(aqm.get("k_packets") or 20) * mtu
    # more than K waiting: the backlog at least K + 1 bytes
    th = k_bytes + 1
    fixed(
        "average_weight",
        0.5,
        "the step acts on red's average with weight 1/2 (tc gives no Wlog below 1), not on the instantaneous queue",
    )
    burst = red_burst(th, mtu, 1)
    args = f"red limit {limit * mtu} min {th} max {th} avpkt {mtu} burst {burst} probability 1 bandwidth {_bit(rate)}"
    args += " ecn" if aqm.get("ecn", True) else " harddrop"
    return Qdisc(args, tuple(notes), "red")
