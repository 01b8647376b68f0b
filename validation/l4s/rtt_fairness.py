"""Pete Heist's l4s-tests, Scenario 1 ("RTT Fairness"), re-run beside its published table.

    python validation/l4s/rtt_fairness.py --out DIR     # 144 cells, both Prague readings

The source (``published/l4s_tests.toml``, each number with its repository, path, commit and
line; the setup in ``published/l4s_tests.md``): heistp/l4s-tests README.md at e21cd91, "Scenario
1 Fairness Table" (= s1_table.md at 81295ca). Two flows (flent tcp_2up, both from t = 0) for
180 s through an htb bottleneck of 50 or 10 Mbit/s; each flow's RTT set by netem on the
middlebox's ingress (half each way): 10/10, 20/10, 20/20, 80/80, 80/20, 160/10 ms; the pairs
prague-vs-prague, cubic-vs-prague, prague-vs-cubic, cubic-vs-cubic. D_SS: each flow's mean
delivery rate over the 60 s ending 2 s before the end (s1_steady_state.go); Jain's index of the
two.

Here: the senders' access links carry each flow's one-way delay (RTT / 2, both directions: the
same place in the path as the source's ingress netem, before the bottleneck's queue), the
bottleneck none; flows start in the first 10 ms (``l4s_tests_common.START``); goodput over
118 to 178 s stands for the mean delivery rate (both count what
the receiver got per second; the delivery-rate samples also count retransmissions). TCP Prague
is the v0.5 the source ran (``l4s_tests_common.py``), and, as the named alternative, the same
with its classic ECN fallback; CUBIC is the linux profile with ECN on (both ends set
``tcp_ecn = 3``, so the source's CUBIC negotiated ECN and sent ECT(0)).

The qdiscs: ``dualpi2`` (tc's defaults, as the L4S team's module of 2019-2020 has them:
``l4s_tests_common.DUALPI2_2020``, its step only for packets that found two or more in the L
queue), ``pfifo limit 1000`` at 50 Mbit/s and
``pfifo limit 200`` at 10 Mbit/s (droptail), ``fq_codel`` (Linux defaults, its Newton step,
``inv_sqrt = "linux"``). Not run: ``cnq_codel_af``, an out-of-tree SCE-project AQM aqmlab does
not have (its 48 cells are listed as not run).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from l4s_tests_common import DUALPI2_2020, READINGS, parse_args, published_cells, tcp_flow, two_flow_dss

QDISCS: dict[str, tuple[Any, int]] = {
    "dualpi2": (DUALPI2_2020, 10000),
    "pfifo(1000)": ("droptail", 1000),
    "pfifo(200)": ("droptail", 200),
    "fq_codel": ({"kind": "fq_codel", "inv_sqrt": "linux"}, 10240),
}


def scenario(cell: dict[str, Any], classic_ecn: str) -> dict[str, Any]:
    aqm, limit = QDISCS[cell["qdisc"]]
    rtts = [f"{cell['rtt1_ms'] / 2}ms", f"{cell['rtt2_ms'] / 2}ms"]
    return {
        "name": f"l4s-tests s1 {cell['qdisc']} {cell['cc1']}/{cell['rtt1_ms']} vs {cell['cc2']}/{cell['rtt2_ms']}",
        "duration": "178s",
        "warmup": "118s",
        "topology": {
            "kind": "dumbbell",
            "senders": 2,
            "bottleneck": {"rate": f"{cell['rate_mbps']}Mbps", "queue": {"limit": limit, "aqm": aqm}},
            "access": {"rate": "1Gbps", "delay": rtts},
            "receiver_access": {"rate": "1Gbps"},
        },
        "flows": [tcp_flow(0, cell["cc1"], classic_ecn, "flow1"), tcp_flow(1, cell["cc2"], classic_ecn, "flow2")],
    }


def run_cell(cell: dict[str, Any], classic_ecn: str, seeds: list[int]) -> dict[str, Any]:
    return two_flow_dss(scenario(cell, classic_ecn), ("flow1", "flow2"), cell["rate_mbps"], seeds)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(__doc__, argv)
    cells = [c for c in published_cells("s1_rtt_fairness") if args.only in c["qdisc"]]
    rows = []
    for c in cells:
        row: dict[str, Any] = {
            k: c[k]
            for k in ("rate_mbps", "qdisc", "cc1", "rtt1_ms", "cc2", "rtt2_ms", "dss1_mbps", "dss2_mbps", "jain")
        }
        row["source_line"] = c["source_line"]
        if c["qdisc"] in QDISCS:
            # Prague's classic ECN fallback changes nothing where no flow is Prague.
            modes = READINGS if "prague" in (c["cc1"], c["cc2"]) else dict(list(READINGS.items())[:1])
            for label, mode in modes.items():
                row[label] = run_cell(c, mode, list(range(1, args.seeds + 1)))
        rows.append(row)
        print(json.dumps(row), flush=True)
    (args.out / "rtt_fairness.json").write_text(json.dumps(rows, indent=1) + "\n")
    (args.out / "rtt_fairness.md").write_text(table(rows, args.seeds))
    return 0


def table(rows: list[dict[str, Any]], seeds: int) -> str:
    labels = list(READINGS)
    out = [
        "| rate | AQM | flow 1 / RTT | flow 2 / RTT | published D_SS1 / D_SS2 (Jain) | "
        + " | ".join(f"aqmlab, {label}" for label in labels)
        + " |\n",
        "|---|---|---|---|---|" + "---|" * len(labels) + "\n",
    ]
    for r in rows:
        cols = [f"{r['dss1_mbps']:.2f} / {r['dss2_mbps']:.2f} ({r['jain']:.3f})"]
        for label in labels:
            g = r.get(label)
            if g is None:
                cols.append("not run" if r["qdisc"] not in QDISCS else "as above")
            else:
                lo, hi = g["share1"]
                cols.append(f"{g['dss1_mbps']:.2f} / {g['dss2_mbps']:.2f} ({g['jain']:.3f}; share {lo:.2f}-{hi:.2f})")
        out.append(
            f"| {r['rate_mbps']} | {r['qdisc']} | {r['cc1']} / {r['rtt1_ms']} | {r['cc2']} / {r['rtt2_ms']} | "
            + " | ".join(cols)
            + " |\n"
        )
    out.append(
        f"\n{seeds} seeds per cell: the mean D_SS in Mb/s over 118 to 178 s (Jain's index of the means; the "
        "range of flow 1's share of the two over the seeds).\n"
    )
    return "".join(out)


if __name__ == "__main__":
    sys.exit(main())
