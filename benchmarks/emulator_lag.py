"""The emulator's departure-clock lag at 10, 100 and 1000 Mb/s (BENCHMARKS.md, "Emulator").

One kernel CUBIC flow saturates a dumbbell's bottleneck (the access links 10 times faster,
DropTail of 2 BDP), so the router's departure clock runs back to back at the bottleneck's
rate. Each rate is run `--runs` times; the table gives, per rate, the median and the range of
the runs' lag percentiles, the bottleneck's utilization and the events per second handled.
Root, TUN and a quiet machine needed:

    python benchmarks/emulator_lag.py [--rates 10 100 1000] [--runs 3] [--duration 10] [--spin-us 250]
"""

from __future__ import annotations

import argparse
import statistics
import warnings
from typing import Any

from aqmlab.emulation.emulate import DEFAULT_SPIN_US, emulate


def path(rate_mbps: int, duration: float) -> dict[str, Any]:
    rtt_s = 0.012
    bdp_packets = max(10, round(rate_mbps * 1e6 * rtt_s / 8 / 1500))
    return {
        "name": f"lag-{rate_mbps}mbps",
        "duration": duration,
        "warmup": 2.0,
        "topology": {
            "kind": "dumbbell",
            "senders": 1,
            "bottleneck": {"rate": f"{rate_mbps}Mbps", "delay": "5ms", "queue": {"limit": 2 * bdp_packets}},
            "access": {"rate": f"{10 * rate_mbps}Mbps", "delay": "0.5ms"},
        },
        "tcp": {"congestion_control": "cubic", "packet_size": 1448, "header_size": 52},
        "flows": [{"kind": "tcp", "from": "senders", "to": "receivers"}],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rates", nargs="+", type=int, default=[10, 100, 1000])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--duration", type=float, default=10.0)
    p.add_argument("--spin-us", type=float, default=DEFAULT_SPIN_US)
    p.add_argument("--router-cpu", default="auto", help="a CPU number, auto or none")
    a = p.parse_args()
    print("| bottleneck | runs | departure lag p50 us | p99 us | max us | utilization | events/s |")
    print("|---|---|---|---|---|---|---|")
    for rate in a.rates:
        rows = []
        for _ in range(a.runs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a run beyond the lag bound is reported here, not refused
                r = emulate(
                    path(rate, a.duration),
                    spin_us=a.spin_us,
                    router_cpu=None
                    if a.router_cpu == "none"
                    else a.router_cpu
                    if a.router_cpu == "auto"
                    else int(a.router_cpu),
                )
            em = r.raw["emulation"]
            rows.append(
                (
                    em["departure_lag_p50_us"],
                    em["departure_lag_p99_us"],
                    em["departure_lag_max_us"],
                    float(r.queue().utilization),
                    r.events / r.wall_time_s,
                )
            )

        def col(i: int, digits: int = 1, rows: list[tuple[float, ...]] = rows) -> str:
            xs = sorted(x[i] for x in rows)
            return f"{statistics.median(xs):.{digits}f} ({xs[0]:.{digits}f}-{xs[-1]:.{digits}f})"

        print(f"| {rate} Mb/s | {a.runs} | {col(0)} | {col(1)} | {col(2, 0)} | {col(3, 3)} | {col(4, 0)} |", flush=True)


if __name__ == "__main__":
    main()
