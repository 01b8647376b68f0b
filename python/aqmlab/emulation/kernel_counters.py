"""The kernel's protocol counters of one network namespace: /proc/net/netstat (TcpExt, IpExt,
...) and /proc/net/snmp (Ip, Tcp, Udp, ...).

/proc/net is /proc/self/net, the counters of the reading process's namespace (proc(5)), so
an agent running inside a host's namespace reads that host's counters only. Each file holds
pairs of lines, "Group: Name1 Name2 ..." then "Group: value1 value2 ...".
"""

from __future__ import annotations

from pathlib import Path

FILES = (Path("/proc/net/netstat"), Path("/proc/net/snmp"))
# Tcp lines of /proc/net/snmp that are settings or gauges, not counts: no delta.
NOT_COUNTS = frozenset({"Tcp.RtoAlgorithm", "Tcp.RtoMin", "Tcp.RtoMax", "Tcp.MaxConn", "Tcp.CurrEstab"})


def parse(text: str) -> dict[str, int]:
    """ "Group.Name" -> value for every header/value line pair of ``text``."""
    out: dict[str, int] = {}
    lines = [line.split() for line in text.splitlines() if line.strip()]
    if len(lines) % 2:
        raise ValueError("counter lines do not come in header/value pairs")
    for head, values in zip(lines[::2], lines[1::2], strict=True):
        if head[0] != values[0] or len(head) != len(values):
            raise ValueError(f"unexpected counter lines {head[0]!r} / {values[0]!r}")
        group = head[0].rstrip(":")
        for name, value in zip(head[1:], values[1:], strict=True):
            out[f"{group}.{name}"] = int(value)
    return out


def read() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in FILES:
        out.update(parse(path.read_text()))
    return out


def deltas(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """after - before for every counter in both (a counter a kernel lacks is simply absent)."""
    return {k: after[k] - before[k] for k in after if k in before and k not in NOT_COUNTS}
