"""Changes a DualPI2 qdisc's parameters over rtnetlink, for a guest whose ``tc`` cannot.

The host's iproute2 (6.1) has no DualPI2 parser: ``tc qdisc add ... dualpi2`` with no option
sends the bare kind, and the kernel takes its defaults (net/sched/sch_dualpi2.c,
dualpi2_reset_default), but any option is refused before the kernel is asked. This sends the
one message ``tc qdisc change`` would: RTM_NEWQDISC for the existing handle, TCA_KIND
"dualpi2" and TCA_OPTIONS holding the attributes given (include/uapi/linux/pkt_sched.h,
TCA_DUALPI2_*), the kernel applying them in dualpi2_change. Guest side:
``python -m aqmlab.emulation.qdisc_netlink DEV HANDLE NAME=VALUE...`` in the qdisc's namespace.
"""

from __future__ import annotations

import os
import socket
import struct
import sys

NETLINK_ROUTE = 0
RTM_NEWQDISC = 36
NLMSG_ERROR = 2
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
TCA_KIND = 1
TCA_OPTIONS = 2
NLA_F_NESTED = 0x8000

# include/uapi/linux/pkt_sched.h (Linux 7.3): attribute number and struct format of each
# parameter taken here.
DUALPI2_ATTRS: dict[str, tuple[int, str]] = {
    "limit": (1, "I"),  # TCA_DUALPI2_LIMIT, packets
    "target_us": (3, "I"),  # TCA_DUALPI2_TARGET
    "tupdate_us": (4, "I"),  # TCA_DUALPI2_TUPDATE
    "alpha": (5, "I"),  # TCA_DUALPI2_ALPHA, Hz x 256
    "beta": (6, "I"),  # TCA_DUALPI2_BETA, Hz x 256
    "step_thresh_pkts": (7, "I"),  # TCA_DUALPI2_STEP_THRESH_PKTS
    "step_thresh_us": (8, "I"),  # TCA_DUALPI2_STEP_THRESH_US
    "min_qlen_step": (9, "I"),  # TCA_DUALPI2_MIN_QLEN_STEP
    "coupling": (10, "B"),  # TCA_DUALPI2_COUPLING
    "drop_overload": (11, "B"),  # TCA_DUALPI2_DROP_OVERLOAD: 1 drop (default), 0 overflow
    "drop_early": (12, "B"),  # TCA_DUALPI2_DROP_EARLY: 0 at dequeue (default), 1 at enqueue
    "c_protection": (13, "B"),  # TCA_DUALPI2_C_PROTECTION, percent
    "ecn_mask": (14, "B"),  # TCA_DUALPI2_ECN_MASK: 1 ECT(1) only (default), 2 ECT(0), 3 any ECT
}


def _attr(kind: int, payload: bytes) -> bytes:
    """One netlink attribute, padded to 4 bytes (NLA_ALIGN)."""
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def change_message(ifindex: int, handle: int, params: dict[str, int], seq: int = 1) -> bytes:
    """RTM_NEWQDISC without NLM_F_CREATE: change the DualPI2 qdisc at ``handle`` on ``ifindex``."""
    options = b"".join(
        _attr(DUALPI2_ATTRS[name][0], struct.pack("=" + DUALPI2_ATTRS[name][1], value))
        for name, value in params.items()
    )
    tcmsg = struct.pack("=BxxxiIII", socket.AF_UNSPEC, ifindex, handle, 0, 0)
    body = tcmsg + _attr(TCA_KIND, b"dualpi2\0") + _attr(TCA_OPTIONS | NLA_F_NESTED, options)
    return struct.pack("=IHHII", 16 + len(body), RTM_NEWQDISC, NLM_F_REQUEST | NLM_F_ACK, seq, 0) + body


def parse_handle(text: str) -> int:
    """``tc``'s handle notation: "10:" is major 0x10, minor 0."""
    major, _, minor = text.partition(":")
    return (int(major, 16) << 16) | (int(minor, 16) if minor else 0)


def change_dualpi2(dev: str, handle: str, params: dict[str, int]) -> None:
    unknown = sorted(set(params) - set(DUALPI2_ATTRS))
    if unknown:
        raise ValueError(f"unknown dualpi2 parameter(s) {unknown}: known {sorted(DUALPI2_ATTRS)}")
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE) as sock:
        sock.send(change_message(socket.if_nametoindex(dev), parse_handle(handle), params))
        reply = sock.recv(65536)
    _, kind = struct.unpack_from("=IH", reply)
    if kind != NLMSG_ERROR:
        raise OSError(f"unexpected netlink reply type {kind}")
    (code,) = struct.unpack_from("=i", reply, 16)
    if code:
        raise OSError(-code, f"dualpi2 change on {dev} {handle} refused: {os.strerror(-code)}")


def main(argv: list[str]) -> int:
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        print("usage: qdisc_netlink DEV HANDLE NAME=VALUE...", file=sys.stderr)
        return 2
    params = {k: int(v, 0) for k, v in (a.split("=", 1) for a in argv[2:])}
    try:
        change_dualpi2(argv[0], argv[1], params)
    except (OSError, ValueError) as e:
        print(f"qdisc_netlink: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
