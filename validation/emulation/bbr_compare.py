"""Issue 28, docs/validation.md "BBR": aqmlab's BBR (simulated, linux profile) against the
kernel's bbr (emulated through the same router) on validation/emulation/bbr_path.toml (one
flow, 10 Mb/s, 40 ms, DropTail 10 BDP) and on the same path with one BBR and one CUBIC flow
and a 2 BDP buffer. Needs root and network namespaces (aqmlab emulate).

    python validation/emulation/bbr_compare.py [--out results/bbr_compare.json]

Reported per side: the flows' goodput, the queue's mean and p95 delay and utilization, and
the times BBR entered ProbeRTT, read the same way on both sides: the flow's cwnd series
falling to 4 packets or less (BBR's `bbr_cwnd_min_target`) after being above.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from aqmlab import api
from aqmlab.emulation.emulate import emulate
from aqmlab.scenario import load_scenario

HERE = Path(__file__).parent


def probe_rtt_entries(result, flow: int = 0) -> list[float]:
    ts = result.timeseries
    s = ts[(ts.source == f"flow{flow}") & (ts.variable == "cwnd")].sort_values("time_s")
    out, above = [], False
    for t, v in zip(s.time_s, s.value, strict=True):
        if v <= 4 and above:
            out.append(round(float(t), 2))
        above = v > 4
    return out


def summary(result) -> dict:
    q = result.queue("bottleneck")
    flows = result.flows
    return {
        "goodput_mbps": [round(float(x) / 1e6, 3) for x in flows["goodput_bps"]],
        "utilization": round(float(q["utilization"]), 4),
        "mean_delay_ms": round(float(q["mean_delay_ms"]), 2),
        "p95_delay_ms": round(float(q["p95_delay_ms"]), 2),
        "drops": int(q["drops"]),
        "probe_rtt_entries_s": probe_rtt_entries(result),
    }


def linux(scenario: dict) -> dict:
    s = dict(scenario)
    tcp = dict(s.get("tcp", {}))
    tcp.setdefault("profile", "linux")
    s["tcp"] = tcp
    return s


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    one = load_scenario(HERE / "bbr_path.toml")
    two = dict(one)
    two["name"] = "bbr-vs-cubic"
    two["duration"] = "65s"
    two["topology"] = json.loads(json.dumps(one["topology"]))
    two["topology"]["senders"] = 2
    two["topology"]["bottleneck"]["queue"] = {"limit": 67, "aqm": "droptail"}
    two["flows"] = [
        {"kind": "tcp", "from": "s0", "to": "d0", "tcp": {"congestion_control": "bbr"}},
        {"kind": "tcp", "from": "s1", "to": "d1", "start": "100ms", "tcp": {"congestion_control": "cubic"}},
    ]
    report = {}
    for name, sc in [("one_bbr_10bdp", one), ("bbr_vs_cubic_2bdp", two)]:
        sim = api.run(linux(sc), seed=1)
        emu = emulate(sc, 1)
        report[name] = {"simulated": summary(sim), "emulated": summary(emu), "emulation": emu.raw["emulation"]}
        print(name, json.dumps(report[name], indent=1), flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
