"""Wall time of a 200-run sweep serially and on N worker processes (issue 4's benchmark).

    python benchmarks/sweep_scaling.py [--workers 2] [--runs 200]

Each run is a 10-flow, 10 Mb/s RED dumbbell of 20 simulated seconds. The stores go to a
temporary directory and are removed; the script prints one line per backend and the speed-up.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import tempfile
import time

from aqmlab.sweep import Sweep, run_sweep

BASE = {
    "name": "sweep-scaling",
    "duration": "20s",
    "warmup": "5s",
    "topology": {
        "kind": "dumbbell",
        "senders": 10,
        "bottleneck": {
            "rate": "10Mbps",
            "delay": "10ms",
            "queue": {"limit": 100, "aqm": {"kind": "red", "max_p": 0.1}},
        },
        "access": {"rate": "100Mbps", "delay": ["1ms", "3ms", "5ms"]},
    },
    "tcp": {"variant": "newreno", "window": 64},
    "flows": [{"kind": "tcp", "from": "senders", "to": "receivers", "start": {"uniform": ["0s", "1s"]}}],
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    points = 20
    sweep = Sweep(
        base=BASE,
        grid={"topology.bottleneck.queue.aqm.max_p": [round(0.01 * (i + 1), 2) for i in range(points)]},
        replications=args.runs // points,
        master_seed=1,
    )
    print(f"{platform.node()} {platform.machine()} cpus={os.cpu_count()} runs={len(sweep.jobs())}")
    times = {}
    for backend, workers in [("serial", 1), ("process", args.workers)]:
        d = tempfile.mkdtemp()
        try:
            t0 = time.perf_counter()
            report = run_sweep(sweep, d, backend=backend, workers=workers)
            times[backend] = time.perf_counter() - t0
            assert report.complete, report.failures
        finally:
            shutil.rmtree(d)
        print(f"{backend:8s} workers={workers}: {times[backend]:.1f} s")
    print(
        f"speed-up {times['serial'] / times['process']:.2f}x on {args.workers} workers ({times['process'] / times['serial']:.2f} of the serial time)"
    )


if __name__ == "__main__":
    main()
