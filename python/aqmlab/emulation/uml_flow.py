"""One bulk TCP flow through a real Linux bottleneck inside the reference kernel's guest
(uml_kernel.py): the payload that sets it up, the two programs that run it, its results.

Three network namespaces in the guest, joined by two veth pairs::

    s (sender, 10.0.1.1) -- r (router) -- d (receiver, 10.0.2.2)

netem delays each direction by ``delay_ms`` (on s0, the data, and on d0, the ACKs: the round
trip is twice the delay); r's egress towards d is the bottleneck, an htb class at
``rate_mbit`` whose leaf is ``qdisc`` (any ``tc qdisc add`` arguments: ``fq_codel``, ``pie``,
``cake bandwidth ...``). The sender writes for ``duration_s`` guest seconds, reads its socket's
TCP_INFO (tcp_info.py) and closes; the receiver counts what arrived; halfway ``ss -tin`` runs
in s; at the end ``tc -s qdisc`` in s and r.

Guest side: ``python -m aqmlab.emulation.uml_flow receive PORT CC`` and ``... send HOST PORT
DURATION_S CC``, each printing one JSON object.
"""

from __future__ import annotations

import errno
import json
import re
import shlex
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import tcp_info
from .uml_kernel import GuestRun, run_in_guest

PORT = 5001
WRITE_BYTES = 64 * 1024
READ_BYTES = 1 << 20
CONNECT_RETRY_S = 5.0
SECTION = "=== aqmlab-section "


@dataclass(frozen=True)
class FlowRun:
    """The flow's results, parsed from the guest's output."""

    sender: dict[str, Any]  # elapsed_s, bytes_sent, tcp_info (decoded, tcp_info.decode)
    receiver: dict[str, Any]  # bytes, first_s, last_s (guest monotonic seconds)
    ss: str  # ss -tin in s, halfway
    qdiscs: dict[str, str]  # tc -s qdisc show, by device ("s0", "r1", "d0")
    guest: GuestRun

    @property
    def goodput_bps(self) -> float:
        """Bytes received over the time from the first to the last, in bits per second."""
        span = float(self.receiver["last_s"]) - float(self.receiver["first_s"])
        return 8.0 * int(self.receiver["bytes"]) / span if span > 0 else 0.0


def payload(
    *,
    rate_mbit: float,
    delay_ms: float,
    qdisc: str,
    duration_s: float,
    cc: str = "cubic",
    python: str | None = None,
    tcp_ecn: int | None = None,
    router_setup: str = "",
) -> str:
    """The guest's /bin/sh script for one flow (see the module's docstring). ``tcp_ecn`` sets
    net.ipv4.tcp_ecn in the sender's and the receiver's namespaces (3: Accurate ECN both ways,
    in kernels that have it); None leaves the kernel's default. ``router_setup``: shell lines
    run once the bottleneck is built, before the flow (e.g. :func:`guest_module` commands)."""
    mod = guest_module("aqmlab.emulation.uml_flow", python)
    router_setup = router_setup.rstrip("\n") + "\n" if router_setup else ""
    half = max(duration_s / 2.0, 0.1)
    ecn = (
        ""
        if tcp_ecn is None
        else "".join(f"ip netns exec {ns} sh -c 'echo {int(tcp_ecn)} > /proc/sys/net/ipv4/tcp_ecn'\n" for ns in "sd")
    )
    return f"""set -e
for ns in s r d; do ip netns add $ns; ip -n $ns link set lo up; done
ip link add s0 netns s type veth peer name r0 netns r
ip link add r1 netns r type veth peer name d0 netns d
ip -n s addr add 10.0.1.1/24 dev s0
ip -n r addr add 10.0.1.2/24 dev r0
ip -n r addr add 10.0.2.1/24 dev r1
ip -n d addr add 10.0.2.2/24 dev d0
ip -n s link set s0 up; ip -n r link set r0 up; ip -n r link set r1 up; ip -n d link set d0 up
ip -n s route add default via 10.0.1.2
ip -n d route add default via 10.0.2.1
ip netns exec r sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
{ecn}tc -n s qdisc add dev s0 root netem delay {delay_ms}ms limit 100000
tc -n d qdisc add dev d0 root netem delay {delay_ms}ms limit 100000
tc -n r qdisc add dev r1 root handle 1: htb default 1
tc -n r class add dev r1 parent 1: classid 1:1 htb rate {rate_mbit}mbit ceil {rate_mbit}mbit
tc -n r qdisc add dev r1 parent 1:1 handle 10: {qdisc}
{router_setup}ip netns exec d {mod} receive {PORT} {shlex.quote(cc)} > receiver.json &
receiver=$!
sleep 0.5
(sleep {half}; ip netns exec s ss -tin > ss.txt) &
ip netns exec s {mod} send 10.0.2.2 {PORT} {duration_s} {shlex.quote(cc)} > sender.json
wait
for f in sender.json receiver.json ss.txt; do echo "{SECTION}$f"; cat $f; done
echo "{SECTION}tc s0"; tc -n s -s qdisc show dev s0
echo "{SECTION}tc r1"; tc -n r -s qdisc show dev r1
echo "{SECTION}tc d0"; tc -n d -s qdisc show dev d0
"""


