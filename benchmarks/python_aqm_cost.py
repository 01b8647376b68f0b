"""Events per second of the built-in RED against the same RED written in Python
(:class:`aqmlab.custom_aqm.SimpleRed`), on one scenario: the cost of a Python AQM.

    python benchmarks/python_aqm_cost.py

Prints the best of 3 runs of each and the slowdown (docs/python.md, "Cost of a Python AQM").
"""

from __future__ import annotations

from aqmlab import run
from aqmlab.custom_aqm import SimpleRed
from aqmlab.scenario import load_scenario, with_bottleneck_aqm

BENCH_SCENARIO = """
name = "bench-python-aqm"
duration = "200s"
warmup = "10s"
[topology]
kind = "dumbbell"
senders = 4
bottleneck = { rate = "10Mbps", delay = "10ms", queue = { limit = 100, aqm = "red" } }
access = { rate = "100Mbps", delay = "1ms" }
[[flows]]
kind = "poisson"
from = "senders"
to = "receivers"
packets_per_second = 320
"""


def benchmark(repeat: int = 3) -> dict[str, float]:
    """Events per second of the built-in RED vs :class:`SimpleRed` in Python, same scenario."""
    base = load_scenario(BENCH_SCENARIO)
    best: dict[str, float] = {}
    for label, aqm in (("rust red", "red"), ("python SimpleRed", "py_simple_red")):
        s = with_bottleneck_aqm(base, {"kind": aqm, "min_th": 5, "max_th": 15})
        rates = []
        for _ in range(repeat):
            r = run(s, seed=1, custom_aqms={"py_simple_red": SimpleRed})
            rates.append(r.events_per_second)
        best[label] = max(rates)
        print(f"{label:>18}: {best[label] / 1e6:7.3f} M events/s  ({r.events:,} events)")
    print(f"{'slowdown':>18}: {best['rust red'] / best['python SimpleRed']:.1f}x")
    return best


if __name__ == "__main__":
    benchmark()
