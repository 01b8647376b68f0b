"""One reproduction experiment's sweep through the reproduction's driver, timed: what the
driver process costs beside its workers.

    python benchmarks/reproduce_driver.py [--replications 20] [--experiment topology2] [--workers 2]

Runs Hybrid RED's experiment (default topology 2: 53 points, so 20 replications are 1,060 runs)
through ``aqmlab.reproduce.execute.run_all`` into a fresh temporary store, then reads the runs
back, and prints the wall time, the driver's CPU (user, system; the package's imports
included) and its workers' CPU. For paired comparisons run it under farm-bench
(BENCHMARKS.md, "The reproduction's driver and finisher").
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

from aqmlab.reproduce import execute, jobs
from aqmlab.reproduce.spec import load_paper


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replications", type=int, default=20)
    ap.add_argument("--experiment", default="topology2")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    exp = load_paper("hybrid-red").experiment(args.experiment)
    specs = jobs.build_jobs(exp, quick=None)
    d = Path(tempfile.mkdtemp())
    try:
        t0 = time.perf_counter()
        info = execute.run_all(specs, args.replications, d / "store", "bench", workers=args.workers)
        swept = time.perf_counter() - t0
        runs = execute.read_runs(d / "store", info["keys"], specs)
        read = time.perf_counter() - t0 - swept
    finally:
        shutil.rmtree(d, ignore_errors=True)
    me = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"{info['total']} runs ({len(runs)} read back): sweep {swept:.2f} s, read {read:.2f} s of wall; "
        f"driver CPU user {me.ru_utime:.2f} s system {me.ru_stime:.2f} s; "
        f"workers CPU user {workers.ru_utime:.2f} s system {workers.ru_stime:.2f} s"
    )


if __name__ == "__main__":
    main()
