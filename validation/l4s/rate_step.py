"""Pete Heist's l4s-tests, Scenario 2 ("Codel Rate Step") with its bursty variant, re-run beside
what its README states in words (no tables are published: the plots are on a server outside the
repository; ``published/l4s_tests.toml`` holds the quoted numbers with their lines).

    python validation/l4s/rate_step.py --out DIR       # 64 runs, seed 1

One flow (flent tcp_1up) for 60 s through a 50 Mbit/s htb bottleneck with fq_codel (Linux
defaults, ECN on) or DualPI2 (defaults); at 30 s the rate steps to 25, 10, 5 or 1 Mbit/s (an
``[[events]]`` rate change here); RTT 20 or 80 ms from netem on the middlebox's ingress, both
directions; TCP Prague (the v0.5 of ``l4s_tests_common.py``) or CUBIC. Bursty variant: a child
netem ``delay 200us slot 800us 5ms packets 16`` under the delay netem, both directions ("bursts
of approximately 4ms"). Here the sender's access link carries the one-way delay each way
(10 or 40 ms; 10.2 or 40.2 ms when bursty) and, when bursty, netem's slots on both its
directions (``netem`` for the data, ``reverse_netem`` for the ACKs: link/netem.rs, "Bursty
links" in docs/readings.md). Two differences of placement, named: the source's slot netem is a
child of its delay netem, so its slot draws happen when packets come out of the 10 ms delay,
here when they enter it (a lone packet waits one slot after the delay there, one slot from its
own due time here: up to 0.2 ms apart); the ACKs' slots come before the reverse queue there,
after it here (the reverse queue holds only ACKs and stays near empty).

Per run, from the flow's sampled srtt (flent's TCP RTT is ss's rtt, the same srtt) and bytes
received every 50 ms (flent's step): the utilisation in 20-30 s (before the step) and 40-60 s
(after), the largest srtt after the step, and the spike's duration: from the step to the last
sample above 1.5 x the median srtt of 20-30 s (the source reads its durations off the plots).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import aqmlab
from l4s_tests_common import DUALPI2_2020, published_text_cells, tcp_flow

SLOT = {"min_delay": "800us", "max_delay": "5ms", "packets": 16}
QDISCS = {"fq_codel": ({"kind": "fq_codel", "inv_sqrt": "linux"}, 10240), "dualpi2": (DUALPI2_2020, 10000)}


def scenario(qdisc: str, cc: str, rate_after: int, rtt_ms: int, bursty: bool) -> dict[str, Any]:
    aqm, limit = QDISCS[qdisc]
    one_way = rtt_ms / 2 + (0.2 if bursty else 0.0)
    access: dict[str, Any] = {"rate": "1Gbps", "delay": f"{one_way:g}ms"}
    if bursty:
        access["netem"] = {"slot": SLOT}
        access["reverse_netem"] = {"slot": SLOT}
    flow = tcp_flow(0, cc, "off", "flow")
    flow["start"] = "0s"
    return {
        "name": f"l4s-tests s2 {'bursty' if bursty else 'clean'} {cc} {qdisc} 50->{rate_after} {rtt_ms}ms",
        "duration": "60s",
        "sample_interval": "50ms",
        "topology": {
            "kind": "dumbbell",
            "senders": 1,
            "bottleneck": {"rate": "50Mbps", "queue": {"limit": limit, "aqm": aqm}},
            "access": access,
            "receiver_access": {"rate": "1Gbps"},
        },
        "flows": [flow],
        "events": [{"at": "30s", "link": "bottleneck", "rate": f"{rate_after}Mbps"}],
    }


def measure(r: Any, rate_after: int) -> dict[str, float]:
    ts = r.timeseries
    f = ts[ts["source"] == "flow0"]
    srtt = f[f["variable"] == "srtt_ms"].set_index("time_s")["value"]
    got = f[f["variable"] == "bytes_received"].set_index("time_s")["value"]

    def rate(t0: float, t1: float) -> float:
        return float((got.asof(t1) - got.asof(t0)) * 8 / (t1 - t0))

    before = statistics.median(srtt[(srtt.index >= 20) & (srtt.index < 30)])
    after = srtt[srtt.index >= 30]
    above = after[after > 1.5 * before]
    util_before, util_after = rate(20, 30) / 50e6, rate(40, 60) / (rate_after * 1e6)
    # counted in whole packets at the samples: one packet more than the window's share at most
    one_packet = 1500 * 8 / (rate_after * 1e6 * 20)
    assert 0 <= util_before <= 1 + one_packet and 0 <= util_after <= 1 + one_packet, (util_before, util_after)
    return {
        "srtt_before_ms": float(before),
        "max_srtt_after_ms": float(after.max()),
        "spike_s": float(above.index.max() - 30) if len(above) else 0.0,
        "utilization_before": util_before,
        "utilization_after": util_after,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for bursty in (False, True):
        for qdisc in QDISCS:
            for cc in ("prague", "cubic"):
                for rtt in (20, 80):
                    for rate_after in (25, 10, 5, 1):
                        r = aqmlab.run(scenario(qdisc, cc, rate_after, rtt, bursty), seed=args.seed)
                        row = {"bursty": bursty, "qdisc": qdisc, "cc": cc, "rtt_ms": rtt, "rate_after_mbps": rate_after}
                        row.update(measure(r, rate_after))
                        rows.append(row)
                        print(json.dumps(row), flush=True)
    (args.out / "rate_step.json").write_text(json.dumps(rows, indent=1) + "\n")
    (args.out / "rate_step.md").write_text(table(rows))
    return 0


def table(rows: list[dict[str, Any]]) -> str:
    quoted = {
        (c["burstiness"] == "bursty", c["qdisc"], c["cc"], c["rtt_ms"], c.get("rate_after_mbps")): c.get("quote", "")
        for c in published_text_cells("s2_codel_rate_step")
        if "rate_after_mbps" in c and "rtt_ms" in c
    }
    out = [
        "| links | AQM | flow | RTT | 50 -> | srtt before (ms) | max srtt after (ms) | spike (s) | "
        "utilisation before / after | the README says |\n",
        "|---|---|---|---|---|---|---|---|---|---|\n",
    ]
    for r in rows:
        key = (r["bursty"], r["qdisc"], r["cc"], r["rtt_ms"], r["rate_after_mbps"])
        out.append(
            f"| {'bursty' if r['bursty'] else 'clean'} | {r['qdisc']} | {r['cc']} | {r['rtt_ms']} | "
            f"{r['rate_after_mbps']} | {r['srtt_before_ms']:.1f} | {r['max_srtt_after_ms']:.0f} | "
            f"{r['spike_s']:.2f} | {r['utilization_before']:.2f} / {r['utilization_after']:.2f} | "
            f"{quoted.get(key, '').replace('|', '/')} |\n"
        )
    return "".join(out)


if __name__ == "__main__":
    sys.exit(main())
