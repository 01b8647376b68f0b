"""Checks the memory estimate against the peak resident memory of real runs.

Each scenario below stresses one part of the estimate (flows, links, routing, FQ-CoDel
sub-queues, time series, TCP window state). ``python -m aqmlab.memory_calibration [scale]`` runs each in a fresh
process, measures the growth of its peak resident set size over the run (``VmHWM`` after
the run minus before it; Linux) and prints it next to :func:`aqmlab.estimate_memory`; the measured
constants of ``crates/aqmlab-core/src/scenario/memory.rs`` come from this table, and
``tests/test_memory_limit.py`` runs it at a reduced scale.

The TCP window state is a bound, not a measured constant (:data:`BOUNDS`): a flow's
scoreboard and reassembly buffer hold at most twice its window (ring buffers that double
when they grow), which a run reaches only when every flow has a full window outstanding and
its receiver a window of out-of-order packets. Its row has initial windows of 2^16 packets,
so that each scoreboard fills at the first send: the estimate must be above what the run
uses (issue 24: a run of 2^20-packet windows used 5.3 GB where 0.5 GB was estimated).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from .memory_limit import estimate_memory

_MEASURE = """
import json, sys
import aqmlab

def peak():
    # VmHWM, the peak resident set of this process image (ru_maxrss is not usable: Linux
    # carries it over from the parent across fork and exec).
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))

scenario = json.load(sys.stdin)
before = peak()
aqmlab.run(scenario, max_memory="none")
print(peak() - before)
"""


def _dumbbell(
    senders: int = 2,
    count: int = 1,
    duration: str = "10ms",
    sample_interval: str | None = None,
    flows_from: str = "senders",
    flows_to: str = "receivers",
    access_aqm: Any = "droptail",
) -> dict[str, Any]:
    s: dict[str, Any] = {
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "senders": senders,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"limit": 100, "aqm": "red"}},
            "access": {"rate": "100Mbps", "delay": "1ms", "queue": {"limit": 1000, "aqm": access_aqm}},
        },
        "flows": [{"kind": "tcp", "from": flows_from, "to": flows_to, "count": count}],
    }
    if sample_interval is not None:
        s["sample_interval"] = sample_interval
    return s


def _huge_windows(senders: int) -> dict[str, Any]:
    """The linux profile with a window and an initial window of 2^16 packets: every sender's
    scoreboard fills with its first window, most of it dropped at once by an access queue of
    20 packets (so that the network holds few packets and the window state is most of the
    run's memory). Data from the start (`handshake = "none"`): the linux profile's SYN would
    hold the first window back a round trip, past this 10 ms run."""
    s = _dumbbell(senders=senders)
    s["topology"]["access"]["queue"]["limit"] = 20
    s["tcp"] = {"profile": "linux", "window": 1 << 16, "window_init": 1 << 16, "handshake": "none"}
    return s


def _meshed_hosts(hosts: int) -> dict[str, Any]:
    """Hosts each joined to two routers (so the graph has cycles and is routed by a table of
    nodes x destinations), a flow from each host to the next."""
    names = [f"h{i}" for i in range(hosts)]
    link = {"rate": "100Mbps", "delay": "1ms", "queue": {"limit": 100, "aqm": "droptail"}}
    links = [{"from": "r0", "to": "r1", **link}]
    for h in names:
        links += [{"from": h, "to": "r0", **link}, {"from": h, "to": "r1", **link}]
    return {
        "duration": "10ms",
        "topology": {"kind": "graph", "nodes": ["r0", "r1", *names], "links": links},
        # A window of 2: the part measured is the routing table, not packets in flight.
        "tcp": {"window": 2},
        "flows": [{"kind": "tcp", "from": names, "to": names[1:] + names[:1]}],
    }


# name -> scenario at scale 1 (each needs a few hundred MB); scale multiplies its size.
SCENARIOS: dict[str, Callable[[float], dict[str, Any]]] = {
    "flows": lambda k: _dumbbell(count=int(50_000 * k)),
    # Every link carries traffic (a flow per sender): delay histograms and queue buffers grow
    # with the packets they see.
    "links": lambda k: {**_dumbbell(senders=int(4000 * k), duration="200ms"), "tcp": {"window": 2}},
    "routing": lambda k: _meshed_hosts(int(8000 * k)),
    "fq_codel sub-queues": lambda k: _dumbbell(senders=int(64 * k), access_aqm={"kind": "fq_codel", "flows": 16384}),
    "time series": lambda k: _dumbbell(duration=f"{k:g}s", sample_interval="20us"),
    "tcp window state": lambda k: _huge_windows(int(100 * k)),
}
#: Rows whose part of the estimate is a bound a run may stay well below (see above).
BOUNDS = frozenset({"tcp window state"})


def measure(scenario: dict[str, Any]) -> int:
    """Growth of the peak resident set size (bytes) over one run in a fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE],
        input=json.dumps(scenario),  # on stdin: a large graph's description is past ARG_MAX
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip())


def calibrate(scale: float = 1.0) -> list[dict[str, Any]]:
    """One row per scenario: name, estimated and measured bytes, their ratio, and whether the
    part it stresses is a bound (:data:`BOUNDS`)."""
    rows = []
    for name, make in SCENARIOS.items():
        s = make(scale)
        estimated = estimate_memory(s)["total"]
        measured = measure(s)
        rows.append(
            {
                "scenario": name,
                "estimated": estimated,
                "measured": measured,
                "ratio": estimated / measured,
                "bound": name in BOUNDS,
            }
        )
    return rows


def main() -> None:
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    print(f"{'scenario':<22} {'estimated MB':>13} {'measured MB':>12} {'ratio':>6}")
    for r in calibrate(scale):
        bound = " (bound)" if r["bound"] else ""
        print(
            f"{r['scenario']:<22} {r['estimated'] / 1e6:>13.1f} {r['measured'] / 1e6:>12.1f} {r['ratio']:>6.2f}{bound}"
        )


if __name__ == "__main__":
    main()
