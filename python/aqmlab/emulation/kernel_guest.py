"""Inside the reference kernel's guest (validate_kernel.py): every flow of a scenario from one
process, and the measurements, by the guest's clock.

``python -m aqmlab.emulation.kernel_guest SPEC.json`` prints one JSON object. Each socket is
made in its host's network namespace (``setns`` to ``/run/netns/NAME`` before ``socket()``; a
socket stays in the namespace it was made in), so one single-threaded selector loop runs
every sender and receiver. The guest's clock is virtual (time-travel=inf-cpu): the loop always
blocks in ``select`` until a socket is ready or its next timer, never polls.

Timers: each flow's start (connect, then write as fast as the socket takes it); from the end of
the warm-up, every ``sample_s``: the bottleneck leaf qdisc's queue length and drop counter
(rtnetlink, in the router's namespace), each sender's srtt (TCP_INFO) and a DCTCP sender's
alpha (TCP_CC_INFO, while the socket runs DCTCP's algorithm); at the end of the warm-up and at
the end: the leaf's counters (bytes, packets, drops from rtnetlink; ECN marks from ``tc -s``,
kept whole as ``tc_s``), each
sender's ``tcpi_total_retrans`` and each receiver's ``tcpi_bytes_received``.
"""

from __future__ import annotations

import ctypes
import heapq
import json
import math
import os
import re
import selectors
import socket
import struct
import subprocess
import sys
import time
from typing import Any

from . import tcp_info

CLONE_NEWNET = 0x40000000
RTM_GETQDISC = 38
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_DONE, NLMSG_ERROR = 3, 2
TCA_KIND = 1
TCA_STATS = 3
TCA_XSTATS = 4
# struct tc_dualpi2_xstats: prob, delay_c, delay_l, packets_in_c, packets_in_l, maxq, ecn_mark
DUALPI2_XSTATS_MARKS_AT = 24
WRITE_BYTES = 64 * 1024
READ_BYTES = 1 << 20

_libc = ctypes.CDLL(None, use_errno=True)


def enter(ns: str) -> None:
    """This thread into network namespace ``ns`` (made by ``ip netns add``)."""
    fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns {ns}: {os.strerror(err)}")
    finally:
        os.close(fd)


class QdiscStats:
    """A qdisc's counters by rtnetlink (RTM_GETQDISC dump; the compat ``struct tc_stats``)."""

    def __init__(self, ifindex: int, handle: int):
        self.ifindex, self.handle = ifindex, handle
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)  # NETLINK_ROUTE
        self.seq = 0

    def read(self) -> dict[str, int]:
        self.seq += 1
        tcmsg = struct.pack("=BBHiIII", 0, 0, 0, self.ifindex, 0, 0, 0)
        self.sock.send(
            struct.pack("=IHHII", 16 + len(tcmsg), RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, self.seq, 0) + tcmsg
        )
        found: dict[str, int] | None = None
        while True:
            data = self.sock.recv(1 << 16)
            at = 0
            while at + 16 <= len(data):
                length, kind, _, _, _ = struct.unpack_from("=IHHII", data, at)
                if kind == NLMSG_DONE:
                    if found is None:
                        raise RuntimeError(f"no qdisc {self.handle:#x} on ifindex {self.ifindex}")
                    return found
                if kind == NLMSG_ERROR:
                    raise RuntimeError("rtnetlink error on RTM_GETQDISC")
                _, _, _, ifindex, handle, _, _ = struct.unpack_from("=BBHiIII", data, at + 16)
                if ifindex == self.ifindex and handle == self.handle:
                    found = self._stats(data[at + 36 : at + length])
                at += (length + 3) & ~3

    @staticmethod
    def _stats(attrs: bytes) -> dict[str, int]:
        at = 0
        out: dict[str, int] | None = None
        qdisc_kind = b""
        xstats = b""
        while at + 4 <= len(attrs):
            length, kind = struct.unpack_from("=HH", attrs, at)
            if kind == TCA_KIND:
                qdisc_kind = attrs[at + 4 : at + length].rstrip(b"\0")
            elif kind == TCA_XSTATS:
                xstats = attrs[at + 4 : at + length]
            elif kind == TCA_STATS:
                nbytes, packets, drops, _over, _bps, _pps, qlen, backlog = struct.unpack_from(
                    "=QIIIIIII", attrs, at + 4
                )
                out = {"bytes": nbytes, "packets": packets, "drops": drops, "qlen": qlen, "backlog": backlog}
            at += (length + 3) & ~3
        if out is None:
            raise RuntimeError("no TCA_STATS in the qdisc's message")
        if qdisc_kind == b"dualpi2" and len(xstats) >= DUALPI2_XSTATS_MARKS_AT + 4:
            # the host's tc (6.1) prints no dualpi2 statistics: its marks come from struct
            # tc_dualpi2_xstats (include/uapi/linux/pkt_sched.h, Linux 7.3), ecn_mark counting
            # every CE mark, the step's included (dualpi2_mark: step_marks is a part of it)
            (out["marks"],) = struct.unpack_from("=I", xstats, DUALPI2_XSTATS_MARKS_AT)
        return out


