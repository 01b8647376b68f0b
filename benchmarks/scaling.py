"""How aqmlab scales with the number of flows (issue 13): a dumbbell of N TCP flows whose
bottleneck is scaled to about 10 packets per flow per second, each N run in a fresh process.

    python benchmarks/scaling.py [--flows 10 100 1000 10000 100000] [--duration 10s] [--markdown]

Prints per N: wall time split into set-up (building the scenario), loop (the event loop) and
collection (gathering the result and handing it to Python as Arrow), events, events/s, ns of
loop time per packet through the bottleneck, peak RSS of the process and RSS per flow (peak
RSS less that of a process that imported aqmlab and ran nothing, over N).

The scenario: N senders, 1 Gb/s 1 ms access links, a DropTail bottleneck of N x 10 packets/s
x 1040 bytes, 20 ms one way, 2 packets of buffer per flow (at least 100), NewReno with a
window of 64, flows starting uniformly in the first second, the first second a warm-up.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from datetime import date

PACKET_BYTES = 1040
PACKETS_PER_FLOW_PER_SECOND = 10

_CHILD = r"""
import json, sys, time

def peak():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))

import aqmlab
n, duration = int(sys.argv[1]), sys.argv[2]
if n == 0:
    print(json.dumps({"baseline_rss": peak()}))
    sys.exit()
rate = n * PACKETS_PER_FLOW_PER_SECOND * PACKET_BYTES * 8
s = {
    "duration": duration,
    "warmup": "1s",
    "topology": {
        "kind": "dumbbell",
        "senders": n,
        "bottleneck": {"rate": f"{rate}bps", "delay": "20ms",
                       "queue": {"limit": max(100, 2 * n), "aqm": "droptail"}},
        "access": {"rate": "1Gbps", "delay": "1ms"},
    },
    "tcp": {"variant": "newreno", "window": 64},
    "flows": [{"kind": "tcp", "from": "senders", "to": "receivers", "start": {"uniform": ["0s", "1s"]}}],
}
started = time.perf_counter()
r = aqmlab.run(s, seed=1, max_memory="none")
wall = time.perf_counter() - started
q = r.queue("bottleneck")
print(json.dumps({"wall_s": wall, **r.timings, "events": r.events, "peak_rss": r.peak_rss_bytes,
                  "bottleneck_packets": int(q["departures"]), "utilization": float(q["utilization"])}))
"""


def run_one(n: int, duration: str) -> dict:
    code = f"PACKETS_PER_FLOW_PER_SECOND = {PACKETS_PER_FLOW_PER_SECOND}\nPACKET_BYTES = {PACKET_BYTES}\n" + _CHILD
    out = subprocess.run([sys.executable, "-c", code, str(n), duration], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, nargs="+", default=[10, 100, 1000, 10000, 100000])
    ap.add_argument("--duration", default="10s")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    baseline = run_one(0, args.duration)["baseline_rss"]
    cols = [
        "N",
        "set-up s",
        "loop s",
        "collect s",
        "wall s",
        "events",
        "M events/s",
        "ns/bottleneck pkt",
        "peak RSS MB",
        "RSS/flow KB",
        "utilization",
    ]
    rows = []
    for n in args.flows:
        r = run_one(n, args.duration)
        rows.append(
            [
                f"{n:,}",
                f"{r['setup_s']:.3f}",
                f"{r['loop_s']:.3f}",
                f"{r['collect_s']:.3f}",
                f"{r['wall_s']:.3f}",
                f"{r['events']:,}",
                f"{r['events'] / r['loop_s'] / 1e6:.2f}",
                f"{r['loop_s'] * 1e9 / max(r['bottleneck_packets'], 1):.0f}",
                f"{r['peak_rss'] / 2**20:.1f}",
                f"{(r['peak_rss'] - baseline) / n / 1024:.1f}",
                f"{r['utilization']:.4f}",
            ]
        )
        if not args.markdown:
            print(dict(zip(cols, rows[-1], strict=True)), flush=True)
    if args.markdown:
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    print(
        f"\n{platform.node()} {platform.machine()}, aqmlab {__import__('aqmlab').__version__}, {date.today()}, "
        f"{args.duration} simulated, baseline RSS {baseline / 2**20:.1f} MB"
    )


if __name__ == "__main__":
    main()