def guest_module(module: str, python: str | None = None) -> str:
    """The guest's command line that runs ``module`` of this package with the host's Python."""
    py = shlex.quote(python or sys.executable)
    pythonpath = shlex.quote(str(Path(__file__).resolve().parents[2]))
    return f"env PYTHONPATH={pythonpath} {py} -m {module}"


def run_flow(
    *,
    rate_mbit: float,
    delay_ms: float,
    qdisc: str = "fq_codel",
    duration_s: float = 10.0,
    cc: str = "cubic",
    seed: int | None = 1,
    timeout_s: float = 600.0,
    tcp_ecn: int | None = None,
    router_setup: str = "",
) -> FlowRun:
    """Boots the reference kernel, runs one flow, returns its results (a failed payload is a
    RuntimeError with its output)."""
    guest = run_in_guest(
        payload(
            rate_mbit=rate_mbit,
            delay_ms=delay_ms,
            qdisc=qdisc,
            duration_s=duration_s,
            cc=cc,
            tcp_ecn=tcp_ecn,
            router_setup=router_setup,
        ),
        seed=seed,
        timeout_s=timeout_s,
    )
    if guest.status != 0:
        tail = " | ".join(guest.output.strip().splitlines()[-8:])
        raise RuntimeError(f"the flow's payload failed in the guest (exit {guest.status}): {tail}")
    sections = _sections(guest.output)
    return FlowRun(
        sender=json.loads(sections["sender.json"]),
        receiver=json.loads(sections["receiver.json"]),
        ss=sections.get("ss.txt", ""),
        qdiscs={k.removeprefix("tc "): v for k, v in sections.items() if k.startswith("tc ")},
        guest=guest,
    )


def _sections(output: str) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in output.splitlines():
        if line.startswith(SECTION):
            current = out.setdefault(line.removeprefix(SECTION), [])
        elif current is not None:
            current.append(line)
    return {k: "\n".join(v) for k, v in out.items()}


_SENT = re.compile(r"^qdisc (\S+) .*?\n\s*Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)", re.M)


def qdisc_stats(tc_s_output: str) -> dict[str, dict[str, int]]:
    """``tc -s qdisc show``: kind -> bytes, packets, dropped, overlimits (the first of a kind)."""
    out: dict[str, dict[str, int]] = {}
    for kind, sent, pkts, dropped, over in _SENT.findall(tc_s_output):
        out.setdefault(
            kind, {"bytes": int(sent), "packets": int(pkts), "dropped": int(dropped), "overlimits": int(over)}
        )
    return out


_SS_RTT = re.compile(r"\brtt:([\d.]+)/([\d.]+)")


def ss_rtt_ms(ss_output: str) -> float | None:
    """The smoothed RTT ``ss -ti`` shows for the first socket (ms), or None."""
    m = _SS_RTT.search(ss_output)
    return float(m.group(1)) if m else None


# ---------------------------------------------------------------------- in the guest


def _receive(port: int, cc: str) -> dict[str, Any]:
    """Counts the bytes of one connection. The listener takes the sender's congestion control:
    DCTCP's SYN is ECN-capable, which a listener accepts for ECN only if it needs ECN too
    (tcp_ecn_create_request, net/ipv4/tcp_input.c)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as lsock:
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        lsock.bind(("0.0.0.0", port))
        lsock.listen(1)
        conn, _ = lsock.accept()
        total, first, last = 0, 0.0, 0.0
        buf = bytearray(READ_BYTES)
        with conn:
            while n := conn.recv_into(buf):
                last = time.monotonic()
                if total == 0:
                    first = last
                total += n
    return {"bytes": total, "first_s": first, "last_s": last}


def _connect(host: str, port: int, cc: str) -> socket.socket:
    """A connected socket whose congestion control was set before the SYN (DCTCP negotiates
    ECN in the handshake)."""
    deadline = time.monotonic() + CONNECT_RETRY_S
    while True:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        try:
            sock.connect((host, port))
            return sock
        except OSError as e:
            sock.close()
            if e.errno != errno.ECONNREFUSED or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _send(host: str, port: int, duration_s: float, cc: str) -> dict[str, Any]:
    sock = _connect(host, port, cc)
    with sock:
        data = b"\0" * WRITE_BYTES
        start = time.monotonic()
        end = start + duration_s
        sent = 0
        while time.monotonic() < end:
            sent += sock.send(data)
        elapsed = time.monotonic() - start
        info = tcp_info.read(sock)
        sock.shutdown(socket.SHUT_WR)
        while sock.recv(READ_BYTES):
            pass
    return {"elapsed_s": elapsed, "bytes_sent": sent, "tcp_info": info}


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "receive":
        result = _receive(int(argv[1]), argv[2])
    elif len(argv) == 5 and argv[0] == "send":
        result = _send(argv[1], int(argv[2]), float(argv[3]), argv[4])
    else:
        print("usage: uml_flow receive PORT CC | send HOST PORT DURATION_S CC", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
