"""The identical dumbbell of issue 12 at N = 10, 100, 1000 flows, under gentle RED and DropTail,
with ns-2's Sack1 and with RFC 6675 + PRR recovery (NewReno congestion control in both).

    python benchmarks/identical_dumbbell.py [--flows 10 100 1000] [--seeds 1] [--markdown]

Prints, per combination: bottleneck utilization, drop rate (drops / arrivals at the
bottleneck), time-averaged queue (packets), RTOs per flow, fast recoveries per flow,
retransmissions per flow, and the run's events, wall time and events/s. The scenario is the
packaged `identical-dumbbell` (python/aqmlab/scenarios/identical_dumbbell.toml); only the flow
count, the queue and `tcp.recovery` change.
"""

from __future__ import annotations

import argparse
import copy
import platform
import statistics
from datetime import date

import aqmlab
from aqmlab.scenario import load_scenario, packaged_scenario_path

QUEUES = {
    "red": {"limit": 50, "aqm": {"kind": "red", "min_th": 5, "max_th": 15, "w_q": 0.002, "max_p": 0.1, "gentle": True}},
    "droptail": {"limit": 50, "aqm": "droptail"},
}
RECOVERIES = {
    "sack1": {"variant": "sack", "recovery": "ns2"},
    "rfc6675+prr": {"variant": "sack", "recovery": "rfc6675"},
    # Beside the pair: the same recovery with RACK-TLP loss detection (RFC 8985).
    "rfc6675+prr+rack-tlp": {"variant": "sack", "recovery": "rfc6675", "rack_tlp": {"enabled": True}},
}
COLUMNS = [
    "N",
    "queue",
    "tcp",
    "utilization",
    "drop rate",
    "avg queue",
    "RTOs/flow",
    "FR/flow",
    "retx/flow",
    "events",
    "wall s",
    "Mev/s",
]


def scenario(n: int, queue: str, tcp: str) -> dict:
    s = copy.deepcopy(load_scenario(packaged_scenario_path("identical-dumbbell")))
    s["topology"]["senders"] = n
    s["topology"]["bottleneck"]["queue"] = copy.deepcopy(QUEUES[queue])
    s["tcp"].update(RECOVERIES[tcp])
    return s


def measure(n: int, queue: str, tcp: str, seed: int) -> dict:
    r = aqmlab.run(scenario(n, queue, tcp), seed=seed)
    q = r.queue("bottleneck")
    f = r.flows
    return {
        "utilization": q["utilization"],
        "drop rate": q["drops"] / q["arrivals"] if q["arrivals"] else 0.0,
        "avg queue": q["mean_queue_packets"],
        "RTOs/flow": f["timeouts"].mean(),
        "FR/flow": f["fast_recoveries"].mean(),
        "retx/flow": f["retransmissions"].mean(),
        "events": r.events,
        "wall s": r.wall_time_s,
        "Mev/s": r.events_per_second / 1e6,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, nargs="+", default=[10, 100, 1000])
    ap.add_argument("--seeds", type=int, default=1, help="replications (seeds 1..S); the mean is printed")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    rows = []
    for n in args.flows:
        for queue in QUEUES:
            for tcp in RECOVERIES:
                runs = [measure(n, queue, tcp, seed) for seed in range(1, args.seeds + 1)]
                row = {"N": n, "queue": queue, "tcp": tcp}
                row.update({k: statistics.fmean(r[k] for r in runs) for k in runs[0]})
                rows.append(row)
                print(_line(row, args.markdown) if args.markdown else row, flush=True)
    print(
        f"\n{platform.node()} {platform.processor() or platform.machine()}, aqmlab {aqmlab.__version__}, "
        f"{date.today().isoformat()}, seeds 1..{args.seeds}"
    )


def _line(row: dict, markdown: bool) -> str:
    fmt = {
        "utilization": "{:.4f}",
        "drop rate": "{:.4f}",
        "avg queue": "{:.2f}",
        "RTOs/flow": "{:.2f}",
        "FR/flow": "{:.2f}",
        "retx/flow": "{:.1f}",
        "events": "{:,.0f}",
        "wall s": "{:.2f}",
        "Mev/s": "{:.2f}",
    }
    cells = [fmt[c].format(row[c]) if c in fmt else str(row[c]) for c in COLUMNS]
    return "| " + " | ".join(cells) + " |"


if __name__ == "__main__":
    main()