_MARKS = (re.compile(r"\becn_mark (\d+)"), re.compile(r"\bmarked (\d+)"), re.compile(r"^\s*marks\s+(\d+)", re.M))
# codel's and fq_codel's shallow-threshold marks (`ce_threshold`), counted apart from CoDel's own
# (`codel_dequeue`: `stats->ce_mark`, printed as "ce_mark N").
_CE_THRESHOLD_MARKS = re.compile(r"\bce_mark (\d+)")


def leaf_marks(tc_s: str, handle: str) -> int:
    """Packets the qdisc ``handle`` (``10:``) marked, from ``tc -s qdisc show``: its own count,
    or, for codel and fq_codel with ``ce_threshold``, the larger of CoDel's ``ecn_mark`` and the
    threshold's ``ce_mark``. Not their sum: ``codel_dequeue`` tests the threshold on every
    packet it sends, one CoDel has just marked too, and ``INET_ECN_set_ce`` reports success on a
    packet already CE, so each CoDel mark with a sojourn above the threshold is in both. With
    the threshold below CoDel's target (every CoDel mark has a sojourn above the target) that
    is every CoDel mark, and ``ce_mark`` is exactly the packets marked; with it above the target
    the larger count is a lower bound."""
    sections = re.split(r"(?m)^(?=qdisc )", tc_s)
    for sec in sections:
        head = sec.split("\n", 1)[0].split()
        if len(head) >= 3 and head[2] == handle:
            ce = _CE_THRESHOLD_MARKS.search(sec)
            threshold_marks = int(ce.group(1)) if ce else 0
            for pat in _MARKS:
                m = pat.search(sec)
                if m:
                    return max(int(m.group(1)), threshold_marks)
            return threshold_marks
    raise RuntimeError(f"no qdisc {handle} in tc -s output")


