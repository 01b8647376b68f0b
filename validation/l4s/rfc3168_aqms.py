"""Pete Heist's l4s-tests, Scenario 6 ("RFC3168 AQMs"), re-run beside its published table.

    python validation/l4s/rfc3168_aqms.py --out DIR      # both Prague readings, 24 cells each

The source (transcribed in ``published/l4s_tests.toml``, with the repository, path and commit of
every number; the setup in ``published/l4s_tests.md``): heistp/l4s-tests README.md at e21cd91
("Scenario 6 Fairness Table", rows = s6_steady_state.md at 81295ca). Two flows (flent tcp_2up)
for 60 s through a 50 Mbit/s htb bottleneck with a single-queue Classic ECN AQM, 20 ms base RTT
(netem 10 ms on each direction): TCP Prague (flow 1) against CUBIC or Reno with ECN, or with its
ECN bits bleached at the middlebox ("noecn"); D_SS is each flow's mean delivery rate over a
40 s window ending 2 s before the end (the caption; the window steady_state.go used is not
recorded), the ratio D_SS1 : D_SS2.

The kernel the source ran: L4STeam/linux b256daedc767 (Aug 2020), tcp_prague.c v0.5 with its
module defaults (the harness sets only ``net.ipv4.tcp_ecn = 3``): no RTT independence
(``prague_rtt_scaling`` 0; target 15 ms, 100 rounds), alpha starting at 1, the increase one
packet per round trip on ``snd_cwnd``, the window stepping by whole packets, and the classic ECN
detection off (``prague_ecn_fallback`` 0). aqmlab runs that Prague (``l4s_tests_common.V05_PRAGUE``) and,
as the named alternative, the same with ``classic_ecn = "fallback"`` (what the version could
have done: its detection, off by default).

The qdiscs, as the source's ``tc`` lines give them, with Linux's readings where aqmlab has them
as named choices (docs/readings.md, "The qdiscs as the kernel runs them"):
- ``fq_codel flows 1`` (limit 10240, target 5 ms, interval 100 ms, ecn): ``fq_codel`` with one
  queue, the kernel's Newton step (``inv_sqrt = "linux"``); the same with target 1 ms,
  interval 20 ms.
- ``pie ecn`` (limit 1000, target 15 ms, tupdate 15 ms, alpha 2/16, beta 20/16) and ``pie
  limit 100 target 5ms tupdate 32ms ecn``: ``pie`` with ``ecn``, ``decay``,
  ``accu_prob_reset`` and ``burst_reset`` as Linux's.
- ``red limit B avpkt 1000 adaptive bandwidth 50Mbit ecn``: iproute2's defaults (max = B / 4,
  min = max / 3, burst = (2 min + max) / (3 avpkt), Wlog from tc_red_eval_ewma, probability
  0.02) as ``ared`` in packets of 1500 bytes, no gentle region, Linux's spacing (``wait =
  false``), no idle decay under htb, no short-queue exemption, max_p adapted every 500 ms
  (Linux's ``red_adaptative_algo`` on a timer; aqmlab checks on arrivals). One difference
  aqmlab cannot express: Linux's red with ``ecn`` and without ``harddrop`` marks ECT packets
  above max too; aqmlab's RED drops above max_th.

Packets of 1500 bytes (1448 payload + 52 headers with timestamps), access links 1 Gb/s with no
delay; flows start in the first 10 ms (``l4s_tests_common.START``). Seeds 1 to 3 (``--seeds``):
the mean, and the range of Prague's share over the seeds.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from l4s_tests_common import PACKET, READINGS, parse_args, published_cells, ratio, tcp_flow, two_flow_dss


def tc_red(limit_bytes: int, avpkt: int = 1000) -> dict[str, Any]:
    """iproute2's red defaults (tc/q_red.c: max = limit / 4, min = max / 3, burst =
    (2 min + max) / (3 avpkt), probability 0.02; tc/tc_red.c tc_red_eval_ewma for Wlog) as
    aqmlab's ared in packets of ``PACKET`` bytes."""
    qmax = limit_bytes // 4
    qmin = qmax // 3
    burst = (2 * qmin + qmax) // (3 * avpkt)
    a = burst + 1 - qmin / avpkt
    wlog = next(w for w in range(1, 32) if a <= (1 - (1 - 2.0**-w) ** burst) / 2.0**-w)
    return {
        "kind": "ared",
        "min_th": qmin / PACKET,
        "max_th": qmax / PACKET,
        "max_p": 0.02,
        "w_q": 2.0**-wlog,
        "gentle": False,
        "ecn": True,
        "mark_p": 1.0,
        "wait": False,
        "idle_decay": False,
        "short_queue_exempt": False,
        "bounds": "inclusive",
    }


