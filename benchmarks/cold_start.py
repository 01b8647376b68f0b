"""Whole-process cost of commands, timed from outside: A and B alternate (A B A B ...), so a
drift of the machine's speed moves both, and the ratio A/B is taken pair by pair.

    python benchmarks/cold_start.py --runs 20 "aqmlab run two_flows.toml --json" "python3 -c pass"

Prints, for each command, the median (min-max) of wall seconds, CPU seconds (user + system,
the kernel's accounting of the finished child) and peak resident memory, then the median of
the per-pair ratios. Standard library only (``os.wait4`` gives each child's own usage). The
commands' output is discarded. BENCHMARKS.md, "aqmlab run cold start, whole process".
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import time


def run_once(argv: list[str]) -> tuple[float, float, float]:
    """(wall s, cpu s, peak MiB) of one run of ``argv``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{shlex.join(argv)} exited with {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def spread(values: list[float], digits: int = 3) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", help="command A (one string, split as a shell would)")
    parser.add_argument("b", help="command B, the baseline")
    parser.add_argument("--runs", type=int, default=20, help="pairs timed (default 20)")
    parser.add_argument("--warmup", type=int, default=2, help="pairs run first and not timed (default 2)")
    args = parser.parse_args()
    a, b = shlex.split(args.a), shlex.split(args.b)
    for _ in range(args.warmup):
        run_once(a)
        run_once(b)
    ra, rb = [], []
    for _ in range(args.runs):
        ra.append(run_once(a))
        rb.append(run_once(b))
    for name, rows in (("A", ra), ("B", rb)):
        wall, cpu, peak = (list(col) for col in zip(*rows, strict=True))
        print(f"{name}: wall {spread(wall)} s, cpu {spread(cpu)} s, peak {spread(peak, 1)} MiB")
    for i, what in ((0, "wall"), (1, "cpu")):
        print(f"A/B {what}: {spread([x[i] / y[i] for x, y in zip(ra, rb, strict=True)])}")


if __name__ == "__main__":
    main()