def main(spec_path: str) -> int:
    spec = json.loads(open(spec_path).read())
    flows = spec["flows"]
    warmup, duration, step = float(spec["warmup_s"]), float(spec["duration_s"]), float(spec["sample_s"])
    handle_text = f"{int(spec['leaf_handle']) >> 16:x}:"
    sel = selectors.DefaultSelector()
    for f in flows:
        enter(f["dst_ns"])
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # DCTCP's ECN-capable SYN is accepted for ECN only by a listener that needs ECN itself
        ls.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, f["cc"].encode())
        ls.bind(("0.0.0.0", int(f["port"])))
        ls.listen(1)
        ls.setblocking(False)
        sel.register(ls, selectors.EVENT_READ, ("listen", f))
    enter(spec["router_ns"])
    stats = QdiscStats(socket.if_nametoindex(spec["dev"]), int(spec["leaf_handle"]))
    senders: dict[int, socket.socket] = {}
    receivers: dict[int, socket.socket] = {}
    data = b"\0" * WRITE_BYTES
    buf = bytearray(READ_BYTES)
    qlen: list[int] = []
    drops: list[int] = []
    srtt: dict[int, list[int]] = {int(f["flow"]): [] for f in flows}
    # DCTCP's alpha (1/1024) of each DCTCP sender that runs DCTCP's algorithm (TCP_CC_INFO)
    alpha: dict[int, list[int]] = {int(f["flow"]): [] for f in flows if f["cc"] == "dctcp"}
    snaps: dict[str, Any] = {}
    # Time 0 on the next whole second of the guest's clock: what ran before (the setup, Python's
    # imports, which take guest time when they write bytecode) does not shift the flows against
    # the kernel's own timers (jiffies).
    t0 = math.floor(time.monotonic()) + 1.0
    time.sleep(t0 - time.monotonic())
    timers: list[tuple[float, int, str, Any]] = []
    n = 0

    def at(t: float, kind: str, arg: Any = None) -> None:
        nonlocal n
        n += 1
        heapq.heappush(timers, (t, n, kind, arg))

    for f in flows:
        at(float(f["start_s"]), "start", f)
    at(warmup, "snapshot", "warmup")
    k = 0
    while warmup + k * step < duration:
        at(warmup + k * step, "sample")
        k += 1
    at(duration, "snapshot", "end")

    def snapshot() -> dict[str, Any]:
        q = stats.read()
        tc = subprocess.run(
            ["tc", "-n", spec["router_ns"], "-s", "qdisc", "show", "dev", spec["dev"]],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        if "marks" not in q:  # a qdisc the host's tc prints
            q["marks"] = leaf_marks(tc, handle_text)
        # `tc -s` as printed, for what the counters above leave out (the qdisc's own: CoDel's
        # count and drop_overlimit, CAKE's per-tin drops, RED's early and forced drops)
        out: dict[str, Any] = {"t": time.monotonic() - t0, "qdisc": q, "tc_s": tc, "flows": {}}
        for f in flows:
            fid = int(f["flow"])
            s_info = tcp_info.read(senders[fid]) if fid in senders else {}
            r_info = tcp_info.read(receivers[fid]) if fid in receivers else {}
            out["flows"][str(fid)] = {
                "total_retrans": int(s_info.get("total_retrans", 0)),
                "bytes_received": int(r_info.get("bytes_received", 0)),
                "bytes_acked": int(s_info.get("bytes_acked", 0)),
                # the receiver's ACKs (its segments less its data) per data segment it took in
                "receiver_acks": int(r_info.get("segs_out", 0)) - int(r_info.get("data_segs_out", 0)),
                "receiver_data_segs": int(r_info.get("data_segs_in", 0)),
            }
        return out

    while True:
        now = time.monotonic() - t0
        while timers and timers[0][0] <= now:
            _, _, kind, arg = heapq.heappop(timers)
            if kind == "start":
                enter(arg["src_ns"])
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, arg["cc"].encode())
                s.setblocking(False)
                s.connect_ex((arg["dst_addr"], int(arg["port"])))
                senders[int(arg["flow"])] = s
                sel.register(s, selectors.EVENT_WRITE, ("send", arg))
            elif kind == "sample":
                q = stats.read()
                qlen.append(q["qlen"])
                drops.append(q["drops"])
                for fid, s in senders.items():
                    info = tcp_info.read(s)
                    if info.get("rtt"):
                        srtt[fid].append(int(info["rtt"]))
                    if fid in alpha and (a := tcp_info.read_dctcp_alpha(s)) is not None:
                        alpha[fid].append(a)
            else:
                snaps[arg] = snapshot()
                if arg == "end":
                    result = {
                        "warmup": snaps["warmup"],
                        "end": snaps["end"],
                        "qlen_samples": qlen,
                        "drops_samples": drops,
                        "flows": [
                            {
                                "flow": int(f["flow"]),
                                "group": f["group"],
                                "srtt_us_samples": srtt[int(f["flow"])],
                                **({"dctcp_alpha_samples": alpha[int(f["flow"])]} if int(f["flow"]) in alpha else {}),
                            }
                            for f in flows
                        ],
                    }
                    sys.stdout.write(json.dumps(result) + "\n")
                    sys.stdout.flush()
                    os._exit(0)
        timeout = max(0.0, timers[0][0] - (time.monotonic() - t0)) if timers else None
        for key, _ in sel.select(timeout):
            role, f = key.data
            sock: socket.socket = key.fileobj  # type: ignore[assignment]
            if role == "listen":
                conn, _ = sock.accept()
                conn.setblocking(False)
                receivers[int(f["flow"])] = conn
                sel.register(conn, selectors.EVENT_READ, ("recv", f))
            elif role == "recv":
                try:
                    if not sock.recv_into(buf):
                        sel.unregister(sock)
                except BlockingIOError:
                    pass
            else:
                err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    raise OSError(err, f"flow {f['flow']}: {os.strerror(err)}")
                try:
                    sock.send(data)
                except BlockingIOError:
                    pass


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m aqmlab.emulation.kernel_guest SPEC.json", file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(main(sys.argv[1]))