PIE_LINUX = {"kind": "pie", "ecn": True, "decay": "linux", "accu_prob_reset": "linux", "burst_reset": "linux"}

QDISCS: dict[str, tuple[dict[str, Any], int]] = {
    "fq_codel(1q)": ({"kind": "fq_codel", "flows": 1, "inv_sqrt": "linux"}, 10240),
    "fq_codel(1q,1ms/20ms)": (
        {"kind": "fq_codel", "flows": 1, "inv_sqrt": "linux", "target": "1ms", "interval": "20ms"},
        10240,
    ),
    "pie": (PIE_LINUX, 1000),
    "pie(100p/5ms)": ({**PIE_LINUX, "target": "5ms", "t_update": "32ms"}, 100),
    "red(150000b)": (tc_red(150_000), 150_000 // PACKET),
    "red(400000b)": (tc_red(400_000), 400_000 // PACKET),
}


def scenario(qdisc: str, cc2: str, classic_ecn: str) -> dict[str, Any]:
    aqm, limit = QDISCS[qdisc]
    return {
        "name": f"l4s-tests s6 {qdisc} prague vs {cc2}",
        "duration": "58s",
        "warmup": "18s",
        "topology": {
            "kind": "dumbbell",
            "senders": 2,
            "bottleneck": {"rate": "50Mbps", "delay": "10ms", "queue": {"limit": limit, "aqm": aqm}},
            "access": {"rate": "1Gbps", "delay": "0ms"},
        },
        "flows": [tcp_flow(0, "prague", classic_ecn, "prague"), tcp_flow(1, cc2, classic_ecn, cc2)],
    }


def run_cell(cell: dict[str, Any], classic_ecn: str, seeds: list[int]) -> dict[str, Any]:
    return two_flow_dss(scenario(cell["qdisc"], cell["cc2"], classic_ecn), ("prague", cell["cc2"]), 50.0, seeds)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(__doc__, argv)
    cells = [c for c in published_cells("s6_rfc3168_aqms") if args.only in c["qdisc"]]
    rows = []
    for c in cells:
        row: dict[str, Any] = {k: c[k] for k in ("qdisc", "cc2", "dss1_mbps", "dss2_mbps", "ratio", "source_line")}
        for label, mode in READINGS.items():
            got = run_cell(c, mode, list(range(1, args.seeds + 1)))
            row[label] = got
        rows.append(row)
        print(json.dumps(row), flush=True)
    (args.out / "rfc3168_aqms.json").write_text(json.dumps(rows, indent=1) + "\n")
    (args.out / "rfc3168_aqms.md").write_text(table(rows, args.seeds))
    return 0


def table(rows: list[dict[str, Any]], seeds: int) -> str:
    labels = list(READINGS)
    head = (
        "| AQM | flow 2 | published D_SS1 / D_SS2 (ratio) | "
        + " | ".join(f"aqmlab, {label}: D_SS1 / D_SS2 (ratio)" for label in labels)
        + " |\n"
    )
    out = [head, "|---|---|---|" + "---|" * len(labels) + "\n"]
    for r in rows:
        cols = [f"{r['dss1_mbps']:.2f} / {r['dss2_mbps']:.2f} ({r['ratio']})"]
        for label in labels:
            g = r[label]
            lo, hi = g["share1"]
            cols.append(
                f"{g['dss1_mbps']:.2f} / {g['dss2_mbps']:.2f} ({ratio(g['dss1_mbps'], g['dss2_mbps'])}; "
                f"share {lo:.2f}-{hi:.2f})"
            )
        out.append(f"| {r['qdisc']} | {r['cc2']} | " + " | ".join(cols) + " |\n")
    share = {
        label: [r[label]["dss2_mbps"] / (r[label]["dss1_mbps"] + r[label]["dss2_mbps"]) for r in rows]
        for label in labels
    }
    pub = [r["dss2_mbps"] / (r["dss1_mbps"] + r["dss2_mbps"]) for r in rows]
    out.append(
        f"\nFlow 2's share of the two flows' D_SS, mean over the {len(rows)} cells: published "
        f"{sum(pub) / len(pub):.3f}; "
        + "; ".join(f"aqmlab {label} {sum(v) / len(v):.3f}" for label, v in share.items())
        + f" ({seeds} seeds per cell).\n"
    )
    if any(math.isnan(x) for v in share.values() for x in v):
        out.append("Some cells have no measurement.\n")
    return "".join(out)


if __name__ == "__main__":
    sys.exit(main())
